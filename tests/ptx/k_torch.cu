// Kernels for test_ptx_torch.c: the shapes of code PyTorch's CUDA kernels
// compile to - vectorised elementwise with a tail, magic-number index
// division (IntDivider), Welford layer norm with warp shuffles, block
// scan, argmax with (value, index) shuffles, scatter-add with half
// atomics, strided 64-bit indexing.
#include <cuda_fp16.h>
#include <stdint.h>

struct alignas(16) F4 { float v[4]; };

extern "C" __global__ void vec_gelu(const float *x, float *y, long long n)
{
    long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (base + 3 < n && ((uintptr_t)x % 16 == 0) && ((uintptr_t)y % 16 == 0)) {
        F4 a = *reinterpret_cast<const F4 *>(x + base), r;
        #pragma unroll
        for (int k = 0; k < 4; k++) r.v[k] = 0.5f * a.v[k] * (1.0f + erff(a.v[k] * 0.70710678f));
        *reinterpret_cast<F4 *>(y + base) = r;
    } else {
        for (long long i = base; i < n && i < base + 4; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f));
    }
}

struct IntDivider {
    unsigned d, m, s;
    __host__ __device__ unsigned div(unsigned n) const { unsigned t = __umulhi(n, m); return (t + n) >> s; }
};

// 3-D permute through magic-number division of the linear index
extern "C" __global__ void permute3(const float *in, float *out, IntDivider d2, IntDivider d1,
                                    int s0, int s1, int s2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned q2 = d2.div(i), r2 = i - q2 * d2.d;
    unsigned q1 = d1.div(q2), r1 = q2 - q1 * d1.d;
    out[i] = in[q1 * s0 + r1 * s1 + r2 * s2];
}

__device__ void welford(float &m, float &m2, float &c, float om, float om2, float oc)
{
    float nc = c + oc;
    if (nc == 0) return;
    float d = om - m, f = oc / nc;
    m += d * f;
    m2 += om2 + d * d * c * f;
    c = nc;
}

extern "C" __global__ void layer_norm(const float *x, float *y, float *mean, float *rstd, int cols, float eps)
{
    const float *r = x + (size_t)blockIdx.x * cols;
    float m = 0, m2 = 0, c = 0;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) welford(m, m2, c, r[j], 0.f, 1.f);
    for (int o = 16; o; o >>= 1)
        welford(m, m2, c, __shfl_down_sync(0xffffffffu, m, o), __shfl_down_sync(0xffffffffu, m2, o),
                __shfl_down_sync(0xffffffffu, c, o));
    __shared__ float sm[32], sm2[32], sc[32];
    int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    if (l == 0) { sm[w] = m; sm2[w] = m2; sc[w] = c; }
    __syncthreads();
    if (w == 0) {
        int nw = blockDim.x >> 5;
        m = l < nw ? sm[l] : 0; m2 = l < nw ? sm2[l] : 0; c = l < nw ? sc[l] : 0;
        for (int o = 16; o; o >>= 1)
            welford(m, m2, c, __shfl_down_sync(0xffffffffu, m, o), __shfl_down_sync(0xffffffffu, m2, o),
                    __shfl_down_sync(0xffffffffu, c, o));
        if (l == 0) { sm[0] = m; sm2[0] = rsqrtf(m2 / c + eps); }
    }
    __syncthreads();
    float mu = sm[0], rs = sm2[0];
    if (threadIdx.x == 0) { mean[blockIdx.x] = mu; rstd[blockIdx.x] = rs; }
    for (int j = threadIdx.x; j < cols; j += blockDim.x) y[(size_t)blockIdx.x * cols + j] = (r[j] - mu) * rs;
}

// inclusive scan of one block (Hillis-Steele in shared memory)
extern "C" __global__ void block_scan(const int *in, int *out, int n)
{
    extern __shared__ int buf[];
    int t = threadIdx.x;
    buf[t] = t < n ? in[t] : 0;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        int v = t >= o ? buf[t - o] : 0;
        __syncthreads();
        buf[t] += v;
        __syncthreads();
    }
    if (t < n) out[t] = buf[t];
}

extern "C" __global__ void argmax_rows(const float *x, long long *idx, float *val, int cols)
{
    const float *r = x + (size_t)blockIdx.x * cols;
    float bv = -INFINITY; int bi = 0;
    for (int j = threadIdx.x; j < cols; j += 32)
        if (r[j] > bv || (r[j] == bv && j < bi)) { bv = r[j]; bi = j; }
    for (int o = 16; o; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, bv, o);
        int oi = __shfl_xor_sync(0xffffffffu, bi, o);
        if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }
    }
    if (threadIdx.x == 0) { idx[blockIdx.x] = bi; val[blockIdx.x] = bv; }
}

extern "C" __global__ void scatter_add_half(const long long *index, const __half *src, __half *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&dst[index[i]], src[i]);
}

extern "C" __global__ void strided_copy(const double *src, double *dst, long long rows, long long cols,
                                        long long sstride)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    long long r = i / cols, c = i % cols;
    dst[i] = src[r * sstride + c] * 2.0 - (double)c;
}

// kernel_families.cu - one program per feature family of the host executor,
// run under the preload and compared with host computations: warp
// shuffles and votes, 32/64-bit atomics incl. a 64-bit CAS loop, divergent
// loops, half/bf16, float and double math, 2-D grids, structs by value,
// functor templates, non-inlined calls with local arrays and recursion,
// dynamic shared memory, device printf, kernels on several streams.
// tfl-variants: ptx sass zstd lz4 nocomp
// tfl-backends: opencl
#include "check.h"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <string.h>

__global__ void warp_ops(const int *in, int *sum, unsigned *ballot, int *all, int *bcast)
{
    int lane = threadIdx.x & 31, v = in[threadIdx.x];
    int s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    sum[threadIdx.x] = s;
    ballot[threadIdx.x / 32] = __ballot_sync(0xffffffffu, v & 1);
    all[threadIdx.x / 32] = __all_sync(0xffffffffu, v >= 0);
    bcast[threadIdx.x] = __shfl_sync(0xffffffffu, v, 7) + __shfl_up_sync(0xffffffffu, v, 1) * (lane > 0);
}

__device__ unsigned long long cas_max(unsigned long long *a, unsigned long long v)
{
    unsigned long long old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, v > assumed ? v : assumed);
    } while (old != assumed);
    return old;
}

__global__ void atomics(int *c32, unsigned long long *c64, unsigned long long *mx, float *f)
{
    unsigned long long id = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(c32, 1);
    atomicAdd(c64, id);
    cas_max(mx, id * 2654435761ull % 1000003ull);
    atomicAdd(f, 0.5f);
}

// Collatz steps: lanes diverge and reconverge a different number of times.
__global__ void divergent(const int *in, int *steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = in[i];
    int k = 0;
    while (x != 1) {
        if (x & 1) x = 3 * x + 1; else x >>= 1;
        if (++k > 1000) break;
    }
    steps[i] = k;
}

__global__ void halfs(const float *a, const float *b, float *h_out, float *bf_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half ha = __float2half(a[i]), hb = __float2half(b[i]);
    h_out[i] = __half2float(__hfma(ha, hb, ha));
    __nv_bfloat16 ba = __float2bfloat16(a[i]), bb = __float2bfloat16(b[i]);
    bf_out[i] = __bfloat162float(__hmul(ba, bb));
}

__global__ void math(const double *x, float *f, double *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xf = (float)x[i];
    f[i] = expf(xf) * 0.25f + sinf(xf) + sqrtf(fabsf(xf)) + tanhf(xf);
    d[i] = exp(x[i]) * 0.25 + sin(x[i]) + sqrt(fabs(x[i])) + log1p(fabs(x[i]));
}

__global__ void grid2d(float *m, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) m[y * w + x] = (float)(x * 1000 + y);
}

struct Params { float scale; int offset; double bias; char tag[3]; };

__global__ void by_value(Params p, float *out)
{
    out[threadIdx.x] = p.scale * (threadIdx.x + p.offset) + (float)p.bias + p.tag[1];
}

template <typename F> __global__ void apply(F f, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(in[i]);
}
struct Affine { float a, b; __device__ float operator()(float x) const { return a * x + b; } };

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ float local_sum(int n)
{
    float arr[16];
    for (int i = 0; i < 16; i++) arr[i] = (float)(i * n);
    float s = 0;
    for (int i = 0; i < 16; i += (n % 3) + 1) s += arr[i];
    return s;
}
__global__ void calls(int *fibs, float *sums)
{
    fibs[threadIdx.x] = fib(threadIdx.x % 12);
    sums[threadIdx.x] = local_sum(threadIdx.x);
}

__global__ void dyn_smem(const float *in, float *out)
{
    extern __shared__ float s[];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void hello(int x) { if (threadIdx.x == 0) printf("device printf %d %.2f\n", x, 1.5); }

int main()
{
    // warp collectives
    int hin[64], *din, *dsum, *dall, *dbc;
    unsigned *dbal;
    for (int i = 0; i < 64; i++) hin[i] = (i * 37) % 11 - (i == 40 ? 20 : 0);
    CHECK_OK(cudaMalloc(&din, sizeof hin)); CHECK_OK(cudaMalloc(&dsum, sizeof hin));
    CHECK_OK(cudaMalloc(&dall, 8)); CHECK_OK(cudaMalloc(&dbal, 8)); CHECK_OK(cudaMalloc(&dbc, sizeof hin));
    CHECK_OK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    warp_ops<<<1, 64>>>(din, dsum, dbal, dall, dbc);
    CHECK_OK(cudaGetLastError());
    int hsum[64], hall[2], hbc[64]; unsigned hbal[2];
    CHECK_OK(cudaMemcpy(hsum, dsum, sizeof hsum, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(hbal, dbal, 8, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(hall, dall, 8, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(hbc, dbc, sizeof hbc, cudaMemcpyDeviceToHost));
    for (int w = 0; w < 2; w++) {
        int s = 0; unsigned b = 0; int a = 1;
        for (int l = 0; l < 32; l++) { s += hin[w * 32 + l]; b |= (unsigned)(hin[w * 32 + l] & 1) << l; a &= hin[w * 32 + l] >= 0; }
        for (int l = 0; l < 32; l++) CHECK(hsum[w * 32 + l] == s);
        CHECK(hbal[w] == b && hall[w] == a);
        for (int l = 0; l < 32; l++)
            CHECK(hbc[w * 32 + l] == hin[w * 32 + 7] + (l > 0 ? hin[w * 32 + l - 1] : 0));
    }

    // atomics
    int *c32; unsigned long long *c64, *mx; float *fa;
    CHECK_OK(cudaMalloc(&c32, 4)); CHECK_OK(cudaMalloc(&c64, 8)); CHECK_OK(cudaMalloc(&mx, 8)); CHECK_OK(cudaMalloc(&fa, 4));
    CHECK_OK(cudaMemset(c32, 0, 4)); CHECK_OK(cudaMemset(c64, 0, 8)); CHECK_OK(cudaMemset(mx, 0, 8)); CHECK_OK(cudaMemset(fa, 0, 4));
    const int nb = 40, nt = 128, N = nb * nt;
    atomics<<<nb, nt>>>(c32, c64, mx, fa);
    int r32; unsigned long long r64, rmx, wmx = 0; float rf;
    CHECK_OK(cudaMemcpy(&r32, c32, 4, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(&r64, c64, 8, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(&rmx, mx, 8, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(&rf, fa, 4, cudaMemcpyDeviceToHost));
    for (unsigned long long i = 0; i < (unsigned long long)N; i++) { unsigned long long v = i * 2654435761ull % 1000003ull; if (v > wmx) wmx = v; }
    CHECK(r32 == N && r64 == (unsigned long long)N * (N - 1) / 2 && rmx == wmx && rf == 0.5f * N);

    // divergence
    const int n = 1000;
    int hc[n], hsteps[n], *dc, *dst;
    for (int i = 0; i < n; i++) hc[i] = i + 1;
    CHECK_OK(cudaMalloc(&dc, sizeof hc)); CHECK_OK(cudaMalloc(&dst, sizeof hc));
    CHECK_OK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    divergent<<<(n + 127) / 128, 128>>>(dc, dst, n);
    CHECK_OK(cudaMemcpy(hsteps, dst, sizeof hsteps, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        long long x = hc[i]; int k = 0;
        while (x != 1) { if (x & 1) x = 3 * x + 1; else x >>= 1; if (++k > 1000) break; }
        if (hsteps[i] != k) { CHECK(hsteps[i] == k); break; }
    }

    // half / bf16, math in float and double
    float ha[n], hb[n], hh[n], hbf[n], hf[n]; double hx[n], hd[n];
    for (int i = 0; i < n; i++) { ha[i] = (i % 50) * 0.37f - 9.0f; hb[i] = (i % 7) * 0.5f - 1.5f; hx[i] = (i - 500) * 0.013; }
    float *da, *db, *dh, *dbf, *df; double *dx, *dd;
    CHECK_OK(cudaMalloc(&da, sizeof ha)); CHECK_OK(cudaMalloc(&db, sizeof hb)); CHECK_OK(cudaMalloc(&dh, sizeof hh));
    CHECK_OK(cudaMalloc(&dbf, sizeof hbf)); CHECK_OK(cudaMalloc(&df, sizeof hf)); CHECK_OK(cudaMalloc(&dx, sizeof hx)); CHECK_OK(cudaMalloc(&dd, sizeof hd));
    CHECK_OK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice)); CHECK_OK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    halfs<<<(n + 255) / 256, 256>>>(da, db, dh, dbf, n);
    math<<<(n + 255) / 256, 256>>>(dx, df, dd, n);
    CHECK_OK(cudaMemcpy(hh, dh, sizeof hh, cudaMemcpyDeviceToHost)); CHECK_OK(cudaMemcpy(hbf, dbf, sizeof hbf, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost)); CHECK_OK(cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n && !tfl_failures; i++) {
        CHECK_NEAR(hh[i], ha[i] * hb[i] + ha[i], 2e-2);                  // half rounding
        CHECK_NEAR(hbf[i], ha[i] * hb[i], 2e-2);                          // bf16 rounding
        double xf = (float)hx[i];
        CHECK_NEAR(hf[i], exp(xf) * 0.25 + sin(xf) + sqrt(fabs(xf)) + tanh(xf), 1e-5);
        CHECK_NEAR(hd[i], exp(hx[i]) * 0.25 + sin(hx[i]) + sqrt(fabs(hx[i])) + log1p(fabs(hx[i])), 1e-14);
    }

    // 2-D grid
    const int W = 70, H = 45;
    float *dm, hm[W * H];
    CHECK_OK(cudaMalloc(&dm, sizeof hm));
    grid2d<<<dim3((W + 15) / 16, (H + 7) / 8), dim3(16, 8)>>>(dm, W, H);
    CHECK_OK(cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) if (hm[y * W + x] != x * 1000 + y) { CHECK(0); y = H; break; }

    // struct by value, functor template
    Params pr = { 1.5f, 3, 0.25, { 'a', 'b', 'c' } };
    float *dv, hv[64];
    CHECK_OK(cudaMalloc(&dv, sizeof hv));
    by_value<<<1, 64>>>(pr, dv);
    CHECK_OK(cudaMemcpy(hv, dv, sizeof hv, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++) CHECK(hv[i] == 1.5f * (i + 3) + 0.25f + 'b');
    apply<<<(n + 127) / 128, 128>>>(Affine{ 2.0f, -1.0f }, da, dh, n);
    CHECK_OK(cudaMemcpy(hh, dh, sizeof hh, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) if (hh[i] != 2.0f * ha[i] - 1.0f) { CHECK(0); break; }

    // non-inlined calls, recursion, local arrays
    int *dfib, hfib[96]; float *dls, hls[96];
    CHECK_OK(cudaMalloc(&dfib, sizeof hfib)); CHECK_OK(cudaMalloc(&dls, sizeof hls));
    calls<<<1, 96>>>(dfib, dls);
    CHECK_OK(cudaMemcpy(hfib, dfib, sizeof hfib, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(hls, dls, sizeof hls, cudaMemcpyDeviceToHost));
    int fibs[12] = { 0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89 };
    for (int t = 0; t < 96; t++) {
        float s = 0;
        for (int i = 0; i < 16; i += (t % 3) + 1) s += (float)(i * t);
        CHECK(hfib[t] == fibs[t % 12] && hls[t] == s);
    }

    // dynamic shared memory, on two streams
    cudaStream_t s1, s2;
    CHECK_OK(cudaStreamCreate(&s1)); CHECK_OK(cudaStreamCreate(&s2));
    float *dout, hout[1024], hsrc[1024], *dsrc;
    for (int i = 0; i < 1024; i++) hsrc[i] = (float)(i * 3 % 1000);
    CHECK_OK(cudaMalloc(&dout, sizeof hout));
    CHECK_OK(cudaMalloc(&dsrc, sizeof hsrc));
    CHECK_OK(cudaMemcpy(dsrc, hsrc, sizeof hsrc, cudaMemcpyHostToDevice));
    dyn_smem<<<2, 256, 256 * sizeof(float), s1>>>(dsrc, dout);
    dyn_smem<<<2, 256, 256 * sizeof(float), s2>>>(dsrc + 512, dout + 512);
    CHECK_OK(cudaStreamSynchronize(s1)); CHECK_OK(cudaStreamSynchronize(s2));
    CHECK_OK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 4; b++) for (int t = 0; t < 256; t++) CHECK(hout[b * 256 + t] == hsrc[b * 256 + 255 - t]);

    hello<<<1, 32>>>(42);
    CHECK_OK(cudaDeviceSynchronize());
    fflush(stdout);
    TEST_DONE();
}

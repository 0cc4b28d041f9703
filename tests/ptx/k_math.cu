// Kernels for test_ptx_math.c: the CUDA math library (inlined libdevice
// code: fma, ex2/lg2 approximations, bit tricks), conversions, half and
// bfloat16 arithmetic, and cuRAND's Philox generator (as PyTorch's RNG
// kernels inline it).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <curand_kernel.h>

extern "C" __global__ void fmath(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[0 * n + i] = expf(v);
    out[1 * n + i] = logf(fabsf(v) + 1e-3f);
    out[2 * n + i] = sinf(v);
    out[3 * n + i] = cosf(v);
    out[4 * n + i] = tanhf(v);
    out[5 * n + i] = sqrtf(fabsf(v));
    out[6 * n + i] = rsqrtf(fabsf(v) + 1.0f);
    out[7 * n + i] = powf(fabsf(v), 1.7f);
    out[8 * n + i] = erff(v);
    out[9 * n + i] = 1.0f / (1.0f + expf(-v));     // sigmoid
    out[10 * n + i] = v / 3.0f;
    out[11 * n + i] = fminf(v, 0.5f) + fmaxf(v, -0.5f);
    out[12 * n + i] = floorf(v) + ceilf(v) * 2 + roundf(v) * 4 + truncf(v) * 8 + rintf(v) * 16;
    out[13 * n + i] = (float)__float2int_rn(v * 10) + (float)__float2int_rz(v * 10) * 1000;
    out[14 * n + i] = log1pf(fabsf(v)) + expm1f(v * 0.1f);
    out[15 * n + i] = atan2f(v, 0.7f);
}

extern "C" __global__ void dmath(const double *x, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    out[0 * n + i] = exp(v);
    out[1 * n + i] = log(fabs(v) + 1e-3);
    out[2 * n + i] = sin(v);
    out[3 * n + i] = sqrt(fabs(v));
    out[4 * n + i] = v / 7.0;
    out[5 * n + i] = tanh(v);
    out[6 * n + i] = (double)(long long)(v * 1e6) + (double)(unsigned)(fabs(v) * 1000);
}

extern "C" __global__ void halfmath(const float *x, float *out, unsigned short *hout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half h = __float2half(x[i]);
    __half h2 = __float2half(x[(i + 1) % n]);
    __nv_bfloat16 b = __float2bfloat16(x[i]);
    __nv_bfloat16 b2 = __float2bfloat16(x[(i + 1) % n]);
    hout[0 * n + i] = __half_as_ushort(h);
    hout[1 * n + i] = __half_as_ushort(h * h2 + h);
    hout[2 * n + i] = __half_as_ushort(__hfma(h, h2, __float2half(0.25f)));
    hout[3 * n + i] = __bfloat16_as_ushort(b);
    hout[4 * n + i] = __bfloat16_as_ushort(b * b2 + b);
    __half2 p = __halves2half2(h, h2);
    __half2 q = __hmul2(p, p);
    hout[5 * n + i] = __half_as_ushort(__low2half(q));
    hout[6 * n + i] = __half_as_ushort(__high2half(q));
    __nv_bfloat162 bp = __halves2bfloat162(b, b2);
    __nv_bfloat162 bq = __hadd2(bp, bp);
    hout[7 * n + i] = __bfloat16_as_ushort(__low2bfloat16(bq));
    hout[8 * n + i] = __half_as_ushort(__hmax(h, h2));
    out[i] = __half2float(h) + __bfloat162float(b);
    hout[9 * n + i] = __half_as_ushort(__float2half_rz(x[i] * 3.3f));
    hout[10 * n + i] = __half_as_ushort(hexp(h));
}

extern "C" __global__ void philox(unsigned long long seed, unsigned long long offset, float *out, unsigned *raw, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, i, offset, &st);
    uint4 r = curand4(&st);
    raw[4 * i + 0] = r.x; raw[4 * i + 1] = r.y; raw[4 * i + 2] = r.z; raw[4 * i + 3] = r.w;
    out[i] = curand_uniform(&st);
    out[n + i] = curand_normal(&st);
}

extern "C" __global__ void conversions(const float *x, long long *l, unsigned *u, short *s, double *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i] * 1e5f;
    l[i] = (long long)v;
    u[i] = (unsigned)fabsf(v);
    s[i] = (short)(int)v;
    d[i] = (double)v + (double)(i * 3) / 7.0 + (double)(float)(long long)i;
}

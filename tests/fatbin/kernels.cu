// kernels.cu - a few kernels with known signatures, compiled by nvcc into
// fatbins (every compression mode, SASS and PTX) for test_fatbin.
// The C unit test lists their (mangled) names and parameter types; keep the
// two in step.
#include "kernels.h"

extern "C" __global__ void kadd(float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += y[i];
}

// C++ linkage: mangled _Z7kstruct5tfl_sPdc
__global__ void kstruct(tfl_s s, double *out, char c)
{
    out[threadIdx.x] = s.a + s.b + s.c[1] + c;
}

// mangled _Z5ktmplIdEvPT_S0_xs
template <typename T>
__global__ void ktmpl(T *p, T v, long long n, short h)
{
    p[threadIdx.x] = v + (T)n + (T)h;
}
template __global__ void ktmpl<double>(double *, double, long long, short);

extern "C" __global__ void knoargs() {}

extern "C" __global__ void kbig(tfl_big b, unsigned char flag,
                                unsigned long long *out)
{
    out[0] = (unsigned long long)(b.v[4] + b.tail[2] + flag);
}

// a parameter over 4 KB (CUDA 12.1+): the cubin describes it with
// EIATTR_KPARAM_INFO_V2 rather than EIATTR_KPARAM_INFO
extern "C" __global__ void khuge(tfl_huge h, int *out)
{
    out[threadIdx.x] = h.c[threadIdx.x * 7];
}

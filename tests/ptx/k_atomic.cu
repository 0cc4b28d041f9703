// Kernels for test_ptx_atomic.c: global and shared atomics of every kind.
extern "C" __global__ void atomics32(int *ci, unsigned *cu, float *cf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&ci[0], i);
    atomicSub(&ci[1], 1);
    atomicMax(&ci[2], i * 7 % 1001);
    atomicMin(&ci[3], -(i * 13 % 997));
    atomicAnd(&cu[0], ~(1u << (i % 32)));
    atomicOr(&cu[1], 1u << (i % 29));
    atomicXor(&cu[2], (unsigned)i);
    atomicInc(&cu[3], 99u);
    atomicDec(&cu[4], 50u);
    atomicMax(&cu[5], (unsigned)i * 3u);
    atomicAdd(&cf[0], 0.5f);
    atomicExch(&ci[4], 42);
    int old = atomicCAS(&ci[5], i, i + 1);   // increments in order only by luck: counts successes
    if (old == i) atomicAdd(&ci[6], 1);
}

extern "C" __global__ void atomics64(unsigned long long *cu, double *cd, long long *cl, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&cu[0], (unsigned long long)i << 20);
    atomicAdd(&cd[0], (double)i * 0.125);
    atomicMax(&cl[0], (long long)i * 1000000007LL);
    atomicMin(&cl[1], -(long long)i * 3);
    // 64-bit CAS loop: double max (as PyTorch's gpuAtomicMax does)
    unsigned long long *a = (unsigned long long *)&cd[1];
    unsigned long long old = *a, assumed;
    double v = (double)((i * 37) % 1013) * 1.5;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) >= v) break;
        old = atomicCAS(a, assumed, (unsigned long long)__double_as_longlong(v));
    } while (assumed != old);
    atomicExch(&cu[1], 7ull);
    atomicOr(&cu[2], 1ull << (i % 64));
}

extern "C" __global__ void histo_shared(const unsigned char *in, unsigned *hist, int n)
{
    __shared__ unsigned h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&h[in[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], h[i]);
}

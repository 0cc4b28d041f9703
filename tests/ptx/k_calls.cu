// Kernels for test_ptx_calls.c: non-inlined functions with local arrays,
// recursion, structs by value, module variables, printf, assert, faults.
#include <cstdio>
#include <cassert>

struct Params { int a; double b; float c[3]; char tag; };

__device__ int g_counter;
__device__ float g_table[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
__constant__ int c_coef[4] = { 3, -1, 4, 1 };
__device__ float *g_ptr = g_table;    // initialiser with an address

__device__ __noinline__ float dot_rev(const float *arr, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++) s += arr[i] * arr[n - 1 - i];
    return s;
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ Params twice(Params p)
{
    p.a *= 2; p.b *= 2; for (int i = 0; i < 3; i++) p.c[i] *= 2; p.tag += 1;
    return p;
}

extern "C" __global__ void calls(Params s, float *out, int *iout, int n)
{
    float loc[16];
    int t = threadIdx.x;
    for (int i = 0; i < 16; i++) loc[i] = s.c[i % 3] + (float)(i * s.a) + (float)s.b + (float)t;
    out[t] = dot_rev(loc, (n + t) % 17);
    iout[t] = (t & 1) ? fib(t % 12) : -fib(t % 9);     // divergent recursive calls
    Params q = twice(s);
    if (t == 0) { out[64] = (float)q.a; out[65] = (float)q.b; out[66] = q.c[2]; iout[64] = q.tag; }
}

extern "C" __global__ void module_vars(float *out)
{
    int t = threadIdx.x;
    atomicAdd(&g_counter, 1);
    out[t] = g_table[t % 8] * (float)c_coef[t % 4] + g_ptr[(t + 1) % 8];
    __syncthreads();
    if (t < 8) g_table[t] += 100.0f;     // visible to the host afterwards
}

extern "C" __global__ void hello(int x)
{
    if (threadIdx.x < 3)
        printf("hello from thread %d: x=%d f=%.2f s=%s c=%c ll=%lld\n", (int)threadIdx.x, x,
               1.5 * threadIdx.x, "str", 'A' + (int)threadIdx.x, 1LL << 40);
}

extern "C" __global__ void oob_write(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] = 1.0f;                         // no bounds check: i >= n writes past p
    (void)n;
}

extern "C" __global__ void wild_read(const long long *addr, long long *out)
{
    const long long *p = (const long long *)addr[0];
    out[threadIdx.x] = *p;
}

extern "C" __global__ void shared_oob(int *out, int k)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + k];   // k large: past the shared window
}

extern "C" __global__ void asserting(const int *v)
{
    assert(v[threadIdx.x] < 10);
}

extern "C" __global__ void trapping(int x)
{
    if (x == 3) __trap();
}

extern "C" __global__ void int_div(const int *a, const int *b, int *q, int *r, unsigned *uq)
{
    int t = threadIdx.x;
    q[t] = a[t] / b[t];
    r[t] = a[t] % b[t];
    uq[t] = (unsigned)a[t] / (unsigned)b[t];
}

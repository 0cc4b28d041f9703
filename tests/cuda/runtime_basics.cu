// runtime_basics.cu - devices, memory, copies, streams and events under
// torchfl, with CUDA's own error codes for bad input.  No kernels.
// tfl-backends: opencl
#include "check.h"
#include <string.h>
#include <stdint.h>
#include <pthread.h>

static void host_fn(void *p) { (*(int *)p)++; }
static void CUDART_CB stream_cb(cudaStream_t, cudaError_t st, void *p)
{
    if (st == cudaSuccess) (*(int *)p) += 10;
}

static void *thread_main(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    int *fails = (int *)calloc(1, sizeof(int));
    for (int i = 0; i < 300; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = 1 + (seed >> 8) % 100000;
        unsigned char *d;
        if (cudaMalloc(&d, n) != cudaSuccess) { (*fails)++; continue; }
        unsigned char *h = (unsigned char *)malloc(n), *back = (unsigned char *)malloc(n);
        for (size_t j = 0; j < n; j++) h[j] = (unsigned char)(j * 7 + seed);
        if (cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) != cudaSuccess) (*fails)++;
        if (cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost) != cudaSuccess) (*fails)++;
        if (memcmp(h, back, n) != 0) (*fails)++;
        if (cudaFree(d) != cudaSuccess) (*fails)++;
        free(h); free(back);
    }
    return fails;
}

int main()
{
    int n = -1;
    CHECK_OK(cudaGetDeviceCount(&n));
    CHECK(n >= 1);
    CHECK_ERR(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
    CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK_ERR(cudaGetLastError(), cudaSuccess);          // cleared

    // ---- device selection and properties
    CHECK_ERR(cudaSetDevice(n), cudaErrorInvalidDevice);
    CHECK_ERR(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    CHECK_ERR(cudaPeekAtLastError(), cudaErrorInvalidDevice); // peek keeps it
    cudaGetLastError();
    CHECK_OK(cudaSetDevice(0));
    int dev = -1;
    CHECK_OK(cudaGetDevice(&dev));
    CHECK(dev == 0);
    cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    CHECK_OK(cudaGetDeviceProperties(&p, 0));
    CHECK(strncmp(p.name, "torchfl", 7) == 0);
    CHECK(p.warpSize == 32);
    CHECK(p.major >= 7 && p.multiProcessorCount > 0);
    CHECK(p.maxThreadsPerBlock == 1024 && p.maxThreadsPerMultiProcessor > 0);
    CHECK(p.totalGlobalMem > 0);
    int v = 0;
    CHECK_OK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    CHECK(v == p.major);
    CHECK_OK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    CHECK(v == p.multiProcessorCount);
    CHECK_ERR(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)9999, 0), cudaErrorInvalidValue);
    CHECK_ERR(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 77), cudaErrorInvalidDevice);
    int drv = 0, rt = 0;
    CHECK_OK(cudaDriverGetVersion(&drv));
    CHECK_OK(cudaRuntimeGetVersion(&rt));
    CHECK(drv >= rt && rt >= 13000);
    char bus[32];
    CHECK_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    int back_dev = -1;
    CHECK_OK(cudaDeviceGetByPCIBusId(&back_dev, bus));
    CHECK(back_dev == 0);
    printf("device: %s (cc %d.%d, %d SMs, %zu MiB)\n", p.name, p.major, p.minor,
           p.multiProcessorCount, p.totalGlobalMem >> 20);

    // ---- memory, copies, sets
    const size_t N = 1 << 20;
    float *d = NULL, *d2 = NULL;
    CHECK_OK(cudaMalloc(&d, N * sizeof(float)));
    CHECK_OK(cudaMalloc(&d2, N * sizeof(float)));
    CHECK(((uintptr_t)d & 255) == 0);
    float *h = (float *)malloc(N * sizeof(float)), *out = (float *)malloc(N * sizeof(float));
    for (size_t i = 0; i < N; i++) h[i] = (float)i * 0.5f;
    CHECK_OK(cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(d2, d, N * sizeof(float), cudaMemcpyDeviceToDevice));
    CHECK_OK(cudaMemcpy(out, d2, N * sizeof(float), cudaMemcpyDefault));
    CHECK(memcmp(h, out, N * sizeof(float)) == 0);
    CHECK_OK(cudaMemset(d2 + 10, 0, 5 * sizeof(float)));
    CHECK_OK(cudaMemcpy(out, d2, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(out[9] == h[9] && out[10] == 0.0f && out[14] == 0.0f && out[15] == h[15]);

    size_t fr = 0, tot = 0;
    CHECK_OK(cudaMemGetInfo(&fr, &tot));
    CHECK(tot > 0 && fr <= tot);

    // bad input: CUDA's codes, process alive, data intact
    CHECK_ERR(cudaMemcpy(d, h, (N + 1) * sizeof(float), cudaMemcpyHostToDevice),
              cudaErrorInvalidValue);                          // past the end
    CHECK_ERR(cudaMemcpy(h, (void *)0x1234, 16, cudaMemcpyDeviceToHost),
              cudaErrorInvalidValue);                          // never allocated
    CHECK_ERR(cudaMemcpy(d, h, 16, (cudaMemcpyKind)17), cudaErrorInvalidMemcpyDirection);
    CHECK_ERR(cudaMemset(d + N, 0, 4), cudaErrorInvalidValue);
    CHECK_ERR(cudaFree((void *)0x5678), cudaErrorInvalidValue);
    CHECK_ERR(cudaFree(d + 1), cudaErrorInvalidValue);         // interior pointer
    CHECK_OK(cudaFree(NULL));
    CHECK_OK(cudaMemcpy(out, d, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(memcmp(h, out, N * sizeof(float)) == 0);             // nothing damaged
    CHECK_OK(cudaFree(d2));
    CHECK_ERR(cudaFree(d2), cudaErrorInvalidValue);            // double free
    cudaGetLastError();

    // pinned and registered host memory, pointer attributes
    float *ph = NULL;
    CHECK_OK(cudaMallocHost(&ph, 4096));
    cudaPointerAttributes pa;
    CHECK_OK(cudaPointerGetAttributes(&pa, ph));
    CHECK(pa.type == cudaMemoryTypeHost);
    CHECK_OK(cudaPointerGetAttributes(&pa, d));
    CHECK(pa.type == cudaMemoryTypeDevice && pa.device == 0);
    CHECK_OK(cudaPointerGetAttributes(&pa, h));
    CHECK(pa.type == cudaMemoryTypeUnregistered);
    CHECK_ERR(cudaFree(ph), cudaErrorInvalidValue);            // wrong free
    CHECK_ERR(cudaFreeHost(d), cudaErrorInvalidValue);
    void *dp = NULL;
    CHECK_OK(cudaHostGetDevicePointer(&dp, ph, 0));
    CHECK(dp == ph);
    CHECK_OK(cudaFreeHost(ph));
    static char reg[8192];
    CHECK_OK(cudaHostRegister(reg, sizeof reg, cudaHostRegisterDefault));
    CHECK_ERR(cudaHostRegister(reg, sizeof reg, 0), cudaErrorHostMemoryAlreadyRegistered);
    CHECK_OK(cudaHostUnregister(reg));
    CHECK_ERR(cudaHostUnregister(reg), cudaErrorHostMemoryNotRegistered);
    cudaGetLastError();

    // pitch and 2D
    float *pd = NULL;
    size_t pitch = 0;
    CHECK_OK(cudaMallocPitch((void **)&pd, &pitch, 100 * sizeof(float), 20));
    CHECK(pitch >= 100 * sizeof(float));
    CHECK_OK(cudaMemcpy2D(pd, pitch, h, 100 * sizeof(float), 100 * sizeof(float), 20,
                          cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy2D(out, 100 * sizeof(float), pd, pitch, 100 * sizeof(float), 20,
                          cudaMemcpyDeviceToHost));
    CHECK(memcmp(out, h, 2000 * sizeof(float)) == 0);
    CHECK_ERR(cudaMemcpy2D(pd, pitch, h, 100 * sizeof(float), 100 * sizeof(float), 21,
                           cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK_OK(cudaFree(pd));

    // managed
    int *m = NULL;
    CHECK_OK(cudaMallocManaged(&m, 64 * sizeof(int), cudaMemAttachGlobal));
    for (int i = 0; i < 64; i++) m[i] = i;
    CHECK_OK(cudaMemset(m, 0, 8 * sizeof(int)));
    CHECK(m[7] == 0 && m[8] == 8);
    CHECK_OK(cudaFree(m));

    // async allocation
    void *a = NULL;
    CHECK_OK(cudaMallocAsync(&a, 1000, 0));
    CHECK_OK(cudaFreeAsync(a, 0));

    // ---- streams and events
    cudaStream_t s1, s2;
    CHECK_OK(cudaStreamCreate(&s1));
    CHECK_OK(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, -1));
    unsigned fl = 0;
    int prio = 1;
    CHECK_OK(cudaStreamGetFlags(s2, &fl));
    CHECK(fl == cudaStreamNonBlocking);
    CHECK_OK(cudaStreamGetPriority(s2, &prio));
    CHECK(prio == -1);
    int lo = 1, hi = 1;
    CHECK_OK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(lo == 0 && hi < 0);
    cudaEvent_t e0, e1, enot;
    CHECK_OK(cudaEventCreate(&e0));
    CHECK_OK(cudaEventCreate(&e1));
    CHECK_OK(cudaEventCreateWithFlags(&enot, cudaEventDisableTiming));
    CHECK_OK(cudaEventRecord(e0, s1));
    CHECK_OK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    int counter = 0;
    CHECK_OK(cudaLaunchHostFunc(s1, host_fn, &counter));
    CHECK_OK(cudaStreamAddCallback(s1, stream_cb, &counter, 0));
    CHECK_OK(cudaEventRecord(e1, s1));
    CHECK_OK(cudaStreamWaitEvent(s2, e1, 0));
    CHECK_OK(cudaStreamSynchronize(s2));
    CHECK_OK(cudaEventSynchronize(e1));
    CHECK(counter == 11);
    CHECK_OK(cudaEventQuery(e1));
    CHECK_OK(cudaStreamQuery(s1));
    float ms = -1;
    CHECK_OK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 0.0f);
    CHECK_ERR(cudaEventElapsedTime(&ms, e0, enot), cudaErrorInvalidResourceHandle);
    cudaEvent_t never;
    CHECK_OK(cudaEventCreate(&never));
    CHECK_ERR(cudaEventElapsedTime(&ms, e0, never), cudaErrorInvalidResourceHandle);
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusActive;
    CHECK_OK(cudaStreamIsCapturing(s1, &cs));
    CHECK(cs == cudaStreamCaptureStatusNone);
    CHECK_OK(cudaStreamIsCapturing(cudaStreamPerThread, &cs));
    CHECK_OK(cudaStreamSynchronize(cudaStreamLegacy));
    CHECK_OK(cudaStreamDestroy(s1));
    CHECK_ERR(cudaStreamSynchronize(s1), cudaErrorInvalidResourceHandle);  // destroyed
    CHECK_ERR(cudaStreamDestroy(s1), cudaErrorInvalidResourceHandle);
    CHECK_ERR(cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, (cudaStream_t)0xdead0),
              cudaErrorInvalidResourceHandle);
    CHECK_OK(cudaStreamDestroy(s2));
    CHECK_OK(cudaEventDestroy(e0));
    CHECK_ERR(cudaEventDestroy(e0), cudaErrorInvalidResourceHandle);
    CHECK_OK(cudaEventDestroy(e1));
    CHECK_OK(cudaEventDestroy(enot));
    CHECK_OK(cudaEventDestroy(never));
    cudaGetLastError();

    // ---- many threads allocating and copying at once
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, thread_main, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        CHECK(*(int *)r == 0);
        free(r);
    }

    // error strings
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);

    CHECK_OK(cudaFree(d));
    CHECK_OK(cudaDeviceSynchronize());
    free(h); free(out);
    TEST_DONE();
}

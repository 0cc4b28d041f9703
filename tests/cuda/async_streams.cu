// async_streams.cu - CUDA's asynchronous semantics on a backend that runs
// work in the background (FL_BACKEND=opencl: one in-order queue per
// stream).  Work issued returns at once: queries say cudaErrorNotReady
// until it is done, events carry device times, cudaStreamWaitEvent orders
// one stream after another, host functions run after the work before
// them, synchronising calls wait.  Two more runs of this program (child
// processes) check CUDA_LAUNCH_BLOCKING=1 (every call waits) and a device
// fault (injected with TORCHFL_OPENCL_INJECT_FAULT) that surfaces at the
// next sync, not at issue, and then sticks to every call.
// tfl-env: FL_BACKEND=opencl
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG ((size_t)256 << 20)
#define REPS 8

static volatile int host_fn_ran;
static void CUDART_CB on_host(void *p) { (void)p; host_fn_ran = 1; }

static void busy(void *buf, cudaStream_t s)
{
    for (int i = 0; i < REPS; i++)
        CHECK_OK(cudaMemsetAsync(buf, i, BIG, s));
}

static int all_equal(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void async_semantics(void)
{
    void *big, *x, *y;
    CHECK_OK(cudaMalloc(&big, BIG));
    CHECK_OK(cudaMalloc(&x, 4096));
    CHECK_OK(cudaMalloc(&y, 4096));
    cudaStream_t s1, s2;
    CHECK_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CHECK_OK(cudaEventCreate(&e0));
    CHECK_OK(cudaEventCreate(&e1));

    CHECK_OK(cudaEventRecord(e0, s1));
    busy(big, s1);
    CHECK_OK(cudaMemsetAsync(x, 7, 4096, s1));
    CHECK_OK(cudaEventRecord(e1, s1));
    CHECK_OK(cudaLaunchHostFunc(s1, on_host, NULL));
    // cudaLaunchHostFunc may wait (torchfl runs it once s1 is done), so
    // issue more work after it to query
    busy(big, s1);
    CHECK(cudaStreamQuery(s1) == cudaErrorNotReady);
    CHECK(cudaGetLastError() == cudaSuccess);   // NotReady is not an error
    CHECK(host_fn_ran == 1);
    float ms = -1.0f;
    cudaEvent_t e2;
    CHECK_OK(cudaEventCreate(&e2));
    CHECK_OK(cudaEventRecord(e2, s1));
    CHECK(cudaEventQuery(e2) == cudaErrorNotReady);
    CHECK(cudaEventElapsedTime(&ms, e0, e2) == cudaErrorNotReady);

    // s2 waits for e2, then copies x: it must see s1's 7s
    CHECK_OK(cudaStreamWaitEvent(s2, e2, 0));
    CHECK_OK(cudaMemcpyAsync(y, x, 4096, cudaMemcpyDeviceToDevice, s2));
    CHECK_OK(cudaStreamSynchronize(s2));
    CHECK(cudaEventQuery(e2) == cudaSuccess);
    unsigned char h[4096];
    CHECK_OK(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(all_equal(h, sizeof h, 7));

    CHECK_OK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamQuery(s1) == cudaSuccess);
    CHECK_OK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(ms > 0.0f);
    float ms2 = -1.0f;
    CHECK_OK(cudaEventElapsedTime(&ms2, e0, e2));
    CHECK(ms2 > ms);   // e2 came after a second batch of work

    // cudaDeviceSynchronize waits for every stream
    busy(big, s2);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK(cudaStreamQuery(s2) == cudaSuccess);

    // a destroyed stream is an error, not a crash
    CHECK_OK(cudaStreamDestroy(s2));
    CHECK(cudaMemsetAsync(x, 0, 16, s2) == cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    CHECK_OK(cudaStreamDestroy(s1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
    cudaFree(big);
    cudaFree(x);
    cudaFree(y);
}

// CUDA_LAUNCH_BLOCKING=1: the work is done when the call returns
static void blocking(void)
{
    void *big;
    CHECK_OK(cudaMalloc(&big, BIG));
    cudaStream_t s;
    CHECK_OK(cudaStreamCreate(&s));
    busy(big, s);
    CHECK(cudaStreamQuery(s) == cudaSuccess);
    CHECK_OK(cudaStreamDestroy(s));
    cudaFree(big);
}

// TORCHFL_OPENCL_INJECT_FAULT=2: the second memset fails on the device
static void fault(void)
{
    void *x;
    CHECK_OK(cudaMalloc(&x, 4096));
    CHECK_OK(cudaMemsetAsync(x, 1, 4096, 0));
    CHECK_OK(cudaMemsetAsync(x, 2, 4096, 0));   // issue succeeds
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    void *p = NULL;
    CHECK(cudaMalloc(&p, 16) == cudaErrorLaunchFailure);   // sticky
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);   // not cleared
}

static int child(const char *self, const char *mode, const char *var, const char *val)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv(var, val, 1);
        execl(self, self, mode, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "blocking") == 0) {
        blocking();
        TEST_DONE();
    }
    if (argc > 1 && strcmp(argv[1], "fault") == 0) {
        fault();
        TEST_DONE();
    }
    async_semantics();
    CHECK(child(argv[0], "blocking", "CUDA_LAUNCH_BLOCKING", "1") == 0);
    CHECK(child(argv[0], "fault", "TORCHFL_OPENCL_INJECT_FAULT", "2") == 0);
    TEST_DONE();
}

/*
 * test_drv_runtime_interop.c - the runtime and the driver agree on
 * contexts, as PyTorch relies on: after the runtime touches a device its
 * primary context is active (cuDevicePrimaryCtxGetState, PyTorch's
 * hasPrimaryContext) and current on that thread (cuCtxGetCurrent, checked
 * by every cuBLAS handle fetch); a driver allocation works with a runtime
 * copy and the reverse; cuCtxSetCurrent selects the runtime's device.
 */
#define _GNU_SOURCE
#include "drv_check.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

typedef int (*set_device_fn)(int);
typedef int (*get_device_fn)(int *);
typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*free_fn)(void *);

static malloc_fn rt_malloc;
static free_fn rt_free;

static void *thread_main(void *arg)
{
    int *ok = arg;
    CUcontext c = (CUcontext)0x1;
    void *p = NULL;
    /* a runtime call on a new thread binds the primary context there */
    *ok = rt_malloc(&p, 256) == 0 && cuCtxGetCurrent(&c) == CUDA_SUCCESS && c != NULL &&
          rt_free(p) == 0;
    return NULL;
}

int main(void)
{
    set_device_fn set_device = (set_device_fn)dlsym(RTLD_DEFAULT, "cudaSetDevice");
    get_device_fn get_device = (get_device_fn)dlsym(RTLD_DEFAULT, "cudaGetDevice");
    rt_malloc = (malloc_fn)dlsym(RTLD_DEFAULT, "cudaMalloc");
    memcpy_fn rt_memcpy = (memcpy_fn)dlsym(RTLD_DEFAULT, "cudaMemcpy");
    rt_free = (free_fn)dlsym(RTLD_DEFAULT, "cudaFree");
    if (!set_device || !get_device || !rt_malloc || !rt_memcpy || !rt_free) {
        fprintf(stderr, "runtime entry points not found\n");
        return 1;
    }

    /* the runtime initialises the driver (no cuInit here) */
    CHECK(set_device(0) == 0);
    unsigned flags = 0;
    int active = 0;
    CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK(active == 1);
    CUcontext cur = NULL, prim = NULL;
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK_OK(cuDevicePrimaryCtxRetain(&prim, 0));
    CHECK(cur != NULL && cur == prim);

    /* memory crosses the APIs */
    unsigned char h[512], back[512];
    drv_fill(h, sizeof h, 9);
    CUdeviceptr d = 0;
    CHECK_OK(cuMemAlloc(&d, sizeof h));
    CHECK(rt_memcpy((void *)(uintptr_t)d, h, sizeof h, 1 /* H2D */) == 0);
    CHECK_OK(cuMemcpyDtoH(back, d, sizeof h));
    CHECK(memcmp(back, h, sizeof h) == 0);
    void *rp = NULL;
    CHECK(rt_malloc(&rp, sizeof h) == 0);
    CHECK_OK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)rp, h, sizeof h));
    CHECK(rt_memcpy(back, rp, sizeof h, 2 /* D2H */) == 0);
    CHECK(memcmp(back, h, sizeof h) == 0);
    CHECK(rt_free(rp) == 0);
    CHECK_OK(cuMemFree(d));

    /* the current context selects the runtime's device */
    int n = 0, dev = -1;
    CHECK_OK(cuDeviceGetCount(&n));
    if (n > 1) {
        CUcontext p1 = NULL;
        CHECK_OK(cuDevicePrimaryCtxRetain(&p1, 1));
        CHECK_OK(cuCtxSetCurrent(p1));
        CHECK(get_device(&dev) == 0 && dev == 1);
        CHECK(set_device(0) == 0);
        CHECK_OK(cuCtxGetCurrent(&cur));
        CHECK(cur == prim);
    }
    CHECK(get_device(&dev) == 0 && dev == 0);

    int ok = 0;
    pthread_t t;
    pthread_create(&t, NULL, thread_main, &ok);
    pthread_join(t, NULL);
    CHECK(ok);
    TEST_DONE();
}

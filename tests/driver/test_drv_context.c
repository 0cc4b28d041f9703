/*
 * test_drv_context.c - primary context state transitions, the per-thread
 * context stack, created contexts, bad handles, limits and flags.
 */
#include "drv_check.h"

#include <pthread.h>

static void *other_thread(void *arg)
{
    CUcontext *out = arg;
    /* a fresh thread has no current context until it makes one current */
    CUcontext c = (CUcontext)0x1;
    if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || c != NULL)
        *out = (CUcontext)0x2;
    else if (cuCtxSetCurrent(*out) != CUDA_SUCCESS || cuCtxGetCurrent(&c) != CUDA_SUCCESS ||
             c != *out)
        *out = (CUcontext)0x3;
    return NULL;
}

int main(void)
{
    REQUIRE_OK(cuInit(0));
    unsigned flags = 99;
    int active = 99;
    CUcontext cur = (CUcontext)0x1, prim = NULL, prim2 = NULL;
    CUdeviceptr dp = 0;

    /* before anything: no current context, primary inactive */
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == NULL);
    CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK(active == 0 && flags == 0);
    CHECK_RES(cuMemAlloc(&dp, 64), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RES(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RES(cuDevicePrimaryCtxGetState(0, NULL, &active), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuDevicePrimaryCtxGetState(99, &flags, &active), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RES(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);  /* not retained */

    /* flags can be set while inactive and are reported */
    CHECK_OK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    CHECK_RES(cuDevicePrimaryCtxSetFlags(0, 0x3), CUDA_ERROR_INVALID_VALUE);   /* no such sched */
    CHECK_RES(cuDevicePrimaryCtxSetFlags(0, 0x100), CUDA_ERROR_INVALID_VALUE);

    /* retain: active, one handle per device */
    REQUIRE_OK(cuDevicePrimaryCtxRetain(&prim, 0));
    CHECK(prim != NULL);
    CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK(active == 1 && flags == CU_CTX_SCHED_BLOCKING_SYNC);
    CHECK_OK(cuDevicePrimaryCtxRetain(&prim2, 0));
    CHECK(prim2 == prim);
    /* retaining does not make it current (PyTorch calls cuCtxSetCurrent) */
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == NULL);
    CHECK_OK(cuCtxSetCurrent(prim));
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == prim);
    CUdevice dev = -1;
    CHECK_OK(cuCtxGetDevice(&dev));
    CHECK(dev == 0);
    CHECK_OK(cuCtxGetFlags(&flags));
    CHECK(flags == CU_CTX_SCHED_BLOCKING_SYNC);
    unsigned api = 0;
    CHECK_OK(cuCtxGetApiVersion(prim, &api));
    CHECK(api >= 3020);
    unsigned long long id1 = 0, id2 = 0;
    CHECK_OK(cuCtxGetId(prim, &id1));
    CHECK_OK(cuCtxSynchronize());
    CHECK_OK(cuMemAlloc(&dp, 64));
    CHECK_OK(cuMemFree(dp));

    /* one release leaves it active (retained twice) */
    CHECK_OK(cuDevicePrimaryCtxRelease(0));
    CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK(active == 1);

    /* another thread starts with nothing current */
    CUcontext arg = prim;
    pthread_t t;
    pthread_create(&t, NULL, other_thread, &arg);
    pthread_join(t, NULL);
    CHECK(arg == prim);

    /* created contexts push onto the stack */
    CUcontext mine = NULL, popped = NULL;
    REQUIRE_OK(cuCtxCreate(&mine, NULL, 0, 0));
    CHECK(mine != NULL && mine != prim);
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == mine);
    CHECK_OK(cuCtxGetId(NULL, &id2));
    CHECK(id2 != id1);
    CHECK_OK(cuCtxPushCurrent(prim));
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == prim);
    CHECK_OK(cuCtxPopCurrent(&popped));
    CHECK(popped == prim);
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == mine);
    CHECK_OK(cuCtxPopCurrent(&popped));
    CHECK(popped == mine);
    CHECK_OK(cuCtxPopCurrent(&popped));   /* the primary set above */
    CHECK(popped == prim);
    CHECK_RES(cuCtxPopCurrent(&popped), CUDA_ERROR_INVALID_CONTEXT);   /* empty */
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == NULL);

    /* destroying: current -> popped; other handles stay valid */
    CHECK_OK(cuCtxPushCurrent(prim));
    CHECK_OK(cuCtxPushCurrent(mine));
    CHECK_OK(cuCtxDestroy(mine));
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == prim);
    CHECK_RES(cuCtxDestroy(mine), CUDA_ERROR_INVALID_CONTEXT);    /* already gone */
    CHECK_RES(cuCtxPushCurrent(mine), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RES(cuCtxDestroy(prim), CUDA_ERROR_INVALID_CONTEXT);    /* primaries are released */
    int local = 0;
    CHECK_RES(cuCtxSetCurrent((CUcontext)&local), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RES(cuCtxPushCurrent((CUcontext)&local), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RES(cuCtxGetApiVersion((CUcontext)&local, &api), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_RES(cuCtxCreate(&mine, NULL, 0, 77), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RES(cuCtxCreate(&mine, NULL, 0xFFFF, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == prim);

    /* a destroyed context current on this thread is reported as such */
    CUcontext doomed = NULL;
    REQUIRE_OK(cuCtxCreate(&doomed, NULL, 0, 0));
    CHECK_OK(cuCtxPushCurrent(prim));      /* doomed is below the top now */
    CHECK_OK(cuCtxDestroy(doomed));
    CHECK_OK(cuCtxPopCurrent(&popped));    /* back to the destroyed one */
    CHECK(popped == prim);
    CHECK_RES(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK_OK(cuCtxSetCurrent(prim));

    /* limits */
    size_t lim = 0;
    CHECK_OK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    CHECK(lim > 0);
    CHECK_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    CHECK_OK(cuCtxGetLimit(&lim, CU_LIMIT_STACK_SIZE));
    CHECK(lim == 4096);
    CHECK_OK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 24));
    CHECK_OK(cuCtxGetLimit(&lim, CU_LIMIT_MALLOC_HEAP_SIZE));
    CHECK(lim == 1 << 24);
    CHECK_RES(cuCtxGetLimit(&lim, CU_LIMIT_MAX), CUDA_ERROR_UNSUPPORTED_LIMIT);
    CHECK_RES(cuCtxSetLimit((CUlimit)0x55, 1), CUDA_ERROR_UNSUPPORTED_LIMIT);

    int least = 99, greatest = 99;
    CHECK_OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    CHECK(least == 0 && greatest < 0);
    CHECK_OK(cuCtxGetStreamPriorityRange(NULL, &greatest));

    CUfunc_cache cc;
    CHECK_OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    CHECK_OK(cuCtxGetCacheConfig(&cc));
    CHECK(cc == CU_FUNC_CACHE_PREFER_SHARED);

    /* the last release makes the primary inactive */
    CHECK_OK(cuDevicePrimaryCtxRelease(0));
    CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK(active == 0);
    /* and retaining brings it back with the same handle */
    CHECK_OK(cuDevicePrimaryCtxRetain(&prim2, 0));
    CHECK(prim2 == prim);
    CHECK_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK(active == 1);
    CHECK_OK(cuDevicePrimaryCtxReset(0));
    CHECK_RES(cuDevicePrimaryCtxReset(42), CUDA_ERROR_INVALID_DEVICE);
    TEST_DONE();
}

/*
 * test_drv_threads.c - the driver from several threads at once: each
 * thread has its own context stack, makes its own contexts, streams and
 * VMM mappings, and checks its own data; nothing may leak between them.
 */
#include "drv_check.h"

#include <pthread.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 25
#define MiB ((size_t)1 << 20)

static CUcontext g_prim;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg, bad = 0;
    unsigned char h[4096], back[4096];
    CUcontext cur = (CUcontext)0x1, mine = NULL, popped = NULL;
    bad += cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != NULL;
    bad += cuCtxSetCurrent(g_prim) != CUDA_SUCCESS;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    for (int r = 0; r < ROUNDS && !bad; r++) {
        drv_fill(h, sizeof h, (unsigned)(id * 1000 + r));
        bad += cuCtxCreate(&mine, NULL, 0, 0) != CUDA_SUCCESS;
        CUstream s = NULL;
        CUdeviceptr d = 0, va = 0;
        CUmemGenericAllocationHandle ph = 0;
        bad += cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS;
        bad += cuMemAlloc(&d, sizeof h) != CUDA_SUCCESS;
        bad += cuMemcpyHtoDAsync(d, h, sizeof h, s) != CUDA_SUCCESS;
        bad += cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0) != CUDA_SUCCESS;
        bad += cuMemCreate(&ph, 2 * MiB, &prop, 0) != CUDA_SUCCESS;
        bad += cuMemMap(va + 2 * MiB, 2 * MiB, 0, ph, 0) != CUDA_SUCCESS;
        bad += cuMemSetAccess(va + 2 * MiB, 2 * MiB, &acc, 1) != CUDA_SUCCESS;
        bad += cuMemcpyDtoDAsync(va + 2 * MiB + 64, d, sizeof h, s) != CUDA_SUCCESS;
        bad += cuMemcpyDtoHAsync(back, va + 2 * MiB + 64, sizeof h, s) != CUDA_SUCCESS;
        bad += cuStreamSynchronize(s) != CUDA_SUCCESS;
        bad += memcmp(back, h, sizeof h) != 0;
        bad += cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != mine;
        bad += cuMemUnmap(va + 2 * MiB, 2 * MiB) != CUDA_SUCCESS;
        bad += cuMemRelease(ph) != CUDA_SUCCESS;
        bad += cuMemAddressFree(va, 4 * MiB) != CUDA_SUCCESS;
        bad += cuMemFree(d) != CUDA_SUCCESS;
        bad += cuStreamDestroy(s) != CUDA_SUCCESS;
        bad += cuCtxPopCurrent(&popped) != CUDA_SUCCESS || popped != mine;
        bad += cuCtxDestroy(mine) != CUDA_SUCCESS;
        bad += cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != g_prim;
    }
    return (void *)(intptr_t)bad;
}

int main(void)
{
    REQUIRE_OK(cuInit(0));
    REQUIRE_OK(cuDevicePrimaryCtxRetain(&g_prim, 0));
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) {
        void *bad = NULL;
        pthread_join(t[i], &bad);
        if (bad) {
            fprintf(stderr, "thread %d: %d failed step(s)\n", i, (int)(intptr_t)bad);
            drv_failures++;
        }
    }
    /* this thread never made a context current */
    CUcontext cur = (CUcontext)0x1;
    CHECK_OK(cuCtxGetCurrent(&cur));
    CHECK(cur == NULL);
    TEST_DONE();
}

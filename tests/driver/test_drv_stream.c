/*
 * test_drv_stream.c - streams, events with elapsed time, host functions
 * and callbacks, stream memory operations, bad handles.
 */
#include "drv_check.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int host_fn_calls;
static void host_fn(void *p) { host_fn_calls += *(int *)p; }

static CUstream cb_stream;
static CUresult cb_status = CUDA_ERROR_UNKNOWN;
static int cb_calls;
static void callback(CUstream s, CUresult st, void *p)
{
    cb_stream = s;
    cb_status = st;
    cb_calls += *(int *)p;
}

int main(void)
{
    CUcontext ctx;
    REQUIRE_OK(drv_setup(&ctx));
    CUstream s = NULL, sp = NULL;
    REQUIRE_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CHECK_RES(cuStreamCreate(&sp, 0x8), CUDA_ERROR_INVALID_VALUE);
    unsigned flags = 99;
    CHECK_OK(cuStreamGetFlags(s, &flags));
    CHECK(flags == CU_STREAM_DEFAULT);

    int least = 0, greatest = 0, prio = 1;
    CHECK_OK(cuCtxGetStreamPriorityRange(&least, &greatest));
    CHECK_OK(cuStreamCreateWithPriority(&sp, CU_STREAM_NON_BLOCKING, greatest - 100));
    CHECK_OK(cuStreamGetPriority(sp, &prio));
    CHECK(prio == greatest);   /* clamped into the range */
    CHECK_OK(cuStreamGetFlags(sp, &flags));
    CHECK(flags == CU_STREAM_NON_BLOCKING);
    CUdevice dev = -1;
    CHECK_OK(cuStreamGetDevice(sp, &dev));
    CHECK(dev == 0);
    CUcontext sc = NULL;
    CHECK_OK(cuStreamGetCtx(sp, &sc));
    CHECK(sc == ctx);
    unsigned long long id1 = 0, id2 = 0;
    CHECK_OK(cuStreamGetId(s, &id1));
    CHECK_OK(cuStreamGetId(sp, &id2));
    CHECK(id1 != id2);
    CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    CHECK_OK(cuStreamIsCapturing(s, &cap));
    CHECK(cap == CU_STREAM_CAPTURE_STATUS_NONE);

    /* work between two events */
    CUevent e0, e1, nt;
    REQUIRE_OK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    REQUIRE_OK(cuEventCreate(&e1, CU_EVENT_BLOCKING_SYNC));
    REQUIRE_OK(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
    CHECK_RES(cuEventCreate(&nt, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuEventCreate(&nt, 0x40), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuEventQuery(e0));        /* never recorded: complete */
    float ms = -1;
    CHECK_RES(cuEventElapsedTime(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE);   /* not recorded */

    const size_t n = 8 << 20;
    unsigned char *h = malloc(n), *back = malloc(n);
    CUdeviceptr d = 0;
    REQUIRE_OK(cuMemAlloc(&d, n));
    drv_fill(h, n, 3);
    CHECK_OK(cuEventRecord(e0, s));
    CHECK_OK(cuMemcpyHtoDAsync(d, h, n, s));
    CHECK_OK(cuMemcpyDtoHAsync(back, d, n, s));
    CHECK_OK(cuEventRecord(e1, s));
    CHECK_OK(cuEventRecord(nt, s));
    CHECK_OK(cuEventSynchronize(e1));
    CHECK_OK(cuEventQuery(e1));
    CHECK_OK(cuStreamQuery(s));
    CHECK(memcmp(back, h, n) == 0);
    CHECK_OK(cuEventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 0.0f && isfinite(ms));
    float rev = 1;
    CHECK_OK(cuEventElapsedTime(&rev, e1, e0));
    CHECK(rev == -ms);   /* the same two timestamps, in the other order */
    CHECK_RES(cuEventElapsedTime(&ms, e0, nt), CUDA_ERROR_INVALID_HANDLE); /* no timing */
    CHECK_RES(cuEventElapsedTime(NULL, e0, e1), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuStreamWaitEvent(sp, e1, 0));
    CHECK_OK(cuEventRecordWithFlags(e0, sp, CU_EVENT_RECORD_DEFAULT));
    CHECK_OK(cuEventRecord(e0, NULL));               /* the legacy stream */
    CHECK_OK(cuEventRecord(e0, CU_STREAM_PER_THREAD));

    /* host functions and callbacks run in stream order */
    int three = 3, five = 5;
    CHECK_OK(cuLaunchHostFunc(s, host_fn, &three));
    CHECK_OK(cuStreamSynchronize(s));
    CHECK(host_fn_calls == 3);
    CHECK_OK(cuStreamAddCallback(sp, callback, &five, 0));
    CHECK_OK(cuStreamSynchronize(sp));
    CHECK(cb_calls == 5 && cb_stream == sp && cb_status == CUDA_SUCCESS);
    CHECK_RES(cuStreamAddCallback(sp, callback, &five, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuLaunchHostFunc(s, NULL, NULL), CUDA_ERROR_INVALID_VALUE);

    /* stream memory operations */
    CHECK_OK(cuMemsetD8(d, 0, 64));
    CHECK_OK(cuStreamWriteValue32(s, d, 0x12345678u, 0));
    CHECK_OK(cuStreamWriteValue64(s, d + 8, 0x1122334455667788ull, 0));
    CHECK_OK(cuStreamSynchronize(s));
    uint32_t w32 = 0;
    uint64_t w64 = 0;
    CHECK_OK(cuMemcpyDtoH(&w32, d, 4));
    CHECK_OK(cuMemcpyDtoH(&w64, d + 8, 8));
    CHECK(w32 == 0x12345678u && w64 == 0x1122334455667788ull);
    CHECK_RES(cuStreamWriteValue32(s, d + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);   /* misaligned */
    CHECK_RES(cuStreamWriteValue64(s, d + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuStreamWriteValue32(s, (CUdeviceptr)(uintptr_t)&w32, 1, 0), CUDA_ERROR_INVALID_VALUE);
    /* waits whose condition holds return at once */
    CHECK_OK(cuStreamWaitValue32(s, d, 0x12345678u, CU_STREAM_WAIT_VALUE_EQ));
    CHECK_OK(cuStreamWaitValue32(s, d, 0x12345000u, CU_STREAM_WAIT_VALUE_GEQ));
    CHECK_OK(cuStreamWaitValue32(s, d, 0x8u, CU_STREAM_WAIT_VALUE_AND));
    CHECK_OK(cuStreamWaitValue32(s, d, 0x0u, CU_STREAM_WAIT_VALUE_NOR));
    CHECK_OK(cuStreamWaitValue64(s, d + 8, 0x1122334455667788ull, CU_STREAM_WAIT_VALUE_EQ));
    /* ... and one that can never hold is refused, not hung */
    CHECK_RES(cuStreamWaitValue32(s, d, 0x1u, CU_STREAM_WAIT_VALUE_EQ), CUDA_ERROR_NOT_SUPPORTED);
    CHECK_RES(cuStreamWaitValue32(s, d, 0x1u, 7), CUDA_ERROR_INVALID_VALUE);

    /* bad handles */
    int junk = 0;
    CHECK_RES(cuStreamSynchronize((CUstream)&junk), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuStreamQuery((CUstream)&junk), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuEventRecord((CUevent)&junk, s), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuEventSynchronize((CUevent)&junk), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuStreamWaitEvent(s, (CUevent)&junk, 0), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    CHECK_OK(cuStreamDestroy(sp));
    CHECK_RES(cuStreamSynchronize(sp), CUDA_ERROR_INVALID_HANDLE);   /* destroyed */
    CHECK_RES(cuStreamDestroy(sp), CUDA_ERROR_INVALID_HANDLE);
    CHECK_OK(cuEventDestroy(nt));
    CHECK_RES(cuEventQuery(nt), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuEventDestroy(nt), CUDA_ERROR_INVALID_HANDLE);
    CHECK_OK(cuEventDestroy(e0));
    CHECK_OK(cuEventDestroy(e1));
    CHECK_OK(cuStreamSynchronize(NULL));
    CHECK_OK(cuStreamDestroy(s));
    CHECK_OK(cuMemFree(d));
    free(h); free(back);
    TEST_DONE();
}

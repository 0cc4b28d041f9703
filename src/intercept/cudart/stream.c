/*
 * stream.c - CUDA runtime streams, events, host functions and capture
 * queries.  Route runs the work (synchronously on the host backend, in
 * the background on an asynchronous one: src/route/runtime.h); nothing is
 * ever being captured.
 */
#include "cudart/cudart_internal.h"
#include "route/runtime.h"

#include <stdlib.h>

#define S(stream) ((tfl_rt_stream *)(stream))
#define E(event) ((tfl_rt_event *)(event))

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                         int priority)
{
    if (!pStream || (flags & ~1u))   /* cudaStreamNonBlocking = 1 */
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    /* clamp into [greatest, least] = [-5, 0], as CUDA does */
    if (priority > 0) priority = 0;
    if (priority < -5) priority = -5;
    tfl_rt_stream *s;
    if (tfl_rt_stream_create(flags, priority, &s) != TFL_OK)
        RET(cudaErrorMemoryAllocation);
    *pStream = (cudaStream_t)s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, 0, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    INIT_OR_RET();
    if (tfl_rt_stream_destroy(S(stream)) != TFL_OK)
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

static cudaError_t check_stream(cudaStream_t stream)
{
    cudaError_t e = tfl_cudart_enter();
    if (e != cudaSuccess)
        return e;
    if (!tfl_rt_stream_valid(S(stream)))
        return cudaErrorInvalidResourceHandle;
    return tfl_cudart_sticky();
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    RET(tfl_cudart_async(tfl_rt_stream_sync(S(stream))));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    /* cudaErrorNotReady is an answer, not an error: not recorded */
    cudaError_t q = tfl_cudart_async(tfl_rt_stream_query(S(stream)));
    return q == cudaErrorNotReady ? q : tfl_cudart_ret(q);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    if (!tfl_rt_event_valid(E(event)))
        RET(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)  /* cudaEventWaitExternal */
        RET(cudaErrorInvalidValue);
    RET(tfl_cudart_async(tfl_rt_stream_wait_event(S(stream), E(event))));
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    if (!flags)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (tfl_rt_stream_get_flags(S(hStream), flags) != TFL_OK)
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    if (!priority)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (tfl_rt_stream_get_priority(S(hStream), priority) != TFL_OK)
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    if (!streamId)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (tfl_rt_stream_get_id(S(hStream), streamId) != TFL_OK)
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    if (!device)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    int d = tfl_rt_stream_device(S(hStream));
    if (d < 0)
        RET(cudaErrorInvalidResourceHandle);
    *device = d;
    return cudaSuccess;
}

/* ------------------------------------------------------ host functions */

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    if (!fn)
        RET(cudaErrorInvalidValue);
    tfl_rt_stream_host_fn(S(stream), fn, userData);
    return cudaSuccess;
}

struct callback_call {
    cudaStreamCallback_t cb;
    cudaStream_t stream;
    void *data;
};

static void run_callback(void *p)
{
    struct callback_call *c = p;
    c->cb(c->stream, cudaSuccess, c->data);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    if (!callback || flags)
        RET(cudaErrorInvalidValue);
    struct callback_call c = { callback, stream, userData };
    tfl_rt_stream_host_fn(S(stream), run_callback, &c);
    return cudaSuccess;
}

/* ------------------------------------------------------------- capture */

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  enum cudaStreamCaptureStatus *pCaptureStatus)
{
    if (!pCaptureStatus)
        RET(cudaErrorInvalidValue);
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    *pCaptureStatus = cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    if (!captureStatus_out)
        RET(cudaErrorInvalidValue);
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    *captureStatus_out = cudaStreamCaptureStatusNone;
    if (id_out) *id_out = 0;
    if (graph_out) *graph_out = NULL;
    if (dependencies_out) *dependencies_out = NULL;
    if (edgeData_out) *edgeData_out = NULL;
    if (numDependencies_out) *numDependencies_out = 0;
    return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (!mode)
        RET(cudaErrorInvalidValue);
    static __thread enum cudaStreamCaptureMode cur = cudaStreamCaptureModeGlobal;
    enum cudaStreamCaptureMode old = cur;
    cur = *mode;
    *mode = old;
    return cudaSuccess;
}

/* --------------------------------------------------------------- events */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    /* Default 0 | BlockingSync 1 | DisableTiming 2 | Interprocess 4 */
    if (!event || (flags & ~7u) || ((flags & 4u) && !(flags & 2u)))
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_rt_event *e;
    if (tfl_rt_event_create(flags, &e) != TFL_OK)
        RET(cudaErrorMemoryAllocation);
    *event = (cudaEvent_t)e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, 0);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    INIT_OR_RET();
    if (tfl_rt_event_destroy(E(event)) != TFL_OK)
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    cudaError_t e = check_stream(stream);
    if (e != cudaSuccess)
        RET(e);
    if (tfl_rt_event_record(E(event), S(stream)) != TFL_OK)
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int flags)
{
    if (flags & ~1u)   /* cudaEventRecordExternal */
        RET(cudaErrorInvalidValue);
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    INIT_OR_RET();
    if (!tfl_rt_event_valid(E(event)))
        RET(cudaErrorInvalidResourceHandle);
    cudaError_t q = tfl_cudart_async(tfl_rt_event_query(E(event)));
    return q == cudaErrorNotReady ? q : tfl_cudart_ret(q);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    INIT_OR_RET();
    if (!tfl_rt_event_valid(E(event)))
        RET(cudaErrorInvalidResourceHandle);
    RET(tfl_cudart_async(tfl_rt_event_sync(E(event))));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_status st = tfl_rt_event_elapsed(E(start), E(end), ms);
    if (st == TFL_ERR_NOT_READY)
        return cudaErrorNotReady;
    RET(st == TFL_OK ? cudaSuccess : tfl_cudart_async(st));
}

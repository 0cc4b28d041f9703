/*
 * stream.c - streams, events, host callbacks and stream memory operations
 * (cuStreamWriteValue*, cuStreamWaitValue*), over route's streams and
 * events, which the runtime shares: a CUstream is a cudaStream_t.
 *
 * Execution is synchronous (runtime.h): work has finished when the call
 * that issued it returns, so queries say ready and waits are checks.
 */
#include "drv_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "mem/mem.h"

/* Stream priorities: the range cuCtxGetStreamPriorityRange reports. */
#define PRIO_LEAST 0
#define PRIO_GREATEST (-5)

static CUresult stream_arg(CUstream hs, int pt, tfl_rt_stream **s)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_stream(hs, pt, s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* The stream, then the pointer a query writes its answer through. */
static CUresult stream_out_arg(CUstream hs, int pt, const void *out, tfl_rt_stream **s)
{
    CUresult r = stream_arg(hs, pt, s);
    return r != CUDA_SUCCESS ? r : out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The stream, then the event and the flags of a wait or a record. */
static CUresult stream_event_args(CUstream hs, int pt, CUevent ev, unsigned flags,
                                  unsigned allowed, tfl_rt_stream **s)
{
    CUresult r = stream_arg(hs, pt, s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_rt_event_valid((tfl_rt_event *)ev))
        return CUDA_ERROR_INVALID_HANDLE;
    return flags & ~allowed ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult create(CUstream *ph, unsigned flags, int prio)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    /* out-of-range priorities are clamped, as documented */
    if (prio > PRIO_LEAST)
        prio = PRIO_LEAST;
    if (prio < PRIO_GREATEST)
        prio = PRIO_GREATEST;
    tfl_rt_stream *s = NULL;
    tfl_status st = tfl_rt_stream_create(flags, prio, &s);
    if (st != TFL_OK)
        return st == TFL_ERR_INVALID ? CUDA_ERROR_INVALID_VALUE : tfl_drv_status(st);
    *ph = (CUstream)s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return create(phStream, Flags, 0);
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    return create(phStream, flags, priority);
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    tfl_rt_stream *s = (tfl_rt_stream *)hStream;
    if (s == NULL || s == TFL_STREAM_LEGACY || s == TFL_STREAM_PER_THREAD ||
        !tfl_rt_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    return tfl_rt_stream_destroy(s) == TFL_OK ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
    return cuStreamDestroy_v2(hStream);
}

/* Each per-stream call exists twice: the plain one, where the NULL stream
 * is the legacy stream, and _ptsz, where it is the per-thread stream. */

static CUresult sync_impl(CUstream hs, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_arg(hs, pt, &s);
    return r != CUDA_SUCCESS ? r : tfl_drv_status(tfl_rt_stream_sync(s));
}
CUresult CUDAAPI cuStreamSynchronize(CUstream h) { return sync_impl(h, 0); }
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream h) { return sync_impl(h, 1); }

static CUresult query_impl(CUstream hs, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_arg(hs, pt, &s);
    return r != CUDA_SUCCESS ? r : tfl_drv_status(tfl_rt_stream_query(s));
}
CUresult CUDAAPI cuStreamQuery(CUstream h) { return query_impl(h, 0); }
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream h) { return query_impl(h, 1); }

static CUresult wait_event_impl(CUstream hs, CUevent ev, unsigned flags, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_event_args(hs, pt, ev, flags, CU_EVENT_WAIT_EXTERNAL, &s);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_stream_wait_event(s, (tfl_rt_event *)ev));
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream h, CUevent e, unsigned int f)
{ return wait_event_impl(h, e, f, 0); }
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream h, CUevent e, unsigned int f)
{ return wait_event_impl(h, e, f, 1); }

static CUresult get_flags_impl(CUstream hs, unsigned *flags, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_out_arg(hs, pt, flags, &s);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_stream_get_flags(s, flags));
}
CUresult CUDAAPI cuStreamGetFlags(CUstream h, unsigned int *f) { return get_flags_impl(h, f, 0); }
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream h, unsigned int *f) { return get_flags_impl(h, f, 1); }

static CUresult get_prio_impl(CUstream hs, int *prio, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_out_arg(hs, pt, prio, &s);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_stream_get_priority(s, prio));
}
CUresult CUDAAPI cuStreamGetPriority(CUstream h, int *p) { return get_prio_impl(h, p, 0); }
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream h, int *p) { return get_prio_impl(h, p, 1); }

static CUresult get_id_impl(CUstream hs, unsigned long long *id, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_out_arg(hs, pt, id, &s);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_stream_get_id(s, id));
}
CUresult CUDAAPI cuStreamGetId(CUstream h, unsigned long long *id) { return get_id_impl(h, id, 0); }
CUresult CUDAAPI cuStreamGetId_ptsz(CUstream h, unsigned long long *id) { return get_id_impl(h, id, 1); }

static CUresult get_device_impl(CUstream hs, CUdevice *dev, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_out_arg(hs, pt, dev, &s);
    if (r != CUDA_SUCCESS)
        return r;
    *dev = tfl_rt_stream_device(s);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetDevice(CUstream h, CUdevice *d) { return get_device_impl(h, d, 0); }
CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream h, CUdevice *d) { return get_device_impl(h, d, 1); }

/* A stream belongs to its device's primary context, unless the current
 * context is one of that device (a stream made under cuCtxCreate). */
static CUresult get_ctx_impl(CUstream hs, CUcontext *pctx, CUgreenCtx *green, int pt)
{
    tfl_rt_stream *s;
    struct CUctx_st *cur;
    CUresult r = tfl_drv_current(&cur);
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_drv_stream(hs, pt, &s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    int dev = tfl_rt_stream_device(s);
    struct CUctx_st *prim = tfl_drv_primary(dev);
    *pctx = (hs == NULL || cur->dev == dev || !prim) ? cur : prim;
    if (green)
        *green = NULL;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetCtx(CUstream h, CUcontext *c) { return get_ctx_impl(h, c, NULL, 0); }
CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream h, CUcontext *c) { return get_ctx_impl(h, c, NULL, 1); }
CUresult CUDAAPI cuStreamGetCtx_v2(CUstream h, CUcontext *c, CUgreenCtx *g)
{ return get_ctx_impl(h, c, g, 0); }
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream h, CUcontext *c, CUgreenCtx *g)
{ return get_ctx_impl(h, c, g, 1); }

/* Graph capture is not modelled: no stream is ever capturing. */
static CUresult is_capturing_impl(CUstream hs, CUstreamCaptureStatus *st, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_out_arg(hs, pt, st, &s);
    if (r != CUDA_SUCCESS)
        return r;
    *st = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *s)
{ return is_capturing_impl(h, s, 0); }
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream h, CUstreamCaptureStatus *s)
{ return is_capturing_impl(h, s, 1); }

/* ------------------------------------------------------------ callbacks */

typedef struct cb_call {
    CUstreamCallback fn;
    CUstream stream;
    void *data;
} cb_call;

static void run_callback(void *p)
{
    cb_call *c = p;
    c->fn(c->stream, CUDA_SUCCESS, c->data);
    free(c);
}

static CUresult add_callback_impl(CUstream hs, CUstreamCallback fn, void *data,
                                  unsigned flags, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_arg(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!fn || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    cb_call *c = malloc(sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *c = (cb_call){ fn, hs, data };
    tfl_status st = tfl_rt_stream_host_fn(s, run_callback, c);
    if (st != TFL_OK) {
        free(c);
        return tfl_drv_status(st);
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamAddCallback(CUstream h, CUstreamCallback cb, void *d, unsigned int f)
{ return add_callback_impl(h, cb, d, f, 0); }
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream h, CUstreamCallback cb, void *d, unsigned int f)
{ return add_callback_impl(h, cb, d, f, 1); }

static CUresult host_func_impl(CUstream hs, CUhostFn fn, void *data, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_out_arg(hs, pt, fn, &s);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_stream_host_fn(s, fn, data));
}
CUresult CUDAAPI cuLaunchHostFunc(CUstream h, CUhostFn fn, void *d) { return host_func_impl(h, fn, d, 0); }
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *d) { return host_func_impl(h, fn, d, 1); }

/* ---------------------------------------------------- stream memory ops */

static CUresult write_value(CUstream hs, CUdeviceptr addr, uint64_t value, unsigned size,
                            unsigned flags, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_arg(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    tfl_alloc_info ai;
    if ((flags & ~(unsigned)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) || addr % size ||
        !tfl_mem_check_range((void *)(uintptr_t)addr, size, &ai))
        return CUDA_ERROR_INVALID_VALUE;
    uint32_t v32 = (uint32_t)value;
    const void *src = size == 4 ? (const void *)&v32 : (const void *)&value;
    return tfl_drv_status(tfl_rt_memcpy((void *)(uintptr_t)addr, src, size, s));
}

/* The wait condition is evaluated now.  Work is synchronous, so nothing
 * already issued can change the value later: a false condition would
 * block the stream for ever (unless another host thread writes the
 * word), and is refused with a clear message instead. */
static CUresult wait_value(CUstream hs, CUdeviceptr addr, uint64_t value, unsigned size,
                           unsigned flags, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_arg(hs, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    tfl_alloc_info ai;
    unsigned op = flags & ~(unsigned)CU_STREAM_WAIT_VALUE_FLUSH;
    if (op > CU_STREAM_WAIT_VALUE_NOR || addr % size ||
        !tfl_mem_check_range((void *)(uintptr_t)addr, size, &ai))
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t cur = 0;
    uint32_t c32 = 0;
    tfl_status st = tfl_rt_memcpy(size == 4 ? (void *)&c32 : (void *)&cur,
                                  (const void *)(uintptr_t)addr, size, s);
    if (st != TFL_OK)
        return tfl_drv_status(st);
    int ok;
    if (size == 4) {
        uint32_t v = (uint32_t)value;
        ok = op == CU_STREAM_WAIT_VALUE_GEQ ? (int32_t)(c32 - v) >= 0
           : op == CU_STREAM_WAIT_VALUE_EQ ? c32 == v
           : op == CU_STREAM_WAIT_VALUE_AND ? (c32 & v) != 0
           : ~(c32 | v) != 0;
    } else {
        ok = op == CU_STREAM_WAIT_VALUE_GEQ ? (int64_t)(cur - value) >= 0
           : op == CU_STREAM_WAIT_VALUE_EQ ? cur == value
           : op == CU_STREAM_WAIT_VALUE_AND ? (cur & value) != 0
           : ~(cur | value) != 0;
    }
    if (ok)
        return CUDA_SUCCESS;
    tfl_error("cuStreamWaitValue%u: the condition on %p is false and nothing "
              "issued can change it (synchronous execution): the stream would wait for ever",
              size * 8, (void *)(uintptr_t)addr);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* Both revisions have one signature; the second changed which flags
 * devices advertise, not the call. */
CUresult CUDAAPI cuStreamWriteValue32(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return write_value(h, a, v, 4, f, 0); }
CUresult CUDAAPI cuStreamWriteValue32_ptsz(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return write_value(h, a, v, 4, f, 1); }
CUresult CUDAAPI cuStreamWriteValue32_v2(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return write_value(h, a, v, 4, f, 0); }
CUresult CUDAAPI cuStreamWriteValue32_v2_ptsz(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return write_value(h, a, v, 4, f, 1); }
CUresult CUDAAPI cuStreamWriteValue64(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return write_value(h, a, v, 8, f, 0); }
CUresult CUDAAPI cuStreamWriteValue64_ptsz(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return write_value(h, a, v, 8, f, 1); }
CUresult CUDAAPI cuStreamWriteValue64_v2(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return write_value(h, a, v, 8, f, 0); }
CUresult CUDAAPI cuStreamWriteValue64_v2_ptsz(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return write_value(h, a, v, 8, f, 1); }
CUresult CUDAAPI cuStreamWaitValue32(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return wait_value(h, a, v, 4, f, 0); }
CUresult CUDAAPI cuStreamWaitValue32_ptsz(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return wait_value(h, a, v, 4, f, 1); }
CUresult CUDAAPI cuStreamWaitValue32_v2(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return wait_value(h, a, v, 4, f, 0); }
CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned int f)
{ return wait_value(h, a, v, 4, f, 1); }
CUresult CUDAAPI cuStreamWaitValue64(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return wait_value(h, a, v, 8, f, 0); }
CUresult CUDAAPI cuStreamWaitValue64_ptsz(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return wait_value(h, a, v, 8, f, 1); }
CUresult CUDAAPI cuStreamWaitValue64_v2(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return wait_value(h, a, v, 8, f, 0); }
CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned int f)
{ return wait_value(h, a, v, 8, f, 1); }

/* ---------------------------------------------------------------- events */

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    const unsigned all = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~all) ||
        ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING)))
        return CUDA_ERROR_INVALID_VALUE;
    tfl_rt_event *e = NULL;
    tfl_status st = tfl_rt_event_create(Flags, &e);
    if (st != TFL_OK)
        return tfl_drv_status(st);
    *phEvent = (CUevent)e;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_rt_event_valid((tfl_rt_event *)hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    return tfl_rt_event_destroy((tfl_rt_event *)hEvent) == TFL_OK ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
    return cuEventDestroy_v2(hEvent);
}

static CUresult record_impl(CUevent ev, CUstream hs, unsigned flags, int pt)
{
    tfl_rt_stream *s;
    CUresult r = stream_event_args(hs, pt, ev, flags, CU_EVENT_RECORD_EXTERNAL, &s);
    return r != CUDA_SUCCESS ? r : tfl_drv_status(tfl_rt_event_record((tfl_rt_event *)ev, s));
}
CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) { return record_impl(e, s, 0, 0); }
CUresult CUDAAPI cuEventRecord_ptsz(CUevent e, CUstream s) { return record_impl(e, s, 0, 1); }
CUresult CUDAAPI cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int f)
{ return record_impl(e, s, f, 0); }
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int f)
{ return record_impl(e, s, f, 1); }

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_rt_event_valid((tfl_rt_event *)hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    return tfl_drv_status(tfl_rt_event_query((tfl_rt_event *)hEvent));
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_rt_event_valid((tfl_rt_event *)hEvent))
        return CUDA_ERROR_INVALID_HANDLE;
    return tfl_drv_status(tfl_rt_event_sync((tfl_rt_event *)hEvent));
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_rt_event *a = (tfl_rt_event *)hStart, *b = (tfl_rt_event *)hEnd;
    if (!tfl_rt_event_valid(a) || !tfl_rt_event_valid(b))
        return CUDA_ERROR_INVALID_HANDLE;
    /* never recorded, or made with CU_EVENT_DISABLE_TIMING; or pending */
    tfl_status st = tfl_rt_event_elapsed(a, b, pMilliseconds);
    if (st == TFL_ERR_INVALID)
        return CUDA_ERROR_INVALID_HANDLE;
    return tfl_drv_status(st);
}

CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

/*
 * queue.c - streams as in-order command queues, events as markers.
 *
 * Every stream (and the device's default stream, tfl_stream NULL) is one
 * in-order cl_command_queue with profiling on, so work on it runs in issue
 * order and markers carry device timestamps.  A failed command (an event
 * whose status is negative) is a device fault: the first sync or query
 * that sees it records it, and from then on every sync and query returns
 * TFL_ERR_DEVICE, as a GPU's sticky error does.
 */
#include "backends/opencl/ocl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct tfl_stream_s {
    cl_command_queue q;
    cl_event last;                /* newest tracked command, or NULL  */
    struct tfl_stream_s *next;    /* all live streams, for device_sync */
};

struct tfl_event_s {
    cl_event ev;                  /* the marker; NULL until recorded  */
};

static struct tfl_stream_s g_default;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfl_stream_s *streams;   /* excludes g_default */
static atomic_int g_fault;             /* sticky: TFL_OK or TFL_ERR_DEVICE */
static long g_inject_at;               /* opencl.inject_fault, read at init */
/* The device-wide assert word (ocl.h): made at init, read once a queue
 * is idle.  Non-zero: a kernel met a bad index; the device is in error. */
static cl_mem g_assert;

static struct tfl_stream_s *S(tfl_stream s)
{
    return s ? (struct tfl_stream_s *)s : &g_default;
}

cl_command_queue ocl_queue(tfl_stream s)
{
    return S(s)->q;
}

static tfl_status make_queue(cl_command_queue *q)
{
    const ocl_device *d = ocl_dev();
    cl_int rc;
    *q = clCreateCommandQueue(d->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &rc);
    return ocl_status(rc, "clCreateCommandQueue");
}

tfl_status ocl_queue_init(void)
{
    atomic_store(&g_fault, TFL_OK);
    const char *v = ocl_host && ocl_host->config ? ocl_host->config("opencl.inject_fault")
                                                 : NULL;
    g_inject_at = v ? atol(v) : 0;
    cl_int rc;
    cl_uint zero = 0;
    g_assert = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              sizeof zero, &zero, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer (assert word)");
    return make_queue(&g_default.q);
}

/* A negative execution status is a fault of the device's own work. */
static tfl_status check_event(cl_event ev)
{
    if (!ev)
        return TFL_OK;
    cl_int st = CL_COMPLETE;
    cl_int rc = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clGetEventInfo");
    if (st < 0) {
        if (atomic_exchange(&g_fault, TFL_ERR_DEVICE) == TFL_OK)
            OCL_LOG(OCL_ERROR, "opencl: a command failed on the device (status %d): "
                    "the device is now in error, as a GPU after a fault", (int)st);
        return TFL_ERR_DEVICE;
    }
    return st == CL_COMPLETE ? TFL_OK : TFL_ERR_NOT_READY;
}

void ocl_track(tfl_stream s, cl_event ev)
{
    if (!ev)
        return;
    struct tfl_stream_s *st = S(s);
    pthread_mutex_lock(&lock);
    cl_event old = st->last;
    st->last = ev;
    pthread_mutex_unlock(&lock);
    if (old) {
        check_event(old);   /* a fault is noticed even if never synced */
        clReleaseEvent(old);
    }
}

static tfl_status fault(void)
{
    return (tfl_status)atomic_load(&g_fault);
}

/* The tracked last command of st, retained (NULL if none). */
static cl_event last_of(struct tfl_stream_s *st)
{
    pthread_mutex_lock(&lock);
    cl_event ev = st->last;
    if (ev)
        clRetainEvent(ev);
    pthread_mutex_unlock(&lock);
    return ev;
}


cl_mem ocl_assert_word(void)
{
    return g_assert;
}

/* Read the assert word on idle queue q; TFL_ERR_DEVICE (sticky) if set. */
static tfl_status check_assert(cl_command_queue q)
{
    cl_uint v = 0;
    if (!g_assert || clEnqueueReadBuffer(q, g_assert, CL_TRUE, 0, sizeof v, &v, 0, NULL,
                                         NULL) != CL_SUCCESS || v == 0)
        return TFL_OK;
    if (atomic_exchange(&g_fault, TFL_ERR_DEVICE) == TFL_OK)
        OCL_LOG(OCL_ERROR, "opencl: device-side assert (code %u: an index out of range): "
                "the device is now in error, as a GPU after a device assert", (unsigned)v);
    return TFL_ERR_DEVICE;
}

static tfl_status sync_one(struct tfl_stream_s *st)
{
    tfl_status r = ocl_status(clFinish(st->q), "clFinish");
    if (r == TFL_OK)
        r = check_assert(st->q);
    cl_event ev = last_of(st);
    if (ev) {
        tfl_status e = check_event(ev);
        clReleaseEvent(ev);
        if (r == TFL_OK)
            r = e;
    }
    if (r != TFL_OK && r != TFL_ERR_NOT_READY)
        atomic_store(&g_fault, TFL_ERR_DEVICE);
    return fault() != TFL_OK ? fault() : r;
}

tfl_status ocl_stream_create(int dev, tfl_stream *out)
{
    (void)dev;
    struct tfl_stream_s *st = calloc(1, sizeof *st);
    if (!st)
        return TFL_ERR_NOMEM;
    tfl_status r = make_queue(&st->q);
    if (r != TFL_OK) {
        free(st);
        return r;
    }
    pthread_mutex_lock(&lock);
    st->next = streams;
    streams = st;
    pthread_mutex_unlock(&lock);
    *out = (tfl_stream)st;
    return TFL_OK;
}

tfl_status ocl_stream_destroy(tfl_stream s)
{
    struct tfl_stream_s *st = (struct tfl_stream_s *)s;
    if (!st)
        return TFL_ERR_INVALID;
    pthread_mutex_lock(&lock);
    struct tfl_stream_s **pp = &streams;
    while (*pp && *pp != st)
        pp = &(*pp)->next;
    if (*pp)
        *pp = st->next;
    pthread_mutex_unlock(&lock);
    /* CUDA: destroying a stream with pending work lets that work finish */
    clFinish(st->q);
    if (st->last)
        clReleaseEvent(st->last);
    clReleaseCommandQueue(st->q);
    free(st);
    return TFL_OK;
}

tfl_status ocl_stream_sync(tfl_stream s)
{
    return sync_one(S(s));
}

tfl_status ocl_stream_query(tfl_stream s)
{
    if (fault() != TFL_OK)
        return fault();
    struct tfl_stream_s *st = S(s);
    /* every command issued to a queue is tracked (ocl.h), and the queue is
     * in order: the newest one tells for all */
    clFlush(st->q);
    cl_event ev = last_of(st);
    tfl_status r = check_event(ev);
    if (ev)
        clReleaseEvent(ev);
    if (r == TFL_OK)
        r = check_assert(st->q);   /* idle: the read does not wait */
    return fault() != TFL_OK ? fault() : r;
}

tfl_status ocl_device_sync(int dev)
{
    (void)dev;
    tfl_status r = sync_one(&g_default);
    /* streams are only freed by stream_destroy, which callers do not run
     * concurrently with a device sync on the same stream (CUDA: undefined) */
    pthread_mutex_lock(&lock);
    struct tfl_stream_s *list[256];
    int n = 0;
    for (struct tfl_stream_s *st = streams; st && n < 256; st = st->next)
        list[n++] = st;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) {
        tfl_status e = sync_one(list[i]);
        if (r == TFL_OK)
            r = e;
    }
    return r;
}

/* ------------------------------------------------------------- events */

tfl_status ocl_event_create(int dev, tfl_event *out)
{
    (void)dev;
    struct tfl_event_s *e = calloc(1, sizeof *e);
    if (!e)
        return TFL_ERR_NOMEM;
    *out = (tfl_event)e;
    return TFL_OK;
}

tfl_status ocl_event_destroy(tfl_event ev)
{
    struct tfl_event_s *e = (struct tfl_event_s *)ev;
    if (!e)
        return TFL_ERR_INVALID;
    if (e->ev)
        clReleaseEvent(e->ev);
    free(e);
    return TFL_OK;
}

tfl_status ocl_event_record(tfl_event ev, tfl_stream s)
{
    struct tfl_event_s *e = (struct tfl_event_s *)ev;
    if (!e)
        return TFL_ERR_INVALID;
    cl_event m;
    cl_command_queue q = ocl_queue(s);
    OCL_TRY(clEnqueueMarkerWithWaitList(q, 0, NULL, &m), "clEnqueueMarkerWithWaitList");
    clFlush(q);
    if (e->ev)
        clReleaseEvent(e->ev);
    e->ev = m;
    clRetainEvent(m);
    ocl_track(s, m);
    return TFL_OK;
}

tfl_status ocl_event_query(tfl_event ev)
{
    struct tfl_event_s *e = (struct tfl_event_s *)ev;
    if (!e)
        return TFL_ERR_INVALID;
    if (fault() != TFL_OK)
        return fault();
    return check_event(e->ev);
}

tfl_status ocl_event_sync(tfl_event ev)
{
    struct tfl_event_s *e = (struct tfl_event_s *)ev;
    if (!e)
        return TFL_ERR_INVALID;
    if (e->ev) {
        cl_int rc = clWaitForEvents(1, &e->ev);
        if (rc != CL_SUCCESS && rc != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
            return ocl_status(rc, "clWaitForEvents");
        if (check_event(e->ev) == TFL_OK) {
            cl_command_queue q = NULL;
            if (clGetEventInfo(e->ev, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL) ==
                    CL_SUCCESS && q)
                check_assert(q);
        }
    }
    return fault();
}

static tfl_status end_time(cl_event ev, cl_ulong *ns)
{
    tfl_status r = check_event(ev);
    if (r != TFL_OK)
        return r;
    OCL_TRY(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *ns, ns, NULL),
            "clGetEventProfilingInfo");
    return TFL_OK;
}

tfl_status ocl_event_elapsed(tfl_event a, tfl_event b, float *ms)
{
    struct tfl_event_s *ea = (struct tfl_event_s *)a, *eb = (struct tfl_event_s *)b;
    if (!ea || !eb || !ea->ev || !eb->ev || !ms)
        return TFL_ERR_INVALID;
    cl_ulong t0, t1;
    tfl_status r = end_time(ea->ev, &t0);
    if (r == TFL_OK)
        r = end_time(eb->ev, &t1);
    if (r == TFL_OK)
        *ms = (float)((double)((int64_t)(t1 - t0)) / 1e6);
    return r;
}

tfl_status ocl_stream_wait_event(tfl_stream s, tfl_event ev)
{
    struct tfl_event_s *e = (struct tfl_event_s *)ev;
    if (!e)
        return TFL_ERR_INVALID;
    if (!e->ev)
        return TFL_OK;   /* never recorded: nothing to wait for, as CUDA */
    cl_event b = NULL;
    OCL_TRY(clEnqueueBarrierWithWaitList(ocl_queue(s), 1, &e->ev, &b),
            "clEnqueueBarrierWithWaitList");
    ocl_track(s, b);
    return TFL_OK;
}

/* Fault injection for tests (opencl.inject_fault = N): the N-th op or
 * memset issued fails in the background, as a kernel that faults on a GPU.
 * The stream's tracked last command becomes a user event set to an error
 * status, so the next sync or query (or the next command tracked after it)
 * sees a failed command.  It is never put in a queue's wait list: PoCL's
 * propagation of a failed event to later commands of an in-order queue
 * races with their release (a PTHREAD ERROR in pocl_lock_events_inorder),
 * and a real fault needs no such chain, as the check reads the status of
 * the one failed command.  The issuing call returns success. */
void ocl_inject_fault(tfl_stream s)
{
    static atomic_long count;
    long at = g_inject_at;
    if (at <= 0 || atomic_fetch_add(&count, 1) + 1 != at)
        return;
    cl_int rc;
    cl_event u = clCreateUserEvent(ocl_dev()->ctx, &rc);
    if (rc != CL_SUCCESS)
        return;
    clSetUserEventStatus(u, -9999);
    OCL_LOG(OCL_WARN, "opencl: injected a device fault (opencl.inject_fault = %ld)", at);
    ocl_track(s, u);   /* the stream now owns u */
}

void ocl_queue_fini(void)
{
    if (g_assert) {
        clReleaseMemObject(g_assert);
        g_assert = NULL;
    }
    if (g_default.q) {
        clFinish(g_default.q);
        if (g_default.last)
            clReleaseEvent(g_default.last);
        clReleaseCommandQueue(g_default.q);
        g_default.q = NULL;
        g_default.last = NULL;
    }
}

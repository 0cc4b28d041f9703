/*
 * stream.c - streams and events.
 *
 * A stream is bookkeeping (flags, priority, device, an id, proof that a
 * handle is live: a destroyed or made-up handle must give an error, not a
 * crash) plus the backend's stream.  Two execution models:
 *
 *  - synchronous backends (the host: no event slots in their table) have
 *    finished every call when it returns, so syncs are checks, queries say
 *    ready, and an event holds the time it was recorded;
 *  - asynchronous backends (event slots filled: OpenCL) run work in the
 *    background: syncs and queries go to the backend stream, events are
 *    backend events (markers), cudaStreamWaitEvent orders backend streams.
 *    The default and per-thread streams are the backend's default stream.
 */
#include "route/runtime.h"
#include "route/rt_internal.h"
#include "common/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <uthash.h>

struct tfl_rt_stream {
    UT_hash_handle hh;
    void *self;             /* hash key: the handle itself */
    unsigned flags;
    int priority;
    int device;
    unsigned long long id;
    tfl_stream backend_stream;
};

struct tfl_rt_event {
    UT_hash_handle hh;
    void *self;
    unsigned flags;
    int recorded;
    double t_ms;
    tfl_event backend_event;  /* asynchronous backends only */
};

/* cudaEventDisableTiming, as CUDA defines it. */
#define EVENT_DISABLE_TIMING 0x02

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfl_rt_stream *streams;
static struct tfl_rt_event *events;
static unsigned long long next_stream_id = 16; /* low ids: default streams */

static int is_special(tfl_rt_stream *s)
{
    return s == NULL || s == TFL_STREAM_LEGACY || s == TFL_STREAM_PER_THREAD;
}

/* The backend when it runs work in the background, else NULL. */
static const tfl_backend *async_backend(void)
{
    const tfl_backend *b = tfl_rt_backend();
    return b && b->event_create && b->event_record && b->stream_wait_event &&
           b->device_sync ? b : NULL;
}

int tfl_rt_async(void)
{
    return async_backend() != NULL;
}

tfl_stream tfl_rt_backend_stream(tfl_rt_stream *s)
{
    if (is_special(s))
        return NULL;
    struct tfl_rt_stream *found;
    tfl_stream bs = NULL;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(streams, &s, found);
    if (found)
        bs = found->backend_stream;
    pthread_mutex_unlock(&lock);
    return bs;
}

/* CUDA_LAUNCH_BLOCKING=1: every call waits for its work, as CUDA does. */
static int launch_blocking(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("CUDA_LAUNCH_BLOCKING");
        v = e && *e == '1';
    }
    return v;
}

tfl_status tfl_rt_issued(tfl_rt_stream *s)
{
    const tfl_backend *b = async_backend();
    if (!b || !launch_blocking())
        return TFL_OK;
    return b->stream_sync(tfl_rt_backend_stream(s));
}

int tfl_rt_stream_valid(tfl_rt_stream *s)
{
    if (is_special(s))
        return 1;
    struct tfl_rt_stream *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(streams, &s, found);
    pthread_mutex_unlock(&lock);
    return found != NULL;
}

tfl_status tfl_rt_stream_create(unsigned flags, int priority, tfl_rt_stream **out)
{
    if (!out)
        return TFL_ERR_INVALID;
    struct tfl_rt_stream *s = calloc(1, sizeof *s);
    if (!s)
        return TFL_ERR_NOMEM;
    s->flags = flags;
    s->priority = priority;
    s->device = tfl_rt_current_device();
    const tfl_backend *b = tfl_rt_backend();
    if (b && b->stream_create &&
        b->stream_create(tfl_rt_backend_device(s->device), &s->backend_stream) != TFL_OK) {
        free(s);
        return TFL_ERR_NOMEM;
    }
    pthread_mutex_lock(&lock);
    s->id = next_stream_id++;
    s->self = s;
    HASH_ADD_PTR(streams, self, s);
    pthread_mutex_unlock(&lock);
    *out = s;
    return TFL_OK;
}

tfl_status tfl_rt_stream_destroy(tfl_rt_stream *s)
{
    if (is_special(s))
        return TFL_ERR_INVALID;
    struct tfl_rt_stream *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(streams, &s, found);
    if (found)
        HASH_DEL(streams, found);
    pthread_mutex_unlock(&lock);
    if (!found)
        return TFL_ERR_INVALID;
    const tfl_backend *b = tfl_rt_backend();
    if (b && b->stream_destroy)
        b->stream_destroy(found->backend_stream);
    free(found);
    return TFL_OK;
}

tfl_status tfl_rt_stream_sync(tfl_rt_stream *s)
{
    if (!tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    const tfl_backend *b = async_backend();
    return b ? b->stream_sync(tfl_rt_backend_stream(s)) : TFL_OK;
}

tfl_status tfl_rt_stream_query(tfl_rt_stream *s)
{
    if (!tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    const tfl_backend *b = async_backend();
    return b && b->stream_query ? b->stream_query(tfl_rt_backend_stream(s)) : TFL_OK;
}

tfl_status tfl_rt_device_sync(void)
{
    const tfl_backend *b = async_backend();
    return b ? b->device_sync(tfl_rt_backend_device(tfl_rt_current_device())) : TFL_OK;
}

tfl_status tfl_rt_stream_wait_event(tfl_rt_stream *s, tfl_rt_event *e)
{
    if (!tfl_rt_stream_valid(s) || !tfl_rt_event_valid(e))
        return TFL_ERR_INVALID;
    const tfl_backend *b = async_backend();
    if (!b)
        return TFL_OK;   /* the event's work is already complete */
    /* the backend event lives as long as e; CUDA leaves destroying an
     * event while another thread waits on it undefined */
    tfl_event be = NULL;
    pthread_mutex_lock(&lock);
    struct tfl_rt_event *found;
    HASH_FIND_PTR(events, &e, found);
    if (found)
        be = found->backend_event;
    pthread_mutex_unlock(&lock);
    return be ? b->stream_wait_event(tfl_rt_backend_stream(s), be) : TFL_OK;
}

/* Read a field of a live stream under the lock (NULL/special: defaults). */
static tfl_status stream_field(tfl_rt_stream *s, unsigned *flags, int *prio,
                               unsigned long long *id, int *dev)
{
    if (is_special(s)) {
        if (flags) *flags = 0;
        if (prio) *prio = 0;
        if (id) *id = s == TFL_STREAM_PER_THREAD ? 2 : (s == NULL ? 0 : 1);
        if (dev) *dev = tfl_rt_current_device();
        return TFL_OK;
    }
    struct tfl_rt_stream *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(streams, &s, found);
    if (found) {
        if (flags) *flags = found->flags;
        if (prio) *prio = found->priority;
        if (id) *id = found->id;
        if (dev) *dev = found->device;
    }
    pthread_mutex_unlock(&lock);
    return found ? TFL_OK : TFL_ERR_INVALID;
}

tfl_status tfl_rt_stream_get_flags(tfl_rt_stream *s, unsigned *flags)
{
    return stream_field(s, flags, NULL, NULL, NULL);
}

tfl_status tfl_rt_stream_get_priority(tfl_rt_stream *s, int *prio)
{
    return stream_field(s, NULL, prio, NULL, NULL);
}

tfl_status tfl_rt_stream_get_id(tfl_rt_stream *s, unsigned long long *id)
{
    return stream_field(s, NULL, NULL, id, NULL);
}

int tfl_rt_stream_device(tfl_rt_stream *s)
{
    int dev = -1;
    return stream_field(s, NULL, NULL, NULL, &dev) == TFL_OK ? dev : -1;
}

tfl_status tfl_rt_stream_host_fn(tfl_rt_stream *s, void (*fn)(void *), void *data)
{
    if (!fn || !tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    /* Run it once all earlier work on s has completed.  On an asynchronous
     * backend the caller waits for that: later work on s is then ordered
     * after fn too, which is what CUDA promises, at the price of the
     * overlap. */
    tfl_status st = tfl_rt_stream_sync(s);
    fn(data);
    return st;
}

/* ------------------------------------------------------------- events */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

tfl_status tfl_rt_event_create(unsigned flags, tfl_rt_event **out)
{
    if (!out)
        return TFL_ERR_INVALID;
    struct tfl_rt_event *e = calloc(1, sizeof *e);
    if (!e)
        return TFL_ERR_NOMEM;
    e->flags = flags;
    const tfl_backend *b = async_backend();
    if (b && b->event_create(tfl_rt_backend_device(tfl_rt_current_device()),
                             &e->backend_event) != TFL_OK) {
        free(e);
        return TFL_ERR_NOMEM;
    }
    pthread_mutex_lock(&lock);
    e->self = e;
    HASH_ADD_PTR(events, self, e);
    pthread_mutex_unlock(&lock);
    *out = e;
    return TFL_OK;
}

tfl_status tfl_rt_event_destroy(tfl_rt_event *e)
{
    struct tfl_rt_event *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    if (found)
        HASH_DEL(events, found);
    pthread_mutex_unlock(&lock);
    if (!found)
        return TFL_ERR_INVALID;
    const tfl_backend *b = async_backend();
    if (b && found->backend_event && b->event_destroy)
        b->event_destroy(found->backend_event);
    free(found);
    return TFL_OK;
}

int tfl_rt_event_valid(tfl_rt_event *e)
{
    struct tfl_rt_event *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    pthread_mutex_unlock(&lock);
    return found != NULL;
}

tfl_status tfl_rt_event_record(tfl_rt_event *e, tfl_rt_stream *s)
{
    if (!tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    struct tfl_rt_event *found;
    double t = now_ms();
    tfl_event be = NULL;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    if (found) {
        found->recorded = 1;
        found->t_ms = t;
        be = found->backend_event;
    }
    pthread_mutex_unlock(&lock);
    if (!found)
        return TFL_ERR_INVALID;
    const tfl_backend *b = async_backend();
    return b && be ? b->event_record(be, tfl_rt_backend_stream(s)) : TFL_OK;
}

/* The backend event of a live e (NULL on a synchronous backend). */
static tfl_status backend_event(tfl_rt_event *e, tfl_event *out)
{
    struct tfl_rt_event *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    *out = found ? found->backend_event : NULL;
    pthread_mutex_unlock(&lock);
    return found ? TFL_OK : TFL_ERR_INVALID;
}

tfl_status tfl_rt_event_query(tfl_rt_event *e)
{
    tfl_event be;
    tfl_status st = backend_event(e, &be);
    const tfl_backend *b = async_backend();
    if (st != TFL_OK || !b || !be || !b->event_query)
        return st;
    return b->event_query(be);
}

tfl_status tfl_rt_event_sync(tfl_rt_event *e)
{
    tfl_event be;
    tfl_status st = backend_event(e, &be);
    const tfl_backend *b = async_backend();
    if (st != TFL_OK || !b || !be || !b->event_sync)
        return st;
    return b->event_sync(be);
}

unsigned tfl_rt_event_flags(tfl_rt_event *e)
{
    struct tfl_rt_event *found;
    unsigned f = 0;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    if (found)
        f = found->flags;
    pthread_mutex_unlock(&lock);
    return f;
}

int tfl_rt_event_recorded(tfl_rt_event *e)
{
    struct tfl_rt_event *found;
    int r = 0;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    if (found)
        r = found->recorded;
    pthread_mutex_unlock(&lock);
    return r;
}

tfl_status tfl_rt_event_elapsed(tfl_rt_event *start, tfl_rt_event *end, float *ms)
{
    struct tfl_rt_event *a, *b;
    tfl_status st = TFL_OK;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &start, a);
    HASH_FIND_PTR(events, &end, b);
    /* CUDA: never-recorded or timing-disabled events are invalid handles
     * for this purpose; work is never pending in the synchronous model. */
    tfl_event ba = NULL, bb = NULL;
    if (!a || !b || (a->flags & EVENT_DISABLE_TIMING) ||
        (b->flags & EVENT_DISABLE_TIMING) || !a->recorded || !b->recorded) {
        st = TFL_ERR_INVALID;
    } else {
        *ms = (float)(b->t_ms - a->t_ms);
        ba = a->backend_event;
        bb = b->backend_event;
    }
    pthread_mutex_unlock(&lock);
    const tfl_backend *bk = async_backend();
    if (st == TFL_OK && bk && ba && bb && bk->event_elapsed)
        st = bk->event_elapsed(ba, bb, ms);   /* device time; NOT_READY if pending */
    return st;
}

/*
 * stream.c - streams and events.
 *
 * The host backend executes synchronously in issue order (runtime.h), so a
 * stream is bookkeeping: flags, priority, device and an id, and proof that
 * a handle is live (a destroyed or made-up handle must give an error, not
 * a crash).  An event records the time at which it was recorded, which is
 * also when all work before it completed.
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
    return tfl_rt_stream_valid(s) ? TFL_OK : TFL_ERR_INVALID;
}

tfl_status tfl_rt_stream_query(tfl_rt_stream *s)
{
    return tfl_rt_stream_valid(s) ? TFL_OK : TFL_ERR_INVALID;
}

tfl_status tfl_rt_device_sync(void)
{
    return TFL_OK;
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
    fn(data);   /* all earlier work on s has completed: run it now */
    return TFL_OK;
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
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(events, &e, found);
    if (found) {
        found->recorded = 1;
        found->t_ms = t;
    }
    pthread_mutex_unlock(&lock);
    return found ? TFL_OK : TFL_ERR_INVALID;
}

tfl_status tfl_rt_event_query(tfl_rt_event *e)
{
    return tfl_rt_event_valid(e) ? TFL_OK : TFL_ERR_INVALID;
}

tfl_status tfl_rt_event_sync(tfl_rt_event *e)
{
    return tfl_rt_event_valid(e) ? TFL_OK : TFL_ERR_INVALID;
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
    if (!a || !b || (a->flags & EVENT_DISABLE_TIMING) ||
        (b->flags & EVENT_DISABLE_TIMING) || !a->recorded || !b->recorded)
        st = TFL_ERR_INVALID;
    else
        *ms = (float)(b->t_ms - a->t_ms);
    pthread_mutex_unlock(&lock);
    return st;
}

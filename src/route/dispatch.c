/*
 * dispatch.c - run a semantic op: selected backend first, host as fallback.
 *
 * The fallback policy decides what happens when the selected backend does
 * not support an op (or the op is blacklisted with TORCH_FL_OP_BLACKLIST):
 * strict refuses, warn runs it on the host backend and warns once per op
 * name, silent runs it on the host quietly.
 */
#include "route/dispatch.h"
#include "route/config.h"
#include "route/optable.h"
#include "route/stats.h"
#include "backends/host/host_ops.h"
#include "common/log.h"
#include "mem/hostview.h"

#include <pthread.h>
#include <string.h>

static void warn_once(const char *name, const char *backend)
{
    /* Few distinct op names exist: a small fixed table is enough. */
    static const char *seen[64];
    static int nseen;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++)
        if (seen[i] == name || strcmp(seen[i], name) == 0) {
            pthread_mutex_unlock(&lock);
            return;
        }
    if (nseen < 64)
        seen[nseen++] = name;
    pthread_mutex_unlock(&lock);
    tfl_warn("op %s is not supported by backend %s; running it on the host", name, backend);
}

/* Statistics slot of a library op, by name ("gemm", "gemm_lt", ...).
 * Names are string literals, so a small table keyed by the pointer saves
 * the hash lookup; anything beyond it goes to the stats table directly. */
static tfl_stat_slot *op_slot(const tfl_op *op)
{
    static struct { const char *name; tfl_stat_slot *slot; } cache[32];
    static int ncache;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    const char *name = op->name ? op->name : "op";
    tfl_stat_slot *sl = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncache && !sl; i++)
        if (cache[i].name == name)
            sl = cache[i].slot;
    if (!sl) {
        sl = tfl_stats_slot("op", name);
        if (ncache < 32)
            cache[ncache++] = (typeof(cache[0])){ name, sl };
    }
    pthread_mutex_unlock(&lock);
    return sl;
}

static tfl_status route_op(const tfl_op *op, tfl_rt_stream *s, tfl_ran_where *where);

tfl_status tfl_route_op(const tfl_op *op, tfl_rt_stream *s)
{
    tfl_ran_where where = TFL_RAN_NATIVE;
    if (tfl_stats_in_launch) {        /* counted by the launch */
        tfl_status st = route_op(op, s, &where);
        if (where > tfl_stats_launch_where)
            tfl_stats_launch_where = where;
        return st;
    }
    uint64_t t0 = tfl_stats_now_ns();
    tfl_status st = route_op(op, s, &where);
    tfl_stats_add(op_slot(op), st == TFL_OK ? where : TFL_RAN_REFUSED,
                  tfl_stats_now_ns() - t0);
    return st;
}

/* Run op on the host backend.  When the selected backend's memory is not
 * host memory, the op runs in a host view window: the operands it touches
 * are brought over by the page faults they take, and the bytes it wrote go
 * back to the device when the window closes (mem/hostview.c). */
static tfl_status run_on_host(const tfl_op *op)
{
    tfl_hostview_open();     /* no-ops on host-addressable memory */
    tfl_status st = tfl_host_backend.op_run(op, NULL);
    tfl_status wb = tfl_hostview_close();
    return st != TFL_OK ? st : wb;
}

static tfl_status route_op(const tfl_op *op, tfl_rt_stream *s, tfl_ran_where *where)
{
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    const char *name = op->name ? op->name : "op";
    int forced = tfl_optable_blacklisted(NULL, name);
    if (!forced && b->op_supported && b->op_supported(op)) {
        /* the device must see what host code wrote into its memory */
        tfl_hostview_flush();
        tfl_status st = b->op_run(op, tfl_rt_backend_stream(s));
        return st == TFL_OK ? tfl_rt_issued(s) : st;
    }
    if (b == &tfl_host_backend && !forced)
        return TFL_ERR_UNSUPPORTED;
    const tfl_config *cfg = tfl_config_get();
    if (cfg->fallback == TFL_FALLBACK_STRICT) {
        tfl_error("op %s is not supported by backend %s and fallback mode is strict",
                  name, b->name);
        return TFL_ERR_UNSUPPORTED;
    }
    if (cfg->fallback == TFL_FALLBACK_WARN && b != &tfl_host_backend)
        warn_once(name, b->name);
    /* The host backend is where everything can run. */
    if (!tfl_host_backend.op_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (b != &tfl_host_backend)
        *where = TFL_RAN_HOSTEXEC;
    return run_on_host(op);
}

int tfl_route_host_addressable(void)
{
    const tfl_backend *b = tfl_rt_backend();
    return b && b->host_addressable && b->host_addressable(0);
}

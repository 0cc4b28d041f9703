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
#include "backends/host/host_ops.h"
#include "common/log.h"

#include <pthread.h>
#include <string.h>

/* Is name in the comma-separated blacklist? */
static int blacklisted(const char *name)
{
    const char *list = tfl_config_get()->op_blacklist;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && *p == ' ') { p++; len--; }
        while (len && p[len - 1] == ' ') len--;
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

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

tfl_status tfl_route_op(const tfl_op *op, tfl_rt_stream *s)
{
    (void)s;
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    const char *name = op->name ? op->name : "op";
    int forced = blacklisted(name);
    if (!forced && b->op_supported && b->op_supported(op))
        return b->op_run(op, NULL);
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
    /* The host backend is where everything can run: its memory view is the
     * process's, which is the only kind the fallback supports today. */
    if (!tfl_host_backend.op_supported(op))
        return TFL_ERR_UNSUPPORTED;
    return tfl_host_backend.op_run(op, NULL);
}

int tfl_route_host_addressable(void)
{
    const tfl_backend *b = tfl_rt_backend();
    return b && b->host_addressable && b->host_addressable(0);
}

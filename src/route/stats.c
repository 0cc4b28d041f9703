/*
 * stats.c - counters per op or kernel, and the JSON report.
 *
 * Counting is on every launch, so the fast path is two atomic adds on a
 * slot the caller cached; the mutex only guards creating slots.
 */
#include "route/stats.h"
#include "mem/hostview.h"
#include "route/config.h"
#include "route/runtime.h"
#include "common/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>

struct tfl_stat_slot {
    UT_hash_handle hh;
    char *key;                       /* "family\x1fname", the hash key  */
    char *family, *name;
    _Atomic uint64_t calls[TFL_RAN_COUNT];
    _Atomic uint64_t ns[TFL_RAN_COUNT];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tfl_stat_slot *slots;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
__thread int tfl_stats_in_launch;
__thread tfl_ran_where tfl_stats_launch_where;

uint64_t tfl_stats_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void dump_at_exit(void)
{
    const char *path = tfl_config_get()->stats_path;
    if (path[0] && torchfl_stats_dump(path) != 0)
        tfl_warn("could not write op statistics to %s", path);
}

static void register_exit(void)
{
    if (tfl_config_get()->stats_path[0])
        atexit(dump_at_exit);
}

tfl_stat_slot *tfl_stats_slot(const char *family, const char *name)
{
    pthread_once(&exit_once, register_exit);
    size_t fl = strlen(family), nl = strlen(name);
    char *key = malloc(fl + nl + 2);
    if (!key)
        return NULL;
    memcpy(key, family, fl);
    key[fl] = '\x1f';
    memcpy(key + fl + 1, name, nl + 1);
    tfl_stat_slot *s;
    pthread_mutex_lock(&lock);
    HASH_FIND_STR(slots, key, s);
    if (!s && (s = calloc(1, sizeof *s))) {
        s->family = strdup(family);
        s->name = strdup(name);
        if (!s->family || !s->name) {
            free(s->family);
            free(s->name);
            free(s);
            s = NULL;
        } else {
            s->key = key;
            HASH_ADD_KEYPTR(hh, slots, s->key, fl + nl + 1, s);
            key = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    free(key);
    return s;
}

void tfl_stats_add(tfl_stat_slot *s, tfl_ran_where where, uint64_t ns)
{
    if (!s || where >= TFL_RAN_COUNT)
        return;
    atomic_fetch_add_explicit(&s->calls[where], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->ns[where], ns, memory_order_relaxed);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int torchfl_stats_dump(const char *path)
{
    if (!path || !*path)
        return -1;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    static const char *where[] = { "native", "host_executor", "refused" };
    uint64_t total = 0, fallback = 0;
    pthread_mutex_lock(&lock);
    for (tfl_stat_slot *s = slots; s; s = s->hh.next)
        for (int w = 0; w < TFL_RAN_COUNT; w++) {
            total += s->ns[w];
            if (w == TFL_RAN_HOSTEXEC)
                fallback += s->ns[w];
        }
    fprintf(f, "{\n  \"version\": 1,\n  \"backend\": ");
    json_string(f, tfl_rt_initialised() ? tfl_rt_backend_name() : "none");
    fprintf(f, ",\n  \"total_ns\": %llu,\n  \"fallback_ns\": %llu,\n"
            "  \"fallback_share\": %.6f,\n",
            (unsigned long long)total, (unsigned long long)fallback,
            total ? (double)fallback / (double)total : 0.0);
    /* what host code cost on memory the host cannot address (mem/hostview.c) */
    uint64_t hv_faults, hv_fetched, hv_stored;
    tfl_hostview_stats(&hv_faults, &hv_fetched, &hv_stored);
    fprintf(f, "  \"hostview\": {\"faults\": %llu, \"fetched_bytes\": %llu, "
            "\"stored_bytes\": %llu},\n  \"ops\": [",
            (unsigned long long)hv_faults, (unsigned long long)hv_fetched,
            (unsigned long long)hv_stored);
    int first = 1;
    for (tfl_stat_slot *s = slots; s; s = s->hh.next) {
        uint64_t calls = 0, ns = 0;
        for (int w = 0; w < TFL_RAN_COUNT; w++) {
            calls += s->calls[w];
            ns += s->ns[w];
        }
        fprintf(f, "%s\n    {\"family\": ", first ? "" : ",");
        first = 0;
        json_string(f, s->family);
        fprintf(f, ", \"name\": ");
        json_string(f, s->name);
        fprintf(f, ", \"calls\": %llu, \"time_ns\": %llu",
                (unsigned long long)calls, (unsigned long long)ns);
        for (int w = 0; w < TFL_RAN_COUNT; w++)
            fprintf(f, ", \"%s_calls\": %llu, \"%s_ns\": %llu", where[w],
                    (unsigned long long)s->calls[w], where[w],
                    (unsigned long long)s->ns[w]);
        fprintf(f, "}");
    }
    pthread_mutex_unlock(&lock);
    fprintf(f, "\n  ]\n}\n");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

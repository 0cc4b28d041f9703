/*
 * stats.c - the pool's counters and the limit.
 *
 * Plain atomics, so that accounting adds no lock to the alloc/free paths.
 * Every field except host_current describes device memory (TFL_MEM_DEVICE
 * and TFL_MEM_MANAGED); pinned host memory is counted only in host_current
 * and never against the limit.  get_stats reads each field atomically but
 * not all of them as one snapshot.
 */
#include "mem/mem_internal.h"

static uint64_t g_current, g_peak, g_cached, g_reserved, g_limit;
static uint64_t g_alloc_count, g_free_count, g_live_count, g_host_current;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ADD(x, v) __atomic_add_fetch(&(x), (v), __ATOMIC_RELAXED)
#define SUB(x, v) __atomic_sub_fetch(&(x), (v), __ATOMIC_RELAXED)

int tfl_stats_reserve(uint64_t n)
{
    /* compare-and-swap rather than add-then-undo: two racing requests
     * that together exceed the limit must not both fail */
    uint64_t r = LOAD(g_reserved);
    for (;;) {
        uint64_t lim = LOAD(g_limit);
        if (lim && (n > lim || r > lim - n))
            return -1;
        if (__atomic_compare_exchange_n(&g_reserved, &r, r + n, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 0;
    }
}

void tfl_stats_unreserve(uint64_t n) { SUB(g_reserved, n); }

void tfl_stats_on_alloc(int host, uint64_t size)
{
    if (host) {
        ADD(g_host_current, size);
        return;
    }
    uint64_t cur = ADD(g_current, size);
    uint64_t pk = LOAD(g_peak);
    while (cur > pk && !__atomic_compare_exchange_n(&g_peak, &pk, cur, 1,
                                                    __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED))
        ;
    ADD(g_alloc_count, 1);
    ADD(g_live_count, 1);
}

void tfl_stats_on_free(int host, uint64_t size)
{
    if (host) {
        SUB(g_host_current, size);
        return;
    }
    SUB(g_current, size);
    ADD(g_free_count, 1);
    SUB(g_live_count, 1);
}

void tfl_stats_cached_add(int64_t delta) { ADD(g_cached, (uint64_t)delta); }
uint64_t tfl_stats_limit(void) { return LOAD(g_limit); }
void tfl_stats_set_limit(uint64_t limit) { __atomic_store_n(&g_limit, limit, __ATOMIC_RELAXED); }
uint64_t tfl_stats_reserved(void) { return LOAD(g_reserved); }
uint64_t tfl_stats_current(void) { return LOAD(g_current); }

void tfl_mem_get_stats(tfl_mem_stats *out)
{
    if (!out)
        return;
    out->current = LOAD(g_current);
    out->peak = LOAD(g_peak);
    out->cached = LOAD(g_cached);
    out->reserved = LOAD(g_reserved);
    out->limit = LOAD(g_limit);
    out->alloc_count = LOAD(g_alloc_count);
    out->free_count = LOAD(g_free_count);
    out->live_count = LOAD(g_live_count);
    out->host_current = LOAD(g_host_current);
}

void tfl_mem_reset_peak(void)
{
    __atomic_store_n(&g_peak, LOAD(g_current), __ATOMIC_RELAXED);
}

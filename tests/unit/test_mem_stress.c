/*
 * test_mem_stress.c - many threads allocating, freeing and looking up at
 * once.
 *
 * Each allocation is filled with a pattern of its own and verified before
 * it is freed (and partly at every lookup), so two live blocks handed the
 * same memory, or a block reused while live, show up as a mismatch.  The
 * map is checked at each step (lookups of interior pointers give the
 * base and size), bad frees are mixed in, other threads' pointers are
 * looked up while they may be freed, and finally two threads race to free
 * the same pointers: exactly one free of each may succeed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "mem/mem_internal.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED); } } while (0)

#define DEV_MASK ((1u << TFL_MEM_DEVICE) | (1u << TFL_MEM_MANAGED))
#define HOST_MASK (1u << TFL_MEM_HOST_PINNED)

enum { THREADS = 4, OPS = 20000, SLOTS = 96 };

typedef struct { char *p; size_t n; uint64_t seed; tfl_mem_kind kind; } slot;

static char *published[THREADS * SLOTS]; /* read by other threads */

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

static inline uint64_t word(uint64_t seed, size_t i) { return seed ^ (i * 0x9E3779B97F4A7C15ull); }

static void fill(char *p, size_t n, uint64_t seed)
{
    size_t w = n / 8;
    uint64_t *q = (uint64_t *)p;
    for (size_t i = 0; i < w; i++)
        q[i] = word(seed, i);
    for (size_t i = w * 8; i < n; i++)
        p[i] = (char)(seed >> (i % 8 * 8));
}

/* Check words [from, to) and the tail. */
static int verify_part(const char *p, size_t n, uint64_t seed, size_t from, size_t to)
{
    size_t w = n / 8;
    const uint64_t *q = (const uint64_t *)p;
    if (to > w)
        to = w;
    for (size_t i = from; i < to; i++)
        if (q[i] != word(seed, i))
            return 0;
    for (size_t i = w * 8; i < n; i++)
        if (p[i] != (char)(seed >> (i % 8 * 8)))
            return 0;
    return 1;
}

static size_t pick_size(uint64_t *s)
{
    uint64_t r = xs(s) % 1000;
    if (r < 900)
        return xs(s) % 16384;                       /* many odd small ones */
    if (r < 975)
        return 16384 + xs(s) % (240 << 10);
    if (r < 995)
        return (256 << 10) + xs(s) % (3 << 20);     /* large, mmap'd */
    return (size_t)2 << 20;                         /* PyTorch segment */
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t s = 0x1234567ull * (uint64_t)(id + 1) + 99;
    slot sl[SLOTS];
    memset(sl, 0, sizeof sl);
    for (int op = 0; op < OPS; op++) {
        int k = (int)(xs(&s) % SLOTS);
        slot *e = &sl[k];
        unsigned r = (unsigned)(xs(&s) % 10);
        if (r < 5) {
            if (!e->p) {
                e->n = pick_size(&s);
                e->kind = xs(&s) % 10 == 0 ? TFL_MEM_HOST_PINNED : TFL_MEM_DEVICE;
                e->seed = xs(&s);
                void *p = NULL;
                CHECK(tfl_mem_alloc(e->n, e->kind, 0, 0, &p) == TFL_OK);
                CHECK(p && ((uintptr_t)p & 255) == 0);
                e->p = p;
                fill(e->p, e->n, e->seed);
                __atomic_store_n(&published[id * SLOTS + k], e->p, __ATOMIC_RELEASE);
            } else {
                unsigned mask = e->kind == TFL_MEM_HOST_PINNED ? HOST_MASK : DEV_MASK;
                CHECK(verify_part(e->p, e->n, e->seed, 0, SIZE_MAX));
                __atomic_store_n(&published[id * SLOTS + k], NULL, __ATOMIC_RELEASE);
                CHECK(tfl_mem_free(e->p, mask) == TFL_OK);
                /* (no second free here: another thread may already have
                 * been handed this block; the racing-free case covers it) */
                e->p = NULL;
            }
        } else if (r < 8) {
            if (!e->p)
                continue;
            tfl_alloc_info info;
            size_t off = e->n ? xs(&s) % e->n : 0;
            CHECK(tfl_mem_lookup(e->p + off, &info) == 1);
            CHECK(info.base == e->p && info.size == e->n && info.kind == e->kind);
            /* (n = 0 asks "is p inside": true at a zero-size block's base) */
            CHECK(tfl_mem_check_range(e->p, e->n, NULL) == 1);
            CHECK(tfl_mem_check_range(e->p, e->n + 1, NULL) == 0);
            CHECK(tfl_mem_check_range(e->p + off, e->n - off, NULL) == 1);
            size_t w = e->n / 8, from = w > 16 ? xs(&s) % (w - 16) : 0;
            CHECK(verify_part(e->p, e->n, e->seed, from, from + 16));
        } else if (r < 9) {
            /* another thread's pointer: it may be freed under us; a hit
             * must still describe an allocation that holds the pointer */
            char *q = __atomic_load_n(&published[xs(&s) % (THREADS * SLOTS)], __ATOMIC_ACQUIRE);
            tfl_alloc_info info;
            if (q && tfl_mem_lookup(q + 3, &info)) {
                uintptr_t b = (uintptr_t)info.base, a = (uintptr_t)q + 3;
                CHECK(a >= b && a - b < (info.size ? info.size : 1));
            }
        } else {
            if (!e->p)
                continue;
            unsigned wrong = e->kind == TFL_MEM_HOST_PINNED ? DEV_MASK : HOST_MASK;
            CHECK(tfl_mem_free(e->p, wrong) == TFL_ERR_INVALID);
            if (e->n > 8)
                CHECK(tfl_mem_free(e->p + 8, ~0u) == TFL_ERR_INVALID);
        }
    }
    for (int k = 0; k < SLOTS; k++)
        if (sl[k].p) {
            CHECK(verify_part(sl[k].p, sl[k].n, sl[k].seed, 0, SIZE_MAX));
            __atomic_store_n(&published[id * SLOTS + k], NULL, __ATOMIC_RELEASE);
            CHECK(tfl_mem_free(sl[k].p, sl[k].kind == TFL_MEM_HOST_PINNED ? HOST_MASK : DEV_MASK) == TFL_OK);
        }
    return NULL;
}

enum { RACE_N = 20000 };
static void *race_ptrs[RACE_N];
static int race_ok[2];

static void *racer(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < RACE_N; i++)
        if (tfl_mem_free(race_ptrs[i], DEV_MASK) == TFL_OK)
            race_ok[id]++;
    return NULL;
}

int main(void)
{
    tfl_mem_stats s0, s1;
    tfl_mem_get_stats(&s0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    tfl_mem_get_stats(&s1);
    CHECK(s1.live_count == s0.live_count);
    CHECK(s1.current == s0.current);
    CHECK(s1.host_current == s0.host_current);
    CHECK(s1.alloc_count - s0.alloc_count == s1.free_count - s0.free_count);
    CHECK(s1.alloc_count > s0.alloc_count);
    CHECK(tfl_addrmap_count() == 0);

    /* racing frees of the same pointers */
    for (int i = 0; i < RACE_N; i++)
        CHECK(tfl_mem_alloc((size_t)(i % 5000) + 1, TFL_MEM_DEVICE, 0, 0, &race_ptrs[i]) == TFL_OK);
    CHECK(tfl_addrmap_verify() >= 0);
    pthread_t r[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, racer, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    CHECK(race_ok[0] + race_ok[1] == RACE_N);

    tfl_mem_trim();
    tfl_mem_get_stats(&s1);
    CHECK(s1.live_count == 0 && s1.current == 0);
    CHECK(s1.cached == 0 && s1.reserved == 0);
    CHECK(tfl_addrmap_count() == 0);
    if (failures) {
        fprintf(stderr, "test_mem_stress: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_mem_stress: ok (%d threads x %d ops, %d racing frees)\n",
           THREADS, OPS, RACE_N);
    return 0;
}

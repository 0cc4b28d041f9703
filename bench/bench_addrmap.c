/*
 * bench_addrmap.c - cost of the address map at 10^3..10^5 live blocks.
 *
 * For each population: tfl_mem_lookup of random interior pointers (one
 * thread, then two at once: ns per lookup of wall time), and an alloc/free
 * pair at that population.  Each figure is the best of three runs.
 * Beside it, the same lookups and insert/remove in a sorted array searched
 * by binary search (the alternative docs/memory.md weighs), built here.
 *
 *   bench_addrmap [lookups]       (default 2000000)
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mem/mem.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

typedef struct { uintptr_t base; size_t size; } range;

static range *blocks;
static size_t nblocks, nlookups;
static volatile uintptr_t sink;

static void *lookup_worker(void *arg)
{
    uint64_t s = 0x51ed2701u + (uintptr_t)arg;
    tfl_alloc_info info;
    uintptr_t acc = 0;
    for (size_t i = 0; i < nlookups; i++) {
        const range *r = &blocks[xs(&s) % nblocks];
        if (!tfl_mem_lookup((void *)(r->base + xs(&s) % r->size), &info))
            abort();
        acc += (uintptr_t)info.base;
    }
    sink = acc;
    return NULL;
}

/* sorted array + binary search: the greatest base <= p */
static long sa_find(const range *a, size_t n, uintptr_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? (long)lo - 1 : -1;
}

static int cmp_range(const void *x, const void *y)
{
    uintptr_t a = ((const range *)x)->base, b = ((const range *)y)->base;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    nlookups = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000000;
    static const size_t pops[] = { 1000, 10000, 100000 };
    printf("bench_addrmap: %zu lookups per case\n", nlookups);
    printf("%8s %12s %14s %14s %12s %14s\n", "live", "lookup ns", "2-thr ns/op",
           "alloc+free ns", "array lookup", "array ins+rm");
    for (int pi = 0; pi < 3; pi++) {
        size_t n = pops[pi];
        uint64_t s = 42;
        blocks = malloc(n * sizeof *blocks);
        nblocks = n;
        for (size_t i = 0; i < n; i++) {
            size_t sz = 256 + xs(&s) % 8192;
            void *p;
            if (tfl_mem_alloc(sz, TFL_MEM_DEVICE, 0, 0, &p) != TFL_OK)
                return 1;
            blocks[i].base = (uintptr_t)p;
            blocks[i].size = sz;
        }

        /* each figure is the best of three runs: the machine is shared */
        double one = 1e300, two = 1e300, t0;
        for (int rep = 0; rep < 3; rep++) {
            t0 = now_ns();
            lookup_worker((void *)0);
            one = fmin(one, (now_ns() - t0) / (double)nlookups);
        }
        for (int rep = 0; rep < 3; rep++) {
            pthread_t th[2];
            t0 = now_ns();
            for (int i = 0; i < 2; i++)
                pthread_create(&th[i], NULL, lookup_worker, (void *)(intptr_t)(i + 1));
            for (int i = 0; i < 2; i++)
                pthread_join(th[i], NULL);
            two = fmin(two, (now_ns() - t0) / (double)(2 * nlookups));
        }

        /* alloc/free at this population: replace random blocks */
        size_t pairs = nlookups / 10;
        double af = 1e300;
        for (int rep = 0; rep < 3; rep++) {
            t0 = now_ns();
            for (size_t i = 0; i < pairs; i++) {
                range *r = &blocks[xs(&s) % n];
                tfl_mem_free((void *)r->base, 1u << TFL_MEM_DEVICE);
                void *p;
                if (tfl_mem_alloc(r->size, TFL_MEM_DEVICE, 0, 0, &p) != TFL_OK)
                    return 1;
                r->base = (uintptr_t)p;
            }
            af = fmin(af, (now_ns() - t0) / (double)pairs);
        }

        /* the sorted-array alternative over the same ranges */
        range *a = malloc(n * sizeof *a);
        memcpy(a, blocks, n * sizeof *a);
        qsort(a, n, sizeof *a, cmp_range);
        uintptr_t acc = 0;
        double sa_look = 1e300;
        for (int rep = 0; rep < 3; rep++) {
            t0 = now_ns();
            for (size_t i = 0; i < nlookups; i++) {
                const range *r = &blocks[xs(&s) % n];
                long k = sa_find(a, n, r->base + xs(&s) % r->size);
                acc += a[k].base;
            }
            sa_look = fmin(sa_look, (now_ns() - t0) / (double)nlookups);
        }
        sink = acc;
        size_t moves = pairs / 10 ? pairs / 10 : 1;
        t0 = now_ns();
        for (size_t i = 0; i < moves; i++) {
            long k = (long)(xs(&s) % n);
            range keep = a[k];
            memmove(&a[k], &a[k + 1], (n - (size_t)k - 1) * sizeof *a); /* remove */
            long at = sa_find(a, n - 1, keep.base) + 1;                  /* insert */
            memmove(&a[at + 1], &a[at], (n - 1 - (size_t)at) * sizeof *a);
            a[at] = keep;
        }
        double sa_mod = (now_ns() - t0) / (double)moves;
        free(a);

        printf("%8zu %12.1f %14.1f %14.1f %12.1f %14.1f\n", n, one, two, af, sa_look, sa_mod);
        for (size_t i = 0; i < n; i++)
            tfl_mem_free((void *)blocks[i].base, 1u << TFL_MEM_DEVICE);
        free(blocks);
        tfl_mem_trim();
    }
    return 0;
}

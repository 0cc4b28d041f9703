/*
 * bench_pool.c - allocate/free latency of the pool against glibc malloc.
 *
 * A PyTorch-like size mix (mostly 512 B .. 1 MiB rounded to 512, some
 * 2 MiB and 20 MiB segments, a few large blocks rounded to 2 MiB) drives a
 * working set of live blocks: each step frees the block in a random slot
 * and allocates a new one there.  The same step sequence runs through
 * tfl_mem_alloc/tfl_mem_free and through malloc/free; a warm-up pass comes
 * first so both report their steady state (best of three passes).  A
 * second mix of small blocks only shows the common path alone.  Memory is not touched: this
 * measures the allocator, not page faults.
 *
 *   bench_pool [steps] [working-set] [pool|malloc]
 *   (defaults 1000000, 512, both; one side only is for profiling)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mem/mem.h"

#define MiB ((size_t)1 << 20)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static size_t pick_small(void)
{
    return (512 + next() % (64 << 10) + 511) & ~(size_t)511;
}

static size_t pick_size(void)
{
    uint64_t r = next() % 1000;
    if (r < 975) {                                /* 512 B .. 1 MiB, /512 */
        /* skewed towards small tensors, as real programs are */
        size_t max = (next() & 3) ? (64 << 10) : MiB;
        size_t s = 512 + next() % max;
        return (s + 511) & ~(size_t)511;
    }
    if (r < 985)
        return 2 * MiB;
    if (r < 995)
        return 20 * MiB;
    return (size_t)(24 + next() % 100) * 2 * MiB; /* 48 .. 246 MiB */
}

typedef struct { size_t *size; unsigned *slot; size_t n; } plan;

static double run_pool(const plan *pl, void **live, size_t w)
{
    double t0 = now_ns();
    for (size_t i = 0; i < pl->n; i++) {
        void **s = &live[pl->slot[i]];
        if (*s && tfl_mem_free(*s, 1u << TFL_MEM_DEVICE) != TFL_OK)
            abort();
        if (tfl_mem_alloc(pl->size[i], TFL_MEM_DEVICE, 0, 0, s) != TFL_OK)
            abort();
    }
    double t = now_ns() - t0;
    (void)w;
    return t / (double)pl->n;
}

static double run_malloc(const plan *pl, void **live, size_t w)
{
    double t0 = now_ns();
    for (size_t i = 0; i < pl->n; i++) {
        void **s = &live[pl->slot[i]];
        free(*s);
        *s = malloc(pl->size[i]);
        if (!*s)
            abort();
    }
    double t = now_ns() - t0;
    (void)w;
    return t / (double)pl->n;
}

static void bench_mix(const char *name, size_t (*pick)(void), size_t steps,
                      size_t w, const char *only)
{
    plan pl = { malloc(steps * sizeof(size_t)), malloc(steps * sizeof(unsigned)), steps };
    void **live = calloc(w, sizeof(void *));
    if (!pl.size || !pl.slot || !live)
        exit(1);
    for (size_t i = 0; i < steps; i++) {
        pl.size[i] = pick();
        pl.slot[i] = (unsigned)(next() % w);
    }

    /* a warm-up pass, then the best of three measured passes (the machine
     * is shared; the minimum is the least disturbed); blocks stay live
     * from one pass to the next */
    double pool_ns = 0, malloc_ns = 0;
    tfl_mem_reset_peak();
    if (strcmp(only, "malloc") != 0) {
        run_pool(&pl, live, w);
        pool_ns = run_pool(&pl, live, w);
        for (int r = 0; r < 2; r++) {
            double t = run_pool(&pl, live, w);
            pool_ns = t < pool_ns ? t : pool_ns;
        }
    }
    for (size_t i = 0; i < w; i++)
        if (live[i])
            tfl_mem_free(live[i], 1u << TFL_MEM_DEVICE);
    tfl_mem_stats st;
    tfl_mem_get_stats(&st);
    tfl_mem_trim();
    for (size_t i = 0; i < w; i++)
        live[i] = NULL;
    if (strcmp(only, "pool") != 0) {
        run_malloc(&pl, live, w);
        malloc_ns = run_malloc(&pl, live, w);
        for (int r = 0; r < 2; r++) {
            double t = run_malloc(&pl, live, w);
            malloc_ns = t < malloc_ns ? t : malloc_ns;
        }
    }
    for (size_t i = 0; i < w; i++)
        free(live[i]);

    printf("%s: %zu alloc/free pairs, working set %zu blocks\n", name, steps, w);
    printf("  torchfl pool : %8.1f ns per pair\n", pool_ns);
    printf("  glibc malloc : %8.1f ns per pair\n", malloc_ns);
    if (pool_ns > 0 && malloc_ns > 0)
        printf("  ratio pool/malloc: %.2f\n", pool_ns / malloc_ns);
    printf("  pool at the end: peak %.1f MiB live, %.1f MiB cached, %.1f MiB reserved\n",
           (double)st.peak / MiB, (double)st.cached / MiB, (double)st.reserved / MiB);
    free(pl.size);
    free(pl.slot);
    free(live);
}

int main(int argc, char **argv)
{
    size_t steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
    size_t w = argc > 2 ? strtoul(argv[2], NULL, 0) : 512;
    const char *only = argc > 3 ? argv[3] : "";
    if (steps == 0 || w == 0 || w > UINT32_MAX)
        return 2;
    bench_mix("PyTorch-like mix", pick_size, steps, w, only);
    bench_mix("small only (512 B..64 KiB)", pick_small, steps, w, only);
    return 0;
}

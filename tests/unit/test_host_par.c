/*
 * test_host_par.c - the host ops' worker pool: every part runs exactly
 * once, the caller returns only when all are done, and callers from
 * several threads at once (the pool busy) still get all their parts run;
 * host_parallel_for covers its range exactly once in aligned pieces.
 */
#include "backends/host/host_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define PARTS 64

typedef struct { atomic_int hits[PARTS]; atomic_long sum; } counts;

static void part(void *ctx, int p)
{
    counts *c = ctx;
    atomic_fetch_add(&c->hits[p], 1);
    long s = 0;
    for (int i = 0; i < 20000; i++)   /* some work, so parts overlap */
        s += (i ^ p) & 7;
    atomic_fetch_add(&c->sum, s);
}

static int check(counts *c, int parts)
{
    for (int p = 0; p < PARTS; p++)
        if (atomic_load(&c->hits[p]) != (p < parts ? 1 : 0)) {
            fprintf(stderr, "part %d ran %d times\n", p, atomic_load(&c->hits[p]));
            return 1;
        }
    return 0;
}

#define ITEMS 1000

typedef struct { atomic_int hits[ITEMS]; atomic_int ranges; int64_t align, total; atomic_int bad; } ranges;

static void range(void *ctx, int64_t lo, int64_t hi)
{
    ranges *r = ctx;
    atomic_fetch_add(&r->ranges, 1);
    /* every range but the last starts and ends on a multiple of align */
    if (lo < 0 || hi > r->total || lo >= hi || lo % r->align || (hi != r->total && hi % r->align))
        atomic_fetch_add(&r->bad, 1);
    for (int64_t i = lo; i < hi && i < ITEMS; i++)
        atomic_fetch_add(&r->hits[i], 1);
}

static int check_for(int64_t total, int64_t align, int64_t work)
{
    static ranges r;
    memset(&r, 0, sizeof r);
    r.align = align;
    r.total = total;
    host_parallel_for(total, align, work, range, &r);
    int fails = atomic_load(&r.bad) != 0;
    for (int64_t i = 0; i < ITEMS; i++)
        fails += atomic_load(&r.hits[i]) != (i < total ? 1 : 0);
    int n = atomic_load(&r.ranges);
    if (total == 0)
        fails += n != 0;
    else if (total * work < HOST_PAR_MIN_WORK)
        fails += n != 1;                       /* small work stays serial */
    else
        fails += n < 1 || n > host_par_threads();
    if (fails)
        fprintf(stderr, "host_parallel_for(%lld, %lld, %lld): wrong cover\n",
                (long long)total, (long long)align, (long long)work);
    return fails;
}

static void *caller(void *arg)
{
    long fails = 0;
    for (int round = 0; round < 200; round++) {
        counts c;
        memset(&c, 0, sizeof c);
        int parts = 1 + (round + (int)(long)arg) % PARTS;
        host_parallel(parts, part, &c);
        fails += check(&c, parts);
    }
    return (void *)fails;
}

int main(void)
{
    int fails = 0;
    if (host_par_threads() < 1)
        fails++;
    for (int parts = 0; parts <= PARTS; parts += 7) {
        counts c;
        memset(&c, 0, sizeof c);
        host_parallel(parts, part, &c);
        fails += check(&c, parts);
    }
    fails += check_for(0, 1, 1 << 20);
    fails += check_for(1, 16, 1 << 20);
    fails += check_for(37, 1, 10);            /* serial */
    fails += check_for(1000, 1, 64);
    fails += check_for(1000, 16, 64);
    fails += check_for(999, 16, 1 << 20);
    fails += check_for(17, 16, 1 << 20);
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, caller, (void *)i);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        fails += (int)(long)r;
    }
    if (fails) {
        fprintf(stderr, "%d failure(s)\n", fails);
        return 1;
    }
    printf("ok (%d threads)\n", host_par_threads());
    return 0;
}

/*
 * test_host_par.c - the host ops' worker pool: every part runs exactly
 * once, the caller returns only when all are done, and callers from
 * several threads at once (the pool busy) still get all their parts run.
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

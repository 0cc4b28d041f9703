/*
 * host_par.c - the host ops' worker pool (see host_par.h).
 *
 * One job at a time.  The caller publishes a job (on its stack) under the
 * mutex; a worker that wakes registers as a user of that job under the
 * same mutex, takes parts with the job's atomic counter and deregisters
 * when none are left.  The caller works too, then waits until every part
 * is done and no worker still holds the job, so the job never outlives
 * its stack frame while in use.
 */
#include "backends/host/host_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_WORKERS 15

typedef struct job {
    void (*fn)(void *, int);
    void *ctx;
    int parts;
    atomic_int next;
    int done, users;          /* guarded by lock */
} job;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;  /* one job at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static int nworkers;
static job *current;          /* guarded by lock */

/* Take parts until none are left; returns how many this thread ran. */
static int work(job *j)
{
    int p, ran = 0;
    while ((p = atomic_fetch_add(&j->next, 1)) < j->parts) {
        j->fn(j->ctx, p);
        ran++;
    }
    return ran;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!current || atomic_load(&current->next) >= current->parts)
            pthread_cond_wait(&wake, &lock);
        job *j = current;
        j->users++;
        pthread_mutex_unlock(&lock);
        int ran = work(j);
        pthread_mutex_lock(&lock);
        j->done += ran;
        j->users--;
        pthread_cond_broadcast(&idle);
    }
    return NULL;
}

static void start(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;
    const char *env = getenv("TORCHFL_HOST_THREADS");
    if (env && *env)
        n = atoi(env) - 1;
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    for (long i = 0; i < n; i++) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, worker, NULL) == 0)
            nworkers++;
        pthread_attr_destroy(&a);
    }
}

int host_par_threads(void)
{
    pthread_once(&once, start);
    return nworkers + 1;
}

void host_parallel(int parts, void (*fn)(void *ctx, int part), void *ctx)
{
    if (parts <= 1 || host_par_threads() == 1 || pthread_mutex_trylock(&busy) != 0) {
        for (int p = 0; p < parts; p++)
            fn(ctx, p);
        return;
    }
    job j = { .fn = fn, .ctx = ctx, .parts = parts };
    atomic_init(&j.next, 0);
    pthread_mutex_lock(&lock);
    current = &j;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    int ran = work(&j);
    pthread_mutex_lock(&lock);
    j.done += ran;
    while (j.done < parts || j.users > 0)
        pthread_cond_wait(&idle, &lock);
    current = NULL;
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&busy);
}

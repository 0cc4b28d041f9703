/*
 * host_par.c - the host ops' worker pool (see host_par.h).
 *
 * One job at a time.  The caller publishes a job (on its stack) under the
 * mutex; a worker that wakes registers as a user of that job under the
 * same mutex, takes parts with the job's atomic counter and deregisters
 * when none are left.  The caller works too, then waits until every part
 * is done and no worker still holds the job, so the job never outlives
 * its stack frame while in use.
 *
 * An idle worker polls for the next job for a short while (SPIN_US,
 * TORCHFL_HOST_SPIN_US) before it sleeps on the condition variable: a
 * training step issues its ops tens of microseconds apart, and waking a
 * sleeping thread costs about as much as a small op.  OpenMP runtimes
 * (PyTorch's CPU ops) do the same; the spin ends soon when work stops.
 */
#include "backends/host/host_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define MAX_WORKERS 15
#define SPIN_US 200

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
static long spin_ns;
static job *current;          /* guarded by lock */
static atomic_uint published; /* counts jobs published: spinners watch it */

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

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Called with lock held and no job to take: poll without the lock until
 * a job is published or the spin time is over, then take the lock again.
 * Returns 1 if something was published. */
static int spin_for_job(unsigned seen)
{
    pthread_mutex_unlock(&lock);
    long end = now_ns() + spin_ns;
    int got = 0;
    for (int i = 1; !got; i++) {
        CPU_RELAX();
        got = atomic_load_explicit(&published, memory_order_acquire) != seen;
        if (!got && (i & 63) == 0 && now_ns() >= end)
            break;
    }
    pthread_mutex_lock(&lock);
    return got;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!current || atomic_load(&current->next) >= current->parts) {
            unsigned seen = atomic_load(&published);
            if (spin_ns > 0 && spin_for_job(seen))
                continue;
            /* published is only bumped under lock, so a job published
             * after our check is seen here or its broadcast wakes us */
            if (atomic_load(&published) == seen)
                pthread_cond_wait(&wake, &lock);
        }
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
    const char *spin = getenv("TORCHFL_HOST_SPIN_US");
    spin_ns = 1000L * (spin && *spin ? atol(spin) : SPIN_US);
    if (spin_ns < 0)
        spin_ns = 0;
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
    atomic_fetch_add_explicit(&published, 1, memory_order_release);
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

typedef struct range_job {
    void (*fn)(void *, int64_t, int64_t);
    void *ctx;
    int64_t total, chunk;
} range_job;

static void range_part(void *ctx, int part)
{
    const range_job *r = ctx;
    int64_t lo = part * r->chunk;
    int64_t hi = lo + r->chunk < r->total ? lo + r->chunk : r->total;
    if (lo < hi)
        r->fn(r->ctx, lo, hi);
}

void host_parallel_for(int64_t total, int64_t align, int64_t work_per_item,
                       void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (total <= 0)
        return;
    if (align < 1)
        align = 1;
    int threads = total * work_per_item >= HOST_PAR_MIN_WORK ? host_par_threads() : 1;
    int64_t blocks = (total + align - 1) / align;
    int64_t parts = threads < blocks ? threads : blocks;
    range_job r = { .fn = fn, .ctx = ctx, .total = total };
    r.chunk = ((blocks + parts - 1) / parts) * align;
    host_parallel((int)((total + r.chunk - 1) / r.chunk), range_part, &r);
}

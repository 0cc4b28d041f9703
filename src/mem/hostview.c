/*
 * hostview.c - host views of device memory the host cannot address.
 *
 * A backend with its own memory (OpenCL, a vendor's chip) hands out
 * addresses in PROT_NONE reservations (torchfl/backend.h).  Some work
 * still has to run on the host over such memory: an op the backend lacks
 * (the fallback), a kernel run from PTX by the host executor, a decoder
 * reading a device-side table.  Their footprint is not always known in
 * advance (a PTX kernel computes its addresses), so views are made on
 * demand, by the page fault the first access takes:
 *
 *   route opens a window (tfl_hostview_open) around such work; a fault on
 *   device memory inside a window maps host pages at the faulting address
 *   (MAP_FIXED over the reservation, a chunk of up to CHUNK bytes clipped
 *   to the allocation), fills them from the device and keeps a pristine
 *   copy; when the last window closes, the bytes that differ from the
 *   pristine copy are written back (exactly those bytes, in runs) and the
 *   pages become PROT_NONE again, so nothing stale can be read later.
 *   Before route issues device work (a native op, a copy), it flushes
 *   the same way (tfl_hostview_flush), so the device never reads bytes
 *   the host changed but had not stored yet; a later host access simply
 *   faults again and fetches the current bytes.
 *
 * Managed memory (cudaMallocManaged) is served the same way outside
 * windows too: the host may use it whenever it likes.
 *
 * The first fault of a window waits for the device (sync), so the host
 * sees every write issued before the window.  A fault outside any window,
 * or on an address that is no device memory, is not ours: it goes to the
 * handler that was installed before (Python's faulthandler, or the default
 * action), after one log line when it hit device memory, so a stray host
 * access to device memory crashes loudly instead of reading stale data.
 *
 * The handler runs on the faulting thread, in the middle of torchfl's own
 * host code (never inside the pool or the backend), so the locks and the
 * backend copy it calls cannot be held by that thread already.  Its
 * bookkeeping lives in fixed tables made by mmap at configure time: no
 * malloc in the handler.
 */
#define _GNU_SOURCE
#include "mem/mem.h"
#include "mem/hostview.h"
#include "common/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK ((size_t)256 << 10)   /* bytes brought in per fault, at most */
#define MAX_RUNS 65536
#define GAP 64                      /* unchanged bytes that still join two
                                     * written runs into one store       */

typedef struct run {
    uintptr_t start;
    size_t len;
    unsigned char *pristine;        /* what the device held when fetched */
} run;

static tfl_hostview_ops g_ops;
static int g_configured;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_open;           /* windows open, all threads          */
static run *g_runs;                 /* mapped runs, in fault order        */
static size_t g_nruns;
static int g_synced;                /* the device was synced this epoch   */
static size_t g_page;
static struct sigaction g_prev;     /* the handler we chain to            */
static atomic_ullong g_faults, g_fetched, g_stored;
static atomic_int g_mapped;         /* any run mapped: flush has work     */

static int is_device_kind(tfl_mem_kind k)
{
    return k == TFL_MEM_DEVICE || k == TFL_MEM_MANAGED;
}

/* Is the page at p already mapped by a run? (runs are few per window) */
static int page_mapped(uintptr_t p)
{
    for (size_t i = 0; i < g_nruns; i++)
        if (p >= g_runs[i].start && p < g_runs[i].start + g_runs[i].len)
            return 1;
    return 0;
}

/* Map and fill [start, start+len): one run.  0 on success. */
static int map_run(uintptr_t start, size_t len)
{
    if (g_nruns == MAX_RUNS)
        return -1;
    unsigned char *pr = mmap(NULL, len, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pr == MAP_FAILED)
        return -1;
    if (g_ops.fetch((void *)pr, (const void *)start, len) != TFL_OK) {
        munmap(pr, len);
        return -1;
    }
    /* Fill the pages elsewhere and move them into place in one step: the
     * host op's other threads may touch them the moment they are mapped,
     * and must never see them before they hold the device's bytes. */
    void *st = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (st == MAP_FAILED) {
        munmap(pr, len);
        return -1;
    }
    memcpy(st, pr, len);
    if (mremap(st, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)start) == MAP_FAILED) {
        munmap(st, len);
        munmap(pr, len);
        return -1;
    }
    g_runs[g_nruns++] = (run){ start, len, pr };
    atomic_store(&g_mapped, 1);
    atomic_fetch_add(&g_fetched, len);
    return 0;
}

/* Serve a fault at a inside device allocation info: 0 when served. */
static int serve(uintptr_t a, const tfl_alloc_info *info)
{
    uintptr_t lo = (uintptr_t)info->base & ~(g_page - 1);
    uintptr_t hi = ((uintptr_t)info->base + info->size + g_page - 1) & ~(g_page - 1);
    uintptr_t c0 = a & ~(CHUNK - 1), c1 = c0 + CHUNK;
    if (c0 < lo) c0 = lo;
    if (c1 > hi) c1 = hi;
    if (!g_synced) {
        /* a device in error (a sticky fault) still holds its bytes: the
         * fault is route's to report, and the host code must not crash */
        if (g_ops.sync)
            g_ops.sync();
        g_synced = 1;
    }
    /* map the chunk's unmapped pages, a run per gap between mapped ones */
    uintptr_t p = c0;
    while (p < c1) {
        if (page_mapped(p)) {
            p += g_page;
            continue;
        }
        uintptr_t q = p + g_page;
        while (q < c1 && !page_mapped(q))
            q += g_page;
        if (map_run(p, q - p) != 0)
            return -1;
        p = q;
    }
    atomic_fetch_add(&g_faults, 1);
    return 0;
}

static void chain(int sig, siginfo_t *si, void *uc)
{
    if (g_prev.sa_flags & SA_SIGINFO) {
        if (g_prev.sa_sigaction) {
            g_prev.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
        g_prev.sa_handler(sig);
        return;
    }
    /* default action: return and let the access fault again, unhandled */
    signal(sig, SIG_DFL);
}

static void handler(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    tfl_alloc_info info;
    int dev = si->si_code > 0 && tfl_mem_lookup((void *)a, &info) &&
              is_device_kind(info.kind);
    /* managed memory is the host's too: the program may touch it any time
     * (after a sync, as CUDA requires); its pages stay until the next
     * flush, as pages migrate back to a GPU when a kernel runs */
    if (dev && (atomic_load(&g_open) > 0 || info.kind == TFL_MEM_MANAGED)) {
        pthread_mutex_lock(&g_lock);
        int ok = page_mapped(a & ~(g_page - 1)) || serve(a, &info) == 0;
        pthread_mutex_unlock(&g_lock);
        if (ok)
            return;   /* the access runs again, now on host pages */
        tfl_error("hostview: could not bring device memory at %p to the host", (void *)a);
    } else if (dev) {
        tfl_error("host access to device memory at %p (allocation %p, %zu bytes) outside "
                  "torchfl: device memory of this backend is not host memory",
                  (void *)a, info.base, info.size);
    }
    chain(sig, si, uc);
}

static void install(void)
{
    struct sigaction cur;
    if (sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == handler)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_prev);
}

void tfl_hostview_configure(const tfl_hostview_ops *ops)
{
    pthread_mutex_lock(&g_lock);
    if (!g_configured && ops && ops->fetch && ops->store) {
        g_page = (size_t)sysconf(_SC_PAGESIZE);
        g_runs = mmap(NULL, MAX_RUNS * sizeof *g_runs, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (g_runs != MAP_FAILED) {
            g_ops = *ops;
            g_configured = 1;
            install();
        }
    }
    pthread_mutex_unlock(&g_lock);
}

void tfl_hostview_open(void)
{
    if (!g_configured)
        return;
    pthread_mutex_lock(&g_lock);
    /* a handler installed after ours (faulthandler) would see our faults
     * first: put ours back in front, chaining to it */
    install();
    atomic_fetch_add(&g_open, 1);
    pthread_mutex_unlock(&g_lock);
}

/* Store the bytes of r that the host changed; TFL_OK or the store's error. */
static tfl_status write_back(const run *r)
{
    const unsigned char *now = (const unsigned char *)r->start;
    size_t i = 0;
    tfl_status st = TFL_OK;
    while (i < r->len) {
        if (now[i] == r->pristine[i]) {
            i++;
            continue;
        }
        size_t j = i + 1, same = 0;
        while (j < r->len && same <= GAP) {
            same = now[j] == r->pristine[j] ? same + 1 : 0;
            j++;
        }
        size_t end = j - same;
        tfl_status e = g_ops.store((void *)(r->start + i), now + i, end - i);
        atomic_fetch_add(&g_stored, end - i);
        if (st == TFL_OK)
            st = e;
        i = j;
    }
    return st;
}

/* Write back and unmap every run.  Caller holds g_lock. */
static tfl_status drain_locked(void)
{
    tfl_status st = TFL_OK;
    for (size_t i = 0; i < g_nruns; i++) {
        run *r = &g_runs[i];
        tfl_status e = write_back(r);
        if (st == TFL_OK)
            st = e;
        mmap((void *)r->start, r->len, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
        munmap(r->pristine, r->len);
    }
    atomic_store(&g_mapped, 0);
    g_nruns = 0;
    g_synced = 0;
    if (st != TFL_OK)
        tfl_error("hostview: writing host results back to the device failed (status %d)",
                  (int)st);
    return st;
}

tfl_status tfl_hostview_close(void)
{
    if (!g_configured)
        return TFL_OK;
    tfl_status st = TFL_OK;
    pthread_mutex_lock(&g_lock);
    if (atomic_fetch_sub(&g_open, 1) == 1)
        st = drain_locked();
    pthread_mutex_unlock(&g_lock);
    return st;
}

tfl_status tfl_hostview_flush(void)
{
    if (!g_configured || !atomic_load(&g_mapped))
        return TFL_OK;
    pthread_mutex_lock(&g_lock);
    tfl_status st = drain_locked();
    pthread_mutex_unlock(&g_lock);
    return st;
}

void tfl_hostview_stats(uint64_t *faults, uint64_t *fetched, uint64_t *stored)
{
    if (faults) *faults = atomic_load(&g_faults);
    if (fetched) *fetched = atomic_load(&g_fetched);
    if (stored) *stored = atomic_load(&g_stored);
}

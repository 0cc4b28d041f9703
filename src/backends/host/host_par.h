/*
 * host_par.h - split a host op's work over the CPU's cores.
 *
 * A small persistent pool (CPU count - 1 workers, created on first use)
 * for the native ops: PyTorch runs its CPU ops on every core, so a
 * single-threaded host op loses to it on anything but memory-bound work.
 */
#ifndef TFL_HOST_PAR_H
#define TFL_HOST_PAR_H

#include <stdint.h>

/* Run fn(ctx, part) for every part in [0, parts), on the calling thread
 * and the workers; returns when all are done.  Calls that arrive while
 * the pool is busy (another thread's op) run serially on their caller. */
void host_parallel(int parts, void (*fn)(void *ctx, int part), void *ctx);
/* How many threads host_parallel uses (1 = serial). */
int host_par_threads(void);

/* Below this many element operations a split costs more than it saves. */
#define HOST_PAR_MIN_WORK (1 << 15)

/* fn(ctx, lo, hi) over [0, total) cut into at most one contiguous range
 * per thread, each a multiple of align long (but the last); one range on
 * the caller when total * work_per_item < HOST_PAR_MIN_WORK.  For work
 * whose items are independent (rows, columns), so the cut does not
 * change any result. */
void host_parallel_for(int64_t total, int64_t align, int64_t work_per_item,
                       void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);

#endif

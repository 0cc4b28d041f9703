/*
 * host_par.h - split a host op's work over the CPU's cores.
 *
 * A small persistent pool (CPU count - 1 workers, created on first use)
 * for the native ops: PyTorch runs its CPU ops on every core, so a
 * single-threaded host op loses to it on anything but memory-bound work.
 */
#ifndef TFL_HOST_PAR_H
#define TFL_HOST_PAR_H

/* Run fn(ctx, part) for every part in [0, parts), on the calling thread
 * and the workers; returns when all are done.  Calls that arrive while
 * the pool is busy (another thread's op) run serially on their caller. */
void host_parallel(int parts, void (*fn)(void *ctx, int part), void *ctx);
/* How many threads host_parallel uses (1 = serial). */
int host_par_threads(void);

#endif

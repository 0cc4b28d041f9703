/*
 * coll_gloo.h - the host backend's collective engine: NCCL's collectives
 * over Gloo (Gloo's own algorithms and its TCP transport), behind the
 * tfl_backend collective slots (comm_create, comm_destroy, comm_abort,
 * coll_run; include/torchfl/backend.h is the contract).
 *
 * One tfl_comm is one rank: a Gloo TCP device (its own event-loop thread)
 * listening on store->local_addr and a context fully connected to the
 * other ranks through the store.  One thread at a time uses a comm;
 * several comms (ranks) may run at once from several threads.
 *
 * Kinds and the Gloo algorithm each runs (per-comm tag counter):
 *   ALLREDUCE       gloo::allreduce, in place on recv: bcube below
 *                   256 KB, ring above
 *   BROADCAST       gloo::broadcast (binomial tree)
 *   REDUCE          gloo::reduce (ring reduce-scatter, then to the root)
 *   ALLGATHER       gloo::allgather (ring)
 *   REDUCE_SCATTER  gloo::alltoall (pairwise) of the input, then the n
 *                   blocks that arrive reduced locally: (n-1)/n of the
 *                   input moves per rank, as in a ring reduce-scatter
 *                   (Gloo 0.5's own reduce-scatter is an old-style
 *                   bound-buffer algorithm that does not fit a per-call
 *                   use; see coll_gloo.cc)
 *   ALLTOALL        gloo::alltoall (pairwise)
 *   SEND / RECV     unbound buffers: every send and receive of the call
 *                   is posted first and waited for last, so grouped
 *                   point-to-point never deadlocks whatever the order
 *   BARRIER         gloo::barrier (dissemination)
 *
 * Failures: a peer that dies makes the call fail with TFL_ERR_DEVICE (its
 * sockets close; the pairs signal every pending operation), a peer that
 * hangs makes it fail within the timeout; either way the comm is then
 * closed to every peer (so they fail promptly too) and every later call
 * fails.  hcoll_comm_abort may be called from any thread while
 * hcoll_coll_run blocks: it closes the comm's connections the way Gloo's
 * own timeout path does, which wakes the blocked call.  SIGPIPE (Gloo
 * writes with writev) is kept blocked on the threads that write - the
 * caller's during each call, Gloo's loop thread always - so a dead peer
 * is an error, not a signal; the process's disposition is not changed.
 *
 * comm_create: the rendezvous (every rank's address through the store)
 * is bounded by timeout_ms as a whole; connecting to an address already
 * published is bounded by Gloo at 5 x timeout_ms (a peer that dies in
 * that window).  Errors: TFL_ERR_INVALID for arguments (and an address
 * Gloo cannot bind), TFL_ERR_DEVICE for timeouts and connection failures.
 */
#ifndef TFL_HOST_COLL_GLOO_H
#define TFL_HOST_COLL_GLOO_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* timeout_ms <= 0: no timeout (30 days). */
tfl_status hcoll_comm_create(int dev, int nranks, int rank, const tfl_coll_store *store,
                             int64_t timeout_ms, tfl_comm *out, char *err, size_t errlen);
tfl_status hcoll_comm_destroy(tfl_comm c);
tfl_status hcoll_comm_abort(tfl_comm c);
/* TFL_ERR_DEVICE and the first failure once the comm failed (a background
 * send included), else TFL_OK. */
tfl_status hcoll_comm_error(tfl_comm c, char *err, size_t errlen);
tfl_status hcoll_coll_run(tfl_comm c, const tfl_coll_op *ops, int n, tfl_stream s, char *err,
                          size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

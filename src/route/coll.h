/*
 * coll.h - communicators and collectives (what the NCCL entry points hand
 * to route), and NCCL's bootstrap: unique ids and the key-value store the
 * ranks of a group meet at.
 *
 * A communicator is one rank of a group on one device.  Its collectives
 * run on the backend's engine (tfl_backend.comm_create/coll_run: Gloo in
 * the host backend); a backend without one has its operands staged
 * through host memory and run by the host backend's engine.  Execution is
 * synchronous in issue order, like everything else on the host backend, so
 * a collective is ordered on its stream by running when it is issued.
 * Calls between tfl_coll_group_start and _end are queued and run at the
 * end, each communicator's share on its own thread when a group spans
 * several (one thread driving several devices: ncclCommInitAll).
 */
#ifndef TFL_ROUTE_COLL_H
#define TFL_ROUTE_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"
#include "route/runtime.h"

#define TFL_COLL_ID_BYTES 128

typedef struct tfl_rt_comm tfl_rt_comm;

/* ------------------------------------------------------------ bootstrap */

/* A new unique id: starts this process's bootstrap server (a key-value
 * store the ranks meet at) and writes its address into id - or, with
 * NCCL_COMM_ID=host:port, that address (the server then starts in the
 * rank 0 process of the communicator made from it). */
tfl_status tfl_coll_unique_id(unsigned char id[TFL_COLL_ID_BYTES], char *err, size_t errlen);

/* ------------------------------------------------------- communicators */

/* Create rank `rank` of `nranks` on device dev from the id(s) every rank
 * was given.  Blocks until all ranks joined (nccl.timeout), unless called
 * inside a group: then *out is valid at once and the work happens at
 * tfl_coll_group_end. */
tfl_status tfl_coll_comm_init(const unsigned char *id, int nranks, int rank, int dev,
                              tfl_rt_comm **out, char *err, size_t errlen);
/* ndev ranks in this process, one per device in devs (or 0..ndev-1). */
tfl_status tfl_coll_comm_init_all(int ndev, const int *devs, tfl_rt_comm **out, char *err,
                                  size_t errlen);
/* NCCL's split: every rank of parent calls it; ranks with the same color
 * form a new communicator ordered by (key, parent rank); color < 0 (NCCL's
 * NCCL_SPLIT_NOCOLOR) gets *out = NULL.  Inside a group *out is written
 * when the group ends.  Shrink: the ranks listed take no part and the
 * others form one communicator in parent order. */
tfl_status tfl_coll_comm_split(tfl_rt_comm *parent, int color, int key, tfl_rt_comm **out,
                               char *err, size_t errlen);
tfl_status tfl_coll_comm_shrink(tfl_rt_comm *parent, const int *exclude, int nexclude,
                                tfl_rt_comm **out, char *err, size_t errlen);
tfl_status tfl_coll_comm_destroy(tfl_rt_comm *c);
/* Make every pending and later call on c fail; safe from any thread. */
tfl_status tfl_coll_comm_abort(tfl_rt_comm *c);
int tfl_coll_comm_valid(const tfl_rt_comm *c);
int tfl_coll_comm_rank(const tfl_rt_comm *c);
int tfl_coll_comm_count(const tfl_rt_comm *c);
int tfl_coll_comm_device(const tfl_rt_comm *c);
/* The first failure a collective on c met (TFL_OK if none), and its text. */
tfl_status tfl_coll_comm_error(const tfl_rt_comm *c, char *msg, size_t len);

/* --------------------------------------------------------- collectives */

/* Run op on c, ordered on stream s (or queue it in the open group). */
/* The bytes op reads at send and writes at recv on rank `rank` of nranks
 * (NCCL's semantics per kind; the table is in coll.c).  SIZE_MAX when the
 * size does not fit.  What the entry points check and staging copies. */
void tfl_coll_extents(const tfl_coll_op *o, int nranks, int rank, size_t *send_bytes,
                      size_t *recv_bytes);

tfl_status tfl_coll_run(tfl_rt_comm *c, const tfl_coll_op *op, tfl_rt_stream *s, char *err,
                        size_t errlen);
tfl_status tfl_coll_group_start(void);
/* Run what the group queued; err names the first failure. */
tfl_status tfl_coll_group_end(char *err, size_t errlen);
int tfl_coll_group_depth(void);

/* NCCL_DEBUG=INFO|WARN|TRACE: "host:pid:tid [dev] NCCL INFO ..." lines. */
enum { TFL_NCCL_LOG_WARN = 1, TFL_NCCL_LOG_INFO = 2, TFL_NCCL_LOG_TRACE = 3 };
void tfl_nccl_log(int level, int dev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

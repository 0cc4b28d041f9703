/*
 * nccl.c - the NCCL API (libnccl.so.2) over route's communicators
 * (src/route/coll.c) and the backend's collective engine (Gloo in the
 * host backend).
 *
 * Thin, as every intercept file: check the arguments as NCCL does
 * (ncclInvalidArgument / ncclInvalidUsage with a message ncclGetLastError
 * returns), translate types, reduction ops and streams, hand to route.
 * Every other libnccl.so.2 export is a generated refusal.
 *
 * An ncclComm_t is a tfl_rt_comm pointer, checked on every call; a
 * dynamic reduction op (ncclRedOpCreatePreMulSum) is an index into a
 * small table of (communicator, scalar) records.
 */
#include <nccl.h>

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/coll.h"
#include "route/optable/pt_abi.h"
#include "route/runtime.h"
#include "route/torch_release.h"
#include "versions.h"

/* ------------------------------------------------------------ errors */

static __thread char last_error[512];

static ncclResult_t failf(ncclResult_t r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ncclResult_t failf(ncclResult_t r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    tfl_debug("nccl: %s", last_error);
    tfl_nccl_log(TFL_NCCL_LOG_WARN, tfl_rt_current_device(), "%s", last_error);
    return r;
}

/* A route status as NCCL's result: a peer that failed or timed out is a
 * remote error, a bad argument invalid, what the engine cannot do usage. */
static ncclResult_t of_status(tfl_status st)
{
    switch (st) {
    case TFL_OK:              return ncclSuccess;
    case TFL_ERR_INVALID:     return ncclInvalidArgument;
    case TFL_ERR_UNSUPPORTED: return ncclInvalidUsage;
    case TFL_ERR_DEVICE:      return ncclRemoteError;
    case TFL_ERR_INTERNAL:    return ncclInternalError;
    default:                  return ncclSystemError;
    }
}

static ncclResult_t from_route(tfl_status st, const char *what, const char *err)
{
    if (st == TFL_OK)
        return ncclSuccess;
    return failf(of_status(st), "%s: %s", what, err && *err ? err : "failed");
}

const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess:            return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:        return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:       return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:        return "remote process exited or there was a network error";
    case ncclInProgress:         return "NCCL operation in progress";
    default:                     return "unknown result code";
    }
}

const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;
    return last_error;
}

ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return failf(ncclInvalidArgument, "ncclGetVersion: version is NULL");
    tfl_torch_info t;
    int minor = tfl_torch_current(&t) == 0 ? tfl_torch_minor(t.version) : -1;
    *version = minor == 11 ? TFL_NCCL_VERSION_2_11
             : minor == 12 || minor == 13 ? TFL_NCCL_VERSION_2_12 : TFL_NCCL_VERSION_2_14;
    return ncclSuccess;
}

/* --------------------------------------------------------- communicators */

#define COMM(c) ((tfl_rt_comm *)(c))

static ncclResult_t check_comm(ncclComm_t comm, const char *what)
{
    if (!comm || !tfl_coll_comm_valid(COMM(comm)))
        return failf(ncclInvalidArgument, "%s: invalid communicator %p", what, (void *)comm);
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (!id)
        return failf(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
    if (tfl_rt_init() != TFL_OK)
        return failf(ncclSystemError, "ncclGetUniqueId: no torchfl backend");
    char err[320] = "";
    return from_route(tfl_coll_unique_id((unsigned char *)id->internal, err, sizeof err),
                      "ncclGetUniqueId", err);
}

/* NCCL's config struct is versioned by its size and magic: read only what
 * an old caller's struct holds. */
static ncclResult_t check_config(const ncclConfig_t *cfg, const char *what)
{
    if (!cfg)
        return ncclSuccess;
    if (cfg->magic != 0xcafebeef || cfg->size < offsetof(ncclConfig_t, blocking) + sizeof(int))
        return failf(ncclInvalidArgument, "%s: config not initialised with "
                     "NCCL_CONFIG_INITIALIZER (magic 0x%x, size %zu)", what, cfg->magic,
                     cfg->size);
    return ncclSuccess;
}

static ncclResult_t init_rank(ncclComm_t *comm, int nranks, const ncclUniqueId *id, int rank,
                              const ncclConfig_t *cfg, const char *what)
{
    if (!comm)
        return failf(ncclInvalidArgument, "%s: comm is NULL", what);
    *comm = NULL;
    ncclResult_t r = check_config(cfg, what);
    if (r != ncclSuccess)
        return r;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return failf(ncclInvalidArgument, "%s: rank %d out of range for %d ranks", what, rank,
                     nranks);
    if (tfl_rt_init() != TFL_OK)
        return failf(ncclSystemError, "%s: no torchfl backend", what);
    int dev = tfl_rt_current_device();
    tfl_rt_comm *c = NULL;
    char err[320] = "";
    tfl_status st = tfl_coll_comm_init((const unsigned char *)id->internal, nranks, rank, dev, &c,
                                       err, sizeof err);
    if (st != TFL_OK)
        return from_route(st, what, err);
    *comm = (ncclComm_t)c;
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    return init_rank(comm, nranks, &commId, rank, NULL, "ncclCommInitRank");
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                    ncclConfig_t *config)
{
    /* non-blocking configs (blocking = 0) may see ncclSuccess: the
     * communicator is complete when this returns */
    return init_rank(comm, nranks, &commId, rank, config, "ncclCommInitRankConfig");
}

/* Several ids spread the bootstrap of very large jobs; every rank is given
 * the same list, so they all meet at the first. */
ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                      ncclUniqueId *commIds, ncclConfig_t *config)
{
    if (nId < 1 || !commIds)
        return failf(ncclInvalidArgument, "ncclCommInitRankScalable: %d ids at %p", nId,
                     (void *)commIds);
    return init_rank(newcomm, nranks, &commIds[0], myrank, config, "ncclCommInitRankScalable");
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    if (!comms || ndev < 1)
        return failf(ncclInvalidArgument, "ncclCommInitAll: %d devices at %p", ndev,
                     (void *)comms);
    if (tfl_rt_init() != TFL_OK)
        return failf(ncclSystemError, "ncclCommInitAll: no torchfl backend");
    for (int i = 0; i < ndev; i++) {
        int d = devlist ? devlist[i] : i;
        if (!tfl_rt_device_is_valid(d))
            return failf(ncclInvalidArgument, "ncclCommInitAll: invalid device %d", d);
        comms[i] = NULL;
    }
    char err[320] = "";
    return from_route(tfl_coll_comm_init_all(ndev, devlist, (tfl_rt_comm **)comms, err,
                                             sizeof err), "ncclCommInitAll", err);
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                           ncclConfig_t *config)
{
    ncclResult_t r = check_comm(comm, "ncclCommSplit");
    if (r == ncclSuccess && !newcomm)
        r = failf(ncclInvalidArgument, "ncclCommSplit: newcomm is NULL");
    if (r == ncclSuccess)
        r = check_config(config, "ncclCommSplit");
    if (r == ncclSuccess && color < 0 && color != NCCL_SPLIT_NOCOLOR)
        r = failf(ncclInvalidArgument, "ncclCommSplit: color %d", color);
    if (r != ncclSuccess)
        return r;
    char err[320] = "";
    /* in a group, *newcomm is written when the group ends */
    return from_route(tfl_coll_comm_split(COMM(comm), color, key, (tfl_rt_comm **)newcomm, err,
                                          sizeof err), "ncclCommSplit", err);
}

ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount,
                            ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags)
{
    (void)shrinkFlags;   /* NCCL_SHRINK_ABORT: the engine has nothing in flight to drop */
    ncclResult_t r = check_comm(comm, "ncclCommShrink");
    if (r == ncclSuccess && (!newcomm || excludeRanksCount < 0 ||
                             (excludeRanksCount > 0 && !excludeRanksList)))
        r = failf(ncclInvalidArgument, "ncclCommShrink: bad arguments");
    if (r == ncclSuccess)
        r = check_config(config, "ncclCommShrink");
    for (int i = 0; r == ncclSuccess && i < excludeRanksCount; i++)
        if (excludeRanksList[i] < 0 || excludeRanksList[i] >= tfl_coll_comm_count(COMM(comm)))
            r = failf(ncclInvalidArgument, "ncclCommShrink: rank %d out of range",
                      excludeRanksList[i]);
    if (r != ncclSuccess)
        return r;
    char err[320] = "";
    tfl_rt_comm *c = NULL;
    tfl_status st = tfl_coll_comm_shrink(COMM(comm), excludeRanksList, excludeRanksCount, &c, err,
                                         sizeof err);
    *newcomm = (ncclComm_t)c;
    return from_route(st, "ncclCommShrink", err);
}

/* Work is complete when every call returns (synchronous engine). */
ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    return check_comm(comm, "ncclCommFinalize");
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclSuccess;       /* NCCL accepts NULL */
    ncclResult_t r = check_comm(comm, "ncclCommDestroy");
    return r != ncclSuccess ? r : from_route(tfl_coll_comm_destroy(COMM(comm)), "", "");
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    if (!comm)
        return ncclSuccess;
    ncclResult_t r = check_comm(comm, "ncclCommAbort");
    if (r != ncclSuccess)
        return r;
    tfl_coll_comm_abort(COMM(comm));
    return from_route(tfl_coll_comm_destroy(COMM(comm)), "", "");
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    ncclResult_t r = check_comm(comm, "ncclCommGetAsyncError");
    if (r == ncclSuccess && !asyncError)
        r = failf(ncclInvalidArgument, "ncclCommGetAsyncError: asyncError is NULL");
    if (r != ncclSuccess)
        return r;
    char msg[320];
    tfl_status st = tfl_coll_comm_error(COMM(comm), msg, sizeof msg);
    *asyncError = of_status(st);
    if (st != TFL_OK)
        snprintf(last_error, sizeof last_error, "%s", msg);
    return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    ncclResult_t r = check_comm(comm, "ncclCommCount");
    if (r == ncclSuccess && !count)
        r = failf(ncclInvalidArgument, "ncclCommCount: count is NULL");
    if (r == ncclSuccess)
        *count = tfl_coll_comm_count(COMM(comm));
    return r;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    ncclResult_t r = check_comm(comm, "ncclCommCuDevice");
    if (r == ncclSuccess && !device)
        r = failf(ncclInvalidArgument, "ncclCommCuDevice: device is NULL");
    if (r == ncclSuccess)
        *device = tfl_coll_comm_device(COMM(comm));
    return r;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    ncclResult_t r = check_comm(comm, "ncclCommUserRank");
    if (r == ncclSuccess && !rank)
        r = failf(ncclInvalidArgument, "ncclCommUserRank: rank is NULL");
    if (r == ncclSuccess)
        *rank = tfl_coll_comm_rank(COMM(comm));
    return r;
}

/* Buffers need no registration for the engine: a handle that only
 * remembers it was given out. */
ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    ncclResult_t r = check_comm(comm, "ncclCommRegister");
    if (r == ncclSuccess && (!handle || (size && !tfl_mem_check_range(buff, size, NULL))))
        r = failf(ncclInvalidArgument, "ncclCommRegister: [%p, +%zu) is not device memory",
                  buff, size);
    if (r == ncclSuccess && !(*handle = malloc(1)))
        r = failf(ncclSystemError, "ncclCommRegister: out of memory");
    return r;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    ncclResult_t r = check_comm(comm, "ncclCommDeregister");
    if (r == ncclSuccess)
        free(handle);
    return r;
}

ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win,
                                    int winFlags)
{
    (void)buff; (void)size; (void)win; (void)winFlags;
    ncclResult_t r = check_comm(comm, "ncclCommWindowRegister");
    return r != ncclSuccess ? r : failf(ncclInvalidUsage, "ncclCommWindowRegister: symmetric "
                                        "memory windows are not supported by torchfl");
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win)
{
    (void)win;
    ncclResult_t r = check_comm(comm, "ncclCommWindowDeregister");
    return r != ncclSuccess ? r : failf(ncclInvalidUsage, "ncclCommWindowDeregister: symmetric "
                                        "memory windows are not supported by torchfl");
}

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    if (!ptr)
        return failf(ncclInvalidArgument, "ncclMemAlloc: ptr is NULL");
    cudaError_t e = cudaMalloc(ptr, size);
    return e == cudaSuccess ? ncclSuccess
                            : failf(ncclSystemError, "ncclMemAlloc: %zu bytes: %s", size,
                                    cudaGetErrorString(e));
}

ncclResult_t ncclMemFree(void *ptr)
{
    cudaError_t e = cudaFree(ptr);
    return e == cudaSuccess ? ncclSuccess
                            : failf(ncclInvalidArgument, "ncclMemFree: %p: %s", ptr,
                                    cudaGetErrorString(e));
}

/* ------------------------------------------------- reduction operators */

#define MAX_DYN_OPS 256

typedef struct dyn_op {
    tfl_rt_comm *comm;            /* NULL: free slot */
    ncclDataType_t dtype;
    int device_scalar;            /* ncclScalarDevice: read at each use */
    const void *scalar_ptr;
    double scalar;
} dyn_op;

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static dyn_op dyn_ops[MAX_DYN_OPS];

static int dtype_of(ncclDataType_t t, tfl_dtype *dt, int *is_unsigned)
{
    static const struct { int dt, uns; } map[] = {
        [ncclInt8] = { TFL_DT_I8, 0 },      [ncclUint8] = { TFL_DT_U8, 0 },
        [ncclInt32] = { TFL_DT_I32, 0 },    [ncclUint32] = { TFL_DT_I32, 1 },
        [ncclInt64] = { TFL_DT_I64, 0 },    [ncclUint64] = { TFL_DT_I64, 1 },
        [ncclFloat16] = { TFL_DT_F16, 0 },  [ncclFloat32] = { TFL_DT_F32, 0 },
        [ncclFloat64] = { TFL_DT_F64, 0 },  [ncclBfloat16] = { TFL_DT_BF16, 0 },
    };
    if ((unsigned)t > ncclBfloat16)
        return 0;
    *dt = (tfl_dtype)map[t].dt;
    *is_unsigned = map[t].uns;
    return 1;
}

/* A scalar of NCCL type t at p (host memory) as a double. */
static double scalar_value(const void *p, ncclDataType_t t)
{
    tfl_dtype dt;
    int uns;
    if (!dtype_of(t, &dt, &uns))
        return 0;
    switch (t) {
    case ncclUint32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case ncclUint64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    default: break;
    }
    double f = 0;
    int64_t i;
    tfl_pt_load_scalar(p, dt, &f, &i);
    return f;
}

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm)
{
    tfl_dtype dt;
    int uns;
    ncclResult_t r = check_comm(comm, "ncclRedOpCreatePreMulSum");
    if (r == ncclSuccess && (!op || !scalar || !dtype_of(datatype, &dt, &uns)))
        r = failf(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: bad op, scalar or type %d",
                  (int)datatype);
    if (r != ncclSuccess)
        return r;
    dyn_op d = { .comm = COMM(comm), .dtype = datatype,
                 .device_scalar = residence == ncclScalarDevice, .scalar_ptr = scalar };
    if (!d.device_scalar)
        d.scalar = scalar_value(scalar, datatype);
    pthread_mutex_lock(&ops_lock);
    int slot = -1;
    for (int i = 0; i < MAX_DYN_OPS && slot < 0; i++)
        if (!dyn_ops[i].comm)
            slot = i;
    if (slot >= 0)
        dyn_ops[slot] = d;
    pthread_mutex_unlock(&ops_lock);
    if (slot < 0)
        return failf(ncclInvalidUsage, "ncclRedOpCreatePreMulSum: more than %d live operators",
                     MAX_DYN_OPS);
    *op = (ncclRedOp_t)(ncclNumOps + slot);
    return ncclSuccess;
}

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    int slot = (int)op - (int)ncclNumOps;
    ncclResult_t r = check_comm(comm, "ncclRedOpDestroy");
    if (r != ncclSuccess)
        return r;
    pthread_mutex_lock(&ops_lock);
    int ok = slot >= 0 && slot < MAX_DYN_OPS && dyn_ops[slot].comm == COMM(comm);
    if (ok)
        memset(&dyn_ops[slot], 0, sizeof dyn_ops[slot]);
    pthread_mutex_unlock(&ops_lock);
    return ok ? ncclSuccess
              : failf(ncclInvalidArgument, "ncclRedOpDestroy: op %d was not made for this "
                      "communicator", (int)op);
}

/* The tfl op for an NCCL op on comm (a PreMulSum's scalar read now). */
static ncclResult_t redop_of(ncclRedOp_t op, tfl_rt_comm *comm, tfl_coll_op *out,
                             const char *what)
{
    if ((int)op >= 0 && op < ncclNumOps) {
        static const tfl_coll_redop map[] = { TFL_CRED_SUM, TFL_CRED_PROD, TFL_CRED_MAX,
                                              TFL_CRED_MIN, TFL_CRED_AVG };
        out->op = map[op];
        return ncclSuccess;
    }
    int slot = (int)op - (int)ncclNumOps;
    pthread_mutex_lock(&ops_lock);
    dyn_op d = slot >= 0 && slot < MAX_DYN_OPS ? dyn_ops[slot] : (dyn_op){ 0 };
    pthread_mutex_unlock(&ops_lock);
    if (!d.comm || d.comm != comm)
        return failf(ncclInvalidArgument, "%s: unknown reduction op %d", what, (int)op);
    out->op = TFL_CRED_PREMUL_SUM;
    out->premul = d.scalar;
    if (d.device_scalar) {
        unsigned char buf[8];
        tfl_dtype dt = TFL_DT_F64;
        int uns;
        dtype_of(d.dtype, &dt, &uns);
        size_t sz = tfl_dtype_size(dt);
        if (tfl_rt_memcpy_kind(buf, d.scalar_ptr, sz, 2, NULL) != TFL_OK)
            return failf(ncclInvalidArgument, "%s: the PreMulSum scalar at %p is not device "
                         "memory", what, d.scalar_ptr);
        out->premul = scalar_value(buf, d.dtype);
    }
    return ncclSuccess;
}

/* ----------------------------------------------------------- collectives */

static ncclResult_t issue(ncclComm_t comm, tfl_coll_op *op, ncclDataType_t type,
                          ncclRedOp_t red, int uses_red, cudaStream_t stream, const char *what)
{
    ncclResult_t r = check_comm(comm, what);
    if (r != ncclSuccess)
        return r;
    tfl_rt_comm *c = COMM(comm);
    if (!dtype_of(type, &op->dtype, &op->is_unsigned))
        return failf(ncclInvalidArgument, "%s: data type %d is not supported%s", what, (int)type,
                     (int)type >= 10 ? " (fp8 types are refused)" : "");
    if (uses_red && (r = redop_of(red, c, op, what)) != ncclSuccess)
        return r;
    if (op->kind == TFL_COLL_BROADCAST || op->kind == TFL_COLL_REDUCE ||
        op->kind == TFL_COLL_SEND || op->kind == TFL_COLL_RECV) {
        if (op->peer < 0 || op->peer >= tfl_coll_comm_count(c))
            return failf(ncclInvalidArgument, "%s: %s %d out of range for %d ranks", what,
                         op->kind >= TFL_COLL_SEND ? "peer" : "root", op->peer,
                         tfl_coll_comm_count(c));
    }
    size_t send_bytes, recv_bytes;
    tfl_coll_extents(op, tfl_coll_comm_count(c), tfl_coll_comm_rank(c), &send_bytes, &recv_bytes);
    if (!tfl_mem_range_ok(op->send, send_bytes) || !tfl_mem_range_ok(op->recv, recv_bytes))
        return failf(ncclInvalidArgument, "%s: buffer %p / %p is not %zu / %zu bytes of "
                     "device memory", what, op->send, op->recv, send_bytes, recv_bytes);
    tfl_rt_stream *s = (tfl_rt_stream *)stream;
    if (!tfl_rt_stream_valid(s))
        return failf(ncclInvalidArgument, "%s: invalid stream", what);
    char err[320] = "";
    return from_route(tfl_coll_run(c, op, s, err, sizeof err), what, err);
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_ALLREDUCE, .send = sendbuff, .recv = recvbuff,
                      .count = count };
    return issue(comm, &o, datatype, op, 1, stream, "ncclAllReduce");
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_BROADCAST, .send = sendbuff, .recv = recvbuff,
                      .count = count, .peer = root };
    return issue(comm, &o, datatype, ncclSum, 0, stream, "ncclBroadcast");
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
                       ncclComm_t comm, cudaStream_t stream)
{
    return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_REDUCE, .send = sendbuff, .recv = recvbuff,
                      .count = count, .peer = root };
    return issue(comm, &o, datatype, op, 1, stream, "ncclReduce");
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_ALLGATHER, .send = sendbuff, .recv = recvbuff,
                      .count = sendcount };
    return issue(comm, &o, datatype, ncclSum, 0, stream, "ncclAllGather");
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_REDUCE_SCATTER, .send = sendbuff, .recv = recvbuff,
                      .count = recvcount };
    return issue(comm, &o, datatype, op, 1, stream, "ncclReduceScatter");
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_ALLTOALL, .send = sendbuff, .recv = recvbuff,
                      .count = count };
    return issue(comm, &o, datatype, ncclSum, 0, stream, "ncclAlltoAll");
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_SEND, .send = sendbuff, .count = count, .peer = peer };
    return issue(comm, &o, datatype, ncclSum, 0, stream, "ncclSend");
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    tfl_coll_op o = { .kind = TFL_COLL_RECV, .recv = recvbuff, .count = count, .peer = peer };
    return issue(comm, &o, datatype, ncclSum, 0, stream, "ncclRecv");
}

/* ncclGather / ncclScatter (NCCL 2.28): one group of point-to-point
 * calls, as NCCL itself builds them - the root receives (sends) block i
 * from (to) rank i, itself included (a send to self meets its receive in
 * the engine, which also covers NCCL's in-place forms). */
static ncclResult_t rooted_p2p(int scatter, const void *sendbuff, void *recvbuff, size_t count,
                               ncclDataType_t datatype, int root, ncclComm_t comm,
                               cudaStream_t stream, const char *what)
{
    ncclResult_t r = check_comm(comm, what);
    if (r != ncclSuccess)
        return r;
    const int n = tfl_coll_comm_count(COMM(comm)), me = tfl_coll_comm_rank(COMM(comm));
    if (root < 0 || root >= n)
        return failf(ncclInvalidArgument, "%s: root %d out of range for %d ranks", what, root, n);
    size_t es = 0;
    tfl_coll_op probe = { 0 };
    if (dtype_of(datatype, &probe.dtype, &probe.is_unsigned))
        es = tfl_dtype_size(probe.dtype);
    if ((r = ncclGroupStart()) != ncclSuccess)
        return r;
    char *blocks = (char *)(scatter ? (void *)sendbuff : recvbuff);
    for (int i = 0; me == root && i < n && r == ncclSuccess; i++)
        r = scatter ? ncclSend(blocks + (size_t)i * count * es, count, datatype, i, comm, stream)
                    : ncclRecv(blocks + (size_t)i * count * es, count, datatype, i, comm, stream);
    if (r == ncclSuccess)   /* every rank's own block: to / from the root */
        r = scatter ? ncclRecv(recvbuff, count, datatype, root, comm, stream)
                    : ncclSend(sendbuff, count, datatype, root, comm, stream);
    ncclResult_t end = ncclGroupEnd();
    return r != ncclSuccess ? r : end;
}

ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    return rooted_p2p(0, sendbuff, recvbuff, count, datatype, root, comm, stream, "ncclGather");
}

ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
                         ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    return rooted_p2p(1, sendbuff, recvbuff, count, datatype, root, comm, stream, "ncclScatter");
}

/* --------------------------------------------------------------- groups */

ncclResult_t ncclGroupStart(void)
{
    return from_route(tfl_coll_group_start(), "ncclGroupStart", "");
}

ncclResult_t ncclGroupEnd(void)
{
    char err[400] = "";
    tfl_status st = tfl_coll_group_end(err, sizeof err);
    return st == TFL_ERR_INVALID && tfl_coll_group_depth() == 0 && strstr(err, "without")
               ? failf(ncclInvalidUsage, "%s", err)
               : from_route(st, "ncclGroupEnd", err);
}

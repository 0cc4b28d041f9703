/*
 * torchfl/backend.h - the versioned ABI between torchfl and a backend.
 *
 * A backend is a shared object named libtorchfl-<name>.so that exports
 * one function, TORCHFL_BACKEND_ENTRY, returning a tfl_backend table.
 * The host backend is built into libtorchfl.so and registers through the
 * very same table, so nothing here is host-specific.
 *
 * A backend implements devices, memory, streams, events and *ops*
 * (gemm, add, softmax, ...).  It never sees PTX, CUDA handles or CUDA
 * error codes: torchfl translates those above this line.  Anything a
 * backend does not support (op_supported() returns 0) is run by the host
 * executor according to the fallback policy.
 *
 * Compatibility rules:
 *  - abi_version is bumped when a field changes meaning or moves.
 *  - New function pointers are only appended; struct_size tells torchfl
 *    how much of the table a plugin filled, so an older plugin keeps
 *    working with a newer torchfl (missing entries read as NULL).
 */
#ifndef TORCHFL_BACKEND_H
#define TORCHFL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFL_BACKEND_ABI_VERSION 1u
#define TORCHFL_BACKEND_ENTRY "torchfl_backend_entry"

/* Status codes shared by every backend entry point. */
typedef enum tfl_status {
    TFL_OK = 0,
    TFL_ERR_UNSUPPORTED = 1, /* op or call not implemented by this backend */
    TFL_ERR_NOMEM = 2,       /* allocation failed or over the limit       */
    TFL_ERR_INVALID = 3,     /* bad argument                              */
    TFL_ERR_DEVICE = 4,      /* device fault (e.g. illegal address)       */
    TFL_ERR_NOT_READY = 5,   /* async work still pending (queries)        */
    TFL_ERR_UNAVAILABLE = 6, /* runtime/driver missing or no device       */
    TFL_ERR_INTERNAL = 7
} tfl_status;

/* Element types of op operands. */
typedef enum tfl_dtype {
    TFL_DT_F32 = 0,
    TFL_DT_F64,
    TFL_DT_F16,
    TFL_DT_BF16,
    TFL_DT_C64,  /* complex float  */
    TFL_DT_C128, /* complex double */
    TFL_DT_I8,
    TFL_DT_U8,
    TFL_DT_I32,
    TFL_DT_I64,
    TFL_DT_BOOL,
    TFL_DT_COUNT
} tfl_dtype;

/* Bytes per element of a dtype; 0 for an unknown one. */
static inline size_t tfl_dtype_size(tfl_dtype dt)
{
    switch (dt) {
    case TFL_DT_F32: case TFL_DT_I32: return 4;
    case TFL_DT_F64: case TFL_DT_I64: case TFL_DT_C64: return 8;
    case TFL_DT_F16: case TFL_DT_BF16: return 2;
    case TFL_DT_C128: return 16;
    case TFL_DT_I8: case TFL_DT_U8: case TFL_DT_BOOL: return 1;
    default: return 0;
    }
}

/* What a backend says about one device. */
typedef struct tfl_device_info {
    char name[256];
    uint64_t total_mem;      /* bytes the backend can give torchfl   */
    int cc_major, cc_minor;  /* 0 = let torchfl choose (config)      */
    int multiprocessors;     /* compute units                        */
    int clock_khz;
    int mem_clock_khz;
    int mem_bus_width;
    int l2_cache_bytes;
    int integrated;          /* shares memory with the host          */
    int pci_bus, pci_device, pci_domain;
    uint8_t uuid[16];
} tfl_device_info;

typedef struct tfl_stream_s *tfl_stream; /* backend-owned; NULL = default */
typedef struct tfl_event_s *tfl_event;

typedef enum tfl_copy_dir {
    TFL_COPY_H2D = 1,
    TFL_COPY_D2H = 2,
    TFL_COPY_D2D = 3,
    TFL_COPY_H2H = 4
} tfl_copy_dir;

/* ------------------------------------------------------------------ ops */

typedef enum tfl_op_kind {
    TFL_OP_NONE = 0,
    TFL_OP_GEMM = 1,
    TFL_OP_ELEMENTWISE = 2,
    TFL_OP_REDUCE = 3,
    TFL_OP_SOFTMAX = 4,
    TFL_OP_LOSS = 5,
    TFL_OP_EMBEDDING = 6,
    TFL_OP_NORM = 7,
    TFL_OP_RANDOM = 8,
    TFL_OP_FOREACH = 9,
    TFL_OP_INDEX = 10,
    TFL_OP_ATTENTION = 11,
    TFL_OP_BLAS = 12,        /* BLAS level 1/2, TRSM/SYRK, batched LAPACK (ops/blas.h) */
    TFL_OP_SCAN = 13,        /* prefix scans, nonzero compaction (ops/scan.h) */
    TFL_OP_SORT = 14,        /* key/value sorts and radix passes (ops/sort.h) */
    TFL_OP_SPATIAL = 15,     /* pooling, resize, roll (ops/spatial.h) */
    TFL_OP_CONV = 16,        /* convolution fwd / bwd data / bwd filter (ops/conv.h) */
    TFL_OP_BATCHNORM = 17,   /* batch norm / group norm (ops/batchnorm.h) */
    TFL_OP_BUCKET = 18,      /* searchsorted, histogram (ops/bucket.h)     */
    TFL_OP_RNN = 19,         /* RNN / LSTM / GRU fwd and bwd (ops/rnn.h)   */
    TFL_OP_MISC = 20,        /* small steps of other ops (ops/misc.h)      */
    TFL_OP_SHAPE = 21,       /* reflect/replicate pad (ops/shape.h)        */
    TFL_OP_DISTANCE = 22,    /* cdist / pdist and their backward (ops/distance.h) */
    TFL_OP_FFT = 23,         /* batched FFTs: cuFFT plans (ops/fft.h)      */
    TFL_OP_SPARSE = 24,      /* sparse-dense products, format conversions:
                                cuSPARSE (ops/sparse.h)                   */
    TFL_OP_KIND_COUNT
} tfl_op_kind;

typedef enum tfl_epilogue {
    TFL_EPI_NONE = 0,
    TFL_EPI_BIAS = 1,       /* D += bias (per row of D, i.e. length m)   */
    TFL_EPI_RELU = 2,
    TFL_EPI_RELU_BIAS = 3,
    TFL_EPI_GELU = 4,       /* tanh approximation, as cuBLASLt           */
    TFL_EPI_GELU_BIAS = 5,
    TFL_EPI_DGELU = 6,      /* gradient forms: multiply by gelu'(aux)    */
    TFL_EPI_DGELU_BGRAD = 7,
    TFL_EPI_BGRADA = 8,     /* bias gradient reductions                  */
    TFL_EPI_BGRADB = 9,
    TFL_EPI_GELU_AUX = 10,  /* gelu, also store the pre-activation      */
    TFL_EPI_GELU_AUX_BIAS = 11,
    TFL_EPI_DRELU = 12,
    TFL_EPI_DRELU_BGRAD = 13,
    TFL_EPI_RELU_AUX = 14,
    TFL_EPI_RELU_AUX_BIAS = 15
} tfl_epilogue;

typedef enum tfl_compute {
    TFL_COMPUTE_32F = 0,
    TFL_COMPUTE_32F_FAST_TF32,
    TFL_COMPUTE_32F_FAST_16F,
    TFL_COMPUTE_32F_FAST_16BF,
    TFL_COMPUTE_16F,
    TFL_COMPUTE_64F,
    TFL_COMPUTE_32I
} tfl_compute;

/*
 * D[b] = epilogue(alpha * op(A[b]) * op(B[b]) + beta * C[b])
 * Column-major, as BLAS.  alpha/beta point at host scalars of the compute
 * precision (float for 32F/16F computes, double for 64F, pairs for complex).
 * beta == 0 means C is not read at all (NaN in C must not leak).
 */
typedef struct tfl_gemm_op {
    int trans_a, trans_b;    /* 0 = N, 1 = T, 2 = C (conjugate transpose) */
    int64_t m, n, k;
    tfl_dtype type_a, type_b, type_c, type_d;
    tfl_compute compute;
    const void *a; int64_t lda; int64_t stride_a;
    const void *b; int64_t ldb; int64_t stride_b;
    const void *c; int64_t ldc; int64_t stride_c;
    void *d;       int64_t ldd; int64_t stride_d;
    int64_t batch;           /* >= 1                                      */
    /* pointer-array batching (GemmBatchedEx): if set, a/b/c/d are ignored */
    const void *const *a_array, *const *b_array, *const *c_array;
    void *const *d_array;
    const void *alpha, *beta;
    tfl_epilogue epilogue;
    const void *bias; tfl_dtype bias_type;
    void *aux; int64_t ld_aux; tfl_dtype aux_type;
    /* appended: per-batch strides of bias and aux (elements; bits for a
     * ReLU mask); 0 = every batch entry shares one vector/matrix */
    int64_t stride_bias, stride_aux;
} tfl_gemm_op;

#include "torchfl/ops/elementwise.h"
#include "torchfl/ops/reduce.h"
#include "torchfl/ops/softmax.h"
#include "torchfl/ops/loss.h"
#include "torchfl/ops/embedding.h"
#include "torchfl/ops/norm.h"
#include "torchfl/ops/random.h"
#include "torchfl/ops/foreach.h"
#include "torchfl/ops/index.h"
#include "torchfl/ops/attention.h"
#include "torchfl/ops/blas.h"
#include "torchfl/ops/scan.h"
#include "torchfl/ops/sort.h"
#include "torchfl/ops/batchnorm.h"
#include "torchfl/ops/bucket.h"
#include "torchfl/ops/conv.h"
#include "torchfl/ops/spatial.h"
#include "torchfl/ops/misc.h"
#include "torchfl/ops/rnn.h"
#include "torchfl/ops/distance.h"
#include "torchfl/ops/shape.h"
#include "torchfl/ops/fft.h"
#include "torchfl/ops/sparse.h"

typedef struct tfl_op {
    tfl_op_kind kind;
    const char *name;        /* short name for statistics, e.g. "gemm"   */
    union {
        tfl_gemm_op gemm;
        tfl_elementwise_op elementwise;
        tfl_reduce_op reduce;
        tfl_softmax_op softmax;
        tfl_loss_op loss;
        tfl_embedding_op embedding;
        tfl_norm_op norm;
        tfl_random_op random;
        tfl_foreach_op foreach;
        tfl_index_op index;
        tfl_attention_op attention;
        tfl_blas_op blas;
        tfl_scan_op scan;
        tfl_sort_op sort;
        tfl_batchnorm_op batchnorm;
        tfl_bucket_op bucket;
        tfl_conv_op conv;
        tfl_spatial_op spatial;
        tfl_misc_op misc;
        tfl_distance_op distance;
        tfl_rnn_op rnn;
        tfl_shape_op shape;
        tfl_fft_op fft;
        tfl_sparse_op sparse;
    } u;
} tfl_op;

/* ------------------------------------------------------ collectives */

/* One rank of a communicator, as the backend's collective engine keeps
 * it (the host backend: a Gloo context).  torchfl owns the NCCL side:
 * unique ids, bootstrap, groups, argument checks, errors. */
typedef struct tfl_comm_s *tfl_comm;

/* The rendezvous torchfl lends the engine while a communicator is made: a
 * key-value store every rank of the group reaches (NCCL's bootstrap,
 * served by the rank that made the unique id).  get() blocks until the key
 * is set, or timeout_ms passes (TFL_ERR_NOT_READY). */
typedef struct tfl_coll_store {
    void *ctx;
    const char *local_addr;   /* numeric IP this rank's engine listens on
                               * (chosen from NCCL_SOCKET_IFNAME or the
                               * route to the bootstrap root)               */
    tfl_status (*set)(void *ctx, const char *key, const void *val, size_t len);
    tfl_status (*get)(void *ctx, const char *key, void *buf, size_t cap, size_t *len,
                      int64_t timeout_ms);
} tfl_coll_store;

typedef enum tfl_coll_kind {
    TFL_COLL_ALLREDUCE = 0,   /* recv[i] = op over ranks of send[i], count   */
    TFL_COLL_BROADCAST,       /* root's send -> every recv, count            */
    TFL_COLL_REDUCE,          /* op over ranks of send -> root's recv, count */
    TFL_COLL_ALLGATHER,       /* rank r's send (count) -> recv + r * count   */
    TFL_COLL_REDUCE_SCATTER,  /* op over ranks of send + r * count -> rank r's
                               * recv (count)                                */
    TFL_COLL_ALLTOALL,        /* send + p * count -> peer p's recv + r * count */
    TFL_COLL_SEND,            /* send (count) -> peer                        */
    TFL_COLL_RECV,            /* peer's send -> recv (count)                 */
    TFL_COLL_BARRIER,
    TFL_COLL_KIND_COUNT
} tfl_coll_kind;

typedef enum tfl_coll_redop {
    TFL_CRED_SUM = 0, TFL_CRED_PROD, TFL_CRED_MAX, TFL_CRED_MIN,
    TFL_CRED_AVG,             /* sum / nranks (integers: truncated)          */
    TFL_CRED_PREMUL_SUM,      /* sum of (premul * x): NCCL's PreMulSum       */
    TFL_CRED_COUNT
} tfl_coll_redop;

typedef struct tfl_coll_op {
    tfl_coll_kind kind;
    const void *send;         /* device pointers; send == recv: in place     */
    void *recv;
    size_t count;             /* elements, as in the comments above          */
    tfl_dtype dtype;          /* F32 F64 F16 BF16 I8 U8 I32 I64              */
    int is_unsigned;          /* I32/I64 hold uint32/uint64 (max/min differ) */
    tfl_coll_redop op;
    double premul;            /* PREMUL_SUM: the scalar, read by torchfl     */
    int peer;                 /* BROADCAST/REDUCE: root; SEND/RECV: peer     */
} tfl_coll_op;

/* --------------------------------------------------- services to plugins */

/* What torchfl lends a backend: logging and config lookups. */
typedef struct tfl_host_api {
    uint32_t abi_version;
    void (*log)(int level, const char *fmt, ...);
    /* value of a config key ("host.threads", "mem.pool_size"...) or NULL */
    const char *(*config)(const char *key);
} tfl_host_api;

/* ------------------------------------------------------- the table */

typedef struct tfl_backend {
    uint32_t abi_version;    /* TFL_BACKEND_ABI_VERSION it was built for  */
    uint32_t struct_size;    /* sizeof(tfl_backend) it was built with     */
    const char *name;        /* "host", "ascend", ...                      */
    int priority;            /* FL_BACKEND=auto picks the highest ready;
                              * < 0: below the host (chosen only by name).
                              * The entry function may set it from what it
                              * finds (the OpenCL plugin: GPU or CPU).     */

    /* Cheap check: is the runtime/driver present and a device visible?
     * Fills a one-line reason when not.  Must not allocate devices. */
    int (*probe)(char *why, size_t why_len);
    tfl_status (*init)(const tfl_host_api *host);
    void (*fini)(void);

    int (*device_count)(void);
    tfl_status (*device_info)(int dev, tfl_device_info *out);

    /* Large segments for torchfl's pool; torchfl sub-allocates. */
    tfl_status (*mem_alloc)(int dev, size_t size, void **ptr);
    tfl_status (*mem_free)(int dev, void *ptr, size_t size);
    tfl_status (*memcpy)(void *dst, const void *src, size_t n,
                         tfl_copy_dir dir, tfl_stream s);
    tfl_status (*memset)(void *dst, int value, size_t n, tfl_stream s);
    /* Nonzero when device memory is directly host-addressable.
     *
     * When it is not (a chip with its own memory), the addresses mem_alloc
     * returns must lie in a range of the process's address space that the
     * backend reserved with no access (mmap PROT_NONE) and never touches
     * from the host: a stray host access then faults instead of reading
     * stale bytes.  torchfl relies on that to run host code (the fallback
     * for ops the backend lacks, kernels run from PTX) on device memory: it
     * maps host pages at those very addresses for the length of the call,
     * fills them with memcpy(D2H) after device_sync, writes back the bytes
     * the call changed with memcpy(H2D) and makes the pages inaccessible
     * again (docs/writing-a-backend.md, "Host views").  memcpy must accept
     * such an address as the device side whatever the page's protection. */
    int (*host_addressable)(int dev);

    tfl_status (*stream_create)(int dev, tfl_stream *out);
    tfl_status (*stream_destroy)(tfl_stream s);
    tfl_status (*stream_sync)(tfl_stream s);
    tfl_status (*stream_query)(tfl_stream s);

    int (*op_supported)(const tfl_op *op);
    tfl_status (*op_run)(const tfl_op *op, tfl_stream s);

    /* Collectives (NCCL).  A backend without them (NULL) has its
     * collectives run by the host backend's engine, the operands staged
     * through host memory with its memcpy when its memory is not host
     * memory (src/route/coll_stage.c).  comm_create blocks until all
     * nranks ranks have joined through the store (or timeout_ms); err
     * gets one line on failure.
     * coll_run runs n ops of one NCCL group on this rank, ordered on
     * stream s: grouped sends and receives must not deadlock whatever
     * order the ranks list them in.  A peer that fails makes the call fail
     * (TFL_ERR_DEVICE) within the communicator's timeout.  comm_abort may
     * be called from another thread while coll_run blocks and makes it
     * return.  Added in ABI 1 without a version bump: these slots were
     * reserved (NULL) before. */
    tfl_status (*comm_create)(int dev, int nranks, int rank, const tfl_coll_store *store,
                              int64_t timeout_ms, tfl_comm *out, char *err, size_t errlen);
    tfl_status (*comm_destroy)(tfl_comm c);
    tfl_status (*comm_abort)(tfl_comm c);
    tfl_status (*coll_run)(tfl_comm c, const tfl_coll_op *ops, int n, tfl_stream s,
                           char *err, size_t errlen);
    /* A failure the engine met outside any call (a send it completes in
     * the background, a peer that closed): TFL_OK, or the status the next
     * coll_run would fail with and one line in err.  Polled by
     * ncclCommGetAsyncError.  May be NULL (only failures coll_run returned
     * are reported).  Added in ABI 1 in a reserved slot, like the above. */
    tfl_status (*comm_error)(tfl_comm c, char *err, size_t errlen);

    /* Asynchronous devices (ABI 1, in reserved slots; NULL for a backend
     * that completes every call before returning, as the host does).
     *
     * A backend that fills these runs work in the background: memcpy of
     * D2D and memset, and op_run, may return before the work is done;
     * stream s orders it (NULL = the device's default stream).  H2D/D2H
     * copies must have finished reading/writing host memory when memcpy
     * returns (CUDA's pageable-memory rule; torchfl relies on it).  A
     * fault in background work is returned by the next stream_sync,
     * stream_query, event_sync, event_query or device_sync, and by every
     * later one (sticky, as on a GPU).
     *
     * event_record marks the point in s after all work issued so far;
     * event_query returns TFL_ERR_NOT_READY until that work completed;
     * event_elapsed gives the device time between two completed marks
     * (TFL_ERR_NOT_READY if either is pending); stream_wait_event makes
     * work issued to s later wait for the mark (without blocking the
     * caller); device_sync waits for every stream of dev. */
    tfl_status (*event_create)(int dev, tfl_event *out);
    tfl_status (*event_destroy)(tfl_event e);
    tfl_status (*event_record)(tfl_event e, tfl_stream s);
    tfl_status (*event_query)(tfl_event e);
    tfl_status (*event_sync)(tfl_event e);
    tfl_status (*event_elapsed)(tfl_event start, tfl_event end, float *ms);
    tfl_status (*stream_wait_event)(tfl_stream s, tfl_event e);
    tfl_status (*device_sync)(int dev);
    void *reserved[3];
} tfl_backend;

typedef const tfl_backend *(*tfl_backend_entry_fn)(uint32_t torchfl_abi);

#ifdef __cplusplus
}
#endif
#endif /* TORCHFL_BACKEND_H */

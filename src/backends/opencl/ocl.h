/*
 * ocl.h - what the files of the OpenCL backend (libtorchfl-opencl.so)
 * share: the device, device addresses, queues, the program cache, errors.
 *
 * One module, one-way order: backend.c (the tfl_backend table) calls the
 * op files (ocl_gemm.c, ocl_ew.c, ...); they call the services below,
 * which live in device.c, mem.c, queue.c and program.c.  Nothing below
 * calls back into an op file.
 *
 * Memory model: a device address is a byte of a PROT_NONE reservation of
 * the host's address space; each mem_alloc segment is one cl_mem of the
 * same size, so address p is (buffer of its segment, p - segment base).
 * Kernels therefore take (cl_mem, byte offset) pairs, never raw pointers.
 */
#ifndef TFL_OCL_H
#define TFL_OCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

/* ------------------------------------------------------------ device */

typedef struct ocl_device {
    cl_platform_id platform;
    cl_device_id id;
    cl_context ctx;
    cl_device_type type;
    int fp16;                 /* cl_khr_fp16: half arithmetic in kernels  */
    int fp64;                 /* cl_khr_fp64                              */
    cl_ulong global_mem;
    cl_uint compute_units;
    size_t max_wg;            /* CL_DEVICE_MAX_WORK_GROUP_SIZE            */
    char name[256];
    char platform_name[256];
    char driver_version[128];
} ocl_device;

/* The device torchfl uses (one per process for now); NULL before init. */
const ocl_device *ocl_dev(void);

/* What torchfl lent at init: log(level, ...) and config(key). */
extern const tfl_host_api *ocl_host;

#define OCL_LOG(level, ...) \
    do { if (ocl_host && ocl_host->log) ocl_host->log(level, __VA_ARGS__); } while (0)
/* torchfl's levels (common/log.h) */
#define OCL_ERROR 0
#define OCL_WARN 1
#define OCL_INFO 2
#define OCL_DEBUG 3

/* device.c: choose the device the config names (0 + why when none); open
 * and close it (context). */
int ocl_pick(cl_platform_id *plat, cl_device_id *dev, cl_device_type *type,
             char *why, size_t wl);
tfl_status ocl_device_open(void);
void ocl_device_close(void);

/* An OpenCL status as a torchfl status; logs one line naming the call
 * and the code (CL_SUCCESS: TFL_OK, nothing logged). */
tfl_status ocl_status(cl_int rc, const char *call);
#define OCL_TRY(call_expr, name) \
    do { cl_int rc_ = (call_expr); if (rc_ != CL_SUCCESS) return ocl_status(rc_, name); } while (0)

/* ------------------------------------------------------------ memory */

/* Device address p with n bytes after it -> the buffer holding it and the
 * byte offset of p in it.  0 when [p, p+n) is not inside one segment. */
int ocl_resolve(const void *p, size_t n, cl_mem *buf, size_t *off);

/* The table's memory entry points (mem.c). */
tfl_status ocl_mem_alloc(int dev, size_t size, void **ptr);
tfl_status ocl_mem_free(int dev, void *ptr, size_t size);
tfl_status ocl_memcpy(void *dst, const void *src, size_t n, tfl_copy_dir dir, tfl_stream s);
tfl_status ocl_memset(void *dst, int value, size_t n, tfl_stream s);
void ocl_mem_fini(void);

/* ------------------------------------------------------------ queues */

/* The in-order command queue of stream s (NULL: the default stream). */
cl_command_queue ocl_queue(tfl_stream s);

/* Called after enqueueing on s, with the event of the command: queries
 * read the newest one (the queue is in order), and a failed one is a
 * fault reported at the next sync.  EVERY command enqueued on a stream's
 * queue must be tracked, or a query may answer "done" too early.  Takes
 * the reference. */
void ocl_track(tfl_stream s, cl_event ev);

/* The table's stream and event entry points (queue.c). */
tfl_status ocl_queue_init(void);
void ocl_queue_fini(void);
tfl_status ocl_stream_create(int dev, tfl_stream *out);
tfl_status ocl_stream_destroy(tfl_stream s);
tfl_status ocl_stream_sync(tfl_stream s);
tfl_status ocl_stream_query(tfl_stream s);
tfl_status ocl_device_sync(int dev);
tfl_status ocl_event_create(int dev, tfl_event *out);
tfl_status ocl_event_destroy(tfl_event e);
tfl_status ocl_event_record(tfl_event e, tfl_stream s);
tfl_status ocl_event_query(tfl_event e);
tfl_status ocl_event_sync(tfl_event e);
tfl_status ocl_event_elapsed(tfl_event a, tfl_event b, float *ms);
tfl_status ocl_stream_wait_event(tfl_stream s, tfl_event e);
/* A 4-byte device word (initially 0) that kernels set non-zero on a
 * device-side assert (an index out of range), without any host round
 * trip: syncs, queries and event syncs read it once their queue is idle
 * and make it the sticky TFL_ERR_DEVICE, as a GPU reports a device assert
 * at the next synchronising call.  Pass it as a kernel argument. */
cl_mem ocl_assert_word(void);
/* Test hook: make the op issued now fail in the background when config
 * opencl.inject_fault counts down to it. */
void ocl_inject_fault(tfl_stream s);

/* ------------------------------------------------------------ programs */

/* A compiled kernel, shared between threads: hold lock from the first
 * clSetKernelArg to the enqueue (OpenCL kernels carry their arguments). */
typedef struct ocl_kernel {
    cl_kernel k;
    pthread_mutex_t lock;
} ocl_kernel;

/* Kernel `name` of the program built from src with options opts.  Built
 * once per process (an in-memory cache keyed by src+opts) and cached on
 * disk as a device binary (opencl.cache_dir, default
 * ~/.cache/torchfl/opencl), so a second process skips the compiler.
 * NULL on a build error (the build log's first line is logged). */
ocl_kernel *ocl_kernel_get(const char *src, const char *opts, const char *name);

/* Enqueue k with a 1-D range of n work items (rounded up to the work-group
 * size; kernels check their index) on s.  The caller holds k->lock and has
 * set the arguments. */
tfl_status ocl_launch_1d(ocl_kernel *k, size_t n, tfl_stream s);

void ocl_program_fini(void);
/* Changes whenever ocl_program_fini frees the cache: an op file that keeps
 * its own signature -> ocl_kernel table drops it when this differs from
 * the value it saw when it filled it. */
unsigned ocl_program_generation(void);

/* ------------------------------------------------------------ ops */

/* Each op file: whether it runs op natively, and running it (enqueued on
 * s, asynchronous).  op_supported must be cheap and exact: an op it
 * accepts must not fail for want of a feature. */
#define OCL_OP_FILE(name) \
    int ocl_##name##_supported(const tfl_op *op); \
    tfl_status ocl_##name##_run(const tfl_op *op, tfl_stream s);
OCL_OP_FILE(gemm)        /* ocl_gemm.c: TFL_OP_GEMM through CLBlast        */
OCL_OP_FILE(ew)          /* ocl_ew.c: TFL_OP_ELEMENTWISE                   */
OCL_OP_FILE(reduce)      /* ocl_reduce.c: TFL_OP_REDUCE                    */
OCL_OP_FILE(softmax)     /* ocl_softmax.c: TFL_OP_SOFTMAX                  */
OCL_OP_FILE(norm)        /* ocl_norm.c: TFL_OP_NORM (layer norm)           */
OCL_OP_FILE(loss)        /* ocl_loss.c: TFL_OP_LOSS (nll, cross-entropy)   */
OCL_OP_FILE(embedding)   /* ocl_embedding.c: TFL_OP_EMBEDDING              */
OCL_OP_FILE(random)      /* ocl_random.c: TFL_OP_RANDOM (Philox)           */
OCL_OP_FILE(foreach)     /* ocl_foreach.c: TFL_OP_FOREACH, fused optimizers */
OCL_OP_FILE(index)       /* ocl_index.c: TFL_OP_INDEX                      */
OCL_OP_FILE(conv)        /* ocl_conv.c: TFL_OP_CONV                        */
OCL_OP_FILE(batchnorm)   /* ocl_batchnorm.c: TFL_OP_BATCHNORM              */
OCL_OP_FILE(spatial)     /* ocl_spatial.c: TFL_OP_SPATIAL (pooling, ...)   */
OCL_OP_FILE(attention)   /* ocl_attention.c: TFL_OP_ATTENTION (SDPA)       */
#undef OCL_OP_FILE

/* ocl_batchnorm.c: OpenCL C fp_ld / fp_st for f32, f16 and bf16 operands,
 * prepended to the sources of the batch-norm, conv and pooling kernels. */
extern const char ocl_fp_codec_cl[];

#endif

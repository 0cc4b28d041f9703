/*
 * common.c - shared plumbing of the cuBLAS/cuBLASLt entry points: the live
 * handle registry, status/type mapping, pointer checks and op submission.
 *
 * Handles are remembered in a set so that a destroyed or garbage handle
 * gives CUBLAS_STATUS_NOT_INITIALIZED instead of a crash.
 */
#include "cublas/cublas_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <uthash.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/runtime.h"

#define HANDLE_MAGIC 0x74666c42u   /* "tflB" */

typedef struct handle_entry {
    const void *key;
    UT_hash_handle hh;
} handle_entry;

static handle_entry *live_handles;
static pthread_rwlock_t handles_lock = PTHREAD_RWLOCK_INITIALIZER;

cublasStatus_t tfl_cublas_handle_new(struct cublasContext **out)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    /* cuBLAS needs a usable device: the backend must come up */
    if (tfl_rt_init() != TFL_OK)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *h = calloc(1, sizeof(*h));
    handle_entry *e = calloc(1, sizeof(*e));
    if (!h || !e) {
        free(h);
        free(e);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    h->magic = HANDLE_MAGIC;
    h->device = tfl_rt_current_device();
    h->stream = NULL;
    h->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    h->math_mode = CUBLAS_DEFAULT_MATH;
    h->atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    e->key = h;
    pthread_rwlock_wrlock(&handles_lock);
    HASH_ADD_PTR(live_handles, key, e);
    pthread_rwlock_unlock(&handles_lock);
    *out = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t tfl_cublas_handle_free(struct cublasContext *h)
{
    handle_entry *e = NULL;
    pthread_rwlock_wrlock(&handles_lock);
    HASH_FIND_PTR(live_handles, &h, e);
    if (e)
        HASH_DEL(live_handles, e);
    pthread_rwlock_unlock(&handles_lock);
    if (!e)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->magic = 0;
    free(e);
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}

struct cublasContext *tfl_cublas_handle_get(const void *h)
{
    if (!h)
        return NULL;
    handle_entry *e = NULL;
    pthread_rwlock_rdlock(&handles_lock);
    HASH_FIND_PTR(live_handles, &h, e);
    pthread_rwlock_unlock(&handles_lock);
    return e ? (struct cublasContext *)h : NULL;
}

cublasStatus_t tfl_cublas_status(tfl_status st)
{
    switch (st) {
    case TFL_OK: return CUBLAS_STATUS_SUCCESS;
    case TFL_ERR_INVALID: return CUBLAS_STATUS_INVALID_VALUE;
    case TFL_ERR_UNSUPPORTED: return CUBLAS_STATUS_NOT_SUPPORTED;
    case TFL_ERR_NOMEM: return CUBLAS_STATUS_ALLOC_FAILED;
    case TFL_ERR_DEVICE: return CUBLAS_STATUS_EXECUTION_FAILED;
    case TFL_ERR_UNAVAILABLE: return CUBLAS_STATUS_NOT_INITIALIZED;
    default: return CUBLAS_STATUS_INTERNAL_ERROR;
    }
}

int tfl_cublas_dtype(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F: return TFL_DT_F32;
    case CUDA_R_64F: return TFL_DT_F64;
    case CUDA_R_16F: return TFL_DT_F16;
    case CUDA_R_16BF: return TFL_DT_BF16;
    case CUDA_C_32F: return TFL_DT_C64;
    case CUDA_C_64F: return TFL_DT_C128;
    case CUDA_R_8I: return TFL_DT_I8;
    case CUDA_R_8U: return TFL_DT_U8;
    case CUDA_R_32I: return TFL_DT_I32;
    case CUDA_R_64I: return TFL_DT_I64;
    default: return -1;
    }
}

size_t tfl_cublas_dtype_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_64F: case CUDA_C_32F: case CUDA_R_64I: return 8;
    case CUDA_C_64F: return 16;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_8I: case CUDA_R_8U: return 1;
    default: return 0;
    }
}

int tfl_cublas_compute(cublasComputeType_t c)
{
    switch (c) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
        return TFL_COMPUTE_16F;
    case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
        return TFL_COMPUTE_32F;
    case CUBLAS_COMPUTE_32F_FAST_16F: return TFL_COMPUTE_32F_FAST_16F;
    case CUBLAS_COMPUTE_32F_FAST_16BF: return TFL_COMPUTE_32F_FAST_16BF;
    case CUBLAS_COMPUTE_32F_FAST_TF32: return TFL_COMPUTE_32F_FAST_TF32;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
        return TFL_COMPUTE_64F;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC:
        return TFL_COMPUTE_32I;
    }
    return -1;
}

cublasStatus_t tfl_cublas_read_scalar(int device_mode, const void *p, size_t n,
                                      void *out, const char *fn, const char *what)
{
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (device_mode) {
        if (!tfl_mem_check_range(p, n, NULL)) {
            tfl_error("%s: %s %p is not device memory (pointer mode device)",
                      fn, what, p);
            return CUBLAS_STATUS_INVALID_VALUE;
        }
        if (!tfl_route_host_addressable()) {
            /* device memory the host cannot read: copy it over once the
             * device has written it (any stream may have) */
            if (tfl_rt_device_sync() != TFL_OK ||
                tfl_rt_memcpy_kind(out, p, n, 2 /* D2H */, NULL) != TFL_OK)
                return CUBLAS_STATUS_EXECUTION_FAILED;
            return CUBLAS_STATUS_SUCCESS;
        }
    }
    memcpy(out, p, n);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t tfl_cublas_check_matrix(const void *p, int64_t rows, int64_t cols,
                                       int64_t ld, size_t es, const char *fn,
                                       const char *what)
{
    if (rows <= 0 || cols <= 0)
        return CUBLAS_STATUS_SUCCESS;
    size_t bytes = (size_t)((cols - 1) * ld + rows) * es;
    if (!p || !tfl_mem_check_range(p, bytes, NULL)) {
        tfl_error("%s: %s %p (%lld x %lld, ld %lld) is not inside one device "
                  "allocation", fn, what, p, (long long)rows, (long long)cols,
                  (long long)ld);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t tfl_cublas_check_vector(const void *p, int64_t n, int64_t inc,
                                       size_t es, const char *fn, const char *what)
{
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    int64_t step = inc < 0 ? -inc : inc;
    size_t bytes = (size_t)((n - 1) * step + 1) * es;
    if (!p || !tfl_mem_check_range(p, bytes, NULL)) {
        tfl_error("%s: vector %s %p (n %lld, inc %lld) is not inside one device "
                  "allocation", fn, what, p, (long long)n, (long long)inc);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t tfl_cublas_run(const tfl_op *op, cudaStream_t s, const char *fn)
{
    tfl_rt_stream *rs = (tfl_rt_stream *)s;
    if (!tfl_rt_stream_valid(rs)) {
        tfl_error("%s: stream %p is not a live stream", fn, (void *)s);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    tfl_status st = tfl_route_op(op, rs);
    if (st != TFL_OK)
        tfl_error("%s: backend failed (status %d)", fn, (int)st);
    return tfl_cublas_status(st);
}

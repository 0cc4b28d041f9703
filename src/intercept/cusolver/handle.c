/*
 * handle.c - cuSOLVER dense handles: cusolverDnCreate/Destroy and the
 * stream setting.  Live handles are kept in a set, so a destroyed or
 * garbage handle gives CUSOLVER_STATUS_NOT_INITIALIZED, not a crash.
 */
#include "cusolver/cusolver_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <uthash.h>

#include "route/runtime.h"

#define HANDLE_MAGIC 0x74666c53u   /* "tflS" */

typedef struct handle_entry {
    const void *key;
    UT_hash_handle hh;
} handle_entry;

static handle_entry *live_handles;
static pthread_rwlock_t handles_lock = PTHREAD_RWLOCK_INITIALIZER;

struct cusolverDnContext *tfl_cusolver_handle_get(const void *h)
{
    if (!h)
        return NULL;
    handle_entry *e = NULL;
    pthread_rwlock_rdlock(&handles_lock);
    HASH_FIND_PTR(live_handles, &h, e);
    pthread_rwlock_unlock(&handles_lock);
    return e ? (struct cusolverDnContext *)h : NULL;
}

cusolverStatus_t tfl_cusolver_from_cublas(cublasStatus_t st)
{
    switch (st) {
    case CUBLAS_STATUS_SUCCESS: return CUSOLVER_STATUS_SUCCESS;
    case CUBLAS_STATUS_NOT_INITIALIZED: return CUSOLVER_STATUS_NOT_INITIALIZED;
    case CUBLAS_STATUS_ALLOC_FAILED: return CUSOLVER_STATUS_ALLOC_FAILED;
    case CUBLAS_STATUS_INVALID_VALUE: return CUSOLVER_STATUS_INVALID_VALUE;
    case CUBLAS_STATUS_ARCH_MISMATCH: return CUSOLVER_STATUS_ARCH_MISMATCH;
    case CUBLAS_STATUS_EXECUTION_FAILED: return CUSOLVER_STATUS_EXECUTION_FAILED;
    case CUBLAS_STATUS_NOT_SUPPORTED: return CUSOLVER_STATUS_NOT_SUPPORTED;
    default: return CUSOLVER_STATUS_INTERNAL_ERROR;
    }
}

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)
{
    if (!handle)
        return CUSOLVER_STATUS_INVALID_VALUE;
    /* cuSOLVER needs a usable device: the backend must come up */
    if (tfl_rt_init() != TFL_OK)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    struct cusolverDnContext *h = calloc(1, sizeof(*h));
    handle_entry *e = calloc(1, sizeof(*e));
    if (!h || !e) {
        free(h);
        free(e);
        return CUSOLVER_STATUS_ALLOC_FAILED;
    }
    h->magic = HANDLE_MAGIC;
    e->key = h;
    pthread_rwlock_wrlock(&handles_lock);
    HASH_ADD_PTR(live_handles, key, e);
    pthread_rwlock_unlock(&handles_lock);
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    handle_entry *e = NULL;
    pthread_rwlock_wrlock(&handles_lock);
    if (handle)
        HASH_FIND_PTR(live_handles, &handle, e);
    if (e)
        HASH_DEL(live_handles, e);
    pthread_rwlock_unlock(&handles_lock);
    if (!e)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    free(e);
    free(handle);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t stream)
{
    struct cusolverDnContext *h = tfl_cusolver_handle_get(handle);
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    h->stream = stream;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *stream)
{
    struct cusolverDnContext *h = tfl_cusolver_handle_get(handle);
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!stream)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *stream = h->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

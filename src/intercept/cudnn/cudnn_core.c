/*
 * cudnn_core.c - the cuDNN calls every user makes first: versions, handles,
 * streams, error strings.
 *
 * PyTorch checks at first use that the runtime cuDNN has the major version
 * it was built with and a minor not lower; torchfl reports the version of
 * the headers it was built against (the toolkit's cuDNN, 9.19 for the
 * torch 2.11.0 cu130 wheel's nvidia-cudnn-cu13 9.19).  The compute calls
 * (convolutions) go through the backend descriptor API (backend_*.c);
 * the legacy calls (batch norm, RNN, ...) refuse with
 * CUDNN_STATUS_NOT_SUPPORTED, so PyTorch raises a Python error instead of
 * dying.
 */
#include "versions.h"
#include "cudnn/cudnn_internal.h"

#include "common/log.h"
#include "route/runtime.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread char last_error[256];

cudnnStatus_t tfl_cudnn_fail(cudnnStatus_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    tfl_debug("cudnn: %s (status %d)", last_error, (int)st);
    return st;
}

static cudnnStatus_t fail(cudnnStatus_t st, const char *what)
{
    return tfl_cudnn_fail(st, "%s", what);
}

size_t cudnnGetVersion(void)
{
    return (size_t)TFL_CUDNN_MAJOR * 10000 + TFL_CUDNN_MINOR * 100 + TFL_CUDNN_PATCH;
}

size_t cudnnGetMaxDeviceVersion(void)
{
    const tfl_device_info *d = tfl_rt_device_info(0);
    return d ? (size_t)(d->cc_major * 100 + d->cc_minor * 10) : 800;
}

size_t cudnnGetCudartVersion(void)
{
    return TFL_CUDA_VERSION;
}

cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnGetProperty: value is NULL");
    switch (type) {
    case MAJOR_VERSION: *value = TFL_CUDNN_MAJOR; break;
    case MINOR_VERSION: *value = TFL_CUDNN_MINOR; break;
    case PATCH_LEVEL:   *value = TFL_CUDNN_PATCH; break;
    default:
        return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: unknown property");
    }
    return CUDNN_STATUS_SUCCESS;
}

const char *cudnnGetErrorString(cudnnStatus_t status)
{
#define TFL_CUDNN_STATUS(n) case n: return #n;
    switch ((int)status) {
    TFL_CUDNN_STATUS(CUDNN_STATUS_SUCCESS)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_INITIALIZED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    TFL_CUDNN_STATUS(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    TFL_CUDNN_STATUS(CUDNN_STATUS_DEPRECATED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_LICENSE_ERROR)
    TFL_CUDNN_STATUS(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    TFL_CUDNN_STATUS(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    TFL_CUDNN_STATUS(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    TFL_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    TFL_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    TFL_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED)
    TFL_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    TFL_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    TFL_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    TFL_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
    default:                              return "CUDNN_STATUS_UNKNOWN";
    }
#undef TFL_CUDNN_STATUS
}

void cudnnGetLastErrorString(char *message, size_t max_size)
{
    if (message && max_size) {
        snprintf(message, max_size, "%s", last_error);
        last_error[0] = '\0';
    }
}

/* Live handles, so a destroyed or made-up handle is an error, not a crash. */
static struct cudnn_handle *live_handles;
static pthread_rwlock_t handles_lock = PTHREAD_RWLOCK_INITIALIZER;

int tfl_cudnn_handle_ok(cudnnHandle_t h)
{
    struct cudnn_handle *c = NULL;
    if (!h)
        return 0;
    pthread_rwlock_rdlock(&handles_lock);
    HASH_FIND_PTR(live_handles, &h, c);
    pthread_rwlock_unlock(&handles_lock);
    return c != NULL;
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
    if (!handle)
        return fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "cudnnCreate: handle is NULL");
    if (tfl_rt_init() != TFL_OK || tfl_rt_device_count() == 0)
        return fail(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: no device");
    struct cudnn_handle *c = calloc(1, sizeof *c);
    if (!c)
        return fail(CUDNN_STATUS_ALLOC_FAILED, "cudnnCreate: out of memory");
    c->self = c;
    pthread_rwlock_wrlock(&handles_lock);
    HASH_ADD_PTR(live_handles, self, c);
    pthread_rwlock_unlock(&handles_lock);
    *handle = (cudnnHandle_t)c;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
    struct cudnn_handle *c = NULL;
    pthread_rwlock_wrlock(&handles_lock);
    if (handle)
        HASH_FIND_PTR(live_handles, &handle, c);
    if (c)
        HASH_DEL(live_handles, c);
    pthread_rwlock_unlock(&handles_lock);
    if (!c)
        return fail(CUDNN_STATUS_BAD_PARAM, "cudnnDestroy: invalid handle");
    free(c);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream)
{
    if (!tfl_cudnn_handle_ok(handle))
        return fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetStream: invalid handle");
    if (!tfl_rt_stream_valid((tfl_rt_stream *)stream))
        return fail(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH, "cudnnSetStream: invalid stream");
    ((struct cudnn_handle *)handle)->stream = stream;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *stream)
{
    if (!tfl_cudnn_handle_ok(handle) || !stream)
        return fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: invalid argument");
    *stream = ((struct cudnn_handle *)handle)->stream;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t tfl_cudnn_desc_new(size_t size, void **out)
{
    if (!out)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    void **d = calloc(1, size);
    if (!d)
        return CUDNN_STATUS_ALLOC_FAILED;
    *d = d;
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t tfl_cudnn_desc_free(void *desc)
{
    void **d = desc;
    if (!d)
        return CUDNN_STATUS_SUCCESS;
    if (*d != d)
        return CUDNN_STATUS_BAD_PARAM;
    *d = NULL;
    free(d);
    return CUDNN_STATUS_SUCCESS;
}

int tfl_cudnn_dtype(cudnnDataType_t t, tfl_dtype *out)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: *out = TFL_DT_F32; return 1;
    case CUDNN_DATA_HALF: *out = TFL_DT_F16; return 1;
    case CUDNN_DATA_BFLOAT16: *out = TFL_DT_BF16; return 1;
    case CUDNN_DATA_DOUBLE: *out = TFL_DT_F64; return 1;
    default: return 0;
    }
}

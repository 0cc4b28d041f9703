/*
 * error.c - CUDA runtime error state: per-thread last error, sticky errors.
 *
 * Every entry point returns through tfl_cudart_ret(), which records a
 * failure as the calling thread's last error.  A sticky error (a kernel
 * fault: illegal address, assert, ...) poisons the whole process as on a
 * GPU: every later call returns it and cudaGetLastError does not clear it.
 */
#include "cudart/cudart_internal.h"
#include "cudart/error_names.h"
#include "route/runtime.h"
#include "driver/driver_hooks.h"

#include <stdatomic.h>

static __thread cudaError_t last_error = cudaSuccess;
static _Atomic int sticky_error = cudaSuccess;

cudaError_t tfl_cudart_ret(cudaError_t err)
{
    if (err != cudaSuccess)
        last_error = err;
    return err;
}

void tfl_cudart_set_sticky(cudaError_t err)
{
    int expected = cudaSuccess;
    atomic_compare_exchange_strong(&sticky_error, &expected, (int)err);
    last_error = err;
}

cudaError_t tfl_cudart_sticky(void)
{
    return (cudaError_t)atomic_load_explicit(&sticky_error, memory_order_relaxed);
}

cudaError_t tfl_cudart_init(void)
{
    cudaError_t s = tfl_cudart_sticky();
    if (s != cudaSuccess)
        return s;
    /* no usable backend, or CUDA_VISIBLE_DEVICES hid every device: every
     * call that needs a device fails as CUDA's does */
    if (tfl_rt_init() != TFL_OK || tfl_rt_device_count() == 0)
        return cudaErrorNoDevice;
    return cudaSuccess;
}

cudaError_t tfl_cudart_from_status(tfl_status st)
{
    switch (st) {
    case TFL_OK:              return cudaSuccess;
    case TFL_ERR_NOMEM:       return cudaErrorMemoryAllocation;
    case TFL_ERR_UNAVAILABLE: return cudaErrorNoDevice;
    default:                  return cudaErrorInvalidValue;
    }
}

cudaError_t tfl_cudart_async(tfl_status st)
{
    switch (st) {
    case TFL_OK:            return tfl_cudart_sticky();
    case TFL_ERR_NOT_READY: return cudaErrorNotReady;
    case TFL_ERR_INVALID:   return cudaErrorInvalidResourceHandle;
    case TFL_ERR_DEVICE:
        /* background work failed: the process is poisoned, as on a GPU */
        tfl_cudart_set_sticky(cudaErrorLaunchFailure);
        return tfl_cudart_sticky();
    default:                return tfl_cudart_from_status(st);
    }
}

cudaError_t tfl_cudart_enter(void)
{
    cudaError_t e = tfl_cudart_init();
    if (e == cudaSuccess)
        tfl_drv_runtime_use(tfl_rt_current_device());
    return e;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t s = tfl_cudart_sticky();
    if (s != cudaSuccess)
        return s;
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t s = tfl_cudart_sticky();
    return s != cudaSuccess ? s : last_error;
}

static const tfl_cuda_error_name *find(cudaError_t e)
{
    for (int i = 0; i < tfl_cuda_error_count; i++)
        if (tfl_cuda_error_names[i].code == (int)e)
            return &tfl_cuda_error_names[i];
    return NULL;
}

const char *cudaGetErrorName(cudaError_t e)
{
    const tfl_cuda_error_name *n = find(e);
    return n ? n->name : "unrecognized error code"; /* as the real runtime */
}

const char *cudaGetErrorString(cudaError_t e)
{
    const tfl_cuda_error_name *n = find(e);
    return n ? n->message : "unrecognized error code";
}

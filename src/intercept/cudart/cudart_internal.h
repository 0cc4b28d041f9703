/*
 * cudart_internal.h - what the CUDA runtime entry points share:
 * per-thread last error, sticky errors, translation from route status.
 */
#ifndef TFL_CUDART_INTERNAL_H
#define TFL_CUDART_INTERNAL_H

#include <cuda_runtime_api.h>
#include "torchfl/backend.h"

/* Record err as the calling thread's last error (unless cudaSuccess) and
 * return it; every entry point returns through this. */
cudaError_t tfl_cudart_ret(cudaError_t err);
/* Make err sticky: every later call in the process returns it. */
void tfl_cudart_set_sticky(cudaError_t err);
/* The sticky error, or cudaSuccess. */
cudaError_t tfl_cudart_sticky(void);
/* Initialise (backend selection) on first use; cudaSuccess or the error
 * every call must return (cudaErrorNoDevice for an unusable backend). */
cudaError_t tfl_cudart_init(void);
/* tfl_cudart_init, and the calling thread now uses its current device's
 * primary context (as the real runtime makes it current): for entry points
 * that use a device. */
cudaError_t tfl_cudart_enter(void);

/* Map a route status to the runtime's code for the common cases. */
cudaError_t tfl_cudart_from_status(tfl_status st);
/* A sync, query or wait on asynchronous work: TFL_ERR_NOT_READY is
 * cudaErrorNotReady, TFL_ERR_DEVICE a sticky launch failure, TFL_ERR_INVALID
 * a bad handle; TFL_OK returns the sticky error, if any. */
cudaError_t tfl_cudart_async(tfl_status st);

/* Every entry point returns through RET, so failures set the last error. */
#define RET(e) return tfl_cudart_ret(e)
#define INIT_OR_RET() do { cudaError_t ie_ = tfl_cudart_enter(); \
    if (ie_ != cudaSuccess) RET(ie_); } while (0)

#endif

/*
 * cusolver_internal.h - what the cuSOLVER entry points share: the handle
 * and the status mapping.  Operand checks and op submission reuse the
 * cuBLAS helpers (cublas/cublas_internal.h); their statuses are mapped.
 */
#ifndef TFL_CUSOLVER_INTERNAL_H
#define TFL_CUSOLVER_INTERNAL_H

#include <cusolverDn.h>

#include "cublas/cublas_internal.h"

/* The dense handle (cusolverDnHandle_t points at one). */
struct cusolverDnContext {
    uint32_t magic;
    cudaStream_t stream;
};

/* The live handle behind h, or NULL (NULL, destroyed or garbage). */
struct cusolverDnContext *tfl_cusolver_handle_get(const void *h);

/* cublasStatus_t (from the shared checks and tfl_cublas_run) ->
 * cusolverStatus_t. */
cusolverStatus_t tfl_cusolver_from_cublas(cublasStatus_t st);

#endif

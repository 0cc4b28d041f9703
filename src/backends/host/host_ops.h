/*
 * host_ops.h - the native op kernels of the host backend.
 *
 * One function per op family; backend.c routes tfl_op to them.
 */
#ifndef TFL_HOST_OPS_H
#define TFL_HOST_OPS_H

#include "torchfl/backend.h"

/* The host backend's table (registered like any plugin). */
extern const tfl_backend tfl_host_backend;

/* Nonzero if the host backend can run this gemm natively. */
int host_gemm_supported(const tfl_gemm_op *op);
tfl_status host_gemm(const tfl_gemm_op *op);
/* BLAS level 1/2, TRSM and SYRK (TFL_OP_BLAS). */
int host_blas_supported(const tfl_blas_op *op);
tfl_status host_blas(const tfl_blas_op *op);
/* OpenBLAS's thread count (0 = CPU count). */
void host_blas_set_threads(int n);

#endif

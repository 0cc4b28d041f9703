/*
 * cublas_internal.h - what the cuBLAS and cuBLASLt entry points share:
 * the handle (one object serves as cublasHandle_t and cublasLtHandle_t,
 * because PyTorch casts one to the other), argument and pointer checks,
 * scalar reads in both pointer modes, type mapping, and running a tfl_op.
 */
#ifndef TFL_CUBLAS_INTERNAL_H
#define TFL_CUBLAS_INTERNAL_H

#include <cublas_api.h>
#include <cublasLt.h>
#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

/* The handle.  cublasLtHandle_t values point at the same struct. */
struct cublasContext {
    uint32_t magic;
    int device;
    cudaStream_t stream;
    cublasPointerMode_t pointer_mode;
    cublasMath_t math_mode;
    cublasAtomicsMode_t atomics_mode;
    void *workspace;
    size_t workspace_size;
    int sm_count_target;
    cublasEmulationStrategy_t emulation;
};

/* Make a handle (cublasCreate, cublasLtCreate). */
cublasStatus_t tfl_cublas_handle_new(struct cublasContext **out);
cublasStatus_t tfl_cublas_handle_free(struct cublasContext *h);
/* The live handle behind h, or NULL (NULL, destroyed or garbage). */
struct cublasContext *tfl_cublas_handle_get(const void *h);

/* tfl_status -> cublasStatus_t. */
cublasStatus_t tfl_cublas_status(tfl_status st);

/* cudaDataType -> tfl_dtype; -1 for a type torchfl has no name for. */
int tfl_cublas_dtype(cudaDataType t);
size_t tfl_cublas_dtype_size(cudaDataType t);
/* cublasComputeType_t -> tfl_compute; -1 if not a compute type. */
int tfl_cublas_compute(cublasComputeType_t c);

/* Copy n bytes of a scalar argument to out: a host read in host pointer
 * mode, a checked device read in device mode.  INVALID_VALUE (logged) for
 * NULL or a device pointer outside every allocation. */
cublasStatus_t tfl_cublas_read_scalar(int device_mode, const void *p, size_t n,
                                      void *out, const char *fn, const char *what);

/* A rows x cols column-major operand with leading dim ld must lie inside
 * one allocation; EXECUTION_FAILED (logged) otherwise, as the GPU would
 * fault.  Empty operands pass. */
cublasStatus_t tfl_cublas_check_matrix(const void *p, int64_t rows, int64_t cols,
                                       int64_t ld, size_t es, const char *fn,
                                       const char *what);
/* n elements with increment inc (either sign). */
cublasStatus_t tfl_cublas_check_vector(const void *p, int64_t n, int64_t inc,
                                       size_t es, const char *fn, const char *what);

/* Run op on stream s (checked) through route; logs failures with fn. */
cublasStatus_t tfl_cublas_run(const tfl_op *op, cudaStream_t s, const char *fn);

#endif

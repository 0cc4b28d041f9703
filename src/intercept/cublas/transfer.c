/*
 * transfer.c - cublasSet/GetVector and cublasSet/GetMatrix (plain, Async
 * and _64): strided host <-> device copies of BLAS vectors and
 * column-major matrices.
 *
 * Each is one checked 2-D copy through route (the device side must lie in
 * one allocation, else CUBLAS_STATUS_MAPPING_ERROR, as cuBLAS reports a
 * failed copy).  The host backend is synchronous, so Async returns done.
 */
#include "cublas/cublas_internal.h"

#include "common/log.h"
#include "route/runtime.h"

enum { KIND_H2D = 1, KIND_D2H = 2 };

static cublasStatus_t copy2d(void *dst, int64_t dpitch, const void *src, int64_t spitch,
                             int64_t width, int64_t height, int kind, cudaStream_t s,
                             const char *fn)
{
    if (width == 0 || height == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!tfl_rt_stream_valid((tfl_rt_stream *)s))
        return CUBLAS_STATUS_INVALID_VALUE;
    tfl_status st = tfl_rt_memcpy2d_kind(dst, (size_t)dpitch, src, (size_t)spitch,
                                         (size_t)width, (size_t)height, kind,
                                         (tfl_rt_stream *)s);
    if (st != TFL_OK) {
        tfl_error("%s: copy of %lld x %lld bytes failed (not device memory?)", fn,
                  (long long)height, (long long)width);
        return CUBLAS_STATUS_MAPPING_ERROR;
    }
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t vec(int64_t n, int64_t es, const void *x, int64_t incx, void *y,
                          int64_t incy, int kind, cudaStream_t s, const char *fn)
{
    if (es <= 0 || incx <= 0 || incy <= 0 || n < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (incx == 1 && incy == 1)
        return copy2d(y, n * es, x, n * es, n * es, 1, kind, s, fn);
    return copy2d(y, incy * es, x, incx * es, es, n, kind, s, fn);
}

static cublasStatus_t mat(int64_t rows, int64_t cols, int64_t es, const void *A,
                          int64_t lda, void *B, int64_t ldb, int kind, cudaStream_t s,
                          const char *fn)
{
    if (rows < 0 || cols < 0 || es <= 0 || lda <= 0 || ldb <= 0 || lda < rows ||
        ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy2d(B, ldb * es, A, lda * es, rows * es, cols, kind, s, fn);
}

#define VEC(NAME, IT, KIND)                                                           \
cublasStatus_t NAME(IT n, IT es, const void *x, IT incx, void *y, IT incy)           \
{ return vec(n, es, x, incx, y, incy, KIND, NULL, #NAME); }                           \
cublasStatus_t NAME##Async(IT n, IT es, const void *x, IT incx, void *y, IT incy,    \
                           cudaStream_t s)                                            \
{ return vec(n, es, x, incx, y, incy, KIND, s, #NAME "Async"); }
VEC(cublasSetVector, int, KIND_H2D)
VEC(cublasGetVector, int, KIND_D2H)

#define VEC64(NAME, KIND)                                                             \
cublasStatus_t NAME##_64(int64_t n, int64_t es, const void *x, int64_t incx, void *y, \
                         int64_t incy)                                                \
{ return vec(n, es, x, incx, y, incy, KIND, NULL, #NAME); }                           \
cublasStatus_t NAME##Async_64(int64_t n, int64_t es, const void *x, int64_t incx,     \
                              void *y, int64_t incy, cudaStream_t s)                  \
{ return vec(n, es, x, incx, y, incy, KIND, s, #NAME "Async"); }
VEC64(cublasSetVector, KIND_H2D)
VEC64(cublasGetVector, KIND_D2H)

#define MAT(NAME, SUF, IT, KIND)                                                      \
cublasStatus_t NAME##SUF(IT rows, IT cols, IT es, const void *A, IT lda, void *B,    \
                         IT ldb)                                                      \
{ return mat(rows, cols, es, A, lda, B, ldb, KIND, NULL, #NAME); }                    \
cublasStatus_t NAME##Async##SUF(IT rows, IT cols, IT es, const void *A, IT lda,      \
                                void *B, IT ldb, cudaStream_t s)                      \
{ return mat(rows, cols, es, A, lda, B, ldb, KIND, s, #NAME "Async"); }
MAT(cublasSetMatrix, , int, KIND_H2D)
MAT(cublasGetMatrix, , int, KIND_D2H)
MAT(cublasSetMatrix, _64, int64_t, KIND_H2D)
MAT(cublasGetMatrix, _64, int64_t, KIND_D2H)

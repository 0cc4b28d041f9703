/*
 * lapack_batched.c - cuBLAS's batched LAPACK-style routines that PyTorch
 * imports: getrfBatched (LU, pivots optional), getrsBatched (LU solve),
 * geqrfBatched (QR) and gelsBatched (least squares), S/D/C/Z.
 *
 * Each batch entry is one TFL_OP_BLAS (GETRF/GETRS/GEQRF/GELS) through
 * route, after the pointer arrays and every matrix were checked against
 * the address map.  Argument errors follow cuBLAS: getrf reports through
 * the status only; getrs/geqrf/gels also set the host *info to -i for the
 * i-th parameter (1 = handle), as LAPACK numbers them.
 */
#include "cublas/cublas_internal.h"

#include <string.h>

#include "common/log.h"
#include "route/runtime.h"

#define HANDLE(hh) struct cublasContext *h = tfl_cublas_handle_get(hh); \
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED
#define TRY(x) do { cublasStatus_t st_ = (x); if (st_) return st_; } while (0)

static size_t esz(tfl_dtype t)
{
    return t == TFL_DT_F32 ? 4 : t == TFL_DT_C128 ? 16 : 8;
}

static tfl_op lapack_op(tfl_blas_fn fn, tfl_dtype t)
{
    tfl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TFL_OP_BLAS;
    op.name = "lapack";
    op.u.blas.fn = fn;
    op.u.blas.type = t;
    return op;
}

static cublasStatus_t check_ptrs(const void *arr, int64_t batch, const char *fn,
                                 const char *what)
{
    return tfl_cublas_check_vector(arr, 1, 1, (size_t)batch * sizeof(void *), fn, what);
}

/* Set the host info (when given) and return INVALID_VALUE. */
static cublasStatus_t bad_param(int *info, int which)
{
    if (info)
        *info = -which;
    return CUBLAS_STATUS_INVALID_VALUE;
}

/* ---------------------------------------------------------------- getrf */

static cublasStatus_t getrf(const char *fn, cublasHandle_t handle, tfl_dtype t, int64_t n,
                            void *const A[], int64_t lda, int *P, int *info, int64_t batch)
{
    HANDLE(handle);
    if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    const size_t es = esz(t);
    TRY(check_ptrs(A, batch, fn, "A array"));
    TRY(tfl_cublas_check_vector(info, batch, 1, sizeof(int), fn, "info"));
    if (P)
        TRY(tfl_cublas_check_vector(P, n * batch, 1, sizeof(int), fn, "pivots"));
    for (int64_t b = 0; b < batch; b++) {
        TRY(tfl_cublas_check_matrix(A[b], n, n, lda, es, fn, "A"));
        tfl_op op = lapack_op(TFL_BLAS_GETRF, t);
        tfl_blas_op *o = &op.u.blas;
        o->n = n; o->b = A[b]; o->ldb = lda;
        o->ipiv = P ? (int32_t *)P + b * n : NULL;
        o->info = (int32_t *)info + b;
        TRY(tfl_cublas_run(&op, h->stream, fn));
    }
    return CUBLAS_STATUS_SUCCESS;
}

#define GETRF(NAME, T, TY)                                                           \
cublasStatus_t NAME(cublasHandle_t handle, int n, T *const A[], int lda, int *P,     \
                    int *info, int batch)                                            \
{ return TFL_HOST_ACCESS(getrf(#NAME, handle, TY, n, (void *const *)A, lda, P, info, batch)); }
GETRF(cublasSgetrfBatched, float, TFL_DT_F32)
GETRF(cublasDgetrfBatched, double, TFL_DT_F64)
GETRF(cublasCgetrfBatched, cuComplex, TFL_DT_C64)
GETRF(cublasZgetrfBatched, cuDoubleComplex, TFL_DT_C128)

/* ---------------------------------------------------------------- getrs */

static cublasStatus_t getrs(const char *fn, cublasHandle_t handle, tfl_dtype t, int trans,
                            int64_t n, int64_t nrhs, const void *const A[], int64_t lda,
                            const int *ipiv, void *const B[], int64_t ldb, int *info,
                            int64_t batch)
{
    HANDLE(handle);
    if (!info)
        return CUBLAS_STATUS_INVALID_VALUE;
    *info = 0;
    if (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C)
        return bad_param(info, 2);
    if (n < 0) return bad_param(info, 3);
    if (nrhs < 0) return bad_param(info, 4);
    if (lda < (n > 1 ? n : 1)) return bad_param(info, 6);
    if (ldb < (n > 1 ? n : 1)) return bad_param(info, 9);
    if (batch < 0) return bad_param(info, 11);
    if (batch == 0 || n == 0 || nrhs == 0)
        return CUBLAS_STATUS_SUCCESS;
    const size_t es = esz(t);
    TRY(check_ptrs(A, batch, fn, "A array"));
    TRY(check_ptrs(B, batch, fn, "B array"));
    if (ipiv)
        TRY(tfl_cublas_check_vector(ipiv, n * batch, 1, sizeof(int), fn, "pivots"));
    for (int64_t b = 0; b < batch; b++) {
        TRY(tfl_cublas_check_matrix(A[b], n, n, lda, es, fn, "A"));
        TRY(tfl_cublas_check_matrix(B[b], n, nrhs, ldb, es, fn, "B"));
        tfl_op op = lapack_op(TFL_BLAS_GETRS, t);
        tfl_blas_op *o = &op.u.blas;
        o->trans = trans; o->n = n; o->nrhs = nrhs;
        o->a = A[b]; o->lda = lda; o->b = B[b]; o->ldb = ldb;
        o->ipiv = ipiv ? (int32_t *)ipiv + b * n : NULL;
        TRY(tfl_cublas_run(&op, h->stream, fn));
    }
    return CUBLAS_STATUS_SUCCESS;
}

#define GETRS(NAME, T, TY)                                                           \
cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs, \
                    const T *const A[], int lda, const int *ipiv, T *const B[],      \
                    int ldb, int *info, int batch)                                   \
{ return TFL_HOST_ACCESS(getrs(#NAME, handle, TY, trans, n, nrhs, (const void *const *)A, \
               lda, ipiv, (void *const *)B, ldb, info, batch)); }
GETRS(cublasSgetrsBatched, float, TFL_DT_F32)
GETRS(cublasDgetrsBatched, double, TFL_DT_F64)
GETRS(cublasCgetrsBatched, cuComplex, TFL_DT_C64)
GETRS(cublasZgetrsBatched, cuDoubleComplex, TFL_DT_C128)

/* ---------------------------------------------------------------- geqrf */

static cublasStatus_t geqrf(const char *fn, cublasHandle_t handle, tfl_dtype t, int64_t m,
                            int64_t n, void *const A[], int64_t lda, void *const Tau[],
                            int *info, int64_t batch)
{
    HANDLE(handle);
    if (!info)
        return CUBLAS_STATUS_INVALID_VALUE;
    *info = 0;
    if (m < 0) return bad_param(info, 2);
    if (n < 0) return bad_param(info, 3);
    if (lda < (m > 1 ? m : 1)) return bad_param(info, 5);
    if (batch < 0) return bad_param(info, 8);
    if (batch == 0 || m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    const size_t es = esz(t);
    const int64_t kt = m < n ? m : n;
    TRY(check_ptrs(A, batch, fn, "A array"));
    TRY(check_ptrs(Tau, batch, fn, "Tau array"));
    for (int64_t b = 0; b < batch; b++) {
        TRY(tfl_cublas_check_matrix(A[b], m, n, lda, es, fn, "A"));
        TRY(tfl_cublas_check_vector(Tau[b], kt, 1, es, fn, "tau"));
        tfl_op op = lapack_op(TFL_BLAS_GEQRF, t);
        tfl_blas_op *o = &op.u.blas;
        o->m = m; o->n = n; o->b = A[b]; o->ldb = lda; o->tau = Tau[b];
        TRY(tfl_cublas_run(&op, h->stream, fn));
    }
    return CUBLAS_STATUS_SUCCESS;
}

#define GEQRF(NAME, T, TY)                                                           \
cublasStatus_t NAME(cublasHandle_t handle, int m, int n, T *const A[], int lda,      \
                    T *const Tau[], int *info, int batch)                            \
{ return TFL_HOST_ACCESS(geqrf(#NAME, handle, TY, m, n, (void *const *)A, lda,        \
               (void *const *)Tau, info, batch)); }
GEQRF(cublasSgeqrfBatched, float, TFL_DT_F32)
GEQRF(cublasDgeqrfBatched, double, TFL_DT_F64)
GEQRF(cublasCgeqrfBatched, cuComplex, TFL_DT_C64)
GEQRF(cublasZgeqrfBatched, cuDoubleComplex, TFL_DT_C128)

/* ----------------------------------------------------------------- gels */

static cublasStatus_t gels(const char *fn, cublasHandle_t handle, tfl_dtype t, int trans,
                           int64_t m, int64_t n, int64_t nrhs, void *const A[],
                           int64_t lda, void *const C[], int64_t ldc, int *info,
                           int *dev_info, int64_t batch)
{
    HANDLE(handle);
    if (!info)
        return CUBLAS_STATUS_INVALID_VALUE;
    *info = 0;
    /* cuBLAS solves only the non-transposed, overdetermined (m >= n) case */
    if (trans != CUBLAS_OP_N) {
        *info = -2;
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (m < 0) return bad_param(info, 3);
    if (n < 0 || n > m) return bad_param(info, 4);
    if (nrhs < 0) return bad_param(info, 5);
    if (lda < (m > 1 ? m : 1)) return bad_param(info, 7);
    if (ldc < (m > 1 ? m : 1)) return bad_param(info, 9);
    if (batch < 0) return bad_param(info, 12);
    if (batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    const size_t es = esz(t);
    TRY(check_ptrs(A, batch, fn, "A array"));
    TRY(check_ptrs(C, batch, fn, "C array"));
    if (dev_info)
        TRY(tfl_cublas_check_vector(dev_info, batch, 1, sizeof(int), fn, "devInfoArray"));
    for (int64_t b = 0; b < batch; b++) {
        TRY(tfl_cublas_check_matrix(A[b], m, n, lda, es, fn, "A"));
        TRY(tfl_cublas_check_matrix(C[b], m, nrhs, ldc, es, fn, "C"));
        tfl_op op = lapack_op(TFL_BLAS_GELS, t);
        tfl_blas_op *o = &op.u.blas;
        o->trans = trans; o->m = m; o->n = n; o->nrhs = nrhs;
        o->b = A[b]; o->ldb = lda; o->c = C[b]; o->ldc = ldc;
        o->info = dev_info ? (int32_t *)dev_info + b : NULL;
        TRY(tfl_cublas_run(&op, h->stream, fn));
    }
    return CUBLAS_STATUS_SUCCESS;
}

#define GELS(NAME, T, TY)                                                            \
cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t trans, int m, int n,    \
                    int nrhs, T *const A[], int lda, T *const C[], int ldc,          \
                    int *info, int *dev_info, int batch)                             \
{ return TFL_HOST_ACCESS(gels(#NAME, handle, TY, trans, m, n, nrhs, (void *const *)A, \
              lda, (void *const *)C, ldc, info, dev_info, batch)); }
GELS(cublasSgelsBatched, float, TFL_DT_F32)
GELS(cublasDgelsBatched, double, TFL_DT_F64)
GELS(cublasCgelsBatched, cuComplex, TFL_DT_C64)
GELS(cublasZgelsBatched, cuDoubleComplex, TFL_DT_C128)

/*
 * level12.c - the cuBLAS BLAS-1/2 routines PyTorch calls (gemv, ger, dot,
 * axpy, scal, nrm2, asum, iamax) and the non-GEMM level-3 ones it uses
 * (trsm, trsmBatched, syrk), for float and double, complex gemv / dotu /
 * dotc / trsm, with their _64 forms.
 *
 * Each checks arguments as cuBLAS documents, reads scalars in the handle's
 * pointer mode, checks vectors/matrices against the address map and hands
 * one TFL_OP_BLAS to route.  Results (dot, nrm2, asum, iamax) go to host
 * memory in host pointer mode and to device memory in device mode; the
 * host backend writes either directly.
 */
#include "cublas/cublas_internal.h"

#include <string.h>

#include "common/log.h"
#include "route/runtime.h"

#define HANDLE(hh) struct cublasContext *h = tfl_cublas_handle_get(hh); \
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED
#define DEVMODE (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
/* A host copy of a scalar argument: float, double or a complex pair. */
typedef union scalar { float f[2]; double d[2]; } scalar;

#define TRY(x) do { cublasStatus_t st_ = (x); if (st_) return st_; } while (0)

/* Element types of the typed entry points. */
#define T_S TFL_DT_F32
#define T_D TFL_DT_F64
#define T_C TFL_DT_C64
#define T_Z TFL_DT_C128

static size_t esz(tfl_dtype t)
{
    return t == TFL_DT_F32 ? 4 : t == TFL_DT_C128 ? 16 : 8;
}

static tfl_op blas_op(tfl_blas_fn fn, tfl_dtype t)
{
    tfl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TFL_OP_BLAS;
    op.name = "blas";
    op.u.blas.fn = fn;
    op.u.blas.type = t;
    return op;
}

/* A scalar result: in device mode it must be device memory. */
static cublasStatus_t check_result(struct cublasContext *h, void *result, size_t es,
                                   const char *fn)
{
    if (!result)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (DEVMODE)
        return tfl_cublas_check_vector(result, 1, 1, es, fn, "result");
    return CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- gemv */

static cublasStatus_t gemv(const char *fn, cublasHandle_t handle, tfl_dtype t, int trans,
                           int64_t m, int64_t n, const void *alpha, const void *A,
                           int64_t lda, const void *x, int64_t incx, const void *beta,
                           void *y, int64_t incy)
{
    HANDLE(handle);
    const size_t es = esz(t);
    if ((trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) ||
        m < 0 || n < 0 || incx == 0 || incy == 0 || lda < (m > 1 ? m : 1) ||
        !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    scalar a, b;
    TRY(tfl_cublas_read_scalar(DEVMODE, alpha, es, &a, fn, "alpha"));
    TRY(tfl_cublas_read_scalar(DEVMODE, beta, es, &b, fn, "beta"));
    int64_t lx = trans == CUBLAS_OP_N ? n : m, ly = trans == CUBLAS_OP_N ? m : n;
    TRY(tfl_cublas_check_matrix(A, m, n, lda, es, fn, "A"));
    TRY(tfl_cublas_check_vector(x, lx, incx, es, fn, "x"));
    TRY(tfl_cublas_check_vector(y, ly, incy, es, fn, "y"));
    tfl_op op = blas_op(TFL_BLAS_GEMV, t);
    tfl_blas_op *o = &op.u.blas;
    o->trans = trans; o->m = m; o->n = n; o->a = A; o->lda = lda;
    o->x = x; o->incx = incx; o->y = y; o->incy = incy;
    o->alpha = &a; o->beta = &b;
    return tfl_cublas_run(&op, h->stream, fn);
}

#define GEMV(NAME, SUF, IT, T, TY)                                                  \
cublasStatus_t NAME##SUF(cublasHandle_t handle, cublasOperation_t trans, IT m, IT n, \
                         const T *alpha, const T *A, IT lda, const T *x, IT incx,    \
                         const T *beta, T *y, IT incy)                               \
{ return gemv(#NAME, handle, TY, trans, m, n, alpha, A, lda, x, incx, beta, y, incy); }
GEMV(cublasSgemv_v2, , int, float, T_S)
GEMV(cublasDgemv_v2, , int, double, T_D)
GEMV(cublasSgemv_v2, _64, int64_t, float, T_S)
GEMV(cublasDgemv_v2, _64, int64_t, double, T_D)
GEMV(cublasCgemv_v2, , int, cuComplex, T_C)
GEMV(cublasZgemv_v2, , int, cuDoubleComplex, T_Z)
GEMV(cublasCgemv_v2, _64, int64_t, cuComplex, T_C)
GEMV(cublasZgemv_v2, _64, int64_t, cuDoubleComplex, T_Z)

/* ----------------------------------------------------------------- ger */

static cublasStatus_t ger(const char *fn, cublasHandle_t handle, tfl_dtype t, int64_t m,
                          int64_t n, const void *alpha, const void *x, int64_t incx,
                          const void *y, int64_t incy, void *A, int64_t lda)
{
    HANDLE(handle);
    const size_t es = esz(t);
    if (m < 0 || n < 0 || incx == 0 || incy == 0 || lda < (m > 1 ? m : 1) || !alpha)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    scalar a;
    TRY(tfl_cublas_read_scalar(DEVMODE, alpha, es, &a, fn, "alpha"));
    TRY(tfl_cublas_check_vector(x, m, incx, es, fn, "x"));
    TRY(tfl_cublas_check_vector(y, n, incy, es, fn, "y"));
    TRY(tfl_cublas_check_matrix(A, m, n, lda, es, fn, "A"));
    tfl_op op = blas_op(TFL_BLAS_GER, t);
    tfl_blas_op *o = &op.u.blas;
    o->m = m; o->n = n; o->x = x; o->incx = incx; o->y = (void *)y; o->incy = incy;
    o->b = A; o->ldb = lda; o->alpha = &a;
    return tfl_cublas_run(&op, h->stream, fn);
}

#define GER(NAME, SUF, IT, T, TY)                                                   \
cublasStatus_t NAME##SUF(cublasHandle_t handle, IT m, IT n, const T *alpha,          \
                         const T *x, IT incx, const T *y, IT incy, T *A, IT lda)     \
{ return ger(#NAME, handle, TY, m, n, alpha, x, incx, y, incy, A, lda); }
GER(cublasSger_v2, , int, float, T_S)
GER(cublasDger_v2, , int, double, T_D)
GER(cublasSger_v2, _64, int64_t, float, T_S)
GER(cublasDger_v2, _64, int64_t, double, T_D)

/* ------------------------------------------------- vector reductions */

static cublasStatus_t reduce_c(const char *fn, tfl_blas_fn which, cublasHandle_t handle,
                               tfl_dtype t, int conj, int64_t n, const void *x,
                               int64_t incx, const void *y, int64_t incy, void *result);

static cublasStatus_t reduce(const char *fn, tfl_blas_fn which, cublasHandle_t handle,
                             tfl_dtype t, int64_t n, const void *x, int64_t incx,
                             const void *y, int64_t incy, void *result)
{
    return reduce_c(fn, which, handle, t, 0, n, x, incx, y, incy, result);
}

/* conj: dotc (x conjugated) for complex types */
static cublasStatus_t reduce_c(const char *fn, tfl_blas_fn which, cublasHandle_t handle,
                               tfl_dtype t, int conj, int64_t n, const void *x,
                               int64_t incx, const void *y, int64_t incy, void *result)
{
    HANDLE(handle);
    const size_t es = esz(t);
    const size_t rs = which == TFL_BLAS_IAMAX ? sizeof(int) : es;
    TRY(check_result(h, result, rs, fn));
    if (n > 0 && (which == TFL_BLAS_DOT || incx > 0)) {
        TRY(tfl_cublas_check_vector(x, n, incx, es, fn, "x"));
        if (which == TFL_BLAS_DOT)
            TRY(tfl_cublas_check_vector(y, n, incy, es, fn, "y"));
    }
    tfl_op op = blas_op(which, t);
    tfl_blas_op *o = &op.u.blas;
    o->n = n; o->x = x; o->incx = incx; o->y = (void *)y; o->incy = incy;
    o->result = result;
    o->trans = conj ? CUBLAS_OP_C : CUBLAS_OP_N;
    return tfl_cublas_run(&op, h->stream, fn);
}

#define DOT(NAME, SUF, IT, T, TY)                                                   \
cublasStatus_t NAME##SUF(cublasHandle_t handle, IT n, const T *x, IT incx,           \
                         const T *y, IT incy, T *result)                             \
{ return reduce(#NAME, TFL_BLAS_DOT, handle, TY, n, x, incx, y, incy, result); }
DOT(cublasSdot_v2, , int, float, T_S)
DOT(cublasDdot_v2, , int, double, T_D)
DOT(cublasSdot_v2, _64, int64_t, float, T_S)
DOT(cublasDdot_v2, _64, int64_t, double, T_D)

#define CDOT(NAME, SUF, IT, T, TY, CONJ)                                             \
cublasStatus_t NAME##SUF(cublasHandle_t handle, IT n, const T *x, IT incx,           \
                         const T *y, IT incy, T *result)                             \
{ return reduce_c(#NAME, TFL_BLAS_DOT, handle, TY, CONJ, n, x, incx, y, incy, result); }
CDOT(cublasCdotu_v2, , int, cuComplex, T_C, 0)
CDOT(cublasCdotc_v2, , int, cuComplex, T_C, 1)
CDOT(cublasZdotu_v2, , int, cuDoubleComplex, T_Z, 0)
CDOT(cublasZdotc_v2, , int, cuDoubleComplex, T_Z, 1)
CDOT(cublasCdotu_v2, _64, int64_t, cuComplex, T_C, 0)
CDOT(cublasCdotc_v2, _64, int64_t, cuComplex, T_C, 1)
CDOT(cublasZdotu_v2, _64, int64_t, cuDoubleComplex, T_Z, 0)
CDOT(cublasZdotc_v2, _64, int64_t, cuDoubleComplex, T_Z, 1)

/* cublasDotEx: x, y and result of one type; fp16/bf16 execute in fp32. */
static cublasStatus_t dot_ex(cublasHandle_t handle, int64_t n, const void *x,
                             cudaDataType xt, int64_t incx, const void *y, cudaDataType yt,
                             int64_t incy, void *result, cudaDataType rt, cudaDataType et)
{
    static const char fn[] = "cublasDotEx";
    HANDLE(handle);
    if (xt != yt || xt != rt ||
        !((xt == CUDA_R_64F && et == CUDA_R_64F) ||
          ((xt == CUDA_R_32F || xt == CUDA_R_16F || xt == CUDA_R_16BF) && et == CUDA_R_32F))) {
        tfl_error("%s: types x %d y %d result %d execution %d not supported", fn,
                  (int)xt, (int)yt, (int)rt, (int)et);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    const size_t es = tfl_cublas_dtype_size(xt);
    TRY(check_result(h, result, es, fn));
    if (n > 0) {
        TRY(tfl_cublas_check_vector(x, n, incx, es, fn, "x"));
        TRY(tfl_cublas_check_vector(y, n, incy, es, fn, "y"));
    }
    tfl_op op = blas_op(TFL_BLAS_DOT, TFL_DT_F32);
    tfl_blas_op *o = &op.u.blas;
    o->type = (tfl_dtype)tfl_cublas_dtype(xt);
    o->n = n > 0 ? n : 0;     /* an empty dot writes 0 */
    o->x = x; o->incx = incx; o->y = (void *)y; o->incy = incy;
    o->result = result;
    return tfl_cublas_run(&op, h->stream, fn);
}

cublasStatus_t cublasDotEx(cublasHandle_t handle, int n, const void *x, cudaDataType xt,
                           int incx, const void *y, cudaDataType yt, int incy,
                           void *result, cudaDataType rt, cudaDataType et)
{
    return dot_ex(handle, n, x, xt, incx, y, yt, incy, result, rt, et);
}

cublasStatus_t cublasDotEx_64(cublasHandle_t handle, int64_t n, const void *x,
                              cudaDataType xt, int64_t incx, const void *y,
                              cudaDataType yt, int64_t incy, void *result,
                              cudaDataType rt, cudaDataType et)
{
    return dot_ex(handle, n, x, xt, incx, y, yt, incy, result, rt, et);
}

/* real types: the conjugated dot is the dot */
cublasStatus_t cublasDotcEx(cublasHandle_t handle, int n, const void *x, cudaDataType xt,
                            int incx, const void *y, cudaDataType yt, int incy,
                            void *result, cudaDataType rt, cudaDataType et)
{
    return dot_ex(handle, n, x, xt, incx, y, yt, incy, result, rt, et);
}

#define RED1(NAME, SUF, WHICH, IT, T, RT, TY)                                       \
cublasStatus_t NAME##SUF(cublasHandle_t handle, IT n, const T *x, IT incx, RT *result) \
{ return reduce(#NAME, WHICH, handle, TY, n, x, incx, NULL, 0, result); }
RED1(cublasSnrm2_v2, , TFL_BLAS_NRM2, int, float, float, T_S)
RED1(cublasDnrm2_v2, , TFL_BLAS_NRM2, int, double, double, T_D)
RED1(cublasSasum_v2, , TFL_BLAS_ASUM, int, float, float, T_S)
RED1(cublasDasum_v2, , TFL_BLAS_ASUM, int, double, double, T_D)
RED1(cublasIsamax_v2, , TFL_BLAS_IAMAX, int, float, int, T_S)
RED1(cublasIdamax_v2, , TFL_BLAS_IAMAX, int, double, int, T_D)
RED1(cublasSnrm2_v2, _64, TFL_BLAS_NRM2, int64_t, float, float, T_S)
RED1(cublasDnrm2_v2, _64, TFL_BLAS_NRM2, int64_t, double, double, T_D)
RED1(cublasSasum_v2, _64, TFL_BLAS_ASUM, int64_t, float, float, T_S)
RED1(cublasDasum_v2, _64, TFL_BLAS_ASUM, int64_t, double, double, T_D)

/* ------------------------------------------------------- axpy / scal */

static cublasStatus_t axpy_scal(const char *fn, tfl_blas_fn which, cublasHandle_t handle,
                                tfl_dtype t, int64_t n, const void *alpha, const void *x,
                                int64_t incx, void *y, int64_t incy)
{
    HANDLE(handle);
    const size_t es = esz(t);
    if (!alpha)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0 || (which == TFL_BLAS_SCAL && incy <= 0))
        return CUBLAS_STATUS_SUCCESS;
    scalar a;
    TRY(tfl_cublas_read_scalar(DEVMODE, alpha, es, &a, fn, "alpha"));
    if (which == TFL_BLAS_AXPY)
        TRY(tfl_cublas_check_vector(x, n, incx, es, fn, "x"));
    TRY(tfl_cublas_check_vector(y, n, incy, es, fn, which == TFL_BLAS_AXPY ? "y" : "x"));
    tfl_op op = blas_op(which, t);
    tfl_blas_op *o = &op.u.blas;
    o->n = n; o->x = x; o->incx = incx; o->y = y; o->incy = incy; o->alpha = &a;
    return tfl_cublas_run(&op, h->stream, fn);
}

#define AXPY(NAME, SUF, IT, T, TY)                                                  \
cublasStatus_t NAME##SUF(cublasHandle_t handle, IT n, const T *alpha, const T *x,    \
                         IT incx, T *y, IT incy)                                     \
{ return axpy_scal(#NAME, TFL_BLAS_AXPY, handle, TY, n, alpha, x, incx, y, incy); }
AXPY(cublasSaxpy_v2, , int, float, T_S)
AXPY(cublasDaxpy_v2, , int, double, T_D)
AXPY(cublasSaxpy_v2, _64, int64_t, float, T_S)
AXPY(cublasDaxpy_v2, _64, int64_t, double, T_D)

#define SCAL(NAME, SUF, IT, T, TY)                                                  \
cublasStatus_t NAME##SUF(cublasHandle_t handle, IT n, const T *alpha, T *x, IT incx) \
{ return axpy_scal(#NAME, TFL_BLAS_SCAL, handle, TY, n, alpha, NULL, 0, x, incx); }
SCAL(cublasSscal_v2, , int, float, T_S)
SCAL(cublasDscal_v2, , int, double, T_D)
SCAL(cublasSscal_v2, _64, int64_t, float, T_S)
SCAL(cublasDscal_v2, _64, int64_t, double, T_D)

/* ---------------------------------------------------------------- trsm */

static int trsm_args_ok(int side, int uplo, int trans, int diag, int64_t m, int64_t n,
                        int64_t lda, int64_t ldb, const void *alpha)
{
    int64_t na = side == CUBLAS_SIDE_LEFT ? m : n;
    return (side == CUBLAS_SIDE_LEFT || side == CUBLAS_SIDE_RIGHT) &&
           (uplo == CUBLAS_FILL_MODE_LOWER || uplo == CUBLAS_FILL_MODE_UPPER) &&
           (trans == CUBLAS_OP_N || trans == CUBLAS_OP_T || trans == CUBLAS_OP_C) &&
           (diag == CUBLAS_DIAG_NON_UNIT || diag == CUBLAS_DIAG_UNIT) &&
           m >= 0 && n >= 0 && lda >= (na > 1 ? na : 1) && ldb >= (m > 1 ? m : 1) && alpha;
}

static cublasStatus_t trsm(const char *fn, cublasHandle_t handle, tfl_dtype t, int side,
                           int uplo, int trans, int diag, int64_t m, int64_t n,
                           const void *alpha, const void *A, int64_t lda, void *B,
                           int64_t ldb)
{
    HANDLE(handle);
    const size_t es = esz(t);
    int64_t na = side == CUBLAS_SIDE_LEFT ? m : n;
    if (!trsm_args_ok(side, uplo, trans, diag, m, n, lda, ldb, alpha))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    scalar a;
    TRY(tfl_cublas_read_scalar(DEVMODE, alpha, es, &a, fn, "alpha"));
    TRY(tfl_cublas_check_matrix(A, na, na, lda, es, fn, "A"));
    TRY(tfl_cublas_check_matrix(B, m, n, ldb, es, fn, "B"));
    tfl_op op = blas_op(TFL_BLAS_TRSM, t);
    tfl_blas_op *o = &op.u.blas;
    o->side = side; o->uplo = uplo; o->trans = trans; o->diag = diag;
    o->m = m; o->n = n; o->a = A; o->lda = lda; o->b = B; o->ldb = ldb; o->alpha = &a;
    return tfl_cublas_run(&op, h->stream, fn);
}

#define TRSM(NAME, SUF, IT, T, TY)                                                  \
cublasStatus_t NAME##SUF(cublasHandle_t handle, cublasSideMode_t side,               \
                         cublasFillMode_t uplo, cublasOperation_t trans,             \
                         cublasDiagType_t diag, IT m, IT n, const T *alpha,          \
                         const T *A, IT lda, T *B, IT ldb)                           \
{ return trsm(#NAME, handle, TY, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb); }
TRSM(cublasStrsm_v2, , int, float, T_S)
TRSM(cublasDtrsm_v2, , int, double, T_D)
TRSM(cublasStrsm_v2, _64, int64_t, float, T_S)
TRSM(cublasDtrsm_v2, _64, int64_t, double, T_D)
TRSM(cublasCtrsm_v2, , int, cuComplex, T_C)
TRSM(cublasZtrsm_v2, , int, cuDoubleComplex, T_Z)
TRSM(cublasCtrsm_v2, _64, int64_t, cuComplex, T_C)
TRSM(cublasZtrsm_v2, _64, int64_t, cuDoubleComplex, T_Z)

/* Batched TRSM: one solve per pointer-array entry, each checked. */
static cublasStatus_t trsm_batched(const char *fn, cublasHandle_t handle, tfl_dtype t,
                                   int side, int uplo, int trans, int diag, int64_t m,
                                   int64_t n, const void *alpha, const void *const *A,
                                   int64_t lda, void *const *B, int64_t ldb, int64_t batch)
{
    HANDLE(handle);
    if (batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!trsm_args_ok(side, uplo, trans, diag, m, n, lda, ldb, alpha))
        return CUBLAS_STATUS_INVALID_VALUE;
    /* an empty batch (PyTorch passes one for a 0 x n x n input) reads no
     * pointer array, as cuBLAS */
    if (batch == 0 || m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    size_t pb = (size_t)batch * sizeof(void *);
    TRY(tfl_cublas_check_vector(A, 1, 1, pb, fn, "A array"));
    TRY(tfl_cublas_check_vector(B, 1, 1, pb, fn, "B array"));
    for (int64_t i = 0; i < batch; i++)
        TRY(trsm(fn, handle, t, side, uplo, trans, diag, m, n, alpha, A[i], lda, B[i], ldb));
    (void)h;
    return CUBLAS_STATUS_SUCCESS;
}

#define TRSMB(NAME, SUF, IT, T, TY)                                                  \
cublasStatus_t NAME##SUF(cublasHandle_t handle, cublasSideMode_t side,               \
                         cublasFillMode_t uplo, cublasOperation_t trans,             \
                         cublasDiagType_t diag, IT m, IT n, const T *alpha,          \
                         const T *const A[], IT lda, T *const B[], IT ldb, IT batch)  \
{ return TFL_HOST_ACCESS(trsm_batched(#NAME, handle, TY, side, uplo, trans, diag, m, \
                      n, alpha, (const void *const *)A, lda, (void *const *)B, ldb, batch)); }
TRSMB(cublasStrsmBatched, , int, float, T_S)
TRSMB(cublasDtrsmBatched, , int, double, T_D)
TRSMB(cublasCtrsmBatched, , int, cuComplex, T_C)
TRSMB(cublasZtrsmBatched, , int, cuDoubleComplex, T_Z)
TRSMB(cublasStrsmBatched, _64, int64_t, float, T_S)
TRSMB(cublasDtrsmBatched, _64, int64_t, double, T_D)
TRSMB(cublasCtrsmBatched, _64, int64_t, cuComplex, T_C)
TRSMB(cublasZtrsmBatched, _64, int64_t, cuDoubleComplex, T_Z)

/* ---------------------------------------------------------------- syrk */

static cublasStatus_t syrk(const char *fn, cublasHandle_t handle, tfl_dtype t, int uplo,
                           int trans, int64_t n, int64_t k, const void *alpha,
                           const void *A, int64_t lda, const void *beta, void *C,
                           int64_t ldc)
{
    HANDLE(handle);
    const size_t es = esz(t);
    int64_t ra = trans == CUBLAS_OP_N ? n : k, ca = trans == CUBLAS_OP_N ? k : n;
    if ((uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER) ||
        (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) ||
        n < 0 || k < 0 || lda < (ra > 1 ? ra : 1) || ldc < (n > 1 ? n : 1) ||
        !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0)
        return CUBLAS_STATUS_SUCCESS;
    scalar a, b;
    TRY(tfl_cublas_read_scalar(DEVMODE, alpha, es, &a, fn, "alpha"));
    TRY(tfl_cublas_read_scalar(DEVMODE, beta, es, &b, fn, "beta"));
    TRY(tfl_cublas_check_matrix(A, ra, ca, lda, es, fn, "A"));
    TRY(tfl_cublas_check_matrix(C, n, n, ldc, es, fn, "C"));
    tfl_op op = blas_op(TFL_BLAS_SYRK, t);
    tfl_blas_op *o = &op.u.blas;
    o->uplo = uplo; o->trans = trans; o->n = n; o->k = k; o->a = A; o->lda = lda;
    o->c = C; o->ldc = ldc; o->alpha = &a; o->beta = &b;
    return tfl_cublas_run(&op, h->stream, fn);
}

#define SYRK(NAME, SUF, IT, T, TY)                                                  \
cublasStatus_t NAME##SUF(cublasHandle_t handle, cublasFillMode_t uplo,               \
                         cublasOperation_t trans, IT n, IT k, const T *alpha,        \
                         const T *A, IT lda, const T *beta, T *C, IT ldc)            \
{ return syrk(#NAME, handle, TY, uplo, trans, n, k, alpha, A, lda, beta, C, ldc); }
SYRK(cublasSsyrk_v2, , int, float, T_S)
SYRK(cublasDsyrk_v2, , int, double, T_D)
SYRK(cublasSsyrk_v2, _64, int64_t, float, T_S)
SYRK(cublasDsyrk_v2, _64, int64_t, double, T_D)

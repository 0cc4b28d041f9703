/*
 * dense.c - the cuSOLVER dense (Dn) routines torch.linalg calls: LU
 * (getrf/getrs), Cholesky (potrf/potrs and their batched forms) and the
 * symmetric/Hermitian eigensolver (syevd/heevd), S/D/C/Z, with their
 * _bufferSize queries.
 *
 * Each matrix is one TFL_OP_BLAS (GETRF/GETRS/POTRF/POTRS/SYEVD) through
 * route after its operands were checked against the address map; the
 * backend writes devInfo (device memory), as cuSOLVER does.  The host
 * runs these without a workspace, so the _bufferSize answers are 1 and
 * the workspace arguments are only checked for presence.  Argument errors
 * return CUSOLVER_STATUS_INVALID_VALUE, as cuSOLVER documents.
 */
#include "cusolver/cusolver_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "route/runtime.h"

#define HANDLE(hh) struct cusolverDnContext *h = tfl_cusolver_handle_get(hh); \
    if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED
#define TRY(x) do { cusolverStatus_t st_ = tfl_cusolver_from_cublas(x); \
    if (st_) return st_; } while (0)
#define MAX1(n) ((n) > 1 ? (n) : 1)

static size_t esz(tfl_dtype t)
{
    return t == TFL_DT_F32 ? 4 : t == TFL_DT_C128 ? 16 : 8;
}

/* Size of the eigenvalue element: the real type of t. */
static size_t rsz(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_C64 ? 4 : 8;
}

static tfl_op solver_op(tfl_blas_fn fn, tfl_dtype t)
{
    tfl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TFL_OP_BLAS;
    op.name = "cusolver";
    op.u.blas.fn = fn;
    op.u.blas.type = t;
    return op;
}

static int bad_uplo(int uplo)
{
    return uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER;
}

static cusolverStatus_t check_info(const int *info, int64_t count, const char *fn)
{
    if (!info)
        return CUSOLVER_STATUS_INVALID_VALUE;
    return tfl_cusolver_from_cublas(
        tfl_cublas_check_vector(info, count, 1, sizeof(int), fn, "devInfo"));
}

/* ------------------------------------------------------------ bufferSize */

static cusolverStatus_t buffer_size(cusolverDnHandle_t handle, int64_t n, int *lwork)
{
    HANDLE(handle);
    (void)h;
    if (n < 0 || !lwork)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = 1;      /* the host needs no device workspace */
    return CUSOLVER_STATUS_SUCCESS;
}

#define GETRF_BS(NAME, T)                                                             \
cusolverStatus_t NAME(cusolverDnHandle_t handle, int m, int n, T *A, int lda,         \
                      int *lwork)                                                     \
{ (void)A; if (m < 0 || lda < MAX1(m)) return CUSOLVER_STATUS_INVALID_VALUE;          \
  return buffer_size(handle, n, lwork); }
GETRF_BS(cusolverDnSgetrf_bufferSize, float)
GETRF_BS(cusolverDnDgetrf_bufferSize, double)
GETRF_BS(cusolverDnCgetrf_bufferSize, cuComplex)
GETRF_BS(cusolverDnZgetrf_bufferSize, cuDoubleComplex)

#define POTRF_BS(NAME, T)                                                             \
cusolverStatus_t NAME(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *A,  \
                      int lda, int *lwork)                                            \
{ (void)A; if (bad_uplo(uplo) || lda < MAX1(n)) return CUSOLVER_STATUS_INVALID_VALUE; \
  return buffer_size(handle, n, lwork); }
POTRF_BS(cusolverDnSpotrf_bufferSize, float)
POTRF_BS(cusolverDnDpotrf_bufferSize, double)
POTRF_BS(cusolverDnCpotrf_bufferSize, cuComplex)
POTRF_BS(cusolverDnZpotrf_bufferSize, cuDoubleComplex)

#define SYEVD_BS(NAME, T, R)                                                          \
cusolverStatus_t NAME(cusolverDnHandle_t handle, cusolverEigMode_t jobz,              \
                      cublasFillMode_t uplo, int n, const T *A, int lda, const R *W,  \
                      int *lwork)                                                     \
{ (void)A; (void)W;                                                                   \
  if ((jobz != CUSOLVER_EIG_MODE_NOVECTOR && jobz != CUSOLVER_EIG_MODE_VECTOR) ||     \
      bad_uplo(uplo) || lda < MAX1(n)) return CUSOLVER_STATUS_INVALID_VALUE;          \
  return buffer_size(handle, n, lwork); }
SYEVD_BS(cusolverDnSsyevd_bufferSize, float, float)
SYEVD_BS(cusolverDnDsyevd_bufferSize, double, double)
SYEVD_BS(cusolverDnCheevd_bufferSize, cuComplex, float)
SYEVD_BS(cusolverDnZheevd_bufferSize, cuDoubleComplex, double)

/* ----------------------------------------------------------------- getrf */

static cusolverStatus_t getrf(const char *fn, cusolverDnHandle_t handle, tfl_dtype t,
                              int64_t m, int64_t n, void *A, int64_t lda, int *ipiv,
                              int *info)
{
    HANDLE(handle);
    if (m < 0 || n < 0 || lda < MAX1(m))
        return CUSOLVER_STATUS_INVALID_VALUE;
    cusolverStatus_t st = check_info(info, 1, fn);
    if (st)
        return st;
    if (m != n) {                     /* the host LU is square only */
        tfl_error("%s: %lldx%lld LU (only square matrices are supported)", fn,
                  (long long)m, (long long)n);
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    TRY(tfl_cublas_check_matrix(A, m, n, lda, esz(t), fn, "A"));
    if (ipiv)
        TRY(tfl_cublas_check_vector(ipiv, n, 1, sizeof(int), fn, "devIpiv"));
    tfl_op op = solver_op(TFL_BLAS_GETRF, t);
    tfl_blas_op *o = &op.u.blas;
    o->n = n; o->b = A; o->ldb = lda; o->ipiv = (int32_t *)ipiv; o->info = (int32_t *)info;
    TRY(tfl_cublas_run(&op, h->stream, fn));
    return CUSOLVER_STATUS_SUCCESS;
}

#define GETRF(NAME, T, TY)                                                            \
cusolverStatus_t NAME(cusolverDnHandle_t handle, int m, int n, T *A, int lda,         \
                      T *work, int *ipiv, int *info)                                  \
{ (void)work; return getrf(#NAME, handle, TY, m, n, A, lda, ipiv, info); }
GETRF(cusolverDnSgetrf, float, TFL_DT_F32)
GETRF(cusolverDnDgetrf, double, TFL_DT_F64)
GETRF(cusolverDnCgetrf, cuComplex, TFL_DT_C64)
GETRF(cusolverDnZgetrf, cuDoubleComplex, TFL_DT_C128)

/* ----------------------------------------------------------------- getrs */

static cusolverStatus_t getrs(const char *fn, cusolverDnHandle_t handle, tfl_dtype t,
                              int trans, int64_t n, int64_t nrhs, const void *A,
                              int64_t lda, const int *ipiv, void *B, int64_t ldb, int *info)
{
    HANDLE(handle);
    if ((trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) ||
        n < 0 || nrhs < 0 || lda < MAX1(n) || ldb < MAX1(n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    cusolverStatus_t st = check_info(info, 1, fn);
    if (st)
        return st;
    TRY(tfl_cublas_check_matrix(A, n, n, lda, esz(t), fn, "A"));
    TRY(tfl_cublas_check_matrix(B, n, nrhs, ldb, esz(t), fn, "B"));
    if (ipiv)
        TRY(tfl_cublas_check_vector(ipiv, n, 1, sizeof(int), fn, "devIpiv"));
    tfl_op op = solver_op(TFL_BLAS_GETRS, t);
    tfl_blas_op *o = &op.u.blas;
    o->trans = trans; o->n = n; o->nrhs = nrhs; o->a = A; o->lda = lda;
    o->b = B; o->ldb = ldb; o->ipiv = (int32_t *)ipiv; o->info = (int32_t *)info;
    TRY(tfl_cublas_run(&op, h->stream, fn));
    return CUSOLVER_STATUS_SUCCESS;
}

#define GETRS(NAME, T, TY)                                                            \
cusolverStatus_t NAME(cusolverDnHandle_t handle, cublasOperation_t trans, int n,      \
                      int nrhs, const T *A, int lda, const int *ipiv, T *B, int ldb,  \
                      int *info)                                                      \
{ return getrs(#NAME, handle, TY, trans, n, nrhs, A, lda, ipiv, B, ldb, info); }
GETRS(cusolverDnSgetrs, float, TFL_DT_F32)
GETRS(cusolverDnDgetrs, double, TFL_DT_F64)
GETRS(cusolverDnCgetrs, cuComplex, TFL_DT_C64)
GETRS(cusolverDnZgetrs, cuDoubleComplex, TFL_DT_C128)

/* ----------------------------------------------------------- potrf/potrs */

static cusolverStatus_t potrf(const char *fn, cusolverDnHandle_t handle, tfl_dtype t,
                              int uplo, int64_t n, void *const A[], int64_t lda,
                              int *info, int64_t batch)
{
    HANDLE(handle);
    if (bad_uplo(uplo) || n < 0 || lda < MAX1(n) || batch < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (batch == 0)
        return CUSOLVER_STATUS_SUCCESS;
    cusolverStatus_t st = check_info(info, batch, fn);
    if (st)
        return st;
    for (int64_t b = 0; b < batch; b++) {
        TRY(tfl_cublas_check_matrix(A[b], n, n, lda, esz(t), fn, "A"));
        tfl_op op = solver_op(TFL_BLAS_POTRF, t);
        tfl_blas_op *o = &op.u.blas;
        o->uplo = uplo == CUBLAS_FILL_MODE_UPPER; o->n = n;
        o->b = A[b]; o->ldb = lda; o->info = (int32_t *)info + b;
        TRY(tfl_cublas_run(&op, h->stream, fn));
    }
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t potrs(const char *fn, cusolverDnHandle_t handle, tfl_dtype t,
                              int uplo, int64_t n, int64_t nrhs, const void *const A[],
                              int64_t lda, void *const B[], int64_t ldb, int *info,
                              int64_t batch)
{
    HANDLE(handle);
    if (bad_uplo(uplo) || n < 0 || nrhs < 0 || lda < MAX1(n) || ldb < MAX1(n) ||
        batch < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (batch == 0)
        return CUSOLVER_STATUS_SUCCESS;
    cusolverStatus_t st = check_info(info, 1, fn);
    if (st)
        return st;
    for (int64_t b = 0; b < batch; b++) {
        TRY(tfl_cublas_check_matrix(A[b], n, n, lda, esz(t), fn, "A"));
        TRY(tfl_cublas_check_matrix(B[b], n, nrhs, ldb, esz(t), fn, "B"));
        tfl_op op = solver_op(TFL_BLAS_POTRS, t);
        tfl_blas_op *o = &op.u.blas;
        o->uplo = uplo == CUBLAS_FILL_MODE_UPPER; o->n = n; o->nrhs = nrhs;
        o->a = A[b]; o->lda = lda; o->b = B[b]; o->ldb = ldb;
        o->info = (int32_t *)info;   /* one devInfo for the whole batch */
        TRY(tfl_cublas_run(&op, h->stream, fn));
    }
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t check_ptrs(const void *arr, int64_t batch, const char *fn)
{
    if (!arr)
        return CUSOLVER_STATUS_INVALID_VALUE;
    return tfl_cusolver_from_cublas(tfl_cublas_check_vector(
        arr, 1, 1, (size_t)batch * sizeof(void *), fn, "pointer array"));
}

#define POTRF(NAME, BNAME, SNAME, BSNAME, T, TY)                                      \
cusolverStatus_t NAME(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *A,  \
                      int lda, T *work, int lwork, int *info)                         \
{ (void)work; (void)lwork; void *arr[1] = {A};                                        \
  return potrf(#NAME, handle, TY, uplo, n, arr, lda, info, 1); }                      \
cusolverStatus_t BNAME(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,       \
                       T *A[], int lda, int *info, int batch)                         \
{ if (batch > 0) { cusolverStatus_t st = check_ptrs(A, batch, #BNAME);                \
                   if (st) return st; }                                               \
  return TFL_HOST_ACCESS(potrf(#BNAME, handle, TY, uplo, n, (void *const *)A, lda,   \
                               info, batch)); }                                      \
cusolverStatus_t SNAME(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,       \
                       int nrhs, const T *A, int lda, T *B, int ldb, int *info)       \
{ const void *a[1] = {A}; void *b[1] = {B};                                           \
  return potrs(#SNAME, handle, TY, uplo, n, nrhs, a, lda, b, ldb, info, 1); }         \
cusolverStatus_t BSNAME(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,      \
                        int nrhs, T *A[], int lda, T *B[], int ldb, int *info,        \
                        int batch)                                                    \
{ if (batch > 0) { cusolverStatus_t st = check_ptrs(A, batch, #BSNAME);               \
                   if (!st) st = check_ptrs(B, batch, #BSNAME);                       \
                   if (st) return st; }                                               \
  return TFL_HOST_ACCESS(potrs(#BSNAME, handle, TY, uplo, n, nrhs,                    \
               (const void *const *)A, lda, (void *const *)B, ldb, info, batch)); }
POTRF(cusolverDnSpotrf, cusolverDnSpotrfBatched, cusolverDnSpotrs,
      cusolverDnSpotrsBatched, float, TFL_DT_F32)
POTRF(cusolverDnDpotrf, cusolverDnDpotrfBatched, cusolverDnDpotrs,
      cusolverDnDpotrsBatched, double, TFL_DT_F64)
POTRF(cusolverDnCpotrf, cusolverDnCpotrfBatched, cusolverDnCpotrs,
      cusolverDnCpotrsBatched, cuComplex, TFL_DT_C64)
POTRF(cusolverDnZpotrf, cusolverDnZpotrfBatched, cusolverDnZpotrs,
      cusolverDnZpotrsBatched, cuDoubleComplex, TFL_DT_C128)

/* ----------------------------------------------------------------- syevd */

static cusolverStatus_t syevd(const char *fn, cusolverDnHandle_t handle, tfl_dtype t,
                              int jobz, int uplo, int64_t n, void *A, int64_t lda,
                              void *W, int *info)
{
    HANDLE(handle);
    if ((jobz != CUSOLVER_EIG_MODE_NOVECTOR && jobz != CUSOLVER_EIG_MODE_VECTOR) ||
        bad_uplo(uplo) || n < 0 || lda < MAX1(n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    cusolverStatus_t st = check_info(info, 1, fn);
    if (st)
        return st;
    TRY(tfl_cublas_check_matrix(A, n, n, lda, esz(t), fn, "A"));
    TRY(tfl_cublas_check_vector(W, n, 1, rsz(t), fn, "W"));
    tfl_op op = solver_op(TFL_BLAS_SYEVD, t);
    tfl_blas_op *o = &op.u.blas;
    o->jobz = jobz == CUSOLVER_EIG_MODE_VECTOR; o->uplo = uplo == CUBLAS_FILL_MODE_UPPER;
    o->n = n; o->b = A; o->ldb = lda; o->w = W; o->info = (int32_t *)info;
    TRY(tfl_cublas_run(&op, h->stream, fn));
    return CUSOLVER_STATUS_SUCCESS;
}

#define SYEVD(NAME, T, R, TY)                                                         \
cusolverStatus_t NAME(cusolverDnHandle_t handle, cusolverEigMode_t jobz,              \
                      cublasFillMode_t uplo, int n, T *A, int lda, R *W, T *work,     \
                      int lwork, int *info)                                           \
{ (void)work; (void)lwork; return syevd(#NAME, handle, TY, jobz, uplo, n, A, lda, W, info); }
SYEVD(cusolverDnSsyevd, float, float, TFL_DT_F32)
SYEVD(cusolverDnDsyevd, double, double, TFL_DT_F64)
SYEVD(cusolverDnCheevd, cuComplex, float, TFL_DT_C64)
SYEVD(cusolverDnZheevd, cuDoubleComplex, double, TFL_DT_C128)

/* ------------------------------------------------------- 64-bit (X) API */
/* The params object only carries algorithm choices, which the host
 * ignores (every algorithm gives the LAPACK result). */

struct cusolverDnParams {
    int algo;
};

cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *params)
{
    if (!params)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *params = calloc(1, sizeof(**params));
    return *params ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_ALLOC_FAILED;
}

cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params)
{
    free(params);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSetAdvOptions(cusolverDnParams_t params,
                                         cusolverDnFunction_t function,
                                         cusolverAlgMode_t algo)
{
    (void)function;
    if (!params)
        return CUSOLVER_STATUS_INVALID_VALUE;
    params->algo = (int)algo;
    return CUSOLVER_STATUS_SUCCESS;
}

/* The tfl type of a data type the X API accepts with computeType equal
 * to it (mixed precisions are refused); -1 otherwise. */
static int xtype(cudaDataType a, cudaDataType compute)
{
    if (a != compute)
        return -1;
    switch (a) {
    case CUDA_R_32F: return TFL_DT_F32;
    case CUDA_R_64F: return TFL_DT_F64;
    case CUDA_C_32F: return TFL_DT_C64;
    case CUDA_C_64F: return TFL_DT_C128;
    default: return -1;
    }
}

static cudaDataType real_of(cudaDataType t)
{
    return t == CUDA_C_32F ? CUDA_R_32F : t == CUDA_C_64F ? CUDA_R_64F : t;
}

static cusolverStatus_t xbuffer(cusolverDnHandle_t handle, int t, size_t *dev,
                                size_t *host)
{
    HANDLE(handle);
    (void)h;
    if (!dev || !host)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (t < 0)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    *dev = 16;       /* the host needs no workspace; a token size */
    *host = 0;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t handle,
                                             cusolverDnParams_t params,
                                             cublasFillMode_t uplo, int64_t n,
                                             cudaDataType dataTypeA, const void *A,
                                             int64_t lda, cudaDataType computeType,
                                             size_t *dev, size_t *host)
{
    (void)params; (void)A;
    if (bad_uplo(uplo) || n < 0 || lda < MAX1(n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    return xbuffer(handle, xtype(dataTypeA, computeType), dev, host);
}

cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA,
                                  void *A, int64_t lda, cudaDataType computeType,
                                  void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void *bufferOnHost, size_t workspaceInBytesOnHost,
                                  int *info)
{
    (void)params; (void)bufferOnDevice; (void)workspaceInBytesOnDevice;
    (void)bufferOnHost; (void)workspaceInBytesOnHost;
    int t = xtype(dataTypeA, computeType);
    if (t < 0)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    void *arr[1] = {A};
    return potrf("cusolverDnXpotrf", handle, (tfl_dtype)t, uplo, n, arr, lda, info, 1);
}

cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cublasFillMode_t uplo, int64_t n, int64_t nrhs,
                                  cudaDataType dataTypeA, const void *A, int64_t lda,
                                  cudaDataType dataTypeB, void *B, int64_t ldb, int *info)
{
    (void)params;
    int t = xtype(dataTypeA, dataTypeB);
    if (t < 0)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    const void *a[1] = {A};
    void *b[1] = {B};
    return potrs("cusolverDnXpotrs", handle, (tfl_dtype)t, uplo, n, nrhs, a, lda, b, ldb,
                 info, 1);
}

cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t handle,
                                             cusolverDnParams_t params,
                                             cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                             int64_t n, cudaDataType dataTypeA,
                                             const void *A, int64_t lda,
                                             cudaDataType dataTypeW, const void *W,
                                             cudaDataType computeType, size_t *dev,
                                             size_t *host)
{
    (void)params; (void)A; (void)W;
    if ((jobz != CUSOLVER_EIG_MODE_NOVECTOR && jobz != CUSOLVER_EIG_MODE_VECTOR) ||
        bad_uplo(uplo) || n < 0 || lda < MAX1(n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    int t = xtype(dataTypeA, computeType);
    if (dataTypeW != real_of(dataTypeA))
        t = -1;
    return xbuffer(handle, t, dev, host);
}

cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda,
                                  cudaDataType dataTypeW, void *W, cudaDataType computeType,
                                  void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void *bufferOnHost, size_t workspaceInBytesOnHost,
                                  int *info)
{
    (void)params; (void)bufferOnDevice; (void)workspaceInBytesOnDevice;
    (void)bufferOnHost; (void)workspaceInBytesOnHost;
    int t = xtype(dataTypeA, computeType);
    if (t < 0 || dataTypeW != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return syevd("cusolverDnXsyevd", handle, (tfl_dtype)t, jobz, uplo, n, A, lda, W, info);
}

/* Batched: batchSize matrices lda*n apart, eigenvalues n apart, one info
 * each. */
cusolverStatus_t cusolverDnXsyevBatched_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, const void *A, int64_t lda,
    cudaDataType dataTypeW, const void *W, cudaDataType computeType, size_t *dev,
    size_t *host, int64_t batchSize)
{
    if (batchSize < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    return cusolverDnXsyevd_bufferSize(handle, params, jobz, uplo, n, dataTypeA, A, lda,
                                       dataTypeW, W, computeType, dev, host);
}

cusolverStatus_t cusolverDnXsyevBatched(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
    cudaDataType dataTypeW, void *W, cudaDataType computeType, void *bufferOnDevice,
    size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
    int *info, int64_t batchSize)
{
    (void)params; (void)bufferOnDevice; (void)workspaceInBytesOnDevice;
    (void)bufferOnHost; (void)workspaceInBytesOnHost;
    int t = xtype(dataTypeA, computeType);
    if (t < 0 || dataTypeW != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (batchSize < 0 || n < 0 || lda < MAX1(n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    for (int64_t b = 0; b < batchSize; b++) {
        cusolverStatus_t st = syevd("cusolverDnXsyevBatched", handle, (tfl_dtype)t, jobz,
                                    uplo, n, (char *)A + (size_t)(b * lda * n) * esz(t),
                                    lda, (char *)W + (size_t)(b * n) * rsz(t),
                                    info ? info + b : NULL);
        if (st)
            return st;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ QR (geqrf) */

static cusolverStatus_t qr_op(const char *fn, cusolverDnHandle_t handle, tfl_blas_fn f,
                              tfl_dtype t, int64_t m, int64_t n, int64_t k, void *A,
                              int64_t lda, const void *tau, int *info)
{
    HANDLE(handle);
    if (m < 0 || n < 0 || k < 0 || lda < MAX1(m) ||
        (f == TFL_BLAS_ORGQR && (n > m || k > n)))
        return CUSOLVER_STATUS_INVALID_VALUE;
    cusolverStatus_t st = check_info(info, 1, fn);
    if (st)
        return st;
    int64_t ntau = f == TFL_BLAS_ORGQR ? k : (m < n ? m : n);
    TRY(tfl_cublas_check_matrix(A, m, n, lda, esz(t), fn, "A"));
    if (ntau)
        TRY(tfl_cublas_check_vector(tau, ntau, 1, esz(t), fn, "tau"));
    tfl_op op = solver_op(f, t);
    tfl_blas_op *o = &op.u.blas;
    o->m = m; o->n = n; o->k = k; o->b = A; o->ldb = lda;
    o->tau = (void *)tau; o->info = (int32_t *)info;
    TRY(tfl_cublas_run(&op, h->stream, fn));
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t handle,
                                             cusolverDnParams_t params, int64_t m,
                                             int64_t n, cudaDataType dataTypeA,
                                             const void *A, int64_t lda,
                                             cudaDataType dataTypeTau, const void *tau,
                                             cudaDataType computeType, size_t *dev,
                                             size_t *host)
{
    (void)params; (void)A; (void)tau;
    if (m < 0 || n < 0 || lda < MAX1(m))
        return CUSOLVER_STATUS_INVALID_VALUE;
    int t = xtype(dataTypeA, computeType);
    if (dataTypeTau != dataTypeA)
        t = -1;
    return xbuffer(handle, t, dev, host);
}

cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                  int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
                                  int64_t lda, cudaDataType dataTypeTau, void *tau,
                                  cudaDataType computeType, void *bufferOnDevice,
                                  size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                  size_t workspaceInBytesOnHost, int *info)
{
    (void)params; (void)bufferOnDevice; (void)workspaceInBytesOnDevice;
    (void)bufferOnHost; (void)workspaceInBytesOnHost;
    int t = xtype(dataTypeA, computeType);
    if (t < 0 || dataTypeTau != dataTypeA)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return qr_op("cusolverDnXgeqrf", handle, TFL_BLAS_GEQRF, (tfl_dtype)t, m, n, 0, A, lda,
                 tau, info);
}

#define ORGQR(NAME, BSNAME, T, TY)                                                    \
cusolverStatus_t BSNAME(cusolverDnHandle_t handle, int m, int n, int k, const T *A,   \
                        int lda, const T *tau, int *lwork)                            \
{ (void)A; (void)tau;                                                                 \
  if (m < 0 || n < 0 || n > m || k < 0 || k > n || lda < MAX1(m))                    \
      return CUSOLVER_STATUS_INVALID_VALUE;                                           \
  return buffer_size(handle, n, lwork); }                                             \
cusolverStatus_t NAME(cusolverDnHandle_t handle, int m, int n, int k, T *A, int lda,  \
                      const T *tau, T *work, int lwork, int *info)                    \
{ (void)work; (void)lwork;                                                            \
  return qr_op(#NAME, handle, TFL_BLAS_ORGQR, TY, m, n, k, A, lda, tau, info); }
ORGQR(cusolverDnSorgqr, cusolverDnSorgqr_bufferSize, float, TFL_DT_F32)
ORGQR(cusolverDnDorgqr, cusolverDnDorgqr_bufferSize, double, TFL_DT_F64)
ORGQR(cusolverDnCungqr, cusolverDnCungqr_bufferSize, cuComplex, TFL_DT_C64)
ORGQR(cusolverDnZungqr, cusolverDnZungqr_bufferSize, cuDoubleComplex, TFL_DT_C128)

/*
 * lapack.c - the LAPACK-style TFL_OP_BLAS functions on the host: LU
 * (getrf, with or without pivoting), LU solve (getrs), QR (geqrf) and
 * least squares (gels), one matrix per op, through OpenBLAS's LAPACK;
 * and for cuSOLVER: Cholesky (potrf), its solve (potrs) and the
 * symmetric/Hermitian eigensolver (syevd/heevd).
 *
 * cuBLAS offers these only batched (cublas?getrfBatched ...); the entry
 * points loop over the batch.  LAPACK has no unpivoted LU, which cuBLAS
 * gives when the pivot array is NULL, so that one is written out here.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"

/* LAPACK (Fortran ABI: everything by reference, hidden string lengths). */
#define LAPACK_DECL(P, T)                                                          \
    void P##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv,    \
                   int *info);                                                     \
    void P##getrs_(const char *tr, const int *n, const int *nrhs, const T *a,      \
                   const int *lda, const int *ipiv, T *b, const int *ldb,          \
                   int *info, size_t tr_len);                                      \
    void P##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau,       \
                   T *work, const int *lwork, int *info);                          \
    void P##gels_(const char *tr, const int *m, const int *n, const int *nrhs,     \
                  T *a, const int *lda, T *b, const int *ldb, T *work,             \
                  const int *lwork, int *info, size_t tr_len);                     \
    void P##potrf_(const char *uplo, const int *n, T *a, const int *lda, int *info, \
                   size_t uplo_len);                                               \
    void P##potrs_(const char *uplo, const int *n, const int *nrhs, const T *a,     \
                   const int *lda, T *b, const int *ldb, int *info, size_t uplo_len);
LAPACK_DECL(s, float)
LAPACK_DECL(d, double)
LAPACK_DECL(c, float complex)
LAPACK_DECL(z, double complex)
/* Q of a QR: orgqr (real) and ungqr (complex) share one signature. */
#define ORGQR_DECL(F, T)                                                           \
    void F(const int *m, const int *n, const int *k, T *a, const int *lda,         \
           const T *tau, T *work, const int *lwork, int *info);
ORGQR_DECL(sorgqr_, float)
ORGQR_DECL(dorgqr_, double)
ORGQR_DECL(cungqr_, float complex)
ORGQR_DECL(zungqr_, double complex)
#define orgqr_s sorgqr_
#define orgqr_d dorgqr_
#define orgqr_c cungqr_
#define orgqr_z zungqr_

void ssyevd_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda,
             float *w, float *work, const int *lwork, int *iwork, const int *liwork,
             int *info, size_t jobz_len, size_t uplo_len);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork,
             int *info, size_t jobz_len, size_t uplo_len);
void cheevd_(const char *jobz, const char *uplo, const int *n, float complex *a,
             const int *lda, float *w, float complex *work, const int *lwork, float *rwork,
             const int *lrwork, int *iwork, const int *liwork, int *info, size_t jobz_len,
             size_t uplo_len);
void zheevd_(const char *jobz, const char *uplo, const int *n, double complex *a,
             const int *lda, double *w, double complex *work, const int *lwork,
             double *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
             size_t jobz_len, size_t uplo_len);

/* Symmetric (real) eigensolver: workspace query, then the call. */
#define SYEVD(NAME, F, T)                                                          \
    static int NAME(char jobz, char uplo, int n, T *a, int lda, T *w)              \
    {                                                                              \
        int info = 0, lwork = -1, liwork = -1, iq = 0;                             \
        T q = 0;                                                                   \
        F(&jobz, &uplo, &n, a, &lda, w, &q, &lwork, &iq, &liwork, &info, 1, 1);    \
        lwork = q > 1 ? (int)q : 1;                                                \
        liwork = iq > 1 ? iq : 1;                                                  \
        T *work = malloc(sizeof(T) * (size_t)lwork);                               \
        int *iwork = malloc(sizeof(int) * (size_t)liwork);                         \
        if (work && iwork)                                                         \
            F(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info,   \
              1, 1);                                                               \
        else                                                                       \
            info = -1000;                                                          \
        free(work);                                                                \
        free(iwork);                                                               \
        return info;                                                               \
    }
SYEVD(syevd_s, ssyevd_, float)
SYEVD(syevd_d, dsyevd_, double)

/* Hermitian eigensolver (complex work plus real rwork). */
#define HEEVD(NAME, F, T, R)                                                       \
    static int NAME(char jobz, char uplo, int n, T *a, int lda, R *w)              \
    {                                                                              \
        int info = 0, lwork = -1, lrwork = -1, liwork = -1, iq = 0;                \
        T q = 0;                                                                   \
        R rq = 0;                                                                  \
        F(&jobz, &uplo, &n, a, &lda, w, &q, &lwork, &rq, &lrwork, &iq, &liwork,    \
          &info, 1, 1);                                                            \
        lwork = creal(q) > 1 ? (int)creal(q) : 1;                                  \
        lrwork = rq > 1 ? (int)rq : 1;                                             \
        liwork = iq > 1 ? iq : 1;                                                  \
        T *work = malloc(sizeof(T) * (size_t)lwork);                               \
        R *rwork = malloc(sizeof(R) * (size_t)lrwork);                             \
        int *iwork = malloc(sizeof(int) * (size_t)liwork);                         \
        if (work && rwork && iwork)                                                \
            F(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork,   \
              &liwork, &info, 1, 1);                                               \
        else                                                                       \
            info = -1000;                                                          \
        free(work);                                                                \
        free(rwork);                                                               \
        free(iwork);                                                               \
        return info;                                                               \
    }
HEEVD(syevd_c, cheevd_, float complex, float)
HEEVD(syevd_z, zheevd_, double complex, double)

/* LU without pivoting (Doolittle, right-looking), as LAPACK's unblocked
 * getf2 would do with every pivot in place: a zero pivot is reported in
 * info (first one, 1-based) and its column is left unscaled. */
#define NOPIV_LU(NAME, T)                                                          \
    static int NAME(int n, T *a, int lda)                                          \
    {                                                                              \
        int info = 0;                                                              \
        for (int j = 0; j < n; j++) {                                              \
            T piv = a[j + (size_t)j * lda];                                        \
            if (piv == 0) {                                                        \
                if (!info)                                                         \
                    info = j + 1;                                                  \
                continue;                                                          \
            }                                                                      \
            for (int i = j + 1; i < n; i++)                                        \
                a[i + (size_t)j * lda] /= piv;                                     \
            for (int c = j + 1; c < n; c++) {                                      \
                T f = a[j + (size_t)c * lda];                                      \
                for (int i = j + 1; i < n; i++)                                    \
                    a[i + (size_t)c * lda] -= a[i + (size_t)j * lda] * f;          \
            }                                                                      \
        }                                                                          \
        return info;                                                               \
    }
NOPIV_LU(lu_s, float)
NOPIV_LU(lu_d, double)
NOPIV_LU(lu_c, float complex)
NOPIV_LU(lu_z, double complex)

static char trans_char(int t)
{
    return t == 0 ? 'N' : t == 1 ? 'T' : 'C';
}

/* One LAPACK call per type; T is the element type, P the prefix, R the
 * real type of the eigenvalues. */
#define RUN_LAPACK(P, T, LU, R)                                                    \
    static tfl_status run_##P(const tfl_blas_op *op)                               \
    {                                                                              \
        int m = (int)op->m, n = (int)op->n, nrhs = (int)op->nrhs, info = 0;        \
        int lda = (int)op->lda, ldb = (int)op->ldb, ldc = (int)op->ldc;            \
        char tr = trans_char(op->trans);                                           \
        switch (op->fn) {                                                          \
        case TFL_BLAS_GETRF:                                                       \
            if (op->ipiv)                                                          \
                P##getrf_(&n, &n, op->b, &ldb, op->ipiv, &info);                   \
            else                                                                   \
                info = LU(n, op->b, ldb);                                          \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return TFL_OK;                                                         \
        case TFL_BLAS_GETRS: {                                                     \
            const int *ipiv = op->ipiv;                                            \
            int *ident = NULL;                                                     \
            if (!ipiv) {              /* no pivots: the identity sequence */       \
                ident = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));             \
                if (!ident)                                                        \
                    return TFL_ERR_NOMEM;                                          \
                for (int i = 0; i < n; i++)                                        \
                    ident[i] = i + 1;                                              \
                ipiv = ident;                                                      \
            }                                                                      \
            P##getrs_(&tr, &n, &nrhs, op->a, &lda, ipiv, op->b, &ldb, &info, 1);   \
            free(ident);                                                           \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return info < 0 ? TFL_ERR_INVALID : TFL_OK;                            \
        }                                                                          \
        case TFL_BLAS_GEQRF:                                                       \
        case TFL_BLAS_GELS: {                                                      \
            T q;                                                                   \
            int lwork = -1;           /* workspace query, then the call */         \
            if (op->fn == TFL_BLAS_GEQRF)                                          \
                P##geqrf_(&m, &n, op->b, &ldb, op->tau, &q, &lwork, &info);        \
            else                                                                   \
                P##gels_(&tr, &m, &n, &nrhs, op->b, &ldb, op->c, &ldc, &q,         \
                         &lwork, &info, 1);                                        \
            lwork = (int)creal(q);                                                 \
            if (lwork < 1)                                                         \
                lwork = 1;                                                         \
            T *work = malloc(sizeof(T) * (size_t)lwork);                           \
            if (!work)                                                             \
                return TFL_ERR_NOMEM;                                              \
            if (op->fn == TFL_BLAS_GEQRF)                                          \
                P##geqrf_(&m, &n, op->b, &ldb, op->tau, work, &lwork, &info);      \
            else                                                                   \
                P##gels_(&tr, &m, &n, &nrhs, op->b, &ldb, op->c, &ldc, work,       \
                         &lwork, &info, 1);                                        \
            free(work);                                                            \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return info < 0 ? TFL_ERR_INVALID : TFL_OK;                            \
        }                                                                          \
        case TFL_BLAS_POTRF: {                                                     \
            char ul = op->uplo ? 'U' : 'L';                                        \
            P##potrf_(&ul, &n, op->b, &ldb, &info, 1);                             \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return info < 0 ? TFL_ERR_INVALID : TFL_OK;                            \
        }                                                                          \
        case TFL_BLAS_POTRS: {                                                     \
            char ul = op->uplo ? 'U' : 'L';                                        \
            P##potrs_(&ul, &n, &nrhs, op->a, &lda, op->b, &ldb, &info, 1);         \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return info < 0 ? TFL_ERR_INVALID : TFL_OK;                            \
        }                                                                          \
        case TFL_BLAS_ORGQR: {                                                     \
            int k = (int)op->k, lwork = -1;                                        \
            T q = 0;                                                               \
            orgqr_##P(&m, &n, &k, op->b, &ldb, op->tau, &q, &lwork, &info);        \
            lwork = creal(q) > 1 ? (int)creal(q) : 1;                              \
            T *work = malloc(sizeof(T) * (size_t)lwork);                           \
            if (!work)                                                             \
                return TFL_ERR_NOMEM;                                              \
            orgqr_##P(&m, &n, &k, op->b, &ldb, op->tau, work, &lwork, &info);      \
            free(work);                                                            \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return info < 0 ? TFL_ERR_INVALID : TFL_OK;                            \
        }                                                                          \
        case TFL_BLAS_SYEVD:                                                       \
            info = syevd_##P(op->jobz ? 'V' : 'N', op->uplo ? 'U' : 'L', n, op->b, \
                             ldb, (R *)op->w);                                     \
            if (info == -1000)                                                     \
                return TFL_ERR_NOMEM;                                              \
            if (op->info)                                                          \
                *op->info = info;                                                  \
            return info < 0 ? TFL_ERR_INVALID : TFL_OK;                            \
        default:                                                                   \
            return TFL_ERR_UNSUPPORTED;                                            \
        }                                                                          \
    }
RUN_LAPACK(s, float, lu_s, float)
RUN_LAPACK(d, double, lu_d, double)
RUN_LAPACK(c, float complex, lu_c, float)
RUN_LAPACK(z, double complex, lu_z, double)

tfl_status host_lapack(const tfl_blas_op *op)
{
    switch (op->type) {
    case TFL_DT_F32: return run_s(op);
    case TFL_DT_F64: return run_d(op);
    case TFL_DT_C64: return run_c(op);
    case TFL_DT_C128: return run_z(op);
    default: return TFL_ERR_UNSUPPORTED;
    }
}

/*
 * lapack.c - the LAPACK-style TFL_OP_BLAS functions on the host: LU
 * (getrf, with or without pivoting), LU solve (getrs), QR (geqrf) and
 * least squares (gels), one matrix per op, through OpenBLAS's LAPACK.
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
                  const int *lwork, int *info, size_t tr_len);
LAPACK_DECL(s, float)
LAPACK_DECL(d, double)
LAPACK_DECL(c, float complex)
LAPACK_DECL(z, double complex)

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

/* One LAPACK call per type; T is the element type, P the prefix. */
#define RUN_LAPACK(P, T, LU)                                                       \
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
        default:                                                                   \
            return TFL_ERR_UNSUPPORTED;                                            \
        }                                                                          \
    }
RUN_LAPACK(s, float, lu_s)
RUN_LAPACK(d, double, lu_d)
RUN_LAPACK(c, float complex, lu_c)
RUN_LAPACK(z, double complex, lu_z)

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

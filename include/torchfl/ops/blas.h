/*
 * torchfl/ops/blas.h - the "blas" op of the backend ABI (TFL_OP_BLAS): the
 * BLAS and LAPACK-style routines cuBLAS callers use besides GEMM.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_BLAS reads this struct.
 */
#ifndef TORCHFL_OPS_BLAS_H
#define TORCHFL_OPS_BLAS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The BLAS routines cuBLAS callers use besides GEMM, column-major, with
 * BLAS's own argument meanings.  Increments may be negative (BLAS order).
 * Scalars (alpha/beta) are host values of type; a result (dot, nrm2,
 * asum: one element of type; iamax: int32, 1-based) is written by the
 * backend to result, which may be device memory.
 */
typedef enum tfl_blas_fn {
    TFL_BLAS_GEMV = 1,   /* y = alpha op(A) x + beta y    (A: m x n)       */
    TFL_BLAS_GER,        /* A += alpha x y^T              (A: m x n)       */
    TFL_BLAS_DOT,        /* result = x . y                (n)              */
    TFL_BLAS_AXPY,       /* y += alpha x                  (n)              */
    TFL_BLAS_SCAL,       /* x *= alpha                    (n; x is y)      */
    TFL_BLAS_NRM2,       /* result = ||x||_2              (n)              */
    TFL_BLAS_ASUM,       /* result = sum |x_i|            (n)              */
    TFL_BLAS_IAMAX,      /* result = first i of max |x_i|, 1-based; 0 if n<=0 */
    TFL_BLAS_TRSM,       /* B = alpha op(A)^-1 B (side left) or B op(A)^-1 */
    TFL_BLAS_SYRK,       /* C = alpha op(A) op(A)^T + beta C, uplo part    */
    /* LAPACK-style, one matrix per op (cuBLAS's *Batched loop over them);
     * any real or complex type; info/ipiv are int32, pivots 1-based */
    TFL_BLAS_GETRF,      /* LU of n x n B in place; ipiv NULL = no pivots;
                            *info = 0 or the first zero pivot (1-based)   */
    TFL_BLAS_GETRS,      /* solve op(LU of a) X = b (n x nrhs), ipiv may
                            be NULL (no pivots)                           */
    TFL_BLAS_GEQRF,      /* QR of m x n B in place, tau (min(m,n))        */
    TFL_BLAS_GELS,       /* least squares of m x n B (m >= n) against
                            c (m x nrhs, ldc); *info as LAPACK            */
    /* cuSOLVER's dense routines (one matrix per op, LAPACK meanings) */
    TFL_BLAS_POTRF,      /* Cholesky of n x n B (uplo part) in place;
                            *info = 0 or the order of the failing minor  */
    TFL_BLAS_POTRS,      /* solve A X = b (n x nrhs) with a = potrf(A)   */
    TFL_BLAS_SYEVD,      /* eigen of symmetric/Hermitian n x n B (uplo);
                            eigenvalues (real type) to w ascending;
                            jobz 1: vectors overwrite B                 */
    TFL_BLAS_ORGQR       /* Q (m x n, n <= m) of geqrf's B in place from
                            k reflectors and tau (orgqr/ungqr)           */
} tfl_blas_fn;

typedef struct tfl_blas_op {
    tfl_blas_fn fn;
    tfl_dtype type;          /* F32 or F64; C64/C128 for GEMV, DOT (trans
                                2 = conjugate x) and TRSM; F16/BF16 for
                                DOT; complex scalars are (re, im) pairs   */
    int side, uplo, trans, diag; /* 0/1: left/right, lower/upper,
                                    0/1/2: N/T/C, 0/1: non-unit/unit      */
    int64_t m, n, k;
    const void *a; int64_t lda;
    const void *x; int64_t incx;
    void *y; int64_t incy;   /* gemv/axpy/scal output, ger: the y vector  */
    void *b; int64_t ldb;    /* trsm: B in/out; ger: A in/out (ld = ldb)  */
    void *c; int64_t ldc;    /* syrk: C in/out                            */
    const void *alpha, *beta;
    void *result;
    /* appended for the LAPACK-style functions */
    int32_t *ipiv;
    int32_t *info;
    void *tau;
    int64_t nrhs;
    /* appended for SYEVD */
    void *w;                 /* eigenvalues, real (F32 for F32/C64)      */
    int jobz;                /* 0: values only, 1: also vectors          */
} tfl_blas_op;

#endif

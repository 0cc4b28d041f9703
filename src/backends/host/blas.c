/*
 * blas.c - the host backend's TFL_OP_BLAS: BLAS level 1/2 plus TRSM and
 * SYRK on OpenBLAS, for fp32 and fp64, plus complex GEMV/DOT/TRSM and an
 * fp16/bf16 dot.
 *
 * Argument meanings are BLAS's (and so cuBLAS's), negative increments
 * included, so each call maps onto one cblas routine.  Where BLAS lets an
 * implementation read y/C scaled by beta = 0, we clear it first so a NaN
 * there cannot leak, as cuBLAS guarantees.
 */
#include "backends/host/host_ops.h"

#include <cblas.h>
#include <limits.h>
#include <string.h>

#include "backends/host/gemm_internal.h"
#include "common/half.h"

static int fits(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

static int is_complex(tfl_dtype t)
{
    return t == TFL_DT_C64 || t == TFL_DT_C128;
}

int host_blas_supported(const tfl_blas_op *op)
{
    if (!op)
        return 0;
    /* fp16/bf16: only DOT (cublasDotEx); complex: GEMV, DOT, TRSM */
    int lowp = op->type == TFL_DT_F16 || op->type == TFL_DT_BF16;
    if (op->type != TFL_DT_F32 && op->type != TFL_DT_F64 &&
        !(lowp && op->fn == TFL_BLAS_DOT) &&
        !(is_complex(op->type) && (op->fn == TFL_BLAS_GEMV || op->fn == TFL_BLAS_DOT ||
                                   op->fn == TFL_BLAS_TRSM || op->fn >= TFL_BLAS_GETRF)))
        return 0;
    if (op->fn < TFL_BLAS_GEMV || op->fn > TFL_BLAS_ORGQR)
        return 0;
    if (op->fn >= TFL_BLAS_GETRF &&
        !(op->type == TFL_DT_F32 || op->type == TFL_DT_F64 || is_complex(op->type)))
        return 0;
    return fits(op->m) && fits(op->n) && fits(op->k) && fits(op->lda) &&
           fits(op->ldb) && fits(op->ldc) && fits(op->incx) && fits(op->incy) &&
           fits(op->nrhs);
}

/* Zero n elements of a strided vector (positive or negative inc). */
static void zero_vec(void *v, int64_t n, int64_t inc, size_t es)
{
    int64_t step = inc < 0 ? -inc : inc;
    for (int64_t i = 0; i < n; i++)
        memset((char *)v + (size_t)(i * step) * es, 0, es);
}

/* fp16/bf16 dot: widen each element, accumulate in double (the GPU
 * accumulates in fp32), round the result through fp32 to the type. */
static void dot_lowp(const tfl_blas_op *op)
{
    const uint16_t *x = op->x, *y = op->y;
    const int64_t n = op->n;
    const int bf = op->type == TFL_DT_BF16;
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        int64_t ix = op->incx >= 0 ? i * op->incx : (n - 1 - i) * -op->incx;
        int64_t iy = op->incy >= 0 ? i * op->incy : (n - 1 - i) * -op->incy;
        float a = bf ? tfl_bf16_to_f32(x[ix]) : tfl_f16_to_f32(x[ix]);
        float b = bf ? tfl_bf16_to_f32(y[iy]) : tfl_f16_to_f32(y[iy]);
        s += (double)a * b;
    }
    float f = (float)s;
    *(uint16_t *)op->result = bf ? tfl_f32_to_bf16(f) : tfl_f32_to_f16(f);
}

/* Complex GEMV / DOT (trans 2 = conjugated, dotc) / TRSM; alpha and beta
 * point at (re, im) pairs of the element's precision. */
static tfl_status blas_complex(const tfl_blas_op *op)
{
    const int z = op->type == TFL_DT_C128;
    const size_t es = z ? 16 : 8;
    const int m = (int)op->m, n = (int)op->n;
    const int incx = (int)op->incx, incy = (int)op->incy;
    switch (op->fn) {
    case TFL_BLAS_GEMV: {
        if (m <= 0 || n <= 0)
            return TFL_OK;
        int beta_zero = z ? ((const double *)op->beta)[0] == 0.0 && ((const double *)op->beta)[1] == 0.0
                          : ((const float *)op->beta)[0] == 0.0f && ((const float *)op->beta)[1] == 0.0f;
        if (beta_zero)
            zero_vec(op->y, op->trans ? n : m, incy, es);
        if (z)
            cblas_zgemv(CblasColMajor, hg_cblas_trans(op->trans), m, n, op->alpha, op->a, (int)op->lda,
                        op->x, incx, op->beta, op->y, incy);
        else
            cblas_cgemv(CblasColMajor, hg_cblas_trans(op->trans), m, n, op->alpha, op->a, (int)op->lda,
                        op->x, incx, op->beta, op->y, incy);
        return TFL_OK;
    }
    case TFL_BLAS_DOT:
        if (n <= 0) {
            memset(op->result, 0, es);
        } else if (op->trans == 2) {
            if (z) cblas_zdotc_sub(n, op->x, incx, op->y, incy, op->result);
            else cblas_cdotc_sub(n, op->x, incx, op->y, incy, op->result);
        } else {
            if (z) cblas_zdotu_sub(n, op->x, incx, op->y, incy, op->result);
            else cblas_cdotu_sub(n, op->x, incx, op->y, incy, op->result);
        }
        return TFL_OK;
    case TFL_BLAS_TRSM:
        if (m <= 0 || n <= 0)
            return TFL_OK;
        if (z)
            cblas_ztrsm(CblasColMajor, op->side ? CblasRight : CblasLeft,
                        op->uplo ? CblasUpper : CblasLower, hg_cblas_trans(op->trans),
                        op->diag ? CblasUnit : CblasNonUnit, m, n, op->alpha, op->a,
                        (int)op->lda, op->b, (int)op->ldb);
        else
            cblas_ctrsm(CblasColMajor, op->side ? CblasRight : CblasLeft,
                        op->uplo ? CblasUpper : CblasLower, hg_cblas_trans(op->trans),
                        op->diag ? CblasUnit : CblasNonUnit, m, n, op->alpha, op->a,
                        (int)op->lda, op->b, (int)op->ldb);
        return TFL_OK;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

tfl_status host_blas(const tfl_blas_op *op)
{
    if (!host_blas_supported(op))
        return op && (op->type == TFL_DT_F32 || op->type == TFL_DT_F64)
                   ? TFL_ERR_INVALID : TFL_ERR_UNSUPPORTED;
    if (op->fn >= TFL_BLAS_GETRF)
        return host_lapack(op);
    if (op->type == TFL_DT_F16 || op->type == TFL_DT_BF16) {
        dot_lowp(op);
        return TFL_OK;
    }
    if (is_complex(op->type))
        return blas_complex(op);
    const int dbl = op->type == TFL_DT_F64;
    const size_t es = dbl ? 8 : 4;
    const int m = (int)op->m, n = (int)op->n, k = (int)op->k;
    const int incx = (int)op->incx, incy = (int)op->incy;
    double alpha = 0, beta = 0;
    if (op->alpha)
        alpha = dbl ? *(const double *)op->alpha : *(const float *)op->alpha;
    if (op->beta)
        beta = dbl ? *(const double *)op->beta : *(const float *)op->beta;

    switch (op->fn) {
    case TFL_BLAS_GEMV: {
        if (m <= 0 || n <= 0)
            return TFL_OK;
        int leny = op->trans ? n : m;
        if (beta == 0.0)
            zero_vec(op->y, leny, incy, es);
        if (dbl)
            cblas_dgemv(CblasColMajor, hg_cblas_trans(op->trans), m, n, alpha, op->a, (int)op->lda,
                        op->x, incx, beta, op->y, incy);
        else
            cblas_sgemv(CblasColMajor, hg_cblas_trans(op->trans), m, n, (float)alpha, op->a,
                        (int)op->lda, op->x, incx, (float)beta, op->y, incy);
        return TFL_OK;
    }
    case TFL_BLAS_GER:
        if (m <= 0 || n <= 0)
            return TFL_OK;
        if (dbl)
            cblas_dger(CblasColMajor, m, n, alpha, op->x, incx, op->y, incy,
                       op->b, (int)op->ldb);
        else
            cblas_sger(CblasColMajor, m, n, (float)alpha, op->x, incx, op->y, incy,
                       op->b, (int)op->ldb);
        return TFL_OK;
    case TFL_BLAS_DOT:
        if (dbl)
            *(double *)op->result = n > 0 ? cblas_ddot(n, op->x, incx, op->y, incy) : 0.0;
        else
            *(float *)op->result = n > 0 ? cblas_sdot(n, op->x, incx, op->y, incy) : 0.0f;
        return TFL_OK;
    case TFL_BLAS_AXPY:
        if (n <= 0)
            return TFL_OK;
        if (dbl)
            cblas_daxpy(n, alpha, op->x, incx, op->y, incy);
        else
            cblas_saxpy(n, (float)alpha, op->x, incx, op->y, incy);
        return TFL_OK;
    case TFL_BLAS_SCAL:
        if (n <= 0 || incy <= 0)
            return TFL_OK;
        if (dbl)
            cblas_dscal(n, alpha, op->y, incy);
        else
            cblas_sscal(n, (float)alpha, op->y, incy);
        return TFL_OK;
    case TFL_BLAS_NRM2:
    case TFL_BLAS_ASUM: {
        double r = 0.0;
        if (n > 0 && incx > 0) {
            if (op->fn == TFL_BLAS_NRM2)
                r = dbl ? cblas_dnrm2(n, op->x, incx) : cblas_snrm2(n, op->x, incx);
            else
                r = dbl ? cblas_dasum(n, op->x, incx) : cblas_sasum(n, op->x, incx);
        }
        if (dbl)
            *(double *)op->result = r;
        else
            *(float *)op->result = (float)r;
        return TFL_OK;
    }
    case TFL_BLAS_IAMAX: {
        int32_t r = 0;
        if (n > 0 && incx > 0)
            r = 1 + (int32_t)(dbl ? cblas_idamax(n, op->x, incx)
                                  : cblas_isamax(n, op->x, incx));
        *(int32_t *)op->result = r;
        return TFL_OK;
    }
    case TFL_BLAS_TRSM:
        if (m <= 0 || n <= 0)
            return TFL_OK;
        if (dbl)
            cblas_dtrsm(CblasColMajor, op->side ? CblasRight : CblasLeft,
                        op->uplo ? CblasUpper : CblasLower, hg_cblas_trans(op->trans),
                        op->diag ? CblasUnit : CblasNonUnit, m, n, alpha, op->a,
                        (int)op->lda, op->b, (int)op->ldb);
        else
            cblas_strsm(CblasColMajor, op->side ? CblasRight : CblasLeft,
                        op->uplo ? CblasUpper : CblasLower, hg_cblas_trans(op->trans),
                        op->diag ? CblasUnit : CblasNonUnit, m, n, (float)alpha, op->a,
                        (int)op->lda, op->b, (int)op->ldb);
        return TFL_OK;
    case TFL_BLAS_SYRK:
        if (n <= 0)
            return TFL_OK;
        if (beta == 0.0)   /* clear the referenced triangle: NaN must not leak */
            for (int j = 0; j < n; j++) {
                int i0 = op->uplo ? 0 : j, i1 = op->uplo ? j + 1 : n;
                memset((char *)op->c + (size_t)((int64_t)j * op->ldc + i0) * es, 0,
                       (size_t)(i1 - i0) * es);
            }
        if (dbl)
            cblas_dsyrk(CblasColMajor, op->uplo ? CblasUpper : CblasLower,
                        hg_cblas_trans(op->trans), n, k, alpha, op->a, (int)op->lda, beta,
                        op->c, (int)op->ldc);
        else
            cblas_ssyrk(CblasColMajor, op->uplo ? CblasUpper : CblasLower,
                        hg_cblas_trans(op->trans), n, k, (float)alpha, op->a, (int)op->lda,
                        (float)beta, op->c, (int)op->ldc);
        return TFL_OK;
    case TFL_BLAS_GETRF: case TFL_BLAS_GETRS: case TFL_BLAS_GEQRF: case TFL_BLAS_GELS:
    case TFL_BLAS_POTRF: case TFL_BLAS_POTRS: case TFL_BLAS_SYEVD: case TFL_BLAS_ORGQR:
        break;   /* handled by host_lapack above */
    }
    return TFL_ERR_UNSUPPORTED;
}

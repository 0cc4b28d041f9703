/*
 * gemm.c - the host backend's GEMM: TFL_OP_GEMM on OpenBLAS.
 *
 * Column-major like cuBLAS, so operands go to cblas_?gemm as they are:
 * every transpose, padded leading dimensions, strided and pointer-array
 * batches.  fp32/fp64/complex run straight on sgemm/dgemm/cgemm/zgemm;
 * fp16/bf16 operands go through gemm_lowp.c (convert to fp32, sgemm,
 * round back).  Epilogues (gemm_epilogue.c) run on the result columns.
 *
 * TF32 and the other "fast" fp32 compute types run as plain fp32: more
 * precise than the GPU, never less.
 */
#include "backends/host/host_ops.h"

#include <cblas.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "backends/host/gemm_internal.h"
#include "common/log.h"

/* lowp entry (gemm_lowp.c) */
tfl_status hg_gemm_lowp(const tfl_gemm_op *op, const void *a, const void *b,
                        const void *c, void *d, hg_epi *ep);

/* ------------------------------------------------------------- scratch */

typedef struct scratch {
    void *p[HG_SCRATCH_SLOTS];
    size_t n[HG_SCRATCH_SLOTS];
} scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *v)
{
    scratch *s = v;
    for (int i = 0; i < HG_SCRATCH_SLOTS; i++)
        free(s->p[i]);
    free(s);
}

static void scratch_init(void)
{
    (void)pthread_key_create(&scratch_key, scratch_free);
}

void *hg_scratch(int slot, size_t bytes)
{
    if (slot < 0 || slot >= HG_SCRATCH_SLOTS)
        return NULL;
    pthread_once(&scratch_once, scratch_init);
    scratch *s = pthread_getspecific(scratch_key);
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s || pthread_setspecific(scratch_key, s) != 0) {
            free(s);
            return NULL;
        }
    }
    if (bytes == 0)
        bytes = 1;
    if (s->n[slot] < bytes) {
        /* 64-byte aligned for the vector kernels; old contents not kept */
        void *p = NULL;
        size_t sz = (bytes + 63) & ~(size_t)63;
        if (posix_memalign(&p, 64, sz) != 0)
            return NULL;
        free(s->p[slot]);
        s->p[slot] = p;
        s->n[slot] = sz;
    }
    return s->p[slot];
}

void hg_scratch_trim(size_t keep)
{
    pthread_once(&scratch_once, scratch_init);
    scratch *s = pthread_getspecific(scratch_key);
    if (!s)
        return;
    for (int i = 0; i < HG_SCRATCH_SLOTS; i++)
        if (s->n[i] > keep) {
            free(s->p[i]);
            s->p[i] = NULL;
            s->n[i] = 0;
        }
}

/* ---------------------------------------------------------- validation */

static int fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

static int is_real_lowp(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

static int compute_is_f32_family(tfl_compute c)
{
    return c == TFL_COMPUTE_32F || c == TFL_COMPUTE_32F_FAST_TF32 ||
           c == TFL_COMPUTE_32F_FAST_16F || c == TFL_COMPUTE_32F_FAST_16BF ||
           c == TFL_COMPUTE_16F;
}

/* Shape/argument problems are TFL_ERR_INVALID; type combinations the
 * host cannot run are TFL_ERR_UNSUPPORTED. */
static tfl_status check_op(const tfl_gemm_op *op)
{
    if (!op)
        return TFL_ERR_INVALID;
    if (op->trans_a < 0 || op->trans_a > 2 || op->trans_b < 0 || op->trans_b > 2)
        return TFL_ERR_INVALID;
    if (op->m < 0 || op->n < 0 || op->k < 0 || op->batch < 0)
        return TFL_ERR_INVALID;
    int64_t ra = op->trans_a ? op->k : op->m;
    int64_t rb = op->trans_b ? op->n : op->k;
    if (op->lda < (ra > 1 ? ra : 1) || op->ldb < (rb > 1 ? rb : 1) ||
        op->ldd < (op->m > 1 ? op->m : 1))
        return TFL_ERR_INVALID;
    if (op->c && op->ldc < (op->m > 1 ? op->m : 1))
        return TFL_ERR_INVALID;
    if (!op->alpha || !op->beta)
        return TFL_ERR_INVALID;
    /* OpenBLAS here takes int dimensions */
    if (!fits_int(op->m) || !fits_int(op->n) || !fits_int(op->k) ||
        !fits_int(op->lda) || !fits_int(op->ldb) || !fits_int(op->ldd) ||
        (op->c && !fits_int(op->ldc)))
        return TFL_ERR_UNSUPPORTED;

    int f = hg_epi_flags(op->epilogue);
    if (f < 0)
        return TFL_ERR_INVALID;

    tfl_dtype ta = op->type_a, tb = op->type_b, tc = op->type_c, td = op->type_d;
    if (ta == TFL_DT_C64 || ta == TFL_DT_C128) {
        if (tb != ta || tc != ta || td != ta || f != 0)
            return TFL_ERR_UNSUPPORTED;
        if (ta == TFL_DT_C64 ? !compute_is_f32_family(op->compute)
                             : op->compute != TFL_COMPUTE_64F)
            return TFL_ERR_UNSUPPORTED;
    } else if (ta == TFL_DT_F64) {
        if (tb != ta || tc != ta || td != ta || op->compute != TFL_COMPUTE_64F)
            return TFL_ERR_UNSUPPORTED;
    } else if (is_real_lowp(ta)) {
        if (tb != ta || !is_real_lowp(tc) || !is_real_lowp(td) ||
            !compute_is_f32_family(op->compute))
            return TFL_ERR_UNSUPPORTED;
    } else {
        return TFL_ERR_UNSUPPORTED;
    }
    /* trans 2 (conjugate transpose) is plain transpose for real types */

    if (f & (HG_EPI_BIAS | HG_EPI_BGRAD_D | HG_EPI_BGRAD_A | HG_EPI_BGRAD_B)) {
        if (!op->bias)
            return TFL_ERR_INVALID;
        tfl_dtype bt = op->bias_type;
        if (bt != TFL_DT_F32 && bt != TFL_DT_F16 && bt != TFL_DT_BF16 &&
            bt != TFL_DT_F64)
            return TFL_ERR_UNSUPPORTED;
    }
    if (f & (HG_EPI_AUX_GELU | HG_EPI_AUX_MASK | HG_EPI_DRELU | HG_EPI_DGELU)) {
        if (!op->aux || op->ld_aux < (op->m > 1 ? op->m : 1))
            return TFL_ERR_INVALID;
        if ((f & (HG_EPI_AUX_MASK | HG_EPI_DRELU)) && (op->ld_aux % 8) != 0)
            return TFL_ERR_INVALID;      /* mask columns start on a byte */
        if ((f & (HG_EPI_AUX_GELU | HG_EPI_DGELU)) &&
            tfl_dtype_size(op->aux_type) == 0)
            return TFL_ERR_UNSUPPORTED;
    }
    return TFL_OK;
}

int host_gemm_supported(const tfl_gemm_op *op)
{
    return check_op(op) == TFL_OK;
}

/* ------------------------------------------------------------ helpers */

/* D = C column by column before a gemm that accumulates into D. */
static void copy_c_to_d(const tfl_gemm_op *op, const void *c, void *d, size_t es)
{
    if (c == d)
        return;
    for (int64_t j = 0; j < op->n; j++)
        memmove((char *)d + (size_t)(j * op->ldd) * es,
                (const char *)c + (size_t)(j * op->ldc) * es,
                (size_t)op->m * es);
}

/* Apply the element-wise epilogue to an F32 or F64 D in place. */
static tfl_status epilogue_in_place(const tfl_gemm_op *op, void *d, hg_epi *ep)
{
    if (!(ep->flags & ~(HG_EPI_BGRAD_A | HG_EPI_BGRAD_B)))
        return TFL_OK;
    if (op->type_d == TFL_DT_F32 && hg_epi_fast_f32(ep, d, op->ldd, op->n))
        return TFL_OK;
    if (op->type_d == TFL_DT_F64 && hg_epi_fast_f64(ep, d, op->ldd, op->n))
        return TFL_OK;
    double *x = hg_scratch(3, (size_t)op->m * sizeof(double) * 2);
    if (!x)
        return TFL_ERR_NOMEM;
    ep->bacc = x + op->m;
    memset(ep->bacc, 0, (size_t)op->m * sizeof(double));
    for (int64_t j = 0; j < op->n; j++) {
        for (int64_t i = 0; i < op->m; i++)
            x[i] = hg_load(op->type_d, d, i + j * op->ldd);
        hg_epi_column(ep, j, x);
        for (int64_t i = 0; i < op->m; i++)
            hg_store(op->type_d, d, i + j * op->ldd, x[i]);
    }
    hg_epi_finish(ep);
    return TFL_OK;
}

/*
 * A GEMM with one output row or column is a matrix-vector product; OpenBLAS's
 * gemv is several times faster there than its gemm (which still packs the
 * whole matrix).  D already holds C when beta != 0; with beta == 0 the
 * output vector is cleared first so no NaN in it can leak.
 */
static int gemm_as_gemv(const tfl_gemm_op *op, const void *a, const void *b,
                        void *d, double alpha, double beta, int dbl)
{
    const int m = (int)op->m, n = (int)op->n, k = (int)op->k;
    enum CBLAS_TRANSPOSE tm;
    int rows, cols, ld, incx, incy, leny;
    const void *mat, *x;
    if (n == 1) {
        /* y = D(:,0) = op(A) * op(B)(:,0) */
        mat = a; ld = (int)op->lda;
        tm = op->trans_a ? CblasTrans : CblasNoTrans;
        rows = op->trans_a ? k : m;
        cols = op->trans_a ? m : k;
        x = b; incx = op->trans_b ? (int)op->ldb : 1;
        incy = 1; leny = m;
    } else if (m == 1) {
        /* y = D(0,:)^T = op(B)^T * op(A)(0,:)^T */
        mat = b; ld = (int)op->ldb;
        tm = op->trans_b ? CblasNoTrans : CblasTrans;
        rows = op->trans_b ? n : k;
        cols = op->trans_b ? k : n;
        x = a; incx = op->trans_a ? 1 : (int)op->lda;
        incy = (int)op->ldd; leny = n;
    } else {
        return 0;
    }
    size_t es = dbl ? 8 : 4;
    if (beta == 0.0)
        for (int i = 0; i < leny; i++)
            memset((char *)d + (size_t)i * (size_t)incy * es, 0, es);
    if (dbl)
        cblas_dgemv(CblasColMajor, tm, rows, cols, alpha, mat, ld, x, incx, beta, d, incy);
    else
        cblas_sgemv(CblasColMajor, tm, rows, cols, (float)alpha, mat, ld, x, incx,
                    (float)beta, d, incy);
    return 1;
}

static tfl_status gemm_f32(const tfl_gemm_op *op, const void *a, const void *b,
                           const void *c, void *d, hg_epi *ep)
{
    float alpha = *(const float *)op->alpha, beta = *(const float *)op->beta;
    if (beta != 0.0f)
        copy_c_to_d(op, c, d, sizeof(float));
    if (gemm_as_gemv(op, a, b, d, alpha, beta, 0))
        return epilogue_in_place(op, d, ep);
    hg_gemm_par(0, op->trans_a, op->trans_b, op->m, op->n, op->k, alpha, a, op->lda,
                b, op->ldb, beta, d, op->ldd);
    return epilogue_in_place(op, d, ep);
}

static tfl_status gemm_f64(const tfl_gemm_op *op, const void *a, const void *b,
                           const void *c, void *d, hg_epi *ep)
{
    double alpha = *(const double *)op->alpha, beta = *(const double *)op->beta;
    if (beta != 0.0)
        copy_c_to_d(op, c, d, sizeof(double));
    if (gemm_as_gemv(op, a, b, d, alpha, beta, 1))
        return epilogue_in_place(op, d, ep);
    hg_gemm_par(1, op->trans_a, op->trans_b, op->m, op->n, op->k, alpha, a, op->lda,
                b, op->ldb, beta, d, op->ldd);
    return epilogue_in_place(op, d, ep);
}

static tfl_status gemm_complex(const tfl_gemm_op *op, const void *a,
                               const void *b, const void *c, void *d)
{
    int dbl = op->type_a == TFL_DT_C128;
    size_t es = dbl ? 16 : 8;
    int beta_zero;
    if (dbl) {
        const double *bt = op->beta;
        beta_zero = bt[0] == 0.0 && bt[1] == 0.0;
    } else {
        const float *bt = op->beta;
        beta_zero = bt[0] == 0.0f && bt[1] == 0.0f;
    }
    if (!beta_zero)
        copy_c_to_d(op, c, d, es);
    if (dbl)
        cblas_zgemm(CblasColMajor, hg_cblas_trans(op->trans_a), hg_cblas_trans(op->trans_b),
                    (int)op->m, (int)op->n, (int)op->k, op->alpha, a, (int)op->lda,
                    b, (int)op->ldb, op->beta, d, (int)op->ldd);
    else
        cblas_cgemm(CblasColMajor, hg_cblas_trans(op->trans_a), hg_cblas_trans(op->trans_b),
                    (int)op->m, (int)op->n, (int)op->k, op->alpha, a, (int)op->lda,
                    b, (int)op->ldb, op->beta, d, (int)op->ldd);
    return TFL_OK;
}

/* D = beta*C (beta = 0: zeros, C unread), then the epilogue: the k == 0
 * and alpha == 0 cases, where A and B must not be read at all. */
static tfl_status gemm_scale_only(const tfl_gemm_op *op, const void *c, void *d,
                                  hg_epi *ep)
{
    double beta = op->type_d == TFL_DT_F64 ? *(const double *)op->beta
                                           : *(const float *)op->beta;
    double *x = hg_scratch(3, (size_t)op->m * sizeof(double) * 2);
    if (!x)
        return TFL_ERR_NOMEM;
    ep->bacc = x + op->m;
    memset(ep->bacc, 0, (size_t)op->m * sizeof(double));
    for (int64_t j = 0; j < op->n; j++) {
        for (int64_t i = 0; i < op->m; i++) {
            /* beta*C rounded as the compute type would */
            double v = 0.0;
            if (beta != 0.0) {
                v = beta * hg_load(op->type_c, c, i + j * op->ldc);
                if (op->type_d != TFL_DT_F64)
                    v = (float)v;
            }
            x[i] = v;
        }
        if (ep->flags & ~(HG_EPI_BGRAD_A | HG_EPI_BGRAD_B))
            hg_epi_column(ep, j, x);
        for (int64_t i = 0; i < op->m; i++)
            hg_store(op->type_d, d, i + j * op->ldd, x[i]);
    }
    hg_epi_finish(ep);
    return TFL_OK;
}

static int alpha_is_zero(const tfl_gemm_op *op)
{
    switch (op->type_a) {
    case TFL_DT_F64: return *(const double *)op->alpha == 0.0;
    case TFL_DT_C64: case TFL_DT_C128: return 0;   /* OpenBLAS handles it */
    default: return *(const float *)op->alpha == 0.0f;
    }
}

/* ---------------------------------------------------------------- run */

static const void *batch_ptr(const void *base, int64_t stride, int64_t b,
                             size_t es)
{
    if (!base)
        return NULL;
    return (const char *)base + (size_t)(stride * b) * es;
}

tfl_status host_gemm(const tfl_gemm_op *op)
{
    tfl_status st = check_op(op);
    if (st != TFL_OK)
        return st;
    if (op->m == 0 || op->n == 0 || op->batch == 0)
        return TFL_OK;
    int flags = hg_epi_flags(op->epilogue);
    size_t ea = tfl_dtype_size(op->type_a), eb = tfl_dtype_size(op->type_b);
    size_t ec = tfl_dtype_size(op->type_c), ed = tfl_dtype_size(op->type_d);
    size_t ebias = tfl_dtype_size(op->bias_type);
    int all_f32 = op->type_a == TFL_DT_F32 && op->type_c == TFL_DT_F32 &&
                  op->type_d == TFL_DT_F32;
    int cplx = op->type_a == TFL_DT_C64 || op->type_a == TFL_DT_C128;
    int trivial = !cplx && (op->k == 0 || alpha_is_zero(op));

    for (int64_t bi = 0; bi < op->batch; bi++) {
        const void *a, *b, *c;
        void *d;
        if (op->d_array) {
            /* A/B arrays may be absent when they are never read (alpha 0) */
            a = op->a_array ? op->a_array[bi] : NULL;
            b = op->b_array ? op->b_array[bi] : NULL;
            c = op->c_array ? op->c_array[bi] : NULL;
            d = op->d_array[bi];
        } else {
            a = batch_ptr(op->a, op->stride_a, bi, ea);
            b = batch_ptr(op->b, op->stride_b, bi, eb);
            c = batch_ptr(op->c, op->stride_c, bi, ec);
            d = (void *)batch_ptr(op->d, op->stride_d, bi, ed);
        }
        if (!c)
            c = d;   /* only read when beta != 0; cuBLAS passes C anyway */

        hg_epi ep = { .flags = flags, .m = op->m,
                      .bias = batch_ptr(op->bias, op->stride_bias, bi, ebias),
                      .bias_type = op->bias_type,
                      .aux_type = op->aux_type, .ld_aux = op->ld_aux };
        if (op->aux) {
            if (flags & (HG_EPI_AUX_MASK | HG_EPI_DRELU))
                ep.aux = (char *)op->aux + (op->stride_aux * bi) / 8;
            else
                ep.aux = (char *)op->aux +
                         (size_t)(op->stride_aux * bi) * tfl_dtype_size(op->aux_type);
        }

        if (flags & (HG_EPI_BGRAD_A | HG_EPI_BGRAD_B))
            hg_epi_bgrad_operand(op, a, b, (void *)ep.bias);

        if (trivial)
            st = gemm_scale_only(op, c, d, &ep);
        else if (cplx)
            st = gemm_complex(op, a, b, c, d);
        else if (op->type_a == TFL_DT_F64)
            st = gemm_f64(op, a, b, c, d, &ep);
        else if (all_f32)
            st = gemm_f32(op, a, b, c, d, &ep);
        else
            st = hg_gemm_lowp(op, a, b, c, d, &ep);
        if (st != TFL_OK)
            break;
    }
    /* keep per-thread scratch for the next call, but not a huge one */
    hg_scratch_trim(64u << 20);
    return st;
}

void host_blas_set_threads(int n)
{
    /* 0: OpenBLAS single-threaded and real GEMMs split over the host
     * pool instead (gemm_par.c says why); n > 0: OpenBLAS threads as
     * asked and nothing is split */
    openblas_set_num_threads(n > 0 ? n : 1);
    hg_gemm_par_enable(n <= 0);
}

/*
 * gemm_lowp.c - GEMM with fp16/bf16 operands or results on the host.
 *
 * The GPU multiplies fp16/bf16 and accumulates in fp32; here the operands
 * are widened to fp32 (exact), multiplied by OpenBLAS sgemm, and the fp32
 * result rounded back to nearest-even.  (This OpenBLAS build does not
 * export cblas_sbgemm, and the widening costs O(mk + kn) beside the
 * O(mnk) product.)  A is widened once; B and D go in column panels sized
 * so a panel of B, the fp32 result and the output stay cache/memory
 * friendly for large n.  An fp16-compute GEMM (Hgemm) also accumulates in
 * fp32: more precise than the GPU, never less.
 */
#include <cblas.h>

#include "backends/host/gemm_internal.h"

/* fp32 elements of B panel + result panel to aim for per step. */
#define PANEL_BUDGET (4u << 20)
#define PANEL_MIN 256

int64_t hg_panel_cols;

tfl_status hg_gemm_lowp(const tfl_gemm_op *op, const void *a, const void *b,
                        const void *c, void *d, hg_epi *ep)
{
    const int64_t m = op->m, n = op->n, k = op->k;
    const float alpha = *(const float *)op->alpha;
    const float beta = *(const float *)op->beta;
    const int epi_cols = (ep->flags & ~(HG_EPI_BGRAD_A | HG_EPI_BGRAD_B)) != 0;
    /* fp32 output with fp32 C: accumulate straight into D */
    const int direct = op->type_d == TFL_DT_F32 && op->type_c == TFL_DT_F32;

    /* A: widened whole, packed (leading dim = its row count) */
    const float *af = a;
    int64_t lda = op->lda;
    if (op->type_a != TFL_DT_F32) {
        int64_t ra = op->trans_a ? k : m, ca = op->trans_a ? m : k;
        float *buf = hg_scratch(0, (size_t)(ra * ca) * sizeof(float));
        if (!buf)
            return TFL_ERR_NOMEM;
        hg_to_f32(op->type_a, a, op->lda, ra, ca, buf, ra);
        af = buf;
        lda = ra;
    }

    int64_t nb = PANEL_BUDGET / (k + m > 0 ? k + m : 1);
    if (nb < PANEL_MIN)
        nb = PANEL_MIN;
    if (hg_panel_cols > 0)
        nb = hg_panel_cols;
    if (nb > n)
        nb = n;

    float *bbuf = NULL, *tbuf = NULL;
    double *x = NULL;
    if (op->type_b != TFL_DT_F32 &&
        !(bbuf = hg_scratch(1, (size_t)(k * nb) * sizeof(float))))
        return TFL_ERR_NOMEM;
    if (!direct && !(tbuf = hg_scratch(2, (size_t)(m * nb) * sizeof(float))))
        return TFL_ERR_NOMEM;
    if (epi_cols) {
        if (!(x = hg_scratch(3, (size_t)m * sizeof(double) * 2)))
            return TFL_ERR_NOMEM;
        ep->bacc = x + m;
        memset(ep->bacc, 0, (size_t)m * sizeof(double));
    }
    const size_t esb = tfl_dtype_size(op->type_b), esc = tfl_dtype_size(op->type_c);
    const size_t esd = tfl_dtype_size(op->type_d);

    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        int64_t nc = n - j0 < nb ? n - j0 : nb;

        /* op(B)'s columns j0..j0+nc: columns of B, or rows when transposed */
        const float *bf;
        int64_t ldb;
        const char *bsrc = (const char *)b +
            (size_t)(op->trans_b ? j0 : j0 * op->ldb) * esb;
        if (op->type_b == TFL_DT_F32) {
            bf = (const float *)bsrc;
            ldb = op->ldb;
        } else {
            int64_t rb = op->trans_b ? nc : k, cb = op->trans_b ? k : nc;
            hg_to_f32(op->type_b, bsrc, op->ldb, rb, cb, bbuf, rb);
            bf = bbuf;
            ldb = rb;
        }

        float *dcol = (float *)((char *)d + (size_t)(j0 * op->ldd) * esd);
        const char *ccol = (const char *)c + (size_t)(j0 * op->ldc) * esc;

        if (direct) {
            if (beta != 0.0f && ccol != (const char *)dcol)
                for (int64_t j = 0; j < nc; j++)
                    memmove(dcol + j * op->ldd, (const float *)ccol + j * op->ldc,
                            (size_t)m * sizeof(float));
            hg_gemm_par(0, op->trans_a, op->trans_b, m, nc, k, alpha, af, lda, bf, ldb,
                        beta, dcol, op->ldd);
            if (epi_cols && !hg_epi_fast_f32(ep, dcol, op->ldd, nc))
                for (int64_t j = 0; j < nc; j++) {
                    float *col = dcol + j * op->ldd;
                    for (int64_t i = 0; i < m; i++)
                        x[i] = col[i];
                    hg_epi_column(ep, j0 + j, x);
                    for (int64_t i = 0; i < m; i++)
                        col[i] = (float)x[i];
                }
            continue;
        }

        /* T = alpha * op(A) op(B) in fp32, then + beta*C, epilogue, narrow */
        hg_gemm_par(0, op->trans_a, op->trans_b, m, nc, k, alpha, af, lda, bf, ldb,
                    0.0, tbuf, m);
        if (beta != 0.0f)
            for (int64_t j = 0; j < nc; j++) {
                float *t = tbuf + j * m;
                const void *cj = ccol + (size_t)(j * op->ldc) * esc;
                for (int64_t i = 0; i < m; i++)
                    t[i] += beta * (float)hg_load(op->type_c, cj, i);
            }
        if (epi_cols && !hg_epi_fast_f32(ep, tbuf, m, nc)) {
            for (int64_t j = 0; j < nc; j++) {
                float *t = tbuf + j * m;
                for (int64_t i = 0; i < m; i++)
                    x[i] = t[i];
                hg_epi_column(ep, j0 + j, x);
                for (int64_t i = 0; i < m; i++)
                    t[i] = (float)x[i];
            }
        }
        hg_from_f32(op->type_d, tbuf, m, m, nc, dcol, op->ldd);
    }
    if (epi_cols)
        hg_epi_finish(ep);
    return TFL_OK;
}

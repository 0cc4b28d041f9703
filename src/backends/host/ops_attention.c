/*
 * ops_attention.c - the host backend's native "attention" op
 * (TFL_OP_ATTENTION, torchfl/ops/attention.h): scaled dot-product
 * attention forward and backward on OpenBLAS.
 *
 * Per (batch, head) the scores are materialised one block of query rows
 * at a time (so long sequences need bounded scratch), softmaxed exactly
 * (max-subtracted, per row) and multiplied by V with sgemm.  The backward
 * recomputes P from the forward's logsumexp, as the GPU kernels do, and
 * accumulates dK/dV over the query blocks.  fp16/bf16 operands are
 * converted to fp32 per head and the results rounded back.
 */
#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/vmath.h"

#include <cblas.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/gemm_internal.h"
#include "backends/host/ops_attention.h"

/* Scores scratch per query block: at most this many floats (16 MiB), but
 * always at least one row. */
#define ATT_BLOCK_FLOATS ((int64_t)4 << 20)
/* Query rows per block under a causal mask (measured: 64 rows run a
 * 256-token causal head ~1.6x faster than one block). */
#define CAUSAL_ROWS 64

static int dtype_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

static int tensor_ok(const tfl_attn_tensor *t, int need)
{
    if (!t->ptr)
        return !need;
    return t->stride_b >= 0 && t->stride_h >= 0 && t->stride_m >= 0;
}

int host_attention_supported(const tfl_attention_op *op)
{
    if (!op || !dtype_ok(op->dtype))
        return 0;
    if (op->batch < 0 || op->heads < 0 || op->q_heads_per_kv < 1 ||
        op->num_queries < 0 || op->num_keys < 0 || op->head_dim < 0 ||
        op->head_dim_value < 0 || op->heads % op->q_heads_per_kv != 0)
        return 0;
    if (op->mask != TFL_ATTN_MASK_NONE && op->mask != TFL_ATTN_MASK_CAUSAL)
        return 0;
    if (!tensor_ok(&op->q, 1) || !tensor_ok(&op->k, 1) || !tensor_ok(&op->v, 1) ||
        !tensor_ok(&op->bias, 0) || !tensor_ok(&op->lse, 0))
        return 0;
    if (!op->backward)
        return tensor_ok(&op->out, 1);
    /* The backward needs O and lse to rebuild P and D. */
    return tensor_ok(&op->out, 1) && op->lse.ptr && tensor_ok(&op->grad_out, 1) &&
           tensor_ok(&op->grad_q, 1) && tensor_ok(&op->grad_k, 1) &&
           tensor_ok(&op->grad_v, 1) && tensor_ok(&op->grad_bias, 0);
}

/* Element (b, h, row 0, col 0) of t. */
static void *at(const tfl_attn_tensor *t, size_t es, int64_t b, int64_t h)
{
    return (char *)t->ptr + (size_t)(b * t->stride_b + h * t->stride_h) * es;
}

/* A rows x cols row-major operand as fp32: the tensor itself for F32,
 * else converted into buf (leading dimension cols). */
static const float *as_f32(tfl_dtype dt, const void *src, int64_t ld, int64_t rows,
                           int64_t cols, float *buf, int64_t *ld_out)
{
    if (dt == TFL_DT_F32) {
        *ld_out = ld;
        return src;
    }
    /* hg_to_f32 is column-major: our rows are its columns. */
    hg_to_f32(dt, src, ld, cols, rows, buf, cols);
    *ld_out = cols;
    return buf;
}

/* Where an rows x cols result is computed: straight into the tensor for
 * F32, else into buf and rounded back by put_back. */
static float *dst_f32(tfl_dtype dt, void *dst, int64_t ld, float *buf, int64_t cols,
                      int64_t *ld_out)
{
    if (dt == TFL_DT_F32) {
        *ld_out = ld;
        return dst;
    }
    *ld_out = cols;
    return buf;
}

static void put_back(tfl_dtype dt, const float *buf, int64_t rows, int64_t cols,
                     void *dst, int64_t ld)
{
    if (dt != TFL_DT_F32)
        hg_from_f32(dt, buf, cols, cols, rows, dst, ld);
}

static void zero_rows(float *p, int64_t ld, int64_t rows, int64_t cols)
{
    for (int64_t i = 0; i < rows; i++)
        memset(p + i * ld, 0, (size_t)cols * sizeof(float));
}

/* C (m x n, ldc) = alpha * op(A) op(B) + beta * C, row-major. */
static void gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                 float *c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) {
        /* BLAS leaves C untouched for k = 0 only when beta = 1. */
        if (beta == 0.0f)
            zero_rows(c, ldc, m, n);
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

/*
 * Keys that query rows [i0, i0 + mb) can see at all: the causal mask
 * hides every key past the block's last diagonal, so neither the scores
 * nor the products need those columns.
 */
static int64_t visible_keys(const tfl_attention_op *op, int64_t i0, int64_t mb)
{
    int64_t n = op->num_keys;
    if (op->mask != TFL_ATTN_MASK_CAUSAL)
        return n;
    int64_t end = i0 + mb + op->causal_offset;   /* last row's key bound */
    return end < 0 ? 0 : end > n ? n : end;
}

/*
 * Scores of query rows [i0, i0 + mb) against keys [0, ne) into s (ld ne):
 * scale * Q K^T + bias, -inf where the mask hides a key.
 */
static void scores(const tfl_attention_op *op, const float *q, int64_t ldq,
                   const float *k, int64_t ldk, const void *bias, size_t es,
                   int64_t i0, int64_t mb, int64_t ne, float *s)
{
    gemm(0, 1, mb, ne, op->head_dim, op->scale, q + i0 * ldq, ldq, k, ldk, 0.0f, s, ne);
    for (int64_t r = 0; r < mb; r++) {
        float *row = s + r * ne;
        int64_t i = i0 + r;
        if (bias) {
            const char *brow = (const char *)bias + (size_t)(i * op->bias.stride_m) * es;
            if (op->dtype == TFL_DT_F32) {
                const float *restrict bf = (const float *)brow;
                for (int64_t j = 0; j < ne; j++)
                    row[j] += bf[j];
            } else {
                for (int64_t j = 0; j < ne; j++)
                    row[j] += (float)hg_load(op->dtype, brow, j);
            }
        }
        if (op->mask == TFL_ATTN_MASK_CAUSAL) {
            int64_t first_hidden = i + op->causal_offset + 1;
            if (first_hidden < 0)
                first_hidden = 0;
            for (int64_t j = first_hidden; j < ne; j++)
                row[j] = -INFINITY;
        }
    }
}

/* ------------------------------------------------------------ forward */

static tfl_status forward_head(const tfl_attention_op *op, int64_t b, int64_t h,
                               float *s, int64_t mblk, float *conv)
{
    tfl_dtype dt = op->dtype;
    size_t es = tfl_dtype_size(dt);
    int64_t m = op->num_queries, n = op->num_keys;
    int64_t d = op->head_dim, dv = op->head_dim_value;
    int64_t hk = h / op->q_heads_per_kv;

    float *cq = conv, *ck = cq + m * d, *cv = ck + n * d, *co = cv + n * dv;
    int64_t ldq, ldk, ldv, ldo;
    const float *q = as_f32(dt, at(&op->q, es, b, h), op->q.stride_m, m, d, cq, &ldq);
    const float *k = as_f32(dt, at(&op->k, es, b, hk), op->k.stride_m, n, d, ck, &ldk);
    const float *v = as_f32(dt, at(&op->v, es, b, hk), op->v.stride_m, n, dv, cv, &ldv);
    void *odst = at(&op->out, es, b, h);
    float *o = dst_f32(dt, odst, op->out.stride_m, co, dv, &ldo);
    const void *bias = op->bias.ptr ? at(&op->bias, es, b, h) : NULL;
    float *lse = op->lse.ptr ? (float *)at(&op->lse, sizeof(float), b, h) : NULL;

    for (int64_t i0 = 0; i0 < m; i0 += mblk) {
        int64_t mb = m - i0 < mblk ? m - i0 : mblk;
        int64_t ne = visible_keys(op, i0, mb);
        scores(op, q, ldq, k, ldk, bias, es, i0, mb, ne, s);
        for (int64_t r = 0; r < mb; r++) {
            float *restrict row = s + r * ne;
            float mx = -INFINITY;
            for (int64_t j = 0; j < ne; j++)
                mx = row[j] > mx ? row[j] : mx;
            float l;
            if (mx == -INFINITY) {
                /* Every key hidden: no attention at all. */
                memset(row, 0, (size_t)ne * sizeof(float));
                l = -INFINITY;
            } else {
                double sum = host_exp_shift_f32(ne, row, mx);
                float inv = (float)(1.0 / sum);
                for (int64_t j = 0; j < ne; j++)
                    row[j] *= inv;
                l = mx + (float)log(sum);
            }
            if (lse)
                lse[i0 + r] = l;
        }
        gemm(0, 0, mb, dv, ne, 1.0f, s, ne, v, ldv, 0.0f, o + i0 * ldo, ldo);
    }
    put_back(dt, co, m, dv, odst, op->out.stride_m);
    if (lse)
        for (int64_t i = m; i < op->lse_padded_len; i++)
            lse[i] = INFINITY;
    return TFL_OK;
}

/* ----------------------------------------------------------- backward */

static tfl_status backward_head(const tfl_attention_op *op, int64_t b, int64_t h,
                                float *s, float *dp, int64_t mblk, float *conv,
                                float *delta)
{
    tfl_dtype dt = op->dtype;
    size_t es = tfl_dtype_size(dt);
    int64_t m = op->num_queries, n = op->num_keys;
    int64_t d = op->head_dim, dv = op->head_dim_value;
    int64_t hk = h / op->q_heads_per_kv;

    float *cq = conv, *ck = cq + m * d, *cv = ck + n * d, *co = cv + n * dv;
    float *cgo = co + m * dv, *cgq = cgo + m * dv, *cgk = cgq + m * d, *cgv = cgk + n * d;
    int64_t ldq, ldk, ldv, ldo, ldgo, ldgq, ldgk, ldgv;
    const float *q = as_f32(dt, at(&op->q, es, b, h), op->q.stride_m, m, d, cq, &ldq);
    const float *k = as_f32(dt, at(&op->k, es, b, hk), op->k.stride_m, n, d, ck, &ldk);
    const float *v = as_f32(dt, at(&op->v, es, b, hk), op->v.stride_m, n, dv, cv, &ldv);
    const float *o = as_f32(dt, at(&op->out, es, b, h), op->out.stride_m, m, dv, co, &ldo);
    const float *go = as_f32(dt, at(&op->grad_out, es, b, h), op->grad_out.stride_m, m, dv,
                             cgo, &ldgo);
    void *gqd = at(&op->grad_q, es, b, h), *gkd = at(&op->grad_k, es, b, h);
    void *gvd = at(&op->grad_v, es, b, h);
    float *gq = dst_f32(dt, gqd, op->grad_q.stride_m, cgq, d, &ldgq);
    float *gk = dst_f32(dt, gkd, op->grad_k.stride_m, cgk, d, &ldgk);
    float *gv = dst_f32(dt, gvd, op->grad_v.stride_m, cgv, dv, &ldgv);
    const void *bias = op->bias.ptr ? at(&op->bias, es, b, h) : NULL;
    char *gbias = op->grad_bias.ptr ? at(&op->grad_bias, es, b, h) : NULL;
    const float *lse = (const float *)at(&op->lse, sizeof(float), b, h);

    /* D[i] = dO[i] . O[i], in double: it is a difference term. */
    for (int64_t i = 0; i < m; i++) {
        double acc = 0.0;
        for (int64_t c = 0; c < dv; c++)
            acc += (double)go[i * ldgo + c] * o[i * ldo + c];
        delta[i] = (float)acc;
    }
    /* dK and dV accumulate over the query blocks, each over the keys
     * that block sees; keys no query sees keep a zero gradient. */
    zero_rows(gk, ldgk, n, d);
    zero_rows(gv, ldgv, n, dv);
    for (int64_t i0 = 0; i0 < m; i0 += mblk) {
        int64_t mb = m - i0 < mblk ? m - i0 : mblk;
        int64_t ne = visible_keys(op, i0, mb);
        scores(op, q, ldq, k, ldk, bias, es, i0, mb, ne, s);
        for (int64_t r = 0; r < mb; r++) {
            float *restrict row = s + r * ne;
            float l = lse[i0 + r];
            if (l == -INFINITY) {
                memset(row, 0, (size_t)ne * sizeof(float));
                continue;
            }
            host_exp_shift_f32(ne, row, l);     /* exp(-inf) = 0 for hidden keys */
        }
        /* dV += P^T dO */
        gemm(1, 0, ne, dv, mb, 1.0f, s, ne, go + i0 * ldgo, ldgo, 1.0f, gv, ldgv);
        /* dP = dO V^T, then dS = P (dP - D) */
        gemm(0, 1, mb, ne, dv, 1.0f, go + i0 * ldgo, ldgo, v, ldv, 0.0f, dp, ne);
        for (int64_t r = 0; r < mb; r++) {
            float *restrict pr = s + r * ne, *restrict dr = dp + r * ne;
            float di = delta[i0 + r];
            for (int64_t j = 0; j < ne; j++)
                dr[j] = pr[j] * (dr[j] - di);
        }
        if (gbias) {
            /* Whole rows: hidden keys get a zero gradient. */
            for (int64_t r = 0; r < mb; r++) {
                char *dst = gbias + (size_t)((i0 + r) * op->grad_bias.stride_m) * es;
                if (dt == TFL_DT_F32) {
                    memcpy(dst, dp + r * ne, (size_t)ne * sizeof(float));
                    memset((float *)dst + ne, 0, (size_t)(n - ne) * sizeof(float));
                } else {
                    hg_from_f32(dt, dp + r * ne, ne, ne, 1, dst, 0);
                    memset(dst + (size_t)ne * es, 0, (size_t)(n - ne) * es);
                }
            }
        }
        /* dQ = scale dS K;  dK += scale dS^T Q */
        gemm(0, 0, mb, d, ne, op->scale, dp, ne, k, ldk, 0.0f, gq + i0 * ldgq, ldgq);
        gemm(1, 0, ne, d, mb, op->scale, dp, ne, q + i0 * ldq, ldq, 1.0f, gk, ldgk);
    }
    put_back(dt, cgq, m, d, gqd, op->grad_q.stride_m);
    put_back(dt, cgk, n, d, gkd, op->grad_k.stride_m);
    put_back(dt, cgv, n, dv, gvd, op->grad_v.stride_m);
    return TFL_OK;
}

tfl_status host_attention(const tfl_attention_op *op)
{
    return host_attention_blocked(op, ATT_BLOCK_FLOATS);
}

/* One (batch, head) of an attention op, with its own scratch. */
typedef struct att_par {
    const tfl_attention_op *op;
    int64_t mblk;
    size_t sblk, conv, total;
    _Atomic int status;
} att_par;

static void att_head(void *ctx, int part)
{
    att_par *w = ctx;
    const tfl_attention_op *op = w->op;
    if (atomic_load(&w->status) != TFL_OK)
        return;
    float *buf = malloc(w->total * sizeof(float));
    if (!buf) {
        atomic_store(&w->status, TFL_ERR_NOMEM);
        return;
    }
    float *s = buf, *dp = s + w->sblk, *cv = dp + (op->backward ? w->sblk : 0);
    float *delta = cv + w->conv;
    int64_t b = part / op->heads, h = part % op->heads;
    tfl_status st = op->backward ? backward_head(op, b, h, s, dp, w->mblk, cv, delta)
                                 : forward_head(op, b, h, s, w->mblk, cv);
    if (st != TFL_OK)
        atomic_store(&w->status, (int)st);
    free(buf);
}

tfl_status host_attention_blocked(const tfl_attention_op *op, int64_t block_floats)
{
    if (!host_attention_supported(op))
        return TFL_ERR_UNSUPPORTED;
    int64_t m = op->num_queries, n = op->num_keys;
    int64_t d = op->head_dim, dv = op->head_dim_value;
    if (m > INT32_MAX || n > INT32_MAX || d > INT32_MAX || dv > INT32_MAX)
        return TFL_ERR_UNSUPPORTED;
    /* Query rows per block: the scores of one block stay in scratch. */
    int64_t mblk = n > 0 ? block_floats / n : m;
    if (mblk < 1)
        mblk = 1;
    /* Causal: blocks of CAUSAL_ROWS rows skip most of the hidden triangle. */
    if (op->mask == TFL_ATTN_MASK_CAUSAL && mblk > CAUSAL_ROWS)
        mblk = CAUSAL_ROWS;
    if (mblk > m)
        mblk = m > 0 ? m : 1;

    att_par w = { .op = op, .mblk = mblk };
    w.sblk = (size_t)(mblk * (n > 0 ? n : 1));
    /* Conversion buffers for fp16/bf16 (q k v o | go gq gk gv). */
    if (op->dtype != TFL_DT_F32) {
        w.conv = (size_t)(m * d + n * d + n * dv + m * dv);
        if (op->backward)
            w.conv += (size_t)(m * dv + m * d + n * d + n * dv);
    }
    w.total = w.sblk * (op->backward ? 2 : 1) + w.conv + (size_t)m + 1;
    atomic_init(&w.status, TFL_OK);
    /* Heads are independent: share them out over the host's cores. */
    int64_t parts = op->batch * op->heads;
    if (parts > INT32_MAX)
        return TFL_ERR_UNSUPPORTED;
    host_parallel((int)parts, att_head, &w);
    return (tfl_status)atomic_load(&w.status);
}

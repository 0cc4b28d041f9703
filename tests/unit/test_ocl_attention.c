/*
 * test_ocl_attention.c - TFL_OP_ATTENTION on the OpenCL backend
 * (ocl_attention.c) against the host backend (tfl_host_backend.op_run) on
 * the same inputs.
 *
 * Each case runs the forward on both backends and compares O and lse;
 * then both run the backward from the host's O and lse and dQ, dK, dV
 * (and dbias) are compared.  Whole buffers are compared, the gaps of the
 * strided layouts included: what the op must not write stays as it was.
 *
 * Covers head dims 16/32/64 (and a value dim unlike the key dim),
 * sequence lengths 1, 7, 64, 130 (and 1024/2100 for several head tiles
 * and several row tiles), no mask, causal top-left and bottom-right (rows
 * with every key hidden), batch x heads > 1, grouped K/V heads, the
 * layouts SDPA passes (contiguous [B, H, M, D], transposed [B, M, H, D],
 * and q/k/v split from one fused projection), additive bias (per head
 * and broadcast), dropout, lse padding, fp16 and bf16; and ops the
 * backend must refuse.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

/* ------------------------------------------------------------ elements */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double urand(double lo, double hi)
{
    return ocl_h_urand64(&rng, lo, hi);
}

/* ------------------------------------------------------------ tensors */

/* How a [B][heads][rows][cols] operand lies in memory. */
enum {
    L_BHMD,    /* contiguous [B, H, M, D]                                */
    L_BMHD,    /* [B, M, H, D] seen transposed, as SDPA passes it        */
    L_FUSED    /* one third of a [B, M, 3, H, D] projection (q, k or v)  */
};

/* One operand: its host copy, its device twin, its layout. */
typedef struct tens {
    tfl_dtype dt;
    int64_t sb, sh, sm;
    size_t n, bytes;      /* elements, bytes of the whole buffer */
    void *h, *d;
} tens;

static tens mk(tfl_dtype dt, int layout, int64_t B, int64_t H, int64_t rows, int64_t cols,
               double lo, double hi)
{
    tens t = { .dt = dt };
    switch (layout) {
    case L_BHMD: t.sm = cols; t.sh = rows * cols; t.sb = H * rows * cols; break;
    case L_BMHD: t.sh = cols; t.sm = H * cols; t.sb = rows * H * cols; break;
    default: t.sh = cols; t.sm = 3 * H * cols; t.sb = rows * t.sm; break;
    }
    t.n = (size_t)(B * t.sb);
    t.bytes = t.n * tfl_dtype_size(dt);
    t.h = malloc(t.bytes ? t.bytes : 1);
    for (size_t i = 0; i < t.n; i++)
        ocl_h_st(dt, t.h, (int64_t)i, urand(lo, hi));
    t.d = ocl_h_dev(t.h, t.bytes ? t.bytes : 1);
    return t;
}

static void sync_dev(const tens *t)
{
    ocl_h_put(t->d, t->h, t->bytes ? t->bytes : 1);
}

static void drop(tens *t)
{
    if (!t->h)
        return;
    ocl_h_free(t->d, t->bytes ? t->bytes : 1);
    free(t->h);
    memset(t, 0, sizeof *t);
}

static tfl_attn_tensor view(const tens *t, int dev)
{
    if (!t->h)
        return (tfl_attn_tensor){ 0 };
    return (tfl_attn_tensor){ dev ? t->d : t->h, t->sb, t->sh, t->sm };
}

/* ------------------------------------------------------------ cases */

enum { BIAS_NONE, BIAS_FULL, BIAS_BCAST };

typedef struct acase {
    const char *name;
    tfl_dtype dt;
    int64_t B, H, g;          /* batch, query heads, query heads per K/V head */
    int64_t M, N, D, Dv;
    int causal;
    int64_t coff;             /* causal_offset                             */
    int layout;               /* L_* of q, k, v, out and the gradients     */
    int bias;                 /* BIAS_*                                    */
    float p;                  /* dropout                                   */
    int64_t pad;              /* lse_padded_len (0: num_queries)           */
    int no_lse;               /* forward without lse                       */
} acase;

enum { Q, K, V, O, LSE, DO, DQ, DK, DV, BI, GB, NT };

static int cases_run;

/* Relative tolerance of a type: fp32 results agree to rounding (the
 * summation orders differ); fp16/bf16 ones to a unit in the last place. */
static double tol_of(tfl_dtype t)
{
    return t == TFL_DT_F16 ? 2e-3 : t == TFL_DT_BF16 ? 1.6e-2 : 1e-5;
}

/* want and got agree: infinities and NaN exactly, numbers within the
 * type's tolerance of themselves plus that of the buffer's largest value
 * (an output summed over many keys has terms that large, and may itself
 * be small). */
static void compare(const char *what, tfl_dtype t, const void *want, const void *got, size_t n)
{
    double big = 0;
    for (size_t i = 0; i < n; i++) {
        double w = ocl_h_ld(t, want, (int64_t)i);
        if (isfinite(w) && fabs(w) > big)
            big = fabs(w);
    }
    ocl_h_compare(what, t, want, got, (int64_t)n, tol_of(t), big, 0);
}

static void fill_op(tfl_op *op, const acase *c, const tens *x, int backward, int dev)
{
    *op = ocl_h_op(TFL_OP_ATTENTION);
    tfl_attention_op *a = &op->u.attention;
    a->backward = backward;
    a->dtype = c->dt;
    a->batch = c->B;
    a->heads = c->H;
    a->q_heads_per_kv = c->g;
    a->num_queries = c->M;
    a->num_keys = c->N;
    a->head_dim = c->D;
    a->head_dim_value = c->Dv;
    a->scale = (float)(1.0 / sqrt((double)c->D));
    a->mask = c->causal ? TFL_ATTN_MASK_CAUSAL : TFL_ATTN_MASK_NONE;
    a->causal_offset = c->coff;
    a->q = view(&x[Q], dev);
    a->k = view(&x[K], dev);
    a->v = view(&x[V], dev);
    a->bias = view(&x[BI], dev);
    a->out = view(&x[O], dev);
    if (!c->no_lse || backward)
        a->lse = view(&x[LSE], dev);
    a->lse_padded_len = c->pad ? c->pad : c->M;
    if (backward) {
        a->grad_out = view(&x[DO], dev);
        a->grad_q = view(&x[DQ], dev);
        a->grad_k = view(&x[DK], dev);
        a->grad_v = view(&x[DV], dev);
        a->grad_bias = view(&x[GB], dev);
    }
    a->dropout_p = c->p;
    a->dropout_seed = 0x1234abcdull;
    a->dropout_offset = 77;
}

/* Run the op on both backends: the device's outputs (listed) come back
 * into got[], the host's land in x[].h. */
static int run_both(const acase *c, tens *x, int backward, const int *outs, int nouts,
                    void **got)
{
    tfl_op op;
    fill_op(&op, c, x, backward, 1);
    tfl_status os = ocl_h_run(&op);
    if (os != TFL_OK) {
        fprintf(stderr, "%s %s: opencl status %d\n", c->name, backward ? "bwd" : "fwd",
                (int)os);
        OCL_H_CHECK(os == TFL_OK);
        return 0;
    }
    for (int i = 0; i < nouts; i++) {
        tens *t = &x[outs[i]];
        got[i] = malloc(t->bytes ? t->bytes : 1);
        ocl_h_get(got[i], t->d, t->bytes ? t->bytes : 1);
    }
    fill_op(&op, c, x, backward, 0);
    OCL_H_CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
    return 1;
}

static void check_outs(const acase *c, const char *pass, const tens *x, const int *outs,
                       int nouts, void **got)
{
    static const char *names[NT] = { "q", "k", "v", "out", "lse", "dout", "dq", "dk", "dv",
                                     "bias", "dbias" };
    char what[160];
    for (int i = 0; i < nouts; i++) {
        const tens *t = &x[outs[i]];
        snprintf(what, sizeof what, "%s %s %s", c->name, pass, names[outs[i]]);
        compare(what, t->dt, t->h, got[i], t->n);
        free(got[i]);
    }
}

static void run_case(const acase *c)
{
    const int64_t B = c->B, H = c->H, Hk = c->H / c->g, M = c->M, N = c->N;
    const int64_t lse_len = c->pad > M ? c->pad : M;
    tens x[NT] = { 0 };
    x[Q] = mk(c->dt, c->layout, B, H, M, c->D, -1, 1);
    x[K] = mk(c->dt, c->layout, B, Hk, N, c->D, -1, 1);
    x[V] = mk(c->dt, c->layout, B, Hk, N, c->Dv, -1, 1);
    x[O] = mk(c->dt, c->layout, B, H, M, c->Dv, -9, 9);     /* garbage to be overwritten */
    x[LSE] = mk(TFL_DT_F32, L_BHMD, B, H, 1, lse_len, -9, 9);
    x[DO] = mk(c->dt, c->layout, B, H, M, c->Dv, -1, 1);
    x[DQ] = mk(c->dt, c->layout, B, H, M, c->D, -9, 9);
    x[DK] = mk(c->dt, c->layout, B, H, N, c->D, -9, 9);     /* per query head */
    x[DV] = mk(c->dt, c->layout, B, H, N, c->Dv, -9, 9);
    if (c->bias != BIAS_NONE) {
        x[BI] = mk(c->dt, L_BHMD, B, c->bias == BIAS_FULL ? H : 1, M, N, -2, 2);
        if (c->bias == BIAS_BCAST)
            x[BI].sh = 0;
        else
            x[GB] = mk(c->dt, L_BHMD, B, H, M, N, -9, 9);
    }
    void *got[4];
    static const int fwd_outs[] = { O, LSE }, bwd_outs[] = { DQ, DK, DV, GB };
    if (run_both(c, x, 0, fwd_outs, 2, got))
        check_outs(c, "fwd", x, fwd_outs, 2, got);
    /* the backward reads the host's O and lse on both sides */
    sync_dev(&x[O]);
    sync_dev(&x[LSE]);
    int nb = x[GB].h ? 4 : 3;
    if (run_both(c, x, 1, bwd_outs, nb, got))
        check_outs(c, "bwd", x, bwd_outs, nb, got);
    for (int i = 0; i < NT; i++)
        drop(&x[i]);
    cases_run++;
}

/* ------------------------------------------------------------ refusals */

/* Ops the backend must leave to the host. */
static void refused(void)
{
    const acase c = { "refused", TFL_DT_F32, 1, 2, 1, 7, 7, 16, 16, 0, 0, L_BHMD, 0, 0, 0, 0 };
    tens x[NT] = { 0 };
    x[Q] = mk(TFL_DT_F32, L_BHMD, 1, 2, 7, 16, -1, 1);
    x[K] = mk(TFL_DT_F32, L_BHMD, 1, 2, 7, 16, -1, 1);
    x[V] = mk(TFL_DT_F32, L_BHMD, 1, 2, 7, 16, -1, 1);
    x[O] = mk(TFL_DT_F32, L_BHMD, 1, 2, 7, 16, -1, 1);
    x[LSE] = mk(TFL_DT_F32, L_BHMD, 1, 2, 1, 7, -1, 1);
    tfl_op op;
    fill_op(&op, &c, x, 0, 1);
    OCL_H_CHECK(ocl_h->op_supported(&op));              /* the baseline is accepted */
    tfl_attention_op *a = &op.u.attention;
    a->head_dim = 0;                                      /* nothing to multiply */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->head_dim = 16;
    a->num_keys = 0;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->num_keys = 7;
    a->q.ptr = x[Q].h;                                    /* host memory */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->q.ptr = x[Q].d;
    a->num_keys = 1000;                                   /* past the end of K */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->num_keys = 7;
    a->dtype = TFL_DT_F64;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->dtype = TFL_DT_F32;
    a->dropout_p = 1.0f;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->dropout_p = 0.0f;
    a->q_heads_per_kv = 3;                                /* 2 heads: not a multiple */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->q_heads_per_kv = 1;
    a->k.stride_m = -16;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->k.stride_m = 16;
    a->backward = 1;                                      /* no grad_out etc. */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    a->backward = 0;
    a->batch = 0;                                         /* nothing to do */
    OCL_H_CHECK(ocl_h->op_supported(&op));
    OCL_H_CHECK(ocl_h->op_run(&op, NULL) == TFL_OK);
    for (int i = 0; i < NT; i++)
        drop(&x[i]);
}

int main(void)
{
    ocl_h_init();
    const tfl_dtype F32 = TFL_DT_F32, F16 = TFL_DT_F16, BF16 = TFL_DT_BF16;
    /* name, dt, B, H, g, M, N, D, Dv, causal, coff, layout, bias, p, pad, no_lse */
    const acase cases[] = {
        { "plain 7", F32, 2, 3, 1, 7, 7, 16, 16, 0, 0, L_BHMD, 0, 0, 0, 0 },
        { "causal 64 sdpa", F32, 2, 2, 1, 64, 64, 32, 32, 1, 0, L_BMHD, 0, 0, 64, 0 },
        { "causal 130 b1", F32, 1, 4, 1, 130, 130, 64, 64, 1, 0, L_BMHD, 0, 0, 160, 0 },
        { "plain 130", F32, 2, 2, 1, 130, 130, 64, 64, 0, 0, L_BHMD, 0, 0, 0, 1 },
        { "decode m1", F32, 2, 4, 1, 1, 7, 16, 16, 1, 6, L_BHMD, 0, 0, 32, 0 },
        { "m1 n1", F32, 3, 2, 1, 1, 1, 32, 32, 1, 0, L_BMHD, 0, 0, 0, 0 },
        { "keys 1", F32, 3, 2, 1, 7, 1, 32, 32, 0, 0, L_BMHD, 0, 0, 0, 0 },
        { "fused qkv", F32, 2, 4, 1, 64, 64, 16, 16, 1, 0, L_FUSED, 0, 0, 64, 0 },
        { "bottom-right hidden rows", F32, 1, 2, 1, 130, 64, 16, 16, 1, -66, L_BHMD, 0, 0,
          160, 0 },
        { "top-left m<n", F32, 2, 1, 1, 7, 130, 32, 32, 1, 0, L_BMHD, 0, 0, 32, 0 },
        { "bias", F32, 2, 2, 1, 7, 130, 32, 32, 1, 0, L_BHMD, BIAS_FULL, 0, 0, 0 },
        { "bias bcast", F32, 2, 3, 1, 64, 64, 16, 16, 0, 0, L_BMHD, BIAS_BCAST, 0, 0, 0 },
        { "gqa", F32, 2, 4, 2, 64, 64, 32, 32, 1, 0, L_BHMD, 0, 0, 64, 0 },
        { "gqa sdpa", F32, 2, 6, 3, 7, 7, 16, 16, 0, 0, L_BMHD, 0, 0, 0, 0 },
        { "dv 16 d 32", F32, 2, 2, 1, 64, 130, 32, 16, 1, 66, L_BMHD, 0, 0, 64, 0 },
        { "dropout", F32, 2, 2, 1, 64, 64, 32, 32, 1, 0, L_BHMD, 0, 0.3f, 64, 0 },
        { "dropout bias", F32, 1, 3, 1, 130, 7, 16, 16, 0, 0, L_BMHD, BIAS_FULL, 0.1f, 0, 0 },
        { "f16", F16, 2, 2, 1, 64, 64, 32, 32, 1, 0, L_BMHD, 0, 0, 64, 0 },
        { "f16 bias dropout", F16, 2, 2, 1, 7, 130, 16, 16, 0, 0, L_BHMD, BIAS_FULL, 0.2f, 0,
          0 },
        { "bf16", BF16, 2, 2, 1, 130, 130, 64, 64, 0, 0, L_BHMD, 0, 0, 0, 0 },
        { "bf16 gqa fused", BF16, 2, 4, 2, 64, 64, 16, 16, 1, 0, L_FUSED, 0, 0, 64, 0 },
        /* 6 heads of 1M scores: tiles of 4 heads and of 2 */
        { "head tiles", F32, 2, 3, 1, 1024, 1024, 16, 16, 0, 0, L_BHMD, 0, 0, 0, 0 },
        /* one head past the budget: two tiles of query rows */
        { "row tiles", F32, 1, 1, 1, 2100, 2100, 16, 16, 1, 0, L_BHMD, 0, 0, 2112, 0 },
        { "row tiles sdpa bias", F32, 1, 2, 1, 2100, 2100, 16, 16, 1, 0, L_BMHD, BIAS_FULL,
          0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    refused();
    printf("%d cases\n", cases_run);
    return ocl_h_finish("test_ocl_attention");
}

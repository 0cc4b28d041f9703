/*
 * test_ocl_loss.c - TFL_OP_LOSS (nll_loss) on the OpenCL backend
 * (ocl_loss.c) against the host backend on the same inputs.
 *
 * Covers: forward with reduction none / sum / mean, weighted and not,
 * ignore_index hit by some rows (and by every row), int64 and uint8
 * targets, padded strides, one row, many rows, many classes, the 1-D
 * special case (kept, ignored, zero weight: NaN), accumulate, the
 * spatial form (NCHW and channels-last), backward for every reduction,
 * the average step; float32, float64, float16 and bfloat16.  Whole output
 * buffers are compared (what must stay untouched included): fp32 within
 * 1e-5 relative, fp64 1e-12, half/bfloat16 one unit in the last place.
 * Last (the fault is sticky, as on a GPU): an out-of-range target makes
 * the stream report TFL_ERR_DEVICE.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

#define CHECK OCL_H_CHECK

static uint32_t rng = 2463534242u;

static uint32_t next(void)
{
    return ocl_h_xs32(&rng);
}

static double urand(double lo, double hi)
{
    return ocl_h_urand32(&rng, lo, hi);
}

/* One case: the shape and its strides (0 = contiguous), what runs. */
typedef struct lcase {
    const char *name;
    tfl_loss_kind kind;
    tfl_loss_reduction red;
    tfl_dtype dt, tdt;
    int64_t batch, classes, H, W;
    int weighted, one_d, accumulate, channels_last;
    int64_t pad;            /* added to the plain form's row strides */
    int ignore_pct;         /* rows whose target is ignore_index, percent */
} lcase;

enum { TGT, IN, WT, OUT, TW, GOUT, GI, NBUF };

typedef struct layout {
    int64_t rows, hw, s0, s1, sh, sw, out_n, os, osh, osw;
} layout;

static layout layout_of(const lcase *c)
{
    layout L;
    int64_t H = c->H ? c->H : 1, W = c->W ? c->W : 1, C = c->classes;
    L.hw = H * W;
    L.rows = c->batch * L.hw;
    if (c->channels_last) {
        L.s0 = L.hw * C;
        L.s1 = 1;
        L.sh = W * C;
        L.sw = C;
    } else {
        L.s0 = C * L.hw + c->pad;
        L.s1 = L.hw;
        L.sh = c->H ? W : 0;
        L.sw = c->W ? 1 : 0;
    }
    /* per-row outputs: a stride of 2 in the plain form, contiguous spatial */
    L.os = c->H ? L.hw : 2;
    L.osh = c->H ? W : 0;
    L.osw = c->W ? 1 : 0;
    L.out_n = c->H ? L.rows : 2 * c->batch;
    return L;
}

static void fill_op(tfl_op *op, const lcase *c, const layout *L, ocl_h_buf *b, int dev)
{
    *op = ocl_h_op(TFL_OP_LOSS);
    tfl_loss_op *l = &op->u.loss;
#define P(i) ocl_h_at(&b[i], dev)
    l->kind = c->kind;
    l->reduction = c->red;
    l->dtype = c->dt;
    l->target_dtype = c->tdt;
    l->one_d = c->one_d;
    l->batch = c->batch;
    l->n_classes = c->classes;
    l->ignore_index = c->tdt == TFL_DT_U8 ? 255 : -100;
    l->target = P(TGT);
    l->weight = c->weighted ? P(WT) : NULL;
    l->input = P(IN);
    l->in_stride0 = L->s0;
    l->in_stride1 = L->s1;
    l->output = P(OUT);
    l->out_stride = L->os;
    l->total_weight = P(TW);
    l->grad_output = P(GOUT);
    l->gout_stride = L->os;
    l->grad_input = P(GI);
    l->gi_stride0 = L->s0;
    l->gi_stride1 = L->s1;
    l->H = c->H;
    l->W = c->W;
    l->in_stride_h = l->gi_stride_h = L->sh;
    l->in_stride_w = l->gi_stride_w = L->sw;
    l->out_stride_h = l->gout_stride_h = L->osh;
    l->out_stride_w = l->gout_stride_w = L->osw;
    l->accumulate = c->accumulate;
#undef P
}

static int cases_run;

static void run_case(const lcase *c)
{
    const layout L = layout_of(c);
    const size_t es = tfl_dtype_size(c->dt), ts = tfl_dtype_size(c->tdt);
    const int64_t in_n = c->batch ? L.s0 * c->batch : 0;
    const int64_t tgt_n = c->one_d ? 1 : L.rows;
    ocl_h_buf b[NBUF];
    b[TGT] = ocl_h_buf_new((size_t)tgt_n * ts);
    b[IN] = ocl_h_buf_new((size_t)(c->one_d ? c->classes : in_n) * es);
    b[WT] = ocl_h_buf_new((size_t)c->classes * es);
    b[OUT] = ocl_h_buf_new((size_t)(L.out_n > 1 ? L.out_n : 1) * es);
    b[TW] = ocl_h_buf_new(es);
    b[GOUT] = ocl_h_buf_new((size_t)(L.out_n > 1 ? L.out_n : 1) * es);
    b[GI] = ocl_h_buf_new((size_t)in_n * es);
    for (int64_t i = 0; i < tgt_n; i++) {
        int64_t t = (int64_t)(next() % (uint32_t)c->classes);
        if ((int)(next() % 100) < c->ignore_pct)
            t = c->tdt == TFL_DT_U8 ? 255 : -100;
        if (c->tdt == TFL_DT_U8)
            ((uint8_t *)b[TGT].h)[i] = (uint8_t)t;
        else
            ((int64_t *)b[TGT].h)[i] = t;
    }
    for (int64_t i = 0; i < (int64_t)(b[IN].bytes / es); i++)
        ocl_h_st(c->dt, b[IN].h, i, urand(-5, 0));
    for (int64_t i = 0; i < c->classes; i++)
        ocl_h_st(c->dt, b[WT].h, i, urand(0.1, 2));
    for (int64_t i = 0; i < (int64_t)(b[OUT].bytes / es); i++) {
        ocl_h_st(c->dt, b[OUT].h, i, urand(-3, 3));   /* untouched or accumulated into */
        ocl_h_st(c->dt, b[GOUT].h, i, urand(-2, 2));
    }
    ocl_h_st(c->dt, b[TW].h, 0, c->kind == TFL_LOSS_NLL_BWD || c->accumulate ||
                                    c->kind == TFL_LOSS_NLL_AVERAGE ? urand(1, 50) : -7);
    for (int i = 0; i < NBUF; i++)
        ocl_h_buf_up(&b[i]);
    tfl_op op;
    fill_op(&op, c, &L, b, 1);
    tfl_status os = ocl_h_run(&op);
    if (os != TFL_OK)
        fprintf(stderr, "%s: opencl status %d\n", c->name, (int)os);
    CHECK(os == TFL_OK);
    fill_op(&op, c, &L, b, 0);
    CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
    static const struct { int i; const char *what; } outs[] = {
        { OUT, "output" }, { TW, "total_weight" }, { GI, "grad_input" },
    };
    char what[200];
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        ocl_h_buf *o = &b[outs[k].i];
        void *got = ocl_h_buf_down(o);
        snprintf(what, sizeof what, "%s %s", c->name, outs[k].what);
        /* about an ulp; 1e-30: a zero may come back as a tiny value */
        ocl_h_compare(what, c->dt, o->h, got, (int64_t)(o->bytes / es), ocl_h_tol(c->dt), 0,
                      1e-30);
        free(got);
    }
    for (int i = 0; i < NBUF; i++)
        ocl_h_buf_drop(&b[i]);
    cases_run++;
}

static const char *red_name(tfl_loss_reduction r)
{
    return r == TFL_LOSS_REDUCE_NONE ? "none" : r == TFL_LOSS_REDUCE_SUM ? "sum" : "mean";
}

/* Forward and backward of every reduction over one shape. */
static void shape_cases(tfl_dtype dt, tfl_dtype tdt, int64_t batch, int64_t classes, int64_t H,
                        int64_t W, int cl, int64_t pad, int ignore_pct)
{
    const tfl_loss_reduction reds[] = { TFL_LOSS_REDUCE_NONE, TFL_LOSS_REDUCE_SUM,
                                        TFL_LOSS_REDUCE_MEAN };
    for (int kind = 0; kind < 2; kind++)
        for (int r = 0; r < 3; r++)
            for (int weighted = 0; weighted < 2; weighted++) {
                char name[200];
                snprintf(name, sizeof name, "%s/%s %s %s%s %lldx%lld (%lldx%lld)%s ign%d%%",
                         ocl_h_dt_name(dt), tdt == TFL_DT_U8 ? "u8" : "i64", kind ? "bwd" : "fwd",
                         red_name(reds[r]), weighted ? " weighted" : "", (long long)batch,
                         (long long)classes, (long long)H, (long long)W, cl ? " nhwc" : "",
                         ignore_pct);
                lcase c = { name, kind ? TFL_LOSS_NLL_BWD : TFL_LOSS_NLL_FWD, reds[r], dt, tdt,
                            batch, classes, H, W, weighted, 0, 0, cl, pad, ignore_pct };
                run_case(&c);
            }
}

static void special_cases(tfl_dtype dt)
{
    char name[200];
    const tfl_loss_reduction reds[] = { TFL_LOSS_REDUCE_SUM, TFL_LOSS_REDUCE_MEAN };
    for (int r = 0; r < 2; r++)
        for (int weighted = 0; weighted < 2; weighted++) {
            /* 1-D: kept, then ignored */
            for (int ign = 0; ign <= 100; ign += 100) {
                snprintf(name, sizeof name, "%s 1d %s%s ign%d", ocl_h_dt_name(dt),
                         red_name(reds[r]), weighted ? " weighted" : "", ign);
                lcase c = { name, TFL_LOSS_NLL_FWD, reds[r], dt, TFL_DT_I64, 1, 9, 0, 0,
                            weighted, 1, 0, 0, 0, ign };
                run_case(&c);
            }
            /* accumulate (plain and spatial) */
            snprintf(name, sizeof name, "%s accumulate %s%s", ocl_h_dt_name(dt), red_name(reds[r]),
                     weighted ? " weighted" : "");
            lcase a = { name, TFL_LOSS_NLL_FWD, reds[r], dt, TFL_DT_I64, 37, 6, 0, 0,
                        weighted, 0, 1, 0, 0, 20 };
            run_case(&a);
            lcase as = { name, TFL_LOSS_NLL_FWD, reds[r], dt, TFL_DT_I64, 3, 4, 17, 9,
                         weighted, 0, 1, 0, 0, 20 };
            run_case(&as);
        }
    snprintf(name, sizeof name, "%s average", ocl_h_dt_name(dt));
    lcase avg = { name, TFL_LOSS_NLL_AVERAGE, TFL_LOSS_REDUCE_MEAN, dt, TFL_DT_I64, 1, 1, 0, 0,
                  0, 0, 0, 0, 0, 0 };
    run_case(&avg);
}

/* A zero weight for the 1-D mean: NaN on both sides. */
static void one_d_zero_weight(void)
{
    lcase c = { "1d mean zero weight", TFL_LOSS_NLL_FWD, TFL_LOSS_REDUCE_MEAN, TFL_DT_F32,
                TFL_DT_I64, 1, 3, 0, 0, 1, 1, 0, 0, 0, 0 };
    const layout L = layout_of(&c);
    ocl_h_buf b[NBUF];
    int64_t t = 1;
    float w[3] = { 1, 0, 2 }, x[3] = { -1, -2, -3 }, nan_pair[2];
    for (int i = 0; i < NBUF; i++)
        b[i] = ocl_h_buf_new(i == TGT ? 8 : 16);
    memcpy(b[TGT].h, &t, 8);
    memcpy(b[WT].h, w, sizeof w);
    memcpy(b[IN].h, x, sizeof x);
    for (int i = 0; i < NBUF; i++)
        ocl_h_buf_up(&b[i]);
    tfl_op op;
    fill_op(&op, &c, &L, b, 1);
    CHECK(ocl_h_run(&op) == TFL_OK);
    ocl_h_get(&nan_pair[0], b[OUT].d, 4);
    ocl_h_get(&nan_pair[1], b[TW].d, 4);
    CHECK(isnan(nan_pair[0]) && nan_pair[1] == 0.0f);
    for (int i = 0; i < NBUF; i++)
        ocl_h_buf_drop(&b[i]);
}

static void refused(void)
{
    tfl_op op = ocl_h_op(TFL_OP_LOSS);
    tfl_loss_op *l = &op.u.loss;
    void *d = ocl_h_alloc(256);
    l->kind = TFL_LOSS_NLL_FWD;
    l->reduction = TFL_LOSS_REDUCE_SUM;
    l->dtype = TFL_DT_F32;
    l->target_dtype = TFL_DT_I64;
    l->batch = 2;
    l->n_classes = 3;
    l->in_stride0 = 3;
    l->in_stride1 = 1;
    l->target = l->input = l->output = l->total_weight = d;
    CHECK(ocl_h->op_supported(&op));
    l->target_dtype = TFL_DT_I32;              /* not a target dtype */
    CHECK(!ocl_h->op_supported(&op));
    l->target_dtype = TFL_DT_I64;
    l->dtype = TFL_DT_I32;
    CHECK(!ocl_h->op_supported(&op));
    l->dtype = TFL_DT_F32;
    int64_t host_target[2] = { 0, 1 };
    l->target = host_target;                   /* not device memory */
    CHECK(!ocl_h->op_supported(&op));
    l->target = NULL;
    CHECK(!ocl_h->op_supported(&op));
    ocl_h_free(d, 256);
}

/* Last: an out-of-range target is a device fault, sticky as on a GPU. */
static void bad_target(void)
{
    lcase c = { "bad target", TFL_LOSS_NLL_FWD, TFL_LOSS_REDUCE_SUM, TFL_DT_F32, TFL_DT_I64,
                4, 3, 0, 0, 0, 0, 0, 0, 0, 0 };
    const layout L = layout_of(&c);
    ocl_h_buf b[NBUF];
    int64_t t[4] = { 0, 2, 3, 1 };
    for (int i = 0; i < NBUF; i++)
        b[i] = ocl_h_buf_new(64);
    memcpy(b[TGT].h, t, sizeof t);
    for (int i = 0; i < NBUF; i++)
        ocl_h_buf_up(&b[i]);
    tfl_op op;
    fill_op(&op, &c, &L, b, 1);
    CHECK(ocl_h_run(&op) == TFL_ERR_DEVICE);
}

int main(void)
{
    ocl_h_init();
    const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F64, TFL_DT_F16, TFL_DT_BF16 };
    for (size_t d = 0; d < 4; d++) {
        shape_cases(dts[d], TFL_DT_I64, 1, 1, 0, 0, 0, 0, 0);
        shape_cases(dts[d], TFL_DT_I64, 7, 5, 0, 0, 0, 3, 30);
        shape_cases(dts[d], TFL_DT_U8, 300, 10, 0, 0, 0, 0, 10);
        shape_cases(dts[d], TFL_DT_I64, 5000, 13, 0, 0, 0, 1, 5);
        shape_cases(dts[d], TFL_DT_I64, 3, 1000, 0, 0, 0, 0, 0);
        shape_cases(dts[d], TFL_DT_I64, 6, 4, 0, 0, 0, 0, 100);    /* every row ignored */
        shape_cases(dts[d], TFL_DT_I64, 0, 4, 0, 0, 0, 0, 0);      /* no rows */
        shape_cases(dts[d], TFL_DT_I64, 2, 4, 3, 5, 0, 0, 20);     /* spatial NCHW */
        shape_cases(dts[d], TFL_DT_U8, 3, 7, 11, 13, 1, 0, 20);    /* channels-last */
        shape_cases(dts[d], TFL_DT_I64, 2, 3, 64, 64, 0, 0, 10);
        special_cases(dts[d]);
    }
    one_d_zero_weight();
    refused();
    printf("%d cases, %lld of %lld elements not bit-identical to the host's\n", cases_run,
           (long long)ocl_h_inexact, (long long)ocl_h_compared);
    bad_target();
    return ocl_h_finish("test_ocl_loss");
}

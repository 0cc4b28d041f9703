/*
 * test_ocl_softmax.c - TFL_OP_SOFTMAX on the OpenCL backend
 * (ocl_softmax.c) against the host backend (tfl_host_backend.op_run) on
 * the same inputs.
 *
 * Covers softmax and log_softmax, forward and backward; the last
 * dimension (inner == 1) and strided ones (inner > 1); one element, odd
 * sizes, 4096-wide rows, many rows, padded rows (outer_stride > dim *
 * inner: the gaps must stay untouched), dim 1, empty ops; float32,
 * float16, bfloat16, float64 and float16 in / float32 out; rows holding
 * NaN, +inf, -inf and huge values; in-place operation; run-to-run
 * reproducibility; and ops the backend must refuse.
 *
 * Whole output buffers are compared: float32/float64 within 1e-5
 * relative (plus 1e-6 absolute: exp and log may differ by an ulp or so,
 * and the host sums float32 rows in float lanes), float16/bfloat16 within
 * two units in the last place; NaN must match NaN.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

#define CHECK OCL_H_CHECK

enum { F32 = TFL_DT_F32, F64 = TFL_DT_F64, F16 = TFL_DT_F16, BF16 = TFL_DT_BF16 };

static int fp64, ran;
static uint64_t rs = 0x9e3779b97f4a7c15ull;

static double uni(void)
{
    return ocl_h_urand64(&rs, 0, 1);
}

static double ulp_of(int t)
{
    switch (t) {
    case F16: return 1.0 / 1024;
    case BF16: return 1.0 / 128;
    default: return 0;
    }
}

typedef struct scase {
    int log, bwd, in, out;
    int64_t outer, dim, inner, pad;    /* outer_stride = dim * inner + pad */
    int special;                       /* NaN / inf / huge values          */
    int inplace;                       /* out == in (fwd) or grad (bwd)    */
} scase;

/* Values: x in [-8, 8] (forward), y a probability or log-probability and
 * grad in [-1, 1] (backward); special rows get NaN, +-inf, 1e30. */
static double value(const scase *c, int which)
{
    double v;
    if (which == 1)
        v = 2 * uni() - 1;                           /* grad */
    else if (!c->bwd)
        v = 16 * uni() - 8;
    else
        v = c->log ? -6 * uni() : uni();
    if (c->special && which == 0) {
        int r = (int)(uni() * 97);
        if (r == 0) v = NAN;
        else if (r == 1) v = INFINITY;
        else if (r == 2) v = -INFINITY;
        else if (r == 3 && !c->bwd) v = 1e30;   /* backward: y * sum(grad) would
                                                  * magnify the host's float sum */
    }
    return v;
}

static int compare(const scase *c, const unsigned char *h, const unsigned char *d, size_t n)
{
    size_t es = tfl_dtype_size((tfl_dtype)c->out);
    int bad = 0;
    for (size_t i = 0; i < n; i += es) {
        if (memcmp(h + i, d + i, es) == 0)
            continue;
        double a = ocl_h_load(c->out, h + i), b = ocl_h_load(c->out, d + i);
        int ok;
        if (isnan(a) || isnan(b))
            ok = isnan(a) && isnan(b);
        else if (isinf(a) || isinf(b))
            ok = a == b;
        else
            ok = fabs(a - b) <= 1e-5 * fabs(a) + 1e-6 + 2 * ulp_of(c->out) * fmax(fabs(a), 1e-3);
        if (ok)
            continue;
        if (bad++ < 4)
            fprintf(stderr, "  %s%s in %d out %d [%lld,%lld,%lld]+%lld elem %zu: host %.9g "
                    "device %.9g\n", c->log ? "log_softmax" : "softmax", c->bwd ? " bwd" : "",
                    c->in, c->out, (long long)c->outer, (long long)c->dim,
                    (long long)c->inner, (long long)c->pad, i / es, a, b);
    }
    return bad;
}

static void set_op(tfl_op *op, const scase *c, const void *in, const void *grad, void *out)
{
    *op = ocl_h_op(TFL_OP_SOFTMAX);
    op->name = "softmax";
    tfl_softmax_op *m = &op->u.softmax;
    m->log = c->log;
    m->backward = c->bwd;
    m->in_dtype = (tfl_dtype)c->in;
    m->out_dtype = (tfl_dtype)c->out;
    m->in = in;
    m->grad = c->bwd ? grad : NULL;
    m->out = out;
    m->outer = c->outer;
    m->dim = c->dim;
    m->inner = c->inner;
    m->outer_stride = c->dim * c->inner + c->pad;
}

/* Run c on both backends; 0 if the device refuses it. */
static int run_case(const scase *c, int want)
{
    int64_t n = c->outer * (c->dim * c->inner + c->pad);
    size_t isz = tfl_dtype_size((tfl_dtype)c->in), osz = tfl_dtype_size((tfl_dtype)c->out);
    size_t ib = (size_t)(n ? n : 1) * isz, ob = (size_t)(n ? n : 1) * osz;
    unsigned char *hin = malloc(ib), *hg = malloc(ib), *hout = malloc(ob), *got = malloc(ob);
    for (int64_t i = 0; i < n; i++) {
        ocl_h_store(c->in, hin + i * isz, value(c, 0));
        ocl_h_store(c->in, hg + i * isz, value(c, 1));
    }
    for (size_t i = 0; i < ob; i++)
        hout[i] = (unsigned char)(0xa5 ^ i);
    if (c->inplace)           /* out is the operand it overwrites */
        memcpy(hout, c->bwd ? hg : hin, ob);
    void *din = ocl_h_dev(hin, ib), *dg = ocl_h_dev(hg, ib), *dout = ocl_h_dev(hout, ob);
    tfl_op hop, dop;
    set_op(&hop, c, hin, hg, hout);
    set_op(&dop, c, din, dg, dout);
    if (c->inplace) {
        if (c->bwd) {
            hop.u.softmax.grad = hout;
            dop.u.softmax.grad = dout;
        } else {
            hop.u.softmax.in = hout;
            dop.u.softmax.in = dout;
        }
    }
    int sup = ocl_h->op_supported(&dop);
    if (!sup) {
        if (want) {
            fprintf(stderr, "  not supported: log %d bwd %d in %d out %d\n", c->log, c->bwd,
                    c->in, c->out);
            ocl_h_failures++;
        }
        goto done;
    }
    if (!ocl_h_run_both("softmax", &hop, &dop))
        goto done;
    ran++;
    ocl_h_get(got, dout, ob);
    int bad = compare(c, hout, got, ob);
    if (bad) {
        fprintf(stderr, "  ... %d differences\n", bad);
        ocl_h_failures++;
    }
    if (!c->inplace && ocl_h_run(&dop) == TFL_OK) {   /* reproducible */
        unsigned char *again = malloc(ob);
        ocl_h_get(again, dout, ob);
        CHECK(memcmp(again, got, ob) == 0);
        free(again);
    }
done:
    ocl_h_free(din, ib);
    ocl_h_free(dg, ib);
    ocl_h_free(dout, ob);
    free(hin);
    free(hg);
    free(hout);
    free(got);
    return sup;
}

typedef struct shape { int64_t outer, dim, inner, pad; } shape;

static const shape shapes[] = {
    { 1, 1, 1, 0 },          /* one element                                */
    { 1, 7, 1, 0 },          /* odd row                                    */
    { 3, 4096, 1, 0 },       /* 4096-wide rows                             */
    { 1000, 33, 1, 0 },      /* many rows                                  */
    { 5, 10, 1, 6 },         /* padded rows                                */
    { 5, 17, 9, 0 },         /* over a middle dimension                    */
    { 2, 1000, 3, 0 },       /* long strided rows, few of them             */
    { 300, 5, 64, 0 },       /* many strided rows: one lane each           */
    { 4, 12, 7, 5 },         /* strided and padded                         */
    { 7, 1, 1, 0 },          /* dim 1                                      */
    { 0, 5, 1, 0 },          /* empty                                      */
    { 3, 0, 4, 0 },
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static void sweep(int in, int out, int special)
{
    for (int v = 0; v < 4; v++)
        for (int si = 0; si < NSHAPES; si++) {
            scase c = { v & 1, v >> 1, in, out, shapes[si].outer, shapes[si].dim,
                        shapes[si].inner, shapes[si].pad, special, 0 };
            run_case(&c, fp64);
        }
}

static void test_inplace(void)
{
    for (int v = 0; v < 4; v++)
        for (int si = 2; si < 6; si++) {
            scase c = { v & 1, v >> 1, F32, F32, shapes[si].outer, shapes[si].dim,
                        shapes[si].inner, shapes[si].pad, 0, 1 };
            run_case(&c, fp64);
        }
}

/* Ops the backend must hand to the host. */
static void test_refused(void)
{
    float hx[8] = { 0 };
    void *dx = ocl_h_dev(hx, sizeof hx), *dy = ocl_h_alloc(64);
    tfl_op op;
    scase c = { 0, 0, F32, F32, 2, 4, 1, 0, 0, 0 };
    set_op(&op, &c, dx, NULL, dy);
    CHECK(ocl_h->op_supported(&op) == fp64);
    tfl_op o = op;
    o.u.softmax.in_dtype = TFL_DT_I32;            /* not floating */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.out_dtype = TFL_DT_C64;
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.outer_stride = 3;                 /* rows overlap */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.in = hx;                          /* host memory */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.backward = 1;                     /* backward without grad */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.out = (char *)dy + 2;             /* misaligned */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.out = (char *)dx + 4;             /* overlapping in, shifted */
    CHECK(!ocl_h->op_supported(&o));
    o.u.softmax.out = dx;                         /* in place */
    CHECK(ocl_h->op_supported(&o) == fp64);
    o.u.softmax.out_dtype = TFL_DT_F16;           /* in place, narrower: races */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.softmax.backward = 1;                     /* backward in place over grad */
    o.u.softmax.grad = dy;
    o.u.softmax.out = dy;
    CHECK(ocl_h->op_supported(&o) == fp64);
    ocl_h_free(dx, sizeof hx);
    ocl_h_free(dy, 64);
}

int main(void)
{
    ocl_h_init();
    {
        void *d = ocl_h_alloc(64);
        tfl_op op;
        scase c = { 0, 0, F32, F32, 1, 4, 1, 0, 0, 0 };
        set_op(&op, &c, d, NULL, d);
        fp64 = ocl_h->op_supported(&op);        /* native exactly with doubles */
        ocl_h_free(d, 64);
    }
    test_refused();
    sweep(F32, F32, 0);
    sweep(F32, F32, 1);
    sweep(F16, F16, 0);
    sweep(BF16, BF16, 0);
    sweep(F16, F32, 0);
    sweep(F16, F16, 1);
    if (fp64)
        sweep(F64, F64, 0);
    test_inplace();
    printf("test_ocl_softmax: %d ops compared (device doubles: %s)\n", ran, fp64 ? "yes" : "no");
    return ocl_h_finish("test_ocl_softmax");
}

/*
 * test_ocl_reduce.c - TFL_OP_REDUCE on the OpenCL backend (ocl_reduce.c)
 * against the host backend (tfl_host_backend.op_run) on the same inputs.
 *
 * Covers every reduce kind on float32 / float16 / bfloat16 / float64
 * inputs and the integer kinds on int8 / uint8 / int32 / int64 / bool;
 * shapes: one element, odd lengths, 4096-wide rows, many rows, column
 * (strided) reductions, several reduced and kept dimensions at once, a
 * full 65536-element reduction, empty reductions and no reduced dimension;
 * layouts: contiguous, padded (no dimension merges) and reversed; strided
 * outputs (gaps that must stay untouched); NaN / inf inputs and ties
 * (first index wins); run-to-run reproducibility; and ops the backend must
 * refuse.
 *
 * Comparison: comparisons, indices, integer results and all/any exactly
 * (NaN == NaN); sums within 1e-6 of max(|result|, sqrt(n)) plus two units
 * of the output type (the host sums float32 runs in float lanes, the
 * device in double); whole output buffers are compared, gaps included.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

#define CHECK OCL_H_CHECK

enum { F32 = TFL_DT_F32, F64 = TFL_DT_F64, F16 = TFL_DT_F16, BF16 = TFL_DT_BF16,
       I8 = TFL_DT_I8, U8 = TFL_DT_U8, I32 = TFL_DT_I32, I64 = TFL_DT_I64, BOOL = TFL_DT_BOOL,
       NONE = -1 };

static int fp64, ran;

static uint64_t rs = 88172645463325252ull;

static uint64_t next(void)
{
    return ocl_h_xs64(&rs);
}

static double uni(void)
{
    return ocl_h_urand64(&rs, 0, 1);
}

static int is_f(int t)
{
    return t == F32 || t == F64 || t == F16 || t == BF16;
}

/* Input values: "ties" draws from a few values (many equal extremes),
 * "special" adds NaN / +-inf here and there, PROD stays near 1. */
enum { V_PLAIN = 0, V_TIES = 1, V_SPECIAL = 2, V_NEAR1 = 4, V_BIGINT = 8 };

static void gen(int t, unsigned char *p, int how)
{
    double v;
    if (!is_f(t)) {
        if (t == BOOL) {
            *p = next() % 4 != 0;
            return;
        }
        if (t == I64 && (how & V_BIGINT)) {
            int64_t x = (int64_t)next();
            memcpy(p, &x, 8);
            return;
        }
        int range = t == U8 ? 256 : 200;
        v = (double)(next() % (uint64_t)range) - (t == U8 ? 0 : 100);
        if (how & V_TIES)
            v = (double)(next() % 5);
        ocl_h_store(t, p, v);
        return;
    }
    if (how & V_TIES)
        v = (double)(int)(next() % 5) / 4.0 - 0.5;
    else if (how & V_NEAR1)
        v = 0.75 + 0.5 * uni();
    else
        v = 2 * uni() - 1;
    if (how & V_SPECIAL) {
        uint64_t r = next() % 64;
        if (r == 0) v = NAN;
        else if (r == 1) v = INFINITY;
        else if (r == 2) v = -INFINITY;
    }
    if (how & V_TIES && next() % 16 == 0)
        v = 0;
    ocl_h_store(t, p, v);
}

/* ------------------------------------------------------------ a case */

enum { L_CONTIG = 0, L_PADDED, L_REVERSED };

typedef struct rcase {
    int kind, in, out, out2;      /* out2: NONE for no second output     */
    int nd;
    int64_t sz[8];                /* dimension 0 fastest                  */
    unsigned red;                 /* bit d: dimension d is reduced        */
    int layout, out_gap;          /* out_gap: output strides doubled      */
    int vals;                     /* V_* */
    double p, corr;
    int sqrt_, no_root;
} rcase;

static int exact_kind(int k, int in)
{
    if (!is_f(in))
        return k != TFL_RED_MEAN;
    switch (k) {
    case TFL_RED_MAX: case TFL_RED_MIN: case TFL_RED_MAX_IDX: case TFL_RED_MIN_IDX:
    case TFL_RED_ARGMAX: case TFL_RED_ARGMIN: case TFL_RED_AMINMAX: case TFL_RED_NORM_INF:
    case TFL_RED_NORM_NINF: case TFL_RED_ALL: case TFL_RED_ANY: case TFL_RED_NORM0:
        return 1;
    default:
        return 0;
    }
}

static double ulp_of(int t)
{
    switch (t) {
    case F16: return 1.0 / 1024;
    case BF16: return 1.0 / 128;
    case F64: return 2.3e-16;
    default: return 1.2e-7;
    }
}

/* Element strides of the input (in elements) for a layout. */
static int64_t in_strides(const rcase *c, int64_t *st)
{
    int64_t s = 1;
    if (c->layout == L_REVERSED) {
        for (int d = c->nd - 1; d >= 0; d--) {
            st[d] = s;
            s *= c->sz[d];
        }
        return s;
    }
    for (int d = 0; d < c->nd; d++) {
        st[d] = s;
        s = s * c->sz[d] + (c->layout == L_PADDED ? 1 : 0);
    }
    return s;
}

static int same_val(int t, int exact, const unsigned char *h, const unsigned char *d, double tol)
{
    size_t es = tfl_dtype_size((tfl_dtype)t);
    if (memcmp(h, d, es) == 0)
        return 1;
    if (!is_f(t))
        return 0;
    double a = ocl_h_load(t, h), b = ocl_h_load(t, d);
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (exact)
        return a == b;
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs(a - b) <= tol;
}

/* Compare whole buffers (gaps too).  Returns the number of differences. */
static int compare(const rcase *c, int t, int exact, const unsigned char *h,
                   const unsigned char *d, size_t bytes, int64_t ni, const char *what)
{
    size_t es = tfl_dtype_size((tfl_dtype)t);
    int bad = 0;
    for (size_t i = 0; i < bytes; i += es) {
        double hv = ocl_h_load(t, h + i);
        double tol = 2 * ulp_of(t) * fabs(hv) + 1e-6 * fmax(fabs(hv), sqrt((double)ni));
        if (same_val(t, exact, h + i, d + i, tol))
            continue;
        if (bad++ < 4)
            fprintf(stderr, "  kind %d in %d out %d %s elem %zu: host %.10g device %.10g "
                    "(layout %d, ni %lld)\n", c->kind, c->in, t, what, i / es, hv,
                    ocl_h_load(t, d + i), c->layout, (long long)ni);
    }
    return bad;
}

/* Build the op over buffers in/out/out2; returns sizes of out buffers. */
static void build(const rcase *c, tfl_op *op, const void *in, void *out, void *out2,
                  size_t *obytes, size_t *o2bytes, size_t *ibytes)
{
    *op = ocl_h_op(TFL_OP_REDUCE);
    op->name = "reduce";
    tfl_reduce_op *r = &op->u.reduce;
    r->kind = (tfl_reduce_kind)c->kind;
    r->in_dtype = (tfl_dtype)c->in;
    r->out_dtype = (tfl_dtype)c->out;
    r->out2_dtype = c->out2 == NONE ? TFL_DT_I64 : (tfl_dtype)c->out2;
    r->in = in;
    r->out = out;
    r->out2 = c->out2 == NONE ? NULL : out2;
    size_t isz = tfl_dtype_size(r->in_dtype), osz = tfl_dtype_size(r->out_dtype);
    int64_t st[8];
    *ibytes = (size_t)in_strides(c, st) * isz + isz;
    int64_t no = 1, ni = 1, os = c->out_gap ? 2 : 1;
    for (int d = 0; d < c->nd; d++) {
        if (c->red >> d & 1) {
            r->red_sizes[r->red_ndim] = c->sz[d];
            r->red_stride_in[r->red_ndim++] = st[d] * (int64_t)isz;
            ni *= c->sz[d];
        } else {
            r->out_sizes[r->out_ndim] = c->sz[d];
            r->out_stride_in[r->out_ndim] = st[d] * (int64_t)isz;
            r->out_stride_out[r->out_ndim++] = os * (int64_t)osz;
            os *= c->sz[d];
            no *= c->sz[d];
        }
    }
    r->num_outputs = no;
    r->num_inputs = ni;
    r->scale = ni ? 1.0 / (double)ni : NAN;
    r->p = c->p;
    r->correction = c->corr;
    r->take_sqrt = c->sqrt_;
    r->no_root = c->no_root;
    *obytes = (size_t)(os ? os : 1) * osz;
    *o2bytes = c->out2 == NONE ? 0 : *obytes / osz * tfl_dtype_size((tfl_dtype)c->out2);
}

/* Run c on both backends; 0 if the device refuses it. */
static int run_case(const rcase *c, int want)
{
    tfl_op hop, dop;
    size_t ib, ob, o2b;
    build(c, &hop, NULL, NULL, NULL, &ob, &o2b, &ib);
    unsigned char *hin = malloc(ib), *hout = malloc(ob), *hout2 = malloc(o2b + 1);
    unsigned char *got = malloc(ob), *got2 = malloc(o2b + 1);
    size_t isz = tfl_dtype_size((tfl_dtype)c->in);
    for (size_t i = 0; i < ib; i += isz)
        gen(c->in, hin + i, c->vals);
    memset(hout, 0x5a, ob);
    memset(hout2, 0x5a, o2b + 1);
    void *din = ocl_h_dev(hin, ib), *dout = ocl_h_dev(hout, ob), *dout2 = ocl_h_dev(hout2, o2b + 1);
    build(c, &hop, hin, hout, hout2, &ob, &o2b, &ib);
    build(c, &dop, din, dout, dout2, &ob, &o2b, &ib);
    int64_t ni = hop.u.reduce.num_inputs;
    int sup = ocl_h->op_supported(&dop);
    if (!sup) {
        if (want) {
            fprintf(stderr, "  not supported: kind %d in %d out %d out2 %d layout %d\n",
                    c->kind, c->in, c->out, c->out2, c->layout);
            ocl_h_failures++;
        }
        goto done;
    }
    if (!ocl_h_run_both("reduce", &hop, &dop))
        goto done;
    ran++;
    int exact = exact_kind(c->kind, c->in);
    ocl_h_get(got, dout, ob);
    int bad = compare(c, c->out, exact, hout, got, ob, ni, "out");
    if (c->out2 != NONE) {
        ocl_h_get(got2, dout2, o2b + 1);
        bad += compare(c, c->out2, exact, hout2, got2, o2b, ni, "out2");
        bad += got2[o2b] != 0x5a;
    }
    if (bad) {
        fprintf(stderr, "  ... %d differences\n", bad);
        ocl_h_failures++;
    }
    /* the same op again: bit-identical results */
    if (ocl_h_run(&dop) == TFL_OK) {
        unsigned char *again = malloc(ob);
        ocl_h_get(again, dout, ob);
        CHECK(memcmp(again, got, ob) == 0);
        free(again);
    }
done:
    ocl_h_free(din, ib);
    ocl_h_free(dout, ob);
    ocl_h_free(dout2, o2b + 1);
    free(hin);
    free(hout);
    free(hout2);
    free(got);
    free(got2);
    return sup;
}

/* ------------------------------------------------------------ the cases */

typedef struct shape {
    int nd;
    int64_t sz[8];
    unsigned red;
} shape;

static const shape shapes[] = {
    { 1, { 1 }, 1 },                    /* one element                    */
    { 1, { 7 }, 1 },                    /* odd                            */
    { 2, { 4096, 3 }, 1 },              /* 4096-wide rows                 */
    { 2, { 33, 129 }, 1 },              /* many odd rows                  */
    { 2, { 5, 1000 }, 2 },              /* columns, few outputs           */
    { 2, { 300, 64 }, 2 },              /* columns, one lane each         */
    { 4, { 3, 4, 5, 6 }, 0xa },         /* two reduced, two kept, mixed   */
    { 3, { 6, 7, 8 }, 0x5 },            /* outer dims reduced             */
    { 1, { 65536 }, 1 },                /* one big reduction              */
    { 2, { 0, 5 }, 1 },                 /* empty reductions               */
    { 2, { 2, 3 }, 0 },                 /* nothing reduced                */
    { 3, { 1, 257, 1 }, 2 },            /* size-1 dimensions              */
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static rcase mk(int kind, int in, int out, int out2, int si, int layout, int vals)
{
    rcase c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.in = in;
    c.out = out;
    c.out2 = out2;
    c.nd = shapes[si].nd;
    memcpy(c.sz, shapes[si].sz, sizeof c.sz);
    c.red = shapes[si].red;
    c.layout = layout;
    c.vals = vals;
    c.p = 3;
    c.corr = 1;
    return c;
}

/* Every shape in every layout (the big one contiguous only), outputs
 * contiguous and with gaps. */
static void sweep(rcase c, int want)
{
    for (int si = 0; si < NSHAPES; si++)
        for (int l = 0; l < 3; l++) {
            if (si == 8 && l)
                continue;
            rcase k = mk(c.kind, c.in, c.out, c.out2, si, l, c.vals);
            k.p = c.p;
            k.corr = c.corr;
            k.sqrt_ = c.sqrt_;
            k.no_root = c.no_root;
            k.out_gap = (si + l) % 2;
            run_case(&k, want);
        }
}

/* Every kind on float32; the kinds training uses on the other floating
 * types (each kind/dtype pair is one device program to compile). */
static void float_kinds(int t, int all)
{
    int w = fp64;               /* the sums need doubles on the device */
    rcase c = mk(TFL_RED_SUM, t, t, NONE, 0, 0, V_PLAIN);
    sweep(c, w);
    c.kind = TFL_RED_MEAN;
    sweep(c, w);
    c.kind = TFL_RED_NORM2;
    sweep(c, w);
    c.no_root = 1;
    sweep(c, w);
    c.no_root = 0;
    c.vals = V_TIES;
    c.kind = TFL_RED_MAX; sweep(c, 1);
    c.out2 = I64;
    c.kind = TFL_RED_MAX_IDX; sweep(c, 1);
    c.out2 = NONE;
    c.out = I64;
    c.kind = TFL_RED_ARGMAX; sweep(c, 1);
    c.out = t;
    c.vals = V_PLAIN;
    c.kind = TFL_RED_VAR;
    c.out2 = t;
    sweep(c, w);                     /* var + mean */
    c.out2 = NONE;
    c.sqrt_ = 1;
    c.corr = 0;
    sweep(c, w);                     /* std, population */
    c.sqrt_ = 0;
    c.corr = 1;
    if (!all)
        return;
    c.kind = TFL_RED_NANSUM;
    c.vals = V_SPECIAL;
    sweep(c, w);
    c.kind = TFL_RED_PROD;
    c.vals = V_NEAR1;
    sweep(c, w);
    c.vals = V_TIES;
    c.kind = TFL_RED_MIN; sweep(c, 1);
    c.out2 = I64;
    c.kind = TFL_RED_MIN_IDX; sweep(c, 1);
    c.out2 = NONE;
    c.out = I64;
    c.kind = TFL_RED_ARGMIN; sweep(c, 1);
    c.out = t;
    c.out2 = t;
    c.vals = V_PLAIN;
    c.kind = TFL_RED_AMINMAX; sweep(c, 1);
    c.out2 = NONE;
    c.kind = TFL_RED_NORM; sweep(c, w);
    c.no_root = 1; sweep(c, w);
    c.no_root = 0;
    c.p = 0.5; sweep(c, w);
    c.p = 3;
    c.kind = TFL_RED_NORM1; sweep(c, w);
    c.kind = TFL_RED_NORM_INF; sweep(c, 1);
    c.kind = TFL_RED_NORM_NINF; sweep(c, 1);
    c.vals = V_TIES;
    c.kind = TFL_RED_NORM0; sweep(c, w);
    c.kind = TFL_RED_ALL; c.out = BOOL; sweep(c, 1);
    c.kind = TFL_RED_ANY; sweep(c, 1);
}

static void test_float_kinds(void)
{
    float_kinds(F32, 1);
    float_kinds(F16, 0);
    float_kinds(BF16, 0);
    if (fp64)
        float_kinds(F64, 0);
    /* half in, float out (PyTorch's sum / mean of half with dtype=float) */
    rcase c = mk(TFL_RED_SUM, F16, F32, NONE, 0, 0, V_PLAIN);
    sweep(c, fp64);
    c.kind = TFL_RED_MEAN;
    c.in = BF16;
    sweep(c, fp64);
}

/* NaN and inf: propagation, first NaN index, NaN ignored by nansum. */
static void test_special(void)
{
    static const int kinds[] = { TFL_RED_SUM, TFL_RED_NANSUM, TFL_RED_MAX, TFL_RED_MIN,
                                 TFL_RED_MAX_IDX, TFL_RED_ARGMAX, TFL_RED_ARGMIN,
                                 TFL_RED_AMINMAX, TFL_RED_NORM_INF, TFL_RED_NORM_NINF,
                                 TFL_RED_NORM2, TFL_RED_ALL, TFL_RED_ANY, TFL_RED_VAR,
                                 TFL_RED_MEAN, TFL_RED_NORM0 };
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++)
        for (int t = 0; t < 2; t++) {
            int k = kinds[j], dt = t ? F16 : F32;
            if (t && k != TFL_RED_SUM && k != TFL_RED_MAX && k != TFL_RED_ARGMAX &&
                k != TFL_RED_VAR)
                continue;
            int out = (k == TFL_RED_ARGMAX || k == TFL_RED_ARGMIN) ? I64 :
                      (k == TFL_RED_ALL || k == TFL_RED_ANY) ? BOOL : dt;
            int out2 = k == TFL_RED_MAX_IDX ? I64 : k == TFL_RED_AMINMAX ? dt : NONE;
            rcase c = mk(k, dt, out, out2, 0, 0, V_SPECIAL | (t ? V_TIES : 0));
            if (k == TFL_RED_VAR)
                c.out2 = dt;
            sweep(c, exact_kind(k, dt) || fp64);
        }
}

static void test_int_kinds(void)
{
    static const int dts[] = { I32, I64, U8, I8, BOOL };
    for (int j = 0; j < 5; j++) {
        int t = dts[j], all = t == I32 || t == I64;
        rcase c = mk(TFL_RED_SUM, t, I64, NONE, 0, 0, V_PLAIN);
        sweep(c, 1);
        c.out = t;
        c.vals = V_TIES;
        c.kind = TFL_RED_MAX; sweep(c, 1);
        c.out = I64;
        c.kind = TFL_RED_ARGMAX; sweep(c, 1);
        c.out = BOOL;
        c.kind = TFL_RED_ANY; sweep(c, 1);
        if (!all)
            continue;
        c.kind = TFL_RED_ALL; sweep(c, 1);
        c.out = I64;
        c.kind = TFL_RED_NANSUM; c.vals = V_PLAIN; sweep(c, 1);
        c.kind = TFL_RED_PROD; c.vals = V_TIES; sweep(c, 1);
        c.kind = TFL_RED_MEAN; c.out = F32; c.vals = V_PLAIN; sweep(c, fp64);
        c.out = t;
        c.vals = V_TIES;
        c.kind = TFL_RED_MIN; sweep(c, 1);
        c.out2 = I64;
        c.kind = TFL_RED_MIN_IDX; sweep(c, 1);
        c.out2 = t;
        c.kind = TFL_RED_AMINMAX; sweep(c, 1);
        c.out2 = NONE;
        /* sums into a narrower type wrap as the host's casts */
        c.out = I8;
        c.kind = TFL_RED_SUM;
        sweep(c, 1);
    }
    /* int64 wrapping sums and products */
    rcase c = mk(TFL_RED_SUM, I64, I64, NONE, 0, 0, V_BIGINT);
    sweep(c, 1);
    c.kind = TFL_RED_PROD;
    sweep(c, 1);
    /* int32 max into float (through double, as the host) */
    c = mk(TFL_RED_MAX, I32, F32, NONE, 0, 0, V_PLAIN);
    sweep(c, fp64);
}

/* Ops the backend must hand to the host. */
static void test_refused(void)
{
    float hx[4] = { 1, 2, 3, 4 }, hy[2];
    void *dx = ocl_h_dev(hx, sizeof hx), *dy = ocl_h_alloc(64);
    tfl_op op = ocl_h_op(TFL_OP_REDUCE);
    tfl_reduce_op *r = &op.u.reduce;
    r->kind = TFL_RED_SUM;
    r->in_dtype = TFL_DT_F32;
    r->out_dtype = TFL_DT_F32;
    r->in = dx;
    r->out = dy;
    r->num_outputs = 1;
    r->num_inputs = 4;
    r->red_ndim = 1;
    r->red_sizes[0] = 4;
    r->red_stride_in[0] = 4;
    CHECK(ocl_h->op_supported(&op) == fp64);
    tfl_op o = op;
    o.u.reduce.no_root = 1;                      /* no_root on a sum */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.out_dtype = TFL_DT_I32;           /* float sum into int */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.in_dtype = TFL_DT_C64;            /* complex */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.in_dtype = TFL_DT_I32;            /* norms of ints: host refuses too */
    o.u.reduce.kind = TFL_RED_NORM2;
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.kind = TFL_RED_MAX_IDX;           /* index into a float */
    o.u.reduce.out2 = (char *)dy + 32;
    o.u.reduce.out2_dtype = TFL_DT_F32;
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.kind = TFL_RED_ARGMAX;            /* index into a float */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.in = hx;                          /* host memory */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.out = hy;
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.in = (char *)dx + 2;              /* misaligned */
    o.u.reduce.num_inputs = 1;
    o.u.reduce.red_sizes[0] = 1;
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.red_sizes[0] = 5;                 /* past the end of the buffer: fine */
    o.u.reduce.num_inputs = 3;                   /* but the counts disagree */
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.red_stride_in[0] = 6;             /* not a multiple of the element */
    o.u.reduce.red_sizes[0] = 2;
    o.u.reduce.num_inputs = 2;
    CHECK(!ocl_h->op_supported(&o));
    o = op;
    o.u.reduce.kind = TFL_RED_KIND_COUNT;
    CHECK(!ocl_h->op_supported(&o));
    o = op;                                      /* two outputs of two inputs each */
    o.u.reduce.kind = TFL_RED_MAX;
    o.u.reduce.num_outputs = 2;
    o.u.reduce.num_inputs = 2;
    o.u.reduce.red_sizes[0] = 2;
    o.u.reduce.out_ndim = 1;
    o.u.reduce.out_sizes[0] = 2;
    o.u.reduce.out_stride_in[0] = 8;
    o.u.reduce.out_stride_out[0] = 4;
    CHECK(ocl_h->op_supported(&o));
    o.u.reduce.out_stride_out[0] = 0;            /* ... written to one place: races */
    CHECK(!ocl_h->op_supported(&o));
    o.u.reduce.out_stride_out[0] = 4;
    o.u.reduce.out = (char *)dx + 8;             /* ... over the input */
    CHECK(!ocl_h->op_supported(&o));
    o.u.reduce.out = dy;
    o.u.reduce.kind = TFL_RED_MAX_IDX;           /* ... index over the values */
    o.u.reduce.out2 = (char *)dy + 4;
    o.u.reduce.out2_dtype = TFL_DT_I32;
    CHECK(!ocl_h->op_supported(&o));
    o.u.reduce.out2 = (char *)dy + 8;
    CHECK(ocl_h->op_supported(&o));
    ocl_h_free(dx, sizeof hx);
    ocl_h_free(dy, 64);
    /* seven dimensions that do not merge: more than the kernel takes */
    rcase c;
    memset(&c, 0, sizeof c);
    c.kind = TFL_RED_MAX;
    c.in = c.out = F32;
    c.out2 = NONE;
    c.nd = 7;
    for (int d = 0; d < 7; d++)
        c.sz[d] = 2;
    c.red = 0x7f;
    c.layout = L_PADDED;
    CHECK(run_case(&c, 0) == 0);
    c.nd = 6;                                    /* six do */
    c.red = 0x3f;
    CHECK(run_case(&c, 1) == 1);
}

int main(void)
{
    ocl_h_init();
    /* a double sum is native exactly when the device has doubles */
    {
        tfl_op op;
        memset(&op, 0, sizeof op);
        void *d = ocl_h_alloc(64);
        op.kind = TFL_OP_REDUCE;
        op.u.reduce.kind = TFL_RED_SUM;
        op.u.reduce.in_dtype = op.u.reduce.out_dtype = TFL_DT_F64;
        op.u.reduce.in = d;
        op.u.reduce.out = (char *)d + 32;
        op.u.reduce.num_outputs = op.u.reduce.num_inputs = 1;
        fp64 = ocl_h->op_supported(&op);
        ocl_h_free(d, 64);
    }
    test_refused();
    test_float_kinds();
    test_special();
    test_int_kinds();
    printf("test_ocl_reduce: %d ops compared (device doubles: %s)\n", ran, fp64 ? "yes" : "no");
    return ocl_h_finish("test_ocl_reduce");
}

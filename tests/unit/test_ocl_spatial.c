/*
 * test_ocl_spatial.c - the pooling kinds of TFL_OP_SPATIAL on the OpenCL
 * backend (ocl_spatial.c) against the host backend (tfl_host_backend.
 * op_run) on the same inputs.
 *
 * Covers: max pooling forward (indices compared exactly; ties and NaNs,
 * padding, stride, dilation, ceil-mode sizes, odd sizes), adaptive max
 * forward, average pooling (count_include_pad on and off, divisor
 * override, ceil mode), adaptive average pooling (output larger and
 * smaller than the input, global), and every backward (overwrite and
 * accumulate; max backward with forward indices, adaptive indices and
 * indices outside their windows); NCHW and channels-last strides; batch 1
 * and more, 1 / 3 / 16 channels; float32, float16 and bfloat16; the
 * kinds that must be refused; last, a bad max index, which must fail the
 * stream as the host's op fails.
 *
 * Whole buffers are compared: float32 within 1e-4 relative, float16 /
 * bfloat16 within about one unit in the last place of the buffer's
 * largest element, indices exactly.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"
#include "common/half.h"

#define CHECK OCL_H_CHECK

/* ------------------------------------------------------------ buffers */

static uint32_t rng = 2463534242u;
static ocl_h_pool pool;

static uint32_t next(void)
{
    return ocl_h_xs32(&rng);
}

static double urand(double lo, double hi)
{
    return ocl_h_urand32(&rng, lo, hi);
}

/* n elements of type t; fill(i) gives element i (NULL: zeros). */
static void *mk(tfl_dtype t, int64_t n, double (*fill)(int64_t))
{
    void *h = ocl_h_pool_add(&pool, t, n);
    for (int64_t i = 0; fill && i < n; i++)
        ocl_h_st(t, h, i, fill(i));
    ocl_h_pool_up(&pool, h);
    return h;
}

/* The device copy of a host buffer whose contents changed after mk. */
static void reupload(const void *h)
{
    ocl_h_pool_up(&pool, h);
}

static void *dv(const void *p)
{
    return ocl_h_pool_dev(&pool, p);
}

/* ------------------------------------------------------------ running */

static int cases, refusals;

static tfl_op dev_op(const tfl_spatial_op *o)
{
    tfl_op op = { .kind = TFL_OP_SPATIAL, .name = "spatial" };
    op.u.spatial = *o;
    op.u.spatial.in = dv(o->in);
    op.u.spatial.out = dv(o->out);
    op.u.spatial.indices = dv(o->indices);
    return op;
}

static void run_case(const char *what, const tfl_spatial_op *o)
{
    tfl_op hop = { .kind = TFL_OP_SPATIAL, .name = what };
    hop.u.spatial = *o;
    tfl_op dop = dev_op(o);
    if (ocl_h_pool_case(&pool, what, &hop, &dop, ocl_h_tol_sum, ocl_h_floor_sum) != TFL_OK)
        fprintf(stderr, "%s: kind %d\n", what, (int)o->kind);
    cases++;
}

static void expect_refused(const char *what, const tfl_spatial_op *o)
{
    tfl_op dop = dev_op(o);
    ocl_h_pool_refused(&pool, what, &dop);
    refusals++;
}

/* ------------------------------------------------------------ geometry */

/* (n, c, h, w) strides of a dense NCHW or channels-last tensor. */
static void strides(int cl, int64_t c, int64_t h, int64_t w, int64_t *s)
{
    if (cl) {
        s[0] = h * w * c; s[1] = 1; s[2] = w * c; s[3] = c;
    } else {
        s[0] = c * h * w; s[1] = h * w; s[2] = w; s[3] = 1;
    }
}

/* PyTorch's pooling output size. */
static int64_t pool_out(int64_t in, int k, int s, int p, int d, int ceil_mode)
{
    int64_t num = in + 2 * p - (int64_t)d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t o = num / s + 1;
    if (ceil_mode && (o - 1) * s >= in + p)
        o--;
    return o;
}

/* Few levels, so windows have ties; an occasional NaN when nan_every. */
static int nan_every;
static double fill_levels(int64_t i)
{
    if (nan_every && i % nan_every == 3)
        return NAN;
    return (double)(next() % 7) - 3.0;
}

static double fill_smooth(int64_t i)
{
    (void)i;
    return urand(-2, 2);
}

static double fill_big(int64_t i)
{
    (void)i;
    return -1e30;
}

typedef struct pool_geo {
    int64_t n, c, h, w;
    int k[2], s[2], p[2], d[2];
    int ceil_mode;
} pool_geo;

static const pool_geo geos[] = {
    { 1, 1, 7, 7, { 2, 2 }, { 2, 2 }, { 0, 0 }, { 1, 1 }, 0 },
    { 2, 3, 9, 11, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, 1 },
    { 3, 16, 8, 8, { 2, 2 }, { 2, 2 }, { 0, 0 }, { 1, 1 }, 0 },
    { 2, 3, 13, 10, { 3, 2 }, { 1, 2 }, { 1, 0 }, { 2, 1 }, 0 },
    { 1, 3, 5, 6, { 3, 3 }, { 3, 2 }, { 1, 1 }, { 1, 2 }, 1 },
    { 2, 16, 16, 16, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0 },
    { 1, 1, 1, 9, { 1, 3 }, { 1, 3 }, { 0, 1 }, { 1, 1 }, 1 },
};
#define NGEO (int)(sizeof geos / sizeof geos[0])

static const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };

/* The op of geometry g, kind k, dtype t, layout cl (buffers not made). */
static tfl_spatial_op pool_op(const pool_geo *g, tfl_spatial_kind k, tfl_dtype t, int cl)
{
    tfl_spatial_op o = { .kind = k, .dtype = t, .n = g->n, .c = g->c, .in_h = g->h, .in_w = g->w };
    o.kernel_h = g->k[0]; o.kernel_w = g->k[1];
    o.stride_h = g->s[0]; o.stride_w = g->s[1];
    o.pad_h = g->p[0]; o.pad_w = g->p[1];
    o.dilation_h = g->d[0]; o.dilation_w = g->d[1];
    o.out_h = pool_out(g->h, g->k[0], g->s[0], g->p[0], g->d[0], g->ceil_mode);
    o.out_w = pool_out(g->w, g->k[1], g->s[1], g->p[1], g->d[1], g->ceil_mode);
    strides(cl, g->c, o.in_h, o.in_w, o.in_stride);
    strides(cl, g->c, o.out_h, o.out_w, o.out_stride);
    return o;
}

static int64_t in_elems(const tfl_spatial_op *o)
{
    return o->n * o->c * o->in_h * o->in_w;
}

static int64_t out_elems(const tfl_spatial_op *o)
{
    return o->n * o->c * o->out_h * o->out_w;
}

/* ------------------------------------------------------------ cases */

static void test_maxpool(void)
{
    for (int gi = 0; gi < NGEO; gi++)
        for (int di = 0; di < 3; di++)
            for (int v = 0; v < 3; v++) {
                tfl_spatial_op o = pool_op(&geos[gi], TFL_SPATIAL_MAXPOOL_FWD, dts[di], v == 1);
                nan_every = v == 2 ? 11 : 0;
                o.in = mk(o.dtype, in_elems(&o), fill_levels);
                o.out = mk(o.dtype, out_elems(&o), NULL);
                o.indices = mk(TFL_DT_I64, out_elems(&o), NULL);
                run_case("maxpool", &o);
            }
    nan_every = 0;
    /* adaptive max, the output smaller and larger than the input */
    static const int64_t ad[][4] = { { 7, 7, 3, 3 }, { 5, 9, 7, 4 }, { 8, 8, 1, 1 }, { 3, 3, 3, 3 } };
    for (unsigned a = 0; a < sizeof ad / sizeof ad[0]; a++)
        for (int di = 0; di < 3; di++) {
            tfl_spatial_op o = { .kind = TFL_SPATIAL_ADAPTIVE_MAX_FWD, .dtype = dts[di], .n = 2,
                                 .c = 3, .in_h = ad[a][0], .in_w = ad[a][1], .out_h = ad[a][2],
                                 .out_w = ad[a][3] };
            strides(a & 1, o.c, o.in_h, o.in_w, o.in_stride);
            strides(a & 1, o.c, o.out_h, o.out_w, o.out_stride);
            o.in = mk(o.dtype, in_elems(&o), fill_levels);
            o.out = mk(o.dtype, out_elems(&o), NULL);
            o.indices = mk(TFL_DT_I64, out_elems(&o), NULL);
            run_case("adaptive maxpool", &o);
        }
}

/* Host-made forward indices of o (a max-pool or adaptive geometry). */
static void fwd_indices(const tfl_spatial_op *bwd, tfl_spatial_kind fk, int64_t *ind)
{
    tfl_spatial_op f = *bwd;
    f.kind = fk;
    f.accumulate = 0;
    f.in = malloc((size_t)in_elems(bwd) * tfl_dtype_size(bwd->dtype));
    f.out = malloc((size_t)out_elems(bwd) * tfl_dtype_size(bwd->dtype));
    f.indices = ind;
    for (int64_t i = 0; i < in_elems(bwd); i++)
        ocl_h_st(bwd->dtype, f.in, i, fill_levels(i));
    tfl_op op = { .kind = TFL_OP_SPATIAL, .name = "fwd" };
    op.u.spatial = f;
    CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
    free(f.in);
    free(f.out);
}

static void test_max_bwd(void)
{
    for (int gi = 0; gi < NGEO; gi++)
        for (int di = 0; di < 3; di++)
            for (int v = 0; v < 4; v++) {
                tfl_spatial_op o = pool_op(&geos[gi], TFL_SPATIAL_MAX_BWD, dts[di], v & 1);
                o.accumulate = v >= 2;
                o.in = mk(o.dtype, in_elems(&o), o.accumulate ? fill_smooth : fill_big);
                o.out = mk(o.dtype, out_elems(&o), fill_smooth);
                o.indices = mk(TFL_DT_I64, out_elems(&o), NULL);
                fwd_indices(&o, TFL_SPATIAL_MAXPOOL_FWD, o.indices);
                reupload(o.indices);
                run_case("max backward", &o);
            }
    /* adaptive max backward: window fields zero, indices from the forward */
    for (int di = 0; di < 3; di++)
        for (int v = 0; v < 2; v++) {
            tfl_spatial_op o = { .kind = TFL_SPATIAL_MAX_BWD, .dtype = dts[di], .n = 2, .c = 3,
                                 .in_h = 9, .in_w = 5, .out_h = 4, .out_w = 7, .accumulate = v };
            strides(0, o.c, o.in_h, o.in_w, o.in_stride);
            strides(0, o.c, o.out_h, o.out_w, o.out_stride);
            o.in = mk(o.dtype, in_elems(&o), fill_smooth);
            o.out = mk(o.dtype, out_elems(&o), fill_smooth);
            o.indices = mk(TFL_DT_I64, out_elems(&o), NULL);
            fwd_indices(&o, TFL_SPATIAL_ADAPTIVE_MAX_FWD, o.indices);
            reupload(o.indices);
            run_case("adaptive max backward", &o);
        }
    /* indices anywhere in their plane (not from the window): the
     * per-plane path */
    for (int v = 0; v < 2; v++) {
        tfl_spatial_op o = pool_op(&geos[1], TFL_SPATIAL_MAX_BWD, TFL_DT_F32, v);
        o.accumulate = v;
        o.in = mk(o.dtype, in_elems(&o), fill_smooth);
        o.out = mk(o.dtype, out_elems(&o), fill_smooth);
        int64_t *ind = o.indices = mk(TFL_DT_I64, out_elems(&o), NULL);
        for (int64_t i = 0; i < out_elems(&o); i++)
            ind[i] = next() % (uint32_t)(o.in_h * o.in_w);
        reupload(ind);
        run_case("max backward, free indices", &o);
    }
}

static void test_avgpool(void)
{
    for (int gi = 0; gi < NGEO; gi++)
        for (int di = 0; di < 3; di++)
            for (int v = 0; v < 4; v++) {
                pool_geo g = geos[gi];
                g.d[0] = g.d[1] = 1;
                if (g.p[0] * 2 > g.k[0]) g.p[0] = g.k[0] / 2;
                if (g.p[1] * 2 > g.k[1]) g.p[1] = g.k[1] / 2;
                for (int bwd = 0; bwd < 2; bwd++) {
                    tfl_spatial_kind k = bwd ? TFL_SPATIAL_AVGPOOL_BWD : TFL_SPATIAL_AVGPOOL_FWD;
                    tfl_spatial_op o = pool_op(&g, k, dts[di], v & 1);
                    o.count_include_pad = v != 2;
                    o.divisor_override = v == 3 ? 5 : 0;
                    o.accumulate = bwd && (v & 1);
                    o.in = mk(o.dtype, in_elems(&o), fill_smooth);
                    o.out = mk(o.dtype, out_elems(&o), fill_smooth);
                    run_case(bwd ? "avgpool backward" : "avgpool", &o);
                }
            }
}

static void test_adaptive_avg(void)
{
    static const int64_t ad[][6] = {
        { 2, 3, 7, 7, 3, 3 }, { 1, 16, 5, 9, 7, 4 }, { 4, 16, 8, 8, 1, 1 }, { 1, 1, 3, 3, 3, 3 },
        { 3, 3, 13, 1, 5, 1 },
    };
    for (unsigned a = 0; a < sizeof ad / sizeof ad[0]; a++)
        for (int di = 0; di < 3; di++)
            for (int v = 0; v < 3; v++) {
                int bwd = v > 0;
                tfl_spatial_op o = { .kind = bwd ? TFL_SPATIAL_ADAPTIVE_AVG_BWD
                                                 : TFL_SPATIAL_ADAPTIVE_AVG_FWD,
                                     .dtype = dts[di], .n = ad[a][0], .c = ad[a][1],
                                     .in_h = ad[a][2], .in_w = ad[a][3], .out_h = ad[a][4],
                                     .out_w = ad[a][5], .accumulate = v == 2 };
                strides(a & 1, o.c, o.in_h, o.in_w, o.in_stride);
                strides(a & 1, o.c, o.out_h, o.out_w, o.out_stride);
                o.in = mk(o.dtype, in_elems(&o), fill_smooth);
                o.out = mk(o.dtype, out_elems(&o), fill_smooth);
                run_case(bwd ? "adaptive avg backward" : "adaptive avg", &o);
            }
}

static void test_refused(void)
{
    tfl_spatial_op o = pool_op(&geos[0], TFL_SPATIAL_BILINEAR_FWD, TFL_DT_F32, 0);
    o.in = mk(o.dtype, in_elems(&o), fill_smooth);
    o.out = mk(o.dtype, out_elems(&o), NULL);
    expect_refused("bilinear", &o);

    tfl_spatial_op d = pool_op(&geos[0], TFL_SPATIAL_AVGPOOL_FWD, TFL_DT_F64, 0);
    d.in = mk(TFL_DT_I64, in_elems(&d), NULL);   /* 8-byte elements */
    d.out = mk(TFL_DT_I64, out_elems(&d), NULL);
    expect_refused("float64 avgpool", &d);

    tfl_spatial_op r = { .kind = TFL_SPATIAL_ROLL, .outer = 2, .size = 3, .inner = 4,
                         .start = 1, .elem_size = 4 };
    r.in = mk(TFL_DT_F32, 24, fill_smooth);
    r.out = mk(TFL_DT_F32, 24, NULL);
    expect_refused("roll", &r);

    /* the output written in place of the input */
    tfl_spatial_op a = pool_op(&geos[0], TFL_SPATIAL_AVGPOOL_FWD, TFL_DT_F32, 0);
    a.in = a.out = mk(a.dtype, in_elems(&a), fill_smooth);
    expect_refused("avgpool in place", &a);

    /* no indices for a max pool */
    tfl_spatial_op m = pool_op(&geos[0], TFL_SPATIAL_MAXPOOL_FWD, TFL_DT_F32, 0);
    m.in = mk(m.dtype, in_elems(&m), fill_smooth);
    m.out = mk(m.dtype, out_elems(&m), NULL);
    expect_refused("maxpool without indices", &m);
}

/* Last: a bad index fails the stream (sticky, as a device-side assert). */
static void test_bad_index(void)
{
    tfl_spatial_op o = pool_op(&geos[0], TFL_SPATIAL_MAX_BWD, TFL_DT_F32, 0);
    o.in = mk(o.dtype, in_elems(&o), fill_smooth);
    o.out = mk(o.dtype, out_elems(&o), fill_smooth);
    int64_t *ind = o.indices = mk(TFL_DT_I64, out_elems(&o), NULL);
    ind[5] = o.in_h * o.in_w;   /* one past the plane */
    reupload(ind);
    tfl_op hop = { .kind = TFL_OP_SPATIAL, .name = "bad" };
    hop.u.spatial = o;
    CHECK(tfl_host_backend.op_run(&hop, NULL) != TFL_OK);
    tfl_op dop = dev_op(&o);
    CHECK(ocl_h_run(&dop) == TFL_ERR_DEVICE);
    ocl_h_pool_free(&pool);
}

int main(void)
{
    ocl_h_init();
    test_maxpool();
    test_max_bwd();
    test_avgpool();
    test_adaptive_avg();
    test_refused();
    test_bad_index();
    printf("%d cases compared, %d refusals checked\n", cases, refusals);
    return ocl_h_finish("test_ocl_spatial");
}

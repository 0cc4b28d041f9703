/*
 * test_ocl_conv.c - TFL_OP_CONV on the OpenCL backend (ocl_conv.c) against
 * the host backend (tfl_host_backend.op_run) on the same inputs.
 *
 * Covers, in all three modes (forward, backward data, backward filter):
 * 1-, 2- and 3-D convolutions; batch 1 and more; 1, 3 and 16 channels;
 * odd sizes; strides, symmetric and asymmetric padding, dilation; groups
 * (depthwise included); true convolution (flipped filter); NCHW and
 * channels-last layouts; alpha / beta (beta 0 with NaN in the output,
 * which must not leak); forward bias and the fused z + ReLU epilogue (z
 * the output itself, as an in-place residual add); float32, float16 and
 * bfloat16; the CNN example's layers (3x3, padding 1, no bias, 1 -> 16
 * and 16 -> 32 channels, batch 64); images in more than one chunk; ops
 * that must be refused.
 *
 * The output buffer is compared whole (elements outside the view
 * included): float32 within 1e-4 relative, with a floor of 1e-6 of the
 * buffer's largest magnitude (sums that cancel); float16 / bfloat16
 * within about one unit in the last place of the largest element.
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

static uint32_t rng = 362436069u;
static ocl_h_pool pool;

/* n elements of type t, random in [-1, 1] (nan: every one NaN). */
static void *mk(tfl_dtype t, int64_t n, int nan)
{
    void *h = ocl_h_pool_add(&pool, t, n);
    for (int64_t i = 0; i < n; i++)
        ocl_h_st(t, h, i, nan ? NAN : ocl_h_urand32(&rng, -1, 1));
    ocl_h_pool_up(&pool, h);
    return h;
}

static void *dv(const void *p)
{
    return ocl_h_pool_dev(&pool, p);
}

/* ------------------------------------------------------------ cases */

typedef struct cv_case {
    const char *what;
    int sp;
    int64_t n, c, k, groups;
    int64_t in[3], ker[3], str[3], pre[3], post[3], dil[3];
    int flip, cl;
} cv_case;

/* Dims and strides of a tensor (N, C, spatial...), NCHW or channels-last. */
static void layout(tfl_conv_tensor *t, int sp, int64_t a, int64_t b, const int64_t *s, int cl)
{
    t->dims[0] = a;
    t->dims[1] = b;
    for (int i = 0; i < sp; i++)
        t->dims[2 + i] = s[i];
    int64_t acc = 1;
    if (cl) {
        t->strides[1] = 1;
        acc = b;
        for (int i = sp - 1; i >= 0; i--) {
            t->strides[2 + i] = acc;
            acc *= s[i];
        }
        t->strides[0] = acc;
    } else {
        for (int i = sp + 1; i >= 0; i--) {
            t->strides[i] = acc;
            acc *= t->dims[i];
        }
    }
}

static int64_t elems(const tfl_conv_tensor *t, int sp)
{
    int64_t e = 1;
    for (int i = 0; i < 2 + sp; i++)
        e *= t->dims[i];
    return e;
}

static int cases, refusals;

static tfl_op dev_op(const tfl_conv_op *o)
{
    tfl_op op = { .kind = TFL_OP_CONV, .name = "conv" };
    op.u.conv = *o;
    op.u.conv.x.data = dv(o->x.data);
    op.u.conv.w.data = dv(o->w.data);
    op.u.conv.y.data = dv(o->y.data);
    op.u.conv.z.data = dv(o->z.data);
    op.u.conv.bias = dv(o->bias);
    return op;
}

/* The op of case c in mode m (buffers made; outputs get NaN when beta is
 * 0 so a leak shows). */
static tfl_conv_op make(const cv_case *c, tfl_conv_mode m, tfl_dtype t, double alpha, double beta)
{
    tfl_conv_op o = { .mode = m, .spatial = c->sp, .dtype = t, .groups = c->groups,
                      .cross_correlation = !c->flip, .alpha = alpha, .beta = beta };
    int64_t out[3];
    for (int i = 0; i < c->sp; i++) {
        o.pad_pre[i] = c->pre[i];
        o.pad_post[i] = c->post[i];
        o.stride[i] = c->str[i];
        o.dilation[i] = c->dil[i];
        out[i] = (c->in[i] + c->pre[i] + c->post[i] - c->dil[i] * (c->ker[i] - 1) - 1) / c->str[i] + 1;
    }
    layout(&o.x, c->sp, c->n, c->c, c->in, c->cl);
    layout(&o.w, c->sp, c->k, c->c / c->groups, c->ker, c->cl);
    layout(&o.y, c->sp, c->n, c->k, out, c->cl);
    const int outi = m == TFL_CONV_FWD ? 2 : m == TFL_CONV_BWD_DATA ? 0 : 1;
    tfl_conv_tensor *ts[3] = { &o.x, &o.w, &o.y };
    for (int i = 0; i < 3; i++)
        ts[i]->data = mk(t, elems(ts[i], c->sp), i == outi && beta == 0);
    return o;
}

static void run_op(const char *what, const tfl_conv_op *o)
{
    tfl_op hop = { .kind = TFL_OP_CONV, .name = what };
    hop.u.conv = *o;
    tfl_op dop = dev_op(o);
    if (ocl_h_pool_case(&pool, what, &hop, &dop, ocl_h_tol_sum, ocl_h_floor_sum) != TFL_OK)
        fprintf(stderr, "%s: mode %d, dtype %d\n", what, (int)o->mode, (int)o->dtype);
    cases++;
}

static void expect_refused(const char *what, const tfl_conv_op *o)
{
    tfl_op dop = dev_op(o);
    ocl_h_pool_refused(&pool, what, &dop);
    refusals++;
}

/* what, spatial, n, c, k, groups, in, ker, stride, pad_pre, pad_post,
 * dilation, flip, channels-last */
static const cv_case geo[] = {
    { "2d 3x3 pad 1", 2, 2, 3, 16, 1, { 7, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0 },
    { "2d batch 1, 1 channel", 2, 1, 1, 3, 1, { 5, 6 }, { 3, 2 }, { 1, 1 }, { 0, 0 }, { 0, 0 }, { 1, 1 }, 0, 0 },
    { "2d stride 2, asymmetric pad", 2, 3, 16, 16, 1, { 11, 8 }, { 3, 3 }, { 2, 2 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, 0, 0 },
    { "2d dilation 2", 2, 2, 3, 5, 1, { 12, 10 }, { 3, 3 }, { 1, 2 }, { 2, 1 }, { 2, 1 }, { 2, 2 }, 0, 0 },
    { "2d groups 4", 2, 2, 16, 8, 4, { 6, 7 }, { 3, 1 }, { 1, 1 }, { 1, 0 }, { 1, 0 }, { 1, 1 }, 0, 0 },
    { "2d groups 2, GEMM", 2, 3, 16, 10, 2, { 7, 6 }, { 3, 3 }, { 2, 1 }, { 1, 1 }, { 0, 1 }, { 1, 2 }, 0, 1 },
    { "2d depthwise", 2, 3, 16, 16, 16, { 9, 9 }, { 3, 3 }, { 2, 1 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0 },
    { "2d depthwise x2", 2, 2, 3, 6, 3, { 8, 5 }, { 5, 3 }, { 1, 1 }, { 2, 1 }, { 2, 1 }, { 1, 1 }, 0, 0 },
    { "2d 1x1", 2, 4, 16, 3, 1, { 5, 5 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 0, 0 }, { 1, 1 }, 0, 0 },
    { "2d flipped", 2, 2, 3, 4, 1, { 6, 7 }, { 3, 2 }, { 1, 2 }, { 1, 0 }, { 1, 1 }, { 1, 1 }, 1, 0 },
    { "2d channels-last", 2, 3, 16, 16, 1, { 9, 7 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 1 },
    { "2d channels-last, groups", 2, 2, 6, 4, 2, { 7, 7 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 0, 1 },
    { "1d", 1, 3, 3, 16, 1, { 19 }, { 5 }, { 2 }, { 2 }, { 1 }, { 1 }, 0, 0 },
    { "1d dilated", 1, 1, 16, 16, 2, { 23 }, { 3 }, { 1 }, { 3 }, { 3 }, { 3 }, 0, 0 },
    { "3d", 3, 2, 3, 4, 1, { 5, 6, 7 }, { 3, 2, 3 }, { 1, 2, 1 }, { 1, 0, 1 }, { 1, 1, 0 }, { 1, 1, 2 }, 0, 0 },
    { "3d channels-last", 3, 1, 16, 3, 1, { 4, 5, 3 }, { 2, 3, 3 }, { 2, 1, 1 }, { 0, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, 0, 1 },
    { "kernel beyond the input", 2, 2, 3, 2, 1, { 2, 3 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0 },
};
#define NGEO (int)(sizeof geo / sizeof geo[0])

static const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };

static void test_modes(void)
{
    for (int gi = 0; gi < NGEO; gi++)
        for (int di = 0; di < 3; di++)
            for (int m = 0; m < 3; m++)
                for (int ab = 0; ab < 2; ab++) {
                    tfl_conv_op o = make(&geo[gi], (tfl_conv_mode)m, dts[di], ab ? 0.5 : 1.0,
                                         ab ? 0.25 : 0.0);
                    run_op(geo[gi].what, &o);
                }
}

static void test_epilogues(void)
{
    for (int di = 0; di < 3; di++)
        for (int v = 0; v < 4; v++) {
            const cv_case *c = &geo[v & 1 ? 9 : 2];
            tfl_conv_op o = make(c, TFL_CONV_FWD, dts[di], 0.75, v >= 2 ? 0.5 : 0.0);
            o.bias = mk(dts[di], c->k, 0);
            if (v >= 1) {
                o.relu = 1;
                o.z_alpha = -0.5;
                if (v == 3) {
                    o.z = o.y;    /* residual add in place */
                } else {
                    o.z = o.y;
                    o.z.data = mk(dts[di], elems(&o.y, c->sp), 0);
                }
            }
            run_op("fwd epilogue", &o);
        }
}

/* The CNN example's convolutions (batch 64, 16x16 then 8x8). */
static void test_cnn(void)
{
    static const cv_case cnn[] = {
        { "cnn conv1", 2, 64, 1, 16, 1, { 16, 16 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0 },
        { "cnn conv2", 2, 64, 16, 32, 1, { 8, 8 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0 },
    };
    /* im2col scratch beyond one chunk (2^24 floats: 28 images here), so
     * the images run in two chunks and the filter gradient adds them */
    static const cv_case big = { "chunked", 2, 30, 16, 8, 1, { 64, 64 }, { 3, 3 }, { 1, 1 },
                                 { 1, 1 }, { 1, 1 }, { 1, 1 }, 0, 0 };
    for (int m = 0; m < 3; m++) {
        tfl_conv_op o = make(&big, (tfl_conv_mode)m, TFL_DT_F32, 1.0, 0.0);
        run_op(big.what, &o);
    }
    for (int i = 0; i < 2; i++)
        for (int m = 0; m < 3; m++) {
            /* the data gradient of the first layer is not asked for; run it anyway */
            tfl_conv_op o = make(&cnn[i], (tfl_conv_mode)m, TFL_DT_F32, 1.0, 0.0);
            run_op(cnn[i].what, &o);
        }
}

static void test_refused(void)
{
    tfl_conv_op o = make(&geo[0], TFL_CONV_FWD, TFL_DT_F32, 1, 0);
    o.dtype = TFL_DT_F64;
    expect_refused("float64", &o);

    cv_case e = geo[0];
    e.n = 0;
    tfl_conv_op z = make(&e, TFL_CONV_FWD, TFL_DT_F32, 1, 0);
    expect_refused("empty batch", &z);

    /* the output over the input */
    static const cv_case same = { "1x1 3 -> 3", 2, 2, 3, 3, 1, { 5, 5 }, { 1, 1 }, { 1, 1 },
                                  { 0, 0 }, { 0, 0 }, { 1, 1 }, 0, 0 };
    tfl_conv_op a = make(&same, TFL_CONV_FWD, TFL_DT_F32, 1, 0);
    a.y.data = a.x.data;
    expect_refused("output aliasing the input", &a);

    /* an inconsistent output size */
    tfl_conv_op b = make(&geo[0], TFL_CONV_BWD_DATA, TFL_DT_F32, 1, 0);
    b.pad_post[0] = 0;
    expect_refused("wrong output size", &b);

    /* z with backward */
    tfl_conv_op c = make(&geo[0], TFL_CONV_BWD_FILTER, TFL_DT_F32, 1, 0);
    c.relu = 1;
    expect_refused("relu on a backward", &c);
}

int main(void)
{
    ocl_h_init();
    test_modes();
    test_epilogues();
    test_cnn();
    test_refused();
    printf("%d cases compared (%lld of %lld elements bit-identical), %d refusals checked\n",
           cases, (long long)pool.exact, (long long)pool.compared, refusals);
    return ocl_h_finish("test_ocl_conv");
}

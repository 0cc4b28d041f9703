/*
 * test_ocl_batchnorm.c - TFL_OP_BATCHNORM on the OpenCL backend
 * (ocl_batchnorm.c) against the host backend (tfl_host_backend.op_run) on
 * the same inputs.
 *
 * Covers: statistics (variance, invstd, rstd; mean omitted), apply
 * (training invstd and inference from_var, with and without weight /
 * bias), the fused backward (train and eval, dx / grads omitted), backward
 * reduce and element; NCHW and channels-last views, batch 1 and more,
 * 1 / 3 / 16 channels, odd plane sizes, an empty batch; float32, float16
 * and bfloat16 data, float16 parameters; the group-norm kinds (plain and
 * 1-d); every map formula, including the running-statistics update in
 * place as cuDNN's forward training issues it; ops that must be refused.
 *
 * Every buffer an op sees is compared whole after the run: float32 within
 * 1e-4 relative, float16 / bfloat16 within about one unit in the last
 * place, each with a floor of 1% of the buffer's largest magnitude times
 * that tolerance (sums that cancel).
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

static uint32_t rng = 88172645u;
static ocl_h_pool pool;

/* n elements of type t, random in [lo, hi]. */
static void *mk(tfl_dtype t, int64_t n, double lo, double hi)
{
    void *h = ocl_h_pool_add(&pool, t, n);
    for (int64_t i = 0; i < n; i++)
        ocl_h_st(t, h, i, ocl_h_urand32(&rng, lo, hi));
    ocl_h_pool_up(&pool, h);
    return h;
}

/* The device address of host address p (NULL stays NULL). */
static void *dv(const void *p)
{
    return ocl_h_pool_dev(&pool, p);
}

/* A floor of 1% of the buffer's largest magnitude times the tolerance. */
static double floor_of(tfl_dtype t)
{
    return 1e-2 * ocl_h_tol_sum(t);
}

/* ------------------------------------------------------------ running */

static int cases, refused_ok;

/* op's pointers moved to the device copies. */
static tfl_batchnorm_op to_dev(const tfl_batchnorm_op *o)
{
    tfl_batchnorm_op d = *o;
    d.x = dv(o->x); d.dy = dv(o->dy); d.y = dv(o->y); d.dx = dv(o->dx);
    d.weight = dv(o->weight); d.bias = dv(o->bias); d.mean = dv(o->mean);
    d.invstd = dv(o->invstd); d.out2 = dv(o->out2); d.running_mean = dv(o->running_mean);
    d.running_var = dv(o->running_var); d.sum_dy = dv(o->sum_dy);
    d.sum_dy_xmu = dv(o->sum_dy_xmu); d.grad_weight = dv(o->grad_weight);
    d.grad_bias = dv(o->grad_bias);
    d.gn_mean = dv(o->gn_mean); d.gn_rstd = dv(o->gn_rstd); d.gn_gamma = dv(o->gn_gamma);
    d.gn_beta = dv(o->gn_beta); d.gn_ds = dv(o->gn_ds); d.gn_db = dv(o->gn_db);
    d.gn_dy = dv(o->gn_dy); d.gn_x = dv(o->gn_x); d.gn_a = dv(o->gn_a); d.gn_b = dv(o->gn_b);
    d.gn_dgamma = dv(o->gn_dgamma); d.gn_dbeta = dv(o->gn_dbeta);
    for (int k = 0; k < TFL_BN_MAP_OPERANDS; k++)
        d.data[k] = dv(o->data[k]);
    return d;
}

/* Run o on both backends and compare every buffer; frees the pool. */
static void run_case(const char *what, const tfl_batchnorm_op *o)
{
    tfl_op hop = { .kind = TFL_OP_BATCHNORM, .name = what };
    hop.u.batchnorm = *o;
    tfl_op dop = hop;
    dop.u.batchnorm = to_dev(o);
    ocl_h_pool_case(&pool, what, &hop, &dop, ocl_h_tol_sum, floor_of);
    cases++;
}

/* o must be refused (host pointers are fine: nothing runs). */
static void expect_refused(const char *what, const tfl_batchnorm_op *o)
{
    tfl_op dop = { .kind = TFL_OP_BATCHNORM, .name = what };
    dop.u.batchnorm = to_dev(o);
    ocl_h_pool_refused(&pool, what, &dop);
    refused_ok++;
}

/* ------------------------------------------------------------ cases */

/* A batch-norm view: NCHW (n, c, hw) or channels-last (n*hw rows, c). */
typedef struct shape {
    int64_t n, c, hw;
    int cl;
} shape;

static void view(tfl_batchnorm_op *o, const shape *s, int64_t *st)
{
    if (s->cl) {
        o->n = s->n * s->hw;
        o->c = s->c;
        o->l = 1;
        st[0] = s->c; st[1] = 1; st[2] = 1;
    } else {
        o->n = s->n;
        o->c = s->c;
        o->l = s->hw;
        st[0] = s->c * s->hw; st[1] = s->hw; st[2] = 1;
    }
}

static const shape shapes[] = {
    { 1, 1, 7, 0 }, { 2, 3, 15, 0 }, { 4, 16, 64, 0 }, { 3, 16, 9, 1 }, { 1, 3, 25, 1 },
    { 5, 2, 1, 0 }, { 2, 16, 257, 0 },
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };

static int64_t elems(const shape *s)
{
    return s->n * s->c * s->hw;
}

static void test_stats(void)
{
    for (int si = 0; si < NSHAPES; si++)
        for (int di = 0; di < 3; di++)
            for (int mode = 0; mode < 3; mode++) {
                const shape *s = &shapes[si];
                tfl_batchnorm_op o = { .kind = TFL_BN_STATS, .dtype = dts[di] };
                view(&o, s, o.x_stride);
                o.x = mk(o.dtype, elems(s), -2, 3);
                o.mean = mode == 2 ? NULL : mk(TFL_DT_F32, s->c, 0, 0);
                o.out2 = mk(TFL_DT_F32, s->c, 0, 0);
                o.stats_mode = mode;
                o.eps = 1e-5;
                run_case("stats", &o);
            }
}

static void test_apply(void)
{
    for (int si = 0; si < NSHAPES; si++)
        for (int di = 0; di < 3; di++)
            for (int v = 0; v < 4; v++) {
                const shape *s = &shapes[si];
                tfl_batchnorm_op o = { .kind = TFL_BN_APPLY, .dtype = dts[di] };
                o.stat_dtype = v == 3 ? TFL_DT_F16 : TFL_DT_F32;
                view(&o, s, o.x_stride);
                memcpy(o.y_stride, o.x_stride, sizeof o.x_stride);
                o.x = mk(o.dtype, elems(s), -2, 3);
                o.y = mk(o.dtype, elems(s), 0, 0);
                o.mean = mk(TFL_DT_F32, s->c, -1, 1);
                o.invstd = mk(TFL_DT_F32, s->c, 0.2, 2);
                o.from_var = v & 1;
                o.eps = 1e-5;
                if (v >= 1) {
                    o.weight = mk(o.stat_dtype, s->c, -2, 2);
                    o.bias = v == 1 ? NULL : mk(o.stat_dtype, s->c, -1, 1);
                }
                run_case("apply", &o);
            }
}

static void test_backward(void)
{
    for (int si = 0; si < NSHAPES; si++)
        for (int di = 0; di < 3; di++)
            for (int v = 0; v < 4; v++) {
                const shape *s = &shapes[si];
                tfl_batchnorm_op o = { .kind = TFL_BN_BACKWARD, .dtype = dts[di] };
                view(&o, s, o.x_stride);
                memcpy(o.dy_stride, o.x_stride, sizeof o.x_stride);
                memcpy(o.dx_stride, o.x_stride, sizeof o.x_stride);
                o.stat_dtype = v == 3 ? TFL_DT_BF16 : TFL_DT_F32;
                o.train = v != 1;
                o.x = mk(o.dtype, elems(s), -2, 3);
                o.dy = mk(o.dtype, elems(s), -1, 1);
                o.dx = v == 2 ? NULL : mk(o.dtype, elems(s), 0, 0);
                o.weight = v == 2 ? NULL : mk(o.stat_dtype, s->c, -2, 2);
                o.mean = mk(TFL_DT_F32, s->c, -1, 1);
                o.invstd = mk(TFL_DT_F32, s->c, 0.2, 2);
                o.running_mean = mk(o.stat_dtype, s->c, -1, 1);
                o.running_var = mk(o.stat_dtype, s->c, 0.1, 3);
                o.grad_weight = mk(o.stat_dtype, s->c, 0, 0);
                o.grad_bias = v == 0 ? NULL : mk(o.stat_dtype, s->c, 0, 0);
                o.eps = 1e-5;
                run_case("backward", &o);
            }
}

static void test_reduce_elemt(void)
{
    for (int si = 0; si < NSHAPES; si++)
        for (int di = 0; di < 3; di++) {
            const shape *s = &shapes[si];
            tfl_batchnorm_op o = { .kind = TFL_BN_BACKWARD_REDUCE, .dtype = dts[di] };
            view(&o, s, o.x_stride);
            memcpy(o.dy_stride, o.x_stride, sizeof o.x_stride);
            memcpy(o.dx_stride, o.x_stride, sizeof o.x_stride);
            o.x = mk(o.dtype, elems(s), -2, 3);
            o.dy = mk(o.dtype, elems(s), -1, 1);
            o.mean = si == 1 ? NULL : mk(TFL_DT_F32, s->c, -1, 1);
            o.invstd = mk(TFL_DT_F32, s->c, 0.2, 2);
            o.sum_dy = mk(TFL_DT_F32, s->c, 0, 0);
            o.sum_dy_xmu = si == 2 ? NULL : mk(TFL_DT_F32, s->c, 0, 0);
            o.grad_weight = mk(TFL_DT_F32, s->c, 0, 0);
            o.grad_bias = mk(TFL_DT_F32, s->c, 0, 0);
            run_case("backward_reduce", &o);

            tfl_batchnorm_op e = { .kind = TFL_BN_BACKWARD_ELEMT, .dtype = dts[di] };
            view(&e, s, e.x_stride);
            memcpy(e.dy_stride, e.x_stride, sizeof e.x_stride);
            memcpy(e.dx_stride, e.x_stride, sizeof e.x_stride);
            e.x = mk(e.dtype, elems(s), -2, 3);
            e.dy = mk(e.dtype, elems(s), -1, 1);
            e.dx = mk(e.dtype, elems(s), 0, 0);
            e.weight = si & 1 ? NULL : mk(TFL_DT_F32, s->c, -2, 2);
            e.mean = mk(TFL_DT_F32, s->c, -1, 1);
            e.invstd = mk(TFL_DT_F32, s->c, 0.2, 2);
            e.sum_dy = mk(TFL_DT_F32, s->c, -5, 5);
            e.sum_dy_xmu = mk(TFL_DT_F32, s->c, -5, 5);
            e.norm = 1.0 / (double)(e.n * e.l);
            run_case("backward_elemt", &e);
        }
}

static void test_empty(void)
{
    /* no rows: statistics write nothing, the backward writes zero grads */
    tfl_batchnorm_op o = { .kind = TFL_BN_STATS, .n = 0, .c = 4, .l = 5 };
    o.x_stride[0] = 20; o.x_stride[1] = 5; o.x_stride[2] = 1;
    o.x = mk(TFL_DT_F32, 1, 0, 1);
    o.mean = mk(TFL_DT_F32, 4, 7, 8);
    o.out2 = mk(TFL_DT_F32, 4, 7, 8);
    run_case("stats empty", &o);
    tfl_batchnorm_op b = { .kind = TFL_BN_BACKWARD, .n = 0, .c = 4, .l = 5, .train = 1 };
    b.x_stride[0] = b.dy_stride[0] = 20; b.x_stride[1] = b.dy_stride[1] = 5;
    b.x_stride[2] = b.dy_stride[2] = 1;
    b.x = mk(TFL_DT_F32, 1, 0, 1);
    b.dy = mk(TFL_DT_F32, 1, 0, 1);
    b.mean = mk(TFL_DT_F32, 4, 0, 1);
    b.invstd = mk(TFL_DT_F32, 4, 1, 2);
    b.grad_weight = mk(TFL_DT_F32, 4, 7, 8);
    b.grad_bias = mk(TFL_DT_F32, 4, 7, 8);
    run_case("backward empty", &b);
}

static void test_gn(void)
{
    static const int64_t geo[][4] = { { 2, 6, 3, 5 }, { 1, 16, 4, 9 }, { 3, 4, 1, 1 }, { 4, 32, 8, 13 } };
    for (unsigned gi = 0; gi < sizeof geo / sizeof geo[0]; gi++)
        for (int v = 0; v < 2; v++) {
            const int64_t N = geo[gi][0], C = geo[gi][1], G = geo[gi][2], HW = geo[gi][3];
            tfl_batchnorm_op f = { .kind = TFL_BN_GN_FUSED_PARAMS, .gn_n = N, .gn_c = C, .gn_g = G,
                                   .gn_hxw = HW };
            f.gn_mean = mk(TFL_DT_F32, N * G, -1, 1);
            f.gn_rstd = mk(TFL_DT_F32, N * G, 0.1, 2);
            f.gn_gamma = v ? NULL : mk(TFL_DT_F32, C, -2, 2);
            f.gn_beta = v ? NULL : mk(TFL_DT_F32, C, -1, 1);
            f.gn_a = mk(TFL_DT_F32, N * C, 0, 0);
            f.gn_b = mk(TFL_DT_F32, N * C, 0, 0);
            run_case("gn fused", &f);

            tfl_batchnorm_op b = f;
            b.kind = TFL_BN_GN_BACKWARD_PARAMS;
            b.gn_1d = v && HW == 1;
            b.gn_mean = mk(TFL_DT_F32, N * G, -1, 1);
            b.gn_rstd = mk(TFL_DT_F32, N * G, 0.1, 2);
            b.gn_gamma = v ? NULL : mk(TFL_DT_F32, C, -2, 2);
            b.gn_beta = NULL;
            b.gn_ds = mk(TFL_DT_F32, N * C, -3, 3);
            b.gn_db = mk(TFL_DT_F32, N * C, -3, 3);
            b.gn_dy = mk(TFL_DT_F32, N * C, -3, 3);
            b.gn_x = mk(TFL_DT_F32, N * C, -3, 3);
            b.gn_a = mk(TFL_DT_F32, N * G, 0, 0);
            b.gn_b = mk(TFL_DT_F32, N * G, 0, 0);
            run_case("gn backward params", &b);

            tfl_batchnorm_op g = b;
            g.kind = TFL_BN_GN_GAMMA_BETA;
            g.gn_mean = mk(TFL_DT_F32, N * G, -1, 1);
            g.gn_rstd = mk(TFL_DT_F32, N * G, 0.1, 2);
            g.gn_gamma = NULL;
            g.gn_ds = mk(TFL_DT_F32, N * C, -3, 3);
            g.gn_db = mk(TFL_DT_F32, N * C, -3, 3);
            g.gn_dy = mk(TFL_DT_F32, N * C, -3, 3);
            g.gn_x = mk(TFL_DT_F32, N * C, -3, 3);
            g.gn_a = g.gn_b = NULL;
            g.gn_dgamma = mk(TFL_DT_F32, C, 0, 0);
            g.gn_dbeta = v ? NULL : mk(TFL_DT_F32, C, 0, 0);
            run_case("gn gamma beta", &g);
        }
}

/* A map over a [d0][d1] grid (d0 fastest): operand k dense of type t[k],
 * or broadcast along dim 0 (one value per row) when bc bit k is set. */
static void map_operands(tfl_batchnorm_op *o, int64_t d0, int64_t d1, const tfl_dtype *t,
                         unsigned bc)
{
    o->kind = TFL_BN_MAP;
    o->ndim = 2;
    o->shape[0] = d0;
    o->shape[1] = d1;
    for (int k = 0; k < o->nout + o->nin; k++) {
        const int64_t es = (int64_t)tfl_dtype_size(t[k]);
        const int b = (bc >> k) & 1;
        o->map_dtype[k] = t[k];
        o->data[k] = mk(t[k], b ? d1 : d0 * d1, k < o->nout ? 0 : 0.1, k < o->nout ? 0 : 2);
        o->strides[k][0] = b ? 0 : es;
        o->strides[k][1] = b ? es : d0 * es;
    }
}

static void test_map(void)
{
    static const struct { int code, flags, nout, nin; unsigned bc; } forms[] = {
        { TFL_BN_MAP_RSQRT_EPS, 0, 1, 1, 0 },
        { TFL_BN_MAP_UPDATE_STATS, 0, 3, 4, 0 },
        { TFL_BN_MAP_UPDATE_STATS, 0, 2, 4, 0 },
        { TFL_BN_MAP_NORM, 0, 1, 3, 0x6 },
        { TFL_BN_MAP_NORM, 1, 1, 4, 0xe },
        { TFL_BN_MAP_NORM, 2, 1, 4, 0xe },
        { TFL_BN_MAP_NORM, 3, 1, 5, 0x1e },
        { TFL_BN_MAP_AFFINE, 0, 1, 3, 0xc },
        { TFL_BN_MAP_AFFINE3, 0, 1, 5, 0x1c },
        { TFL_BN_MAP_AFFINE3, 1, 1, 6, 0x3c },
        { TFL_BN_MAP_MUL, 0, 1, 1, 0 },
        { TFL_BN_MAP_MUL, 0, 1, 2, 0x4 },
        { TFL_BN_MAP_MUL, 0, 1, 3, 0 },
        { TFL_BN_MAP_BWD_TRAIN, 0, 1, 7, 0xf8 },
    };
    for (unsigned f = 0; f < sizeof forms / sizeof forms[0]; f++)
        for (int v = 0; v < 2; v++) {
            tfl_batchnorm_op o = { .map_code = forms[f].code, .map_flags = forms[f].flags,
                                   .nout = forms[f].nout, .nin = forms[f].nin };
            tfl_dtype t[8];
            for (int k = 0; k < 8; k++)
                t[k] = v && k % 2 == 0 ? TFL_DT_F16 : TFL_DT_F32;
            if (v && forms[f].code == TFL_BN_MAP_BWD_TRAIN)
                t[0] = TFL_DT_BF16;
            o.param[0] = 1.0 + 1.0 / 63;
            o.param[1] = 0.1;
            o.param[2] = 1e-5;
            if (forms[f].code == TFL_BN_MAP_RSQRT_EPS)
                o.param[0] = 1e-5;
            map_operands(&o, v ? 7 : 33, v ? 5 : 3, t, forms[f].bc);
            run_case("map", &o);
        }
    /* cuDNN's training update: (rm, rv, invstd) <- (mean, var, rm, rv), the
     * var buffer overwritten by invstd, the running stats in place */
    tfl_batchnorm_op o = { .kind = TFL_BN_MAP, .map_code = TFL_BN_MAP_UPDATE_STATS, .nout = 3,
                           .nin = 4, .ndim = 1 };
    const int64_t c = 16;
    float *mean = mk(TFL_DT_F32, c, -1, 1), *var = mk(TFL_DT_F32, c, 0, 2);
    float *rm = mk(TFL_DT_F32, c, -1, 1), *rv = mk(TFL_DT_F32, c, 0.5, 1.5);
    void *d[7] = { rm, rv, var, mean, var, rm, rv };
    o.shape[0] = c;
    for (int i = 0; i < 7; i++) {
        o.data[i] = d[i];
        o.strides[i][0] = 4;
    }
    o.param[0] = 64.0 / 63.0;
    o.param[1] = 0.1;
    o.param[2] = 1e-5;
    run_case("map update in place", &o);
}

static void test_refused(void)
{
    tfl_batchnorm_op o = { .kind = TFL_BN_STATS, .dtype = TFL_DT_F64, .n = 2, .c = 3, .l = 4 };
    o.x_stride[0] = 12; o.x_stride[1] = 4; o.x_stride[2] = 1;
    o.x = mk(TFL_DT_F32, 48, 0, 1);
    o.mean = mk(TFL_DT_F32, 3, 0, 1);
    expect_refused("float64 statistics", &o);

    float host_only[8] = { 0 };
    tfl_batchnorm_op h = { .kind = TFL_BN_STATS, .n = 1, .c = 2, .l = 4 };
    h.x_stride[0] = 8; h.x_stride[1] = 4; h.x_stride[2] = 1;
    h.x = host_only;   /* not device memory (dv would refuse it: set after) */
    h.mean = mk(TFL_DT_F32, 2, 0, 1);
    tfl_op dop = { .kind = TFL_OP_BATCHNORM, .name = "host memory" };
    dop.u.batchnorm = h;
    dop.u.batchnorm.mean = dv(h.mean);
    CHECK(!ocl_h->op_supported(&dop));
    ocl_h_pool_free(&pool);

    /* a map whose output is broadcast: one element written many times */
    tfl_batchnorm_op m = { .map_code = TFL_BN_MAP_MUL, .nout = 1, .nin = 2 };
    tfl_dtype t[8] = { 0 };
    map_operands(&m, 4, 3, t, 0x1);
    expect_refused("map with a broadcast output", &m);

    /* a map whose arity is not its formula's */
    tfl_batchnorm_op a = { .map_code = TFL_BN_MAP_AFFINE, .nout = 1, .nin = 2 };
    map_operands(&a, 4, 3, t, 0);
    expect_refused("map with a short operand list", &a);

    /* group norm in float16 (the host's are float only) */
    tfl_batchnorm_op g = { .kind = TFL_BN_GN_FUSED_PARAMS, .dtype = TFL_DT_F16, .gn_n = 1,
                           .gn_c = 2, .gn_g = 1, .gn_hxw = 1 };
    expect_refused("float16 group norm", &g);
}

int main(void)
{
    ocl_h_init();
    test_stats();
    test_apply();
    test_backward();
    test_reduce_elemt();
    test_empty();
    test_gn();
    test_map();
    test_refused();
    printf("%d cases compared, %d refusals checked\n", cases, refused_ok);
    return ocl_h_finish("test_ocl_batchnorm");
}

/*
 * test_ops_batchnorm.c - host_batchnorm against double-precision
 * references written here from the definitions:
 *   batch norm over (n, l) per channel, biased variance, in NCHW and
 *   channels-last strides;  dx / dw / db of L = sum(dy * y) checked
 *   against central finite differences of L in double;  the split
 *   backward (reduce + elemt) against the fused one;  group norm's
 *   backward parameters + the AFFINE3 map against finite differences;
 *   the running-statistics map;  bad input rejected.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_elementwise_fp16.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static unsigned rng = 777u;
static float frand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static int close_to(double got, double want, double rel, double abs_)
{
    return fabs(got - want) <= abs_ + rel * fabs(want);
}

/* L = sum dy * bn(x) for channel ch of a [n][c][l] array with strides s */
static double bn_loss(const double *x, const int64_t *s, int n, int l, int ch, double g, double b,
                      const float *dy, double eps)
{
    double m = 0, v = 0, L = 0;
    for (int i = 0; i < n; i++) for (int k = 0; k < l; k++) m += x[i * s[0] + ch * s[1] + k * s[2]];
    m /= n * l;
    for (int i = 0; i < n; i++) for (int k = 0; k < l; k++) {
        double d = x[i * s[0] + ch * s[1] + k * s[2]] - m;
        v += d * d;
    }
    v /= n * l;
    for (int i = 0; i < n; i++) for (int k = 0; k < l; k++) {
        int64_t o = i * s[0] + ch * s[1] + k * s[2];
        L += dy[o] * ((x[o] - m) / sqrt(v + eps) * g + b);
    }
    return L;
}

static void test_batch_norm(int n, int c, int l, int channels_last)
{
    const double eps = 1e-5;
    const int64_t total = (int64_t)n * c * l;
    int64_t s[3];
    if (channels_last) { s[0] = (int64_t)c * l; s[1] = 1; s[2] = c; }
    else               { s[0] = (int64_t)c * l; s[1] = l; s[2] = 1; }
    float *x = malloc(4 * total), *y = malloc(4 * total), *dy = malloc(4 * total);
    float *dx = malloc(4 * total), *dx2 = malloc(4 * total);
    float *w = malloc(4 * c), *b = malloc(4 * c), *mean = malloc(4 * c), *inv = malloc(4 * c);
    float *var = malloc(4 * c), *gw = malloc(4 * c), *gb = malloc(4 * c);
    float *sdy = malloc(4 * c), *sdx = malloc(4 * c);
    double *xd = malloc(8 * total);
    for (int64_t i = 0; i < total; i++) { x[i] = 2 * frand() + 0.3f; dy[i] = frand(); xd[i] = x[i]; }
    for (int i = 0; i < c; i++) { w[i] = frand() + 1.5f; b[i] = frand(); }

    tfl_batchnorm_op op;
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.n = n; op.c = c; op.l = l;
    op.x = x; op.y = y; op.dy = dy; op.dx = dx;
    memcpy(op.x_stride, s, sizeof s); memcpy(op.y_stride, s, sizeof s);
    memcpy(op.dy_stride, s, sizeof s); memcpy(op.dx_stride, s, sizeof s);
    op.eps = eps;

    op.kind = TFL_BN_STATS; op.mean = mean; op.out2 = var; op.stats_mode = TFL_BN_STATS_VAR;
    CHECK(host_batchnorm(&op) == TFL_OK, "stats");
    op.out2 = inv; op.stats_mode = TFL_BN_STATS_INVSTD;
    CHECK(host_batchnorm(&op) == TFL_OK, "stats invstd");
    for (int ch = 0; ch < c; ch++) {
        double m = 0, v = 0;
        for (int i = 0; i < n; i++) for (int k = 0; k < l; k++) m += xd[i * s[0] + ch * s[1] + k * s[2]];
        m /= n * l;
        for (int i = 0; i < n; i++) for (int k = 0; k < l; k++) {
            double d = xd[i * s[0] + ch * s[1] + k * s[2]] - m;
            v += d * d;
        }
        v /= n * l;
        CHECK(close_to(mean[ch], m, 1e-6, 1e-6), "mean[%d] %g vs %g", ch, mean[ch], m);
        CHECK(close_to(var[ch], v, 1e-6, 1e-7), "var[%d] %g vs %g", ch, var[ch], v);
        CHECK(close_to(inv[ch], 1 / sqrt(v + eps), 1e-6, 0), "invstd[%d]", ch);
    }

    op.kind = TFL_BN_APPLY; op.invstd = inv; op.weight = w; op.bias = b;
    CHECK(host_batchnorm(&op) == TFL_OK, "apply");
    for (int64_t i = 0; i < total; i++) {
        int ch = (int)((i / s[1]) % c);
        if (channels_last) ch = (int)(i % c);
        double want = (xd[i] - mean[ch]) * inv[ch] * w[ch] + b[ch];
        CHECK(close_to(y[i], want, 1e-5, 1e-5), "y[%lld] %g vs %g", (long long)i, y[i], want);
    }
    /* eval form: invstd from a variance */
    float *y2 = malloc(4 * total);
    op.y = y2; op.invstd = var; op.from_var = 1;
    CHECK(host_batchnorm(&op) == TFL_OK, "apply from var");
    for (int64_t i = 0; i < total; i++)
        CHECK(close_to(y2[i], y[i], 1e-5, 1e-5), "y from var [%lld]", (long long)i);
    op.y = y; op.from_var = 0; op.invstd = inv;
    free(y2);

    op.kind = TFL_BN_BACKWARD; op.train = 1; op.grad_weight = gw; op.grad_bias = gb;
    CHECK(host_batchnorm(&op) == TFL_OK, "backward");
    for (int ch = 0; ch < c; ch++) {
        /* dw, db: L is linear in g and b */
        double l0 = bn_loss(xd, s, n, l, ch, 0, 0, dy, eps);
        double lg = bn_loss(xd, s, n, l, ch, 1, 0, dy, eps) - l0;
        double lb = bn_loss(xd, s, n, l, ch, 0, 1, dy, eps) - l0;
        CHECK(close_to(gw[ch], lg, 1e-4, 1e-5), "dw[%d] %g vs %g", ch, gw[ch], lg);
        CHECK(close_to(gb[ch], lb, 1e-5, 1e-5), "db[%d] %g vs %g", ch, gb[ch], lb);
        for (int i = 0; i < n; i++) for (int k = 0; k < l; k++) {
            int64_t o = i * s[0] + ch * s[1] + k * s[2];
            const double h = 1e-4;
            double keep = xd[o];
            xd[o] = keep + h;
            double lp = bn_loss(xd, s, n, l, ch, w[ch], b[ch], dy, eps);
            xd[o] = keep - h;
            double lm = bn_loss(xd, s, n, l, ch, w[ch], b[ch], dy, eps);
            xd[o] = keep;
            double fd = (lp - lm) / (2 * h);
            CHECK(close_to(dx[o], fd, 2e-3, 2e-4), "dx[%lld] %g vs fd %g", (long long)o, dx[o], fd);
        }
    }
    /* split backward (reduce + elemt) == fused */
    op.kind = TFL_BN_BACKWARD_REDUCE; op.sum_dy = sdy; op.sum_dy_xmu = sdx;
    op.grad_weight = NULL; op.grad_bias = NULL;
    CHECK(host_batchnorm(&op) == TFL_OK, "reduce");
    op.kind = TFL_BN_BACKWARD_ELEMT; op.dx = dx2; op.norm = 1.0 / ((double)n * l);
    CHECK(host_batchnorm(&op) == TFL_OK, "elemt");
    for (int64_t i = 0; i < total; i++)
        CHECK(close_to(dx2[i], dx[i], 1e-4, 1e-5), "split dx[%lld] %g vs %g", (long long)i, dx2[i], dx[i]);
    for (int ch = 0; ch < c; ch++)
        CHECK(close_to(sdy[ch], gb[ch], 1e-6, 1e-6) && close_to(sdx[ch] * inv[ch], gw[ch], 1e-5, 1e-6),
              "reduce sums [%d]", ch);
    free(x); free(y); free(dy); free(dx); free(dx2); free(w); free(b); free(mean); free(inv);
    free(var); free(gw); free(gb); free(sdy); free(sdx); free(xd);
}

/* L = sum dy * gn(x) (no affine) for one (n, g) group of D*hxw values */
static double gn_loss(const double *x, const float *dy, int cnt, double eps)
{
    double m = 0, v = 0, L = 0;
    for (int i = 0; i < cnt; i++) m += x[i];
    m /= cnt;
    for (int i = 0; i < cnt; i++) v += (x[i] - m) * (x[i] - m);
    v /= cnt;
    for (int i = 0; i < cnt; i++) L += dy[i] * (x[i] - m) / sqrt(v + eps);
    return L;
}

static void test_group_norm(int N, int C, int G, int hxw)
{
    const double eps = 1e-5;
    const int D = C / G, total = N * C * hxw;
    float *x = malloc(4 * total), *dy = malloc(4 * total), *dx = malloc(4 * total);
    float *mean = malloc(4 * N * G), *rstd = malloc(4 * N * G), *c2 = malloc(4 * N * G), *c3 = malloc(4 * N * G);
    float *ds = malloc(4 * N * C), *db = malloc(4 * N * C);
    double *xd = malloc(8 * total);
    for (int i = 0; i < total; i++) { x[i] = frand() * 3; dy[i] = frand(); xd[i] = x[i]; }
    tfl_batchnorm_op op;
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    /* row moments: rows of D*hxw */
    op.kind = TFL_BN_STATS; op.stats_mode = TFL_BN_STATS_RSTD; op.eps = eps;
    op.n = 1; op.c = N * G; op.l = D * hxw;
    op.x_stride[1] = D * hxw; op.x_stride[2] = 1;
    op.x = x; op.mean = mean; op.out2 = rstd;
    CHECK(host_batchnorm(&op) == TFL_OK, "gn stats");
    /* ds, db per (n, c) */
    op.kind = TFL_BN_BACKWARD_REDUCE; op.c = N * C; op.l = hxw; op.mean = NULL;
    op.x_stride[1] = hxw; memcpy(op.dy_stride, op.x_stride, sizeof op.x_stride);
    op.dy = dy; op.sum_dy = db; op.sum_dy_xmu = ds;
    CHECK(host_batchnorm(&op) == TFL_OK, "gn sums");
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.kind = TFL_BN_GN_BACKWARD_PARAMS;
    op.gn_n = N; op.gn_c = C; op.gn_g = G; op.gn_hxw = hxw;
    op.gn_mean = mean; op.gn_rstd = rstd; op.gn_ds = ds; op.gn_db = db; op.gn_a = c2; op.gn_b = c3;
    CHECK(host_batchnorm(&op) == TFL_OK, "gn params");
    /* dx = rstd * dy + c2 * x + c3 as a broadcast map over [hxw*D][N*G] */
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.kind = TFL_BN_MAP; op.map_code = TFL_BN_MAP_AFFINE3; op.nout = 1; op.nin = 5; op.ndim = 2;
    op.shape[0] = D * hxw; op.shape[1] = N * G;
    void *ops[6] = { dx, dy, x, rstd, c2, c3 };
    for (int k = 0; k < 6; k++) {
        op.data[k] = ops[k];
        op.strides[k][0] = k < 3 ? 4 : 0;
        op.strides[k][1] = k < 3 ? 4 * D * hxw : 4;
    }
    CHECK(host_batchnorm(&op) == TFL_OK, "gn map");
    for (int gi = 0; gi < N * G; gi++) {
        double *xs = xd + gi * D * hxw;
        for (int i = 0; i < D * hxw; i++) {
            const double h = 1e-4;
            double keep = xs[i];
            xs[i] = keep + h;
            double lp = gn_loss(xs, dy + gi * D * hxw, D * hxw, eps);
            xs[i] = keep - h;
            double lm = gn_loss(xs, dy + gi * D * hxw, D * hxw, eps);
            xs[i] = keep;
            double fd = (lp - lm) / (2 * h);
            int o = gi * D * hxw + i;
            CHECK(close_to(dx[o], fd, 2e-3, 3e-4), "gn dx[%d] %g vs fd %g", o, dx[o], fd);
        }
    }
    free(x); free(dy); free(dx); free(mean); free(rstd); free(c2); free(c3); free(ds); free(db); free(xd);
}

static void test_update_stats_and_errors(void)
{
    float mean[3] = { 1, -2, 0.5f }, var[3] = { 4, 0.25f, 1 }, rm[3] = { 0, 1, 2 }, rv[3] = { 1, 1, 3 };
    float inv[3];
    tfl_batchnorm_op op;
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.kind = TFL_BN_MAP; op.map_code = TFL_BN_MAP_UPDATE_STATS; op.nout = 3; op.nin = 4; op.ndim = 1;
    op.shape[0] = 3;
    float rm0[3], rv0[3];
    memcpy(rm0, rm, sizeof rm); memcpy(rv0, rv, sizeof rv);
    void *d[7] = { rm, rv, inv, mean, var, rm, rv };
    for (int k = 0; k < 7; k++) { op.data[k] = d[k]; op.strides[k][0] = 4; }
    const double N = 10, mom = 0.1, eps = 1e-3;
    op.param[0] = N / (N - 1); op.param[1] = mom; op.param[2] = eps;
    CHECK(host_batchnorm(&op) == TFL_OK, "update stats");
    for (int i = 0; i < 3; i++) {
        CHECK(close_to(rm[i], (1 - mom) * rm0[i] + mom * mean[i], 1e-6, 1e-7), "running mean %d", i);
        CHECK(close_to(rv[i], (1 - mom) * rv0[i] + mom * var[i] * N / (N - 1), 1e-6, 1e-7), "running var %d", i);
        CHECK(close_to(inv[i], 1 / sqrt(var[i] + eps), 1e-6, 0), "invstd %d", i);
    }
    /* bad input: a clear status, no crash */
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.kind = TFL_BN_GN_FUSED_PARAMS; op.gn_n = 1; op.gn_c = 3; op.gn_g = 2;
    CHECK(host_batchnorm(&op) == TFL_ERR_INVALID, "C not a multiple of G");
    op.gn_g = 0;
    CHECK(host_batchnorm(&op) == TFL_ERR_INVALID, "no groups");
    op.dtype = TFL_DT_F16;
    CHECK(host_batchnorm(&op) == TFL_ERR_UNSUPPORTED, "fp16 not run");
    CHECK(host_batchnorm(NULL) == TFL_ERR_UNSUPPORTED, "NULL op");
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.kind = TFL_BN_MAP; op.nout = 5; op.nin = 5; op.ndim = 1;
    CHECK(host_batchnorm(&op) == TFL_ERR_INVALID, "too many map operands");
}

/* Half x / y / dy / dx and half parameters: the same numbers as the float
 * op on the rounded values, to half rounding (the op computes in float). */
static void test_half(void)
{
    enum { N = 3, C = 2, L = 5, T = N * C * L };
    const int64_t s[3] = { C * L, L, 1 };
    float x[T], dy[T], y[T], dx[T], w[C], b[C], mean[C], inv[C], gw[C], gb[C];
    uint16_t hx[T], hdy[T], hy[T], hdx[T], hw[C], hb[C], hgw[C], hgb[C];
    for (int i = 0; i < T; i++) {
        hx[i] = tfl_float_to_half(3 * frand());
        hdy[i] = tfl_float_to_half(frand());
        x[i] = tfl_half_to_float(hx[i]);
        dy[i] = tfl_half_to_float(hdy[i]);
    }
    for (int i = 0; i < C; i++) {
        hw[i] = tfl_float_to_half(frand() + 1.5f);
        hb[i] = tfl_float_to_half(frand());
        w[i] = tfl_half_to_float(hw[i]);
        b[i] = tfl_half_to_float(hb[i]);
    }
    tfl_batchnorm_op op;
    for (int half = 0; half < 2; half++) {
        memset(&op, 0, sizeof op);
        op.dtype = half ? TFL_DT_F16 : TFL_DT_F32;
        op.stat_dtype = op.dtype;
        op.n = N; op.c = C; op.l = L;
        memcpy(op.x_stride, s, sizeof s); memcpy(op.y_stride, s, sizeof s);
        memcpy(op.dy_stride, s, sizeof s); memcpy(op.dx_stride, s, sizeof s);
        op.eps = 1e-5;
        op.x = half ? (void *)hx : (void *)x;
        op.kind = TFL_BN_STATS; op.mean = mean; op.out2 = inv; op.stats_mode = TFL_BN_STATS_INVSTD;
        CHECK(host_batchnorm(&op) == TFL_OK, "half stats");
        op.kind = TFL_BN_APPLY; op.invstd = inv;
        op.weight = half ? (void *)hw : (void *)w; op.bias = half ? (void *)hb : (void *)b;
        op.y = half ? (void *)hy : (void *)y;
        CHECK(host_batchnorm(&op) == TFL_OK, "half apply");
        op.kind = TFL_BN_BACKWARD; op.train = 1;
        op.dy = half ? (void *)hdy : (void *)dy; op.dx = half ? (void *)hdx : (void *)dx;
        op.grad_weight = half ? (void *)hgw : (void *)gw; op.grad_bias = half ? (void *)hgb : (void *)gb;
        CHECK(host_batchnorm(&op) == TFL_OK, "half backward");
    }
    for (int i = 0; i < T; i++) {
        CHECK(close_to(tfl_half_to_float(hy[i]), y[i], 1e-3, 1e-3), "half y[%d]", i);
        CHECK(close_to(tfl_half_to_float(hdx[i]), dx[i], 1e-3, 1e-3), "half dx[%d]", i);
    }
    for (int i = 0; i < C; i++)
        CHECK(close_to(tfl_half_to_float(hgw[i]), gw[i], 1e-3, 1e-3) &&
              close_to(tfl_half_to_float(hgb[i]), gb[i], 1e-3, 1e-3), "half grads[%d]", i);
}

int main(void)
{
    test_half();
    test_batch_norm(4, 3, 5, 0);
    test_batch_norm(3, 4, 6, 1);
    test_batch_norm(7, 2, 1, 0);
    test_batch_norm(1, 5, 9, 0);
    test_group_norm(2, 6, 3, 4);
    test_group_norm(3, 4, 1, 5);
    test_group_norm(2, 4, 4, 3);
    test_update_stats_and_errors();
    printf("test_ops_batchnorm: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

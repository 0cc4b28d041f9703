/*
 * test_ops_rnn.c - host_rnn (TFL_OP_RNN) against a reference written here
 * in double precision straight from the cell equations of ops/rnn.h (one
 * time step and one row at a time, no GEMM, no reserve), for RNN relu /
 * tanh, LSTM and GRU, 1..2 layers, one or two directions, packed
 * sequences of unequal length, hx / cx given or not, and dropout between
 * layers (the reference applies the mask the op left in its reserve);
 * float64 data (to double rounding) and float16 data (to half's).
 * Gradients: the reference's are central differences of the scalar
 * L = sum(y * gy) + sum(hy * ghy) + sum(cy * gcy) (double, so they do not
 * share the backward code's bugs); host_rnn's BWD_DATA and BWD_WEIGHTS
 * must match them for x, hx, cx and every weight.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "common/half.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static unsigned rng = 77u;
static double drand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (double)((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}

typedef struct rcase {
    tfl_rnn_cell cell;
    int layers, dirs, in, H, T;
    int bs[4];
    int with_h0;
    float dropout;
} rcase;

/* Dropout masks (scale factors) of layers 1.. as the op left them in the
 * reserve, in double; NULL = no dropout.  Read once per case, so the
 * reference uses the op's draw and checks everything else. */
static double *g_masks;

static double sg(double v) { return 1.0 / (1.0 + exp(-v)); }

/* Reference forward in double; returns L for the given probe weights. */
static double ref_forward(const rcase *c, const double *x, const double *hx, const double *cx,
                          const double *w, double *y, double *hy, double *cy,
                          const double *gy, const double *ghy, const double *gcy)
{
    const int G = tfl_rnn_gates(c->cell), H = c->H, B = c->bs[0], D = c->dirs;
    int off[5] = { 0 };
    for (int t = 0; t < c->T; t++)
        off[t + 1] = off[t] + c->bs[t];
    const int n = off[c->T];
    double *cur = malloc(sizeof(double) * (size_t)(n * D * H + n * c->in + 1));
    double *nxt = malloc(sizeof(double) * (size_t)(n * D * H + 1));
    memcpy(cur, x, sizeof(double) * (size_t)(n * c->in));
    int inw = c->in;
    double L = 0;
    for (int l = 0; l < c->layers; l++) {
        for (int d = 0; d < D; d++) {
            const int p = l * D + d;
            int64_t o[4];
            tfl_rnn_weight_offsets(c->cell, c->layers, D, c->in, H, p, o);
            const double *W = w + o[0], *R = w + o[1], *bW = w + o[2], *bR = w + o[3];
            for (int b = 0; b < B; b++) {
                double h[8], cc[8];
                for (int j = 0; j < H; j++) {
                    h[j] = hx ? hx[(p * B + b) * H + j] : 0;
                    cc[j] = cx ? cx[(p * B + b) * H + j] : 0;
                }
                for (int s = 0; s < c->T; s++) {
                    const int t = d == 0 ? s : c->T - 1 - s;
                    if (b >= c->bs[t])
                        continue;
                    const double *xr = cur + (off[t] + b) * inw;
                    double a[32], q[32];
                    for (int k = 0; k < G * H; k++) {
                        a[k] = bW[k];
                        q[k] = bR[k];
                        for (int i = 0; i < inw; i++)
                            a[k] += W[k * inw + i] * xr[i];
                        for (int i = 0; i < H; i++)
                            q[k] += R[k * H + i] * h[i];
                    }
                    double hn[8];
                    for (int j = 0; j < H; j++) {
                        if (c->cell == TFL_RNN_TANH) {
                            hn[j] = tanh(a[j] + q[j]);
                        } else if (c->cell == TFL_RNN_RELU) {
                            hn[j] = fmax(0.0, a[j] + q[j]);
                        } else if (c->cell == TFL_RNN_LSTM) {
                            double i = sg(a[j] + q[j]), f = sg(a[H + j] + q[H + j]);
                            double g = tanh(a[2 * H + j] + q[2 * H + j]), oo = sg(a[3 * H + j] + q[3 * H + j]);
                            cc[j] = f * cc[j] + i * g;
                            hn[j] = oo * tanh(cc[j]);
                        } else {
                            double r = sg(a[j] + q[j]), z = sg(a[H + j] + q[H + j]);
                            double nn = tanh(a[2 * H + j] + r * q[2 * H + j]);
                            hn[j] = (1 - z) * nn + z * h[j];
                        }
                    }
                    for (int j = 0; j < H; j++) {
                        h[j] = hn[j];
                        nxt[(off[t] + b) * D * H + d * H + j] = hn[j];
                    }
                }
                for (int j = 0; j < H; j++) {
                    hy[(p * B + b) * H + j] = h[j];
                    cy[(p * B + b) * H + j] = cc[j];
                    L += h[j] * ghy[(p * B + b) * H + j];
                    if (c->cell == TFL_RNN_LSTM)
                        L += cc[j] * gcy[(p * B + b) * H + j];
                }
            }
        }
        inw = D * H;
        for (int i = 0; i < n * D * H; i++)
            cur[i] = nxt[i] * (g_masks && l + 1 < c->layers ? g_masks[(int64_t)l * n * D * H + i] : 1.0);
    }
    memcpy(y, cur, sizeof(double) * (size_t)(n * D * H));
    for (int i = 0; i < n * D * H; i++)
        L += y[i] * gy[i];
    free(cur);
    free(nxt);
    return L;
}

static float *tof(const double *a, int n)
{
    float *f = malloc(sizeof(float) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        f[i] = (float)a[i];
    return f;
}

static double *alloc_rand(int n, double scale)
{
    double *a = malloc(sizeof(double) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        a[i] = drand() * scale;
    return a;
}

/* max |got - want| / (1 + |want|) over n */
static double maxerr(const float *got, const double *want, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]) / (1.0 + fabs(want[i]));
        if (!(d <= e))
            e = d;
    }
    return e;
}

/* Central-difference gradient of L with respect to v[0..n). */
static void numgrad(const rcase *c, double *x, double *hx, double *cx, double *w, double *v, int n,
                    double *out, const double *gy, const double *ghy, const double *gcy, double *ty,
                    double *thy, double *tcy)
{
    const double eps = 1e-6;
    for (int i = 0; i < n; i++) {
        double keep = v[i];
        v[i] = keep + eps;
        double lp = ref_forward(c, x, hx, cx, w, ty, thy, tcy, gy, ghy, gcy);
        v[i] = keep - eps;
        double lm = ref_forward(c, x, hx, cx, w, ty, thy, tcy, gy, ghy, gcy);
        v[i] = keep;
        out[i] = (lp - lm) / (2 * eps);
    }
}

static void run_case(const rcase *c)
{
    const int D = c->dirs, H = c->H, B = c->bs[0];
    int n = 0;
    for (int t = 0; t < c->T; t++)
        n += c->bs[t];
    const int nw = (int)tfl_rnn_weight_offsets(c->cell, c->layers, D, c->in, H, -1, NULL);
    const int nh = c->layers * D * B * H, ny = n * D * H, nx = n * c->in;
    const int lstm = c->cell == TFL_RNN_LSTM;
    double *x = alloc_rand(nx, 1.0), *w = alloc_rand(nw, 0.5);
    double *hx = c->with_h0 ? alloc_rand(nh, 0.8) : NULL;
    double *cx = c->with_h0 && lstm ? alloc_rand(nh, 0.8) : NULL;
    double *gy = alloc_rand(ny, 1.0), *ghy = alloc_rand(nh, 1.0), *gcy = alloc_rand(nh, 1.0);
    double *y = calloc((size_t)ny + 1, sizeof(double)), *hy = calloc((size_t)nh + 1, sizeof(double));
    double *cy = calloc((size_t)nh + 1, sizeof(double));
    double *ty = calloc((size_t)ny + 1, sizeof(double)), *thy = calloc((size_t)nh + 1, sizeof(double));
    double *tcy = calloc((size_t)nh + 1, sizeof(double));
    ref_forward(c, x, hx, cx, w, y, hy, cy, gy, ghy, gcy);

    float *fx = tof(x, nx), *fw = tof(w, nw), *fhx = hx ? tof(hx, nh) : NULL, *fcx = cx ? tof(cx, nh) : NULL;
    float *fgy = tof(gy, ny), *fghy = tof(ghy, nh), *fgcy = tof(gcy, nh);
    float *fy = calloc((size_t)ny + 1, 4), *fhy = calloc((size_t)nh + 1, 4), *fcy = calloc((size_t)nh + 1, 4);
    const int drop = c->dropout > 0 && c->layers > 1;
    const size_t rb = (size_t)tfl_rnn_reserve_floats(c->cell, c->layers, D, H, n, drop) * 4;
    float *res = calloc(rb / 4 + 1, 4);

    tfl_rnn_op op;
    memset(&op, 0, sizeof op);
    op.cell = c->cell;
    op.layers = c->layers;
    op.dirs = D;
    op.input_size = c->in;
    op.hidden = H;
    op.seq_len = c->T;
    op.batch_sizes = c->bs;
    op.pass = TFL_RNN_FWD;
    op.x = fx; op.w = fw; op.hx = fhx; op.cx = fcx;
    op.y = fy; op.hy = fhy; op.cy = lstm ? fcy : NULL;
    op.reserve = res; op.reserve_bytes = rb;
    op.dropout = c->dropout;
    op.dropout_seed = 1234;
    op.dropout_offset = 5;
    CHECK(host_rnn_supported(&op), "case not supported");
    CHECK(host_rnn(&op) == TFL_OK, "forward failed");
    g_masks = NULL;
    if (drop) {
        /* the masks follow the layer outputs (ops/rnn.h's reserve layout) */
        const int64_t m = (int64_t)n * D * H;
        const int64_t base = rb / 4 - 2 * (int64_t)(c->layers - 1) * m;
        g_masks = malloc(sizeof(double) * (size_t)((c->layers - 1) * m));
        int zeros = 0, kept = 0;
        for (int l = 1; l < c->layers; l++)
            for (int64_t i = 0; i < m; i++) {
                float v = res[base + (int64_t)(l - 1) * 2 * m + m + i];
                g_masks[(l - 1) * m + i] = v;
                zeros += v == 0.0f;
                kept += fabsf(v - 1.0f / (1.0f - c->dropout)) < 1e-6f;
            }
        CHECK(zeros + kept == (c->layers - 1) * m, "mask values not in {0, 1/(1-p)}");
        CHECK(zeros > 0 && kept > 0, "dropout mask drops all or nothing (%d of %d)", zeros,
              (int)((c->layers - 1) * m));
        ref_forward(c, x, hx, cx, w, y, hy, cy, gy, ghy, gcy);
    }
    const char *nm = c->cell == TFL_RNN_LSTM ? "lstm" : c->cell == TFL_RNN_GRU ? "gru" :
                     c->cell == TFL_RNN_TANH ? "tanh" : "relu";
#define TAG nm, c->layers, D, c->with_h0, c->bs[c->T - 1]
    CHECK(maxerr(fy, y, ny) < 1e-5, "%s L%d D%d h0 %d last %d: y err %g", TAG, maxerr(fy, y, ny));
    CHECK(maxerr(fhy, hy, nh) < 1e-5, "%s L%d D%d h0 %d last %d: hy err %g", TAG, maxerr(fhy, hy, nh));
    if (lstm)
        CHECK(maxerr(fcy, cy, nh) < 1e-5, "%s L%d D%d h0 %d last %d: cy err %g", TAG, maxerr(fcy, cy, nh));

    /* the same forward without a reserve (inference) gives the same y */
    float *fy2 = calloc((size_t)ny + 1, 4);
    tfl_rnn_op inf = op;
    inf.y = fy2; inf.hy = NULL; inf.cy = NULL; inf.reserve = NULL; inf.reserve_bytes = 0;
    CHECK(host_rnn(&inf) == TFL_OK, "inference failed");
    if (!drop)
        CHECK(memcmp(fy, fy2, sizeof(float) * (size_t)ny) == 0, "%s: inference y differs from training y", nm);
    else
        CHECK(memcmp(fy, fy2, sizeof(float) * (size_t)ny) != 0, "%s: dropout changed nothing", nm);

    /* backward */
    float *fdx = calloc((size_t)nx + 1, 4), *fdhx = calloc((size_t)nh + 1, 4), *fdcx = calloc((size_t)nh + 1, 4);
    float *fdw = calloc((size_t)nw + 1, 4);
    tfl_rnn_op bd = op;
    bd.pass = TFL_RNN_BWD_DATA;
    bd.dy = fgy; bd.dhy = fghy; bd.dcy = lstm ? fgcy : NULL;
    bd.dx = fdx; bd.dhx = fdhx; bd.dcx = lstm ? fdcx : NULL;
    CHECK(host_rnn(&bd) == TFL_OK, "backward data failed");
    tfl_rnn_op bw = op;
    bw.pass = TFL_RNN_BWD_WEIGHTS;
    bw.dw = fdw; bw.w = NULL;
    CHECK(host_rnn(&bw) == TFL_OK, "backward weights failed");

    double *g = calloc((size_t)(nw + nx + nh) + 1, sizeof(double));
    const double tol = 2e-4;
    numgrad(c, x, hx, cx, w, x, nx, g, gy, ghy, gcy, ty, thy, tcy);
    CHECK(maxerr(fdx, g, nx) < tol, "%s L%d D%d h0 %d last %d: dx err %g", TAG, maxerr(fdx, g, nx));
    numgrad(c, x, hx, cx, w, w, nw, g, gy, ghy, gcy, ty, thy, tcy);
    CHECK(maxerr(fdw, g, nw) < tol, "%s L%d D%d h0 %d last %d: dw err %g", TAG, maxerr(fdw, g, nw));
    if (hx) {
        numgrad(c, x, hx, cx, w, hx, nh, g, gy, ghy, gcy, ty, thy, tcy);
        CHECK(maxerr(fdhx, g, nh) < tol, "%s L%d D%d h0 %d last %d: dhx err %g", TAG, maxerr(fdhx, g, nh));
    }
    if (cx) {
        numgrad(c, x, hx, cx, w, cx, nh, g, gy, ghy, gcy, ty, thy, tcy);
        CHECK(maxerr(fdcx, g, nh) < tol, "%s L%d D%d h0 %d last %d: dcx err %g", TAG, maxerr(fdcx, g, nh));
    }
    /* BWD_WEIGHTS adds: a second call doubles dw */
    float *dw1 = malloc(sizeof(float) * (size_t)nw + 4);
    memcpy(dw1, fdw, sizeof(float) * (size_t)nw);
    CHECK(host_rnn(&bw) == TFL_OK, "backward weights (2) failed");
    int bad = 0;
    for (int i = 0; i < nw; i++)
        bad += fabsf(fdw[i] - 2 * dw1[i]) > 1e-5f * (1 + fabsf(dw1[i]));
    CHECK(bad == 0, "%s: dw not accumulated (%d)", nm, bad);

    free(x); free(w); free(hx); free(cx); free(gy); free(ghy); free(gcy); free(y); free(hy); free(cy);
    free(ty); free(thy); free(tcy); free(fx); free(fw); free(fhx); free(fcx); free(fgy); free(fghy);
    free(fgcy); free(fy); free(fhy); free(fcy); free(res); free(fy2); free(fdx); free(fdhx); free(fdcx);
    free(fdw); free(g); free(dw1); free(g_masks);
    g_masks = NULL;
}

/* ------------------------------------------- float64 and float16 data */

/* A buffer of n values of dt from doubles (rounded to dt; the doubles are
 * rounded in place too, so the reference sees what the op sees). */
static void *to_dt(double *a, int n, tfl_dtype dt)
{
    if (!a)
        return NULL;
    void *b = calloc((size_t)n + 1, 8);
    for (int i = 0; i < n; i++) {
        if (dt == TFL_DT_F64) {
            ((double *)b)[i] = a[i];
        } else {
            uint16_t h = tfl_f32_to_f16((float)a[i]);
            ((uint16_t *)b)[i] = h;
            a[i] = tfl_f16_to_f32(h);
        }
    }
    return b;
}

static double dt_at(const void *b, int i, tfl_dtype dt)
{
    return dt == TFL_DT_F64 ? ((const double *)b)[i] : tfl_f16_to_f32(((const uint16_t *)b)[i]);
}

static double maxerr_dt(const void *got, const double *want, int n, tfl_dtype dt)
{
    double e = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs(dt_at(got, i, dt) - want[i]) / (1.0 + fabs(want[i]));
        if (!(d <= e))
            e = d;
    }
    return e;
}

/* The F64 path (double math: tight) and the F16 path (float math on
 * half storage: to half's rounding), forward and both backward passes. */
static void run_case_dt(const rcase *c, tfl_dtype dt)
{
    const int D = c->dirs, H = c->H, B = c->bs[0];
    int n = 0;
    for (int t = 0; t < c->T; t++)
        n += c->bs[t];
    const int nw = (int)tfl_rnn_weight_offsets(c->cell, c->layers, D, c->in, H, -1, NULL);
    const int nh = c->layers * D * B * H, ny = n * D * H, nx = n * c->in;
    const int lstm = c->cell == TFL_RNN_LSTM;
    const double ftol = dt == TFL_DT_F64 ? 1e-12 : 4e-3, gtol = dt == TFL_DT_F64 ? 1e-7 : 1.5e-2;
    double *x = alloc_rand(nx, 1.0), *w = alloc_rand(nw, 0.5), *hx = alloc_rand(nh, 0.8);
    double *cx = lstm ? alloc_rand(nh, 0.8) : NULL;
    double *gy = alloc_rand(ny, 1.0), *ghy = alloc_rand(nh, 1.0), *gcy = alloc_rand(nh, 1.0);
    void *bx = to_dt(x, nx, dt), *bwt = to_dt(w, nw, dt), *bhx = to_dt(hx, nh, dt), *bcx = to_dt(cx, nh, dt);
    void *bgy = to_dt(gy, ny, dt), *bghy = to_dt(ghy, nh, dt), *bgcy = to_dt(gcy, nh, dt);
    double *y = calloc((size_t)ny + 1, 8), *hy = calloc((size_t)nh + 1, 8), *cy = calloc((size_t)nh + 1, 8);
    double *ty = calloc((size_t)ny + 1, 8), *thy = calloc((size_t)nh + 1, 8), *tcy = calloc((size_t)nh + 1, 8);
    ref_forward(c, x, hx, cx, w, y, hy, cy, gy, ghy, gcy);
    void *by = calloc((size_t)ny + 1, 8), *bhy = calloc((size_t)nh + 1, 8), *bcy = calloc((size_t)nh + 1, 8);
    void *bdx = calloc((size_t)nx + 1, 8), *bdhx = calloc((size_t)nh + 1, 8), *bdcx = calloc((size_t)nh + 1, 8);
    void *bdw = calloc((size_t)nw + 1, 8);
    const size_t rb = (size_t)tfl_rnn_reserve_floats(c->cell, c->layers, D, H, n, 0) *
                      (dt == TFL_DT_F64 ? 8 : 4);
    void *res = calloc(rb + 8, 1);
    tfl_rnn_op op;
    memset(&op, 0, sizeof op);
    op.dtype = dt;
    op.cell = c->cell; op.layers = c->layers; op.dirs = D; op.input_size = c->in; op.hidden = H;
    op.seq_len = c->T; op.batch_sizes = c->bs; op.pass = TFL_RNN_FWD;
    op.x = bx; op.w = bwt; op.hx = bhx; op.cx = bcx; op.y = by; op.hy = bhy; op.cy = lstm ? bcy : NULL;
    op.reserve = res; op.reserve_bytes = rb;
    CHECK(host_rnn(&op) == TFL_OK, "dt %d forward failed", (int)dt);
    CHECK(maxerr_dt(by, y, ny, dt) < ftol, "dt %d cell %d: y err %g", (int)dt, (int)c->cell, maxerr_dt(by, y, ny, dt));
    CHECK(maxerr_dt(bhy, hy, nh, dt) < ftol, "dt %d cell %d: hy err %g", (int)dt, (int)c->cell,
          maxerr_dt(bhy, hy, nh, dt));
    tfl_rnn_op bd = op;
    bd.pass = TFL_RNN_BWD_DATA;
    bd.dy = bgy; bd.dhy = bghy; bd.dcy = lstm ? bgcy : NULL; bd.dx = bdx; bd.dhx = bdhx; bd.dcx = lstm ? bdcx : NULL;
    CHECK(host_rnn(&bd) == TFL_OK, "dt %d backward data failed", (int)dt);
    tfl_rnn_op bw = op;
    bw.pass = TFL_RNN_BWD_WEIGHTS;
    bw.dw = bdw; bw.w = NULL;
    CHECK(host_rnn(&bw) == TFL_OK, "dt %d backward weights failed", (int)dt);
    double *g = calloc((size_t)(nw + nx + nh) + 1, 8);
    numgrad(c, x, hx, cx, w, x, nx, g, gy, ghy, gcy, ty, thy, tcy);
    CHECK(maxerr_dt(bdx, g, nx, dt) < gtol, "dt %d cell %d: dx err %g", (int)dt, (int)c->cell,
          maxerr_dt(bdx, g, nx, dt));
    numgrad(c, x, hx, cx, w, w, nw, g, gy, ghy, gcy, ty, thy, tcy);
    CHECK(maxerr_dt(bdw, g, nw, dt) < gtol, "dt %d cell %d: dw err %g", (int)dt, (int)c->cell,
          maxerr_dt(bdw, g, nw, dt));
    numgrad(c, x, hx, cx, w, hx, nh, g, gy, ghy, gcy, ty, thy, tcy);
    CHECK(maxerr_dt(bdhx, g, nh, dt) < gtol, "dt %d cell %d: dhx err %g", (int)dt, (int)c->cell,
          maxerr_dt(bdhx, g, nh, dt));
    if (lstm) {
        numgrad(c, x, hx, cx, w, cx, nh, g, gy, ghy, gcy, ty, thy, tcy);
        CHECK(maxerr_dt(bdcx, g, nh, dt) < gtol, "dt %d: dcx err %g", (int)dt, maxerr_dt(bdcx, g, nh, dt));
    }
    free(x); free(w); free(hx); free(cx); free(gy); free(ghy); free(gcy); free(bx); free(bwt); free(bhx);
    free(bcx); free(bgy); free(bghy); free(bgcy); free(y); free(hy); free(cy); free(ty); free(thy); free(tcy);
    free(by); free(bhy); free(bcy); free(bdx); free(bdhx); free(bdcx); free(bdw); free(res); free(g);
}

int main(void)
{
    const tfl_rnn_cell cells[4] = { TFL_RNN_RELU, TFL_RNN_TANH, TFL_RNN_LSTM, TFL_RNN_GRU };
    for (int ci = 0; ci < 4; ci++)
        for (int layers = 1; layers <= 2; layers++)
            for (int dirs = 1; dirs <= 2; dirs++)
                for (int h0 = 0; h0 <= 1; h0++) {
                    /* equal lengths (unpacked) and packed, longest first */
                    rcase a = { cells[ci], layers, dirs, 3, 4, 3, { 2, 2, 2 }, h0, 0.0f };
                    rcase b = { cells[ci], layers, dirs, 2, 3, 4, { 3, 2, 2, 1 }, h0, 0.0f };
                    run_case(&a);
                    run_case(&b);
                }
    /* dropout between layers (training): the reference applies the op's
     * own mask, so outputs and all gradients must still match */
    for (int ci = 0; ci < 4; ci++)
        for (int dirs = 1; dirs <= 2; dirs++) {
            rcase a = { cells[ci], 2, dirs, 3, 4, 3, { 2, 2, 2 }, 1, 0.4f };
            rcase b = { cells[ci], 3, dirs, 2, 3, 4, { 3, 2, 2, 1 }, 0, 0.25f };
            run_case(&a);
            run_case(&b);
        }
    /* float64 (double math) and float16 storage */
    for (int ci = 0; ci < 4; ci++) {
        rcase a = { cells[ci], 2, 2, 3, 4, 4, { 3, 2, 2, 1 }, 1, 0.0f };
        run_case_dt(&a, TFL_DT_F64);
        run_case_dt(&a, TFL_DT_F16);
    }
    /* refusals */
    int bs[2] = { 1, 2 };
    float w[512] = { 0 }, x[16] = { 0 };
    tfl_rnn_op op;
    memset(&op, 0, sizeof op);
    op.cell = TFL_RNN_LSTM; op.layers = 1; op.dirs = 1; op.input_size = 2; op.hidden = 2;
    op.seq_len = 2; op.batch_sizes = bs; op.x = x; op.w = w; op.pass = TFL_RNN_FWD;
    CHECK(!host_rnn_supported(&op), "growing batch sizes accepted");
    CHECK(host_rnn(&op) == TFL_ERR_UNSUPPORTED, "growing batch sizes ran");
    bs[1] = 1;
    op.dirs = 3;
    CHECK(!host_rnn_supported(&op), "3 directions accepted");
    op.dirs = 1;
    op.pass = TFL_RNN_BWD_DATA;
    CHECK(!host_rnn_supported(&op), "backward without reserve accepted");
    op.pass = TFL_RNN_FWD;
    op.reserve = x; op.reserve_bytes = 4;
    CHECK(host_rnn(&op) == TFL_ERR_INVALID, "short reserve accepted");
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

/*
 * test_ops_spatial.c - host_spatial: pooling, resizing and roll against
 * references computed here in double by other formulations (window
 * membership tested per input pixel instead of window loops), and every
 * linear backward op against its forward by the adjoint identity
 * <fwd(x), g> = <x, bwd(g)>.  NCHW and NHWC strides, float32 / float64 /
 * float16, accumulate vs overwrite, and refusal of a bad max index.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static uint32_t rng = 12345;
static double urand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static void nchw(int64_t *st, int64_t c, int64_t h, int64_t w)
{
    st[3] = 1; st[2] = w; st[1] = h * w; st[0] = c * h * w;
}

static void nhwc(int64_t *st, int64_t c, int64_t h, int64_t w)
{
    st[1] = 1; st[3] = c; st[2] = w * c; st[0] = h * w * c;
}

static int64_t at(const int64_t *st, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return n * st[0] + c * st[1] + h * st[2] + w * st[3];
}

enum { N = 2, C = 3 };

/* max pool: reference picks, per output, the largest input whose
 * coordinates are on the dilated window grid */
static void test_maxpool(int layout_nhwc)
{
    const int64_t H = 9, W = 10;
    const int kh = 3, kw = 2, sh = 2, sw = 1, ph = 1, pw = 1, dh = 2, dw = 1;
    const int64_t OH = (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    const int64_t OW = (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    float *x = malloc(sizeof(float) * N * C * H * W), *y = malloc(sizeof(float) * N * C * OH * OW);
    int64_t *ind = malloc(sizeof(int64_t) * N * C * OH * OW);
    float *gy = malloc(sizeof(float) * N * C * OH * OW), *gx = malloc(sizeof(float) * N * C * H * W);
    double *rgx = calloc((size_t)(N * C * H * W), sizeof(double));
    int64_t is[4], os[4];
    (layout_nhwc ? nhwc : nchw)(is, C, H, W);
    (layout_nhwc ? nhwc : nchw)(os, C, OH, OW);
    for (int64_t i = 0; i < N * C * H * W; i++)
        x[i] = (float)urand();
    for (int64_t i = 0; i < N * C * OH * OW; i++)
        gy[i] = (float)urand();
    tfl_spatial_op op = { .kind = TFL_SPATIAL_MAXPOOL_FWD, .dtype = TFL_DT_F32, .n = N, .c = C,
                          .in_h = H, .in_w = W, .out_h = OH, .out_w = OW, .in = x, .out = y,
                          .indices = ind, .kernel_h = kh, .kernel_w = kw, .stride_h = sh,
                          .stride_w = sw, .pad_h = ph, .pad_w = pw, .dilation_h = dh,
                          .dilation_w = dw };
    memcpy(op.in_stride, is, sizeof is);
    memcpy(op.out_stride, os, sizeof os);
    CHECK(host_spatial_supported(&op), "maxpool supported");
    CHECK(host_spatial(&op) == TFL_OK, "maxpool run");
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double best = -INFINITY;
                    int64_t arg = -1;
                    for (int64_t h = 0; h < H; h++)
                        for (int64_t w = 0; w < W; w++) {
                            int64_t rh = h - (oh * sh - ph), rw = w - (ow * sw - pw);
                            if (rh < 0 || rw < 0 || rh % dh || rw % dw || rh / dh >= kh || rw / dw >= kw)
                                continue;
                            double v = x[at(is, n, c, h, w)];
                            if (v > best) { best = v; arg = h * W + w; }
                        }
                    int64_t o = at(os, n, c, oh, ow);
                    CHECK(y[o] == (float)best && ind[o] == arg,
                          "maxpool (%lld,%lld,%lld,%lld): %g@%lld vs %g@%lld", (long long)n,
                          (long long)c, (long long)oh, (long long)ow, y[o], (long long)ind[o],
                          best, (long long)arg);
                    rgx[at(is, n, c, arg / W, arg % W)] += gy[o];
                }
    /* backward: overwrite (gx starts as garbage) */
    for (int64_t i = 0; i < N * C * H * W; i++)
        gx[i] = 1e30f;
    tfl_spatial_op b = op;
    b.kind = TFL_SPATIAL_MAX_BWD;
    b.in = gx;
    b.out = gy;
    CHECK(host_spatial(&b) == TFL_OK, "max bwd run");
    for (int64_t i = 0; i < N * C * H * W; i++)
        CHECK(fabs(gx[i] - rgx[i]) <= 1e-6 * (1 + fabs(rgx[i])), "max bwd %lld: %g vs %g",
              (long long)i, gx[i], rgx[i]);
    /* accumulate */
    b.accumulate = 1;
    CHECK(host_spatial(&b) == TFL_OK, "max bwd accumulate");
    for (int64_t i = 0; i < N * C * H * W; i++)
        CHECK(fabs(gx[i] - 2 * rgx[i]) <= 1e-6 * (1 + fabs(rgx[i])), "max bwd acc %lld", (long long)i);
    /* a bad index is refused */
    ind[at(os, 1, 2, 0, 0)] = H * W;
    CHECK(host_spatial(&b) == TFL_ERR_DEVICE, "bad index refused");
    free(x); free(y); free(ind); free(gy); free(gx); free(rgx);
}

/* <fwd(x), g> vs <x, bwd(g)> for a linear op pair */
static void adjoint(tfl_spatial_op fwd, tfl_spatial_kind bwd_kind, const char *what)
{
    const int64_t ni = fwd.n * fwd.c * fwd.in_h * fwd.in_w, no = fwd.n * fwd.c * fwd.out_h * fwd.out_w;
    double *x = malloc(sizeof(double) * ni), *y = malloc(sizeof(double) * no);
    double *g = malloc(sizeof(double) * no), *gx = malloc(sizeof(double) * ni);
    for (int64_t i = 0; i < ni; i++) x[i] = urand();
    for (int64_t i = 0; i < no; i++) g[i] = urand();
    fwd.dtype = TFL_DT_F64;
    fwd.in = x;
    fwd.out = y;
    CHECK(host_spatial(&fwd) == TFL_OK, "%s forward", what);
    tfl_spatial_op b = fwd;
    b.kind = bwd_kind;
    b.in = gx;
    b.out = g;
    CHECK(host_spatial(&b) == TFL_OK, "%s backward", what);
    double l = 0, r = 0, mag = 0;
    for (int64_t i = 0; i < no; i++) { l += y[i] * g[i]; mag += fabs(y[i] * g[i]); }
    for (int64_t i = 0; i < ni; i++) r += x[i] * gx[i];
    CHECK(fabs(l - r) <= 1e-12 * (1 + mag), "%s adjoint: %.17g vs %.17g", what, l, r);
    /* the float32 backward (its own fast paths) agrees with the double
     * one, overwriting and accumulating */
    float *gf = malloc(sizeof(float) * no), *gxf = malloc(sizeof(float) * ni);
    for (int64_t i = 0; i < no; i++) gf[i] = (float)g[i];
    for (int acc = 0; acc < 2; acc++) {
        for (int64_t i = 0; i < ni; i++) gxf[i] = acc ? 1.0f : 1e30f;
        tfl_spatial_op bf = b;
        bf.dtype = TFL_DT_F32;
        bf.in = gxf;
        bf.out = gf;
        bf.accumulate = acc;
        CHECK(host_spatial(&bf) == TFL_OK, "%s f32 backward", what);
        for (int64_t i = 0; i < ni; i++)
            CHECK(fabs(gxf[i] - (gx[i] + acc)) <= 1e-5 * (1 + fabs(gx[i])), "%s f32 backward (acc %d) [%lld] %g vs %g",
                  what, acc, (long long)i, gxf[i], gx[i] + acc);
    }
    free(gf); free(gxf);
    free(x); free(y); free(g); free(gx);
}

static tfl_spatial_op geom(int64_t H, int64_t W, int64_t OH, int64_t OW, int cl)
{
    tfl_spatial_op op = { .n = N, .c = C, .in_h = H, .in_w = W, .out_h = OH, .out_w = OW };
    (cl ? nhwc : nchw)(op.in_stride, C, H, W);
    (cl ? nhwc : nchw)(op.out_stride, C, OH, OW);
    return op;
}

/* avg pool: reference sums, per output, the inputs inside the clipped window */
static void test_avgpool(int cip, int64_t divisor, int cl)
{
    const int64_t H = 7, W = 11;
    const int kh = 3, kw = 4, sh = 2, sw = 3, ph = 1, pw = 2;
    const int64_t OH = (H + 2 * ph - kh + sh - 1) / sh + 1;   /* ceil mode */
    const int64_t OW = (W + 2 * pw - kw + sw - 1) / sw + 1;
    tfl_spatial_op op = geom(H, W, OH, OW, cl);
    op.kind = TFL_SPATIAL_AVGPOOL_FWD;
    op.kernel_h = kh; op.kernel_w = kw; op.stride_h = sh; op.stride_w = sw;
    op.pad_h = ph; op.pad_w = pw; op.count_include_pad = cip; op.divisor_override = divisor;
    float x[N * C * 7 * 11], y[N * C * 64];
    for (int i = 0; i < N * C * 7 * 11; i++) x[i] = (float)urand();
    op.dtype = TFL_DT_F32;
    op.in = x;
    op.out = y;
    CHECK(host_spatial(&op) == TFL_OK, "avgpool run");
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
                    int64_t h1 = h0 + kh < H + ph ? h0 + kh : H + ph;
                    int64_t w1 = w0 + kw < W + pw ? w0 + kw : W + pw;
                    double s = 0;
                    int64_t cnt = 0;
                    for (int64_t h = 0; h < H; h++)
                        for (int64_t w = 0; w < W; w++)
                            if (h >= h0 && h < h1 && w >= w0 && w < w1) {
                                s += x[at(op.in_stride, n, c, h, w)];
                                cnt++;
                            }
                    double d = divisor ? (double)divisor : cip ? (double)((h1 - h0) * (w1 - w0)) : (double)cnt;
                    double ref = cnt ? s / d : 0;
                    float got = y[at(op.out_stride, n, c, oh, ow)];
                    CHECK(fabs(got - ref) <= 1e-6 * (1 + fabs(ref)), "avgpool (%lld,%lld): %g vs %g",
                          (long long)oh, (long long)ow, got, ref);
                }
    adjoint(op, TFL_SPATIAL_AVGPOOL_BWD, "avgpool");
}

static void test_adaptive(int cl)
{
    static const int64_t sizes[][4] = { { 9, 10, 4, 3 }, { 7, 5, 3, 7 }, { 8, 8, 1, 1 }, { 5, 6, 5, 6 } };
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        const int64_t H = sizes[t][0], W = sizes[t][1], OH = sizes[t][2], OW = sizes[t][3];
        tfl_spatial_op op = geom(H, W, OH, OW, cl);
        double x[N * C * 90], y[N * C * 35], yy[N * C * 35];
        int64_t ind[N * C * 35];
        for (int64_t i = 0; i < N * C * H * W; i++) x[i] = urand();
        op.dtype = TFL_DT_F64;
        op.kind = TFL_SPATIAL_ADAPTIVE_AVG_FWD;
        op.in = x; op.out = y;
        CHECK(host_spatial(&op) == TFL_OK, "adaptive avg");
        tfl_spatial_op mx = op;
        mx.kind = TFL_SPATIAL_ADAPTIVE_MAX_FWD;
        mx.out = yy;
        mx.indices = ind;
        CHECK(host_spatial(&mx) == TFL_OK, "adaptive max");
        for (int64_t n = 0; n < N; n++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t oh = 0; oh < OH; oh++)
                    for (int64_t ow = 0; ow < OW; ow++) {
                        /* input h is in output oh's window when
                         * oh*H <= h*OH + OH - 1 and h*OH < (oh+1)*H (floor/ceil bounds) */
                        double s = 0, best = -INFINITY;
                        int64_t cnt = 0, arg = -1;
                        for (int64_t h = 0; h < H; h++)
                            for (int64_t w = 0; w < W; w++) {
                                if (!((h + 1) * OH > oh * H && h * OH < (oh + 1) * H &&
                                      (w + 1) * OW > ow * W && w * OW < (ow + 1) * W))
                                    continue;
                                double v = x[at(op.in_stride, n, c, h, w)];
                                s += v;
                                cnt++;
                                if (v > best) { best = v; arg = h * W + w; }
                            }
                        int64_t o = at(op.out_stride, n, c, oh, ow);
                        CHECK(fabs(y[o] - s / (double)cnt) <= 1e-12, "adaptive avg %g vs %g", y[o], s / (double)cnt);
                        CHECK(yy[o] == best && ind[o] == arg, "adaptive max %g@%lld vs %g@%lld", yy[o],
                              (long long)ind[o], best, (long long)arg);
                    }
        adjoint(op, TFL_SPATIAL_ADAPTIVE_AVG_BWD, "adaptive avg");
    }
}

static void test_resize(int cl)
{
    /* integer factors: nearest forward picks in[h/2], the backward sums
     * each input's 2x2 block; bilinear is checked by adjointness */
    const int64_t H = 5, W = 7;
    tfl_spatial_op op = geom(H, W, 2 * H, 2 * W, cl);
    float x[N * C * 35], y[N * C * 140], g[N * C * 140], gx[N * C * 35];
    for (int i = 0; i < N * C * 35; i++) x[i] = (float)urand();
    for (int i = 0; i < N * C * 140; i++) g[i] = (float)urand();
    op.kind = TFL_SPATIAL_NEAREST_FWD;
    op.dtype = TFL_DT_F32;
    op.scale_h = op.scale_w = 0.5;
    op.in = x; op.out = y;
    CHECK(host_spatial(&op) == TFL_OK, "nearest");
    tfl_spatial_op b = op;
    b.kind = TFL_SPATIAL_NEAREST_BWD;
    b.scale_h = b.scale_w = 2.0;
    b.in = gx; b.out = g;
    CHECK(host_spatial(&b) == TFL_OK, "nearest bwd");
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++) {
                    double s = 0;
                    for (int dy = 0; dy < 2; dy++)
                        for (int dx = 0; dx < 2; dx++) {
                            int64_t o = at(op.out_stride, n, c, 2 * h + dy, 2 * w + dx);
                            CHECK(y[o] == x[at(op.in_stride, n, c, h, w)], "nearest value");
                            s += g[o];
                        }
                    double got = gx[at(op.in_stride, n, c, h, w)];
                    CHECK(fabs(got - s) <= 1e-6 * (1 + fabs(s)), "nearest bwd %g vs %g", got, s);
                }
    /* (Non-integer ratios are left out: PyTorch's CUDA nearest backward
     * maps with ceilf(i * out/in) in float, which is not always the
     * adjoint of its forward floorf(o * in/out); the op follows CUDA.) */
    for (int ac = 0; ac < 2; ac++) {
        tfl_spatial_op bl = geom(9, 10, 13, 4, cl);
        bl.kind = TFL_SPATIAL_BILINEAR_FWD;
        bl.align_corners = ac;
        bl.scale_h = ac ? 8.0 / 12 : 9.0 / 13;
        bl.scale_w = ac ? 9.0 / 3 : 10.0 / 4;
        adjoint(bl, TFL_SPATIAL_BILINEAR_BWD, ac ? "bilinear align_corners" : "bilinear");
    }
    /* bilinear at integer factor 2, align_corners=False: out[2h+1] is
     * 0.75 in[h] + 0.25 in[h+1] (last row clamps) */
    tfl_spatial_op bl = geom(H, W, 2 * H, 2 * W, cl);
    bl.kind = TFL_SPATIAL_BILINEAR_FWD;
    bl.dtype = TFL_DT_F32;
    bl.scale_h = bl.scale_w = 0.5;
    bl.in = x; bl.out = y;
    CHECK(host_spatial(&bl) == TFL_OK, "bilinear");
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++) {
                int64_t h1 = h + 1 < H ? h + 1 : h;
                double ref = 0.75 * x[at(bl.in_stride, n, c, h, 0)] + 0.25 * x[at(bl.in_stride, n, c, h1, 0)];
                double got = y[at(bl.out_stride, n, c, 2 * h + 1, 0)];
                CHECK(fabs(got - ref) <= 1e-6, "bilinear row %lld: %g vs %g", (long long)h, got, ref);
            }
}

static void test_half(void)
{
    /* float16 max pool and average: values exactly representable */
    uint16_t x[16], y[4];
    int64_t ind[4];
    for (int i = 0; i < 16; i++) {
        float f = (float)((i * 7) % 16) - 8.0f;   /* distinct small integers */
        uint32_t b;
        memcpy(&b, &f, 4);
        /* float -> half for small integers: exponent rebias, no rounding */
        uint32_t e = (b >> 23) & 0xff, m = b & 0x7fffff;
        x[i] = f == 0 ? (uint16_t)(b >> 16) : (uint16_t)((b >> 16 & 0x8000) | ((e - 112) << 10) | (m >> 13));
    }
    tfl_spatial_op op = { .kind = TFL_SPATIAL_MAXPOOL_FWD, .dtype = TFL_DT_F16, .n = 1, .c = 1,
                          .in_h = 4, .in_w = 4, .out_h = 2, .out_w = 2, .in = x, .out = y,
                          .indices = ind, .kernel_h = 2, .kernel_w = 2, .stride_h = 2,
                          .stride_w = 2, .dilation_h = 1, .dilation_w = 1 };
    nchw(op.in_stride, 1, 4, 4);
    nchw(op.out_stride, 1, 2, 2);
    CHECK(host_spatial(&op) == TFL_OK, "half maxpool");
    for (int oh = 0; oh < 2; oh++)
        for (int ow = 0; ow < 2; ow++) {
            int best = -100, arg = -1;
            for (int h = 2 * oh; h < 2 * oh + 2; h++)
                for (int w = 2 * ow; w < 2 * ow + 2; w++) {
                    int v = ((h * 4 + w) * 7) % 16 - 8;
                    if (v > best) { best = v; arg = h * 4 + w; }
                }
            CHECK(ind[oh * 2 + ow] == arg, "half maxpool index %lld vs %d", (long long)ind[oh * 2 + ow], arg);
            CHECK(y[oh * 2 + ow] == x[arg], "half maxpool value");
        }
}

static void test_roll(void)
{
    for (int64_t start = 0; start < 5; start++) {
        int32_t in[3 * 5 * 4], out[3 * 5 * 4];
        for (int i = 0; i < 60; i++) in[i] = i;
        tfl_spatial_op op = { .kind = TFL_SPATIAL_ROLL, .elem_size = 4, .outer = 3, .size = 5,
                              .inner = 4, .start = start, .in = in, .out = out };
        CHECK(host_spatial(&op) == TFL_OK, "roll");
        for (int o = 0; o < 3; o++)
            for (int j = 0; j < 5; j++)
                for (int k = 0; k < 4; k++)
                    CHECK(out[(o * 5 + j) * 4 + k] == in[(o * 5 + (j + start) % 5) * 4 + k],
                          "roll start %lld", (long long)start);
    }
    tfl_spatial_op bad = { .kind = TFL_SPATIAL_ROLL, .elem_size = 4, .outer = 1, .size = 5,
                           .inner = 1, .start = 5, .in = &bad, .out = &bad };
    CHECK(host_spatial(&bad) == TFL_ERR_INVALID, "roll start out of range refused");
}

static void test_refusals(void)
{
    tfl_spatial_op op = { .kind = TFL_SPATIAL_AVGPOOL_FWD, .dtype = TFL_DT_I32 };
    CHECK(!host_spatial_supported(&op), "int avgpool unsupported");
    CHECK(!host_spatial_supported(NULL), "NULL unsupported");
    float x[4], y[4];
    tfl_spatial_op z = geom(2, 2, 1, 1, 0);
    z.kind = TFL_SPATIAL_AVGPOOL_FWD;
    z.dtype = TFL_DT_F32;
    z.in = x; z.out = y;
    z.kernel_h = 0; z.kernel_w = 2; z.stride_h = 1; z.stride_w = 1;
    CHECK(host_spatial(&z) == TFL_ERR_INVALID, "zero kernel refused");
    /* absurd resize scales stay inside the image (no wild read, defined
     * casts): every output is one of the inputs' values or a blend */
    static const double bad[] = { 1e30, -1e30, NAN, -3.0 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int kind = 0; kind < 2; kind++) {
            float in[6] = { 1, 2, 3, 4, 5, 6 }, out[12];
            tfl_spatial_op r = { .kind = kind ? TFL_SPATIAL_BILINEAR_FWD : TFL_SPATIAL_NEAREST_FWD,
                                 .dtype = TFL_DT_F32, .n = 1, .c = 1, .in_h = 2, .in_w = 3,
                                 .out_h = 3, .out_w = 4, .in = in, .out = out,
                                 .scale_h = bad[i], .scale_w = bad[i], .align_corners = 1 };
            nchw(r.in_stride, 1, 2, 3);
            nchw(r.out_stride, 1, 3, 4);
            CHECK(host_spatial(&r) == TFL_OK, "bad scale %g run", bad[i]);
            for (int k = 0; k < 12; k++)
                CHECK(out[k] >= 1 && out[k] <= 6, "bad scale %g kind %d: out[%d] = %g", bad[i], kind, k, out[k]);
            tfl_spatial_op b = r;
            b.kind = kind ? TFL_SPATIAL_BILINEAR_BWD : TFL_SPATIAL_NEAREST_BWD;
            b.in = in;
            b.out = out;
            CHECK(host_spatial(&b) == TFL_OK, "bad scale %g backward run", bad[i]);
        }
}

/* 3-D max pool: for each output, the reference scans every input voxel
 * and keeps the largest one that lies on the output's dilated window grid
 * (membership test, not window loops); backward checked by scattering the
 * output gradient to the reference argmax in double.  NCDHW and NDHWC. */
static void test_maxpool3d(int cl)
{
    const int64_t D = 5, H = 6, W = 7;
    const int k[3] = { 3, 2, 3 }, s[3] = { 2, 1, 2 }, p[3] = { 1, 0, 1 }, d[3] = { 1, 2, 1 };
    const int64_t in[3] = { D, H, W };
    int64_t out[3];
    for (int a = 0; a < 3; a++)
        out[a] = (in[a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) / s[a] + 1;
    const int64_t isp = D * H * W, osp = out[0] * out[1] * out[2];
    float *x = malloc(sizeof(float) * N * C * isp), *y = malloc(sizeof(float) * N * C * osp);
    float *gy = malloc(sizeof(float) * N * C * osp), *gx = malloc(sizeof(float) * N * C * isp);
    int64_t *ind = malloc(sizeof(int64_t) * N * C * osp);
    double *rgx = calloc((size_t)(N * C * isp), sizeof(double));
    /* strides: element offset of (n, c, d, h, w) */
    int64_t ist[5], ost[5];
    const int64_t *dims[2] = { in, out };
    int64_t *sts[2] = { ist, ost };
    for (int t = 0; t < 2; t++) {
        const int64_t *z = dims[t];
        int64_t *st = sts[t];
        st[0] = C * z[0] * z[1] * z[2];
        if (!cl) { st[1] = z[0] * z[1] * z[2]; st[2] = z[1] * z[2]; st[3] = z[2]; st[4] = 1; }
        else { st[1] = 1; st[2] = z[1] * z[2] * C; st[3] = z[2] * C; st[4] = C; }
    }
    /* distinct values: a scrambled ramp */
    for (int64_t i = 0; i < N * C * isp; i++)
        x[i] = (float)((i * 7919) % (N * C * isp)) - 100.0f;
    for (int64_t i = 0; i < N * C * osp; i++)
        gy[i] = (float)urand();
    tfl_spatial_op op = { .kind = TFL_SPATIAL_MAXPOOL3D_FWD, .dtype = TFL_DT_F32, .n = N, .c = C,
                          .in_d = D, .in_h = H, .in_w = W, .out_d = out[0], .out_h = out[1],
                          .out_w = out[2], .in = x, .out = y, .indices = ind,
                          .kernel_d = k[0], .kernel_h = k[1], .kernel_w = k[2],
                          .stride_d = s[0], .stride_h = s[1], .stride_w = s[2],
                          .pad_d = p[0], .pad_h = p[1], .pad_w = p[2],
                          .dilation_d = d[0], .dilation_h = d[1], .dilation_w = d[2],
                          .in_stride_d = ist[2], .out_stride_d = ost[2] };
    op.in_stride[0] = ist[0]; op.in_stride[1] = ist[1]; op.in_stride[2] = ist[3]; op.in_stride[3] = ist[4];
    op.out_stride[0] = ost[0]; op.out_stride[1] = ost[1]; op.out_stride[2] = ost[3]; op.out_stride[3] = ost[4];
    CHECK(host_spatial_supported(&op), "maxpool3d supported");
    CHECK(host_spatial(&op) == TFL_OK, "maxpool3d run");
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t od = 0; od < out[0]; od++)
                for (int64_t oh = 0; oh < out[1]; oh++)
                    for (int64_t ow = 0; ow < out[2]; ow++) {
                        const int64_t o[3] = { od, oh, ow };
                        double best = -INFINITY;
                        int64_t arg = -1;
                        for (int64_t id = 0; id < D; id++)
                            for (int64_t ih = 0; ih < H; ih++)
                                for (int64_t iw = 0; iw < W; iw++) {
                                    const int64_t i[3] = { id, ih, iw };
                                    int on = 1;
                                    for (int a = 0; a < 3; a++) {
                                        int64_t r = i[a] - (o[a] * s[a] - p[a]);
                                        on &= r >= 0 && r % d[a] == 0 && r / d[a] < k[a];
                                    }
                                    double v = x[n * ist[0] + c * ist[1] + id * ist[2] +
                                                 ih * ist[3] + iw * ist[4]];
                                    if (on && v > best) {
                                        best = v;
                                        arg = (id * H + ih) * W + iw;
                                    }
                                }
                        int64_t oi = n * ost[0] + c * ost[1] + od * ost[2] + oh * ost[3] + ow * ost[4];
                        CHECK(y[oi] == (float)best && ind[oi] == arg,
                              "maxpool3d cl=%d (%lld,%lld,%lld,%lld,%lld): %g/%lld want %g/%lld", cl,
                              (long long)n, (long long)c, (long long)od, (long long)oh, (long long)ow,
                              y[oi], (long long)ind[oi], best, (long long)arg);
                        if (arg >= 0)
                            rgx[n * ist[0] + c * ist[1] + (arg / (H * W)) * ist[2] +
                                ((arg / W) % H) * ist[3] + (arg % W) * ist[4]] += gy[oi];
                    }
    /* backward, overwrite and accumulate */
    for (int acc = 0; acc < 2; acc++) {
        for (int64_t i = 0; i < N * C * isp; i++)
            gx[i] = acc ? 1.0f : 12345.0f;
        tfl_spatial_op b = op;
        b.kind = TFL_SPATIAL_MAX3D_BWD;
        b.in = gx;
        b.out = gy;
        b.accumulate = acc;
        CHECK(host_spatial(&b) == TFL_OK, "maxpool3d backward run");
        for (int64_t i = 0; i < N * C * isp; i++)
            CHECK(fabs(gx[i] - (rgx[i] + acc)) <= 1e-5 * (1 + fabs(rgx[i])),
                  "maxpool3d bwd cl=%d acc=%d [%lld] %g want %g", cl, acc, (long long)i, gx[i],
                  rgx[i] + acc);
    }
    /* a bad index is refused */
    ind[1] = isp;
    tfl_spatial_op b = op;
    b.kind = TFL_SPATIAL_MAX3D_BWD;
    b.in = gx;
    b.out = gy;
    CHECK(host_spatial(&b) == TFL_ERR_DEVICE, "maxpool3d backward with a bad index");
    free(x); free(y); free(gy); free(gx); free(ind); free(rgx);
}

/* 3-D average pool in double on NCDHW: the reference sums, per output,
 * the input voxels whose coordinates fall in the window (membership
 * test), divides as PyTorch does; the backward is checked by the adjoint
 * identity <fwd(x), g> = <x, bwd(g)>, overwrite and accumulate. */
static void test_avgpool3d(int cip, int64_t divisor)
{
    const int64_t D = 5, H = 6, W = 7;
    const int k[3] = { 3, 2, 3 }, s[3] = { 2, 1, 2 }, p[3] = { 1, 1, 0 };
    const int64_t in[3] = { D, H, W };
    int64_t out[3];
    for (int a = 0; a < 3; a++)
        out[a] = (in[a] + 2 * p[a] - k[a]) / s[a] + 1;
    const int64_t isp = D * H * W, osp = out[0] * out[1] * out[2];
    double *x = malloc(sizeof(double) * N * C * isp), *y = malloc(sizeof(double) * N * C * osp);
    double *g = malloc(sizeof(double) * N * C * osp), *gx = malloc(sizeof(double) * N * C * isp);
    for (int64_t i = 0; i < N * C * isp; i++)
        x[i] = urand();
    for (int64_t i = 0; i < N * C * osp; i++)
        g[i] = urand();
    tfl_spatial_op op = { .kind = TFL_SPATIAL_AVGPOOL3D_FWD, .dtype = TFL_DT_F64, .n = N, .c = C,
                          .in_d = D, .in_h = H, .in_w = W, .out_d = out[0], .out_h = out[1],
                          .out_w = out[2], .in = x, .out = y,
                          .kernel_d = k[0], .kernel_h = k[1], .kernel_w = k[2],
                          .stride_d = s[0], .stride_h = s[1], .stride_w = s[2],
                          .pad_d = p[0], .pad_h = p[1], .pad_w = p[2],
                          .count_include_pad = cip, .divisor_override = divisor,
                          .in_stride_d = H * W, .out_stride_d = out[1] * out[2] };
    nchw(op.in_stride, C, H, W);
    op.in_stride[0] = C * isp; op.in_stride[1] = isp;
    nchw(op.out_stride, C, out[1], out[2]);
    op.out_stride[0] = C * osp; op.out_stride[1] = osp;
    CHECK(host_spatial_supported(&op), "avgpool3d supported");
    CHECK(host_spatial(&op) == TFL_OK, "avgpool3d run");
    for (int64_t v = 0; v < N * C; v++)
        for (int64_t o = 0; o < osp; o++) {
            const int64_t oc[3] = { o / (out[1] * out[2]), (o / out[2]) % out[1], o % out[2] };
            double sum = 0;
            int64_t cnt = 0, full = 1;
            for (int a = 0; a < 3; a++) {
                int64_t st = oc[a] * s[a] - p[a], en = st + k[a];
                if (en > in[a] + p[a])
                    en = in[a] + p[a];
                full *= en - st;
            }
            for (int64_t i = 0; i < isp; i++) {
                const int64_t ic[3] = { i / (H * W), (i / W) % H, i % W };
                int on = 1;
                for (int a = 0; a < 3; a++) {
                    int64_t r = ic[a] - (oc[a] * s[a] - p[a]);
                    on &= r >= 0 && r < k[a];
                }
                if (on) {
                    sum += x[v * isp + i];
                    cnt++;
                }
            }
            double want = cnt == 0 ? 0.0 : sum / (divisor ? (double)divisor : cip ? (double)full : (double)cnt);
            CHECK(fabs(y[v * osp + o] - want) <= 1e-12 * (1 + fabs(want)),
                  "avgpool3d cip=%d div=%lld [%lld][%lld] %g want %g", cip, (long long)divisor,
                  (long long)v, (long long)o, y[v * osp + o], want);
        }
    for (int acc = 0; acc < 2; acc++) {
        for (int64_t i = 0; i < N * C * isp; i++)
            gx[i] = acc ? 0.0 : 777.0;
        tfl_spatial_op b = op;
        b.kind = TFL_SPATIAL_AVGPOOL3D_BWD;
        b.in = gx;
        b.out = g;
        b.accumulate = acc;
        CHECK(host_spatial(&b) == TFL_OK, "avgpool3d backward run");
        double l = 0, r = 0;
        for (int64_t i = 0; i < N * C * osp; i++)
            l += y[i] * g[i];
        for (int64_t i = 0; i < N * C * isp; i++)
            r += x[i] * gx[i];
        CHECK(fabs(l - r) <= 1e-10 * (1 + fabs(l)), "avgpool3d adjoint acc=%d: %g vs %g", acc, l, r);
    }
    free(x); free(y); free(g); free(gx);
}

/* Trilinear resize in double: the reference interpolates a trilinear
 * polynomial exactly (align_corners: output o sits at input coordinate
 * o * (in-1)/(out-1), so a function linear in each axis is reproduced
 * exactly); the backward is checked by the adjoint identity. */
static void test_trilinear(void)
{
    const int64_t D = 3, H = 4, W = 5, OD = 5, OH = 7, OW = 6;
    const int64_t isp = D * H * W, osp = OD * OH * OW;
    double *x = malloc(sizeof(double) * N * C * isp), *y = malloc(sizeof(double) * N * C * osp);
    double *g = malloc(sizeof(double) * N * C * osp), *gx = malloc(sizeof(double) * N * C * isp);
    /* f(d, h, w) = (1 + d)(2 - h)(0.5 + w) + v: multilinear */
    for (int64_t v = 0; v < N * C; v++)
        for (int64_t i = 0; i < isp; i++) {
            double d = (double)(i / (H * W)), h = (double)((i / W) % H), w = (double)(i % W);
            x[v * isp + i] = (1 + d) * (2 - h) * (0.5 + w) + (double)v;
        }
    for (int64_t i = 0; i < N * C * osp; i++)
        g[i] = urand();
    tfl_spatial_op op = { .kind = TFL_SPATIAL_TRILINEAR_FWD, .dtype = TFL_DT_F64, .n = N, .c = C,
                          .in_d = D, .in_h = H, .in_w = W, .out_d = OD, .out_h = OH, .out_w = OW,
                          .in = x, .out = y, .align_corners = 1,
                          .scale_d = (double)(D - 1) / (double)(OD - 1),
                          .scale_h = (double)(H - 1) / (double)(OH - 1),
                          .scale_w = (double)(W - 1) / (double)(OW - 1),
                          .in_stride_d = H * W, .out_stride_d = OH * OW };
    nchw(op.in_stride, C, H, W);
    op.in_stride[0] = C * isp; op.in_stride[1] = isp;
    nchw(op.out_stride, C, OH, OW);
    op.out_stride[0] = C * osp; op.out_stride[1] = osp;
    CHECK(host_spatial_supported(&op), "trilinear supported");
    CHECK(host_spatial(&op) == TFL_OK, "trilinear run");
    for (int64_t v = 0; v < N * C; v++)
        for (int64_t o = 0; o < osp; o++) {
            double d = (double)(o / (OH * OW)) * op.scale_d, h = (double)((o / OW) % OH) * op.scale_h;
            double w = (double)(o % OW) * op.scale_w;
            double want = (1 + d) * (2 - h) * (0.5 + w) + (double)v;
            CHECK(fabs(y[v * osp + o] - want) <= 1e-12 * (1 + fabs(want)),
                  "trilinear [%lld][%lld] %g want %g", (long long)v, (long long)o, y[v * osp + o], want);
        }
    for (int ac = 0; ac < 2; ac++)
        for (int acc = 0; acc < 2; acc++) {
            tfl_spatial_op f = op;
            f.align_corners = ac;
            if (!ac) {
                f.scale_d = (double)D / (double)OD;
                f.scale_h = (double)H / (double)OH;
                f.scale_w = (double)W / (double)OW;
            }
            for (int64_t i = 0; i < N * C * isp; i++)
                x[i] = urand();
            CHECK(host_spatial(&f) == TFL_OK, "trilinear run");
            for (int64_t i = 0; i < N * C * isp; i++)
                gx[i] = acc ? 0.0 : 99.0;
            tfl_spatial_op b = f;
            b.kind = TFL_SPATIAL_TRILINEAR_BWD;
            b.in = gx;
            b.out = g;
            b.accumulate = acc;
            CHECK(host_spatial(&b) == TFL_OK, "trilinear backward run");
            double l = 0, r = 0;
            for (int64_t i = 0; i < N * C * osp; i++)
                l += y[i] * g[i];
            for (int64_t i = 0; i < N * C * isp; i++)
                r += x[i] * gx[i];
            CHECK(fabs(l - r) <= 1e-10 * (1 + fabs(l)), "trilinear adjoint ac=%d acc=%d: %g vs %g",
                  ac, acc, l, r);
        }
    free(x); free(y); free(g); free(gx);
}

/* Bicubic in double: the weights are a partition of unity, so a constant
 * image stays constant (also at clamped borders); the backward is
 * checked by the adjoint identity, both corner modes, overwrite and
 * accumulate, NCHW and NHWC. */
static void test_bicubic(int cl)
{
    const int64_t H = 6, W = 7, OH = 9, OW = 4;
    double *x = malloc(sizeof(double) * N * C * H * W), *y = malloc(sizeof(double) * N * C * OH * OW);
    double *g = malloc(sizeof(double) * N * C * OH * OW), *gx = malloc(sizeof(double) * N * C * H * W);
    for (int ac = 0; ac < 2; ac++) {
        tfl_spatial_op op = { .kind = TFL_SPATIAL_BICUBIC_FWD, .dtype = TFL_DT_F64, .n = N, .c = C,
                              .in_h = H, .in_w = W, .out_h = OH, .out_w = OW, .in = x, .out = y,
                              .align_corners = ac,
                              .scale_h = ac ? (double)(H - 1) / (OH - 1) : (double)H / OH,
                              .scale_w = ac ? (double)(W - 1) / (OW - 1) : (double)W / OW };
        (cl ? nhwc : nchw)(op.in_stride, C, H, W);
        (cl ? nhwc : nchw)(op.out_stride, C, OH, OW);
        for (int64_t i = 0; i < N * C * H * W; i++)
            x[i] = 2.5;
        CHECK(host_spatial_supported(&op), "bicubic supported");
        CHECK(host_spatial(&op) == TFL_OK, "bicubic run");
        for (int64_t i = 0; i < N * C * OH * OW; i++)
            CHECK(fabs(y[i] - 2.5) <= 1e-12, "bicubic constant ac=%d [%lld] %g", ac, (long long)i, y[i]);
        for (int acc = 0; acc < 2; acc++) {
            for (int64_t i = 0; i < N * C * H * W; i++)
                x[i] = urand();
            for (int64_t i = 0; i < N * C * OH * OW; i++)
                g[i] = urand();
            CHECK(host_spatial(&op) == TFL_OK, "bicubic run");
            for (int64_t i = 0; i < N * C * H * W; i++)
                gx[i] = acc ? 0.0 : -5.0;
            tfl_spatial_op b = op;
            b.kind = TFL_SPATIAL_BICUBIC_BWD;
            b.in = gx;
            b.out = g;
            b.accumulate = acc;
            CHECK(host_spatial(&b) == TFL_OK, "bicubic backward run");
            double l = 0, r = 0;
            for (int64_t i = 0; i < N * C * OH * OW; i++)
                l += y[i] * g[i];
            for (int64_t i = 0; i < N * C * H * W; i++)
                r += x[i] * gx[i];
            CHECK(fabs(l - r) <= 1e-10 * (1 + fabs(l)), "bicubic adjoint cl=%d ac=%d acc=%d: %g vs %g",
                  cl, ac, acc, l, r);
        }
    }
    free(x); free(y); free(g); free(gx);
}

int main(void)
{
    for (int cl = 0; cl < 2; cl++) {
        test_maxpool(cl);
        test_avgpool(1, 0, cl);
        test_avgpool(0, 0, cl);
        test_avgpool(0, 5, cl);
        test_adaptive(cl);
        test_resize(cl);
        test_maxpool3d(cl);
        test_bicubic(cl);
    }
    test_avgpool3d(1, 0);
    test_avgpool3d(0, 0);
    test_avgpool3d(0, 5);
    test_trilinear();
    test_half();
    test_roll();
    test_refusals();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

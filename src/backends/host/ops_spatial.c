/*
 * ops_spatial.c - the host backend's native "spatial" ops (torchfl/ops/
 * spatial.h): 2-D max / average / adaptive pooling, nearest and bilinear
 * resizing with their backward passes, and roll.
 *
 * Work is split over planes (n * c); every plane is independent, so the
 * parts never write the same element.  Tensors are addressed through
 * their (n, c, h, w) element strides; the element type is a constant
 * argument of always-inlined helpers, so each dtype gets its own
 * specialised loop.  Backward passes gather or scatter into a per-plane
 * double buffer and store it once (one rounding, as PyTorch's kernels
 * that sum in float and store once).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_elementwise_fp16.h"
#include "common/log.h"

#define INLINE static inline __attribute__((always_inline))

INLINE double ld(const void *p, int64_t i, tfl_dtype dt)
{
    switch (dt) {
    case TFL_DT_F64: return ((const double *)p)[i];
    case TFL_DT_F16: return tfl_half_to_float(((const uint16_t *)p)[i]);
    case TFL_DT_BF16: return tfl_bf16_to_float(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

INLINE void st(void *p, int64_t i, tfl_dtype dt, double v)
{
    switch (dt) {
    case TFL_DT_F64: ((double *)p)[i] = v; break;
    case TFL_DT_F16: ((uint16_t *)p)[i] = tfl_float_to_half((float)v); break;
    case TFL_DT_BF16: ((uint16_t *)p)[i] = tfl_float_to_bf16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

static int is_pool_dtype(tfl_dtype dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_F16 || dt == TFL_DT_BF16;
}

/* Index maps of the resize ops, computed once per op. */
typedef struct rmap {
    int64_t *h0, *h1, *w0, *w1;   /* bilinear taps; nearest: [h0, h1) ranges */
    double *hl, *wl;              /* bilinear: weight of the second tap */
    double *hl0, *wl0;            /* and of the first (1 - that, in the kernel's type) */
} rmap;

typedef struct sp_work {
    const tfl_spatial_op *op;
    int64_t planes, per_part;
    int by_image;                 /* channels_last: work unit = image */
    rmap m;
    atomic_int status;
} sp_work;

/* Element offset of plane p of a tensor with strides s. */
static inline int64_t plane_off(const tfl_spatial_op *op, const int64_t *s, int64_t p)
{
    return (p / op->c) * s[0] + (p % op->c) * s[1];
}

/* ---------------------------------------------------------- max pooling */

INLINE void maxpool_plane(const tfl_spatial_op *op, int64_t p, tfl_dtype dt, int adaptive)
{
    const int64_t H = op->in_h, W = op->in_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const int64_t ib = plane_off(op, is, p), ob = plane_off(op, os, p);
    const int64_t dh = adaptive ? 1 : op->dilation_h, dw = adaptive ? 1 : op->dilation_w;
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        int64_t hs, he;
        if (adaptive) {
            hs = oh * H / op->out_h;
            he = ((oh + 1) * H + op->out_h - 1) / op->out_h;
        } else {
            hs = oh * op->stride_h - op->pad_h;
            he = hs + (int64_t)(op->kernel_h - 1) * dh + 1;
            if (he > H) he = H;
            while (hs < 0) hs += dh;
        }
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            int64_t ws, we;
            if (adaptive) {
                ws = ow * W / op->out_w;
                we = ((ow + 1) * W + op->out_w - 1) / op->out_w;
            } else {
                ws = ow * op->stride_w - op->pad_w;
                we = ws + (int64_t)(op->kernel_w - 1) * dw + 1;
                if (we > W) we = W;
                while (ws < 0) ws += dw;
            }
            double best = -INFINITY;
            int64_t arg = hs * W + ws;
            for (int64_t h = hs; h < he; h += dh) {
                const int64_t rb = ib + h * is[2];
                for (int64_t w = ws; w < we; w += dw) {
                    double v = ld(op->in, rb + w * is[3], dt);
                    if (v > best || isnan(v)) {
                        best = v;
                        arg = h * W + w;
                    }
                }
            }
            int64_t o = ob + oh * os[2] + ow * os[3];
            st(op->out, o, dt, best);
            op->indices[o] = arg;
        }
    }
}

/* Contiguous float32 NCHW max pool, one output row at a time: for each
 * window tap (h, j) one pass over the row's outputs, so the inner loop is
 * long and branch-free (a loop per 3x3 window mispredicts and does not
 * vectorise).  Taps come in row-major window order, so ties and NaNs
 * resolve as in the window loop.  row: OW floats + OW int32s. */
static void maxpool_plane_f32(const tfl_spatial_op *op, int64_t p, void *row)
{
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const int64_t sw = op->stride_w, dh = op->dilation_h, dw = op->dilation_w;
    const float *restrict x = (const float *)op->in + p * H * W;
    float *restrict y = (float *)op->out + p * OH * OW;
    int64_t *restrict ix = op->indices + p * OH * OW;
    float *restrict best = row;
    int32_t *restrict arg = (int32_t *)(best + OW);
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t hs = oh * op->stride_h - op->pad_h, he = hs + (op->kernel_h - 1) * dh + 1;
        if (he > H) he = H;
        while (hs < 0) hs += dh;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t ws = ow * sw - op->pad_w;
            while (ws < 0) ws += dw;
            best[ow] = -INFINITY;
            arg[ow] = (int32_t)(hs * W + ws);
        }
        for (int64_t h = hs; h < he; h += dh)
            for (int64_t j = 0; j < op->kernel_w; j++) {
                const int64_t off = j * dw - op->pad_w;       /* w = ow * sw + off */
                int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
                int64_t hi = W - off <= 0 ? 0 : (W - off + sw - 1) / sw;
                if (hi > OW) hi = OW;
                const float *restrict xr = x + h * W + off;
                const int32_t k0 = (int32_t)(h * W + off);
                for (int64_t ow = lo; ow < hi; ow++) {
                    float v = xr[ow * sw], b = best[ow];
                    int take = (v > b) | (v != v);
                    best[ow] = take ? v : b;
                    arg[ow] = take ? k0 + (int32_t)(ow * sw) : arg[ow];
                }
            }
        for (int64_t ow = 0; ow < OW; ow++) {
            y[oh * OW + ow] = best[ow];
            ix[oh * OW + ow] = arg[ow];
        }
    }
}

/* ------------------------------------------------------- average pooling */

/* Clipped window of output position o along one axis and its divisor
 * share: returns 0 for an empty window. */
INLINE int avg_window(int64_t o, int k, int s, int pad, int64_t size,
                      int64_t *lo, int64_t *hi, int64_t *full)
{
    int64_t a = o * s - pad, b = a + k;
    if (b > size + pad) b = size + pad;
    *full = b - a;
    if (a < 0) a = 0;
    if (b > size) b = size;
    *lo = a;
    *hi = b;
    return a < b;
}

INLINE double avg_divisor(const tfl_spatial_op *op, int64_t fh, int64_t fw,
                          int64_t hs, int64_t he, int64_t ws, int64_t we)
{
    if (op->divisor_override)
        return (double)op->divisor_override;
    return op->count_include_pad ? (double)(fh * fw) : (double)((he - hs) * (we - ws));
}

INLINE void avgpool_plane(const tfl_spatial_op *op, int64_t p, tfl_dtype dt)
{
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const int64_t ib = plane_off(op, is, p), ob = plane_off(op, os, p);
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        int64_t hs, he, fh;
        int hok = avg_window(oh, op->kernel_h, op->stride_h, op->pad_h, op->in_h, &hs, &he, &fh);
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            int64_t ws, we, fw;
            int wok = avg_window(ow, op->kernel_w, op->stride_w, op->pad_w, op->in_w, &ws, &we, &fw);
            double sum = 0;
            if (hok && wok) {
                for (int64_t h = hs; h < he; h++)
                    for (int64_t w = ws; w < we; w++)
                        sum += ld(op->in, ib + h * is[2] + w * is[3], dt);
                sum /= avg_divisor(op, fh, fw, hs, he, ws, we);
            }
            st(op->out, ob + oh * os[2] + ow * os[3], dt, sum);
        }
    }
}

INLINE void adaptive_avg_plane(const tfl_spatial_op *op, int64_t p, tfl_dtype dt)
{
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const int64_t ib = plane_off(op, is, p), ob = plane_off(op, os, p);
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t hs = oh * H / OH, he = ((oh + 1) * H + OH - 1) / OH;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t ws = ow * W / OW, we = ((ow + 1) * W + OW - 1) / OW;
            double sum = 0;
            for (int64_t h = hs; h < he; h++)
                for (int64_t w = ws; w < we; w++)
                    sum += ld(op->in, ib + h * is[2] + w * is[3], dt);
            st(op->out, ob + oh * os[2] + ow * os[3], dt, sum / (double)((he - hs) * (we - ws)));
        }
    }
}

/* ---------------------------------------------------------------- resize */

INLINE void nearest_plane(const tfl_spatial_op *op, const rmap *m, int64_t p, tfl_dtype dt)
{
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const int64_t ib = plane_off(op, is, p), ob = plane_off(op, os, p);
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        const int64_t rb = ib + m->h0[oh] * is[2], wb = ob + oh * os[2];
        for (int64_t ow = 0; ow < op->out_w; ow++)
            st(op->out, wb + ow * os[3], dt, ld(op->in, rb + m->w0[ow] * is[3], dt));
    }
}

/* float32 planes with unit w strides: float arithmetic, as the kernel */
static void bilinear_plane_f32(const tfl_spatial_op *op, const rmap *m, int64_t p)
{
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const float *x = (const float *)op->in + plane_off(op, is, p);
    float *y = (float *)op->out + plane_off(op, os, p);
    const int64_t *restrict w0 = m->w0, *restrict w1 = m->w1;
    const double *restrict wl = m->wl, *restrict wl0 = m->wl0;
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        const float *restrict r0 = x + m->h0[oh] * is[2], *restrict r1 = x + m->h1[oh] * is[2];
        const float h1l = (float)m->hl[oh], h0l = (float)m->hl0[oh];
        float *restrict yo = y + oh * os[2];
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            const float a = (float)wl0[ow], b = (float)wl[ow];
            yo[ow] = h0l * (a * r0[w0[ow]] + b * r0[w1[ow]]) + h1l * (a * r1[w0[ow]] + b * r1[w1[ow]]);
        }
    }
}

INLINE void bilinear_plane(const tfl_spatial_op *op, const rmap *m, int64_t p, tfl_dtype dt)
{
    if (dt == TFL_DT_F32 && op->in_stride[3] == 1 && op->out_stride[3] == 1) {
        bilinear_plane_f32(op, m, p);
        return;
    }
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const int64_t ib = plane_off(op, is, p), ob = plane_off(op, os, p);
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        const int64_t r0 = ib + m->h0[oh] * is[2], r1 = ib + m->h1[oh] * is[2];
        const double h1l = m->hl[oh], h0l = m->hl0[oh];
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            const int64_t c0 = m->w0[ow] * is[3], c1 = m->w1[ow] * is[3];
            const double w1l = m->wl[ow], w0l = m->wl0[ow];
            double v = h0l * (w0l * ld(op->in, r0 + c0, dt) + w1l * ld(op->in, r0 + c1, dt)) +
                       h1l * (w0l * ld(op->in, r1 + c0, dt) + w1l * ld(op->in, r1 + c1, dt));
            st(op->out, ob + oh * os[2] + ow * os[3], dt, v);
        }
    }
}

/* -------------------------------------------------------------- backward */

/* Write the plane's gradient buffer g (in_h x in_w) into `in`. */
INLINE void store_grad(const tfl_spatial_op *op, int64_t p, const double *g, tfl_dtype dt)
{
    const int64_t *is = op->in_stride;
    const int64_t ib = plane_off(op, is, p);
    for (int64_t h = 0; h < op->in_h; h++)
        for (int64_t w = 0; w < op->in_w; w++) {
            int64_t i = ib + h * is[2] + w * is[3];
            double v = g[h * op->in_w + w];
            st(op->in, i, dt, op->accumulate ? ld(op->in, i, dt) + v : v);
        }
}

/* Fill g with the plane's input gradient; 0 on a bad max index. */
INLINE int grad_plane(const tfl_spatial_op *op, const rmap *m, int64_t p, double *g, tfl_dtype dt)
{
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const int64_t *os = op->out_stride;
    const int64_t ob = plane_off(op, os, p);
    memset(g, 0, sizeof(double) * (size_t)(H * W));
#define GO(oh, ow) ld(op->out, ob + (oh) * os[2] + (ow) * os[3], dt)
    switch (op->kind) {
    case TFL_SPATIAL_MAX_BWD:
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t k = op->indices[ob + oh * os[2] + ow * os[3]];
                if (k < 0 || k >= H * W)
                    return 0;
                g[k] += GO(oh, ow);
            }
        break;
    case TFL_SPATIAL_AVGPOOL_BWD:
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t hs, he, fh;
            if (!avg_window(oh, op->kernel_h, op->stride_h, op->pad_h, H, &hs, &he, &fh))
                continue;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t ws, we, fw;
                if (!avg_window(ow, op->kernel_w, op->stride_w, op->pad_w, W, &ws, &we, &fw))
                    continue;
                double v = GO(oh, ow) / avg_divisor(op, fh, fw, hs, he, ws, we);
                for (int64_t h = hs; h < he; h++)
                    for (int64_t w = ws; w < we; w++)
                        g[h * W + w] += v;
            }
        }
        break;
    case TFL_SPATIAL_ADAPTIVE_AVG_BWD:
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t hs = oh * H / OH, he = ((oh + 1) * H + OH - 1) / OH;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t ws = ow * W / OW, we = ((ow + 1) * W + OW - 1) / OW;
                double v = GO(oh, ow) / (double)((he - hs) * (we - ws));
                for (int64_t h = hs; h < he; h++)
                    for (int64_t w = ws; w < we; w++)
                        g[h * W + w] += v;
            }
        }
        break;
    case TFL_SPATIAL_NEAREST_BWD:
        /* gather: input row h takes output rows [h0[h], h1[h]) */
        for (int64_t h = 0; h < H; h++)
            for (int64_t w = 0; w < W; w++) {
                double s = 0;
                for (int64_t oh = m->h0[h]; oh < m->h1[h]; oh++)
                    for (int64_t ow = m->w0[w]; ow < m->w1[w]; ow++)
                        s += GO(oh, ow);
                g[h * W + w] = s;
            }
        break;
    case TFL_SPATIAL_BILINEAR_BWD:
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t r0 = m->h0[oh] * W, r1 = m->h1[oh] * W;
            const double h1l = m->hl[oh], h0l = m->hl0[oh];
            for (int64_t ow = 0; ow < OW; ow++) {
                const int64_t c0 = m->w0[ow], c1 = m->w1[ow];
                const double w1l = m->wl[ow], w0l = m->wl0[ow];
                const double d = GO(oh, ow);
                g[r0 + c0] += h0l * w0l * d;
                g[r0 + c1] += h0l * w1l * d;
                g[r1 + c0] += h1l * w0l * d;
                g[r1 + c1] += h1l * w1l * d;
            }
        }
        break;
    default:
        break;
    }
#undef GO
    return 1;
}

/* ------------------------------------------------------------- dispatch */

INLINE int run_plane(sp_work *w, int64_t p, double *g, tfl_dtype dt)
{
    const tfl_spatial_op *op = w->op;
    switch (op->kind) {
    case TFL_SPATIAL_MAXPOOL_FWD: maxpool_plane(op, p, dt, 0); return 1;
    case TFL_SPATIAL_ADAPTIVE_MAX_FWD: maxpool_plane(op, p, dt, 1); return 1;
    case TFL_SPATIAL_AVGPOOL_FWD: avgpool_plane(op, p, dt); return 1;
    case TFL_SPATIAL_ADAPTIVE_AVG_FWD: adaptive_avg_plane(op, p, dt); return 1;
    case TFL_SPATIAL_NEAREST_FWD: nearest_plane(op, &w->m, p, dt); return 1;
    case TFL_SPATIAL_BILINEAR_FWD: bilinear_plane(op, &w->m, p, dt); return 1;
    default:
        if (!grad_plane(op, &w->m, p, g, dt))
            return 0;
        store_grad(op, p, g, dt);
        return 1;
    }
}

static int is_backward(tfl_spatial_kind k)
{
    return k == TFL_SPATIAL_MAX_BWD || k == TFL_SPATIAL_AVGPOOL_BWD ||
           k == TFL_SPATIAL_ADAPTIVE_AVG_BWD || k == TFL_SPATIAL_NEAREST_BWD ||
           k == TFL_SPATIAL_BILINEAR_BWD;
}

/* Can the float32 NCHW max-pool fast path run this op? */
static int maxpool_fast(const tfl_spatial_op *op)
{
    const int64_t *is = op->in_stride, *os = op->out_stride;
    return op->kind == TFL_SPATIAL_MAXPOOL_FWD && op->dtype == TFL_DT_F32 &&
           op->in_h * op->in_w <= INT32_MAX &&
           is[3] == 1 && is[2] == op->in_w && is[1] == op->in_h * op->in_w &&
           is[0] == op->c * is[1] &&
           os[3] == 1 && os[2] == op->out_w && os[1] == op->out_h * op->out_w &&
           os[0] == op->c * os[1];
}

/* float32 max-pool backward on planes with unit w strides: scatter in
 * float straight into the gradient (output order, so each input sums its
 * outputs in the order the CUDA gather does); 0 on a bad index. */
static int maxbwd_plane_f32(const tfl_spatial_op *op, int64_t p)
{
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    float *restrict gi = (float *)op->in + plane_off(op, is, p);
    const float *restrict go = (const float *)op->out + plane_off(op, os, p);
    const int64_t *restrict ix = op->indices + plane_off(op, os, p);
    for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t k = ix[oh * os[2] + ow];
            if (k < 0 || k >= H * W)
                return 0;
        }
    if (!op->accumulate)
        for (int64_t h = 0; h < H; h++)
            memset(gi + h * is[2], 0, sizeof(float) * (size_t)W);
    const int dense = is[2] == W;
    for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t k = ix[oh * os[2] + ow];
            gi[dense ? k : (k / W) * is[2] + k % W] += go[oh * os[2] + ow];
        }
    return 1;
}

/* float32 average / adaptive-average backward on planes with unit w
 * strides: each output gradient, divided once, added in float over its
 * window straight into the gradient (output order: every input sums its
 * windows in the order the CUDA gather does). */
static void avgbwd_plane_f32(const tfl_spatial_op *op, int64_t p)
{
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    float *restrict gi = (float *)op->in + plane_off(op, is, p);
    const float *restrict go = (const float *)op->out + plane_off(op, os, p);
    const int adaptive = op->kind == TFL_SPATIAL_ADAPTIVE_AVG_BWD;
    if (!op->accumulate)
        for (int64_t h = 0; h < H; h++)
            memset(gi + h * is[2], 0, sizeof(float) * (size_t)W);
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t hs, he, fh = 0;
        if (adaptive) {
            hs = oh * H / OH;
            he = ((oh + 1) * H + OH - 1) / OH;
        } else if (!avg_window(oh, op->kernel_h, op->stride_h, op->pad_h, H, &hs, &he, &fh)) {
            continue;
        }
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t ws, we, fw = 0;
            if (adaptive) {
                ws = ow * W / OW;
                we = ((ow + 1) * W + OW - 1) / OW;
            } else if (!avg_window(ow, op->kernel_w, op->stride_w, op->pad_w, W, &ws, &we, &fw)) {
                continue;
            }
            const float d = adaptive ? (float)((he - hs) * (we - ws))
                                     : (float)avg_divisor(op, fh, fw, hs, he, ws, we);
            const float v = go[oh * os[2] + ow] / d;
            for (int64_t h = hs; h < he; h++) {
                float *restrict r = gi + h * is[2];
                for (int64_t w = ws; w < we; w++)
                    r[w] += v;
            }
        }
    }
}

/* float32 resize backward on planes with unit w strides, in float as
 * the kernels: nearest gathers each input's output block, bilinear adds
 * each output's four weighted taps. */
static void resizebwd_plane_f32(const tfl_spatial_op *op, const rmap *m, int64_t p)
{
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    float *restrict gi = (float *)op->in + plane_off(op, is, p);
    const float *restrict go = (const float *)op->out + plane_off(op, os, p);
    if (op->kind == TFL_SPATIAL_NEAREST_BWD) {
        for (int64_t h = 0; h < H; h++) {
            float *restrict r = gi + h * is[2];
            for (int64_t w = 0; w < W; w++) {
                float sum = 0;
                for (int64_t oh = m->h0[h]; oh < m->h1[h]; oh++)
                    for (int64_t ow = m->w0[w]; ow < m->w1[w]; ow++)
                        sum += go[oh * os[2] + ow];
                r[w] = op->accumulate ? r[w] + sum : sum;
            }
        }
        return;
    }
    if (!op->accumulate)
        for (int64_t h = 0; h < H; h++)
            memset(gi + h * is[2], 0, sizeof(float) * (size_t)W);
    for (int64_t oh = 0; oh < OH; oh++) {
        float *restrict r0 = gi + m->h0[oh] * is[2], *restrict r1 = gi + m->h1[oh] * is[2];
        const float h1l = (float)m->hl[oh], h0l = (float)m->hl0[oh];
        for (int64_t ow = 0; ow < OW; ow++) {
            const int64_t c0 = m->w0[ow], c1 = m->w1[ow];
            const float w1l = (float)m->wl[ow], w0l = (float)m->wl0[ow];
            const float d = go[oh * os[2] + ow];
            r0[c0] += h0l * w0l * d;
            r0[c1] += h0l * w1l * d;
            r1[c0] += h1l * w0l * d;
            r1[c1] += h1l * w1l * d;
        }
    }
}

/* One plane, any dtype; 0 on a bad max index.  row: scratch of
 * 2 * out_w words for the float32 max pool. */
static int plane_any(sp_work *w, int64_t p, double *g, void *row)
{
    if (row && maxpool_fast(w->op)) {
        maxpool_plane_f32(w->op, p, row);
        return 1;
    }
    if (w->op->kind == TFL_SPATIAL_MAX_BWD && w->op->dtype == TFL_DT_F32 &&
        w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1)
        return maxbwd_plane_f32(w->op, p);
    if ((w->op->kind == TFL_SPATIAL_AVGPOOL_BWD || w->op->kind == TFL_SPATIAL_ADAPTIVE_AVG_BWD) &&
        w->op->dtype == TFL_DT_F32 && w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1) {
        avgbwd_plane_f32(w->op, p);
        return 1;
    }
    if ((w->op->kind == TFL_SPATIAL_NEAREST_BWD || w->op->kind == TFL_SPATIAL_BILINEAR_BWD) &&
        w->op->dtype == TFL_DT_F32 && w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1) {
        resizebwd_plane_f32(w->op, &w->m, p);
        return 1;
    }
    switch (w->op->dtype) {
    case TFL_DT_F64: return run_plane(w, p, g, TFL_DT_F64);
    case TFL_DT_F16: return run_plane(w, p, g, TFL_DT_F16);
    case TFL_DT_BF16: return run_plane(w, p, g, TFL_DT_BF16);
    default: return run_plane(w, p, g, TFL_DT_F32);
    }
}

/* dst[c][h][w] = (or +=) src[c][h][w] over one image; strides (c, h, w)
 * in elements of es bytes.  Row by row (a W x C block stays in cache),
 * w innermost: one side is read or written in runs, the other strided
 * within the cached block. */
static void copy_image(void *dst, const int64_t *ds, const void *src, const int64_t *ss,
                       int64_t C, int64_t H, int64_t W, size_t es, int add, tfl_dtype dt)
{
    for (int64_t h = 0; h < H; h++)
        for (int64_t c = 0; c < C; c++) {
            const int64_t d0 = h * ds[1] + c * ds[0], s0 = h * ss[1] + c * ss[0];
            if (add) {
                for (int64_t w = 0; w < W; w++)
                    st(dst, d0 + w * ds[2], dt, ld(dst, d0 + w * ds[2], dt) + ld(src, s0 + w * ss[2], dt));
                continue;
            }
#define COPY(T) do { T *restrict d = (T *)dst + d0; const T *restrict s_ = (const T *)src + s0; \
            for (int64_t w = 0; w < W; w++) d[w * ds[2]] = s_[w * ss[2]]; } while (0)
            switch (es) {
            case 2: COPY(uint16_t); break;
            case 8: COPY(uint64_t); break;
            default: COPY(uint32_t); break;
            }
#undef COPY
        }
}

/* Direct channels_last float32 max pool of image n: channels innermost,
 * so every window pixel is one contiguous run of C values, compared in
 * float / int32 lanes of equal width (so the loop vectorises); scratch
 * holds C floats and C int32s. */
static void maxpool_image_nhwc_f32(const tfl_spatial_op *op, int64_t n, void *scratch)
{
    const int64_t C = op->c, H = op->in_h, W = op->in_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const int64_t dh = op->dilation_h, dw = op->dilation_w;
    const float *x = (const float *)op->in + n * is[0];
    float *y = (float *)op->out + n * os[0];
    int64_t *ix = op->indices + n * os[0];
    float *restrict best = scratch;
    int32_t *restrict arg = (int32_t *)(best + C);
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        int64_t hs = oh * op->stride_h - op->pad_h, he = hs + (op->kernel_h - 1) * dh + 1;
        if (he > H) he = H;
        while (hs < 0) hs += dh;
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            int64_t ws = ow * op->stride_w - op->pad_w, we = ws + (op->kernel_w - 1) * dw + 1;
            if (we > W) we = W;
            while (ws < 0) ws += dw;
            const int32_t k0 = (int32_t)(hs * W + ws);
            for (int64_t c = 0; c < C; c++) {
                best[c] = -INFINITY;
                arg[c] = k0;
            }
            for (int64_t h = hs; h < he; h += dh)
                for (int64_t w = ws; w < we; w += dw) {
                    const float *restrict xp = x + h * is[2] + w * is[3];
                    const int32_t k = (int32_t)(h * W + w);
                    for (int64_t c = 0; c < C; c++) {
                        float v = xp[c], b = best[c];
                        int take = (v > b) | (v != v);
                        best[c] = take ? v : b;
                        arg[c] = take ? k : arg[c];
                    }
                }
            float *restrict yo = y + oh * os[2] + ow * os[3];
            int64_t *restrict io = ix + oh * os[2] + ow * os[3];
            for (int64_t c = 0; c < C; c++) {
                yo[c] = best[c];
                io[c] = arg[c];
            }
        }
    }
}

/* Direct channels_last float32 average pool of image n (sums in float,
 * as the CUDA kernel); acc holds C floats. */
static void avgpool_image_nhwc_f32(const tfl_spatial_op *op, int64_t n, float *restrict acc)
{
    const int64_t C = op->c;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const float *x = (const float *)op->in + n * is[0];
    float *y = (float *)op->out + n * os[0];
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        int64_t hs, he, fh;
        int hok = avg_window(oh, op->kernel_h, op->stride_h, op->pad_h, op->in_h, &hs, &he, &fh);
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            int64_t ws, we, fw;
            int wok = avg_window(ow, op->kernel_w, op->stride_w, op->pad_w, op->in_w, &ws, &we, &fw);
            float *restrict yo = y + oh * os[2] + ow * os[3];
            for (int64_t c = 0; c < C; c++)
                acc[c] = 0;
            if (hok && wok) {
                for (int64_t h = hs; h < he; h++)
                    for (int64_t w = ws; w < we; w++) {
                        const float *restrict xp = x + h * is[2] + w * is[3];
                        for (int64_t c = 0; c < C; c++)
                            acc[c] += xp[c];
                    }
                const float d = (float)avg_divisor(op, fh, fw, hs, he, ws, we);
                for (int64_t c = 0; c < C; c++)
                    acc[c] /= d;
            }
            for (int64_t c = 0; c < C; c++)
                yo[c] = acc[c];
        }
    }
}

/* Direct channels_last resizes of image n: each output pixel is one
 * C-run copied (nearest, any dtype) or blended from four C-runs
 * (bilinear, float32). */
static void nearest_image_nhwc(const tfl_spatial_op *op, const rmap *m, int64_t n)
{
    const size_t es = tfl_dtype_size(op->dtype), run = (size_t)op->c * es;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const char *x = (const char *)op->in + (size_t)(n * is[0]) * es;
    char *y = (char *)op->out + (size_t)(n * os[0]) * es;
    for (int64_t oh = 0; oh < op->out_h; oh++)
        for (int64_t ow = 0; ow < op->out_w; ow++)
            memcpy(y + (size_t)(oh * os[2] + ow * os[3]) * es,
                   x + (size_t)(m->h0[oh] * is[2] + m->w0[ow] * is[3]) * es, run);
}

static void bilinear_image_nhwc_f32(const tfl_spatial_op *op, const rmap *m, int64_t n)
{
    const int64_t C = op->c;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const float *x = (const float *)op->in + n * is[0];
    float *y = (float *)op->out + n * os[0];
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        const float h1l = (float)m->hl[oh], h0l = (float)m->hl0[oh];
        const float *r0 = x + m->h0[oh] * is[2], *r1 = x + m->h1[oh] * is[2];
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            const float w1l = (float)m->wl[ow], w0l = (float)m->wl0[ow];
            const float *restrict a = r0 + m->w0[ow] * is[3], *restrict b = r0 + m->w1[ow] * is[3];
            const float *restrict c = r1 + m->w0[ow] * is[3], *restrict d = r1 + m->w1[ow] * is[3];
            float *restrict yo = y + oh * os[2] + ow * os[3];
            for (int64_t k = 0; k < C; k++)
                yo[k] = h0l * (w0l * a[k] + w1l * b[k]) + h1l * (w0l * c[k] + w1l * d[k]);
        }
    }
}

/* Image n of a channels_last op: transpose its operands to NCHW scratch,
 * run the plane kernels there, transpose the result back.  Plane by
 * plane on NHWC data would stride by C on every access. */
static int image_nhwc(sp_work *w, int64_t n, double *g, char *xin, char *xout, int64_t *xind)
{
    const tfl_spatial_op *op = w->op;
    const int64_t C = op->c, H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const size_t es = tfl_dtype_size(op->dtype);
    const int bwd = is_backward(op->kind);
    if (op->dtype == TFL_DT_F32 && op->kind == TFL_SPATIAL_MAXPOOL_FWD && H * W <= INT32_MAX) {
        maxpool_image_nhwc_f32(op, n, xin);              /* 2C words of scratch */
        return 1;
    }
    if (op->kind == TFL_SPATIAL_NEAREST_FWD) {
        nearest_image_nhwc(op, &w->m, n);
        return 1;
    }
    if (op->dtype == TFL_DT_F32 && op->kind == TFL_SPATIAL_BILINEAR_FWD) {
        bilinear_image_nhwc_f32(op, &w->m, n);
        return 1;
    }
    if (op->dtype == TFL_DT_F32 && op->kind == TFL_SPATIAL_AVGPOOL_FWD) {
        avgpool_image_nhwc_f32(op, n, (float *)xout);   /* C floats of scratch */
        return 1;
    }
    tfl_spatial_op lo = *op;
    lo.n = 1;
    lo.in = xin;
    lo.out = xout;
    lo.indices = op->indices ? xind : NULL;
    lo.accumulate = 0;
    lo.in_stride[0] = C * H * W; lo.in_stride[1] = H * W; lo.in_stride[2] = W; lo.in_stride[3] = 1;
    lo.out_stride[0] = C * OH * OW; lo.out_stride[1] = OH * OW; lo.out_stride[2] = OW;
    lo.out_stride[3] = 1;
    const int64_t li[3] = { H * W, W, 1 }, lq[3] = { OH * OW, OW, 1 };
    const int64_t ci[3] = { op->in_stride[1], op->in_stride[2], op->in_stride[3] };
    const int64_t co[3] = { op->out_stride[1], op->out_stride[2], op->out_stride[3] };
    char *inb = (char *)op->in + (size_t)(n * op->in_stride[0]) * es;
    char *outb = (char *)op->out + (size_t)(n * op->out_stride[0]) * es;
    int64_t *indb = op->indices ? op->indices + n * op->out_stride[0] : NULL;
    if (bwd) {
        copy_image(xout, lq, outb, co, C, OH, OW, es, 0, op->dtype);
        if (indb)
            copy_image(xind, lq, indb, co, C, OH, OW, 8, 0, op->dtype);
    } else {
        copy_image(xin, li, inb, ci, C, H, W, es, 0, op->dtype);
    }
    sp_work lw = { .op = &lo, .planes = C, .m = w->m };
    for (int64_t c = 0; c < C; c++)
        if (!plane_any(&lw, c, g, NULL))
            return 0;
    if (bwd) {
        copy_image(inb, ci, xin, li, C, H, W, es, op->accumulate, op->dtype);
    } else {
        copy_image(outb, co, xout, lq, C, OH, OW, es, 0, op->dtype);
        if (indb)
            copy_image(indb, co, xind, lq, C, OH, OW, 8, 0, op->dtype);
    }
    return 1;
}

static void sp_part(void *ctx, int part)
{
    sp_work *w = ctx;
    const tfl_spatial_op *op = w->op;
    const int64_t units = w->by_image ? op->n : w->planes;
    int64_t p0 = part * w->per_part, p1 = p0 + w->per_part;
    if (p1 > units) p1 = units;
    if (p0 >= p1)
        return;
    const int64_t HW = op->in_h * op->in_w, OHW = op->out_h * op->out_w;
    const size_t es = tfl_dtype_size(op->dtype);
    double *g = is_backward(op->kind) ? malloc(sizeof(double) * (size_t)HW) : NULL;
    /* at least 4 elements a channel: the direct max pool keeps 2C words there */
    char *xin = w->by_image ? malloc((size_t)(op->c * (HW > 4 ? HW : 4)) * es) : NULL;
    char *xout = w->by_image ? malloc((size_t)(op->c * OHW) * es) : NULL;
    int64_t *xind = w->by_image && op->indices ? malloc(sizeof(int64_t) * (size_t)(op->c * OHW)) : NULL;
    void *row = !w->by_image && maxpool_fast(op) ? malloc(8 * (size_t)op->out_w) : NULL;
    if ((is_backward(op->kind) && !g) || (w->by_image && (!xin || !xout || (op->indices && !xind)))) {
        atomic_store(&w->status, TFL_ERR_NOMEM);
    } else {
        for (int64_t p = p0; p < p1; p++) {
            int ok = w->by_image ? image_nhwc(w, p, g, xin, xout, xind) : plane_any(w, p, g, row);
            if (!ok) {
                atomic_store(&w->status, TFL_ERR_DEVICE);
                break;
            }
        }
    }
    free(g);
    free(xin);
    free(xout);
    free(xind);
    free(row);
}

/* ---------------------------------------------------------- index maps */

static void rmap_free(rmap *m)
{
    free(m->h0); free(m->h1); free(m->w0); free(m->w1);
    free(m->hl); free(m->wl); free(m->hl0); free(m->wl0);
    memset(m, 0, sizeof *m);
}

/* Nearest: forward maps output index -> source index (in a0); backward
 * maps input index i -> output range [a0[i], a1[i]). */
static void nearest_axis(const tfl_spatial_op *op, int64_t in, int64_t out, float s,
                         int64_t *a0, int64_t *a1)
{
    if (op->kind == TFL_SPATIAL_NEAREST_FWD) {
        for (int64_t o = 0; o < out; o++) {
            float f = op->exact ? floorf(((float)o + 0.5f) * s) : floorf((float)o * s);
            int64_t i;
            if (in == out)
                i = o;
            else if (!(f < (float)in))      /* also NaN: no undefined cast */
                i = in - 1;
            else
                i = f > 0 ? (int64_t)f : 0;
            a0[o] = i < in - 1 ? i : in - 1;
        }
        return;
    }
    for (int64_t i = 0; i <= in; i++) {
        /* nvcc contracts x * s - 0.5f into one fma: do the same */
        float f = ceilf(op->exact ? fmaf((float)i, s, -0.5f) : (float)i * s);
        int64_t o = !(f < (float)out) ? out : f > 0 ? (int64_t)f : 0;
        if (i < in) a0[i] = o;
        if (i > 0) a1[i - 1] = o;
    }
}

/* Bilinear taps of each output index along one axis: the source
 * coordinate in float as the float kernels compute it (nvcc contracts
 * s * (o + 0.5) - 0.5 into one fma), in double for float64. */
static void bilinear_axis(const tfl_spatial_op *op, int64_t in, int64_t out, double s,
                          int64_t *t0, int64_t *t1, double *l1, double *l0)
{
    const int dbl = op->dtype == TFL_DT_F64;
    for (int64_t o = 0; o < out; o++) {
        double r;
        if (dbl)
            r = op->align_corners ? s * (double)o : fma(s, (double)o + 0.5, -0.5);
        else
            r = op->align_corners ? (float)s * (float)o
                                  : fmaf((float)s, (float)o + 0.5f, -0.5f);
        if (!(r >= 0))              /* (negative only with a bad scale; NaN too) */
            r = 0;
        if (r > (double)in)         /* ditto: keep the cast defined */
            r = (double)in;
        int64_t i = (int64_t)r;
        if (i > in - 1) i = in - 1;
        t0[o] = i;
        t1[o] = i < in - 1 ? i + 1 : i;
        if (dbl) {
            l1[o] = r - (double)i;
            l0[o] = 1.0 - l1[o];
        } else {
            float f1 = (float)r - (float)i;
            l1[o] = f1;
            l0[o] = 1.0f - f1;
        }
    }
}

static int rmap_build(const tfl_spatial_op *op, rmap *m)
{
    memset(m, 0, sizeof *m);
    const int64_t H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    int bwd = op->kind == TFL_SPATIAL_NEAREST_BWD;
    int64_t nh = bwd ? H : OH, nw = bwd ? W : OW;
    m->h0 = malloc(sizeof(int64_t) * (size_t)nh);
    m->h1 = malloc(sizeof(int64_t) * (size_t)nh);
    m->w0 = malloc(sizeof(int64_t) * (size_t)nw);
    m->w1 = malloc(sizeof(int64_t) * (size_t)nw);
    m->hl = malloc(sizeof(double) * (size_t)nh);
    m->wl = malloc(sizeof(double) * (size_t)nw);
    m->hl0 = malloc(sizeof(double) * (size_t)nh);
    m->wl0 = malloc(sizeof(double) * (size_t)nw);
    if (!m->h0 || !m->h1 || !m->w0 || !m->w1 || !m->hl || !m->wl || !m->hl0 || !m->wl0) {
        rmap_free(m);
        return 0;
    }
    if (op->kind == TFL_SPATIAL_NEAREST_FWD || bwd) {
        nearest_axis(op, H, OH, (float)op->scale_h, m->h0, m->h1);
        nearest_axis(op, W, OW, (float)op->scale_w, m->w0, m->w1);
    } else {
        bilinear_axis(op, H, OH, op->scale_h, m->h0, m->h1, m->hl, m->hl0);
        bilinear_axis(op, W, OW, op->scale_w, m->w0, m->w1, m->wl, m->wl0);
    }
    return 1;
}

/* ----------------------------------------------------------------- roll */

typedef struct roll_work {
    const tfl_spatial_op *op;
    int64_t per_part;
} roll_work;

static void roll_part(void *ctx, int part)
{
    roll_work *w = ctx;
    const tfl_spatial_op *op = w->op;
    const size_t row = (size_t)op->inner * op->elem_size;
    const size_t head = (size_t)(op->size - op->start) * row, tail = (size_t)op->start * row;
    int64_t o0 = part * w->per_part, o1 = o0 + w->per_part;
    if (o1 > op->outer) o1 = op->outer;
    for (int64_t o = o0; o < o1; o++) {
        const char *src = (const char *)op->in + (size_t)o * (head + tail);
        char *dst = (char *)op->out + (size_t)o * (head + tail);
        memcpy(dst, src + tail, head);
        memcpy(dst + head, src, tail);
    }
}

static tfl_status host_roll(const tfl_spatial_op *op)
{
    int64_t total = op->outer * op->size * op->inner;
    if (total == 0)
        return TFL_OK;
    int parts = (size_t)total * op->elem_size >= (1u << 20) ? host_par_threads() * 2 : 1;
    if (parts > op->outer) parts = (int)op->outer;
    if (parts < 1) parts = 1;
    roll_work w = { .op = op, .per_part = (op->outer + parts - 1) / parts };
    host_parallel(parts, roll_part, &w);
    return TFL_OK;
}

/* ----------------------------------------------------------------- entry */

int host_spatial_supported(const tfl_spatial_op *op)
{
    if (!op)
        return 0;
    if (op->kind == TFL_SPATIAL_ROLL)
        return op->elem_size >= 1 && op->elem_size <= 16;
    return op->kind >= TFL_SPATIAL_MAXPOOL_FWD && op->kind <= TFL_SPATIAL_BILINEAR_BWD &&
           is_pool_dtype(op->dtype);
}

static int needs_indices(tfl_spatial_kind k)
{
    return k == TFL_SPATIAL_MAXPOOL_FWD || k == TFL_SPATIAL_ADAPTIVE_MAX_FWD ||
           k == TFL_SPATIAL_MAX_BWD;
}

tfl_status host_spatial(const tfl_spatial_op *op)
{
    if (!host_spatial_supported(op))
        return TFL_ERR_INVALID;
    if (op->kind == TFL_SPATIAL_ROLL) {
        if (op->outer < 0 || op->size < 0 || op->inner < 0 ||
            (op->size > 0 && (op->start < 0 || op->start >= op->size)) || !op->in || !op->out) {
            tfl_error("spatial roll: bad geometry");
            return TFL_ERR_INVALID;
        }
        return host_roll(op);
    }
    if (op->n < 0 || op->c < 0 || op->in_h < 0 || op->in_w < 0 || op->out_h < 0 || op->out_w < 0) {
        tfl_error("spatial op %d: negative size", (int)op->kind);
        return TFL_ERR_INVALID;
    }
    const int64_t planes = op->n * op->c;
    if (planes == 0 || op->out_h == 0 || op->out_w == 0 || op->in_h == 0 || op->in_w == 0)
        return TFL_OK;
    if (!op->in || !op->out || (needs_indices(op->kind) && !op->indices)) {
        tfl_error("spatial op %d: missing operand", (int)op->kind);
        return TFL_ERR_INVALID;
    }
    int pool = op->kind == TFL_SPATIAL_MAXPOOL_FWD || op->kind == TFL_SPATIAL_AVGPOOL_FWD ||
               op->kind == TFL_SPATIAL_AVGPOOL_BWD;
    if (pool && (op->kernel_h <= 0 || op->kernel_w <= 0 || op->stride_h <= 0 ||
                 op->stride_w <= 0 || op->pad_h < 0 || op->pad_w < 0 ||
                 (op->kind == TFL_SPATIAL_MAXPOOL_FWD &&
                  (op->dilation_h <= 0 || op->dilation_w <= 0)))) {
        tfl_error("spatial pooling: bad window (kernel %dx%d stride %dx%d pad %dx%d)",
                  op->kernel_h, op->kernel_w, op->stride_h, op->stride_w, op->pad_h, op->pad_w);
        return TFL_ERR_INVALID;
    }
    sp_work w = { .op = op, .planes = planes };
    atomic_init(&w.status, TFL_OK);
    int resize = op->kind >= TFL_SPATIAL_NEAREST_FWD && op->kind <= TFL_SPATIAL_BILINEAR_BWD;
    if (resize && !rmap_build(op, &w.m))
        return TFL_ERR_NOMEM;
    /* channels innermost on both sides: transpose image by image */
    w.by_image = op->c > 1 && op->in_stride[1] == 1 && op->out_stride[1] == 1;
    const int64_t units = w.by_image ? op->n : planes;
    int64_t work = planes * (op->in_h * op->in_w + op->out_h * op->out_w);
    int parts = work >= (1 << 15) ? host_par_threads() * 2 : 1;
    if (parts > units) parts = (int)units;
    w.per_part = (units + parts - 1) / parts;
    host_parallel(parts, sp_part, &w);
    rmap_free(&w.m);
    tfl_status s = (tfl_status)atomic_load(&w.status);
    if (s == TFL_ERR_DEVICE)
        tfl_error("spatial max-pool backward: an index is outside its %lldx%lld plane",
                  (long long)op->in_h, (long long)op->in_w);
    return s;
}

/*
 * ops_spatial.c - the host backend's native "spatial" ops (torchfl/ops/
 * spatial.h): 2-D max / average / adaptive pooling, nearest and bilinear
 * resizing with their backward passes, and roll.
 *
 * Work is split over planes (n * c), or images for channels_last data
 * (ops_spatial_nhwc.c); every plane is independent, so the parts never
 * write the same element.  float32 fast paths: ops_spatial_f32.c.  Tensors are addressed through
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
#include "backends/host/ops_spatial_internal.h"
#include "common/log.h"

static int is_pool_dtype(tfl_dtype dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_F16 || dt == TFL_DT_BF16;
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

/* ------------------------------------------------------- average pooling */

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

INLINE void bilinear_plane(const tfl_spatial_op *op, const rmap *m, int64_t p, tfl_dtype dt)
{
    if (dt == TFL_DT_F32 && op->in_stride[3] == 1 && op->out_stride[3] == 1) {
        hsp_bilinear_plane_f32(op, m, p);
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

/* One plane, any dtype; 0 on a bad max index.  row: scratch of
 * 2 * out_w words for the float32 max pool. */
int hsp_plane(sp_work *w, int64_t p, double *g, void *row)
{
    if (row && hsp_maxpool_fast(w->op)) {
        hsp_maxpool_plane_f32(w->op, p, row);
        return 1;
    }
    if (row && w->op->kind == TFL_SPATIAL_AVGPOOL_FWD && w->op->dtype == TFL_DT_F32 &&
        w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1) {
        hsp_avgpool_plane_f32(w->op, p, row);
        return 1;
    }
    if (w->op->kind == TFL_SPATIAL_MAX_BWD && w->op->dtype == TFL_DT_F32 &&
        w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1)
        return hsp_maxbwd_plane_f32(w->op, p);
    if ((w->op->kind == TFL_SPATIAL_AVGPOOL_BWD || w->op->kind == TFL_SPATIAL_ADAPTIVE_AVG_BWD) &&
        w->op->dtype == TFL_DT_F32 && w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1) {
        hsp_avgbwd_plane_f32(w->op, p);
        return 1;
    }
    if ((w->op->kind == TFL_SPATIAL_NEAREST_BWD || w->op->kind == TFL_SPATIAL_BILINEAR_BWD) &&
        w->op->dtype == TFL_DT_F32 && w->op->in_stride[3] == 1 && w->op->out_stride[3] == 1) {
        hsp_resizebwd_plane_f32(w->op, &w->m, p);
        return 1;
    }
    switch (w->op->dtype) {
    case TFL_DT_F64: return run_plane(w, p, g, TFL_DT_F64);
    case TFL_DT_F16: return run_plane(w, p, g, TFL_DT_F16);
    case TFL_DT_BF16: return run_plane(w, p, g, TFL_DT_BF16);
    default: return run_plane(w, p, g, TFL_DT_F32);
    }
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
    double *g = hsp_is_backward(op->kind) ? malloc(sizeof(double) * (size_t)HW) : NULL;
    /* at least 4 elements a channel: the direct max pool keeps 2C words there */
    char *xin = w->by_image ? malloc((size_t)(op->c * (HW > 4 ? HW : 4)) * es) : NULL;
    char *xout = w->by_image ? malloc((size_t)(op->c * OHW) * es) : NULL;
    int64_t *xind = w->by_image && op->indices ? malloc(sizeof(int64_t) * (size_t)(op->c * OHW)) : NULL;
    void *row = !w->by_image && (hsp_maxpool_fast(op) || op->kind == TFL_SPATIAL_AVGPOOL_FWD)
                    ? malloc(8 * (size_t)op->out_w) : NULL;
    if ((hsp_is_backward(op->kind) && !g) || (w->by_image && (!xin || !xout || (op->indices && !xind)))) {
        atomic_store(&w->status, TFL_ERR_NOMEM);
    } else {
        for (int64_t p = p0; p < p1; p++) {
            int ok = w->by_image ? hsp_image_nhwc(w, p, g, xin, xout, xind) : hsp_plane(w, p, g, row);
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
    if (op->kind >= TFL_SPATIAL_MAXPOOL3D_FWD && op->kind <= TFL_SPATIAL_NEAREST3D_BWD)
        return hsp_3d_supported(op);
    if (op->kind == TFL_SPATIAL_BICUBIC_FWD || op->kind == TFL_SPATIAL_BICUBIC_BWD)
        return hsp_bicubic_supported(op);
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
    if (op->kind >= TFL_SPATIAL_MAXPOOL3D_FWD && op->kind <= TFL_SPATIAL_NEAREST3D_BWD)
        return hsp_3d(op);
    if (op->kind == TFL_SPATIAL_BICUBIC_FWD || op->kind == TFL_SPATIAL_BICUBIC_BWD)
        return hsp_bicubic(op);
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
    int parts = work >= HOST_PAR_MIN_WORK ? host_par_threads() * 2 : 1;
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

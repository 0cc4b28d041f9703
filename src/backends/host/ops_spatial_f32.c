/*
 * ops_spatial_f32.c - float32 fast paths of the host "spatial" op, for
 * planes with unit w strides (NCHW): max pool one output row per window
 * tap, bilinear in float, and the backward passes scattered or gathered
 * in float straight into the gradient (the summation order per element is
 * the CUDA gather's, in float as the kernels).
 */
#include <math.h>
#include <string.h>

#include "backends/host/ops_spatial_internal.h"

/* Can the float32 NCHW max-pool fast path run this op? */
int hsp_maxpool_fast(const tfl_spatial_op *op)
{
    const int64_t *is = op->in_stride, *os = op->out_stride;
    return op->kind == TFL_SPATIAL_MAXPOOL_FWD && op->dtype == TFL_DT_F32 &&
           op->in_h * op->in_w <= INT32_MAX &&
           is[3] == 1 && is[2] == op->in_w && is[1] == op->in_h * op->in_w &&
           is[0] == op->c * is[1] &&
           os[3] == 1 && os[2] == op->out_w && os[1] == op->out_h * op->out_w &&
           os[0] == op->c * os[1];
}

/* Contiguous float32 NCHW max pool, one output row at a time: for each
 * window tap (h, j) one pass over the row's outputs, so the inner loop is
 * long and branch-free (a loop per 3x3 window mispredicts and does not
 * vectorise).  Taps come in row-major window order, so ties and NaNs
 * resolve as in the window loop.  row: OW floats + OW int32s. */
void hsp_maxpool_plane_f32(const tfl_spatial_op *op, int64_t p, void *row)
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

/* float32 average pool, planes with unit w strides, one output row at a
 * time and one pass per window tap as the max pool (sums in float, in
 * window order, as the CUDA kernel).  row: OW floats. */
void hsp_avgpool_plane_f32(const tfl_spatial_op *op, int64_t p, void *row)
{
    const int64_t H = op->in_h, W = op->in_w, OW = op->out_w, sw = op->stride_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    const float *restrict x = (const float *)op->in + plane_off(op, is, p);
    float *restrict y = (float *)op->out + plane_off(op, os, p);
    float *restrict acc = row;
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        int64_t hs, he, fh;
        int hok = avg_window(oh, op->kernel_h, op->stride_h, op->pad_h, H, &hs, &he, &fh);
        for (int64_t ow = 0; ow < OW; ow++)
            acc[ow] = 0;
        for (int64_t h = hs; hok && h < he; h++)
            for (int64_t j = 0; j < op->kernel_w; j++) {
                const int64_t off = j - op->pad_w;            /* w = ow * sw + off */
                int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
                int64_t hi = W - off <= 0 ? 0 : (W - off + sw - 1) / sw;
                if (hi > OW) hi = OW;
                const float *restrict xr = x + h * is[2] + off;
                for (int64_t ow = lo; ow < hi; ow++)
                    acc[ow] += xr[ow * sw];
            }
        float *restrict yo = y + oh * os[2];
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t ws, we, fw;
            int wok = avg_window(ow, op->kernel_w, op->stride_w, op->pad_w, W, &ws, &we, &fw);
            yo[ow] = hok && wok ? acc[ow] / (float)avg_divisor(op, fh, fw, hs, he, ws, we) : 0.0f;
        }
    }
}

/* float32 planes with unit w strides: float arithmetic, as the kernel */
void hsp_bilinear_plane_f32(const tfl_spatial_op *op, const rmap *m, int64_t p)
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

/* float32 max-pool backward on planes with unit w strides: scatter in
 * float straight into the gradient (output order, so each input sums its
 * outputs in the order the CUDA gather does); 0 on a bad index. */
int hsp_maxbwd_plane_f32(const tfl_spatial_op *op, int64_t p)
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
void hsp_avgbwd_plane_f32(const tfl_spatial_op *op, int64_t p)
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
void hsp_resizebwd_plane_f32(const tfl_spatial_op *op, const rmap *m, int64_t p)
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

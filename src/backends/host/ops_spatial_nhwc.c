/*
 * ops_spatial_nhwc.c - channels_last inputs of the host "spatial" op,
 * image by image: max/avg pool forward, nearest and bilinear forward and
 * float32 max-pool backward run directly over the C lanes of each pixel;
 * every other kind transposes the image to NCHW scratch, runs the plane
 * kernels there and transposes the result back (plane-wise access to
 * NHWC data would stride by C).
 */
#include <math.h>
#include <string.h>

#include "backends/host/ops_spatial_internal.h"

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
/* Direct channels_last float32 max-pool backward of image n (any
 * strides with unit c stride): each output pixel's C gradients go to
 * the C pixels its indices name, in output order (the CUDA gather's
 * summation order per element); 0 on a bad index. */
static int maxbwd_image_nhwc_f32(const tfl_spatial_op *op, int64_t n)
{
    const int64_t C = op->c, H = op->in_h, W = op->in_w;
    const int64_t *is = op->in_stride, *os = op->out_stride;
    float *gi = (float *)op->in + n * is[0];
    const float *go = (const float *)op->out + n * os[0];
    const int64_t *ix = op->indices + n * os[0];
    for (int64_t oh = 0; oh < op->out_h; oh++)
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            const int64_t *ip = ix + oh * os[2] + ow * os[3];
            for (int64_t c = 0; c < C; c++)
                if (ip[c] < 0 || ip[c] >= H * W)
                    return 0;
        }
    if (!op->accumulate)
        for (int64_t h = 0; h < H; h++)
            for (int64_t w = 0; w < W; w++)
                memset(gi + h * is[2] + w * is[3], 0, sizeof(float) * (size_t)C);
    for (int64_t oh = 0; oh < op->out_h; oh++)
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            const int64_t *restrict ip = ix + oh * os[2] + ow * os[3];
            const float *restrict gp = go + oh * os[2] + ow * os[3];
            for (int64_t c = 0; c < C; c++) {
                const int64_t k = ip[c];
                gi[(k / W) * is[2] + (k % W) * is[3] + c] += gp[c];
            }
        }
    return 1;
}

int hsp_image_nhwc(sp_work *w, int64_t n, double *g, char *xin, char *xout, int64_t *xind)
{
    const tfl_spatial_op *op = w->op;
    const int64_t C = op->c, H = op->in_h, W = op->in_w, OH = op->out_h, OW = op->out_w;
    const size_t es = tfl_dtype_size(op->dtype);
    const int bwd = hsp_is_backward(op->kind);
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
    if (op->dtype == TFL_DT_F32 && op->kind == TFL_SPATIAL_MAX_BWD)
        return maxbwd_image_nhwc_f32(op, n);
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
        if (!hsp_plane(&lw, c, g, NULL))
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

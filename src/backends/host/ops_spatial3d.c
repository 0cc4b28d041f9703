/*
 * ops_spatial3d.c - the host backend's 3-D spatial ops (torchfl/ops/
 * spatial.h): 3-D max pooling (TFL_SPATIAL_MAXPOOL3D_FWD) and its
 * backward (TFL_SPATIAL_MAX3D_BWD), 3-D average pooling and its adjoint
 * (TFL_SPATIAL_AVGPOOL3D_FWD/BWD), trilinear resize and its adjoint
 * (TFL_SPATIAL_TRILINEAR_FWD/BWD), nearest 3-D resize and its backward
 * (TFL_SPATIAL_NEAREST3D_FWD/BWD); float32 and float64.
 *
 * Work is split over volumes (n * c); each volume's input and output are
 * touched by one part only, so the parts never write the same element.
 * Tensors are addressed through element strides (n, c, d, h, w), so
 * NCDHW and channels_last (NDHWC) data are one loop.
 */
#include <math.h>
#include <stdatomic.h>

#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_spatial_internal.h"
#include "common/log.h"

typedef struct p3_work {
    const tfl_spatial_op *op;
    int64_t vols, per_part;
    atomic_int status;
} p3_work;

/* Window start/end along one axis, as the CUDA kernel clips it: end =
 * min(start + (k-1)*dil + 1, size); a negative start moved up by whole
 * dilation steps. */
static inline void window(int64_t o, int k, int s, int pad, int dil, int64_t size,
                          int64_t *b, int64_t *e)
{
    int64_t start = o * s - pad;
    int64_t end = start + (int64_t)(k - 1) * dil + 1;
    if (end > size)
        end = size;
    while (start < 0)
        start += dil;
    *b = start;
    *e = end;
}

static void maxpool3d_vol(const tfl_spatial_op *op, int64_t v)
{
    const tfl_dtype dt = op->dtype;
    const int64_t n = v / op->c, c = v % op->c;
    const int64_t ib = n * op->in_stride[0] + c * op->in_stride[1];
    const int64_t ob = n * op->out_stride[0] + c * op->out_stride[1];
    for (int64_t od = 0; od < op->out_d; od++) {
        int64_t d0, d1;
        window(od, op->kernel_d, op->stride_d, op->pad_d, op->dilation_d, op->in_d, &d0, &d1);
        for (int64_t oh = 0; oh < op->out_h; oh++) {
            int64_t h0, h1;
            window(oh, op->kernel_h, op->stride_h, op->pad_h, op->dilation_h, op->in_h, &h0, &h1);
            for (int64_t ow = 0; ow < op->out_w; ow++) {
                int64_t w0, w1;
                window(ow, op->kernel_w, op->stride_w, op->pad_w, op->dilation_w, op->in_w,
                       &w0, &w1);
                /* argmax starts at the window's first element even when
                 * the window is empty, as the kernel does */
                int64_t arg = (d0 * op->in_h + h0) * op->in_w + w0;
                double best = -INFINITY;
                for (int64_t d = d0; d < d1; d += op->dilation_d)
                    for (int64_t h = h0; h < h1; h += op->dilation_h)
                        for (int64_t w = w0; w < w1; w += op->dilation_w) {
                            double x = ld(op->in, ib + d * op->in_stride_d +
                                          h * op->in_stride[2] + w * op->in_stride[3], dt);
                            if (best < x || isnan(x)) {
                                best = x;
                                arg = (d * op->in_h + h) * op->in_w + w;
                            }
                        }
                int64_t o = ob + od * op->out_stride_d + oh * op->out_stride[2] +
                            ow * op->out_stride[3];
                st(op->out, o, dt, best);
                op->indices[o] = arg;
            }
        }
    }
}

/* Scatter-add of one volume's output gradient; 0 on a bad index. */
static int max3d_bwd_vol(const tfl_spatial_op *op, int64_t v)
{
    const tfl_dtype dt = op->dtype;
    const int64_t n = v / op->c, c = v % op->c;
    const int64_t ib = n * op->in_stride[0] + c * op->in_stride[1];
    const int64_t ob = n * op->out_stride[0] + c * op->out_stride[1];
    const int64_t hw = op->in_h * op->in_w, vol = op->in_d * hw;
    if (!op->accumulate)
        for (int64_t d = 0; d < op->in_d; d++)
            for (int64_t h = 0; h < op->in_h; h++)
                for (int64_t w = 0; w < op->in_w; w++)
                    st(op->in, ib + d * op->in_stride_d + h * op->in_stride[2] +
                       w * op->in_stride[3], dt, 0.0);
    for (int64_t od = 0; od < op->out_d; od++)
        for (int64_t oh = 0; oh < op->out_h; oh++)
            for (int64_t ow = 0; ow < op->out_w; ow++) {
                int64_t o = ob + od * op->out_stride_d + oh * op->out_stride[2] +
                            ow * op->out_stride[3];
                int64_t idx = op->indices[o];
                if (idx == -1)
                    continue;
                if (idx < 0 || idx >= vol)
                    return 0;
                int64_t i = ib + (idx / hw) * op->in_stride_d +
                            ((idx % hw) / op->in_w) * op->in_stride[2] +
                            (idx % op->in_w) * op->in_stride[3];
                st(op->in, i, dt, ld(op->in, i, dt) + ld(op->out, o, dt));
            }
    return 1;
}

/* Average-pool window along one axis: [b, e) clipped to the image and
 * the unclipped extent (for count_include_pad), as the CUDA kernel. */
static inline void avg_window3(int64_t o, int k, int s, int pad, int64_t size, int64_t *b,
                               int64_t *e, int64_t *full)
{
    int64_t start = o * s - pad;
    int64_t end = start + k;
    if (end > size + pad)
        end = size + pad;
    *full = end - start;
    *b = start < 0 ? 0 : start;
    *e = end > size ? size : end;
}

/* Forward (fwd = 1) or adjoint scatter (fwd = 0) of one volume. */
static void avgpool3d_vol(const tfl_spatial_op *op, int64_t v, int fwd)
{
    const tfl_dtype dt = op->dtype;
    const int64_t n = v / op->c, c = v % op->c;
    const int64_t ib = n * op->in_stride[0] + c * op->in_stride[1];
    const int64_t ob = n * op->out_stride[0] + c * op->out_stride[1];
    if (!fwd && !op->accumulate)
        for (int64_t d = 0; d < op->in_d; d++)
            for (int64_t h = 0; h < op->in_h; h++)
                for (int64_t w = 0; w < op->in_w; w++)
                    st(op->in, ib + d * op->in_stride_d + h * op->in_stride[2] +
                       w * op->in_stride[3], dt, 0.0);
    for (int64_t od = 0; od < op->out_d; od++) {
        int64_t d0, d1, fd;
        avg_window3(od, op->kernel_d, op->stride_d, op->pad_d, op->in_d, &d0, &d1, &fd);
        for (int64_t oh = 0; oh < op->out_h; oh++) {
            int64_t h0, h1, fh;
            avg_window3(oh, op->kernel_h, op->stride_h, op->pad_h, op->in_h, &h0, &h1, &fh);
            for (int64_t ow = 0; ow < op->out_w; ow++) {
                int64_t w0, w1, fw;
                avg_window3(ow, op->kernel_w, op->stride_w, op->pad_w, op->in_w, &w0, &w1, &fw);
                int64_t o = ob + od * op->out_stride_d + oh * op->out_stride[2] +
                            ow * op->out_stride[3];
                int empty = d0 >= d1 || h0 >= h1 || w0 >= w1;
                double div = op->divisor_override ? (double)op->divisor_override
                             : op->count_include_pad ? (double)(fd * fh * fw)
                             : (double)((d1 - d0) * (h1 - h0) * (w1 - w0));
                if (fwd) {
                    double sum = 0;
                    for (int64_t d = d0; d < d1; d++)
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++)
                                sum += ld(op->in, ib + d * op->in_stride_d +
                                          h * op->in_stride[2] + w * op->in_stride[3], dt);
                    st(op->out, o, dt, empty ? 0.0 : sum / div);
                } else if (!empty) {
                    double g = ld(op->out, o, dt) / div;
                    for (int64_t d = d0; d < d1; d++)
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++) {
                                int64_t i = ib + d * op->in_stride_d + h * op->in_stride[2] +
                                            w * op->in_stride[3];
                                st(op->in, i, dt, ld(op->in, i, dt) + g);
                            }
                }
            }
        }
    }
}

/* One axis of a linear resize: taps i0, i0 + step, weights l0, l1, as
 * area_pixel_compute_source_index (non-cubic) in the kernel's accscalar
 * (float, or double for float64; nvcc contracts s * (o + 0.5) - 0.5 into
 * one fma, so do we). */
typedef struct lin_tap { int64_t i0, step; double l0, l1; } lin_tap;

static lin_tap lin_axis(int64_t o, double scale, int ac, int64_t in, tfl_dtype dt)
{
    lin_tap t;
    if (dt == TFL_DT_F64) {
        double r = ac ? scale * (double)o : fma(scale, (double)o + 0.5, -0.5);
        if (!ac && r < 0)
            r = 0;
        t.i0 = (int64_t)r;
        t.l1 = r - (double)t.i0;
        t.l0 = 1.0 - t.l1;
    } else {
        float sf = (float)scale;
        float r = ac ? sf * (float)o : fmaf(sf, (float)o + 0.5f, -0.5f);
        if (!ac && r < 0)
            r = 0;
        t.i0 = (int64_t)r;
        float l1 = r - (float)t.i0;
        t.l1 = l1;
        t.l0 = 1.0f - l1;
    }
    if (t.i0 > in - 1)              /* a scale that overshoots: stay inside */
        t.i0 = in - 1;
    t.step = t.i0 < in - 1 ? 1 : 0;
    return t;
}

static void trilinear_vol(const tfl_spatial_op *op, int64_t v, int fwd)
{
    const tfl_dtype dt = op->dtype;
    const int64_t n = v / op->c, c = v % op->c;
    const int64_t ib = n * op->in_stride[0] + c * op->in_stride[1];
    const int64_t ob = n * op->out_stride[0] + c * op->out_stride[1];
    if (!fwd && !op->accumulate)
        for (int64_t d = 0; d < op->in_d; d++)
            for (int64_t h = 0; h < op->in_h; h++)
                for (int64_t w = 0; w < op->in_w; w++)
                    st(op->in, ib + d * op->in_stride_d + h * op->in_stride[2] +
                       w * op->in_stride[3], dt, 0.0);
    for (int64_t od = 0; od < op->out_d; od++) {
        lin_tap td = lin_axis(od, op->scale_d, op->align_corners, op->in_d, dt);
        for (int64_t oh = 0; oh < op->out_h; oh++) {
            lin_tap th = lin_axis(oh, op->scale_h, op->align_corners, op->in_h, dt);
            for (int64_t ow = 0; ow < op->out_w; ow++) {
                lin_tap tw = lin_axis(ow, op->scale_w, op->align_corners, op->in_w, dt);
                int64_t o = ob + od * op->out_stride_d + oh * op->out_stride[2] +
                            ow * op->out_stride[3];
                const int64_t dd[2] = { td.i0, td.i0 + td.step };
                const int64_t hh[2] = { th.i0, th.i0 + th.step };
                const int64_t ww[2] = { tw.i0, tw.i0 + tw.step };
                const double ld_[2] = { td.l0, td.l1 }, lh[2] = { th.l0, th.l1 },
                             lw[2] = { tw.l0, tw.l1 };
                double g = fwd ? 0.0 : ld(op->out, o, dt), val = 0.0;
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        for (int e = 0; e < 2; e++) {
                            int64_t i = ib + dd[a] * op->in_stride_d + hh[b] * op->in_stride[2] +
                                        ww[e] * op->in_stride[3];
                            double wgt = ld_[a] * lh[b] * lw[e];
                            if (fwd)
                                val += wgt * ld(op->in, i, dt);
                            else
                                st(op->in, i, dt, ld(op->in, i, dt) + wgt * g);
                        }
                if (fwd)
                    st(op->out, o, dt, val);
            }
        }
    }
}

/* Nearest source index of output o (UpSample.cuh's float mapping, as
 * ops_spatial.c's nearest_axis: identity when the sizes agree). */
static inline int64_t nn_src(int64_t o, float scale, int exact, int64_t in, int64_t out)
{
    if (in == out)
        return o;
    float r = exact ? floorf(((float)o + 0.5f) * scale) : floorf((float)o * scale);
    if (!(r < (float)in))
        return in - 1;
    return r > 0 ? (int64_t)r : 0;
}

/* First output index gathered by input i in the backward mapping (nvcc
 * contracts i * s - 0.5f into one fma). */
static inline int64_t nn_bw(int64_t i, float scale, int exact, int64_t out)
{
    float r = ceilf(exact ? fmaf((float)i, scale, -0.5f) : (float)i * scale);
    if (!(r < (float)out))
        return out;
    return r > 0 ? (int64_t)r : 0;
}

static void nearest3d_vol(const tfl_spatial_op *op, int64_t v, int fwd)
{
    const tfl_dtype dt = op->dtype;
    const int64_t n = v / op->c, c = v % op->c;
    const int64_t ib = n * op->in_stride[0] + c * op->in_stride[1];
    const int64_t ob = n * op->out_stride[0] + c * op->out_stride[1];
    const float sd = (float)op->scale_d, sh = (float)op->scale_h, sw = (float)op->scale_w;
    if (fwd) {
        for (int64_t od = 0; od < op->out_d; od++) {
            int64_t id = nn_src(od, sd, op->exact, op->in_d, op->out_d);
            for (int64_t oh = 0; oh < op->out_h; oh++) {
                int64_t ih = nn_src(oh, sh, op->exact, op->in_h, op->out_h);
                for (int64_t ow = 0; ow < op->out_w; ow++) {
                    int64_t iw = nn_src(ow, sw, op->exact, op->in_w, op->out_w);
                    st(op->out, ob + od * op->out_stride_d + oh * op->out_stride[2] +
                       ow * op->out_stride[3], dt,
                       ld(op->in, ib + id * op->in_stride_d + ih * op->in_stride[2] +
                          iw * op->in_stride[3], dt));
                }
            }
        }
        return;
    }
    for (int64_t id = 0; id < op->in_d; id++) {
        int64_t d0 = nn_bw(id, sd, op->exact, op->out_d), d1 = nn_bw(id + 1, sd, op->exact, op->out_d);
        for (int64_t ih = 0; ih < op->in_h; ih++) {
            int64_t h0 = nn_bw(ih, sh, op->exact, op->out_h);
            int64_t h1 = nn_bw(ih + 1, sh, op->exact, op->out_h);
            for (int64_t iw = 0; iw < op->in_w; iw++) {
                int64_t w0 = nn_bw(iw, sw, op->exact, op->out_w);
                int64_t w1 = nn_bw(iw + 1, sw, op->exact, op->out_w);
                double sum = 0;
                for (int64_t d = d0; d < d1; d++)
                    for (int64_t h = h0; h < h1; h++)
                        for (int64_t w = w0; w < w1; w++)
                            sum += ld(op->out, ob + d * op->out_stride_d + h * op->out_stride[2] +
                                      w * op->out_stride[3], dt);
                int64_t i = ib + id * op->in_stride_d + ih * op->in_stride[2] + iw * op->in_stride[3];
                st(op->in, i, dt, op->accumulate ? ld(op->in, i, dt) + sum : sum);
            }
        }
    }
}

static void p3_part(void *ctx, int part)
{
    p3_work *w = ctx;
    int64_t b = (int64_t)part * w->per_part, e = b + w->per_part;
    if (e > w->vols)
        e = w->vols;
    for (int64_t v = b; v < e; v++) {
        if (w->op->kind == TFL_SPATIAL_MAXPOOL3D_FWD) {
            maxpool3d_vol(w->op, v);
        } else if (w->op->kind == TFL_SPATIAL_AVGPOOL3D_FWD ||
                   w->op->kind == TFL_SPATIAL_AVGPOOL3D_BWD) {
            avgpool3d_vol(w->op, v, w->op->kind == TFL_SPATIAL_AVGPOOL3D_FWD);
        } else if (w->op->kind == TFL_SPATIAL_TRILINEAR_FWD ||
                   w->op->kind == TFL_SPATIAL_TRILINEAR_BWD) {
            trilinear_vol(w->op, v, w->op->kind == TFL_SPATIAL_TRILINEAR_FWD);
        } else if (w->op->kind == TFL_SPATIAL_NEAREST3D_FWD ||
                   w->op->kind == TFL_SPATIAL_NEAREST3D_BWD) {
            nearest3d_vol(w->op, v, w->op->kind == TFL_SPATIAL_NEAREST3D_FWD);
        } else if (!max3d_bwd_vol(w->op, v)) {
            atomic_store(&w->status, TFL_ERR_DEVICE);
            return;
        }
    }
}

int hsp_3d_supported(const tfl_spatial_op *op)
{
    return op->kind >= TFL_SPATIAL_MAXPOOL3D_FWD && op->kind <= TFL_SPATIAL_NEAREST3D_BWD &&
           (op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F64);
}

tfl_status hsp_3d(const tfl_spatial_op *op)
{
    if (op->n < 0 || op->c < 0 || op->in_d < 0 || op->in_h < 0 || op->in_w < 0 ||
        op->out_d < 0 || op->out_h < 0 || op->out_w < 0) {
        tfl_error("spatial 3-D op %d: negative size", (int)op->kind);
        return TFL_ERR_INVALID;
    }
    const int64_t vols = op->n * op->c;
    if (vols == 0 || op->out_d * op->out_h * op->out_w == 0 ||
        op->in_d * op->in_h * op->in_w == 0)
        return TFL_OK;
    int avg = op->kind == TFL_SPATIAL_AVGPOOL3D_FWD || op->kind == TFL_SPATIAL_AVGPOOL3D_BWD;
    int tri = op->kind == TFL_SPATIAL_TRILINEAR_FWD || op->kind == TFL_SPATIAL_TRILINEAR_BWD ||
              op->kind == TFL_SPATIAL_NEAREST3D_FWD || op->kind == TFL_SPATIAL_NEAREST3D_BWD;
    if (!op->in || !op->out || (!avg && !tri && !op->indices)) {
        tfl_error("spatial 3-D op %d: missing operand", (int)op->kind);
        return TFL_ERR_INVALID;
    }
    if (tri && !(op->scale_d >= 0 && op->scale_h >= 0 && op->scale_w >= 0 &&
                isfinite(op->scale_d) && isfinite(op->scale_h) && isfinite(op->scale_w))) {
        tfl_error("3-D resize: bad scales");
        return TFL_ERR_INVALID;
    }
    if (avg && (op->kernel_d <= 0 || op->kernel_h <= 0 || op->kernel_w <= 0 ||
                op->stride_d <= 0 || op->stride_h <= 0 || op->stride_w <= 0 || op->pad_d < 0 ||
                op->pad_h < 0 || op->pad_w < 0)) {
        tfl_error("avg_pool3d: bad window (kernel %dx%dx%d stride %dx%dx%d pad %dx%dx%d)",
                  op->kernel_d, op->kernel_h, op->kernel_w, op->stride_d, op->stride_h,
                  op->stride_w, op->pad_d, op->pad_h, op->pad_w);
        return TFL_ERR_INVALID;
    }
    if (op->kind == TFL_SPATIAL_MAXPOOL3D_FWD &&
        (op->kernel_d <= 0 || op->kernel_h <= 0 || op->kernel_w <= 0 || op->stride_d <= 0 ||
         op->stride_h <= 0 || op->stride_w <= 0 || op->dilation_d <= 0 ||
         op->dilation_h <= 0 || op->dilation_w <= 0)) {
        tfl_error("max_pool3d: bad window (kernel %dx%dx%d stride %dx%dx%d dilation %dx%dx%d)",
                  op->kernel_d, op->kernel_h, op->kernel_w, op->stride_d, op->stride_h,
                  op->stride_w, op->dilation_d, op->dilation_h, op->dilation_w);
        return TFL_ERR_INVALID;
    }
    p3_work w = { .op = op, .vols = vols };
    atomic_init(&w.status, TFL_OK);
    int64_t work = vols * (op->in_d * op->in_h * op->in_w + op->out_d * op->out_h * op->out_w);
    int parts = work >= HOST_PAR_MIN_WORK ? host_par_threads() * 2 : 1;
    if (parts > vols)
        parts = (int)vols;
    w.per_part = (vols + parts - 1) / parts;
    host_parallel(parts, p3_part, &w);
    tfl_status s = (tfl_status)atomic_load(&w.status);
    if (s == TFL_ERR_DEVICE)
        tfl_error("max_pool3d backward: an index is outside its %lldx%lldx%lld volume",
                  (long long)op->in_d, (long long)op->in_h, (long long)op->in_w);
    return s;
}

/*
 * ops_spatial_bicubic.c - the host backend's bicubic 2-D resize and its
 * adjoint (TFL_SPATIAL_BICUBIC_FWD/BWD of torchfl/ops/spatial.h).
 *
 * PyTorch's cubic convolution (A = -0.75) over the 4 x 4 taps around the
 * source coordinate, taps clamped to the image.  Work is split over
 * planes (n * c): each plane's input and output belong to one part.
 */
#include <math.h>

#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_spatial_internal.h"
#include "common/log.h"

/* The four tap weights for fractional offset t, in float or double as
 * the kernel's accscalar. */
static void cubic_coeffs(double t, int dbl, double *w)
{
    const double A = -0.75;
    if (dbl) {
        double x1 = t, x2 = 1.0 - t;
        w[0] = ((A * (x1 + 1) - 5 * A) * (x1 + 1) + 8 * A) * (x1 + 1) - 4 * A;
        w[1] = ((A + 2) * x1 - (A + 3)) * x1 * x1 + 1;
        w[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
        w[3] = ((A * (x2 + 1) - 5 * A) * (x2 + 1) + 8 * A) * (x2 + 1) - 4 * A;
    } else {
        const float a = -0.75f;
        float x1 = (float)t, x2 = 1.0f - (float)t;
        w[0] = ((a * (x1 + 1) - 5 * a) * (x1 + 1) + 8 * a) * (x1 + 1) - 4 * a;
        w[1] = ((a + 2) * x1 - (a + 3)) * x1 * x1 + 1;
        w[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
        w[3] = ((a * (x2 + 1) - 5 * a) * (x2 + 1) + 8 * a) * (x2 + 1) - 4 * a;
    }
}

/* Source coordinate of output o: floor and fraction. */
static void cubic_src(int64_t o, double scale, int ac, int dbl, int64_t *i0, double *t)
{
    double r;
    if (dbl) {
        r = ac ? scale * (double)o : fma(scale, (double)o + 0.5, -0.5);
        double f = floor(r);
        *i0 = (int64_t)f;
        *t = r - f;
    } else {
        float rf = ac ? (float)scale * (float)o : fmaf((float)scale, (float)o + 0.5f, -0.5f);
        float f = floorf(rf);
        *i0 = (int64_t)f;
        *t = (double)(rf - f);
    }
}

static inline int64_t clampi(int64_t v, int64_t n)
{
    return v < 0 ? 0 : v > n - 1 ? n - 1 : v;
}

typedef struct bc_work {
    const tfl_spatial_op *op;
    int64_t planes, per_part;
} bc_work;

static void bicubic_plane(const tfl_spatial_op *op, int64_t p)
{
    const tfl_dtype dt = op->dtype;
    const int dbl = dt == TFL_DT_F64, fwd = op->kind == TFL_SPATIAL_BICUBIC_FWD;
    const int64_t n = p / op->c, c = p % op->c;
    const int64_t ib = n * op->in_stride[0] + c * op->in_stride[1];
    const int64_t ob = n * op->out_stride[0] + c * op->out_stride[1];
    const int copy = op->in_h == op->out_h && op->in_w == op->out_w;
    if (!fwd && !op->accumulate)
        for (int64_t h = 0; h < op->in_h; h++)
            for (int64_t w = 0; w < op->in_w; w++)
                st(op->in, ib + h * op->in_stride[2] + w * op->in_stride[3], dt, 0.0);
    for (int64_t oh = 0; oh < op->out_h; oh++) {
        int64_t y0;
        double ty, wy[4];
        cubic_src(oh, op->scale_h, op->align_corners, dbl, &y0, &ty);
        cubic_coeffs(ty, dbl, wy);
        for (int64_t ow = 0; ow < op->out_w; ow++) {
            int64_t o = ob + oh * op->out_stride[2] + ow * op->out_stride[3];
            if (copy) {
                int64_t i = ib + oh * op->in_stride[2] + ow * op->in_stride[3];
                if (fwd)
                    st(op->out, o, dt, ld(op->in, i, dt));
                else
                    st(op->in, i, dt, ld(op->in, i, dt) + ld(op->out, o, dt));
                continue;
            }
            int64_t x0;
            double tx, wx[4];
            cubic_src(ow, op->scale_w, op->align_corners, dbl, &x0, &tx);
            cubic_coeffs(tx, dbl, wx);
            double g = fwd ? 0.0 : ld(op->out, o, dt), val = 0.0;
            for (int j = 0; j < 4; j++) {
                int64_t row = ib + clampi(y0 - 1 + j, op->in_h) * op->in_stride[2];
                double rowv = 0.0;
                for (int k = 0; k < 4; k++) {
                    int64_t i = row + clampi(x0 - 1 + k, op->in_w) * op->in_stride[3];
                    if (fwd)
                        rowv += wx[k] * ld(op->in, i, dt);
                    else
                        st(op->in, i, dt, ld(op->in, i, dt) + g * wy[j] * wx[k]);
                }
                val += wy[j] * rowv;
            }
            if (fwd)
                st(op->out, o, dt, val);
        }
    }
}

static void bc_part(void *ctx, int part)
{
    bc_work *w = ctx;
    int64_t b = (int64_t)part * w->per_part, e = b + w->per_part;
    if (e > w->planes)
        e = w->planes;
    for (int64_t p = b; p < e; p++)
        bicubic_plane(w->op, p);
}

int hsp_bicubic_supported(const tfl_spatial_op *op)
{
    return (op->kind == TFL_SPATIAL_BICUBIC_FWD || op->kind == TFL_SPATIAL_BICUBIC_BWD) &&
           (op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F64);
}

tfl_status hsp_bicubic(const tfl_spatial_op *op)
{
    if (op->n < 0 || op->c < 0 || op->in_h < 0 || op->in_w < 0 || op->out_h < 0 ||
        op->out_w < 0) {
        tfl_error("upsample_bicubic2d: negative size");
        return TFL_ERR_INVALID;
    }
    const int64_t planes = op->n * op->c;
    if (planes == 0 || op->in_h * op->in_w == 0 || op->out_h * op->out_w == 0)
        return TFL_OK;
    if (!op->in || !op->out || !(isfinite(op->scale_h) && isfinite(op->scale_w)) ||
        fabs(op->scale_h) > 1e9 || fabs(op->scale_w) > 1e9) {
        tfl_error("upsample_bicubic2d: missing operand or bad scales");
        return TFL_ERR_INVALID;
    }
    bc_work w = { .op = op, .planes = planes };
    int64_t work = planes * op->out_h * op->out_w * 16;
    int parts = work >= HOST_PAR_MIN_WORK ? host_par_threads() * 2 : 1;
    if (parts > planes)
        parts = (int)planes;
    w.per_part = (planes + parts - 1) / parts;
    host_parallel(parts, bc_part, &w);
    return TFL_OK;
}

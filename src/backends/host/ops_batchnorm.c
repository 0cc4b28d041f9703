/*
 * ops_batchnorm.c - the host backend's native "batchnorm" op: batch norm
 * statistics / normalisation / backward, group norm's parameter kernels
 * and the pointwise maps around them (torchfl/ops/batchnorm.h), float32.
 *
 * Per-channel sums are accumulated in double (two passes for the
 * variance): closer to the exact value than the GPU's float Welford, so
 * results agree with any float reference to rounding.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/gemm_internal.h"
#include "backends/host/host_ops.h"
#include "backends/host/ops_elementwise_fp16.h"
#include "common/log.h"

static int fp_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

int host_batchnorm_supported(const tfl_batchnorm_op *op)
{
    if (!op || op->kind < TFL_BN_STATS || op->kind > TFL_BN_MAP)
        return 0;
    if (op->kind >= TFL_BN_GN_FUSED_PARAMS && op->kind <= TFL_BN_GN_GAMMA_BETA)
        return op->dtype == TFL_DT_F32;
    if (op->kind == TFL_BN_MAP) {
        for (int k = 0; k < TFL_BN_MAP_OPERANDS; k++)
            if (!fp_ok(op->map_dtype[k]))
                return 0;
        return op->dtype == TFL_DT_F32;
    }
    return fp_ok(op->dtype) && fp_ok(op->stat_dtype);
}

/* Element [i][ch][k] of a [n][c][l] view with element strides s. */
#define AT3(p, s, i, ch, k) ((p)[(i) * (s)[0] + (ch) * (s)[1] + (k) * (s)[2]])

/* Sum of x over channel ch. */
static double chan_sum(const tfl_batchnorm_op *op, const float *x, const int64_t *sx, int64_t ch)
{
    double s = 0.0;
    for (int64_t i = 0; i < op->n; i++) {
        const float *row = x + i * sx[0] + ch * sx[1];
        if (sx[2] == 1)
            for (int64_t k = 0; k < op->l; k++)
                s += row[k];
        else
            for (int64_t k = 0; k < op->l; k++)
                s += row[k * sx[2]];
    }
    return s;
}

static void bn_stats(const tfl_batchnorm_op *op)
{
    const float *x = op->x;
    const double cnt = (double)(op->n * op->l);
    for (int64_t ch = 0; ch < op->c; ch++) {
        double mean = chan_sum(op, x, op->x_stride, ch) / cnt;
        double ss = 0.0;
        for (int64_t i = 0; i < op->n; i++)
            for (int64_t k = 0; k < op->l; k++) {
                double d = AT3(x, op->x_stride, i, ch, k) - mean;
                ss += d * d;
            }
        double var = ss / cnt;
        if (op->mean)
            op->mean[ch] = (float)mean;
        if (!op->out2)
            continue;
        double v = var;
        if (op->stats_mode == TFL_BN_STATS_INVSTD)
            v = (var == 0.0 && op->eps == 0.0) ? 0.0 : 1.0 / sqrt(var + op->eps);
        else if (op->stats_mode == TFL_BN_STATS_RSTD)
            v = 1.0 / sqrt((double)(float)var + (double)(float)op->eps);
        op->out2[ch] = (float)v;
    }
}

static void bn_apply(const tfl_batchnorm_op *op)
{
    const float *x = op->x;
    float *y = op->y;
    for (int64_t ch = 0; ch < op->c; ch++) {
        float s = op->from_var ? (float)(1.0 / sqrt((double)op->invstd[ch] + op->eps)) : op->invstd[ch];
        float m = op->mean[ch];
        float g = op->weight ? op->weight[ch] : 1.0f;
        float b = op->bias ? op->bias[ch] : 0.0f;
        for (int64_t i = 0; i < op->n; i++) {
            const float *xr = x + i * op->x_stride[0] + ch * op->x_stride[1];
            float *yr = y + i * op->y_stride[0] + ch * op->y_stride[1];
            const int64_t sx = op->x_stride[2], sy = op->y_stride[2];
            if (sx == 1 && sy == 1)
                for (int64_t k = 0; k < op->l; k++)
                    yr[k] = g * (xr[k] - m) * s + b;
            else
                for (int64_t k = 0; k < op->l; k++)
                    yr[k * sy] = g * (xr[k * sx] - m) * s + b;
        }
    }
}

/* S1 = sum dy, S2 = sum dy * (x - mu) over channel ch. */
static void grad_sums(const tfl_batchnorm_op *op, int64_t ch, double mu, double *s1, double *s2)
{
    const float *x = op->x, *dy = op->dy;
    double a = 0.0, b = 0.0;
    for (int64_t i = 0; i < op->n; i++)
        for (int64_t k = 0; k < op->l; k++) {
            double g = AT3(dy, op->dy_stride, i, ch, k);
            a += g;
            b += g * (AT3(x, op->x_stride, i, ch, k) - mu);
        }
    *s1 = a;
    *s2 = b;
}

static void write_dx(const tfl_batchnorm_op *op, int64_t ch, float mdy, float m, float f1, float f2)
{
    const float *x = op->x, *dy = op->dy;
    float *dx = op->dx;
    for (int64_t i = 0; i < op->n; i++)
        for (int64_t k = 0; k < op->l; k++)
            AT3(dx, op->dx_stride, i, ch, k) =
                (AT3(dy, op->dy_stride, i, ch, k) - mdy - (AT3(x, op->x_stride, i, ch, k) - m) * f1) * f2;
}

static void bn_backward(const tfl_batchnorm_op *op)
{
    const double cnt = (double)(op->n * op->l);
    for (int64_t ch = 0; ch < op->c; ch++) {
        double mu, s;
        if (op->train) {
            mu = op->mean[ch];
            s = op->invstd[ch];
        } else {
            mu = op->running_mean[ch];
            s = (float)(1.0 / sqrt((double)op->running_var[ch] + op->eps));
        }
        double g = op->weight ? op->weight[ch] : 1.0;
        double s1, s2;
        grad_sums(op, ch, mu, &s1, &s2);
        if (op->dx) {
            if (op->train)
                write_dx(op, ch, (float)(s1 / cnt), (float)mu, (float)(s2 / cnt * s * s), (float)(s * g));
            else
                write_dx(op, ch, 0.0f, 0.0f, 0.0f, (float)(s * g));
        }
        if (op->grad_weight)
            op->grad_weight[ch] = (float)(s2 * s);
        if (op->grad_bias)
            op->grad_bias[ch] = (float)s1;
    }
}

static void bn_backward_reduce(const tfl_batchnorm_op *op)
{
    for (int64_t ch = 0; ch < op->c; ch++) {
        double mu = op->mean ? op->mean[ch] : 0.0;
        double s1, s2;
        grad_sums(op, ch, mu, &s1, &s2);
        if (op->sum_dy)
            op->sum_dy[ch] = (float)s1;
        if (op->sum_dy_xmu)
            op->sum_dy_xmu[ch] = (float)s2;
        if (op->grad_weight)
            op->grad_weight[ch] = (float)(s2 * op->invstd[ch]);
        if (op->grad_bias)
            op->grad_bias[ch] = (float)s1;
    }
}

static void bn_backward_elemt(const tfl_batchnorm_op *op)
{
    const float norm = (float)op->norm;
    for (int64_t ch = 0; ch < op->c; ch++) {
        float s = op->invstd[ch];
        float g = op->weight ? op->weight[ch] : 1.0f;
        write_dx(op, ch, op->sum_dy[ch] * norm, op->mean[ch], s * s * op->sum_dy_xmu[ch] * norm, g * s);
    }
}

static void gn_fused_params(const tfl_batchnorm_op *op)
{
    const int64_t D = op->gn_c / op->gn_g;
    for (int64_t n = 0; n < op->gn_n; n++)
        for (int64_t c = 0; c < op->gn_c; c++) {
            int64_t ng = n * op->gn_g + c / D, i = n * op->gn_c + c;
            float a = op->gn_gamma ? op->gn_rstd[ng] * op->gn_gamma[c] : op->gn_rstd[ng];
            op->gn_a[i] = a;
            op->gn_b[i] = -a * op->gn_mean[ng] + (op->gn_beta ? op->gn_beta[c] : 0.0f);
        }
}

/* ds = sum over hxw of dy * x, db = sum of dy for (n, c); read from dy, x
 * directly in the 1-d case (hxw == 1). */
static void gn_dsdb(const tfl_batchnorm_op *op, int64_t i, double *ds, double *db)
{
    if (op->gn_1d) {
        *ds = (double)op->gn_dy[i] * op->gn_x[i];
        *db = op->gn_dy[i];
    } else {
        *ds = op->gn_ds[i];
        *db = op->gn_db[i];
    }
}

static void gn_backward_params(const tfl_batchnorm_op *op)
{
    const int64_t G = op->gn_g, D = op->gn_c / G;
    const double s = 1.0 / (double)(D * (op->gn_1d ? 1 : op->gn_hxw));
    for (int64_t n = 0; n < op->gn_n; n++)
        for (int64_t g = 0; g < G; g++) {
            double s1 = 0.0, s2 = 0.0;
            for (int64_t d = 0; d < D; d++) {
                int64_t c = g * D + d;
                double gam = op->gn_gamma ? op->gn_gamma[c] : 1.0, ds, db;
                gn_dsdb(op, n * op->gn_c + c, &ds, &db);
                s1 += ds * gam;
                s2 += db * gam;
            }
            int64_t ng = n * G + g;
            double mean = op->gn_mean[ng], r = op->gn_rstd[ng];
            double x = (s2 * mean - s1) * r * r * r * s;
            op->gn_a[ng] = (float)x;
            op->gn_b[ng] = (float)(-x * mean - s2 * r * s);
        }
}

static void gn_gamma_beta(const tfl_batchnorm_op *op)
{
    const int64_t G = op->gn_g, D = op->gn_c / G;
    for (int64_t c = 0; c < op->gn_c; c++) {
        double s1 = 0.0, s2 = 0.0;
        for (int64_t n = 0; n < op->gn_n; n++) {
            int64_t ng = n * G + c / D;
            double ds, db;
            gn_dsdb(op, n * op->gn_c + c, &ds, &db);
            s1 += (ds - db * op->gn_mean[ng]) * op->gn_rstd[ng];
            s2 += db;
        }
        if (op->gn_dgamma)
            op->gn_dgamma[c] = (float)s1;
        if (op->gn_dbeta)
            op->gn_dbeta[c] = (float)s2;
    }
}

/* One element of a map: in[] the inputs, out[] the outputs. */
static void map_one(const tfl_batchnorm_op *op, const float *in, float *out)
{
    const double *p = op->param;
    switch (op->map_code) {
    case TFL_BN_MAP_RSQRT_EPS:
        out[0] = (float)(1.0 / sqrt((double)(in[0] + (float)p[0])));
        break;
    case TFL_BN_MAP_UPDATE_STATS: {
        float bessel = (float)p[0], mom = (float)p[1], eps = (float)p[2];
        out[0] = in[0] * mom + (1.0f - mom) * in[2];
        out[1] = in[1] * bessel * mom + (1.0f - mom) * in[3];
        if (op->nout > 2)
            out[2] = (float)(1.0 / sqrt((double)(in[1] + eps)));
        break;
    }
    case TFL_BN_MAP_NORM: {
        float v = (in[0] - in[1]) * in[2];
        int k = 3;
        if (op->map_flags & 1)
            v *= in[k++];
        if (op->map_flags & 2)
            v += in[k];
        out[0] = v;
        break;
    }
    case TFL_BN_MAP_AFFINE:
        out[0] = in[1] * in[0] + in[2];
        break;
    case TFL_BN_MAP_AFFINE3:
        if (op->map_flags & 1)
            out[0] = in[2] * in[3] * in[0] + in[4] * in[1] + in[5];
        else
            out[0] = in[2] * in[0] + in[3] * in[1] + in[4];
        break;
    case TFL_BN_MAP_MUL: {
        float v = in[0];
        for (int i = 1; i < op->nin; i++)
            v *= in[i];
        out[0] = v;
        break;
    }
    case TFL_BN_MAP_BWD_TRAIN: {
        float norm = (float)p[0];
        float f1 = in[4] * in[4] * in[5] * norm, f2 = in[2] * in[4], mdy = in[6] * norm;
        out[0] = (in[0] - mdy - (in[1] - in[3]) * f1) * f2;
        break;
    }
    default:
        break;
    }
}

static float load(tfl_dtype t, const char *p)
{
    uint16_t h;
    switch (t) {
    case TFL_DT_F16:  memcpy(&h, p, 2); return tfl_half_to_float(h);
    case TFL_DT_BF16: memcpy(&h, p, 2); return tfl_bf16_to_float(h);
    default: { float f; memcpy(&f, p, 4); return f; }
    }
}

static void store(tfl_dtype t, char *p, float v)
{
    uint16_t h;
    switch (t) {
    case TFL_DT_F16:  h = tfl_float_to_half(v); memcpy(p, &h, 2); break;
    case TFL_DT_BF16: h = tfl_float_to_bf16(v); memcpy(p, &h, 2); break;
    default: memcpy(p, &v, 4); break;
    }
}

/* One row (dimension 0, n elements) of a float-only map as a tight loop
 * per formula; s[k] are element strides (0 = broadcast).  0 if the
 * formula has no such loop (the caller then goes element by element). */
static int row_f32(const tfl_batchnorm_op *op, char *const *ptr, const int64_t *s, int64_t n)
{
    float *o = (float *)ptr[0];
    const float *a = (const float *)ptr[op->nout], *b = op->nin > 1 ? (const float *)ptr[op->nout + 1] : NULL;
    const float *c = op->nin > 2 ? (const float *)ptr[op->nout + 2] : NULL;
    const float *d = op->nin > 3 ? (const float *)ptr[op->nout + 3] : NULL;
    const float *e = op->nin > 4 ? (const float *)ptr[op->nout + 4] : NULL;
    const float *f = op->nin > 5 ? (const float *)ptr[op->nout + 5] : NULL;
    const int64_t so = s[0], sa = s[op->nout], sb = s[op->nout + 1], sc = s[op->nout + 2];
    const int64_t sd = s[op->nout + 3], se = s[op->nout + 4], sf = s[op->nout + 5];
    switch (op->map_code) {
    case TFL_BN_MAP_AFFINE:          /* (x, a, b) */
        for (int64_t i = 0; i < n; i++)
            o[i * so] = b[i * sb] * a[i * sa] + c[i * sc];
        return 1;
    case TFL_BN_MAP_AFFINE3:         /* (dy, x, c1[, c1b], c2, c3) */
        if (op->map_flags & 1)
            for (int64_t i = 0; i < n; i++)
                o[i * so] = c[i * sc] * d[i * sd] * a[i * sa] + e[i * se] * b[i * sb] + f[i * sf];
        else
            for (int64_t i = 0; i < n; i++)
                o[i * so] = c[i * sc] * a[i * sa] + d[i * sd] * b[i * sb] + e[i * se];
        return 1;
    case TFL_BN_MAP_NORM:            /* (x, m, r[, g][, b]) */
        switch (op->map_flags & 3) {
        case 0:
            for (int64_t i = 0; i < n; i++)
                o[i * so] = (a[i * sa] - b[i * sb]) * c[i * sc];
            return 1;
        case 3:
            for (int64_t i = 0; i < n; i++)
                o[i * so] = (a[i * sa] - b[i * sb]) * c[i * sc] * d[i * sd] + e[i * se];
            return 1;
        default:
            return 0;
        }
    case TFL_BN_MAP_MUL:
        if (op->nin == 2) {
            for (int64_t i = 0; i < n; i++)
                o[i * so] = a[i * sa] * b[i * sb];
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

static tfl_status bn_map(const tfl_batchnorm_op *op)
{
    const int nop = op->nout + op->nin;
    if (nop > TFL_BN_MAP_OPERANDS || op->nin < 1 || op->nout < 1 || op->nout > 3 ||
        op->ndim < 1 || op->ndim > TFL_BN_MAP_DIMS)
        return TFL_ERR_INVALID;
    int64_t total = 1;
    for (int dd = 0; dd < op->ndim; dd++)
        total *= op->shape[dd];
    if (total <= 0)
        return TFL_OK;
    /* float-only maps whose inner strides are whole floats take row_f32 */
    int fast = op->nout == 1;
    int64_t es[TFL_BN_MAP_OPERANDS] = { 0 };
    for (int k = 0; k < nop; k++) {
        fast = fast && op->map_dtype[k] == TFL_DT_F32 && op->strides[k][0] % 4 == 0;
        es[k] = op->strides[k][0] / 4;
    }
    const int64_t n0 = op->shape[0], rows = total / n0;
    int64_t idx[TFL_BN_MAP_DIMS] = { 0 };
    char *ptr[TFL_BN_MAP_OPERANDS];
    for (int k = 0; k < nop; k++)
        ptr[k] = op->data[k];
    for (int64_t r = 0; r < rows; r++) {
        if (!fast || !row_f32(op, ptr, es, n0)) {
            for (int64_t i = 0; i < n0; i++) {
                float in[TFL_BN_MAP_OPERANDS], out[3];
                for (int k = 0; k < op->nin; k++)
                    in[k] = load(op->map_dtype[op->nout + k], ptr[op->nout + k] + i * op->strides[op->nout + k][0]);
                map_one(op, in, out);
                for (int k = 0; k < op->nout; k++)
                    store(op->map_dtype[k], ptr[k] + i * op->strides[k][0], out[k]);
            }
        }
        /* odometer step over dimensions 1.., dimension 1 fastest */
        for (int dd = 1; dd < op->ndim; dd++) {
            for (int k = 0; k < nop; k++)
                ptr[k] += op->strides[k][dd];
            if (++idx[dd] < op->shape[dd])
                break;
            for (int k = 0; k < nop; k++)
                ptr[k] -= op->strides[k][dd] * op->shape[dd];
            idx[dd] = 0;
        }
    }
    return TFL_OK;
}

static tfl_status host_batchnorm_f32(const tfl_batchnorm_op *op);

/* Elements a [n][c][l] view spans (0 if empty). */
static int64_t span3(const tfl_batchnorm_op *op, const int64_t *st)
{
    if (op->n <= 0 || op->c <= 0 || op->l <= 0)
        return 0;
    return (op->n - 1) * st[0] + (op->c - 1) * st[1] + (op->l - 1) * st[2] + 1;
}

/* A float copy of n elements of type t (NULL in, NULL out). */
static float *to_f32(tfl_dtype t, const void *src, int64_t n, int *fail)
{
    if (!src || n <= 0)
        return NULL;
    float *d = malloc((size_t)n * sizeof(float));
    if (!d) {
        *fail = 1;
        return NULL;
    }
    hg_to_f32(t, src, n, n, 1, d, n);
    return d;
}

static void from_f32(tfl_dtype t, const float *src, void *dst, int64_t n)
{
    if (src && dst && n > 0)
        hg_from_f32(t, src, n, n, 1, dst, n);
}

/* Half / bfloat16 tensors or parameters: run the float op on float copies
 * (same strides; outputs are copied in first so the elements between a
 * strided view's rows round-trip unchanged), then convert back. */
static tfl_status bn_lowp(const tfl_batchnorm_op *op)
{
    tfl_batchnorm_op f = *op;
    f.dtype = TFL_DT_F32;
    f.stat_dtype = TFL_DT_F32;
    const tfl_dtype t = op->dtype, st = op->stat_dtype;
    const int64_t nx = span3(op, op->x_stride), ny = span3(op, op->y_stride);
    const int64_t ndy = span3(op, op->dy_stride), ndx = span3(op, op->dx_stride), c = op->c;
    int fail = 0;
    float *x = to_f32(t, op->x, nx, &fail), *dy = to_f32(t, op->dy, ndy, &fail);
    float *y = to_f32(t, op->y, ny, &fail), *dx = to_f32(t, op->dx, ndx, &fail);
    float *w = to_f32(st, op->weight, c, &fail), *b = to_f32(st, op->bias, c, &fail);
    float *rm = to_f32(st, op->running_mean, c, &fail), *rv = to_f32(st, op->running_var, c, &fail);
    float *gw = to_f32(st, op->grad_weight, c, &fail), *gb = to_f32(st, op->grad_bias, c, &fail);
    tfl_status r = TFL_ERR_NOMEM;
    if (!fail) {
        f.x = x; f.dy = dy; f.y = y; f.dx = dx;
        f.weight = w; f.bias = b; f.running_mean = rm; f.running_var = rv;
        f.grad_weight = gw; f.grad_bias = gb;
        r = host_batchnorm_f32(&f);
        if (r == TFL_OK) {
            from_f32(t, y, op->y, ny);
            from_f32(t, dx, op->dx, ndx);
            from_f32(st, gw, op->grad_weight, c);
            from_f32(st, gb, op->grad_bias, c);
        }
    }
    free(x); free(dy); free(y); free(dx); free(w); free(b); free(rm); free(rv); free(gw); free(gb);
    return r;
}

tfl_status host_batchnorm(const tfl_batchnorm_op *op)
{
    if (!host_batchnorm_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind <= TFL_BN_BACKWARD_ELEMT && (op->dtype != TFL_DT_F32 || op->stat_dtype != TFL_DT_F32)) {
        if (op->n < 0 || op->c < 0 || op->l < 0)
            return TFL_ERR_INVALID;
        return bn_lowp(op);
    }
    return host_batchnorm_f32(op);
}

static tfl_status host_batchnorm_f32(const tfl_batchnorm_op *op)
{
    if (op->kind <= TFL_BN_BACKWARD_ELEMT && (op->n < 0 || op->c < 0 || op->l < 0))
        return TFL_ERR_INVALID;
    switch (op->kind) {
    case TFL_BN_STATS:
        if (op->n * op->l > 0)
            bn_stats(op);
        return TFL_OK;
    case TFL_BN_APPLY:           bn_apply(op); return TFL_OK;
    case TFL_BN_BACKWARD:        bn_backward(op); return TFL_OK;
    case TFL_BN_BACKWARD_REDUCE: bn_backward_reduce(op); return TFL_OK;
    case TFL_BN_BACKWARD_ELEMT:  bn_backward_elemt(op); return TFL_OK;
    case TFL_BN_GN_FUSED_PARAMS:
    case TFL_BN_GN_BACKWARD_PARAMS:
    case TFL_BN_GN_GAMMA_BETA:
        if (op->gn_g <= 0 || op->gn_c % op->gn_g || op->gn_n < 0)
            return TFL_ERR_INVALID;
        if (op->kind == TFL_BN_GN_FUSED_PARAMS)
            gn_fused_params(op);
        else if (op->kind == TFL_BN_GN_BACKWARD_PARAMS)
            gn_backward_params(op);
        else
            gn_gamma_beta(op);
        return TFL_OK;
    case TFL_BN_MAP:
        return bn_map(op);
    }
    return TFL_ERR_UNSUPPORTED;
}

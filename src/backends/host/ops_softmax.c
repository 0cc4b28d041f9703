/*
 * ops_softmax.c - the host backend's native "softmax" op
 * (torchfl/ops/softmax.h): softmax / log_softmax forward and backward.
 *
 * Contiguous float32 rows (inner == 1, the last-dim case) get tight loops.
 * Everything else goes through one generic walk: per outer index, the
 * softmax dimension is visited at stride inner for all inner positions at
 * once (so memory is read in order), with per-position max and sum kept in
 * small arrays.  Sums accumulate in double.  The softmax backward's grad
 * already holds dL/dy * y (see torchfl/ops/softmax.h).
 */
#include "backends/host/host_ops.h"
#include "backends/host/ops_reduce_scalar.h"
#include "backends/host/vmath.h"
#include "backends/host/host_par.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fwd_row_f32(const float *x, float *y, int64_t n, int is_log)
{
    float m = n > 0 ? rs_maxmin_f32(x, n, 1) : 0;
    if (is_log) {
        float ls = (float)log(host_sumexp_shift_f32(n, x, m));
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] - m - ls;
    } else {
        /* exponentials once, into y, then one division per element */
        if (y != x)
            memcpy(y, x, (size_t)n * sizeof(float));
        float fs = (float)host_exp_shift_f32(n, y, m);
        for (int64_t i = 0; i < n; i++)
            y[i] = y[i] / fs;
    }
}

static void bwd_row_f32(const float *restrict yv, const float *restrict g, float *gi,
                        int64_t n, int is_log)
{
    float fs = (float)rs_sum_f32(g, n);
    if (is_log && gi != g && gi != yv) {
        /* exp(y) into gi with the vectorised exp, then the update */
        memcpy(gi, yv, (size_t)n * sizeof(float));
        host_exp_shift_f32(n, gi, 0.0f);
        for (int64_t i = 0; i < n; i++)
            gi[i] = g[i] - gi[i] * fs;
    } else if (is_log) {
        for (int64_t i = 0; i < n; i++)
            gi[i] = g[i] - expf(yv[i]) * fs;
    } else {
        for (int64_t i = 0; i < n; i++)
            gi[i] = g[i] - yv[i] * fs;
    }
}

/* Generic: one outer index, all d and i.  m, s: inner doubles each. */
static void block(const tfl_softmax_op *op, int64_t o, double *m, double *s)
{
    int64_t inner = op->inner, dim = op->dim;
    size_t isz = tfl_dtype_size(op->in_dtype), osz = tfl_dtype_size(op->out_dtype);
    const char *x = (const char *)op->in + (size_t)(o * op->outer_stride) * isz;
    const char *g = op->grad ? (const char *)op->grad + (size_t)(o * op->outer_stride) * isz : NULL;
    char *y = (char *)op->out + (size_t)(o * op->outer_stride) * osz;
    for (int64_t i = 0; i < inner; i++) {
        m[i] = -INFINITY;
        s[i] = 0;
    }
    if (!op->backward) {
        for (int64_t d = 0; d < dim; d++)
            for (int64_t i = 0; i < inner; i++) {
                double v = (float)rs_ld(op->in_dtype, x + (size_t)(d * inner + i) * isz);
                if (v != v || m[i] != m[i]) m[i] = NAN;
                else if (v > m[i]) m[i] = v;
            }
        for (int64_t d = 0; d < dim; d++)
            for (int64_t i = 0; i < inner; i++)
                s[i] += expf((float)(rs_ld(op->in_dtype, x + (size_t)(d * inner + i) * isz) - m[i]));
        for (int64_t d = 0; d < dim; d++)
            for (int64_t i = 0; i < inner; i++) {
                size_t k = (size_t)(d * inner + i);
                float v = (float)(rs_ld(op->in_dtype, x + k * isz) - m[i]);
                double r = op->log ? v - (float)log(s[i]) : expf(v) / (float)s[i];
                rs_st(op->out_dtype, y + k * osz, r);
            }
    } else {
        for (int64_t d = 0; d < dim; d++)
            for (int64_t i = 0; i < inner; i++) {
                size_t k = (size_t)(d * inner + i);
                s[i] += rs_ld(op->in_dtype, g + k * isz);
            }
        for (int64_t d = 0; d < dim; d++)
            for (int64_t i = 0; i < inner; i++) {
                size_t k = (size_t)(d * inner + i);
                double gv = rs_ld(op->in_dtype, g + k * isz), yv = rs_ld(op->in_dtype, x + k * isz);
                double r = op->log ? gv - expf((float)yv) * (float)s[i] : gv - yv * (float)s[i];
                rs_st(op->out_dtype, y + k * osz, r);
            }
    }
}

int host_softmax_supported(const tfl_softmax_op *op)
{
    if (!op || !rs_is_float(op->in_dtype) || !rs_is_float(op->out_dtype))
        return 0;
    if (op->outer < 0 || op->dim < 0 || op->inner < 0 || op->outer_stride < op->dim * op->inner)
        return 0;
    return 1;
}

/* Contiguous float32 rows [lo, hi) of the last-dim case. */
static void rows_f32(void *ctx, int64_t lo, int64_t hi)
{
    const tfl_softmax_op *op = ctx;
    const float *x = op->in, *g = op->grad;
    float *y = op->out;
    for (int64_t o = lo; o < hi; o++) {
        size_t off = (size_t)(o * op->outer_stride);
        if (op->backward)
            bwd_row_f32(x + off, g + off, y + off, op->dim, op->log);
        else
            fwd_row_f32(x + off, y + off, op->dim, op->log);
    }
}

tfl_status host_softmax(const tfl_softmax_op *op)
{
    if (!host_softmax_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->outer == 0 || op->dim == 0 || op->inner == 0)
        return TFL_OK;
    if (!op->in || !op->out || (op->backward && !op->grad))
        return TFL_ERR_INVALID;
    if (op->inner == 1 && op->in_dtype == TFL_DT_F32 && op->out_dtype == TFL_DT_F32) {
        /* rows are independent: share them out when there is enough work */
        host_parallel_for(op->outer, 1, op->dim, rows_f32, (void *)op);
        return TFL_OK;
    }
    double *m = malloc(sizeof(double) * 2 * (size_t)op->inner);
    if (!m)
        return TFL_ERR_NOMEM;
    for (int64_t o = 0; o < op->outer; o++)
        block(op, o, m, m + op->inner);
    free(m);
    return TFL_OK;
}

/*
 * ops_loss.c - the host backend's native "loss" op (torchfl/ops/loss.h):
 * nll_loss forward and backward, plain ([batch, classes]) and spatial
 * ([batch, classes, H, W]).  Every (b, h, w) position is a row; sums
 * accumulate in double.
 */
#include "backends/host/host_ops.h"
#include "backends/host/ops_reduce_scalar.h"

#include "common/log.h"

#include <math.h>

/* Element offsets of one row (b, h, w) in each operand. */
typedef struct lrow {
    int64_t tgt, in, out, gout, gi;
} lrow;

static int64_t dim1(int64_t v) { return v > 0 ? v : 1; }

static lrow row_at(const tfl_loss_op *op, int64_t r)
{
    int64_t H = dim1(op->H), W = dim1(op->W);
    int64_t w = r % W, h = (r / W) % H, b = r / (W * H);
    int64_t ts0 = op->tgt_stride0 ? op->tgt_stride0 : H * W;
    int64_t tsh = op->tgt_stride_h ? op->tgt_stride_h : W;
    int64_t tsw = op->tgt_stride_w ? op->tgt_stride_w : 1;
    lrow o = {
        .tgt = b * ts0 + h * tsh + w * tsw,
        .in = b * op->in_stride0 + h * op->in_stride_h + w * op->in_stride_w,
        .out = b * op->out_stride + h * op->out_stride_h + w * op->out_stride_w,
        .gout = b * op->gout_stride + h * op->gout_stride_h + w * op->gout_stride_w,
        .gi = b * op->gi_stride0 + h * op->gi_stride_h + w * op->gi_stride_w,
    };
    return o;
}

/* 1 = kept (class in *t), 0 = ignored, -1 = out of range (logged). */
static int target_at(const tfl_loss_op *op, int64_t off, int64_t row, int64_t *t)
{
    *t = op->target_dtype == TFL_DT_U8 ? ((const uint8_t *)op->target)[off]
                                       : ((const int64_t *)op->target)[off];
    if (*t == op->ignore_index)
        return 0;
    if (*t < 0 || *t >= op->n_classes) {
        tfl_error("nll_loss: target %lld of row %lld is out of bounds [0, %lld)",
                  (long long)*t, (long long)row, (long long)op->n_classes);
        return -1;
    }
    return 1;
}

static double weight_of(const tfl_loss_op *op, int64_t t)
{
    size_t sz = tfl_dtype_size(op->dtype);
    return op->weight ? rs_ld(op->dtype, (const char *)op->weight + (size_t)t * sz) : 1.0;
}

int host_loss_supported(const tfl_loss_op *op)
{
    if (!op || (unsigned)op->kind >= TFL_LOSS_KIND_COUNT || !rs_is_float(op->dtype))
        return 0;
    if (op->kind == TFL_LOSS_NLL_AVERAGE)
        return 1;
    if (op->target_dtype != TFL_DT_I64 && op->target_dtype != TFL_DT_U8)
        return 0;
    if (op->reduction != TFL_LOSS_REDUCE_NONE && op->reduction != TFL_LOSS_REDUCE_MEAN &&
        op->reduction != TFL_LOSS_REDUCE_SUM)
        return 0;
    return 1;
}

static tfl_status forward(const tfl_loss_op *op, int64_t rows)
{
    size_t sz = tfl_dtype_size(op->dtype);
    const char *x = op->input;
    if (op->reduction == TFL_LOSS_REDUCE_NONE) {
        for (int64_t r = 0; r < rows; r++) {
            lrow o = row_at(op, r);
            int64_t t;
            int k = target_at(op, o.tgt, r, &t);
            if (k < 0)
                return TFL_ERR_INVALID;
            double v = k ? -weight_of(op, t) *
                           rs_ld(op->dtype, x + (size_t)(o.in + t * op->in_stride1) * sz)
                         : 0.0;
            rs_st(op->dtype, (char *)op->output + (size_t)o.out * sz, v);
        }
        return TFL_OK;
    }
    if (op->one_d) {
        int64_t t;
        int k = target_at(op, 0, 0, &t);
        if (k < 0)
            return TFL_ERR_INVALID;
        double out = 0, tw = 0;
        if (k) {
            double w = weight_of(op, t), xv = rs_ld(op->dtype, x + (size_t)(t * op->in_stride1) * sz);
            tw = w;
            if (op->reduction == TFL_LOSS_REDUCE_MEAN)
                out = w == 0 ? NAN : -xv;
            else
                out = -w * xv;
        }
        rs_st(op->dtype, op->output, out);
        rs_st(op->dtype, op->total_weight, tw);
        return TFL_OK;
    }
    double s = 0, tw = 0;
    for (int64_t r = 0; r < rows; r++) {
        lrow o = row_at(op, r);
        int64_t t;
        int k = target_at(op, o.tgt, r, &t);
        if (k < 0)
            return TFL_ERR_INVALID;
        if (!k)
            continue;
        double w = weight_of(op, t);
        s -= w * rs_ld(op->dtype, x + (size_t)(o.in + t * op->in_stride1) * sz);
        tw += w;
    }
    if (op->accumulate) {
        /* what the kernel's per-block atomic adds amount to */
        rs_st(op->dtype, op->total_weight, (float)rs_ld(op->dtype, op->total_weight) + (float)tw);
        rs_st(op->dtype, op->output, (float)rs_ld(op->dtype, op->output) + (float)s);
        return TFL_OK;
    }
    rs_st(op->dtype, op->total_weight, tw);
    rs_st(op->dtype, op->output, op->reduction == TFL_LOSS_REDUCE_MEAN ? s / tw : s);
    return TFL_OK;
}

static tfl_status backward(const tfl_loss_op *op, int64_t rows)
{
    size_t sz = tfl_dtype_size(op->dtype);
    double scale = 1;
    if (op->reduction != TFL_LOSS_REDUCE_NONE) {
        scale = rs_ld(op->dtype, op->grad_output);
        if (op->reduction == TFL_LOSS_REDUCE_MEAN)
            scale /= rs_ld(op->dtype, op->total_weight);
    }
    for (int64_t r = 0; r < rows; r++) {
        lrow o = row_at(op, r);
        int64_t t;
        int k = target_at(op, o.tgt, r, &t);
        if (k < 0)
            return TFL_ERR_INVALID;
        if (!k)
            continue;
        double g = op->reduction == TFL_LOSS_REDUCE_NONE
            ? rs_ld(op->dtype, (const char *)op->grad_output + (size_t)o.gout * sz)
            : scale;
        rs_st(op->dtype, (char *)op->grad_input + (size_t)(o.gi + t * op->gi_stride1) * sz,
              -weight_of(op, t) * g);
    }
    return TFL_OK;
}

tfl_status host_loss(const tfl_loss_op *op)
{
    if (!host_loss_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind == TFL_LOSS_NLL_AVERAGE) {
        if (!op->output || !op->total_weight)
            return TFL_ERR_INVALID;
        rs_st(op->dtype, op->output, rs_ld(op->dtype, op->output) / rs_ld(op->dtype, op->total_weight));
        return TFL_OK;
    }
    if (op->batch < 0 || op->n_classes < 0 || op->H < 0 || op->W < 0 || !op->target)
        return TFL_ERR_INVALID;
    int64_t rows;
    if (__builtin_mul_overflow(op->batch, dim1(op->H), &rows) ||
        __builtin_mul_overflow(rows, dim1(op->W), &rows))
        return TFL_ERR_INVALID;
    if (op->H == 0 && op->W == 0 && !op->tgt_stride0 && !op->one_d) {
        /* plain form: target contiguous [batch] */
        tfl_loss_op plain = *op;
        plain.tgt_stride0 = 1;
        return op->kind == TFL_LOSS_NLL_FWD ? forward(&plain, rows) : backward(&plain, rows);
    }
    return op->kind == TFL_LOSS_NLL_FWD ? forward(op, rows) : backward(op, rows);
}

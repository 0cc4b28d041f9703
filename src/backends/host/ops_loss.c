/*
 * ops_loss.c - the host backend's native "loss" op (torchfl/ops/loss.h):
 * nll_loss forward and backward.  Sums accumulate in double.
 */
#include "backends/host/host_ops.h"
#include "backends/host/ops_reduce_scalar.h"

#include "common/log.h"

#include <math.h>

static int target_at(const tfl_loss_op *op, int64_t i, int64_t *t)
{
    *t = op->target_dtype == TFL_DT_U8 ? ((const uint8_t *)op->target)[i]
                                       : ((const int64_t *)op->target)[i];
    if (*t == op->ignore_index)
        return 0;
    if (*t < 0 || *t >= op->n_classes) {
        tfl_error("nll_loss: target %lld of row %lld is out of bounds [0, %lld)",
                  (long long)*t, (long long)i, (long long)op->n_classes);
        return -1;
    }
    return 1;
}

static double weight_of(const tfl_loss_op *op, int64_t t)
{
    size_t sz = rs_size(op->dtype);
    return op->weight ? rs_ld(op->dtype, (const char *)op->weight + (size_t)t * sz) : 1.0;
}

int host_loss_supported(const tfl_loss_op *op)
{
    if (!op || (unsigned)op->kind >= TFL_LOSS_KIND_COUNT || !rs_is_float(op->dtype))
        return 0;
    if (op->target_dtype != TFL_DT_I64 && op->target_dtype != TFL_DT_U8)
        return 0;
    if (op->reduction != TFL_LOSS_REDUCE_NONE && op->reduction != TFL_LOSS_REDUCE_MEAN &&
        op->reduction != TFL_LOSS_REDUCE_SUM)
        return 0;
    return 1;
}

static tfl_status forward(const tfl_loss_op *op)
{
    size_t sz = rs_size(op->dtype);
    const char *x = op->input;
    if (op->reduction == TFL_LOSS_REDUCE_NONE) {
        for (int64_t i = 0; i < op->batch; i++) {
            int64_t t;
            int k = target_at(op, i, &t);
            if (k < 0)
                return TFL_ERR_INVALID;
            double v = k ? -weight_of(op, t) *
                           rs_ld(op->dtype, x + (size_t)(i * op->in_stride0 + t * op->in_stride1) * sz)
                         : 0.0;
            rs_st(op->dtype, (char *)op->output + (size_t)(i * op->out_stride) * sz, v);
        }
        return TFL_OK;
    }
    if (op->one_d) {
        int64_t t;
        int k = target_at(op, 0, &t);
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
    for (int64_t i = 0; i < op->batch; i++) {
        int64_t t;
        int k = target_at(op, i, &t);
        if (k < 0)
            return TFL_ERR_INVALID;
        if (!k)
            continue;
        double w = weight_of(op, t);
        s -= w * rs_ld(op->dtype, x + (size_t)(i * op->in_stride0 + t * op->in_stride1) * sz);
        tw += w;
    }
    rs_st(op->dtype, op->total_weight, tw);
    rs_st(op->dtype, op->output, op->reduction == TFL_LOSS_REDUCE_MEAN ? s / tw : s);
    return TFL_OK;
}

static tfl_status backward(const tfl_loss_op *op)
{
    size_t sz = rs_size(op->dtype);
    double scale = 1;
    if (op->reduction != TFL_LOSS_REDUCE_NONE) {
        scale = rs_ld(op->dtype, op->grad_output);
        if (op->reduction == TFL_LOSS_REDUCE_MEAN)
            scale /= rs_ld(op->dtype, op->total_weight);
    }
    for (int64_t i = 0; i < op->batch; i++) {
        int64_t t;
        int k = target_at(op, i, &t);
        if (k < 0)
            return TFL_ERR_INVALID;
        if (!k)
            continue;
        double g = op->reduction == TFL_LOSS_REDUCE_NONE
            ? rs_ld(op->dtype, (const char *)op->grad_output + (size_t)(i * op->gout_stride) * sz)
            : scale;
        rs_st(op->dtype, (char *)op->grad_input + (size_t)(i * op->gi_stride0 + t * op->gi_stride1) * sz,
              -weight_of(op, t) * g);
    }
    return TFL_OK;
}

tfl_status host_loss(const tfl_loss_op *op)
{
    if (!host_loss_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->batch < 0 || op->n_classes < 0 || !op->target)
        return TFL_ERR_INVALID;
    return op->kind == TFL_LOSS_NLL_FWD ? forward(op) : backward(op);
}

/*
 * torchfl/ops/loss.h - the "loss" op of the backend ABI: negative
 * log-likelihood (nll_loss; cross_entropy = log_softmax + nll_loss),
 * forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_LOSS reads this struct.
 *
 * input is [batch, n_classes] (strides in elements); target[i] (contiguous,
 * int64 or uint8) picks a class or equals ignore_index; weight (NULL: all
 * 1) is [n_classes] contiguous.  A target outside [0, n_classes) that is not
 * ignore_index is an error (TFL_ERR_INVALID), as CUDA's device assert is.
 *
 * forward, reduction NONE: output[i * out_stride] = ignored ? 0 : -w[t] * x[i][t]
 * forward, SUM / MEAN:     *total_weight = sum of w[t] over kept rows;
 *                          *output = -sum(w[t] * x[i][t]) (/ total_weight for MEAN)
 *   one_d (a [n_classes] input with one target): PyTorch's special case:
 *   ignored -> output = total_weight = 0; MEAN -> output = -x[t] (NaN if
 *   w[t] == 0); SUM -> -w[t] * x[t].
 * backward, NONE:     grad_input[i][t] = -w[t] * grad_output[i * gout_stride]
 * backward, SUM/MEAN: grad_input[i][t] = -w[t] * grad_output[0] (/ *total_weight for MEAN)
 *   Only the target entries of kept rows are written; the caller zeroes
 *   grad_input beforehand.
 *
 * Spatial form (nll_loss2d: input [batch, n_classes, H, W], target
 * [batch, H, W]): every position (b, h, w) is a row.  H and W (0 means 1)
 * with the *_h / *_w strides (elements) locate it: input element
 * (b, c, h, w) at b * in_stride0 + c * in_stride1 + h * in_stride_h +
 * w * in_stride_w, target at b * tgt_stride0 + h * tgt_stride_h + w *
 * tgt_stride_w (tgt_stride0 0 means contiguous: 1 for the plain form,
 * H * W for the spatial one), NONE output / grad_output at b * out_stride
 * (gout_stride) + h * .._h + w * .._w, grad_input like input.
 * accumulate (forward SUM/MEAN): add the sums into *output and
 * *total_weight instead of storing, and never divide (PyTorch zeroes both,
 * accumulates, then divides in a separate TFL_LOSS_NLL_AVERAGE launch:
 * *output /= *total_weight).
 */
#ifndef TORCHFL_OPS_LOSS_H
#define TORCHFL_OPS_LOSS_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_loss_kind {
    TFL_LOSS_NLL_FWD = 0,
    TFL_LOSS_NLL_BWD = 1,
    TFL_LOSS_NLL_AVERAGE = 2,    /* *output /= *total_weight                 */
    TFL_LOSS_KIND_COUNT
} tfl_loss_kind;

typedef enum tfl_loss_reduction {
    TFL_LOSS_REDUCE_NONE = 0,
    TFL_LOSS_REDUCE_MEAN = 1,
    TFL_LOSS_REDUCE_SUM = 2
} tfl_loss_reduction;

typedef struct tfl_loss_op {
    tfl_loss_kind kind;
    tfl_loss_reduction reduction;
    tfl_dtype dtype;             /* input, output, weight, grads           */
    tfl_dtype target_dtype;      /* TFL_DT_I64 or TFL_DT_U8                */
    int one_d;                   /* forward of a 1-D input (see above)     */
    int64_t batch, n_classes;
    int64_t ignore_index;
    const void *target;
    const void *weight;          /* NULL: unweighted                       */
    const void *input;           /* forward                                */
    int64_t in_stride0, in_stride1;
    void *output;                /* forward                                */
    int64_t out_stride;          /* forward NONE                           */
    void *total_weight;          /* forward SUM/MEAN: written; backward MEAN: read */
    const void *grad_output;     /* backward                               */
    int64_t gout_stride;         /* backward NONE                          */
    void *grad_input;            /* backward                               */
    int64_t gi_stride0, gi_stride1;
    /* spatial form (see above); all 0 for the plain [batch, n_classes] one */
    int64_t H, W;
    int64_t in_stride_h, in_stride_w;
    int64_t tgt_stride0, tgt_stride_h, tgt_stride_w;
    int64_t out_stride_h, out_stride_w;
    int64_t gout_stride_h, gout_stride_w;
    int64_t gi_stride_h, gi_stride_w;
    int accumulate;
} tfl_loss_op;

#endif

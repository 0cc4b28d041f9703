/*
 * torchfl/ops/foreach.h - the "foreach" op of the backend ABI: one launch of
 * an op over a list of tensors (the foreach optimizer steps, norms).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_FOREACH reads this struct.
 *
 * A launch covers a subset of the lists' chunks: `blocks` names, for each
 * work item, a tensor (index into `tensors`) and a chunk of `chunk_size`
 * elements of it; a backend processes exactly those chunks (a long list
 * arrives as several launches, each with its own blocks).  All tensors are
 * contiguous; list k of tensor t starts at tensors[t].ptr[k].
 */
#ifndef TORCHFL_OPS_FOREACH_H
#define TORCHFL_OPS_FOREACH_H

#include <stddef.h>
#include <stdint.h>

#define TFL_FOREACH_MAX_LISTS 5

typedef enum tfl_foreach_kind {
    TFL_FOREACH_ZERO = 1,       /* out = 0                                     */
    TFL_FOREACH_UNARY,          /* out = fn(x0)                                */
    TFL_FOREACH_BINARY_SCALAR,  /* out = fn(x0, s)            s: see below     */
    TFL_FOREACH_BINARY_LIST,    /* out = fn(x0, alpha * x1)                    */
    TFL_FOREACH_POINTWISE,      /* out = x0 + s * fn(x1, x2)  (addcmul/addcdiv) */
    TFL_FOREACH_LERP_SCALAR,    /* out = lerp(x0, x1, s)                       */
    TFL_FOREACH_LERP_LIST,      /* out = lerp(x0, x1, x2)                      */
    TFL_FOREACH_NORM_PARTIAL,   /* partials[(first_index + t) * max_chunks + chunk]
                                 *   = reduce over the chunk of x0             */
    TFL_FOREACH_NORM_FINISH,    /* *out_t = finish(reduce partials[t*max_chunks ..]) */
    TFL_FOREACH_ADAM,           /* fused Adam/AdamW step; lists: param, grad,
                                 * exp_avg, exp_avg_sq[, max_exp_avg_sq]; all
                                 * written except grad (written only when
                                 * grad_scale is set: the unscaled gradient) */
    TFL_FOREACH_SGD,            /* fused SGD step; lists: param, grad[,
                                 * momentum_buffer] (depth 2 or 3)           */
    TFL_FOREACH_UNSCALE,        /* GradScaler: x = x * *inv_scale (unless it
                                 * is 1); *found_inf = 1 on any inf/NaN      */
    TFL_FOREACH_UPDATE_SCALE,   /* GradScaler's scale update (no lists):
                                 * found_inf ? scale *= backoff, tracker = 0
                                 * : ++tracker == interval ? scale *= growth
                                 * (if finite), tracker = 0                  */
} tfl_foreach_kind;

typedef enum tfl_foreach_fn {
    TFL_FOREACH_FN_NONE = 0,
    TFL_FOREACH_FN_ADD, TFL_FOREACH_FN_SUB, TFL_FOREACH_FN_MUL, TFL_FOREACH_FN_DIV,
    TFL_FOREACH_FN_MAX, TFL_FOREACH_FN_MIN,       /* NaN-propagating, as at::native */
    TFL_FOREACH_FN_POW,                           /* pow(x, s)                      */
    TFL_FOREACH_FN_REVPOW,                        /* pow(s, x)                      */
    TFL_FOREACH_FN_SQRT, TFL_FOREACH_FN_COPY,
    /* more unary functions (UNARY only) */
    TFL_FOREACH_FN_NEG, TFL_FOREACH_FN_ABS, TFL_FOREACH_FN_RECIPROCAL, TFL_FOREACH_FN_RSQRT,
    TFL_FOREACH_FN_EXP, TFL_FOREACH_FN_EXPM1, TFL_FOREACH_FN_LOG, TFL_FOREACH_FN_LOG1P,
    TFL_FOREACH_FN_LOG2, TFL_FOREACH_FN_LOG10, TFL_FOREACH_FN_SIGMOID, TFL_FOREACH_FN_TANH,
    TFL_FOREACH_FN_SIN, TFL_FOREACH_FN_COS, TFL_FOREACH_FN_ERF,
    TFL_FOREACH_FN_FLOOR, TFL_FOREACH_FN_CEIL, TFL_FOREACH_FN_ROUND, TFL_FOREACH_FN_TRUNC,
} tfl_foreach_fn;

typedef enum tfl_foreach_norm {
    TFL_FOREACH_NORM_L1 = 1,    /* sum |x|                  */
    TFL_FOREACH_NORM_L2 = 2,    /* sum x^2 (sqrt on finish) */
    TFL_FOREACH_NORM_LINF = 3,  /* max |x|, NaN propagates  */
    TFL_FOREACH_NORM_L0 = 4,    /* count of x != 0 (NaN counts), summed in
                                 * float; no root on finish whatever
                                 * apply_root says (_foreach_norm ord=0)  */
} tfl_foreach_norm;

typedef struct tfl_foreach_tensor {
    void *ptr[TFL_FOREACH_MAX_LISTS];
    int64_t numel;
    float scalar;               /* per-tensor scalar (scalar-list ops)      */
    const float *step;          /* ADAM: the tensor's step count (device)   */
} tfl_foreach_tensor;

typedef struct tfl_foreach_block {
    int32_t tensor;             /* index into tensors                       */
    int32_t chunk;              /* elements [chunk*chunk_size, +chunk_size) */
} tfl_foreach_block;

typedef struct tfl_foreach_op {
    tfl_foreach_kind kind;
    tfl_foreach_fn fn;
    tfl_dtype dtype;            /* element type of every list: F32, F16 or
                                 * BF16 (math in float, results rounded to
                                 * nearest even on store)                   */
    int depth;                  /* lists in use                             */
    int out_list;               /* the list written                         */
    int64_t chunk_size;
    int ntensors;
    const tfl_foreach_tensor *tensors;
    int nblocks;
    const tfl_foreach_block *blocks;
    /* The scalar s: tensors[t].scalar if per_tensor_scalar, else
     * (*scalar_ptr) * alpha if scalar_ptr (a device scalar), else scalar. */
    int per_tensor_scalar;
    float scalar, alpha;
    const float *scalar_ptr;
    /* norms */
    tfl_foreach_norm norm;
    float *partials;            /* opmath partials, max_chunks per tensor   */
    int max_chunks;
    int first_index;            /* NORM_PARTIAL: start_tensor_this_launch   */
    int apply_root;             /* NORM_FINISH: sqrt for L2 (only)          */
    void *const *finish_out;    /* NORM_FINISH: one float* per tensor       */
    int nfinish;                /* NORM_FINISH: tensors (one per block)     */
    /* ADAM: hyper-parameters as the kernel receives them (double; the 2.11
     * kernels round them to float and compute in float), lr
     * replaced by *lr_ptr when set; the step is skipped when *found_inf == 1 */
    int adamw, amsgrad, maximize;
    double lr, beta1, beta2, weight_decay, eps;
    const float *lr_ptr, *grad_scale, *found_inf;
    /* SGD (with lr, weight_decay, maximize, lr_ptr, grad_scale, found_inf) */
    double momentum, dampening;
    int nesterov, is_first_step;
    /* UNSCALE (found_inf, inv_scale) and UPDATE_SCALE (all) */
    float *found_inf_out;
    const float *inv_scale;
    float *scale;
    int32_t *growth_tracker;
    double growth_factor, backoff_factor;
    int growth_interval;
    /* NORM_FINISH: the type of each *finish_out (F32 = 0 by default, F16,
     * BF16: the float norm rounded once) */
    tfl_dtype out_dtype;
    /* the type of *scalar_ptr (F32 = 0 by default; F16/BF16 for the
     * low-precision lists' scalar tensors, widened to float) */
    tfl_dtype scalar_ptr_dtype;
} tfl_foreach_op;

#endif

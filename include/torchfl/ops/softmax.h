/*
 * torchfl/ops/softmax.h - the "softmax" op of the backend ABI: softmax and
 * log_softmax over one dimension, forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_SOFTMAX reads this struct.
 *
 * Shape model: the tensors are viewed as [outer, dim, inner]; element
 * (o, d, i) lies at element offset o * outer_stride + d * inner + i (in
 * every operand), outer_stride >= dim * inner.  The softmax runs over d.
 *
 *   forward:  out = softmax(in)            or log_softmax(in)
 *   backward: out = grad - y * sum_d(grad)      (softmax)
 *             out = grad - exp(y) * sum_d(grad) (log_softmax)
 * where y = in is the forward's output.  For softmax, grad holds
 * dL/dy * y (PyTorch multiplies before launching the kernel), so out =
 * y * (dL/dy - sum(dL/dy * y)); for log_softmax grad is dL/dy.
 * Computation is in (at least) float precision.
 */
#ifndef TORCHFL_OPS_SOFTMAX_H
#define TORCHFL_OPS_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_softmax_op {
    int log;                 /* 1: log_softmax                              */
    int backward;            /* 1: gradient                                 */
    tfl_dtype in_dtype;      /* element type of in (and grad)               */
    tfl_dtype out_dtype;     /* element type of out                         */
    const void *in;          /* forward: x; backward: the forward's output  */
    const void *grad;        /* backward: dL/dy * y (softmax), dL/dy (log)   */
    void *out;               /* forward: result; backward: gradient w.r.t. x */
    int64_t outer, dim, inner;
    int64_t outer_stride;    /* elements between (o, 0, 0) and (o + 1, 0, 0) */
} tfl_softmax_op;

#endif

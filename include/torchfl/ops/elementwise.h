/*
 * torchfl/ops/elementwise.h - the "elementwise" op of the backend ABI: pointwise maps over tensors: fill, copy/cast, unary/binary math, comparisons, activations and their gradients.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_ELEMENTWISE reads this struct.
 */
#ifndef TORCHFL_OPS_ELEMENTWISE_H
#define TORCHFL_OPS_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_elementwise_op {
    int reserved;            /* defined when the family is mapped */
} tfl_elementwise_op;

#endif

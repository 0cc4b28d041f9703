/*
 * torchfl/ops/softmax.h - the "softmax" op of the backend ABI: softmax and log-softmax, forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_SOFTMAX reads this struct.
 */
#ifndef TORCHFL_OPS_SOFTMAX_H
#define TORCHFL_OPS_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_softmax_op {
    int reserved;            /* defined when the family is mapped */
} tfl_softmax_op;

#endif

/*
 * torchfl/ops/reduce.h - the "reduce" op of the backend ABI: reductions over dimensions: sum, mean, max/min (+index), norms.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_REDUCE reads this struct.
 */
#ifndef TORCHFL_OPS_REDUCE_H
#define TORCHFL_OPS_REDUCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_reduce_op {
    int reserved;            /* defined when the family is mapped */
} tfl_reduce_op;

#endif

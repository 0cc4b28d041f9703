/*
 * torchfl/ops/norm.h - the "norm" op of the backend ABI: layer norm forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_NORM reads this struct.
 */
#ifndef TORCHFL_OPS_NORM_H
#define TORCHFL_OPS_NORM_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_norm_op {
    int reserved;            /* defined when the family is mapped */
} tfl_norm_op;

#endif

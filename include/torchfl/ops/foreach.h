/*
 * torchfl/ops/foreach.h - the "foreach" op of the backend ABI: ops over lists of tensors: the foreach/fused optimizer steps, norms.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_FOREACH reads this struct.
 */
#ifndef TORCHFL_OPS_FOREACH_H
#define TORCHFL_OPS_FOREACH_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_foreach_op {
    int reserved;            /* defined when the family is mapped */
} tfl_foreach_op;

#endif

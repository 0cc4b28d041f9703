/*
 * torchfl/ops/random.h - the "random" op of the backend ABI: random number generation (Philox counter-based, as CUDA PyTorch), dropout.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_RANDOM reads this struct.
 */
#ifndef TORCHFL_OPS_RANDOM_H
#define TORCHFL_OPS_RANDOM_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_random_op {
    int reserved;            /* defined when the family is mapped */
} tfl_random_op;

#endif

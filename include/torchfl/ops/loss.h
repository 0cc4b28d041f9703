/*
 * torchfl/ops/loss.h - the "loss" op of the backend ABI: losses: nll, cross-entropy, forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_LOSS reads this struct.
 */
#ifndef TORCHFL_OPS_LOSS_H
#define TORCHFL_OPS_LOSS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_loss_op {
    int reserved;            /* defined when the family is mapped */
} tfl_loss_op;

#endif

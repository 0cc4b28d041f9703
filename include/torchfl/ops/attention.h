/*
 * torchfl/ops/attention.h - the "attention" op of the backend ABI: scaled dot-product attention forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_ATTENTION reads this struct.
 */
#ifndef TORCHFL_OPS_ATTENTION_H
#define TORCHFL_OPS_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_attention_op {
    int reserved;            /* defined when the family is mapped */
} tfl_attention_op;

#endif

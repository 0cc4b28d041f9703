/*
 * torchfl/ops/embedding.h - the "embedding" op of the backend ABI: embedding lookup and its backward (scatter-add of gradients).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_EMBEDDING reads this struct.
 */
#ifndef TORCHFL_OPS_EMBEDDING_H
#define TORCHFL_OPS_EMBEDDING_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_embedding_op {
    int reserved;            /* defined when the family is mapped */
} tfl_embedding_op;

#endif

/*
 * torchfl/ops/index.h - the "index" op of the backend ABI: indexing: index_select, gather, scatter, index_put, cat, arange.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_INDEX reads this struct.
 */
#ifndef TORCHFL_OPS_INDEX_H
#define TORCHFL_OPS_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfl_index_op {
    int reserved;            /* defined when the family is mapped */
} tfl_index_op;

#endif

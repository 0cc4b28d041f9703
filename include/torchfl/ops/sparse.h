/*
 * torchfl/ops/sparse.h - the "sparse" op of the backend ABI (TFL_OP_SPARSE):
 * sparse-dense products and sparse format conversions (cuSPARSE).
 *
 * Part of the contract in torchfl/backend.h (included from there).
 * (Being written: the struct below is a placeholder.)
 */
#ifndef TORCHFL_OPS_SPARSE_H
#define TORCHFL_OPS_SPARSE_H

#include <stdint.h>

typedef struct tfl_sparse_op {
    int fn;
} tfl_sparse_op;

#endif

/*
 * torchfl/ops/embedding.h - the "embedding" op of the backend ABI: the
 * backward of an embedding lookup (scatter-add of the output gradient into
 * the rows of the weight gradient).  The lookup itself is an index op
 * (torchfl/ops/index.h).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_EMBEDDING reads this struct.
 */
#ifndef TORCHFL_OPS_EMBEDDING_H
#define TORCHFL_OPS_EMBEDDING_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_embedding_kind {
    /* for i < n, f < row_len, indices[i] != padding_idx:
     *   grad_weight[indices[i] * row_len + f] += grad[i * row_len + f]
     * grad_weight is accumulated into (the caller zeroes it); rows with
     * the same index add up in index order. */
    TFL_EMBEDDING_BWD_DENSE = 1,
} tfl_embedding_kind;

typedef struct tfl_embedding_op {
    tfl_embedding_kind kind;
    tfl_dtype dtype;          /* grad and grad_weight: F32, F16 or BF16 (sums
                               * in float, rounded once per row added) */
    tfl_dtype index_dtype;    /* TFL_DT_I32 or TFL_DT_I64 */
    const void *indices;      /* n, contiguous */
    int64_t n;
    const void *grad;         /* n rows of row_len, contiguous */
    void *grad_weight;        /* weight_rows rows of row_len, contiguous */
    int64_t row_len;
    int64_t weight_rows;      /* an index outside [0, weight_rows) is an error */
    int64_t padding_idx;      /* skipped index; -1 (or any negative) = none */
} tfl_embedding_op;

#endif

/*
 * torchfl/ops/scan.h - the "scan" op of the backend ABI: prefix scans
 * along a dimension (cumsum, cumprod, logcumsumexp, cummax, cummin) and
 * the stream-compaction steps of nonzero / boolean indexing (count the
 * nonzero elements, write their flat indices, unravel them per dim).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_SCAN reads this struct.
 *
 * All operands are contiguous; sizes and offsets are in elements.
 */
#ifndef TORCHFL_OPS_SCAN_H
#define TORCHFL_OPS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#define TFL_SCAN_MAX_DIMS 25

typedef enum tfl_scan_fn {
    TFL_SCAN_ADD = 1,        /* a + b                                     */
    TFL_SCAN_MUL = 2,        /* a * b                                     */
    /* log(exp(a) + exp(b)) as PyTorch computes it: with mn/mx the
     * smaller/larger (NaN propagates), mx + log1p(exp(mn - mx)), except
     * that equal non-finite operands give a unchanged (-inf, inf). */
    TFL_SCAN_LOGADDEXP = 3,
    /* with indices (TFL_SCAN_DIM_INDEX): the running value is replaced by
     * x at position j when x is NaN, or the running value is not NaN and
     * x >= it (MAX) / x <= it (MIN); the index is then j.  So ties and
     * NaNs take the latest position. */
    TFL_SCAN_MAX = 4,
    TFL_SCAN_MIN = 5,
} tfl_scan_fn;

typedef enum tfl_scan_kind {
    /* Inclusive scan of src viewed as [outer][len][inner] along len, into
     * dst of the same shape (dst may equal src):
     *   has_init: acc = fn(init, x[0]); else acc = x[0];
     *   acc = fn(acc, x[j]) for j = 1..len-1; dst[j] = acc after step j.
     * fn ADD, MUL, LOGADDEXP. */
    TFL_SCAN_DIM = 1,
    /* cummax / cummin: as TFL_SCAN_DIM with fn MAX / MIN; the running
     * (value, index) starts at (init, 0) and is updated by x[j] by the
     * rule above; dst gets the running values and indices (int64, same
     * shape) the running positions along len. */
    TFL_SCAN_DIM_INDEX = 2,
    /* *total = init + sum over i < n of (nonzero ? (src[i] != 0) : src[i])
     * (integer arithmetic modulo 2^32 for total_dtype I32), written as
     * total_dtype; then total[1 .. zero_after) = 0 (zero_after 0 or 1:
     * nothing).  n = 0 writes init.  nonzero = 0 needs an integer
     * src dtype. */
    TFL_SCAN_TOTAL = 3,
    /* Stream compaction of flat indices: for i < n in order, where
     * src[i] != 0 (a complex value counts as nonzero if either part is),
     * out_index[k++] = index_base + i; then *total = k as total_dtype. */
    TFL_SCAN_SELECT_NONZERO = 4,
    /* Unravel n flat row-major indices stored in out_index[0..n) into
     * ndim coordinates: out_index[d * n + i] = coordinate d of flat
     * index out_index[i] in a tensor of sizes[0..ndim) (every size > 0;
     * an index outside the tensor is an error). */
    TFL_SCAN_UNRAVEL = 5,
} tfl_scan_kind;

typedef struct tfl_scan_op {
    tfl_scan_kind kind;
    tfl_scan_fn fn;
    tfl_dtype dtype;          /* src / dst element type                  */
    const void *src;
    void *dst;
    int64_t *indices;         /* DIM_INDEX                               */
    int64_t outer, len, inner;/* DIM, DIM_INDEX                          */
    int has_init;
    /* init value of dtype (DIM, DIM_INDEX), or the integer init of
     * TOTAL: read as dtype resp. total_dtype from these bytes */
    unsigned char init[16];
    int64_t n;                /* TOTAL, SELECT_NONZERO, UNRAVEL          */
    int nonzero;              /* TOTAL: count nonzeros instead of summing */
    void *total;              /* TOTAL, SELECT_NONZERO: one value         */
    tfl_dtype total_dtype;    /* TFL_DT_I32 or TFL_DT_I64                */
    int64_t zero_after;       /* TOTAL                                   */
    int64_t *out_index;       /* SELECT_NONZERO, UNRAVEL                 */
    /* SELECT_NONZERO: elements out_index may hold; more selected
     * elements than this is an error (TFL_ERR_DEVICE), nothing written */
    int64_t out_capacity;
    int64_t index_base;       /* SELECT_NONZERO                          */
    int ndim;                 /* UNRAVEL                                 */
    int64_t sizes[TFL_SCAN_MAX_DIMS];
} tfl_scan_op;

#endif

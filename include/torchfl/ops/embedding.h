/*
 * torchfl/ops/embedding.h - the "embedding" op of the backend ABI: the
 * backward of an embedding lookup (scatter-add of the output gradient into
 * the rows of the weight gradient), embedding_bag, and max_norm's renorm
 * (with its index wrap).  The lookup itself is an index op
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
    /* embedding_bag forward (fields in `bag`): bag b < num_bags holds the
     * indices [begin, end), begin = b ? offsets[b] : 0, end = offsets[b+1]
     * (num_indices for the last bag).  An index equal to padding_idx
     * counts as absent.  For every feature f < features:
     *   SUM/MEAN: out[b][f] = sum of w(i) * weight[indices[i]][f] (w(i) =
     *     per_sample_weights[i * psw_stride] when given, else 1), summed in
     *     float (F64 for F64) in index order; MEAN divides by the bag's
     *     count of non-padding indices when it is > 0;
     *   MAX: out[b][f] = the largest weight[indices[i]][f] (the first one
     *     on ties), max_indices[b][f] = its index; an empty bag gives 0 and
     *     -1.
     * offset2bag[i] = the bag of index i, bag_size[b] = the count of
     * non-padding indices.  out, max_indices are num_bags x features,
     * contiguous; weight has strides (ws0, ws1) in elements. */
    TFL_EMBEDDING_BAG_FWD = 2,
    /* max-mode backward: for b < num_bags, f < features, i =
     * max_indices[b][f] >= 0 and != padding_idx:
     *   grad_weight[i][f] += grad[b][f]   (rows of `features`, contiguous) */
    TFL_EMBEDDING_BAG_MAX_BWD = 3,
    /* sum/mean backward, one partial segment per p < *num_segments (a
     * device pointer: the count is produced on the device): the indices
     * i in [seg_offsets[p], end) (end = seg_offsets[p+1], num_indices for
     * the last), in order, with o = indices[i] (a position in the
     * forward's index list) and k = offset2bag[o]:
     *   acc[p][f] = sum of g * s, g = grad[k][f] (divided by bag_size[k]
     *   when mode is MEAN), s = (count ? 1 / count[i] : 1) times
     *   psw[o * psw_stride] when psw is given; summed in the accumulate
     *   type (float; double for F64).  acc has `features` columns. */
    TFL_EMBEDDING_BAG_GRAD_PARTIALS = 4,
    /* per_sample_weights backward: out[i] = 0 when indices[i] ==
     * padding_idx, else the dot product over f < features of
     * grad[offset2bag[i] * gs0 + f * gs1] and weight[indices[i] * ws0 +
     * f * ws1] (i < num_indices; out contiguous). */
    TFL_EMBEDDING_BAG_PSW_BWD = 5,
    /* F.embedding(max_norm=...) (embedding_renorm_): for k < min(n,
     * *renorm.num_unique), row r = indices[k] of renorm.weight
     * (renorm.features elements at r * ws0 + f * ws1): norm = (sum of
     * |x| (p = 1), x * x (p = 2) or pow(x, p) (other p))^(1 / p) in float
     * (double for F64); when norm > max_norm every element of the row is
     * multiplied by (dtype)(max_norm / (norm + 1e-7)).  dtype F32, F64,
     * F16 or BF16; indices (distinct) index_dtype; weight_rows bounds r. */
    TFL_EMBEDDING_RENORM = 6,
    /* F.embedding(max_norm=...)'s index wrap (torch 2.13+, before the
     * renorm): for i < n, wrapped[i] = indices[i] + (indices[i] < 0 ?
     * weight_rows : 0).  An index outside [-weight_rows, weight_rows) is
     * PyTorch's device-side assert: the op fails with TFL_ERR_DEVICE and
     * writes nothing.  index_dtype I32 or I64 (indices and wrapped);
     * wrapped may be indices itself. */
    TFL_EMBEDDING_WRAP_INDICES = 7,
} tfl_embedding_kind;

typedef enum tfl_embedding_bag_mode {
    TFL_EMBEDDING_BAG_SUM = 0,
    TFL_EMBEDDING_BAG_MEAN = 1,
    TFL_EMBEDDING_BAG_MAX = 2,
} tfl_embedding_bag_mode;

typedef struct tfl_embedding_bag {
    tfl_embedding_bag_mode mode;
    const void *indices, *offsets;      /* index_dtype, contiguous        */
    int64_t num_indices, num_bags, features;
    const void *weight;                 /* FWD: weight_rows rows          */
    int64_t ws0, ws1;                   /* weight strides, elements       */
    void *out;                          /* FWD: num_bags x features       */
    void *offset2bag, *bag_size;        /* FWD: index_dtype               */
    void *max_indices;                  /* index_dtype; FWD (MAX) writes,
                                         * MAX_BWD reads                   */
    const void *psw;                    /* FWD SUM: per-sample weights (dtype)
                                         * or NULL                          */
    int64_t psw_stride;
    const void *grad;                   /* MAX_BWD: num_bags x features    */
    void *grad_weight;                  /* MAX_BWD: weight_rows x features */
    /* GRAD_PARTIALS */
    const void *count;                  /* index_dtype or NULL             */
    const void *seg_offsets;            /* index_dtype                     */
    const int64_t *num_segments;        /* one int64 in device memory      */
    int64_t max_segments;               /* rows acc and seg_offsets hold   */
    void *acc;                          /* float (double for F64)          */
    /* PSW_BWD */
    int64_t gs0, gs1;                   /* grad strides, elements          */
} tfl_embedding_bag;

typedef struct tfl_embedding_renorm {
    void *weight;
    int64_t ws0, ws1;                   /* strides, elements              */
    int64_t features;
    double max_norm, norm_type;
    const int64_t *num_unique;          /* one int64 in device memory      */
} tfl_embedding_renorm;

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
    tfl_embedding_bag bag;    /* BAG_FWD, BAG_MAX_BWD (dtype F32 or F64,
                               * index_dtype, weight_rows, padding_idx
                               * above apply; padding_idx is compared as
                               * is, any value) */
    tfl_embedding_renorm renorm;   /* RENORM (indices, n, index_dtype,
                                    * dtype, weight_rows above apply) */
    void *wrapped;            /* WRAP_INDICES: n indices out (indices, n,
                               * index_dtype, weight_rows above apply;
                               * dtype is not read) */
} tfl_embedding_op;

#endif

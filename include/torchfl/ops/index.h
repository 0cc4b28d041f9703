/*
 * torchfl/ops/index.h - the "index" op of the backend ABI: data movement
 * driven by index tensors or offsets (index_select, row gather, cat).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_INDEX reads this struct.
 *
 * These ops move elements without interpreting them: elem_size bytes per
 * element.  Strides are in elements unless the field says bytes.
 */
#ifndef TORCHFL_OPS_INDEX_H
#define TORCHFL_OPS_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define TFL_INDEX_MAX_DIMS 25   /* as PyTorch's TensorInfo */
#define TFL_INDEX_CAT_DIMS 4    /* dims of a batched cat */

/* A strided tensor view. */
typedef struct tfl_index_tensor {
    void *data;
    int ndim;
    int64_t sizes[TFL_INDEX_MAX_DIMS];
    int64_t strides[TFL_INDEX_MAX_DIMS];
} tfl_index_tensor;

/* An n-d iteration over three operands (TensorIterator-style): dim 0
 * varies fastest; strides in bytes per operand (may be negative: flip). */
typedef struct tfl_index_iter {
    int ndim;
    int64_t sizes[TFL_INDEX_MAX_DIMS];
    int64_t strides[3][TFL_INDEX_MAX_DIMS];
} tfl_index_iter;

typedef enum tfl_index_reduce {
    TFL_INDEX_ASSIGN = 0,
    TFL_INDEX_ADD = 1,        /* needs dtype (arithmetic) */
    TFL_INDEX_MUL = 2,        /* dst *= src (dtype) */
    TFL_INDEX_MAX = 3,        /* dst = max(dst, src) (dtype; a NaN operand
                               * is ignored unless both are NaN, as fmax) */
    TFL_INDEX_MIN = 4,        /* dst = min(dst, src) (dtype; as fmin) */
} tfl_index_reduce;

typedef enum tfl_index_range_kind {
    TFL_INDEX_ARANGE = 1,     /* out[i] = start + step * i */
    TFL_INDEX_LINSPACE = 2,   /* i < halfway: start + step * i,
                               * else end - step * (steps - i - 1) */
} tfl_index_range_kind;

typedef enum tfl_index_kind {
    /* index_select / index_add: a slice is a tensor without its select
     * dim; slice element e (row-major over that tensor's own remaining
     * dims, which need not match between dst and src but must count the
     * same) of index position k (index read row-major over its own view):
     *   index_dst = 0 (index_select):
     *     dst[slice_dst(e) + k * dst.strides[dst_dim]]
     *       = src[slice_src(e) + index[k] * src.strides[src_dim]]
     *   index_dst = 1 (index_add):
     *     dst[slice_dst(e) + index[k] * dst.strides[dst_dim]]
     *       (reduce)= src[slice_src(e) + k * src.strides[src_dim]] * alpha
     * the non-indexed side's select dim has the index count as size;
     * every index value is in [0, index_bound).  reduce ADD computes in
     * dtype. */
    TFL_INDEX_SELECT = 1,
    /* Row gather on bytes: for k < n_index,
     *   out[k * out_stride .. + row_bytes] = in[idx[k] * in_stride ..]
     * (strides in bytes); idx[k] in [0, in_rows), or in [-in_rows, 0)
     * counting from the end when allow_negative. */
    TFL_INDEX_GATHER_ROWS = 2,
    /* Batched cat: each input i (numel elements, contiguous, or strided
     * by sizes/strides) is laid out in the output's shape with the cat
     * dim replaced by dim_size; element j of it goes to
     *   out[offset * dim_stride + offset_in_out(j)]
     * where offset_in_out decomposes j row-major over that shape and
     * applies out_strides. */
    TFL_INDEX_CAT = 3,
    /* gather / scatter along a dim over an iteration of (self, src,
     * index): with k = *(index_dtype *)(index + off2), 0 <= k < index_size,
     *   gather:  self[off0] (op)= src[off1 + k * index_stride * elem_size]
     *   scatter: self[off0 + k * index_stride * elem_size] (op)= src[off1]
     * (op) by reduce; ADD reads/writes dtype values.  With use_value, a
     * scatter takes value (elem_size bytes) instead of src[off1].  With
     * allow_negative, k in [-index_size, 0) counts from the end. */
    TFL_INDEX_SCATTER_GATHER = 4,
    /* Advanced indexing over an iteration of (out, in, index offset):
     * offset = sum over i < n_indices of k_i * strides[i] (bytes), with
     * k_i = *(int64 *)(index_ptrs[i] + off2) in [-sizes[i], sizes[i])
     * (negative counts from the end);
     *   get (x[idx]):          out[off0] = in[off1 + offset]
     *   put (x[idx] = v):      out[off0 + offset] = in[off1] */
    TFL_INDEX_ADVANCED = 5,
    /* out[0..n) (contiguous) of dtype, by range_kind; computed in the
     * accumulate type: float for F32, double for F64, int64 for integer
     * arange; linspace into integers computes start + step * i in float
     * and truncates, as PyTorch's CUDA kernels do. */
    TFL_INDEX_RANGE = 6,
    /* triu / tril over the last two dims (row i, column j) of same-shaped
     * dst and src views (dst may be src): dst = src where kept, else zero
     * bytes; kept: upper ? j - i >= diagonal : j - i <= diagonal. */
    TFL_INDEX_TRIANGLE = 7,
    /* index_put_ over sorted indices (x[idx] backward, accumulate=True):
     * for z < outer_dim, p < numel (skipping, unless accumulate, all but
     * the last p of a run of equal sorted[p]):
     *   weight[sorted[p] * stride + z * stride_before + f]
     *     (+)= grad[positions[p] * stride + z * numel * stride + f],
     * f < stride; elements, += in dtype.  Rows must lie within
     * weight_bytes of weight; positions in [0, numel). */
    TFL_INDEX_PUT_SORTED = 8,
} tfl_index_kind;

typedef struct tfl_index_cat_input {
    const void *data;
    int64_t offset;           /* first coordinate along the cat dim */
    int64_t dim_size;         /* its extent along the cat dim */
    int64_t numel;
    int contiguous;           /* 0: sizes/strides describe it */
    int64_t sizes[TFL_INDEX_CAT_DIMS], strides[TFL_INDEX_CAT_DIMS];
} tfl_index_cat_input;

typedef struct tfl_index_op {
    tfl_index_kind kind;
    size_t elem_size;         /* bytes per element moved */
    tfl_dtype index_dtype;    /* TFL_DT_I32 / TFL_DT_I64 (SELECT, GATHER_ROWS,
                               * SCATTER_GATHER) */
    tfl_dtype dtype;          /* element type where arithmetic is done
                               * (SCATTER_GATHER with ADD, RANGE) */
    union {
        struct {
            tfl_index_tensor dst, src, index;
            int dst_dim, src_dim;
            int64_t index_bound;
            int index_dst;
            tfl_index_reduce reduce;
            double alpha;
        } select;
        struct {
            void *out;
            const void *in, *idx;
            int64_t n_index, row_bytes, in_stride, out_stride, in_rows;
            int allow_negative;
        } gather_rows;
        struct {
            void *out;
            int ndim, dim;
            int64_t out_sizes[TFL_INDEX_CAT_DIMS], out_strides[TFL_INDEX_CAT_DIMS];
            int64_t dim_stride;
            int n_inputs;
            const tfl_index_cat_input *inputs;
        } cat;
        struct {
            tfl_index_iter iter;
            void *self;
            const void *src, *index;
            int scatter;
            tfl_index_reduce reduce;
            int64_t index_size, index_stride;
            int use_value;
            unsigned char value[16];
            int allow_negative;
        } scatter_gather;
        struct {
            tfl_index_iter iter;
            void *out;
            const void *in;
            int put;
            int n_indices;
            const void *index_ptrs[TFL_INDEX_MAX_DIMS];
            int64_t sizes[TFL_INDEX_MAX_DIMS], strides[TFL_INDEX_MAX_DIMS];
        } advanced;
        struct {
            tfl_index_range_kind range_kind;
            void *out;
            int64_t n;
            double start, step, end;        /* floating outputs */
            int64_t istart, istep, iend;    /* integer outputs */
            int64_t steps, halfway;         /* linspace */
        } range;
        struct {
            tfl_index_tensor dst, src;
            int upper;
            int64_t diagonal;
        } triangle;
        struct {
            const int64_t *sorted, *positions;
            const void *grad;
            void *weight;
            int64_t weight_bytes;
            int64_t numel, stride, stride_before, outer_dim;
            int accumulate;
        } put_sorted;
    } u;
} tfl_index_op;

#endif

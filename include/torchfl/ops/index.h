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

typedef enum tfl_index_kind {
    /* index_select: a slice is a tensor without its select dim; slice
     * element e (row-major over that tensor's own remaining dims, which
     * need not match between dst and src but must count the same) of
     * index position k:
     *   dst[slice_dst(e) + k * dst.strides[dst_dim]]
     *     = src[slice_src(e) + index[k] * src.strides[src_dim]]
     * for k < dst.sizes[dst_dim] (= index elements); index is read
     * row-major over its own view; each value in [0, src_dim_size). */
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
    tfl_dtype index_dtype;    /* TFL_DT_I32 / TFL_DT_I64 (SELECT, GATHER_ROWS) */
    union {
        struct {
            tfl_index_tensor dst, src, index;
            int dst_dim, src_dim;
            int64_t src_dim_size;
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
    } u;
} tfl_index_op;

#endif

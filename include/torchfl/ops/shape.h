/*
 * torchfl/ops/shape.h - the "shape" op of the backend ABI: data movement
 * that rearranges a tensor's elements by index arithmetic alone:
 * reflect / replicate padding, im2col / col2im, and their gradients;
 * tril / triu index lists; the jagged byte copies FSDP's all-gather and
 * reduce-scatter pack and unpack with (split_with_sizes_copy, _chunk_cat).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_SHAPE reads this struct.
 */
#ifndef TORCHFL_OPS_SHAPE_H
#define TORCHFL_OPS_SHAPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_shape_kind {
    /* Padding of the last nspatial (1..3) dimensions of a 5-D view
     * [batch, plane, d, h, w] (unused leading spatial dims have size 1 and
     * pad 0).  An output coordinate o of a spatial dim with input size n
     * and leading pad p (p may be negative: cropping) reads input index
     *   reflect:   r = o - p; r < 0 -> -r; r >= n -> 2(n-1) - r
     *   replicate: clamp(o - p, 0, n - 1)
     * Forward: y[b][c][o] = x[b][c][map(o)].
     * Backward: x[b][c][map(o)] += y[b][c][o] for every o (x holds the
     * input gradient, already zeroed by the caller; y the output gradient). */
    TFL_SHAPE_PAD_REFLECT = 1,
    TFL_SHAPE_PAD_REPLICATE = 2,
    /* Patches of a [channels, height, width] image (F.unfold), for each
     * of nbatch images (im + b * im_batch_stride, col + b * col_batch_stride):
     *   col[((c * kh + i) * kw + j) * height_col * width_col + hc * width_col + wc]
     *     = im[c][hc * stride_h - pad_h + i * dil_h][wc * stride_w - pad_w + j * dil_w]
     * (0 where that is outside the image).  All contiguous. */
    TFL_SHAPE_IM2COL = 3,
    /* The adjoint (F.fold, unfold's gradient): im = sum of the col entries
     * that read each image element (im is overwritten, not accumulated).
     * dtype F32 or F64. */
    TFL_SHAPE_COL2IM = 4,
    /* torch.tril_indices / triu_indices: out (I32 or I64) holds 2 x n
     * (rows then columns), row-major order of the kept coordinates.
     *   TRIL: row k (k = 0, 1, ...) is row `offset` + k and keeps columns
     *     0 .. min(first_row + k, cols) - 1.
     *   TRIU: the first `part` / cols rows keep all cols columns; after
     *     them, row k of the rest keeps columns offset + k .. cols - 1
     *     (first_row - k of them).
     * Coordinates are emitted until n are written. */
    TFL_SHAPE_TRIL_INDICES = 5,
    TFL_SHAPE_TRIU_INDICES = 6,
    /* split_with_sizes_copy of a contiguous tensor (tfl_split_copy_geom):
     * for each split s and chunk i < num_chunks,
     *   copy chunk_bytes[s] bytes from src[s] + i * src_stride
     *   to dst[s] + i * chunk_bytes[s].
     * dtype is ignored (bytes).  The three arrays are device memory, read
     * when the op runs (the program filled them earlier on the stream). */
    TFL_SHAPE_SPLIT_COPY = 7,
    /* _chunk_cat of contiguous tensors (tfl_chunk_cat_geom): for each
     * slice z < leading, chunk y < num_chunks, tensor t < ntensor, with
     * r = 2 when bf16_to_f32 (bf16 in, fp32 out; byte counts are of dst)
     * else 1, w = pad[t] / r and n = clamp(actual[t] - y * w, 0, w):
     *   from = srcs[t] + z * actual[t] + y * w
     *   to   = dst + z * slice_size + y * chunk_size + start[t]
     *   to[0 .. n/r elements) = from[...] (converted when r = 2), the
     *   rest of to[0 .. pad[t] bytes) zero.
     * The arrays are device memory, read when the op runs. */
    TFL_SHAPE_CHUNK_CAT = 8,
} tfl_shape_kind;

typedef struct tfl_split_copy_geom {
    int64_t nsplit, num_chunks, src_stride;  /* src_stride in bytes */
    const void *dst_addrs;    /* device: nsplit pointers */
    const void *src_addrs;    /* device: nsplit pointers */
    const void *chunk_bytes;  /* device: nsplit int64 */
} tfl_split_copy_geom;

typedef struct tfl_chunk_cat_geom {
    int64_t ntensor, num_chunks, leading, slice_size, chunk_size;  /* bytes */
    int bf16_to_f32;
    void *dst;
    const void *srcs;         /* device: ntensor pointers */
    const void *start;        /* device: ntensor int64, byte offset in a chunk */
    const void *actual;       /* device: ntensor int64, bytes per slice */
    const void *pad;          /* device: ntensor int64, dst bytes per chunk */
} tfl_chunk_cat_geom;

typedef struct tfl_triangle_geom {
    int64_t n, offset, first_row, cols, part;
    void *out;
} tfl_triangle_geom;

typedef struct tfl_im2col_geom {
    int64_t channels, height, width;
    int64_t kh, kw, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
    int64_t height_col, width_col;
    int64_t nbatch, im_batch_stride, col_batch_stride;  /* elements */
    void *im, *col;
} tfl_im2col_geom;

typedef struct tfl_shape_op {
    tfl_shape_kind kind;
    tfl_dtype dtype;          /* forward: any; backward: F32 or F64 */
    int backward;             /* 0: y = pad(x); 1: x += pad^T(y) */
    /* [batch, plane, d, h, w] sizes and strides in elements */
    int64_t x_size[5], x_stride[5];
    int64_t y_size[5], y_stride[5];
    int64_t pad[3];           /* leading pad of d, h, w */
    /* the (batch, plane) pairs this op covers */
    int64_t batch0, nbatch, plane0, nplane;
    void *x;                  /* unpadded tensor (forward: read) */
    void *y;                  /* padded tensor (forward: written) */
    tfl_im2col_geom im2col;   /* IM2COL, COL2IM */
    tfl_triangle_geom tri;    /* TRIL_INDICES, TRIU_INDICES (dtype I32/I64) */
    tfl_split_copy_geom split;   /* SPLIT_COPY */
    tfl_chunk_cat_geom ccat;     /* CHUNK_CAT */
} tfl_shape_op;

#endif

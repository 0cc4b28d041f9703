/*
 * torchfl/ops/spatial.h - the "spatial" ops of the backend ABI: 2-D
 * pooling (max, average, adaptive average, adaptive max), 2-D resizing
 * (nearest, bilinear; 1-D linear and nearest as 2-D with one row) with
 * their backward passes, 3-D max pooling, and roll.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_SPATIAL reads this struct.
 *
 * Geometry.  Every pooling/resize op works on n * c planes.  The "input"
 * image is in_h x in_w, the "output" (pooled or resized) image is
 * out_h x out_w, as in the forward pass.  Each tensor is described by a
 * data pointer and element strides for (n, c, h, w), so NCHW, NHWC
 * (channels_last) and strided views are all one op.  A forward op reads
 * `in` and writes `out`; a backward op reads the output gradient through
 * `out` and writes the input gradient through `in`.
 *
 * Backward ops either overwrite the input gradient (accumulate = 0: every
 * element of it is written) or add into it (accumulate = 1: what a kernel
 * that atomically adds into a zeroed buffer does).
 *
 * Accumulation is in float for float16/bfloat16/float32 and in double for
 * float64, as PyTorch's CUDA kernels do.
 */
#ifndef TORCHFL_OPS_SPATIAL_H
#define TORCHFL_OPS_SPATIAL_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_spatial_kind {
    /* out = max of in over the window; indices (same strides as out) get
     * the argmax as h * in_w + w inside its plane.  A NaN wins (the
     * last NaN: each replaces the best so far, as in PyTorch's kernel);
     * ties keep the first in row-major window order.  The window of
     * output (oh, ow) starts at oh*stride_h - pad_h and takes
     * kernel_h rows dilation_h apart (likewise w), clipped to the image. */
    TFL_SPATIAL_MAXPOOL_FWD = 1,
    /* in[plane][indices[o]] gets out[o] for every output position o of
     * the plane, positions sharing an index summed (max-pool and
     * adaptive-max-pool backward).  An index outside [0, in_h*in_w) is
     * an error. */
    TFL_SPATIAL_MAX_BWD = 2,
    /* out = sum of the window / divisor.  Window: rows
     * [oh*stride_h - pad_h, min(that + kernel_h, in_h + pad_h)) (likewise
     * w), clipped to the image; divisor = divisor_override if nonzero,
     * else the unclipped window size (count_include_pad) or the clipped
     * one; an empty clipped window gives 0. */
    TFL_SPATIAL_AVGPOOL_FWD = 3,
    /* The adjoint of AVGPOOL_FWD: each output gradient spread over its
     * clipped window, divided by the same divisor. */
    TFL_SPATIAL_AVGPOOL_BWD = 4,
    /* Adaptive pooling: output (oh, ow) covers rows
     * [floor(oh*in_h/out_h), ceil((oh+1)*in_h/out_h)) (likewise w). */
    TFL_SPATIAL_ADAPTIVE_AVG_FWD = 5,
    TFL_SPATIAL_ADAPTIVE_AVG_BWD = 6,
    TFL_SPATIAL_ADAPTIVE_MAX_FWD = 7,   /* + indices, as MAXPOOL_FWD */
    /* Nearest resize, PyTorch's CUDA mapping: source row of output row
     * oh is min(floorf(oh * scale_h), in_h - 1), or with `exact`
     * min(floorf((oh + 0.5f) * scale_h), in_h - 1); oh itself when
     * in_h == out_h.  scale_h = input rows per output row (float). */
    TFL_SPATIAL_NEAREST_FWD = 8,
    /* Its backward, as PyTorch's CUDA kernel computes it: input row ih
     * gathers output rows [min(ceilf(ih * bscale_h), out_h),
     * min(ceilf((ih+1) * bscale_h), out_h)) where bscale_h = scale_h is
     * here OUTPUT rows per input row; with `exact` ceilf(x * bscale_h - 0.5f). */
    TFL_SPATIAL_NEAREST_BWD = 9,
    /* Bilinear resize (PyTorch's area_pixel_compute_source_index):
     * source coordinate r = scale_h * oh with align_corners, else
     * max(scale_h * (oh + 0.5f) - 0.5f, 0); rows (int)r and (int)r + 1
     * (clamped to in_h - 1) weighted 1 - frac and frac; likewise w.
     * scale_h = input rows per output row.  Arithmetic in float, in
     * double for float64 data. */
    TFL_SPATIAL_BILINEAR_FWD = 10,
    TFL_SPATIAL_BILINEAR_BWD = 11,      /* its adjoint, same scales */
    /* out[o][j][k] = in[o][(j + start) % size][k], o < outer, j < size,
     * k < inner; both contiguous, elements of elem_size bytes. */
    TFL_SPATIAL_ROLL = 12,
    /* 3-D max pooling over n * c volumes in_d x in_h x in_w: as
     * MAXPOOL_FWD with a depth axis (kernel_d, stride_d, pad_d,
     * dilation_d); the index is (d * in_h + h) * in_w + w inside its
     * volume.  Strides: in_stride/out_stride give (n, c, h, w),
     * in_stride_d/out_stride_d the depth axis. */
    TFL_SPATIAL_MAXPOOL3D_FWD = 13,
    /* Its backward: in[volume][indices[o]] += out[o] (index -1 skipped,
     * any other outside the volume an error); accumulate as usual. */
    TFL_SPATIAL_MAX3D_BWD = 14,
    /* 3-D average pooling: AVGPOOL_FWD with a depth axis (window
     * clipping, count_include_pad and divisor_override as there). */
    TFL_SPATIAL_AVGPOOL3D_FWD = 15,
    /* Its adjoint: each output gradient / divisor added to every element
     * of its clipped window (accumulate = 0: zeroed first). */
    TFL_SPATIAL_AVGPOOL3D_BWD = 16,
    /* Trilinear resize: BILINEAR_FWD's source coordinate and taps along
     * each of d (scale_d), h and w; weights in float (double for
     * float64 data). */
    TFL_SPATIAL_TRILINEAR_FWD = 17,
    TFL_SPATIAL_TRILINEAR_BWD = 18,     /* its adjoint, same scales */
    /* Nearest resize along d (scale_d), h and w, each axis mapped as
     * NEAREST_FWD maps rows (no identity shortcut), and its backward as
     * NEAREST_BWD gathers (scales = output per input; overwrite). */
    TFL_SPATIAL_NEAREST3D_FWD = 19,
    TFL_SPATIAL_NEAREST3D_BWD = 20,
    /* Bicubic 2-D resize (PyTorch's cubic convolution, A = -0.75):
     * source coordinate r = scale * o (align_corners) or
     * scale * (o + 0.5) - 0.5, taps floor(r) - 1 .. floor(r) + 2 clamped
     * to the image; identity copy when both sizes agree.  Weights in
     * float (double for float64).  BWD: its adjoint, added into `in`
     * (accumulate) or overwriting it. */
    TFL_SPATIAL_BICUBIC_FWD = 21,
    TFL_SPATIAL_BICUBIC_BWD = 22,
} tfl_spatial_kind;

typedef struct tfl_spatial_op {
    tfl_spatial_kind kind;
    tfl_dtype dtype;          /* F32, F64, F16, BF16 (pool/resize) */
    int64_t n, c;             /* batch and channels: n * c planes */
    int64_t in_h, in_w;       /* input image */
    int64_t out_h, out_w;     /* pooled / resized image */
    void *in;                 /* forward: read; backward: written */
    int64_t in_stride[4];     /* elements, (n, c, h, w) */
    void *out;                /* forward: written; backward: read */
    int64_t out_stride[4];
    int64_t *indices;         /* max pools: strides of out */
    int accumulate;           /* backward: add into `in` */
    /* pooling window */
    int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
    int dilation_h, dilation_w;
    int count_include_pad;
    int64_t divisor_override; /* 0 = none */
    /* resize */
    int align_corners;
    int exact;                /* nearest-exact */
    /* As the kernel got them: float for every dtype but float64
     * bilinear, whose coordinates are computed in double. */
    double scale_h, scale_w;
    /* roll */
    int64_t outer, size, inner, start;
    size_t elem_size;
    /* 3-D ops (MAXPOOL3D_*, MAX3D_BWD, AVGPOOL3D_*, TRILINEAR_*): the depth axis */
    int64_t in_d, out_d;
    int64_t in_stride_d, out_stride_d;
    int kernel_d, stride_d, pad_d, dilation_d;
    double scale_d;           /* trilinear, nearest 3-D: the depth axis' scale */
} tfl_spatial_op;

#endif

/*
 * spatial_internal.h - what the "spatial" family's decoder files share:
 * the kernel ids, the per-kernel cookie and the range checks.  Private to
 * src/route/optable/spatial*.c.
 */
#ifndef TFL_OPTABLE_SPATIAL_INTERNAL_H
#define TFL_OPTABLE_SPATIAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "route/optable.h"

/* The kernels (aten/src/ATen/native/cuda/<file>.cu, torch 2.11 - 2.15). */
enum {
    SK_MAXPOOL_NCHW = 1,    /* DilatedMaxPool2d.cu max_pool_forward_nchw<s, idx>   */
    SK_MAXPOOL_NHWC,        /* max_pool_forward_nhwc<s, idx>                       */
    SK_MAXPOOL_BWD_NCHW,    /* max_pool_backward_nchw<s, acc, idx>                 */
    SK_MAXPOOL_BWD_NHWC,    /* max_pool_backward_nhwc<s, acc>                      */
    SK_AVGPOOL_NCHW,        /* AveragePool2d.cu avg_pool2d_out_cuda_frame<s, acc>  */
    SK_AVGPOOL_NHWC,        /* avg_pool2d_out_cuda_frame_nhwc<s, acc>             */
    SK_AVGPOOL_BWD_NCHW,    /* avg_pool2d_backward_out_cuda_frame<s, acc, idx>    */
    SK_AVGPOOL_BWD_NHWC,    /* avg_pool2d_backward_out_cuda_frame_nhwc<s, acc, idx> */
    SK_AAVG,                /* AdaptiveAveragePooling.cu adaptive_average_pool<s> */
    SK_AAVG_BWD,            /* adaptive_average_gradinput<s> (+=)                 */
    SK_AAVG_BWD_ATOMIC,     /* atomic_adaptive_average_gradinput<s> (+=)          */
    SK_AAVG_NHWC,           /* adaptive_average_pool_nhwc<idx, s>                 */
    SK_AAVG_BWD_NHWC,       /* adaptive_average_gradinput_nhwc<idx, s>            */
    SK_AMAX,                /* AdaptiveMaxPooling2d.cu adaptivemaxpool<s>         */
    SK_AMAX_BWD,            /* adaptivemaxgradinput<s> (+=)                       */
    SK_AMAX_BWD_ATOMIC,     /* atomicadaptivemaxgradinput<s> (+=)                 */
    SK_AVGPOOL_BWD_NONOVERLAP, /* AveragePool2d.cu avg_pool2d_backward_nonoverlap_frame<s, acc, idx> */
    SK_NEAREST,             /* UpSampleNearest2d.cu upsample_nearest2d_out_frame<s, fn> */
    SK_NEAREST_NHWC,        /* upsample_nearest2d_nhwc_out_frame<s, fn>           */
    SK_NEAREST_BWD,         /* upsample_nearest2d_backward_out_frame<s, acc, fn>  */
    SK_NEAREST_BWD_NHWC,    /* upsample_nearest2d_backward_nhwc_out_frame<s, acc, fn> */
    SK_BILINEAR,            /* UpSampleBilinear2d.cu upsample_bilinear2d_out_frame<s, acc> */
    SK_BILINEAR_NHWC,       /* upsample_bilinear2d_nhwc_out_frame<s, acc>         */
    SK_BILINEAR_BWD,        /* upsample_bilinear2d_backward_out_frame<s, acc>     */
    SK_BILINEAR_BWD_NHWC,   /* upsample_bilinear2d_backward_nhwc_out_frame<s, acc> */
    SK_ROLL,                /* TensorTransformations.cu roll_cuda_kernel<s>      */
    /* spatial_3d.c: 1-D resizes (as 2-D with one row) and 3-D max pooling */
    SK_NEAREST1D,           /* UpSampleNearest1d.cu upsample_nearest1d_out_frame<s, fn> */
    SK_NEAREST1D_BWD,       /* upsample_nearest1d_backward_out_frame<s, acc, fn> */
    SK_LINEAR1D,            /* UpSampleLinear1d.cu upsample_linear1d_out_frame<s, acc> */
    SK_LINEAR1D_BWD,        /* upsample_linear1d_out_frame_backward<s, acc>      */
    SK_MAXPOOL3D,           /* DilatedMaxPool3d.cu max_pool3d_with_indices_single_out_frame<s> */
    SK_MAXPOOL3D_BWD,       /* max_pool3d_with_indices_backward_single_out_frame<s> */
    SK_AVGPOOL3D,           /* AveragePool3d.cu avg_pool3d_cuda_update_output<[KW,] s, acc> */
    SK_AVGPOOL3D_BWD,       /* avg_pool3d_cuda_update_grad_input<s, acc> (no overlap) */
    SK_AVGPOOL3D_BWD_ATOMIC,/* avg_pool3d_cuda_update_grad_input_atomic<s, acc> */
    SK_AVGPOOL3D_BWD_S1,    /* avg_pool3d_single_backward_out_frame_stride1<s, acc> */
    SK_TRILINEAR,           /* UpSampleTrilinear3d.cu upsample_trilinear3d_out_frame<s, acc> */
    SK_TRILINEAR_BWD,       /* upsample_trilinear3d_backward_out_frame<s, acc>   */
    SK_NEAREST3D,           /* UpSampleNearest3d.cu upsample_nearest3d_out_frame<s, fn> */
    SK_NEAREST3D_BWD,       /* upsample_nearest3d_backward_out_frame<s, acc, fn> */
    SK_BICUBIC,             /* UpSampleBicubic2d.cu upsample_bicubic2d_out_frame<s, acc> */
    SK_BICUBIC_BWD,         /* upsample_bicubic2d_backward_out_frame<s, acc>     */
    SK_COUNT
};

/* What match() parsed from a kernel name; lives as long as the process. */
typedef struct spatial_kernel {
    int id;
    tfl_dtype dtype;
    size_t elem_size;
    int wide;                /* index_t is int64 */
    int exact;               /* nearest-exact */
    int kw;                  /* avg_pool3d: kernel width template argument, 0 if none */
    size_t acc_size;         /* accumulate type: 4 float, 8 double, 0 none */
    int form;                /* parameter list: 1 where torch 2.15 changed it, 2 a variant
                                without a leading count (see the decoders) */
    int row;                 /* its row in spatial.c's kernel table (the layout) */
} spatial_kernel;

#define SARG(c, i, T) TFL_KARG(c, T, i)

/* Bytes spanned by an n x c x h x w view with these element strides
 * (all >= 0); -1 when a stride is negative or the span overflows. */
int64_t sp_span(int64_t n, int64_t c, int64_t h, int64_t w, const int64_t *st, size_t es);
/* Are op's in/out (and indices) inside device memory?  err set if not. */
tfl_status sp_check_ranges(const tfl_spatial_op *s, char *err, size_t errlen);
/* Strides (n, c, h, w) of a contiguous NCHW / NHWC tensor. */
void sp_nchw(int64_t *st, int64_t c, int64_t h, int64_t w);
void sp_nhwc(int64_t *st, int64_t c, int64_t h, int64_t w);

/* One decoder per group (spatial_pool.c, spatial_resize.c): fill op from
 * the launch; TFL_OK when op is ready to route. */
tfl_status sp_decode_pool(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                          char *err, size_t errlen);
tfl_status sp_decode_3d(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                        char *err, size_t errlen);
tfl_status sp_decode_resize(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                            char *err, size_t errlen);

#endif

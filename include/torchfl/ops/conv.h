/*
 * torchfl/ops/conv.h - the convolution op (TFL_OP_CONV), part of the
 * backend ABI (included by torchfl/backend.h).
 *
 * One convolution in one of its three directions, as cuDNN's backend API
 * describes it (the cuDNN intercept fills this from an execution plan).
 * Every tensor is given by its logical dims in N, C, spatial... order and
 * its strides in elements, so NCHW, NHWC (channels_last) and any other
 * strided layout are the same op.  Groups follow from the channel counts:
 * x has C channels, w has dims [K, C / groups, spatial...].
 *
 *   FWD:        y  = alpha * conv(x, w)        + beta * y  (+ bias[k])
 *               (optionally + z_alpha * z, then ReLU: see below)
 *   BWD_DATA:   x  = alpha * conv^T(y, w)      + beta * x   (y holds dy)
 *   BWD_FILTER: w  = alpha * corr(x, y)        + beta * w   (y holds dy)
 *
 * beta == 0 means the output is not read (NaN there must not leak).
 * Output spatial size: y = (x + pad_pre + pad_post - dil * (k - 1) - 1) / stride + 1
 * (floor), which the op checks.
 */
#ifndef TORCHFL_OPS_CONV_H
#define TORCHFL_OPS_CONV_H

#include <stdint.h>

#define TFL_CONV_MAX_SPATIAL 3

typedef enum tfl_conv_mode {
    TFL_CONV_FWD = 0,
    TFL_CONV_BWD_DATA = 1,
    TFL_CONV_BWD_FILTER = 2
} tfl_conv_mode;

/* One operand: data (device memory), dims and strides (elements) for
 * 2 + spatial entries in N, C, spatial order (w: K, C/groups, spatial). */
typedef struct tfl_conv_tensor {
    void *data;
    int64_t dims[2 + TFL_CONV_MAX_SPATIAL];
    int64_t strides[2 + TFL_CONV_MAX_SPATIAL];
} tfl_conv_tensor;

typedef struct tfl_conv_op {
    tfl_conv_mode mode;
    int spatial;              /* number of spatial dims, 1..3              */
    tfl_dtype dtype;          /* element type of x, w and y                */
    tfl_compute compute;      /* accumulation precision                    */
    int cross_correlation;    /* 1: PyTorch's conv; 0: filter flipped      */
    int64_t groups;           /* x.dims[1] / w.dims[1]                     */
    int64_t pad_pre[TFL_CONV_MAX_SPATIAL];
    int64_t pad_post[TFL_CONV_MAX_SPATIAL];
    int64_t stride[TFL_CONV_MAX_SPATIAL];
    int64_t dilation[TFL_CONV_MAX_SPATIAL];
    tfl_conv_tensor x, w, y;  /* the output of the mode is written         */
    double alpha, beta;
    const void *bias;         /* FWD only: NULL, or K elements of dtype
                                 added to output channel k               */
    /* FWD only, the fused epilogue of cuDNN's conv + add + bias + ReLU
     * graph: y = relu?(alpha * conv + beta * y + z_alpha * z + bias). */
    tfl_conv_tensor z;        /* z.data NULL: none; dims as y's          */
    double z_alpha;
    int relu;                 /* 1: max(v, 0) applied last               */
} tfl_conv_op;

#endif

/*
 * spatial_3d.c - decode the launches of PyTorch's 1-D resize kernels
 * (UpSampleNearest1d.cu, UpSampleLinear1d.cu) and 3-D max and average
 * pooling kernels (DilatedMaxPool3d.cu, AveragePool3d.cu) and trilinear
 * resize kernels (UpSampleTrilinear3d.cu), nearest 3-D and bicubic 2-D
 * resize kernels into a tfl_spatial_op.  Parameter lists as in the sm_80
 * cubins of torch 2.11 - 2.15 (layouts: spatial.c's table;
 * docs/op-spatial.md); scales are the kernels' accumulate type.
 *
 * A 1-D resize is the 2-D op with one row (in_h = out_h = 1), whose row
 * mapping is then the identity, so the host's 2-D nearest and bilinear
 * code runs it with the kernel's own float scale along w.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "route/optable/spatial_internal.h"

/* GenericPackedTensorAccessor<T, 3, DefaultPtrTraits, int64_t>: 56 bytes,
 * { T *data; int64 sizes[3]; int64 strides[3]; } (elements). */
static void accessor3(const tfl_kcall *c, int i, void **data, int64_t *sizes, int64_t *strides)
{
    *data = TFL_KARG_AT(c, void *, i, 0);
    for (int d = 0; d < 3; d++) {
        sizes[d] = TFL_KARG_AT(c, int64_t, i, 8 + 8 * d);
        strides[d] = TFL_KARG_AT(c, int64_t, i, 32 + 8 * d);
    }
}

/* (n, c, w) strides of a 1-D tensor -> the 2-D op's (n, c, h, w). */
static void strides_1d(int64_t *st, const int64_t *s3)
{
    st[0] = s3[0];
    st[1] = s3[1];
    st[2] = 0;
    st[3] = s3[2];
}

static tfl_status decode_1d(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                            char *err, size_t errlen)
{
    s->dtype = k->dtype;
    s->exact = k->exact;
    s->in_h = s->out_h = 1;
    s->scale_h = 1.0;
    int64_t isz[3], osz[3], ist[3], ost[3];
    switch (k->id) {
    case SK_NEAREST1D:
        /* (const s *in, size_t N, C, W, OW, s *out, float scale);
         * contiguous */
        s->kind = TFL_SPATIAL_NEAREST_FWD;
        s->in = SARG(c, 0, void *);
        s->n = (int64_t)SARG(c, 1, uint64_t);
        s->c = (int64_t)SARG(c, 2, uint64_t);
        s->in_w = (int64_t)SARG(c, 3, uint64_t);
        s->out_w = (int64_t)SARG(c, 4, uint64_t);
        s->out = SARG(c, 5, void *);
        s->scale_w = SARG(c, 6, float);
        sp_nchw(s->in_stride, s->c, 1, s->in_w);
        sp_nchw(s->out_stride, s->c, 1, s->out_w);
        break;
    case SK_NEAREST1D_BWD:
        /* (const s *gout, size_t N, C, OW, W, s *gin, float scale); scale
         * = output columns per input column; gin written everywhere */
        s->kind = TFL_SPATIAL_NEAREST_BWD;
        s->out = SARG(c, 0, void *);
        s->n = (int64_t)SARG(c, 1, uint64_t);
        s->c = (int64_t)SARG(c, 2, uint64_t);
        s->out_w = (int64_t)SARG(c, 3, uint64_t);
        s->in_w = (int64_t)SARG(c, 4, uint64_t);
        s->in = SARG(c, 5, void *);
        s->scale_w = SARG(c, 6, float);
        sp_nchw(s->in_stride, s->c, 1, s->in_w);
        sp_nchw(s->out_stride, s->c, 1, s->out_w);
        break;
    case SK_LINEAR1D:
    case SK_LINEAR1D_BWD: {
        /* forward (int OW, acc rw, bool ac, accessor<const s,3> in,
         * accessor<s,3> out); backward (int OW, acc rw, bool ac,
         * accessor<s,3> gin, accessor<const s,3> gout), gin zeroed by
         * the caller and added into.  Form 2: torch 2.14+'s
         * upsample_linear1d_out_frame[_backward]_unrolled, the same
         * without the leading OW (the accessors give every size). */
        int fwd = k->id == SK_LINEAR1D, a = k->form == 2 ? 0 : 1;
        s->kind = fwd ? TFL_SPATIAL_BILINEAR_FWD : TFL_SPATIAL_BILINEAR_BWD;
        s->accumulate = !fwd;
        s->scale_w = k->acc_size == 8 ? SARG(c, a, double) : (double)SARG(c, a, float);
        s->scale_h = 0.0;
        s->align_corners = SARG(c, a + 1, uint8_t) != 0;
        accessor3(c, a + 2, &s->in, isz, ist);
        accessor3(c, a + 3, &s->out, osz, ost);
        s->n = isz[0];
        s->c = isz[1];
        s->in_w = isz[2];
        s->out_w = osz[2];
        strides_1d(s->in_stride, ist);
        strides_1d(s->out_stride, ost);
        if (osz[0] != isz[0] || osz[1] != isz[1] ||
            (a && (int64_t)SARG(c, 0, int32_t) != osz[2])) {
            snprintf(err, errlen, "upsample_linear1d: accessor sizes do not agree");
            return TFL_ERR_UNSUPPORTED;
        }
        break;
    }
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (s->n < 0 || s->c < 0 || s->in_w < 0 || s->out_w < 0 || !(s->scale_w >= 0)) {
        snprintf(err, errlen, "%s: bad sizes or scale", k->id == SK_LINEAR1D ||
                 k->id == SK_LINEAR1D_BWD ? "upsample_linear1d" : "upsample_nearest1d");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* Whole contiguous tensor of `count` elements of `es` bytes at p? */
static int dev_ok(const void *p, int64_t count, size_t es)
{
    return count >= 0 && count <= INT64_MAX / 16 && tfl_kdev_ok(p, (size_t)count * es);
}

/* max_pool3d_with_indices_single_out_frame<s>(const s *in, s *out,
 * int64 *ind, int C, int T, H, W, int N, OT, OH, OW, kT, kH, kW, dT, dH,
 * dW, pT, pH, pW, dilT, dilH, dilW, int offsetZ, bool channels_last) and
 * ..._backward_single_out_frame<s>(s *gin, const s *gout,
 * const int64 *ind, int C, T, H, W, N, OT, OH, OW, int offsetZ,
 * bool channels_last).  Contiguous NCDHW or NDHWC; one launch covers
 * z = offsetZ .. offsetZ + grid.z * block.z of N*C*OT volumes' frames. */
static tfl_status decode_maxpool3d(const tfl_kcall *c, const spatial_kernel *k,
                                   tfl_spatial_op *s, char *err, size_t errlen)
{
    int fwd = k->id == SK_MAXPOOL3D;
    int a = fwd ? 24 : 12;            /* channels_last parameter */
    int z = a - 1;                    /* offsetZ */
    int64_t C = SARG(c, 3, int32_t);
    s->in_d = SARG(c, 4, int32_t);
    s->in_h = SARG(c, 5, int32_t);
    s->in_w = SARG(c, 6, int32_t);
    s->n = SARG(c, 7, int32_t);
    s->out_d = SARG(c, 8, int32_t);
    s->out_h = SARG(c, 9, int32_t);
    s->out_w = SARG(c, 10, int32_t);
    s->c = C;
    int cl = SARG(c, a, uint8_t) != 0;
    int64_t offz = SARG(c, z, int32_t);
    if (C < 0 || s->n < 0 || s->in_d < 0 || s->in_h < 0 || s->in_w < 0 || s->out_d < 0 ||
        s->out_h < 0 || s->out_w < 0) {
        snprintf(err, errlen, "max_pool3d: negative size");
        return TFL_ERR_INVALID;
    }
    int64_t total = s->n * C * s->out_d;
    int64_t zspan = (int64_t)c->grid[2] * c->block[2];
    if (offz != 0 || zspan < total) {
        /* split launches (more than 65535 frames per z) are not decoded */
        snprintf(err, errlen, "max_pool3d: launch covers part of the output (offsetZ %lld)",
                 (long long)offz);
        return TFL_ERR_UNSUPPORTED;
    }
    s->kind = fwd ? TFL_SPATIAL_MAXPOOL3D_FWD : TFL_SPATIAL_MAX3D_BWD;
    s->dtype = k->dtype;
    if (fwd) {
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        s->kernel_d = SARG(c, 11, int32_t);
        s->kernel_h = SARG(c, 12, int32_t);
        s->kernel_w = SARG(c, 13, int32_t);
        s->stride_d = SARG(c, 14, int32_t);
        s->stride_h = SARG(c, 15, int32_t);
        s->stride_w = SARG(c, 16, int32_t);
        s->pad_d = SARG(c, 17, int32_t);
        s->pad_h = SARG(c, 18, int32_t);
        s->pad_w = SARG(c, 19, int32_t);
        s->dilation_d = SARG(c, 20, int32_t);
        s->dilation_h = SARG(c, 21, int32_t);
        s->dilation_w = SARG(c, 22, int32_t);
    } else {
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        s->accumulate = 1;            /* gin zeroed, atomically added into */
    }
    s->indices = SARG(c, 2, int64_t *);
    /* element strides of contiguous NCDHW / NDHWC */
    int64_t isp = s->in_d * s->in_h * s->in_w, osp = s->out_d * s->out_h * s->out_w;
    if (!cl) {
        s->in_stride[0] = C * isp; s->in_stride[1] = isp;
        s->in_stride_d = s->in_h * s->in_w; s->in_stride[2] = s->in_w; s->in_stride[3] = 1;
        s->out_stride[0] = C * osp; s->out_stride[1] = osp;
        s->out_stride_d = s->out_h * s->out_w; s->out_stride[2] = s->out_w; s->out_stride[3] = 1;
    } else {
        s->in_stride[0] = C * isp; s->in_stride[1] = 1;
        s->in_stride_d = s->in_h * s->in_w * C; s->in_stride[2] = s->in_w * C;
        s->in_stride[3] = C;
        s->out_stride[0] = C * osp; s->out_stride[1] = 1;
        s->out_stride_d = s->out_h * s->out_w * C; s->out_stride[2] = s->out_w * C;
        s->out_stride[3] = C;
    }
    int64_t nin = s->n * C * isp, nout = s->n * C * osp;
    if (nin == 0 || nout == 0) {
        s->kind = 0;                  /* nothing to do */
        return TFL_OK;
    }
    size_t es = tfl_dtype_size(s->dtype);
    if (!dev_ok(s->in, nin, es) || !dev_ok(s->out, nout, es) || !dev_ok(s->indices, nout, 8)) {
        snprintf(err, errlen, "max_pool3d: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* GenericPackedTensorAccessor<T, 4, DefaultPtrTraits, int64_t>: 72 bytes,
 * { T *data; int64 sizes[4]; int64 strides[4]; } (elements); here a
 * (N*C, T, H, W) view. */
static void accessor4(const tfl_kcall *c, int i, void **data, int64_t *sizes, int64_t *strides)
{
    *data = TFL_KARG_AT(c, void *, i, 0);
    for (int d = 0; d < 4; d++) {
        sizes[d] = TFL_KARG_AT(c, int64_t, i, 8 + 8 * d);
        strides[d] = TFL_KARG_AT(c, int64_t, i, 40 + 8 * d);
    }
}

/* Bytes spanned by a 4-D accessor view; -1 on a negative stride or
 * overflow, 0 when empty. */
static int64_t span4(const int64_t *sz, const int64_t *st, size_t es)
{
    int64_t hi = 0;
    for (int d = 0; d < 4; d++) {
        if (sz[d] <= 0)
            return 0;
        if (st[d] < 0 || sz[d] > (INT64_MAX / 4) / (st[d] + 1))
            return -1;
        hi += (sz[d] - 1) * st[d];
    }
    return (hi + 1) * (int64_t)es;
}

/* The divisor of 2.15's avg_pool3d backward kernels, from parameter a on:
 * (bool use_divisor, acc divisor) - or (int64 gin_numel, bool, acc) for
 * the atomic one; 0 when use_divisor is false.  (In the sm_80 SASS the
 * bool selects dividing by that value over the window's own count, the
 * int64 is not read.)  1 unless the value is not a positive integer. */
static int divisor_2_15(const tfl_kcall *c, const spatial_kernel *k, int a, int64_t *out)
{
    if (k->id == SK_AVGPOOL3D_BWD_ATOMIC)
        a++;
    *out = 0;
    if (!SARG(c, a, uint8_t))
        return 1;
    double d = k->acc_size == 8 ? SARG(c, a + 1, double) : (double)SARG(c, a + 1, float);
    if (!(d >= 1 && d <= (double)INT32_MAX) || d != floor(d))
        return 0;
    *out = (int64_t)d;
    return 1;
}

/* avg_pool3d kernels (AveragePool3d.cu), all on (N*C, T, H, W) accessors:
 *  update_output<s, acc>(in, out, kT, kH, kW, dT, dH, dW, pT, pH, pW,
 *      bool count_include_pad, int offsetZ, int divisor)
 *  update_output<KW, s, acc>: the same without kW (a template argument)
 *  update_grad_input[_atomic]<s, acc>(gout, gin, <as update_output>
 *      [, gin_numel: int, int64 in 2.14; not read]): gin zeroed by the
 *      caller, windows scattered;
 *      torch 2.15 (form 1) ends them (..., bool cip, int offsetZ
 *      [, int64 gin_numel (atomic)], bool use_divisor, acc divisor)
 *  single_backward_out_frame_stride1<s, acc>(gout, gin, kT, kH, kW,
 *      acc 1/divisor, int offsetZ): stride 1, no padding, gin gathered.
 * One launch must cover all z = N*C*frames (offsetZ 0). */
static tfl_status decode_avgpool3d(const tfl_kcall *c, const spatial_kernel *k,
                                   tfl_spatial_op *s, char *err, size_t errlen)
{
    int64_t isz[4], ist[4], osz[4], ost[4];
    int fwd = k->id == SK_AVGPOOL3D;
    if (fwd) {
        accessor4(c, 0, &s->in, isz, ist);
        accessor4(c, 1, &s->out, osz, ost);
    } else {
        accessor4(c, 0, &s->out, osz, ost);
        accessor4(c, 1, &s->in, isz, ist);
    }
    int64_t frames;
    int offz;
    if (k->id == SK_AVGPOOL3D_BWD_S1) {
        s->kernel_d = SARG(c, 2, int32_t);
        s->kernel_h = SARG(c, 3, int32_t);
        s->kernel_w = SARG(c, 4, int32_t);
        s->stride_d = s->stride_h = s->stride_w = 1;
        double norm = k->acc_size == 8 ? SARG(c, 5, double) : (double)SARG(c, 5, float);
        if (!(norm != 0) || !isfinite(1.0 / norm)) {
            snprintf(err, errlen, "avg_pool3d_backward: bad norm factor %g", norm);
            return TFL_ERR_INVALID;
        }
        /* 1/divisor as the kernel got it; windows are all whole here */
        s->divisor_override = llround(1.0 / norm);
        s->count_include_pad = 1;
        offz = SARG(c, 6, int32_t);
        frames = isz[1];              /* z runs over input frames */
    } else {
        int a = 2;
        s->kernel_d = SARG(c, a++, int32_t);
        s->kernel_h = SARG(c, a++, int32_t);
        s->kernel_w = k->kw ? k->kw : SARG(c, a++, int32_t);
        s->stride_d = SARG(c, a++, int32_t);
        s->stride_h = SARG(c, a++, int32_t);
        s->stride_w = SARG(c, a++, int32_t);
        s->pad_d = SARG(c, a++, int32_t);
        s->pad_h = SARG(c, a++, int32_t);
        s->pad_w = SARG(c, a++, int32_t);
        s->count_include_pad = SARG(c, a++, uint8_t) != 0;
        offz = SARG(c, a++, int32_t);
        if (k->form == 1 && !divisor_2_15(c, k, a, &s->divisor_override)) {
            snprintf(err, errlen, "avg_pool3d_backward: divisor is not a positive integer");
            return TFL_ERR_UNSUPPORTED;
        }
        if (k->form == 0)
            s->divisor_override = SARG(c, a, int32_t);
        frames = osz[1];
    }
    if (isz[0] != osz[0]) {
        snprintf(err, errlen, "avg_pool3d: accessor sizes do not agree");
        return TFL_ERR_UNSUPPORTED;
    }
    if (offz != 0 || (int64_t)c->grid[2] * c->block[2] < isz[0] * frames) {
        snprintf(err, errlen, "avg_pool3d: launch covers part of the output (offsetZ %d)", offz);
        return TFL_ERR_UNSUPPORTED;
    }
    s->kind = fwd ? TFL_SPATIAL_AVGPOOL3D_FWD : TFL_SPATIAL_AVGPOOL3D_BWD;
    s->dtype = k->dtype;
    s->accumulate = 0;                /* the caller zeroed gin; we overwrite */
    s->n = 1;
    s->c = isz[0];
    s->in_d = isz[1]; s->in_h = isz[2]; s->in_w = isz[3];
    s->out_d = osz[1]; s->out_h = osz[2]; s->out_w = osz[3];
    s->in_stride[0] = 0; s->in_stride[1] = ist[0];
    s->in_stride_d = ist[1]; s->in_stride[2] = ist[2]; s->in_stride[3] = ist[3];
    s->out_stride[0] = 0; s->out_stride[1] = ost[0];
    s->out_stride_d = ost[1]; s->out_stride[2] = ost[2]; s->out_stride[3] = ost[3];
    size_t es = tfl_dtype_size(s->dtype);
    int64_t bi = span4(isz, ist, es), bo = span4(osz, ost, es);
    if (bi < 0 || bo < 0) {
        snprintf(err, errlen, "avg_pool3d: unsupported strides");
        return TFL_ERR_UNSUPPORTED;
    }
    if (bi == 0 || bo == 0) {
        s->kind = 0;
        return TFL_OK;
    }
    if (!tfl_kdev_ok(s->in, (size_t)bi) || !tfl_kdev_ok(s->out, (size_t)bo)) {
        snprintf(err, errlen, "avg_pool3d: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* upsample_trilinear3d_out_frame<s, acc>(int n, acc rd, rh, rw,
 * bool align_corners, accessor<const s, 5> in, accessor<s, 5> out) and
 * ..._backward_out_frame<s, acc>(int n, acc rd, rh, rw, bool ac,
 * accessor<s, 5> gin, accessor<const s, 5> gout, s *gin_data): any
 * strides; gin zeroed by the caller and added into.  Accessor: 88 bytes,
 * { T *data; int64 sizes[5]; int64 strides[5]; }. */
static tfl_status decode_trilinear(const tfl_kcall *c, const spatial_kernel *k,
                                   tfl_spatial_op *s, char *err, size_t errlen)
{
    int fwd = k->id == SK_TRILINEAR;
    int64_t isz[5], ist[5], osz[5], ost[5];
    void *in = TFL_KARG_AT(c, void *, 5, 0), *out = TFL_KARG_AT(c, void *, 6, 0);
    for (int d = 0; d < 5; d++) {
        isz[d] = TFL_KARG_AT(c, int64_t, 5, 8 + 8 * d);
        ist[d] = TFL_KARG_AT(c, int64_t, 5, 48 + 8 * d);
        osz[d] = TFL_KARG_AT(c, int64_t, 6, 8 + 8 * d);
        ost[d] = TFL_KARG_AT(c, int64_t, 6, 48 + 8 * d);
    }
    /* forward: (in, out); backward: (gin, gout), same geometry roles */
    s->in = in;
    s->out = out;
    s->kind = fwd ? TFL_SPATIAL_TRILINEAR_FWD : TFL_SPATIAL_TRILINEAR_BWD;
    s->dtype = k->dtype;
    s->accumulate = !fwd;
    int f64 = k->acc_size == 8;
    s->scale_d = f64 ? SARG(c, 1, double) : (double)SARG(c, 1, float);
    s->scale_h = f64 ? SARG(c, 2, double) : (double)SARG(c, 2, float);
    s->scale_w = f64 ? SARG(c, 3, double) : (double)SARG(c, 3, float);
    s->align_corners = SARG(c, 4, uint8_t) != 0;
    if (isz[0] != osz[0] || isz[1] != osz[1]) {
        snprintf(err, errlen, "upsample_trilinear3d: accessor sizes do not agree");
        return TFL_ERR_UNSUPPORTED;
    }
    s->n = isz[0]; s->c = isz[1];
    s->in_d = isz[2]; s->in_h = isz[3]; s->in_w = isz[4];
    s->out_d = osz[2]; s->out_h = osz[3]; s->out_w = osz[4];
    s->in_stride[0] = ist[0]; s->in_stride[1] = ist[1]; s->in_stride_d = ist[2];
    s->in_stride[2] = ist[3]; s->in_stride[3] = ist[4];
    s->out_stride[0] = ost[0]; s->out_stride[1] = ost[1]; s->out_stride_d = ost[2];
    s->out_stride[2] = ost[3]; s->out_stride[3] = ost[4];
    if (!(s->scale_d >= 0 && s->scale_h >= 0 && s->scale_w >= 0 && isfinite(s->scale_d) &&
          isfinite(s->scale_h) && isfinite(s->scale_w))) {
        snprintf(err, errlen, "upsample_trilinear3d: bad scales");
        return TFL_ERR_INVALID;
    }
    /* spans: fold (n, c) into span4's first two axes via a 4-D view */
    size_t es = tfl_dtype_size(s->dtype);
    int64_t bi = 0, bo = 0;
    for (int t = 0; t < 2; t++) {
        const int64_t *sz = t ? osz : isz, *st = t ? ost : ist;
        int64_t hi = 0, *b = t ? &bo : &bi;
        for (int d = 0; d < 5; d++) {
            if (sz[d] <= 0) { hi = -2; break; }
            if (st[d] < 0 || sz[d] > (INT64_MAX / 8) / (st[d] + 1)) { hi = -3; break; }
            hi += (sz[d] - 1) * st[d];
        }
        if (hi == -3) {
            snprintf(err, errlen, "upsample_trilinear3d: unsupported strides");
            return TFL_ERR_UNSUPPORTED;
        }
        *b = hi == -2 ? 0 : (hi + 1) * (int64_t)es;
    }
    if (bi == 0 || bo == 0) {
        s->kind = 0;
        return TFL_OK;
    }
    if (!tfl_kdev_ok(s->in, (size_t)bi) || !tfl_kdev_ok(s->out, (size_t)bo)) {
        snprintf(err, errlen, "upsample_trilinear3d: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* upsample_nearest3d_out_frame<s, fn>(const s *in, size_t N, C, D, H, W,
 * OD, OH, OW, s *out, float sd, sh, sw) and
 * ..._backward_out_frame<s, acc, fn>(const s *gout, size_t N, C, OD, OH,
 * OW, D, H, W, s *gin, float sd, sh, sw) (scales output per input, gin
 * written everywhere); contiguous NCDHW. */
static tfl_status decode_nearest3d(const tfl_kcall *c, const spatial_kernel *k,
                                   tfl_spatial_op *s, char *err, size_t errlen)
{
    int fwd = k->id == SK_NEAREST3D;
    uint64_t a[8];
    for (int i = 0; i < 8; i++)
        a[i] = SARG(c, 1 + i, uint64_t);
    for (int i = 0; i < 8; i++)
        if (a[i] > (uint64_t)INT32_MAX * 64) {
            snprintf(err, errlen, "upsample_nearest3d: bad sizes");
            return TFL_ERR_INVALID;
        }
    s->kind = fwd ? TFL_SPATIAL_NEAREST3D_FWD : TFL_SPATIAL_NEAREST3D_BWD;
    s->dtype = k->dtype;
    s->exact = k->exact;
    s->n = (int64_t)a[0];
    s->c = (int64_t)a[1];
    int64_t *first = fwd ? &s->in_d : &s->out_d, *second = fwd ? &s->out_d : &s->in_d;
    int64_t *fh = fwd ? &s->in_h : &s->out_h, *fw = fwd ? &s->in_w : &s->out_w;
    int64_t *sh = fwd ? &s->out_h : &s->in_h, *sw = fwd ? &s->out_w : &s->in_w;
    *first = (int64_t)a[2]; *fh = (int64_t)a[3]; *fw = (int64_t)a[4];
    *second = (int64_t)a[5]; *sh = (int64_t)a[6]; *sw = (int64_t)a[7];
    if (fwd) {
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 9, void *);
    } else {
        s->out = SARG(c, 0, void *);
        s->in = SARG(c, 9, void *);
    }
    s->scale_d = SARG(c, 10, float);
    s->scale_h = SARG(c, 11, float);
    s->scale_w = SARG(c, 12, float);
    if (!(s->scale_d >= 0 && s->scale_h >= 0 && s->scale_w >= 0 && isfinite(s->scale_d) &&
          isfinite(s->scale_h) && isfinite(s->scale_w))) {
        snprintf(err, errlen, "upsample_nearest3d: bad scales");
        return TFL_ERR_INVALID;
    }
    int64_t isp = s->in_d * s->in_h * s->in_w, osp = s->out_d * s->out_h * s->out_w;
    s->in_stride[0] = s->c * isp; s->in_stride[1] = isp; s->in_stride_d = s->in_h * s->in_w;
    s->in_stride[2] = s->in_w; s->in_stride[3] = 1;
    s->out_stride[0] = s->c * osp; s->out_stride[1] = osp; s->out_stride_d = s->out_h * s->out_w;
    s->out_stride[2] = s->out_w; s->out_stride[3] = 1;
    int64_t nin = s->n * s->c * isp, nout = s->n * s->c * osp;
    if (nin == 0 || nout == 0) {
        s->kind = 0;
        return TFL_OK;
    }
    size_t es = tfl_dtype_size(s->dtype);
    if (!dev_ok(s->in, nin, es) || !dev_ok(s->out, nout, es)) {
        snprintf(err, errlen, "upsample_nearest3d: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* upsample_bicubic2d_out_frame<s, acc>(int OH*OW, acc rh, acc rw,
 * bool align_corners, accessor<const s, 4> in, accessor<s, 4> out) and
 * ..._backward_out_frame<s, acc>(same, accessor<s, 4> gin,
 * accessor<const s, 4> gout): any strides; gin zeroed by the caller and
 * added into. */
static tfl_status decode_bicubic(const tfl_kcall *c, const spatial_kernel *k,
                                 tfl_spatial_op *s, char *err, size_t errlen)
{
    int fwd = k->id == SK_BICUBIC;
    int64_t isz[4], osz[4];
    accessor4(c, 4, &s->in, isz, s->in_stride);
    accessor4(c, 5, &s->out, osz, s->out_stride);
    s->kind = fwd ? TFL_SPATIAL_BICUBIC_FWD : TFL_SPATIAL_BICUBIC_BWD;
    s->dtype = k->dtype;
    s->accumulate = !fwd;
    int f64 = k->acc_size == 8;
    s->scale_h = f64 ? SARG(c, 1, double) : (double)SARG(c, 1, float);
    s->scale_w = f64 ? SARG(c, 2, double) : (double)SARG(c, 2, float);
    s->align_corners = SARG(c, 3, uint8_t) != 0;
    if (isz[0] != osz[0] || isz[1] != osz[1] ||
        (int64_t)SARG(c, 0, int32_t) != osz[2] * osz[3]) {
        snprintf(err, errlen, "upsample_bicubic2d: accessor sizes do not agree");
        return TFL_ERR_UNSUPPORTED;
    }
    s->n = isz[0]; s->c = isz[1];
    s->in_h = isz[2]; s->in_w = isz[3];
    s->out_h = osz[2]; s->out_w = osz[3];
    if (s->n < 0 || s->c < 0 || s->in_h < 0 || s->in_w < 0 || s->out_h < 0 || s->out_w < 0 ||
        !isfinite(s->scale_h) || !isfinite(s->scale_w) || fabs(s->scale_h) > 1e9 ||
        fabs(s->scale_w) > 1e9) {
        snprintf(err, errlen, "upsample_bicubic2d: bad sizes or scales");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

tfl_status sp_decode_3d(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                        char *err, size_t errlen)
{
    if (k->id == SK_MAXPOOL3D || k->id == SK_MAXPOOL3D_BWD)
        return decode_maxpool3d(c, k, s, err, errlen);
    if (k->id >= SK_AVGPOOL3D && k->id <= SK_AVGPOOL3D_BWD_S1)
        return decode_avgpool3d(c, k, s, err, errlen);
    if (k->id == SK_TRILINEAR || k->id == SK_TRILINEAR_BWD)
        return decode_trilinear(c, k, s, err, errlen);
    if (k->id == SK_NEAREST3D || k->id == SK_NEAREST3D_BWD)
        return decode_nearest3d(c, k, s, err, errlen);
    if (k->id == SK_BICUBIC || k->id == SK_BICUBIC_BWD)
        return decode_bicubic(c, k, s, err, errlen);
    return decode_1d(c, k, s, err, errlen);
}

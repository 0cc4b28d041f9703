/*
 * spatial_resize.c - decode the launches of PyTorch's 2-D nearest and
 * bilinear resize kernels and their backward kernels (NCHW and
 * channels_last) into a tfl_spatial_op.  Parameter lists as in the sm_80
 * cubins of torch 2.11 - 2.15 (layouts: spatial.c's table;
 * docs/op-spatial.md); 2.14 gave the channels_last bilinear kernels an
 * index_t template argument, the type of their element counts.  The float scales are passed
 * through as the kernels received them, so the host op maps indices
 * exactly as the CUDA kernel would.
 */
#include <stdio.h>
#include <string.h>

#include "route/optable/spatial_internal.h"

/* GenericPackedTensorAccessor<T, 4, DefaultPtrTraits, int64_t>: 72 bytes,
 * { T *data; int64 sizes[4]; int64 strides[4]; } (elements). */
static void accessor(const tfl_kcall *c, int i, void **data, int64_t *sizes, int64_t *strides)
{
    *data = TFL_KARG_AT(c, void *, i, 0);
    for (int d = 0; d < 4; d++) {
        sizes[d] = TFL_KARG_AT(c, int64_t, i, 8 + 8 * d);
        strides[d] = TFL_KARG_AT(c, int64_t, i, 40 + 8 * d);
    }
}

/* A bilinear kernel's scale: its accscalar_t (a template argument). */
static double dscale(const tfl_kcall *c, int i, const spatial_kernel *k)
{
    return k->acc_size == 8 ? SARG(c, i, double) : (double)SARG(c, i, float);
}

/* Parameter i as the kernel's index_t. */
static int64_t iarg(const tfl_kcall *c, int i, const spatial_kernel *k)
{
    return k->wide ? SARG(c, i, int64_t) : (int64_t)SARG(c, i, int32_t);
}

static int batch_from(int64_t count, int64_t per, int64_t *n)
{
    if (count < 0 || per <= 0 || count % per != 0)
        return 0;
    *n = count / per;
    return 1;
}

tfl_status sp_decode_resize(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                            char *err, size_t errlen)
{
    s->dtype = k->dtype;
    s->exact = k->exact;
    s->c = 1;
    int ok = 1;
    switch (k->id) {
    case SK_NEAREST:
        /* (const s *in, s *out, size_t nc, H, W, OH, OW, float sh, float sw);
         * contiguous planes */
        s->kind = TFL_SPATIAL_NEAREST_FWD;
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        s->n = (int64_t)SARG(c, 2, uint64_t);
        s->in_h = (int64_t)SARG(c, 3, uint64_t);
        s->in_w = (int64_t)SARG(c, 4, uint64_t);
        s->out_h = (int64_t)SARG(c, 5, uint64_t);
        s->out_w = (int64_t)SARG(c, 6, uint64_t);
        s->scale_h = SARG(c, 7, float);
        s->scale_w = SARG(c, 8, float);
        sp_nchw(s->in_stride, 1, s->in_h, s->in_w);
        sp_nchw(s->out_stride, 1, s->out_h, s->out_w);
        break;
    case SK_NEAREST_NHWC: {
        /* (const s *in, s *out, size_t C, H, W, OH, OW, float sh, float sw,
         *  size_t out_numel); NHWC contiguous */
        s->kind = TFL_SPATIAL_NEAREST_FWD;
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        s->c = (int64_t)SARG(c, 2, uint64_t);
        s->in_h = (int64_t)SARG(c, 3, uint64_t);
        s->in_w = (int64_t)SARG(c, 4, uint64_t);
        s->out_h = (int64_t)SARG(c, 5, uint64_t);
        s->out_w = (int64_t)SARG(c, 6, uint64_t);
        s->scale_h = SARG(c, 7, float);
        s->scale_w = SARG(c, 8, float);
        ok = batch_from((int64_t)SARG(c, 9, uint64_t), s->c * s->out_h * s->out_w, &s->n);
        sp_nhwc(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nhwc(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    }
    case SK_NEAREST_BWD:
        /* (const s *gout, size_t N, C, OH, OW, H, W, s *gin, float sh,
         *  float sw); sh = output rows per input row; gin written
         *  everywhere */
        s->kind = TFL_SPATIAL_NEAREST_BWD;
        s->out = SARG(c, 0, void *);
        s->n = (int64_t)SARG(c, 1, uint64_t);
        s->c = (int64_t)SARG(c, 2, uint64_t);
        s->out_h = (int64_t)SARG(c, 3, uint64_t);
        s->out_w = (int64_t)SARG(c, 4, uint64_t);
        s->in_h = (int64_t)SARG(c, 5, uint64_t);
        s->in_w = (int64_t)SARG(c, 6, uint64_t);
        s->in = SARG(c, 7, void *);
        s->scale_h = SARG(c, 8, float);
        s->scale_w = SARG(c, 9, float);
        sp_nchw(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nchw(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    case SK_NEAREST_BWD_NHWC:
        /* (const s *gout, s *gin, size_t OH, OW, H, W, C, float sh,
         *  float sw, size_t gin_numel); NHWC contiguous */
        s->kind = TFL_SPATIAL_NEAREST_BWD;
        s->out = SARG(c, 0, void *);
        s->in = SARG(c, 1, void *);
        s->out_h = (int64_t)SARG(c, 2, uint64_t);
        s->out_w = (int64_t)SARG(c, 3, uint64_t);
        s->in_h = (int64_t)SARG(c, 4, uint64_t);
        s->in_w = (int64_t)SARG(c, 5, uint64_t);
        s->c = (int64_t)SARG(c, 6, uint64_t);
        s->scale_h = SARG(c, 7, float);
        s->scale_w = SARG(c, 8, float);
        ok = batch_from((int64_t)SARG(c, 9, uint64_t), s->c * s->in_h * s->in_w, &s->n);
        sp_nhwc(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nhwc(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    case SK_BILINEAR: {
        /* (int OH*OW, float rh, float rw, bool align_corners,
         *  accessor<const s, 4> in, accessor<s, 4> out): any strides */
        int64_t isz[4], osz[4];
        s->kind = TFL_SPATIAL_BILINEAR_FWD;
        s->scale_h = dscale(c, 1, k);
        s->scale_w = dscale(c, 2, k);
        s->align_corners = SARG(c, 3, uint8_t) != 0;
        accessor(c, 4, &s->in, isz, s->in_stride);
        accessor(c, 5, &s->out, osz, s->out_stride);
        s->n = isz[0];
        s->c = isz[1];
        s->in_h = isz[2];
        s->in_w = isz[3];
        s->out_h = osz[2];
        s->out_w = osz[3];
        ok = osz[0] == isz[0] && osz[1] == isz[1] &&
             (int64_t)SARG(c, 0, int32_t) == osz[2] * osz[3];
        break;
    }
    case SK_BILINEAR_NHWC:
        /* (acc rh, acc rw, bool align_corners, int C, H, W, OH, OW,
         *  const s *in, s *out, idx out_numel); NHWC contiguous; idx int
         *  (2.11 - 2.13) or 2.14's index_t template argument */
        s->kind = TFL_SPATIAL_BILINEAR_FWD;
        s->scale_h = dscale(c, 0, k);
        s->scale_w = dscale(c, 1, k);
        s->align_corners = SARG(c, 2, uint8_t) != 0;
        s->c = SARG(c, 3, int32_t);
        s->in_h = SARG(c, 4, int32_t);
        s->in_w = SARG(c, 5, int32_t);
        s->out_h = SARG(c, 6, int32_t);
        s->out_w = SARG(c, 7, int32_t);
        s->in = SARG(c, 8, void *);
        s->out = SARG(c, 9, void *);
        ok = batch_from(iarg(c, 10, k), s->c * s->out_h * s->out_w, &s->n);
        sp_nhwc(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nhwc(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    case SK_BILINEAR_BWD:
        /* (size_t nc, int H, W, OH, OW, float rh, float rw, bool ac,
         *  s *gin, const s *gout): contiguous planes, gin added into */
        s->kind = TFL_SPATIAL_BILINEAR_BWD;
        s->accumulate = 1;
        s->n = (int64_t)SARG(c, 0, uint64_t);
        s->in_h = SARG(c, 1, int32_t);
        s->in_w = SARG(c, 2, int32_t);
        s->out_h = SARG(c, 3, int32_t);
        s->out_w = SARG(c, 4, int32_t);
        s->scale_h = dscale(c, 5, k);
        s->scale_w = dscale(c, 6, k);
        s->align_corners = SARG(c, 7, uint8_t) != 0;
        s->in = SARG(c, 8, void *);
        s->out = SARG(c, 9, void *);
        sp_nchw(s->in_stride, 1, s->in_h, s->in_w);
        sp_nchw(s->out_stride, 1, s->out_h, s->out_w);
        break;
    case SK_BILINEAR_BWD_NHWC:
        /* (int H, W, OH, OW, acc rh, acc rw, bool ac, s *gin,
         *  const s *gout, int C, idx gout_numel, idx gin_numel); NHWC
         *  contiguous, gin added into; idx size_t (2.11 - 2.13) or 2.14's
         *  index_t template argument */
        s->kind = TFL_SPATIAL_BILINEAR_BWD;
        s->accumulate = 1;
        s->in_h = SARG(c, 0, int32_t);
        s->in_w = SARG(c, 1, int32_t);
        s->out_h = SARG(c, 2, int32_t);
        s->out_w = SARG(c, 3, int32_t);
        s->scale_h = dscale(c, 4, k);
        s->scale_w = dscale(c, 5, k);
        s->align_corners = SARG(c, 6, uint8_t) != 0;
        s->in = SARG(c, 7, void *);
        s->out = SARG(c, 8, void *);
        s->c = SARG(c, 9, int32_t);
        ok = batch_from(iarg(c, 11, k), s->c * s->in_h * s->in_w, &s->n);
        sp_nhwc(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nhwc(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    default:
        snprintf(err, errlen, "spatial: kernel %d is not a resize kernel", k->id);
        return TFL_ERR_UNSUPPORTED;
    }
    if (!ok) {
        snprintf(err, errlen, "resize: sizes do not describe whole tensors");
        return TFL_ERR_UNSUPPORTED;
    }
    if (s->n < 0 || s->c < 0 || s->in_h < 0 || s->in_w < 0 || s->out_h < 0 || s->out_w < 0 ||
        !(s->scale_h >= 0) || !(s->scale_w >= 0)) {
        snprintf(err, errlen, "resize: bad sizes or scales");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

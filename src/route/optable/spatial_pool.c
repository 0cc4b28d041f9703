/*
 * spatial_pool.c - decode the launches of PyTorch's 2-D pooling kernels
 * (max, average, adaptive average, adaptive max; NCHW and channels_last)
 * into a tfl_spatial_op.  Parameter lists as in the sm_80 cubins of
 * torch 2.11 - 2.15 (the layouts are spatial.c's table; docs/op-spatial.md);
 * "idx" parameters are int or int64 as the kernel's index_t template
 * argument says (k->wide).  Release differences: 2.15's avg_pool2d
 * backward kernels take a third trailing bool (avg_tail); 2.14's
 * adaptive_average_pool / _gradinput gained an index_t argument (int in
 * 2.11 - 2.13).
 */
#include <stdio.h>
#include <string.h>

#include "route/optable/spatial_internal.h"

/* Parameter i as an index_t value. */
static int64_t iarg(const tfl_kcall *c, int i, int wide)
{
    return wide ? SARG(c, i, int64_t) : (int64_t)SARG(c, i, int32_t);
}

/* The sizes N, C, H, W, OH, OW - the last strlen(types) of them - from
 * parameter i on, each read as its letter in `types` says: 'l' int64, 'i'
 * int, 'x' index_t (wide). */
static void sizes(const tfl_kcall *c, int i, const char *types, int wide, tfl_spatial_op *s)
{
    int64_t *dst[] = { &s->n, &s->c, &s->in_h, &s->in_w, &s->out_h, &s->out_w };
    int n = (int)strlen(types), first = 6 - n;
    for (int d = 0; d < n; d++)
        *dst[first + d] = types[d] == 'l'   ? SARG(c, i + d, int64_t)
                          : types[d] == 'i' ? (int64_t)SARG(c, i + d, int32_t)
                                            : iarg(c, i + d, wide);
}

/* kernel, stride, pad (, dilation) ints from parameter i on. */
static void window(const tfl_kcall *c, int i, int dilation, tfl_spatial_op *s)
{
    s->kernel_h = SARG(c, i, int32_t);
    s->kernel_w = SARG(c, i + 1, int32_t);
    s->stride_h = SARG(c, i + 2, int32_t);
    s->stride_w = SARG(c, i + 3, int32_t);
    s->pad_h = SARG(c, i + 4, int32_t);
    s->pad_w = SARG(c, i + 5, int32_t);
    s->dilation_h = dilation ? SARG(c, i + 6, int32_t) : 1;
    s->dilation_w = dilation ? SARG(c, i + 7, int32_t) : 1;
}

static int window_ok(const tfl_spatial_op *s)
{
    return s->kernel_h > 0 && s->kernel_w > 0 && s->stride_h > 0 && s->stride_w > 0 &&
           s->pad_h >= 0 && s->pad_w >= 0 && s->dilation_h > 0 && s->dilation_w > 0;
}

/* n from a thread count that covers n * per elements. */
static int batch_from(int64_t count, int64_t per, int64_t *n)
{
    if (count < 0 || per <= 0 || count % per != 0)
        return 0;
    *n = count / per;
    return 1;
}

/* avg_pool2d's trailing (divisor_override, count_include_pad, use_divisor
 * [, uniform]).  The backward kernels of torch 2.15 (form 1) take a third
 * bool: when set, every window divides by one number - divisor_override
 * if use_divisor, else kernel_h * kernel_w - instead of its own count
 * (sm_80 SASS: the flag selects a loop dividing by that constant), which
 * the op runs as a divisor override. */
static void avg_tail(const tfl_kcall *c, int i, int uniform, tfl_spatial_op *s)
{
    int32_t div = SARG(c, i, int32_t);
    int use = SARG(c, i + 2, uint8_t) != 0;
    s->count_include_pad = SARG(c, i + 1, uint8_t) != 0;
    s->divisor_override = use ? div : 0;
    if (uniform && SARG(c, i + 3, uint8_t))
        s->divisor_override = use ? div : s->kernel_h * s->kernel_w;
}

tfl_status sp_decode_pool(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                          char *err, size_t errlen)
{
    const int w = k->wide;
    s->dtype = k->dtype;
    s->c = 1;
    int64_t count = 0;
    int ok = 1;
    switch (k->id) {
    case SK_MAXPOOL_NCHW:
        /* (idx nthreads, const s *in, int64 C, H, W, int OH, OW, kh, kw, sh,
         *  sw, ph, pw, dh, dw, s *out, int64 *mask) */
        s->kind = TFL_SPATIAL_MAXPOOL_FWD;
        count = iarg(c, 0, w);
        s->in = SARG(c, 1, void *);
        sizes(c, 2, "lllii", w, s);
        window(c, 7, 1, s);
        s->out = SARG(c, 15, void *);
        s->indices = SARG(c, 16, int64_t *);
        ok = batch_from(count, s->c * s->out_h * s->out_w, &s->n);
        sp_nchw(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nchw(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    case SK_MAXPOOL_NHWC:
        /* (const s *in, int nbatch, idx C, H, W, OH, OW, int kh..dw,
         *  idx in_stride_n, _c, _h, _w, int kernel_stride_C, kernel_size_C,
         *  s *out, int64 *mask); out and mask NHWC contiguous */
        s->kind = TFL_SPATIAL_MAXPOOL_FWD;
        s->in = SARG(c, 0, void *);
        sizes(c, 1, "ixxxxx", w, s);
        window(c, 7, 1, s);
        for (int d = 0; d < 4; d++)
            s->in_stride[d] = iarg(c, 15 + d, w);
        s->out = SARG(c, 21, void *);
        s->indices = SARG(c, 22, int64_t *);
        sp_nhwc(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    case SK_MAXPOOL_BWD_NCHW:
        /* (const s *gout, const int64 *mask, idx N, C, H, W, OH, OW,
         *  int kh..dw, s *gin): gin written everywhere */
        s->kind = TFL_SPATIAL_MAX_BWD;
        s->out = SARG(c, 0, void *);
        s->indices = SARG(c, 1, int64_t *);
        sizes(c, 2, "xxxxxx", w, s);
        window(c, 8, 1, s);
        s->in = SARG(c, 16, void *);
        sp_nchw(s->in_stride, s->c, s->in_h, s->in_w);
        sp_nchw(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    case SK_MAXPOOL_BWD_NHWC:
        /* (const s *gout, const int64 *mask, int nbatch, int64 C, H, W,
         *  int OH, OW, kh..dw, out_stride_c, _h, _w, kernel_stride_C,
         *  kernel_size_C, s *gin); gin NHWC contiguous, gout/mask batch
         *  stride OH*OW*C */
        s->kind = TFL_SPATIAL_MAX_BWD;
        s->out = SARG(c, 0, void *);
        s->indices = SARG(c, 1, int64_t *);
        sizes(c, 2, "illlii", w, s);
        window(c, 8, 1, s);
        s->out_stride[0] = s->out_h * s->out_w * s->c;
        s->out_stride[1] = SARG(c, 16, int32_t);
        s->out_stride[2] = SARG(c, 17, int32_t);
        s->out_stride[3] = SARG(c, 18, int32_t);
        s->in = SARG(c, 21, void *);
        sp_nhwc(s->in_stride, s->c, s->in_h, s->in_w);
        break;
    case SK_AVGPOOL_NCHW:
    case SK_AVGPOOL_NHWC: {
        /* nchw: (int nthreads, const s *in, int64 C, H, W, OH, int OW, kh,
         *        kw, sh, sw, ph, pw, s *out, int divisor, bool cip, bool use)
         * nhwc: (int nthreads, const s *in, int64 C, H, W, int OH, OW, kh,
         *        kw, sh, sw, ph, pw, s *out, int divisor, bool cip, bool use) */
        int nhwc = k->id == SK_AVGPOOL_NHWC;
        s->kind = TFL_SPATIAL_AVGPOOL_FWD;
        count = SARG(c, 0, int32_t);
        s->in = SARG(c, 1, void *);
        sizes(c, 2, nhwc ? "lllii" : "lllli", w, s);
        window(c, 7, 0, s);
        s->out = SARG(c, 13, void *);
        avg_tail(c, 14, 0, s);
        ok = batch_from(count, s->c * s->out_h * s->out_w, &s->n);
        (nhwc ? sp_nhwc : sp_nchw)(s->in_stride, s->c, s->in_h, s->in_w);
        (nhwc ? sp_nhwc : sp_nchw)(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    }
    case SK_AVGPOOL_BWD_NCHW:
    case SK_AVGPOOL_BWD_NHWC: {
        /* nchw: (idx nthreads, const s *gout, int64 C, H, W, OH, OW, int
         *        kh..pw, s *gin, int divisor, bool cip, bool use
         *        [, bool uniform (2.15)])
         * nhwc: (idx nthreads, const s *gout, int64 C, H, W, int OH, OW,
         *        kh..pw, s *gin, int divisor, bool cip, bool use
         *        [, bool uniform (2.15)])
         * one thread per gin element, gin written everywhere */
        int nhwc = k->id == SK_AVGPOOL_BWD_NHWC;
        s->kind = TFL_SPATIAL_AVGPOOL_BWD;
        count = iarg(c, 0, w);
        s->out = SARG(c, 1, void *);
        sizes(c, 2, nhwc ? "lllii" : "lllll", w, s);
        window(c, 7, 0, s);
        s->in = SARG(c, 13, void *);
        avg_tail(c, 14, k->form == 1, s);
        ok = batch_from(count, s->c * s->in_h * s->in_w, &s->n);
        (nhwc ? sp_nhwc : sp_nchw)(s->in_stride, s->c, s->in_h, s->in_w);
        (nhwc ? sp_nhwc : sp_nchw)(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    }
    case SK_AVGPOOL_BWD_NONOVERLAP: {
        /* (idx nthreads, const s *gout, int64 C, H, W, OH, OW, int kh, kw,
         *  s *gin, int divisor, bool use_divisor, bool channels_last)
         * (torch 2.14+): windows that tile the input - stride = kernel, no
         * padding - so each divides by one number, divisor_override if
         * use_divisor else kh * kw; one thread per gin element, NCHW or
         * (the last bool) NHWC contiguous.  (Read from the sm_80 SASS:
         * the divisor select, and the index split channel-first under
         * the last flag.) */
        int nhwc = SARG(c, 12, uint8_t) != 0;
        s->kind = TFL_SPATIAL_AVGPOOL_BWD;
        count = iarg(c, 0, w);
        s->out = SARG(c, 1, void *);
        sizes(c, 2, "lllll", w, s);
        s->kernel_h = s->stride_h = SARG(c, 7, int32_t);
        s->kernel_w = s->stride_w = SARG(c, 8, int32_t);
        s->dilation_h = s->dilation_w = 1;
        s->in = SARG(c, 9, void *);
        s->count_include_pad = 1;
        s->divisor_override = SARG(c, 11, uint8_t) ? SARG(c, 10, int32_t) : s->kernel_h * s->kernel_w;
        ok = batch_from(count, s->c * s->in_h * s->in_w, &s->n);
        (nhwc ? sp_nhwc : sp_nchw)(s->in_stride, s->c, s->in_h, s->in_w);
        (nhwc ? sp_nhwc : sp_nchw)(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    }
    case SK_AAVG:
    case SK_AMAX: {
        /* adaptive_average_pool<s[, idx (2.14)]>: (const s *in, s *out,
         *   idx H, W, OH, OW, int64 in_stride_plane, _h, _w)
         * adaptivemaxpool: (const s *in, s *out, int64 *ind, int H, W, OH,
         *   OW, int64 in_stride_plane, _h, _w)
         * one block column per plane: planes = grid.x; out contiguous */
        int mx = k->id == SK_AMAX, a = mx ? 1 : 0;
        s->kind = mx ? TFL_SPATIAL_ADAPTIVE_MAX_FWD : TFL_SPATIAL_ADAPTIVE_AVG_FWD;
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        if (mx)
            s->indices = SARG(c, 2, int64_t *);
        s->n = c->grid[0];
        sizes(c, 2 + a, "xxxx", w, s);
        s->in_stride[0] = SARG(c, 6 + a, int64_t);
        s->in_stride[1] = 0;
        s->in_stride[2] = SARG(c, 7 + a, int64_t);
        s->in_stride[3] = SARG(c, 8 + a, int64_t);
        sp_nchw(s->out_stride, 1, s->out_h, s->out_w);
        break;
    }
    case SK_AAVG_BWD:
    case SK_AAVG_BWD_ATOMIC:
    case SK_AMAX_BWD:
    case SK_AMAX_BWD_ATOMIC: {
        /* (s *gin, const s *gout, [const int64 *ind,] idx H, W, OH, OW):
         * contiguous planes, planes = grid.x, gin added into; idx is int
         * but for 2.14's adaptive_average_gradinput<s, long> */
        int mx = k->id == SK_AMAX_BWD || k->id == SK_AMAX_BWD_ATOMIC, a = mx ? 1 : 0;
        s->kind = mx ? TFL_SPATIAL_MAX_BWD : TFL_SPATIAL_ADAPTIVE_AVG_BWD;
        s->accumulate = 1;
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        if (mx)
            s->indices = SARG(c, 2, int64_t *);
        s->n = c->grid[0];
        sizes(c, 2 + a, "xxxx", w, s);
        sp_nchw(s->in_stride, 1, s->in_h, s->in_w);
        sp_nchw(s->out_stride, 1, s->out_h, s->out_w);
        break;
    }
    case SK_AAVG_NHWC:
    case SK_AAVG_BWD_NHWC: {
        /* pool: (const s *in, s *out, int B, C, H, W, OH, OW,
         *        kernel_stride_C, kernel_size_C, idx in_stride_b, _c, _h, _w)
         * grad: (s *gin, const s *gout, int B, C, H, W, OH, OW, ..,
         *        idx gout_stride_b, _c, _h, _w); the written tensor is
         *        NHWC contiguous, every element written */
        int bwd = k->id == SK_AAVG_BWD_NHWC;
        s->kind = bwd ? TFL_SPATIAL_ADAPTIVE_AVG_BWD : TFL_SPATIAL_ADAPTIVE_AVG_FWD;
        /* param 0 is the op's `in` in both: the input, or its gradient */
        s->in = SARG(c, 0, void *);
        s->out = SARG(c, 1, void *);
        sizes(c, 2, "iiiiii", w, s);
        int64_t *given = bwd ? s->out_stride : s->in_stride;
        for (int d = 0; d < 4; d++)
            given[d] = iarg(c, 10 + d, w);
        if (bwd)
            sp_nhwc(s->in_stride, s->c, s->in_h, s->in_w);
        else
            sp_nhwc(s->out_stride, s->c, s->out_h, s->out_w);
        break;
    }
    default:
        snprintf(err, errlen, "spatial: kernel %d is not a pooling kernel", k->id);
        return TFL_ERR_UNSUPPORTED;
    }
    if (!ok) {
        snprintf(err, errlen, "%s: thread count %lld is not a whole batch",
                 "pooling", (long long)count);
        return TFL_ERR_UNSUPPORTED;
    }
    if (s->n < 0 || s->c < 0 || s->in_h < 0 || s->in_w < 0 || s->out_h < 0 || s->out_w < 0) {
        snprintf(err, errlen, "pooling: negative size");
        return TFL_ERR_INVALID;
    }
    int windowed = s->kind == TFL_SPATIAL_MAXPOOL_FWD || s->kind == TFL_SPATIAL_AVGPOOL_FWD ||
                   s->kind == TFL_SPATIAL_AVGPOOL_BWD;
    if (windowed && !window_ok(s)) {
        snprintf(err, errlen, "pooling: bad window (kernel %dx%d stride %dx%d pad %dx%d "
                 "dilation %dx%d)", s->kernel_h, s->kernel_w, s->stride_h, s->stride_w,
                 s->pad_h, s->pad_w, s->dilation_h, s->dilation_w);
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

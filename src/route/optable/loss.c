/*
 * loss.c - the "loss" kernel family of the semantic op table: nll_loss
 * (aten/src/ATen/native/cuda/Loss.cu; the parameter layouts, stated by
 * layout() per kernel, are those of the sm_80 cubins of torch 2.11 to
 * 2.15).  cross_entropy is log_softmax (softmax family) + these kernels.
 * Kernels are recognised by base name and their template arguments'
 * types (scalar, accumulator, target index).
 *
 *   nll_loss_forward_no_reduce_cuda_kernel<scalar, index>
 *       (int64 batch, PackedTensorAccessor64<scalar,2> input, const index *target,
 *        scalar *output, const scalar *weights, int64 n_classes, int64 ignore_index)
 *   nll_loss_forward_reduce_cuda_kernel_1d<scalar, index>
 *       (scalar *output, scalar *total_weight, const scalar *input, const index *target,
 *        const scalar *weights, bool size_average, int64 n_classes, int64 ignore_index)
 *   nll_loss_forward_reduce_cuda_kernel_2d<scalar, acc, index>
 *       (scalar *output, scalar *total_weight, const scalar *input, const index *target,
 *        const scalar *weights, bool size_average, int64 nframe, int64 ndim,
 *        int64 n_classes, int64 ignore_index)
 *   nll_loss_backward_no_reduce_cuda_kernel<scalar, index>
 *       (int batch, const index *target, PackedTensorAccessor64<scalar,1> grad_output,
 *        PackedTensorAccessor64<scalar,2> grad_input, const scalar *weights,
 *        int64 n_classes, int64 ignore_index)
 *   nll_loss_backward_reduce_cuda_kernel_1d<scalar, index>
 *       (scalar *grad_input, const scalar *grad_output, const scalar *weights,
 *        const index *target, const scalar *total_weight, bool size_average,
 *        int64 n_classes, int64 ignore_index)
 *   nll_loss_backward_reduce_cuda_kernel_2d<scalar, index>
 *       (scalar *grad_input, const scalar *grad_output, const index *target,
 *        const scalar *weights, const scalar *total_weight, bool size_average,
 *        int nframe, int ndim, int64 n_classes, int64 ignore_index)
 *
 * PackedTensorAccessor64<T, N> = { T *data; int64 sizes[N]; int64 strides[N]; }
 * (strides in elements).  size_average distinguishes mean from sum; 2-d
 * rows are ndim elements apart.
 *
 * Spatial inputs (NLLLoss2d.cu; input [N, C, H, W], target [N, H, W] int64):
 *   nll_loss2d_forward_kernel<scalar, acc, index>
 *       (scalar *output, scalar *total_weight, const scalar *input,
 *        const int64 *target, const scalar *weight, int n_classes,
 *        int map_nelem, int blocks_per_sample, int64 ignore_index)
 *       samples = gridDim.x / blocks_per_sample, contiguous; each block
 *       atomically adds its partial sums into the zeroed *output and
 *       *total_weight: the native op adds the whole sum in one go.
 *   nll_loss2d_forward_size_average_kernel<scalar>(scalar *output, const scalar *total_weight)
 *   nll_loss2d_backward_kernel<scalar>                 (2.11-2.13)
 *   nll_loss2d_backward_kernel<scalar, index_t>        (2.14+; int or long)
 *       (scalar *grad_input, const scalar *grad_output, const int64 *target,
 *        const scalar *weights, const scalar *total_weight, bool size_average,
 *        index_t n_classes, index_t map_nelem, int blocks_per_sample,
 *        int64 ignore_index)       (index_t = int before 2.14)
 *   nll_loss2d_forward_no_reduce_kernel<scalar>
 *       (int64 n, PackedTensorAccessor64<scalar,4> input,
 *        PackedTensorAccessor64<int64,3> target, PackedTensorAccessor64<scalar,3> output,
 *        const scalar *weight, int64 ignore_index)
 *   nll_loss2d_backward_no_reduce_kernel<scalar>
 *       (int64 n, PackedTensorAccessor64<int64,3> target,
 *        PackedTensorAccessor64<scalar,3> grad_output,
 *        PackedTensorAccessor64<scalar,4> grad_input, const scalar *weight,
 *        int64 ignore_index)
 */
#include "route/optable.h"
#include "route/dispatch.h"
#include "route/optable/kname.h"
#include "mem/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_NONE, F_1D, F_2D, B_NONE, B_1D, B_2D,
               S_FWD, S_AVG, S_BWD, S_FWD_NONE, S_BWD_NONE } lkind;

typedef struct lcookie {
    lkind k;
    tfl_dtype dt, tdt;
    int idx64;               /* S_BWD: n_classes and map_nelem are int64 */
    int entry;               /* the KERNELS[] row matched: its signature */
    const char *name;
} lcookie;

/* Each kernel's template arguments, one letter each:
 *   T  scalar: float, double, c10::Half, c10::BFloat16
 *   A  accumulator: float or double
 *   G  target element type: long or unsigned char
 *   X  index_t: int or long
 * and its parameters (layout() tokens; N is index_t's). */
static const struct {
    const char *base, *shape;
    lkind k;
    const char *name, *sig;
} KERNELS[] = {
    { "nll_loss_forward_no_reduce_cuda_kernel", "TG", F_NONE, "nll_loss_fwd", "l a2 p p p l l" },
    { "nll_loss_forward_reduce_cuda_kernel_1d", "TG", F_1D, "nll_loss_fwd", "p p p p p b l l" },
    { "nll_loss_forward_reduce_cuda_kernel_2d", "TAG", F_2D, "nll_loss_fwd", "p p p p p b l l l l" },
    { "nll_loss_backward_no_reduce_cuda_kernel", "TG", B_NONE, "nll_loss_bwd", "i p a1 a2 p l l" },
    { "nll_loss_backward_reduce_cuda_kernel_1d", "TG", B_1D, "nll_loss_bwd", "p p p p p b l l" },
    { "nll_loss_backward_reduce_cuda_kernel_2d", "TG", B_2D, "nll_loss_bwd", "p p p p p b i i l l" },
    { "nll_loss2d_forward_kernel", "TAX", S_FWD, "nll_loss2d_fwd", "p p p p p i i i l" },
    { "nll_loss2d_forward_size_average_kernel", "T", S_AVG, "nll_loss2d_avg", "p p" },
    { "nll_loss2d_backward_kernel", "T", S_BWD, "nll_loss2d_bwd", "p p p p p b i i i l" },
    { "nll_loss2d_backward_kernel", "TX", S_BWD, "nll_loss2d_bwd", "p p p p p b N N i l" },
    { "nll_loss2d_forward_no_reduce_kernel", "T", S_FWD_NONE, "nll_loss2d_fwd", "l a4 a3 a3 p l" },
    { "nll_loss2d_backward_no_reduce_kernel", "T", S_BWD_NONE, "nll_loss2d_bwd", "l a3 a3 a4 p l" },
};

static int by_shape(const tfl_kname *k, const char *shape, lcookie *c)
{
    int i = 0;
    tfl_dtype dt;
    for (const char *s = shape; *s; s++, i++) {
        switch (*s) {
        case 'T':
            if (!tfl_kname_targ_dtype(k, i, &c->dt) ||
                (c->dt != TFL_DT_F32 && c->dt != TFL_DT_F64 && c->dt != TFL_DT_F16 &&
                 c->dt != TFL_DT_BF16))
                return 0;
            break;
        case 'A':
            if (!tfl_kname_targ_dtype(k, i, &dt) || (dt != TFL_DT_F32 && dt != TFL_DT_F64))
                return 0;
            break;
        case 'G':
            if (!tfl_kname_targ_dtype(k, i, &c->tdt) ||
                (c->tdt != TFL_DT_I64 && c->tdt != TFL_DT_U8))
                return 0;
            break;
        case 'X':
            if (!tfl_kname_targ_is(k, i, "int") && !tfl_kname_targ_is(k, i, "long"))
                return 0;
            c->idx64 = tfl_kname_targ_is(k, i, "long");
            break;
        }
    }
    return i == k->ntargs;
}

static int match(const char *m, void **cookie)
{
    if (!m || !strstr(m, "nll_loss"))       /* cheap filter before demangling */
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    lcookie c;
    int found = 0;
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0] && !found; i++) {
        memset(&c, 0, sizeof c);
        c.k = KERNELS[i].k;
        c.name = KERNELS[i].name;
        c.entry = (int)i;
        found = tfl_kname_is(&k, KERNELS[i].base) && by_shape(&k, KERNELS[i].shape, &c);
    }
    tfl_kname_free(&k);
    if (!found)
        return 0;
    if (c.k >= S_FWD)
        c.tdt = TFL_DT_I64;             /* spatial kernels: int64 targets */
    return tfl_kcookie_keep(&c, sizeof c, cookie);
}

static const char *op_name(void *cookie)
{
    return cookie ? ((lcookie *)cookie)->name : "nll_loss";
}

#define ARG(T, i) TFL_KARG(call, T, i)
#define ACC(T, i, off) TFL_KARG_AT(call, T, i, off)

/* Elements spanned by a [rows, cols] view with these strides. */
static size_t span2(int64_t rows, int64_t cols, int64_t s0, int64_t s1)
{
    int64_t a, b, r;
    if (rows <= 0 || cols <= 0)
        return 0;
    if (s0 < 0 || s1 < 0 || __builtin_mul_overflow(rows - 1, s0, &a) ||
        __builtin_mul_overflow(cols - 1, s1, &b) || __builtin_add_overflow(a, b, &r) ||
        r > INT64_MAX / 16)
        return SIZE_MAX / 16;   /* fails the range check */
    return (size_t)r + 1;
}

/* Combine two extents (last offset + 1 each) of independent index groups. */
static size_t join(size_t a, size_t b)
{
    if (!a || !b)
        return 0;
    if (a > SIZE_MAX / 64 || b > SIZE_MAX / 64)
        return SIZE_MAX / 16;
    return a + b - 1;
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const lcookie *c = cookie;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_LOSS;
    op.name = c->name;
    tfl_loss_op *l = &op.u.loss;
    l->dtype = c->dt;
    l->target_dtype = c->tdt;
    size_t es = tfl_dtype_size(c->dt), ts = c->tdt == TFL_DT_I64 ? 8 : 1;
    size_t in_span = 0, gi_span = 0, out_span = 0, gout_span = 0, tgt_span = SIZE_MAX;
    switch (c->k) {
    case F_NONE:
        l->kind = TFL_LOSS_NLL_FWD;
        l->reduction = TFL_LOSS_REDUCE_NONE;
        l->batch = ARG(int64_t, 0);
        l->input = ACC(const void *, 1, 0);
        l->in_stride0 = ACC(int64_t, 1, 24);
        l->in_stride1 = ACC(int64_t, 1, 32);
        l->target = ARG(const void *, 2);
        l->output = ARG(void *, 3);
        l->out_stride = 1;
        l->weight = ARG(const void *, 4);
        l->n_classes = ARG(int64_t, 5);
        l->ignore_index = ARG(int64_t, 6);
        if (ACC(int64_t, 1, 8) != l->batch || ACC(int64_t, 1, 16) != l->n_classes)
            return TFL_ERR_UNSUPPORTED;
        in_span = span2(l->batch, l->n_classes, l->in_stride0, l->in_stride1);
        out_span = (size_t)(l->batch > 0 ? l->batch : 0);
        break;
    case F_1D: case F_2D:
        l->kind = TFL_LOSS_NLL_FWD;
        l->output = ARG(void *, 0);
        l->total_weight = ARG(void *, 1);
        l->input = ARG(const void *, 2);
        l->target = ARG(const void *, 3);
        l->weight = ARG(const void *, 4);
        l->reduction = ARG(uint8_t, 5) ? TFL_LOSS_REDUCE_MEAN : TFL_LOSS_REDUCE_SUM;
        if (c->k == F_1D) {
            l->one_d = 1;
            l->batch = 1;
            l->n_classes = ARG(int64_t, 6);
            l->ignore_index = ARG(int64_t, 7);
            l->in_stride1 = 1;
        } else {
            l->batch = ARG(int64_t, 6);
            l->in_stride0 = ARG(int64_t, 7);
            l->n_classes = ARG(int64_t, 8);
            l->ignore_index = ARG(int64_t, 9);
            l->in_stride1 = 1;
            if (l->in_stride0 < l->n_classes)
                return TFL_ERR_UNSUPPORTED;
        }
        in_span = span2(l->batch, l->n_classes, l->in_stride0, 1);
        out_span = 1;
        break;
    case B_NONE:
        l->kind = TFL_LOSS_NLL_BWD;
        l->reduction = TFL_LOSS_REDUCE_NONE;
        l->batch = ARG(int32_t, 0);
        l->target = ARG(const void *, 1);
        l->grad_output = ACC(const void *, 2, 0);
        l->gout_stride = ACC(int64_t, 2, 16);
        l->grad_input = ACC(void *, 3, 0);
        l->gi_stride0 = ACC(int64_t, 3, 24);
        l->gi_stride1 = ACC(int64_t, 3, 32);
        l->weight = ARG(const void *, 4);
        l->n_classes = ARG(int64_t, 5);
        l->ignore_index = ARG(int64_t, 6);
        if (ACC(int64_t, 2, 8) < l->batch || ACC(int64_t, 3, 8) < l->batch ||
            ACC(int64_t, 3, 16) < l->n_classes)
            return TFL_ERR_UNSUPPORTED;
        gi_span = span2(l->batch, l->n_classes, l->gi_stride0, l->gi_stride1);
        gout_span = span2(l->batch, 1, l->gout_stride, 1);
        break;
    case B_1D: case B_2D:
        l->kind = TFL_LOSS_NLL_BWD;
        l->grad_input = ARG(void *, 0);
        l->grad_output = ARG(const void *, 1);
        if (c->k == B_1D) {
            l->weight = ARG(const void *, 2);
            l->target = ARG(const void *, 3);
            l->total_weight = ARG(void *, 4);
            l->reduction = ARG(uint8_t, 5) ? TFL_LOSS_REDUCE_MEAN : TFL_LOSS_REDUCE_SUM;
            l->batch = 1;
            l->n_classes = ARG(int64_t, 6);
            l->ignore_index = ARG(int64_t, 7);
            l->gi_stride1 = 1;
        } else {
            l->target = ARG(const void *, 2);
            l->weight = ARG(const void *, 3);
            l->total_weight = ARG(void *, 4);
            l->reduction = ARG(uint8_t, 5) ? TFL_LOSS_REDUCE_MEAN : TFL_LOSS_REDUCE_SUM;
            l->batch = ARG(int32_t, 6);
            l->gi_stride0 = ARG(int32_t, 7);
            l->n_classes = ARG(int64_t, 8);
            l->ignore_index = ARG(int64_t, 9);
            l->gi_stride1 = 1;
            if (l->gi_stride0 < l->n_classes)
                return TFL_ERR_UNSUPPORTED;
        }
        gi_span = span2(l->batch, l->n_classes, l->gi_stride0, 1);
        gout_span = 1;
        break;
    case S_AVG:
        l->kind = TFL_LOSS_NLL_AVERAGE;
        l->output = ARG(void *, 0);
        l->total_weight = ARG(void *, 1);
        if (!tfl_kdev_ok(l->output, es) || !tfl_kdev_ok(l->total_weight, es)) {
            snprintf(err, errlen, "%s: operand outside device memory", c->name);
            return TFL_ERR_INVALID;
        }
        return tfl_route_op(&op, call->stream);
    case S_FWD: case S_BWD: {
        int64_t ncls, nelem, bps, plane, all, tgt;
        l->target_dtype = TFL_DT_I64;
        if (c->k == S_FWD) {
            l->kind = TFL_LOSS_NLL_FWD;
            l->output = ARG(void *, 0);
            l->total_weight = ARG(void *, 1);
            l->input = ARG(const void *, 2);
            l->target = ARG(const void *, 3);
            l->weight = ARG(const void *, 4);
            ncls = ARG(int32_t, 5); nelem = ARG(int32_t, 6); bps = ARG(int32_t, 7);
            l->ignore_index = ARG(int64_t, 8);
            /* mean divides in nll_loss2d_forward_size_average_kernel */
            l->reduction = TFL_LOSS_REDUCE_SUM;
            l->accumulate = 1;
        } else {
            l->kind = TFL_LOSS_NLL_BWD;
            l->grad_input = ARG(void *, 0);
            l->grad_output = ARG(const void *, 1);
            l->target = ARG(const void *, 2);
            l->weight = ARG(const void *, 3);
            l->total_weight = ARG(void *, 4);
            l->reduction = ARG(uint8_t, 5) ? TFL_LOSS_REDUCE_MEAN : TFL_LOSS_REDUCE_SUM;
            ncls = c->idx64 ? ARG(int64_t, 6) : ARG(int32_t, 6);
            nelem = c->idx64 ? ARG(int64_t, 7) : ARG(int32_t, 7);
            bps = ARG(int32_t, 8);
            l->ignore_index = ARG(int64_t, 9);
        }
        if (ncls < 0 || nelem < 0 || bps <= 0 || call->grid[0] % (uint64_t)bps ||
            call->grid[1] != 1 || call->grid[2] != 1)
            return TFL_ERR_UNSUPPORTED;
        /* contiguous [N, C, S] input / grad_input, [N, S] target */
        l->batch = call->grid[0] / (uint64_t)bps;
        if (__builtin_mul_overflow(ncls, nelem, &plane) ||
            __builtin_mul_overflow(l->batch, plane, &all) ||
            __builtin_mul_overflow(l->batch, nelem, &tgt) || all > INT64_MAX / 16)
            return TFL_ERR_UNSUPPORTED;
        l->n_classes = ncls;
        l->H = 1;
        l->W = nelem;
        l->tgt_stride0 = nelem; l->tgt_stride_h = 0; l->tgt_stride_w = 1;
        l->in_stride0 = l->gi_stride0 = plane;
        l->in_stride1 = l->gi_stride1 = nelem;
        l->in_stride_w = l->gi_stride_w = 1;
        ts = 8;
        if (c->k == S_FWD) {
            in_span = (size_t)all;
            out_span = 1;
        } else {
            gi_span = (size_t)all;
            gout_span = 1;
        }
        tgt_span = (size_t)tgt;                  /* rows = batch * nelem (H = 1, W = nelem) */
        break;
    }
    case S_FWD_NONE: case S_BWD_NONE: {
        /* accessors: 4-d {data, sizes[4], strides[4]}, 3-d {data, sizes[3], strides[3]} */
        int ai = c->k == S_FWD_NONE ? 1 : 3, ti = c->k == S_FWD_NONE ? 2 : 1, oi = c->k == S_FWD_NONE ? 3 : 2;
        int64_t n = ARG(int64_t, 0);
        int64_t N = ACC(int64_t, ai, 8), C = ACC(int64_t, ai, 16), H = ACC(int64_t, ai, 24), W = ACC(int64_t, ai, 32);
        l->target_dtype = TFL_DT_I64;
        l->reduction = TFL_LOSS_REDUCE_NONE;
        l->batch = N; l->n_classes = C; l->H = H; l->W = W;
        l->target = ACC(const void *, ti, 0);
        l->tgt_stride0 = ACC(int64_t, ti, 32); l->tgt_stride_h = ACC(int64_t, ti, 40); l->tgt_stride_w = ACC(int64_t, ti, 48);
        if (ACC(int64_t, ti, 8) != N || ACC(int64_t, ti, 16) != H || ACC(int64_t, ti, 24) != W ||
            ACC(int64_t, oi, 8) != N || ACC(int64_t, oi, 16) != H || ACC(int64_t, oi, 24) != W ||
            N < 0 || C < 0 || H < 0 || W < 0 || n != N * H * W ||
            l->tgt_stride0 <= 0 || l->tgt_stride_h <= 0 || l->tgt_stride_w <= 0)
            return TFL_ERR_UNSUPPORTED;
        int64_t s0 = ACC(int64_t, ai, 40), s1 = ACC(int64_t, ai, 48), sh = ACC(int64_t, ai, 56), sw = ACC(int64_t, ai, 64);
        int64_t o0 = ACC(int64_t, oi, 32), oh = ACC(int64_t, oi, 40), ow = ACC(int64_t, oi, 48);
        l->weight = ARG(const void *, 4);
        l->ignore_index = ARG(int64_t, 5);
        /* extents: (last offset of [N, C]) + (last offset of [H, W]) + 1 */
        size_t sp4 = join(span2(N, C, s0, s1), span2(H, W, sh, sw));
        size_t sp3 = join(span2(N, H, o0, oh), span2(1, W, 0, ow));
        tgt_span = join(span2(N, H, l->tgt_stride0, l->tgt_stride_h), span2(1, W, 0, l->tgt_stride_w));
        if (c->k == S_FWD_NONE) {
            l->kind = TFL_LOSS_NLL_FWD;
            l->input = ACC(const void *, ai, 0);
            l->in_stride0 = s0; l->in_stride1 = s1; l->in_stride_h = sh; l->in_stride_w = sw;
            l->output = ACC(void *, oi, 0);
            l->out_stride = o0; l->out_stride_h = oh; l->out_stride_w = ow;
            in_span = sp4;
            out_span = sp3;
        } else {
            l->kind = TFL_LOSS_NLL_BWD;
            l->grad_input = ACC(void *, ai, 0);
            l->gi_stride0 = s0; l->gi_stride1 = s1; l->gi_stride_h = sh; l->gi_stride_w = sw;
            l->grad_output = ACC(const void *, oi, 0);
            l->gout_stride = o0; l->gout_stride_h = oh; l->gout_stride_w = ow;
            gi_span = sp4;
            gout_span = sp3;
        }
        ts = 8;
        break;
    }
    }
    if (l->batch < 0 || l->n_classes < 0 || l->batch > INT64_MAX / 16 || l->n_classes > INT64_MAX / 16) {
        snprintf(err, errlen, "%s: bad sizes batch=%lld classes=%lld", c->name,
                 (long long)l->batch, (long long)l->n_classes);
        return TFL_ERR_INVALID;
    }
    if (l->batch > 0) {
        if (tgt_span == SIZE_MAX)
            tgt_span = (size_t)l->batch;
        int ok = tfl_kdev_ok(l->target, tgt_span * ts) &&
                 (!l->weight || tfl_kdev_ok(l->weight, (size_t)l->n_classes * es)) &&
                 tfl_kdev_ok(l->input, in_span * es) && tfl_kdev_ok(l->output, out_span * es) &&
                 tfl_kdev_ok(l->grad_input, gi_span * es) && tfl_kdev_ok(l->grad_output, gout_span * es) &&
                 (l->reduction == TFL_LOSS_REDUCE_NONE || tfl_kdev_ok(l->total_weight, es));
        if (!ok) {
            snprintf(err, errlen, "%s: operand outside device memory", c->name);
            return TFL_ERR_INVALID;
        }
    }
    tfl_status st = tfl_route_op(&op, call->stream);
    if (st == TFL_ERR_INVALID)
        snprintf(err, errlen, "%s: target index out of bounds (device-side assert)", c->name);
    else if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s: backend failed (%d)", c->name, (int)st);
    return st;
}

/* The parameters, as the table states them for the matched kernel (the
 * header comment lists them); N is index_t's size. */
static int layout(void *cookie, tfl_klayout *l)
{
    const lcookie *c = cookie;
    l->n = 0;
    if (!c)
        return 0;
    const char *sig = KERNELS[c->entry].sig;
    char buf[48];
    size_t n = strlen(sig);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, sig, n + 1);
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 'N')
            buf[i] = c->idx64 ? 'l' : 'i';
    return tfl_klayout_sig(l, buf) == 0;
}

const tfl_kfamily tfl_kfamily_loss = {
    .name = "loss",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

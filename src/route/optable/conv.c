/*
 * conv.c - op-table family "conv": PyTorch's own depthwise 2-D and 3-D
 * convolution kernels (aten/src/ATen/native/cuda/DepthwiseConv{2,3}d.cu),
 * which it uses instead of cuDNN for depthwise convs (groups == C_in,
 * C_out a multiple of C_in) where cuDNN is not preferred (fp32/fp64 NCHW
 * in 2-D, most 3-D cases), decoded into TFL_OP_CONV.
 *
 *   conv_depthwise2d_forward_kernel<k, T, int> / _generic<T, int>
 *     (in, out, weight: PackedTensorAccessor32<T,4>, bias: <T,1>, bool
 *      has_bias, int total, outC, mult, inW, inH, outW, outH, kW, kH, sW,
 *      sH, pW, pH, dW, dH)                                 200 bytes
 *   conv_depthwise2d_backward_kernel<k, s, T, int>         (grad input)
 *     (grad_out, grad_in, weight: <T,4>, int total, inC, mult, outC, inW,
 *      inH, outW, outH, kW, kH, sW, sH, pW, pH, dW, dH)     184 bytes
 *   conv_depthwise2d_grad_weight_kernel<T, unsigned>
 *     (grad_out, input, grad_weight: <T,4>, int batch, inC, outC, mult,
 *      inW, inH, outW, outH, kW, kH, sW, sH, pW, pH, dW, dH) 184 bytes
 *
 *   conv_depthwise3d_cuda_kernel<T, acc, kT, kH, kW, dT, dH, dW>
 *     (in, out, weight: <T,5>, const T *bias, int sT, sH, sW, pT, pH, pW,
 *      dT, dH, dW)                                          188 bytes
 *   conv_depthwise3d_cuda_backward_input_kernel<T, acc, k.., d.., s..>
 *     (grad_out, grad_in, weight: <T,5>, the same 9 ints)   180 bytes
 *   conv_depthwise3d_cuda_backward_weight_kernel<T, acc, sH, sW>
 *     (grad_out, input, grad_weight: <T,5>, the same 9 ints) 180 bytes
 *
 * (tfl_klayout_sig: "A4 A4 A4 A1 b i x14", "A4 A4 A4 i x15", "A5 A5 A5 p
 * i x8", "A5 A5 A5 i x8"; unchanged from 2.11 through 2.15.)  Kernels are
 * recognised by demangled base name and template arguments (kname.h).
 * A PackedTensorAccessor32<T, N> is {T *data; int32 sizes[N]; int32
 * strides[N]} (40 bytes for N = 4, 48 for N = 5, 16 for N = 1, as the
 * sm_80 cubins' parameter sizes say).  The 3-D kernels index through the
 * accessors' strides, which the op takes as they are.  The 2-D kernels
 * index every operand linearly (PyTorch makes them contiguous first), so
 * their op is built with contiguous NCHW strides and the accessor sizes
 * are checked against the int arguments.
 * Each launch covers the whole op (grid-stride loop, or one block per
 * weight element for grad_weight), which run() checks.  Padding is
 * symmetric (PyTorch's padding=p).
 */
#include "route/optable.h"
#include "route/optable/kname.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "route/dispatch.h"

enum { CV_FWD = 1, CV_BWD_DATA = 2, CV_BWD_FILTER = 3,   /* 2-D */
       CV3_FWD = 4, CV3_BWD_DATA = 5, CV3_BWD_FILTER = 6 }; /* 3-D */

/* Cookie: kind | dtype << 4. */
#define CV_COOKIE(kind, dt) ((void *)(uintptr_t)((unsigned)(kind) | ((unsigned)(dt) << 4)))

/* The kernels by base name: kind, accessor rank, template arguments
 * (T = the element type; a = the accumulate type, float or double as
 * PyTorch pairs them; i = the index type, int or unsigned int; c = an int
 * constant) and the parameters run() reads (tfl_klayout_sig tokens, the
 * header comment's list).  The constants specialise the kernel to a kernel
 * size / stride / dilation that PyTorch instantiates only for launches
 * whose int parameters have that value (-1: any), so they change how it
 * loops, never what it computes; an argument of another kind is not
 * claimed. */
static const struct {
    const char *base;
    int kind, rank;
    const char *targs, *sig;
} cv_kernels[] = {
    {"conv_depthwise2d_forward_kernel_generic", CV_FWD, 4, "Ti", "A4 A4 A4 A1 b i x14"},
    {"conv_depthwise2d_forward_kernel", CV_FWD, 4, "cTi", "A4 A4 A4 A1 b i x14"},
    {"conv_depthwise2d_backward_kernel", CV_BWD_DATA, 4, "ccTi", "A4 A4 A4 i x15"},
    {"conv_depthwise2d_grad_weight_kernel", CV_BWD_FILTER, 4, "Ti", "A4 A4 A4 i x15"},
    {"conv_depthwise3d_cuda_kernel", CV3_FWD, 5, "Tacccccc", "A5 A5 A5 p i x8"},
    {"conv_depthwise3d_cuda_backward_input_kernel", CV3_BWD_DATA, 5, "Taccccccccc",
     "A5 A5 A5 i x8"},
    {"conv_depthwise3d_cuda_backward_weight_kernel", CV3_BWD_FILTER, 5, "Tacc", "A5 A5 A5 i x8"},
};

/* Do the template arguments have the kinds `want` lists (see cv_kernels)?
 * *dt receives T. */
static int cv_targs_ok(const tfl_kname *k, const char *want, tfl_dtype *dt)
{
    int n = (int)strlen(want);
    if (k->ntargs != n || n > TFL_KNAME_MAX)
        return 0;
    int have_t = 0;
    for (int i = 0; i < n; i++) {
        long long v;
        tfl_dtype t;
        switch (want[i]) {
        case 'T':
            if (!tfl_kname_targ_dtype(k, i, dt) || (*dt != TFL_DT_F32 && *dt != TFL_DT_F64 &&
                                                    *dt != TFL_DT_F16 && *dt != TFL_DT_BF16))
                return 0;
            have_t = 1;
            break;
        case 'a':   /* accumulate: double for double, float otherwise */
            if (!have_t || !tfl_kname_targ_dtype(k, i, &t) ||
                t != (*dt == TFL_DT_F64 ? TFL_DT_F64 : TFL_DT_F32))
                return 0;
            break;
        case 'i':
            if (!tfl_kname_targ_is(k, i, "int") && !tfl_kname_targ_is(k, i, "unsigned int"))
                return 0;
            break;
        default:
            if (!tfl_kname_targ_int(k, i, &v))
                return 0;
        }
    }
    return have_t;
}

static int cv_match(const char *mangled, void **cookie)
{
    /* cheap filter before demangling */
    if (!strstr(mangled, "conv_depthwise"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(mangled, &k) != 0)
        return 0;
    int ok = 0;
    for (size_t i = 0; i < sizeof cv_kernels / sizeof cv_kernels[0] && !ok; i++) {
        tfl_dtype dt;
        const int r = cv_kernels[i].rank;
        tfl_klayout l = { 0 };
        /* ... with the parameter count the decoder's layout states */
        if (tfl_kname_is(&k, cv_kernels[i].base) && k.name_len == k.base_len &&
            cv_targs_ok(&k, cv_kernels[i].targs, &dt) &&
            tfl_kname_accessor_rank(&k, 0, 32) == r && tfl_kname_accessor_rank(&k, 1, 32) == r &&
            tfl_kname_accessor_rank(&k, 2, 32) == r &&
            tfl_klayout_sig(&l, cv_kernels[i].sig) == 0 && l.n == k.nparams) {
            *cookie = CV_COOKIE(cv_kernels[i].kind, dt);
            ok = 1;
        }
    }
    tfl_kname_free(&k);
    return ok;
}

/* The parameters run() reads for this cookie's kernel kind (cv_kernels). */
static int cv_layout(void *cookie, tfl_klayout *l)
{
    int kind = (int)((uintptr_t)cookie & 15);
    for (size_t i = 0; i < sizeof cv_kernels / sizeof cv_kernels[0]; i++)
        if (cv_kernels[i].kind == kind)
            return tfl_klayout_sig(l, cv_kernels[i].sig) == 0;
    return 0;
}

static const char *cv_op_name(void *cookie)
{
    switch ((uintptr_t)cookie & 15) {
    case CV_FWD: return "conv_depthwise_fwd";
    case CV_BWD_DATA: return "conv_depthwise_bwd_data";
    case CV_BWD_FILTER: return "conv_depthwise_bwd_filter";
    case CV3_FWD: return "conv_depthwise3d_fwd";
    case CV3_BWD_DATA: return "conv_depthwise3d_bwd_data";
    default: return "conv_depthwise3d_bwd_filter";
    }
}

/* Accessor field: data pointer / size i of parameter p. */
#define PTA_DATA(c, p) TFL_KARG_AT(c, void *, p, 0)
#define PTA_SIZE(c, p, i) TFL_KARG_AT(c, int32_t, p, 8 + 4 * (i))
#define IARG(c, i) TFL_KARG(c, int32_t, i)

static void cv_dense(tfl_conv_tensor *t, void *data, int64_t a, int64_t b, int64_t h, int64_t w)
{
    t->data = data;
    t->dims[0] = a; t->dims[1] = b; t->dims[2] = h; t->dims[3] = w;
    t->strides[3] = 1;
    t->strides[2] = w;
    t->strides[1] = h * w;
    t->strides[0] = b * h * w;
}

static int cv_pta_is(const tfl_kcall *c, int p, int64_t a, int64_t b, int64_t h, int64_t w)
{
    return PTA_SIZE(c, p, 0) == a && PTA_SIZE(c, p, 1) == b && PTA_SIZE(c, p, 2) == h &&
           PTA_SIZE(c, p, 3) == w;
}

/* A rank-5 accessor {data; int32 sizes[5]; int32 strides[5]} as an
 * operand (48 bytes). */
static void cv_pta5(const tfl_kcall *c, int p, tfl_conv_tensor *t)
{
    t->data = PTA_DATA(c, p);
    for (int i = 0; i < 5; i++) {
        t->dims[i] = TFL_KARG_AT(c, int32_t, p, 8 + 4 * i);
        t->strides[i] = TFL_KARG_AT(c, int32_t, p, 28 + 4 * i);
    }
}

static size_t cv_extent(const tfl_conv_tensor *t, size_t es)
{
    int64_t last = 0;
    for (int i = 0; i < 5; i++) {
        if (t->dims[i] <= 0 || t->strides[i] < 0)
            return 0;
        last += (t->dims[i] - 1) * t->strides[i];
    }
    return (size_t)(last + 1) * es;
}

/* Batch and channel counts agree and every output size is the one the
 * padding, stride and dilation give. */
static int cv_geometry_ok(const tfl_conv_op *cv)
{
    if (cv->x.dims[0] != cv->y.dims[0] || cv->y.dims[1] != cv->w.dims[0] ||
        cv->w.dims[0] % cv->groups != 0 || cv->x.dims[1] != cv->groups * cv->w.dims[1])
        return 0;
    for (int i = 0; i < cv->spatial; i++) {
        int64_t in = cv->x.dims[2 + i], k = cv->w.dims[2 + i], s = cv->stride[i], d = cv->dilation[i];
        if (s <= 0 || d <= 0 || cv->pad_pre[i] < 0 || k <= 0)
            return 0;
        int64_t span = in + cv->pad_pre[i] + cv->pad_post[i] - d * (k - 1) - 1;
        if (span < 0 || cv->y.dims[2 + i] != span / s + 1)
            return 0;
    }
    return 1;
}

/* conv_depthwise3d_*: three rank-5 accessors, (forward) a bias pointer,
 * then stride, padding and dilation as T, H, W ints.  The kernels index
 * through the accessors' strides, so those are the op's strides. */
static tfl_status cv_run3(const tfl_kcall *c, int kind, tfl_op *op, char *err, size_t errlen)
{
    tfl_conv_op *cv = &op->u.conv;
    int g0 = kind == CV3_FWD ? 4 : 3;
    cv->spatial = 3;
    switch (kind) {
    case CV3_FWD:
        cv->mode = TFL_CONV_FWD;
        cv_pta5(c, 0, &cv->x); cv_pta5(c, 1, &cv->y); cv_pta5(c, 2, &cv->w);
        cv->bias = TFL_KARG(c, const void *, 3);
        break;
    case CV3_BWD_DATA:
        cv->mode = TFL_CONV_BWD_DATA;
        cv_pta5(c, 0, &cv->y); cv_pta5(c, 1, &cv->x); cv_pta5(c, 2, &cv->w);
        break;
    default:
        cv->mode = TFL_CONV_BWD_FILTER;
        cv_pta5(c, 0, &cv->y); cv_pta5(c, 1, &cv->x); cv_pta5(c, 2, &cv->w);
        /* one block per weight element */
        if ((int64_t)c->grid[0] * c->grid[1] * c->grid[2] !=
            cv->w.dims[0] * cv->w.dims[1] * cv->w.dims[2] * cv->w.dims[3] * cv->w.dims[4])
            return TFL_ERR_UNSUPPORTED;
        break;
    }
    for (int i = 0; i < 3; i++) {
        cv->stride[i] = IARG(c, g0 + i);
        cv->pad_pre[i] = cv->pad_post[i] = IARG(c, g0 + 3 + i);
        cv->dilation[i] = IARG(c, g0 + 6 + i);
    }
    cv->groups = cv->x.dims[1];
    if (cv->w.dims[1] != 1 || cv->groups <= 0 || !cv_geometry_ok(cv))
        return TFL_ERR_UNSUPPORTED;
    size_t es = tfl_dtype_size(cv->dtype);
    size_t ex = cv_extent(&cv->x, es), ew = cv_extent(&cv->w, es), ey = cv_extent(&cv->y, es);
    if (!ex || !ew || !ey)
        return TFL_ERR_UNSUPPORTED;
    if (!tfl_kdev_ok(cv->x.data, ex) || !tfl_kdev_ok(cv->w.data, ew) || !tfl_kdev_ok(cv->y.data, ey) ||
        (cv->bias && !tfl_kdev_ok(cv->bias, (size_t)cv->w.dims[0] * es))) {
        snprintf(err, errlen, "%s: operand outside device memory", op->name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s: backend failed (%d)", op->name, (int)st);
    return st;
}

static tfl_status cv_run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    int kind = (int)((uintptr_t)cookie & 15);
    tfl_dtype dt = (tfl_dtype)((uintptr_t)cookie >> 4);
    tfl_op op = {.kind = TFL_OP_CONV, .name = cv_op_name(cookie)};
    tfl_conv_op *cv = &op.u.conv;
    cv->spatial = 2;
    cv->dtype = dt;
    cv->compute = dt == TFL_DT_F64 ? TFL_COMPUTE_64F : TFL_COMPUTE_32F;
    cv->cross_correlation = 1;
    cv->alpha = 1.0;
    cv->beta = 0.0;
    if (kind >= CV3_FWD)
        return cv_run3(c, kind, &op, err, errlen);

    /* the 12 geometry ints start at parameter g0: inW inH outW outH kW kH sW sH pW pH dW dH */
    int g0, n, inC, outC, mult;
    void *px, *pw, *py;
    const void *bias = NULL;
    switch (kind) {
    case CV_FWD:
        g0 = 8;
        outC = IARG(c, 6);
        mult = IARG(c, 7);
        if (mult <= 0 || outC % mult)
            return TFL_ERR_UNSUPPORTED;
        inC = outC / mult;
        n = PTA_SIZE(c, 0, 0);
        px = PTA_DATA(c, 0); py = PTA_DATA(c, 1); pw = PTA_DATA(c, 2);
        if (TFL_KARG(c, uint8_t, 4))
            bias = PTA_DATA(c, 3);
        break;
    case CV_BWD_DATA:
        g0 = 7;
        inC = IARG(c, 4); mult = IARG(c, 5); outC = IARG(c, 6);
        n = PTA_SIZE(c, 1, 0);
        py = PTA_DATA(c, 0); px = PTA_DATA(c, 1); pw = PTA_DATA(c, 2);
        break;
    default:
        g0 = 7;
        n = IARG(c, 3); inC = IARG(c, 4); outC = IARG(c, 5); mult = IARG(c, 6);
        py = PTA_DATA(c, 0); px = PTA_DATA(c, 1); pw = PTA_DATA(c, 2);
        break;
    }
    int inW = IARG(c, g0), inH = IARG(c, g0 + 1), outW = IARG(c, g0 + 2), outH = IARG(c, g0 + 3);
    int kW = IARG(c, g0 + 4), kH = IARG(c, g0 + 5);
    if (n <= 0 || inC <= 0 || mult <= 0 || outC != inC * mult || inW <= 0 || inH <= 0 ||
        outW <= 0 || outH <= 0 || kW <= 0 || kH <= 0)
        return TFL_ERR_UNSUPPORTED;
    cv->stride[1] = IARG(c, g0 + 6); cv->stride[0] = IARG(c, g0 + 7);
    cv->pad_pre[1] = cv->pad_post[1] = IARG(c, g0 + 8);
    cv->pad_pre[0] = cv->pad_post[0] = IARG(c, g0 + 9);
    cv->dilation[1] = IARG(c, g0 + 10); cv->dilation[0] = IARG(c, g0 + 11);
    cv->groups = inC;
    cv_dense(&cv->x, px, n, inC, inH, inW);
    cv_dense(&cv->w, pw, outC, 1, kH, kW);
    cv_dense(&cv->y, py, n, outC, outH, outW);
    cv->bias = bias;

    /* the launch covers the whole op; accessors agree with the ints */
    int ok;
    switch (kind) {
    case CV_FWD:
        cv->mode = TFL_CONV_FWD;
        ok = IARG(c, 5) == n * outC * outH * outW && cv_pta_is(c, 0, n, inC, inH, inW) &&
             cv_pta_is(c, 1, n, outC, outH, outW) && cv_pta_is(c, 2, outC, 1, kH, kW) &&
             (!bias || TFL_KARG_AT(c, int32_t, 3, 8) == outC);
        break;
    case CV_BWD_DATA:
        cv->mode = TFL_CONV_BWD_DATA;
        ok = IARG(c, 3) == n * inC * inH * inW && cv_pta_is(c, 0, n, outC, outH, outW) &&
             cv_pta_is(c, 1, n, inC, inH, inW) && cv_pta_is(c, 2, outC, 1, kH, kW);
        break;
    default:
        cv->mode = TFL_CONV_BWD_FILTER;
        ok = (int64_t)c->grid[0] * c->grid[1] * c->grid[2] == (int64_t)outC * kH * kW &&
             cv_pta_is(c, 0, n, outC, outH, outW) && cv_pta_is(c, 1, n, inC, inH, inW) &&
             cv_pta_is(c, 2, outC, 1, kH, kW);
        break;
    }
    if (!ok)
        return TFL_ERR_UNSUPPORTED;

    size_t es = tfl_dtype_size(dt);
    if (!tfl_kdev_ok(px, (size_t)n * inC * inH * inW * es) ||
        !tfl_kdev_ok(py, (size_t)n * outC * outH * outW * es) ||
        !tfl_kdev_ok(pw, (size_t)outC * kH * kW * es) ||
        (bias && !tfl_kdev_ok(bias, (size_t)outC * es))) {
        snprintf(err, errlen, "%s: operand outside device memory", op.name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s: backend failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_conv = {
    .name = "conv",
    .match = cv_match,
    .run = cv_run,
    .op_name = cv_op_name,
    .layout = cv_layout,
};

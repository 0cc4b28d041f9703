/*
 * spatial.c - the "spatial" kernel family of the semantic op table:
 * PyTorch's 2-D pooling (DilatedMaxPool2d.cu, AveragePool2d.cu,
 * AdaptiveAveragePooling.cu, AdaptiveMaxPooling2d.cu), 2-D nearest and
 * bilinear resizing (UpSampleNearest2d.cu, UpSampleBilinear2d.cu) with
 * their backward kernels, and roll (TensorTransformations.cu).
 *
 * This file recognises the kernels by structure (tfl_kname: base name,
 * parameter count, template arguments by what they are: element type,
 * index type, nearest vs nearest-exact), states each kernel's parameter
 * layout (the table below, checked against the cubins of torch 2.11 to
 * 2.15), checks the operands' device ranges and routes the op;
 * spatial_pool.c, spatial_resize.c and spatial_3d.c read each kernel's
 * parameters (docs/op-spatial.md).  Where a release changed a kernel's
 * parameter list, the table has a row per form and the decoder reads the
 * one the cookie names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/kname.h"
#include "route/optable/spatial_internal.h"

/* Each kernel, found by its base name (tfl_kname) and told apart from a
 * namesake (AdaptiveMaxPooling3d.cu's adaptivemaxpool) by its parameter
 * count.  `tmpl` reads the template arguments in order:
 *   s  the element type;          a  the accumulate type (float/double);
 *   i  index_t (int or long);     I / L  an optional index_t, int / long
 *                                        when absent (2.14 added it);
 *   n  the nearest index function (&nearest_neighbor[_exact][_bw]_...);
 *   K  an int (avg_pool3d's kernel width);
 *   B  an optional bool: 2.14's upsample_nearest2d_nhwc_out_frame<s, fn,
 *      bool> - the true instance walks the output in a grid-stride loop,
 *      the false one does one element per thread (checked in the sm_80
 *      SASS); both write every out[i], i < out_numel, which is what the
 *      op computes, so it only shapes the launch.
 * `sig` is the parameter layout run() reads (tfl_klayout_sig tokens; '#'
 * is index_t, '&' the accumulate type); `form` tells the decoder which
 * release's parameter list it has (1: torch 2.15's avg pool backward, 2:
 * a variant without a leading count; see the decoder files). */
static const struct {
    const char *base;
    int id;
    const char *tmpl;
    int nparams, form;
    const char *sig;
    const char *last;       /* the last parameter's type, where rows differ only there */
} kernels[] = {
    { "max_pool_forward_nchw", SK_MAXPOOL_NCHW, "si", 17, 0, "# p l x2 i x9 p p", NULL },
    { "max_pool_forward_nhwc", SK_MAXPOOL_NHWC, "si", 23, 0, "p i # x4 i x7 # x3 i i p p", NULL },
    { "max_pool_backward_nchw", SK_MAXPOOL_BWD_NCHW, "sai", 17, 0, "p p # x5 i x7 p", NULL },
    { "max_pool_backward_nhwc", SK_MAXPOOL_BWD_NHWC, "sa", 22, 0, "p p i l x2 i x14 p", NULL },
    { "avg_pool2d_out_cuda_frame", SK_AVGPOOL_NCHW, "sa", 17, 0, "i p l x3 i x6 p i b b", NULL },
    { "avg_pool2d_out_cuda_frame_nhwc", SK_AVGPOOL_NHWC, "sa", 17, 0, "i p l x2 i x7 p i b b", NULL },
    { "avg_pool2d_backward_out_cuda_frame", SK_AVGPOOL_BWD_NCHW, "sai", 17, 0, "# p l x4 i x5 p i b b", NULL },
    { "avg_pool2d_backward_out_cuda_frame", SK_AVGPOOL_BWD_NCHW, "sai", 18, 1, "# p l x4 i x5 p i b b b", NULL },
    { "avg_pool2d_backward_out_cuda_frame_nhwc", SK_AVGPOOL_BWD_NHWC, "sai", 17, 0, "# p l x2 i x7 p i b b", NULL },
    { "avg_pool2d_backward_out_cuda_frame_nhwc", SK_AVGPOOL_BWD_NHWC, "sai", 18, 1, "# p l x2 i x7 p i b b b", NULL },
    /* torch 2.14+: windows that tile the input (stride = kernel, no padding) */
    { "avg_pool2d_backward_nonoverlap_frame", SK_AVGPOOL_BWD_NONOVERLAP, "sai", 13, 0, "# p l x4 i i p i b b", NULL },
    { "adaptive_average_pool", SK_AAVG, "sI", 9, 0, "p p # x3 l x2", NULL },
    { "adaptive_average_gradinput", SK_AAVG_BWD, "sI", 6, 0, "p p # x3", NULL },
    { "atomic_adaptive_average_gradinput", SK_AAVG_BWD_ATOMIC, "sI", 6, 0, "p p # x3", NULL },
    { "adaptive_average_pool_nhwc", SK_AAVG_NHWC, "is", 14, 0, "p p i x7 # x3", NULL },
    { "adaptive_average_gradinput_nhwc", SK_AAVG_BWD_NHWC, "is", 14, 0, "p p i x7 # x3", NULL },
    { "adaptivemaxpool", SK_AMAX, "s", 10, 0, "p p p i x3 l x2", NULL },
    { "adaptivemaxgradinput", SK_AMAX_BWD, "s", 7, 0, "p p p i x3", NULL },
    { "atomicadaptivemaxgradinput", SK_AMAX_BWD_ATOMIC, "s", 7, 0, "p p p i x3", NULL },
    { "upsample_nearest2d_out_frame", SK_NEAREST, "sn", 9, 0, "p p l x4 f f", NULL },
    { "upsample_nearest2d_nhwc_out_frame", SK_NEAREST_NHWC, "snB", 10, 0, "p p l x4 f f l", NULL },
    { "upsample_nearest2d_backward_out_frame", SK_NEAREST_BWD, "san", 10, 0, "p l x5 p f f", NULL },
    { "upsample_nearest2d_backward_nhwc_out_frame", SK_NEAREST_BWD_NHWC, "san", 10, 0, "p p l x4 f f l", NULL },
    { "upsample_bilinear2d_out_frame", SK_BILINEAR, "sa", 6, 0, "i & & b a4 a4", NULL },
    { "upsample_bilinear2d_nhwc_out_frame", SK_BILINEAR_NHWC, "saI", 11, 0, "& & b i x4 p p #", NULL },
    { "upsample_bilinear2d_backward_out_frame", SK_BILINEAR_BWD, "sa", 10, 0, "l i x3 & & b p p", NULL },
    { "upsample_bilinear2d_backward_nhwc_out_frame", SK_BILINEAR_BWD_NHWC, "saL", 12, 0, "i x3 & & b p p i # #", NULL },
    { "roll_cuda_kernel", SK_ROLL, "s", 8, 0, "p p l x5", NULL },
    { "upsample_nearest1d_out_frame", SK_NEAREST1D, "sn", 7, 0, "p l x3 p f", NULL },
    { "upsample_nearest1d_backward_out_frame", SK_NEAREST1D_BWD, "san", 7, 0, "p l x3 p f", NULL },
    { "upsample_linear1d_out_frame", SK_LINEAR1D, "sa", 5, 0, "i & b a3 a3", NULL },
    { "upsample_linear1d_out_frame_backward", SK_LINEAR1D_BWD, "sa", 5, 0, "i & b a3 a3", NULL },
    /* torch 2.14+'s variants without the leading output width (the
     * backward one adds into gin atomically too, as its SASS shows) */
    { "upsample_linear1d_out_frame_unrolled", SK_LINEAR1D, "sa", 4, 2, "& b a3 a3", NULL },
    { "upsample_linear1d_out_frame_backward_unrolled", SK_LINEAR1D_BWD, "sa", 4, 2, "& b a3 a3", NULL },
    { "max_pool3d_with_indices_single_out_frame", SK_MAXPOOL3D, "s", 25, 0, "p p p i x20 b", NULL },
    { "max_pool3d_with_indices_backward_single_out_frame", SK_MAXPOOL3D_BWD, "s", 13, 0, "p p p i x8 b", NULL },
    { "avg_pool3d_cuda_update_output", SK_AVGPOOL3D, "sa", 14, 0, "a4 a4 i x8 b i i", NULL },
    { "avg_pool3d_cuda_update_output", SK_AVGPOOL3D, "Ksa", 13, 0, "a4 a4 i x7 b i i", NULL },
    { "avg_pool3d_cuda_update_grad_input", SK_AVGPOOL3D_BWD, "sa", 14, 0, "a4 a4 i x8 b i i", NULL },
    { "avg_pool3d_cuda_update_grad_input", SK_AVGPOOL3D_BWD, "sa", 15, 1, "a4 a4 i x8 b i b &", NULL },
    /* the atomic backward's trailing gin_numel (not read) is int in 2.11 -
     * 2.13, int64 in 2.14 */
    { "avg_pool3d_cuda_update_grad_input_atomic", SK_AVGPOOL3D_BWD_ATOMIC, "sa", 15, 0, "a4 a4 i x8 b i i i", "int" },
    { "avg_pool3d_cuda_update_grad_input_atomic", SK_AVGPOOL3D_BWD_ATOMIC, "sa", 15, 0, "a4 a4 i x8 b i i l", "long" },
    { "avg_pool3d_cuda_update_grad_input_atomic", SK_AVGPOOL3D_BWD_ATOMIC, "sa", 16, 1, "a4 a4 i x8 b i l b &", NULL },
    { "avg_pool3d_single_backward_out_frame_stride1", SK_AVGPOOL3D_BWD_S1, "sa", 7, 0, "a4 a4 i x2 & i", NULL },
    { "upsample_trilinear3d_out_frame", SK_TRILINEAR, "sa", 7, 0, "i & & & b a5 a5", NULL },
    { "upsample_trilinear3d_backward_out_frame", SK_TRILINEAR_BWD, "sa", 8, 0, "i & & & b a5 a5 p", NULL },
    { "upsample_nearest3d_out_frame", SK_NEAREST3D, "sn", 13, 0, "p l x7 p f f f", NULL },
    { "upsample_nearest3d_backward_out_frame", SK_NEAREST3D_BWD, "san", 13, 0, "p l x7 p f f f", NULL },
    { "upsample_bicubic2d_out_frame", SK_BICUBIC, "sa", 6, 0, "i & & b a4 a4", NULL },
    /* torch 2.14+'s forward variant, the same parameters */
    { "upsample_bicubic2d_out_frame_parallel", SK_BICUBIC, "sa", 6, 0, "i & & b a4 a4", NULL },
    { "upsample_bicubic2d_backward_out_frame", SK_BICUBIC_BWD, "sa", 6, 0, "i & & b a4 a4", NULL },
};

static const char *const op_names[SK_COUNT] = {
    [SK_MAXPOOL_NCHW] = "max_pool2d", [SK_MAXPOOL_NHWC] = "max_pool2d",
    [SK_MAXPOOL_BWD_NCHW] = "max_pool2d_backward", [SK_MAXPOOL_BWD_NHWC] = "max_pool2d_backward",
    [SK_AVGPOOL_NCHW] = "avg_pool2d", [SK_AVGPOOL_NHWC] = "avg_pool2d",
    [SK_AVGPOOL_BWD_NCHW] = "avg_pool2d_backward", [SK_AVGPOOL_BWD_NHWC] = "avg_pool2d_backward",
    [SK_AVGPOOL_BWD_NONOVERLAP] = "avg_pool2d_backward",
    [SK_AAVG] = "adaptive_avg_pool2d", [SK_AAVG_NHWC] = "adaptive_avg_pool2d",
    [SK_AAVG_BWD] = "adaptive_avg_pool2d_backward", [SK_AAVG_BWD_ATOMIC] = "adaptive_avg_pool2d_backward",
    [SK_AAVG_BWD_NHWC] = "adaptive_avg_pool2d_backward",
    [SK_AMAX] = "adaptive_max_pool2d", [SK_AMAX_BWD] = "adaptive_max_pool2d_backward",
    [SK_AMAX_BWD_ATOMIC] = "adaptive_max_pool2d_backward",
    [SK_NEAREST] = "upsample_nearest2d", [SK_NEAREST_NHWC] = "upsample_nearest2d",
    [SK_NEAREST_BWD] = "upsample_nearest2d_backward", [SK_NEAREST_BWD_NHWC] = "upsample_nearest2d_backward",
    [SK_BILINEAR] = "upsample_bilinear2d", [SK_BILINEAR_NHWC] = "upsample_bilinear2d",
    [SK_BILINEAR_BWD] = "upsample_bilinear2d_backward", [SK_BILINEAR_BWD_NHWC] = "upsample_bilinear2d_backward",
    [SK_ROLL] = "roll",
    [SK_NEAREST1D] = "upsample_nearest1d", [SK_NEAREST1D_BWD] = "upsample_nearest1d_backward",
    [SK_LINEAR1D] = "upsample_linear1d", [SK_LINEAR1D_BWD] = "upsample_linear1d_backward",
    [SK_MAXPOOL3D] = "max_pool3d", [SK_MAXPOOL3D_BWD] = "max_pool3d_backward",
    [SK_AVGPOOL3D] = "avg_pool3d", [SK_AVGPOOL3D_BWD] = "avg_pool3d_backward",
    [SK_AVGPOOL3D_BWD_ATOMIC] = "avg_pool3d_backward", [SK_AVGPOOL3D_BWD_S1] = "avg_pool3d_backward",
    [SK_TRILINEAR] = "upsample_trilinear3d", [SK_TRILINEAR_BWD] = "upsample_trilinear3d_backward",
    [SK_NEAREST3D] = "upsample_nearest3d", [SK_NEAREST3D_BWD] = "upsample_nearest3d_backward",
    [SK_BICUBIC] = "upsample_bicubic2d", [SK_BICUBIC_BWD] = "upsample_bicubic2d_backward",
};

/* An element type argument: its size and, when it is one the pool and
 * resize ops take, *dt (else TFL_DT_COUNT: roll moves it by size only).
 * 0 if it is not an element type. */
static size_t scalar_of(const tfl_kname *k, int i, tfl_dtype *dt)
{
    static const struct { const char *name; size_t size; } other[] = {
        { "short", 2 }, { "c10::complex<c10::Half>", 4 },
    };
    if (tfl_kname_targ_dtype(k, i, dt))
        return tfl_dtype_size(*dt);
    *dt = TFL_DT_COUNT;
    for (size_t j = 0; j < sizeof other / sizeof other[0]; j++)
        if (tfl_kname_targ_is(k, i, other[j].name))
            return other[j].size;
    return 0;
}

/* index_t at template argument i: 1 long, 0 int, -1 neither. */
static int index_of(const tfl_kname *k, int i)
{
    return tfl_kname_targ_is(k, i, "long") ? 1 : tfl_kname_targ_is(k, i, "int") ? 0 : -1;
}

/* Read the template arguments by the row's pattern; 0 when they are not
 * exactly what it describes (an unknown extra argument is not guessed
 * at). */
static int read_targs(const tfl_kname *kn, const char *tmpl, spatial_kernel *k)
{
    int a = 0;
    long long v;
    tfl_dtype dt;
    for (const char *t = tmpl; *t; t++) {
        switch (*t) {
        case 's':
            k->elem_size = scalar_of(kn, a++, &k->dtype);
            if (!k->elem_size)
                return 0;
            break;
        case 'a':
            if (!tfl_kname_targ_dtype(kn, a++, &dt) || (dt != TFL_DT_F32 && dt != TFL_DT_F64))
                return 0;
            k->acc_size = tfl_dtype_size(dt);
            break;
        case 'i':
            if ((k->wide = index_of(kn, a++)) < 0)
                return 0;
            break;
        case 'I':
        case 'L':
            k->wide = *t == 'L';
            if (a < kn->ntargs && (k->wide = index_of(kn, a++)) < 0)
                return 0;
            break;
        case 'n':
            if (!tfl_kname_targ_starts(kn, a, "&nearest_neighbor_"))
                return 0;
            k->exact = tfl_kname_targ_starts(kn, a, "&nearest_neighbor_exact_");
            a++;
            break;
        case 'K':
            if (!tfl_kname_targ_int(kn, a++, &v) || v <= 0 || v > 64)
                return 0;
            k->kw = (int)v;
            break;
        case 'B':
            if (a < kn->ntargs && (!tfl_kname_targ_int(kn, a++, &v) || v < 0 || v > 1))
                return 0;
            break;
        }
    }
    return a == kn->ntargs;
}

static int match_kname(const tfl_kname *kn, spatial_kernel *out)
{
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        if (!tfl_kname_is(kn, kernels[i].base) || kn->nparams != kernels[i].nparams ||
            (kernels[i].last && !tfl_kname_param_is(kn, kn->nparams - 1, kernels[i].last)))
            continue;
        spatial_kernel k = { .id = kernels[i].id, .dtype = TFL_DT_COUNT, .row = (int)i,
                             .form = kernels[i].form };
        if (!read_targs(kn, kernels[i].tmpl, &k))
            return 0;
        /* Pools and resizes run float types; roll moves any element. */
        if (k.id != SK_ROLL && k.dtype != TFL_DT_F32 && k.dtype != TFL_DT_F64 &&
            k.dtype != TFL_DT_F16 && k.dtype != TFL_DT_BF16)
            return 0;
        /* the host's 3-D pools run float32 and float64 only */
        if (k.id >= SK_MAXPOOL3D && k.dtype != TFL_DT_F32 && k.dtype != TFL_DT_F64)
            return 0;
        *out = k;
        return 1;
    }
    return 0;
}

static int match(const char *m, void **cookie)
{
    /* cheap filter before demangling: every kernel is in at::native */
    if (strncmp(m, "_ZN2at6native", 13) != 0)
        return 0;
    tfl_kname kn;
    if (tfl_kname_parse(m, &kn) != 0)
        return 0;
    spatial_kernel k;
    int ok = match_kname(&kn, &k);
    tfl_kname_free(&kn);
    return ok && tfl_kcookie_keep(&k, sizeof k, cookie);
}

/* The row's signature with index_t and the accumulate type filled in. */
static int layout(void *cookie, tfl_klayout *l)
{
    const spatial_kernel *k = cookie;
    char sig[128];
    size_t n = 0;
    for (const char *p = kernels[k->row].sig; *p && n + 1 < sizeof sig; p++)
        sig[n++] = *p == '#' ? (k->wide ? 'l' : 'i') : *p == '&' ? (k->acc_size == 8 ? 'd' : 'f') : *p;
    sig[n] = 0;
    return tfl_klayout_sig(l, sig) == 0;
}

static const char *op_name(void *cookie)
{
    const spatial_kernel *k = cookie;
    return k && k->id > 0 && k->id < SK_COUNT ? op_names[k->id] : "spatial";
}

/* ------------------------------------------------------- shared helpers */

int64_t sp_span(int64_t n, int64_t c, int64_t h, int64_t w, const int64_t *st, size_t es)
{
    const int64_t sz[4] = { n, c, h, w };
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

void sp_nchw(int64_t *st, int64_t c, int64_t h, int64_t w)
{
    st[3] = 1; st[2] = w; st[1] = h * w; st[0] = c * h * w;
}

void sp_nhwc(int64_t *st, int64_t c, int64_t h, int64_t w)
{
    st[1] = 1; st[3] = c; st[2] = w * c; st[0] = h * w * c;
}

static int range_ok(const void *p, int64_t bytes)
{
    return bytes >= 0 && tfl_kdev_ok(p, (size_t)bytes);
}

tfl_status sp_check_ranges(const tfl_spatial_op *s, char *err, size_t errlen)
{
    const size_t es = tfl_dtype_size(s->dtype);
    int64_t in = sp_span(s->n, s->c, s->in_h, s->in_w, s->in_stride, es);
    int64_t out = sp_span(s->n, s->c, s->out_h, s->out_w, s->out_stride, es);
    int64_t ind = s->indices ? sp_span(s->n, s->c, s->out_h, s->out_w, s->out_stride, 8) : 0;
    if (in < 0 || out < 0 || ind < 0) {
        snprintf(err, errlen, "spatial: unsupported strides");
        return TFL_ERR_UNSUPPORTED;
    }
    if (!range_ok(s->in, in) || !range_ok(s->out, out) || !range_ok(s->indices, ind)) {
        snprintf(err, errlen, "spatial: an operand is not in device memory "
                 "(n=%lld c=%lld in %lldx%lld out %lldx%lld)", (long long)s->n,
                 (long long)s->c, (long long)s->in_h, (long long)s->in_w,
                 (long long)s->out_h, (long long)s->out_w);
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* roll_cuda_kernel<T>(const T *in, T *out, int64 N, int64 roll_dim,
 * int64 start, int64 size, int64 stride, int64 total_dims): contiguous
 * in and out; out[i] = in[i + start*stride] for i's index j along the
 * rolled dimension below size - start, else in[i - (size-start)*stride]. */
static tfl_status decode_roll(const tfl_kcall *c, const spatial_kernel *k, tfl_spatial_op *s,
                              char *err, size_t errlen)
{
    int64_t N = SARG(c, 2, int64_t), start = SARG(c, 4, int64_t);
    int64_t size = SARG(c, 5, int64_t), stride = SARG(c, 6, int64_t);
    if (N == 0)
        return TFL_OK;
    if (N < 0 || size <= 0 || stride <= 0 || start < 0 || start >= size ||
        size > N / stride || N % (size * stride) != 0) {
        snprintf(err, errlen, "roll: bad geometry N=%lld size=%lld stride=%lld start=%lld",
                 (long long)N, (long long)size, (long long)stride, (long long)start);
        return TFL_ERR_INVALID;
    }
    s->kind = TFL_SPATIAL_ROLL;
    s->dtype = k->dtype;
    s->elem_size = k->elem_size;
    s->in = SARG(c, 0, void *);
    s->out = SARG(c, 1, void *);
    s->outer = N / (size * stride);
    s->size = size;
    s->inner = stride;
    s->start = start;
    int64_t bytes = N * (int64_t)k->elem_size;
    if (!range_ok(s->in, bytes) || !range_ok(s->out, bytes)) {
        snprintf(err, errlen, "roll: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const spatial_kernel *k = cookie;
    tfl_op op = { .kind = TFL_OP_SPATIAL, .name = op_name(cookie) };
    tfl_spatial_op *s = &op.u.spatial;
    tfl_status st;
    if (k->id == SK_ROLL)
        st = decode_roll(c, k, s, err, errlen);
    else if (k->id > SK_ROLL)
        st = sp_decode_3d(c, k, s, err, errlen);
    else if (k->id >= SK_NEAREST)
        st = sp_decode_resize(c, k, s, err, errlen);
    else
        st = sp_decode_pool(c, k, s, err, errlen);
    if (st != TFL_OK)
        return st;
    if (s->kind == 0)
        return TFL_OK;      /* nothing to do (empty) */
    if (s->kind != TFL_SPATIAL_ROLL && !(s->kind >= TFL_SPATIAL_MAXPOOL3D_FWD &&
                                         s->kind <= TFL_SPATIAL_NEAREST3D_BWD)) {
        if (s->n * s->c == 0 || s->in_h * s->in_w == 0 || s->out_h * s->out_w == 0)
            return TFL_OK;
        st = sp_check_ranges(s, err, errlen);
        if (st != TFL_OK)
            return st;
    }
    st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_spatial = {
    .name = "spatial",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

/*
 * spatial.c - the "spatial" kernel family of the semantic op table:
 * PyTorch's 2-D pooling (DilatedMaxPool2d.cu, AveragePool2d.cu,
 * AdaptiveAveragePooling.cu, AdaptiveMaxPooling2d.cu), 2-D nearest and
 * bilinear resizing (UpSampleNearest2d.cu, UpSampleBilinear2d.cu) with
 * their backward kernels, and roll (TensorTransformations.cu).
 *
 * This file recognises the kernels by name, parses their template
 * arguments (element type, index type, nearest vs nearest-exact), checks
 * the operands' device ranges and routes the op; spatial_pool.c and
 * spatial_resize.c read each kernel's parameters (layouts in
 * docs/op-spatial.md, checked against the sm_80 cubins).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/spatial_internal.h"

/* Name piece -> kernel.  `tmpl` says how the template list reads:
 * s = scalar type, a = accumulate type (skipped), i = index type ('i' or
 * 'l'), n = nearest mapping function pointer, k = an optional int
 * template argument (Li<digits>E, the kernel width). */
static const struct {
    const char *needle;
    int id;
    const char *tmpl;
} kernels[] = {
    { "21max_pool_forward_nchwI", SK_MAXPOOL_NCHW, "si" },
    { "21max_pool_forward_nhwcI", SK_MAXPOOL_NHWC, "si" },
    { "22max_pool_backward_nchwI", SK_MAXPOOL_BWD_NCHW, "sai" },
    { "22max_pool_backward_nhwcI", SK_MAXPOOL_BWD_NHWC, "sa" },
    { "25avg_pool2d_out_cuda_frameI", SK_AVGPOOL_NCHW, "sa" },
    { "30avg_pool2d_out_cuda_frame_nhwcI", SK_AVGPOOL_NHWC, "sa" },
    { "34avg_pool2d_backward_out_cuda_frameI", SK_AVGPOOL_BWD_NCHW, "sai" },
    { "39avg_pool2d_backward_out_cuda_frame_nhwcI", SK_AVGPOOL_BWD_NHWC, "sai" },
    { "21adaptive_average_poolI", SK_AAVG, "s" },
    { "26adaptive_average_gradinputI", SK_AAVG_BWD, "s" },
    { "33atomic_adaptive_average_gradinputI", SK_AAVG_BWD_ATOMIC, "s" },
    { "26adaptive_average_pool_nhwcI", SK_AAVG_NHWC, "is" },
    { "31adaptive_average_gradinput_nhwcI", SK_AAVG_BWD_NHWC, "is" },
    { "15adaptivemaxpoolI", SK_AMAX, "s" },
    { "20adaptivemaxgradinputI", SK_AMAX_BWD, "s" },
    { "26atomicadaptivemaxgradinputI", SK_AMAX_BWD_ATOMIC, "s" },
    { "28upsample_nearest2d_out_frameI", SK_NEAREST, "sn" },
    { "33upsample_nearest2d_nhwc_out_frameI", SK_NEAREST_NHWC, "sn" },
    { "37upsample_nearest2d_backward_out_frameI", SK_NEAREST_BWD, "san" },
    { "42upsample_nearest2d_backward_nhwc_out_frameI", SK_NEAREST_BWD_NHWC, "san" },
    { "29upsample_bilinear2d_out_frameI", SK_BILINEAR, "sa" },
    { "34upsample_bilinear2d_nhwc_out_frameI", SK_BILINEAR_NHWC, "sa" },
    { "38upsample_bilinear2d_backward_out_frameI", SK_BILINEAR_BWD, "sa" },
    { "43upsample_bilinear2d_backward_nhwc_out_frameI", SK_BILINEAR_BWD_NHWC, "sa" },
    { "16roll_cuda_kernelI", SK_ROLL, "s" },
    { "28upsample_nearest1d_out_frameI", SK_NEAREST1D, "sn" },
    { "37upsample_nearest1d_backward_out_frameI", SK_NEAREST1D_BWD, "san" },
    { "27upsample_linear1d_out_frameI", SK_LINEAR1D, "sa" },
    { "36upsample_linear1d_out_frame_backwardI", SK_LINEAR1D_BWD, "sa" },
    { "40max_pool3d_with_indices_single_out_frameI", SK_MAXPOOL3D, "s" },
    { "49max_pool3d_with_indices_backward_single_out_frameI", SK_MAXPOOL3D_BWD, "s" },
    { "29avg_pool3d_cuda_update_outputI", SK_AVGPOOL3D, "ksa" },
    { "33avg_pool3d_cuda_update_grad_inputI", SK_AVGPOOL3D_BWD, "sa" },
    { "40avg_pool3d_cuda_update_grad_input_atomicI", SK_AVGPOOL3D_BWD_ATOMIC, "sa" },
    { "44avg_pool3d_single_backward_out_frame_stride1I", SK_AVGPOOL3D_BWD_S1, "sa" },
    { "30upsample_trilinear3d_out_frameI", SK_TRILINEAR, "sa" },
    { "39upsample_trilinear3d_backward_out_frameI", SK_TRILINEAR_BWD, "sa" },
    { "28upsample_nearest3d_out_frameI", SK_NEAREST3D, "sn" },
    { "37upsample_nearest3d_backward_out_frameI", SK_NEAREST3D_BWD, "san" },
    { "28upsample_bicubic2d_out_frameI", SK_BICUBIC, "sa" },
    { "37upsample_bicubic2d_backward_out_frameI", SK_BICUBIC_BWD, "sa" },
};

static const char *const op_names[SK_COUNT] = {
    [SK_MAXPOOL_NCHW] = "max_pool2d", [SK_MAXPOOL_NHWC] = "max_pool2d",
    [SK_MAXPOOL_BWD_NCHW] = "max_pool2d_backward", [SK_MAXPOOL_BWD_NHWC] = "max_pool2d_backward",
    [SK_AVGPOOL_NCHW] = "avg_pool2d", [SK_AVGPOOL_NHWC] = "avg_pool2d",
    [SK_AVGPOOL_BWD_NCHW] = "avg_pool2d_backward", [SK_AVGPOOL_BWD_NHWC] = "avg_pool2d_backward",
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

/* A mangled element type at *p: its size, *dt when it is one the pool
 * and resize ops take (else TFL_DT_COUNT); advances *p.  0 if unknown. */
static size_t scalar_at(const char **p, tfl_dtype *dt)
{
    static const struct { const char *m; size_t sz; tfl_dtype dt; } named[] = {
        { "N3c104HalfE", 2, TFL_DT_F16 }, { "N3c108BFloat16E", 2, TFL_DT_BF16 },
        { "N3c107complexIfEE", 8, TFL_DT_C64 }, { "N3c107complexIdEE", 16, TFL_DT_C128 },
        { "N3c107complexINS2_4HalfEEE", 4, TFL_DT_COUNT },
        { "N3c107complexINS_4HalfEEE", 4, TFL_DT_COUNT },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].m);
        if (strncmp(*p, named[i].m, n) == 0) {
            *p += n;
            *dt = named[i].dt;
            return named[i].sz;
        }
    }
    size_t sz;
    switch (**p) {
    case 'f': sz = 4; *dt = TFL_DT_F32; break;
    case 'd': sz = 8; *dt = TFL_DT_F64; break;
    case 'a': sz = 1; *dt = TFL_DT_I8; break;
    case 'h': sz = 1; *dt = TFL_DT_U8; break;
    case 'b': sz = 1; *dt = TFL_DT_BOOL; break;
    case 's': sz = 2; *dt = TFL_DT_COUNT; break;
    case 'i': sz = 4; *dt = TFL_DT_I32; break;
    case 'l': sz = 8; *dt = TFL_DT_I64; break;
    default: return 0;
    }
    (*p)++;
    return sz;
}

static int match(const char *m, void **cookie)
{
    if (strncmp(m, "_ZN2at6native", 13) != 0)
        return 0;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        const char *p = strstr(m, kernels[i].needle);
        if (!p)
            continue;
        p += strlen(kernels[i].needle);
        spatial_kernel k = { .id = kernels[i].id, .dtype = TFL_DT_COUNT };
        for (const char *t = kernels[i].tmpl; *t; t++) {
            tfl_dtype dt;
            switch (*t) {
            case 's':
                k.elem_size = scalar_at(&p, &k.dtype);
                if (!k.elem_size)
                    return 0;
                break;
            case 'a':
                if (!scalar_at(&p, &dt))
                    return 0;
                break;
            case 'i':
                if (*p != 'i' && *p != 'l')
                    return 0;
                k.wide = *p++ == 'l';
                break;
            case 'k':
                if (strncmp(p, "Li", 2) == 0) {
                    char *e;
                    long v = strtol(p + 2, &e, 10);
                    if (*e != 'E' || v <= 0 || v > 64)
                        return 0;
                    k.kw = (int)v;
                    p = e + 1;
                }
                break;
            case 'n':
                if (strstr(p, "nearest_neighbor_exact"))
                    k.exact = 1;
                else if (!strstr(p, "nearest_neighbor_"))
                    return 0;
                break;
            }
        }
        /* Pools and resizes run float types; roll moves any element. */
        if (k.id != SK_ROLL && k.dtype != TFL_DT_F32 && k.dtype != TFL_DT_F64 &&
            k.dtype != TFL_DT_F16 && k.dtype != TFL_DT_BF16)
            return 0;
        /* the host's 3-D pools run float32 and float64 only */
        if (k.id >= SK_MAXPOOL3D && k.dtype != TFL_DT_F32 && k.dtype != TFL_DT_F64)
            return 0;
        spatial_kernel *keep = malloc(sizeof *keep);
        if (!keep)
            return 0;
        *keep = k;
        *cookie = keep;
        return 1;
    }
    return 0;
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
        return TFL_ERR_DEVICE;
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
        return TFL_ERR_DEVICE;
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
};

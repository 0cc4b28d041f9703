/*
 * shape.c - the "shape" kernel family of the semantic op table: PyTorch's
 * reflect / replicate padding kernels (ReflectionPad.cu,
 * ReplicationPadding.cu) and im2col / col2im (im2col.cuh: F.unfold /
 * F.fold) decoded into TFL_OP_SHAPE (torchfl/ops/shape.h).  The im2col
 * layouts are next to run_im2col below.
 *
 * Kernels are recognised by their demangled base name and template
 * arguments (kname.h), so per-build namespace hashes do not matter.
 * Parameter layouts (sm_80 cubins of torch 2.11.0+cu130, unchanged through
 * 2.15; `layout()` states them as tfl_klayout_sig strings, in brackets):
 *   reflection_pad1d_out_kernel<T>(const T *in, T *out, long W, long pl,
 *     long pr) and reflection_pad1d_backward_out_kernel<T>(T *gin, const T
 *     *gout, long W, long pl, long pr): 40 bytes; plane = blockIdx.y +
 *     blockIdx.z * gridDim.y over contiguous rows.
 *   reflection_pad2d_out_kernel<T> / reflection_pad2d_backward_out_kernel<T>
 *     (in/gin @0, out/gout @8, long W @16, long H @24, int pt @32, pb @36,
 *     pl @40, pr @44, y_shift @48, z_shift @52, nplane @56): 60 bytes
 *     [p p l l i x6];
 *     contiguous planes, plane (blockIdx.y + y_shift) of batch (blockIdx.z
 *     + z_shift) starts at (plane + batch * nplane) * H * W.
 *   reflection_pad3d_out_kernel<T> / _backward_out_kernel<T>
 *     (PackedTensorAccessor64<T,5> in/gin @0, out/gout @88, long pl @176,
 *     pt @184, pf @192, y_shift @200, z_shift @208): 216 bytes [a5 a5 l x4].
 *   replication_pad_forward_kernel{1,2,3}d<T> and
 *     replication_pad_backward_kernel<T> (two PackedTensorAccessor64<T,N>,
 *     N = 3/4/5: 56/72/88 bytes each, then int leading pads w / h,w /
 *     d,h,w, then int y_shift, z_shift) [a3 a3 i x2], [a4 a4 i x3],
 *     [a5 a5 i x4]; the rank is read from the accessor type.
 *   PackedTensorAccessor64<T,N>: data pointer, long sizes[N], long
 *     strides[N] (8 + 16 N bytes).
 *   Plane = blockIdx.y + y_shift, batch = blockIdx.z + z_shift: one launch
 *   covers gridDim.y planes of gridDim.z batches.
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

enum { SK_REFL1 = 1, SK_REFL2, SK_REFL3, SK_REPL1, SK_REPL2, SK_REPL3, SK_IM2COL, SK_COL2IM,
       SK_COL2IM_BATCHED, SK_TRIL, SK_TRIU };

/* cookie = kind | backward << 8 | dtype << 16 */
#define SK_COOKIE(k, bwd, dt) ((void *)(uintptr_t)((k) | ((bwd) << 8) | ((uintptr_t)(dt) << 16)))

/* The kernels, by base name (at::native, anonymous namespaces dropped),
 * with the parameters each run() reads (tfl_klayout_sig tokens; all of them,
 * in order - the header comment and run_im2col / run_triangle say what they
 * are).  The replication kernels' signature depends on the accessors' rank
 * N (3, 4, 5 for 1-D, 2-D, 3-D), read from the first parameter's type. */
static const struct {
    const char *base;
    int kind, bwd;
    const char *sig;
} kernels[] = {
    {"reflection_pad1d_out_kernel", SK_REFL1, 0, "p p l l l"},
    {"reflection_pad1d_backward_out_kernel", SK_REFL1, 1, "p p l l l"},
    {"reflection_pad2d_out_kernel", SK_REFL2, 0, "p p l l i x6"},
    {"reflection_pad2d_backward_out_kernel", SK_REFL2, 1, "p p l l i x6"},
    {"reflection_pad3d_out_kernel", SK_REFL3, 0, "a5 a5 l x4"},
    {"reflection_pad3d_backward_out_kernel", SK_REFL3, 1, "a5 a5 l x4"},
    {"replication_pad_forward_kernel1d", SK_REPL1, 0, NULL},
    {"replication_pad_forward_kernel2d", SK_REPL2, 0, NULL},
    {"replication_pad_forward_kernel3d", SK_REPL3, 0, NULL},
    {"replication_pad_backward_kernel", SK_REPL1, 1, NULL},
    {"im2col_kernel", SK_IM2COL, 0, "l p l x11 p"},
    {"col2im_kernel", SK_COL2IM, 1, "l p l x11 p"},
    {"col2im_batched_kernel", SK_COL2IM_BATCHED, 1, "l p l x13 p l"},
    {"tril_indices_kernel", SK_TRIL, 0, "p l x4"},
    {"triu_indices_kernel", SK_TRIU, 0, "p l x4"},
};
/* replication_pad_*: two PackedTensorAccessor64<T, N>, N - 2 int leading
 * pads, then int y_shift, z_shift. */
static const char *const repl_sig[] = {"a3 a3 i x2", "a4 a4 i x3", "a5 a5 i x4"};

/* The rank N of parameter i when it is a PackedTensorAccessor64<T, N>, the
 * accessor the decoder reads, else 0. */
static int pta64_rank(const tfl_kname *k, int i)
{
    return tfl_kname_accessor_rank(k, i, 64);
}

/* The cookie for a parsed name, or 0 when the kernel is not one of ours.
 * Every template argument is accounted for: the element type(s), nothing
 * else (none of these kernels has a tuning constant). */
static uintptr_t cookie_of(const tfl_kname *k)
{
    size_t i = 0;
    while (i < sizeof kernels / sizeof *kernels &&
           !(tfl_kname_is(k, kernels[i].base) && k->name_len == k->base_len))
        i++;
    if (i == sizeof kernels / sizeof *kernels)
        return 0;
    int kind = kernels[i].kind;
    tfl_dtype dt, acc;
    if (!tfl_kname_targ_dtype(k, 0, &dt))
        return 0;
    switch (kind) {
    case SK_TRIL:
    case SK_TRIU:
        if (k->ntargs != 1 || (dt != TFL_DT_I32 && dt != TFL_DT_I64))
            return 0;
        break;
    case SK_COL2IM:
        /* <T, accT>: only float/float and double/double (one accumulation) */
        if (k->ntargs != 2 || !tfl_kname_targ_dtype(k, 1, &acc) || acc != dt ||
            (dt != TFL_DT_F32 && dt != TFL_DT_F64))
            return 0;
        break;
    case SK_COL2IM_BATCHED:
        if (k->ntargs != 1 || (dt != TFL_DT_F32 && dt != TFL_DT_F64))
            return 0;
        break;
    case SK_REFL3:
        if (k->ntargs != 1 || pta64_rank(k, 0) != 5 || pta64_rank(k, 1) != 5)
            return 0;
        break;
    case SK_REPL1: {
        /* one backward kernel for every rank: the kind follows N */
        int n = pta64_rank(k, 0);
        if (k->ntargs != 1 || n < 3 || n > 5 || pta64_rank(k, 1) != n ||
            (!kernels[i].bwd && n != 3))
            return 0;
        kind = SK_REPL1 + (n - 3);
        break;
    }
    case SK_REPL2:
    case SK_REPL3:
        if (k->ntargs != 1 || pta64_rank(k, 0) != 3 + (kind - SK_REPL1) ||
            pta64_rank(k, 1) != 3 + (kind - SK_REPL1))
            return 0;
        break;
    default:
        if (k->ntargs != 1)
            return 0;
    }
    return (uintptr_t)SK_COOKIE(kind, kernels[i].bwd, dt);
}

static int layout(void *cookie, tfl_klayout *l);

static int match(const char *m, void **cookie)
{
    /* cheap filter before demangling: every name has one of these */
    if (!strstr(m, "pad") && !strstr(m, "col") && !strstr(m, "_indices_kernel"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    uintptr_t c = cookie_of(&k);
    /* the name's parameter list has the count the decoder's layout states */
    tfl_klayout l = { 0 };
    if (c && (!layout((void *)c, &l) || l.n != k.nparams))
        c = 0;
    tfl_kname_free(&k);
    if (!c)
        return 0;
    *cookie = (void *)c;
    return 1;
}

/* The parameters run() reads for this cookie's kernel (the table above). */
static int layout(void *cookie, tfl_klayout *l)
{
    const uintptr_t c = (uintptr_t)cookie;
    const int kind = (int)(c & 0xff), bwd = (int)((c >> 8) & 0xff);
    if (kind >= SK_REPL1 && kind <= SK_REPL3)
        return tfl_klayout_sig(l, repl_sig[kind - SK_REPL1]) == 0;
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        if (kernels[i].kind == kind && kernels[i].bwd == bwd && kernels[i].sig)
            return tfl_klayout_sig(l, kernels[i].sig) == 0;
    return 0;
}

static const char *op_name(void *cookie)
{
    const uintptr_t c = (uintptr_t)cookie;
    const int kind = (int)(c & 0xff), bwd = (int)((c >> 8) & 0xff);
    if (kind == SK_TRIL)
        return "tril_indices";
    if (kind == SK_TRIU)
        return "triu_indices";
    if (kind == SK_IM2COL)
        return "im2col";
    if (kind >= SK_COL2IM)
        return "col2im";
    if (kind <= SK_REFL3)
        return bwd ? "reflection_pad_backward" : "reflection_pad";
    return bwd ? "replication_pad_backward" : "replication_pad";
}

/* Is every element of the view that (batch, plane) ranges reach in memory? */
static int view_ok(const void *p, const int64_t *size, const int64_t *stride, size_t es,
                   int64_t b_end, int64_t p_end)
{
    int64_t hi = 0;
    const int64_t ext[5] = {b_end, p_end, size[2], size[3], size[4]};
    for (int d = 0; d < 5; d++) {
        if (ext[d] <= 0)
            return 1; /* nothing touched */
        if (stride[d] < 0)
            return 0;
        hi += (ext[d] - 1) * stride[d];
    }
    return tfl_mem_check_range(p, (size_t)(hi + 1) * es, NULL);
}

/* a PackedTensorAccessor64<T,N> at byte offset off of parameter i, put into
 * the 5-D [batch, plane, d, h, w] view (leading missing spatial dims 1) */
static void accessor(const tfl_kcall *c, int i, int n, void **ptr, int64_t *size, int64_t *stride)
{
    *ptr = TFL_KARG_AT(c, void *, i, 0);
    for (int d = 0; d < 5; d++) {
        size[d] = 1;
        stride[d] = 0;
    }
    for (int d = 0; d < n; d++) {
        const int o = d < 2 ? d : d + (5 - n);
        size[o] = TFL_KARG_AT(c, int64_t, i, 8 + 8 * d);
        stride[o] = TFL_KARG_AT(c, int64_t, i, 8 + 8 * n + 8 * d);
    }
}

/* im2col_kernel<T>(long n, const T *im, long height, width, kh, kw, pad_h,
 * pad_w, stride_h, stride_w, dil_h, dil_w, height_col, width_col, T *col):
 * one image, n = channels * height_col * width_col (120 bytes, [l p l x11 p]).
 * col2im_kernel<T, acc>(long n, const T *col, the same 12 longs, T *im):
 * one image, n = channels * height * width (120 bytes).
 * col2im_batched_kernel<T>(long n, const T *col, long col_batch_stride,
 * long nbatch, the same 12 longs, T *im, long im_batch_stride) (144 bytes, [l p l x13 p l]). */
static tfl_status run_im2col(const tfl_kcall *c, int kind, tfl_dtype dt, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SHAPE, .name = kind == SK_IM2COL ? "im2col" : "col2im" };
    tfl_shape_op *s = &op.u.shape;
    tfl_im2col_geom *g = &s->im2col;
    s->kind = kind == SK_IM2COL ? TFL_SHAPE_IM2COL : TFL_SHAPE_COL2IM;
    s->dtype = dt;
    const int64_t n = TFL_KARG(c, int64_t, 0);
    const int b = kind == SK_COL2IM_BATCHED ? 2 : 0; /* extra leading longs */
    void *p1 = TFL_KARG(c, void *, 1);
    int64_t v[12];
    for (int i = 0; i < 12; i++)
        v[i] = TFL_KARG(c, int64_t, 2 + b + i);
    g->height = v[0];
    g->width = v[1];
    g->kh = v[2];
    g->kw = v[3];
    g->pad_h = v[4];
    g->pad_w = v[5];
    g->stride_h = v[6];
    g->stride_w = v[7];
    g->dil_h = v[8];
    g->dil_w = v[9];
    g->height_col = v[10];
    g->width_col = v[11];
    void *p_last = TFL_KARG(c, void *, 14 + b);
    g->nbatch = 1;
    if (kind == SK_IM2COL) {
        g->im = p1;
        g->col = p_last;
        const int64_t plane = g->height_col * g->width_col;
        if (plane <= 0 || n < 0 || n % plane)
            return n == 0 ? TFL_OK : TFL_ERR_UNSUPPORTED;
        g->channels = n / plane;
    } else {
        g->col = p1;
        g->im = p_last;
        const int64_t plane = g->height * g->width;
        if (plane <= 0 || n < 0 || n % plane)
            return n == 0 ? TFL_OK : TFL_ERR_UNSUPPORTED;
        g->channels = n / plane;
        if (kind == SK_COL2IM_BATCHED) {
            g->col_batch_stride = TFL_KARG(c, int64_t, 2);
            g->nbatch = TFL_KARG(c, int64_t, 3);
            g->im_batch_stride = TFL_KARG(c, int64_t, 17);
        }
    }
    if (g->kh <= 0 || g->kw <= 0 || g->stride_h <= 0 || g->stride_w <= 0 || g->dil_h <= 0 ||
        g->dil_w <= 0 || g->height_col < 0 || g->width_col < 0 || g->nbatch < 0 ||
        g->col_batch_stride < 0 || g->im_batch_stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (g->nbatch == 0 || g->channels == 0)
        return TFL_OK;
    const size_t es = tfl_dtype_size(dt);
    const int64_t im_n = g->channels * g->height * g->width;
    const int64_t col_n = g->channels * g->kh * g->kw * g->height_col * g->width_col;
    const int64_t last = g->nbatch - 1;
    if (!tfl_kdev_ok(g->im, (size_t)(last * g->im_batch_stride + im_n) * es) ||
        !tfl_kdev_ok(g->col, (size_t)(last * g->col_batch_stride + col_n) * es)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

/* tril_indices_kernel<T>(T *out, long row_offset, long m_first_row, long
 * col, long trapezoid_size, long tril_size) and triu_indices_kernel<T>(T
 * *out, long col_offset, long m_first_row, long col, long rectangle_size,
 * long triu_size) (TensorFactories.cu; 48 bytes, [p l x4]). */
static tfl_status run_triangle(const tfl_kcall *c, int kind, tfl_dtype dt, char *err,
                               size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SHAPE, .name = kind == SK_TRIL ? "tril_indices" : "triu_indices" };
    tfl_shape_op *s = &op.u.shape;
    s->kind = kind == SK_TRIL ? TFL_SHAPE_TRIL_INDICES : TFL_SHAPE_TRIU_INDICES;
    s->dtype = dt;
    tfl_triangle_geom *g = &s->tri;
    g->out = TFL_KARG(c, void *, 0);
    g->offset = TFL_KARG(c, int64_t, 1);
    g->first_row = TFL_KARG(c, int64_t, 2);
    g->cols = TFL_KARG(c, int64_t, 3);
    g->part = TFL_KARG(c, int64_t, 4);
    g->n = TFL_KARG(c, int64_t, 5);
    if (g->n < 0 || g->n > INT64_MAX / 32 || g->cols <= 0 || g->offset < 0 || g->part < 0)
        return TFL_ERR_UNSUPPORTED;
    if (!tfl_kdev_ok(g->out, (size_t)(2 * g->n) * tfl_dtype_size(dt))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const uintptr_t ck = (uintptr_t)cookie;
    int kind = (int)(ck & 0xff);
    if (kind == SK_TRIL || kind == SK_TRIU)
        return run_triangle(c, kind, (tfl_dtype)(ck >> 16), err, errlen);
    if (kind >= SK_IM2COL)
        return run_im2col(c, kind, (tfl_dtype)(ck >> 16), err, errlen);
    const int bwd = (int)((ck >> 8) & 0xff);
    tfl_op op = { .kind = TFL_OP_SHAPE, .name = op_name(cookie) };
    tfl_shape_op *s = &op.u.shape;
    s->dtype = (tfl_dtype)(ck >> 16);
    s->backward = bwd;
    s->kind = kind <= SK_REFL3 ? TFL_SHAPE_PAD_REFLECT : TFL_SHAPE_PAD_REPLICATE;
    for (int d = 0; d < 5; d++) {
        s->x_size[d] = s->y_size[d] = 1;
        s->x_stride[d] = s->y_stride[d] = 0;
    }
    const int64_t gy = c->grid[1], gz = c->grid[2];
    s->nplane = gy;
    s->nbatch = gz;
    switch (kind) {
    case SK_REFL1: {
        const int64_t W = TFL_KARG(c, int64_t, 2), pl = TFL_KARG(c, int64_t, 3),
                      pr = TFL_KARG(c, int64_t, 4), Wo = W + pl + pr;
        s->x = TFL_KARG(c, void *, 0);
        s->y = TFL_KARG(c, void *, 1);
        s->x_size[4] = W;
        s->y_size[4] = Wo;
        s->x_stride[4] = s->y_stride[4] = 1;
        s->x_stride[1] = W;
        s->y_stride[1] = Wo;
        s->x_stride[0] = gy * W;
        s->y_stride[0] = gy * Wo;
        s->pad[2] = pl;
        break;
    }
    case SK_REFL2: {
        const int64_t W = TFL_KARG(c, int64_t, 2), H = TFL_KARG(c, int64_t, 3);
        const int32_t pt = TFL_KARG(c, int32_t, 4), pb = TFL_KARG(c, int32_t, 5),
                      pl = TFL_KARG(c, int32_t, 6), pr = TFL_KARG(c, int32_t, 7),
                      ysh = TFL_KARG(c, int32_t, 8), zsh = TFL_KARG(c, int32_t, 9),
                      np = TFL_KARG(c, int32_t, 10);
        const int64_t Wo = W + pl + pr, Ho = H + pt + pb;
        s->x = TFL_KARG(c, void *, 0);
        s->y = TFL_KARG(c, void *, 1);
        s->x_size[3] = H;
        s->x_size[4] = W;
        s->y_size[3] = Ho;
        s->y_size[4] = Wo;
        s->x_stride[4] = s->y_stride[4] = 1;
        s->x_stride[3] = W;
        s->y_stride[3] = Wo;
        s->x_stride[1] = H * W;
        s->y_stride[1] = Ho * Wo;
        s->x_stride[0] = np * H * W;
        s->y_stride[0] = np * Ho * Wo;
        s->pad[1] = pt;
        s->pad[2] = pl;
        s->plane0 = ysh;
        s->batch0 = zsh;
        if (ysh < 0 || zsh < 0 || np < 0 || ysh + gy > np)
            return TFL_ERR_UNSUPPORTED;
        break;
    }
    case SK_REFL3:
        accessor(c, 0, 5, &s->x, s->x_size, s->x_stride);
        accessor(c, 1, 5, &s->y, s->y_size, s->y_stride);
        s->pad[2] = TFL_KARG(c, int64_t, 2);
        s->pad[1] = TFL_KARG(c, int64_t, 3);
        s->pad[0] = TFL_KARG(c, int64_t, 4);
        s->plane0 = TFL_KARG(c, int64_t, 5);
        s->batch0 = TFL_KARG(c, int64_t, 6);
        break;
    default: { /* replication: N - 2 int leading pads (w | h, w | d, h, w), shifts */
        const int n = 3 + (kind - SK_REPL1);
        accessor(c, 0, n, &s->x, s->x_size, s->x_stride);
        accessor(c, 1, n, &s->y, s->y_size, s->y_stride);
        for (int d = 0; d < n - 2; d++)
            s->pad[3 - (n - 2) + d] = TFL_KARG(c, int32_t, 2 + d);
        s->plane0 = TFL_KARG(c, int32_t, n);
        s->batch0 = TFL_KARG(c, int32_t, n + 1);
        break;
    }
    }
    const size_t es = tfl_dtype_size(s->dtype);
    if (s->plane0 < 0 || s->batch0 < 0)
        return TFL_ERR_UNSUPPORTED;
    /* accessor launches: the planes / batches reached must exist in both */
    if (kind == SK_REFL3 || kind >= SK_REPL1) {
        if (s->plane0 + gy > s->x_size[1] || s->batch0 + gz > s->x_size[0] ||
            s->x_size[0] != s->y_size[0] || s->x_size[1] != s->y_size[1])
            return TFL_ERR_UNSUPPORTED;
    }
    if (!view_ok(s->x, s->x_size, s->x_stride, es, s->batch0 + gz, s->plane0 + gy) ||
        !view_ok(s->y, s->y_size, s->y_stride, es, s->batch0 + gz, s->plane0 + gy)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_shape = {
    .name = "shape",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

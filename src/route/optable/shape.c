/*
 * shape.c - the "shape" kernel family of the semantic op table: PyTorch's
 * reflect / replicate padding kernels (ReflectionPad.cu,
 * ReplicationPadding.cu) and im2col / col2im (im2col.cuh: F.unfold /
 * F.fold) decoded into TFL_OP_SHAPE (torchfl/ops/shape.h).  The im2col
 * layouts are next to run_im2col below.
 *
 * Parameter layouts (sm_80 cubins of torch 2.11.0+cu130):
 *   reflection_pad1d_out_kernel<T>(const T *in, T *out, long W, long pl,
 *     long pr) and reflection_pad1d_backward_out_kernel<T>(T *gin, const T
 *     *gout, long W, long pl, long pr): 40 bytes; plane = blockIdx.y +
 *     blockIdx.z * gridDim.y over contiguous rows.
 *   reflection_pad2d_out_kernel<T> / reflection_pad2d_backward_out_kernel<T>
 *     (in/gin @0, out/gout @8, long W @16, long H @24, int pt @32, pb @36,
 *     pl @40, pr @44, y_shift @48, z_shift @52, nplane @56): 60 bytes;
 *     contiguous planes, plane (blockIdx.y + y_shift) of batch (blockIdx.z
 *     + z_shift) starts at (plane + batch * nplane) * H * W.
 *   reflection_pad3d_out_kernel<T> / _backward_out_kernel<T>
 *     (PackedTensorAccessor64<T,5> in/gin @0, out/gout @88, long pl @176,
 *     pt @184, pf @192, y_shift @200, z_shift @208): 216 bytes.
 *   replication_pad_forward_kernel{1,2,3}d<T> and
 *     replication_pad_backward_kernel<T> (two PackedTensorAccessor64<T,N>,
 *     N = 3/4/5: 56/72/88 bytes each, then int leading pads w / h,w /
 *     d,h,w, then int y_shift, z_shift).
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

enum { SK_REFL1 = 1, SK_REFL2, SK_REFL3, SK_REPL1, SK_REPL2, SK_REPL3, SK_IM2COL, SK_COL2IM,
       SK_COL2IM_BATCHED, SK_TRIL, SK_TRIU };

/* cookie = kind | backward << 8 | dtype << 16 */
#define SK_COOKIE(k, bwd, dt) ((void *)(uintptr_t)((k) | ((bwd) << 8) | ((uintptr_t)(dt) << 16)))

/* dtype of the template argument that starts at p ("f", "d", "N3c104HalfE" ...) */
static int parse_dtype(const char *p)
{
    static const struct { const char *m; tfl_dtype dt; } t[] = {
        {"f", TFL_DT_F32}, {"d", TFL_DT_F64}, {"N3c104HalfE", TFL_DT_F16},
        {"N3c108BFloat16E", TFL_DT_BF16}, {"N3c107complexIfEE", TFL_DT_C64},
        {"N3c107complexIdEE", TFL_DT_C128}, {"a", TFL_DT_I8}, {"h", TFL_DT_U8},
        {"i", TFL_DT_I32}, {"l", TFL_DT_I64}, {"b", TFL_DT_BOOL},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        size_t n = strlen(t[i].m);
        /* the argument list ends with 'E' right after the type */
        if (!strncmp(p, t[i].m, n) && p[n] == 'E')
            return (int)t[i].dt;
    }
    return -1;
}

static int match(const char *m, void **cookie)
{
    static const struct { const char *file, *name; int kind, bwd; } k[] = {
        {"ReflectionPad_cu", "27reflection_pad1d_out_kernelI", SK_REFL1, 0},
        {"ReflectionPad_cu", "36reflection_pad1d_backward_out_kernelI", SK_REFL1, 1},
        {"ReflectionPad_cu", "27reflection_pad2d_out_kernelI", SK_REFL2, 0},
        {"ReflectionPad_cu", "36reflection_pad2d_backward_out_kernelI", SK_REFL2, 1},
        {"ReflectionPad_cu", "27reflection_pad3d_out_kernelI", SK_REFL3, 0},
        {"ReflectionPad_cu", "36reflection_pad3d_backward_out_kernelI", SK_REFL3, 1},
        {"ReplicationPadding_cu", "32replication_pad_forward_kernel1dI", SK_REPL1, 0},
        {"ReplicationPadding_cu", "32replication_pad_forward_kernel2dI", SK_REPL2, 0},
        {"ReplicationPadding_cu", "32replication_pad_forward_kernel3dI", SK_REPL3, 0},
        {"ReplicationPadding_cu", "31replication_pad_backward_kernelI", SK_REPL1, 1},
    };
    if (strncmp(m, "_ZN2at6native", 13))
        return 0;
    if (!strncmp(m + 13, "19tril_indices_kernelI", 22) ||
        !strncmp(m + 13, "19triu_indices_kernelI", 22)) {
        const char *p = m + 35;
        const int kind = m[18] == 'l' ? SK_TRIL : SK_TRIU; /* "19tri[lu]" */
        if (!strcmp(p, "iEEvPT_lllll"))
            *cookie = SK_COOKIE(kind, 0, TFL_DT_I32);
        else if (!strcmp(p, "lEEvPT_lllll"))
            *cookie = SK_COOKIE(kind, 0, TFL_DT_I64);
        else
            return 0;
        return 1;
    }
    if (!strncmp(m + 13, "13im2col_kernelI", 16)) {
        int dt = parse_dtype(m + 29);
        if (dt < 0)
            return 0;
        *cookie = SK_COOKIE(SK_IM2COL, 0, dt);
        return 1;
    }
    if (!strncmp(m + 13, "13col2im_kernelI", 16)) {
        /* <dt, accT>: only float/float and double/double (same accumulation) */
        const char *p = m + 29;
        if (!strncmp(p, "ffEE", 4))
            *cookie = SK_COOKIE(SK_COL2IM, 1, TFL_DT_F32);
        else if (!strncmp(p, "ddEE", 4))
            *cookie = SK_COOKIE(SK_COL2IM, 1, TFL_DT_F64);
        else
            return 0;
        return 1;
    }
    if (!strncmp(m + 13, "21col2im_batched_kernelI", 24)) {
        int dt = parse_dtype(m + 37);
        if (dt != TFL_DT_F32 && dt != TFL_DT_F64)
            return 0;
        *cookie = SK_COOKIE(SK_COL2IM_BATCHED, 1, dt);
        return 1;
    }
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        const char *p = strstr(m, k[i].name);
        if (!p || !strstr(m, k[i].file))
            continue;
        int dt = parse_dtype(p + strlen(k[i].name));
        if (dt < 0)
            return 0;
        int kind = k[i].kind;
        if (kind >= SK_REPL1) {
            /* the accessor rank N (3, 4, 5) from IndexBoundsCheck<N, long> */
            const char *r = strstr(m, "IndexBoundsCheckILm");
            if (!r || r[19] < '3' || r[19] > '5' || r[20] != 'E')
                return 0;
            kind = SK_REPL1 + (r[19] - '3');
        }
        *cookie = SK_COOKIE(kind, k[i].bwd, dt);
        return 1;
    }
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
 * one image, n = channels * height_col * width_col (120 bytes).
 * col2im_kernel<T, acc>(long n, const T *col, the same 12 longs, T *im):
 * one image, n = channels * height * width (120 bytes).
 * col2im_batched_kernel<T>(long n, const T *col, long col_batch_stride,
 * long nbatch, the same 12 longs, T *im, long im_batch_stride) (144 bytes). */
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
        return TFL_ERR_DEVICE;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

/* tril_indices_kernel<T>(T *out, long row_offset, long m_first_row, long
 * col, long trapezoid_size, long tril_size) and triu_indices_kernel<T>(T
 * *out, long col_offset, long m_first_row, long col, long rectangle_size,
 * long triu_size) (TensorFactories.cu; 48 bytes). */
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
        return TFL_ERR_DEVICE;
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
        return TFL_ERR_DEVICE;
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
};

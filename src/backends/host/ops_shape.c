/*
 * ops_shape.c - the host backend's native "shape" op (torchfl/ops/shape.h):
 * reflect / replicate padding of 1..3 trailing dimensions and its gradient.
 * Pointers and extents were checked by the route decoder
 * (src/route/optable/shape.c).  The host runs launches one at a time, so the
 * gradient accumulates with plain adds where the GPU needs atomics.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "common/log.h"

/* input index read by output coordinate o of a dim of size n, leading pad p */
static inline int64_t map_reflect(int64_t o, int64_t n, int64_t p)
{
    int64_t r = o - p;
    if (n == 1)
        return 0;
    /* one reflection suffices: PyTorch requires pads < n */
    if (r < 0)
        r = -r;
    if (r >= n)
        r = 2 * (n - 1) - r;
    return r;
}

static inline int64_t map_replicate(int64_t o, int64_t n, int64_t p)
{
    int64_t r = o - p;
    return r < 0 ? 0 : r >= n ? n - 1 : r;
}

int host_shape_supported(const tfl_shape_op *op)
{
    if (!op)
        return 0;
    if (op->kind == TFL_SHAPE_IM2COL)
        return op->dtype >= 0 && op->dtype < TFL_DT_COUNT;
    if (op->kind == TFL_SHAPE_COL2IM)
        return op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F64;
    if (op->kind == TFL_SHAPE_TRIL_INDICES || op->kind == TFL_SHAPE_TRIU_INDICES)
        return op->dtype == TFL_DT_I32 || op->dtype == TFL_DT_I64;
    if (op->kind == TFL_SHAPE_SPLIT_COPY || op->kind == TFL_SHAPE_CHUNK_CAT)
        return 1;
    if (op->kind != TFL_SHAPE_PAD_REFLECT && op->kind != TFL_SHAPE_PAD_REPLICATE)
        return 0;
    if (op->backward && op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F64)
        return 0;
    return op->dtype >= 0 && op->dtype < TFL_DT_COUNT;
}

/* the input index of every output coordinate of spatial dim k (2..4) */
static int build_map(const tfl_shape_op *op, int k, int64_t *map)
{
    const int64_t n = op->x_size[k], p = op->pad[k - 2];
    for (int64_t o = 0; o < op->y_size[k]; o++) {
        int64_t r = op->kind == TFL_SHAPE_PAD_REFLECT ? map_reflect(o, n, p)
                                                      : map_replicate(o, n, p);
        if (r < 0 || r >= n)
            return -1;
        map[o] = r;
    }
    return 0;
}

/* One image: im2col copies, col2im accumulates (into a zeroed image).
 * The loops run over the col layout row by row; each row is a (c, i, j,
 * hc) slice whose image row is fixed, so the inner loop is a strided copy
 * over wc with the in-range wc interval computed once. */
#define IM2COL_LOOP(T, BODY)                                                             \
    do {                                                                                 \
        for (int64_t c = 0; c < g->channels; c++)                                        \
            for (int64_t i = 0; i < g->kh; i++)                                          \
                for (int64_t j = 0; j < g->kw; j++) {                                    \
                    const int64_t row = (c * g->kh + i) * g->kw + j;                     \
                    const int64_t woff = j * g->dil_w - g->pad_w;                        \
                    /* wc with 0 <= wc * stride_w + woff < width */                      \
                    int64_t lo = woff >= 0 ? 0 : (-woff + g->stride_w - 1) / g->stride_w;\
                    int64_t hi = g->width - woff <= 0                                    \
                                     ? 0                                                 \
                                     : (g->width - woff - 1) / g->stride_w + 1;          \
                    if (hi > g->width_col)                                               \
                        hi = g->width_col;                                               \
                    if (lo > hi)                                                         \
                        lo = hi;                                                         \
                    for (int64_t hc = 0; hc < g->height_col; hc++) {                     \
                        T *cr = colp + (row * g->height_col + hc) * g->width_col;        \
                        const int64_t h = hc * g->stride_h - g->pad_h + i * g->dil_h;    \
                        const int inside = h >= 0 && h < g->height;                      \
                        T *ir = imp + (c * g->height + (inside ? h : 0)) * g->width;     \
                        BODY                                                             \
                    }                                                                    \
                }                                                                        \
    } while (0)

static void im2col_f32(const tfl_im2col_geom *g, const float *imp, float *colp)
{
    IM2COL_LOOP(const float, {
        float *o = (float *)cr;
        if (!inside) {
            for (int64_t wc = 0; wc < g->width_col; wc++)
                o[wc] = 0.f;
            continue;
        }
        for (int64_t wc = 0; wc < lo; wc++)
            o[wc] = 0.f;
        for (int64_t wc = lo; wc < hi; wc++)
            o[wc] = ir[wc * g->stride_w + woff];
        for (int64_t wc = hi; wc < g->width_col; wc++)
            o[wc] = 0.f;
    });
}

static void im2col_any(const tfl_im2col_geom *g, const char *imp, char *colp, size_t es)
{
    /* byte-wise: the same walk over elements of es bytes */
    for (int64_t c = 0; c < g->channels; c++)
        for (int64_t i = 0; i < g->kh; i++)
            for (int64_t j = 0; j < g->kw; j++)
                for (int64_t hc = 0; hc < g->height_col; hc++) {
                    const int64_t row = ((c * g->kh + i) * g->kw + j) * g->height_col + hc;
                    const int64_t h = hc * g->stride_h - g->pad_h + i * g->dil_h;
                    for (int64_t wc = 0; wc < g->width_col; wc++) {
                        const int64_t w = wc * g->stride_w - g->pad_w + j * g->dil_w;
                        char *o = colp + (size_t)(row * g->width_col + wc) * es;
                        if (h < 0 || h >= g->height || w < 0 || w >= g->width)
                            memset(o, 0, es);
                        else
                            memcpy(o, imp + (size_t)((c * g->height + h) * g->width + w) * es, es);
                    }
                }
}

#define COL2IM_FN(name, T)                                                   \
    static void name(const tfl_im2col_geom *g, T *imp, const T *colp)        \
    {                                                                        \
        memset(imp, 0, (size_t)(g->channels * g->height * g->width) * sizeof(T)); \
        IM2COL_LOOP(const T, {                                               \
            if (!inside)                                                     \
                continue;                                                    \
            T *o = (T *)ir;                                                  \
            for (int64_t wc = lo; wc < hi; wc++)                             \
                o[wc * g->stride_w + woff] += cr[wc];                        \
        });                                                                  \
    }
COL2IM_FN(col2im_f32, float)
COL2IM_FN(col2im_f64, double)

static tfl_status host_im2col(const tfl_shape_op *op)
{
    const tfl_im2col_geom *g = &op->im2col;
    if (g->kh <= 0 || g->kw <= 0 || g->stride_h <= 0 || g->stride_w <= 0 || g->dil_h <= 0 ||
        g->dil_w <= 0 || g->channels < 0 || g->height < 0 || g->width < 0 ||
        g->height_col < 0 || g->width_col < 0 || g->nbatch < 0) {
        tfl_error("im2col: bad geometry");
        return TFL_ERR_INVALID;
    }
    const size_t es = tfl_dtype_size(op->dtype);
    for (int64_t b = 0; b < g->nbatch; b++) {
        char *im = (char *)g->im + (size_t)(b * g->im_batch_stride) * es;
        char *col = (char *)g->col + (size_t)(b * g->col_batch_stride) * es;
        if (op->kind == TFL_SHAPE_IM2COL && op->dtype == TFL_DT_F32)
            im2col_f32(g, (const float *)im, (float *)col);
        else if (op->kind == TFL_SHAPE_IM2COL)
            im2col_any(g, im, col, es);
        else if (op->dtype == TFL_DT_F32)
            col2im_f32(g, (float *)im, (const float *)col);
        else
            col2im_f64(g, (double *)im, (const double *)col);
    }
    return TFL_OK;
}

static tfl_status host_triangle(const tfl_shape_op *op)
{
    const tfl_triangle_geom *g = &op->tri;
    if (g->n < 0 || g->cols <= 0 || g->part < 0 || g->first_row < 0 || g->offset < 0) {
        tfl_error("tril/triu_indices: bad geometry");
        return TFL_ERR_INVALID;
    }
    const int wide = op->dtype == TFL_DT_I64;
    int64_t i = 0, row = 0;
    /* emits (r, c) at i; stops at n */
#define TRI_PUT(r, c)                                                   \
    do {                                                                \
        if (wide) {                                                     \
            ((int64_t *)g->out)[i] = (r);                               \
            ((int64_t *)g->out)[i + g->n] = (c);                        \
        } else {                                                        \
            ((int32_t *)g->out)[i] = (int32_t)(r);                      \
            ((int32_t *)g->out)[i + g->n] = (int32_t)(c);               \
        }                                                               \
        i++;                                                            \
    } while (0)
    if (op->kind == TFL_SHAPE_TRIL_INDICES) {
        for (int64_t k = 0; i < g->n; k++) {
            int64_t len = g->first_row + k < g->cols ? g->first_row + k : g->cols;
            if (len <= 0)
                break; /* cannot make progress: n larger than the geometry */
            for (int64_t c = 0; c < len && i < g->n; c++)
                TRI_PUT(g->offset + k, c);
        }
    } else {
        for (; i < g->part && i < g->n; row++)
            for (int64_t c = 0; c < g->cols && i < g->part && i < g->n; c++)
                TRI_PUT(row, c);
        for (int64_t k = 0; i < g->n; k++, row++) {
            if (g->first_row - k <= 0)
                break;
            for (int64_t c = g->offset + k; c < g->cols && i < g->n; c++)
                TRI_PUT(row, c);
        }
    }
#undef TRI_PUT
    if (i != g->n) {
        tfl_error("tril/triu_indices: %lld coordinates for %lld slots", (long long)i,
                  (long long)g->n);
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

tfl_status host_shape(const tfl_shape_op *op)
{
    if (!host_shape_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind == TFL_SHAPE_TRIL_INDICES || op->kind == TFL_SHAPE_TRIU_INDICES)
        return host_triangle(op);
    if (op->kind == TFL_SHAPE_IM2COL || op->kind == TFL_SHAPE_COL2IM)
        return host_im2col(op);
    if (op->kind == TFL_SHAPE_SPLIT_COPY || op->kind == TFL_SHAPE_CHUNK_CAT)
        return host_jagged(op);
    const int64_t D = op->y_size[2], H = op->y_size[3], W = op->y_size[4];
    if (D <= 0 || H <= 0 || W <= 0 || op->nbatch <= 0 || op->nplane <= 0)
        return TFL_OK;
    int64_t *map = malloc((size_t)(D + H + W) * sizeof *map);
    if (!map)
        return TFL_ERR_NOMEM;
    int64_t *mz = map, *my = map + D, *mx = map + D + H;
    if (build_map(op, 2, mz) || build_map(op, 3, my) || build_map(op, 4, mx)) {
        free(map);
        tfl_error("pad: padding larger than the input dimension");
        return TFL_ERR_INVALID;
    }
    const size_t es = tfl_dtype_size(op->dtype);
    const int64_t *xs = op->x_stride, *ys = op->y_stride;
    for (int64_t b = op->batch0; b < op->batch0 + op->nbatch; b++)
        for (int64_t c = op->plane0; c < op->plane0 + op->nplane; c++)
            for (int64_t z = 0; z < D; z++)
                for (int64_t y = 0; y < H; y++) {
                    const int64_t xo = b * xs[0] + c * xs[1] + mz[z] * xs[2] + my[y] * xs[3];
                    const int64_t yo = b * ys[0] + c * ys[1] + z * ys[2] + y * ys[3];
                    if (!op->backward && es == 4) {
                        const float *restrict src = (const float *)op->x + xo;
                        float *restrict dst = (float *)op->y + yo;
                        for (int64_t x = 0; x < W; x++)
                            dst[x * ys[4]] = src[mx[x] * xs[4]];
                    } else if (!op->backward) {
                        const char *src = (const char *)op->x + xo * (int64_t)es;
                        char *dst = (char *)op->y + yo * (int64_t)es;
                        for (int64_t x = 0; x < W; x++)
                            memcpy(dst + x * ys[4] * (int64_t)es, src + mx[x] * xs[4] * (int64_t)es,
                                   es);
                    } else if (op->dtype == TFL_DT_F32) {
                        float *gx = (float *)op->x + xo;
                        const float *gy = (const float *)op->y + yo;
                        for (int64_t x = 0; x < W; x++)
                            gx[mx[x] * xs[4]] += gy[x * ys[4]];
                    } else {
                        double *gx = (double *)op->x + xo;
                        const double *gy = (const double *)op->y + yo;
                        for (int64_t x = 0; x < W; x++)
                            gx[mx[x] * xs[4]] += gy[x * ys[4]];
                    }
                }
    free(map);
    return TFL_OK;
}

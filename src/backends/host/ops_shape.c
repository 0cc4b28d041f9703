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
    if (!op || (op->kind != TFL_SHAPE_PAD_REFLECT && op->kind != TFL_SHAPE_PAD_REPLICATE))
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

tfl_status host_shape(const tfl_shape_op *op)
{
    if (!host_shape_supported(op))
        return TFL_ERR_UNSUPPORTED;
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

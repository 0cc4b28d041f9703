/*
 * ops_distance.c - the host backend's distance op (torchfl/ops/distance.h):
 * cdist / pdist p-norm distances and their backward gradient terms,
 * computed in the tensors' own type (float or double) as PyTorch's kernels
 * do, summing columns in order.
 */
#include "backends/host/host_ops.h"

#include <math.h>
#include <stdint.h>

int host_distance_supported(const tfl_distance_op *op)
{
    if (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F64)
        return 0;
    if (op->kind < TFL_DIST_CDIST || op->kind > TFL_DIST_PDIST_BACKWARD ||
        op->norm < TFL_DIST_ZERO || op->norm > TFL_DIST_LT_TWO)
        return 0;
    int bwd = op->kind == TFL_DIST_CDIST_BACKWARD || op->kind == TFL_DIST_PDIST_BACKWARD;
    /* forward has no LT_TWO form, backward none for ZERO (PyTorch fills 0) */
    if (bwd ? op->norm == TFL_DIST_ZERO : op->norm == TFL_DIST_LT_TWO)
        return 0;
    return op->batch >= 1 && op->r1 >= 1 && op->m >= 1 &&
           (op->kind == TFL_DIST_PDIST || op->kind == TFL_DIST_PDIST_BACKWARD || op->r2 >= 1);
}

#define DIST_IMPL(T, F, SUF)                                                            \
static T dist_##SUF(int norm, T p, const T *a, const T *b, int64_t m)                 \
{                                                                                       \
    T agg = 0;                                                                          \
    for (int64_t c = 0; c < m; c++) {                                                   \
        T d = fabs##F(a[c] - b[c]);                                                     \
        switch (norm) {                                                                 \
        case TFL_DIST_ZERO: agg += d != 0; break;                                       \
        case TFL_DIST_ONE: agg += d; break;                                             \
        case TFL_DIST_TWO: agg += d * d; break;                                         \
        case TFL_DIST_INF: if (d > agg) agg = d; break;                                 \
        default: agg += pow##F(d, p); break;                                            \
        }                                                                               \
    }                                                                                   \
    if (norm == TFL_DIST_TWO) return sqrt##F(agg);                                      \
    if (norm == TFL_DIST_P) return pow##F(agg, (T)1 / p);                               \
    return agg;                                                                         \
}                                                                                       \
static T sign_##SUF(T v) { return (T)((0 < v) - (v < 0)); }                             \
static T term_##SUF(int norm, T p, T diff, T g, T r)                                   \
{                                                                                       \
    switch (norm) {                                                                     \
    case TFL_DIST_ONE: return g * sign_##SUF(diff);                                     \
    case TFL_DIST_TWO: return r == 0 ? 0 : g * diff / r;                                \
    case TFL_DIST_INF: return g * sign_##SUF(diff) * (fabs##F(diff) == r);              \
    case TFL_DIST_LT_TWO:                                                               \
        return (r == 0 || (diff == 0 && p < 1)) ? 0                                     \
            : sign_##SUF(diff) * pow##F(fabs##F(diff), p - 1) * g / pow##F(r, p - 1);  \
    default:                                                                            \
        return r == 0 ? 0 : diff * pow##F(fabs##F(diff), p - 2) * g / pow##F(r, p - 1); \
    }                                                                                   \
}                                                                                       \
static void run_##SUF(const tfl_distance_op *op)                                       \
{                                                                                       \
    const T p = (T)op->p;                                                               \
    const int64_t r1 = op->r1, r2 = op->r2, m = op->m;                                  \
    T *out = op->out;                                                                   \
    const T *x1 = op->x1, *x2 = op->x2, *grad = op->grad, *dist = op->dist;             \
    switch (op->kind) {                                                                 \
    case TFL_DIST_CDIST:                                                                \
        for (int64_t l = 0; l < op->batch; l++)                                         \
            for (int64_t i = 0; i < r1; i++)                                            \
                for (int64_t j = 0; j < r2; j++)                                        \
                    out[(l * r1 + i) * r2 + j] = dist_##SUF(op->norm, p,                \
                        x1 + (l * r1 + i) * m, x2 + (l * r2 + j) * m, m);               \
        break;                                                                          \
    case TFL_DIST_PDIST: {                                                              \
        int64_t k = 0;                                                                  \
        for (int64_t i = 0; i < r1; i++)                                                \
            for (int64_t j = i + 1; j < r1; j++)                                        \
                out[k++] = dist_##SUF(op->norm, p, x1 + i * m, x1 + j * m, m);          \
        break;                                                                          \
    }                                                                                   \
    case TFL_DIST_CDIST_BACKWARD:                                                       \
        for (int64_t l = 0; l < op->batch; l++)                                         \
            for (int64_t i = 0; i < r1; i++)                                            \
                for (int64_t j = 0; j < r2; j++) {                                      \
                    int64_t y = (l * r1 + i) * r2 + j;                                  \
                    const T *a = x1 + (l * r1 + i) * m, *b = x2 + (l * r2 + j) * m;     \
                    T *o = out + ((l * r2 + j) * r1 + i) * m;                           \
                    for (int64_t c = 0; c < m; c++)                                     \
                        o[c] = term_##SUF(op->norm, p, a[c] - b[c], grad[y], dist[y]);  \
                }                                                                       \
        break;                                                                          \
    default: {                                                                          \
        int64_t k = 0, n = r1;                                                          \
        for (int64_t i = 0; i < n; i++)                                                 \
            for (int64_t j = i + 1; j < n; j++, k++) {                                  \
                const T *a = x1 + i * m, *b = x1 + j * m;                               \
                T *oi = out + ((j - i - 1) * n + i) * m;                                \
                T *oj = out + ((n - 2 - i) * n + j) * m;                                \
                T g = grad[k * op->grad_stride], r = dist[k];                           \
                for (int64_t c = 0; c < m; c++) {                                       \
                    T t = term_##SUF(op->norm, p, a[c] - b[c], g, r);                   \
                    oi[c] = t;                                                          \
                    oj[c] = -t;                                                         \
                }                                                                       \
            }                                                                           \
        break;                                                                          \
    }                                                                                   \
    }                                                                                   \
}

DIST_IMPL(float, f, f32)
DIST_IMPL(double, , f64)

tfl_status host_distance(const tfl_distance_op *op)
{
    if (!host_distance_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->dtype == TFL_DT_F32)
        run_f32(op);
    else
        run_f64(op);
    return TFL_OK;
}

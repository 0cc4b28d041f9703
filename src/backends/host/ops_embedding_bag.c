/*
 * ops_embedding_bag.c - the host backend's embedding_bag kinds of the
 * "embedding" op (torchfl/ops/embedding.h): the forward (sum, mean, max,
 * per-sample weights, padding_idx) and the max-mode backward, float32 and
 * float64.  Each bag is summed in index order in the accumulate type, as
 * PyTorch's kernel does per (bag, feature) thread.
 *
 * Pointer ranges were checked by the decoder; the indices and offsets are
 * data, so they are checked here (a bad one fails the op with
 * TFL_ERR_DEVICE and writes nothing).
 */
#include <math.h>

#include "backends/host/ops_embedding_bag.h"
#include "common/log.h"

static int64_t at_idx(const void *p, tfl_dtype t, int64_t i)
{
    return t == TFL_DT_I64 ? ((const int64_t *)p)[i] : ((const int32_t *)p)[i];
}

static void put_idx(void *p, tfl_dtype t, int64_t i, int64_t v)
{
    if (t == TFL_DT_I64)
        ((int64_t *)p)[i] = v;
    else
        ((int32_t *)p)[i] = (int32_t)v;
}

int host_embedding_bag_supported(const tfl_embedding_op *op)
{
    if (!op || (op->kind != TFL_EMBEDDING_BAG_FWD && op->kind != TFL_EMBEDDING_BAG_MAX_BWD &&
                op->kind != TFL_EMBEDDING_BAG_GRAD_PARTIALS &&
                op->kind != TFL_EMBEDDING_BAG_PSW_BWD))
        return 0;
    const tfl_embedding_bag *b = &op->bag;
    if (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F64)
        return 0;
    if (op->index_dtype != TFL_DT_I32 && op->index_dtype != TFL_DT_I64)
        return 0;
    if (b->num_bags < 0 || b->features < 0 || b->num_indices < 0 || op->weight_rows < 0)
        return 0;
    if (op->kind == TFL_EMBEDDING_BAG_FWD)
        return b->mode == TFL_EMBEDDING_BAG_SUM || b->mode == TFL_EMBEDDING_BAG_MEAN ||
               b->mode == TFL_EMBEDDING_BAG_MAX;
    return 1;
}

/* [begin, end) of bag k, as the kernel reads them (bag 0 starts at 0). */
static void bag_range(const tfl_embedding_op *op, int64_t k, int64_t *begin, int64_t *end)
{
    const tfl_embedding_bag *b = &op->bag;
    *begin = k == 0 ? 0 : at_idx(b->offsets, op->index_dtype, k);
    *end = k < b->num_bags - 1 ? at_idx(b->offsets, op->index_dtype, k + 1) : b->num_indices;
}

static tfl_status check_fwd(const tfl_embedding_op *op)
{
    const tfl_embedding_bag *b = &op->bag;
    for (int64_t k = 0; k < b->num_bags; k++) {
        int64_t lo, hi;
        bag_range(op, k, &lo, &hi);
        if (lo < 0 || hi < lo || hi > b->num_indices) {
            tfl_error("embedding_bag: bag %lld spans [%lld, %lld), outside [0, %lld]",
                      (long long)k, (long long)lo, (long long)hi, (long long)b->num_indices);
            return TFL_ERR_DEVICE;
        }
        for (int64_t i = lo; i < hi; i++) {
            int64_t r = at_idx(b->indices, op->index_dtype, i);
            if (r < 0 || r >= op->weight_rows) {
                tfl_error("embedding_bag: index %lld at position %lld is outside [0, %lld)",
                          (long long)r, (long long)i, (long long)op->weight_rows);
                return TFL_ERR_DEVICE;
            }
        }
    }
    return TFL_OK;
}

#define BAG_FWD(NAME, T, FMA)                                                         \
static void NAME(const tfl_embedding_op *op)                                          \
{                                                                                     \
    const tfl_embedding_bag *b = &op->bag;                                            \
    const T *w = b->weight, *psw = b->psw;                                            \
    T *out = b->out;                                                                  \
    const int64_t F = b->features;                                                    \
    for (int64_t k = 0; k < b->num_bags; k++) {                                       \
        int64_t lo, hi, cnt = 0;                                                      \
        bag_range(op, k, &lo, &hi);                                                   \
        T *restrict o = out + k * F;                                                  \
        for (int64_t f = 0; f < F; f++)                                               \
            o[f] = 0;                                                                 \
        for (int64_t i = lo; i < hi; i++) {                                           \
            int64_t r = at_idx(b->indices, op->index_dtype, i);                       \
            put_idx(b->offset2bag, op->index_dtype, i, k);                            \
            if (r == op->padding_idx)                                                 \
                continue;                                                             \
            const T *row = w + r * b->ws0;                                            \
            if (b->mode == TFL_EMBEDDING_BAG_MAX) {                                   \
                for (int64_t f = 0; f < F; f++) {                                     \
                    T v = row[f * b->ws1];                                            \
                    if (cnt == 0 || v > o[f]) {                                       \
                        o[f] = v;                                                     \
                        put_idx(b->max_indices, op->index_dtype, k * F + f, r);       \
                    }                                                                 \
                }                                                                     \
            } else if (psw) {                                                         \
                const T s = psw[i * b->psw_stride];                                   \
                for (int64_t f = 0; f < F; f++)                                       \
                    o[f] = FMA(s, row[f * b->ws1], o[f]);                             \
            } else {                                                                  \
                for (int64_t f = 0; f < F; f++)                                       \
                    o[f] += row[f * b->ws1];                                          \
            }                                                                         \
            cnt++;                                                                    \
        }                                                                             \
        if (b->mode == TFL_EMBEDDING_BAG_MAX && cnt == 0)                             \
            for (int64_t f = 0; f < F; f++)                                           \
                put_idx(b->max_indices, op->index_dtype, k * F + f, -1);              \
        if (b->mode == TFL_EMBEDDING_BAG_MEAN && cnt > 0)                             \
            for (int64_t f = 0; f < F; f++)                                           \
                o[f] = o[f] / (T)cnt;                                                 \
        put_idx(b->bag_size, op->index_dtype, k, cnt);                                \
    }                                                                                 \
}

/* the GPU contracts scale * value + sum into one fused multiply-add */
BAG_FWD(bag_fwd_f32, float, fmaf)
BAG_FWD(bag_fwd_f64, double, fma)

static tfl_status max_bwd(const tfl_embedding_op *op)
{
    const tfl_embedding_bag *b = &op->bag;
    const int64_t F = b->features, n = b->num_bags * F;
    for (int64_t j = 0; j < n; j++) {
        int64_t r = at_idx(b->max_indices, op->index_dtype, j);
        if (r >= 0 && r != op->padding_idx && r >= op->weight_rows) {
            tfl_error("embedding_bag backward: index %lld is outside [0, %lld)",
                      (long long)r, (long long)op->weight_rows);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t j = 0; j < n; j++) {
        int64_t r = at_idx(b->max_indices, op->index_dtype, j);
        if (r < 0 || r == op->padding_idx)
            continue;
        int64_t f = j % F;
        if (op->dtype == TFL_DT_F64)
            ((double *)b->grad_weight)[r * F + f] += ((const double *)b->grad)[j];
        else
            ((float *)b->grad_weight)[r * F + f] += ((const float *)b->grad)[j];
    }
    return TFL_OK;
}

/* The partial sums of the sum/mean backward (compute_grad_weight_bags). */
#define GRAD_PARTIALS(NAME, T, FMA)                                                   \
static void NAME(const tfl_embedding_op *op, int64_t nseg)                            \
{                                                                                     \
    const tfl_embedding_bag *b = &op->bag;                                            \
    const tfl_dtype it = op->index_dtype;                                             \
    const int64_t F = b->features;                                                    \
    const T *grad = b->grad, *psw = b->psw;                                           \
    for (int64_t p = 0; p < nseg; p++) {                                              \
        int64_t lo = at_idx(b->seg_offsets, it, p);                                   \
        int64_t hi = p == nseg - 1 ? b->num_indices : at_idx(b->seg_offsets, it, p + 1); \
        T *restrict acc = (T *)b->acc + p * F;                                        \
        for (int64_t f = 0; f < F; f++)                                               \
            acc[f] = 0;                                                               \
        for (int64_t i = lo; i < hi; i++) {                                           \
            int64_t o = at_idx(b->indices, it, i), k = at_idx(b->offset2bag, it, o);  \
            T s = b->count ? (T)(1.0 / (double)at_idx(b->count, it, i)) : (T)1;       \
            if (psw)                                                                  \
                s *= psw[o * b->psw_stride];                                          \
            const T *g = grad + k * F;                                                \
            if (b->mode == TFL_EMBEDDING_BAG_MEAN) {                                  \
                const T n = (T)at_idx(b->bag_size, it, k);                            \
                for (int64_t f = 0; f < F; f++)                                       \
                    acc[f] = FMA(g[f] / n, s, acc[f]);                                \
            } else {                                                                  \
                for (int64_t f = 0; f < F; f++)                                       \
                    acc[f] = FMA(g[f], s, acc[f]);                                    \
            }                                                                         \
        }                                                                             \
    }                                                                                 \
}

GRAD_PARTIALS(grad_partials_f32, float, fmaf)
GRAD_PARTIALS(grad_partials_f64, double, fma)

static tfl_status grad_partials(const tfl_embedding_op *op)
{
    const tfl_embedding_bag *b = &op->bag;
    const tfl_dtype it = op->index_dtype;
    const int64_t nseg = *b->num_segments;
    if (nseg < 0 || nseg > b->max_segments) {
        tfl_error("embedding_bag backward: %lld partial segments, room for %lld",
                  (long long)nseg, (long long)b->max_segments);
        return TFL_ERR_DEVICE;
    }
    /* every position the sums read, checked before anything is written */
    for (int64_t p = 0; p < nseg; p++) {
        int64_t lo = at_idx(b->seg_offsets, it, p);
        int64_t hi = p == nseg - 1 ? b->num_indices : at_idx(b->seg_offsets, it, p + 1);
        if (lo < 0 || hi < lo || hi > b->num_indices)
            goto bad;
        for (int64_t i = lo; i < hi; i++) {
            int64_t o = at_idx(b->indices, it, i);
            if (o < 0 || o >= b->num_indices)
                goto bad;
            int64_t k = at_idx(b->offset2bag, it, o);
            if (k < 0 || k >= b->num_bags)
                goto bad;
        }
    }
    if (op->dtype == TFL_DT_F64)
        grad_partials_f64(op, nseg);
    else
        grad_partials_f32(op, nseg);
    return TFL_OK;
bad:
    tfl_error("embedding_bag backward: a segment, index or bag number is out of range");
    return TFL_ERR_DEVICE;
}

static tfl_status psw_bwd(const tfl_embedding_op *op)
{
    const tfl_embedding_bag *b = &op->bag;
    const tfl_dtype it = op->index_dtype;
    for (int64_t i = 0; i < b->num_indices; i++) {
        int64_t r = at_idx(b->indices, it, i), k = at_idx(b->offset2bag, it, i);
        if (r != op->padding_idx &&
            (r < 0 || r >= op->weight_rows || k < 0 || k >= b->num_bags)) {
            tfl_error("embedding_bag backward: index %lld (bag %lld) at position %lld is "
                      "out of range", (long long)r, (long long)k, (long long)i);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t i = 0; i < b->num_indices; i++) {
        int64_t r = at_idx(b->indices, it, i), k = at_idx(b->offset2bag, it, i);
        if (op->dtype == TFL_DT_F64) {
            const double *g = (const double *)b->grad + k * b->gs0;
            const double *w = (const double *)b->weight + r * b->ws0;
            double s = 0;
            if (r != op->padding_idx)
                for (int64_t f = 0; f < b->features; f++)
                    s = fma(g[f * b->gs1], w[f * b->ws1], s);
            ((double *)b->out)[i] = s;
        } else {
            const float *g = (const float *)b->grad + k * b->gs0;
            const float *w = (const float *)b->weight + r * b->ws0;
            float s = 0;
            if (r != op->padding_idx)
                for (int64_t f = 0; f < b->features; f++)
                    s = fmaf(g[f * b->gs1], w[f * b->ws1], s);
            ((float *)b->out)[i] = s;
        }
    }
    return TFL_OK;
}

tfl_status host_embedding_bag(const tfl_embedding_op *op)
{
    if (!host_embedding_bag_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind == TFL_EMBEDDING_BAG_MAX_BWD)
        return max_bwd(op);
    if (op->kind == TFL_EMBEDDING_BAG_GRAD_PARTIALS)
        return grad_partials(op);
    if (op->kind == TFL_EMBEDDING_BAG_PSW_BWD)
        return psw_bwd(op);
    tfl_status st = check_fwd(op);
    if (st != TFL_OK)
        return st;
    if (op->dtype == TFL_DT_F64)
        bag_fwd_f64(op);
    else
        bag_fwd_f32(op);
    return TFL_OK;
}

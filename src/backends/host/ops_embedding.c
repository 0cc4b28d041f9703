/*
 * ops_embedding.c - the host backend's native "embedding" op: the dense
 * backward of an embedding lookup (scatter-add of gradient rows); float32,
 * float16 and bfloat16 (the rows that share an index are summed in float
 * and each sum is added to grad_weight with one rounding, as PyTorch's
 * kernel does within a batch of indices).
 */
#include <stdlib.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_embedding_bag.h"
#include "backends/host/ops_lowp.h"
#include "common/log.h"

int host_embedding_supported(const tfl_embedding_op *op)
{
    if (op && (op->kind >= TFL_EMBEDDING_BAG_FWD && op->kind <= TFL_EMBEDDING_BAG_PSW_BWD))
        return host_embedding_bag_supported(op);
    return op && op->kind == TFL_EMBEDDING_BWD_DENSE && lowp_dtype_ok(op->dtype) &&
           (op->index_dtype == TFL_DT_I32 || op->index_dtype == TFL_DT_I64);
}

static int64_t index_at(const void *idx, tfl_dtype t, int64_t i)
{
    return t == TFL_DT_I64 ? ((const int64_t *)idx)[i] : ((const int32_t *)idx)[i];
}

/* Half/bfloat16: float sums per distinct row (slot by first appearance),
 * then grad_weight[r] = round(grad_weight[r] + sum). Indices are checked. */
static tfl_status lowp_backward(const tfl_embedding_op *op)
{
    const int64_t L = op->row_len, n = op->n;
    const size_t es = 2;
    int32_t *slot = malloc((size_t)(op->weight_rows ? op->weight_rows : 1) * sizeof *slot);
    int64_t *rows = malloc((size_t)(n ? n : 1) * sizeof *rows);
    float *acc = calloc((size_t)(n * L > 0 ? n * L : 1), sizeof *acc);
    float *g = lowp_scratch(0, L), *w = lowp_scratch(1, L);
    tfl_status st = TFL_OK;
    if (!slot || !rows || !acc || !g || !w) {
        st = TFL_ERR_NOMEM;
        goto out;
    }
    for (int64_t r = 0; r < op->weight_rows; r++)
        slot[r] = -1;
    int32_t nslots = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = index_at(op->indices, op->index_dtype, i);
        if (r == op->padding_idx)
            continue;
        if (slot[r] < 0) {
            rows[nslots] = r;
            slot[r] = nslots++;
        }
        float *restrict a = acc + (int64_t)slot[r] * L;
        lowp_widen(op->dtype, (const char *)op->grad + (size_t)(i * L) * es, g, L);
        for (int64_t f = 0; f < L; f++)
            a[f] += g[f];
    }
    for (int32_t s = 0; s < nslots; s++) {
        char *dst = (char *)op->grad_weight + (size_t)(rows[s] * L) * es;
        const float *a = acc + (int64_t)s * L;
        lowp_widen(op->dtype, dst, w, L);
        for (int64_t f = 0; f < L; f++)
            w[f] += a[f];
        lowp_narrow(op->dtype, w, dst, L);
    }
out:
    free(slot);
    free(rows);
    free(acc);
    return st;
}

tfl_status host_embedding(const tfl_embedding_op *op)
{
    if (op && (op->kind >= TFL_EMBEDDING_BAG_FWD && op->kind <= TFL_EMBEDDING_BAG_PSW_BWD))
        return host_embedding_bag(op);
    if (!host_embedding_supported(op) || op->n < 0 || op->row_len < 0)
        return TFL_ERR_INVALID;
    const int64_t L = op->row_len;
    const float *grad = op->grad;
    float *gw = op->grad_weight;
    /* Check every index first, so a bad one leaves grad_weight untouched. */
    for (int64_t i = 0; i < op->n; i++) {
        int64_t r = index_at(op->indices, op->index_dtype, i);
        if (r != op->padding_idx && (r < 0 || r >= op->weight_rows)) {
            tfl_error("embedding backward: index %lld at position %lld is outside "
                      "[0, %lld)", (long long)r, (long long)i, (long long)op->weight_rows);
            return TFL_ERR_DEVICE;
        }
    }
    if (op->dtype != TFL_DT_F32)
        return lowp_backward(op);
    for (int64_t i = 0; i < op->n; i++) {
        int64_t r = index_at(op->indices, op->index_dtype, i);
        if (r == op->padding_idx)
            continue;
        float *restrict dst = gw + r * L;
        const float *restrict src = grad + i * L;
        for (int64_t f = 0; f < L; f++)
            dst[f] += src[f];
    }
    return TFL_OK;
}

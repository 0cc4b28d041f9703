/*
 * ops_embedding.c - the host backend's native "embedding" op: the dense
 * backward of an embedding lookup (scatter-add of gradient rows), float32.
 */
#include "backends/host/host_ops.h"
#include "common/log.h"

int host_embedding_supported(const tfl_embedding_op *op)
{
    return op && op->kind == TFL_EMBEDDING_BWD_DENSE && op->dtype == TFL_DT_F32 &&
           (op->index_dtype == TFL_DT_I32 || op->index_dtype == TFL_DT_I64);
}

static int64_t index_at(const void *idx, tfl_dtype t, int64_t i)
{
    return t == TFL_DT_I64 ? ((const int64_t *)idx)[i] : ((const int32_t *)idx)[i];
}

tfl_status host_embedding(const tfl_embedding_op *op)
{
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

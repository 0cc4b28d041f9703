/*
 * ops_embedding.c - the host backend's native "embedding" op: the dense
 * backward of an embedding lookup (scatter-add of gradient rows); float32,
 * float16 and bfloat16 (the rows that share an index are summed in float
 * and each sum is added to grad_weight with one rounding, as PyTorch's
 * kernel does within a batch of indices).  Also max_norm's renorm and its
 * index wrap; embedding_bag lives in ops_embedding_bag.c.
 */
#include <stdlib.h>

#include <math.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_embedding_bag.h"
#include "backends/host/ops_elementwise_fp16.h"
#include "backends/host/ops_lowp.h"
#include "common/log.h"

int host_embedding_supported(const tfl_embedding_op *op)
{
    if (op && op->kind == TFL_EMBEDDING_WRAP_INDICES)
        return op->index_dtype == TFL_DT_I32 || op->index_dtype == TFL_DT_I64;
    if (op && op->kind == TFL_EMBEDDING_RENORM)
        return (op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F64 ||
                op->dtype == TFL_DT_F16 || op->dtype == TFL_DT_BF16) &&
               (op->index_dtype == TFL_DT_I32 || op->index_dtype == TFL_DT_I64);
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

/* embedding_renorm_: rows whose p-norm exceeds max_norm scaled down (see
 * TFL_EMBEDDING_RENORM); the norm in float (double for F64) as the kernel's
 * accumulate type, the factor computed in double and rounded to dtype. */
static tfl_status renorm(const tfl_embedding_op *op)
{
    const tfl_embedding_renorm *r = &op->renorm;
    int64_t n = *r->num_unique < op->n ? *r->num_unique : op->n;
    const double p = r->norm_type;
    for (int64_t k = 0; k < n; k++) {
        int64_t row = index_at(op->indices, op->index_dtype, k);
        if (row < 0 || row >= op->weight_rows) {
            tfl_error("embedding_renorm: index %lld is outside [0, %lld)", (long long)row,
                      (long long)op->weight_rows);
            return TFL_ERR_DEVICE;
        }
        char *base = (char *)r->weight;
        const int64_t L = r->features;
        if (op->dtype == TFL_DT_F64) {
            double *w = (double *)base + row * r->ws0, v = 0.0;
            for (int64_t f = 0; f < L; f++) {
                double x = w[f * r->ws1];
                v += p == 1.0 ? fabs(x) : p == 2.0 ? x * x : pow(x, p);
            }
            double norm = pow(v, 1.0 / p);
            if (norm > r->max_norm) {
                double factor = r->max_norm / (norm + 1e-7);
                for (int64_t f = 0; f < L; f++)
                    w[f * r->ws1] *= factor;
            }
            continue;
        }
        const float pf = (float)p, mf = (float)r->max_norm;
        float v = 0.0f;
        for (int64_t f = 0; f < L; f++) {
            float x;
            if (op->dtype == TFL_DT_F32) {
                x = ((float *)base)[row * r->ws0 + f * r->ws1];
            } else {
                uint16_t h = ((uint16_t *)base)[row * r->ws0 + f * r->ws1];
                x = op->dtype == TFL_DT_F16 ? tfl_half_to_float(h) : tfl_bf16_to_float(h);
            }
            v += pf == 1.0f ? fabsf(x) : pf == 2.0f ? x * x : powf(x, pf);
        }
        float norm = powf(v, (float)(1.0 / (double)pf));
        if (!(norm > mf))
            continue;
        double fd = (double)mf / ((double)norm + 1e-7);
        if (op->dtype == TFL_DT_F32) {
            float *w = (float *)base + row * r->ws0, factor = (float)fd;
            for (int64_t f = 0; f < L; f++)
                w[f * r->ws1] *= factor;
        } else {
            uint16_t *w = (uint16_t *)base + row * r->ws0;
            const int half = op->dtype == TFL_DT_F16;
            /* the factor is rounded to the type, the product to the type */
            float factor = half ? tfl_half_to_float(tfl_float_to_half((float)fd))
                                : tfl_bf16_to_float(tfl_float_to_bf16((float)fd));
            for (int64_t f = 0; f < L; f++) {
                uint16_t *e = w + f * r->ws1;
                float x = half ? tfl_half_to_float(*e) : tfl_bf16_to_float(*e);
                *e = half ? tfl_float_to_half(x * factor) : tfl_float_to_bf16(x * factor);
            }
        }
    }
    return TFL_OK;
}

/* max_norm's index wrap (TFL_EMBEDDING_WRAP_INDICES): every index is
 * checked first, as the kernel's device-side assert would stop the
 * launch, so a bad one leaves the output untouched. */
static tfl_status wrap_indices(const tfl_embedding_op *op)
{
    const int64_t rows = op->weight_rows;
    if (op->n < 0 || rows < 0 || (op->n && (!op->indices || !op->wrapped)))
        return TFL_ERR_INVALID;
    for (int64_t i = 0; i < op->n; i++) {
        int64_t r = index_at(op->indices, op->index_dtype, i);
        if (r < -rows || r >= rows) {
            tfl_error("embedding_renorm: index %lld at position %lld is outside "
                      "[-%lld, %lld)", (long long)r, (long long)i, (long long)rows,
                      (long long)rows);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t i = 0; i < op->n; i++) {
        int64_t r = index_at(op->indices, op->index_dtype, i);
        r += r < 0 ? rows : 0;
        if (op->index_dtype == TFL_DT_I64)
            ((int64_t *)op->wrapped)[i] = r;
        else
            ((int32_t *)op->wrapped)[i] = (int32_t)r;
    }
    return TFL_OK;
}

tfl_status host_embedding(const tfl_embedding_op *op)
{
    if (op && op->kind == TFL_EMBEDDING_WRAP_INDICES)
        return host_embedding_supported(op) ? wrap_indices(op) : TFL_ERR_INVALID;
    if (op && op->kind == TFL_EMBEDDING_RENORM)
        return host_embedding_supported(op) ? renorm(op) : TFL_ERR_INVALID;
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

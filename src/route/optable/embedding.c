/*
 * embedding.c - the "embedding" kernel family of the semantic op table:
 * PyTorch's dense embedding backward (Embedding.cu), for scalar_t = float,
 * c10::Half and c10::BFloat16 (accscalar_t = float).
 *
 *   embedding_backward_feature_kernel<scalar_t, float, index_t>(
 *       const index_t *indices, const scalar_t *grad, scalar_t *grad_weight,
 *       int n, int64 stride, int padding_idx)
 * adds grad row i into grad_weight row indices[i] (rows of `stride`
 * elements) unless it is padding_idx; grad_weight was zeroed before.  The
 * kernel sums the rows that share an index in float and adds the sum to
 * grad_weight once per batch of (blockDim.x * blockDim.y) indices.  It is
 * what embedding_dense_backward launches for up to 3072 indices without
 * scale_grad_by_freq.  The sort-based path for more indices (cub radix
 * sort + compute_grad_weight + sum_and_scatter) is not mapped.
 * The lookup (forward) is an index kernel (index.c).
 *
 * embedding_bag (EmbeddingBag.cu), scalar_t float or double, index_t int
 * or long (parameter layouts from the sm_80 cubins of torch 2.11.0+cu130):
 *   EmbeddingBag_updateOutputKernel_max(input, offsets, weight, output,
 *       offset2bag, long numIndices, long numBags, long featureSize, long
 *       weight_stride0, long weight_stride1, bag_size, max_indices, index_t
 *       padding_idx, long numRows)
 *   EmbeddingBag_updateOutputKernel_sum_mean(the same ten, int mode @80,
 *       bag_size, per_sample_weights (or NULL), long psw_stride, index_t
 *       padding_idx, long numRows)
 *   EmbeddingBag_accGradParametersKernel_max(max_indices, gradOutput,
 *       gradWeight, long stride, long numBags, index_t padding_idx, index_t
 *       numel of gradWeight)
 * The sum/mean backward (radix sort + EmbeddingBackwardKernel.cu) is not
 * mapped.
 *
 * renorm_kernel<scalar_t, accscalar_t, const index_t> (F.embedding with
 * max_norm): weights, indices, max_norm, norm_type (accscalar_t), long dim,
 * stride0, stride1, const long *num_unique_indices; grid = one block per
 * index.
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

/* cookie: the index dtype | the element dtype << 8 | the bag kernel << 16 */
enum { BAG_NONE = 0, BAG_FWD_MAX = 1, BAG_FWD_SUM_MEAN = 2, BAG_BWD_MAX = 3,
       BAG_GRAD_PARTIALS = 4, BAG_PSW_BWD = 5, RENORM = 6 };

static int match_bag(const char *m, void **cookie)
{
    static const struct { const char *tok; unsigned k; } ks[] = {
        { "EmbeddingBag_updateOutputKernel_maxI", BAG_FWD_MAX },
        { "EmbeddingBag_updateOutputKernel_sum_meanI", BAG_FWD_SUM_MEAN },
        { "EmbeddingBag_accGradParametersKernel_maxI", BAG_BWD_MAX },
        { "24compute_grad_weight_bagsI", BAG_GRAD_PARTIALS },
        { "49_embedding_bag_per_sample_weights_backward_kernelI", BAG_PSW_BWD },
    };
    if (!strstr(m, "EmbeddingBag_cu") && !strstr(m, "EmbeddingBackwardKernel_cu") &&
        !strstr(m, "_embedding_bag_per_sample_weights_backward_kernel"))
        return 0;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const char *p = strstr(m, ks[i].tok);
        if (!p)
            continue;
        p += strlen(ks[i].tok);
        if ((p[0] != 'f' && p[0] != 'd') || (p[1] != 'i' && p[1] != 'l') || p[2] != 'E')
            return 0;         /* half / bfloat16: not mapped */
        unsigned dt = p[0] == 'f' ? TFL_DT_F32 : TFL_DT_F64;
        unsigned idx = p[1] == 'i' ? TFL_DT_I32 : TFL_DT_I64;
        *cookie = (void *)(uintptr_t)(idx | dt << 8 | ks[i].k << 16);
        return 1;
    }
    return 0;
}

/* renorm_kernel<scalar_t, accscalar_t, const index_t>(scalar_t *weights,
 * const index_t *indices, accscalar_t max_norm, accscalar_t norm_type,
 * long dim, long stride0, long stride1, const long *num_unique_indices)
 * of Embedding.cu (embedding_renorm_, F.embedding's max_norm). */
static int match_renorm(const char *m, void **cookie)
{
    static const struct { const char *tok; tfl_dtype dt; } ts[] = {
        { "13renorm_kernelIffK", TFL_DT_F32 },
        { "13renorm_kernelIddK", TFL_DT_F64 },
        { "13renorm_kernelIN3c104HalfEfK", TFL_DT_F16 },
        { "13renorm_kernelIN3c108BFloat16EfK", TFL_DT_BF16 },
    };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        const char *p = strstr(m, ts[i].tok);
        if (!p)
            continue;
        p += strlen(ts[i].tok);
        if ((p[0] != 'i' && p[0] != 'l') || p[1] != 'E')
            return 0;
        unsigned idx = p[0] == 'l' ? TFL_DT_I64 : TFL_DT_I32;
        *cookie = (void *)(uintptr_t)(idx | ((unsigned)ts[i].dt << 8) | (unsigned)RENORM << 16);
        return 1;
    }
    return 0;
}

static int match(const char *m, void **cookie)
{
    if (strstr(m, "Embedding_cu") && strstr(m, "13renorm_kernelI"))
        return match_renorm(m, cookie);
    if (strstr(m, "EmbeddingBag_") || strstr(m, "compute_grad_weight_bags") ||
        strstr(m, "_embedding_bag_per_sample_weights_backward_kernel"))
        return match_bag(m, cookie);
    static const struct { const char *tok; tfl_dtype dt; } ts[] = {
        { "33embedding_backward_feature_kernelIff", TFL_DT_F32 },
        { "33embedding_backward_feature_kernelIN3c104HalfEf", TFL_DT_F16 },
        { "33embedding_backward_feature_kernelIN3c108BFloat16Ef", TFL_DT_BF16 },
    };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        const char *p = strstr(m, ts[i].tok);
        if (!p)
            continue;
        p += strlen(ts[i].tok);
        if ((p[0] != 'i' && p[0] != 'l') || p[1] != 'E')
            return 0;
        unsigned idx = p[0] == 'l' ? TFL_DT_I64 : TFL_DT_I32;
        *cookie = (void *)(uintptr_t)(idx | ((unsigned)ts[i].dt << 8));
        return 1;
    }
    return 0;
}

static const char *op_name(void *cookie)
{
    switch (((uintptr_t)cookie >> 16) & 0xff) {
    case BAG_FWD_MAX:
    case BAG_FWD_SUM_MEAN:
        return "embedding_bag";
    case BAG_BWD_MAX:
        return "embedding_bag_backward_max";
    case BAG_GRAD_PARTIALS:
        return "embedding_bag_backward_partials";
    case BAG_PSW_BWD:
        return "embedding_bag_backward_psw";
    case RENORM:
        return "embedding_renorm";
    default:
        return "embedding_backward";
    }
}

#define ARG(c, i, T) TFL_KARG(c, T, i)

static int in_mem(const void *p, int64_t bytes)
{
    return bytes <= 0 || (p && tfl_mem_check_range(p, (size_t)bytes, NULL));
}

/* Whole rows of row_bytes from p to the end of p's allocation; -1 when p
 * is not device memory. */
static int64_t rows_in_alloc(const void *p, int64_t row_bytes)
{
    tfl_alloc_info a;
    if (!p || row_bytes <= 0 || !tfl_mem_lookup(p, &a))
        return -1;
    return (int64_t)(((const char *)a.base + a.size - (const char *)p) / row_bytes);
}

/* Rows r (r * pitch + span bytes from p) inside p's allocation; -1 when p
 * is not device memory.  pitch 0: one row, or every row. */
static int64_t rows_strided(const void *p, int64_t pitch, int64_t span)
{
    tfl_alloc_info a;
    if (!p || !tfl_mem_lookup(p, &a))
        return -1;
    int64_t room = (int64_t)((const char *)a.base + a.size - (const char *)p);
    if (room < span)
        return 0;
    return pitch > 0 ? (room - span) / pitch + 1 : INT64_MAX;
}

static tfl_status run_bag(const tfl_kcall *c, unsigned bk, tfl_dtype dt, tfl_dtype it,
                          char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_EMBEDDING };
    tfl_embedding_op *e = &op.u.embedding;
    tfl_embedding_bag *b = &e->bag;
    e->dtype = dt;
    e->index_dtype = it;
    const int64_t isz = it == TFL_DT_I64 ? 8 : 4, esz = (int64_t)tfl_dtype_size(dt);
#define IDX(i) (it == TFL_DT_I64 ? ARG(c, i, int64_t) : (int64_t)ARG(c, i, int32_t))
    if (bk == BAG_GRAD_PARTIALS) {
        /* (orig_indices, grad, offset2bag, count, numel, stride, int
         *  mode_mean @48, bag_size, psw, psw_stride, partial segment
         *  offsets, long *num_partials, acc, stride_warped) */
        op.name = "embedding_bag_backward_partials";
        e->kind = TFL_EMBEDDING_BAG_GRAD_PARTIALS;
        b->indices = ARG(c, 0, const void *);
        b->grad = ARG(c, 1, const void *);
        b->offset2bag = ARG(c, 2, void *);
        b->count = ARG(c, 3, const void *);
        b->num_indices = ARG(c, 4, int64_t);
        b->features = ARG(c, 5, int64_t);
        b->mode = ARG(c, 6, int32_t) ? TFL_EMBEDDING_BAG_MEAN : TFL_EMBEDDING_BAG_SUM;
        b->bag_size = ARG(c, 7, void *);
        b->psw = ARG(c, 8, const void *);
        b->psw_stride = ARG(c, 9, int64_t);
        b->seg_offsets = ARG(c, 10, const void *);
        b->num_segments = ARG(c, 11, const int64_t *);
        b->acc = ARG(c, 12, void *);
        const int64_t lim = INT64_MAX / 16;
        if (b->num_indices < 0 || b->features <= 0 || b->psw_stride < 0 ||
            b->num_indices > lim || b->features > lim / 8 ||
            (b->psw && b->num_indices && b->psw_stride > lim / b->num_indices))
            return TFL_ERR_UNSUPPORTED;
        /* the bag and partial counts are not parameters: the allocations
         * bound them (the host op checks every number it reads) */
        const int64_t accsz = dt == TFL_DT_F64 ? 8 : 4;
        int64_t gb = rows_in_alloc(b->grad, b->features * esz);
        int64_t sb = rows_in_alloc(b->bag_size, isz);
        b->num_bags = gb < sb ? gb : sb;
        int64_t so = rows_in_alloc(b->seg_offsets, isz);
        int64_t ac = rows_in_alloc(b->acc, b->features * accsz);
        b->max_segments = so < ac ? so : ac;
        if (!in_mem(b->indices, b->num_indices * isz) ||
            !in_mem(b->offset2bag, b->num_indices * isz) ||
            (b->count && !in_mem(b->count, b->num_indices * isz)) ||
            !in_mem(b->num_segments, 8) || b->num_bags < 0 || b->max_segments < 0 ||
            (b->psw && b->num_indices &&
             !in_mem(b->psw, ((b->num_indices - 1) * b->psw_stride + 1) * esz))) {
            snprintf(err, errlen, "embedding_bag backward: an operand is not in device memory");
            return TFL_ERR_DEVICE;
        }
    } else if (bk == BAG_PSW_BWD) {
        /* (grad, gs0, gs1, weight, ws0, ws1, indices, offset2bag,
         *  num_samples, features, out, index_t padding_idx) */
        op.name = "embedding_bag_backward_psw";
        e->kind = TFL_EMBEDDING_BAG_PSW_BWD;
        b->grad = ARG(c, 0, const void *);
        b->gs0 = ARG(c, 1, int64_t);
        b->gs1 = ARG(c, 2, int64_t);
        b->weight = ARG(c, 3, const void *);
        b->ws0 = ARG(c, 4, int64_t);
        b->ws1 = ARG(c, 5, int64_t);
        b->indices = ARG(c, 6, const void *);
        b->offset2bag = ARG(c, 7, void *);
        b->num_indices = ARG(c, 8, int64_t);
        b->features = ARG(c, 9, int64_t);
        b->out = ARG(c, 10, void *);
        e->padding_idx = IDX(11);
        const int64_t lim = INT64_MAX / 16;
        if (b->num_indices < 0 || b->features < 0 || b->gs0 < 0 || b->gs1 < 0 ||
            b->ws0 < 0 || b->ws1 < 0 || b->num_indices > lim || b->features > lim / 8 ||
            b->gs1 > lim / (b->features + 1) || b->ws1 > lim / (b->features + 1))
            return TFL_ERR_UNSUPPORTED;
        if (b->num_indices == 0)
            return TFL_OK;
        /* rows of grad and weight that lie wholly inside their allocations */
        const int64_t gspan = b->features ? ((b->features - 1) * b->gs1 + 1) * esz : esz;
        const int64_t wspan = b->features ? ((b->features - 1) * b->ws1 + 1) * esz : esz;
        b->num_bags = rows_strided(b->grad, b->gs0 * esz, gspan);
        e->weight_rows = rows_strided(b->weight, b->ws0 * esz, wspan);
        if (!in_mem(b->indices, b->num_indices * isz) ||
            !in_mem(b->offset2bag, b->num_indices * isz) ||
            !in_mem(b->out, b->num_indices * esz) || b->num_bags < 0 || e->weight_rows < 0) {
            snprintf(err, errlen, "embedding_bag backward: an operand is not in device memory");
            return TFL_ERR_DEVICE;
        }
    } else if (bk == BAG_BWD_MAX) {
        op.name = "embedding_bag_backward_max";
        e->kind = TFL_EMBEDDING_BAG_MAX_BWD;
        b->max_indices = ARG(c, 0, void *);
        b->grad = ARG(c, 1, const void *);
        b->grad_weight = ARG(c, 2, void *);
        b->features = ARG(c, 3, int64_t);
        b->num_bags = ARG(c, 4, int64_t);
        e->padding_idx = IDX(5);
        int64_t numel = IDX(6);
        if (b->features <= 0 || b->num_bags < 0 || numel < 0 ||
            b->num_bags > INT64_MAX / b->features / 8)
            return b->features == 0 && b->num_bags >= 0 ? TFL_OK : TFL_ERR_UNSUPPORTED;
        e->weight_rows = numel / b->features;
        if (!in_mem(b->max_indices, b->num_bags * b->features * isz) ||
            !in_mem(b->grad, b->num_bags * b->features * esz) ||
            !in_mem(b->grad_weight, numel * esz)) {
            snprintf(err, errlen, "embedding_bag backward: an operand is not in device memory");
            return TFL_ERR_DEVICE;
        }
    } else {
        op.name = "embedding_bag";
        e->kind = TFL_EMBEDDING_BAG_FWD;
        b->indices = ARG(c, 0, const void *);
        b->offsets = ARG(c, 1, const void *);
        b->weight = ARG(c, 2, const void *);
        b->out = ARG(c, 3, void *);
        b->offset2bag = ARG(c, 4, void *);
        b->num_indices = ARG(c, 5, int64_t);
        b->num_bags = ARG(c, 6, int64_t);
        b->features = ARG(c, 7, int64_t);
        b->ws0 = ARG(c, 8, int64_t);
        b->ws1 = ARG(c, 9, int64_t);
        if (bk == BAG_FWD_MAX) {
            b->mode = TFL_EMBEDDING_BAG_MAX;
            b->bag_size = ARG(c, 10, void *);
            b->max_indices = ARG(c, 11, void *);
            e->padding_idx = IDX(12);
            e->weight_rows = ARG(c, 13, int64_t);
        } else {
            int32_t mode = ARG(c, 10, int32_t);
            if (mode != 0 && mode != 1)
                return TFL_ERR_UNSUPPORTED;
            b->mode = mode ? TFL_EMBEDDING_BAG_MEAN : TFL_EMBEDDING_BAG_SUM;
            b->bag_size = ARG(c, 11, void *);
            b->psw = ARG(c, 12, const void *);
            b->psw_stride = ARG(c, 13, int64_t);
            e->padding_idx = IDX(14);
            e->weight_rows = ARG(c, 15, int64_t);
        }
        const int64_t lim = INT64_MAX / 16;
        if (b->num_indices < 0 || b->num_bags < 0 || b->features < 0 || e->weight_rows < 0 ||
            b->ws0 < 0 || b->ws1 < 0 || b->psw_stride < 0 || b->num_indices > lim ||
            b->num_bags > lim || (b->features && b->num_bags > lim / b->features) ||
            (b->features && e->weight_rows && b->ws0 > lim / e->weight_rows) ||
            (b->features && b->ws1 > lim / b->features) ||
            (b->psw && b->num_indices && b->psw_stride > lim / b->num_indices))
            return TFL_ERR_UNSUPPORTED;
        if (b->num_bags == 0)
            return TFL_OK;
        const int64_t wspan = e->weight_rows && b->features
            ? ((e->weight_rows - 1) * b->ws0 + (b->features - 1) * b->ws1 + 1) * esz : 0;
        if (!in_mem(b->indices, b->num_indices * isz) ||
            !in_mem(b->offsets, b->num_bags * isz) ||
            !in_mem(b->weight, wspan) ||
            !in_mem(b->out, b->num_bags * b->features * esz) ||
            !in_mem(b->offset2bag, b->num_indices * isz) ||
            !in_mem(b->bag_size, b->num_bags * isz) ||
            (bk == BAG_FWD_MAX && !in_mem(b->max_indices, b->num_bags * b->features * isz)) ||
            (b->psw && b->num_indices &&
             !in_mem(b->psw, ((b->num_indices - 1) * b->psw_stride + 1) * esz))) {
            snprintf(err, errlen, "embedding_bag: an operand is not in device memory");
            return TFL_ERR_DEVICE;
        }
    }
#undef IDX
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

/* One block per (sorted, distinct) index; blocks past *num_unique return. */
static tfl_status run_renorm(const tfl_kcall *c, tfl_dtype dt, tfl_dtype it, char *err,
                             size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_EMBEDDING, .name = "embedding_renorm" };
    tfl_embedding_op *e = &op.u.embedding;
    tfl_embedding_renorm *r = &e->renorm;
    e->kind = TFL_EMBEDDING_RENORM;
    e->dtype = dt;
    e->index_dtype = it;
    r->weight = ARG(c, 0, void *);
    e->indices = ARG(c, 1, const void *);
    if (dt == TFL_DT_F64) {
        r->max_norm = ARG(c, 2, double);
        r->norm_type = ARG(c, 3, double);
    } else {
        r->max_norm = ARG(c, 2, float);
        r->norm_type = ARG(c, 3, float);
    }
    r->features = ARG(c, 4, int64_t);
    r->ws0 = ARG(c, 5, int64_t);
    r->ws1 = ARG(c, 6, int64_t);
    r->num_unique = ARG(c, 7, const int64_t *);
    e->n = (int64_t)c->grid[0] * c->grid[1] * c->grid[2];
    if (c->grid[1] != 1 || c->grid[2] != 1 || r->features < 0 || r->ws0 < 0 || r->ws1 < 0)
        return TFL_ERR_UNSUPPORTED;
    if (e->n == 0 || r->features == 0)
        return TFL_OK;
    const int64_t isz = it == TFL_DT_I64 ? 8 : 4;
    const int64_t esz = (int64_t)tfl_dtype_size(dt);
    if (!in_mem(e->indices, e->n * isz) || !in_mem(r->num_unique, 8)) {
        snprintf(err, errlen, "embedding_renorm: an operand is not in device memory");
        return TFL_ERR_DEVICE;
    }
    e->weight_rows = rows_strided(r->weight, r->ws0 * esz,
                                  ((r->features - 1) * r->ws1 + 1) * esz);
    if (e->weight_rows < 0) {
        snprintf(err, errlen, "embedding_renorm: the weight is not in device memory");
        return TFL_ERR_DEVICE;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "embedding_renorm failed (%d)", (int)st);
    return st;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const unsigned bk = (unsigned)(((uintptr_t)cookie >> 16) & 0xff);
    if (bk == RENORM)
        return run_renorm(c, (tfl_dtype)(((uintptr_t)cookie >> 8) & 0xff),
                          (tfl_dtype)((uintptr_t)cookie & 0xff), err, errlen);
    if (bk != BAG_NONE)
        return run_bag(c, bk, (tfl_dtype)(((uintptr_t)cookie >> 8) & 0xff),
                       (tfl_dtype)((uintptr_t)cookie & 0xff), err, errlen);
    tfl_op op = { .kind = TFL_OP_EMBEDDING, .name = "embedding_backward" };
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_BWD_DENSE;
    e->dtype = (tfl_dtype)(((uintptr_t)cookie >> 8) & 0xff);
    e->index_dtype = (tfl_dtype)((uintptr_t)cookie & 0xff);
    e->indices = ARG(c, 0, const void *);
    e->grad = ARG(c, 1, const void *);
    e->grad_weight = ARG(c, 2, void *);
    e->n = ARG(c, 3, int32_t);
    e->row_len = ARG(c, 4, int64_t);
    e->padding_idx = ARG(c, 5, int32_t);
    if (e->n < 0 || e->row_len < 0) {
        snprintf(err, errlen, "embedding backward: bad sizes n=%lld stride=%lld",
                 (long long)e->n, (long long)e->row_len);
        return TFL_ERR_INVALID;
    }
    if (e->n == 0 || e->row_len == 0)
        return TFL_OK;
    const int64_t isz = e->index_dtype == TFL_DT_I64 ? 8 : 4;
    const int64_t row = e->row_len * (int64_t)tfl_dtype_size(e->dtype);
    tfl_alloc_info gw;
    if (!tfl_mem_check_range(e->indices, (size_t)(e->n * isz), NULL) ||
        !tfl_mem_check_range(e->grad, (size_t)(e->n * row), NULL) ||
        !tfl_mem_lookup(e->grad_weight, &gw)) {
        snprintf(err, errlen, "embedding backward: an operand is not in device memory");
        return TFL_ERR_DEVICE;
    }
    /* The kernel is not told the weight's row count: the rows the
     * allocation holds bound it (an index past them would fault). */
    e->weight_rows = (int64_t)(((const char *)gw.base + gw.size -
                                (const char *)e->grad_weight) / row);
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "embedding backward failed (%d)", (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_embedding = {
    .name = "embedding",
    .match = match,
    .run = run,
    .op_name = op_name,
};

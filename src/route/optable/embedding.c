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
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

/* cookie: the index dtype | the element dtype << 8 */
static int match(const char *m, void **cookie)
{
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
    (void)cookie;
    return "embedding_backward";
}

#define ARG(c, i, T) TFL_KARG(c, T, i)

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
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

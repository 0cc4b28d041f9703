/*
 * index_put.c - index_put_ with sorted indices: the backward of x[idx]
 * and index_put_(..., accumulate=True).  PyTorch sorts the linearised
 * indices first (a cub radix sort, not this family), then launches one of
 *   indexing_backward_kernel<T, 4>, indexing_backward_kernel_stride_1<T>,
 *   indexing_backward_kernel_small_stride<T>
 * (const int64 *sorted_indices, const int64 *indices, const T *grad_output,
 *  T *grad_weight, int64 numel, int64 stride, int64 stride_before,
 *  int64 outer_dim, bool accumulate) - the same semantics with different
 * thread mappings (65-byte parameter blocks in the 2.11 through 2.15
 * cubins: [p x3 l x3 b]).
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"

int idx_match_put_sorted(const tfl_kname *n, index_kernel *k)
{
    /* <T, SZ> (SZ: elements per thread), <T>, <T> */
    static const struct { const char *base; int ntargs; } bases[] = {
        { "indexing_backward_kernel", 2 },
        { "indexing_backward_kernel_stride_1", 1 },
        { "indexing_backward_kernel_small_stride", 1 },
    };
    size_t i = 0;
    while (i < sizeof bases / sizeof bases[0] && !idx_plain_name(n, bases[i].base))
        i++;
    long long v;
    if (i == sizeof bases / sizeof bases[0] || n->ntargs != bases[i].ntargs ||
        (n->ntargs == 2 && !tfl_kname_targ_int(n, 1, &v)) ||
        !(k->elem_size = idx_targ_size(n, 0, &k->dtype)))
        return 0;
    /* accumulation is done in the builtin types only (run refuses others) */
    if (k->dtype == TFL_DT_F16 || k->dtype == TFL_DT_BF16)
        k->dtype = TFL_DT_COUNT;
    k->kind = K_PUT_SORTED;
    return 1;
}

int idx_layout_put_sorted(const index_kernel *k, tfl_klayout *l)
{
    (void)k;
    return tfl_klayout_sig(l, "p x3 l x3 b") == 0;
}

tfl_status idx_run_put_sorted(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                              int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    x->kind = TFL_INDEX_PUT_SORTED;
    x->elem_size = k->elem_size;
    x->index_dtype = TFL_DT_I64;
    x->dtype = k->dtype;
    memcpy(&x->u.put_sorted.sorted, c->args[0], 8);
    memcpy(&x->u.put_sorted.positions, c->args[1], 8);
    memcpy(&x->u.put_sorted.grad, c->args[2], 8);
    memcpy(&x->u.put_sorted.weight, c->args[3], 8);
    memcpy(&x->u.put_sorted.numel, c->args[4], 8);
    memcpy(&x->u.put_sorted.stride, c->args[5], 8);
    memcpy(&x->u.put_sorted.stride_before, c->args[6], 8);
    memcpy(&x->u.put_sorted.outer_dim, c->args[7], 8);
    x->u.put_sorted.accumulate = *(const uint8_t *)c->args[8] != 0;
    const int64_t n = x->u.put_sorted.numel, L = x->u.put_sorted.stride,
                  outer = x->u.put_sorted.outer_dim;
    if (n < 0 || L < 0 || outer < 0 || x->u.put_sorted.stride_before < 0)
        return TFL_ERR_UNSUPPORTED;
    if (x->u.put_sorted.accumulate && k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 &&
        k->dtype != TFL_DT_I32 && k->dtype != TFL_DT_I64)
        return TFL_ERR_UNSUPPORTED;
    if (n == 0 || L == 0 || outer == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size;
    tfl_alloc_info wa;
    if (!idx_range_ok(x->u.put_sorted.sorted, n * 8) ||
        !idx_range_ok(x->u.put_sorted.positions, n * 8) ||
        !idx_range_ok(x->u.put_sorted.grad, outer * n * L * es) ||
        !tfl_mem_lookup(x->u.put_sorted.weight, &wa)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_INVALID;
    }
    /* the kernel is not told the weight's extent: its allocation bounds it */
    x->u.put_sorted.weight_bytes = (int64_t)((const char *)wa.base + wa.size -
                                             (const char *)x->u.put_sorted.weight);
    *route = 1;
    return TFL_OK;
}

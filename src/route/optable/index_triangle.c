/*
 * index_triangle.c - torch.triu / torch.tril (causal masks):
 *   triu_tril_kernel<T, IndexType, upper, elements_per_thread, inplace>(
 *       TensorInfo<T, IndexType> result, TensorInfo<const T, IndexType> self,
 *       int64 k, int64 N_padded, IndexType last_dim_padded)
 * keeps self where column - row >= k (upper) or <= k (lower) over the last
 * two dims and writes zero elsewhere.  IndexType is int or int64 here
 * (TensorInfo 216 / 416 bytes, read as for the unsigned kinds).
 * elements_per_thread only sets the thread mapping; inplace launches pass
 * the same tensor twice, which the decoder reads as given.
 */
#include <stdio.h>
#include <string.h>

#include "route/optable/index_internal.h"

int idx_match_triangle(const tfl_kname *n, index_kernel *k)
{
    long long upper, ept, inplace;
    tfl_dtype dt;
    if (!idx_plain_name(n, "triu_tril_kernel") || n->ntargs != 5 ||
        !(k->elem_size = idx_targ_size(n, 0, &dt)) ||
        !(tfl_kname_targ_is(n, 1, "int") || tfl_kname_targ_is(n, 1, "long")) ||
        !tfl_kname_targ_int(n, 2, &upper) || !tfl_kname_targ_int(n, 3, &ept) ||
        !tfl_kname_targ_int(n, 4, &inplace))
        return 0;
    k->wide = tfl_kname_targ_is(n, 1, "long");
    k->upper = upper != 0;
    k->kind = K_TRIANGLE;
    return 1;
}

/* [TensorInfo x2, l l i] (int IndexType) or [TensorInfo x2, l l l] */
int idx_layout_triangle(const index_kernel *k, tfl_klayout *l)
{
    tfl_klayout_add(l, idx_tinfo_size(k->wide), 8);
    tfl_klayout_add(l, idx_tinfo_size(k->wide), 8);
    tfl_klayout_add(l, 8, 8);
    tfl_klayout_add(l, 8, 8);
    tfl_klayout_add(l, k->wide ? 8 : 4, k->wide ? 8 : 4);
    return 1;
}

tfl_status idx_run_triangle(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    x->kind = TFL_INDEX_TRIANGLE;
    x->elem_size = k->elem_size;
    tfl_index_tensor *d = &x->u.triangle.dst, *s = &x->u.triangle.src;
    if (!idx_read_tinfo(c, 0, k->wide, d) || !idx_read_tinfo(c, 1, k->wide, s) || d->ndim < 2 ||
        s->ndim != d->ndim)
        return TFL_ERR_UNSUPPORTED;
    for (int i = 0; i < d->ndim; i++)
        if (d->sizes[i] != s->sizes[i])
            return TFL_ERR_UNSUPPORTED;
    x->u.triangle.upper = k->upper;
    x->u.triangle.diagonal = *(int64_t *)c->args[2];
    const size_t es = k->elem_size;
    if (!idx_range_ok(d->data, idx_span_bytes(d->ndim, d->sizes, d->strides, es)) ||
        !idx_range_ok(s->data, idx_span_bytes(s->ndim, s->sizes, s->strides, es))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

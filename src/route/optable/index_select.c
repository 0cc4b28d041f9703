/*
 * index_select.c - index_select, index_add and index_reduce:
 * indexSelect{Small,Large}Index, indexFunc{Small,Large}Index<Reduce*> (TensorInfo kernels) and
 * vectorized_gather_kernel (dim-0 row gather, nn.Embedding's lookup).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"
#include "route/optable/pt_abi.h"

int idx_match_select(const char *m, index_kernel *k)
{
    static const struct { const char *key; int kind; } keys[] = {
        { "21indexSelectSmallIndexI", K_SELECT_SMALL },
        { "21indexSelectLargeIndexI", K_SELECT_LARGE },
        { "19indexFuncSmallIndexI", K_ADD_SMALL },
        { "19indexFuncLargeIndexI", K_ADD_LARGE },
    };
    const char *p = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !p; i++) {
        if ((p = strstr(m, keys[i].key))) {
            k->kind = keys[i].kind;
            p += strlen(keys[i].key);
        }
    }
    if (!p)
        return 0;
    const char *t = p;
    k->elem_size = idx_mangled_size(&p);
    if (!k->elem_size)
        return 0;
    k->dtype = idx_type_dtype(t, (size_t)(p - t));
    if (*p == 'i' || *p == 'l')
        k->index_dtype = *p == 'l' ? TFL_DT_I64 : TFL_DT_I32;
    else
        return 0;
    p++;
    if (*p != 'j' && *p != 'm')
        return 0;
    k->wide = *p == 'm';
    if (k->kind == K_ADD_SMALL || k->kind == K_ADD_LARGE) {
        /* index_add (ReduceAdd, times alpha) and index_reduce: its prod /
         * amax / amin functors ignore alpha; ReduceMean only sums (the
         * division by the counts is a later elementwise kernel) */
        if (k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 && k->dtype != TFL_DT_I32 &&
            k->dtype != TFL_DT_I64 && k->dtype != TFL_DT_F16 && k->dtype != TFL_DT_BF16)
            return 0;
        if (strstr(p, "9ReduceAddEEEv")) {
            k->reduce = TFL_INDEX_ADD;
        } else if (strstr(p, "10ReduceMeanEEEv")) {
            k->reduce = TFL_INDEX_ADD;
            k->fill = 1;   /* no alpha: sums with alpha 1 */
        } else if (strstr(p, "14ReduceMultiplyEEEv")) {
            k->reduce = TFL_INDEX_MUL;
        } else if (strstr(p, "13ReduceMaximumEEEv")) {
            k->reduce = TFL_INDEX_MAX;
        } else if (strstr(p, "13ReduceMinimumEEEv")) {
            k->reduce = TFL_INDEX_MIN;
        } else {
            return 0;
        }
    }
    return 1;
}

tfl_status idx_run_gather(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                             int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    x->kind = TFL_INDEX_GATHER_ROWS;
    x->elem_size = 1;
    x->index_dtype = k->index_dtype;
    x->u.gather_rows.out = ARG(c, 0, void *);
    x->u.gather_rows.in = ARG(c, 1, const void *);
    x->u.gather_rows.idx = ARG(c, 2, const void *);
    x->u.gather_rows.n_index = ARG(c, 3, int32_t);
    x->u.gather_rows.row_bytes = ARG(c, 4, int64_t);
    x->u.gather_rows.in_rows = ARG(c, 5, int64_t);
    x->u.gather_rows.in_stride = ARG(c, 6, int64_t);
    x->u.gather_rows.out_stride = ARG(c, 7, int64_t);
    x->u.gather_rows.allow_negative = ARG(c, 8, uint8_t) != 0;
    const int64_t n = x->u.gather_rows.n_index, rb = x->u.gather_rows.row_bytes,
                  rows = x->u.gather_rows.in_rows;
    if (n < 0 || rb < 0 || rows < 0 || x->u.gather_rows.in_stride < 0 ||
        x->u.gather_rows.out_stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (n == 0 || rb == 0)
        return TFL_OK;
    const int64_t isz = k->index_dtype == TFL_DT_I64 ? 8 : 4;
    if (!idx_range_ok(x->u.gather_rows.idx, n * isz) ||
        !idx_range_ok(x->u.gather_rows.out, (n - 1) * x->u.gather_rows.out_stride + rb) ||
        (rows > 0 && !idx_range_ok(x->u.gather_rows.in, (rows - 1) * x->u.gather_rows.in_stride + rb))) {
        snprintf(err, errlen, "index_select: an operand is not in device memory");
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;   /* go on: route it */
}

/* indexSelect{Small,Large}Index and indexFunc{Small,Large}Index<ReduceAdd>
 * (index_add).  Small: (dst, src, idx, int dstDim, int srcDim, IndexType
 * innerSize, int64 dimSize, ...); Large has IndexType totalSize before
 * innerSize.  indexFunc then takes int64 numel, const func_t &op (a
 * pointer, unused), T alpha @688.  The dims that are indexed or counted
 * by the index were reduced to size 1 in the TensorInfos. */
tfl_status idx_run_select(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                             int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const int add = k->kind == K_ADD_SMALL || k->kind == K_ADD_LARGE;
    const int large = k->kind == K_SELECT_LARGE || k->kind == K_ADD_LARGE;
    x->kind = TFL_INDEX_SELECT;
    x->elem_size = k->elem_size;
    x->index_dtype = k->index_dtype;
    x->dtype = add ? k->dtype : TFL_DT_U8;
    if (!idx_read_tinfo(c, 0, k->wide, &x->u.select.dst) ||
        !idx_read_tinfo(c, 1, k->wide, &x->u.select.src) ||
        !idx_read_tinfo(c, 2, k->wide, &x->u.select.index))
        return TFL_ERR_UNSUPPORTED;
    x->u.select.dst_dim = ARG(c, 3, int32_t);
    x->u.select.src_dim = ARG(c, 4, int32_t);
    const int i_inner = large ? 6 : 5;
    int64_t inner = k->wide ? (int64_t)ARG(c, i_inner, uint64_t) : ARG(c, i_inner, uint32_t);
    x->u.select.index_bound = ARG(c, i_inner + 1, int64_t);
    x->u.select.index_dst = add;
    x->u.select.reduce = add ? k->reduce : TFL_INDEX_ASSIGN;
    x->u.select.alpha = 1.0;
    if (add && k->reduce == TFL_INDEX_ADD && !k->fill) {
        const int i_alpha = i_inner + 4;
        switch (k->dtype) {
        case TFL_DT_F32: x->u.select.alpha = ARG(c, i_alpha, float); break;
        case TFL_DT_F64: x->u.select.alpha = ARG(c, i_alpha, double); break;
        case TFL_DT_I32: x->u.select.alpha = ARG(c, i_alpha, int32_t); break;
        case TFL_DT_I64: x->u.select.alpha = (double)ARG(c, i_alpha, int64_t); break;
        /* alpha is a T: c10::Half / c10::BFloat16 bits */
        case TFL_DT_F16: x->u.select.alpha = tfl_pt_half_to_float(ARG(c, i_alpha, uint16_t)); break;
        case TFL_DT_BF16: x->u.select.alpha = tfl_pt_bf16_to_float(ARG(c, i_alpha, uint16_t)); break;
        default: return TFL_ERR_UNSUPPORTED;
        }
    }
    tfl_index_tensor *dst = &x->u.select.dst, *src = &x->u.select.src, *ix = &x->u.select.index;
    const int dd = x->u.select.dst_dim, sd = x->u.select.src_dim;
    if (dd < 0 || dd >= dst->ndim || sd < 0 || sd >= src->ndim)
        return TFL_ERR_UNSUPPORTED;
    int64_t n_index = 1, dinner = 1;
    for (int d = 0; d < ix->ndim; d++)
        n_index *= ix->sizes[d];
    for (int d = 0; d < dst->ndim; d++)
        if (d != dd)
            dinner *= dst->sizes[d];
    if (dst->sizes[dd] != 1 || src->sizes[sd] != 1 || dinner != inner)
        return TFL_ERR_UNSUPPORTED;
    /* give the reduced dims their extents back: the side the index picks
     * from has index_bound, the other one entry per index */
    dst->sizes[dd] = add ? x->u.select.index_bound : n_index;
    src->sizes[sd] = add ? n_index : x->u.select.index_bound;
    if (n_index == 0 || inner == 0)
        return TFL_OK;
    const size_t es = k->elem_size;
    if (!idx_range_ok(dst->data, idx_span_bytes(dst->ndim, dst->sizes, dst->strides, es)) ||
        !idx_range_ok(src->data, idx_span_bytes(src->ndim, src->sizes, src->strides, es)) ||
        !idx_range_ok(ix->data, idx_span_bytes(ix->ndim, ix->sizes, ix->strides,
                                       k->index_dtype == TFL_DT_I64 ? 8 : 4))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

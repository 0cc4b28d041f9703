/*
 * index_select.c - index_select, index_add and index_reduce:
 * indexSelect{Small,Large}Index, indexFunc{Small,Large}Index<Reduce*> (TensorInfo kernels) and
 * vectorized_gather_kernel (dim-0 row gather, nn.Embedding's lookup):
 *   vectorized_gather_kernel<A, index_t>(char *out, char *in, index_t *idx,
 *       int n_index, int64 row_bytes, in_rows, in_stride, out_stride,
 *       bool allow_negative)                                [p x2 i l x3 b]
 *   vectorized_scatter_add_kernel<A, T, index_t>(T *self, const T *src,
 *       const index_t *idx, int num_ind, int64 slice_bytes, self_dim_size,
 *       self_stride_bytes, src_stride_bytes, int threads_per_entry,
 *       int entries_per_block)                            [p x2 i l x3 i i]
 *       (2.13 and 2.14; 2.15 names it vectorized_scatter_kernel<ScatterAddOp,
 *       A, T, index_t>: self row idx[e] += src row e, for e < num_ind; the
 *       grid covers every row and byte)
 * Layouts unchanged from 2.11 through 2.15.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"
#include "route/optable/pt_abi.h"

/* The reductions indexFunc* is instantiated with (simplified names):
 * index_add is ReduceAdd (times alpha); index_reduce's prod / amax / amin
 * functors ignore alpha; ReduceMean only sums (the division by the counts
 * is a later elementwise kernel). */
static const struct { const char *name; tfl_index_reduce reduce; int no_alpha; } reductions[] = {
    { "ReduceAdd", TFL_INDEX_ADD, 0 },
    { "ReduceMean", TFL_INDEX_ADD, 1 },
    { "ReduceMultiply", TFL_INDEX_MUL, 0 },
    { "ReduceMaximum", TFL_INDEX_MAX, 0 },
    { "ReduceMinimum", TFL_INDEX_MIN, 0 },
};

/* vectorized_gather_kernel<Alignment, index_t>: the alignment only sets
 * the vector width of the row copy. */
static int match_gather(const tfl_kname *n, index_kernel *k)
{
    long long v;
    if (!idx_plain_name(n, "vectorized_gather_kernel") || n->ntargs != 2 ||
        !tfl_kname_targ_int(n, 0, &v) ||
        !(tfl_kname_targ_is(n, 1, "int") || tfl_kname_targ_is(n, 1, "long")))
        return 0;
    k->kind = K_GATHER;
    k->index_dtype = tfl_kname_targ_is(n, 1, "long") ? TFL_DT_I64 : TFL_DT_I32;
    k->elem_size = 1;
    return 1;
}

/* vectorized_scatter_add_kernel<Alignment, T, index_t> (2.13, 2.14) and
 * its 2.15 form vectorized_scatter_kernel<ScatterAddOp, Alignment, T,
 * index_t>: index_add of dim-0 rows; the alignment only sets the vector
 * width.  (2.15's ScatterMaxOp / ScatterMinOp instances are not claimed.) */
static int match_scatter_add_rows(const tfl_kname *n, index_kernel *k)
{
    long long v;
    int t;                                       /* T's position */
    if (idx_plain_name(n, "vectorized_scatter_add_kernel") && n->ntargs == 3)
        t = 1;
    else if (idx_plain_name(n, "vectorized_scatter_kernel") && n->ntargs == 4 &&
             tfl_kname_targ_is(n, 0, "ScatterAddOp"))
        t = 2;
    else
        return 0;
    if (!tfl_kname_targ_int(n, t - 1, &v) ||
        !(tfl_kname_targ_is(n, t + 1, "int") || tfl_kname_targ_is(n, t + 1, "long")) ||
        !(k->elem_size = idx_targ_size(n, t, &k->dtype)) ||
        (k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 && k->dtype != TFL_DT_F16 &&
         k->dtype != TFL_DT_BF16))
        return 0;
    k->kind = K_SCATTER_ADD_ROWS;
    k->index_dtype = tfl_kname_targ_is(n, t + 1, "long") ? TFL_DT_I64 : TFL_DT_I32;
    k->reduce = TFL_INDEX_ADD;
    return 1;
}

/* indexSelect{Small,Large}Index<T, IndicesType, IndexType, DstDim, SrcDim,
 * IdxDim[, IndexIsMajor]> and indexFunc{Small,Large}Index<..., func_t>:
 * T the element, IndicesType int / long (the index tensor), IndexType
 * unsigned int / unsigned long (the TensorInfos' width); the int / bool
 * rest specialise ranks and the thread mapping. */
int idx_match_select(const tfl_kname *n, index_kernel *k)
{
    static const struct { const char *base; int kind; } bases[] = {
        { "indexSelectSmallIndex", K_SELECT_SMALL },
        { "indexSelectLargeIndex", K_SELECT_LARGE },
        { "indexFuncSmallIndex", K_ADD_SMALL },
        { "indexFuncLargeIndex", K_ADD_LARGE },
    };
    if (match_gather(n, k) || match_scatter_add_rows(n, k))
        return 1;
    size_t i = 0;
    while (i < sizeof bases / sizeof bases[0] && !idx_plain_name(n, bases[i].base))
        i++;
    if (i == sizeof bases / sizeof bases[0])
        return 0;
    k->kind = bases[i].kind;
    k->elem_size = idx_targ_size(n, 0, &k->dtype);
    if (!k->elem_size || !(tfl_kname_targ_is(n, 1, "int") || tfl_kname_targ_is(n, 1, "long")) ||
        !(tfl_kname_targ_is(n, 2, "unsigned int") || tfl_kname_targ_is(n, 2, "unsigned long")))
        return 0;
    k->index_dtype = tfl_kname_targ_is(n, 1, "long") ? TFL_DT_I64 : TFL_DT_I32;
    k->wide = tfl_kname_targ_is(n, 2, "unsigned long");
    int used[] = { 0, 1, 2, n->ntargs - 1 };
    if (k->kind == K_SELECT_SMALL || k->kind == K_SELECT_LARGE)
        return idx_others_constant(n, used, 3);
    /* 2.12's indexFuncLargeIndex takes innerSize's IntDivider last (and an
     * unroll constant): derived from innerSize, which run reads */
    k->divider = tfl_kname_param_starts(n, n->nparams - 1, "at::cuda::detail::IntDivider<");
    /* index_add / index_reduce: the functor is the last argument */
    if (!idx_others_constant(n, used, 4) ||
        (k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 && k->dtype != TFL_DT_I32 &&
         k->dtype != TFL_DT_I64 && k->dtype != TFL_DT_F16 && k->dtype != TFL_DT_BF16))
        return 0;
    for (size_t r = 0; r < sizeof reductions / sizeof reductions[0]; r++) {
        if (tfl_kname_targ_is(n, n->ntargs - 1, reductions[r].name)) {
            k->reduce = reductions[r].reduce;
            k->fill = reductions[r].no_alpha;   /* sums with alpha 1 */
            return 1;
        }
    }
    return 0;
}

/* (dst, src, indices: TensorInfo<T / const T / const IndicesType,
 * IndexType>, int dstDim, int srcDim, [Large: IndexType totalSize,]
 * IndexType innerSize, int64 dimSize[, indexFunc: int64 srcAddDimSize,
 * const func_t &op, T alpha]) - every parameter is listed, run reads the
 * TensorInfos, dims, innerSize, dimSize and alpha; 2.12's indexFuncLargeIndex
 * adds IntDivider<IndexType> innerSize_divider, which run does not need. */
int idx_layout_select(const index_kernel *k, tfl_klayout *l)
{
    const size_t ti = idx_tinfo_size(k->wide), it = k->wide ? 8 : 4;
    for (int i = 0; i < 3; i++)
        tfl_klayout_add(l, ti, 8);
    tfl_klayout_add(l, 4, 4);                    /* dstDim */
    tfl_klayout_add(l, 4, 4);                    /* srcDim */
    if (k->kind == K_SELECT_LARGE || k->kind == K_ADD_LARGE)
        tfl_klayout_add(l, it, it);              /* totalSize */
    tfl_klayout_add(l, it, it);                  /* innerSize */
    tfl_klayout_add(l, 8, 8);                    /* dimSize */
    if (k->kind == K_ADD_SMALL || k->kind == K_ADD_LARGE) {
        tfl_klayout_add(l, 8, 8);                /* srcAddDimSize */
        tfl_klayout_add(l, 8, 8);                /* &op */
        tfl_klayout_add(l, k->elem_size, k->elem_size);   /* alpha */
    }
    /* IntDivider<unsigned int> {divisor, m1, shift}; <unsigned long> just
     * the divisor */
    if (k->divider)
        tfl_klayout_add(l, k->wide ? 8 : 12, k->wide ? 8 : 4);
    return l->n > 0;
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
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;   /* go on: route it */
}

/* vectorized_scatter_add_kernel: index_add along dim 0 of [rows, inner]
 * row-major slices with byte row strides, alpha 1 (the kernel has none). */
tfl_status idx_run_scatter_add_rows(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                                    int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const int64_t es = (int64_t)k->elem_size, n = ARG(c, 3, int32_t),
                  slice = ARG(c, 4, int64_t), rows = ARG(c, 5, int64_t),
                  dst_st = ARG(c, 6, int64_t), src_st = ARG(c, 7, int64_t);
    if (n < 0 || slice < 0 || rows < 0 || dst_st < 0 || src_st < 0 || slice % es ||
        dst_st % es || src_st % es)
        return TFL_ERR_UNSUPPORTED;
    if (n == 0 || slice == 0)
        return TFL_OK;
    x->kind = TFL_INDEX_SELECT;
    x->elem_size = k->elem_size;
    x->index_dtype = k->index_dtype;
    x->dtype = k->dtype;
    tfl_index_tensor *dst = &x->u.select.dst, *src = &x->u.select.src, *ix = &x->u.select.index;
    const int64_t inner = slice / es;
    const int64_t dsz[2] = { rows, inner }, dst_s[2] = { dst_st / es, 1 },
                  ssz[2] = { n, inner }, src_s[2] = { src_st / es, 1 };
    dst->data = ARG(c, 0, void *);
    src->data = ARG(c, 1, void *);
    ix->data = ARG(c, 2, void *);
    dst->ndim = src->ndim = 2;
    ix->ndim = 1;
    memcpy(dst->sizes, dsz, sizeof dsz);
    memcpy(dst->strides, dst_s, sizeof dst_s);
    memcpy(src->sizes, ssz, sizeof ssz);
    memcpy(src->strides, src_s, sizeof src_s);
    ix->sizes[0] = n;
    ix->strides[0] = 1;
    x->u.select.dst_dim = x->u.select.src_dim = 0;
    x->u.select.index_bound = rows;
    x->u.select.index_dst = 1;
    x->u.select.reduce = TFL_INDEX_ADD;
    x->u.select.alpha = 1.0;
    if (rows == 0 ||
        !idx_range_ok(dst->data, idx_span_bytes(2, dst->sizes, dst->strides, (size_t)es)) ||
        !idx_range_ok(src->data, idx_span_bytes(2, src->sizes, src->strides, (size_t)es)) ||
        !idx_range_ok(ix->data, n * (k->index_dtype == TFL_DT_I64 ? 8 : 4))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
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
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

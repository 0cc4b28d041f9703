/*
 * index.c - the "index" kernel family of the semantic op table: PyTorch's
 * index_select / row gather and cat kernels.  Elements move as bytes, so
 * every element type is handled.
 *
 *   vectorized_gather_kernel<Alignment, index_t>(char *out, char *inp,
 *       index_t *idx, int num_ind, int64 slice_size, int64 ind_dim_size,
 *       int64 inp_stride, int64 out_stride, bool allow_neg_indices)
 *     index_select along dim 0 of a contiguous tensor (sizes in bytes);
 *     nn.Embedding's lookup takes this path.
 *   indexSelectSmallIndex<T, IndicesType, IndexType, DstDim, SrcDim, IdxDim>(
 *       TensorInfo dst, TensorInfo src, TensorInfo indices,
 *       int dstSelectDim, int srcSelectDim, IndexType innerSize,
 *       int64 srcSelectDimSize)
 *   indexSelectLargeIndex<..., IndexIsMajor>(same, but IndexType
 *       totalSize before innerSize)
 *     index_select in general; dst's TensorInfo has its select dim
 *     reduced to size 1 (TensorInfo::reduceDim).
 *   CatArrayBatchedCopy{,_contig,_alignedK_contig,_vectorized}<
 *       OpaqueType<N>, unsigned, Dims, batch, stride_size, ...>(
 *       T *out, CatArrInputTensorMetadata inputs, TensorSizeStride os,
 *       int concatDim, unsigned dimStride)   (gridDim.y = inputs)
 *
 * TensorInfo<T, IndexType> = { T *data; IndexType sizes[25], strides[25];
 * int dims; } (216 bytes for unsigned int, 416 for unsigned long), as the
 * 2.11 cubins' parameter sizes confirm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

enum { K_GATHER = 1, K_SELECT_SMALL, K_SELECT_LARGE, K_ADD_SMALL, K_ADD_LARGE, K_CAT, K_SCATTER_GATHER, K_ADVANCED,
       K_ARANGE, K_LINSPACE };
enum { CAT_PLAIN = 0, CAT_VECTORIZED = 1 };

typedef struct index_kernel {
    int kind;
    size_t elem_size;
    tfl_dtype index_dtype;
    int wide;                    /* IndexType is 64-bit */
    /* cat */
    int dims, batch, stride_size, variant, alignment, elems_per_vec;
    /* scatter/gather, advanced indexing, ranges */
    int scatter, put, fill;
    tfl_index_reduce reduce;
    tfl_dtype dtype;
} index_kernel;

#define ARG(c, i, T) (*(T *)(c)->args[i])

/* Byte size of an Itanium-mangled type at *p (builtin or c10 scalar);
 * advances *p.  0 if not one we know. */
static size_t mangled_size(const char **p)
{
    static const struct { const char *m; size_t sz; } named[] = {
        { "N3c104HalfE", 2 }, { "N3c108BFloat16E", 2 },
        { "N3c107complexIfEE", 8 }, { "N3c107complexIdEE", 16 },
        { "N3c107complexINS_4HalfEEE", 4 },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].m);
        if (strncmp(*p, named[i].m, n) == 0) {
            *p += n;
            return named[i].sz;
        }
    }
    int n = 0, len = 0;
    if (sscanf(*p, "NS0_10OpaqueTypeILi%dEEE%n", &n, &len) == 1 && len > 0 && n > 0 && n <= 16) {
        *p += len;
        return (size_t)n;
    }
    size_t sz = 0;
    switch (**p) {
    case 'b': case 'a': case 'h': case 'c': sz = 1; break;
    case 's': case 't': sz = 2; break;
    case 'i': case 'j': case 'f': sz = 4; break;
    case 'l': case 'm': case 'x': case 'y': case 'd': sz = 8; break;
    default: return 0;
    }
    (*p)++;
    return sz;
}

/* The arithmetic type of a builtin mangled type letter, or TFL_DT_COUNT. */
static tfl_dtype letter_dtype(char c)
{
    switch (c) {
    case 'f': return TFL_DT_F32;
    case 'd': return TFL_DT_F64;
    case 'i': return TFL_DT_I32;
    case 'l': return TFL_DT_I64;
    case 'a': return TFL_DT_I8;
    case 'h': return TFL_DT_U8;
    default:  return TFL_DT_COUNT;
    }
}

static int match_select(const char *m, index_kernel *k)
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
    k->elem_size = mangled_size(&p);
    if (!k->elem_size)
        return 0;
    k->dtype = p - t == 1 ? letter_dtype(*t) : TFL_DT_COUNT;
    if (*p == 'i' || *p == 'l')
        k->index_dtype = *p == 'l' ? TFL_DT_I64 : TFL_DT_I32;
    else
        return 0;
    p++;
    if (*p != 'j' && *p != 'm')
        return 0;
    k->wide = *p == 'm';
    if (k->kind == K_ADD_SMALL || k->kind == K_ADD_LARGE) {
        /* index_add (ReduceAdd); index_reduce's prod/amax/amin/mean are not mapped */
        if (!strstr(p, "9ReduceAddEEEv") || (k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 &&
                                            k->dtype != TFL_DT_I32 && k->dtype != TFL_DT_I64))
            return 0;
        k->reduce = TFL_INDEX_ADD;
    }
    return 1;
}

static int match_cat(const char *m, index_kernel *k)
{
    const char *p = strstr(m, "CatArrayBatchedCopy");
    if (!p)
        return 0;
    p += strlen("CatArrayBatchedCopy");
    int n = 0;
    unsigned es;
    if (strncmp(p, "_vectorized", 11) == 0)
        k->variant = CAT_VECTORIZED;
    /* skip "_contig" / "_alignedK_contig" / "_vectorized" to the template */
    p = strstr(p, "OpaqueTypeILj");
    if (!p || sscanf(p, "OpaqueTypeILj%uEEEjLi%dELi%dELi%dE%n", &es, &k->dims, &k->batch,
                     &k->stride_size, &n) != 4 || n == 0)
        return 0;
    if (k->variant == CAT_VECTORIZED) {
        int n2 = 0;
        if (sscanf(p + n, "Li%dELi%dE%n", &k->alignment, &k->elems_per_vec, &n2) != 2 ||
            n2 == 0 || k->alignment <= 0 || k->elems_per_vec <= 0)
            return 0;
    }
    if (es == 0 || es > 16 || k->dims < 1 || k->dims > TFL_INDEX_CAT_DIMS ||
        k->batch < 1 || k->batch > 128 || k->stride_size < 1 || k->stride_size > k->batch)
        return 0;
    k->kind = K_CAT;
    k->elem_size = es;
    return 1;
}

/* _scatter_gather_elementwise_kernel<128, 8, _cuda_scatter_gather_internal_
 * kernel<is_scatter, T, index_t>::operator()<Functor>(...)::lambda(int)> */
static int match_scatter_gather(const char *m, index_kernel *k)
{
    const char *key = "36_cuda_scatter_gather_internal_kernelILb";
    const char *fkey = "34_cuda_scatter_fill_internal_kernelI";
    const char *p = strstr(m, key);
    if (!strstr(m, "34_scatter_gather_elementwise_kernelI"))
        return 0;
    if (p) {
        p += strlen(key);
        if ((p[0] != '0' && p[0] != '1') || p[1] != 'E')
            return 0;
        k->scatter = p[0] == '1';
        p += 2;
    } else if ((p = strstr(m, fkey))) {
        /* scatter(dim, index, value): _cuda_scatter_fill_internal_kernel<T, index_t> */
        p += strlen(fkey);
        k->scatter = 1;
        k->fill = 1;
    } else {
        return 0;
    }
    const char *t = p;
    k->elem_size = mangled_size(&p);
    if (!k->elem_size || (*p != 'i' && *p != 'l'))
        return 0;
    k->dtype = p - t == 1 ? letter_dtype(*t) : TFL_DT_COUNT;
    k->index_dtype = *p == 'l' ? TFL_DT_I64 : TFL_DT_I32;
    p++;
    if (strncmp(p, "EclINS0_12TensorAssignE", 23) == 0)
        k->reduce = TFL_INDEX_ASSIGN;
    else if (k->fill)
        return 0;
    else if (strncmp(p, "EclINS0_9ReduceAddE", 19) == 0 &&
             (k->dtype == TFL_DT_F32 || k->dtype == TFL_DT_F64 ||
              k->dtype == TFL_DT_I32 || k->dtype == TFL_DT_I64))
        k->reduce = TFL_INDEX_ADD;
    else
        return 0;
    k->kind = K_SCATTER_GATHER;
    return 1;
}

/* index_elementwise_kernel<128, 4, gpu_index_kernel<index[_put]_kernel_impl<
 * OpaqueType<N>>(...)::lambda>(...)::lambda(int)> */
static int match_advanced(const char *m, index_kernel *k)
{
    const char *p = strstr(m, "24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_");
    if (!p)
        return 0;
    p += strlen("24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_");
    int n = 0, len = 0;
    if (sscanf(p, "17index_kernel_implINS0_10OpaqueTypeILi%dEEEEEv%n", &n, &len) == 1 && len)
        k->put = 0;
    else if (sscanf(p, "21index_put_kernel_implINS0_10OpaqueTypeILi%dEEEEEv%n", &n, &len) == 1 && len)
        k->put = 1;
    else
        return 0;
    if (n <= 0 || n > 16)
        return 0;
    k->elem_size = (size_t)n;
    k->kind = K_ADVANCED;
    return 1;
}

/* elementwise_kernel_with_index<int, {arange,linspace}_cuda_out(...)::
 * dispatch lambdas::lambda(long)>: the dispatch lambdas' numbers give the
 * dtype (read off the 2.11 wheel: AT_DISPATCH's case order). */
static int match_range(const char *m, index_kernel *k)
{
    static const struct { const char *key; int kind; tfl_dtype dt; } tab[] = {
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE_clEvEUllE_", K_ARANGE, TFL_DT_U8 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE0_clEvEUllE_", K_ARANGE, TFL_DT_I8 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE1_clEvEUllE_", K_ARANGE, TFL_DT_I32 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_", K_ARANGE, TFL_DT_I64 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE4_clEvEUllE_", K_ARANGE, TFL_DT_F64 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE5_clEvEUllE_", K_ARANGE, TFL_DT_F32 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE_clEvEUllE_", K_LINSPACE, TFL_DT_U8 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE0_clEvEUllE_", K_LINSPACE, TFL_DT_I8 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE1_clEvEUllE_", K_LINSPACE, TFL_DT_I32 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_", K_LINSPACE, TFL_DT_I64 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE_clEvEUllE_", K_LINSPACE, TFL_DT_F64 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE0_clEvEUllE_", K_LINSPACE, TFL_DT_F32 },
    };
    if (!strstr(m, "29elementwise_kernel_with_indexIiZZZN2at6native"))
        return 0;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strstr(m, tab[i].key)) {
            k->kind = tab[i].kind;
            k->dtype = tab[i].dt;
            return 1;
        }
    }
    return 0;
}

static int match(const char *m, void **cookie)
{
    index_kernel k = { 0 };
    const char *p;
    if ((p = strstr(m, "24vectorized_gather_kernelILi"))) {
        int align, n = 0;
        char it;
        if (sscanf(p, "24vectorized_gather_kernelILi%dE%c%n", &align, &it, &n) != 2 ||
            (it != 'i' && it != 'l'))
            return 0;
        k.kind = K_GATHER;
        k.index_dtype = it == 'l' ? TFL_DT_I64 : TFL_DT_I32;
        k.elem_size = 1;
    } else if (!match_select(m, &k) && !match_cat(m, &k) && !match_scatter_gather(m, &k) &&
               !match_advanced(m, &k) && !match_range(m, &k)) {
        return 0;
    }
    index_kernel *c = malloc(sizeof *c);
    if (!c)
        return 0;
    *c = k;
    *cookie = c;
    return 1;
}

static const char *op_name(void *cookie)
{
    const index_kernel *k = cookie;
    switch (k->kind) {
    case K_GATHER: return "index_select_rows";
    case K_CAT:    return "cat";
    case K_ADD_SMALL:
    case K_ADD_LARGE: return "index_add";
    case K_SCATTER_GATHER:
        if (k->fill)
            return "scatter_value";
        return k->scatter ? (k->reduce == TFL_INDEX_ADD ? "scatter_add" : "scatter") : "gather";
    case K_ADVANCED: return k->put ? "index_put" : "index";
    case K_ARANGE:   return "arange";
    case K_LINSPACE: return "linspace";
    default:       return "index_select";
    }
}

/* Bytes spanned by a strided view (max offset + 1 element); 0 if empty.
 * -1 for a negative stride (never produced by these kernels' callers). */
static int64_t span_bytes(int ndim, const int64_t *sizes, const int64_t *strides, size_t es)
{
    int64_t hi = 0;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0)
            return 0;
        if (strides[d] < 0)
            return -1;
        hi += (sizes[d] - 1) * strides[d];
    }
    return (hi + 1) * (int64_t)es;
}

static int range_ok(const void *p, int64_t bytes)
{
    if (bytes < 0)
        return 0;
    return bytes == 0 || (p && tfl_mem_check_range(p, (size_t)bytes, NULL));
}

/* TensorInfo at args[i] -> tfl_index_tensor; 0 if malformed. */
static int read_tinfo(const tfl_kcall *c, int i, int wide, tfl_index_tensor *t)
{
    const unsigned char *b = c->args[i];
    memcpy(&t->data, b, sizeof(void *));
    int32_t dims;
    memcpy(&dims, b + (wide ? 408 : 208), 4);
    if (dims < 1 || dims > TFL_INDEX_MAX_DIMS)
        return 0;
    t->ndim = dims;
    for (int d = 0; d < dims; d++) {
        if (wide) {
            uint64_t s, st;
            memcpy(&s, b + 8 + 8 * d, 8);
            memcpy(&st, b + 208 + 8 * d, 8);
            t->sizes[d] = (int64_t)s;
            t->strides[d] = (int64_t)st;
        } else {
            uint32_t s, st;
            memcpy(&s, b + 8 + 4 * d, 4);
            memcpy(&st, b + 108 + 4 * d, 4);
            t->sizes[d] = s;
            t->strides[d] = st;
        }
        if (t->sizes[d] < 0 || t->strides[d] < 0)
            return 0;
    }
    return 1;
}

static tfl_status run_gather(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
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
    if (!range_ok(x->u.gather_rows.idx, n * isz) ||
        !range_ok(x->u.gather_rows.out, (n - 1) * x->u.gather_rows.out_stride + rb) ||
        (rows > 0 && !range_ok(x->u.gather_rows.in, (rows - 1) * x->u.gather_rows.in_stride + rb))) {
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
static tfl_status run_select(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                             int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const int add = k->kind == K_ADD_SMALL || k->kind == K_ADD_LARGE;
    const int large = k->kind == K_SELECT_LARGE || k->kind == K_ADD_LARGE;
    x->kind = TFL_INDEX_SELECT;
    x->elem_size = k->elem_size;
    x->index_dtype = k->index_dtype;
    x->dtype = add ? k->dtype : TFL_DT_U8;
    if (!read_tinfo(c, 0, k->wide, &x->u.select.dst) ||
        !read_tinfo(c, 1, k->wide, &x->u.select.src) ||
        !read_tinfo(c, 2, k->wide, &x->u.select.index))
        return TFL_ERR_UNSUPPORTED;
    x->u.select.dst_dim = ARG(c, 3, int32_t);
    x->u.select.src_dim = ARG(c, 4, int32_t);
    const int i_inner = large ? 6 : 5;
    int64_t inner = k->wide ? (int64_t)ARG(c, i_inner, uint64_t) : ARG(c, i_inner, uint32_t);
    x->u.select.index_bound = ARG(c, i_inner + 1, int64_t);
    x->u.select.index_dst = add;
    x->u.select.reduce = add ? TFL_INDEX_ADD : TFL_INDEX_ASSIGN;
    x->u.select.alpha = 1.0;
    if (add) {
        const int i_alpha = i_inner + 4;
        switch (k->dtype) {
        case TFL_DT_F32: x->u.select.alpha = ARG(c, i_alpha, float); break;
        case TFL_DT_F64: x->u.select.alpha = ARG(c, i_alpha, double); break;
        case TFL_DT_I32: x->u.select.alpha = ARG(c, i_alpha, int32_t); break;
        case TFL_DT_I64: x->u.select.alpha = (double)ARG(c, i_alpha, int64_t); break;
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
    if (!range_ok(dst->data, span_bytes(dst->ndim, dst->sizes, dst->strides, es)) ||
        !range_ok(src->data, span_bytes(src->ndim, src->sizes, src->strides, es)) ||
        !range_ok(ix->data, span_bytes(ix->ndim, ix->sizes, ix->strides,
                                       k->index_dtype == TFL_DT_I64 ? 8 : 4))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

static tfl_status run_cat(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                          tfl_index_cat_input *ins, int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *md = c->args[1];
    const unsigned char *os = c->args[2];
    const int B = k->batch, nin = (int)c->grid[1];
    if (nin < 1 || nin > B || c->grid[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    x->kind = TFL_INDEX_CAT;
    x->elem_size = k->variant == CAT_VECTORIZED ? (size_t)k->alignment : k->elem_size;
    x->u.cat.out = ARG(c, 0, void *);
    x->u.cat.ndim = k->dims;
    x->u.cat.dim = ARG(c, 3, int32_t);
    const int64_t arg4 = ARG(c, 4, uint32_t);   /* dimStride, or trailingSize */
    x->u.cat.dim_stride = k->variant == CAT_VECTORIZED ? 1 : arg4;
    if (x->u.cat.dim < 0 || x->u.cat.dim >= k->dims)
        return TFL_ERR_UNSUPPORTED;
    for (int d = 0; d < k->dims; d++) {
        uint32_t s, st;
        memcpy(&s, os + 4 * d, 4);
        memcpy(&st, os + 16 + 4 * d, 4);
        x->u.cat.out_sizes[d] = s;
        x->u.cat.out_strides[d] = st;
    }
    /* CatArrInputTensorMetadata<T, unsigned, B, S>: input[B], offset[B],
     * dimSize[B], nElements[B], isContiguous[B], tensorStride[S] (4-aligned) */
    const size_t o_off = 8 * (size_t)B, o_dim = o_off + 4 * (size_t)B,
                 o_nel = o_dim + 4 * (size_t)B, o_ctg = o_nel + 4 * (size_t)B,
                 o_str = (o_ctg + (size_t)B + 3) & ~(size_t)3;
    for (int i = 0; i < nin; i++) {
        tfl_index_cat_input *in = &ins[i];
        uint32_t off, dsz, nel;
        memcpy(&in->data, md + 8 * (size_t)i, 8);
        memcpy(&off, md + o_off + 4 * (size_t)i, 4);
        memcpy(&dsz, md + o_dim + 4 * (size_t)i, 4);
        memcpy(&nel, md + o_nel + 4 * (size_t)i, 4);
        in->offset = off;
        in->dim_size = dsz;
        in->numel = nel;
        in->contiguous = md[o_ctg + (size_t)i] != 0;
        if (k->variant == CAT_VECTORIZED) {
            const int64_t epv = k->elems_per_vec;
            if (!in->contiguous || nel % epv || (off * arg4) % epv || (dsz * arg4) % epv)
                return TFL_ERR_UNSUPPORTED;
            in->numel = nel / epv;
            in->offset = off * arg4 / epv;
            in->dim_size = dsz * arg4 / epv;
        }
        if (!in->contiguous) {
            if (k->stride_size == 1)
                return TFL_ERR_UNSUPPORTED;   /* no strides passed for it */
            const unsigned char *ts = md + o_str + 32 * (size_t)i;
            for (int d = 0; d < k->dims; d++) {
                uint32_t s, st;
                memcpy(&s, ts + 4 * d, 4);
                memcpy(&st, ts + 16 + 4 * d, 4);
                in->sizes[d] = s;
                in->strides[d] = st;
            }
        }
    }
    x->u.cat.n_inputs = nin;
    x->u.cat.inputs = ins;
    /* range checks: every input, and the output slab each one writes */
    const size_t es = x->elem_size;
    for (int i = 0; i < nin; i++) {
        const tfl_index_cat_input *in = &ins[i];
        if (in->numel == 0)
            continue;
        int64_t shape[TFL_INDEX_CAT_DIMS];
        for (int d = 0; d < k->dims; d++)
            shape[d] = d == x->u.cat.dim ? in->dim_size : x->u.cat.out_sizes[d];
        int64_t ib = in->contiguous ? in->numel * (int64_t)es
                                    : span_bytes(k->dims, shape, in->strides, es);
        int64_t ob = span_bytes(k->dims, shape, x->u.cat.out_strides, es);
        const char *ob0 = (const char *)x->u.cat.out + in->offset * x->u.cat.dim_stride * (int64_t)es;
        if (!range_ok(in->data, ib) || !range_ok(ob0, ob)) {
            snprintf(err, errlen, "cat: input %d or its output slab is not in device memory", i);
            return TFL_ERR_DEVICE;
        }
    }
    *route = 1;
    return TFL_OK;
}

/* OffsetCalculator<nargs, unsigned> = { int dims; IntDivider<unsigned>
 * sizes_[25] (divisor, m1, shift: 12 bytes); unsigned strides_[25][nargs]; }
 * (604 bytes for 3 operands, 504 for 2).  Operands past nargs get stride
 * 0.  0 if malformed. */
static int read_offcalc(const unsigned char *b, int nargs, tfl_index_iter *it)
{
    int32_t dims;
    memcpy(&dims, b, 4);
    if (dims < 0 || dims > TFL_INDEX_MAX_DIMS)
        return 0;
    it->ndim = dims;
    for (int d = 0; d < dims; d++) {
        uint32_t div;
        memcpy(&div, b + 4 + 12 * d, 4);
        it->sizes[d] = div;
        for (int a = 0; a < 3; a++) {
            uint32_t st = 0;
            if (a < nargs)
                memcpy(&st, b + 304 + 4 * nargs * d + 4 * a, 4);
            it->strides[a][d] = st;
        }
    }
    return 1;
}

static int64_t iter_count(const tfl_index_iter *it)
{
    int64_t n = 1;
    for (int d = 0; d < it->ndim; d++)
        n *= it->sizes[d];
    return n;
}

/* Bytes operand a spans over the iteration, elem bytes at the end. */
static int64_t iter_span(const tfl_index_iter *it, int a, int64_t elem)
{
    int64_t hi = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->sizes[d] == 0)
            return 0;
        hi += (it->sizes[d] - 1) * it->strides[a][d];
    }
    return hi + elem;
}

/* the lambda of _cuda_scatter_gather_internal_kernel (664 bytes), its
 * captures in first-use order: offset_calc @0, index_ptr @608,
 * index_size @616, f @624, self_ptr @632, index_stride @640, numel @648,
 * src_ptr @656 (read off a 2.11 launch) */
static tfl_status run_scatter_gather(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                                     int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    const int64_t N = ARG(c, 0, int32_t);
    x->kind = TFL_INDEX_SCATTER_GATHER;
    x->elem_size = k->elem_size;
    x->index_dtype = k->index_dtype;
    x->dtype = k->dtype == TFL_DT_COUNT ? TFL_DT_U8 : k->dtype;
    tfl_index_iter *itw = &x->u.scatter_gather.iter;
    if (!k->fill) {
        if (!read_offcalc(f, 3, itw))
            return TFL_ERR_UNSUPPORTED;
        memcpy(&x->u.scatter_gather.index, f + 608, 8);
        memcpy(&x->u.scatter_gather.index_size, f + 616, 8);
        memcpy(&x->u.scatter_gather.self, f + 632, 8);
        memcpy(&x->u.scatter_gather.index_stride, f + 640, 8);
        memcpy(&x->u.scatter_gather.src, f + 656, 8);
    } else {
        /* _cuda_scatter_fill_internal_kernel's lambda (560 bytes):
         * offset_calc<2> (self, index) @0, index_ptr @504, index_size @512,
         * f @520, self_ptr @528, index_stride @536, numel @544, value @552 */
        if (k->elem_size > 8 || !read_offcalc(f, 2, itw))
            return TFL_ERR_UNSUPPORTED;
        for (int d = 0; d < itw->ndim; d++) {   /* operands (self, index) -> (0, 2) */
            itw->strides[2][d] = itw->strides[1][d];
            itw->strides[1][d] = 0;
        }
        memcpy(&x->u.scatter_gather.index, f + 504, 8);
        memcpy(&x->u.scatter_gather.index_size, f + 512, 8);
        memcpy(&x->u.scatter_gather.self, f + 528, 8);
        memcpy(&x->u.scatter_gather.index_stride, f + 536, 8);
        memcpy(x->u.scatter_gather.value, f + 552, k->elem_size);
        x->u.scatter_gather.use_value = 1;
        x->u.scatter_gather.src = NULL;
    }
    x->u.scatter_gather.scatter = k->scatter;
    x->u.scatter_gather.reduce = k->reduce;
    const tfl_index_iter *it = &x->u.scatter_gather.iter;
    if (N < 0 || iter_count(it) != N || x->u.scatter_gather.index_size < 0 ||
        x->u.scatter_gather.index_stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size, isz = k->index_dtype == TFL_DT_I64 ? 8 : 4;
    /* the indexed operand may move by up to (index_size - 1) strides */
    const int64_t reach = x->u.scatter_gather.index_size > 0
        ? (x->u.scatter_gather.index_size - 1) * x->u.scatter_gather.index_stride * es : 0;
    const int64_t self_b = iter_span(it, 0, es) + (k->scatter ? reach : 0);
    const int64_t src_b = k->fill ? 0 : iter_span(it, 1, es) + (k->scatter ? 0 : reach);
    if (!range_ok(x->u.scatter_gather.self, self_b) || !range_ok(x->u.scatter_gather.src, src_b) ||
        !range_ok(x->u.scatter_gather.index, iter_span(it, 2, isz))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

/* the lambda of gpu_index_kernel (1240 bytes): offset_calc @0, out_ptr
 * @608, in_ptr @616, num_indices (int) @624, index_ptrs[25] @632,
 * sizes[25] @832, strides[25] (bytes) @1032, f @1232 (read off a 2.11
 * launch) */
static tfl_status run_advanced(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                               int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    const int64_t N = ARG(c, 0, int64_t);
    x->kind = TFL_INDEX_ADVANCED;
    x->elem_size = k->elem_size;
    x->index_dtype = TFL_DT_I64;
    if (!read_offcalc(f, 3, &x->u.advanced.iter))
        return TFL_ERR_UNSUPPORTED;
    int32_t ni;
    memcpy(&x->u.advanced.out, f + 608, 8);
    memcpy(&x->u.advanced.in, f + 616, 8);
    memcpy(&ni, f + 624, 4);
    if (ni < 0 || ni > TFL_INDEX_MAX_DIMS)
        return TFL_ERR_UNSUPPORTED;
    x->u.advanced.n_indices = ni;
    x->u.advanced.put = k->put;
    const tfl_index_iter *it = &x->u.advanced.iter;
    if (N < 0 || iter_count(it) != N)
        return TFL_ERR_UNSUPPORTED;
    int64_t reach = 0;
    for (int i = 0; i < ni; i++) {
        memcpy(&x->u.advanced.index_ptrs[i], f + 632 + 8 * i, 8);
        memcpy(&x->u.advanced.sizes[i], f + 832 + 8 * i, 8);
        memcpy(&x->u.advanced.strides[i], f + 1032 + 8 * i, 8);
        if (x->u.advanced.sizes[i] < 0 || x->u.advanced.strides[i] < 0)
            return TFL_ERR_UNSUPPORTED;
        if (x->u.advanced.sizes[i] > 0)
            reach += (x->u.advanced.sizes[i] - 1) * x->u.advanced.strides[i];
    }
    if (N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size;
    int ok = range_ok(x->u.advanced.out, iter_span(it, 0, es) + (k->put ? reach : 0)) &&
             range_ok(x->u.advanced.in, iter_span(it, 1, es) + (k->put ? 0 : reach));
    for (int i = 0; ok && i < ni; i++)
        ok = range_ok(x->u.advanced.index_ptrs[i], iter_span(it, 2, 8));
    if (!ok) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

static size_t dtype_size(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F64: case TFL_DT_I64: return 8;
    case TFL_DT_F32: case TFL_DT_I32: return 4;
    default: return 1;
    }
}

/* elementwise_kernel_with_index<int>(int N, lambda f, T *data); the
 * lambdas (read off 2.11 launches):
 *   arange   [xstart, xstep] of the accumulate type (int64 for integers,
 *            float for float32, double for float64)
 *   linspace [start, end (T), steps (int64), step (float for integers,
 *            else T), halfway (int64)], naturally aligned */
static tfl_status run_range(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    x->kind = TFL_INDEX_RANGE;
    x->dtype = k->dtype;
    x->elem_size = dtype_size(k->dtype);
    x->u.range.range_kind = k->kind == K_ARANGE ? TFL_INDEX_ARANGE : TFL_INDEX_LINSPACE;
    x->u.range.n = ARG(c, 0, int32_t);
    x->u.range.out = ARG(c, 2, void *);
    const int fl = k->dtype == TFL_DT_F32 || k->dtype == TFL_DT_F64;
    if (k->kind == K_ARANGE) {
        if (k->dtype == TFL_DT_F32) {
            float a, b;
            memcpy(&a, f, 4);
            memcpy(&b, f + 4, 4);
            x->u.range.start = a;
            x->u.range.step = b;
        } else if (k->dtype == TFL_DT_F64) {
            memcpy(&x->u.range.start, f, 8);
            memcpy(&x->u.range.step, f + 8, 8);
        } else {
            memcpy(&x->u.range.istart, f, 8);
            memcpy(&x->u.range.istep, f + 8, 8);
        }
    } else {
        const size_t ts = x->elem_size;
        const size_t o_steps = ts * 2 > 8 ? ts * 2 : 8;   /* 2 T, then int64 */
        const size_t ss = fl ? ts : 4;                     /* step's size */
        const size_t o_step = o_steps + 8;
        const size_t o_half = (o_step + ss + 7) & ~(size_t)7;
        memcpy(&x->u.range.steps, f + o_steps, 8);
        memcpy(&x->u.range.halfway, f + o_half, 8);
        if (k->dtype == TFL_DT_F32) {
            float a, b, s;
            memcpy(&a, f, 4);
            memcpy(&b, f + 4, 4);
            memcpy(&s, f + o_step, 4);
            x->u.range.start = a;
            x->u.range.end = b;
            x->u.range.step = s;
        } else if (k->dtype == TFL_DT_F64) {
            memcpy(&x->u.range.start, f, 8);
            memcpy(&x->u.range.end, f + 8, 8);
            memcpy(&x->u.range.step, f + o_step, 8);
        } else {
            float s;
            int64_t a = 0, b = 0;
            switch (k->dtype) {
            case TFL_DT_I64: memcpy(&a, f, 8); memcpy(&b, f + 8, 8); break;
            case TFL_DT_I32: { int32_t a4, b4; memcpy(&a4, f, 4); memcpy(&b4, f + 4, 4);
                               a = a4; b = b4; break; }
            case TFL_DT_I8:  a = (int8_t)f[0]; b = (int8_t)f[1]; break;
            default:         a = f[0]; b = f[1]; break;
            }
            memcpy(&s, f + o_step, 4);
            x->u.range.istart = a;
            x->u.range.iend = b;
            x->u.range.step = s;
        }
        if (x->u.range.steps != x->u.range.n)
            return TFL_ERR_UNSUPPORTED;
    }
    if (x->u.range.n < 0)
        return TFL_ERR_UNSUPPORTED;
    if (x->u.range.n == 0)
        return TFL_OK;
    if (!range_ok(x->u.range.out, x->u.range.n * (int64_t)x->elem_size)) {
        snprintf(err, errlen, "%s: the output is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const index_kernel *k = cookie;
    tfl_op op = { .kind = TFL_OP_INDEX, .name = op_name(cookie) };
    tfl_index_cat_input ins[128];
    tfl_status st;
    int route = 0;   /* set by a decoder when op is ready to run */
    switch (k->kind) {
    case K_GATHER:
        st = run_gather(c, k, &op, &route, err, errlen);
        break;
    case K_SELECT_SMALL:
    case K_SELECT_LARGE:
    case K_ADD_SMALL:
    case K_ADD_LARGE:
        st = run_select(c, k, &op, &route, err, errlen);
        break;
    case K_CAT:
        st = run_cat(c, k, &op, ins, &route, err, errlen);
        break;
    case K_SCATTER_GATHER:
        st = run_scatter_gather(c, k, &op, &route, err, errlen);
        break;
    case K_ADVANCED:
        st = run_advanced(c, k, &op, &route, err, errlen);
        break;
    case K_ARANGE:
    case K_LINSPACE:
        st = run_range(c, k, &op, &route, err, errlen);
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (st != TFL_OK || !route)
        return st;   /* refused, failed, or nothing to do */
    st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_index = {
    .name = "index",
    .match = match,
    .run = run,
    .op_name = op_name,
};

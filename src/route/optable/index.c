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

enum { K_GATHER = 1, K_SELECT_SMALL, K_SELECT_LARGE, K_CAT };
enum { CAT_PLAIN = 0, CAT_VECTORIZED = 1 };

typedef struct index_kernel {
    int kind;
    size_t elem_size;
    tfl_dtype index_dtype;
    int wide;                    /* IndexType is 64-bit */
    /* cat */
    int dims, batch, stride_size, variant, alignment, elems_per_vec;
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

static int match_select(const char *m, index_kernel *k)
{
    const char *p = strstr(m, "21indexSelectSmallIndexI");
    if (p) {
        k->kind = K_SELECT_SMALL;
        p += strlen("21indexSelectSmallIndexI");
    } else if ((p = strstr(m, "21indexSelectLargeIndexI"))) {
        k->kind = K_SELECT_LARGE;
        p += strlen("21indexSelectLargeIndexI");
    } else {
        return 0;
    }
    k->elem_size = mangled_size(&p);
    if (!k->elem_size)
        return 0;
    if (*p == 'i' || *p == 'l')
        k->index_dtype = *p == 'l' ? TFL_DT_I64 : TFL_DT_I32;
    else
        return 0;
    p++;
    if (*p != 'j' && *p != 'm')
        return 0;
    k->wide = *p == 'm';
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
    } else if (!match_select(m, &k) && !match_cat(m, &k)) {
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
                             char *err, size_t errlen)
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
    return TFL_OK + 100;   /* go on: route it */
}

static tfl_status run_select(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                             char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    x->kind = TFL_INDEX_SELECT;
    x->elem_size = k->elem_size;
    x->index_dtype = k->index_dtype;
    if (!read_tinfo(c, 0, k->wide, &x->u.select.dst) ||
        !read_tinfo(c, 1, k->wide, &x->u.select.src) ||
        !read_tinfo(c, 2, k->wide, &x->u.select.index))
        return TFL_ERR_UNSUPPORTED;
    x->u.select.dst_dim = ARG(c, 3, int32_t);
    x->u.select.src_dim = ARG(c, 4, int32_t);
    const int last = k->kind == K_SELECT_LARGE ? 7 : 6;
    int64_t inner = k->wide ? (int64_t)ARG(c, last - 1, uint64_t) : ARG(c, last - 1, uint32_t);
    x->u.select.src_dim_size = ARG(c, last, int64_t);
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
    /* dst's select dim was reduced to 1: it holds n_index entries. */
    if (dst->sizes[dd] != 1 || dinner != inner)
        return TFL_ERR_UNSUPPORTED;
    dst->sizes[dd] = n_index;
    src->sizes[sd] = x->u.select.src_dim_size;
    if (n_index == 0 || inner == 0)
        return TFL_OK;
    const size_t es = k->elem_size;
    if (!range_ok(dst->data, span_bytes(dst->ndim, dst->sizes, dst->strides, es)) ||
        !range_ok(src->data, span_bytes(src->ndim, src->sizes, src->strides, es)) ||
        !range_ok(ix->data, span_bytes(ix->ndim, ix->sizes, ix->strides,
                                       k->index_dtype == TFL_DT_I64 ? 8 : 4))) {
        snprintf(err, errlen, "index_select: an operand is not in device memory");
        return TFL_ERR_DEVICE;
    }
    return TFL_OK + 100;
}

static tfl_status run_cat(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                          tfl_index_cat_input *ins, char *err, size_t errlen)
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
    return TFL_OK + 100;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const index_kernel *k = cookie;
    tfl_op op = { .kind = TFL_OP_INDEX, .name = op_name(cookie) };
    tfl_index_cat_input ins[128];
    tfl_status st;
    switch (k->kind) {
    case K_GATHER:
        st = run_gather(c, k, &op, err, errlen);
        break;
    case K_SELECT_SMALL:
    case K_SELECT_LARGE:
        st = run_select(c, k, &op, err, errlen);
        break;
    case K_CAT:
        st = run_cat(c, k, &op, ins, err, errlen);
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (st != TFL_OK + 100)
        return st;
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

/*
 * index_cat.c - torch.cat: CatArrayBatchedCopy{,_contig,_alignedK_contig,
 * _vectorized} (inputs batched per launch, gridDim.y of them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"

/* CatArrayBatchedCopy{,_contig,_alignedK_contig,_vectorized}<T, IndexType,
 * Dims, BatchSize, StrideSize[, extra]>: T is OpaqueType<N> (cat moves
 * bytes), IndexType unsigned int; _alignedK_contig adds its load width K
 * (memory access only), _vectorized its alignment and elements per vector,
 * which the decoder uses. */
int idx_match_cat(const tfl_kname *n, index_kernel *k)
{
    static const struct { const char *base; int variant, ntargs; } bases[] = {
        { "CatArrayBatchedCopy", CAT_PLAIN, 5 },
        { "CatArrayBatchedCopy_contig", CAT_PLAIN, 5 },
        { "CatArrayBatchedCopy_alignedK_contig", CAT_PLAIN, 6 },
        { "CatArrayBatchedCopy_vectorized", CAT_VECTORIZED, 7 },
    };
    size_t i = 0;
    while (i < sizeof bases / sizeof bases[0] && !idx_plain_name(n, bases[i].base))
        i++;
    tfl_dtype dt;
    long long v[7];
    if (i == sizeof bases / sizeof bases[0] || n->ntargs != bases[i].ntargs ||
        !tfl_kname_targ_starts(n, 0, "OpaqueType<") || !(k->elem_size = idx_targ_size(n, 0, &dt)) ||
        !tfl_kname_targ_is(n, 1, "unsigned int"))
        return 0;
    for (int a = 2; a < n->ntargs; a++)
        if (!tfl_kname_targ_int(n, a, &v[a]))
            return 0;
    k->variant = bases[i].variant;
    k->dims = (int)v[2];
    k->batch = (int)v[3];
    k->stride_size = (int)v[4];
    if (k->variant == CAT_VECTORIZED) {
        k->alignment = (int)v[5];
        k->elems_per_vec = (int)v[6];
        if (k->alignment <= 0 || k->elems_per_vec <= 0)
            return 0;
    }
    if (k->dims < 1 || k->dims > TFL_INDEX_CAT_DIMS || k->batch < 1 || k->batch > 128 ||
        k->stride_size < 1 || k->stride_size > k->batch)
        return 0;
    k->kind = K_CAT;
    return 1;
}

/* (T *out, CatArrInputTensorMetadata<T, unsigned, B, S> by value,
 * TensorSizeStride<unsigned, 4> out sizes / strides (32 bytes), int
 * concatDim, unsigned dimStride or trailing size).  The metadata: input[B]
 * pointers, offset[B], dimSize[B], nElements[B] (unsigned), isContiguous[B]
 * (bool), tensorStride[S] (TensorSizeStride, 4-aligned), padded to 8. */
static size_t cat_meta_size(const index_kernel *k)
{
    const size_t B = (size_t)k->batch;
    size_t o_str = (8 * B + 12 * B + B + 3) & ~(size_t)3;
    return (o_str + 32 * (size_t)k->stride_size + 7) & ~(size_t)7;
}

int idx_layout_cat(const index_kernel *k, tfl_klayout *l)
{
    tfl_klayout_add(l, 8, 8);
    tfl_klayout_add(l, cat_meta_size(k), 8);
    return tfl_klayout_sig(l, "32:4 i i") == 0;
}

tfl_status idx_run_cat(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
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
                                    : idx_span_bytes(k->dims, shape, in->strides, es);
        int64_t ob = idx_span_bytes(k->dims, shape, x->u.cat.out_strides, es);
        const char *ob0 = (const char *)x->u.cat.out + in->offset * x->u.cat.dim_stride * (int64_t)es;
        if (!idx_range_ok(in->data, ib) || !idx_range_ok(ob0, ob)) {
            snprintf(err, errlen, "cat: input %d or its output slab is not in device memory", i);
            return TFL_ERR_INVALID;
        }
    }
    *route = 1;
    return TFL_OK;
}

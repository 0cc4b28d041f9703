/*
 * sort_select.c - the "sort" family's decoders for PyTorch's radix-select
 * kernels (Sorting.cu, TensorTopK.cu, TensorModeKernel.cu; torch 2.11 -
 * 2.15, sm_80 layouts from the cubins, unchanged across those releases):
 *
 *  gatherKthValue<T, index_t, Dim>(TensorInfo<const T, index_t> input,
 *    index_t sliceSize, index_t k, index_t numSlices, index_t stride,
 *    TensorInfo<T, index_t> values, TensorInfo<long, index_t> indices)
 *    index_t int: 664 bytes (TensorInfos of 216 @0, @232, @448; the four
 *    ints @216..228); index_t long: 1280 bytes (416-byte TensorInfos @0,
 *    @448, @864; longs @416..440).  torch.kthvalue.
 *  sbtopk::gatherTopK<T, IndexType, Dim, false>(TensorInfo<const T> input,
 *    sliceSize, k, bool largest, numSlices, stride, TensorInfo<T> topK,
 *    topKStride, TensorInfo<long> indices, indicesStride, T *kthValues)
 *    IndexType unsigned int: 696 bytes (input @0, ints @216 220, bool
 *    @224, ints @228 232, topK @240, @456, indices @464, @680, ptr @688).
 *    torch.topk (single-block path); entries beyond the k-th in slice
 *    order, then ties with it in slice order (the CUDA, non-ROCm,
 *    prefix-scan version).  WithKthValues = true (multi-block topk) is
 *    not decoded.
 *  mbtopk::gatherTopK<T, IndexType, Dim>(the same ten parameters - but
 *    numSlices always uint32 - then items_per_thread, blocks_per_slice,
 *    T *kthValues, uint32 *withinKCounts, uint32 *kthCounts, num_blocks):
 *    the multi-block path's last launch, with the same output order (the
 *    blocks' prefix counts keep slice order).  It is run as the whole
 *    selection; the launches before it (mbtopk::fill,
 *    computeBlockDigitCounts, computeDigitCumSum,
 *    computeBlockwiseWithinKCounts/KthCounts, cub scan-by-key keyed by
 *    BlockIdxToKey) only feed it temporaries and are no-ops.
 *  gatherMedian<T, index_t, Dim>(TensorInfo<T> values, TensorInfo<long>
 *    indices, TensorInfo<const T> input, index_t sliceSize, index_t
 *    numSlices, index_t stride, bool ignore_nan), index_t unsigned int
 *    (661 bytes) or unsigned long (1273).  torch.median / nanmedian with
 *    a dim.
 * TensorInfo<T, index_t>: data @0, sizes[25] @8, strides[25] after them,
 * dims last (int).  Each block takes slice IndexToOffset<Dim>(blockId) of
 * every tensor (the selected dimension has size 1 there); radixSelect's
 * order is TopKTypeConfig's (-0.0 before +0.0, NaN largest).  kthvalue's
 * index is the smallest matching one (atomicMin); median's is whichever
 * thread's first match lands last on a GPU, the smallest here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/pt_abi.h"
#include "route/optable/sort_internal.h"

static int read_view(const tfl_kcall *c, int i, int wide, tfl_sort_view *v)
{
    const unsigned char *b = c->args[i];
    const size_t is = wide ? 8 : 4, dims_at = 8 + 2 * 25 * is;
    memcpy(&v->data, b, sizeof(void *));
    int32_t nd;
    memcpy(&nd, b + dims_at, 4);
    if (nd < 1 || nd > TFL_SORT_MAX_DIMS)
        return 0;
    v->ndim = nd;
    for (int d = 0; d < nd; d++) {
        if (wide) {
            int64_t s, st;
            memcpy(&s, b + 8 + 8 * d, 8);
            memcpy(&st, b + 8 + 200 + 8 * d, 8);
            v->sizes[d] = s;
            v->strides[d] = st;
        } else {
            uint32_t s, st;
            memcpy(&s, b + 8 + 4 * d, 4);
            memcpy(&st, b + 108 + 4 * d, 4);
            v->sizes[d] = s;
            v->strides[d] = st;
        }
        if (v->sizes[d] < 0 || v->strides[d] < 0)
            return 0;
    }
    return 1;
}

static int64_t rd_index(const tfl_kcall *c, int i, int wide)
{
    return wide ? TFL_KARG(c, int64_t, i) : (int64_t)TFL_KARG(c, uint32_t, i);
}

/* highest element any slice start reaches (IndexToOffset; the slice dim
 * has size 1) */
static int64_t view_span(const tfl_sort_view *v)
{
    int64_t m = 0;
    for (int d = 0; d < v->ndim; d++)
        if (v->sizes[d] > 0)
            m += (v->sizes[d] - 1) * v->strides[d];
    return m;
}

/* how far past its slice start a topk output reaches */
static int64_t out_reach(const tfl_sort_op *s, int64_t stride)
{
    return s->u.select.mode == TFL_SELECT_TOPK && s->u.select.k > 0 ? (s->u.select.k - 1) * stride : 0;
}

/* TensorInfo<T, index> as a signature token: 216 bytes for 32-bit
 * indices, 416 for 64-bit (8-aligned). */
static const char *tinfo(int wide)
{
    return wide ? "416:8" : "216:8";
}

/* An unsigned index template argument: 0 uint32, 1 uint64, -1 neither. */
static int index_wide(const tfl_kname *kn, int i)
{
    return tfl_kname_targ_is(kn, i, "unsigned int") ? 0 : tfl_kname_targ_is(kn, i, "unsigned long") ? 1 : -1;
}

/* The multi-block topk's helper launches: every one before the final
 * gather only computes the k-th value per slice into temporaries (and a
 * cub scan-by-key sums per-block counts keyed by BlockIdxToKey); the
 * gather recomputes it, so they are no-ops.  Their parameters:
 *   fill<T, I>(T*, T value, I n)                                   T, I uint
 *   computeDigitCumSum(short *counts, uint *digit_cum_sum, uint blocks_per_slice)
 *   computeBlockDigitCounts<T, I, Bitwise, Dim>(TensorInfo<const T, I>, uint
 *     slice_size, uint *ks_to_find, uint num_slices, I within_slice_stride,
 *     int current_bit, int items_per_thread, uint blocks_per_slice, Bitwise
 *     desired_mask, Bitwise *desires, short *counts)
 *   computeBlockwiseWithinKCounts<Bitwise, T>(Bitwise *desires, short
 *     *counts, uint *kthCounts, uint *ks_to_find, uint blocks_per_slice,
 *     int current_bit, bool largest, uint *withinKCounts, T *kthValues,
 *     uint *ks_to_find_out, Bitwise *desires_out, uint num_blocks)
 *   computeBlockwiseKthCounts<Bitwise>(Bitwise *desires, short *counts,
 *     uint num_blocks, uint blocks_per_slice, uint *kthCounts)
 *   cub DeviceScanByKeyKernel / InitKernel keyed by
 *     transform_iterator<BlockIdxToKey, counting_iterator<uint>> (8 bytes). */
static int match_mb_noop(const tfl_kname *kn, sort_kernel *k)
{
    int ok;
    if (tfl_kname_qualified(kn, "mbtopk::fill")) {
        ok = kn->ntargs == 2 && tfl_kname_targ_is(kn, 0, "unsigned int") &&
             tfl_kname_targ_is(kn, 1, "unsigned int") && sort_sig(k, "p i i");
    } else if (tfl_kname_qualified(kn, "mbtopk::computeDigitCumSum")) {
        ok = kn->nparams == 3 && sort_sig(k, "p p i");
    } else if (tfl_kname_qualified(kn, "mbtopk::computeBlockDigitCounts")) {
        /* <T, I, Bitwise, Dim> */
        tfl_sort_key key;
        long long dims;
        int w = index_wide(kn, 1), bw = index_wide(kn, 2);
        ok = kn->ntargs == 4 && sort_targ_key(kn, 0, &key) && w >= 0 && bw >= 0 &&
             tfl_kname_targ_int(kn, 3, &dims) &&
             kn->nparams == 11 && sort_sig(k, "%s i p i %c i i i %c p p", tinfo(w), w ? 'l' : 'i',
                                           bw ? 'l' : 'i');
    } else if (tfl_kname_qualified(kn, "mbtopk::computeBlockwiseWithinKCounts")) {
        ok = kn->nparams == 12 && sort_sig(k, "p x3 i i b p x3 i");
    } else if (tfl_kname_qualified(kn, "mbtopk::computeBlockwiseKthCounts")) {
        ok = kn->nparams == 5 && sort_sig(k, "p p i i p");
    } else if (tfl_kname_qualified(kn, "cub::detail::scan_by_key::DeviceScanByKeyKernel") &&
               sort_targ_starts(kn, 1, "thrust::transform_iterator<mbtopk::BlockIdxToKey,")) {
        /* (keys, keys_prev, values, out, state, int start_tile, eq, plus,
         *  NullType, ull num_items) */
        ok = kn->ntargs == 11 && kn->nparams == 10 && tfl_kname_targ_is(kn, 8, "unsigned long long") &&
             sort_sig(k, "8:4 p p p p i b b b l");
    } else if (tfl_kname_qualified(kn, "cub::detail::scan_by_key::DeviceScanByKeyInitKernel") &&
               sort_targ_starts(kn, 1, "thrust::transform_iterator<mbtopk::BlockIdxToKey,")) {
        /* (state, keys, uint *keys_prev, ull items_per_tile, int num_tiles) */
        ok = kn->ntargs == 3 && kn->nparams == 5 && tfl_kname_targ_is(kn, 2, "unsigned long long") &&
             sort_sig(k, "p 8:4 p l i");
    } else {
        return 0;
    }
    if (!ok)
        return 0;
    k->kind = SK_NOOP;
    k->name = "topk_counts";
    return 1;
}

int sort_match_select(const tfl_kname *kn, sort_kernel *k)
{
    int kind;
    if (match_mb_noop(kn, k))
        return 1;
    if (tfl_kname_is(kn, "compute_mode")) {
        /* TensorModeKernel.cu compute_mode<T, unsigned size>: one block
         * per slice of a contiguous input (slices of <= 2048 items);
         * (const T *input, TensorInfo<T, uint> values, TensorInfo<long,
         * uint> indices, int64 slice_size, int64 slices) */
        long long size;
        if (kn->ntargs != 2 || kn->nparams != 5 || !sort_targ_key(kn, 0, &k->key) ||
            !tfl_kname_targ_int(kn, 1, &size))
            return 0;
        k->kind = SK_MODE;
        k->offset_size = 4;
        k->key_dims = -1;
        k->name = "mode";
        return sort_sig(k, "p 216:8 216:8 l l");
    }
    if (tfl_kname_qualified(kn, "mbtopk::gatherTopK"))
        kind = SK_TOPK_MB;
    else if (tfl_kname_qualified(kn, "sbtopk::gatherTopK"))
        kind = SK_TOPK;
    else if (tfl_kname_is(kn, "gatherKthValue"))
        kind = SK_KTHVALUE;
    else if (tfl_kname_is(kn, "gatherMedian"))
        kind = SK_MEDIAN;
    else
        return 0;
    /* <T, index_t, Dim[, WithKthValues (sbtopk)]> */
    long long dims;
    if (kn->ntargs != (kind == SK_TOPK ? 4 : 3) || !sort_targ_key(kn, 0, &k->key) ||
        !sort_targ_int_size(kn, 1, &k->offset_size) || !tfl_kname_targ_int(kn, 2, &dims) ||
        dims == 0 || dims < -1 || dims > TFL_SORT_MAX_DIMS)
        return 0;
    /* WithKthValues (the multi-block path's precomputed k-th values) is
     * not decoded */
    if (kind == SK_TOPK && !tfl_kname_targ_is(kn, 3, "false"))
        return 0;
    k->key_dims = (int)dims;
    k->kind = kind;
    k->name = kind == SK_KTHVALUE ? "kthvalue" : kind == SK_MEDIAN ? "median" : "topk";
    const int w = k->offset_size == 8;
    const char *ti = tinfo(w), i = w ? 'l' : 'i';
    switch (kind) {
    case SK_KTHVALUE:   /* (input, sliceSize, k, numSlices, stride, values, indices) */
        return kn->nparams == 7 && sort_sig(k, "%s %c x3 %s %s", ti, i, ti, ti);
    case SK_MEDIAN:     /* (values, indices, input, sliceSize, numSlices, stride, bool) */
        return kn->nparams == 7 && sort_sig(k, "%s x2 %c x2 b", ti, i);
    case SK_TOPK:       /* (input, sliceSize, k, bool largest, numSlices, stride, topK,
                         *  topKStride, indices, indicesStride, T *kthValues) */
        return kn->nparams == 11 && sort_sig(k, "%s %c %c b %c %c %s %c %s %c p", ti, i, i, i, i, ti, i, ti, i);
    default:            /* mbtopk: the same ten with numSlices uint32, then
                         * items_per_thread, blocks_per_slice, T *kthValues,
                         * uint *withinKCounts, uint *kthCounts, uint num_blocks */
        return kn->nparams == 16 &&
               sort_sig(k, "%s %c %c b i %c %s %c %s %c i i p p p i", ti, i, i, i, ti, i, ti, i);
    }
}

tfl_status sort_run_select(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                           char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    const int wide = k->offset_size == 8;
    s->kind = TFL_SORT_SELECT;
    s->key = k->key;
    int ok;
    if (k->kind == SK_KTHVALUE) {
        s->u.select.mode = TFL_SELECT_KTH;
        ok = read_view(c, 0, wide, &s->u.select.in) && read_view(c, 5, wide, &s->u.select.values) &&
             read_view(c, 6, wide, &s->u.select.indices);
        s->u.select.slice_len = rd_index(c, 1, wide);
        s->u.select.k = rd_index(c, 2, wide);
        s->u.select.slices = rd_index(c, 3, wide);
        s->u.select.stride = rd_index(c, 4, wide);
    } else if (k->kind == SK_TOPK || k->kind == SK_TOPK_MB) {
        /* (input, sliceSize, k, bool largest, numSlices, stride, topK,
         *  topKStride, indices, indicesStride, kthValues (unused here)) */
        s->u.select.mode = TFL_SELECT_TOPK;
        ok = read_view(c, 0, wide, &s->u.select.in) && read_view(c, 6, wide, &s->u.select.values) &&
             read_view(c, 8, wide, &s->u.select.indices);
        s->u.select.slice_len = rd_index(c, 1, wide);
        s->u.select.k = rd_index(c, 2, wide);
        s->u.select.largest = *(const uint8_t *)c->args[3] != 0;
        /* the multi-block kernel's slice count is a uint32 whatever IndexType */
        s->u.select.slices = k->kind == SK_TOPK_MB ? (int64_t)TFL_KARG(c, uint32_t, 4) : rd_index(c, 4, wide);
        s->u.select.stride = rd_index(c, 5, wide);
        s->u.select.out_stride = rd_index(c, 7, wide);
        s->u.select.index_stride = rd_index(c, 9, wide);
        if (s->u.select.out_stride < 0 || s->u.select.index_stride < 0 || s->u.select.k < 0 ||
            s->u.select.k > s->u.select.slice_len)
            return TFL_ERR_UNSUPPORTED;
    } else if (k->kind == SK_MODE) {
        /* (const T *input, TensorInfo<T, uint> values, TensorInfo<long,
         *  uint> indices, int64 sliceSize, int64 slices): 456 bytes; the
         * input is contiguous, slice s at s * sliceSize */
        s->u.select.mode = TFL_SELECT_MODE;
        ok = read_view(c, 1, 0, &s->u.select.values) && read_view(c, 2, 0, &s->u.select.indices);
        s->u.select.slice_len = TFL_KARG(c, int64_t, 3);
        s->u.select.slices = TFL_KARG(c, int64_t, 4);
        s->u.select.stride = 1;
        memset(&s->u.select.in, 0, sizeof s->u.select.in);
        s->u.select.in.data = TFL_KARG(c, void *, 0);
        s->u.select.in.ndim = 1;
        s->u.select.in.sizes[0] = s->u.select.slices;
        s->u.select.in.strides[0] = s->u.select.slice_len;
    } else {
        s->u.select.mode = TFL_SELECT_MEDIAN;
        ok = read_view(c, 0, wide, &s->u.select.values) && read_view(c, 1, wide, &s->u.select.indices) &&
             read_view(c, 2, wide, &s->u.select.in);
        s->u.select.slice_len = rd_index(c, 3, wide);
        s->u.select.slices = rd_index(c, 4, wide);
        s->u.select.stride = rd_index(c, 5, wide);
        s->u.select.ignore_nan = *(const uint8_t *)c->args[6] != 0;
    }
    if (!ok || s->u.select.slice_len < 0 || s->u.select.slices < 0 || s->u.select.stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (k->key_dims > 0 && (s->u.select.in.ndim != k->key_dims || s->u.select.values.ndim != k->key_dims ||
                            s->u.select.indices.ndim != k->key_dims))
        return TFL_ERR_UNSUPPORTED;
    const int64_t S = s->u.select.slices, n = s->u.select.slice_len;
    if (S == 0 || n == 0)
        return TFL_OK;
    if (k->kind == SK_KTHVALUE && (s->u.select.k < 1 || s->u.select.k > n))
        return TFL_ERR_UNSUPPORTED;
    const size_t ks = tfl_sort_key_size(k->key);
    if (!tfl_kdev_ok(s->u.select.in.data, (size_t)(view_span(&s->u.select.in) + (n - 1) * s->u.select.stride + 1) * ks) ||
        !tfl_kdev_ok(s->u.select.values.data, (size_t)(view_span(&s->u.select.values) + 1 +
                                                       out_reach(s, s->u.select.out_stride)) * ks) ||
        !tfl_kdev_ok(s->u.select.indices.data, (size_t)(view_span(&s->u.select.indices) + 1 +
                                                        out_reach(s, s->u.select.index_stride)) * 8)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", k->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

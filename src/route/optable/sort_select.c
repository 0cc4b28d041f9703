/*
 * sort_select.c - the "sort" family's decoders for PyTorch's radix-select
 * kernels (Sorting.cu, torch 2.11.0+cu130, sm_80 layouts from the cubins):
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

int sort_match_select(const char *d, sort_kernel *k)
{
    const char *p;
    int kind;
    /* multi-block topk: every launch before the final gather only
     * computes the k-th value per slice into temporaries (and cub
     * scan-by-key sums of per-block counts keyed by BlockIdxToKey); the
     * gather recomputes it, so they are no-ops */
    static const char *const mb_noops[] = {
        "at::native::mbtopk::fill<", "at::native::mbtopk::computeBlockDigitCounts<",
        "at::native::mbtopk::computeDigitCumSum(", "at::native::mbtopk::computeBlockwiseWithinKCounts<",
        "at::native::mbtopk::computeBlockwiseKthCounts<",
    };
    for (size_t i = 0; i < sizeof mb_noops / sizeof mb_noops[0]; i++)
        if (strstr(d, mb_noops[i])) {
            k->kind = SK_NOOP;
            k->name = "topk_counts";
            return 1;
        }
    if (strstr(d, "at_cuda_detail::cub::detail::scan_by_key::DeviceScanByKey") &&
        strstr(d, "at::native::mbtopk::BlockIdxToKey")) {
        k->kind = SK_NOOP;
        k->name = "topk_counts";
        return 1;
    }
    if ((p = strstr(d, "at::native::compute_mode<"))) {
        /* TensorModeKernel.cu compute_mode<T, unsigned size>: one block
         * per slice of a contiguous input (slices of <= 2048 items) */
        p = strchr(p, '<');
        const char *ms[3];
        size_t ml[3];
        if (tfl_pt_template_args(p, ms, ml, 3) != 2 || !sort_key_type(ms[0], ml[0], &k->key))
            return 0;
        k->kind = SK_MODE;
        k->offset_size = 4;
        k->key_dims = -1;
        k->name = "mode";
        return 1;
    }
    if ((p = strstr(d, "at::native::mbtopk::gatherTopK<")))
        kind = SK_TOPK_MB;
    else if ((p = strstr(d, "at::native::sbtopk::gatherTopK<")))
        kind = SK_TOPK;
    else if ((p = strstr(d, "at::native::(anonymous namespace)::gatherKthValue<")))
        kind = SK_KTHVALUE;
    else if ((p = strstr(d, "at::native::(anonymous namespace)::gatherMedian<")))
        kind = SK_MEDIAN;
    else
        return 0;
    p = strchr(p, '<');
    const char *as[5];
    size_t al[5];
    const int n = tfl_pt_template_args(p, as, al, 5);
    if (n != (kind == SK_TOPK ? 4 : 3) || !sort_key_type(as[0], al[0], &k->key))
        return 0;
    /* WithKthValues (the multi-block path's precomputed k-th values) is
     * not decoded */
    if (kind == SK_TOPK && !sort_arg_is(as[3], al[3], "false"))
        return 0;
    if (sort_arg_is(as[1], al[1], "int") || sort_arg_is(as[1], al[1], "unsigned int"))
        k->offset_size = 4;
    else if (sort_arg_is(as[1], al[1], "long") || sort_arg_is(as[1], al[1], "unsigned long"))
        k->offset_size = 8;
    else
        return 0;
    char buf[8];
    if (al[2] >= sizeof buf)
        return 0;
    memcpy(buf, as[2], al[2]);
    buf[al[2]] = 0;
    k->key_dims = (int)strtol(buf, NULL, 10);
    if (k->key_dims == 0 || k->key_dims < -1)
        return 0;
    k->kind = kind;
    k->name = kind == SK_KTHVALUE ? "kthvalue" : kind == SK_MEDIAN ? "median" : "topk";
    if (kind == SK_TOPK_MB)
        k->kind = SK_TOPK_MB;
    return 1;
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
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

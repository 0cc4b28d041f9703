/*
 * sort_inplace.c - the "sort" family's decoders for PyTorch's own sort
 * kernels (torch 2.11 - 2.15, sm_80 layouts from the cubins, unchanged
 * across those releases; 2.13 dropped the 16x2 and 32x4 radix in-place
 * instances, and the uint64-indexed TensorInfo forms are not decoded):
 *
 *  bitonicSortKVInPlace<KeyDims, -1, 16, 16, K, long, LTOp|GTOp<K,true>, uint>
 *  radixSortKVInPlace<KeyDims, -1, block, items, K, long, uint>     (453 bytes)
 *    (TensorInfo<K,uint> keys @0 (216), uint keySlices @216,
 *     uint keySliceSize @220, uint keySliceStride @224,
 *     TensorInfo<long,uint> values @232 (216), uint valueSliceStride @448,
 *     comparator (1 byte, empty) | bool descending @452)
 *  warpMergeSortKVInPlace<KeyDims, -1, 128, 16, K, long, LTOp|GTOp<K,true>,
 *    uint, WARP_SIZE> (torch 2.14+; SortUtils.cuh): bitonic's parameters
 *    and a trailing K invalid_key (the padding of short slices, sorted
 *    last); a stable sort with bitonic's comparator.
 *    Each slice (TensorInfo's IndexToOffset of the slice number; KeyDims
 *    -2 means the slice number itself) is sorted in place, the int64 index
 *    moving with its key.  Bitonic (slices <= 32, not stable=True) compares
 *    with NaN as the largest value; the radix one orders by cub's radix
 *    order (-0.0 == +0.0).  The bitonic sort is not stable on a GPU; a
 *    stable result is one it may give.
 *
 *  SortStable.cu: fill_reverse_indices_kernel(long*, int, IntDivider<uint>)
 *    and fill_index_and_segment_kernel(int2*, int, IntDivider<uint>) (24
 *    bytes: data @0, numel @8, divisor @12); sort_postprocess_kernel<T>(
 *    const T*, T*, long*, const int2*, int nsegments, int nsort) (40 bytes).
 *
 *  Randperm.cuh: randperm_handle_duplicate_keys_kernel<T, OpaqueType<N>>(
 *    T *keys, OpaqueType<N> *data, T mask, int n, PhiloxCudaState) - int
 *    keys: mask @16, n @20, state @24; long keys: mask @16, n @24, state @32.
 *    PhiloxCudaState (32 bytes): seed @0 and offset @8, values or (when
 *    captured @24) pointers, offset_intragraph @16.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/pt_abi.h"
#include "route/optable/sort_internal.h"

#define ARG(c, i, T) TFL_KARG(c, T, i)

/* bitonicSortKVInPlace<KeyDims, ValueDims, block, items, K, long, Cmp, uint>
 * radixSortKVInPlace<KeyDims, ValueDims, block, items, K, long, uint>: the
 * block / items constants only shape the launch. */
static int match_kv(const tfl_kname *kn, sort_kernel *k)
{
    int bitonic, warp = 0;
    long long warp_size;
    if (tfl_kname_is(kn, "bitonicSortKVInPlace"))
        bitonic = 1;
    else if (tfl_kname_is(kn, "radixSortKVInPlace"))
        bitonic = 0;
    else if (tfl_kname_is(kn, "warpMergeSortKVInPlace"))
        bitonic = warp = 1;         /* its comparator is bitonic's; + WARP_SIZE */
    else
        return 0;
    const int n = kn->ntargs - warp;
    long long kd, vd, block, items;
    if (warp && (!tfl_kname_targ_int(kn, n, &warp_size) || kn->nparams != 8))
        return 0;
    if (n != (bitonic ? 8 : 7) || kn->nparams != 7 + warp || !tfl_kname_targ_int(kn, 0, &kd) ||
        !tfl_kname_targ_int(kn, 1, &vd) || vd != -1 || (kd != -2 && kd != -1 && kd < 1) ||
        !tfl_kname_targ_int(kn, 2, &block) || !tfl_kname_targ_int(kn, 3, &items))
        return 0;
    if (!sort_targ_key(kn, 4, &k->key) || !tfl_kname_targ_is(kn, 5, "long") ||
        !tfl_kname_targ_is(kn, n - 1, "unsigned int"))
        return 0;
    k->value_size = 8;
    k->key_dims = (int)kd;
    if (bitonic) {
        if (tfl_kname_targ_starts(kn, 6, "GTOp<"))
            k->descending = 1;
        else if (tfl_kname_targ_starts(kn, 6, "LTOp<"))
            k->descending = 0;
        else
            return 0;
        k->kind = warp ? SK_WARP_MERGE : SK_BITONIC;
        k->name = warp ? "sort_warp_merge" : "sort_bitonic";
    } else {
        k->descending = -1;
        k->kind = SK_RADIX_INPLACE;
        k->name = "sort_radix_inplace";
    }
    /* (TensorInfo keys, uint slices, slice size, stride, TensorInfo values,
     *  uint value stride, comparator (empty) | bool descending[, K
     *  invalid_key: the warp merge sort's padding, not read]) */
    static const char tok[9] = { 0, 'b', 'h', 0, 'i', 0, 0, 0, 'l' };
    if (warp)
        return sort_sig(k, "216:8 i i i 216:8 i b %c", tok[tfl_sort_key_size(k->key)]);
    return sort_sig(k, "216:8 i i i 216:8 i b");
}

int sort_match_pytorch(const tfl_kname *kn, sort_kernel *k)
{
    if (match_kv(kn, k))
        return 1;
    static const char divider[] = "at::cuda::detail::IntDivider<unsigned int>";
    if ((tfl_kname_is(kn, "fill_reverse_indices_kernel") && tfl_kname_param_is(kn, 0, "long*")) ||
        (tfl_kname_is(kn, "fill_index_and_segment_kernel") && tfl_kname_param_is(kn, 0, "int2*"))) {
        if (kn->ntargs || kn->nparams != 3 || !tfl_kname_param_is(kn, 1, "int") ||
            !tfl_kname_param_is(kn, 2, divider))
            return 0;
        k->kind = kn->param[0][0] == 'l' ? SK_FILL_REVERSE : SK_FILL_SEGMENT;
        k->name = "sort_fill_index";
        return sort_sig(k, "p i 12:4");         /* IntDivider<uint>: 3 uints */
    }
    if (tfl_kname_is(kn, "sort_postprocess_kernel")) {
        if (kn->ntargs != 1 || kn->nparams != 6 ||
            !sort_value_size(kn->targ[0], kn->targ_len[0], &k->value_size) || !k->value_size)
            return 0;
        k->kind = SK_POSTPROCESS;
        k->name = "sort_gather";
        return sort_sig(k, "p p p p i i");
    }
    if (tfl_kname_is(kn, "randperm_handle_duplicate_keys_kernel")) {
        if (kn->ntargs != 2 || kn->nparams != 5 ||
            !sort_value_size(kn->targ[1], kn->targ_len[1], &k->value_size) || !k->value_size)
            return 0;
        if (tfl_kname_targ_is(kn, 0, "int"))
            k->key = TFL_SORT_KEY_I32;
        else if (tfl_kname_targ_is(kn, 0, "long"))
            k->key = TFL_SORT_KEY_I64;
        else
            return 0;
        k->kind = SK_RANDPERM_TIES;
        k->name = "randperm_ties";
        /* (T *keys, OpaqueType<N> *data, T mask, int n, PhiloxCudaState) */
        return sort_sig(k, "p p %c i 32:8", k->key == TFL_SORT_KEY_I64 ? 'l' : 'i');
    }
    return 0;
}

/* TensorInfo<T, unsigned int> (216 bytes): data @0, sizes[25] @8,
 * strides[25] @108, dims @208. */
static int read_tinfo(const tfl_kcall *c, int i, void **data, int *dims, int64_t *sizes,
                      int64_t *strides)
{
    const unsigned char *b = c->args[i];
    memcpy(data, b, sizeof(void *));
    int32_t nd;
    memcpy(&nd, b + 208, 4);
    if (nd < 1 || nd > TFL_SORT_MAX_DIMS)
        return 0;
    *dims = nd;
    for (int d = 0; d < nd; d++) {
        uint32_t s, st;
        memcpy(&s, b + 8 + 4 * d, 4);
        memcpy(&st, b + 108 + 4 * d, 4);
        sizes[d] = s;
        strides[d] = st;
    }
    return 1;
}

/* Highest element offset any slice start reaches (IndexToOffset). */
static int64_t max_start(int64_t slices, int ndim, const int64_t *sizes, const int64_t *strides)
{
    if (ndim == 0)
        return slices - 1;
    int64_t m = 0;
    for (int d = 0; d < ndim; d++)
        if (sizes[d] > 0)
            m += (sizes[d] - 1) * strides[d];
    return m;
}

static tfl_status run_kv(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                         char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    s->kind = TFL_SORT_SLICES;
    s->key = k->key;
    s->value_size = 8;
    int desc = k->descending;
    if (desc < 0)
        desc = *(const uint8_t *)c->args[6] != 0;
    s->flags = (desc ? TFL_SORT_DESCENDING : 0) |
               (k->kind == SK_BITONIC || k->kind == SK_WARP_MERGE ? TFL_SORT_NAN_EQUAL : 0);
    if (!read_tinfo(c, 0, &s->u.slices.keys, &s->u.slices.key_ndim, s->u.slices.key_sizes,
                    s->u.slices.key_strides) ||
        !read_tinfo(c, 4, &s->u.slices.values, &s->u.slices.value_ndim, s->u.slices.value_sizes,
                    s->u.slices.value_strides))
        return TFL_ERR_UNSUPPORTED;
    if (k->key_dims == -2)
        s->u.slices.key_ndim = 0;       /* IndexToOffset<-2>: the slice number */
    else if (k->key_dims > 0 && k->key_dims != s->u.slices.key_ndim)
        return TFL_ERR_UNSUPPORTED;
    s->u.slices.slices = ARG(c, 1, uint32_t);
    s->u.slices.slice_len = ARG(c, 2, uint32_t);
    s->u.slices.key_stride = ARG(c, 3, uint32_t);
    s->u.slices.value_stride = ARG(c, 5, uint32_t);
    const int64_t S = s->u.slices.slices, n = s->u.slices.slice_len;
    if (S == 0 || n <= 1)
        return TFL_OK;
    const int64_t ks = (int64_t)tfl_sort_key_size(k->key);
    const int64_t kmax = max_start(S, s->u.slices.key_ndim, s->u.slices.key_sizes,
                                   s->u.slices.key_strides) + (n - 1) * s->u.slices.key_stride;
    const int64_t vmax = max_start(S, s->u.slices.value_ndim, s->u.slices.value_sizes,
                                   s->u.slices.value_strides) + (n - 1) * s->u.slices.value_stride;
    if (!tfl_kdev_ok(s->u.slices.keys, (size_t)((kmax + 1) * ks)) ||
        !tfl_kdev_ok(s->u.slices.values, (size_t)((vmax + 1) * 8))) {
        snprintf(err, errlen, "%s: keys or indices are not in device memory", k->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

static tfl_status run_fill(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                           char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    s->kind = TFL_SORT_FILL_INDEX;
    s->u.fill.out = ARG(c, 0, void *);
    s->u.fill.n = ARG(c, 1, int32_t);
    s->u.fill.nsort = TFL_KARG_AT(c, uint32_t, 2, 0);  /* IntDivider's divisor */
    s->u.fill.pairs = k->kind == SK_FILL_SEGMENT;
    if (s->u.fill.n <= 0)
        return TFL_OK;
    if (s->u.fill.nsort == 0)
        return TFL_ERR_UNSUPPORTED;
    if (!tfl_kdev_ok(s->u.fill.out, (size_t)s->u.fill.n * 8)) {
        snprintf(err, errlen, "%s: output is not in device memory", k->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

static tfl_status run_postprocess(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                                  char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    s->kind = TFL_SORT_GATHER_PAIRS;
    s->value_size = k->value_size;
    s->u.gather.in = ARG(c, 0, const void *);
    s->u.gather.out = ARG(c, 1, void *);
    s->u.gather.index = ARG(c, 2, int64_t *);
    s->u.gather.pairs = ARG(c, 3, const int32_t *);
    s->u.gather.segments = ARG(c, 4, int32_t);
    s->u.gather.nsort = ARG(c, 5, int32_t);
    const int64_t n = s->u.gather.segments * s->u.gather.nsort;
    if (s->u.gather.segments <= 0 || s->u.gather.nsort <= 0)
        return TFL_OK;
    if (!tfl_kdev_ok(s->u.gather.in, (size_t)n * k->value_size) ||
        !tfl_kdev_ok(s->u.gather.out, (size_t)n * k->value_size) ||
        !tfl_kdev_ok(s->u.gather.index, (size_t)n * 8) || !tfl_kdev_ok(s->u.gather.pairs, (size_t)n * 8)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", k->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

static tfl_status run_ties(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                           char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    const int wide = k->key == TFL_SORT_KEY_I64;
    s->kind = TFL_SORT_SHUFFLE_TIES;
    s->key = k->key;
    s->value_size = k->value_size;
    s->u.shuffle.keys = ARG(c, 0, const void *);
    s->u.shuffle.data = ARG(c, 1, void *);
    s->u.shuffle.mask = wide ? ARG(c, 2, uint64_t) : ARG(c, 2, uint32_t);
    s->u.shuffle.n = ARG(c, 3, int32_t);
    /* the kernel's threads cover [0, grid*block): every island leader in
     * [0, n - 1) must have one */
    if ((int64_t)c->grid[0] * c->block[0] < s->u.shuffle.n - 1 || c->grid[1] != 1 || c->grid[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    const unsigned char *ph = c->args[4];
    if (ph[24]) {
        const void *ps, *po;
        memcpy(&ps, ph, 8);
        memcpy(&po, ph + 8, 8);
        if (!tfl_kdev_ok(ps, 8) || !tfl_kdev_ok(po, 8)) {
            snprintf(err, errlen, "%s: captured Philox seed/offset is not device memory", k->name);
            return TFL_ERR_INVALID;
        }
        uint64_t intra;
        memcpy(&s->u.shuffle.seed, ps, 8);
        memcpy(&s->u.shuffle.offset, po, 8);
        memcpy(&intra, ph + 16, 8);
        s->u.shuffle.offset += intra;
    } else {
        memcpy(&s->u.shuffle.seed, ph, 8);
        memcpy(&s->u.shuffle.offset, ph + 8, 8);
    }
    const int64_t n = s->u.shuffle.n;
    if (n < 2)
        return TFL_OK;
    if (!tfl_kdev_ok(s->u.shuffle.keys, (size_t)n * (wide ? 8 : 4)) ||
        !tfl_kdev_ok(s->u.shuffle.data, (size_t)n * k->value_size)) {
        snprintf(err, errlen, "%s: keys or data are not in device memory", k->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

tfl_status sort_run_pytorch(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                            char *err, size_t errlen)
{
    switch (k->kind) {
    case SK_BITONIC:
    case SK_RADIX_INPLACE:
    case SK_WARP_MERGE:
        return run_kv(c, k, op, route, err, errlen);
    case SK_FILL_REVERSE:
    case SK_FILL_SEGMENT:
        return run_fill(c, k, op, route, err, errlen);
    case SK_POSTPROCESS:
        return run_postprocess(c, k, op, route, err, errlen);
    case SK_RANDPERM_TIES:
        return run_ties(c, k, op, route, err, errlen);
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

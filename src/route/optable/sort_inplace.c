/*
 * sort_inplace.c - the "sort" family's decoders for PyTorch's own sort
 * kernels (torch 2.11.0+cu130, sm_80 layouts from the cubins):
 *
 *  bitonicSortKVInPlace<KeyDims, -1, 16, 16, K, long, LTOp|GTOp<K,true>, uint>
 *  radixSortKVInPlace<KeyDims, -1, block, items, K, long, uint>     (453 bytes)
 *    (TensorInfo<K,uint> keys @0 (216), uint keySlices @216,
 *     uint keySliceSize @220, uint keySliceStride @224,
 *     TensorInfo<long,uint> values @232 (216), uint valueSliceStride @448,
 *     comparator (1 byte, empty) | bool descending @452)
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

static int parse_int(const char *s, size_t len, int *out)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    if (*end)
        return 0;
    *out = (int)v;
    return 1;
}

static int match_kv(const char *d, sort_kernel *k)
{
    const char *p;
    int bitonic;
    if ((p = strstr(d, "at::native::bitonicSortKVInPlace<")))
        bitonic = 1;
    else if ((p = strstr(d, "at::native::radixSortKVInPlace<")))
        bitonic = 0;
    else
        return 0;
    p = strchr(p, '<');
    const char *as[10];
    size_t al[10];
    int n = tfl_pt_template_args(p, as, al, 10);
    if (n != (bitonic ? 8 : 7))
        return 0;
    int kd, vd;
    if (!parse_int(as[0], al[0], &kd) || !parse_int(as[1], al[1], &vd) || vd != -1 ||
        (kd != -2 && kd != -1 && kd < 1))
        return 0;
    if (!sort_key_type(as[4], al[4], &k->key) || !sort_arg_is(as[5], al[5], "long") ||
        !sort_arg_is(as[n - 1], al[n - 1], "unsigned int"))
        return 0;
    k->value_size = 8;
    k->key_dims = kd;
    if (bitonic) {
        if (al[6] > 16 && strncmp(as[6], "at::native::GTOp<", 17) == 0)
            k->descending = 1;
        else if (al[6] > 16 && strncmp(as[6], "at::native::LTOp<", 17) == 0)
            k->descending = 0;
        else
            return 0;
        k->kind = SK_BITONIC;
        k->name = "sort_bitonic";
    } else {
        k->descending = -1;
        k->kind = SK_RADIX_INPLACE;
        k->name = "sort_radix_inplace";
    }
    return 1;
}

int sort_match_pytorch(const char *d, sort_kernel *k)
{
    if (match_kv(d, k))
        return 1;
    if (strstr(d, "::fill_reverse_indices_kernel(long*, int, at::cuda::detail::IntDivider<unsigned int>)")) {
        k->kind = SK_FILL_REVERSE;
        k->name = "sort_fill_index";
        return 1;
    }
    if (strstr(d, "::fill_index_and_segment_kernel(int2*, int, at::cuda::detail::IntDivider<unsigned int>)")) {
        k->kind = SK_FILL_SEGMENT;
        k->name = "sort_fill_index";
        return 1;
    }
    const char *p = strstr(d, "::sort_postprocess_kernel<");
    if (p) {
        p = strchr(p, '<');
        const char *as[2];
        size_t al[2];
        if (tfl_pt_template_args(p, as, al, 2) != 1 || !sort_value_size(as[0], al[0], &k->value_size) ||
            !k->value_size)
            return 0;
        k->kind = SK_POSTPROCESS;
        k->name = "sort_gather";
        return 1;
    }
    p = strstr(d, "randperm_handle_duplicate_keys_kernel<");
    if (p) {
        p = strchr(p, '<');
        const char *as[3];
        size_t al[3];
        if (tfl_pt_template_args(p, as, al, 3) != 2 || !sort_value_size(as[1], al[1], &k->value_size) ||
            !k->value_size)
            return 0;
        if (sort_arg_is(as[0], al[0], "int"))
            k->key = TFL_SORT_KEY_I32;
        else if (sort_arg_is(as[0], al[0], "long"))
            k->key = TFL_SORT_KEY_I64;
        else
            return 0;
        k->kind = SK_RANDPERM_TIES;
        k->name = "randperm_ties";
        return 1;
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
    s->flags = (desc ? TFL_SORT_DESCENDING : 0) | (k->kind == SK_BITONIC ? TFL_SORT_NAN_EQUAL : 0);
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
        return TFL_ERR_DEVICE;
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
        return TFL_ERR_DEVICE;
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
        return TFL_ERR_DEVICE;
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
            return TFL_ERR_DEVICE;
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
        return TFL_ERR_DEVICE;
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

/*
 * sort_cub.c - the "sort" family's decoders for cub's radix sort kernels
 * as the torch 2.11.0+cu130 wheel instantiates them (CCCL 3.0, namespace
 * at_cuda_detail::cub::detail::radix_sort; sm_80 layouts from the cubins).
 *
 * A cub radix sort is a few launches; each digit pass is a stable
 * partition of keys_in -> keys_out (values alike) by bits [bit, bit+n) of
 * the key's radix order.  So each pass launch is emulated exactly as that
 * pass (TFL_SORT_RADIX over its bit range), and the launches that only
 * prepare counts for the GPU's scatter (histogram, exclusive sum, upsweep,
 * scan of the spine) are no-ops: nothing but the next pass reads what
 * they write, and the emulated pass does not need it.
 *
 *  DeviceRadixSortOnesweepKernel<Policy, Order, K, V, OffsetT, int, int, id>
 *    (int *lookback, int *ctrs, OffsetT *bins_out, const OffsetT *bins_in,
 *     K *keys_out, const K *keys_in, V *values_out, const V *values_in,
 *     int num_items, int current_bit, int num_bits, id)        77 bytes
 *    One pass over one "portion" of at most ~2^28 items.  bins_out is
 *    NULL for the last portion only, so a launch with bins_out != NULL
 *    belongs to a multi-portion sort whose portions share one global
 *    scatter: that cannot be emulated per launch and is refused.
 *  DeviceRadixSortDownsweepKernel<Policy, alt, Order, K, V, OffsetT, id>
 *    (keys_in, keys_out, values_in, values_out, OffsetT *spine,
 *     OffsetT num_items, int current_bit, int num_bits, GridEvenShare, id)
 *    One whole pass (upsweep/scan-bins launches before it are no-ops).
 *  DeviceRadixSortSingleTileKernel<Policy, Order, K, V, OffsetT, id>
 *    (keys_in, keys_out, values_in, values_out, OffsetT num_items,
 *     int begin_bit, int end_bit, id): the whole sort in one block.
 *  DeviceSegmentedRadixSortKernel<Policy, alt, Order, K, V, Begin, End,
 *    int, id>(keys_in, keys_out, values_in, values_out, Begin, End,
 *    int num_segments, int current_bit, int pass_bits, id): one pass,
 *    block g sorting segment [Begin[g], End[g]).  Only PyTorch's
 *    SortStable.cu offset_t {int stride; int begin} (operator[](i) =
 *    stride * (begin + i)) iterators are decoded.
 * cub's order: keys twiddled to unsigned order, -0.0 as +0.0, inverted
 * for descending; every pass is stable (torchfl/ops/sort.h).
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/pt_abi.h"
#include "route/optable/sort_internal.h"

#define ARG(c, i, T) TFL_KARG(c, T, i)

static const char *kernel_args(const char *d, const char *name, const char **as, size_t *al,
                               int max, int *n)
{
    const char *p = strstr(d, name);
    if (!p)
        return NULL;
    p += strlen(name);
    if (*p != '<')
        return NULL;
    *n = tfl_pt_template_args(p, as, al, max);
    return *n > 0 ? p : NULL;
}

static int parse_order(const char *s, size_t len, int *desc)
{
    if (sort_arg_is(s, len, "(at_cuda_detail::cub::SortOrder)0"))
        *desc = 0;
    else if (sort_arg_is(s, len, "(at_cuda_detail::cub::SortOrder)1"))
        *desc = 1;
    else
        return 0;
    return 1;
}

static int parse_offset(const char *s, size_t len, size_t *size)
{
    if (sort_arg_is(s, len, "unsigned long long") || sort_arg_is(s, len, "unsigned long") ||
        sort_arg_is(s, len, "long") || sort_arg_is(s, len, "long long"))
        *size = 8;
    else if (sort_arg_is(s, len, "int") || sort_arg_is(s, len, "unsigned int"))
        *size = 4;
    else
        return 0;
    return 1;
}

static int identity(const char *s, size_t len)
{
    return sort_arg_is(s, len, "at_cuda_detail::cub::detail::identity_decomposer_t");
}

#define NS "at_cuda_detail::cub::detail::radix_sort::"

int sort_match_cub(const char *d, sort_kernel *k)
{
    const char *as[12];
    size_t al[12];
    int n;
    if (kernel_args(d, NS "DeviceRadixSortOnesweepKernel", as, al, 12, &n)) {
        if (n != 8 || !parse_order(as[1], al[1], &k->descending) ||
            !sort_key_type(as[2], al[2], &k->key) || !sort_value_size(as[3], al[3], &k->value_size) ||
            !sort_arg_is(as[5], al[5], "int") || !sort_arg_is(as[6], al[6], "int") || !identity(as[7], al[7]))
            return 0;
        k->offset_size = 4;
        k->kind = SK_ONESWEEP;
        k->name = "radix_pass";
        return 1;
    }
    if (kernel_args(d, NS "DeviceRadixSortDownsweepKernel", as, al, 12, &n)) {
        if (n != 7 || !parse_order(as[2], al[2], &k->descending) ||
            !sort_key_type(as[3], al[3], &k->key) || !sort_value_size(as[4], al[4], &k->value_size) ||
            !parse_offset(as[5], al[5], &k->offset_size) || !identity(as[6], al[6]))
            return 0;
        k->kind = SK_DOWNSWEEP;
        k->name = "radix_pass";
        return 1;
    }
    if (kernel_args(d, NS "DeviceRadixSortSingleTileKernel", as, al, 12, &n)) {
        if (n != 6 || !parse_order(as[1], al[1], &k->descending) ||
            !sort_key_type(as[2], al[2], &k->key) || !sort_value_size(as[3], al[3], &k->value_size) ||
            !parse_offset(as[4], al[4], &k->offset_size) || !identity(as[5], al[5]))
            return 0;
        k->kind = SK_SINGLE_TILE;
        k->name = "radix_sort_tile";
        return 1;
    }
    if (kernel_args(d, NS "DeviceSegmentedRadixSortKernel", as, al, 12, &n)) {
        static const char offset_t[] = "at::native::(anonymous namespace)::offset_t";
        if (n != 9 || !parse_order(as[2], al[2], &k->descending) ||
            !sort_key_type(as[3], al[3], &k->key) || !sort_value_size(as[4], al[4], &k->value_size) ||
            !sort_arg_is(as[5], al[5], offset_t) || !sort_arg_is(as[6], al[6], offset_t) ||
            !sort_arg_is(as[7], al[7], "int") || !identity(as[8], al[8]))
            return 0;
        k->kind = SK_SEGMENTED;
        k->name = "radix_pass_segmented";
        return 1;
    }
    static const char *const noops[] = {
        NS "DeviceRadixSortHistogramKernel<", NS "DeviceRadixSortExclusiveSumKernel<",
        NS "DeviceRadixSortUpsweepKernel<", NS "RadixSortScanBinsKernel<",
    };
    for (size_t i = 0; i < sizeof noops / sizeof noops[0]; i++)
        if (strstr(d, noops[i]) && strstr(d, "at_cuda_detail::cub::detail::radix::policy_hub<")) {
            k->kind = SK_NOOP;
            k->name = "radix_counts";
            return 1;
        }
    return 0;
}

static uint64_t read_offset(const tfl_kcall *c, int i, size_t size)
{
    return size == 8 ? ARG(c, i, uint64_t) : ARG(c, i, uint32_t);
}

/* Fill a TFL_SORT_RADIX over [begin, end) (+ g*step for g < segments)
 * and check every buffer it touches. */
static tfl_status radix_op(const sort_kernel *k, tfl_op *op, int *route,
                           int64_t segments, int64_t begin, int64_t end, int64_t step,
                           int begin_bit, int end_bit, char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    s->kind = TFL_SORT_RADIX;
    s->key = k->key;
    s->flags = k->descending ? TFL_SORT_DESCENDING : 0;
    s->value_size = k->value_size;
    const int kbits = (int)tfl_sort_key_size(k->key) * 8;
    if (begin_bit < 0 || end_bit < begin_bit || end_bit > kbits || segments < 0 || begin < 0 ||
        end < begin || step < 0)
        return TFL_ERR_UNSUPPORTED;
    s->u.radix.segments = segments;
    s->u.radix.begin = begin;
    s->u.radix.end = end;
    s->u.radix.seg_step = step;
    s->u.radix.begin_bit = begin_bit;
    s->u.radix.end_bit = end_bit;
    if (segments == 0 || end == begin)
        return TFL_OK;
    const int64_t items = end + (segments - 1) * step;       /* one past the last item */
    const size_t kb = (size_t)items * tfl_sort_key_size(k->key), vb = (size_t)items * k->value_size;
    if (!tfl_kdev_ok(s->u.radix.keys_in, kb) || !tfl_kdev_ok(s->u.radix.keys_out, kb) ||
        (k->value_size && (!tfl_kdev_ok(s->u.radix.values_in, vb) ||
                           !tfl_kdev_ok(s->u.radix.values_out, vb)))) {
        snprintf(err, errlen, "%s: keys or values are not in device memory", k->name);
        return TFL_ERR_DEVICE;
    }
    if (!k->value_size) {
        s->u.radix.values_in = NULL;
        s->u.radix.values_out = NULL;
    }
    *route = 1;
    return TFL_OK;
}

tfl_status sort_run_cub(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                        char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    switch (k->kind) {
    case SK_NOOP:
        return TFL_OK;
    case SK_ONESWEEP: {
        if (ARG(c, 2, const void *) != NULL)
            return TFL_ERR_UNSUPPORTED;           /* a multi-portion sort */
        s->u.radix.keys_out = ARG(c, 4, void *);
        s->u.radix.keys_in = ARG(c, 5, const void *);
        s->u.radix.values_out = ARG(c, 6, void *);
        s->u.radix.values_in = ARG(c, 7, const void *);
        const int32_t n = ARG(c, 8, int32_t), bit = ARG(c, 9, int32_t), nb = ARG(c, 10, int32_t);
        if (n < 0 || nb < 0)
            return TFL_ERR_UNSUPPORTED;
        return radix_op(k, op, route, 1, 0, n, 0, bit, bit + nb, err, errlen);
    }
    case SK_DOWNSWEEP: {
        s->u.radix.keys_in = ARG(c, 0, const void *);
        s->u.radix.keys_out = ARG(c, 1, void *);
        s->u.radix.values_in = ARG(c, 2, const void *);
        s->u.radix.values_out = ARG(c, 3, void *);
        const uint64_t n = read_offset(c, 5, k->offset_size);
        const int32_t bit = ARG(c, 6, int32_t), nb = ARG(c, 7, int32_t);
        if (n > (uint64_t)INT64_MAX / 16 || nb < 0)
            return TFL_ERR_UNSUPPORTED;
        return radix_op(k, op, route, 1, 0, (int64_t)n, 0, bit, bit + nb, err, errlen);
    }
    case SK_SINGLE_TILE: {
        s->u.radix.keys_in = ARG(c, 0, const void *);
        s->u.radix.keys_out = ARG(c, 1, void *);
        s->u.radix.values_in = ARG(c, 2, const void *);
        s->u.radix.values_out = ARG(c, 3, void *);
        const uint64_t n = read_offset(c, 4, k->offset_size);
        if (n > (uint64_t)INT64_MAX / 16)
            return TFL_ERR_UNSUPPORTED;
        return radix_op(k, op, route, 1, 0, (int64_t)n, 0, ARG(c, 5, int32_t),
                        ARG(c, 6, int32_t), err, errlen);
    }
    case SK_SEGMENTED: {
        s->u.radix.keys_in = ARG(c, 0, const void *);
        s->u.radix.keys_out = ARG(c, 1, void *);
        s->u.radix.values_in = ARG(c, 2, const void *);
        s->u.radix.values_out = ARG(c, 3, void *);
        /* offset_t {int stride; int begin}: segment g = [bs*(bb+g), es*(eb+g)) */
        const int32_t bs = TFL_KARG_AT(c, int32_t, 4, 0), bb = TFL_KARG_AT(c, int32_t, 4, 4);
        const int32_t es = TFL_KARG_AT(c, int32_t, 5, 0), eb = TFL_KARG_AT(c, int32_t, 5, 4);
        const int32_t segs = ARG(c, 6, int32_t), bit = ARG(c, 7, int32_t), nb = ARG(c, 8, int32_t);
        /* one block per segment: the grid is what sorts, so it must be
         * the segment count the offsets describe */
        if (bs != es || bs < 0 || bb < 0 || eb != bb + 1 || segs < 0 || (uint32_t)segs != c->grid[0] ||
            c->grid[1] != 1 || c->grid[2] != 1 || nb < 0)
            return TFL_ERR_UNSUPPORTED;
        return radix_op(k, op, route, segs, (int64_t)bs * bb, (int64_t)bs * eb, bs, bit,
                        bit + nb, err, errlen);
    }
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

/*
 * sort_cub.c - the "sort" family's decoders for cub's radix sort kernels
 * as the torch wheels instantiate them (CCCL 3.0 in 2.11 - 2.14, 3.2 in
 * 2.15; namespace at_cuda_detail::cub::detail::radix_sort; sm_80 layouts
 * from the cubins, signatures from CCCL's kernels/radix_sort.cuh).
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
 *    [int num_segments (CCCL 3.0, torch 2.11 - 2.14; unused),] int
 *    current_bit, int pass_bits, id): one pass, block g sorting segment
 *    [Begin[g], End[g]).  Only PyTorch's
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

#define NS "cub::detail::radix_sort::"

static int parse_order(const tfl_kname *kn, int i, int *desc)
{
    if (sort_targ_is(kn, i, "(cub::SortOrder)0"))
        *desc = 0;
    else if (sort_targ_is(kn, i, "(cub::SortOrder)1"))
        *desc = 1;
    else
        return 0;
    return 1;
}

static int identity(const tfl_kname *kn, int i)
{
    return sort_targ_is(kn, i, "cub::detail::identity_decomposer_t");
}

/* The tuning policy (template argument 0): it only shapes the tiles. */
static int policy(const tfl_kname *kn)
{
    return sort_targ_starts(kn, 0, "cub::detail::radix::policy_hub<");
}

/* A bool template argument (ALT_DIGIT_BITS: which of two tunings). */
static int is_bool(const tfl_kname *kn, int i)
{
    long long v;
    return tfl_kname_targ_int(kn, i, &v) && (v == 0 || v == 1);
}

/* "l" / "i": OffsetT as a parameter; GridEvenShare<OffsetT> (2 ints, 6
 * OffsetT, 1 int, laid out in that order: 72 bytes for 64-bit offsets, 40
 * for 32-bit). */
static char off_tok(size_t off) { return off == 8 ? 'l' : 'i'; }
static const char *even_share(size_t off) { return off == 8 ? "72:8" : "40:4"; }

/* The kernels that only prepare counts for the GPU's scatter; their
 * signatures (CCCL 3.0 and 3.2 alike):
 *   DeviceRadixSortHistogramKernel<P, Order, K, OffsetT, D>(OffsetT *bins,
 *     const K *keys, OffsetT n, int begin_bit, int end_bit, D)
 *   DeviceRadixSortExclusiveSumKernel<P, OffsetT>(OffsetT *bins)
 *   DeviceRadixSortUpsweepKernel<P, alt, Order, K, OffsetT, D>(const K *keys,
 *     OffsetT *spine, OffsetT n, int bit, int nbits, GridEvenShare, D)
 *   RadixSortScanBinsKernel<P, OffsetT>(OffsetT *spine, int n) */
static int match_noop(const tfl_kname *kn, sort_kernel *k)
{
    size_t off;
    int d;
    tfl_sort_key key;
    if (tfl_kname_qualified(kn, NS "DeviceRadixSortHistogramKernel")) {
        if (kn->ntargs != 5 || !parse_order(kn, 1, &d) || !sort_targ_key(kn, 2, &key) ||
            !sort_targ_int_size(kn, 3, &off) || !identity(kn, 4))
            return 0;
        sort_sig(k, "p p %c i i b", off_tok(off));
    } else if (tfl_kname_qualified(kn, NS "DeviceRadixSortExclusiveSumKernel")) {
        if (kn->ntargs != 2 || !sort_targ_int_size(kn, 1, &off))
            return 0;
        sort_sig(k, "p");
    } else if (tfl_kname_qualified(kn, NS "DeviceRadixSortUpsweepKernel")) {
        if (kn->ntargs != 6 || !is_bool(kn, 1) || !parse_order(kn, 2, &d) ||
            !sort_targ_key(kn, 3, &key) || !sort_targ_int_size(kn, 4, &off) || !identity(kn, 5))
            return 0;
        sort_sig(k, "p p %c i i %s b", off_tok(off), even_share(off));
    } else if (tfl_kname_qualified(kn, NS "RadixSortScanBinsKernel")) {
        if (kn->ntargs != 2 || !sort_targ_int_size(kn, 1, &off))
            return 0;
        sort_sig(k, "p i");
    } else {
        return 0;
    }
    k->kind = SK_NOOP;
    k->name = "radix_counts";
    return 1;
}

int sort_match_cub(const tfl_kname *kn, sort_kernel *k)
{
    if (!tfl_kname_qualified(kn, NS "DeviceRadixSortOnesweepKernel") &&
        !tfl_kname_qualified(kn, NS "DeviceRadixSortDownsweepKernel") &&
        !tfl_kname_qualified(kn, NS "DeviceRadixSortSingleTileKernel") &&
        !tfl_kname_qualified(kn, NS "DeviceSegmentedRadixSortKernel") &&
        !tfl_kname_qualified(kn, NS "DeviceRadixSortHistogramKernel") &&
        !tfl_kname_qualified(kn, NS "DeviceRadixSortExclusiveSumKernel") &&
        !tfl_kname_qualified(kn, NS "DeviceRadixSortUpsweepKernel") &&
        !tfl_kname_qualified(kn, NS "RadixSortScanBinsKernel"))
        return 0;
    if (!policy(kn))
        return 0;
    if (tfl_kname_qualified(kn, NS "DeviceRadixSortOnesweepKernel")) {
        /* <P, Order, K, V, OffsetT, PortionOffsetT, AtomicOffsetT, D> */
        size_t off;
        if (kn->ntargs != 8 || kn->nparams != 12 || !parse_order(kn, 1, &k->descending) ||
            !sort_targ_key(kn, 2, &k->key) ||
            !sort_value_size(kn->targ[3], kn->targ_len[3], &k->value_size) ||
            !sort_targ_int_size(kn, 4, &off) || !tfl_kname_targ_is(kn, 5, "int") ||
            !tfl_kname_targ_is(kn, 6, "int") || !identity(kn, 7))
            return 0;
        k->offset_size = 4;
        k->kind = SK_ONESWEEP;
        k->name = "radix_pass";
        return sort_sig(k, "p x7 i i i b");
    }
    if (tfl_kname_qualified(kn, NS "DeviceRadixSortDownsweepKernel")) {
        /* <P, alt, Order, K, V, OffsetT, D> */
        if (kn->ntargs != 7 || kn->nparams != 10 || !is_bool(kn, 1) ||
            !parse_order(kn, 2, &k->descending) || !sort_targ_key(kn, 3, &k->key) ||
            !sort_value_size(kn->targ[4], kn->targ_len[4], &k->value_size) ||
            !sort_targ_int_size(kn, 5, &k->offset_size) || !identity(kn, 6))
            return 0;
        k->kind = SK_DOWNSWEEP;
        k->name = "radix_pass";
        return sort_sig(k, "p x4 %c i i %s b", off_tok(k->offset_size), even_share(k->offset_size));
    }
    if (tfl_kname_qualified(kn, NS "DeviceRadixSortSingleTileKernel")) {
        /* <P, Order, K, V, OffsetT, D> */
        if (kn->ntargs != 6 || kn->nparams != 8 || !parse_order(kn, 1, &k->descending) ||
            !sort_targ_key(kn, 2, &k->key) ||
            !sort_value_size(kn->targ[3], kn->targ_len[3], &k->value_size) ||
            !sort_targ_int_size(kn, 4, &k->offset_size) || !identity(kn, 5))
            return 0;
        k->kind = SK_SINGLE_TILE;
        k->name = "radix_sort_tile";
        return sort_sig(k, "p x3 %c i i b", off_tok(k->offset_size));
    }
    if (tfl_kname_qualified(kn, NS "DeviceSegmentedRadixSortKernel")) {
        /* <P, alt, Order, K, V, Begin, End, int, D>: the int is OffsetT in
         * CCCL 3.0, SegmentSizeT in 3.2; 3.2 dropped the (unused) int
         * num_segments parameter (form 1) */
        if (kn->ntargs != 9 || (kn->nparams != 10 && kn->nparams != 9) || !is_bool(kn, 1) ||
            !parse_order(kn, 2, &k->descending) || !sort_targ_key(kn, 3, &k->key) ||
            !sort_value_size(kn->targ[4], kn->targ_len[4], &k->value_size) ||
            !tfl_kname_targ_is(kn, 5, "offset_t") || !tfl_kname_targ_is(kn, 6, "offset_t") ||
            !tfl_kname_targ_is(kn, 7, "int") || !identity(kn, 8))
            return 0;
        k->form = kn->nparams == 9;
        k->kind = SK_SEGMENTED;
        k->name = "radix_pass_segmented";
        /* offset_t {int stride; int begin}: 8 bytes, 4-aligned */
        return sort_sig(k, "p x3 8:4 8:4 %s b", k->form ? "i i" : "i i i");
    }
    return match_noop(kn, k);
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
        return TFL_ERR_INVALID;
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
        /* CCCL 3.0 passes num_segments (the kernel ignores it), 3.2 not:
         * the grid is the segment count either way */
        const int a = k->form ? 6 : 7;
        const int32_t segs = k->form ? (int32_t)c->grid[0] : ARG(c, 6, int32_t);
        const int32_t bit = ARG(c, a, int32_t), nb = ARG(c, a + 1, int32_t);
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

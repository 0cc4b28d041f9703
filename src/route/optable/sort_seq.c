/*
 * sort_seq.c - the "sort" family's decoders for the kernels that work on
 * what a sort produced (torch 2.11.0+cu130, sm_80 layouts from the cubins):
 *
 *  cub (at_cuda_detail::cub::detail::):
 *   scan::DeviceScanInitKernel<ScanTileState<T>>(state, int): no-op (tile
 *     status for the GPU's decoupled look-back only).
 *   scan::DeviceCompactInitKernel<ScanTileState<T>, N*>(state 0:8,
 *     int num_tiles 8:4, N* num_selected 16:8): *num_selected = 0.
 *   scan::DeviceScanKernel<Policy, In, Out, ScanTileState<A>, ScanOp,
 *     InitValueT, OffsetT, AccumT, ForceInclusive, RealInit>(In 0:8,
 *     Out 8:8, state 16:8, int start_tile 24:4, op 28:1, init (NullType
 *     29:1 = inclusive, or InputValue<T, T*> 32:16 = {bool is_future @0;
 *     T value | T* @8} = exclusive), OffsetT num_items): a whole scan per
 *     launch when start_tile is 0 (later launches of a split scan are
 *     refused).  ScanOp plus<void> / PyTorch's SumOp only.
 *   select::DeviceSelectSweepKernel<Policy, K const*, NullType*, K*, N*,
 *     ScanTileState<int>, NullType, equal_to<void>, int, streaming_context_t
 *     <long, true>, SelectImpl 0>(in 0:8, flags 8:8, out 16:8, num_selected
 *     24:8, state 32:8, select_op 40:1, equality 41:1, int num_items 44:4,
 *     int num_tiles 48:4, streaming context 56:40 {bool first @0, bool last
 *     @1, long total @8, long previous @16, in/out count pointers @24/@32},
 *     vsmem 96:8): cub::DeviceSelect::Unique; only a single partition
 *     (first and last, previous 0, total == num_items) with all tiles.
 *   reduce::DeviceReduceByKeyKernel<rle::encode::policy_hub<K, long>, K
 *     const*, K*, thrust::constant_iterator<long, int>, long*, N*,
 *     ReduceByKeyScanTileState, equal_to<void>, plus<void>, int, long>(
 *     keys 0:8, unique_out 8:8, values 16:16 (counting base @0, constant
 *     @8), counts 32:8, num_runs 40:8, state 48:8, int start_tile 56:4,
 *     eq 60:1, plus 61:1, int num_items 64:4): run-length encode; counts
 *     are run length * constant; start_tile must be 0.
 *   unique_by_key::DeviceUniqueByKeySweepKernel<Policy, KeysIn, ValuesIn,
 *     KeysOut, ValuesOut, NumSelected*, ScanTileState, equal_to, OffsetT,
 *     VSMemHelper>(keys_in 0:8, values_in (pointer 8:8 or thrust
 *     counting_iterator<int> 8:4), keys_out, values_out, num_selected,
 *     state, equality (1 byte), OffsetT num_items, int num_tiles, vsmem):
 *     the first item of every run of equal keys, all tiles in one launch
 *     (grid == num_tiles).
 *   scan_by_key::DeviceScanByKeyKernel<Policy, Keys, Values, Out,
 *     ReduceByKeyScanTileState<long, int>, equal_to<void>, plus<void> |
 *     cuda::maximum<void>, NullType, unsigned long long, long, long>(keys
 *     0:8, long *keys_prev 8:8, values 16 (8, or 16 for thrust's
 *     constant_iterator<long>: base @0, constant @8), out, state, int
 *     start_tile, eq, op, init, ull num_items): keys/values/out plain
 *     pointers or thrust reverse_iterators (their base pointer, one past
 *     the sequence); embedding backward's scale_grad_by_freq counts.  The
 *     init kernel (previous keys per tile) is a no-op; start_tile must
 *     be 0.
 *  PyTorch: _assert_async_cuda_kernel<bool>(const bool*, Msg (256 chars));
 *   UniqueCub.cu adjacent_difference_kernel<const K*>(long n, const K*, int*)
 *   (24 bytes) and scatter_kernel(long n, const long*, const long*, long*);
 *   EmbeddingBackwardKernel.cu's krn_partials_per_segment<index_t>,
 *   krn_partial_segment_offset<index_t>, compute_num_of_partial_segments
 *   <index_t>, compute_grad_weight<scalar_t, index_t>, sum_and_scatter
 *   <scalar_t, index_t> (all parameters 8 bytes; NROWS_PER_THREAD = 10;
 *   scalar_t float, double, c10::Half, c10::BFloat16 - the partial sums
 *   are acc_type: float, or double for double).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/pt_abi.h"
#include "route/optable/sort_internal.h"

#define ARG(c, i, T) TFL_KARG(c, T, i)
#define NS "at_cuda_detail::cub::detail::"

/* "long*", "long const*", "thrust::...::device_ptr<long>" -> element size */
static int ptr_key(const char *s, size_t len, tfl_sort_key *key);

static int ptr_type(const char *s, size_t len, size_t *size)
{
    tfl_sort_key k;
    if (!ptr_key(s, len, &k))
        return 0;
    *size = tfl_sort_key_size(k);
    return 1;
}

static int ptr_key(const char *s, size_t len, tfl_sort_key *key)
{
    char buf[160];
    if (len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    const char *dp = strstr(buf, "::device_ptr<");
    size_t tl;
    const char *t;
    if (dp && buf[len - 1] == '>') {
        t = dp + 13;
        tl = (size_t)(buf + len - 1 - t);
    } else if (len > 7 && strcmp(buf + len - 7, " const*") == 0) {
        t = buf;
        tl = len - 7;
    } else if (buf[len - 1] == '*') {
        t = buf;
        tl = len - 1;
    } else {
        return 0;
    }
    return sort_key_type(t, tl, key);
}

/* does [s, s+len) contain sub? */
static int arg_has(const char *s, size_t len, const char *sub)
{
    const size_t n = strlen(sub);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, sub, n) == 0)
            return 1;
    return 0;
}

static int int_type(const char *s, size_t len, size_t *size)
{
    if (sort_arg_is(s, len, "long") || sort_arg_is(s, len, "unsigned long long") ||
        sort_arg_is(s, len, "unsigned long") || sort_arg_is(s, len, "long long"))
        *size = 8;
    else if (sort_arg_is(s, len, "int") || sort_arg_is(s, len, "unsigned int"))
        *size = 4;
    else
        return 0;
    return 1;
}

static int match_index_kernel(const char *d, const char *name, sort_kernel *k, int kind)
{
    const char *p = strstr(d, name);
    if (!p)
        return 0;
    p += strlen(name);
    const char *as[3];
    size_t al[3];
    int n = tfl_pt_template_args(p, as, al, 3);
    if (n < 1)
        return 0;
    if (!int_type(as[n - 1], al[n - 1], &k->offset_size))   /* index_t */
        return 0;
    if (n == 2) {                                            /* scalar_t */
        if (sort_arg_is(as[0], al[0], "float"))
            k->key = TFL_SORT_KEY_F32;
        else if (sort_arg_is(as[0], al[0], "double"))
            k->key = TFL_SORT_KEY_F64;
        else if (sort_arg_is(as[0], al[0], "c10::Half"))
            k->key = TFL_SORT_KEY_F16;
        else if (sort_arg_is(as[0], al[0], "c10::BFloat16"))
            k->key = TFL_SORT_KEY_BF16;
        else
            return 0;
    }
    k->kind = kind;
    k->name = "embedding_segments";
    return 1;
}

int sort_match_seq(const char *d, sort_kernel *k)
{
    const char *as[12];
    size_t al[12];
    const char *p;
    if (strstr(d, "at::native::_assert_async_cuda_kernel<bool>(bool const*, at::native::Msg)")) {
        k->kind = SK_ASSERT;
        k->name = "assert_async";
        return 1;
    }
    if (strstr(d, NS "scan::DeviceScanInitKernel<")) {
        k->kind = SK_NOOP;
        k->name = "scan_init";
        return 1;
    }
    if ((p = strstr(d, NS "scan::DeviceCompactInitKernel<"))) {
        p = strchr(p, '<');
        if (tfl_pt_template_args(p, as, al, 12) != 2 || !ptr_type(as[1], al[1], &k->offset_size))
            return 0;
        k->kind = SK_COMPACT_INIT;
        k->name = "scan_init";
        return 1;
    }
    if ((p = strstr(d, NS "scan::DeviceScanKernel<"))) {
        p = strchr(p, '<');
        size_t in, out, acc, off;
        if (tfl_pt_template_args(p, as, al, 12) != 10 || !ptr_type(as[1], al[1], &in) ||
            !ptr_type(as[2], al[2], &out) || !int_type(as[6], al[6], &off) ||
            !int_type(as[7], al[7], &acc) || !sort_arg_is(as[8], al[8], "false"))
            return 0;
        if (!sort_arg_is(as[4], al[4], "cuda::std::__4::plus<void>") &&
            !(al[4] > 40 && strncmp(as[4], "at::cuda::cub::(anonymous namespace)::SumOp<", 44) == 0))
            return 0;
        if (sort_arg_is(as[5], al[5], "at_cuda_detail::cub::NullType"))
            k->descending = 0;              /* inclusive */
        else if (al[5] > 34 && strncmp(as[5], "at_cuda_detail::cub::detail::InputValue<", 40) == 0)
            k->descending = 1;              /* exclusive, with an init value */
        else
            return 0;
        size_t init = 0;
        if (k->descending && !int_type(as[9], al[9], &init))
            return 0;
        k->value_size = in | out << 8 | acc << 16 | init << 24;
        k->offset_size = off;
        k->kind = SK_SCAN;
        k->name = "scan";
        return 1;
    }
    if ((p = strstr(d, NS "unique_by_key::DeviceUniqueByKeySweepKernel<"))) {
        p = strchr(p, '<');
        size_t ks, vs, ns, off;
        if (tfl_pt_template_args(p, as, al, 12) != 10 || !ptr_type(as[1], al[1], &ks) ||
            !ptr_type(as[3], al[3], &ks) || !ptr_type(as[4], al[4], &vs) ||
            !ptr_type(as[5], al[5], &ns) || !int_type(as[8], al[8], &off))
            return 0;
        /* key type from the policy: policy_hub<K, V> */
        const char *h = strstr(as[0], "policy_hub<");
        const char *ha[3];
        size_t hl[3];
        if (!h || h > as[0] + al[0] || tfl_pt_template_args(h + 10, ha, hl, 3) != 2 ||
            !sort_key_type(ha[0], hl[0], &k->key) || tfl_sort_key_size(k->key) != ks)
            return 0;
        if (!arg_has(as[2], al[2], "::counting_iterator<int,")) {
            size_t vin;
            if (!ptr_type(as[2], al[2], &vin) || vin != vs)
                return 0;
            k->descending = 0;
        } else {
            if (!(al[2] > 0 && strncmp(as[2], "thrust::", 8) == 0))
                return 0;
            k->descending = 1;              /* values are a counting iterator */
        }
        if (!sort_arg_is(as[7], al[7], "cuda::std::__4::equal_to<void>")) {
            char eq[64];
            snprintf(eq, sizeof eq, "cuda::std::__4::equal_to<%.*s>", (int)hl[0], ha[0]);
            if (!sort_arg_is(as[7], al[7], eq))
                return 0;
        }
        k->value_size = vs;
        k->offset_size = off | ns << 8;
        k->kind = SK_UNIQUE_BY_KEY;
        k->name = "unique_by_key";
        return 1;
    }
    if ((p = strstr(d, "at::native::internal::(anonymous namespace)::adjacent_difference_kernel<"))) {
        p = strchr(p, '<');
        if (tfl_pt_template_args(p, as, al, 12) != 1 || !ptr_key(as[0], al[0], &k->key))
            return 0;
        k->kind = SK_RUN_STARTS;
        k->name = "unique_run_starts";
        return 1;
    }
    if (strstr(d, "at::native::internal::(anonymous namespace)::scatter_kernel(long, long const*, long const*, long*)")) {
        k->kind = SK_SCATTER;
        k->name = "unique_scatter";
        return 1;
    }
    if ((p = strstr(d, NS "select::DeviceSelectSweepKernel<"))) {
        p = strchr(p, '<');
        tfl_sort_key k2;
        size_t ns, off;
        if (tfl_pt_template_args(p, as, al, 12) != 11 || !ptr_key(as[1], al[1], &k->key) ||
            !sort_arg_is(as[2], al[2], "at_cuda_detail::cub::NullType*") || !ptr_key(as[3], al[3], &k2) ||
            k2 != k->key || !ptr_type(as[4], al[4], &ns) ||
            !sort_arg_is(as[6], al[6], "at_cuda_detail::cub::NullType") ||
            !sort_arg_is(as[7], al[7], "cuda::std::__4::equal_to<void>") || !sort_arg_is(as[8], al[8], "int") ||
            !sort_arg_is(as[9], al[9], "at_cuda_detail::cub::detail::select::streaming_context_t<long, true>") ||
            !int_type(as[8], al[8], &off))
            return 0;
        k->offset_size = ns;
        k->kind = SK_SELECT_UNIQUE;
        k->name = "unique";
        return 1;
    }
    if ((p = strstr(d, NS "reduce::DeviceReduceByKeyKernel<")) && strstr(d, "rle::encode::policy_hub<")) {
        p = strchr(p, '<');
        tfl_sort_key k2;
        size_t as4, ns;
        if (tfl_pt_template_args(p, as, al, 12) != 11 || !ptr_key(as[1], al[1], &k->key) ||
            !ptr_key(as[2], al[2], &k2) || k2 != k->key ||
            !arg_has(as[3], al[3], "::constant_iterator<long, int,") || strncmp(as[3], "thrust::", 8) != 0 ||
            !sort_arg_is(as[4], al[4], "long*") || !ptr_type(as[5], al[5], &ns) ||
            !sort_arg_is(as[7], al[7], "cuda::std::__4::equal_to<void>") ||
            !sort_arg_is(as[8], al[8], "cuda::std::__4::plus<void>") || !sort_arg_is(as[9], al[9], "int") ||
            !sort_arg_is(as[10], al[10], "long"))
            return 0;
        (void)as4;
        k->offset_size = ns;
        k->kind = SK_RLE;
        k->name = "unique_counts";
        return 1;
    }
    if (strstr(d, NS "scan_by_key::DeviceScanByKeyInitKernel<")) {
        k->kind = SK_NOOP;          /* per-tile previous keys for the GPU's blocks */
        k->name = "scan_init";
        return 1;
    }
    if ((p = strstr(d, NS "scan_by_key::DeviceScanByKeyKernel<"))) {
        p = strchr(p, '<');
        if (tfl_pt_template_args(p, as, al, 12) != 11)
            return 0;
        static const char rev_c[] = "::reverse_iterator<long const*>", rev[] = "::reverse_iterator<long*>";
        /* keys: long const* or a reverse iterator over one */
        int kr = arg_has(as[1], al[1], rev_c) && strncmp(as[1], "thrust::", 8) == 0;
        if (!kr && !sort_arg_is(as[1], al[1], "long const*"))
            return 0;
        /* values: a reverse iterator over long (const) *, or thrust's
         * constant_iterator<long> */
        int vr = strncmp(as[2], "thrust::", 8) == 0 && (arg_has(as[2], al[2], rev_c) || arg_has(as[2], al[2], rev));
        int vc = strncmp(as[2], "thrust::", 8) == 0 && arg_has(as[2], al[2], "::constant_iterator<long, ");
        if (!vr && !vc && !sort_arg_is(as[2], al[2], "long const*"))
            return 0;
        int orv = strncmp(as[3], "thrust::", 8) == 0 && arg_has(as[3], al[3], rev);
        if (!orv && !sort_arg_is(as[3], al[3], "long*"))
            return 0;
        if (!sort_arg_is(as[5], al[5], "cuda::std::__4::equal_to<void>") ||
            !sort_arg_is(as[7], al[7], "at_cuda_detail::cub::NullType") ||
            !sort_arg_is(as[8], al[8], "unsigned long long") || !sort_arg_is(as[9], al[9], "long"))
            return 0;
        if (sort_arg_is(as[6], al[6], "cuda::std::__4::plus<void>"))
            k->descending = TFL_SORT_SCAN_OP_SUM;
        else if (sort_arg_is(as[6], al[6], "cuda::__4::maximum<void>"))
            k->descending = TFL_SORT_SCAN_OP_MAX;
        else
            return 0;
        k->key_dims = kr | vr << 1 | orv << 2 | vc << 3;   /* iterator kinds */
        k->kind = SK_SCAN_BY_KEY;
        k->name = "scan_by_key";
        return 1;
    }
    static const char emb[] = "at::native::(anonymous namespace)::";
    if (!strstr(d, emb))
        return 0;
    return match_index_kernel(d, "::krn_partials_per_segment", k, SK_EMB_PARTIALS) ||
           match_index_kernel(d, "::krn_partial_segment_offset", k, SK_EMB_OFFSETS) ||
           match_index_kernel(d, "::compute_num_of_partial_segments", k, SK_EMB_NUM) ||
           match_index_kernel(d, "::compute_grad_weight", k, SK_EMB_GRAD) ||
           match_index_kernel(d, "::sum_and_scatter", k, SK_EMB_SCATTER);
}

static int ok_range(const void *p, int64_t n, size_t es)
{
    return n <= 0 || tfl_kdev_ok(p, (size_t)n * es);
}

#define DEV_FAIL(what) do { snprintf(err, errlen, "%s: %s is not in device memory", k->name, what); \
                            return TFL_ERR_DEVICE; } while (0)

static tfl_status run_emb(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                          char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    const size_t is = k->offset_size;
    s->kind = TFL_SORT_SEGMENTS;
    s->u.seg.index_size = is;
    s->u.seg.dtype = k->key == TFL_SORT_KEY_F64 ? TFL_DT_F64 : k->key == TFL_SORT_KEY_F16 ? TFL_DT_F16
                   : k->key == TFL_SORT_KEY_BF16 ? TFL_DT_BF16 : TFL_DT_F32;
    s->u.seg.rows_per_partial = 10;
    const int64_t *nseg = NULL;
    switch (k->kind) {
    case SK_EMB_PARTIALS:     /* (ret, segment_offsets, num_segments*, numel) */
        s->u.seg.step = TFL_SEG_PARTIALS_PER_SEGMENT;
        s->u.seg.out = ARG(c, 0, void *);
        s->u.seg.offsets = ARG(c, 1, const void *);
        nseg = ARG(c, 2, const int64_t *);
        s->u.seg.numel = ARG(c, 3, int64_t);
        break;
    case SK_EMB_OFFSETS:      /* (ret, partials_per_segment, their offsets, segment_offsets, num_segments*) */
        s->u.seg.step = TFL_SEG_PARTIAL_OFFSETS;
        s->u.seg.out = ARG(c, 0, void *);
        s->u.seg.a = ARG(c, 1, const void *);
        s->u.seg.b = ARG(c, 2, const void *);
        s->u.seg.offsets = ARG(c, 3, const void *);
        nseg = ARG(c, 4, const int64_t *);
        break;
    case SK_EMB_NUM:          /* (partials_per_segment, their offsets, num_segments*, out*) */
        s->u.seg.step = TFL_SEG_NUM_PARTIALS;
        s->u.seg.a = ARG(c, 0, const void *);
        s->u.seg.b = ARG(c, 1, const void *);
        nseg = ARG(c, 2, const int64_t *);
        s->u.seg.num_partials_out = ARG(c, 3, int64_t *);
        if (!tfl_kdev_ok(s->u.seg.num_partials_out, 8))
            DEV_FAIL("the partial count");
        break;
    case SK_EMB_GRAD:         /* (rows, grad, count, numel, stride, partial offsets, num_partials*, acc, stride_warped) */
        s->u.seg.step = TFL_SEG_GRAD_WEIGHT;
        s->u.seg.rows = ARG(c, 0, const void *);
        s->u.seg.grad = ARG(c, 1, const void *);
        s->u.seg.count = ARG(c, 2, const void *);
        s->u.seg.numel = ARG(c, 3, int64_t);
        s->u.seg.stride = ARG(c, 4, int64_t);
        s->u.seg.offsets = ARG(c, 5, const void *);
        s->u.seg.num_partials = ARG(c, 6, const int64_t *);
        s->u.seg.acc = ARG(c, 7, void *);
        if (!tfl_kdev_ok(s->u.seg.num_partials, 8))
            DEV_FAIL("the partial count");
        break;
    case SK_EMB_SCATTER:      /* (sorted, weight, stride, segment_offsets, num_segments*, acc,
                                  partial offsets per segment, num_partials*, padding_idx, stride_warped) */
        s->u.seg.step = TFL_SEG_SUM_SCATTER;
        s->u.seg.sorted = ARG(c, 0, const void *);
        s->u.seg.weight = ARG(c, 1, void *);
        s->u.seg.stride = ARG(c, 2, int64_t);
        s->u.seg.offsets = ARG(c, 3, const void *);
        nseg = ARG(c, 4, const int64_t *);
        s->u.seg.acc = ARG(c, 5, void *);
        s->u.seg.b = ARG(c, 6, const void *);
        s->u.seg.num_partials = ARG(c, 7, const int64_t *);
        s->u.seg.padding_idx = ARG(c, 8, int64_t);
        if (!tfl_kdev_ok(s->u.seg.num_partials, 8))
            DEV_FAIL("the partial count");
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (nseg && !tfl_kdev_ok(nseg, 8))
        DEV_FAIL("the segment count");
    s->u.seg.num_segments = nseg;
    if (s->u.seg.stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (k->kind == SK_EMB_PARTIALS || k->kind == SK_EMB_GRAD) {
        if (s->u.seg.numel < 0)
            return TFL_ERR_UNSUPPORTED;
    } else {
        s->u.seg.numel = -1;            /* not a parameter of these kernels */
    }
    *route = 1;
    return TFL_OK;
}

tfl_status sort_run_seq(const tfl_kcall *c, const sort_kernel *k, tfl_op *op, int *route,
                        char *err, size_t errlen)
{
    tfl_sort_op *s = &op->u.sort;
    switch (k->kind) {
    case SK_ASSERT: {
        s->kind = TFL_SORT_ASSERT;
        s->u.assert_.flag = ARG(c, 0, const uint8_t *);
        static _Thread_local char msg[257];
        memcpy(msg, c->args[1], 256);
        msg[256] = 0;
        s->u.assert_.msg = msg;
        if (!tfl_kdev_ok(s->u.assert_.flag, 1))
            DEV_FAIL("the asserted value");
        *route = 1;
        return TFL_OK;
    }
    case SK_COMPACT_INIT:
        s->kind = TFL_SORT_RUNS;
        s->key = TFL_SORT_KEY_U8;
        s->u.runs.n = 0;
        s->u.runs.num_out = ARG(c, 2, void *);
        s->u.runs.num_out_size = k->offset_size;
        if (!tfl_kdev_ok(s->u.runs.num_out, k->offset_size))
            DEV_FAIL("the selected count");
        *route = 1;
        return TFL_OK;
    case SK_SCAN: {
        if (ARG(c, 3, int32_t) != 0)
            return TFL_ERR_UNSUPPORTED;        /* a later launch of a split scan */
        s->kind = TFL_SORT_SCAN;
        s->u.scan.in = ARG(c, 0, const void *);
        s->u.scan.out = ARG(c, 1, void *);
        s->u.scan.in_size = k->value_size & 0xff;
        s->u.scan.out_size = (k->value_size >> 8) & 0xff;
        s->u.scan.acc_size = (k->value_size >> 16) & 0xff;
        s->u.scan.exclusive = k->descending;
        s->u.scan.init = 0;
        int ni = 6;
        if (k->descending) {
            const unsigned char *iv = c->args[5];
            if (iv[0]) {                       /* a future value: read it */
                const void *fp;
                memcpy(&fp, iv + 8, 8);
                const size_t isz = (k->value_size >> 24) & 0xff;
                if (!tfl_kdev_ok(fp, isz))
                    DEV_FAIL("the scan's initial value");
                s->u.scan.init = isz == 8 ? *(const int64_t *)fp : *(const int32_t *)fp;
            } else {
                s->u.scan.init = ((k->value_size >> 24) & 0xff) == 8 ? TFL_KARG_AT(c, int64_t, 5, 8)
                                                                     : TFL_KARG_AT(c, int32_t, 5, 8);
            }
        }
        s->u.scan.n = k->offset_size == 8 ? (int64_t)ARG(c, ni, uint64_t) : (int64_t)ARG(c, ni, uint32_t);
        if (!ok_range(s->u.scan.in, s->u.scan.n, s->u.scan.in_size) ||
            !ok_range(s->u.scan.out, s->u.scan.n, s->u.scan.out_size))
            DEV_FAIL("scan input or output");
        *route = s->u.scan.n > 0;
        return TFL_OK;
    }
    case SK_UNIQUE_BY_KEY: {
        const size_t off = k->offset_size & 0xff, ns = k->offset_size >> 8;
        const int64_t n = off == 8 ? (int64_t)ARG(c, 7, uint64_t) : (int64_t)ARG(c, 7, uint32_t);
        if ((uint32_t)ARG(c, 8, int32_t) != c->grid[0] || c->grid[1] != 1 || c->grid[2] != 1 || n < 0)
            return TFL_ERR_UNSUPPORTED;        /* not all tiles in this launch */
        s->kind = TFL_SORT_RUNS;
        s->key = k->key;
        s->value_size = k->value_size;
        s->u.runs.keys_in = ARG(c, 0, const void *);
        if (k->descending) {
            s->u.runs.values_in = NULL;
            s->u.runs.value_base = TFL_KARG_AT(c, int32_t, 1, 0);
        } else {
            s->u.runs.values_in = ARG(c, 1, const void *);
        }
        s->u.runs.keys_out = ARG(c, 2, void *);
        s->u.runs.values_out = ARG(c, 3, void *);
        s->u.runs.num_out = ARG(c, 4, void *);
        s->u.runs.num_out_size = ns;
        s->u.runs.n = n;
        const size_t ks = tfl_sort_key_size(k->key);
        if (!ok_range(s->u.runs.keys_in, n, ks) || !tfl_kdev_ok(s->u.runs.num_out, ns) ||
            (s->u.runs.keys_out && !ok_range(s->u.runs.keys_out, n, ks)) ||
            (s->u.runs.values_in && !ok_range(s->u.runs.values_in, n, k->value_size)) ||
            (s->u.runs.values_out && !ok_range(s->u.runs.values_out, n, k->value_size)))
            DEV_FAIL("keys, values or the count");
        *route = 1;
        return TFL_OK;
    }
    case SK_RUN_STARTS:       /* (long n, const K *in, int *out) */
        s->kind = TFL_SORT_RUN_STARTS;
        s->key = k->key;
        s->u.starts.n = ARG(c, 0, int64_t);
        s->u.starts.keys = ARG(c, 1, const void *);
        s->u.starts.out = ARG(c, 2, int32_t *);
        if (s->u.starts.n < 0)
            return TFL_ERR_UNSUPPORTED;
        if (!ok_range(s->u.starts.keys, s->u.starts.n, tfl_sort_key_size(k->key)) ||
            !ok_range(s->u.starts.out, s->u.starts.n, 4))
            DEV_FAIL("keys or run starts");
        *route = s->u.starts.n > 0;
        return TFL_OK;
    case SK_SCATTER:          /* (long n, const long *in, const long *index, long *out) */
        s->kind = TFL_SORT_SCATTER;
        s->u.scatter.n = ARG(c, 0, int64_t);
        s->u.scatter.in = ARG(c, 1, const int64_t *);
        s->u.scatter.index = ARG(c, 2, const int64_t *);
        s->u.scatter.out = ARG(c, 3, int64_t *);
        if (s->u.scatter.n < 0)
            return TFL_ERR_UNSUPPORTED;
        if (!ok_range(s->u.scatter.in, s->u.scatter.n, 8) || !ok_range(s->u.scatter.index, s->u.scatter.n, 8))
            DEV_FAIL("values or indices");
        *route = s->u.scatter.n > 0;
        return TFL_OK;
    case SK_SELECT_UNIQUE: {  /* (in, flags, out, num_selected, state, select_op, eq, int n, int tiles, ctx, vsmem) */
        const int32_t n = ARG(c, 7, int32_t);
        const unsigned char *ctx = c->args[9];
        int64_t total, previous;
        memcpy(&total, ctx + 8, 8);
        memcpy(&previous, ctx + 16, 8);
        /* one partition holding every item, all tiles in this launch */
        if (!ctx[0] || !ctx[1] || previous != 0 || total != n || n < 0 ||
            (uint32_t)ARG(c, 8, int32_t) != c->grid[0] || c->grid[1] != 1 || c->grid[2] != 1)
            return TFL_ERR_UNSUPPORTED;
        s->kind = TFL_SORT_RUNS;
        s->key = k->key;
        s->u.runs.keys_in = ARG(c, 0, const void *);
        s->u.runs.keys_out = ARG(c, 2, void *);
        s->u.runs.num_out = ARG(c, 3, void *);
        s->u.runs.num_out_size = k->offset_size;
        s->u.runs.n = n;
        const size_t ks = tfl_sort_key_size(k->key);
        if (!ok_range(s->u.runs.keys_in, n, ks) || !ok_range(s->u.runs.keys_out, n, ks) ||
            !tfl_kdev_ok(s->u.runs.num_out, k->offset_size))
            DEV_FAIL("keys or the count");
        *route = 1;
        return TFL_OK;
    }
    case SK_RLE: {            /* (keys_in, unique_out, constant values, counts, num_runs, state,
                                  int start_tile, eq, plus, int n): the whole encode from tile 0 */
        const int32_t n = ARG(c, 9, int32_t);
        if (n < 0 || ARG(c, 6, int32_t) != 0)
            return TFL_ERR_UNSUPPORTED;        /* a later launch of a split encode */
        s->kind = TFL_SORT_RUNS;
        s->key = k->key;
        s->u.runs.keys_in = ARG(c, 0, const void *);
        s->u.runs.keys_out = ARG(c, 1, void *);
        /* thrust constant_iterator<long, int> (16 bytes): its counting
         * base (int) @0, the constant @8 */
        s->u.runs.count_scale = TFL_KARG_AT(c, int64_t, 2, 8);
        s->u.runs.counts_out = ARG(c, 3, int64_t *);
        s->u.runs.num_out = ARG(c, 4, void *);
        s->u.runs.num_out_size = k->offset_size;
        s->u.runs.n = n;
        const size_t ks = tfl_sort_key_size(k->key);
        if (!ok_range(s->u.runs.keys_in, n, ks) || !ok_range(s->u.runs.keys_out, n, ks) ||
            !ok_range(s->u.runs.counts_out, n, 8) || !tfl_kdev_ok(s->u.runs.num_out, k->offset_size))
            DEV_FAIL("keys, counts or the count");
        *route = 1;
        return TFL_OK;
    }
    case SK_SCAN_BY_KEY: {    /* (keys, keys_prev, values, out, state, int start_tile, eq, op, init, ull n) */
        if (ARG(c, 5, int32_t) != 0)
            return TFL_ERR_UNSUPPORTED;        /* a later launch of a split scan */
        const int kr = k->key_dims & 1, vr = (k->key_dims >> 1) & 1, orv = (k->key_dims >> 2) & 1,
                  vc = (k->key_dims >> 3) & 1;
        const uint64_t n = ARG(c, 9, uint64_t);
        if (n > (uint64_t)INT64_MAX / 16)
            return TFL_ERR_UNSUPPORTED;
        s->kind = TFL_SORT_SCAN_BY_KEY;
        s->u.scan_key.n = (int64_t)n;
        s->u.scan_key.op = k->descending;
        s->u.scan_key.keys = ARG(c, 0, const int64_t *);
        s->u.scan_key.keys_rev = kr;
        if (vc) {
            /* thrust constant_iterator<long>: its counting base (8 bytes)
             * @0, the constant @8 */
            s->u.scan_key.values = NULL;
            s->u.scan_key.value_const = TFL_KARG_AT(c, int64_t, 2, 8);
        } else {
            s->u.scan_key.values = ARG(c, 2, const int64_t *);
            s->u.scan_key.values_rev = vr;
        }
        s->u.scan_key.out = ARG(c, 3, int64_t *);
        s->u.scan_key.out_rev = orv;
        /* a reversed sequence ends at its base pointer */
        const size_t bytes = (size_t)n * 8;
#define SPAN_OK(ptr, rev) (n == 0 || tfl_kdev_ok((rev) ? (const char *)(ptr) - bytes : (const char *)(ptr), bytes))
        if (!SPAN_OK(s->u.scan_key.keys, kr) || (!vc && !SPAN_OK(s->u.scan_key.values, vr)) ||
            !SPAN_OK(s->u.scan_key.out, orv))
            DEV_FAIL("keys, values or output");
#undef SPAN_OK
        *route = n > 0;
        return TFL_OK;
    }
    default:
        return run_emb(c, k, op, route, err, errlen);
    }
}

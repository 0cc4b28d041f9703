/*
 * sort_seq.c - the "sort" family's decoders for the kernels that work on
 * what a sort produced (torch 2.11 - 2.15, sm_80 layouts from the cubins;
 * cub signatures as CCCL 3.0 / 3.2 declare them; each matcher states the
 * layout in the cookie's sig):
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
 *     are run length * constant; start_tile must be 0.  CCCL 3.2 (torch
 *     2.15, form 1): constant_iterator<long, long> (base 8 bytes @0) and
 *     two more parameters, streaming_context<K const*, long, long> 72:48
 *     {bool first @0, bool last @1, 5 pointers} and vsmem_t 120:8; only a
 *     single partition (first and last) is decoded.
 *   unique_by_key::DeviceUniqueByKeySweepKernel<Policy, KeysIn, ValuesIn,
 *     KeysOut, ValuesOut, NumSelected*, ScanTileState, equal_to, OffsetT,
 *     VSMemHelper>(keys_in 0:8, values_in (pointer 8:8 or thrust
 *     counting_iterator<int> 8:4; long keys count in long from 2.13,
 *     8:8), keys_out, values_out, num_selected,
 *     state, equality (1 byte), OffsetT num_items, int num_tiles, vsmem):
 *     the first item of every run of equal keys, all tiles in one launch
 *     (grid == num_tiles).
 *   scan_by_key::DeviceScanByKeyKernel<Policy, Keys, Values, Out,
 *     ReduceByKeyScanTileState<long, int>, equal_to<void>, plus<void> |
 *     cuda::maximum<void>, NullType, unsigned long long, long, long>(keys
 *     0:8, long *keys_prev 8:8, values 16 (8, or 16 for thrust's
 *     constant_iterator<long>: base @0, constant @8), out, state, int
 *     start_tile, eq, op, init, ull num_items): keys/values/out plain
 *     pointers or reverse iterators (thrust's in CCCL 3.0, cuda::std's in
 *     3.2: their base pointer, one past the sequence); embedding
 *     backward's scale_grad_by_freq counts.  The
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
#define NS "cub::detail::"

#define SCAN NS "scan::"

/* Pointer argument i: the bytes of what it points at. */
static int ptr_size(const tfl_kname *kn, int i, size_t *size)
{
    tfl_sort_key k;
    if (!sort_targ_ptr_key(kn, i, &k))
        return 0;
    *size = tfl_sort_key_size(k);
    return 1;
}

/* cub::ScanTileState<T, true> / ReduceByKeyScanTileState<V, K, true>: a
 * pointer (8 bytes); ScanTileState<T, false>: three (24). */
static const char *tile_state(const tfl_kname *kn, int i)
{
    char b[SORT_NORM_MAX];
    if (!sort_targ(kn, i, b))
        return NULL;
    size_t n = strlen(b);
    int simple = strncmp(b, "cub::ScanTileState<", 19) == 0;
    if (!simple && strncmp(b, "cub::ReduceByKeyScanTileState<", 30) != 0)
        return NULL;
    if (n > 7 && strcmp(b + n - 7, ", true>") == 0)
        return "p";
    if (simple && n > 8 && strcmp(b + n - 8, ", false>") == 0)
        return "24:8";
    return NULL;
}

/* EmbeddingBackwardKernel.cu's segment kernels: <[scalar_t,] index_t>,
 * their parameter lists (pointers, int64 sizes). */
static const struct {
    const char *base;
    int kind, ntargs;
    const char *sig;
} emb[] = {
    /* (index_t *ret, const index_t *segment_offsets, const int64 *num_segments, int64 numel) */
    { "krn_partials_per_segment", SK_EMB_PARTIALS, 1, "p p p l" },
    /* (ret, partials_per_segment, partials_per_segment_offset, segment_offsets, num_segments) */
    { "krn_partial_segment_offset", SK_EMB_OFFSETS, 1, "p x4" },
    /* (partials_per_segment, partials_per_segment_offset, num_segments, num_partials out) */
    { "compute_num_of_partial_segments", SK_EMB_NUM, 1, "p x3" },
    /* (indices, grad, count, int64 numel, int64 stride, partial offsets, num_partials,
     *  acc out, int64 stride_warped) */
    { "compute_grad_weight", SK_EMB_GRAD, 2, "p p p l l p p p l" },
    /* (sorted, weight, int64 stride, segment_offsets, num_segments, acc, partial offsets
     *  per segment, num_partials, int64 padding_idx, int64 stride_warped) */
    { "sum_and_scatter", SK_EMB_SCATTER, 2, "p p l p p p p p l l" },
};

static int match_emb(const tfl_kname *kn, sort_kernel *k)
{
    for (size_t i = 0; i < sizeof emb / sizeof emb[0]; i++) {
        if (!tfl_kname_is(kn, emb[i].base))
            continue;
        tfl_dtype dt;
        const int n = emb[i].ntargs;
        if (kn->ntargs != n || !sort_targ_int_size(kn, n - 1, &k->offset_size))   /* index_t */
            return 0;
        if (n == 2) {                                            /* scalar_t */
            if (!tfl_kname_targ_dtype(kn, 0, &dt))
                return 0;
            switch (dt) {
            case TFL_DT_F32: k->key = TFL_SORT_KEY_F32; break;
            case TFL_DT_F64: k->key = TFL_SORT_KEY_F64; break;
            case TFL_DT_F16: k->key = TFL_SORT_KEY_F16; break;
            case TFL_DT_BF16: k->key = TFL_SORT_KEY_BF16; break;
            default: return 0;
            }
        }
        k->kind = emb[i].kind;
        k->name = "embedding_segments";
        return sort_sig(k, "%s", emb[i].sig);
    }
    return 0;
}

/* DeviceScanKernel<Policy, In, Out, ScanTileState<A>, ScanOp, InitValueT,
 * OffsetT, AccumT, ForceInclusive, RealInit> */
static int match_scan(const tfl_kname *kn, sort_kernel *k)
{
    size_t in, out, acc, off;
    const char *state = tile_state(kn, 3);
    if (kn->ntargs != 10 || kn->nparams != 7 || !ptr_size(kn, 1, &in) || !ptr_size(kn, 2, &out) ||
        !state || state[0] != 'p' || !sort_targ_int_size(kn, 6, &off) ||
        !sort_targ_int_size(kn, 7, &acc) || !tfl_kname_targ_is(kn, 8, "false"))
        return 0;
    if (!sort_targ_is(kn, 4, "cuda::std::plus<void>") &&
        !tfl_kname_targ_starts(kn, 4, "at::cuda::cub::SumOp<"))
        return 0;
    if (sort_targ_is(kn, 5, "cub::NullType") && sort_targ_is(kn, 9, "cub::NullType"))
        k->descending = 0;              /* inclusive */
    else if (sort_targ_starts(kn, 5, "cub::detail::InputValue<"))
        k->descending = 1;              /* exclusive, with an init value */
    else
        return 0;
    size_t init = 0;
    if (k->descending && !sort_targ_int_size(kn, 9, &init))
        return 0;
    k->value_size = in | out << 8 | acc << 16 | init << 24;
    k->offset_size = off;
    k->kind = SK_SCAN;
    k->name = "scan";
    /* (in, out, state, int start_tile, op, NullType | InputValue<T, T*>
     *  (16 bytes), OffsetT num_items) */
    return sort_sig(k, "p p p i b %s %c", k->descending ? "16:8" : "b", off == 8 ? 'l' : 'i');
}

/* DeviceUniqueByKeySweepKernel<policy_hub<K, V>, KeysIn, ValuesIn,
 * KeysOut, ValuesOut, NumSelected*, ScanTileState, equal_to, OffsetT,
 * VSMemHelper> */
static int match_unique_by_key(const tfl_kname *kn, sort_kernel *k)
{
    size_t ks, ks2, vs, ns, off;
    const char *state = tile_state(kn, 6);
    if (kn->ntargs != 10 || kn->nparams != 10 || !ptr_size(kn, 1, &ks) || !ptr_size(kn, 3, &ks2) ||
        ks2 != ks || !ptr_size(kn, 4, &vs) || !ptr_size(kn, 5, &ns) || !state || state[0] != 'p' ||
        !sort_targ_int_size(kn, 8, &off) ||
        !sort_targ_is(kn, 9, "cub::detail::unique_by_key::VSMemHelper"))
        return 0;
    /* key type from the policy: policy_hub<K, V> */
    char b[SORT_NORM_MAX];
    static const char hub[] = "cub::detail::unique_by_key::policy_hub<";
    const char *ha[3];
    size_t hl[3];
    if (!sort_targ(kn, 0, b) || strncmp(b, hub, strlen(hub)) != 0 ||
        tfl_pt_template_args(b + strlen(hub) - 1, ha, hl, 3) != 2 ||
        !sort_key_type(ha[0], hl[0], &k->key) || tfl_sort_key_size(k->key) != ks)
        return 0;
    char vin = 'p';
    if (sort_targ_starts(kn, 2, "thrust::counting_iterator<")) {
        /* counting_iterator<int | long, defaults[, compile_time_value<1> (a
         * step of 1, CCCL 3.2)]>: its counter is the parameter */
        char cb[SORT_NORM_MAX];
        const char *ca[6];
        size_t cl[6];
        sort_targ(kn, 2, cb);
        int na = tfl_pt_template_args(cb + strlen("thrust::counting_iterator"), ca, cl, 6);
        if (na < 1 || na > 5)
            return 0;
        for (int a = 1; a < na; a++)
            if (!sort_arg_is(ca[a], cl[a], "thrust::use_default") &&
                !sort_arg_is(ca[a], cl[a], "thrust::compile_time_value<1>"))
                return 0;
        if (sort_arg_is(ca[0], cl[0], "int"))
            vin = 'i';
        else if (sort_arg_is(ca[0], cl[0], "long"))
            vin = 'l';
        else
            return 0;
        k->descending = vin == 'l' ? 2 : 1;  /* values: a counting iterator of 4 / 8 bytes */
    } else {
        size_t v2;
        if (!ptr_size(kn, 2, &v2) || v2 != vs)
            return 0;
        k->descending = 0;
    }
    char eq[64];
    snprintf(eq, sizeof eq, "cuda::std::equal_to<%.*s>", (int)hl[0], ha[0]);
    if (!sort_targ_is(kn, 7, "cuda::std::equal_to<void>") && !sort_targ_is(kn, 7, eq))
        return 0;
    k->value_size = vs;
    k->offset_size = off | ns << 8;
    k->kind = SK_UNIQUE_BY_KEY;
    k->name = "unique_by_key";
    /* (keys_in, values_in, keys_out, values_out, num_selected, state,
     *  equality, OffsetT num_items, int num_tiles, vsmem_t) */
    return sort_sig(k, "p %c p x3 b %c i p", vin, off == 8 ? 'l' : 'i');
}

/* DeviceSelectSweepKernel<Policy, K const*, NullType*, K*, N*,
 * ScanTileState<int>, NullType, equal_to<void>, int, streaming_context_t
 * <long, true>, SelectImpl 0>: DeviceSelect::Unique */
static int match_select_unique(const tfl_kname *kn, sort_kernel *k)
{
    tfl_sort_key k2;
    size_t ns;
    if (kn->ntargs != 11 || kn->nparams != 11 || !sort_targ_ptr_key(kn, 1, &k->key) ||
        !sort_targ_is(kn, 2, "cub::NullType*") || !sort_targ_ptr_key(kn, 3, &k2) || k2 != k->key ||
        !ptr_size(kn, 4, &ns) || !sort_targ_is(kn, 5, "cub::ScanTileState<int, true>") ||
        !sort_targ_is(kn, 6, "cub::NullType") || !sort_targ_is(kn, 7, "cuda::std::equal_to<void>") ||
        !tfl_kname_targ_is(kn, 8, "int") ||
        !sort_targ_is(kn, 9, "cub::detail::select::streaming_context_t<long, true>") ||
        !sort_targ_is(kn, 10, "(cub::SelectImpl)0"))
        return 0;
    k->offset_size = ns;
    k->kind = SK_SELECT_UNIQUE;
    k->name = "unique";
    /* (in, flags, out, num_selected, state, select_op, eq, int n, int tiles,
     *  streaming_context_t (40 bytes), vsmem_t) */
    return sort_sig(k, "p x4 b b i i 40:8 p");
}

/* DeviceReduceByKeyKernel<rle::encode::policy_hub<long, K>, K const*, K*,
 * thrust::constant_iterator<long, C>, long*, N*, ReduceByKeyScanTileState,
 * equal_to<void>, plus<void>, int, long[, streaming_context<K const*,
 * long, long> (CCCL 3.2)]>: run-length encode. */
static int match_rle(const tfl_kname *kn, sort_kernel *k)
{
    tfl_sort_key k2;
    size_t ns;
    const int form = kn->ntargs == 12;
    char cit[64];
    snprintf(cit, sizeof cit, "thrust::constant_iterator<long, %s, thrust::use_default>",
             form ? "long" : "int");
    if (!sort_targ_starts(kn, 0, "cub::detail::rle::encode::policy_hub<") ||
        kn->ntargs != (form ? 12 : 11) || kn->nparams != (form ? 12 : 10) ||
        !sort_targ_ptr_key(kn, 1, &k->key) || !sort_targ_ptr_key(kn, 2, &k2) || k2 != k->key ||
        !sort_targ_is(kn, 3, cit) || !tfl_kname_targ_is(kn, 4, "long*") || !ptr_size(kn, 5, &ns) ||
        !tile_state(kn, 6) || !sort_targ_is(kn, 7, "cuda::std::equal_to<void>") ||
        !sort_targ_is(kn, 8, "cuda::std::plus<void>") || !tfl_kname_targ_is(kn, 9, "int") ||
        !tfl_kname_targ_is(kn, 10, "long"))
        return 0;
    if (form && !sort_targ_starts(kn, 11, "cub::detail::reduce::streaming_context<"))
        return 0;
    k->offset_size = ns;
    k->form = form;
    k->kind = SK_RLE;
    k->name = "unique_counts";
    /* (keys, unique_out, constant_iterator (16), counts, num_runs, state,
     *  int start_tile, eq, plus, int num_items[, streaming_context (48),
     *  vsmem_t]) */
    return sort_sig(k, "p p 16:8 p p p i b b i%s", form ? " 48:8 p" : "");
}

/* DeviceScanByKeyKernel<Policy, Keys, Values, Out, ReduceByKeyScanTileState
 * <long, int>, equal_to<void>, plus<void> | cuda::maximum<void>, NullType,
 * unsigned long long, long, long> over long keys and values */
/* A reverse iterator over pointer type `ptr`: thrust's (CCCL 3.0) or
 * libcu++'s cuda::std:: one (3.2); both hold just the base pointer, one
 * past the element they read. */
static int reverse_over(const tfl_kname *kn, int i, const char *ptr)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "thrust::reverse_iterator<%s>", ptr);
    snprintf(b, sizeof b, "cuda::std::reverse_iterator<%s>", ptr);
    return sort_targ_is(kn, i, a) || sort_targ_is(kn, i, b);
}

static int match_scan_by_key(const tfl_kname *kn, sort_kernel *k)
{
    if (kn->ntargs != 11 || kn->nparams != 10)
        return 0;
    /* keys: long const* or a reverse iterator over one */
    int kr = reverse_over(kn, 1, "long const*");
    if (!kr && !tfl_kname_targ_is(kn, 1, "long const*"))
        return 0;
    /* values: a reverse iterator over long (const) *, or thrust's
     * constant_iterator<long> */
    int vr = reverse_over(kn, 2, "long const*") || reverse_over(kn, 2, "long*");
    int vc = sort_targ_starts(kn, 2, "thrust::constant_iterator<long, ");
    if (!vr && !vc && !tfl_kname_targ_is(kn, 2, "long const*"))
        return 0;
    int orv = reverse_over(kn, 3, "long*");
    if (!orv && !tfl_kname_targ_is(kn, 3, "long*"))
        return 0;
    if (!sort_targ_is(kn, 4, "cub::ReduceByKeyScanTileState<long, int, true>") ||
        !sort_targ_is(kn, 5, "cuda::std::equal_to<void>") || !sort_targ_is(kn, 7, "cub::NullType") ||
        !tfl_kname_targ_is(kn, 8, "unsigned long long") || !tfl_kname_targ_is(kn, 9, "long") ||
        !tfl_kname_targ_is(kn, 10, "long"))
        return 0;
    if (sort_targ_is(kn, 6, "cuda::std::plus<void>"))
        k->descending = TFL_SORT_SCAN_OP_SUM;
    else if (sort_targ_is(kn, 6, "cuda::maximum<void>"))
        k->descending = TFL_SORT_SCAN_OP_MAX;
    else
        return 0;
    k->key_dims = kr | vr << 1 | orv << 2 | vc << 3;   /* iterator kinds */
    k->kind = SK_SCAN_BY_KEY;
    k->name = "scan_by_key";
    /* (keys, long *keys_prev, values (8, or 16: constant_iterator), out,
     *  state, int start_tile, eq, op, init, ull num_items) */
    return sort_sig(k, "p p %s p p i b b b l", vc ? "16:8" : "p");
}

int sort_match_seq(const tfl_kname *kn, sort_kernel *k)
{
    if (tfl_kname_is(kn, "_assert_async_cuda_kernel")) {
        if (kn->ntargs != 1 || !tfl_kname_targ_is(kn, 0, "bool") || kn->nparams != 2 ||
            !tfl_kname_param_is(kn, 0, "bool const*") || !tfl_kname_param_is(kn, 1, "Msg"))
            return 0;
        k->kind = SK_ASSERT;
        k->name = "assert_async";
        return sort_sig(k, "p 256:1");          /* (const bool*, Msg {char[256]}) */
    }
    if (tfl_kname_qualified(kn, SCAN "DeviceScanInitKernel")) {
        const char *state = tile_state(kn, 0);
        if (kn->ntargs != 1 || !state)
            return 0;
        k->kind = SK_NOOP;
        k->name = "scan_init";
        return sort_sig(k, "%s i", state);      /* (state, int num_tiles) */
    }
    if (tfl_kname_qualified(kn, SCAN "DeviceCompactInitKernel")) {
        const char *state = tile_state(kn, 0);
        if (kn->ntargs != 2 || !state || state[0] != 'p' || !ptr_size(kn, 1, &k->offset_size))
            return 0;
        k->kind = SK_COMPACT_INIT;
        k->name = "scan_init";
        return sort_sig(k, "p i p");            /* (state, int num_tiles, N *num_selected) */
    }
    if (tfl_kname_qualified(kn, SCAN "DeviceScanKernel"))
        return match_scan(kn, k);
    if (tfl_kname_qualified(kn, NS "unique_by_key::DeviceUniqueByKeySweepKernel"))
        return match_unique_by_key(kn, k);
    if (tfl_kname_qualified(kn, "internal::adjacent_difference_kernel")) {
        if (kn->ntargs != 1 || kn->nparams != 3 || !sort_targ_ptr_key(kn, 0, &k->key))
            return 0;
        k->kind = SK_RUN_STARTS;
        k->name = "unique_run_starts";
        return sort_sig(k, "l p p");            /* (long n, const K *in, int *out) */
    }
    if (tfl_kname_qualified(kn, "internal::scatter_kernel")) {
        if (kn->ntargs || kn->nparams != 4 || !tfl_kname_param_is(kn, 0, "long") ||
            !tfl_kname_param_is(kn, 1, "long const*") || !tfl_kname_param_is(kn, 2, "long const*") ||
            !tfl_kname_param_is(kn, 3, "long*"))
            return 0;
        k->kind = SK_SCATTER;
        k->name = "unique_scatter";
        return sort_sig(k, "l p p p");
    }
    if (tfl_kname_qualified(kn, NS "select::DeviceSelectSweepKernel"))
        return match_select_unique(kn, k);
    if (tfl_kname_qualified(kn, NS "reduce::DeviceReduceByKeyKernel"))
        return match_rle(kn, k);
    if (tfl_kname_qualified(kn, NS "scan_by_key::DeviceScanByKeyInitKernel")) {
        /* <State, KeysIn, OffsetT>(state, keys, K *keys_prev, OffsetT
         * items_per_tile, int num_tiles): per-tile previous keys for the
         * GPU's blocks; a no-op here */
        size_t off, ks;
        const char *state = tile_state(kn, 0);
        if (kn->ntargs != 3 || kn->nparams != 5 || !state || state[0] != 'p' ||
            !sort_targ_int_size(kn, 2, &off) ||
            (!sort_targ_starts(kn, 1, "thrust::reverse_iterator<") &&
             !sort_targ_starts(kn, 1, "cuda::std::reverse_iterator<") && !ptr_size(kn, 1, &ks)))
            return 0;
        k->kind = SK_NOOP;
        k->name = "scan_init";
        return sort_sig(k, "p p p %c i", off == 8 ? 'l' : 'i');
    }
    if (tfl_kname_qualified(kn, NS "scan_by_key::DeviceScanByKeyKernel"))
        return match_scan_by_key(kn, k);
    return match_emb(kn, k);
}

static int ok_range(const void *p, int64_t n, size_t es)
{
    return n <= 0 || tfl_kdev_ok(p, (size_t)n * es);
}

#define DEV_FAIL(what) do { snprintf(err, errlen, "%s: %s is not in device memory", k->name, what); \
                            return TFL_ERR_INVALID; } while (0)

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
        if (k->descending) {               /* a counting iterator: int, or long (2.13+) */
            s->u.runs.values_in = NULL;
            s->u.runs.value_base = k->descending == 2 ? TFL_KARG_AT(c, int64_t, 1, 0)
                                                      : TFL_KARG_AT(c, int32_t, 1, 0);
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
        /* CCCL 3.2's streaming_context {bool first, last; ...}: only the
         * one partition that is both (no carried-in run, the count written
         * to num_runs) is the plain encode */
        if (k->form && (!TFL_KARG_AT(c, uint8_t, 10, 0) || !TFL_KARG_AT(c, uint8_t, 10, 1)))
            return TFL_ERR_UNSUPPORTED;
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

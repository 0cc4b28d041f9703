/*
 * scan.c - the "scan" kernel family of the semantic op table: which
 * kernels it runs, recognised by structure (tfl_kname: base name, template
 * arguments by what they are, with the library-versioning namespaces of
 * cub / thrust / libcu++ removed, so CCCL 3.0 (torch 2.11) and 3.2 (2.15)
 * names read alike), and the parameter layout each has (layout(); checked
 * against the cubins of torch 2.11 - 2.15).  docs/op-scan.md lists them.
 *
 *  - PyTorch's own scans (ScanUtils.cuh): tensor_kernel_scan_outer_dim,
 *    tensor_kernel_scan_innermost_dim and their _with_indices forms, for
 *    cumsum / cumprod / logcumsumexp / cummax / cummin along a dim;
 *  - cub DeviceScan (DeviceScanInitKernel + DeviceScanKernel), which
 *    PyTorch uses when the whole tensor is one row (a 1-D scan);
 *  - the nonzero pipeline (Nonzero.cu): cub DeviceReduce (count of
 *    nonzero elements through a NonZeroOp transform iterator), cub
 *    DeviceSelect::Flagged (DeviceCompactInitKernel + DeviceSelectSweep-
 *    Kernel with a counting iterator) and write_indices (flat index ->
 *    coordinates).  Boolean indexing, masked_select and where(cond) run
 *    through nonzero.
 *
 * The cub algorithms are several launches sharing temporary state; the
 * decoder (scan_decode.c) computes each result in the one launch that
 * holds every operand and makes the helper launches do exactly what is
 * still visible afterwards (nothing for tile-state initialisation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"
#include "route/optable/scan_internal.h"

#define MAXA 16
#define NORM_MAX 1024

/* Template argument i without the namespaces that only version a library
 * (tfl_kname_targ_unversioned), so a pattern reads as the source does in
 * every release; 0 if absent or too long. */
static int targ(const tfl_kname *k, int i, char *out)
{
    return tfl_kname_targ_unversioned(k, i, out, NORM_MAX);
}

static int arg_is(const char *s, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(s, want, len) == 0;
}

static int arg_starts(const char *s, size_t len, const char *pre)
{
    size_t n = strlen(pre);
    return len >= n && memcmp(s, pre, n) == 0;
}

/* Normalised template argument i equals want / starts with pre. */
static int targ_is(const tfl_kname *k, int i, const char *want)
{
    char b[NORM_MAX];
    return targ(k, i, b) && strcmp(b, want) == 0;
}

static int targ_starts(const tfl_kname *k, int i, const char *pre)
{
    char b[NORM_MAX];
    return targ(k, i, b) && strncmp(b, pre, strlen(pre)) == 0;
}

/* libcu++'s identity functor: __identity (CCCL 3.0) or identity (3.2). */
static int targ_identity(const tfl_kname *k, int i)
{
    return targ_is(k, i, "cuda::std::__identity") || targ_is(k, i, "cuda::std::identity");
}

/* "T const*" / "T*" for element type name tname. */
static int arg_is_ptr(const char *s, size_t len, const char *tname, int is_const)
{
    char want[96];
    snprintf(want, sizeof want, "%s%s", tname, is_const ? " const*" : "*");
    return arg_is(s, len, want);
}

/* The binary op of a PyTorch scan kernel (template argument text). */
static int parse_fn(const char *s, size_t len, const char *tname, tfl_scan_fn *fn)
{
    char want[96];
    static const struct { const char *pre; tfl_scan_fn fn; } ops[] = {
        { "std::plus<", TFL_SCAN_ADD }, { "std::multiplies<", TFL_SCAN_MUL },
        { "std::greater_equal<", TFL_SCAN_MAX }, { "std::less_equal<", TFL_SCAN_MIN },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        snprintf(want, sizeof want, "%s%s>", ops[i].pre, tname);
        if (arg_is(s, len, want) || (snprintf(want, sizeof want, "%s%s >", ops[i].pre, tname),
                                     arg_is(s, len, want))) {
            *fn = ops[i].fn;
            return 1;
        }
    }
    /* launch_logcumsumexp_cuda_kernel's lambda: an empty closure taking
     * (T, T) - the param is 1 byte in every instantiation */
    if (arg_starts(s, len, "launch_logcumsumexp_cuda_kernel(")) {
        *fn = TFL_SCAN_LOGADDEXP;
        return 1;
    }
    return 0;
}

/* Element type argument i (float, double, int, long): its dtype and name. */
static int elem_type(const tfl_kname *k, int i, tfl_dtype *dt, char *tname, size_t tlen)
{
    if (!tfl_kname_targ_dtype(k, i, dt) || k->targ_len[i] + 1 > tlen)
        return 0;
    memcpy(tname, k->targ[i], k->targ_len[i]);
    tname[k->targ_len[i]] = 0;
    return *dt == TFL_DT_F32 || *dt == TFL_DT_F64 || *dt == TFL_DT_I32 || *dt == TFL_DT_I64;
}

/* thrust::transform_iterator<NonZeroOp<T>, T const*, thrust::use_default,
 * thrust::use_default> (normalised text) -> dtype of T. */
static int parse_nonzero_iter(const char *s, tfl_dtype *dt)
{
    static const char pre[] = "thrust::transform_iterator<";
    size_t len = strlen(s);
    if (!arg_starts(s, len, pre))
        return 0;
    const char *st[MAXA];
    size_t ln[MAXA];
    const char *lt = s + strlen(pre) - 1;
    const char *gt = tfl_pt_match_angle(lt);
    if (!gt || gt != s + len - 1)
        return 0;
    int na = tfl_pt_template_args(lt, st, ln, MAXA);
    static const char op[] = "NonZeroOp<";
    if (na != 4 || !arg_starts(st[0], ln[0], op) || !arg_is(st[2], ln[2], "thrust::use_default") ||
        !arg_is(st[3], ln[3], "thrust::use_default"))
        return 0;
    const char *t = st[0] + strlen(op);
    size_t tl = ln[0] - strlen(op) - 1;     /* without the closing '>' */
    while (tl && t[tl - 1] == ' ') tl--;
    char tname[64];
    if (tl + 1 > sizeof tname || !tfl_pt_type_name(t, tl, dt))
        return 0;
    memcpy(tname, t, tl);
    tname[tl] = 0;
    return arg_is_ptr(st[1], ln[1], tname, 1);
}

static int targ_nonzero_iter(const tfl_kname *k, int i, tfl_dtype *dt)
{
    char b[NORM_MAX];
    return targ(k, i, b) && parse_nonzero_iter(b, dt);
}

/* Template argument i (normalised into b) is the template `pre`, which
 * ends with '<': its own arguments into st/ln (MAXA at most), pointing
 * into b.  Their count, or -1 when it is another argument. */
static int targ_split(const tfl_kname *k, int i, const char *pre, char *b, const char **st,
                      size_t *ln)
{
    if (!targ(k, i, b) || strncmp(b, pre, strlen(pre)) != 0)
        return -1;
    return tfl_pt_template_args(b + strlen(pre) - 1, st, ln, MAXA);
}

/* thrust::counting_iterator<long, ...> whose other arguments are defaults
 * or 2.15's compile_time_value<1> step: the items base, base + 1, ... */
static int targ_counting_long(const tfl_kname *k, int i)
{
    char b[NORM_MAX];
    const char *st[MAXA];
    size_t ln[MAXA];
    int na = targ_split(k, i, "thrust::counting_iterator<", b, st, ln);
    if (na < 1 || na > 5 || !arg_is(st[0], ln[0], "long"))
        return 0;
    for (int a = 1; a < na; a++)
        if (!arg_is(st[a], ln[a], "thrust::use_default") &&
            !arg_is(st[a], ln[a], "thrust::compile_time_value<1>"))
            return 0;
    return 1;
}

static int parse_aten(const tfl_kname *kn, scan_kernel *k)
{
    /* <T, [index type,] Op> (T* tgt / const T* self, ...) */
    static const struct { const char *base; scan_kk kind; int ntargs, nparams; } ks[] = {
        { "tensor_kernel_scan_outer_dim", SK_ATEN_OUTER, 3, 7 },
        { "tensor_kernel_scan_innermost_dim", SK_ATEN_INNER, 2, 7 },
        { "tensor_kernel_scan_outer_dim_with_indices", SK_ATEN_IDX_OUTER, 2, 8 },
        { "tensor_kernel_scan_innermost_dim_with_indices", SK_ATEN_IDX_INNER, 2, 9 },
    };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        if (!tfl_kname_is(kn, ks[i].base))
            continue;
        if (kn->ntargs != ks[i].ntargs || kn->nparams != ks[i].nparams)
            return 0;
        char tname[64];
        if (!elem_type(kn, 0, &k->dtype, tname, sizeof tname))
            return 0;
        /* outer_dim's index type only sizes its offset arithmetic */
        if (ks[i].kind == SK_ATEN_OUTER && !tfl_kname_targ_is(kn, 1, "unsigned int") &&
            !tfl_kname_targ_is(kn, 1, "unsigned long"))
            return 0;
        int fa = ks[i].ntargs - 1;
        if (!parse_fn(kn->targ[fa], kn->targ_len[fa], tname, &k->fn))
            return 0;
        int with_idx = ks[i].kind == SK_ATEN_IDX_OUTER || ks[i].kind == SK_ATEN_IDX_INNER;
        if (with_idx != (k->fn == TFL_SCAN_MAX || k->fn == TFL_SCAN_MIN))
            return 0;
        if (k->fn == TFL_SCAN_LOGADDEXP && k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64)
            return 0;
        k->kind = ks[i].kind;
        k->op_name = k->fn == TFL_SCAN_ADD ? "cumsum" : k->fn == TFL_SCAN_MUL ? "cumprod"
                   : k->fn == TFL_SCAN_LOGADDEXP ? "logcumsumexp"
                   : k->fn == TFL_SCAN_MAX ? "cummax" : "cummin";
        return 1;
    }
    return 0;
}

/* cub::ScanTileState<T, true|false> -> element type, wide = false form */
static int parse_tile_state(const tfl_kname *kn, int i, tfl_dtype *dt, int *wide)
{
    char b[NORM_MAX];
    const char *st[MAXA];
    size_t ln[MAXA];
    if (targ_split(kn, i, "cub::ScanTileState<", b, st, ln) != 2)
        return 0;
    if (!tfl_pt_type_name(st[0], ln[0], dt))
        return 0;
    if (arg_is(st[1], ln[1], "true")) *wide = 0;
    else if (arg_is(st[1], ln[1], "false")) *wide = 1;
    else return 0;
    return 1;
}

static int parse_cub_scan(const tfl_kname *kn, scan_kernel *k)
{
    if (tfl_kname_qualified(kn, "cub::detail::scan::DeviceScanInitKernel")) {
        if (kn->ntargs != 1 || !parse_tile_state(kn, 0, &k->dtype, &k->tile_state_wide))
            return 0;
        /* only in front of the DeviceScanKernels this family runs */
        if (k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 && k->dtype != TFL_DT_I32 &&
            k->dtype != TFL_DT_I64)
            return 0;
        k->kind = SK_CUB_SCAN_INIT;
        k->op_name = "cub_scan_init";
        return 1;
    }
    if (tfl_kname_qualified(kn, "cub::detail::scan::DeviceCompactInitKernel")) {
        if (kn->ntargs != 2 || !parse_tile_state(kn, 0, &k->dtype, &k->tile_state_wide) ||
            k->tile_state_wide)
            return 0;
        if (tfl_kname_targ_is(kn, 1, "int*")) k->count_dtype = TFL_DT_I32;
        else if (tfl_kname_targ_is(kn, 1, "long*")) k->count_dtype = TFL_DT_I64;
        else return 0;
        k->kind = SK_CUB_COMPACT_INIT;
        k->op_name = "cub_compact_init";
        return 1;
    }
    if (!tfl_kname_qualified(kn, "cub::detail::scan::DeviceScanKernel"))
        return 0;
    /* <Policy, InputIt, OutputIt, TileState, ScanOp, InitValue, OffsetT,
     *  AccumT, ForceInclusive, RealInitValue>; the policy only tunes the
     *  tiling */
    if (kn->ntargs != 10)
        return 0;
    char tname[64];
    tfl_dtype ts_dt;
    if (!elem_type(kn, 7, &k->dtype, tname, sizeof tname) ||
        !arg_is_ptr(kn->targ[1], kn->targ_len[1], tname, 1) ||
        !arg_is_ptr(kn->targ[2], kn->targ_len[2], tname, 0) ||
        !parse_tile_state(kn, 3, &ts_dt, &k->tile_state_wide) || ts_dt != k->dtype ||
        !parse_fn(kn->targ[4], kn->targ_len[4], tname, &k->fn) ||
        !targ_is(kn, 5, "cub::NullType") || !targ_is(kn, 9, "cub::NullType") || /* inclusive, no init */
        !tfl_kname_targ_is(kn, 6, "unsigned int") || !tfl_kname_targ_is(kn, 8, "false"))
        return 0;
    if (k->fn == TFL_SCAN_MAX || k->fn == TFL_SCAN_MIN)
        return 0;
    if (k->fn == TFL_SCAN_LOGADDEXP && k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64)
        return 0;
    k->kind = SK_CUB_SCAN;
    k->op_name = k->fn == TFL_SCAN_ADD ? "cumsum" : k->fn == TFL_SCAN_MUL ? "cumprod"
                                                  : "logcumsumexp";
    return 1;
}

/* The count of nonzero.cu: cub::DeviceReduce::Sum with int accumulation
 * over NonZeroOp<T>(x) (first pass / single tile) or over the int
 * partials of a first pass (second pass). */
static int parse_cub_reduce(const tfl_kname *kn, scan_kernel *k)
{
    static const char policy[] = "cub::detail::reduce::policy_hub<int, unsigned long long, cuda::std::plus<void> >::Policy";
    int is_single = tfl_kname_qualified(kn, "cub::detail::reduce::DeviceReduceSingleTileKernel");
    if (!is_single && !tfl_kname_qualified(kn, "cub::detail::reduce::DeviceReduceKernel"))
        return 0;
    /* single: <Policy, InputIt, OutputIt, OffsetT, Op, InitT, AccumT, Transform>
     * multi:  <Policy, InputIt, OffsetT, Op, AccumT, Transform> */
    int na = kn->ntargs;
    if (na != (is_single ? 8 : 6) || !targ_starts(kn, 0, policy))
        return 0;
    int off = is_single ? 3 : 2, opi = off + 1;
    if (tfl_kname_targ_is(kn, off, "unsigned long long")) k->offset64 = 1;
    else if (tfl_kname_targ_is(kn, off, "int") && is_single) k->offset64 = 0;
    else return 0;       /* (nonzero's multi-block pass counts in 64 bits) */
    if (!targ_is(kn, opi, "cuda::std::plus<void>") || !tfl_kname_targ_is(kn, na - 2, "int") ||
        !targ_identity(kn, na - 1))
        return 0;
    if (is_single && (!tfl_kname_targ_is(kn, 2, "int*") || !tfl_kname_targ_is(kn, 5, "int")))
        return 0;
    if (targ_nonzero_iter(kn, 1, &k->dtype)) {
        k->nonzero_input = 1;
    } else if (tfl_kname_targ_is(kn, 1, "int*")) {
        k->nonzero_input = 0;
        k->dtype = TFL_DT_I32;
    } else {
        return 0;
    }
    k->kind = is_single ? SK_CUB_REDUCE_SINGLE : SK_CUB_REDUCE_MULTI;
    k->op_name = "nonzero_count";
    return 1;
}

static int parse_cub_select(const tfl_kname *kn, scan_kernel *k)
{
    if (!tfl_kname_qualified(kn, "cub::detail::select::DeviceSelectSweepKernel"))
        return 0;
    /* <Policy, InputIt, FlagsIt, SelectedOut, NumSelectedOut, TileState,
     *  SelectOp, EqualityOp, OffsetT, StreamingContext, SelectImpl> */
    if (kn->ntargs != 11)
        return 0;
    tfl_dtype ts_dt;
    int wide;
    if (!targ_counting_long(kn, 1) || !targ_nonzero_iter(kn, 2, &k->dtype) ||
        !tfl_kname_targ_is(kn, 3, "long*") || !tfl_kname_targ_is(kn, 4, "int*") ||
        !parse_tile_state(kn, 5, &ts_dt, &wide) || ts_dt != TFL_DT_I32 || wide ||
        !targ_is(kn, 6, "cub::NullType") || !targ_is(kn, 7, "cub::NullType") ||
        !tfl_kname_targ_is(kn, 8, "int") ||
        !targ_is(kn, 9, "cub::detail::select::streaming_context_t<long, true>") ||
        !targ_is(kn, 10, "(cub::SelectImpl)0"))
        return 0;
    k->kind = SK_CUB_SELECT_NONZERO;
    k->op_name = "nonzero_select";
    return 1;
}

int tfl_scan_parse(const tfl_kname *kn, scan_kernel *k)
{
    memset(k, 0, sizeof *k);
    if (tfl_kname_is(kn, "write_indices") && kn->ntargs == 1 && tfl_kname_targ_is(kn, 0, "long") &&
        kn->nparams == 6) {
        k->kind = SK_NONZERO_UNRAVEL;
        k->op_name = "nonzero_unravel";
        return 1;
    }
    return parse_aten(kn, k) || parse_cub_scan(kn, k) || parse_cub_reduce(kn, k) ||
           parse_cub_select(kn, k);
}

static int match(const char *m, void **cookie)
{
    /* cheap filter before demangling */
    if (!strstr(m, "scan") && !strstr(m, "Reduce") && !strstr(m, "Select") &&
        !strstr(m, "write_indices"))
        return 0;
    tfl_kname kn;
    if (tfl_kname_parse(m, &kn) != 0)
        return 0;
    scan_kernel k;
    int ok = tfl_scan_parse(&kn, &k);
    tfl_kname_free(&kn);
    return ok && tfl_kcookie_keep(&k, sizeof k, cookie);
}

/* The parameters scan_decode.c reads, by kernel kind (its comments give
 * the signatures).  T is the element type, a scalar of its size; cub's
 * ScanTileState<T, true> is a pointer, <T, false> 24 bytes; the scan
 * functors and cub's NullType are empty (1 byte). */
static int layout(void *cookie, tfl_klayout *l)
{
    const scan_kernel *k = cookie;
    static const char tok[9] = { 0, 'b', 'h', 0, 'i', 0, 0, 0, 'l' };
    char sig[96];
    const size_t es = tfl_dtype_size(k->dtype);
    const char t = es <= 8 ? tok[es] : 0;
    const char *state = k->tile_state_wide ? "24:8" : "p";
    const char *off = k->offset64 ? "l" : "i";
    switch (k->kind) {
    case SK_ATEN_OUTER:         /* (tgt, src, uint orows, irows, row_size, T init, op) */
    case SK_ATEN_INNER:         /* (tgt, src, uint rows, row_size, log_threads_x, T init, op) */
        snprintf(sig, sizeof sig, "p p i i i %c b", t);
        break;
    case SK_ATEN_IDX_OUTER:     /* (self, values, indices, uint orows, irows, row_size, T init, op) */
        snprintf(sig, sizeof sig, "p p p i i i %c b", t);
        break;
    case SK_ATEN_IDX_INNER:     /* (self, values, indices, int rows, int row_size, uint
                                 *  num_threads, uint log_threads_x, T init, op) */
        snprintf(sig, sizeof sig, "p p p i i i i %c b", t);
        break;
    case SK_CUB_SCAN:           /* (in, out, state, int start_tile, op, NullType, uint n) */
        snprintf(sig, sizeof sig, "p p %s i b b i", state);
        break;
    case SK_CUB_SCAN_INIT:      /* (state, int num_tiles) */
        snprintf(sig, sizeof sig, "%s i", state);
        break;
    case SK_CUB_COMPACT_INIT:   /* (state, int num_tiles, N *num_selected) */
        snprintf(sig, sizeof sig, "p i p");
        break;
    case SK_CUB_REDUCE_SINGLE:  /* (in, int *out, OffsetT n, plus, int init, identity);
                                 * in: transform_iterator (16 bytes) or int* */
        snprintf(sig, sizeof sig, "%s p %s b i b", k->nonzero_input ? "16:8" : "p", off);
        break;
    case SK_CUB_REDUCE_MULTI:   /* (in, int *partials, u64 n, GridEvenShare<u64> (72 bytes),
                                 * plus, identity) */
        snprintf(sig, sizeof sig, "%s p l 72:8 b b", k->nonzero_input ? "16:8" : "p");
        break;
    case SK_CUB_SELECT_NONZERO: /* (counting_iterator<long>, transform_iterator, long *out,
                                 * int *num_selected, state, NullType x2, int n, int tiles,
                                 * streaming_context_t<long, true> (40), vsmem_t) */
        snprintf(sig, sizeof sig, "l 16:8 p p p b b i i 40:8 p");
        break;
    case SK_NONZERO_UNRAVEL:    /* (long *inp, TensorDims<long> (25 longs), int ndim, long n,
                                 * long *total, long fill_value) */
        snprintf(sig, sizeof sig, "p 200:8 i l p l");
        break;
    default:
        return 0;
    }
    if (!t && k->kind <= SK_ATEN_IDX_INNER)
        return 0;
    return tfl_klayout_sig(l, sig) == 0;
}

static const char *op_name(void *cookie)
{
    return cookie ? ((const scan_kernel *)cookie)->op_name : "scan";
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    return tfl_scan_run(c, (const scan_kernel *)cookie, err, errlen);
}

const tfl_kfamily tfl_kfamily_scan = {
    .name = "scan",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

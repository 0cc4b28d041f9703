/*
 * scan.c - the "scan" kernel family of the semantic op table: which
 * kernels it runs, read from their demangled names (torch 2.11 wheel,
 * CCCL 3.0 cub; docs/op-scan.md lists them with their layouts).
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

#include "route/optable/pt_abi.h"
#include "route/optable/scan_internal.h"

#define MAXA 16

/* Copy of a demangled name without the versioned namespaces, so the
 * patterns below read as the source does. */
static char *normalise(const char *dm)
{
    size_t n = strlen(dm);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (strncmp(dm + i, "thrust::THRUST_", 15) == 0) {
            const char *e = strstr(dm + i + 15, "_NS::");
            if (e) {
                memcpy(out + o, "thrust::", 8);
                o += 8;
                i = (size_t)(e + 5 - dm);
                continue;
            }
        }
        if (strncmp(dm + i, "at_cuda_detail::cub::", 21) == 0) {
            memcpy(out + o, "cub::", 5);
            o += 5;
            i += 21;
            continue;
        }
        if (strncmp(dm + i, "cuda::std::__4::", 16) == 0) {
            memcpy(out + o, "cuda::std::", 11);
            o += 11;
            i += 16;
            continue;
        }
        out[o++] = dm[i++];
    }
    out[o] = 0;
    return out;
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

/* "T const*" / "T*" for element type dt. */
static int arg_is_ptr(const char *s, size_t len, const char *tname, int is_const)
{
    char want[96];
    snprintf(want, sizeof want, "%s%s", tname, is_const ? " const*" : "*");
    return arg_is(s, len, want);
}

/* The binary op of a PyTorch scan kernel. */
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
    if (arg_starts(s, len, "at::native::launch_logcumsumexp_cuda_kernel(")) {
        *fn = TFL_SCAN_LOGADDEXP;
        return 1;
    }
    return 0;
}

static int elem_type(const char *s, size_t len, tfl_dtype *dt, char *tname, size_t tlen)
{
    if (!tfl_pt_type_name(s, len, dt) || len + 1 > tlen)
        return 0;
    memcpy(tname, s, len);
    tname[len] = 0;
    return *dt == TFL_DT_F32 || *dt == TFL_DT_F64 || *dt == TFL_DT_I32 || *dt == TFL_DT_I64;
}

/* thrust::transform_iterator<at::native::(anonymous namespace)::NonZeroOp<T>,
 * T const*, thrust::use_default, thrust::use_default> -> dtype of T. */
static int parse_nonzero_iter(const char *s, size_t len, tfl_dtype *dt)
{
    static const char pre[] = "thrust::transform_iterator<";
    if (!arg_starts(s, len, pre))
        return 0;
    const char *st[MAXA];
    size_t ln[MAXA];
    const char *lt = s + strlen(pre) - 1;
    const char *gt = tfl_pt_match_angle(lt);
    if (!gt || gt != s + len - 1)
        return 0;
    int na = tfl_pt_template_args(lt, st, ln, MAXA);
    static const char op[] = "at::native::(anonymous namespace)::NonZeroOp<";
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

static int parse_aten(const char *nm, scan_kernel *k)
{
    static const struct { const char *pre; scan_kk kind; int nargs; } ks[] = {
        { "void at::native::tensor_kernel_scan_outer_dim<", SK_ATEN_OUTER, 3 },
        { "void at::native::tensor_kernel_scan_innermost_dim<", SK_ATEN_INNER, 2 },
        { "void at::native::tensor_kernel_scan_outer_dim_with_indices<", SK_ATEN_IDX_OUTER, 2 },
        { "void at::native::tensor_kernel_scan_innermost_dim_with_indices<", SK_ATEN_IDX_INNER, 2 },
    };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        size_t pl = strlen(ks[i].pre);
        if (strncmp(nm, ks[i].pre, pl) != 0)
            continue;
        const char *st[MAXA];
        size_t ln[MAXA];
        if (tfl_pt_template_args(nm + pl - 1, st, ln, MAXA) != ks[i].nargs)
            return 0;
        char tname[64];
        if (!elem_type(st[0], ln[0], &k->dtype, tname, sizeof tname))
            return 0;
        if (ks[i].kind == SK_ATEN_OUTER && !arg_is(st[1], ln[1], "unsigned int") &&
            !arg_is(st[1], ln[1], "unsigned long"))
            return 0;
        int fa = ks[i].nargs - 1;
        if (!parse_fn(st[fa], ln[fa], tname, &k->fn))
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
static int parse_tile_state(const char *s, size_t len, tfl_dtype *dt, int *wide)
{
    static const char pre[] = "cub::ScanTileState<";
    if (!arg_starts(s, len, pre))
        return 0;
    const char *st[MAXA];
    size_t ln[MAXA];
    if (tfl_pt_template_args(s + strlen(pre) - 1, st, ln, MAXA) != 2)
        return 0;
    if (!tfl_pt_type_name(st[0], ln[0], dt))
        return 0;
    if (arg_is(st[1], ln[1], "true")) *wide = 0;
    else if (arg_is(st[1], ln[1], "false")) *wide = 1;
    else return 0;
    return 1;
}

static int parse_cub_scan(const char *nm, scan_kernel *k)
{
    static const char scan[] = "void cub::detail::scan::DeviceScanKernel<";
    static const char init[] = "void cub::detail::scan::DeviceScanInitKernel<";
    static const char cinit[] = "void cub::detail::scan::DeviceCompactInitKernel<";
    const char *st[MAXA];
    size_t ln[MAXA];
    if (strncmp(nm, init, strlen(init)) == 0) {
        if (tfl_pt_template_args(nm + strlen(init) - 1, st, ln, MAXA) != 1 ||
            !parse_tile_state(st[0], ln[0], &k->dtype, &k->tile_state_wide))
            return 0;
        /* only in front of the DeviceScanKernels this family runs */
        if (k->dtype != TFL_DT_F32 && k->dtype != TFL_DT_F64 && k->dtype != TFL_DT_I32 &&
            k->dtype != TFL_DT_I64)
            return 0;
        k->kind = SK_CUB_SCAN_INIT;
        k->op_name = "cub_scan_init";
        return 1;
    }
    if (strncmp(nm, cinit, strlen(cinit)) == 0) {
        if (tfl_pt_template_args(nm + strlen(cinit) - 1, st, ln, MAXA) != 2 ||
            !parse_tile_state(st[0], ln[0], &k->dtype, &k->tile_state_wide) ||
            k->tile_state_wide)
            return 0;
        if (arg_is(st[1], ln[1], "int*")) k->count_dtype = TFL_DT_I32;
        else if (arg_is(st[1], ln[1], "long*")) k->count_dtype = TFL_DT_I64;
        else return 0;
        k->kind = SK_CUB_COMPACT_INIT;
        k->op_name = "cub_compact_init";
        return 1;
    }
    if (strncmp(nm, scan, strlen(scan)) != 0)
        return 0;
    /* <Policy, InputIt, OutputIt, TileState, ScanOp, InitValue, OffsetT,
     *  AccumT, ForceInclusive, RealInitValue> */
    int na = tfl_pt_template_args(nm + strlen(scan) - 1, st, ln, MAXA);
    if (na != 10)
        return 0;
    char tname[64];
    tfl_dtype ts_dt;
    if (!elem_type(st[7], ln[7], &k->dtype, tname, sizeof tname) ||
        !arg_is_ptr(st[1], ln[1], tname, 1) || !arg_is_ptr(st[2], ln[2], tname, 0) ||
        !parse_tile_state(st[3], ln[3], &ts_dt, &k->tile_state_wide) || ts_dt != k->dtype ||
        !parse_fn(st[4], ln[4], tname, &k->fn) ||
        !arg_is(st[5], ln[5], "cub::NullType") ||   /* inclusive, no init */
        !arg_is(st[6], ln[6], "unsigned int") || !arg_is(st[8], ln[8], "false"))
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
static int parse_cub_reduce(const char *nm, scan_kernel *k)
{
    static const char single[] = "void cub::detail::reduce::DeviceReduceSingleTileKernel<";
    static const char multi[] = "void cub::detail::reduce::DeviceReduceKernel<";
    static const char policy[] = "cub::detail::reduce::policy_hub<int, unsigned long long, cuda::std::plus<void> >::Policy";
    const char *st[MAXA];
    size_t ln[MAXA];
    int is_single = strncmp(nm, single, strlen(single)) == 0;
    if (!is_single && strncmp(nm, multi, strlen(multi)) != 0)
        return 0;
    const char *lt = nm + (is_single ? strlen(single) : strlen(multi)) - 1;
    int na = tfl_pt_template_args(lt, st, ln, MAXA);
    /* single: <Policy, InputIt, OutputIt, OffsetT, Op, InitT, AccumT, Transform>
     * multi:  <Policy, InputIt, OffsetT, Op, AccumT, Transform> */
    if (na != (is_single ? 8 : 6) || !arg_starts(st[0], ln[0], policy))
        return 0;
    int off = is_single ? 3 : 2, opi = off + 1;
    if (arg_is(st[off], ln[off], "unsigned long long")) k->offset64 = 1;
    else if (arg_is(st[off], ln[off], "int")) k->offset64 = 0;
    else return 0;
    if (!arg_is(st[opi], ln[opi], "cuda::std::plus<void>") ||
        !arg_is(st[na - 2], ln[na - 2], "int") || !arg_is(st[na - 1], ln[na - 1], "cuda::std::__identity"))
        return 0;
    if (is_single && (!arg_is(st[2], ln[2], "int*") || !arg_is(st[5], ln[5], "int")))
        return 0;
    if (parse_nonzero_iter(st[1], ln[1], &k->dtype)) {
        k->nonzero_input = 1;
    } else if (arg_is(st[1], ln[1], "int*")) {
        k->nonzero_input = 0;
        k->dtype = TFL_DT_I32;
    } else {
        return 0;
    }
    k->kind = is_single ? SK_CUB_REDUCE_SINGLE : SK_CUB_REDUCE_MULTI;
    k->op_name = "nonzero_count";
    return 1;
}

static int parse_cub_select(const char *nm, scan_kernel *k)
{
    static const char sweep[] = "void cub::detail::select::DeviceSelectSweepKernel<";
    const char *st[MAXA];
    size_t ln[MAXA];
    if (strncmp(nm, sweep, strlen(sweep)) != 0)
        return 0;
    /* <Policy, InputIt, FlagsIt, SelectedOut, NumSelectedOut, TileState,
     *  SelectOp, EqualityOp, OffsetT, StreamingContext, SelectImpl> */
    if (tfl_pt_template_args(nm + strlen(sweep) - 1, st, ln, MAXA) != 11)
        return 0;
    tfl_dtype ts_dt;
    int wide;
    if (!arg_starts(st[1], ln[1], "thrust::counting_iterator<long, ") ||
        !parse_nonzero_iter(st[2], ln[2], &k->dtype) || !arg_is(st[3], ln[3], "long*") ||
        !arg_is(st[4], ln[4], "int*") || !parse_tile_state(st[5], ln[5], &ts_dt, &wide) ||
        ts_dt != TFL_DT_I32 || wide || !arg_is(st[6], ln[6], "cub::NullType") ||
        !arg_is(st[7], ln[7], "cub::NullType") || !arg_is(st[8], ln[8], "int") ||
        !arg_is(st[9], ln[9], "cub::detail::select::streaming_context_t<long, true>") ||
        !arg_is(st[10], ln[10], "(cub::SelectImpl)0"))
        return 0;
    k->kind = SK_CUB_SELECT_NONZERO;
    k->op_name = "nonzero_select";
    return 1;
}

int tfl_scan_parse(const char *dm, scan_kernel *k)
{
    memset(k, 0, sizeof *k);
    if (strncmp(dm, "void at::native::(anonymous namespace)::write_indices<long>(", 59) == 0) {
        k->kind = SK_NONZERO_UNRAVEL;
        k->op_name = "nonzero_unravel";
        return 1;
    }
    char *nm = normalise(dm);
    if (!nm)
        return 0;
    int ok = parse_aten(nm, k) || parse_cub_scan(nm, k) || parse_cub_reduce(nm, k) ||
             parse_cub_select(nm, k);
    free(nm);
    return ok;
}

static int match(const char *m, void **cookie)
{
    /* cheap filter before demangling */
    if (!strstr(m, "scan") && !strstr(m, "Reduce") && !strstr(m, "Select") &&
        !strstr(m, "write_indices"))
        return 0;
    char *dm = tfl_pt_demangle(m);
    if (!dm)
        return 0;
    scan_kernel k;
    int ok = tfl_scan_parse(dm, &k);
    free(dm);
    if (!ok)
        return 0;
    scan_kernel *c = malloc(sizeof *c);
    if (!c)
        return 0;
    *c = k;
    *cookie = c;
    return 1;
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
};

/*
 * foreach.c - the "foreach" kernel family of the semantic op table:
 * PyTorch's multi_tensor_apply_kernel launches (the _foreach_* ops behind
 * the foreach paths of SGD, Adam, AdamW, clip_grad_norm_) and
 * lpnorm_cleanup, decoded into tfl_foreach_op (torchfl/ops/foreach.h).
 * Kernels are recognised by base name and template arguments (kname.h).
 *
 * Kernel: multi_tensor_apply_kernel<Meta, Functor, Args...>(Meta, Functor,
 * Args...), block 512, one block per (tensor, chunk of 65536 elements).
 * The metadata structs (MultiTensorApply.cuh) are sized by per-depth
 * tables of T tensors and B blocks (sizes checked against the cubins):
 *   TensorListMetadata<D>: addresses[D][T], numel[T] (int64),
 *     block_to_tensor[B], block_to_chunk[B] (int32),
 *     start_tensor_this_launch (int32);
 *   TensorListScalarListMetadata<float, D>: addresses[D][Ts], numel[Ts],
 *     scalar_vals[Ts] (float), block_to_tensor[B], block_to_chunk[B];
 *   FusedOptimizerTensorListMetadata<D> (fused Adam/AdamW, D = 4, 5):
 *     addresses[D][T], numel[T], state_steps_addresses[T] (2.11: [Ts],
 *     the same numbers for D = 4, 5), block_to_tensor[B],
 *     block_to_chunk[B], start_tensor_this_launch;
 *   fused SGD (FusedSgdMathFunctor<T, 2|3>) uses TensorListMetadata.
 * The tables depend on the release, not on the kernel's name:
 *   2.11 (4 KB parameters): T = 110, 64, 48, 36, 30, Ts = 96, 64, 48, 36,
 *     30 for D = 1..5, B = 320, block_to_tensor unsigned char (3368, 3144,
 *     3144, 3048 bytes for TensorListMetadata<1..4>);
 *   2.12 on, built with CUDA 13 (32 KB parameters): T = 770, 448, 336,
 *     252, 210, Ts = 672, 448, 336, 252, 210, B = 2240, block_to_tensor
 *     uint16 (25768, 24200, 24200, 23528 bytes).
 * So the geometry is that of the torch release being decoded
 * (mta_release()), and the layout check confirms the struct size.
 *
 * Functor<T, depth, r_args_depth, res_arg_index>: lists 0..r-1 are read,
 * list res_arg_index is written.  T (the list element type) may be float,
 * c10::Half or c10::BFloat16; the functor's op is always on float (opmath).
 *
 * _foreach_norm: LpNormFunctor<T, NormType, out_t, 1, 1, 0>(float*
 * partials, int max_chunks) writes one float partial per (tensor, chunk);
 * lpnorm_cleanup<T, NormType, out_t, apply_root, float>(const float*
 * partials, TensorListAddresses (400 pointers; 3200 from 2.12), int
 * max_chunks) reduces them into out_t (float, Half or BFloat16).  NormType
 * is { L1, L2, LInf } in 2.11 and { L0, L1, L2, LInf } from 2.12: the same
 * name means a different norm in the two, so the enum is read by release
 * too.  L0 (_foreach_norm(ord=0), read from the 2.12 SASS): the partial
 * kernel adds FSET.BF.NEU(x, 0) in float, i.e. counts x != 0 with NaN
 * counted; its cleanup sums the partials and stores the sum without a
 * root for either apply_root (no MUFU.SQRT/RSQ in the true form).
 * 2.15 packs the partials (read from its SASS): an int64
 * array of per-tensor offsets (n + 1 entries, a prefix sum of the chunk
 * counts) replaces max_chunks.  LpNormFunctor(float* partials, const
 * int64* offsets) writes partials[offsets[start_tensor_this_launch +
 * tensor] + chunk]; lpnorm_cleanup(const float* partials,
 * TensorListAddresses, const int64* offsets, int first) reduces block b's
 * partials[offsets[first + b] .. offsets[first + b + 1]) into address b.
 * The decoder turns each tensor's range into the op's max_chunks form
 * (one op per tensor); a tensor without chunks (empty) is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"
#include "route/torch_release.h"

#define KCHUNK 65536

/* ----------------------------------------------------------- release */

/* The per-depth tables of a release (see the header comment). */
typedef struct mta_geom {
    int tensors[5];              /* T: TensorListMetadata, fused optimizers */
    int tensors_sl[5];           /* Ts: TensorListScalarListMetadata        */
    int blocks;                  /* B                                       */
    int b2t_bytes;               /* block_to_tensor element: 1 or 2         */
    int cleanup_addrs;           /* TensorListAddresses pointers            */
} mta_geom;

static const mta_geom geom_4k = {
    { 110, 64, 48, 36, 30 }, { 96, 64, 48, 36, 30 }, 320, 1, 400 };
static const mta_geom geom_32k = {
    { 770, 448, 336, 252, 210 }, { 672, 448, 336, 252, 210 }, 2240, 2, 3200 };

/* The most tensors / blocks any geometry has (the decoder's arrays). */
#define MAX_TENSORS 770
#define MAX_BLOCKS 2240
#define MAX_CLEANUP 3200

typedef struct mta_rel {
    int minor;                   /* torch 2.<minor>                         */
    int cuda_major;              /* its CUDA                                */
} mta_rel;

/* The release of the torch being decoded (tfl_torch_current: the loaded
 * one, or the wheel `torchfl wheel` checks); 2.11 (CUDA 13) when there is
 * none.  Called by match(), once per kernel. */
static mta_rel mta_release(void)
{
    mta_rel r = { 11, 13 };
    tfl_torch_info t;
    int cuda;
    if (tfl_torch_current(&t) == 0 && tfl_torch_minor(t.version) >= 0) {
        r.minor = tfl_torch_minor(t.version);
        r.cuda_major = sscanf(t.cuda, "%d", &cuda) == 1 ? cuda : 0;
    }
    return r;
}

/* 32 KB metadata from 2.12 in CUDA 13 builds (MultiTensorApply.cuh). */
static const mta_geom *geom_of(mta_rel r)
{
    return r.minor >= 12 && r.cuda_major >= 13 ? &geom_32k : &geom_4k;
}

/* A NormType template value of this release as tfl_foreach_norm, or 0
 * (out of range). */
static tfl_foreach_norm norm_of(mta_rel r, long long n)
{
    static const tfl_foreach_norm before_12[] = {
        TFL_FOREACH_NORM_L1, TFL_FOREACH_NORM_L2, TFL_FOREACH_NORM_LINF };
    static const tfl_foreach_norm from_12[] = {
        TFL_FOREACH_NORM_L0, TFL_FOREACH_NORM_L1, TFL_FOREACH_NORM_L2, TFL_FOREACH_NORM_LINF };
    if (r.minor >= 12)
        return n >= 0 && n < 4 ? from_12[n] : 0;
    return n >= 0 && n < 3 ? before_12[n] : 0;
}

/* ------------------------------------------------------------- match */

typedef enum fkind_extra {
    FX_NONE = 0,
    FX_SCALAR,          /* float scalar argument after the op          */
    FX_SCALAR_TENSOR,   /* T* scalar, float alpha                       */
    FX_ALPHA,           /* float alpha                                  */
} fkind_extra;

typedef enum fmeta {
    META_LIST = 1,      /* TensorListMetadata<D>                        */
    META_SCALAR_LIST,   /* TensorListScalarListMetadata<float, D>       */
    META_FUSED,         /* FusedOptimizerTensorListMetadata<D>          */
} fmeta;

typedef struct fcookie {
    int cleanup;                 /* lpnorm_cleanup kernel                    */
    tfl_dtype dtype;             /* T                                        */
    tfl_dtype out_dtype;         /* lpnorm_cleanup's out_t                   */
    tfl_foreach_kind kind;
    tfl_foreach_fn fn;
    tfl_foreach_norm norm;
    int apply_root;
    int offsets;                 /* norm kernels: 2.15's packed partials     */
    int depth, out_list;
    fmeta meta;
    fkind_extra extra;
    int adamw, amsgrad;          /* FusedAdamMathFunctor<T, D, mode, amsgrad> */
    const mta_geom *geom;        /* the release's metadata tables            */
    const char *op_size;         /* the op functor's klayout token           */
    const char *op;
} fcookie;

static const struct {
    const char *name;
    tfl_foreach_kind kind;
    int scalar_list;
    fkind_extra extra;
} functors[] = {
    { "ZeroFunctor", TFL_FOREACH_ZERO, 0, FX_NONE },
    { "UnaryOpFunctor", TFL_FOREACH_UNARY, 0, FX_NONE },
    { "BinaryOpScalarFunctor", TFL_FOREACH_BINARY_SCALAR, 0, FX_SCALAR },
    { "BinaryOpScalarListFunctor", TFL_FOREACH_BINARY_SCALAR, 1, FX_NONE },
    { "BinaryOpScalarTensorFunctor", TFL_FOREACH_BINARY_SCALAR, 0, FX_SCALAR_TENSOR },
    { "BinaryOpListAlphaFunctor", TFL_FOREACH_BINARY_LIST, 0, FX_ALPHA },
    { "PointwiseOpScalarFunctor", TFL_FOREACH_POINTWISE, 0, FX_SCALAR },
    { "PointwiseOpScalarListFunctor", TFL_FOREACH_POINTWISE, 1, FX_NONE },
    { "TernaryOpScalarFunctor", TFL_FOREACH_LERP_SCALAR, 0, FX_SCALAR },
    { "TernaryOpScalarListFunctor", TFL_FOREACH_LERP_SCALAR, 1, FX_NONE },
    { "TernaryOpListFunctor", TFL_FOREACH_LERP_LIST, 0, FX_NONE },
};

/* The ops (functors on float), by their simplified names.  All are
 * empty (one byte) but Reciprocal and Sigmoid, which are four bytes
 * (a float member the kernels do not read from the parameter: the SASS
 * has no load of it) - the "size" column (klayout token). */
static const struct {
    const char *name;
    tfl_foreach_fn fn;
    const char *op;
    const char *size;
} ops[] = {
    { "std::plus<float>", TFL_FOREACH_FN_ADD, "add", "b" },
    { "std::minus<float>", TFL_FOREACH_FN_SUB, "sub", "b" },
    { "std::multiplies<float>", TFL_FOREACH_FN_MUL, "mul", "b" },
    { "std::divides<float>", TFL_FOREACH_FN_DIV, "div", "b" },
    { "maximum<float>", TFL_FOREACH_FN_MAX, "maximum", "b" },
    { "minimum<float>", TFL_FOREACH_FN_MIN, "minimum", "b" },
    { "power_functor<float>", TFL_FOREACH_FN_POW, "pow", "b" },
    { "reverse_power_functor<float>", TFL_FOREACH_FN_REVPOW, "pow", "b" },
    { "Sqrt<float>", TFL_FOREACH_FN_SQRT, "sqrt", "b" },
    { "Copy<float, float>", TFL_FOREACH_FN_COPY, "copy", "b" },
    { "LerpFunctor<float>", TFL_FOREACH_FN_NONE, "lerp", "b" },
    { "std::negate<float>", TFL_FOREACH_FN_NEG, "neg", "b" },
    { "Abs<float>", TFL_FOREACH_FN_ABS, "abs", "b" },
    { "Reciprocal<float>", TFL_FOREACH_FN_RECIPROCAL, "reciprocal", "f" },
    { "Rsqrt<float>", TFL_FOREACH_FN_RSQRT, "rsqrt", "b" },
    { "Exp<float>", TFL_FOREACH_FN_EXP, "exp", "b" },
    { "Expm1<float>", TFL_FOREACH_FN_EXPM1, "expm1", "b" },
    { "Log<float>", TFL_FOREACH_FN_LOG, "log", "b" },
    { "Log1p<float>", TFL_FOREACH_FN_LOG1P, "log1p", "b" },
    { "Log2<float>", TFL_FOREACH_FN_LOG2, "log2", "b" },
    { "Log10<float>", TFL_FOREACH_FN_LOG10, "log10", "b" },
    { "Sigmoid<float>", TFL_FOREACH_FN_SIGMOID, "sigmoid", "f" },
    { "Tanh<float>", TFL_FOREACH_FN_TANH, "tanh", "b" },
    { "Sin<float>", TFL_FOREACH_FN_SIN, "sin", "b" },
    { "Cos<float>", TFL_FOREACH_FN_COS, "cos", "b" },
    { "Erf<float>", TFL_FOREACH_FN_ERF, "erf", "b" },
    { "Floor<float>", TFL_FOREACH_FN_FLOOR, "floor", "b" },
    { "Ceil<float>", TFL_FOREACH_FN_CEIL, "ceil", "b" },
    { "Round<float>", TFL_FOREACH_FN_ROUND, "round", "b" },
    { "Trunc<float>", TFL_FOREACH_FN_TRUNC, "trunc", "b" },
    { "Truncf<float>", TFL_FOREACH_FN_TRUNC, "trunc", "b" },
};

static int same(const char *s, size_t len, const char *str)
{
    return len == strlen(str) && memcmp(s, str, len) == 0;
}

static int has_suffix(const char *s, size_t len, const char *tail)
{
    size_t n = strlen(tail);
    return len >= n && memcmp(s + len - n, tail, n) == 0;
}

/* A list element type: float, Half or BFloat16. */
static int elem_type(const char *s, size_t len, tfl_dtype *dt)
{
    return tfl_pt_type_name(s, len, dt) &&
           (*dt == TFL_DT_F32 || *dt == TFL_DT_F16 || *dt == TFL_DT_BF16);
}

/* "Name<a, b, ...>" exactly (nothing after the '>'): its arguments (up to
 * max), or -1. */
static int templ(const char *s, size_t len, const char *name, const char **a, size_t *al,
                 int max)
{
    size_t n = strlen(name);
    if (len <= n + 1 || memcmp(s, name, n) != 0 || s[n] != '<')
        return -1;
    const char *e = tfl_pt_match_angle(s + n);
    if (e != s + len - 1)
        return -1;
    return tfl_pt_template_args(s + n, a, al, max);
}

/* An integer constant argument ("4", "(NormType)1", "true"). */
static int int_arg(const char *s, size_t len, long long *v)
{
    char buf[64];
    if (len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    const char *p = buf;
    if (*p == '(') {
        p = strchr(p, ')');
        if (!p)
            return 0;
        p++;
    }
    if (!strcmp(p, "true") || !strcmp(p, "false")) {
        *v = p[0] == 't';
        return 1;
    }
    char *end;
    *v = strtoll(p, &end, 10);
    return end != p && *end == '\0';
}

/* The pack arguments from template argument `from` on equal these. */
static int pack_is(const tfl_kname *k, int from, const char *const *want, int n)
{
    if (k->ntargs != from + n || k->nparams != k->ntargs)
        return 0;
    for (int i = 0; i < n; i++)
        if (!tfl_kname_targ_is(k, from + i, want[i]))
            return 0;
    return 1;
}

/* The metadata type (template argument 0): its kind and depth. */
static int parse_meta(const tfl_kname *k, fcookie *c)
{
    const char *a[2];
    size_t al[2];
    long long d;
    const char *s = k->targ[0];
    size_t n = k->targ_len[0];
    if (templ(s, n, "TensorListMetadata", a, al, 2) == 1 && int_arg(a[0], al[0], &d)) {
        c->meta = META_LIST;
    } else if (templ(s, n, "TensorListScalarListMetadata", a, al, 2) == 2 &&
               same(a[0], al[0], "float") && int_arg(a[1], al[1], &d)) {
        c->meta = META_SCALAR_LIST;
    } else if (templ(s, n, "FusedOptimizerTensorListMetadata", a, al, 2) == 1 &&
               int_arg(a[0], al[0], &d)) {
        c->meta = META_FUSED;
    } else {
        return 0;
    }
    if (d < 1 || d > 5)
        return 0;
    c->depth = (int)d;
    return 1;
}

/* lpnorm_cleanup<T, NormType n, out_t, bool apply_root, float>(const
 * float* partials, TensorListAddresses, int max_chunks), or (2.15) with
 * the const int64* offsets before the int (then the first tensor). */
static int match_cleanup(const tfl_kname *k, fcookie *c)
{
    long long n, root;
    c->offsets = k->nparams == 4 && tfl_kname_param_is(k, 2, "long const*");
    if (k->ntargs != 5 || k->nparams != 3 + c->offsets ||
        !tfl_kname_targ_dtype(k, 0, &c->dtype) ||
        (c->dtype != TFL_DT_F32 && c->dtype != TFL_DT_F16 && c->dtype != TFL_DT_BF16) ||
        !tfl_kname_targ_starts(k, 1, "(NormType)") || !tfl_kname_targ_int(k, 1, &n) ||
        !elem_type(k->targ[2], k->targ_len[2], &c->out_dtype) ||
        !tfl_kname_targ_int(k, 3, &root) || !tfl_kname_targ_is(k, 4, "float") ||
        !tfl_kname_param_is(k, 0, "float const*") ||
        !tfl_kname_param_is(k, 1, "TensorListAddresses") ||
        !tfl_kname_param_is(k, 2 + c->offsets, "int") ||
        !(c->norm = norm_of(mta_release(), n)))
        return 0;
    c->cleanup = 1;
    c->kind = TFL_FOREACH_NORM_FINISH;
    c->apply_root = root != 0;
    c->op = "norm";
    return 1;
}

/* FusedAdamMathFunctor<T, 4|5, ADAM_MODE, amsgrad> over
 * FusedOptimizerTensorListMetadata<4|5>; arguments (const float* lr_ptr,
 * double lr, beta1, beta2, weight_decay, eps, bool maximize,
 * const float* grad_scale, const float* found_inf). */
static int match_fused_adam(const tfl_kname *k, const char *const *a, const size_t *al,
                            int na, fcookie *c)
{
    static const char *const pack[] = { "float const*", "double", "double", "double",
                                        "double", "double", "bool", "float const*",
                                        "float const*" };
    long long d, mode, ams;
    if (na != 4 || c->meta != META_FUSED || !elem_type(a[0], al[0], &c->dtype) ||
        !int_arg(a[1], al[1], &d) || d != c->depth || (d != 4 && d != 5) ||
        strncmp(a[2], "(ADAM_MODE)", 11) != 0 || !int_arg(a[2], al[2], &mode) ||
        (mode != 0 && mode != 1) || !int_arg(a[3], al[3], &ams) || ams != (d == 5) ||
        !pack_is(k, 2, pack, 9))
        return 0;
    c->kind = TFL_FOREACH_ADAM;
    c->adamw = (int)mode;
    c->amsgrad = (int)ams;
    c->op = mode ? "fused_adamw" : "fused_adam";
    return 1;
}

/* FusedSgdMathFunctor<T, 2|3> over TensorListMetadata<2|3>; arguments
 * (double weight_decay, double momentum, const float* lr_ptr, double lr,
 * double dampening, bool nesterov, bool maximize, bool is_first_step,
 * const float* grad_scale, const float* found_inf). */
static int match_fused_sgd(const tfl_kname *k, const char *const *a, const size_t *al,
                           int na, fcookie *c)
{
    static const char *const pack[] = { "double", "double", "float*", "double", "double",
                                        "bool", "bool", "bool", "float*", "float*" };
    long long d;
    if (na != 2 || c->meta != META_LIST || !elem_type(a[0], al[0], &c->dtype) ||
        !int_arg(a[1], al[1], &d) || d != c->depth || (d != 2 && d != 3) ||
        !pack_is(k, 2, pack, 10))
        return 0;
    c->kind = TFL_FOREACH_SGD;
    c->out_list = 0;
    c->op = "fused_sgd";
    return 1;
}

/* _foreach_norm's partial sums: LpNormFunctor<T, NormType n, out_t, 1, 1,
 * 0>(float* partials, int max_chunks | const int64* offsets (2.15)) over
 * TensorListMetadata<1>; out_t only types the final result
 * (lpnorm_cleanup's). */
static int match_lpnorm(const tfl_kname *k, const char *const *a, const size_t *al, int na,
                        fcookie *c)
{
    static const char *const pack[] = { "float*", "int" };
    static const char *const pack_offsets[] = { "float*", "long const*" };
    long long n, one, one2, zero;
    tfl_dtype out;
    if (na != 6 || c->meta != META_LIST || c->depth != 1 ||
        !elem_type(a[0], al[0], &c->dtype) || strncmp(a[1], "(NormType)", 10) != 0 ||
        !int_arg(a[1], al[1], &n) || !elem_type(a[2], al[2], &out) ||
        !int_arg(a[3], al[3], &one) || !int_arg(a[4], al[4], &one2) ||
        !int_arg(a[5], al[5], &zero) || one != 1 || one2 != 1 || zero != 0 ||
        !(c->norm = norm_of(mta_release(), n)))
        return 0;
    if (pack_is(k, 2, pack_offsets, 2))
        c->offsets = 1;
    else if (!pack_is(k, 2, pack, 2))
        return 0;
    c->kind = TFL_FOREACH_NORM_PARTIAL;
    c->out_list = 0;
    c->op = "norm";
    return 1;
}

/* GradScaler: _amp_foreach_non_finite_check_and_unscale_cuda_'s lambda
 * (found_inf @0 and inv_scale @8, 24 bytes; read from the SASS) in
 * UnaryOpFunctor<T, 1, 1, 0>. */
static int is_unscale_lambda(const tfl_kname *k)
{
    return k->ntargs == 3 && k->nparams == 3 &&
           tfl_kname_targ_starts(k, 2, "_amp_foreach_non_finite_check_and_unscale_cuda_(") &&
           has_suffix(k->targ[2], k->targ_len[2], "::{lambda(float)#1}");
}

/* The op of an elementwise functor, and whether it goes with the functor
 * (old table: kinds and ops that go together). */
static int match_op(const tfl_kname *k, int f, int r, fcookie *c)
{
    int o = -1;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0] && o < 0; i++)
        if (tfl_kname_targ_is(k, 2, ops[i].name))
            o = (int)i;
    if (o < 0)
        return 0;
    /* the arguments after the op */
    char tptr[64];
    snprintf(tptr, sizeof tptr, "%s*", c->dtype == TFL_DT_F32 ? "float"
                                     : c->dtype == TFL_DT_F16 ? "c10::Half" : "c10::BFloat16");
    const char *const scalar[] = { "float" };
    const char *const scalar_tensor[] = { tptr, "float" };
    int ok = functors[f].extra == FX_SCALAR || functors[f].extra == FX_ALPHA
           ? pack_is(k, 3, scalar, 1)
           : functors[f].extra == FX_SCALAR_TENSOR ? pack_is(k, 3, scalar_tensor, 2)
                                                   : pack_is(k, 3, NULL, 0);
    if (!ok)
        return 0;
    c->fn = ops[o].fn;
    c->op = ops[o].op;
    c->op_size = ops[o].size;
    int is_lerp = ops[o].fn == TFL_FOREACH_FN_NONE;
    switch (c->kind) {
    case TFL_FOREACH_UNARY:
        return c->fn >= TFL_FOREACH_FN_SQRT && c->fn <= TFL_FOREACH_FN_TRUNC && r == 1;
    case TFL_FOREACH_BINARY_SCALAR:
        return !is_lerp && c->fn <= TFL_FOREACH_FN_REVPOW && r == 1;
    case TFL_FOREACH_BINARY_LIST:
        return !is_lerp && c->fn <= TFL_FOREACH_FN_POW && r == 2;
    case TFL_FOREACH_POINTWISE:
        if (c->fn == TFL_FOREACH_FN_MUL) c->op = "addcmul";
        else if (c->fn == TFL_FOREACH_FN_DIV) c->op = "addcdiv";
        else return 0;
        return r == 3;
    case TFL_FOREACH_LERP_SCALAR:
        return is_lerp && r == 2;
    case TFL_FOREACH_LERP_LIST:
        return is_lerp && r == 3;
    default:
        return 0;
    }
}

/* multi_tensor_apply_kernel<Meta, Functor, Args...>(Meta, Functor, Args...) */
static int match_apply(const tfl_kname *k, fcookie *c)
{
    if (k->ntargs < 2 || k->ntargs > TFL_KNAME_MAX || !parse_meta(k, c))
        return 0;
    const char *a[8];
    size_t al[8];
    const char *s = k->targ[1];
    size_t n = k->targ_len[1];
    int na;
    if ((na = templ(s, n, "FusedAdamMathFunctor", a, al, 8)) >= 0)
        return match_fused_adam(k, a, al, na, c);
    if ((na = templ(s, n, "FusedSgdMathFunctor", a, al, 8)) >= 0)
        return match_fused_sgd(k, a, al, na, c);
    if ((na = templ(s, n, "LpNormFunctor", a, al, 8)) >= 0)
        return match_lpnorm(k, a, al, na, c);
    int f = -1;
    for (size_t i = 0; i < sizeof functors / sizeof functors[0] && f < 0; i++)
        if ((na = templ(s, n, functors[i].name, a, al, 8)) >= 0)
            f = (int)i;
    long long d, r, w;
    if (f < 0 || na != 4 || functors[f].scalar_list != (c->meta == META_SCALAR_LIST) ||
        c->meta == META_FUSED || !elem_type(a[0], al[0], &c->dtype) ||
        !int_arg(a[1], al[1], &d) || !int_arg(a[2], al[2], &r) || !int_arg(a[3], al[3], &w) ||
        d != c->depth || r < 0 || r > d || w < 0 || w >= d)
        return 0;
    c->kind = functors[f].kind;
    c->extra = functors[f].extra;
    c->out_list = (int)w;
    if (c->kind == TFL_FOREACH_ZERO) {
        c->op = "zero";
        return pack_is(k, 2, NULL, 0);
    }
    if (c->kind == TFL_FOREACH_UNARY && is_unscale_lambda(k)) {
        if (d != 1 || r != 1 || w != 0 || c->meta != META_LIST)
            return 0;
        c->kind = TFL_FOREACH_UNSCALE;
        c->op = "amp_unscale";
        return 1;
    }
    return k->ntargs >= 3 && match_op(k, f, (int)r, c);
}

/* amp_update_scale_cuda_kernel(float*, int*, const float*, double, double, int) */
static int match_update_scale(const tfl_kname *k, fcookie *c)
{
    static const char *const params[] = { "float*", "int*", "float const*", "double",
                                          "double", "int" };
    if (k->ntargs != 0 || k->nparams != 6)
        return 0;
    for (int i = 0; i < 6; i++)
        if (!tfl_kname_param_is(k, i, params[i]))
            return 0;
    c->kind = TFL_FOREACH_UPDATE_SCALE;
    c->op = "amp_update_scale";
    return 1;
}

static int match(const char *mangled, void **cookie)
{
    if (!strstr(mangled, "multi_tensor_apply_kernel") && !strstr(mangled, "lpnorm_cleanup") &&
        !strstr(mangled, "amp_update_scale_cuda_kernel"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(mangled, &k) != 0)
        return 0;
    fcookie c;
    memset(&c, 0, sizeof c);
    int ok = tfl_kname_is(&k, "multi_tensor_apply_kernel") ? match_apply(&k, &c)
           : tfl_kname_is(&k, "lpnorm_cleanup") ? match_cleanup(&k, &c)
           : tfl_kname_is(&k, "amp_update_scale_cuda_kernel") ? match_update_scale(&k, &c) : 0;
    tfl_kname_free(&k);
    if (!ok)
        return 0;
    c.geom = geom_of(mta_release());
    return tfl_kcookie_keep(&c, sizeof c, cookie);
}

static const char *op_name(void *cookie)
{
    return cookie ? ((fcookie *)cookie)->op : "foreach";
}

/* ------------------------------------------------------------ layout */

/* Where the metadata's arrays are, for a cookie's geometry and kind. */
typedef struct meta_map {
    int T;                       /* tensors the struct holds               */
    size_t numel, scalar, steps, b2t, b2c, start, size;
} meta_map;

static meta_map meta_of(const fcookie *c)
{
    const mta_geom *g = c->geom;
    meta_map m;
    memset(&m, 0, sizeof m);
    const int D = c->depth;
    m.T = c->meta == META_SCALAR_LIST ? g->tensors_sl[D - 1] : g->tensors[D - 1];
    m.numel = (size_t)D * (size_t)m.T * 8;
    size_t end = m.numel + (size_t)m.T * 8;
    if (c->meta == META_SCALAR_LIST) {
        m.scalar = end;
        end += (size_t)m.T * 4;
    } else if (c->meta == META_FUSED) {
        m.steps = end;
        end += (size_t)m.T * 8;
    }
    m.b2t = end;
    m.b2c = tfl_pt_align(m.b2t + (size_t)g->blocks * (size_t)g->b2t_bytes, 4);
    m.start = m.b2c + 4 * (size_t)g->blocks;
    end = c->meta == META_SCALAR_LIST ? m.start : m.start + 4;
    m.size = tfl_pt_align(end, 8);
    return m;
}

/* The parameters each kind's run() reads (optable.h signature tokens,
 * after the metadata and the functor's byte). */
static int layout(void *cookie, tfl_klayout *l)
{
    const fcookie *c = cookie;
    char sig[96];
    if (c->cleanup) {
        snprintf(sig, sizeof sig, "p %d:8%s i", 8 * c->geom->cleanup_addrs,
                 c->offsets ? " p" : "");
        return tfl_klayout_sig(l, sig) == 0;
    }
    if (c->kind == TFL_FOREACH_UPDATE_SCALE)
        return tfl_klayout_sig(l, "p p p d d i") == 0;
    const char *args;
    switch (c->kind) {
    case TFL_FOREACH_ZERO:         args = ""; break;
    case TFL_FOREACH_UNSCALE:      args = " 24:8"; break;   /* the lambda */
    case TFL_FOREACH_NORM_PARTIAL: args = c->offsets ? " p p" : " p i"; break;
    case TFL_FOREACH_SGD:          args = " d d p d d b b b p p"; break;
    case TFL_FOREACH_ADAM:         args = " p d d d d d b p p"; break;
    default:                                                  /* the op, then extras */
        args = c->extra == FX_SCALAR || c->extra == FX_ALPHA ? " f"
             : c->extra == FX_SCALAR_TENSOR ? " p f" : "";
        snprintf(sig, sizeof sig, "%zu:8 b %s%s", meta_of(c).size, c->op_size, args);
        return tfl_klayout_sig(l, sig) == 0;
    }
    snprintf(sig, sizeof sig, "%zu:8 b%s", meta_of(c).size, args);
    return tfl_klayout_sig(l, sig) == 0;
}
/* ------------------------------------------------------------ decode */

static float rd_f32(const void *p) { float v; memcpy(&v, p, 4); return v; }
static double rd_f64(const void *p) { double v; memcpy(&v, p, 8); return v; }
static int32_t rd_i32(const void *p) { int32_t v; memcpy(&v, p, 4); return v; }
static int64_t rd_i64(const void *p) { int64_t v; memcpy(&v, p, 8); return v; }
static void *rd_ptr(const void *p) { void *v; memcpy(&v, p, sizeof v); return v; }

static tfl_status bad_range(const void *p, size_t n, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "foreach: %s at %p (+%zu bytes) is not device memory", what, p, n);
    return TFL_ERR_INVALID;
}

/* offsets[from .. from + n] (2.15's norm kernels): device int64s, read
 * into out[]; each range must be nondecreasing. */
static tfl_status read_offsets(const int64_t *offsets, int64_t from, int n, int64_t *out,
                               char *err, size_t errlen)
{
    const int64_t *p = offsets + from;
    const size_t bytes = (size_t)(n + 1) * sizeof *p;
    if (from < 0 || !tfl_mem_check_range(p, bytes, NULL))
        return bad_range(p, bytes, "norm offsets", err, errlen);
    memcpy(out, p, bytes);
    for (int i = 0; i < n; i++)
        if (out[i] < 0 || out[i + 1] < out[i] || out[i + 1] - out[i] > INT32_MAX) {
            snprintf(err, errlen, "foreach: norm offsets %lld..%lld",
                     (long long)out[i], (long long)out[i + 1]);
            return TFL_ERR_INVALID;
        }
    return TFL_OK;
}

/* 2.15's cleanup: one NORM_FINISH op per output over its partials range. */
static tfl_status run_cleanup_offsets(const tfl_kcall *call, tfl_op *op, void **outs, int n,
                                      char *err, size_t errlen)
{
    float *partials = rd_ptr(call->args[0]);
    const int64_t *offsets = rd_ptr(call->args[2]);
    int first = rd_i32(call->args[3]);
    int64_t *off = malloc((size_t)(n + 1) * sizeof *off);
    tfl_status st = off ? read_offsets(offsets, first, n, off, err, errlen) : TFL_ERR_NOMEM;
    tfl_foreach_op *f = &op->u.foreach;
    for (int t = 0; t < n && st == TFL_OK; t++) {
        size_t bytes = (size_t)(off[t + 1] - off[t]) * sizeof(float);
        if (!bytes) {
            snprintf(err, errlen, "foreach: norm of a tensor without partials (empty)");
            st = TFL_ERR_UNSUPPORTED;
        } else if (!tfl_mem_check_range(partials + off[t], bytes, NULL)) {
            st = bad_range(partials + off[t], bytes, "norm partials", err, errlen);
        } else {
            f->partials = partials + off[t];
            f->max_chunks = (int)(off[t + 1] - off[t]);
            f->finish_out = outs + t;
            f->nfinish = 1;
            st = tfl_route_op(op, call->stream);
        }
    }
    free(off);
    return st;
}

static tfl_status run_cleanup(const tfl_kcall *call, const fcookie *c, char *err, size_t errlen)
{
    float *partials = rd_ptr(call->args[0]);
    const unsigned char *addrs = call->args[1];
    int max_chunks = c->offsets ? 1 : rd_i32(call->args[2]);
    int n = (int)call->grid[0];
    if (n <= 0 || n > c->geom->cleanup_addrs || max_chunks <= 0 || call->grid[1] != 1 ||
        call->grid[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    size_t bytes = (size_t)n * (size_t)max_chunks * sizeof(float);
    if (!c->offsets && !tfl_mem_check_range(partials, bytes, NULL))
        return bad_range(partials, bytes, "norm partials", err, errlen);
    void *outs[MAX_CLEANUP];
    const size_t os = tfl_dtype_size(c->out_dtype);
    for (int t = 0; t < n; t++) {
        outs[t] = rd_ptr(addrs + 8 * (size_t)t);
        if (!tfl_mem_check_range(outs[t], os, NULL))
            return bad_range(outs[t], os, "norm output", err, errlen);
    }
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_FOREACH;
    op.name = c->op;
    tfl_foreach_op *f = &op.u.foreach;
    f->kind = TFL_FOREACH_NORM_FINISH;
    f->dtype = c->dtype;
    f->out_dtype = c->out_dtype;
    f->depth = 1;
    f->chunk_size = KCHUNK;
    f->norm = c->norm;
    f->apply_root = c->apply_root;
    if (c->offsets)
        return run_cleanup_offsets(call, &op, outs, n, err, errlen);
    f->partials = partials;
    f->max_chunks = max_chunks;
    f->finish_out = outs;
    f->nfinish = n;
    return tfl_route_op(&op, call->stream);
}

static tfl_status run_update_scale(const tfl_kcall *call, const fcookie *c, char *err,
                                   size_t errlen)
{
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_FOREACH;
    op.name = c->op;
    tfl_foreach_op *f = &op.u.foreach;
    f->kind = TFL_FOREACH_UPDATE_SCALE;
    f->scale = rd_ptr(call->args[0]);
    f->growth_tracker = rd_ptr(call->args[1]);
    f->found_inf = rd_ptr(call->args[2]);
    f->growth_factor = rd_f64(call->args[3]);
    f->backoff_factor = rd_f64(call->args[4]);
    f->growth_interval = rd_i32(call->args[5]);
    if (!tfl_mem_check_range(f->scale, 4, NULL))
        return bad_range(f->scale, 4, "scale", err, errlen);
    if (!tfl_mem_check_range(f->growth_tracker, 4, NULL))
        return bad_range(f->growth_tracker, 4, "growth tracker", err, errlen);
    if (!tfl_mem_check_range(f->found_inf, 4, NULL))
        return bad_range(f->found_inf, 4, "found_inf", err, errlen);
    return tfl_route_op(&op, call->stream);
}

/* The metadata's tensors and blocks, by the release's geometry.  The
 * block_to_tensor entries are unsigned char (4 KB) or uint16 (32 KB). */
static tfl_status read_meta(const fcookie *c, const unsigned char *meta, int nblocks,
                            tfl_foreach_tensor *tensors, int *ntensors,
                            tfl_foreach_block *blocks, char *err, size_t errlen)
{
    const meta_map m = meta_of(c);
    const int D = c->depth;
    *ntensors = 0;
    for (int b = 0; b < nblocks; b++) {
        int t;
        if (c->geom->b2t_bytes == 1) {
            t = meta[m.b2t + (size_t)b];
        } else {
            uint16_t v;
            memcpy(&v, meta + m.b2t + 2 * (size_t)b, 2);
            t = v;
        }
        int chunk = rd_i32(meta + m.b2c + 4 * (size_t)b);
        if (t >= m.T || chunk < 0) {
            snprintf(err, errlen, "foreach: block %d names tensor %d chunk %d (of %d tensors)",
                     b, t, chunk, m.T);
            return TFL_ERR_INVALID;
        }
        blocks[b].tensor = t;
        blocks[b].chunk = chunk;
        if (t + 1 > *ntensors)
            *ntensors = t + 1;
    }
    for (int t = 0; t < *ntensors; t++) {
        tfl_foreach_tensor *x = &tensors[t];
        memset(x, 0, sizeof *x);
        x->numel = rd_i64(meta + m.numel + 8 * (size_t)t);
        if (c->meta == META_SCALAR_LIST)
            x->scalar = rd_f32(meta + m.scalar + 4 * (size_t)t);
        if (c->meta == META_FUSED) {
            x->step = rd_ptr(meta + m.steps + 8 * (size_t)t);
            if (!tfl_mem_check_range(x->step, sizeof(float), NULL))
                return bad_range(x->step, sizeof(float), "state step", err, errlen);
        }
        for (int k = 0; k < D; k++)
            x->ptr[k] = rd_ptr(meta + 8 * ((size_t)k * (size_t)m.T + (size_t)t));
    }
    return TFL_OK;
}


/* 2.15's partial sums: per tensor of the launch, one NORM_PARTIAL op over
 * its blocks (as tensor 0) writing its range of the packed partials. */
static tfl_status run_partials_offsets(const tfl_kcall *call, const fcookie *c, tfl_op *op,
                                       const unsigned char *meta, char *err, size_t errlen)
{
    tfl_foreach_op *f = &op->u.foreach;
    const tfl_foreach_tensor *tensors = f->tensors;
    const tfl_foreach_block *blocks = f->blocks;
    const int ntensors = f->ntensors, nblocks = f->nblocks;
    float *partials = rd_ptr(call->args[2]);
    const int64_t *offsets = rd_ptr(call->args[3]);
    int first = rd_i32(meta + meta_of(c).start);
    int64_t off[MAX_TENSORS + 1];
    tfl_foreach_block mine[MAX_BLOCKS];
    tfl_status st = read_offsets(offsets, first, ntensors, off, err, errlen);
    f->norm = c->norm;
    f->first_index = 0;
    for (int t = 0; t < ntensors && st == TFL_OK; t++) {
        int nb = 0;
        for (int b = 0; b < nblocks; b++) {
            if (blocks[b].tensor != t)
                continue;
            if (blocks[b].chunk >= off[t + 1] - off[t])
                return TFL_ERR_INVALID;
            mine[nb].tensor = 0;
            mine[nb++].chunk = blocks[b].chunk;
        }
        if (!nb)
            continue;
        size_t bytes = (size_t)(off[t + 1] - off[t]) * sizeof(float);
        if (!tfl_mem_check_range(partials + off[t], bytes, NULL))
            return bad_range(partials + off[t], bytes, "norm partials", err, errlen);
        f->tensors = tensors + t;
        f->ntensors = 1;
        f->blocks = mine;
        f->nblocks = nb;
        f->partials = partials + off[t];
        f->max_chunks = (int)(off[t + 1] - off[t]);
        st = tfl_route_op(op, call->stream);
    }
    return st;
}

static tfl_status run_apply(const tfl_kcall *call, const fcookie *c, tfl_foreach_tensor *tensors,
                            tfl_foreach_block *blocks, char *err, size_t errlen)
{
    const int D = c->depth;
    const int adam = c->kind == TFL_FOREACH_ADAM;
    const unsigned char *meta = call->args[0];
    const meta_map mm = meta_of(c);
    int nblocks = (int)call->grid[0];
    if (nblocks <= 0 || nblocks > c->geom->blocks || call->grid[1] != 1 || call->grid[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    int ntensors = 0;
    tfl_status st = read_meta(c, meta, nblocks, tensors, &ntensors, blocks, err, errlen);
    if (st != TFL_OK)
        return st;
    /* every list of every tensor a block touches must be device memory */
    for (int b = 0; b < nblocks; b++) {
        const tfl_foreach_tensor *x = &tensors[blocks[b].tensor];
        if (x->numel < 0 || (int64_t)blocks[b].chunk * KCHUNK >= x->numel) {
            snprintf(err, errlen, "foreach: chunk %d of a %lld-element tensor",
                     blocks[b].chunk, (long long)x->numel);
            return TFL_ERR_INVALID;
        }
        int64_t start = (int64_t)blocks[b].chunk * KCHUNK;
        int64_t n = x->numel - start < KCHUNK ? x->numel - start : KCHUNK;
        const size_t es = tfl_dtype_size(c->dtype);
        for (int k = 0; k < D; k++) {
            const char *p = (const char *)x->ptr[k] + (size_t)start * es;
            if (!tfl_mem_check_range(p, (size_t)n * es, NULL))
                return bad_range(p, (size_t)n * es, "tensor list", err, errlen);
        }
    }

    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_FOREACH;
    op.name = c->op;
    tfl_foreach_op *f = &op.u.foreach;
    f->kind = c->kind;
    f->fn = c->fn;
    f->dtype = c->dtype;
    f->depth = D;
    f->out_list = c->out_list;
    f->chunk_size = KCHUNK;
    f->ntensors = ntensors;
    f->tensors = tensors;
    f->nblocks = nblocks;
    f->blocks = blocks;
    f->per_tensor_scalar = c->meta == META_SCALAR_LIST;
    f->alpha = 1.0f;

    if (c->kind == TFL_FOREACH_NORM_PARTIAL && c->offsets)
        return run_partials_offsets(call, c, &op, meta, err, errlen);
    if (c->kind == TFL_FOREACH_NORM_PARTIAL) {
        float *partials = rd_ptr(call->args[2]);
        int max_chunks = rd_i32(call->args[3]);
        int first = rd_i32(meta + mm.start);
        if (max_chunks <= 0 || first < 0)
            return TFL_ERR_UNSUPPORTED;
        for (int b = 0; b < nblocks; b++) {
            if (blocks[b].chunk >= max_chunks)
                return TFL_ERR_INVALID;
            float *dst = partials + (int64_t)(first + blocks[b].tensor) * max_chunks + blocks[b].chunk;
            if (!tfl_mem_check_range(dst, sizeof(float), NULL))
                return bad_range(dst, sizeof(float), "norm partials", err, errlen);
        }
        f->norm = c->norm;
        f->partials = partials;
        f->max_chunks = max_chunks;
        f->first_index = first;
        return tfl_route_op(&op, call->stream);
    }

    if (c->kind == TFL_FOREACH_SGD) {
        f->weight_decay = rd_f64(call->args[2]);
        f->momentum = rd_f64(call->args[3]);
        f->lr_ptr = rd_ptr(call->args[4]);
        f->lr = rd_f64(call->args[5]);
        f->dampening = rd_f64(call->args[6]);
        f->nesterov = *(const unsigned char *)call->args[7] != 0;
        f->maximize = *(const unsigned char *)call->args[8] != 0;
        f->is_first_step = *(const unsigned char *)call->args[9] != 0;
        f->grad_scale = rd_ptr(call->args[10]);
        f->found_inf = rd_ptr(call->args[11]);
        const float *ps[3] = { f->lr_ptr, f->grad_scale, f->found_inf };
        for (int k = 0; k < 3; k++)
            if (ps[k] && !tfl_mem_check_range(ps[k], sizeof(float), NULL))
                return bad_range(ps[k], sizeof(float), "optimizer scalar", err, errlen);
        return tfl_route_op(&op, call->stream);
    }
    if (adam) {
        f->adamw = c->adamw;
        f->amsgrad = c->amsgrad;
        f->lr_ptr = rd_ptr(call->args[2]);
        f->lr = rd_f64(call->args[3]);
        f->beta1 = rd_f64(call->args[4]);
        f->beta2 = rd_f64(call->args[5]);
        f->weight_decay = rd_f64(call->args[6]);
        f->eps = rd_f64(call->args[7]);
        f->maximize = *(const unsigned char *)call->args[8] != 0;
        f->grad_scale = rd_ptr(call->args[9]);
        f->found_inf = rd_ptr(call->args[10]);
        const float *ps[3] = { f->lr_ptr, f->grad_scale, f->found_inf };
        for (int k = 0; k < 3; k++)
            if (ps[k] && !tfl_mem_check_range(ps[k], sizeof(float), NULL))
                return bad_range(ps[k], sizeof(float), "optimizer scalar", err, errlen);
        return tfl_route_op(&op, call->stream);
    }

    if (c->kind == TFL_FOREACH_UNSCALE) {
        const unsigned char *lam = call->args[2];
        f->found_inf_out = rd_ptr(lam);
        f->inv_scale = rd_ptr(lam + 8);
        if (!tfl_mem_check_range(f->found_inf_out, 4, NULL))
            return bad_range(f->found_inf_out, 4, "found_inf", err, errlen);
        if (!tfl_mem_check_range(f->inv_scale, 4, NULL))
            return bad_range(f->inv_scale, 4, "inv_scale", err, errlen);
        return tfl_route_op(&op, call->stream);
    }

    /* the arguments after the op (args[3]...) */
    switch (c->extra) {
    case FX_SCALAR:
        f->scalar = rd_f32(call->args[3]);
        break;
    case FX_ALPHA:
        f->alpha = rd_f32(call->args[3]);
        break;
    case FX_SCALAR_TENSOR: {
        const float *sp = rd_ptr(call->args[3]);
        const size_t ss = tfl_dtype_size(c->dtype);
        if (!tfl_mem_check_range(sp, ss, NULL))
            return bad_range(sp, ss, "scalar tensor", err, errlen);
        f->scalar_ptr = sp;
        f->scalar_ptr_dtype = c->dtype;
        f->alpha = rd_f32(call->args[4]);
        break;
    }
    default:
        break;
    }
    return tfl_route_op(&op, call->stream);
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const fcookie *c = cookie;
    if (!c || !call->args)
        return TFL_ERR_UNSUPPORTED;
    if (c->cleanup)
        return run_cleanup(call, c, err, errlen);
    if (c->kind == TFL_FOREACH_UPDATE_SCALE)
        return run_update_scale(call, c, err, errlen);
    /* up to 770 tensors and 2240 blocks (32 KB metadata): off the stack */
    tfl_foreach_tensor *tensors = malloc(MAX_TENSORS * sizeof *tensors);
    tfl_foreach_block *blocks = malloc(MAX_BLOCKS * sizeof *blocks);
    tfl_status st = tensors && blocks ? run_apply(call, c, tensors, blocks, err, errlen)
                                      : TFL_ERR_NOMEM;
    free(tensors);
    free(blocks);
    return st;
}

const tfl_kfamily tfl_kfamily_foreach = {
    .name = "foreach",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

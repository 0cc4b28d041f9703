/*
 * batchnorm_map.c - the TensorIterator lambdas of PyTorch's batch norm
 * (Normalization.cu) and group norm (group_norm_kernel.cu), float32, run
 * as TFL_BN_MAP ops.
 *
 * Kernel forms (CUDALoops.cuh; parameter tables of the torch 2.11 - 2.15
 * sm_80 cubins, stated by tfl_bn_map_layout), recognised by structure
 * (tfl_kname: the loop's base name, the functor by its enclosing function
 * and signature; 2.15's extra vectorized-load bool is a constant that
 * only shapes memory access):
 *   vectorized_elementwise_kernel<vec, F, array<char*, n>>(int N, F f,
 *       array data)                      - every operand dense float
 *   elementwise_kernel<128, vt, gpu_kernel_impl_nocast<F>::lambda(int)>
 *       (int N, { OffsetCalculator<n> oc; array<char*, n> data; F f;
 *       nvcc's 8-byte pointer })         - strided / broadcast operands
 *   elementwise_kernel<128, vt, gpu_kernel_impl<F>::lambda(int)>: the same
 *       with c10::ScalarType dtypes[n] after F (operands whose type is not
 *       the lambda's: half tensors with float statistics)
 *   unrolled_elementwise_kernel_for_multi_outputs<nout, F, array, ic, oc>
 *       (int N, F f, array data, ic, oc) - ic/oc TrivialOffsetCalculator
 *       (1 byte, dense) or OffsetCalculator<nin>/<nout> (strided)
 * Data arrays hold the outputs first, then the inputs.  The lambda F is
 * told by its enclosing function and signature (the Itanium "#k" counts
 * lambdas of one signature in source order); its captures are floats
 * laid out in order of first use, then nvcc's pointer (pt_abi.h):
 *   batch_norm_calc_invstd (float)#1          [eps]           16 bytes
 *   batch_norm_update_stats (f,f,f,f)#1       [bessel, momentum]      16
 *   batch_norm_update_stats_and_invert (f,f,f,f)#1  [bessel, momentum, eps] 24
 *   batch_norm_elementwise (x, w, b, mean, invstd)#1            []  1
 *   batch_norm_elementwise_backward_train (7 floats)#1 [norm_fct] 16
 *   batch_norm_elementwise_backward_eval (gO, invstd[, w])#1    []  1
 *   GroupNormKernelImplInternal<float> (2.11, 2.12), <float, float>
 *       (2.13 +): (x, mean, rstd) and (x, a, b), numbered by release
 *       (below)                                                 []  1
 *   GroupNorm1dForward (x, m, r)#1, (x, m, r, g)#1, (x, m, r, b)#2,
 *       (x, m, r, g, b)#1                                       []  1
 *   GroupNormBackwardKernelImplInternal (rstd, gamma)#1,
 *       (dy, x, c1, c2, c3)#1 and #2                             []  1
 *   GroupNorm1dBackward (dy, x, rstd, c2, c3)#1,
 *       (dy, x, rstd, gamma, c2, c3)#1                           []  1
 * Anything else (casting forms, half/bfloat16) is left unclaimed.
 *
 * GroupNormKernelImplInternal's three-float lambdas, by release (sm_80
 * SASS of the vectorized_elementwise_kernel<4> instances, data[] =
 * (out, a0, a1, a2) at parameter offsets 0x168..0x180; the other loop
 * forms' float arithmetic agrees: FADD+FMUL vs one FFMA per element):
 *   2.11 - 2.14  #1  out = (a0 - a1) * a2   FADD a0,-a1; FMUL by a2  NORM
 *                #2  out = a1 * a0 + a2     FFMA                     AFFINE
 *   2.15         #1  out = a1 * a0 + a2     (SASS identical to 2.14's #2)
 *                #2  out = (a0 - a1) * a2   (identical to 2.14's #1)
 *                #3  out = a1 * a0 + a2     (identical to 2.14's #2)
 * 2.15 added an (x, a, b) lambda ahead of the others (its channels-last
 * path), which renumbered them under the same mangled structure (only the
 * file hash changes, and that changes every build); the layout check
 * cannot tell them apart either (same captures, same operands).  So the
 * <float, float> rules hold for the releases whose SASS was read
 * (tfl_torch_current: the loaded torch, or the wheel `torchfl wheel`
 * checks), and those lambdas are left unclaimed when the release is
 * unknown or newer than 2.15: a later release may renumber again, and a
 * refused kernel ("not decoded") is better than a wrong normalisation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/batchnorm_internal.h"
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"
#include "route/torch_release.h"

typedef struct lambda_rule {
    const char *func;         /* enclosing function, "name("               */
    int nargs, idx;           /* float arguments, "#idx"                   */
    int code, flags, nout;
    size_t fn_size;
    int nparams;              /* captured floats, at 0, 4, 8               */
    int lowp;                 /* Half / BFloat16 arguments allowed          */
    int perm[7];              /* op input k = lambda argument perm[k]      */
    const char *name;
    int acc_too;              /* also Name<float, float>( (torch 2.13+)    */
    int rel_lo, rel_hi;       /* only torch 2.<rel_lo> .. 2.<rel_hi>: the
                                 lambda's "#k" means this there (0: any) */
} lambda_rule;

static const lambda_rule rules[] = {
    { "batch_norm_calc_invstd(", 1, 1, TFL_BN_MAP_RSQRT_EPS, 0, 1, 16, 1, 1, { 0 }, "batch_norm_invstd", 0, 0, 0 },
    { "batch_norm_update_stats(", 4, 1, TFL_BN_MAP_UPDATE_STATS, 0, 2, 16, 2, 1, { 0, 1, 2, 3 }, "batch_norm_update_stats", 0, 0, 0 },
    { "batch_norm_update_stats_and_invert(", 4, 1, TFL_BN_MAP_UPDATE_STATS, 0, 3, 24, 3, 1, { 0, 1, 2, 3 }, "batch_norm_update_stats", 0, 0, 0 },
    { "batch_norm_elementwise(", 5, 1, TFL_BN_MAP_NORM, 3, 1, 1, 0, 1, { 0, 3, 4, 1, 2 }, "batch_norm_apply", 0, 0, 0 },
    { "batch_norm_elementwise_backward_train(", 7, 1, TFL_BN_MAP_BWD_TRAIN, 0, 1, 16, 1, 1, { 0, 1, 2, 3, 4, 5, 6 }, "batch_norm_backward_elemt", 0, 0, 0 },
    { "batch_norm_elementwise_backward_eval(", 2, 1, TFL_BN_MAP_MUL, 0, 1, 1, 0, 1, { 0, 1 }, "batch_norm_backward_eval", 0, 0, 0 },
    { "batch_norm_elementwise_backward_eval(", 3, 1, TFL_BN_MAP_MUL, 0, 1, 1, 0, 1, { 0, 1, 2 }, "batch_norm_backward_eval", 0, 0, 0 },
    { "GroupNormKernelImplInternal<float>(", 3, 1, TFL_BN_MAP_NORM, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 0, 0 },
    { "GroupNormKernelImplInternal<float>(", 3, 2, TFL_BN_MAP_AFFINE, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 0, 0 },
    { "GroupNormKernelImplInternal<float, float>(", 3, 1, TFL_BN_MAP_NORM, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 13, 14 },
    { "GroupNormKernelImplInternal<float, float>(", 3, 2, TFL_BN_MAP_AFFINE, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 13, 14 },
    { "GroupNormKernelImplInternal<float, float>(", 3, 1, TFL_BN_MAP_AFFINE, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 15, 15 },
    { "GroupNormKernelImplInternal<float, float>(", 3, 2, TFL_BN_MAP_NORM, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 15, 15 },
    { "GroupNormKernelImplInternal<float, float>(", 3, 3, TFL_BN_MAP_AFFINE, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 0, 15, 15 },
    { "GroupNorm1dForward<float>(", 3, 1, TFL_BN_MAP_NORM, 0, 1, 1, 0, 0, { 0, 1, 2 }, "group_norm_apply", 1, 0, 0 },
    { "GroupNorm1dForward<float>(", 4, 1, TFL_BN_MAP_NORM, 1, 1, 1, 0, 0, { 0, 1, 2, 3 }, "group_norm_apply", 1, 0, 0 },
    { "GroupNorm1dForward<float>(", 4, 2, TFL_BN_MAP_NORM, 2, 1, 1, 0, 0, { 0, 1, 2, 3 }, "group_norm_apply", 1, 0, 0 },
    { "GroupNorm1dForward<float>(", 5, 1, TFL_BN_MAP_NORM, 3, 1, 1, 0, 0, { 0, 1, 2, 3, 4 }, "group_norm_apply", 1, 0, 0 },
    { "GroupNormBackwardKernelImplInternal<float>(", 2, 1, TFL_BN_MAP_MUL, 0, 1, 1, 0, 0, { 0, 1 }, "group_norm_backward_elemt", 0, 0, 0 },
    { "GroupNormBackwardKernelImplInternal<float>(", 5, 1, TFL_BN_MAP_AFFINE3, 0, 1, 1, 0, 0, { 0, 1, 2, 3, 4 }, "group_norm_backward_elemt", 0, 0, 0 },
    { "GroupNormBackwardKernelImplInternal<float>(", 5, 2, TFL_BN_MAP_AFFINE3, 0, 1, 1, 0, 0, { 0, 1, 2, 3, 4 }, "group_norm_backward_elemt", 0, 0, 0 },
    { "GroupNorm1dBackward<float>(", 5, 1, TFL_BN_MAP_AFFINE3, 0, 1, 1, 0, 0, { 0, 1, 2, 3, 4 }, "group_norm_backward_elemt", 0, 0, 0 },
    { "GroupNorm1dBackward<float>(", 6, 1, TFL_BN_MAP_AFFINE3, 1, 1, 1, 0, 0, { 0, 1, 2, 3, 4, 5 }, "group_norm_backward_elemt", 0, 0, 0 },
};

#define RULE_COUNT (sizeof rules / sizeof rules[0])

/* First "{lambda(<float|c10::Half|c10::BFloat16, ...>)#k}" of the
 * functor's text: arity, argument types and k. */
static int first_float_lambda(const char *d, int *nargs, int *idx, tfl_dtype *dt)
{
    static const struct { const char *name; tfl_dtype dt; } types[] = {
        { "float", TFL_DT_F32 }, { "c10::Half", TFL_DT_F16 }, { "c10::BFloat16", TFL_DT_BF16 },
    };
    for (const char *p = strstr(d, "{lambda("); p; p = strstr(p + 1, "{lambda(")) {
        const char *a = p + strlen("{lambda(");
        if (*a == ')' || strncmp(a, "int)", 4) == 0)
            continue;
        int n = 0;
        for (;;) {
            size_t t = 0;
            while (t < 3 && strncmp(a, types[t].name, strlen(types[t].name)) != 0)
                t++;
            if (t == 3 || n == 7)
                break;
            dt[n++] = types[t].dt;
            a += strlen(types[t].name);
            if (strncmp(a, ", ", 2) == 0)
                a += 2;
            else
                break;
        }
        if (*a != ')' || a[1] != '#')
            return 0;            /* another argument type */
        *nargs = n;
        *idx = atoi(a + 2);
        return n > 0 && *idx > 0;
    }
    return 0;
}

/* Every template argument but those in `used` is an int or bool constant:
 * the vector width / items per thread, 2.15's vectorized-load flag - they
 * choose how memory is accessed, never what is computed. */
static int others_constant(const tfl_kname *kn, const int *used, int nused)
{
    return tfl_kname_others_constant(kn, used, nused);
}

/* OffsetCalculator<n, unsigned int[, false]> (the unsigned-stride form
 * tfl_pt_offset_calc_decode reads) or TrivialOffsetCalculator<n, uint>. */
static int calc_arg(const tfl_kname *kn, int i, int *trivial)
{
    const char *pre = tfl_kname_targ_starts(kn, i, "TrivialOffsetCalculator<") ? "TrivialOffsetCalculator"
                    : tfl_kname_targ_starts(kn, i, "OffsetCalculator<") ? "OffsetCalculator" : NULL;
    if (!pre)
        return 0;
    *trivial = pre[0] == 'T';
    const char *as[4];
    size_t al[4];
    int n = tfl_pt_template_args(kn->targ[i] + strlen(pre), as, al, 4);
    return n >= 2 && al[1] == strlen("unsigned int") && strncmp(as[1], "unsigned int", al[1]) == 0 &&
           (n == 2 || (n == 3 && al[2] == 5 && strncmp(as[2], "false", 5) == 0));
}

/* Which loop form, and the functor's text: 0 if not one of ours. */
static int map_form(const tfl_kname *kn, const char **fn, size_t *fn_len)
{
    long long v;
    if (tfl_kname_is(kn, "vectorized_elementwise_kernel")) {
        /* <vec, F, std::array<char*, n>[, bool (2.15)]> */
        int used[] = { 1, 2 };
        if (!tfl_kname_targ_starts(kn, 2, "std::array<char*,") || !others_constant(kn, used, 2))
            return 0;
        *fn = kn->targ[1];
        *fn_len = kn->targ_len[1];
        return MAP_VEC;
    }
    if (tfl_kname_is(kn, "elementwise_kernel") && tfl_kname_targ_is(kn, 0, "128")) {
        /* <128, vt, gpu_kernel_impl[_nocast]<F>(...)::{lambda(int)#1}> */
        int used[] = { 2 };
        if (kn->ntargs != 3 || !tfl_kname_targ_int(kn, 1, &v) || !others_constant(kn, used, 1))
            return 0;
        *fn = kn->targ[2];
        *fn_len = kn->targ_len[2];
        if (tfl_kname_targ_starts(kn, 2, "gpu_kernel_impl_nocast<"))
            return MAP_LEGACY;
        if (tfl_kname_targ_starts(kn, 2, "gpu_kernel_impl<"))
            return MAP_LEGACY_CAST;
        return 0;
    }
    if (tfl_kname_is(kn, "unrolled_elementwise_kernel_for_multi_outputs")) {
        /* <nout, F, std::array<char*, n>, input calc, output calc> */
        int ti, to;
        if (kn->ntargs != 5 || !tfl_kname_targ_int(kn, 0, &v) ||
            !tfl_kname_targ_starts(kn, 2, "std::array<char*,") || !calc_arg(kn, 3, &ti) ||
            !calc_arg(kn, 4, &to) || ti != to)
            return 0;
        *fn = kn->targ[1];
        *fn_len = kn->targ_len[1];
        return ti ? MAP_MULTI_TRIVIAL : MAP_MULTI;
    }
    return 0;
}

/* Is the lambda in the rule's enclosing function?  Group norm's forward
 * functions are <float> in torch 2.11 / 2.12 and <float, float> (the
 * accumulate type became a template argument) from 2.13.  Rules marked
 * acc_too accept both spellings: GroupNorm1dForward's lambdas compute the
 * same in every release (their sm_80 SASS arithmetic agrees from 2.11 to
 * 2.15).  GroupNormKernelImplInternal<float, float>'s lambdas do not (2.15
 * renumbered them; header comment): they have their own rules, one per
 * release range (release_ok). */
static int in_function(const char *text, const lambda_rule *r)
{
    const char *func = r->func;
    if (strstr(text, func))
        return 1;
    const char *t = strstr(func, "<float>(");
    char alt[96];
    if (!r->acc_too || !t || strlen(func) + 8 >= sizeof alt)
        return 0;
    snprintf(alt, sizeof alt, "%.*s<float, float>(", (int)(t - func), func);
    return strstr(text, alt) != NULL;
}

/* The minor of the torch being decoded (tfl_torch_current), or -1 when
 * there is none or it is not a 2.x version. */
static int decoded_minor(void)
{
    tfl_torch_info t;
    return tfl_torch_current(&t) == 0 ? tfl_torch_minor(t.version) : -1;
}

/* Does the rule hold for the torch being decoded?  *minor is looked up on
 * first need (-2: not yet). */
static int release_ok(const lambda_rule *r, int *minor)
{
    if (r->rel_lo == 0)
        return 1;
    if (*minor == -2)
        *minor = decoded_minor();
    return *minor >= r->rel_lo && *minor <= r->rel_hi;
}

int tfl_bn_map_match(const tfl_kname *kn, bn_kernel *k)
{
    const char *fn;
    size_t fn_len;
    int form = map_form(kn, &fn, &fn_len);
    char text[2048];
    if (!form || fn_len >= sizeof text)
        return 0;
    memcpy(text, fn, fn_len);
    text[fn_len] = 0;
    int nargs = 0, idx = 0, found = -1, minor = -2;
    tfl_dtype adt[8];
    if (first_float_lambda(text, &nargs, &idx, adt)) {
        /* the rule whose enclosing function the lambda is in, for this
         * release */
        for (size_t i = 0; i < RULE_COUNT; i++)
            if (rules[i].nargs == nargs && rules[i].idx == idx && in_function(text, &rules[i]) &&
                release_ok(&rules[i], &minor)) {
                found = (int)i;
                break;
            }
    }
    if (found < 0)
        return 0;
    const lambda_rule *r = &rules[found];
    int lowp = 0;
    for (int i = 0; i < nargs; i++)
        lowp |= adt[i] != TFL_DT_F32;
    if (lowp && !r->lowp)
        return 0;
    if ((form == MAP_MULTI || form == MAP_MULTI_TRIVIAL) != (r->nout > 1))
        return 0;
    memset(k, 0, sizeof *k);
    k->kind = K_MAP;
    k->form = form;
    k->code = r->code;
    k->flags = r->flags;
    k->nout = r->nout;
    k->nin = r->nargs;
    k->fn_size = r->fn_size;
    k->fn_params = r->nparams;
    for (int i = 0; i < 3; i++)
        k->fn_off[i] = (size_t)(4 * i);
    k->name = r->name;
    k->rule = found;
    /* outputs: the update lambdas return (scalar_t, scalar_t[, acc_t]) with
     * scalar_t the running statistics' type (arguments 3, 4); the other
     * lambdas return float */
    for (int i = 0; i < r->nout; i++)
        k->opdt[i] = (r->code == TFL_BN_MAP_UPDATE_STATS && i < 2) ? adt[2 + i]
                   : r->code == TFL_BN_MAP_RSQRT_EPS || r->code == TFL_BN_MAP_UPDATE_STATS ? TFL_DT_F32
                   : adt[0];       /* the normalisation lambdas return scalar_t */
    for (int i = 0; i < nargs; i++)
        k->opdt[r->nout + i] = adt[i];
    return 1;
}

/* The parameters tfl_bn_map_run reads (layouts as pt_abi.h describes):
 *   vectorized (int N, F f, char *data[n])
 *   legacy     (int N, lambda { OffsetCalculator<n> oc; char *data[n]; F f;
 *              [ScalarType dtypes[n] (casting form);] nvcc's 8-byte pointer })
 *   multi      (int N, F f, char *data[n], input calc, output calc): 1-byte
 *              TrivialOffsetCalculators or OffsetCalculator<nin> / <nout>
 * F is the lambda: its captured floats and nvcc's pointer (8-aligned), or
 * 1 byte when it captures nothing. */
int tfl_bn_map_layout(const bn_kernel *k, tfl_klayout *l)
{
    const int n = k->nout + k->nin;
    const size_t falign = k->fn_size >= 8 ? 8 : 1;
    tfl_klayout_add(l, 4, 4);
    switch (k->form) {
    case MAP_LEGACY:
    case MAP_LEGACY_CAST: {
        size_t sz = tfl_pt_align(tfl_pt_offset_calc_size(n), 8) + 8 * (size_t)n;
        sz = tfl_pt_align(sz, falign) + k->fn_size + (k->form == MAP_LEGACY_CAST ? (size_t)n : 0);
        tfl_klayout_add(l, tfl_pt_align(sz, 8) + 8, 8);
        return 1;
    }
    case MAP_MULTI:
        tfl_klayout_add(l, k->fn_size, falign);
        tfl_klayout_add(l, 8 * (size_t)n, 8);
        tfl_klayout_add(l, tfl_pt_offset_calc_size(k->nin), 4);
        tfl_klayout_add(l, tfl_pt_offset_calc_size(k->nout), 4);
        return 1;
    case MAP_MULTI_TRIVIAL:
        tfl_klayout_add(l, k->fn_size, falign);
        tfl_klayout_add(l, 8 * (size_t)n, 8);
        tfl_klayout_add(l, 1, 1);
        tfl_klayout_add(l, 1, 1);
        return 1;
    default:
        tfl_klayout_add(l, k->fn_size, falign);
        tfl_klayout_add(l, 8 * (size_t)n, 8);
        return 1;
    }
}

/* Live memory for every operand of a strided map? */
static int map_ranges_ok(const tfl_batchnorm_op *o)
{
    for (int k = 0; k < o->nout + o->nin; k++) {
        int64_t hi = 0;
        for (int d = 0; d < o->ndim; d++) {
            if (o->strides[k][d] < 0)
                return 0;
            hi += (o->shape[d] - 1) * o->strides[k][d];
        }
        if (!tfl_kdev_ok(o->data[k], (size_t)hi + tfl_dtype_size(o->map_dtype[k])))
            return 0;
    }
    return 1;
}

/* Copy operand strides from a decoded OffsetCalculator (arguments
 * [first, first+count) of the op). */
static int take_calc(tfl_batchnorm_op *o, const void *bytes, int nargs, int first)
{
    int ndim;
    int64_t shape[TFL_PT_MAX_DIMS], strides[8][TFL_PT_MAX_DIMS];
    if (nargs > 8 || !tfl_pt_offset_calc_decode(bytes, nargs, &ndim, shape, strides))
        return 0;
    if (ndim > TFL_BN_MAP_DIMS)
        return 0;
    if (first == 0 || o->ndim == 0) {
        o->ndim = ndim;
        for (int d = 0; d < ndim; d++)
            o->shape[d] = shape[d];
    } else if (ndim != o->ndim) {
        return 0;
    }
    for (int a = 0; a < nargs; a++)
        for (int d = 0; d < ndim; d++)
            o->strides[first + a][d] = strides[a][d];
    return 1;
}

tfl_status tfl_bn_map_run(const tfl_kcall *c, const bn_kernel *k, char *err, size_t errlen)
{
    const lambda_rule *r = &rules[k->rule];
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_BATCHNORM;
    op.name = k->name;
    tfl_batchnorm_op *o = &op.u.batchnorm;
    o->kind = TFL_BN_MAP;
    o->dtype = TFL_DT_F32;
    o->map_code = k->code;
    o->map_flags = k->flags;
    o->nout = k->nout;
    o->nin = k->nin;
    const int n = k->nout + k->nin;
    const int32_t N = TFL_KARG(c, int32_t, 0);
    if (N < 0) {
        snprintf(err, errlen, "%s: bad element count %d", op.name, (int)N);
        return TFL_ERR_INVALID;
    }
    if (N == 0)
        return TFL_OK;
    const char *fn, *data;
    char *raw[TFL_BN_MAP_OPERANDS];
    tfl_dtype opdt[8];
    memcpy(opdt, k->opdt, sizeof opdt);
    switch (k->form) {
    case MAP_LEGACY:
    case MAP_LEGACY_CAST: {
        const char *lam = c->args[1];
        size_t oc = tfl_pt_offset_calc_size(n);
        size_t data_off = tfl_pt_align(oc, 8);
        data = lam + data_off;
        fn = data + 8 * (size_t)n;
        if (!take_calc(o, lam, n, 0))
            return TFL_ERR_UNSUPPORTED;
        if (k->form == MAP_LEGACY_CAST) {
            /* gpu_kernel_impl keeps the operands' c10::ScalarTypes after F */
            const unsigned char *st = (const unsigned char *)fn + k->fn_size;
            for (int a = 0; a < n; a++) {
                tfl_dtype dt;
                if (!tfl_pt_scalar_type(st[a], &dt) ||
                    (dt != TFL_DT_F32 && dt != TFL_DT_F16 && dt != TFL_DT_BF16))
                    return TFL_ERR_UNSUPPORTED;
                opdt[a] = dt;
            }
        }
        break;
    }
    case MAP_MULTI:
        fn = c->args[1];
        data = c->args[2];
        if (!take_calc(o, c->args[3], k->nin, k->nout) || !take_calc(o, c->args[4], k->nout, 0))
            return TFL_ERR_UNSUPPORTED;
        break;
    default:    /* vectorized / trivial: dense float operands */
        fn = c->args[1];
        data = c->args[2];
        o->ndim = 1;
        o->shape[0] = N;
        for (int a = 0; a < n; a++)
            o->strides[a][0] = (int64_t)tfl_dtype_size(opdt[a]);
        break;
    }
    int64_t total = 1;
    for (int d = 0; d < o->ndim; d++)
        total *= o->shape[d];
    if (total != N) {
        snprintf(err, errlen, "%s: offset calculator shape does not match N=%d", op.name, (int)N);
        return TFL_ERR_UNSUPPORTED;
    }
    memcpy(raw, data, 8 * (size_t)n);
    for (int a = 0; a < k->nout; a++) {
        o->data[a] = raw[a];
        o->map_dtype[a] = opdt[a];
    }
    /* inputs in the op's order; their strides move with them */
    int64_t st[TFL_BN_MAP_OPERANDS][TFL_BN_MAP_DIMS];
    memcpy(st, o->strides, sizeof st);
    for (int a = 0; a < k->nin; a++) {
        int from = k->nout + r->perm[a];
        o->data[k->nout + a] = raw[from];
        o->map_dtype[k->nout + a] = opdt[from];
        memcpy(o->strides[k->nout + a], st[from], sizeof st[0]);
    }
    for (int i = 0; i < k->fn_params; i++) {
        float v;
        memcpy(&v, fn + k->fn_off[i], 4);
        o->param[i] = v;
    }
    if (!map_ranges_ok(o)) {
        snprintf(err, errlen, "%s: an operand (%d elements) is not in device memory", op.name, (int)N);
        return TFL_ERR_INVALID;
    }
    tfl_status s = tfl_route_op(&op, c->stream);
    if (s != TFL_OK && s != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)s);
    return s;
}

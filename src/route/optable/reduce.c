/*
 * reduce.c - the "reduce" kernel family of the semantic op table:
 * at::native::reduce_kernel<nt, output_vec_size, ReduceOp<...>>(ReduceOp).
 *
 * The one parameter is the whole ReduceOp (the same layout in torch 2.11
 * to 2.15; layout() states its size, checked against every wheel's cubins):
 *
 *   ops_t ops; arg_t ident;                      (size/alignment by op)
 *   ReduceConfig config;                          64 B, 4-aligned:
 *       element_size_bytes, num_inputs, num_outputs, step_input,
 *       step_output, ctas_per_output, input_mult[3], output_mult[2],
 *       block_width, block_height, num_threads, bool vectorize_input,
 *       output_vec_size
 *   OffsetCalculator<1, uint32_t> input_calc;     404 B: int dims;
 *       IntDivider<uint32_t> sizes_[25] {divisor, m1, shift};
 *       uint32_t strides_[25][1]   (bytes; the reduced dims)
 *   OffsetCalculator<2, uint32_t> output_calc;    504 B: as above with
 *       strides_[25][2] = {output stride, input stride} (the kept dims)
 *   const void *src; char *dst[2]; void *acc_buf, *cta_buf; int *semaphores;
 *   int64_t base_idx; bool accumulate, final_output; int noutputs;
 *
 * ReduceOp<scalar_t, ops_t, index_t = unsigned int, out_scalar_t, vt0,
 * input_vec_size>: ops_t says what is computed and arg_t (the accumulator)
 * is its argument type - for func_wrapper_t<X, F> the first parameter of
 * F's call operator (a lambda's first parameter type, MaxNanFunctor<acc>'s
 * acc).  Release differences, all found by structure:
 *   - and/or (all/any): 2.11's lambda(T, T) has arg_t = T; 2.12+ has
 *     lambda(bool, T), arg_t = bool (ident shrinks, the config moves);
 *   - NormOps / NormTwoOps<T, acc, out, apply_root> (2.11 to 2.15):
 *     apply_root = false is torch.linalg._powsum, sum |x|^p (sum x^2) with
 *     no final root (checked in the 2.11 SASS: no sqrt / pow after the
 *     sum); decoded as the op's no_root option ("powsum", "powsum2").
 *     The bool does not change the struct (NormOps { acc norm_; },
 *     NormTwoOps empty), so both forms have the same layout.
 *
 * Semantics: output o (num_outputs of them) = reduce over r < num_inputs
 * of src[output_calc(o)[1] + input_calc(r)[0]], written at dst[0] +
 * output_calc(o)[0] (and dst[1] + that / sizeof(out) * sizeof(out2)).
 *
 * One launch computes the whole reduction.  PyTorch may split a large
 * reduction over several blocks per output (config.ctas_per_output > 1,
 * grid.y) that meet through cta_buf and a semaphore array it zeroes with
 * cudaMemsetAsync beforehand; the native op ignores those side buffers and
 * produces the final result at once, which is what the last block would
 * have written.  Reductions PyTorch splits over several launches (a
 * TensorIterator needing 64-bit indexing: accumulate or !final_output) are
 * refused rather than guessed.
 */
#include "route/optable.h"
#include "route/dispatch.h"
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"
#include "route/optable/reduce_layout.h"
#include "mem/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RED_MAX_DIMS 25
#define CFG_SIZE 64
#define INCALC_SIZE (4 + RED_MAX_DIMS * 12 + RED_MAX_DIMS * 4)
#define OUTCALC_SIZE (4 + RED_MAX_DIMS * 12 + RED_MAX_DIMS * 8)

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* ------------------------------------------------ the name, as structure */

#define TARGS_MAX 8

/* The template arguments of one type written "Name<...>". */
typedef struct targs {
    int n;
    const char *a[TARGS_MAX];
    size_t len[TARGS_MAX];
} targs;

static int eq(const char *s, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* [s, s+n) is exactly `name<...>` (or, with tail_ok, `name<...>` followed
 * by more, e.g. "::operator()..."): its arguments into *t. */
static int targs_of(const char *s, size_t n, const char *name, int tail_ok, targs *t)
{
    size_t nl = strlen(name);
    if (n <= nl || memcmp(s, name, nl) != 0 || s[nl] != '<')
        return 0;
    const char *e = tfl_pt_match_angle(s + nl);
    if (!e || e >= s + n || (!tail_ok && e != s + n - 1))
        return 0;
    t->n = tfl_pt_template_args(s + nl, t->a, t->len, TARGS_MAX);
    return t->n > 0 && t->n <= TARGS_MAX;
}

/* An element type the native reduce reads (complex is not). */
static int elem(const char *s, size_t n, tfl_dtype *dt)
{
    if (!tfl_pt_type_name(s, n, dt))
        return 0;
    return *dt != TFL_DT_C64 && *dt != TFL_DT_C128;
}

static int targ_elem(const targs *t, int i, tfl_dtype *dt)
{
    return i < t->n && elem(t->a[i], t->len[i], dt);
}

/* The parameter types of the last "{lambda(A, B)#N}" in [s, s+n): the
 * first one (the functor's arg_t) and the second. */
static int lambda_params(const char *s, size_t n, tfl_dtype *first, tfl_dtype *second)
{
    const char *lam = NULL;
    for (const char *p = s; p + 8 <= s + n; p++)
        if (memcmp(p, "{lambda(", 8) == 0)
            lam = p;
    if (!lam)
        return 0;
    const char *a = lam + 8, *c = memchr(a, ',', (size_t)(s + n - a));
    const char *e = c ? memchr(c, ')', (size_t)(s + n - c)) : NULL;
    if (!c || !e || e + 2 > s + n || e[1] != '#')
        return 0;
    const char *b = c + 1;
    while (*b == ' ')
        b++;
    return elem(a, (size_t)(c - a), first) && elem(b, (size_t)(e - b), second);
}

/* ops_t = func_wrapper_t<X, F>: sum (sum_functor's lambda), max/min
 * (MaxNanFunctor / MinNanFunctor<acc>), all/any (and/or_kernel_cuda's
 * lambda).  prod, xor_sum and the sparse ReductionAddOp/MulOp are not
 * mapped. */
static int parse_wrapper(const targs *w, tfl_reduce_kinfo *ki)
{
    if (w->n != 2)
        return -1;
    const char *f = w->a[1];
    size_t fl = w->len[1];
    targs t;
    tfl_dtype p2;
    int mx = targs_of(f, fl, "MaxNanFunctor", 0, &t);
    if (mx || targs_of(f, fl, "MinNanFunctor", 0, &t)) {
        ki->kind = mx ? TFL_RED_MAX : TFL_RED_MIN;
        ki->op_name = mx ? "max" : "min";
        return t.n == 1 && targ_elem(&t, 0, &ki->acc) ? 0 : -1;
    }
    if (!lambda_params(f, fl, &ki->acc, &p2))
        return -1;
    if (targs_of(f, fl, "sum_functor", 1, &t)) {
        /* sum_functor<T, acc, out>::operator()(...)::{lambda(acc, acc)#1} */
        tfl_dtype a;
        ki->kind = TFL_RED_SUM;
        ki->op_name = "sum";
        return t.n == 3 && targ_elem(&t, 1, &a) && a == ki->acc && p2 == ki->acc ? 0 : -1;
    }
    /* and/or_kernel_cuda(TensorIterator&)::...::{lambda(arg_t, T)#1} -> bool */
    int all = fl > 16 && memcmp(f, "and_kernel_cuda(", 16) == 0;
    int any = fl > 15 && memcmp(f, "or_kernel_cuda(", 15) == 0;
    if ((!all && !any) || p2 != ki->in || ki->out != TFL_DT_BOOL)
        return -1;
    ki->kind = all ? TFL_RED_ALL : TFL_RED_ANY;
    ki->op_name = all ? "all" : "any";
    return 0;
}

/* The ops_t structs, by name: the argument holding acc, how many
 * arguments, and the bytes of their members (0: an empty struct). */
static const struct {
    const char *name;
    tfl_reduce_kind kind;
    const char *op;
    int acc_arg, nargs;
} OPS[] = {
    {"MeanOps", TFL_RED_MEAN, "mean", 1, 4},         /* <T, acc, factor, out> { factor_t factor; } */
    {"MaxOps", TFL_RED_MAX_IDX, "max_dim", 0, 1},    /* <acc>; arg_t = pair<acc, int64_t> */
    {"MinOps", TFL_RED_MIN_IDX, "min_dim", 0, 1},
    {"ArgMaxOps", TFL_RED_ARGMAX, "argmax", 0, 1},
    {"ArgMinOps", TFL_RED_ARGMIN, "argmin", 0, 1},
    {"MinMaxOps", TFL_RED_AMINMAX, "aminmax", 1, 3}, /* <T, acc, int>; arg_t = pair<acc, acc> */
    {"NormTwoOps", TFL_RED_NORM2, "norm2", 1, 4},    /* <T, acc, out, apply_root> */
    {"NormOps", TFL_RED_NORM, "norm", 1, 4},         /* <T, acc, out, apply_root> { acc norm_; } */
    {"NormOneOps", TFL_RED_NORM1, "norm1", 1, 3},    /* <T, acc, out> */
    {"NormZeroOps", TFL_RED_NORM0, "norm0", 1, 3},
    {"AbsMaxOps", TFL_RED_NORM_INF, "norm_inf", 1, 3},
    {"AbsMinOps", TFL_RED_NORM_NINF, "norm_ninf", 1, 3},
    {"NanSumOps", TFL_RED_NANSUM, "nansum", 0, 2},   /* <acc, out> */
    {"WelfordOps", TFL_RED_VAR, "var", 1, 4},        /* <T, acc, int, pair<out, out>>
                                                        { acc correction; bool take_sqrt; } */
};

static int parse_ops(const char *s, size_t n, tfl_reduce_kinfo *ki)
{
    targs t;
    if (targs_of(s, n, "func_wrapper_t", 0, &t))
        return parse_wrapper(&t, ki);
    size_t i = 0;
    while (i < sizeof OPS / sizeof OPS[0] && !targs_of(s, n, OPS[i].name, 0, &t))
        i++;
    if (i == sizeof OPS / sizeof OPS[0] || t.n != OPS[i].nargs ||
        !targ_elem(&t, OPS[i].acc_arg, &ki->acc))
        return -1;
    ki->kind = OPS[i].kind;
    ki->op_name = OPS[i].op;
    switch (ki->kind) {
    case TFL_RED_MEAN:
        return targ_elem(&t, 2, &ki->ops_param_dt) ? 0 : -1;
    case TFL_RED_NORM: case TFL_RED_NORM2:
        if (ki->kind == TFL_RED_NORM)
            ki->ops_param_dt = ki->acc;                 /* NormOps { acc norm_; } */
        /* apply_root: false is linalg._powsum (the op's no_root) */
        ki->no_root = eq(t.a[3], t.len[3], "false");
        if (ki->no_root)
            ki->op_name = ki->kind == TFL_RED_NORM ? "powsum" : "powsum2";
        return ki->no_root || eq(t.a[3], t.len[3], "true") ? 0 : -1;
    case TFL_RED_AMINMAX:
        return eq(t.a[2], t.len[2], "int") ? 0 : -1;
    case TFL_RED_VAR:            /* WelfordData<acc, int>: the int index only */
        ki->ops_param_dt = ki->acc;
        return eq(t.a[2], t.len[2], "int") &&
               (ki->acc == TFL_DT_F32 || ki->acc == TFL_DT_F64) ? 0 : -1;
    default:
        return 0;
    }
}

/* Where config and the pointers lie, from ops_t's and arg_t's sizes. */
static void place(tfl_reduce_kinfo *ki)
{
    size_t asz = tfl_dtype_size(ki->acc), arg_size, arg_align, ops_size = 1;
    switch (ki->kind) {
    case TFL_RED_MEAN: ops_size = tfl_dtype_size(ki->ops_param_dt); break;
    case TFL_RED_NORM: ops_size = asz; break;
    case TFL_RED_VAR:  ops_size = 2 * asz; break;   /* correction, then the bool, padded */
    default: break;
    }
    switch (ki->kind) {
    case TFL_RED_MAX_IDX: case TFL_RED_MIN_IDX: case TFL_RED_ARGMAX: case TFL_RED_ARGMIN:
        arg_align = 8; arg_size = 16; break;
    case TFL_RED_AMINMAX:
        arg_align = asz; arg_size = 2 * asz; break;
    case TFL_RED_VAR:            /* WelfordData<acc, int>: mean, m2, n, nf */
        arg_align = asz; arg_size = 4 * asz; break;
    default:
        arg_align = asz; arg_size = asz; break;
    }
    ki->config_off = align_up(align_up(ops_size, arg_align) + arg_size, 4);
    ki->ptrs_off = align_up(ki->config_off + CFG_SIZE + INCALC_SIZE + OUTCALC_SIZE, 8);
    ki->total = ki->ptrs_off + 64;
}

static int parse_kname(const tfl_kname *k, tfl_reduce_kinfo *ki)
{
    int ro = tfl_kname_find_targ(k, 0, "ReduceOp<");
    targs r;
    /* the template arguments other than the ReduceOp must be constants: nt
     * and output_vec_size only shape the launch (threads per block,
     * outputs per thread); the ReduceOp says what is computed */
    if (!tfl_kname_is(k, "reduce_kernel") || ro < 0 || !tfl_kname_others_constant(k, &ro, 1) ||
        !targs_of(k->targ[ro], k->targ_len[ro], "ReduceOp", 0, &r))
        return -1;
    /* <scalar_t, ops_t, index_t, out_scalar_t, vt0, input_vec_size>: vt0
     * and input_vec_size are elements per thread and the load width;
     * index_t is the OffsetCalculators' uint32_t. */
    if (r.n != 6 || !targ_elem(&r, 0, &ki->in) || !eq(r.a[2], r.len[2], "unsigned int") ||
        !targ_elem(&r, 3, &ki->out))
        return -1;
    if (!tfl_kname_decimal(r.a[4], r.len[4]) || !tfl_kname_decimal(r.a[5], r.len[5]))
        return -1;
    if (parse_ops(r.a[1], r.len[1], ki))
        return -1;
    ki->out2 = ki->out;
    switch (ki->kind) {
    case TFL_RED_MAX_IDX: case TFL_RED_MIN_IDX: case TFL_RED_ARGMAX: case TFL_RED_ARGMIN:
        ki->out2 = TFL_DT_I64;
        break;
    default:
        break;
    }
    if (!tfl_dtype_size(ki->acc) || !tfl_dtype_size(ki->in) || !tfl_dtype_size(ki->out))
        return -1;
    place(ki);
    return 0;
}

int tfl_reduce_parse(const char *m, tfl_reduce_kinfo *ki)
{
    memset(ki, 0, sizeof *ki);
    if (!m || !strstr(m, "reduce_kernel"))  /* cheap filter before demangling */
        return -1;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return -1;
    int r = parse_kname(&k, ki);
    tfl_kname_free(&k);
    return r;
}

/* ------------------------------------------------------------- running */

typedef struct rcookie {
    tfl_reduce_kinfo ki;
} rcookie;

static int match(const char *mangled, void **cookie)
{
    rcookie c;
    return tfl_reduce_parse(mangled, &c.ki) == 0 && tfl_kcookie_keep(&c, sizeof c, cookie);
}

static const char *op_name(void *cookie)
{
    return cookie ? ((rcookie *)cookie)->ki.op_name : "reduce";
}

#define RD(T, base, off) ({ T v_; memcpy(&v_, (const char *)(base) + (off), sizeof v_); v_; })

static uint32_t rd32(const char *b, size_t off) { uint32_t v; memcpy(&v, b + off, 4); return v; }
static uint64_t rd64(const char *b, size_t off) { uint64_t v; memcpy(&v, b + off, 8); return v; }

/* Decode an OffsetCalculator: dims, sizes, strides of argument `arg`. */
static int calc(const char *b, size_t off, int nargs, int arg,
                int *nd, int64_t *sizes, int64_t *strides)
{
    int32_t dims = (int32_t)rd32(b, off);
    if (dims < 0 || dims > RED_MAX_DIMS)
        return -1;
    *nd = dims;
    for (int d = 0; d < dims; d++) {
        sizes[d] = rd32(b, off + 4 + (size_t)d * 12);
        strides[d] = rd32(b, off + 4 + RED_MAX_DIMS * 12 + ((size_t)d * nargs + arg) * 4);
    }
    return 0;
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const rcookie *c = cookie;
    const tfl_reduce_kinfo *ki = &c->ki;
    const char *b = call->args[0];
    const char *cfg = b + ki->config_off;
    int32_t num_inputs = (int32_t)rd32(cfg, 4), num_outputs = (int32_t)rd32(cfg, 8);
    const char *ptrs = b + ki->ptrs_off;
    const void *src = (const void *)(uintptr_t)rd64(ptrs, 0);
    void *dst0 = (void *)(uintptr_t)rd64(ptrs, 8);
    void *dst1 = (void *)(uintptr_t)rd64(ptrs, 16);
    int64_t base_idx = (int64_t)rd64(ptrs, 48);
    int accumulate = ptrs[56] != 0, final_output = ptrs[57] != 0;
    int32_t noutputs = (int32_t)rd32(ptrs, 60);
    if (accumulate || !final_output || noutputs < 1 || noutputs > 2 || base_idx != 0 ||
        num_inputs < 0 || num_outputs < 0) {
        snprintf(err, errlen, "reduce %s: split reduction (accumulate=%d final=%d noutputs=%d "
                 "base_idx=%lld) not supported", ki->op_name, accumulate, final_output,
                 (int)noutputs, (long long)base_idx);
        return TFL_ERR_UNSUPPORTED;
    }
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_REDUCE;
    op.name = ki->op_name;
    tfl_reduce_op *r = &op.u.reduce;
    r->kind = ki->kind;
    r->in_dtype = ki->in;
    r->out_dtype = ki->out;
    r->out2_dtype = ki->out2;
    r->no_root = ki->no_root;
    r->in = src;
    r->out = dst0;
    r->out2 = noutputs == 2 ? dst1 : NULL;
    if (noutputs == 2 && (ki->kind == TFL_RED_ARGMAX || ki->kind == TFL_RED_ARGMIN))
        return TFL_ERR_UNSUPPORTED;
    r->num_outputs = num_outputs;
    r->num_inputs = num_inputs;
    size_t in_off = ki->config_off + CFG_SIZE, out_off = in_off + INCALC_SIZE;
    if (calc(b, in_off, 1, 0, &r->red_ndim, r->red_sizes, r->red_stride_in) ||
        calc(b, out_off, 2, 0, &r->out_ndim, r->out_sizes, r->out_stride_out)) {
        snprintf(err, errlen, "reduce %s: bad OffsetCalculator dims", ki->op_name);
        return TFL_ERR_INVALID;
    }
    int nd2;
    int64_t sz2[RED_MAX_DIMS];
    calc(b, out_off, 2, 1, &nd2, sz2, r->out_stride_in);
    /* A 0-dim calculator means one element (offset 0). */
    /* Sizes and strides are uint32 and at most 25 dims: every product and
     * sum below fits in 64 bits except in adversarial launches, which the
     * overflow checks refuse. */
    int64_t pi = 1, po = 1, ext_in = 0, ext_out = 0, t;
    int ovf = 0;
    for (int d = 0; d < r->red_ndim; d++) {
        ovf |= __builtin_mul_overflow(pi, r->red_sizes[d], &pi);
        if (r->red_sizes[d]) {
            ovf |= __builtin_mul_overflow(r->red_sizes[d] - 1, r->red_stride_in[d], &t);
            ovf |= __builtin_add_overflow(ext_in, t, &ext_in);
        }
    }
    for (int d = 0; d < r->out_ndim; d++) {
        ovf |= __builtin_mul_overflow(po, r->out_sizes[d], &po);
        if (r->out_sizes[d]) {
            ovf |= __builtin_mul_overflow(r->out_sizes[d] - 1, r->out_stride_in[d], &t);
            ovf |= __builtin_add_overflow(ext_in, t, &ext_in);
            ovf |= __builtin_mul_overflow(r->out_sizes[d] - 1, r->out_stride_out[d], &t);
            ovf |= __builtin_add_overflow(ext_out, t, &ext_out);
        }
    }
    if (ovf) {
        snprintf(err, errlen, "reduce %s: shape overflows 64-bit offsets", ki->op_name);
        return TFL_ERR_INVALID;
    }
    if (pi != num_inputs || po != num_outputs) {
        snprintf(err, errlen, "reduce %s: shape (%lld x %lld) disagrees with config (%d x %d)",
                 ki->op_name, (long long)po, (long long)pi, (int)num_outputs, (int)num_inputs);
        return TFL_ERR_UNSUPPORTED;
    }
    switch (ki->kind) {
    case TFL_RED_MEAN:
        r->scale = ki->ops_param_dt == TFL_DT_F32 ? (double)RD(float, b, 0)
                 : ki->ops_param_dt == TFL_DT_F64 ? RD(double, b, 0)
                 : ki->ops_param_dt == TFL_DT_I64 ? (double)RD(int64_t, b, 0) : 0;
        if (ki->ops_param_dt != TFL_DT_F32 && ki->ops_param_dt != TFL_DT_F64 &&
            ki->ops_param_dt != TFL_DT_I64)
            return TFL_ERR_UNSUPPORTED;
        break;
    case TFL_RED_NORM:           /* NormOps { acc_t norm_; } */
        if (ki->acc != TFL_DT_F32 && ki->acc != TFL_DT_F64)
            return TFL_ERR_UNSUPPORTED;
        r->p = ki->acc == TFL_DT_F64 ? RD(double, b, 0) : RD(float, b, 0);
        break;
    case TFL_RED_VAR:            /* WelfordOps { acc_t correction; bool take_sqrt; } */
        if (ki->acc == TFL_DT_F64) {
            r->correction = RD(double, b, 0);
            r->take_sqrt = b[8] != 0;
        } else {
            r->correction = RD(float, b, 0);
            r->take_sqrt = b[4] != 0;
        }
        break;
    default:
        break;
    }
    size_t isz = tfl_dtype_size(ki->in), osz = tfl_dtype_size(ki->out), o2sz = tfl_dtype_size(ki->out2);
    if (num_outputs > 0) {
        if ((num_inputs > 0 && !tfl_kdev_ok(src, (size_t)ext_in + isz)) ||
            !tfl_kdev_ok(dst0, (size_t)ext_out + osz) ||
            (r->out2 && !tfl_kdev_ok(r->out2, (size_t)ext_out / osz * o2sz + o2sz))) {
            snprintf(err, errlen, "reduce %s: operand outside device memory", ki->op_name);
            return TFL_ERR_INVALID;
        }
    }
    tfl_status st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "reduce %s: backend failed (%d)", ki->op_name, (int)st);
    return st;
}

/* The one parameter: the whole ReduceOp, 8-aligned (it holds pointers). */
static int layout(void *cookie, tfl_klayout *l)
{
    const rcookie *c = cookie;
    l->n = 0;
    if (!c)
        return 0;
    tfl_klayout_add(l, c->ki.total, 8);
    return 1;
}

const tfl_kfamily tfl_kfamily_reduce = {
    .name = "reduce",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

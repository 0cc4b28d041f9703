/*
 * reduce.c - the "reduce" kernel family of the semantic op table:
 * at::native::reduce_kernel<nt, output_vec_size, ReduceOp<...>>(ReduceOp).
 *
 * The one parameter is the whole ReduceOp (torch 2.11 layout, checked
 * against the cubins' parameter sizes in tests/unit/test_ops_reduce.c):
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

/* One Itanium-mangled type at *s (the few the reduce kernels use); T is
 * what the substitution S4_ stands for (c10::Half / c10::BFloat16 when
 * that is scalar_t). */
static int parse_type(const char **s, tfl_dtype T, int T_is_class, tfl_dtype *out)
{
    static const struct { const char *m; tfl_dtype d; } cls[] = {
        {"N3c104HalfE", TFL_DT_F16}, {"N3c108BFloat16E", TFL_DT_BF16},
    };
    for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
        size_t n = strlen(cls[i].m);
        if (!strncmp(*s, cls[i].m, n)) { *s += n; *out = cls[i].d; return 0; }
    }
    if (!strncmp(*s, "S4_", 3)) {
        if (!T_is_class)
            return -1;
        *s += 3; *out = T; return 0;
    }
    switch (**s) {
    case 'f': *out = TFL_DT_F32; break;
    case 'd': *out = TFL_DT_F64; break;
    case 'l': *out = TFL_DT_I64; break;
    case 'i': *out = TFL_DT_I32; break;
    case 'a': *out = TFL_DT_I8; break;
    case 'h': *out = TFL_DT_U8; break;
    case 'b': *out = TFL_DT_BOOL; break;
    default: return -1;
    }
    (*s)++;
    return 0;
}

static const struct {
    const char *marker;      /* in the ops_t part of the mangled name     */
    tfl_reduce_kind kind;
    const char *name;
} OPS[] = {
    {"11sum_functorI", TFL_RED_SUM, "sum"},
    {"13MaxNanFunctorI", TFL_RED_MAX, "max"},
    {"13MinNanFunctorI", TFL_RED_MIN, "min"},
    {"7MeanOpsI", TFL_RED_MEAN, "mean"},
    {"6MaxOpsI", TFL_RED_MAX_IDX, "max_dim"},
    {"6MinOpsI", TFL_RED_MIN_IDX, "min_dim"},
    {"9ArgMaxOpsI", TFL_RED_ARGMAX, "argmax"},
    {"9ArgMinOpsI", TFL_RED_ARGMIN, "argmin"},
    {"9MinMaxOpsI", TFL_RED_AMINMAX, "aminmax"},
    {"10NormTwoOpsI", TFL_RED_NORM2, "norm2"},
    {"7NormOpsI", TFL_RED_NORM, "norm"},
    {"10NormOneOpsI", TFL_RED_NORM1, "norm1"},
    {"11NormZeroOpsI", TFL_RED_NORM0, "norm0"},
    {"9AbsMaxOpsI", TFL_RED_NORM_INF, "norm_inf"},
    {"9AbsMinOpsI", TFL_RED_NORM_NINF, "norm_ninf"},
    {"9NanSumOpsI", TFL_RED_NANSUM, "nansum"},
    {"10WelfordOpsI", TFL_RED_VAR, "var"},
    {"15and_kernel_cudaE", TFL_RED_ALL, "all"},
    {"14or_kernel_cudaE", TFL_RED_ANY, "any"},
};

int tfl_reduce_parse(const char *m, tfl_reduce_kinfo *ki)
{
    memset(ki, 0, sizeof *ki);
    if (!m || strncmp(m, "_ZN2at6native13reduce_kernelILi", 31))
        return -1;
    const char *s = strstr(m, "ENS0_8ReduceOpI");
    if (!s)
        return -1;
    s += 15;
    int T_is_class = *s == 'N';
    if (parse_type(&s, TFL_DT_F32, 0, &ki->in))
        return -1;
    /* The tail: ...j<out>Li<vt0>ELi<ivs>EEEEEvT1_ */
    const char *tail = strstr(s, "EEEEEvT1_");
    if (!tail || tail[9])
        return -1;
    const char *li = tail;   /* back over "Li<vt0>ELi<ivs>" */
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            if (li <= s || li[-1] != 'E')
                return -1;
            li--;
        }
        while (li > s && li[-1] >= '0' && li[-1] <= '9')
            li--;
        if (li - 2 < s || li[-2] != 'L' || li[-1] != 'i')
            return -1;
        li -= 2;
    }
    /* the out type lies between the last 'j' (index_t = unsigned) and li */
    const char *j = NULL;
    for (const char *q = s; q < li; q++)
        if (*q == 'j')
            j = q;
    if (!j)
        return -1;
    const char *o = j + 1;
    if (parse_type(&o, ki->in, T_is_class, &ki->out) || o != li)
        return -1;
    /* which ops_t */
    size_t ops_len = (size_t)(j - s);
    int which = -1;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0] && which < 0; i++) {
        const char *hit = strstr(s, OPS[i].marker);
        if (hit && hit < j)
            which = (int)i;
    }
    if (which < 0)
        return -1;
    ki->kind = OPS[which].kind;
    ki->op_name = OPS[which].name;
    ki->out2 = ki->out;
    /* The ops' template arguments follow the marker. */
    const char *a = strstr(s, OPS[which].marker) + strlen(OPS[which].marker);
    tfl_dtype t1, t2, t3;
    size_t ops_size = 1, arg_size, arg_align;
    switch (ki->kind) {
    case TFL_RED_SUM:            /* func_wrapper_t<X, sum_functor<T, acc, out>::lambda(acc, acc)> */
        if (parse_type(&a, ki->in, T_is_class, &t1) || parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        break;
    case TFL_RED_MAX: case TFL_RED_MIN: /* func_wrapper_t<acc, MaxNanFunctor<acc>> */
        if (parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        break;
    case TFL_RED_MEAN:           /* MeanOps<T, acc, factor, out> { factor_t factor; } */
        if (parse_type(&a, ki->in, T_is_class, &t1) || parse_type(&a, ki->in, T_is_class, &ki->acc) ||
            parse_type(&a, ki->in, T_is_class, &ki->ops_param_dt))
            return -1;
        ops_size = tfl_dtype_size(ki->ops_param_dt);
        break;
    case TFL_RED_MAX_IDX: case TFL_RED_MIN_IDX: case TFL_RED_ARGMAX: case TFL_RED_ARGMIN:
        /* XOps<acc>; arg_t = pair<acc, int64_t> */
        if (parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        ki->out2 = TFL_DT_I64;
        break;
    case TFL_RED_AMINMAX:        /* MinMaxOps<T, acc, int>; arg_t = pair<acc, acc> */
    case TFL_RED_NORM2: case TFL_RED_NORM1: case TFL_RED_NORM0:
    case TFL_RED_NORM_INF: case TFL_RED_NORM_NINF:  /* XOps<T, acc, out[, bool]> */
        if (parse_type(&a, ki->in, T_is_class, &t1) || parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        break;
    case TFL_RED_NORM:           /* NormOps<T, acc, out, bool> { acc_t norm_; } */
        if (parse_type(&a, ki->in, T_is_class, &t1) || parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        ki->ops_param_dt = ki->acc;
        ops_size = tfl_dtype_size(ki->acc);
        break;
    case TFL_RED_NANSUM:         /* NanSumOps<acc, out> */
        if (parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        break;
    case TFL_RED_ALL: case TFL_RED_ANY:
        /* func_wrapper_t<bool, lambda(T, T) -> bool>: arg_t is T, out bool */
        ki->acc = ki->in;
        if (ki->out != TFL_DT_BOOL)
            return -1;
        break;
    case TFL_RED_VAR:            /* WelfordOps<T, acc, int, pair<out, out>>
                                  * { acc_t correction; bool take_sqrt; } */
        if (parse_type(&a, ki->in, T_is_class, &t1) || parse_type(&a, ki->in, T_is_class, &ki->acc))
            return -1;
        if (*a != 'i' || (ki->acc != TFL_DT_F32 && ki->acc != TFL_DT_F64))
            return -1;
        ki->ops_param_dt = ki->acc;
        ops_size = 2 * tfl_dtype_size(ki->acc);   /* correction, then the bool, padded */
        break;
    default:
        return -1;
    }
    (void)t2; (void)t3; (void)ops_len;
    size_t asz = tfl_dtype_size(ki->acc);
    if (!asz || !tfl_dtype_size(ki->in) || !tfl_dtype_size(ki->out))
        return -1;
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
    return 0;
}

/* ------------------------------------------------------------- running */

typedef struct rcookie {
    tfl_reduce_kinfo ki;
} rcookie;

static int match(const char *mangled, void **cookie)
{
    tfl_reduce_kinfo ki;
    if (tfl_reduce_parse(mangled, &ki))
        return 0;
    rcookie *c = malloc(sizeof *c);
    if (!c)
        return 0;
    c->ki = ki;
    *cookie = c;
    return 1;
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
            return TFL_ERR_DEVICE;
        }
    }
    tfl_status st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "reduce %s: backend failed (%d)", ki->op_name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_reduce = {
    .name = "reduce",
    .match = match,
    .run = run,
    .op_name = op_name,
};

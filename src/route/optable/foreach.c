/*
 * foreach.c - the "foreach" kernel family of the semantic op table:
 * PyTorch's multi_tensor_apply_kernel launches (the _foreach_* ops behind
 * the foreach paths of SGD, Adam, AdamW, clip_grad_norm_) and
 * lpnorm_cleanup, decoded into tfl_foreach_op (torchfl/ops/foreach.h).
 *
 * Kernel: multi_tensor_apply_kernel<Meta, Functor, Args...>(Meta, Functor,
 * Args...), block 512, one block per (tensor, chunk of 65536 elements).
 * The 2.11 wheel uses the 4 KB parameter layout (unsigned char
 * block_to_tensor, 320 blocks); sizes checked against the cubins:
 *   TensorListMetadata<D>: addresses[D][T], numel[T] (int64),
 *     block_to_tensor[320] (u8), block_to_chunk[320] (int32),
 *     start_tensor_this_launch (int32); T = 110, 64, 48, 36 for D = 1..4
 *     (3368, 3144, 3144, 3048 bytes);
 *   TensorListScalarListMetadata<float, D>: addresses[D][T], numel[T],
 *     scalar_vals[T] (float), block_to_tensor[320], block_to_chunk[320];
 *     T = 96, 64, 48, 36 (3520, 3392, 3328, 3184 bytes);
 *   FusedOptimizerTensorListMetadata<D> (fused Adam/AdamW, D = 4, 5):
 *     addresses[D][T], numel[T], state_steps_addresses[S],
 *     block_to_tensor[320], block_to_chunk[320], start_tensor_this_launch;
 *     T = 36, 30, S = 36, 30 (3336, 3288 bytes);
 *   fused SGD (FusedSgdMathFunctor<float, 2|3>) uses TensorListMetadata.
 * Functor<T, depth, r_args_depth, res_arg_index>: lists 0..r-1 are read,
 * list res_arg_index is written.  T (the list element type) may be float,
 * c10::Half or c10::BFloat16; the functor's op is always on float (opmath),
 * the partials of LpNormFunctor are float, lpnorm_cleanup<T, norm, out_t,
 * root, float> writes out_t (float, Half or BFloat16).  Instances with T
 * Half/BFloat16 name the same things with the type's nested name in
 * place of "f" ("N3c104HalfE"), which shifts the later substitution
 * numbers (S9_ -> SB_ in the fused optimizers' argument packs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

#define KCHUNK 65536
#define KMAXBLOCKS 320


typedef enum fkind_extra {
    FX_NONE = 0,
    FX_SCALAR,          /* float scalar argument after the op          */
    FX_SCALAR_TENSOR,   /* float* scalar, float alpha                   */
    FX_ALPHA,           /* float alpha                                  */
} fkind_extra;

typedef struct fcookie {
    int cleanup;                 /* lpnorm_cleanup kernel                    */
    tfl_dtype dtype;             /* T                                        */
    tfl_dtype out_dtype;         /* lpnorm_cleanup's out_t                   */
    tfl_foreach_kind kind;
    tfl_foreach_fn fn;
    tfl_foreach_norm norm;
    int apply_root;
    int depth, out_list;
    int scalar_list;             /* TensorListScalarListMetadata            */
    fkind_extra extra;
    int adamw, amsgrad;          /* FusedAdamMathFunctor<float, D, mode, amsgrad> */
    const char *op;
} fcookie;

/* ------------------------------------------------------------- match */

static const struct {
    const char *tok;
    tfl_foreach_kind kind;
    int scalar_list;
    fkind_extra extra;
} functors[] = {
    { "11ZeroFunctor", TFL_FOREACH_ZERO, 0, FX_NONE },
    { "14UnaryOpFunctor", TFL_FOREACH_UNARY, 0, FX_NONE },
    { "21BinaryOpScalarFunctor", TFL_FOREACH_BINARY_SCALAR, 0, FX_SCALAR },
    { "25BinaryOpScalarListFunctor", TFL_FOREACH_BINARY_SCALAR, 1, FX_NONE },
    { "27BinaryOpScalarTensorFunctor", TFL_FOREACH_BINARY_SCALAR, 0, FX_SCALAR_TENSOR },
    { "24BinaryOpListAlphaFunctor", TFL_FOREACH_BINARY_LIST, 0, FX_ALPHA },
    { "24PointwiseOpScalarFunctor", TFL_FOREACH_POINTWISE, 0, FX_SCALAR },
    { "28PointwiseOpScalarListFunctor", TFL_FOREACH_POINTWISE, 1, FX_NONE },
    { "22TernaryOpScalarFunctor", TFL_FOREACH_LERP_SCALAR, 0, FX_SCALAR },
    { "26TernaryOpScalarListFunctor", TFL_FOREACH_LERP_SCALAR, 1, FX_NONE },
    { "20TernaryOpListFunctor", TFL_FOREACH_LERP_LIST, 0, FX_NONE },
};

static const struct {
    const char *tok;
    tfl_foreach_fn fn;
    const char *name;
} ops[] = {
    { "St4plusIfE", TFL_FOREACH_FN_ADD, "add" },
    { "St5minusIfE", TFL_FOREACH_FN_SUB, "sub" },
    { "St10multipliesIfE", TFL_FOREACH_FN_MUL, "mul" },
    { "St7dividesIfE", TFL_FOREACH_FN_DIV, "div" },
    { "_7maximumIfE", TFL_FOREACH_FN_MAX, "maximum" },
    { "_7minimumIfE", TFL_FOREACH_FN_MIN, "minimum" },
    { "_13power_functorIfE", TFL_FOREACH_FN_POW, "pow" },
    { "_21reverse_power_functorIfE", TFL_FOREACH_FN_REVPOW, "pow" },
    { "_4SqrtIfE", TFL_FOREACH_FN_SQRT, "sqrt" },
    { "_4CopyIffE", TFL_FOREACH_FN_COPY, "copy" },
    { "_11LerpFunctorIfE", TFL_FOREACH_FN_NONE, "lerp" },
    { "St6negateIfE", TFL_FOREACH_FN_NEG, "neg" },
    { "_3AbsIfE", TFL_FOREACH_FN_ABS, "abs" },
    { "_10ReciprocalIfE", TFL_FOREACH_FN_RECIPROCAL, "reciprocal" },
    { "_5RsqrtIfE", TFL_FOREACH_FN_RSQRT, "rsqrt" },
    { "_3ExpIfE", TFL_FOREACH_FN_EXP, "exp" },
    { "_5Expm1IfE", TFL_FOREACH_FN_EXPM1, "expm1" },
    { "_3LogIfE", TFL_FOREACH_FN_LOG, "log" },
    { "_5Log1pIfE", TFL_FOREACH_FN_LOG1P, "log1p" },
    { "_4Log2IfE", TFL_FOREACH_FN_LOG2, "log2" },
    { "_5Log10IfE", TFL_FOREACH_FN_LOG10, "log10" },
    { "_7SigmoidIfE", TFL_FOREACH_FN_SIGMOID, "sigmoid" },
    { "_4TanhIfE", TFL_FOREACH_FN_TANH, "tanh" },
    { "_3SinIfE", TFL_FOREACH_FN_SIN, "sin" },
    { "_3CosIfE", TFL_FOREACH_FN_COS, "cos" },
    { "_3ErfIfE", TFL_FOREACH_FN_ERF, "erf" },
    { "_5FloorIfE", TFL_FOREACH_FN_FLOOR, "floor" },
    { "_4CeilIfE", TFL_FOREACH_FN_CEIL, "ceil" },
    { "_5RoundIfE", TFL_FOREACH_FN_ROUND, "round" },
    { "_5TruncIfE", TFL_FOREACH_FN_TRUNC, "trunc" },
    { "_6TruncfIfE", TFL_FOREACH_FN_TRUNC, "trunc" },
};

/* An element type at *p - "f", "N3c104HalfE" or "N3c108BFloat16E" - into
 * *dt, p advanced; 0 if none of those. */
static int take_elem(const char **p, tfl_dtype *dt)
{
    static const struct { const char *tok; tfl_dtype dt; } ts[] = {
        { "f", TFL_DT_F32 },
        { "N3c104HalfE", TFL_DT_F16 },
        { "N3c108BFloat16E", TFL_DT_BF16 },
    };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        if (!strncmp(*p, ts[i].tok, strlen(ts[i].tok))) {
            *dt = ts[i].dt;
            *p += strlen(ts[i].tok);
            return 1;
        }
    return 0;
}

/* "Li<n>E" at *p: the value, p advanced; -1 if not there. */
static int take_int(const char **p)
{
    if ((*p)[0] != 'L' || (*p)[1] != 'i' || (*p)[2] < '0' || (*p)[2] > '9')
        return -1;
    char *end;
    long v = strtol(*p + 2, &end, 10);
    if (*end != 'E' || v > 100)
        return -1;
    *p = end + 1;
    return (int)v;
}

static int match_cleanup(const char *m, fcookie *c)
{
    /* lpnorm_cleanup<T, NormType n, out_t, bool apply_root, float>; out_t
     * is "f", "S3_" (= T), or the other low-precision type, nested in the
     * c10 namespace substitution when T is one ("NS2_4HalfE") */
    const char *p = strstr(m, "14lpnorm_cleanupI");
    if (!p)
        return 0;
    p += strlen("14lpnorm_cleanupI");
    if (!take_elem(&p, &c->dtype) || strncmp(p, "LNS0_8NormTypeE", 15) != 0)
        return 0;
    p += 15;
    int n = *p - '0';
    if (n < 0 || n > 2 || p[1] != 'E')
        return 0;
    p += 2;
    if (!strncmp(p, "S3_", 3) && c->dtype != TFL_DT_F32) {
        c->out_dtype = c->dtype;
        p += 3;
    } else if (!strncmp(p, "NS2_4HalfE", 10) && c->dtype != TFL_DT_F32) {
        c->out_dtype = TFL_DT_F16;
        p += 10;
    } else if (!strncmp(p, "NS2_8BFloat16E", 14) && c->dtype != TFL_DT_F32) {
        c->out_dtype = TFL_DT_BF16;
        p += 14;
    } else if (!take_elem(&p, &c->out_dtype)) {
        return 0;
    }
    if (strncmp(p, "Lb", 2) != 0)
        return 0;
    int root = p[2] - '0';
    if ((root != 0 && root != 1) || strcmp(p + 3, "EfEEvPKT3_NS0_19TensorListAddressesEi") != 0)
        return 0;
    c->cleanup = 1;
    c->kind = TFL_FOREACH_NORM_FINISH;
    c->norm = (tfl_foreach_norm)(n + 1);     /* enum NormType { L1, L2, LInf } */
    c->apply_root = root;
    c->op = "norm";
    return 1;
}

/* FusedAdamMathFunctor<float, 4|5, ADAM_MODE, amsgrad> over
 * FusedOptimizerTensorListMetadata<4|5>; arguments (const float* lr_ptr,
 * double lr, beta1, beta2, weight_decay, eps, bool maximize,
 * const float* grad_scale, const float* found_inf). */
static int match_fused_adam(const char *p, fcookie *c)
{
    static const char meta[] = "32FusedOptimizerTensorListMetadataILi";
    static const char fun[] = "EEENS1_20FusedAdamMathFunctorI";
    const char *q = strstr(p, meta);
    if (!q)
        return 0;
    q += strlen(meta);
    int d = *q - '0';
    if ((d != 4 && d != 5) || strncmp(q + 1, fun, strlen(fun)) != 0)
        return 0;
    q += 1 + strlen(fun);
    if (!take_elem(&q, &c->dtype) || strncmp(q, "Li", 2) != 0)
        return 0;
    q += 2;
    if (q[0] - '0' != d || strncmp(q + 1, "ELNS0_9ADAM_MODEE", 17) != 0)
        return 0;
    q += 18;
    int mode = *q - '0';
    if ((mode != 0 && mode != 1) || strncmp(q + 1, "ELb", 3) != 0)
        return 0;
    int ams = q[4] - '0';
    if ((ams != 0 && ams != 1) || ams != (d == 5) ||
        strcmp(q + 5, c->dtype == TFL_DT_F32 ? "EEEJPKfdddddbS9_S9_EEEvT_T0_DpT1_"
                                             : "EEEJPKfdddddbSB_SB_EEEvT_T0_DpT1_") != 0)
        return 0;
    c->kind = TFL_FOREACH_ADAM;
    c->depth = d;
    c->adamw = mode;
    c->amsgrad = ams;
    c->op = mode ? "fused_adamw" : "fused_adam";
    return 1;
}

/* FusedSgdMathFunctor<float, 2|3> over TensorListMetadata<2|3>; arguments
 * (double weight_decay, double momentum, const float* lr_ptr, double lr,
 * double dampening, bool nesterov, bool maximize, bool is_first_step,
 * const float* grad_scale, const float* found_inf). */
static int match_fused_sgd(const char *p, fcookie *c)
{
    static const char meta[] = "18TensorListMetadataILi";
    const char *q = strstr(p, meta);
    if (!q)
        return 0;
    q += strlen(meta);
    int d = *q - '0';
    static const char fun[] = "EEENS1_19FusedSgdMathFunctorI";
    if ((d != 2 && d != 3) || strncmp(q + 1, fun, strlen(fun)) != 0)
        return 0;
    q += 1 + strlen(fun);
    if (!take_elem(&q, &c->dtype))
        return 0;
    char want[96];
    snprintf(want, sizeof want, "Li%dEEEJddPfddbbb%sEEEvT_T0_DpT1_", d,
             c->dtype == TFL_DT_F32 ? "S7_S7_" : "S9_S9_");
    if (strcmp(q, want) != 0)
        return 0;
    c->kind = TFL_FOREACH_SGD;
    c->depth = d;
    c->out_list = 0;
    c->op = "fused_sgd";
    return 1;
}

static int match_apply(const char *m, fcookie *c)
{
    const char *p = strstr(m, "25multi_tensor_apply_kernelI");
    if (!p)
        return 0;
    if (strstr(p, "FusedAdamMathFunctor"))
        return match_fused_adam(p, c);
    if (strstr(p, "FusedSgdMathFunctor"))
        return match_fused_sgd(p, c);
    const char *q;
    int depth;
    if ((q = strstr(p, "18TensorListMetadataILi"))) {
        depth = q[strlen("18TensorListMetadataILi")] - '0';
        if (strncmp(q + strlen("18TensorListMetadataILi") + 1, "EEE", 3) != 0)
            return 0;
    } else if ((q = strstr(p, "28TensorListScalarListMetadataIfLi"))) {
        depth = q[strlen("28TensorListScalarListMetadataIfLi")] - '0';
        if (strncmp(q + strlen("28TensorListScalarListMetadataIfLi") + 1, "EEE", 3) != 0)
            return 0;
        c->scalar_list = 1;
    } else {
        return 0;
    }
    if (depth < 1 || depth > 4)
        return 0;
    c->depth = depth;

    /* _foreach_norm's partial sums */
    if ((q = strstr(p, "13LpNormFunctorI"))) {
        /* LpNormFunctor<T, NormType n, out_t, 1, 1, 0>(float* partials, int):
         * out_t only types the final result (lpnorm_cleanup's) */
        static const char tail[] = "Li1ELi1ELi0EEEJPfiEEEvT_T0_DpT1_";
        q += strlen("13LpNormFunctorI");
        if (!take_elem(&q, &c->dtype) || strncmp(q, "LNS0_8NormTypeE", 15) != 0)
            return 0;
        q += 15;
        int n = *q - '0';
        size_t ql = strlen(q), tl = strlen(tail);
        if (n < 0 || n > 2 || q[1] != 'E' || ql < tl + 3 || strcmp(q + ql - tl, tail) != 0 ||
            c->scalar_list || depth != 1)
            return 0;
        c->kind = TFL_FOREACH_NORM_PARTIAL;
        c->norm = (tfl_foreach_norm)(n + 1);
        c->out_list = 0;
        c->op = "norm";
        return 1;
    }

    int f = -1;
    for (size_t i = 0; i < sizeof functors / sizeof functors[0]; i++)
        if ((q = strstr(p, functors[i].tok))) { f = (int)i; break; }
    if (f < 0 || functors[f].scalar_list != c->scalar_list)
        return 0;
    q += strlen(functors[f].tok);
    if (*q++ != 'I' || !take_elem(&q, &c->dtype))
        return 0;
    int d = take_int(&q), r = take_int(&q), w = take_int(&q);
    if (d != depth || r < 0 || r > depth || w < 0 || w >= depth || strncmp(q, "EEJ", 3) != 0)
        return 0;
    q += 3;
    c->kind = functors[f].kind;
    c->extra = functors[f].extra;
    c->out_list = w;

    int o = -1;
    const char *op_at = NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if ((op_at = strstr(q, ops[i].tok))) { o = (int)i; break; }
    if (c->kind == TFL_FOREACH_ZERO) {
        if (strcmp(q, "EEEvT_T0_DpT1_") != 0)
            return 0;
        c->op = "zero";
        return 1;
    }
    if (o < 0)
        return 0;
    c->fn = ops[o].fn;
    c->op = ops[o].name;
    /* the op type ends the argument pack's first entry: namespaced ones
     * (NS0_/NS1_ ... E) close with one more E */
    const char *rest = op_at + strlen(ops[o].tok);
    if (ops[o].tok[0] == '_')
        rest++;
    /* BinaryOpScalarTensorFunctor's scalar is a T* ("Pf", or "PS7_": the
     * substitution of T) */
    const char *want = c->extra == FX_SCALAR || c->extra == FX_ALPHA ? "fEEEvT_T0_DpT1_"
                     : c->extra == FX_SCALAR_TENSOR ? (c->dtype == TFL_DT_F32 ? "PffEEEvT_T0_DpT1_"
                                                                             : "PS7_fEEEvT_T0_DpT1_")
                     : "EEEvT_T0_DpT1_";
    if (strcmp(rest, want) != 0)
        return 0;
    /* kinds and ops that go together */
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

/* GradScaler: _amp_foreach_non_finite_check_and_unscale_cuda_'s float
 * instance (UnaryOpFunctor<float, 1, 1, 0> with a lambda holding
 * found_inf @0 and inv_scale @8, 24 bytes; read from the SASS), and
 * amp_update_scale_cuda_kernel(float*, int*, const float*, double, double, int). */
static int match_amp(const char *m, fcookie *c)
{
    if (!strcmp(m, "_ZN2at6native28amp_update_scale_cuda_kernelEPfPiPKfddi")) {
        c->kind = TFL_FOREACH_UPDATE_SCALE;
        c->op = "amp_update_scale";
        return 1;
    }
    static const char pre[] = "25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEE"
                              "NS1_14UnaryOpFunctorI";
    const char *p = strstr(m, pre);
    if (!p)
        return 0;
    p += strlen(pre);
    if (!take_elem(&p, &c->dtype) ||
        strncmp(p, "Li1ELi1ELi0EEEJZZZNS0_47_amp_foreach_non_finite_check_and_unscale_cuda_",
                strlen("Li1ELi1ELi0EEEJZZZNS0_47_amp_foreach_non_finite_check_and_unscale_cuda_")) ||
        !strstr(p, "EUlfE_EEEvT_T0_DpT1_"))
        return 0;
    c->kind = TFL_FOREACH_UNSCALE;
    c->depth = 1;
    c->out_list = 0;
    c->op = "amp_unscale";
    return 1;
}

static int match(const char *mangled, void **cookie)
{
    fcookie c;
    memset(&c, 0, sizeof c);
    int ok = strstr(mangled, "lpnorm_cleanup") ? match_cleanup(mangled, &c)
           : strstr(mangled, "amp_") ? match_amp(mangled, &c)
                                     : match_apply(mangled, &c);
    if (!ok)
        return 0;
    fcookie *keep = malloc(sizeof *keep);
    if (!keep)
        return 0;
    *keep = c;
    *cookie = keep;
    return 1;
}

static const char *op_name(void *cookie)
{
    return cookie ? ((fcookie *)cookie)->op : "foreach";
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
    return TFL_ERR_DEVICE;
}

static tfl_status run_cleanup(const tfl_kcall *call, const fcookie *c, char *err, size_t errlen)
{
    float *partials = rd_ptr(call->args[0]);
    const unsigned char *addrs = call->args[1];
    int max_chunks = rd_i32(call->args[2]);
    int n = (int)call->grid[0];
    if (n <= 0 || n > 400 || max_chunks <= 0 || call->grid[1] != 1 || call->grid[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    size_t bytes = (size_t)n * (size_t)max_chunks * sizeof(float);
    if (!tfl_mem_check_range(partials, bytes, NULL))
        return bad_range(partials, bytes, "norm partials", err, errlen);
    void *outs[400];
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

static const int max_tensors5[5] = { 110, 64, 48, 36, 30 };
static const int max_tensors_sl5[5] = { 96, 64, 48, 36, 30 };

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const fcookie *c = cookie;
    if (!c || !call->args)
        return TFL_ERR_UNSUPPORTED;
    if (c->cleanup)
        return run_cleanup(call, c, err, errlen);
    if (c->kind == TFL_FOREACH_UPDATE_SCALE)
        return run_update_scale(call, c, err, errlen);

    const int D = c->depth;
    const int adam = c->kind == TFL_FOREACH_ADAM;
    const int T = c->scalar_list ? max_tensors_sl5[D - 1] : max_tensors5[D - 1];
    const unsigned char *meta = call->args[0];
    const size_t off_numel = (size_t)D * T * 8;
    /* scalar_vals (scalar lists) or state_steps_addresses (fused optimizers) */
    const size_t off_scalar = off_numel + (size_t)T * 8;
    const size_t off_b2t = off_scalar + (c->scalar_list ? (size_t)T * 4
                                        : adam ? (size_t)max_tensors_sl5[D - 1] * 8 : 0);
    const size_t off_b2c = off_b2t + KMAXBLOCKS;
    const size_t off_start = off_b2c + 4 * KMAXBLOCKS;

    int nblocks = (int)call->grid[0];
    if (nblocks <= 0 || nblocks > KMAXBLOCKS || call->grid[1] != 1 || call->grid[2] != 1)
        return TFL_ERR_UNSUPPORTED;

    tfl_foreach_tensor tensors[110];
    if (T > 110)
        return TFL_ERR_UNSUPPORTED;
    tfl_foreach_block blocks[KMAXBLOCKS];
    int ntensors = 0;
    for (int b = 0; b < nblocks; b++) {
        int t = meta[off_b2t + (size_t)b];
        int chunk = rd_i32(meta + off_b2c + 4 * (size_t)b);
        if (t >= T || chunk < 0) {
            snprintf(err, errlen, "foreach: block %d names tensor %d chunk %d (of %d tensors)",
                     b, t, chunk, T);
            return TFL_ERR_INVALID;
        }
        blocks[b].tensor = t;
        blocks[b].chunk = chunk;
        if (t + 1 > ntensors)
            ntensors = t + 1;
    }
    for (int t = 0; t < ntensors; t++) {
        tfl_foreach_tensor *x = &tensors[t];
        memset(x, 0, sizeof *x);
        x->numel = rd_i64(meta + off_numel + 8 * (size_t)t);
        if (c->scalar_list)
            x->scalar = rd_f32(meta + off_scalar + 4 * (size_t)t);
        if (adam) {
            if (t >= max_tensors_sl5[D - 1])
                return TFL_ERR_INVALID;
            x->step = rd_ptr(meta + off_scalar + 8 * (size_t)t);
            if (!tfl_mem_check_range(x->step, sizeof(float), NULL))
                return bad_range(x->step, sizeof(float), "state step", err, errlen);
        }
        for (int k = 0; k < D; k++)
            x->ptr[k] = rd_ptr(meta + 8 * ((size_t)k * T + (size_t)t));
    }
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
    f->per_tensor_scalar = c->scalar_list;
    f->alpha = 1.0f;

    if (c->kind == TFL_FOREACH_NORM_PARTIAL) {
        float *partials = rd_ptr(call->args[2]);
        int max_chunks = rd_i32(call->args[3]);
        int first = rd_i32(meta + off_start);
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

const tfl_kfamily tfl_kfamily_foreach = {
    .name = "foreach",
    .match = match,
    .run = run,
    .op_name = op_name,
};

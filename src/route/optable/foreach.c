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
 * list res_arg_index is written.  Only float (fp32) instances are claimed.
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
    { "11ZeroFunctorIf", TFL_FOREACH_ZERO, 0, FX_NONE },
    { "14UnaryOpFunctorIf", TFL_FOREACH_UNARY, 0, FX_NONE },
    { "21BinaryOpScalarFunctorIf", TFL_FOREACH_BINARY_SCALAR, 0, FX_SCALAR },
    { "25BinaryOpScalarListFunctorIf", TFL_FOREACH_BINARY_SCALAR, 1, FX_NONE },
    { "27BinaryOpScalarTensorFunctorIf", TFL_FOREACH_BINARY_SCALAR, 0, FX_SCALAR_TENSOR },
    { "24BinaryOpListAlphaFunctorIf", TFL_FOREACH_BINARY_LIST, 0, FX_ALPHA },
    { "24PointwiseOpScalarFunctorIf", TFL_FOREACH_POINTWISE, 0, FX_SCALAR },
    { "28PointwiseOpScalarListFunctorIf", TFL_FOREACH_POINTWISE, 1, FX_NONE },
    { "22TernaryOpScalarFunctorIf", TFL_FOREACH_LERP_SCALAR, 0, FX_SCALAR },
    { "26TernaryOpScalarListFunctorIf", TFL_FOREACH_LERP_SCALAR, 1, FX_NONE },
    { "20TernaryOpListFunctorIf", TFL_FOREACH_LERP_LIST, 0, FX_NONE },
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
    /* lpnorm_cleanup<float, NormType n, float, bool apply_root, float> */
    const char *p = strstr(m, "14lpnorm_cleanupIfLNS0_8NormTypeE");
    if (!p)
        return 0;
    p += strlen("14lpnorm_cleanupIfLNS0_8NormTypeE");
    int n = *p - '0';
    if (n < 0 || n > 2 || strncmp(p + 1, "EfLb", 4) != 0)
        return 0;
    int root = p[5] - '0';
    if ((root != 0 && root != 1) || strncmp(p + 6, "EfEE", 4) != 0)
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
    static const char fun[] = "EEENS1_20FusedAdamMathFunctorIfLi";
    const char *q = strstr(p, meta);
    if (!q)
        return 0;
    q += strlen(meta);
    int d = *q - '0';
    if ((d != 4 && d != 5) || strncmp(q + 1, fun, strlen(fun)) != 0)
        return 0;
    q += 1 + strlen(fun);
    if (q[0] - '0' != d || strncmp(q + 1, "ELNS0_9ADAM_MODEE", 17) != 0)
        return 0;
    q += 18;
    int mode = *q - '0';
    if ((mode != 0 && mode != 1) || strncmp(q + 1, "ELb", 3) != 0)
        return 0;
    int ams = q[4] - '0';
    if ((ams != 0 && ams != 1) || ams != (d == 5) ||
        strcmp(q + 5, "EEEJPKfdddddbS9_S9_EEEvT_T0_DpT1_") != 0)
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
    char want[96];
    snprintf(want, sizeof want, "EEENS1_19FusedSgdMathFunctorIfLi%dEEEJddPfddbbbS7_S7_EEEvT_T0_DpT1_", d);
    if ((d != 2 && d != 3) || strcmp(q + 1, want) != 0)
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
    if ((q = strstr(p, "13LpNormFunctorIfLNS0_8NormTypeE"))) {
        q += strlen("13LpNormFunctorIfLNS0_8NormTypeE");
        int n = *q - '0';
        if (n < 0 || n > 2 || strcmp(q + 1, "EfLi1ELi1ELi0EEEJPfiEEEvT_T0_DpT1_") != 0 ||
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
    const char *want = c->extra == FX_SCALAR || c->extra == FX_ALPHA ? "fEEEvT_T0_DpT1_"
                     : c->extra == FX_SCALAR_TENSOR ? "PffEEEvT_T0_DpT1_"
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

static int match(const char *mangled, void **cookie)
{
    fcookie c;
    memset(&c, 0, sizeof c);
    int ok = strstr(mangled, "lpnorm_cleanup") ? match_cleanup(mangled, &c)
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
    for (int t = 0; t < n; t++) {
        outs[t] = rd_ptr(addrs + 8 * (size_t)t);
        if (!tfl_mem_check_range(outs[t], sizeof(float), NULL))
            return bad_range(outs[t], sizeof(float), "norm output", err, errlen);
    }
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_FOREACH;
    op.name = c->op;
    tfl_foreach_op *f = &op.u.foreach;
    f->kind = TFL_FOREACH_NORM_FINISH;
    f->dtype = TFL_DT_F32;
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

static const int max_tensors5[5] = { 110, 64, 48, 36, 30 };
static const int max_tensors_sl5[5] = { 96, 64, 48, 36, 30 };

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const fcookie *c = cookie;
    if (!c || !call->args)
        return TFL_ERR_UNSUPPORTED;
    if (c->cleanup)
        return run_cleanup(call, c, err, errlen);

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
        for (int k = 0; k < D; k++) {
            const char *p = (const char *)x->ptr[k] + start * 4;
            if (!tfl_mem_check_range(p, (size_t)n * 4, NULL))
                return bad_range(p, (size_t)n * 4, "tensor list", err, errlen);
        }
    }

    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_FOREACH;
    op.name = c->op;
    tfl_foreach_op *f = &op.u.foreach;
    f->kind = c->kind;
    f->fn = c->fn;
    f->dtype = TFL_DT_F32;
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
        if (!tfl_mem_check_range(sp, sizeof(float), NULL))
            return bad_range(sp, sizeof(float), "scalar tensor", err, errlen);
        f->scalar_ptr = sp;
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

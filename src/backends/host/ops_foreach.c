/*
 * ops_foreach.c - the host backend's native "foreach" op (torchfl/ops/foreach.h):
 * one multi_tensor_apply launch, i.e. exactly the (tensor, chunk) work items
 * the launch lists, as tight loops over contiguous float runs.
 *
 * Arithmetic follows what the GPU kernels compute in float (opmath) for
 * fp32: a + alpha*b and x + s*f(y, z) as one fused multiply-add (nvcc
 * contracts them; PyTorch's CPU kernels use fmadd for the alpha forms), lerp
 * with PyTorch's two-sided formula.  Pointers were validated by the decoder.
 */
#include <math.h>
#include <string.h>

#include "backends/host/host_ops.h"

/* fmaf is what the GPU computes, but without the FMA instruction in the
 * baseline x86-64 target every fmaf is a libm call and no loop here
 * vectorises; an x86-64-v3 (AVX2+FMA) clone of the chunk loops, chosen at
 * load time, turns them into vector FMAs with the same results. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TFL_FMA_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define TFL_FMA_CLONES
#endif

int host_foreach_supported(const tfl_foreach_op *op)
{
    if (op && op->kind == TFL_FOREACH_UPDATE_SCALE)
        return op->scale && op->growth_tracker && op->found_inf;
    if (!op || op->dtype != TFL_DT_F32 || op->chunk_size <= 0)
        return 0;
    if (op->depth < 1 || op->depth > TFL_FOREACH_MAX_LISTS ||
        op->out_list < 0 || op->out_list >= op->depth)
        return 0;
    if (op->kind == TFL_FOREACH_NORM_FINISH)
        return op->partials && op->finish_out && op->max_chunks > 0 &&
               op->norm >= TFL_FOREACH_NORM_L1 && op->norm <= TFL_FOREACH_NORM_LINF;
    if (op->nblocks < 0 || op->ntensors < 0 || (op->nblocks && (!op->blocks || !op->tensors)))
        return 0;
    switch (op->kind) {
    case TFL_FOREACH_ZERO:
    case TFL_FOREACH_LERP_SCALAR:
    case TFL_FOREACH_LERP_LIST:
        return 1;
    case TFL_FOREACH_UNARY:
        return op->fn >= TFL_FOREACH_FN_SQRT && op->fn <= TFL_FOREACH_FN_TRUNC;
    case TFL_FOREACH_BINARY_SCALAR:
    case TFL_FOREACH_BINARY_LIST:
        return op->fn >= TFL_FOREACH_FN_ADD && op->fn <= TFL_FOREACH_FN_REVPOW;
    case TFL_FOREACH_POINTWISE:
        return op->fn == TFL_FOREACH_FN_MUL || op->fn == TFL_FOREACH_FN_DIV;
    case TFL_FOREACH_NORM_PARTIAL:
        return op->partials && op->max_chunks > 0 &&
               op->norm >= TFL_FOREACH_NORM_L1 && op->norm <= TFL_FOREACH_NORM_LINF;
    case TFL_FOREACH_ADAM:
        return op->depth == (op->amsgrad ? 5 : 4);
    case TFL_FOREACH_SGD:
        return op->depth == 2 || op->depth == 3;
    case TFL_FOREACH_UNSCALE:
        return op->depth == 1 && op->found_inf_out && op->inv_scale;
    default:
        return 0;
    }
}

static inline float fmaxp(float a, float b)   /* NaN-propagating max */
{
    return (a != a || b != b) ? NAN : (a > b ? a : b);
}

static inline float fminp(float a, float b)
{
    return (a != a || b != b) ? NAN : (a < b ? a : b);
}

static inline float bin(tfl_foreach_fn fn, float a, float b)
{
    switch (fn) {
    case TFL_FOREACH_FN_ADD: return a + b;
    case TFL_FOREACH_FN_SUB: return a - b;
    case TFL_FOREACH_FN_MUL: return a * b;
    case TFL_FOREACH_FN_DIV: return a / b;
    case TFL_FOREACH_FN_MAX: return fmaxp(a, b);
    case TFL_FOREACH_FN_MIN: return fminp(a, b);
    case TFL_FOREACH_FN_POW: return powf(a, b);
    case TFL_FOREACH_FN_REVPOW: return powf(b, a);
    default: return a;
    }
}

static inline float lerpf_pt(float self, float end, float w)
{
    float d = end - self;
    return fabsf(w) < 0.5f ? fmaf(w, d, self) : fmaf(-d, 1.0f - w, end);
}

/* The scalar s of tensor t. */
static inline float scalar_of(const tfl_foreach_op *op, int t)
{
    if (op->per_tensor_scalar)
        return op->tensors[t].scalar;
    if (op->scalar_ptr)
        return *op->scalar_ptr * op->alpha;
    return op->scalar;
}

TFL_FMA_CLONES static void run_chunk(const tfl_foreach_op *op, int t, int64_t start, int64_t n)
{
    const tfl_foreach_tensor *T = &op->tensors[t];
    float *restrict out = (float *)T->ptr[op->out_list] + start;
    const float *x0 = (const float *)T->ptr[0] + start;
    const float *x1 = op->depth > 1 ? (const float *)T->ptr[1] + start : NULL;
    const float *x2 = op->depth > 2 ? (const float *)T->ptr[2] + start : NULL;
    const float s = scalar_of(op, t);
    int64_t i;

    switch (op->kind) {
    case TFL_FOREACH_ZERO:
        memset(out, 0, (size_t)n * sizeof(float));
        break;
    case TFL_FOREACH_UNARY:
        switch (op->fn) {
        case TFL_FOREACH_FN_SQRT: for (i = 0; i < n; i++) out[i] = sqrtf(x0[i]); break;
        case TFL_FOREACH_FN_COPY: for (i = 0; i < n; i++) out[i] = x0[i]; break;
        case TFL_FOREACH_FN_NEG: for (i = 0; i < n; i++) out[i] = -x0[i]; break;
        case TFL_FOREACH_FN_ABS: for (i = 0; i < n; i++) out[i] = fabsf(x0[i]); break;
        case TFL_FOREACH_FN_RECIPROCAL: for (i = 0; i < n; i++) out[i] = 1.0f / x0[i]; break;
        case TFL_FOREACH_FN_RSQRT: for (i = 0; i < n; i++) out[i] = 1.0f / sqrtf(x0[i]); break;
        case TFL_FOREACH_FN_EXP: for (i = 0; i < n; i++) out[i] = expf(x0[i]); break;
        case TFL_FOREACH_FN_EXPM1: for (i = 0; i < n; i++) out[i] = expm1f(x0[i]); break;
        case TFL_FOREACH_FN_LOG: for (i = 0; i < n; i++) out[i] = logf(x0[i]); break;
        case TFL_FOREACH_FN_LOG1P: for (i = 0; i < n; i++) out[i] = log1pf(x0[i]); break;
        case TFL_FOREACH_FN_LOG2: for (i = 0; i < n; i++) out[i] = log2f(x0[i]); break;
        case TFL_FOREACH_FN_LOG10: for (i = 0; i < n; i++) out[i] = log10f(x0[i]); break;
        case TFL_FOREACH_FN_SIGMOID:
            for (i = 0; i < n; i++) out[i] = 1.0f / (1.0f + expf(-x0[i]));
            break;
        case TFL_FOREACH_FN_TANH: for (i = 0; i < n; i++) out[i] = tanhf(x0[i]); break;
        case TFL_FOREACH_FN_SIN: for (i = 0; i < n; i++) out[i] = sinf(x0[i]); break;
        case TFL_FOREACH_FN_COS: for (i = 0; i < n; i++) out[i] = cosf(x0[i]); break;
        case TFL_FOREACH_FN_ERF: for (i = 0; i < n; i++) out[i] = erff(x0[i]); break;
        case TFL_FOREACH_FN_FLOOR: for (i = 0; i < n; i++) out[i] = floorf(x0[i]); break;
        case TFL_FOREACH_FN_CEIL: for (i = 0; i < n; i++) out[i] = ceilf(x0[i]); break;
        /* torch.round: halves to even, as nearbyint in the default mode */
        case TFL_FOREACH_FN_ROUND: for (i = 0; i < n; i++) out[i] = nearbyintf(x0[i]); break;
        case TFL_FOREACH_FN_TRUNC: for (i = 0; i < n; i++) out[i] = truncf(x0[i]); break;
        default: break;
        }
        break;
    case TFL_FOREACH_BINARY_SCALAR:
        switch (op->fn) {
        case TFL_FOREACH_FN_ADD: for (i = 0; i < n; i++) out[i] = x0[i] + s; break;
        case TFL_FOREACH_FN_SUB: for (i = 0; i < n; i++) out[i] = x0[i] - s; break;
        case TFL_FOREACH_FN_MUL: for (i = 0; i < n; i++) out[i] = x0[i] * s; break;
        case TFL_FOREACH_FN_DIV: for (i = 0; i < n; i++) out[i] = x0[i] / s; break;
        default: for (i = 0; i < n; i++) out[i] = bin(op->fn, x0[i], s); break;
        }
        break;
    case TFL_FOREACH_BINARY_LIST: {
        const float a = op->alpha;
        switch (op->fn) {
        case TFL_FOREACH_FN_ADD: for (i = 0; i < n; i++) out[i] = fmaf(a, x1[i], x0[i]); break;
        case TFL_FOREACH_FN_SUB: for (i = 0; i < n; i++) out[i] = fmaf(-a, x1[i], x0[i]); break;
        case TFL_FOREACH_FN_MUL: for (i = 0; i < n; i++) out[i] = x0[i] * (a * x1[i]); break;
        case TFL_FOREACH_FN_DIV: for (i = 0; i < n; i++) out[i] = x0[i] / (a * x1[i]); break;
        default: for (i = 0; i < n; i++) out[i] = bin(op->fn, x0[i], a * x1[i]); break;
        }
        break;
    }
    case TFL_FOREACH_POINTWISE:
        if (op->fn == TFL_FOREACH_FN_MUL)
            for (i = 0; i < n; i++) out[i] = fmaf(s, x1[i] * x2[i], x0[i]);
        else
            for (i = 0; i < n; i++) out[i] = fmaf(s, x1[i] / x2[i], x0[i]);
        break;
    case TFL_FOREACH_LERP_SCALAR:
        for (i = 0; i < n; i++) out[i] = lerpf_pt(x0[i], x1[i], s);
        break;
    case TFL_FOREACH_LERP_LIST:
        for (i = 0; i < n; i++) out[i] = lerpf_pt(x0[i], x1[i], x2[i]);
        break;
    case TFL_FOREACH_UNSCALE: {
        const float inv = *op->inv_scale;
        int bad = 0;
        for (i = 0; i < n; i++) {
            float v = x0[i];
            bad |= !isfinite(v);
            out[i] = inv == 1.0f ? v : v * inv;
        }
        if (bad)
            *op->found_inf_out = 1.0f;
        break;
    }
    case TFL_FOREACH_NORM_PARTIAL: {
        double acc = 0.0;
        if (op->norm == TFL_FOREACH_NORM_L2)
            for (i = 0; i < n; i++) acc += (double)x0[i] * x0[i];
        else if (op->norm == TFL_FOREACH_NORM_L1)
            for (i = 0; i < n; i++) acc += fabs((double)x0[i]);
        else
            for (i = 0; i < n; i++) {
                double v = fabs((double)x0[i]);
                if (v != v || acc != acc) acc = NAN;
                else if (v > acc) acc = v;
            }
        int64_t chunk = start / op->chunk_size;
        op->partials[(int64_t)(op->first_index + t) * op->max_chunks + chunk] = (float)acc;
        break;
    }
    default:
        break;
    }
}

/* One chunk of PyTorch's FusedAdamMathFunctor.  The 2.11 kernel (read from
 * its SASS) rounds the double hyper-parameters to float and computes in
 * float, powf for the bias corrections included. */
TFL_FMA_CLONES static void adam_chunk(const tfl_foreach_op *op, int t, int64_t start, int64_t n)
{
    const tfl_foreach_tensor *T = &op->tensors[t];
    float *p = (float *)T->ptr[0] + start;
    float *g = (float *)T->ptr[1] + start;
    float *m = (float *)T->ptr[2] + start;
    float *v = (float *)T->ptr[3] + start;
    float *vmax = op->amsgrad ? (float *)T->ptr[4] + start : NULL;
    const float lr = op->lr_ptr ? *op->lr_ptr : (float)op->lr;
    const float b1 = (float)op->beta1, b2 = (float)op->beta2;
    const float wd = (float)op->weight_decay, eps = (float)op->eps;
    const float step = *T->step;
    const float bc1 = 1.0f - powf(b1, step);
    const float bc2_sqrt = sqrtf(1.0f - powf(b2, step));
    const float step_size = lr / bc1;
    for (int64_t i = 0; i < n; i++) {
        float param = p[i], grad = g[i];
        if (op->grad_scale)
            grad = grad / *op->grad_scale;
        const float grad_store = grad;
        if (op->maximize)
            grad = -grad;
        if (wd != 0.0f) {
            if (!op->adamw)
                grad = fmaf(param, wd, grad);
            else
                param = param - lr * wd * param;
        }
        float ea = fmaf(b1, m[i], (1.0f - b1) * grad);
        float eas = fmaf(b2, v[i], (1.0f - b2) * grad * grad);
        float denom;
        if (vmax) {
            float mx = vmax[i] > eas ? vmax[i] : eas;
            vmax[i] = mx;
            denom = sqrtf(mx) / bc2_sqrt + eps;
        } else {
            denom = sqrtf(eas) / bc2_sqrt + eps;
        }
        p[i] = param - step_size * ea / denom;
        if (op->grad_scale)
            g[i] = grad_store;
        m[i] = ea;
        v[i] = eas;
    }
}

/* One chunk of PyTorch's FusedSgdMathFunctor.  The 2.11 kernel (read from
 * its SASS) rounds the double hyper-parameters to float and works in
 * float with fused multiply-adds: g = g / scale; maximize: g = -g;
 * g = fma(p, wd, g); p = fma(g, -lr, p). */
TFL_FMA_CLONES static void sgd_chunk(const tfl_foreach_op *op, int t, int64_t start, int64_t n)
{
    const tfl_foreach_tensor *T = &op->tensors[t];
    float *p = (float *)T->ptr[0] + start;
    float *g = (float *)T->ptr[1] + start;
    float *buf = op->depth > 2 ? (float *)T->ptr[2] + start : NULL;
    const float lr = op->lr_ptr ? *op->lr_ptr : (float)op->lr;
    const float wd = (float)op->weight_decay, mom = (float)op->momentum;
    const float omd = (float)(1.0 - op->dampening);
    for (int64_t i = 0; i < n; i++) {
        float param = p[i], grad = g[i];
        if (op->grad_scale) {
            grad = grad / *op->grad_scale;
            g[i] = grad;
        }
        if (op->maximize)
            grad = -grad;
        if (wd != 0.0f)
            grad = fmaf(param, wd, grad);
        if (buf) {
            float mb = op->is_first_step ? grad : fmaf(mom, buf[i], omd * grad);
            buf[i] = mb;
            grad = op->nesterov ? fmaf(mom, mb, grad) : mb;
        }
        p[i] = fmaf(grad, -lr, param);
    }
}

static void norm_finish(const tfl_foreach_op *op)
{
    for (int t = 0; t < op->nfinish; t++) {
        const float *p = op->partials + (int64_t)t * op->max_chunks;
        double acc = 0.0;
        for (int c = 0; c < op->max_chunks; c++) {
            if (op->norm == TFL_FOREACH_NORM_LINF) {
                if (p[c] != p[c] || acc != acc) acc = NAN;
                else if (p[c] > acc) acc = p[c];
            } else {
                acc += p[c];
            }
        }
        if (op->norm == TFL_FOREACH_NORM_L2 && op->apply_root)
            acc = sqrt(acc);
        *(float *)op->finish_out[t] = (float)acc;
    }
}

/* amp_update_scale_cuda_kernel, one thread. */
static void update_scale(const tfl_foreach_op *op)
{
    if (*op->found_inf != 0.0f) {
        *op->scale = (float)((double)*op->scale * op->backoff_factor);
        *op->growth_tracker = 0;
        return;
    }
    int32_t successful = *op->growth_tracker + 1;
    if (successful == op->growth_interval) {
        float grown = (float)((double)*op->scale * op->growth_factor);
        if (isfinite(grown))
            *op->scale = grown;
        *op->growth_tracker = 0;
    } else {
        *op->growth_tracker = successful;
    }
}

tfl_status host_foreach(const tfl_foreach_op *op)
{
    if (!host_foreach_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind == TFL_FOREACH_UPDATE_SCALE) {
        update_scale(op);
        return TFL_OK;
    }
    if (op->kind == TFL_FOREACH_NORM_FINISH) {
        norm_finish(op);
        return TFL_OK;
    }
    for (int b = 0; b < op->nblocks; b++) {
        int t = op->blocks[b].tensor;
        if (t < 0 || t >= op->ntensors || op->blocks[b].chunk < 0)
            return TFL_ERR_INVALID;
        int64_t start = (int64_t)op->blocks[b].chunk * op->chunk_size;
        int64_t n = op->tensors[t].numel - start;
        if (n <= 0)
            continue;
        if (n > op->chunk_size)
            n = op->chunk_size;
        if (op->kind == TFL_FOREACH_SGD) {
            if (op->found_inf && *op->found_inf == 1.0f)
                return TFL_OK;
            sgd_chunk(op, t, start, n);
        } else if (op->kind == TFL_FOREACH_ADAM) {
            if (op->found_inf && *op->found_inf == 1.0f)
                return TFL_OK;
            if (!op->tensors[t].step)
                return TFL_ERR_INVALID;
            adam_chunk(op, t, start, n);
        } else {
            run_chunk(op, t, start, n);
        }
    }
    return TFL_OK;
}

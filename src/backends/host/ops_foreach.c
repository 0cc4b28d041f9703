/*
 * ops_foreach.c - the host backend's native "foreach" op (torchfl/ops/foreach.h):
 * one multi_tensor_apply launch, i.e. exactly the (tensor, chunk) work items
 * the launch lists, as tight loops over contiguous float runs.
 *
 * Arithmetic follows what the GPU kernels compute in float (opmath) for
 * fp32: a + alpha*b and x + s*f(y, z) as one fused multiply-add (nvcc
 * contracts them; PyTorch's CPU kernels use fmadd for the alpha forms), lerp
 * with PyTorch's two-sided formula.  Pointers were validated by the decoder.
 *
 * float16 / bfloat16 lists: PyTorch's functors load each element into
 * float (opmath), compute, and round once on store; here each chunk of
 * every list is widened into float scratch, the float code runs on it,
 * and the lists the kind writes are narrowed back (nearest even).
 */
#include <math.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_lowp.h"

#include "backends/host/host_simd.h"

/* fmaf is what the GPU computes, but without the FMA instruction in the
 * baseline x86-64 target every fmaf is a libm call and no loop here
 * vectorises: the chunk loops get an x86-64-v3 clone (TFL_CLONES). */

static int norm_ok(tfl_foreach_norm n)
{
    return n >= TFL_FOREACH_NORM_L1 && n <= TFL_FOREACH_NORM_L0;
}

int host_foreach_supported(const tfl_foreach_op *op)
{
    if (op && op->kind == TFL_FOREACH_UPDATE_SCALE)
        return op->scale && op->growth_tracker && op->found_inf;
    if (!op || !lowp_dtype_ok(op->dtype) || op->chunk_size <= 0)
        return 0;
    if (op->kind == TFL_FOREACH_NORM_FINISH && !lowp_dtype_ok(op->out_dtype))
        return 0;
    if (op->depth < 1 || op->depth > TFL_FOREACH_MAX_LISTS ||
        op->out_list < 0 || op->out_list >= op->depth)
        return 0;
    if (op->kind == TFL_FOREACH_NORM_FINISH)
        return op->partials && op->finish_out && op->max_chunks > 0 && norm_ok(op->norm);
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
        return op->partials && op->max_chunks > 0 && norm_ok(op->norm);
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
        return (float)hg_load(op->scalar_ptr_dtype, op->scalar_ptr, 0) * op->alpha;
    return op->scalar;
}

/* The kinds below take L[k]: list k's float elements of the chunk that
 * starts at element `start` of tensor t. */
TFL_CLONES static void run_chunk(const tfl_foreach_op *op, float *const *L, int t,
                                     int64_t start, int64_t n)
{
    float *restrict out = L[op->out_list];
    const float *x0 = L[0];
    const float *x1 = op->depth > 1 ? L[1] : NULL;
    const float *x2 = op->depth > 2 ? L[2] : NULL;
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
        else if (op->norm == TFL_FOREACH_NORM_L0)      /* NaN != 0: counted */
            for (i = 0; i < n; i++) acc += x0[i] != 0.0f;
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
TFL_CLONES static void adam_chunk(const tfl_foreach_op *op, float *const *L, int t, int64_t n)
{
    const tfl_foreach_tensor *T = &op->tensors[t];
    float *p = L[0], *g = L[1], *m = L[2], *v = L[3];
    float *vmax = op->amsgrad ? L[4] : NULL;
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
TFL_CLONES static void sgd_chunk(const tfl_foreach_op *op, float *const *L, int64_t n)
{
    float *p = L[0], *g = L[1];
    float *buf = op->depth > 2 ? L[2] : NULL;
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
        if (op->norm == TFL_FOREACH_NORM_L2 && op->apply_root)   /* L0: a count, no root */
            acc = sqrt(acc);
        /* the norm in float, rounded once to the output type */
        hg_store(op->out_dtype, op->finish_out[t], 0, (float)acc);
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

/* Bit k set: list k is written by op's kind. */
static unsigned written_lists(const tfl_foreach_op *op)
{
    switch (op->kind) {
    case TFL_FOREACH_NORM_PARTIAL:
        return 0;
    case TFL_FOREACH_ADAM:      /* param, exp_avg, exp_avg_sq[, max], grad if unscaled */
        return 1u | 4u | 8u | (op->amsgrad ? 16u : 0u) | (op->grad_scale ? 2u : 0u);
    case TFL_FOREACH_SGD:       /* param[, momentum buffer], grad if unscaled */
        return 1u | (op->depth > 2 ? 4u : 0u) | (op->grad_scale ? 2u : 0u);
    default:
        return 1u << op->out_list;
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
    const size_t es = tfl_dtype_size(op->dtype);
    const int wide = op->dtype != TFL_DT_F32;
    const unsigned wmask = written_lists(op);
    float *L[TFL_FOREACH_MAX_LISTS] = { NULL };
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
        if ((op->kind == TFL_FOREACH_SGD || op->kind == TFL_FOREACH_ADAM) &&
            op->found_inf && *op->found_inf == 1.0f)
            return TFL_OK;
        if (op->kind == TFL_FOREACH_ADAM && !op->tensors[t].step)
            return TFL_ERR_INVALID;
        for (int k = 0; k < op->depth; k++) {
            char *base = (char *)op->tensors[t].ptr[k] + (size_t)start * es;
            if (!wide) {
                L[k] = (float *)base;
                continue;
            }
            if (!(L[k] = lowp_scratch(k, n)))
                return TFL_ERR_NOMEM;
            lowp_widen(op->dtype, base, L[k], n);
        }
        if (op->kind == TFL_FOREACH_SGD)
            sgd_chunk(op, L, n);
        else if (op->kind == TFL_FOREACH_ADAM)
            adam_chunk(op, L, t, n);
        else
            run_chunk(op, L, t, start, n);
        if (wide)
            for (int k = 0; k < op->depth; k++)
                if (wmask & (1u << k))
                    lowp_narrow(op->dtype, L[k], (char *)op->tensors[t].ptr[k] + (size_t)start * es, n);
    }
    return TFL_OK;
}

/*
 * ops_random.c - the host backend's native "random" op (torchfl/ops/random.h):
 * PyTorch's CUDA distribution kernels and dropout, replayed thread by thread
 * with the same Philox4x32-10 counters, so that a given seed gives the same
 * tensor as on a GPU (uniform, bernoulli, integers, dropout masks: bit for
 * bit; normal: to a few ulp, see ops_random_philox.h).
 *
 * Pointers were validated by the caller (the route decoder); this file only
 * walks the index space the op describes.
 */
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_elementwise_fp16.h"
#include "backends/host/ops_random_philox.h"

/* Address of element i of a view (dim 0 fastest). */
static inline char *view_at(const tfl_random_view *v, int64_t i, size_t esz)
{
    if (v->ndim == 0)
        return (char *)v->data + i * (int64_t)esz;
    if (v->ndim == 1 && i < v->sizes[0])
        return (char *)v->data + i * v->strides[0];
    int64_t off = 0;
    for (int d = 0; d < v->ndim; d++) {
        int64_t sz = v->sizes[d];
        off += (i % sz) * v->strides[d];
        i /= sz;
    }
    return (char *)v->data + off;
}

static int int_out_ok(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F32: case TFL_DT_F64: case TFL_DT_I64: case TFL_DT_I32:
    case TFL_DT_I8: case TFL_DT_U8: case TFL_DT_BOOL:
        return 1;
    default:
        return 0;
    }
}

/* renormRowsL1: each row divided by its sum when that is positive (the
 * sum in the element type, in column order). */
static void renorm_rows(const tfl_random_op *op)
{
    for (int64_t r = 0; r < op->rows; r++) {
        if (op->dtype == TFL_DT_F64) {
            double *row = (double *)op->out.data + r * op->cols, sum = 0.0;
            for (int64_t c = 0; c < op->cols; c++)
                sum += row[c];
            if (sum > 0.0)
                for (int64_t c = 0; c < op->cols; c++)
                    row[c] /= sum;
        } else {
            float *row = (float *)op->out.data + r * op->cols, sum = 0.0f;
            for (int64_t c = 0; c < op->cols; c++)
                sum += row[c];
            if (sum > 0.0f)
                for (int64_t c = 0; c < op->cols; c++)
                    row[c] /= sum;
        }
    }
}

/* binarySearchForMultinomial: the first category whose cumulative
 * probability is >= u (the last one if none), then down to the nearest
 * category with nonzero probability. */
static int64_t multinomial_pick(const tfl_random_op *op, int64_t d, double u)
{
    int64_t lo = 0, hi = op->cols;
    const int dbl = op->dtype == TFL_DT_F64;
    const char *cum = (const char *)op->mask.data, *dist = (const char *)op->in.data;
    while (hi > lo) {
        int64_t mid = lo + (hi - lo) / 2;
        double v = dbl ? ((const double *)cum)[d * op->cols + mid]
                       : (double)((const float *)cum)[d * op->cols + mid];
        if (v < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == op->cols)
        lo = op->cols - 1;
    while (lo >= 1 && (dbl ? ((const double *)dist)[d * op->cols + lo] == 0.0
                           : ((const float *)dist)[d * op->cols + lo] == 0.0f))
        lo--;
    return lo;
}

/* sampleMultinomialWithReplacement, thread by thread: a thread's k-th
 * draw is the .x of its k-th curand_uniform4. */
static void multinomial(const tfl_random_op *op)
{
    const uint64_t per_row = (uint64_t)op->grid_x * op->block_x;
    int64_t *dest = (int64_t *)op->out.data;
    /* threads past the last distribution or sample draw nothing */
    const uint64_t gys = (uint64_t)op->rows < op->grid_y ? (uint64_t)op->rows : op->grid_y;
    const uint64_t s0s = (uint64_t)op->samples < per_row ? (uint64_t)op->samples : per_row;
    for (uint64_t gy = 0; gy < gys; gy++) {
        for (uint64_t s0 = 0; s0 < s0s; s0++) {
            const uint64_t t = gy * per_row + s0;
            uint64_t k = 0;
            for (int64_t d = (int64_t)gy; d < op->rows; d += op->grid_y) {
                for (int64_t s = (int64_t)s0; s < op->samples; s += (int64_t)per_row) {
                    uint32_t r[4];
                    tfl_philox_draw(op->seed, t, op->offset, k++, r);
                    float uf = tfl_curand_uniform(r[0]);
                    /* compared in the element type (a float draw widened) */
                    dest[d * op->samples + s] = multinomial_pick(op, d, (double)uf);
                }
            }
        }
    }
}

static int rows_op_ok(const tfl_random_op *op)
{
    if (op->rows < 0 || op->cols < 0 || !(op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F64))
        return 0;
    if (op->kind == TFL_RANDOM_RENORM_ROWS)
        return 1;
    return op->samples >= 0 && op->grid_x > 0 && op->grid_y > 0 && op->block_x > 0 &&
           (op->rows == 0 || op->cols > 0);
}

int host_random_supported(const tfl_random_op *op)
{
    if (op && (op->kind == TFL_RANDOM_RENORM_ROWS || op->kind == TFL_RANDOM_MULTINOMIAL))
        return rows_op_ok(op);
    if (op && op->kind == TFL_RANDOM_MASKED_SCALE)
        return op->numel >= 0 &&
               (op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F16 ||
                op->dtype == TFL_DT_BF16) && op->in.ndim == 0 &&
               op->out.ndim == 0 && op->mask.ndim == 0 &&
               (op->mask_dtype == TFL_DT_BOOL || op->mask_dtype == TFL_DT_U8);
    if (!op || op->numel < 0 || op->threads == 0)
        return 0;
    if (op->traverse == TFL_RANDOM_TRAVERSE_VEC) {
        if (op->vec != 2 && op->vec != 4 && op->vec != 8 && op->vec != 16)
            return 0;
        if (op->kind != TFL_RANDOM_DROPOUT)
            return 0;
    } else if (op->traverse == TFL_RANDOM_TRAVERSE_APPLY4) {
        if (op->kind != TFL_RANDOM_BERNOULLI_TENSOR)
            return 0;
    } else if (op->traverse != TFL_RANDOM_TRAVERSE_GRID_STRIDE) {
        return 0;
    }
    const tfl_random_view *vs[3] = { &op->out, &op->in, &op->mask };
    for (int k = 0; k < 3; k++)
        if (vs[k]->ndim < 0 || vs[k]->ndim > TFL_RANDOM_MAX_DIMS)
            return 0;
    switch (op->kind) {
    case TFL_RANDOM_MASKED_SCALE:
    case TFL_RANDOM_RENORM_ROWS:
    case TFL_RANDOM_MULTINOMIAL:
        return 0;
    case TFL_RANDOM_EXPONENTIAL:
    case TFL_RANDOM_CAUCHY:
    case TFL_RANDOM_LOG_NORMAL:
        if (op->traverse != TFL_RANDOM_TRAVERSE_GRID_STRIDE)
            return 0;
        if (op->acc == TFL_DT_F32 && (op->dtype == TFL_DT_F16 || op->dtype == TFL_DT_BF16))
            return 1;
        return (op->acc == TFL_DT_F32 || op->acc == TFL_DT_F64) && op->dtype == op->acc;
    case TFL_RANDOM_RRELU:
        return op->traverse == TFL_RANDOM_TRAVERSE_GRID_STRIDE && op->in.ndim == 0 &&
               op->out.ndim == 0 && op->mask.ndim == 0 &&
               ((op->acc == TFL_DT_F64 && op->dtype == TFL_DT_F64) ||
                (op->acc == TFL_DT_F32 && (op->dtype == TFL_DT_F32 ||
                                           op->dtype == TFL_DT_F16 ||
                                           op->dtype == TFL_DT_BF16)));
    case TFL_RANDOM_GEOMETRIC:
        if (op->traverse != TFL_RANDOM_TRAVERSE_GRID_STRIDE)
            return 0;
        if (op->acc == TFL_DT_F64)
            return op->dtype == TFL_DT_F64;
        return op->acc == TFL_DT_F32 && op->dtype != TFL_DT_F64 && op->dtype != TFL_DT_BOOL &&
               (int_out_ok(op->dtype) || op->dtype == TFL_DT_F16 || op->dtype == TFL_DT_BF16);
    case TFL_RANDOM_UNIFORM:
    case TFL_RANDOM_NORMAL:
    case TFL_RANDOM_BERNOULLI:
        if (op->acc == TFL_DT_F32 && (op->dtype == TFL_DT_F16 || op->dtype == TFL_DT_BF16))
            return 1;
        return (op->acc == TFL_DT_F32 || op->acc == TFL_DT_F64) &&
               op->dtype == op->acc;
    case TFL_RANDOM_INT_FROM_TO:
        return (op->bits == 32 || op->bits == 64) &&
               (int_out_ok(op->dtype) || op->dtype == TFL_DT_F16 || op->dtype == TFL_DT_BF16);
    case TFL_RANDOM_DROPOUT:
        return (op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F16 ||
                op->dtype == TFL_DT_BF16) &&
               (op->mask_dtype == TFL_DT_BOOL || op->mask_dtype == TFL_DT_U8);
    case TFL_RANDOM_BERNOULLI_TENSOR:
        return op->traverse == TFL_RANDOM_TRAVERSE_APPLY4 && int_out_ok(op->dtype) &&
               (op->in_dtype == TFL_DT_F32 || op->in_dtype == TFL_DT_F64);
    }
    return 0;
}

/* Per-op constants of the element transform. */
typedef struct rng_ctx {
    const tfl_random_op *op;
    float fa, fb, fc;         /* float parameters (acc F32)          */
    float scale;              /* dropout: 1/p as the kernel rounds it */
    int per_draw;             /* values per draw: 4 or 2              */
    int f32_fast;             /* uniform/normal/bernoulli into contiguous float */
    int dropout_fast;         /* dropout over contiguous in/out/mask         */
    size_t esz;
} rng_ctx;

/* One value of a draw: raw bits and/or the transformed number. */
typedef struct rval {
    uint64_t r;       /* integer draw (32 or 64 bits)      */
    float f;          /* float uniform (0,1] or normal     */
    double d;         /* double uniform (0,1] or normal    */
} rval;

static inline void store_int(const rng_ctx *c, int64_t li, int64_t v)
{
    const tfl_random_op *op = c->op;
    char *p = view_at(&op->out, li, c->esz);
    switch (op->dtype) {
    case TFL_DT_I64: *(int64_t *)p = v; break;
    case TFL_DT_I32: *(int32_t *)p = (int32_t)v; break;
    case TFL_DT_I8: *(int8_t *)p = (int8_t)v; break;
    case TFL_DT_U8: *(uint8_t *)p = (uint8_t)v; break;
    case TFL_DT_BOOL: *(uint8_t *)p = v != 0; break;
    case TFL_DT_F32: *(float *)p = (float)v; break;
    case TFL_DT_F64: *(double *)p = (double)v; break;
    case TFL_DT_F16: { uint16_t h = tfl_float_to_half((float)v); memcpy(p, &h, 2); break; }
    case TFL_DT_BF16: { uint16_t h = tfl_float_to_bf16((float)v); memcpy(p, &h, 2); break; }
    default: break;
    }
}

/* A float result x into a half/bfloat16 output element li, rounded to
 * nearest even; a result that rounds to `bound` is stored as `instead`. */
static inline void store_lowp(const tfl_random_op *op, int64_t li, float x, float bound,
                              float instead)
{
    const int half = op->dtype == TFL_DT_F16;
    uint16_t h = half ? tfl_float_to_half(x) : tfl_float_to_bf16(x);
    float r = half ? tfl_half_to_float(h) : tfl_bf16_to_float(h);
    if (r == bound)
        h = half ? tfl_float_to_half(instead) : tfl_float_to_bf16(instead);
    memcpy(view_at(&op->out, li, 2), &h, 2);
}

/* A float (acc F32) result into element li: float, half/bfloat16 (one
 * rounding) or, for geometric_, an integer type (static_cast: truncation). */
static inline void store_accf(const rng_ctx *c, int64_t li, float x)
{
    const tfl_random_op *op = c->op;
    switch (op->dtype) {
    case TFL_DT_F32: *(float *)view_at(&op->out, li, 4) = x; break;
    case TFL_DT_F16: case TFL_DT_BF16: store_lowp(op, li, x, NAN, 0.0f); break;
    default: store_int(c, li, (int64_t)x); break;
    }
}

static inline float lowp_round(tfl_dtype t, float x)
{
    return t == TFL_DT_F16 ? tfl_half_to_float(tfl_float_to_half(x))
                           : tfl_bf16_to_float(tfl_float_to_bf16(x));
}

/* rrelu_with_noise in training: r = u * range + lower (double arithmetic,
 * then the element type; half/bfloat16 round u to the type first);
 * negative inputs scaled by r, noise = r, else noise = 1. */
static inline void rrelu_emit(const rng_ctx *c, int64_t li, const rval *v)
{
    const tfl_random_op *op = c->op;
    const int64_t i = li;
    switch (op->dtype) {
    case TFL_DT_F64: {
        double x = ((const double *)op->in.data)[i];
        double r = fma(v->d, op->b, op->a);
        ((double *)op->out.data)[i] = x <= 0.0 ? x * r : x;
        ((double *)op->mask.data)[i] = x <= 0.0 ? r : 1.0;
        break;
    }
    case TFL_DT_F32: {
        float x = ((const float *)op->in.data)[i];
        float r = (float)fma((double)v->f, op->b, op->a);
        ((float *)op->out.data)[i] = x <= 0.0f ? x * r : x;
        ((float *)op->mask.data)[i] = x <= 0.0f ? r : 1.0f;
        break;
    }
    default: {
        const int half = op->dtype == TFL_DT_F16;
        uint16_t hx = ((const uint16_t *)op->in.data)[i];
        float x = half ? tfl_half_to_float(hx) : tfl_bf16_to_float(hx);
        float u = lowp_round(op->dtype, v->f);
        float r = lowp_round(op->dtype, (float)fma((double)u, op->b, op->a));
        float y = x <= 0.0f ? lowp_round(op->dtype, x * r) : x;
        float nz = x <= 0.0f ? r : 1.0f;
        ((uint16_t *)op->out.data)[i] = half ? tfl_float_to_half(y) : tfl_float_to_bf16(y);
        ((uint16_t *)op->mask.data)[i] = half ? tfl_float_to_half(nz) : tfl_float_to_bf16(nz);
        break;
    }
    }
}

/* Element li receives value v of a draw. */
static inline void emit(const rng_ctx *c, int64_t li, const rval *v)
{
    const tfl_random_op *op = c->op;
    const int dbl = op->acc == TFL_DT_F64;
    switch (op->kind) {
    case TFL_RANDOM_UNIFORM:
        if (dbl) {
            double x = fma(v->d, op->a, op->b);
            /* PyTorch maps the (0, 1] bound onto [from, to) */
            *(double *)view_at(&op->out, li, 8) = x == op->c ? op->b : x;
        } else if (op->dtype == TFL_DT_F32) {
            float x = fmaf(v->f, c->fa, c->fb);
            *(float *)view_at(&op->out, li, 4) = x == c->fc ? c->fb : x;
        } else {
            /* half/bfloat16: rand * range + from in float, rounded to the
             * type, then the (0, 1] bound mapped as above (in the type) */
            float x = fmaf(v->f, c->fa, c->fb);
            store_lowp(op, li, x, c->fc, c->fb);
        }
        break;
    case TFL_RANDOM_NORMAL:
        if (dbl)
            *(double *)view_at(&op->out, li, 8) = fma(v->d, op->a, op->b);
        else if (op->dtype == TFL_DT_F32)
            *(float *)view_at(&op->out, li, 4) = fmaf(v->f, c->fa, c->fb);
        else
            store_lowp(op, li, fmaf(v->f, c->fa, c->fb), NAN, 0.0f);
        break;
    case TFL_RANDOM_BERNOULLI:
        if (dbl)
            *(double *)view_at(&op->out, li, 8) = v->d < op->a ? 1.0 : 0.0;
        else if (op->dtype == TFL_DT_F32)
            *(float *)view_at(&op->out, li, 4) = v->f < c->fa ? 1.0f : 0.0f;
        else
            store_lowp(op, li, v->f < c->fa ? 1.0f : 0.0f, NAN, 0.0f);
        break;
    case TFL_RANDOM_INT_FROM_TO: {
        uint64_t r = op->range ? v->r % op->range : v->r;
        store_int(c, li, (int64_t)(r + (uint64_t)op->base));
        break;
    }
    case TFL_RANDOM_EXPONENTIAL:
        /* transformation::exponential as CUDA builds compute it: log(1)
         * (and logs of draws that close to 1) replaced by -eps/2 */
        if (dbl) {
            const double e2 = 0x1p-52 / 2;
            double lg = v->d >= 1.0 - e2 ? -e2 : log(v->d);
            *(double *)view_at(&op->out, li, 8) = -1.0 / op->a * lg;
        } else {
            const float e2 = 0x1p-23f / 2;
            float lg = v->f >= 1.0f - e2 ? -e2 : logf(v->f);
            store_accf(c, li, -1.0f / c->fa * lg);
        }
        break;
    case TFL_RANDOM_CAUCHY:
        /* median + sigma * tan(pi * (u - 0.5)); the float version clamps
         * u into [eps, 1 - eps] first (tan would overflow at the ends) */
        if (dbl) {
            *(double *)view_at(&op->out, li, 8) =
                fma(op->b, tan(3.14159265358979323846 * (v->d - 0.5)), op->a);
        } else {
            const float eps = 0x1p-23f;
            float u = v->f > 1.0f - eps ? 1.0f - eps : v->f;
            u = u < eps ? eps : u;
            store_accf(c, li, fmaf(c->fb, tanf(3.14159265358979323846f * (u - 0.5f)), c->fa));
        }
        break;
    case TFL_RANDOM_LOG_NORMAL:
        if (dbl)
            *(double *)view_at(&op->out, li, 8) = exp(fma(v->d, op->b, op->a));
        else
            store_accf(c, li, expf(fmaf(v->f, c->fb, c->fa)));
        break;
    case TFL_RANDOM_RRELU:
        rrelu_emit(c, li, v);
        break;
    case TFL_RANDOM_GEOMETRIC:
        if (dbl)
            *(double *)view_at(&op->out, li, 8) = ceil(log(v->d) / log1p(-op->a));
        else
            store_accf(c, li, ceilf(logf(v->f) / log1pf(-c->fa)));
        break;
    case TFL_RANDOM_MASKED_SCALE:
    case TFL_RANDOM_RENORM_ROWS:
    case TFL_RANDOM_MULTINOMIAL:
        break;
    case TFL_RANDOM_BERNOULLI_TENSOR: {
        /* the probability is compared in its own type, float draw promoted */
        int hit = op->in_dtype == TFL_DT_F64
                      ? (double)v->f <= *(const double *)view_at(&op->in, li, 8)
                      : v->f <= *(const float *)view_at(&op->in, li, 4);
        store_int(c, li, hit);
        break;
    }
    case TFL_RANDOM_DROPOUT: {
        float keep = v->f < c->fa ? 1.0f : 0.0f;
        if (op->dtype == TFL_DT_F32) {
            float x = *(const float *)view_at(&op->in, li, 4);
            *(float *)view_at(&op->out, li, 4) = x * keep * c->scale;
        } else {
            /* half/bfloat16: computed in float, rounded once on store */
            uint16_t h;
            memcpy(&h, view_at(&op->in, li, 2), 2);
            float x = op->dtype == TFL_DT_F16 ? tfl_half_to_float(h) : tfl_bf16_to_float(h);
            float y = x * keep * c->scale;
            h = op->dtype == TFL_DT_F16 ? tfl_float_to_half(y) : tfl_float_to_bf16(y);
            memcpy(view_at(&op->out, li, 2), &h, 2);
        }
        *(uint8_t *)view_at(&op->mask, li, 1) = (uint8_t)(keep != 0.0f);
        break;
    }
    }
}

/* Draw k of thread t (curand4 and the kind's transform of it) into
 * v[0..per_draw). */
static inline void draw(const rng_ctx *c, uint64_t t, uint64_t k, rval *v)
{
    const tfl_random_op *op = c->op;
    uint32_t r[4];
    tfl_philox_draw(op->seed, t, op->offset, k, r);
    if (op->kind == TFL_RANDOM_INT_FROM_TO) {
        if (op->bits == 64) {
            v[0].r = (uint64_t)r[0] << 32 | r[1];
            v[1].r = (uint64_t)r[2] << 32 | r[3];
        } else {
            for (int j = 0; j < 4; j++)
                v[j].r = r[j];
        }
    } else if (op->acc == TFL_DT_F64) {
        if (op->kind == TFL_RANDOM_NORMAL || op->kind == TFL_RANDOM_LOG_NORMAL) {
            tfl_curand_box_muller_double(r[0], r[1], r[2], r[3], &v[0].d, &v[1].d);
        } else {
            v[0].d = tfl_curand_uniform_double(r[0], r[1]);
            v[1].d = tfl_curand_uniform_double(r[2], r[3]);
        }
    } else if (op->kind == TFL_RANDOM_NORMAL || op->kind == TFL_RANDOM_LOG_NORMAL) {
        tfl_curand_box_muller(r[0], r[1], &v[0].f, &v[1].f);
        tfl_curand_box_muller(r[2], r[3], &v[2].f, &v[3].f);
    } else {
        for (int j = 0; j < 4; j++)
            v[j].f = tfl_curand_uniform(r[j]);
    }
}

/* Threads are replayed CH at a time, draw by draw, so that the elements
 * written next to each other in memory are written one after another (a
 * thread's own elements lie a whole grid apart). */
#define CH 64

/* The transforms use fused multiply-adds as the GPU does; where the CPU has
 * FMA, the hot loops get a clone built for it (fmaf is then one instruction
 * instead of a library call), picked when the library loads. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT_LOOP __attribute__((target_clones("fma", "default")))
#else
#define HOT_LOOP
#endif

HOT_LOOP static void run_grid_stride(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    const uint64_t U = (uint64_t)c->per_draw;
    rval v[CH][4];
    memset(v, 0, sizeof v);
    /* draw k of thread t covers t + T*(U*k + j), j < U */
    for (uint64_t k = 0; T * U * k < numel; k++) {
        for (uint64_t t0 = 0; t0 < T; t0 += CH) {
            if (t0 + T * U * k >= numel)
                break;
            uint64_t tn = T - t0 < CH ? T - t0 : CH;
            for (uint64_t i = 0; i < tn; i++)
                draw(c, t0 + i, k, v[i]);
            for (uint64_t j = 0; j < U; j++) {
                uint64_t li0 = T * (U * k + j) + t0;
                if (li0 >= numel)
                    break;                  /* and so are the later j */
                uint64_t n = numel - li0 < tn ? numel - li0 : tn;
                if (c->f32_fast) {
                    /* contiguous float output: the common case, no dispatch */
                    float *o = (float *)op->out.data + li0;
                    const float a = c->fa, b = c->fb, cc = c->fc;
                    if (op->kind == TFL_RANDOM_UNIFORM) {
                        for (uint64_t i = 0; i < n; i++) {
                            float x = fmaf(v[i][j].f, a, b);
                            o[i] = x == cc ? b : x;
                        }
                    } else if (op->kind == TFL_RANDOM_NORMAL) {
                        for (uint64_t i = 0; i < n; i++)
                            o[i] = fmaf(v[i][j].f, a, b);
                    } else {
                        for (uint64_t i = 0; i < n; i++)
                            o[i] = v[i][j].f < a ? 1.0f : 0.0f;
                    }
                    continue;
                }
                for (uint64_t i = 0; i < n; i++)
                    emit(c, (int64_t)(li0 + i), &v[i][j]);
            }
        }
    }
}

HOT_LOOP static void run_vec(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    const uint64_t vec = (uint64_t)op->vec;
    const uint64_t draws = (vec + 3) / 4;
    rval v[16];
    memset(v, 0, sizeof v);
    /* step k of thread t: elements (t + T*k)*vec + j, from draws
     * k*draws .. k*draws + draws-1 (fresh draws every step: for vec 2
     * PyTorch's "reuse .z/.w" branch never runs, its toggle stays 0) */
    for (uint64_t k = 0; T * k * vec < numel; k++) {
        for (uint64_t t = 0; t < T; t++) {
            uint64_t base = (t + T * k) * vec;
            if (base >= numel)
                break;
            for (uint64_t d = 0; d < draws; d++)
                draw(c, t, k * draws + d, v + 4 * d);
            uint64_t n = numel - base < vec ? numel - base : vec;
            if (c->dropout_fast) {
                const float *x = (const float *)op->in.data + base;
                float *y = (float *)op->out.data + base;
                uint8_t *m = (uint8_t *)op->mask.data + base;
                for (uint64_t j = 0; j < n; j++) {
                    float keep = v[j].f < c->fa ? 1.0f : 0.0f;
                    y[j] = x[j] * keep * c->scale;
                    m[j] = keep != 0.0f;
                }
                continue;
            }
            for (uint64_t j = 0; j < n; j++)
                emit(c, (int64_t)(base + j), &v[j]);
        }
    }
}

HOT_LOOP static void run_apply4(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    rval v[4];
    memset(v, 0, sizeof v);
    /* the functor initialises the generator on every call: each step k of
     * thread t (elements (t + T*k)*4 + j) uses thread t's first draw */
    for (uint64_t k = 0; 4 * T * k < numel; k++) {
        for (uint64_t t = 0; t < T; t++) {
            uint64_t base = 4 * (t + T * k);
            if (base >= numel)
                break;
            draw(c, t, 0, v);
            for (uint64_t j = 0; j < 4 && base + j < numel; j++)
                emit(c, (int64_t)(base + j), &v[j]);
        }
    }
}

tfl_status host_random(const tfl_random_op *op)
{
    if (!host_random_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind == TFL_RANDOM_RENORM_ROWS) {
        renorm_rows(op);
        return TFL_OK;
    }
    if (op->kind == TFL_RANDOM_MULTINOMIAL) {
        multinomial(op);
        return TFL_OK;
    }
    if (op->numel == 0)
        return TFL_OK;
    if (op->kind == TFL_RANDOM_MASKED_SCALE) {
        /* (float)mask * x * scale in the accumulate type, one rounding */
        const uint8_t *m = op->mask.data;
        const int64_t n = op->numel;
        if (op->dtype == TFL_DT_F32) {
            const float *x = op->in.data;
            float *y = op->out.data;
            const float scale = (float)op->a;
            for (int64_t i = 0; i < n; i++)
                y[i] = (float)(m[i] != 0) * x[i] * scale;
        } else {
            const uint16_t *x = op->in.data;
            uint16_t *y = op->out.data;
            const float scale = (float)op->a;
            const int half = op->dtype == TFL_DT_F16;
            for (int64_t i = 0; i < n; i++) {
                float v = half ? tfl_half_to_float(x[i]) : tfl_bf16_to_float(x[i]);
                float r = (float)(m[i] != 0) * v * scale;
                y[i] = half ? tfl_float_to_half(r) : tfl_float_to_bf16(r);
            }
        }
        return TFL_OK;
    }
    rng_ctx c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.esz = tfl_dtype_size(op->dtype);
    c.fa = (float)op->a;
    c.fb = (float)op->b;
    c.fc = (float)op->c;
    c.per_draw = 4;
    if (op->kind == TFL_RANDOM_INT_FROM_TO ? op->bits == 64 : op->acc == TFL_DT_F64)
        c.per_draw = 2;
    c.f32_fast = op->out.ndim == 0 && op->dtype == TFL_DT_F32 && op->acc == TFL_DT_F32 &&
                 (op->kind == TFL_RANDOM_UNIFORM || op->kind == TFL_RANDOM_NORMAL ||
                  op->kind == TFL_RANDOM_BERNOULLI);
    c.dropout_fast = op->kind == TFL_RANDOM_DROPOUT && op->dtype == TFL_DT_F32 &&
                     op->in.ndim == 0 &&
                     op->out.ndim == 0 && op->mask.ndim == 0;
    /* the kernel computes 1.0 / p in double and stores it as float */
    if (op->kind == TFL_RANDOM_DROPOUT)
        c.scale = (float)(1.0 / (double)c.fa);
    if (op->traverse == TFL_RANDOM_TRAVERSE_VEC)
        run_vec(&c);
    else if (op->traverse == TFL_RANDOM_TRAVERSE_APPLY4)
        run_apply4(&c);
    else
        run_grid_stride(&c);
    return TFL_OK;
}

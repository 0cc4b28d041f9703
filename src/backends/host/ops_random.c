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
#include "backends/host/ops_random_philox.h"

static size_t dtype_size(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F32: case TFL_DT_I32: return 4;
    case TFL_DT_I64: case TFL_DT_F64: return 8;
    case TFL_DT_U8: case TFL_DT_I8: case TFL_DT_BOOL: return 1;
    default: return 0;
    }
}

/* Address of element i of a view (dim 0 fastest). */
static inline char *view_at(const tfl_random_view *v, int64_t i, size_t esz)
{
    if (v->ndim == 0)
        return (char *)v->data + i * (int64_t)esz;
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

int host_random_supported(const tfl_random_op *op)
{
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
    case TFL_RANDOM_UNIFORM:
    case TFL_RANDOM_NORMAL:
    case TFL_RANDOM_BERNOULLI:
        return (op->acc == TFL_DT_F32 || op->acc == TFL_DT_F64) &&
               op->dtype == op->acc;
    case TFL_RANDOM_INT_FROM_TO:
        return (op->bits == 32 || op->bits == 64) && int_out_ok(op->dtype);
    case TFL_RANDOM_DROPOUT:
        return op->dtype == TFL_DT_F32 &&
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
    default: break;
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
        } else {
            float x = fmaf(v->f, c->fa, c->fb);
            *(float *)view_at(&op->out, li, 4) = x == c->fc ? c->fb : x;
        }
        break;
    case TFL_RANDOM_NORMAL:
        if (dbl)
            *(double *)view_at(&op->out, li, 8) = fma(v->d, op->a, op->b);
        else
            *(float *)view_at(&op->out, li, 4) = fmaf(v->f, c->fa, c->fb);
        break;
    case TFL_RANDOM_BERNOULLI:
        if (dbl)
            *(double *)view_at(&op->out, li, 8) = v->d < op->a ? 1.0 : 0.0;
        else
            *(float *)view_at(&op->out, li, 4) = v->f < c->fa ? 1.0f : 0.0f;
        break;
    case TFL_RANDOM_INT_FROM_TO: {
        uint64_t r = op->range ? v->r % op->range : v->r;
        store_int(c, li, (int64_t)(r + (uint64_t)op->base));
        break;
    }
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
        float x = *(const float *)view_at(&op->in, li, 4);
        *(float *)view_at(&op->out, li, 4) = x * keep * c->scale;
        *(uint8_t *)view_at(&op->mask, li, 1) = (uint8_t)(keep != 0.0f);
        break;
    }
    }
}

/* One draw (curand4 and the kind's transform of it) into v[0..per_draw). */
static inline void draw(const rng_ctx *c, tfl_philox_state *st, rval *v)
{
    const tfl_random_op *op = c->op;
    uint32_t r[4];
    tfl_philox_next4(st, r);
    if (op->kind == TFL_RANDOM_INT_FROM_TO) {
        if (op->bits == 64) {
            v[0].r = (uint64_t)r[0] << 32 | r[1];
            v[1].r = (uint64_t)r[2] << 32 | r[3];
        } else {
            for (int j = 0; j < 4; j++)
                v[j].r = r[j];
        }
    } else if (op->acc == TFL_DT_F64) {
        if (op->kind == TFL_RANDOM_NORMAL) {
            tfl_curand_box_muller_double(r[0], r[1], r[2], r[3], &v[0].d, &v[1].d);
        } else {
            v[0].d = tfl_curand_uniform_double(r[0], r[1]);
            v[1].d = tfl_curand_uniform_double(r[2], r[3]);
        }
    } else if (op->kind == TFL_RANDOM_NORMAL) {
        tfl_curand_box_muller(r[0], r[1], &v[0].f, &v[1].f);
        tfl_curand_box_muller(r[2], r[3], &v[2].f, &v[3].f);
    } else {
        for (int j = 0; j < 4; j++)
            v[j].f = tfl_curand_uniform(r[j]);
    }
}

static void run_grid_stride(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    const int U = c->per_draw;
    rval v[4];
    memset(v, 0, sizeof v);
    for (uint64_t t = 0; t < T && t < numel; t++) {
        tfl_philox_state st;
        tfl_philox_init(&st, op->seed, t, op->offset);
        /* draw k of thread t covers t + T*(U*k + j), j < U */
        for (uint64_t base = t; base < numel; base += (uint64_t)U * T) {
            draw(c, &st, v);
            for (int j = 0; j < U; j++) {
                uint64_t li = base + (uint64_t)j * T;
                if (li < numel)
                    emit(c, (int64_t)li, &v[j]);
            }
        }
    }
}

static void run_vec(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    const int vec = op->vec;
    const int draws = (vec + 3) / 4;
    rval v[16];
    memset(v, 0, sizeof v);
    for (uint64_t t = 0; t < T && t * (uint64_t)vec < numel; t++) {
        tfl_philox_state st;
        tfl_philox_init(&st, op->seed, t, op->offset);
        for (uint64_t base = t * (uint64_t)vec; base < numel; base += T * (uint64_t)vec) {
            /* fresh draws every step; for vec 2 PyTorch's "reuse .z/.w"
             * branch never runs (its toggle starts and stays at 0) */
            for (int d = 0; d < draws; d++)
                draw(c, &st, v + 4 * d);
            for (int j = 0; j < vec; j++) {
                uint64_t li = base + (uint64_t)j;
                if (li < numel)
                    emit(c, (int64_t)li, &v[j]);
            }
        }
    }
}

static void run_apply4(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    rval v[4];
    memset(v, 0, sizeof v);
    for (uint64_t t = 0; t < T && 4 * t < numel; t++) {
        /* the functor initialises the generator on every call: each step
         * of thread t uses the same first draw */
        tfl_philox_state st;
        tfl_philox_init(&st, op->seed, t, op->offset);
        draw(c, &st, v);
        for (uint64_t base = 4 * t; base < numel; base += 4 * T)
            for (int j = 0; j < 4 && base + (uint64_t)j < numel; j++)
                emit(c, (int64_t)(base + (uint64_t)j), &v[j]);
    }
}

tfl_status host_random(const tfl_random_op *op)
{
    if (!host_random_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->numel == 0)
        return TFL_OK;
    rng_ctx c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.esz = dtype_size(op->dtype);
    c.fa = (float)op->a;
    c.fb = (float)op->b;
    c.fc = (float)op->c;
    c.per_draw = 4;
    if (op->kind == TFL_RANDOM_INT_FROM_TO ? op->bits == 64 : op->acc == TFL_DT_F64)
        c.per_draw = 2;
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

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

int host_random_supported(const tfl_random_op *op)
{
    if (!op || op->numel < 0 || op->threads == 0)
        return 0;
    if (op->traverse == TFL_RANDOM_TRAVERSE_VEC) {
        if (op->vec != 2 && op->vec != 4 && op->vec != 8 && op->vec != 16)
            return 0;
        if (op->kind != TFL_RANDOM_DROPOUT)
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
        return op->dtype == TFL_DT_F32;
    case TFL_RANDOM_INT_FROM_TO:
        return op->dtype == TFL_DT_I64 && op->range != 0;
    case TFL_RANDOM_DROPOUT:
        return op->dtype == TFL_DT_F32 &&
               (op->mask_dtype == TFL_DT_BOOL || op->mask_dtype == TFL_DT_U8);
    }
    return 0;
}

/* Per-op constants of the element transform. */
typedef struct rng_ctx {
    const tfl_random_op *op;
    float scale;              /* dropout: 1/p as the kernel rounds it */
    size_t esz;
} rng_ctx;

/* Element li receives raw draw r (and, for normal, the transformed value). */
static inline void emit(const rng_ctx *c, int64_t li, uint32_t r, float normal)
{
    const tfl_random_op *op = c->op;
    switch (op->kind) {
    case TFL_RANDOM_UNIFORM: {
        float v = fmaf(tfl_curand_uniform(r), op->a, op->b);
        /* PyTorch maps the (0, 1] bound onto [from, to) */
        if (v == op->c)
            v = op->b;
        *(float *)view_at(&op->out, li, 4) = v;
        break;
    }
    case TFL_RANDOM_NORMAL:
        *(float *)view_at(&op->out, li, 4) = fmaf(normal, op->a, op->b);
        break;
    case TFL_RANDOM_BERNOULLI:
        *(float *)view_at(&op->out, li, 4) = tfl_curand_uniform(r) < op->a ? 1.0f : 0.0f;
        break;
    case TFL_RANDOM_INT_FROM_TO:
        *(int64_t *)view_at(&op->out, li, 8) =
            (int64_t)((uint64_t)r % op->range + (uint64_t)op->base);
        break;
    case TFL_RANDOM_DROPOUT: {
        float keep = tfl_curand_uniform(r) < op->a ? 1.0f : 0.0f;
        float x = *(const float *)view_at(&op->in, li, 4);
        *(float *)view_at(&op->out, li, 4) = x * keep * c->scale;
        *(uint8_t *)view_at(&op->mask, li, 1) = (uint8_t)(keep != 0.0f);
        break;
    }
    }
}

/* One curand4 draw, with the normal transform when the kind needs it. */
static inline void draw4(const rng_ctx *c, tfl_philox_state *st, uint32_t r[4], float n[4])
{
    tfl_philox_next4(st, r);
    if (c->op->kind == TFL_RANDOM_NORMAL) {
        tfl_curand_box_muller(r[0], r[1], &n[0], &n[1]);
        tfl_curand_box_muller(r[2], r[3], &n[2], &n[3]);
    }
}

static void run_grid_stride(const rng_ctx *c)
{
    const tfl_random_op *op = c->op;
    const uint64_t T = op->threads;
    const uint64_t numel = (uint64_t)op->numel;
    uint32_t r[4];
    float n[4] = { 0, 0, 0, 0 };
    for (uint64_t t = 0; t < T && t < numel; t++) {
        tfl_philox_state st;
        tfl_philox_init(&st, op->seed, t, op->offset);
        /* draw k of thread t covers t + T*(4k + j), j = 0..3 */
        for (uint64_t base = t; base < numel; base += 4 * T) {
            draw4(c, &st, r, n);
            for (int j = 0; j < 4; j++) {
                uint64_t li = base + (uint64_t)j * T;
                if (li < numel)
                    emit(c, (int64_t)li, r[j], n[j]);
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
    uint32_t r[16];
    float n[16] = { 0 };
    for (uint64_t t = 0; t < T && t * (uint64_t)vec < numel; t++) {
        tfl_philox_state st;
        tfl_philox_init(&st, op->seed, t, op->offset);
        for (uint64_t base = t * (uint64_t)vec; base < numel; base += T * (uint64_t)vec) {
            /* fresh draws every step; for vec 2 PyTorch's "reuse .z/.w"
             * branch never runs (its toggle starts and stays at 0) */
            for (int d = 0; d < draws; d++)
                draw4(c, &st, r + 4 * d, n + 4 * d);
            for (int j = 0; j < vec; j++) {
                uint64_t li = base + (uint64_t)j;
                if (li < numel)
                    emit(c, (int64_t)li, r[j], n[j]);
            }
        }
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
    /* the kernel computes 1.0 / p in double and stores it as float */
    if (op->kind == TFL_RANDOM_DROPOUT)
        c.scale = (float)(1.0 / (double)op->a);
    if (op->traverse == TFL_RANDOM_TRAVERSE_VEC)
        run_vec(&c);
    else
        run_grid_stride(&c);
    return TFL_OK;
}

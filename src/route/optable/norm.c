/*
 * norm.c - the "norm" kernel family of the semantic op table: PyTorch's
 * layer norm (and RMS norm) kernels from layer_norm_kernel.cu, for
 * T = float, c10::Half and c10::BFloat16 (T_ACC = float in all three:
 * mean/rstd are float; x, y, gamma, beta, dy, dx, dgamma, dbeta and the
 * GammaBeta partial rows are T).
 *
 * Kernels (the last bool template argument is rms_norm):
 *   vectorized_layer_norm_kernel(int N, float eps, X, gamma, beta, mean, rstd, Y)
 *   RowwiseMomentsCUDAKernel(int64 N, float eps, X, mean, rstd)
 *   LayerNormForwardCUDAKernel(int64 N, X, mean, rstd, gamma, beta, Y)
 *   layer_norm_grad_input_kernel[_vectorized](dY, X, mean, rstd, gamma, dX, int N)
 *   GammaBetaBackwardCUDAKernelTemplate<bdx, bdy, rows_per_block, partial,
 *       aligned, rms>(int64 M, int64 N, dY, X, mean, rstd, dgamma, dbeta)
 * The row count M of the per-row kernels is gridDim.x (one block per row).
 * Parameter layouts are those of the 2.11 sm_80 cubins (docs/kernel-families.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

enum {
    K_VEC_FWD = 1, K_MOMENTS, K_FWD_APPLY, K_BWD_INPUT, K_GAMMA_BETA,
};

/* What match() parsed from the name; lives for the process. */
typedef struct norm_kernel {
    int kind, rms;
    tfl_dtype dtype;                    /* T */
    unsigned bdx, bdy, rows_per_block;  /* GammaBeta template */
    int partial;
} norm_kernel;

/* The template start "I<T>f" (T_ACC = float) at p: T's dtype, p advanced
 * past it; NULL for another T. */
static const char *take_types(const char *p, tfl_dtype *dt)
{
    static const struct { const char *tok; tfl_dtype dt; } ts[] = {
        { "Iff", TFL_DT_F32 },
        { "IN3c104HalfEf", TFL_DT_F16 },
        { "IN3c108BFloat16Ef", TFL_DT_BF16 },
    };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        if (!strncmp(p, ts[i].tok, strlen(ts[i].tok))) {
            *dt = ts[i].dt;
            return p + strlen(ts[i].tok);
        }
    return NULL;
}

/* "<len>name" followed by the <T, float, bool template start. */
static const char *after(const char *m, const char *ident, tfl_dtype *dt)
{
    const char *p = strstr(m, ident);
    if (!p)
        return NULL;
    p = take_types(p + strlen(ident), dt);
    return p && strncmp(p, "Lb", 2) == 0 ? p + 2 : NULL;
}

static int match(const char *m, void **cookie)
{
    static const struct { const char *id; int kind; } ids[] = {
        { "28vectorized_layer_norm_kernel", K_VEC_FWD },
        { "24RowwiseMomentsCUDAKernel", K_MOMENTS },
        { "26LayerNormForwardCUDAKernel", K_FWD_APPLY },
        { "28layer_norm_grad_input_kernel", K_BWD_INPUT },
        { "39layer_norm_grad_input_kernel_vectorized", K_BWD_INPUT },
        { "35GammaBetaBackwardCUDAKernelTemplate", K_GAMMA_BETA },
    };
    if (!strstr(m, "layer_norm_kernel"))
        return 0;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        norm_kernel k = { .kind = ids[i].kind };
        if (k.kind != K_GAMMA_BETA) {
            const char *p = after(m, ids[i].id, &k.dtype);
            if (!p || (p[0] != '0' && p[0] != '1') || p[1] != 'E')
                continue;
            k.rms = p[0] == '1';
        } else {
            const char *p = strstr(m, ids[i].id);
            if (!p)
                continue;
            p = take_types(p + strlen(ids[i].id), &k.dtype);
            if (!p)
                continue;
            int aligned, n = 0;
            if (sscanf(p, "Lj%uELj%uELj%uELb%dELb%dELb%dE%n", &k.bdx, &k.bdy,
                       &k.rows_per_block, &k.partial, &aligned, &k.rms, &n) != 6 || n == 0)
                continue;
            if (k.bdy == 0 || k.rows_per_block % k.bdy)
                continue;
        }
        norm_kernel *c = malloc(sizeof *c);
        if (!c)
            return 0;
        *c = k;
        *cookie = c;
        return 1;
    }
    return 0;
}

static const char *op_name(void *cookie)
{
    const norm_kernel *k = cookie;
    switch (k->kind) {
    case K_VEC_FWD:    return k->rms ? "rms_norm" : "layer_norm";
    case K_MOMENTS:    return k->rms ? "rms_norm_stats" : "layer_norm_stats";
    case K_FWD_APPLY:  return k->rms ? "rms_norm_apply" : "layer_norm_apply";
    case K_BWD_INPUT:  return k->rms ? "rms_norm_backward" : "layer_norm_backward";
    default:           return k->rms ? "rms_norm_backward_params" : "layer_norm_backward_params";
    }
}

#define ARG(c, i, T) TFL_KARG(c, T, i)

/* NULL is allowed where optional; otherwise the range must be live memory. */
static int range_ok(const void *p, int64_t bytes, int optional)
{
    if (!p)
        return optional;
    return bytes <= 0 || tfl_mem_check_range(p, (size_t)bytes, NULL);
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const norm_kernel *k = cookie;
    tfl_op op = { .kind = TFL_OP_NORM, .name = op_name(cookie) };
    tfl_norm_op *n = &op.u.norm;
    n->dtype = k->dtype;
    n->rms = k->rms;
    n->tile_rows = n->tile_count = n->tile_parts = 1;
    int64_t M = c->grid[0];
    if (c->grid[1] != 1 || c->grid[2] != 1) {
        if (k->kind != K_GAMMA_BETA)
            return TFL_ERR_UNSUPPORTED;
    }
    switch (k->kind) {
    case K_VEC_FWD:
        n->kind = TFL_NORM_FWD;
        n->cols = ARG(c, 0, int32_t);
        n->eps = ARG(c, 1, float);
        n->x = ARG(c, 2, const void *);
        n->gamma = ARG(c, 3, const void *);
        n->beta = ARG(c, 4, const void *);
        n->mean = ARG(c, 5, float *);
        n->rstd = ARG(c, 6, float *);
        n->y = ARG(c, 7, void *);
        break;
    case K_MOMENTS:
        n->kind = TFL_NORM_FWD_STATS;
        n->cols = ARG(c, 0, int64_t);
        n->eps = ARG(c, 1, float);
        n->x = ARG(c, 2, const void *);
        n->mean = ARG(c, 3, float *);
        n->rstd = ARG(c, 4, float *);
        break;
    case K_FWD_APPLY:
        n->kind = TFL_NORM_FWD_APPLY;
        n->cols = ARG(c, 0, int64_t);
        n->x = ARG(c, 1, const void *);
        n->mean = ARG(c, 2, float *);
        n->rstd = ARG(c, 3, float *);
        n->gamma = ARG(c, 4, const void *);
        n->beta = ARG(c, 5, const void *);
        n->y = ARG(c, 6, void *);
        break;
    case K_BWD_INPUT:
        n->kind = TFL_NORM_BWD_INPUT;
        n->dy = ARG(c, 0, const void *);
        n->x = ARG(c, 1, const void *);
        n->mean = ARG(c, 2, float *);
        n->rstd = ARG(c, 3, float *);
        n->gamma = ARG(c, 4, const void *);
        n->dx = ARG(c, 5, void *);
        n->cols = ARG(c, 6, int32_t);
        break;
    case K_GAMMA_BETA:
        n->kind = TFL_NORM_BWD_PARAMS;
        M = ARG(c, 0, int64_t);
        n->cols = ARG(c, 1, int64_t);
        n->dy = ARG(c, 2, const void *);
        n->x = ARG(c, 3, const void *);
        n->mean = ARG(c, 4, float *);
        n->rstd = ARG(c, 5, float *);
        n->dgamma = ARG(c, 6, void *);
        n->dbeta = ARG(c, 7, void *);
        if (c->grid[2] != 1 || c->block[1] != k->bdy)
            return TFL_ERR_UNSUPPORTED;
        if (k->partial || (c->block[1] == 1 && c->grid[1] == 1)) {
            /* each (blockIdx.y, threadIdx.y) writes its own partial row */
            n->tile_rows = k->rows_per_block;
            n->tile_count = c->grid[1];
            n->tile_parts = k->bdy;
        } else if (c->grid[1] != 1) {
            return TFL_ERR_UNSUPPORTED;   /* full reduction over several y blocks */
        }
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    n->rows = M;
    const int64_t N = n->cols;
    if (M < 0 || N < 0) {
        snprintf(err, errlen, "%s: bad shape %lld x %lld", op.name, (long long)M, (long long)N);
        return TFL_ERR_INVALID;
    }
    if (M == 0 || N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)tfl_dtype_size(n->dtype);
    const int64_t mat = M * N * es, vec = N * es, stat = M * 4;
    const int64_t parts = n->tile_count * n->tile_parts * N * es;
    int need_mean = !k->rms;
    int ok = 1;
    switch (n->kind) {
    case TFL_NORM_FWD:
    case TFL_NORM_FWD_STATS:
    case TFL_NORM_FWD_APPLY:
        ok = range_ok(n->x, mat, 0) && range_ok(n->rstd, stat, 0) &&
             range_ok(n->mean, stat, !need_mean) &&
             (n->kind == TFL_NORM_FWD_STATS ||
              (range_ok(n->y, mat, 0) && range_ok(n->gamma, vec, 1) && range_ok(n->beta, vec, 1)));
        break;
    case TFL_NORM_BWD_INPUT:
        ok = range_ok(n->dy, mat, 0) && range_ok(n->x, mat, 0) && range_ok(n->dx, mat, 0) &&
             range_ok(n->rstd, stat, 0) && range_ok(n->mean, stat, !need_mean) &&
             range_ok(n->gamma, vec, 1);
        break;
    case TFL_NORM_BWD_PARAMS:
        ok = range_ok(n->dy, mat, 0) && range_ok(n->x, mat, 0) &&
             range_ok(n->rstd, stat, 0) && range_ok(n->mean, stat, !need_mean) &&
             range_ok(n->dgamma, parts, 1) && range_ok(n->dbeta, parts, 1);
        break;
    }
    if (!ok) {
        snprintf(err, errlen, "%s: an operand (%lld x %lld) is not in device memory",
                 op.name, (long long)M, (long long)N);
        return TFL_ERR_DEVICE;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_norm = {
    .name = "norm",
    .match = match,
    .run = run,
    .op_name = op_name,
};

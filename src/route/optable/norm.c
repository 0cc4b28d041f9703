/*
 * norm.c - the "norm" kernel family of the semantic op table: PyTorch's
 * layer norm (and RMS norm) kernels from layer_norm_kernel.cu, for
 * T = float, c10::Half and c10::BFloat16 (T_ACC = float in all three:
 * mean/rstd are float; x, y, gamma, beta, dy, dx, dgamma, dbeta and the
 * GammaBeta partial rows are T).
 *
 * Kernels (<T, T_ACC, ..., rms_norm>; the last bool is rms_norm):
 *   vectorized_layer_norm_kernel(int N, float eps, X, gamma, beta, mean, rstd, Y)
 *   RowwiseMomentsCUDAKernel([int64 M,] int64 N, float eps, X, mean, rstd)
 *   LayerNormForwardCUDAKernel([int64 M,] int64 N, X, mean, rstd, gamma, beta, Y)
 *   layer_norm_grad_input_kernel[_vectorized](dY, X, mean, rstd, gamma, dX, int N)
 *   GammaBetaBackwardCUDAKernelTemplate<T, T_ACC, bdx, bdy, rows_per_block,
 *       partial, aligned, rms>(int64 M, int64 N, dY, X, mean, rstd, dgamma, dbeta)
 * The row count M of the per-row kernels is gridDim.x (one block per row).
 * 2.14 added the leading int64 M to RowwiseMomentsCUDAKernel and
 * LayerNormForwardCUDAKernel; the kernels do not read it (their 2.14/2.15
 * SASS never loads it: the row is still blockIdx.x), so the decoder only
 * checks it equals gridDim.x.  Which form a kernel has is read from its
 * parameter count.  group_norm's RowwiseMomentsCUDAKernel<T[, T_ACC]>
 * (no rms_norm bool) is not this family's.  Parameter layouts, stated by
 * layout(), are those of the sm_80 cubins of torch 2.11 to 2.15.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

enum {
    K_VEC_FWD = 1, K_MOMENTS, K_FWD_APPLY, K_BWD_INPUT, K_GAMMA_BETA,
};

/* What match() parsed from the name; lives for the process. */
typedef struct norm_kernel {
    int kind, rms;
    tfl_dtype dtype;                    /* T */
    unsigned bdx, bdy, rows_per_block;  /* GammaBeta template */
    int partial;
    int has_m;                          /* the leading int64 M (2.14+) */
    const char *sig;                    /* parameters, for layout()    */
} norm_kernel;

/* Per kernel: its parameter count(s) and signatures (optable.h tokens).
 * sig2 is the 2.14+ form with the leading M, when there is one. */
static const struct {
    const char *base;
    int kind, n1, n2;
    const char *sig1, *sig2;
} KERNELS[] = {
    { "vectorized_layer_norm_kernel", K_VEC_FWD, 8, 0, "i f p p p p p p", NULL },
    { "RowwiseMomentsCUDAKernel", K_MOMENTS, 5, 6, "l f p p p", "l l f p p p" },
    { "LayerNormForwardCUDAKernel", K_FWD_APPLY, 7, 8, "l p p p p p p", "l l p p p p p p" },
    { "layer_norm_grad_input_kernel", K_BWD_INPUT, 7, 0, "p p p p p p i", NULL },
    { "layer_norm_grad_input_kernel_vectorized", K_BWD_INPUT, 7, 0, "p p p p p p i", NULL },
    { "GammaBetaBackwardCUDAKernelTemplate", K_GAMMA_BETA, 8, 0, "l l p p p p p p", NULL },
};

static int is_bool(const tfl_kname *k, int i, int *v)
{
    long long x;
    if (!tfl_kname_targ_is(k, i, "true") && !tfl_kname_targ_is(k, i, "false"))
        return 0;
    tfl_kname_targ_int(k, i, &x);
    *v = (int)x;
    return 1;
}

static int uconst(const tfl_kname *k, int i, unsigned *v)
{
    long long x;
    if (!tfl_kname_targ_int(k, i, &x) || x < 0 || x > 65536 || tfl_kname_targ_is(k, i, "true") ||
        tfl_kname_targ_is(k, i, "false"))
        return 0;
    *v = (unsigned)x;
    return 1;
}

/* <T, T_ACC = float, ...>: T float, c10::Half or c10::BFloat16 (the
 * double instantiations are not mapped). */
static int types(const tfl_kname *k, norm_kernel *nk)
{
    tfl_dtype acc;
    return tfl_kname_targ_dtype(k, 0, &nk->dtype) && tfl_kname_targ_dtype(k, 1, &acc) &&
           acc == TFL_DT_F32 &&
           (nk->dtype == TFL_DT_F32 || nk->dtype == TFL_DT_F16 || nk->dtype == TFL_DT_BF16);
}

static int parse(const tfl_kname *k, norm_kernel *nk)
{
    size_t i = 0;
    while (i < sizeof KERNELS / sizeof KERNELS[0] && !tfl_kname_is(k, KERNELS[i].base))
        i++;
    if (i == sizeof KERNELS / sizeof KERNELS[0] || !types(k, nk))
        return 0;
    nk->kind = KERNELS[i].kind;
    if (k->nparams == KERNELS[i].n1) {
        nk->sig = KERNELS[i].sig1;
    } else if (KERNELS[i].n2 && k->nparams == KERNELS[i].n2) {
        nk->sig = KERNELS[i].sig2;
        nk->has_m = 1;
    } else {
        return 0;
    }
    if (nk->kind != K_GAMMA_BETA)
        return k->ntargs == 3 && is_bool(k, 2, &nk->rms);
    /* <T, T_ACC, bdx, bdy, rows_per_block, partial, aligned, rms>: aligned
     * (M a multiple of rows_per_block) only drops bounds checks */
    int aligned;
    return k->ntargs == 8 && uconst(k, 2, &nk->bdx) && uconst(k, 3, &nk->bdy) &&
           uconst(k, 4, &nk->rows_per_block) && is_bool(k, 5, &nk->partial) &&
           is_bool(k, 6, &aligned) && is_bool(k, 7, &nk->rms) && nk->bdy != 0 &&
           nk->rows_per_block % nk->bdy == 0;
}

static int match(const char *m, void **cookie)
{
    if (!m || (!strstr(m, "layer_norm") && !strstr(m, "LayerNorm") &&
               !strstr(m, "RowwiseMoments") && !strstr(m, "GammaBeta")))
        return 0;                           /* cheap filter before demangling */
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    norm_kernel nk;
    memset(&nk, 0, sizeof nk);
    int ok = parse(&k, &nk);
    tfl_kname_free(&k);
    return ok && tfl_kcookie_keep(&nk, sizeof nk, cookie);
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
    /* 2.14+: a leading M the kernel does not read; rows are blocks */
    const int m0 = k->has_m;
    if (k->has_m && ARG(c, 0, int64_t) != M)
        return TFL_ERR_UNSUPPORTED;
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
        n->cols = ARG(c, m0 + 0, int64_t);
        n->eps = ARG(c, m0 + 1, float);
        n->x = ARG(c, m0 + 2, const void *);
        n->mean = ARG(c, m0 + 3, float *);
        n->rstd = ARG(c, m0 + 4, float *);
        break;
    case K_FWD_APPLY:
        n->kind = TFL_NORM_FWD_APPLY;
        n->cols = ARG(c, m0 + 0, int64_t);
        n->x = ARG(c, m0 + 1, const void *);
        n->mean = ARG(c, m0 + 2, float *);
        n->rstd = ARG(c, m0 + 3, float *);
        n->gamma = ARG(c, m0 + 4, const void *);
        n->beta = ARG(c, m0 + 5, const void *);
        n->y = ARG(c, m0 + 6, void *);
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
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

static int layout(void *cookie, tfl_klayout *l)
{
    const norm_kernel *k = cookie;
    l->n = 0;
    return k && tfl_klayout_sig(l, k->sig) == 0;
}

const tfl_kfamily tfl_kfamily_norm = {
    .name = "norm",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

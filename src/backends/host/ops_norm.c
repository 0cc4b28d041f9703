/*
 * ops_norm.c - the host backend's native "norm" op: layer norm / RMS norm
 * over the last dimension, forward and backward; float32, float16 and
 * bfloat16 storage (float math, as PyTorch's kernels with T_ACC = float:
 * low-precision rows are widened to float, results rounded once to
 * nearest even on store; mean/rstd stay float).
 *
 * Statistics and reductions are accumulated in double: cheaper than
 * matching any one GPU reduction order and closer to the exact result
 * than either.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "backends/host/host_ops.h"
#include "common/log.h"
#include "backends/host/ops_lowp.h"
#include "backends/host/host_par.h"
#include "backends/host/host_simd.h"

int host_norm_supported(const tfl_norm_op *op)
{
    return op && lowp_dtype_ok(op->dtype) && op->kind >= TFL_NORM_FWD &&
           op->kind <= TFL_NORM_BWD_PARAMS;
}

/* Row sums in double over LANES independent accumulators: a single
 * accumulator would serialise every add on its latency; separate lanes
 * keep the order fixed (no reassociation needed) and let the compiler
 * vectorise. */
#define LANES 8

static inline double sum_row(const float *restrict x, int64_t n)
{
    double a[LANES] = { 0 };
    int64_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int l = 0; l < LANES; l++)
            a[l] += x[j + l];
    double s = 0.0;
    for (int l = 0; l < LANES; l++)
        s += a[l];
    for (; j < n; j++)
        s += x[j];
    return s;
}

static inline double sumsq_dev_row(const float *restrict x, int64_t n, double m)
{
    double a[LANES] = { 0 };
    int64_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int l = 0; l < LANES; l++) {
            double d = x[j + l] - m;
            a[l] += d * d;
        }
    double s = 0.0;
    for (int l = 0; l < LANES; l++)
        s += a[l];
    for (; j < n; j++)
        s += (x[j] - m) * (x[j] - m);
    return s;
}

/* s1 = sum(g*dy), s2 = sum(g*dy*(x - mean)*rstd) of one row (g NULL = 1) */
static inline void bwd_sums(const float *restrict dy, const float *restrict x, const float *restrict g,
                     int64_t n, double mean, double rstd, double *s1, double *s2)
{
    double a1[LANES] = { 0 }, a2[LANES] = { 0 };
    int64_t j = 0;
    if (g) {
        for (; j + LANES <= n; j += LANES)
            for (int l = 0; l < LANES; l++) {
                double gd = (double)dy[j + l] * g[j + l];
                a1[l] += gd;
                a2[l] += gd * ((x[j + l] - mean) * rstd);
            }
    } else {
        for (; j + LANES <= n; j += LANES)
            for (int l = 0; l < LANES; l++) {
                double gd = dy[j + l];
                a1[l] += gd;
                a2[l] += gd * ((x[j + l] - mean) * rstd);
            }
    }
    double t1 = 0.0, t2 = 0.0;
    for (int l = 0; l < LANES; l++) {
        t1 += a1[l];
        t2 += a2[l];
    }
    for (; j < n; j++) {
        double gd = (double)dy[j] * (g ? g[j] : 1.0f);
        t1 += gd;
        t2 += gd * ((x[j] - mean) * rstd);
    }
    *s1 = t1;
    *s2 = t2;
}

/* mean and 1/sqrt(var + eps) of one row (RMS: mean 0, var = mean(x^2)). */
static inline void row_stats(const float *restrict x, int64_t n, int rms, double eps,
                      float *mean, float *rstd)
{
    double m = (!rms && n) ? sum_row(x, n) / (double)n : 0.0;
    double v = n ? sumsq_dev_row(x, n, m) / (double)n : 0.0;
    *mean = (float)m;
    *rstd = (float)(1.0 / sqrt(v + eps));
}

static inline void row_apply(const float *restrict x, int64_t n, float mean, float rstd,
                      const float *restrict g, const float *restrict b, float *restrict y)
{
    if (g && b) {
        for (int64_t j = 0; j < n; j++)
            y[j] = (x[j] - mean) * rstd * g[j] + b[j];
    } else if (g) {
        for (int64_t j = 0; j < n; j++)
            y[j] = (x[j] - mean) * rstd * g[j];
    } else if (b) {
        for (int64_t j = 0; j < n; j++)
            y[j] = (x[j] - mean) * rstd + b[j];
    } else {
        for (int64_t j = 0; j < n; j++)
            y[j] = (x[j] - mean) * rstd;
    }
}

/* Row i of a (rows x N) operand as float: the storage itself for float32,
 * else widened into scratch slot `slot`. */
static const float *row_in(const tfl_norm_op *op, const void *base, int64_t i, int slot)
{
    const int64_t N = op->cols;
    if (op->dtype == TFL_DT_F32)
        return (const float *)base + i * N;
    float *s = lowp_scratch(slot, N);
    if (s)
        lowp_widen(op->dtype, (const char *)base + (size_t)(i * N) * 2, s, N);
    return s;
}

/* A float row to write for row i: the storage for float32, else scratch
 * that row_out_done narrows into place. */
static float *row_out(const tfl_norm_op *op, void *base, int64_t i, int slot)
{
    if (op->dtype == TFL_DT_F32)
        return (float *)base + i * op->cols;
    return lowp_scratch(slot, op->cols);
}

static void row_out_done(const tfl_norm_op *op, void *base, int64_t i, const float *row)
{
    if (op->dtype != TFL_DT_F32)
        lowp_narrow(op->dtype, row, (char *)base + (size_t)(i * op->cols) * 2, op->cols);
}

/* gamma/beta (cols elements, optional) as float. */
static const float *vec_in(const tfl_norm_op *op, const void *v, int slot)
{
    if (!v || op->dtype == TFL_DT_F32)
        return v;
    float *s = lowp_scratch(slot, op->cols);
    if (s)
        lowp_widen(op->dtype, v, s, op->cols);
    return s;
}

enum { S_X, S_DY, S_Y, S_G, S_B };

/* Rows [r0, r1) of the op, one pool part: rows are independent in the
 * forward and the input gradient; the weight gradient is split by
 * column blocks instead (every row adds into every column). */
typedef struct norm_par {
    const tfl_norm_op *op;
    const float *g, *b;
    _Atomic int status;
} norm_par;

/* Runs fn over [0, total) on the pool (host_parallel_for) and returns
 * the first failure a part recorded. */
static tfl_status run_parts(norm_par *w, int64_t total, int64_t align, int64_t work_per_item,
                            void (*fn)(void *, int64_t, int64_t))
{
    atomic_init(&w->status, TFL_OK);
    host_parallel_for(total, align, work_per_item, fn, w);
    return (tfl_status)atomic_load(&w->status);
}

TFL_CLONES static void fwd_rows(void *ctx, int64_t lo, int64_t hi)
{
    norm_par *w = ctx;
    const tfl_norm_op *op = w->op;
    const int64_t N = op->cols;
    for (int64_t i = lo; i < hi; i++) {
        const float *xr = row_in(op, op->x, i, S_X);
        if (!xr) {
            atomic_store(&w->status, TFL_ERR_NOMEM);
            return;
        }
        float mean, rstd;
        if (op->kind == TFL_NORM_FWD_APPLY) {
            mean = op->rms ? 0.f : op->mean[i];
            rstd = op->rstd[i];
        } else {
            row_stats(xr, N, op->rms, op->eps, &mean, &rstd);
            if (!op->rms)
                op->mean[i] = mean;
            op->rstd[i] = rstd;
        }
        if (op->kind != TFL_NORM_FWD_STATS) {
            float *yr = row_out(op, op->y, i, S_Y);
            if (!yr) {
                atomic_store(&w->status, TFL_ERR_NOMEM);
                return;
            }
            row_apply(xr, N, mean, rstd, w->g, w->b, yr);
            row_out_done(op, op->y, i, yr);
        }
    }
}

static tfl_status fwd(const tfl_norm_op *op)
{
    norm_par w = { .op = op, .g = vec_in(op, op->gamma, S_G),
                   .b = op->rms ? NULL : vec_in(op, op->beta, S_B) };
    if ((op->gamma && !w.g) || (!op->rms && op->beta && !w.b))
        return TFL_ERR_NOMEM;
    return run_parts(&w, op->rows, 1, op->cols, fwd_rows);
}

/* dx = rstd/N * (N*g*dy - xhat * sum(g*dy*xhat) - sum(g*dy)), xhat =
 * (x - mean) * rstd; RMS drops the last sum (no mean to differentiate). */
TFL_CLONES static void bwd_input_rows(void *ctx, int64_t lo, int64_t hi)
{
    norm_par *w = ctx;
    const tfl_norm_op *op = w->op;
    const int64_t N = op->cols;
    const float *g = w->g;
    for (int64_t i = lo; i < hi; i++) {
        const float *xr = row_in(op, op->x, i, S_X), *dyr = row_in(op, op->dy, i, S_DY);
        float *dxr = row_out(op, op->dx, i, S_Y);
        if (!xr || !dyr || !dxr) {
            atomic_store(&w->status, TFL_ERR_NOMEM);
            return;
        }
        const double mean = op->rms ? 0.0 : op->mean[i], rstd = op->rstd[i];
        double s1, s2;
        bwd_sums(dyr, xr, g, N, mean, rstd, &s1, &s2);
        if (op->rms)
            s1 = 0.0;
        const double scale = rstd / (double)N, fn = (double)N;
        if (g) {
            for (int64_t j = 0; j < N; j++) {
                double xh = (xr[j] - mean) * rstd;
                dxr[j] = (float)(scale * (fn * ((double)dyr[j] * g[j]) - xh * s2 - s1));
            }
        } else {
            for (int64_t j = 0; j < N; j++) {
                double xh = (xr[j] - mean) * rstd;
                dxr[j] = (float)(scale * (fn * dyr[j] - xh * s2 - s1));
            }
        }
        row_out_done(op, op->dx, i, dxr);
    }
}

static tfl_status bwd_input(const tfl_norm_op *op)
{
    norm_par w = { .op = op, .g = vec_in(op, op->gamma, S_G) };
    if (op->gamma && !w.g)
        return TFL_ERR_NOMEM;
    return run_parts(&w, op->rows, 1, op->cols, bwd_input_rows);
}

/* The weight gradient's partial sums for columns [lo, hi): each row adds
 * into the partial row of its (tile, part), as PyTorch's blocks do. */
typedef struct params_par {
    norm_par base;
    double *ag, *ab;
} params_par;

TFL_CLONES static void bwd_params_cols(void *ctx, int64_t lo, int64_t hi)
{
    params_par *pw = ctx;
    norm_par *w = &pw->base;
    const tfl_norm_op *op = w->op;
    const int64_t M = op->rows, N = op->cols;
    const int64_t parts = op->tile_parts, tr = op->tile_rows, tiles = op->tile_count;
    const int64_t rows_per_part = tr / parts;
    for (int64_t m = 0; m < M; m++) {
        int64_t p = ((m / tr) % tiles) * parts + (m % tr) / rows_per_part;
        const float *xr = row_in(op, op->x, m, S_X), *dyr = row_in(op, op->dy, m, S_DY);
        if (!xr || !dyr) {
            atomic_store(&w->status, TFL_ERR_NOMEM);
            return;
        }
        const double mean = op->rms ? 0.0 : op->mean[m], rstd = op->rstd[m];
        if (op->dgamma) {
            double *agp = pw->ag + p * N;
            for (int64_t j = lo; j < hi; j++)
                agp[j] += (double)dyr[j] * ((xr[j] - mean) * rstd);
        }
        if (pw->ab) {
            double *abp = pw->ab + p * N;
            for (int64_t j = lo; j < hi; j++)
                abp[j] += dyr[j];
        }
    }
}

static tfl_status bwd_params(const tfl_norm_op *op)
{
    const int64_t M = op->rows, N = op->cols;
    const int64_t tiles = op->tile_count, parts = op->tile_parts, tr = op->tile_rows;
    if (tiles < 1 || parts < 1 || tr < parts || tr % parts)
        return TFL_ERR_INVALID;
    const int64_t nparts = tiles * parts;
    void *dg = op->dgamma, *db = op->rms ? NULL : op->dbeta;
    double *acc = calloc((size_t)(2 * nparts * N) + 1, sizeof(double));
    if (!acc)
        return TFL_ERR_NOMEM;
    params_par w = { .base = { .op = op }, .ag = acc, .ab = db ? acc + nparts * N : NULL };
    /* column blocks of 16 (whole cache lines of the float rows) */
    tfl_status st = run_parts(&w.base, N, 16, M, bwd_params_cols);
    if (st != TFL_OK) {
        free(acc);
        return st;
    }
    /* partial rows in the op's dtype (PyTorch's dgamma_blocks are T) */
    for (int64_t k = 0; k < nparts * N; k++) {
        if (dg)
            hg_store(op->dtype, dg, k, (float)w.ag[k]);
        if (db)
            hg_store(op->dtype, db, k, (float)w.ab[k]);
    }
    free(acc);
    return TFL_OK;
}

tfl_status host_norm(const tfl_norm_op *op)
{
    if (!host_norm_supported(op) || op->rows < 0 || op->cols < 0)
        return TFL_ERR_INVALID;
    switch (op->kind) {
    case TFL_NORM_FWD:
    case TFL_NORM_FWD_STATS:
    case TFL_NORM_FWD_APPLY:
        return fwd(op);
    case TFL_NORM_BWD_INPUT:
        return bwd_input(op);
    case TFL_NORM_BWD_PARAMS:
        return bwd_params(op);
    }
    return TFL_ERR_UNSUPPORTED;
}

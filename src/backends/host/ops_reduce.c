/*
 * ops_reduce.c - the host backend's native "reduce" op (torchfl/ops/reduce.h).
 *
 * Each output element is reduced on its own: the reduction's dimensions are
 * walked as runs along dimension 0 (the fastest) with an odometer over the
 * rest, so a contiguous last-dim reduction is one tight loop.  Floating
 * inputs accumulate in double (more accurate than the float accumulation
 * CUDA and PyTorch's CPU path use, which keeps results within rounding of
 * both); integer inputs accumulate in int64 as PyTorch does.  Variance is
 * computed in two passes (mean, then squared deviations).  The p-norms
 * take their root last, unless the op asks for the bare power sum
 * (no_root: linalg._powsum).
 */
#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_reduce_scalar.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct racc {
    double v, w;     /* value (sum, max...) and second value (aminmax max)  */
    int64_t iv, iw;  /* the same for integer reductions                    */
    int64_t idx;     /* index of v for the *_IDX / ARG* kinds (-1: none)   */
    int64_t r;       /* running reduction index                            */
    int pass2;       /* VAR: second pass (squared deviations from mean)    */
} racc;

static int is_idx_kind(tfl_reduce_kind k)
{
    return k == TFL_RED_MAX_IDX || k == TFL_RED_MIN_IDX ||
           k == TFL_RED_ARGMAX || k == TFL_RED_ARGMIN;
}

static int wants_max(tfl_reduce_kind k)
{
    return k == TFL_RED_MAX || k == TFL_RED_MAX_IDX || k == TFL_RED_ARGMAX;
}

/* One run of n elements at byte stride st (floating inputs). */
static void run_f(const tfl_reduce_op *op, const char *p, int64_t n, int64_t st,
                  racc *a, double mean)
{
    tfl_reduce_kind k = op->kind;
    tfl_dtype dt = op->in_dtype;
    if (dt == TFL_DT_F32 && st == 4) {
        const float *restrict f = (const float *)(const void *)p;
        switch (k) {
        case TFL_RED_SUM: case TFL_RED_MEAN:
            a->v += rs_sum_f32(f, n);
            a->r += n;
            return;
        case TFL_RED_NORM2:
            a->v += rs_sumsq_f32(f, n);
            a->r += n;
            return;
        case TFL_RED_MAX: case TFL_RED_MIN: {
            if (a->idx >= 0 && isnan(a->v)) {
                a->r += n;
                return;
            }
            if (n == 0)
                return;
            float m = rs_maxmin_f32(f, n, k == TFL_RED_MAX);
            if (a->idx >= 0 && m == m)
                m = k == TFL_RED_MAX ? (m > a->v ? m : (float)a->v) : (m < a->v ? m : (float)a->v);
            int nan = m != m;
            if (n > 0) {
                a->v = nan ? NAN : m;
                a->idx = 0;      /* "has a value"; MAX/MIN report no index */
            }
            a->r += n;
            return;
        }
        case TFL_RED_MAX_IDX: case TFL_RED_ARGMAX: case TFL_RED_MIN_IDX: case TFL_RED_ARGMIN: {
            int mx = wants_max(k);
            int64_t r0 = a->r;
            for (int64_t i = 0; i < n; i++) {
                float x = f[i];
                if (a->idx >= 0) {
                    if (a->v != a->v)
                        break;                  /* the first NaN wins */
                    if (!(x != x || (mx ? x > a->v : x < a->v)))
                        continue;
                }
                a->v = x;
                a->idx = r0 + i;
            }
            a->r = r0 + n;
            return;
        }
        default:
            break;
        }
    }
    for (int64_t i = 0; i < n; i++, p += st, a->r++) {
        double x = rs_ld(dt, p);
        switch (k) {
        case TFL_RED_SUM: case TFL_RED_MEAN: a->v += x; break;
        case TFL_RED_NANSUM: if (!isnan(x)) a->v += x; break;
        case TFL_RED_PROD: a->v *= x; break;
        case TFL_RED_ALL: a->v = a->v != 0 && x != 0; break;
        case TFL_RED_ANY: a->v = a->v != 0 || x != 0; break;
        case TFL_RED_NORM0: a->v += x != 0; break;
        case TFL_RED_NORM1: a->v += fabs(x); break;
        case TFL_RED_NORM2: a->v += x * x; break;
        case TFL_RED_NORM: a->v += pow(fabs(x), op->p); break;
        case TFL_RED_VAR: if (a->pass2) { double d = x - mean; a->w += d * d; } else a->v += x; break;
        case TFL_RED_NORM_INF: case TFL_RED_NORM_NINF: {
            double ax = fabs(x);
            if (isnan(a->v)) break;
            if (isnan(ax) || (k == TFL_RED_NORM_INF ? ax > a->v : ax < a->v)) a->v = ax;
            break;
        }
        case TFL_RED_AMINMAX:
            if (!isnan(a->v) && (isnan(x) || x < a->v)) a->v = x;
            if (!isnan(a->w) && (isnan(x) || x > a->w)) a->w = x;
            break;
        default: { /* MAX/MIN, with or without index */
            if (a->idx >= 0 && isnan(a->v)) break;       /* first NaN wins */
            int take = a->idx < 0 || isnan(x) ||
                       (wants_max(k) ? x > a->v : x < a->v);
            if (take) { a->v = x; a->idx = a->r; }
            break;
        }
        }
    }
}

/* One run of n elements at byte stride st (integer inputs). */
static void run_i(const tfl_reduce_op *op, const char *p, int64_t n, int64_t st, racc *a)
{
    tfl_reduce_kind k = op->kind;
    for (int64_t i = 0; i < n; i++, p += st, a->r++) {
        int64_t x = rs_ldi(op->in_dtype, p);
        switch (k) {
        case TFL_RED_SUM: case TFL_RED_NANSUM: case TFL_RED_MEAN:
            a->iv = (int64_t)((uint64_t)a->iv + (uint64_t)x); break;
        case TFL_RED_PROD: a->iv = (int64_t)((uint64_t)a->iv * (uint64_t)x); break;
        case TFL_RED_ALL: a->iv = a->iv != 0 && x != 0; break;
        case TFL_RED_ANY: a->iv = a->iv != 0 || x != 0; break;
        case TFL_RED_AMINMAX:
            if (x < a->iv) a->iv = x;
            if (x > a->iw) a->iw = x;
            break;
        default:
            if (a->idx < 0 || (wants_max(k) ? x > a->iv : x < a->iv)) { a->iv = x; a->idx = a->r; }
            break;
        }
    }
}

/* Walk every reduction element of one output (base = its input slice). */
static void walk(const tfl_reduce_op *op, const char *base, racc *a, double mean)
{
    int nd = op->red_ndim;
    int64_t n0 = nd > 0 ? op->red_sizes[0] : 1, s0 = nd > 0 ? op->red_stride_in[0] : 0;
    int64_t c[TFL_REDUCE_MAX_DIMS] = {0};
    int64_t off = 0;
    int fl = rs_is_float(op->in_dtype);
    a->r = 0;
    for (;;) {
        if (fl)
            run_f(op, base + off, n0, s0, a, mean);
        else
            run_i(op, base + off, n0, s0, a);
        int d = 1;
        for (; d < nd; d++) {
            off += op->red_stride_in[d];
            if (++c[d] < op->red_sizes[d])
                break;
            off -= op->red_stride_in[d] * op->red_sizes[d];
            c[d] = 0;
        }
        if (d >= nd)
            return;
    }
}

static void init_acc(const tfl_reduce_op *op, racc *a)
{
    memset(a, 0, sizeof *a);
    a->idx = -1;
    switch (op->kind) {
    case TFL_RED_PROD: case TFL_RED_ALL: a->v = 1; a->iv = 1; break;
    case TFL_RED_NORM_NINF: a->v = INFINITY; break;
    case TFL_RED_AMINMAX: a->v = INFINITY; a->w = -INFINITY; a->iv = INT64_MAX; a->iw = INT64_MIN; break;
    default: break;
    }
}

static void one_output(const tfl_reduce_op *op, const char *in, char *out, char *out2)
{
    racc a;
    init_acc(op, &a);
    int fl = rs_is_float(op->in_dtype);
    tfl_reduce_kind k = op->kind;
    if (k == TFL_RED_VAR) {
        walk(op, in, &a, NAN);                      /* pass 1: the sum */
        double n = (double)op->num_inputs;
        double mean = n > 0 ? a.v / n : NAN;
        a.w = 0;
        a.pass2 = 1;
        walk(op, in, &a, mean);                     /* pass 2: m2 */
        double div = n - op->correction;
        double var = a.w / (div > 0 ? div : 0);
        if (op->take_sqrt)
            var = sqrt(var);
        rs_st(op->out_dtype, out, var);
        if (out2)
            rs_st(op->out2_dtype, out2, mean);
        return;
    }
    walk(op, in, &a, 0);
    if (!fl) {
        switch (k) {
        case TFL_RED_MEAN: rs_st(op->out_dtype, out, (double)a.iv * op->scale); return;
        case TFL_RED_AMINMAX:
            rs_sti(op->out_dtype, out, a.iv);
            if (out2) rs_sti(op->out2_dtype, out2, a.iw);
            return;
        case TFL_RED_ARGMAX: case TFL_RED_ARGMIN: rs_sti(op->out_dtype, out, a.idx); return;
        default:
            rs_sti(op->out_dtype, out, a.iv);
            if (out2) rs_sti(op->out2_dtype, out2, a.idx);
            return;
        }
    }
    double v = a.v;
    switch (k) {
    case TFL_RED_MEAN: v *= op->scale; break;
    case TFL_RED_NORM2: if (!op->no_root) v = sqrt(v); break;
    case TFL_RED_NORM: if (!op->no_root) v = pow(v, 1.0 / op->p); break;
    case TFL_RED_ARGMAX: case TFL_RED_ARGMIN: rs_sti(op->out_dtype, out, a.idx); return;
    case TFL_RED_AMINMAX:
        rs_st(op->out_dtype, out, v);
        if (out2) rs_st(op->out2_dtype, out2, a.w);
        return;
    default: break;
    }
    rs_st(op->out_dtype, out, v);
    if (out2 && is_idx_kind(k))
        rs_sti(op->out2_dtype, out2, a.idx);
}

/* One column block [lo, hi) of sum_rows_f32's single-output-dimension
 * case: every row adds into the block's own accumulators. */
typedef struct cols_par {
    const tfl_reduce_op *op;
    _Atomic int status;
} cols_par;

static void sum_cols_part(void *ctx, int64_t lo, int64_t hi)
{
    cols_par *w = ctx;
    const tfl_reduce_op *op = w->op;
    double *acc = calloc((size_t)(hi - lo), sizeof(double));
    if (!acc) {
        atomic_store(&w->status, TFL_ERR_NOMEM);
        return;
    }
    int64_t rc[TFL_REDUCE_MAX_DIMS] = {0};
    int64_t roff = 0;
    for (int64_t r = 0; r < op->num_inputs; r++) {
        const float *restrict x = (const float *)(const void *)((const char *)op->in + roff) + lo;
        for (int64_t j = 0; j < hi - lo; j++)
            acc[j] += x[j];
        for (int d = 0; d < op->red_ndim; d++) {
            roff += op->red_stride_in[d];
            if (++rc[d] < op->red_sizes[d])
                break;
            roff -= op->red_stride_in[d] * op->red_sizes[d];
            rc[d] = 0;
        }
    }
    double sc = op->kind == TFL_RED_MEAN ? op->scale : 1.0;
    for (int64_t j = lo; j < hi; j++)
        rs_st(op->out_dtype, (char *)op->out + j * op->out_stride_out[0], acc[j - lo] * sc);
    free(acc);
}

static int sum_cols_par(const tfl_reduce_op *op)
{
    cols_par w = { .op = op };
    atomic_init(&w.status, TFL_OK);
    /* blocks of whole 64-byte lines so parts do not share a cache line */
    host_parallel_for(op->out_sizes[0], 16, op->num_inputs, sum_cols_part, &w);
    /* out of memory: the serial walk below reports it the same way */
    return atomic_load(&w.status) == TFL_OK;
}

/* Sum/mean of float32 where outputs are contiguous in the input and the
 * reduction is strided (e.g. a bias gradient, x.sum(0) of [N, C]): walk the
 * input in memory order, adding whole rows into a vector of accumulators,
 * instead of one strided walk per output. */
static int sum_rows_f32(const tfl_reduce_op *op)
{
    if (op->in_dtype != TFL_DT_F32 || (op->kind != TFL_RED_SUM && op->kind != TFL_RED_MEAN) ||
        op->out_ndim < 1 || op->out_stride_in[0] != 4 || op->red_ndim < 1 ||
        op->red_stride_in[0] == 4 || op->out_sizes[0] < 2)
        return 0;
    int64_t n0 = op->out_sizes[0];
    if (op->out_ndim == 1 && n0 >= 32 && n0 * op->num_inputs >= HOST_PAR_MIN_WORK &&
        host_par_threads() > 1)
        return sum_cols_par(op);
    double *acc = malloc(sizeof(double) * (size_t)n0);
    if (!acc)
        return 0;
    int64_t oc[TFL_REDUCE_MAX_DIMS] = {0};
    int64_t ib = 0, ob = 0;
    for (;;) {
        for (int64_t j = 0; j < n0; j++)
            acc[j] = 0;
        int64_t rc[TFL_REDUCE_MAX_DIMS] = {0};
        int64_t roff = 0;
        for (int64_t r = 0; r < op->num_inputs; r++) {
            const float *restrict x = (const float *)(const void *)((const char *)op->in + ib + roff);
            for (int64_t j = 0; j < n0; j++)
                acc[j] += x[j];
            for (int d = 0; d < op->red_ndim; d++) {
                roff += op->red_stride_in[d];
                if (++rc[d] < op->red_sizes[d])
                    break;
                roff -= op->red_stride_in[d] * op->red_sizes[d];
                rc[d] = 0;
            }
        }
        double sc = op->kind == TFL_RED_MEAN ? op->scale : 1.0;
        for (int64_t j = 0; j < n0; j++)
            rs_st(op->out_dtype, (char *)op->out + ob + j * op->out_stride_out[0], acc[j] * sc);
        int d = 1;
        for (; d < op->out_ndim; d++) {
            ib += op->out_stride_in[d];
            ob += op->out_stride_out[d];
            if (++oc[d] < op->out_sizes[d])
                break;
            ib -= op->out_stride_in[d] * op->out_sizes[d];
            ob -= op->out_stride_out[d] * op->out_sizes[d];
            oc[d] = 0;
        }
        if (d >= op->out_ndim)
            break;
    }
    free(acc);
    return 1;
}

int host_reduce_supported(const tfl_reduce_op *op)
{
    if (!op || (unsigned)op->kind >= TFL_RED_KIND_COUNT)
        return 0;
    if (!tfl_dtype_size(op->in_dtype) || !tfl_dtype_size(op->out_dtype))
        return 0;
    if (op->out2 && !tfl_dtype_size(op->out2_dtype))
        return 0;
    /* no_root means something only for the two p-norms */
    if (op->no_root && op->kind != TFL_RED_NORM && op->kind != TFL_RED_NORM2)
        return 0;
    if (op->out_ndim < 0 || op->out_ndim > TFL_REDUCE_MAX_DIMS ||
        op->red_ndim < 0 || op->red_ndim > TFL_REDUCE_MAX_DIMS)
        return 0;
    if (!rs_is_float(op->in_dtype)) {
        switch (op->kind) {
        case TFL_RED_SUM: case TFL_RED_NANSUM: case TFL_RED_MEAN: case TFL_RED_PROD:
        case TFL_RED_MAX: case TFL_RED_MIN: case TFL_RED_MAX_IDX: case TFL_RED_MIN_IDX:
        case TFL_RED_ARGMAX: case TFL_RED_ARGMIN: case TFL_RED_AMINMAX:
        case TFL_RED_ALL: case TFL_RED_ANY:
            break;
        default:
            return 0;
        }
    }
    return 1;
}

tfl_status host_reduce(const tfl_reduce_op *op)
{
    if (!host_reduce_supported(op))
        return TFL_ERR_UNSUPPORTED;
    int64_t no = 1, ni = 1;
    for (int d = 0; d < op->out_ndim; d++) {
        if (op->out_sizes[d] < 0 || op->out_stride_in[d] < 0 || op->out_stride_out[d] < 0)
            return TFL_ERR_INVALID;
        no *= op->out_sizes[d];
    }
    for (int d = 0; d < op->red_ndim; d++) {
        if (op->red_sizes[d] < 0 || op->red_stride_in[d] < 0)
            return TFL_ERR_INVALID;
        ni *= op->red_sizes[d];
    }
    if (no != op->num_outputs || ni != op->num_inputs)
        return TFL_ERR_INVALID;
    if (no == 0)
        return TFL_OK;
    if (!op->in || !op->out)
        return TFL_ERR_INVALID;
    if (!op->out2 && ni > 0 && sum_rows_f32(op))
        return TFL_OK;
    size_t osz = tfl_dtype_size(op->out_dtype), o2sz = op->out2 ? tfl_dtype_size(op->out2_dtype) : 0;
    int64_t c[TFL_REDUCE_MAX_DIMS] = {0};
    int64_t ioff = 0, ooff = 0;
    int nd = op->out_ndim;
    for (int64_t o = 0; o < no; o++) {
        char *out2 = op->out2 ? (char *)op->out2 + (size_t)ooff / osz * o2sz : NULL;
        one_output(op, (const char *)op->in + ioff, (char *)op->out + ooff, out2);
        for (int d = 0; d < nd; d++) {
            ioff += op->out_stride_in[d];
            ooff += op->out_stride_out[d];
            if (++c[d] < op->out_sizes[d])
                break;
            ioff -= op->out_stride_in[d] * op->out_sizes[d];
            ooff -= op->out_stride_out[d] * op->out_sizes[d];
            c[d] = 0;
        }
    }
    return TFL_OK;
}

/*
 * ocl_attention.c - TFL_OP_ATTENTION (torchfl/ops/attention.h) on the
 * OpenCL device: scaled dot-product attention forward (with logsumexp)
 * and backward, fp32/fp16/bf16, causal masks (any causal_offset), an
 * additive bias and its gradient, grouped K/V heads, and dropout with the
 * host backend's mask bits.
 *
 * Semantics are the host backend's (host/ops_attention.c).  Work is done
 * in tiles of heads (and, when one head's scores would not fit the
 * scratch budget, of query rows):
 *   forward:  S = scale Q K^T (CLBlast); one work-group per row adds the
 *             bias, masks, softmaxes (max-subtracted; the sum of exps in
 *             double when the device has fp64, as the host), writes lse
 *             and drops; O = P V (CLBlast);
 *   backward: S = scale Q K^T and dP = dO V^T (CLBlast); one work-group
 *             per row computes D = dO . O, P = exp(S - lse),
 *             dS = P (dP - D) and dbias; then dV = P^T dO,
 *             dQ = scale dS K, dK = scale dS^T Q (CLBlast, dK and dV
 *             accumulated over row tiles).
 * Row reductions are trees in local memory over a fixed work-group size,
 * so a row gives the same bits every run.
 *
 * fp32 operands whose heads lie at even strides go to CLBlast in place;
 * the rest (fp16/bf16, grouped K/V, SDPA's [B, M, H, D] views with more
 * than one batch) are gathered into packed fp32 scratch, and packed
 * results are scattered back (rounded once to the element type).  Scratch
 * buffers are created per call and released right after enqueueing.
 *
 * Refused (the host runs them): empty sequences or head dims (nothing to
 * multiply, but zero-filled gradients to write), heads whose packed
 * operands exceed the scratch budget, and a key row too long for one
 * score row in the budget.
 */
#include "backends/opencl/ocl_src.h"

#include <clblast_c.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Scores per tile (the host's block size too): 16 MiB each for S and dP. */
#define S_FLOATS ((int64_t)4 << 20)
/* Packed operands per tile: 256 MiB in all. */
#define G_FLOATS ((int64_t)64 << 20)
/* Work items per row of the row kernels (a power of two). */
#define WG_MAX 64

/* ------------------------------------------------------------ kernels */

/* Element types are tfl_dtype's numbers (0 f32, 2 f16, 3 bf16); WG and
 * ACC_DBL (the device has doubles) come from the build options. */
_Static_assert(TFL_DT_F32 == 0 && TFL_DT_F16 == 2 && TFL_DT_BF16 == 3,
               "the kernels number element types as tfl_dtype");

static const char attn_src[] =
OCL_SRC_ACC
OCL_SRC_LOWP          /* NaN stays NaN (quiet, top payload bits) */
OCL_SRC_WG_SUM
/* element i of an array of type dt at p (widening is exact), and the
 * store rounding to nearest even */
"#define get(p, dt, i) ocl_ldf(dt, p, i)\n"
"#define put(p, dt, i, v) ocl_stf(dt, p, i, v)\n"
/* the host's dropout hash (splitmix64's finaliser) */
"ulong mix64(ulong x) {\n"
"    x += 0x9e3779b97f4a7c15UL;\n"
"    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;\n"
"    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;\n"
"    return x ^ (x >> 31);\n"
"}\n"
"float red_max(float v, __local float *sh) {\n"
"    int l = get_local_id(0);\n"
"    sh[l] = v;\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    for (int w = WG / 2; w > 0; w >>= 1) {\n"
"        if (l < w) sh[l] = fmax(sh[l], sh[l + w]);\n"
"        barrier(CLK_LOCAL_MEM_FENCE);\n"
"    }\n"
"    v = sh[0];\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    return v;\n"
"}\n"
/* What both row kernels know about their row: the tile is heads t0.. of
 * mb query rows from i0 each, scores rows of N floats. */
"#define ROW_ARGS long N, long mb, long M, long H, long t0, long i0, int causal,\\\n"
"    long coff, __global const char *bp, ulong bo, long bsb, long bsh, long bsm,\\\n"
"    int has_bias, int dt, __global char *lp, ulong lo, long lsb, long lsh, int drop,\\\n"
"    ulong seed, ulong doff, ulong keep, float dscale\n"
"#define ROW_SETUP\\\n"
"    long r = get_group_id(0), t = t0 + r / mb, i = i0 + r % mb;\\\n"
"    long b = t / H, h = t % H;\\\n"
"    int l = get_local_id(0);\\\n"
"    long es = dt == 0 ? 4 : 2;\\\n"
"    long vis = causal ? clamp(i + coff + 1, 0L, N) : N;\\\n"
"    __global const char *brow = bp + bo + (b * bsb + h * bsh + i * bsm) * es;\\\n"
"    __global float *lse = (__global float *)(lp + lo) + b * lsb + h * lsh;\\\n"
"    ulong key = drop ? mix64(seed ^ mix64(doff ^ mix64((ulong)((b * H + h) * M + i)))) : 0;\n"
"#define KEPT(j) ((mix64(key ^ (ulong)(j)) >> 32) < keep)\n"
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void attn_softmax(__global char *sp, ROW_ARGS, int has_lse) {\n"
"    __local float shm[WG];\n"
"    __local acc_t sha[WG];\n"
"    ROW_SETUP\n"
"    __global float *s = (__global float *)sp + r * N;\n"
"    float mx = -INFINITY;\n"
"    for (long j = l; j < N; j += WG) {\n"
"        float v = -INFINITY;\n"
"        if (j < vis) {\n"
"            v = s[j];\n"
"            if (has_bias) v += get(brow, dt, j);\n"
"        }\n"
"        s[j] = v;\n"
"        mx = fmax(mx, v);\n"
"    }\n"
"    mx = red_max(mx, shm);\n"
"    float ls = -INFINITY;\n"
"    if (mx == -INFINITY) {\n"      /* every key hidden: no attention */
"        for (long j = l; j < N; j += WG) s[j] = 0.0f;\n"
"    } else {\n"
"        acc_t a = 0;\n"
"        for (long j = l; j < N; j += WG) {\n"
"            float e = exp(s[j] - mx);\n"
"            s[j] = e;\n"
"            a += e;\n"
"        }\n"
"        acc_t sum = ocl_wg_sum(a, sha);\n"
"        float inv = (float)((acc_t)1 / sum);\n"
"        for (long j = l; j < N; j += WG) {\n"
"            float p = s[j] * inv;\n"
"            if (drop) p = KEPT(j) ? p * dscale : 0.0f;\n"
"            s[j] = p;\n"
"        }\n"
"        ls = mx + (float)log(sum);\n"
"    }\n"
"    if (has_lse && l == 0) lse[i] = ls;\n"
"}\n"
/* in: s = scale Q K^T, dp = dO V^T; out: s = P (dropped), dp = dS */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void attn_bwd_rows(__global char *sp, __global char *dpp, ROW_ARGS,\n"
"                   __global const char *op, ulong oo, long osb, long osh, long osm,\n"
"                   __global const char *gp, ulong go, long gsb, long gsh, long gsm,\n"
"                   long Dv, __global char *qp, ulong qo, long qsb, long qsh, long qsm,\n"
"                   int has_gb) {\n"
"    __local acc_t sha[WG];\n"
"    ROW_SETUP\n"
"    __global const char *orow = op + oo + (b * osb + h * osh + i * osm) * es;\n"
"    __global const char *grow = gp + go + (b * gsb + h * gsh + i * gsm) * es;\n"
"    acc_t a = 0;\n"
"    for (long c = l; c < Dv; c += WG) a += (acc_t)get(grow, dt, c) * (acc_t)get(orow, dt, c);\n"
"    float di = (float)ocl_wg_sum(a, sha);\n"
"    float ls = lse[i];\n"
"    __global float *s = (__global float *)sp + r * N, *dp = (__global float *)dpp + r * N;\n"
"    __global char *gbrow = qp + qo + (b * qsb + h * qsh + i * qsm) * es;\n"
"    for (long j = l; j < N; j += WG) {\n"
"        float p = 0.0f, ds = 0.0f;\n"
"        if (j < vis && ls != -INFINITY) {\n"
"            float v = s[j];\n"
"            if (has_bias) v += get(brow, dt, j);\n"
"            p = exp(v - ls);\n"
"            float d = dp[j];\n"
"            if (drop) {\n"
"                int k = KEPT(j);\n"
"                d = k ? d * dscale : 0.0f;\n"
"                ds = p * (d - di);\n"
"                p = k ? p * dscale : 0.0f;\n"
"            } else {\n"
"                ds = p * (d - di);\n"
"            }\n"
"        }\n"
"        s[j] = p;\n"
"        dp[j] = ds;\n"
"        if (has_gb) put(gbrow, dt, j, ds);\n"
"    }\n"
"}\n"
/* packed fp32 [c][rows][cols] <-> the operand's heads t0 .. t0+c-1; K/V
 * heads are h / hdiv */
"#define ADDR\\\n"
"    long id = get_global_id(0);\\\n"
"    if (id >= n) return;\\\n"
"    long col = id % cols, rest = id / cols, row = rest % rows, t = t0 + rest / rows;\\\n"
"    long at = (t / H) * sb + ((t % H) / hdiv) * sh + row * sm + col;\n"
"__kernel void attn_gather(__global const char *xp, ulong xo, long sb, long sh, long sm,\n"
"                          int dt, long rows, long cols, long H, long hdiv, long t0,\n"
"                          __global char *yp, long n) {\n"
"    ADDR\n"
"    ((__global float *)yp)[id] = get(xp + xo, dt, at);\n"
"}\n"
"__kernel void attn_scatter(__global char *xp, ulong xo, long sb, long sh, long sm,\n"
"                           int dt, long rows, long cols, long H, long hdiv, long t0,\n"
"                           __global const char *yp, long n) {\n"
"    ADDR\n"
"    put(xp + xo, dt, at, ((__global const float *)yp)[id]);\n"
"}\n"
/* lse entries M .. M+w-1 of every head: +inf */
"__kernel void attn_lse_pad(__global char *lp, ulong lo, long lsb, long lsh, long H,\n"
"                           long M, long w, long n) {\n"
"    long id = get_global_id(0);\n"
"    if (id >= n) return;\n"
"    long t = id / w;\n"
"    ((__global float *)(lp + lo))[(t / H) * lsb + (t % H) * lsh + M + id % w] = INFINITY;\n"
"}\n";

/* ------------------------------------------------------------ planning */

/* The matrix operands; each is a [batch][heads][rows][cols] view. */
enum { X_Q, X_K, X_V, X_O, X_DO, X_DQ, X_DK, X_DV, X_COUNT };

/* How a pass uses a matrix: a CLBlast input, a CLBlast output, or read
 * by the row kernel only (O in the backward). */
enum { U_NONE, U_IN, U_OUT, U_RAW };

static const struct role {
    size_t field;        /* its tfl_attn_tensor in tfl_attention_op */
    int key_rows;        /* rows: num_keys (else num_queries)        */
    int value_cols;      /* cols: head_dim_value (else head_dim)     */
    int kv;              /* indexed by K/V head                      */
    int fwd, bwd;        /* U_* in each pass                         */
} roles[X_COUNT] = {
    [X_Q] = { offsetof(tfl_attention_op, q), 0, 0, 0, U_IN, U_IN },
    [X_K] = { offsetof(tfl_attention_op, k), 1, 0, 1, U_IN, U_IN },
    [X_V] = { offsetof(tfl_attention_op, v), 1, 1, 1, U_IN, U_IN },
    [X_O] = { offsetof(tfl_attention_op, out), 0, 1, 0, U_OUT, U_RAW },
    [X_DO] = { offsetof(tfl_attention_op, grad_out), 0, 1, 0, U_NONE, U_IN },
    [X_DQ] = { offsetof(tfl_attention_op, grad_q), 0, 0, 0, U_NONE, U_OUT },
    [X_DK] = { offsetof(tfl_attention_op, grad_k), 1, 0, 0, U_NONE, U_OUT },
    [X_DV] = { offsetof(tfl_attention_op, grad_v), 1, 1, 0, U_NONE, U_OUT },
};

typedef struct mat {
    const tfl_attn_tensor *t;
    int use;                 /* U_*                                      */
    int64_t rows, cols;
    int64_t hdiv;            /* head h reads head h / hdiv               */
    cl_mem buf;
    size_t off;              /* bytes: element (0, 0, 0, 0)              */
    int direct;              /* CLBlast reads/writes it in place         */
    int64_t ts;              /* direct: elements from head t to t + 1    */
    cl_mem pk;               /* otherwise: packed scratch of a tile      */
} mat;

/* A vector-like operand the row kernels address themselves. */
typedef struct vecop {
    cl_mem buf;
    size_t off;
} vecop;

typedef struct plan {
    const tfl_attention_op *op;
    mat x[X_COUNT];
    vecop bias, gbias, lse;
    int64_t T;               /* batch * heads                            */
    int64_t chunk;           /* heads per tile                           */
    int64_t mblk;            /* query rows per tile                      */
    size_t es;
} plan;

static int dtype_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

static int strides_ok(const tfl_attn_tensor *t)
{
    return t->stride_b >= 0 && t->stride_h >= 0 && t->stride_m >= 0;
}

/* Bytes from t.ptr to the end of the last element of a [B][H][rows][cols]
 * view (rows, cols >= 1); 0 on overflow. */
static int span(const tfl_attn_tensor *t, int64_t B, int64_t H, int64_t rows, int64_t cols,
                size_t es, size_t *bytes)
{
    int64_t a, b, c, e;
    if (__builtin_mul_overflow(B - 1, t->stride_b, &a) ||
        __builtin_mul_overflow(H - 1, t->stride_h, &b) ||
        __builtin_mul_overflow(rows - 1, t->stride_m, &c) || __builtin_add_overflow(a, b, &e) ||
        __builtin_add_overflow(e, c, &e) || __builtin_add_overflow(e, cols, &e) ||
        __builtin_mul_overflow(e, (int64_t)es, &e))
        return 0;
    *bytes = (size_t)e;
    return 1;
}

/* t's view in device memory, element-aligned. */
static int resolve(const tfl_attn_tensor *t, int64_t B, int64_t H, int64_t rows, int64_t cols,
                   size_t es, cl_mem *buf, size_t *off)
{
    size_t n;
    return t->ptr && strides_ok(t) && (uintptr_t)t->ptr % es == 0 &&
           span(t, B, H, rows, cols, es, &n) && ocl_resolve(t->ptr, n, buf, off);
}

/* Whether CLBlast can take x in place: fp32, one head per query head,
 * heads at one stride over the whole batch, rows of at least cols
 * elements, everything within CLBlast's int offsets, and (outputs) heads
 * that do not overlap. */
static int can_be_direct(const plan *p, mat *x)
{
    const tfl_attention_op *op = p->op;
    const tfl_attn_tensor *t = x->t;
    int64_t sb = t->stride_b, sh = t->stride_h, sm = t->stride_m, reach;
    if (op->dtype != TFL_DT_F32 || x->hdiv != 1 || sm < x->cols || sm > INT_MAX)
        return 0;
    if (p->T == 1)
        x->ts = 0;
    else if (op->batch == 1)
        x->ts = sh;
    else if (op->heads == 1)
        x->ts = sb;
    else if (sh <= INT_MAX && sb == op->heads * sh)
        x->ts = sh;
    else
        return 0;
    int64_t head = (x->rows - 1) * sm + x->cols;   /* rows, sm <= INT_MAX: no overflow */
    if (__builtin_mul_overflow(p->T - 1, x->ts, &reach) ||
        __builtin_add_overflow(reach, head, &reach) ||
        __builtin_add_overflow(reach, (int64_t)(x->off / 4), &reach) || reach > INT_MAX)
        return 0;
    return x->use != U_OUT || p->T == 1 || x->ts >= head;
}

/* The shape rules: what the host accepts, minus the empty cases. */
static int shape_ok(const tfl_attention_op *op)
{
    if (!dtype_ok(op->dtype) || op->batch < 0 || op->heads < 0 || op->q_heads_per_kv < 1 ||
        op->heads % op->q_heads_per_kv != 0)
        return 0;
    if (op->mask != TFL_ATTN_MASK_NONE && op->mask != TFL_ATTN_MASK_CAUSAL)
        return 0;
    if (!(op->dropout_p >= 0.0f && op->dropout_p < 1.0f))
        return 0;
    if (op->batch == 0 || op->heads == 0)
        return 1;   /* nothing to do */
    return op->num_queries >= 1 && op->num_keys >= 1 && op->head_dim >= 1 &&
           op->head_dim_value >= 1 && op->num_queries <= INT_MAX && op->num_keys <= INT_MAX &&
           op->head_dim <= INT_MAX && op->head_dim_value <= INT_MAX &&
           op->batch <= INT_MAX / op->heads;
}

static cl_ulong max_alloc(void)
{
    cl_ulong v = 0;
    if (clGetDeviceInfo(ocl_dev()->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v, &v, NULL) !=
        CL_SUCCESS)
        return 0;
    return v;
}

/* Heads per tile and query rows per tile from the scratch budget; 0 when
 * one head's packed operands or one score row do not fit. */
static int size_tiles(plan *p)
{
    const tfl_attention_op *op = p->op;
    const int64_t M = op->num_queries, N = op->num_keys;
    const int64_t alloc = (int64_t)(max_alloc() / sizeof(float));   /* per buffer */
    const int64_t lim = alloc < S_FLOATS ? alloc : S_FLOATS;
    int64_t packed = 0, chunk = p->T;   /* packed floats per head */
    for (int i = 0; i < X_COUNT; i++) {
        const mat *x = &p->x[i];
        if ((x->use != U_IN && x->use != U_OUT) || x->direct)
            continue;
        int64_t f = x->rows * x->cols;
        if (f > alloc)
            return 0;
        chunk = alloc / f < chunk ? alloc / f : chunk;
        packed += f;
    }
    if (packed > G_FLOATS || N > lim)
        return 0;
    if (packed && G_FLOATS / packed < chunk)
        chunk = G_FLOATS / packed;
    if (M * N > lim) {   /* rows of one head at a time */
        p->chunk = 1;
        p->mblk = lim / N;
    } else {
        p->chunk = lim / (M * N) < chunk ? lim / (M * N) : chunk;
        p->mblk = M;
    }
    return p->chunk >= 1 && p->mblk >= 1;
}

/* Resolve every operand op reads or writes; 1 when this file runs op. */
static int make_plan(const tfl_attention_op *op, plan *p)
{
    memset(p, 0, sizeof *p);
    p->op = op;
    if (!shape_ok(op))
        return 0;
    p->T = op->batch * op->heads;
    if (p->T == 0)
        return 1;
    const int64_t B = op->batch, H = op->heads, g = op->q_heads_per_kv;
    const int64_t M = op->num_queries, N = op->num_keys;
    p->es = tfl_dtype_size(op->dtype);
    for (int i = 0; i < X_COUNT; i++) {
        const struct role *r = &roles[i];
        mat *x = &p->x[i];
        x->t = (const tfl_attn_tensor *)((const char *)op + r->field);
        x->use = op->backward ? r->bwd : r->fwd;
        if (x->use == U_NONE)
            continue;
        x->rows = r->key_rows ? N : M;
        x->cols = r->value_cols ? op->head_dim_value : op->head_dim;
        x->hdiv = r->kv ? g : 1;
        if (!resolve(x->t, B, H / x->hdiv, x->rows, x->cols, p->es, &x->buf, &x->off))
            return 0;
        x->direct = x->use != U_RAW && can_be_direct(p, x);
    }
    if (op->bias.ptr && !resolve(&op->bias, B, H, M, N, p->es, &p->bias.buf, &p->bias.off))
        return 0;
    if (op->backward && op->grad_bias.ptr &&
        !resolve(&op->grad_bias, B, H, M, N, p->es, &p->gbias.buf, &p->gbias.off))
        return 0;
    /* lse: [B][H][len] floats, stride_m ignored */
    int64_t len = !op->backward && op->lse_padded_len > M ? op->lse_padded_len : M;
    if (op->backward && !op->lse.ptr)
        return 0;
    if (op->lse.ptr) {
        tfl_attn_tensor l = op->lse;
        l.stride_m = 1;
        if (!resolve(&l, B, H, 1, len, sizeof(float), &p->lse.buf, &p->lse.off))
            return 0;
    }
    return size_tiles(p);
}

int ocl_attention_supported(const tfl_op *op)
{
    plan p;
    return op && op->kind == TFL_OP_ATTENTION && ocl_dev() && make_plan(&op->u.attention, &p);
}

/* ------------------------------------------------------------ launching */

/* Kernel `name`, built for the work-group size of the row kernels: the
 * largest power of two up to WG_MAX the device allows for both, decided
 * once (one device per process). */
static ocl_kernel *kernel(const char *name, size_t *wg)
{
    static const char *const rows[] = { "attn_softmax", "attn_bwd_rows", NULL };
    static _Atomic size_t chosen;
    char opts[32];
    snprintf(opts, sizeof opts, "-DACC_DBL=%d", ocl_dev()->fp64);
    size_t w = atomic_load(&chosen);
    if (!w) {
        if (!ocl_kernel_wg(attn_src, opts, name, rows, WG_MAX, &w))
            return NULL;
        atomic_store(&chosen, w);
    }
    *wg = w;
    char all[64];
    snprintf(all, sizeof all, "%s -DWG=%zu", opts, w);
    return ocl_kernel_get(attn_src, all, name);
}

/* Sets args and enqueues `name` on s: `items` work-groups of the row
 * kernels' size (grouped), or `items` work items in ocl_launch_1d's
 * groups. */
static tfl_status launch(const char *name, const ocl_karg *args, int nargs, size_t items,
                         int grouped, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel(name, &wg);
    return ocl_launch(k, args, nargs, grouped ? items * wg : items, grouped ? wg : 0, s);
}

/* ------------------------------------------------------------ CLBlast */

/* A batch of row-major fp32 matrices: buffer, element offset, leading
 * dimension, batch stride. */
typedef struct view {
    cl_mem buf;
    size_t off, ld, stride;
} view;

/* x's heads from tile head t0 (its packed scratch holds the tile's
 * heads), from row r0. */
static view view_of(const mat *x, int64_t t0, int64_t r0)
{
    if (x->direct)
        return (view){ x->buf, x->off / 4 + (size_t)(t0 * x->ts + r0 * x->t->stride_m),
                       (size_t)x->t->stride_m, (size_t)x->ts };
    return (view){ x->pk, (size_t)(r0 * x->cols), (size_t)x->cols,
                   (size_t)(x->rows * x->cols) };
}

/* C = alpha op(A) op(B) + beta C for each of nb heads (m, n, k >= 1). */
static tfl_status gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha,
                       view A, view B, float beta, view C, int64_t nb, tfl_stream s)
{
    const CLBlastLayout L = CLBlastLayoutRowMajor;
    const CLBlastTranspose a = ta ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastTranspose b = tb ? CLBlastTransposeYes : CLBlastTransposeNo;
    cl_command_queue q = ocl_queue(s);
    cl_event ev = NULL;
    CLBlastStatusCode rc;
    if (nb == 1)
        rc = CLBlastSgemm(L, a, b, (size_t)m, (size_t)n, (size_t)k, alpha, A.buf, A.off, A.ld,
                          B.buf, B.off, B.ld, beta, C.buf, C.off, C.ld, &q, &ev);
    else
        rc = CLBlastSgemmStridedBatched(L, a, b, (size_t)m, (size_t)n, (size_t)k, alpha, A.buf,
                                        A.off, A.ld, A.stride, B.buf, B.off, B.ld, B.stride,
                                        beta, C.buf, C.off, C.ld, C.stride, (size_t)nb, &q,
                                        &ev);
    if (rc != CLBlastSuccess)
        return ocl_blast_status((int)rc, "attention: CLBlastSgemm");
    ocl_track(s, ev);
    return TFL_OK;
}

/* ------------------------------------------------------------ steps */

/* Packed x of heads t0 .. t0+nb-1 from (gather) or to (scatter) its
 * tensor. */
static tfl_status move(const plan *p, const mat *x, int64_t t0, int64_t nb, int to_tensor,
                       tfl_stream s)
{
    const tfl_attn_tensor *t = x->t;
    cl_long sb = t->stride_b, sh = t->stride_h, sm = t->stride_m, rows = x->rows,
            cols = x->cols, H = p->op->heads, hdiv = x->hdiv, h0 = t0,
            n = nb * x->rows * x->cols;
    cl_ulong off = x->off;
    cl_int dt = (cl_int)p->op->dtype;
    ocl_karg args[] = { OCL_KA(x->buf), OCL_KA(off), OCL_KA(sb), OCL_KA(sh), OCL_KA(sm),
                        OCL_KA(dt), OCL_KA(rows), OCL_KA(cols), OCL_KA(H), OCL_KA(hdiv),
                        OCL_KA(h0), OCL_KA(x->pk), OCL_KA(n) };
    return launch(to_tensor ? "attn_scatter" : "attn_gather", args, OCL_NARGS(args),
                  (size_t)n, 0, s);
}

/* The row kernels' common arguments (ROW_ARGS in the source). */
typedef struct rowctx {
    cl_long N, mb, M, H, t0, i0, coff, bsb, bsh, bsm, lsb, lsh;
    cl_int causal, has_bias, dt, drop;
    cl_ulong bo, lo, seed, doff, keep;
    cl_float dscale;
    cl_mem bias, lse;
} rowctx;

static rowctx row_ctx(const plan *p, int64_t t0, int64_t i0, int64_t mb)
{
    const tfl_attention_op *op = p->op;
    rowctx c = {
        .N = op->num_keys, .mb = mb, .M = op->num_queries, .H = op->heads, .t0 = t0,
        .i0 = i0, .coff = op->causal_offset, .causal = op->mask == TFL_ATTN_MASK_CAUSAL,
        .has_bias = op->bias.ptr != NULL, .dt = (cl_int)op->dtype, .bias = p->bias.buf,
        .bo = p->bias.off, .lse = p->lse.buf, .lo = p->lse.off,
        .drop = op->dropout_p > 0.0f, .seed = op->dropout_seed, .doff = op->dropout_offset,
    };
    if (c.has_bias) {
        c.bsb = op->bias.stride_b;
        c.bsh = op->bias.stride_h;
        c.bsm = op->bias.stride_m;
    }
    if (op->lse.ptr) {
        c.lsb = op->lse.stride_b;
        c.lsh = op->lse.stride_h;
    }
    if (c.drop) {
        /* the host's: kept iff the top 32 hash bits < (1 - p) 2^32 */
        c.keep = (cl_ulong)((1.0 - (double)op->dropout_p) * 4294967296.0);
        c.dscale = (float)(1.0 / (1.0 - (double)op->dropout_p));
    }
    return c;
}

#define ROW_KARGS(c) OCL_KA((c).N), OCL_KA((c).mb), OCL_KA((c).M), OCL_KA((c).H), \
    OCL_KA((c).t0), OCL_KA((c).i0), OCL_KA((c).causal), OCL_KA((c).coff), OCL_KA((c).bias), \
    OCL_KA((c).bo), OCL_KA((c).bsb), OCL_KA((c).bsh), OCL_KA((c).bsm), OCL_KA((c).has_bias), \
    OCL_KA((c).dt), OCL_KA((c).lse), OCL_KA((c).lo), OCL_KA((c).lsb), OCL_KA((c).lsh), \
    OCL_KA((c).drop), OCL_KA((c).seed), OCL_KA((c).doff), OCL_KA((c).keep), OCL_KA((c).dscale)

/* Softmax of the tile's score rows in place, lse and dropout. */
static tfl_status softmax_rows(const plan *p, cl_mem S, int64_t t0, int64_t nb, int64_t i0,
                               int64_t mb, tfl_stream s)
{
    rowctx c = row_ctx(p, t0, i0, mb);
    cl_int has_lse = p->op->lse.ptr != NULL;
    ocl_karg args[] = { OCL_KA(S), ROW_KARGS(c), OCL_KA(has_lse) };
    return launch("attn_softmax", args, OCL_NARGS(args), (size_t)(nb * mb), 1, s);
}

/* dS and the dropped P of the tile's rows in place; dbias. */
static tfl_status backward_rows(const plan *p, cl_mem S, cl_mem dP, int64_t t0, int64_t nb,
                                int64_t i0, int64_t mb, tfl_stream s)
{
    const tfl_attention_op *op = p->op;
    rowctx c = row_ctx(p, t0, i0, mb);
    const mat *o = &p->x[X_O], *g = &p->x[X_DO];
    cl_ulong oo = o->off, go = g->off, qo = p->gbias.off;
    cl_long osb = op->out.stride_b, osh = op->out.stride_h, osm = op->out.stride_m;
    cl_long gsb = op->grad_out.stride_b, gsh = op->grad_out.stride_h,
            gsm = op->grad_out.stride_m, dv = op->head_dim_value;
    cl_long qsb = 0, qsh = 0, qsm = 0;
    cl_int has_gb = op->grad_bias.ptr != NULL;
    if (has_gb) {
        qsb = op->grad_bias.stride_b;
        qsh = op->grad_bias.stride_h;
        qsm = op->grad_bias.stride_m;
    }
    ocl_karg args[] = { OCL_KA(S), OCL_KA(dP), ROW_KARGS(c), OCL_KA(o->buf), OCL_KA(oo),
                        OCL_KA(osb), OCL_KA(osh), OCL_KA(osm), OCL_KA(g->buf), OCL_KA(go),
                        OCL_KA(gsb), OCL_KA(gsh), OCL_KA(gsm), OCL_KA(dv), OCL_KA(p->gbias.buf),
                        OCL_KA(qo), OCL_KA(qsb), OCL_KA(qsh), OCL_KA(qsm), OCL_KA(has_gb) };
    return launch("attn_bwd_rows", args, OCL_NARGS(args), (size_t)(nb * mb), 1, s);
}

static tfl_status lse_pad(const plan *p, tfl_stream s)
{
    const tfl_attention_op *op = p->op;
    if (!op->lse.ptr || op->lse_padded_len <= op->num_queries)
        return TFL_OK;
    cl_long sb = op->lse.stride_b, sh = op->lse.stride_h, H = op->heads,
            M = op->num_queries, w = op->lse_padded_len - op->num_queries, n = p->T * w;
    cl_ulong off = p->lse.off;
    ocl_karg args[] = { OCL_KA(p->lse.buf), OCL_KA(off), OCL_KA(sb), OCL_KA(sh), OCL_KA(H),
                        OCL_KA(M), OCL_KA(w), OCL_KA(n) };
    return launch("attn_lse_pad", args, OCL_NARGS(args), (size_t)n, 0, s);
}

/* Forward of one tile: heads t0 .. t0+nb-1, rows i0 .. i0+mb-1. */
static tfl_status forward_tile(const plan *p, cl_mem S, int64_t t0, int64_t nb, int64_t i0,
                               int64_t mb, tfl_stream s)
{
    const tfl_attention_op *op = p->op;
    const int64_t N = op->num_keys;
    const mat *x = p->x;
    view sv = { S, 0, (size_t)N, (size_t)(mb * N) };
    tfl_status st = gemm(0, 1, mb, N, op->head_dim, op->scale, view_of(&x[X_Q], t0, i0),
                         view_of(&x[X_K], t0, 0), 0.0f, sv, nb, s);
    if (st == TFL_OK)
        st = softmax_rows(p, S, t0, nb, i0, mb, s);
    if (st == TFL_OK)
        st = gemm(0, 0, mb, op->head_dim_value, N, 1.0f, sv, view_of(&x[X_V], t0, 0), 0.0f,
                  view_of(&x[X_O], t0, i0), nb, s);
    return st;
}

/* Backward of one tile; dK and dV accumulate from the second row tile. */
static tfl_status backward_tile(const plan *p, cl_mem S, cl_mem dP, int64_t t0, int64_t nb,
                                int64_t i0, int64_t mb, tfl_stream s)
{
    const tfl_attention_op *op = p->op;
    const int64_t N = op->num_keys, d = op->head_dim, dv = op->head_dim_value;
    const mat *x = p->x;
    const float acc = i0 > 0 ? 1.0f : 0.0f;
    view sv = { S, 0, (size_t)N, (size_t)(mb * N) }, pv = { dP, 0, (size_t)N, (size_t)(mb * N) };
    view q = view_of(&x[X_Q], t0, i0), k = view_of(&x[X_K], t0, 0);
    view v = view_of(&x[X_V], t0, 0), go = view_of(&x[X_DO], t0, i0);
    tfl_status st = gemm(0, 1, mb, N, d, op->scale, q, k, 0.0f, sv, nb, s);
    if (st == TFL_OK)
        st = gemm(0, 1, mb, N, dv, 1.0f, go, v, 0.0f, pv, nb, s);
    if (st == TFL_OK)
        st = backward_rows(p, S, dP, t0, nb, i0, mb, s);
    if (st == TFL_OK)   /* dV += P^T dO */
        st = gemm(1, 0, N, dv, mb, 1.0f, sv, go, acc, view_of(&x[X_DV], t0, 0), nb, s);
    if (st == TFL_OK)   /* dQ = scale dS K */
        st = gemm(0, 0, mb, d, N, op->scale, pv, k, 0.0f, view_of(&x[X_DQ], t0, i0), nb, s);
    if (st == TFL_OK)   /* dK += scale dS^T Q */
        st = gemm(1, 0, N, d, mb, op->scale, pv, q, acc, view_of(&x[X_DK], t0, 0), nb, s);
    return st;
}

static tfl_status scratch(size_t floats, cl_mem *out)
{
    cl_int rc;
    *out = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE, floats * sizeof(float), NULL, &rc);
    return ocl_status(rc, "clCreateBuffer");
}

/* Every tile: gather its packed inputs, run it row tile by row tile,
 * scatter its packed outputs. */
static tfl_status run_tiles(plan *p, cl_mem S, cl_mem dP, tfl_stream s)
{
    const tfl_attention_op *op = p->op;
    const int64_t M = op->num_queries;
    tfl_status st = TFL_OK;
    for (int64_t t0 = 0; t0 < p->T && st == TFL_OK; t0 += p->chunk) {
        int64_t nb = p->T - t0 < p->chunk ? p->T - t0 : p->chunk;
        for (int i = 0; i < X_COUNT && st == TFL_OK; i++)
            if (p->x[i].use == U_IN && !p->x[i].direct)
                st = move(p, &p->x[i], t0, nb, 0, s);
        for (int64_t i0 = 0; i0 < M && st == TFL_OK; i0 += p->mblk) {
            int64_t mb = M - i0 < p->mblk ? M - i0 : p->mblk;
            st = op->backward ? backward_tile(p, S, dP, t0, nb, i0, mb, s)
                              : forward_tile(p, S, t0, nb, i0, mb, s);
        }
        for (int i = 0; i < X_COUNT && st == TFL_OK; i++)
            if (p->x[i].use == U_OUT && !p->x[i].direct)
                st = move(p, &p->x[i], t0, nb, 1, s);
    }
    return st;
}

tfl_status ocl_attention_run(const tfl_op *op, tfl_stream s)
{
    plan p;
    if (!op || op->kind != TFL_OP_ATTENTION || !ocl_dev())
        return TFL_ERR_INVALID;
    if (!make_plan(&op->u.attention, &p))
        return TFL_ERR_UNSUPPORTED;
    if (p.T == 0)
        return TFL_OK;
    const tfl_attention_op *a = &op->u.attention;
    const size_t tile_scores = (size_t)(p.chunk * p.mblk * a->num_keys);
    cl_mem S = NULL, dP = NULL;
    tfl_status st = scratch(tile_scores, &S);
    if (st == TFL_OK && a->backward)
        st = scratch(tile_scores, &dP);
    for (int i = 0; i < X_COUNT && st == TFL_OK; i++) {
        mat *x = &p.x[i];
        if ((x->use == U_IN || x->use == U_OUT) && !x->direct)
            st = scratch((size_t)(p.chunk * x->rows * x->cols), &x->pk);
    }
    if (st == TFL_OK)
        st = run_tiles(&p, S, dP, s);
    if (st == TFL_OK && !a->backward)
        st = lse_pad(&p, s);
    /* OpenCL frees them once the commands using them are done */
    if (S)
        clReleaseMemObject(S);
    if (dP)
        clReleaseMemObject(dP);
    for (int i = 0; i < X_COUNT; i++)
        if (p.x[i].pk)
            clReleaseMemObject(p.x[i].pk);
    return st;
}

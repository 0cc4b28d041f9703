/*
 * ocl_norm.c - TFL_OP_NORM (torchfl/ops/norm.h) on the OpenCL device:
 * layer norm and RMS norm over the last dimension, forward (statistics,
 * apply, both) and backward (input gradient, weight/bias partial sums),
 * for float32, float16 and bfloat16 storage.
 *
 * Semantics and precision are the host backend's (host/ops_norm.c):
 * values are widened to float; the row statistics and every reduction
 * accumulate in double when the device has cl_khr_fp64 (the host's
 * choice; in float otherwise); y is (x - mean) * rstd * g + b in float
 * with no fused multiply-add (the host builds with -ffp-contract=off);
 * results round once to nearest even, NaN quietened as the host does.
 *
 * Row reductions: one work-group per row, each work item summing a
 * strided slice, then a tree in local memory - a fixed order, so a row
 * gives the same bits every run.  The weight gradient runs one work item
 * per (partial row, column), adding its rows in ascending order as the
 * host does.
 */
#include "backends/opencl/ocl_src.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ kernels */

/* DT (0 f32, 2 f16, 3 bf16), WG (work-group size, a power of two) and
 * ACC_DBL come from the build options. */
static const char norm_src[] =
OCL_SRC_ACC
OCL_SRC_LOWP          /* NaN: sign and top payload bits, quietened */
OCL_SRC_DT
"static float ld(__global const st_t *p, long i) { return ocl_ldf(DT, p, i); }\n"
"static void st(__global st_t *p, long i, float v) { ocl_stf(DT, p, i, v); }\n"
"#define IN(b, o) ((__global const st_t *)((b) + (o)))\n"
"#define OUT(b, o) ((__global st_t *)((b) + (o)))\n"
"#define FIN(b, o) ((__global const float *)((b) + (o)))\n"
"#define FOUT(b, o) ((__global float *)((b) + (o)))\n"
OCL_SRC_WG_SUM
/* mode 1 stats + y, 2 stats only, 3 y from the given stats */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void norm_fwd(__global const char *xb, ulong xo, __global char *yb, ulong yo,\n"
"              __global const char *gb, ulong go, __global const char *bb, ulong bo,\n"
"              __global char *mb, ulong mo, __global char *rb, ulong ro,\n"
"              long n, acc_t eps, int mode, int rms, int has_g, int has_b) {\n"
"    __local acc_t sh[WG];\n"
"    long row = get_group_id(0);\n"
"    int l = get_local_id(0);\n"
"    __global const st_t *x = IN(xb, xo) + row * n;\n"
"    float mean, rstd;\n"
"    if (mode == 3) {\n"
"        mean = rms ? 0.0f : FIN(mb, mo)[row];\n"
"        rstd = FIN(rb, ro)[row];\n"
"    } else {\n"
"        acc_t m = 0;\n"
"        if (!rms && n) {\n"
"            acc_t a = 0;\n"
"            for (long j = l; j < n; j += WG) a += (acc_t)ld(x, j);\n"
"            m = ocl_wg_sum(a, sh) / (acc_t)n;\n"
"        }\n"
"        acc_t a = 0;\n"
"        for (long j = l; j < n; j += WG) { acc_t d = (acc_t)ld(x, j) - m; a += d * d; }\n"
"        acc_t v = ocl_wg_sum(a, sh);\n"
"        v = n ? v / (acc_t)n : 0;\n"
"        mean = (float)m;\n"
"        rstd = (float)((acc_t)1 / sqrt(v + (acc_t)eps));\n"
"        if (l == 0) {\n"
"            if (!rms) FOUT(mb, mo)[row] = mean;\n"
"            FOUT(rb, ro)[row] = rstd;\n"
"        }\n"
"        if (mode == 2) return;\n"
"    }\n"
"    __global const st_t *g = IN(gb, go), *b = IN(bb, bo);\n"
"    __global st_t *y = OUT(yb, yo) + row * n;\n"
"    for (long j = l; j < n; j += WG) {\n"
"        float v = (ld(x, j) - mean) * rstd;\n"
"        if (has_g) v = v * ld(g, j);\n"
"        if (has_b) v = v + ld(b, j);\n"
"        st(y, j, v);\n"
"    }\n"
"}\n"
/* dx = rstd/N * (N*g*dy - xhat*sum(g*dy*xhat) - sum(g*dy)), RMS without
 * the last sum */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void norm_bwd_in(__global const char *xb, ulong xo, __global const char *db, ulong dof,\n"
"                 __global char *ob, ulong oo, __global const char *gb, ulong go,\n"
"                 __global const char *mb, ulong mo, __global const char *rb, ulong ro,\n"
"                 long n, int rms, int has_g) {\n"
"    __local acc_t sh[WG];\n"
"    long row = get_group_id(0);\n"
"    int l = get_local_id(0);\n"
"    __global const st_t *x = IN(xb, xo) + row * n, *dy = IN(db, dof) + row * n;\n"
"    __global const st_t *g = IN(gb, go);\n"
"    acc_t mean = rms ? 0 : (acc_t)FIN(mb, mo)[row], rstd = (acc_t)FIN(rb, ro)[row];\n"
"    acc_t a1 = 0, a2 = 0;\n"
"    for (long j = l; j < n; j += WG) {\n"
"        acc_t gd = (acc_t)ld(dy, j) * (has_g ? (acc_t)ld(g, j) : (acc_t)1);\n"
"        a1 += gd;\n"
"        a2 += gd * (((acc_t)ld(x, j) - mean) * rstd);\n"
"    }\n"
"    acc_t s1 = ocl_wg_sum(a1, sh), s2 = ocl_wg_sum(a2, sh);\n"
"    if (rms) s1 = 0;\n"
"    acc_t fn = (acc_t)n, scale = rstd / fn;\n"
"    __global st_t *dx = OUT(ob, oo) + row * n;\n"
"    for (long j = l; j < n; j += WG) {\n"
"        acc_t xh = ((acc_t)ld(x, j) - mean) * rstd;\n"
"        acc_t gd = (acc_t)ld(dy, j) * (has_g ? (acc_t)ld(g, j) : (acc_t)1);\n"
"        st(dx, j, (float)(scale * (fn * gd - xh * s2 - s1)));\n"
"    }\n"
"}\n"
/* partial row p, column j: its input rows in ascending order */
"__kernel void norm_bwd_par(__global const char *xb, ulong xo, __global const char *db,\n"
"                           ulong dof, __global const char *mb, ulong mo,\n"
"                           __global const char *rb, ulong ro, __global char *gb, ulong go,\n"
"                           __global char *bb, ulong bo, long M, long n, long tr,\n"
"                           long tiles, long parts, int rms, int has_dg, int has_db) {\n"
"    long id = get_global_id(0);\n"
"    if (id >= tiles * parts * n) return;\n"
"    long p = id / n, j = id % n, rpp = tr / parts;\n"
"    long first = (p / parts) * tr + (p % parts) * rpp;\n"
"    __global const st_t *x = IN(xb, xo), *dy = IN(db, dof);\n"
"    acc_t ag = 0, ab = 0;\n"
"    for (long m0 = first; m0 < M; m0 += tiles * tr)\n"
"        for (long m = m0; m < m0 + rpp && m < M; m++) {\n"
"            acc_t d = (acc_t)ld(dy, m * n + j);\n"
"            if (has_dg) {\n"
"                acc_t mean = rms ? 0 : (acc_t)FIN(mb, mo)[m];\n"
"                ag += d * (((acc_t)ld(x, m * n + j) - mean) * (acc_t)FIN(rb, ro)[m]);\n"
"            }\n"
"            ab += d;\n"
"        }\n"
"    if (has_dg) st(OUT(gb, go), id, (float)ag);\n"
"    if (has_db) st(OUT(bb, bo), id, (float)ab);\n"
"}\n";

/* ------------------------------------------------------------ planning */

/* p with n bytes (aligned to align) -> a; an absent operand (p NULL or
 * nothing touched) is a NULL buffer the kernel never reads. */
static int resolve(const void *p, size_t n, size_t align, ocl_arg *a)
{
    return ocl_arg_range(p, n, align, 1, a);
}

enum { A_X, A_Y, A_G, A_B, A_DY, A_DX, A_MEAN, A_RSTD, A_DG, A_DB, A_COUNT };

typedef struct norm_plan {
    ocl_arg a[A_COUNT];
    int has_g, has_b, has_dg, has_db;
} norm_plan;

static int dt_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* Whether the bwd-params tiling is the host's valid one. */
static int tiles_ok(const tfl_norm_op *n)
{
    return n->tile_count >= 1 && n->tile_parts >= 1 && n->tile_rows >= n->tile_parts &&
           n->tile_rows % n->tile_parts == 0 &&
           n->tile_count <= INT64_MAX / n->tile_parts &&
           n->tile_count * n->tile_parts <= INT64_MAX / 8 / (n->cols ? n->cols : 1);
}

/* Resolves what kind n reads and writes; 0 when an operand it needs is
 * missing or outside device memory. */
static int plan(const tfl_norm_op *n, norm_plan *p)
{
    memset(p, 0, sizeof *p);
    const size_t es = tfl_dtype_size(n->dtype);
    int64_t elems;
    if (n->rows < 0 || n->cols < 0 || __builtin_mul_overflow(n->rows, n->cols, &elems) ||
        elems > INT64_MAX / 8)
        return 0;
    const size_t mat = (size_t)elems * es, vec = (size_t)n->cols * es,
                 stat = (size_t)n->rows * sizeof(float);
    const int fwd = n->kind != TFL_NORM_BWD_INPUT && n->kind != TFL_NORM_BWD_PARAMS;
    const int applies = n->kind == TFL_NORM_FWD || n->kind == TFL_NORM_FWD_APPLY;
    int ok = (n->x || !mat) && (n->rstd || !stat) && (n->rms || n->mean || !stat);
    ok = ok && resolve(n->x, mat, es, &p->a[A_X]) && resolve(n->rstd, stat, 4, &p->a[A_RSTD]) &&
         (n->rms || resolve(n->mean, stat, 4, &p->a[A_MEAN]));
    if (!ok)
        return 0;
    if (fwd) {
        p->has_g = applies && n->gamma;
        p->has_b = applies && n->beta && !n->rms;
        return (!applies || n->y || !mat) &&
               (!applies || resolve(n->y, mat, es, &p->a[A_Y])) &&
               resolve(p->has_g ? n->gamma : NULL, vec, es, &p->a[A_G]) &&
               resolve(p->has_b ? n->beta : NULL, vec, es, &p->a[A_B]);
    }
    ok = (n->dy || !mat) && resolve(n->dy, mat, es, &p->a[A_DY]);
    if (n->kind == TFL_NORM_BWD_INPUT) {
        p->has_g = n->gamma != NULL;
        return ok && (n->dx || !mat) && resolve(n->dx, mat, es, &p->a[A_DX]) &&
               resolve(n->gamma, vec, es, &p->a[A_G]);
    }
    if (!ok || !tiles_ok(n))
        return 0;
    const size_t part = (size_t)(n->tile_count * n->tile_parts) * vec;
    p->has_dg = n->dgamma != NULL;
    p->has_db = n->dbeta && !n->rms;
    return resolve(n->dgamma, part, es, &p->a[A_DG]) &&
           resolve(p->has_db ? n->dbeta : NULL, part, es, &p->a[A_DB]);
}

int ocl_norm_supported(const tfl_op *op)
{
    if (!ocl_dev() || op->kind != TFL_OP_NORM)
        return 0;
    const tfl_norm_op *n = &op->u.norm;
    norm_plan p;
    return dt_ok(n->dtype) && n->kind >= TFL_NORM_FWD && n->kind <= TFL_NORM_BWD_PARAMS &&
           plan(n, &p);
}

/* ------------------------------------------------------------ running */

/* Kernel `name` for dtype dt with the largest work-group size (a power of
 * two up to 256) the device allows for it; *wg receives it. */
static ocl_kernel *kernel_for(const char *name, tfl_dtype dt, size_t *wg)
{
    char opts[64];
    snprintf(opts, sizeof opts, "-DDT=%d -DACC_DBL=%d", (int)dt, ocl_dev()->fp64);
    return ocl_kernel_wg(norm_src, opts, name, NULL, 256, wg);
}

static tfl_status run_fwd(const tfl_norm_op *n, const norm_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for("norm_fwd", n->dtype, &wg);
    cl_long cols = n->cols;
    /* eps in the kernel's accumulate type */
    cl_double eps_d = n->eps;
    cl_float eps_f = (cl_float)n->eps;
    ocl_karg eps = ocl_dev()->fp64 ? (ocl_karg)OCL_KA(eps_d) : (ocl_karg)OCL_KA(eps_f);
    cl_int mode = n->kind == TFL_NORM_FWD ? 1 : n->kind == TFL_NORM_FWD_STATS ? 2 : 3;
    cl_int rms = n->rms != 0, hg = p->has_g, hb = p->has_b;
    const ocl_arg *a = p->a;
    ocl_karg args[] = { OCL_KB(a[A_X]), OCL_KB(a[A_Y]), OCL_KB(a[A_G]), OCL_KB(a[A_B]),
                        OCL_KB(a[A_MEAN]), OCL_KB(a[A_RSTD]), OCL_KA(cols), eps, OCL_KA(mode),
                        OCL_KA(rms), OCL_KA(hg), OCL_KA(hb) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)n->rows * wg, wg, s);
}

static tfl_status run_bwd_in(const tfl_norm_op *n, const norm_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for("norm_bwd_in", n->dtype, &wg);
    cl_long cols = n->cols;
    cl_int rms = n->rms != 0, hg = p->has_g;
    const ocl_arg *a = p->a;
    ocl_karg args[] = { OCL_KB(a[A_X]), OCL_KB(a[A_DY]), OCL_KB(a[A_DX]), OCL_KB(a[A_G]),
                        OCL_KB(a[A_MEAN]), OCL_KB(a[A_RSTD]), OCL_KA(cols), OCL_KA(rms),
                        OCL_KA(hg) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)n->rows * wg, wg, s);
}

static tfl_status run_bwd_par(const tfl_norm_op *n, const norm_plan *p, tfl_stream s)
{
    if (!p->has_dg && !p->has_db)
        return TFL_OK;
    size_t wg = 0;
    ocl_kernel *k = kernel_for("norm_bwd_par", n->dtype, &wg);
    cl_long M = n->rows, cols = n->cols, tr = n->tile_rows, tiles = n->tile_count,
            parts = n->tile_parts;
    cl_int rms = n->rms != 0, hdg = p->has_dg, hdb = p->has_db;
    const ocl_arg *a = p->a;
    ocl_karg args[] = { OCL_KB(a[A_X]), OCL_KB(a[A_DY]), OCL_KB(a[A_MEAN]), OCL_KB(a[A_RSTD]),
                        OCL_KB(a[A_DG]), OCL_KB(a[A_DB]), OCL_KA(M), OCL_KA(cols), OCL_KA(tr),
                        OCL_KA(tiles), OCL_KA(parts), OCL_KA(rms), OCL_KA(hdg), OCL_KA(hdb) };
    /* every partial row is written, including those no input row reaches */
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)(tiles * parts * cols), 0, s);
}

tfl_status ocl_norm_run(const tfl_op *op, tfl_stream s)
{
    if (!ocl_norm_supported(op))
        return TFL_ERR_UNSUPPORTED;
    const tfl_norm_op *n = &op->u.norm;
    norm_plan p;
    plan(n, &p);
    switch (n->kind) {
    case TFL_NORM_BWD_INPUT:
        return n->rows ? run_bwd_in(n, &p, s) : TFL_OK;
    case TFL_NORM_BWD_PARAMS:
        return run_bwd_par(n, &p, s);
    default:
        return n->rows ? run_fwd(n, &p, s) : TFL_OK;
    }
}

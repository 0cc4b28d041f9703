/*
 * test_ocl_norm.c - TFL_OP_NORM on the OpenCL backend (ocl_norm.c)
 * against the host backend on the same inputs.
 *
 * Covers: layer norm and RMS norm; forward with and without gamma/beta,
 * statistics only, apply from given statistics; the input gradient with
 * and without gamma; the weight/bias partial sums in the full-sum layout
 * and a tiled one (partial rows no input row reaches are written too);
 * one row, odd widths, 768 and 4096 wide rows, many rows, zero rows and
 * zero columns; float32, float16 and bfloat16.  Whole output buffers are
 * compared: fp32 within 1e-5 relative, half/bfloat16 within one unit in
 * the last place (the float value may sit on a rounding boundary).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

#define CHECK OCL_H_CHECK

static uint32_t rng = 2463534242u;

static int cases_run;

/* n elements agree: |got - want| <= tol * (|want| + floor), floor a
 * small fraction of the largest magnitude (the input gradient cancels). */
static void compare(const char *what, tfl_dtype t, const void *want, const void *got,
                    int64_t n)
{
    double mx = 0;
    for (int64_t i = 0; i < n; i++)
        mx = fmax(mx, fabs(ocl_h_ld(t, want, i)));
    ocl_h_compare(what, t, want, got, n, ocl_h_tol(t), 1e-3 * mx, 0);
}

/* A host operand of n random elements in [lo, hi) and its device twin. */
static ocl_h_buf mk(size_t bytes, tfl_dtype t, int64_t n, double lo, double hi)
{
    ocl_h_buf b = ocl_h_buf_new(bytes);
    for (int64_t i = 0; i < n; i++)
        ocl_h_st(t, b.h, i, ocl_h_urand32(&rng, lo, hi));
    ocl_h_buf_up(&b);
    return b;
}

/* Every operand of one case; the op is built twice, over host pointers
 * and over device pointers. */
typedef struct ncase {
    const char *name;
    tfl_norm_kind kind;
    tfl_dtype dt;
    int rms, has_g, has_b;
    int64_t rows, cols;
    int64_t tile_rows, tile_count, tile_parts;   /* 0: the full sum */
} ncase;

enum { X, Y, G, B, DY, DX, MEAN, RSTD, DG, DB, NBUF };

static void fill_op(tfl_op *op, const ncase *c, ocl_h_buf *b, int dev)
{
    *op = ocl_h_op(TFL_OP_NORM);
    tfl_norm_op *n = &op->u.norm;
#define P(i) ocl_h_at(&b[i], dev)
    n->kind = c->kind;
    n->dtype = c->dt;
    n->rms = c->rms;
    n->rows = c->rows;
    n->cols = c->cols;
    n->eps = 1e-5;
    n->x = P(X);
    n->y = P(Y);
    n->gamma = c->has_g ? P(G) : NULL;
    n->beta = c->has_b ? P(B) : NULL;
    n->dy = P(DY);
    n->dx = P(DX);
    n->mean = c->rms ? NULL : (float *)P(MEAN);
    n->rstd = P(RSTD);
    n->dgamma = c->has_g ? P(DG) : NULL;
    n->dbeta = c->has_b ? P(DB) : NULL;
    n->tile_rows = c->tile_rows ? c->tile_rows : (c->rows ? c->rows : 1);
    n->tile_count = c->tile_count ? c->tile_count : 1;
    n->tile_parts = c->tile_parts ? c->tile_parts : 1;
#undef P
}


static void run_case(const ncase *c)
{
    const size_t es = tfl_dtype_size(c->dt);
    const int64_t M = c->rows, N = c->cols, mn = M * N;
    const int64_t nparts = (c->tile_count ? c->tile_count : 1) * (c->tile_parts ? c->tile_parts : 1);
    ocl_h_buf b[NBUF];
    b[X] = mk((size_t)mn * es, c->dt, mn, 1.0, 3.0);   /* an offset: the mean matters */
    b[Y] = mk((size_t)mn * es, c->dt, mn, -9, 9);      /* garbage to be overwritten */
    b[G] = mk((size_t)N * es, c->dt, N, -1.5, 1.5);
    b[B] = mk((size_t)N * es, c->dt, N, -1, 1);
    b[DY] = mk((size_t)mn * es, c->dt, mn, -1, 1);
    b[DX] = mk((size_t)mn * es, c->dt, mn, -9, 9);
    /* statistics the apply/backward kinds read: from the host forward */
    b[MEAN] = mk((size_t)M * 4, TFL_DT_F32, M, -9, 9);
    b[RSTD] = mk((size_t)M * 4, TFL_DT_F32, M, -9, 9);
    b[DG] = mk((size_t)(nparts * N) * es, c->dt, nparts * N, -9, 9);
    b[DB] = mk((size_t)(nparts * N) * es, c->dt, nparts * N, -9, 9);
    tfl_op op;
    if (c->kind != TFL_NORM_FWD && c->kind != TFL_NORM_FWD_STATS) {
        ncase st = *c;
        st.kind = TFL_NORM_FWD_STATS;
        fill_op(&op, &st, b, 0);
        CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
        ocl_h_buf_up(&b[MEAN]);
        ocl_h_buf_up(&b[RSTD]);
    }
    fill_op(&op, c, b, 1);
    tfl_status os = ocl_h_run(&op);
    if (os != TFL_OK)
        fprintf(stderr, "%s: opencl status %d\n", c->name, (int)os);
    CHECK(os == TFL_OK);
    fill_op(&op, c, b, 0);
    CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
    static const struct { int i; tfl_dtype stat; const char *what; } outs[] = {
        { Y, 0, "y" }, { DX, 0, "dx" }, { MEAN, 1, "mean" }, { RSTD, 1, "rstd" },
        { DG, 0, "dgamma" }, { DB, 0, "dbeta" },
    };
    char what[160];
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        ocl_h_buf *o = &b[outs[k].i];
        void *got = ocl_h_buf_down(o);
        tfl_dtype t = outs[k].stat ? TFL_DT_F32 : c->dt;
        snprintf(what, sizeof what, "%s %s", c->name, outs[k].what);
        compare(what, t, o->h, got, (int64_t)(o->bytes / tfl_dtype_size(t)));
        free(got);
    }
    for (int i = 0; i < NBUF; i++)
        ocl_h_buf_drop(&b[i]);
    cases_run++;
}

/* Every kind over one shape and dtype, layer and RMS norm. */
static void shape_cases(tfl_dtype dt, int64_t M, int64_t N)
{
    static const struct { tfl_norm_kind kind; int g, b; const char *name; } forms[] = {
        { TFL_NORM_FWD, 1, 1, "fwd" },
        { TFL_NORM_FWD, 0, 0, "fwd-plain" },
        { TFL_NORM_FWD, 1, 0, "fwd-g" },
        { TFL_NORM_FWD_STATS, 0, 0, "stats" },
        { TFL_NORM_FWD_APPLY, 1, 1, "apply" },
        { TFL_NORM_FWD_APPLY, 0, 1, "apply-b" },
        { TFL_NORM_BWD_INPUT, 1, 0, "bwd-in" },
        { TFL_NORM_BWD_INPUT, 0, 0, "bwd-in-plain" },
        { TFL_NORM_BWD_PARAMS, 1, 1, "bwd-par" },
        { TFL_NORM_BWD_PARAMS, 0, 1, "bwd-par-b" },
    };
    for (int rms = 0; rms < 2; rms++)
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            char name[128];
            snprintf(name, sizeof name, "%s %s%s %lldx%lld", ocl_h_dt_name(dt), rms ? "rms " : "",
                     forms[f].name, (long long)M, (long long)N);
            ncase c = { name, forms[f].kind, dt, rms, forms[f].g, forms[f].b, M, N, 0, 0, 0 };
            run_case(&c);
        }
}

static void tiled_cases(void)
{
    /* rows 0..M-1 into tiles of 8 rows, 3 tiles, 4 parts each: 12
     * partial rows; with 20 rows the last tile's parts get nothing */
    static const int64_t shapes[][5] = {
        { 50, 33, 8, 3, 4 }, { 20, 768, 8, 3, 4 }, { 7, 5, 2, 2, 2 }, { 0, 9, 4, 2, 2 },
        { 96, 64, 32, 1, 4 },
    };
    const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };
    for (size_t d = 0; d < 3; d++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int rms = 0; rms < 2; rms++) {
                char name[128];
                snprintf(name, sizeof name, "%s %stiled %lldx%lld", ocl_h_dt_name(dts[d]),
                         rms ? "rms " : "", (long long)shapes[s][0], (long long)shapes[s][1]);
                ncase c = { name, TFL_NORM_BWD_PARAMS, dts[d], rms, 1, 1, shapes[s][0],
                            shapes[s][1], shapes[s][2], shapes[s][3], shapes[s][4] };
                run_case(&c);
            }
}

/* What the backend must refuse: the host answers those. */
static void refused(void)
{
    float dummy[4];
    tfl_op op = ocl_h_op(TFL_OP_NORM);
    op.u.norm.kind = TFL_NORM_FWD;
    op.u.norm.dtype = TFL_DT_F32;
    op.u.norm.rows = 1;
    op.u.norm.cols = 4;
    op.u.norm.x = dummy;            /* host memory: not a device address */
    op.u.norm.y = dummy;
    op.u.norm.rstd = dummy;
    op.u.norm.mean = dummy;
    CHECK(!ocl_h->op_supported(&op));
    void *d = ocl_h_alloc(64);
    op.u.norm.x = op.u.norm.y = d;
    op.u.norm.mean = op.u.norm.rstd = d;
    CHECK(ocl_h->op_supported(&op));
    op.u.norm.dtype = TFL_DT_F64;   /* not a norm dtype */
    CHECK(!ocl_h->op_supported(&op));
    op.u.norm.dtype = TFL_DT_F32;
    op.u.norm.kind = TFL_NORM_BWD_PARAMS;
    op.u.norm.dy = d;
    op.u.norm.dgamma = d;
    op.u.norm.tile_rows = 3;        /* not a multiple of tile_parts */
    op.u.norm.tile_count = 1;
    op.u.norm.tile_parts = 2;
    CHECK(!ocl_h->op_supported(&op));
    ocl_h_free(d, 64);
}

int main(void)
{
    ocl_h_init();
    static const int64_t shapes[][2] = {
        { 1, 1 }, { 1, 7 }, { 3, 33 }, { 4, 768 }, { 2, 4096 }, { 257, 65 }, { 0, 5 }, { 3, 0 },
        { 2, 1000 },
    };
    const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };
    for (size_t d = 0; d < 3; d++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            shape_cases(dts[d], shapes[s][0], shapes[s][1]);
    tiled_cases();
    refused();
    printf("%d cases, %lld of %lld elements not bit-identical to the host's\n", cases_run,
           (long long)ocl_h_inexact, (long long)ocl_h_compared);
    return ocl_h_finish("test_ocl_norm");
}

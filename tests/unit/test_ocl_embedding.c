/*
 * test_ocl_embedding.c - TFL_OP_EMBEDDING on the OpenCL backend
 * (ocl_embedding.c) against the host backend on the same inputs.
 *
 * Covers: the dense backward (float32, float16, bfloat16; int32 and
 * int64 indices) with many duplicate indices (a handful of rows), every
 * row distinct, padding_idx set and unset (an index -1 equal to
 * padding_idx -1 is skipped, as the host does), one index, odd and 768
 * wide rows, empty rows, n large enough for the sort's global steps,
 * accumulation into a non-zero grad_weight; max_norm's index wrap
 * (refused: the host's check names the bad index) and renorm (p = 1, 2, 3; strided and transposed weights;
 * num_unique below n; float64 too).  The backward must be bit-identical
 * to the host's (same additions in the same order); renorm within 1e-6
 * relative (float pow), half/bfloat16 one unit in the last place.  Last
 * (the fault is sticky, as on a GPU): an index outside the weight makes
 * the stream report TFL_ERR_DEVICE.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

#define CHECK OCL_H_CHECK

static uint32_t rng = 2463534242u;

static uint32_t next(void)
{
    return ocl_h_xs32(&rng);
}

static double urand(double lo, double hi)
{
    return ocl_h_urand32(&rng, lo, hi);
}

static void put_index(tfl_dtype it, void *p, int64_t i, int64_t v)
{
    if (it == TFL_DT_I64)
        ((int64_t *)p)[i] = v;
    else
        ((int32_t *)p)[i] = (int32_t)v;
}

static int cases_run;

/* ------------------------------------------------------------ backward */

static void bwd_case(tfl_dtype dt, tfl_dtype it, int64_t n, int64_t L, int64_t rows,
                     int64_t pad, int minus_ones)
{
    char name[160];
    snprintf(name, sizeof name, "bwd %s/%s n=%lld L=%lld rows=%lld pad=%lld%s", ocl_h_dt_name(dt),
             it == TFL_DT_I64 ? "i64" : "i32", (long long)n, (long long)L, (long long)rows,
             (long long)pad, minus_ones ? " with -1s" : "");
    const size_t es = tfl_dtype_size(dt), is = tfl_dtype_size(it);
    ocl_h_buf idx = ocl_h_buf_new((size_t)n * is), grad = ocl_h_buf_new((size_t)(n * L) * es);
    ocl_h_buf gw = ocl_h_buf_new((size_t)(rows * L) * es);
    for (int64_t i = 0; i < n; i++) {
        int64_t r = (int64_t)(next() % (uint32_t)rows);
        if (minus_ones && next() % 5 == 0)
            r = -1;
        put_index(it, idx.h, i, r);
    }
    for (int64_t i = 0; i < n * L; i++)
        ocl_h_st(dt, grad.h, i, urand(-1, 1));
    for (int64_t i = 0; i < rows * L; i++)
        ocl_h_st(dt, gw.h, i, urand(-4, 4));
    ocl_h_buf_up(&idx);
    ocl_h_buf_up(&grad);
    ocl_h_buf_up(&gw);
    tfl_op op = ocl_h_op(TFL_OP_EMBEDDING);
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_BWD_DENSE;
    e->dtype = dt;
    e->index_dtype = it;
    e->n = n;
    e->row_len = L;
    e->weight_rows = rows;
    e->padding_idx = pad;
    e->indices = idx.d;
    e->grad = grad.d;
    e->grad_weight = gw.d;
    tfl_status os = ocl_h_run(&op);
    if (os != TFL_OK)
        fprintf(stderr, "%s: opencl status %d\n", name, (int)os);
    CHECK(os == TFL_OK);
    e->indices = idx.h;
    e->grad = grad.h;
    e->grad_weight = gw.h;
    CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
    void *got = ocl_h_buf_down(&gw);
    ocl_h_compare(name, dt, gw.h, got, rows * L, 0, 0, 0);     /* the same bytes */
    free(got);
    ocl_h_buf_drop(&idx);
    ocl_h_buf_drop(&grad);
    ocl_h_buf_drop(&gw);
    cases_run++;
}

static void bwd_cases(void)
{
    const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < 2; i++) {
            tfl_dtype it = i ? TFL_DT_I64 : TFL_DT_I32;
            bwd_case(dts[d], it, 1, 7, 3, -1, 0);
            bwd_case(dts[d], it, 7, 3, 5, -1, 0);
            bwd_case(dts[d], it, 100, 33, 4, 2, 0);         /* duplicates, padding */
            bwd_case(dts[d], it, 513, 768, 30, -1, 0);
            bwd_case(dts[d], it, 3000, 64, 1000, 7, 0);
            bwd_case(dts[d], it, 200, 5, 100000, -1, 0);    /* mostly distinct */
            bwd_case(dts[d], it, 50, 9, 6, -1, 1);          /* -1 == padding_idx */
            bwd_case(dts[d], it, 9, 0, 6, -1, 0);           /* empty rows */
        }
    bwd_case(TFL_DT_F32, TFL_DT_I64, 70000, 3, 50, -1, 0);  /* global sort steps */
    bwd_case(TFL_DT_BF16, TFL_DT_I32, 4097, 17, 3, 1, 0);
}

/* ------------------------------------------------------------ wrap */

static void wrap_case(tfl_dtype it, int64_t n, int64_t rows, int in_place)
{
    char name[120];
    snprintf(name, sizeof name, "wrap %s n=%lld rows=%lld%s", it == TFL_DT_I64 ? "i64" : "i32",
             (long long)n, (long long)rows, in_place ? " in place" : "");
    const size_t is = tfl_dtype_size(it);
    ocl_h_buf idx = ocl_h_buf_new((size_t)n * is), out = ocl_h_buf_new((size_t)n * is);
    for (int64_t i = 0; i < n; i++)
        put_index(it, idx.h, i, (int64_t)(next() % (uint32_t)(2 * rows)) - rows);
    memset(out.h, 0x5a, out.bytes);
    ocl_h_buf_up(&idx);
    ocl_h_buf_up(&out);
    tfl_op op = ocl_h_op(TFL_OP_EMBEDDING);
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_WRAP_INDICES;
    e->index_dtype = it;
    e->n = n;
    e->weight_rows = rows;
    e->indices = idx.d;
    e->wrapped = in_place ? idx.d : out.d;
    /* refused: the host checks them, naming a bad index in its error */
    CHECK(!ocl_h->op_supported(&op));
    ocl_h_buf_drop(&idx);
    ocl_h_buf_drop(&out);
    cases_run++;
}

/* ------------------------------------------------------------ renorm */

static void renorm_case(tfl_dtype dt, tfl_dtype it, int64_t rows, int64_t F, int64_t n,
                        int64_t nu, double p, int transposed)
{
    char name[160];
    snprintf(name, sizeof name, "renorm %s/%s rows=%lld F=%lld n=%lld unique=%lld p=%g%s",
             ocl_h_dt_name(dt), it == TFL_DT_I64 ? "i64" : "i32", (long long)rows, (long long)F,
             (long long)n, (long long)nu, p, transposed ? " transposed" : "");
    const size_t es = tfl_dtype_size(dt), is = tfl_dtype_size(it);
    const int64_t ws0 = transposed ? 1 : F + 3, ws1 = transposed ? rows : 1;
    const int64_t elems = transposed ? rows * F : rows * (F + 3);
    ocl_h_buf w = ocl_h_buf_new((size_t)elems * es), idx = ocl_h_buf_new((size_t)n * is);
    ocl_h_buf cnt = ocl_h_buf_new(8);
    for (int64_t i = 0; i < elems; i++)
        ocl_h_st(dt, w.h, i, urand(-1.5, 1.5));
    /* distinct rows: a stride through a prime-sized permutation */
    for (int64_t i = 0; i < n; i++)
        put_index(it, idx.h, i, (i * 7 + 3) % rows);
    memcpy(cnt.h, &nu, 8);
    ocl_h_buf_up(&w);
    ocl_h_buf_up(&idx);
    ocl_h_buf_up(&cnt);
    tfl_op op = ocl_h_op(TFL_OP_EMBEDDING);
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_RENORM;
    e->dtype = dt;
    e->index_dtype = it;
    e->n = n;
    e->weight_rows = rows;
    e->indices = idx.d;
    e->renorm.weight = w.d;
    e->renorm.ws0 = ws0;
    e->renorm.ws1 = ws1;
    e->renorm.features = F;
    /* about half the rows exceed it */
    e->renorm.max_norm = p == 1 ? 0.75 * F : p == 2 ? 0.87 * sqrt((double)F)
                                                    : 0.9 * pow((double)F, 1 / p);
    e->renorm.norm_type = p;
    e->renorm.num_unique = cnt.d;
    tfl_status os = ocl_h_run(&op);
    if (os != TFL_OK)
        fprintf(stderr, "%s: opencl status %d\n", name, (int)os);
    CHECK(os == TFL_OK);
    e->indices = idx.h;
    e->renorm.weight = w.h;
    e->renorm.num_unique = cnt.h;
    CHECK(tfl_host_backend.op_run(&op, NULL) == TFL_OK);
    void *got = ocl_h_buf_down(&w);
    double tol = dt == TFL_DT_F16 ? 1e-3 : dt == TFL_DT_BF16 ? 8e-3 : dt == TFL_DT_F64 ? 1e-13 : 1e-6;
    ocl_h_compare(name, dt, w.h, got, elems, tol, 0, 0);
    free(got);
    ocl_h_buf_drop(&w);
    ocl_h_buf_drop(&idx);
    ocl_h_buf_drop(&cnt);
    cases_run++;
}

static void renorm_cases(void)
{
    const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F64, TFL_DT_F16, TFL_DT_BF16 };
    const double ps[] = { 1, 2, 3 };
    for (int d = 0; d < 4; d++)
        for (int k = 0; k < 3; k++) {
            renorm_case(dts[d], TFL_DT_I64, 101, 16, 60, 60, ps[k], 0);
            renorm_case(dts[d], TFL_DT_I32, 101, 33, 80, 40, ps[k], 1);
            renorm_case(dts[d], TFL_DT_I64, 1009, 768, 500, 900, ps[k], 0);
        }
}

/* ------------------------------------------------------------ the rest */

static void refused(void)
{
    tfl_op op = ocl_h_op(TFL_OP_EMBEDDING);
    tfl_embedding_op *e = &op.u.embedding;
    void *d = ocl_h_alloc(4096);
    e->kind = TFL_EMBEDDING_BWD_DENSE;
    e->dtype = TFL_DT_F32;
    e->index_dtype = TFL_DT_I64;
    e->n = 4;
    e->row_len = 4;
    e->weight_rows = 4;
    e->indices = e->grad = e->grad_weight = d;
    CHECK(ocl_h->op_supported(&op));
    e->dtype = TFL_DT_F64;                 /* not a backward dtype */
    CHECK(!ocl_h->op_supported(&op));
    e->dtype = TFL_DT_F32;
    e->index_dtype = TFL_DT_U8;
    CHECK(!ocl_h->op_supported(&op));
    e->index_dtype = TFL_DT_I64;
    float host_grad[16];
    e->grad = host_grad;                   /* not device memory */
    CHECK(!ocl_h->op_supported(&op));
    e->grad = d;
    e->kind = TFL_EMBEDDING_BAG_FWD;       /* the host's */
    CHECK(!ocl_h->op_supported(&op));
    ocl_h_free(d, 4096);
}

/* Last: an index outside the weight is a device fault, sticky as on a GPU. */
static void bad_index(void)
{
    int64_t idx[3] = { 0, 5, 1 };
    float g[6] = { 1, 2, 3, 4, 5, 6 };
    void *di = ocl_h_dev(idx, sizeof idx), *dg = ocl_h_dev(g, sizeof g), *dw = ocl_h_alloc(64);
    tfl_op op = ocl_h_op(TFL_OP_EMBEDDING);
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_BWD_DENSE;
    e->dtype = TFL_DT_F32;
    e->index_dtype = TFL_DT_I64;
    e->n = 3;
    e->row_len = 2;
    e->weight_rows = 4;
    e->padding_idx = -1;
    e->indices = di;
    e->grad = dg;
    e->grad_weight = dw;
    CHECK(ocl_h_run(&op) == TFL_ERR_DEVICE);
}

int main(void)
{
    ocl_h_init();
    bwd_cases();
    for (int i = 0; i < 2; i++) {
        tfl_dtype it = i ? TFL_DT_I64 : TFL_DT_I32;
        wrap_case(it, 1, 5, 0);
        wrap_case(it, 1000, 37, 0);
        wrap_case(it, 777, 100000, 1);
    }
    renorm_cases();
    refused();
    printf("%d cases\n", cases_run);
    bad_index();
    return ocl_h_finish("test_ocl_embedding");
}

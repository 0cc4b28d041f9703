/*
 * test_ocl_gemm.c - TFL_OP_GEMM on the OpenCL backend (ocl_gemm.c) against
 * the host backend's host_gemm on the same inputs.
 *
 * Covers: every transpose pair (2 = conjugate = transpose for reals), odd
 * and larger sizes, padded leading dimensions, strided batches (also a
 * stride-0 shared operand), pointer arrays (entries in one buffer, which
 * takes CLBlast's batched call, and in separate buffers), beta 0 with NaN
 * in C and D, beta 1 in place, C != D, no C (D stands in), alpha 0 and
 * k 0, fp16/bf16 in and out, fp64, every epilogue (with fp32/fp16/bf16
 * bias and aux, batched bias/aux strides), and ops that must be refused.
 *
 * Whole buffers are compared, padding included: what the GEMM must not
 * touch stays as it was.  fp32 results agree within 1e-4 relative; fp16
 * and bf16 results within a couple of units in the last place (the two
 * fp32 products may round to neighbouring values).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

/* ------------------------------------------------------------ elements */

static uint32_t rng = 12345;

/* Multiples of 1/8 in [-1, 1]: exact in every type, no cancellation
 * surprises; fp32/fp64 operands get finer values. */
static double rnd(tfl_dtype t)
{
    rng = rng * 1103515245u + 12345u;
    int r = (int)((rng >> 16) % 17) - 8;
    if (t == TFL_DT_F32 || t == TFL_DT_F64) {
        rng = rng * 1103515245u + 12345u;
        return r / 8.0 + (double)((rng >> 16) % 1000) / 8000.0;
    }
    return r / 8.0;
}

static void fill(tfl_dtype t, void *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        ocl_h_st(t, p, i, rnd(t));
}

static double tol_of(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F16: return 2e-3;
    case TFL_DT_BF16: return 1.6e-2;
    case TFL_DT_F64: return 1e-10;
    default: return 1e-4;
    }
}

/* Elements of two buffers of type t agree (NaN matches NaN). */
static int same_values(const char *what, const char *name, tfl_dtype t, const void *want,
                       const void *got, int64_t n)
{
    double tol = tol_of(t);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = ocl_h_ld(t, want, i), g = ocl_h_ld(t, got, i);
        if (isnan(w) && isnan(g))
            continue;
        if (isnan(w) || isnan(g) || fabs(w - g) > tol * (fabs(w) > 1 ? fabs(w) : 1)) {
            if (bad++ < 4)
                fprintf(stderr, "%s: %s[%lld]: host %.9g opencl %.9g\n", name, what,
                        (long long)i, w, g);
        }
    }
    OCL_H_CHECK(bad == 0);
    return bad == 0;
}

/* ------------------------------------------------------------ cases */

typedef struct tcase {
    const char *name;
    int ta, tb;
    int64_t m, n, k;
    tfl_dtype tab, tc, td;
    tfl_compute comp;
    int64_t pad;           /* added to every leading dimension          */
    int64_t batch;
    int arrays;            /* 0 strided, 1 one buffer, 2 one per entry  */
    int share_a;           /* stride_a = 0                              */
    double alpha, beta;
    int nan_cd;            /* C and D start as NaN                      */
    int d_is_c;
    int no_c;              /* C pointer NULL: D stands in               */
    tfl_epilogue epi;
    tfl_dtype bias_t, aux_t;
} tcase;

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

static int64_t rows_of(int t, int64_t r, int64_t c)
{
    return t ? c : r;
}

/* Pointer arrays on both sides: host pointers into the host block; on
 * the device either pointers into the device block or, for arrays == 2,
 * a private allocation per entry holding the same bytes. */
typedef struct parr {
    const void **h;
    void *d;               /* device copy of the device pointer array */
    void **own;            /* arrays == 2: the per-entry allocations  */
    int64_t nb;
    size_t ebytes;
} parr;

static parr mk_arr(const ocl_h_buf *blk, int64_t nb, size_t stride_bytes, size_t ebytes, int own)
{
    parr a = { calloc((size_t)nb, sizeof(void *)), NULL, NULL, nb, ebytes };
    const void **dp = calloc((size_t)nb, sizeof(void *));
    if (own)
        a.own = calloc((size_t)nb, sizeof(void *));
    for (int64_t i = 0; i < nb; i++) {
        a.h[i] = (const char *)blk->h + (size_t)i * stride_bytes;
        if (own) {
            a.own[i] = ocl_h_dev(a.h[i], ebytes);
            dp[i] = a.own[i];
        } else {
            dp[i] = (const char *)blk->d + (size_t)i * stride_bytes;
        }
    }
    a.d = ocl_h_dev(dp, (size_t)nb * sizeof(void *));
    free(dp);
    return a;
}

/* After the device ran: entries written to private allocations come back
 * into the device block, so it can be compared as a whole. */
static void gather_arr(const parr *a, ocl_h_buf *blk, size_t stride_bytes, void *out)
{
    ocl_h_get(out, blk->d, blk->bytes);
    if (a->own)
        for (int64_t i = 0; i < a->nb; i++)
            ocl_h_get((char *)out + (size_t)i * stride_bytes, a->own[i], a->ebytes);
}

static void drop_arr(parr *a)
{
    if (a->own)
        for (int64_t i = 0; i < a->nb; i++)
            ocl_h_free(a->own[i], a->ebytes);
    if (a->d)
        ocl_h_free(a->d, (size_t)a->nb * sizeof(void *));
    free(a->own);
    free(a->h);
    memset(a, 0, sizeof *a);
}

static int epi_bias(tfl_epilogue e)
{
    return e == TFL_EPI_BIAS || e == TFL_EPI_RELU_BIAS || e == TFL_EPI_GELU_BIAS ||
           e == TFL_EPI_GELU_AUX_BIAS || e == TFL_EPI_RELU_AUX_BIAS ||
           e == TFL_EPI_DGELU_BGRAD || e == TFL_EPI_DRELU_BGRAD || e == TFL_EPI_BGRADA ||
           e == TFL_EPI_BGRADB;
}

static int epi_mask(tfl_epilogue e)
{
    return e == TFL_EPI_RELU_AUX || e == TFL_EPI_RELU_AUX_BIAS || e == TFL_EPI_DRELU ||
           e == TFL_EPI_DRELU_BGRAD;
}

static int epi_aux(tfl_epilogue e)
{
    return e == TFL_EPI_GELU_AUX || e == TFL_EPI_GELU_AUX_BIAS || e == TFL_EPI_DGELU ||
           e == TFL_EPI_DGELU_BGRAD;
}

static void run_case(const tcase *tc)
{
    const int64_t m = tc->m, n = tc->n, k = tc->k, nb = tc->batch ? tc->batch : 1;
    const int64_t ra = rows_of(tc->ta, m, k), ca = rows_of(tc->ta, k, m);
    const int64_t rb = rows_of(tc->tb, k, n), cb = rows_of(tc->tb, n, k);
    const int64_t lda = max1(ra) + tc->pad, ldb = max1(rb) + tc->pad;
    const int64_t ldc = max1(m) + tc->pad, ldd = max1(m) + tc->pad;
    const int64_t sa = tc->share_a ? 0 : lda * ca + 5, sb = ldb * cb + 3;
    const int64_t sc = ldc * n + 7, sd = tc->d_is_c ? sc : ldd * n + 2;
    const size_t ea = tfl_dtype_size(tc->tab), ec = tfl_dtype_size(tc->tc);
    const size_t ed = tfl_dtype_size(tc->td);

    ocl_h_buf A = ocl_h_buf_new((size_t)(sa * (nb - 1) + lda * ca) * ea);
    ocl_h_buf B = ocl_h_buf_new((size_t)(sb * (nb - 1) + ldb * cb) * ea);
    ocl_h_buf C = ocl_h_buf_new((size_t)(sc * (nb - 1) + ldc * n) * ec);
    ocl_h_buf D = tc->d_is_c ? C : ocl_h_buf_new((size_t)(sd * (nb - 1) + ldd * n) * ed);
    fill(tc->tab, A.h, (int64_t)(A.bytes / ea));
    fill(tc->tab, B.h, (int64_t)(B.bytes / ea));
    fill(tc->tc, C.h, (int64_t)(C.bytes / ec));
    if (!tc->d_is_c)
        fill(tc->td, D.h, (int64_t)(D.bytes / ed));
    if (tc->nan_cd) {
        for (int64_t i = 0; i < (int64_t)(C.bytes / ec); i++)
            ocl_h_st(tc->tc, C.h, i, NAN);
        for (int64_t i = 0; i < (int64_t)(D.bytes / ed); i++)
            ocl_h_st(tc->td, D.h, i, NAN);
    }

    /* epilogue vectors: bias (len m, or n for BGRADB) and aux */
    tfl_epilogue e = tc->epi;
    int64_t blen = e == TFL_EPI_BGRADB ? n : m, sbias = blen + 1;
    int64_t ld_aux = epi_mask(e) ? (m + 7) / 8 * 8 + 8 : m + tc->pad;
    int64_t saux = ld_aux * n + (epi_mask(e) ? 16 : 3);
    ocl_h_buf bias = { 0 }, aux = { 0 };
    if (epi_bias(e)) {
        bias = ocl_h_buf_new((size_t)(sbias * nb) * tfl_dtype_size(tc->bias_t));
        fill(tc->bias_t, bias.h, sbias * nb);
    }
    if (epi_mask(e)) {
        aux = ocl_h_buf_new((size_t)((saux * nb + 7) / 8));
        for (size_t i = 0; i < aux.bytes; i++)
            ((uint8_t *)aux.h)[i] = (uint8_t)(rnd(TFL_DT_F32) * 1000);
    } else if (epi_aux(e)) {
        aux = ocl_h_buf_new((size_t)(saux * nb) * tfl_dtype_size(tc->aux_t));
        fill(tc->aux_t, aux.h, saux * nb);
    }
    ocl_h_buf_up(&A);
    ocl_h_buf_up(&B);
    ocl_h_buf_up(&C);
    if (!tc->d_is_c)
        ocl_h_buf_up(&D);
    if (bias.h)
        ocl_h_buf_up(&bias);
    if (aux.h)
        ocl_h_buf_up(&aux);

    float af = (float)tc->alpha, bf = (float)tc->beta;
    double ad = tc->alpha, bd = tc->beta;
    int f64 = tc->tab == TFL_DT_F64;
    tfl_gemm_op g = {
        .trans_a = tc->ta, .trans_b = tc->tb, .m = m, .n = n, .k = k,
        .type_a = tc->tab, .type_b = tc->tab, .type_c = tc->tc, .type_d = tc->td,
        .compute = tc->comp,
        .lda = lda, .stride_a = sa, .ldb = ldb, .stride_b = sb,
        .ldc = ldc, .stride_c = sc, .ldd = ldd, .stride_d = sd,
        .batch = nb,
        .alpha = f64 ? (const void *)&ad : (const void *)&af,
        .beta = f64 ? (const void *)&bd : (const void *)&bf,
        .epilogue = e, .bias_type = tc->bias_t, .ld_aux = ld_aux, .aux_type = tc->aux_t,
        .stride_bias = sbias, .stride_aux = saux,
    };
    tfl_gemm_op h = g, d = g;
    h.a = A.h; h.b = B.h; h.c = C.h; h.d = D.h; h.bias = bias.h; h.aux = aux.h;
    d.a = A.d; d.b = B.d; d.c = C.d; d.d = D.d; d.bias = bias.d; d.aux = aux.d;

    parr pa = { 0 }, pb = { 0 }, pc = { 0 }, pd = { 0 };
    if (tc->arrays) {
        int own = tc->arrays == 2;
        pa = mk_arr(&A, nb, (size_t)sa * ea, (size_t)(lda * ca) * ea, own);
        pb = mk_arr(&B, nb, (size_t)sb * ea, (size_t)(ldb * cb) * ea, own);
        pc = mk_arr(&C, nb, (size_t)sc * ec, (size_t)(ldc * n) * ec, own);
        pd = tc->d_is_c ? pc : mk_arr(&D, nb, (size_t)sd * ed, (size_t)(ldd * n) * ed, own);
        h.a_array = pa.h; h.b_array = pb.h; h.c_array = pc.h; h.d_array = (void *const *)pd.h;
        d.a_array = pa.d; d.b_array = pb.d; d.c_array = pc.d; d.d_array = pd.d;
        h.a = h.b = h.c = h.d = NULL;
        d.a = d.b = d.c = d.d = NULL;
    }
    if (tc->no_c) {
        h.c = d.c = NULL;
        h.c_array = d.c_array = NULL;
    }

    tfl_status hs = host_gemm(&h);
    tfl_op op = { .kind = TFL_OP_GEMM, .name = "gemm", .u.gemm = d };
    tfl_status ds = ocl_h_run(&op);
    if (hs != TFL_OK || ds != TFL_OK) {
        fprintf(stderr, "%s: host status %d, opencl status %d\n", tc->name, hs, ds);
        OCL_H_CHECK(hs == TFL_OK && ds == TFL_OK);
    } else {
        void *got = malloc(D.bytes);
        if (tc->arrays)
            gather_arr(&pd, &D, (size_t)(tc->d_is_c ? sc * ec : sd * ed), got);
        else
            ocl_h_get(got, D.d, D.bytes);
        same_values("D", tc->name, tc->td, D.h, got, (int64_t)(D.bytes / ed));
        free(got);
        if (bias.h) {
            got = malloc(bias.bytes);
            ocl_h_get(got, bias.d, bias.bytes);
            same_values("bias", tc->name, tc->bias_t, bias.h, got,
                        (int64_t)(bias.bytes / tfl_dtype_size(tc->bias_t)));
            free(got);
        }
        if (aux.h) {
            got = malloc(aux.bytes);
            ocl_h_get(got, aux.d, aux.bytes);
            if (epi_mask(e)) {
                int ok = memcmp(got, aux.h, aux.bytes) == 0;
                if (!ok)
                    fprintf(stderr, "%s: relu mask differs\n", tc->name);
                OCL_H_CHECK(ok);
            } else {
                same_values("aux", tc->name, tc->aux_t, aux.h, got,
                            (int64_t)(aux.bytes / tfl_dtype_size(tc->aux_t)));
            }
            free(got);
        }
    }

    if (tc->arrays) {
        if (!tc->d_is_c)
            drop_arr(&pd);
        drop_arr(&pa);
        drop_arr(&pb);
        drop_arr(&pc);
    }
    ocl_h_buf_drop(&A);
    ocl_h_buf_drop(&B);
    ocl_h_buf_drop(&C);
    if (!tc->d_is_c)
        ocl_h_buf_drop(&D);
    ocl_h_buf_drop(&bias);
    ocl_h_buf_drop(&aux);
}

/* ------------------------------------------------------------ groups */

static tcase base_case(const char *name, int64_t m, int64_t n, int64_t k)
{
    return (tcase){ .name = name, .m = m, .n = n, .k = k, .tab = TFL_DT_F32,
                    .tc = TFL_DT_F32, .td = TFL_DT_F32, .comp = TFL_COMPUTE_32F,
                    .batch = 1, .alpha = 1.25, .beta = 0.5, .bias_t = TFL_DT_F32,
                    .aux_t = TFL_DT_F32 };
}

static void test_transposes(void)
{
    char name[64];
    for (int ta = 0; ta < 3; ta++)
        for (int tb = 0; tb < 3; tb++) {
            snprintf(name, sizeof name, "fp32 trans %d%d", ta, tb);
            tcase t = base_case(name, 17, 33, 65);
            t.ta = ta;
            t.tb = tb;
            t.pad = 3;
            run_case(&t);
        }
}

static void test_shapes(void)
{
    tcase t = base_case("1x1x1", 1, 1, 1);
    run_case(&t);
    t = base_case("128x64x256 TF32", 128, 64, 256);
    t.comp = TFL_COMPUTE_32F_FAST_TF32;
    run_case(&t);
    t = base_case("17x33x65 lda>m", 17, 33, 65);
    t.pad = 11;
    t.ta = 1;
    run_case(&t);
    t = base_case("beta 0, NaN in C and D", 17, 33, 65);
    t.beta = 0.0;
    t.nan_cd = 1;
    run_case(&t);
    t = base_case("beta 1, D == C", 17, 33, 65);
    t.beta = 1.0;
    t.d_is_c = 1;
    run_case(&t);
    t = base_case("beta 0, D == C holding NaN", 20, 9, 31);
    t.beta = 0.0;
    t.d_is_c = 1;
    t.nan_cd = 1;
    run_case(&t);
    t = base_case("no C: D stands in", 17, 6, 9);
    t.no_c = 1;
    run_case(&t);
    t = base_case("no C, fp16: D stands in", 17, 6, 9);
    t.no_c = 1;
    t.tab = t.tc = t.td = TFL_DT_F16;
    t.batch = 2;
    run_case(&t);
    t = base_case("no C, pointer arrays", 17, 6, 9);
    t.no_c = 1;
    t.arrays = 2;
    t.batch = 2;
    run_case(&t);
    t = base_case("alpha 0", 13, 7, 5);
    t.alpha = 0.0;
    run_case(&t);
    t = base_case("k 0", 13, 7, 0);
    run_case(&t);
    t = base_case("k 0, beta 0, NaN", 13, 7, 0);
    t.beta = 0.0;
    t.nan_cd = 1;
    run_case(&t);
}

static void test_batches(void)
{
    tcase t = base_case("strided batch 3", 17, 33, 65);
    t.batch = 3;
    t.pad = 2;
    t.tb = 1;
    run_case(&t);
    t = base_case("strided batch 4, beta 0 NaN", 8, 5, 9);
    t.batch = 4;
    t.beta = 0.0;
    t.nan_cd = 1;
    run_case(&t);
    t = base_case("pointer arrays, one buffer", 17, 33, 65);
    t.batch = 3;
    t.arrays = 1;
    run_case(&t);
    t = base_case("pointer arrays, one buffer, beta 0", 9, 4, 3);
    t.batch = 5;
    t.arrays = 1;
    t.beta = 0.0;
    t.nan_cd = 1;
    t.ta = 1;
    run_case(&t);
    t = base_case("pointer arrays, own buffers", 17, 33, 65);
    t.batch = 3;
    t.arrays = 2;
    t.ta = 2;
    run_case(&t);
    t = base_case("pointer arrays, fp16", 12, 10, 8);
    t.batch = 3;
    t.arrays = 1;
    t.tab = t.tc = t.td = TFL_DT_F16;
    run_case(&t);
    t = base_case("fp16 batch, shared A (stride 0)", 12, 10, 8);
    t.batch = 3;
    t.share_a = 1;
    t.tab = t.tc = t.td = TFL_DT_F16;
    run_case(&t);
}

static void test_lowp(void)
{
    static const struct { const char *name; tfl_dtype ab, c, d; } v[] = {
        { "fp16 in/out", TFL_DT_F16, TFL_DT_F16, TFL_DT_F16 },
        { "bf16 in/out", TFL_DT_BF16, TFL_DT_BF16, TFL_DT_BF16 },
        { "fp16 in, fp32 out", TFL_DT_F16, TFL_DT_F32, TFL_DT_F32 },
        { "bf16 in, fp32 C, bf16 D", TFL_DT_BF16, TFL_DT_F32, TFL_DT_BF16 },
        { "fp32 in, fp16 out", TFL_DT_F32, TFL_DT_F16, TFL_DT_F16 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        tcase t = base_case(v[i].name, 33, 17, 40);
        t.tab = v[i].ab;
        t.tc = v[i].c;
        t.td = v[i].d;
        t.ta = 1;
        t.pad = 1;
        run_case(&t);
        t.beta = 0.0;
        t.nan_cd = 1;
        t.batch = 2;
        run_case(&t);
    }
    tcase t = base_case("fp16 compute 16F", 16, 16, 16);
    t.tab = t.tc = t.td = TFL_DT_F16;
    t.comp = TFL_COMPUTE_16F;
    run_case(&t);
    t = base_case("bf16 alpha 0", 16, 6, 16);
    t.tab = t.tc = t.td = TFL_DT_BF16;
    t.alpha = 0.0;
    run_case(&t);
}

static void test_fp64(void)
{
    tcase t = base_case("fp64", 17, 33, 65);
    t.tab = t.tc = t.td = TFL_DT_F64;
    t.comp = TFL_COMPUTE_64F;
    t.tb = 1;
    t.pad = 2;
    /* only on devices with cl_khr_fp64 */
    double one = 1.0;
    void *buf = ocl_h_alloc(4096);
    tfl_op probe = { .kind = TFL_OP_GEMM, .name = "gemm", .u.gemm = {
        .m = 2, .n = 2, .k = 2, .type_a = TFL_DT_F64, .type_b = TFL_DT_F64,
        .type_c = TFL_DT_F64, .type_d = TFL_DT_F64, .compute = TFL_COMPUTE_64F,
        .a = buf, .lda = 2, .b = buf, .ldb = 2, .c = buf, .ldc = 2, .d = buf, .ldd = 2,
        .batch = 1, .alpha = &one, .beta = &one } };
    int have = ocl_h->op_supported(&probe);
    ocl_h_free(buf, 4096);
    if (!have) {
        printf("fp64: not supported by this device, skipped\n");
        return;
    }
    run_case(&t);
    t.batch = 3;
    t.name = "fp64 batch 3";
    run_case(&t);
    t.arrays = 1;
    t.name = "fp64 pointer arrays";
    run_case(&t);
    t.arrays = 0;
    t.batch = 1;
    t.epi = TFL_EPI_GELU_AUX_BIAS;
    t.bias_t = TFL_DT_F64;
    t.aux_t = TFL_DT_F64;
    t.name = "fp64 gelu aux bias";
    run_case(&t);
}

static void test_epilogues(void)
{
    static const char *const names[16] = {
        "none", "bias", "relu", "relu bias", "gelu", "gelu bias", "dgelu", "dgelu bgrad",
        "bgrada", "bgradb", "gelu aux", "gelu aux bias", "drelu", "drelu bgrad",
        "relu aux", "relu aux bias",
    };
    char name[96];
    for (int e = 1; e < 16; e++) {
        snprintf(name, sizeof name, "epilogue %s", names[e]);
        tcase t = base_case(name, 21, 19, 23);   /* m not a multiple of 8 */
        t.epi = (tfl_epilogue)e;
        t.ta = e & 1;
        t.tb = (e >> 1) & 1;
        run_case(&t);
        snprintf(name, sizeof name, "epilogue %s, batch 2, beta 0", names[e]);
        t.name = name;
        t.batch = 2;
        t.beta = 0.0;
        t.pad = 1;
        run_case(&t);
        snprintf(name, sizeof name, "epilogue %s, bf16 out, fp16 aux", names[e]);
        t = base_case(name, 21, 19, 23);
        t.epi = (tfl_epilogue)e;
        t.tab = t.tc = t.td = TFL_DT_BF16;
        t.bias_t = TFL_DT_BF16;
        t.aux_t = TFL_DT_F16;
        run_case(&t);
        snprintf(name, sizeof name, "epilogue %s, fp16 in, fp32 out", names[e]);
        t = base_case(name, 21, 19, 23);
        t.epi = (tfl_epilogue)e;
        t.tab = TFL_DT_F16;
        t.bias_t = TFL_DT_F16;
        run_case(&t);
        snprintf(name, sizeof name, "epilogue %s, alpha 0", names[e]);
        t = base_case(name, 9, 3, 4);
        t.epi = (tfl_epilogue)e;
        t.alpha = 0.0;
        run_case(&t);
    }
}

/* Ops the backend must leave to the host. */
static void test_refused(void)
{
    float one = 1.0f, zero = 0.0f;
    void *buf = ocl_h_alloc(4096);
    tfl_gemm_op g = {
        .m = 4, .n = 4, .k = 4, .type_a = TFL_DT_C64, .type_b = TFL_DT_C64,
        .type_c = TFL_DT_C64, .type_d = TFL_DT_C64, .compute = TFL_COMPUTE_32F,
        .a = buf, .lda = 4, .b = buf, .ldb = 4, .c = buf, .ldc = 4, .d = buf, .ldd = 4,
        .batch = 1, .alpha = &one, .beta = &zero,
    };
    tfl_op op = { .kind = TFL_OP_GEMM, .name = "gemm", .u.gemm = g };
    OCL_H_CHECK(!ocl_h->op_supported(&op));     /* complex */
    op.u.gemm.type_a = op.u.gemm.type_b = TFL_DT_I8;
    op.u.gemm.type_c = op.u.gemm.type_d = TFL_DT_I32;
    op.u.gemm.compute = TFL_COMPUTE_32I;
    OCL_H_CHECK(!ocl_h->op_supported(&op));     /* integer */
    op.u.gemm = g;
    op.u.gemm.type_a = op.u.gemm.type_b = op.u.gemm.type_c = op.u.gemm.type_d = TFL_DT_F32;
    OCL_H_CHECK(ocl_h->op_supported(&op));      /* the same in fp32: fine */
    op.u.gemm.d = &one;                         /* host memory */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    op.u.gemm.d = buf;
    op.u.gemm.m = 2000;                         /* past the allocation */
    op.u.gemm.ldc = op.u.gemm.ldd = 2000;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    ocl_h_free(buf, 4096);
}

int main(void)
{
    ocl_h_init();
    test_refused();
    test_transposes();
    test_shapes();
    test_batches();
    test_lowp();
    test_fp64();
    test_epilogues();
    return ocl_h_finish("test_ocl_gemm");
}

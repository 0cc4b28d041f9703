/*
 * test_gemm_host.c - host_gemm against a double-precision reference.
 *
 * Every variant the cuBLAS/cuBLASLt entry points can hand the host
 * backend: fp32/fp64/complex/fp16/bf16 operands, all transposes, padded
 * leading dimensions, strided and pointer-array batches, C != D, beta = 0
 * with NaN in C, alpha = 0, k = 0, every epilogue, fp16/bf16 rounding
 * (nearest-even, checked bit-exactly at ties).  The reference and the
 * fp16/bf16 encode/decode here are written independently of the library.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/gemm_internal.h"
#include "backends/host/host_ops.h"

static int failures, checks;

#define FAIL(...) do { failures++; fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)

/* ---------------------------------------------- independent fp16/bf16 */

/* Encode a value that is exactly representable (the test only makes such). */
static uint16_t enc_f16(double v)
{
    if (isnan(v))
        return 0x7e00;
    if (v == 0.0)
        return signbit(v) ? 0x8000 : 0;
    uint16_t s = v < 0 ? 0x8000 : 0;
    v = fabs(v);
    int e;
    double f = frexp(v, &e);           /* v = f * 2^e, f in [0.5, 1) */
    int be = e - 1 + 15;
    if (be <= 0) {                     /* subnormal: v = man * 2^-24 */
        return (uint16_t)(s | (uint16_t)llround(v * 16777216.0));
    }
    return (uint16_t)(s | (be << 10) | (uint16_t)llround((2.0 * f - 1.0) * 1024.0));
}

static double dec_f16(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, man = h & 1023;
    double v;
    if (e == 31)
        v = man ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(man, -24);
    else
        v = ldexp(1024 + man, e - 25);
    return s ? -v : v;
}

static uint16_t enc_bf16(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);        /* exact for representable values */
}

static double dec_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static size_t esize(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F64: case TFL_DT_C64: return 8;
    case TFL_DT_C128: return 16;
    case TFL_DT_F32: return 4;
    default: return 2;
    }
}

static int is_cplx(tfl_dtype t) { return t == TFL_DT_C64 || t == TFL_DT_C128; }

/* element idx (complex: part p) */
static void put(tfl_dtype t, void *buf, int64_t idx, int p, double v)
{
    switch (t) {
    case TFL_DT_F32: ((float *)buf)[idx] = (float)v; break;
    case TFL_DT_F64: ((double *)buf)[idx] = v; break;
    case TFL_DT_F16: ((uint16_t *)buf)[idx] = enc_f16(v); break;
    case TFL_DT_BF16: ((uint16_t *)buf)[idx] = enc_bf16(v); break;
    case TFL_DT_C64: ((float *)buf)[2 * idx + p] = (float)v; break;
    case TFL_DT_C128: ((double *)buf)[2 * idx + p] = v; break;
    default: break;
    }
}

static double get(tfl_dtype t, const void *buf, int64_t idx, int p)
{
    switch (t) {
    case TFL_DT_F32: return ((const float *)buf)[idx];
    case TFL_DT_F64: return ((const double *)buf)[idx];
    case TFL_DT_F16: return dec_f16(((const uint16_t *)buf)[idx]);
    case TFL_DT_BF16: return dec_bf16(((const uint16_t *)buf)[idx]);
    case TFL_DT_C64: return ((const float *)buf)[2 * idx + p];
    case TFL_DT_C128: return ((const double *)buf)[2 * idx + p];
    default: return 0;
    }
}

/* unit roundoff of the output type (fp32 accumulation for low precision) */
static double ulp_of(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F64: case TFL_DT_C128: return 1.2e-16;
    case TFL_DT_F16: return 1.0 / 1024;
    case TFL_DT_BF16: return 1.0 / 128;
    default: return 1.2e-7;
    }
}

static unsigned rng = 12345;
static double rnd_small(void)
{
    /* multiples of 1/4 in [-2, 2]: exact in every type, products exact */
    rng = rng * 1103515245u + 12345u;
    return (double)((int)((rng >> 16) % 17) - 8) / 4.0;
}

/* ------------------------------------------------------------ reference */

typedef struct gelu_ref { double (*f)(double); } gelu_ref;

static double ref_gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

static double ref_dgelu(double x)
{
    /* numerical derivative in long double, independent of the closed form */
    long double h = 1e-6L;
    long double xp = x + h, xm = x - h;
    long double c = sqrtl(2.0L / 3.14159265358979323846L);
    long double gp = 0.5L * xp * (1 + tanhl(c * (xp + 0.044715L * xp * xp * xp)));
    long double gm = 0.5L * xm * (1 + tanhl(c * (xm + 0.044715L * xm * xm * xm)));
    return (double)((gp - gm) / (2 * h));
}

/* opX(i, p) of a stored matrix with trans flag */
static void op_elem(tfl_dtype t, const void *buf, int trans, int64_t ld,
                    int64_t r, int64_t c, double *re, double *im)
{
    int64_t idx = trans ? c + r * ld : r + c * ld;
    *re = get(t, buf, idx, 0);
    *im = is_cplx(t) ? get(t, buf, idx, 1) : 0.0;
    if (trans == 2)
        *im = -*im;
}

typedef struct variant {
    const char *name;
    tfl_dtype tab, tcd;
    tfl_compute comp;
    int ta, tb;
    int64_t m, n, k, pad, batch;
    int ptr_array, c_separate, nan_c;
    double alpha, beta;       /* real parts */
    double alpha_im, beta_im;
    tfl_epilogue epi;
} variant;

static void run_variant(const variant *v)
{
    const int cx = is_cplx(v->tab);
    const int64_t m = v->m, n = v->n, k = v->k;
    const int64_t ra = v->ta ? k : m, ca = v->ta ? m : k;
    const int64_t rb = v->tb ? n : k, cb = v->tb ? k : n;
    const int64_t lda = (ra > 1 ? ra : 1) + v->pad, ldb = (rb > 1 ? rb : 1) + v->pad;
    const int64_t ldc = (m > 1 ? m : 1) + v->pad, ldd = (m > 1 ? m : 1) + 2 * v->pad;
    const int64_t sa = lda * ca + 3, sb = ldb * cb + 5, sc = ldc * n + 1, sd = ldd * n + 7;
    const int64_t B = v->batch;
    const size_t eab = esize(v->tab), ecd = esize(v->tcd);
    char *A = calloc((size_t)(sa * B + 1), eab), *Bm = calloc((size_t)(sb * B + 1), eab);
    char *C = calloc((size_t)(sc * B + 1), ecd), *D = calloc((size_t)(sd * B + 1), ecd);
    double *ref = calloc((size_t)(m * n * B * 2 + 1), sizeof(double));
    int f = hg_epi_flags(v->epi);
    tfl_dtype bias_t = v->tcd;
    double *bias_ref = calloc((size_t)((m > n ? m : n) * B + 1), sizeof(double));
    char *bias = calloc((size_t)((m > n ? m : n) * B + 1), 16);
    int64_t ld_aux = ((m + 127) / 128) * 128;    /* bits and elements both */
    int64_t stride_aux = ld_aux * n;
    char *aux = calloc((size_t)(stride_aux * B + 8), 16);
    double *aux_in = calloc((size_t)(stride_aux * B + 1), sizeof(double));

    for (int64_t i = 0; i < sa * B; i++)
        for (int p = 0; p < 1 + cx; p++)
            put(v->tab, A, i, p, rnd_small());
    for (int64_t i = 0; i < sb * B; i++)
        for (int p = 0; p < 1 + cx; p++)
            put(v->tab, Bm, i, p, rnd_small());
    for (int64_t i = 0; i < sc * B; i++)
        for (int p = 0; p < 1 + cx; p++)
            put(v->tcd, C, i, p, v->nan_c ? NAN : rnd_small());
    for (int64_t i = 0; i < sd * B; i++)
        for (int p = 0; p < 1 + cx; p++)
            put(v->tcd, D, i, p, v->c_separate ? NAN : 0.0);
    if (!v->c_separate)     /* C == D: the input C lives in D */
        memcpy(D, C, (size_t)(sc * B) * ecd);
    for (int64_t i = 0; i < m * B; i++) {
        bias_ref[i] = rnd_small();
        put(bias_t, bias, i, 0, bias_ref[i]);
    }
    if (f & (HG_EPI_DRELU | HG_EPI_DGELU))
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) {
                    int64_t idx = b * stride_aux + i + j * ld_aux;
                    double x = rnd_small();
                    aux_in[idx] = x;
                    if (f & HG_EPI_DRELU) {
                        if (x > 0)
                            aux[idx >> 3] |= (char)(1 << (idx & 7));
                    } else {
                        put(v->tcd, aux, idx, 0, x);
                    }
                }

    /* reference */
    double *bgrad_ref = calloc((size_t)((m > n ? m : n) * B + 1), sizeof(double));
    for (int64_t b = 0; b < B; b++) {
        const char *Ab = A + (size_t)(b * sa) * eab, *Bb = Bm + (size_t)(b * sb) * eab;
        const char *Cb = (v->c_separate ? C : C) + (size_t)(b * (v->c_separate ? sc : sc)) * ecd;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double sr = 0, si = 0;
                for (int64_t p = 0; p < k; p++) {
                    double ar, ai, br, bi2;
                    op_elem(v->tab, Ab, v->ta, lda, i, p, &ar, &ai);
                    op_elem(v->tab, Bb, v->tb, ldb, p, j, &br, &bi2);
                    sr += ar * br - ai * bi2;
                    si += ar * bi2 + ai * br;
                }
                double rr = v->alpha * sr - v->alpha_im * si;
                double ri = v->alpha * si + v->alpha_im * sr;
                if (v->beta != 0 || v->beta_im != 0) {
                    double cr = get(v->tcd, Cb, i + j * ldc, 0);
                    double ci = cx ? get(v->tcd, Cb, i + j * ldc, 1) : 0;
                    rr += v->beta * cr - v->beta_im * ci;
                    ri += v->beta * ci + v->beta_im * cr;
                }
                double x = rr;
                int64_t aidx = b * stride_aux + i + j * ld_aux;
                if (f & HG_EPI_BIAS)
                    x += bias_ref[b * m + i];
                if (f & HG_EPI_RELU)
                    x = x > 0 ? x : 0;
                if (f & HG_EPI_GELU)
                    x = ref_gelu(x);
                if (f & HG_EPI_DRELU)
                    x = aux_in[aidx] > 0 ? x : 0;
                if (f & HG_EPI_DGELU)
                    x *= ref_dgelu(aux_in[aidx]);
                if (f & HG_EPI_BGRAD_D)
                    bgrad_ref[b * m + i] += x;
                ref[2 * (b * m * n + i + j * m)] = x;
                ref[2 * (b * m * n + i + j * m) + 1] = ri;
            }
        if (f & HG_EPI_BGRAD_A)
            for (int64_t i = 0; i < m; i++) {
                double s = 0, im;
                for (int64_t p = 0; p < k; p++) {
                    double ar;
                    op_elem(v->tab, Ab, v->ta, lda, i, p, &ar, &im);
                    s += ar;
                }
                bgrad_ref[b * m + i] = s;
            }
        if (f & HG_EPI_BGRAD_B)
            for (int64_t j = 0; j < n; j++) {
                double s = 0, im;
                for (int64_t p = 0; p < k; p++) {
                    double br;
                    op_elem(v->tab, Bb, v->tb, ldb, p, j, &br, &im);
                    s += br;
                }
                bgrad_ref[b * m + j] = s;
            }
    }

    /* the op */
    float af[2] = { (float)v->alpha, (float)v->alpha_im }, bf[2] = { (float)v->beta, (float)v->beta_im };
    double ad[2] = { v->alpha, v->alpha_im }, bd[2] = { v->beta, v->beta_im };
    int dbl = v->tab == TFL_DT_F64 || v->tab == TFL_DT_C128;
    tfl_gemm_op op = {
        .trans_a = v->ta, .trans_b = v->tb, .m = m, .n = n, .k = k,
        .type_a = v->tab, .type_b = v->tab, .type_c = v->tcd, .type_d = v->tcd,
        .compute = v->comp,
        .a = A, .lda = lda, .stride_a = sa, .b = Bm, .ldb = ldb, .stride_b = sb,
        .c = v->c_separate ? C : D, .ldc = v->c_separate ? ldc : ldc,
        .stride_c = sc,
        .d = D, .ldd = v->c_separate ? ldd : ldc, .stride_d = v->c_separate ? sd : sc,
        .batch = B, .alpha = dbl ? (const void *)ad : (const void *)af,
        .beta = dbl ? (const void *)bd : (const void *)bf,
        .epilogue = v->epi, .bias = f ? bias : NULL, .bias_type = bias_t,
        .aux = aux, .ld_aux = ld_aux, .aux_type = v->tcd,
        .stride_bias = m, .stride_aux = stride_aux,
    };
    int64_t dld = op.ldd, dstride = op.stride_d;
    const void **ap = NULL, **bp = NULL, **cp = NULL;
    void **dp = NULL;
    if (v->ptr_array) {
        ap = calloc((size_t)B, sizeof(void *)); bp = calloc((size_t)B, sizeof(void *));
        cp = calloc((size_t)B, sizeof(void *)); dp = calloc((size_t)B, sizeof(void *));
        /* reversed order: entries need not be evenly spaced or ascending */
        for (int64_t b = 0; b < B; b++) {
            ap[b] = A + (size_t)(b * sa) * eab;
            bp[b] = Bm + (size_t)(b * sb) * eab;
            cp[b] = (const char *)op.c + (size_t)(b * op.stride_c) * ecd;
            dp[b] = D + (size_t)(b * dstride) * ecd;
        }
        op.a_array = ap; op.b_array = bp; op.c_array = cp; op.d_array = dp;
        op.a = op.b = op.c = NULL; op.d = NULL;
    }
    if (!host_gemm_supported(&op)) {
        FAIL("%s: host_gemm_supported says no", v->name);
        goto out;
    }
    tfl_status st = host_gemm(&op);
    if (st != TFL_OK) {
        FAIL("%s: host_gemm returned %d", v->name, (int)st);
        goto out;
    }

    /* compare */
    double u = ulp_of(v->tcd);
    int bad = 0;
    for (int64_t b = 0; b < B && bad < 5; b++) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                for (int p = 0; p < 1 + cx; p++) {
                    double want = ref[2 * (b * m * n + i + j * m) + p];
                    double got = get(v->tcd, D, b * dstride + i + j * dld, p);
                    /* error bound: output rounding plus fp32 accumulation
                     * over k terms of size <= 4 */
                    double tol = u * fabs(want) + 1e-6 * (double)(k + 1) * 4 *
                                 (fabs(v->alpha) + fabs(v->alpha_im) + 1);
                    if (v->tcd == TFL_DT_F64 || v->tcd == TFL_DT_C128)
                        tol = 1e-12 * (fabs(want) + k + 1);
                    if (f & (HG_EPI_GELU | HG_EPI_DGELU))
                        tol += 1e-5 * (fabs(want) + 1);
                    checks++;
                    if (!(fabs(got - want) <= tol)) {
                        if (bad++ < 5)
                            FAIL("%s: batch %lld D(%lld,%lld)[%d] = %.9g, want %.9g",
                                 v->name, (long long)b, (long long)i, (long long)j,
                                 p, got, want);
                    }
                }
            }
        /* padding rows of D untouched (still the initial value) */
        if (v->c_separate && v->pad > 0 && m > 0 && n > 0) {
            double pv = get(v->tcd, D, b * dstride + m, 0);
            checks++;
            if (!isnan(pv))
                FAIL("%s: D padding written (%g)", v->name, pv);
        }
        if (f & HG_EPI_AUX_GELU)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) {
                    /* pre-activation: bias added, before gelu */
                    double pre;
                    {
                        /* invert nothing: recompute from gelu input */
                        double x = ref[2 * (b * m * n + i + j * m)];
                        (void)x;
                    }
                    pre = get(v->tcd, aux, b * stride_aux + i + j * ld_aux, 0);
                    double g = ref_gelu(pre);
                    double want = ref[2 * (b * m * n + i + j * m)];
                    checks++;
                    if (!(fabs(g - want) <= 4 * u * (fabs(want) + 1) + 1e-4)) {
                        FAIL("%s: aux(%lld,%lld) = %g: gelu(aux) = %g, D ref %g",
                             v->name, (long long)i, (long long)j, pre, g, want);
                        bad++;
                    }
                }
        if (f & HG_EPI_AUX_MASK)
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) {
                    int64_t idx = b * stride_aux + i + j * ld_aux;
                    int bit = (aux[idx >> 3] >> (idx & 7)) & 1;
                    double want = ref[2 * (b * m * n + i + j * m)];
                    checks++;
                    if (bit != (want > 0)) {
                        FAIL("%s: relu mask (%lld,%lld) = %d, D ref %g", v->name,
                             (long long)i, (long long)j, bit, want);
                        bad++;
                    }
                }
        if (f & (HG_EPI_BGRAD_D | HG_EPI_BGRAD_A | HG_EPI_BGRAD_B)) {
            int64_t len = (f & HG_EPI_BGRAD_B) ? n : m;
            for (int64_t i = 0; i < len; i++) {
                double want = bgrad_ref[b * m + i];
                double got = get(bias_t, bias, b * m + i, 0);
                checks++;
                if (!(fabs(got - want) <= 2 * u * (fabs(want) + 1) + 1e-4 * n)) {
                    FAIL("%s: bgrad[%lld] = %g, want %g", v->name, (long long)i, got, want);
                    bad++;
                }
            }
        }
    }
out:
    free(A); free(Bm); free(C); free(D); free(ref); free(bias_ref); free(bias);
    free(aux); free(aux_in); free(bgrad_ref);
    free(ap); free(bp); free(cp); free(dp);
}

/* ---------------------------------------------------- rounding at ties */

static void test_rounding(void)
{
    /* 1x1x1: D = alpha * 1 * 1 with alpha an fp32 value exactly halfway
     * between two fp16 (bf16) neighbours: must round to the even one. */
    struct { tfl_dtype t; double alpha, want; } cases[] = {
        { TFL_DT_F16, 1.0 + 1.0 / 2048, 1.0 },                        /* tie, down to even */
        { TFL_DT_F16, 1.0 + 3.0 / 2048, 1.0 + 2.0 / 1024 },           /* tie, up to even */
        { TFL_DT_F16, 1.0 + 1.0 / 2048 + 1.0 / 65536, 1.0 + 1.0 / 1024 }, /* above tie */
        { TFL_DT_F16, -(1.0 + 3.0 / 2048), -(1.0 + 2.0 / 1024) },
        { TFL_DT_F16, 65520.0, INFINITY },                            /* overflow tie */
        { TFL_DT_F16, 65519.0, 65504.0 },
        { TFL_DT_F16, ldexp(3.0, -26), ldexp(1.0, -24) },             /* subnormal */
        { TFL_DT_F16, ldexp(1.0, -25), 0.0 },                         /* tie to 0 */
        { TFL_DT_BF16, 1.0 + 1.0 / 256, 1.0 },
        { TFL_DT_BF16, 1.0 + 3.0 / 256, 1.0 + 2.0 / 128 },
        { TFL_DT_BF16, 1.0 + 1.0 / 256 + 1.0 / 65536, 1.0 + 1.0 / 128 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint16_t a = cases[i].t == TFL_DT_F16 ? enc_f16(1.0) : enc_bf16(1.0);
        uint16_t d = 0x1234;
        float alpha = (float)cases[i].alpha, beta = 0.0f;
        tfl_gemm_op op = { .m = 1, .n = 1, .k = 1, .type_a = cases[i].t,
                           .type_b = cases[i].t, .type_c = cases[i].t,
                           .type_d = cases[i].t, .compute = TFL_COMPUTE_32F,
                           .a = &a, .lda = 1, .b = &a, .ldb = 1, .c = &d, .ldc = 1,
                           .d = &d, .ldd = 1, .batch = 1, .alpha = &alpha, .beta = &beta };
        checks++;
        if (host_gemm(&op) != TFL_OK) {
            FAIL("rounding case %zu: host_gemm failed", i);
            continue;
        }
        double got = cases[i].t == TFL_DT_F16 ? dec_f16(d) : dec_bf16(d);
        if (got != cases[i].want)
            FAIL("rounding case %zu: alpha %.10g gave %.10g, want %.10g", i,
                 cases[i].alpha, got, cases[i].want);
    }
    /* NaN stays NaN through the narrowing */
    float nanv = NAN, one = 1.0f, zero = 0.0f;
    uint16_t a = enc_f16(1.0), d = 0;
    tfl_gemm_op op = { .m = 1, .n = 1, .k = 1, .type_a = TFL_DT_F16, .type_b = TFL_DT_F16,
                       .type_c = TFL_DT_F16, .type_d = TFL_DT_F16, .compute = TFL_COMPUTE_32F,
                       .a = &a, .lda = 1, .b = &a, .ldb = 1, .c = &d, .ldc = 1, .d = &d,
                       .ldd = 1, .batch = 1, .alpha = &nanv, .beta = &zero };
    (void)one;
    checks++;
    if (host_gemm(&op) != TFL_OK || !isnan(dec_f16(d)))
        FAIL("NaN alpha did not give NaN (0x%04x)", d);
}

/* ------------------------------------------- bulk conversions, bitwise */

/* Nearest fp16/bf16 pattern to v by search over the ordered positive
 * patterns, ties to the even pattern: independent of the library. */
static uint16_t ref_round(int bf, float v)
{
    double (*dec)(uint16_t) = bf ? dec_bf16 : dec_f16;
    uint16_t inf = bf ? 0x7f80 : 0x7c00;
    if (isnan(v))
        return 0xffff;                     /* marker: any NaN */
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs((double)v);
    double maxf = dec((uint16_t)(inf - 1)), next = bf ? ldexp(1.0, 128) : 65536.0;
    if (a >= (maxf + next) / 2)            /* halfway to the next binade: inf */
        return (uint16_t)(sign | inf);
    unsigned lo = 0, hi = inf - 1u;        /* largest pattern with value <= a */
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (dec((uint16_t)mid) <= a) lo = mid; else hi = mid - 1;
    }
    uint16_t r = (uint16_t)lo;
    if (dec(r) != a) {
        double d0 = a - dec(r), d1 = dec((uint16_t)(r + 1)) - a;
        if (d1 < d0 || (d1 == d0 && (r & 1)))
            r++;
    }
    return (uint16_t)(sign | r);
}

static void test_conversions(void)
{
    /* widening: every pattern, through the bulk path (odd length so the
     * vector body and the scalar tail both run) */
    enum { NW = 65536 + 5 };
    uint16_t *h = malloc(NW * 2);
    float *f = malloc(NW * 4);
    for (int bf = 0; bf < 2; bf++) {
        for (int i = 0; i < NW; i++)
            h[i] = (uint16_t)i;
        hg_to_f32(bf ? TFL_DT_BF16 : TFL_DT_F16, h, NW, NW, 1, f, NW);
        for (int i = 0; i < NW; i++) {
            double want = bf ? dec_bf16(h[i]) : dec_f16(h[i]);
            checks++;
            if (!(f[i] == want || (isnan(f[i]) && isnan(want)))) {
                FAIL("%s widen 0x%04x: %g, want %g", bf ? "bf16" : "f16", h[i], f[i], want);
                break;
            }
        }
    }
    /* narrowing: random bit patterns, exact ties, subnormals, overflow */
    enum { NN = 300000 + 3 };
    float *src = malloc(NN * 4);
    uint16_t *out = malloc(NN * 2);
    unsigned x = 99;
    for (int i = 0; i < NN; i++) {
        x = x * 1664525u + 1013904223u;
        uint32_t u = x;
        switch (i % 4) {
        case 0: break;                                     /* any pattern */
        case 1: u = (u & 0x8fffffffu) | 0x30000000u; break; /* around fp16 range */
        case 2: u = (u & ~0x1fffu) | 0x1000u; break;       /* fp16 tie bits */
        case 3: u = (u & ~0xffffu) | 0x8000u; break;       /* bf16 tie bits */
        }
        memcpy(&src[i], &u, 4);
    }
    src[0] = 65520.0f; src[1] = 65519.99f; src[2] = -0.0f; src[3] = ldexpf(1.0f, -25);
    src[4] = ldexpf(3.0f, -26); src[5] = INFINITY; src[6] = -NAN;
    for (int bf = 0; bf < 2; bf++) {
        hg_from_f32(bf ? TFL_DT_BF16 : TFL_DT_F16, src, NN, NN, 1, out, NN);
        int bad = 0;
        for (int i = 0; i < NN && bad < 5; i++) {
            uint16_t want = ref_round(bf, src[i]);
            double got = bf ? dec_bf16(out[i]) : dec_f16(out[i]);
            checks++;
            if (want == 0xffff ? !isnan(got) : out[i] != want) {
                FAIL("%s narrow %a: 0x%04x, want 0x%04x", bf ? "bf16" : "f16",
                     (double)src[i], out[i], want);
                bad++;
            }
        }
    }
    free(h); free(f); free(src); free(out);
}

/* ----------------------------------------------------- bad arguments */

static void test_invalid(void)
{
    float x[16] = { 0 }, one = 1.0f;
    tfl_gemm_op base = { .m = 2, .n = 2, .k = 2, .type_a = TFL_DT_F32, .type_b = TFL_DT_F32,
                         .type_c = TFL_DT_F32, .type_d = TFL_DT_F32,
                         .compute = TFL_COMPUTE_32F, .a = x, .lda = 2, .b = x, .ldb = 2,
                         .c = x, .ldc = 2, .d = x, .ldd = 2, .batch = 1,
                         .alpha = &one, .beta = &one };
    tfl_gemm_op op;
    op = base; op.m = -1; checks++; if (host_gemm(&op) != TFL_ERR_INVALID) FAIL("m<0 accepted");
    op = base; op.lda = 1; checks++; if (host_gemm(&op) != TFL_ERR_INVALID) FAIL("lda<m accepted");
    op = base; op.trans_a = 1; op.m = 3; op.lda = 2; op.ldc = 3; op.ldd = 3; checks++;
    if (host_gemm(&op) != TFL_OK) FAIL("transposed lda=k rejected");
    op = base; op.trans_b = 7; checks++; if (host_gemm(&op) != TFL_ERR_INVALID) FAIL("trans 7 accepted");
    op = base; op.type_b = TFL_DT_F64; checks++;
    if (host_gemm(&op) != TFL_ERR_UNSUPPORTED) FAIL("mixed A/B types accepted");
    op = base; op.epilogue = TFL_EPI_BIAS; checks++;
    if (host_gemm(&op) != TFL_ERR_INVALID) FAIL("bias epilogue without bias accepted");
    op = base; op.epilogue = (tfl_epilogue)99; checks++;
    if (host_gemm(&op) != TFL_ERR_INVALID) FAIL("bad epilogue accepted");
    op = base; op.type_a = op.type_b = op.type_c = op.type_d = TFL_DT_C64;
    op.epilogue = TFL_EPI_RELU; checks++;
    if (host_gemm(&op) != TFL_ERR_UNSUPPORTED) FAIL("complex epilogue accepted");
}

int main(void)
{
    /* 0: single-threaded OpenBLAS with the host pool splitting real
     * GEMMs (gemm_par.c): shapes 2 and 3 are large enough to split, by
     * rows and by columns */
    host_blas_set_threads(0);
    static const tfl_epilogue epis[] = {
        TFL_EPI_BIAS, TFL_EPI_RELU, TFL_EPI_RELU_BIAS, TFL_EPI_GELU, TFL_EPI_GELU_BIAS,
        TFL_EPI_DGELU, TFL_EPI_DGELU_BGRAD, TFL_EPI_BGRADA, TFL_EPI_BGRADB,
        TFL_EPI_GELU_AUX, TFL_EPI_GELU_AUX_BIAS, TFL_EPI_DRELU, TFL_EPI_DRELU_BGRAD,
        TFL_EPI_RELU_AUX, TFL_EPI_RELU_AUX_BIAS };
    static const struct { tfl_dtype ab, cd; tfl_compute comp; const char *n; } types[] = {
        { TFL_DT_F32, TFL_DT_F32, TFL_COMPUTE_32F, "f32" },
        { TFL_DT_F32, TFL_DT_F32, TFL_COMPUTE_32F_FAST_TF32, "f32-tf32" },
        { TFL_DT_F64, TFL_DT_F64, TFL_COMPUTE_64F, "f64" },
        { TFL_DT_C64, TFL_DT_C64, TFL_COMPUTE_32F, "c64" },
        { TFL_DT_C128, TFL_DT_C128, TFL_COMPUTE_64F, "c128" },
        { TFL_DT_F16, TFL_DT_F16, TFL_COMPUTE_32F, "f16" },
        { TFL_DT_F16, TFL_DT_F16, TFL_COMPUTE_16F, "f16-c16" },
        { TFL_DT_F16, TFL_DT_F32, TFL_COMPUTE_32F, "f16->f32" },
        { TFL_DT_BF16, TFL_DT_BF16, TFL_COMPUTE_32F, "bf16" },
        { TFL_DT_BF16, TFL_DT_F32, TFL_COMPUTE_32F, "bf16->f32" },
    };
    char name[160];
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        int cx = is_cplx(types[t].ab);
        for (int ta = 0; ta <= (cx ? 2 : 1); ta++)
            for (int tb = 0; tb <= (cx ? 2 : 1); tb++)
                for (int shape = 0; shape < 4; shape++) {
                    variant v = { .tab = types[t].ab, .tcd = types[t].cd,
                                  .comp = types[t].comp, .ta = ta, .tb = tb,
                                  .m = 7, .n = 5, .k = 9, .batch = 1,
                                  .alpha = 1.5, .beta = 0.0, .name = name };
                    if (cx)
                        v.alpha_im = -0.5;
                    switch (shape) {
                    case 0: v.pad = 0; v.nan_c = 1; v.c_separate = 1; break;
                    case 1:
                        v.pad = 3; v.beta = -0.75; v.batch = 3; v.c_separate = 1;
                        v.beta_im = cx ? 0.25 : 0.0;
                        break;
                    case 2: v.m = 67; v.n = 45; v.k = 130; v.pad = 1; v.beta = 2;
                            v.batch = 2; v.ptr_array = 1; break;
                    case 3: v.m = 41; v.n = 150; v.k = 70; v.pad = 2; v.beta = 0.5;
                            v.c_separate = 1; break;
                    }
                    snprintf(name, sizeof(name), "%s ta=%d tb=%d shape=%d", types[t].n,
                             ta, tb, shape);
                    run_variant(&v);
                }
        /* alpha = 0 and k = 0: A/B never matter, beta*C / zeros (NaN C) */
        for (int z = 0; z < 3; z++) {
            variant v = { .tab = types[t].ab, .tcd = types[t].cd, .comp = types[t].comp,
                          .m = 6, .n = 4, .k = z == 0 ? 0 : 5, .batch = 2, .pad = 1,
                          .alpha = z == 1 ? 0.0 : 1.0, .beta = z == 2 ? 0.0 : 0.5,
                          .nan_c = z == 2, .c_separate = 1, .name = name };
            if (z == 2)
                v.k = 0;
            snprintf(name, sizeof(name), "%s degenerate %d", types[t].n, z);
            run_variant(&v);
        }
        if (cx)
            continue;
        for (size_t e = 0; e < sizeof(epis) / sizeof(epis[0]); e++)
            for (int shape = 0; shape < 2; shape++) {
                variant v = { .tab = types[t].ab, .tcd = types[t].cd,
                              .comp = types[t].comp, .ta = shape, .tb = !shape,
                              .m = 9, .n = 6, .k = 11, .batch = shape ? 2 : 1,
                              .pad = shape * 2, .alpha = 0.5,
                              .beta = shape ? 0.0 : 1.0, .nan_c = shape,
                              .c_separate = 1, .epi = epis[e], .name = name };
                snprintf(name, sizeof(name), "%s epilogue %d shape=%d", types[t].n,
                         (int)epis[e], shape);
                run_variant(&v);
            }
    }
    /* one output row or column (the gemv path), every transpose, padded,
     * batched, beta 0 with NaN and beta != 0, with an epilogue */
    for (size_t t = 0; t < 3; t++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int shape = 0; shape < 4; shape++) {
                    variant v = { .tab = types[t].ab, .tcd = types[t].cd,
                                  .comp = types[t].comp, .ta = ta, .tb = tb,
                                  .m = shape & 1 ? 1 : 37, .n = shape & 1 ? 29 : 1,
                                  .k = 23, .batch = 2, .pad = 2, .alpha = -0.75,
                                  .beta = shape & 2 ? 0.5 : 0.0, .nan_c = !(shape & 2),
                                  .c_separate = 1, .name = name,
                                  .epi = shape == 3 ? TFL_EPI_RELU_BIAS : TFL_EPI_NONE };
                    snprintf(name, sizeof(name), "%s gemv-shaped ta=%d tb=%d shape=%d",
                             types[t].n, ta, tb, shape);
                    run_variant(&v);
                }

    /* the low-precision path in several column panels */
    hg_panel_cols = 3;
    for (int t = 0; t < 2; t++)
        for (int ep = 0; ep < 2; ep++) {
            variant v = { .tab = t ? TFL_DT_BF16 : TFL_DT_F16, .tcd = t ? TFL_DT_BF16 : TFL_DT_F32,
                          .comp = TFL_COMPUTE_32F, .ta = 1, .tb = 1, .m = 13, .n = 11,
                          .k = 17, .batch = 2, .pad = 2, .alpha = 1.0, .beta = 0.5,
                          .c_separate = 1, .epi = ep ? TFL_EPI_DGELU_BGRAD : TFL_EPI_NONE,
                          .name = name };
            snprintf(name, sizeof(name), "panels type %d epi %d", t, ep);
            run_variant(&v);
        }
    hg_panel_cols = 0;

    test_rounding();
    test_conversions();
    test_invalid();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

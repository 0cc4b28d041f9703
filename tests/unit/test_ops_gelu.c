/*
 * test_ops_gelu.c - the fast float32 GELU and its gradient (portable and
 * AVX2 forms) against double-precision erf/exp, every tail length, and
 * the two forms against each other.
 */
#include "backends/host/ops_gelu_f32.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

static double ref_fwd(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }

/* Relative error where the value is not tiny, absolute below: float32
 * results of the fit carry ~1e-7 relative error in erfc and exp, more
 * where x*pdf and cdf cancel in the gradient. */
static int close_to(float got, double want, double rel)
{
    double scale = fabs(want) > 1e-3 ? fabs(want) : 1e-3;
    return fabs(got - want) <= rel * scale;
}

/* The gradient is cdf + x*pdf, which cancel near x = -0.75: its error
 * is relative to the size of the terms, not of their sum. */
static int close_to_bwd(float got, float g, double x)
{
    double cdf = 0.5 * erfc(-x / sqrt(2.0)), xpdf = x * exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
    double terms = g * (fabs(cdf) + fabs(xpdf));
    return fabs(got - g * (cdf + xpdf)) <= 2e-6 * (terms > 1e-3 ? terms : 1e-3);
}

typedef void (*fwd_fn)(int64_t, float *, const float *);
typedef void (*bwd_fn)(int64_t, float *, const float *, const float *);

static void check_against_double(const char *what, fwd_fn f, bwd_fn b)
{
    enum { N = 40001 };
    float *x = malloc(N * sizeof *x), *g = malloc(N * sizeof *g);
    float *o = malloc(N * sizeof *o), *d = malloc(N * sizeof *d);
    for (int i = 0; i < N; i++) {
        x[i] = (float)(-10.0 + 20.0 * i / (N - 1));
        g[i] = 1.0f + (float)(i % 7) * 0.25f;
    }
    f(N, o, x);
    b(N, d, g, x);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += !close_to(o[i], ref_fwd(x[i]), 2e-6);
        bad += !close_to_bwd(d[i], g[i], x[i]);
    }
    if (bad)
        fprintf(stderr, "%s: %d values off\n", what, bad);
    CHECK(bad == 0);
    /* Tails: every n from 0 to 19 writes exactly n results. */
    for (int n = 0; n < 20; n++) {
        float out[24];
        for (int i = 0; i < 24; i++) out[i] = -7.0f;
        f(n, out, x + 20000);
        for (int i = 0; i < n; i++) CHECK(close_to(out[i], ref_fwd(x[20000 + i]), 2e-6));
        for (int i = n; i < 24; i++) CHECK(out[i] == -7.0f);
        for (int i = 0; i < 24; i++) out[i] = -7.0f;
        b(n, out, g + 20000, x + 20000);
        for (int i = 0; i < n; i++)
            CHECK(close_to_bwd(out[i], g[20000 + i], x[20000 + i]));
        for (int i = n; i < 24; i++) CHECK(out[i] == -7.0f);
    }
    /* Saturation and special values. */
    float sp[6] = { -1e30f, -100.0f, 0.0f, 100.0f, 1e30f, -0.0f }, so[6];
    f(6, so, sp);
    CHECK(so[0] == 0.0f && so[1] == 0.0f && so[2] == 0.0f);
    CHECK(so[3] == 100.0f && so[4] == 1e30f && so[5] == 0.0f);
    float one[6] = { 1, 1, 1, 1, 1, 1 };
    b(6, so, one, sp);
    CHECK(so[0] == 0.0f && so[1] == 0.0f && so[2] == 0.5f);
    CHECK(so[3] == 1.0f && so[4] == 1.0f && so[5] == 0.5f);
    free(x); free(g); free(o); free(d);
}

int main(void)
{
    check_against_double("dispatching", host_gelu_f32, host_gelu_backward_f32);
    if (host_gelu_have_avx2())
        check_against_double("avx2", host_gelu_f32_avx2, host_gelu_backward_f32_avx2);
    else
        printf("no AVX2/FMA on this CPU: the portable form was checked\n");
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("gelu ok\n");
    return 0;
}

/*
 * test_vmath.c - the vectorised exponential sums (vmath.h) in both forms
 * against double-precision exp: values, sums, every tail length, and the
 * special values softmax and attention rely on (-inf -> 0, NaN stays).
 */
#include "backends/host/vmath.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

static void check_form(const char *form)
{
    enum { N = 20011 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (int i = 0; i < N; i++)
        x[i] = (float)(-100.0 + 190.0 * i / (N - 1));   /* -100 .. 90 */
    for (int i = 0; i < N; i++)
        y[i] = x[i];
    double sum = host_exp_shift_f32(N, y, 2.5f), want = 0;
    int bad = 0;
    for (int i = 0; i < N; i++) {
        /* the argument is rounded to float first, as the ops do */
        double e = exp((double)(x[i] - 2.5f));
        /* float exp: ~2 ulp; below float's normal range (1.18e-38) the
         * AVX2 form flushes to 0, so absolute there */
        double tol = e > 1.18e-38 ? 4e-7 * e : 1.18e-38;
        if (isinf(e) || e > 3.4e38)
            bad += !isinf(y[i]);
        else
            if (fabs(y[i] - e) > tol && bad++ < 4)
                fprintf(stderr, "%s: exp(%.9g) = %.9g, want %.9g\n", form, x[i] - 2.5, y[i], e);
        want += e;
    }
    if (bad)
        fprintf(stderr, "%s: %d values off\n", form, bad);
    CHECK(bad == 0);
    CHECK(fabs(sum - want) <= 1e-6 * want);
    /* sums of a softmax-like row, all tail lengths */
    for (int n = 0; n <= 40; n++) {
        float row[40], keep[40];
        for (int i = 0; i < n; i++)
            row[i] = keep[i] = (float)sin(i * 0.7) * 6.0f;
        double w = 0;
        for (int i = 0; i < n; i++)
            w += exp((double)keep[i] - 1.0);
        double s1 = host_sumexp_shift_f32(n, row, 1.0f);
        for (int i = 0; i < n; i++)
            CHECK(row[i] == keep[i]);
        double s2 = host_exp_shift_f32(n, row, 1.0f);
        CHECK(fabs(s1 - w) <= 1e-6 * w + 1e-30);
        CHECK(fabs(s2 - w) <= 1e-6 * w + 1e-30);
        for (int i = 0; i < n; i++)
            CHECK(fabs(row[i] - exp((double)keep[i] - 1.0)) <= 4e-7 * exp((double)keep[i] - 1.0));
    }
    float sp[5] = { -INFINITY, NAN, INFINITY, 0.0f, -0.0f };
    host_exp_shift_f32(5, sp, 0.0f);
    CHECK(sp[0] == 0.0f && isnan(sp[1]) && isinf(sp[2]) && sp[3] == 1.0f && sp[4] == 1.0f);
    free(x);
    free(y);
}

int main(void)
{
    check_form(host_vmath_avx2() ? "avx2" : "portable");
    if (host_vmath_avx2()) {
        host_vmath_allow_avx2(0);
        check_form("portable");
        host_vmath_allow_avx2(1);
    }
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("vmath ok\n");
    return 0;
}

/*
 * vmath.c - the exponential sums of vmath.h: AVX2 forms (tfl_exp8) and
 * the portable expf loops, picked once per process from the CPU.
 */
#include "backends/host/vmath.h"
#include "backends/host/ops_gelu_f32.h"

#include <math.h>
#include <stdatomic.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include "backends/host/vmath_avx2.h"

static TFL_AVX2 double exp_shift_avx2(int64_t n, float *x, float shift, int store)
{
    const __m256 s = _mm256_set1_ps(shift);
    /* sums in double lanes: a float running sum over a long row (a
     * vocabulary) loses digits */
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 e0 = tfl_exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
        __m256 e1 = tfl_exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), s));
        if (store) {
            _mm256_storeu_ps(x + i, e0);
            _mm256_storeu_ps(x + i + 8, e1);
        }
        acc0 = _mm256_add_pd(acc0, _mm256_cvtps_pd(_mm256_castps256_ps128(e0)));
        acc1 = _mm256_add_pd(acc1, _mm256_cvtps_pd(_mm256_extractf128_ps(e0, 1)));
        acc0 = _mm256_add_pd(acc0, _mm256_cvtps_pd(_mm256_castps256_ps128(e1)));
        acc1 = _mm256_add_pd(acc1, _mm256_cvtps_pd(_mm256_extractf128_ps(e1, 1)));
    }
    for (; i < n; i += 8) {
        int64_t k = n - i < 8 ? n - i : 8;
        /* padding lanes are -inf: exp gives 0 and the sum is unchanged */
        __m256 e = tfl_exp8(_mm256_sub_ps(tfl_load_part8(x + i, k, -__builtin_inff()), s));
        if (store)
            tfl_store_part8(x + i, k, e);
        acc0 = _mm256_add_pd(acc0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        acc1 = _mm256_add_pd(acc1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, _mm256_add_pd(acc0, acc1));
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}
#define HAVE_AVX2_FORMS 1
#else
#define HAVE_AVX2_FORMS 0
#endif

static atomic_int choice = -1;   /* -1 not decided, 0 portable, 1 AVX2 */
static atomic_int allowed = 1;

int host_vmath_avx2(void)
{
    int c = atomic_load_explicit(&choice, memory_order_relaxed);
    if (c < 0) {
        c = HAVE_AVX2_FORMS && host_gelu_have_avx2();
        atomic_store_explicit(&choice, c, memory_order_relaxed);
    }
    return c && atomic_load_explicit(&allowed, memory_order_relaxed);
}

void host_vmath_allow_avx2(int on)
{
    atomic_store(&allowed, on);
}

double host_exp_shift_f32(int64_t n, float *x, float shift)
{
#if HAVE_AVX2_FORMS
    if (host_vmath_avx2())
        return exp_shift_avx2(n, x, shift, 1);
#endif
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = expf(x[i] - shift);
        sum += x[i];
    }
    return sum;
}

double host_sumexp_shift_f32(int64_t n, const float *x, float shift)
{
#if HAVE_AVX2_FORMS
    if (host_vmath_avx2())
        return exp_shift_avx2(n, (float *)x, shift, 0);
#endif
    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += expf(x[i] - shift);
    return sum;
}

/*
 * ops_gelu_avx2.c - the AVX2/FMA forms of ops_gelu_f32.c's loops.
 *
 * GCC does not if-convert the portable loops once AVX2 is enabled (it
 * reports "control flow in loop" and leaves them scalar), so this file
 * spells the same mathematics out in intrinsics: the Numerical Recipes
 * erfc fit and a Cody-Waite exp with a degree-7 polynomial, identical
 * constants, 8 lanes at a time.  The functions carry target attributes
 * rather than the file a -mavx2 flag so the library still loads on a
 * CPU without AVX2; ops_gelu_f32.c picks them only when the CPU has it.
 */
#include "backends/host/ops_gelu_f32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "backends/host/vmath_avx2.h"

/* erfc(x) for the Numerical Recipes fit (fractional error < 1.2e-7). */
static inline TFL_AVX2 __m256 erfc8(__m256 x)
{
    __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 z = _mm256_andnot_ps(sign, x);
    __m256 t = _mm256_div_ps(_mm256_set1_ps(1.0f),
                             _mm256_fmadd_ps(z, _mm256_set1_ps(0.5f), _mm256_set1_ps(1.0f)));
    __m256 p = _mm256_set1_ps(0.17087277f);
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.82215223f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.48851587f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.13520398f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.27886807f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.18628806f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.09678418f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.37409196f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.00002368f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.26551223f));
    __m256 ans = _mm256_mul_ps(t, tfl_exp8(_mm256_fnmadd_ps(z, z, p)));
    __m256 neg = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
    return _mm256_blendv_ps(ans, _mm256_sub_ps(_mm256_set1_ps(2.0f), ans), neg);
}

TFL_AVX2 void host_gelu_f32_avx2(int64_t n, float *o, const float *a)
{
    const __m256 half = _mm256_set1_ps(0.5f), ms = _mm256_set1_ps(-0.70710678118654752f);
    for (int64_t i = 0; i < n; i += 8) {
        /* the tail takes the same arithmetic on a padded copy */
        __m256 x = i + 8 <= n ? _mm256_loadu_ps(a + i) : tfl_load_part8(a + i, n - i, 0.0f);
        __m256 y = _mm256_mul_ps(_mm256_mul_ps(half, x), erfc8(_mm256_mul_ps(x, ms)));
        if (i + 8 <= n)
            _mm256_storeu_ps(o + i, y);
        else
            tfl_store_part8(o + i, n - i, y);
    }
}

TFL_AVX2 void host_gelu_backward_f32_avx2(int64_t n, float *o, const float *g, const float *xs)
{
    const __m256 half = _mm256_set1_ps(0.5f), ms = _mm256_set1_ps(-0.70710678118654752f);
    const __m256 mhalf = _mm256_set1_ps(-0.5f), inv = _mm256_set1_ps(0.39894228040143268f);
    for (int64_t i = 0; i < n; i += 8) {
        __m256 x = i + 8 <= n ? _mm256_loadu_ps(xs + i) : tfl_load_part8(xs + i, n - i, 0.0f);
        __m256 gr = i + 8 <= n ? _mm256_loadu_ps(g + i) : tfl_load_part8(g + i, n - i, 0.0f);
        __m256 cdf = _mm256_mul_ps(half, erfc8(_mm256_mul_ps(x, ms)));
        __m256 pdf = _mm256_mul_ps(tfl_exp8(_mm256_mul_ps(_mm256_mul_ps(mhalf, x), x)), inv);
        __m256 y = _mm256_mul_ps(gr, _mm256_fmadd_ps(x, pdf, cdf));
        if (i + 8 <= n)
            _mm256_storeu_ps(o + i, y);
        else
            tfl_store_part8(o + i, n - i, y);
    }
}

int host_gelu_have_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#else

void host_gelu_f32_avx2(int64_t n, float *o, const float *a) { (void)n; (void)o; (void)a; }
void host_gelu_backward_f32_avx2(int64_t n, float *o, const float *g, const float *xs)
{
    (void)n; (void)o; (void)g; (void)xs;
}
int host_gelu_have_avx2(void) { return 0; }

#endif

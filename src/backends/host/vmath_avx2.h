/*
 * vmath_avx2.h - 8-lane float32 exp for the AVX2/FMA code paths
 * (ops_gelu_avx2.c, vmath.c).  Included only by files whose functions
 * carry the same target attribute; callers check the CPU first.
 *
 * Cody-Waite reduction by ln 2 and a degree-7 Taylor polynomial on
 * |r| <= ln2/2: relative error ~1e-7, like expf to within an ulp or two.
 */
#ifndef TFL_HOST_VMATH_AVX2_H
#define TFL_HOST_VMATH_AVX2_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define TFL_AVX2 __attribute__((target("avx2,fma")))

/* exp(x) for every lane: 0 below -87.33 (where results would be
 * subnormal: flushed), +inf above 88.72, NaN stays NaN. */
static inline TFL_AVX2 __m256 tfl_exp8(__m256 x)
{
    __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    __m256 under = _mm256_cmp_ps(x, _mm256_set1_ps(-87.33f), _CMP_LT_OQ);
    __m256 over = _mm256_cmp_ps(x, _mm256_set1_ps(88.72f), _CMP_GT_OQ);
    __m256 c = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.33f)), _mm256_set1_ps(88.0f));
    __m256 fn = _mm256_round_ps(_mm256_mul_ps(c, _mm256_set1_ps(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(0.693145751953125f), c);
    r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(1.42860682030941723212e-6f), r);
    __m256 p = _mm256_set1_ps(1.9841270e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3888889e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3333338e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1666668e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666667e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i n = _mm256_cvtps_epi32(fn);
    __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_andnot_ps(under, _mm256_mul_ps(p, _mm256_castsi256_ps(bits)));
    y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_inff()), over);
    return _mm256_blendv_ps(y, x, nan);
}

/* n - i lanes (1..7) of p into a vector, the rest fill. */
static inline TFL_AVX2 __m256 tfl_load_part8(const float *p, int64_t k, float fill)
{
    float buf[8];
    for (int i = 0; i < 8; i++)
        buf[i] = i < k ? p[i] : fill;
    return _mm256_loadu_ps(buf);
}

static inline TFL_AVX2 void tfl_store_part8(float *p, int64_t k, __m256 v)
{
    float buf[8];
    _mm256_storeu_ps(buf, v);
    for (int i = 0; i < k; i++)
        p[i] = buf[i];
}

#endif
#endif

/*
 * half.c - bulk fp16/bf16 <-> fp32 conversion of (strided) matrices.
 *
 * The low-precision GEMM converts its inputs to fp32 and its result back,
 * so these loops sit on the hot path: fp16 uses the F16C instructions when
 * the CPU has them (checked once at run time, the library is built for
 * baseline x86-64), bf16 uses AVX2 integer lanes likewise.  Results are bit-identical to the scalar helpers in half.h.
 */
#include "backends/host/gemm_internal.h"

#include "common/half.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HG_HAVE_X86 1
#endif

#ifdef HG_HAVE_X86
static int have_f16c(void)
{
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

__attribute__((target("avx,f16c")))
static void f16_to_f32_vec(const uint16_t *src, float *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++)
        dst[i] = tfl_f16_to_f32(src[i]);
}

__attribute__((target("avx,f16c")))
static void f32_to_f16_vec(const float *src, uint16_t *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_loadu_ps(src + i);
        __m128i h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(dst + i), h);
    }
    for (; i < n; i++)
        dst[i] = tfl_f32_to_f16(src[i]);
}

static int have_avx2(void)
{
    static int cached = -1;
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* bf16 -> fp32: widen and shift, 8 at a time. */
__attribute__((target("avx2")))
static void bf16_to_f32_vec(const uint16_t *src, float *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(src + i));
        __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
        _mm256_storeu_si256((__m256i *)(dst + i), w);
    }
    for (; i < n; i++)
        dst[i] = tfl_bf16_to_f32(src[i]);
}

/* fp32 -> bf16, nearest even, NaN quietened: the scalar rule in integer
 * lanes (no VCVTNEPS2BF16: it flushes subnormals). */
__attribute__((target("avx2")))
static void f32_to_bf16_vec(const float *src, uint16_t *dst, int64_t n)
{
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
    const __m256i inf = _mm256_set1_epi32(0x7f800000);
    const __m256i bias = _mm256_set1_epi32(0x7fff);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i quiet = _mm256_set1_epi32(0x40);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i r2[2];
        for (int h = 0; h < 2; h++) {
            __m256i u = _mm256_loadu_si256((const __m256i *)(src + i + 8 * h));
            __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
            __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
            __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(bias, lsb)), 16);
            __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), quiet);
            r2[h] = _mm256_blendv_epi8(r, q, nan);
        }
        /* pack 2 x 8 (each <= 0xffff) into 16 u16, fixing the lane order */
        __m256i p = _mm256_packus_epi32(r2[0], r2[1]);
        p = _mm256_permute4x64_epi64(p, 0xd8);
        _mm256_storeu_si256((__m256i *)(dst + i), p);
    }
    for (; i < n; i++)
        dst[i] = tfl_f32_to_bf16(src[i]);
}
#endif

/* One contiguous run of n elements. */
static void run_to_f32(tfl_dtype t, const void *src, float *dst, int64_t n)
{
    switch (t) {
    case TFL_DT_F32:
        memcpy(dst, src, (size_t)n * sizeof(float));
        return;
    case TFL_DT_F16: {
        const uint16_t *s = src;
#ifdef HG_HAVE_X86
        if (have_f16c()) {
            f16_to_f32_vec(s, dst, n);
            return;
        }
#endif
        for (int64_t i = 0; i < n; i++)
            dst[i] = tfl_f16_to_f32(s[i]);
        return;
    }
    case TFL_DT_BF16: {
        const uint16_t *s = src;
#ifdef HG_HAVE_X86
        if (have_avx2()) {
            bf16_to_f32_vec(s, dst, n);
            return;
        }
#endif
        /* memcpy keeps the type punning legal; it compiles to a move */
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)s[i] << 16;
            memcpy(dst + i, &u, 4);
        }
        return;
    }
    default:
        return;
    }
}

static void run_from_f32(tfl_dtype t, const float *src, void *dst, int64_t n)
{
    switch (t) {
    case TFL_DT_F32:
        memcpy(dst, src, (size_t)n * sizeof(float));
        return;
    case TFL_DT_F16: {
        uint16_t *d = dst;
#ifdef HG_HAVE_X86
        if (have_f16c()) {
            f32_to_f16_vec(src, d, n);
            return;
        }
#endif
        for (int64_t i = 0; i < n; i++)
            d[i] = tfl_f32_to_f16(src[i]);
        return;
    }
    case TFL_DT_BF16: {
        uint16_t *d = dst;
#ifdef HG_HAVE_X86
        if (have_avx2()) {
            f32_to_bf16_vec(src, d, n);
            return;
        }
#endif
        for (int64_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, src + i, 4);
            /* NaN -> quiet NaN; else round to nearest even */
            uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u;
            uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
            d[i] = (uint16_t)(nan ? ((u >> 16) | 0x40u) : r);
        }
        return;
    }
    default:
        return;
    }
}

void hg_to_f32(tfl_dtype t, const void *src, int64_t ld, int64_t rows,
               int64_t cols, float *dst, int64_t ldd)
{
    size_t es = tfl_dtype_size(t);
    for (int64_t j = 0; j < cols; j++)
        run_to_f32(t, (const char *)src + (size_t)(j * ld) * es, dst + j * ldd, rows);
}

void hg_from_f32(tfl_dtype t, const float *src, int64_t lds, int64_t rows,
                 int64_t cols, void *dst, int64_t ld)
{
    size_t es = tfl_dtype_size(t);
    for (int64_t j = 0; j < cols; j++)
        run_from_f32(t, src + j * lds, (char *)dst + (size_t)(j * ld) * es, rows);
}

double hg_load(tfl_dtype t, const void *p, int64_t i)
{
    switch (t) {
    case TFL_DT_F32: return ((const float *)p)[i];
    case TFL_DT_F64: return ((const double *)p)[i];
    case TFL_DT_F16: return tfl_f16_to_f32(((const uint16_t *)p)[i]);
    case TFL_DT_BF16: return tfl_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return 0.0;
    }
}

void hg_store(tfl_dtype t, void *p, int64_t i, double v)
{
    switch (t) {
    case TFL_DT_F32: ((float *)p)[i] = (float)v; break;
    case TFL_DT_F64: ((double *)p)[i] = v; break;
    /* narrow through fp32, as the GPU rounds its fp32 accumulator */
    case TFL_DT_F16: ((uint16_t *)p)[i] = tfl_f32_to_f16((float)v); break;
    case TFL_DT_BF16: ((uint16_t *)p)[i] = tfl_f32_to_bf16((float)v); break;
    default: break;
    }
}

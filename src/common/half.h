/*
 * half.h - scalar fp16/bf16 <-> fp32 conversions (header-only, any layer).
 *
 * Round-to-nearest-even in both narrowing directions, as the GPU's
 * cvt.rn does; NaN stays NaN (quietened), infinities and subnormals are
 * exact.  Bulk (vectorised) matrix conversions live in backends/host/half.c.
 */
#ifndef TFL_COMMON_HALF_H
#define TFL_COMMON_HALF_H

#include <stdint.h>
#include <string.h>

static inline float tfl_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t tfl_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float tfl_bf16_to_f32(uint16_t h)
{
    return tfl_f32_from_bits((uint32_t)h << 16);
}

static inline uint16_t tfl_f32_to_bf16(float f)
{
    uint32_t u = tfl_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)          /* NaN: keep sign, quiet */
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);              /* RNE on the low half */
    return (uint16_t)(u >> 16);
}

static inline float tfl_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f)                               /* inf / NaN */
        return tfl_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0)
            return tfl_f32_from_bits(sign);
        /* subnormal: value = man * 2^-24, exact in fp32 */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return tfl_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline uint16_t tfl_f32_to_f16(float f)
{
    uint32_t u = tfl_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)                           /* NaN */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u)                          /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) {                         /* below 2^-14: subnormal */
        /* round a * 2^24 to an integer, nearest even */
        if (a < 0x33000000u)                       /* < 2^-25: rounds to 0 */
            return sign;
        uint32_t exp = a >> 23;
        uint32_t man = (a & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - exp;               /* 14..24 */
        uint32_t q = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    /* normal: rebias and round the 13 dropped bits, nearest even */
    uint32_t r = a - 0x38000000u;                  /* exponent - 112 */
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
}

#endif

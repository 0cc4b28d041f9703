/*
 * ops_elementwise_fp16.h - IEEE half and bfloat16 <-> float conversions,
 * rounding to nearest even (what CUDA's __float2half_rn and c10::Half /
 * c10::BFloat16 do).  Bit manipulation only, so loops over them stay
 * cheap; shared by the host elementwise op and the op-table decoders.
 */
#ifndef TFL_OPS_ELEMENTWISE_FP16_H
#define TFL_OPS_ELEMENTWISE_FP16_H

#include <stdint.h>
#include <string.h>

static inline float tfl_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, bits;
    if (e == 0x1f) {
        bits = sign | 0x7f800000u | (m << 13);             /* inf / NaN */
    } else if (e == 0) {
        if (!m) {
            bits = sign;
        } else {                                          /* subnormal */
            e = 113;
            while (!(m & 0x400u)) { m <<= 1; e--; }
            bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((e + 112) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t tfl_float_to_half(float ff)
{
    uint32_t f;
    memcpy(&f, &ff, 4);
    uint32_t sign = f & 0x80000000u;
    f ^= sign;
    uint16_t o;
    if (f >= (127u + 16) << 23) {                 /* >= 65536, inf, NaN */
        o = f > 0x7f800000u ? 0x7e00 : 0x7c00;
    } else if (f < 113u << 23) {                  /* half subnormal or zero */
        /* adding 0.5 puts the half subnormal's bits at the bottom of the
         * float's mantissa, rounded to nearest even by the FPU */
        float t;
        memcpy(&t, &f, 4);
        t += 0.5f;
        memcpy(&f, &t, 4);
        o = (uint16_t)(f - 0x3f000000u);
    } else {                                      /* normal: rebias, round */
        uint32_t odd = (f >> 13) & 1;
        f += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
        o = (uint16_t)(f >> 13);                  /* a carry may give inf */
    }
    return (uint16_t)(o | (sign >> 16));
}

static inline float tfl_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t tfl_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);              /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

#endif

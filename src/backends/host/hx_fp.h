/*
 * hx_fp.h - bit-exact floating-point helpers for the PTX interpreter:
 * rounding a double into f16/bf16/f32 with an explicit rounding mode (one
 * rounding, as cvt and the half-precision instructions require), half and
 * bfloat16 widening, bit casts, and CUDA's min/max NaN rules.
 */
#ifndef TFL_HX_FP_H
#define TFL_HX_FP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hx_ir.h"

static inline float hx_f(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t hx_fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double hx_d(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t hx_db(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* Round x to a binary format with ebits exponent and mbits mantissa bits
 * (f16: 5,10; bf16: 8,7; f32: 8,23), rounding mode R_RN/RZ/RM/RP (R_NONE
 * and R_RNA map to nearest).  Returns the encoding.  NaN gives the
 * canonical NaN (all ones but the sign), as NVIDIA hardware does. */
static inline uint32_t hx_round_small(double x, int ebits, int mbits, int rnd)
{
    uint32_t expmask = (1u << ebits) - 1;
    if (isnan(x)) return (expmask << mbits) | ((1u << mbits) - 1);
    int neg = signbit(x) != 0;
    uint32_t sbit = (uint32_t)neg << (ebits + mbits);
    double a = fabs(x);
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t inf = sbit | (expmask << mbits);
    uint32_t maxf = sbit | ((expmask - 1) << mbits) | ((1u << mbits) - 1);
    if (isinf(a)) return inf;
    if (a == 0) return sbit;
    int e;
    frexp(a, &e);
    e -= 1;                        /* a = m * 2^e, m in [1, 2) */
    if (e < 1 - bias) e = 1 - bias;
    double q = ldexp(1.0, e - mbits);
    double n = a / q, r;
    switch (rnd) {
    case R_RZ: r = trunc(n); break;
    case R_RM: r = neg ? ceil(n) : floor(n); break;
    case R_RP: r = neg ? floor(n) : ceil(n); break;
    case R_RNA: r = round(n); break;
    default: r = nearbyint(n); break;
    }
    double res = r * q;
    if (res >= ldexp(1.0, bias + 1)) {
        if (rnd == R_RZ || (rnd == R_RM && !neg) || (rnd == R_RP && neg)) return maxf;
        return inf;
    }
    if (res == 0) return sbit;
    int e2;
    frexp(res, &e2);
    e2 -= 1;
    if (e2 < 1 - bias)
        return sbit | (uint32_t)ldexp(res, bias - 1 + mbits);
    uint32_t mant = (uint32_t)(ldexp(res, mbits - e2) - ldexp(1.0, mbits));
    return sbit | ((uint32_t)(e2 + bias) << mbits) | mant;
}

static inline uint16_t hx_d2h(double x, int rnd) { return (uint16_t)hx_round_small(x, 5, 10, rnd); }
static inline uint16_t hx_d2bf(double x, int rnd) { return (uint16_t)hx_round_small(x, 8, 7, rnd); }

static inline uint16_t hx_f2h(float f)
{
    return hx_d2h((double)f, R_RN);
}

static inline uint16_t hx_f2bf(float f)
{
    uint32_t u; memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static inline float hx_h2f(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    if (e == 0x1f) u = s | 0x7f800000u | (m << 13);
    else if (e) u = s | ((e + 112) << 23) | (m << 13);
    else if (!m) u = s;
    else {
        float f = ldexpf((float)m, -24);
        return s ? -f : f;
    }
    float f; memcpy(&f, &u, 4); return f;
}

static inline float hx_bf2f(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f;
}

/* min/max: if one input is NaN return the other; both NaN: canonical NaN.
 * -0 < +0.  With nan_prop (.NaN) any NaN gives the canonical NaN. */
static inline float hx_fminf(float a, float b, int nan_prop)
{
    if (isnan(a) || isnan(b)) {
        if (nan_prop || (isnan(a) && isnan(b))) return hx_f(0x7fffffff);
        return isnan(a) ? b : a;
    }
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline float hx_fmaxf(float a, float b, int nan_prop)
{
    if (isnan(a) || isnan(b)) {
        if (nan_prop || (isnan(a) && isnan(b))) return hx_f(0x7fffffff);
        return isnan(a) ? b : a;
    }
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}
static inline double hx_fmin(double a, double b)
{
    if (isnan(a) || isnan(b)) {
        if (isnan(a) && isnan(b)) return hx_d(0x7fffffffffffffffull);
        return isnan(a) ? b : a;
    }
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline double hx_fmax(double a, double b)
{
    if (isnan(a) || isnan(b)) {
        if (isnan(a) && isnan(b)) return hx_d(0x7fffffffffffffffull);
        return isnan(a) ? b : a;
    }
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline float hx_ftz(float f)
{
    return (fpclassify(f) == FP_SUBNORMAL) ? copysignf(0.0f, f) : f;
}

#endif

/*
 * ops_reduce_scalar.h - element loads/stores by tfl_dtype for the host's
 * reduce, softmax and loss ops.
 *
 * Those ops accumulate in double (or int64 for integer reductions) whatever
 * the element type, so one load-as-double and one store-from-double per
 * dtype is all they need; stores round once to the target type (f16/bf16
 * round-to-nearest-even through float, as a CUDA float->half cast does).
 */
#ifndef TFL_OPS_REDUCE_SCALAR_H
#define TFL_OPS_REDUCE_SCALAR_H

#include <stdint.h>
#include <math.h>
#include <string.h>

#include "torchfl/backend.h"
#include "backends/host/hx_fp.h"

/* Bytes per element, 0 for a dtype these ops do not read. */
static inline int rs_is_float(tfl_dtype dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_F16 || dt == TFL_DT_BF16;
}

static inline double rs_ld(tfl_dtype dt, const void *p)
{
    switch (dt) {
    case TFL_DT_F32: { float f; memcpy(&f, p, 4); return f; }
    case TFL_DT_F64: { double d; memcpy(&d, p, 8); return d; }
    case TFL_DT_F16: { uint16_t h; memcpy(&h, p, 2); return hx_h2f(h); }
    case TFL_DT_BF16: { uint16_t h; memcpy(&h, p, 2); return hx_bf2f(h); }
    case TFL_DT_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case TFL_DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TFL_DT_I8: return *(const int8_t *)p;
    case TFL_DT_U8: return *(const uint8_t *)p;
    case TFL_DT_BOOL: return *(const uint8_t *)p != 0;
    default: return 0;
    }
}

static inline int64_t rs_ldi(tfl_dtype dt, const void *p)
{
    switch (dt) {
    case TFL_DT_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case TFL_DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TFL_DT_I8: return *(const int8_t *)p;
    case TFL_DT_U8: return *(const uint8_t *)p;
    case TFL_DT_BOOL: return *(const uint8_t *)p != 0;
    default: return (int64_t)rs_ld(dt, p);
    }
}

static inline void rs_st(tfl_dtype dt, void *p, double v)
{
    switch (dt) {
    case TFL_DT_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case TFL_DT_F64: memcpy(p, &v, 8); break;
    case TFL_DT_F16: { uint16_t h = hx_f2h((float)v); memcpy(p, &h, 2); break; }
    case TFL_DT_BF16: { uint16_t h = hx_f2bf((float)v); memcpy(p, &h, 2); break; }
    case TFL_DT_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case TFL_DT_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case TFL_DT_I8: *(int8_t *)p = (int8_t)v; break;
    case TFL_DT_U8: *(uint8_t *)p = (uint8_t)v; break;
    case TFL_DT_BOOL: *(uint8_t *)p = v != 0; break;
    default: break;
    }
}

static inline void rs_sti(tfl_dtype dt, void *p, int64_t v)
{
    switch (dt) {
    case TFL_DT_I64: memcpy(p, &v, 8); break;
    case TFL_DT_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case TFL_DT_I8: *(int8_t *)p = (int8_t)v; break;
    case TFL_DT_U8: *(uint8_t *)p = (uint8_t)v; break;
    case TFL_DT_BOOL: *(uint8_t *)p = v != 0; break;
    default: rs_st(dt, p, (double)v); break;
    }
}

/* Sum of n contiguous floats: eight float lanes over blocks of 1024
 * elements (vectorisable; error bounded by the block length), blocks added
 * in double. */
static inline double rs_sum_f32(const float *x, int64_t n)
{
    double total = 0;
    int64_t i = 0;
    while (n - i >= 8) {
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int64_t end = n - i >= 1024 ? i + 1024 : i + ((n - i) & ~(int64_t)7);
        for (; i < end; i += 8)
            for (int j = 0; j < 8; j++)
                acc[j] += x[i + j];
        double b = 0;
        for (int j = 0; j < 8; j++)
            b += acc[j];
        total += b;
    }
    for (; i < n; i++)
        total += x[i];
    return total;
}

/* Max (want_max) or min of n >= 1 contiguous floats in eight independent
 * lanes (vectorisable), NaN if any element is NaN. */
static inline float rs_maxmin_f32(const float *x, int64_t n, int want_max)
{
    float m[8];
    int nan[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < 8; j++)
        m[j] = x[0];
    int64_t i = 0, n8 = n & ~(int64_t)7;
    if (want_max)
        for (; i < n8; i += 8)
            for (int j = 0; j < 8; j++) {
                nan[j] |= x[i + j] != x[i + j];
                m[j] = x[i + j] > m[j] ? x[i + j] : m[j];
            }
    else
        for (; i < n8; i += 8)
            for (int j = 0; j < 8; j++) {
                nan[j] |= x[i + j] != x[i + j];
                m[j] = x[i + j] < m[j] ? x[i + j] : m[j];
            }
    float r = m[0];
    int any = nan[0] || m[0] != m[0];
    for (int j = 1; j < 8; j++) {
        any |= nan[j];
        r = want_max ? (m[j] > r ? m[j] : r) : (m[j] < r ? m[j] : r);
    }
    for (; i < n; i++) {
        any |= x[i] != x[i];
        r = want_max ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
    }
    return any ? NAN : r;
}

/* The same for the sum of squares. */
static inline double rs_sumsq_f32(const float *x, int64_t n)
{
    double total = 0;
    int64_t i = 0;
    while (n - i >= 8) {
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int64_t end = n - i >= 1024 ? i + 1024 : i + ((n - i) & ~(int64_t)7);
        for (; i < end; i += 8)
            for (int j = 0; j < 8; j++)
                acc[j] += x[i + j] * x[i + j];
        double b = 0;
        for (int j = 0; j < 8; j++)
            b += acc[j];
        total += b;
    }
    for (; i < n; i++)
        total += (double)x[i] * x[i];
    return total;
}

#endif

/*
 * ops_lowp.h - float16 / bfloat16 storage for the host ops that compute in
 * float (norm, foreach, embedding, ...): a contiguous run of F32/F16/BF16
 * elements into a float buffer and back, rounding to nearest even - what
 * PyTorch's CUDA kernels do for Half/BFloat16 (load into the float
 * "opmath" type, compute, round once on store).  The conversions are the
 * vectorised ones of the low-precision GEMM (half.c).
 *
 * lowp_scratch gives each thread reusable float buffers, so an op can
 * widen its operands without an allocation per launch.
 */
#ifndef TFL_HOST_OPS_LOWP_H
#define TFL_HOST_OPS_LOWP_H

#include <stdint.h>
#include <stdlib.h>

#include "backends/host/gemm_internal.h"
#include "torchfl/backend.h"

static inline int lowp_dtype_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* n elements of type t at src -> float at dst. */
static inline void lowp_widen(tfl_dtype t, const void *src, float *dst, int64_t n)
{
    if (n > 0)
        hg_to_f32(t, src, n, n, 1, dst, n);
}

/* n floats at src -> type t at dst, rounded to nearest even. */
static inline void lowp_narrow(tfl_dtype t, const float *src, void *dst, int64_t n)
{
    if (n > 0)
        hg_from_f32(t, src, n, n, 1, dst, n);
}

#define LOWP_SLOTS 8

/* Per-thread float buffer `slot` (0..LOWP_SLOTS-1) of at least n floats,
 * kept for reuse; NULL when out of memory. */
static inline float *lowp_scratch(int slot, int64_t n)
{
    static _Thread_local float *buf[LOWP_SLOTS];
    static _Thread_local int64_t cap[LOWP_SLOTS];
    if (slot < 0 || slot >= LOWP_SLOTS || n < 0)
        return NULL;
    if (n > cap[slot]) {
        float *p = realloc(buf[slot], (size_t)(n ? n : 1) * sizeof(float));
        if (!p)
            return NULL;
        buf[slot] = p;
        cap[slot] = n;
    }
    if (!buf[slot]) {
        buf[slot] = malloc(sizeof(float));
        cap[slot] = buf[slot] ? 1 : 0;
    }
    return buf[slot];
}

#endif

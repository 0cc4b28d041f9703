/*
 * vmath.h - vectorised float32 exponential sums for the host ops
 * (softmax, log_softmax, attention): AVX2/FMA when the CPU has it, expf
 * otherwise.  Per-element expf cost softmax and attention more than their
 * matrix products.
 */
#ifndef TFL_HOST_VMATH_H
#define TFL_HOST_VMATH_H

#include <stdint.h>

/* x[i] = exp(x[i] - shift) for i < n; returns the sum of the results. */
double host_exp_shift_f32(int64_t n, float *x, float shift);
/* The sum of exp(x[i] - shift), x unchanged. */
double host_sumexp_shift_f32(int64_t n, const float *x, float shift);
/* 1 when the AVX2 forms are in use, here and for GELU (ops_gelu_f32.c);
 * decided once from the CPU. */
int host_vmath_avx2(void);
/* Tests: 0 forces the portable forms, 1 restores the CPU's choice. */
void host_vmath_allow_avx2(int on);

#endif

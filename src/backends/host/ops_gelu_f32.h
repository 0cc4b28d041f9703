/*
 * ops_gelu_f32.h - fast contiguous float32 GELU (ops_gelu_f32.c).
 */
#ifndef TFL_OPS_GELU_F32_H
#define TFL_OPS_GELU_F32_H

#include <stdint.h>

void host_gelu_f32(int64_t n, float *o, const float *a);
void host_gelu_backward_f32(int64_t n, float *o, const float *g, const float *x);

/* The AVX2/FMA forms (ops_gelu_avx2.c); call only when host_gelu_have_avx2(). */
void host_gelu_f32_avx2(int64_t n, float *o, const float *a);
void host_gelu_backward_f32_avx2(int64_t n, float *o, const float *g, const float *x);
int host_gelu_have_avx2(void);

#endif

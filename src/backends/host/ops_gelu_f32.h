/*
 * ops_gelu_f32.h - fast contiguous float32 GELU (ops_gelu_f32.c).
 */
#ifndef TFL_OPS_GELU_F32_H
#define TFL_OPS_GELU_F32_H

#include <stdint.h>

void host_gelu_f32(int64_t n, float *o, const float *a);
void host_gelu_backward_f32(int64_t n, float *o, const float *g, const float *x);

#endif

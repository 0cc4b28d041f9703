/*
 * torchfl/ops/fft.h - the "fft" op of the backend ABI (TFL_OP_FFT):
 * batched FFTs (cuFFT plans).
 *
 * Part of the contract in torchfl/backend.h (included from there).
 * (Being written: the struct below is a placeholder.)
 */
#ifndef TORCHFL_OPS_FFT_H
#define TORCHFL_OPS_FFT_H

#include <stdint.h>

typedef struct tfl_fft_op {
    int fn;
} tfl_fft_op;

#endif

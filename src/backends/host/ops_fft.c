/*
 * ops_fft.c - the host backend's TFL_OP_FFT: batched FFTs (cuFFT plans).
 * (Being written: nothing is supported yet.)
 */
#include "host_ops.h"

int host_fft_supported(const tfl_fft_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_fft(const tfl_fft_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

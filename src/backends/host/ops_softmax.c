/*
 * ops_softmax.c - the host backend's native "softmax" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_softmax_supported(const tfl_softmax_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_softmax(const tfl_softmax_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

/*
 * ops_elementwise.c - the host backend's native "elementwise" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_elementwise_supported(const tfl_elementwise_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_elementwise(const tfl_elementwise_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

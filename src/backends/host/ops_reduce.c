/*
 * ops_reduce.c - the host backend's native "reduce" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_reduce_supported(const tfl_reduce_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_reduce(const tfl_reduce_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

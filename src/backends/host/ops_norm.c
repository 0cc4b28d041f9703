/*
 * ops_norm.c - the host backend's native "norm" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_norm_supported(const tfl_norm_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_norm(const tfl_norm_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

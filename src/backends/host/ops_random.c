/*
 * ops_random.c - the host backend's native "random" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_random_supported(const tfl_random_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_random(const tfl_random_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

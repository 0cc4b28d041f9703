/*
 * ops_foreach.c - the host backend's native "foreach" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_foreach_supported(const tfl_foreach_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_foreach(const tfl_foreach_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

/*
 * ops_index.c - the host backend's native "index" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_index_supported(const tfl_index_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_index(const tfl_index_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

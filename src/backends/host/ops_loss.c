/*
 * ops_loss.c - the host backend's native "loss" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_loss_supported(const tfl_loss_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_loss(const tfl_loss_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

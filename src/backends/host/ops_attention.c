/*
 * ops_attention.c - the host backend's native "attention" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_attention_supported(const tfl_attention_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_attention(const tfl_attention_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

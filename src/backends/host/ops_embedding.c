/*
 * ops_embedding.c - the host backend's native "embedding" op.  Not implemented yet:
 * route falls back to the host executor for these kernels.
 */
#include "backends/host/host_ops.h"

int host_embedding_supported(const tfl_embedding_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_embedding(const tfl_embedding_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

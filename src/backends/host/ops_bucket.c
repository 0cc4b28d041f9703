/*
 * ops_bucket.c - the host backend's native "bucket" op (placeholder).
 */
#include "backends/host/host_ops.h"

int host_bucket_supported(const tfl_bucket_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_bucket(const tfl_bucket_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

/*
 * ops_sparse.c - the host backend's TFL_OP_SPARSE: sparse-dense products and sparse format conversions (cuSPARSE).
 * (Being written: nothing is supported yet.)
 */
#include "host_ops.h"

int host_sparse_supported(const tfl_sparse_op *op)
{
    (void)op;
    return 0;
}

tfl_status host_sparse(const tfl_sparse_op *op)
{
    (void)op;
    return TFL_ERR_UNSUPPORTED;
}

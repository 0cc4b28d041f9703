/*
 * ops_elementwise_complex.h - the complex-number path of the host
 * elementwise op (ops_elementwise_complex.c), used by ops_elementwise.c.
 */
#ifndef TFL_OPS_ELEMENTWISE_COMPLEX_H
#define TFL_OPS_ELEMENTWISE_COMPLEX_H

#include "torchfl/backend.h"

/* Nonzero if the op has a complex operand or computes in complex. */
int host_ew_complex_op(const tfl_elementwise_op *op);

/* Nonzero if the complex path can run this op. */
int host_ew_complex_supported(const tfl_elementwise_op *op);

/* One row of n elements: operand k at ptr[k], stepping st[k] bytes. */
tfl_status host_ew_complex_row(const tfl_elementwise_op *op, char *const ptr[],
                               const int64_t st[], int64_t n);

#endif

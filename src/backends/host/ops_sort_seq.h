/*
 * ops_sort_seq.h - the "sort" op kinds that work on already sorted
 * sequences (runs, prefix sums, embedding segments, async asserts);
 * private to ops_sort*.c.
 */
#ifndef TFL_HOST_OPS_SORT_SEQ_H
#define TFL_HOST_OPS_SORT_SEQ_H

#include "torchfl/backend.h"

int host_sort_seq_supported(const tfl_sort_op *op);
tfl_status host_sort_seq(const tfl_sort_op *op);
/* a == b as the key type's == (NaN equals nothing, -0.0 == +0.0) */
int host_sort_key_eq(tfl_sort_key k, const unsigned char *a, const unsigned char *b);

#endif

/*
 * ops_attention.h - internals of the host attention op shared with its
 * unit test: the op with an explicit scores-scratch budget, so that tests
 * reach the multi-block paths without huge sequences.
 */
#ifndef TFL_HOST_OPS_ATTENTION_H
#define TFL_HOST_OPS_ATTENTION_H

#include "torchfl/backend.h"

/* host_attention with at most block_floats score elements per query
 * block (at least one row is always taken). */
tfl_status host_attention_blocked(const tfl_attention_op *op, int64_t block_floats);

#endif

/*
 * ops_embedding_bag.h - the embedding_bag kinds of the host backend's
 * "embedding" op (ops_embedding_bag.c), called from ops_embedding.c.
 */
#ifndef TFL_HOST_OPS_EMBEDDING_BAG_H
#define TFL_HOST_OPS_EMBEDDING_BAG_H

#include "torchfl/backend.h"

int host_embedding_bag_supported(const tfl_embedding_op *op);
tfl_status host_embedding_bag(const tfl_embedding_op *op);

#endif

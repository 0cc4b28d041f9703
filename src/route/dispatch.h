/*
 * dispatch.h - run a semantic op on the selected backend, with fallback.
 *
 * Library entry points (cuBLAS, cuDNN, ...) build a tfl_op and call
 * tfl_route_op.  Route asks the backend whether it supports the op; if not
 * (or the op is blacklisted) the host backend runs it, as the fallback
 * policy allows.  Every call is counted in the op statistics.
 */
#ifndef TFL_DISPATCH_H
#define TFL_DISPATCH_H

#include "torchfl/backend.h"
#include "route/runtime.h"

/* TFL_OK, or the backend's status; err gets one line on failure. */
tfl_status tfl_route_op(const tfl_op *op, tfl_rt_stream *s);

/* The backend a device pointer belongs to can read it from the host? */
int tfl_route_host_addressable(void);

#endif

/*
 * cudnn_internal.h - what the cuDNN intercept's files share: the handle
 * object and the error helper that records cudnnGetLastErrorString's text.
 */
#ifndef TFL_CUDNN_INTERNAL_H
#define TFL_CUDNN_INTERNAL_H

#include <cudnn.h>
#include <uthash.h>

struct cudnn_handle {
    struct cudnn_handle *self;   /* key of the live-handle set */
    UT_hash_handle hh;
    cudaStream_t stream;
};

/* Nonzero for a handle cudnnCreate gave out and cudnnDestroy did not take. */
int tfl_cudnn_handle_ok(cudnnHandle_t h);

/* Record one line for cudnnGetLastErrorString (and the debug log) and
 * return st. */
cudnnStatus_t tfl_cudnn_fail(cudnnStatus_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

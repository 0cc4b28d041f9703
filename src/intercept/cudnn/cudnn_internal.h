/*
 * cudnn_internal.h - what the cuDNN intercept's files share: the handle
 * object and the error helper that records cudnnGetLastErrorString's text.
 */
#ifndef TFL_CUDNN_INTERNAL_H
#define TFL_CUDNN_INTERNAL_H

#include <cudnn.h>
#include <uthash.h>

#include "torchfl/backend.h"

struct cudnn_handle {
    struct cudnn_handle *self;   /* key of the live-handle set */
    UT_hash_handle hh;
    cudaStream_t stream;
};

/* Nonzero for a handle cudnnCreate gave out and cudnnDestroy did not take. */
int tfl_cudnn_handle_ok(cudnnHandle_t h);

/* The floating cuDNN data types as torchfl's (float, half, bfloat16,
 * double); 0 for any other type. */
int tfl_cudnn_dtype(cudnnDataType_t t, tfl_dtype *out);

/* Legacy descriptors are structs whose first member points at the
 * struct itself while it lives (a cheap check against stale or foreign
 * pointers).  desc_new allocates one zeroed, size bytes, and stores it in
 * *out; desc_free checks and frees it (NULL is fine). */
cudnnStatus_t tfl_cudnn_desc_new(size_t size, void **out);
cudnnStatus_t tfl_cudnn_desc_free(void *desc);

/* Record one line for cudnnGetLastErrorString (and the debug log) and
 * return st. */
cudnnStatus_t tfl_cudnn_fail(cudnnStatus_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

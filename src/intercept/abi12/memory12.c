/*
 * memory12.c - CUDA 12 ABI of pointer attributes, prefetch and advice.
 * Compiled against the CUDA 12 headers (see device_props12.c).
 */
#include "abi12.h"
#include "cudart/cudart_internal.h"
#include "route/runtime.h"
#include "mem/mem.h"

#include <string.h>


#include "cudart/pointer_attrs.inc"

cudaError_t tfl12impl_cudaPointerGetAttributes(struct cudaPointerAttributes *a,
                                               const void *ptr)
{
    if (!a)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    fill_pointer_attrs(a, ptr);
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaPointerGetAttributes, tfl12impl_cudaPointerGetAttributes)

/* Prefetch and advice are hints: all memory is local to the host. */
cudaError_t tfl12impl_cudaMemPrefetchAsync(const void *p, size_t n, int dstDevice,
                                           cudaStream_t stream)
{
    (void)p; (void)n; (void)dstDevice;
    INIT_OR_RET();
    if (!tfl_rt_stream_valid((tfl_rt_stream *)stream))
        RET(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaMemPrefetchAsync, tfl12impl_cudaMemPrefetchAsync)

cudaError_t tfl12impl_cudaMemPrefetchAsync_ptsz(const void *p, size_t n, int dstDevice,
                                                cudaStream_t stream)
{
    return tfl12impl_cudaMemPrefetchAsync(p, n, dstDevice, stream);
}
TFL_CUDART12_OVERRIDE(cudaMemPrefetchAsync_ptsz, tfl12impl_cudaMemPrefetchAsync_ptsz)

cudaError_t tfl12impl_cudaMemAdvise(const void *p, size_t n, enum cudaMemoryAdvise advice,
                                    int device)
{
    (void)p; (void)n; (void)advice; (void)device;
    INIT_OR_RET();
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaMemAdvise, tfl12impl_cudaMemAdvise)

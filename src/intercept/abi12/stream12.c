/*
 * stream12.c - CUDA 12 ABI of capture queries and the extensible launch.
 * Compiled against the CUDA 12 headers (see device_props12.c).
 */
#include "abi12.h"
#include "cudart/cudart_internal.h"
#include "route/runtime.h"

/* The 12.x header renames these to their _v2 forms; the legacy names are
 * exported too, so refer to them literally. */
#undef cudaStreamGetCaptureInfo


static cudaError_t capture_none(cudaStream_t stream, enum cudaStreamCaptureStatus *st,
                                unsigned long long *id)
{
    if (!st)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (!tfl_rt_stream_valid((tfl_rt_stream *)stream))
        RET(cudaErrorInvalidResourceHandle);
    *st = cudaStreamCaptureStatusNone;
    if (id)
        *id = 0;
    return cudaSuccess;
}

/* 12.x legacy form: (stream, status, id). */
cudaError_t tfl12impl_cudaStreamGetCaptureInfo(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *st,
                                               unsigned long long *id)
{
    return capture_none(stream, st, id);
}
TFL_CUDART12_OVERRIDE(cudaStreamGetCaptureInfo, tfl12impl_cudaStreamGetCaptureInfo)

cudaError_t tfl12impl_cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                    enum cudaStreamCaptureStatus *st,
                                                    unsigned long long *id)
{
    return capture_none(stream, st, id);
}
TFL_CUDART12_OVERRIDE(cudaStreamGetCaptureInfo_ptsz, tfl12impl_cudaStreamGetCaptureInfo_ptsz)

/* 12.x _v2: (stream, status, id, graph, dependencies, count). */
cudaError_t tfl12impl_cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
                                                  enum cudaStreamCaptureStatus *st,
                                                  unsigned long long *id,
                                                  cudaGraph_t *graph,
                                                  const cudaGraphNode_t **deps,
                                                  size_t *ndeps)
{
    cudaError_t e = capture_none(stream, st, id);
    if (e != cudaSuccess)
        return e;
    if (graph) *graph = NULL;
    if (deps) *deps = NULL;
    if (ndeps) *ndeps = 0;
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaStreamGetCaptureInfo_v2, tfl12impl_cudaStreamGetCaptureInfo_v2)

cudaError_t tfl12impl_cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream,
                                                       enum cudaStreamCaptureStatus *st,
                                                       unsigned long long *id,
                                                       cudaGraph_t *graph,
                                                       const cudaGraphNode_t **deps,
                                                       size_t *ndeps)
{
    return tfl12impl_cudaStreamGetCaptureInfo_v2(stream, st, id, graph, deps, ndeps);
}
TFL_CUDART12_OVERRIDE(cudaStreamGetCaptureInfo_v2_ptsz, tfl12impl_cudaStreamGetCaptureInfo_v2_ptsz)

/* The launch itself is ABI-neutral: forward the 12.x config's fields. */
cudaError_t tfl12impl_cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
                                          const void *func, void **args)
{
    if (!config)
        RET(cudaErrorInvalidValue);
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension &&
            (a->val.clusterDim.x > 1 || a->val.clusterDim.y > 1 || a->val.clusterDim.z > 1))
            RET(cudaErrorNotSupported);
    }
    return cudaLaunchKernel(func, config->gridDim, config->blockDim, args,
                            config->dynamicSmemBytes, config->stream);
}
TFL_CUDART12_OVERRIDE(cudaLaunchKernelExC, tfl12impl_cudaLaunchKernelExC)

cudaError_t tfl12impl_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                               const void *func, void **args)
{
    return tfl12impl_cudaLaunchKernelExC(config, func, args);
}
TFL_CUDART12_OVERRIDE(cudaLaunchKernelExC_ptsz, tfl12impl_cudaLaunchKernelExC_ptsz)

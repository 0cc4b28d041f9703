/*
 * device_props12.c - the CUDA 12 ABI of the runtime functions whose 12.x
 * layout or prototype differs from 13.x.
 *
 * Compiled against the CUDA 12 headers (scripts/fetch_cuda12_headers.sh),
 * so every struct below has its 12.x layout; each function is exported as
 * name@libcudart.so.12 by TFL_CUDART12_OVERRIDE and calls into the same
 * device model, pool and launch path as the 13.x entry points.
 */
#include "abi12.h"
#include "cudart/cudart_internal.h"
#include "route/runtime.h"
#include "mem/mem.h"

#include <stdio.h>
#include <string.h>

/* The 12.x header renames these to their _v2 forms; the legacy names are
 * exported too, so refer to them literally. */
#undef cudaGetDeviceProperties


#if CUDART_VERSION >= 13000
#error "device_props12.c must be compiled against the CUDA 12 headers"
#endif

#include "cudart/props_common.inc"

cudaError_t tfl12impl_cudaGetDeviceProperties_v2(struct cudaDeviceProp *p, int device)
{
    if (!p)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    const tfl_device_info *d = tfl_rt_device_info(device);
    if (!d)
        RET(cudaErrorInvalidDevice);
    fill_common_props(p, device, d);
    /* fields CUDA 13 dropped */
    p->clockRate = d->clock_khz;
    p->memoryClockRate = d->mem_clock_khz;
    p->computeMode = cudaComputeModeDefault;
    p->kernelExecTimeoutEnabled = 0;
    p->deviceOverlap = 1;
    p->maxTexture1DLinear = attr(device, cudaDevAttrMaxTexture1DLinearWidth);
    p->singleToDoublePrecisionPerfRatio = attr(device, cudaDevAttrSingleToDoublePrecisionPerfRatio);
    p->cooperativeMultiDeviceLaunch = 1;
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaGetDeviceProperties_v2, tfl12impl_cudaGetDeviceProperties_v2)

/* The pre-_v2 12.x symbol writes the same 12.x layout. */
cudaError_t tfl12impl_cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    return tfl12impl_cudaGetDeviceProperties_v2(p, device);
}
TFL_CUDART12_OVERRIDE(cudaGetDeviceProperties, tfl12impl_cudaGetDeviceProperties)

cudaError_t tfl12impl_cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    *device = 0;
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaChooseDevice, tfl12impl_cudaChooseDevice)

/* The runtime a 12.x binary was built for is a 12.x runtime. */
cudaError_t tfl12impl_cudaRuntimeGetVersion(int *v)
{
    if (!v)
        RET(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}
TFL_CUDART12_OVERRIDE(cudaRuntimeGetVersion, tfl12impl_cudaRuntimeGetVersion)

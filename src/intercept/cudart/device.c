/*
 * device.c - CUDA runtime device management: count, selection, properties,
 * attributes, limits, versions.
 *
 * Thin: argument checks and translation; the device model is in
 * src/route/device.c and src/route/attrs.c.
 */
#include "versions.h"
#include "cudart/cudart_internal.h"
#include "route/runtime.h"
#include "driver/driver_hooks.h"

#include <stdio.h>
#include <string.h>


/* Per-device, process-wide state CUDA keeps across threads. */
static unsigned device_flags[64];
static size_t limits[64][8];

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        RET(cudaErrorInvalidValue);
    cudaError_t e = tfl_cudart_init();
    if (e != cudaSuccess) {
        *count = 0;
        RET(e);
    }
    *count = tfl_rt_device_count();
    if (*count == 0)
        RET(cudaErrorNoDevice);
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    *device = tfl_rt_current_device();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device))
        RET(cudaErrorInvalidDevice);
    tfl_rt_set_current_device(device);
    tfl_drv_runtime_set_device(device);
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device))
        RET(cudaErrorInvalidDevice);
    if (flags & ~1u)   /* cudaInitDeviceFlagsAreValid is the only flag */
        RET(cudaErrorInvalidValue);
    (void)deviceFlags;
    return cudaSuccess;
}

cudaError_t cudaSetValidDevices(int *device_arr, int len)
{
    INIT_OR_RET();
    if (len < 0 || (len > 0 && !device_arr))
        RET(cudaErrorInvalidValue);
    for (int i = 0; i < len; i++)
        if (!tfl_rt_device_is_valid(device_arr[i]))
            RET(cudaErrorInvalidDevice);
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    *device = 0;   /* every visible device is the same kind */
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device))
        RET(cudaErrorInvalidDevice);
    if (tfl_rt_device_attr(device, (int)attr, value) != TFL_OK)
        RET(cudaErrorInvalidValue);
    return cudaSuccess;
}

#include "cudart/props_common.inc"

/* The CUDA 13 layout; the CUDA 12 one is filled in abi12/device_props12.c. */
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (!p)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    const tfl_device_info *d = tfl_rt_device_info(device);
    if (!d)
        RET(cudaErrorInvalidDevice);
    fill_common_props(p, device, d);
    p->deviceNumaConfig = 0;
    p->deviceNumaId = -1;
    p->mpsEnabled = 0;
    p->hostNumaId = -1;
    return cudaSuccess;
}

/* 13 headers have no _v2, but callers name it (and 12 binaries use it,
 * at the 12 version node, served by abi12.c). */
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *p, int device)
{
    return cudaGetDeviceProperties(p, device);
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    const tfl_device_info *d = tfl_rt_device_info(device);
    if (!d)
        RET(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "%08X:%02X:%02X.0", d->pci_domain, d->pci_bus,
             d->pci_device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    if (!device || !pciBusId)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    unsigned dom = 0, bus = 0, dv = 0;
    if (sscanf(pciBusId, "%x:%x:%x", &dom, &bus, &dv) != 3 &&
        sscanf(pciBusId, "%x:%x", &bus, &dv) != 2)
        RET(cudaErrorInvalidValue);
    for (int i = 0; i < tfl_rt_device_count(); i++) {
        const tfl_device_info *d = tfl_rt_device_info(i);
        if ((unsigned)d->pci_bus == bus && (unsigned)d->pci_device == dv) {
            *device = i;
            return cudaSuccess;
        }
    }
    RET(cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceSynchronize(void)
{
    INIT_OR_RET();
    cudaError_t s = tfl_cudart_sticky();
    if (s != cudaSuccess)
        RET(s);
    RET(tfl_cudart_async(tfl_rt_device_sync()));
}

cudaError_t cudaDeviceReset(void)
{
    INIT_OR_RET();
    /* The process's allocations stay valid in torchfl: a reset that freed
     * memory other threads still use would corrupt them.  Cached memory
     * goes back to the system, which is what callers want from it. */
    tfl_rt_device_sync();
    tfl_drv_runtime_reset(tfl_rt_current_device());
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    INIT_OR_RET();
    /* schedule mask 0x07 | map host 0x08 | keep local mem 0x10 | sync mem ops 0x80 */
    if (flags & ~(0x07u | 0x08u | 0x10u | 0x80u))
        RET(cudaErrorInvalidValue);
    int dev = tfl_rt_current_device();
    device_flags[dev & 63] = flags | 0x08u; /* mapping is always on */
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    *flags = device_flags[tfl_rt_current_device() & 63] | 0x08u;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if (!pValue)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    static const size_t defaults[8] = {
        1024,          /* cudaLimitStackSize */
        1 << 20,       /* cudaLimitPrintfFifoSize */
        8 << 20,       /* cudaLimitMallocHeapSize */
        2,             /* cudaLimitDevRuntimeSyncDepth */
        2048,          /* cudaLimitDevRuntimePendingLaunchCount */
        32,            /* cudaLimitMaxL2FetchGranularity */
        0,             /* cudaLimitPersistingL2CacheSize */
        0,
    };
    if ((int)limit < 0 || (int)limit > 6)
        RET(cudaErrorUnsupportedLimit);
    size_t v = limits[tfl_rt_current_device() & 63][limit];
    *pValue = v ? v : defaults[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    INIT_OR_RET();
    if ((int)limit < 0 || (int)limit > 6)
        RET(cudaErrorUnsupportedLimit);
    limits[tfl_rt_current_device() & 63][limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig)
        RET(cudaErrorInvalidValue);
    *pCacheConfig = cudaFuncCachePreferNone;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    if ((int)cacheConfig < 0 || (int)cacheConfig > 3)
        RET(cudaErrorInvalidValue);
    return cudaSuccess;   /* a hint; nothing to configure on the host */
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    INIT_OR_RET();
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device) || !tfl_rt_device_is_valid(peerDevice))
        RET(cudaErrorInvalidDevice);
    /* all host "devices" share one memory */
    *canAccessPeer = device != peerDevice;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    INIT_OR_RET();
    if (flags)
        RET(cudaErrorInvalidValue);
    if (!tfl_rt_device_is_valid(peerDevice))
        RET(cudaErrorInvalidDevice);
    if (peerDevice == tfl_rt_current_device())
        RET(cudaErrorInvalidDevice);
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(peerDevice))
        RET(cudaErrorInvalidDevice);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                      int srcDevice, int dstDevice)
{
    if (!value)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(srcDevice) || !tfl_rt_device_is_valid(dstDevice) ||
        srcDevice == dstDevice)
        RET(cudaErrorInvalidDevice);
    (void)attr;
    *value = 1;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        RET(cudaErrorInvalidValue);
    *driverVersion = TFL_CUDA_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        RET(cudaErrorInvalidValue);
    *runtimeVersion = TFL_CUDA_VERSION;
    return cudaSuccess;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

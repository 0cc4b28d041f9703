/*
 * device.c - devices: count, name, UUID, memory size, compute capability,
 * PCI ids and every CUdevice_attribute, all derived from route's device
 * model so that the driver and the runtime describe the same device.
 *
 * Attribute values come from route (tfl_rt_device_attr), which
 * cudaDeviceGetAttribute and cudaGetDeviceProperties use too; this file
 * adds only the attributes that exist for the driver alone.
 */
#include "drv_internal.h"

#include <stdio.h>
#include <string.h>

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    int n = tfl_rt_device_count();
    *count = n > TFL_DRV_MAX_DEVICES ? TFL_DRV_MAX_DEVICES : n;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = tfl_drv_check_device(ordinal)) != CUDA_SUCCESS)
        return r;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_device_info di;
    tfl_drv_device_info(dev, &di);
    snprintf(name, (size_t)len, "%s", di.name);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_device_info di;
    tfl_drv_device_info(dev, &di);
    memcpy(uuid->bytes, di.uuid, sizeof uuid->bytes);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_device_info di;
    tfl_drv_device_info(dev, &di);
    *bytes = (size_t)di.total_mem;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_device_info di;
    tfl_drv_device_info(dev, &di);
    *major = di.cc_major;
    *minor = di.cc_minor;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    memset(prop, 0, sizeof *prop);
    static const CUdevice_attribute want[] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, CU_DEVICE_ATTRIBUTE_WARP_SIZE,
        CU_DEVICE_ATTRIBUTE_MAX_PITCH, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
    };
    int v[sizeof want / sizeof want[0]];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!tfl_drv_attr(dev, want[i], &v[i]))
            return CUDA_ERROR_UNKNOWN;
    prop->maxThreadsPerBlock = v[0];
    for (int i = 0; i < 3; i++) {
        prop->maxThreadsDim[i] = v[1 + i];
        prop->maxGridSize[i] = v[4 + i];
    }
    prop->sharedMemPerBlock = v[7];
    prop->totalConstantMemory = v[8];
    prop->SIMDWidth = v[9];
    prop->memPitch = v[10];
    prop->regsPerBlock = v[11];
    prop->clockRate = v[12];
    prop->textureAlign = v[13];
    return CUDA_SUCCESS;
}

/* The attributes route's device model (tfl_rt_device_attr, shared with
 * cudaDeviceGetAttribute) does not describe: the driver-only ones about
 * virtual memory management and shareable handles.  -1: unknown. */
static int driver_only_attribute(CUdevice_attribute a)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: return 1;
    /* vmm.c implements cuMemCreate/Map/SetAccess with real semantics and
     * exports POSIX file descriptors (a memfd) */
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK: return 0;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED: return 0;
    default: return -1;
    }
}

int tfl_drv_attr(int dev, CUdevice_attribute a, int *value)
{
    if (tfl_rt_device_attr(dev, (int)a, value) == TFL_OK)
        return 1;
    int v = driver_only_attribute(a);
    if (v < 0)
        return 0;
    *value = v;
    return 1;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    return tfl_drv_attr(dev, attrib, pi) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_device_info di;
    tfl_drv_device_info(dev, &di);
    snprintf(pciBusId, (size_t)len, "%08x:%02x:%02x.0", (unsigned)di.pci_domain,
             (unsigned)di.pci_bus, (unsigned)di.pci_device);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned dom = 0, bus = 0, slot = 0, fn = 0;
    /* domain:bus:device.function, domain:bus:device or bus:device.function */
    if (sscanf(pciBusId, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) < 3) {
        dom = 0;
        if (sscanf(pciBusId, "%x:%x.%x", &bus, &slot, &fn) < 2)
            return CUDA_ERROR_INVALID_VALUE;
    }
    int n = tfl_rt_device_count();
    for (int d = 0; d < n && d < TFL_DRV_MAX_DEVICES; d++) {
        tfl_device_info di;
        tfl_drv_device_info(d, &di);
        if ((unsigned)di.pci_domain == dom && (unsigned)di.pci_bus == bus &&
            (unsigned)di.pci_device == slot) {
            *dev = d;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_DEVICE;
}

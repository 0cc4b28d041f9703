/*
 * memory.c - CUDA runtime allocation entry points over the torchfl pool.
 *
 * Device, managed and pinned-host memory all come from src/mem; the
 * address map knows each allocation's kind, so cudaFree of a pinned
 * pointer or cudaFreeHost of a device pointer is an error, not corruption.
 */
#include "cudart/cudart_internal.h"
#include "route/runtime.h"
#include "mem/mem.h"
#include "driver/driver_hooks.h"

#include <string.h>


#define KIND_BIT(k) (1u << (k))

static cudaError_t alloc(void **p, size_t size, tfl_mem_kind kind, unsigned flags)
{
    if (!p)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (size == 0) {        /* CUDA: success with a NULL pointer */
        *p = NULL;
        return cudaSuccess;
    }
    void *out = NULL;
    tfl_status st = tfl_mem_alloc(size, kind, tfl_rt_current_device(), flags, &out);
    if (st != TFL_OK) {
        *p = NULL;
        RET(tfl_cudart_from_status(st));
    }
    *p = out;
    return cudaSuccess;
}

static cudaError_t release(void *p, unsigned mask)
{
    INIT_OR_RET();
    if (!p)
        return cudaSuccess;
    cudaError_t s = tfl_cudart_sticky();
    if (s != cudaSuccess)
        RET(s);
    if (tfl_mem_free(p, mask) != TFL_OK)
        RET(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return alloc(devPtr, size, TFL_MEM_DEVICE, 0);
}

cudaError_t cudaFree(void *devPtr)
{
    return release(devPtr, KIND_BIT(TFL_MEM_DEVICE) | KIND_BIT(TFL_MEM_MANAGED));
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    /* cudaMemAttachGlobal 1, cudaMemAttachHost 2: exactly one */
    if (flags != 1 && flags != 2)
        RET(cudaErrorInvalidValue);
    return alloc(devPtr, size, TFL_MEM_MANAGED, flags);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch)
        RET(cudaErrorInvalidValue);
    /* Rows aligned as the texture pitch alignment of a real device. */
    size_t p = (width + 511) & ~(size_t)511;
    if (width == 0)
        p = 0;
    cudaError_t e = alloc(devPtr, p * height, TFL_MEM_DEVICE, 0);
    if (e == cudaSuccess)
        *pitch = p;
    return e;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        RET(cudaErrorInvalidValue);
    size_t pitch = 0;
    void *p = NULL;
    cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth);
    if (e != cudaSuccess)
        return e;
    pitchedDevPtr->ptr = p;
    pitchedDevPtr->pitch = pitch;
    pitchedDevPtr->xsize = extent.width;
    pitchedDevPtr->ysize = extent.height;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return alloc(ptr, size, TFL_MEM_HOST_PINNED, 0);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    /* Portable 1 | DeviceMapped 2 | WriteCombined 4 */
    if (flags & ~7u)
        RET(cudaErrorInvalidValue);
    return alloc(pHost, size, TFL_MEM_HOST_PINNED, flags);
}

cudaError_t cudaFreeHost(void *ptr)
{
    return release(ptr, KIND_BIT(TFL_MEM_HOST_PINNED));
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    /* Portable 1 | Mapped 2 | IoMemory 4 | ReadOnly 8 */
    if (!ptr || size == 0 || (flags & ~15u))
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (tfl_mem_lookup(ptr, NULL))
        RET(cudaErrorHostMemoryAlreadyRegistered);
    tfl_status st = tfl_mem_register(ptr, size, TFL_MEM_HOST_REGISTERED,
                                     tfl_rt_current_device(), flags);
    if (st != TFL_OK)
        RET(st == TFL_ERR_INVALID ? cudaErrorHostMemoryAlreadyRegistered
                                  : tfl_cudart_from_status(st));
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    if (!ptr)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (tfl_mem_unregister(ptr, TFL_MEM_HOST_REGISTERED) != TFL_OK)
        RET(cudaErrorHostMemoryNotRegistered);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice || !pHost || flags)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_alloc_info a;
    if (!tfl_mem_lookup(pHost, &a) ||
        (a.kind != TFL_MEM_HOST_PINNED && a.kind != TFL_MEM_HOST_REGISTERED))
        RET(cudaErrorInvalidValue);
    *pDevice = pHost;   /* unified addressing: the same address */
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    if (!pFlags || !pHost)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_alloc_info a;
    if (!tfl_mem_lookup(pHost, &a) ||
        (a.kind != TFL_MEM_HOST_PINNED && a.kind != TFL_MEM_HOST_REGISTERED))
        RET(cudaErrorInvalidValue);
    *pFlags = a.flags | 2u; /* always mapped */
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    INIT_OR_RET();
    const tfl_device_info *d = tfl_rt_device_info(tfl_rt_current_device());
    tfl_mem_stats s;
    tfl_mem_get_stats(&s);
    uint64_t tot = s.limit ? s.limit : (d ? d->total_mem : 0);
    /* what the limit counts: the pool and the driver's VMM mappings */
    uint64_t used = s.reserved + tfl_drv_vmm_bytes();
    if (free)
        *free = (size_t)(used < tot ? tot - used : 0);
    if (total)
        *total = (size_t)tot;
    return cudaSuccess;
}

#include "cudart/pointer_attrs.inc"

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    if (!attributes)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    fill_pointer_attrs(attributes, ptr);
    return cudaSuccess;
}

/* ------------------------------------------- stream-ordered allocation */

/* One default pool per device: the torchfl pool itself.  Handles are
 * small integers cast to pointers so a made-up handle is recognisable. */
#define DEFAULT_POOL(dev) ((cudaMemPool_t)(uintptr_t)(0x7f100000u + (unsigned)(dev)))

static int pool_valid(cudaMemPool_t pool)
{
    uintptr_t v = (uintptr_t)pool;
    return v >= 0x7f100000u && v < 0x7f100000u + (unsigned)tfl_rt_device_count();
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    if (!tfl_rt_stream_valid((tfl_rt_stream *)hStream))
        RET(cudaErrorInvalidResourceHandle);
    return alloc(devPtr, size, TFL_MEM_DEVICE, 0);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    if (!tfl_rt_stream_valid((tfl_rt_stream *)hStream))
        RET(cudaErrorInvalidResourceHandle);
    return release(devPtr, KIND_BIT(TFL_MEM_DEVICE) | KIND_BIT(TFL_MEM_MANAGED));
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream)
{
    if (!pool_valid(memPool))
        RET(cudaErrorInvalidValue);
    return cudaMallocAsync(ptr, size, stream);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device))
        RET(cudaErrorInvalidDevice);
    *memPool = DEFAULT_POOL(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    return cudaDeviceGetDefaultMemPool(memPool, device);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device))
        RET(cudaErrorInvalidDevice);
    if (!pool_valid(memPool))
        RET(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    INIT_OR_RET();
    if (!pool_valid(memPool))
        RET(cudaErrorInvalidValue);
    (void)minBytesToKeep;
    tfl_mem_trim();
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                    void *value)
{
    INIT_OR_RET();
    if (!pool_valid(memPool) || !value)
        RET(cudaErrorInvalidValue);
    if (attr == cudaMemPoolAttrReservedMemHigh || attr == cudaMemPoolAttrUsedMemHigh)
        tfl_mem_reset_peak();
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                    void *value)
{
    INIT_OR_RET();
    if (!pool_valid(memPool) || !value)
        RET(cudaErrorInvalidValue);
    tfl_mem_stats s;
    tfl_mem_get_stats(&s);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *(int *)value = 1;
        break;
    case cudaMemPoolAttrReleaseThreshold:
        *(uint64_t *)value = 0;
        break;
    case cudaMemPoolAttrReservedMemCurrent:
        *(uint64_t *)value = s.reserved;
        break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        *(uint64_t *)value = s.peak;
        break;
    case cudaMemPoolAttrUsedMemCurrent:
        *(uint64_t *)value = s.current;
        break;
    default:
        RET(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

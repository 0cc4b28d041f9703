/*
 * memory.c - allocation entry points (device, pitched, managed, pinned and
 * registered host memory), memory info, address ranges and pointer
 * attributes, over torchfl's pool and address map (src/mem/mem.h).
 *
 * With unified addressing a device pointer is an address in the process,
 * so CUdeviceptr and void * convert one to one.
 */
#include "drv_internal.h"

#include <string.h>

#include "mem/mem.h"

#define DEV_KINDS ((1u << TFL_MEM_DEVICE) | (1u << TFL_MEM_MANAGED))
#define PITCH_ALIGN 512

static void *ptr(CUdeviceptr d) { return (void *)(uintptr_t)d; }
static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

static CUresult alloc(CUdeviceptr *out, size_t size, tfl_mem_kind kind, unsigned flags)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!out || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    tfl_status st = tfl_mem_alloc(size, kind, c->dev, flags, &p);
    if (st != TFL_OK)
        return st == TFL_ERR_INVALID ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
    *out = dptr(p);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dp, size_t bytesize)
{
    return alloc(dp, bytesize, TFL_MEM_DEVICE, 0);
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dp, size_t bytesize, unsigned int flags)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        return CUDA_ERROR_INVALID_VALUE;
    return alloc(dp, bytesize, TFL_MEM_MANAGED, flags);
}

CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dp, size_t *pPitch, size_t WidthInBytes,
                                    size_t Height, unsigned int ElementSizeBytes)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dp || !pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = (WidthInBytes + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if (pitch < WidthInBytes || Height > SIZE_MAX / pitch)
        return CUDA_ERROR_INVALID_VALUE;
    r = alloc(dp, pitch * Height, TFL_MEM_DEVICE, 0);
    if (r == CUDA_SUCCESS)
        *pPitch = pitch;
    return r;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dp)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (dp == 0)
        return CUDA_SUCCESS;
    /* The real driver finishes outstanding work that may use the memory;
     * in the synchronous model nothing is outstanding. */
    return tfl_mem_free(ptr(dp), DEV_KINDS) == TFL_OK ? CUDA_SUCCESS
                                                       : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    CUdeviceptr d = 0;
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp)
        return CUDA_ERROR_INVALID_VALUE;
    r = alloc(&d, bytesize, TFL_MEM_HOST_PINNED,
                       CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (r == CUDA_SUCCESS)
        *pp = ptr(d);
    return r;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp || (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                                     CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr d = 0;
    r = alloc(&d, bytesize, TFL_MEM_HOST_PINNED, Flags);
    if (r == CUDA_SUCCESS)
        *pp = ptr(d);
    return r;
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return tfl_mem_free(p, 1u << TFL_MEM_HOST_PINNED) == TFL_OK ? CUDA_SUCCESS
                                                                 : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                             CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)))
        return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_MEMHOSTREGISTER_IOMEMORY)  /* device I/O space: no such thing */
        return CUDA_ERROR_NOT_SUPPORTED;
    tfl_alloc_info ai;
    if (tfl_mem_lookup(p, &ai) || tfl_mem_lookup((const char *)p + bytesize - 1, &ai))
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    tfl_status st = tfl_mem_register(p, bytesize, TFL_MEM_HOST_REGISTERED, c->dev, Flags);
    if (st == TFL_ERR_INVALID)
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    return tfl_drv_status(st);
}

CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    return cuMemHostRegister_v2(p, bytesize, Flags);
}

CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_alloc_info ai;
    if (!tfl_mem_lookup(p, &ai) || ai.kind != TFL_MEM_HOST_REGISTERED || ai.base != p)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    return tfl_mem_unregister(p, TFL_MEM_HOST_REGISTERED) == TFL_OK
               ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

static int is_host_kind(tfl_mem_kind k)
{
    return k == TFL_MEM_HOST_PINNED || k == TFL_MEM_HOST_REGISTERED;
}

CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pdptr || !p || Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_alloc_info ai;
    if (!tfl_mem_lookup(p, &ai) || !is_host_kind(ai.kind))
        return CUDA_ERROR_INVALID_VALUE;
    *pdptr = dptr(p);  /* unified addressing: the same address */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pFlags || !p)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_alloc_info ai;
    if (!tfl_mem_lookup(p, &ai) || !is_host_kind(ai.kind))
        return CUDA_ERROR_INVALID_VALUE;
    *pFlags = ai.flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_, size_t *total)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!free_ || !total)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_device_info di;
    tfl_drv_device_info(c->dev, &di);
    tfl_mem_stats ms;
    tfl_mem_get_stats(&ms);
    /* As cudaMemGetInfo counts: the pool limit when set, else the
     * device's memory; live and cached pool bytes are used, and so are the
     * VMM's physical allocations, which the pool does not see. */
    uint64_t tot = ms.limit ? ms.limit : di.total_mem;
    uint64_t used = ms.current + ms.cached + tfl_drv_vmm_bytes();
    *total = (size_t)tot;
    *free_ = (size_t)(used < tot ? tot - used : 0);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dp)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    tfl_alloc_info ai;
    if (!tfl_mem_lookup(ptr(dp), &ai))
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = dptr(ai.base);
    if (psize)
        *psize = ai.size;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------ pointer attributes */

static CUmemorytype memtype(tfl_mem_kind k)
{
    return is_host_kind(k) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
}

/* One attribute of a known pointer; CUDA_ERROR_INVALID_VALUE for an
 * attribute that does not apply. */
static CUresult attr_known(void *data, CUpointer_attribute a, CUdeviceptr p,
                           const tfl_alloc_info *ai)
{
    void *vbase = NULL;
    size_t vsize = 0;
    unsigned long long block = 0;
    int vmm = tfl_drv_vmm_mapping(ptr(p), &vbase, &vsize, &block);
    switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        /* memory the runtime made without a device (e.g. pinned host
         * memory recorded with device -1) belongs to no context */
        *(CUcontext *)data = ai->device >= 0 && ai->device < TFL_DRV_MAX_DEVICES
                                 ? tfl_drv_primary(ai->device) : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = memtype(ai->kind);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = p;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!is_host_kind(ai->kind) && ai->kind != TFL_MEM_MANAGED)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = ptr(p);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        *(int *)data = 1;   /* every operation is synchronous here */
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        /* the base address is unique among live allocations */
        *(unsigned long long *)data = vmm ? block : (unsigned long long)(uintptr_t)ai->base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = ai->kind == TFL_MEM_MANAGED;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = ai->device;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = dptr(ai->base);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = ai->size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data =
            vmm ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned int *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
        *(size_t *)data = vmm ? vsize : ai->size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(void **)data = vmm ? vbase : ai->base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
        return CUDA_ERROR_NOT_SUPPORTED;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr p)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_alloc_info ai;
    if (!tfl_mem_lookup(ptr(p), &ai))
        return CUDA_ERROR_INVALID_VALUE;
    return attr_known(data, attribute, p, &ai);
}

/* Unlike cuPointerGetAttribute, an unknown pointer is not an error here:
 * each attribute gets its "nothing" value. */
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
                                        CUpointer_attribute *attributes, void **data,
                                        CUdeviceptr p)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (numAttributes == 0 || !attributes || !data)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_alloc_info ai;
    int known = tfl_mem_lookup(ptr(p), &ai);
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i])
            return CUDA_ERROR_INVALID_VALUE;
        CUpointer_attribute a = attributes[i];
        if (known) {
            CUresult e = attr_known(data[i], a, p, &ai);
            if (e == CUDA_SUCCESS)
                continue;
            if (a == CU_POINTER_ATTRIBUTE_HOST_POINTER) {
                *(void **)data[i] = NULL;
                continue;
            }
            if (a == CU_POINTER_ATTRIBUTE_P2P_TOKENS) {
                memset(data[i], 0, sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS));
                continue;
            }
            return e;
        }
        switch (a) {
        case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned int *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: *(void **)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
            memset(data[i], 0, sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS));
            break;
        case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        case CU_POINTER_ATTRIBUTE_MAPPED:
        case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
            *(int *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = -2; break;
        case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(unsigned int *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
            *(unsigned long long *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *(size_t *)data[i] = 0; break;
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerSetAttribute(const void *value, CUpointer_attribute attribute,
                                       CUdeviceptr p)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    tfl_alloc_info ai;
    if (!value || !tfl_mem_lookup(ptr(p), &ai))
        return CUDA_ERROR_INVALID_VALUE;
    /* SYNC_MEMOPS is the only settable attribute; every memory operation
     * is synchronous already, so setting it changes nothing. */
    return attribute == CU_POINTER_ATTRIBUTE_SYNC_MEMOPS ? CUDA_SUCCESS
                                                         : CUDA_ERROR_INVALID_VALUE;
}

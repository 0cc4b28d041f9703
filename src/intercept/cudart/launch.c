/*
 * launch.c - kernel launches and function attributes.
 *
 * CUDA 12 host stubs push a configuration, pop it and call
 * cudaLaunchKernel(stub, ...); CUDA 13 stubs resolve a cudaKernel_t once
 * with __cudaGetKernel and call __cudaLaunchKernel(handle, ...).  Both end
 * in tfl_rt_launch.  Execution is synchronous, so a kernel fault is
 * returned by the launch itself (as with CUDA_LAUNCH_BLOCKING=1) and made
 * sticky, as a GPU makes it.
 */
#include "cudart/cudart_internal.h"
#include "route/runtime.h"
#include "common/log.h"

#include <string.h>


/* ---------------------------------------------- push/pop configuration */

struct call_config {
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
};

#define CONFIG_DEPTH 16
static __thread struct call_config config_stack[CONFIG_DEPTH];
static __thread int config_top;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream)
{
    if (config_top >= CONFIG_DEPTH)
        return 1;
    config_stack[config_top++] = (struct call_config){ gridDim, blockDim, sharedMem,
                                                       (cudaStream_t)stream };
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream)
{
    if (config_top <= 0)
        RET(cudaErrorMissingConfiguration);
    struct call_config *c = &config_stack[--config_top];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->smem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

/* ------------------------------------------------------------- kernels */

/* A cudaKernel_t or a host stub: both name a registered kernel. */
static tfl_kernel *resolve(const void *func)
{
    tfl_kernel *k = tfl_rt_kernel_by_host(func);
    if (!k && tfl_rt_kernel_valid((tfl_kernel *)func))
        k = (tfl_kernel *)func;
    return k;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    if (!kernel)
        RET(cudaErrorInvalidValue);
    tfl_kernel *k = tfl_rt_kernel_by_host(hostFun);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    *kernel = (cudaKernel_t)k;
    return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    if (!functionPtr)
        RET(cudaErrorInvalidValue);
    tfl_kernel *k = resolve(symbolPtr);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    *functionPtr = (cudaFunction_t)k;
    return cudaSuccess;
}

static cudaError_t launch(tfl_kernel *k, dim3 grid, dim3 block, void **args,
                          const void *arg_buffer, size_t arg_size, size_t smem,
                          cudaStream_t stream)
{
    cudaError_t e = tfl_cudart_enter();
    if (e != cudaSuccess)
        RET(e);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    tfl_launch l = {
        .grid = { grid.x, grid.y, grid.z },
        .block = { block.x, block.y, block.z },
        .smem = smem,
        .stream = (tfl_rt_stream *)stream,
        .args = args,
        .arg_buffer = arg_buffer,
        .arg_buffer_size = arg_size,
    };
    int ce = 0;
    char err[512] = "";
    tfl_status st = tfl_rt_launch(k, &l, &ce, err, sizeof err);
    if (st == TFL_OK)
        return cudaSuccess;
    tfl_error("%s", err[0] ? err : "kernel launch failed");
    if (st == TFL_ERR_DEVICE)
        tfl_cudart_set_sticky((cudaError_t)ce);
    RET((cudaError_t)ce);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                               void **args, size_t sharedMem, cudaStream_t stream)
{
    tfl_kernel *k = tfl_rt_kernel_valid((tfl_kernel *)kernel) ? (tfl_kernel *)kernel : NULL;
    return launch(k, gridDim, blockDim, args, NULL, 0, sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem, cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    return launch(resolve(func), gridDim, blockDim, args, NULL, 0, sharedMem, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch(resolve(func), gridDim, blockDim, args, NULL, 0, sharedMem, stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                void **args)
{
    if (!config)
        RET(cudaErrorInvalidValue);
    /* Attributes (clusters, priorities, programmatic serialisation) are
     * scheduling hints or sm_90 features; a cluster dimension other than 1
     * cannot be honoured. */
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension &&
            (a->val.clusterDim.x > 1 || a->val.clusterDim.y > 1 || a->val.clusterDim.z > 1))
            RET(cudaErrorNotSupported);
    }
    return launch(resolve(func), config->gridDim, config->blockDim, args, NULL, 0,
                  config->dynamicSmemBytes, config->stream);
}

/* ------------------------------------------------- function attributes */

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_kernel *k = resolve(func);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    tfl_kernel_attrs a;
    char err[256] = "";
    tfl_status st = tfl_rt_kernel_attrs(k, &a, err, sizeof err);
    if (st == TFL_ERR_INVALID)
        RET(cudaErrorInvalidDeviceFunction);
    if (st != TFL_OK)
        tfl_debug("attributes of %s are estimates: %s", tfl_rt_kernel_name(k), err);
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = a.static_smem;
    attr->constSizeBytes = a.const_bytes;
    attr->localSizeBytes = a.local_bytes;
    attr->maxThreadsPerBlock = a.max_threads > 0 ? a.max_threads : 1024;
    attr->numRegs = a.num_regs > 0 ? a.num_regs : 32;
    attr->ptxVersion = 80;
    attr->binaryVersion = 80;
    attr->cacheModeCA = 0;
    attr->maxDynamicSharedSizeBytes = a.max_dynamic_smem;
    attr->preferredShmemCarveout = a.preferred_carveout;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    INIT_OR_RET();
    tfl_kernel *k = resolve(func);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    int which;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: which = 0; break;
    case cudaFuncAttributePreferredSharedMemoryCarveout: which = 1; break;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
    case cudaFuncAttributeClusterDimMustBeSet:
        return cudaSuccess;   /* no clusters on this device: nothing to set */
    default:
        RET(cudaErrorInvalidValue);
    }
    if (tfl_rt_kernel_set_attr(k, which, value) != TFL_OK)
        RET(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    INIT_OR_RET();
    if (!resolve(func))
        RET(cudaErrorInvalidDeviceFunction);
    if ((int)cacheConfig < 0 || (int)cacheConfig > 3)
        RET(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    if (!name)
        RET(cudaErrorInvalidValue);
    tfl_kernel *k = resolve(func);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    *name = tfl_rt_kernel_name(k);
    return cudaSuccess;
}

/* ----------------------------------------------------------- occupancy */

/* Blocks per SM as an sm_80 would fit them: limited by threads (2048),
 * blocks (32), registers (64K) and shared memory (164 KB). */
static int blocks_per_sm(tfl_kernel *k, int block_size, size_t dyn_smem)
{
    tfl_kernel_attrs a;
    char err[128];
    if (tfl_rt_kernel_attrs(k, &a, err, sizeof err) != TFL_OK) {
        memset(&a, 0, sizeof a);
        a.num_regs = 32;
    }
    if (block_size <= 0)
        return 0;
    int warps = (block_size + 31) / 32;
    int by_threads = 2048 / (warps * 32);
    int regs = a.num_regs > 0 ? a.num_regs : 32;
    int by_regs = 65536 / (regs * warps * 32);
    size_t smem = a.static_smem + dyn_smem;
    int by_smem = smem ? (int)((164u * 1024u) / smem) : 32;
    int n = by_threads;
    if (by_regs < n) n = by_regs;
    if (by_smem < n) n = by_smem;
    if (n > 32) n = 32;
    return n;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
        const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    if (!numBlocks || flags > 1)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_kernel *k = resolve(func);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    if (blockSize <= 0 || blockSize > 1024)
        RET(cudaErrorInvalidValue);
    *numBlocks = blocks_per_sm(k, blockSize, dynamicSMemSize);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize,
                                                          size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func,
                                                                   blockSize,
                                                                   dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                      const void *func, int numBlocks,
                                                      int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        RET(cudaErrorInvalidValue);
    INIT_OR_RET();
    tfl_kernel *k = resolve(func);
    if (!k)
        RET(cudaErrorInvalidDeviceFunction);
    tfl_kernel_attrs a;
    char err[128];
    if (tfl_rt_kernel_attrs(k, &a, err, sizeof err) != TFL_OK)
        memset(&a, 0, sizeof a);
    size_t per = (164u * 1024u) / (size_t)numBlocks;
    size_t cap = 163u * 1024u;
    if (per > cap) per = cap;
    *dynamicSmemSize = per > a.static_smem ? per - a.static_smem : 0;
    return cudaSuccess;
}

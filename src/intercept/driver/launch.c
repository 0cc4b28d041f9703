/*
 * launch.c - kernel launches (cuLaunchKernel, cuLaunchKernelEx,
 * cuLaunchCooperativeKernel) and the occupancy calculator, over route's
 * launch path (tfl_rt_launch), which the runtime's launches share.
 *
 * Occupancy follows the device model's attributes (threads, blocks,
 * registers and shared memory per SM, shared memory reserved per block,
 * opt-in maximum per block), with registers allocated per warp in units
 * of 256 as on NVIDIA GPUs.
 */
#include "drv_internal.h"

#include <string.h>

#include "common/log.h"

typedef struct sm_model {
    int threads, blocks, regs, smem, smem_reserved, smem_optin, count;
} sm_model;

static sm_model model_of(int dev)
{
    sm_model m = { 2048, 32, 65536, 48 * 1024, 0, 48 * 1024, 1 };
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &m.threads);
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &m.blocks);
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &m.regs);
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &m.smem);
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, &m.smem_reserved);
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &m.smem_optin);
    tfl_drv_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &m.count);
    return m;
}

static CUresult launch(tfl_kernel *k, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, CUstream hs, int pt, void **params, void **extra,
                       int cooperative)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!k || !tfl_rt_kernel_valid(k))
        return CUDA_ERROR_INVALID_HANDLE;
    tfl_rt_stream *s;
    if (!tfl_drv_stream(hs, pt, &s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (params && extra)
        return CUDA_ERROR_INVALID_VALUE;

    tfl_launch l;
    memset(&l, 0, sizeof l);
    memcpy(l.grid, grid, sizeof l.grid);
    memcpy(l.block, block, sizeof l.block);
    l.smem = smem;
    l.stream = s;
    l.args = params;
    if (extra) {
        /* { BUFFER_POINTER, p, BUFFER_SIZE, &size, END } in any order */
        const void *buf = NULL;
        size_t size = 0;
        int have_size = 0;
        for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buf = extra[i + 1];
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) {
                size = *(const size_t *)extra[i + 1];
                have_size = 1;
            } else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if ((size && !buf) || (buf && !have_size))
            return CUDA_ERROR_INVALID_VALUE;
        l.arg_buffer = buf;
        l.arg_buffer_size = size;
    }

    if (cooperative) {
        /* every block of a cooperative grid must be resident at once */
        int per_sm = 0;
        r = cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, (CUfunction)k, (int)(block[0] * block[1] * block[2]), smem);
        if (r != CUDA_SUCCESS)
            return r;
        sm_model m = model_of(c->dev);
        unsigned long long blocks = (unsigned long long)grid[0] * grid[1] * grid[2];
        if (blocks > (unsigned long long)per_sm * (unsigned)m.count)
            return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }

    int cuda_err = 0;
    char err[512] = "";
    tfl_status st = tfl_rt_launch(k, &l, &cuda_err, err, sizeof err);
    if (st == TFL_OK)
        return CUDA_SUCCESS;
    if (err[0])
        tfl_error("%s", err);
    r = cuda_err ? tfl_drv_from_cuda_error(cuda_err) : tfl_drv_status(st);
    if (st == TFL_ERR_DEVICE) {
        if (r == CUDA_SUCCESS || r == CUDA_ERROR_UNKNOWN)
            r = CUDA_ERROR_LAUNCH_FAILED;
        tfl_drv_set_sticky(r);
    }
    return r;
}

static CUresult launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                              void **extra, int pt, int coop)
{
    const unsigned grid[3] = { gx, gy, gz }, block[3] = { bx, by, bz };
    return launch((tfl_kernel *)f, grid, block, smem, s, pt, params, extra, coop);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    return launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                         sharedMemBytes, hStream, kernelParams, extra, 0, 0);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX,
                                     unsigned int blockDimY, unsigned int blockDimZ,
                                     unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra)
{
    return launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                         sharedMemBytes, hStream, kernelParams, extra, 1, 0);
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                           unsigned int gridDimY, unsigned int gridDimZ,
                                           unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes,
                                           CUstream hStream, void **kernelParams)
{
    return launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                         sharedMemBytes, hStream, kernelParams, NULL, 0, 1);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                                unsigned int gridDimY, unsigned int gridDimZ,
                                                unsigned int blockDimX, unsigned int blockDimY,
                                                unsigned int blockDimZ,
                                                unsigned int sharedMemBytes, CUstream hStream,
                                                void **kernelParams)
{
    return launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                         sharedMemBytes, hStream, kernelParams, NULL, 1, 1);
}

static CUresult launch_ex(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra,
                          int pt)
{
    if (!cfg || (cfg->numAttrs && !cfg->attrs)) {
        CUresult r = tfl_drv_current(NULL);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
    }
    int coop = 0;
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        const CUlaunchAttribute *a = &cfg->attrs[i];
        switch (a->id) {
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            coop = a->value.cooperative != 0;
            break;
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            if (a->value.clusterDim.x * a->value.clusterDim.y * a->value.clusterDim.z > 1)
                return CUDA_ERROR_NOT_SUPPORTED;   /* no clusters in the model */
            break;
        default:
            /* priorities, access policy windows, programmatic
             * serialisation...: hints that cannot change a result in
             * synchronous execution */
            break;
        }
    }
    const unsigned grid[3] = { cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ };
    const unsigned block[3] = { cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ };
    return launch((tfl_kernel *)f, grid, block, cfg->sharedMemBytes, cfg->hStream, pt, params,
                  extra, coop);
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                  void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra, 0);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
                                       void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra, 1);
}

/* ------------------------------------------------------------- occupancy */

static CUresult kernel_attrs(CUfunction f, tfl_kernel_attrs *a)
{
    tfl_kernel *k = (tfl_kernel *)f;
    if (!k || !tfl_rt_kernel_valid(k))
        return CUDA_ERROR_INVALID_HANDLE;
    char err[256] = "";
    tfl_status st = tfl_rt_kernel_attrs(k, a, err, sizeof err);
    if (st != TFL_OK) {
        if (err[0])
            tfl_error("%s", err);
        return st == TFL_ERR_INVALID ? CUDA_ERROR_INVALID_IMAGE : tfl_drv_status(st);
    }
    return CUDA_SUCCESS;
}

/* Resident blocks of block_size threads per SM; 0 if one does not fit. */
static int blocks_per_sm(const sm_model *m, const tfl_kernel_attrs *a, int block_size,
                         size_t dyn_smem)
{
    int max_threads = a->max_threads > 0 ? a->max_threads : 1024;
    if (block_size <= 0 || block_size > max_threads)
        return 0;
    int warps = (block_size + 31) / 32;
    int n = m->threads / (warps * 32);
    if (n > m->blocks)
        n = m->blocks;
    if (a->num_regs > 0) {
        int regs_per_warp = (a->num_regs * 32 + 255) / 256 * 256;
        int by_regs = m->regs / (regs_per_warp * warps);
        if (by_regs < n)
            n = by_regs;
    }
    size_t smem = a->static_smem + dyn_smem;
    if (smem > (size_t)m->smem_optin)
        return 0;
    int by_smem = (int)((size_t)m->smem / (smem + (size_t)m->smem_reserved));
    if (by_smem < n)
        n = by_smem;
    return n > 0 ? n : 0;
}

static CUresult max_active(int *num, CUfunction f, int block_size, size_t dyn, unsigned flags)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!num || block_size <= 0 || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    tfl_kernel_attrs a;
    if ((r = kernel_attrs(f, &a)) != CUDA_SUCCESS)
        return r;
    sm_model m = model_of(c->dev);
    *num = blocks_per_sm(&m, &a, block_size, dyn);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                             int blockSize,
                                                             size_t dynamicSMemSize)
{
    return max_active(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                      CUfunction func,
                                                                      int blockSize,
                                                                      size_t dynamicSMemSize,
                                                                      unsigned int flags)
{
    return max_active(numBlocks, func, blockSize, dynamicSMemSize, flags);
}

static CUresult potential(int *min_grid, int *block_out, CUfunction f,
                          CUoccupancyB2DSize smem_fn, size_t dyn, int limit, unsigned flags)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!min_grid || !block_out || limit < 0 ||
        (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    tfl_kernel_attrs a;
    if ((r = kernel_attrs(f, &a)) != CUDA_SUCCESS)
        return r;
    int max = a.max_threads > 0 ? a.max_threads : 1024;
    if (limit > 0 && limit < max)
        max = limit;
    sm_model m = model_of(c->dev);
    /* largest block size with the most resident threads */
    int best_block = 0, best_threads = 0, best_blocks = 0;
    for (int bs = (max + 31) / 32 * 32; bs > 0; bs -= 32) {
        int b = bs > max ? max : bs;
        size_t smem = smem_fn ? smem_fn(b) : dyn;
        int n = blocks_per_sm(&m, &a, b, smem);
        if (n * b > best_threads) {
            best_threads = n * b;
            best_block = b;
            best_blocks = n;
        }
    }
    *block_out = best_block;
    *min_grid = best_blocks * m.count;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                  CUfunction func,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit)
{
    return potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                     blockSizeLimit, 0);
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags)
{
    return potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                     blockSizeLimit, flags);
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                         CUfunction func, int numBlocks,
                                                         int blockSize)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_kernel_attrs a;
    if ((r = kernel_attrs(func, &a)) != CUDA_SUCCESS)
        return r;
    sm_model m = model_of(c->dev);
    if (blocks_per_sm(&m, &a, blockSize, 0) < numBlocks) {
        *dynamicSmemSize = 0;
        return CUDA_SUCCESS;
    }
    size_t per_block = (size_t)m.smem / (size_t)numBlocks;
    per_block = per_block > (size_t)m.smem_reserved ? per_block - (size_t)m.smem_reserved : 0;
    if (per_block > (size_t)m.smem_optin)
        per_block = (size_t)m.smem_optin;
    *dynamicSmemSize = per_block > a.static_smem ? per_block - a.static_smem : 0;
    return CUDA_SUCCESS;
}

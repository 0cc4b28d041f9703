/*
 * handle.c - cuBLASLt handle, versions, status strings and logger knobs.
 *
 * A cuBLASLt handle is the same object as a cuBLAS handle (PyTorch passes
 * its cublasHandle_t where a cublasLtHandle_t is expected), so either
 * create function makes one and either destroy function frees it.
 */
#include "versions.h"
#include "cublaslt/lt_internal.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasContext *h;
    cublasStatus_t st = tfl_cublas_handle_new(&h);
    if (st == CUBLAS_STATUS_SUCCESS)
        *handle = (cublasLtHandle_t)h;
    return st;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return tfl_cublas_handle_free((struct cublasContext *)handle);
}

size_t cublasLtGetVersion(void)
{
    return CUBLAS_VERSION;
}

size_t cublasLtGetCudartVersion(void)
{
    return TFL_CUDA_VERSION;
}

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    return cublasGetProperty(type, value);
}

const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return cublasGetStatusName(status);
}

const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return cublasGetStatusString(status);
}

/* Heuristics cache: nothing is cached, the capacity is remembered. */
static size_t cache_capacity = 8192;

cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity)
{
    if (!capacity)
        return CUBLAS_STATUS_INVALID_VALUE;
    *capacity = __atomic_load_n(&cache_capacity, __ATOMIC_RELAXED);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity)
{
    __atomic_store_n(&cache_capacity, capacity, __ATOMIC_RELAXED);
    return CUBLAS_STATUS_SUCCESS;
}

/* Logger: accepted; torchfl's own log (TORCHFL_LOG) reports problems. */
cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t cb)
{
    (void)cb;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtLoggerSetFile(FILE *file)
{
    (void)file;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtLoggerOpenFile(const char *path)
{
    (void)path;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtLoggerSetLevel(int level)
{
    return level < 0 || level > 5 ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtLoggerSetMask(int mask)
{
    return mask < 0 || mask > 31 ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtLoggerForceDisable(void)
{
    return CUBLAS_STATUS_SUCCESS;
}

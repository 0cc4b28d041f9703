/*
 * handle.c - cuBLAS handle life cycle and settings: create/destroy,
 * versions, stream, workspace, math/pointer/atomics modes, status strings.
 *
 * The settings are kept for the caller to read back; the host backend is
 * exact fp32 whatever the math mode (TF32 allowed or not), runs in issue
 * order on every stream, and needs no workspace.
 */
#include "versions.h"
#include "cublas/cublas_internal.h"

#include <cuda_runtime_api.h>

#include "common/log.h"
#include "route/runtime.h"

#define H(hh) struct cublasContext *h = tfl_cublas_handle_get(hh); \
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    return tfl_cublas_handle_new(handle);
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return tfl_cublas_handle_free(handle);
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    H(handle);
    (void)h;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

size_t cublasGetCudartVersion(void)
{
    return TFL_CUDA_VERSION;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t size)
{
    H(handle);
    /* cuBLAS wants a 256-byte aligned buffer when one is given */
    if (workspace && ((uintptr_t)workspace % 256) != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!workspace && size)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->workspace = workspace;
    h->workspace_size = size;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    H(handle);
    if (!tfl_rt_stream_valid((tfl_rt_stream *)stream)) {
        tfl_error("cublasSetStream: %p is not a live stream", (void *)stream);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    h->stream = stream;
    /* as cuBLAS does, a new stream drops a user workspace */
    h->workspace = NULL;
    h->workspace_size = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *stream)
{
    H(handle);
    if (!stream)
        return CUBLAS_STATUS_INVALID_VALUE;
    *stream = h->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle,
                                       cublasPointerMode_t *mode)
{
    H(handle);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle,
                                       cublasPointerMode_t mode)
{
    H(handle);
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    H(handle);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->atomics_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    H(handle);
    if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->atomics_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    H(handle);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    H(handle);
    unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    switch (base) {
    case CUBLAS_DEFAULT_MATH:
    case CUBLAS_TENSOR_OP_MATH:
    case CUBLAS_PEDANTIC_MATH:
    case CUBLAS_TF32_TENSOR_OP_MATH:
    case CUBLAS_FP32_EMULATED_BF16X9_MATH:
    case CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH:
        break;
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    h->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *count)
{
    H(handle);
    if (!count)
        return CUBLAS_STATUS_INVALID_VALUE;
    *count = h->sm_count_target;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int count)
{
    H(handle);
    if (count < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->sm_count_target = count;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t handle,
                                          cublasEmulationStrategy_t *s)
{
    H(handle);
    if (!s)
        return CUBLAS_STATUS_INVALID_VALUE;
    *s = h->emulation;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t handle,
                                          cublasEmulationStrategy_t s)
{
    H(handle);
    if ((unsigned)s > CUBLAS_EMULATION_STRATEGY_EAGER)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->emulation = s;
    return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------- status text */

const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
        return "error detected trying to check the license";
    }
    return "unknown error";
}

/* Logging configuration: accepted, torchfl logs through TORCHFL_LOG. */
cublasStatus_t cublasLoggerConfigure(int on, int to_stdout, int to_stderr,
                                     const char *file)
{
    (void)on; (void)to_stdout; (void)to_stderr; (void)file;
    return CUBLAS_STATUS_SUCCESS;
}

static cublasLogCallback log_callback;

cublasStatus_t cublasSetLoggerCallback(cublasLogCallback cb)
{
    __atomic_store_n(&log_callback, cb, __ATOMIC_RELEASE);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *cb)
{
    if (!cb)
        return CUBLAS_STATUS_INVALID_VALUE;
    *cb = __atomic_load_n(&log_callback, __ATOMIC_ACQUIRE);
    return CUBLAS_STATUS_SUCCESS;
}

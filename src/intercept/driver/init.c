/*
 * init.c - cuInit, cuDriverGetVersion, cuGetExportTable, and the helpers
 * every driver entry point uses: the initialisation check, status
 * translation and the sticky device fault.
 */
#include "drv_internal.h"

#include <stdatomic.h>
#include <string.h>

#include "common/log.h"
#include "route/config.h"
#include "cudart/cudart_internal.h"

static atomic_int g_initialised;
static _Atomic CUresult g_sticky = CUDA_SUCCESS;

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (tfl_rt_init() != TFL_OK || tfl_rt_device_count() <= 0)
        return CUDA_ERROR_NO_DEVICE;
    atomic_store(&g_initialised, 1);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = TFL_DRV_VERSION;
    return CUDA_SUCCESS;
}

/* The export tables are private interfaces between NVIDIA's own
 * libraries; nothing torchfl serves may depend on them. */
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable,
                                  const CUuuid *pExportTableId)
{
    (void)pExportTableId;
    if (ppExportTable)
        *ppExportTable = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}

int tfl_drv_initialised(void)
{
    if (atomic_load_explicit(&g_initialised, memory_order_acquire))
        return 1;
    /* The runtime initialised route: the real cudart calls cuInit on its
     * first call, so the driver counts as initialised from then on. */
    if (tfl_rt_initialised()) {
        atomic_store(&g_initialised, 1);
        return 1;
    }
    return 0;
}

void tfl_drv_mark_initialised(void)
{
    atomic_store(&g_initialised, 1);
}

CUresult tfl_drv_check_init(void)
{
    return tfl_drv_initialised() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult tfl_drv_check_device(CUdevice dev)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (dev < 0 || dev >= tfl_rt_device_count() || dev >= TFL_DRV_MAX_DEVICES ||
        !tfl_rt_device_is_valid(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

void tfl_drv_device_info(int dev, tfl_device_info *out)
{
    const tfl_device_info *di = tfl_rt_device_info(dev);
    memset(out, 0, sizeof *out);
    if (di)
        *out = *di;
    /* cc 0.0 means "let torchfl choose": the configured capability, else
     * 8.0, which every CUDA wheel PyTorch ships has code for. */
    if (out->cc_major <= 0) {
        const tfl_config *cfg = tfl_config_get();
        out->cc_major = cfg && cfg->cc_major > 0 ? cfg->cc_major : 8;
        out->cc_minor = cfg && cfg->cc_major > 0 ? cfg->cc_minor : 0;
    }
    if (out->multiprocessors <= 0)
        out->multiprocessors = 1;
    if (!out->name[0])
        strcpy(out->name, "torchfl device");
}

CUresult tfl_drv_status(tfl_status st)
{
    switch (st) {
    case TFL_OK: return CUDA_SUCCESS;
    case TFL_ERR_UNSUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
    case TFL_ERR_NOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
    case TFL_ERR_INVALID: return CUDA_ERROR_INVALID_VALUE;
    case TFL_ERR_DEVICE: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case TFL_ERR_NOT_READY: return CUDA_ERROR_NOT_READY;
    case TFL_ERR_UNAVAILABLE: return CUDA_ERROR_NO_DEVICE;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

/* cudaError_t and CUresult share the numbers of the device-side faults
 * (7xx) and of the first few codes; the rest differ and are mapped. */
CUresult tfl_drv_from_cuda_error(int e)
{
    switch (e) {
    case 0: return CUDA_SUCCESS;
    case 1: return CUDA_ERROR_INVALID_VALUE;          /* cudaErrorInvalidValue */
    case 2: return CUDA_ERROR_OUT_OF_MEMORY;          /* cudaErrorMemoryAllocation */
    case 3: return CUDA_ERROR_NOT_INITIALIZED;        /* cudaErrorInitializationError */
    case 9: return CUDA_ERROR_INVALID_VALUE;          /* cudaErrorInvalidConfiguration */
    case 98: return CUDA_ERROR_INVALID_HANDLE;        /* cudaErrorInvalidDeviceFunction */
    case 100: return CUDA_ERROR_NO_DEVICE;            /* cudaErrorNoDevice */
    case 101: return CUDA_ERROR_INVALID_DEVICE;       /* cudaErrorInvalidDevice */
    case 200: return CUDA_ERROR_INVALID_IMAGE;        /* cudaErrorInvalidKernelImage */
    case 209: return CUDA_ERROR_NO_BINARY_FOR_GPU;    /* cudaErrorNoKernelImageForDevice */
    case 218: return CUDA_ERROR_INVALID_PTX;          /* cudaErrorInvalidPtx */
    case 400: return CUDA_ERROR_INVALID_HANDLE;       /* cudaErrorInvalidResourceHandle */
    case 500: return CUDA_ERROR_NOT_FOUND;            /* cudaErrorSymbolNotFound */
    case 600: return CUDA_ERROR_NOT_READY;            /* cudaErrorNotReady */
    case 801: return CUDA_ERROR_NOT_SUPPORTED;        /* cudaErrorNotSupported */
    default:
        if (e >= 700 && e < 800)
            return (CUresult)e;
        return CUDA_ERROR_UNKNOWN;
    }
}

void tfl_drv_set_sticky(CUresult err)
{
    CUresult expect = CUDA_SUCCESS;
    atomic_compare_exchange_strong(&g_sticky, &expect, err);
    /* The runtime must fail from now on as well; the fault codes are the
     * same numbers in both APIs. */
    if (err >= 700 && err < 800)
        tfl_cudart_set_sticky((cudaError_t)err);
}

CUresult tfl_drv_sticky(void)
{
    CUresult r = atomic_load(&g_sticky);
    if (r != CUDA_SUCCESS)
        return r;
    cudaError_t e = tfl_cudart_sticky();
    return e == cudaSuccess ? CUDA_SUCCESS : tfl_drv_from_cuda_error((int)e);
}

int tfl_drv_stream(CUstream s, int per_thread, tfl_rt_stream **out)
{
    tfl_rt_stream *rs = (tfl_rt_stream *)s;
    if (rs == NULL && per_thread)
        rs = TFL_STREAM_PER_THREAD;
    if (!tfl_rt_stream_valid(rs))
        return 0;
    *out = rs;
    return 1;
}

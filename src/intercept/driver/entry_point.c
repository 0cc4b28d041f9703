/*
 * entry_point.c - name -> function lookups: cuGetProcAddress (both
 * revisions) and the runtime's bridge to it, cudaGetDriverEntryPoint and
 * cudaGetDriverEntryPointByVersion.
 *
 * A driver function may exist in several ABI revisions (cuMemAlloc and
 * cuMemAlloc_v2, cuCtxCreate ... cuCtxCreate_v4) and in per-thread-stream
 * variants (_ptds/_ptsz).  A caller names the base function and the CUDA
 * version it was built for; the answer is the newest revision introduced
 * at or before that version.  proc_table.inc lists, for every revision
 * torchfl defines, the version that introduced it; it is generated from
 * cudaTypedefs.h (scripts/gen_driver_tables.py).  Names torchfl does not
 * define are "not found", so optional features are seen as absent.
 */
#include "drv_internal.h"

#include <string.h>

#include <cuda_runtime_api.h>

#include "cudart/cudart_internal.h"

typedef struct proc {
    const char *name;
    int version;
    int per_thread;
    void *fn;
} proc;

static const proc k_procs[] = {
#define TFL_PROC(name, version, per_thread, sym) { name, version, per_thread, (void *)&sym },
#include "proc_table.inc"
#undef TFL_PROC
};

/* 0 found, 1 no such name, 2 name known but newer than version. */
static int lookup(const char *name, int version, int per_thread, void **fn)
{
    const proc *best = NULL, *best_pt = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof k_procs / sizeof k_procs[0]; i++) {
        const proc *p = &k_procs[i];
        if (strcmp(p->name, name) != 0)
            continue;
        known = 1;
        if (p->version > version)
            continue;
        const proc **slot = p->per_thread ? &best_pt : &best;
        if (!*slot || p->version > (*slot)->version)
            *slot = p;
    }
    /* A per-thread request takes the per-thread variant when the newest
     * revision has one, else the legacy function (it has no stream). */
    if (per_thread && best_pt && (!best || best_pt->version >= best->version))
        best = best_pt;
    if (best) {
        *fn = best->fn;
        return 0;
    }
    return known ? 2 : 1;
}

static CUresult proc_address(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (!symbol || !pfn || version <= 0 ||
        (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                               CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    /* DEFAULT means per-thread only for programs built with it, which the
     * driver cannot tell: legacy, as the runtime asks explicitly. */
    int pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    int res = lookup(symbol, version, pt, pfn);
    if (status)
        *status = res == 0 ? CU_GET_PROC_ADDRESS_SUCCESS
                : res == 2 ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                           : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return res == 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    return proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                  cuuint64_t flags)
{
    return proc_address(symbol, pfn, cudaVersion, flags, NULL);
}

/* ------------------------------------------------------ runtime's bridge */

static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned version,
                               unsigned long long flags, int default_pt,
                               enum cudaDriverEntryPointQueryResult *status)
{
    if (!symbol || !funcPtr || version == 0 ||
        (flags & ~(unsigned long long)(cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        return tfl_cudart_ret(cudaErrorInvalidValue);
    cudaError_t init = tfl_cudart_init();
    if (init != cudaSuccess)
        return tfl_cudart_ret(init);
    tfl_drv_mark_initialised();
    cuuint64_t f = flags;
    if (flags == cudaEnableDefault && default_pt)
        f = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    CUdriverProcAddressQueryResult q;
    /* not found: success with a NULL pointer, as documented */
    proc_address(symbol, funcPtr, (int)version, f, &q);
    if (status)
        *status = q == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
                : q == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                    ? cudaDriverEntryPointVersionNotSufficent
                    : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

/* Without a version the runtime's own version decides. */
cudaError_t CUDARTAPI cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                              unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, TFL_DRV_VERSION, flags, 0, driverStatus);
}

cudaError_t CUDARTAPI cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                   unsigned long long flags,
                                                   enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, TFL_DRV_VERSION, flags, 1, driverStatus);
}

cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                       unsigned int cudaVersion,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, 0, driverStatus);
}

cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, 1, driverStatus);
}

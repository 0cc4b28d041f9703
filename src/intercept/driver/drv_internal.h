/*
 * drv_internal.h - what the CUDA driver API entry points share: the
 * initialisation check, contexts and the per-thread context stack, handle
 * and status translation.
 *
 * Every file of src/intercept/driver includes this header instead of
 * <cuda.h> directly: it defines __CUDA_API_VERSION_INTERNAL first, which
 * makes cuda.h declare every exported symbol under its real name (legacy
 * cuMemAlloc next to cuMemAlloc_v2, the _ptds/_ptsz variants) instead of
 * #defining the unversioned names to the newest revision.  That way each
 * definition here is checked against the exact prototype it exports.
 */
#ifndef TFL_DRV_INTERNAL_H
#define TFL_DRV_INTERNAL_H

#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL 1
#endif
#include "versions.h"
#include <cuda.h>

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"
#include "route/runtime.h"

/* The driver version torchfl reports (cuDriverGetVersion, and the version
 * cudaGetDriverEntryPoint resolves names at). */
#define TFL_DRV_VERSION TFL_CUDA_VERSION

/* Devices the driver layer keeps state for (primary contexts). */
#define TFL_DRV_MAX_DEVICES 64

/* ------------------------------------------------------------ contexts */

struct CUctx_st {
    uint32_t magic;        /* TFL_CTX_MAGIC while the context lives       */
    int dev;
    int primary;           /* 1: the device's primary context             */
    unsigned flags;        /* CU_CTX_* scheduling/map-host flags          */
    size_t limits[16];     /* indexed by CUlimit                          */
    unsigned long long id; /* cuCtxGetId                                  */
    struct CUctx_st *next; /* registry of live created contexts           */
};
#define TFL_CTX_MAGIC 0x54464c43u /* "TFLC" */

/* 1 once cuInit succeeded or the runtime initialised torchfl. */
int tfl_drv_initialised(void);
void tfl_drv_mark_initialised(void);
/* CUDA_SUCCESS, CUDA_ERROR_NOT_INITIALIZED or the sticky fault. */
CUresult tfl_drv_check_init(void);
/* The calling thread's current context after the init check:
 * CUDA_ERROR_INVALID_CONTEXT when none, CUDA_ERROR_CONTEXT_IS_DESTROYED
 * when it was destroyed under the thread. */
CUresult tfl_drv_current(struct CUctx_st **out);
/* 1 if ctx is a live context (primary or created).  Never dereferences
 * an unknown pointer. */
int tfl_drv_ctx_valid(CUcontext ctx);
/* The primary context object of dev; NULL if dev is out of range. */
struct CUctx_st *tfl_drv_primary(int dev);

/* A device ordinal the caller passed: CUDA_ERROR_INVALID_DEVICE if bad
 * (after the init check). */
CUresult tfl_drv_check_device(CUdevice dev);
/* Attribute a of device dev (route's model, plus the driver-only ones);
 * 0 if a is unknown. */
int tfl_drv_attr(int dev, CUdevice_attribute a, int *value);
/* The device's properties with compute capability filled in. */
void tfl_drv_device_info(int dev, tfl_device_info *out);

/* ----------------------------------------------------------- translation */

/* Map a route status to the driver's result for a generic call. */
CUresult tfl_drv_status(tfl_status st);
/* Map a cudaError_t value (as route reports for launches) to CUresult. */
CUresult tfl_drv_from_cuda_error(int cuda_err);
/* Record a device fault: every later call returns it (as a real context
 * is unusable after one), shared with the runtime. */
void tfl_drv_set_sticky(CUresult err);
CUresult tfl_drv_sticky(void);

/* Stream handle -> route stream; per_thread: the NULL stream of a _ptsz
 * or _ptds entry point means the per-thread default stream.  NULL when
 * the handle is not a live stream (caller returns INVALID_HANDLE). */
int tfl_drv_stream(CUstream s, int per_thread, tfl_rt_stream **out);

/* Image size of a module image (PTX text, fatbin, fatbin wrapper or ELF
 * cubin); 0 when the format is not recognised. */
size_t tfl_drv_image_size(const void *image);

/* ---------------------------------------------------------------- VMM */

/* Physical bytes held by cuMemCreate handles (counted as used memory). */
uint64_t tfl_drv_vmm_bytes(void);
/* 1 if p lies in a piece mapped by cuMemMap: the piece's base, size and
 * the id of the physical allocation behind it. */
int tfl_drv_vmm_mapping(const void *p, void **base, size_t *size,
                        unsigned long long *block_id);

#endif

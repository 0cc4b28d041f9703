/*
 * copy.c - cuMemcpy* and cuMemset* (1D, 2D, 3D without arrays, peer,
 * synchronous and stream-ordered, legacy and per-thread default stream).
 *
 * Every device-side range is checked against the address map before
 * anything is touched, so a bad pointer is CUDA_ERROR_INVALID_VALUE and
 * never a fault in the process.  The copies themselves go through route
 * (tfl_rt_memcpy & co), which knows the backend.
 */
#include "drv_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"

static void *ptr(CUdeviceptr d) { return (void *)(uintptr_t)d; }

/* [p, p + n) lies in one allocation torchfl knows. */
static int dev_range(CUdeviceptr p, size_t n)
{
    tfl_alloc_info ai;
    return p != 0 && tfl_mem_check_range(ptr(p), n, &ai);
}

static int known(const void *p)
{
    tfl_alloc_info ai;
    return tfl_mem_lookup(p, &ai);
}

/* Context, sticky fault and stream in one step. */
static CUresult prologue(CUstream hs, int per_thread, tfl_rt_stream **s)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_drv_stream(hs, per_thread, s))
        return CUDA_ERROR_INVALID_HANDLE;
    return CUDA_SUCCESS;
}

enum { ANY = 0, HTOD, DTOH, DTOD };

static CUresult copy(CUdeviceptr dst, const void *src, size_t n, int dir,
                     CUstream hs, int per_thread)
{
    tfl_rt_stream *s;
    CUresult r = prologue(hs, per_thread, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    if ((dir == HTOD || dir == DTOD) && !dev_range(dst, n))
        return CUDA_ERROR_INVALID_VALUE;
    if ((dir == DTOH || dir == DTOD) && !dev_range((CUdeviceptr)(uintptr_t)src, n))
        return CUDA_ERROR_INVALID_VALUE;
    return tfl_drv_status(tfl_rt_memcpy(ptr(dst), src, n, s));
}

#define SRC(p) ((const void *)(uintptr_t)(p))

/* One definition per exported name; _ptds/_ptsz twins differ only in
 * what the NULL stream means. */
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{ return copy(dst, SRC(src), n, ANY, NULL, 0); }
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n)
{ return copy(dst, SRC(src), n, ANY, NULL, 1); }
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{ return copy(dst, SRC(src), n, ANY, s, 0); }
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{ return copy(dst, SRC(src), n, ANY, s, 1); }

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{ return copy(dst, src, n, HTOD, NULL, 0); }
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n)
{ return copy(dst, src, n, HTOD, NULL, 1); }
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{ return copy(dst, src, n, HTOD, s, 0); }
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{ return copy(dst, src, n, HTOD, s, 1); }

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{ return copy((CUdeviceptr)(uintptr_t)dst, SRC(src), n, DTOH, NULL, 0); }
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n)
{ return copy((CUdeviceptr)(uintptr_t)dst, SRC(src), n, DTOH, NULL, 1); }
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{ return copy((CUdeviceptr)(uintptr_t)dst, SRC(src), n, DTOH, s, 0); }
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n, CUstream s)
{ return copy((CUdeviceptr)(uintptr_t)dst, SRC(src), n, DTOH, s, 1); }

CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{ return copy(dst, SRC(src), n, DTOD, NULL, 0); }
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n)
{ return copy(dst, SRC(src), n, DTOD, NULL, 1); }
CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{ return copy(dst, SRC(src), n, DTOD, s, 0); }
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{ return copy(dst, SRC(src), n, DTOD, s, 1); }

/* Devices share one address space, so a peer copy is a plain copy once
 * both contexts are known to be alive. */
static CUresult peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                     size_t n, CUstream s, int per_thread)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_drv_ctx_valid(dctx) || !tfl_drv_ctx_valid(sctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return copy(dst, SRC(src), n, DTOD, s, per_thread);
}

CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{ return peer(d, dc, s, sc, n, NULL, 0); }
CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{ return peer(d, dc, s, sc, n, NULL, 1); }
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
                                   size_t n, CUstream st)
{ return peer(d, dc, s, sc, n, st, 0); }
CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
                                        size_t n, CUstream st)
{ return peer(d, dc, s, sc, n, st, 1); }

/* ---------------------------------------------------------------- 2D/3D */

/* The address of (x, y, z) of one side of a 2D/3D copy; 0 when the side
 * is an array (not supported) or its memory type is not known. */
static uintptr_t side(CUmemorytype t, const void *host, CUdeviceptr dev, size_t x,
                      size_t y, size_t z, size_t pitch, size_t height, int *is_dev)
{
    uintptr_t base;
    switch (t) {
    case CU_MEMORYTYPE_HOST: base = (uintptr_t)host; *is_dev = 0; break;
    case CU_MEMORYTYPE_DEVICE: base = (uintptr_t)dev; *is_dev = 1; break;
    /* unified: the address tells; it is checked if it is torchfl's */
    case CU_MEMORYTYPE_UNIFIED:
        base = (uintptr_t)dev;
        *is_dev = known((void *)base);
        break;
    default: return 0;
    }
    if (!base)
        return 0;
    return base + x + (y + z * height) * pitch;
}

static CUresult copy3d(CUmemorytype st, const void *sh, CUdeviceptr sd, size_t sx, size_t sy,
                       size_t sz, size_t spitch, size_t sheight, CUmemorytype dt, void *dh,
                       CUdeviceptr dd, size_t dx, size_t dy, size_t dz, size_t dpitch,
                       size_t dheight, size_t width, size_t height, size_t depth,
                       CUstream hs, int per_thread)
{
    tfl_rt_stream *s;
    CUresult r = prologue(hs, per_thread, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (st == CU_MEMORYTYPE_ARRAY || dt == CU_MEMORYTYPE_ARRAY)
        return CUDA_ERROR_NOT_SUPPORTED;   /* CUDA arrays are not modelled */
    if (width == 0 || height == 0 || depth == 0)
        return CUDA_SUCCESS;
    if ((height > 1 || depth > 1) && (spitch < width || dpitch < width))
        return CUDA_ERROR_INVALID_VALUE;
    if (depth > 1 && (sheight < height || dheight < height))
        return CUDA_ERROR_INVALID_VALUE;
    int sdev = 0, ddev = 0;
    for (size_t z = 0; z < depth; z++) {
        uintptr_t src = side(st, sh, sd, sx, sy, sz + z, spitch, sheight, &sdev);
        uintptr_t dst = side(dt, dh, dd, dx, dy, dz + z, dpitch, dheight, &ddev);
        if (!src || !dst)
            return CUDA_ERROR_INVALID_VALUE;
        size_t sspan = (height - 1) * spitch + width, dspan = (height - 1) * dpitch + width;
        if ((sdev && !dev_range(src, sspan)) || (ddev && !dev_range(dst, dspan)))
            return CUDA_ERROR_INVALID_VALUE;
        tfl_status ts = tfl_rt_memcpy2d((void *)dst, dpitch, (const void *)src, spitch,
                                        width, height, s);
        if (ts != TFL_OK)
            return tfl_drv_status(ts);
    }
    return CUDA_SUCCESS;
}

static CUresult copy2d(const CUDA_MEMCPY2D *c, CUstream s, int per_thread)
{
    if (!c) {
        CUresult r = tfl_drv_current(NULL);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
    }
    return copy3d(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY, 0,
                  c->srcPitch, c->Height, c->dstMemoryType, c->dstHost, c->dstDevice,
                  c->dstXInBytes, c->dstY, 0, c->dstPitch, c->Height, c->WidthInBytes,
                  c->Height, 1, s, per_thread);
}

CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *c) { return copy2d(c, NULL, 0); }
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *c) { return copy2d(c, NULL, 1); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c) { return copy2d(c, NULL, 0); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *c) { return copy2d(c, NULL, 1); }
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream s) { return copy2d(c, s, 0); }
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream s) { return copy2d(c, s, 1); }

static CUresult copy3d_desc(const CUDA_MEMCPY3D *c, CUstream s, int per_thread)
{
    if (!c || c->reserved0 || c->reserved1 || c->srcLOD || c->dstLOD) {
        CUresult r = tfl_drv_current(NULL);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
    }
    return copy3d(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY,
                  c->srcZ, c->srcPitch, c->srcHeight, c->dstMemoryType, c->dstHost,
                  c->dstDevice, c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight,
                  c->WidthInBytes, c->Height, c->Depth, s, per_thread);
}

CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *c) { return copy3d_desc(c, NULL, 0); }
CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *c) { return copy3d_desc(c, NULL, 1); }
CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, CUstream s) { return copy3d_desc(c, s, 0); }
CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *c, CUstream s) { return copy3d_desc(c, s, 1); }

/* ---------------------------------------------------------------- memset */

#define PATTERN_CHUNK (64 * 1024)

/* Fill height rows of width elements of esize bytes (pattern pat) at
 * pitch bytes apart.  Uniform patterns go to route's memset; others are
 * copied from a pattern buffer, in chunks. */
static CUresult set(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned esize,
                    size_t width, size_t height, CUstream hs, int per_thread)
{
    tfl_rt_stream *s;
    CUresult r = prologue(hs, per_thread, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (width == 0 || height == 0)
        return CUDA_SUCCESS;
    if (dst % esize != 0 || width > SIZE_MAX / esize)
        return CUDA_ERROR_INVALID_VALUE;
    size_t wbytes = width * esize;
    if (height > 1 && pitch < wbytes)
        return CUDA_ERROR_INVALID_VALUE;
    if (height > 1 && (height - 1) > (SIZE_MAX - wbytes) / pitch)
        return CUDA_ERROR_INVALID_VALUE;
    size_t span = (height - 1) * pitch + wbytes;
    if (!dev_range(dst, span))
        return CUDA_ERROR_INVALID_VALUE;

    uint8_t bytes[4];
    memcpy(bytes, &value, 4);  /* little-endian: element bytes in order */
    int uniform = 1;
    for (unsigned i = 1; i < esize; i++)
        uniform &= bytes[i] == bytes[0];
    if (uniform) {
        tfl_status st = height == 1 ? tfl_rt_memset(ptr(dst), bytes[0], wbytes, s)
                                    : tfl_rt_memset2d(ptr(dst), pitch, bytes[0], wbytes,
                                                      height, s);
        return tfl_drv_status(st);
    }
    size_t chunk = wbytes < PATTERN_CHUNK ? wbytes : PATTERN_CHUNK;
    uint8_t *buf = malloc(chunk);
    if (!buf)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < chunk; i++)   /* chunk is a multiple of esize */
        buf[i] = bytes[i % esize];
    tfl_status st = TFL_OK;
    for (size_t y = 0; y < height && st == TFL_OK; y++) {
        uint8_t *row = (uint8_t *)ptr(dst) + y * pitch;
        for (size_t off = 0; off < wbytes && st == TFL_OK; off += chunk) {
            size_t n = wbytes - off < chunk ? wbytes - off : chunk;
            st = tfl_rt_memcpy(row + off, buf, n, s);
        }
    }
    free(buf);
    return tfl_drv_status(st);
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{ return set(d, 0, v, 1, n, 1, NULL, 0); }
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n)
{ return set(d, 0, v, 1, n, 1, NULL, 1); }
CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n)
{ return set(d, 0, v, 2, n, 1, NULL, 0); }
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n)
{ return set(d, 0, v, 2, n, 1, NULL, 1); }
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n)
{ return set(d, 0, v, 4, n, 1, NULL, 0); }
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n)
{ return set(d, 0, v, 4, n, 1, NULL, 1); }

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{ return set(d, 0, v, 1, n, 1, s, 0); }
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{ return set(d, 0, v, 1, n, 1, s, 1); }
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s)
{ return set(d, 0, v, 2, n, 1, s, 0); }
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream s)
{ return set(d, 0, v, 2, n, 1, s, 1); }
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{ return set(d, 0, v, 4, n, 1, s, 0); }
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{ return set(d, 0, v, 4, n, 1, s, 1); }

CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h)
{ return set(d, p, v, 1, w, h, NULL, 0); }
CUresult CUDAAPI cuMemsetD2D8_v2_ptds(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h)
{ return set(d, p, v, 1, w, h, NULL, 1); }
CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h)
{ return set(d, p, v, 2, w, h, NULL, 0); }
CUresult CUDAAPI cuMemsetD2D16_v2_ptds(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h)
{ return set(d, p, v, 2, w, h, NULL, 1); }
CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h)
{ return set(d, p, v, 4, w, h, NULL, 0); }
CUresult CUDAAPI cuMemsetD2D32_v2_ptds(CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h)
{ return set(d, p, v, 4, w, h, NULL, 1); }

CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h,
                                   CUstream s)
{ return set(d, p, v, 1, w, h, s, 0); }
CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr d, size_t p, unsigned char v, size_t w,
                                        size_t h, CUstream s)
{ return set(d, p, v, 1, w, h, s, 1); }
CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr d, size_t p, unsigned short v, size_t w,
                                    size_t h, CUstream s)
{ return set(d, p, v, 2, w, h, s, 0); }
CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr d, size_t p, unsigned short v, size_t w,
                                         size_t h, CUstream s)
{ return set(d, p, v, 2, w, h, s, 1); }
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr d, size_t p, unsigned int v, size_t w,
                                    size_t h, CUstream s)
{ return set(d, p, v, 4, w, h, s, 0); }
CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr d, size_t p, unsigned int v, size_t w,
                                         size_t h, CUstream s)
{ return set(d, p, v, 4, w, h, s, 1); }

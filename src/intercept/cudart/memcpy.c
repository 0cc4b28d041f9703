/*
 * memcpy.c - CUDA runtime copies and sets, plain, async, 2D, 3D, peer and
 * symbol forms.  Ranges are checked by route (src/route/memops.c).
 */
#include "cudart/cudart_internal.h"
#include "route/runtime.h"


#define S(stream) ((tfl_rt_stream *)(stream))

/* Common prologue: initialised, no sticky error, valid stream. */
static cudaError_t enter(cudaStream_t stream)
{
    cudaError_t e = tfl_cudart_enter();
    if (e != cudaSuccess)
        return e;
    if (!tfl_rt_stream_valid(S(stream)))
        return cudaErrorInvalidResourceHandle;
    return cudaSuccess;
}

static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                        cudaStream_t stream)
{
    cudaError_t e = enter(stream);
    if (e != cudaSuccess)
        RET(e);
    if ((int)kind < 0 || (int)kind > 4)
        RET(cudaErrorInvalidMemcpyDirection);
    RET(tfl_cudart_from_status(tfl_rt_memcpy_kind(dst, src, n, (int)kind, S(stream))));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return copy(dst, src, count, kind, NULL);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy(dst, src, count, kind, stream);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                           size_t count)
{
    if (!tfl_rt_device_is_valid(dstDevice) || !tfl_rt_device_is_valid(srcDevice))
        RET(cudaErrorInvalidDevice);
    return copy(dst, src, count, cudaMemcpyDeviceToDevice, NULL);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    if (!tfl_rt_device_is_valid(dstDevice) || !tfl_rt_device_is_valid(srcDevice))
        RET(cudaErrorInvalidDevice);
    return copy(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                          size_t width, size_t height, enum cudaMemcpyKind kind,
                          cudaStream_t stream)
{
    cudaError_t e = enter(stream);
    if (e != cudaSuccess)
        RET(e);
    if ((int)kind < 0 || (int)kind > 4)
        RET(cudaErrorInvalidMemcpyDirection);
    if (height > 1 && (width > dpitch || width > spitch))
        RET(cudaErrorInvalidPitchValue);
    RET(tfl_cudart_from_status(tfl_rt_memcpy2d_kind(dst, dpitch, src, spitch, width, height,
                                         (int)kind, S(stream))));
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return copy2d(dst, dpitch, src, spitch, width, height, kind, NULL);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    return copy2d(dst, dpitch, src, spitch, width, height, kind, stream);
}

/* 3D on linear memory only (arrays are not supported by this backend). */
static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    if (!p)
        RET(cudaErrorInvalidValue);
    if (p->srcArray || p->dstArray)
        RET(cudaErrorNotSupported);
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    struct cudaExtent ex = p->extent;
    if (!s->ptr || !d->ptr || s->pitch == 0 || d->pitch == 0)
        RET(cudaErrorInvalidValue);
    size_t sy = s->ysize ? s->ysize : ex.height, dy = d->ysize ? d->ysize : ex.height;
    for (size_t z = 0; z < ex.depth; z++) {
        const char *sp = (const char *)s->ptr + p->srcPos.x +
                         (p->srcPos.y + (p->srcPos.z + z) * sy) * s->pitch;
        char *dp = (char *)d->ptr + p->dstPos.x +
                   (p->dstPos.y + (p->dstPos.z + z) * dy) * d->pitch;
        cudaError_t e = copy2d(dp, d->pitch, sp, s->pitch, ex.width, ex.height,
                               p->kind, stream);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return copy3d(p, NULL);
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy3d(p, stream);
}

/* ----------------------------------------------------------- symbols */

static cudaError_t symbol(const void *sym, void **addr, size_t *size)
{
    cudaError_t e = tfl_cudart_enter();
    if (e != cudaSuccess)
        return e;
    if (!sym)
        return cudaErrorInvalidSymbol;
    tfl_status st = tfl_rt_var_by_host(sym, addr, size);
    if (st == TFL_OK)
        return cudaSuccess;
    return st == TFL_ERR_UNSUPPORTED ? cudaErrorInvalidSymbol : cudaErrorInvalidSymbol;
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *sym)
{
    if (!devPtr)
        RET(cudaErrorInvalidValue);
    RET(symbol(sym, devPtr, NULL));
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *sym)
{
    if (!size)
        RET(cudaErrorInvalidValue);
    RET(symbol(sym, NULL, size));
}

static cudaError_t to_symbol(const void *sym, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        RET(cudaErrorInvalidMemcpyDirection);
    void *addr;
    size_t size;
    cudaError_t e = symbol(sym, &addr, &size);
    if (e != cudaSuccess)
        RET(e);
    if (offset > size || count > size - offset)
        RET(cudaErrorInvalidValue);
    return copy((char *)addr + offset, src, count, kind, stream);
}

static cudaError_t from_symbol(void *dst, const void *sym, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        RET(cudaErrorInvalidMemcpyDirection);
    void *addr;
    size_t size;
    cudaError_t e = symbol(sym, &addr, &size);
    if (e != cudaSuccess)
        RET(e);
    if (offset > size || count > size - offset)
        RET(cudaErrorInvalidValue);
    return copy(dst, (char *)addr + offset, count, kind, stream);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                               size_t offset, enum cudaMemcpyKind kind)
{
    return to_symbol(symbol, src, count, offset, kind, NULL);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind,
                                    cudaStream_t stream)
{
    return to_symbol(symbol, src, count, offset, kind, stream);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                 size_t offset, enum cudaMemcpyKind kind)
{
    return from_symbol(dst, symbol, count, offset, kind, NULL);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                      size_t offset, enum cudaMemcpyKind kind,
                                      cudaStream_t stream)
{
    return from_symbol(dst, symbol, count, offset, kind, stream);
}

/* -------------------------------------------------------------- sets */

static cudaError_t set(void *dst, int value, size_t n, cudaStream_t stream)
{
    cudaError_t e = enter(stream);
    if (e != cudaSuccess)
        RET(e);
    RET(tfl_cudart_from_status(tfl_rt_memset(dst, value, n, S(stream))));
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    return set(devPtr, value, count, NULL);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return set(devPtr, value, count, stream);
}

static cudaError_t set2d(void *p, size_t pitch, int value, size_t width, size_t height,
                         cudaStream_t stream)
{
    cudaError_t e = enter(stream);
    if (e != cudaSuccess)
        RET(e);
    RET(tfl_cudart_from_status(tfl_rt_memset2d(p, pitch, value, width, height, S(stream))));
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return set2d(devPtr, pitch, value, width, height, NULL);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream)
{
    return set2d(devPtr, pitch, value, width, height, stream);
}

static cudaError_t set3d(struct cudaPitchedPtr p, int value, struct cudaExtent ex,
                         cudaStream_t stream)
{
    size_t ysize = p.ysize ? p.ysize : ex.height;
    for (size_t z = 0; z < ex.depth; z++) {
        cudaError_t e = set2d((char *)p.ptr + z * ysize * p.pitch, p.pitch, value,
                              ex.width, ex.height, stream);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                         struct cudaExtent extent)
{
    return set3d(pitchedDevPtr, value, extent, NULL);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                              struct cudaExtent extent, cudaStream_t stream)
{
    return set3d(pitchedDevPtr, value, extent, stream);
}

/* Prefetch and advice are performance hints; all memory is local here. */
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                 struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream)
{
    (void)location; (void)flags;
    cudaError_t e = enter(stream);
    if (e != cudaSuccess)
        RET(e);
    if (!tfl_rt_stream_valid(S(stream)))
        RET(cudaErrorInvalidResourceHandle);
    (void)devPtr; (void)count;
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location)
{
    (void)devPtr; (void)count; (void)advice; (void)location;
    cudaError_t e = tfl_cudart_enter();
    if (e != cudaSuccess)
        RET(e);
    return cudaSuccess;
}

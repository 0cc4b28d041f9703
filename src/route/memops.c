/*
 * memops.c - checked copies and sets.
 *
 * Every range that must be device memory is checked against the address
 * map before a byte moves, so a bad pointer or a length past an
 * allocation's end is an error, not a crash or silent corruption.  Host
 * memory torchfl does not know (ordinary malloc'd buffers) cannot be
 * checked and is trusted, as the CUDA driver trusts it.
 */
#include "route/runtime.h"
#include "route/rt_internal.h"
#include "mem/mem.h"

enum { K_H2H = 0, K_H2D = 1, K_D2H = 2, K_D2D = 3, K_DEFAULT = 4 };

/* Is [p, p+n) acceptable as a side that must be device-visible memory? */
static int device_range_ok(const void *p, size_t n)
{
    return p && tfl_mem_check_range(p, n, NULL);
}

/* A side that may be host memory: fine unless it is inside a known
 * allocation that the range overruns. */
static int any_range_ok(const void *p, size_t n)
{
    if (!p)
        return 0;
    tfl_alloc_info a;
    if (!tfl_mem_lookup(p, &a))
        return 1;
    return tfl_mem_check_range(p, n, NULL);
}

static tfl_copy_dir dir_of(const void *dst, const void *src)
{
    int d = tfl_mem_lookup(dst, NULL), s = tfl_mem_lookup(src, NULL);
    if (d && s) return TFL_COPY_D2D;
    if (d) return TFL_COPY_H2D;
    if (s) return TFL_COPY_D2H;
    return TFL_COPY_H2H;
}

/* Check one span of a copy; span = extent in bytes touched. */
static int spans_ok(void *dst, size_t dspan, const void *src, size_t sspan, int kind)
{
    switch (kind) {
    case K_H2H:     return any_range_ok(dst, dspan) && any_range_ok(src, sspan);
    case K_H2D:     return device_range_ok(dst, dspan) && any_range_ok(src, sspan);
    case K_D2H:     return any_range_ok(dst, dspan) && device_range_ok(src, sspan);
    case K_D2D:     return device_range_ok(dst, dspan) && device_range_ok(src, sspan);
    case K_DEFAULT: return any_range_ok(dst, dspan) && any_range_ok(src, sspan);
    default:        return 0;
    }
}

static tfl_status do_copy(void *dst, const void *src, size_t n, tfl_rt_stream *s)
{
    (void)s;   /* synchronous model: stream order holds by construction */
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    return b->memcpy(dst, src, n, dir_of(dst, src), NULL);
}

tfl_status tfl_rt_memcpy_kind(void *dst, const void *src, size_t n, int kind,
                              tfl_rt_stream *s)
{
    if (kind < K_H2H || kind > K_DEFAULT || !tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    if (n == 0)
        return TFL_OK;
    if (!spans_ok(dst, n, src, n, kind))
        return TFL_ERR_INVALID;
    return do_copy(dst, src, n, s);
}

tfl_status tfl_rt_memcpy(void *dst, const void *src, size_t n, tfl_rt_stream *s)
{
    return tfl_rt_memcpy_kind(dst, src, n, K_DEFAULT, s);
}

tfl_status tfl_rt_memcpy2d_kind(void *dst, size_t dpitch, const void *src,
                                size_t spitch, size_t width, size_t height,
                                int kind, tfl_rt_stream *s)
{
    if (kind < K_H2H || kind > K_DEFAULT || !tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    if (width == 0 || height == 0)
        return TFL_OK;
    if (width > dpitch || width > spitch)
        return TFL_ERR_INVALID;
    size_t dspan = (height - 1) * dpitch + width;
    size_t sspan = (height - 1) * spitch + width;
    if (!spans_ok(dst, dspan, src, sspan, kind))
        return TFL_ERR_INVALID;
    for (size_t r = 0; r < height; r++) {
        tfl_status st = do_copy((char *)dst + r * dpitch,
                                (const char *)src + r * spitch, width, s);
        if (st != TFL_OK)
            return st;
    }
    return TFL_OK;
}

tfl_status tfl_rt_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, tfl_rt_stream *s)
{
    return tfl_rt_memcpy2d_kind(dst, dpitch, src, spitch, width, height, K_DEFAULT, s);
}

tfl_status tfl_rt_memset(void *dst, int value, size_t n, tfl_rt_stream *s)
{
    if (!tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    if (n == 0)
        return TFL_OK;
    if (!device_range_ok(dst, n))
        return TFL_ERR_INVALID;
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    return b->memset(dst, value, n, NULL);
}

tfl_status tfl_rt_memset2d(void *dst, size_t pitch, int value, size_t width,
                           size_t height, tfl_rt_stream *s)
{
    if (!tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    if (width == 0 || height == 0)
        return TFL_OK;
    if (width > pitch || !device_range_ok(dst, (height - 1) * pitch + width))
        return TFL_ERR_INVALID;
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    for (size_t r = 0; r < height; r++) {
        tfl_status st = b->memset((char *)dst + r * pitch, value, width, NULL);
        if (st != TFL_OK)
            return st;
    }
    return TFL_OK;
}

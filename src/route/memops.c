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
#include "route/dispatch.h"
#include "mem/hostview.h"

#include <string.h>

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

/* Is p device memory, as the backend sees it?  Pinned and registered
 * host memory is host memory to a backend with memory of its own. */
static int on_device(const void *p)
{
    tfl_alloc_info a;
    if (!tfl_mem_lookup(p, &a))
        return 0;
    if (tfl_route_host_addressable())
        return 1;
    return a.kind == TFL_MEM_DEVICE || a.kind == TFL_MEM_MANAGED;
}

static tfl_copy_dir dir_of(const void *dst, const void *src)
{
    int d = on_device(dst), s = on_device(src);
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
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    tfl_hostview_flush();   /* the copy must see what host code wrote */
    tfl_status st = b->memcpy(dst, src, n, dir_of(dst, src), tfl_rt_backend_stream(s));
    return st == TFL_OK ? tfl_rt_issued(s) : st;
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

/* height rows of width bytes, pitch apart, on the backend's stream; host
 * memory (pinned, to a backend with its own memory) is set by the host
 * once the stream's earlier work is done. */
static tfl_status set_rows(void *dst, size_t pitch, int value, size_t width, size_t height,
                           tfl_rt_stream *s)
{
    const tfl_backend *b = tfl_rt_backend();
    if (!b)
        return TFL_ERR_UNAVAILABLE;
    int host = !on_device(dst);
    tfl_hostview_flush();
    tfl_status st = host ? tfl_rt_stream_sync(s) : TFL_OK;
    for (size_t r = 0; r < height && st == TFL_OK; r++) {
        char *row = (char *)dst + r * pitch;
        if (host)
            memset(row, value, width);
        else
            st = b->memset(row, value, width, tfl_rt_backend_stream(s));
    }
    return st == TFL_OK ? tfl_rt_issued(s) : st;
}

tfl_status tfl_rt_memset(void *dst, int value, size_t n, tfl_rt_stream *s)
{
    if (!tfl_rt_stream_valid(s))
        return TFL_ERR_INVALID;
    if (n == 0)
        return TFL_OK;
    if (!device_range_ok(dst, n))
        return TFL_ERR_INVALID;
    return set_rows(dst, 0, value, n, 1, s);
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
    return set_rows(dst, pitch, value, width, height, s);
}

void tfl_rt_host_access_begin(void)
{
    tfl_hostview_open();
}

tfl_status tfl_rt_host_access_end(void)
{
    return tfl_hostview_close();
}

/*
 * ops_jagged.c - the host backend's jagged byte copies (torchfl/ops/shape.h
 * TFL_SHAPE_SPLIT_COPY, TFL_SHAPE_CHUNK_CAT): FSDP2's split_with_sizes_copy
 * and _chunk_cat, decoded by src/route/optable/jagged.c.
 *
 * The decoder checked the metadata arrays and dst; the pointers and sizes
 * inside the arrays are the program's data, read only now (in stream
 * order), so every range they name is checked here before it is touched,
 * with overflow-checked arithmetic: a bad entry fails the op with one
 * line, it never reads or writes outside device memory.
 */
#include <string.h>

#include "backends/host/host_ops.h"
#include "common/half.h"
#include "common/log.h"
#include "mem/mem.h"

/* [p, p + (count - 1) * stride + len) is device memory; count chunks of
 * len bytes, stride apart, all non-negative.  Overflow is not in range. */
static int span_ok(const void *p, int64_t count, int64_t stride, int64_t len)
{
    int64_t end;
    if (count < 0 || stride < 0 || len < 0)
        return 0;
    if (count == 0 || len == 0)
        return 1;
    if (__builtin_mul_overflow(count - 1, stride, &end) ||
        __builtin_add_overflow(end, len, &end))
        return 0;
    return tfl_mem_range_ok(p, (size_t)end);
}

static tfl_status split_copy(const tfl_split_copy_geom *g)
{
    const char *const *dst = g->dst_addrs, *const *src = g->src_addrs;
    const int64_t *bytes = g->chunk_bytes;
    for (int64_t s = 0; s < g->nsplit; s++) {
        const int64_t n = bytes[s];
        /* dst: chunks back to back; src: chunks src_stride apart */
        if (!span_ok(dst[s], g->num_chunks, n, n) ||
            !span_ok(src[s], g->num_chunks, g->src_stride, n)) {
            tfl_error("split_with_sizes_copy: split %lld (%lld bytes x %lld) is not in device "
                      "memory", (long long)s, (long long)n, (long long)g->num_chunks);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t s = 0; s < g->nsplit; s++)
        for (int64_t i = 0; i < g->num_chunks; i++)
            memcpy((char *)dst[s] + i * bytes[s], src[s] + i * g->src_stride, (size_t)bytes[s]);
    return TFL_OK;
}

/* One tensor's piece of one chunk: n source bytes, pad destination bytes. */
static void cat_piece(char *to, const char *from, int64_t n, int64_t pad, int bf16)
{
    if (!bf16) {
        memcpy(to, from, (size_t)n);
        memset(to + n, 0, (size_t)(pad - n));
        return;
    }
    const int64_t m = n / 2;
    float *f = (float *)to;
    for (int64_t e = 0; e < m; e++) {
        uint16_t h;
        memcpy(&h, from + 2 * e, 2);
        const float v = tfl_bf16_to_f32(h);
        memcpy(f + e, &v, 4);
    }
    memset(to + 4 * m, 0, (size_t)(pad - 4 * m));
}

static tfl_status chunk_cat(const tfl_chunk_cat_geom *g)
{
    const char *const *srcs = g->srcs;
    const int64_t *start = g->start, *actual = g->actual, *pad = g->pad;
    const int r = g->bf16_to_f32 ? 2 : 1;
    for (int64_t t = 0; t < g->ntensor; t++) {
        /* src t: leading slices of actual[t] bytes; dst: [start, start + pad)
         * of every chunk (the decoder checked dst for leading slices) */
        if (pad[t] < 0 || pad[t] % r || start[t] < 0 || start[t] > g->chunk_size ||
            pad[t] > g->chunk_size - start[t] || !span_ok(srcs[t], g->leading, actual[t],
                                                          actual[t])) {
            tfl_error("chunk_cat: tensor %lld (%lld bytes, chunk piece %lld at %lld of %lld) "
                      "is not in device memory or outside its chunk", (long long)t,
                      (long long)actual[t], (long long)pad[t], (long long)start[t],
                      (long long)g->chunk_size);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t z = 0; z < g->leading; z++)
        for (int64_t y = 0; y < g->num_chunks; y++)
            for (int64_t t = 0; t < g->ntensor; t++) {
                const int64_t w = pad[t] / r, off = y * w;
                int64_t n = actual[t] - off;
                n = n < 0 ? 0 : n > w ? w : n;
                cat_piece((char *)g->dst + z * g->slice_size + y * g->chunk_size + start[t],
                          srcs[t] + z * actual[t] + (n ? off : 0), n, pad[t], r == 2);
            }
    return TFL_OK;
}

tfl_status host_jagged(const tfl_shape_op *op)
{
    return op->kind == TFL_SHAPE_SPLIT_COPY ? split_copy(&op->split) : chunk_cat(&op->ccat);
}

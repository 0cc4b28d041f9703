/*
 * jagged.c - the "jagged" kernel family of the semantic op table: the two
 * byte-copy kernels of TensorShape.cu that FSDP2 runs around every
 * all-gather and reduce-scatter, decoded into TFL_OP_SHAPE
 * (torchfl/ops/shape.h, TFL_SHAPE_SPLIT_COPY / TFL_SHAPE_CHUNK_CAT).
 *
 *   detail::split_with_sizes_copy_out_contiguous_no_cast_kernel(
 *     char **dst_base_addrs, char **src_base_addrs, long *split_chunk_sizes,
 *     long *block_idx_to_split_idx, long *blocks_cumsums, long src_stride,
 *     long num_chunks)                                    [p p p p p l l]
 *   detail::chunk_cat_cuda_kernel<dst_t, src_t>(src_t **src, dst_t *dst,
 *     long *block_idx_to_tensor_idx, long *tensor_idx_to_start_tensor_bytes,
 *     long *start_block_idx_per_tensor_chunk, long *actual_tensor_sizes,
 *     long *pad_tensor_chunk_sizes, long *num_blocks_per_tensor_chunk,
 *     long slice_size, long chunk_size, long dst_to_src_ratio)
 *                                                          [p p p p p p p p l l l]
 *     with <char, char> (ratio 1: bytes) and <float, c10::BFloat16>
 *     (ratio 2: bf16 widened to fp32); 2.15 adds a copy of the same kernel
 *     in torch::distributed::fsdp (ChunkCat.cu).
 *
 * Both are unchanged from 2.11 to 2.15.  Their
 * metadata arrays live in device memory, written by a non-blocking copy
 * just before the launch, so the decoder must not read them (the copy may
 * not have run yet): it passes them to the backend, which reads them when
 * the op runs in stream order.  What the decoder needs - the number of
 * splits or tensors - follows from where the arrays lie: PyTorch packs
 * them back to back in one buffer (pack_vecs), in parameter order, so the
 * distance between two consecutive arrays is the length of the first.
 * The launch is refused (not decoded) when the distances do not fit that
 * packing exactly.
 *
 * The grid: split copy: gridDim.x blocks over all splits (one entry of
 * block_idx_to_split_idx each); every chunk is covered whatever gridDim.y.
 * chunk cat: gridDim.x blocks per chunk, gridDim.y = num_chunks,
 * gridDim.z = leading (the product of the dims before `dim`).
 */
#include <stdio.h>
#include <string.h>

#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

enum { JK_SPLIT = 1, JK_CHUNK_CAT = 2 };

/* cookie = 1 + index in kernels[] | cast << 8 (chunk cat <float, BFloat16>) */
#define JK_COOKIE(i, cast) (((uintptr_t)(i) + 1) | (uintptr_t)(cast) << 8)
#define JK_INDEX(c) (((uintptr_t)(c) & 0xff) - 1)
#define JK_CAST(c) ((int)((uintptr_t)(c) >> 8))

static const struct {
    const char *qname;
    int kind;
    const char *sig;
    const char *op;
} kernels[] = {
    {"detail::split_with_sizes_copy_out_contiguous_no_cast_kernel", JK_SPLIT, "p p p p p l l",
     "split_with_sizes_copy"},
    {"detail::chunk_cat_cuda_kernel", JK_CHUNK_CAT, "p p p p p p p p l l l", "chunk_cat"},
    {"torch::distributed::fsdp::chunk_cat_cuda_kernel", JK_CHUNK_CAT, "p p p p p p p p l l l",
     "chunk_cat"},
};
#define NKERNELS (sizeof kernels / sizeof *kernels)

static int layout(void *cookie, tfl_klayout *l)
{
    const uintptr_t i = JK_INDEX(cookie);
    return i < NKERNELS && tfl_klayout_sig(l, kernels[i].sig) == 0;
}

/* The template arguments a kernel may have: none for the split copy;
 * <char, char> or <float, c10::BFloat16> for chunk cat. */
static int targs_ok(const tfl_kname *k, int kind, int *cast)
{
    *cast = 0;
    if (kind == JK_SPLIT)
        return k->ntargs == 0;
    if (k->ntargs == 2 && tfl_kname_targ_is(k, 0, "char") && tfl_kname_targ_is(k, 1, "char"))
        return 1;
    *cast = 1;
    return k->ntargs == 2 && tfl_kname_targ_is(k, 0, "float") &&
           tfl_kname_targ_is(k, 1, "c10::BFloat16");
}

static int match(const char *m, void **cookie)
{
    if (!strstr(m, "split_with_sizes_copy") && !strstr(m, "chunk_cat"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    uintptr_t c = 0;
    int cast;
    for (size_t i = 0; i < NKERNELS && !c; i++)
        if (tfl_kname_qualified(&k, kernels[i].qname) && k.name_len == strlen(kernels[i].qname) &&
            targs_ok(&k, kernels[i].kind, &cast))
            c = JK_COOKIE(i, cast);
    tfl_klayout l = { 0 };
    if (c && (!layout((void *)c, &l) || l.n != k.nparams))
        c = 0;
    tfl_kname_free(&k);
    if (!c)
        return 0;
    *cookie = (void *)c;
    return 1;
}

static const char *op_name(void *cookie)
{
    const uintptr_t i = JK_INDEX(cookie);
    return i < NKERNELS ? kernels[i].op : "jagged";
}

/* The distance b - a in int64 slots when it is a whole, non-negative number
 * of them, else -1. */
static int64_t slots(const void *a, const void *b)
{
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (pb < pa || (pb - pa) % 8)
        return -1;
    return (int64_t)((pb - pa) / 8);
}

static tfl_status decode_split(const tfl_kcall *c, tfl_shape_op *s)
{
    const void *p[5];
    for (int i = 0; i < 5; i++)
        p[i] = TFL_KARG(c, void *, i);
    tfl_split_copy_geom *g = &s->split;
    g->nsplit = slots(p[0], p[1]);
    g->src_stride = TFL_KARG(c, int64_t, 5);
    g->num_chunks = TFL_KARG(c, int64_t, 6);
    /* dst[S] src[S] sizes[S] block_idx_to_split[grid.x] cumsums[S + 1] */
    if (g->nsplit <= 0 || slots(p[1], p[2]) != g->nsplit || slots(p[2], p[3]) != g->nsplit ||
        slots(p[3], p[4]) != (int64_t)c->grid[0] || g->num_chunks < 0 || g->src_stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (!tfl_kdev_ok(p[0], (size_t)(3 * g->nsplit) * 8))
        return TFL_ERR_INVALID;
    g->dst_addrs = p[0];
    g->src_addrs = p[1];
    g->chunk_bytes = p[2];
    return TFL_OK;
}

static tfl_status decode_chunk_cat(const tfl_kcall *c, int cast, tfl_shape_op *s)
{
    const void *p[8];
    for (int i = 0; i < 8; i++)
        p[i] = TFL_KARG(c, void *, i);
    tfl_chunk_cat_geom *g = &s->ccat;
    /* srcs[T] block_idx_to_tensor[grid.x] start_bytes[T + 1] start_block[T + 1]
     * actual[T] pad[T] nblocks[T]; p[1] is dst, elsewhere. */
    const void *const a[7] = {p[0], p[2], p[3], p[4], p[5], p[6], p[7]};
    const int64_t T = slots(a[0], a[1]);
    const int64_t want[5] = {c->grid[0], T + 1, T + 1, T, T};
    if (T <= 0)
        return TFL_ERR_UNSUPPORTED;
    for (int i = 0; i < 5; i++)
        if (slots(a[i + 1], a[i + 2]) != want[i])
            return TFL_ERR_UNSUPPORTED;
    g->ntensor = T;
    g->dst = (void *)p[1];
    g->srcs = a[0];
    g->start = a[2];
    g->actual = a[4];
    g->pad = a[5];
    g->slice_size = TFL_KARG(c, int64_t, 8);
    g->chunk_size = TFL_KARG(c, int64_t, 9);
    const int64_t ratio = TFL_KARG(c, int64_t, 10);
    if (ratio != 1 + cast)    /* the kernel's types say what it is */
        return TFL_ERR_UNSUPPORTED;
    g->bf16_to_f32 = cast;
    g->num_chunks = c->grid[1];
    g->leading = c->grid[2];
    int64_t chunks_bytes, dst_bytes;
    if (g->slice_size < 0 || g->chunk_size < 0 ||
        __builtin_mul_overflow(g->num_chunks, g->chunk_size, &chunks_bytes) ||
        g->slice_size < chunks_bytes ||
        __builtin_mul_overflow(g->leading, g->slice_size, &dst_bytes))
        return TFL_ERR_UNSUPPORTED;
    /* the seven arrays end where nblocks[T] does */
    if (!tfl_kdev_ok(a[0], (uintptr_t)a[6] - (uintptr_t)a[0] + (size_t)T * 8) ||
        !tfl_kdev_ok(g->dst, (size_t)dst_bytes))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const int kind = kernels[JK_INDEX(cookie)].kind;
    tfl_op op = { .kind = TFL_OP_SHAPE, .name = op_name(cookie) };
    tfl_shape_op *s = &op.u.shape;
    s->dtype = TFL_DT_U8;
    s->kind = kind == JK_SPLIT ? TFL_SHAPE_SPLIT_COPY : TFL_SHAPE_CHUNK_CAT;
    tfl_status st = kind == JK_SPLIT ? decode_split(c, s)
                                    : decode_chunk_cat(c, JK_CAST(cookie), s);
    if (st == TFL_ERR_INVALID)
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
    if (st != TFL_OK)
        return st;
    st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_jagged = {
    .name = "jagged",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

/*
 * scan_decode.c - decode one launch of a "scan" family kernel (scan.c
 * says which) into a tfl_scan_op.  Parameter layouts are those of the
 * sm_80 cubins of torch 2.11 - 2.15 (unchanged across them; scan.c's
 * layout() states them, docs/op-scan.md lists them); every pointer range
 * is checked before the op runs.
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/scan_internal.h"

#define ARG(c, T, i) TFL_KARG(c, T, i)

static tfl_status route(tfl_op *op, const tfl_kcall *c, char *err, size_t errlen)
{
    tfl_status st = tfl_route_op(op, c->stream);
    if (st == TFL_ERR_DEVICE)
        snprintf(err, errlen, "%s: an operand is out of device memory bounds", op->name);
    else if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op->name, (int)st);
    return st;
}

static tfl_status bad_range(const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: an operand is not in device memory", what);
    return TFL_ERR_INVALID;
}

/* tensor_kernel_scan_{outer,innermost}_dim[_with_indices] */
static tfl_status run_aten(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SCAN, .name = k->op_name };
    tfl_scan_op *s = &op.u.scan;
    const size_t esz = tfl_dtype_size(k->dtype);
    int init_arg;
    s->fn = k->fn;
    s->dtype = k->dtype;
    s->has_init = 1;
    switch (k->kind) {
    case SK_ATEN_OUTER:        /* (tgt, src, orows, irows, row_size, init, op) */
        s->kind = TFL_SCAN_DIM;
        s->dst = ARG(c, void *, 0);
        s->src = ARG(c, const void *, 1);
        s->outer = ARG(c, uint32_t, 2);
        s->inner = ARG(c, uint32_t, 3);
        s->len = ARG(c, uint32_t, 4);
        init_arg = 5;
        break;
    case SK_ATEN_INNER:        /* (tgt, src, rows, row_size, log_threads_x, init, op) */
        s->kind = TFL_SCAN_DIM;
        s->dst = ARG(c, void *, 0);
        s->src = ARG(c, const void *, 1);
        s->outer = ARG(c, uint32_t, 2);
        s->len = ARG(c, uint32_t, 3);
        s->inner = 1;
        init_arg = 5;
        break;
    case SK_ATEN_IDX_OUTER:    /* (self, values, indices, orows, irows, row_size, init, op) */
        s->kind = TFL_SCAN_DIM_INDEX;
        s->src = ARG(c, const void *, 0);
        s->dst = ARG(c, void *, 1);
        s->indices = ARG(c, int64_t *, 2);
        s->outer = ARG(c, uint32_t, 3);
        s->inner = ARG(c, uint32_t, 4);
        s->len = ARG(c, uint32_t, 5);
        init_arg = 6;
        break;
    case SK_ATEN_IDX_INNER:    /* (self, values, indices, int rows, int row_size,
                                *  num_threads, log_threads_x, init, op) */
        s->kind = TFL_SCAN_DIM_INDEX;
        s->src = ARG(c, const void *, 0);
        s->dst = ARG(c, void *, 1);
        s->indices = ARG(c, int64_t *, 2);
        s->outer = ARG(c, int32_t, 3);
        s->len = ARG(c, int32_t, 4);
        s->inner = 1;
        init_arg = 7;
        if (s->outer < 0 || s->len < 0) {
            snprintf(err, errlen, "%s: negative sizes", k->op_name);
            return TFL_ERR_INVALID;
        }
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    memcpy(s->init, c->args[init_arg], esz);
    const uint64_t numel = (uint64_t)s->outer * (uint64_t)s->len * (uint64_t)s->inner;
    if (numel == 0)
        return TFL_OK;
    if (!tfl_kdev_ok(s->src, numel * esz) || !tfl_kdev_ok(s->dst, numel * esz) ||
        (s->indices && !tfl_kdev_ok(s->indices, numel * 8)))
        return bad_range(k->op_name, err, errlen);
    return route(&op, c, err, errlen);
}

/* cub DeviceScanKernel(d_in, d_out, tile_state, start_tile, scan_op,
 * NullType init, uint32 num_items): an inclusive scan of num_items.  The
 * kernel scans tiles [start_tile, start_tile + gridDim.x); cub launches
 * it more than once only when the tiles exceed the grid limit (2^31-1 on
 * sm_80, so never for a uint32 count), so a first launch (start_tile 0)
 * is the whole scan and any other is not understood. */
static tfl_status run_cub_scan(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SCAN, .name = k->op_name };
    tfl_scan_op *s = &op.u.scan;
    const size_t esz = tfl_dtype_size(k->dtype);
    if (ARG(c, int32_t, 3) != 0)
        return TFL_ERR_UNSUPPORTED;
    s->kind = TFL_SCAN_DIM;
    s->fn = k->fn;
    s->dtype = k->dtype;
    s->src = ARG(c, const void *, 0);
    s->dst = ARG(c, void *, 1);
    s->outer = 1;
    s->inner = 1;
    s->len = ARG(c, uint32_t, 6);
    s->has_init = 0;
    if (s->len == 0)
        return TFL_OK;
    if (!tfl_kdev_ok(s->src, (size_t)s->len * esz) || !tfl_kdev_ok(s->dst, (size_t)s->len * esz))
        return bad_range(k->op_name, err, errlen);
    return route(&op, c, err, errlen);
}

/* The data pointer of thrust::transform_iterator<NonZeroOp<T>, const T*>
 * (16 bytes): the adapted pointer (the iterator_adaptor base) at offset
 * 0, the empty functor after it. */
static const void *nonzero_iter_ptr(const tfl_kcall *c, int i)
{
    return TFL_KARG_AT(c, const void *, i, 0);
}

/* cub DeviceReduceSingleTileKernel(in, int *out, num_items, plus, int
 * init, identity): *out = init + sum(in[0..num_items)).
 * cub DeviceReduceKernel(in, int *partials, num_items, GridEvenShare,
 * plus, identity): per-block partial sums of in, reduced by a following
 * single-tile launch over gridDim.x partials with plus; the whole sum in
 * partials[0] and zeros in the rest give that launch the same total
 * (exact: integer addition). */
static tfl_status run_cub_reduce(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SCAN, .name = k->op_name };
    tfl_scan_op *s = &op.u.scan;
    const int single = k->kind == SK_CUB_REDUCE_SINGLE;
    s->kind = TFL_SCAN_TOTAL;
    s->dtype = k->dtype;
    s->nonzero = k->nonzero_input;
    s->src = k->nonzero_input ? nonzero_iter_ptr(c, 0) : ARG(c, const void *, 0);
    s->total = ARG(c, void *, 1);
    s->total_dtype = TFL_DT_I32;
    s->n = k->offset64 ? (int64_t)ARG(c, uint64_t, 2) : (int64_t)ARG(c, int32_t, 2);
    if (s->n < 0) {
        snprintf(err, errlen, "%s: bad item count", k->op_name);
        return TFL_ERR_INVALID;
    }
    int32_t init = single ? ARG(c, int32_t, 4) : 0;
    memcpy(s->init, &init, 4);
    int64_t outs = 1;
    if (!single) {
        if (c->grid[1] != 1 || c->grid[2] != 1 || c->grid[0] == 0)
            return TFL_ERR_UNSUPPORTED;
        outs = c->grid[0];
        s->zero_after = outs;
    }
    if (!tfl_kdev_ok(s->src, (size_t)s->n * tfl_dtype_size(s->dtype)) ||
        !tfl_kdev_ok(s->total, (size_t)outs * 4))
        return bad_range(k->op_name, err, errlen);
    return route(&op, c, err, errlen);
}

/* DeviceCompactInitKernel(tile_state, num_tiles, num_selected_out): the
 * tile state is only read by the sweep kernel (run whole below); what
 * stays visible is *num_selected_out = 0. */
static tfl_status run_compact_init(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SCAN, .name = k->op_name };
    tfl_scan_op *s = &op.u.scan;
    s->kind = TFL_SCAN_TOTAL;
    s->total = ARG(c, void *, 2);
    s->total_dtype = k->count_dtype;
    s->dtype = TFL_DT_I32;
    if (!tfl_kdev_ok(s->total, tfl_dtype_size(k->count_dtype)))
        return bad_range(k->op_name, err, errlen);
    return route(&op, c, err, errlen);
}

/* DeviceSelectSweepKernel(counting_iterator<long> in, NonZeroOp flags,
 * long *out, int *num_selected, tile_state, NullType, NullType, int
 * num_items, int num_tiles, streaming_context_t<long, true>, vsmem):
 * DeviceSelect::Flagged over a counting iterator = the flat indices of
 * the nonzero flags.  The streaming context {bool first, last; long
 * total_num_items, total_previous_num_items; long *in, *out} must say
 * "the one and only partition": then the output starts at out[0] and the
 * count goes to num_selected.  One launch covers every tile (the grid is
 * num_tiles). */
static tfl_status run_cub_select(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SCAN, .name = k->op_name };
    tfl_scan_op *s = &op.u.scan;
    const int32_t num_items = ARG(c, int32_t, 7);
    const int32_t num_tiles = ARG(c, int32_t, 8);
    const uint8_t first = TFL_KARG_AT(c, uint8_t, 9, 0), last = TFL_KARG_AT(c, uint8_t, 9, 1);
    const int64_t total_items = TFL_KARG_AT(c, int64_t, 9, 8);
    const int64_t prev_items = TFL_KARG_AT(c, int64_t, 9, 16);
    if (first != 1 || last != 1 || prev_items != 0 || total_items != num_items ||
        num_items < 0 || num_tiles < 0 || c->grid[0] != (unsigned)num_tiles)
        return TFL_ERR_UNSUPPORTED;
    s->kind = TFL_SCAN_SELECT_NONZERO;
    s->dtype = k->dtype;
    s->index_base = ARG(c, int64_t, 0);
    s->src = nonzero_iter_ptr(c, 1);
    s->out_index = ARG(c, int64_t *, 2);
    s->total = ARG(c, void *, 3);
    s->total_dtype = TFL_DT_I32;
    s->n = num_items;
    tfl_alloc_info oa;
    if (!tfl_kdev_ok(s->src, (size_t)s->n * tfl_dtype_size(s->dtype)) ||
        !tfl_kdev_ok(s->total, 4))
        return bad_range(k->op_name, err, errlen);
    /* The output may be sized for the count only (nonzero allocates
     * count x ndim): its room is what its allocation holds past it. */
    if (!s->out_index || !tfl_mem_lookup(s->out_index, &oa)) {
        s->out_capacity = 0;
        s->out_index = NULL;
    } else {
        s->out_capacity = (int64_t)(((const char *)oa.base + oa.size - (const char *)s->out_index) / 8);
    }
    return route(&op, c, err, errlen);
}

/* Nonzero.cu write_indices<long>(long *inp, TensorDims<long> {long
 * sizes[25]}, int ndim, long n, long *total, long fill_value): with
 * total == NULL (nonzero; nonzero_static passes a count), each of the n
 * flat indices in inp[0..n) becomes its coordinates inp[d * n + i].  A
 * thread handles one index: the grid must cover n. */
static tfl_status run_unravel(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_SCAN, .name = k->op_name };
    tfl_scan_op *s = &op.u.scan;
    s->kind = TFL_SCAN_UNRAVEL;
    s->out_index = ARG(c, int64_t *, 0);
    s->ndim = ARG(c, int32_t, 2);
    s->n = ARG(c, int64_t, 3);
    if (ARG(c, const void *, 4) != NULL)
        return TFL_ERR_UNSUPPORTED;
    if (s->ndim < 1 || s->ndim > TFL_SCAN_MAX_DIMS || s->n < 0) {
        snprintf(err, errlen, "%s: bad ndim %d or count %lld", k->op_name, s->ndim, (long long)s->n);
        return TFL_ERR_INVALID;
    }
    if ((uint64_t)c->grid[0] * c->grid[1] * c->grid[2] * c->block[0] * c->block[1] * c->block[2] <
        (uint64_t)s->n)
        return TFL_ERR_UNSUPPORTED;
    for (int d = 0; d < s->ndim; d++)
        s->sizes[d] = TFL_KARG_AT(c, int64_t, 1, (size_t)d * 8);
    if (s->n == 0)
        return TFL_OK;
    if (!tfl_kdev_ok(s->out_index, (size_t)s->n * (size_t)s->ndim * 8))
        return bad_range(k->op_name, err, errlen);
    return route(&op, c, err, errlen);
}

tfl_status tfl_scan_run(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen)
{
    if (!k)
        return TFL_ERR_UNSUPPORTED;
    switch (k->kind) {
    case SK_ATEN_OUTER: case SK_ATEN_INNER: case SK_ATEN_IDX_OUTER: case SK_ATEN_IDX_INNER:
        return run_aten(c, k, err, errlen);
    case SK_CUB_SCAN:
        return run_cub_scan(c, k, err, errlen);
    case SK_CUB_SCAN_INIT:
        /* Only initialises the tile descriptors the matching
         * DeviceScanKernel uses for its look-back; that kernel is run
         * whole without them. */
        return TFL_OK;
    case SK_CUB_COMPACT_INIT:
        return run_compact_init(c, k, err, errlen);
    case SK_CUB_REDUCE_SINGLE: case SK_CUB_REDUCE_MULTI:
        return run_cub_reduce(c, k, err, errlen);
    case SK_CUB_SELECT_NONZERO:
        return run_cub_select(c, k, err, errlen);
    case SK_NONZERO_UNRAVEL:
        return run_unravel(c, k, err, errlen);
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

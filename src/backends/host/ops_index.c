/*
 * ops_index.c - the host backend's native "index" ops: index_select, row
 * gather and batched cat.  Elements are moved as opaque bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "common/log.h"

int host_index_supported(const tfl_index_op *op)
{
    if (!op || op->elem_size == 0 || op->elem_size > 64)
        return 0;
    switch (op->kind) {
    case TFL_INDEX_SELECT:
    case TFL_INDEX_GATHER_ROWS:
        return op->index_dtype == TFL_DT_I32 || op->index_dtype == TFL_DT_I64;
    case TFL_INDEX_CAT:
        return 1;
    }
    return 0;
}

static int64_t index_at(const void *idx, tfl_dtype t, int64_t off)
{
    return t == TFL_DT_I64 ? ((const int64_t *)idx)[off] : ((const int32_t *)idx)[off];
}

static inline void move_elem(char *dst, const char *src, size_t es)
{
    switch (es) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 2: memcpy(dst, src, 2); break;
    case 1: *dst = *src; break;
    default: memcpy(dst, src, es); break;
    }
}

/* Element offsets of every slice element of t (all dims but `skip`),
 * row-major; n = their count. */
static void slice_offsets(const tfl_index_tensor *t, int skip, int64_t n, int64_t *out)
{
    int64_t coord[TFL_INDEX_MAX_DIMS] = { 0 };
    int64_t off = 0;
    for (int64_t e = 0; e < n; e++) {
        out[e] = off;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (d == skip)
                continue;
            if (++coord[d] < t->sizes[d]) {
                off += t->strides[d];
                break;
            }
            off -= (coord[d] - 1) * t->strides[d];
            coord[d] = 0;
        }
    }
}

static int64_t slice_count(const tfl_index_tensor *t, int skip)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (d != skip)
            n *= t->sizes[d];
    return n;
}

static tfl_status do_select(const tfl_index_op *op)
{
    const tfl_index_tensor *dst = &op->u.select.dst, *src = &op->u.select.src,
                           *ix = &op->u.select.index;
    const int dd = op->u.select.dst_dim, sd = op->u.select.src_dim;
    if (dst->ndim < 1 || dst->ndim > TFL_INDEX_MAX_DIMS || src->ndim < 1 ||
        src->ndim > TFL_INDEX_MAX_DIMS || ix->ndim < 1 || ix->ndim > TFL_INDEX_MAX_DIMS ||
        dd < 0 || dd >= dst->ndim || sd < 0 || sd >= src->ndim)
        return TFL_ERR_INVALID;
    const int64_t inner = slice_count(dst, dd), n_index = dst->sizes[dd];
    if (inner != slice_count(src, sd) || slice_count(ix, -1) != n_index)
        return TFL_ERR_INVALID;
    if (inner == 0 || n_index == 0)
        return TFL_OK;
    int64_t *offs = malloc(sizeof(int64_t) * (size_t)(2 * inner + n_index));
    if (!offs)
        return TFL_ERR_NOMEM;
    int64_t *doff = offs, *soff = offs + inner, *ioff = offs + 2 * inner;
    slice_offsets(dst, dd, inner, doff);
    slice_offsets(src, sd, inner, soff);
    slice_offsets(ix, -1, n_index, ioff);
    for (int64_t k = 0; k < n_index; k++) {
        int64_t r = index_at(ix->data, op->index_dtype, ioff[k]);
        if (r < 0 || r >= op->u.select.src_dim_size) {
            tfl_error("index_select: index %lld at position %lld is outside [0, %lld)",
                      (long long)r, (long long)k, (long long)op->u.select.src_dim_size);
            free(offs);
            return TFL_ERR_DEVICE;
        }
    }
    const size_t es = op->elem_size;
    for (int64_t k = 0; k < n_index; k++) {
        int64_t r = index_at(ix->data, op->index_dtype, ioff[k]);
        char *db = (char *)dst->data + (size_t)(k * dst->strides[dd]) * es;
        const char *sb = (const char *)src->data + (size_t)(r * src->strides[sd]) * es;
        if (es == 4) {
            uint32_t *restrict d4 = (uint32_t *)(void *)db;
            const uint32_t *restrict s4 = (const uint32_t *)(const void *)sb;
            for (int64_t e = 0; e < inner; e++)
                d4[doff[e]] = s4[soff[e]];
        } else {
            for (int64_t e = 0; e < inner; e++)
                move_elem(db + doff[e] * (int64_t)es, sb + soff[e] * (int64_t)es, es);
        }
    }
    free(offs);
    return TFL_OK;
}

static tfl_status do_gather_rows(const tfl_index_op *op)
{
    const int64_t n = op->u.gather_rows.n_index, rows = op->u.gather_rows.in_rows;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = index_at(op->u.gather_rows.idx, op->index_dtype, k);
        if (op->u.gather_rows.allow_negative && r < 0)
            r += rows;
        if (r < 0 || r >= rows) {
            tfl_error("index gather: index %lld at position %lld is outside [0, %lld)",
                      (long long)index_at(op->u.gather_rows.idx, op->index_dtype, k),
                      (long long)k, (long long)rows);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t r = index_at(op->u.gather_rows.idx, op->index_dtype, k);
        if (r < 0)
            r += rows;
        memcpy((char *)op->u.gather_rows.out + k * op->u.gather_rows.out_stride,
               (const char *)op->u.gather_rows.in + r * op->u.gather_rows.in_stride,
               (size_t)op->u.gather_rows.row_bytes);
    }
    return TFL_OK;
}

/* One cat input: odometer over all dims but the last, memcpy-able runs
 * along the last dim when both sides have unit stride there. */
static void cat_one(const tfl_index_op *op, const tfl_index_cat_input *in)
{
    const int nd = op->u.cat.ndim, cd = op->u.cat.dim;
    const size_t es = op->elem_size;
    int64_t shape[TFL_INDEX_CAT_DIMS], istr[TFL_INDEX_CAT_DIMS];
    const int64_t *ostr = op->u.cat.out_strides;
    int64_t run = 1;
    for (int d = nd - 1; d >= 0; d--) {
        shape[d] = d == cd ? in->dim_size : op->u.cat.out_sizes[d];
        istr[d] = in->contiguous ? run : in->strides[d];
        run *= shape[d];
    }
    const int64_t last = shape[nd - 1];
    if (last == 0 || run == 0)
        return;
    const int unit = ostr[nd - 1] == 1 && istr[nd - 1] == 1;
    char *obase = (char *)op->u.cat.out + (size_t)(in->offset * op->u.cat.dim_stride) * es;
    const char *ibase = in->data;
    int64_t coord[TFL_INDEX_CAT_DIMS] = { 0 };
    int64_t ooff = 0, ioff = 0;
    for (;;) {
        if (unit) {
            memcpy(obase + ooff * (int64_t)es, ibase + ioff * (int64_t)es, (size_t)last * es);
        } else {
            for (int64_t j = 0; j < last; j++)
                move_elem(obase + (ooff + j * ostr[nd - 1]) * (int64_t)es,
                          ibase + (ioff + j * istr[nd - 1]) * (int64_t)es, es);
        }
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++coord[d] < shape[d]) {
                ooff += ostr[d];
                ioff += istr[d];
                break;
            }
            ooff -= (coord[d] - 1) * ostr[d];
            ioff -= (coord[d] - 1) * istr[d];
            coord[d] = 0;
        }
        if (d < 0)
            break;
    }
}

static tfl_status do_cat(const tfl_index_op *op)
{
    const int nd = op->u.cat.ndim;
    if (nd < 1 || nd > TFL_INDEX_CAT_DIMS || op->u.cat.dim < 0 || op->u.cat.dim >= nd ||
        op->u.cat.n_inputs < 0 || (op->u.cat.n_inputs && !op->u.cat.inputs))
        return TFL_ERR_INVALID;
    for (int i = 0; i < op->u.cat.n_inputs; i++) {
        const tfl_index_cat_input *in = &op->u.cat.inputs[i];
        if (in->numel == 0)
            continue;
        /* numel must be the slab the shape describes, or the copy would
         * read past the input. */
        int64_t n = 1;
        for (int d = 0; d < nd; d++)
            n *= d == op->u.cat.dim ? in->dim_size : op->u.cat.out_sizes[d];
        if (n != in->numel)
            return TFL_ERR_INVALID;
        cat_one(op, in);
    }
    return TFL_OK;
}

tfl_status host_index(const tfl_index_op *op)
{
    if (!host_index_supported(op))
        return TFL_ERR_INVALID;
    switch (op->kind) {
    case TFL_INDEX_SELECT:
        return do_select(op);
    case TFL_INDEX_GATHER_ROWS:
        return do_gather_rows(op);
    case TFL_INDEX_CAT:
        return do_cat(op);
    }
    return TFL_ERR_UNSUPPORTED;
}

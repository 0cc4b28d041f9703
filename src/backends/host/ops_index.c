/*
 * ops_index.c - the host backend's native "index" ops: index_select, row
 * gather and batched cat.  Elements are moved as opaque bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "common/half.h"
#include "common/log.h"

int host_index_supported(const tfl_index_op *op)
{
    if (!op || op->elem_size == 0 || op->elem_size > 64)
        return 0;
    switch (op->kind) {
    case TFL_INDEX_SELECT:
        if (op->u.select.reduce != TFL_INDEX_ASSIGN &&
            op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F64 &&
            op->dtype != TFL_DT_I32 && op->dtype != TFL_DT_I64 &&
            op->dtype != TFL_DT_F16 && op->dtype != TFL_DT_BF16)
            return 0;
        if (op->u.select.reduce < TFL_INDEX_ASSIGN || op->u.select.reduce > TFL_INDEX_MIN)
            return 0;
        /* fall through */
    case TFL_INDEX_GATHER_ROWS:
        return op->index_dtype == TFL_DT_I32 || op->index_dtype == TFL_DT_I64;
    case TFL_INDEX_CAT:
        return 1;
    case TFL_INDEX_SCATTER_GATHER:
        if (op->index_dtype != TFL_DT_I32 && op->index_dtype != TFL_DT_I64)
            return 0;
        if (op->u.scatter_gather.reduce == TFL_INDEX_ASSIGN)
            return 1;
        return op->u.scatter_gather.reduce >= TFL_INDEX_ADD &&
               op->u.scatter_gather.reduce <= TFL_INDEX_MIN &&
               (op->dtype == TFL_DT_F32 || op->dtype == TFL_DT_F64 ||
                op->dtype == TFL_DT_I32 || op->dtype == TFL_DT_I64 ||
                op->dtype == TFL_DT_F16 || op->dtype == TFL_DT_BF16);
    case TFL_INDEX_ADVANCED:
    case TFL_INDEX_TRIANGLE:
        return 1;
    case TFL_INDEX_PUT_SORTED:
        return !op->u.put_sorted.accumulate || op->dtype == TFL_DT_F32 ||
               op->dtype == TFL_DT_F64 || op->dtype == TFL_DT_I32 || op->dtype == TFL_DT_I64;
    case TFL_INDEX_RANGE:
        switch (op->dtype) {
        case TFL_DT_F32: case TFL_DT_F64: case TFL_DT_I64: case TFL_DT_I32:
        case TFL_DT_I8: case TFL_DT_U8:
            return op->u.range.range_kind == TFL_INDEX_ARANGE ||
                   op->u.range.range_kind == TFL_INDEX_LINSPACE;
        default:
            return 0;
        }
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

/* dst (+)= src * alpha for one element of dtype t (the ADD of index_add).
 * Half/bfloat16: in float, rounded to nearest even per add - PyTorch adds
 * each element with an atomic add in the type (gpuAtomicAdd). */
static void add_scaled(char *d, const char *s, tfl_dtype t, double alpha)
{
    switch (t) {
    case TFL_DT_F16: case TFL_DT_BF16: {
        uint16_t a, b;
        memcpy(&a, d, 2);
        memcpy(&b, s, 2);
        float fa = t == TFL_DT_F16 ? tfl_f16_to_f32(a) : tfl_bf16_to_f32(a);
        float fb = t == TFL_DT_F16 ? tfl_f16_to_f32(b) : tfl_bf16_to_f32(b);
        fa += fb * (float)alpha;
        a = t == TFL_DT_F16 ? tfl_f32_to_f16(fa) : tfl_f32_to_bf16(fa);
        memcpy(d, &a, 2);
        break;
    }
    case TFL_DT_F32: { float a, b; memcpy(&a, d, 4); memcpy(&b, s, 4);
                       a += b * (float)alpha; memcpy(d, &a, 4); break; }
    case TFL_DT_F64: { double a, b; memcpy(&a, d, 8); memcpy(&b, s, 8);
                       a += b * alpha; memcpy(d, &a, 8); break; }
    case TFL_DT_I32: { int32_t a, b; memcpy(&a, d, 4); memcpy(&b, s, 4);
                       a = (int32_t)((uint32_t)a + (uint32_t)b * (uint32_t)(int64_t)alpha);
                       memcpy(d, &a, 4); break; }
    case TFL_DT_I64: { int64_t a, b; memcpy(&a, d, 8); memcpy(&b, s, 8);
                       a = (int64_t)((uint64_t)a + (uint64_t)b * (uint64_t)(int64_t)alpha);
                       memcpy(d, &a, 8); break; }
    default: break;
    }
}

/* a (op)= b in double for the floating types: max/min as fmax/fmin
 * (the CUDA atomics' fmaxf/fminf keep the non-NaN operand) */
static double reduce_fp(double a, double b, tfl_index_reduce r)
{
    switch (r) {
    case TFL_INDEX_ADD: return a + b;
    case TFL_INDEX_MUL: return a * b;
    case TFL_INDEX_MAX: return fmax(a, b);
    default:            return fmin(a, b);
    }
}

static int64_t reduce_int(int64_t a, int64_t b, tfl_index_reduce r)
{
    switch (r) {
    case TFL_INDEX_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
    case TFL_INDEX_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
    case TFL_INDEX_MAX: return a > b ? a : b;
    default:            return a < b ? a : b;
    }
}

/* d (op)= s for one element of dtype t (scatter_add / scatter_reduce):
 * half types go through float and round once per element, as PyTorch's
 * per-element atomics do; float32 computes in float (add/mul rounded to
 * float each step, as on the GPU). Returns 1 for an unknown dtype. */
static int reduce_elem(char *d, const char *s, tfl_dtype t, tfl_index_reduce r)
{
    switch (t) {
    case TFL_DT_F16: case TFL_DT_BF16: {
        uint16_t a, b;
        memcpy(&a, d, 2);
        memcpy(&b, s, 2);
        float fa = t == TFL_DT_F16 ? tfl_f16_to_f32(a) : tfl_bf16_to_f32(a);
        float fb = t == TFL_DT_F16 ? tfl_f16_to_f32(b) : tfl_bf16_to_f32(b);
        fa = (float)reduce_fp(fa, fb, r);
        a = t == TFL_DT_F16 ? tfl_f32_to_f16(fa) : tfl_f32_to_bf16(fa);
        memcpy(d, &a, 2);
        return 0;
    }
    case TFL_DT_F32: {
        float a, b;
        memcpy(&a, d, 4); memcpy(&b, s, 4);
        if (r == TFL_INDEX_ADD) a += b;
        else if (r == TFL_INDEX_MUL) a *= b;
        else a = (float)reduce_fp(a, b, r);
        memcpy(d, &a, 4);
        return 0;
    }
    case TFL_DT_F64: { double a, b; memcpy(&a, d, 8); memcpy(&b, s, 8);
                       a = reduce_fp(a, b, r); memcpy(d, &a, 8); return 0; }
    case TFL_DT_I32: { int32_t a, b; memcpy(&a, d, 4); memcpy(&b, s, 4);
                       a = (int32_t)(uint32_t)(uint64_t)reduce_int(a, b, r); memcpy(d, &a, 4); return 0; }
    case TFL_DT_I64: { int64_t a, b; memcpy(&a, d, 8); memcpy(&b, s, 8);
                       a = reduce_int(a, b, r); memcpy(d, &a, 8); return 0; }
    default: return 1;
    }
}

static tfl_status do_select(const tfl_index_op *op)
{
    const tfl_index_tensor *dst = &op->u.select.dst, *src = &op->u.select.src,
                           *ix = &op->u.select.index;
    const int dd = op->u.select.dst_dim, sd = op->u.select.src_dim;
    const int on_dst = op->u.select.index_dst;
    if (dst->ndim < 1 || dst->ndim > TFL_INDEX_MAX_DIMS || src->ndim < 1 ||
        src->ndim > TFL_INDEX_MAX_DIMS || ix->ndim < 1 || ix->ndim > TFL_INDEX_MAX_DIMS ||
        dd < 0 || dd >= dst->ndim || sd < 0 || sd >= src->ndim)
        return TFL_ERR_INVALID;
    const int64_t inner = slice_count(dst, dd);
    const int64_t n_index = on_dst ? src->sizes[sd] : dst->sizes[dd];
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
        if (r < 0 || r >= op->u.select.index_bound) {
            tfl_error("%s: index %lld at position %lld is outside [0, %lld)",
                      on_dst ? "index_add" : "index_select", (long long)r, (long long)k,
                      (long long)op->u.select.index_bound);
            free(offs);
            return TFL_ERR_DEVICE;
        }
    }
    const size_t es = op->elem_size;
    const tfl_index_reduce red = op->u.select.reduce;
    const int add = red == TFL_INDEX_ADD;
    for (int64_t k = 0; k < n_index; k++) {
        int64_t r = index_at(ix->data, op->index_dtype, ioff[k]);
        int64_t dk = on_dst ? r : k, sk = on_dst ? k : r;
        char *db = (char *)dst->data + (size_t)(dk * dst->strides[dd]) * es;
        const char *sb = (const char *)src->data + (size_t)(sk * src->strides[sd]) * es;
        if (add) {
            for (int64_t e = 0; e < inner; e++)
                add_scaled(db + doff[e] * (int64_t)es, sb + soff[e] * (int64_t)es, op->dtype,
                           op->u.select.alpha);
        } else if (red != TFL_INDEX_ASSIGN) {   /* index_reduce: no alpha */
            for (int64_t e = 0; e < inner; e++)
                reduce_elem(db + doff[e] * (int64_t)es, sb + soff[e] * (int64_t)es, op->dtype, red);
        } else if (es == 4) {
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

/* Calls fn(ctx, off0, off1, off2) for every point of it, dim 0 fastest;
 * stops at the first nonzero return. */
typedef int (*iter_fn)(void *ctx, int64_t o0, int64_t o1, int64_t o2);

static int iter_each(const tfl_index_iter *it, iter_fn fn, void *ctx)
{
    const int nd = it->ndim;
    if (nd < 0 || nd > TFL_INDEX_MAX_DIMS)
        return -1;
    for (int d = 0; d < nd; d++)
        if (it->sizes[d] <= 0)
            return 0;
    int64_t coord[TFL_INDEX_MAX_DIMS] = { 0 };
    int64_t o[3] = { 0, 0, 0 };
    for (;;) {
        int r = fn(ctx, o[0], o[1], o[2]);
        if (r)
            return r;
        int d = 0;
        for (; d < nd; d++) {
            if (++coord[d] < it->sizes[d]) {
                for (int a = 0; a < 3; a++)
                    o[a] += it->strides[a][d];
                break;
            }
            for (int a = 0; a < 3; a++)
                o[a] -= (coord[d] - 1) * it->strides[a][d];
            coord[d] = 0;
        }
        if (d == nd)
            return 0;
    }
}

typedef struct sg_ctx {
    const tfl_index_op *op;
    int64_t bad, bad_index;
} sg_ctx;

static int sg_check(void *c, int64_t o0, int64_t o1, int64_t o2)
{
    sg_ctx *x = c;
    (void)o0; (void)o1;
    const tfl_index_op *op = x->op;
    int64_t k = index_at((const char *)op->u.scatter_gather.index + o2, op->index_dtype, 0);
    if (op->u.scatter_gather.allow_negative && k < 0)
        k += op->u.scatter_gather.index_size;
    if (k < 0 || k >= op->u.scatter_gather.index_size) {
        x->bad = 1;
        x->bad_index = k;
        return 1;
    }
    return 0;
}

static int sg_apply(void *c, int64_t o0, int64_t o1, int64_t o2)
{
    sg_ctx *x = c;
    const tfl_index_op *op = x->op;
    const int64_t es = (int64_t)op->elem_size;
    int64_t k = index_at((const char *)op->u.scatter_gather.index + o2, op->index_dtype, 0);
    if (k < 0)   /* checked: allow_negative */
        k += op->u.scatter_gather.index_size;
    int64_t shift = k * op->u.scatter_gather.index_stride * es;
    char *d = (char *)op->u.scatter_gather.self + o0;
    const char *s = op->u.scatter_gather.use_value
        ? (const char *)op->u.scatter_gather.value
        : (const char *)op->u.scatter_gather.src + o1;
    if (op->u.scatter_gather.scatter)
        d += shift;
    else
        s += shift;
    if (op->u.scatter_gather.reduce == TFL_INDEX_ASSIGN) {
        move_elem(d, s, (size_t)es);
        return 0;
    }
    return reduce_elem(d, s, op->dtype, op->u.scatter_gather.reduce);
}

static tfl_status do_scatter_gather(const tfl_index_op *op)
{
    sg_ctx x = { .op = op };
    if (op->u.scatter_gather.use_value &&
        (!op->u.scatter_gather.scatter || op->elem_size > sizeof op->u.scatter_gather.value))
        return TFL_ERR_INVALID;
    /* all indices first: a bad one leaves self untouched */
    if (iter_each(&op->u.scatter_gather.iter, sg_check, &x) < 0)
        return TFL_ERR_INVALID;
    if (x.bad) {
        tfl_error("%s: index %lld is outside [0, %lld)",
                  op->u.scatter_gather.scatter ? "scatter" : "gather",
                  (long long)x.bad_index, (long long)op->u.scatter_gather.index_size);
        return TFL_ERR_DEVICE;
    }
    return iter_each(&op->u.scatter_gather.iter, sg_apply, &x) ? TFL_ERR_INVALID : TFL_OK;
}

typedef struct adv_ctx {
    const tfl_index_op *op;
    int check;
    int64_t bad_dim, bad_index;
} adv_ctx;

static int adv_fn(void *c, int64_t o0, int64_t o1, int64_t o2)
{
    adv_ctx *x = c;
    const tfl_index_op *op = x->op;
    int64_t off = 0;
    for (int i = 0; i < op->u.advanced.n_indices; i++) {
        int64_t k, n = op->u.advanced.sizes[i];
        memcpy(&k, (const char *)op->u.advanced.index_ptrs[i] + o2, 8);
        if (k < -n || k >= n) {
            x->bad_dim = i;
            x->bad_index = k;
            return 1;
        }
        if (k < 0)
            k += n;
        off += k * op->u.advanced.strides[i];
    }
    if (x->check)
        return 0;
    if (op->u.advanced.put)
        move_elem((char *)op->u.advanced.out + o0 + off,
                  (const char *)op->u.advanced.in + o1, op->elem_size);
    else
        move_elem((char *)op->u.advanced.out + o0,
                  (const char *)op->u.advanced.in + o1 + off, op->elem_size);
    return 0;
}

static tfl_status do_advanced(const tfl_index_op *op)
{
    if (op->u.advanced.n_indices < 0 || op->u.advanced.n_indices > TFL_INDEX_MAX_DIMS)
        return TFL_ERR_INVALID;
    adv_ctx x = { .op = op, .check = 1 };
    int r = iter_each(&op->u.advanced.iter, adv_fn, &x);
    if (r < 0)
        return TFL_ERR_INVALID;
    if (r) {
        tfl_error("indexing: index %lld is out of bounds for dimension %lld with size %lld",
                  (long long)x.bad_index, (long long)x.bad_dim,
                  (long long)op->u.advanced.sizes[x.bad_dim]);
        return TFL_ERR_DEVICE;
    }
    x.check = 0;
    return iter_each(&op->u.advanced.iter, adv_fn, &x) ? TFL_ERR_INVALID : TFL_OK;
}

static tfl_status do_range(const tfl_index_op *op)
{
    const int64_t n = op->u.range.n;
    const int lin = op->u.range.range_kind == TFL_INDEX_LINSPACE;
    const int64_t steps = op->u.range.steps, half = op->u.range.halfway;
    void *out = op->u.range.out;
    if (op->dtype == TFL_DT_F32) {
        float *o = out, st = (float)op->u.range.start, sp = (float)op->u.range.step,
              en = (float)op->u.range.end;
        for (int64_t i = 0; i < n; i++) {
            if (!lin)
                o[i] = st + sp * (float)i;
            else
                o[i] = i < half ? st + sp * (float)i : en - sp * (float)(steps - i - 1);
        }
    } else if (op->dtype == TFL_DT_F64) {
        double *o = out, st = op->u.range.start, sp = op->u.range.step, en = op->u.range.end;
        for (int64_t i = 0; i < n; i++) {
            if (!lin)
                o[i] = st + sp * (double)i;
            else
                o[i] = i < half ? st + sp * (double)i : en - sp * (double)(steps - i - 1);
        }
    } else {
        /* integers: arange in int64 (wrapping), linspace in float */
        const float fstep = (float)op->u.range.step;
        for (int64_t i = 0; i < n; i++) {
            int64_t v;
            if (!lin)
                v = (int64_t)((uint64_t)op->u.range.istart + (uint64_t)op->u.range.istep * (uint64_t)i);
            else if (i < half)
                v = (int64_t)((float)op->u.range.istart + fstep * (float)i);
            else
                v = (int64_t)((float)op->u.range.iend - fstep * (float)(steps - i - 1));
            switch (op->dtype) {
            case TFL_DT_I64: ((int64_t *)out)[i] = v; break;
            case TFL_DT_I32: ((int32_t *)out)[i] = (int32_t)v; break;
            case TFL_DT_I8:  ((int8_t *)out)[i] = (int8_t)v; break;
            case TFL_DT_U8:  ((uint8_t *)out)[i] = (uint8_t)v; break;
            default: return TFL_ERR_UNSUPPORTED;
            }
        }
    }
    return TFL_OK;
}

static tfl_status do_triangle(const tfl_index_op *op)
{
    const tfl_index_tensor *d = &op->u.triangle.dst, *s = &op->u.triangle.src;
    const int nd = d->ndim;
    if (nd < 2 || nd > TFL_INDEX_MAX_DIMS || s->ndim != nd)
        return TFL_ERR_INVALID;
    for (int i = 0; i < nd; i++) {
        if (d->sizes[i] != s->sizes[i])
            return TFL_ERR_INVALID;
        if (d->sizes[i] == 0)
            return TFL_OK;
    }
    const size_t es = op->elem_size;
    const int64_t rows = d->sizes[nd - 2], cols = d->sizes[nd - 1], k = op->u.triangle.diagonal;
    const int upper = op->u.triangle.upper;
    int64_t coord[TFL_INDEX_MAX_DIMS] = { 0 };
    int64_t doff = 0, soff = 0;
    for (;;) {
        /* one matrix: dims nd-2, nd-1 */
        for (int64_t i = 0; i < rows; i++) {
            for (int64_t j = 0; j < cols; j++) {
                char *dp = (char *)d->data + (doff + i * d->strides[nd - 2] + j * d->strides[nd - 1]) * (int64_t)es;
                const char *sp = (const char *)s->data + (soff + i * s->strides[nd - 2] + j * s->strides[nd - 1]) * (int64_t)es;
                int keep = upper ? j - i >= k : j - i <= k;
                if (keep) {
                    if (dp != sp)
                        move_elem(dp, sp, es);
                } else {
                    memset(dp, 0, es);
                }
            }
        }
        int b = nd - 3;
        for (; b >= 0; b--) {
            if (++coord[b] < d->sizes[b]) {
                doff += d->strides[b];
                soff += s->strides[b];
                break;
            }
            doff -= (coord[b] - 1) * d->strides[b];
            soff -= (coord[b] - 1) * s->strides[b];
            coord[b] = 0;
        }
        if (b < 0)
            return TFL_OK;
    }
}

static tfl_status do_put_sorted(const tfl_index_op *op)
{
    const int64_t n = op->u.put_sorted.numel, L = op->u.put_sorted.stride,
                  sb = op->u.put_sorted.stride_before, outer = op->u.put_sorted.outer_dim;
    const int64_t es = (int64_t)op->elem_size;
    const int64_t *sorted = op->u.put_sorted.sorted, *pos = op->u.put_sorted.positions;
    const int acc = op->u.put_sorted.accumulate;
    if (n < 0 || L < 0 || sb < 0 || outer < 0)
        return TFL_ERR_INVALID;
    if (n == 0 || L == 0 || outer == 0)
        return TFL_OK;
    /* every row first: a bad index leaves weight untouched */
    for (int64_t p = 0; p < n; p++) {
        int64_t lo = sorted[p] * L, hi = lo + (outer - 1) * sb + L;
        if (sorted[p] < 0 || pos[p] < 0 || pos[p] >= n || hi * es > op->u.put_sorted.weight_bytes) {
            tfl_error("index_put: index %lld (position %lld) is out of bounds",
                      (long long)sorted[p], (long long)pos[p]);
            return TFL_ERR_DEVICE;
        }
    }
    for (int64_t z = 0; z < outer; z++) {
        for (int64_t p = 0; p < n; p++) {
            if (!acc && p + 1 < n && sorted[p] == sorted[p + 1])
                continue;   /* the last of equal indices wins */
            char *w = (char *)op->u.put_sorted.weight + (sorted[p] * L + z * sb) * es;
            const char *g = (const char *)op->u.put_sorted.grad + (pos[p] * L + z * n * L) * es;
            if (!acc) {
                memcpy(w, g, (size_t)(L * es));
                continue;
            }
            for (int64_t f = 0; f < L; f++)
                add_scaled(w + f * es, g + f * es, op->dtype, 1.0);
        }
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
    case TFL_INDEX_SCATTER_GATHER:
        return do_scatter_gather(op);
    case TFL_INDEX_ADVANCED:
        return do_advanced(op);
    case TFL_INDEX_RANGE:
        return do_range(op);
    case TFL_INDEX_TRIANGLE:
        return do_triangle(op);
    case TFL_INDEX_PUT_SORTED:
        return do_put_sorted(op);
    }
    return TFL_ERR_UNSUPPORTED;
}

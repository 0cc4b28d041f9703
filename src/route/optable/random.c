/*
 * random.c - the "random" kernel family of the semantic op table: PyTorch's
 * CUDA RNG kernels, decoded into tfl_random_op (torchfl/ops/random.h).
 *
 * Claimed (fp32 unless said):
 *   distribution_elementwise_grid_stride_kernel<float, 4, ...> for
 *     uniform_kernel (torch.rand, uniform_), normal_kernel (torch.randn,
 *     normal_), bernoulli_kernel (bernoulli_(p) with a scalar p), and
 *     <unsigned int, 4, ...> random_from_to_kernel into int64 (torch.randint
 *     with a range below 2^32); both the trivial-1d launch and the
 *     OffsetCalculator launch;
 *   fused_dropout_kernel_vec<float, float, unsigned int|unsigned long, 1, VEC, bool|uchar>
 *   fused_dropout_kernel<float, float, unsigned int|unsigned long, A, B, bool|uchar>
 *     (F.dropout / native_dropout in training).
 *
 * Parameter layouts (sm_80 cubins of torch 2.11.0+cu130, checked against
 * the SASS of the kernels):
 *   distribution kernel: numel int64 @0, PhiloxCudaState @8 (32 bytes:
 *     seed_ @0 and offset_ @8, each a value or, when captured_, a pointer;
 *     offset_intragraph_ uint64 @16; captured_ bool @24), the dist lambda
 *     (empty) @40, the element lambda @48.  Element lambda, trivial:
 *     out_data @0, stride0 int32 @8, the transform's captures @12 or @16
 *     (8-aligned ones); with OffsetCalculator<1, uint32>: dims @0,
 *     IntDivider sizes[25] (12 bytes each) @4, strides[25] @304, out_data
 *     @408, captures @416.
 *   dropout: TensorInfo a, b, c (data, sizes[25], strides[25], dims; index
 *     type uint32 or uint64), total, p (keep probability), PhiloxCudaState.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

typedef enum rkind {
    RK_DIST = 1,       /* distribution_elementwise_grid_stride_kernel */
    RK_DROPOUT_VEC,
    RK_DROPOUT,
} rkind;

typedef struct rcookie {
    rkind rk;
    tfl_random_kind kind;
    int offset_calc;       /* distribution: element lambda with OffsetCalculator */
    int wide_index;        /* dropout: uint64 TensorInfo                         */
    int vec;               /* dropout_vec: VEC                                   */
    tfl_dtype mask_dtype;
    const char *op;
} rcookie;

/* ------------------------------------------------------------- match */

static int match_dist(const char *m, rcookie *c)
{
    if (strstr(m, "distribution_nullary_kernelIff6float4") &&
        strstr(m, "distribution_elementwise_grid_stride_kernelIfLi4E")) {
        if (strstr(m, "14uniform_kernel")) {
            c->kind = TFL_RANDOM_UNIFORM; c->op = "uniform";
        } else if (strstr(m, "13normal_kernel")) {
            c->kind = TFL_RANDOM_NORMAL; c->op = "normal";
        } else if (strstr(m, "16bernoulli_kernel")) {
            c->kind = TFL_RANDOM_BERNOULLI; c->op = "bernoulli";
        } else {
            return 0;
        }
    } else if (strstr(m, "distribution_nullary_kernelIlj5uint4") &&
               strstr(m, "distribution_elementwise_grid_stride_kernelIjLi4E") &&
               strstr(m, "21random_from_to_kernel")) {
        c->kind = TFL_RANDOM_INT_FROM_TO; c->op = "random_from_to";
    } else {
        return 0;
    }
    /* element lambda #1 is the trivial-1d one, #2 the OffsetCalculator one */
    if (strstr(m, "E_EEvlNS_15PhiloxCudaState"))
        c->offset_calc = 0;
    else if (strstr(m, "E0_EEvlNS_15PhiloxCudaState"))
        c->offset_calc = 1;
    else
        return 0;
    c->rk = RK_DIST;
    return 1;
}

static int match_dropout(const char *m, rcookie *c)
{
    const char *p;
    int vec = 0;
    if ((p = strstr(m, "24fused_dropout_kernel_vecIff"))) {
        p += strlen("24fused_dropout_kernel_vecIff");
        vec = 1;
    } else if ((p = strstr(m, "20fused_dropout_kernelIff"))) {
        p += strlen("20fused_dropout_kernelIff");
    } else {
        return 0;
    }
    if (!strstr(m, "TensorInfo") || !strstr(m, "PhiloxCudaState"))
        return 0;
    if (*p == 'j') c->wide_index = 0;
    else if (*p == 'm') c->wide_index = 1;
    else return 0;
    p++;
    /* template ints: Li<n>E or Lin<n>E (negative) */
    int ints[2], n = 0;
    while (n < 2 && p[0] == 'L' && p[1] == 'i') {
        p += 2;
        int neg = 0;
        if (*p == 'n') { neg = 1; p++; }
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || *end != 'E')
            return 0;
        ints[n++] = neg ? -(int)v : (int)v;
        p = end + 1;
    }
    if (n != 2)
        return 0;
    if (*p == 'b') c->mask_dtype = TFL_DT_BOOL;
    else if (*p == 'h') c->mask_dtype = TFL_DT_U8;
    else return 0;
    if (vec) {
        if (ints[1] != 2 && ints[1] != 4 && ints[1] != 8 && ints[1] != 16)
            return 0;
        c->vec = ints[1];
        c->rk = RK_DROPOUT_VEC;
    } else {
        c->rk = RK_DROPOUT;
    }
    c->kind = TFL_RANDOM_DROPOUT;
    c->op = "dropout";
    return 1;
}

static int match(const char *mangled, void **cookie)
{
    rcookie c;
    memset(&c, 0, sizeof c);
    int ok = 0;
    if (strstr(mangled, "distribution_elementwise_grid_stride_kernel"))
        ok = match_dist(mangled, &c);
    else if (strstr(mangled, "fused_dropout_kernel"))
        ok = match_dropout(mangled, &c);
    if (!ok)
        return 0;
    rcookie *keep = malloc(sizeof *keep);
    if (!keep)
        return 0;
    *keep = c;
    *cookie = keep;
    return 1;
}

static const char *op_name(void *cookie)
{
    return cookie ? ((rcookie *)cookie)->op : "random";
}

/* ------------------------------------------------------------ decode */

static uint64_t rd_u64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd_u32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static float rd_f32(const void *p) { float v; memcpy(&v, p, 4); return v; }
static double rd_f64(const void *p) { double v; memcpy(&v, p, 8); return v; }

/* at::cuda::philox::unpack: values, or (under graph capture) pointers. */
static tfl_status unpack_philox(const unsigned char *st, uint64_t *seed, uint64_t *offset,
                                char *err, size_t errlen)
{
    if (!st[24]) {
        *seed = rd_u64(st);
        *offset = rd_u64(st + 8);
        return TFL_OK;
    }
    const void *ps = (const void *)(uintptr_t)rd_u64(st);
    const void *po = (const void *)(uintptr_t)rd_u64(st + 8);
    if (!tfl_mem_check_range(ps, 8, NULL) || !tfl_mem_check_range(po, 8, NULL)) {
        snprintf(err, errlen, "random: captured Philox seed/offset pointer %p/%p is not device memory",
                 ps, po);
        return TFL_ERR_DEVICE;
    }
    *seed = rd_u64(ps);
    *offset = rd_u64(po) + rd_u64(st + 16);
    return TFL_OK;
}

/* Check that every element of a view lies in one allocation. */
static tfl_status check_view(const tfl_random_view *v, int64_t numel, size_t esz,
                             const char *what, char *err, size_t errlen)
{
    if (numel == 0)
        return TFL_OK;
    int64_t lo = 0, hi = 0;
    if (v->ndim == 0) {
        hi = (numel - 1) * (int64_t)esz;
    } else {
        for (int d = 0; d < v->ndim; d++) {
            int64_t span = (v->sizes[d] - 1) * v->strides[d];
            if (span < 0) lo += span; else hi += span;
        }
    }
    const char *base = (const char *)v->data + lo;
    if (!v->data || !tfl_mem_check_range(base, (size_t)(hi - lo) + esz, NULL)) {
        snprintf(err, errlen, "random: %s range at %p (+%lld bytes) is not device memory",
                 what, (const void *)base, (long long)(hi - lo + (int64_t)esz));
        return TFL_ERR_DEVICE;
    }
    return TFL_OK;
}

/* OffsetCalculator<1, uint32> -> view (dim 0 fastest, byte strides). */
static int view_from_offset_calc(const unsigned char *oc, void *data, int64_t numel,
                                 tfl_random_view *v)
{
    int dims = (int)rd_u32(oc);
    if (dims < 0 || dims > TFL_RANDOM_MAX_DIMS)
        return 0;
    v->data = data;
    v->ndim = dims;
    int64_t prod = 1;
    for (int d = 0; d < dims; d++) {
        v->sizes[d] = rd_u32(oc + 4 + 12 * d);          /* IntDivider.divisor */
        v->strides[d] = rd_u32(oc + 304 + 4 * d);       /* bytes, uint32       */
        if (v->sizes[d] <= 0)
            return 0;
        prod *= v->sizes[d];
    }
    if (dims == 0) {               /* a scalar: one element at data */
        v->ndim = 1;
        v->sizes[0] = 1;
        v->strides[0] = 0;
        prod = 1;
    }
    return prod == numel;
}

/* TensorInfo<T, uint32|uint64> -> view.  TensorInfo's last dim is the
 * innermost one; views peel dim 0 first, so the order is reversed. */
static int view_from_tensor_info(const unsigned char *ti, int wide, size_t esz,
                                 int64_t numel, tfl_random_view *v)
{
    size_t isz = wide ? 8 : 4;
    int dims = (int)rd_u32(ti + 8 + 50 * isz);
    if (dims <= 0 || dims > TFL_RANDOM_MAX_DIMS)
        return 0;
    v->data = (void *)(uintptr_t)rd_u64(ti);
    v->ndim = dims;
    int64_t prod = 1;
    for (int d = 0; d < dims; d++) {
        const unsigned char *ps = ti + 8 + (size_t)(dims - 1 - d) * isz;
        const unsigned char *pt = ti + 8 + 25 * isz + (size_t)(dims - 1 - d) * isz;
        int64_t sz = wide ? (int64_t)rd_u64(ps) : (int64_t)rd_u32(ps);
        int64_t st = wide ? (int64_t)rd_u64(pt) : (int64_t)rd_u32(pt);
        if (sz <= 0)
            return 0;
        v->sizes[d] = sz;
        v->strides[d] = st * (int64_t)esz;
        prod *= sz;
    }
    return prod == numel;
}

static tfl_status decode_dist(const tfl_kcall *call, const rcookie *c, tfl_random_op *r,
                              char *err, size_t errlen)
{
    int64_t numel = (int64_t)rd_u64(call->args[0]);
    tfl_status st = unpack_philox(call->args[1], &r->seed, &r->offset, err, errlen);
    if (st != TFL_OK)
        return st;
    const unsigned char *lam = call->args[3];
    const unsigned char *cap;
    void *out;
    size_t esz = c->kind == TFL_RANDOM_INT_FROM_TO ? 8 : 4;
    if (numel < 0)
        return TFL_ERR_UNSUPPORTED;
    r->numel = numel;
    if (!c->offset_calc) {
        out = (void *)(uintptr_t)rd_u64(lam);
        int32_t stride0 = (int32_t)rd_u32(lam + 8);
        r->out.data = out;
        r->out.ndim = 1;
        r->out.sizes[0] = numel > 0 ? numel : 1;
        r->out.strides[0] = stride0;
        cap = lam + 12;
    } else {
        out = (void *)(uintptr_t)rd_u64(lam + 408);
        if (!view_from_offset_calc(lam, out, numel, &r->out))
            return TFL_ERR_UNSUPPORTED;
        cap = lam + 416;
    }
    switch (c->kind) {
    case TFL_RANDOM_UNIFORM:               /* [range, from, to] floats */
        r->a = rd_f32(cap);
        r->b = rd_f32(cap + 4);
        r->c = rd_f32(cap + 8);
        r->dtype = TFL_DT_F32;
        break;
    case TFL_RANDOM_NORMAL:                /* [mean, std] floats */
        r->b = rd_f32(cap);
        r->a = rd_f32(cap + 4);
        r->dtype = TFL_DT_F32;
        break;
    case TFL_RANDOM_BERNOULLI:             /* [p] double, 8-aligned */
        if (!c->offset_calc)
            cap = lam + 16;
        r->a = (float)rd_f64(cap);
        r->dtype = TFL_DT_F32;
        break;
    case TFL_RANDOM_INT_FROM_TO:           /* [range uint64, base int64] */
        if (!c->offset_calc)
            cap = lam + 16;
        r->range = rd_u64(cap);
        r->base = (int64_t)rd_u64(cap + 8);
        r->dtype = TFL_DT_I64;
        if (r->range == 0)
            return TFL_ERR_UNSUPPORTED;
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    r->traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
    return check_view(&r->out, numel, esz, "output", err, errlen);
}

static tfl_status decode_dropout(const tfl_kcall *call, const rcookie *c, tfl_random_op *r,
                                 char *err, size_t errlen)
{
    const unsigned char *a = call->args[0], *b = call->args[1], *m = call->args[2];
    int64_t total = c->wide_index ? (int64_t)rd_u64(call->args[3])
                                  : (int64_t)rd_u32(call->args[3]);
    r->a = rd_f32(call->args[4]);
    tfl_status st = unpack_philox(call->args[5], &r->seed, &r->offset, err, errlen);
    if (st != TFL_OK)
        return st;
    if (total < 0 || !(r->a > 0.0f))
        return TFL_ERR_UNSUPPORTED;
    r->numel = total;
    r->dtype = TFL_DT_F32;
    r->mask_dtype = c->mask_dtype;
    if (c->rk == RK_DROPOUT_VEC) {
        /* the vectorised kernel indexes all three as contiguous arrays */
        r->traverse = TFL_RANDOM_TRAVERSE_VEC;
        r->vec = c->vec;
        r->in.data = (void *)(uintptr_t)rd_u64(a);
        r->out.data = (void *)(uintptr_t)rd_u64(b);
        r->mask.data = (void *)(uintptr_t)rd_u64(m);
    } else {
        r->traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
        if (total > 0) {
            if (!view_from_tensor_info(a, c->wide_index, 4, total, &r->in) ||
                !view_from_tensor_info(b, c->wide_index, 4, total, &r->out))
                return TFL_ERR_UNSUPPORTED;
            /* the mask is written at b's offsets (c.data[bOffset]) */
            r->mask = r->out;
            r->mask.data = (void *)(uintptr_t)rd_u64(m);
            for (int d = 0; d < r->mask.ndim; d++)
                r->mask.strides[d] /= 4;
        }
    }
    if ((st = check_view(&r->in, total, 4, "dropout input", err, errlen)) != TFL_OK ||
        (st = check_view(&r->out, total, 4, "dropout output", err, errlen)) != TFL_OK ||
        (st = check_view(&r->mask, total, 1, "dropout mask", err, errlen)) != TFL_OK)
        return st;
    return TFL_OK;
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const rcookie *c = cookie;
    if (!c || !call->args)
        return TFL_ERR_UNSUPPORTED;
    /* PyTorch launches these 1-d: thread = blockIdx.x * blockDim.x + threadIdx.x */
    if (call->grid[1] != 1 || call->grid[2] != 1 || call->block[1] != 1 || call->block[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_RANDOM;
    op.name = c->op;
    tfl_random_op *r = &op.u.random;
    r->kind = c->kind;
    r->threads = (uint64_t)call->grid[0] * call->block[0];
    tfl_status st = c->rk == RK_DIST ? decode_dist(call, c, r, err, errlen)
                                     : decode_dropout(call, c, r, err, errlen);
    if (st != TFL_OK)
        return st;
    if (r->numel == 0 || r->threads == 0)
        return TFL_OK;
    st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED && err && errlen && !err[0])
        snprintf(err, errlen, "random: %s failed (status %d)", c->op, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_random = {
    .name = "random",
    .match = match,
    .run = run,
    .op_name = op_name,
};

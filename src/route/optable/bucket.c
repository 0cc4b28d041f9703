/*
 * bucket.c - the "bucket" kernel family of the semantic op table:
 * PyTorch's searchsorted / bucketize (Bucketization.cu) and histc /
 * bincount (SummaryOps.cu) kernels, torch 2.11.0 sm_80 layouts.
 *
 *   searchsorted_cuda_kernel<in, out>(out* data_out, const in* data_in,
 *       const in* data_bd, const int64* data_sort, int64 idim_in,
 *       int64 idim_bd, int64 numel_in, bool right, bool is_1d_boundaries)
 *       - 58 bytes: 7 x 8, then the two bools at 56, 57
 *   kernelHistogram1D<out, in, int64, 1, 2, -1, MemoryType, Op>(
 *       TensorInfo<out> a, TensorInfo<out> p, TensorInfo<const in> b,
 *       int64 nbins, acc minvalue, acc maxvalue, int64 totalElements, Op op)
 *       TensorInfo<T, int64> = { T* data; int64 sizes[25]; int64
 *       strides[25]; int dims; } = 416 bytes; acc is float for float,
 *       double for double, int64 for integer inputs; Op is the weights
 *       lambda [cInfo] (a 416-byte TensorInfo of the weights, "UllE_") or
 *       the dummy [] returning 1 (1 byte, "UllE0_").  MemoryType (shared /
 *       global) does not change the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

enum { K_SEARCH = 1, K_HIST };

typedef struct bucket_kernel {
    int kind;
    tfl_dtype in, out;
    int weighted;
} bucket_kernel;

/* One mangled builtin type code -> tfl_dtype. */
static int type_code(char ch, tfl_dtype *dt)
{
    switch (ch) {
    case 'f': *dt = TFL_DT_F32; return 1;
    case 'd': *dt = TFL_DT_F64; return 1;
    case 'l': *dt = TFL_DT_I64; return 1;
    case 'i': *dt = TFL_DT_I32; return 1;
    case 'h': *dt = TFL_DT_U8; return 1;
    case 'a': *dt = TFL_DT_I8; return 1;
    default:  return 0;
    }
}

static int match(const char *m, void **cookie)
{
    bucket_kernel k;
    memset(&k, 0, sizeof k);
    const char *p;
    static const char search_id[] = "24searchsorted_cuda_kernelI";
    static const char hist_id[] = "_ZN2at4cuda17kernelHistogram1DI";
    if (strstr(m, "Bucketization_cu") && (p = strstr(m, search_id)) != NULL) {
        p += strlen(search_id);
        if (!type_code(p[0], &k.in) || !type_code(p[1], &k.out) || p[2] != 'E')
            return 0;
        if (k.out != TFL_DT_I64 && k.out != TFL_DT_I32)
            return 0;
        k.kind = K_SEARCH;
    } else if (strncmp(m, hist_id, strlen(hist_id)) == 0) {
        p = m + strlen(hist_id);
        if (!type_code(p[0], &k.out) || !type_code(p[1], &k.in) ||
            strncmp(p + 2, "lLi1ELi2ELin1E", 14) != 0)
            return 0;
        if (strstr(p, "EUllE_EE"))
            k.weighted = 1;
        else if (!strstr(p, "EUllE0_EE"))
            return 0;
        k.kind = K_HIST;
    } else {
        return 0;
    }
    bucket_kernel *c = malloc(sizeof *c);
    if (!c)
        return 0;
    *c = k;
    *cookie = c;
    return 1;
}

static const char *op_name(void *cookie)
{
    const bucket_kernel *k = cookie;
    return k->kind == K_SEARCH ? "searchsorted" : k->weighted ? "bincount_weighted" : "histogram";
}

/* TensorInfo<T, int64> inside a parameter (or a lambda capturing one). */
typedef struct tinfo {
    void *data;
    int64_t sizes[25], strides[25];
    int dims;
} tinfo;

static void read_tinfo(const void *bytes, tinfo *t)
{
    const char *p = bytes;
    memcpy(&t->data, p, 8);
    memcpy(t->sizes, p + 8, 200);
    memcpy(t->strides, p + 208, 200);
    memcpy(&t->dims, p + 408, 4);
}

/* Bytes a strided TensorInfo view spans (-1 if not sane). */
static int64_t tinfo_span(const tinfo *t, size_t esize)
{
    if (t->dims < 0 || t->dims > 25)
        return -1;
    int64_t hi = 0;
    for (int d = 0; d < t->dims; d++) {
        if (t->sizes[d] < 0 || t->strides[d] < 0)
            return -1;
        if (t->sizes[d] == 0)
            return 0;
        hi += (t->sizes[d] - 1) * t->strides[d];
    }
    return (hi + 1) * (int64_t)esize;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const bucket_kernel *k = cookie;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_BUCKET;
    op.name = op_name(cookie);
    tfl_bucket_op *b = &op.u.bucket;
    b->in_dtype = k->in;
    b->out_dtype = k->out;
    const size_t is = tfl_dtype_size(k->in), os = tfl_dtype_size(k->out);
    int ok = 1;
    if (k->kind == K_SEARCH) {
        b->kind = TFL_BUCKET_SEARCHSORTED;
        b->out = TFL_KARG(c, void *, 0);
        b->in = TFL_KARG(c, const void *, 1);
        b->bd = TFL_KARG(c, const void *, 2);
        b->sorter = TFL_KARG(c, const int64_t *, 3);
        b->in_len = TFL_KARG(c, int64_t, 4);
        b->bd_len = TFL_KARG(c, int64_t, 5);
        b->numel = TFL_KARG(c, int64_t, 6);
        b->right = TFL_KARG(c, uint8_t, 7) != 0;
        b->bd_1d = TFL_KARG(c, uint8_t, 8) != 0;
        if (b->numel < 0 || b->bd_len < 0 || b->in_len <= 0) {
            if (b->numel == 0)
                return TFL_OK;
            snprintf(err, errlen, "searchsorted: bad sizes in %lld bd %lld numel %lld",
                     (long long)b->in_len, (long long)b->bd_len, (long long)b->numel);
            return TFL_ERR_INVALID;
        }
        if (b->numel == 0)
            return TFL_OK;
        int64_t rows = b->bd_1d ? 1 : (b->numel - 1) / b->in_len + 1;
        int64_t nbd = rows * b->bd_len;
        ok = tfl_kdev_ok(b->out, (size_t)b->numel * os) && tfl_kdev_ok(b->in, (size_t)b->numel * is) &&
             tfl_kdev_ok(b->bd, (size_t)nbd * is) &&
             (!b->sorter || tfl_kdev_ok(b->sorter, (size_t)nbd * 8));
    } else {
        b->kind = TFL_BUCKET_HISTOGRAM;
        tinfo a, in, w;
        read_tinfo(c->args[0], &a);
        read_tinfo(c->args[2], &in);
        b->nbins = TFL_KARG(c, int64_t, 3);
        if (k->in == TFL_DT_F32) {
            b->lo = TFL_KARG(c, float, 4);
            b->hi = TFL_KARG(c, float, 5);
        } else if (k->in == TFL_DT_F64) {
            b->lo = TFL_KARG(c, double, 4);
            b->hi = TFL_KARG(c, double, 5);
        } else {
            b->lo_i = TFL_KARG(c, int64_t, 4);
            b->hi_i = TFL_KARG(c, int64_t, 5);
        }
        int64_t total = TFL_KARG(c, int64_t, 6);
        if (a.dims != 1 || a.strides[0] != 1 || a.sizes[0] != b->nbins || b->nbins <= 0 ||
            in.dims < 1 || in.dims > TFL_BUCKET_MAX_DIMS)
            return TFL_ERR_UNSUPPORTED;
        int64_t n = 1;
        for (int d = 0; d < in.dims; d++)
            n *= in.sizes[d];
        if (n != total) {
            snprintf(err, errlen, "histogram: input has %lld elements, launch says %lld",
                     (long long)n, (long long)total);
            return TFL_ERR_INVALID;
        }
        if (total == 0)
            return TFL_OK;
        b->out = a.data;
        b->in = in.data;
        b->ndim = in.dims;
        for (int d = 0; d < in.dims; d++) {
            b->sizes[d] = in.sizes[d];
            b->in_strides[d] = in.strides[d];
        }
        int64_t ib = tinfo_span(&in, is);
        ok = ib >= 0 && tfl_kdev_ok(b->out, (size_t)b->nbins * os) && tfl_kdev_ok(b->in, (size_t)ib);
        if (k->weighted) {
            read_tinfo(c->args[7], &w);
            /* the weights are read 1-d: offset = linear index * strides[0] */
            if (w.dims != 1 || w.sizes[0] != total)
                return TFL_ERR_UNSUPPORTED;
            b->weights = w.data;
            b->w_strides[0] = w.strides[0];
            int64_t wb = tinfo_span(&w, os);
            ok = ok && wb >= 0 && tfl_kdev_ok(w.data, (size_t)wb);
        }
    }
    if (!ok) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_DEVICE;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_bucket = {
    .name = "bucket",
    .match = match,
    .run = run,
    .op_name = op_name,
};

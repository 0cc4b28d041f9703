/*
 * bucket.c - the "bucket" kernel family of the semantic op table:
 * PyTorch's searchsorted / bucketize (Bucketization.cu) and histc /
 * bincount (SummaryOps.cu) kernels.  Recognised by base name and template
 * arguments (kname.h); layouts the same in the sm_80 cubins of torch 2.11
 * to 2.15:
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
 *       lambda {lambda(long)#1} of CUDA_tensor_histogram (a 416-byte
 *       TensorInfo of the weights) or the dummy {lambda(long)#2} returning
 *       1 (1 byte).  MemoryType (shared / global) is where the kernel
 *       accumulates, which does not change the result: any constant is
 *       accepted.  The index type and the dims arguments (1, 2, -1: a 1-d
 *       output, any input strides) are what read_tinfo and run() assume,
 *       so they must be exactly these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

enum { K_SEARCH = 1, K_HIST };

typedef struct bucket_kernel {
    int kind;
    tfl_dtype in, out;
    int weighted;
} bucket_kernel;

/* The element types the host op takes. */
static int supported(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F64 || t == TFL_DT_I64 || t == TFL_DT_I32 ||
           t == TFL_DT_U8 || t == TFL_DT_I8;
}

/* Template argument i as a supported element type. */
static int elem_targ(const tfl_kname *k, int i, tfl_dtype *dt)
{
    return tfl_kname_targ_dtype(k, i, dt) && supported(*dt);
}

/* Does template argument i end with `tail`? */
static int targ_ends(const tfl_kname *k, int i, const char *tail)
{
    size_t n = strlen(tail);
    return i < k->ntargs && i < TFL_KNAME_MAX && k->targ_len[i] >= n &&
           memcmp(k->targ[i] + k->targ_len[i] - n, tail, n) == 0;
}

/* <in, out>(9 parameters) */
static int match_search(const tfl_kname *k, bucket_kernel *b)
{
    if (k->ntargs != 2 || k->nparams != 9 || !elem_targ(k, 0, &b->in) ||
        !elem_targ(k, 1, &b->out) || (b->out != TFL_DT_I64 && b->out != TFL_DT_I32))
        return 0;
    b->kind = K_SEARCH;
    return 1;
}

/* <out, in, long, 1, 2, -1, MemoryType, Op>(8 parameters) */
static int match_hist(const tfl_kname *k, bucket_kernel *b)
{
    static const long long dims[3] = { 1, 2, -1 };
    long long v;
    if (k->ntargs != 8 || k->nparams != 8 || !elem_targ(k, 0, &b->out) ||
        !elem_targ(k, 1, &b->in) || !tfl_kname_targ_is(k, 2, "long") ||
        !tfl_kname_targ_int(k, 6, &v) ||
        !tfl_kname_targ_starts(k, 7, "at::cuda::CUDA_tensor_histogram<"))
        return 0;
    for (int i = 0; i < 3; i++)
        if (!tfl_kname_targ_int(k, 3 + i, &v) || v != dims[i])
            return 0;
    if (targ_ends(k, 7, "::{lambda(long)#1}"))
        b->weighted = 1;
    else if (!targ_ends(k, 7, "::{lambda(long)#2}"))
        return 0;
    b->kind = K_HIST;
    return 1;
}

static int match(const char *m, void **cookie)
{
    if (!strstr(m, "searchsorted_cuda_kernel") && !strstr(m, "kernelHistogram1D"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    bucket_kernel b;
    memset(&b, 0, sizeof b);
    int ok = tfl_kname_is(&k, "searchsorted_cuda_kernel") ? match_search(&k, &b)
           : tfl_kname_qualified(&k, "at::cuda::kernelHistogram1D") ? match_hist(&k, &b) : 0;
    tfl_kname_free(&k);
    return ok && tfl_kcookie_keep(&b, sizeof b, cookie);
}

/* The parameters run() reads (optable.h signature tokens). */
static int layout(void *cookie, tfl_klayout *l)
{
    const bucket_kernel *k = cookie;
    if (k->kind == K_SEARCH)
        return tfl_klayout_sig(l, "p p p p l l l b b") == 0;
    /* min/max in the input's accumulate type */
    const char *acc = k->in == TFL_DT_F32 ? "f f" : k->in == TFL_DT_F64 ? "d d" : "l l";
    char sig[64];
    snprintf(sig, sizeof sig, "416:8 416:8 416:8 l %s l %s", acc, k->weighted ? "416:8" : "b");
    return tfl_klayout_sig(l, sig) == 0;
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
        return TFL_ERR_INVALID;
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
    .layout = layout,
};

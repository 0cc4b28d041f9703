/*
 * ocl_spatial.c - TFL_OP_SPATIAL (torchfl/ops/spatial.h) on the OpenCL
 * device: 2-D max pooling (with indices; dilation, padding, ceil-mode
 * sizes), adaptive max pooling, average pooling (count_include_pad,
 * divisor_override), adaptive average pooling, and the backward passes of
 * all of them, for float32, float16 and bfloat16 in any (n, c, h, w)
 * strides (NCHW, channels_last, views).  Resizing, roll, bicubic and the
 * 3-D kinds are refused (the host runs them).
 *
 * Semantics are the host backend's (host/ops_spatial*.c):
 *   - max: a NaN is taken whenever met and a value only when strictly
 *     greater, so ties keep the first in row-major window order and the
 *     last NaN wins (the host's `v > best || isnan(v)`, PyTorch's rule);
 *     an empty window gives -inf with the index of its first position;
 *   - sums are in float in window order, divided once by the float
 *     divisor (the host's float32 path, bit for bit); adaptive average
 *     forward sums in double when the device has cl_khr_fp64, as the host;
 *   - backward passes gather: one work item per input-gradient element
 *     adds the outputs whose window holds it in output order (oh, then
 *     ow), starting from 0 or (accumulate) the element's value - the
 *     host's float32 scatter order, so no atomics and the same bits.
 * Max backward is told only the indices: a check kernel first flags an
 * index outside its plane (the host's error) and one outside the window
 * the gather visits (indices not from this window's forward).  The gather
 * runs when neither is set; with only the second, a per-plane kernel
 * scatters in output order instead (exact for any index); with the first,
 * nothing is written and the stream fails at its next sync, as after a
 * device-side assert (the flag is read back without blocking and judged
 * in a callback, which fails a marker on the stream).
 */
#include "backends/opencl/ocl_src.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ kernels */

/* Options: -DDT (element type), -DACC_DBL.  Tensors are (buffer, offset)
 * with element strides (n, c, h, w) in a long4; geometry in a struct. */
static const char sp_src[] =
OCL_SRC_ACC
"typedef struct {\n"
"    long n, c, H, W, OH, OW;\n"
"    int kh, kw, sh, sw, ph, pw, dh, dw;\n"
"    int cip, acc, pool, pad_;\n"
"    long div;\n"
"} geo_t;\n"
"#define LD(b, o, i) fp_ld((b) + (o), (i), DT)\n"
"#define ST(b, o, i, v) fp_st((b) + (o), (i), DT, (v))\n"
/* element (h, w) of plane p (= n * c + ch) of a tensor with strides s */
"#define AT(G, S, P, Y, X) \\\n"
"    (((P) / (G).c) * (S).x + ((P) % (G).c) * (S).y + (Y) * (S).z + (X) * (S).w)\n"
/* flat index e of a p x R x S grid -> (p, r, q) */
"#define SPLIT(e, R, S, p, r, q) long q = (e) % (S), t_ = (e) / (S), r = t_ % (R), p = t_ / (R);\n"
"\n"
/* the host's avg_window: clipped [lo, hi) of output o, *full the divisor share */
"int avg_win(long o, int k, int s, int pad, long size, long *lo, long *hi, long *full) {\n"
"    long a = o * s - pad, b = a + k;\n"
"    if (b > size + pad) b = size + pad;\n"
"    *full = b - a;\n"
"    if (a < 0) a = 0;\n"
"    if (b > size) b = size;\n"
"    *lo = a; *hi = b;\n"
"    return a < b;\n"
"}\n"
"float avg_div(geo_t g, long fh, long fw, long hs, long he, long ws, long we) {\n"
"    if (g.div) return (float)g.div;\n"
"    return g.cip ? (float)(fh * fw) : (float)((he - hs) * (we - ws));\n"
"}\n"
/* adaptive window [a, b) of output o along an axis of size n into m */
"void ada_win(long o, long n, long m, long *a, long *b) {\n"
"    *a = o * n / m;\n"
"    *b = ((o + 1) * n + m - 1) / m;\n"
"}\n"
"\n"
"__kernel void maxpool(__global const uchar *ib, ulong io, long4 is,\n"
"                      __global uchar *ob, ulong oo, long4 os,\n"
"                      __global uchar *xb, ulong xo, geo_t g, int adaptive) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.OH * g.OW) return;\n"
"    SPLIT(e, g.OH, g.OW, p, oh, ow)\n"
"    long hs, he, ws, we, dh = adaptive ? 1 : g.dh, dw = adaptive ? 1 : g.dw;\n"
"    if (adaptive) {\n"
"        ada_win(oh, g.H, g.OH, &hs, &he);\n"
"        ada_win(ow, g.W, g.OW, &ws, &we);\n"
"    } else {\n"
"        hs = oh * g.sh - g.ph; he = hs + (long)(g.kh - 1) * dh + 1;\n"
"        if (he > g.H) he = g.H;\n"
"        while (hs < 0) hs += dh;\n"
"        ws = ow * g.sw - g.pw; we = ws + (long)(g.kw - 1) * dw + 1;\n"
"        if (we > g.W) we = g.W;\n"
"        while (ws < 0) ws += dw;\n"
"    }\n"
"    float best = -INFINITY;\n"
"    long arg = hs * g.W + ws;\n"
"    for (long h = hs; h < he; h += dh)\n"
"        for (long w = ws; w < we; w += dw) {\n"
"            float v = LD(ib, io, AT(g, is, p, h, w));\n"
"            if (v > best || isnan(v)) { best = v; arg = h * g.W + w; }\n"
"        }\n"
"    const long o = AT(g, os, p, oh, ow);\n"
"    ST(ob, oo, o, best);\n"
"    ((__global long *)(xb + xo))[o] = arg;\n"
"}\n"
"\n"
"__kernel void avgpool(__global const uchar *ib, ulong io, long4 is,\n"
"                      __global uchar *ob, ulong oo, long4 os, geo_t g) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.OH * g.OW) return;\n"
"    SPLIT(e, g.OH, g.OW, p, oh, ow)\n"
"    long hs, he, fh, ws, we, fw;\n"
"    int hok = avg_win(oh, g.kh, g.sh, g.ph, g.H, &hs, &he, &fh);\n"
"    int wok = avg_win(ow, g.kw, g.sw, g.pw, g.W, &ws, &we, &fw);\n"
"    float sum = 0.0f;\n"
"    if (hok && wok) {\n"
"        for (long h = hs; h < he; h++)\n"
"            for (long w = ws; w < we; w++) sum += LD(ib, io, AT(g, is, p, h, w));\n"
"        sum = sum / avg_div(g, fh, fw, hs, he, ws, we);\n"
"    }\n"
"    ST(ob, oo, AT(g, os, p, oh, ow), sum);\n"
"}\n"
"\n"
"__kernel void ada_avg(__global const uchar *ib, ulong io, long4 is,\n"
"                      __global uchar *ob, ulong oo, long4 os, geo_t g) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.OH * g.OW) return;\n"
"    SPLIT(e, g.OH, g.OW, p, oh, ow)\n"
"    long hs, he, ws, we;\n"
"    ada_win(oh, g.H, g.OH, &hs, &he);\n"
"    ada_win(ow, g.W, g.OW, &ws, &we);\n"
"    acc_t sum = 0;\n"
"    for (long h = hs; h < he; h++)\n"
"        for (long w = ws; w < we; w++) sum += (acc_t)LD(ib, io, AT(g, is, p, h, w));\n"
"    ST(ob, oo, AT(g, os, p, oh, ow), (float)(sum / (acc_t)((he - hs) * (we - ws))));\n"
"}\n"
"\n"
/* The outputs along one axis whose window may hold input i: [*lo, *hi]. */
"void cand(int kind, long i, long n, long m, int k, int s, int pad, int d, long *lo, long *hi) {\n"
"    long a, b;\n"
"    if (kind == 0) {            /* adaptive */\n"
"        a = i * m / n;\n"
"        b = ((i + 1) * m + n - 1) / n - 1;\n"
"    } else if (kind == 1) {     /* max pool: i = o*s - pad + j*d, j < k */\n"
"        long t = i + pad - (long)(k - 1) * d;\n"
"        a = t <= 0 ? 0 : (t + s - 1) / s;\n"
"        b = (i + pad) / s;\n"
"    } else {                    /* average pool: o*s - pad <= i < o*s - pad + k */\n"
"        long t = i + pad - k;\n"
"        a = t < 0 ? 0 : t / s + 1;\n"
"        b = (i + pad) / s;\n"
"    }\n"
"    *lo = a < 0 ? 0 : a;\n"
"    *hi = b > m - 1 ? m - 1 : b;\n"
"}\n"
/* Whether output o's max window (kind 0 adaptive, 1 pool) holds input i. */
"int max_member(int kind, long i, long o, long n, long m, int k, int s, int pad, int d) {\n"
"    if (kind == 0) {\n"
"        long a, b;\n"
"        ada_win(o, n, m, &a, &b);\n"
"        return a <= i && i < b;\n"
"    }\n"
"    long t = i + pad - o * s;\n"
"    return t >= 0 && t % d == 0 && t / d < k;\n"
"}\n"
"\n"
/* flag[0]: an index outside its plane (flag[2..3] its value); flag[1]: one
 * outside its output's window */
"__kernel void max_chk(__global const uchar *xb, ulong xo, long4 os, __global int *flag, geo_t g) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.OH * g.OW) return;\n"
"    SPLIT(e, g.OH, g.OW, p, oh, ow)\n"
"    const long k = ((__global const long *)(xb + xo))[AT(g, os, p, oh, ow)];\n"
"    if (k < 0 || k >= g.H * g.W) {\n"
"        if (atomic_cmpxchg(&flag[0], 0, 1) == 0) { flag[2] = (int)k; flag[3] = (int)(k >> 32); }\n"
"        return;\n"
"    }\n"
"    const long h = k / g.W, w = k % g.W;\n"
"    if (!max_member(g.pool, h, oh, g.H, g.OH, g.kh, g.sh, g.ph, g.dh) ||\n"
"        !max_member(g.pool, w, ow, g.W, g.OW, g.kw, g.sw, g.pw, g.dw))\n"
"        atomic_or(&flag[1], 1);\n"
"}\n"
"\n"
"__kernel void max_bwd(__global uchar *ib, ulong io, long4 is,\n"
"                      __global const uchar *ob, ulong oo, long4 os,\n"
"                      __global const uchar *xb, ulong xo, __global const int *flag, geo_t g) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.H * g.W || flag[0] || flag[1]) return;\n"
"    SPLIT(e, g.H, g.W, p, h, w)\n"
"    const long me = h * g.W + w, at = AT(g, is, p, h, w);\n"
"    long ohl, ohh, owl, owh;\n"
"    cand(g.pool, h, g.H, g.OH, g.kh, g.sh, g.ph, g.dh, &ohl, &ohh);\n"
"    cand(g.pool, w, g.W, g.OW, g.kw, g.sw, g.pw, g.dw, &owl, &owh);\n"
"    float acc = g.acc ? LD(ib, io, at) : 0.0f;\n"
"    for (long oh = ohl; oh <= ohh; oh++) {\n"
"        if (!max_member(g.pool, h, oh, g.H, g.OH, g.kh, g.sh, g.ph, g.dh)) continue;\n"
"        for (long ow = owl; ow <= owh; ow++) {\n"
"            if (!max_member(g.pool, w, ow, g.W, g.OW, g.kw, g.sw, g.pw, g.dw)) continue;\n"
"            const long o = AT(g, os, p, oh, ow);\n"
"            if (((__global const long *)(xb + xo))[o] == me) acc += LD(ob, oo, o);\n"
"        }\n"
"    }\n"
"    ST(ib, io, at, acc);\n"
"}\n"
"\n"
/* indices outside the windows: one work item per plane, in output order */
"__kernel void max_bwd_plane(__global uchar *ib, ulong io, long4 is,\n"
"                            __global const uchar *ob, ulong oo, long4 os,\n"
"                            __global const uchar *xb, ulong xo, __global const int *flag, geo_t g) {\n"
"    const long p = get_global_id(0);\n"
"    if (p >= g.n * g.c || flag[0] || !flag[1]) return;\n"
"    if (!g.acc)\n"
"        for (long h = 0; h < g.H; h++)\n"
"            for (long w = 0; w < g.W; w++) ST(ib, io, AT(g, is, p, h, w), 0.0f);\n"
"    for (long oh = 0; oh < g.OH; oh++)\n"
"        for (long ow = 0; ow < g.OW; ow++) {\n"
"            const long o = AT(g, os, p, oh, ow);\n"
"            const long k = ((__global const long *)(xb + xo))[o];\n"
"            const long at = AT(g, is, p, k / g.W, k % g.W);\n"
"            ST(ib, io, at, LD(ib, io, at) + LD(ob, oo, o));\n"
"        }\n"
"}\n"
"\n"
/* average and adaptive average backward (adaptive: g.pool == 0) */
"__kernel void avg_bwd(__global uchar *ib, ulong io, long4 is,\n"
"                      __global const uchar *ob, ulong oo, long4 os, geo_t g) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.H * g.W) return;\n"
"    SPLIT(e, g.H, g.W, p, h, w)\n"
"    const long at = AT(g, is, p, h, w);\n"
"    const int kind = g.pool ? 2 : 0;\n"
"    long ohl, ohh, owl, owh;\n"
"    cand(kind, h, g.H, g.OH, g.kh, g.sh, g.ph, 1, &ohl, &ohh);\n"
"    cand(kind, w, g.W, g.OW, g.kw, g.sw, g.pw, 1, &owl, &owh);\n"
"    float acc = g.acc ? LD(ib, io, at) : 0.0f;\n"
"    for (long oh = ohl; oh <= ohh; oh++) {\n"
"        long hs, he, fh = 0;\n"
"        if (kind == 0) ada_win(oh, g.H, g.OH, &hs, &he);\n"
"        else if (!avg_win(oh, g.kh, g.sh, g.ph, g.H, &hs, &he, &fh)) continue;\n"
"        if (h < hs || h >= he) continue;\n"
"        for (long ow = owl; ow <= owh; ow++) {\n"
"            long ws, we, fw = 0;\n"
"            if (kind == 0) ada_win(ow, g.W, g.OW, &ws, &we);\n"
"            else if (!avg_win(ow, g.kw, g.sw, g.pw, g.W, &ws, &we, &fw)) continue;\n"
"            if (w < ws || w >= we) continue;\n"
"            const float d = kind == 0 ? (float)((he - hs) * (we - ws))\n"
"                                      : avg_div(g, fh, fw, hs, he, ws, we);\n"
"            acc += LD(ob, oo, AT(g, os, p, oh, ow)) / d;\n"
"        }\n"
"    }\n"
"    ST(ib, io, at, acc);\n"
"}\n";

/* ------------------------------------------------------------ planning */

/* Must match geo_t above field for field. */
typedef struct geo {
    cl_long n, c, H, W, OH, OW;
    cl_int kh, kw, sh, sw, ph, pw, dh, dw;
    cl_int cip, acc, pool, pad_;
    cl_long div;
} geo;

typedef struct sp_plan {
    ocl_arg in, out, ind;
    cl_long4 is, os;
    geo g;
    int empty;            /* nothing to compute (the host's early return) */
} sp_plan;

static int kind_ok(tfl_spatial_kind k)
{
    switch (k) {
    case TFL_SPATIAL_MAXPOOL_FWD: case TFL_SPATIAL_MAX_BWD: case TFL_SPATIAL_AVGPOOL_FWD:
    case TFL_SPATIAL_AVGPOOL_BWD: case TFL_SPATIAL_ADAPTIVE_AVG_FWD:
    case TFL_SPATIAL_ADAPTIVE_AVG_BWD: case TFL_SPATIAL_ADAPTIVE_MAX_FWD:
        return 1;
    default:
        return 0;
    }
}

static int is_bwd(tfl_spatial_kind k)
{
    return k == TFL_SPATIAL_MAX_BWD || k == TFL_SPATIAL_AVGPOOL_BWD ||
           k == TFL_SPATIAL_ADAPTIVE_AVG_BWD;
}

/* [lo, hi) bytes a 4-d view spans from its start; 0 for negative strides,
 * overflow or an empty view (which the caller has ruled out). */
static int span4(const int64_t *ext, const int64_t *st, size_t es, size_t *bytes)
{
    int64_t last = 0;
    for (int d = 0; d < 4; d++) {
        int64_t t;
        if (ext[d] <= 0 || st[d] < 0 || __builtin_mul_overflow(ext[d] - 1, st[d], &t) ||
            __builtin_add_overflow(last, t, &last) || last > INT64_MAX / 16)
            return 0;
    }
    *bytes = (size_t)(last + 1) * es;
    return 1;
}

/* A written view must not write one element twice: no stride 0 on an
 * axis longer than 1 (other self-overlaps are not produced by PyTorch). */
static int no_dup(const int64_t *ext, const int64_t *st)
{
    for (int d = 0; d < 4; d++)
        if (st[d] == 0 && ext[d] > 1)
            return 0;
    return 1;
}

/* A required operand (none: refused). */
static int resolve(const void *p, size_t n, size_t align, ocl_arg *a)
{
    return ocl_arg_range(p, n, align, 0, a);
}

static int disjoint(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x + na <= y || y + nb <= x;
}

/* The host's window check for the windowed kinds. */
static int window_ok(const tfl_spatial_op *o)
{
    int pool = o->kind == TFL_SPATIAL_MAXPOOL_FWD || o->kind == TFL_SPATIAL_AVGPOOL_FWD ||
               o->kind == TFL_SPATIAL_AVGPOOL_BWD;
    if (!pool)
        return 1;
    return o->kernel_h > 0 && o->kernel_w > 0 && o->stride_h > 0 && o->stride_w > 0 &&
           o->pad_h >= 0 && o->pad_w >= 0 &&
           (o->kind != TFL_SPATIAL_MAXPOOL_FWD || (o->dilation_h > 0 && o->dilation_w > 0));
}

/* Whether max backward may use the pool window (else adaptive windows);
 * either way the check kernel verifies every index against it. */
static int max_window(const tfl_spatial_op *o)
{
    return o->kernel_h > 0 && o->kernel_w > 0 && o->stride_h > 0 && o->stride_w > 0 &&
           o->pad_h >= 0 && o->pad_w >= 0 && o->dilation_h > 0 && o->dilation_w > 0;
}

static int plan(const tfl_spatial_op *o, sp_plan *p)
{
    memset(p, 0, sizeof *p);
    if (!kind_ok(o->kind) ||
        (o->dtype != TFL_DT_F32 && o->dtype != TFL_DT_F16 && o->dtype != TFL_DT_BF16) ||
        o->n < 0 || o->c < 0 || o->in_h < 0 || o->in_w < 0 || o->out_h < 0 || o->out_w < 0)
        return 0;
    if (o->n * o->c == 0 || o->out_h == 0 || o->out_w == 0 || o->in_h == 0 || o->in_w == 0) {
        p->empty = 1;   /* the host returns before looking at anything */
        return 1;
    }
    const int needs_ind = o->kind == TFL_SPATIAL_MAXPOOL_FWD ||
                          o->kind == TFL_SPATIAL_ADAPTIVE_MAX_FWD || o->kind == TFL_SPATIAL_MAX_BWD;
    if (!o->in || !o->out || (needs_ind && !o->indices) || !window_ok(o))
        return 0;
    if (o->n > INT64_MAX / 64 / o->c || o->in_h > INT64_MAX / 64 / o->in_w ||
        o->out_h > INT64_MAX / 64 / o->out_w || o->n * o->c > INT64_MAX / 64 / (o->in_h * o->in_w) ||
        o->n * o->c > INT64_MAX / 64 / (o->out_h * o->out_w))
        return 0;
    const size_t es = tfl_dtype_size(o->dtype);
    const int64_t ie[4] = { o->n, o->c, o->in_h, o->in_w }, oe[4] = { o->n, o->c, o->out_h, o->out_w };
    size_t ni, no, nx = 0;
    if (!span4(ie, o->in_stride, es, &ni) || !span4(oe, o->out_stride, es, &no) ||
        (needs_ind && !span4(oe, o->out_stride, 8, &nx)))
        return 0;
    if (!resolve(o->in, ni, es, &p->in) || !resolve(o->out, no, es, &p->out) ||
        (needs_ind && !resolve(o->indices, nx, 8, &p->ind)))
        return 0;
    /* what is written: every element once, and apart from what is read */
    const int bwd = is_bwd(o->kind);
    if (bwd ? !no_dup(ie, o->in_stride) || !disjoint(o->in, ni, o->out, no) ||
                  (needs_ind && !disjoint(o->in, ni, o->indices, nx))
            : !no_dup(oe, o->out_stride) || !disjoint(o->out, no, o->in, ni) ||
                  (needs_ind && (!disjoint(o->indices, nx, o->in, ni) ||
                                 !disjoint(o->indices, nx, o->out, no))))
        return 0;
    for (int d = 0; d < 4; d++) {
        p->is.s[d] = o->in_stride[d];
        p->os.s[d] = o->out_stride[d];
    }
    geo *g = &p->g;
    g->n = o->n; g->c = o->c; g->H = o->in_h; g->W = o->in_w; g->OH = o->out_h; g->OW = o->out_w;
    g->kh = o->kernel_h; g->kw = o->kernel_w; g->sh = o->stride_h; g->sw = o->stride_w;
    g->ph = o->pad_h; g->pw = o->pad_w; g->dh = o->dilation_h; g->dw = o->dilation_w;
    g->cip = o->count_include_pad != 0;
    g->acc = o->accumulate != 0;
    g->div = o->divisor_override;
    if (o->kind == TFL_SPATIAL_MAX_BWD)
        g->pool = max_window(o);
    else
        g->pool = o->kind == TFL_SPATIAL_AVGPOOL_BWD;
    return 1;
}

/* ------------------------------------------------------------ running */

static char *full_src;

/* Kernel `name` of the codec and the kernels for elements of dt, set
 * with args and run over `items` work items. */
static tfl_status launch(const char *name, tfl_dtype dt, const ocl_karg *args, int nargs,
                         size_t items, tfl_stream s)
{
    const char *src = ocl_src_join(&full_src, ocl_fp_codec_cl, sp_src);
    char opts[64];
    snprintf(opts, sizeof opts, "-DDT=%d -DACC_DBL=%d", (int)dt, ocl_dev()->fp64);
    return ocl_launch(src ? ocl_kernel_get(src, opts, name) : NULL, args, nargs, items, 0, s);
}

/* ---- the bad-index flag, judged without blocking */

/* What the read-back fills and the callback judges. */
typedef struct guard {
    cl_int word[4];
    cl_event user;        /* the marker on the stream waits for it */
    int64_t plane;
} guard;

/* The status a flagged bad index gives the stream's marker (negative:
 * a failed command). */
#define SP_INDEX_FAULT (-9102)

static void CL_CALLBACK guard_done(cl_event ev, cl_int status, void *p)
{
    (void)ev;
    guard *g = p;
    int bad = status >= 0 && g->word[0] != 0;
    if (bad)
        OCL_LOG(OCL_ERROR, "opencl max-pool backward: index %lld is outside its %lld-element "
                "plane; the device is now in error, as after a device-side assert",
                (long long)(((uint64_t)(uint32_t)g->word[3] << 32) | (uint32_t)g->word[2]),
                (long long)g->plane);
    clSetUserEventStatus(g->user, bad || status < 0 ? SP_INDEX_FAULT : CL_COMPLETE);
    clReleaseEvent(g->user);
    free(g);
}

/* Read flag back after the kernels and make s wait, through a marker, for
 * the callback that judges it.  Releases flag. */
static tfl_status guard_close(cl_mem flag, int64_t plane, tfl_stream s)
{
    cl_command_queue q = ocl_queue(s);
    guard *g = calloc(1, sizeof *g);
    cl_int rc = CL_OUT_OF_HOST_MEMORY;
    cl_event user = g ? clCreateUserEvent(ocl_dev()->ctx, &rc) : NULL, rd = NULL, mk = NULL;
    if (rc != CL_SUCCESS) {
        clReleaseMemObject(flag);
        free(g);
        return ocl_status(rc, "clCreateUserEvent");
    }
    g->plane = plane;
    g->user = user;
    clRetainEvent(user);   /* ours, until the marker is enqueued */
    rc = clEnqueueReadBuffer(q, flag, CL_FALSE, 0, sizeof g->word, g->word, 0, NULL, &rd);
    clReleaseMemObject(flag);
    if (rc != CL_SUCCESS) {
        clReleaseEvent(user);
        clReleaseEvent(user);
        free(g);
        return ocl_status(rc, "clEnqueueReadBuffer");
    }
    /* the callback before ocl_track, which may release rd */
    cl_int cb = clSetEventCallback(rd, CL_COMPLETE, guard_done, g);
    ocl_track(s, rd);
    tfl_status st = TFL_OK;
    if (cb != CL_SUCCESS) {
        /* nothing would judge the flag: fail the stream rather than pass a
         * bad index silently (g stays: the read may still write into it) */
        clSetUserEventStatus(user, SP_INDEX_FAULT);
        clReleaseEvent(user);
        st = ocl_status(cb, "clSetEventCallback");
    }
    rc = clEnqueueMarkerWithWaitList(q, 1, &user, &mk);
    if (rc == CL_SUCCESS)
        ocl_track(s, mk);
    else if (st == TFL_OK)
        st = ocl_status(rc, "clEnqueueMarkerWithWaitList");
    clReleaseEvent(user);
    clFlush(q);
    return st;
}

static tfl_status run_max_bwd(const tfl_spatial_op *o, const sp_plan *p, tfl_stream s)
{
    static const cl_int zero[4];
    cl_int rc;
    cl_mem flag = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 sizeof zero, (void *)zero, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer");
    const size_t outs = (size_t)(o->n * o->c * o->out_h * o->out_w);
    const size_t ins = (size_t)(o->n * o->c * o->in_h * o->in_w);
    ocl_karg chk[] = { OCL_KB(p->ind), OCL_KA(p->os), OCL_KA(flag), OCL_KA(p->g) };
    ocl_karg bwd[] = { OCL_KB(p->in),  OCL_KA(p->is), OCL_KB(p->out), OCL_KA(p->os),
                       OCL_KB(p->ind), OCL_KA(flag),  OCL_KA(p->g) };
    tfl_status st = launch("max_chk", o->dtype, chk, OCL_NARGS(chk), outs, s);
    if (st == TFL_OK)
        st = launch("max_bwd", o->dtype, bwd, OCL_NARGS(bwd), ins, s);
    if (st == TFL_OK)
        st = launch("max_bwd_plane", o->dtype, bwd, OCL_NARGS(bwd), (size_t)(o->n * o->c), s);
    if (st != TFL_OK) {
        clReleaseMemObject(flag);
        return st;
    }
    return guard_close(flag, o->in_h * o->in_w, s);
}

int ocl_spatial_supported(const tfl_op *op)
{
    if (!ocl_dev() || op->kind != TFL_OP_SPATIAL)
        return 0;
    sp_plan p;
    return plan(&op->u.spatial, &p);
}

tfl_status ocl_spatial_run(const tfl_op *op, tfl_stream s)
{
    sp_plan p;
    if (!ocl_dev() || op->kind != TFL_OP_SPATIAL || !plan(&op->u.spatial, &p))
        return TFL_ERR_INVALID;
    if (p.empty)
        return TFL_OK;
    const tfl_spatial_op *o = &op->u.spatial;
    const size_t outs = (size_t)(o->n * o->c * o->out_h * o->out_w);
    const size_t ins = (size_t)(o->n * o->c * o->in_h * o->in_w);
    switch (o->kind) {
    case TFL_SPATIAL_MAXPOOL_FWD:
    case TFL_SPATIAL_ADAPTIVE_MAX_FWD: {
        cl_int ada = o->kind == TFL_SPATIAL_ADAPTIVE_MAX_FWD;
        ocl_karg a[] = { OCL_KB(p.in),  OCL_KA(p.is), OCL_KB(p.out), OCL_KA(p.os),
                         OCL_KB(p.ind), OCL_KA(p.g),  OCL_KA(ada) };
        return launch("maxpool", o->dtype, a, OCL_NARGS(a), outs, s);
    }
    case TFL_SPATIAL_AVGPOOL_FWD:
    case TFL_SPATIAL_ADAPTIVE_AVG_FWD: {
        ocl_karg a[] = { OCL_KB(p.in), OCL_KA(p.is), OCL_KB(p.out), OCL_KA(p.os), OCL_KA(p.g) };
        return launch(o->kind == TFL_SPATIAL_AVGPOOL_FWD ? "avgpool" : "ada_avg", o->dtype, a,
                      OCL_NARGS(a), outs, s);
    }
    case TFL_SPATIAL_MAX_BWD:
        return run_max_bwd(o, &p, s);
    default: {
        ocl_karg a[] = { OCL_KB(p.in), OCL_KA(p.is), OCL_KB(p.out), OCL_KA(p.os), OCL_KA(p.g) };
        return launch("avg_bwd", o->dtype, a, OCL_NARGS(a), ins, s);
    }
    }
}

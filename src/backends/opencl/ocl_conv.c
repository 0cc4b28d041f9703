/*
 * ocl_conv.c - TFL_OP_CONV (torchfl/ops/conv.h) on the OpenCL device:
 * forward (with bias and the fused z-add + ReLU epilogue), backward data
 * and backward filter; 1 to 3 spatial dims (run as 3 with leading ones of
 * size 1, as the host does), any strides (NCHW, channels_last, views),
 * groups (depthwise included), stride, asymmetric padding, dilation,
 * cross-correlation or true convolution; float32, float16 and bfloat16
 * with float accumulation.  float64 is refused (the host runs it).
 *
 * Method: im2col + CLBlast GEMM, every group of a chunk of images in one
 * strided-batched GEMM (the group is the batch):
 *   W   = the filter as dense float [K][cg*kk]          (gather_w)
 *   COL = [g][cg*kk][nc*op] for nc images                (im2col)
 *   DY  = the output gradient as dense float [K][nc][op] (gather_kn)
 *   FWD:        R[K][nc*op]  = W_g * COL_g, then scatter_y writes
 *               y = alpha*R + beta*y + bias (+ z_alpha*z, ReLU);
 *   BWD_DATA:   COL_g = W_g^T * DY_g, then col2im gathers each input
 *               element's taps (in tap order) and writes alpha*sum + beta*x;
 *   BWD_FILTER: COL and DY image-major ([nc][g][cg*kk][op], [nc][K][op]);
 *               one GEMM per (image, group) gives that image's sums,
 *               dw_sum adds them up in image order as the host does (the
 *               sums stay as short as the host's: float error does not
 *               grow with the batch), then scatter_w writes
 *               alpha*DW + beta*w.
 * Few channels per group (the host's own test: cg <= 4, kg <= 4, at most
 * 49 taps; depthwise convolutions) take direct kernels for the forward
 * and the data gradient instead: one output (input) element per work
 * item, summed in the host's direct-loop order, no scratch.
 * Every sum has a fixed order (no atomics): results are deterministic.
 * The epilogues are the host's float expressions (host/ops_conv_impl.h,
 * cv_scatter) term for term, including its in-place case (alpha 1, beta
 * 0, no bias, a dense float32 output: the raw sum is stored).  Chunks
 * bound the scratch (SCRATCH_ELEMS floats per buffer) and keep CLBlast's
 * int offsets in range; scratch buffers are released right after being
 * enqueued (OpenCL frees them when the commands finish).
 */
#include "backends/opencl/ocl_src.h"

#include <clblast_c.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Floats a scratch buffer holds at most before images are chunked (64 MiB:
 * GEMMs that long are efficient, and a device keeps room for others). */
#define SCRATCH_ELEMS ((int64_t)1 << 24)

/* ------------------------------------------------------------ kernels */

/* Options: -DDT (element type).  Tensors are (buffer, offset) with 5
 * element strides (N, C, D, H, W; absent leading spatial dims stride 0). */
static const char cv_src[] =
"#pragma OPENCL FP_CONTRACT OFF\n"
"typedef struct {\n"
"    long n, c, k, g, cg, kg, ip, op, kk, rows;\n"
"    long in[3], out[3], ker[3], pad[3], str[3], dil[3];\n"
"    int flip, pad_;\n"
"} geo_t;\n"
"typedef struct { long s[5]; } ts_t;\n"
"#define LD(b, o, i) fp_ld((b) + (o), (i), DT)\n"
"#define ST(b, o, i, v) fp_st((b) + (o), (i), DT, (v))\n"
/* element (a, b, p0, p1, p2) of a tensor with strides t */
"#define AT5(t, a, b, p0, p1, p2) ((a) * (t).s[0] + (b) * (t).s[1] + (p0) * (t).s[2] + \\\n"
"                                  (p1) * (t).s[3] + (p2) * (t).s[4])\n"
/* flat index q of a 3-d extent e -> (i0, i1, i2) */
"#define SPLIT3(q, e, i0, i1, i2) long i2 = (q) % (e)[2], i1 = ((q) / (e)[2]) % (e)[1], \\\n"
"                                      i0 = (q) / ((e)[2] * (e)[1]);\n"
/* input coordinate of output o, tap t along dim d (may be in the padding) */
"long coord(const geo_t *g, int d, long o, long t) {\n"
"    long tap = g->flip ? g->ker[d] - 1 - t : t;\n"
"    return o * g->str[d] - g->pad[d] + tap * g->dil[d];\n"
"}\n"
/* the host's cv_scatter for one element: alpha*r + beta*old + add */
"float blend(float r, float alpha, float beta, __global const uchar *b, ulong o, long i, float add) {\n"
"    float v = alpha * r;\n"
"    if (beta != 0.0f) v += beta * LD(b, o, i);\n"
"    return v + add;\n"
"}\n"
/* the output *o input i gets from tap t along dim d, if there is one */
"int tap_hit(const geo_t *g, int d, long i, long t, long *o) {\n"
"    long tap = g->flip ? g->ker[d] - 1 - t : t;\n"
"    long num = i + g->pad[d] - tap * g->dil[d];\n"
"    if (num < 0 || num % g->str[d]) return 0;\n"
"    *o = num / g->str[d];\n"
"    return *o < g->out[d];\n"
"}\n"
"\n"
"__kernel void gather_w(__global const uchar *wb, ulong wo, ts_t ws, __global float *dst, geo_t g) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.k * g.rows) return;\n"
"    const long t = e % g.kk, r = e / g.kk;\n"
"    SPLIT3(t, g.ker, t0, t1, t2)\n"
"    dst[e] = LD(wb, wo, AT5(ws, r / g.cg, r % g.cg, t0, t1, t2));\n"
"}\n"
"\n"
/* COL for images n0 .. n0+nc-1: element (gi, c*kk + tap, nl, pixel) at
 * [gi][c*kk + tap][nl][pixel], or image-major (im) at [nl][gi][c*kk + tap][pixel] */
"__kernel void im2col(__global const uchar *xb, ulong xo, ts_t xs, __global float *col, geo_t g,\n"
"                     long n0, long nc, int im) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.g * g.rows * nc * g.op) return;\n"
"    const long pix = e % g.op, q = e / g.op;\n"
"    long r, gi, nl;\n"
"    if (im) { r = q % g.rows; gi = (q / g.rows) % g.g; nl = q / (g.rows * g.g); }\n"
"    else { nl = q % nc; r = (q / nc) % g.rows; gi = q / (nc * g.rows); }\n"
"    const long c = r / g.kk, t = r % g.kk;\n"
"    SPLIT3(t, g.ker, t0, t1, t2)\n"
"    SPLIT3(pix, g.out, o0, o1, o2)\n"
"    const long i0 = coord(&g, 0, o0, t0), i1 = coord(&g, 1, o1, t1), i2 = coord(&g, 2, o2, t2);\n"
"    float v = 0.0f;\n"
"    if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2])\n"
"        v = LD(xb, xo, AT5(xs, n0 + nl, gi * g.cg + c, i0, i1, i2));\n"
"    col[e] = v;\n"
"}\n"
"\n"
/* DY: y[n0 + nl][k][pixel] at [k][nl][pixel], or image-major (im) at [nl][k][pixel] */
"__kernel void gather_kn(__global const uchar *yb, ulong yo, ts_t ys, __global float *dst, geo_t g,\n"
"                        long n0, long nc, int im) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.k * nc * g.op) return;\n"
"    const long pix = e % g.op, q = e / g.op;\n"
"    const long nl = im ? q / g.k : q % nc, k = im ? q % g.k : q / nc;\n"
"    SPLIT3(pix, g.out, o0, o1, o2)\n"
"    dst[e] = LD(yb, yo, AT5(ys, n0 + nl, k, o0, o1, o2));\n"
"}\n"
"\n"
/* DW[e] = (first ? 0 : DW[e]) + the chunk's per-image sums, in image order
 * (the host adds image by image) */
"__kernel void dw_sum(__global const float *part, __global float *dw, long per, long nc, int first) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= per) return;\n"
"    float acc = first ? 0.0f : dw[e];\n"
"    for (long n = 0; n < nc; n++) acc += part[n * per + e];\n"
"    dw[e] = acc;\n"
"}\n"
"\n"
/* y element at (z at zat) gets the host's cv_scatter of sum rv for channel k */
"void put_y(float rv, __global uchar *yb, ulong yo, long at, __global const uchar *zb, ulong zo,\n"
"           long zat, __global const uchar *bb, ulong bo, long k, float alpha, float beta,\n"
"           float zalpha, int has_bias, int has_z, int relu, int plain) {\n"
"    if (plain) { ST(yb, yo, at, rv); return; }\n"
"    float v = blend(rv, alpha, beta, yb, yo, at, has_bias ? LD(bb, bo, k) : 0.0f);\n"
"    if (has_z) v += zalpha * LD(zb, zo, zat);\n"
"    if (relu && !(v > 0.0f)) v = isnan(v) ? v : 0.0f;\n"
"    ST(yb, yo, at, v);\n"
"}\n"
"#define EPI_ARGS __global const uchar *zb, ulong zo, ts_t zs, __global const uchar *bb, ulong bo, \\\n"
"    float alpha, float beta, float zalpha, int has_bias, int has_z, int relu, int plain\n"
"#define EPI(rv, n, k, o0, o1, o2) put_y((rv), yb, yo, AT5(ys, n, k, o0, o1, o2), zb, zo, \\\n"
"    AT5(zs, n, k, o0, o1, o2), bb, bo, k, alpha, beta, zalpha, has_bias, has_z, relu, plain)\n"
"\n"
"__kernel void scatter_y(__global const float *r, __global uchar *yb, ulong yo, ts_t ys, geo_t g,\n"
"                        long n0, long nc, EPI_ARGS) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= nc * g.k * g.op) return;\n"
"    const long pix = e % g.op, t = e / g.op, k = t % g.k, nl = t / g.k;\n"
"    SPLIT3(pix, g.out, o0, o1, o2)\n"
"    EPI(r[(k * nc + nl) * g.op + pix], n0 + nl, k, o0, o1, o2);\n"
"}\n"
"\n"
/* Few channels per group: one output element per work item, summed over
 * (channel, tap) in the host's order (its direct loops, cv_small) */
"__kernel void direct_fwd(__global const uchar *xb, ulong xo, ts_t xs,\n"
"                         __global const uchar *wb, ulong wo, ts_t ws,\n"
"                         __global uchar *yb, ulong yo, ts_t ys, geo_t g, EPI_ARGS) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.k * g.op) return;\n"
"    const long pix = e % g.op, t = e / g.op, k = t % g.k, n = t / g.k, ch0 = (k / g.kg) * g.cg;\n"
"    SPLIT3(pix, g.out, o0, o1, o2)\n"
"    float acc = 0.0f;\n"
"    for (long c = 0; c < g.cg; c++)\n"
"        for (long t0 = 0; t0 < g.ker[0]; t0++) {\n"
"            const long i0 = coord(&g, 0, o0, t0);\n"
"            if (i0 < 0 || i0 >= g.in[0]) continue;\n"
"            for (long t1 = 0; t1 < g.ker[1]; t1++) {\n"
"                const long i1 = coord(&g, 1, o1, t1);\n"
"                if (i1 < 0 || i1 >= g.in[1]) continue;\n"
"                for (long t2 = 0; t2 < g.ker[2]; t2++) {\n"
"                    const long i2 = coord(&g, 2, o2, t2);\n"
"                    if (i2 < 0 || i2 >= g.in[2]) continue;\n"
"                    acc += LD(wb, wo, AT5(ws, k, c, t0, t1, t2)) *\n"
"                           LD(xb, xo, AT5(xs, n, ch0 + c, i0, i1, i2));\n"
"                }\n"
"            }\n"
"        }\n"
"    EPI(acc, n, k, o0, o1, o2);\n"
"}\n"
"\n"
/* its data gradient: one input element per work item, over the group's
 * output channels then taps; with unit strides (flat) the host sums each
 * channel's taps apart first, then adds them up */
"__kernel void direct_bwd_data(__global const uchar *yb, ulong yo, ts_t ys,\n"
"                              __global const uchar *wb, ulong wo, ts_t ws,\n"
"                              __global uchar *xb, ulong xo, ts_t xs, geo_t g,\n"
"                              float alpha, float beta, int plain, int flat) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.n * g.c * g.ip) return;\n"
"    const long pix = e % g.ip, t = e / g.ip, ch = t % g.c, n = t / g.c;\n"
"    SPLIT3(pix, g.in, i0, i1, i2)\n"
"    const long c = ch % g.cg, k0 = (ch / g.cg) * g.kg;\n"
"    long o[3];\n"
"    float acc = 0.0f;\n"
"    for (long k = k0; k < k0 + g.kg; k++) {\n"
"        float part = flat ? 0.0f : acc;\n"
"        for (long t0 = 0; t0 < g.ker[0]; t0++) {\n"
"            if (!tap_hit(&g, 0, i0, t0, &o[0])) continue;\n"
"            for (long t1 = 0; t1 < g.ker[1]; t1++) {\n"
"                if (!tap_hit(&g, 1, i1, t1, &o[1])) continue;\n"
"                for (long t2 = 0; t2 < g.ker[2]; t2++) {\n"
"                    if (!tap_hit(&g, 2, i2, t2, &o[2])) continue;\n"
"                    part += LD(wb, wo, AT5(ws, k, c, t0, t1, t2)) *\n"
"                            LD(yb, yo, AT5(ys, n, k, o[0], o[1], o[2]));\n"
"                }\n"
"            }\n"
"        }\n"
"        acc = flat ? acc + part : part;\n"
"    }\n"
"    const long at = AT5(xs, n, ch, i0, i1, i2);\n"
"    ST(xb, xo, at, plain ? acc : blend(acc, alpha, beta, xb, xo, at, 0.0f));\n"
"}\n"
"\n"
/* x[n0 + nl][ch][i] = alpha * (sum over taps reaching it, in tap order) + beta * x */
"__kernel void col2im(__global const float *col, __global uchar *xb, ulong xo, ts_t xs, geo_t g,\n"
"                     long n0, long nc, float alpha, float beta, int plain) {\n"
"    const long e = get_global_id(0), ncop = nc * g.op;\n"
"    if (e >= nc * g.c * g.ip) return;\n"
"    const long pix = e % g.ip, t = e / g.ip, ch = t % g.c, nl = t / g.c;\n"
"    SPLIT3(pix, g.in, i0, i1, i2)\n"
"    const long gi = ch / g.cg, c = ch % g.cg;\n"
"    __global const float *base = col + (gi * g.rows + c * g.kk) * ncop + nl * g.op;\n"
"    const long i[3] = { i0, i1, i2 };\n"
"    long o[3];\n"
"    float acc = 0.0f;\n"
"    for (long t0 = 0; t0 < g.ker[0]; t0++) {\n"
"        if (!tap_hit(&g, 0, i[0], t0, &o[0])) continue;\n"
"        for (long t1 = 0; t1 < g.ker[1]; t1++) {\n"
"            if (!tap_hit(&g, 1, i[1], t1, &o[1])) continue;\n"
"            for (long t2 = 0; t2 < g.ker[2]; t2++) {\n"
"                if (!tap_hit(&g, 2, i[2], t2, &o[2])) continue;\n"
"                acc += base[((t0 * g.ker[1] + t1) * g.ker[2] + t2) * ncop +\n"
"                            (o[0] * g.out[1] + o[1]) * g.out[2] + o[2]];\n"
"            }\n"
"        }\n"
"    }\n"
"    const long at = AT5(xs, n0 + nl, ch, i0, i1, i2);\n"
"    ST(xb, xo, at, plain ? acc : blend(acc, alpha, beta, xb, xo, at, 0.0f));\n"
"}\n"
"\n"
"__kernel void scatter_w(__global const float *dw, __global uchar *wb, ulong wo, ts_t ws, geo_t g,\n"
"                        float alpha, float beta, int plain) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= g.k * g.rows) return;\n"
"    const long t = e % g.kk, r = e / g.kk;\n"
"    SPLIT3(t, g.ker, t0, t1, t2)\n"
"    const long at = AT5(ws, r / g.cg, r % g.cg, t0, t1, t2);\n"
"    ST(wb, wo, at, plain ? dw[e] : blend(dw[e], alpha, beta, wb, wo, at, 0.0f));\n"
"}\n";

/* ------------------------------------------------------------ geometry */

/* Must match geo_t above field for field. */
typedef struct cv_geo {
    cl_long n, c, k, g, cg, kg, ip, op, kk, rows;
    cl_long in[3], out[3], ker[3], pad[3], str[3], dil[3];
    cl_int flip, pad_;
} cv_geo;

typedef struct ts {
    cl_long s[5];
} ts;

/* The host's cv_geom_fill: the geometry with spatial dims padded to 3;
 * 0 when inconsistent. */
static int geo_fill(const tfl_conv_op *op, cv_geo *g)
{
    const int sp = op->spatial;
    if (sp < 1 || sp > TFL_CONV_MAX_SPATIAL)
        return 0;
    memset(g, 0, sizeof *g);
    g->n = op->x.dims[0];
    g->c = op->x.dims[1];
    g->k = op->w.dims[0];
    g->g = op->groups;
    if (op->y.dims[0] != g->n || op->y.dims[1] != g->k || op->w.dims[1] <= 0 || g->g <= 0 ||
        g->c != g->g * op->w.dims[1] || g->k % g->g != 0 || g->n < 0 || g->c <= 0 || g->k <= 0)
        return 0;
    g->cg = g->c / g->g;
    g->kg = g->k / g->g;
    g->flip = !op->cross_correlation;
    for (int i = 0; i < 3; i++) {
        const int j = i - (3 - sp);
        if (j < 0) {
            g->in[i] = g->out[i] = g->ker[i] = g->str[i] = g->dil[i] = 1;
            continue;
        }
        g->in[i] = op->x.dims[2 + j];
        g->out[i] = op->y.dims[2 + j];
        g->ker[i] = op->w.dims[2 + j];
        g->pad[i] = op->pad_pre[j];
        g->str[i] = op->stride[j];
        g->dil[i] = op->dilation[j];
        if (g->in[i] < 0 || g->ker[i] <= 0 || g->str[i] <= 0 || g->dil[i] <= 0 || g->pad[i] < 0 ||
            op->pad_post[j] < 0 || g->in[i] > INT32_MAX || g->ker[i] > INT32_MAX ||
            g->pad[i] > INT32_MAX || op->pad_post[j] > INT32_MAX || g->dil[i] > INT32_MAX)
            return 0;
        const int64_t span = g->in[i] + g->pad[i] + op->pad_post[j] - g->dil[i] * (g->ker[i] - 1) - 1;
        if (g->out[i] != (span < 0 ? 0 : span / g->str[i] + 1))
            return 0;
    }
    g->ip = g->in[0] * g->in[1] * g->in[2];
    g->op = g->out[0] * g->out[1] * g->out[2];
    g->kk = g->ker[0] * g->ker[1] * g->ker[2];
    g->rows = g->cg * g->kk;
    return 1;
}

/* The 5 strides of t with the spatial ones padded to 3 (cv_dims5). */
static ts strides5(const tfl_conv_tensor *t, int sp)
{
    ts r = { { t->strides[0], t->strides[1], 0, 0, 0 } };
    for (int i = 0; i < 3; i++) {
        const int j = i - (3 - sp);
        r.s[2 + i] = j < 0 ? 0 : t->strides[2 + j];
    }
    return r;
}

/* Bytes t spans (its dims are nd long); 0 for negative strides or an
 * overflow; *dup set when an axis longer than 1 has stride 0. */
static size_t span_bytes(const tfl_conv_tensor *t, int nd, size_t es, int *dup)
{
    int64_t last = 0;
    for (int i = 0; i < nd; i++) {
        int64_t m;
        if (t->dims[i] <= 0 || t->strides[i] < 0 ||
            __builtin_mul_overflow(t->dims[i] - 1, t->strides[i], &m) ||
            __builtin_add_overflow(last, m, &last) || last > INT64_MAX / 16)
            return 0;
        if (t->strides[i] == 0 && t->dims[i] > 1)
            *dup = 1;
    }
    return (size_t)(last + 1) * es;
}

/* Dense N, C, spatial... (row-major, no gaps; size-1 dims free): the
 * host's cv_dense. */
static int dense(const tfl_conv_tensor *t, int nd)
{
    int64_t want = 1;
    for (int i = nd - 1; i >= 0; i--) {
        if (t->dims[i] != 1 && t->strides[i] != want)
            return 0;
        want *= t->dims[i];
    }
    return 1;
}

/* ------------------------------------------------------------ planning */

enum { T_X, T_W, T_Y, T_Z, T_BIAS, T_COUNT };

typedef struct cv_plan {
    cv_geo g;
    ocl_arg a[T_COUNT];
    ts st[T_COUNT];
    int64_t nc;          /* images per chunk (GEMM path) */
    int direct;          /* few channels per group: the direct kernels */
    int fused, plain;
} cv_plan;

static size_t max_alloc(void)
{
    static cl_ulong m;
    if (!m && clGetDeviceInfo(ocl_dev()->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof m, &m, NULL) !=
                  CL_SUCCESS)
        return 0;
    return (size_t)m;
}

/* a * b * c, or -1 on overflow. */
static int64_t mul3(int64_t a, int64_t b, int64_t c)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r))
        return -1;
    return r;
}

/* Images per chunk: the scratch of one chunk within SCRATCH_ELEMS floats
 * (one image at least, if it fits a buffer and CLBlast's ints); 0 when
 * one image does not. */
static int64_t chunk_images(const cv_geo *g)
{
    /* floats per image: COL, R / DY, the filter gradient's sums */
    const int64_t need[3] = { mul3(g->c, g->kk, g->op), mul3(g->k, g->op, 1),
                              mul3(g->k, g->rows, 1) };
    int64_t per = 0;
    for (int i = 0; i < 3; i++) {
        if (need[i] < 0 || need[i] > INT_MAX / 2 || (size_t)need[i] * 4 > max_alloc())
            return 0;
        if (need[i] > per)
            per = need[i];
    }
    int64_t nc = SCRATCH_ELEMS / per;
    if (nc < 1)
        nc = 1;
    return nc < g->n ? nc : g->n;
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

static int same_view(const tfl_conv_tensor *a, const tfl_conv_tensor *b, int nd)
{
    return a->data == b->data && memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)nd) == 0 &&
           memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)nd) == 0;
}

static int plan(const tfl_conv_op *op, cv_plan *p)
{
    memset(p, 0, sizeof *p);
    if ((op->mode != TFL_CONV_FWD && op->mode != TFL_CONV_BWD_DATA &&
         op->mode != TFL_CONV_BWD_FILTER) ||
        (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F16 && op->dtype != TFL_DT_BF16) ||
        !geo_fill(op, &p->g))
        return 0;
    cv_geo *g = &p->g;
    /* no images or no pixels: the host's own corner (nothing to compute,
     * or a scatter of nothing); left to it */
    if (g->n == 0 || g->op == 0 || g->ip == 0)
        return 0;
    /* the host's choice of its direct loops (cv_is_small), so both sum in
     * the same order; the filter gradient always takes the GEMM */
    p->direct = op->mode != TFL_CONV_BWD_FILTER && g->kg <= 4 && g->cg <= 4 && g->kk <= 49;
    if (!p->direct && (p->nc = chunk_images(g)) == 0)
        return 0;
    const int nd = 2 + op->spatial;
    p->fused = op->mode == TFL_CONV_FWD && (op->z.data || op->relu);
    if ((op->z.data || op->relu) && op->mode != TFL_CONV_FWD)
        return 0;
    if (op->z.data && memcmp(op->z.dims, op->y.dims, sizeof(int64_t) * (size_t)nd) != 0)
        return 0;
    const size_t es = tfl_dtype_size(op->dtype);
    const tfl_conv_tensor *t[3] = { &op->x, &op->w, &op->y };
    size_t n[T_COUNT] = { 0 };
    int dup[T_COUNT] = { 0 };
    for (int i = 0; i < 3; i++)
        if (!(n[i] = span_bytes(t[i], nd, es, &dup[i])) || !resolve(t[i]->data, n[i], es, &p->a[i]))
            return 0;
    if (op->z.data && (!(n[T_Z] = span_bytes(&op->z, nd, es, &dup[T_Z])) ||
                       !resolve(op->z.data, n[T_Z], es, &p->a[T_Z])))
        return 0;
    if (op->mode == TFL_CONV_FWD && op->bias &&
        !resolve(op->bias, (n[T_BIAS] = (size_t)g->k * es), es, &p->a[T_BIAS]))
        return 0;
    /* the output: each element once, apart from what is read (z may be y
     * itself: each element reads its own z before writing) */
    const int out = op->mode == TFL_CONV_FWD ? T_Y : op->mode == TFL_CONV_BWD_DATA ? T_X : T_W;
    const void *ptr[T_COUNT] = { op->x.data, op->w.data, op->y.data, op->z.data,
                                 op->mode == TFL_CONV_FWD ? op->bias : NULL };
    if (dup[out])
        return 0;
    for (int i = 0; i < T_COUNT; i++) {
        if (i == out || !ptr[i] || disjoint(ptr[out], n[out], ptr[i], n[i]))
            continue;
        if (!(i == T_Z && same_view(&op->z, &op->y, nd)))
            return 0;
    }
    for (int i = 0; i < 3; i++)
        p->st[i] = strides5(t[i], op->spatial);
    if (op->z.data)
        p->st[T_Z] = strides5(&op->z, op->spatial);
    const float alpha = (float)op->alpha, beta = (float)op->beta;
    p->plain = dense(t[out], nd) && op->dtype == TFL_DT_F32 && alpha == 1.0f && beta == 0.0f &&
               !op->bias && !p->fused;
    return 1;
}

/* ------------------------------------------------------------ running */

static char *full_src;

/* Kernel `name` of the codec and the kernels for elements of dt, set
 * with args and run over `items` work items. */
static tfl_status launch(const char *name, tfl_dtype dt, const ocl_karg *args, int nargs,
                         size_t items, tfl_stream s)
{
    const char *src = ocl_src_join(&full_src, ocl_fp_codec_cl, cv_src);
    char opts[32];
    snprintf(opts, sizeof opts, "-DDT=%d", (int)dt);
    return ocl_launch(src ? ocl_kernel_get(src, opts, name) : NULL, args, nargs, items, 0, s);
}

/* Row-major GEMMs as one strided-batched call: C_i = op(A_i) * op(B_i)
 * for i < batch, operand i at i * stride floats into its buffer (C is not
 * read: beta 0). */
typedef struct gemm_desc {
    int ta, tb;
    size_t m, n, k;
    cl_mem a, b, c;
    size_t lda, ldb, ldc, sa, sb, sc;
} gemm_desc;

static tfl_status group_gemm(const gemm_desc *d, size_t batch, tfl_stream s)
{
    const CLBlastLayout L = CLBlastLayoutRowMajor;
    const CLBlastTranspose ta = d->ta ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastTranspose tb = d->tb ? CLBlastTransposeYes : CLBlastTransposeNo;
    cl_command_queue q = ocl_queue(s);
    cl_event ev = NULL;
    CLBlastStatusCode rc;
    if (batch == 1)
        rc = CLBlastSgemm(L, ta, tb, d->m, d->n, d->k, 1.0f, d->a, 0, d->lda, d->b, 0, d->ldb,
                          0.0f, d->c, 0, d->ldc, &q, &ev);
    else
        rc = CLBlastSgemmStridedBatched(L, ta, tb, d->m, d->n, d->k, 1.0f, d->a, 0, d->lda, d->sa,
                                        d->b, 0, d->ldb, d->sb, 0.0f, d->c, 0, d->ldc, d->sc,
                                        batch, &q, &ev);
    if (rc != CLBlastSuccess)
        return ocl_blast_status(rc, batch == 1 ? "CLBlastSgemm" : "CLBlastSgemmStridedBatched");
    ocl_track(s, ev);
    return TFL_OK;
}

/* Scratch floats (released by the caller once enqueued). */
static cl_mem scratch(int64_t floats, tfl_status *st)
{
    cl_int rc;
    cl_mem m = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE,
                              (size_t)(floats > 0 ? floats : 1) * sizeof(float), NULL, &rc);
    *st = ocl_status(rc, "clCreateBuffer");
    return m;
}

/* What a run shares between its steps. */
typedef struct cv_run {
    const tfl_conv_op *op;
    const cv_plan *p;
    tfl_stream s;
    cl_mem w, col, kn;    /* W [K][rows], COL, R or DY */
    cl_mem dw, part;      /* BWD_FILTER: DW [K][rows], per image [nc][K][rows] */
} cv_run;

static tfl_status step_gather_w(const cv_run *r)
{
    const cv_plan *p = r->p;
    ocl_karg a[] = { OCL_KB(p->a[T_W]), OCL_KA(p->st[T_W]), OCL_KA(r->w), OCL_KA(p->g) };
    return launch("gather_w", r->op->dtype, a, OCL_NARGS(a), (size_t)(p->g.k * p->g.rows), r->s);
}

/* The filter gradient lays COL and DY out image by image (one GEMM per
 * image and group, summed in image order as the host does). */
static tfl_status step_im2col(const cv_run *r, cl_long n0, cl_long nc)
{
    const cv_plan *p = r->p;
    cl_int im = r->op->mode == TFL_CONV_BWD_FILTER;
    ocl_karg a[] = { OCL_KB(p->a[T_X]), OCL_KA(p->st[T_X]), OCL_KA(r->col), OCL_KA(p->g),
                     OCL_KA(n0),        OCL_KA(nc),         OCL_KA(im) };
    return launch("im2col", r->op->dtype, a, OCL_NARGS(a),
                  (size_t)(p->g.g * p->g.rows * nc * p->g.op), r->s);
}

static tfl_status step_gather_dy(const cv_run *r, cl_long n0, cl_long nc)
{
    const cv_plan *p = r->p;
    cl_int im = r->op->mode == TFL_CONV_BWD_FILTER;
    ocl_karg a[] = { OCL_KB(p->a[T_Y]), OCL_KA(p->st[T_Y]), OCL_KA(r->kn), OCL_KA(p->g),
                     OCL_KA(n0),        OCL_KA(nc),         OCL_KA(im) };
    return launch("gather_kn", r->op->dtype, a, OCL_NARGS(a), (size_t)(p->g.k * nc * p->g.op),
                  r->s);
}

static tfl_status step_dw_sum(const cv_run *r, cl_long nc, cl_int first)
{
    cl_long per = r->p->g.k * r->p->g.rows;
    ocl_karg a[] = { OCL_KA(r->part), OCL_KA(r->dw), OCL_KA(per), OCL_KA(nc), OCL_KA(first) };
    return launch("dw_sum", r->op->dtype, a, OCL_NARGS(a), (size_t)per, r->s);
}

/* The forward epilogue's arguments (EPI_ARGS), held for the launch. */
typedef struct epi_vals {
    cl_float alpha, beta, za;
    cl_int hb, hz, relu, plain;
} epi_vals;

static epi_vals epi_of(const tfl_conv_op *op, const cv_plan *p)
{
    epi_vals v = { (cl_float)op->alpha, (cl_float)op->beta, (cl_float)op->z_alpha,
                   op->bias != NULL, op->z.data != NULL, op->relu != 0, p->plain };
    return v;
}

#define EPI_KARGS(p, v)                                                                            \
    OCL_KB((p)->a[T_Z]), OCL_KA((p)->st[T_Z]), OCL_KB((p)->a[T_BIAS]), OCL_KA((v).alpha),          \
        OCL_KA((v).beta), OCL_KA((v).za), OCL_KA((v).hb), OCL_KA((v).hz), OCL_KA((v).relu),        \
        OCL_KA((v).plain)

static tfl_status step_scatter_y(const cv_run *r, cl_long n0, cl_long nc)
{
    const cv_plan *p = r->p;
    const epi_vals v = epi_of(r->op, p);
    ocl_karg a[] = { OCL_KA(r->kn), OCL_KB(p->a[T_Y]), OCL_KA(p->st[T_Y]), OCL_KA(p->g),
                     OCL_KA(n0),    OCL_KA(nc),        EPI_KARGS(p, v) };
    return launch("scatter_y", r->op->dtype, a, OCL_NARGS(a), (size_t)(nc * p->g.k * p->g.op),
                  r->s);
}

/* Few channels per group, forward or data gradient: the direct kernels,
 * no scratch. */
static tfl_status run_direct(const tfl_conv_op *op, const cv_plan *p, tfl_stream s)
{
    const cv_geo *g = &p->g;
    if (op->mode == TFL_CONV_FWD) {
        const epi_vals v = epi_of(op, p);
        ocl_karg a[] = { OCL_KB(p->a[T_X]),  OCL_KA(p->st[T_X]), OCL_KB(p->a[T_W]),
                         OCL_KA(p->st[T_W]), OCL_KB(p->a[T_Y]),  OCL_KA(p->st[T_Y]),
                         OCL_KA(p->g),       EPI_KARGS(p, v) };
        return launch("direct_fwd", op->dtype, a, OCL_NARGS(a), (size_t)(g->n * g->k * g->op), s);
    }
    cl_float alpha = (cl_float)op->alpha, beta = (cl_float)op->beta;
    cl_int plain = p->plain, flat = g->str[0] == 1 && g->str[1] == 1 && g->str[2] == 1;
    ocl_karg a[] = { OCL_KB(p->a[T_Y]), OCL_KA(p->st[T_Y]), OCL_KB(p->a[T_W]), OCL_KA(p->st[T_W]),
                     OCL_KB(p->a[T_X]), OCL_KA(p->st[T_X]), OCL_KA(p->g),      OCL_KA(alpha),
                     OCL_KA(beta),      OCL_KA(plain),      OCL_KA(flat) };
    return launch("direct_bwd_data", op->dtype, a, OCL_NARGS(a), (size_t)(g->n * g->c * g->ip), s);
}

static tfl_status step_col2im(const cv_run *r, cl_long n0, cl_long nc)
{
    const cv_plan *p = r->p;
    cl_float alpha = (cl_float)r->op->alpha, beta = (cl_float)r->op->beta;
    cl_int plain = p->plain;
    ocl_karg a[] = { OCL_KA(r->col), OCL_KB(p->a[T_X]), OCL_KA(p->st[T_X]),
                     OCL_KA(p->g),   OCL_KA(n0),        OCL_KA(nc),
                     OCL_KA(alpha),  OCL_KA(beta),      OCL_KA(plain) };
    return launch("col2im", r->op->dtype, a, OCL_NARGS(a), (size_t)(nc * p->g.c * p->g.ip), r->s);
}

static tfl_status step_scatter_w(const cv_run *r)
{
    const cv_plan *p = r->p;
    cl_float alpha = (cl_float)r->op->alpha, beta = (cl_float)r->op->beta;
    cl_int plain = p->plain;
    ocl_karg a[] = { OCL_KA(r->dw), OCL_KB(p->a[T_W]), OCL_KA(p->st[T_W]), OCL_KA(p->g),
                     OCL_KA(alpha), OCL_KA(beta),      OCL_KA(plain) };
    return launch("scatter_w", r->op->dtype, a, OCL_NARGS(a), (size_t)(p->g.k * p->g.rows), r->s);
}

/* The chunk's GEMMs over nc images: one strided-batched call. */
static tfl_status step_gemm(const cv_run *r, int64_t nc)
{
    const cv_geo *g = &r->p->g;
    const size_t kg = (size_t)g->kg, rows = (size_t)g->rows, op = (size_t)g->op;
    const size_t ncop = (size_t)nc * op;
    gemm_desc d;
    size_t batch = (size_t)g->g;
    switch (r->op->mode) {
    case TFL_CONV_FWD:          /* R_g[kg][ncop] = W_g[kg][rows] * COL_g[rows][ncop] */
        d = (gemm_desc){ 0, 0, kg, ncop, rows, r->w, r->col, r->kn, rows, ncop, ncop,
                         kg * rows, rows * ncop, kg * ncop };
        break;
    case TFL_CONV_BWD_DATA:     /* COL_g[rows][ncop] = W_g^T * DY_g[kg][ncop] */
        d = (gemm_desc){ 1, 0, rows, ncop, kg, r->w, r->kn, r->col, rows, ncop, ncop,
                         kg * rows, kg * ncop, rows * ncop };
        break;
    default:                    /* PART_n,g[kg][rows] = DY_n,g[kg][op] * COL_n,g^T */
        d = (gemm_desc){ 0, 1, kg, rows, op, r->kn, r->col, r->part, op, op, rows,
                         kg * op, rows * op, kg * rows };
        batch *= (size_t)nc;
        break;
    }
    return group_gemm(&d, batch, r->s);
}

/* One chunk of images [n0, n0 + nc). */
static tfl_status run_chunk(const cv_run *r, cl_long n0, cl_long nc)
{
    tfl_status st;
    switch (r->op->mode) {
    case TFL_CONV_FWD:
        st = step_im2col(r, n0, nc);
        if (st == TFL_OK)
            st = step_gemm(r, nc);
        return st == TFL_OK ? step_scatter_y(r, n0, nc) : st;
    case TFL_CONV_BWD_DATA:
        st = step_gather_dy(r, n0, nc);
        if (st == TFL_OK)
            st = step_gemm(r, nc);
        return st == TFL_OK ? step_col2im(r, n0, nc) : st;
    default:
        st = step_im2col(r, n0, nc);
        if (st == TFL_OK)
            st = step_gather_dy(r, n0, nc);
        if (st == TFL_OK)
            st = step_gemm(r, nc);
        return st == TFL_OK ? step_dw_sum(r, nc, n0 == 0) : st;
    }
}

int ocl_conv_supported(const tfl_op *op)
{
    if (!ocl_dev() || op->kind != TFL_OP_CONV)
        return 0;
    cv_plan p;
    return plan(&op->u.conv, &p);
}

tfl_status ocl_conv_run(const tfl_op *op, tfl_stream s)
{
    cv_plan p;
    if (!ocl_dev() || op->kind != TFL_OP_CONV || !plan(&op->u.conv, &p))
        return TFL_ERR_INVALID;
    const tfl_conv_op *o = &op->u.conv;
    if (p.direct)
        return run_direct(o, &p, s);
    const cv_geo *g = &p.g;
    const int bwd_f = o->mode == TFL_CONV_BWD_FILTER;
    cv_run r = { .op = o, .p = &p, .s = s };
    tfl_status st[5] = { TFL_OK, TFL_OK, TFL_OK, TFL_OK, TFL_OK };
    r.w = bwd_f ? NULL : scratch(g->k * g->rows, &st[0]);
    r.col = scratch(g->g * g->rows * p.nc * g->op, &st[1]);
    r.kn = scratch(g->k * p.nc * g->op, &st[2]);
    r.dw = bwd_f ? scratch(g->k * g->rows, &st[3]) : NULL;
    r.part = bwd_f ? scratch(p.nc * g->k * g->rows, &st[4]) : NULL;
    for (int i = 1; i < 5; i++)
        if (st[0] == TFL_OK)
            st[0] = st[i];
    if (st[0] == TFL_OK && !bwd_f)
        st[0] = step_gather_w(&r);
    for (int64_t n0 = 0; st[0] == TFL_OK && n0 < g->n; n0 += p.nc)
        st[0] = run_chunk(&r, n0, g->n - n0 < p.nc ? g->n - n0 : p.nc);
    if (st[0] == TFL_OK && bwd_f)
        st[0] = step_scatter_w(&r);
    cl_mem all[] = { r.w, r.col, r.kn, r.dw, r.part };
    for (int i = 0; i < 5; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    return st[0];
}

/*
 * ocl_batchnorm.c - TFL_OP_BATCHNORM (torchfl/ops/batchnorm.h) on the
 * OpenCL device: every kind of the op - batch-norm statistics, apply
 * (training and inference), the fused backward, backward reduce /
 * element, group norm's three parameter kernels and the pointwise maps
 * (running-statistics update, rsqrt, norm, affine, ...).
 *
 * Semantics and precision are the host backend's (host/ops_batchnorm.c):
 *   - x, y, dy, dx are float32, float16 or bfloat16 (dtype), the
 *     parameters weight / bias / running stats / grad_weight / grad_bias
 *     float32, float16 or bfloat16 (stat_dtype); mean, invstd, out2,
 *     sum_dy, sum_dy_xmu float.  Values are widened to float;
 *   - per-channel sums accumulate in double when the device has
 *     cl_khr_fp64 (the host's choice; float otherwise), the variance in
 *     two passes; the element formulas are the host's float expressions,
 *     operand for operand, with contraction off (the host builds with
 *     -ffp-contract=off), so they round as the host does;
 *   - reductions are deterministic: one work-group per channel, each work
 *     item summing a strided slice, then a fixed tree in local memory.  No
 *     atomics anywhere.  Group-norm sums (a few channels or a batch) run
 *     one work item per output, in the host's order.
 * Group-norm kinds and maps are float32 (as the host); a map's operands
 * may be float16 / bfloat16 (map_dtype).
 *
 * This file also defines ocl_fp_codec_cl, the OpenCL C float <-> half /
 * bfloat16 conversions ocl_conv.c and ocl_spatial.c prepend to their
 * kernels (bit-exact with common/half.h).
 */
#include "backends/opencl/ocl_src.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ codec */

/* fp_ld / fp_st: element i of type dt (0 f32, 2 f16, 3 bf16: tfl_dtype
 * numbers; a compile-time constant at every call) at byte address b.
 * Rounding to nearest even, NaN quietened keeping its sign and top
 * payload bits, as common/half.h does. */
const char ocl_fp_codec_cl[] =
"float fp_h2f(uint h) {\n"
"    uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
"    if (e == 0x1fu) return as_float(s | 0x7f800000u | (m << 13));\n"
"    if (e == 0u) { float v = (float)m * 0x1p-24f; return s ? -v : v; }\n"
"    return as_float(s | ((e + 112u) << 23) | (m << 13));\n"
"}\n"
"ushort fp_f2h(float f) {\n"
"    uint u = as_uint(f), s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;\n"
"    if (a > 0x7f800000u) return (ushort)(s | 0x7e00u | ((a >> 13) & 0x3ffu));\n"
"    if (a >= 0x477ff000u) return (ushort)(s | 0x7c00u);\n"
"    if (a < 0x33000000u) return (ushort)s;\n"
"    if (a < 0x38800000u) {\n"
"        uint sh = 126u - (a >> 23), m = (a & 0x7fffffu) | 0x800000u;\n"
"        uint q = m >> sh, rem = m & ((1u << sh) - 1u), hf = 1u << (sh - 1u);\n"
"        if (rem > hf || (rem == hf && (q & 1u))) q++;\n"
"        return (ushort)(s | q);\n"
"    }\n"
"    uint b = a - 0x38000000u;\n"
"    return (ushort)(s | ((b + 0xfffu + ((b >> 13) & 1u)) >> 13));\n"
"}\n"
"ushort fp_f2b(float f) {\n"
"    uint u = as_uint(f);\n"
"    if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);\n"
"    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n"
"}\n"
"float fp_ld(__global const uchar *b, long i, int dt) {\n"
"    if (dt == 2) return fp_h2f(((__global const ushort *)b)[i]);\n"
"    if (dt == 3) return as_float((uint)((__global const ushort *)b)[i] << 16);\n"
"    return ((__global const float *)b)[i];\n"
"}\n"
"void fp_st(__global uchar *b, long i, int dt, float v) {\n"
"    if (dt == 2) ((__global ushort *)b)[i] = fp_f2h(v);\n"
"    else if (dt == 3) ((__global ushort *)b)[i] = fp_f2b(v);\n"
"    else ((__global float *)b)[i] = v;\n"
"}\n";

/* ------------------------------------------------------------ kernels */

/* Options: -DDT (x/y/dy/dx type), -DSDT (parameter type), -DWG (work-group
 * size of the per-channel kernels, a power of two), -DACC_DBL. */
static const char bn_src[] =
OCL_SRC_ACC
"#define F32(b, o) ((__global float *)((b) + (o)))\n"
"#define LDX(b, o, i) fp_ld((b) + (o), (i), DT)\n"
"#define LDS(b, o, i) fp_ld((b) + (o), (i), SDT)\n"
"#define STS(b, o, i, v) fp_st((b) + (o), (i), SDT, (v))\n"
/* element (i, ch, k) of a [n][c][l] view with element strides s */
"#define AT(s, i, ch, k) ((i) * (s).x + (ch) * (s).y + (k) * (s).z)\n"
"acc_t wg_sum(acc_t v, __local acc_t *sh) {\n"
"    int l = get_local_id(0);\n"
"    sh[l] = v;\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    for (int o = WG / 2; o > 0; o >>= 1) {\n"
"        if (l < o) sh[l] += sh[l + o];\n"
"        barrier(CLK_LOCAL_MEM_FENCE);\n"
"    }\n"
"    acc_t r = sh[0];\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    return r;\n"
"}\n"
/* Work item lid's elements of one channel: e = lid, lid + WG, ... of the
 * n*l, walked as (i, k) without a division per element. */
"#define CH_LOOP(n, l, ...) {                                             \\\n"
"    const long l_ = (l) > 0 ? (l) : 1, di_ = WG / l_, dk_ = WG % l_;    \\\n"
"    long i = get_local_id(0) / l_, k = get_local_id(0) % l_;            \\\n"
"    for (long e_ = get_local_id(0); e_ < (n) * (l); e_ += WG) {         \\\n"
"        __VA_ARGS__                                                     \\\n"
"        i += di_; k += dk_; if (k >= l_) { k -= l_; i++; }              \\\n"
"    } }\n"
/* the element kernels' (i, ch, k) of flat index e over [n][c][l] */
"#define SPLIT(e, c, l) long k = (e) % (l), t_ = (e) / (l), ch = t_ % (c), i = t_ / (c);\n"
/* dx = (dy - mdy - (x - m) * f1) * f2, the host's write_dx */
"#define DX(dy, x, mdy, m, f1, f2) (((dy) - (mdy) - ((x) - (m)) * (f1)) * (f2))\n"
"\n"
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void bn_stats(__global const uchar *xb, ulong xo, long4 xs, long n, long l,\n"
"              __global uchar *mb, ulong mo, __global uchar *ob, ulong oo,\n"
"              int has_mean, int has_out2, int mode, acc_t eps) {\n"
"    __local acc_t sh[WG];\n"
"    const long ch = get_group_id(0);\n"
"    const acc_t cnt = (acc_t)(n * l);\n"
"    acc_t a = 0;\n"
"    CH_LOOP(n, l, a += (acc_t)LDX(xb, xo, AT(xs, i, ch, k));)\n"
"    const acc_t mean = wg_sum(a, sh) / cnt;\n"
"    a = 0;\n"
"    CH_LOOP(n, l, acc_t d = (acc_t)LDX(xb, xo, AT(xs, i, ch, k)) - mean; a += d * d;)\n"
"    const acc_t var = wg_sum(a, sh) / cnt;\n"
"    if (get_local_id(0) != 0) return;\n"
"    if (has_mean) F32(mb, mo)[ch] = (float)mean;\n"
"    if (!has_out2) return;\n"
"    acc_t v = var;\n"
"    if (mode == 1) v = (var == 0 && eps == 0) ? (acc_t)0 : (acc_t)1 / sqrt(var + eps);\n"
"    else if (mode == 2) v = (acc_t)1 / sqrt((acc_t)(float)var + (acc_t)(float)eps);\n"
"    F32(ob, oo)[ch] = (float)v;\n"
"}\n"
"\n"
"__kernel void bn_apply(__global const uchar *xb, ulong xo, long4 xs,\n"
"                       __global uchar *yb, ulong yo, long4 ys,\n"
"                       __global const uchar *wb, ulong wo, __global const uchar *bb, ulong bo,\n"
"                       __global const uchar *mb, ulong mo, __global const uchar *sb, ulong so,\n"
"                       long n, long c, long l, int from_var, acc_t eps, int hw, int hb) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= n * c * l) return;\n"
"    SPLIT(e, c, l)\n"
"    const float iv = F32(sb, so)[ch];\n"
"    const float s = from_var ? (float)((acc_t)1 / sqrt((acc_t)iv + eps)) : iv;\n"
"    const float m = F32(mb, mo)[ch];\n"
"    const float g = hw ? LDS(wb, wo, ch) : 1.0f, b = hb ? LDS(bb, bo, ch) : 0.0f;\n"
"    const float x = LDX(xb, xo, AT(xs, i, ch, k));\n"
"    fp_st(yb + yo, AT(ys, i, ch, k), DT, g * (x - m) * s + b);\n"
"}\n"
"\n"
/* The fused backward; train: mean/invstd, else running stats. */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void bn_backward(__global const uchar *xb, ulong xo, long4 xs,\n"
"                 __global const uchar *db, ulong dof, long4 ds,\n"
"                 __global uchar *ob, ulong oo, long4 os,\n"
"                 __global const uchar *wb, ulong wo,\n"
"                 __global const uchar *mb, ulong mo, __global const uchar *sb, ulong so,\n"
"                 __global const uchar *rmb, ulong rmo, __global const uchar *rvb, ulong rvo,\n"
"                 __global uchar *gwb, ulong gwo, __global uchar *gbb, ulong gbo,\n"
"                 long n, long l, int train, acc_t eps, int hw, int hdx, int hgw, int hgb) {\n"
"    __local acc_t sh[WG];\n"
"    const long ch = get_group_id(0);\n"
"    acc_t mu, s;\n"
"    if (train) {\n"
"        mu = (acc_t)F32(mb, mo)[ch];\n"
"        s = (acc_t)F32(sb, so)[ch];\n"
"    } else {\n"
"        mu = (acc_t)LDS(rmb, rmo, ch);\n"
"        s = (acc_t)(float)((acc_t)1 / sqrt((acc_t)LDS(rvb, rvo, ch) + eps));\n"
"    }\n"
"    const acc_t g = hw ? (acc_t)LDS(wb, wo, ch) : (acc_t)1;\n"
"    acc_t a1 = 0, a2 = 0;\n"
"    CH_LOOP(n, l, acc_t d = (acc_t)LDX(db, dof, AT(ds, i, ch, k));\n"
"                  a1 += d; a2 += d * ((acc_t)LDX(xb, xo, AT(xs, i, ch, k)) - mu);)\n"
"    const acc_t s1 = wg_sum(a1, sh), s2 = wg_sum(a2, sh), cnt = (acc_t)(n * l);\n"
"    if (hdx) {\n"
"        float mdy = 0.0f, m = 0.0f, f1 = 0.0f, f2 = (float)(s * g);\n"
"        if (train) { mdy = (float)(s1 / cnt); m = (float)mu; f1 = (float)(s2 / cnt * s * s); }\n"
"        CH_LOOP(n, l, float x = LDX(xb, xo, AT(xs, i, ch, k)), d = LDX(db, dof, AT(ds, i, ch, k));\n"
"                      fp_st(ob + oo, AT(os, i, ch, k), DT, DX(d, x, mdy, m, f1, f2));)\n"
"    }\n"
"    if (get_local_id(0) != 0) return;\n"
"    if (hgw) STS(gwb, gwo, ch, (float)(s2 * s));\n"
"    if (hgb) STS(gbb, gbo, ch, (float)s1);\n"
"}\n"
"\n"
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void bn_bwd_reduce(__global const uchar *xb, ulong xo, long4 xs,\n"
"                   __global const uchar *db, ulong dof, long4 ds,\n"
"                   __global const uchar *mb, ulong mo, __global const uchar *sb, ulong so,\n"
"                   __global uchar *s1b, ulong s1o, __global uchar *s2b, ulong s2o,\n"
"                   __global uchar *gwb, ulong gwo, __global uchar *gbb, ulong gbo,\n"
"                   long n, long l, int hm, int hs1, int hs2, int hgw, int hgb) {\n"
"    __local acc_t sh[WG];\n"
"    const long ch = get_group_id(0);\n"
"    const acc_t mu = hm ? (acc_t)F32(mb, mo)[ch] : (acc_t)0;\n"
"    acc_t a1 = 0, a2 = 0;\n"
"    CH_LOOP(n, l, acc_t d = (acc_t)LDX(db, dof, AT(ds, i, ch, k));\n"
"                  a1 += d; a2 += d * ((acc_t)LDX(xb, xo, AT(xs, i, ch, k)) - mu);)\n"
"    const acc_t s1 = wg_sum(a1, sh), s2 = wg_sum(a2, sh);\n"
"    if (get_local_id(0) != 0) return;\n"
"    if (hs1) F32(s1b, s1o)[ch] = (float)s1;\n"
"    if (hs2) F32(s2b, s2o)[ch] = (float)s2;\n"
"    if (hgw) STS(gwb, gwo, ch, (float)(s2 * (acc_t)F32(sb, so)[ch]));\n"
"    if (hgb) STS(gbb, gbo, ch, (float)s1);\n"
"}\n"
"\n"
"__kernel void bn_bwd_elemt(__global const uchar *xb, ulong xo, long4 xs,\n"
"                           __global const uchar *db, ulong dof, long4 ds,\n"
"                           __global uchar *ob, ulong oo, long4 os,\n"
"                           __global const uchar *wb, ulong wo,\n"
"                           __global const uchar *mb, ulong mo, __global const uchar *sb, ulong so,\n"
"                           __global const uchar *s1b, ulong s1o, __global const uchar *s2b, ulong s2o,\n"
"                           long n, long c, long l, float norm, int hw) {\n"
"    const long e = get_global_id(0);\n"
"    if (e >= n * c * l) return;\n"
"    SPLIT(e, c, l)\n"
"    const float s = F32(sb, so)[ch], g = hw ? LDS(wb, wo, ch) : 1.0f;\n"
"    const float mdy = F32(s1b, s1o)[ch] * norm, f1 = s * s * F32(s2b, s2o)[ch] * norm;\n"
"    const float x = LDX(xb, xo, AT(xs, i, ch, k)), d = LDX(db, dof, AT(ds, i, ch, k));\n"
"    fp_st(ob + oo, AT(os, i, ch, k), DT, DX(d, x, mdy, F32(mb, mo)[ch], f1, g * s));\n"
"}\n"
"\n"
/* group norm: a/b per (n, c) */
"__kernel void gn_fused(__global const uchar *mb, ulong mo, __global const uchar *rb, ulong ro,\n"
"                       __global const uchar *gb, ulong go, __global const uchar *bb, ulong bo,\n"
"                       __global uchar *ab, ulong ao, __global uchar *b2b, ulong b2o,\n"
"                       long N, long C, long G, int hg, int hb) {\n"
"    const long i = get_global_id(0);\n"
"    if (i >= N * C) return;\n"
"    const long c = i % C, ng = (i / C) * G + c / (C / G);\n"
"    const float r = F32(rb, ro)[ng];\n"
"    const float a = hg ? r * F32(gb, go)[c] : r;\n"
"    F32(ab, ao)[i] = a;\n"
"    F32(b2b, b2o)[i] = -a * F32(mb, mo)[ng] + (hb ? F32(bb, bo)[c] : 0.0f);\n"
"}\n"
"\n"
/* ds, db of (n, c) row i: from the sums, or dy * x and dy (1-d) */
"#define DSDB(i)                                                            \\\n"
"    acc_t dsv, dbv;                                                        \\\n"
"    if (gn1d) { dsv = (acc_t)F32(dyb, dyo)[i] * (acc_t)F32(xb, xo)[i];       \\\n"
"                dbv = (acc_t)F32(dyb, dyo)[i]; }                             \\\n"
"    else { dsv = (acc_t)F32(dsb, dso)[i]; dbv = (acc_t)F32(dbb, dbo)[i]; }\n"
"__kernel void gn_bwd_params(__global const uchar *mb, ulong mo, __global const uchar *rb, ulong ro,\n"
"                            __global const uchar *gb, ulong go,\n"
"                            __global const uchar *dsb, ulong dso, __global const uchar *dbb, ulong dbo,\n"
"                            __global const uchar *dyb, ulong dyo, __global const uchar *xb, ulong xo,\n"
"                            __global uchar *ab, ulong ao, __global uchar *b2b, ulong b2o,\n"
"                            long N, long C, long G, long hxw, int gn1d, int hg) {\n"
"    const long ng = get_global_id(0);\n"
"    if (ng >= N * G) return;\n"
"    const long n = ng / G, g = ng % G, D = C / G;\n"
"    const acc_t s = (acc_t)1 / (acc_t)(D * (gn1d ? 1 : hxw));\n"
"    acc_t s1 = 0, s2 = 0;\n"
"    for (long d = 0; d < D; d++) {\n"
"        const long c = g * D + d;\n"
"        const acc_t gam = hg ? (acc_t)F32(gb, go)[c] : (acc_t)1;\n"
"        DSDB(n * C + c)\n"
"        s1 += dsv * gam;\n"
"        s2 += dbv * gam;\n"
"    }\n"
"    const acc_t mean = (acc_t)F32(mb, mo)[ng], r = (acc_t)F32(rb, ro)[ng];\n"
"    const acc_t x = (s2 * mean - s1) * r * r * r * s;\n"
"    F32(ab, ao)[ng] = (float)x;\n"
"    F32(b2b, b2o)[ng] = (float)(-x * mean - s2 * r * s);\n"
"}\n"
"\n"
"__kernel void gn_gamma_beta(__global const uchar *mb, ulong mo, __global const uchar *rb, ulong ro,\n"
"                            __global const uchar *dsb, ulong dso, __global const uchar *dbb, ulong dbo,\n"
"                            __global const uchar *dyb, ulong dyo, __global const uchar *xb, ulong xo,\n"
"                            __global uchar *gb, ulong go, __global uchar *b2b, ulong b2o,\n"
"                            long N, long C, long G, int gn1d, int hdg, int hdb) {\n"
"    const long c = get_global_id(0);\n"
"    if (c >= C) return;\n"
"    const long D = C / G;\n"
"    acc_t s1 = 0, s2 = 0;\n"
"    for (long n = 0; n < N; n++) {\n"
"        const long ng = n * G + c / D;\n"
"        DSDB(n * C + c)\n"
"        s1 += (dsv - dbv * (acc_t)F32(mb, mo)[ng]) * (acc_t)F32(rb, ro)[ng];\n"
"        s2 += dbv;\n"
"    }\n"
"    if (hdg) F32(gb, go)[c] = (float)s1;\n"
"    if (hdb) F32(b2b, b2o)[c] = (float)s2;\n"
"}\n";

/* The map kernel, one program for every formula and operand type (they
 * are kernel arguments: a map is memory-bound, the switch costs nothing
 * next to a program build per signature).  Option -DACC_DBL.  Operand k
 * is (b<k>, o<k>); its element at the index's byte offset
 * sum idx[d] * st[k][d], of type ty[k]. */
static const char map_src[] =
OCL_SRC_ACC
"typedef struct {\n"
"    long shape[8];\n"
"    long st[8][8];\n"
"    int ty[8];\n"
"    int code, flags, nout, nin, ndim, pad_;\n"
"} geo_t;\n"
"#define OPND(k) __global uchar *b##k, ulong o##k\n"
"__kernel void bn_map(OPND(0), OPND(1), OPND(2), OPND(3), OPND(4), OPND(5), OPND(6), OPND(7),\n"
"                     long total, float p0, float p1, float p2, geo_t g) {\n"
"    long e = get_global_id(0);\n"
"    if (e >= total) return;\n"
"    const int nout = g.nout, nin = g.nin;\n"
"    long off[8] = {0, 0, 0, 0, 0, 0, 0, 0};\n"
"    for (int d = 0; d < g.ndim; d++) {\n"
"        long idx = e % g.shape[d];\n"
"        e /= g.shape[d];\n"
"        for (int k = 0; k < nout + nin; k++) off[k] += idx * g.st[k][d];\n"
"    }\n"
"    __global uchar *p[8] = { b0 + o0 + off[0], b1 + o1 + off[1], b2 + o2 + off[2],\n"
"                             b3 + o3 + off[3], b4 + o4 + off[4], b5 + o5 + off[5],\n"
"                             b6 + o6 + off[6], b7 + o7 + off[7] };\n"
"    float in[8], out[3], v;\n"
"    for (int k = 0; k < nin; k++) in[k] = fp_ld(p[nout + k], 0, g.ty[nout + k]);\n"
"    switch (g.code) {\n"
"    case 1:                                     /* RSQRT_EPS */\n"
"        out[0] = (float)((acc_t)1 / sqrt((acc_t)(in[0] + p0)));\n"
"        break;\n"
"    case 2:                                     /* UPDATE_STATS */\n"
"        out[0] = in[0] * p1 + (1.0f - p1) * in[2];\n"
"        out[1] = in[1] * p0 * p1 + (1.0f - p1) * in[3];\n"
"        if (nout > 2) out[2] = (float)((acc_t)1 / sqrt((acc_t)(in[1] + p2)));\n"
"        break;\n"
"    case 3: {                                   /* NORM */\n"
"        v = (in[0] - in[1]) * in[2];\n"
"        int j = 3;\n"
"        if (g.flags & 1) v *= in[j++];\n"
"        if (g.flags & 2) v += in[j];\n"
"        out[0] = v;\n"
"        break;\n"
"    }\n"
"    case 4:                                     /* AFFINE */\n"
"        out[0] = in[1] * in[0] + in[2];\n"
"        break;\n"
"    case 5:                                     /* AFFINE3 */\n"
"        if (g.flags & 1) out[0] = in[2] * in[3] * in[0] + in[4] * in[1] + in[5];\n"
"        else out[0] = in[2] * in[0] + in[3] * in[1] + in[4];\n"
"        break;\n"
"    case 6:                                     /* MUL */\n"
"        v = in[0];\n"
"        for (int k = 1; k < nin; k++) v *= in[k];\n"
"        out[0] = v;\n"
"        break;\n"
"    default: {                                  /* 7: BWD_TRAIN */\n"
"        float f1 = in[4] * in[4] * in[5] * p0, f2 = in[2] * in[4], mdy = in[6] * p0;\n"
"        out[0] = (in[0] - mdy - (in[1] - in[3]) * f1) * f2;\n"
"    }\n"
"    }\n"
"    for (int k = 0; k < nout; k++) fp_st(p[k], 0, g.ty[k], out[k]);\n"
"}\n";

/* ------------------------------------------------------------ programs */

static char *bn_full, *map_full;

/* Kernel `name` of the batch-norm program for (dt, sdt), with the largest
 * work-group size (a power of two up to 256) the device allows for it. */
static ocl_kernel *bn_kernel(const char *name, tfl_dtype dt, tfl_dtype sdt, size_t *wg)
{
    const char *src = ocl_src_join(&bn_full, ocl_fp_codec_cl, bn_src);
    if (!src)
        return NULL;
    char opts[128];
    snprintf(opts, sizeof opts, "-DDT=%d -DSDT=%d -DACC_DBL=%d", (int)dt, (int)sdt,
             ocl_dev()->fp64);
    return ocl_kernel_wg(src, opts, name, NULL, 256, wg);
}

/* ------------------------------------------------------------ planning */

/* p with n bytes (aligned to align) -> a; an absent operand (p NULL or
 * nothing touched) is a NULL buffer the kernel never reads. */
static int resolve(const void *p, size_t n, size_t align, ocl_arg *a)
{
    return ocl_arg_range(p, n, align, 1, a);
}

/* A required operand: present (or nothing to touch) and resolved. */
static int need(const void *p, size_t n, size_t align, ocl_arg *a)
{
    return (p || n == 0) && resolve(p, n, align, a);
}

static int fp_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* Operands of the batch-norm kinds. */
enum { A_X, A_Y, A_DY, A_DX, A_W, A_B, A_MEAN, A_INV, A_OUT2, A_RM, A_RV, A_S1, A_S2,
       A_GW, A_GB, A_COUNT };

typedef struct bn_plan {
    ocl_arg a[A_COUNT];
    cl_long4 xs, ys, dys, dxs;
} bn_plan;

/* Bytes a [n][c][l] view with element strides st spans (0 if empty);
 * 0 with *ok cleared for negative strides or overflow. */
static size_t view_bytes(const tfl_batchnorm_op *o, const int64_t *st, size_t es, int *ok)
{
    if (o->n == 0 || o->c == 0 || o->l == 0)
        return 0;
    const int64_t ext[3] = { o->n, o->c, o->l };
    int64_t last = 0;
    for (int d = 0; d < 3; d++) {
        int64_t t;
        if (st[d] < 0 || __builtin_mul_overflow(ext[d] - 1, st[d], &t) ||
            __builtin_add_overflow(last, t, &last))
            *ok = 0;
    }
    if (!*ok || last > INT64_MAX / 8 - 1)
        return *ok = 0, 0;
    return (size_t)(last + 1) * es;
}

static cl_long4 l4(const int64_t *s)
{
    cl_long4 v = { { s[0], s[1], s[2], 0 } };
    return v;
}

/* Resolves what a batch-norm kind (STATS .. BACKWARD_ELEMT) reads and
 * writes, as the host reads them; 0 when an operand is missing or not in
 * device memory. */
static int bn_plan_make(const tfl_batchnorm_op *o, bn_plan *p)
{
    memset(p, 0, sizeof *p);
    if (o->n < 0 || o->c < 0 || o->l < 0 || !fp_ok(o->dtype) || !fp_ok(o->stat_dtype))
        return 0;
    const size_t es = tfl_dtype_size(o->dtype), ses = tfl_dtype_size(o->stat_dtype);
    const size_t vf = (size_t)o->c * 4, vs = (size_t)o->c * ses;
    int ok = 1;
    const size_t bx = view_bytes(o, o->x_stride, es, &ok), by = view_bytes(o, o->y_stride, es, &ok);
    const size_t bdy = view_bytes(o, o->dy_stride, es, &ok);
    const size_t bdx = view_bytes(o, o->dx_stride, es, &ok);
    if (!ok)
        return 0;
    p->xs = l4(o->x_stride);
    p->ys = l4(o->y_stride);
    p->dys = l4(o->dy_stride);
    p->dxs = l4(o->dx_stride);
    ocl_arg *a = p->a;
    switch (o->kind) {
    case TFL_BN_STATS:
        if (o->n * o->l == 0)
            return 1;   /* the host writes nothing */
        return need(o->x, bx, es, &a[A_X]) && resolve(o->mean, vf, 4, &a[A_MEAN]) &&
               resolve(o->out2, vf, 4, &a[A_OUT2]);
    case TFL_BN_APPLY:
        return need(o->x, bx, es, &a[A_X]) && need(o->y, by, es, &a[A_Y]) &&
               need(o->mean, bx ? vf : 0, 4, &a[A_MEAN]) &&
               need(o->invstd, bx ? vf : 0, 4, &a[A_INV]) &&
               resolve(o->weight, bx ? vs : 0, ses, &a[A_W]) &&
               resolve(o->bias, bx ? vs : 0, ses, &a[A_B]);
    case TFL_BN_BACKWARD:
        ok = need(o->x, bx, es, &a[A_X]) && need(o->dy, bdy, es, &a[A_DY]) &&
             resolve(o->dx, bdx, es, &a[A_DX]) && resolve(o->weight, vs, ses, &a[A_W]) &&
             resolve(o->grad_weight, vs, ses, &a[A_GW]) &&
             resolve(o->grad_bias, vs, ses, &a[A_GB]);
        if (o->train)
            return ok && need(o->mean, vf, 4, &a[A_MEAN]) && need(o->invstd, vf, 4, &a[A_INV]);
        return ok && need(o->running_mean, vs, ses, &a[A_RM]) &&
               need(o->running_var, vs, ses, &a[A_RV]);
    case TFL_BN_BACKWARD_REDUCE:
        return need(o->x, bx, es, &a[A_X]) && need(o->dy, bdy, es, &a[A_DY]) &&
               resolve(o->mean, vf, 4, &a[A_MEAN]) &&
               (o->grad_weight ? need(o->invstd, vf, 4, &a[A_INV]) : 1) &&
               resolve(o->sum_dy, vf, 4, &a[A_S1]) && resolve(o->sum_dy_xmu, vf, 4, &a[A_S2]) &&
               resolve(o->grad_weight, vs, ses, &a[A_GW]) &&
               resolve(o->grad_bias, vs, ses, &a[A_GB]);
    case TFL_BN_BACKWARD_ELEMT: {
        const size_t v = bx ? vf : 0;
        return need(o->x, bx, es, &a[A_X]) && need(o->dy, bdy, es, &a[A_DY]) &&
               need(o->dx, bdx, es, &a[A_DX]) && need(o->mean, v, 4, &a[A_MEAN]) &&
               need(o->invstd, v, 4, &a[A_INV]) && need(o->sum_dy, v, 4, &a[A_S1]) &&
               need(o->sum_dy_xmu, v, 4, &a[A_S2]) &&
               resolve(o->weight, bx ? vs : 0, ses, &a[A_W]);
    }
    default:
        return 0;
    }
}

/* Group norm: operands by role. */
enum { G_MEAN, G_RSTD, G_GAMMA, G_BETA, G_DS, G_DB, G_DY, G_X, G_A, G_B, G_DG, G_DBETA, G_COUNT };

static int gn_plan_make(const tfl_batchnorm_op *o, ocl_arg *a)
{
    memset(a, 0, sizeof(ocl_arg) * G_COUNT);
    if (o->dtype != TFL_DT_F32 || o->gn_g <= 0 || o->gn_c < 0 || o->gn_c % o->gn_g ||
        o->gn_n < 0 || o->gn_hxw < 0 || o->gn_n > INT64_MAX / 8 / (o->gn_c ? o->gn_c : 1) ||
        o->gn_n > INT64_MAX / 8 / o->gn_g)
        return 0;
    const size_t ng = (size_t)(o->gn_n * o->gn_g) * 4, nc = (size_t)(o->gn_n * o->gn_c) * 4,
                 c = (size_t)o->gn_c * 4;
    switch (o->kind) {
    case TFL_BN_GN_FUSED_PARAMS:
        return need(o->gn_mean, nc ? ng : 0, 4, &a[G_MEAN]) &&
               need(o->gn_rstd, nc ? ng : 0, 4, &a[G_RSTD]) &&
               resolve(o->gn_gamma, nc ? c : 0, 4, &a[G_GAMMA]) &&
               resolve(o->gn_beta, nc ? c : 0, 4, &a[G_BETA]) && need(o->gn_a, nc, 4, &a[G_A]) &&
               need(o->gn_b, nc, 4, &a[G_B]);
    case TFL_BN_GN_BACKWARD_PARAMS:
    case TFL_BN_GN_GAMMA_BETA: {
        const int bp = o->kind == TFL_BN_GN_BACKWARD_PARAMS;
        const size_t in = (bp ? ng : c) ? nc : 0;   /* touched only if outputs exist */
        int ok = need(o->gn_mean, bp || c ? ng : 0, 4, &a[G_MEAN]) &&
                 need(o->gn_rstd, bp || c ? ng : 0, 4, &a[G_RSTD]);
        ok = ok && (o->gn_1d ? need(o->gn_dy, in, 4, &a[G_DY]) && need(o->gn_x, in, 4, &a[G_X])
                             : need(o->gn_ds, in, 4, &a[G_DS]) && need(o->gn_db, in, 4, &a[G_DB]));
        if (bp)
            return ok && resolve(o->gn_gamma, in ? c : 0, 4, &a[G_GAMMA]) &&
                   need(o->gn_a, ng, 4, &a[G_A]) && need(o->gn_b, ng, 4, &a[G_B]);
        return ok && resolve(o->gn_dgamma, c, 4, &a[G_DG]) &&
               resolve(o->gn_dbeta, c, 4, &a[G_DBETA]);
    }
    default:
        return 0;
    }
}

/* ------------------------------------------------------------ maps */

/* Must match the map kernel's geo_t field for field. */
typedef struct map_geo {
    cl_long shape[8];
    cl_long st[8][8];
    cl_int ty[8];
    cl_int code, flags, nout, nin, ndim, pad_;
} map_geo;

typedef struct map_plan {
    ocl_arg a[TFL_BN_MAP_OPERANDS];
    map_geo g;
    int64_t total;
    size_t lo[TFL_BN_MAP_OPERANDS], hi[TFL_BN_MAP_OPERANDS];   /* byte ranges */
} map_plan;

/* Inputs and outputs each formula reads and writes, as the host's map_one
 * does (anything else falls back). */
static int map_arity_ok(const tfl_batchnorm_op *o)
{
    switch (o->map_code) {
    case TFL_BN_MAP_RSQRT_EPS: return o->nin == 1 && o->nout == 1;
    case TFL_BN_MAP_UPDATE_STATS: return o->nin == 4 && (o->nout == 2 || o->nout == 3);
    case TFL_BN_MAP_NORM:
        return o->nout == 1 && o->nin == 3 + (o->map_flags & 1) + ((o->map_flags >> 1) & 1);
    case TFL_BN_MAP_AFFINE: return o->nin == 3 && o->nout == 1;
    case TFL_BN_MAP_AFFINE3: return o->nout == 1 && o->nin == 5 + (o->map_flags & 1);
    case TFL_BN_MAP_MUL: return o->nout == 1 && o->nin >= 1 && o->nin <= 3;
    case TFL_BN_MAP_BWD_TRAIN: return o->nin == 7 && o->nout == 1;
    default: return 0;
    }
}

static int overlap(const map_plan *p, int i, int j)
{
    return p->lo[i] < p->hi[j] && p->lo[j] < p->hi[i];
}

/* Output k may share memory with another operand only as the very same
 * elements (in place): work items would race where the host has an order. */
static int map_alias_ok(const tfl_batchnorm_op *o, const map_plan *p, int k)
{
    for (int d = 0; d < o->ndim; d++)
        if (o->strides[k][d] == 0 && o->shape[d] > 1)
            return 0;   /* one element written many times */
    for (int j = 0; j < o->nout + o->nin; j++) {
        if (j == k || !overlap(p, j, k))
            continue;
        if (o->data[j] != o->data[k] || o->map_dtype[j] != o->map_dtype[k] ||
            memcmp(o->strides[j], o->strides[k], sizeof o->strides[k]) != 0)
            return 0;
    }
    return 1;
}

static int map_plan_make(const tfl_batchnorm_op *o, map_plan *p)
{
    memset(p, 0, sizeof *p);
    const int nop = o->nout + o->nin;
    if (o->dtype != TFL_DT_F32 || !map_arity_ok(o) || nop > TFL_BN_MAP_OPERANDS ||
        o->ndim < 1 || o->ndim > TFL_BN_MAP_DIMS)
        return 0;
    for (int k = 0; k < TFL_BN_MAP_OPERANDS; k++)
        if (!fp_ok(o->map_dtype[k]))
            return 0;
    for (int k = 0; k < TFL_BN_MAP_OPERANDS; k++)
        p->g.ty[k] = o->map_dtype[k];
    p->g.code = o->map_code;
    p->g.flags = o->map_flags;
    p->g.nout = o->nout;
    p->g.nin = o->nin;
    p->g.ndim = o->ndim;
    p->total = 1;
    for (int d = 0; d < o->ndim; d++) {
        if (o->shape[d] < 0 || (o->shape[d] && p->total > INT64_MAX / 16 / o->shape[d]))
            return 0;
        p->total *= o->shape[d];
        p->g.shape[d] = o->shape[d];
    }
    if (p->total == 0)
        return 1;
    for (int k = 0; k < nop; k++) {
        const size_t es = tfl_dtype_size(o->map_dtype[k]);
        int64_t last = 0;
        for (int d = 0; d < o->ndim; d++) {
            int64_t t;
            if (o->strides[k][d] < 0 || o->strides[k][d] % (int64_t)es ||
                __builtin_mul_overflow(o->shape[d] - 1, o->strides[k][d], &t) ||
                __builtin_add_overflow(last, t, &last) || last > INT64_MAX / 2)
                return 0;
            p->g.st[k][d] = o->strides[k][d];
        }
        if (!need(o->data[k], (size_t)last + es, es, &p->a[k]))
            return 0;
        p->lo[k] = (size_t)(uintptr_t)o->data[k];
        p->hi[k] = p->lo[k] + (size_t)last + es;
    }
    for (int k = 0; k < o->nout; k++)
        if (!map_alias_ok(o, p, k))
            return 0;
    return 1;
}

static tfl_status run_map(const tfl_batchnorm_op *o, tfl_stream s)
{
    map_plan p;
    if (!map_plan_make(o, &p))
        return TFL_ERR_INVALID;
    if (p.total == 0)
        return TFL_OK;
    const char *src = ocl_src_join(&map_full, ocl_fp_codec_cl, map_src);
    if (!src)
        return TFL_ERR_NOMEM;
    char opts[32];
    snprintf(opts, sizeof opts, "-DACC_DBL=%d", ocl_dev()->fp64);
    ocl_kernel *k = ocl_kernel_get(src, opts, "bn_map");
    cl_long total = p.total;
    cl_float p0 = (cl_float)o->param[0], p1 = (cl_float)o->param[1], p2 = (cl_float)o->param[2];
    const ocl_arg *a = p.a;
    ocl_karg args[] = { OCL_KB(a[0]), OCL_KB(a[1]), OCL_KB(a[2]), OCL_KB(a[3]),  OCL_KB(a[4]),
                        OCL_KB(a[5]), OCL_KB(a[6]), OCL_KB(a[7]), OCL_KA(total), OCL_KA(p0),
                        OCL_KA(p1),   OCL_KA(p2),   OCL_KA(p.g) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)p.total, 0, s);
}

/* ------------------------------------------------------------ running */

/* eps as the kernels' accumulate type. */
typedef struct eps_arg {
    cl_double d;
    cl_float f;
} eps_arg;

static ocl_karg eps_karg(const eps_arg *e)
{
    return ocl_dev()->fp64 ? (ocl_karg)OCL_KA(e->d) : (ocl_karg)OCL_KA(e->f);
}

static tfl_status run_stats(const tfl_batchnorm_op *o, const bn_plan *p, tfl_stream s)
{
    if (o->n * o->l == 0 || o->c == 0 || (!o->mean && !o->out2))
        return TFL_OK;
    size_t wg;
    ocl_kernel *k = bn_kernel("bn_stats", o->dtype, o->stat_dtype, &wg);
    const ocl_arg *a = p->a;
    cl_long n = o->n, l = o->l;
    cl_int hm = o->mean != NULL, h2 = o->out2 != NULL, mode = o->stats_mode;
    eps_arg e = { o->eps, (cl_float)o->eps };
    ocl_karg args[] = { OCL_KB(a[A_X]),    OCL_KA(p->xs),     OCL_KA(n),  OCL_KA(l),
                        OCL_KB(a[A_MEAN]), OCL_KB(a[A_OUT2]), OCL_KA(hm), OCL_KA(h2),
                        OCL_KA(mode),      eps_karg(&e) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)o->c * wg, wg, s);
}

static tfl_status run_apply(const tfl_batchnorm_op *o, const bn_plan *p, tfl_stream s)
{
    const int64_t total = o->n * o->c * o->l;
    if (total == 0)
        return TFL_OK;
    size_t wg;
    ocl_kernel *k = bn_kernel("bn_apply", o->dtype, o->stat_dtype, &wg);
    const ocl_arg *a = p->a;
    cl_long n = o->n, c = o->c, l = o->l;
    cl_int fv = o->from_var != 0, hw = o->weight != NULL, hb = o->bias != NULL;
    eps_arg e = { o->eps, (cl_float)o->eps };
    ocl_karg args[] = { OCL_KB(a[A_X]), OCL_KA(p->xs),  OCL_KB(a[A_Y]),    OCL_KA(p->ys),
                        OCL_KB(a[A_W]), OCL_KB(a[A_B]), OCL_KB(a[A_MEAN]), OCL_KB(a[A_INV]),
                        OCL_KA(n),      OCL_KA(c),      OCL_KA(l),         OCL_KA(fv),
                        eps_karg(&e),   OCL_KA(hw),     OCL_KA(hb) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)total, 0, s);
}

static tfl_status run_backward(const tfl_batchnorm_op *o, const bn_plan *p, tfl_stream s)
{
    if (o->c == 0)
        return TFL_OK;
    size_t wg;
    ocl_kernel *k = bn_kernel("bn_backward", o->dtype, o->stat_dtype, &wg);
    const ocl_arg *a = p->a;
    cl_long n = o->n, l = o->l;
    cl_int tr = o->train != 0, hw = o->weight != NULL, hdx = o->dx != NULL;
    cl_int hgw = o->grad_weight != NULL, hgb = o->grad_bias != NULL;
    eps_arg e = { o->eps, (cl_float)o->eps };
    ocl_karg args[] = { OCL_KB(a[A_X]),   OCL_KA(p->xs),   OCL_KB(a[A_DY]), OCL_KA(p->dys),
                        OCL_KB(a[A_DX]),  OCL_KA(p->dxs),  OCL_KB(a[A_W]),  OCL_KB(a[A_MEAN]),
                        OCL_KB(a[A_INV]), OCL_KB(a[A_RM]), OCL_KB(a[A_RV]), OCL_KB(a[A_GW]),
                        OCL_KB(a[A_GB]),  OCL_KA(n),       OCL_KA(l),       OCL_KA(tr),
                        eps_karg(&e),     OCL_KA(hw),      OCL_KA(hdx),     OCL_KA(hgw),
                        OCL_KA(hgb) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)o->c * wg, wg, s);
}

static tfl_status run_bwd_reduce(const tfl_batchnorm_op *o, const bn_plan *p, tfl_stream s)
{
    cl_int hs1 = o->sum_dy != NULL, hs2 = o->sum_dy_xmu != NULL;
    cl_int hgw = o->grad_weight != NULL, hgb = o->grad_bias != NULL, hm = o->mean != NULL;
    if (o->c == 0 || !(hs1 || hs2 || hgw || hgb))
        return TFL_OK;
    size_t wg;
    ocl_kernel *k = bn_kernel("bn_bwd_reduce", o->dtype, o->stat_dtype, &wg);
    const ocl_arg *a = p->a;
    cl_long n = o->n, l = o->l;
    ocl_karg args[] = { OCL_KB(a[A_X]),    OCL_KA(p->xs),    OCL_KB(a[A_DY]), OCL_KA(p->dys),
                        OCL_KB(a[A_MEAN]), OCL_KB(a[A_INV]), OCL_KB(a[A_S1]), OCL_KB(a[A_S2]),
                        OCL_KB(a[A_GW]),   OCL_KB(a[A_GB]),  OCL_KA(n),       OCL_KA(l),
                        OCL_KA(hm),        OCL_KA(hs1),      OCL_KA(hs2),     OCL_KA(hgw),
                        OCL_KA(hgb) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)o->c * wg, wg, s);
}

static tfl_status run_bwd_elemt(const tfl_batchnorm_op *o, const bn_plan *p, tfl_stream s)
{
    const int64_t total = o->n * o->c * o->l;
    if (total == 0)
        return TFL_OK;
    size_t wg;
    ocl_kernel *k = bn_kernel("bn_bwd_elemt", o->dtype, o->stat_dtype, &wg);
    const ocl_arg *a = p->a;
    cl_long n = o->n, c = o->c, l = o->l;
    cl_float norm = (cl_float)o->norm;
    cl_int hw = o->weight != NULL;
    ocl_karg args[] = { OCL_KB(a[A_X]),   OCL_KA(p->xs),   OCL_KB(a[A_DY]), OCL_KA(p->dys),
                        OCL_KB(a[A_DX]),  OCL_KA(p->dxs),  OCL_KB(a[A_W]),  OCL_KB(a[A_MEAN]),
                        OCL_KB(a[A_INV]), OCL_KB(a[A_S1]), OCL_KB(a[A_S2]), OCL_KA(n),
                        OCL_KA(c),        OCL_KA(l),       OCL_KA(norm),    OCL_KA(hw) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)total, 0, s);
}

static tfl_status run_gn(const tfl_batchnorm_op *o, tfl_stream s)
{
    ocl_arg a[G_COUNT];
    if (!gn_plan_make(o, a))
        return TFL_ERR_INVALID;
    size_t wg;
    cl_long N = o->gn_n, C = o->gn_c, G = o->gn_g, hxw = o->gn_hxw;
    cl_int hg = o->gn_gamma != NULL, hb = o->gn_beta != NULL, g1 = o->gn_1d != 0;
    cl_int hdg = o->gn_dgamma != NULL, hdb = o->gn_dbeta != NULL;
    if (o->kind == TFL_BN_GN_FUSED_PARAMS) {
        ocl_kernel *k = bn_kernel("gn_fused", TFL_DT_F32, TFL_DT_F32, &wg);
        ocl_karg args[] = { OCL_KB(a[G_MEAN]), OCL_KB(a[G_RSTD]), OCL_KB(a[G_GAMMA]),
                            OCL_KB(a[G_BETA]), OCL_KB(a[G_A]),    OCL_KB(a[G_B]),
                            OCL_KA(N),         OCL_KA(C),         OCL_KA(G),
                            OCL_KA(hg),        OCL_KA(hb) };
        return ocl_launch(k, args, OCL_NARGS(args), (size_t)(N * C), 0, s);
    }
    if (o->kind == TFL_BN_GN_BACKWARD_PARAMS) {
        ocl_kernel *k = bn_kernel("gn_bwd_params", TFL_DT_F32, TFL_DT_F32, &wg);
        ocl_karg args[] = { OCL_KB(a[G_MEAN]), OCL_KB(a[G_RSTD]), OCL_KB(a[G_GAMMA]),
                            OCL_KB(a[G_DS]),   OCL_KB(a[G_DB]),   OCL_KB(a[G_DY]),
                            OCL_KB(a[G_X]),    OCL_KB(a[G_A]),    OCL_KB(a[G_B]),
                            OCL_KA(N),         OCL_KA(C),         OCL_KA(G),
                            OCL_KA(hxw),       OCL_KA(g1),        OCL_KA(hg) };
        return ocl_launch(k, args, OCL_NARGS(args), (size_t)(N * G), 0, s);
    }
    if (!hdg && !hdb)
        return TFL_OK;
    ocl_kernel *k = bn_kernel("gn_gamma_beta", TFL_DT_F32, TFL_DT_F32, &wg);
    ocl_karg args[] = { OCL_KB(a[G_MEAN]), OCL_KB(a[G_RSTD]), OCL_KB(a[G_DS]), OCL_KB(a[G_DB]),
                        OCL_KB(a[G_DY]),   OCL_KB(a[G_X]),    OCL_KB(a[G_DG]), OCL_KB(a[G_DBETA]),
                        OCL_KA(N),         OCL_KA(C),         OCL_KA(G),       OCL_KA(g1),
                        OCL_KA(hdg),       OCL_KA(hdb) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)C, 0, s);
}

/* ------------------------------------------------------------ entry */

int ocl_batchnorm_supported(const tfl_op *op)
{
    if (!ocl_dev() || op->kind != TFL_OP_BATCHNORM)
        return 0;
    const tfl_batchnorm_op *o = &op->u.batchnorm;
    if (o->kind >= TFL_BN_STATS && o->kind <= TFL_BN_BACKWARD_ELEMT) {
        bn_plan p;
        return bn_plan_make(o, &p);
    }
    if (o->kind >= TFL_BN_GN_FUSED_PARAMS && o->kind <= TFL_BN_GN_GAMMA_BETA) {
        ocl_arg a[G_COUNT];
        return gn_plan_make(o, a);
    }
    if (o->kind == TFL_BN_MAP) {
        map_plan p;
        return map_plan_make(o, &p);
    }
    return 0;
}

tfl_status ocl_batchnorm_run(const tfl_op *op, tfl_stream s)
{
    if (!ocl_batchnorm_supported(op))
        return TFL_ERR_INVALID;
    const tfl_batchnorm_op *o = &op->u.batchnorm;
    if (o->kind == TFL_BN_MAP)
        return run_map(o, s);
    if (o->kind >= TFL_BN_GN_FUSED_PARAMS && o->kind <= TFL_BN_GN_GAMMA_BETA)
        return run_gn(o, s);
    bn_plan p;
    bn_plan_make(o, &p);
    switch (o->kind) {
    case TFL_BN_STATS: return run_stats(o, &p, s);
    case TFL_BN_APPLY: return run_apply(o, &p, s);
    case TFL_BN_BACKWARD: return run_backward(o, &p, s);
    case TFL_BN_BACKWARD_REDUCE: return run_bwd_reduce(o, &p, s);
    default: return run_bwd_elemt(o, &p, s);
    }
}

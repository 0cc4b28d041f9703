/*
 * ops_conv.c - the host backend's convolution (TFL_OP_CONV): forward,
 * backward data and backward filter, 1 to 3 spatial dims, any strides
 * (NCHW, channels_last, ...), groups (depthwise included), dilation,
 * asymmetric padding, optional bias; fp32/fp16/bf16 elements with fp32
 * accumulation, fp64 in double.
 *
 * Method: operands not already dense in the compute type are gathered
 * into dense N,C,D,H,W buffers (one pass), then either each (image, group)
 * pair becomes one OpenBLAS GEMM over an im2col matrix, or, for
 * depthwise-like groups, direct loops per channel plane run over the
 * cores; the result is scattered back as alpha * r + beta * out (+ bias)
 * unless it was written in place.  Fewer than 3 spatial dims are run as 3
 * with the leading ones of size 1.  This file holds the type-independent
 * geometry; ops_conv_impl.h the kernels, instantiated for float and
 * double.  Pointers are the caller's to check (the cuDNN intercept and
 * the op-table decoder check them against the device allocations), as
 * for every host op.
 */
#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_conv.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "common/half.h"
#include "common/log.h"

/* The op's geometry with the spatial dims padded to 3 (leading 1s). */
typedef struct cv_geom {
    int64_t n, c, k, g, cg, kg;      /* batch, channels in/out, groups     */
    int64_t in[3], out[3], ker[3];   /* spatial sizes: x, y, w             */
    int64_t pad[3], str[3], dil[3];
    int flip;                        /* CUDNN_CONVOLUTION: kernel reversed */
    int64_t ip, op, kk;              /* in/out pixels, kernel taps         */
} cv_geom;

static int64_t cv_elems(const tfl_conv_tensor *t, int nd)
{
    int64_t e = 1;
    for (int i = 0; i < nd; i++)
        e *= t->dims[i];
    return e;
}

static int cv_geom_fill(const tfl_conv_op *op, cv_geom *g)
{
    int sp = op->spatial;
    if (sp < 1 || sp > TFL_CONV_MAX_SPATIAL)
        return 0;
    memset(g, 0, sizeof *g);
    g->n = op->x.dims[0];
    g->c = op->x.dims[1];
    g->k = op->w.dims[0];
    if (op->y.dims[0] != g->n || op->y.dims[1] != g->k || op->w.dims[1] <= 0)
        return 0;
    g->g = op->groups;
    if (g->g <= 0 || g->c != g->g * op->w.dims[1] || g->k % g->g != 0)
        return 0;
    g->cg = g->c / g->g;
    g->kg = g->k / g->g;
    g->flip = !op->cross_correlation;
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - sp);         /* index into the op's spatial dims */
        if (j < 0) {
            g->in[i] = g->out[i] = g->ker[i] = 1;
            g->str[i] = g->dil[i] = 1;
            continue;
        }
        g->in[i] = op->x.dims[2 + j];
        g->out[i] = op->y.dims[2 + j];
        g->ker[i] = op->w.dims[2 + j];
        g->pad[i] = op->pad_pre[j];
        g->str[i] = op->stride[j];
        g->dil[i] = op->dilation[j];
        if (g->in[i] < 0 || g->ker[i] <= 0 || g->str[i] <= 0 || g->dil[i] <= 0 ||
            g->pad[i] < 0 || op->pad_post[j] < 0)
            return 0;
        int64_t span = g->in[i] + g->pad[i] + op->pad_post[j] - g->dil[i] * (g->ker[i] - 1) - 1;
        int64_t want = span < 0 ? 0 : span / g->str[i] + 1;
        if (g->out[i] != want)
            return 0;
    }
    if (g->n < 0 || g->c <= 0 || g->k <= 0)
        return 0;
    g->ip = g->in[0] * g->in[1] * g->in[2];
    g->op = g->out[0] * g->out[1] * g->out[2];
    g->kk = g->ker[0] * g->ker[1] * g->ker[2];
    return 1;
}

int host_conv_supported(const tfl_conv_op *op)
{
    cv_geom g;
    if (op->mode != TFL_CONV_FWD && op->mode != TFL_CONV_BWD_DATA &&
        op->mode != TFL_CONV_BWD_FILTER)
        return 0;
    if (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F16 && op->dtype != TFL_DT_BF16 &&
        op->dtype != TFL_DT_F64)
        return 0;
    if (op->z.data || op->relu) {
        /* the fused epilogue is a forward thing; z is shaped like y */
        if (op->mode != TFL_CONV_FWD)
            return 0;
        for (int i = 0; op->z.data && i < 2 + op->spatial && i < 2 + TFL_CONV_MAX_SPATIAL; i++)
            if (op->z.dims[i] != op->y.dims[i])
                return 0;
    }
    return cv_geom_fill(op, &g);
}

int host_conv_force_path;

/* ---------------------------------------------- element access */

static inline float cv_load(tfl_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case TFL_DT_F16: return tfl_f16_to_f32(((const uint16_t *)p)[i]);
    case TFL_DT_BF16: return tfl_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

static inline void cv_store(tfl_dtype dt, void *p, int64_t i, float v)
{
    switch (dt) {
    case TFL_DT_F16: ((uint16_t *)p)[i] = tfl_f32_to_f16(v); break;
    case TFL_DT_BF16: ((uint16_t *)p)[i] = tfl_f32_to_bf16(v); break;
    default: ((float *)p)[i] = v; break;
    }
}

static inline double cv_load_f64(tfl_dtype dt, const void *p, int64_t i)
{
    (void)dt;
    return ((const double *)p)[i];
}

static inline void cv_store_f64(tfl_dtype dt, void *p, int64_t i, double v)
{
    (void)dt;
    ((double *)p)[i] = v;
}

/* The 5 dims/strides of t with the spatial ones padded to 3. */
static void cv_dims5(const tfl_conv_tensor *t, int sp, int64_t d[5], int64_t s[5])
{
    d[0] = t->dims[0]; s[0] = t->strides[0];
    d[1] = t->dims[1]; s[1] = t->strides[1];
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - sp);
        d[2 + i] = j < 0 ? 1 : t->dims[2 + j];
        s[2 + i] = j < 0 ? 0 : t->strides[2 + j];
    }
}

/* Input coordinate of output o and kernel tap t along dim i; may fall in
 * the padding (outside [0, in)). */
static inline int64_t cv_coord(const cv_geom *g, int i, int64_t o, int64_t t)
{
    int64_t tap = g->flip ? g->ker[i] - 1 - t : t;
    return o * g->str[i] - g->pad[i] + tap * g->dil[i];
}

/* Along dim i, kernel tap t reads input o * stride + *off for output o;
 * the outputs whose input is inside [0, in) are [*lo, *hi). */
static inline void cv_range(const cv_geom *g, int i, int64_t t, int64_t *lo, int64_t *hi,
                            int64_t *off)
{
    int64_t tap = g->flip ? g->ker[i] - 1 - t : t;
    int64_t o = tap * g->dil[i] - g->pad[i], s = g->str[i];
    int64_t l = o >= 0 ? 0 : (-o + s - 1) / s;
    int64_t h = g->in[i] - 1 - o < 0 ? 0 : (g->in[i] - 1 - o) / s + 1;
    if (h > g->out[i])
        h = g->out[i];
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
    *off = o;
}

/* Is t dense N,C,spatial (row-major, no gaps)?  Size-1 dims' strides do
 * not matter. */
static int cv_dense(const tfl_conv_tensor *t, int nd)
{
    int64_t want = 1;
    for (int i = nd - 1; i >= 0; i--) {
        if (t->dims[i] != 1 && t->strides[i] != want)
            return 0;
        want *= t->dims[i];
    }
    return 1;
}

/* A 1x1 kernel with unit stride and no padding reads x as it is. */
static int cv_identity_cols(const cv_geom *g)
{
    for (int i = 0; i < 3; i++)
        if (g->ker[i] != 1 || g->str[i] != 1 || g->pad[i] != 0 || g->in[i] != g->out[i])
            return 0;
    return 1;
}

/* Unit strides: with the input plane copied into a zero-padded buffer
 * (extent e = out + dil * (k - 1) per dim), output (o0, o1, o2) and tap t
 * read padded element o + shift(t), so with outputs laid out at the
 * padded pitch every tap is ONE contiguous loop over the whole plane
 * (the columns past out2 / rows past out1 are computed and ignored, or
 * held at zero on the gradient side).  Much longer loops than a row. */
typedef struct cv_flat {
    int64_t e[3], pitch1, pitch0, len, size;   /* padded extents, strides   */
} cv_flat;

static int cv_flat_ok(const cv_geom *g, cv_flat *f)
{
    for (int i = 0; i < 3; i++) {
        if (g->str[i] != 1)
            return 0;
        f->e[i] = g->out[i] + g->dil[i] * (g->ker[i] - 1);
    }
    f->pitch1 = f->e[2];
    f->pitch0 = f->e[1] * f->e[2];
    f->size = f->e[0] * f->pitch0;
    f->len = (g->out[0] - 1) * f->pitch0 + (g->out[1] - 1) * f->pitch1 + g->out[2];
    return g->op > 0;
}

/* Flat offset of tap (t0, t1, t2) (flipped for CUDNN_CONVOLUTION). */
static inline int64_t cv_flat_shift(const cv_geom *g, const cv_flat *f, int64_t t0, int64_t t1, int64_t t2)
{
    if (g->flip) {
        t0 = g->ker[0] - 1 - t0;
        t1 = g->ker[1] - 1 - t1;
        t2 = g->ker[2] - 1 - t2;
    }
    return t0 * g->dil[0] * f->pitch0 + t1 * g->dil[1] * f->pitch1 + t2 * g->dil[2];
}

/* ----------------------------------------- the typed instances */

#define CV_T float
#define CV_FN(name) name##_f32
#define CV_GEMM cblas_sgemm
#define CV_NATIVE TFL_DT_F32
#define CV_LOAD cv_load
#define CV_STORE cv_store
#include "backends/host/ops_conv_impl.h"
#undef CV_T
#undef CV_FN
#undef CV_GEMM
#undef CV_NATIVE
#undef CV_LOAD
#undef CV_STORE

#define CV_T double
#define CV_FN(name) name##_f64
#define CV_GEMM cblas_dgemm
#define CV_NATIVE TFL_DT_F64
#define CV_LOAD cv_load_f64
#define CV_STORE cv_store_f64
#include "backends/host/ops_conv_impl.h"

tfl_status host_conv(const tfl_conv_op *op)
{
    cv_geom g;
    if (!host_conv_supported(op) || !cv_geom_fill(op, &g)) {
        tfl_error("conv: unsupported or inconsistent convolution (mode %d, dtype %d)",
                  (int)op->mode, (int)op->dtype);
        return TFL_ERR_UNSUPPORTED;
    }
    int nd = 2 + op->spatial;
    if (g.op == 0 || g.ip == 0) {
        /* no output pixel reads an input one: every sum is empty */
        g.n = 0;
    }
    return op->dtype == TFL_DT_F64 ? cv_run_f64(op, &g, nd) : cv_run_f32(op, &g, nd);
}

/*
 * ops_conv.c - the host backend's convolution (TFL_OP_CONV): forward,
 * backward data and backward filter, 1 to 3 spatial dims, any strides
 * (NCHW, channels_last, ...), groups (depthwise included), dilation,
 * asymmetric padding, fp32/fp16/bf16 elements with fp32 accumulation.
 *
 * Method: operands are gathered into dense fp32 N,C,D,H,W buffers (so a
 * strided or half-precision layout costs one pass), each (image, group)
 * pair becomes one OpenBLAS sgemm over an im2col matrix, and the result
 * is scattered back as alpha * r + beta * out.  Fewer than 3 spatial dims
 * are run as 3 with the leading ones of size 1.  Pointers are the
 * caller's to check (the cuDNN intercept checks them against the device
 * allocations), as for every host op.
 */
#include "backends/host/host_ops.h"

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
    if (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F16 && op->dtype != TFL_DT_BF16)
        return 0;
    return cv_geom_fill(op, &g);
}

/* ------------------------------------------------- gather and scatter */

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

/* t (strided, op dtype) -> dense fp32 in N,C,D,H,W order. */
static void cv_gather(const tfl_conv_tensor *t, int sp, tfl_dtype dt, float *restrict dst)
{
    int64_t d[5], s[5];
    cv_dims5(t, sp, d, s);
    int64_t w = d[4];
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++)
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t y = 0; y < d[3]; y++) {
                    int64_t base = a * s[0] + b * s[1] + z * s[2] + y * s[3];
                    if (dt == TFL_DT_F32 && s[4] == 1) {
                        memcpy(dst, (const float *)t->data + base, (size_t)w * sizeof(float));
                    } else {
                        for (int64_t x = 0; x < w; x++)
                            dst[x] = cv_load(dt, t->data, base + x * s[4]);
                    }
                    dst += w;
                }
}

/* out = alpha * r + beta * out (+ bias[channel]) over t's layout (beta 0:
 * out not read; bias NULL: none). */
static void cv_scatter(const tfl_conv_tensor *t, int sp, tfl_dtype dt, const float *restrict r,
                       float alpha, float beta, const void *bias)
{
    int64_t d[5], s[5];
    cv_dims5(t, sp, d, s);
    int64_t w = d[4];
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++) {
            const float bv = bias ? cv_load(dt, bias, b) : 0.0f;
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t y = 0; y < d[3]; y++) {
                    int64_t base = a * s[0] + b * s[1] + z * s[2] + y * s[3];
                    if (dt == TFL_DT_F32 && s[4] == 1) {
                        float *restrict o = (float *)t->data + base;
                        if (beta == 0.0f)
                            for (int64_t x = 0; x < w; x++)
                                o[x] = alpha * r[x] + bv;
                        else
                            for (int64_t x = 0; x < w; x++)
                                o[x] = alpha * r[x] + beta * o[x] + bv;
                    } else {
                        for (int64_t x = 0; x < w; x++) {
                            int64_t i = base + x * s[4];
                            float v = alpha * r[x];
                            if (beta != 0.0f)
                                v += beta * cv_load(dt, t->data, i);
                            cv_store(dt, t->data, i, v + bv);
                        }
                    }
                    r += w;
                }
        }
}

/* ------------------------------------------------------ im2col/col2im */

/* Input coordinate of output o and kernel tap t along dim i; may fall in
 * the padding (outside [0, in)). */
static inline int64_t cv_coord(const cv_geom *g, int i, int64_t o, int64_t t)
{
    int64_t tap = g->flip ? g->ker[i] - 1 - t : t;
    return o * g->str[i] - g->pad[i] + tap * g->dil[i];
}

/* col[(c * kk + tap) * op + pixel] = x[c][input of (pixel, tap)], 0 in
 * the padding; x holds cg channels of one image. */
static void cv_im2col(const cv_geom *g, const float *restrict x, float *restrict col)
{
    for (int64_t c = 0; c < g->cg; c++) {
        const float *xc = x + c * g->ip;
        for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
            for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
                for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                    for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                        int64_t i0 = cv_coord(g, 0, o0, t0);
                        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                            int64_t i1 = cv_coord(g, 1, o1, t1);
                            float *restrict dst = col;
                            col += g->out[2];
                            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1]) {
                                memset(dst, 0, (size_t)g->out[2] * sizeof(float));
                                continue;
                            }
                            const float *row = xc + (i0 * g->in[1] + i1) * g->in[2];
                            for (int64_t o2 = 0; o2 < g->out[2]; o2++) {
                                int64_t i2 = cv_coord(g, 2, o2, t2);
                                dst[o2] = (i2 >= 0 && i2 < g->in[2]) ? row[i2] : 0.0f;
                            }
                        }
                    }
                }
    }
}

/* The adjoint of cv_im2col: x[c][input] += col[...] (x pre-zeroed). */
static void cv_col2im(const cv_geom *g, const float *restrict col, float *restrict x)
{
    for (int64_t c = 0; c < g->cg; c++) {
        float *xc = x + c * g->ip;
        for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
            for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
                for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                    for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                        int64_t i0 = cv_coord(g, 0, o0, t0);
                        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                            int64_t i1 = cv_coord(g, 1, o1, t1);
                            const float *src = col;
                            col += g->out[2];
                            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1])
                                continue;
                            float *row = xc + (i0 * g->in[1] + i1) * g->in[2];
                            for (int64_t o2 = 0; o2 < g->out[2]; o2++) {
                                int64_t i2 = cv_coord(g, 2, o2, t2);
                                if (i2 >= 0 && i2 < g->in[2])
                                    row[i2] += src[o2];
                            }
                        }
                    }
                }
    }
}

/* A 1x1 kernel with unit stride and no padding reads x as it is. */
static int cv_identity_cols(const cv_geom *g)
{
    for (int i = 0; i < 3; i++)
        if (g->ker[i] != 1 || g->str[i] != 1 || g->pad[i] != 0 || g->in[i] != g->out[i])
            return 0;
    return 1;
}

/* ------------------------------------------------------------ the op */

static void cv_forward(const cv_geom *g, const float *x, const float *w, float *y, float *col)
{
    int ident = cv_identity_cols(g);
    int64_t rows = g->cg * g->kk;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->g; gi++) {
            const float *xg = x + (n * g->c + gi * g->cg) * g->ip;
            const float *cols = xg;
            if (!ident) {
                cv_im2col(g, xg, col);
                cols = col;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->kg, (int)g->op,
                        (int)rows, 1.0f, w + gi * g->kg * rows, (int)rows, cols, (int)g->op,
                        0.0f, y + (n * g->k + gi * g->kg) * g->op, (int)g->op);
        }
}

static void cv_backward_data(const cv_geom *g, float *dx, const float *w, const float *dy, float *col)
{
    int ident = cv_identity_cols(g);
    int64_t rows = g->cg * g->kk;
    memset(dx, 0, (size_t)(g->n * g->c * g->ip) * sizeof(float));
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->g; gi++) {
            float *dxg = dx + (n * g->c + gi * g->cg) * g->ip;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)g->op,
                        (int)g->kg, 1.0f, w + gi * g->kg * rows, (int)rows,
                        dy + (n * g->k + gi * g->kg) * g->op, (int)g->op,
                        0.0f, ident ? dxg : col, (int)g->op);
            if (!ident)
                cv_col2im(g, col, dxg);
        }
}

static void cv_backward_filter(const cv_geom *g, const float *x, float *dw, const float *dy, float *col)
{
    int ident = cv_identity_cols(g);
    int64_t rows = g->cg * g->kk;
    memset(dw, 0, (size_t)(g->k * rows) * sizeof(float));
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->g; gi++) {
            const float *xg = x + (n * g->c + gi * g->cg) * g->ip;
            const float *cols = xg;
            if (!ident) {
                cv_im2col(g, xg, col);
                cols = col;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->kg, (int)rows,
                        (int)g->op, 1.0f, dy + (n * g->k + gi * g->kg) * g->op, (int)g->op,
                        cols, (int)g->op, 1.0f, dw + gi * g->kg * rows, (int)rows);
        }
}

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
    int64_t nx = cv_elems(&op->x, nd), nw = cv_elems(&op->w, nd), ny = cv_elems(&op->y, nd);
    int64_t ncol = g.cg * g.kk * g.op;
    float *x = malloc((size_t)(nx ? nx : 1) * sizeof(float));
    float *w = malloc((size_t)(nw ? nw : 1) * sizeof(float));
    float *y = malloc((size_t)(ny ? ny : 1) * sizeof(float));
    float *col = malloc((size_t)(ncol ? ncol : 1) * sizeof(float));
    tfl_status st = TFL_OK;
    if (!x || !w || !y || !col) {
        tfl_error("conv: out of host memory for %lld-element buffers", (long long)ncol);
        st = TFL_ERR_NOMEM;
        goto out;
    }
    float alpha = (float)op->alpha, beta = (float)op->beta;
    switch (op->mode) {
    case TFL_CONV_FWD:
        cv_gather(&op->x, op->spatial, op->dtype, x);
        cv_gather(&op->w, op->spatial, op->dtype, w);
        cv_forward(&g, x, w, y, col);
        cv_scatter(&op->y, op->spatial, op->dtype, y, alpha, beta, op->bias);
        break;
    case TFL_CONV_BWD_DATA:
        cv_gather(&op->w, op->spatial, op->dtype, w);
        cv_gather(&op->y, op->spatial, op->dtype, y);
        cv_backward_data(&g, x, w, y, col);
        cv_scatter(&op->x, op->spatial, op->dtype, x, alpha, beta, NULL);
        break;
    case TFL_CONV_BWD_FILTER:
        cv_gather(&op->x, op->spatial, op->dtype, x);
        cv_gather(&op->y, op->spatial, op->dtype, y);
        cv_backward_filter(&g, x, w, y, col);
        cv_scatter(&op->w, op->spatial, op->dtype, w, alpha, beta, NULL);
        break;
    }
out:
    free(x);
    free(w);
    free(y);
    free(col);
    return st;
}

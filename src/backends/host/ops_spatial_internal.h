/*
 * ops_spatial_internal.h - what the host "spatial" op's files share
 * (ops_spatial.c: generic kernels, dispatch, index maps, roll;
 * ops_spatial_f32.c: float32 NCHW fast paths; ops_spatial_nhwc.c:
 * channels_last): element access, window arithmetic, the work record.
 * Private to src/backends/host/ops_spatial*.c.
 */
#ifndef TFL_OPS_SPATIAL_INTERNAL_H
#define TFL_OPS_SPATIAL_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "backends/host/ops_elementwise_fp16.h"
#include "torchfl/backend.h"

#define INLINE static inline __attribute__((always_inline))

/* Element i of p as double / stored from double (dt is a constant at
 * every call, so each dtype's loop is specialised when inlined). */
INLINE double ld(const void *p, int64_t i, tfl_dtype dt)
{
    switch (dt) {
    case TFL_DT_F64: return ((const double *)p)[i];
    case TFL_DT_F16: return tfl_half_to_float(((const uint16_t *)p)[i]);
    case TFL_DT_BF16: return tfl_bf16_to_float(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}

INLINE void st(void *p, int64_t i, tfl_dtype dt, double v)
{
    switch (dt) {
    case TFL_DT_F64: ((double *)p)[i] = v; break;
    case TFL_DT_F16: ((uint16_t *)p)[i] = tfl_float_to_half((float)v); break;
    case TFL_DT_BF16: ((uint16_t *)p)[i] = tfl_float_to_bf16((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

/* Index maps of the resize ops, computed once per op. */
typedef struct rmap {
    int64_t *h0, *h1, *w0, *w1;   /* bilinear taps; nearest: [h0, h1) ranges */
    double *hl, *wl;              /* bilinear: weight of the second tap */
    double *hl0, *wl0;            /* and of the first (1 - that, in the kernel's type) */
} rmap;

typedef struct sp_work {
    const tfl_spatial_op *op;
    int64_t planes, per_part;
    int by_image;                 /* channels_last: work unit = image */
    rmap m;
    atomic_int status;
} sp_work;

/* Element offset of plane p of a tensor with strides s. */
static inline int64_t plane_off(const tfl_spatial_op *op, const int64_t *s, int64_t p)
{
    return (p / op->c) * s[0] + (p % op->c) * s[1];
}

/* Clipped window of output position o along one axis and its divisor
 * share: returns 0 for an empty window. */
static inline int avg_window(int64_t o, int k, int s, int pad, int64_t size,
                      int64_t *lo, int64_t *hi, int64_t *full)
{
    int64_t a = o * s - pad, b = a + k;
    if (b > size + pad) b = size + pad;
    *full = b - a;
    if (a < 0) a = 0;
    if (b > size) b = size;
    *lo = a;
    *hi = b;
    return a < b;
}

static inline double avg_divisor(const tfl_spatial_op *op, int64_t fh, int64_t fw,
                          int64_t hs, int64_t he, int64_t ws, int64_t we)
{
    if (op->divisor_override)
        return (double)op->divisor_override;
    return op->count_include_pad ? (double)(fh * fw) : (double)((he - hs) * (we - ws));
}

static inline int hsp_is_backward(tfl_spatial_kind k)
{
    return k == TFL_SPATIAL_MAX_BWD || k == TFL_SPATIAL_AVGPOOL_BWD ||
           k == TFL_SPATIAL_ADAPTIVE_AVG_BWD || k == TFL_SPATIAL_NEAREST_BWD ||
           k == TFL_SPATIAL_BILINEAR_BWD;
}

/* ops_spatial.c: one plane of w->op, any dtype and layout (fast paths
 * first); 0 on a bad max index.  g: in_h*in_w doubles for backward
 * kinds; row: 2*out_w words for the float32 max/avg pool, or NULL. */
int hsp_plane(sp_work *w, int64_t p, double *g, void *row);

/* ops_spatial_f32.c: float32 planes with unit w strides. */
int hsp_maxpool_fast(const tfl_spatial_op *op);   /* contiguous NCHW max pool? */
void hsp_maxpool_plane_f32(const tfl_spatial_op *op, int64_t p, void *row);
void hsp_avgpool_plane_f32(const tfl_spatial_op *op, int64_t p, void *row);
void hsp_bilinear_plane_f32(const tfl_spatial_op *op, const rmap *m, int64_t p);
int hsp_maxbwd_plane_f32(const tfl_spatial_op *op, int64_t p);
void hsp_avgbwd_plane_f32(const tfl_spatial_op *op, int64_t p);
void hsp_resizebwd_plane_f32(const tfl_spatial_op *op, const rmap *m, int64_t p);

/* ops_spatial_nhwc.c: image n of a channels_last op; scratch xin holds
 * c * max(in_h*in_w, 4) elements, xout c*out_h*out_w, xind the same
 * int64s (max pools). */
int hsp_image_nhwc(sp_work *w, int64_t n, double *g, char *xin, char *xout, int64_t *xind);

/* 3-D max pooling and its backward (ops_spatial3d.c). */
int hsp_3d_supported(const tfl_spatial_op *op);
tfl_status hsp_3d(const tfl_spatial_op *op);

/* Bicubic 2-D resize and its adjoint (ops_spatial_bicubic.c). */
int hsp_bicubic_supported(const tfl_spatial_op *op);
tfl_status hsp_bicubic(const tfl_spatial_op *op);

#endif

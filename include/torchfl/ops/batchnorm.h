/*
 * torchfl/ops/batchnorm.h - the "batchnorm" op of the backend ABI: batch
 * norm (training statistics, running-statistics update, normalisation,
 * backward) and group norm (row moments, fused scale/shift, backward),
 * plus the few pointwise maps those ops are built from.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_BATCHNORM reads this struct.
 *
 * Batch-norm layout: x (and y, dy, dx) is viewed as a 3-d array
 * [n][c][l] with its own element strides per operand (x_stride[0..2]...),
 * so NCHW tensors (n, c, h*w), channels-last ones (n*h*w, c, 1) and group
 * norm rows (1, rows, cols) all fit.  Statistics are one float per
 * channel c.  Accumulations are at least float; a backend may use double.
 */
#ifndef TORCHFL_OPS_BATCHNORM_H
#define TORCHFL_OPS_BATCHNORM_H

#include <stddef.h>
#include <stdint.h>

#define TFL_BN_MAP_DIMS 8
#define TFL_BN_MAP_OPERANDS 8

typedef enum tfl_bn_kind {
    /* mean[c] = mean of x[.][c][.]; var (biased) into out2[c] as
     * stats_mode says.  mean may be NULL. */
    TFL_BN_STATS = 1,
    /* y = (x - mean[c]) * s[c] * w[c] + b[c], s = invstd[c] (or, with
     * from_var, 1 / sqrt(invstd[c] + eps)); weight/bias NULL = 1/0. */
    TFL_BN_APPLY = 2,
    /* The fused backward: mu, s = mean/invstd (train) or running_mean and
     * 1/sqrt(running_var + eps) (!train); g = weight (NULL = 1);
     * S1 = sum dy, S2 = sum dy * (x - mu) over the channel; cnt = n*l.
     * dx = train ? (dy - S1/cnt - (x - mu) * s*s*S2/cnt) * s*g : dy * s*g
     * (dx NULL = skip); grad_weight = S2 * s, grad_bias = S1 (NULL = skip). */
    TFL_BN_BACKWARD = 3,
    /* S1, S2 as above with mu = mean[c] (mean NULL = 0), s = invstd[c]:
     * sum_dy = S1, sum_dy_xmu = S2, grad_weight = S2 * s, grad_bias = S1;
     * any may be NULL. */
    TFL_BN_BACKWARD_REDUCE = 4,
    /* dx = (dy - sum_dy*norm - (x - mean) * invstd^2 * sum_dy_xmu*norm)
     *      * invstd * w   (w = weight, NULL = 1). */
    TFL_BN_BACKWARD_ELEMT = 5,
    /* Group norm, rows n*G of D channels:  a[n][c] = rstd[ng] * gamma[c],
     * b[n][c] = -a * mean[ng] + beta[c]  (gamma/beta NULL = 1/0). */
    TFL_BN_GN_FUSED_PARAMS = 6,
    /* Group norm backward coefficients per (n, g): with
     * s1 = sum_c ds[n][c]*gamma[c], s2 = sum_c db[n][c]*gamma[c] over the
     * group's channels and s = 1 / (D * hxw):
     *   c2 = (s2 * mean - s1) * rstd^3 * s,  c3 = -c2 * mean - s2 * rstd * s.
     * gn_1d: hxw = 1 and ds = dy * x, db = dy are read from dy and x. */
    TFL_BN_GN_BACKWARD_PARAMS = 7,
    /* dgamma[c] = sum_n (ds[n][c] - db[n][c] * mean[ng]) * rstd[ng],
     * dbeta[c] = sum_n db[n][c]; either may be NULL; gn_1d as above. */
    TFL_BN_GN_GAMMA_BETA = 8,
    /* A pointwise map over strided operands (see tfl_bn_map_code). */
    TFL_BN_MAP = 9,
} tfl_bn_kind;

/* TFL_BN_STATS: what goes into out2. */
typedef enum tfl_bn_stats_mode {
    TFL_BN_STATS_VAR = 0,      /* biased variance                          */
    TFL_BN_STATS_INVSTD = 1,   /* 1/sqrt(var + eps); 0 when var == eps == 0 */
    TFL_BN_STATS_RSTD = 2,     /* 1/sqrt(var + eps) always                  */
} tfl_bn_stats_mode;

/* TFL_BN_MAP formulas; outputs first, then inputs, as listed.  All float. */
typedef enum tfl_bn_map_code {
    /* out = 1/sqrt(a + p0) */
    TFL_BN_MAP_RSQRT_EPS = 1,
    /* outs (rm, rv[, invstd]); ins (mean, var, rm, rv); p0 = bessel
     * factor, p1 = momentum, p2 = eps:  rm = mean*p1 + (1-p1)*rm,
     * rv = var*p0*p1 + (1-p1)*rv, invstd = 1/sqrt(var + p2). */
    TFL_BN_MAP_UPDATE_STATS = 2,
    /* out = (x - m) * r [* g] [+ b]; ins (x, m, r[, g][, b]); map_flags
     * bit 0: g present, bit 1: b present. */
    TFL_BN_MAP_NORM = 3,
    /* out = a * x + b; ins (x, a, b). */
    TFL_BN_MAP_AFFINE = 4,
    /* out = c1 * dy + c2 * x + c3; ins (dy, x, c1, c2, c3); map_flags bit
     * 0: c1 is the product of two inputs, ins (dy, x, c1a, c1b, c2, c3). */
    TFL_BN_MAP_AFFINE3 = 5,
    /* out = product of all inputs (1..3). */
    TFL_BN_MAP_MUL = 6,
    /* batch norm training backward, ins (dy, x, w, mean, invstd, xmu, sdy),
     * p0 = norm:  (dy - sdy*p0 - (x - mean) * invstd^2*xmu*p0) * w*invstd */
    TFL_BN_MAP_BWD_TRAIN = 7,
} tfl_bn_map_code;

typedef struct tfl_batchnorm_op {
    tfl_bn_kind kind;
    tfl_dtype dtype;            /* of x, y, dy, dx: F32, F16 or BF16         */
    /* ---- batch norm view: [n][c][l], element strides per operand */
    int64_t n, c, l;
    const void *x, *dy;
    void *y, *dx;
    int64_t x_stride[3], y_stride[3], dy_stride[3], dx_stride[3];
    const float *weight, *bias;
    float *mean, *invstd;       /* in or out as the kind says               */
    float *out2;                /* TFL_BN_STATS: var / invstd               */
    const float *running_mean, *running_var;
    float *sum_dy, *sum_dy_xmu;
    float *grad_weight, *grad_bias;
    int stats_mode;             /* tfl_bn_stats_mode                        */
    int from_var;               /* TFL_BN_APPLY                             */
    int train;                  /* TFL_BN_BACKWARD                          */
    double eps, norm;
    /* ---- group norm: N batches, C channels in G groups, hxw per channel */
    int64_t gn_n, gn_c, gn_g, gn_hxw;
    int gn_1d;
    const float *gn_mean, *gn_rstd, *gn_gamma, *gn_beta;
    const float *gn_ds, *gn_db, *gn_dy, *gn_x;
    float *gn_a, *gn_b;         /* FUSED_PARAMS: a, b; BACKWARD_PARAMS: c2, c3 */
    float *gn_dgamma, *gn_dbeta;
    /* ---- TFL_BN_MAP: operands [0, nout) outputs, then nin inputs; shape
     * dimension 0 fastest; byte strides (0 = broadcast). */
    int map_code, map_flags, nout, nin, ndim;
    int64_t shape[TFL_BN_MAP_DIMS];
    void *data[TFL_BN_MAP_OPERANDS];
    int64_t strides[TFL_BN_MAP_OPERANDS][TFL_BN_MAP_DIMS];
    double param[3];
    /* ---- appended: element types (0 = TFL_DT_F32).  stat_dtype is that
     * of weight, bias, running_mean, running_var, grad_weight, grad_bias
     * (F32, F16 or BF16; mean, invstd, out2, sum_dy, sum_dy_xmu are always
     * float); map_dtype[k] that of TFL_BN_MAP operand k (the formula is
     * computed in float).  Group norm kinds are float only. */
    tfl_dtype stat_dtype;
    tfl_dtype map_dtype[TFL_BN_MAP_OPERANDS];
} tfl_batchnorm_op;

#endif

/*
 * torchfl/ops/distance.h - the "distance" op of the backend ABI: pairwise
 * p-norm distances between rows (torch.cdist, F.pdist) and the per-element
 * gradient terms of their backward passes.
 *
 * Part of the contract in torchfl/backend.h (included from there).  All
 * tensors are contiguous, of element type `dtype` (float32 or float64),
 * and the arithmetic is done in that type.  With d = |a - b| per column:
 *   ZERO: sum(d != 0)   ONE: sum(d)   TWO: sqrt(sum(d^2))
 *   INF: max(d)         P: sum(d^p)^(1/p)
 * Backward terms for diff = a - b, g the output gradient, r the distance
 * (LT_TWO is the P form PyTorch uses for p < 2):
 *   ONE: g sign(diff)     TWO: r == 0 ? 0 : g diff / r
 *   INF: g sign(diff) (|diff| == r)
 *   P: r == 0 ? 0 : diff |diff|^(p-2) g / r^(p-1)
 *   LT_TWO: r == 0 || (diff == 0 && p < 1) ? 0 : sign(diff) |diff|^(p-1) g / r^(p-1)
 */
#ifndef TORCHFL_OPS_DISTANCE_H
#define TORCHFL_OPS_DISTANCE_H

#include <stdint.h>

typedef enum tfl_distance_kind {
    TFL_DIST_CDIST = 0,      /* out[l][i][j] = dist(x1[l][i], x2[l][j])       */
    TFL_DIST_PDIST,          /* out[k], k-th pair i < j of x1's rows, row-major */
    TFL_DIST_CDIST_BACKWARD, /* out[l][j][i][c] = term(x1[l][i][c] - x2[l][j][c],
                                grad[l][i][j], dist[l][i][j])                  */
    TFL_DIST_PDIST_BACKWARD  /* k-th pair (i, j): out[j-i-1][i][c] = t,
                                out[n-2-i][j][c] = -t, t = term(x1[i][c] -
                                x1[j][c], grad[k * grad_stride], dist[k])      */
} tfl_distance_kind;

typedef enum tfl_distance_norm {
    TFL_DIST_ZERO = 0, TFL_DIST_ONE, TFL_DIST_TWO, TFL_DIST_INF, TFL_DIST_P, TFL_DIST_LT_TWO
} tfl_distance_norm;

typedef struct tfl_distance_op {
    int kind;                /* tfl_distance_kind                          */
    int norm;                /* tfl_distance_norm                          */
    int dtype;               /* tfl_dtype: F32 or F64                      */
    double p;
    void *out;
    const void *x1, *x2;     /* x2 unused by pdist                         */
    const void *grad, *dist; /* backward only                              */
    int64_t batch;           /* cdist: leading batch (1 if none)           */
    int64_t r1, r2, m;       /* rows of x1 / x2, columns; pdist: n = r1    */
    int64_t grad_stride;     /* pdist backward, elements                   */
} tfl_distance_op;

#endif

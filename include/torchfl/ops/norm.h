/*
 * torchfl/ops/norm.h - the "norm" op of the backend ABI: layer norm (and
 * RMS norm) over the last dimension, forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_NORM reads this struct.
 *
 * Layout: `rows` rows of `cols` elements, row-major and contiguous (x, y,
 * dy, dx); gamma, beta, dgamma, dbeta have `cols` elements, all of `dtype`
 * (F32, F16 or BF16: a backend computes in float and rounds results to
 * nearest even); mean and rstd
 * have one float per row (the statistics are kept in float, as the
 * frameworks' accumulate type for float/half/bfloat16).
 */
#ifndef TORCHFL_OPS_NORM_H
#define TORCHFL_OPS_NORM_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_norm_kind {
    /* y = (x - mean) * rstd * gamma + beta; writes mean and rstd too.
     * rstd = 1 / sqrt(var + eps), var the biased variance of the row. */
    TFL_NORM_FWD = 1,
    /* mean and rstd only. */
    TFL_NORM_FWD_STATS = 2,
    /* y from x and the given mean and rstd (gamma/beta may be NULL). */
    TFL_NORM_FWD_APPLY = 3,
    /* dx from dy, x, mean, rstd, gamma (NULL = ones). */
    TFL_NORM_BWD_INPUT = 4,
    /* dgamma = sum over rows of dy * (x - mean) * rstd, dbeta = sum of dy,
     * into `parts` partial rows (see tile_* below); either may be NULL. */
    TFL_NORM_BWD_PARAMS = 5,
} tfl_norm_kind;

typedef struct tfl_norm_op {
    tfl_norm_kind kind;
    tfl_dtype dtype;          /* of x, y, gamma, beta, dy, dx, dgamma, dbeta */
    int rms;                  /* RMS norm: no mean (not read, not written,
                               * may be NULL), no beta/dbeta */
    int64_t rows, cols;
    double eps;
    const void *x, *gamma, *beta, *dy;
    void *y, *dx, *dgamma, *dbeta;
    float *mean, *rstd;
    /* TFL_NORM_BWD_PARAMS: dgamma/dbeta hold `tile_count * tile_parts`
     * rows of `cols` partial sums (1 row = the full sum); input row m adds
     * into partial row
     *   ((m / tile_rows) % tile_count) * tile_parts
     *     + (m % tile_rows) / (tile_rows / tile_parts).
     * tile_rows must be a multiple of tile_parts. */
    int64_t tile_rows, tile_count, tile_parts;
} tfl_norm_op;

#endif

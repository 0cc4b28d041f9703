/*
 * torchfl/ops/reduce.h - the "reduce" op of the backend ABI: reductions over
 * dimensions: sum, mean, max/min (+index), norms, variance.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_REDUCE reads this struct.
 *
 * Shape model: the op has num_outputs output elements; each reduces
 * num_inputs input elements.  Output element o and reduction element r are
 * decomposed into coordinates by their dimension lists, dimension 0 varying
 * fastest (o = c0 + s0 * (c1 + s1 * (c2 ...))).  All strides are in BYTES and
 * non-negative.  The input element (o, r) lies at
 *     in + sum_d out_coord_d * out_stride_in[d] + sum_d red_coord_d * red_stride_in[d]
 * and output o at out + sum_d out_coord_d * out_stride_out[d].  A second
 * output (out2, when not NULL) lies at out2 + (that byte offset /
 * sizeof(out element)) * sizeof(out2 element).
 *
 * The index reported by the *_IDX / ARG* kinds is r (the reduction's linear
 * index), first occurrence wins; NaN counts as the extreme value (the first
 * NaN wins), as PyTorch does.
 */
#ifndef TORCHFL_OPS_REDUCE_H
#define TORCHFL_OPS_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#define TFL_REDUCE_MAX_DIMS 25

typedef enum tfl_reduce_kind {
    TFL_RED_SUM = 0,   /* sum                                              */
    TFL_RED_NANSUM,    /* sum, NaN counted as 0                            */
    TFL_RED_MEAN,      /* sum * scale (scale = 1/num_inputs for a plain mean) */
    TFL_RED_PROD,      /* product                                          */
    TFL_RED_MAX,       /* max, NaN propagates                              */
    TFL_RED_MIN,       /* min, NaN propagates                              */
    TFL_RED_MAX_IDX,   /* out = max value, out2 = its index (int64)         */
    TFL_RED_MIN_IDX,   /* out = min value, out2 = its index (int64)         */
    TFL_RED_ARGMAX,    /* out = index (int64) of the max                    */
    TFL_RED_ARGMIN,    /* out = index (int64) of the min                    */
    TFL_RED_AMINMAX,   /* out = min, out2 = max (NaN propagates)           */
    TFL_RED_NORM,      /* (sum |x|^p)^(1/p), p = op.p (no_root: sum |x|^p)  */
    TFL_RED_NORM0,     /* count of nonzero                                 */
    TFL_RED_NORM1,     /* sum |x|                                          */
    TFL_RED_NORM2,     /* sqrt(sum x^2) (no_root: sum x^2)                 */
    TFL_RED_NORM_INF,  /* max |x|                                          */
    TFL_RED_NORM_NINF, /* min |x|                                          */
    TFL_RED_VAR,       /* out = m2 / max(0, n - correction) (sqrt'ed if
                          take_sqrt), out2 = mean                          */
    TFL_RED_ALL,       /* 1 if every element is nonzero (NaN counts as nonzero) */
    TFL_RED_ANY,       /* 1 if some element is nonzero                     */
    TFL_RED_KIND_COUNT
} tfl_reduce_kind;

typedef struct tfl_reduce_op {
    tfl_reduce_kind kind;
    tfl_dtype in_dtype;      /* element type of in                         */
    tfl_dtype out_dtype;     /* element type of out                        */
    tfl_dtype out2_dtype;    /* element type of out2 (when out2 != NULL)    */
    const void *in;
    void *out;
    void *out2;              /* second output or NULL                      */
    int64_t num_outputs;     /* product of out_sizes                       */
    int64_t num_inputs;      /* product of red_sizes (elements per output)  */
    int out_ndim;
    int64_t out_sizes[TFL_REDUCE_MAX_DIMS];
    int64_t out_stride_out[TFL_REDUCE_MAX_DIMS]; /* bytes, in out          */
    int64_t out_stride_in[TFL_REDUCE_MAX_DIMS];  /* bytes, in in           */
    int red_ndim;
    int64_t red_sizes[TFL_REDUCE_MAX_DIMS];
    int64_t red_stride_in[TFL_REDUCE_MAX_DIMS];  /* bytes, in in           */
    double scale;            /* MEAN: factor applied to the sum            */
    double p;                /* NORM: the order                            */
    double correction;       /* VAR: the divisor is n - correction         */
    int take_sqrt;           /* VAR: write the standard deviation          */
    /* NORM, NORM2: skip the final root, i.e. write sum |x|^p (sum x^2):
     * torch.linalg._powsum, PyTorch's NormOps / NormTwoOps with
     * apply_root = false.  0 (the default) for every other kind; a backend
     * that does not implement it must refuse (op_supported) an op that sets
     * it rather than write the norm. */
    int no_root;
} tfl_reduce_op;

#endif

/*
 * torchfl/ops/bucket.h - the "bucket" op of the backend ABI: binary search
 * into sorted boundaries (searchsorted / bucketize) and 1-d histograms
 * (histc, bincount).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_BUCKET reads this struct.
 */
#ifndef TORCHFL_OPS_BUCKET_H
#define TORCHFL_OPS_BUCKET_H

#include <stddef.h>
#include <stdint.h>

#define TFL_BUCKET_MAX_DIMS 25

typedef enum tfl_bucket_kind {
    /* For i < numel: the boundaries row is bd[row * bd_len .. +bd_len)
     * with row = bd_1d ? 0 : i / in_len; out[i] = the number of entries
     * e of the row with e < in[i] (right = 0: first position where in[i]
     * could go) or e <= in[i] (right = 1).  sorter (int64, may be NULL):
     * the row is read in the order bd[row*bd_len + sorter[row*bd_len + k]].
     * NaN sorts after everything. */
    TFL_BUCKET_SEARCHSORTED = 1,
    /* out[bin] += w, for every element v of `in` with lo <= v <= hi,
     * bin = (v - lo) * nbins / (hi - lo) (hi itself in the last bin);
     * w = weights[k * w_strides[0]] for the k-th element (row-major
     * order of `in`) or 1.  `in` is strided (ndim dims, element strides,
     * dimension 0 slowest); out is dense, nbins elements of out_dtype.
     * Float inputs compute the bin in their own precision, integer ones
     * in int64 (lo_i, hi_i). */
    TFL_BUCKET_HISTOGRAM = 2,
} tfl_bucket_kind;

typedef struct tfl_bucket_op {
    tfl_bucket_kind kind;
    tfl_dtype in_dtype;          /* values / input                         */
    tfl_dtype out_dtype;         /* I32/I64 (searchsorted); F32/F64/I64    */
    /* searchsorted */
    void *out;
    const void *in, *bd;
    const int64_t *sorter;
    int64_t in_len, bd_len, numel;
    int right, bd_1d;
    /* histogram: in/out/weights above; weights has out_dtype */
    const void *weights;
    int ndim;
    int64_t sizes[TFL_BUCKET_MAX_DIMS];
    int64_t in_strides[TFL_BUCKET_MAX_DIMS], w_strides[TFL_BUCKET_MAX_DIMS];
    int64_t nbins;
    double lo, hi;               /* float inputs                           */
    int64_t lo_i, hi_i;          /* integer inputs (exact)                 */
} tfl_bucket_op;

#endif

/*
 * ops_bucket.c - the host backend's native "bucket" op: searchsorted /
 * bucketize and 1-d histograms (histc, bincount), torchfl/ops/bucket.h.
 *
 * The binary search uses the same two comparisons as PyTorch's kernel
 * (!(e >= v) / !(e > v)), so NaNs land where they land on the GPU.  The
 * histogram bin is computed in the input's accumulate type (float,
 * double or int64), as the GPU does, so values on a bin edge agree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int dtype_ok(tfl_dtype dt)
{
    switch (dt) {
    case TFL_DT_F32: case TFL_DT_F64: case TFL_DT_I64: case TFL_DT_I32:
    case TFL_DT_U8: case TFL_DT_I8:
        return 1;
    default:
        return 0;
    }
}

int host_bucket_supported(const tfl_bucket_op *op)
{
    if (!op || !dtype_ok(op->in_dtype) || !dtype_ok(op->out_dtype))
        return 0;
    if (op->kind == TFL_BUCKET_SEARCHSORTED)
        return op->out_dtype == TFL_DT_I64 || op->out_dtype == TFL_DT_I32;
    return op->kind == TFL_BUCKET_HISTOGRAM;
}

/* Element i of an array of dtype dt, as double and as int64. */
static double ld_f(const void *p, tfl_dtype dt, int64_t i)
{
    switch (dt) {
    case TFL_DT_F32: return ((const float *)p)[i];
    case TFL_DT_F64: return ((const double *)p)[i];
    case TFL_DT_I64: return (double)((const int64_t *)p)[i];
    case TFL_DT_I32: return ((const int32_t *)p)[i];
    case TFL_DT_U8:  return ((const uint8_t *)p)[i];
    case TFL_DT_I8:  return ((const int8_t *)p)[i];
    default:         return 0.0;
    }
}

static int64_t ld_i(const void *p, tfl_dtype dt, int64_t i)
{
    switch (dt) {
    case TFL_DT_I64: return ((const int64_t *)p)[i];
    case TFL_DT_I32: return ((const int32_t *)p)[i];
    case TFL_DT_U8:  return ((const uint8_t *)p)[i];
    case TFL_DT_I8:  return ((const int8_t *)p)[i];
    default:         return (int64_t)ld_f(p, dt, i);
    }
}

/* Compare boundary element e with value v in the input's own type:
 * -1, 0, 1, or 2 when unordered (NaN). */
static int cmp(const void *bd, int64_t e, const void *in, int64_t i, tfl_dtype dt)
{
    if (dt == TFL_DT_F32) {
        float a = ((const float *)bd)[e], b = ((const float *)in)[i];
        return a < b ? -1 : a > b ? 1 : a == b ? 0 : 2;
    }
    if (dt == TFL_DT_F64) {
        double a = ((const double *)bd)[e], b = ((const double *)in)[i];
        return a < b ? -1 : a > b ? 1 : a == b ? 0 : 2;
    }
    int64_t a = ld_i(bd, dt, e), b = ld_i(in, dt, i);
    return a < b ? -1 : a > b ? 1 : 0;
}

static void searchsorted(const tfl_bucket_op *op)
{
    for (int64_t i = 0; i < op->numel; i++) {
        int64_t start = op->bd_1d ? 0 : i / op->in_len * op->bd_len;
        const int64_t base = start;
        int64_t end = start + op->bd_len;
        while (start < end) {
            int64_t mid = start + ((end - start) >> 1);
            int64_t e = op->sorter ? base + op->sorter[mid] : mid;
            int c = cmp(op->bd, e, op->in, i, op->in_dtype);
            /* lower bound: move right while !(e >= v); upper: !(e > v) */
            int go_right = op->right ? !(c == 1) : !(c == 0 || c == 1);
            if (go_right)
                start = mid + 1;
            else
                end = mid;
        }
        int64_t pos = start - base;
        if (op->out_dtype == TFL_DT_I64)
            ((int64_t *)op->out)[i] = pos;
        else
            ((int32_t *)op->out)[i] = (int32_t)pos;
    }
}

static int sorter_ok(const tfl_bucket_op *op)
{
    if (!op->sorter)
        return 1;
    int64_t rows = op->bd_1d ? 1 : (op->numel - 1) / op->in_len + 1;
    for (int64_t k = 0; k < rows * op->bd_len; k++)
        if (op->sorter[k] < 0 || op->sorter[k] >= op->bd_len)
            return 0;
    return 1;
}

static void add_to(void *out, tfl_dtype dt, int64_t bin, double wf, int64_t wi)
{
    switch (dt) {
    case TFL_DT_F32: ((float *)out)[bin] += (float)wf; break;
    case TFL_DT_F64: ((double *)out)[bin] += wf; break;
    case TFL_DT_I64: ((int64_t *)out)[bin] += wi; break;
    case TFL_DT_I32: ((int32_t *)out)[bin] += (int32_t)wi; break;
    case TFL_DT_U8:  ((uint8_t *)out)[bin] += (uint8_t)wi; break;
    case TFL_DT_I8:  ((int8_t *)out)[bin] += (int8_t)wi; break;
    default: break;
    }
}

/* The bin of element i, or -1 when outside [lo, hi]. */
static int64_t bin_of(const tfl_bucket_op *op, int64_t off)
{
    int64_t bin;
    if (op->in_dtype == TFL_DT_F32) {
        float v = ((const float *)op->in)[off], lo = (float)op->lo, hi = (float)op->hi;
        if (!(v >= lo && v <= hi))
            return -1;
        bin = (int)((v - lo) * (float)op->nbins / (hi - lo));
    } else if (op->in_dtype == TFL_DT_F64) {
        double v = ((const double *)op->in)[off];
        if (!(v >= op->lo && v <= op->hi))
            return -1;
        bin = (int)((v - op->lo) * (double)op->nbins / (op->hi - op->lo));
    } else {
        int64_t v = ld_i(op->in, op->in_dtype, off);
        if (!(v >= op->lo_i && v <= op->hi_i) || op->hi_i == op->lo_i)
            return -1;
        bin = (int)((v - op->lo_i) * op->nbins / (op->hi_i - op->lo_i));
    }
    if (bin == op->nbins)
        bin--;
    return bin >= 0 && bin < op->nbins ? bin : -1;
}

static void histogram(const tfl_bucket_op *op)
{
    int64_t total = 1;
    for (int d = 0; d < op->ndim; d++)
        total *= op->sizes[d];
    for (int64_t i = 0; i < total; i++) {
        /* linear index -> offset, last dimension fastest */
        int64_t rem = i, off = 0;
        for (int d = op->ndim - 1; d >= 0; d--) {
            off += (rem % op->sizes[d]) * op->in_strides[d];
            rem /= op->sizes[d];
        }
        int64_t bin = bin_of(op, off);
        if (bin < 0)
            continue;
        if (op->weights)
            add_to(op->out, op->out_dtype, bin, ld_f(op->weights, op->out_dtype, i * op->w_strides[0]),
                   ld_i(op->weights, op->out_dtype, i * op->w_strides[0]));
        else
            add_to(op->out, op->out_dtype, bin, 1.0, 1);
    }
}

tfl_status host_bucket(const tfl_bucket_op *op)
{
    if (!host_bucket_supported(op))
        return TFL_ERR_UNSUPPORTED;
    if (op->kind == TFL_BUCKET_SEARCHSORTED) {
        if (op->numel < 0 || op->bd_len < 0 || (op->numel > 0 && op->in_len <= 0))
            return TFL_ERR_INVALID;
        if (!sorter_ok(op))
            return TFL_ERR_INVALID;
        searchsorted(op);
        return TFL_OK;
    }
    if (op->nbins <= 0 || op->ndim < 1 || op->ndim > TFL_BUCKET_MAX_DIMS)
        return TFL_ERR_INVALID;
    for (int d = 0; d < op->ndim; d++)
        if (op->sizes[d] < 0)
            return TFL_ERR_INVALID;
    histogram(op);
    return TFL_OK;
}

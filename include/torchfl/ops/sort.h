/*
 * torchfl/ops/sort.h - the "sort" op of the backend ABI: stable key/value
 * sorts, as PyTorch's sort/argsort, unique, randperm, index_put/index_add
 * with accumulation and embedding backward ask of a GPU, the steps that
 * consume sorted data, and radix selection (topk, kthvalue, median).
 *
 * The sorts proper:
 *  - TFL_SORT_SLICES sorts every slice of a strided tensor in place by
 *    key, moving a companion value with each key (PyTorch's in-place
 *    small-slice kernels).
 *  - TFL_SORT_RADIX is a stable sort by a bit range of the keys' radix
 *    order, from an input buffer to an output buffer, over one or many
 *    equal-stride segments (one pass - or all passes - of a cub radix
 *    sort).  A cub LSD radix sort is a sequence of these, one per digit.
 * The other kinds are documented where they are declared below.
 *
 * Key order.  Keys are compared through their "radix order": the key's
 * bits as an unsigned integer of the key's width, made order-preserving
 * (signed integers: sign bit flipped; floating point: sign bit flipped
 * for positive values, all bits flipped for negative ones), -0.0 mapped
 * to +0.0's pattern, and all bits inverted for a descending sort.  Hence
 * -0.0 and +0.0 tie; a positive NaN sorts after +inf ascending and first
 * descending.  TFL_SORT_NAN_EQUAL additionally makes every NaN one key,
 * the largest (PyTorch's comparator sorts): a negative-signed NaN then
 * sorts with the others instead of before -inf.
 *
 * Every sort is stable: equal keys (in the compared bits) keep their
 * input order, ascending and descending alike.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_SORT reads this struct.
 */
#ifndef TORCHFL_OPS_SORT_H
#define TORCHFL_OPS_SORT_H

#include <stddef.h>
#include <stdint.h>

#define TFL_SORT_MAX_DIMS 25

typedef enum tfl_sort_kind {
    /* For each of `slices` slices (slice s starts at key element
     * key_offset(s) and value element value_offset(s), see below), sort
     * the n = slice_len keys keys[off + i*key_stride] in place, moving
     * values[voff + i*value_stride] along with them. */
    TFL_SORT_SLICES = 1,
    /* For each segment g < segments, items [begin + g*seg_step,
     * end + g*seg_step) of keys_in (and values_in) are stably sorted by
     * bits [begin_bit, end_bit) of their radix-order key into the same
     * positions of keys_out (values_out).  keys_out NULL: keys are not
     * written; values_in/values_out NULL: keys only.  Items outside every
     * segment are not touched.  In-place (keys_in == keys_out) allowed. */
    TFL_SORT_RADIX = 2,
    /* The index buffers PyTorch's stable sort starts from, for i < n:
     * pairs = 0: int64 out[i] = i % nsort;
     * pairs = 1: int32 out[2i] = i / nsort, out[2i+1] = i % nsort. */
    TFL_SORT_FILL_INDEX = 3,
    /* After sorting (segment, position) pairs (int32 x 2) by value and
     * then stably by segment, for every segment g < segments and j <
     * nsort, with p = pairs[2*(g*nsort + j) + 1] (a position in [0, nsort)):
     *   index[g*nsort + j] = p;  out[g*nsort + j] = in[g*nsort + p]
     * (elements of value_size bytes; index is int64). */
    TFL_SORT_GATHER_PAIRS = 4,
    /* randperm's tie shuffle: in keys (key type, sorted), every maximal
     * run [s, s+len) of len >= 2 equal keys under `mask` gets its data
     * elements (value_size bytes) shuffled by Fisher-Yates, i from len-1
     * down to 1 swapping data[s+i] and data[s + r % (i+1)], r the next
     * 32-bit draw of Philox4x32-10 as curand_init(seed, s, offset). */
    TFL_SORT_SHUFFLE_TIES = 5,
    /* Device-side assertion (at::_assert_async): fails the op with
     * TFL_ERR_DEVICE and msg when the byte at flag is 0. */
    TFL_SORT_ASSERT = 6,
    /* Runs of equal keys in keys_in[0..n) (key type; floating point
     * equality: NaN equals nothing, -0.0 == +0.0): for the k-th run,
     * starting at item i, keys_out[k] = keys_in[i] and values_out[k] =
     * values_in[i] (values_in NULL: value_base + i, value_size 4 or 8 as
     * a signed integer), counts_out[k] = run length * count_scale (int64:
     * a sum of a constant per item); outputs that
     * are NULL are not written.  *num_out (num_out_size 4 or 8 bytes) =
     * the number of runs. */
    TFL_SORT_RUNS = 7,
    /* Prefix sums of n signed integers (in_size, acc_size, out_size 4 or
     * 8 bytes; the running sum wraps at acc_size): exclusive: out[i] = init + sum(in[0..i));
     * inclusive: out[i] = init + sum(in[0..i]). */
    TFL_SORT_SCAN = 8,
    /* Embedding backward by sorted segments (EmbeddingBackwardKernel.cu),
     * one step per op, index_t = signed integer of index_size bytes: see
     * tfl_sort_segment_step. */
    TFL_SORT_SEGMENTS = 9,
    /* Run starts of a sorted sequence: int32 out[i] = (i > 0 and
     * keys[i] != keys[i-1]) for i < n (key type, == as TFL_SORT_RUNS). */
    TFL_SORT_RUN_STARTS = 10,
    /* int64 out[index[i]] = in[i] for i < n (index int64). */
    TFL_SORT_SCATTER = 11,
    /* Per slice (TFL_SORT_SLICES-style offsets for input, values and
     * indices; slice length n, input stride along it): order the slice by
     * radix select order (the key order above, but -0.0 before +0.0 and
     * every NaN the largest) and take the kk-th smallest (1-based):
     *  TFL_SELECT_KTH: kk = k;
     *  TFL_SELECT_MEDIAN: with c NaNs, kk = (c && !ignore_nan) ? n
     *    : (n - c - 1) / 2 + 1;
     * values[s] = that key; indices[s] (int64) = the first i whose key
     * == it (the type's ==, or both NaN).
     *  TFL_SELECT_TOPK: the k largest (largest) or smallest: with kth the
     *    k-th largest/smallest key, first every item beyond kth in slice
     *    order, then items equal to kth in slice order until k are out;
     *    item j goes to values[s-th start + j*out_stride] and its slice
     *    position to indices[... + j*index_stride]. */
    TFL_SORT_SELECT = 12,
    /* Inclusive scan by key over n items of signed integers (8 bytes):
     * item j reads key K(j), value V(j) and writes O(j), where for each
     * of keys/values/out, X(j) = x[j], or x[-1 - j] when that sequence is
     * reversed (x then points one past its last element, as a reverse
     * iterator's base); values NULL: V(j) = value_const.
     *   acc = V(j) when j == 0 or K(j) != K(j-1), else acc = op(acc, V(j));
     *   O(j) = acc.
     * op: TFL_SORT_SCAN_OP_SUM (wrapping) or TFL_SORT_SCAN_OP_MAX.  Values and out may
     * be the same array (each item is read before it is written). */
    TFL_SORT_SCAN_BY_KEY = 13,
} tfl_sort_kind;

enum { TFL_SORT_SCAN_OP_SUM = 1, TFL_SORT_SCAN_OP_MAX = 2 };

typedef enum tfl_sort_select_mode {
    TFL_SELECT_KTH = 1,
    TFL_SELECT_MEDIAN = 2,
    TFL_SELECT_TOPK = 3,
    /* the most frequent key of the slice (== with all NaNs one key and
     * -0.0 == +0.0); equal counts: the smallest such key.  values[s] = it,
     * indices[s] = a position holding it (here: the last). */
    TFL_SELECT_MODE = 4,
} tfl_sort_select_mode;

/* A strided view's slice starts (see TFL_SORT_SLICES). */
typedef struct tfl_sort_view {
    void *data;
    int ndim;                   /* 0: slice s starts at element s */
    int64_t sizes[TFL_SORT_MAX_DIMS], strides[TFL_SORT_MAX_DIMS];
} tfl_sort_view;

/* TFL_SORT_SEGMENTS steps; G = *num_segments, P = *num_partials,
 * R = rows_per_partial, all arrays index_t unless said otherwise.  The
 * counts live in device memory (the GPU kernels read them there), so a
 * backend checks every array range against them when it runs. */
typedef enum tfl_sort_segment_step {
    /* for g < G: out[g] = ceil((end_g - offsets[g]) / R), end_g =
     * offsets[g+1] or numel for the last */
    TFL_SEG_PARTIALS_PER_SEGMENT = 1,
    /* for g < G: i < a[g] (partials per segment): out[b[g] + i] =
     * offsets[g] + i*R   (b: partials_per_segment_offset) */
    TFL_SEG_PARTIAL_OFFSETS = 2,
    /* *num_partials_out (int64) = a[G-1] + b[G-1] */
    TFL_SEG_NUM_PARTIALS = 3,
    /* for p < P, f < stride: acc[p*stride + f] = sum over idx in
     * [offsets[p], end_p) (in order) of grad[rows[idx]*stride + f]
     * (times 1/count[idx] when count is not NULL); acc in dtype */
    TFL_SEG_GRAD_WEIGHT = 4,
    /* for g < G, f < stride: w = sum over p in [b[g], end_g) of
     * acc[p*stride + f] (end_g = b[g+1] or P); row = sorted[offsets[g]];
     * unless row == padding_idx: weight[row*stride + f] = w */
    TFL_SEG_SUM_SCATTER = 5,
} tfl_sort_segment_step;

enum {
    TFL_SORT_DESCENDING = 1u << 0,
    TFL_SORT_NAN_EQUAL = 1u << 1,   /* all NaNs are one key, the largest */
    TFL_SORT_SIGNED_ZERO = 1u << 2, /* -0.0 sorts before +0.0 (no -0.0 fix) */
};

/* Key types: the tfl_dtype ones plus the integer widths PyTorch sorts
 * that tfl_dtype lacks. */
typedef enum tfl_sort_key {
    TFL_SORT_KEY_F32 = 0,
    TFL_SORT_KEY_F64,
    TFL_SORT_KEY_F16,
    TFL_SORT_KEY_BF16,
    TFL_SORT_KEY_I8,
    TFL_SORT_KEY_U8,      /* also bool */
    TFL_SORT_KEY_I16,
    TFL_SORT_KEY_U16,
    TFL_SORT_KEY_I32,
    TFL_SORT_KEY_U32,
    TFL_SORT_KEY_I64,
    TFL_SORT_KEY_U64,
    TFL_SORT_KEY_COUNT
} tfl_sort_key;

/* Bytes per key; 0 for an unknown key type. */
static inline size_t tfl_sort_key_size(tfl_sort_key k)
{
    switch (k) {
    case TFL_SORT_KEY_I8: case TFL_SORT_KEY_U8: return 1;
    case TFL_SORT_KEY_F16: case TFL_SORT_KEY_BF16:
    case TFL_SORT_KEY_I16: case TFL_SORT_KEY_U16: return 2;
    case TFL_SORT_KEY_F32: case TFL_SORT_KEY_I32: case TFL_SORT_KEY_U32: return 4;
    case TFL_SORT_KEY_F64: case TFL_SORT_KEY_I64: case TFL_SORT_KEY_U64: return 8;
    default: return 0;
    }
}

typedef struct tfl_sort_op {
    tfl_sort_kind kind;
    tfl_sort_key key;
    unsigned flags;             /* TFL_SORT_DESCENDING | TFL_SORT_NAN_EQUAL */
    size_t value_size;          /* bytes per value (1, 2, 4, 8, 16); values are opaque */
    union {
        struct {                /* TFL_SORT_SLICES */
            void *keys, *values;        /* base pointers (element 0)       */
            int64_t slices, slice_len;
            int64_t key_stride, value_stride;   /* elements, along a slice */
            /* Slice s -> first element: s is split into indices over dims
             * ndim-1 (fastest) .. 0 by sizes[], each index times the
             * per-dim stride (elements).  ndim = 0: slice s starts at
             * s (keys and values alike, PyTorch's contiguous case). */
            int key_ndim, value_ndim;
            int64_t key_sizes[TFL_SORT_MAX_DIMS], key_strides[TFL_SORT_MAX_DIMS];
            int64_t value_sizes[TFL_SORT_MAX_DIMS], value_strides[TFL_SORT_MAX_DIMS];
        } slices;
        struct {                /* TFL_SORT_RADIX */
            const void *keys_in;
            void *keys_out;
            const void *values_in;
            void *values_out;
            int64_t segments;
            int64_t begin, end, seg_step;       /* items */
            int begin_bit, end_bit;             /* 0 <= begin_bit <= end_bit <= key bits */
        } radix;
        struct {                /* TFL_SORT_FILL_INDEX */
            void *out;
            int64_t n, nsort;
            int pairs;
        } fill;
        struct {                /* TFL_SORT_GATHER_PAIRS */
            const void *in;
            void *out;
            int64_t *index;
            const int32_t *pairs;
            int64_t segments, nsort;
        } gather;
        struct {                /* TFL_SORT_SHUFFLE_TIES (key: I32 or I64) */
            const void *keys;
            void *data;
            int64_t n;
            uint64_t mask;
            uint64_t seed, offset;
        } shuffle;
        struct {                /* TFL_SORT_ASSERT */
            const uint8_t *flag;
            const char *msg;
        } assert_;
        struct {                /* TFL_SORT_RUNS (key, value_size) */
            const void *keys_in;
            void *keys_out;
            const void *values_in;
            int64_t value_base;
            void *values_out;
            int64_t *counts_out;
            int64_t count_scale;        /* counts_out[k] = run length * count_scale */
            void *num_out;
            size_t num_out_size;
            int64_t n;
        } runs;
        struct {                /* TFL_SORT_SCAN */
            const void *in;
            void *out;
            size_t in_size, acc_size, out_size;
            int64_t n, init;
            int exclusive;
        } scan;
        struct {                /* TFL_SORT_SEGMENTS */
            tfl_sort_segment_step step;
            size_t index_size;          /* 4 or 8 */
            tfl_dtype dtype;            /* grad / weight: F32, F64, F16, BF16; acc is
                                         * F64 for F64, else F32 */
            const int64_t *num_segments, *num_partials;
            int64_t *num_partials_out;
            const void *offsets, *a, *b, *rows, *sorted, *count;
            void *out;
            const void *grad;
            void *acc;
            void *weight;
            int64_t numel;              /* -1 where the kernel is not told it */
            int64_t stride, rows_per_partial, padding_idx;
        } seg;
        struct {                /* TFL_SORT_SELECT (key) */
            tfl_sort_select_mode mode;
            int ignore_nan, largest;
            int64_t k, slices, slice_len, stride;
            int64_t out_stride, index_stride;   /* TFL_SELECT_TOPK */
            tfl_sort_view in, values, indices;
        } select;
        struct {                /* TFL_SORT_SCAN_BY_KEY */
            const int64_t *keys, *values;
            int64_t *out;
            int keys_rev, values_rev, out_rev;
            int64_t value_const, n;
            int op;
        } scan_key;
        struct {                /* TFL_SORT_RUN_STARTS */
            const void *keys;
            int32_t *out;
            int64_t n;
        } starts;
        struct {                /* TFL_SORT_SCATTER */
            const int64_t *in, *index;
            int64_t *out;
            int64_t n;
        } scatter;
    } u;
} tfl_sort_op;

#endif

/*
 * ops_sort.c - the host backend's native "sort" op (torchfl/ops/sort.h):
 * stable key/value sorts of strided slices and bit-range radix sorts of
 * segments, the stable sort's index fill and gather, randperm's tie
 * shuffle and radix selection (k-th value, median, top-k).  The kinds
 * that work on sorted sequences are in ops_sort_seq.c.
 *
 * Every key is first turned into its radix-order integer (the order the
 * header defines: twiddled sign, -0.0 as +0.0, inverted when descending,
 * optionally all NaNs the largest), masked to the bit range asked for;
 * then (key, position) pairs are sorted stably - an LSD radix sort by
 * bytes, which skips bytes every key shares, or an insertion sort for a
 * handful of items - and keys and values are moved by the permutation.
 * Sorting integers by their position as a tie-break is what makes it
 * stable, so ascending and descending sorts alike keep equal keys in
 * input order, as cub's radix sorts and PyTorch's stable sort do.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_random_philox.h"
#include "backends/host/ops_sort_seq.h"
#include "common/log.h"

typedef struct kv {
    uint64_t key;
    int64_t pos;
} kv;

/* Radix-order integer of the key at p (type k), per op flags. */
static inline uint64_t radix_key(tfl_sort_key k, const void *p, unsigned flags)
{
    uint64_t b = 0, sign;
    int bits, fp = 0, is_signed = 0, nan = 0;
    switch (k) {
    case TFL_SORT_KEY_U8: case TFL_SORT_KEY_I8: {
        uint8_t v; memcpy(&v, p, 1); b = v; bits = 8; is_signed = k == TFL_SORT_KEY_I8;
        break;
    }
    case TFL_SORT_KEY_U16: case TFL_SORT_KEY_I16: case TFL_SORT_KEY_F16: case TFL_SORT_KEY_BF16: {
        uint16_t v; memcpy(&v, p, 2); b = v; bits = 16;
        is_signed = k == TFL_SORT_KEY_I16;
        fp = k == TFL_SORT_KEY_F16 || k == TFL_SORT_KEY_BF16;
        if (k == TFL_SORT_KEY_F16)
            nan = (v & 0x7c00u) == 0x7c00u && (v & 0x03ffu);
        else if (k == TFL_SORT_KEY_BF16)
            nan = (v & 0x7f80u) == 0x7f80u && (v & 0x007fu);
        break;
    }
    case TFL_SORT_KEY_U32: case TFL_SORT_KEY_I32: case TFL_SORT_KEY_F32: {
        uint32_t v; memcpy(&v, p, 4); b = v; bits = 32;
        is_signed = k == TFL_SORT_KEY_I32;
        fp = k == TFL_SORT_KEY_F32;
        nan = fp && (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu);
        break;
    }
    default: {
        uint64_t v; memcpy(&v, p, 8); b = v; bits = 64;
        is_signed = k == TFL_SORT_KEY_I64;
        fp = k == TFL_SORT_KEY_F64;
        nan = fp && (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
              (v & 0x000fffffffffffffull);
        break;
    }
    }
    const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    sign = 1ull << (bits - 1);
    if (fp) {
        if (nan && (flags & TFL_SORT_NAN_EQUAL))
            b = mask;                         /* above +inf's pattern */
        else {
            if (b == sign && !(flags & TFL_SORT_SIGNED_ZERO))
                b = 0;                        /* -0.0 sorts as +0.0 */
            b = (b & sign) ? (~b & mask) : (b | sign);
        }
    } else if (is_signed) {
        b ^= sign;
    }
    if (flags & TFL_SORT_DESCENDING)
        b = ~b & mask;
    return b;
}

/* Stable sort of a[0..n) by key; tmp has room for n.  keys < 2^key_bits.
 * The result is in a. */
static void sort_kv(kv *a, kv *tmp, int64_t n, int key_bits)
{
    if (n < 2)
        return;
    if (n <= 24) {
        for (int64_t i = 1; i < n; i++) {
            kv x = a[i];
            int64_t j = i;
            while (j > 0 && a[j - 1].key > x.key) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    kv *src = a, *dst = tmp;
    for (int shift = 0; shift < key_bits; shift += 8) {
        int64_t cnt[256] = {0};
        for (int64_t i = 0; i < n; i++)
            cnt[(src[i].key >> shift) & 255]++;
        if (cnt[(src[0].key >> shift) & 255] == n)
            continue;                         /* every key shares this byte */
        int64_t sum = 0;
        for (int d = 0; d < 256; d++) {
            int64_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[cnt[(src[i].key >> shift) & 255]++] = src[i];
        kv *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
}

static int valid_value_size(size_t s)
{
    return s == 0 || s == 1 || s == 2 || s == 4 || s == 8 || s == 16;
}

int host_sort_supported(const tfl_sort_op *op)
{
    if (!op || !valid_value_size(op->value_size))
        return 0;
    if (op->kind >= TFL_SORT_ASSERT && op->kind != TFL_SORT_SELECT)
        return host_sort_seq_supported(op);
    if (!tfl_sort_key_size(op->key))
        return 0;
    if (op->kind == TFL_SORT_SLICES)
        return op->u.slices.key_ndim >= 0 && op->u.slices.key_ndim <= TFL_SORT_MAX_DIMS &&
               op->u.slices.value_ndim >= 0 && op->u.slices.value_ndim <= TFL_SORT_MAX_DIMS &&
               op->value_size > 0;
    if (op->kind == TFL_SORT_RADIX)
        return 1;
    if (op->kind == TFL_SORT_FILL_INDEX)
        return op->u.fill.pairs == 0 || op->u.fill.pairs == 1;
    if (op->kind == TFL_SORT_GATHER_PAIRS)
        return op->value_size > 0;
    if (op->kind == TFL_SORT_SHUFFLE_TIES)
        return (op->key == TFL_SORT_KEY_I32 || op->key == TFL_SORT_KEY_I64) && op->value_size > 0;
    if (op->kind == TFL_SORT_SELECT)
        return (op->u.select.mode == TFL_SELECT_KTH || op->u.select.mode == TFL_SELECT_MEDIAN ||
                op->u.select.mode == TFL_SELECT_TOPK || op->u.select.mode == TFL_SELECT_MODE) &&
               op->u.select.in.ndim >= 0 && op->u.select.in.ndim <= TFL_SORT_MAX_DIMS &&
               op->u.select.values.ndim >= 0 && op->u.select.values.ndim <= TFL_SORT_MAX_DIMS &&
               op->u.select.indices.ndim >= 0 && op->u.select.indices.ndim <= TFL_SORT_MAX_DIMS;
    return host_sort_seq_supported(op);
}

/* ------------------------------------------------------------ slices */

/* First element of slice s given dims (TensorInfo's IndexToOffset). */
static int64_t slice_offset(int64_t s, int ndim, const int64_t *sizes, const int64_t *strides)
{
    if (ndim == 0)
        return s;
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t sz = sizes[d] > 0 ? sizes[d] : 1;
        off += (s % sz) * strides[d];
        s /= sz;
    }
    return off;
}

typedef struct slices_job {
    const tfl_sort_op *op;
    int parts;
    int failed;
} slices_job;

static void copy_elem(void *dst, const void *src, size_t sz)
{
    switch (sz) {
    case 1: *(uint8_t *)dst = *(const uint8_t *)src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, sz); break;
    }
}

static void slices_part(void *ctx, int part)
{
    slices_job *job = ctx;
    const tfl_sort_op *op = job->op;
    const int64_t S = op->u.slices.slices, n = op->u.slices.slice_len;
    const int64_t lo = S * part / job->parts, hi = S * (part + 1) / job->parts;
    if (lo >= hi)
        return;
    const size_t ks = tfl_sort_key_size(op->key), vs = op->value_size;
    kv *a = malloc((size_t)n * sizeof *a * 2);
    unsigned char *kbuf = malloc((size_t)n * (ks + vs));
    if (!a || !kbuf) {
        free(a);
        free(kbuf);
        job->failed = 1;
        return;
    }
    unsigned char *vbuf = kbuf + (size_t)n * ks;
    unsigned char *keys = op->u.slices.keys, *vals = op->u.slices.values;
    const int64_t kst = op->u.slices.key_stride, vst = op->u.slices.value_stride;
    const int bits = (int)ks * 8;
    for (int64_t s = lo; s < hi; s++) {
        unsigned char *k0 = keys + slice_offset(s, op->u.slices.key_ndim, op->u.slices.key_sizes,
                                                op->u.slices.key_strides) * (int64_t)ks;
        unsigned char *v0 = vals + slice_offset(s, op->u.slices.value_ndim,
                                                op->u.slices.value_sizes,
                                                op->u.slices.value_strides) * (int64_t)vs;
        for (int64_t i = 0; i < n; i++) {
            a[i].key = radix_key(op->key, k0 + i * kst * (int64_t)ks, op->flags);
            a[i].pos = i;
            copy_elem(kbuf + i * ks, k0 + i * kst * (int64_t)ks, ks);
            copy_elem(vbuf + i * vs, v0 + i * vst * (int64_t)vs, vs);
        }
        sort_kv(a, a + n, n, bits);
        for (int64_t i = 0; i < n; i++) {
            copy_elem(k0 + i * kst * (int64_t)ks, kbuf + a[i].pos * ks, ks);
            copy_elem(v0 + i * vst * (int64_t)vs, vbuf + a[i].pos * vs, vs);
        }
    }
    free(a);
    free(kbuf);
}

static tfl_status run_slices(const tfl_sort_op *op)
{
    const int64_t S = op->u.slices.slices, n = op->u.slices.slice_len;
    if (S < 0 || n < 0 || !op->u.slices.keys || !op->u.slices.values)
        return S == 0 || n == 0 ? TFL_OK : TFL_ERR_INVALID;
    if (S == 0 || n <= 1)
        return TFL_OK;
    slices_job job = { .op = op, .parts = 1 };
    const int threads = host_par_threads();
    if (threads > 1 && S > 1 && S * n >= 16384)
        job.parts = (int)(S < threads * 4 ? S : threads * 4);
    host_parallel(job.parts, slices_part, &job);
    if (job.failed) {
        tfl_error("sort: out of host memory sorting %lld slices of %lld",
                  (long long)S, (long long)n);
        return TFL_ERR_NOMEM;
    }
    return TFL_OK;
}

/* ------------------------------------------------------------- radix */

typedef struct radix_job {
    const tfl_sort_op *op;
    int parts;
    int failed;
} radix_job;

static void radix_segments(const tfl_sort_op *op, int64_t g0, int64_t g1, int *failed)
{
    const int64_t n = op->u.radix.end - op->u.radix.begin;
    if (n <= 0)
        return;
    const size_t ks = tfl_sort_key_size(op->key), vs = op->value_size;
    const int bb = op->u.radix.begin_bit, eb = op->u.radix.end_bit;
    const int width = eb - bb;
    const uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
    const int inplace_k = op->u.radix.keys_out == op->u.radix.keys_in;
    const int have_v = op->u.radix.values_in && op->u.radix.values_out && vs;
    const int inplace_v = have_v && op->u.radix.values_out == op->u.radix.values_in;
    kv *a = malloc((size_t)n * sizeof *a * 2);
    unsigned char *kbuf = inplace_k ? malloc((size_t)n * ks) : NULL;
    unsigned char *vbuf = inplace_v ? malloc((size_t)n * vs) : NULL;
    if (!a || (inplace_k && !kbuf) || (inplace_v && !vbuf)) {
        *failed = 1;
        goto out;
    }
    for (int64_t g = g0; g < g1; g++) {
        const int64_t first = op->u.radix.begin + g * op->u.radix.seg_step;
        const unsigned char *kin = (const unsigned char *)op->u.radix.keys_in + first * (int64_t)ks;
        unsigned char *kout = op->u.radix.keys_out
                                  ? (unsigned char *)op->u.radix.keys_out + first * (int64_t)ks
                                  : NULL;
        for (int64_t i = 0; i < n; i++) {
            a[i].key = (radix_key(op->key, kin + i * (int64_t)ks, op->flags) >> bb) & mask;
            a[i].pos = i;
        }
        if (width > 0)
            sort_kv(a, a + n, n, width);
        if (kout) {
            const unsigned char *src = kin;
            if (inplace_k) {
                memcpy(kbuf, kin, (size_t)n * ks);
                src = kbuf;
            }
            for (int64_t i = 0; i < n; i++)
                copy_elem(kout + i * (int64_t)ks, src + a[i].pos * (int64_t)ks, ks);
        }
        if (have_v) {
            const unsigned char *vin = (const unsigned char *)op->u.radix.values_in + first * (int64_t)vs;
            unsigned char *vout = (unsigned char *)op->u.radix.values_out + first * (int64_t)vs;
            if (inplace_v) {
                memcpy(vbuf, vin, (size_t)n * vs);
                vin = vbuf;
            }
            for (int64_t i = 0; i < n; i++)
                copy_elem(vout + i * (int64_t)vs, vin + a[i].pos * (int64_t)vs, vs);
        }
    }
out:
    free(a);
    free(kbuf);
    free(vbuf);
}

static void radix_part(void *ctx, int part)
{
    radix_job *job = ctx;
    const int64_t G = job->op->u.radix.segments;
    radix_segments(job->op, G * part / job->parts, G * (part + 1) / job->parts, &job->failed);
}

static tfl_status run_radix(const tfl_sort_op *op)
{
    const int bits = (int)tfl_sort_key_size(op->key) * 8;
    const int64_t G = op->u.radix.segments, n = op->u.radix.end - op->u.radix.begin;
    if (op->u.radix.begin_bit < 0 || op->u.radix.begin_bit > op->u.radix.end_bit ||
        op->u.radix.end_bit > bits || G < 0 || op->u.radix.begin < 0 || n < 0 ||
        op->u.radix.seg_step < 0) {
        tfl_error("sort: bad radix sort (bits [%d, %d) of %d, %lld segments [%lld, %lld) step %lld)",
                  op->u.radix.begin_bit, op->u.radix.end_bit, bits, (long long)G,
                  (long long)op->u.radix.begin, (long long)op->u.radix.end,
                  (long long)op->u.radix.seg_step);
        return TFL_ERR_INVALID;
    }
    if (G == 0 || n == 0)
        return TFL_OK;
    if (!op->u.radix.keys_in)
        return TFL_ERR_INVALID;
    radix_job job = { .op = op, .parts = 1 };
    const int threads = host_par_threads();
    if (threads > 1 && G > 1 && G * n >= 16384)
        job.parts = (int)(G < threads * 4 ? G : threads * 4);
    host_parallel(job.parts, radix_part, &job);
    if (job.failed) {
        tfl_error("sort: out of host memory sorting %lld segments of %lld",
                  (long long)G, (long long)n);
        return TFL_ERR_NOMEM;
    }
    return TFL_OK;
}

/* -------------------------------------------- index fill and gather */

static tfl_status run_fill(const tfl_sort_op *op)
{
    const int64_t n = op->u.fill.n, m = op->u.fill.nsort;
    if (n < 0 || (n > 0 && (m <= 0 || !op->u.fill.out)))
        return TFL_ERR_INVALID;
    if (op->u.fill.pairs) {
        int32_t *o = op->u.fill.out;
        for (int64_t i = 0, g = 0, j = 0; i < n; i++) {
            o[2 * i] = (int32_t)g;
            o[2 * i + 1] = (int32_t)j;
            if (++j == m) {
                j = 0;
                g++;
            }
        }
    } else {
        int64_t *o = op->u.fill.out;
        for (int64_t i = 0, j = 0; i < n; i++) {
            o[i] = j;
            if (++j == m)
                j = 0;
        }
    }
    return TFL_OK;
}

static tfl_status run_gather(const tfl_sort_op *op)
{
    const int64_t G = op->u.gather.segments, m = op->u.gather.nsort;
    const size_t vs = op->value_size;
    if (G < 0 || m < 0)
        return TFL_ERR_INVALID;
    if (G == 0 || m == 0)
        return TFL_OK;
    if (!op->u.gather.in || !op->u.gather.out || !op->u.gather.index || !op->u.gather.pairs)
        return TFL_ERR_INVALID;
    const unsigned char *in = op->u.gather.in;
    unsigned char *out = op->u.gather.out;
    for (int64_t g = 0; g < G; g++) {
        const int64_t base = g * m;
        for (int64_t j = 0; j < m; j++) {
            const int32_t p = op->u.gather.pairs[2 * (base + j) + 1];
            if (p < 0 || p >= m) {
                tfl_error("sort: gathered position %d of segment %lld is outside [0, %lld)",
                          (int)p, (long long)g, (long long)m);
                return TFL_ERR_DEVICE;
            }
            op->u.gather.index[base + j] = p;
            copy_elem(out + (base + j) * (int64_t)vs, in + (base + p) * (int64_t)vs, vs);
        }
    }
    return TFL_OK;
}

/* ------------------------------------------------------ tie shuffle */

static tfl_status run_shuffle(const tfl_sort_op *op)
{
    const int64_t n = op->u.shuffle.n;
    const size_t vs = op->value_size;
    if (n < 0)
        return TFL_ERR_INVALID;
    if (n < 2)
        return TFL_OK;
    if (!op->u.shuffle.keys || !op->u.shuffle.data)
        return TFL_ERR_INVALID;
    const int wide = op->key == TFL_SORT_KEY_I64;
    const uint64_t mask = op->u.shuffle.mask;
    unsigned char *data = op->u.shuffle.data, tmp[16];
#define KEY(i) ((wide ? (uint64_t)((const int64_t *)op->u.shuffle.keys)[i] \
                      : (uint64_t)(uint32_t)((const int32_t *)op->u.shuffle.keys)[i]) & mask)
    for (int64_t s = 0; s + 1 < n;) {
        int64_t len = 1;
        while (s + len < n && KEY(s + len) == KEY(s))
            len++;
        if (len >= 2) {
            tfl_philox_state st;
            tfl_philox_init(&st, op->u.shuffle.seed, (uint64_t)s, op->u.shuffle.offset);
            unsigned char *d = data + s * (int64_t)vs;
            for (int64_t i = len - 1; i > 0; i--) {
                uint32_t r = st.out[st.pos];           /* curand(): one word */
                if (++st.pos == 4) {
                    st.pos = 0;
                    tfl_philox_advance(&st, 1);
                    tfl_philox4x32_10(st.ctr, st.key, st.out);
                }
                int64_t j = (int64_t)(r % (uint32_t)(i + 1));
                if (j != i) {
                    memcpy(tmp, d + i * (int64_t)vs, vs);
                    memcpy(d + i * (int64_t)vs, d + j * (int64_t)vs, vs);
                    memcpy(d + j * (int64_t)vs, tmp, vs);
                }
            }
        }
        s += len;
    }
#undef KEY
    return TFL_OK;
}

/* ------------------------------------------------ k-th value, median */

static int is_float_key(tfl_sort_key k)
{
    return k == TFL_SORT_KEY_F32 || k == TFL_SORT_KEY_F64 || k == TFL_SORT_KEY_F16 ||
           k == TFL_SORT_KEY_BF16;
}

static tfl_status run_select(const tfl_sort_op *op)
{
    const int64_t S = op->u.select.slices, n = op->u.select.slice_len;
    if (S < 0 || n < 0)
        return TFL_ERR_INVALID;
    if (S == 0 || n == 0)
        return TFL_OK;
    if (!op->u.select.in.data || !op->u.select.values.data || !op->u.select.indices.data)
        return TFL_ERR_INVALID;
    const tfl_sort_key key = op->key;
    const size_t ks = tfl_sort_key_size(key);
    const int bits = (int)ks * 8;
    const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    const unsigned flags = TFL_SORT_NAN_EQUAL | TFL_SORT_SIGNED_ZERO;
    const int fp = is_float_key(key);
    kv *a = malloc((size_t)n * sizeof *a * 2);
    if (!a)
        return TFL_ERR_NOMEM;
    for (int64_t s = 0; s < S; s++) {
        const unsigned char *in = (const unsigned char *)op->u.select.in.data +
            slice_offset(s, op->u.select.in.ndim, op->u.select.in.sizes, op->u.select.in.strides) * (int64_t)ks;
        const int64_t st = op->u.select.stride * (int64_t)ks;
        int64_t nans = 0;
        for (int64_t i = 0; i < n; i++) {
            a[i].key = radix_key(key, in + i * st, flags);
            a[i].pos = i;
            nans += fp && a[i].key == mask;
        }
        int64_t kk;
        if (op->u.select.mode == TFL_SELECT_MODE) {
            /* -0.0 and +0.0 are one key here (==): re-key without SIGNED_ZERO */
            for (int64_t i = 0; i < n; i++)
                a[i].key = radix_key(key, in + i * st, TFL_SORT_NAN_EQUAL);
            sort_kv(a, a + n, n, bits);   /* stable: a run ends at its last position */
            int64_t best = 0, best_len = 0;
            for (int64_t i = 0; i < n;) {
                int64_t j = i + 1;
                while (j < n && a[j].key == a[i].key)
                    j++;
                if (j - i > best_len) {
                    best_len = j - i;
                    best = j - 1;
                }
                i = j;
            }
            unsigned char *vo = (unsigned char *)op->u.select.values.data +
                slice_offset(s, op->u.select.values.ndim, op->u.select.values.sizes, op->u.select.values.strides) *
                    (int64_t)ks;
            int64_t *io = (int64_t *)op->u.select.indices.data +
                slice_offset(s, op->u.select.indices.ndim, op->u.select.indices.sizes, op->u.select.indices.strides);
            memcpy(vo, in + a[best].pos * st, ks);
            *io = a[best].pos;
            continue;
        }
        if (op->u.select.mode == TFL_SELECT_TOPK) {
            const int64_t k = op->u.select.k;
            if (k < 0 || k > n) {
                free(a);
                tfl_error("sort: topk of %lld from a slice of %lld", (long long)k, (long long)n);
                return TFL_ERR_INVALID;
            }
            if (k == 0)
                continue;
            unsigned char *vo = (unsigned char *)op->u.select.values.data +
                slice_offset(s, op->u.select.values.ndim, op->u.select.values.sizes, op->u.select.values.strides) *
                    (int64_t)ks;
            int64_t *io = (int64_t *)op->u.select.indices.data +
                slice_offset(s, op->u.select.indices.ndim, op->u.select.indices.sizes, op->u.select.indices.strides);
            const int largest = op->u.select.largest;
            /* keep the keys in slice order: sort a copy for the threshold */
            kv *b = a + n;
            memcpy(b, a, (size_t)n * sizeof *a);
            kv *tmp = malloc((size_t)n * sizeof *tmp);
            if (!tmp) {
                free(a);
                return TFL_ERR_NOMEM;
            }
            sort_kv(b, tmp, n, bits);
            free(tmp);
            const uint64_t kth = largest ? b[n - k].key : b[k - 1].key;
            int64_t w = 0;
            for (int64_t i = 0; i < n; i++)
                if (largest ? a[i].key > kth : a[i].key < kth) {
                    memcpy(vo + w * op->u.select.out_stride * (int64_t)ks, in + i * st, ks);
                    io[w * op->u.select.index_stride] = i;
                    w++;
                }
            for (int64_t i = 0; i < n && w < k; i++)
                if (a[i].key == kth) {
                    memcpy(vo + w * op->u.select.out_stride * (int64_t)ks, in + i * st, ks);
                    io[w * op->u.select.index_stride] = i;
                    w++;
                }
            continue;
        }
        if (op->u.select.mode == TFL_SELECT_KTH)
            kk = op->u.select.k;
        else
            kk = (nans && !op->u.select.ignore_nan) ? n : (n - nans - 1) / 2 + 1;
        if (kk < 1 || kk > n) {
            free(a);
            tfl_error("sort: select rank %lld of a slice of %lld", (long long)kk, (long long)n);
            return TFL_ERR_INVALID;
        }
        sort_kv(a, a + n, n, bits);
        const unsigned char *kth = in + a[kk - 1].pos * st;
        const int kth_nan = fp && a[kk - 1].key == mask;
        int64_t found = n;
        for (int64_t i = 0; i < n && found == n; i++) {
            const unsigned char *v = in + i * st;
            if (host_sort_key_eq(key, v, kth) || (kth_nan && radix_key(key, v, flags) == mask))
                found = i;
        }
        unsigned char *vo = (unsigned char *)op->u.select.values.data +
            slice_offset(s, op->u.select.values.ndim, op->u.select.values.sizes, op->u.select.values.strides) *
                (int64_t)ks;
        int64_t *io = (int64_t *)op->u.select.indices.data +
            slice_offset(s, op->u.select.indices.ndim, op->u.select.indices.sizes, op->u.select.indices.strides);
        memcpy(vo, kth, ks);
        *io = found;
    }
    free(a);
    return TFL_OK;
}

tfl_status host_sort(const tfl_sort_op *op)
{
    if (!host_sort_supported(op))
        return TFL_ERR_UNSUPPORTED;
    switch (op->kind) {
    case TFL_SORT_SLICES: return run_slices(op);
    case TFL_SORT_RADIX: return run_radix(op);
    case TFL_SORT_FILL_INDEX: return run_fill(op);
    case TFL_SORT_GATHER_PAIRS: return run_gather(op);
    case TFL_SORT_SHUFFLE_TIES: return run_shuffle(op);
    case TFL_SORT_SELECT: return run_select(op);
    default: return host_sort_seq(op);
    }
}

/*
 * ops_sort_seq.c - host kernels of the "sort" op kinds that follow a sort:
 * runs of equal keys (cub unique / unique-by-key), prefix sums (cub scan),
 * the embedding-backward segment steps, and PyTorch's async assert.
 * Loops run in the GPU kernels' own order where the result depends on it
 * (floating-point sums are accumulated in index order, as one GPU thread
 * per output does).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/gemm_internal.h"
#include "backends/host/ops_sort_seq.h"
#include "common/log.h"
#include "mem/mem.h"

static int64_t rd_int(const void *p, size_t size, int64_t i)
{
    if (size == 8)
        return ((const int64_t *)p)[i];
    return ((const int32_t *)p)[i];
}

static void wr_int(void *p, size_t size, int64_t i, int64_t v)
{
    if (size == 8)
        ((int64_t *)p)[i] = v;
    else
        ((int32_t *)p)[i] = (int32_t)v;
}

int host_sort_seq_supported(const tfl_sort_op *op)
{
    switch (op->kind) {
    case TFL_SORT_ASSERT:
        return 1;
    case TFL_SORT_RUNS:
        return tfl_sort_key_size(op->key) &&
               (op->u.runs.values_in || op->value_size == 4 || op->value_size == 8 ||
                !op->u.runs.values_out) &&
               (op->u.runs.num_out_size == 4 || op->u.runs.num_out_size == 8);
    case TFL_SORT_SCAN:
        return (op->u.scan.in_size == 4 || op->u.scan.in_size == 8) &&
               (op->u.scan.acc_size == 4 || op->u.scan.acc_size == 8) &&
               (op->u.scan.out_size == 4 || op->u.scan.out_size == 8);
    case TFL_SORT_SEGMENTS:
        return (op->u.seg.index_size == 4 || op->u.seg.index_size == 8) &&
               (op->u.seg.dtype == TFL_DT_F32 || op->u.seg.dtype == TFL_DT_F64 ||
                op->u.seg.dtype == TFL_DT_F16 || op->u.seg.dtype == TFL_DT_BF16);
    case TFL_SORT_RUN_STARTS:
        return tfl_sort_key_size(op->key) != 0;
    case TFL_SORT_SCATTER:
        return 1;
    case TFL_SORT_SCAN_BY_KEY:
        return op->u.scan_key.op == TFL_SORT_SCAN_OP_SUM || op->u.scan_key.op == TFL_SORT_SCAN_OP_MAX;
    default:
        return 0;
    }
}

/* key i equals key j as the type's == does */
int host_sort_key_eq(tfl_sort_key k, const unsigned char *a, const unsigned char *b)
{
    switch (k) {
    case TFL_SORT_KEY_F32: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    case TFL_SORT_KEY_F64: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    case TFL_SORT_KEY_F16: case TFL_SORT_KEY_BF16: {
        uint16_t x, y;
        memcpy(&x, a, 2);
        memcpy(&y, b, 2);
        const int nanx = k == TFL_SORT_KEY_F16 ? ((x & 0x7c00) == 0x7c00 && (x & 0x3ff))
                                               : ((x & 0x7f80) == 0x7f80 && (x & 0x7f));
        const int nany = k == TFL_SORT_KEY_F16 ? ((y & 0x7c00) == 0x7c00 && (y & 0x3ff))
                                               : ((y & 0x7f80) == 0x7f80 && (y & 0x7f));
        if (nanx || nany)
            return 0;
        return x == y || ((x | y) & 0x7fff) == 0;        /* -0 == +0 */
    }
    default:
        return memcmp(a, b, tfl_sort_key_size(k)) == 0;
    }
}

static tfl_status run_runs(const tfl_sort_op *op)
{
    const int64_t n = op->u.runs.n;
    const size_t ks = tfl_sort_key_size(op->key), vs = op->value_size;
    if (n < 0 || !op->u.runs.num_out || (n > 0 && !op->u.runs.keys_in))
        return TFL_ERR_INVALID;
    const unsigned char *k = op->u.runs.keys_in;
    int64_t runs = 0, start = 0;
    for (int64_t i = 0; i <= n; i++) {
        if (i > 0 && (i == n || !host_sort_key_eq(op->key, k + i * (int64_t)ks, k + (i - 1) * (int64_t)ks))) {
            if (op->u.runs.keys_out)
                memcpy((unsigned char *)op->u.runs.keys_out + runs * (int64_t)ks, k + start * (int64_t)ks, ks);
            if (op->u.runs.values_out) {
                if (op->u.runs.values_in)
                    memcpy((unsigned char *)op->u.runs.values_out + runs * (int64_t)vs,
                           (const unsigned char *)op->u.runs.values_in + start * (int64_t)vs, vs);
                else
                    wr_int(op->u.runs.values_out, vs, runs, op->u.runs.value_base + start);
            }
            if (op->u.runs.counts_out)
                op->u.runs.counts_out[runs] = (i - start) * op->u.runs.count_scale;
            runs++;
            start = i;
        }
    }
    wr_int(op->u.runs.num_out, op->u.runs.num_out_size, 0, runs);
    return TFL_OK;
}

static tfl_status run_scan(const tfl_sort_op *op)
{
    const int64_t n = op->u.scan.n;
    if (n < 0 || (n > 0 && (!op->u.scan.in || !op->u.scan.out)))
        return TFL_ERR_INVALID;
    uint64_t acc = (uint64_t)op->u.scan.init;          /* wraps as the GPU's integers do */
    for (int64_t i = 0; i < n; i++) {
        const uint64_t x = (uint64_t)rd_int(op->u.scan.in, op->u.scan.in_size, i);
        if (op->u.scan.exclusive) {
            wr_int(op->u.scan.out, op->u.scan.out_size, i, (int64_t)acc);
            acc += x;
        } else {
            acc += x;
            if (op->u.scan.acc_size == 4)
                acc = (uint64_t)(int64_t)(int32_t)(uint32_t)acc;
            wr_int(op->u.scan.out, op->u.scan.out_size, i, (int64_t)acc);
        }
        if (op->u.scan.acc_size == 4)
            acc = (uint64_t)(int64_t)(int32_t)(uint32_t)acc;
    }
    return TFL_OK;
}

#define SEG_FAIL(...) do { tfl_error(__VA_ARGS__); return TFL_ERR_DEVICE; } while (0)

/* The device arrays of a segment step: [p, p + n*es) must be device
 * memory (host-addressable here). */
static int dev_ok(const void *p, int64_t n, size_t es)
{
    return n <= 0 || (p && tfl_mem_check_range(p, (size_t)n * es, NULL));
}

static int64_t max_row(const void *rows, size_t is, int64_t lo, int64_t hi, int64_t *min)
{
    int64_t mx = -1, mn = INT64_MAX;
    for (int64_t i = lo; i < hi; i++) {
        const int64_t r = rd_int(rows, is, i);
        if (r > mx) mx = r;
        if (r < mn) mn = r;
    }
    *min = mn;
    return mx;
}

static tfl_status run_segments(const tfl_sort_op *op)
{
    const size_t is = op->u.seg.index_size;
    const int f64 = op->u.seg.dtype == TFL_DT_F64;
    const int f16 = op->u.seg.dtype == TFL_DT_F16 || op->u.seg.dtype == TFL_DT_BF16;
    const size_t es = f64 ? 8 : 4;                  /* the partial sums' element */
    const size_t gs = tfl_dtype_size(op->u.seg.dtype); /* grad / weight element */
    const int64_t numel = op->u.seg.numel, L = op->u.seg.stride, R = op->u.seg.rows_per_partial;
    if ((op->u.seg.num_segments && !dev_ok(op->u.seg.num_segments, 1, 8)) ||
        (op->u.seg.num_partials && !dev_ok(op->u.seg.num_partials, 1, 8)))
        SEG_FAIL("sort: embedding segments: the counts are not device memory");
    const int64_t G = op->u.seg.num_segments ? *op->u.seg.num_segments : 0;
    const int64_t P = op->u.seg.num_partials ? *op->u.seg.num_partials : 0;
    if (L < 0 || G < 0 || P < 0 || (numel >= 0 && (G > numel || P > numel)))
        SEG_FAIL("sort: embedding segments: %lld segments / %lld partials for %lld indices",
                 (long long)G, (long long)P, (long long)numel);
    switch (op->u.seg.step) {
    case TFL_SEG_PARTIALS_PER_SEGMENT:
        if (R <= 0 || numel < 0)
            return TFL_ERR_INVALID;
        if (!dev_ok(op->u.seg.offsets, G, is) || !dev_ok(op->u.seg.out, G, is))
            SEG_FAIL("sort: embedding segments: offsets/partials outside device memory");
        for (int64_t g = 0; g < G; g++) {
            const int64_t end = g == G - 1 ? numel : rd_int(op->u.seg.offsets, is, g + 1);
            const int64_t size = end - rd_int(op->u.seg.offsets, is, g);
            wr_int(op->u.seg.out, is, g, (size + R - 1) / R);
        }
        return TFL_OK;
    case TFL_SEG_NUM_PARTIALS:
        if (G < 1)
            SEG_FAIL("sort: embedding segments: no segments");
        if (!dev_ok(op->u.seg.a, G, is) || !dev_ok(op->u.seg.b, G, is) ||
            !dev_ok(op->u.seg.num_partials_out, 1, 8))
            SEG_FAIL("sort: embedding segments: partial counts outside device memory");
        *op->u.seg.num_partials_out = rd_int(op->u.seg.a, is, G - 1) + rd_int(op->u.seg.b, is, G - 1);
        return TFL_OK;
    case TFL_SEG_PARTIAL_OFFSETS:
        if (!dev_ok(op->u.seg.a, G, is) || !dev_ok(op->u.seg.b, G, is) || !dev_ok(op->u.seg.offsets, G, is))
            SEG_FAIL("sort: embedding segments: segment arrays outside device memory");
        for (int64_t g = 0; g < G; g++) {
            const int64_t idx = rd_int(op->u.seg.b, is, g), np = rd_int(op->u.seg.a, is, g);
            if (np < 0 || idx < 0 || !dev_ok((const char *)op->u.seg.out + idx * (int64_t)is, np, is))
                SEG_FAIL("sort: embedding segments: partial offsets [%lld, +%lld) outside device memory",
                         (long long)idx, (long long)np);
        }
        for (int64_t g = 0; g < G; g++) {
            int64_t idx = rd_int(op->u.seg.b, is, g);
            const int64_t np = rd_int(op->u.seg.a, is, g), base = rd_int(op->u.seg.offsets, is, g);
            for (int64_t i = 0; i < np; i++)
                wr_int(op->u.seg.out, is, idx++, base + i * R);
        }
        return TFL_OK;
    case TFL_SEG_GRAD_WEIGHT: {
        if (numel < 0 || !dev_ok(op->u.seg.offsets, P, is) || !dev_ok(op->u.seg.rows, numel, is) ||
            (op->u.seg.count && !dev_ok(op->u.seg.count, numel, is)) || !dev_ok(op->u.seg.acc, P * L, es))
            SEG_FAIL("sort: embedding segments: gradient sums outside device memory");
        for (int64_t p = 0; p < P; p++) {
            const int64_t b = rd_int(op->u.seg.offsets, is, p);
            const int64_t e = p == P - 1 ? numel : rd_int(op->u.seg.offsets, is, p + 1);
            if (b < 0 || e > numel)
                SEG_FAIL("sort: embedding segments: partial %lld spans [%lld, %lld) of %lld",
                         (long long)p, (long long)b, (long long)e, (long long)numel);
        }
        int64_t mn, mx = max_row(op->u.seg.rows, is, 0, numel, &mn);
        if (numel > 0 && (mn < 0 || !dev_ok(op->u.seg.grad, (mx + 1) * L, gs)))
            SEG_FAIL("sort: embedding segments: gradient rows [%lld, %lld] outside device memory",
                     (long long)mn, (long long)mx);
        float *row = f16 ? malloc(sizeof(float) * (size_t)(L ? L : 1)) : NULL;
        for (int64_t p = 0; p < P; p++) {
            const int64_t b = rd_int(op->u.seg.offsets, is, p);
            const int64_t e = p == P - 1 ? numel : rd_int(op->u.seg.offsets, is, p + 1);
            if (f64) {
                double *acc = (double *)op->u.seg.acc + p * L;
                const double *g = op->u.seg.grad;
                for (int64_t f = 0; f < L; f++) {
                    double w = 0;
                    for (int64_t idx = b; idx < e; idx++) {
                        const double sc = op->u.seg.count ? 1.0 / (double)rd_int(op->u.seg.count, is, idx) : 1.0;
                        w += g[rd_int(op->u.seg.rows, is, idx) * L + f] * sc;
                    }
                    acc[f] = w;
                }
            } else {
                float *acc = (float *)op->u.seg.acc + p * L;
                const float *g = op->u.seg.grad;
                for (int64_t f = 0; f < L; f++)
                    acc[f] = 0;
                for (int64_t idx = b; idx < e; idx++) {
                    const float *src = g + rd_int(op->u.seg.rows, is, idx) * L;
                    if (f16) {                  /* widen the half row first */
                        if (!row)
                            return TFL_ERR_NOMEM;
                        hg_to_f32(op->u.seg.dtype, (const uint16_t *)op->u.seg.grad +
                                  rd_int(op->u.seg.rows, is, idx) * L, L, L, 1, row, L);
                        src = row;
                    }
                    if (op->u.seg.count) {
                        const float sc = 1.0f / (float)rd_int(op->u.seg.count, is, idx);
                        for (int64_t f = 0; f < L; f++)
                            acc[f] += src[f] * sc;
                    } else {
                        for (int64_t f = 0; f < L; f++)
                            acc[f] += src[f];
                    }
                }
            }
        }
        free(row);
        return TFL_OK;
    }
    case TFL_SEG_SUM_SCATTER: {
        if (!dev_ok(op->u.seg.b, G, is) || !dev_ok(op->u.seg.offsets, G, is) || !dev_ok(op->u.seg.acc, P * L, es))
            SEG_FAIL("sort: embedding segments: segment sums outside device memory");
        int64_t mx = -1;
        for (int64_t g = 0; g < G; g++) {
            const int64_t b = rd_int(op->u.seg.b, is, g);
            const int64_t e = g == G - 1 ? P : rd_int(op->u.seg.b, is, g + 1);
            const int64_t at = rd_int(op->u.seg.offsets, is, g);
            if (b < 0 || e > P || at < 0 || !dev_ok((const char *)op->u.seg.sorted + at * (int64_t)is, 1, is))
                SEG_FAIL("sort: embedding segments: segment %lld partials [%lld, %lld) of %lld",
                         (long long)g, (long long)b, (long long)e, (long long)P);
            const int64_t row = rd_int(op->u.seg.sorted, is, at);
            if (row == op->u.seg.padding_idx)
                continue;
            if (row < 0)
                SEG_FAIL("sort: embedding segments: weight row %lld", (long long)row);
            if (row > mx)
                mx = row;
        }
        if (mx >= 0 && !dev_ok(op->u.seg.weight, (mx + 1) * L, gs))
            SEG_FAIL("sort: embedding segments: weight row %lld outside device memory", (long long)mx);
        float *sums = f16 ? malloc(sizeof(float) * (size_t)(L ? L : 1)) : NULL;
        for (int64_t g = 0; g < G; g++) {
            const int64_t b = rd_int(op->u.seg.b, is, g);
            const int64_t e = g == G - 1 ? P : rd_int(op->u.seg.b, is, g + 1);
            const int64_t row = rd_int(op->u.seg.sorted, is, rd_int(op->u.seg.offsets, is, g));
            if (row == op->u.seg.padding_idx)
                continue;
            if (f64) {
                const double *acc = op->u.seg.acc;
                double *w = (double *)op->u.seg.weight + row * L;
                for (int64_t f = 0; f < L; f++) {
                    double sum = 0;
                    for (int64_t p = b; p < e; p++)
                        sum += acc[p * L + f];
                    w[f] = sum;
                }
            } else {
                const float *acc = op->u.seg.acc;
                float *w = f16 ? sums : (float *)op->u.seg.weight + row * L;
                if (!w)
                    return TFL_ERR_NOMEM;
                for (int64_t f = 0; f < L; f++)
                    w[f] = 0;
                for (int64_t p = b; p < e; p++)
                    for (int64_t f = 0; f < L; f++)
                        w[f] += acc[p * L + f];
                if (f16)                        /* narrow as the GPU's store does */
                    hg_from_f32(op->u.seg.dtype, sums, L, L, 1, (uint16_t *)op->u.seg.weight + row * L, L);
            }
        }
        free(sums);
        return TFL_OK;
    }
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

tfl_status host_sort_seq(const tfl_sort_op *op)
{
    switch (op->kind) {
    case TFL_SORT_ASSERT:
        if (!op->u.assert_.flag)
            return TFL_ERR_INVALID;
        if (*op->u.assert_.flag == 0) {
            tfl_error("device-side assertion failed: %s", op->u.assert_.msg ? op->u.assert_.msg : "");
            return TFL_ERR_DEVICE;
        }
        return TFL_OK;
    case TFL_SORT_RUNS:
        return run_runs(op);
    case TFL_SORT_SCAN:
        return run_scan(op);
    case TFL_SORT_SEGMENTS:
        return run_segments(op);
    case TFL_SORT_RUN_STARTS: {
        const int64_t n = op->u.starts.n;
        const size_t ks = tfl_sort_key_size(op->key);
        if (n < 0 || (n > 0 && (!op->u.starts.keys || !op->u.starts.out)))
            return TFL_ERR_INVALID;
        const unsigned char *k = op->u.starts.keys;
        for (int64_t i = 0; i < n; i++)
            op->u.starts.out[i] = i > 0 && !host_sort_key_eq(op->key, k + i * (int64_t)ks, k + (i - 1) * (int64_t)ks);
        return TFL_OK;
    }
    case TFL_SORT_SCAN_BY_KEY: {
        const int64_t n = op->u.scan_key.n;
        if (n < 0 || (n > 0 && (!op->u.scan_key.keys || !op->u.scan_key.out)))
            return TFL_ERR_INVALID;
        const int64_t *k = op->u.scan_key.keys, *v = op->u.scan_key.values;
        int64_t *o = op->u.scan_key.out;
#define AT(rev, j) ((rev) ? -1 - (j) : (j))
        uint64_t acc = 0;
        for (int64_t j = 0; j < n; j++) {
            const uint64_t x = v ? (uint64_t)v[AT(op->u.scan_key.values_rev, j)]
                                 : (uint64_t)op->u.scan_key.value_const;
            if (j == 0 || k[AT(op->u.scan_key.keys_rev, j)] != k[AT(op->u.scan_key.keys_rev, j - 1)])
                acc = x;
            else if (op->u.scan_key.op == TFL_SORT_SCAN_OP_SUM)
                acc += x;
            else if ((int64_t)x > (int64_t)acc)
                acc = x;
            o[AT(op->u.scan_key.out_rev, j)] = (int64_t)acc;
        }
#undef AT
        return TFL_OK;
    }
    case TFL_SORT_SCATTER: {
        const int64_t n = op->u.scatter.n;
        if (n < 0 || (n > 0 && (!op->u.scatter.in || !op->u.scatter.index || !op->u.scatter.out)))
            return TFL_ERR_INVALID;
        int64_t mn, mx = max_row(op->u.scatter.index, 8, 0, n, &mn);
        if (n > 0 && (mn < 0 || !dev_ok(op->u.scatter.out, mx + 1, 8))) {
            tfl_error("sort: scatter index range [%lld, %lld] outside device memory",
                      (long long)mn, (long long)mx);
            return TFL_ERR_DEVICE;
        }
        for (int64_t i = 0; i < n; i++)
            op->u.scatter.out[op->u.scatter.index[i]] = op->u.scatter.in[i];
        return TFL_OK;
    }
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

/*
 * test_ops_sort.c - host_sort (torchfl/ops/sort.h) against references
 * written independently of its radix machinery: a stable insertion sort
 * with a numeric comparator (doubles, NaN largest, -0.0 == +0.0) for whole
 * sorts, and digits computed arithmetically ((key + bias) / 2^bit mod
 * 2^bits) for single radix passes; cub-style LSD passes chained through
 * ping-pong buffers must give the whole sort.  Also the index fill, the
 * pair gather and randperm's tie shuffle (against cuRAND-style draws taken
 * with tfl_philox_draw), and refusal of bad ops.  The ops that follow a
 * sort (runs, scans, run starts, scatter, the embedding-backward segment
 * steps chained as PyTorch chains them) against direct computations:
 * the chain's weight gradient against a double-precision sum per row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_random_philox.h"
#include "mem/mem.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* a < b in the header's order for numeric keys (desc: a > b); NaN largest */
static int before(double a, double b, int desc)
{
    int na = isnan(a), nb = isnan(b);
    if (na || nb)
        return desc ? (na && !nb) : (!na && nb);
    return desc ? a > b : a < b;
}

/* stable insertion sort of perm[0..n) by val[perm[i]] */
static void ref_sort(const double *val, int64_t *perm, int n, int desc)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = 1; i < n; i++) {
        int64_t x = perm[i];
        int j = i;
        while (j > 0 && before(val[x], val[perm[j - 1]], desc)) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = x;
    }
}

static float pick_float(void)
{
    static const float special[] = { 0.0f, -0.0f, INFINITY, -INFINITY, 1.5f, -2.25f };
    uint32_t r = next() % 10;
    if (r < 6)
        return special[r];
    if (r == 6)
        return NAN;
    return (float)((int)(next() % 2001) - 1000) / 16.0f;
}

/* 2-D float keys [R][C] (row-major), sorted along dim (0 or 1) in place
 * through TFL_SORT_SLICES with TensorInfo-style slice offsets. */
static void test_slices_f32(int R, int C, int dim, int desc)
{
    float *k = malloc(sizeof(float) * R * C), *k0 = malloc(sizeof(float) * R * C);
    int64_t *v = malloc(sizeof(int64_t) * R * C);
    for (int i = 0; i < R * C; i++) {
        k[i] = k0[i] = pick_float();
        v[i] = 1000 + i;
    }
    tfl_sort_op op = { .kind = TFL_SORT_SLICES, .key = TFL_SORT_KEY_F32,
                       .flags = (desc ? TFL_SORT_DESCENDING : 0) | TFL_SORT_NAN_EQUAL,
                       .value_size = 8 };
    op.u.slices.keys = k;
    op.u.slices.values = v;
    op.u.slices.slices = dim == 1 ? R : C;
    op.u.slices.slice_len = dim == 1 ? C : R;
    op.u.slices.key_stride = op.u.slices.value_stride = dim == 1 ? 1 : C;
    /* the slice dimension has size 1 in the TensorInfo; the other one
     * carries the slice number */
    op.u.slices.key_ndim = op.u.slices.value_ndim = 2;
    op.u.slices.key_sizes[0] = op.u.slices.value_sizes[0] = dim == 1 ? R : 1;
    op.u.slices.key_sizes[1] = op.u.slices.value_sizes[1] = dim == 1 ? 1 : C;
    op.u.slices.key_strides[0] = op.u.slices.value_strides[0] = C;
    op.u.slices.key_strides[1] = op.u.slices.value_strides[1] = 1;
    CHECK(host_sort_supported(&op), "slices supported");
    CHECK(host_sort(&op) == TFL_OK, "slices run");
    const int S = dim == 1 ? R : C, n = dim == 1 ? C : R;
    double *val = malloc(sizeof(double) * n);
    int64_t *perm = malloc(sizeof(int64_t) * n);
    for (int s = 0; s < S; s++) {
        for (int i = 0; i < n; i++)
            val[i] = k0[dim == 1 ? s * C + i : i * C + s];
        ref_sort(val, perm, n, desc);
        for (int i = 0; i < n; i++) {
            const int at = dim == 1 ? s * C + i : i * C + s;
            const int from = dim == 1 ? s * C + (int)perm[i] : (int)perm[i] * C + s;
            CHECK(memcmp(&k[at], &k0[from], 4) == 0 && v[at] == 1000 + from,
                  "slices %dx%d dim %d desc %d: slice %d item %d: key %g value %lld, want %g %d",
                  R, C, dim, desc, s, i, k[at], (long long)v[at], k0[from], 1000 + from);
        }
    }
    free(k); free(k0); free(v); free(val); free(perm);
}

/* Half keys from a table of exact values (bits, value). */
static void test_slices_f16(int desc)
{
    static const struct { uint16_t bits; double val; } t[] = {
        { 0x3C00, 1.0 }, { 0xBC00, -1.0 }, { 0x0000, 0.0 }, { 0x8000, -0.0 }, { 0x7E00, NAN },
        { 0x7C00, INFINITY }, { 0xFC00, -INFINITY }, { 0x4000, 2.0 }, { 0xC000, -2.0 }, { 0x3800, 0.5 },
    };
    enum { N = 300 };
    uint16_t k[N], k0[N];
    int64_t v[N], perm[N];
    double val[N];
    for (int i = 0; i < N; i++) {
        int r = (int)(next() % 10);
        k[i] = k0[i] = t[r].bits;
        val[i] = t[r].val;
        v[i] = i;
    }
    tfl_sort_op op = { .kind = TFL_SORT_SLICES, .key = TFL_SORT_KEY_F16,
                       .flags = desc ? TFL_SORT_DESCENDING : 0, .value_size = 8 };
    op.u.slices.keys = k;
    op.u.slices.values = v;
    op.u.slices.slices = 1;
    op.u.slices.slice_len = N;
    op.u.slices.key_stride = op.u.slices.value_stride = 1;
    CHECK(host_sort(&op) == TFL_OK, "f16 run");
    ref_sort(val, perm, N, desc);
    for (int i = 0; i < N; i++)
        CHECK(k[i] == k0[perm[i]] && v[i] == perm[i], "f16 desc %d item %d: %04x/%lld want %04x/%lld",
              desc, i, k[i], (long long)v[i], k0[perm[i]], (long long)perm[i]);
}

/* Whole-range radix sort of int64 keys over equal-stride segments. */
static void test_radix_i64_segments(int inplace, int desc)
{
    enum { G = 3, LEN = 700, STEP = 750, TOTAL = 2 * STEP + LEN };
    int64_t *kin = malloc(8 * TOTAL), *kout = malloc(8 * TOTAL), *k0 = malloc(8 * TOTAL);
    uint64_t *vin = malloc(8 * TOTAL), *vout = malloc(8 * TOTAL);
    for (int i = 0; i < TOTAL; i++) {
        int64_t r = (int64_t)(next() % 41) - 20;
        kin[i] = k0[i] = r * (int64_t)1e15 + (r & 1 ? INT64_C(-3) : 0);
        vin[i] = 0xABCD000000000000ull + (uint64_t)i;
        kout[i] = -77;
        vout[i] = 77;
    }
    tfl_sort_op op = { .kind = TFL_SORT_RADIX, .key = TFL_SORT_KEY_I64,
                       .flags = desc ? TFL_SORT_DESCENDING : 0, .value_size = 8 };
    op.u.radix.keys_in = kin;
    op.u.radix.keys_out = inplace ? (void *)kin : (void *)kout;
    op.u.radix.values_in = vin;
    op.u.radix.values_out = inplace ? (void *)vin : (void *)vout;
    op.u.radix.segments = G;
    op.u.radix.begin = 0;
    op.u.radix.end = LEN;
    op.u.radix.seg_step = STEP;
    op.u.radix.begin_bit = 0;
    op.u.radix.end_bit = 64;
    CHECK(host_sort(&op) == TFL_OK, "radix i64 run");
    const int64_t *ko = inplace ? kin : kout;
    const uint64_t *vo = inplace ? vin : vout;
    double val[LEN];
    int64_t perm[LEN];
    for (int g = 0; g < G; g++) {
        for (int i = 0; i < LEN; i++)
            val[i] = (double)k0[g * STEP + i];
        ref_sort(val, perm, LEN, desc);
        for (int i = 0; i < LEN; i++) {
            const int at = g * STEP + i, from = g * STEP + (int)perm[i];
            CHECK(ko[at] == k0[from] && vo[at] == 0xABCD000000000000ull + (uint64_t)from,
                  "i64 seg %d item %d (inplace %d desc %d)", g, i, inplace, desc);
        }
    }
    /* gaps between segments are not touched */
    for (int g = 0; g + 1 < G; g++)
        for (int i = g * STEP + LEN; i < (g + 1) * STEP; i++)
            CHECK(inplace ? kin[i] == k0[i] : (kout[i] == -77 && vout[i] == 77), "gap %d touched", i);
    free(kin); free(kout); free(k0); free(vin); free(vout);
}

/* One radix pass over bits [bit, bit+nb) of int32 keys, keys only. */
static void test_radix_pass_i32(int bit, int nb, int desc)
{
    enum { N = 5000 };
    int32_t kin[N], kout[N];
    for (int i = 0; i < N; i++)
        kin[i] = (int32_t)next();
    tfl_sort_op op = { .kind = TFL_SORT_RADIX, .key = TFL_SORT_KEY_I32,
                       .flags = desc ? TFL_SORT_DESCENDING : 0 };
    op.u.radix.keys_in = kin;
    op.u.radix.keys_out = kout;
    op.u.radix.segments = 1;
    op.u.radix.end = N;
    op.u.radix.begin_bit = bit;
    op.u.radix.end_bit = bit + nb;
    CHECK(host_sort(&op) == TFL_OK, "pass run");
    /* reference digit: the key's rank among int32 values (key + 2^31),
     * reversed for descending, taken arithmetically */
    double digit[N];
    int64_t perm[N];
    for (int i = 0; i < N; i++) {
        int64_t biased = (int64_t)kin[i] + 2147483648LL;
        if (desc)
            biased = 4294967295LL - biased;
        digit[i] = (double)((biased / ((int64_t)1 << bit)) % ((int64_t)1 << nb));
    }
    ref_sort(digit, perm, N, 0);
    for (int i = 0; i < N; i++)
        CHECK(kout[i] == kin[perm[i]], "pass [%d,+%d) desc %d item %d", bit, nb, desc, i);
}

/* cub-style: 8-bit passes ping-ponging between buffers == whole sort. */
static void test_chained_passes_f32(int desc)
{
    enum { N = 4000 };
    float a[N], b[N], k0[N];
    uint64_t va[N], vb[N];
    for (int i = 0; i < N; i++) {
        a[i] = k0[i] = pick_float();
        va[i] = (uint64_t)i;
    }
    float *src = a, *dst = b;
    uint64_t *vsrc = va, *vdst = vb;
    for (int bit = 0; bit < 32; bit += 8) {
        tfl_sort_op op = { .kind = TFL_SORT_RADIX, .key = TFL_SORT_KEY_F32,
                           .flags = desc ? TFL_SORT_DESCENDING : 0, .value_size = 8 };
        op.u.radix.keys_in = src;
        op.u.radix.keys_out = dst;
        op.u.radix.values_in = vsrc;
        op.u.radix.values_out = vdst;
        op.u.radix.segments = 1;
        op.u.radix.end = N;
        op.u.radix.begin_bit = bit;
        op.u.radix.end_bit = bit + 8;
        CHECK(host_sort(&op) == TFL_OK, "chained pass %d", bit);
        float *t = src; src = dst; dst = t;
        uint64_t *tv = vsrc; vsrc = vdst; vdst = tv;
    }
    double val[N];
    int64_t perm[N];
    for (int i = 0; i < N; i++)
        val[i] = k0[i];
    ref_sort(val, perm, N, desc);
    for (int i = 0; i < N; i++)
        CHECK(memcmp(&src[i], &k0[perm[i]], 4) == 0 && vsrc[i] == (uint64_t)perm[i],
              "chained desc %d item %d: %g/%llu want %g/%lld", desc, i, src[i],
              (unsigned long long)vsrc[i], k0[perm[i]], (long long)perm[i]);
}

static void test_fill_gather(void)
{
    enum { G = 4, M = 37 };
    int64_t idx[G * M];
    int32_t pairs[2 * G * M];
    tfl_sort_op op = { .kind = TFL_SORT_FILL_INDEX };
    op.u.fill.out = idx;
    op.u.fill.n = G * M;
    op.u.fill.nsort = M;
    CHECK(host_sort(&op) == TFL_OK, "fill");
    for (int i = 0; i < G * M; i++)
        CHECK(idx[i] == i % M, "fill %d", i);
    op.u.fill.out = pairs;
    op.u.fill.pairs = 1;
    CHECK(host_sort(&op) == TFL_OK, "fill pairs");
    for (int i = 0; i < G * M; i++)
        CHECK(pairs[2 * i] == i / M && pairs[2 * i + 1] == i % M, "fill pair %d", i);
    /* gather: reverse every segment through the pairs */
    double in[G * M], out[G * M];
    int64_t index[G * M];
    for (int i = 0; i < G * M; i++) {
        in[i] = i * 0.5;
        pairs[2 * i + 1] = M - 1 - i % M;
    }
    tfl_sort_op g = { .kind = TFL_SORT_GATHER_PAIRS, .value_size = 8 };
    g.u.gather.in = in;
    g.u.gather.out = out;
    g.u.gather.index = index;
    g.u.gather.pairs = pairs;
    g.u.gather.segments = G;
    g.u.gather.nsort = M;
    CHECK(host_sort(&g) == TFL_OK, "gather");
    for (int i = 0; i < G * M; i++) {
        const int p = M - 1 - i % M;
        CHECK(index[i] == p && out[i] == in[(i / M) * M + p], "gather %d", i);
    }
    pairs[5] = M;                        /* a position outside the segment */
    CHECK(host_sort(&g) == TFL_ERR_DEVICE, "gather out-of-range position refused");
}

static void test_shuffle_ties(void)
{
    enum { N = 64 };
    int32_t keys[N];
    int64_t data[N], ref[N];
    const uint64_t seed = 0x1234567890ull, offset = 6;
    for (int i = 0; i < N; i++) {
        keys[i] = (i / 5) * 256 + (int)(next() % 256);   /* equal under mask 0xff00 in runs of 5 */
        data[i] = ref[i] = 100 + i;
    }
    keys[N - 1] = 0x7fffff00;                            /* a lone last key */
    for (int s = 0; s < N;) {
        int len = 1;
        while (s + len < N && (keys[s + len] & 0xff00) == (keys[s] & 0xff00))
            len++;
        uint32_t word = 0;
        for (int i = len - 1, j = 0; i > 0; i--, j++) {
            uint32_t r4[4];
            tfl_philox_draw(seed, (uint64_t)s, offset, (uint64_t)j / 4, r4);
            word = r4[j % 4];
            int r = (int)(word % (uint32_t)(i + 1));
            int64_t t = ref[s + i]; ref[s + i] = ref[s + r]; ref[s + r] = t;
        }
        (void)word;
        s += len;
    }
    tfl_sort_op op = { .kind = TFL_SORT_SHUFFLE_TIES, .key = TFL_SORT_KEY_I32, .value_size = 8 };
    op.u.shuffle.keys = keys;
    op.u.shuffle.data = data;
    op.u.shuffle.n = N;
    op.u.shuffle.mask = 0xff00;
    op.u.shuffle.seed = seed;
    op.u.shuffle.offset = offset;
    CHECK(host_sort(&op) == TFL_OK, "shuffle");
    int moved = 0;
    for (int i = 0; i < N; i++) {
        CHECK(data[i] == ref[i], "shuffle %d: %lld want %lld", i, (long long)data[i], (long long)ref[i]);
        moved += data[i] != 100 + i;
    }
    CHECK(moved > N / 4, "shuffle moved only %d", moved);
}

static void test_refusals(void)
{
    int32_t k[4] = { 3, 1, 2, 0 };
    tfl_sort_op op = { .kind = TFL_SORT_RADIX, .key = TFL_SORT_KEY_I32 };
    op.u.radix.keys_in = k;
    op.u.radix.keys_out = k;
    op.u.radix.segments = 1;
    op.u.radix.end = 4;
    op.u.radix.begin_bit = 0;
    op.u.radix.end_bit = 40;             /* past the key's 32 bits */
    CHECK(host_sort(&op) == TFL_ERR_INVALID, "bits past the key refused");
    op.u.radix.end_bit = 32;
    op.u.radix.begin = 3;
    op.u.radix.end = 1;
    CHECK(host_sort(&op) == TFL_ERR_INVALID, "end < begin refused");
    op.key = TFL_SORT_KEY_COUNT;
    CHECK(!host_sort_supported(&op) && host_sort(&op) == TFL_ERR_UNSUPPORTED, "unknown key refused");
    tfl_sort_op s = { .kind = TFL_SORT_SLICES, .key = TFL_SORT_KEY_F32, .value_size = 8 };
    s.u.slices.key_ndim = TFL_SORT_MAX_DIMS + 1;
    CHECK(!host_sort_supported(&s), "too many dims refused");
    CHECK(k[0] == 3 && k[3] == 0, "refused ops wrote nothing");
}

/* runs of equal keys, scans, run starts, scatter, assert */
static void test_seq_basics(void)
{
    const float k[9] = { -1.0f, -0.0f, 0.0f, 0.0f, NAN, NAN, 2.0f, 2.0f, 2.0f };
    float ko[9];
    int64_t vo[9], counts[9], num = -1;
    tfl_sort_op op = { .kind = TFL_SORT_RUNS, .key = TFL_SORT_KEY_F32, .value_size = 8 };
    op.u.runs.keys_in = k;
    op.u.runs.keys_out = ko;
    op.u.runs.values_out = vo;
    op.u.runs.value_base = 100;
    op.u.runs.counts_out = counts;
    op.u.runs.count_scale = 1;
    op.u.runs.num_out = &num;
    op.u.runs.num_out_size = 8;
    op.u.runs.n = 9;
    CHECK(host_sort(&op) == TFL_OK, "runs");
    /* -0.0 == +0.0; NaN equals nothing */
    const int64_t want_first[] = { 0, 1, 4, 5, 6 }, want_count[] = { 1, 3, 1, 1, 3 };
    CHECK(num == 5, "runs: %lld", (long long)num);
    for (int r = 0; r < 5 && r < num; r++)
        CHECK(vo[r] == 100 + want_first[r] && counts[r] == want_count[r] &&
              memcmp(&ko[r], &k[want_first[r]], 4) == 0, "run %d", r);
    int32_t starts[9];
    tfl_sort_op st = { .kind = TFL_SORT_RUN_STARTS, .key = TFL_SORT_KEY_F32 };
    st.u.starts.keys = k;
    st.u.starts.out = starts;
    st.u.starts.n = 9;
    CHECK(host_sort(&st) == TFL_OK, "starts");
    const int32_t want_starts[9] = { 0, 1, 0, 0, 1, 1, 1, 0, 0 };
    CHECK(memcmp(starts, want_starts, sizeof starts) == 0, "run starts");
    /* inclusive int32 scan into int64 with an int32 accumulator wraps */
    int32_t in[4] = { 2147483647, 1, 5, -7 };
    int64_t out[4];
    tfl_sort_op sc = { .kind = TFL_SORT_SCAN };
    sc.u.scan.in = in;
    sc.u.scan.out = out;
    sc.u.scan.in_size = 4;
    sc.u.scan.acc_size = 4;
    sc.u.scan.out_size = 8;
    sc.u.scan.n = 4;
    CHECK(host_sort(&sc) == TFL_OK, "scan");
    /* 2^31-1, +1 wraps to -2^31, +5, -7 wraps back to 2^31-2 */
    CHECK(out[0] == 2147483647 && out[1] == INT32_MIN && out[2] == INT32_MIN + 5 &&
          out[3] == 2147483646, "inclusive wrap %lld %lld %lld %lld",
          (long long)out[0], (long long)out[1], (long long)out[2], (long long)out[3]);
    int64_t in64[5] = { 3, 0, 4, 1, 5 }, ex[5];
    sc.u.scan.in = in64;
    sc.u.scan.out = ex;
    sc.u.scan.in_size = sc.u.scan.acc_size = 8;
    sc.u.scan.n = 5;
    sc.u.scan.exclusive = 1;
    sc.u.scan.init = 10;
    CHECK(host_sort(&sc) == TFL_OK, "exclusive scan");
    CHECK(ex[0] == 10 && ex[1] == 13 && ex[2] == 13 && ex[3] == 17 && ex[4] == 18, "exclusive scan values");
    /* scan by key: sum of a constant forward, then max over the reversed
     * sequence in place: each item gets its run's length */
    int64_t keys[9] = { 2, 5, 5, 5, 7, 7, 8, 9, 9 }, cnt[9];
    tfl_sort_op sk = { .kind = TFL_SORT_SCAN_BY_KEY };
    sk.u.scan_key.keys = keys;
    sk.u.scan_key.value_const = 1;
    sk.u.scan_key.out = cnt;
    sk.u.scan_key.n = 9;
    sk.u.scan_key.op = TFL_SORT_SCAN_OP_SUM;
    CHECK(host_sort(&sk) == TFL_OK, "sum by key");
    const int64_t inc[9] = { 1, 1, 2, 3, 1, 2, 1, 1, 2 }, runlen[9] = { 1, 3, 3, 3, 2, 2, 1, 2, 2 };
    CHECK(memcmp(cnt, inc, sizeof cnt) == 0, "sum by key values");
    sk.u.scan_key.keys = keys + 9;
    sk.u.scan_key.keys_rev = 1;
    sk.u.scan_key.values = cnt + 9;
    sk.u.scan_key.values_rev = 1;
    sk.u.scan_key.out = cnt + 9;
    sk.u.scan_key.out_rev = 1;
    sk.u.scan_key.op = TFL_SORT_SCAN_OP_MAX;
    CHECK(host_sort(&sk) == TFL_OK, "max by key reversed");
    CHECK(memcmp(cnt, runlen, sizeof cnt) == 0, "run lengths");
    uint8_t yes = 1, no = 0;
    tfl_sort_op as = { .kind = TFL_SORT_ASSERT };
    as.u.assert_.flag = &yes;
    as.u.assert_.msg = "fine";
    CHECK(host_sort(&as) == TFL_OK, "assert true");
    as.u.assert_.flag = &no;
    as.u.assert_.msg = "index out of bounds (expected)";
    CHECK(host_sort(&as) == TFL_ERR_DEVICE, "assert false fails");
}

/* PyTorch's embedding backward by segments, step by step as the GPU runs
 * it, on registered (device-visible) memory. */
static void test_embedding_segments(void)
{
    enum { N = 600, V = 37, L = 5 };
    static int64_t idx[N], sorted[N], pos[N], seg_off[N], pps[N], ppso[N], pso[N];
    static float grad[N * L], acc[N * L], gw[V * L];
    static int64_t nseg, npart;
    for (int i = 0; i < N; i++) {
        idx[i] = (int64_t)(next() % V);
        if (i % 50 == 0)
            idx[i] = 7;                        /* one long segment: several partials */
        for (int f = 0; f < L; f++)
            grad[i * L + f] = (float)((int)(next() % 200) - 100) / 8.0f;
    }
    for (int k = 0; k < V * L; k++)
        gw[k] = 0;
    /* sort by counting (independent of the radix code), stable */
    int n = 0;
    for (int v = 0; v < V; v++)
        for (int i = 0; i < N; i++)
            if (idx[i] == v) {
                sorted[n] = v;
                pos[n++] = i;
            }
    void *regs[] = { idx, sorted, pos, seg_off, pps, ppso, pso, grad, acc, gw, &nseg, &npart };
    size_t sizes[] = { sizeof idx, sizeof sorted, sizeof pos, sizeof seg_off, sizeof pps, sizeof ppso,
                       sizeof pso, sizeof grad, sizeof acc, sizeof gw, 8, 8 };
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        CHECK(tfl_mem_register(regs[i], sizes[i], TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK, "register %zu", i);
    tfl_sort_op u = { .kind = TFL_SORT_RUNS, .key = TFL_SORT_KEY_I64, .value_size = 8 };
    u.u.runs.keys_in = sorted;
    u.u.runs.values_out = seg_off;
    u.u.runs.num_out = &nseg;
    u.u.runs.num_out_size = 8;
    u.u.runs.n = N;
    CHECK(host_sort(&u) == TFL_OK, "segments");
    tfl_sort_op s = { .kind = TFL_SORT_SEGMENTS };
    s.u.seg.index_size = 8;
    s.u.seg.dtype = TFL_DT_F32;
    s.u.seg.rows_per_partial = 10;
    s.u.seg.padding_idx = -1;
    s.u.seg.num_segments = &nseg;
    s.u.seg.step = TFL_SEG_PARTIALS_PER_SEGMENT;
    s.u.seg.out = pps;
    s.u.seg.offsets = seg_off;
    s.u.seg.numel = N;
    CHECK(host_sort(&s) == TFL_OK, "partials per segment");
    tfl_sort_op sc = { .kind = TFL_SORT_SCAN };
    sc.u.scan.in = pps;
    sc.u.scan.out = ppso;
    sc.u.scan.in_size = sc.u.scan.acc_size = sc.u.scan.out_size = 8;
    sc.u.scan.n = nseg;
    sc.u.scan.exclusive = 1;
    CHECK(host_sort(&sc) == TFL_OK, "partial offsets scan");
    s.u.seg.step = TFL_SEG_NUM_PARTIALS;
    s.u.seg.a = pps;
    s.u.seg.b = ppso;
    s.u.seg.num_partials_out = &npart;
    s.u.seg.numel = -1;
    CHECK(host_sort(&s) == TFL_OK, "partial count");
    s.u.seg.step = TFL_SEG_PARTIAL_OFFSETS;
    s.u.seg.out = pso;
    CHECK(host_sort(&s) == TFL_OK, "partial offsets");
    s.u.seg.step = TFL_SEG_GRAD_WEIGHT;
    s.u.seg.rows = pos;
    s.u.seg.grad = grad;
    s.u.seg.offsets = pso;
    s.u.seg.num_partials = &npart;
    s.u.seg.acc = acc;
    s.u.seg.stride = L;
    s.u.seg.numel = N;
    CHECK(host_sort(&s) == TFL_OK, "partial sums");
    s.u.seg.step = TFL_SEG_SUM_SCATTER;
    s.u.seg.sorted = sorted;
    s.u.seg.weight = gw;
    s.u.seg.offsets = seg_off;
    s.u.seg.b = ppso;
    s.u.seg.numel = -1;
    CHECK(host_sort(&s) == TFL_OK, "sum and scatter");
    double ref[V * L] = { 0 };
    for (int i = 0; i < N; i++)
        for (int f = 0; f < L; f++)
            ref[idx[i] * L + f] += grad[i * L + f];
    for (int k = 0; k < V * L; k++)
        CHECK(fabs(gw[k] - ref[k]) <= 1e-4 * (1 + fabs(ref[k])), "gw[%d] %g vs %g", k, gw[k], ref[k]);
    /* a segment count past the arrays is refused, nothing written */
    nseg = N + 1;
    s.u.seg.step = TFL_SEG_PARTIALS_PER_SEGMENT;
    s.u.seg.out = pps;
    s.u.seg.numel = N;
    CHECK(host_sort(&s) == TFL_ERR_DEVICE, "too many segments refused");
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        tfl_mem_unregister(regs[i], TFL_MEM_HOST_REGISTERED);
    /* unregistered output memory is refused */
    int64_t sin[2] = { 1, 2 }, sidx[2] = { 0, 1 }, sout[2];
    tfl_sort_op sct = { .kind = TFL_SORT_SCATTER };
    sct.u.scatter.in = sin;
    sct.u.scatter.index = sidx;
    sct.u.scatter.out = sout;
    sct.u.scatter.n = 2;
    CHECK(host_sort(&sct) == TFL_ERR_DEVICE, "scatter to non-device memory refused");
}

/* Select order as PyTorch's radix select: -0.0 < +0.0, NaN the largest. */
static int sel_before(float a, float b)
{
    if (isnan(a) || isnan(b))
        return !isnan(a) && isnan(b);
    if (a == b)
        return signbit(a) && !signbit(b);
    return a < b;
}

static void test_select(void)
{
    enum { S = 4, N = 41 };
    float x[S * N];
    for (int i = 0; i < S * N; i++)
        x[i] = pick_float();
    for (int mode = 0; mode < 4; mode++) {      /* kth k=1, kth k=20, median, nanmedian */
        float vals[S];
        int64_t idx[S];
        tfl_sort_op op = { .kind = TFL_SORT_SELECT, .key = TFL_SORT_KEY_F32 };
        op.u.select.mode = mode < 2 ? TFL_SELECT_KTH : TFL_SELECT_MEDIAN;
        op.u.select.k = mode == 0 ? 1 : 20;
        op.u.select.ignore_nan = mode == 3;
        op.u.select.slices = S;
        op.u.select.slice_len = N;
        op.u.select.stride = 1;
        op.u.select.in.data = x;
        op.u.select.in.ndim = 1;
        op.u.select.in.sizes[0] = S;
        op.u.select.in.strides[0] = N;
        op.u.select.values.data = vals;
        op.u.select.indices.data = idx;     /* ndim 0: slice s at element s */
        CHECK(host_sort(&op) == TFL_OK, "select mode %d", mode);
        for (int s = 0; s < S; s++) {
            const float *row = x + s * N;
            /* reference: rank of each element = how many come before it */
            int nan = 0;
            for (int i = 0; i < N; i++)
                nan += isnan(row[i]) != 0;
            int kk = mode == 0 ? 1 : mode == 1 ? 20 : (mode == 2 && nan) ? N : (N - nan - 1) / 2 + 1;
            /* the kk-th smallest: the element with exactly kk-1 strictly before it
             * and at least kk at or before it, in select order */
            int found = -1;
            for (int i = 0; i < N && found < 0; i++) {
                int lt = 0, le = 0;
                for (int j = 0; j < N; j++) {
                    lt += sel_before(row[j], row[i]);
                    le += !sel_before(row[i], row[j]);
                }
                if (lt < kk && le >= kk)
                    found = i;
            }
            CHECK(found >= 0 && memcmp(&vals[s], &row[found], 4) == 0,
                  "select mode %d slice %d: %g want %g", mode, s, vals[s], found >= 0 ? row[found] : 0.0f);
            int first = -1;
            for (int i = 0; i < N && first < 0; i++)
                if (row[i] == vals[s] || (isnan(row[i]) && isnan(vals[s])))
                    first = i;
            CHECK(idx[s] == first, "select mode %d slice %d: index %lld want %d", mode, s, (long long)idx[s], first);
        }
    }
    /* topk: beyond the k-th first, in order, then ties with it in order */
    const float t[10] = { 5, 1, 7, 5, 9, 5, 2, NAN, 5, 0 };
    float tv[5];
    int64_t ti[5];
    tfl_sort_op op = { .kind = TFL_SORT_SELECT, .key = TFL_SORT_KEY_F32 };
    op.u.select.mode = TFL_SELECT_TOPK;
    op.u.select.k = 5;
    op.u.select.largest = 1;
    op.u.select.slices = 1;
    op.u.select.slice_len = 10;
    op.u.select.stride = 1;
    op.u.select.out_stride = 1;
    op.u.select.index_stride = 1;
    op.u.select.in.data = (void *)t;
    op.u.select.values.data = tv;
    op.u.select.indices.data = ti;
    CHECK(host_sort(&op) == TFL_OK, "topk");
    /* kth largest = 5 (NaN, 9, 7, then 5s): beyond: 7 (2), 9 (4), NaN (7); ties 5 at 0, 3 */
    const int64_t want[5] = { 2, 4, 7, 0, 3 };
    for (int j = 0; j < 5; j++)
        CHECK(ti[j] == want[j] && memcmp(&tv[j], &t[want[j]], 4) == 0, "topk %d: %lld", j, (long long)ti[j]);
    op.u.select.largest = 0;
    op.u.select.k = 3;
    CHECK(host_sort(&op) == TFL_OK, "bottomk");
    const int64_t want_low[3] = { 1, 9, 6 };    /* 1 and 0 beyond the 3rd smallest (2), in order */
    for (int j = 0; j < 3; j++)
        CHECK(ti[j] == want_low[j], "bottomk %d: %lld", j, (long long)ti[j]);
    op.u.select.k = 11;
    CHECK(host_sort(&op) == TFL_ERR_INVALID, "k past the slice refused");
}

/* TFL_SELECT_MODE: per slice the most frequent value (count ties: the
 * smallest; -0.0 == +0.0), against a counting reference */
static void test_mode(void)
{
    enum { S = 7, N = 23 };
    float x[S * N], vals[S];
    int64_t idx[S];
    unsigned r = 12345;
    for (int i = 0; i < S * N; i++) {
        r = r * 1103515245u + 12345u;
        x[i] = (float)((int)((r >> 16) % 5) - 2) * 0.5f;
        if (x[i] == 0.0f && (r >> 8) % 2)
            x[i] = -0.0f;
    }
    tfl_sort_op op = { .kind = TFL_SORT_SELECT, .key = TFL_SORT_KEY_F32 };
    op.u.select.mode = TFL_SELECT_MODE;
    op.u.select.slices = S;
    op.u.select.slice_len = N;
    op.u.select.stride = 1;
    op.u.select.in.data = x;
    op.u.select.in.ndim = 1;
    op.u.select.in.sizes[0] = S;
    op.u.select.in.strides[0] = N;
    op.u.select.values.data = vals;
    op.u.select.indices.data = idx;
    CHECK(host_sort_supported(&op), "mode supported");
    CHECK(host_sort(&op) == TFL_OK, "mode");
    for (int s = 0; s < S; s++) {
        const float *row = x + s * N;
        double best = 0;
        int best_n = 0;
        for (int i = 0; i < N; i++) {
            int c = 0;
            for (int j = 0; j < N; j++)
                c += row[j] == row[i];
            if (c > best_n || (c == best_n && row[i] < best)) {
                best_n = c;
                best = row[i];
            }
        }
        CHECK(vals[s] == best, "mode slice %d: %g, want %g", s, vals[s], best);
        CHECK(idx[s] >= 0 && idx[s] < N && row[idx[s]] == best, "mode slice %d index %lld", s,
              (long long)idx[s]);
    }
}

int main(void)
{
    for (int desc = 0; desc < 2; desc++) {
        test_slices_f32(1, 1, 1, desc);
        test_slices_f32(3, 17, 1, desc);
        test_slices_f32(50, 9, 0, desc);
        test_slices_f32(2, 3000, 1, desc);
        test_slices_f32(40, 400, 1, desc);       /* enough work for several threads */
        test_slices_f16(desc);
        test_radix_i64_segments(0, desc);
        test_radix_i64_segments(1, desc);
        test_radix_pass_i32(0, 8, desc);
        test_radix_pass_i32(8, 8, desc);
        test_radix_pass_i32(27, 5, desc);
        test_radix_pass_i32(0, 32, desc);
        test_chained_passes_f32(desc);
    }
    test_fill_gather();
    test_shuffle_ties();
    test_refusals();
    test_seq_basics();
    test_embedding_segments();
    test_select();
    test_mode();
    printf("test_ops_sort: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

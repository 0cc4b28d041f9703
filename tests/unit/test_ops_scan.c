/*
 * test_ops_scan.c - host_scan (torchfl/ops/scan.h): scans along outer,
 * middle and innermost dims against double-precision references computed
 * here, in-place scans, cummax/cummin ties and NaNs, logaddexp's
 * infinities, the nonzero steps (count, partial zeroing, select with a
 * capacity limit, unravel) and the refusals (bad sizes, out-of-range flat
 * index, unsupported dtypes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static double val(int64_t k)                 /* a fixed pseudo-random value */
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (double)(h % 2001) / 1000.0 - 1.0;   /* [-1, 1] */
}

/* Scan [outer][len][inner] in double; fn 1 add, 2 mul, 3 logaddexp. */
static void ref_scan(const double *x, double *y, int64_t outer, int64_t len, int64_t inner, int fn)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double acc = 0;
            for (int64_t j = 0; j < len; j++) {
                double v = x[(o * len + j) * inner + i];
                if (j == 0) acc = v;
                else if (fn == 1) acc += v;
                else if (fn == 2) acc *= v;
                else acc = fmax(acc, v) + log1p(exp(-fabs(acc - v)));
                y[(o * len + j) * inner + i] = acc;
            }
        }
}

static void test_dim_float(int64_t outer, int64_t len, int64_t inner, tfl_scan_fn fn, int has_init)
{
    const int64_t n = outer * len * inner;
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(n + 1));
    float *xf = malloc(sizeof(float) * (size_t)(n + 1)), *yf = malloc(sizeof(float) * (size_t)(n + 1));
    double *yd = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++) {
        double v = val(k);
        if (fn == TFL_SCAN_MUL) v = 1.0 + v / 8;    /* keep products in range */
        xf[k] = (float)v;
        x[k] = xf[k];
    }
    ref_scan(x, y, outer, len, inner, (int)fn);
    tfl_scan_op op = { .kind = TFL_SCAN_DIM, .fn = fn, .dtype = TFL_DT_F32, .src = xf, .dst = yf,
                       .outer = outer, .len = len, .inner = inner, .has_init = has_init };
    float initf = fn == TFL_SCAN_ADD ? 0.0f : fn == TFL_SCAN_MUL ? 1.0f : -INFINITY;
    memcpy(op.init, &initf, 4);
    CHECK(host_scan_supported(&op), "f32 scan supported");
    CHECK(host_scan(&op) == TFL_OK, "f32 scan runs");
    for (int64_t k = 0; k < n; k++) {
        double tol = (double)len * 1.2e-7 * (fabs(y[k]) + (fn == TFL_SCAN_ADD ? (double)len : 1.0)) + 1e-6;
        if (fabs(yf[k] - y[k]) > tol) {
            CHECK(0, "f32 fn %d [%lld,%lld,%lld] k=%lld: %g vs %g", (int)fn, (long long)outer,
                  (long long)len, (long long)inner, (long long)k, yf[k], y[k]);
            break;
        }
    }
    /* f64, in place */
    memcpy(yd, x, sizeof(double) * (size_t)n);
    op.dtype = TFL_DT_F64;
    op.src = yd;
    op.dst = yd;
    double initd = initf;
    memcpy(op.init, &initd, 8);
    CHECK(host_scan(&op) == TFL_OK, "f64 scan runs");
    for (int64_t k = 0; k < n; k++)
        if (fabs(yd[k] - y[k]) > 1e-12 * (double)len * (1 + fabs(y[k]))) {
            CHECK(0, "f64 in place fn %d k=%lld: %.17g vs %.17g", (int)fn, (long long)k, yd[k], y[k]);
            break;
        }
    free(x); free(y); free(xf); free(yf); free(yd);
}

static void test_dim_int(void)
{
    enum { O = 3, L = 50, I = 7, N = O * L * I };
    int64_t x[N], y[N];
    int32_t x32[N], y32[N];
    for (int k = 0; k < N; k++) {
        x[k] = (int64_t)(val(k) * 1000) * 1000003;
        x32[k] = (int32_t)(val(k) * 1000);
    }
    tfl_scan_op op = { .kind = TFL_SCAN_DIM, .fn = TFL_SCAN_ADD, .dtype = TFL_DT_I64, .src = x,
                       .dst = y, .outer = O, .len = L, .inner = I, .has_init = 1 };
    CHECK(host_scan(&op) == TFL_OK, "i64 cumsum");
    op.dtype = TFL_DT_I32; op.src = x32; op.dst = y32;
    CHECK(host_scan(&op) == TFL_OK, "i32 cumsum");
    for (int o = 0; o < O; o++)
        for (int i = 0; i < I; i++) {
            int64_t a = 0, a32 = 0;
            for (int j = 0; j < L; j++) {
                int k = (o * L + j) * I + i;
                a += x[k];
                a32 += x32[k];
                CHECK(y[k] == a, "i64 cumsum at %d", k);
                CHECK(y32[k] == (int32_t)a32, "i32 cumsum at %d", k);
            }
        }
    /* cumprod wraps modulo 2^64 as the device's does */
    int64_t p[4] = { 1ll << 40, 1ll << 30, 3, -1 }, q[4];
    op = (tfl_scan_op){ .kind = TFL_SCAN_DIM, .fn = TFL_SCAN_MUL, .dtype = TFL_DT_I64, .src = p,
                        .dst = q, .outer = 1, .len = 4, .inner = 1 };
    CHECK(host_scan(&op) == TFL_OK, "i64 cumprod");
    uint64_t w = (uint64_t)1 << 40;
    CHECK(q[0] == (int64_t)w, "cumprod 0");
    w *= (uint64_t)1 << 30;
    CHECK(q[1] == (int64_t)w, "cumprod 1 wraps");
    w *= 3;
    CHECK(q[2] == (int64_t)w && q[3] == -(int64_t)w, "cumprod 2,3");
    op.fn = TFL_SCAN_LOGADDEXP;
    CHECK(!host_scan_supported(&op), "logaddexp on integers refused");
    op.fn = TFL_SCAN_ADD; op.dtype = TFL_DT_F16;
    CHECK(!host_scan_supported(&op), "f16 scan not claimed");
    op.dtype = TFL_DT_I64; op.len = -1;
    CHECK(host_scan(&op) == TFL_ERR_INVALID, "negative size refused");
}

static void test_logaddexp_special(void)
{
    const double ninf = -INFINITY, inf = INFINITY;
    double x[6] = { ninf, ninf, 0.0, inf, 1.0, 2.0 }, y[6];
    tfl_scan_op op = { .kind = TFL_SCAN_DIM, .fn = TFL_SCAN_LOGADDEXP, .dtype = TFL_DT_F64,
                       .src = x, .dst = y, .outer = 1, .len = 6, .inner = 1, .has_init = 1 };
    memcpy(op.init, &ninf, 8);
    CHECK(host_scan(&op) == TFL_OK, "logaddexp runs");
    CHECK(y[0] == ninf && y[1] == ninf, "-inf stays -inf (no NaN from -inf - -inf)");
    CHECK(y[2] == 0.0, "log(0 + e^0) = 0: %g", y[2]);
    CHECK(y[3] == inf && y[4] == inf && y[5] == inf, "+inf absorbs");
    double z[3] = { 1.0, NAN, 0.0 };
    op.src = z; op.dst = y; op.len = 3;
    CHECK(host_scan(&op) == TFL_OK && y[0] == 1.0 && isnan(y[1]) && isnan(y[2]), "NaN propagates");
}

static void test_index(void)
{
    /* [2][5][3], scan along the middle dim */
    enum { O = 2, L = 5, I = 3, N = O * L * I };
    float x[N];
    for (int k = 0; k < N; k++)
        x[k] = (float)((k * 7) % 4);          /* ties */
    x[1 * I + 1] = NAN;                       /* a NaN in lane (0, 1) at j = 1 */
    x[(L + 3) * I + 2] = NAN;                 /* and in lane (1, 2) at j = 3 */
    float v[N];
    int64_t ix[N];
    for (int mx = 0; mx < 2; mx++) {
        tfl_scan_op op = { .kind = TFL_SCAN_DIM_INDEX, .fn = mx ? TFL_SCAN_MAX : TFL_SCAN_MIN,
                           .dtype = TFL_DT_F32, .src = x, .dst = v, .indices = ix,
                           .outer = O, .len = L, .inner = I, .has_init = 1 };
        float init = mx ? -INFINITY : INFINITY;
        memcpy(op.init, &init, 4);
        CHECK(host_scan(&op) == TFL_OK, "cummax/min runs");
        for (int o = 0; o < O; o++)
            for (int i = 0; i < I; i++) {
                double best = 0;
                int64_t bi = -1;
                int seen_nan = 0;
                for (int j = 0; j < L; j++) {
                    int k = (o * L + j) * I + i;
                    double e = x[k];
                    if (isnan(e)) { seen_nan = 1; best = e; bi = j; }
                    else if (!seen_nan && (bi < 0 || (mx ? e >= best : e <= best))) { best = e; bi = j; }
                    CHECK(ix[k] == bi, "index at %d: %lld vs %lld", k, (long long)ix[k], (long long)bi);
                    CHECK(seen_nan ? isnan(v[k]) : v[k] == best, "value at %d", k);
                }
            }
    }
}

static void test_nonzero_steps(void)
{
    enum { N = 1000 };
    float f[N];
    uint8_t b[N];
    int expect = 0;
    for (int i = 0; i < N; i++) {
        f[i] = (i % 3 == 0) ? 0.0f : (float)val(i);
        if (i == 7) f[i] = -0.0f;             /* zero */
        if (i == 8) f[i] = NAN;               /* nonzero */
        b[i] = f[i] != 0.0f;
        expect += f[i] != 0.0f;
    }
    /* count: init + nonzeros, then partials zeroed */
    int32_t part[5] = { 9, 9, 9, 9, 9 };
    tfl_scan_op op = { .kind = TFL_SCAN_TOTAL, .dtype = TFL_DT_F32, .src = f, .n = N, .nonzero = 1,
                       .total = part, .total_dtype = TFL_DT_I32, .zero_after = 4 };
    int32_t init = 5;
    memcpy(op.init, &init, 4);
    CHECK(host_scan(&op) == TFL_OK, "count runs");
    CHECK(part[0] == expect + 5 && part[1] == 0 && part[3] == 0 && part[4] == 9,
          "count %d (want %d), zeros after, untouched past", part[0], expect + 5);
    /* sum of int partials */
    int32_t parts[3] = { 4, -1, 10 }, tot = 0;
    op = (tfl_scan_op){ .kind = TFL_SCAN_TOTAL, .dtype = TFL_DT_I32, .src = parts, .n = 3,
                        .total = &tot, .total_dtype = TFL_DT_I32 };
    CHECK(host_scan(&op) == TFL_OK && tot == 13, "sum of partials %d", tot);
    /* n = 0 writes init (the compaction init kernel's *count = 0) */
    int64_t c64 = 77;
    op = (tfl_scan_op){ .kind = TFL_SCAN_TOTAL, .total = &c64, .total_dtype = TFL_DT_I64 };
    CHECK(host_scan(&op) == TFL_OK && c64 == 0, "empty count writes 0");

    /* select: flat indices of nonzeros, for f32 and bool, with a base */
    int64_t out[N], cnt_ref = 0;
    int32_t cnt = -1;
    for (int pass = 0; pass < 2; pass++) {
        op = (tfl_scan_op){ .kind = TFL_SCAN_SELECT_NONZERO, .dtype = pass ? TFL_DT_BOOL : TFL_DT_F32,
                            .src = pass ? (const void *)b : (const void *)f, .n = N, .out_index = out,
                            .out_capacity = N, .index_base = 100 * pass, .total = &cnt,
                            .total_dtype = TFL_DT_I32 };
        CHECK(host_scan(&op) == TFL_OK, "select runs");
        cnt_ref = 0;
        for (int i = 0; i < N; i++)
            if (f[i] != 0.0f) {
                CHECK(out[cnt_ref] == i + 100 * pass, "select[%lld]", (long long)cnt_ref);
                cnt_ref++;
            }
        CHECK(cnt == cnt_ref, "select count %d vs %lld", cnt, (long long)cnt_ref);
    }
    /* too little room: refused, nothing written */
    int64_t small[4] = { -5, -5, -5, -5 };
    op.out_index = small;
    op.out_capacity = 4;
    CHECK(host_scan(&op) == TFL_ERR_DEVICE && small[0] == -5, "over capacity refused");

    /* unravel flat indices of a [3][4][5] tensor */
    enum { M = 7 };
    int64_t u[3 * M];
    const int64_t flat[M] = { 0, 4, 5, 19, 20, 37, 59 };
    memcpy(u, flat, sizeof flat);
    op = (tfl_scan_op){ .kind = TFL_SCAN_UNRAVEL, .out_index = u, .n = M, .ndim = 3,
                        .sizes = { 3, 4, 5 } };
    CHECK(host_scan(&op) == TFL_OK, "unravel runs");
    for (int i = 0; i < M; i++)
        CHECK(u[i] == flat[i] / 20 && u[M + i] == flat[i] / 5 % 4 && u[2 * M + i] == flat[i] % 5,
              "unravel %d", i);
    int64_t bad[2] = { 3, 60 };
    op.out_index = bad;
    op.n = 2;
    CHECK(host_scan(&op) == TFL_ERR_INVALID && bad[0] == 3, "index past the tensor refused");
}

int main(void)
{
    static const int64_t shapes[][3] = {
        { 1, 1, 1 }, { 1, 7, 1 }, { 1, 1000, 1 }, { 5, 33, 1 }, { 1, 9, 17 }, { 4, 6, 5 }, { 3, 1, 4 },
        { 2, 0, 3 }, { 0, 4, 4 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int fn = TFL_SCAN_ADD; fn <= TFL_SCAN_LOGADDEXP; fn++)
            for (int has_init = 0; has_init < 2; has_init++)
                test_dim_float(shapes[s][0], shapes[s][1], shapes[s][2], (tfl_scan_fn)fn, has_init);
    test_dim_int();
    test_logaddexp_special();
    test_index();
    test_nonzero_steps();
    printf("test_ops_scan: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

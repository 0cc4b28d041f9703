/*
 * test_ptx_torch.c - the shapes of PyTorch's CUDA kernels (vectorised
 * elementwise with a tail, IntDivider index math, Welford layer norm,
 * block scan, argmax shuffles, half scatter-add atomics, 64-bit strided
 * indexing), in all three PTX flavours, against host computations.
 */
#include "ptx_harness.h"

typedef struct { unsigned d, m, s; } IntDivider;

static IntDivider make_div(unsigned d)
{
    IntDivider r = { d, 0, 0 };
    for (r.s = 0; r.s < 32; r.s++) if ((1u << r.s) >= d) break;
    uint64_t one = 1;
    r.m = (unsigned)(((one << 32) * ((one << r.s) - d)) / d + 1);
    return r;
}

static void test_gelu(hx_module *m)
{
    long long n = 10003;            /* a tail that is not a multiple of 4 */
    float *x = dalloc(n * 4), *y = dalloc(n * 4);
    for (long long i = 0; i < n; i++) x[i] = rnd_f(-4, 4);
    void *args[] = { &x, &y, &n };
    CHECK(launch1(m, "vec_gelu", (unsigned)((n / 4 + 128) / 128), 128, 0, args) == HX_OK, "gelu");
    int bad = 0;
    for (long long i = 0; i < n; i++) {
        double r = 0.5 * x[i] * (1.0 + erf(x[i] * 0.70710678));
        if (fabs(y[i] - r) > 1e-5 * (1 + fabs(r))) bad++;
    }
    CHECK(bad == 0, "gelu: %d mismatches", bad);
    dfree(x); dfree(y);
}

static void test_permute(hx_module *m)
{
    int A = 7, B = 13, C = 5, n = A * B * C;
    float *in = dalloc(n * 4), *out = dalloc(n * 4);
    for (int i = 0; i < n; i++) in[i] = (float)i;
    /* out[a][b][c] (shape A,B,C) = in[c][a][b] (input shape C,A,B) */
    IntDivider d2 = make_div((unsigned)C), d1 = make_div((unsigned)B);
    int s0 = B, s1 = 1, s2 = A * B;
    void *args[] = { &in, &out, &d2, &d1, &s0, &s1, &s2, &n };
    CHECK(launch1(m, "permute3", (n + 63) / 64, 64, 0, args) == HX_OK, "permute");
    int bad = 0;
    for (int a = 0; a < A; a++)
        for (int b = 0; b < B; b++)
            for (int c = 0; c < C; c++)
                if (out[(a * B + b) * C + c] != in[c * A * B + a * B + b]) bad++;
    CHECK(bad == 0, "permute: %d mismatches", bad);
    dfree(in); dfree(out);
}

static void test_layer_norm(hx_module *m)
{
    int rows = 5, cols = 1000;
    float eps = 1e-5f;
    float *x = dalloc(rows * cols * 4), *y = dalloc(rows * cols * 4), *mean = dalloc(rows * 4), *rstd = dalloc(rows * 4);
    for (int i = 0; i < rows * cols; i++) x[i] = rnd_f(-3, 5);
    void *args[] = { &x, &y, &mean, &rstd, &cols, &eps };
    CHECK(launch1(m, "layer_norm", rows, 256, 0, args) == HX_OK, "layer_norm");
    int bad = 0;
    for (int r = 0; r < rows; r++) {
        double mu = 0, var = 0;
        for (int j = 0; j < cols; j++) mu += x[r * cols + j];
        mu /= cols;
        for (int j = 0; j < cols; j++) var += (x[r * cols + j] - mu) * (x[r * cols + j] - mu);
        var /= cols;
        double rs = 1 / sqrt(var + eps);
        if (fabs(mean[r] - mu) > 1e-5 || fabs(rstd[r] - rs) > 1e-4 * rs) bad++;
        for (int j = 0; j < cols; j++)
            if (fabs(y[r * cols + j] - (x[r * cols + j] - mu) * rs) > 1e-4) bad++;
    }
    CHECK(bad == 0, "layer_norm: %d mismatches", bad);
    dfree(x); dfree(y); dfree(mean); dfree(rstd);
}

static void test_scan_argmax(hx_module *m)
{
    int n = 700;
    int *in = dalloc(1024 * 4), *out = dalloc(1024 * 4);
    for (int i = 0; i < n; i++) in[i] = (int)(rnd_u32() % 100) - 50;
    void *args[] = { &in, &out, &n };
    CHECK(launch1(m, "block_scan", 1, 1024, 1024 * 4, args) == HX_OK, "scan");
    int bad = 0, acc = 0;
    for (int i = 0; i < n; i++) { acc += in[i]; if (out[i] != acc) bad++; }
    CHECK(bad == 0, "scan: %d mismatches", bad);
    dfree(in); dfree(out);

    int rows = 9, cols = 333;
    float *x = dalloc(rows * cols * 4), *val = dalloc(rows * 4);
    long long *idx = dalloc(rows * 8);
    for (int i = 0; i < rows * cols; i++) x[i] = (float)(rnd_u32() % 50);   /* ties */
    void *a2[] = { &x, &idx, &val, &cols };
    CHECK(launch1(m, "argmax_rows", rows, 32, 0, a2) == HX_OK, "argmax");
    bad = 0;
    for (int r = 0; r < rows; r++) {
        int bi = 0;
        for (int j = 1; j < cols; j++) if (x[r * cols + j] > x[r * cols + bi]) bi = j;
        if (idx[r] != bi || val[r] != x[r * cols + bi]) bad++;
    }
    CHECK(bad == 0, "argmax: %d mismatches", bad);
    dfree(x); dfree(val); dfree(idx);
}

static uint16_t f2h(float f) { _Float16 h = (_Float16)f; uint16_t u; memcpy(&u, &h, 2); return u; }
static float h2f(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return (float)h; }

static void test_scatter_strided(hx_module *m)
{
    int n = 3000, bins = 37;
    long long *index = dalloc(n * 8);
    uint16_t *src = dalloc(n * 2), *dst = dalloc(64 * 2);
    for (int i = 0; i < n; i++) { index[i] = rnd_u32() % bins; src[i] = f2h(0.25f * (float)(rnd_u32() % 4)); }
    memset(dst, 0, 64 * 2);
    void *args[] = { &index, &src, &dst, &n };
    CHECK(launch1(m, "scatter_add_half", (n + 127) / 128, 128, 0, args) == HX_OK, "scatter");
    /* every partial sum is a multiple of 0.25 below 2048: exact in half */
    int bad = 0;
    for (int b = 0; b < bins; b++) {
        double s = 0;
        for (int i = 0; i < n; i++) if (index[i] == b) s += h2f(src[i]);
        if (h2f(dst[b]) != (float)s) bad++;
    }
    CHECK(bad == 0, "scatter_add half: %d mismatches", bad);
    dfree(index); dfree(src); dfree(dst);

    long long rows = 50, cols = 77, stride = 100;
    double *s = dalloc(rows * stride * 8), *d = dalloc(rows * cols * 8);
    for (long long i = 0; i < rows * stride; i++) s[i] = (double)i * 0.5;
    void *a2[] = { &s, &d, &rows, &cols, &stride };
    CHECK(launch1(m, "strided_copy", (unsigned)((rows * cols + 255) / 256), 256, 0, a2) == HX_OK, "strided");
    bad = 0;
    for (long long r = 0; r < rows; r++)
        for (long long c = 0; c < cols; c++)
            if (d[r * cols + c] != s[r * stride + c] * 2.0 - (double)c) bad++;
    CHECK(bad == 0, "strided: %d mismatches", bad);
    dfree(s); dfree(d);
}

int main(void)
{
    for (int v = 0; ptx_variants[v]; v++) {
        ptx_variant = ptx_variants[v];
        hx_module *m = load_ptx("k_torch", NULL);
        test_gelu(m);
        test_permute(m);
        test_layer_norm(m);
        test_scan_argmax(m);
        test_scatter_strided(m);
        hx_module_destroy(m);
    }
    return finish("test_ptx_torch");
}

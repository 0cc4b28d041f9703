/*
 * test_ptx_basic.c - host executor end to end on nvcc-generated PTX:
 * elementwise (saxpy), reductions through shared memory and barriers,
 * double atomics, 2D grids, softmax with dynamic shared memory, divergent
 * loops with break, __syncthreads_count/and/or.  Each result is compared
 * with a host computation.
 */
#include "ptx_harness.h"
#include "backends/host/hx_ir.h"

static void test_saxpy(hx_module *m)
{
    int n = 10000;
    float a = 2.5f;
    float *x = dalloc(n * sizeof(float)), *y = dalloc(n * sizeof(float));
    float *ref = malloc(n * sizeof(float)), *ref2 = malloc(n * sizeof(float));
    /* optimised code contracts a*x+y to fma.rn; -G code keeps mul + add */
    for (int i = 0; i < n; i++) {
        x[i] = rnd_f(-1, 1); y[i] = rnd_f(-1, 1);
        ref[i] = fmaf(a, x[i], y[i]);
        volatile float p = a * x[i];
        ref2[i] = p + y[i];
    }
    int fused = ptx_variant[0] != '_' || ptx_variant[1] != 'G';
    void *args[] = { &n, &a, &x, &y };
    CHECK(launch1(m, "saxpy", (n + 127) / 128, 128, 0, args) == HX_OK, "saxpy launch");
    int bad = 0;
    for (int i = 0; i < n; i++) if (y[i] != (fused ? ref[i] : ref2[i])) bad++;
    CHECK(bad == 0, "saxpy: %d mismatches", bad);
    dfree(x); dfree(y); free(ref); free(ref2);
}

static void test_reduce(hx_module *m)
{
    int n = 100000, blocks = 37;
    float *in = dalloc(n * sizeof(float)), *out = dalloc(blocks * sizeof(float));
    double ref = 0;
    for (int i = 0; i < n; i++) { in[i] = rnd_f(0, 1); ref += in[i]; }
    void *args[] = { &in, &out, &n };
    CHECK(launch1(m, "reduce_sum", blocks, 256, 0, args) == HX_OK, "reduce launch");
    double got = 0;
    for (int b = 0; b < blocks; b++) got += out[b];
    CHECK(fabs(got - ref) < 1e-3 * ref, "reduce: got %f want %f", got, ref);
    dfree(in); dfree(out);

    int nd = 5000;
    double *din = dalloc(nd * sizeof(double)), *dout = dalloc(sizeof(double));
    double dref = 0;
    for (int i = 0; i < nd; i++) { din[i] = (double)(i % 97) * 0.25; dref += din[i]; }
    *dout = 0;
    void *a2[] = { &din, &dout, &nd };
    CHECK(launch1(m, "reduce_atomic", (nd + 127) / 128, 128, 0, a2) == HX_OK, "reduce_atomic");
    CHECK(*dout == dref, "reduce_atomic: got %f want %f", *dout, dref);
    dfree(din); dfree(dout);
}

static void test_transpose(hx_module *m)
{
    int w = 50, h = 37;
    float *in = dalloc(w * h * sizeof(float)), *out = dalloc(w * h * sizeof(float));
    for (int i = 0; i < w * h; i++) in[i] = (float)i;
    void *args[] = { &in, &out, &w, &h };
    char err[512];
    hx_status st = launch3(m, "transpose", (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, args, err, sizeof err);
    CHECK(st == HX_OK, "transpose: %s", err);
    int bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (out[x * h + y] != in[y * w + x]) bad++;
    CHECK(bad == 0, "transpose: %d mismatches", bad);
    dfree(in); dfree(out);
}

static void test_softmax(hx_module *m)
{
    int rows = 7, cols = 300;
    float *in = dalloc(rows * cols * sizeof(float)), *out = dalloc(rows * cols * sizeof(float));
    for (int i = 0; i < rows * cols; i++) in[i] = rnd_f(-5, 5);
    void *args[] = { &in, &out, &cols };
    CHECK(launch1(m, "softmax_rows", rows, 128, 128 * sizeof(float), args) == HX_OK, "softmax");
    double maxerr = 0;
    for (int r = 0; r < rows; r++) {
        double mx = -1e30, s = 0;
        for (int c = 0; c < cols; c++) if (in[r * cols + c] > mx) mx = in[r * cols + c];
        for (int c = 0; c < cols; c++) s += exp(in[r * cols + c] - mx);
        for (int c = 0; c < cols; c++) {
            double e = fabs(out[r * cols + c] - exp(in[r * cols + c] - mx) / s);
            if (e > maxerr) maxerr = e;
        }
    }
    CHECK(maxerr < 1e-6, "softmax max error %g", maxerr);
    dfree(in); dfree(out);
}

static void test_collatz(hx_module *m)
{
    int n = 1000;
    unsigned *in = dalloc(n * 4), *st = dalloc(n * 4);
    for (int i = 0; i < n; i++) in[i] = (unsigned)i + 1;
    in[5] = 0;   /* never reaches 1: hits the limit */
    void *args[] = { &in, &st, &n };
    CHECK(launch1(m, "collatz", (n + 63) / 64, 64, 0, args) == HX_OK, "collatz");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        unsigned v = in[i], s = 0;
        while (v != 1) { v = (v & 1) ? 3 * v + 1 : v / 2; s++; if (s > 1000) { s = 0xffffffffu; break; } }
        if (st[i] != s) bad++;
    }
    CHECK(bad == 0, "collatz: %d mismatches", bad);
    dfree(in); dfree(st);
}

static void test_sync_count(hx_module *m)
{
    int *in = dalloc(200 * 4), *out = dalloc(3 * 4);
    int pos = 0;
    for (int i = 0; i < 200; i++) { in[i] = (int)(rnd_u32() % 7) - 3; if (in[i] > 0) pos++; }
    void *args[] = { &in, &out };
    CHECK(launch1(m, "syncthreads_count", 1, 200, 0, args) == HX_OK, "syncthreads_count");
    CHECK(out[0] == pos, "count %d want %d", out[0], pos);
    CHECK(out[1] == 1 && out[2] == 0, "and %d or %d", out[1], out[2]);
    dfree(in); dfree(out);
}

/* several host threads launching into the same module at once (one uses
 * the pool, the others run their blocks on their own thread) */
#include <pthread.h>
struct thr { hx_module *m; int id, bad; };
static void *launcher(void *arg)
{
    struct thr *t = arg;
    int n = 5000;
    float *x = dalloc(n * 4), *y = dalloc(n * 4);
    for (int rep = 0; rep < 20; rep++) {
        float a = (float)(t->id + rep);
        for (int i = 0; i < n; i++) { x[i] = (float)i; y[i] = (float)t->id; }
        void *args[] = { &n, &a, &x, &y };
        if (launch1(t->m, "saxpy", (n + 127) / 128, 128, 0, args) != HX_OK) t->bad++;
        for (int i = 0; i < n; i++) if (y[i] != fmaf(a, (float)i, (float)t->id)) { t->bad++; break; }
    }
    dfree(x); dfree(y);
    hx_exec_thread_cleanup();
    return NULL;
}

static void test_threads(hx_module *m)
{
    pthread_t th[4];
    struct thr t[4];
    for (int i = 0; i < 4; i++) { t[i].m = m; t[i].id = i; t[i].bad = 0; pthread_create(&th[i], NULL, launcher, &t[i]); }
    int bad = 0;
    for (int i = 0; i < 4; i++) { pthread_join(th[i], NULL); bad += t[i].bad; }
    CHECK(bad == 0, "concurrent launches: %d failures", bad);
}

int main(void)
{
    for (int v = 0; ptx_variants[v]; v++) {
        ptx_variant = ptx_variants[v];
        hx_module *m = load_ptx("k_basic", NULL);
        test_saxpy(m);
        test_reduce(m);
        test_transpose(m);
        test_softmax(m);
        test_collatz(m);
        test_sync_count(m);
        if (v == 0) test_threads(m);
        hx_module_destroy(m);
    }
    return finish("test_ptx_basic");
}

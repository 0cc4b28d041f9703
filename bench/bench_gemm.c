/*
 * bench_gemm.c - GEMM throughput through torchfl's cuBLAS vs OpenBLAS.
 *
 * The torchfl side is the honest path: build/libtorchfl.so is dlopened and
 * cublasSgemm_v2 / cublasDgemm_v2 / cublasGemmEx are called on cudaMalloc
 * memory, exactly as a CUDA program under the preload does (argument
 * checks, address-map checks, route, host backend).  The reference is
 * cblas_sgemm / cblas_dgemm called directly on the same buffers; for fp16
 * and bf16 it is cblas_sgemm on fp32 copies of the operands (what a CPU
 * user would run), so the ratio shows the cost of the conversions.
 * The two are timed alternately in one run.  Reported: GFLOP/s of the
 * best of N rounds each, their ratio, and the median of the per-round
 * ratios (each round times both back to back, so on a busy machine the
 * median pair ratio is the steadier figure).
 *
 * usage: bench_gemm [path/to/libtorchfl.so] [rounds]
 * (default: ./libtorchfl.so, then build/libtorchfl.so; 5 rounds)
 * OPENBLAS_NUM_THREADS=1 times single-threaded runs by thread CPU time,
 * the steadier figure on a shared machine.
 */
#include <cblas.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/half.h"

/* cuBLAS/cudart ABI, declared here so the bench needs no CUDA headers */
typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *,
                        int, const float *, int, const float *, float *, int);
typedef int (*dgemm_fn)(void *, int, int, int, int, int, const double *, const double *,
                        int, const double *, int, const double *, double *, int);
typedef int (*gemmex_fn)(void *, int, int, int, int, int, const void *, const void *,
                         int, int, const void *, int, int, const void *, void *, int,
                         int, int, int);
enum { R_16F = 2, R_32F = 0, R_16BF = 14, COMPUTE_32F = 68, ALGO_DEFAULT = -1 };

/* Wall clock; with one OpenBLAS thread (OPENBLAS_NUM_THREADS=1) the
 * calling thread's CPU time instead, which a busy machine disturbs less. */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct {
    malloc_fn cuda_malloc;
    free_fn cuda_free;
    create_fn create;
    destroy_fn destroy;
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    gemmex_fn gemmex;
} T;

static int load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
    T.cuda_malloc = (malloc_fn)dlsym(h, "cudaMalloc");
    T.cuda_free = (free_fn)dlsym(h, "cudaFree");
    T.create = (create_fn)dlsym(h, "cublasCreate_v2");
    T.destroy = (destroy_fn)dlsym(h, "cublasDestroy_v2");
    T.sgemm = (sgemm_fn)dlsym(h, "cublasSgemm_v2");
    T.dgemm = (dgemm_fn)dlsym(h, "cublasDgemm_v2");
    T.gemmex = (gemmex_fn)dlsym(h, "cublasGemmEx");
    return T.cuda_malloc && T.cuda_free && T.create && T.sgemm && T.dgemm && T.gemmex ? 0 : -2;
}

enum kind { K_SGEMM, K_DGEMM, K_HGEMMEX, K_BGEMMEX };
static const char *kname[] = { "sgemm", "dgemm", "gemmEx f16", "gemmEx bf16" };

/* The bench and libtorchfl.so each hold their own OpenBLAS (the library's
 * is linked in privately), each with a thread pool whose workers spin for
 * a while after a call.  Let them go idle before timing the other one. */
static void settle(void)
{
    struct timespec ts = { 0, 150 * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void *dalloc(size_t n)
{
    void *p = NULL;
    if (T.cuda_malloc(&p, n) != 0) {
        fprintf(stderr, "cudaMalloc(%zu) failed\n", n);
        exit(1);
    }
    return p;
}

static void bench(void *handle, enum kind k, int n, int rounds)
{
    size_t nn = (size_t)n * n;
    size_t es = k == K_DGEMM ? 8 : k == K_SGEMM ? 4 : 2;
    void *A = dalloc(nn * es), *B = dalloc(nn * es), *C = dalloc(nn * (k == K_DGEMM ? 8 : 4));
    float *Af = NULL, *Bf = NULL, *Cf = NULL;
    srand(1);
    for (size_t i = 0; i < nn; i++) {
        float a = (float)rand() / RAND_MAX - 0.5f, b = (float)rand() / RAND_MAX - 0.5f;
        switch (k) {
        case K_SGEMM: ((float *)A)[i] = a; ((float *)B)[i] = b; break;
        case K_DGEMM: ((double *)A)[i] = a; ((double *)B)[i] = b; break;
        case K_HGEMMEX: ((uint16_t *)A)[i] = tfl_f32_to_f16(a); ((uint16_t *)B)[i] = tfl_f32_to_f16(b); break;
        case K_BGEMMEX: ((uint16_t *)A)[i] = tfl_f32_to_bf16(a); ((uint16_t *)B)[i] = tfl_f32_to_bf16(b); break;
        }
    }
    if (k == K_HGEMMEX || k == K_BGEMMEX) {
        /* the CPU reference works on fp32 copies (and writes fp32) */
        Af = malloc(nn * 4); Bf = malloc(nn * 4); Cf = malloc(nn * 4);
        for (size_t i = 0; i < nn; i++) {
            uint16_t a = ((uint16_t *)A)[i], b = ((uint16_t *)B)[i];
            Af[i] = k == K_HGEMMEX ? tfl_f16_to_f32(a) : tfl_bf16_to_f32(a);
            Bf[i] = k == K_HGEMMEX ? tfl_f16_to_f32(b) : tfl_bf16_to_f32(b);
        }
    }
    const float one = 1.0f, zero = 0.0f;
    const double oned = 1.0, zerod = 0.0;
    double best_ref = 1e30, best_tfl = 1e30;
    double *pair = malloc(sizeof(double) * (size_t)rounds);
    int status = 0;
    for (int r = 0; r < rounds + 1; r++) {   /* round 0 warms up both */
        settle();
        double t0 = now();
        switch (k) {
        case K_SGEMM: cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n); break;
        case K_DGEMM: cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n); break;
        default: cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, Af, n, Bf, n, 0.0f, Cf, n); break;
        }
        double t1 = now();
        settle();
        double t1b = now();
        switch (k) {
        case K_SGEMM: status |= T.sgemm(handle, 0, 0, n, n, n, &one, A, n, B, n, &zero, C, n); break;
        case K_DGEMM: status |= T.dgemm(handle, 0, 0, n, n, n, &oned, A, n, B, n, &zerod, C, n); break;
        case K_HGEMMEX:
            status |= T.gemmex(handle, 0, 0, n, n, n, &one, A, R_16F, n, B, R_16F, n, &zero, C,
                               R_16F, n, COMPUTE_32F, ALGO_DEFAULT);
            break;
        case K_BGEMMEX:
            status |= T.gemmex(handle, 0, 0, n, n, n, &one, A, R_16BF, n, B, R_16BF, n, &zero, C,
                               R_16BF, n, COMPUTE_32F, ALGO_DEFAULT);
            break;
        }
        double t2 = now();
        if (r > 0) {
            double tr = t1 - t0, tt = t2 - t1b;
            if (tr < best_ref) best_ref = tr;
            if (tt < best_tfl) best_tfl = tt;
            pair[r - 1] = tr / tt;
        }
    }
    qsort(pair, (size_t)rounds, sizeof(double), cmp_double);
    double med = rounds % 2 ? pair[rounds / 2] : 0.5 * (pair[rounds / 2 - 1] + pair[rounds / 2]);
    free(pair);
    double flop = 2.0 * n * (double)n * n;
    printf("%-12s %5d  %9.1f  %9.1f  %6.3f  %6.3f%s\n", kname[k], n, flop / best_ref * 1e-9,
           flop / best_tfl * 1e-9, best_ref / best_tfl, med,
           status ? "  (cuBLAS call FAILED)" : "");
    fflush(stdout);
    T.cuda_free(A); T.cuda_free(B); T.cuda_free(C);
    free(Af); free(Bf); free(Cf);
}

/* Per-call cost on tiny sgemms: what an MLP's many small GEMMs pay. */
static void bench_small(void *handle, int n, int calls)
{
    size_t nn = (size_t)n * n;
    float *A = dalloc(nn * 4), *B = dalloc(nn * 4), *C = dalloc(nn * 4);
    for (size_t i = 0; i < nn; i++) {
        A[i] = (float)(i % 5);
        B[i] = (float)(i % 3);
    }
    const float one = 1.0f, zero = 0.0f;
    double best_ref = 1e30, best_tfl = 1e30;
    int status = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (int i = 0; i < calls; i++)
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n,
                        0.0f, C, n);
        double t1 = now();
        for (int i = 0; i < calls; i++)
            status |= T.sgemm(handle, 0, 0, n, n, n, &one, A, n, B, n, &zero, C, n);
        double t2 = now();
        if (t1 - t0 < best_ref) best_ref = t1 - t0;
        if (t2 - t1 < best_tfl) best_tfl = t2 - t1;
    }
    printf("sgemm %4d   %8.2f us/call OpenBLAS  %8.2f us/call torchfl  (+%.2f us)%s\n", n,
           best_ref / calls * 1e6, best_tfl / calls * 1e6, (best_tfl - best_ref) / calls * 1e6,
           status ? "  (cuBLAS call FAILED)" : "");
    T.cuda_free(A); T.cuda_free(B); T.cuda_free(C);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : NULL;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1)
        rounds = 1;
    int rc = path ? load(path) : load("./libtorchfl.so");
    if (!path && rc == -1)
        rc = load("build/libtorchfl.so");
    if (rc != 0) {
        fprintf(stderr, "bench_gemm: cannot load libtorchfl.so (%s)\n",
                rc == -1 ? dlerror() : "missing cudaMalloc/cuBLAS symbols");
        return 1;
    }
    void *handle = NULL;
    if (T.create(&handle) != 0) {
        fprintf(stderr, "bench_gemm: cublasCreate failed\n");
        return 1;
    }
    if (openblas_get_num_threads() == 1)
        bench_clock = CLOCK_THREAD_CPUTIME_ID;
    printf("OpenBLAS threads: %d; best of %d rounds, alternating; %s\n",
           openblas_get_num_threads(), rounds,
           bench_clock == CLOCK_MONOTONIC ? "wall clock" : "thread CPU time");
    printf("%-12s %5s  %9s  %9s  %6s  %6s\n", "op", "n", "OpenBLAS", "torchfl", "ratio",
           "median");
    printf("%-12s %5s  %9s  %9s  %6s  %6s\n", "", "", "GFLOP/s", "GFLOP/s", "(best)",
           "pair");
    static const int sizes[] = { 512, 1024, 2048 };
    for (int k = K_SGEMM; k <= K_BGEMMEX; k++)
        for (int i = 0; i < 3; i++)
            bench(handle, (enum kind)k, sizes[i], rounds);
    bench_small(handle, 8, 20000);
    bench_small(handle, 64, 2000);
    T.destroy(handle);
    return 0;
}

/*
 * test_ops_norm.c - host_norm (layer norm / RMS norm) against a
 * double-precision reference written here from the definitions:
 *   y = (x - mean) / sqrt(var + eps) * g + b, var biased;
 *   dx = d/dx sum(dy * y) by the chain rule, checked against a central
 *        finite difference of that scalar in double;
 *   dgamma/dbeta as column sums, including the partial-row layout;
 * and the norm family's decoder: layout() against the 2.11 and 2.15
 * cubins' parameter tables, group norm's same-named kernels refused, and
 * 2.14's leading M checked against the grid.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "route/optable.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static unsigned rng = 12345u;
static float frand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static int close_to(double got, double want, double rel, double abs_)
{
    return fabs(got - want) <= abs_ + rel * fabs(want);
}

/* the scalar L = sum(dy * y) for one row, in double */
static double row_loss(const double *x, int n, const float *g, const float *b, const float *dy,
                       int rms, double eps)
{
    double m = 0, v = 0, l = 0;
    if (!rms) {
        for (int j = 0; j < n; j++) m += x[j];
        m /= n;
    }
    for (int j = 0; j < n; j++) v += (x[j] - m) * (x[j] - m);
    v /= n;
    for (int j = 0; j < n; j++) {
        double y = (x[j] - m) / sqrt(v + eps) * (g ? g[j] : 1.0) + ((b && !rms) ? b[j] : 0.0);
        l += dy[j] * y;
    }
    return l;
}

static void test_shape(int M, int N, int affine, int rms)
{
    const double eps = 1e-5;
    float *x = malloc(sizeof(float) * M * N), *y = malloc(sizeof(float) * M * N);
    float *dy = malloc(sizeof(float) * M * N), *dx = malloc(sizeof(float) * M * N);
    float *g = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
    float *mean = malloc(sizeof(float) * M), *rstd = malloc(sizeof(float) * M);
    float *dg = malloc(sizeof(float) * N), *db = malloc(sizeof(float) * N);
    double *xd = malloc(sizeof(double) * N);
    for (int i = 0; i < M * N; i++) { x[i] = 3 * frand() + 0.5f; dy[i] = frand(); }
    for (int j = 0; j < N; j++) { g[j] = frand(); b[j] = frand(); }
    const float *gp = affine ? g : NULL, *bp = affine ? b : NULL;

    tfl_norm_op op = { .kind = TFL_NORM_FWD, .dtype = TFL_DT_F32, .rms = rms, .rows = M,
                       .cols = N, .eps = eps, .x = x, .gamma = gp, .beta = bp, .y = y,
                       .mean = mean, .rstd = rstd, .tile_rows = 1, .tile_count = 1,
                       .tile_parts = 1 };
    CHECK(host_norm_supported(&op), "supported");
    CHECK(host_norm(&op) == TFL_OK, "forward");
    for (int i = 0; i < M; i++) {
        double m = 0, v = 0;
        if (!rms) {
            for (int j = 0; j < N; j++) m += x[i * N + j];
            m /= N;
        }
        for (int j = 0; j < N; j++) v += (x[i * N + j] - m) * (x[i * N + j] - m);
        v /= N;
        double r = 1 / sqrt(v + eps);
        if (!rms)
            CHECK(close_to(mean[i], m, 1e-6, 1e-6), "mean[%d] %g vs %g", i, mean[i], m);
        CHECK(close_to(rstd[i], r, 1e-6, 0), "rstd[%d] %g vs %g", i, rstd[i], r);
        for (int j = 0; j < N; j++) {
            double want = (x[i * N + j] - m) * r * (gp ? g[j] : 1) + ((bp && !rms) ? b[j] : 0);
            CHECK(close_to(y[i * N + j], want, 1e-5, 1e-5), "y[%d,%d] %g vs %g", i, j,
                  y[i * N + j], want);
        }
    }
    /* apply from the stats gives the same output */
    float *y2 = malloc(sizeof(float) * M * N);
    op.kind = TFL_NORM_FWD_APPLY;
    op.y = y2;
    CHECK(host_norm(&op) == TFL_OK, "apply");
    CHECK(memcmp(y, y2, sizeof(float) * M * N) == 0, "apply == forward");
    free(y2);

    /* dx against a finite difference of L in double */
    op.kind = TFL_NORM_BWD_INPUT;
    op.dy = dy;
    op.dx = dx;
    CHECK(host_norm(&op) == TFL_OK, "backward input");
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) xd[j] = x[i * N + j];
        for (int j = 0; j < N; j += (N > 40 ? 7 : 1)) {
            const double h = 1e-5;
            double keep = xd[j];
            xd[j] = keep + h;
            double lp = row_loss(xd, N, gp, bp, dy + i * N, rms, eps);
            xd[j] = keep - h;
            double lm = row_loss(xd, N, gp, bp, dy + i * N, rms, eps);
            xd[j] = keep;
            double want = (lp - lm) / (2 * h);
            CHECK(close_to(dx[i * N + j], want, 1e-3, 1e-4), "dx[%d,%d] %g vs %g (M=%d N=%d rms=%d)",
                  i, j, dx[i * N + j], want, M, N, rms);
        }
    }

    /* dgamma/dbeta: full sums */
    op.kind = TFL_NORM_BWD_PARAMS;
    op.dgamma = dg;
    op.dbeta = db;
    CHECK(host_norm(&op) == TFL_OK, "backward params");
    for (int j = 0; j < N; j++) {
        double sg = 0, sb = 0;
        for (int i = 0; i < M; i++) {
            sg += (double)dy[i * N + j] * (x[i * N + j] - (rms ? 0 : mean[i])) * rstd[i];
            sb += dy[i * N + j];
        }
        CHECK(close_to(dg[j], sg, 1e-5, 1e-5), "dgamma[%d] %g vs %g", j, dg[j], sg);
        if (!rms)
            CHECK(close_to(db[j], sb, 1e-5, 1e-5), "dbeta[%d] %g vs %g", j, db[j], sb);
    }
    free(x); free(y); free(dy); free(dx); free(g); free(b); free(mean); free(rstd);
    free(dg); free(db); free(xd);
}

/* partial sums: tiles of 4 rows, 3 tiles, 2 parts per tile: summing the
 * 6 partial rows gives the full sum, and each holds its own rows */
static void test_partials(void)
{
    enum { M = 30, N = 5, T = 4, C = 3, P = 2 };
    float x[M * N], dy[M * N], mean[M], rstd[M], dg[C * P * N], db[C * P * N];
    for (int i = 0; i < M * N; i++) { x[i] = frand(); dy[i] = frand(); }
    for (int i = 0; i < M; i++) { mean[i] = frand() * 0.1f; rstd[i] = 1.5f + frand(); }
    tfl_norm_op op = { .kind = TFL_NORM_BWD_PARAMS, .dtype = TFL_DT_F32, .rows = M, .cols = N,
                       .x = x, .dy = dy, .mean = mean, .rstd = rstd, .dgamma = dg, .dbeta = db,
                       .tile_rows = T, .tile_count = C, .tile_parts = P };
    CHECK(host_norm(&op) == TFL_OK, "partials");
    for (int p = 0; p < C * P; p++) {
        for (int j = 0; j < N; j++) {
            double sg = 0, sb = 0;
            for (int m = 0; m < M; m++) {
                int tile = (m / T) % C, part = (m % T) / (T / P);
                if (tile * P + part != p)
                    continue;
                sg += (double)dy[m * N + j] * (x[m * N + j] - mean[m]) * rstd[m];
                sb += dy[m * N + j];
            }
            CHECK(close_to(dg[p * N + j], sg, 1e-5, 1e-6), "partial dgamma[%d,%d]", p, j);
            CHECK(close_to(db[p * N + j], sb, 1e-5, 1e-6), "partial dbeta[%d,%d]", p, j);
        }
    }
    op.tile_parts = 3;   /* does not divide tile_rows */
    CHECK(host_norm(&op) == TFL_ERR_INVALID, "bad partial layout refused");
    op.tile_parts = P;
    op.dtype = TFL_DT_F16;
    CHECK(host_norm_supported(&op), "fp16 claimed");
    op.dtype = TFL_DT_F64;
    CHECK(!host_norm_supported(&op), "fp64 not claimed");
}

/* Mangled names and parameter tables (offset:size) as the 2.11 and 2.15
 * sm_80 cubins record them (scripts/wheel_kernels.py; the comment names
 * the releases that ship the same name and layout): the family's layout()
 * must state exactly these. */
static const cubin_layout cubin[] = {
    /* 2.11.0-2.12.1: vectorized_layer_norm_kernel<float, float, false> */
    { "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIffLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_",
      "0:4 4:4 8:8 16:8 24:8 32:8 40:8 48:8" },
    /* 2.11.0-2.12.1: RowwiseMomentsCUDAKernel<c10::Half, float, false> */
    { "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a24RowwiseMomentsCUDAKernelIN3c104HalfEfLb0EEEvlT0_PKT_PS5_S9_",
      "0:8 8:4 16:8 24:8 32:8" },
    /* 2.14.1-2.15.0: RowwiseMomentsCUDAKernel<c10::Half, float, false> */
    { "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a24RowwiseMomentsCUDAKernelIN3c104HalfEfLb0EEEvllT0_PKT_PS5_S9_",
      "0:8 8:8 16:4 24:8 32:8 40:8" },
    /* 2.11.0-2.12.1: LayerNormForwardCUDAKernel<c10::BFloat16, float, true> */
    { "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a26LayerNormForwardCUDAKernelIN3c108BFloat16EfLb1EEEvlPKT_PKT0_SA_S7_S7_PS5_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8" },
    /* 2.14.1-2.15.0: LayerNormForwardCUDAKernel<c10::BFloat16, float, true> */
    { "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a26LayerNormForwardCUDAKernelIN3c108BFloat16EfLb1EEEvllPKT_PKT0_SA_S7_S7_PS5_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8" },
    /* 2.11.0-2.12.1: layer_norm_grad_input_kernel<float, float, true> */
    { "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28layer_norm_grad_input_kernelIffLb1EEEvPKT_S5_PKT0_S8_S5_PS3_i",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4" },
    /* 2.13.0-2.15.0: layer_norm_grad_input_kernel_vectorized<c10::Half, float, false> */
    { "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a39layer_norm_grad_input_kernel_vectorizedIN3c104HalfEfLb0EEEvPKT_S7_PKT0_SA_S7_PS5_i",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4" },
    /* 2.11.0-2.12.1: GammaBetaBackwardCUDAKernelTemplate<float, float, 32u, 1u, 32u, true, false, false> */
    { "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a35GammaBetaBackwardCUDAKernelTemplateIffLj32ELj1ELj32ELb1ELb0ELb0EEEvllPKT_S5_PKT0_S8_PS3_S9_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8" },
    /* 2.13.0-2.15.0: GammaBetaBackwardCUDAKernelTemplate<c10::BFloat16, float, 32u, 16u, 128u, false, true, true> */
    { "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a35GammaBetaBackwardCUDAKernelTemplateIN3c108BFloat16EfLj32ELj16ELj128ELb0ELb1ELb1EEEvllPKT_S7_PKT0_SA_PS5_SB_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8" },
    /* 2.13.0-2.15.0: vectorized_layer_norm_kernel<c10::Half, float, true> */
    { "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIN3c104HalfEfLb1EEEviT0_PKT_S8_S8_PS5_S9_PS6_",
      "0:4 4:4 8:8 16:8 24:8 32:8 40:8 48:8" },
};

/* group_norm_kernel.cu's RowwiseMomentsCUDAKernel<T> (2.11) and <T, T_ACC>
 * (2.13) share the base name but not the meaning: not this family's. */
static void test_group_norm_refused(void)
{
    void *cookie = NULL;
    CHECK(!tfl_kfamily_norm.match("_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652024RowwiseMomentsCUDAKernelIfEEvlT_PKS3_PS3_S6_", &cookie), "2.11 group norm claimed");
    CHECK(!tfl_kfamily_norm.match("_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_2f7922d3_2778324RowwiseMomentsCUDAKernelIffEEvlT_PKS3_PS3_S6_PT0_S8_", &cookie), "2.13 group norm claimed");
}

/* 2.14+ RowwiseMomentsCUDAKernel(M, N, eps, X, mean, rstd): the kernel
 * never reads M (rows are blocks), so M must equal gridDim.x. */
static void test_moments_with_m(void)
{
    const char *name = "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a24RowwiseMomentsCUDAKernelIN3c104HalfEfLb0EEEvllT0_PKT_PS5_S9_";
    void *cookie = NULL;
    CHECK(tfl_kfamily_norm.match(name, &cookie) == 1, "2.15 moments");
    if (!cookie)
        return;
    float buf[64];
    int64_t M = 3, N = 8;
    float eps = 1e-5f;
    const void *x = buf;
    float *mean = buf + 32, *rstd = buf + 40;
    void *args[6] = { &M, &N, &eps, &x, &mean, &rstd };
    tfl_kcall c = { .name = name, .grid = { 2, 1, 1 }, .block = { 128, 1, 1 }, .args = args };
    char err[256] = "";
    CHECK(tfl_kfamily_norm.run(&c, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED, "M != grid: %s", err);
    c.grid[0] = 3;
    CHECK(tfl_kfamily_norm.run(&c, cookie, err, sizeof err) == TFL_ERR_INVALID, "stack operands: %s", err);
    free(cookie);
}

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_norm, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    test_group_norm_refused();
    test_moments_with_m();
    static const int shapes[][2] = { { 1, 1 }, { 3, 4 }, { 8, 128 }, { 10, 30 }, { 2, 1024 },
                                     { 65, 7 } };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int affine = 0; affine < 2; affine++)
            for (int rms = 0; rms < 2; rms++)
                test_shape(shapes[s][0], shapes[s][1], affine, rms);
    test_partials();
    printf("test_ops_norm: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

/*
 * test_ops_norm.c - host_norm (layer norm / RMS norm) against a
 * double-precision reference written here from the definitions:
 *   y = (x - mean) / sqrt(var + eps) * g + b, var biased;
 *   dx = d/dx sum(dy * y) by the chain rule, checked against a central
 *        finite difference of that scalar in double;
 *   dgamma/dbeta as column sums, including the partial-row layout.
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

int main(void)
{
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

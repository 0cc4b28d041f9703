/*
 * test_ops_distance.c - the distance family: kernel-name matching, the
 * parameter layouts of the 2.11 and 2.15 kernels against their cubins,
 * the 2.15 grid-stride forms' output count, and the host op's cdist / pdist values and backward terms against double
 * references computed here from the definitions.
 */
#include "route/optable.h"
#include "backends/host/host_ops.h"
#include "torchfl/ops/distance.h"
#include "cubin_layouts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

extern const tfl_kfamily tfl_kfamily_distance;

static double ref_dist(int norm, double p, const float *a, const float *b, int m)
{
    double s = 0;
    for (int c = 0; c < m; c++) {
        double d = fabs((double)a[c] - b[c]);
        if (norm == TFL_DIST_INF) s = d > s ? d : s;
        else if (norm == TFL_DIST_ZERO) s += d != 0;
        else s += pow(d, norm == TFL_DIST_ONE ? 1 : norm == TFL_DIST_TWO ? 2 : p);
    }
    return norm == TFL_DIST_TWO ? sqrt(s) : norm == TFL_DIST_P ? pow(s, 1 / p) : s;
}

static void test_match(void)
{
    void *cookie = NULL;
    CHECK(tfl_kfamily_distance.match(
        "_ZN2at6native56_GLOBAL__N__651dfe0c_17_DistanceKernel_cu_ef1a7132_1794822cdist_kernel_cuda_implIfNS1_5distsIfE3twoEEEvPT_PKS6_S9_S6_lllll",
        &cookie));
    CHECK(cookie && strcmp(tfl_kfamily_distance.op_name(cookie), "cdist") == 0);
    CHECK(tfl_kfamily_distance.match(
        "_ZN2at6native56_GLOBAL__N__651dfe0c_17_DistanceKernel_cu_ef1a7132_1794831pdist_backward_kernel_cuda_implIdNS1_5distsIdE6lt_twoEEEvPT_PKS6_S9_S9_llllS6_dd",
        &cookie));
    CHECK(strcmp(tfl_kfamily_distance.op_name(cookie), "pdist_backward") == 0);
    CHECK(!tfl_kfamily_distance.match("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_", &cookie));
}

static void test_forward(void)
{
    enum { R1 = 5, R2 = 4, M = 3, B = 2 };
    float x1[B][R1][M], x2[B][R2][M], out[B][R1][R2], pd[R1 * (R1 - 1) / 2];
    for (int l = 0; l < B; l++)
        for (int c = 0; c < M; c++) {
            for (int i = 0; i < R1; i++) x1[l][i][c] = (float)((i * 7 + c * 3 + l) % 11) / 4.0f - 1;
            for (int j = 0; j < R2; j++) x2[l][j][c] = (float)((j * 5 + c * 2 + l) % 9) / 3.0f - 1;
        }
    static const double ps[] = { 0, 1, 2, 3.5, INFINITY };
    static const int norms[] = { TFL_DIST_ZERO, TFL_DIST_ONE, TFL_DIST_TWO, TFL_DIST_P, TFL_DIST_INF };
    for (int t = 0; t < 5; t++) {
        tfl_distance_op op;
        memset(&op, 0, sizeof op);
        op.kind = TFL_DIST_CDIST; op.norm = norms[t]; op.dtype = TFL_DT_F32; op.p = ps[t];
        op.out = out; op.x1 = x1; op.x2 = x2; op.batch = B; op.r1 = R1; op.r2 = R2; op.m = M;
        CHECK(host_distance(&op) == TFL_OK);
        int bad = 0;
        for (int l = 0; l < B; l++)
            for (int i = 0; i < R1; i++)
                for (int j = 0; j < R2; j++) {
                    double w = ref_dist(norms[t], ps[t], x1[l][i], x2[l][j], M);
                    if (fabs(out[l][i][j] - w) > 1e-5 * (1 + w)) bad++;
                }
        CHECK(bad == 0);
        op.kind = TFL_DIST_PDIST; op.out = pd; op.batch = 1; op.r2 = 0;
        CHECK(host_distance(&op) == TFL_OK);
        bad = 0;
        for (int i = 0, k = 0; i < R1; i++)
            for (int j = i + 1; j < R1; j++, k++) {
                double w = ref_dist(norms[t], ps[t], x1[0][i], x1[0][j], M);
                if (fabs(pd[k] - w) > 1e-5 * (1 + w)) bad++;
            }
        CHECK(bad == 0);
    }
}

static void test_backward(void)
{
    enum { N = 4, M = 2 };
    double x[N][M] = { { 0, 1 }, { 2, -1 }, { 0.5, 0.5 }, { 0, 1 } };
    double grad[N * (N - 1) / 2], dist[N * (N - 1) / 2], buf[N - 1][N][M];
    for (int k = 0; k < N * (N - 1) / 2; k++) grad[k] = 0.5 + k;
    for (int i = 0, k = 0; i < N; i++)
        for (int j = i + 1; j < N; j++, k++)
            dist[k] = hypot(x[i][0] - x[j][0], x[i][1] - x[j][1]);
    tfl_distance_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_DIST_PDIST_BACKWARD; op.norm = TFL_DIST_TWO; op.dtype = TFL_DT_F64; op.p = 2;
    op.out = buf; op.x1 = x; op.grad = grad; op.dist = dist; op.batch = 1; op.r1 = N; op.m = M;
    op.grad_stride = 1;
    CHECK(host_distance(&op) == TFL_OK);
    /* summed over dim 0, the buffer is d/dx of sum_k grad[k] * dist[k] */
    int bad = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < M; c++) {
            double s = 0, want = 0;
            for (int b = 0; b < N - 1; b++) s += buf[b][r][c];
            for (int i = 0, k = 0; i < N; i++)
                for (int j = i + 1; j < N; j++, k++) {
                    if (dist[k] == 0) continue;
                    double d = (x[i][c] - x[j][c]) / dist[k] * grad[k];
                    if (i == r) want += d;
                    if (j == r) want -= d;
                }
            if (fabs(s - want) > 1e-12) bad++;
        }
    CHECK(bad == 0);
    /* no forward LT_TWO, no backward ZERO, no other dtype */
    op.norm = TFL_DIST_ZERO;
    CHECK(host_distance(&op) == TFL_ERR_UNSUPPORTED);
    op.norm = TFL_DIST_TWO; op.dtype = TFL_DT_F16;
    CHECK(!host_distance_supported(&op));
}

/* Mangled names and parameter layouts (offset:size) as the sm_80 cubins
 * of torch 2.11 and 2.15 record them (read with `torchfl wheel --list`
 * and scripts/wheel_kernels.py). */
static const cubin_layout cubin[] = {
    /* 2.11.0 cdist */
    { "_ZN2at6native56_GLOBAL__N__651dfe0c_17_DistanceKernel_cu_ef1a7132_1794822cdist_kernel_cuda_implIfNS1_5distsIfE3twoEEEvPT_PKS6_S9_S6_lllll",
      "0:8 8:8 16:8 24:4 32:8 40:8 48:8 56:8 64:8" },
    /* 2.11.0 pdist */
    { "_ZN2at6native56_GLOBAL__N__651dfe0c_17_DistanceKernel_cu_ef1a7132_1794822pdist_kernel_cuda_implIdNS1_5distsIdE1pEEEvPT_PKS6_llS6_dd",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8" },
    /* 2.11.0 cdist_backward */
    { "_ZN2at6native56_GLOBAL__N__651dfe0c_17_DistanceKernel_cu_ef1a7132_1794831cdist_backward_kernel_cuda_implIfNS1_5distsIfE6lt_twoEEEvPT_PKS6_S9_S9_S9_S6_lllllll",
      "0:8 8:8 16:8 24:8 32:8 40:4 48:8 56:8 64:8 72:8 80:8 88:8 96:8" },
    /* 2.11.0 pdist_backward */
    { "_ZN2at6native56_GLOBAL__N__651dfe0c_17_DistanceKernel_cu_ef1a7132_1794831pdist_backward_kernel_cuda_implIdNS1_5distsIdE3infEEEvPT_PKS6_S9_S9_llllS6_dd",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8" },
    /* 2.15.0 cdist */
    { "_ZN2at6native56_GLOBAL__N__b0ac79e6_17_DistanceKernel_cu_e5d96c45_4915722cdist_kernel_cuda_implIfNS1_5distsIfE3twoEEEvPT_PKS6_S9_S6_llllll",
      "0:8 8:8 16:8 24:4 32:8 40:8 48:8 56:8 64:8 72:8" },
    /* 2.15.0 pdist */
    { "_ZN2at6native56_GLOBAL__N__b0ac79e6_17_DistanceKernel_cu_e5d96c45_4915722pdist_kernel_cuda_implIdNS1_5distsIdE1pEEEvPT_PKS6_llS6_ddl",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8" },
    /* 2.15.0 cdist_backward */
    { "_ZN2at6native56_GLOBAL__N__b0ac79e6_17_DistanceKernel_cu_e5d96c45_4915731cdist_backward_kernel_cuda_implIdNS1_5distsIdE3oneEEEvPT_PKS6_S9_S9_S9_S6_lllllll",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8" },
    /* 2.15.0 pdist_backward */
    { "_ZN2at6native56_GLOBAL__N__b0ac79e6_17_DistanceKernel_cu_e5d96c45_4915731pdist_backward_kernel_cuda_implIfNS1_5distsIfE3twoEEEvPT_PKS6_S9_S9_llllS6_dd",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:4 72:8 80:8" },

};

/* pdist: the output count is grid.x up to 2.14, the trailing parameter
 * from 2.15 (whose grid may be smaller).  Bogus pointers: a launch whose
 * sizes pass the checks ends at the device-memory check. */
static void test_total(void)
{
    void *c11 = NULL, *c15 = NULL;
    CHECK(tfl_kfamily_distance.match(cubin[1].mangled, &c11));     /* 2.11 pdist<double> */
    CHECK(tfl_kfamily_distance.match(cubin[5].mangled, &c15));     /* 2.15 pdist<double> */
    uintptr_t bogus = 0x5000;
    int64_t n = 5, m = 3, total = 10;
    double p = 3, n2 = 4.5, n2sq = 19.25;
    void *args[8] = { &bogus, &bogus, &n, &m, &p, &n2, &n2sq, &total };
    tfl_kcall call = { .grid = { 4, 1, 1 }, .block = { 256, 1, 1 }, .args = args };
    char err[256] = "";
    CHECK(c11 && tfl_kfamily_distance.run(&call, c11, err, sizeof err) == TFL_ERR_UNSUPPORTED);
    CHECK(c15 && tfl_kfamily_distance.run(&call, c15, err, sizeof err) == TFL_ERR_INVALID);
    total = 9;
    CHECK(c15 && tfl_kfamily_distance.run(&call, c15, err, sizeof err) == TFL_ERR_UNSUPPORTED);
    call.grid[0] = 10;
    CHECK(c11 && tfl_kfamily_distance.run(&call, c11, err, sizeof err) == TFL_ERR_INVALID);
}

int main(void)
{
    test_match();
    test_forward();
    test_backward();
    check_cubin_layouts(&tfl_kfamily_distance, cubin, sizeof cubin / sizeof cubin[0], NULL,
                        &failures);
    test_total();
    if (failures) {
        fprintf(stderr, "test_ops_distance: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_distance: ok\n");
    return 0;
}

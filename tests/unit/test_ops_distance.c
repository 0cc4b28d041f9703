/*
 * test_ops_distance.c - the distance family: kernel-name matching and the
 * host op's cdist / pdist values and backward terms against double
 * references computed here from the definitions.
 */
#include "route/optable.h"
#include "backends/host/host_ops.h"
#include "torchfl/ops/distance.h"

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

int main(void)
{
    test_match();
    test_forward();
    test_backward();
    if (failures) {
        fprintf(stderr, "test_ops_distance: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_distance: ok\n");
    return 0;
}

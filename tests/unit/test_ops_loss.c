/*
 * test_ops_loss.c - the host's native nll_loss op against sums written out
 * here: forward none/sum/mean with weights and ignore_index, the 1-d
 * special case, backward for each reduction, and the out-of-range target
 * error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchfl/backend.h"
#include "backends/host/host_ops.h"
#include "route/optable.h"

static int failures;

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
        failures++; \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
    } } while (0)

enum { N = 9, CL = 4, IGN = -100 };

static float x[N * CL], w[CL];
static int64_t t[N];

static double ref_sum(int weighted, double *tw)
{
    double s = 0;
    *tw = 0;
    for (int i = 0; i < N; i++) {
        if (t[i] == IGN)
            continue;
        double wt = weighted ? w[t[i]] : 1;
        s -= wt * x[i * CL + t[i]];
        *tw += wt;
    }
    return s;
}

static tfl_loss_op base(int weighted)
{
    tfl_loss_op op;
    memset(&op, 0, sizeof op);
    op.dtype = TFL_DT_F32;
    op.target_dtype = TFL_DT_I64;
    op.batch = N;
    op.n_classes = CL;
    op.ignore_index = IGN;
    op.target = t;
    op.weight = weighted ? w : NULL;
    op.input = x;
    op.in_stride0 = CL;
    op.in_stride1 = 1;
    return op;
}

/* Synthesized launch of the 2-d forward kernel with operands outside
 * device memory: TFL_ERR_DEVICE, nothing read. */
static void test_decoder(void)
{
    const char *name = "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e138nll_loss_forward_reduce_cuda_kernel_2dIfflEEvPT_S4_PKS3_PKT1_S6_bllll";
    void *c = NULL;
    CHECK(tfl_kfamily_loss.match(name, &c) == 1, "match");
    void *out = (void *)0x10000, *tw = (void *)0x10008, *in = (void *)0x20000, *tg = (void *)0x30000, *w = NULL;
    uint8_t avg = 1;
    int64_t nframe = 4, ndim = 3, ncls = 3, ign = -100;
    void *args[10] = {&out, &tw, &in, &tg, &w, &avg, &nframe, &ndim, &ncls, &ign};
    tfl_kcall call = {.name = name, .grid = {1, 1, 1}, .block = {32, 1, 1}, .args = args};
    char err[256] = "";
    void *cookie = NULL;
    tfl_kfamily_loss.match(name, &cookie);
    CHECK(tfl_kfamily_loss.run(&call, cookie, err, sizeof err) == TFL_ERR_DEVICE, "bogus pointers: %s", err);
    nframe = INT64_MAX;
    CHECK(tfl_kfamily_loss.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID, "huge batch: %s", err);
}

int main(void)
{
    test_decoder();
    srand(3);
    for (int i = 0; i < N * CL; i++)
        x[i] = -(float)rand() / RAND_MAX * 3;
    for (int c = 0; c < CL; c++)
        w[c] = 0.25f + c;
    for (int i = 0; i < N; i++)
        t[i] = i % 3 == 1 ? IGN : (i * 7) % CL;

    for (int weighted = 0; weighted < 2; weighted++) {
        double tw, s = ref_sum(weighted, &tw);
        float out = 0, totw = 0, per[N];
        tfl_loss_op op = base(weighted);
        op.kind = TFL_LOSS_NLL_FWD;
        op.output = &out;
        op.total_weight = &totw;
        op.reduction = TFL_LOSS_REDUCE_SUM;
        CHECK(host_loss(&op) == TFL_OK && fabs(out - s) < 1e-5 && fabs(totw - tw) < 1e-5,
              "sum w=%d: %g vs %g", weighted, out, s);
        op.reduction = TFL_LOSS_REDUCE_MEAN;
        CHECK(host_loss(&op) == TFL_OK && fabs(out - s / tw) < 1e-5, "mean w=%d: %g vs %g", weighted, out, s / tw);
        op.reduction = TFL_LOSS_REDUCE_NONE;
        op.output = per;
        op.out_stride = 1;
        CHECK(host_loss(&op) == TFL_OK, "none");
        for (int i = 0; i < N; i++) {
            double want = t[i] == IGN ? 0 : -(weighted ? w[t[i]] : 1) * x[i * CL + t[i]];
            CHECK(fabs(per[i] - want) < 1e-6, "none row %d: %g vs %g", i, per[i], want);
        }

        /* backward: only target entries of kept rows are written */
        float gi[N * CL], go = 0.5f, gov[N];
        for (int i = 0; i < N; i++)
            gov[i] = 0.1f * (float)(i + 1);
        for (int red = 0; red < 3; red++) {
            for (int i = 0; i < N * CL; i++)
                gi[i] = 7;
            tfl_loss_op b = base(weighted);
            b.kind = TFL_LOSS_NLL_BWD;
            b.reduction = (tfl_loss_reduction)red;
            b.grad_input = gi;
            b.gi_stride0 = CL;
            b.gi_stride1 = 1;
            b.total_weight = &totw;
            b.grad_output = red == TFL_LOSS_REDUCE_NONE ? (void *)gov : (void *)&go;
            b.gout_stride = 1;
            totw = (float)tw;
            CHECK(host_loss(&b) == TFL_OK, "backward %d", red);
            for (int i = 0; i < N; i++)
                for (int c = 0; c < CL; c++) {
                    double want = 7;
                    if (t[i] != IGN && c == t[i]) {
                        double g = red == TFL_LOSS_REDUCE_NONE ? gov[i]
                                 : red == TFL_LOSS_REDUCE_MEAN ? go / tw : go;
                        want = -(weighted ? w[c] : 1) * g;
                    }
                    CHECK(fabs(gi[i * CL + c] - want) < 1e-6, "bwd red=%d w=%d (%d,%d): %g vs %g",
                          red, weighted, i, c, gi[i * CL + c], want);
                }
        }
    }

    /* 1-d input: mean of a zero-weight target is NaN; ignored gives 0 */
    {
        float out = 5, totw = 5, zw[CL] = {1, 0, 1, 1};
        int64_t one = 1;
        tfl_loss_op op = base(1);
        op.kind = TFL_LOSS_NLL_FWD;
        op.one_d = 1;
        op.batch = 1;
        op.target = &one;
        op.weight = zw;
        op.output = &out;
        op.total_weight = &totw;
        op.reduction = TFL_LOSS_REDUCE_MEAN;
        CHECK(host_loss(&op) == TFL_OK && isnan(out) && totw == 0, "1-d zero weight: %g %g", out, totw);
        one = IGN;
        CHECK(host_loss(&op) == TFL_OK && out == 0 && totw == 0, "1-d ignored: %g %g", out, totw);
    }

    /* a target out of range is an error, not a crash */
    {
        float out = 0, totw = 0;
        int64_t saved = t[4];
        t[4] = CL;
        tfl_loss_op op = base(0);
        op.kind = TFL_LOSS_NLL_FWD;
        op.reduction = TFL_LOSS_REDUCE_SUM;
        op.output = &out;
        op.total_weight = &totw;
        CHECK(host_loss(&op) == TFL_ERR_INVALID, "out-of-range target accepted");
        t[4] = -1;
        CHECK(host_loss(&op) == TFL_ERR_INVALID, "negative target accepted");
        t[4] = saved;
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_loss: ok\n");
    return 0;
}

/*
 * test_ops_loss.c - the loss family: its layout() against the 2.11 and
 * 2.15 cubins' parameter tables, decoded launches' refusals (including
 * 2.14's int64 nll_loss2d backward sizes), and the host's native nll_loss
 * op against sums written out here: forward none/sum/mean with weights and
 * ignore_index, the 1-d special case, backward for each reduction, and the
 * out-of-range target error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchfl/backend.h"
#include "backends/host/host_ops.h"
#include "route/optable.h"
#include "cubin_layouts.h"

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
 * device memory: TFL_ERR_INVALID (a decoding failure, not sticky), nothing read. */
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
    CHECK(tfl_kfamily_loss.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID, "bogus pointers: %s", err);
    nframe = INT64_MAX;
    CHECK(tfl_kfamily_loss.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID, "huge batch: %s", err);
}

/* Mangled names and parameter tables (offset:size) as the 2.11 and 2.15
 * sm_80 cubins record them (scripts/wheel_kernels.py; the comment names
 * the releases that ship the same name and layout): the family's layout()
 * must state exactly these. */
static const cubin_layout cubin[] = {
    /* 2.11.0-2.12.1: nll_loss_forward_no_reduce_cuda_kernel<float, long> */
    { "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e138nll_loss_forward_no_reduce_cuda_kernelIflEEvlN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEET_Lm1ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm2ElEESB_Lm2ESC_lEEPKT0_PSB_PKSB_ll",
      "0:8 8:40 48:8 56:8 64:8 72:8 80:8" },
    /* 2.11.0-2.12.1: nll_loss_forward_reduce_cuda_kernel_1d<c10::Half, unsigned char> */
    { "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e138nll_loss_forward_reduce_cuda_kernel_1dIN3c104HalfEhEEvPT_S6_PKS5_PKT0_S8_bll",
      "0:8 8:8 16:8 24:8 32:8 40:1 48:8 56:8" },
    /* 2.11.0-2.12.1: nll_loss_forward_reduce_cuda_kernel_2d<float, float, long> */
    { "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e138nll_loss_forward_reduce_cuda_kernel_2dIfflEEvPT_S4_PKS3_PKT1_S6_bllll",
      "0:8 8:8 16:8 24:8 32:8 40:1 48:8 56:8 64:8 72:8" },
    /* 2.11.0-2.12.1: nll_loss_backward_no_reduce_cuda_kernel<double, long> */
    { "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e139nll_loss_backward_no_reduce_cuda_kernelIdlEEviPKT0_N5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm0ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm1ElEESF_Lm1ESG_lEENS9_INSA_ISD_SE_Lm1ESG_lEENSJ_ILm2ElEESE_Lm2ESG_lEEPSF_ll",
      "0:4 8:8 16:24 40:40 80:8 88:8 96:8" },
    /* 2.11.0-2.12.1: nll_loss_backward_reduce_cuda_kernel_1d<float, long> */
    { "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e139nll_loss_backward_reduce_cuda_kernel_1dIflEEvPT_PKS3_S6_PKT0_S6_bll",
      "0:8 8:8 16:8 24:8 32:8 40:1 48:8 56:8" },
    /* 2.11.0-2.12.1: nll_loss_backward_reduce_cuda_kernel_2d<c10::BFloat16, long> */
    { "_ZN2at6native39_GLOBAL__N__5cd812b1_7_Loss_cu_5b0651e139nll_loss_backward_reduce_cuda_kernel_2dIN3c108BFloat16ElEEvPT_PKS5_PKT0_S8_S8_biill",
      "0:8 8:8 16:8 24:8 32:8 40:1 44:4 48:4 56:8 64:8" },
    /* 2.11.0-2.12.1: nll_loss2d_forward_kernel<float, float, long> */
    { "_ZN2at6native45_GLOBAL__N__784d7ead_12_NLLLoss2d_cu_e9278b4625nll_loss2d_forward_kernelIfflEEvPT_S4_PKS3_PKlS6_iiil",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:4 56:8" },
    /* 2.11.0-2.12.1: nll_loss2d_forward_size_average_kernel<float> */
    { "_ZN2at6native45_GLOBAL__N__784d7ead_12_NLLLoss2d_cu_e9278b4638nll_loss2d_forward_size_average_kernelIfEEvPT_PKS3_",
      "0:8 8:8" },
    /* 2.11.0-2.12.1: nll_loss2d_backward_kernel<float> */
    { "_ZN2at6native45_GLOBAL__N__784d7ead_12_NLLLoss2d_cu_e9278b4626nll_loss2d_backward_kernelIfEEvPT_PKS3_PKlS6_S6_biiil",
      "0:8 8:8 16:8 24:8 32:8 40:1 44:4 48:4 52:4 56:8" },
    /* 2.11.0-2.12.1: nll_loss2d_forward_no_reduce_kernel<float> */
    { "_ZN2at6native45_GLOBAL__N__784d7ead_12_NLLLoss2d_cu_e9278b4635nll_loss2d_forward_no_reduce_kernelIfEEvlN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEET_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESB_Lm4ESC_lEENS6_INS7_ISA_lLm2ESC_lEENSF_ILm3ElEElLm3ESC_lEENS6_INS7_ISA_SB_Lm2ESC_lEESJ_SB_Lm3ESC_lEEPKSB_l",
      "0:8 8:72 80:56 136:56 192:8 200:8" },
    /* 2.11.0-2.12.1: nll_loss2d_backward_no_reduce_kernel<float> */
    { "_ZN2at6native45_GLOBAL__N__784d7ead_12_NLLLoss2d_cu_e9278b4636nll_loss2d_backward_no_reduce_kernelIfEEvlN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEElLm2ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEElLm3ESB_lEENS6_INS7_ISA_T_Lm2ESB_lEESF_SH_Lm3ESB_lEENS6_INS7_ISA_SH_Lm3ESB_lEENSE_ILm4ElEESH_Lm4ESB_lEEPKSH_l",
      "0:8 8:56 64:56 120:72 192:8 200:8" },
    /* 2.13.0-2.15.0: nll_loss_forward_reduce_cuda_kernel_2d<float, float, long> */
    { "_ZN2at6native39_GLOBAL__N__6bd09d29_7_Loss_cu_5b0651e138nll_loss_forward_reduce_cuda_kernel_2dIfflEEvPT_S4_PKS3_PKT1_S6_bllll",
      "0:8 8:8 16:8 24:8 32:8 40:1 48:8 56:8 64:8 72:8" },
    /* 2.13.0-2.15.0: nll_loss_backward_no_reduce_cuda_kernel<float, unsigned char> */
    { "_ZN2at6native39_GLOBAL__N__6bd09d29_7_Loss_cu_5b0651e139nll_loss_backward_no_reduce_cuda_kernelIfhEEviPKT0_N5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm0ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm1ElEESF_Lm1ESG_lEENS9_INSA_ISD_SE_Lm1ESG_lEENSJ_ILm2ElEESE_Lm2ESG_lEEPSF_ll",
      "0:4 8:8 16:24 40:40 80:8 88:8 96:8" },
    /* 2.13.0-2.15.0: nll_loss2d_forward_kernel<c10::Half, float, int> */
    { "_ZN2at6native45_GLOBAL__N__b215459d_12_NLLLoss2d_cu_e9278b4625nll_loss2d_forward_kernelIN3c104HalfEfiEEvPT_S6_PKS5_PKlS8_iiil",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:4 56:8" },
    /* 2.14.1-2.15.0: nll_loss2d_backward_kernel<float, int> */
    { "_ZN2at6native45_GLOBAL__N__b215459d_12_NLLLoss2d_cu_e9278b4626nll_loss2d_backward_kernelIfiEEvPT_PKS3_PKlS6_S6_bT0_S9_il",
      "0:8 8:8 16:8 24:8 32:8 40:1 44:4 48:4 52:4 56:8" },
    /* 2.14.1-2.15.0: nll_loss2d_backward_kernel<double, long> */
    { "_ZN2at6native45_GLOBAL__N__b215459d_12_NLLLoss2d_cu_e9278b4626nll_loss2d_backward_kernelIdlEEvPT_PKS3_PKlS6_S6_bT0_S9_il",
      "0:8 8:8 16:8 24:8 32:8 40:1 48:8 56:8 64:4 72:8" },
    /* 2.13.0-2.15.0: nll_loss2d_forward_no_reduce_kernel<c10::BFloat16> */
    { "_ZN2at6native45_GLOBAL__N__b215459d_12_NLLLoss2d_cu_e9278b4635nll_loss2d_forward_no_reduce_kernelIN3c108BFloat16EEEvlN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS8_INS9_ISB_lLm2ESD_lEENSG_ILm3ElEElLm3ESD_lEENS8_INS9_ISB_SC_Lm2ESD_lEESK_SC_Lm3ESD_lEEPKSC_l",
      "0:8 8:72 80:56 136:56 192:8 200:8" },
    /* 2.13.0-2.15.0: nll_loss2d_backward_no_reduce_kernel<double> */
    { "_ZN2at6native45_GLOBAL__N__b215459d_12_NLLLoss2d_cu_e9278b4636nll_loss2d_backward_no_reduce_kernelIdEEvlN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEElLm2ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEElLm3ESB_lEENS6_INS7_ISA_T_Lm2ESB_lEESF_SH_Lm3ESB_lEENS6_INS7_ISA_SH_Lm3ESB_lEENSE_ILm4ElEESH_Lm4ESB_lEEPKSH_l",
      "0:8 8:56 64:56 120:72 192:8 200:8" },
};

/* nll_loss2d_backward_kernel<double, long> (2.14+): n_classes and
 * map_nelem are int64 - sizes only representable in 64 bits must be read
 * whole (and their product refused), not truncated to 32 bits. */
static void test_decoder_2d_backward_long(void)
{
    const char *name = "_ZN2at6native45_GLOBAL__N__b215459d_12_NLLLoss2d_cu_e9278b4626nll_loss2d_backward_kernelIdlEEvPT_PKS3_PKlS6_S6_bT0_S9_il";
    void *cookie = NULL;
    CHECK(tfl_kfamily_loss.match(name, &cookie) == 1, "2.15 nll_loss2d backward <double, long>");
    if (!cookie)
        return;
    double buf[16];
    void *gi = buf, *go = buf, *tg = buf, *w = NULL, *tw = buf;
    uint8_t avg = 1;
    int64_t ncls = (int64_t)1 << 40, nelem = (int64_t)1 << 40, ign = -100;
    int32_t bps = 1;
    void *args[10] = {&gi, &go, &tg, &w, &tw, &avg, &ncls, &nelem, &bps, &ign};
    tfl_kcall call = {.name = name, .grid = {2, 1, 1}, .block = {256, 1, 1}, .args = args};
    char err[256] = "";
    CHECK(tfl_kfamily_loss.run(&call, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "2^80 elements accepted: %s", err);
    ncls = 3;
    nelem = 5;
    CHECK(tfl_kfamily_loss.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "stack operands accepted: %s", err);
    free(cookie);
}

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_loss, cubin, sizeof cubin / sizeof cubin[0], NULL,
                        &failures);
    test_decoder_2d_backward_long();
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

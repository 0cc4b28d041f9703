/*
 * test_ops_softmax.c - the softmax family: its layout() against the 2.11
 * and 2.15 cubins' parameter tables, which names it claims, a decoded
 * launch's refusals, and the host's native softmax op against the textbook
 * formulas evaluated in double here: last-dim rows with a row stride,
 * inner > 1 (the spatial case), log and plain, forward and backward.
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

enum { O = 4, D = 29, I = 3, PAD = 5 };

/* reference for element (o, d, i) of a [O, D, I] array with row stride rs */
static double ref_fwd(const float *x, int o, int d, int i, int inner, int rs, int is_log)
{
    double m = -INFINITY, s = 0;
    for (int k = 0; k < D; k++)
        m = fmax(m, x[o * rs + k * inner + i]);
    for (int k = 0; k < D; k++)
        s += exp(x[o * rs + k * inner + i] - m);
    double v = x[o * rs + d * inner + i] - m;
    return is_log ? v - log(s) : exp(v) / s;
}

static double ref_bwd(const float *y, const float *g, int o, int d, int i, int inner, int rs, int is_log)
{
    /* g is dL/dy; the op's grad operand is dL/dy * y for softmax */
    double s = 0;
    for (int k = 0; k < D; k++) {
        int e = o * rs + k * inner + i;
        s += is_log ? g[e] : (double)g[e] * y[e];
    }
    int e = o * rs + d * inner + i;
    return is_log ? g[e] - exp(y[e]) * s : y[e] * (g[e] - s);
}

static void run_case(int inner, int rs, int is_log)
{
    static float x[O * (D * I + PAD)], y[O * (D * I + PAD)], g[O * (D * I + PAD)], gi[O * (D * I + PAD)];
    static float gy[O * (D * I + PAD)];
    srand(11 + inner + is_log);
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++) {
        x[k] = (float)rand() / RAND_MAX * 10 - 5;
        g[k] = (float)rand() / RAND_MAX * 2 - 1;
    }
    tfl_softmax_op op;
    memset(&op, 0, sizeof op);
    op.log = is_log;
    op.in_dtype = op.out_dtype = TFL_DT_F32;
    op.in = x;
    op.out = y;
    op.outer = O; op.dim = D; op.inner = inner; op.outer_stride = rs;
    CHECK(host_softmax(&op) == TFL_OK, "forward");
    for (int o = 0; o < O; o++)
        for (int d = 0; d < D; d++)
            for (int i = 0; i < inner; i++) {
                double want = ref_fwd(x, o, d, i, inner, rs, is_log);
                float got = y[o * rs + d * inner + i];
                CHECK(fabs(got - want) <= 1e-5 * (1 + fabs(want)), "fwd log=%d inner=%d (%d,%d,%d): %g vs %g",
                      is_log, inner, o, d, i, got, want);
            }
    op.backward = 1;
    op.in = y;
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
        gy[k] = is_log ? g[k] : g[k] * y[k];
    op.grad = gy;
    op.out = gi;
    CHECK(host_softmax(&op) == TFL_OK, "backward");
    for (int o = 0; o < O; o++)
        for (int d = 0; d < D; d++)
            for (int i = 0; i < inner; i++) {
                double want = ref_bwd(y, g, o, d, i, inner, rs, is_log);
                float got = gi[o * rs + d * inner + i];
                CHECK(fabs(got - want) <= 1e-5 * (1 + fabs(want)), "bwd log=%d inner=%d (%d,%d,%d): %g vs %g",
                      is_log, inner, o, d, i, got, want);
            }
}

/* Synthesized launches: names are parsed (masked softmax not claimed),
 * operands outside device memory give TFL_ERR_INVALID. */
static void test_decoder(void)
{
    const char *fwd = "_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi4ELb1ELb0EEEvPT0_PKT_iiiPKbib";
    const char *masked = "_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi4ELb0ELb1EEEvPT0_PKT_iiiPKbib";
    const char *spatial = "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6327cunn_SpatialSoftMaxBackwardIfffNS1_26LogSoftMaxBackwardEpilogueEEEvPT_PKT1_S8_jjj";
    void *c = NULL, *c2 = NULL;
    CHECK(tfl_kfamily_softmax.match(fwd, &c) == 1, "warp forward");
    CHECK(!strcmp(tfl_kfamily_softmax.op_name(c), "log_softmax_fwd"), "name %s", tfl_kfamily_softmax.op_name(c));
    CHECK(tfl_kfamily_softmax.match(masked, &c2) == 0, "masked claimed");
    /* 2.15 adds the warp size (32) as a last int argument: still masked */
    CHECK(tfl_kfamily_softmax.match("_ZN43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi4ELb0ELb1ELi32EEEvPT0_PKT_iiiPKbib", &c2) == 0, "2.15 masked claimed");
    CHECK(tfl_kfamily_softmax.match(spatial, &c2) == 1, "spatial backward");
    CHECK(!strcmp(tfl_kfamily_softmax.op_name(c2), "log_softmax_bwd"), "name %s", tfl_kfamily_softmax.op_name(c2));
    void *dst = (void *)0x10000, *src = (void *)0x20000, *mask = NULL;
    int32_t batch = 3, stride = 10, count = 10, chunk = -1;
    uint8_t tm = 0;
    void *args[8] = {&dst, &src, &batch, &stride, &count, &mask, &chunk, &tm};
    tfl_kcall call = {.name = fwd, .grid = {1, 1, 1}, .block = {32, 4, 1}, .args = args};
    char err[256] = "";
    CHECK(tfl_kfamily_softmax.run(&call, c, err, sizeof err) == TFL_ERR_INVALID, "bogus pointers: %s", err);
    stride = 5;                                 /* rows overlap */
    CHECK(tfl_kfamily_softmax.run(&call, c, err, sizeof err) == TFL_ERR_INVALID, "overlap: %s", err);
}

/* Mangled names and parameter tables (offset:size) as the 2.11 and 2.15
 * sm_80 cubins record them (scripts/wheel_kernels.py; the comment names
 * the releases that ship the same name and layout): the family's layout()
 * must state exactly these. */
static const cubin_layout cubin[] = {
    /* 2.11.0: softmax_warp_forward<float, float, float, 7, false, false> */
    { "_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi7ELb0ELb0EEEvPT0_PKT_iiiPKbib",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:4 44:1" },
    /* 2.13.0-2.15.0: softmax_warp_forward<float, float, float, 7, false, false, 32> */
    { "_ZN43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi7ELb0ELb0ELi32EEEvPT0_PKT_iiiPKbib",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:4 44:1" },
    /* 2.11.0: softmax_warp_backward<c10::Half, c10::Half, float, 10, true, false> */
    { "_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6321softmax_warp_backwardIN3c104HalfES2_fLi10ELb1ELb0EEEvPT0_PKT_S7_iiiPKb",
      "0:8 8:8 16:8 24:4 28:4 32:4 40:8" },
    /* 2.13.0-2.15.0: softmax_warp_backward<c10::Half, c10::Half, float, 10, true, false, 32> */
    { "_ZN43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6321softmax_warp_backwardIN3c104HalfES2_fLi10ELb1ELb0ELi32EEEvPT0_PKT_S7_iiiPKb",
      "0:8 8:8 16:8 24:4 28:4 32:4 40:8" },
    /* 2.11.0-2.12.1: cunn_SoftMaxForward<4, float, float, float, LogSoftMaxForwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6319cunn_SoftMaxForwardILi4EfffNS1_25LogSoftMaxForwardEpilogueEEEvPT2_PKT0_i",
      "0:8 8:8 16:4" },
    /* 2.11.0-2.12.1: cunn_SoftMaxForwardSmem<4, float, float, float, SoftMaxForwardEpilogue, long> */
    { "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6323cunn_SoftMaxForwardSmemILi4EfffNS1_22SoftMaxForwardEpilogueElEEvPT2_PKT0_T4_",
      "0:8 8:8 16:8" },
    /* 2.13.0-2.15.0: cunn_SoftMaxForwardReg<c10::BFloat16, float, c10::BFloat16, SoftMaxForwardEpilogue, long, 4> */
    { "_ZN2at6native43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6322cunn_SoftMaxForwardRegIN3c108BFloat16EfS4_NS1_22SoftMaxForwardEpilogueElLi4EEEvPT1_PKT_T3_",
      "0:8 8:8 16:8" },
    /* 2.11.0-2.12.1: cunn_SoftMaxBackward<4, float, float, float, LogSoftMaxBackwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320cunn_SoftMaxBackwardILi4EfffNS1_26LogSoftMaxBackwardEpilogueEEEvPT0_PKT2_S8_l",
      "0:8 8:8 16:8 24:8" },
    /* 2.13.0-2.15.0: cunn_SoftMaxBackwardSmem<8, c10::Half, float, c10::Half, SoftMaxBackwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6324cunn_SoftMaxBackwardSmemILi8EN3c104HalfEfS4_NS1_23SoftMaxBackwardEpilogueEEEvPT0_PKT2_SA_l",
      "0:8 8:8 16:8 24:8" },
    /* 2.11.0-2.12.1: cunn_SpatialSoftMaxForward<float, float, float, int, SoftMaxForwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6326cunn_SpatialSoftMaxForwardIfffiNS1_22SoftMaxForwardEpilogueEEEvPT1_PKT_T2_S9_S9_",
      "0:8 8:8 16:4 20:4 24:4" },
    /* 2.13.0-2.15.0: cunn_SpatialSoftMaxForward<double, double, double, long, LogSoftMaxForwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6326cunn_SpatialSoftMaxForwardIdddlNS1_25LogSoftMaxForwardEpilogueEEEvPT1_PKT_T2_S9_S9_",
      "0:8 8:8 16:8 24:8 32:8" },
    /* 2.11.0-2.12.1: cunn_SpatialSoftMaxBackward<float, float, float, LogSoftMaxBackwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6327cunn_SpatialSoftMaxBackwardIfffNS1_26LogSoftMaxBackwardEpilogueEEEvPT_PKT1_S8_jjj",
      "0:8 8:8 16:8 24:4 28:4 32:4" },
    /* 2.15.0: cunn_SpatialSoftMaxBackward<float, float, float, int, SoftMaxBackwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6327cunn_SpatialSoftMaxBackwardIfffiNS1_23SoftMaxBackwardEpilogueEEEvPT_PKT1_S8_T2_S9_S9_",
      "0:8 8:8 16:8 24:4 28:4 32:4" },
    /* 2.15.0: cunn_SpatialSoftMaxBackward<c10::Half, float, c10::Half, long, LogSoftMaxBackwardEpilogue> */
    { "_ZN2at6native43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6327cunn_SpatialSoftMaxBackwardIN3c104HalfEfS4_lNS1_26LogSoftMaxBackwardEpilogueEEEvPT_PKT1_SA_T2_SB_SB_",
      "0:8 8:8 16:8 24:8 32:8 40:8" },
};

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_softmax, cubin, sizeof cubin / sizeof cubin[0], NULL,
                        &failures);
    test_decoder();
    for (int is_log = 0; is_log < 2; is_log++) {
        run_case(1, D, is_log);        /* contiguous rows            */
        run_case(1, D + PAD, is_log);  /* rows with a stride          */
        run_case(I, D * I, is_log);    /* spatial: inner > 1          */
    }
    tfl_softmax_op bad;
    memset(&bad, 0, sizeof bad);
    bad.in_dtype = bad.out_dtype = TFL_DT_F32;
    bad.outer = 2; bad.dim = 4; bad.inner = 1; bad.outer_stride = 3;   /* rows overlap */
    CHECK(host_softmax(&bad) == TFL_ERR_UNSUPPORTED, "overlapping rows accepted");
    bad.outer_stride = 4;
    CHECK(host_softmax(&bad) == TFL_ERR_INVALID, "NULL operands accepted");
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_softmax: ok\n");
    return 0;
}

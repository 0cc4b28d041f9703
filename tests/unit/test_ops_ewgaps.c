/*
 * test_ops_ewgaps.c - the elementwise codes added for losses, shrink
 * activations and complex numbers: their kernel-name plans against the
 * cubin parameter tables, and the host op against double-precision
 * references computed here from the formulas' definitions.
 */
#include "route/optable/elementwise_table.h"
#include "backends/host/host_ops.h"
#include "torchfl/ops/elementwise.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

/* Mangled names and parameter layouts (offset:size) read from the torch
 * 2.11 sm_80 cubins by scripts/wheel_kernels.py. */
static const struct { const char *mangled, *layout; } cubin[] = {
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_21smooth_l1_kernel_cudaERNS_18TensorIteratorBaseEdENKUlvE_clEvENKUlvE0_clEvEUlffE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 8:16 24:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_17huber_kernel_cudaERNS_14TensorIteratorEdENKUlvE_clEvENKUlvE_clEvEUlddE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 8:16 24:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_30smooth_l1_backward_cuda_kernelERNS_14TensorIteratorERKN3c106ScalarEdENKUlvE_clEvENKUlvE5_clEvEUlfffE_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 8:16 24:32" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_26huber_backward_cuda_kernelERNS_14TensorIteratorERKN3c106ScalarEdENKUlvE_clEvENKUlvE_clEvEUldddE_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 8:24 32:32" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_24mse_backward_cuda_kernelERNS_14TensorIteratorERKN3c106ScalarEENKUlvE_clEvENKUlvE0_clEvEUlfffE_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 8:16 24:32" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_68_GLOBAL__N__1cef9e28_29_ActivationSoftshrinkKernel_cu_ef1a7132_1572917softshrink_kernelERNS_18TensorIteratorBaseERKN3c106ScalarEENKUlvE_clEvENKUlvE1_clEvEUlNS5_4HalfEE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:16 24:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_68_GLOBAL__N__3e09acab_29_ActivationHardshrinkKernel_cu_ef1a7132_1508717hardshrink_kernelERNS_18TensorIteratorBaseERKN3c106ScalarEENKUlvE_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:16 24:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_68_GLOBAL__N__1cef9e28_29_ActivationSoftshrinkKernel_cu_ef1a7132_1572922shrink_backward_kernelERNS_18TensorIteratorBaseERKN3c106ScalarEENKUlvE_clEvENKUlvE_clEvEUlddE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 8:16 24:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_55_GLOBAL__N__ca79839a_16_ComplexKernel_cu_ef1a7132_1722017polar_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE_clEvEUlddE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 4:1 8:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_55_GLOBAL__N__ca79839a_16_ComplexKernel_cu_ef1a7132_1722019complex_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE0_clEvEUlffE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 4:1 8:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_17angle_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 4:1 8:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_16conj_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE10_clEvEUlN3c107complexIfEEE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 4:1 8:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_20neg_conj_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE_clEvEUlN3c107complexIdEEE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 4:1 8:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIN3c107complexIdEEEESt5arrayIPcLm1EEEEviT0_T1_",
      "0:4 16:16 32:8" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIN3c107complexIdEEEESt5arrayIPcLm3EEEEviT0_T1_",
      "0:4 16:16 32:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_addIN3c107complexIfEEEESt5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:16 24:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13AUnaryFunctorIN3c107complexIdEES5_S5_NS0_15binary_internal10MulFunctorIS5_EEEESt5arrayIPcLm2EEEEviT0_T1_",
      "0:4 16:32 48:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIN3c107complexIfEES5_S5_NS0_15binary_internal10DivFunctorIS5_EEEESt5arrayIPcLm3EEEEviT0_T1_",
      "0:4 4:1 8:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb18masked_fill_kernelERNS_14TensorIteratorERKN3c106ScalarEENKUlvE_clEvENKUlvE6_clEvEUlNS5_7complexIdEEbE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 16:32 48:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__d2ba64fb_16_TensorCompare_cu_71e06f4e17where_kernel_implERNS_14TensorIteratorEENKUlvE_clEvENKUlvE10_clEvEUlbN3c107complexIdEES9_E_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 8:8 16:32" },
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implINS0_15CUDAFunctor_addIN3c107complexIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:656" },
    { "_ZN2at6native27unrolled_elementwise_kernelIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE6_clEvEUlN3c107complexIdEEE_St5arrayIPcLm2EELi4E23TrivialOffsetCalculatorILi1EjESE_NS0_6memory12LoadWithCastILi1EEENSF_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_",
      "0:4 4:1 8:16 24:1 25:1 28:8 36:8" },
};

static void test_layouts(void)
{
    for (size_t i = 0; i < sizeof cubin / sizeof cubin[0]; i++) {
        tfl_ew_plan *p = tfl_ew_plan_for(cubin[i].mangled);
        CHECK(p != NULL);
        if (!p) {
            fprintf(stderr, "  no plan for %s\n", cubin[i].mangled);
            continue;
        }
        size_t off[8], sz[8];
        int n = tfl_ew_param_layout(p, off, sz, 8);
        char buf[256] = "";
        int pos = 0;
        for (int k = 0; k < n; k++)
            pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%zu:%zu", k ? " " : "",
                            off[k], sz[k]);
        if (strcmp(buf, cubin[i].layout) != 0)
            fprintf(stderr, "  %s: want %s got %s\n", cubin[i].mangled, cubin[i].layout, buf);
        CHECK(strcmp(buf, cubin[i].layout) == 0);
        free(p);
    }
}

static tfl_elementwise_op op_of(int code, int dt_out, int dt_in, int compute, int nin,
                                int64_t n, void *o, void *a, void *b, void *c)
{
    tfl_elementwise_op op;
    memset(&op, 0, sizeof op);
    op.code = (tfl_ew_code)code;
    op.compute = compute;
    op.ninputs = nin;
    op.ndim = 1;
    op.shape[0] = n;
    void *p[4] = { o, a, b, c };
    for (int k = 0; k <= nin; k++) {
        op.operand[k].dtype = k ? dt_in : dt_out;
        op.operand[k].data = p[k];
        op.operand[k].strides[0] = (int64_t)tfl_dtype_size((tfl_dtype)op.operand[k].dtype);
    }
    return op;
}

#define N 257

static double ref_loss(int code, double a, double b, double c, double p0, double p1)
{
    double x = a - b, z = fabs(x);
    switch (code) {
    case TFL_EW_SMOOTH_L1: return z < p0 ? 0.5 * x * x / p0 : z - 0.5 * p0;
    case TFL_EW_HUBER: return z < p0 ? 0.5 * x * x : p0 * (z - 0.5 * p0);
    case TFL_EW_SMOOTH_L1_BACKWARD: return fabs(x) <= p1 ? p0 * x * c / p1 : x > 0 ? p0 * c : -p0 * c;
    case TFL_EW_HUBER_BACKWARD: return fabs(x) <= p1 ? p0 * x * c : x > 0 ? p0 * c * p1 : -p0 * c * p1;
    case TFL_EW_MSE_BACKWARD: return p0 * x * c;
    case TFL_EW_SOFTSHRINK: return a > p0 ? a - p0 : a < -p0 ? a + p0 : 0;
    case TFL_EW_HARDSHRINK: return fabs(a) <= p0 ? 0 : a;
    case TFL_EW_SHRINK_BACKWARD: return fabs(b) <= p0 ? 0 : a;
    case TFL_EW_ANGLE: return a < 0 ? 3.14159265358979323846 : 0;
    case TFL_EW_LOGIT: return log(a / (1 - a));
    case TFL_EW_LOGIT_BACKWARD: return a / (b * (1 - b));
    case TFL_EW_BCE: return (b - 1) * fmax(log(1 - a), -100) - b * fmax(log(a), -100);
    case TFL_EW_BCE_BACKWARD: return a * (b - c) / fmax((1 - b) * b, 1e-12);
    default: return NAN;
    }
}

static void test_losses(void)
{
    static const struct { int code, nin; } ops[] = {
        { TFL_EW_SMOOTH_L1, 2 }, { TFL_EW_HUBER, 2 }, { TFL_EW_SMOOTH_L1_BACKWARD, 3 },
        { TFL_EW_HUBER_BACKWARD, 3 }, { TFL_EW_MSE_BACKWARD, 3 }, { TFL_EW_SOFTSHRINK, 1 },
        { TFL_EW_HARDSHRINK, 1 }, { TFL_EW_SHRINK_BACKWARD, 2 }, { TFL_EW_ANGLE, 1 },
        { TFL_EW_BCE, 2 }, { TFL_EW_BCE_BACKWARD, 3 }, { TFL_EW_LOGIT, 1 },
        { TFL_EW_LOGIT_BACKWARD, 2 },
    };
    float a[N], b[N], c[N], o[N];
    double ad[N], bd[N], cd[N], od[N];
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        int code = ops[k].code, nin = ops[k].nin;
        /* BCE and logit read probabilities: its input (and target) in (0, 1) */
        int first_p = code == TFL_EW_BCE || code == TFL_EW_LOGIT ? 0
                    : code == TFL_EW_BCE_BACKWARD || code == TFL_EW_LOGIT_BACKWARD ? 1 : 3;
        for (int i = 0; i < N; i++) {
            float *in[3] = { &a[i], &b[i], &c[i] };
            double *ind[3] = { &ad[i], &bd[i], &cd[i] };
            for (int j = 0; j < 3; j++) {
                float raw = (float)(((i * (37 + 16 * j)) % (101 - 12 * j)) - 50 + 6 * j) / (17.0f + 6 * j);
                *in[j] = j >= first_p ? 1.0f / (1.0f + expf(-raw)) : raw;
                *ind[j] = *in[j];
            }
        }
        double p0 = code == TFL_EW_SMOOTH_L1_BACKWARD || code == TFL_EW_HUBER_BACKWARD ? 0.25 : 0.7;
        double p1 = 0.6;
        /* float32 (the fast in-place path) */
        tfl_elementwise_op op = op_of(code, TFL_DT_F32, TFL_DT_F32, TFL_DT_F32, nin, N, o, a, b, c);
        op.param_f[0] = p0; op.param_f[1] = p1;
        CHECK(host_elementwise(&op) == TFL_OK);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            double want = ref_loss(code, a[i], b[i], c[i], (float)p0, (float)p1);
            if (fabs(o[i] - want) > 1e-5 * (1 + fabs(want))) bad++;
        }
        if (bad) fprintf(stderr, "  code %d f32: %d bad\n", code, bad);
        CHECK(bad == 0);
        /* float64 */
        op = op_of(code, TFL_DT_F64, TFL_DT_F64, TFL_DT_F64, nin, N, od, ad, bd, cd);
        op.param_f[0] = p0; op.param_f[1] = p1;
        CHECK(host_elementwise(&op) == TFL_OK);
        bad = 0;
        for (int i = 0; i < N; i++) {
            double want = ref_loss(code, ad[i], bd[i], cd[i], p0, p1);
            if (fabs(od[i] - want) > 1e-13 * (1 + fabs(want))) bad++;
        }
        if (bad) fprintf(stderr, "  code %d f64: %d bad\n", code, bad);
        CHECK(bad == 0);
    }
    /* NaN stays NaN through softshrink and angle */
    float nan_in = NAN, out = 0;
    tfl_elementwise_op op = op_of(TFL_EW_SOFTSHRINK, TFL_DT_F32, TFL_DT_F32, TFL_DT_F32, 1, 1,
                                  &out, &nan_in, NULL, NULL);
    op.param_f[0] = 0.5;
    CHECK(host_elementwise(&op) == TFL_OK && isnan(out));
}

static void test_complex(void)
{
    float za[2 * N], zb[2 * N], zo[2 * N];
    double ra[N], rb[N], dout[2 * N];
    for (int i = 0; i < N; i++) {
        za[2 * i] = (float)(i % 7) - 3.0f; za[2 * i + 1] = (float)(i % 5) * 0.5f - 1.0f;
        zb[2 * i] = (float)(i % 3) + 0.5f; zb[2 * i + 1] = (float)(i % 4) - 1.5f;
        ra[i] = (i % 9) * 0.25; rb[i] = (i % 11) * 0.3 - 1.5;
    }
    static const int codes[] = { TFL_EW_MUL, TFL_EW_DIV, TFL_EW_ADD, TFL_EW_CONJ,
                                 TFL_EW_NEG_CONJ, TFL_EW_RECIPROCAL, TFL_EW_EQ };
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        int code = codes[k];
        int nin = code == TFL_EW_CONJ || code == TFL_EW_NEG_CONJ || code == TFL_EW_RECIPROCAL ? 1 : 2;
        unsigned char bo[N];
        int out_bool = code == TFL_EW_EQ;
        tfl_elementwise_op op = op_of(code, out_bool ? TFL_DT_BOOL : TFL_DT_C64, TFL_DT_C64,
                                      TFL_DT_C64, nin, N, out_bool ? (void *)bo : (void *)zo,
                                      za, zb, NULL);
        op.param_f[0] = 2; op.param_im[0] = -1;      /* add: alpha 2 - i */
        CHECK(host_elementwise_supported(&op));
        CHECK(host_elementwise(&op) == TFL_OK);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            double _Complex a = CMPLX(za[2 * i], za[2 * i + 1]), b = CMPLX(zb[2 * i], zb[2 * i + 1]);
            double _Complex w;
            switch (code) {
            case TFL_EW_MUL: w = a * b; break;
            case TFL_EW_DIV: w = a / b; break;
            case TFL_EW_ADD: w = a + CMPLX(2, -1) * b; break;
            case TFL_EW_CONJ: w = conj(a); break;
            case TFL_EW_NEG_CONJ: w = -conj(a); break;
            case TFL_EW_RECIPROCAL: w = 1 / a; break;
            default: w = a == b; break;
            }
            if (out_bool) {
                if (bo[i] != (creal(w) != 0)) bad++;
            } else if (cabs(CMPLX(zo[2 * i], zo[2 * i + 1]) - w) > 1e-5 * (1 + cabs(w))) {
                bad++;
            }
        }
        if (bad) fprintf(stderr, "  complex code %d: %d bad\n", code, bad);
        CHECK(bad == 0);
    }
    /* polar / complex from real float64 into complex128 */
    tfl_elementwise_op op = op_of(TFL_EW_POLAR, TFL_DT_C128, TFL_DT_F64, TFL_DT_F64, 2, N,
                                  dout, ra, rb, NULL);
    CHECK(host_elementwise(&op) == TFL_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (fabs(dout[2 * i] - ra[i] * cos(rb[i])) > 1e-15 ||
            fabs(dout[2 * i + 1] - ra[i] * sin(rb[i])) > 1e-15) bad++;
    CHECK(bad == 0);
    op.code = TFL_EW_COMPLEX;
    CHECK(host_elementwise(&op) == TFL_OK);
    bad = 0;
    for (int i = 0; i < N; i++)
        if (dout[2 * i] != ra[i] || dout[2 * i + 1] != rb[i]) bad++;
    CHECK(bad == 0);
    /* a complex constant (a * (0.5 + 2i)) and a real output (copy keeps re) */
    op = op_of(TFL_EW_MUL, TFL_DT_C64, TFL_DT_C64, TFL_DT_C64, 2, N, zo, za, NULL, NULL);
    op.operand[2].is_scalar = 1; op.operand[2].dtype = TFL_DT_C64;
    op.operand[2].value_f = 0.5; op.operand[2].value_im = 2;
    CHECK(host_elementwise(&op) == TFL_OK);
    bad = 0;
    for (int i = 0; i < N; i++) {
        double _Complex w = CMPLX(za[2 * i], za[2 * i + 1]) * CMPLX(0.5, 2);
        if (cabs(CMPLX(zo[2 * i], zo[2 * i + 1]) - w) > 1e-5 * (1 + cabs(w))) bad++;
    }
    CHECK(bad == 0);
    float re[N];
    op = op_of(TFL_EW_COPY, TFL_DT_F32, TFL_DT_C64, TFL_DT_C64, 1, N, re, za, NULL, NULL);
    CHECK(host_elementwise(&op) == TFL_OK);
    bad = 0;
    for (int i = 0; i < N; i++)
        if (re[i] != za[2 * i]) bad++;
    CHECK(bad == 0);
    /* ops without a complex meaning are refused, not guessed */
    op = op_of(TFL_EW_EXP, TFL_DT_C64, TFL_DT_C64, TFL_DT_C64, 1, N, zo, za, NULL, NULL);
    CHECK(!host_elementwise_supported(&op));
    CHECK(host_elementwise(&op) == TFL_ERR_UNSUPPORTED);
}

int main(void)
{
    test_layouts();
    test_losses();
    test_complex();
    if (failures) {
        fprintf(stderr, "test_ops_ewgaps: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_ewgaps: ok\n");
    return 0;
}

/*
 * test_ops_elementwise.c - the elementwise family: kernel-name plans
 * against the cubin's parameter tables, launch decoding from synthesized
 * parameter bytes laid out as PyTorch's, and the host op against double
 * precision references (and the compiler's own _Float16 conversions).
 */
#include "route/optable/elementwise_table.h"
#include "route/optable/pt_abi.h"
#include "route/optable.h"
#include "backends/host/host_ops.h"
#include "torchfl/ops/elementwise.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

/* Mangled names and parameter layouts (offset:size) as read from the
 * torch 2.11 sm_80 cubins by scripts/wheel_kernels.py. */
static const struct { const char *mangled, *layout; } cubin[] = {
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
      "0:4 4:4 8:8" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
      "0:4 4:4 8:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi2ENS0_13AUnaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEESt5arrayIPcLm2EEEEviT0_T1_",
      "0:4 4:8 16:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BUnaryFunctorIN3c104HalfES4_S4_ZNS0_67_GLOBAL__N__06c19b41_28_ActivationThresholdKernel_cu_ef1a7132_1580621threshold_kernel_implIS4_EEvRNS_18TensorIteratorBaseET_S9_EUlS4_S4_E_EESt5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:24 32:16" },
    { "_ZN2at6native27unrolled_elementwise_kernelINS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EELi4E23TrivialOffsetCalculatorILi2EjES7_ILi1EjENS0_6memory12LoadWithCastILi2EEENSA_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_",
      "0:4 4:4 8:24 32:1 33:1 36:12 48:8" },
    { "_ZN2at6native27unrolled_elementwise_kernelINS0_11FillFunctorIlEESt5arrayIPcLm1EELi4E23TrivialOffsetCalculatorILi0EjES7_ILi1EjENS0_6memory12LoadWithCastILi0EEENSA_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_",
      "0:4 8:8 16:8 24:1 25:1 28:8 36:8" },
    { "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:648" },
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_",
      "0:4 8:536" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_49_GLOBAL__N__d2ba64fb_16_TensorCompare_cu_71e06f4e19launch_clamp_scalarERNS_18TensorIteratorBaseEN3c106ScalarES6_NS0_6detail11ClampLimitsEENKUlvE_clEvENKUlvE4_clEvEUldE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:32 40:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_49_GLOBAL__N__d2ba64fb_16_TensorCompare_cu_71e06f4e17where_kernel_implERNS_14TensorIteratorEENKUlvE_clEvENKUlvE9_clEvEUlbffE_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 8:8 16:32" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZNS0_21compare_scalar_kernelIdEEvRNS_18TensorIteratorBaseENS0_50_GLOBAL__N__e50ef81d_17_CompareKernels_cu_8f1b29aa6OpTypeET_EUldE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:24 32:16" },
    { "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZNS0_51_GLOBAL__N__b1108092_12_PowKernel_cu_ef1a7132_2138429pow_tensor_scalar_kernel_implIffEEvRNS_18TensorIteratorBaseET0_EUlfE2_EEvS6_RKT_EUliE_EEviT1_",
      "0:4 8:544" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb18masked_fill_kernelERNS_14TensorIteratorERKN3c106ScalarEENKUlvE_clEvENKUlvE2_clEvEUllbE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 8:16 24:24" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_18GeluCUDAKernelImplERNS_18TensorIteratorBaseENS0_8GeluTypeEENKUlvE_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 4:1 8:16" },
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_15binary_internal21div_floor_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE_clEvEUldE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:24 32:16" },

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
            pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "%s%zu:%zu", k ? " " : "", off[k], sz[k]);
        if (strcmp(buf, cubin[i].layout) != 0)
            fprintf(stderr, "  %s: want %s got %s\n", cubin[i].mangled, cubin[i].layout, buf);
        CHECK(strcmp(buf, cubin[i].layout) == 0);
        free(p);
    }
    /* not ours: a reduction, and an elementwise op the table does not know
     * (nextafter: float-exact, not mapped) */
    CHECK(tfl_ew_plan_for("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIfffEEjfLi4ELi4EEEEEvT1_") == NULL);
    CHECK(tfl_ew_plan_for("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIfffZZZNS0_21nextafter_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE0_clEvEUlffE_EESt5arrayIPcLm3EEEEviT0_T1_") == NULL);
    CHECK(tfl_ew_plan_for("not a mangled name") == NULL);
}

static tfl_ew_plan *plan_containing(const char *what)
{
    for (size_t i = 0; i < sizeof cubin / sizeof cubin[0]; i++)
        if (strstr(cubin[i].mangled, what))
            return tfl_ew_plan_for(cubin[i].mangled);
    return NULL;
}

static float frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* vectorized CUDAFunctor_add<float>: (int N, float alpha, char* data[3]) */
static void test_vectorized_add(void)
{
    tfl_ew_plan *p = plan_containing("CUDAFunctor_addIfEESt5array");
    CHECK(p && p->form == TFL_EWF_VECTORIZED);
    if (!p) return;
    enum { N = 1000 };
    static float out[N], a[N], b[N];
    unsigned s = 1;
    for (int i = 0; i < N; i++) { a[i] = frand(&s); b[i] = frand(&s); }
    int32_t n = N;
    float alpha = -0.75f;
    char *data[3] = { (char *)out, (char *)a, (char *)b };
    const void *args[3] = { &n, &alpha, data };
    tfl_elementwise_op op;
    int64_t cnt = 0;
    char err[256] = "";
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_OK);
    CHECK(cnt == N && op.code == TFL_EW_ADD && op.ninputs == 2 && op.param_f[0] == -0.75);
    CHECK(op.operand[0].dtype == TFL_DT_F32 && op.operand[1].strides[0] == 4);
    CHECK(host_elementwise(&op) == TFL_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (out[i] != (float)((double)a[i] + -0.75 * (double)b[i]) &&
            fabs(out[i] - ((double)a[i] - 0.75 * b[i])) > 1e-6)
            bad++;
    CHECK(bad == 0);
    free(p);
}

/* legacy elementwise_kernel<128,2,gpu_kernel_impl_nocast<BinaryFunctor<..Mul..>>>:
 * (int N, lambda{OffsetCalculator<3>, char* data[3], functor, ptr}) with a
 * broadcast second input and a transposed output */
static void test_legacy_broadcast_mul(void)
{
    tfl_ew_plan *p = plan_containing("gpu_kernel_impl_nocastINS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctor");
    CHECK(p && p->form == TFL_EWF_LEGACY && p->ntensors == 3);
    if (!p) return;
    enum { R = 7, C = 5 };
    static float out[C][R], a[R][C], b[C];
    unsigned s = 7;
    for (int i = 0; i < R; i++) for (int j = 0; j < C; j++) a[i][j] = frand(&s);
    for (int j = 0; j < C; j++) b[j] = frand(&s);
    unsigned char lam[648];
    memset(lam, 0, sizeof lam);
    int32_t dims = 2;
    memcpy(lam, &dims, 4);
    uint32_t sizes[2] = { C, R };                     /* dim 0 fastest: columns */
    for (int d = 0; d < 2; d++) memcpy(lam + 4 + 12 * d, &sizes[d], 4);
    /* strides_[dim][arg], bytes: out is [C][R] (transposed), a [R][C], b [C] */
    uint32_t st[2][3] = { { 4 * R, 4, 4 }, { 4, 4 * C, 0 } };
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++) memcpy(lam + 304 + 4 * (3 * d + k), &st[d][k], 4);
    char *data[3] = { (char *)out, (char *)a, (char *)b };
    memcpy(lam + 608, data, sizeof data);              /* align8(604) */
    int32_t n = R * C;
    const void *args[2] = { &n, lam };
    tfl_elementwise_op op;
    int64_t cnt = 0;
    char err[256] = "";
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_OK);
    CHECK(op.code == TFL_EW_MUL && op.ndim == 2 && op.shape[0] == C && op.shape[1] == R);
    CHECK(host_elementwise(&op) == TFL_OK);
    int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            if (out[j][i] != (float)((double)a[i][j] * (double)b[j])) bad++;
    CHECK(bad == 0);
    /* a calculator that disagrees with N is refused, not guessed */
    n = R * C + 1;
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_ERR_UNSUPPORTED);
    free(p);
}

/* legacy casting copy: gpu_kernel_impl<direct_copy lambda(float)> with the
 * ScalarTypes after the functor: float -> Half through a transpose */
static void test_legacy_cast_copy(void)
{
    tfl_ew_plan *p = plan_containing("gpu_kernel_implIZZZNS0_23direct_copy_kernel_cuda");
    CHECK(p && p->form == TFL_EWF_LEGACY && p->legacy_cast);
    if (!p) return;
    enum { R = 6, C = 9 };
    static uint16_t out[R * C];
    static float in[C][R];
    unsigned s = 3;
    for (int j = 0; j < C; j++) for (int i = 0; i < R; i++) in[j][i] = frand(&s) * 100.0f;
    in[0][0] = 70000.0f;                              /* overflows half */
    in[0][1] = 1e-6f;                                 /* half subnormal */
    unsigned char lam[536];
    memset(lam, 0, sizeof lam);
    int32_t dims = 2;
    memcpy(lam, &dims, 4);
    uint32_t sizes[2] = { C, R };
    for (int d = 0; d < 2; d++) memcpy(lam + 4 + 12 * d, &sizes[d], 4);
    uint32_t st[2][2] = { { 2, 4 * R }, { 2 * C, 4 } };  /* out [R][C] half, in [C][R] */
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 2; k++) memcpy(lam + 304 + 4 * (2 * d + k), &st[d][k], 4);
    char *data[2] = { (char *)out, (char *)in };
    memcpy(lam + 504, data, sizeof data);
    lam[504 + 16 + 1] = 5;                            /* dtypes after the 1-byte functor: Half */
    lam[504 + 16 + 2] = 6;                            /* Float */
    int32_t n = R * C;
    const void *args[2] = { &n, lam };
    tfl_elementwise_op op;
    int64_t cnt = 0;
    char err[256] = "";
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_OK);
    CHECK(op.code == TFL_EW_COPY && op.operand[0].dtype == TFL_DT_F16 &&
          op.operand[1].dtype == TFL_DT_F32);
    CHECK(host_elementwise(&op) == TFL_OK);
    int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            _Float16 h = (_Float16)in[j][i];
            uint16_t want;
            memcpy(&want, &h, 2);
            if (out[i * C + j] != want) bad++;
        }
    CHECK(bad == 0);
    /* an operand type torchfl has no dtype for (Short = 2) is refused */
    lam[504 + 16 + 2] = 2;
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_ERR_UNSUPPORTED);
    free(p);
}

/* unrolled add with LoadWithCast<2>: int64 + float inputs into float */
static void test_unrolled_cast_add(void)
{
    tfl_ew_plan *p = plan_containing("unrolled_elementwise_kernelINS0_15CUDAFunctor_addIfEE");
    CHECK(p && p->form == TFL_EWF_UNROLLED);
    if (!p) return;
    enum { N = 300 };
    static float out[N], b[N];
    static int64_t a[N];
    for (int i = 0; i < N; i++) { a[i] = (int64_t)i * 7919 - 1000000; b[i] = (float)i / 8; }
    int32_t n = N;
    float alpha = 2.0f;
    char *data[3] = { (char *)out, (char *)a, (char *)b };
    unsigned char ic = 0, oc = 0;
    unsigned char loader[12] = { 4, 6 }, storer[8] = { 6 };    /* Long, Float; Float */
    const void *args[7] = { &n, &alpha, data, &ic, &oc, loader, storer };
    tfl_elementwise_op op;
    int64_t cnt = 0;
    char err[256] = "";
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_OK);
    CHECK(op.operand[1].dtype == TFL_DT_I64 && op.operand[1].strides[0] == 8);
    CHECK(host_elementwise(&op) == TFL_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (out[i] != (float)((double)a[i] + 2.0 * b[i])) bad++;
    CHECK(bad == 0);
    free(p);
}

/* AUnaryFunctor<Mul>: the constant first operand after the empty functor */
static void test_aunary_constant(void)
{
    tfl_ew_plan *p = plan_containing("AUnaryFunctorIfffNS0_15binary_internal10MulFunctor");
    CHECK(p != NULL);
    if (!p) return;
    static float out[10], x[10];
    for (int i = 0; i < 10; i++) x[i] = (float)i - 4.5f;
    unsigned char f[8] = { 0 };
    float c = 3.5f;
    memcpy(f + 4, &c, 4);
    int32_t n = 10;
    char *data[2] = { (char *)out, (char *)x };
    const void *args[3] = { &n, f, data };
    tfl_elementwise_op op;
    int64_t cnt = 0;
    char err[256] = "";
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_OK);
    CHECK(op.ninputs == 2 && op.operand[1].is_scalar && op.operand[1].value_f == 3.5);
    CHECK(host_elementwise(&op) == TFL_OK);
    for (int i = 0; i < 10; i++) CHECK(out[i] == (float)(3.5 * x[i]));
    free(p);
}

/* the host op directly: exact integers, guarded division, NaN rules */
static tfl_elementwise_op contiguous(int code, int dt, int nin, int64_t n, void *o, void *a, void *b)
{
    tfl_elementwise_op op;
    memset(&op, 0, sizeof op);
    op.code = (tfl_ew_code)code;
    op.compute = dt;
    op.ninputs = nin;
    op.ndim = 1;
    op.shape[0] = n;
    void *ptr[3] = { o, a, b };
    for (int k = 0; k <= nin; k++) {
        op.operand[k].dtype = dt;
        op.operand[k].data = ptr[k];
        op.operand[k].strides[0] = (int64_t)tfl_dtype_size((tfl_dtype)dt);
    }
    return op;
}

static void test_host_integers(void)
{
    enum { N = 64 };
    int64_t a[N], b[N], o[N];
    for (int i = 0; i < N; i++) { a[i] = (INT64_C(1) << 62) + i * 1000003; b[i] = (i % 5) - 2; }
    tfl_elementwise_op op = contiguous(TFL_EW_ADD, TFL_DT_I64, 2, N, o, a, b);
    op.param_i[0] = 3;
    CHECK(host_elementwise(&op) == TFL_OK);
    for (int i = 0; i < N; i++) CHECK(o[i] == a[i] + 3 * b[i]);
    op = contiguous(TFL_EW_DIV_FLOOR, TFL_DT_I64, 2, N, o, a, b);   /* b has zeros */
    CHECK(host_elementwise(&op) == TFL_OK);
    for (int i = 0; i < N; i++) {
        if (b[i] == 0) { CHECK(o[i] == 0); continue; }
        lldiv_t q = lldiv(a[i], b[i]);
        CHECK(o[i] == q.quot - ((q.rem != 0) && ((q.rem < 0) != (b[i] < 0))));
    }
    op = contiguous(TFL_EW_FILL, TFL_DT_I64, 0, N, o, NULL, NULL);
    op.param_i[0] = INT64_C(9007199254740993);                       /* 2^53 + 1 */
    CHECK(host_elementwise(&op) == TFL_OK);
    for (int i = 0; i < N; i++) CHECK(o[i] == INT64_C(9007199254740993));
    /* wrong operand count for the op: refused, nothing read */
    op = contiguous(TFL_EW_ADD, TFL_DT_I64, 1, N, o, a, NULL);
    CHECK(host_elementwise_supported(&op) == 0);
    CHECK(host_elementwise(&op) == TFL_ERR_UNSUPPORTED);
}

static void test_host_nan_and_strides(void)
{
    float a[6] = { 1, NAN, -2, INFINITY, -INFINITY, 0.5f }, b[6] = { NAN, 0.5f, 3, 1, 2, 0.5f };
    float o[6];
    tfl_elementwise_op op = contiguous(TFL_EW_MAXIMUM, TFL_DT_F32, 2, 6, o, a, b);
    CHECK(host_elementwise(&op) == TFL_OK);
    CHECK(isnan(o[0]) && isnan(o[1]) && o[2] == 3 && o[3] == INFINITY && o[4] == 2 && o[5] == 0.5f);
    op = contiguous(TFL_EW_CLAMP, TFL_DT_F32, 1, 6, o, a, NULL);
    op.param_f[0] = -1; op.param_f[1] = 1;
    CHECK(host_elementwise(&op) == TFL_OK);
    CHECK(o[0] == 1 && isnan(o[1]) && o[2] == -1 && o[3] == 1 && o[4] == -1 && o[5] == 0.5f);
    /* 3-d with a broadcast and a negative stride, double path via f64 out */
    double out[2][3][4];
    float in[4][3][2];
    float vec[3] = { 1.5f, -2, 4 };
    for (int i = 0; i < 4; i++) for (int j = 0; j < 3; j++) for (int k = 0; k < 2; k++)
        in[i][j][k] = (float)(i * 100 + j * 10 + k);
    tfl_elementwise_op m;
    memset(&m, 0, sizeof m);
    m.code = TFL_EW_MUL; m.compute = TFL_DT_F64; m.ninputs = 2; m.ndim = 3;
    m.shape[0] = 4; m.shape[1] = 3; m.shape[2] = 2;              /* out[k][j][i] */
    m.operand[0].dtype = TFL_DT_F64; m.operand[0].data = out;
    m.operand[0].strides[0] = 8; m.operand[0].strides[1] = 32; m.operand[0].strides[2] = 96;
    m.operand[1].dtype = TFL_DT_F32; m.operand[1].data = &in[3][0][0];  /* i reversed */
    m.operand[1].strides[0] = -24; m.operand[1].strides[1] = 8; m.operand[1].strides[2] = 4;
    m.operand[2].dtype = TFL_DT_F32; m.operand[2].data = vec;
    m.operand[2].strides[0] = 0; m.operand[2].strides[1] = 4; m.operand[2].strides[2] = 0;
    CHECK(host_elementwise(&m) == TFL_OK);
    int bad = 0;
    for (int k = 0; k < 2; k++) for (int j = 0; j < 3; j++) for (int i = 0; i < 4; i++)
        if (out[k][j][i] != (double)in[3 - i][j][k] * vec[j]) bad++;
    CHECK(bad == 0);
}

static void test_half_conversions(void)
{
    unsigned s = 11;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        float f = frand(&s) * (i % 7 == 0 ? 1e-4f : i % 3 == 0 ? 7e4f : 300.0f);
        _Float16 h = (_Float16)f;
        uint16_t want;
        memcpy(&want, &h, 2);
        if (tfl_pt_float_to_half(f) != want) bad++;
        if (tfl_pt_half_to_float(want) != (float)h) bad++;
    }
    CHECK(bad == 0);
    CHECK(tfl_pt_bf16_to_float(tfl_pt_float_to_bf16(1.0f + 1.0f / 256)) == 1.0f);  /* tie to even */
    CHECK(tfl_pt_bf16_to_float(tfl_pt_float_to_bf16(-3.0f)) == -3.0f);
}

/* compare_scalar_kernel<double>: [=]{ CompareFunctor f (OpType enum); double rhs }:
 * the enum picks the comparison, rhs is the constant second operand */
static void test_selector_and_constant(void)
{
    tfl_ew_plan *p = plan_containing("compare_scalar_kernelIdE");
    CHECK(p != NULL);
    if (!p) return;
    double x[8];
    uint8_t out[8];
    for (int i = 0; i < 8; i++) x[i] = i - 3.5;
    static const int codes[4] = { TFL_EW_GE, TFL_EW_GT, TFL_EW_LE, TFL_EW_LT };
    for (int32_t sel = 0; sel < 5; sel++) {
        unsigned char f[24] = { 0 };
        double rhs = 0.5;
        memcpy(f, &sel, 4);
        memcpy(f + 8, &rhs, 8);
        int32_t n = 8;
        char *data[2] = { (char *)out, (char *)x };
        const void *args[3] = { &n, f, data };
        tfl_elementwise_op op;
        int64_t cnt;
        char err[256] = "";
        tfl_status st = tfl_ew_decode(p, args, &op, &cnt, err, sizeof err);
        if (sel == 4) {                       /* no such OpType: refused */
            CHECK(st == TFL_ERR_UNSUPPORTED && err[0]);
            continue;
        }
        CHECK(st == TFL_OK && (int)op.code == codes[sel] && op.operand[2].is_scalar &&
              op.operand[2].value_f == 0.5 && op.operand[0].dtype == TFL_DT_BOOL);
        CHECK(host_elementwise(&op) == TFL_OK);
        for (int i = 0; i < 8; i++) {
            int want = sel == 0 ? x[i] >= 0.5 : sel == 1 ? x[i] > 0.5 : sel == 2 ? x[i] <= 0.5 : x[i] < 0.5;
            CHECK(out[i] == want);
        }
    }
    free(p);
}

/* the family entry points on memory that is not device memory: a clear
 * error, nothing touched */
static void test_family_rejects_host_pointers(void)
{
    void *cookie = NULL;
    const char *name = NULL;
    for (size_t i = 0; i < sizeof cubin / sizeof cubin[0]; i++)
        if (strstr(cubin[i].mangled, "vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_add")) name = cubin[i].mangled;
    CHECK(name && tfl_kfamily_elementwise.match(name, &cookie) == 1 && cookie);
    if (!cookie) return;
    CHECK(strcmp(tfl_kfamily_elementwise.op_name(cookie), "add") == 0);
    float out[4] = { 0 }, a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 1, 1, 1 };
    int32_t n = 4;
    float alpha = 1;
    char *data[3] = { (char *)out, (char *)a, (char *)b };
    void *args[3] = { &n, &alpha, data };
    tfl_kcall call;
    memset(&call, 0, sizeof call);
    call.name = name;
    call.args = args;
    char err[256] = "";
    CHECK(tfl_kfamily_elementwise.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID);
    CHECK(strstr(err, "not device memory") != NULL);
    CHECK(out[0] == 0);
    void *c2 = NULL;
    CHECK(tfl_kfamily_elementwise.match("_Z3fooPf", &c2) == 0);
}

/* arange: elementwise_kernel_with_index<long, lambda#4 (int64)>(long N, {int64 start, step}, long*) */
static void test_arange_decode(void)
{
    tfl_ew_plan *p = tfl_ew_plan_for("_ZN50_GLOBAL__N__fa15d16e_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIlZZZN2at6native15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE");
    CHECK(p && p->form == TFL_EWF_INDEX && p->index_bytes == 8 && p->fn.out_dt == TFL_DT_I64);
    if (!p) return;
    size_t off[8], sz[8];
    int n = tfl_ew_param_layout(p, off, sz, 8);
    CHECK(n == 3 && sz[0] == 8 && off[1] == 8 && sz[1] == 24 && off[2] == 32 && sz[2] == 8);
    int64_t out[50], n64 = 50;
    unsigned char f[24] = { 0 };
    int64_t start = INT64_C(5000000000), step = -3;
    memcpy(f, &start, 8);
    memcpy(f + 8, &step, 8);
    int64_t *dp = out;
    const void *args[3] = { &n64, f, &dp };
    tfl_elementwise_op op;
    int64_t cnt;
    char err[256] = "";
    CHECK(tfl_ew_decode(p, args, &op, &cnt, err, sizeof err) == TFL_OK && cnt == 50);
    CHECK(host_elementwise(&op) == TFL_OK);
    for (int i = 0; i < 50; i++) CHECK(out[i] == start + step * i);
    free(p);
}

int main(void)
{
    test_layouts();
    test_vectorized_add();
    test_legacy_broadcast_mul();
    test_legacy_cast_copy();
    test_unrolled_cast_add();
    test_aunary_constant();
    test_host_integers();
    test_host_nan_and_strides();
    test_half_conversions();
    test_selector_and_constant();
    test_family_rejects_host_pointers();
    test_arange_decode();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}

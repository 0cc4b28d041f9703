/*
 * test_ops_reduce.c - the reduce family: the ReduceOp layout the decoder
 * assumes (and the family's layout()) against parameter tables read from
 * the 2.11 and 2.15 wheels' sm_80 cubins (scripts/wheel_kernels.py), what
 * the name parser claims and refuses, and the host's native reduce op
 * against plain double-precision loops written here (the p-norms' no_root
 * power sums of linalg._powsum included, host op and decoder).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchfl/backend.h"
#include "backends/host/host_ops.h"
#include "backends/host/hx_fp.h"
#include "mem/mem.h"
#include "route/optable/reduce_layout.h"
#include "route/optable.h"
#include "route/runtime.h"
#include "cubin_layouts.h"

static int failures;

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
        failures++; \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
    } } while (0)

/* (mangled name, EIATTR_CBANK_PARAM_SIZE of its sm_80 cubin) */
static const struct { const char *name; size_t bytes; tfl_reduce_kind kind; tfl_dtype in, out; } KERNELS[] = {
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_", 1048, TFL_RED_SUM, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_", 1048, TFL_RED_MEAN, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_6MaxOpsIfEEjfLi4ELi4EEEEEvT1_", 1064, TFL_RED_MAX_IDX, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_9ArgMaxOpsIfEEjlLi4ELi4EEEEEvT1_", 1064, TFL_RED_ARGMAX, TFL_DT_F32, TFL_DT_I64},
    /* NormTwoOps / NormOps<..., apply_root = true> (false: see test_layout) */
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_10NormTwoOpsIfffLb1EEEjfLi4ELi4EEEEEvT1_", 1048, TFL_RED_NORM2, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7NormOpsIfffLb1EEEjfLi4ELi4EEEEEvT1_", 1048, TFL_RED_NORM, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_10WelfordOpsIffiN4cuda3std3__44pairIffEEEEjfLi2ELi2EEEEEvT1_", 1064, TFL_RED_VAR, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c104HalfENS0_14func_wrapper_tIS4_ZNS0_11sum_functorIS4_fS4_EclERNS_14TensorIteratorEEUlffE_EEjS4_Li4ELi8EEEEEvT1_", 1048, TFL_RED_SUM, TFL_DT_F16, TFL_DT_F16},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c104HalfENS0_14func_wrapper_tIS4_NS0_13MaxNanFunctorIS4_EEEEjS4_Li4ELi4EEEEEvT1_", 1040, TFL_RED_MAX, TFL_DT_F16, TFL_DT_F16},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIbNS0_14func_wrapper_tIbZNS0_11sum_functorIbbbEclERNS_14TensorIteratorEEUlbbE_EEjbLi4ELi4EEEEEvT1_", 1040, TFL_RED_SUM, TFL_DT_BOOL, TFL_DT_BOOL},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIlNS0_14func_wrapper_tIlZNS0_11sum_functorIlllEclERNS_14TensorIteratorEEUlllE_EEjlLi4ELi4EEEEEvT1_", 1056, TFL_RED_SUM, TFL_DT_I64, TFL_DT_I64},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIlNS0_7MeanOpsIllllEEjlLi4ELi4EEEEEvT1_", 1056, TFL_RED_MEAN, TFL_DT_I64, TFL_DT_I64},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_9MinMaxOpsIffiEEjfLi4ELi4EEEEEvT1_", 1048, TFL_RED_AMINMAX, TFL_DT_F32, TFL_DT_F32},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c108BFloat16ENS0_9ArgMinOpsIfEEjlLi4ELi4EEEEEvT1_", 1064, TFL_RED_ARGMIN, TFL_DT_BF16, TFL_DT_I64},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIbZZZNS0_15and_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE5_clEvEUlffE_EEjbLi4ELi4EEEEEvT1_", 1048, TFL_RED_ALL, TFL_DT_F32, TFL_DT_BOOL},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIlNS0_14func_wrapper_tIbZZZNS0_14or_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE2_clEvEUlllE_EEjbLi4ELi4EEEEEvT1_", 1056, TFL_RED_ANY, TFL_DT_I64, TFL_DT_BOOL},
};

/* Mangled names and parameter tables (offset:size) as the 2.11 and 2.15
 * sm_80 cubins record them (scripts/wheel_kernels.py; the comment names
 * the releases that ship the same name and layout).  and/or changed their
 * lambda in 2.12 (arg_t T -> bool), which moves the ReduceConfig. */
static const cubin_layout cubin[] = {
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<float, func_wrapper_t<float, sum_functor<float, float, float>::o */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_",
      "0:1048" },
    /* 2.11.0-2.15.0: reduce_kernel<256, 2, ReduceOp<c10::Half, MeanOps<c10::Half, float, float, c10::Half>, unsigned */
    { "_ZN2at6native13reduce_kernelILi256ELi2ENS0_8ReduceOpIN3c104HalfENS0_7MeanOpsIS4_ffS4_EEjS4_Li4ELi8EEEEEvT1_",
      "0:1048" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<c10::BFloat16, ArgMaxOps<float>, unsigned int, long, 4, 4> >(Red */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c108BFloat16ENS0_9ArgMaxOpsIfEEjlLi4ELi4EEEEEvT1_",
      "0:1064" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<double, WelfordOps<double, double, int, cuda::std::__4::pair<dou */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIdNS0_10WelfordOpsIddiN4cuda3std3__44pairIddEEEEjdLi2ELi2EEEEEvT1_",
      "0:1088" },
    /* 2.11.0: reduce_kernel<512, 1, ReduceOp<float, func_wrapper_t<bool, and_kernel_cuda(at::TensorIterator&) */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIbZZZNS0_15and_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE5_clEvEUlffE_EEjbLi4ELi4EEEEEvT1_",
      "0:1048" },
    /* 2.12.1-2.15.0: reduce_kernel<512, 1, ReduceOp<float, func_wrapper_t<bool, and_kernel_cuda(at::TensorIterator&) */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIbZZZNS0_15and_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE5_clEvEUlbfE_EEjbLi4ELi4EEEEEvT1_",
      "0:1040" },
    /* 2.11.0: reduce_kernel<128, 4, ReduceOp<long, func_wrapper_t<bool, or_kernel_cuda(at::TensorIterator&):: */
    { "_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIlNS0_14func_wrapper_tIbZZZNS0_14or_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE2_clEvEUlllE_EEjbLi4ELi4EEEEEvT1_",
      "0:1056" },
    /* 2.12.1-2.15.0: reduce_kernel<128, 4, ReduceOp<long, func_wrapper_t<bool, or_kernel_cuda(at::TensorIterator&):: */
    { "_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIlNS0_14func_wrapper_tIbZZZNS0_14or_kernel_cudaERNS_14TensorIteratorEENKUlvE_clEvENKUlvE2_clEvEUlblE_EEjbLi4ELi4EEEEEvT1_",
      "0:1040" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<float, NormTwoOps<float, float, float, true>, unsigned int, floa */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_10NormTwoOpsIfffLb1EEEjfLi4ELi4EEEEEvT1_",
      "0:1048" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<double, NormOps<double, double, double, true>, unsigned int, dou */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIdNS0_7NormOpsIdddLb1EEEjdLi4ELi4EEEEEvT1_",
      "0:1056" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<c10::Half, MinMaxOps<c10::Half, c10::Half, int>, unsigned int, c */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c104HalfENS0_9MinMaxOpsIS4_S4_iEEjS4_Li4ELi4EEEEEvT1_",
      "0:1048" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<unsigned char, func_wrapper_t<unsigned char, MaxNanFunctor<unsig */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIhNS0_14func_wrapper_tIhNS0_13MaxNanFunctorIhEEEEjhLi4ELi4EEEEEvT1_",
      "0:1040" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<c10::Half, MaxOps<c10::Half>, unsigned int, c10::Half, 4, 4> >(R */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c104HalfENS0_6MaxOpsIS4_EEjS4_Li4ELi4EEEEEvT1_",
      "0:1064" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<long, MeanOps<long, long, long, long>, unsigned int, long, 4, 4> */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIlNS0_7MeanOpsIllllEEjlLi4ELi4EEEEEvT1_",
      "0:1056" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<bool, func_wrapper_t<bool, sum_functor<bool, bool, bool>::operat */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIbNS0_14func_wrapper_tIbZNS0_11sum_functorIbbbEclERNS_14TensorIteratorEEUlbbE_EEjbLi4ELi4EEEEEvT1_",
      "0:1040" },
    /* linalg._powsum: apply_root = false (same names in 2.11.0-2.15.0) */
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<float, NormOps<float, float, float, false>, unsigned int, flo */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7NormOpsIfffLb0EEEjfLi4ELi4EEEEEvT1_",
      "0:1048" },
    /* 2.11.0-2.15.0: reduce_kernel<128, 4, ReduceOp<double, NormOps<double, double, double, false>, unsigned int, */
    { "_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIdNS0_7NormOpsIdddLb0EEEjdLi4ELi4EEEEEvT1_",
      "0:1056" },
    /* 2.11.0-2.15.0: reduce_kernel<256, 2, ReduceOp<double, NormTwoOps<double, double, double, false>, unsigned i */
    { "_ZN2at6native13reduce_kernelILi256ELi2ENS0_8ReduceOpIdNS0_10NormTwoOpsIdddLb0EEEjdLi4ELi4EEEEEvT1_",
      "0:1056" },
    /* 2.11.0-2.15.0: reduce_kernel<512, 1, ReduceOp<c10::BFloat16, NormTwoOps<c10::BFloat16, float, float, false> */
    { "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c108BFloat16ENS0_10NormTwoOpsIS4_ffLb0EEEjfLi4ELi4EEEEEvT1_",
      "0:1048" },
    /* 2.11.0-2.15.0: reduce_kernel<128, 4, ReduceOp<c10::Half, NormOps<c10::Half, float, c10::Half, false>, unsig */
    { "_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIN3c104HalfENS0_7NormOpsIS4_fS4_Lb0EEEjS4_Li4ELi4EEEEEvT1_",
      "0:1048" },
};

static void test_layout(void)
{
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++) {
        tfl_reduce_kinfo ki;
        int r = tfl_reduce_parse(KERNELS[i].name, &ki);
        CHECK(r == 0, "parse %zu", i);
        if (r)
            continue;
        CHECK(ki.total == KERNELS[i].bytes, "kernel %zu: %zu bytes, cubin says %zu", i, ki.total, KERNELS[i].bytes);
        CHECK(ki.kind == KERNELS[i].kind, "kernel %zu kind %d", i, (int)ki.kind);
        CHECK(ki.in == KERNELS[i].in && ki.out == KERNELS[i].out, "kernel %zu dtypes %d %d", i, (int)ki.in, (int)ki.out);
    }
    tfl_reduce_kinfo ki;
    /* NormTwoOps / NormOps<..., apply_root = false> are linalg._powsum (no
     * final root): the same kinds with no_root set, the same layout; the
     * root forms leave no_root clear */
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_10NormTwoOpsIfffLb0EEEjfLi4ELi4EEEEEvT1_", &ki) == 0 &&
          ki.kind == TFL_RED_NORM2 && ki.no_root && ki.total == 1048 &&
          strcmp(ki.op_name, "powsum2") == 0, "powsum 2: kind %d no_root %d", (int)ki.kind, ki.no_root);
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7NormOpsIfffLb0EEEjfLi4ELi4EEEEEvT1_", &ki) == 0 &&
          ki.kind == TFL_RED_NORM && ki.no_root && ki.total == 1048 &&
          strcmp(ki.op_name, "powsum") == 0, "powsum: kind %d no_root %d", (int)ki.kind, ki.no_root);
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7NormOpsIfffLb1EEEjfLi4ELi4EEEEEvT1_", &ki) == 0 &&
          ki.kind == TFL_RED_NORM && !ki.no_root, "norm: no_root %d", ki.no_root);
    /* a non-constant apply_root is refused */
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7NormOpsIfffiEEjfLi4ELi4EEEEEvT1_", &ki) != 0, "apply_root int claimed");
    /* complex, int16, the sparse ReductionAddOp: not claimed */
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIN3c107complexIfEENS0_7MeanOpsIS5_S5_fS5_EEjS5_Li4ELi4EEEEEvT1_", &ki) != 0, "complex mean claimed");
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIsNS0_6MaxOpsIsEEjsLi4ELi4EEEEEvT1_", &ki) != 0, "int16 max claimed");
    /* prod, garbage: not claimed */
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIbNS0_14func_wrapper_tIbZNS0_12prod_functorIbbbEclERNS_14TensorIteratorEEUlbbE_EEjbLi4ELi4EEEEEvT1_", &ki) != 0, "prod claimed");
    CHECK(tfl_reduce_parse("_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpI", &ki) != 0, "truncated claimed");
    CHECK(tfl_reduce_parse("", &ki) != 0, "empty claimed");
    CHECK(tfl_reduce_parse(NULL, &ki) != 0, "NULL claimed");
}

/* x: [A][B][C] float32 contiguous; reduce over B (a middle dim). */
enum { A = 5, B = 37, C = 6 };

static void test_host_middle_dim(void)
{
    static float x[A * B * C], out[A * C], out2f[A * C];
    static int64_t idx[A * C];
    srand(7);
    for (int i = 0; i < A * B * C; i++)
        x[i] = (float)rand() / RAND_MAX * 4 - 2;
    tfl_reduce_op op;
    memset(&op, 0, sizeof op);
    op.in_dtype = op.out_dtype = TFL_DT_F32;
    op.in = x;
    op.out = out;
    op.num_outputs = A * C;
    op.num_inputs = B;
    op.out_ndim = 2;                        /* dim 0 fastest: C, then A */
    op.out_sizes[0] = C; op.out_stride_in[0] = 4; op.out_stride_out[0] = 4;
    op.out_sizes[1] = A; op.out_stride_in[1] = B * C * 4; op.out_stride_out[1] = C * 4;
    op.red_ndim = 1;
    op.red_sizes[0] = B; op.red_stride_in[0] = C * 4;

    op.kind = TFL_RED_SUM;
    CHECK(host_reduce(&op) == TFL_OK, "sum");
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++) {
            double s = 0;
            for (int b = 0; b < B; b++)
                s += x[(a * B + b) * C + c];
            CHECK(fabs(out[a * C + c] - s) <= 1e-5 * (1 + fabs(s)), "sum %d %d: %g vs %g", a, c, out[a * C + c], s);
        }

    op.kind = TFL_RED_VAR;
    op.correction = 1;
    op.out2 = out2f;
    op.out2_dtype = TFL_DT_F32;
    CHECK(host_reduce(&op) == TFL_OK, "var");
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++) {
            double m = 0, v = 0;
            for (int b = 0; b < B; b++)
                m += x[(a * B + b) * C + c];
            m /= B;
            for (int b = 0; b < B; b++) {
                double d = x[(a * B + b) * C + c] - m;
                v += d * d;
            }
            v /= B - 1;
            CHECK(fabs(out[a * C + c] - v) <= 1e-5 * (1 + v), "var %d %d: %g vs %g", a, c, out[a * C + c], v);
            CHECK(fabs(out2f[a * C + c] - m) <= 1e-6, "mean %d %d", a, c);
        }

    op.kind = TFL_RED_MAX_IDX;
    op.out2 = idx;
    op.out2_dtype = TFL_DT_I64;
    CHECK(host_reduce(&op) == TFL_OK, "max_idx");
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++) {
            int best = 0;
            for (int b = 1; b < B; b++)
                if (x[(a * B + b) * C + c] > x[(a * B + best) * C + c])
                    best = b;
            CHECK(idx[a * C + c] == best, "argmax %d %d: %lld vs %d", a, c, (long long)idx[a * C + c], best);
            CHECK(out[a * C + c] == x[(a * B + best) * C + c], "max %d %d", a, c);
        }

    op.kind = TFL_RED_NORM;
    op.p = 3;
    op.out2 = NULL;
    CHECK(host_reduce(&op) == TFL_OK, "norm3");
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++) {
            double s = 0;
            for (int b = 0; b < B; b++)
                s += pow(fabs(x[(a * B + b) * C + c]), 3);
            s = cbrt(s);
            CHECK(fabs(out[a * C + c] - s) <= 1e-5 * s, "norm3 %d %d", a, c);
        }

    /* inconsistent shape: refused, nothing written */
    op.kind = TFL_RED_SUM;
    op.num_inputs = B + 1;
    out[0] = 12345;
    CHECK(host_reduce(&op) == TFL_ERR_INVALID, "bad shape accepted");
    CHECK(out[0] == 12345, "bad shape wrote");
    op.num_inputs = B;
    op.red_ndim = TFL_REDUCE_MAX_DIMS + 1;
    CHECK(host_reduce(&op) == TFL_ERR_UNSUPPORTED, "too many dims");
}

static void test_host_int_and_nan(void)
{
    int64_t v[6] = {5, -3, 9, 9, -7, 2}, s = 0, am = -1;
    tfl_reduce_op op;
    memset(&op, 0, sizeof op);
    op.in_dtype = op.out_dtype = TFL_DT_I64;
    op.in = v;
    op.out = &s;
    op.num_outputs = 1;
    op.num_inputs = 6;
    op.red_ndim = 1;
    op.red_sizes[0] = 6;
    op.red_stride_in[0] = 8;
    op.kind = TFL_RED_SUM;
    CHECK(host_reduce(&op) == TFL_OK && s == 15, "int sum %lld", (long long)s);
    op.kind = TFL_RED_ARGMAX;
    op.out = &am;
    CHECK(host_reduce(&op) == TFL_OK && am == 2, "int argmax (first of ties) %lld", (long long)am);

    float f[5] = {1, NAN, 3, NAN, -1}, r = 0;
    int64_t fi = -1;
    op.in_dtype = op.out_dtype = TFL_DT_F32;
    op.in = f;
    op.num_inputs = op.red_sizes[0] = 5;
    op.red_stride_in[0] = 4;
    op.out = &r;
    op.kind = TFL_RED_MAX;
    CHECK(host_reduce(&op) == TFL_OK && isnan(r), "max propagates NaN");
    op.kind = TFL_RED_NANSUM;
    CHECK(host_reduce(&op) == TFL_OK && r == 3, "nansum %g", r);
    op.kind = TFL_RED_ARGMIN;
    op.out = &fi;
    op.out_dtype = TFL_DT_I64;
    CHECK(host_reduce(&op) == TFL_OK && fi == 1, "argmin picks the first NaN: %lld", (long long)fi);
}

/* Long rows (the lane-wise fast path) with a NaN in the middle, or none. */
static void test_host_long_max(void)
{
    float f[37], r = 0;
    int64_t ix = -1;
    for (int i = 0; i < 37; i++)
        f[i] = (float)((i * 17) % 37) - 18.5f;     /* a permutation of -18.5 .. 17.5 */
    int imax = 0, imin = 0;
    for (int i = 1; i < 37; i++) {
        if (f[i] > f[imax]) imax = i;
        if (f[i] < f[imin]) imin = i;
    }
    tfl_reduce_op op;
    memset(&op, 0, sizeof op);
    op.in_dtype = op.out_dtype = TFL_DT_F32;
    op.in = f;
    op.out = &r;
    op.num_outputs = 1;
    op.num_inputs = op.red_sizes[0] = 37;
    op.red_ndim = 1;
    op.red_stride_in[0] = 4;
    op.kind = TFL_RED_MAX;
    CHECK(host_reduce(&op) == TFL_OK && r == f[imax], "long max %g vs %g", r, f[imax]);
    op.kind = TFL_RED_MIN;
    CHECK(host_reduce(&op) == TFL_OK && r == f[imin], "long min %g vs %g", r, f[imin]);
    op.kind = TFL_RED_ARGMAX;
    op.out = &ix;
    op.out_dtype = TFL_DT_I64;
    CHECK(host_reduce(&op) == TFL_OK && ix == imax, "long argmax %lld vs %d", (long long)ix, imax);
    f[20] = NAN;
    f[30] = NAN;
    CHECK(host_reduce(&op) == TFL_OK && ix == 20, "long argmax with NaN %lld", (long long)ix);
    op.out = &r;
    op.out_dtype = TFL_DT_F32;
    op.kind = TFL_RED_MAX;
    CHECK(host_reduce(&op) == TFL_OK && isnan(r), "long max with NaN %g", r);
    op.kind = TFL_RED_MIN;
    CHECK(host_reduce(&op) == TFL_OK && isnan(r), "long min with NaN %g", r);
}

/* A synthesized launch of the float sum kernel: pointers outside device
 * memory give TFL_ERR_INVALID, a corrupt OffsetCalculator TFL_ERR_INVALID,
 * a split reduction TFL_ERR_UNSUPPORTED; none of them touches memory. */
static void test_decoder_refusals(void)
{
    const char *name = KERNELS[0].name;
    void *cookie = NULL;
    CHECK(tfl_kfamily_reduce.match(name, &cookie) == 1 && cookie, "match");
    tfl_reduce_kinfo ki;
    tfl_reduce_parse(name, &ki);
    static char buf[1048];
    memset(buf, 0, sizeof buf);
    int32_t n_in = 100, n_out = 1, dims = 1, one = 1;
    uint32_t sz = 100, st = 4;
    memcpy(buf + ki.config_off + 4, &n_in, 4);
    memcpy(buf + ki.config_off + 8, &n_out, 4);
    size_t ic = ki.config_off + 64;
    memcpy(buf + ic, &dims, 4);
    memcpy(buf + ic + 4, &sz, 4);
    memcpy(buf + ic + 4 + 25 * 12, &st, 4);
    uint64_t bogus = 0x10000;                   /* not device memory */
    memcpy(buf + ki.ptrs_off, &bogus, 8);       /* src */
    memcpy(buf + ki.ptrs_off + 8, &bogus, 8);   /* dst[0] */
    buf[ki.ptrs_off + 57] = 1;                  /* final_output */
    memcpy(buf + ki.ptrs_off + 60, &one, 4);    /* noutputs */
    void *args[1] = {buf};
    tfl_kcall call = {.name = name, .grid = {1, 1, 1}, .block = {512, 1, 1}, .args = args};
    char err[256] = "";
    CHECK(tfl_kfamily_reduce.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID, "bogus pointers: %s", err);
    buf[ki.ptrs_off + 56] = 1;                  /* accumulate: a split reduction */
    CHECK(tfl_kfamily_reduce.run(&call, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED, "split: %s", err);
    buf[ki.ptrs_off + 56] = 0;
    dims = 26;
    memcpy(buf + ic, &dims, 4);
    CHECK(tfl_kfamily_reduce.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID, "dims 26: %s", err);
    dims = 1;
    memcpy(buf + ic, &dims, 4);
    n_in = 99;                                  /* disagrees with the calculator */
    memcpy(buf + ki.config_off + 4, &n_in, 4);
    CHECK(tfl_kfamily_reduce.run(&call, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED, "shape mismatch: %s", err);
    CHECK(!strcmp(tfl_kfamily_reduce.op_name(cookie), "sum"), "op name %s", tfl_kfamily_reduce.op_name(cookie));
}

/* sum |x|^p over row r of x[R][N] (p = 2: sum x^2), in double */
static double powsum_ref(const float *x, int n, double p)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += p == 2 ? (double)x[i] * x[i] : pow(fabs((double)x[i]), p);
    return s;
}

/* The no_root option (linalg._powsum): NORM and NORM2 write the power sum
 * itself, float32 contiguous rows (the vectorised sum of squares), strided
 * columns and half input; no_root on another kind is refused. */
static void test_host_powsum(void)
{
    enum { R = 3, N = 1000 };
    static float x[R * N], xt[N * R], out[R];
    static uint16_t xh[R * N];
    srand(11);
    for (int i = 0; i < R * N; i++) {
        x[i] = (float)rand() / RAND_MAX * 3 - 1.5f;
        xh[i] = hx_f2h(x[i]);
        x[i] = hx_h2f(xh[i]);                   /* the same values in both */
    }
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++)
            xt[i * R + r] = x[r * N + i];
    static const struct { tfl_reduce_kind kind; double p; } cases[] = {
        { TFL_RED_NORM2, 2 }, { TFL_RED_NORM, 3 }, { TFL_RED_NORM, 0.5 }, { TFL_RED_NORM, 2 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int form = 0; form < 3; form++) {      /* rows, columns, half rows */
            tfl_reduce_op op;
            memset(&op, 0, sizeof op);
            op.kind = cases[k].kind;
            op.p = cases[k].p;
            op.no_root = 1;
            op.in_dtype = form == 2 ? TFL_DT_F16 : TFL_DT_F32;
            op.out_dtype = TFL_DT_F32;
            op.in = form == 0 ? (const void *)x : form == 1 ? (const void *)xt : (const void *)xh;
            op.out = out;
            op.num_outputs = R;
            op.num_inputs = N;
            op.out_ndim = op.red_ndim = 1;
            size_t es = form == 2 ? 2 : 4;
            op.out_sizes[0] = R;
            op.out_stride_out[0] = 4;
            op.out_stride_in[0] = form == 1 ? (int64_t)es : (int64_t)(N * es);
            op.red_sizes[0] = N;
            op.red_stride_in[0] = form == 1 ? (int64_t)(R * es) : (int64_t)es;
            CHECK(host_reduce_supported(&op) && host_reduce(&op) == TFL_OK, "powsum %zu/%d", k, form);
            for (int r = 0; r < R; r++) {
                double want = powsum_ref(x + r * N, N, cases[k].p);
                CHECK(fabs(out[r] - want) <= 1e-6 * want, "powsum p=%g form %d row %d: %.9g vs %.9g",
                      cases[k].p, form, r, out[r], want);
            }
        }
    /* without no_root the same op takes the root */
    tfl_reduce_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_RED_NORM2;
    op.in_dtype = op.out_dtype = TFL_DT_F32;
    op.in = x;
    op.out = out;
    op.num_outputs = 1;
    op.num_inputs = N;
    op.out_ndim = 0;
    op.red_ndim = 1;
    op.red_sizes[0] = N;
    op.red_stride_in[0] = 4;
    CHECK(host_reduce(&op) == TFL_OK, "norm2");
    CHECK(fabs(out[0] - sqrt(powsum_ref(x, N, 2))) <= 1e-6 * out[0], "norm2 root %g", out[0]);
    op.kind = TFL_RED_SUM;
    op.no_root = 1;
    CHECK(!host_reduce_supported(&op) && host_reduce(&op) == TFL_ERR_UNSUPPORTED,
          "no_root sum accepted");
}

/* reduce_kernel<..., NormOps<float, float, float, false>> (linalg._powsum)
 * decoded from a synthesized launch on pool memory: p from the ReduceOp,
 * the power sum of each row written without the root. */
static void test_powsum_decode(void)
{
    enum { R = 4, N = 300 };
    const char *name = "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7NormOpsIfffLb0EEEjfLi4ELi4EEEEEvT1_";
    float *x = NULL, *out = NULL;
    CHECK(tfl_rt_init() == TFL_OK, "runtime");
    if (tfl_mem_alloc(R * N * 4, TFL_MEM_DEVICE, 0, 0, (void **)&x) != TFL_OK ||
        tfl_mem_alloc(R * 4, TFL_MEM_DEVICE, 0, 0, (void **)&out) != TFL_OK) {
        CHECK(0, "pool allocation");
        return;
    }
    for (int i = 0; i < R * N; i++)
        x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    tfl_reduce_kinfo ki;
    CHECK(tfl_reduce_parse(name, &ki) == 0 && ki.total == 1048, "parse");
    static char buf[1048];
    memset(buf, 0, sizeof buf);
    float p = 3.0f;
    memcpy(buf, &p, 4);                          /* NormOps { float norm_; } */
    int32_t n_in = N, n_out = R, dims = 1, one = 1;
    uint32_t n = N, r = R, st_in = 4, st_out = 4, st_row = N * 4;
    memcpy(buf + ki.config_off + 4, &n_in, 4);
    memcpy(buf + ki.config_off + 8, &n_out, 4);
    size_t ic = ki.config_off + 64, oc = ic + 4 + 25 * 12 + 25 * 4;
    memcpy(buf + ic, &dims, 4);                  /* input_calc: the row */
    memcpy(buf + ic + 4, &n, 4);
    memcpy(buf + ic + 4 + 25 * 12, &st_in, 4);
    memcpy(buf + oc, &dims, 4);                  /* output_calc: {out, in} strides */
    memcpy(buf + oc + 4, &r, 4);
    memcpy(buf + oc + 4 + 25 * 12, &st_out, 4);
    memcpy(buf + oc + 4 + 25 * 12 + 4, &st_row, 4);
    uint64_t src = (uintptr_t)x, dst = (uintptr_t)out;
    memcpy(buf + ki.ptrs_off, &src, 8);
    memcpy(buf + ki.ptrs_off + 8, &dst, 8);
    buf[ki.ptrs_off + 57] = 1;                   /* final_output */
    memcpy(buf + ki.ptrs_off + 60, &one, 4);     /* noutputs */
    void *args[1] = { buf };
    tfl_kcall call = { .name = name, .grid = { 1, 1, 1 }, .block = { 512, 1, 1 }, .args = args };
    void *cookie = NULL;
    char err[256] = "";
    CHECK(tfl_kfamily_reduce.match(name, &cookie) == 1 &&
          strcmp(tfl_kfamily_reduce.op_name(cookie), "powsum") == 0, "claimed as powsum");
    CHECK(cookie && tfl_kfamily_reduce.run(&call, cookie, err, sizeof err) == TFL_OK, "run: %s", err);
    for (int k = 0; k < R; k++) {
        double want = powsum_ref(x + k * N, N, 3);
        CHECK(fabs(out[k] - want) <= 1e-6 * want, "row %d: %.9g vs %.9g", k, out[k], want);
    }
    free(cookie);
    tfl_mem_free(x, 1u << TFL_MEM_DEVICE);
    tfl_mem_free(out, 1u << TFL_MEM_DEVICE);
}

int main(void)
{
    test_decoder_refusals();
    test_host_long_max();
    test_layout();
    check_cubin_layouts(&tfl_kfamily_reduce, cubin, sizeof cubin / sizeof cubin[0], NULL,
                        &failures);
    test_host_middle_dim();
    test_host_int_and_nan();
    test_host_powsum();
    test_powsum_decode();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_reduce: ok\n");
    return 0;
}

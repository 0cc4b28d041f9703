/*
 * test_ops_bucket.c - the bucket family's decoder (searchsorted,
 * kernelHistogram1D): kernel names recognised by structure and their
 * parameter layouts against the sm_80 cubins of torch 2.11 and 2.15, and
 * launches with operands outside device memory refused.
 */
#include <stdio.h>
#include <string.h>

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

/* Mangled names and parameter layouts (offset:size) as the sm_80 cubins
 * of torch 2.11 and 2.15 record them (read with `torchfl wheel --list`
 * and scripts/wheel_kernels.py). */
static const cubin_layout cubin[] = {
    /* 2.11.0 searchsorted */
    { "_ZN2at6native49_GLOBAL__N__c6f87824_16_Bucketization_cu_723a43a424searchsorted_cuda_kernelIflEEvPT0_PKT_S7_PKllllbb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:1 57:1" },
    /* 2.11.0 bincount_weighted */
    { "_ZN2at4cuda17kernelHistogram1DIfflLi1ELi2ELin1ELNS0_23CUDAHistogramMemoryTypeE0EZNS0_21CUDA_tensor_histogramIffLb0EEEbNS_6TensorES4_S4_lNS_14AccumulateTypeIT0_Lb1EE4typeES8_NS0_13TensorArgTypeES9_S9_EUllE_EEvNS0_6detail10TensorInfoIT_T1_EESF_NSC_IKS6_SE_EElS8_S8_SE_T6_",
      "0:416 416:416 832:416 1248:8 1256:4 1260:4 1264:8 1272:416" },
    /* 2.11.0 histogram */
    { "_ZN2at4cuda17kernelHistogram1DIlhlLi1ELi2ELin1ELNS0_23CUDAHistogramMemoryTypeE0EZNS0_21CUDA_tensor_histogramIlhLb0EEEbNS_6TensorES4_S4_lNS_14AccumulateTypeIT0_Lb1EE4typeES8_NS0_13TensorArgTypeES9_S9_EUllE0_EEvNS0_6detail10TensorInfoIT_T1_EESF_NSC_IKS6_SE_EElS8_S8_SE_T6_",
      "0:416 416:416 832:416 1248:8 1256:8 1264:8 1272:8 1280:1" },
    /* 2.15.0 searchsorted */
    { "_ZN2at6native49_GLOBAL__N__173e7606_16_Bucketization_cu_723a43a424searchsorted_cuda_kernelIdiEEvPT0_PKT_S7_PKllllbb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:1 57:1" },
    /* 2.15.0 bincount_weighted */
    { "_ZN2at4cuda17kernelHistogram1DIdilLi1ELi2ELin1ELNS0_23CUDAHistogramMemoryTypeE0EZNS0_21CUDA_tensor_histogramIdiLb1EEEbNS_6TensorES4_S4_lNS_14AccumulateTypeIT0_Lb1EE4typeES8_NS0_13TensorArgTypeES9_S9_EUllE_EEvNS0_6detail10TensorInfoIT_T1_EESF_NSC_IKS6_SE_EElS8_S8_SE_T6_",
      "0:416 416:416 832:416 1248:8 1256:8 1264:8 1272:8 1280:416" },
    /* 2.15.0 histogram */
    { "_ZN2at4cuda17kernelHistogram1DIfflLi1ELi2ELin1ELNS0_23CUDAHistogramMemoryTypeE0EZNS0_21CUDA_tensor_histogramIffLb0EEEbNS_6TensorES4_S4_lNS_14AccumulateTypeIT0_Lb1EE4typeES8_NS0_13TensorArgTypeES9_S9_EUllE0_EEvNS0_6detail10TensorInfoIT_T1_EESF_NSC_IKS6_SE_EElS8_S8_SE_T6_",
      "0:416 416:416 832:416 1248:8 1256:4 1260:4 1264:8 1272:1" },

};

static void test_layouts(void)
{
    check_cubin_layouts(&tfl_kfamily_bucket, cubin, sizeof cubin / sizeof cubin[0], NULL,
                        &failures);
    /* int16 inputs: no int16 in the host op */
    void *cookie = NULL;
    CHECK(!tfl_kfamily_bucket.match(
              "_ZN2at6native49_GLOBAL__N__c6f87824_16_Bucketization_cu_723a43a424searchsorted_cuda_kernelIslEEvPT0_PKT_S7_PKllllbb",
              &cookie), "int16 searchsorted claimed");
    CHECK(!tfl_kfamily_bucket.match(
              "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
              &cookie), "fill claimed");
}

/* searchsorted with operands that are not device memory */
static void test_refused(void)
{
    void *cookie = NULL;
    CHECK(tfl_kfamily_bucket.match(cubin[0].mangled, &cookie) == 1, "searchsorted");
    uintptr_t bogus = 0x7000;
    void *sorter = NULL;
    int64_t in_len = 4, bd_len = 8, numel = 4;
    unsigned char right = 0, one_d = 1;
    void *args[9] = { &bogus, &bogus, &bogus, &sorter, &in_len, &bd_len, &numel, &right,
                      &one_d };
    tfl_kcall call = { .grid = { 1, 1, 1 }, .block = { 256, 1, 1 }, .args = args };
    char err[256] = "";
    CHECK(tfl_kfamily_bucket.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "bogus operands accepted: %s", err);
}

int main(void)
{
    test_layouts();
    test_refused();
    if (failures) {
        fprintf(stderr, "test_ops_bucket: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_bucket: ok\n");
    return 0;
}

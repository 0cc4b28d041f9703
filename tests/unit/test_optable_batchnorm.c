/*
 * test_optable_batchnorm.c - the batchnorm and bucket decoders against
 * real 2.11 kernel names: which names they claim (and refuse), and that a
 * launch whose operands are not device memory is refused with
 * TFL_ERR_DEVICE (or a bad shape with TFL_ERR_INVALID) before anything
 * runs.  The decode-and-run path is covered end to end by
 * tests/pytorch/cuda/test_batchnorm.py and test_bucket.py.
 */
#include <stdio.h>
#include <string.h>

#include "route/optable.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

#define COLLECT "_ZN2at6native36batch_norm_collect_statistics_kernelINS0_3VarEfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT0_Lm2ENS4_17RestrictPtrTraitsET3_EENS_6detail16IndexBoundsCheckILm3ESE_EESC_Lm3ESD_SE_EET2_SK_NS6_INS7_ISA_SK_Lm0ESD_SE_EENSH_ILm1ESE_EESK_Lm1ESD_SE_EESN_"
#define CL_TRANSFORM "_ZN2at6native47batch_norm_transform_input_channels_last_kernelIfffLi4EEEvPKT_S4_PKT0_S7_PKT1_SA_PS2_iib"
#define GN_FUSED "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652028ComputeFusedParamsCUDAKernelIfEEvlllPKT_S5_S5_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_"
#define SEARCH "_ZN2at6native49_GLOBAL__N__c6f87824_16_Bucketization_cu_723a43a424searchsorted_cuda_kernelIflEEvPT0_PKT_S7_PKllllbb"
#define HIST "_ZN2at4cuda17kernelHistogram1DIfflLi1ELi2ELin1ELNS0_23CUDAHistogramMemoryTypeE0EZNS0_21CUDA_tensor_histogramIffLb0EEEbNS_6TensorES4_S4_lNS_14AccumulateTypeIT0_Lb1EE4typeES8_NS0_13TensorArgTypeES9_S9_EUllE0_EEvNS0_6detail10TensorInfoIT_T1_EESF_NSC_IKS6_SE_EElS8_S8_SE_T6_"

static const char *claims(const tfl_kfamily *f, const char *name, void **cookie)
{
    *cookie = NULL;
    if (!f->match(name, cookie))
        return NULL;
    return f->op_name ? f->op_name(*cookie) : "?";
}

static void test_names(void)
{
    static const struct { const tfl_kfamily *f; const char *name; const char *op; } tab[] = {
        { &tfl_kfamily_batchnorm, COLLECT, "batch_norm_stats" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native26batch_norm_backward_kernelIfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESD_EESB_Lm3ESC_SD_EESI_NS5_INS6_IS9_SA_Lm2ESC_SD_EESH_SA_Lm3ESC_SD_EENS5_INS6_IS9_T0_Lm0ESC_SD_EENSG_ILm1ESD_EESL_Lm1ESC_SD_EESO_NS5_INS6_IS9_KSL_Lm0ESC_SD_EESN_SP_Lm1ESC_SD_EESR_SR_NS5_INS6_IS9_KT1_Lm0ESC_SD_EESN_ST_Lm1ESC_SD_EESV_bSS_", "batch_norm_backward" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native50batch_norm_collect_statistics_channels_last_kernelINS0_3VarEffLi4EEEvPKT0_PT1_S7_PVS6_PiiiS6_", "batch_norm_stats" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native46batch_norm_backward_elemt_channels_last_kernelILi4EfffEEvPKT0_S4_PKT1_S7_PKT2_S7_S7_PS2_S5_ii", "batch_norm_backward_elemt" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652024RowwiseMomentsCUDAKernelIfEEvlT_PKS3_PS3_S6_", "group_norm_stats" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652030GammaBeta1dBackwardCUDAKernel2IfEEvlllPKT_S5_S5_S5_PS3_S6_", "group_norm_backward_gamma_beta" },
        /* half input, float statistics */
        { &tfl_kfamily_batchnorm, "_ZN2at6native47batch_norm_transform_input_channels_last_kernelIN3c104HalfEffLi4EEEvPKT_S6_PKT0_S9_PKT1_SC_PS4_iib", "batch_norm_apply" },
        /* double instantiations and layer norm's moments are not claimed */
        { &tfl_kfamily_batchnorm, "_ZN2at6native47batch_norm_transform_input_channels_last_kernelIdddLi4EEEvPKT_S4_PKT0_S7_PKT1_SA_PS2_iib", NULL },
        { &tfl_kfamily_batchnorm, "_ZN2at6native50batch_norm_collect_statistics_channels_last_kernelINS0_3VarEddLi4EEEvPKT0_PT1_S7_PVS6_PiiiS6_", NULL },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652024RowwiseMomentsCUDAKernelIdEEvlT_PKS3_PS3_S6_", NULL },
        { &tfl_kfamily_batchnorm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a24RowwiseMomentsCUDAKernelIffLb1EEEvlT0_PKT_PS3_S7_", NULL },
        { &tfl_kfamily_bucket, SEARCH, "searchsorted" },
        { &tfl_kfamily_bucket, HIST, "histogram" },
        { &tfl_kfamily_bucket, "_ZN2at4cuda17kernelHistogram1DIfllLi1ELi2ELin1ELNS0_23CUDAHistogramMemoryTypeE1EZNS0_21CUDA_tensor_histogramIflLb1EEEbNS_6TensorES4_S4_lNS_14AccumulateTypeIT0_Lb1EE4typeES8_NS0_13TensorArgTypeES9_S9_EUllE_EEvNS0_6detail10TensorInfoIT_T1_EESF_NSC_IKS6_SE_EElS8_S8_SE_T6_", "bincount_weighted" },
        /* each family only its own */
        { &tfl_kfamily_bucket, COLLECT, NULL },
        { &tfl_kfamily_batchnorm, SEARCH, NULL },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        void *cookie;
        const char *op = claims(tab[i].f, tab[i].name, &cookie);
        if (!tab[i].op)
            CHECK(op == NULL, "%s claimed %s", tab[i].f->name, tab[i].name);
        else
            CHECK(op && strcmp(op, tab[i].op) == 0, "%s: %s -> %s, want %s", tab[i].f->name,
                  tab[i].name, op ? op : "(none)", tab[i].op);
    }
}

/* A GenericPackedTensorAccessor<float, D, _, int> image. */
static void pta(unsigned char *buf, const void *data, int dims, const int32_t *sizes, const int32_t *strides)
{
    memcpy(buf, &data, 8);
    memcpy(buf + 8, sizes, 4 * (size_t)dims);
    memcpy(buf + 8 + 4 * dims, strides, 4 * (size_t)dims);
}

static tfl_status launch(const tfl_kfamily *f, const char *name, void **args, unsigned gx, unsigned gy)
{
    void *cookie;
    char err[256];
    if (!f->match(name, &cookie))
        return (tfl_status)-1;
    tfl_kcall c = { .name = name, .grid = { gx, gy, 1 }, .block = { 32, 1, 1 }, .args = args };
    return f->run(&c, cookie, err, sizeof err);
}

/* operands outside device memory (a stack buffer): refused before anything runs */
static void test_bad_operands(void)
{
    float buf[256];
    unsigned char x3[32], m1[16], v1[16];
    const int32_t sz3[3] = { 2, 3, 4 }, st3[3] = { 12, 4, 1 }, sz1[1] = { 3 }, st1[1] = { 1 };
    pta(x3, buf, 3, sz3, st3);
    pta(m1, buf + 64, 1, sz1, st1);
    pta(v1, buf + 96, 1, sz1, st1);
    float eps = 1e-5f, mom = 0.1f;
    void *cargs[5] = { x3, &eps, &mom, m1, v1 };
    CHECK(launch(&tfl_kfamily_batchnorm, COLLECT, cargs, 3, 1) == TFL_ERR_DEVICE, "collect stats bad ptr");
    /* a negative size is a bad shape */
    const int32_t bad3[3] = { 2, -3, 4 };
    pta(x3, buf, 3, bad3, st3);
    CHECK(launch(&tfl_kfamily_batchnorm, COLLECT, cargs, 3, 1) == TFL_ERR_INVALID, "collect stats bad shape");

    const float *in = buf, *mean = buf + 8, *inv = buf + 16, *w = NULL, *sh = NULL;
    const float *z = NULL;
    float *out = buf + 32;
    int32_t red = 4, stride = 3;
    uint8_t relu = 0;
    void *targs[10] = { &in, &z, &mean, &inv, &w, &sh, &out, &red, &stride, &relu };
    CHECK(launch(&tfl_kfamily_batchnorm, CL_TRANSFORM, targs, 1, 1) == TFL_ERR_DEVICE, "cl transform bad ptr");
    /* the fused residual / ReLU form is not decoded */
    relu = 1;
    CHECK(launch(&tfl_kfamily_batchnorm, CL_TRANSFORM, targs, 1, 1) == TFL_ERR_UNSUPPORTED, "cl transform relu");

    int64_t N = 2, C = 4, G = 2;
    const float *gm = buf, *gr = buf + 8, *gg = NULL, *gb = NULL;
    float *a = buf + 16, *b = buf + 32;
    void *gargs[9] = { &N, &C, &G, &gm, &gr, &gg, &gb, &a, &b };
    CHECK(launch(&tfl_kfamily_batchnorm, GN_FUSED, gargs, 1, 1) == TFL_ERR_DEVICE, "gn fused bad ptr");
    G = 3;
    CHECK(launch(&tfl_kfamily_batchnorm, GN_FUSED, gargs, 1, 1) == TFL_ERR_INVALID, "gn C %% G != 0");

    int64_t *sout = (int64_t *)(buf + 128);
    const float *sin = buf, *sbd = buf + 32;
    const int64_t *sorter = NULL;
    int64_t in_len = 8, bd_len = 4, numel = 8;
    uint8_t right = 0, bd1 = 1;
    void *sargs[9] = { &sout, &sin, &sbd, &sorter, &in_len, &bd_len, &numel, &right, &bd1 };
    CHECK(launch(&tfl_kfamily_bucket, SEARCH, sargs, 1, 1) == TFL_ERR_DEVICE, "searchsorted bad ptr");

    unsigned char ta[416], tp[416], tb[416];
    memset(ta, 0, sizeof ta); memset(tp, 0, sizeof tp); memset(tb, 0, sizeof tb);
    void *ad = buf, *bdp = buf + 64;
    int64_t nb = 4, one = 1, ten = 10;
    int dims = 1;
    memcpy(ta, &ad, 8); memcpy(ta + 8, &nb, 8); memcpy(ta + 208, &one, 8); memcpy(ta + 408, &dims, 4);
    memcpy(tb, &bdp, 8); memcpy(tb + 8, &ten, 8); memcpy(tb + 208, &one, 8); memcpy(tb + 408, &dims, 4);
    float lo = 0, hi = 1;
    int64_t total = 10;
    unsigned char op1 = 0;
    void *hargs[8] = { ta, tp, tb, &nb, &lo, &hi, &total, &op1 };
    CHECK(launch(&tfl_kfamily_bucket, HIST, hargs, 1, 1) == TFL_ERR_DEVICE, "histogram bad ptr");
    total = 11;
    CHECK(launch(&tfl_kfamily_bucket, HIST, hargs, 1, 1) == TFL_ERR_INVALID, "histogram count mismatch");
}

int main(void)
{
    test_names();
    test_bad_operands();
    printf("test_optable_batchnorm: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

/*
 * test_optable_batchnorm.c - the batchnorm and bucket decoders against
 * real 2.11 kernel names: which names they claim (and refuse), the
 * parameter layout batchnorm states for its kernels of the 2.11 - 2.15
 * wheels (equal to the cubins'), group norm's forward lambdas decoded per
 * release (2.15 renumbered them under the same name structure) and refused
 * for an unknown or newer release, 2.15's vectorized internal-gradients
 * kernel and its channels-last group norm kernels run end to end on
 * registered host memory (and refused for launches they would not
 * compute as decoded), and that a
 * launch whose operands are not device memory is refused with
 * TFL_ERR_INVALID (as is a bad shape) before anything
 * runs.  The decode-and-run path is covered end to end by
 * tests/pytorch/cuda/test_batchnorm.py and test_bucket.py.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable.h"
#include "route/optable/batchnorm_internal.h"
#include "route/torch_release.h"

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
        /* 2.15's channels-last group norm kernels: float only, like the others */
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385736RowwiseMomentsChannelsLastCUDAKernelIffEEvllllT_PKS3_PS3_S6_PT0_S8_", "group_norm_stats" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385739GroupNormBackwardChannelsLastCUDAKernelIjffEEvT_S3_NS_4cuda6detail10IntDividerIS3_EES7_S7_PKT0_SA_SA_SA_PKT1_SD_PS8_", "group_norm_backward_elemt" },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385736RowwiseMomentsChannelsLastCUDAKernelIN3c104HalfEfEEvllllT_PKS5_PS5_S8_PT0_SA_", NULL },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385739GroupNormBackwardChannelsLastCUDAKernelIjddEEvT_S3_NS_4cuda6detail10IntDividerIS3_EES7_S7_PKT0_SA_SA_SA_PKT1_SD_PS8_", NULL },
        { &tfl_kfamily_batchnorm, "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385754ComputeInternalGradientsChannelsLastFallbackCUDAKernelIdEEvllPKT_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_", NULL },
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

static tfl_status launch_block(const tfl_kfamily *f, const char *name, void **args, unsigned gx,
                               unsigned gy, unsigned bx)
{
    void *cookie;
    char err[256];
    if (!f->match(name, &cookie))
        return (tfl_status)-1;
    tfl_kcall c = { .name = name, .grid = { gx, gy, 1 }, .block = { bx, 1, 1 }, .args = args };
    return f->run(&c, cookie, err, sizeof err);
}

static tfl_status launch(const tfl_kfamily *f, const char *name, void **args, unsigned gx, unsigned gy)
{
    return launch_block(f, name, args, gx, gy, 32);
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
    CHECK(launch(&tfl_kfamily_batchnorm, COLLECT, cargs, 3, 1) == TFL_ERR_INVALID, "collect stats bad ptr");
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
    CHECK(launch(&tfl_kfamily_batchnorm, CL_TRANSFORM, targs, 1, 1) == TFL_ERR_INVALID, "cl transform bad ptr");
    /* the fused residual / ReLU form is not decoded */
    relu = 1;
    CHECK(launch(&tfl_kfamily_batchnorm, CL_TRANSFORM, targs, 1, 1) == TFL_ERR_UNSUPPORTED, "cl transform relu");

    int64_t N = 2, C = 4, G = 2;
    const float *gm = buf, *gr = buf + 8, *gg = NULL, *gb = NULL;
    float *a = buf + 16, *b = buf + 32;
    void *gargs[9] = { &N, &C, &G, &gm, &gr, &gg, &gb, &a, &b };
    CHECK(launch(&tfl_kfamily_batchnorm, GN_FUSED, gargs, 1, 1) == TFL_ERR_INVALID, "gn fused bad ptr");
    G = 3;
    CHECK(launch(&tfl_kfamily_batchnorm, GN_FUSED, gargs, 1, 1) == TFL_ERR_INVALID, "gn C %% G != 0");

    int64_t *sout = (int64_t *)(buf + 128);
    const float *sin = buf, *sbd = buf + 32;
    const int64_t *sorter = NULL;
    int64_t in_len = 8, bd_len = 4, numel = 8;
    uint8_t right = 0, bd1 = 1;
    void *sargs[9] = { &sout, &sin, &sbd, &sorter, &in_len, &bd_len, &numel, &right, &bd1 };
    CHECK(launch(&tfl_kfamily_bucket, SEARCH, sargs, 1, 1) == TFL_ERR_INVALID, "searchsorted bad ptr");

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
    CHECK(launch(&tfl_kfamily_bucket, HIST, hargs, 1, 1) == TFL_ERR_INVALID, "histogram bad ptr");
    total = 11;
    CHECK(launch(&tfl_kfamily_bucket, HIST, hargs, 1, 1) == TFL_ERR_INVALID, "histogram count mismatch");
}

/* Decode as torch 2.<minor>; 0: the loaded torch again (none in this
 * test, so no release). */
static void use_release(int minor)
{
    tfl_torch_info t;
    memset(&t, 0, sizeof t);
    snprintf(t.version, sizeof t.version, "2.%d.0", minor);
    snprintf(t.cuda, sizeof t.cuda, "13.0");
    tfl_torch_use(minor ? &t : NULL);
}

/* GroupNormKernelImplInternal<float, float>'s (float, float, float)
 * lambdas in vectorized_elementwise_kernel<4> (2.13; 2.14 and 2.15 add the
 * vectorized-load bool) and elementwise_kernel<128, 2, nocast>; `k` is the
 * Itanium lambda suffix: "_" #1, "0_" #2, "1_" #3. */
#define GN_VEC(hash, k, tail) "_ZN2at6native29vectorized_elementwise_kernelILi4EZNS0_59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_" hash "27GroupNormKernelImplInternalIffEEvRKNS_6TensorES6_S6_llllT_RS4_S8_S8_EUlfffE" k "St5arrayIPcLm4EE" tail "EEviT0_T1_"
#define GN_NOCAST(hash, k) "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZNS0_59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_" hash "27GroupNormKernelImplInternalIffEEvRKNS_6TensorES7_S7_llllT_RS5_S9_S9_EUlfffE" k "EEvRNS_18TensorIteratorBaseERKS8_EUliE_EEviT1_"
#define H13 "2f7922d3_27783"
#define H14 "977e8e6d_70466"
#define H15 "e5d96c45_73857"
#define GN13(k) GN_VEC(H13, k, "")
#define GN14(k) GN_VEC(H14, k, "Lb0E")
#define GN15(k) GN_VEC(H15, k, "Lb0E")

/* Group norm's forward lambdas per release: what each decodes to (sm_80
 * SASS, batchnorm_map.c) - NORM (x - mean) * rstd, AFFINE a * x + b - or
 * 0: not claimed.  2.15 added a lambda ahead of the others, so the same
 * name structure means another formula there; with no release, or one
 * newer than the SASS that was read, the decoder cannot know which formula
 * the "#k" is and must refuse rather than guess. */
static const struct { int minor; const char *mangled; int code; } gn_release[] = {
    { 13, GN13("_"), TFL_BN_MAP_NORM },
    { 13, GN13("0_"), TFL_BN_MAP_AFFINE },
    { 14, GN14("_"), TFL_BN_MAP_NORM },
    { 14, GN14("0_"), TFL_BN_MAP_AFFINE },
    { 14, GN_NOCAST(H14, "_"), TFL_BN_MAP_NORM },
    { 15, GN15("_"), TFL_BN_MAP_AFFINE },
    { 15, GN15("0_"), TFL_BN_MAP_NORM },
    { 15, GN15("1_"), TFL_BN_MAP_AFFINE },
    { 15, GN_NOCAST(H15, "1_"), TFL_BN_MAP_AFFINE },
    /* the same names decoded as another release's */
    { 15, GN14("_"), TFL_BN_MAP_AFFINE },
    { 14, GN15("0_"), TFL_BN_MAP_AFFINE },
    /* no lambda #3 before 2.15 */
    { 14, GN15("1_"), 0 },
    /* no release known, a release after 2.15, and 2.12 (whose function
     * is GroupNormKernelImplInternal<float>): refused */
    { 0, GN14("_"), 0 },
    { 0, GN15("1_"), 0 },
    { 16, GN15("_"), 0 },
    { 16, GN15("1_"), 0 },
    { 12, GN13("_"), 0 },
};

static void test_gn_release(void)
{
    for (size_t i = 0; i < sizeof gn_release / sizeof gn_release[0]; i++) {
        use_release(gn_release[i].minor);
        void *cookie = NULL;
        const char *op = claims(&tfl_kfamily_batchnorm, gn_release[i].mangled, &cookie);
        if (!gn_release[i].code) {
            CHECK(op == NULL, "2.%d claims %.160s", gn_release[i].minor, gn_release[i].mangled);
            continue;
        }
        CHECK(op && strcmp(op, "group_norm_apply") == 0, "2.%d: %.160s -> %s", gn_release[i].minor,
              gn_release[i].mangled, op ? op : "(none)");
        if (!op)
            continue;
        const bn_kernel *k = cookie;
        CHECK(k->kind == K_MAP && k->code == gn_release[i].code && k->flags == 0 && k->nout == 1 &&
              k->nin == 3 && k->fn_params == 0, "2.%d: %.160s decodes as code %d flags %d, want %d",
              gn_release[i].minor, gn_release[i].mangled, k->code, k->flags, gn_release[i].code);
    }
    use_release(0);
}

/* 2.15's ComputeInternalGradientsContiguousCUDAKernel<vec, float>(HxW, dY,
 * X, ds, db), one row per block, run on registered host memory: ds[r] =
 * sum dY*X, db[r] = sum dY over the row's first (HxW / vec) * vec elements
 * (its SASS has no tail loop; the launcher picks vec 4 only when HxW
 * divides). */
#define CIG(v) "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385744ComputeInternalGradientsContiguousCUDAKernelILi" v "EfEEvlPKT0_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_"

static void test_internal_grads_contiguous(void)
{
    enum { ROWS = 3, HXW = 6 };
    static float dy[ROWS * HXW], x[ROWS * HXW], ds[ROWS], db[ROWS];
    float *regs[] = { dy, x, ds, db };
    const size_t sizes[] = { sizeof dy, sizeof x, sizeof ds, sizeof db };
    for (int i = 0; i < 4; i++)
        CHECK(tfl_mem_register(regs[i], sizes[i], TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK, "register");
    for (int i = 0; i < ROWS * HXW; i++) {
        dy[i] = (float)(i % 5) - 1.5f;
        x[i] = 0.25f * (float)i - 2.0f;
    }
    static const struct { const char *name; int vec; } kern[] = { { CIG("1"), 1 }, { CIG("4"), 4 } };
    for (size_t kk = 0; kk < 2; kk++) {
        int64_t hxw = HXW;
        float *pdy = dy, *px = x, *pds = ds, *pdb = db;
        void *args[5] = { &hxw, &pdy, &px, &pds, &pdb };
        memset(ds, 0xff, sizeof ds);
        memset(db, 0xff, sizeof db);
        tfl_status st = launch(&tfl_kfamily_batchnorm, kern[kk].name, args, ROWS, 1);
        CHECK(st == TFL_OK, "internal grads vec %d: status %d", kern[kk].vec, (int)st);
        const int used = HXW - HXW % kern[kk].vec;
        for (int r = 0; r < ROWS && st == TFL_OK; r++) {
            double s1 = 0, s2 = 0;
            for (int j = 0; j < used; j++) {
                s1 += (double)dy[r * HXW + j] * x[r * HXW + j];
                s2 += dy[r * HXW + j];
            }
            CHECK(ds[r] == (float)s1 && db[r] == (float)s2, "vec %d row %d: ds %g db %g, want %g %g",
                  kern[kk].vec, r, ds[r], db[r], s1, s2);
        }
    }
    for (int i = 0; i < 4; i++)
        tfl_mem_unregister(regs[i], TFL_MEM_HOST_REGISTERED);
}

/* torch 2.15's channels-last group norm kernels (x[n][hw][c], c = g*D + d) */
#define GN15_NS "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_73857"
#define GN_CL_MOMENTS GN15_NS "36RowwiseMomentsChannelsLastCUDAKernelIffEEvllllT_PKS3_PS3_S6_PT0_S8_"
#define GN_CL_SMALLD GN15_NS "42RowwiseMomentsChannelsLastSmallDCUDAKernelILi4EffEEvllllT0_PKS3_PS3_S6_PT1_S8_"
#define GN_CL_GRADS GN15_NS "46ComputeInternalGradientsChannelsLastCUDAKernelILi16EfEEvllPKT0_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_"
#define GN_CL_GRADS_FB GN15_NS "54ComputeInternalGradientsChannelsLastFallbackCUDAKernelIfEEvllPKT_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_"
/* t: index type, "j" unsigned int, "l" long */
#define GN_CL_BWD(t) GN15_NS "39GroupNormBackwardChannelsLastCUDAKernelI" t "ffEEvT_S3_NS_4cuda6detail10IntDividerIS3_EES7_S7_PKT0_SA_SA_SA_PKT1_SD_PS8_"

enum { CL_N = 2, CL_HXW = 5, CL_C = 12, CL_G = 6, CL_D = 2, CL_ALL = CL_N * CL_HXW * CL_C };
static struct {
    float x[CL_ALL], dy[CL_ALL], dx[CL_ALL];
    float mean[CL_N * CL_G], rstd[CL_N * CL_G], c2[CL_N * CL_G], c3[CL_N * CL_G];
    float ds[CL_N * CL_C], db[CL_N * CL_C], gamma[CL_C];
} cl;

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-5 * (1.0 + fabs(want));
}

/* moments of group ng, as the kernels compute them (biased variance) */
static void cl_moments_ref(int ng, double eps, double *mean, double *rstd)
{
    const int n = ng / CL_G, g = ng % CL_G;
    double s = 0, ss = 0;
    for (int hw = 0; hw < CL_HXW; hw++)
        for (int d = 0; d < CL_D; d++)
            s += cl.x[(n * CL_HXW + hw) * CL_C + g * CL_D + d];
    *mean = s / (CL_HXW * CL_D);
    for (int hw = 0; hw < CL_HXW; hw++)
        for (int d = 0; d < CL_D; d++) {
            double v = cl.x[(n * CL_HXW + hw) * CL_C + g * CL_D + d] - *mean;
            ss += v * v;
        }
    *rstd = 1.0 / sqrt(ss / (CL_HXW * CL_D) + eps);
}

static void cl_check_moments(const char *what)
{
    for (int ng = 0; ng < CL_N * CL_G; ng++) {
        double m, r;
        cl_moments_ref(ng, 1e-5, &m, &r);
        CHECK(near(cl.mean[ng], m) && near(cl.rstd[ng], r), "%s group %d: mean %g rstd %g, want %g %g",
              what, ng, cl.mean[ng], cl.rstd[ng], m, r);
    }
}

static void test_gn_cl_moments(void)
{
    int64_t N = CL_N, C = CL_C, HxW = CL_HXW, D = CL_D, G = CL_G;
    float eps = 1e-5f;
    float *px = cl.x, *pm = cl.mean, *pr = cl.rstd, *none = NULL;
    /* (N, C, HxW, D, eps, X, mean, rstd, acc, acc): one group per block */
    void *gen[10] = { &N, &C, &HxW, &D, &eps, &px, &pm, &pr, &none, &none };
    memset(cl.mean, 0xff, sizeof cl.mean);
    memset(cl.rstd, 0xff, sizeof cl.rstd);
    tfl_status st = launch_block(&tfl_kfamily_batchnorm, GN_CL_MOMENTS, gen, CL_N * CL_G, 1, 32);
    CHECK(st == TFL_OK, "channels-last moments: status %d", (int)st);
    cl_check_moments("channels-last moments");
    /* (C, HxW, D, G, ...): 4 groups per block, ceil(6 / 4) = 2 blocks per n */
    void *small[10] = { &C, &HxW, &D, &G, &eps, &px, &pm, &pr, &none, &none };
    memset(cl.mean, 0xff, sizeof cl.mean);
    memset(cl.rstd, 0xff, sizeof cl.rstd);
    st = launch_block(&tfl_kfamily_batchnorm, GN_CL_SMALLD, small, CL_N * 2, 1, 256);
    CHECK(st == TFL_OK, "SmallD moments: status %d", (int)st);
    cl_check_moments("SmallD moments");
    /* refused: a block past its 256-entry shared array, one narrower than
     * a block's 4 * D channel lanes, a grid of partial batches */
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_SMALLD, small, CL_N * 2, 1, 512) ==
          TFL_ERR_UNSUPPORTED, "SmallD, 512 threads");
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_SMALLD, small, CL_N * 2, 1, 4) ==
          TFL_ERR_UNSUPPORTED, "SmallD, 4 threads");
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_MOMENTS, gen, CL_N * CL_G + 1, 1, 32) ==
          TFL_ERR_UNSUPPORTED, "moments, partial batch");
    D = 0;
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_MOMENTS, gen, CL_N * CL_G, 1, 32) ==
          TFL_ERR_INVALID, "moments, D = 0");
}

static void test_gn_cl_grads(void)
{
    int64_t C = CL_C, HxW = CL_HXW;
    float *pdy = cl.dy, *px = cl.x, *pds = cl.ds, *pdb = cl.db;
    void *args[6] = { &C, &HxW, &pdy, &px, &pds, &pdb };
    /* <16>: ceil(12 / 16) = 1 block per n; the Fallback one per (n, c) */
    static const struct { const char *name; unsigned grid, block; } kern[] = {
        { GN_CL_GRADS, CL_N, 256 }, { GN_CL_GRADS_FB, CL_N * CL_C, 32 },
    };
    for (size_t kk = 0; kk < 2; kk++) {
        memset(cl.ds, 0xff, sizeof cl.ds);
        memset(cl.db, 0xff, sizeof cl.db);
        tfl_status st = launch_block(&tfl_kfamily_batchnorm, kern[kk].name, args, kern[kk].grid, 1,
                                     kern[kk].block);
        CHECK(st == TFL_OK, "channels-last grads %zu: status %d", kk, (int)st);
        for (int nc = 0; nc < CL_N * CL_C && st == TFL_OK; nc++) {
            const int n = nc / CL_C, c = nc % CL_C;
            double s1 = 0, s2 = 0;
            for (int hw = 0; hw < CL_HXW; hw++) {
                const int i = (n * CL_HXW + hw) * CL_C + c;
                s1 += (double)cl.dy[i] * cl.x[i];
                s2 += cl.dy[i];
            }
            CHECK(near(cl.ds[nc], s1) && near(cl.db[nc], s2), "grads %zu nc %d: ds %g db %g, want %g %g",
                  kk, nc, cl.ds[nc], cl.db[nc], s1, s2);
        }
    }
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_GRADS, args, CL_N, 1, 8) == TFL_ERR_UNSUPPORTED,
          "grads <16>, 8 threads");
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_GRADS_FB, args, CL_N * CL_C - 1, 1, 32) ==
          TFL_ERR_UNSUPPORTED, "grads fallback, partial batch");
}

/* IntDivider<unsigned int> { divisor, m1, shift } as PyTorch builds it */
static void divider_u32(unsigned char *b, uint32_t d)
{
    uint32_t shift = 0;
    while (shift < 32 && (1u << shift) < d)
        shift++;
    const uint32_t m1 = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << shift) - d)) / d + 1);
    memcpy(b, &d, 4);
    memcpy(b + 4, &m1, 4);
    memcpy(b + 8, &shift, 4);
}

static void cl_check_dx(const char *what, int with_gamma)
{
    for (int i = 0; i < CL_ALL; i++) {
        const int c = i % CL_C, n = i / (CL_C * CL_HXW), ng = n * CL_G + c / CL_D;
        const double want = (double)cl.rstd[ng] * (with_gamma ? cl.gamma[c] : 1.0f) * cl.dy[i] +
                            (double)cl.c2[ng] * cl.x[i] + cl.c3[ng];
        CHECK(near(cl.dx[i], want), "%s %d: %g, want %g", what, i, cl.dx[i], want);
    }
}

static void test_gn_cl_backward(void)
{
    for (int i = 0; i < CL_N * CL_G; i++) {
        cl.rstd[i] = 0.5f + 0.125f * (float)i;
        cl.c2[i] = 0.25f - 0.0625f * (float)i;
        cl.c3[i] = (float)i - 3.5f;
    }
    for (int c = 0; c < CL_C; c++)
        cl.gamma[c] = 1.5f - 0.25f * (float)c;
    float *pdy = cl.dy, *px = cl.x, *pr = cl.rstd, *pg = cl.gamma, *p2 = cl.c2, *p3 = cl.c3;
    float *pdx = cl.dx;
    /* <unsigned int>: (numel, G, IntDivider C, HxW, D, ...) */
    uint32_t numel = CL_ALL, G = CL_G;
    unsigned char dc[12], dhw[12], dd[12];
    divider_u32(dc, CL_C);
    divider_u32(dhw, CL_HXW);
    divider_u32(dd, CL_D);
    void *args[12] = { &numel, &G, dc, dhw, dd, &pdy, &px, &pr, &pg, &p2, &p3, &pdx };
    memset(cl.dx, 0xff, sizeof cl.dx);
    tfl_status st = launch_block(&tfl_kfamily_batchnorm, GN_CL_BWD("j"), args, 1, 1, 256);
    CHECK(st == TFL_OK, "channels-last backward <uint>: status %d", (int)st);
    cl_check_dx("backward <uint>", 1);
    /* no gamma */
    pg = NULL;
    memset(cl.dx, 0xff, sizeof cl.dx);
    st = launch_block(&tfl_kfamily_batchnorm, GN_CL_BWD("j"), args, 2, 1, 32);
    CHECK(st == TFL_OK, "channels-last backward, no gamma: status %d", (int)st);
    cl_check_dx("backward <uint>, no gamma", 0);
    /* a divider whose magic is not its divisor's: the kernel would not
     * divide by C, so the launch is not decoded */
    dc[4] ^= 1;
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_BWD("j"), args, 1, 1, 256) == TFL_ERR_UNSUPPORTED,
          "backward <uint>, bad magic");
    /* <long>: IntDivider<long> is its divisor */
    int64_t numel64 = CL_ALL, G64 = CL_G, C64 = CL_C, HxW64 = CL_HXW, D64 = CL_D;
    pg = cl.gamma;
    void *largs[12] = { &numel64, &G64, &C64, &HxW64, &D64, &pdy, &px, &pr, &pg, &p2, &p3, &pdx };
    memset(cl.dx, 0xff, sizeof cl.dx);
    st = launch_block(&tfl_kfamily_batchnorm, GN_CL_BWD("l"), largs, 1, 1, 256);
    CHECK(st == TFL_OK, "channels-last backward <long>: status %d", (int)st);
    cl_check_dx("backward <long>", 1);
    /* C != G * D, and numel not whole batches */
    G64 = 5;
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_BWD("l"), largs, 1, 1, 256) == TFL_ERR_INVALID,
          "backward <long>, C != G * D");
    G64 = CL_G;
    numel64 = CL_ALL - CL_C;
    CHECK(launch_block(&tfl_kfamily_batchnorm, GN_CL_BWD("l"), largs, 1, 1, 256) == TFL_ERR_UNSUPPORTED,
          "backward <long>, partial batch");
}

static void test_gn_channels_last(void)
{
    CHECK(tfl_mem_register(&cl, sizeof cl, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK, "register");
    for (int i = 0; i < CL_ALL; i++) {
        cl.x[i] = 0.5f * (float)((i * 7) % 11) - 2.0f + 0.01f * (float)i;
        cl.dy[i] = (float)((i * 5) % 7) - 2.75f;
    }
    test_gn_cl_moments();
    test_gn_cl_grads();
    test_gn_cl_backward();
    tfl_mem_unregister(&cl, TFL_MEM_HOST_REGISTERED);
}

/* Real kernel names of the torch 2.11, 2.14 and 2.15 wheels (one per kind
 * and parameter layout; the later releases' where the layout or the name's
 * structure changed, and a few more to show other namespace hashes are
 * recognised) with their parameter layouts (offset:size) as the sm_80
 * cubins record them (scripts/wheel_kernels.py): what the decoder states
 * with layout() must be exactly that. */
static const struct { const char *mangled, *layout; } cubin[] = {
    { "_ZN2at6native49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi3EZZZNS1_34batch_norm_update_stats_and_invertERKNS_6TensorES5_S5_S5_ddlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm7EE16OffsetCalculatorILi4EjLb0EESC_ILi3EjLb0EEEEviT0_T1_T2_T3_",
      "0:4 8:24 32:56 88:704 792:604" },  /* 2.11.0 batch_norm_update_stats:  */
    { "_ZN2at6native49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi3EZZZNS1_34batch_norm_update_stats_and_invertERKNS_6TensorES5_S5_S5_ddlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm7EE23TrivialOffsetCalculatorILi4EjESC_ILi3EjEEEviT0_T1_T2_T3_",
      "0:4 8:24 32:56 88:1 89:1" },  /* 2.11.0 batch_norm_update_stats:  */
    { "_ZN2at6native49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi2EZZZNS1_23batch_norm_update_statsERKNS_6TensorES5_S5_S5_dlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm6EE16OffsetCalculatorILi4EjLb0EESC_ILi2EjLb0EEEEviT0_T1_T2_T3_",
      "0:4 8:16 24:48 72:704 776:504" },  /* 2.11.0 batch_norm_update_stats:  */
    { "_ZN2at6native49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi2EZZZNS1_23batch_norm_update_statsERKNS_6TensorES5_S5_S5_dlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm6EE23TrivialOffsetCalculatorILi4EjESC_ILi2EjEEEviT0_T1_T2_T3_",
      "0:4 8:16 24:48 72:1 73:1" },  /* 2.11.0 batch_norm_update_stats:  */
    { "_ZN2at6native32batch_norm_backward_elemt_kernelIffflEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESC_EESA_Lm3ESB_SC_EESH_NS5_INS6_IS9_T1_Lm0ESB_SC_EENSF_ILm1ESC_EESI_Lm1ESB_SC_EESL_NS5_INS6_IS9_T0_Lm0ESB_SC_EESK_SM_Lm1ESB_SC_EESL_SL_SH_PKii",
      "0:56 56:56 112:24 136:24 160:24 184:24 208:24 232:56 288:8 296:4" },  /* 2.11.0 batch_norm_backward_elemt: batch_norm_backward_elemt_kernel */
    { "_ZN2at6native32batch_norm_backward_elemt_kernelIfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESC_EESA_Lm3ESB_SC_EESH_NS5_INS6_IS9_T1_Lm0ESB_SC_EENSF_ILm1ESC_EESI_Lm1ESB_SC_EESL_NS5_INS6_IS9_T0_Lm0ESB_SC_EESK_SM_Lm1ESB_SC_EESL_SL_SH_PKii",
      "0:32 32:32 64:16 80:16 96:16 112:16 128:16 144:32 176:8 184:4" },  /* 2.11.0 batch_norm_backward_elemt: batch_norm_backward_elemt_kernel */
    { "_ZN2at6native33batch_norm_backward_reduce_kernelIffflEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESC_EESA_Lm3ESB_SC_EESH_NS5_INS6_IS9_T1_Lm0ESB_SC_EENSF_ILm1ESC_EESI_Lm1ESB_SC_EESL_SL_SL_NS5_INS6_IS9_T0_Lm0ESB_SC_EESK_SM_Lm1ESB_SC_EESO_",
      "0:56 56:56 112:24 136:24 160:24 184:24 208:24 232:24" },  /* 2.11.0 batch_norm_backward_reduce: batch_norm_backward_reduce_kernel */
    { "_ZN2at6native33batch_norm_backward_reduce_kernelIfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESC_EESA_Lm3ESB_SC_EESH_NS5_INS6_IS9_T1_Lm0ESB_SC_EENSF_ILm1ESC_EESI_Lm1ESB_SC_EESL_SL_SL_NS5_INS6_IS9_T0_Lm0ESB_SC_EESK_SM_Lm1ESB_SC_EESO_",
      "0:32 32:32 64:16 80:16 96:16 112:16 128:16 144:16" },  /* 2.11.0 batch_norm_backward_reduce: batch_norm_backward_reduce_kernel */
    { "_ZN2at6native36batch_norm_collect_statistics_kernelINS0_6InvStdEffflEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT0_Lm2ENS4_17RestrictPtrTraitsET3_EENS_6detail16IndexBoundsCheckILm3ESE_EESC_Lm3ESD_SE_EET2_SK_NS6_INS7_ISA_SK_Lm0ESD_SE_EENSH_ILm1ESE_EESK_Lm1ESD_SE_EESN_",
      "0:56 56:4 60:4 64:24 88:24" },  /* 2.11.0 batch_norm_stats: batch_norm_collect_statistics_kernel */
    { "_ZN2at6native36batch_norm_collect_statistics_kernelINS0_3VarEfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT0_Lm2ENS4_17RestrictPtrTraitsET3_EENS_6detail16IndexBoundsCheckILm3ESE_EESC_Lm3ESD_SE_EET2_SK_NS6_INS7_ISA_SK_Lm0ESD_SE_EENSH_ILm1ESE_EESK_Lm1ESD_SE_EESN_",
      "0:32 32:4 36:4 40:16 56:16" },  /* 2.11.0 batch_norm_stats: batch_norm_collect_statistics_kernel */
    { "_ZN2at6native50batch_norm_collect_statistics_channels_last_kernelINS0_3VarEffLi4EEEvPKT0_PT1_S7_PVS6_PiiiS6_",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:4" },  /* 2.11.0 batch_norm_stats: batch_norm_collect_statistics_channels_last_kernel */
    { "_ZN2at6native26batch_norm_backward_kernelIfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESD_EESB_Lm3ESC_SD_EESI_NS5_INS6_IS9_SA_Lm2ESC_SD_EESH_SA_Lm3ESC_SD_EENS5_INS6_IS9_T0_Lm0ESC_SD_EENSG_ILm1ESD_EESL_Lm1ESC_SD_EESO_NS5_INS6_IS9_KSL_Lm0ESC_SD_EESN_SP_Lm1ESC_SD_EESR_SR_NS5_INS6_IS9_KT1_Lm0ESC_SD_EESN_ST_Lm1ESC_SD_EESV_bSS_",
      "0:32 32:32 64:32 96:16 112:16 128:16 144:16 160:16 176:16 192:16 208:1 212:4" },  /* 2.11.0 batch_norm_backward: batch_norm_backward_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458722batch_norm_calc_invstdERKNS_6TensorES6_dENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:552" },  /* 2.11.0 batch_norm_invstd: elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458722batch_norm_calc_invstdERKNS_6TensorES6_dENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:544" },  /* 2.11.0 batch_norm_invstd: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458722batch_norm_calc_invstdERKNS_6TensorES5_dENKUlvE_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
      "0:4 8:16 24:16" },  /* 2.11.0 batch_norm_invstd: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458736batch_norm_elementwise_backward_evalERKNS_6TensorES6_S6_S6_ENKUlvE0_clEvENKUlvE0_clEvEUlffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:648" },  /* 2.11.0 batch_norm_backward_eval: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458736batch_norm_elementwise_backward_evalERKNS_6TensorES5_S5_S5_ENKUlvE0_clEvENKUlvE0_clEvEUlffE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 4:1 8:24" },  /* 2.11.0 batch_norm_backward_eval: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458736batch_norm_elementwise_backward_evalERKNS_6TensorES6_S6_S6_ENKUlvE_clEvENKUlvE0_clEvEUlfffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:752" },  /* 2.11.0 batch_norm_backward_eval: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458736batch_norm_elementwise_backward_evalERKNS_6TensorES5_S5_S5_ENKUlvE_clEvENKUlvE0_clEvEUlfffE_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 4:1 8:32" },  /* 2.11.0 batch_norm_backward_eval: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458737batch_norm_elementwise_backward_trainERKNS_6TensorES6_S6_S6_S6_S6_S6_ENKUlvE0_clEvENKUlvE0_clEvEUlfffffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:1200" },  /* 2.11.0 batch_norm_backward_elemt: elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458737batch_norm_elementwise_backward_trainERKNS_6TensorES6_S6_S6_S6_S6_S6_ENKUlvE0_clEvENKUlvE0_clEvEUlfffffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:1192" },  /* 2.11.0 batch_norm_backward_elemt: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458737batch_norm_elementwise_backward_trainERKNS_6TensorES5_S5_S5_S5_S5_S5_ENKUlvE0_clEvENKUlvE0_clEvEUlfffffffE_St5arrayIPcLm8EEEEviT0_T1_",
      "0:4 8:16 24:64" },  /* 2.11.0 batch_norm_backward_elemt: vectorized_elementwise_kernel */
    { "_ZN2at6native32batch_norm_backward_elemt_kernelIfffiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS3_16DefaultPtrTraitsET2_EENS_6detail16IndexBoundsCheckILm3ESC_EESA_Lm3ESB_SC_EESH_NS5_INS6_IS9_T1_Lm0ESB_SC_EENSF_ILm1ESC_EESI_Lm1ESB_SC_EESL_NS5_INS6_IS9_T0_Lm0ESB_SC_EESK_SM_Lm1ESB_SC_EESL_SL_SH_SI_",
      "0:32 32:32 64:16 80:16 96:16 112:16 128:16 144:32 176:4" },  /* 2.11.0 batch_norm_backward_elemt: batch_norm_backward_elemt_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458722batch_norm_elementwiseERKNS_6TensorES6_RKSt8optionalIS4_ESA_S6_S6_ENKUlvE0_clEvENKUlvE0_clEvEUlfffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:968" },  /* 2.11.0 batch_norm_apply: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__0edc5583_16_Normalization_cu_5c38458722batch_norm_elementwiseERKNS_6TensorES5_RKSt8optionalIS3_ES9_S5_S5_ENKUlvE0_clEvENKUlvE0_clEvEUlfffffE_St5arrayIPcLm6EEEEviT0_T1_",
      "0:4 4:1 8:48" },  /* 2.11.0 batch_norm_apply: vectorized_elementwise_kernel */
    { "_ZN2at6native33batch_norm_transform_input_kernelIfffLb1EiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS4_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS3_17RestrictPtrTraitsET3_EENS_6detail16IndexBoundsCheckILm3ESD_EESB_Lm3ESC_SD_EENS5_INS6_IS9_SA_Lm2ESC_SD_EESH_SA_Lm3ESC_SD_EENS5_INS6_IS9_NSt11conditionalIXT2_ET1_T0_E4typeELm0ESC_SD_EENSG_ILm1ESD_EESP_Lm1ESC_SD_EESS_NS5_INS6_IS9_KSN_Lm0ESC_SD_EESR_ST_Lm1ESC_SD_EESV_SM_",
      "0:32 32:32 64:16 80:16 96:16 112:16 128:4" },  /* 2.11.0 batch_norm_apply: batch_norm_transform_input_kernel */
    { "_ZN2at6native46batch_norm_backward_elemt_channels_last_kernelILi4EfffEEvPKT0_S4_PKT1_S7_PKT2_S7_S7_PS2_S5_ii",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:4 68:4 72:4" },  /* 2.11.0 batch_norm_backward_elemt: batch_norm_backward_elemt_channels_last_kernel */
    { "_ZN2at6native46batch_norm_backward_elemt_channels_last_kernelILi4EfffEEvPKT0_S4_PKT1_S7_PKT2_S7_S7_PKiPS2_lii",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:4 84:4" },  /* 2.11.0 batch_norm_backward_elemt: batch_norm_backward_elemt_channels_last_kernel */
    { "_ZN2at6native47batch_norm_backward_reduce_channels_last_kernelILi4EfffEEvPKT0_S4_PKT1_S7_PS5_S8_PT2_SA_PVS5_Piii",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:4 84:4" },  /* 2.11.0 batch_norm_backward_reduce: batch_norm_backward_reduce_channels_last_kernel */
    { "_ZN2at6native47batch_norm_transform_input_channels_last_kernelIfffLi4EEEvPKT_S4_PKT0_S7_PKT1_SA_PS2_iib",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:1" },  /* 2.11.0 batch_norm_apply: batch_norm_transform_input_channels_last_kernel */
    { "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652030GammaBeta1dBackwardCUDAKernel2IfEEvlllPKT_S5_S5_S5_PS3_S6_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8" },  /* 2.11.0 group_norm_backward_gamma_beta:  */
    { "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652036ComputeBackwardFusedParamsCUDAKernelIfEEvlllPKT_S5_S5_PKNS_14AccumulateTypeIS3_Lb1EE4typeESA_PS8_SB_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8" },  /* 2.11.0 group_norm_backward_params:  */
    { "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652034ComputeInternalGradientsCUDAKernelIfEEvlPKT_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_",
      "0:8 8:8 16:8 24:8 32:8" },  /* 2.11.0 group_norm_backward_sums:  */
    { "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652038Compute1dBackwardFusedParamsCUDAKernelIfEEvllPKT_S5_S5_S5_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8" },  /* 2.11.0 group_norm_backward_params:  */
    { "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652028ComputeFusedParamsCUDAKernelIfEEvlllPKT_S5_S5_S5_PNS_14AccumulateTypeIS3_Lb1EE4typeES9_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8" },  /* 2.11.0 group_norm_params:  */
    { "_ZN2at6native59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652024RowwiseMomentsCUDAKernelIfEEvlT_PKS3_PS3_S6_",
      "0:8 8:4 16:8 24:8 32:8" },  /* 2.11.0 group_norm_stats:  */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652019GroupNorm1dBackwardIfEEvNS_6TensorES5_S5_S5_S5_lllRS5_S6_S6_EUlfffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:968" },  /* 2.11.0 group_norm_backward_elemt: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652019GroupNorm1dBackwardIfEEvNS_6TensorES4_S4_S4_S4_lllRS4_S5_S5_EUlfffffE_St5arrayIPcLm6EEEEviT0_T1_",
      "0:4 4:1 8:48" },  /* 2.11.0 group_norm_backward_elemt: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652035GroupNormBackwardKernelImplInternalIfEEvRKNS_6TensorES7_S7_S7_S7_llllRS5_S8_S8_EUlffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:648" },  /* 2.11.0 group_norm_backward_elemt: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652035GroupNormBackwardKernelImplInternalIfEEvRKNS_6TensorES6_S6_S6_S6_llllRS4_S7_S7_EUlffE_St5arrayIPcLm3EEEEviT0_T1_",
      "0:4 4:1 8:24" },  /* 2.11.0 group_norm_backward_elemt: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652019GroupNorm1dBackwardIfEEvNS_6TensorES5_S5_S5_S5_lllRS5_S6_S6_EUlffffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:1080" },  /* 2.11.0 group_norm_backward_elemt: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652019GroupNorm1dBackwardIfEEvNS_6TensorES4_S4_S4_S4_lllRS4_S5_S5_EUlffffffE_St5arrayIPcLm7EEEEviT0_T1_",
      "0:4 4:1 8:56" },  /* 2.11.0 group_norm_backward_elemt: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652018GroupNorm1dForwardIfEEvRKNS_6TensorES7_S7_S7_S7_lllRS5_EUlfffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:752" },  /* 2.11.0 group_norm_apply: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652018GroupNorm1dForwardIfEEvRKNS_6TensorES6_S6_S6_S6_lllRS4_EUlfffE_St5arrayIPcLm4EEEEviT0_T1_",
      "0:4 4:1 8:32" },  /* 2.11.0 group_norm_apply: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652018GroupNorm1dForwardIfEEvRKNS_6TensorES7_S7_S7_S7_lllRS5_EUlffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:864" },  /* 2.11.0 group_norm_apply: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652018GroupNorm1dForwardIfEEvRKNS_6TensorES6_S6_S6_S6_lllRS4_EUlffffE_St5arrayIPcLm5EEEEviT0_T1_",
      "0:4 4:1 8:40" },  /* 2.11.0 group_norm_apply: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652018GroupNorm1dForwardIfEEvRKNS_6TensorES7_S7_S7_S7_lllRS5_EUlfffffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:968" },  /* 2.11.0 group_norm_apply: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZNS0_59_GLOBAL__N__133be68c_20_group_norm_kernel_cu_ef1a7132_2652018GroupNorm1dForwardIfEEvRKNS_6TensorES6_S6_S6_S6_lllRS4_EUlfffffE_St5arrayIPcLm6EEEEviT0_T1_",
      "0:4 4:1 8:48" },  /* 2.11.0 group_norm_apply: vectorized_elementwise_kernel */
    { "_ZN2at6native49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi3EZZZNS1_34batch_norm_update_stats_and_invertERKNS_6TensorES5_S5_S5_ddlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm7EE16OffsetCalculatorILi4EjLb0EESC_ILi3EjLb0EEEEviT0_T1_T2_T3_",
      "0:4 8:24 32:56 88:704 792:604" },  /* 2.14.1 batch_norm_update_stats:  */
    { "_ZN2at6native49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi3EZZZNS1_34batch_norm_update_stats_and_invertERKNS_6TensorES5_S5_S5_ddlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm7EE23TrivialOffsetCalculatorILi4EjESC_ILi3EjEEEviT0_T1_T2_T3_",
      "0:4 8:24 32:56 88:1 89:1" },  /* 2.14.1 batch_norm_update_stats:  */
    { "_ZN2at6native49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi2EZZZNS1_23batch_norm_update_statsERKNS_6TensorES5_S5_S5_dlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm6EE16OffsetCalculatorILi4EjLb0EESC_ILi2EjLb0EEEEviT0_T1_T2_T3_",
      "0:4 8:16 24:48 72:704 776:504" },  /* 2.14.1 batch_norm_update_stats:  */
    { "_ZN2at6native49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458745unrolled_elementwise_kernel_for_multi_outputsILi2EZZZNS1_23batch_norm_update_statsERKNS_6TensorES5_S5_S5_dlENKUlvE_clEvENKUlvE0_clEvEUlffffE_St5arrayIPcLm6EE23TrivialOffsetCalculatorILi4EjESC_ILi2EjEEEviT0_T1_T2_T3_",
      "0:4 8:16 24:48 72:1 73:1" },  /* 2.14.1 batch_norm_update_stats:  */
    { "_ZN2at6native59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_977e8e6d_7046624RowwiseMomentsCUDAKernelIffEEvlT_PKS3_PS3_S6_PT0_S8_",
      "0:8 8:4 16:8 24:8 32:8 40:8 48:8" },  /* 2.14.1 group_norm_stats:  */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458722batch_norm_calc_invstdERKNS_6TensorES6_dENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:552" },  /* 2.15.0 batch_norm_invstd: elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458722batch_norm_calc_invstdERKNS_6TensorES6_dENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:544" },  /* 2.15.0 batch_norm_invstd: elementwise_kernel */
    { "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458722batch_norm_calc_invstdERKNS_6TensorES5_dENKUlvE_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EELb0EEEviT0_T1_",
      "0:4 8:16 24:16" },  /* 2.15.0 batch_norm_invstd: vectorized_elementwise_kernel */
    { "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_49_GLOBAL__N__df1a5ba1_16_Normalization_cu_5c38458736batch_norm_elementwise_backward_evalERKNS_6TensorES6_S6_S6_ENKUlvE0_clEvENKUlvE0_clEvEUlffE_EEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
      "0:4 8:648" },  /* 2.15.0 batch_norm_backward_eval: elementwise_kernel */
};

/* Kernels decoded only for the releases whose SASS was read (the group
 * norm lambdas above) and 2.15's new kernels, with the release to decode
 * them as and their cubin layouts. */
static const struct { int minor; const char *mangled, *layout; } cubin_rel[] = {
    { 13, GN13("_"), "0:4 4:1 8:32" },
    { 13, "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_2f7922d3_2778327GroupNormKernelImplInternalIffEEvRKNS_6TensorES7_S7_llllT_RS5_S9_S9_EUlfffE0_EEvRNS_18TensorIteratorBaseERKS8_EUliE_EEviT1_",
      "0:4 8:752" },
    { 14, GN_NOCAST(H14, "_"), "0:4 8:752" },
    { 14, GN14("0_"), "0:4 4:1 8:32" },
    { 15, GN15("_"), "0:4 4:1 8:32" },
    { 15, GN15("1_"), "0:4 4:1 8:32" },
    { 15, GN_NOCAST(H15, "1_"), "0:4 8:752" },
    { 15, "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZNS0_59_GLOBAL__N__7fea3eb9_20_group_norm_kernel_cu_e5d96c45_7385727GroupNormKernelImplInternalIffEEvRKNS_6TensorES7_S7_llllT_RS5_S9_S9_EUlfffE0_EEvRNS_18TensorIteratorBaseERKS8_EUliE_EEviT1_",
      "0:4 8:752" },
    { 15, CIG("1"), "0:8 8:8 16:8 24:8 32:8" },
    { 15, CIG("4"), "0:8 8:8 16:8 24:8 32:8" },
    { 15, GN_CL_MOMENTS, "0:8 8:8 16:8 24:8 32:4 40:8 48:8 56:8 64:8 72:8" },
    { 15, GN_CL_SMALLD, "0:8 8:8 16:8 24:8 32:4 40:8 48:8 56:8 64:8 72:8" },
    { 15, GN_CL_GRADS, "0:8 8:8 16:8 24:8 32:8 40:8" },
    { 15, GN_CL_GRADS_FB, "0:8 8:8 16:8 24:8 32:8 40:8" },
    { 15, GN_CL_BWD("j"), "0:4 4:4 8:12 20:12 32:12 48:8 56:8 64:8 72:8 80:8 88:8 96:8" },
    { 15, GN_CL_BWD("l"), "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8" },
};

/* Does the decoder claim the kernel and state exactly the cubin's layout? */
static void check_layout(const char *mangled, const char *want)
{
    const tfl_kfamily *fam = &tfl_kfamily_batchnorm;
    void *cookie = NULL;
    int ok = fam->match(mangled, &cookie);
    CHECK(ok, "does not claim %.120s", mangled);
    if (!ok)
        return;
    tfl_klayout l;
    l.n = 0;
    ok = fam->layout && fam->layout(cookie, &l) && l.n >= 0;
    CHECK(ok, "no layout for %.120s", mangled);
    if (!ok)
        return;
    char buf[1024] = "";
    size_t pos = 0;
    for (int k = 0; k < l.n && pos < sizeof buf; k++)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%u:%u", k ? " " : "", l.offset[k],
                                l.size[k]);
    CHECK(strcmp(buf, want) == 0, "%.120s: layout %s, the cubin's %s", mangled, buf, want);
}

static void test_cubin_layouts(void)
{
    for (size_t i = 0; i < sizeof cubin / sizeof cubin[0]; i++)
        check_layout(cubin[i].mangled, cubin[i].layout);
    for (size_t i = 0; i < sizeof cubin_rel / sizeof cubin_rel[0]; i++) {
        use_release(cubin_rel[i].minor);
        check_layout(cubin_rel[i].mangled, cubin_rel[i].layout);
    }
    use_release(0);
}

int main(void)
{
    test_cubin_layouts();
    test_names();
    test_gn_release();
    test_internal_grads_contiguous();
    test_gn_channels_last();
    test_bad_operands();
    printf("test_optable_batchnorm: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

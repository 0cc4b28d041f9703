/*
 * test_optable_sort.c - the sort family's decoder against real torch 2.11
 * kernel names: which it claims (and what it refuses), the op it reports,
 * and that launches it cannot prove it understands are refused
 * (TFL_ERR_UNSUPPORTED: an onesweep pass of a multi-portion sort, a
 * segmented pass whose grid is not one block per segment or whose
 * segments overlap, a later launch of a split scan, a multi-partition
 * DeviceSelect) while operands outside device memory give TFL_ERR_DEVICE
 * before anything runs.  Decoding and running end to end is covered by
 * tests/pytorch/cuda/test_sort.py.
 */
#include <stdio.h>
#include <string.h>

#include "route/optable.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static const tfl_kfamily *const F = &tfl_kfamily_sort;

#define K_ONESWEEP "_ZN14at_cuda_detail3cub6detail10radix_sort29DeviceRadixSortOnesweepKernelINS1_5radix10policy_hubIflyE10Policy1000ELNS0_9SortOrderE0EflyiiNS1_21identity_decomposer_tEEEvPT5_SB_PT3_PKSC_PT1_PKSG_PT2_PKSK_T4_iiT6_"
#define K_SEGMENTED "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceSegmentedRadixSortKernelINS1_5radix10policy_hubIfliE10Policy1000ELb0ELNS0_9SortOrderE0EflN2at6native46_GLOBAL__N__e17e1519_13_SortStable_cu_f7bb90a18offset_tESC_iNS1_21identity_decomposer_tEEEvPKT2_PSE_PKT3_PSI_T4_T5_iiiT7_"
#define K_SCAN_I_L "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIilijN4cuda3std3__44plusIvEEE10Policy1000EPKiPlNS0_13ScanTileStateIiLb1EEES9_NS0_8NullTypeEjiLb0ESH_EEvT0_T1_T2_iT3_T4_T5_"
#define K_SELECT_UNIQUE "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIfNS0_8NullTypeEiLb0ELNS0_10SelectImplE0EE10Policy1000EPKfPS5_PfPlNS0_13ScanTileStateIiLb1EEES5_N4cuda3std3__48equal_toIvEEiNS2_19streaming_context_tIlLb1EEELS6_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE"
#define K_RADIX_INPLACE "_ZN2at6native18radixSortKVInPlaceILi2ELin1ELi32ELi32EfljEEvNS_4cuda6detail10TensorInfoIT3_T5_EES6_S6_S6_NS4_IT4_S6_EES6_b"

static void test_names(void)
{
    static const struct { const char *name, *op; } tab[] = {
        { K_RADIX_INPLACE, "sort_radix_inplace" },
        { "_ZN2at6native20bitonicSortKVInPlaceILi2ELin1ELi16ELi16EflNS0_4LTOpIfLb1EEEjEEvNS_4cuda6detail10TensorInfoIT3_T6_EES8_S8_S8_NS6_IT4_S8_EES8_T5_", "sort_bitonic" },
        { K_ONESWEEP, "radix_pass" },
        { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceRadixSortHistogramKernelINS1_5radix10policy_hubIflyE10Policy1000ELNS0_9SortOrderE0EfyNS1_21identity_decomposer_tEEEvPT2_PKT1_SA_iiT3_", "radix_counts" },
        { "_ZN14at_cuda_detail3cub6detail10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10policy_hubIlNS0_8NullTypeEyE10Policy1000ELNS0_9SortOrderE1ElS6_yNS1_21identity_decomposer_tEEEvPKT1_PSB_PKT2_PSF_T3_iiT4_", "radix_sort_tile" },
        { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceRadixSortDownsweepKernelINS1_5radix10policy_hubIhlyE10Policy1000ELb0ELNS0_9SortOrderE0EhlyNS1_21identity_decomposer_tEEEvPKT2_PSA_PKT3_PSE_PT4_SI_iiNS0_13GridEvenShareISI_EET5_", "radix_pass" },
        { K_SEGMENTED, "radix_pass_segmented" },
        { "_ZN2at6native46_GLOBAL__N__e17e1519_13_SortStable_cu_f7bb90a127fill_reverse_indices_kernelEPliNS_4cuda6detail10IntDividerIjEE", "sort_fill_index" },
        { "_ZN2at6native46_GLOBAL__N__e17e1519_13_SortStable_cu_f7bb90a123sort_postprocess_kernelIfEEvPKT_PS3_PlPK4int2ii", "sort_gather" },
        { "_ZN44_GLOBAL__N__fb1fc55b_11_Randperm_cu_4012db6537randperm_handle_duplicate_keys_kernelIlN2at6native44_GLOBAL__N__fb1fc55b_11_Randperm_cu_4012db6510OpaqueTypeILi1EEEEEvPT_PT0_S6_iNS1_15PhiloxCudaStateE", "randperm_ties" },
        { "_ZN2at6native25_assert_async_cuda_kernelIbEEvPKT_NS0_3MsgE", "assert_async" },
        { "_ZN14at_cuda_detail3cub6detail13unique_by_key28DeviceUniqueByKeySweepKernelINS2_10policy_hubIliE10Policy1000EPKlN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17counting_iteratorIiNSA_11use_defaultESC_SC_EEPlSE_SE_NS0_13ScanTileStateIyLb1EEEN4cuda3std3__48equal_toIvEEyNS2_11VSMemHelperEEEvT0_T1_T2_T3_T4_T5_T6_T7_iNS1_7vsmem_tE", "unique_by_key" },
        { "_ZN2at6native59_GLOBAL__N__4b0cc4ca_26_EmbeddingBackwardKernel_cu_5d1cf09b19compute_grad_weightIflEEvPKT0_PKT_S5_llS5_PKlPNS_14AccumulateTypeIS6_Lb1EE4typeEl", "embedding_segments" },
        { "_ZN2at6native43_GLOBAL__N__58383465_10_Sorting_cu_8150cb8f14gatherKthValueIfiLi1EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_S8_S8_NS5_IS6_S8_EENS5_IlS8_EE", "kthvalue" },
        { "_ZN2at6native6sbtopk10gatherTopKIfjLi1ELb0EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_bS8_S8_NS5_IS6_S8_EES8_NS5_IlS8_EES8_PS6_", "topk" },
        { "_ZN2at6native6mbtopk10gatherTopKIfjLi1EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_bjS8_NS5_IS6_S8_EES8_NS5_IlS8_EES8_jjPS6_PjSD_j", "topk" },
        { K_SCAN_I_L, "scan" },
        { K_SELECT_UNIQUE, "unique" },
        /* not this family's: the dense embedding backward, an elementwise fill */
        { "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a33embedding_backward_feature_kernelIfflEEvPKT1_PKT_PS6_ili", NULL },
        { "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_", NULL },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        void *cookie = NULL;
        int ok = F->match(tab[i].name, &cookie);
        if (!tab[i].op) {
            CHECK(!ok, "claims %.90s", tab[i].name);
            continue;
        }
        CHECK(ok, "does not claim %.90s", tab[i].name);
        if (ok)
            CHECK(strcmp(F->op_name(cookie), tab[i].op) == 0, "%.60s: op %s, want %s", tab[i].name,
                  F->op_name(cookie), tab[i].op);
    }
}

static tfl_status launch(const char *name, void **args, unsigned grid)
{
    void *cookie = NULL;
    if (!F->match(name, &cookie))
        return (tfl_status)-1;
    tfl_kcall c = { .name = name, .grid = { grid, 1, 1 }, .block = { 256, 1, 1 }, .args = args };
    char err[256] = "";
    return F->run(&c, cookie, err, sizeof err);
}

static void test_refusals(void)
{
    /* host memory that is not device memory: decoders must not touch it */
    static float keys_in[64], keys_out[64];
    static int64_t vals_in[64], vals_out[64];
    static unsigned long long bins[256];
    int *lookback = NULL, *ctrs = NULL;
    unsigned long long *bins_out = bins, *bins_in = bins;
    float *ko = keys_out;
    const float *ki = keys_in;
    int64_t *vo = vals_out;
    const int64_t *vi = vals_in;
    int n = 64, bit = 0, nb = 8;
    unsigned char dec = 0;
    void *args[] = { &lookback, &ctrs, &bins_out, &bins_in, &ko, &ki, &vo, &vi, &n, &bit, &nb, &dec };
    /* bins_out set: a portion of a multi-portion sort */
    CHECK(launch(K_ONESWEEP, args, 1) == TFL_ERR_UNSUPPORTED, "multi-portion onesweep refused");
    bins_out = NULL;
    CHECK(launch(K_ONESWEEP, args, 1) == TFL_ERR_DEVICE, "onesweep on non-device memory refused");
    nb = -1;
    CHECK(launch(K_ONESWEEP, args, 1) == TFL_ERR_UNSUPPORTED, "negative digit width refused");
    nb = 40;
    CHECK(launch(K_ONESWEEP, args, 1) == TFL_ERR_UNSUPPORTED, "bits past the key refused");

    /* segmented: offset_t {stride, begin} pairs */
    int32_t begin[2] = { 16, 0 }, end[2] = { 16, 1 }, segs = 4, sbit = 0, sbits = 6;
    const float *ski = keys_in;
    float *sko = keys_out;
    const int64_t *svi = vals_in;
    int64_t *svo = vals_out;
    void *sargs[] = { &ski, &sko, &svi, &svo, begin, end, &segs, &sbit, &sbits, &dec };
    CHECK(launch(K_SEGMENTED, sargs, 3) == TFL_ERR_UNSUPPORTED, "grid != segments refused");
    end[1] = 2;
    CHECK(launch(K_SEGMENTED, sargs, 4) == TFL_ERR_UNSUPPORTED, "overlapping segments refused");
    end[1] = 1;
    end[0] = 8;
    CHECK(launch(K_SEGMENTED, sargs, 4) == TFL_ERR_UNSUPPORTED, "begin/end strides differ refused");
    end[0] = 16;
    CHECK(launch(K_SEGMENTED, sargs, 4) == TFL_ERR_DEVICE, "segments on non-device memory refused");

    /* cub scan: only the launch with start_tile 0 is the whole scan */
    const int *in = (const int *)keys_in;
    int64_t *out = vals_out;
    void *tile = NULL;
    int start = 1;
    unsigned char op = 0, init = 0;
    unsigned items = 16;
    void *cargs[] = { &in, &out, &tile, &start, &op, &init, &items };
    CHECK(launch(K_SCAN_I_L, cargs, 1) == TFL_ERR_UNSUPPORTED, "later scan launch refused");
    start = 0;
    CHECK(launch(K_SCAN_I_L, cargs, 1) == TFL_ERR_DEVICE, "scan on non-device memory refused");

    /* DeviceSelect::Unique: one streaming partition only */
    const float *uin = keys_in;
    void *flags = NULL;
    float *uout = keys_out;
    int64_t *num = vals_out;
    int un = 64, tiles = 1;
    unsigned char ctx[40] = { 0 };
    int64_t total = 64, prev = 0;
    void *vsmem = NULL;
    void *uargs[] = { &uin, &flags, &uout, &num, &tile, &op, &op, &un, &tiles, ctx, &vsmem };
    ctx[0] = 1;               /* first, but not last */
    memcpy(ctx + 8, &total, 8);
    memcpy(ctx + 16, &prev, 8);
    CHECK(launch(K_SELECT_UNIQUE, uargs, 1) == TFL_ERR_UNSUPPORTED, "multi-partition select refused");
    ctx[1] = 1;
    CHECK(launch(K_SELECT_UNIQUE, uargs, 2) == TFL_ERR_UNSUPPORTED, "grid != tiles refused");
    CHECK(launch(K_SELECT_UNIQUE, uargs, 1) == TFL_ERR_DEVICE, "select on non-device memory refused");

    /* in-place slice sort (KeyDims 2: a 2-d TensorInfo) on non-device memory */
    unsigned char kinfo[216] = { 0 }, vinfo[216] = { 0 };
    void *kp = keys_in, *vp = vals_in;
    uint32_t one = 1, dims = 2, slices = 1, len = 64, stride = 1;
    memcpy(kinfo, &kp, 8);
    memcpy(vinfo, &vp, 8);
    for (int d = 0; d < 2; d++) {
        memcpy(kinfo + 8 + 4 * d, &one, 4);
        memcpy(kinfo + 108 + 4 * d, &one, 4);
        memcpy(vinfo + 8 + 4 * d, &one, 4);
        memcpy(vinfo + 108 + 4 * d, &one, 4);
    }
    memcpy(kinfo + 208, &dims, 4);
    memcpy(vinfo + 208, &dims, 4);
    unsigned char desc = 0;
    void *kvargs[] = { kinfo, &slices, &len, &stride, vinfo, &stride, &desc };
    CHECK(launch(K_RADIX_INPLACE, kvargs, 1) == TFL_ERR_DEVICE, "slice sort on non-device memory refused");
    dims = 1;
    memcpy(kinfo + 208, &dims, 4);
    CHECK(launch(K_RADIX_INPLACE, kvargs, 1) == TFL_ERR_UNSUPPORTED, "KeyDims 2 with a 1-d TensorInfo refused");
    dims = 0;
    memcpy(kinfo + 208, &dims, 4);
    CHECK(launch(K_RADIX_INPLACE, kvargs, 1) == TFL_ERR_UNSUPPORTED, "a TensorInfo without dims refused");
    CHECK(keys_out[0] == 0 && vals_out[0] == 0, "refused launches wrote nothing");
}

int main(void)
{
    test_names();
    test_refusals();
    printf("test_optable_sort: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

/*
 * test_optable_sort.c - the sort family's decoder against real torch 2.11
 * (and 2.14 / 2.15) kernel names: the parameter layout it states for each
 * (equal to the cubin's), which it claims (and what it refuses), the op
 * it reports,
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
#include "cubin_layouts.h"

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
    CHECK(launch(K_ONESWEEP, args, 1) == TFL_ERR_INVALID, "onesweep on non-device memory refused");
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
    CHECK(launch(K_SEGMENTED, sargs, 4) == TFL_ERR_INVALID, "segments on non-device memory refused");

    /* torch 2.15 (CCCL 3.2): no num_segments parameter - the grid is the
     * segment count; signed char keys */
    static const char seg15[] = "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceSegmentedRadixSortKernelINS1_5radix10policy_hubIaliE10Policy1000ELb0ELNS0_9SortOrderE0EalN2at6native46_GLOBAL__N__c76d7d8e_13_SortStable_cu_f7bb90a18offset_tESC_iNS1_21identity_decomposer_tEEEvPKT2_PSE_PKT3_PSI_T4_T5_iiT7_";
    const signed char *cki = (const signed char *)keys_in;
    signed char *cko = (signed char *)keys_out;
    void *sargs15[] = { &cki, &cko, &svi, &svo, begin, end, &sbit, &sbits, &dec };
    end[1] = 2;
    CHECK(launch(seg15, sargs15, 4) == TFL_ERR_UNSUPPORTED, "2.15: overlapping segments refused");
    end[1] = 1;
    CHECK(launch(seg15, sargs15, 4) == TFL_ERR_INVALID, "2.15: segments on non-device memory refused");
    sbits = 9;
    CHECK(launch(seg15, sargs15, 4) == TFL_ERR_UNSUPPORTED, "2.15: bits past an 8-bit key refused");
    sbits = 6;

    /* torch 2.15's run-length encode: only a single streaming partition */
    void *tile0 = NULL, *vsmem0 = NULL;
    unsigned char op0 = 0;
    static const char rle15[] = "_ZN14at_cuda_detail3cub6detail6reduce23DeviceReduceByKeyKernelINS1_3rle6encode10policy_hubIlaE10Policy1000EPKaPaN6thrust38_V_300200_SM_750_800_860_900_1000_120017constant_iteratorIllNSD_11use_defaultEEEPlSH_NS0_24ReduceByKeyScanTileStateIliLb1EEEN4cuda3std3__48equal_toIvEENSM_4plusIvEEilNS2_17streaming_contextISA_llEEEEvT0_T1_T2_T3_T4_T5_iT6_T7_T8_T10_NS1_7vsmem_tE";
    const signed char *rk = (const signed char *)keys_in;
    signed char *ru = (signed char *)keys_out;
    unsigned char cit[16] = { 0 }, rctx[48] = { 0 };
    int64_t *counts = vals_out, *nruns = vals_out + 32;
    int rstart = 0, rn = 64;
    void *rargs[] = { &rk, &ru, cit, &counts, &nruns, &tile0, &rstart, &op0, &op0, &rn, rctx, &vsmem0 };
    rctx[0] = 1;              /* first, but not last */
    CHECK(launch(rle15, rargs, 1) == TFL_ERR_UNSUPPORTED, "2.15: multi-partition encode refused");
    rctx[1] = 1;
    CHECK(launch(rle15, rargs, 1) == TFL_ERR_INVALID, "2.15: encode on non-device memory refused");

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
    CHECK(launch(K_SCAN_I_L, cargs, 1) == TFL_ERR_INVALID, "scan on non-device memory refused");

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
    CHECK(launch(K_SELECT_UNIQUE, uargs, 1) == TFL_ERR_INVALID, "select on non-device memory refused");

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
    CHECK(launch(K_RADIX_INPLACE, kvargs, 1) == TFL_ERR_INVALID, "slice sort on non-device memory refused");
    dims = 1;
    memcpy(kinfo + 208, &dims, 4);
    CHECK(launch(K_RADIX_INPLACE, kvargs, 1) == TFL_ERR_UNSUPPORTED, "KeyDims 2 with a 1-d TensorInfo refused");
    dims = 0;
    memcpy(kinfo + 208, &dims, 4);
    CHECK(launch(K_RADIX_INPLACE, kvargs, 1) == TFL_ERR_UNSUPPORTED, "a TensorInfo without dims refused");
    CHECK(keys_out[0] == 0 && vals_out[0] == 0, "refused launches wrote nothing");
}

/* Real kernel names of the torch 2.11, 2.14 and 2.15 wheels (one per kind
 * and parameter layout; the later releases' where the layout or the name's
 * structure changed, and a few more to show other namespace hashes are
 * recognised) with their parameter layouts (offset:size) as the sm_80
 * cubins record them (scripts/wheel_kernels.py): what the decoder states
 * with layout() must be exactly that. */
static const cubin_layout cubin[] = {
    { "_ZN14at_cuda_detail3cub6detail10radix_sort29DeviceRadixSortOnesweepKernelINS1_5radix10policy_hubIffyE10Policy1000ELNS0_9SortOrderE0EffyiiNS1_21identity_decomposer_tEEEvPT5_SB_PT3_PKSC_PT1_PKSG_PT2_PKSK_T4_iiT6_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:4 68:4 72:4 76:1" },  /* 2.11.0 radix_pass: DeviceRadixSortOnesweepKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceRadixSortHistogramKernelINS1_5radix10policy_hubIffyE10Policy1000ELNS0_9SortOrderE0EfyNS1_21identity_decomposer_tEEEvPT2_PKT1_SA_iiT3_",
      "0:8 8:8 16:8 24:4 28:4 32:1" },  /* 2.11.0 radix_counts: DeviceRadixSortHistogramKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10policy_hubIffyE10Policy1000ELNS0_9SortOrderE0EffyNS1_21identity_decomposer_tEEEvPKT1_PSA_PKT2_PSE_T3_iiT4_",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:1" },  /* 2.11.0 radix_sort_tile: DeviceRadixSortSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort33DeviceRadixSortExclusiveSumKernelINS1_5radix10policy_hubIffyE10Policy1000EyEEvPT0_",
      "0:8" },  /* 2.11.0 radix_counts: DeviceRadixSortExclusiveSumKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceRadixSortDownsweepKernelINS1_5radix10policy_hubIssyE10Policy1000ELb1ELNS0_9SortOrderE0EssyNS1_21identity_decomposer_tEEEvPKT2_PSA_PKT3_PSE_PT4_SI_iiNS0_13GridEvenShareISI_EET5_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4 52:4 56:72 128:1" },  /* 2.11.0 radix_pass: DeviceRadixSortDownsweepKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort28DeviceRadixSortUpsweepKernelINS1_5radix10policy_hubIssyE10Policy1000ELb1ELNS0_9SortOrderE0EsyNS1_21identity_decomposer_tEEEvPKT2_PT3_SD_iiNS0_13GridEvenShareISD_EET4_",
      "0:8 8:8 16:8 24:4 28:4 32:72 104:1" },  /* 2.11.0 radix_counts: DeviceRadixSortUpsweepKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort23RadixSortScanBinsKernelINS1_5radix10policy_hubIssyE10Policy1000EyEEvPT0_i",
      "0:8 8:4" },  /* 2.11.0 radix_counts: RadixSortScanBinsKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIilijN4cuda3std3__44plusIvEEE10Policy1000EPKiPlNS0_13ScanTileStateIiLb1EEES9_NS1_10InputValueIiPiEEjiLb0EiEEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 32:16 48:4" },  /* 2.11.0 scan: DeviceScanKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIilijN4cuda3std3__44plusIvEEE10Policy1000EPKiPlNS0_13ScanTileStateIiLb1EEES9_NS0_8NullTypeEjiLb0ESH_EEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 29:1 32:4" },  /* 2.11.0 scan: DeviceScanKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIN3c104HalfELb0EEEEEvT_i",
      "0:24 24:4" },  /* 2.11.0 scan_init: DeviceScanInitKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIsLb1EEEEEvT_i",
      "0:8 8:4" },  /* 2.11.0 scan_init: DeviceScanInitKernel */
    { "_ZN14at_cuda_detail3cub6detail11scan_by_key21DeviceScanByKeyKernelINS2_10policy_hubIN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS16reverse_iteratorIPKlEEllN4cuda3__47maximumIvEEE10Policy1000ESA_SA_NS7_IPlEENS0_24ReduceByKeyScanTileStateIliLb1EEENSB_3std3__48equal_toIvEESE_NS0_8NullTypeEyllEEvT0_PT9_T1_T2_T3_iT4_T5_T6_T7_",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:1 45:1 46:1 48:8" },  /* 2.11.0 scan_by_key: DeviceScanByKeyKernel */
    { "_ZN14at_cuda_detail3cub6detail11scan_by_key25DeviceScanByKeyInitKernelINS0_24ReduceByKeyScanTileStateIliLb1EEEPKlyEEvT_T0_PN4cuda3std3__415iterator_traitsIS9_vE10value_typeET1_i",
      "0:8 8:8 16:8 24:8 32:4" },  /* 2.11.0 scan_init: DeviceScanByKeyInitKernel */
    { "_ZN14at_cuda_detail3cub6detail11scan_by_key21DeviceScanByKeyKernelINS2_10policy_hubIPKlllN4cuda3std3__44plusIvEEE10Policy1000ES6_N6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17constant_iteratorIlNSF_11use_defaultESH_EEPlNS0_24ReduceByKeyScanTileStateIliLb1EEENS9_8equal_toIvEESB_NS0_8NullTypeEyllEEvT0_PT9_T1_T2_T3_iT4_T5_T6_T7_",
      "0:8 8:8 16:16 32:8 40:8 48:4 52:1 53:1 54:1 56:8" },  /* 2.11.0 scan_by_key: DeviceScanByKeyKernel */
    { "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIiNS0_8NullTypeEiLb0ELNS0_10SelectImplE0EE10Policy1000EPKiPS5_PiPlNS0_13ScanTileStateIiLb1EEES5_N4cuda3std3__48equal_toIvEEiNS2_19streaming_context_tIlLb1EEELS6_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE",
      "0:8 8:8 16:8 24:8 32:8 40:1 41:1 44:4 48:4 56:40 96:8" },  /* 2.11.0 unique: DeviceSelectSweepKernel */
    { "_ZN14at_cuda_detail3cub6detail13unique_by_key28DeviceUniqueByKeySweepKernelINS2_10policy_hubIiiE10Policy1000EPKiN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17counting_iteratorIiNSA_11use_defaultESC_SC_EEPiSE_PlNS0_13ScanTileStateIyLb1EEEN4cuda3std3__48equal_toIvEEyNS2_11VSMemHelperEEEvT0_T1_T2_T3_T4_T5_T6_T7_iNS1_7vsmem_tE",
      "0:8 8:4 16:8 24:8 32:8 40:8 48:1 56:8 64:4 72:8" },  /* 2.11.0 unique_by_key: DeviceUniqueByKeySweepKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan23DeviceCompactInitKernelINS0_13ScanTileStateIyLb1EEEPlEEvT_iT0_",
      "0:8 8:4 16:8" },  /* 2.11.0 scan_init: DeviceCompactInitKernel */
    { "_ZN2at6native59_GLOBAL__N__4b0cc4ca_26_EmbeddingBackwardKernel_cu_5d1cf09b15sum_and_scatterIflEEvPKT0_PT_lS5_PKlPKNS_14AccumulateTypeIS6_Lb1EE4typeES5_S9_ll",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8" },  /* 2.11.0 embedding_segments:  */
    { "_ZN2at6native59_GLOBAL__N__4b0cc4ca_26_EmbeddingBackwardKernel_cu_5d1cf09b19compute_grad_weightIflEEvPKT0_PKT_S5_llS5_PKlPNS_14AccumulateTypeIS6_Lb1EE4typeEl",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8" },  /* 2.11.0 embedding_segments:  */
    { "_ZN2at6native59_GLOBAL__N__4b0cc4ca_26_EmbeddingBackwardKernel_cu_5d1cf09b26krn_partial_segment_offsetIlEEvPT_PKS3_S6_S6_PKl",
      "0:8 8:8 16:8 24:8 32:8" },  /* 2.11.0 embedding_segments:  */
    { "_ZN2at6native59_GLOBAL__N__4b0cc4ca_26_EmbeddingBackwardKernel_cu_5d1cf09b24krn_partials_per_segmentIlEEvPT_PKS3_PKll",
      "0:8 8:8 16:8 24:8" },  /* 2.11.0 embedding_segments:  */
    { "_ZN44_GLOBAL__N__fb1fc55b_11_Randperm_cu_4012db6537randperm_handle_duplicate_keys_kernelIlN2at6native44_GLOBAL__N__fb1fc55b_11_Randperm_cu_4012db6510OpaqueTypeILi2EEEEEvPT_PT0_S6_iNS1_15PhiloxCudaStateE",
      "0:8 8:8 16:8 24:4 32:32" },  /* 2.11.0 randperm_ties:  */
    { "_ZN44_GLOBAL__N__fb1fc55b_11_Randperm_cu_4012db6537randperm_handle_duplicate_keys_kernelIiN2at6native44_GLOBAL__N__fb1fc55b_11_Randperm_cu_4012db6510OpaqueTypeILi2EEEEEvPT_PT0_S6_iNS1_15PhiloxCudaStateE",
      "0:8 8:8 16:4 20:4 24:32" },  /* 2.11.0 randperm_ties:  */
    { "_ZN2at6native18radixSortKVInPlaceILi2ELin1ELi16ELi2EbljEEvNS_4cuda6detail10TensorInfoIT3_T5_EES6_S6_S6_NS4_IT4_S6_EES6_b",
      "0:216 216:4 220:4 224:4 232:216 448:4 452:1" },  /* 2.11.0 sort_radix_inplace: radixSortKVInPlace */
    { "_ZN2at6native20bitonicSortKVInPlaceILi2ELin1ELi16ELi16EblNS0_4GTOpIbLb1EEEjEEvNS_4cuda6detail10TensorInfoIT3_T6_EES8_S8_S8_NS6_IT4_S8_EES8_T5_",
      "0:216 216:4 220:4 224:4 232:216 448:4 452:1" },  /* 2.11.0 sort_bitonic: bitonicSortKVInPlace */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceSegmentedRadixSortKernelINS1_5radix10policy_hubIbliE10Policy1000ELb1ELNS0_9SortOrderE0EblN2at6native46_GLOBAL__N__e17e1519_13_SortStable_cu_f7bb90a18offset_tESC_iNS1_21identity_decomposer_tEEEvPKT2_PSE_PKT3_PSI_T4_T5_iiiT7_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4 52:4 56:4 60:1" },  /* 2.11.0 radix_pass_segmented: DeviceSegmentedRadixSortKernel */
    { "_ZN2at6native46_GLOBAL__N__e17e1519_13_SortStable_cu_f7bb90a123sort_postprocess_kernelIbEEvPKT_PS3_PlPK4int2ii",
      "0:8 8:8 16:8 24:8 32:4 36:4" },  /* 2.11.0 sort_gather:  */
    { "_ZN2at6native46_GLOBAL__N__e17e1519_13_SortStable_cu_f7bb90a127fill_reverse_indices_kernelEPliNS_4cuda6detail10IntDividerIjEE",
      "0:8 8:4 12:12" },  /* 2.11.0 sort_fill_index:  */
    { "_ZN2at6native43_GLOBAL__N__58383465_10_Sorting_cu_8150cb8f12gatherMedianIfmLi3EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS5_IlS7_EENS5_IKS6_S7_EES7_S7_S7_b",
      "0:416 416:416 832:416 1248:8 1256:8 1264:8 1272:1" },  /* 2.11.0 median:  */
    { "_ZN2at6native43_GLOBAL__N__58383465_10_Sorting_cu_8150cb8f12gatherMedianIfjLi3EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS5_IlS7_EENS5_IKS6_S7_EES7_S7_S7_b",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:1" },  /* 2.11.0 median:  */
    { "_ZN2at6native43_GLOBAL__N__58383465_10_Sorting_cu_8150cb8f14gatherKthValueIflLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_S8_S8_NS5_IS6_S8_EENS5_IlS8_EE",
      "0:416 416:8 424:8 432:8 440:8 448:416 864:416" },  /* 2.11.0 kthvalue:  */
    { "_ZN2at6native43_GLOBAL__N__58383465_10_Sorting_cu_8150cb8f14gatherKthValueIfiLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_S8_S8_NS5_IS6_S8_EENS5_IlS8_EE",
      "0:216 216:4 220:4 224:4 228:4 232:216 448:216" },  /* 2.11.0 kthvalue:  */
    { "_ZN2at6native25_assert_async_cuda_kernelIbEEvPKT_NS0_3MsgE",
      "0:8 8:256" },  /* 2.11.0 assert_async: _assert_async_cuda_kernel */
    { "_ZN2at6native12compute_modeIbLj128EEEvPKT_NS_4cuda6detail10TensorInfoIS2_jEENS7_IljEEll",
      "0:8 8:216 224:216 440:8 448:8" },  /* 2.11.0 mode: compute_mode */
    { "_ZN14at_cuda_detail3cub6detail11scan_by_key21DeviceScanByKeyKernelINS2_10policy_hubIN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native6mbtopk13BlockIdxToKeyENS6_17counting_iteratorIjjNS6_11use_defaultESD_EESD_SD_EEjjN4cuda3std3__44plusIvEEE10Policy1000ESF_PjSN_NS0_24ReduceByKeyScanTileStateIjiLb1EEENSI_8equal_toIvEESK_NS0_8NullTypeEyjjEEvT0_PT9_T1_T2_T3_iT4_T5_T6_T7_",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:1 45:1 46:1 48:8" },  /* 2.11.0 topk_counts: DeviceScanByKeyKernel */
    { "_ZN14at_cuda_detail3cub6detail11scan_by_key25DeviceScanByKeyInitKernelINS0_24ReduceByKeyScanTileStateIjiLb1EEEN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native6mbtopk13BlockIdxToKeyENS7_17counting_iteratorIjjNS7_11use_defaultESE_EESE_SE_EEyEEvT_T0_PN4cuda3std3__415iterator_traitsISI_vE10value_typeET1_i",
      "0:8 8:8 16:8 24:8 32:4" },  /* 2.11.0 topk_counts: DeviceScanByKeyInitKernel */
    { "_ZN2at6native6mbtopk10gatherTopKIfmLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_bjS8_NS5_IS6_S8_EES8_NS5_IlS8_EES8_jjPS6_PjSD_j",
      "0:416 416:8 424:8 432:1 436:4 440:8 448:416 864:8 872:416 1288:8 1296:4 1300:4 1304:8 1312:8 1320:8 1328:4" },  /* 2.11.0 topk: gatherTopK */
    { "_ZN2at6native6mbtopk23computeBlockDigitCountsIfmjLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EEjPjjS8_iijT1_PSB_Ps",
      "0:416 416:4 424:8 432:4 440:8 448:4 452:4 456:4 460:4 464:8 472:8" },  /* 2.11.0 topk_counts: computeBlockDigitCounts */
    { "_ZN2at6native6mbtopk23computeBlockDigitCountsIdmmLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EEjPjjS8_iijT1_PSB_Ps",
      "0:416 416:4 424:8 432:4 440:8 448:4 452:4 456:4 464:8 472:8 480:8" },  /* 2.11.0 topk_counts: computeBlockDigitCounts */
    { "_ZN2at6native6mbtopk10gatherTopKIfjLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_bjS8_NS5_IS6_S8_EES8_NS5_IlS8_EES8_jjPS6_PjSD_j",
      "0:216 216:4 220:4 224:1 228:4 232:4 240:216 456:4 464:216 680:4 684:4 688:4 696:8 704:8 712:8 720:4" },  /* 2.11.0 topk: gatherTopK */
    { "_ZN2at6native6mbtopk23computeBlockDigitCountsIfjjLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EEjPjjS8_iijT1_PSB_Ps",
      "0:216 216:4 224:8 232:4 236:4 240:4 244:4 248:4 252:4 256:8 264:8" },  /* 2.11.0 topk_counts: computeBlockDigitCounts */
    { "_ZN2at6native6mbtopk29computeBlockwiseWithinKCountsIjfEEvPT_PsPjS6_jibS6_PT0_S6_S4_j",
      "0:8 8:8 16:8 24:8 32:4 36:4 40:1 48:8 56:8 64:8 72:8 80:4" },  /* 2.11.0 topk_counts: computeBlockwiseWithinKCounts */
    { "_ZN2at6native6mbtopk23computeBlockDigitCountsIdjmLi3EEEvNS_4cuda6detail10TensorInfoIKT_T0_EEjPjjS8_iijT1_PSB_Ps",
      "0:216 216:4 224:8 232:4 236:4 240:4 244:4 248:4 256:8 264:8 272:8" },  /* 2.11.0 topk_counts: computeBlockDigitCounts */
    { "_ZN2at6native6mbtopk25computeBlockwiseKthCountsImEEvPT_PsjjPj",
      "0:8 8:8 16:4 20:4 24:8" },  /* 2.11.0 topk_counts: computeBlockwiseKthCounts */
    { "_ZN2at6native6mbtopk4fillIjjEEvPT_S3_T0_",
      "0:8 8:4 12:4" },  /* 2.11.0 topk_counts: fill */
    { "_ZN2at6native6mbtopk18computeDigitCumSumEPsPjj",
      "0:8 8:8 16:4" },  /* 2.11.0 topk_counts: computeDigitCumSum */
    { "_ZN2at6native6sbtopk10gatherTopKIfmLi3ELb0EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_bS8_S8_NS5_IS6_S8_EES8_NS5_IlS8_EES8_PS6_",
      "0:416 416:8 424:8 432:1 440:8 448:8 456:416 872:8 880:416 1296:8 1304:8" },  /* 2.11.0 topk: gatherTopK */
    { "_ZN2at6native6sbtopk10gatherTopKIfjLi3ELb0EEEvNS_4cuda6detail10TensorInfoIKT_T0_EES8_S8_bS8_S8_NS5_IS6_S8_EES8_NS5_IlS8_EES8_PS6_",
      "0:216 216:4 220:4 224:1 228:4 232:4 240:216 456:4 464:216 680:4 688:8" },  /* 2.11.0 topk: gatherTopK */
    { "_ZN14at_cuda_detail3cub6detail6reduce23DeviceReduceByKeyKernelINS1_3rle6encode10policy_hubIltE10Policy1000EPKtPtN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17constant_iteratorIliNSD_11use_defaultEEEPlSH_NS0_24ReduceByKeyScanTileStateIliLb1EEEN4cuda3std3__48equal_toIvEENSM_4plusIvEEilEEvT0_T1_T2_T3_T4_T5_iT6_T7_T8_",
      "0:8 8:8 16:16 32:8 40:8 48:8 56:4 60:1 61:1 64:4" },  /* 2.11.0 unique_counts: DeviceReduceByKeyKernel */
    { "_ZN2at6native8internal45_GLOBAL__N__8f8ab667_12_UniqueCub_cu_fdb07b4126adjacent_difference_kernelIPKtEEvlT_Pi",
      "0:8 8:8 16:8" },  /* 2.11.0 unique_run_starts:  */
    { "_ZN2at6native8internal45_GLOBAL__N__8f8ab667_12_UniqueCub_cu_fdb07b4114scatter_kernelElPKlS4_Pl",
      "0:8 8:8 16:8 24:8" },  /* 2.11.0 unique_scatter:  */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIlllmN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS10device_ptrIlEESF_NS0_13ScanTileStateIlLb1EEES9_NS1_10InputValueIlPlEEmlLb0ElEEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 32:16 48:8" },  /* 2.11.0 scan: DeviceScanKernel */
    { "_ZN14at_cuda_detail3cub6detail13unique_by_key28DeviceUniqueByKeySweepKernelINS2_10policy_hubIllE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS10device_ptrIlEESA_SA_SA_PmNS0_13ScanTileStateIyLb1EEEN4cuda3std3__48equal_toIlEEyNS2_11VSMemHelperEEEvT0_T1_T2_T3_T4_T5_T6_T7_iNS1_7vsmem_tE",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:1 56:8 64:4 72:8" },  /* 2.11.0 unique_by_key: DeviceUniqueByKeySweepKernel */
    { "_ZN14at_cuda_detail3cub6detail13unique_by_key28DeviceUniqueByKeySweepKernelINS2_10policy_hubIllE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS10device_ptrIlEESA_SA_SA_PjNS0_13ScanTileStateIjLb1EEEN4cuda3std3__48equal_toIlEEjNS2_11VSMemHelperEEEvT0_T1_T2_T3_T4_T5_T6_T7_iNS1_7vsmem_tE",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:1 52:4 56:4 64:8" },  /* 2.11.0 unique_by_key: DeviceUniqueByKeySweepKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIlllmN4cuda3std3__44plusIvEEE10Policy1000EPlSC_NS0_13ScanTileStateIlLb1EEES9_NS0_8NullTypeEmlLb0ESF_EEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 29:1 32:8" },  /* 2.11.0 scan: DeviceScanKernel */
    { "_ZN14at_cuda_detail3cub6detail11scan_by_key25DeviceScanByKeyInitKernelINS0_24ReduceByKeyScanTileStateIliLb1EEEPKlyEEvT_T0_PN4cuda3std3__415iterator_traitsIS9_E10value_typeET1_i",
      "0:8 8:8 16:8 24:8 32:4" },  /* 2.14.1 scan_init: DeviceScanByKeyInitKernel */
    { "_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackwardKernel_cu_5d1cf09b15sum_and_scatterIflEEvPKT0_PT_lS5_PKlPKNS_14AccumulateTypeIS6_Lb1EE4typeES5_S9_ll",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8" },  /* 2.14.1 embedding_segments:  */
    { "_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackwardKernel_cu_5d1cf09b19compute_grad_weightIflEEvPKT0_PKT_S5_llS5_PKlPNS_14AccumulateTypeIS6_Lb1EE4typeEl",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8" },  /* 2.14.1 embedding_segments:  */
    { "_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackwardKernel_cu_5d1cf09b26krn_partial_segment_offsetIlEEvPT_PKS3_S6_S6_PKl",
      "0:8 8:8 16:8 24:8 32:8" },  /* 2.14.1 embedding_segments:  */
    { "_ZN2at6native22warpMergeSortKVInPlaceILi2ELin1ELi128ELi16EblNS0_4GTOpIbLb1EEEjLi32EEEvNS_4cuda6detail10TensorInfoIT3_T6_EES8_S8_S8_NS6_IT4_S8_EES8_T5_S7_",
      "0:216 216:4 220:4 224:4 232:216 448:4 452:1 453:1" },  /* 2.14.1 sort_warp_merge: warpMergeSortKVInPlace */
    { "_ZN2at6native22warpMergeSortKVInPlaceILi2ELin1ELi128ELi16EslNS0_4GTOpIsLb1EEEjLi32EEEvNS_4cuda6detail10TensorInfoIT3_T6_EES8_S8_S8_NS6_IT4_S8_EES8_T5_S7_",
      "0:216 216:4 220:4 224:4 232:216 448:4 452:1 454:2" },  /* 2.14.1 sort_warp_merge: warpMergeSortKVInPlace */
    { "_ZN2at6native22warpMergeSortKVInPlaceILi2ELin1ELi128ELi16EflNS0_4GTOpIfLb1EEEjLi32EEEvNS_4cuda6detail10TensorInfoIT3_T6_EES8_S8_S8_NS6_IT4_S8_EES8_T5_S7_",
      "0:216 216:4 220:4 224:4 232:216 448:4 452:1 456:4" },  /* 2.14.1 sort_warp_merge: warpMergeSortKVInPlace */
    { "_ZN2at6native22warpMergeSortKVInPlaceILi2ELin1ELi128ELi16EdlNS0_4GTOpIdLb1EEEjLi32EEEvNS_4cuda6detail10TensorInfoIT3_T6_EES8_S8_S8_NS6_IT4_S8_EES8_T5_S7_",
      "0:216 216:4 220:4 224:4 232:216 448:4 452:1 456:8" },  /* 2.14.1 sort_warp_merge: warpMergeSortKVInPlace */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort29DeviceRadixSortOnesweepKernelINS1_5radix10policy_hubIflyE10Policy1000ELNS0_9SortOrderE0EflyiiNS1_21identity_decomposer_tEEEvPT5_SB_PT3_PKSC_PT1_PKSG_PT2_PKSK_T4_iiT6_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:4 68:4 72:4 76:1" },  /* 2.15.0 radix_pass: DeviceRadixSortOnesweepKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceRadixSortHistogramKernelINS1_5radix10policy_hubIflyE10Policy1000ELNS0_9SortOrderE0EfyNS1_21identity_decomposer_tEEEvPT2_PKT1_SA_iiT3_",
      "0:8 8:8 16:8 24:4 28:4 32:1" },  /* 2.15.0 radix_counts: DeviceRadixSortHistogramKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10policy_hubIflyE10Policy1000ELNS0_9SortOrderE0EflyNS1_21identity_decomposer_tEEEvPKT1_PSA_PKT2_PSE_T3_iiT4_",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:1" },  /* 2.15.0 radix_sort_tile: DeviceRadixSortSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort33DeviceRadixSortExclusiveSumKernelINS1_5radix10policy_hubIflyE10Policy1000EyEEvPT0_",
      "0:8" },  /* 2.15.0 radix_counts: DeviceRadixSortExclusiveSumKernel */
    { "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceSegmentedRadixSortKernelINS1_5radix10policy_hubIbliE10Policy1000ELb1ELNS0_9SortOrderE0EblN2at6native46_GLOBAL__N__c76d7d8e_13_SortStable_cu_f7bb90a18offset_tESC_iNS1_21identity_decomposer_tEEEvPKT2_PSE_PKT3_PSI_T4_T5_iiT7_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4 52:4 56:1" },  /* 2.15.0 radix_pass_segmented: DeviceSegmentedRadixSortKernel */
    { "_ZN14at_cuda_detail3cub6detail6reduce23DeviceReduceByKeyKernelINS1_3rle6encode10policy_hubIltE10Policy1000EPKtPtN6thrust38_V_300200_SM_750_800_860_900_1000_120017constant_iteratorIllNSD_11use_defaultEEEPlSH_NS0_24ReduceByKeyScanTileStateIliLb1EEEN4cuda3std3__48equal_toIvEENSM_4plusIvEEilNS2_17streaming_contextISA_llEEEEvT0_T1_T2_T3_T4_T5_iT6_T7_T8_T10_NS1_7vsmem_tE",
      "0:8 8:8 16:16 32:8 40:8 48:8 56:4 60:1 61:1 64:4 72:48 120:8" },  /* 2.15.0 unique_counts: DeviceReduceByKeyKernel */
};

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_sort, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    test_names();
    test_refusals();
    printf("test_optable_sort: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

/*
 * test_optable_scan.c - the scan family's decoder against real torch 2.11
 * (and 2.14 / 2.15) kernel names: the parameter layout it states for each
 * (equal to the cubin's), which it claims (and refuses), the op it
 * reports, and
 * that launches it cannot prove it understands are refused
 * (TFL_ERR_UNSUPPORTED: a second cub scan tile range, a partitioned
 * DeviceSelect, nonzero_static's write_indices) and operands outside
 * device memory give TFL_ERR_INVALID before anything runs.  The decode-
 * and-run path is covered end to end by tests/pytorch/cuda/test_scan.py.
 */
#include <stdio.h>
#include <string.h>

#include "route/optable.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static const tfl_kfamily *const F = &tfl_kfamily_scan;

#define K_OUTER_F32_ADD "_ZN2at6native28tensor_kernel_scan_outer_dimIfjSt4plusIfEEEvPT_PKS4_jjjS4_T1_"
#define K_CUB_SCAN_F32 "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIfffjSt4plusIfEE10Policy1000EPKfPfNS0_13ScanTileStateIfLb1EEES6_NS0_8NullTypeEjfLb0ESE_EEvT0_T1_T2_iT3_T4_T5_"
#define K_SELECT_C64 "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIlbiLb0ELNS0_10SelectImplE0EE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17counting_iteratorIlNS9_11use_defaultESB_SB_EENS9_18transform_iteratorIN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa09NonZeroOpIN3c107complexIfEEEEPKSK_SB_SB_EEPlPiNS0_13ScanTileStateIiLb1EEENS0_8NullTypeEST_iNS2_19streaming_context_tIlLb1EEELS5_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE"
#define K_UNRAVEL "_ZN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa013write_indicesIlEEvPlNS1_10TensorDimsIT_EEiS5_S3_l"

static void test_names(void)
{
    static const struct { const char *name, *op; } tab[] = {
        { K_OUTER_F32_ADD, "cumsum" },
        { "_ZN2at6native28tensor_kernel_scan_outer_dimIlmSt10multipliesIlEEEvPT_PKS4_jjjS4_T1_", "cumprod" },
        { "_ZN2at6native32tensor_kernel_scan_innermost_dimIdSt4plusIdEEEvPT_PKS4_jjjS4_T0_", "cumsum" },
        { "_ZN2at6native32tensor_kernel_scan_innermost_dimIfZZZNS0_31launch_logcumsumexp_cuda_kernelERKNS_10TensorBaseES4_lENKUlvE_clEvENKUlvE0_clEvEUlffE_EEvPT_PKS8_jjjS8_T0_", "logcumsumexp" },
        { "_ZN2at6native41tensor_kernel_scan_outer_dim_with_indicesIfSt13greater_equalIfEEEvPKT_PS4_PljjjS4_T0_", "cummax" },
        { "_ZN2at6native45tensor_kernel_scan_innermost_dim_with_indicesIiSt10less_equalIiEEEvPKT_PS4_PliijjS4_T0_", "cummin" },
        { K_CUB_SCAN_F32, "cumsum" },
        { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIllljSt10multipliesIlEE10Policy1000EPKlPlNS0_13ScanTileStateIlLb1EEES6_NS0_8NullTypeEjlLb0ESE_EEvT0_T1_T2_iT3_T4_T5_", "cumprod" },
        { "_ZN14at_cuda_detail3cub6detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIdLb1EEEEEvT_i", "cub_scan_init" },
        { "_ZN14at_cuda_detail3cub6detail4scan23DeviceCompactInitKernelINS0_13ScanTileStateIiLb1EEEPiEEvT_iT0_", "cub_compact_init" },
        { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa09NonZeroOpIfEEPKfNSD_11use_defaultESM_EEPiyS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_", "nonzero_count" },
        { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EPiSC_iS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_", "nonzero_count" },
        { "_ZN14at_cuda_detail3cub6detail6reduce18DeviceReduceKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEyS9_iNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISS_EET2_T4_", "nonzero_count" },
        { K_SELECT_C64, "nonzero_select" },
        { K_UNRAVEL, "nonzero_unravel" },
        /* refused: half scans, a cub scan seeded by an InputValue (the
         * >2^31-element chunked form), Half tile state, a zip_function
         * count (not nonzero's), a DeviceSelect::Unique sweep */
        { "_ZN2at6native32tensor_kernel_scan_innermost_dimIN3c104HalfESt4plusIS3_EEEvPT_PKS6_jjjS6_T0_", NULL },
        { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIfffjSt4plusIfEE10Policy1000EPKfPfNS0_13ScanTileStateIfLb1EEES6_NS1_10InputValueIfSB_EEjfLb0EfEEvT0_T1_T2_iT3_T4_T5_", NULL },
        { "_ZN14at_cuda_detail3cub6detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIN3c104HalfELb0EEEEEvT_i", NULL },
        { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIiEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorINSD_12zip_functionINS7_12not_equal_toIfEEEENSD_12zip_iteratorINS7_5tupleIJPfSL_EEEEENSD_11use_defaultESO_EEPiyS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_", NULL },
        { "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIfNS0_8NullTypeEiLb0ELNS0_10SelectImplE0EE10Policy1000EPKfPS5_PfPlNS0_13ScanTileStateIiLb1EEES5_N4cuda3std3__48equal_toIvEEiNS2_19streaming_context_tIlLb1EEELS6_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE", NULL },
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
            CHECK(strcmp(F->op_name(cookie), tab[i].op) == 0, "%s: op %s, want %s", tab[i].name,
                  F->op_name(cookie), tab[i].op);
    }
}

static tfl_status launch(const char *name, void **args, unsigned grid, unsigned block)
{
    void *cookie = NULL;
    if (!F->match(name, &cookie))
        return (tfl_status)-1;
    tfl_kcall c = { .name = name, .grid = { grid, 1, 1 }, .block = { block, 1, 1 }, .args = args };
    char err[256] = "";
    return F->run(&c, cookie, err, sizeof err);
}

static void test_refusals(void)
{
    float host_buf[64];
    /* an outer-dim scan over host memory: not device memory */
    void *dst = host_buf, *src = host_buf + 32;
    uint32_t orows = 2, irows = 4, len = 3;
    float init = 0;
    char fnbyte = 0;
    void *a_outer[] = { &dst, &src, &orows, &irows, &len, &init, &fnbyte };
    CHECK(launch(K_OUTER_F32_ADD, a_outer, 2, 4) == TFL_ERR_INVALID, "host pointers refused");
    /* nothing to do is fine even with bad pointers */
    len = 0;
    CHECK(launch(K_OUTER_F32_ADD, a_outer, 2, 4) == TFL_OK, "empty scan is a no-op");

    /* cub scan: a launch for a later tile range is not the whole scan */
    char ts[8] = { 0 }, nul = 0;
    int32_t start_tile = 5;
    uint32_t n = 10;
    void *a_scan[] = { &src, &dst, ts, &start_tile, &fnbyte, &nul, &n };
    CHECK(launch(K_CUB_SCAN_F32, a_scan, 1, 128) == TFL_ERR_UNSUPPORTED, "start_tile != 0 refused");
    start_tile = 0;
    CHECK(launch(K_CUB_SCAN_F32, a_scan, 1, 128) == TFL_ERR_INVALID, "host pointers refused");

    /* DeviceSelect: only the single-partition streaming context */
    int64_t base = 0, out_p = 0, cnt_p = 0;
    char flags_it[16] = { 0 };
    int32_t items = 10, tiles = 1;
    unsigned char ctx[40] = { 0 };
    int64_t total = 10;
    ctx[0] = 1;                     /* first partition */
    ctx[1] = 0;                     /* not the last: a partitioned select */
    memcpy(ctx + 8, &total, 8);
    char vsmem[8] = { 0 };
    void *a_sel[] = { &base, flags_it, &out_p, &cnt_p, ts, &nul, &nul, &items, &tiles, ctx, vsmem };
    CHECK(launch(K_SELECT_C64, a_sel, 1, 128) == TFL_ERR_UNSUPPORTED, "partitioned select refused");
    ctx[1] = 1;
    CHECK(launch(K_SELECT_C64, a_sel, 1, 128) == TFL_ERR_INVALID, "null flags refused");

    /* write_indices with a device count (nonzero_static) is not nonzero's */
    int64_t *inp = (int64_t *)host_buf, dims[25] = { 2, 3 }, nn = 4, fill = -1;
    int32_t ndim = 2;
    int64_t *tot = (int64_t *)host_buf;
    void *a_unr[] = { &inp, dims, &ndim, &nn, &tot, &fill };
    CHECK(launch(K_UNRAVEL, a_unr, 1, 256) == TFL_ERR_UNSUPPORTED, "nonzero_static form refused");
    tot = NULL;
    CHECK(launch(K_UNRAVEL, a_unr, 1, 2) == TFL_ERR_UNSUPPORTED, "grid short of n refused");
    CHECK(launch(K_UNRAVEL, a_unr, 1, 256) == TFL_ERR_INVALID, "host pointers refused");
    ndim = 26;
    CHECK(launch(K_UNRAVEL, a_unr, 1, 256) == TFL_ERR_INVALID, "ndim > 25 refused");
}

/* Real kernel names of the torch 2.11, 2.14 and 2.15 wheels (one per kind
 * and parameter layout; the later releases' where the layout or the name's
 * structure changed, and a few more to show other namespace hashes are
 * recognised) with their parameter layouts (offset:size) as the sm_80
 * cubins record them (scripts/wheel_kernels.py): what the decoder states
 * with layout() must be exactly that. */
static const cubin_layout cubin[] = {
    { "_ZN14at_cuda_detail3cub6detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIlLb1EEEEEvT_i",
      "0:8 8:4" },  /* 2.11.0 cub_scan_init: DeviceScanInitKernel */
    { "_ZN2at6native41tensor_kernel_scan_outer_dim_with_indicesIfSt10less_equalIfEEEvPKT_PS4_PljjjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:1" },  /* 2.11.0 cummin: tensor_kernel_scan_outer_dim_with_indices */
    { "_ZN2at6native45tensor_kernel_scan_innermost_dim_with_indicesIfSt10less_equalIfEEEvPKT_PS4_PliijjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:4 44:1" },  /* 2.11.0 cummin: tensor_kernel_scan_innermost_dim_with_indices */
    { "_ZN2at6native41tensor_kernel_scan_outer_dim_with_indicesIdSt10less_equalIdEEEvPKT_PS4_PljjjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 40:8 48:1" },  /* 2.11.0 cummin: tensor_kernel_scan_outer_dim_with_indices */
    { "_ZN2at6native45tensor_kernel_scan_innermost_dim_with_indicesIdSt10less_equalIdEEEvPKT_PS4_PliijjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:8 48:1" },  /* 2.11.0 cummin: tensor_kernel_scan_innermost_dim_with_indices */
    { "_ZN2at6native41tensor_kernel_scan_outer_dim_with_indicesIfSt13greater_equalIfEEEvPKT_PS4_PljjjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:1" },  /* 2.11.0 cummax: tensor_kernel_scan_outer_dim_with_indices */
    { "_ZN2at6native45tensor_kernel_scan_innermost_dim_with_indicesIfSt13greater_equalIfEEEvPKT_PS4_PliijjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:4 44:1" },  /* 2.11.0 cummax: tensor_kernel_scan_innermost_dim_with_indices */
    { "_ZN2at6native41tensor_kernel_scan_outer_dim_with_indicesIdSt13greater_equalIdEEEvPKT_PS4_PljjjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 40:8 48:1" },  /* 2.11.0 cummax: tensor_kernel_scan_outer_dim_with_indices */
    { "_ZN2at6native45tensor_kernel_scan_innermost_dim_with_indicesIdSt13greater_equalIdEEEvPKT_PS4_PliijjS4_T0_",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:8 48:1" },  /* 2.11.0 cummax: tensor_kernel_scan_innermost_dim_with_indices */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIfffjSt10multipliesIfEE10Policy1000EPKfPfNS0_13ScanTileStateIfLb1EEES6_NS0_8NullTypeEjfLb0ESE_EEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 29:1 32:4" },  /* 2.11.0 cumprod: DeviceScanKernel */
    { "_ZN2at6native28tensor_kernel_scan_outer_dimIfmSt10multipliesIfEEEvPT_PKS4_jjjS4_T1_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:1" },  /* 2.11.0 cumprod: tensor_kernel_scan_outer_dim */
    { "_ZN2at6native32tensor_kernel_scan_innermost_dimIfSt10multipliesIfEEEvPT_PKS4_jjjS4_T0_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:1" },  /* 2.11.0 cumprod: tensor_kernel_scan_innermost_dim */
    { "_ZN2at6native28tensor_kernel_scan_outer_dimIdmSt10multipliesIdEEEvPT_PKS4_jjjS4_T1_",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:1" },  /* 2.11.0 cumprod: tensor_kernel_scan_outer_dim */
    { "_ZN2at6native32tensor_kernel_scan_innermost_dimIdSt10multipliesIdEEEvPT_PKS4_jjjS4_T0_",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:1" },  /* 2.11.0 cumprod: tensor_kernel_scan_innermost_dim */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIfffjSt4plusIfEE10Policy1000EPKfPfNS0_13ScanTileStateIfLb1EEES6_NS0_8NullTypeEjfLb0ESE_EEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 29:1 32:4" },  /* 2.11.0 cumsum: DeviceScanKernel */
    { "_ZN2at6native28tensor_kernel_scan_outer_dimIfmSt4plusIfEEEvPT_PKS4_jjjS4_T1_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:1" },  /* 2.11.0 cumsum: tensor_kernel_scan_outer_dim */
    { "_ZN2at6native32tensor_kernel_scan_innermost_dimIfSt4plusIfEEEvPT_PKS4_jjjS4_T0_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:1" },  /* 2.11.0 cumsum: tensor_kernel_scan_innermost_dim */
    { "_ZN2at6native28tensor_kernel_scan_outer_dimIdmSt4plusIdEEEvPT_PKS4_jjjS4_T1_",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:1" },  /* 2.11.0 cumsum: tensor_kernel_scan_outer_dim */
    { "_ZN2at6native32tensor_kernel_scan_innermost_dimIdSt4plusIdEEEvPT_PKS4_jjjS4_T0_",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:1" },  /* 2.11.0 cumsum: tensor_kernel_scan_innermost_dim */
    { "_ZN14at_cuda_detail3cub6detail4scan23DeviceCompactInitKernelINS0_13ScanTileStateIiLb1EEEPlEEvT_iT0_",
      "0:8 8:4 16:8" },  /* 2.11.0 cub_compact_init: DeviceCompactInitKernel */
    { "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIdddjZZZN2at6native31launch_logcumsumexp_cuda_kernelERKNS5_10TensorBaseES9_lENKUlvE_clEvENKUlvE_clEvEUlddE_E10Policy1000EPKdPdNS0_13ScanTileStateIdLb1EEESC_NS0_8NullTypeEjdLb0ESK_EEvT0_T1_T2_iT3_T4_T5_",
      "0:8 8:8 16:8 24:4 28:1 29:1 32:4" },  /* 2.11.0 logcumsumexp: DeviceScanKernel */
    { "_ZN2at6native28tensor_kernel_scan_outer_dimIfmZZZNS0_31launch_logcumsumexp_cuda_kernelERKNS_10TensorBaseES4_lENKUlvE_clEvENKUlvE0_clEvEUlffE_EEvPT_PKS8_jjjS8_T1_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:1" },  /* 2.11.0 logcumsumexp: tensor_kernel_scan_outer_dim */
    { "_ZN2at6native32tensor_kernel_scan_innermost_dimIfZZZNS0_31launch_logcumsumexp_cuda_kernelERKNS_10TensorBaseES4_lENKUlvE_clEvENKUlvE0_clEvEUlffE_EEvPT_PKS8_jjjS8_T0_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:1" },  /* 2.11.0 logcumsumexp: tensor_kernel_scan_innermost_dim */
    { "_ZN2at6native28tensor_kernel_scan_outer_dimIdmZZZNS0_31launch_logcumsumexp_cuda_kernelERKNS_10TensorBaseES4_lENKUlvE_clEvENKUlvE_clEvEUlddE_EEvPT_PKS8_jjjS8_T1_",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:1" },  /* 2.11.0 logcumsumexp: tensor_kernel_scan_outer_dim */
    { "_ZN2at6native32tensor_kernel_scan_innermost_dimIdZZZNS0_31launch_logcumsumexp_cuda_kernelERKNS_10TensorBaseES4_lENKUlvE_clEvENKUlvE_clEvEUlddE_EEvPT_PKS8_jjjS8_T0_",
      "0:8 8:8 16:4 20:4 24:4 32:8 40:1" },  /* 2.11.0 logcumsumexp: tensor_kernel_scan_innermost_dim */
    { "_ZN14at_cuda_detail3cub6detail6reduce18DeviceReduceKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEyS9_iNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISS_EET2_T4_",
      "0:16 16:8 24:8 32:72 104:1 105:1" },  /* 2.11.0 nonzero_count: DeviceReduceKernel */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEPiyS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:16 16:8 24:8 32:1 36:4 40:1" },  /* 2.11.0 nonzero_count: DeviceReduceSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EPiSC_iS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:8 8:8 16:4 20:1 24:4 28:1" },  /* 2.11.0 nonzero_count: DeviceReduceSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIlbiLb0ELNS0_10SelectImplE0EE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17counting_iteratorIlNS9_11use_defaultESB_SB_EENS9_18transform_iteratorIN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbSB_SB_EEPlPiNS0_13ScanTileStateIiLb1EEENS0_8NullTypeESQ_iNS2_19streaming_context_tIlLb1EEELS5_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE",
      "0:8 8:16 24:8 32:8 40:8 48:1 49:1 52:4 56:4 64:40 104:8" },  /* 2.11.0 nonzero_select: DeviceSelectSweepKernel */
    { "_ZN2at6native43_GLOBAL__N__e625f313_10_Nonzero_cu_cba1aaa013write_indicesIlEEvPlNS1_10TensorDimsIT_EEiS5_S3_l",
      "0:8 8:200 208:4 216:8 224:8 232:8" },  /* 2.11.0 nonzero_unravel:  */
    { "_ZN14at_cuda_detail3cub6detail6reduce18DeviceReduceKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEyS9_iNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISS_EET2_T4_",
      "0:16 16:8 24:8 32:72 104:1 105:1" },  /* 2.14.1 nonzero_count: DeviceReduceKernel */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEPiyS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:16 16:8 24:8 32:1 36:4 40:1" },  /* 2.14.1 nonzero_count: DeviceReduceSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIlbiLb0ELNS0_10SelectImplE0EE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS17counting_iteratorIlNS9_11use_defaultESB_SB_EENS9_18transform_iteratorIN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbSB_SB_EEPlPiNS0_13ScanTileStateIiLb1EEENS0_8NullTypeESQ_iNS2_19streaming_context_tIlLb1EEELS5_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE",
      "0:8 8:16 24:8 32:8 40:8 48:1 49:1 52:4 56:4 64:40 104:8" },  /* 2.14.1 nonzero_select: DeviceSelectSweepKernel */
    { "_ZN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa013write_indicesIlEEvPlNS1_10TensorDimsIT_EEiS5_S3_l",
      "0:8 8:200 208:4 216:8 224:8 232:8" },  /* 2.14.1 nonzero_unravel:  */
    { "_ZN14at_cuda_detail3cub6detail6reduce18DeviceReduceKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust38_V_300200_SM_750_800_860_900_1000_120018transform_iteratorIN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEyS9_iNS7_8identityEEEvT0_PT3_T1_NS0_13GridEvenShareISS_EET2_T4_",
      "0:16 16:8 24:8 32:72 104:1 105:1" },  /* 2.15.0 nonzero_count: DeviceReduceKernel */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust38_V_300200_SM_750_800_860_900_1000_120018transform_iteratorIN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbNSD_11use_defaultESM_EEPiyS9_iiNS7_8identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:16 16:8 24:8 32:1 36:4 40:1" },  /* 2.15.0 nonzero_count: DeviceReduceSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EPiSC_iS9_iiNS7_8identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:8 8:8 16:4 20:1 24:4 28:1" },  /* 2.15.0 nonzero_count: DeviceReduceSingleTileKernel */
    { "_ZN14at_cuda_detail3cub6detail6select23DeviceSelectSweepKernelINS2_10policy_hubIlbiLb0ELNS0_10SelectImplE0EE10Policy1000EN6thrust38_V_300200_SM_750_800_860_900_1000_120017counting_iteratorIlNS9_11use_defaultESB_SB_NS9_18compile_time_valueILi1EEEEENS9_18transform_iteratorIN2at6native43_GLOBAL__N__a7e516da_10_Nonzero_cu_cba1aaa09NonZeroOpIbEEPKbSB_SB_EEPlPiNS0_13ScanTileStateIiLb1EEENS0_8NullTypeESS_iNS2_19streaming_context_tIlLb1EEELS5_0EEEvT0_T1_T2_T3_T4_T5_T6_T7_iT8_NS1_7vsmem_tE",
      "0:8 8:16 24:8 32:8 40:8 48:1 49:1 52:4 56:4 64:40 104:8" },  /* 2.15.0 nonzero_select: DeviceSelectSweepKernel */
};

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_scan, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    test_names();
    test_refusals();
    printf("test_optable_scan: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

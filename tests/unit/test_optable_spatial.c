/*
 * test_optable_spatial.c - the "spatial" decoder against real torch 2.11
 * kernel names (from the wheel's sm_80 cubins): every pooling / resize /
 * roll kernel it should claim, with its op name, and those it must leave
 * alone (uint8 nearest, antialiased resize, float16/bfloat16 3-D
 * pooling, AdaptiveMaxPooling3d's namesakes of the 2-D kernels); the
 * parameter layout it states for 2.11, 2.14 and 2.15 kernels (equal to
 * the cubins'); a launch whose operands are
 * not device memory is refused with TFL_ERR_INVALID before anything runs,
 * and a launch whose sizes do not describe whole tensors is not guessed
 * at.  (Decode-and-run is covered end to end by
 * tests/pytorch/cuda/test_spatial.py.)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "route/optable.h"
#include "route/optable/spatial_internal.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static const struct { const char *name, *op; } tab[] = {
    { "_ZN2at6native16roll_cuda_kernelIN3c107complexIfEEEEvPKT_PS5_llllll", "roll" },
    { "_ZN2at6native16roll_cuda_kernelIfEEvPKT_PS2_llllll", "roll" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407625avg_pool2d_out_cuda_frameIffEEviPKT_lllliiiiiiiPS3_ibb", "avg_pool2d" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407630avg_pool2d_out_cuda_frame_nhwcIffEEviPKT_llliiiiiiiiPS3_ibb", "avg_pool2d" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407634avg_pool2d_backward_out_cuda_frameIffiEEvT1_PKT_llllliiiiiiPS4_ibb", "avg_pool2d_backward" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407634avg_pool2d_backward_out_cuda_frameIfflEEvT1_PKT_llllliiiiiiPS4_ibb", "avg_pool2d_backward" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407639avg_pool2d_backward_out_cuda_frame_nhwcIffiEEvT1_PKT_llliiiiiiiiPS4_ibb", "avg_pool2d_backward" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407639avg_pool2d_backward_out_cuda_frame_nhwcIfflEEvT1_PKT_llliiiiiiiiPS4_ibb", "avg_pool2d_backward" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIfiEEvT0_PKT_llliiiiiiiiiiPS4_Pl", "max_pool2d" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIflEEvT0_PKT_llliiiiiiiiiiPS4_Pl", "max_pool2d" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nhwcIfiEEvPKT_iT0_S6_S6_S6_S6_iiiiiiiiS6_S6_S6_S6_iiPS3_Pl", "max_pool2d" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nhwcIflEEvPKT_iT0_S6_S6_S6_S6_iiiiiiiiS6_S6_S6_S6_iiPS3_Pl", "max_pool2d" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nchwIffiEEvPKT_PKlT1_S8_S8_S8_S8_S8_iiiiiiiiPS3_", "max_pool2d_backward" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nchwIfflEEvPKT_PKlT1_S8_S8_S8_S8_S8_iiiiiiiiPS3_", "max_pool2d_backward" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nhwcIffEEvPKT_PKlillliiiiiiiiiiiiiiiPS3_", "max_pool2d_backward" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce228upsample_nearest2d_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmff", "upsample_nearest2d" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce228upsample_nearest2d_out_frameIfXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmff", "upsample_nearest2d" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce233upsample_nearest2d_nhwc_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmffm", "upsample_nearest2d" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce233upsample_nearest2d_nhwc_out_frameIfXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmffm", "upsample_nearest2d" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce237upsample_nearest2d_backward_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmPS3_ff", "upsample_nearest2d_backward" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce237upsample_nearest2d_backward_out_frameIffXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmPS3_ff", "upsample_nearest2d_backward" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce242upsample_nearest2d_backward_nhwc_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmffm", "upsample_nearest2d_backward" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce242upsample_nearest2d_backward_nhwc_out_frameIffXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmffm", "upsample_nearest2d_backward" },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e329upsample_bilinear2d_out_frameIffEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE", "upsample_bilinear2d" },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e334upsample_bilinear2d_nhwc_out_frameIffEEvT0_S3_biiiiiPKT_PS4_i", "upsample_bilinear2d" },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e338upsample_bilinear2d_backward_out_frameIffEEvmiiiiT0_S3_bPT_PKS4_", "upsample_bilinear2d_backward" },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e343upsample_bilinear2d_backward_nhwc_out_frameIffEEviiiiT0_S3_bPT_PKS4_imm", "upsample_bilinear2d_backward" },
    { "_ZN2at6native56_GLOBAL__N__ad960445_23_AdaptiveMaxPooling2d_cu_b5d80e8f15adaptivemaxpoolIfEEvPKT_PS3_Pliiiilll", "adaptive_max_pool2d" },
    /* AdaptiveMaxPooling3d.cu's kernels of the same names (more parameters) */
    { "_ZN2at6native56_GLOBAL__N__90f62df5_23_AdaptiveMaxPooling3d_cu_b47da73915adaptivemaxpoolIfEEvPKT_PS3_Pliiiiiilllll", NULL },
    { "_ZN2at6native56_GLOBAL__N__90f62df5_23_AdaptiveMaxPooling3d_cu_b47da73920adaptivemaxgradinputIfEEvPT_PKS3_PKliiiiiil", NULL },
    { "_ZN2at6native56_GLOBAL__N__ad960445_23_AdaptiveMaxPooling2d_cu_b5d80e8f20adaptivemaxgradinputIfEEvPT_PKS3_PKliiii", "adaptive_max_pool2d_backward" },
    { "_ZN2at6native56_GLOBAL__N__ad960445_23_AdaptiveMaxPooling2d_cu_b5d80e8f26atomicadaptivemaxgradinputIfEEvPT_PKS3_PKliiii", "adaptive_max_pool2d_backward" },
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c21adaptive_average_poolIfEEvPKT_PS3_iiiilll", "adaptive_avg_pool2d" },
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_gradinputIfEEvPT_PKS3_iiii", "adaptive_avg_pool2d_backward" },
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_pool_nhwcIifEEvPKT0_PS3_iiiiiiiiT_S7_S7_S7_", "adaptive_avg_pool2d" },
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c31adaptive_average_gradinput_nhwcIifEEvPT0_PKS3_iiiiiiiiT_S7_S7_S7_", "adaptive_avg_pool2d_backward" },
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c33atomic_adaptive_average_gradinputIfEEvPT_PKS3_iiii", "adaptive_avg_pool2d_backward" },
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIN3c104HalfEiEEvT0_PKT_llliiiiiiiiiiPS6_Pl", "max_pool2d" },
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407625avg_pool2d_out_cuda_frameIN3c108BFloat16EfEEviPKT_lllliiiiiiiPS5_ibb", "avg_pool2d" },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e329upsample_bilinear2d_out_frameIddEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE", "upsample_bilinear2d" },
    { "_ZN2at6native16roll_cuda_kernelIbEEvPKT_PS2_llllll", "roll" },
    { "_ZN2at6native16roll_cuda_kernelIN3c107complexIdEEEEvPKT_PS5_llllll", "roll" },
    { "_ZN2at6native16roll_cuda_kernelIsEEvPKT_PS2_llllll", "roll" },
    { "_ZN2at6native56_GLOBAL__N__ad960445_23_AdaptiveMaxPooling2d_cu_b5d80e8f15adaptivemaxpoolIdEEvPKT_PS3_Pliiiilll", "adaptive_max_pool2d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIN3c104HalfEXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmPS5_f", "upsample_nearest1d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIN3c104HalfEXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_mmmmPS5_f", "upsample_nearest1d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIdXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIdXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIfXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIN3c104HalfEfXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS5_f", "upsample_nearest1d_backward" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIN3c104HalfEfXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS5_f", "upsample_nearest1d_backward" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIddXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d_backward" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIddXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d_backward" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d_backward" },
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIffXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f", "upsample_nearest1d_backward" },
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3027upsample_linear1d_out_frameIN3c104HalfEfEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm2ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESE_Lm3ESF_lEENS9_INSA_ISC_SD_Lm2ESF_lEESJ_SD_Lm3ESF_lEE", "upsample_linear1d" },
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3027upsample_linear1d_out_frameIddEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS7_INS8_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEE", "upsample_linear1d" },
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3027upsample_linear1d_out_frameIffEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS7_INS8_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEE", "upsample_linear1d" },
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_backwardIN3c104HalfEfEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorINS3_8ArrayRefIlEET_Lm2ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS9_INSA_ISC_KSD_Lm2ESE_lEESI_SK_Lm3ESE_lEE", "upsample_linear1d_backward" },
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_backwardIddEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS7_INS8_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEE", "upsample_linear1d_backward" },
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_backwardIffEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS7_INS8_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEE", "upsample_linear1d_backward" },
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb440max_pool3d_with_indices_single_out_frameIN3c104HalfEEEvPKT_PS5_Pliiiiiiiiiiiiiiiiiiiiib", NULL },
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb440max_pool3d_with_indices_single_out_frameIdEEvPKT_PS3_Pliiiiiiiiiiiiiiiiiiiiib", "max_pool3d" },
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb440max_pool3d_with_indices_single_out_frameIfEEvPKT_PS3_Pliiiiiiiiiiiiiiiiiiiiib", "max_pool3d" },
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb449max_pool3d_with_indices_backward_single_out_frameIN3c104HalfEEEvPT_PKS5_PKliiiiiiiiib", NULL },
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb449max_pool3d_with_indices_backward_single_out_frameIdEEvPT_PKS3_PKliiiiiiiiib", "max_pool3d_backward" },
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb449max_pool3d_with_indices_backward_single_out_frameIfEEvPT_PKS3_PKliiiiiiiiib", "max_pool3d_backward" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputILi3EN3c104HalfEfEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT0_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS8_INS9_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEEiiiiiiiibii", NULL },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputILi3EddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT0_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiibii", "avg_pool3d" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputILi3EffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT0_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiibii", "avg_pool3d" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputIN3c104HalfEfEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS8_INS9_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEEiiiiiiiiibii", NULL },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputIddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibii", "avg_pool3d" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibii", "avg_pool3d" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c33avg_pool3d_cuda_update_grad_inputIN3c104HalfEfEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS8_INS9_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEEiiiiiiiiibii", NULL },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c33avg_pool3d_cuda_update_grad_inputIddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibii", "avg_pool3d_backward" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c33avg_pool3d_cuda_update_grad_inputIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibii", "avg_pool3d_backward" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIN3c104HalfEfEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS8_INS9_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEEiiiiiiiiibiii", NULL },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibiii", "avg_pool3d_backward" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibiii", "avg_pool3d_backward" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c44avg_pool3d_single_backward_out_frame_stride1IN3c104HalfEfEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS8_INS9_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEEiiiT0_i", NULL },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c44avg_pool3d_single_backward_out_frame_stride1IddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiT0_i", "avg_pool3d_backward" },
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c44avg_pool3d_single_backward_out_frame_stride1IffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiT0_i", "avg_pool3d_backward" },
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9330upsample_trilinear3d_out_frameIN3c104HalfEfEEviT0_S5_S5_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESE_Lm5ESF_lEENS9_INSA_ISC_SD_Lm4ESF_lEESJ_SD_Lm5ESF_lEE", NULL },
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9330upsample_trilinear3d_out_frameIddEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS7_INS8_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEE", "upsample_trilinear3d" },
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9330upsample_trilinear3d_out_frameIffEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS7_INS8_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEE", "upsample_trilinear3d" },
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9339upsample_trilinear3d_backward_out_frameIN3c104HalfEfEEviT0_S5_S5_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorINS3_8ArrayRefIlEET_Lm4ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS9_INSA_ISC_KSD_Lm4ESE_lEESI_SK_Lm5ESE_lEEPSD_", NULL },
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9339upsample_trilinear3d_backward_out_frameIddEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS7_INS8_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEEPSC_", "upsample_trilinear3d_backward" },
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9339upsample_trilinear3d_backward_out_frameIffEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS7_INS8_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEEPSC_", "upsample_trilinear3d_backward" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIN3c104HalfEXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS5_fff", NULL },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIN3c104HalfEXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS5_fff", NULL },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIdXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIdXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIfXadL_ZNS0_43nearest_neighbor_exact_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b437upsample_nearest3d_backward_out_frameIddXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d_backward" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b437upsample_nearest3d_backward_out_frameIddXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d_backward" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b437upsample_nearest3d_backward_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d_backward" },
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b437upsample_nearest3d_backward_out_frameIffXadL_ZNS0_46nearest_neighbor_exact_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff", "upsample_nearest3d_backward" },
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca28upsample_bicubic2d_out_frameIN3c104HalfEfEEviT0_S5_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESE_Lm4ESF_lEENS9_INSA_ISC_SD_Lm3ESF_lEESJ_SD_Lm4ESF_lEE", NULL },
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca28upsample_bicubic2d_out_frameIddEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE", "upsample_bicubic2d" },
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca28upsample_bicubic2d_out_frameIffEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE", "upsample_bicubic2d" },
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca37upsample_bicubic2d_backward_out_frameIN3c104HalfEfEEviT0_S5_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorINS3_8ArrayRefIlEET_Lm3ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS9_INSA_ISC_KSD_Lm3ESE_lEESI_SK_Lm4ESE_lEE", NULL },
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca37upsample_bicubic2d_backward_out_frameIddEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS7_INS8_ISB_KSC_Lm3ESD_lEESH_SJ_Lm4ESD_lEE", "upsample_bicubic2d_backward" },
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca37upsample_bicubic2d_backward_out_frameIffEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS7_INS8_ISB_KSC_Lm3ESD_lEESH_SJ_Lm4ESD_lEE", "upsample_bicubic2d_backward" },
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce228upsample_nearest2d_out_frameIhXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmff", NULL },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e327upsample_gen2d_aa_out_frameIffNS0_18upsample_antialias21BilinearFilterFunctorEEEvT0_S5_N5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESF_Lm4ESG_lEENS9_INSA_ISD_SE_Lm3ESG_lEESK_SE_Lm4ESG_lEERKT1_", NULL },
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e336upsample_gen2d_aa_backward_out_frameIffNS0_18upsample_antialias21BilinearFilterFunctorEEEvT0_S5_N5torch10headeronly6detail27GenericPackedTensorAccessorINS8_14TensorAccessorIN3c108ArrayRefIlEET_Lm3ENS7_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESE_Lm4ESF_lEENS9_INSA_ISD_KSE_Lm3ESF_lEESJ_SL_Lm4ESF_lEERKT1_", NULL },
};

static const char *find(const char *piece)
{
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strstr(tab[i].name, piece))
            return tab[i].name;
    return NULL;
}

static void test_names(void)
{
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        void *cookie = NULL;
        int m = tfl_kfamily_spatial.match(tab[i].name, &cookie);
        const char *op = m ? tfl_kfamily_spatial.op_name(cookie) : NULL;
        if (!tab[i].op)
            CHECK(!m, "claimed %s", tab[i].name);
        else
            CHECK(op && strcmp(op, tab[i].op) == 0, "%s -> %s, want %s", tab[i].name,
                  op ? op : "(none)", tab[i].op);
        /* and no other family claims it */
        const tfl_kfamily *f = tfl_optable_lookup(tab[i].name, &cookie);
        if (tab[i].op)
            CHECK(f == &tfl_kfamily_spatial, "lookup of %s gave %s", tab[i].name, f ? f->name : "none");
    }
    void *cookie;
    CHECK(!tfl_kfamily_spatial.match("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_", &cookie),
          "claimed fill");
}

static tfl_status launch(const char *name, void **args, unsigned gridx)
{
    void *cookie = NULL;
    char err[256] = "";
    if (!name || !tfl_kfamily_spatial.match(name, &cookie))
        return TFL_ERR_INTERNAL;
    tfl_kcall c = { .name = name, .grid = { gridx, 1, 1 }, .block = { 256, 1, 1 }, .args = args };
    return tfl_kfamily_spatial.run(&c, cookie, err, sizeof err);
}

static void test_refusals(void)
{
    float in[4 * 9 * 10], out[4 * 5 * 5];
    int64_t mask[4 * 5 * 5];
    /* max_pool_forward_nchw<float, int>: operands on the stack */
    int32_t nthreads = 4 * 5 * 5, oh = 5, ow = 5, k = 3, s = 2, p = 1, d = 1;
    int64_t C = 4, H = 9, W = 10;
    void *pin = in, *pout = out, *pmask = mask;
    void *mp[] = { &nthreads, &pin, &C, &H, &W, &oh, &ow, &k, &k, &s, &s, &p, &p, &d, &d, &pout, &pmask };
    CHECK(launch(find("21max_pool_forward_nchwIfiE"), mp, 1) == TFL_ERR_INVALID, "max pool on host memory refused");
    /* a thread count that is not a whole number of images */
    nthreads = 4 * 5 * 5 + 1;
    CHECK(launch(find("21max_pool_forward_nchwIfiE"), mp, 1) == TFL_ERR_UNSUPPORTED, "partial batch not guessed");
    /* a zero stride is a bad window */
    nthreads = 4 * 5 * 5;
    s = 0;
    CHECK(launch(find("21max_pool_forward_nchwIfiE"), mp, 1) == TFL_ERR_INVALID, "zero stride refused");
    /* adaptive average pool: planes from grid.x; host memory refused */
    int32_t ih = 9, iw = 10, aoh = 3, aow = 2;
    int64_t sd = 90, sh = 10, sw = 1;
    void *ap[] = { &pin, &pout, &ih, &iw, &aoh, &aow, &sd, &sh, &sw };
    CHECK(launch(find("21adaptive_average_poolIfE"), ap, 4) == TFL_ERR_INVALID, "adaptive avg on host memory refused");
    /* roll: a start outside the rolled size */
    int64_t N = 12, dim = 0, start = 5, size = 4, stride = 3, dims = 1;
    void *rp[] = { &pin, &pout, &N, &dim, &start, &size, &stride, &dims };
    CHECK(launch(find("16roll_cuda_kernelIfE"), rp, 1) == TFL_ERR_INVALID, "roll bad start refused");
    start = 1;
    CHECK(launch(find("16roll_cuda_kernelIfE"), rp, 1) == TFL_ERR_INVALID, "roll on host memory refused");
    /* nearest with a NaN scale */
    uint64_t nc = 4, h1 = 9, w1 = 10, h2 = 18, w2 = 20;
    float hs = NAN, ws = 0.5f;
    void *np[] = { &pin, &pout, &nc, &h1, &w1, &h2, &w2, &hs, &ws };
    CHECK(launch(find("28upsample_nearest2d_out_frameIfXadL_ZNS0_37"), np, 1) == TFL_ERR_INVALID, "NaN scale refused");
    /* max_pool3d_with_indices_single_out_frame<float>: operands on the
     * stack are refused; a launch that is one of several z chunks
     * (offsetZ != 0) is not guessed at */
    {
        float vin[2 * 4 * 4 * 4], vout[2 * 2 * 2 * 2];
        int64_t vind[2 * 2 * 2 * 2];
        void *a0 = vin, *a1 = vout, *a2 = vind;
        int32_t C3 = 2, T = 4, H3 = 4, W3 = 4, Nb = 1, OT = 2, OH = 2, OW = 2, two = 2, zero = 0;
        int32_t offz = 0;
        uint8_t cl = 0;
        void *m3[] = { &a0, &a1, &a2, &C3, &T, &H3, &W3, &Nb, &OT, &OH, &OW, &two, &two, &two,
                       &two, &two, &two, &zero, &zero, &zero, &d, &d, &d, &offz, &cl };
        const char *nm = find("40max_pool3d_with_indices_single_out_frameIfE");
        void *cookie = NULL;
        char err[256] = "";
        CHECK(nm && tfl_kfamily_spatial.match(nm, &cookie), "max_pool3d claimed");
        tfl_kcall c3 = { .name = nm, .grid = { 1, 1, 4 }, .block = { 32, 8, 1 }, .args = m3 };
        if (cookie) {
            CHECK(tfl_kfamily_spatial.run(&c3, cookie, err, sizeof err) == TFL_ERR_INVALID,
                  "max_pool3d on host memory refused");
            offz = 4;
            CHECK(tfl_kfamily_spatial.run(&c3, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED,
                  "max_pool3d z chunk not guessed");
        }
    }
}

/* Real kernel names of the torch 2.11, 2.14 and 2.15 wheels (one per kind
 * and parameter layout; the later releases' where the layout or the name's
 * structure changed, and a few more to show other namespace hashes are
 * recognised) with their parameter layouts (offset:size) as the sm_80
 * cubins record them (scripts/wheel_kernels.py): what the decoder states
 * with layout() must be exactly that. */
static const cubin_layout cubin[] = {
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_gradinputIfEEvPT_PKS3_iiii",
      "0:8 8:8 16:4 20:4 24:4 28:4" },  /* 2.11.0 adaptive_avg_pool2d_backward:  */
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c31adaptive_average_gradinput_nhwcIifEEvPT0_PKS3_iiiiiiiiT_S7_S7_S7_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4" },  /* 2.11.0 adaptive_avg_pool2d_backward:  */
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c21adaptive_average_poolIfEEvPKT_PS3_iiiilll",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:8 40:8 48:8" },  /* 2.11.0 adaptive_avg_pool2d:  */
    { "_ZN2at6native58_GLOBAL__N__1076efdf_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_pool_nhwcIifEEvPKT0_PS3_iiiiiiiiT_S7_S7_S7_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4" },  /* 2.11.0 adaptive_avg_pool2d:  */
    { "_ZN2at6native56_GLOBAL__N__ad960445_23_AdaptiveMaxPooling2d_cu_b5d80e8f20adaptivemaxgradinputIfEEvPT_PKS3_PKliiii",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4" },  /* 2.11.0 adaptive_max_pool2d_backward:  */
    { "_ZN2at6native56_GLOBAL__N__ad960445_23_AdaptiveMaxPooling2d_cu_b5d80e8f15adaptivemaxpoolIfEEvPKT_PS3_Pliiiilll",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:8 48:8 56:8" },  /* 2.11.0 adaptive_max_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407634avg_pool2d_backward_out_cuda_frameIfflEEvT1_PKT_llllliiiiiiPS4_ibb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:4 68:4 72:4 76:4 80:8 88:4 92:1 93:1" },  /* 2.11.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407639avg_pool2d_backward_out_cuda_frame_nhwcIfflEEvT1_PKT_llliiiiiiiiPS4_ibb",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8 80:4 84:1 85:1" },  /* 2.11.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407634avg_pool2d_backward_out_cuda_frameIffiEEvT1_PKT_llllliiiiiiPS4_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:4 68:4 72:4 76:4 80:8 88:4 92:1 93:1" },  /* 2.11.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407639avg_pool2d_backward_out_cuda_frame_nhwcIffiEEvT1_PKT_llliiiiiiiiPS4_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8 80:4 84:1 85:1" },  /* 2.11.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407625avg_pool2d_out_cuda_frameIffEEviPKT_lllliiiiiiiPS3_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:8 48:4 52:4 56:4 60:4 64:4 68:4 72:4 80:8 88:4 92:1 93:1" },  /* 2.11.0 avg_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__834c9086_16_AveragePool2d_cu_fb80407630avg_pool2d_out_cuda_frame_nhwcIffEEviPKT_llliiiiiiiiPS3_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8 80:4 84:1 85:1" },  /* 2.11.0 avg_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c33avg_pool3d_cuda_update_grad_inputIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibii",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 188:4" },  /* 2.11.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibiii",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 188:4 192:4" },  /* 2.11.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c44avg_pool3d_single_backward_out_frame_stride1IffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiT0_i",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4" },  /* 2.11.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c44avg_pool3d_single_backward_out_frame_stride1IddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiT0_i",
      "0:72 72:72 144:4 148:4 152:4 160:8 168:4" },  /* 2.11.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibii",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 188:4" },  /* 2.11.0 avg_pool3d:  */
    { "_ZN2at6native49_GLOBAL__N__be2cb936_16_AveragePool3d_cu_a8eae74c29avg_pool3d_cuda_update_outputILi7EffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT0_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiibii",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:1 180:4 184:4" },  /* 2.11.0 avg_pool3d:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nchwIfflEEvPKT_PKlT1_S8_S8_S8_S8_S8_iiiiiiiiPS3_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:4 68:4 72:4 76:4 80:4 84:4 88:4 92:4 96:8" },  /* 2.11.0 max_pool2d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nchwIffiEEvPKT_PKlT1_S8_S8_S8_S8_S8_iiiiiiiiPS3_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8" },  /* 2.11.0 max_pool2d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57422max_pool_backward_nhwcIffEEvPKT_PKlillliiiiiiiiiiiiiiiPS3_",
      "0:8 8:8 16:4 24:8 32:8 40:8 48:4 52:4 56:4 60:4 64:4 68:4 72:4 76:4 80:4 84:4 88:4 92:4 96:4 100:4 104:4 112:8" },  /* 2.11.0 max_pool2d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIflEEvT0_PKT_llliiiiiiiiiiPS4_Pl",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:4 76:4 80:8 88:8" },  /* 2.11.0 max_pool2d:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIfiEEvT0_PKT_llliiiiiiiiiiPS4_Pl",
      "0:4 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:4 76:4 80:8 88:8" },  /* 2.11.0 max_pool2d:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nhwcIflEEvPKT_iT0_S6_S6_S6_S6_iiiiiiiiS6_S6_S6_S6_iiPS3_Pl",
      "0:8 8:4 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:4 68:4 72:4 76:4 80:4 84:4 88:8 96:8 104:8 112:8 120:4 124:4 128:8 136:8" },  /* 2.11.0 max_pool2d:  */
    { "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nhwcIfiEEvPKT_iT0_S6_S6_S6_S6_iiiiiiiiS6_S6_S6_S6_iiPS3_Pl",
      "0:8 8:4 12:4 16:4 20:4 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:4 76:4 80:4 84:4 88:8 96:8" },  /* 2.11.0 max_pool2d:  */
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb449max_pool3d_with_indices_backward_single_out_frameIfEEvPT_PKS3_PKliiiiiiiiib",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:1" },  /* 2.11.0 max_pool3d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__d8182050_19_DilatedMaxPool3d_cu_9bd66eb440max_pool3d_with_indices_single_out_frameIfEEvPKT_PS3_Pliiiiiiiiiiiiiiiiiiiiib",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:4 76:4 80:4 84:4 88:4 92:4 96:4 100:4 104:4 108:1" },  /* 2.11.0 max_pool3d:  */
    { "_ZN2at6native16roll_cuda_kernelIbEEvPKT_PS2_llllll",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8" },  /* 2.11.0 roll: roll_cuda_kernel */
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca37upsample_bicubic2d_backward_out_frameIffEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS7_INS8_ISB_KSC_Lm3ESD_lEESH_SJ_Lm4ESD_lEE",
      "0:4 4:4 8:4 12:1 16:72 88:72" },  /* 2.11.0 upsample_bicubic2d_backward:  */
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca37upsample_bicubic2d_backward_out_frameIddEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS7_INS8_ISB_KSC_Lm3ESD_lEESH_SJ_Lm4ESD_lEE",
      "0:4 8:8 16:8 24:1 32:72 104:72" },  /* 2.11.0 upsample_bicubic2d_backward:  */
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca28upsample_bicubic2d_out_frameIffEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE",
      "0:4 4:4 8:4 12:1 16:72 88:72" },  /* 2.11.0 upsample_bicubic2d:  */
    { "_ZN2at6native53_GLOBAL__N__9a173a14_20_UpSampleBicubic2d_cu_80ee57ca28upsample_bicubic2d_out_frameIddEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE",
      "0:4 8:8 16:8 24:1 32:72 104:72" },  /* 2.11.0 upsample_bicubic2d:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e338upsample_bilinear2d_backward_out_frameIffEEvmiiiiT0_S3_bPT_PKS4_",
      "0:8 8:4 12:4 16:4 20:4 24:4 28:4 32:1 40:8 48:8" },  /* 2.11.0 upsample_bilinear2d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e343upsample_bilinear2d_backward_nhwc_out_frameIffEEviiiiT0_S3_bPT_PKS4_imm",
      "0:4 4:4 8:4 12:4 16:4 20:4 24:1 32:8 40:8 48:4 56:8 64:8" },  /* 2.11.0 upsample_bilinear2d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e338upsample_bilinear2d_backward_out_frameIddEEvmiiiiT0_S3_bPT_PKS4_",
      "0:8 8:4 12:4 16:4 20:4 24:8 32:8 40:1 48:8 56:8" },  /* 2.11.0 upsample_bilinear2d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e343upsample_bilinear2d_backward_nhwc_out_frameIddEEviiiiT0_S3_bPT_PKS4_imm",
      "0:4 4:4 8:4 12:4 16:8 24:8 32:1 40:8 48:8 56:4 64:8 72:8" },  /* 2.11.0 upsample_bilinear2d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e329upsample_bilinear2d_out_frameIffEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE",
      "0:4 4:4 8:4 12:1 16:72 88:72" },  /* 2.11.0 upsample_bilinear2d:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e334upsample_bilinear2d_nhwc_out_frameIffEEvT0_S3_biiiiiPKT_PS4_i",
      "0:4 4:4 8:1 12:4 16:4 20:4 24:4 28:4 32:8 40:8 48:4" },  /* 2.11.0 upsample_bilinear2d:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e329upsample_bilinear2d_out_frameIddEEviT0_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS7_INS8_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEE",
      "0:4 8:8 16:8 24:1 32:72 104:72" },  /* 2.11.0 upsample_bilinear2d:  */
    { "_ZN2at6native54_GLOBAL__N__483be8b1_21_UpSampleBilinear2d_cu_607db5e334upsample_bilinear2d_nhwc_out_frameIddEEvT0_S3_biiiiiPKT_PS4_i",
      "0:8 8:8 16:1 20:4 24:4 28:4 32:4 36:4 40:8 48:8 56:4" },  /* 2.11.0 upsample_bilinear2d:  */
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_backwardIffEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS7_INS8_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEE",
      "0:4 4:4 8:1 16:56 72:56" },  /* 2.11.0 upsample_linear1d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_backwardIddEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS7_INS8_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEE",
      "0:4 8:8 16:1 24:56 80:56" },  /* 2.11.0 upsample_linear1d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3027upsample_linear1d_out_frameIffEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS7_INS8_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEE",
      "0:4 4:4 8:1 16:56 72:56" },  /* 2.11.0 upsample_linear1d:  */
    { "_ZN2at6native52_GLOBAL__N__402387b7_19_UpSampleLinear1d_cu_bb295a3027upsample_linear1d_out_frameIddEEviT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS7_INS8_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEE",
      "0:4 8:8 16:1 24:56 80:56" },  /* 2.11.0 upsample_linear1d:  */
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3837upsample_nearest1d_backward_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4" },  /* 2.11.0 upsample_nearest1d_backward:  */
    { "_ZN2at6native53_GLOBAL__N__658bdacc_20_UpSampleNearest1d_cu_19867e3828upsample_nearest1d_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmPS3_f",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4" },  /* 2.11.0 upsample_nearest1d:  */
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce237upsample_nearest2d_backward_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmPS3_ff",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:4 68:4" },  /* 2.11.0 upsample_nearest2d_backward:  */
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce242upsample_nearest2d_backward_nhwc_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmffm",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:8" },  /* 2.11.0 upsample_nearest2d_backward:  */
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce228upsample_nearest2d_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmff",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4" },  /* 2.11.0 upsample_nearest2d:  */
    { "_ZN2at6native53_GLOBAL__N__222ba01c_20_UpSampleNearest2d_cu_198c5ce233upsample_nearest2d_nhwc_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_PS3_mmmmmffm",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:8" },  /* 2.11.0 upsample_nearest2d:  */
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b437upsample_nearest3d_backward_out_frameIffXadL_ZNS0_40nearest_neighbor_bw_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:4 84:4 88:4" },  /* 2.11.0 upsample_nearest3d_backward:  */
    { "_ZN2at6native53_GLOBAL__N__1f4b89ac_20_UpSampleNearest3d_cu_ab8a35b428upsample_nearest3d_out_frameIfXadL_ZNS0_37nearest_neighbor_compute_source_indexEfiiEEEEvPKT_mmmmmmmmPS3_fff",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:4 84:4 88:4" },  /* 2.11.0 upsample_nearest3d:  */
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9339upsample_trilinear3d_backward_out_frameIffEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS7_INS8_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEEPSC_",
      "0:4 4:4 8:4 12:4 16:1 24:88 112:88 200:8" },  /* 2.11.0 upsample_trilinear3d_backward:  */
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9339upsample_trilinear3d_backward_out_frameIddEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS7_INS8_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEEPSC_",
      "0:4 8:8 16:8 24:8 32:1 40:88 128:88 216:8" },  /* 2.11.0 upsample_trilinear3d_backward:  */
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9330upsample_trilinear3d_out_frameIffEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS7_INS8_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEE",
      "0:4 4:4 8:4 12:4 16:1 24:88 112:88" },  /* 2.11.0 upsample_trilinear3d:  */
    { "_ZN2at6native55_GLOBAL__N__cde4609a_22_UpSampleTrilinear3d_cu_efb54c9330upsample_trilinear3d_out_frameIddEEviT0_S3_S3_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm4ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS7_INS8_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEE",
      "0:4 8:8 16:8 24:8 32:1 40:88 128:88" },  /* 2.11.0 upsample_trilinear3d:  */
    { "_ZN2at6native58_GLOBAL__N__df5432f3_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_gradinputIflEEvPT_PKS3_T0_S7_S7_S7_",
      "0:8 8:8 16:8 24:8 32:8 40:8" },  /* 2.14.1 adaptive_avg_pool2d_backward:  */
    { "_ZN2at6native58_GLOBAL__N__df5432f3_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_gradinputIfiEEvPT_PKS3_T0_S7_S7_S7_",
      "0:8 8:8 16:4 20:4 24:4 28:4" },  /* 2.14.1 adaptive_avg_pool2d_backward:  */
    { "_ZN2at6native58_GLOBAL__N__df5432f3_25_AdaptiveAveragePooling_cu_ef17039c31adaptive_average_gradinput_nhwcIifEEvPT0_PKS3_iiiiiiiiT_S7_S7_S7_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4" },  /* 2.14.1 adaptive_avg_pool2d_backward:  */
    { "_ZN2at6native58_GLOBAL__N__df5432f3_25_AdaptiveAveragePooling_cu_ef17039c21adaptive_average_poolIflEEvPKT_PS3_T0_S7_S7_S7_lll",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8" },  /* 2.14.1 adaptive_avg_pool2d:  */
    { "_ZN2at6native58_GLOBAL__N__df5432f3_25_AdaptiveAveragePooling_cu_ef17039c21adaptive_average_poolIfiEEvPKT_PS3_T0_S7_S7_S7_lll",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:8 40:8 48:8" },  /* 2.14.1 adaptive_avg_pool2d:  */
    { "_ZN2at6native58_GLOBAL__N__df5432f3_25_AdaptiveAveragePooling_cu_ef17039c26adaptive_average_pool_nhwcIifEEvPKT0_PS3_iiiiiiiiT_S7_S7_S7_",
      "0:8 8:8 16:4 20:4 24:4 28:4 32:4 36:4 40:4 44:4 48:4 52:4 56:4 60:4" },  /* 2.14.1 adaptive_avg_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__6feab714_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibiil",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 188:4 192:8" },  /* 2.14.1 avg_pool3d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__1ee4fd4a_21_UpSampleBilinear2d_cu_607db5e343upsample_bilinear2d_backward_nhwc_out_frameIffiEEviiiiT0_S3_bPT_PKS4_iT1_S8_",
      "0:4 4:4 8:4 12:4 16:4 20:4 24:1 32:8 40:8 48:4 52:4 56:4" },  /* 2.14.1 upsample_bilinear2d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__1ee4fd4a_21_UpSampleBilinear2d_cu_607db5e343upsample_bilinear2d_backward_nhwc_out_frameIddiEEviiiiT0_S3_bPT_PKS4_iT1_S8_",
      "0:4 4:4 8:4 12:4 16:8 24:8 32:1 40:8 48:8 56:4 60:4 64:4" },  /* 2.14.1 upsample_bilinear2d_backward:  */
    { "_ZN2at6native54_GLOBAL__N__1ee4fd4a_21_UpSampleBilinear2d_cu_607db5e334upsample_bilinear2d_nhwc_out_frameIfflEEvT0_S3_biiiiiPKT_PS4_T1_",
      "0:4 4:4 8:1 12:4 16:4 20:4 24:4 28:4 32:8 40:8 48:8" },  /* 2.14.1 upsample_bilinear2d:  */
    { "_ZN2at6native54_GLOBAL__N__1ee4fd4a_21_UpSampleBilinear2d_cu_607db5e334upsample_bilinear2d_nhwc_out_frameIddlEEvT0_S3_biiiiiPKT_PS4_T1_",
      "0:8 8:8 16:1 20:4 24:4 28:4 32:4 36:4 40:8 48:8 56:8" },  /* 2.14.1 upsample_bilinear2d:  */
    { "_ZN2at6native56_GLOBAL__N__37038e07_23_AdaptiveMaxPooling2d_cu_b5d80e8f20adaptivemaxgradinputIfEEvPT_PKS3_PKliiii",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4" },  /* 2.15.0 adaptive_max_pool2d_backward:  */
    { "_ZN2at6native56_GLOBAL__N__37038e07_23_AdaptiveMaxPooling2d_cu_b5d80e8f15adaptivemaxpoolIfEEvPKT_PS3_Pliiiilll",
      "0:8 8:8 16:8 24:4 28:4 32:4 36:4 40:8 48:8 56:8" },  /* 2.15.0 adaptive_max_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407634avg_pool2d_backward_out_cuda_frameIfflEEvT1_PKT_llllliiiiiiPS4_ibbb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:4 68:4 72:4 76:4 80:8 88:4 92:1 93:1 94:1" },  /* 2.15.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407639avg_pool2d_backward_out_cuda_frame_nhwcIfflEEvT1_PKT_llliiiiiiiiPS4_ibbb",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8 80:4 84:1 85:1 86:1" },  /* 2.15.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407636avg_pool2d_backward_nonoverlap_frameIfflEEvT1_PKT_llllliiPS4_ibb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:8 72:4 76:1 77:1" },  /* 2.15.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407634avg_pool2d_backward_out_cuda_frameIffiEEvT1_PKT_llllliiiiiiPS4_ibbb",
      "0:4 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:4 68:4 72:4 76:4 80:8 88:4 92:1 93:1 94:1" },  /* 2.15.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407639avg_pool2d_backward_out_cuda_frame_nhwcIffiEEvT1_PKT_llliiiiiiiiPS4_ibbb",
      "0:4 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8 80:4 84:1 85:1 86:1" },  /* 2.15.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407636avg_pool2d_backward_nonoverlap_frameIffiEEvT1_PKT_llllliiPS4_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:8 48:8 56:4 60:4 64:8 72:4 76:1 77:1" },  /* 2.15.0 avg_pool2d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407625avg_pool2d_out_cuda_frameIffEEviPKT_lllliiiiiiiPS3_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:8 48:4 52:4 56:4 60:4 64:4 68:4 72:4 80:8 88:4 92:1 93:1" },  /* 2.15.0 avg_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__528a9ea4_16_AveragePool2d_cu_fb80407630avg_pool2d_out_cuda_frame_nhwcIffEEviPKT_llliiiiiiiiPS3_ibb",
      "0:4 8:8 16:8 24:8 32:8 40:4 44:4 48:4 52:4 56:4 60:4 64:4 68:4 72:8 80:4 84:1 85:1" },  /* 2.15.0 avg_pool2d:  */
    { "_ZN2at6native49_GLOBAL__N__6feab714_16_AveragePool3d_cu_a8eae74c33avg_pool3d_cuda_update_grad_inputIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibibT0_",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 188:1 192:4" },  /* 2.15.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__6feab714_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIffEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibilbT0_",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 192:8 200:1 204:4" },  /* 2.15.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__6feab714_16_AveragePool3d_cu_a8eae74c33avg_pool3d_cuda_update_grad_inputIddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibibT0_",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 188:1 192:8" },  /* 2.15.0 avg_pool3d_backward:  */
    { "_ZN2at6native49_GLOBAL__N__6feab714_16_AveragePool3d_cu_a8eae74c40avg_pool3d_cuda_update_grad_input_atomicIddEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS5_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm3ENS4_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS6_INS7_ISA_SB_Lm3ESD_lEESH_SB_Lm4ESD_lEEiiiiiiiiibilbT0_",
      "0:72 72:72 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:1 184:4 192:8 200:1 208:8" },  /* 2.15.0 avg_pool3d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__976e5fe3_19_UpSampleLinear1d_cu_bb295a3045upsample_linear1d_out_frame_backward_unrolledIffEEvT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS7_INS8_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEE",
      "0:4 4:1 8:56 64:56" },  /* 2.15.0 upsample_linear1d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__976e5fe3_19_UpSampleLinear1d_cu_bb295a3045upsample_linear1d_out_frame_backward_unrolledIddEEvT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEET_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS7_INS8_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEE",
      "0:8 8:1 16:56 72:56" },  /* 2.15.0 upsample_linear1d_backward:  */
    { "_ZN2at6native52_GLOBAL__N__976e5fe3_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_unrolledIffEEvT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS7_INS8_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEE",
      "0:4 4:1 8:56 64:56" },  /* 2.15.0 upsample_linear1d:  */
    { "_ZN2at6native52_GLOBAL__N__976e5fe3_19_UpSampleLinear1d_cu_bb295a3036upsample_linear1d_out_frame_unrolledIddEEvT0_bN5torch10headeronly6detail27GenericPackedTensorAccessorINS6_14TensorAccessorIN3c108ArrayRefIlEEKT_Lm2ENS5_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS7_INS8_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEE",
      "0:8 8:1 16:56 72:56" },  /* 2.15.0 upsample_linear1d:  */
};

/* torch 2.15's changed parameter lists, decoded directly (the decoders'
 * entry points; the kernel description as match() makes it, form 1):
 *  - avg_pool2d backward's third trailing bool: every window divides by
 *    divisor_override if use_divisor, else by kernel_h * kernel_w;
 *  - avg_pool3d backward (..., bool cip, int offsetZ, bool use_divisor,
 *    acc divisor): the divisor is a float that must be a whole number. */
static void test_2_15_forms(void)
{
    /* (int nthreads, gout, int64 C, H, W, OH, OW, int kh, kw, sh, sw, ph,
     *  pw, gin, int divisor, bool cip, bool use, bool uniform) */
    static float go[16], gi[64];
    void *pgo = go, *pgi = gi;
    int32_t nthreads = 64, k2 = 2, s2 = 2, p0 = 0, div = 5;
    int64_t C = 1, H = 8, W = 8, OH = 4, OW = 4;
    uint8_t cip = 1, use = 0, uniform = 1;
    void *a2[] = { &nthreads, &pgo, &C, &H, &W, &OH, &OW, &k2, &k2, &s2, &s2, &p0, &p0, &pgi,
                   &div, &cip, &use, &uniform };
    tfl_kcall c = { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 }, .args = a2 };
    spatial_kernel k = { .id = SK_AVGPOOL_BWD_NCHW, .dtype = TFL_DT_F32, .elem_size = 4, .acc_size = 4,
                         .form = 1 };
    tfl_spatial_op op;
    char err[256];
    memset(&op, 0, sizeof op);
    CHECK(sp_decode_pool(&c, &k, &op, err, sizeof err) == TFL_OK, "2.15 avg_pool2d backward decodes");
    CHECK(op.divisor_override == 4 && op.n == 1, "uniform windows divide by kh*kw (got %lld)",
          (long long)op.divisor_override);
    use = 1;
    memset(&op, 0, sizeof op);
    sp_decode_pool(&c, &k, &op, err, sizeof err);
    CHECK(op.divisor_override == 5, "uniform with divisor_override divides by it");
    uniform = 0;
    use = 0;
    memset(&op, 0, sizeof op);
    sp_decode_pool(&c, &k, &op, err, sizeof err);
    CHECK(op.divisor_override == 0 && op.count_include_pad, "per-window counts without the flag");
    k.form = 0;             /* 2.11 - 2.14: the flag is not a parameter */
    uniform = 1;
    memset(&op, 0, sizeof op);
    sp_decode_pool(&c, &k, &op, err, sizeof err);
    CHECK(op.divisor_override == 0, "2.11 form reads no third bool");

    /* avg_pool3d_cuda_update_grad_input<float, float> (2.15): (gout, gin
     * accessors, kT..pW, bool cip, int offsetZ, bool use, float divisor) */
    unsigned char acc_o[72] = { 0 }, acc_i[72] = { 0 };
    void *pg = go, *pi = gi;
    int64_t osz[4] = { 1, 2, 2, 2 }, isz[4] = { 1, 4, 4, 4 };
    int64_t ost[4] = { 8, 4, 2, 1 }, ist[4] = { 64, 16, 4, 1 };
    memcpy(acc_o, &pg, 8);
    memcpy(acc_o + 8, osz, 32);
    memcpy(acc_o + 40, ost, 32);
    memcpy(acc_i, &pi, 8);
    memcpy(acc_i + 8, isz, 32);
    memcpy(acc_i + 40, ist, 32);
    int32_t two = 2, zero = 0;
    uint8_t cip3 = 0, use3 = 1;
    float fdiv = 3.0f;
    void *a3[] = { acc_o, acc_i, &two, &two, &two, &two, &two, &two, &zero, &zero, &zero, &cip3, &zero,
                   &use3, &fdiv };
    tfl_kcall c3 = { .grid = { 1, 1, 2 }, .block = { 32, 8, 1 }, .args = a3 };
    spatial_kernel k3 = { .id = SK_AVGPOOL3D_BWD, .dtype = TFL_DT_F32, .elem_size = 4, .acc_size = 4,
                          .form = 1 };
    memset(&op, 0, sizeof op);
    CHECK(sp_decode_3d(&c3, &k3, &op, err, sizeof err) == TFL_ERR_INVALID,
          "2.15 avg_pool3d backward decodes up to its (host) operands");
    CHECK(op.divisor_override == 3, "2.15 avg_pool3d divisor from its float (got %lld)",
          (long long)op.divisor_override);
    fdiv = 2.5f;
    CHECK(sp_decode_3d(&c3, &k3, &op, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "a divisor that is not a whole number is not guessed at");
    use3 = 0;
    memset(&op, 0, sizeof op);
    sp_decode_3d(&c3, &k3, &op, err, sizeof err);
    CHECK(op.divisor_override == 0, "use_divisor false: the windows' own counts");
}

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_spatial, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    test_2_15_forms();
    test_names();
    test_refusals();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

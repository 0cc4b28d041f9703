/*
 * test_optable_emb_norm_index.c - the embedding / norm / index decoders
 * against real 2.11 kernel names: which names they claim (and refuse),
 * what they parse from them, and that a launch whose operands are not
 * device memory is refused with TFL_ERR_DEVICE before anything runs.
 * (The decode-and-run path itself is covered end to end by the PyTorch
 * tests in tests/pytorch/cuda.)
 */
#include <stdio.h>
#include <string.h>

#include "route/optable.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

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
        { &tfl_kfamily_norm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIffLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_", "layer_norm" },
        { &tfl_kfamily_norm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a24RowwiseMomentsCUDAKernelIffLb1EEEvlT0_PKT_PS3_S7_", "rms_norm_stats" },
        { &tfl_kfamily_norm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a35GammaBetaBackwardCUDAKernelTemplateIffLj32ELj1ELj32ELb1ELb0ELb0EEEvllPKT_S5_PKT0_S8_PS3_S9_", "layer_norm_backward_params" },
        { &tfl_kfamily_norm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a39layer_norm_grad_input_kernel_vectorizedIffLb0EEEvPKT_S5_PKT0_S8_S5_PS3_i", "layer_norm_backward" },
        /* half inputs (T = c10::Half, T_ACC = float) */
        { &tfl_kfamily_norm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIN3c104HalfEfLb0EEEviT0_PKT_S8_S8_PS5_S9_PS6_", "layer_norm" },
        /* double is not claimed */
        { &tfl_kfamily_norm, "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIddLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_", NULL },
        { &tfl_kfamily_embedding, "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a33embedding_backward_feature_kernelIfflEEvPKT1_PKT_PS6_ili", "embedding_backward" },
        { &tfl_kfamily_embedding, "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a33embedding_backward_feature_kernelIN3c104HalfEflEEvPKT1_PKT_PS8_ili", "embedding_backward" },
        { &tfl_kfamily_index, "_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb", "index_select_rows" },
        { &tfl_kfamily_index, "_ZN2at6native44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb21indexSelectSmallIndexIfljLi2ELi2ELin2EEEvNS_4cuda6detail10TensorInfoIT_T1_EENS5_IKS6_S7_EENS5_IKT0_S7_EEiiS7_l", "index_select" },
        { &tfl_kfamily_index, "_ZN2at6native19indexFuncLargeIndexIfljLi1ELi1ELin2ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_", "index_add" },
        { &tfl_kfamily_index, "_ZN2at6native19indexFuncLargeIndexIfljLi1ELi1ELin2ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_", "index_reduce_prod" },
        { &tfl_kfamily_index, "_ZN2at6native40_GLOBAL__N__0f1a8107_8_Shape_cu_49f7391c35CatArrayBatchedCopy_alignedK_contigINS1_10OpaqueTypeILj4EEEjLi2ELi128ELi1ELi16EEEvPT_NS1_25CatArrInputTensorMetadataIS5_T0_XT2_EXT3_EEENS1_16TensorSizeStrideIS8_Lj4EEEiS8_", "cat" },
        { &tfl_kfamily_index, "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1EflEclINS0_9ReduceAddEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_", "scatter_add" },
        { &tfl_kfamily_index, "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1EflEclINS0_10ReduceMeanEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_", "scatter_add" },  /* scatter_reduce mean: sums */
        { &tfl_kfamily_index, "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_17index_kernel_implINS0_10OpaqueTypeILi4EEEEEvRNS_18TensorIteratorBaseEN3c108ArrayRefIlEESA_EUlPcPKclE_EEvS7_SA_SA_RKT_bEUliE_EEvlT1_", "index" },
        { &tfl_kfamily_index, "_ZN50_GLOBAL__N__fa15d16e_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE", "arange" },
        /* arange into half: not mapped */
        { &tfl_kfamily_index, "_ZN50_GLOBAL__N__fa15d16e_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE6_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE", NULL },
        { &tfl_kfamily_index, "_ZN2at6native16triu_tril_kernelIbiLb0ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_", "tril" },
        { &tfl_kfamily_index, "_ZN44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb24indexing_backward_kernelIfLi4EEEvPKlS2_PKT_PS3_llllb", "index_put_sorted" },
        { &tfl_kfamily_index, "_ZN44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb33indexing_backward_kernel_stride_1IfEEvPKlS2_PKT_PS3_llllb", "index_put_sorted" },
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
    /* a family claims only its own kernels */
    void *cookie;
    CHECK(!tfl_kfamily_index.match(tab[0].name, &cookie), "index claimed layer norm");
    CHECK(!tfl_kfamily_norm.match(tab[5].name, &cookie), "norm claimed embedding");
}

/* operands outside device memory: refused before anything runs */
static void test_bad_pointers(void)
{
    char err[256];
    void *cookie;
    float stack_buf[64];

    /* layer norm: x, y, mean, rstd on the stack (not device memory) */
    const char *ln = "_ZN2at6native53_GLOBAL__N__21739cd4_20_layer_norm_kernel_cu_9c5ada8a28vectorized_layer_norm_kernelIffLb0EEEviT0_PKT_S6_S6_PS3_S7_PS4_";
    CHECK(tfl_kfamily_norm.match(ln, &cookie), "ln match");
    int32_t n = 8;
    float eps = 1e-5f;
    const void *x = stack_buf, *g = NULL, *b = NULL;
    float *mean = stack_buf + 16, *rstd = stack_buf + 24;
    void *y = stack_buf + 32;
    void *args[8] = { &n, &eps, &x, &g, &b, &mean, &rstd, &y };
    tfl_kcall c = { .name = ln, .grid = { 2, 1, 1 }, .block = { 32, 8, 1 }, .args = args };
    CHECK(tfl_kfamily_norm.run(&c, cookie, err, sizeof err) == TFL_ERR_INVALID, "ln bad ptr");

    /* row gather with a wild pointer */
    const char *vg = "_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb";
    CHECK(tfl_kfamily_index.match(vg, &cookie), "gather match");
    void *out = (void *)(uintptr_t)0x1000, *in = stack_buf;
    const void *idx = stack_buf;
    int32_t ni = 4;
    int64_t slice = 64, rows = 10, ins = 64, outs = 64;
    uint8_t neg = 0;
    void *gargs[9] = { &out, &in, &idx, &ni, &slice, &rows, &ins, &outs, &neg };
    tfl_kcall g2 = { .name = vg, .grid = { 4, 1, 1 }, .block = { 64, 1, 1 }, .args = gargs };
    CHECK(tfl_kfamily_index.run(&g2, cookie, err, sizeof err) == TFL_ERR_INVALID, "gather bad ptr");

    /* embedding backward */
    const char *eb = "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a33embedding_backward_feature_kernelIfflEEvPKT1_PKT_PS6_ili";
    CHECK(tfl_kfamily_embedding.match(eb, &cookie), "emb match");
    const void *ind = stack_buf, *grad = stack_buf;
    void *gw = stack_buf;
    int32_t en = 3, pad = -1;
    int64_t stride = 4;
    void *eargs[6] = { &ind, &grad, &gw, &en, &stride, &pad };
    tfl_kcall e = { .name = eb, .grid = { 1, 1, 1 }, .block = { 32, 32, 1 }, .args = eargs };
    CHECK(tfl_kfamily_embedding.run(&e, cookie, err, sizeof err) == TFL_ERR_INVALID, "emb bad ptr");
}

int main(void)
{
    test_names();
    test_bad_pointers();
    printf("test_optable_emb_norm_index: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

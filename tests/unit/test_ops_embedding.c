/*
 * test_ops_embedding.c - host_embedding (dense embedding backward): rows
 * of the gradient add into the weight-gradient rows their indices name,
 * padding skipped, repeated indices summed, an out-of-range index refused
 * before anything is written.  Reference: a double accumulation here.
 * And the embedding family's decoder: layout() against the 2.11 and 2.15
 * cubins' parameter tables (every kernel form, including the release
 * changes of renorm, the per-sample-weights backward and the max-mode
 * backward), and the later forms' new parameters read where they lie.
 * max_norm's index wrap (2.13+): the host op (wrap, device-side assert)
 * and the kernel decoded from launches on pool memory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "mem/mem.h"
#include "route/optable.h"
#include "route/runtime.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

enum { V = 11, L = 5, N = 40 };

static void run(tfl_dtype it, int64_t padding)
{
    int64_t idx64[N];
    int32_t idx32[N];
    float grad[N * L], gw[V * L];
    double ref[V * L];
    for (int i = 0; i < N; i++) {
        idx64[i] = (i * 7 + 3) % V;          /* repeats: every row several times */
        idx32[i] = (int32_t)idx64[i];
        for (int f = 0; f < L; f++)
            grad[i * L + f] = (float)((i + 1) * 0.25 - f * 1.5);
    }
    for (int k = 0; k < V * L; k++) {
        gw[k] = 0.5f;                          /* accumulated into, not overwritten */
        ref[k] = 0.5;
    }
    for (int i = 0; i < N; i++)
        if (idx64[i] != padding)
            for (int f = 0; f < L; f++)
                ref[idx64[i] * L + f] += grad[i * L + f];
    tfl_embedding_op op = { .kind = TFL_EMBEDDING_BWD_DENSE, .dtype = TFL_DT_F32,
                            .index_dtype = it, .indices = it == TFL_DT_I64 ? (void *)idx64 : (void *)idx32,
                            .n = N, .grad = grad, .grad_weight = gw, .row_len = L,
                            .weight_rows = V, .padding_idx = padding };
    CHECK(host_embedding_supported(&op), "supported");
    CHECK(host_embedding(&op) == TFL_OK, "run");
    for (int k = 0; k < V * L; k++)
        CHECK(fabs(gw[k] - ref[k]) <= 1e-5 * (1 + fabs(ref[k])), "gw[%d] %g vs %g", k, gw[k], ref[k]);
    if (padding >= 0)
        for (int f = 0; f < L; f++)
            CHECK(gw[padding * L + f] == 0.5f, "padding row untouched");
}

/* Mangled names and parameter tables (offset:size) as the 2.11 and 2.15
 * sm_80 cubins record them (scripts/wheel_kernels.py; the comment names
 * the releases that ship the same name and layout): the family's layout()
 * must state exactly these. */
static const cubin_layout cubin[] = {
    /* 2.11.0-2.12.1: embedding_backward_feature_kernel<float, float, long> */
    { "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a33embedding_backward_feature_kernelIfflEEvPKT1_PKT_PS6_ili",
      "0:8 8:8 16:8 24:4 32:8 40:4" },
    /* 2.13.0-2.15.0: embedding_backward_feature_kernel<c10::BFloat16, float, int> */
    { "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a33embedding_backward_feature_kernelIN3c108BFloat16EfiEEvPKT1_PKT_PS8_ili",
      "0:8 8:8 16:8 24:4 32:8 40:4" },
    /* 2.11.0-2.12.1: EmbeddingBag_updateOutputKernel_max<float, int> */
    { "_ZN2at6native48_GLOBAL__N__9af91b36_15_EmbeddingBag_cu_c8847c2f35EmbeddingBag_updateOutputKernel_maxIfiEEvPKT0_S5_PKT_PS6_PS3_lllllSA_SA_S3_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:4 104:8" },
    /* 2.13.0-2.15.0: EmbeddingBag_updateOutputKernel_max<double, long> */
    { "_ZN2at6native48_GLOBAL__N__e790c892_15_EmbeddingBag_cu_c8847c2f35EmbeddingBag_updateOutputKernel_maxIdlEEvPKT0_S5_PKT_PS6_PS3_lllllSA_SA_S3_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8" },
    /* 2.11.0-2.12.1: EmbeddingBag_updateOutputKernel_sum_mean<float, int> */
    { "_ZN2at6native48_GLOBAL__N__9af91b36_15_EmbeddingBag_cu_c8847c2f40EmbeddingBag_updateOutputKernel_sum_meanIfiEEvPKT0_S5_PKT_PS6_PS3_llllliSA_S8_lS3_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:4 88:8 96:8 104:8 112:4 120:8" },
    /* 2.13.0-2.15.0: EmbeddingBag_updateOutputKernel_sum_mean<double, long> */
    { "_ZN2at6native48_GLOBAL__N__e790c892_15_EmbeddingBag_cu_c8847c2f40EmbeddingBag_updateOutputKernel_sum_meanIdlEEvPKT0_S5_PKT_PS6_PS3_llllliSA_S8_lS3_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:4 88:8 96:8 104:8 112:8 120:8" },
    /* 2.11.0-2.12.1: EmbeddingBag_accGradParametersKernel_max<float, int> */
    { "_ZN2at6native48_GLOBAL__N__9af91b36_15_EmbeddingBag_cu_c8847c2f40EmbeddingBag_accGradParametersKernel_maxIfiEEvPKT0_PKT_PS6_llS3_S3_",
      "0:8 8:8 16:8 24:8 32:8 40:4 44:4" },
    /* 2.14.1-2.15.0: EmbeddingBag_accGradParametersKernel_max<float, int> */
    { "_ZN2at6native48_GLOBAL__N__e790c892_15_EmbeddingBag_cu_c8847c2f40EmbeddingBag_accGradParametersKernel_maxIfiEEvPKT0_PKT_PS6_llS3_l",
      "0:8 8:8 16:8 24:8 32:8 40:4 48:8" },
    /* 2.14.1-2.15.0: EmbeddingBag_accGradParametersKernel_max<double, long> */
    { "_ZN2at6native48_GLOBAL__N__e790c892_15_EmbeddingBag_cu_c8847c2f40EmbeddingBag_accGradParametersKernel_maxIdlEEvPKT0_PKT_PS6_llS3_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8" },
    /* 2.11.0-2.12.1: compute_grad_weight_bags<float, long> */
    { "_ZN2at6native59_GLOBAL__N__4b0cc4ca_26_EmbeddingBackwardKernel_cu_5d1cf09b24compute_grad_weight_bagsIflEEvPKT0_PKT_S5_S5_lliS5_S8_lS5_PKlPNS_14AccumulateTypeIS6_Lb1EE4typeEl",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4 56:8 64:8 72:8 80:8 88:8 96:8 104:8" },
    /* 2.13.0-2.15.0: compute_grad_weight_bags<double, int> */
    { "_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackwardKernel_cu_5d1cf09b24compute_grad_weight_bagsIdiEEvPKT0_PKT_S5_S5_lliS5_S8_lS5_PKlPNS_14AccumulateTypeIS6_Lb1EE4typeEl",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:4 56:8 64:8 72:8 80:8 88:8 96:8 104:8" },
    /* 2.11.0-2.14.1: _embedding_bag_per_sample_weights_backward_kernel<float, int> */
    { "_ZN2at6native49_embedding_bag_per_sample_weights_backward_kernelIfiEEvPKT_llS4_llPKT0_S7_llPS2_S5_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:4" },
    /* 2.15.0: _embedding_bag_per_sample_weights_backward_kernel<float, int> */
    { "_ZN2at6native49_embedding_bag_per_sample_weights_backward_kernelIfiEEvPKT_llS4_llPKT0_S7_llllPS2_S5_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:4" },
    /* 2.15.0: _embedding_bag_per_sample_weights_backward_kernel<double, long> */
    { "_ZN2at6native49_embedding_bag_per_sample_weights_backward_kernelIdlEEvPKT_llS4_llPKT0_S7_llllPS2_S5_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8" },
    /* 2.11.0-2.12.1: renorm_kernel<float, float, int const> */
    { "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a13renorm_kernelIffKiEEvPT_PT1_T0_S8_lllPKl",
      "0:8 8:8 16:4 20:4 24:8 32:8 40:8 48:8" },
    /* 2.13.0-2.15.0: renorm_kernel<float, float, int const> */
    { "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a13renorm_kernelIffKiEEvPT_PT1_T0_S8_llllPKl",
      "0:8 8:8 16:4 20:4 24:8 32:8 40:8 48:8 56:8" },
    /* 2.11.0-2.12.1: renorm_kernel<double, double, long const> */
    { "_ZN2at6native45_GLOBAL__N__83039fe0_12_Embedding_cu_9c8c8d3a13renorm_kernelIddKlEEvPT_PT1_T0_S8_lllPS3_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8" },
    /* 2.13.0-2.15.0: renorm_kernel<c10::Half, float, long const> */
    { "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a13renorm_kernelIN3c104HalfEfKlEEvPT_PT1_T0_SA_llllPS5_",
      "0:8 8:8 16:4 20:4 24:8 32:8 40:8 48:8 56:8" },
    /* 2.13.0-2.15.0 (new in 2.13): embedding_renorm_wrap_indices_kernel<long> */
    { "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a36embedding_renorm_wrap_indices_kernelIlEEvPKT_PS3_ll",
      "0:8 8:8 16:8 24:8" },
    /* 2.13.0-2.15.0: embedding_renorm_wrap_indices_kernel<int> */
    { "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a36embedding_renorm_wrap_indices_kernelIiEEvPKT_PS3_ll",
      "0:8 8:8 16:8 24:8" },
};

/* renorm_kernel 2.13+ (weights, indices, max_norm, norm_type, dim,
 * num_rows, stride0, stride1, num_unique): a negative num_rows is refused
 * before anything is read through the pointers. */
static void test_renorm_num_rows(void)
{
    const char *name = "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a13renorm_kernelIffKiEEvPT_PT1_T0_S8_llllPKl";
    void *cookie = NULL;
    CHECK(tfl_kfamily_embedding.match(name, &cookie) == 1, "2.15 renorm");
    if (!cookie)
        return;
    float w[16];
    int32_t ind[2] = { 0, 1 };
    int64_t nu = 2, dim = 4, rows = -1, s0 = 4, s1 = 1;
    float mx = 1.0f, nt = 2.0f;
    void *wp = w, *ip = ind, *np = &nu;
    void *args[9] = { &wp, &ip, &mx, &nt, &dim, &rows, &s0, &s1, &np };
    tfl_kcall c = { .name = name, .grid = { 2, 1, 1 }, .block = { 32, 1, 1 }, .args = args };
    char err[256] = "";
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED, "rows -1: %s", err);
    rows = 4;
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_INVALID, "stack operands: %s", err);
    free(cookie);
}

/* _embedding_bag_per_sample_weights_backward_kernel 2.15: num_bags and
 * num_weights sit between features and the output. */
static void test_psw_bounds(void)
{
    const char *name = "_ZN2at6native49_embedding_bag_per_sample_weights_backward_kernelIfiEEvPKT_llS4_llPKT0_S7_llllPS2_S5_";
    void *cookie = NULL;
    CHECK(tfl_kfamily_embedding.match(name, &cookie) == 1, "2.15 psw backward");
    if (!cookie)
        return;
    float g[16], w[16], out[4];
    int32_t ind[4] = { 0 }, o2b[4] = { 0 }, pad = -1;
    int64_t gs0 = 4, gs1 = 1, ws0 = 4, ws1 = 1, ns = 4, feat = 4, nb = -1, nw = 4;
    void *gp = g, *wp = w, *ip = ind, *bp = o2b, *op = out;
    void *args[14] = { &gp, &gs0, &gs1, &wp, &ws0, &ws1, &ip, &bp, &ns, &feat, &nb, &nw, &op, &pad };
    tfl_kcall c = { .name = name, .grid = { 1, 1, 1 }, .block = { 128, 1, 1 }, .args = args };
    char err[256] = "";
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED, "bags -1: %s", err);
    nb = 4;
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_INVALID, "stack operands: %s", err);
    free(cookie);
}

/* The host op: negative indices wrapped by weight_rows, in place or not,
 * both index types; an index outside [-rows, rows) fails (the kernel's
 * device-side assert) before anything is written. */
static void test_wrap_host(void)
{
    int64_t in64[6] = { 0, -1, 4, -5, 2, -3 }, out64[6];
    int32_t in32[6] = { 0, -1, 4, -5, 2, -3 };
    const int64_t want[6] = { 0, 4, 4, 0, 2, 2 };
    tfl_embedding_op op = { .kind = TFL_EMBEDDING_WRAP_INDICES, .index_dtype = TFL_DT_I64,
                            .indices = in64, .wrapped = out64, .n = 6, .weight_rows = 5 };
    CHECK(host_embedding_supported(&op), "wrap supported");
    CHECK(host_embedding(&op) == TFL_OK, "wrap i64");
    for (int i = 0; i < 6; i++)
        CHECK(out64[i] == want[i], "wrap i64 [%d] %lld vs %lld", i, (long long)out64[i],
              (long long)want[i]);
    op.index_dtype = TFL_DT_I32;
    op.indices = op.wrapped = in32;                  /* in place */
    CHECK(host_embedding(&op) == TFL_OK, "wrap i32 in place");
    for (int i = 0; i < 6; i++)
        CHECK(in32[i] == want[i], "wrap i32 [%d] %d vs %lld", i, in32[i], (long long)want[i]);
    static const int64_t bad[] = { 5, -6, INT64_MAX, INT64_MIN };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        int64_t in[3] = { 1, bad[b], -2 }, out[3] = { 7, 7, 7 };
        op.index_dtype = TFL_DT_I64;
        op.indices = in;
        op.wrapped = out;
        op.n = 3;
        CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "index %lld accepted", (long long)bad[b]);
        CHECK(out[0] == 7 && out[1] == 7 && out[2] == 7, "index %lld: output written",
              (long long)bad[b]);
    }
    op.index_dtype = TFL_DT_F32;
    CHECK(!host_embedding_supported(&op), "float indices supported");
}

/* The 2.13+ kernel decoded from synthesized launches on pool memory: the
 * x threads bound the elements, an out-of-range index is TFL_ERR_DEVICE,
 * operands outside device memory are refused. */
static void test_wrap_decode(void)
{
    const char *name = "_ZN2at6native45_GLOBAL__N__495ba4d0_12_Embedding_cu_9c8c8d3a36embedding_renorm_wrap_indices_kernelIiEEvPKT_PS3_ll";
    void *cookie = NULL;
    CHECK(tfl_kfamily_embedding.match(name, &cookie) == 1 && cookie &&
          strcmp(tfl_kfamily_embedding.op_name(cookie), "embedding_renorm_wrap") == 0,
          "wrap kernel claimed");
    int32_t *in = NULL, *out = NULL;
    CHECK(tfl_rt_init() == TFL_OK, "runtime");
    if (!cookie || tfl_mem_alloc(300 * 4, TFL_MEM_DEVICE, 0, 0, (void **)&in) != TFL_OK ||
        tfl_mem_alloc(300 * 4, TFL_MEM_DEVICE, 0, 0, (void **)&out) != TFL_OK) {
        CHECK(0, "pool allocation");
        return;
    }
    for (int i = 0; i < 300; i++) {
        in[i] = i % 2 ? -(i % 7) - 1 : i % 7;      /* in [-7, 7): rows 7 */
        out[i] = -100;
    }
    int64_t numel = 300, rows = 7;
    void *args[4] = { &in, &out, &numel, &rows };
    tfl_kcall c = { .name = name, .grid = { 2, 1, 1 }, .block = { 128, 1, 1 }, .args = args };
    char err[256] = "";
    /* 256 x threads: elements 256..299 are not this launch's */
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_OK, "wrap: %s", err);
    int bad = 0;
    for (int i = 0; i < 300; i++)
        bad += out[i] != (i < 256 ? (in[i] < 0 ? in[i] + 7 : in[i]) : -100);
    CHECK(bad == 0, "wrap: %d wrong", bad);
    c.grid[0] = 3;
    in[299] = 7;                                     /* the assert */
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_DEVICE,
          "index 7 of 7 rows accepted");
    CHECK(out[256] == -100, "failed launch wrote");
    in[299] = -8;
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_DEVICE,
          "index -8 of 7 rows accepted");
    in[299] = 0;
    rows = -1;
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "negative row count accepted");
    rows = 7;
    int32_t stack[4] = { 0 };
    void *sp = stack;
    void *args2[4] = { &sp, &out, &numel, &rows };
    numel = 4;
    c.args = args2;
    CHECK(tfl_kfamily_embedding.run(&c, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "stack operand accepted: %s", err);
    free(cookie);
    tfl_mem_free(in, 1u << TFL_MEM_DEVICE);
    tfl_mem_free(out, 1u << TFL_MEM_DEVICE);
}

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_embedding, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    test_renorm_num_rows();
    test_psw_bounds();
    test_wrap_host();
    test_wrap_decode();
    run(TFL_DT_I64, -1);
    run(TFL_DT_I32, -1);
    run(TFL_DT_I64, 3);
    run(TFL_DT_I32, 0);

    /* an index past the table: error, grad_weight untouched */
    int64_t idx[3] = { 1, V, 2 };
    float grad[3 * L], gw[V * L], before[V * L];
    for (int k = 0; k < 3 * L; k++) grad[k] = 1.0f;
    for (int k = 0; k < V * L; k++) gw[k] = before[k] = (float)k;
    tfl_embedding_op op = { .kind = TFL_EMBEDDING_BWD_DENSE, .dtype = TFL_DT_F32,
                            .index_dtype = TFL_DT_I64, .indices = idx, .n = 3, .grad = grad,
                            .grad_weight = gw, .row_len = L, .weight_rows = V, .padding_idx = -1 };
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "out of range refused");
    CHECK(memcmp(gw, before, sizeof gw) == 0, "nothing written");
    idx[1] = -4;
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "negative refused");
    op.dtype = TFL_DT_F64;
    CHECK(!host_embedding_supported(&op), "f64 not claimed");
    printf("test_ops_embedding: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

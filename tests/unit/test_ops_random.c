/*
 * test_ops_random.c - Philox4x32-10 against the Random123 known-answer
 * vectors, the cuRAND counter layout (curand_init / skipahead), and the
 * host "random" op: determinism, statistics, dropout semantics; the
 * decoder's parameter layouts against the cubins of 2.11 and 2.15.
 *
 * KAT source: Random123 (D. E. Shaw Research, Salmon et al., SC 2011),
 * examples/kat_vectors, lines "philox4x32 10 <ctr x4> <key x2> <out x4>".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_random_philox.h"
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

static void test_kat(void)
{
    static const struct { uint32_t ctr[4], key[2], out[4]; } kat[] = {
        { { 0, 0, 0, 0 }, { 0, 0 },
          { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
        { { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff }, { 0xffffffff, 0xffffffff },
          { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
        { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 },
          { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
    };
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        uint32_t out[4];
        tfl_philox4x32_10(kat[i].ctr, kat[i].key, out);
        for (int j = 0; j < 4; j++)
            CHECK(out[j] == kat[i].out[j], "kat %zu word %d: %08x != %08x",
                  i, j, out[j], kat[i].out[j]);
    }
}

/* curand_init(seed, subseq, offset): key = seed, counter words 2-3 =
 * subsequence, words 0-1 = offset / 4, and offset % 4 values skipped. */
static void test_state_layout(void)
{
    const uint64_t seed = 0x0123456789abcdefull, subseq = 0x100000002ull;
    const uint32_t key[2] = { 0x89abcdef, 0x01234567 };
    tfl_philox_state s;
    uint32_t r[4], e0[4], e1[4];

    /* offset 8: blocks at counter 2 and 3 */
    tfl_philox_init(&s, seed, subseq, 8);
    uint32_t c2[4] = { 2, 0, 2, 1 }, c3[4] = { 3, 0, 2, 1 };
    tfl_philox4x32_10(c2, key, e0);
    tfl_philox4x32_10(c3, key, e1);
    tfl_philox_next4(&s, r);
    CHECK(memcmp(r, e0, sizeof r) == 0, "first draw at offset 8 is not block (2,0,2,1)");
    tfl_philox_next4(&s, r);
    CHECK(memcmp(r, e1, sizeof r) == 0, "second draw is not the next block");

    /* offset 6: starts at word 2 of block 1 */
    tfl_philox_init(&s, seed, subseq, 6);
    uint32_t c1[4] = { 1, 0, 2, 1 };
    tfl_philox4x32_10(c1, key, e0);
    tfl_philox4x32_10(c2, key, e1);
    tfl_philox_next4(&s, r);
    CHECK(r[0] == e0[2] && r[1] == e0[3] && r[2] == e1[0] && r[3] == e1[1],
          "offset 6 does not straddle blocks 1 and 2");

    /* counter carry from word 0 into word 1: offset 2^64-4 is block
     * 2^62-1 = (0xffffffff, 0x3fffffff); the next block is (0, 0x40000000) */
    tfl_philox_init(&s, seed, 0, 0xfffffffffffffffcull);
    tfl_philox_next4(&s, r);
    tfl_philox_next4(&s, r);
    uint32_t cc[4] = { 0, 0x40000000, 0, 0 };
    tfl_philox4x32_10(cc, key, e0);
    CHECK(memcmp(r, e0, sizeof r) == 0, "counter increment does not carry into word 1");

    /* the direct (counter-based) k-th draw equals k+1 sequential draws,
     * also for offsets that are not a multiple of 4 */
    {
        int ok = 1;
        for (uint64_t off = 0; off < 8; off++) {
            tfl_philox_init(&s, seed, 77, off);
            for (uint64_t k = 0; k < 5; k++) {
                uint32_t d[4];
                tfl_philox_next4(&s, r);
                tfl_philox_draw(seed, 77, off, k, d);
                ok &= memcmp(r, d, sizeof r) == 0;
            }
        }
        CHECK(ok, "tfl_philox_draw disagrees with sequential draws");
    }

    /* uniform transform stays in (0, 1] and hits both ends correctly */
    CHECK(tfl_curand_uniform(0) > 0.0f, "uniform(0) = %g", tfl_curand_uniform(0));
    CHECK(tfl_curand_uniform(0xffffffffu) == 1.0f, "uniform(max) = %.9g",
          tfl_curand_uniform(0xffffffffu));
}

static tfl_random_op base_op(tfl_random_kind kind, void *out, int64_t n, uint64_t seed)
{
    tfl_random_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
    op.seed = seed;
    op.offset = 0;
    op.threads = 256 * 864;   /* what PyTorch picks for 108 SMs */
    op.numel = n;
    op.dtype = TFL_DT_F32;
    op.out.data = out;
    return op;
}

static void moments(const float *x, int64_t n, double *mean, double *sd)
{
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / (double)n;
    for (int64_t i = 0; i < n; i++)
        s2 += (x[i] - *mean) * (x[i] - *mean);
    *sd = sqrt(s2 / (double)(n - 1));
}

static void test_distributions(void)
{
    const int64_t n = 1000000;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    double mean, sd;

    /* uniform in [2, 5): mean 3.5, sd 3/sqrt(12) */
    tfl_random_op op = base_op(TFL_RANDOM_UNIFORM, a, n, 42);
    op.a = 3.0f; op.b = 2.0f; op.c = 5.0f;
    CHECK(host_random(&op) == TFL_OK, "uniform");
    int inside = 1;
    for (int64_t i = 0; i < n; i++)
        inside &= a[i] >= 2.0f && a[i] < 5.0f;
    CHECK(inside, "uniform value outside [2, 5)");
    moments(a, n, &mean, &sd);
    CHECK(fabs(mean - 3.5) < 0.01, "uniform mean %g", mean);
    CHECK(fabs(sd - 3.0 / sqrt(12.0)) < 0.01, "uniform sd %g", sd);

    /* same seed: same numbers; other seed or offset: different */
    op.out.data = b;
    host_random(&op);
    CHECK(memcmp(a, b, n * sizeof *a) == 0, "same seed gave different numbers");
    op.seed = 43;
    host_random(&op);
    CHECK(memcmp(a, b, n * sizeof *a) != 0, "other seed gave the same numbers");
    op.seed = 42; op.offset = 4;
    host_random(&op);
    CHECK(memcmp(a, b, n * sizeof *a) != 0, "other offset gave the same numbers");

    /* element -> (thread, draw, word) mapping: element t + T*(4k+j) is word
     * j of thread t's k-th draw */
    {
        op.offset = 0; op.threads = 3; op.numel = 30; op.out.data = a;
        op.a = 1.0f; op.b = 0.0f; op.c = 1.0f;
        host_random(&op);
        int ok = 1;
        for (int t = 0; t < 3; t++) {
            tfl_philox_state s;
            tfl_philox_init(&s, 42, (uint64_t)t, 0);
            for (int k = 0; k < 3; k++) {
                uint32_t r[4];
                tfl_philox_next4(&s, r);
                for (int j = 0; j < 4; j++) {
                    int li = t + 3 * (4 * k + j);
                    if (li >= 30)
                        continue;
                    float u = tfl_curand_uniform(r[j]);
                    float want = u == 1.0f ? 0.0f : u;
                    ok &= a[li] == want;
                }
            }
        }
        CHECK(ok, "grid-stride element mapping");
    }

    /* nothing is written past numel (guard elements after the end) */
    {
        float g[40];
        for (int i = 0; i < 40; i++) g[i] = -7.0f;
        tfl_random_op gop = base_op(TFL_RANDOM_UNIFORM, g, 33, 5);
        gop.threads = 5;
        gop.a = 1.0f; gop.b = 0.0f; gop.c = 1.0f;
        host_random(&gop);
        int ok = 1;
        for (int i = 0; i < 33; i++) ok &= g[i] >= 0.0f && g[i] < 1.0f;
        for (int i = 33; i < 40; i++) ok &= g[i] == -7.0f;
        CHECK(ok, "uniform wrote outside [0, numel)");
    }

    /* normal(1, 2) */
    op = base_op(TFL_RANDOM_NORMAL, a, n, 7);
    op.a = 2.0f; op.b = 1.0f;
    CHECK(host_random(&op) == TFL_OK, "normal");
    moments(a, n, &mean, &sd);
    CHECK(fabs(mean - 1.0) < 0.01, "normal mean %g", mean);
    CHECK(fabs(sd - 2.0) < 0.01, "normal sd %g", sd);

    /* bernoulli(0.3) */
    op = base_op(TFL_RANDOM_BERNOULLI, a, n, 9);
    op.a = 0.3f;
    CHECK(host_random(&op) == TFL_OK, "bernoulli");
    int64_t ones = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        ones += a[i] == 1.0f;
        bad += a[i] != 0.0f && a[i] != 1.0f;
    }
    CHECK(bad == 0, "bernoulli produced %lld values other than 0/1", (long long)bad);
    CHECK(fabs((double)ones / n - 0.3) < 0.003, "bernoulli rate %g", (double)ones / n);

    /* integers in [-3, 7) */
    int64_t *iv = malloc(n * sizeof *iv);
    op = base_op(TFL_RANDOM_INT_FROM_TO, iv, n, 11);
    op.dtype = TFL_DT_I64; op.bits = 32; op.range = 10; op.base = -3;
    CHECK(host_random(&op) == TFL_OK, "randint");
    int64_t hist[10] = { 0 };
    int range_ok = 1;
    for (int64_t i = 0; i < n; i++) {
        if (iv[i] < -3 || iv[i] >= 7) { range_ok = 0; continue; }
        hist[iv[i] + 3]++;
    }
    CHECK(range_ok, "randint outside [-3, 7)");
    for (int k = 0; k < 10; k++)
        CHECK(fabs((double)hist[k] / n - 0.1) < 0.003, "randint bucket %d: %g", k,
              (double)hist[k] / n);
    free(iv);
    free(a);
    free(b);
}

static void test_dropout(void)
{
    const int64_t n = 1 << 20;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *y2 = malloc(n * sizeof *y2);
    uint8_t *m = malloc(n), *m2 = malloc(n);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)(i % 97) - 48.0f;
    const float keep = 0.7f;
    const float scale = (float)(1.0 / (double)keep);
    int vecs[] = { 0, 2, 4, 8, 16 };
    for (size_t v = 0; v < sizeof vecs / sizeof vecs[0]; v++) {
        tfl_random_op op = base_op(TFL_RANDOM_DROPOUT, y, n, 1234);
        op.in.data = x;
        op.mask.data = m;
        op.mask_dtype = TFL_DT_BOOL;
        op.a = keep;
        if (vecs[v]) {
            op.traverse = TFL_RANDOM_TRAVERSE_VEC;
            op.vec = vecs[v];
        }
        CHECK(host_random(&op) == TFL_OK, "dropout vec %d", vecs[v]);
        int64_t kept = 0, wrong = 0;
        for (int64_t i = 0; i < n; i++) {
            if (m[i] > 1) { wrong++; continue; }
            kept += m[i];
            float want = m[i] ? x[i] * 1.0f * scale : x[i] * 0.0f * scale;
            wrong += y[i] != want;
        }
        CHECK(wrong == 0, "vec %d: %lld outputs are not x*mask/keep", vecs[v], (long long)wrong);
        CHECK(fabs((double)kept / n - keep) < 0.003, "vec %d: kept fraction %g",
              vecs[v], (double)kept / n);
        /* deterministic */
        op.out.data = y2;
        op.mask.data = m2;
        host_random(&op);
        CHECK(memcmp(y, y2, n * sizeof *y) == 0 && memcmp(m, m2, n) == 0,
              "vec %d: not deterministic", vecs[v]);
    }

    /* vec 4 and the unvectorised kernel draw differently: element 1 is word 1
     * of thread 0 with vec 4, word 0 of thread 1 grid-stride */
    {
        tfl_random_op op = base_op(TFL_RANDOM_DROPOUT, y, 8, 5);
        op.threads = 2;
        op.in.data = x; op.mask.data = m; op.mask_dtype = TFL_DT_U8; op.a = 0.5f;
        op.traverse = TFL_RANDOM_TRAVERSE_VEC; op.vec = 4;
        host_random(&op);
        tfl_philox_state s;
        uint32_t r[4];
        tfl_philox_init(&s, 5, 1, 0);
        tfl_philox_next4(&s, r);
        int ok = 1;
        for (int j = 0; j < 4; j++)
            ok &= m[4 + j] == (tfl_curand_uniform(r[j]) < 0.5f);
        CHECK(ok, "vec 4: elements 4..7 are not thread 1's first draw");
    }

    /* strided view: the output lands where the view says */
    {
        float out[6];
        for (int i = 0; i < 6; i++) out[i] = -1.0f;
        tfl_random_op op = base_op(TFL_RANDOM_UNIFORM, out, 3, 77);
        op.a = 1.0f; op.b = 0.0f; op.c = 1.0f;
        op.out.ndim = 1; op.out.sizes[0] = 3; op.out.strides[0] = 8;
        host_random(&op);
        CHECK(out[1] == -1.0f && out[3] == -1.0f && out[5] == -1.0f,
              "strided write touched the gaps");
        CHECK(out[0] >= 0.0f && out[2] >= 0.0f && out[4] >= 0.0f, "strided write missing");
    }

    /* refused: unknown dtype */
    tfl_random_op bad = base_op(TFL_RANDOM_UNIFORM, y, 4, 1);
    bad.dtype = TFL_DT_C64;
    CHECK(host_random(&bad) == TFL_ERR_UNSUPPORTED, "complex output accepted");
    free(x); free(y); free(y2); free(m); free(m2);
}

/* The decoder: which kernel names it claims, and bad launches refused
 * with an error instead of a crash (pointers outside device memory). */
static void test_decoder(void)
{
    static const char *claimed[] = {
        /* torch.rand (float, trivial 1-d) */
        "_ZN2at6native55_GLOBAL__N__11f7a751_22_DistributionUniform_cu_67fa25cf43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_14uniform_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESF_SG_",
        /* half normal_ (normal_and_transform<c10::Half, float>) */
        "_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6e8543distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda20normal_and_transformIN3c104HalfEfPNS_17CUDAGeneratorImplEZZZNS4_13normal_kernelIS9_EEvRKNS_10TensorBaseEddT_ENKUlvE_clEvENKUlvE1_clEvEUlfE_EEvRNS_18TensorIteratorBaseET1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIS7_f6float4S9_SO_SH_EEvSJ_SL_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESK_SL_",
        /* half bernoulli_(p) */
        "_ZN2at6native57_GLOBAL__N__d8df7886_24_DistributionBernoulli_cu_7537a20d43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIN3c104HalfEfPNS_17CUDAGeneratorImplEZZZNS4_16bernoulli_kernelIS9_EEvRNS_18TensorIteratorBaseEdT_ENKUlvE_clEvENKUlvE6_clEvEUlfE_EEvSC_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIS7_f6float4S9_SL_SG_EEvSC_SI_RKT3_T4_EUlifE0_EEvlNS_15PhiloxCudaStateESH_SI_",
        /* F.dropout, vectorised */
        "_ZN2at6native43_GLOBAL__N__50f1b6c4_10_Dropout_cu_0e96ed3824fused_dropout_kernel_vecIffjLi1ELi4EbEEvNS_4cuda6detail10TensorInfoIKT_T1_EENS5_IS6_S8_EENS5_IT4_S8_EES8_T0_NS_15PhiloxCudaStateE",
        /* torch.randint into half */
        "_ZN2at6native60_GLOBAL__N__2b2da9da_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelIjLi4EZZZNS0_9templates4cuda21random_from_to_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseEmlT_ENKUlvE_clEvENKUlvE7_clEvEUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIN3c104HalfEj5uint4S7_SF_ZZZS5_IS7_EvS9_mlSA_ENKSB_clEvENKSC_clEvEUljE_EEvS9_T2_RKT3_T4_EUlijE0_EEvlNS_15PhiloxCudaStateET1_SL_",
    };
    static const char *refused[] = {
        /* int16 random_: no int16 dtype in the op ABI, not mapped */
        "_ZN2at6native60_GLOBAL__N__2b2da9da_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelIjLi4EZZZNS0_9templates4cuda21random_from_to_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseEmlT_ENKUlvE_clEvENKUlvE7_clEvEUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIsj5uint4S7_SF_ZZZS5_IS7_EvS9_mlSA_ENKSB_clEvENKSC_clEvEUljE_EEvS9_T2_RKT3_T4_EUlijE0_EEvlNS_15PhiloxCudaStateET1_SL_",
        "_Z11clascl_fulliifP6float2i",
    };
    void *cookie = NULL;
    for (size_t i = 0; i < sizeof claimed / sizeof claimed[0]; i++)
        CHECK(tfl_kfamily_random.match(claimed[i], &cookie) == 1, "claimed %zu", i);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK(tfl_kfamily_random.match(refused[i], &cookie) == 0, "refused %zu", i);

    /* uniform with an output pointer that is no device memory */
    {
        tfl_kfamily_random.match(claimed[0], &cookie);
        int64_t numel = 1000;
        unsigned char philox[32] = { 0 };
        unsigned char dist = 0;
        unsigned char lam[24] = { 0 };
        uintptr_t bogus = 0x1000;
        int32_t stride = 4;
        float range = 1, from = 0, to = 1;
        memcpy(lam, &bogus, 8);
        memcpy(lam + 8, &stride, 4);
        memcpy(lam + 12, &range, 4);
        memcpy(lam + 16, &from, 4);
        memcpy(lam + 20, &to, 4);
        void *args[4] = { &numel, philox, &dist, lam };
        tfl_kcall call = { .name = claimed[0], .grid = { 4, 1, 1 }, .block = { 256, 1, 1 },
                           .args = args };
        char err[256] = "";
        CHECK(tfl_kfamily_random.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
              "bogus output accepted: %s", err);
        CHECK(strstr(err, "random") != NULL, "error text: %s", err);
        /* captured state whose seed/offset pointers are bogus */
        philox[24] = 1;
        memcpy(philox, &bogus, 8);
        memcpy(philox + 8, &bogus, 8);
        err[0] = 0;
        CHECK(tfl_kfamily_random.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
              "bogus captured philox pointers accepted: %s", err);
        /* a 2-d launch is not what PyTorch does: refused, not guessed */
        call.grid[1] = 2;
        CHECK(tfl_kfamily_random.run(&call, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED,
              "2-d grid accepted");
    }
    /* dropout with bogus tensors */
    {
        tfl_kfamily_random.match(claimed[1], &cookie);
        unsigned char a[216] = { 0 }, b[216] = { 0 }, m[216] = { 0 }, philox[32] = { 0 };
        uintptr_t bogus = 0x2000;
        memcpy(a, &bogus, 8);
        memcpy(b, &bogus, 8);
        memcpy(m, &bogus, 8);
        uint32_t total = 4096;
        float p = 0.9f;
        void *args[6] = { a, b, m, &total, &p, philox };
        tfl_kcall call = { .name = claimed[1], .grid = { 4, 1, 1 }, .block = { 256, 1, 1 },
                           .args = args };
        char err[256] = "";
        CHECK(tfl_kfamily_random.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
              "bogus dropout tensors accepted: %s", err);
    }
}

/* cauchy / log_normal / geometric / rrelu: each element against a double
 * reference built from the same Philox draw (grid-stride: element
 * t + T*(4k + j) is value j of thread t's draw k). */
static void test_new_kinds(void)
{
    const int64_t n = 5000;
    const uint64_t T = 512;
    float *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in),
          *noise = malloc(n * sizeof *noise);
    int64_t *iout = malloc(n * sizeof *iout);
    for (int64_t i = 0; i < n; i++)
        in[i] = (float)((i % 7) - 3) * 0.5f;
    const tfl_random_kind kinds[4] = { TFL_RANDOM_CAUCHY, TFL_RANDOM_LOG_NORMAL,
                                       TFL_RANDOM_GEOMETRIC, TFL_RANDOM_RRELU };
    for (int kk = 0; kk < 4; kk++) {
        tfl_random_op op = base_op(kinds[kk], out, n, 77);
        op.threads = T;
        op.offset = 8;
        op.acc = TFL_DT_F32;
        op.a = 0.5;
        op.b = kinds[kk] == TFL_RANDOM_RRELU ? 0.25 : 2.0;
        if (kinds[kk] == TFL_RANDOM_GEOMETRIC) {
            op.a = 0.25;
            op.dtype = TFL_DT_I64;
            op.out.data = iout;
        }
        if (kinds[kk] == TFL_RANDOM_RRELU) {
            op.in.data = in;
            op.mask.data = noise;
        }
        CHECK(host_random_supported(&op), "kind %d not supported", (int)kinds[kk]);
        CHECK(host_random(&op) == TFL_OK, "kind %d failed", (int)kinds[kk]);
        int bad = 0;
        for (int64_t i = 0; i < n && bad < 3; i++) {
            uint64_t t = (uint64_t)i % T, q = (uint64_t)i / T, k = q / 4, j = q % 4;
            uint32_t r[4];
            tfl_philox_draw(77, t, 8, k, r);
            double u = (double)r[j] * 0x1p-32 + 0x1p-33;
            double ref, got = kinds[kk] == TFL_RANDOM_GEOMETRIC ? (double)iout[i] : out[i];
            double tol = 1e-5;
            if (kinds[kk] == TFL_RANDOM_CAUCHY) {
                /* the float draw, clamped, and the float argument of tan */
                float uf = tfl_curand_uniform(r[j]);
                uf = uf > 1.0f - 0x1p-23f ? 1.0f - 0x1p-23f : uf < 0x1p-23f ? 0x1p-23f : uf;
                volatile float arg = 3.14159265358979323846f * (uf - 0.5f);
                ref = 0.5 + 2.0 * tan((double)arg);
            } else if (kinds[kk] == TFL_RANDOM_LOG_NORMAL) {
                /* Box-Muller pair: sin for the even value, cos for the odd */
                uint32_t x = r[j & 2], y = r[(j & 2) + 1];
                double u1 = (double)x * 0x1p-32 + 0x1p-33;
                double v = ((double)y * 0x1p-32 + 0x1p-33) * 2 * 3.14159265358979323846;
                double z = sqrt(-2.0 * log(u1)) * ((j & 1) ? cos(v) : sin(v));
                ref = exp(z * 2.0 + 0.5);
            } else if (kinds[kk] == TFL_RANDOM_GEOMETRIC) {
                double q2 = log((double)tfl_curand_uniform(r[j])) / log1p(-0.25);
                ref = ceil(q2);
                if (fabs(q2 - round(q2)) < 1e-4)
                    tol = 1.0;             /* float log may round across */
            } else {
                double nz = in[i] <= 0 ? 0.5 + u * 0.25 : 1.0;
                ref = in[i] * nz;
                if (fabs(noise[i] - nz) > 1e-6)
                    bad++;
            }
            if (!(fabs(got - ref) <= tol * fmax(1.0, fabs(ref))))
                bad++, fprintf(stderr, "kind %d element %lld: %.9g vs %.9g\n",
                               (int)kinds[kk], (long long)i, got, ref);
        }
        CHECK(bad == 0, "kind %d disagrees with the double reference", (int)kinds[kk]);
    }
    free(out);
    free(in);
    free(noise);
    free(iout);
}

/* Mangled names and parameter layouts (offset:size) as the sm_80 cubins
 * of torch 2.11 and 2.15 record them (read with `torchfl wheel --list`
 * and scripts/wheel_kernels.py). */
static const cubin_layout cubin[] = {
    /* 2.11.0 uniform */
    { "_ZN2at6native55_GLOBAL__N__11f7a751_22_DistributionUniform_cu_67fa25cf43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_14uniform_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESF_SG_",
      "0:8 8:32 40:1 48:24" },
    /* 2.11.0 log_normal */
    { "_ZN2at6native63_GLOBAL__N__e27917ee_30_DistributionLogNormalKernel_cu_e7567be543distribution_elementwise_grid_stride_kernelIdLi2EZNS0_9templates4cuda20normal_and_transformIddPNS_17CUDAGeneratorImplEZZZNS4_17log_normal_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE_clEvEUldE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIdd7double2S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlidE0_EEvlNS_15PhiloxCudaStateESF_SG_",
      "0:8 8:32 40:1 48:432" },
    /* 2.11.0 uniform */
    { "_ZN2at6native55_GLOBAL__N__11f7a751_22_DistributionUniform_cu_67fa25cf43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIN3c104HalfEfPNS_17CUDAGeneratorImplEZZZNS4_14uniform_kernelIS9_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE1_clEvEUlfE_EEvSC_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIS7_f6float4S9_SL_SG_EEvSC_SI_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESH_SI_",
      "0:8 8:32 40:1 48:24" },
    /* 2.11.0 random_from_to */
    { "_ZN2at6native60_GLOBAL__N__2b2da9da_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelImLi2EZZZNS0_9templates4cuda21random_from_to_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseEmlT_ENKUlvE_clEvENKUlvE2_clEvEUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIlm10ulonglong2S7_SF_ZZZS5_IS7_EvS9_mlSA_ENKSB_clEvENKSC_clEvEUlmE_EEvS9_T2_RKT3_T4_EUlimE0_EEvlNS_15PhiloxCudaStateET1_SJ_",
      "0:8 8:32 40:1 48:432" },
    /* 2.11.0 random */
    { "_ZN2at6native60_GLOBAL__N__2b2da9da_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelIjLi4EZZZNS0_9templates4cuda13random_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseET_ENKUlvE_clEvENKUlvE8_clEvEUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIbj5uint4S7_SF_ZZZS5_IS7_EvS9_SA_ENKSB_clEvENKSC_clEvEUljE_EEvS9_T2_RKT3_T4_EUlijE_EEvlNS_15PhiloxCudaStateET1_SJ_",
      "0:8 8:32 40:1 48:16" },
    /* 2.11.0 geometric */
    { "_ZN2at6native63_GLOBAL__N__80bfbd72_30_DistributionGeometricKernel_cu_fa6e70a443distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIifPNS_17CUDAGeneratorImplEZZZNS4_16geometric_kernelIS7_EEvRNS_18TensorIteratorBaseEdT_ENKUlvE_clEvENKUlvE1_clEvEUlfE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIif6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESF_SG_",
      "0:8 8:32 40:1 48:24" },
    /* 2.11.0 bernoulli */
    { "_ZN2at6native57_GLOBAL__N__d8df7886_24_DistributionBernoulli_cu_7537a20d43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_16bernoulli_kernelIS7_EEvRNS_18TensorIteratorBaseEdT_ENKUlvE_clEvENKUlvE5_clEvEUlfE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlifE0_EEvlNS_15PhiloxCudaStateESF_SG_",
      "0:8 8:32 40:1 48:424" },
    /* 2.11.0 exponential */
    { "_ZN2at6native65_GLOBAL__N__28278f10_32_DistributionExponentialKernel_cu_5881736643distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIN3c108BFloat16EfPNS_17CUDAGeneratorImplEZZZNS4_18exponential_kernelIS9_EEvRNS_18TensorIteratorBaseEdT_ENKUlvE_clEvENKUlvE2_clEvEUlfE_EEvSC_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIS7_f6float4S9_SL_SG_EEvSC_SI_RKT3_T4_EUlifE0_EEvlNS_15PhiloxCudaStateESH_SI_",
      "0:8 8:32 40:1 48:424" },
    /* 2.11.0 dropout */
    { "_ZN2at6native43_GLOBAL__N__50f1b6c4_10_Dropout_cu_0e96ed3824fused_dropout_kernel_vecIffjLi1ELi4EbEEvNS_4cuda6detail10TensorInfoIKT_T1_EENS5_IS6_S8_EENS5_IT4_S8_EES8_T0_NS_15PhiloxCudaStateE",
      "0:216 216:216 432:216 648:4 652:4 656:32" },
    /* 2.11.0 dropout */
    { "_ZN2at6native43_GLOBAL__N__50f1b6c4_10_Dropout_cu_0e96ed3820fused_dropout_kernelIN3c108BFloat16EfmLi1ELi1EbEEvNS_4cuda6detail10TensorInfoIKT_T1_EENS7_IS8_SA_EENS7_IT4_SA_EESA_T0_NS_15PhiloxCudaStateE",
      "0:416 416:416 832:416 1248:8 1256:4 1264:32" },
    /* 2.11.0 bernoulli */
    { "_ZN2at4cuda57_GLOBAL__N__d8df7886_24_DistributionBernoulli_cu_7537a20d21kernelPointwiseApply2IZNS_6native9templates4cuda28bernoulli_tensor_cuda_kernelIddEEvRKNS_10TensorBaseES9_NS_15PhiloxCudaStateEEUliRdSB_SB_SB_RKdSD_SD_SD_E_dSC_mLi1ELi1ELi4ELi512ELi2EEEvNS0_6detail10TensorInfoIT0_T2_EENSG_IT1_SI_EESI_T_",
      "0:416 416:416 832:8 840:32" },
    /* 2.11.0 multinomial */
    { "_ZN2at6native59_GLOBAL__N__bc3af53a_20_MultinomialKernel_cu_ef1a7132_2094532sampleMultinomialWithReplacementIfEEvNS_15PhiloxCudaStateEiPlliPKT_S7_",
      "0:32 32:4 40:8 48:8 56:4 64:8 72:8" },
    /* 2.11.0 multinomial_renorm */
    { "_ZN2at6native59_GLOBAL__N__bc3af53a_20_MultinomialKernel_cu_ef1a7132_2094512renormRowsL1IdEEvPT_ll",
      "0:8 8:8 16:8" },
    /* 2.11.0 rrelu */
    { "_ZN2at6native28rrelu_with_noise_cuda_kernelIdLi2EZNS0_28_rrelu_with_noise_cuda_trainIdEEvRNS_6TensorERKS3_S4_RKN3c106ScalarESA_St8optionalINS_9GeneratorEEEUlP24curandStatePhilox4_32_10E_EEviNS_15PhiloxCudaStateEPT_PKSI_SJ_ddRKT1_",
      "0:4 8:32 40:8 48:8 56:8 64:8 72:8 80:8" },
    /* 2.11.0 dropout_backward */
    { "_ZN2at6native29vectorized_elementwise_kernelILi4EZNS0_43_GLOBAL__N__50f1b6c4_10_Dropout_cu_0e96ed3819masked_scale_kernelIbffEEvRNS_6TensorERKS4_S7_T1_EUlfbE_St5arrayIPcLm3EEEEviT0_S8_",
      "0:4 8:16 24:24" },
    /* 2.11.0 dropout_backward */
    { "_ZN2at6native27unrolled_elementwise_kernelIZNS0_43_GLOBAL__N__50f1b6c4_10_Dropout_cu_0e96ed3819masked_scale_kernelIbN3c104HalfEfEEvRNS_6TensorERKS6_S9_T1_EUlS5_bE_St5arrayIPcLm3EELi4E23TrivialOffsetCalculatorILi2EjESF_ILi1EjENS0_6memory15LoadWithoutCastENSI_16StoreWithoutCastEEEviT_T0_T2_T3_T4_T5_",
      "0:4 8:16 24:24 48:1 49:1 50:1 51:1" },
    /* 2.15.0 uniform */
    { "_ZN2at6native55_GLOBAL__N__3bce53d0_22_DistributionUniform_cu_67fa25cf43distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda21uniform_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_14uniform_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIff6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESF_SG_",
      "0:8 8:32 40:1 48:24" },
    /* 2.15.0 random */
    { "_ZN2at6native60_GLOBAL__N__ea7ea33f_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelImLi2EZZZNS0_9templates4cuda32random_full_64_bits_range_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseET_ENKUlvE_clEvENKUlvE2_clEvEUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIlm10ulonglong2S7_SF_ZZZS5_IS7_EvS9_SA_ENKSB_clEvENKSC_clEvEUlmE_EEvS9_T2_RKT3_T4_EUlimE0_EEvlNS_15PhiloxCudaStateET1_SJ_",
      "0:8 8:32 40:1 48:424" },
    /* 2.15.0 cauchy */
    { "_ZN2at6native60_GLOBAL__N__37cf237f_27_DistributionCauchyKernel_cu_d62eea8743distribution_elementwise_grid_stride_kernelIdLi2EZNS0_9templates4cuda21uniform_and_transformIddPNS_17CUDAGeneratorImplEZZZNS4_13cauchy_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE_clEvEUldE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIdd7double2S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlidE0_EEvlNS_15PhiloxCudaStateESF_SG_",
      "0:8 8:32 40:1 48:432" },
    /* 2.15.0 log_normal */
    { "_ZN2at6native63_GLOBAL__N__45ddeda0_30_DistributionLogNormalKernel_cu_e7567be543distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda20normal_and_transformIN3c104HalfEfPNS_17CUDAGeneratorImplEZZZNS4_17log_normal_kernelIS9_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE1_clEvEUlfE_EEvSC_T1_T2_EUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIS7_f6float4S9_SL_SG_EEvSC_SI_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESH_SI_",
      "0:8 8:32 40:1 48:24" },
    /* 2.15.0 dropout */
    { "_ZN2at6native43_GLOBAL__N__1131530d_10_Dropout_cu_0e96ed3824fused_dropout_kernel_vecIN3c108BFloat16EfmLi1ELi8EhEEvNS_4cuda6detail10TensorInfoIKT_T1_EENS7_IS8_SA_EENS7_IT4_SA_EESA_T0_NS_15PhiloxCudaStateE",
      "0:416 416:416 832:416 1248:8 1256:4 1264:32" },
    /* 2.15.0 bernoulli */
    { "_ZN2at4cuda57_GLOBAL__N__4097cdb0_24_DistributionBernoulli_cu_7537a20d21kernelPointwiseApply2IZNS_6native9templates4cuda28bernoulli_tensor_cuda_kernelIbfEEvRKNS_10TensorBaseES9_NS_15PhiloxCudaStateEEUliRbSB_SB_SB_RKfSD_SD_SD_E_bSC_jLi1ELi1ELi4ELi512ELi2EEEvNS0_6detail10TensorInfoIT0_T2_EENSG_IT1_SI_EESI_T_",
      "0:216 216:216 432:4 440:32" },
    /* 2.15.0 rrelu */
    { "_ZN2at6native28rrelu_with_noise_cuda_kernelIfLi4EZNS0_28_rrelu_with_noise_cuda_trainIfEEvRNS_6TensorERKS3_S4_RKN3c106ScalarESA_St8optionalINS_9GeneratorEEEUlP24curandStatePhilox4_32_10E0_EEviNS_15PhiloxCudaStateEPT_PKSI_SJ_ddRKT1_",
      "0:4 8:32 40:8 48:8 56:8 64:8 72:8 80:8" },
    /* 2.15.0 dropout_backward */
    { "_ZN2at6native29vectorized_elementwise_kernelILi8EZNS0_43_GLOBAL__N__1131530d_10_Dropout_cu_0e96ed3819masked_scale_kernelIbffEEvRNS_6TensorERKS4_S7_T1_EUlfbE_St5arrayIPcLm3EELb1EEEviT0_S8_",
      "0:4 8:16 24:24" },

};

static void test_layouts(void)
{
    check_cubin_layouts(&tfl_kfamily_random, cubin, sizeof cubin / sizeof cubin[0], NULL,
                        &failures);
    /* uniform_and_transform's never-launched instance for double with
     * float4 draws (2.11-2.14 instantiate both branches): not claimed */
    void *cookie = NULL;
    CHECK(!tfl_kfamily_random.match("_ZN2at6native55_GLOBAL__N__11f7a751_22_DistributionUniform_cu_67fa25cf43distribution_elementwise_grid_stride_kernelIdLi2EZNS0_9templates4cuda21uniform_and_transformIddPNS_17CUDAGeneratorImplEZZZNS4_14uniform_kernelIS7_EEvRNS_18TensorIteratorBaseEddT_ENKUlvE_clEvENKUlvE_clEvEUldE_EEvSA_T1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIdd6float4S7_SJ_SE_EEvSA_SG_RKT3_T4_EUlidE_EEvlNS_15PhiloxCudaStateESF_SG_",
              &cookie), "double uniform with float4 draws claimed");
}

int main(void)
{
    test_kat();
    test_state_layout();
    test_distributions();
    test_dropout();
    test_decoder();
    test_new_kinds();
    test_layouts();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_random: ok\n");
    return 0;
}

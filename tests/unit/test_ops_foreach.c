/*
 * test_ops_foreach.c - the host "foreach" op: a launch processes exactly the
 * (tensor, chunk) blocks it lists, results against double-precision
 * references, and the two-kernel norm (partials + finish); the decoder's
 * parameter layouts against the cubins of several releases.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "route/optable.h"
#include "route/torch_release.h"
#include "mem/mem.h"
#include "cubin_layouts.h"

/* Decode as torch 2.<minor> built with CUDA <cuda_major> (the family reads
 * the release through tfl_torch_current, which this sets). */
static void tfl_foreach_set_release(int minor, int cuda_major)
{
    tfl_torch_info t;
    memset(&t, 0, sizeof t);
    snprintf(t.version, sizeof t.version, "2.%d.0", minor);
    snprintf(t.cuda, sizeof t.cuda, "%d.0", cuda_major);
    tfl_torch_use(&t);
}

static int failures;

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
        failures++; \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
    } } while (0)

#define CH 65536

static float frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f * 4.0f - 2.0f;
}

static tfl_foreach_op base(tfl_foreach_kind kind, int depth, int out_list,
                           tfl_foreach_tensor *t, int nt, tfl_foreach_block *b, int nb)
{
    tfl_foreach_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.dtype = TFL_DT_F32;
    op.depth = depth;
    op.out_list = out_list;
    op.chunk_size = CH;
    op.tensors = t; op.ntensors = nt;
    op.blocks = b; op.nblocks = nb;
    op.alpha = 1.0f;
    return op;
}

/* A launch that lists only chunk 1 of tensor 0 leaves its chunks 0 and 2
 * alone; a second launch for the rest completes it. */
static void test_chunk_subsets(void)
{
    const int64_t n = 2 * CH + 100;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *x0 = malloc(n * sizeof *x0);
    unsigned s = 1;
    for (int64_t i = 0; i < n; i++) { x[i] = x0[i] = frand(&s); y[i] = frand(&s); }
    tfl_foreach_tensor t[1] = { { { x, y }, n, 0, NULL } };
    tfl_foreach_block b1[1] = { { 0, 1 } };
    tfl_foreach_op op = base(TFL_FOREACH_BINARY_LIST, 2, 0, t, 1, b1, 1);
    op.fn = TFL_FOREACH_FN_ADD;
    op.alpha = -0.5f;
    CHECK(host_foreach(&op) == TFL_OK, "launch 1");
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        int in = i >= CH && i < 2 * CH;
        double want = in ? (double)x0[i] - 0.5 * (double)y[i] : x0[i];
        wrong += fabs(x[i] - want) > 1e-6 * (1 + fabs(want));
    }
    CHECK(wrong == 0, "%lld elements wrong after the chunk-1 launch", (long long)wrong);
    tfl_foreach_block b2[2] = { { 0, 0 }, { 0, 2 } };
    op.blocks = b2; op.nblocks = 2;
    CHECK(host_foreach(&op) == TFL_OK, "launch 2");
    wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        double want = (double)x0[i] - 0.5 * (double)y[i];
        wrong += fabs(x[i] - want) > 1e-6 * (1 + fabs(want));
    }
    CHECK(wrong == 0, "%lld elements wrong after both launches", (long long)wrong);
    free(x); free(y); free(x0);
}

static void test_kinds(void)
{
    enum { N = 1000 };
    static float a[N], b[N], c[N], out[N];
    unsigned s = 7;
    for (int i = 0; i < N; i++) { a[i] = frand(&s); b[i] = frand(&s); c[i] = fabsf(frand(&s)) + 0.5f; }
    tfl_foreach_block blk[1] = { { 0, 0 } };

    /* out-of-place scalar: out = max(a, 0.25) into list 1 */
    tfl_foreach_tensor t2[1] = { { { a, out }, N, 0, NULL } };
    tfl_foreach_op op = base(TFL_FOREACH_BINARY_SCALAR, 2, 1, t2, 1, blk, 1);
    op.fn = TFL_FOREACH_FN_MAX;
    op.scalar = 0.25f;
    CHECK(host_foreach(&op) == TFL_OK, "max scalar");
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= out[i] == (a[i] > 0.25f ? a[i] : 0.25f);
    CHECK(ok, "maximum with scalar");

    /* per-tensor scalar and device scalar * alpha */
    op.fn = TFL_FOREACH_FN_MUL;
    t2[0].scalar = -3.0f;
    op.per_tensor_scalar = 1;
    host_foreach(&op);
    ok = 1;
    for (int i = 0; i < N; i++) ok &= out[i] == a[i] * -3.0f;
    CHECK(ok, "scalar list");
    float dev = 0.5f;
    op.per_tensor_scalar = 0;
    op.scalar_ptr = &dev;
    op.alpha = 4.0f;
    host_foreach(&op);
    ok = 1;
    for (int i = 0; i < N; i++) ok &= out[i] == a[i] * 2.0f;
    CHECK(ok, "scalar tensor times alpha");

    /* addcdiv into list 3 */
    tfl_foreach_tensor t4[1] = { { { a, b, c, out }, N, 0, NULL } };
    op = base(TFL_FOREACH_POINTWISE, 4, 3, t4, 1, blk, 1);
    op.fn = TFL_FOREACH_FN_DIV;
    op.scalar = -0.1f;
    host_foreach(&op);
    double maxerr = 0;
    for (int i = 0; i < N; i++) {
        double want = (double)a[i] - 0.1 * ((double)b[i] / c[i]);
        maxerr = fmax(maxerr, fabs(out[i] - want) / (1 + fabs(want)));
    }
    CHECK(maxerr < 1e-6, "addcdiv error %g", maxerr);

    /* lerp with a weight list (weights in [0.5, 2.5): the end-anchored branch) */
    op = base(TFL_FOREACH_LERP_LIST, 4, 3, t4, 1, blk, 1);
    host_foreach(&op);
    maxerr = 0;
    for (int i = 0; i < N; i++) {
        double want = (double)a[i] + (double)c[i] * ((double)b[i] - a[i]);
        maxerr = fmax(maxerr, fabs(out[i] - want) / (1 + fabs(want)));
    }
    CHECK(maxerr < 1e-5, "lerp error %g", maxerr);

    /* unsupported: double */
    op.dtype = TFL_DT_F64;
    CHECK(host_foreach(&op) == TFL_ERR_UNSUPPORTED, "double accepted");
    /* a block naming a tensor that is not there */
    tfl_foreach_block badb[1] = { { 3, 0 } };
    op = base(TFL_FOREACH_ZERO, 1, 0, t2, 1, badb, 1);
    CHECK(host_foreach(&op) == TFL_ERR_INVALID, "bad tensor index accepted");
}

/* _foreach_norm: partial sums per (tensor, chunk) over two launches (the
 * second starting at tensor 1), then the finish kernel. */
static void test_norm(void)
{
    const int64_t n0 = CH + 10, n1 = 3;
    float *x = malloc(n0 * sizeof *x);
    float y[3] = { 3.0f, -4.0f, 12.0f };
    unsigned s = 3;
    double ref0 = 0, inf0 = 0, nz0 = 0;
    for (int64_t i = 0; i < n0; i++) {
        x[i] = i % 7 == 3 ? (i % 2 ? -0.0f : 0.0f) : frand(&s);   /* zeros for L0 */
        ref0 += (double)x[i] * x[i];
        inf0 = fmax(inf0, fabs(x[i]));
        nz0 += x[i] != 0;
    }
    /* L0 (2.12+): the count of nonzeros, never rooted (apply_root is set) */
    int norms[4] = { TFL_FOREACH_NORM_L1, TFL_FOREACH_NORM_L2, TFL_FOREACH_NORM_LINF,
                     TFL_FOREACH_NORM_L0 };
    for (int k = 0; k < 4; k++) {
        float partials[2 * 2];
        for (int i = 0; i < 4; i++) partials[i] = 0.0f;
        tfl_foreach_tensor ta[1] = { { { x }, n0, 0, NULL } };
        tfl_foreach_block ba[2] = { { 0, 0 }, { 0, 1 } };
        tfl_foreach_op op = base(TFL_FOREACH_NORM_PARTIAL, 1, 0, ta, 1, ba, 2);
        op.norm = norms[k];
        op.partials = partials;
        op.max_chunks = 2;
        op.first_index = 0;
        CHECK(host_foreach(&op) == TFL_OK, "partial launch 1");
        tfl_foreach_tensor tb[1] = { { { y }, n1, 0, NULL } };
        tfl_foreach_block bb[1] = { { 0, 0 } };
        op.tensors = tb; op.blocks = bb; op.nblocks = 1;
        op.first_index = 1;
        CHECK(host_foreach(&op) == TFL_OK, "partial launch 2");
        float r0 = -1, r1 = -1;
        void *outs[2] = { &r0, &r1 };
        tfl_foreach_op fin;
        memset(&fin, 0, sizeof fin);
        fin.kind = TFL_FOREACH_NORM_FINISH;
        fin.dtype = TFL_DT_F32;
        fin.depth = 1;
        fin.chunk_size = CH;
        fin.norm = norms[k];
        fin.apply_root = 1;
        fin.partials = partials;
        fin.max_chunks = 2;
        fin.finish_out = outs;
        fin.nfinish = 2;
        CHECK(host_foreach(&fin) == TFL_OK, "finish");
        double want0, want1;
        if (norms[k] == TFL_FOREACH_NORM_L2) { want0 = sqrt(ref0); want1 = 13.0; }
        else if (norms[k] == TFL_FOREACH_NORM_LINF) { want0 = inf0; want1 = 12.0; }
        else if (norms[k] == TFL_FOREACH_NORM_L0) { want0 = nz0; want1 = 3.0; }
        else {
            want0 = 0;
            for (int64_t i = 0; i < n0; i++) want0 += fabs(x[i]);
            want1 = 19.0;
        }
        CHECK(fabs(r0 - want0) <= 1e-5 * want0, "norm %d tensor 0: %g vs %g", k, r0, want0);
        CHECK(r1 == (float)want1, "norm %d tensor 1: %g vs %g", k, r1, want1);
        if (norms[k] == TFL_FOREACH_NORM_L0)
            CHECK(r0 == (float)nz0, "L0 count %g vs %g", r0, nz0);
    }
    /* L0 counts NaN (NaN != 0) and not zeros of either sign */
    float z[5] = { 0.0f, -0.0f, NAN, 1e-30f, -2.0f }, part[1] = { -1 }, cnt = -1;
    tfl_foreach_tensor tz[1] = { { { z }, 5, 0, NULL } };
    tfl_foreach_block bz[1] = { { 0, 0 } };
    tfl_foreach_op op = base(TFL_FOREACH_NORM_PARTIAL, 1, 0, tz, 1, bz, 1);
    op.norm = TFL_FOREACH_NORM_L0;
    op.partials = part;
    op.max_chunks = 1;
    CHECK(host_foreach(&op) == TFL_OK && part[0] == 3.0f, "L0 partial with NaN: %g", part[0]);
    void *co[1] = { &cnt };
    tfl_foreach_op fin;
    memset(&fin, 0, sizeof fin);
    fin.kind = TFL_FOREACH_NORM_FINISH;
    fin.dtype = fin.out_dtype = TFL_DT_F32;
    fin.depth = 1;
    fin.chunk_size = CH;
    fin.norm = TFL_FOREACH_NORM_L0;
    fin.partials = part;
    fin.max_chunks = 1;
    fin.finish_out = co;
    fin.nfinish = 1;
    CHECK(host_foreach(&fin) == TFL_OK && cnt == 3.0f, "L0 finish: %g", cnt);
    free(x);
}

/* The decoder: names, and launches with bad metadata refused cleanly. */
static void test_decoder(void)
{
    static const char add_list[] =
        "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_T0_DpT1_";
    static const char half_add_list[] =
        "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIN3c104HalfELi2ELi2ELi0EEEJNS0_7maximumIfEEfEEEvT_T0_DpT1_";
    static const char fused_adam[] =
        "_ZN2at6native51_GLOBAL__N__f7f2fd5f_18_fused_adam_impl_cu_454205f325multi_tensor_apply_kernelINS1_32FusedOptimizerTensorListMetadataILi4EEENS1_20FusedAdamMathFunctorIfLi4ELNS0_9ADAM_MODEE0ELb0EEEJPKfdddddbS9_S9_EEEvT_T0_DpT1_";
    static const char cleanup[] =
        "_ZN2at6native14lpnorm_cleanupIfLNS0_8NormTypeE1EfLb1EfEEvPKT3_NS0_19TensorListAddressesEi";
    void *cookie = NULL;
    CHECK(tfl_kfamily_foreach.match(add_list, &cookie) == 1, "add list");
    CHECK(tfl_kfamily_foreach.match(fused_adam, &cookie) == 1, "fused adam");
    CHECK(tfl_kfamily_foreach.match(cleanup, &cookie) == 1, "lpnorm_cleanup");
    CHECK(tfl_kfamily_foreach.match(half_add_list, &cookie) == 1, "half maximum list");
    static const char double_add_list[] =
        "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIdLi2ELi2ELi0EEEJSt4plusIdEdEEEvT_T0_DpT1_";
    CHECK(tfl_kfamily_foreach.match(double_add_list, &cookie) == 0, "double claimed");

    /* TensorListMetadata<2>: addresses[2][64], numel[64], b2t[320], b2c[320] */
    static unsigned char meta[3144];
    memset(meta, 0, sizeof meta);
    uintptr_t bogus = 0x3000;
    int64_t numel = 100;
    memcpy(meta, &bogus, 8);                  /* list 0, tensor 0 */
    memcpy(meta + 64 * 8, &bogus, 8);         /* list 1, tensor 0 */
    memcpy(meta + 2 * 64 * 8, &numel, 8);
    unsigned char functor = 0, opfn = 0;
    float alpha = 1.0f;
    void *args[4] = { meta, &functor, &opfn, &alpha };
    tfl_kcall call = { .name = add_list, .grid = { 1, 1, 1 }, .block = { 512, 1, 1 },
                       .args = args };
    char err[256] = "";
    tfl_kfamily_foreach.match(add_list, &cookie);
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "bogus tensor list accepted: %s", err);
    /* a block naming chunk 5 of a 100-element tensor */
    int32_t chunk = 5;
    memcpy(meta + 3 * 64 * 8 + 320, &chunk, 4);
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "chunk beyond the tensor accepted: %s", err);
    /* a block naming tensor 200 (only 64 fit) */
    chunk = 0;
    memcpy(meta + 3 * 64 * 8 + 320, &chunk, 4);
    meta[3 * 64 * 8] = 200;
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "tensor index beyond the metadata accepted: %s", err);
    /* more blocks than the metadata holds */
    meta[3 * 64 * 8] = 0;
    call.grid[0] = 321;
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "321 blocks accepted");
}

/* Mangled names and parameter layouts (offset:size) as the sm_80 cubins
 * of torch 2.<minor> record them (read with `torchfl wheel --list` and
 * scripts/wheel_kernels.py); the names do not change between releases,
 * the metadata sizes do (4 KB in 2.11, 32 KB from 2.12). */
static const struct { int minor; const char *mangled, *layout; } cubin[] = {
    /* 2.11.0 add */
    { 11, "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_T0_DpT1_",
      "0:3144 3144:1 3145:1 3148:4" },
    /* 2.11.0 fused_adam */
    { 11, "_ZN2at6native51_GLOBAL__N__f7f2fd5f_18_fused_adam_impl_cu_454205f325multi_tensor_apply_kernelINS1_32FusedOptimizerTensorListMetadataILi4EEENS1_20FusedAdamMathFunctorIfLi4ELNS0_9ADAM_MODEE0ELb0EEEJPKfdddddbS9_S9_EEEvT_T0_DpT1_",
      "0:3336 3336:1 3344:8 3352:8 3360:8 3368:8 3376:8 3384:8 3392:1 3400:8 3408:8" },
    /* 2.11.0 fused_adamw */
    { 11, "_ZN2at6native60_GLOBAL__N__a67eb35d_27_fused_adamw_amsgrad_impl_cu_47c3b9eb25multi_tensor_apply_kernelINS1_32FusedOptimizerTensorListMetadataILi5EEENS1_20FusedAdamMathFunctorIN3c108BFloat16ELi5ELNS0_9ADAM_MODEE1ELb1EEEJPKfdddddbSB_SB_EEEvT_T0_DpT1_",
      "0:3288 3288:1 3296:8 3304:8 3312:8 3320:8 3328:8 3336:8 3344:1 3352:8 3360:8" },
    /* 2.11.0 fused_sgd */
    { 11, "_ZN2at6native50_GLOBAL__N__c32bc2c2_17_FusedSgdKernel_cu_a550329a25multi_tensor_apply_kernelINS1_18TensorListMetadataILi3EEENS1_19FusedSgdMathFunctorIfLi3EEEJddPfddbbbS7_S7_EEEvT_T0_DpT1_",
      "0:3144 3144:1 3152:8 3160:8 3168:8 3176:8 3184:8 3192:1 3193:1 3194:1 3200:8 3208:8" },
    /* 2.11.0 mul */
    { 11, "_ZN2at6native61_GLOBAL__N__538ad94b_28_ForeachBinaryOpScalarList_cu_dda10a6925multi_tensor_apply_kernelINS1_28TensorListScalarListMetadataIfLi1EEENS1_25BinaryOpScalarListFunctorIN3c104HalfELi1ELi1ELi0EEEJSt10multipliesIfEEEEvT_T0_DpT1_",
      "0:3520 3520:1 3521:1" },
    /* 2.11.0 div */
    { 11, "_ZN2at6native63_GLOBAL__N__7580b8de_30_ForeachBinaryOpScalarTensor_cu_64fe0ca525multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_27BinaryOpScalarTensorFunctorIN3c108BFloat16ELi2ELi1ELi1EEEJSt7dividesIfEPS7_fEEEvT_T0_DpT1_",
      "0:3144 3144:1 3145:1 3152:8 3160:4" },
    /* 2.11.0 sigmoid */
    { 11, "_ZN2at6native50_GLOBAL__N__b6ca21f8_17_ForeachUnaryOp_cu_77fe623d25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_14UnaryOpFunctorIfLi1ELi1ELi0EEEJNS0_7SigmoidIfEEEEEvT_T0_DpT1_",
      "0:3368 3368:1 3372:4" },
    /* 2.11.0 abs */
    { 11, "_ZN2at6native50_GLOBAL__N__b6ca21f8_17_ForeachUnaryOp_cu_77fe623d25multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_14UnaryOpFunctorIN3c104HalfELi2ELi1ELi1EEEJNS0_3AbsIfEEEEEvT_T0_DpT1_",
      "0:3144 3144:1 3145:1" },
    /* 2.11.0 addcdiv */
    { 11, "_ZN2at6native54_GLOBAL__N__f8a10d72_21_ForeachPointwiseOp_cu_ef478fac25multi_tensor_apply_kernelINS1_28TensorListScalarListMetadataIfLi4EEENS1_28PointwiseOpScalarListFunctorIfLi4ELi3ELi3EEEJSt7dividesIfEEEEvT_T0_DpT1_",
      "0:3184 3184:1 3185:1" },
    /* 2.11.0 amp_unscale */
    { 11, "_ZN2at6native46_GLOBAL__N__1df100ae_13_AmpKernels_cu_3810c27325multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_14UnaryOpFunctorIfLi1ELi1ELi0EEEJZZZNS0_47_amp_foreach_non_finite_check_and_unscale_cuda_EN3c108ArrayRefINS_6TensorEEERS9_RKS9_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEEvT_T0_DpT1_",
      "0:3368 3368:1 3376:24" },
    /* 2.11.0 amp_update_scale */
    { 11, "_ZN2at6native28amp_update_scale_cuda_kernelEPfPiPKfddi",
      "0:8 8:8 16:8 24:8 32:8 40:4" },
    /* 2.11.0 zero */
    { 11, "_ZN2at6native50_GLOBAL__N__b6ca21f8_17_ForeachUnaryOp_cu_77fe623d25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_11ZeroFunctorIfLi1ELi1ELi0EEEJEEEvT_T0_DpT1_",
      "0:3368 3368:1" },
    /* 2.11.0 norm */
    { 11, "_ZN2at6native51_GLOBAL__N__d9d46141_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIfLNS0_8NormTypeE1EfLi1ELi1ELi0EEEJPfiEEEvT_T0_DpT1_",
      "0:3368 3368:1 3376:8 3384:4" },
    /* 2.11.0 norm */
    { 11, "_ZN2at6native14lpnorm_cleanupIN3c104HalfELNS0_8NormTypeE2EfLb1EfEEvPKT3_NS0_19TensorListAddressesEi",
      "0:8 8:3200 3208:4" },
    /* 2.12.1 norm */
    { 12, "_ZN2at6native51_GLOBAL__N__d9d46141_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIfLNS0_8NormTypeE3EfLi1ELi1ELi0EEEJPfiEEEvT_T0_DpT1_",
      "0:25768 25768:1 25776:8 25784:4" },
    /* 2.12.1 norm */
    { 12, "_ZN2at6native14lpnorm_cleanupIN3c104HalfELNS0_8NormTypeE2EfLb1EfEEvPKT3_NS0_19TensorListAddressesEi",
      "0:8 8:25600 25608:4" },
    /* 2.12.1 norm, L0 (NormType 0 from 2.12) */
    { 12, "_ZN2at6native51_GLOBAL__N__d9d46141_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIN3c108BFloat16ELNS0_8NormTypeE0EfLi1ELi1ELi0EEEJPfiEEEvT_T0_DpT1_",
      "0:25768 25768:1 25776:8 25784:4" },
    /* 2.12.1 norm, L0 */
    { 12, "_ZN2at6native14lpnorm_cleanupIfLNS0_8NormTypeE0EN3c104HalfELb0EfEEvPKT3_NS0_19TensorListAddressesEi",
      "0:8 8:25600 25608:4" },
    /* 2.15.0 norm, L0 (packed partials: int64 offsets) */
    { 15, "_ZN2at6native51_GLOBAL__N__99dedba0_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIfLNS0_8NormTypeE0EfLi1ELi1ELi0EEEJPfPKlEEEvT_T0_DpT1_",
      "0:25768 25768:1 25776:8 25784:8" },
    /* 2.15.0 norm, L0 */
    { 15, "_ZN2at6native14lpnorm_cleanupIN3c104HalfELNS0_8NormTypeE0EfLb1EfEEvPKT3_NS0_19TensorListAddressesEPKli",
      "0:8 8:25600 25608:8 25616:4" },
    /* 2.15.0 add */
    { 15, "_ZN2at6native55_GLOBAL__N__f86471ef_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_T0_DpT1_",
      "0:24200 24200:1 24201:1 24204:4" },
    /* 2.15.0 fused_adam */
    { 15, "_ZN2at6native51_GLOBAL__N__b7f847be_18_fused_adam_impl_cu_454205f325multi_tensor_apply_kernelINS1_32FusedOptimizerTensorListMetadataILi4EEENS1_20FusedAdamMathFunctorIfLi4ELNS0_9ADAM_MODEE0ELb0EEEJPKfdddddbS9_S9_EEEvT_T0_DpT1_",
      "0:25544 25544:1 25552:8 25560:8 25568:8 25576:8 25584:8 25592:8 25600:1 25608:8 25616:8" },
    /* 2.15.0 fused_adamw */
    { 15, "_ZN2at6native60_GLOBAL__N__672db9b8_27_fused_adamw_amsgrad_impl_cu_47c3b9eb25multi_tensor_apply_kernelINS1_32FusedOptimizerTensorListMetadataILi5EEENS1_20FusedAdamMathFunctorIN3c108BFloat16ELi5ELNS0_9ADAM_MODEE1ELb1EEEJPKfdddddbSB_SB_EEEvT_T0_DpT1_",
      "0:25208 25208:1 25216:8 25224:8 25232:8 25240:8 25248:8 25256:8 25264:1 25272:8 25280:8" },
    /* 2.15.0 fused_sgd */
    { 15, "_ZN2at6native50_GLOBAL__N__169a4528_17_FusedSgdKernel_cu_a550329a25multi_tensor_apply_kernelINS1_18TensorListMetadataILi3EEENS1_19FusedSgdMathFunctorIfLi3EEEJddPfddbbbS7_S7_EEEvT_T0_DpT1_",
      "0:24200 24200:1 24208:8 24216:8 24224:8 24232:8 24240:8 24248:1 24249:1 24250:1 24256:8 24264:8" },
    /* 2.15.0 mul */
    { 15, "_ZN2at6native61_GLOBAL__N__832b9cb6_28_ForeachBinaryOpScalarList_cu_dda10a6925multi_tensor_apply_kernelINS1_28TensorListScalarListMetadataIfLi1EEENS1_25BinaryOpScalarListFunctorIN3c104HalfELi1ELi1ELi0EEEJSt10multipliesIfEEEEvT_T0_DpT1_",
      "0:26880 26880:1 26881:1" },
    /* 2.15.0 div */
    { 15, "_ZN2at6native63_GLOBAL__N__d2244290_30_ForeachBinaryOpScalarTensor_cu_64fe0ca525multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_27BinaryOpScalarTensorFunctorIN3c108BFloat16ELi2ELi1ELi1EEEJSt7dividesIfEPS7_fEEEvT_T0_DpT1_",
      "0:24200 24200:1 24201:1 24208:8 24216:4" },
    /* 2.15.0 sigmoid */
    { 15, "_ZN2at6native50_GLOBAL__N__637ba612_17_ForeachUnaryOp_cu_77fe623d25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_14UnaryOpFunctorIfLi1ELi1ELi0EEEJNS0_7SigmoidIfEEEEEvT_T0_DpT1_",
      "0:25768 25768:1 25772:4" },
    /* 2.15.0 abs */
    { 15, "_ZN2at6native50_GLOBAL__N__637ba612_17_ForeachUnaryOp_cu_77fe623d25multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_14UnaryOpFunctorIN3c104HalfELi2ELi1ELi1EEEJNS0_3AbsIfEEEEEvT_T0_DpT1_",
      "0:24200 24200:1 24201:1" },
    /* 2.15.0 addcdiv */
    { 15, "_ZN2at6native54_GLOBAL__N__ae7e1889_21_ForeachPointwiseOp_cu_ef478fac25multi_tensor_apply_kernelINS1_28TensorListScalarListMetadataIfLi4EEENS1_28PointwiseOpScalarListFunctorIfLi4ELi3ELi3EEEJSt7dividesIfEEEEvT_T0_DpT1_",
      "0:24528 24528:1 24529:1" },
    /* 2.15.0 amp_unscale */
    { 15, "_ZN2at6native46_GLOBAL__N__3be26839_13_AmpKernels_cu_3810c27325multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_14UnaryOpFunctorIfLi1ELi1ELi0EEEJZZZNS0_47_amp_foreach_non_finite_check_and_unscale_cuda_EN3c108ArrayRefINS_6TensorEEERS9_RKS9_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEEvT_T0_DpT1_",
      "0:25768 25768:1 25776:24" },
    /* 2.15.0 amp_update_scale */
    { 15, "_ZN2at6native28amp_update_scale_cuda_kernelEPfPiPKfddi",
      "0:8 8:8 16:8 24:8 32:8 40:4" },
    /* 2.15.0 zero */
    { 15, "_ZN2at6native50_GLOBAL__N__637ba612_17_ForeachUnaryOp_cu_77fe623d25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS1_11ZeroFunctorIfLi1ELi1ELi0EEEJEEEvT_T0_DpT1_",
      "0:25768 25768:1" },

};

static void test_layouts(void)
{
    for (size_t i = 0; i < sizeof cubin / sizeof cubin[0]; i++) {
        tfl_foreach_set_release(cubin[i].minor, 13);
        CHECK(cubin_layout_ok(&tfl_kfamily_foreach, cubin[i].mangled, cubin[i].layout),
              "decoded as 2.%d", cubin[i].minor);
    }
    /* NormType is { L1, L2, LInf } in 2.11 and { L0, L1, L2, LInf } from
     * 2.12: value 0 is L1 in 2.11 and L0 from 2.12; value 3 exists from
     * 2.12 only */
    static const char lp0[] =
        "_ZN2at6native51_GLOBAL__N__d9d46141_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIfLNS0_8NormTypeE0EfLi1ELi1ELi0EEEJPfiEEEvT_T0_DpT1_";
    static const char clean0[] =
        "_ZN2at6native14lpnorm_cleanupIfLNS0_8NormTypeE0EfLb1EfEEvPKT3_NS0_19TensorListAddressesEi";
    static const char clean3[] =
        "_ZN2at6native14lpnorm_cleanupIfLNS0_8NormTypeE3EfLb1EfEEvPKT3_NS0_19TensorListAddressesEi";
    void *cookie = NULL;
    tfl_foreach_set_release(11, 13);
    CHECK(tfl_kfamily_foreach.match(lp0, &cookie) == 1, "2.11 L1 partials");
    CHECK(tfl_kfamily_foreach.match(clean0, &cookie) == 1, "2.11 L1 cleanup");
    CHECK(tfl_kfamily_foreach.match(clean3, &cookie) == 0, "2.11 NormType 3");
    tfl_foreach_set_release(12, 13);
    CHECK(tfl_kfamily_foreach.match(lp0, &cookie) == 1, "2.12 L0 partials");
    CHECK(tfl_kfamily_foreach.match(clean0, &cookie) == 1, "2.12 L0 cleanup");
    CHECK(tfl_kfamily_foreach.match(clean3, &cookie) == 1, "2.12 LInf cleanup");
    /* 2.15's L0 (packed partials form) */
    tfl_foreach_set_release(15, 13);
    CHECK(tfl_kfamily_foreach.match(
              "_ZN2at6native51_GLOBAL__N__99dedba0_18_ForeachReduceOp_cu_b83ec48c25multi_tensor_apply_kernelINS1_18TensorListMetadataILi1EEENS0_13LpNormFunctorIfLNS0_8NormTypeE0EfLi1ELi1ELi0EEEJPfPKlEEEvT_T0_DpT1_",
              &cookie) == 1, "2.15 L0 partials");
    /* NormType 4 is out of range in every release */
    CHECK(tfl_kfamily_foreach.match(
              "_ZN2at6native14lpnorm_cleanupIfLNS0_8NormTypeE4EfLb1EfEEvPKT3_NS0_19TensorListAddressesEPKli",
              &cookie) == 0, "NormType 4 claimed");
    /* a CUDA 12 build keeps the 4 KB metadata */
    tfl_foreach_set_release(12, 12);
    CHECK(cubin_layout_ok(&tfl_kfamily_foreach, cubin[0].mangled, "0:3144 3144:1 3145:1 3148:4"),
          "CUDA 12 build");
    tfl_foreach_set_release(11, 13);
}

/* 2.15's lpnorm_cleanup(partials, addresses, int64 offsets, first):
 * block b reduces partials[offsets[first + b] .. offsets[first + b + 1]). */
static void test_cleanup_offsets(void)
{
    static const char cleanup[] =
        "_ZN2at6native14lpnorm_cleanupIfLNS0_8NormTypeE2EfLb1EfEEvPKT3_NS0_19TensorListAddressesEPKli";
    void *cookie = NULL;
    tfl_foreach_set_release(15, 13);
    CHECK(tfl_kfamily_foreach.match(cleanup, &cookie) == 1, "2.15 cleanup");
    static int64_t offsets[4] = { 5, 0, 3, 3 };   /* first = 1: tensors [0,3) [3,3) */
    static unsigned char addrs[25600];
    static float out[1];
    CHECK(tfl_mem_register(offsets, sizeof offsets, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK,
          "register");
    CHECK(tfl_mem_register(out, sizeof out, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK,
          "register");
    uintptr_t bogus = 0x4000, o = (uintptr_t)out;
    memcpy(addrs, &o, 8);
    const int64_t *op = offsets;
    int32_t first = 1;
    void *args[4] = { &bogus, addrs, &op, &first };
    tfl_kcall call = { .name = cleanup, .grid = { 1, 1, 1 }, .block = { 512, 1, 1 },
                       .args = args };
    char err[256] = "";
    /* tensor 0's 3 partials are no device memory */
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "bogus partials accepted: %s", err);
    /* offsets past the array (first 3: entries 3 and 4) */
    first = 3;
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "offsets past the registered array accepted: %s", err);
    /* decreasing offsets (first 0: 5 .. 0) */
    first = 0;
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "decreasing offsets accepted: %s", err);
    tfl_mem_unregister(offsets, TFL_MEM_HOST_REGISTERED);
    tfl_mem_unregister(out, TFL_MEM_HOST_REGISTERED);
    tfl_foreach_set_release(11, 13);
}

/* The 32 KB metadata (2.12 on): uint16 block_to_tensor, 2240 blocks. */
static void test_decoder_32k(void)
{
    static const char add_list[] =
        "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIfLi2ELi2ELi0EEEJSt4plusIfEfEEEvT_T0_DpT1_";
    void *cookie = NULL;
    tfl_foreach_set_release(15, 13);
    CHECK(tfl_kfamily_foreach.match(add_list, &cookie) == 1, "add list");
    /* TensorListMetadata<2>: addresses[2][448], numel[448], b2t[2240]
     * (uint16), b2c[2240] */
    static unsigned char meta[24200];
    memset(meta, 0, sizeof meta);
    const size_t T = 448, b2t = 3 * T * 8, b2c = b2t + 2 * 2240;
    uintptr_t bogus = 0x3000;
    int64_t numel = 100;
    memcpy(meta + 8 * 300, &bogus, 8);        /* list 0, tensor 300 */
    memcpy(meta + 8 * (T + 300), &bogus, 8);  /* list 1, tensor 300 */
    memcpy(meta + 2 * T * 8 + 8 * 300, &numel, 8);
    uint16_t t300 = 300;
    memcpy(meta + b2t, &t300, 2);             /* block 0 -> tensor 300 */
    unsigned char functor = 0, opfn = 0;
    float alpha = 1.0f;
    void *args[4] = { meta, &functor, &opfn, &alpha };
    tfl_kcall call = { .name = add_list, .grid = { 1, 1, 1 }, .block = { 512, 1, 1 },
                       .args = args };
    char err[256] = "";
    /* tensor 300 (beyond 2.11's 64) is read, and its bogus lists refused */
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "bogus tensor list accepted: %s", err);
    /* a block naming tensor 500 (only 448 fit) */
    uint16_t t500 = 500;
    memcpy(meta + b2t, &t500, 2);
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "tensor index beyond the metadata accepted: %s", err);
    /* chunk 5 of a 100-element tensor */
    int32_t chunk = 5;
    memcpy(meta + b2t, &t300, 2);
    memcpy(meta + b2c, &chunk, 4);
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_INVALID,
          "chunk beyond the tensor accepted: %s", err);
    /* 2240 blocks fit, 2241 do not */
    call.grid[0] = 2241;
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "2241 blocks accepted");
    tfl_foreach_set_release(11, 13);
}

int main(void)
{
    test_chunk_subsets();
    test_kinds();
    test_norm();
    test_decoder();
    test_layouts();
    test_decoder_32k();
    test_cleanup_offsets();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_foreach: ok\n");
    return 0;
}

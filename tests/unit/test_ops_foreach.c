/*
 * test_ops_foreach.c - the host "foreach" op: a launch processes exactly the
 * (tensor, chunk) blocks it lists, results against double-precision
 * references, and the two-kernel norm (partials + finish).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "route/optable.h"

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
    double ref0 = 0, inf0 = 0;
    for (int64_t i = 0; i < n0; i++) {
        x[i] = frand(&s);
        ref0 += (double)x[i] * x[i];
        inf0 = fmax(inf0, fabs(x[i]));
    }
    int norms[3] = { TFL_FOREACH_NORM_L1, TFL_FOREACH_NORM_L2, TFL_FOREACH_NORM_LINF };
    for (int k = 0; k < 3; k++) {
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
        else {
            want0 = 0;
            for (int64_t i = 0; i < n0; i++) want0 += fabs(x[i]);
            want1 = 19.0;
        }
        CHECK(fabs(r0 - want0) <= 1e-5 * want0, "norm %d tensor 0: %g vs %g", k, r0, want0);
        CHECK(r1 == (float)want1, "norm %d tensor 1: %g vs %g", k, r1, want1);
    }
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
    CHECK(tfl_kfamily_foreach.run(&call, cookie, err, sizeof err) == TFL_ERR_DEVICE,
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

int main(void)
{
    test_chunk_subsets();
    test_kinds();
    test_norm();
    test_decoder();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_ops_foreach: ok\n");
    return 0;
}

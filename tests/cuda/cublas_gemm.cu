// tfl-libs: -lcublas -lcublasLt
/*
 * cublas_gemm.cu - the cuBLAS GEMM family through the real cuBLAS API:
 * Sgemm/Dgemm/Hgemm/Cgemm/Zgemm, SgemmEx, GemmEx (fp32/fp16/bf16/fp64 operands,
 * every output type, compute 32F/TF32/16F/64F, every algo enum), their
 * strided and pointer-array batched forms, both pointer modes, beta = 0
 * with NaN in C, handle settings, and bad arguments.  Results are checked
 * against a double-precision host reference; inputs are multiples of 1/4,
 * so fp32 accumulation is exact and only the output rounding may differ.
 */
// tfl-backends: opencl
#include "cublas_common.h"
#include <thread>

enum api { K_S, K_D, K_H, K_EX, K_SEX };

static double ulp_of(cudaDataType t)
{
    switch (t) {
    case CUDA_R_16F: return 1.0 / 1024;
    case CUDA_R_16BF: return 1.0 / 128;
    case CUDA_R_32F: return 1.2e-7;
    default: return 2.3e-16;
    }
}

static size_t tsize(cudaDataType t)
{
    return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2;
}

static void put(cudaDataType t, std::vector<uint8_t> &buf, size_t i, double v)
{
    switch (t) {
    case CUDA_R_32F: { float f = (float)v; memcpy(&buf[i * 4], &f, 4); break; }
    case CUDA_R_64F: memcpy(&buf[i * 8], &v, 8); break;
    case CUDA_R_16F: { __half h = __double2half(v); memcpy(&buf[i * 2], &h, 2); break; }
    default: { __nv_bfloat16 h = __double2bfloat16(v); memcpy(&buf[i * 2], &h, 2); break; }
    }
}

static double get(cudaDataType t, const std::vector<uint8_t> &buf, size_t i)
{
    switch (t) {
    case CUDA_R_32F: { float f; memcpy(&f, &buf[i * 4], 4); return f; }
    case CUDA_R_64F: { double d; memcpy(&d, &buf[i * 8], 8); return d; }
    case CUDA_R_16F: { __half h; memcpy(&h, &buf[i * 2], 2); return __half2float(h); }
    default: { __nv_bfloat16 h; memcpy(&h, &buf[i * 2], 2); return __bfloat162float(h); }
    }
}

struct gcase {
    const char *name;
    api kind;
    cudaDataType ab, c;
    cublasComputeType_t comp;
    cublasGemmAlgo_t algo;
    int ta, tb, m, n, k, pad, batch, batch_mode;  /* 0 single, 1 strided, 2 array */
    double alpha, beta;
    int nan_c, devmode;
};

/* Scalars in the representation the call wants, in a 16-byte slot. */
static void make_scalar(const gcase &g, double v, unsigned char out[16])
{
    memset(out, 0, 16);
    int half = g.kind == K_H || (g.kind == K_EX && g.comp == CUBLAS_COMPUTE_16F);
    int dbl = g.kind == K_D || (g.kind == K_EX && g.comp == CUBLAS_COMPUTE_64F);
    if (half) { __half h = __double2half(v); memcpy(out, &h, 2); }
    else if (dbl) memcpy(out, &v, 8);
    else { float f = (float)v; memcpy(out, &f, 4); }
}

static void run_case(cublasHandle_t h, const gcase &g)
{
    const int ra = g.ta ? g.k : g.m, ca = g.ta ? g.m : g.k;
    const int rb = g.tb ? g.n : g.k, cb = g.tb ? g.k : g.n;
    const int lda = (ra > 1 ? ra : 1) + g.pad, ldb = (rb > 1 ? rb : 1) + g.pad;
    const int ldc = (g.m > 1 ? g.m : 1) + g.pad;
    const long long sa = (long long)lda * ca + 2, sb = (long long)ldb * cb + 3;
    const long long sc = (long long)ldc * g.n + 1;
    const int B = g.batch;
    const size_t ea = tsize(g.ab), ec = tsize(g.c);
    std::vector<uint8_t> hA(sa * B * ea), hB(sb * B * ea), hC(sc * B * ec);
    std::vector<double> dA(sa * B), dB(sb * B), dC(sc * B);
    for (size_t i = 0; i < dA.size(); i++) { dA[i] = rnd_q(); put(g.ab, hA, i, dA[i]); }
    for (size_t i = 0; i < dB.size(); i++) { dB[i] = rnd_q(); put(g.ab, hB, i, dB[i]); }
    for (size_t i = 0; i < dC.size(); i++) {
        dC[i] = g.nan_c ? NAN : rnd_q();
        put(g.c, hC, i, dC[i]);
    }
    uint8_t *A = dev_from(hA), *Bm = dev_from(hB), *C = dev_from(hC);

    unsigned char al[16], be[16];
    make_scalar(g, g.alpha, al);
    make_scalar(g, g.beta, be);
    const void *pa = al, *pb = be;
    void *dal = NULL, *dbe = NULL;
    CB_OK(cublasSetPointerMode(h, g.devmode ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    if (g.devmode) {
        CHECK_OK(cudaMalloc(&dal, 16));
        CHECK_OK(cudaMalloc(&dbe, 16));
        CHECK_OK(cudaMemcpy(dal, al, 16, cudaMemcpyHostToDevice));
        CHECK_OK(cudaMemcpy(dbe, be, 16, cudaMemcpyHostToDevice));
        pa = dal;
        pb = dbe;
    }
    /* pointer arrays (device memory), entries in reverse order of batch */
    void **dAa = NULL, **dBa = NULL, **dCa = NULL;
    if (g.batch_mode == 2) {
        std::vector<void *> pA(B), pB(B), pC(B);
        for (int b = 0; b < B; b++) {
            pA[b] = A + b * sa * ea;
            pB[b] = Bm + b * sb * ea;
            pC[b] = C + b * sc * ec;
        }
        dAa = dev_from(pA); dBa = dev_from(pB); dCa = dev_from(pC);
    }
    cublasOperation_t oa = g.ta == 2 ? CUBLAS_OP_C : g.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t ob = g.tb == 2 ? CUBLAS_OP_C : g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t st = CUBLAS_STATUS_INTERNAL_ERROR;
    switch (g.kind * 3 + g.batch_mode) {
    case K_S * 3 + 0: st = cublasSgemm(h, oa, ob, g.m, g.n, g.k, (const float *)pa, (const float *)A, lda, (const float *)Bm, ldb, (const float *)pb, (float *)C, ldc); break;
    case K_S * 3 + 1: st = cublasSgemmStridedBatched(h, oa, ob, g.m, g.n, g.k, (const float *)pa, (const float *)A, lda, sa, (const float *)Bm, ldb, sb, (const float *)pb, (float *)C, ldc, sc, B); break;
    case K_S * 3 + 2: st = cublasSgemmBatched(h, oa, ob, g.m, g.n, g.k, (const float *)pa, (const float **)dAa, lda, (const float **)dBa, ldb, (const float *)pb, (float **)dCa, ldc, B); break;
    case K_D * 3 + 0: st = cublasDgemm(h, oa, ob, g.m, g.n, g.k, (const double *)pa, (const double *)A, lda, (const double *)Bm, ldb, (const double *)pb, (double *)C, ldc); break;
    case K_D * 3 + 1: st = cublasDgemmStridedBatched(h, oa, ob, g.m, g.n, g.k, (const double *)pa, (const double *)A, lda, sa, (const double *)Bm, ldb, sb, (const double *)pb, (double *)C, ldc, sc, B); break;
    case K_D * 3 + 2: st = cublasDgemmBatched(h, oa, ob, g.m, g.n, g.k, (const double *)pa, (const double **)dAa, lda, (const double **)dBa, ldb, (const double *)pb, (double **)dCa, ldc, B); break;
    case K_H * 3 + 0: st = cublasHgemm(h, oa, ob, g.m, g.n, g.k, (const __half *)pa, (const __half *)A, lda, (const __half *)Bm, ldb, (const __half *)pb, (__half *)C, ldc); break;
    case K_H * 3 + 1: st = cublasHgemmStridedBatched(h, oa, ob, g.m, g.n, g.k, (const __half *)pa, (const __half *)A, lda, sa, (const __half *)Bm, ldb, sb, (const __half *)pb, (__half *)C, ldc, sc, B); break;
    case K_H * 3 + 2: st = cublasHgemmBatched(h, oa, ob, g.m, g.n, g.k, (const __half *)pa, (const __half **)dAa, lda, (const __half **)dBa, ldb, (const __half *)pb, (__half **)dCa, ldc, B); break;
    case K_EX * 3 + 0: st = cublasGemmEx(h, oa, ob, g.m, g.n, g.k, pa, A, g.ab, lda, Bm, g.ab, ldb, pb, C, g.c, ldc, g.comp, g.algo); break;
    case K_EX * 3 + 1: st = cublasGemmStridedBatchedEx(h, oa, ob, g.m, g.n, g.k, pa, A, g.ab, lda, sa, Bm, g.ab, ldb, sb, pb, C, g.c, ldc, sc, B, g.comp, g.algo); break;
    case K_SEX * 3 + 0: st = cublasSgemmEx(h, oa, ob, g.m, g.n, g.k, (const float *)pa, A, g.ab, lda, Bm, g.ab, ldb, (const float *)pb, C, g.c, ldc); break;
    case K_EX * 3 + 2: st = cublasGemmBatchedEx(h, oa, ob, g.m, g.n, g.k, pa, (const void **)dAa, g.ab, lda, (const void **)dBa, g.ab, ldb, pb, (void **)dCa, g.c, ldc, B, g.comp, g.algo); break;
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: status %s\n", g.name, cublasGetStatusName(st));
        tfl_failures++;
    } else {
        std::vector<uint8_t> out = host_from(C, hC.size());
        int bad = 0;
        for (int b = 0; b < B && bad < 4; b++) {
            std::vector<double> Ab(dA.begin() + b * sa, dA.end()), Bb(dB.begin() + b * sb, dB.end());
            std::vector<double> Cb(dC.begin() + b * sc, dC.end()), ref;
            ref_gemm(g.ta ? 1 : 0, g.tb ? 1 : 0, g.m, g.n, g.k, g.alpha, Ab, lda, Bb, ldb,
                     g.beta, Cb, ldc, ref);
            for (int j = 0; j < g.n; j++)
                for (int i = 0; i < g.m; i++) {
                    double want = ref[(size_t)i + (size_t)j * g.m];
                    double got = get(g.c, out, b * sc + i + (size_t)j * ldc);
                    if (!(fabs(got - want) <= ulp_of(g.c) * fabs(want) + 1e-12) && bad++ < 4) {
                        fprintf(stderr, "%s: batch %d C(%d,%d) = %.9g, want %.9g\n", g.name,
                                b, i, j, got, want);
                        tfl_failures++;
                    }
                }
            /* the padding rows of C are left alone */
            if (g.pad > 0) {
                double got = get(g.c, out, b * sc + g.m), was = dC[b * sc + g.m];
                CHECK(got == was || (isnan(got) && isnan(was)));
            }
        }
    }
    cudaFree(A); cudaFree(Bm); cudaFree(C);
    if (dal) { cudaFree(dal); cudaFree(dbe); }
    if (dAa) { cudaFree(dAa); cudaFree(dBa); cudaFree(dCa); }
    CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
}

static void test_handle(void)
{
    cublasHandle_t h = NULL;
    CB_OK(cublasCreate(&h));
    int v = 0;
    CB_OK(cublasGetVersion(h, &v));
    CHECK(v == CUBLAS_VERSION && v / 10000 == 13);
    int major = 0, minor = -1, patch = -1;
    CB_OK(cublasGetProperty(MAJOR_VERSION, &major));
    CB_OK(cublasGetProperty(MINOR_VERSION, &minor));
    CB_OK(cublasGetProperty(PATCH_LEVEL, &patch));
    CHECK(major == CUBLAS_VER_MAJOR && minor == CUBLAS_VER_MINOR && patch == CUBLAS_VER_PATCH);
    CHECK(cublasGetCudartVersion() / 1000 == 13);

    cudaStream_t s, got = (cudaStream_t)0x1234;
    CHECK_OK(cudaStreamCreate(&s));
    CB_OK(cublasSetStream(h, s));
    CB_OK(cublasGetStream(h, &got));
    CHECK(got == s);
    void *ws = NULL;
    CHECK_OK(cudaMalloc(&ws, 1 << 20));
    CB_OK(cublasSetWorkspace(h, ws, 1 << 20));

    cublasMath_t mm;
    CB_OK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CB_OK(cublasGetMathMode(h, &mm));
    CHECK(mm == CUBLAS_TF32_TENSOR_OP_MATH);
    CB_OK(cublasSetMathMode(h, (cublasMath_t)(CUBLAS_DEFAULT_MATH |
                                              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
    CHECK_CB(cublasSetMathMode(h, (cublasMath_t)0x40), CUBLAS_STATUS_INVALID_VALUE);
    CB_OK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    cublasPointerMode_t pm;
    CB_OK(cublasGetPointerMode(h, &pm));
    CHECK(pm == CUBLAS_POINTER_MODE_HOST);
    CHECK_CB(cublasSetPointerMode(h, (cublasPointerMode_t)7), CUBLAS_STATUS_INVALID_VALUE);
    cublasAtomicsMode_t am;
    CB_OK(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED));
    CB_OK(cublasGetAtomicsMode(h, &am));
    CHECK(am == CUBLAS_ATOMICS_ALLOWED);
    CHECK(strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
    CHECK(strlen(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED)) > 0);

    /* an sgemm on the user stream, then read back after a stream sync */
    std::vector<float> a(4, 1.0f), c(4, 0.0f);
    float *da = dev_from(a), *dc = dev_from(c);
    float one = 1.0f, zero = 0.0f;
    CB_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, da, 2, da, 2, &zero, dc, 2));
    CHECK_OK(cudaStreamSynchronize(s));
    c = host_from(dc, 4);
    CHECK(c[0] == 2.0f && c[3] == 2.0f);
    cudaFree(da); cudaFree(dc);

    CB_OK(cublasDestroy(h));
    CHECK_OK(cudaStreamDestroy(s));
    cudaFree(ws);
    /* a destroyed or NULL handle is not initialised */
    CHECK_CB(cublasGetVersion(h, &v), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CB(cublasSetStream(NULL, 0), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CB(cublasDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
}

static void test_bad_args(cublasHandle_t h)
{
    std::vector<float> z(64, 0.0f);
    float *d = dev_from(z);
    float one = 1.0f;
    const cublasStatus_t INV = CUBLAS_STATUS_INVALID_VALUE;
    CHECK_CB(cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &one, d, 2, d, 2, &one, d, 2), INV);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, -1, 2, &one, d, 2, d, 2, &one, d, 2), INV);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, -1, &one, d, 2, d, 2, &one, d, 2), INV);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 2, &one, d, 2, d, 2, &one, d, 3), INV); /* lda < m */
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 3, 2, 4, &one, d, 3, d, 4, &one, d, 3), INV); /* lda < k */
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, d, 2, d, 2, &one, d, 2), INV); /* ldb < k */
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 2, &one, d, 3, d, 2, &one, d, 2), INV); /* ldc < m */
    CHECK_CB(cublasSgemm(h, (cublasOperation_t)9, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2), INV);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, NULL, d, 2, d, 2, &one, d, 2), INV);
    CHECK_CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, 4, d, 2, 4, &one, d, 2, 4, -1), INV);
    /* lda = 0 with m = 0 is fine (max(1, m) = 1 is the bound); lda = 1 too */
    CB_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 2, 0, &one, d, 1, d, 1, &one, d, 1));
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 2, 0, &one, d, 0, d, 1, &one, d, 1), INV);
    /* unsupported type combinations */
    CHECK_CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_16F, 2, d, CUDA_R_32F, 2, &one, d, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_32F, 2, d, CUDA_R_32F, 2, &one, d, CUDA_R_32F, 2, (cublasComputeType_t)12345, CUBLAS_GEMM_DEFAULT), INV);
    CHECK_CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_32F, 2, d, CUDA_R_32F, 2, &one, d, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)5000), INV);
    /* device pointer mode with a host scalar: INVALID_VALUE, no crash */
    CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2), INV);
    CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    /* operands outside device memory: the GPU would fault */
    std::vector<float> host(64, 0.0f);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, host.data(), 2, d, 2, &one, d, 2), CUBLAS_STATUS_EXECUTION_FAILED);
    CHECK_CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 9, 9, 9, &one, d, 9, d, 9, &one, d, 9), CUBLAS_STATUS_EXECUTION_FAILED); /* 81 > 64 floats */
    CB_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 4, 4, &one, d, 8, d, 4, &one, d + 32, 8)); /* C: the last 32 of 64 */
    cudaFree(d);
}

/* Several host threads, each with its own handle, GEMMs concurrently
 * (fp32 and bf16, which uses per-thread conversion buffers). */
static void test_threads(void)
{
    const int nt = 4, n = 48;
    int fails[nt] = {};
    auto body = [&](int t) {
        cublasHandle_t h;
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { fails[t]++; return; }
        std::vector<float> a(n * n), b(n * n);
        std::vector<__nv_bfloat16> ab(n * n), bb(n * n);
        for (int i = 0; i < n * n; i++) {
            a[i] = (float)((i * (t + 3)) % 7 - 3) / 4;
            b[i] = (float)((i * 5 + t) % 9 - 4) / 4;
            ab[i] = __float2bfloat16(a[i]);
            bb[i] = __float2bfloat16(b[i]);
        }
        std::vector<double> ref(n * n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int p = 0; p < n; p++) s += (double)a[i + p * n] * b[p + j * n];
                ref[i + j * n] = s;
            }
        float *da = NULL, *db = NULL, *dc = NULL;
        __nv_bfloat16 *dab = NULL, *dbb = NULL, *dcb = NULL;
        cudaMalloc((void **)&da, n * n * 4); cudaMalloc((void **)&db, n * n * 4); cudaMalloc((void **)&dc, n * n * 4);
        cudaMalloc((void **)&dab, n * n * 2); cudaMalloc((void **)&dbb, n * n * 2); cudaMalloc((void **)&dcb, n * n * 2);
        cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dab, ab.data(), n * n * 2, cudaMemcpyHostToDevice);
        cudaMemcpy(dbb, bb.data(), n * n * 2, cudaMemcpyHostToDevice);
        float one = 1.0f, zero = 0.0f;
        std::vector<float> c(n * n);
        std::vector<__nv_bfloat16> cb(n * n);
        for (int it = 0; it < 20; it++) {
            if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n) ||
                cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dab, CUDA_R_16BF, n, dbb,
                             CUDA_R_16BF, n, &zero, dcb, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT))
                fails[t]++;
            cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(cb.data(), dcb, n * n * 2, cudaMemcpyDeviceToHost);
            for (int i = 0; i < n * n; i++)
                if (c[i] != (float)ref[i] ||
                    fabs(__bfloat162float(cb[i]) - ref[i]) > fabs(ref[i]) / 128)
                    { fails[t]++; break; }
        }
        cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dab); cudaFree(dbb); cudaFree(dcb);
        cublasDestroy(h);
    };
    std::vector<std::thread> th;
    for (int t = 0; t < nt; t++) th.emplace_back(body, t);
    for (auto &x : th) x.join();
    for (int t = 0; t < nt; t++)
        if (fails[t]) { fprintf(stderr, "thread %d: %d failures\n", t, fails[t]); tfl_failures++; }
}

int main(void)
{
    test_handle();
    test_threads();
    cublasHandle_t h;
    CB_OK(cublasCreate(&h));
    test_bad_args(h);

    struct tdef { const char *n; api kind; cudaDataType ab, c; cublasComputeType_t comp; };
    static const tdef types[] = {
        { "Sgemm", K_S, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
        { "Dgemm", K_D, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F },
        { "Hgemm", K_H, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F },
        { "Ex f32 32F", K_EX, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
        { "Ex f32 TF32", K_EX, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32 },
        { "Ex f16->f16", K_EX, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F },
        { "Ex f16->f32", K_EX, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
        { "Ex f16 16F", K_EX, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F },
        { "Ex bf16->bf16", K_EX, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F },
        { "Ex bf16->f32", K_EX, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F },
        { "Ex f64 64F", K_EX, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F },
        { "SgemmEx f16->f32", K_SEX, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
        { "SgemmEx bf16->bf16", K_SEX, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F },
        { "SgemmEx f32", K_SEX, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
    };
    static const cublasGemmAlgo_t algos[] = { CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT_TENSOR_OP,
                                              CUBLAS_GEMM_ALGO7, CUBLAS_GEMM_ALGO3_TENSOR_OP };
    char name[200];
    int ai = 0;
    for (const tdef &t : types)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int shape = 0; shape < 4; shape++) {
                    if (t.kind == K_SEX && shape >= 2)
                        continue;   /* SgemmEx has no batched form */
                    gcase g = {};
                    g.name = name; g.kind = t.kind; g.ab = t.ab; g.c = t.c; g.comp = t.comp;
                    g.algo = algos[ai++ % 4];
                    g.ta = ta; g.tb = tb; g.m = 13; g.n = 7; g.k = 9; g.batch = 1;
                    g.alpha = 1.5; g.beta = 0.0; g.nan_c = 1;
                    switch (shape) {
                    case 1: g.pad = 3; g.beta = -0.5; g.nan_c = 0; g.devmode = 1; break;
                    case 2: g.batch = 3; g.batch_mode = 1; g.beta = 0.25; g.nan_c = 0; g.pad = 1; break;
                    case 3: g.batch = 4; g.batch_mode = 2; g.m = 33; g.n = 20; g.k = 40;
                            g.devmode = 1; break;
                    }
                    snprintf(name, sizeof(name), "%s ta=%d tb=%d shape=%d", t.n, ta, tb, shape);
                    run_case(h, g);
                }

    /* Cgemm / Zgemm: (A + iA')(B + iB') against the reference on parts */
    for (int z = 0; z < 2; z++) {
        const int m = 5, n = 4, k = 6;
        std::vector<double> ar(m * k), ai2(m * k), br(k * n), bi(k * n);
        for (int i = 0; i < m * k; i++) { ar[i] = rnd_q(); ai2[i] = rnd_q(); }
        for (int i = 0; i < k * n; i++) { br[i] = rnd_q(); bi[i] = rnd_q(); }
        std::vector<double> rr(m * n), ri(m * n);
        /* D = alpha op(A) B with op = conjugate transpose of a k x m A */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double sr = 0, si = 0;
                for (int p = 0; p < k; p++) {
                    double xr = ar[p + i * k], xi = -ai2[p + i * k];  /* conj(A(p,i)) */
                    sr += xr * br[p + j * k] - xi * bi[p + j * k];
                    si += xr * bi[p + j * k] + xi * br[p + j * k];
                }
                /* alpha = 0.5 - 1i */
                rr[i + j * m] = 0.5 * sr + si;
                ri[i + j * m] = 0.5 * si - sr;
            }
        if (z == 0) {
            std::vector<cuComplex> A(m * k), Bv(k * n), C(m * n, make_cuComplex(NAN, NAN));
            for (int i = 0; i < m * k; i++) A[i] = make_cuComplex((float)ar[i], (float)ai2[i]);
            for (int i = 0; i < k * n; i++) Bv[i] = make_cuComplex((float)br[i], (float)bi[i]);
            cuComplex *dA = dev_from(A), *dB = dev_from(Bv), *dC = dev_from(C);
            cuComplex al = make_cuComplex(0.5f, -1.0f), be = make_cuComplex(0.0f, 0.0f);
            CB_OK(cublasCgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, m, n, k, &al, dA, k, dB, k, &be, dC, m));
            C = host_from(dC, m * n);
            for (int i = 0; i < m * n; i++) {
                CHECK_NEAR(C[i].x, rr[i], 1e-6);
                CHECK_NEAR(C[i].y, ri[i], 1e-6);
            }
            cudaFree(dA); cudaFree(dB); cudaFree(dC);
        } else {
            std::vector<cuDoubleComplex> A(m * k), Bv(k * n), C(m * n, make_cuDoubleComplex(NAN, NAN));
            for (int i = 0; i < m * k; i++) A[i] = make_cuDoubleComplex(ar[i], ai2[i]);
            for (int i = 0; i < k * n; i++) Bv[i] = make_cuDoubleComplex(br[i], bi[i]);
            cuDoubleComplex *dA = dev_from(A), *dB = dev_from(Bv), *dC = dev_from(C);
            cuDoubleComplex al = make_cuDoubleComplex(0.5, -1.0), be = make_cuDoubleComplex(0, 0);
            CB_OK(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, m, n, k, &al, dA, k, dB, k, &be, dC, m));
            C = host_from(dC, m * n);
            for (int i = 0; i < m * n; i++) {
                CHECK_NEAR(C[i].x, rr[i], 1e-13);
                CHECK_NEAR(C[i].y, ri[i], 1e-13);
            }
            cudaFree(dA); cudaFree(dB); cudaFree(dC);
        }
    }
    CB_OK(cublasDestroy(h));
    TEST_DONE();
}

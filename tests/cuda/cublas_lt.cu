// tfl-libs: -lcublas -lcublasLt
/*
 * cublas_lt.cu - cuBLASLt through the real API, the way PyTorch drives it:
 * the cuBLAS handle cast to a cublasLtHandle_t, matmul descriptor, three
 * layouts (C reused as D), a preference, one heuristic result, then
 * cublasLtMatmul with BIAS / RELU_BIAS / GELU_BIAS for fp32, fp16, bf16
 * and fp64; also auxiliary outputs (GELU input, ReLU mask) feeding the
 * gradient epilogues (DGELU_BGRAD, DRELU_BGRAD), BGRADA/BGRADB, strided
 * batches, device-mode scalars with C != D, attribute get/set rules and
 * what is refused.  References are double-precision host computations.
 */
#include "cublas_common.h"
#include <cublasLt.h>

static double gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static double gelu_grad(double x)
{
    /* central difference in long double: independent of a closed form */
    long double h = 1e-6L, a = x + h, b = x - h;
    long double ga = 0.5L * a * (1 + tanhl(0.7978845608028654L * (a + 0.044715L * a * a * a)));
    long double gb = 0.5L * b * (1 + tanhl(0.7978845608028654L * (b + 0.044715L * b * b * b)));
    return (double)((ga - gb) / (2 * h));
}

static size_t tsize(cudaDataType t) { return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2; }
static double ulp_of(cudaDataType t)
{
    return t == CUDA_R_16F ? 1.0 / 1024 : t == CUDA_R_16BF ? 1.0 / 128 : t == CUDA_R_32F ? 1.2e-7 : 2.3e-16;
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

/* A device matrix with its host copy (values exact in every type). */
struct mat {
    cudaDataType t;
    size_t n;
    std::vector<double> v;
    std::vector<uint8_t> h;
    uint8_t *d = NULL;
    mat(cudaDataType t_, size_t n_, int fill_nan = 0) : t(t_), n(n_), v(n_), h(n_ * tsize(t_)) {
        for (size_t i = 0; i < n; i++) { v[i] = fill_nan ? NAN : rnd_q(); put(t, h, i, v[i]); }
        d = dev_from(h);
    }
    ~mat() { cudaFree(d); }
    double out(size_t i) { if (i == 0 || hh.empty()) hh = host_from(d, h.size()); return get(t, hh, i); }
    std::vector<uint8_t> hh;
};

static void set_desc(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, const void *v, size_t n)
{
    CB_OK(cublasLtMatmulDescSetAttribute(d, a, v, n));
}

struct lt_case {
    const char *name;
    cudaDataType t;           /* A/B/C/D type */
    cublasComputeType_t comp;
    cudaDataType scale;
    cublasLtEpilogue_t epi;
    int ta, tb, m, n, k, batch, devmode, c_separate;
    double alpha, beta;
};

/* Runs one matmul; for gradient epilogues aux_in holds the forward values
 * (GELU input) or pre-activations whose sign gives the ReLU mask. */
static void run(cublasLtHandle_t lt, const lt_case &c)
{
    const int m = c.m, n = c.n, k = c.k;
    const int ra = c.ta ? k : m, ca = c.ta ? m : k, rb = c.tb ? n : k, cb = c.tb ? k : n;
    const int lda = ra + 1, ldb = rb, ldc = m + 2;
    const long long sa = (long long)lda * ca, sb = (long long)ldb * cb, sc = (long long)ldc * n;
    const int B = c.batch;
    mat A(c.t, sa * B), Bm(c.t, sb * B), C(c.t, sc * B), D(c.t, sc * B, 1);
    const int epi = c.epi;
    const int bgrad_b = epi == CUBLASLT_EPILOGUE_BGRADB;
    const int has_bias = epi == CUBLASLT_EPILOGUE_BIAS || epi == CUBLASLT_EPILOGUE_RELU_BIAS ||
                         epi == CUBLASLT_EPILOGUE_GELU_BIAS || epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
                         epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
    const int bgrad = epi == CUBLASLT_EPILOGUE_DGELU_BGRAD || epi == CUBLASLT_EPILOGUE_DRELU_BGRAD ||
                      epi == CUBLASLT_EPILOGUE_BGRADA || bgrad_b;
    const int gelu_aux = epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS || epi == CUBLASLT_EPILOGUE_GELU_AUX ||
                         epi == CUBLASLT_EPILOGUE_DGELU_BGRAD || epi == CUBLASLT_EPILOGUE_DGELU;
    const int relu_aux = epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS || epi == CUBLASLT_EPILOGUE_RELU_AUX ||
                         epi == CUBLASLT_EPILOGUE_DRELU_BGRAD || epi == CUBLASLT_EPILOGUE_DRELU;
    const int64_t bl = bgrad_b ? n : m;
    mat bias(c.t, bl * B, bgrad);   /* bgrad outputs start as NaN */
    const int64_t ld_aux = relu_aux ? 128 : ((m + 7) / 8) * 8;
    const int64_t aux_stride = ld_aux * n;
    mat aux(c.t, aux_stride * B, epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS);

    cublasLtMatmulDesc_t desc;
    CB_OK(cublasLtMatmulDescCreate(&desc, c.comp, c.scale));
    cublasOperation_t oa = c.ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = c.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof(oa));
    set_desc(desc, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof(ob));
    cublasLtEpilogue_t e = c.epi;
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e));
    if (has_bias || bgrad) {
        void *bp = bias.d;
        set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof(bp));
        int64_t bs = bl;
        set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bs, sizeof(bs));
    }
    if (gelu_aux || relu_aux) {
        void *ap = aux.d;
        set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &ap, sizeof(ap));
        set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld_aux, sizeof(ld_aux));
        int64_t as = aux_stride;
        set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &as, sizeof(as));
    }
    cublasLtPointerMode_t pm = c.devmode ? CUBLASLT_POINTER_MODE_DEVICE : CUBLASLT_POINTER_MODE_HOST;
    set_desc(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof(pm));

    cublasLtMatrixLayout_t la, lb, lc, ldd;
    CB_OK(cublasLtMatrixLayoutCreate(&la, c.t, ra, ca, lda));
    CB_OK(cublasLtMatrixLayoutCreate(&lb, c.t, rb, cb, ldb));
    CB_OK(cublasLtMatrixLayoutCreate(&lc, c.t, m, n, ldc));
    CB_OK(cublasLtMatrixLayoutCreate(&ldd, c.t, m, n, ldc));
    if (B > 1) {
        cublasLtMatrixLayout_t L[4] = { la, lb, lc, ldd };
        long long S[4] = { sa, sb, sc, sc };
        for (int i = 0; i < 4; i++) {
            int32_t bc = B;
            int64_t st = S[i];
            CB_OK(cublasLtMatrixLayoutSetAttribute(L[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof(bc)));
            CB_OK(cublasLtMatrixLayoutSetAttribute(L[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st, sizeof(st)));
        }
    }
    cublasLtMatmulPreference_t pref;
    CB_OK(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = 1 << 20;
    CB_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    uint32_t al = 16;
    CB_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al, sizeof(al)));
    cublasLtMatmulHeuristicResult_t res = {};
    int count = 0;
    CB_OK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, ldd, pref, 1, &res, &count));
    CHECK(count == 1 && res.state == CUBLAS_STATUS_SUCCESS && res.workspaceSize <= ws);

    unsigned char as[16] = {}, bs[16] = {};
    if (c.scale == CUDA_R_64F) { memcpy(as, &c.alpha, 8); memcpy(bs, &c.beta, 8); }
    else if (c.scale == CUDA_R_16F) { __half x = __double2half(c.alpha), y = __double2half(c.beta); memcpy(as, &x, 2); memcpy(bs, &y, 2); }
    else { float x = (float)c.alpha, y = (float)c.beta; memcpy(as, &x, 4); memcpy(bs, &y, 4); }
    const void *pa = as, *pb = bs;
    void *dsc = NULL;
    if (c.devmode) {
        CHECK_OK(cudaMalloc(&dsc, 32));
        CHECK_OK(cudaMemcpy(dsc, as, 16, cudaMemcpyHostToDevice));
        CHECK_OK(cudaMemcpy((char *)dsc + 16, bs, 16, cudaMemcpyHostToDevice));
        pa = dsc;
        pb = (char *)dsc + 16;
    }
    void *wsp = NULL;
    CHECK_OK(cudaMalloc(&wsp, ws));
    cudaStream_t s;
    CHECK_OK(cudaStreamCreate(&s));
    /* PyTorch's layout: C and D the same buffer unless c_separate */
    uint8_t *dptr = c.c_separate ? D.d : C.d;
    cublasStatus_t st = cublasLtMatmul(lt, desc, pa, A.d, la, Bm.d, lb, pb, C.d, lc, dptr, ldd,
                                       &res.algo, wsp, ws, s);
    CHECK_OK(cudaStreamSynchronize(s));
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "%s: cublasLtMatmul returned %s\n", c.name, cublasGetStatusName(st));
        tfl_failures++;
    } else {
        mat &out = c.c_separate ? D : C;
        std::vector<uint8_t> got = host_from(out.d, out.h.size());
        std::vector<uint8_t> gbias = host_from(bias.d, bias.h.size());
        std::vector<uint8_t> gaux = host_from(aux.d, aux.h.size());
        const double u = ulp_of(c.t);
        int bad = 0;
        for (int b = 0; b < B; b++) {
            std::vector<double> bsum(bl, 0.0);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double acc = 0;
                    for (int p = 0; p < k; p++)
                        acc += A.v[b * sa + op_idx(c.ta, lda, i, p)] * Bm.v[b * sb + op_idx(c.tb, ldb, p, j)];
                    double x = c.alpha * acc;
                    if (c.beta != 0) x += c.beta * C.v[b * sc + i + (size_t)j * ldc];
                    size_t ai = b * aux_stride + i + (size_t)j * ld_aux;
                    if (has_bias) x += bias.v[b * bl + i];
                    if (epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) {
                        /* aux holds the GELU input, rounded to the output type */
                        double ax = get(c.t, gaux, ai);
                        if (!(fabs(ax - x) <= u * fabs(x) + 1e-12) && bad++ < 4) {
                            fprintf(stderr, "%s: aux(%d,%d) = %g, want %g\n", c.name, i, j, ax, x);
                            tfl_failures++;
                        }
                    }
                    if (epi == CUBLASLT_EPILOGUE_RELU_BIAS || epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS) x = x > 0 ? x : 0;
                    if (epi == CUBLASLT_EPILOGUE_GELU_BIAS || epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS) x = gelu(x);
                    if (epi == CUBLASLT_EPILOGUE_DGELU_BGRAD) x *= gelu_grad(aux.v[ai]);
                    if (!bgrad_b)
                        bsum[i] += x;
                    double gv = get(c.t, got, b * sc + i + (size_t)j * ldc);
                    double tol = u * fabs(x) + 1e-6 * (fabs(x) + 1) * (c.t != CUDA_R_64F);
                    if (epi == CUBLASLT_EPILOGUE_DGELU_BGRAD)   /* numerical derivative */
                        tol += 1e-9 * (fabs(x) + 1);
                    if (!(fabs(gv - x) <= tol) && bad++ < 4) {
                        fprintf(stderr, "%s: batch %d D(%d,%d) = %.8g, want %.8g\n", c.name, b, i, j, gv, x);
                        tfl_failures++;
                    }
                }
            if (epi == CUBLASLT_EPILOGUE_DGELU_BGRAD)
                for (int i = 0; i < m; i++) {
                    double gv = get(c.t, gbias, b * bl + i);
                    CHECK(fabs(gv - bsum[i]) <= u * (fabs(bsum[i]) + 1) * 4 + 1e-5 * n);
                }
            if (epi == CUBLASLT_EPILOGUE_BGRADA || bgrad_b)
                for (int64_t i = 0; i < bl; i++) {
                    double want = 0;
                    for (int p = 0; p < k; p++)
                        want += bgrad_b ? Bm.v[b * sb + op_idx(c.tb, ldb, p, i)]
                                        : A.v[b * sa + op_idx(c.ta, lda, i, p)];
                    double gv = get(c.t, gbias, b * bl + i);
                    if (!(fabs(gv - want) <= u * (fabs(want) + 1) * 2)) {
                        fprintf(stderr, "%s: bgrad[%lld] = %g, want %g\n", c.name, (long long)i, gv, want);
                        tfl_failures++;
                    }
                }
        }
    }
    cudaFree(wsp);
    if (dsc) cudaFree(dsc);
    CHECK_OK(cudaStreamDestroy(s));
    CB_OK(cublasLtMatmulPreferenceDestroy(pref));
    CB_OK(cublasLtMatrixLayoutDestroy(la)); CB_OK(cublasLtMatrixLayoutDestroy(lb));
    CB_OK(cublasLtMatrixLayoutDestroy(lc)); CB_OK(cublasLtMatrixLayoutDestroy(ldd));
    CB_OK(cublasLtMatmulDescDestroy(desc));
}

/* RELU_AUX_BIAS forward writes a mask; DRELU_BGRAD backward must zero
 * exactly where the forward pre-activation was <= 0 and sum the rest. */
static void test_relu_pair(cublasLtHandle_t lt)
{
    const int m = 10, n = 6, k = 5;
    const cudaDataType t = CUDA_R_32F;
    mat A(t, m * k), B(t, k * n), bias(t, m), D(t, m * n, 1), G(t, m * n, 1), bg(t, m, 1);
    mat mask(CUDA_R_32F, 128 * n / 32 + 4);   /* 128-bit columns */
    cublasLtMatmulDesc_t desc;
    CB_OK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e));
    void *bp = bias.d, *mp = mask.d;
    int64_t ld = 128;
    set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof(bp));
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &mp, sizeof(mp));
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof(ld));
    cublasLtMatrixLayout_t la, lb, lc;
    CB_OK(cublasLtMatrixLayoutCreate(&la, t, m, k, m));
    CB_OK(cublasLtMatrixLayoutCreate(&lb, t, k, n, k));
    CB_OK(cublasLtMatrixLayoutCreate(&lc, t, m, n, m));
    float one = 1.0f, zero = 0.0f;
    CB_OK(cublasLtMatmul(lt, desc, &one, A.d, la, B.d, lb, &zero, D.d, lc, D.d, lc, NULL, NULL, 0, 0));
    /* backward: G = (A B) masked, bias grad = row sums of G */
    e = CUBLASLT_EPILOGUE_DRELU_BGRAD;
    set_desc(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e));
    bp = bg.d;
    set_desc(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof(bp));
    CB_OK(cublasLtMatmul(lt, desc, &one, A.d, la, B.d, lb, &zero, G.d, lc, G.d, lc, NULL, NULL, 0, 0));
    std::vector<uint8_t> gd = host_from(G.d, G.h.size()), gb = host_from(bg.d, bg.h.size());
    for (int i = 0; i < m; i++) {
        double rowsum = 0;
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int p = 0; p < k; p++) acc += A.v[i + p * m] * B.v[p + j * k];
            double pre = acc + bias.v[i];
            double want = pre > 0 ? acc : 0.0;
            rowsum += want;
            CHECK_NEAR(get(t, gd, i + (size_t)j * m), want, 1e-6);
        }
        CHECK_NEAR(get(t, gb, i), rowsum, 1e-6);
    }
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
}

static void test_attributes(cublasLtHandle_t lt)
{
    cublasLtMatmulDesc_t d;
    CB_OK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F));
    int32_t comp = 0;
    size_t w = 0;
    CB_OK(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &comp, sizeof(comp), &w));
    CHECK(comp == CUBLAS_COMPUTE_32F_FAST_TF32 && w == sizeof(comp));
    CB_OK(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, NULL, 0, &w));
    CHECK(w == sizeof(void *));
    int64_t big = 1;
    CHECK_CB(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &big, sizeof(big)), CUBLAS_STATUS_INVALID_VALUE);
    int32_t badop = 9;
    CHECK_CB(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &badop, sizeof(badop)), CUBLAS_STATUS_INVALID_VALUE);
    uint32_t bade = 3;
    CHECK_CB(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &bade, sizeof(bade)), CUBLAS_STATUS_INVALID_VALUE);
    int32_t sc = CUDA_R_32F;
    CB_OK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &sc, sizeof(sc)));
    int32_t bt = CUDA_R_16BF;
    CB_OK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)));
    int32_t got = 0;
    CB_OK(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &got, sizeof(got), NULL));
    CHECK(got == CUDA_R_16BF);

    /* a fp32 TF32 matmul (run exactly) on a row-major layout is refused */
    cublasLtMatrixLayout_t l;
    CB_OK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 4, 4));
    uint64_t rows = 0;
    CB_OK(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof(rows), &w));
    CHECK(rows == 4 && w == 8);
    int32_t order = CUBLASLT_ORDER_ROW;
    CB_OK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof(order)));
    cublasLtMatrixLayout_t lc;
    CB_OK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, 4, 4, 4));
    cublasLtMatmulPreference_t p;
    CB_OK(cublasLtMatmulPreferenceCreate(&p));
    cublasLtMatmulHeuristicResult_t r;
    int count = 7;
    CHECK_CB(cublasLtMatmulAlgoGetHeuristic(lt, d, l, lc, lc, lc, p, 1, &r, &count), CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK(count == 0);
    std::vector<float> z(16, 1.0f);
    float *dz = dev_from(z);
    float one = 1.0f;
    CHECK_CB(cublasLtMatmul(lt, d, &one, dz, l, dz, lc, &one, dz, lc, dz, lc, NULL, NULL, 0, 0), CUBLAS_STATUS_NOT_SUPPORTED);
    /* bias epilogue without a bias pointer */
    cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_BIAS;
    CB_OK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)));
    CHECK_CB(cublasLtMatmul(lt, d, &one, dz, lc, dz, lc, &one, dz, lc, dz, lc, NULL, NULL, 0, 0), CUBLAS_STATUS_INVALID_VALUE);
    /* shape mismatch */
    cublasLtMatrixLayout_t l3;
    CB_OK(cublasLtMatrixLayoutCreate(&l3, CUDA_R_32F, 3, 4, 4));
    e = CUBLASLT_EPILOGUE_DEFAULT;
    CB_OK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)));
    CHECK_CB(cublasLtMatmul(lt, d, &one, dz, l3, dz, lc, &one, dz, lc, dz, lc, NULL, NULL, 0, 0), CUBLAS_STATUS_INVALID_VALUE);
    /* a NULL handle */
    CHECK_CB(cublasLtMatmul(NULL, d, &one, dz, lc, dz, lc, &one, dz, lc, dz, lc, NULL, NULL, 0, 0), CUBLAS_STATUS_NOT_INITIALIZED);
    /* the same call that was refused works in column-major, TF32 compute
     * (C = D, separate from A and B: D = A B + C = 4 + 1) */
    float *dc = dev_from(z);
    CB_OK(cublasLtMatmul(lt, d, &one, dz, lc, dz, lc, &one, dc, lc, dc, lc, NULL, NULL, 0, 0));
    std::vector<float> r5 = host_from(dc, 16);
    CHECK(r5[0] == 5.0f && r5[15] == 5.0f);
    /* user-allocated descriptors (the semi-opaque Init forms): 4 + 5 */
    cublasLtMatmulDescOpaque_t dop;
    CB_OK(cublasLtMatmulDescInit(&dop, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatrixLayoutOpaque_t lop;
    CB_OK(cublasLtMatrixLayoutInit(&lop, CUDA_R_32F, 4, 4, 4));
    CB_OK(cublasLtMatmul(lt, &dop, &one, dz, &lop, dz, &lop, &one, dc, &lop, dc, &lop, NULL, NULL, 0, 0));
    r5 = host_from(dc, 16);
    CHECK(r5[0] == 9.0f && r5[15] == 9.0f);
    cudaFree(dc);
    cudaFree(dz);
    cublasLtMatrixLayoutDestroy(l); cublasLtMatrixLayoutDestroy(lc); cublasLtMatrixLayoutDestroy(l3);
    cublasLtMatmulPreferenceDestroy(p);
    cublasLtMatmulDescDestroy(d);
}

int main(void)
{
    CHECK(cublasLtGetVersion() / 10000 == 13);
    CHECK(cublasLtGetCudartVersion() / 1000 == 13);
    int major = 0;
    CB_OK(cublasLtGetProperty(MAJOR_VERSION, &major));
    CHECK(major == 13);
    cublasLtHandle_t own;
    CB_OK(cublasLtCreate(&own));
    CB_OK(cublasLtDestroy(own));

    /* PyTorch: the cuBLAS handle is used as the cuBLASLt handle */
    cublasHandle_t h;
    CB_OK(cublasCreate(&h));
    cublasLtHandle_t lt = (cublasLtHandle_t)h;

    test_attributes(lt);
    test_relu_pair(lt);

    struct tdef { const char *n; cudaDataType t; cublasComputeType_t comp; cudaDataType scale; };
    static const tdef types[] = {
        { "f32", CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F },
        { "f32-tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F },
        { "f16", CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F },
        { "bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F },
        { "f64", CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F },
    };
    static const cublasLtEpilogue_t epis[] = {
        CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS,
        CUBLASLT_EPILOGUE_GELU_BIAS, CUBLASLT_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_DGELU_BGRAD,
        CUBLASLT_EPILOGUE_BGRADA, CUBLASLT_EPILOGUE_BGRADB };
    char name[160];
    for (const tdef &t : types)
        for (cublasLtEpilogue_t e : epis)
            for (int shape = 0; shape < 3; shape++) {
                lt_case c = {};
                c.name = name; c.t = t.t; c.comp = t.comp; c.scale = t.scale; c.epi = e;
                c.m = 12; c.n = 9; c.k = 7; c.batch = 1; c.alpha = 1.0; c.beta = 0.0;
                switch (shape) {
                case 0: c.ta = 1; c.tb = 0; break;                 /* PyTorch's addmm layout */
                case 1: c.ta = 0; c.tb = 1; c.devmode = 1; c.c_separate = 1;
                        c.alpha = 0.5; c.beta = (e == CUBLASLT_EPILOGUE_DEFAULT) ? -1.0 : 0.0; break;
                case 2: c.batch = 3; c.ta = 1; c.tb = 1; c.alpha = 2.0; break;
                }
                snprintf(name, sizeof(name), "%s epilogue %d shape %d", t.n, (int)e, shape);
                run(lt, c);
            }
    /* fp16 compute with fp16 scale */
    lt_case c = {};
    c.name = "f16 compute 16F"; c.t = CUDA_R_16F; c.comp = CUBLAS_COMPUTE_16F; c.scale = CUDA_R_16F;
    c.epi = CUBLASLT_EPILOGUE_BIAS; c.m = 8; c.n = 8; c.k = 8; c.batch = 1; c.alpha = 1.0;
    run(lt, c);

    CB_OK(cublasDestroy(h));
    TEST_DONE();
}

// tfl-libs: -lcublas -lcublasLt
/*
 * cublas_lapack.cu - cuBLAS's batched LAPACK-style routines through the
 * real API: getrfBatched (with pivots: P A = L U; without: A = L U; a
 * singular matrix's info), getrsBatched (A X = B), geqrfBatched
 * (A^H A = R^H R) and gelsBatched (normal equations hold), real and
 * complex, plus argument errors.  Checks use double/complex<double> host
 * arithmetic on the inputs.
 */
// tfl-backends: opencl
#include "cublas_common.h"
#include <complex>

typedef std::complex<double> cd;
template <typename T> struct ty;
template <> struct ty<float> {
    static cd get(float v) { return v; }
    static float make(cd v) { return (float)v.real(); }
    static constexpr double tol = 2e-4;
    static cublasStatus_t getrf(cublasHandle_t h, int n, float *const A[], int lda, int *P, int *info, int b) { return cublasSgetrfBatched(h, n, A, lda, P, info, b); }
    static cublasStatus_t getrs(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const float *const A[], int lda, const int *P, float *const B[], int ldb, int *info, int b) { return cublasSgetrsBatched(h, t, n, nrhs, A, lda, P, B, ldb, info, b); }
    static cublasStatus_t geqrf(cublasHandle_t h, int m, int n, float *const A[], int lda, float *const T_[], int *info, int b) { return cublasSgeqrfBatched(h, m, n, A, lda, T_, info, b); }
    static cublasStatus_t gels(cublasHandle_t h, cublasOperation_t t, int m, int n, int nrhs, float *const A[], int lda, float *const C[], int ldc, int *info, int *di, int b) { return cublasSgelsBatched(h, t, m, n, nrhs, A, lda, C, ldc, info, di, b); }
};
template <> struct ty<double> {
    static cd get(double v) { return v; }
    static double make(cd v) { return v.real(); }
    static constexpr double tol = 1e-11;
    static cublasStatus_t getrf(cublasHandle_t h, int n, double *const A[], int lda, int *P, int *info, int b) { return cublasDgetrfBatched(h, n, A, lda, P, info, b); }
    static cublasStatus_t getrs(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const double *const A[], int lda, const int *P, double *const B[], int ldb, int *info, int b) { return cublasDgetrsBatched(h, t, n, nrhs, A, lda, P, B, ldb, info, b); }
    static cublasStatus_t geqrf(cublasHandle_t h, int m, int n, double *const A[], int lda, double *const T_[], int *info, int b) { return cublasDgeqrfBatched(h, m, n, A, lda, T_, info, b); }
    static cublasStatus_t gels(cublasHandle_t h, cublasOperation_t t, int m, int n, int nrhs, double *const A[], int lda, double *const C[], int ldc, int *info, int *di, int b) { return cublasDgelsBatched(h, t, m, n, nrhs, A, lda, C, ldc, info, di, b); }
};
template <> struct ty<cuComplex> {
    static cd get(cuComplex v) { return cd(v.x, v.y); }
    static cuComplex make(cd v) { return make_cuComplex((float)v.real(), (float)v.imag()); }
    static constexpr double tol = 2e-4;
    static cublasStatus_t getrf(cublasHandle_t h, int n, cuComplex *const A[], int lda, int *P, int *info, int b) { return cublasCgetrfBatched(h, n, A, lda, P, info, b); }
    static cublasStatus_t getrs(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const cuComplex *const A[], int lda, const int *P, cuComplex *const B[], int ldb, int *info, int b) { return cublasCgetrsBatched(h, t, n, nrhs, A, lda, P, B, ldb, info, b); }
    static cublasStatus_t geqrf(cublasHandle_t h, int m, int n, cuComplex *const A[], int lda, cuComplex *const T_[], int *info, int b) { return cublasCgeqrfBatched(h, m, n, A, lda, T_, info, b); }
    static cublasStatus_t gels(cublasHandle_t h, cublasOperation_t t, int m, int n, int nrhs, cuComplex *const A[], int lda, cuComplex *const C[], int ldc, int *info, int *di, int b) { return cublasCgelsBatched(h, t, m, n, nrhs, A, lda, C, ldc, info, di, b); }
};
template <> struct ty<cuDoubleComplex> {
    static cd get(cuDoubleComplex v) { return cd(v.x, v.y); }
    static cuDoubleComplex make(cd v) { return make_cuDoubleComplex(v.real(), v.imag()); }
    static constexpr double tol = 1e-11;
    static cublasStatus_t getrf(cublasHandle_t h, int n, cuDoubleComplex *const A[], int lda, int *P, int *info, int b) { return cublasZgetrfBatched(h, n, A, lda, P, info, b); }
    static cublasStatus_t getrs(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const cuDoubleComplex *const A[], int lda, const int *P, cuDoubleComplex *const B[], int ldb, int *info, int b) { return cublasZgetrsBatched(h, t, n, nrhs, A, lda, P, B, ldb, info, b); }
    static cublasStatus_t geqrf(cublasHandle_t h, int m, int n, cuDoubleComplex *const A[], int lda, cuDoubleComplex *const T_[], int *info, int b) { return cublasZgeqrfBatched(h, m, n, A, lda, T_, info, b); }
    static cublasStatus_t gels(cublasHandle_t h, cublasOperation_t t, int m, int n, int nrhs, cuDoubleComplex *const A[], int lda, cuDoubleComplex *const C[], int ldc, int *info, int *di, int b) { return cublasZgelsBatched(h, t, m, n, nrhs, A, lda, C, ldc, info, di, b); }
};

static int is_cplx_tag;   /* the element type being tested is complex */
template <typename T> static cd rnd_el(void)
{
    cd v(rnd_q(), 0);
    if (is_cplx_tag)
        v = cd(v.real(), rnd_q());
    return v;
}

/* Device copies of B matrices (m x n, ld) and a device array of pointers. */
template <typename T> struct batch_mats {
    std::vector<T *> d;
    T **dptrs = NULL;
    batch_mats(const std::vector<std::vector<T>> &h) {
        for (auto &m : h) d.push_back(dev_from(m));
        dptrs = dev_from(d);
    }
    ~batch_mats() { for (T *p : d) cudaFree(p); cudaFree(dptrs); }
    std::vector<T> get(int b, size_t n) { return host_from(d[b], n); }
};

template <typename T> static void run(cublasHandle_t h, int cplx)
{
    typedef ty<T> Y;
    is_cplx_tag = cplx;
    const double tol = Y::tol;
    const int n = 6, lda = 8, B = 3, nrhs = 2, ldb = 7;
    std::vector<std::vector<T>> A(B), Bm(B);
    std::vector<std::vector<cd>> Ad(B), Bd(B);
    for (int b = 0; b < B; b++) {
        A[b].resize((size_t)lda * n); Ad[b].resize(A[b].size());
        for (size_t i = 0; i < A[b].size(); i++) {
            cd v = rnd_el<T>();
            if (i % lda == i / lda) v += cd(b == 1 ? 0.0 : 3.0, 0);  /* b 1: pivoting matters */
            Ad[b][i] = Y::get(Y::make(v));
            A[b][i] = Y::make(v);
        }
        Bm[b].resize((size_t)ldb * nrhs); Bd[b].resize(Bm[b].size());
        for (size_t i = 0; i < Bm[b].size(); i++) { cd v = rnd_el<T>(); Bm[b][i] = Y::make(v); Bd[b][i] = Y::get(Y::make(v)); }
    }

    /* getrf with pivots, then getrs */
    {
        batch_mats<T> dA(A), dB(Bm);
        int *dP = NULL, *dinfo = NULL;
        CHECK_OK(cudaMalloc((void **)&dP, sizeof(int) * n * B));
        CHECK_OK(cudaMalloc((void **)&dinfo, sizeof(int) * B));
        CB_OK(Y::getrf(h, n, dA.dptrs, lda, dP, dinfo, B));
        std::vector<int> P = host_from(dP, (size_t)n * B), info = host_from(dinfo, B);
        for (int b = 0; b < B; b++) {
            CHECK(info[b] == 0);
            std::vector<T> LU = dA.get(b, A[b].size());
            /* P A: apply the row interchanges in order to a copy of A */
            std::vector<cd> PA = Ad[b];
            for (int i = 0; i < n; i++) {
                int p = P[(size_t)b * n + i] - 1;
                CHECK(p >= i && p < n);
                if (p < i || p >= n) break;
                for (int c = 0; c < n; c++) std::swap(PA[i + (size_t)c * lda], PA[p + (size_t)c * lda]);
            }
            for (int c = 0; c < n; c++)
                for (int r = 0; r < n; r++) {
                    cd s = 0;
                    for (int k = 0; k <= std::min(r, c); k++) {
                        cd l = k == r ? cd(1, 0) : Y::get(LU[r + (size_t)k * lda]);
                        s += l * Y::get(LU[k + (size_t)c * lda]);
                    }
                    CHECK_NEAR(std::abs(s - PA[r + (size_t)c * lda]), 0.0, tol * 10);
                }
        }
        int hinfo = 7;
        CB_OK(Y::getrs(h, CUBLAS_OP_N, n, nrhs, (const T *const *)dA.dptrs, lda, dP, dB.dptrs, ldb, &hinfo, B));
        CHECK(hinfo == 0);
        for (int b = 0; b < B; b++) {
            std::vector<T> X = dB.get(b, Bm[b].size());
            for (int j = 0; j < nrhs; j++)
                for (int r = 0; r < n; r++) {
                    cd s = 0;
                    for (int k = 0; k < n; k++) s += Ad[b][r + (size_t)k * lda] * Y::get(X[k + (size_t)j * ldb]);
                    CHECK_NEAR(std::abs(s - Bd[b][r + (size_t)j * ldb]), 0.0, tol * 20);
                }
        }
        /* argument errors: status and -i in the host info */
        CHECK_CB(Y::getrs(h, CUBLAS_OP_N, -1, nrhs, (const T *const *)dA.dptrs, lda, dP, dB.dptrs, ldb, &hinfo, B), CUBLAS_STATUS_INVALID_VALUE);
        CHECK(hinfo == -3);
        CHECK_CB(Y::getrs(h, CUBLAS_OP_N, n, nrhs, (const T *const *)dA.dptrs, lda, dP, dB.dptrs, 2, &hinfo, B), CUBLAS_STATUS_INVALID_VALUE);
        CHECK(hinfo == -9);
        CHECK_CB(Y::getrf(h, n, dA.dptrs, 2, dP, dinfo, B), CUBLAS_STATUS_INVALID_VALUE);
        cudaFree(dP); cudaFree(dinfo);
    }
    /* getrf without pivots on the diagonally dominant entries: A = L U;
     * and a singular matrix reports its zero pivot */
    {
        std::vector<std::vector<T>> A2 = { A[0], A[2], A[0] };
        for (int c = 0; c < n; c++) A2[2][3 + (size_t)c * lda] = Y::make(0.0);   /* row 3 = 0 */
        batch_mats<T> dA(A2);
        int *dinfo = NULL;
        CHECK_OK(cudaMalloc((void **)&dinfo, sizeof(int) * 3));
        CB_OK(Y::getrf(h, n, dA.dptrs, lda, NULL, dinfo, 3));
        std::vector<int> info = host_from(dinfo, 3);
        CHECK(info[0] == 0 && info[1] == 0 && info[2] == 4);
        for (int b = 0; b < 2; b++) {
            std::vector<T> LU = dA.get(b, A2[b].size());
            const std::vector<cd> &orig = Ad[b == 0 ? 0 : 2];
            for (int c = 0; c < n; c++)
                for (int r = 0; r < n; r++) {
                    cd s = 0;
                    for (int k = 0; k <= std::min(r, c); k++)
                        s += (k == r ? cd(1, 0) : Y::get(LU[r + (size_t)k * lda])) * Y::get(LU[k + (size_t)c * lda]);
                    CHECK_NEAR(std::abs(s - orig[r + (size_t)c * lda]), 0.0, tol * 10);
                }
        }
        cudaFree(dinfo);
    }
    /* geqrf (m x n, m > n): A^H A = R^H R */
    {
        const int m = 7, nq = 4, ldq = 9;
        std::vector<std::vector<T>> Q(2), tau(2, std::vector<T>(nq));
        std::vector<std::vector<cd>> Qd(2);
        for (int b = 0; b < 2; b++) {
            Q[b].resize((size_t)ldq * nq); Qd[b].resize(Q[b].size());
            for (size_t i = 0; i < Q[b].size(); i++) { cd v = rnd_el<T>(); Q[b][i] = Y::make(v); Qd[b][i] = Y::get(Y::make(v)); }
        }
        batch_mats<T> dQ(Q), dT(tau);
        int hinfo = 5;
        CB_OK(Y::geqrf(h, m, nq, dQ.dptrs, ldq, dT.dptrs, &hinfo, 2));
        CHECK(hinfo == 0);
        for (int b = 0; b < 2; b++) {
            std::vector<T> R = dQ.get(b, Q[b].size());
            for (int i = 0; i < nq; i++)
                for (int j = 0; j < nq; j++) {
                    cd ata = 0, rtr = 0;
                    for (int k = 0; k < m; k++) ata += std::conj(Qd[b][k + (size_t)i * ldq]) * Qd[b][k + (size_t)j * ldq];
                    for (int k = 0; k <= std::min(i, j); k++) rtr += std::conj(Y::get(R[k + (size_t)i * ldq])) * Y::get(R[k + (size_t)j * ldq]);
                    CHECK_NEAR(std::abs(ata - rtr), 0.0, tol * 20);
                }
        }
        CHECK_CB(Y::geqrf(h, m, nq, dQ.dptrs, 3, dT.dptrs, &hinfo, 2), CUBLAS_STATUS_INVALID_VALUE);
        CHECK(hinfo == -5);
    }
    /* gels (overdetermined): A^H (A x - c) = 0 */
    {
        const int m = 8, nn = 3, nr = 2, ldl = 8;
        std::vector<std::vector<T>> L(2), C(2);
        std::vector<std::vector<cd>> Ld(2), Cd(2);
        for (int b = 0; b < 2; b++) {
            L[b].resize((size_t)ldl * nn); Ld[b].resize(L[b].size());
            C[b].resize((size_t)ldl * nr); Cd[b].resize(C[b].size());
            for (size_t i = 0; i < L[b].size(); i++) { cd v = rnd_el<T>(); L[b][i] = Y::make(v); Ld[b][i] = Y::get(Y::make(v)); }
            for (size_t i = 0; i < C[b].size(); i++) { cd v = rnd_el<T>(); C[b][i] = Y::make(v); Cd[b][i] = Y::get(Y::make(v)); }
        }
        batch_mats<T> dL(L), dC(C);
        int hinfo = 5, *dinfo = NULL;
        CHECK_OK(cudaMalloc((void **)&dinfo, sizeof(int) * 2));
        CB_OK(Y::gels(h, CUBLAS_OP_N, m, nn, nr, dL.dptrs, ldl, dC.dptrs, ldl, &hinfo, dinfo, 2));
        std::vector<int> dinf = host_from(dinfo, 2);
        CHECK(hinfo == 0 && dinf[0] == 0 && dinf[1] == 0);
        for (int b = 0; b < 2; b++) {
            std::vector<T> X = dC.get(b, C[b].size());
            for (int j = 0; j < nr; j++)
                for (int i = 0; i < nn; i++) {
                    cd g = 0;
                    for (int k = 0; k < m; k++) {
                        cd r = -Cd[b][k + (size_t)j * ldl];
                        for (int p = 0; p < nn; p++) r += Ld[b][k + (size_t)p * ldl] * Y::get(X[p + (size_t)j * ldl]);
                        g += std::conj(Ld[b][k + (size_t)i * ldl]) * r;
                    }
                    CHECK_NEAR(std::abs(g), 0.0, tol * 100);
                }
        }
        CHECK_CB(Y::gels(h, CUBLAS_OP_T, m, nn, nr, dL.dptrs, ldl, dC.dptrs, ldl, &hinfo, dinfo, 2), CUBLAS_STATUS_NOT_SUPPORTED);
        CHECK_CB(Y::gels(h, CUBLAS_OP_N, 2, nn, nr, dL.dptrs, ldl, dC.dptrs, ldl, &hinfo, dinfo, 2), CUBLAS_STATUS_INVALID_VALUE);
        CHECK(hinfo == -4);
        cudaFree(dinfo);
    }
}

int main(void)
{
    cublasHandle_t h;
    CB_OK(cublasCreate(&h));
    run<float>(h, 0);
    run<double>(h, 0);
    run<cuComplex>(h, 1);
    run<cuDoubleComplex>(h, 1);
    int info = 0;
    CHECK_CB(cublasSgetrsBatched(NULL, CUBLAS_OP_N, 1, 1, NULL, 1, NULL, NULL, 1, &info, 1), CUBLAS_STATUS_NOT_INITIALIZED);
    CB_OK(cublasDestroy(h));
    TEST_DONE();
}

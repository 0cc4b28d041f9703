// tfl-libs: -lcublas -lcublasLt
/*
 * cublas_level12.cu - the BLAS-1/2 routines and TRSM/SYRK through the real
 * cuBLAS API, float and double, in both pointer modes (results to host
 * and to device memory), with strided vectors, negative increments, NaN in
 * y/C under beta = 0, 1-based iamax and bad arguments; each checked against
 * a double-precision host computation.
 */
// tfl-backends: opencl
#include "cublas_common.h"
#include <complex>

template <typename T> struct api;
template <> struct api<float> {
    static constexpr double tol = 2e-6;
    static cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t t, int m, int n, const float *a, const float *A, int lda, const float *x, int ix, const float *b, float *y, int iy) { return cublasSgemv(h, t, m, n, a, A, lda, x, ix, b, y, iy); }
    static cublasStatus_t ger(cublasHandle_t h, int m, int n, const float *a, const float *x, int ix, const float *y, int iy, float *A, int lda) { return cublasSger(h, m, n, a, x, ix, y, iy, A, lda); }
    static cublasStatus_t dot(cublasHandle_t h, int n, const float *x, int ix, const float *y, int iy, float *r) { return cublasSdot(h, n, x, ix, y, iy, r); }
    static cublasStatus_t axpy(cublasHandle_t h, int n, const float *a, const float *x, int ix, float *y, int iy) { return cublasSaxpy(h, n, a, x, ix, y, iy); }
    static cublasStatus_t scal(cublasHandle_t h, int n, const float *a, float *x, int ix) { return cublasSscal(h, n, a, x, ix); }
    static cublasStatus_t nrm2(cublasHandle_t h, int n, const float *x, int ix, float *r) { return cublasSnrm2(h, n, x, ix, r); }
    static cublasStatus_t asum(cublasHandle_t h, int n, const float *x, int ix, float *r) { return cublasSasum(h, n, x, ix, r); }
    static cublasStatus_t iamax(cublasHandle_t h, int n, const float *x, int ix, int *r) { return cublasIsamax(h, n, x, ix, r); }
    static cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n, const float *a, const float *A, int lda, float *B, int ldb) { return cublasStrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb); }
    static cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k, const float *a, const float *A, int lda, const float *b, float *C, int ldc) { return cublasSsyrk(h, u, t, n, k, a, A, lda, b, C, ldc); }
};
template <> struct api<double> {
    static constexpr double tol = 1e-13;
    static cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t t, int m, int n, const double *a, const double *A, int lda, const double *x, int ix, const double *b, double *y, int iy) { return cublasDgemv(h, t, m, n, a, A, lda, x, ix, b, y, iy); }
    static cublasStatus_t ger(cublasHandle_t h, int m, int n, const double *a, const double *x, int ix, const double *y, int iy, double *A, int lda) { return cublasDger(h, m, n, a, x, ix, y, iy, A, lda); }
    static cublasStatus_t dot(cublasHandle_t h, int n, const double *x, int ix, const double *y, int iy, double *r) { return cublasDdot(h, n, x, ix, y, iy, r); }
    static cublasStatus_t axpy(cublasHandle_t h, int n, const double *a, const double *x, int ix, double *y, int iy) { return cublasDaxpy(h, n, a, x, ix, y, iy); }
    static cublasStatus_t scal(cublasHandle_t h, int n, const double *a, double *x, int ix) { return cublasDscal(h, n, a, x, ix); }
    static cublasStatus_t nrm2(cublasHandle_t h, int n, const double *x, int ix, double *r) { return cublasDnrm2(h, n, x, ix, r); }
    static cublasStatus_t asum(cublasHandle_t h, int n, const double *x, int ix, double *r) { return cublasDasum(h, n, x, ix, r); }
    static cublasStatus_t iamax(cublasHandle_t h, int n, const double *x, int ix, int *r) { return cublasIdamax(h, n, x, ix, r); }
    static cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n, const double *a, const double *A, int lda, double *B, int ldb) { return cublasDtrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb); }
    static cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k, const double *a, const double *A, int lda, const double *b, double *C, int ldc) { return cublasDsyrk(h, u, t, n, k, a, A, lda, b, C, ldc); }
};

/* element i of a BLAS vector with increment inc (negative: from the end) */
static size_t vidx(int n, int inc, int i)
{
    return inc > 0 ? (size_t)i * inc : (size_t)(n - 1 - i) * (size_t)(-inc);
}

/* A scalar argument in host or device memory. */
template <typename T> struct scal_arg {
    T host;
    T *dev = NULL;
    scal_arg(T v, int devmode) : host(v) {
        if (devmode) { CHECK_OK(cudaMalloc((void **)&dev, sizeof(T))); CHECK_OK(cudaMemcpy(dev, &host, sizeof(T), cudaMemcpyHostToDevice)); }
    }
    ~scal_arg() { if (dev) cudaFree(dev); }
    const T *p() const { return dev ? dev : &host; }
};

template <typename T> static void run(cublasHandle_t h, int devmode)
{
    typedef api<T> A_;
    const double tol = A_::tol;
    CB_OK(cublasSetPointerMode(h, devmode ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    const int m = 11, n = 7, lda = 13;
    std::vector<T> hA((size_t)lda * n);
    for (auto &v : hA) v = (T)rnd_q();
    T *dA = dev_from(hA);

    /* gemv, both transposes, strided x / negative y increment, beta 0 + NaN y */
    for (int t = 0; t < 2; t++)
        for (int variant = 0; variant < 2; variant++) {
            int lx = t ? m : n, ly = t ? n : m;
            int incx = variant ? 2 : 1, incy = variant ? -3 : 1;
            std::vector<T> x((size_t)lx * 2), y((size_t)ly * 3);
            for (auto &v : x) v = (T)rnd_q();
            for (auto &v : y) v = variant ? (T)rnd_q() : (T)NAN;
            double al = 0.75, be = variant ? -2.0 : 0.0;
            std::vector<double> want(ly);
            for (int i = 0; i < ly; i++) {
                double s = 0;
                for (int p = 0; p < lx; p++)
                    s += (double)hA[t ? (size_t)p + (size_t)i * lda : (size_t)i + (size_t)p * lda] * (double)x[vidx(lx, incx, p)];
                want[i] = al * s + (be != 0 ? be * (double)y[vidx(ly, incy, i)] : 0.0);
            }
            T *dx = dev_from(x), *dy = dev_from(y);
            scal_arg<T> a((T)al, devmode), b((T)be, devmode);
            CB_OK(A_::gemv(h, t ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, a.p(), dA, lda, dx, incx, b.p(), dy, incy));
            std::vector<T> got = host_from(dy, y.size());
            for (int i = 0; i < ly; i++)
                CHECK_NEAR((double)got[vidx(ly, incy, i)], want[i], tol * 16);
            cudaFree(dx); cudaFree(dy);
        }

    /* ger: A += alpha x y^T with strided y */
    {
        std::vector<T> x(m), y((size_t)n * 2);
        for (auto &v : x) v = (T)rnd_q();
        for (auto &v : y) v = (T)rnd_q();
        T *dx = dev_from(x), *dy = dev_from(y), *dG = dev_from(hA);
        scal_arg<T> a((T)-1.25, devmode);
        CB_OK(A_::ger(h, m, n, a.p(), dx, 1, dy, 2, dG, lda));
        std::vector<T> got = host_from(dG, hA.size());
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                CHECK_NEAR((double)got[(size_t)i + (size_t)j * lda],
                           (double)hA[(size_t)i + (size_t)j * lda] - 1.25 * (double)x[i] * (double)y[(size_t)j * 2], tol * 4);
        /* padding rows untouched */
        CHECK(got[(size_t)m] == hA[(size_t)m]);
        cudaFree(dx); cudaFree(dy); cudaFree(dG);
    }

    /* dot, nrm2, asum, iamax: results to host or device memory */
    {
        const int len = 29;
        std::vector<T> x((size_t)len * 2), y((size_t)len * 3);
        for (auto &v : x) v = (T)rnd_q();
        for (auto &v : y) v = (T)rnd_q();
        x[2 * 17] = (T)-9.5;     /* the largest magnitude, at 1-based index 18 */
        x[2 * 23] = (T)9.5;      /* a tie later on: the first one wins */
        double dot = 0, nrm = 0, asum = 0;
        for (int i = 0; i < len; i++) {
            dot += (double)x[2 * i] * (double)y[vidx(len, -3, i)];
            nrm += (double)x[2 * i] * (double)x[2 * i];
            asum += fabs((double)x[2 * i]);
        }
        nrm = sqrt(nrm);
        T *dx = dev_from(x), *dy = dev_from(y);
        T *dres = NULL;
        int *dires = NULL;
        CHECK_OK(cudaMalloc((void **)&dres, 4 * sizeof(T)));
        CHECK_OK(cudaMalloc((void **)&dires, sizeof(int)));
        T r[3];
        int ir = -1;
        if (devmode) {
            CB_OK(A_::dot(h, len, dx, 2, dy, -3, dres));
            CB_OK(A_::nrm2(h, len, dx, 2, dres + 1));
            CB_OK(A_::asum(h, len, dx, 2, dres + 2));
            CB_OK(A_::iamax(h, len, dx, 2, dires));
            CHECK_OK(cudaMemcpy(r, dres, sizeof(r), cudaMemcpyDeviceToHost));
            CHECK_OK(cudaMemcpy(&ir, dires, sizeof(int), cudaMemcpyDeviceToHost));
        } else {
            CB_OK(A_::dot(h, len, dx, 2, dy, -3, &r[0]));
            CB_OK(A_::nrm2(h, len, dx, 2, &r[1]));
            CB_OK(A_::asum(h, len, dx, 2, &r[2]));
            CB_OK(A_::iamax(h, len, dx, 2, &ir));
        }
        CHECK_NEAR((double)r[0], dot, tol * 8);
        CHECK_NEAR((double)r[1], nrm, tol * 8);
        CHECK_NEAR((double)r[2], asum, tol * 8);
        CHECK(ir == 18);
        /* n <= 0: result 0 */
        if (!devmode) {
            r[0] = (T)5;
            ir = 5;
            CB_OK(A_::dot(h, 0, dx, 1, dy, 1, &r[0]));
            CB_OK(A_::iamax(h, 0, dx, 1, &ir));
            CHECK(r[0] == (T)0 && ir == 0);
            CHECK_CB(A_::nrm2(h, len, dx, 1, NULL), CUBLAS_STATUS_INVALID_VALUE);
        }
        cudaFree(dx); cudaFree(dy); cudaFree(dres); cudaFree(dires);
    }

    /* axpy (negative incx), scal (strided) */
    {
        const int len = 17;
        std::vector<T> x((size_t)len * 2), y(len);
        for (auto &v : x) v = (T)rnd_q();
        for (auto &v : y) v = (T)rnd_q();
        T *dx = dev_from(x), *dy = dev_from(y);
        scal_arg<T> a((T)0.5, devmode), s((T)-3.0, devmode);
        CB_OK(A_::axpy(h, len, a.p(), dx, -2, dy, 1));
        std::vector<T> got = host_from(dy, y.size());
        for (int i = 0; i < len; i++)
            CHECK_NEAR((double)got[i], (double)y[i] + 0.5 * (double)x[vidx(len, -2, i)], tol);
        CB_OK(A_::scal(h, len, s.p(), dx, 2));
        std::vector<T> gx = host_from(dx, x.size());
        for (int i = 0; i < 2 * len; i++)
            CHECK_NEAR((double)gx[i], (i % 2 == 0 ? -3.0 : 1.0) * (double)x[i], tol);
        cudaFree(dx); cudaFree(dy);
    }

    /* trsm: solve op(A) X = alpha B (left) and X op(A) = alpha B (right) */
    for (int side = 0; side < 2; side++)
        for (int up = 0; up < 2; up++)
            for (int tr = 0; tr < 2; tr++) {
                const int M = 6, N = 5, na = side ? N : M, ldt = na + 1, ldb = M + 2;
                std::vector<T> T_((size_t)ldt * na), Bv((size_t)ldb * N);
                for (int j = 0; j < na; j++)
                    for (int i = 0; i < ldt; i++)
                        T_[(size_t)i + (size_t)j * ldt] = i == j ? (T)(2.0 + 0.25 * i)
                                                                : (T)(rnd_q() * 0.25);
                for (auto &v : Bv) v = (T)rnd_q();
                T *dT = dev_from(T_), *dB = dev_from(Bv);
                scal_arg<T> a((T)1.5, devmode);
                CB_OK(A_::trsm(h, side ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
                               up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                               tr ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, M, N,
                               a.p(), dT, ldt, dB, ldb));
                std::vector<T> X = host_from(dB, Bv.size());
                /* op(tri(A)) element (r, c) */
                auto opA = [&](int r, int c) -> double {
                    int rr = tr ? c : r, cc = tr ? r : c;
                    if (up ? rr > cc : rr < cc) return 0.0;
                    return (double)T_[(size_t)rr + (size_t)cc * ldt];
                };
                for (int j = 0; j < N; j++)
                    for (int i = 0; i < M; i++) {
                        double s = 0;
                        if (!side)
                            for (int p = 0; p < M; p++) s += opA(i, p) * (double)X[(size_t)p + (size_t)j * ldb];
                        else
                            for (int p = 0; p < N; p++) s += (double)X[(size_t)i + (size_t)p * ldb] * opA(p, j);
                        CHECK_NEAR(s, 1.5 * (double)Bv[(size_t)i + (size_t)j * ldb], tol * 64);
                    }
                cudaFree(dT); cudaFree(dB);
            }

    /* syrk: only the uplo triangle of C changes; beta 0 ignores NaN there */
    for (int up = 0; up < 2; up++)
        for (int tr = 0; tr < 2; tr++) {
            const int N = 6, K = 4, ra = tr ? K : N, ca = tr ? N : K, lda2 = ra + 1, ldc = N + 1;
            std::vector<T> Av((size_t)lda2 * ca), C((size_t)ldc * N);
            for (auto &v : Av) v = (T)rnd_q();
            for (size_t i = 0; i < C.size(); i++) C[i] = up ? (T)NAN : (T)rnd_q();
            double al = 0.5, be = up ? 0.0 : 2.0;
            T *dAv = dev_from(Av), *dC = dev_from(C);
            scal_arg<T> a((T)al, devmode), b((T)be, devmode);
            CB_OK(A_::syrk(h, up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                           tr ? CUBLAS_OP_T : CUBLAS_OP_N, N, K, a.p(), dAv, lda2, b.p(), dC, ldc));
            std::vector<T> got = host_from(dC, C.size());
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++) {
                    size_t ci = (size_t)i + (size_t)j * ldc;
                    int in_tri = up ? i <= j : i >= j;
                    if (!in_tri) {
                        CHECK(got[ci] == C[ci] || (isnan((double)got[ci]) && isnan((double)C[ci])));
                        continue;
                    }
                    double s = 0;
                    for (int p = 0; p < K; p++)
                        s += (double)Av[tr ? (size_t)p + (size_t)i * lda2 : (size_t)i + (size_t)p * lda2] *
                             (double)Av[tr ? (size_t)p + (size_t)j * lda2 : (size_t)j + (size_t)p * lda2];
                    CHECK_NEAR((double)got[ci], al * s + (be != 0 ? be * (double)C[ci] : 0.0), tol * 8);
                }
            cudaFree(dAv); cudaFree(dC);
        }
    cudaFree(dA);
    CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
}

static void bad_args(cublasHandle_t h)
{
    std::vector<float> z(64, 1.0f);
    float *d = dev_from(z);
    float one = 1.0f, r;
    const cublasStatus_t INV = CUBLAS_STATUS_INVALID_VALUE;
    CHECK_CB(cublasSgemv(NULL, CUBLAS_OP_N, 2, 2, &one, d, 2, d, 1, &one, d, 1), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CB(cublasSgemv(h, CUBLAS_OP_N, -1, 2, &one, d, 2, d, 1, &one, d, 1), INV);
    CHECK_CB(cublasSgemv(h, CUBLAS_OP_N, 3, 2, &one, d, 2, d, 1, &one, d, 1), INV);
    CHECK_CB(cublasSgemv(h, CUBLAS_OP_N, 2, 2, &one, d, 2, d, 0, &one, d, 1), INV);
    CHECK_CB(cublasSgemv(h, (cublasOperation_t)5, 2, 2, &one, d, 2, d, 1, &one, d, 1), INV);
    CHECK_CB(cublasSger(h, 2, 2, &one, d, 1, d, 0, d, 2), INV);
    CHECK_CB(cublasSdot(NULL, 2, d, 1, d, 1, &r), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_CB(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_FULL, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 2, 2, &one, d, 2, d, 2), INV);
    CHECK_CB(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 3, 2, &one, d, 2, d, 3), INV);
    CHECK_CB(cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, 3, 2, &one, d, 2, &one, d, 3), INV);
    CHECK_CB(cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, -1, 2, &one, d, 2, &one, d, 3), INV);
    /* device mode: a host result pointer / scalar is rejected */
    CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK_CB(cublasSdot(h, 2, d, 1, d, 1, &r), CUBLAS_STATUS_EXECUTION_FAILED);
    CHECK_CB(cublasSscal(h, 2, &one, d, 1), INV);
    CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    cudaFree(d);
}

/* cublasSet/GetVector and Set/GetMatrix: strided host <-> device copies */
static void transfers(void)
{
    const int rows = 5, cols = 4, lda = 7, ldb = 6;
    std::vector<double> hA((size_t)lda * cols), back((size_t)lda * cols, -1.0);
    for (auto &v : hA) v = rnd_q();
    double *dB = NULL;
    CHECK_OK(cudaMalloc((void **)&dB, sizeof(double) * ldb * cols));
    CB_OK(cublasSetMatrix(rows, cols, sizeof(double), hA.data(), lda, dB, ldb));
    std::vector<double> raw = host_from(dB, (size_t)ldb * cols);
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            CHECK(raw[(size_t)i + (size_t)j * ldb] == hA[(size_t)i + (size_t)j * lda]);
    CB_OK(cublasGetMatrixAsync(rows, cols, sizeof(double), dB, ldb, back.data(), lda, 0));
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < lda; i++)
            CHECK(back[(size_t)i + (size_t)j * lda] ==
                  (i < rows ? hA[(size_t)i + (size_t)j * lda] : -1.0));
    /* vectors: host stride 2 -> device stride 3 -> host stride 1 */
    std::vector<float> x(20), y(7, 0.0f);
    for (auto &v : x) v = (float)rnd_q();
    float *dv = NULL;
    CHECK_OK(cudaMalloc((void **)&dv, sizeof(float) * 21));
    CB_OK(cublasSetVector(7, sizeof(float), x.data(), 2, dv, 3));
    CB_OK(cublasGetVector(7, sizeof(float), dv, 3, y.data(), 1));
    for (int i = 0; i < 7; i++)
        CHECK(y[i] == x[(size_t)2 * i]);
    CHECK_CB(cublasSetVector(7, sizeof(float), x.data(), 0, dv, 3), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CB(cublasSetMatrix(rows, cols, 8, hA.data(), 3, dB, ldb), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_CB(cublasSetMatrix(rows, cols, 8, hA.data(), lda, back.data(), lda), CUBLAS_STATUS_MAPPING_ERROR);
    std::vector<float> big(40, 1.0f);    /* 40 > the 21 device floats */
    CHECK_CB(cublasSetVector(40, sizeof(float), big.data(), 1, dv, 1), CUBLAS_STATUS_MAPPING_ERROR);
    cudaFree(dB);
    cudaFree(dv);
}

/* cublasDotEx as PyTorch calls it for half/bfloat16 dot (fp32 execution) */
static void dot_ex(cublasHandle_t h)
{
    const int n = 37;
    std::vector<double> x(n * 2), y(n);
    for (auto &v : x) v = rnd_q();
    for (auto &v : y) v = rnd_q();
    double want = 0;
    for (int i = 0; i < n; i++) want += x[2 * i] * y[n - 1 - i];   /* incx 2, incy -1 */
    for (int t = 0; t < 2; t++) {
        cudaDataType ty = t ? CUDA_R_16BF : CUDA_R_16F;
        std::vector<uint16_t> hx(x.size()), hy(y.size());
        for (size_t i = 0; i < x.size(); i++) {
            if (t) { __nv_bfloat16 b = __double2bfloat16(x[i]); memcpy(&hx[i], &b, 2); }
            else { __half b = __double2half(x[i]); memcpy(&hx[i], &b, 2); }
        }
        for (size_t i = 0; i < y.size(); i++) {
            if (t) { __nv_bfloat16 b = __double2bfloat16(y[i]); memcpy(&hy[i], &b, 2); }
            else { __half b = __double2half(y[i]); memcpy(&hy[i], &b, 2); }
        }
        uint16_t *dx = dev_from(hx), *dy = dev_from(hy), *dr = NULL;
        CHECK_OK(cudaMalloc((void **)&dr, 2));
        for (int dev = 0; dev < 2; dev++) {
            uint16_t r = 0xffff;
            CB_OK(cublasSetPointerMode(h, dev ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
            CB_OK(cublasDotEx(h, n, dx, ty, 2, dy, ty, -1, dev ? (void *)dr : (void *)&r, ty, CUDA_R_32F));
            if (dev) CHECK_OK(cudaMemcpy(&r, dr, 2, cudaMemcpyDeviceToHost));
            double got;
            if (t) { __nv_bfloat16 b; memcpy(&b, &r, 2); got = __bfloat162float(b); }
            else { __half b; memcpy(&b, &r, 2); got = __half2float(b); }
            CHECK_NEAR(got, want, t ? 1.0 / 128 : 1.0 / 1024);
        }
        CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        float rf;
        CHECK_CB(cublasDotEx(h, n, dx, ty, 1, dy, ty, 1, &rf, CUDA_R_32F, CUDA_R_32F), CUBLAS_STATUS_NOT_SUPPORTED);
        cudaFree(dx); cudaFree(dy); cudaFree(dr);
    }
    std::vector<float> fx(n), fy(n);
    double wf = 0;
    for (int i = 0; i < n; i++) { fx[i] = (float)x[i]; fy[i] = (float)y[i]; wf += (double)fx[i] * fy[i]; }
    float *dfx = dev_from(fx), *dfy = dev_from(fy), r = 0;
    CB_OK(cublasDotEx(h, n, dfx, CUDA_R_32F, 1, dfy, CUDA_R_32F, 1, &r, CUDA_R_32F, CUDA_R_32F));
    CHECK_NEAR(r, wf, 1e-6);
    cudaFree(dfx); cudaFree(dfy);
}

/* Complex gemv (N/T/C), dotu/dotc, trsm and trsmBatched (real and complex) */
typedef std::complex<double> cd;
static cd cget(const cuComplex &v) { return cd(v.x, v.y); }
static cd cget(const cuDoubleComplex &v) { return cd(v.x, v.y); }
static void cset(cuComplex &v, cd x) { v = make_cuComplex((float)x.real(), (float)x.imag()); }
static void cset(cuDoubleComplex &v, cd x) { v = make_cuDoubleComplex(x.real(), x.imag()); }

static cublasStatus_t cgemv(cublasHandle_t h, cublasOperation_t t, int m, int n, const cuComplex *a, const cuComplex *A, int lda, const cuComplex *x, int ix, const cuComplex *b, cuComplex *y, int iy) { return cublasCgemv(h, t, m, n, a, A, lda, x, ix, b, y, iy); }
static cublasStatus_t cgemv(cublasHandle_t h, cublasOperation_t t, int m, int n, const cuDoubleComplex *a, const cuDoubleComplex *A, int lda, const cuDoubleComplex *x, int ix, const cuDoubleComplex *b, cuDoubleComplex *y, int iy) { return cublasZgemv(h, t, m, n, a, A, lda, x, ix, b, y, iy); }
static cublasStatus_t cdot(cublasHandle_t h, int conj, int n, const cuComplex *x, int ix, const cuComplex *y, int iy, cuComplex *r) { return conj ? cublasCdotc(h, n, x, ix, y, iy, r) : cublasCdotu(h, n, x, ix, y, iy, r); }
static cublasStatus_t cdot(cublasHandle_t h, int conj, int n, const cuDoubleComplex *x, int ix, const cuDoubleComplex *y, int iy, cuDoubleComplex *r) { return conj ? cublasZdotc(h, n, x, ix, y, iy, r) : cublasZdotu(h, n, x, ix, y, iy, r); }
static cublasStatus_t ctrsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n, const cuComplex *a, const cuComplex *A, int lda, cuComplex *B, int ldb) { return cublasCtrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb); }
static cublasStatus_t ctrsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n, const cuDoubleComplex *a, const cuDoubleComplex *A, int lda, cuDoubleComplex *B, int ldb) { return cublasZtrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb); }

template <typename T> static void complex_ops(cublasHandle_t h, double tol)
{
    const int m = 6, n = 5, lda = 8;
    std::vector<T> A((size_t)lda * n);
    for (auto &v : A) cset(v, cd(rnd_q(), rnd_q()));
    T *dA = dev_from(A);
    for (int t = 0; t < 3; t++) {
        int lx = t ? m : n, ly = t ? n : m;
        std::vector<T> x((size_t)lx * 2), y(ly);
        for (auto &v : x) cset(v, cd(rnd_q(), rnd_q()));
        for (auto &v : y) cset(v, t == 0 ? cd(NAN, NAN) : cd(rnd_q(), rnd_q()));
        cd al(0.5, -1.0), be = t == 0 ? cd(0, 0) : cd(-1.5, 0.25);
        std::vector<cd> want(ly);
        for (int i = 0; i < ly; i++) {
            cd s = 0;
            for (int p = 0; p < lx; p++) {
                cd a = t == 0 ? cget(A[(size_t)i + (size_t)p * lda]) : cget(A[(size_t)p + (size_t)i * lda]);
                if (t == 2) a = std::conj(a);
                s += a * cget(x[(size_t)p * 2]);
            }
            want[i] = al * s + (t ? be * cget(y[i]) : cd(0, 0));
        }
        T ta, tb;
        cset(ta, al); cset(tb, be);
        T *dx = dev_from(x), *dy = dev_from(y);
        CB_OK(cgemv(h, t == 0 ? CUBLAS_OP_N : t == 1 ? CUBLAS_OP_T : CUBLAS_OP_C, m, n, &ta, dA, lda, dx, 2, &tb, dy, 1));
        std::vector<T> got = host_from(dy, y.size());
        for (int i = 0; i < ly; i++) {
            CHECK_NEAR(cget(got[i]).real(), want[i].real(), tol);
            CHECK_NEAR(cget(got[i]).imag(), want[i].imag(), tol);
        }
        cudaFree(dx); cudaFree(dy);
    }
    /* dotu / dotc, result to host and to device memory */
    {
        const int len = 13;
        std::vector<T> x(len), y((size_t)len * 2);
        for (auto &v : x) cset(v, cd(rnd_q(), rnd_q()));
        for (auto &v : y) cset(v, cd(rnd_q(), rnd_q()));
        T *dx = dev_from(x), *dy = dev_from(y), *dr = NULL;
        CHECK_OK(cudaMalloc((void **)&dr, sizeof(T)));
        for (int conj = 0; conj < 2; conj++)
            for (int dev = 0; dev < 2; dev++) {
                cd want = 0;
                for (int i = 0; i < len; i++)
                    want += (conj ? std::conj(cget(x[i])) : cget(x[i])) * cget(y[(size_t)i * 2]);
                T r;
                CB_OK(cublasSetPointerMode(h, dev ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
                CB_OK(cdot(h, conj, len, dx, 1, dy, 2, dev ? dr : &r));
                if (dev) CHECK_OK(cudaMemcpy(&r, dr, sizeof(T), cudaMemcpyDeviceToHost));
                CHECK_NEAR(cget(r).real(), want.real(), tol);
                CHECK_NEAR(cget(r).imag(), want.imag(), tol);
            }
        CB_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        cudaFree(dx); cudaFree(dy); cudaFree(dr);
    }
    /* trsm, left, upper, conjugate transpose: op(U) X = alpha B */
    {
        const int M = 5, N = 3, ldt = 6, ldb = 7;
        std::vector<T> U((size_t)ldt * M), B((size_t)ldb * N);
        for (int j = 0; j < M; j++)
            for (int i = 0; i < ldt; i++)
                cset(U[(size_t)i + (size_t)j * ldt], i == j ? cd(2 + 0.25 * i, 0.5) : cd(rnd_q() * 0.25, rnd_q() * 0.25));
        for (auto &v : B) cset(v, cd(rnd_q(), rnd_q()));
        T *dU = dev_from(U), *dB = dev_from(B);
        T al;
        cset(al, cd(1.0, 0.5));
        CB_OK(ctrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_C, CUBLAS_DIAG_NON_UNIT, M, N, &al, dU, ldt, dB, ldb));
        std::vector<T> X = host_from(dB, B.size());
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                cd s = 0;
                for (int p = 0; p < M; p++) {
                    /* op(U)(i,p) = conj(U(p,i)), U upper: p <= i */
                    if (p > i) continue;
                    s += std::conj(cget(U[(size_t)p + (size_t)i * ldt])) * cget(X[(size_t)p + (size_t)j * ldb]);
                }
                cd want = cd(1.0, 0.5) * cget(B[(size_t)i + (size_t)j * ldb]);
                CHECK_NEAR(s.real(), want.real(), tol * 16);
                CHECK_NEAR(s.imag(), want.imag(), tol * 16);
            }
        cudaFree(dU); cudaFree(dB);
    }
    cudaFree(dA);
}

/* trsmBatched: pointer arrays in device memory, each entry solved */
static void trsm_batched(cublasHandle_t h)
{
    const int M = 4, N = 3, B = 3;
    std::vector<float> L((size_t)M * M * B), R((size_t)M * N * B);
    for (int b = 0; b < B; b++)
        for (int j = 0; j < M; j++)
            for (int i = 0; i < M; i++)
                L[(size_t)b * M * M + i + j * M] = i == j ? 2.0f + b : (float)(rnd_q() * 0.25);
    for (auto &v : R) v = (float)rnd_q();
    float *dL = dev_from(L), *dR = dev_from(R);
    std::vector<float *> pl(B), pr(B);
    for (int b = 0; b < B; b++) { pl[b] = dL + (size_t)b * M * M; pr[b] = dR + (size_t)b * M * N; }
    float **dpl = dev_from(pl), **dpr = dev_from(pr);
    float al = 2.0f;
    CB_OK(cublasStrsmBatched(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, M, N, &al, (const float **)dpl, M, dpr, M, B));
    std::vector<float> X = host_from(dR, R.size());
    for (int b = 0; b < B; b++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                double s = X[(size_t)b * M * N + i + j * M];    /* unit diagonal */
                for (int p = 0; p < i; p++)
                    s += (double)L[(size_t)b * M * M + i + p * M] * X[(size_t)b * M * N + p + j * M];
                CHECK_NEAR(s, 2.0 * R[(size_t)b * M * N + i + j * M], 1e-5);
            }
    CHECK_CB(cublasStrsmBatched(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, M, N, &al, (const float **)dpl, M, dpr, M, -1), CUBLAS_STATUS_INVALID_VALUE);
    cudaFree(dL); cudaFree(dR); cudaFree(dpl); cudaFree(dpr);
}

int main(void)
{
    transfers();
    cublasHandle_t h;
    CB_OK(cublasCreate(&h));
    for (int dev = 0; dev < 2; dev++) {
        run<float>(h, dev);
        run<double>(h, dev);
    }
    bad_args(h);
    dot_ex(h);
    complex_ops<cuComplex>(h, 2e-5);
    complex_ops<cuDoubleComplex>(h, 1e-12);
    trsm_batched(h);
    CB_OK(cublasDestroy(h));
    TEST_DONE();
}

/*
 * cublas_common.h - helpers shared by the cuBLAS/cuBLASLt test programs:
 * status checks, device buffers, deterministic inputs, and a column-major
 * double-precision reference GEMM written independently of torchfl.
 */
#ifndef TFL_TEST_CUBLAS_COMMON_H
#define TFL_TEST_CUBLAS_COMMON_H
#include "check.h"
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <string.h>
#include <vector>

#define CHECK_CB(call, want) do { cublasStatus_t s_ = (call); \
    if (s_ != (want)) { fprintf(stderr, "%s:%d: %s returned %d (%s), want %d\n", \
        __FILE__, __LINE__, #call, (int)s_, cublasGetStatusName(s_), (int)(want)); \
        tfl_failures++; } } while (0)
#define CB_OK(call) CHECK_CB(call, CUBLAS_STATUS_SUCCESS)

/* Inputs: multiples of 1/4 in [-2, 2], exact in fp16/bf16/fp32. */
static unsigned tfl_rng = 2024;
static double rnd_q(void)
{
    tfl_rng = tfl_rng * 1103515245u + 12345u;
    return (double)((int)((tfl_rng >> 16) % 17) - 8) / 4.0;
}

template <typename T> static T *dev_from(const std::vector<T> &h)
{
    T *d = NULL;
    CHECK_OK(cudaMalloc((void **)&d, h.size() * sizeof(T) + 1));
    CHECK_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static std::vector<T> host_from(const T *d, size_t n)
{
    std::vector<T> h(n);
    CHECK_OK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/* element (r, c) of op(X) for X stored column-major with leading dim ld */
static inline size_t op_idx(int trans, int64_t ld, int64_t r, int64_t c)
{
    return trans == 0 ? (size_t)(r + c * ld) : (size_t)(c + r * ld);
}

/* D = alpha op(A) op(B) + beta C in double, real */
static void ref_gemm(int ta, int tb, int m, int n, int k, double alpha,
                     const std::vector<double> &A, int lda,
                     const std::vector<double> &B, int ldb, double beta,
                     const std::vector<double> &C, int ldc, std::vector<double> &D)
{
    D.assign((size_t)m * n, 0.0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int p = 0; p < k; p++)
                s += A[op_idx(ta, lda, i, p)] * B[op_idx(tb, ldb, p, j)];
            double v = alpha * s;
            if (beta != 0.0)
                v += beta * C[(size_t)i + (size_t)j * ldc];
            D[(size_t)i + (size_t)j * m] = v;
        }
}
#endif

/*
 * check.h - tiny assertion helpers for the CUDA test programs.
 *
 * Each program compares what it gets under torchfl with a host
 * computation and exits non-zero on the first mismatch, printing where.
 */
#ifndef TFL_TEST_CHECK_H
#define TFL_TEST_CHECK_H
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int tfl_failures = 0;

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    tfl_failures++; } } while (0)

/* expect exactly this cudaError_t */
#define CHECK_ERR(call, want) do { cudaError_t e_ = (call); \
    if (e_ != (want)) { fprintf(stderr, "%s:%d: %s returned %d (%s), want %d (%s)\n", \
        __FILE__, __LINE__, #call, (int)e_, cudaGetErrorName(e_), (int)(want), \
        cudaGetErrorName(want)); tfl_failures++; } } while (0)

#define CHECK_OK(call) CHECK_ERR(call, cudaSuccess)

#define CHECK_NEAR(a, b, tol) do { double a_ = (a), b_ = (b); \
    if (!(fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_)))) { \
        fprintf(stderr, "%s:%d: %s = %.9g, want %.9g\n", __FILE__, __LINE__, \
                #a, a_, b_); tfl_failures++; } } while (0)

#define TEST_DONE() do { if (tfl_failures) { \
    fprintf(stderr, "%d check(s) failed\n", tfl_failures); return 1; } \
    printf("ok\n"); return 0; } while (0)
#endif

/*
 * drv_check.h - assertion helpers for the driver API test programs.
 *
 * Each program checks results against host computations and the CUDA
 * documentation, keeps going after a failed check (so one run shows every
 * failure) and exits non-zero if any failed.
 */
#ifndef TFL_DRV_CHECK_H
#define TFL_DRV_CHECK_H
#define CUDA_ENABLE_DEPRECATED 1 /* the deprecated calls are tested too */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static int drv_failures = 0;

static inline const char *drv_name(CUresult r)
{
    const char *s = NULL;
    return cuGetErrorName(r, &s) == CUDA_SUCCESS && s ? s : "?";
}

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    drv_failures++; } } while (0)

/* expect exactly this CUresult */
#define CHECK_RES(call, want) do { CUresult r_ = (call); \
    if (r_ != (want)) { fprintf(stderr, "%s:%d: %s returned %d (%s), want %d (%s)\n", \
        __FILE__, __LINE__, #call, (int)r_, drv_name(r_), (int)(want), drv_name(want)); \
        drv_failures++; } } while (0)

#define CHECK_OK(call) CHECK_RES(call, CUDA_SUCCESS)

/* a call the rest of the program depends on */
#define REQUIRE_OK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s returned %d (%s); cannot continue\n", __FILE__, __LINE__, \
            #call, (int)r_, drv_name(r_)); return 1; } } while (0)

#define TEST_DONE() do { if (drv_failures) { \
    fprintf(stderr, "%d check(s) failed\n", drv_failures); return 1; } \
    printf("ok\n"); return 0; } while (0)

/* Deterministic bytes for copy checks (xorshift). */
static inline void drv_fill(unsigned char *p, size_t n, unsigned seed)
{
    unsigned x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        p[i] = (unsigned char)x;
    }
}

/* cuInit + primary context of device 0 made current. */
static inline CUresult drv_setup(CUcontext *ctx)
{
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cuDevicePrimaryCtxRetain(ctx, 0)) != CUDA_SUCCESS)
        return r;
    return cuCtxSetCurrent(*ctx);
}
#endif

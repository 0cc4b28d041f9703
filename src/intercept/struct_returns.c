/*
 * struct_returns.c - the functions that return a struct by value.
 *
 * scripts/gen_intercept.py cannot stub these (a refusal needs a status to
 * return, and a struct has none), so it requires a hand-written
 * definition.  These are weak: a fuller implementation elsewhere in
 * src/intercept replaces them.  cudaCreateChannelDesc is implemented for
 * real (it only packs its arguments); the others refuse, log once, and
 * return a zero value.
 */
#include <string.h>

#include <cuda_runtime_api.h>
#include <cublas.h>

#include "refuse.h"

__attribute__((weak)) struct cudaChannelFormatDesc
cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = { .x = x, .y = y, .z = z, .w = w, .f = f };
    return d;
}

/* Legacy cuBLAS (cublas.h): errors are read later with cublasGetError. */
#define LEGACY_DOT(name, type)                                            \
    __attribute__((weak)) type name(int n, const type *x, int incx,       \
                                    const type *y, int incy)              \
    {                                                                     \
        (void)n; (void)x; (void)incx; (void)y; (void)incy;                \
        tfl_refuse(TFL_LIB_CUBLAS, #name);                                \
        type zero;                                                        \
        memset(&zero, 0, sizeof zero);                                    \
        return zero;                                                      \
    }
LEGACY_DOT(cublasCdotu, cuComplex)
LEGACY_DOT(cublasCdotc, cuComplex)
LEGACY_DOT(cublasZdotu, cuDoubleComplex)
LEGACY_DOT(cublasZdotc, cuDoubleComplex)

/* NCCL device API team queries (nccl_device/core.h, a C++ header; inline
 * there, so only code that takes their address reaches these).  The
 * layout is NCCL's struct ncclTeam. */
struct tfl_nccl_team { int nRanks, rank, stride; };

#define NCCL_TEAM(name)                                                   \
    __attribute__((weak)) struct tfl_nccl_team name(const void *comm)     \
    {                                                                     \
        (void)comm;                                                       \
        tfl_refuse(TFL_LIB_NCCL, #name);                                  \
        struct tfl_nccl_team zero = { 0, 0, 0 };                          \
        return zero;                                                      \
    }
NCCL_TEAM(ncclTeamWorld)
NCCL_TEAM(ncclTeamLsa)
NCCL_TEAM(ncclTeamRail)

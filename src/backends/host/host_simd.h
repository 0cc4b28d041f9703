/*
 * host_simd.h - SIMD helpers shared by the host ops.
 *
 * TFL_CLONES: compile a function twice, for the x86-64 baseline and for
 * x86-64-v3 (AVX2, FMA), and pick at load time by the CPU.  The host
 * sources are built with -ffp-contract=off (CMakeLists.txt), so both
 * forms round identically: the v3 form only has wider vectors and fmaf as
 * one instruction.  Functions a clone calls should be static inline so
 * they are compiled into each form.
 */
#ifndef TFL_HOST_SIMD_H
#define TFL_HOST_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TFL_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define TFL_CLONES
#endif

#endif

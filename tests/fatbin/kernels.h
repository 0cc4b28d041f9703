/*
 * kernels.h - parameter types of the kernels in kernels.cu, shared by the
 * CUDA source and the C unit test so that the expected parameter sizes come
 * from the host compiler's own sizeof, not from numbers we typed in.
 */
#ifndef TFL_TEST_FATBIN_KERNELS_H
#define TFL_TEST_FATBIN_KERNELS_H

#ifdef __cplusplus
#define TFL_ALIGNAS(n) alignas(n)
#else
#define TFL_ALIGNAS(n) _Alignas(n)
#endif

struct tfl_s {          /* 24 bytes on x86-64 and in CUDA */
    double a;
    int b;
    float c[3];
};

struct tfl_big {        /* over-aligned struct: size rounds up to 48 */
    TFL_ALIGNAS(16) double v[5];
    char tail[3];
};

struct tfl_huge {       /* over 4 KB: cubins describe it differently */
    char c[20000];
};

#endif

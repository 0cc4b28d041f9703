/*
 * abi12.h - hand-written CUDA 12 ABI versions of a function.
 *
 * libtorchfl.so exports every libcudart.so.12 function as
 * name@libcudart.so.12 (and likewise for libcublas/libcublasLt .so.12).
 * By default the generator (scripts/gen_intercept.py) makes that a jump to
 * the 13.x implementation, which is right wherever the two ABIs agree.
 * Where they differ (cudaGetDeviceProperties_v2 fills the 12.x
 * cudaDeviceProp layout), write the 12.x version and mark it:
 *
 *     #include "abi12.h"
 *     TFL_CUDART12_OVERRIDE(cudaGetDeviceProperties_v2,
 *                           tfl12impl_cudaGetDeviceProperties_v2)
 *     cudaError_t tfl12impl_cudaGetDeviceProperties_v2(void *prop, int dev)
 *     { ... }
 *
 * The macro exports impl as name@libcudart.so.12 (impl itself stays local:
 * the version script hides tfl12*), and the generator, which scans
 * src/intercept for the macro, then emits no default for that name.
 * impl must be a non-static function named tfl12impl_<something>.
 */
#ifndef TFL_ABI12_H
#define TFL_ABI12_H

#define TFL_ABI12_OVERRIDE(node, name, impl) \
    __asm__(".symver " #impl ", " #name "@" node);

#define TFL_CUDART12_OVERRIDE(name, impl) \
    TFL_ABI12_OVERRIDE("libcudart.so.12", name, impl)
#define TFL_CUBLAS12_OVERRIDE(name, impl) \
    TFL_ABI12_OVERRIDE("libcublas.so.12", name, impl)
#define TFL_CUBLASLT12_OVERRIDE(name, impl) \
    TFL_ABI12_OVERRIDE("libcublasLt.so.12", name, impl)

#endif

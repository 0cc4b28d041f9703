/*
 * library.c - the runtime's library API (cudaLibrary*, CUDA 12.0+) and
 * per-device kernel attributes, which torch 2.15 links against.
 *
 * In CUDA a cudaLibrary_t is a CUlibrary and a cudaKernel_t a CUkernel,
 * and libcudart implements these calls on the driver; torchfl does the
 * same: the driver layer (src/intercept/driver/module.c) loads the image
 * into a route module, and its kernels are the same tfl_kernel handles
 * __cudaGetKernel gives out, so they launch through the same path.
 */
#include "cudart/cudart_internal.h"
#include "route/runtime.h"

#include <cuda.h>

/* The driver's codes for these calls share CUDA's numbering with the
 * runtime's (invalid value 1, out of memory 2, invalid image 200, no
 * binary 209, invalid PTX 218, file not found 301, invalid handle 400,
 * not found 500); anything else is reported as unknown. */
static cudaError_t from_driver(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS: case CUDA_ERROR_INVALID_VALUE: case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_INVALID_IMAGE: case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX: case CUDA_ERROR_FILE_NOT_FOUND:
    case CUDA_ERROR_INVALID_HANDLE: case CUDA_ERROR_NOT_FOUND:
    case CUDA_ERROR_NOT_SUPPORTED:
        return (cudaError_t)r;
    case CUDA_ERROR_NOT_INITIALIZED: case CUDA_ERROR_NO_DEVICE:
        return cudaErrorNoDevice;
    default:
        return cudaErrorUnknown;
    }
}

/* The runtime initialises the driver implicitly, as libcudart does. */
#define DRV(call) do { \
        INIT_OR_RET(); \
        CUresult r_ = cuInit(0); \
        if (r_ == CUDA_SUCCESS) \
            r_ = (call); \
        if (r_ != CUDA_SUCCESS) \
            RET(from_driver(r_)); \
        return cudaSuccess; \
    } while (0)

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                unsigned int numJitOptions,
                                enum cudaLibraryOption *libraryOptions,
                                void **libraryOptionValues, unsigned int numLibraryOptions)
{
    if (!library || !code)
        RET(cudaErrorInvalidValue);
    DRV(cuLibraryLoadData((CUlibrary *)library, code, (CUjit_option *)jitOptions,
                          jitOptionsValues, numJitOptions, (CUlibraryOption *)libraryOptions,
                          libraryOptionValues, numLibraryOptions));
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                    enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                    unsigned int numJitOptions,
                                    enum cudaLibraryOption *libraryOptions,
                                    void **libraryOptionValues, unsigned int numLibraryOptions)
{
    if (!library || !fileName)
        RET(cudaErrorInvalidValue);
    DRV(cuLibraryLoadFromFile((CUlibrary *)library, fileName, (CUjit_option *)jitOptions,
                              jitOptionsValues, numJitOptions,
                              (CUlibraryOption *)libraryOptions, libraryOptionValues,
                              numLibraryOptions));
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    DRV(cuLibraryUnload((CUlibrary)library));
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name)
{
    if (!pKernel || !name)
        RET(cudaErrorInvalidValue);
    DRV(cuLibraryGetKernel((CUkernel *)pKernel, (CUlibrary)library, name));
}

cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                 const char *name)
{
    if (!dptr || !name)
        RET(cudaErrorInvalidValue);
    DRV(cuLibraryGetGlobal((CUdeviceptr *)dptr, bytes, (CUlibrary)library, name));
}

/* __managed__ variables live in the same pool as globals here. */
cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                  const char *name)
{
    return cudaLibraryGetGlobal(dptr, bytes, library, name);
}

cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                            int value, int device)
{
    INIT_OR_RET();
    if (!tfl_rt_device_is_valid(device))
        RET(cudaErrorInvalidDevice);
    /* one device model: the attribute is the kernel's */
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}

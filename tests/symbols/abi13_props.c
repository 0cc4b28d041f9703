/*
 * abi13_props.c - the reference side of abi12_prog.c: the device's
 * properties through the CUDA 13 ABI (cudaGetDeviceProperties@libcudart.so.13,
 * found with dlvsym, read with the 13.x cudaDeviceProp layout).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#if CUDART_VERSION < 13000
#error "abi13_props.c must be compiled against the CUDA 13.x headers"
#endif

int abi13_props(int dev, char *name, size_t namelen, size_t *mem, int *major,
                int *minor, int *mpc, int *warp)
{
    typedef cudaError_t (*fn)(struct cudaDeviceProp *, int);
    fn get = (fn)dlvsym(RTLD_DEFAULT, "cudaGetDeviceProperties", "libcudart.so.13");
    if (!get) {
        printf("dlvsym(cudaGetDeviceProperties, libcudart.so.13): %s\n", dlerror());
        return -1;
    }
    struct cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    if (get(&p, dev) != cudaSuccess)
        return -1;
    snprintf(name, namelen, "%.*s", (int)sizeof p.name, p.name);
    *mem = p.totalGlobalMem;
    *major = p.major;
    *minor = p.minor;
    *mpc = p.multiProcessorCount;
    *warp = p.warpSize;
    return 0;
}

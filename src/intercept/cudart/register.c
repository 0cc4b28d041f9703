/*
 * register.c - the registration ABI nvcc's host code calls at load time:
 * fatbins, kernels (host stub -> mangled name) and device variables.
 *
 * It runs from static constructors, before main and during
 * `import torch`, for hundreds of modules: it only records (route parses
 * nothing until a kernel of the module is launched), and it must not
 * initialise the backend.
 */
#include "cudart/cudart_internal.h"
#include "route/runtime.h"
#include "common/log.h"

#include <stdint.h>

void **__cudaRegisterFatBinary(void *fatCubin)
{
    /* The handle the binary passes back is our module. */
    return (void **)tfl_rt_module_register(fatCubin);
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    /* Called from static destructors at exit: forget the module so a late
     * launch gets an error instead of reading an unmapped image. */
    tfl_rt_module_unregister((tfl_module *)fatCubinHandle);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                            char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceFun; (void)thread_limit; (void)tid; (void)bid;
    (void)bDim; (void)gDim; (void)wSize;
    if (!tfl_rt_kernel_register((tfl_module *)fatCubinHandle, hostFun, deviceName))
        tfl_error("could not register kernel %s", deviceName ? deviceName : "(null)");
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant,
                       int global)
{
    (void)deviceAddress; (void)ext; (void)global;
    tfl_rt_var_register((tfl_module *)fatCubinHandle, hostVar, deviceName, size,
                        constant, 0);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *deviceName, int ext,
                              size_t size, int constant, int global)
{
    (void)deviceAddress; (void)ext; (void)global;
    /* Host code reaches a managed variable through *hostVarPtrAddress, at
     * any time, even before its first CUDA call: so this module's storage
     * is made now (managed variables are rare; other modules stay lazy).
     * Device memory is host memory on the host backend. */
    tfl_rt_var_register((tfl_module *)fatCubinHandle, hostVarPtrAddress, deviceName,
                        size, constant, 1);
    void *addr = NULL;
    if (tfl_rt_var_by_host(hostVarPtrAddress, &addr, NULL) == TFL_OK && addr)
        *hostVarPtrAddress = addr;
    else
        tfl_error("managed variable %s has no storage; host accesses to it will fail",
                  deviceName);
}

char __cudaInitModule(void **fatCubinHandle)
{
    return tfl_rt_module_valid((tfl_module *)fatCubinHandle) ? 1 : 0;
}

/* Textures and surfaces belong to the graphics path no backend supports;
 * registering them must still succeed so the program starts. */
void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar,
                           const void **deviceAddress, const char *deviceName,
                           int dim, int norm, int ext)
{
    (void)fatCubinHandle; (void)hostVar; (void)deviceAddress; (void)dim;
    (void)norm; (void)ext;
    tfl_debug("texture %s registered (textures are not supported)", deviceName);
}

void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar,
                           const void **deviceAddress, const char *deviceName,
                           int dim, int ext)
{
    (void)fatCubinHandle; (void)hostVar; (void)deviceAddress; (void)dim; (void)ext;
    tfl_debug("surface %s registered (surfaces are not supported)", deviceName);
}

void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName,
                           void *hostVar, size_t size)
{
    (void)fatCubinHandle; (void)deviceName; (void)hostVar; (void)size;
}

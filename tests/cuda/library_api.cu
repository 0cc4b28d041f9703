// library_api.cu - the runtime's library API (cudaLibraryLoadData,
// cudaLibraryGetKernel, cudaLibraryGetGlobal, cudaLibraryUnload) and
// cudaKernelSetAttributeForDevice, which torch 2.15 links against: a PTX
// image is loaded, its kernel launched through cudaLaunchKernel with the
// cudaKernel_t, its global read back; bad handles and names get CUDA's
// errors.
// tfl-backends: opencl
#include "check.h"

#include <string.h>

static const char ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .global .align 4 .u32 bias = 7;\n"
    ".visible .entry add_bias(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "  .reg .u32 %r<6>;\n"
    "  .reg .u64 %rd<4>;\n"
    "  .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  setp.ge.u32 %p, %r2, %r1;\n"
    "  @%p bra done;\n"
    "  ld.global.u32 %r3, [bias];\n"
    "  add.u32 %r4, %r2, %r3;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r2, 4;\n"
    "  add.u64 %rd2, %rd2, %rd3;\n"
    "  st.global.u32 [%rd2], %r4;\n"
    "done:\n"
    "  ret;\n"
    "}\n";

int main(void)
{
    cudaLibrary_t lib = NULL;
    CHECK_OK(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    cudaKernel_t k = NULL;
    CHECK_OK(cudaLibraryGetKernel(&k, lib, "add_bias"));
    CHECK_ERR(cudaLibraryGetKernel(&k, lib, "no_such_kernel"), cudaErrorSymbolNotFound);
    (void)cudaGetLastError();

    unsigned *d = NULL, h[64];
    unsigned n = 64;
    CHECK_OK(cudaMalloc((void **)&d, n * sizeof *d));
    CHECK_OK(cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             1024, 0));
    CHECK_ERR(cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              1024, 99), cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    void *args[] = { &d, &n };
    CHECK_OK(cudaLaunchKernel((const void *)k, dim3(1), dim3(64), args, 0, 0));
    CHECK_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; i++)
        CHECK(h[i] == i + 7);

    void *g = NULL;
    size_t bytes = 0;
    CHECK_OK(cudaLibraryGetGlobal(&g, &bytes, lib, "bias"));
    CHECK(g != NULL && bytes == 4);
    unsigned bias = 0;
    CHECK_OK(cudaMemcpy(&bias, g, 4, cudaMemcpyDeviceToHost));
    CHECK(bias == 7);

    CHECK_OK(cudaLibraryUnload(lib));
    CHECK_ERR(cudaLibraryUnload(lib), cudaErrorInvalidResourceHandle);
    (void)cudaGetLastError();
    cudaLibrary_t none = NULL;
    static const unsigned char junk[64] = { 0x7f, 'E', 'L', 'F', 9, 9, 9, 9 };
    CHECK_ERR(cudaLibraryLoadData(&none, junk, NULL, NULL, 0, NULL, NULL, 0),
              cudaErrorInvalidKernelImage);
    (void)cudaGetLastError();
    CHECK_OK(cudaFree(d));
    TEST_DONE();
}

/*
 * test_drv_module.c - modules and libraries from a PTX image, kernel
 * launches (kernelParams, the packed "extra" buffer, cuLaunchKernelEx,
 * cooperative), module globals, function attributes, occupancy, and bad
 * handles/configurations.  Results are compared with the same float
 * additions done on the host.
 */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* out[i] = in[i] + a for i < n; and a .global u32 "counter" = 7 */
static const char ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .global .align 4 .u32 counter = 7;\n"
    "\n"
    ".visible .entry add_scalar(\n"
    "    .param .u64 p_out,\n"
    "    .param .u64 p_in,\n"
    "    .param .f32 p_a,\n"
    "    .param .u32 p_n\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .f32 %f<4>;\n"
    "    .reg .b64 %rd<8>;\n"
    "\n"
    "    ld.param.u64 %rd1, [p_out];\n"
    "    ld.param.u64 %rd2, [p_in];\n"
    "    ld.param.f32 %f1, [p_a];\n"
    "    ld.param.u32 %r1, [p_n];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd3, %rd1;\n"
    "    cvta.to.global.u64 %rd4, %rd2;\n"
    "    mul.wide.u32 %rd5, %r5, 4;\n"
    "    add.s64 %rd6, %rd4, %rd5;\n"
    "    ld.global.f32 %f2, [%rd6];\n"
    "    add.f32 %f3, %f2, %f1;\n"
    "    add.s64 %rd7, %rd3, %rd5;\n"
    "    st.global.f32 [%rd7], %f3;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n"
;

#define N 1000

static int check_out(CUdeviceptr d_out, const float *in, float a)
{
    float out[N];
    if (cuMemcpyDtoH(out, d_out, sizeof out) != CUDA_SUCCESS)
        return 0;
    for (int i = 0; i < N; i++)
        if (out[i] != in[i] + a) {
            fprintf(stderr, "out[%d] = %g, want %g\n", i, out[i], in[i] + a);
            return 0;
        }
    return 1;
}

int main(void)
{
    CUcontext ctx;
    REQUIRE_OK(drv_setup(&ctx));
    float in[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i * 0.37f - 50.0f;
    CUdeviceptr d_in = 0, d_out = 0;
    REQUIRE_OK(cuMemAlloc(&d_in, sizeof in));
    REQUIRE_OK(cuMemAlloc(&d_out, sizeof in));
    CHECK_OK(cuMemcpyHtoD(d_in, in, sizeof in));

    CUmodule mod = NULL;
    CUfunction f = NULL;
    REQUIRE_OK(cuModuleLoadData(&mod, ptx));
    REQUIRE_OK(cuModuleGetFunction(&f, mod, "add_scalar"));
    CHECK_RES(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    REQUIRE_OK(cuModuleGetFunction(&f, mod, "add_scalar"));

    /* kernelParams */
    float a = 1.5f;
    unsigned n = N;
    void *params[] = { &d_out, &d_in, &a, &n };
    CHECK_OK(cuMemsetD8(d_out, 0, sizeof in));
    CHECK_OK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK_OK(cuCtxSynchronize());
    CHECK(check_out(d_out, in, a));

    /* the packed buffer, as CU_LAUNCH_PARAM_BUFFER_POINTER passes it */
    struct { uint64_t out, in; float a; uint32_t n; } packed = { d_out, d_in, -2.25f, N };
    size_t psize = sizeof packed;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &psize,
                      CU_LAUNCH_PARAM_END };
    CUstream s;
    REQUIRE_OK(cuStreamCreate(&s, 0));
    CHECK_OK(cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, s, NULL, extra));
    CHECK_OK(cuStreamSynchronize(s));
    CHECK(check_out(d_out, in, -2.25f));

    /* cuLaunchKernelEx and a cooperative launch that fits */
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr.value.cooperative = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 4; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = 256; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.hStream = s; cfg.attrs = &attr; cfg.numAttrs = 1;
    a = 10.0f;
    CHECK_OK(cuLaunchKernelEx(&cfg, f, params, NULL));
    CHECK_OK(cuStreamSynchronize(s));
    CHECK(check_out(d_out, in, 10.0f));
    a = 0.5f;
    CHECK_OK(cuLaunchCooperativeKernel(f, 4, 1, 1, 256, 1, 1, 0, s, params));
    CHECK_OK(cuStreamSynchronize(s));
    CHECK(check_out(d_out, in, 0.5f));
    CHECK_RES(cuLaunchCooperativeKernel(f, 1u << 30, 1, 1, 256, 1, 1, 0, s, params),
              CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);

    /* module globals */
    CUdeviceptr g = 0;
    size_t gsize = 0;
    uint32_t counter = 0;
    CHECK_OK(cuModuleGetGlobal(&g, &gsize, mod, "counter"));
    CHECK(gsize == 4);
    CHECK_OK(cuMemcpyDtoH(&counter, g, 4));
    CHECK(counter == 7);
    CHECK_RES(cuModuleGetGlobal(&g, &gsize, mod, "nothing"), CUDA_ERROR_NOT_FOUND);

    /* attributes and occupancy */
    int v = -1;
    CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    CHECK(v >= 256 && v <= 1024);
    CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    CHECK(v == 0);
    CHECK_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
    CHECK_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    CHECK(v == 64 * 1024);
    CHECK_RES(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30),
              CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_L1));
    const char *fname = NULL;
    CHECK_OK(cuFuncGetName(&fname, f));
    CHECK(fname && strcmp(fname, "add_scalar") == 0);
    CUmodule fm = NULL;
    CHECK_OK(cuFuncGetModule(&fm, f));
    CHECK(fm == mod);
    int blocks = -1, min_grid = 0, bsize = 0, sms = 0;
    CHECK_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0));
    CHECK(blocks >= 1);
    CHECK_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 4096, 0));
    CHECK(blocks == 0);   /* more threads than a block may have */
    CHECK_OK(cuOccupancyMaxPotentialBlockSize(&min_grid, &bsize, f, NULL, 0, 0));
    CHECK_OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    CHECK(bsize > 0 && bsize % 32 == 0 && min_grid >= sms);
    CHECK_OK(cuOccupancyMaxPotentialBlockSize(&min_grid, &bsize, f, NULL, 0, 96));
    CHECK(bsize > 0 && bsize <= 96);

    /* bad launches: errors, no fault */
    int junk = 0;
    CHECK_RES(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuLaunchKernel((CUfunction)&junk, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL),
              CUDA_ERROR_INVALID_HANDLE);
    CHECK_RES(cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, extra), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, (CUstream)&junk, params, NULL),
              CUDA_ERROR_INVALID_HANDLE);

    /* the library API over the same image; a CUkernel works as a CUfunction */
    CUlibrary lib = NULL;
    CUkernel k = NULL;
    CUfunction kf = NULL;
    CHECK_OK(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CHECK_OK(cuLibraryGetKernel(&k, lib, "add_scalar"));
    CHECK_OK(cuKernelGetFunction(&kf, k));
    a = 3.0f;
    CHECK_OK(cuLaunchKernel(kf, 4, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(check_out(d_out, in, 3.0f));
    a = 4.0f;
    CHECK_OK(cuLaunchKernel((CUfunction)k, 4, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(check_out(d_out, in, 4.0f));
    CUdeviceptr lg = 0;
    CHECK_OK(cuLibraryGetGlobal(&lg, &gsize, lib, "counter"));
    CHECK(gsize == 4);
    CUmodule lm = NULL;
    CHECK_OK(cuLibraryGetModule(&lm, lib));
    CHECK_OK(cuLibraryUnload(lib));
    CHECK_RES(cuLibraryGetKernel(&k, lib, "add_scalar"), CUDA_ERROR_INVALID_HANDLE);

    /* cuModuleLoad from a file, cuModuleLoadDataEx with logs */
    char path[] = "/tmp/tfl_drv_moduleXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, ptx, sizeof ptx - 1) == (ssize_t)(sizeof ptx - 1));
        close(fd);
        CUmodule fmod = NULL;
        CHECK_OK(cuModuleLoad(&fmod, path));
        CHECK_OK(cuModuleGetFunction(&f, fmod, "add_scalar"));
        CHECK_OK(cuModuleUnload(fmod));
        unlink(path);
    }
    CUmodule m2 = NULL;
    CHECK_RES(cuModuleLoad(&m2, "/nonexistent/file.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
    char elog[256] = "x";
    CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[2] = { elog, (void *)(uintptr_t)sizeof elog };
    CHECK_OK(cuModuleLoadDataEx(&m2, ptx, 2, opts, vals));
    CHECK_OK(cuModuleUnload(m2));
    static const char bad[] = ".version 8.0\n.target sm_80\n.entry broken( { ret }";
    vals[1] = (void *)(uintptr_t)sizeof elog;
    CUresult r = cuModuleLoadDataEx(&m2, bad, 2, opts, vals);
    if (r == CUDA_SUCCESS) {   /* parsing may be lazy: then the lookup fails */
        CHECK(cuModuleGetFunction(&f, m2, "broken") != CUDA_SUCCESS);
        CHECK_OK(cuModuleUnload(m2));
    } else {
        CHECK(r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_INVALID_IMAGE);
    }
    static const unsigned char notelf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    CHECK(cuModuleLoadData(&m2, notelf) != CUDA_SUCCESS);

    CHECK_OK(cuModuleUnload(mod));
    CHECK_RES(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
    CHECK_OK(cuMemFree(d_in));
    CHECK_OK(cuMemFree(d_out));
    CHECK_OK(cuStreamDestroy(s));
    TEST_DONE();
}

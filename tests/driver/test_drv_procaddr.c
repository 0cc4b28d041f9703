/*
 * test_drv_procaddr.c - name lookups: cuGetProcAddress by CUDA version and
 * stream flavour, cudaGetDriverEntryPoint(ByVersion) as PyTorch's
 * DriverAPI uses it, and dlopen("libcuda.so.1") + dlsym of everything
 * PyTorch's LazyNVRTC resolves, which must all be torchfl's functions.
 */
#define _GNU_SOURCE
#include "drv_check.h"

#include <dlfcn.h>
#include <string.h>

/* What a program compiled against cuda.h asks dlsym for: the name after
 * cuda.h's versioning macros (PyTorch's stubs use __func__). */
#define XSTR(x) STR(x)
#define STR(x) #x

static void *lib;

/* The function the loader gives for an exported name. */
static void *sym(const char *name) { return dlsym(lib, name); }

static int from_torchfl(void *fn)
{
    Dl_info info;
    return fn && dladdr(fn, &info) && info.dli_fname && strstr(info.dli_fname, "libtorchfl.so");
}

static void expect_proc(const char *name, int version, cuuint64_t flags, const char *want)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    CUresult r = cuGetProcAddress_v2(name, &fn, version, flags, &q);
    void *w = sym(want);
    if (r != CUDA_SUCCESS || q != CU_GET_PROC_ADDRESS_SUCCESS || !w || fn != w) {
        fprintf(stderr, "cuGetProcAddress(%s, %d, %llu): %s q=%d fn=%p, want %s=%p\n", name,
                version, (unsigned long long)flags, drv_name(r), (int)q, fn, want, w);
        drv_failures++;
    }
}

typedef enum cudaDriverEntryPointQueryResult_ {
    EP_SUCCESS = 0, EP_NOT_FOUND = 1, EP_VERSION = 2
} ep_result;
typedef int (*entry_by_version_fn)(const char *, void **, unsigned, unsigned long long, ep_result *);
typedef int (*entry_fn)(const char *, void **, unsigned long long, ep_result *);

int main(void)
{
    REQUIRE_OK(cuInit(0));
    lib = dlopen("libcuda.so.1", RTLD_LOCAL | RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "dlopen(libcuda.so.1): %s\n", dlerror());
        return 1;
    }

    /* ABI revisions by version */
    expect_proc("cuMemAlloc", 13000, 0, "cuMemAlloc_v2");
    expect_proc("cuMemAlloc", 3020, 0, "cuMemAlloc_v2");
    expect_proc("cuCtxCreate", 13000, 0, "cuCtxCreate_v4");
    expect_proc("cuCtxCreate", 12050, 0, "cuCtxCreate_v4");
    expect_proc("cuCtxCreate", 12040, 0, "cuCtxCreate_v3");
    expect_proc("cuCtxCreate", 11040, 0, "cuCtxCreate_v3");
    expect_proc("cuCtxCreate", 4000, 0, "cuCtxCreate_v2");
    expect_proc("cuCtxSynchronize", 12090, 0, "cuCtxSynchronize");
    expect_proc("cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2");
    expect_proc("cuStreamWriteValue32", 11060, 0, "cuStreamWriteValue32");
    expect_proc("cuStreamWriteValue32", 12000, 0, "cuStreamWriteValue32_v2");
    expect_proc("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
    expect_proc("cuGetProcAddress", 11030, 0, "cuGetProcAddress");
    expect_proc("cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2");
    expect_proc("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2");
    expect_proc("cuEventElapsedTime", 12000, 0, "cuEventElapsedTime");
    /* per-thread default stream variants, and fallback where none exists */
    expect_proc("cuStreamSynchronize", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                "cuStreamSynchronize_ptsz");
    expect_proc("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                "cuMemcpyHtoD_v2_ptds");
    expect_proc("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuMemcpyHtoD_v2");
    expect_proc("cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                "cuLaunchKernel_ptsz");
    expect_proc("cuMemAlloc", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuMemAlloc_v2");

    void *fn = (void *)0x1;
    CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SUCCESS;
    CHECK_RES(cuGetProcAddress_v2("cuNoSuchFunction", &fn, 13000, 0, &q), CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL && q == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* the VMM API appeared in 10.2 */
    CHECK_RES(cuGetProcAddress_v2("cuMemAddressReserve", &fn, 10000, 0, &q), CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL && q == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    CHECK_RES(cuGetProcAddress_v2(NULL, &fn, 13000, 0, &q), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuGetProcAddress_v2("cuInit", &fn, 13000, 0x10, &q), CUDA_ERROR_INVALID_VALUE);
    /* the first revision has no status argument (cuda.h maps the name to
     * the second, so it is called through its export) */
    CUresult (*gpa_v1)(const char *, void **, int, cuuint64_t) =
        (CUresult (*)(const char *, void **, int, cuuint64_t))sym("cuGetProcAddress");
    CHECK(gpa_v1 != NULL);
    if (gpa_v1) {
        CHECK_RES(gpa_v1("cuInit", &fn, 13000, 0), CUDA_SUCCESS);
        CHECK(fn == sym("cuInit"));
        CHECK_RES(gpa_v1("cuNoSuchFunction", &fn, 13000, 0), CUDA_ERROR_NOT_FOUND);
    }
    /* a looked-up function works */
    int (*get_version)(int *) = NULL;
    CHECK_OK(cuGetProcAddress_v2("cuDriverGetVersion", (void **)&get_version, 13000, 0, NULL));
    int v = 0;
    CHECK(get_version && get_version(&v) == CUDA_SUCCESS && v == 13020 /* src/intercept/versions.h: CUDA 13.2, torch 2.15 */);

    /* PyTorch's DriverAPI (c10/cuda/driver_api.h): required symbols */
    entry_by_version_fn by_version = (entry_by_version_fn)dlsym(RTLD_DEFAULT,
                                                                "cudaGetDriverEntryPointByVersion");
    entry_fn entry = (entry_fn)dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint");
    CHECK(from_torchfl((void *)by_version) && from_torchfl((void *)entry));
    static const char *const required[] = {
        "cuDeviceGetAttribute", "cuMemAddressReserve", "cuMemRelease", "cuMemMap",
        "cuMemAddressFree", "cuMemSetAccess", "cuMemUnmap", "cuMemCreate",
        "cuMemGetAllocationGranularity", "cuMemExportToShareableHandle",
        "cuMemImportFromShareableHandle", "cuMemsetD32Async", "cuStreamWriteValue32",
        "cuGetErrorString",
    };
    for (size_t i = 0; by_version && entry && i < sizeof required / sizeof required[0]; i++) {
        void *f1 = NULL, *f2 = NULL, *want = NULL;
        ep_result r1 = EP_NOT_FOUND, r2 = EP_NOT_FOUND;
        int e1 = by_version(required[i], &f1, 12050, 0, &r1);
        int e2 = entry(required[i], &f2, 0, &r2);
        cuGetProcAddress_v2(required[i], &want, 12050, 0, NULL);
        if (e1 != 0 || r1 != EP_SUCCESS || !f1 || f1 != want || !from_torchfl(f1) || e2 != 0 ||
            r2 != EP_SUCCESS || !f2) {
            fprintf(stderr, "entry point %s: %d/%d %p, %d/%d %p\n", required[i], e1, (int)r1, f1,
                    e2, (int)r2, f2);
            drv_failures++;
        }
    }
    if (by_version) {
        void *f = (void *)0x1;
        ep_result r = EP_SUCCESS;
        CHECK(by_version("cuNoSuchFunction", &f, 13000, 0, &r) == 0);   /* cudaSuccess */
        CHECK(f == NULL && r == EP_NOT_FOUND);
        CHECK(by_version(NULL, &f, 13000, 0, &r) != 0);
    }

    /* PyTorch's LazyNVRTC: dlsym on the libcuda.so.1 handle, by the name
     * its stubs carry once cuda.h's macros are applied */
    static const char *const lazy[] = {
        XSTR(cuDevicePrimaryCtxGetState), XSTR(cuDevicePrimaryCtxRetain), XSTR(cuCtxGetCurrent),
        XSTR(cuCtxSetCurrent), XSTR(cuModuleLoad), XSTR(cuModuleLoadData),
        XSTR(cuModuleLoadDataEx), XSTR(cuModuleGetFunction), XSTR(cuModuleUnload),
        XSTR(cuLaunchKernel), XSTR(cuLaunchCooperativeKernel),
        XSTR(cuOccupancyMaxActiveBlocksPerMultiprocessor), XSTR(cuFuncSetAttribute),
        XSTR(cuFuncGetAttribute), XSTR(cuFuncSetCacheConfig), XSTR(cuDeviceGet),
        XSTR(cuDeviceGetAttribute), XSTR(cuGetErrorString), XSTR(cuLinkCreate),
        XSTR(cuLinkAddData), XSTR(cuLinkComplete), XSTR(cuPointerGetAttribute),
        XSTR(cuTensorMapEncodeTiled),
        /* and the unversioned exports of the same functions */
        "cuLinkCreate", "cuLinkAddData", "cuDevicePrimaryCtxRelease", "cuCtxDestroy",
        "cuStreamDestroy", "cuEventDestroy", "cuMemHostRegister", "cuCtxCreate",
    };
    for (size_t i = 0; i < sizeof lazy / sizeof lazy[0]; i++) {
        void *f = sym(lazy[i]);
        if (!from_torchfl(f)) {
            fprintf(stderr, "dlsym(libcuda.so.1, %s) = %p: not torchfl's\n", lazy[i], f);
            drv_failures++;
        }
    }
    CHECK(strcmp(XSTR(cuLinkCreate), "cuLinkCreate_v2") == 0);   /* the macro did apply */

    /* cuLink of one PTX image gives that image back, loadable */
    CUcontext ctx;
    REQUIRE_OK(drv_setup(&ctx));
    static const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n";
    CUlinkState ls;
    void *out = NULL;
    size_t outn = 0;
    CHECK_OK(cuLinkCreate(0, NULL, NULL, &ls));
    CHECK_RES(cuLinkComplete(ls, &out, &outn), CUDA_ERROR_INVALID_VALUE);   /* nothing added */
    CHECK_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)ptx, sizeof ptx, "a.ptx", 0, NULL, NULL));
    CHECK_OK(cuLinkComplete(ls, &out, &outn));
    CHECK(out && outn == sizeof ptx && memcmp(out, ptx, sizeof ptx) == 0);
    CHECK_RES(cuLinkAddData(ls, CU_JIT_INPUT_LIBRARY, (void *)ptx, 4, "x", 0, NULL, NULL),
              CUDA_ERROR_NOT_SUPPORTED);
    CHECK_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)ptx, sizeof ptx, "b.ptx", 0, NULL, NULL));
    CHECK_RES(cuLinkComplete(ls, &out, &outn), CUDA_ERROR_NOT_SUPPORTED);   /* two images */
    CHECK_OK(cuLinkDestroy(ls));
    CHECK_RES(cuLinkDestroy(ls), CUDA_ERROR_INVALID_HANDLE);
    dlclose(lib);
    TEST_DONE();
}

/*
 * test_drv_device.c - cuInit, versions, devices, every device attribute,
 * properties, PCI ids, UUIDs and the error names/strings.
 */
#include "drv_check.h"

#include <string.h>

int main(void)
{
    int n = -1, v = 0;
    /* nothing has initialised torchfl yet: the driver says so */
    CHECK_RES(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext none = NULL;
    CHECK_RES(cuCtxGetCurrent(&none), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_RES(cuInit(1), CUDA_ERROR_INVALID_VALUE);   /* flags must be 0 */
    REQUIRE_OK(cuInit(0));
    CHECK_OK(cuDriverGetVersion(&v));
    CHECK(v == 13020 /* src/intercept/versions.h */);
    CHECK_RES(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
    REQUIRE_OK(cuDeviceGetCount(&n));
    CHECK(n >= 1);

    CUdevice d = -1;
    CHECK_OK(cuDeviceGet(&d, 0));
    CHECK(d == 0);
    CHECK_RES(cuDeviceGet(&d, n), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RES(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);
    CHECK_RES(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);

    char name[256] = "";
    CHECK_OK(cuDeviceGetName(name, sizeof name, 0));
    CHECK(name[0] != 0);
    char shortname[4];
    CHECK_OK(cuDeviceGetName(shortname, sizeof shortname, 0));   /* truncated, terminated */
    CHECK(strlen(shortname) <= 3 && strncmp(shortname, name, strlen(shortname)) == 0);
    CHECK_RES(cuDeviceGetName(name, sizeof name, n), CUDA_ERROR_INVALID_DEVICE);

    size_t total = 0;
    CHECK_OK(cuDeviceTotalMem(&total, 0));
    CHECK(total > 0);

    int major = 0, minor = -1, amaj = 0, amin = -1;
    CHECK_OK(cuDeviceComputeCapability(&major, &minor, 0));
    CHECK_OK(cuDeviceGetAttribute(&amaj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    CHECK_OK(cuDeviceGetAttribute(&amin, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    CHECK(major >= 7 && major == amaj && minor == amin);

    /* values CUDA code is written against */
    struct { CUdevice_attribute a; int want; } fixed[] = {
        { CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32 },
        { CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535 },
        { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535 },
        { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024 },
        { CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536 },
        { CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1 },
        { CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1 },
        { CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1 },
        { CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 1 },
        { CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1 },
        { CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1 },
        { CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1 },
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        int val = -7;
        CHECK_OK(cuDeviceGetAttribute(&val, fixed[i].a, 0));
        if (val != fixed[i].want) {
            fprintf(stderr, "attribute %d = %d, want %d\n", (int)fixed[i].a, val, fixed[i].want);
            drv_failures++;
        }
    }
    int sms = 0, per_block = 0, optin = 0, per_sm = 0, thr_sm = 0;
    CHECK_OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    CHECK_OK(cuDeviceGetAttribute(&per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 0));
    CHECK_OK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    CHECK_OK(cuDeviceGetAttribute(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 0));
    CHECK_OK(cuDeviceGetAttribute(&thr_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 0));
    CHECK(sms > 0);
    CHECK(per_block <= optin && optin <= per_sm);
    /* PyTorch's RNG grid: threads/SM / 256 * SMs must not be 0 */
    CHECK(thr_sm / 256 * sms > 0);

    /* every attribute of the enum is answered */
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
        int val = 0;
        CUresult r = cuDeviceGetAttribute(&val, (CUdevice_attribute)a, 0);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "attribute %d: %s\n", a, drv_name(r));
            drv_failures++;
        }
    }
    int val;
    CHECK_RES(cuDeviceGetAttribute(&val, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuDeviceGetAttribute(&val, CU_DEVICE_ATTRIBUTE_WARP_SIZE, n), CUDA_ERROR_INVALID_DEVICE);

    CUdevprop prop;
    CHECK_OK(cuDeviceGetProperties(&prop, 0));
    CHECK(prop.maxThreadsPerBlock == 1024 && prop.SIMDWidth == 32);
    CHECK(prop.maxThreadsDim[2] == 64 && prop.maxGridSize[1] == 65535);
    CHECK((int)prop.sharedMemPerBlock == per_block);

    CUuuid u1, u2;
    CHECK_OK(cuDeviceGetUuid(&u1, 0));
    CHECK_OK(cuDeviceGetUuid_v2(&u2, 0));
    CHECK(memcmp(u1.bytes, u2.bytes, 16) == 0);

    char bus[64] = "";
    CUdevice back = -1;
    CHECK_OK(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    CHECK_OK(cuDeviceGetByPCIBusId(&back, bus));
    CHECK(back == 0);
    CHECK_RES(cuDeviceGetByPCIBusId(&back, "not-a-bus-id"), CUDA_ERROR_INVALID_VALUE);

    /* error names and strings: every documented code, nothing else */
    const char *s = NULL;
    CHECK_OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    CHECK(s && strcmp(s, "CUDA_ERROR_INVALID_VALUE") == 0);
    CHECK_OK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    CHECK(s && strcmp(s, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0);
    CHECK_OK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    CHECK(s && strlen(s) > 10);
    int named = 0;
    for (int e = 0; e < 1100; e++) {
        const char *nm = NULL, *str = NULL;
        CUresult r1 = cuGetErrorName((CUresult)e, &nm), r2 = cuGetErrorString((CUresult)e, &str);
        CHECK(r1 == r2);
        if (r1 == CUDA_SUCCESS) {
            named++;
            CHECK(nm && strncmp(nm, "CUDA_", 5) == 0 && str && str[0]);
        } else {
            CHECK(r1 == CUDA_ERROR_INVALID_VALUE && nm == NULL);
        }
    }
    CHECK(named >= 100);   /* cuda.h 13.0 documents 101 codes */
    CHECK_RES(cuGetErrorName(CUDA_ERROR_UNKNOWN, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuGetErrorName(CUDA_ERROR_UNKNOWN, &s));
    CHECK(s && strcmp(s, "CUDA_ERROR_UNKNOWN") == 0);

    const void *tbl = (const void *)&tbl;
    CUuuid id = { { 0 } };
    CHECK_RES(cuGetExportTable(&tbl, &id), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(tbl == NULL);
    TEST_DONE();
}

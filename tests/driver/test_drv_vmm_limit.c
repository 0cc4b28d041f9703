/*
 * test_drv_vmm_limit.c - physical VMM memory counts against the pool
 * limit (TORCH_FL_MEM_POOL_SIZE), as device memory runs out on a GPU.
 *
 * tfl-driver-env: TORCH_FL_MEM_POOL_SIZE=16M
 */
#include "drv_check.h"

#include <string.h>

#define MiB ((size_t)1 << 20)

int main(void)
{
    /* ctest sets TORCH_FL_MEM_POOL_SIZE=16M (see the header comment) */
    CUcontext ctx;
    REQUIRE_OK(drv_setup(&ctx));
    size_t free0 = 0, total = 0;
    CHECK_OK(cuMemGetInfo(&free0, &total));
    CHECK(total == 16 * MiB);

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUmemGenericAllocationHandle h[9];
    int made = 0;
    while (made < 9 && cuMemCreate(&h[made], 2 * MiB, &prop, 0) == CUDA_SUCCESS)
        made++;
    CHECK(made == 8);   /* 8 x 2 MiB fill the 16 MiB pool */
    CUmemGenericAllocationHandle extra = 0;
    CHECK_RES(cuMemCreate(&extra, 2 * MiB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
    size_t free1 = 0;
    CHECK_OK(cuMemGetInfo(&free1, &total));
    CHECK(free1 == 0);
    /* the pool sees the same limit: no room for cuMemAlloc either */
    CUdeviceptr d = 0;
    CHECK_RES(cuMemAlloc(&d, 2 * MiB), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK_OK(cuMemRelease(h[0]));
    CHECK_OK(cuMemCreate(&extra, 2 * MiB, &prop, 0));   /* room again */
    CHECK_OK(cuMemRelease(extra));
    for (int i = 1; i < made; i++)
        CHECK_OK(cuMemRelease(h[i]));
    CHECK_OK(cuMemGetInfo(&free1, &total));
    CHECK(free1 == free0);

    /* and the other way round: pool memory leaves less for cuMemCreate */
    CHECK_OK(cuMemAlloc(&d, 12 * MiB));
    made = 0;
    while (made < 8 && cuMemCreate(&h[made], 2 * MiB, &prop, 0) == CUDA_SUCCESS)
        made++;
    CHECK(made >= 1 && made <= 2);   /* 4 MiB at most are left */
    for (int i = 0; i < made; i++)
        CHECK_OK(cuMemRelease(h[i]));
    CHECK_OK(cuMemFree(d));
    TEST_DONE();
}

/*
 * test_drv_vmm.c - the virtual memory API as PyTorch's expandable
 * segments use it: reserve 64 MiB, create 2 MiB physical handles, map two
 * adjacent pieces, set access, write/read through both (also across the
 * seam), unmap, release; plus sharing through a POSIX fd and bad input.
 */
#include "drv_check.h"

#include <string.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

int main(void)
{
    CUcontext ctx;
    REQUIRE_OK(drv_setup(&ctx));

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran = 0;
    CHECK_OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK(gran == 2 * MiB);
    CHECK_OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    CHECK(gran == 2 * MiB);
    CHECK_RES(cuMemGetAllocationGranularity(&gran, NULL, 0), CUDA_ERROR_INVALID_VALUE);

    CUdeviceptr va = 0;
    REQUIRE_OK(cuMemAddressReserve(&va, 64 * MiB, 0, 0, 0));
    CHECK(va != 0 && va % (2 * MiB) == 0);
    CHECK_RES(cuMemAddressReserve(&va, 3 * MiB, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);

    size_t free0 = 0, free1 = 0, total = 0;
    CHECK_OK(cuMemGetInfo(&free0, &total));
    CUmemGenericAllocationHandle h1 = 0, h2 = 0;
    REQUIRE_OK(cuMemCreate(&h1, 2 * MiB, &prop, 0));
    REQUIRE_OK(cuMemCreate(&h2, 2 * MiB, &prop, 0));
    CHECK(h1 != h2);
    CHECK_OK(cuMemGetInfo(&free1, &total));
    CHECK(free0 - free1 == 4 * MiB);   /* physical memory counts as used */
    CHECK_RES(cuMemCreate(&h1, MiB, &prop, 0), CUDA_ERROR_INVALID_VALUE);   /* not granular */

    /* reserved but unmapped: not accessible */
    unsigned char *src = malloc(4 * MiB), *back = malloc(4 * MiB);
    if (!src || !back)
        return 1;
    drv_fill(src, 4 * MiB, 7);
    CHECK_RES(cuMemcpyHtoD(va, src, 16), CUDA_ERROR_INVALID_VALUE);

    /* map two adjacent pieces */
    CHECK_OK(cuMemMap(va, 2 * MiB, 0, h1, 0));
    CHECK_OK(cuMemMap(va + 2 * MiB, 2 * MiB, 0, h2, 0));
    CHECK_RES(cuMemMap(va, 2 * MiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);    /* already mapped */
    CHECK_RES(cuMemMap(va + 8 * MiB, MiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemMap(va + 8 * MiB, 2 * MiB, 0, 0xdeadbeef, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemMap(va + 62 * MiB, 4 * MiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE); /* too big */
    /* mapped, no access yet */
    CHECK_RES(cuMemcpyHtoD(va, src, 16), CUDA_ERROR_INVALID_VALUE);

    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = 0;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_OK(cuMemSetAccess(va, 4 * MiB, &acc, 1));
    CHECK_RES(cuMemSetAccess(va, 6 * MiB, &acc, 1), CUDA_ERROR_INVALID_VALUE); /* not all mapped */
    unsigned long long fl = 0;
    CHECK_OK(cuMemGetAccess(&fl, &acc.location, va + 3 * MiB));
    CHECK(fl == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    /* one copy spanning both pieces, read back piece by piece */
    CHECK_OK(cuMemcpyHtoD(va, src, 4 * MiB));
    memset(back, 0, 4 * MiB);
    CHECK_OK(cuMemcpyDtoH(back, va + 2 * MiB, 2 * MiB));
    CHECK(memcmp(back, src + 2 * MiB, 2 * MiB) == 0);
    CHECK_OK(cuMemcpyDtoH(back, va + MiB, 2 * MiB));   /* across the seam */
    CHECK(memcmp(back, src + MiB, 2 * MiB) == 0);
    CHECK_OK(cuMemsetD32(va + 2 * MiB - 8, 0xCAFEF00Du, 4));
    unsigned words[4];
    CHECK_OK(cuMemcpyDtoH(words, va + 2 * MiB - 8, 16));
    CHECK(words[0] == 0xCAFEF00Du && words[3] == 0xCAFEF00Du);
    CUdeviceptr rbase = 0;
    size_t rsize = 0;
    CHECK_OK(cuMemGetAddressRange(&rbase, &rsize, va + 3 * MiB));
    CHECK(rbase == va && rsize == 4 * MiB);
    void *mbase = NULL;
    size_t msize = 0;
    CHECK_OK(cuPointerGetAttribute(&mbase, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, va + 3 * MiB));
    CHECK_OK(cuPointerGetAttribute(&msize, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, va + 3 * MiB));
    CHECK((CUdeviceptr)(uintptr_t)mbase == va + 2 * MiB && msize == 2 * MiB);

    /* the handle behind an address */
    CUmemGenericAllocationHandle hr = 0;
    CHECK_OK(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(va + 2 * MiB + 5)));
    CHECK(hr == h2);
    CHECK_OK(cuMemRelease(hr));
    CUmemAllocationProp got;
    CHECK_OK(cuMemGetAllocationPropertiesFromHandle(&got, h1));
    CHECK(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.id == 0);

    /* share piece 2 through a POSIX fd and map it a second time */
    int fd = -1;
    CHECK_OK(cuMemExportToShareableHandle(&fd, h2, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(fd >= 0);
    CHECK_RES(cuMemExportToShareableHandle(&fd, h2, CU_MEM_HANDLE_TYPE_FABRIC, 0),
              CUDA_ERROR_NOT_SUPPORTED);
    CUmemGenericAllocationHandle himp = 0;
    CUdeviceptr va2 = 0;
    CHECK_OK(cuMemImportFromShareableHandle(&himp, (void *)(uintptr_t)fd,
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CHECK_OK(cuMemAddressReserve(&va2, 2 * MiB, 0, 0, 0));
    CHECK_OK(cuMemMap(va2, 2 * MiB, 0, himp, 0));
    CHECK_OK(cuMemSetAccess(va2, 2 * MiB, &acc, 1));
    CHECK_OK(cuMemcpyDtoH(back, va2, 2 * MiB));
    /* the same pages (the first 8 bytes were set to 0xCAFEF00D above) */
    CHECK(memcmp(back + 8, src + 2 * MiB + 8, 2 * MiB - 8) == 0);
    CHECK(memcmp(back, words + 2, 8) == 0);
    CHECK_OK(cuMemsetD8(va2 + 100, 0x5A, 1));              /* seen through both */
    unsigned char one = 0;
    CHECK_OK(cuMemcpyDtoH(&one, va + 2 * MiB + 100, 1));
    CHECK(one == 0x5A);
    CHECK_OK(cuMemUnmap(va2, 2 * MiB));
    CHECK_OK(cuMemRelease(himp));
    CHECK_OK(cuMemAddressFree(va2, 2 * MiB));
    close(fd);

    /* releasing a mapped handle keeps its memory until unmapped */
    CHECK_OK(cuMemRelease(h1));
    CHECK_RES(cuMemRelease(h1), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuMemcpyDtoH(back, va, 16));
    CHECK(memcmp(back, src, 16) == 0);

    /* unmap the second piece: the first stays usable */
    CHECK_RES(cuMemUnmap(va + 2 * MiB, MiB), CUDA_ERROR_INVALID_VALUE);  /* part of a piece */
    CHECK_OK(cuMemUnmap(va + 2 * MiB, 2 * MiB));
    CHECK_RES(cuMemcpyHtoD(va + 2 * MiB, src, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemcpyHtoD(va + 2 * MiB - 8, src, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuMemcpyHtoD(va + 2 * MiB - 8, src, 8));
    CHECK_OK(cuMemGetAddressRange(&rbase, &rsize, va));
    CHECK(rbase == va && rsize == 2 * MiB);
    CHECK_OK(cuMemUnmap(va, 2 * MiB));
    CHECK_RES(cuMemcpyHtoD(va, src, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemUnmap(va, 2 * MiB), CUDA_ERROR_INVALID_VALUE);    /* nothing there */
    CHECK_OK(cuMemRelease(h2));
    CHECK_OK(cuMemGetInfo(&free1, &total));
    CHECK(free1 == free0);   /* all physical memory returned */

    CHECK_RES(cuMemAddressFree(va, 32 * MiB), CUDA_ERROR_INVALID_VALUE);  /* wrong size */
    CHECK_OK(cuMemAddressFree(va, 64 * MiB));
    CHECK_RES(cuMemAddressFree(va, 64 * MiB), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemMap(va, 2 * MiB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);   /* released */
    free(src); free(back);
    TEST_DONE();
}

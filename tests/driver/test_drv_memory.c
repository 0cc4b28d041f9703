/*
 * test_drv_memory.c - allocation, copies and sets checked byte for byte
 * against host references, pinned/registered/managed memory, address
 * ranges, pointer attributes, memory info, and bad pointers (the process
 * must get an error, never a fault).
 */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>

#define N (1 << 20)

int main(void)
{
    CUcontext ctx;
    REQUIRE_OK(drv_setup(&ctx));
    unsigned char *h = malloc(N), *back = malloc(N), *ref = malloc(N);
    if (!h || !back || !ref)
        return 1;
    drv_fill(h, N, 1);

    CUdeviceptr a = 0, b = 0;
    CHECK_RES(cuMemAlloc(&a, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemAlloc(NULL, 64), CUDA_ERROR_INVALID_VALUE);
    REQUIRE_OK(cuMemAlloc(&a, N));
    REQUIRE_OK(cuMemAlloc(&b, N));
    CHECK(a % 256 == 0 && b % 256 == 0);

    /* H2D, D2H, D2D */
    CHECK_OK(cuMemcpyHtoD(a, h, N));
    memset(back, 0, N);
    CHECK_OK(cuMemcpyDtoH(back, a, N));
    CHECK(memcmp(back, h, N) == 0);
    CHECK_OK(cuMemcpyDtoD(b, a + 100, N - 100));
    memset(back, 0, N);
    CHECK_OK(cuMemcpyDtoH(back, b, N - 100));
    CHECK(memcmp(back, h + 100, N - 100) == 0);
    /* generic cuMemcpy (unified addressing) in both directions */
    CHECK_OK(cuMemcpy(b, (CUdeviceptr)(uintptr_t)h, 4096));
    CHECK_OK(cuMemcpy((CUdeviceptr)(uintptr_t)back, b, 4096));
    CHECK(memcmp(back, h, 4096) == 0);

    /* sets: D8/D16/D32 on sub-ranges, against a host model */
    memcpy(ref, h, N);
    CHECK_OK(cuMemcpyHtoD(a, h, N));
    CHECK_OK(cuMemsetD8(a + 3, 0xAB, 1000));
    memset(ref + 3, 0xAB, 1000);
    CHECK_OK(cuMemsetD16(a + 2048, 0x1234, 333));
    for (int i = 0; i < 333; i++) { uint16_t v = 0x1234; memcpy(ref + 2048 + 2 * i, &v, 2); }
    CHECK_OK(cuMemsetD32(a + 8192, 0xDEADBEEFu, 70000));
    for (int i = 0; i < 70000; i++) { uint32_t v = 0xDEADBEEFu; memcpy(ref + 8192 + 4 * i, &v, 4); }
    CHECK_OK(cuMemsetD32(a + 4096, 0x07070707u, 10));   /* uniform bytes */
    memset(ref + 4096, 7, 40);
    CHECK_OK(cuMemcpyDtoH(back, a, N));
    CHECK(memcmp(back, ref, N) == 0);
    CHECK_RES(cuMemsetD16(a + 1, 1, 4), CUDA_ERROR_INVALID_VALUE);   /* misaligned */
    CHECK_RES(cuMemsetD32(a + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemsetD8(a + N - 4, 1, 8), CUDA_ERROR_INVALID_VALUE); /* runs off the end */

    /* 2D: a 37 x 21 block with pitches */
    const size_t W = 37, H = 21, sp = 50, dp = 64;
    CUDA_MEMCPY2D c2;
    memset(&c2, 0, sizeof c2);
    c2.srcMemoryType = CU_MEMORYTYPE_HOST; c2.srcHost = h; c2.srcPitch = sp;
    c2.srcXInBytes = 5; c2.srcY = 2;
    c2.dstMemoryType = CU_MEMORYTYPE_DEVICE; c2.dstDevice = b; c2.dstPitch = dp;
    c2.WidthInBytes = W; c2.Height = H;
    CHECK_OK(cuMemsetD8(b, 0, dp * H));
    CHECK_OK(cuMemcpy2D(&c2));
    CHECK_OK(cuMemcpyDtoH(back, b, dp * H));
    int bad2d = 0;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < dp; x++) {
            unsigned char want = x < W ? h[(y + 2) * sp + 5 + x] : 0;
            bad2d += back[y * dp + x] != want;
        }
    CHECK(bad2d == 0);
    c2.srcPitch = 10;   /* pitch < width */
    CHECK_RES(cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);
    c2.srcPitch = sp;
    c2.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    CHECK_RES(cuMemcpy2D(&c2), CUDA_ERROR_NOT_SUPPORTED);
    /* 2D set, 32-bit pattern */
    CHECK_OK(cuMemsetD8(b, 0, dp * H));
    CHECK_OK(cuMemsetD2D32(b, dp, 0x01020304u, 5, H));
    CHECK_OK(cuMemcpyDtoH(back, b, dp * H));
    bad2d = 0;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < dp; x++) {
            unsigned char want = x < 20 ? (unsigned char)(4 - x % 4) : 0;
            bad2d += back[y * dp + x] != want;
        }
    CHECK(bad2d == 0);

    /* unified memory type: the address says which side it is */
    c2.srcMemoryType = CU_MEMORYTYPE_UNIFIED; c2.srcDevice = b; c2.srcPitch = dp;
    c2.srcXInBytes = 0; c2.srcY = 0;
    c2.dstMemoryType = CU_MEMORYTYPE_UNIFIED; c2.dstDevice = (CUdeviceptr)(uintptr_t)ref;
    c2.dstPitch = 24; c2.dstXInBytes = 0; c2.dstY = 0;
    c2.WidthInBytes = 20; c2.Height = H;
    CHECK_OK(cuMemcpy2D(&c2));
    bad2d = 0;
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < 20; x++)
            bad2d += ref[y * 24 + x] != back[y * dp + x];
    CHECK(bad2d == 0);

    /* 3D: a 16 x 5 x 3 box out of a host volume into a device volume */
    {
        const size_t X = 16, Y = 5, Z = 3, hp = 40, hh = 9, dpch = 64, dh = 6;
        CUDA_MEMCPY3D c3;
        memset(&c3, 0, sizeof c3);
        c3.srcMemoryType = CU_MEMORYTYPE_HOST; c3.srcHost = h; c3.srcPitch = hp; c3.srcHeight = hh;
        c3.srcXInBytes = 3; c3.srcY = 1; c3.srcZ = 2;
        c3.dstMemoryType = CU_MEMORYTYPE_DEVICE; c3.dstDevice = b; c3.dstPitch = dpch;
        c3.dstHeight = dh;
        c3.WidthInBytes = X; c3.Height = Y; c3.Depth = Z;
        CHECK_OK(cuMemsetD8(b, 0, dpch * dh * Z));
        CHECK_OK(cuMemcpy3D(&c3));
        CHECK_OK(cuMemcpyDtoH(back, b, dpch * dh * Z));
        int bad3d = 0;
        for (size_t z = 0; z < Z; z++)
            for (size_t y = 0; y < dh; y++)
                for (size_t x = 0; x < dpch; x++) {
                    unsigned char want = (x < X && y < Y)
                        ? h[(z + 2) * hh * hp + (y + 1) * hp + 3 + x] : 0;
                    bad3d += back[z * dh * dpch + y * dpch + x] != want;
                }
        CHECK(bad3d == 0);
        c3.dstHeight = 2;   /* height < Height with Depth > 1 */
        CHECK_RES(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
    }

    /* async forms on a stream, then synchronise */
    CUstream s;
    REQUIRE_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    drv_fill(ref, N, 2);
    CHECK_OK(cuMemcpyHtoDAsync(a, ref, N, s));
    CHECK_OK(cuMemsetD32Async(a + 16, 0x11223344u, 4, s));
    for (int i = 0; i < 4; i++) { uint32_t v = 0x11223344u; memcpy(ref + 16 + 4 * i, &v, 4); }
    CHECK_OK(cuMemcpyDtoDAsync(b, a, N, s));
    CHECK_OK(cuMemcpyDtoHAsync(back, b, N, s));
    CHECK_OK(cuStreamSynchronize(s));
    CHECK(memcmp(back, ref, N) == 0);
    CHECK_OK(cuStreamDestroy(s));

    /* pitched allocation */
    CUdeviceptr pp = 0;
    size_t pitch = 0;
    CHECK_OK(cuMemAllocPitch(&pp, &pitch, 100, 7, 4));
    CHECK(pitch >= 100 && pitch % 32 == 0);
    CHECK_RES(cuMemAllocPitch(&pp, &pitch, 100, 7, 3), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuMemsetD2D8(pp, pitch, 9, 100, 7));
    CHECK_OK(cuMemFree(pp));

    /* pinned host memory */
    void *ph = NULL, *ph2 = NULL;
    CUdeviceptr dph = 0;
    CHECK_OK(cuMemAllocHost(&ph, 4096));
    CHECK_OK(cuMemHostGetDevicePointer(&dph, ph, 0));
    CHECK(dph == (CUdeviceptr)(uintptr_t)ph);
    CHECK_RES(cuMemHostGetDevicePointer(&dph, ph, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuMemHostAlloc(&ph2, 4096, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    unsigned hf = 0;
    CHECK_OK(cuMemHostGetFlags(&hf, ph2));
    CHECK(hf & CU_MEMHOSTALLOC_DEVICEMAP);
    CHECK_RES(cuMemHostAlloc(&ph2, 4096, 0x80), CUDA_ERROR_INVALID_VALUE);
    unsigned mt = 0;
    CHECK_OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ph));
    CHECK(mt == CU_MEMORYTYPE_HOST);
    memcpy(ph, h, 4096);
    CHECK_OK(cuMemcpyHtoD(a, ph, 4096));
    CHECK_OK(cuMemcpyDtoH(back, a, 4096));
    CHECK(memcmp(back, h, 4096) == 0);
    CHECK_OK(cuMemFreeHost(ph));
    CHECK_OK(cuMemFreeHost(ph2));
    CHECK_RES(cuMemFreeHost(ph), CUDA_ERROR_INVALID_VALUE);   /* twice */

    /* registered host memory */
    unsigned char *user = malloc(8192);
    CHECK_RES(cuMemHostUnregister(user), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK_OK(cuMemHostRegister(user, 8192, CU_MEMHOSTREGISTER_DEVICEMAP));
    CHECK_RES(cuMemHostRegister(user, 8192, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK_RES(cuMemHostRegister(user + 100, 10, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK_OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)(user + 5)));
    CHECK(mt == CU_MEMORYTYPE_HOST);
    CHECK_OK(cuMemHostGetDevicePointer(&dph, user + 16, 0));
    CHECK(dph == (CUdeviceptr)(uintptr_t)(user + 16));
    CHECK_OK(cuMemHostUnregister(user));
    CHECK_RES(cuMemHostUnregister(user), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK_RES(cuMemHostRegister(NULL, 8192, 0), CUDA_ERROR_INVALID_VALUE);
    free(user);

    /* managed memory is usable from the host directly */
    CUdeviceptr m = 0;
    CHECK_OK(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
    CHECK_RES(cuMemAllocManaged(&m, 4096, 0), CUDA_ERROR_INVALID_VALUE);
    memcpy((void *)(uintptr_t)m, h, 4096);
    CHECK_OK(cuMemcpyDtoH(back, m, 4096));
    CHECK(memcmp(back, h, 4096) == 0);
    int managed = 0;
    CHECK_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
    CHECK(managed == 1);
    CHECK_OK(cuMemFree(m));

    /* address ranges and pointer attributes of device memory */
    CUdeviceptr base = 0;
    size_t size = 0;
    CHECK_OK(cuMemGetAddressRange(&base, &size, a + 12345));
    CHECK(base == a && size == N);
    CHECK_OK(cuMemGetAddressRange(NULL, &size, a));
    CHECK_RES(cuMemGetAddressRange(&base, &size, (CUdeviceptr)(uintptr_t)&size), CUDA_ERROR_NOT_FOUND);
    CHECK_OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a + 1));
    CHECK(mt == CU_MEMORYTYPE_DEVICE);
    CUcontext pc = NULL;
    CHECK_OK(cuPointerGetAttribute(&pc, CU_POINTER_ATTRIBUTE_CONTEXT, a));
    CHECK(pc == ctx);
    int ord = -1;
    CHECK_OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a));
    CHECK(ord == 0);
    CUdeviceptr start = 0, devp = 0;
    CHECK_OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 77));
    CHECK(start == a);
    CHECK_OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 77));
    CHECK(size == N);
    CHECK_OK(cuPointerGetAttribute(&devp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, a + 77));
    CHECK(devp == a + 77);
    CHECK_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, a));
    CHECK(managed == 0);
    void *hp = NULL;
    CHECK_RES(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, a), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h),
              CUDA_ERROR_INVALID_VALUE);   /* plain malloc memory is not CUDA's */
    CHECK_RES(cuPointerGetAttribute(&mt, (CUpointer_attribute)999, a), CUDA_ERROR_INVALID_VALUE);
    /* the plural form gives "nothing" values for unknown pointers */
    CUpointer_attribute attrs[3] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                     CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
    unsigned mt2 = 77;
    CUcontext pc2 = (CUcontext)0x5;
    int ord2 = 5;
    void *data[3] = { &mt2, &pc2, &ord2 };
    CHECK_OK(cuPointerGetAttributes(3, attrs, data, (CUdeviceptr)(uintptr_t)h));
    CHECK(mt2 == 0 && pc2 == NULL);
    CHECK_OK(cuPointerGetAttributes(3, attrs, data, b + 8));
    CHECK(mt2 == CU_MEMORYTYPE_DEVICE && pc2 == ctx && ord2 == 0);

    /* memory info sees allocations */
    size_t free0 = 0, total = 0, free1 = 0;
    CHECK_OK(cuMemGetInfo(&free0, &total));
    CHECK(free0 <= total && total > 0);
    CUdeviceptr big = 0;
    CHECK_OK(cuMemAlloc(&big, 64 << 20));
    CHECK_OK(cuMemGetInfo(&free1, &total));
    CHECK(free0 - free1 >= (64u << 20));
    CHECK_OK(cuMemFree(big));

    /* bad pointers: errors, and the process lives on */
    int stack_var = 0;
    CHECK_RES(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)&stack_var, h, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemcpyDtoH(back, (CUdeviceptr)(uintptr_t)&stack_var, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemcpyHtoD(a + N - 8, h, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemcpyDtoD(a, b + 8, N), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemcpyHtoD(0x10, h, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemcpyHtoD(a, NULL, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemsetD8(0xdead0000, 0, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemFree((CUdeviceptr)(uintptr_t)&stack_var), CUDA_ERROR_INVALID_VALUE);
    CHECK_RES(cuMemFree(a + 16), CUDA_ERROR_INVALID_VALUE);   /* not the base */
    CHECK_RES(cuMemcpyHtoDAsync(a, h, 4, (CUstream)&stack_var), CUDA_ERROR_INVALID_HANDLE);
    CHECK_OK(cuMemFree(a));
    CHECK_RES(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);        /* twice */
    CHECK_RES(cuMemcpyHtoD(b + N, h, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_OK(cuMemFree(b));
    CHECK_RES(cuMemsetD32(b, 0, 1), CUDA_ERROR_INVALID_VALUE); /* freed */
    CHECK_OK(cuMemcpyHtoD(b, h, 0));   /* zero bytes: nothing to check */

    free(h); free(back); free(ref);
    TEST_DONE();
}

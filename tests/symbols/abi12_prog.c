/*
 * abi12_prog.c - a CUDA 12 program (built against the 12.x headers) run
 * under LD_PRELOAD=libtorchfl.so: its calls must bind to the
 * @libcudart.so.12 ABI and get 12.x structures.
 *
 * cudaGetDeviceProperties (-> cudaGetDeviceProperties_v2 in the 12.x
 * header) is called into a struct pre-filled with a byte pattern, then its
 * fields, read at the 12.x offsets this file was compiled with, are checked
 * for sanity and against the same device's properties read through the
 * 13.x ABI (abi13_props.c, compiled against the 13.x headers).
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#if CUDART_VERSION < 12000 || CUDART_VERSION >= 13000
#error "abi12_prog.c must be compiled against the CUDA 12.x headers"
#endif

/* abi13_props.c */
int abi13_props(int dev, char *name, size_t namelen, size_t *mem, int *major,
                int *minor, int *mpc, int *warp);

static int failures;
#define CHECK(c) do { if (!(c)) { printf("%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

int main(void)
{
    int n = -1;
    CHECK(cudaGetDeviceCount(&n) == cudaSuccess);
    CHECK(n >= 1);

    void *p = NULL;
    CHECK(cudaMalloc(&p, 1 << 20) == cudaSuccess);
    CHECK(p != NULL);
    if (p)
        CHECK(cudaFree(p) == cudaSuccess);

    struct cudaDeviceProp prop;
    memset(&prop, 0xA5, sizeof prop);
    CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    size_t len = strnlen(prop.name, sizeof prop.name);
    CHECK(len > 0 && len < sizeof prop.name);
    int printable = 1;
    for (size_t i = 0; i < len && i < sizeof prop.name; i++)
        printable &= prop.name[i] >= 0x20 && prop.name[i] < 0x7f;
    CHECK(printable);
    CHECK(prop.totalGlobalMem >= ((size_t)1 << 20));
    CHECK(prop.totalGlobalMem <= ((size_t)1 << 50));
    CHECK(prop.major >= 1 && prop.major <= 20);
    CHECK(prop.minor >= 0 && prop.minor <= 9);
    CHECK(prop.multiProcessorCount >= 1 && prop.multiProcessorCount <= 100000);
    CHECK(prop.warpSize == 32);
    CHECK(prop.maxThreadsPerBlock >= 32 && prop.maxThreadsPerBlock <= 4096);
    CHECK(prop.maxThreadsPerMultiProcessor >= prop.maxThreadsPerBlock);

    char name13[256];
    size_t mem13 = 0;
    int major13 = -1, minor13 = -1, mpc13 = -1, warp13 = -1;
    CHECK(abi13_props(0, name13, sizeof name13, &mem13, &major13, &minor13,
                      &mpc13, &warp13) == 0);
    CHECK(strncmp(prop.name, name13, sizeof name13) == 0);
    CHECK(prop.totalGlobalMem == mem13);
    CHECK(prop.major == major13 && prop.minor == minor13);
    CHECK(prop.multiProcessorCount == mpc13);
    CHECK(prop.warpSize == warp13);

    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok: %s, %zu MiB, sm_%d%d, %d SMs\n", prop.name,
           prop.totalGlobalMem >> 20, prop.major, prop.minor,
           prop.multiProcessorCount);
    return 0;
}

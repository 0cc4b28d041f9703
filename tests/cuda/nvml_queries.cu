// nvml_queries.cu - NVML as torch.cuda.device_count() uses it: loaded by
// SONAME with dlopen (torchfl's alias answers), answers from the device
// model, errors for bad input.
#include "check.h"
#include <dlfcn.h>
#include <string.h>

typedef int (*fn_v)(void);
typedef int (*fn_count)(unsigned *);
typedef int (*fn_handle)(unsigned, void **);
typedef int (*fn_str)(void *, char *, unsigned);
struct mem { unsigned long long total, free, used; };
typedef int (*fn_mem)(void *, struct mem *);

int main()
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    CHECK(h != NULL);
    if (!h) TEST_DONE();
    fn_v init = (fn_v)dlsym(h, "nvmlInit_v2"), shut = (fn_v)dlsym(h, "nvmlShutdown");
    fn_count count = (fn_count)dlsym(h, "nvmlDeviceGetCount_v2");
    fn_handle handle = (fn_handle)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    fn_str name = (fn_str)dlsym(h, "nvmlDeviceGetName"), uuid = (fn_str)dlsym(h, "nvmlDeviceGetUUID");
    fn_mem meminfo = (fn_mem)dlsym(h, "nvmlDeviceGetMemoryInfo");
    CHECK(init && shut && count && handle && name && uuid && meminfo);
    unsigned n = 99;
    CHECK(count(&n) == 1);                 // NVML_ERROR_UNINITIALIZED before init
    CHECK(init() == 0);
    CHECK(count(&n) == 0 && n >= 1);
    int cn = 0;
    CHECK_OK(cudaGetDeviceCount(&cn));
    CHECK((int)n == cn);                   // no CUDA_VISIBLE_DEVICES here
    void *d = NULL;
    CHECK(handle(0, &d) == 0 && d != NULL);
    CHECK(handle(n, &d) == 2);             // NVML_ERROR_INVALID_ARGUMENT
    char buf[96];
    CHECK(name(d, buf, sizeof buf) == 0);
    cudaDeviceProp p;
    CHECK_OK(cudaGetDeviceProperties(&p, 0));
    CHECK(strcmp(buf, p.name) == 0);
    CHECK(name(d, buf, 3) == 7);           // NVML_ERROR_INSUFFICIENT_SIZE
    CHECK(uuid(d, buf, sizeof buf) == 0 && strncmp(buf, "GPU-", 4) == 0);
    CHECK(uuid((void *)0x10, buf, sizeof buf) == 2);   // bad handle
    struct mem m;
    void *x = NULL;
    CHECK_OK(cudaMalloc(&x, 8 << 20));
    CHECK(meminfo(d, &m) == 0);
    CHECK(m.total == p.totalGlobalMem && m.used >= (8u << 20) && m.free + m.used == m.total);
    CHECK_OK(cudaFree(x));
    CHECK(shut() == 0);
    CHECK(count(&n) == 1);                 // uninitialized again
    TEST_DONE();
}

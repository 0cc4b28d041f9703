/*
 * alias_load.c - under LD_PRELOAD=libtorchfl.so, dlopen("libcuda.so.1")
 * and dlopen("libnvidia-ml.so.1") (what PyTorch does) find torchfl's SONAME
 * aliases, and the entry points looked up through those handles are
 * libtorchfl.so's.  This machine has no NVIDIA driver, so without the
 * aliases both dlopen calls would fail.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *soname, const char *sym)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen(%s): %s\n", soname, dlerror());
        failures++;
        return;
    }
    void *f = dlsym(h, sym);
    Dl_info info;
    if (!f || !dladdr(f, &info) || !info.dli_fname) {
        printf("dlsym(%s, %s) failed\n", soname, sym);
        failures++;
    } else if (!strstr(info.dli_fname, "libtorchfl.so")) {
        printf("%s from %s is defined in %s, not libtorchfl.so\n", sym,
               soname, info.dli_fname);
        failures++;
    }
    dlclose(h);
}

int main(void)
{
    check("libcuda.so.1", "cuInit");
    check("libcuda.so.1", "cuDevicePrimaryCtxGetState");
    check("libnvidia-ml.so.1", "nvmlInit_v2");
    check("libnvidia-ml.so.1", "nvmlDeviceGetCount_v2");
    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}

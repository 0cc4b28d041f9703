/*
 * probe_nvidia.c - a real NVIDIA driver (libcuda.so.1) and NVML.
 *
 * Only the stable C entry points whose signatures have not changed since
 * CUDA 4 are called: cuInit, cuDriverGetVersion, cuDeviceGetCount,
 * cuDeviceGet, cuDeviceGetName, cuDeviceTotalMem_v2; nvmlInit_v2 and
 * nvmlSystemGetDriverVersion for the driver's own version string.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char *const cuda_paths[] = {
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1",
    "/usr/lib/libcuda.so.1",
    "/usr/lib/wsl/lib/libcuda.so.1",
    "/usr/local/nvidia/lib64/libcuda.so.1",
    NULL
};
static const char *const nvml_paths[] = {
    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
    "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1",
    "/usr/lib64/libnvidia-ml.so.1",
    "/usr/lib/libnvidia-ml.so.1",
    "/usr/lib/wsl/lib/libnvidia-ml.so.1",
    "/usr/local/nvidia/lib64/libnvidia-ml.so.1",
    NULL
};

static void nvml_version(cli_probe *p)
{
    cli_probe tmp;
    memset(&tmp, 0, sizeof tmp);
    void *h = probe_dlopen("libnvidia-ml.so.1", nvml_paths, "nvmlInit_v2", &tmp);
    if (!h)
        return;
    int (*init)(void) = NULL, (*shutdown)(void) = NULL;
    int (*ver)(char *, unsigned) = NULL;
    PROBE_SYM(h, init, "nvmlInit_v2");
    PROBE_SYM(h, shutdown, "nvmlShutdown");
    PROBE_SYM(h, ver, "nvmlSystemGetDriverVersion");
    char v[96] = "";
    if (init && ver && init() == 0) {
        if (ver(v, sizeof v) == 0 && v[0]) {
            size_t n = strlen(p->version);
            snprintf(p->version + n, sizeof p->version - n, "%sdriver %s",
                     n ? ", " : "", v);
        }
        if (shutdown)
            shutdown();
    }
    dlclose(h);
}

void probe_nvidia(cli_probe *p)
{
    void *h = probe_dlopen("libcuda.so.1", cuda_paths, "cuInit", p);
    if (!h)
        return;
    int (*cu_init)(unsigned) = NULL, (*drv_ver)(int *) = NULL;
    int (*count)(int *) = NULL, (*get)(int *, int) = NULL;
    int (*name)(char *, int, int) = NULL, (*mem)(size_t *, int) = NULL;
    PROBE_SYM(h, cu_init, "cuInit");
    PROBE_SYM(h, drv_ver, "cuDriverGetVersion");
    PROBE_SYM(h, count, "cuDeviceGetCount");
    PROBE_SYM(h, get, "cuDeviceGet");
    PROBE_SYM(h, name, "cuDeviceGetName");
    PROBE_SYM(h, mem, "cuDeviceTotalMem_v2");
    int v = 0;
    if (drv_ver && drv_ver(&v) == 0 && v > 0)
        snprintf(p->version, sizeof p->version, "CUDA %d.%d", v / 1000,
                 (v % 1000) / 10);
    int r = cu_init ? cu_init(0) : -1;
    if (r != 0) {
        snprintf(p->note, sizeof p->note, "cuInit failed (CUresult %d)", r);
    } else if (count && count(&p->devices) == 0) {
        for (int i = 0; i < p->devices && i < CLI_MAX_CHIPS; i++) {
            cli_chip *c = &p->chips[p->nchips++];
            int dev = i;
            if (get)
                get(&dev, i);
            if (!name || name(c->name, (int)sizeof c->name, dev) != 0)
                snprintf(c->name, sizeof c->name, "NVIDIA device %d", i);
            size_t m = 0;
            if (mem && mem(&m, dev) == 0)
                c->memory = m;
        }
    }
    nvml_version(p);
    /* the driver stays loaded: unloading a CUDA driver is not supported */
}

/*
 * probe_vendor.c - AMD ROCm, Huawei Ascend, Cambricon and Moore Threads.
 *
 * Each runtime is dlopen'ed; if it loads, its version and device count are
 * asked through long-stable C entry points.  None of these chips exists on
 * the machines torchfl is tested on, so every call is guarded and a
 * missing symbol only leaves a field unknown.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* AMD: libamdhip64.so (HIP runtime). */
void probe_rocm(cli_probe *p)
{
    static const char *const alt[] = { "/opt/rocm/lib/libamdhip64.so", NULL };
    void *h = probe_dlopen("libamdhip64.so", alt, "hipGetDeviceCount", p);
    if (!h)
        return;
    int (*rt_ver)(int *) = NULL, (*count)(int *) = NULL;
    int (*name)(char *, int, int) = NULL, (*mem)(size_t *, int) = NULL;
    PROBE_SYM(h, rt_ver, "hipRuntimeGetVersion");
    PROBE_SYM(h, count, "hipGetDeviceCount");
    PROBE_SYM(h, name, "hipDeviceGetName");
    PROBE_SYM(h, mem, "hipDeviceTotalMem");
    int v = 0;
    if (rt_ver && rt_ver(&v) == 0 && v > 0) /* major*10^7 + minor*10^5 + patch */
        snprintf(p->version, sizeof p->version, "HIP %d.%d.%d", v / 10000000,
                 (v / 100000) % 100, v % 100000);
    if (count && count(&p->devices) == 0) {
        for (int i = 0; i < p->devices && i < CLI_MAX_CHIPS; i++) {
            cli_chip *c = &p->chips[p->nchips++];
            if (!name || name(c->name, (int)sizeof c->name, i) != 0)
                snprintf(c->name, sizeof c->name, "AMD GPU %d", i);
            size_t m = 0;
            if (mem && mem(&m, i) == 0)
                c->memory = m;
        }
    } else {
        snprintf(p->note, sizeof p->note, "hipGetDeviceCount failed");
    }
}

/* Huawei: libascendcl.so (CANN AscendCL). */
void probe_ascend(cli_probe *p)
{
    static const char *const alt[] = {
        "/usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so", NULL };
    void *h = probe_dlopen("libascendcl.so", alt, "aclrtGetDeviceCount", p);
    if (!h)
        return;
    int (*init)(const char *) = NULL;
    int (*count)(uint32_t *) = NULL;
    int (*ver)(int32_t *, int32_t *, int32_t *) = NULL;
    PROBE_SYM(h, init, "aclInit");
    PROBE_SYM(h, count, "aclrtGetDeviceCount");
    PROBE_SYM(h, ver, "aclrtGetVersion");
    if (init)
        init(NULL); /* needed before any query; "already" is fine */
    int32_t a = 0, b = 0, c = 0;
    if (ver && ver(&a, &b, &c) == 0)
        snprintf(p->version, sizeof p->version, "AscendCL %d.%d.%d", a, b, c);
    uint32_t n = 0;
    if (count && count(&n) == 0) {
        p->devices = (int)n;
        for (uint32_t i = 0; i < n && i < CLI_MAX_CHIPS; i++)
            snprintf(p->chips[p->nchips++].name, sizeof p->chips[0].name,
                     "Ascend NPU %u", i);
    } else {
        snprintf(p->note, sizeof p->note, "aclrtGetDeviceCount failed");
    }
}

/* Cambricon: libcnrt.so (CNRT). */
void probe_cambricon(cli_probe *p)
{
    static const char *const alt[] = { "/usr/local/neuware/lib64/libcnrt.so", NULL };
    void *h = probe_dlopen("libcnrt.so", alt, "cnrtGetDeviceCount", p);
    if (!h)
        return;
    int (*count)(unsigned *) = NULL;
    int (*ver)(int *, int *, int *) = NULL;
    PROBE_SYM(h, count, "cnrtGetDeviceCount");
    PROBE_SYM(h, ver, "cnrtGetLibVersion");
    int a = 0, b = 0, c = 0;
    if (ver && ver(&a, &b, &c) == 0)
        snprintf(p->version, sizeof p->version, "CNRT %d.%d.%d", a, b, c);
    unsigned n = 0;
    if (count && count(&n) == 0) {
        p->devices = (int)n;
        for (unsigned i = 0; i < n && i < CLI_MAX_CHIPS; i++)
            snprintf(p->chips[p->nchips++].name, sizeof p->chips[0].name,
                     "Cambricon MLU %u", i);
    } else {
        snprintf(p->note, sizeof p->note, "cnrtGetDeviceCount failed");
    }
}

/* Moore Threads: libmusa.so (MUSA driver API, shaped like CUDA's). */
void probe_musa(cli_probe *p)
{
    static const char *const alt[] = { "/usr/local/musa/lib/libmusa.so", NULL };
    void *h = probe_dlopen("libmusa.so", alt, "muInit", p);
    if (!h)
        return;
    int (*init)(unsigned) = NULL, (*drv_ver)(int *) = NULL, (*count)(int *) = NULL;
    int (*name)(char *, int, int) = NULL, (*mem)(size_t *, int) = NULL;
    PROBE_SYM(h, init, "muInit");
    PROBE_SYM(h, drv_ver, "muDriverGetVersion");
    PROBE_SYM(h, count, "muDeviceGetCount");
    PROBE_SYM(h, name, "muDeviceGetName");
    PROBE_SYM(h, mem, "muDeviceTotalMem");
    int v = 0;
    if (drv_ver && drv_ver(&v) == 0 && v > 0)
        snprintf(p->version, sizeof p->version, "MUSA driver %d", v);
    if (init && init(0) == 0 && count && count(&p->devices) == 0) {
        for (int i = 0; i < p->devices && i < CLI_MAX_CHIPS; i++) {
            cli_chip *c = &p->chips[p->nchips++];
            if (!name || name(c->name, (int)sizeof c->name, i) != 0)
                snprintf(c->name, sizeof c->name, "Moore Threads GPU %d", i);
            size_t m = 0;
            if (mem && mem(&m, i) == 0)
                c->memory = m;
        }
    } else {
        snprintf(p->note, sizeof p->note, "muInit/muDeviceGetCount failed");
    }
}

/*
 * probe_opencl.c - OpenCL platforms and devices through the ICD loader.
 *
 * libOpenCL.so.1 is dlopen'ed and walked with clGetPlatformIDs,
 * clGetDeviceIDs and clGetDeviceInfo; the handful of enum values used are
 * the fixed numbers of the OpenCL 1.0 ABI, so no CL headers are needed.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef void *cl_platform_id;
typedef void *cl_device_id;

#define CL_PLATFORM_VERSION 0x0901
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFull
#define CL_DEVICE_TYPE 0x1000
#define CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_TYPE_CPU (1u << 1)
#define CL_DEVICE_TYPE_GPU (1u << 2)
#define CL_DEVICE_TYPE_ACCELERATOR (1u << 3)

static const char *type_name(cl_ulong t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    return "other";
}

void probe_opencl(cli_probe *p)
{
    void *h = probe_dlopen("libOpenCL.so.1", NULL, "clGetPlatformIDs", p);
    if (!h)
        return;
    cl_int (*get_platforms)(cl_uint, cl_platform_id *, cl_uint *) = NULL;
    cl_int (*platform_info)(cl_platform_id, cl_uint, size_t, void *, size_t *) = NULL;
    cl_int (*get_devices)(cl_platform_id, cl_ulong, cl_uint, cl_device_id *,
                          cl_uint *) = NULL;
    cl_int (*device_info)(cl_device_id, cl_uint, size_t, void *, size_t *) = NULL;
    PROBE_SYM(h, get_platforms, "clGetPlatformIDs");
    PROBE_SYM(h, platform_info, "clGetPlatformInfo");
    PROBE_SYM(h, get_devices, "clGetDeviceIDs");
    PROBE_SYM(h, device_info, "clGetDeviceInfo");
    if (!get_platforms || !platform_info || !get_devices || !device_info) {
        snprintf(p->note, sizeof p->note, "ICD loader lacks clGet* entry points");
        return;
    }
    cl_platform_id plat[16];
    cl_uint np = 0;
    cl_int r = get_platforms(16, plat, &np);
    if (r != 0 || np == 0) {
        /* -1001 = CL_PLATFORM_NOT_FOUND_KHR: a loader without any ICD */
        snprintf(p->note, sizeof p->note, "no OpenCL platform (error %d)", (int)r);
        p->devices = 0;
        return;
    }
    if (np > 16)
        np = 16;
    p->devices = 0;
    for (cl_uint i = 0; i < np; i++) {
        char pname[128] = "", pver[128] = "";
        platform_info(plat[i], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        platform_info(plat[i], CL_PLATFORM_VERSION, sizeof pver - 1, pver, NULL);
        pname[sizeof pname - 1] = pver[sizeof pver - 1] = '\0';
        size_t n = strlen(p->version);
        if (n + 4 < sizeof p->version)
            snprintf(p->version + n, sizeof p->version - n, "%s%s", n ? "; " : "",
                     pver[0] ? pver : pname);
        cl_device_id dev[CLI_MAX_CHIPS];
        cl_uint nd = 0;
        if (get_devices(plat[i], CL_DEVICE_TYPE_ALL, CLI_MAX_CHIPS, dev, &nd) != 0)
            continue;
        p->devices += (int)nd;
        for (cl_uint d = 0; d < nd && d < CLI_MAX_CHIPS && p->nchips < CLI_MAX_CHIPS; d++) {
            cli_chip *c = &p->chips[p->nchips++];
            if (device_info(dev[d], CL_DEVICE_NAME, sizeof c->name - 1, c->name, NULL) != 0)
                snprintf(c->name, sizeof c->name, "OpenCL device %u", d);
            c->name[sizeof c->name - 1] = '\0';
            cl_ulong mem = 0, type = 0;
            cl_uint cu = 0;
            if (device_info(dev[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL) == 0)
                c->memory = mem;
            device_info(dev[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            device_info(dev[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            snprintf(c->detail, sizeof c->detail, "%s, %u compute units, platform %s",
                     type_name(type), cu, pname);
        }
    }
    /* the ICD loader and its drivers stay loaded: some cannot unload */
}

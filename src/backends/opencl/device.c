/*
 * device.c - choosing the OpenCL device, and OpenCL status codes.
 *
 * Config (tfl_host_api config(), also TORCHFL_OPENCL_<KEY>):
 *   opencl.platform     auto (any), an index, or a substring of the
 *                       platform's name
 *   opencl.device       index among the chosen type's devices (default 0)
 *   opencl.device_type  auto (a GPU if any platform has one, else any
 *                       device) | gpu | cpu | accelerator | all
 * One device per process for now: CUDA sees one device.
 */
#define _GNU_SOURCE 1
#include "backends/opencl/ocl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* cl_ext.h's CL_PLATFORM_NOT_FOUND_KHR: the ICD loader's "no platform" */
#define OCL_PLATFORM_NOT_FOUND (-1001)

const tfl_host_api *ocl_host;
static ocl_device g_dev;
static int g_dev_ready;

const ocl_device *ocl_dev(void)
{
    return g_dev_ready ? &g_dev : NULL;
}

static const char *cl_code_name(cl_int rc)
{
    static const struct { cl_int rc; const char *name; } names[] = {
        { CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND" },
        { CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE" },
        { CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE" },
        { CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE" },
        { CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES" },
        { CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY" },
        { CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE" },
        { CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
          "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST" },
        { CL_INVALID_VALUE, "CL_INVALID_VALUE" },
        { CL_INVALID_DEVICE, "CL_INVALID_DEVICE" },
        { CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT" },
        { CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE" },
        { CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT" },
        { CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS" },
        { CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE" },
        { CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE" },
        { CL_INVALID_EVENT, "CL_INVALID_EVENT" },
        { CL_INVALID_OPERATION, "CL_INVALID_OPERATION" },
        { CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE" },
        { CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE" },
        { OCL_PLATFORM_NOT_FOUND, "CL_PLATFORM_NOT_FOUND_KHR" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].rc == rc)
            return names[i].name;
    return "CL error";
}

/* How each OpenCL failure reads to a CUDA program (route maps these to
 * cudaErrorMemoryAllocation, cudaErrorLaunchFailure, ...). */
tfl_status ocl_status(cl_int rc, const char *call)
{
    if (rc == CL_SUCCESS)
        return TFL_OK;
    OCL_LOG(OCL_ERROR, "opencl: %s failed: %s (%d)", call, cl_code_name(rc), (int)rc);
    switch (rc) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE:
        return TFL_ERR_NOMEM;
    case CL_OUT_OF_RESOURCES:
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return TFL_ERR_DEVICE;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case OCL_PLATFORM_NOT_FOUND:
    case CL_INVALID_DEVICE:
    case CL_INVALID_CONTEXT:
        return TFL_ERR_UNAVAILABLE;
    case CL_INVALID_VALUE:
    case CL_INVALID_MEM_OBJECT:
        return TFL_ERR_INVALID;
    default:
        return rc < 0 ? TFL_ERR_DEVICE : TFL_ERR_INTERNAL;
    }
}

static const char *cfg(const char *key)
{
    const char *v = ocl_host && ocl_host->config ? ocl_host->config(key) : NULL;
    if (!v) {
        /* probe() runs before init: read the environment directly */
        char var[96] = "TORCHFL_OPENCL_";
        size_t n = strlen(var);
        for (const char *c = strchr(key, '.') + 1; *c && n + 1 < sizeof var; c++)
            var[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        var[n] = '\0';
        v = getenv(var);
    }
    return v && *v ? v : NULL;
}

static int wanted_type(cl_device_type *t, char *why, size_t wl)
{
    const char *v = cfg("opencl.device_type");
    static const struct { const char *name; cl_device_type t; } types[] = {
        { "gpu", CL_DEVICE_TYPE_GPU }, { "cpu", CL_DEVICE_TYPE_CPU },
        { "accelerator", CL_DEVICE_TYPE_ACCELERATOR }, { "all", CL_DEVICE_TYPE_ALL },
    };
    *t = 0;   /* 0: gpu if any, else all */
    if (!v || strcasecmp(v, "auto") == 0)
        return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcasecmp(v, types[i].name) == 0) {
            *t = types[i].t;
            return 0;
        }
    snprintf(why, wl, "opencl.device_type \"%s\" is not gpu, cpu, accelerator or all", v);
    return -1;
}

/* Does platform p (index pi) match opencl.platform? */
static int platform_matches(cl_platform_id p, unsigned pi)
{
    const char *want = cfg("opencl.platform");
    if (!want || strcasecmp(want, "auto") == 0)
        return 1;
    char *end;
    long idx = strtol(want, &end, 10);
    if (*end == '\0')
        return idx == (long)pi;
    char name[256] = "";
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, NULL);
    return strcasestr(name, want) != NULL;
}

/* The n-th device of type t over the matching platforms. */
static int find_device(cl_device_type t, long n, cl_platform_id *plat, cl_device_id *dev)
{
    cl_platform_id ps[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS)
        return 0;
    long seen = 0;
    for (cl_uint i = 0; i < np && i < 16; i++) {
        if (!platform_matches(ps[i], i))
            continue;
        cl_device_id ds[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[i], t, 16, ds, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint j = 0; j < nd && j < 16; j++, seen++)
            if (seen == n) {
                *plat = ps[i];
                *dev = ds[j];
                return 1;
            }
    }
    return 0;
}

/* Pick the device the config names; 0 with why filled when none. */
int ocl_pick(cl_platform_id *plat, cl_device_id *dev, cl_device_type *type,
             char *why, size_t wl)
{
    cl_device_type t;
    if (wanted_type(&t, why, wl) != 0)
        return 0;
    long n = 0;
    const char *d = cfg("opencl.device");
    if (d) {
        char *end;
        n = strtol(d, &end, 10);
        if (*end || n < 0) {
            snprintf(why, wl, "opencl.device \"%s\" is not a device index", d);
            return 0;
        }
    }
    int ok = t ? find_device(t, n, plat, dev)
               : (find_device(CL_DEVICE_TYPE_GPU, n, plat, dev) ||
                  find_device(CL_DEVICE_TYPE_ALL, n, plat, dev));
    if (!ok) {
        cl_uint np = 0;
        clGetPlatformIDs(0, NULL, &np);
        snprintf(why, wl, np ? "no OpenCL device %ld of the configured type/platform"
                             : "no OpenCL platform (is an ICD such as pocl-opencl-icd "
                               "installed?)", n);
        return 0;
    }
    clGetDeviceInfo(*dev, CL_DEVICE_TYPE, sizeof *type, type, NULL);
    return 1;
}

static int has_ext(cl_device_id d, const char *ext)
{
    size_t n = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS || !n)
        return 0;
    char *s = malloc(n + 1);
    if (!s)
        return 0;
    int found = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, n, s, NULL) == CL_SUCCESS) {
        s[n] = '\0';
        found = strstr(s, ext) != NULL;
    }
    free(s);
    return found;
}

tfl_status ocl_device_open(void)
{
    char why[256] = "";
    ocl_device *d = &g_dev;
    if (!ocl_pick(&d->platform, &d->id, &d->type, why, sizeof why)) {
        OCL_LOG(OCL_ERROR, "opencl: %s", why);
        return TFL_ERR_UNAVAILABLE;
    }
    cl_int rc;
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
                                      (cl_context_properties)d->platform, 0 };
    d->ctx = clCreateContext(props, 1, &d->id, NULL, NULL, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateContext");
    clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
    clGetDeviceInfo(d->id, CL_DRIVER_VERSION, sizeof d->driver_version, d->driver_version,
                    NULL);
    clGetPlatformInfo(d->platform, CL_PLATFORM_NAME, sizeof d->platform_name,
                      d->platform_name, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem,
                    &d->global_mem, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units,
                    &d->compute_units, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg,
                    NULL);
    d->fp16 = has_ext(d->id, "cl_khr_fp16");
    d->fp64 = has_ext(d->id, "cl_khr_fp64");
    g_dev_ready = 1;
    OCL_LOG(OCL_INFO, "opencl: device %s (%s), %u compute units, %llu MiB%s%s", d->name,
            d->platform_name, (unsigned)d->compute_units,
            (unsigned long long)(d->global_mem >> 20), d->fp64 ? ", fp64" : "",
            d->fp16 ? ", fp16" : "");
    return TFL_OK;
}

void ocl_device_close(void)
{
    if (g_dev_ready && g_dev.ctx)
        clReleaseContext(g_dev.ctx);
    g_dev_ready = 0;
}

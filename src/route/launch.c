/*
 * launch.c - a kernel launch, from the entry points to whatever runs it.
 *
 * Checks the launch configuration as CUDA does, then runs the kernel.  The
 * semantic op table (kernel name -> native op) is consulted first by later
 * work; anything it does not map runs in the host executor, which executes
 * the kernel's own PTX.  Faults a GPU would report asynchronously and
 * stickily (illegal address, assert, trap) come back as CUDA error codes
 * the runtime makes sticky.
 */
#include "route/runtime.h"
#include "route/rt_internal.h"
#include "backends/host/hostexec.h"
#include "common/log.h"

#include <stdio.h>
#include <string.h>

/* cudaError_t values used here (numbering is CUDA's, shared with the
 * driver's CUresult for these codes). */
enum {
    E_INVALID_VALUE = 1,
    E_MEMORY_ALLOCATION = 2,
    E_INVALID_CONFIGURATION = 9,
    E_INVALID_DEVICE_FUNCTION = 98,
    E_INVALID_KERNEL_IMAGE = 200,
    E_NO_KERNEL_IMAGE = 209,
    E_INVALID_PTX = 218,
    E_ILLEGAL_ADDRESS = 700,
    E_ASSERT = 710,
    E_MISALIGNED = 716,
    E_LAUNCH_FAILURE = 719,
    E_NOT_SUPPORTED = 801
};

static int check_config(const tfl_launch *l, char *err, size_t errlen, const char *name)
{
    const unsigned *b = l->block, *g = l->grid;
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    if (!b[0] || !b[1] || !b[2] || !g[0] || !g[1] || !g[2] ||
        b[0] > 1024 || b[1] > 1024 || b[2] > 64 || threads > 1024 ||
        g[0] > 0x7fffffffu || g[1] > 65535 || g[2] > 65535) {
        snprintf(err, errlen, "launch of %s: invalid configuration grid (%u,%u,%u) "
                 "block (%u,%u,%u)", name, g[0], g[1], g[2], b[0], b[1], b[2]);
        return 0;
    }
    return 1;
}

static int hx_to_cuda(hx_status hs)
{
    switch (hs) {
    case HX_OK:                  return 0;
    case HX_ERR_NO_PTX:          return E_NO_KERNEL_IMAGE;
    case HX_ERR_BAD_IMAGE:       return E_INVALID_KERNEL_IMAGE;
    case HX_ERR_PTX:             return E_INVALID_PTX;
    case HX_ERR_UNSUPPORTED:     return E_NOT_SUPPORTED;
    case HX_ERR_NOT_FOUND:       return E_INVALID_DEVICE_FUNCTION;
    case HX_ERR_LAUNCH_CONFIG:   return E_INVALID_CONFIGURATION;
    case HX_ERR_ILLEGAL_ADDRESS: return E_ILLEGAL_ADDRESS;
    case HX_ERR_MISALIGNED:      return E_MISALIGNED;
    case HX_ERR_TRAP:            return E_LAUNCH_FAILURE;
    case HX_ERR_ASSERT:          return E_ASSERT;
    case HX_ERR_NOMEM:           return E_MEMORY_ALLOCATION;
    case HX_ERR_INVALID:         return E_INVALID_VALUE;
    }
    return E_LAUNCH_FAILURE;
}

static tfl_status status_of(int cuda_err)
{
    switch (cuda_err) {
    case 0:                         return TFL_OK;
    case E_ILLEGAL_ADDRESS: case E_ASSERT: case E_MISALIGNED:
    case E_LAUNCH_FAILURE:          return TFL_ERR_DEVICE;
    case E_MEMORY_ALLOCATION:       return TFL_ERR_NOMEM;
    case E_NOT_SUPPORTED: case E_NO_KERNEL_IMAGE: case E_INVALID_PTX:
    case E_INVALID_KERNEL_IMAGE:    return TFL_ERR_UNSUPPORTED;
    default:                        return TFL_ERR_INVALID;
    }
}

tfl_status tfl_rt_launch(tfl_kernel *k, const tfl_launch *l, int *cuda_err,
                         char *err, size_t errlen)
{
    int ce = 0;
    tfl_status st;
    if (!tfl_rt_kernel_valid(k) || !l) {
        snprintf(err, errlen, "launch of an unknown kernel handle %p", (void *)k);
        ce = E_INVALID_DEVICE_FUNCTION;
        goto out;
    }
    const char *name = tfl_rt_kernel_name(k);
    if (!tfl_rt_stream_valid(l->stream)) {
        snprintf(err, errlen, "launch of %s on an invalid stream", name);
        ce = 400; /* cudaErrorInvalidResourceHandle */
        goto out;
    }
    if (!check_config(l, err, errlen, name)) {
        ce = E_INVALID_CONFIGURATION;
        goto out;
    }
    if (l->smem > (size_t)tfl_rt_kernel_max_dynamic_smem(k)) {
        snprintf(err, errlen, "launch of %s: %zu bytes of dynamic shared memory "
                 "exceed the kernel's limit of %d (cudaFuncSetAttribute raises it)",
                 name, l->smem, tfl_rt_kernel_max_dynamic_smem(k));
        ce = E_INVALID_VALUE;
        goto out;
    }
    struct hx_module *hx = tfl_rt_module_hx(tfl_rt_kernel_module(k));
    if (!hx) {
        snprintf(err, errlen, "kernel %s: its module's fatbin is not readable, "
                 "so it cannot run on the host", name);
        ce = E_INVALID_KERNEL_IMAGE;
        goto out;
    }
    hx_launch_params p;
    memcpy(p.grid, l->grid, sizeof p.grid);
    memcpy(p.block, l->block, sizeof p.block);
    p.dynamic_smem = l->smem;
    p.args = l->args;
    p.arg_buffer = l->arg_buffer;
    p.arg_buffer_size = l->arg_buffer_size;
    ce = hx_to_cuda(hx_launch(hx, name, &p, err, errlen));
out:
    st = status_of(ce);
    if (cuda_err)
        *cuda_err = ce;
    return st;
}

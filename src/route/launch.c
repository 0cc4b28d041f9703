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
#include "route/config.h"
#include "route/optable.h"
#include "route/stats.h"
#include "mem/hostview.h"

#include <pthread.h>
#include <stdatomic.h>

#include <stdio.h>
#include <stdlib.h>
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

static pthread_mutex_t route_lock = PTHREAD_MUTEX_INITIALIZER;

/* Why the recognised kernel must not be decoded (malloc'd line), or NULL
 * when its recorded parameter table is the layout the family reads.  A
 * PyTorch release that changes a kernel's signature lands here instead of
 * having its launches decoded as garbage. */
static char *layout_refusal(tfl_kernel *k, const tfl_kfamily *f, void *cookie,
                            const char *name)
{
    tfl_klayout want;
    want.n = 0;
    char why[320] = "", e[256] = "";
    if (!f->layout || !f->layout(cookie, &want) || want.n < 0) {
        snprintf(why, sizeof why, "the %s decoder states no parameter layout for it", f->name);
    } else {
        const tfl_config *cfg = tfl_config_get();
        unsigned arch = (unsigned)(cfg->cc_major * 10 + cfg->cc_minor);
        uint32_t sizes[TFL_KLAYOUT_MAX], offs[TFL_KLAYOUT_MAX];
        struct hx_module *hx = tfl_rt_module_hx(tfl_rt_kernel_module(k));
        int n = hx ? hx_kernel_abi(hx, name, arch, sizes, offs, TFL_KLAYOUT_MAX, e, sizeof e)
                   : -1;
        if (n < 0)
            snprintf(why, sizeof why, "its parameter table cannot be read (%s)",
                     e[0] ? e : "no image");
        else if (n > TFL_KLAYOUT_MAX)
            snprintf(why, sizeof why, "it has %d parameters, the decoder reads %d", n, want.n);
        else if (tfl_klayout_equal(&want, n, sizes, offs, e, sizeof e))
            return NULL;
        else
            snprintf(why, sizeof why, "its parameters differ from the layout the %s decoder "
                     "was validated for: %s", f->name, e);
    }
    char *line = malloc(strlen(why) + 64);
    if (line)
        sprintf(line, "recognised by the op table but not decoded: %s", why);
    return line;
}

/* Find (once per kernel) which family runs it and its statistics slots. */
static tfl_kernel_route *route_of(tfl_kernel *k)
{
    tfl_kernel_route *r = tfl_rt_kernel_route(k);
    /* Every launch comes here: after the first, no lock is taken. */
    if (atomic_load_explicit(&r->resolved, memory_order_acquire))
        return r;
    pthread_mutex_lock(&route_lock);
    if (!atomic_load_explicit(&r->resolved, memory_order_relaxed)) {
        const char *name = tfl_rt_kernel_name(k);
        r->family = tfl_optable_lookup(name, &r->cookie);
        if (r->family && (r->refused = layout_refusal(k, r->family, r->cookie, name))) {
            tfl_warn("kernel %s: %s", name, r->refused);
            r->family = NULL;
        }
        if (r->family) {
            const char *op = r->family->op_name ? r->family->op_name(r->cookie) : name;
            r->slot_op = tfl_stats_slot(r->family->name, op ? op : name);
        }
        r->slot_kernel = tfl_stats_slot("unmapped", name);
        atomic_store_explicit(&r->resolved, 1, memory_order_release);
    }
    pthread_mutex_unlock(&route_lock);
    return r;
}

/* Through the op table; TFL_ERR_UNSUPPORTED when the kernel (or this
 * launch of it) is not mapped or is blacklisted. */
static tfl_status run_mapped(tfl_kernel *k, tfl_kernel_route *r, const tfl_launch *l,
                             int *ce, char *err, size_t errlen)
{
    if (!r->family || !l->args)
        return TFL_ERR_UNSUPPORTED;
    const char *op = r->family->op_name ? r->family->op_name(r->cookie) : NULL;
    if (tfl_optable_blacklisted(r->family->name, op))
        return TFL_ERR_UNSUPPORTED;
    tfl_kcall call = {
        .name = tfl_rt_kernel_name(k),
        .grid = { l->grid[0], l->grid[1], l->grid[2] },
        .block = { l->block[0], l->block[1], l->block[2] },
        .smem = l->smem,
        .args = l->args,
        .stream = l->stream,
    };
    uint64_t t0 = tfl_stats_now_ns();
    tfl_stats_in_launch = 1;
    tfl_stats_launch_where = TFL_RAN_NATIVE;
    /* a decoder may read device-side tables (pointer arrays, metadata) */
    uint64_t faults0, faults1;
    tfl_hostview_stats(&faults0, NULL, NULL);
    tfl_hostview_open();
    tfl_status st = r->family->run(&call, r->cookie, err, errlen);
    tfl_status wb = tfl_hostview_close();
    /* host code touched device memory: some of the work ran on the host,
     * whether through the fallback or a decoder's own host steps (counted
     * so, even when it only read a table: the conservative side) */
    tfl_hostview_stats(&faults1, NULL, NULL);
    if (faults1 != faults0)
        tfl_stats_launch_where = TFL_RAN_HOSTEXEC;
    if (st == TFL_OK)
        st = wb;
    tfl_stats_in_launch = 0;
    if (st == TFL_ERR_UNSUPPORTED)
        return st;
    tfl_stats_add(r->slot_op, st == TFL_OK ? tfl_stats_launch_where : TFL_RAN_REFUSED,
                  tfl_stats_now_ns() - t0);
    /* Only a fault of the work itself (TFL_ERR_DEVICE from the backend:
     * an index out of range, a device error) is sticky, as on a GPU.  A
     * launch torchfl could not decode (an operand outside device memory,
     * an argument it cannot read: TFL_ERR_INVALID) fails alone, with a
     * non-sticky "no kernel image" naming the kernel, as an unmapped
     * kernel does: the program may go on. */
    if (st == TFL_OK) {
        *ce = 0;
    } else if (st == TFL_ERR_DEVICE) {
        *ce = E_ILLEGAL_ADDRESS;
    } else if (st == TFL_ERR_NOMEM) {
        *ce = E_MEMORY_ALLOCATION;
    } else {
        size_t used = strlen(err);
        if (used + 16 < errlen)
            snprintf(err + used, errlen - used, " (kernel %s)", call.name);
        *ce = E_NO_KERNEL_IMAGE;
        st = TFL_ERR_INVALID;
    }
    return st;
}

/* May this unmapped kernel run on the host executor?  Applies the
 * fallback policy (strict refuses, warn warns once per kernel). */
static int fallback_allowed(tfl_kernel_route *r, const char *name, char *err, size_t errlen)
{
    const tfl_config *cfg = tfl_config_get();
    if (cfg->fallback == TFL_FALLBACK_STRICT) {
        snprintf(err, errlen, "kernel %s is not in the op table of backend %s and "
                 "fallback mode is strict (TORCH_FL_FALLBACK_MODE)", name,
                 tfl_rt_backend_name());
        return 0;
    }
    if (cfg->fallback == TFL_FALLBACK_WARN) {
        pthread_mutex_lock(&route_lock);
        int first = !r->warned;
        r->warned = 1;
        pthread_mutex_unlock(&route_lock);
        if (first && !r->refused)   /* a refused one was reported at lookup */
            tfl_warn("kernel %s is not in the op table; running its PTX on the host "
                     "executor", name);
    }
    return 1;
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
    tfl_kernel_route *r = route_of(k);
    tfl_status mst = run_mapped(k, r, l, &ce, err, errlen);
    if (mst != TFL_ERR_UNSUPPORTED) {
        st = mst;
        if (cuda_err)
            *cuda_err = ce;
        return st;
    }
    if (!fallback_allowed(r, name, err, errlen)) {
        if (r->refused)
            snprintf(err, errlen, "kernel %s: %s", name, r->refused);
        ce = E_NOT_SUPPORTED;
        tfl_stats_add(r->slot_kernel, TFL_RAN_REFUSED, 0);
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
    uint64_t t0 = tfl_stats_now_ns();
    /* its footprint is known only as it runs: a host view window */
    tfl_hostview_open();
    ce = hx_to_cuda(hx_launch(hx, name, &p, err, errlen));
    if (tfl_hostview_close() != TFL_OK && !ce)
        ce = E_LAUNCH_FAILURE;
    if (ce == E_NO_KERNEL_IMAGE && r->refused) {
        snprintf(err, errlen, "kernel %s: %s (and it has no PTX to run instead)", name,
                 r->refused);
    } else if (ce && !strstr(err, name)) {
        /* make sure the one line names the kernel */
        char inner[512];
        snprintf(inner, sizeof inner, "%s", err);
        snprintf(err, errlen, "kernel %s: %s", name, inner);
    }
    tfl_stats_add(r->slot_kernel, ce == E_NO_KERNEL_IMAGE || ce == E_NOT_SUPPORTED ||
                  ce == E_INVALID_PTX ? TFL_RAN_REFUSED : TFL_RAN_HOSTEXEC,
                  tfl_stats_now_ns() - t0);
out:
    st = status_of(ce);
    if (cuda_err)
        *cuda_err = ce;
    return st;
}

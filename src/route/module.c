/*
 * module.c - what binaries register: modules, kernels, variables.
 *
 * Registration is the hot path of `import torch` (hundreds of fatbins,
 * tens of thousands of kernels), so it only records pointers and names;
 * the host executor reads a module's image at its first launch.  Handles
 * given out (module, kernel) are checked on every use so a stale or
 * made-up handle is an error, not a crash.
 */
#include "route/runtime.h"
#include "route/rt_internal.h"
#include "backends/host/hostexec.h"
#include "common/log.h"
#include "mem/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct tfl_module {
    UT_hash_handle hh;
    void *self;
    hx_module *hx;
    void *owned_image;          /* copy of a cuModuleLoadData image      */
    struct tfl_kernel *by_name; /* kernels looked up by name (driver)    */
};

struct tfl_kernel {
    UT_hash_handle hh;          /* in kernels (by handle)                */
    UT_hash_handle hh_host;     /* in kernels_by_host                    */
    UT_hash_handle hh_name;     /* in module->by_name                    */
    void *self;
    const void *host_fun;
    tfl_module *module;
    char *name;
    int max_dynamic_smem;
    int preferred_carveout;
    tfl_kernel_route route;
};

struct tfl_var {
    UT_hash_handle hh;          /* by host shadow                        */
    const void *host_var;
    tfl_module *module;
    char *name;
    size_t size;
    int constant, managed;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfl_module *modules;
static struct tfl_kernel *kernels, *kernels_by_host;
static struct tfl_var *vars;

static tfl_module *module_new(hx_module *hx, void *owned)
{
    tfl_module *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->hx = hx;
    m->owned_image = owned;
    m->self = m;
    pthread_mutex_lock(&lock);
    HASH_ADD_PTR(modules, self, m);
    pthread_mutex_unlock(&lock);
    return m;
}

tfl_module *tfl_rt_module_register(const void *fatbin_wrapper)
{
    hx_module *hx = hx_module_create(fatbin_wrapper, 0);
    if (!hx)
        tfl_debug("fatbin at %p is not recognised; its kernels cannot run",
                  fatbin_wrapper);
    /* Keep a module even without an image: registration must succeed so
     * the program starts; its launches will report the problem. */
    return module_new(hx, NULL);
}

tfl_status tfl_rt_module_load(const void *image, size_t size, tfl_module **out)
{
    if (!image || !out)
        return TFL_ERR_INVALID;
    /* The caller may free its image after loading: keep a copy.  PTX text
     * carries no size, so measure it (bounded by the NUL). */
    size_t n = size ? size : strlen((const char *)image) + 1;
    void *copy = malloc(n + 1);
    if (!copy)
        return TFL_ERR_NOMEM;
    memcpy(copy, image, n);
    ((char *)copy)[n] = '\0';
    hx_module *hx = hx_module_create(copy, size ? n : 0);
    if (!hx) {
        free(copy);
        return TFL_ERR_INVALID;
    }
    tfl_module *m = module_new(hx, copy);
    if (!m) {
        hx_module_destroy(hx);
        free(copy);
        return TFL_ERR_NOMEM;
    }
    *out = m;
    return TFL_OK;
}

int tfl_rt_module_valid(tfl_module *m)
{
    tfl_module *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(modules, &m, found);
    pthread_mutex_unlock(&lock);
    return found != NULL;
}

static void kernel_free(tfl_kernel *k)
{
    free(k->route.refused);
    free(k->name);
    free(k);
}

void tfl_rt_module_unregister(tfl_module *m)
{
    tfl_module *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(modules, &m, found);
    if (!found) {
        pthread_mutex_unlock(&lock);
        return;
    }
    HASH_DEL(modules, found);
    tfl_kernel *k, *tmp;
    HASH_ITER(hh, kernels, k, tmp) {
        if (k->module != m)
            continue;
        HASH_DEL(kernels, k);
        if (k->host_fun)
            HASH_DELETE(hh_host, kernels_by_host, k);
        kernel_free(k);
    }
    tfl_var *v, *vtmp;
    HASH_ITER(hh, vars, v, vtmp) {
        if (v->module == m) {
            HASH_DEL(vars, v);
            free(v->name);
            free(v);
        }
    }
    HASH_CLEAR(hh_name, m->by_name);   /* its kernels were freed above */
    pthread_mutex_unlock(&lock);
    if (m->hx)
        hx_module_destroy(m->hx);
    free(m->owned_image);
    free(m);
}

static tfl_kernel *kernel_new(tfl_module *m, const void *host_fun, const char *name)
{
    tfl_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->name = strdup(name);
    if (!k->name) {
        free(k);
        return NULL;
    }
    k->self = k;
    k->module = m;
    k->host_fun = host_fun;
    k->max_dynamic_smem = 48 * 1024;
    k->preferred_carveout = -1;
    return k;
}

tfl_kernel *tfl_rt_kernel_register(tfl_module *m, const void *host_fun,
                                   const char *device_name)
{
    if (!host_fun || !device_name)
        return NULL;
    tfl_kernel *k = kernel_new(m, host_fun, device_name);
    if (!k)
        return NULL;
    pthread_mutex_lock(&lock);
    tfl_kernel *old;
    HASH_FIND(hh_host, kernels_by_host, &host_fun, sizeof(void *), old);
    if (old) /* re-registration (module reloaded): the newest wins */
        HASH_DELETE(hh_host, kernels_by_host, old);
    HASH_ADD(hh_host, kernels_by_host, host_fun, sizeof(void *), k);
    HASH_ADD_PTR(kernels, self, k);
    pthread_mutex_unlock(&lock);
    return k;
}

tfl_kernel *tfl_rt_kernel_by_host(const void *host_fun)
{
    tfl_kernel *k;
    pthread_mutex_lock(&lock);
    HASH_FIND(hh_host, kernels_by_host, &host_fun, sizeof(void *), k);
    pthread_mutex_unlock(&lock);
    return k;
}

tfl_status tfl_rt_kernel_by_name(tfl_module *m, const char *name, tfl_kernel **out)
{
    if (!name || !out || !tfl_rt_module_valid(m))
        return TFL_ERR_INVALID;
    tfl_kernel *k;
    pthread_mutex_lock(&lock);
    HASH_FIND(hh_name, m->by_name, name, strlen(name), k);
    pthread_mutex_unlock(&lock);
    if (k) {
        *out = k;
        return TFL_OK;
    }
    if (!m->hx)
        return TFL_ERR_UNSUPPORTED;
    /* Ask the executor whether the module has such an entry (this loads
     * and indexes the module once). */
    hx_kernel_info *info = malloc(sizeof *info);
    if (!info)
        return TFL_ERR_NOMEM;
    char err[256];
    hx_status hs = hx_kernel_info_get(m->hx, name, info, err, sizeof err);
    free(info);
    if (hs == HX_ERR_NOT_FOUND)
        return TFL_ERR_UNSUPPORTED;
    if (hs != HX_OK) {
        tfl_warn("%s", err);
        return TFL_ERR_INVALID;
    }
    k = kernel_new(m, NULL, name);
    if (!k)
        return TFL_ERR_NOMEM;
    pthread_mutex_lock(&lock);
    tfl_kernel *again;
    HASH_FIND(hh_name, m->by_name, name, strlen(name), again);
    if (again) {
        pthread_mutex_unlock(&lock);
        kernel_free(k);
        *out = again;
        return TFL_OK;
    }
    HASH_ADD_KEYPTR(hh_name, m->by_name, k->name, strlen(k->name), k);
    HASH_ADD_PTR(kernels, self, k);
    pthread_mutex_unlock(&lock);
    *out = k;
    return TFL_OK;
}

int tfl_rt_kernel_valid(tfl_kernel *k)
{
    tfl_kernel *found;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(kernels, &k, found);
    pthread_mutex_unlock(&lock);
    return found != NULL;
}

const char *tfl_rt_kernel_name(tfl_kernel *k) { return k->name; }
tfl_module *tfl_rt_kernel_module(tfl_kernel *k) { return k->module; }

hx_module *tfl_rt_module_hx(tfl_module *m) { return m ? m->hx : NULL; }

tfl_status tfl_rt_kernel_attrs(tfl_kernel *k, tfl_kernel_attrs *out,
                               char *err, size_t errlen)
{
    if (!tfl_rt_kernel_valid(k) || !out)
        return TFL_ERR_INVALID;
    memset(out, 0, sizeof *out);
    out->max_dynamic_smem = k->max_dynamic_smem;
    out->preferred_carveout = k->preferred_carveout;
    out->max_threads = 1024;
    if (!k->module->hx) {
        snprintf(err, errlen, "kernel %s: its module has no usable image", k->name);
        return TFL_ERR_UNSUPPORTED;
    }
    hx_kernel_info *info = malloc(sizeof *info);
    if (!info)
        return TFL_ERR_NOMEM;
    hx_status hs = hx_kernel_info_get(k->module->hx, k->name, info, err, errlen);
    if (hs == HX_OK) {
        out->num_params = info->num_params;
        out->param_bytes = info->param_bytes;
        out->static_smem = info->static_smem;
        out->local_bytes = info->local_bytes;
        out->num_regs = info->num_regs;
        out->max_threads = info->max_threads;
    }
    free(info);
    return hs == HX_OK ? TFL_OK : TFL_ERR_UNSUPPORTED;
}

tfl_status tfl_rt_kernel_set_attr(tfl_kernel *k, int which, int value)
{
    if (!tfl_rt_kernel_valid(k))
        return TFL_ERR_INVALID;
    /* which: 0 = max dynamic shared memory, 1 = preferred carveout */
    if (which == 0) {
        if (value < 0 || value > 163 * 1024)
            return TFL_ERR_INVALID;
        k->max_dynamic_smem = value;
    } else if (which == 1) {
        if (value < -1 || value > 100)
            return TFL_ERR_INVALID;
        k->preferred_carveout = value;
    } else {
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

int tfl_rt_kernel_max_dynamic_smem(tfl_kernel *k) { return k->max_dynamic_smem; }

tfl_kernel_route *tfl_rt_kernel_route(tfl_kernel *k) { return &k->route; }

/* ---------------------------------------------------------- variables */

tfl_var *tfl_rt_var_register(tfl_module *m, const void *host_var,
                             const char *device_name, size_t size,
                             int constant, int managed)
{
    if (!host_var || !device_name)
        return NULL;
    tfl_var *v = calloc(1, sizeof *v);
    if (!v || !(v->name = strdup(device_name))) {
        free(v);
        return NULL;
    }
    v->host_var = host_var;
    v->module = m;
    v->size = size;
    v->constant = constant;
    v->managed = managed;
    pthread_mutex_lock(&lock);
    tfl_var *old;
    HASH_FIND_PTR(vars, &host_var, old);
    if (old) {
        HASH_DEL(vars, old);
        free(old->name);
        free(old);
    }
    HASH_ADD_PTR(vars, host_var, v);
    pthread_mutex_unlock(&lock);
    return v;
}

tfl_status tfl_rt_var_by_name(tfl_module *m, const char *name, void **addr,
                              size_t *size)
{
    if (!name || !tfl_rt_module_valid(m))
        return TFL_ERR_INVALID;
    if (!m->hx)
        return TFL_ERR_UNSUPPORTED;
    char err[256];
    void *a = NULL;
    size_t sz = 0;
    hx_status hs = hx_module_global(m->hx, name, &a, &sz, err, sizeof err);
    if (hs == HX_ERR_NOT_FOUND)
        return TFL_ERR_UNSUPPORTED;
    if (hs != HX_OK) {
        tfl_warn("%s", err);
        return TFL_ERR_INVALID;
    }
    if (addr) *addr = a;
    if (size) *size = sz;
    return TFL_OK;
}

tfl_status tfl_rt_var_by_host(const void *host_var, void **addr, size_t *size)
{
    tfl_var *v;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(vars, &host_var, v);
    tfl_module *m = v ? v->module : NULL;
    char name[512] = "";
    size_t vsize = v ? v->size : 0;
    if (v)
        snprintf(name, sizeof name, "%s", v->name);
    pthread_mutex_unlock(&lock);
    if (!v)
        return TFL_ERR_INVALID;
    size_t got = 0;
    tfl_status st = tfl_rt_var_by_name(m, name, addr, &got);
    if (st == TFL_OK && size)
        *size = got ? got : vsize;
    return st;
}

/*
 * module.c - modules and libraries (cuModuleLoad*, cuLibraryLoad*), their
 * functions/kernels and globals, and function attributes.
 *
 * Handles: a CUmodule and a CUlibrary are route's tfl_module; a CUfunction
 * and a CUkernel are route's tfl_kernel (CUDA lets a CUkernel be passed
 * where a CUfunction is expected, which this makes true).  Route keeps a
 * copy of every image (the caller may free it after the load); the
 * driver measures the image, since cuModuleLoadData gets no size.
 */
#include "drv_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

/* ---------------------------------------------------------- image sizes */

/* fatbin 0xBA55ED50, fatbin wrapper 0x466243B1 (little-endian) */
typedef struct fatbin_wrapper {
    uint32_t magic, version;
    const void *data;
    void *filename_or_fatbins;
} fatbin_wrapper;

static size_t elf_size(const unsigned char *p)
{
    if (p[4] != 2)  /* ELFCLASS64: cubins are 64-bit */
        return 0;
    uint64_t shoff, phoff;
    uint16_t shentsize, shnum, phentsize, phnum;
    memcpy(&phoff, p + 0x20, 8);
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&phentsize, p + 0x36, 2);
    memcpy(&phnum, p + 0x38, 2);
    memcpy(&shentsize, p + 0x3A, 2);
    memcpy(&shnum, p + 0x3C, 2);
    /* sanity bounds: a corrupt header must not send us reading far away */
    if ((shnum && shentsize != 0x40) || shoff > (1u << 30) || phoff > (1u << 30))
        return 0;
    uint64_t end = shoff + (uint64_t)shnum * shentsize;
    if (phoff + (uint64_t)phnum * phentsize > end)
        end = phoff + (uint64_t)phnum * phentsize;
    /* sections may lie after the header table */
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = p + shoff + (uint64_t)i * shentsize;
        uint32_t type;
        uint64_t off, size;
        memcpy(&type, sh + 4, 4);
        memcpy(&off, sh + 0x18, 8);
        memcpy(&size, sh + 0x20, 8);
        if (off > (1u << 30) || size > (1u << 30))
            return 0;
        if (type != 8 /* SHT_NOBITS */ && off + size > end)
            end = off + size;
    }
    return (size_t)end;
}

/* Byte-wise, short-circuit tests: a short PTX string is never read past
 * its NUL (its bytes are ASCII, the magics are not). */
static int is_fatbin(const unsigned char *p)
{
    return p[0] == 0x50 && p[1] == 0xED && p[2] == 0x55 && p[3] == 0xBA;
}

static int is_wrapper(const unsigned char *p)
{
    return p[0] == 0xB1 && p[1] == 0x43 && p[2] == 0x62 && p[3] == 0x46;
}

static int is_elf(const unsigned char *p)
{
    return p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
}

size_t tfl_drv_image_size(const void *image)
{
    const unsigned char *p = image;
    if (is_fatbin(p)) {
        uint16_t hsize;
        uint64_t fsize;
        memcpy(&hsize, p + 6, 2);
        memcpy(&fsize, p + 8, 8);
        return hsize + (size_t)fsize;
    }
    if (is_wrapper(p)) {
        const fatbin_wrapper *w = image;
        return w->data ? tfl_drv_image_size(w->data) : 0;
    }
    if (is_elf(p))
        return elf_size(p);
    /* PTX is NUL-terminated text */
    return strlen((const char *)p) + 1;
}

static int is_text(const void *image)
{
    const unsigned char *p = image;
    return !is_fatbin(p) && !is_wrapper(p) && !is_elf(p);
}

/* --------------------------------------------------- loaded image copies */

/* Modules loaded through the driver (only those may be unloaded here;
 * a program's registered fatbins belong to the runtime). */
typedef struct owned {
    tfl_module *m;
    struct owned *next;
} owned;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static owned *g_owned;

static CUresult load(const void *image, tfl_module **out, char *log, size_t loglen)
{
    if (!image || !out)
        return CUDA_ERROR_INVALID_VALUE;
    /* A fatbin wrapper points at caller memory: load what it wraps, so
     * the copy route keeps is self-contained. */
    const void *src = image;
    if (is_wrapper(image)) {
        src = ((const fatbin_wrapper *)image)->data;
        if (!src)
            return CUDA_ERROR_INVALID_IMAGE;
    }
    int text = is_text(src);
    size_t n = tfl_drv_image_size(src);
    if (n == 0)
        return CUDA_ERROR_INVALID_IMAGE;
    owned *o = malloc(sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    tfl_module *m = NULL;
    /* route copies the image (size 0: NUL-terminated PTX) */
    tfl_status st = tfl_rt_module_load(src, text ? 0 : n, &m);
    if (st != TFL_OK) {
        free(o);
        CUresult r = st == TFL_ERR_NOMEM ? CUDA_ERROR_OUT_OF_MEMORY
                   : st == TFL_ERR_INVALID ? (text ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE)
                   : st == TFL_ERR_UNSUPPORTED ? (text ? CUDA_ERROR_NOT_SUPPORTED
                                                     : CUDA_ERROR_NO_BINARY_FOR_GPU)
                   : tfl_drv_status(st);
        if (log && loglen)
            snprintf(log, loglen, "torchfl: module load failed: %s",
                     r == CUDA_ERROR_INVALID_PTX ? "invalid PTX"
                     : r == CUDA_ERROR_INVALID_IMAGE ? "invalid image"
                     : r == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory"
                     : "no code torchfl can run");
        return r;
    }
    o->m = m;
    pthread_mutex_lock(&g_lock);
    o->next = g_owned;
    g_owned = o;
    pthread_mutex_unlock(&g_lock);
    *out = m;
    return CUDA_SUCCESS;
}

static CUresult unload(tfl_module *m)
{
    if (!m || !tfl_rt_module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&g_lock);
    owned **pp = &g_owned;
    while (*pp && (*pp)->m != m)
        pp = &(*pp)->next;
    owned *o = *pp;
    if (o)
        *pp = o->next;
    pthread_mutex_unlock(&g_lock);
    if (!o)  /* registered by a program's fatbin: not ours to unload */
        return CUDA_ERROR_INVALID_HANDLE;
    tfl_rt_module_unregister(m);
    free(o);
    return CUDA_SUCCESS;
}

static CUresult load_file(const char *fname, tfl_module **out)
{
    if (!fname || !out)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(fname, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (err || n < 4) {
        free(buf);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    buf[n] = 0;  /* PTX text files need not end in NUL */
    CUresult r = load(buf, out, NULL, 0);
    free(buf);
    return r;
}

/* --------------------------------------------------------------- modules */

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : load_file(fname, (tfl_module **)module);
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : load(image, (tfl_module **)module, NULL, 0);
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : load(fatCubin, (tfl_module **)module, NULL, 0);
}

/* JIT options are accepted; the logs they ask for are filled in. */
static void jit_logs(unsigned n, const CUjit_option *opts, void **vals, const char *errmsg)
{
    if (!opts || !vals)
        return;
    char *info = NULL, *errb = NULL;
    size_t info_n = 0, err_n = 0;
    int info_i = -1, err_i = -1;
    for (unsigned i = 0; i < n; i++) {
        switch (opts[i]) {
        case CU_JIT_INFO_LOG_BUFFER: info = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: info_n = (size_t)(uintptr_t)vals[i]; info_i = (int)i; break;
        case CU_JIT_ERROR_LOG_BUFFER: errb = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: err_n = (size_t)(uintptr_t)vals[i]; err_i = (int)i; break;
        default: break;
        }
    }
    if (info && info_n)
        info[0] = 0;
    if (info_i >= 0)
        vals[info_i] = (void *)(uintptr_t)0;
    if (errb && err_n) {
        snprintf(errb, err_n, "%s", errmsg);
        if (err_i >= 0)
            vals[err_i] = (void *)(uintptr_t)(strlen(errb) + (errmsg[0] ? 1 : 0));
    } else if (err_i >= 0) {
        vals[err_i] = (void *)(uintptr_t)0;
    }
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                    CUjit_option *options, void **optionValues)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (numOptions && (!options || !optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    char log[256] = "";
    r = load(image, (tfl_module **)module, log, sizeof log);
    jit_logs(numOptions, options, optionValues, log);
    return r;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : unload((tfl_module *)hmod);
}

static CUresult get_function(tfl_module *m, const char *name, tfl_kernel **out)
{
    if (!out || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!m || !tfl_rt_module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    tfl_kernel *k = NULL;
    tfl_status st = tfl_rt_kernel_by_name(m, name, &k);
    if (st == TFL_OK && k) {
        *out = k;
        return CUDA_SUCCESS;
    }
    /* route: UNSUPPORTED = no such entry (or no code at all), INVALID =
     * the module's code does not parse */
    return st == TFL_ERR_NOMEM ? CUDA_ERROR_OUT_OF_MEMORY
         : st == TFL_ERR_INVALID ? CUDA_ERROR_INVALID_IMAGE
         : CUDA_ERROR_NOT_FOUND;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : get_function((tfl_module *)hmod, name, (tfl_kernel **)hfunc);
}

static CUresult get_global(CUdeviceptr *dptr, size_t *bytes, tfl_module *m, const char *name)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!m || !tfl_rt_module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    void *addr = NULL;
    size_t size = 0;
    if (tfl_rt_var_by_name(m, name, &addr, &size) != TFL_OK)
        return CUDA_ERROR_NOT_FOUND;
    if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)addr;
    if (bytes)
        *bytes = size;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                      const char *name)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : get_global(dptr, bytes, (tfl_module *)hmod, name);
}

CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!mode)
        return CUDA_ERROR_INVALID_VALUE;
    /* code is parsed when a kernel is first looked up or launched */
    *mode = CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------- libraries */

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                   void **jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                   unsigned int numLibraryOptions)
{
    (void)libraryOptionValues;
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((numJitOptions && (!jitOptions || !jitOptionsValues)) ||
        (numLibraryOptions && !libraryOptions))
        return CUDA_ERROR_INVALID_VALUE;
    char log[256] = "";
    r = load(code, (tfl_module **)library, log, sizeof log);
    jit_logs(numJitOptions, jitOptions, jitOptionsValues, log);
    return r;
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                       CUjit_option *jitOptions, void **jitOptionsValues,
                                       unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                                       void **libraryOptionValues, unsigned int numLibraryOptions)
{
    (void)jitOptions; (void)jitOptionsValues; (void)numJitOptions;
    (void)libraryOptions; (void)libraryOptionValues; (void)numLibraryOptions;
    CUresult r = tfl_drv_check_init();
    return r != CUDA_SUCCESS ? r : load_file(fileName, (tfl_module **)library);
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    CUresult r = tfl_drv_check_init();
    return r != CUDA_SUCCESS ? r : unload((tfl_module *)library);
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    CUresult r = tfl_drv_check_init();
    return r != CUDA_SUCCESS ? r : get_function((tfl_module *)library, name, (tfl_kernel **)pKernel);
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pMod)
        return CUDA_ERROR_INVALID_VALUE;
    if (!library || !tfl_rt_module_valid((tfl_module *)library))
        return CUDA_ERROR_INVALID_HANDLE;
    *pMod = (CUmodule)library;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                    const char *name)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : get_global(dptr, bytes, (tfl_module *)library, name);
}

/* --------------------------------------------------- functions / kernels */

static CUresult kernel_arg(const void *f, tfl_kernel **out)
{
    tfl_kernel *k = (tfl_kernel *)f;
    if (!k || !tfl_rt_kernel_valid(k))
        return CUDA_ERROR_INVALID_HANDLE;
    *out = k;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    CUresult r = tfl_drv_current(NULL);
    tfl_kernel *k;
    if (r != CUDA_SUCCESS)
        return r;
    if (!pFunc)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = kernel_arg(kernel, &k)) != CUDA_SUCCESS)
        return r;
    *pFunc = (CUfunction)k;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    CUresult r = tfl_drv_check_init();
    tfl_kernel *k;
    if (r != CUDA_SUCCESS)
        return r;
    if (!pLib)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = kernel_arg(kernel, &k)) != CUDA_SUCCESS)
        return r;
    *pLib = (CUlibrary)tfl_rt_kernel_module(k);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    CUresult r = tfl_drv_check_init();
    tfl_kernel *k;
    if (r != CUDA_SUCCESS)
        return r;
    if (!hmod)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = kernel_arg(hfunc, &k)) != CUDA_SUCCESS)
        return r;
    *hmod = (CUmodule)tfl_rt_kernel_module(k);
    return CUDA_SUCCESS;
}

static CUresult get_name(const char **name, const void *f)
{
    CUresult r = tfl_drv_check_init();
    tfl_kernel *k;
    if (r != CUDA_SUCCESS)
        return r;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = kernel_arg(f, &k)) != CUDA_SUCCESS)
        return r;
    *name = tfl_rt_kernel_name(k);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc) { return get_name(name, hfunc); }
CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc) { return get_name(name, hfunc); }

CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    CUresult r = tfl_drv_check_init();
    tfl_kernel *k;
    if (r != CUDA_SUCCESS)
        return r;
    if (!state)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = kernel_arg(function, &k)) != CUDA_SUCCESS)
        return r;
    *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncLoad(CUfunction function)
{
    CUresult r = tfl_drv_check_init();
    tfl_kernel *k;
    if (r != CUDA_SUCCESS)
        return r;
    return kernel_arg(function, &k);
}

/* The kernel's attributes, with a parse failure reported once. */
static CUresult attrs_of(tfl_kernel *k, tfl_kernel_attrs *a)
{
    char err[256] = "";
    tfl_status st = tfl_rt_kernel_attrs(k, a, err, sizeof err);
    if (st == TFL_OK)
        return CUDA_SUCCESS;
    if (err[0])
        tfl_error("%s", err);
    /* route: UNSUPPORTED = the executor cannot read the kernel */
    return st == TFL_ERR_NOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_IMAGE;
}

static CUresult func_get_attr(int *pi, CUfunction_attribute attrib, const void *f)
{
    tfl_kernel *k;
    CUresult r = kernel_arg(f, &k);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    tfl_kernel_attrs a;
    if ((r = attrs_of(k, &a)) != CUDA_SUCCESS)
        return r;
    tfl_device_info di;
    tfl_drv_device_info(tfl_rt_current_device(), &di);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = a.max_threads > 0 ? a.max_threads : 1024; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)a.static_smem; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = (int)a.const_bytes; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = (int)a.local_bytes; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = a.num_regs; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = di.cc_major * 10 + di.cc_minor; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = a.max_dynamic_smem; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = a.preferred_carveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult func_set_attr(CUfunction_attribute attrib, int value, const void *f)
{
    tfl_kernel *k;
    CUresult r = kernel_arg(f, &k);
    if (r != CUDA_SUCCESS)
        return r;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
        tfl_kernel_attrs a;
        if ((r = attrs_of(k, &a)) != CUDA_SUCCESS)
            return r;
        /* static + dynamic must fit the opt-in per-block maximum */
        int optin = 48 * 1024;
        tfl_drv_attr(tfl_rt_current_device(), CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                     &optin);
        if (value < 0 || (size_t)value + a.static_smem > (size_t)optin)
            return CUDA_ERROR_INVALID_VALUE;
        break;
    }
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100)
            return CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        /* the device model has no clusters (CLUSTER_LAUNCH is 0) */
        return value == 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    default:
        return CUDA_ERROR_INVALID_VALUE;   /* read-only attributes */
    }
    /* route numbers them 0 (max dynamic shared memory), 1 (carveout) */
    int which = attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ? 0 : 1;
    return tfl_rt_kernel_set_attr(k, which, value) == TFL_OK ? CUDA_SUCCESS
                                                            : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CUresult r = tfl_drv_check_init();
    return r != CUDA_SUCCESS ? r : func_get_attr(pi, attrib, hfunc);
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUresult r = tfl_drv_check_init();
    return r != CUDA_SUCCESS ? r : func_set_attr(attrib, value, hfunc);
}

CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel,
                                      CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    return r != CUDA_SUCCESS ? r : func_get_attr(pi, attrib, kernel);
}

CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel,
                                      CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    return r != CUDA_SUCCESS ? r : func_set_attr(attrib, val, kernel);
}

static CUresult cache_config(const void *f, CUfunc_cache config)
{
    tfl_kernel *k;
    CUresult r = kernel_arg(f, &k);
    if (r != CUDA_SUCCESS)
        return r;
    /* a preference only; the host executor has no L1/shared split */
    return (unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    CUresult r = tfl_drv_current(NULL);
    return r != CUDA_SUCCESS ? r : cache_config(hfunc, config);
}

CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    return r != CUDA_SUCCESS ? r : cache_config(kernel, config);
}

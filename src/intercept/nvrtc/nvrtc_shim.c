/*
 * nvrtc_shim.c - NVRTC, so that run-time compiled kernels come out as PTX.
 *
 * PyTorch compiles some kernels at run time (the "jiterator") with NVRTC and
 * loads the result through the driver API.  For a device it believes NVRTC
 * supports (compute capability 8.0 here) it asks for SASS (-arch=sm_80,
 * nvrtcGetCUBIN), which no torchfl backend can run.  These entry points
 * forward to the real NVRTC, except that a request for sm_XX code becomes a
 * request for compute_XX (PTX), and the "CUBIN" handed back is that PTX:
 * cuModuleLoadData accepts PTX text, and the host executor runs it.
 *
 * The real library is found beside the real CUDA libraries the process
 * has loaded (PyTorch's nvidia/cu13/lib), else in the toolkit.  PyTorch
 * opens NVRTC with dlopen("libnvrtc.so.13"): torchfl's alias of that name
 * (loaded at start, see alias/load_aliases.c) makes the call land here.
 */
#define _GNU_SOURCE
#include <nvrtc.h>

#include "common/log.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *real;

/* A directory holding the real CUDA 13 libraries, from what is loaded. */
static int find_dir(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    static const char *const probes[] = { "/libcudart.so.13", "/libcublas.so.13",
                                          "/libcublasLt.so.13" };
    const char *name = info->dlpi_name;
    if (!name || !*name)
        return 0;
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        const char *p = strstr(name, probes[i]);
        if (p && p[strlen(probes[i])] == '\0' && !strstr(name, "torchfl")) {
            snprintf(data, PATH_MAX, "%.*s", (int)(p - name), name);
            return 1;
        }
    }
    return 0;
}

static void load_real(void)
{
    char dir[PATH_MAX] = "", path[PATH_MAX + 32];
    const char *env = getenv("TORCHFL_NVRTC");
    if (env && *env && (real = dlopen(env, RTLD_NOW | RTLD_LOCAL)))
        return;
    if (dl_iterate_phdr(find_dir, dir) && dir[0]) {
        snprintf(path, sizeof path, "%s/libnvrtc.so.13", dir);
        if ((real = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
            return;
    }
    real = dlopen("/usr/local/cuda/lib64/libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!real)
        tfl_error("the real NVRTC (libnvrtc.so.13) was not found beside the CUDA "
                  "libraries nor in /usr/local/cuda; set TORCHFL_NVRTC to its path");
}

static void *sym(const char *name)
{
    pthread_once(&once, load_real);
    return real ? dlsym(real, name) : NULL;
}

/* For the private entry points' trampolines below. */
void *tfl_nvrtc_private_sym(const char *name);
void *tfl_nvrtc_private_sym(const char *name)
{
    return sym(name);
}

/* NVRTC's private entry points (__nvrtcCPEx, __nvrtcNvvmHandle) have no
 * published prototype, so a C forwarder could pass the wrong registers.
 * Each is an assembly trampoline instead: it saves every register that
 * can carry an argument (six integer, %rax for varargs, xmm0-7), asks for
 * the real function, restores them and jumps there, so the callee sees
 * exactly what the caller passed.  Without the real library it returns
 * NVRTC_ERROR_INTERNAL_ERROR (11). */
#define PRIVATE_FWD(name)                                                        \
    __asm__(".section .rodata\n"                                                 \
            ".Lname_" #name ": .asciz \"" #name "\"\n"                             \
            ".text\n.globl " #name "\n.type " #name ", @function\n.p2align 4\n"     \
            #name ":\n"                                                          \
            "  push %rdi\n  push %rsi\n  push %rdx\n  push %rcx\n"                 \
            "  push %r8\n  push %r9\n  push %rax\n  sub $128, %rsp\n"              \
            "  movdqu %xmm0, 0(%rsp)\n  movdqu %xmm1, 16(%rsp)\n"                  \
            "  movdqu %xmm2, 32(%rsp)\n  movdqu %xmm3, 48(%rsp)\n"                 \
            "  movdqu %xmm4, 64(%rsp)\n  movdqu %xmm5, 80(%rsp)\n"                 \
            "  movdqu %xmm6, 96(%rsp)\n  movdqu %xmm7, 112(%rsp)\n"                \
            "  lea .Lname_" #name "(%rip), %rdi\n"                                 \
            "  call tfl_nvrtc_private_sym@PLT\n"                                   \
            "  mov %rax, %r11\n"                                                  \
            "  movdqu 0(%rsp), %xmm0\n  movdqu 16(%rsp), %xmm1\n"                  \
            "  movdqu 32(%rsp), %xmm2\n  movdqu 48(%rsp), %xmm3\n"                 \
            "  movdqu 64(%rsp), %xmm4\n  movdqu 80(%rsp), %xmm5\n"                 \
            "  movdqu 96(%rsp), %xmm6\n  movdqu 112(%rsp), %xmm7\n"                \
            "  add $128, %rsp\n  pop %rax\n  pop %r9\n  pop %r8\n"                 \
            "  pop %rcx\n  pop %rdx\n  pop %rsi\n  pop %rdi\n"                     \
            "  test %r11, %r11\n  jz 1f\n  jmp *%r11\n"                            \
            "1: mov $11, %eax\n  ret\n"                                            \
            ".size " #name ", .-" #name "\n")

PRIVATE_FWD(__nvrtcCPEx);
PRIVATE_FWD(__nvrtcNvvmHandle);

#define FWD(name, params, args) \
    nvrtcResult name params \
    { \
        nvrtcResult (*f) params = (nvrtcResult (*) params)sym(#name); \
        return f ? f args : NVRTC_ERROR_INTERNAL_ERROR; \
    }

const char *nvrtcGetErrorString(nvrtcResult result)
{
    const char *(*f)(nvrtcResult) = (const char *(*)(nvrtcResult))sym("nvrtcGetErrorString");
    return f ? f(result) : "NVRTC_ERROR_INTERNAL_ERROR (real NVRTC not found)";
}

FWD(nvrtcVersion, (int *major, int *minor), (major, minor))
FWD(nvrtcGetNumSupportedArchs, (int *n), (n))
FWD(nvrtcGetSupportedArchs, (int *a), (a))
FWD(nvrtcCreateProgram, (nvrtcProgram *p, const char *src, const char *name, int nh,
                         const char *const *headers, const char *const *includes),
    (p, src, name, nh, headers, includes))
FWD(nvrtcDestroyProgram, (nvrtcProgram *p), (p))
FWD(nvrtcGetPTXSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcGetPTX, (nvrtcProgram p, char *ptx), (p, ptx))
FWD(nvrtcGetLTOIRSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcGetLTOIR, (nvrtcProgram p, char *b), (p, b))
FWD(nvrtcGetOptiXIRSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcGetOptiXIR, (nvrtcProgram p, char *b), (p, b))
FWD(nvrtcGetProgramLogSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcGetProgramLog, (nvrtcProgram p, char *log), (p, log))
FWD(nvrtcAddNameExpression, (nvrtcProgram p, const char *const e), (p, e))
FWD(nvrtcGetLoweredName, (nvrtcProgram p, const char *const e, const char **l), (p, e, l))
FWD(nvrtcGetPCHHeapSize, (size_t *r), (r))
FWD(nvrtcSetPCHHeapSize, (size_t s), (s))
FWD(nvrtcGetPCHCreateStatus, (nvrtcProgram p), (p))
FWD(nvrtcGetPCHHeapSizeRequired, (nvrtcProgram p, size_t *s), (p, s))
/* CUDA 13.2 (torch 2.15's NVRTC); not in older headers, hence declared here. */
nvrtcResult nvrtcGetTileIRSize(nvrtcProgram p, size_t *n);
nvrtcResult nvrtcGetTileIR(nvrtcProgram p, char *b);
FWD(nvrtcGetTileIRSize, (nvrtcProgram p, size_t *n), (p, n))
FWD(nvrtcGetTileIR, (nvrtcProgram p, char *b), (p, b))
FWD(nvrtcSetFlowCallback, (nvrtcProgram p, int (*cb)(void *, void *), void *payload),
    (p, cb, payload))

/* "-arch=sm_80" / "--gpu-architecture=sm_80" / "-arch sm_80" -> compute_80. */
static char *ptx_option(const char *opt)
{
    const char *sm = strstr(opt, "sm_");
    if (!sm || (strncmp(opt, "-arch", 5) && strncmp(opt, "--gpu-architecture", 18)))
        return NULL;
    size_t pre = (size_t)(sm - opt);
    char *o = malloc(strlen(opt) + 8);
    if (o)
        sprintf(o, "%.*scompute_%s", (int)pre, opt, sm + 3);
    return o;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int n, const char *const *options)
{
    nvrtcResult (*f)(nvrtcProgram, int, const char *const *) =
        (nvrtcResult (*)(nvrtcProgram, int, const char *const *))sym("nvrtcCompileProgram");
    if (!f)
        return NVRTC_ERROR_INTERNAL_ERROR;
    if (n < 0 || (n > 0 && !options))
        return f(prog, n, options);
    const char **opts = calloc((size_t)n + 1, sizeof *opts);
    char **owned = calloc((size_t)n + 1, sizeof *owned);
    if (!opts || !owned) {
        free(opts);
        free(owned);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        opts[i] = options[i];
        if (options[i] && (owned[i] = ptx_option(options[i]))) {
            opts[i] = owned[i];
            tfl_debug("nvrtc: %s -> %s (torchfl runs PTX)", options[i], owned[i]);
        }
    }
    nvrtcResult r = f(prog, n, opts);
    for (int i = 0; i < n; i++)
        free(owned[i]);
    free(owned);
    free(opts);
    return r;
}

/* The program was compiled to PTX: its "CUBIN" is that PTX text. */
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *n)
{
    return nvrtcGetPTXSize(prog, n);
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    return nvrtcGetPTX(prog, cubin);
}

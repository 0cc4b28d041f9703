/*
 * load_aliases.c - load the SONAME alias libraries when libtorchfl.so loads.
 *
 * PyTorch finds the driver with dlopen("libcuda.so.1") and NVML with
 * ctypes' dlopen("libnvidia-ml.so.1").  The loader answers such a call
 * with an already loaded object of that SONAME before searching any
 * directory, so loading the aliases that sit next to libtorchfl.so
 * (built by cmake/intercept.cmake, see alias.c) makes those calls find
 * torchfl whatever the library path says, and even with no NVIDIA driver
 * installed.  A missing alias is only logged (debug): the entry points
 * are still reachable through the preload itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "common/log.h"
#include "route/config.h"

static const char *const aliases[] = { "libcuda.so.1", "libnvidia-ml.so.1",
                                       "libnvrtc.so.13" };

__attribute__((constructor)) static void tfl_load_aliases(void)
{
    /* A backend that drives a real NVIDIA GPU needs the real driver and
     * NVML under these names: then torchfl must not take them. */
    if (strcmp(tfl_config_get()->backend, "cuda") == 0)
        return;
    /* PyTorch caches run-time compiled kernels on disk under names that do
     * not say what torchfl made of them (PTX where PyTorch asked for SASS):
     * keep torchfl's cache apart from a real GPU's. */
    if (!getenv("PYTORCH_KERNEL_CACHE_PATH")) {
        const char *home = getenv("HOME");
        char cache[PATH_MAX];
        int n = home ? snprintf(cache, sizeof cache, "%s/.cache/torchfl", home) : -1;
        if (n > 0 && n < (int)sizeof cache - 16) {
            /* PyTorch wants the directory to exist */
            mkdir(cache, 0755);
            strcat(cache, "/torch-kernels");
            mkdir(cache, 0755);
            setenv("PYTORCH_KERNEL_CACHE_PATH", cache, 0);
        }
    }
    Dl_info self;
    if (!dladdr((void *)&tfl_load_aliases, &self) || !self.dli_fname)
        return;
    const char *slash = strrchr(self.dli_fname, '/');
    int dirlen = slash ? (int)(slash - self.dli_fname) : 1;
    const char *dir = slash ? self.dli_fname : ".";
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
        char path[PATH_MAX];
        int n = snprintf(path, sizeof path, "%.*s/%s", dirlen, dir, aliases[i]);
        if (n < 0 || (size_t)n >= sizeof path)
            continue;
        /* the handle is kept for the life of the process on purpose */
        if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
            tfl_debug("alias %s not loaded: %s", path, dlerror());
    }
}

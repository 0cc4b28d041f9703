/*
 * torch_release.c - the installed PyTorch's version and whether this
 * torchfl was validated against it.
 *
 * The version comes from torch/version.py (`__version__ = '2.15.0+cu132'`,
 * `cuda: Optional[str] = '13.2'`), which sits beside torch/lib: reading it
 * needs no Python and works inside the process (found through the loaded
 * libtorch_cuda.so) as well as from `torchfl detect`.  A release not in the
 * validated list may still work - the op table checks every kernel's
 * parameter layout before decoding it - but the user is told once.
 */
#define _GNU_SOURCE
#include "route/torch_release.h"
#include "common/log.h"

#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TORCHFL_VALIDATED_TORCH
#error "TORCHFL_VALIDATED_TORCH must come from scripts/torch-releases.txt (CMake)"
#endif

const char *tfl_torch_validated_list(void)
{
    return TORCHFL_VALIDATED_TORCH;
}

int tfl_torch_validated(const char *version)
{
    if (!version || !*version)
        return 0;
    size_t n = strcspn(version, "+");
    for (const char *p = TORCHFL_VALIDATED_TORCH; *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, version, n) == 0)
            return 1;
        p += len;
        while (*p == ' ')
            p++;
    }
    return 0;
}

/* The quoted value after `key` on a line of version.py, into out. */
static void quoted(const char *line, const char *key, char *out, size_t len)
{
    if (strncmp(line, key, strlen(key)) != 0)
        return;
    const char *q = strpbrk(line + strlen(key), "'\"");
    if (!q)
        return;
    const char *e = strchr(q + 1, *q);
    if (!e || (size_t)(e - q - 1) >= len)
        return;
    memcpy(out, q + 1, (size_t)(e - q - 1));
    out[e - q - 1] = '\0';
}

int tfl_torch_read(const char *libdir, tfl_torch_info *out)
{
    memset(out, 0, sizeof *out);
    if (!libdir || strlen(libdir) >= sizeof out->libdir)
        return -1;
    snprintf(out->libdir, sizeof out->libdir, "%s", libdir);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/../version.py", libdir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        quoted(line, "__version__", out->version, sizeof out->version);
        quoted(line, "cuda", out->cuda, sizeof out->cuda);
    }
    fclose(f);
    return out->version[0] ? 0 : -1;
}

static int find_torch_cuda(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    static const char lib[] = "/libtorch_cuda.so";
    const char *name = info->dlpi_name;
    const char *p = name ? strstr(name, lib) : NULL;
    if (!p || p[sizeof lib - 1] != '\0' || (size_t)(p - name) >= PATH_MAX)
        return 0;
    snprintf(data, PATH_MAX, "%.*s", (int)(p - name), name);
    return 1;
}

int tfl_torch_loaded(tfl_torch_info *out)
{
    char dir[PATH_MAX] = "";
    if (!dl_iterate_phdr(find_torch_cuda, dir) || !dir[0])
        return -1;
    return tfl_torch_read(dir, out);
}

void tfl_torch_check_loaded(void)
{
    tfl_torch_info t;
    if (tfl_torch_loaded(&t) != 0)
        return;
    if (tfl_torch_validated(t.version))
        tfl_info("torch %s (CUDA %s) is a validated release", t.version, t.cuda);
    else
        tfl_warn("torch %s is not a release this torchfl was validated against (%s); "
                 "kernels whose parameters differ from the validated layouts are refused",
                 t.version, TORCHFL_VALIDATED_TORCH);
}

static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
static int current_state;           /* 0 not looked up, 1 have, -1 none */
static tfl_torch_info current;

int tfl_torch_current(tfl_torch_info *out)
{
    pthread_mutex_lock(&current_lock);
    if (current_state == 0)
        current_state = tfl_torch_loaded(&current) == 0 ? 1 : -1;
    int rc = current_state > 0 ? 0 : -1;
    if (rc == 0)
        *out = current;
    pthread_mutex_unlock(&current_lock);
    return rc;
}

void tfl_torch_use(const tfl_torch_info *t)
{
    pthread_mutex_lock(&current_lock);
    if (t) {
        current = *t;
        current_state = 1;
    } else {
        current_state = 0;
    }
    pthread_mutex_unlock(&current_lock);
}

int tfl_torch_minor(const char *version)
{
    int major, minor;
    return version && sscanf(version, "%d.%d", &major, &minor) == 2 && major == 2 ? minor : -1;
}

/*
 * probe_lib.c - open a vendor runtime for probing, never torchfl's own.
 *
 * Under torchfl the name libcuda.so.1 may already be taken by torchfl's
 * alias (the loader matches a dlopen by SONAME), and libtorchfl.so exports
 * the cu and nvml entry points itself.  Probing those would report torchfl as an NVIDIA GPU.
 * So a handle whose symbols live in a torchfl object is closed and the
 * real driver is looked for under its usual absolute paths, which the
 * loader does not match by SONAME.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Is this handle (or the object defining sym in it) part of torchfl? */
static int is_torchfl(void *h, const char *sym)
{
    if (dlsym(h, "torchfl_alias_marker"))
        return 1;
    void *f = dlsym(h, sym);
    Dl_info info;
    if (f && dladdr(f, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base ? base + 1 : info.dli_fname;
        if (strncmp(base, "libtorchfl", 10) == 0)
            return 1;
    }
    return 0;
}

static void *try_open(const char *name, const char *sym, cli_probe *p,
                      int *ours)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    if (is_torchfl(h, sym)) {
        *ours = 1;
        dlclose(h);
        return NULL;
    }
    if (!dlsym(h, sym)) {
        dlclose(h);
        return NULL;
    }
    struct link_map *map = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
        snprintf(p->library, sizeof p->library, "%s", map->l_name);
    else
        snprintf(p->library, sizeof p->library, "%s", name);
    return h;
}

void *probe_dlopen(const char *soname, const char *const *alt, const char *sym,
                   cli_probe *p)
{
    int ours = 0;
    void *h = try_open(soname, sym, p, &ours);
    for (; !h && alt && *alt; alt++)
        h = try_open(*alt, sym, p, &ours);
    if (h)
        p->found = 1;
    else if (ours)
        snprintf(p->note, sizeof p->note, "only torchfl's own %s found "
                 "(no real runtime)", soname);
    else
        snprintf(p->note, sizeof p->note, "%s not found", soname);
    return h;
}

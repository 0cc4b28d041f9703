/*
 * backend.c - the host backend's tfl_backend table (the CPU).
 *
 * MINIMAL VERSION written by the config/plugin branch so that backend
 * selection links and can be tested; the integrator's full table (ops,
 * streams, pool segments) replaces this file.  It is always ready and has
 * the lowest priority, so FL_BACKEND=auto picks it only when no plugin is
 * ready.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/host/host_ops.h"
#include "route/config.h"

static int host_probe(char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    return 1;
}

static tfl_status host_init(const tfl_host_api *api)
{
    (void)api;
    return TFL_OK;
}

static void host_fini(void) {}

static int host_device_count(void)
{
    return tfl_config_get()->device_count;
}

/* "model name" from /proc/cpuinfo, or a generic name. */
static void cpu_name(char *buf, size_t len)
{
    snprintf(buf, len, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static tfl_status host_device_info(int dev, tfl_device_info *out)
{
    const tfl_config *cfg = tfl_config_get();
    if (dev < 0 || dev >= cfg->device_count || !out)
        return TFL_ERR_INVALID;
    memset(out, 0, sizeof *out);
    cpu_name(out->name, sizeof out->name);
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    out->total_mem = cfg->mem_pool_size ? cfg->mem_pool_size : ram;
    out->multiprocessors = (int)sysconf(_SC_NPROCESSORS_ONLN);
    out->integrated = 1;
    return TFL_OK;
}

static tfl_status host_mem_alloc(int dev, size_t size, void **ptr)
{
    (void)dev;
    void *p = NULL;
    if (posix_memalign(&p, 4096, size ? size : 1) != 0)
        return TFL_ERR_NOMEM;
    *ptr = p;
    return TFL_OK;
}

static tfl_status host_mem_free(int dev, void *ptr, size_t size)
{
    (void)dev; (void)size;
    free(ptr);
    return TFL_OK;
}

static tfl_status host_memcpy(void *dst, const void *src, size_t n,
                              tfl_copy_dir dir, tfl_stream s)
{
    (void)dir; (void)s;
    memmove(dst, src, n);
    return TFL_OK;
}

static tfl_status host_memset(void *dst, int value, size_t n, tfl_stream s)
{
    (void)s;
    memset(dst, value, n);
    return TFL_OK;
}

static int host_addressable(int dev) { (void)dev; return 1; }

static int host_op_supported(const tfl_op *op) { (void)op; return 0; }

static tfl_status host_op_run(const tfl_op *op, tfl_stream s)
{
    (void)op; (void)s;
    return TFL_ERR_UNSUPPORTED;
}

const tfl_backend tfl_host_backend = {
    .abi_version = TFL_BACKEND_ABI_VERSION,
    .struct_size = sizeof(tfl_backend),
    .name = "host",
    .priority = 0,
    .probe = host_probe,
    .init = host_init,
    .fini = host_fini,
    .device_count = host_device_count,
    .device_info = host_device_info,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .memcpy = host_memcpy,
    .memset = host_memset,
    .host_addressable = host_addressable,
    .op_supported = host_op_supported,
    .op_run = host_op_run,
};

/*
 * fake_backend.c - a test plugin: a pretend accelerator made of host memory.
 *
 * Built several times (tests/plugin/CMakeLists.txt) into plugins that each
 * exercise one path of the loader:
 *   libtorchfl-fake.so     a good plugin; FAKE_PRIORITY, FAKE_DEVICES and
 *                          FAKE_PROBE_FAIL (environment) steer it;
 *   libtorchfl-fakeold.so  FAKE_OLD: an older plugin whose table stops
 *                          before memcpy (struct_size says so); the entries
 *                          past it hold poison that must never be read;
 *   libtorchfl-fakeabi.so  FAKE_ABI=2: built for a newer ABI, to be refused;
 *   libtorchfl-noentry.so  FAKE_NO_ENTRY: no entry symbol at all;
 *   libtorchfl-fakedev.so  FAKE_OPAQUE: device memory the host cannot
 *                          touch - addresses in PROT_NONE reservations, the
 *                          bytes in a shadow buffer reached only through
 *                          memcpy / memset - so a stray host access faults
 *                          (cuda.nccl_staged runs NCCL on it).
 * It never links against torchfl: everything comes through the table and
 * the tfl_host_api handed to init, as for a real vendor plugin.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchfl/backend.h"

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif

static const tfl_host_api *g_api;

static int env_int(const char *var, int def)
{
    const char *v = getenv(var);
    return (v && *v) ? atoi(v) : def;
}

static int fake_probe(char *why, size_t len)
{
    if (getenv("FAKE_PROBE_FAIL")) {
        snprintf(why, len, "fake device switched off by FAKE_PROBE_FAIL");
        return 0;
    }
    return 1;
}

static tfl_status fake_init(const tfl_host_api *api)
{
    /* a plugin must get working services: logging and config lookups */
    if (!api || api->abi_version != TFL_BACKEND_ABI_VERSION || !api->log ||
        !api->config || !api->config("device.compute_capability"))
        return TFL_ERR_INVALID;
    g_api = api;
    api->log(3, "fake backend: init, compute capability %s",
             api->config("device.compute_capability"));
    return TFL_OK;
}

static void fake_fini(void) { g_api = NULL; }

static int fake_device_count(void) { return env_int("FAKE_DEVICES", 2); }

static tfl_status fake_device_info(int dev, tfl_device_info *out)
{
    if (dev < 0 || dev >= fake_device_count() || !out)
        return TFL_ERR_INVALID;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "Fake Accelerator %d", dev);
    out->total_mem = 1ull << 30;
    out->multiprocessors = 4;
    return TFL_OK;
}

#ifdef FAKE_OPAQUE
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

/* Segments: device address range -> shadow bytes. */
static struct seg { char *base, *shadow; size_t size; } segs[256];
static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;

static tfl_status fake_mem_alloc(int dev, size_t size, void **ptr)
{
    (void)dev;
    size = size ? size : 1;
    void *base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    char *shadow = calloc(1, size);
    if (base == MAP_FAILED || !shadow) {
        if (base != MAP_FAILED)
            munmap(base, size);
        free(shadow);
        return TFL_ERR_NOMEM;
    }
    pthread_mutex_lock(&seg_lock);
    size_t i = 0;
    while (i < 256 && segs[i].base)
        i++;
    if (i < 256)
        segs[i] = (struct seg){ base, shadow, size };
    pthread_mutex_unlock(&seg_lock);
    if (i == 256) {
        munmap(base, size);
        free(shadow);
        return TFL_ERR_NOMEM;
    }
    *ptr = base;
    return TFL_OK;
}

static tfl_status fake_mem_free(int dev, void *ptr, size_t size)
{
    (void)dev; (void)size;
    pthread_mutex_lock(&seg_lock);
    for (size_t i = 0; i < 256; i++)
        if (segs[i].base == ptr) {
            munmap(segs[i].base, segs[i].size);
            free(segs[i].shadow);
            segs[i] = (struct seg){ 0 };
        }
    pthread_mutex_unlock(&seg_lock);
    return TFL_OK;
}

/* The shadow of [p, p + n) when it is device memory, else NULL. */
static char *shadow_of(const void *p, size_t n)
{
    char *r = NULL;
    pthread_mutex_lock(&seg_lock);
    for (size_t i = 0; i < 256 && !r; i++) {
        const uintptr_t b = (uintptr_t)segs[i].base, a = (uintptr_t)p;
        if (segs[i].base && a >= b && a - b + n <= segs[i].size)
            r = segs[i].shadow + (a - b);
    }
    pthread_mutex_unlock(&seg_lock);
    return r;
}

static int fake_host_addressable(int dev) { (void)dev; return 0; }

static tfl_status fake_memset(void *dst, int value, size_t n, tfl_stream s)
{
    (void)s;
    char *d = shadow_of(dst, n);
    if (!d)
        return TFL_ERR_INVALID;
    memset(d, value, n);
    return TFL_OK;
}
#else
static tfl_status fake_mem_alloc(int dev, size_t size, void **ptr)
{
    (void)dev;
    *ptr = malloc(size ? size : 1);
    return *ptr ? TFL_OK : TFL_ERR_NOMEM;
}

static tfl_status fake_mem_free(int dev, void *ptr, size_t size)
{
    (void)dev; (void)size;
    free(ptr);
    return TFL_OK;
}
#endif

#ifndef FAKE_OLD
static tfl_status fake_memcpy(void *dst, const void *src, size_t n,
                              tfl_copy_dir dir, tfl_stream s)
{
    (void)s;
#ifdef FAKE_OPAQUE
    /* each side is translated when the direction says it is device memory */
    if (dir == TFL_COPY_H2D || dir == TFL_COPY_D2D)
        dst = shadow_of(dst, n);
    if (dir == TFL_COPY_D2H || dir == TFL_COPY_D2D)
        src = shadow_of(src, n);
    if (!dst || !src)
        return TFL_ERR_INVALID;
#else
    (void)dir;
#endif
    memmove(dst, src, n);
    return TFL_OK;
}

static int fake_op_supported(const tfl_op *op)
{
    return op && op->kind == TFL_OP_GEMM;
}
#endif

#ifndef FAKE_ABI
#define FAKE_ABI TFL_BACKEND_ABI_VERSION
#endif

static tfl_backend g_table = {
    .abi_version = FAKE_ABI,
    .struct_size = sizeof(tfl_backend),
    .name = FAKE_NAME,
    .priority = 50,
    .probe = fake_probe,
    .init = fake_init,
    .fini = fake_fini,
    .device_count = fake_device_count,
    .device_info = fake_device_info,
    .mem_alloc = fake_mem_alloc,
    .mem_free = fake_mem_free,
#ifdef FAKE_OLD
    /* poison: past struct_size, torchfl must treat these as NULL */
    .memcpy = (__typeof__(((tfl_backend *)0)->memcpy))1,
    .op_supported = (__typeof__(((tfl_backend *)0)->op_supported))1,
#else
    .memcpy = fake_memcpy,
    .op_supported = fake_op_supported,
#endif
#ifdef FAKE_OPAQUE
    .memset = fake_memset,
    .host_addressable = fake_host_addressable,
#endif
};

#ifndef FAKE_NO_ENTRY
__attribute__((visibility("default")))
const tfl_backend *torchfl_backend_entry(uint32_t torchfl_abi)
{
    (void)torchfl_abi;
#ifdef FAKE_OLD
    g_table.struct_size = (uint32_t)offsetof(tfl_backend, memcpy);
    g_table.priority = 1;
#else
    g_table.priority = env_int("FAKE_PRIORITY", 50);
#endif
    return &g_table;
}
#else
/* exports something, but not the entry: a library that is not a backend */
__attribute__((visibility("default")))
const tfl_backend *torchfl_not_a_backend(void) { return &g_table; }
#endif

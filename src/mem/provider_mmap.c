/*
 * provider_mmap.c - the default segment provider: anonymous mmap.
 *
 * Used for pinned host memory always, and for device memory until the
 * route layer configures the selected backend's mem_alloc/mem_free.
 * munmap gives freed segments straight back to the OS, which malloc would
 * not do for mid-sized blocks.  MAP_NORESERVE: like a GPU, memory is
 * committed when touched, so a large never-touched cudaMalloc costs nothing.
 */
#include <errno.h>
#include <sys/mman.h>

#include "common/log.h"
#include "mem/mem_internal.h"

static tfl_status mmap_alloc(int dev, size_t size, void **ptr)
{
    (void)dev;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        tfl_debug("mem: mmap of %zu bytes failed (errno %d)", size, errno);
        return TFL_ERR_NOMEM;
    }
    *ptr = p;
    return TFL_OK;
}

static tfl_status mmap_free(int dev, void *ptr, size_t size)
{
    (void)dev;
    if (munmap(ptr, size) != 0) {
        tfl_warn("mem: munmap(%p, %zu) failed (errno %d)", ptr, size, errno);
        return TFL_ERR_INTERNAL;
    }
    return TFL_OK;
}

const tfl_mem_provider tfl_mem_mmap_provider = { mmap_alloc, mmap_free };

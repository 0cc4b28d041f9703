/*
 * test_mem_provider.c - the pool over a configured provider, as the route
 * layer will set it up (the selected backend's mem_alloc/mem_free).
 *
 * The provider here is a fake device with a fixed capacity that records
 * every call.  Checked: segments come from it (with the right device),
 * every segment is returned exactly once with its size, a full "device"
 * makes the pool trim its cache and retry, a misaligned segment is
 * refused, and a later configure cannot swap the provider under live
 * segments.  Pinned host memory never reaches the provider.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mem/mem.h"
#include "mem/mem_internal.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

#define DEV_MASK ((1u << TFL_MEM_DEVICE) | (1u << TFL_MEM_MANAGED))
#define MiB ((size_t)1 << 20)

enum { MAXSEG = 4096 };
static struct { void *p; size_t size; int dev; } segs[MAXSEG];
static size_t capacity = 64 * MiB, in_use;
static int n_alloc, n_free, n_bad_free, misalign_next, last_dev = -1;

static tfl_status fake_alloc(int dev, size_t size, void **ptr)
{
    if (in_use + size > capacity)
        return TFL_ERR_NOMEM;
    void *p = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return TFL_ERR_NOMEM;
    if (misalign_next) { /* a broken backend: only 16-byte aligned */
        misalign_next = 0;
        p = (char *)p + 16;
    }
    for (int i = 0; i < MAXSEG; i++)
        if (!segs[i].p) {
            segs[i].p = p;
            segs[i].size = size;
            segs[i].dev = dev;
            break;
        }
    in_use += size;
    n_alloc++;
    last_dev = dev;
    *ptr = p;
    return TFL_OK;
}

static tfl_status fake_free(int dev, void *ptr, size_t size)
{
    for (int i = 0; i < MAXSEG; i++)
        if (segs[i].p == ptr) {
            if (segs[i].size != size || segs[i].dev != dev)
                n_bad_free++;
            uintptr_t base = (uintptr_t)ptr & ~(uintptr_t)4095;
            munmap((void *)base, segs[i].size + 4096);
            segs[i].p = NULL;
            in_use -= segs[i].size;
            n_free++;
            return TFL_OK;
        }
    n_bad_free++; /* never handed out, or returned twice */
    return TFL_ERR_INVALID;
}

static tfl_status other_alloc(int dev, size_t size, void **ptr)
{
    (void)dev; (void)size; (void)ptr;
    return TFL_ERR_INTERNAL;
}

static tfl_status other_free(int dev, void *ptr, size_t size)
{
    (void)dev; (void)ptr; (void)size;
    return TFL_ERR_INTERNAL;
}

int main(void)
{
    const tfl_mem_provider fake = { fake_alloc, fake_free };
    tfl_mem_configure(&fake, 0);

    /* segments come from the provider, for the device asked */
    void *a = NULL, *b = NULL, *c = NULL;
    CHECK(tfl_mem_alloc(1000, TFL_MEM_DEVICE, 3, 0, &a) == TFL_OK);
    CHECK(n_alloc == 1 && last_dev == 3 && in_use == TFL_CHUNK_SIZE);
    CHECK(tfl_mem_alloc(20 * MiB, TFL_MEM_DEVICE, 0, 0, &b) == TFL_OK);
    CHECK(n_alloc == 2 && last_dev == 0 && in_use == TFL_CHUNK_SIZE + 20 * MiB);
    CHECK(tfl_mem_alloc(3000, TFL_MEM_MANAGED, 3, 0, &c) == TFL_OK);
    CHECK(n_alloc == 2); /* same chunk of device 3 */
    memset(a, 1, 1000);
    memset(b, 2, 20 * MiB);

    /* pinned host memory does not come from the device provider */
    void *h = NULL;
    CHECK(tfl_mem_alloc(5 * MiB, TFL_MEM_HOST_PINNED, 0, 0, &h) == TFL_OK);
    CHECK(n_alloc == 2);
    CHECK(tfl_mem_free(h, 1u << TFL_MEM_HOST_PINNED) == TFL_OK);

    /* a configure after segments exist keeps the provider (the old
     * segments must go back where they came from); the limit applies */
    const tfl_mem_provider other = { other_alloc, other_free };
    tfl_mem_configure(&other, 0);
    void *d = NULL;
    CHECK(tfl_mem_alloc(8 * MiB, TFL_MEM_DEVICE, 0, 0, &d) == TFL_OK);
    CHECK(n_alloc == 3);

    /* the device is full (64 MiB: 2 + 20 + 8 used, 20 MiB cached after
     * this free); 40 MiB only fits once the cache is given back */
    CHECK(tfl_mem_free(b, DEV_MASK) == TFL_OK);
    CHECK(n_free == 0); /* cached, not returned */
    void *e = NULL;
    CHECK(tfl_mem_alloc(40 * MiB, TFL_MEM_DEVICE, 0, 0, &e) == TFL_OK);
    CHECK(n_free == 1 && in_use == TFL_CHUNK_SIZE + 8 * MiB + 40 * MiB);
    /* now really full: NOMEM, nothing changed */
    tfl_mem_stats s0, s1;
    tfl_mem_get_stats(&s0);
    void *f = (void *)0x99;
    CHECK(tfl_mem_alloc(20 * MiB, TFL_MEM_DEVICE, 0, 0, &f) == TFL_ERR_NOMEM);
    CHECK(f == (void *)0x99);
    tfl_mem_get_stats(&s1);
    CHECK(memcmp(&s0, &s1, sizeof s0) == 0);

    /* a misaligned segment is refused and handed back */
    CHECK(tfl_mem_free(e, DEV_MASK) == TFL_OK);
    tfl_mem_trim();
    int before_free = n_free;
    misalign_next = 1;
    CHECK(tfl_mem_alloc(4 * MiB, TFL_MEM_DEVICE, 0, 0, &f) == TFL_OK); /* retried */
    CHECK(((uintptr_t)f & 255) == 0);
    CHECK(n_free == before_free + 1);
    CHECK(tfl_mem_free(f, DEV_MASK) == TFL_OK);

    /* everything back: every segment returned once, with its size */
    CHECK(tfl_mem_free(a, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(c, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(d, DEV_MASK) == TFL_OK);
    tfl_mem_trim();
    CHECK(in_use == 0);
    CHECK(n_alloc == n_free);
    CHECK(n_bad_free == 0);
    tfl_mem_get_stats(&s1);
    CHECK(s1.reserved == 0 && s1.cached == 0 && s1.live_count == 0);

    if (failures) {
        fprintf(stderr, "test_mem_provider: %d failure(s)\n", failures);
        return 1;
    }
    puts("test_mem_provider: ok");
    return 0;
}

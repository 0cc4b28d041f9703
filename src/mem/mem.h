/*
 * mem.h - the per-process memory pool and the address map.
 *
 * Every byte torchfl hands out as "device", pinned-host or managed memory
 * comes from here, and every copy, set and kernel access is checked
 * against the address map ("which allocation holds this pointer").
 *
 * Segments come from a provider (the selected backend's mem_alloc; for the
 * host backend, anonymous mmap).  Freed blocks are cached by size class
 * and reused; tfl_mem_trim() returns the cache to the provider.  A limit
 * (TORCH_FL_MEM_POOL_SIZE) caps live + cached device bytes: exceeding it
 * first trims the cache, then fails with TFL_ERR_NOMEM, as a full GPU does.
 *
 * All functions are thread-safe.
 */
#ifndef TFL_MEM_H
#define TFL_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

typedef enum tfl_mem_kind {
    TFL_MEM_NONE = 0,
    TFL_MEM_DEVICE = 1,          /* cudaMalloc, cuMemAlloc, pitch, 3D, async */
    TFL_MEM_MANAGED = 2,         /* cudaMallocManaged                         */
    TFL_MEM_HOST_PINNED = 3,     /* cudaMallocHost / cudaHostAlloc            */
    TFL_MEM_HOST_REGISTERED = 4, /* cudaHostRegister: user memory, not ours   */
    TFL_MEM_MODULE_VAR = 5,      /* __device__/__constant__ storage           */
    TFL_MEM_VIRTUAL = 6          /* cuMemAddressReserve ranges                */
} tfl_mem_kind;

typedef struct tfl_alloc_info {
    void *base;
    size_t size;          /* bytes the caller asked for                  */
    tfl_mem_kind kind;
    int device;
    unsigned flags;       /* cudaHostAlloc / cudaHostRegister flags      */
} tfl_alloc_info;

typedef struct tfl_mem_stats {
    uint64_t current;     /* bytes in live device allocations            */
    uint64_t peak;
    uint64_t cached;      /* bytes held in the free cache                */
    uint64_t reserved;    /* bytes obtained from the provider            */
    uint64_t limit;
    uint64_t alloc_count, free_count, live_count;
    uint64_t host_current; /* pinned host bytes                           */
} tfl_mem_stats;

/* Where segments come from.  Both calls may be slow; the pool caches. */
typedef struct tfl_mem_provider {
    tfl_status (*alloc)(int dev, size_t size, void **ptr);
    tfl_status (*free)(int dev, void *ptr, size_t size);
} tfl_mem_provider;

/* Sets the provider and limit (0 = no limit).  May be called once before
 * first use; without it the pool uses anonymous mmap and no limit. */
void tfl_mem_configure(const tfl_mem_provider *p, uint64_t limit);
/* 0, or -1 (limit unchanged) if live device bytes already exceed it. */
int tfl_mem_set_limit(uint64_t limit);

/* Allocate size bytes (size 0 gives a unique non-NULL pointer of size 0,
 * as cudaMalloc(0) does not; callers handle 0 themselves).  Returned
 * memory is 256-byte aligned, as cudaMalloc's is. */
tfl_status tfl_mem_alloc(size_t size, tfl_mem_kind kind, int device,
                         unsigned flags, void **out);
/* Free the allocation starting exactly at p.  TFL_ERR_INVALID if p is not
 * the base of a live allocation of one of the kinds in kind_mask
 * (bit (1 << kind)); nothing is changed then. */
tfl_status tfl_mem_free(void *p, unsigned kind_mask);

/* Record memory torchfl does not own (host register, module variables,
 * reserved virtual ranges) so that lookups and checks know it. */
tfl_status tfl_mem_register(void *base, size_t size, tfl_mem_kind kind,
                            int device, unsigned flags);
tfl_status tfl_mem_unregister(void *base, tfl_mem_kind kind);

/* 1 and *out filled if p lies inside a live allocation, else 0. */
int tfl_mem_lookup(const void *p, tfl_alloc_info *out);
/* 1 if [p, p+n) lies wholly inside one live allocation (n = 0: p inside). */
int tfl_mem_check_range(const void *p, size_t n, tfl_alloc_info *out);
/* Is [p, p+n) device memory an operand may touch?  n = 0: yes, whatever p
 * (an empty operand is never read). */
static inline int tfl_mem_range_ok(const void *p, size_t n)
{
    return n == 0 || (p && tfl_mem_check_range(p, n, NULL));
}

/* Device memory held outside the pool (the driver's cuMemCreate): charge
 * n bytes against the limit, trimming the cache if needed; TFL_ERR_NOMEM
 * if they do not fit.  Uncharge when the memory is freed.  Counted in
 * tfl_mem_stats.reserved, not in current. */
tfl_status tfl_mem_charge(size_t n);
void tfl_mem_uncharge(size_t n);

void tfl_mem_trim(void);
void tfl_mem_get_stats(tfl_mem_stats *out);
void tfl_mem_reset_peak(void);

#endif

/*
 * mem_internal.h - types and calls shared by the files of src/mem only.
 *
 * A tfl_block describes one piece of memory the address map knows: a pool
 * block (live or cached) or a foreign range (tfl_mem_register).  All
 * bookkeeping lives here, outside the memory itself, because a backend's
 * device memory need not be addressable from the host.
 */
#ifndef TFL_MEM_INTERNAL_H
#define TFL_MEM_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "mem/mem.h"

#define TFL_MEM_ALIGN 256u
/* Devices the pool keeps arenas for; a larger ordinal is TFL_ERR_INVALID. */
#define TFL_MEM_MAX_DEVICES 64

struct tfl_arena;
struct tfl_chunk;

typedef struct tfl_block {
    uintptr_t base;
    size_t size;          /* bytes asked for (0 allowed)                  */
    size_t block_size;    /* bytes the block occupies (class size)        */
    uint8_t kind;         /* tfl_mem_kind                                 */
    uint8_t owned;        /* 1: pool block; 0: registered foreign range   */
    uint16_t cls;         /* size class index                             */
    int device;
    unsigned flags;

    struct tfl_arena *arena;
    struct tfl_chunk *chunk; /* small blocks: the chunk carved from; NULL
                                for large blocks, which own a segment     */
    /* free-list links (class list), valid while cached */
    struct tfl_block *fl_prev, *fl_next;
    /* large cached blocks only: age order, for bounded eviction */
    struct tfl_block *lru_prev, *lru_next;
    /* every block carved from the same chunk, for releasing the chunk */
    struct tfl_block *chunk_next;
} tfl_block;

/* ------------------------------------------------------------ sizeclass.c */
/* Small blocks (class size <= TFL_SMALL_MAX) are carved from chunks;
 * larger ones own a provider segment each. */
#define TFL_SMALL_MAX ((size_t)256 << 10)
#define TFL_CHUNK_SIZE ((size_t)2 << 20)
#define TFL_MAX_ALLOC ((size_t)1 << 46) /* larger requests: TFL_ERR_NOMEM */
#define TFL_NUM_CLASSES (16 + 6 * 8 + (46 - 18) * 16)

/* Class index for a request of size bytes (size <= TFL_MAX_ALLOC). */
unsigned tfl_size_class(size_t size);
/* Bytes a block of class c occupies. */
size_t tfl_class_size(unsigned c);

/* ----------------------------------------------------------- addrmap.c */
/* Insert a pool block (never overlaps: blocks are disjoint); 0, or -1 if
 * out of host memory (nothing inserted). */
int tfl_addrmap_insert(tfl_block *b);
/* Remove the owned block based exactly at p whose kind is in kind_mask;
 * NULL (and nothing changed) if there is none. */
tfl_block *tfl_addrmap_take(uintptr_t p, unsigned kind_mask);
size_t tfl_addrmap_count(void);
/* Tests: the tree's height, or -1 if an ordering/shape invariant fails. */
int tfl_addrmap_verify(void);

/* ------------------------------------------------------ provider_mmap.c */
extern const tfl_mem_provider tfl_mem_mmap_provider;

/* ------------------------------------------------------------- stats.c */
/* Account a provider request of n device bytes against the limit; 0 if it
 * fits (and is then counted in reserved), -1 if it would exceed it. */
int tfl_stats_reserve(uint64_t n);
void tfl_stats_unreserve(uint64_t n);
void tfl_stats_on_alloc(int host, uint64_t size);
void tfl_stats_on_free(int host, uint64_t size);
void tfl_stats_cached_add(int64_t delta);
uint64_t tfl_stats_limit(void);
void tfl_stats_set_limit(uint64_t limit);
uint64_t tfl_stats_reserved(void);
uint64_t tfl_stats_current(void);

/* --------------------------------------------------------------- pool.c */
/* Trim only arenas of device memory (what the limit counts). */
void tfl_pool_trim_device(void);

#endif

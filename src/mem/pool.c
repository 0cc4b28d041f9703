/*
 * pool.c - the per-process memory pool behind cudaMalloc & co.
 *
 * One arena per device (device and managed memory, from the provider,
 * counted against the limit) and one for pinned host memory (always
 * anonymous mmap, not counted).  Each arena keeps one free list per size
 * class (sizeclass.c):
 *   - small classes (<= 256 KiB) are carved, bump-pointer style, from 2 MiB
 *     chunks; a freed small block waits in its class list for reuse.  A
 *     chunk whose blocks are all free is "idle"; beyond KEEP_IDLE_CHUNKS
 *     idle chunks per arena, a chunk going idle goes back to the provider.
 *   - large classes own one provider segment each; freed ones are cached,
 *     oldest evicted first once the arena caches more than LARGE_CACHE_CAP
 *     bytes (a block bigger than the cap is returned at once).
 * tfl_mem_trim() gives back every cached large block and every idle chunk.
 *
 * Locking: a mutex per arena, held only for list and counter updates, never
 * across a provider call (which may be slow: munmap, a backend's malloc).
 * The address map (addrmap.c) has its own rwlock, taken after the arena
 * lock is dropped, so the two never nest.  Free finds and removes the block
 * in the map first, under the map's write lock, so two racing frees of one
 * pointer cannot both succeed.
 */
#include <stdlib.h>

#include "common/log.h"
#include "mem/mem_internal.h"

#define SMALL_CLASSES 64 /* classes 0..63 are <= TFL_SMALL_MAX */
#define KEEP_IDLE_CHUNKS 4
/* Cached large blocks are bounded per band, so that a few huge blocks
 * cannot evict the many mid-sized ones (and make them mmap/munmap churn). */
#define BAND_MID_MAX ((size_t)32 << 20)        /* band 0: <= 32 MiB     */
#define LARGE_CACHE_CAP ((uint64_t)256 << 20)  /* per band, per arena    */
#define PAGE 4096u

typedef struct tfl_chunk {
    struct tfl_chunk *prev, *next; /* arena's chunk list */
    uintptr_t base;
    size_t size, used;             /* bump pointer: base + used is next */
    unsigned live;                 /* carved blocks not in the cache    */
    tfl_block *blocks;             /* all carved blocks (chunk_next)    */
} tfl_chunk;

typedef struct tfl_arena {
    pthread_mutex_t lock;
    int device;                    /* provider's device; 0 for host    */
    int host;                      /* pinned host: not limit-counted   */
    tfl_mem_provider prov;
    tfl_block *free_head[TFL_NUM_CLASSES];
    tfl_chunk *chunks;
    tfl_chunk *cur;                /* chunk small blocks are carved from */
    unsigned idle_chunks;          /* chunks != cur with live == 0      */
    /* cached large blocks by age, per band (see BAND_MID_MAX) */
    tfl_block *lru_new[2], *lru_old[2];
    uint64_t large_cached[2];
} tfl_arena;

/* Segments to hand back once the arena lock is dropped. */
typedef struct release_list {
    tfl_chunk *chunks;             /* linked by next                    */
    tfl_block *blocks;             /* large blocks, linked by chunk_next */
} release_list;

static pthread_mutex_t g_init = PTHREAD_MUTEX_INITIALIZER;
static tfl_arena *g_dev[TFL_MEM_MAX_DEVICES];
static tfl_arena *g_host;
static tfl_mem_provider g_prov = { NULL, NULL }; /* NULL: mmap */
static int g_dev_arenas;       /* once set, the provider is fixed */

/* ------------------------------------------------------------ arenas */

static tfl_arena *arena_new(int device, int host)
{
    tfl_arena *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    pthread_mutex_init(&a->lock, NULL);
    a->device = device;
    a->host = host;
    a->prov = (!host && g_prov.alloc) ? g_prov : tfl_mem_mmap_provider;
    return a;
}

/* The arena for kind/device, created on first use; NULL with *err set. */
static tfl_arena *arena_get(tfl_mem_kind kind, int device, tfl_status *err)
{
    int host = kind == TFL_MEM_HOST_PINNED;
    if (!host && (device < 0 || device >= TFL_MEM_MAX_DEVICES)) {
        *err = TFL_ERR_INVALID;
        return NULL;
    }
    tfl_arena **slot = host ? &g_host : &g_dev[device];
    tfl_arena *a = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (a)
        return a;
    pthread_mutex_lock(&g_init);
    a = *slot;
    if (!a) {
        a = arena_new(host ? 0 : device, host);
        if (a) {
            if (!host)
                g_dev_arenas = 1;
            __atomic_store_n(slot, a, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&g_init);
    if (!a)
        *err = TFL_ERR_NOMEM;
    return a;
}

static void cached_delta(tfl_arena *a, int64_t d)
{
    if (!a->host)
        tfl_stats_cached_add(d);
}

/* ---------------------------------------------------------- provider */

static void seg_put(tfl_arena *a, uintptr_t base, size_t size)
{
    if (a->prov.free(a->device, (void *)base, size) != TFL_OK)
        tfl_warn("mem: provider could not free %p (%zu bytes)", (void *)base, size);
    if (!a->host)
        tfl_stats_unreserve(size);
}

static void trim_arena(tfl_arena *a);

static void trim_for(tfl_arena *a)
{
    if (a->host)
        trim_arena(a);
    else
        tfl_pool_trim_device();
}

/* A segment of size bytes; over the limit or when the provider fails, the
 * cache is trimmed and the request tried once more.  Call without locks. */
static tfl_status seg_get(tfl_arena *a, size_t size, uintptr_t *out)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt)
            trim_for(a);
        if (!a->host && tfl_stats_reserve(size) != 0)
            continue;
        void *p = NULL;
        tfl_status s = a->prov.alloc(a->device, size, &p);
        if (s == TFL_OK && p && ((uintptr_t)p % TFL_MEM_ALIGN) == 0) {
            *out = (uintptr_t)p;
            return TFL_OK;
        }
        if (s == TFL_OK && p) {
            tfl_error("mem: provider returned %p, not %u-byte aligned",
                      p, TFL_MEM_ALIGN);
            a->prov.free(a->device, p, size);
        }
        if (!a->host)
            tfl_stats_unreserve(size);
    }
    return TFL_ERR_NOMEM;
}

/* ------------------------------------------------------- free lists */

static void fl_push(tfl_arena *a, tfl_block *b)
{
    tfl_block **h = &a->free_head[b->cls];
    b->fl_prev = NULL;
    b->fl_next = *h;
    if (*h)
        (*h)->fl_prev = b;
    *h = b;
    cached_delta(a, (int64_t)b->block_size);
}

static void fl_unlink(tfl_arena *a, tfl_block *b)
{
    if (b->fl_prev)
        b->fl_prev->fl_next = b->fl_next;
    else
        a->free_head[b->cls] = b->fl_next;
    if (b->fl_next)
        b->fl_next->fl_prev = b->fl_prev;
    b->fl_prev = b->fl_next = NULL;
    cached_delta(a, -(int64_t)b->block_size);
}

static inline int band(const tfl_block *b) { return b->block_size > BAND_MID_MAX; }

static void lru_push(tfl_arena *a, tfl_block *b)
{
    int k = band(b);
    b->lru_prev = NULL;
    b->lru_next = a->lru_new[k];
    if (a->lru_new[k])
        a->lru_new[k]->lru_prev = b;
    else
        a->lru_old[k] = b;
    a->lru_new[k] = b;
    a->large_cached[k] += b->block_size;
}

static void lru_unlink(tfl_arena *a, tfl_block *b)
{
    int k = band(b);
    if (b->lru_prev)
        b->lru_prev->lru_next = b->lru_next;
    else
        a->lru_new[k] = b->lru_next;
    if (b->lru_next)
        b->lru_next->lru_prev = b->lru_prev;
    else
        a->lru_old[k] = b->lru_prev;
    b->lru_prev = b->lru_next = NULL;
    a->large_cached[k] -= b->block_size;
}

/* ------------------------------------------------------------ chunks */

static void chunk_live_inc(tfl_arena *a, tfl_chunk *c)
{
    if (c->live++ == 0 && c != a->cur)
        a->idle_chunks--;
}

/* Unlink an idle chunk and its (all cached) blocks; queue it for release. */
static void chunk_detach(tfl_arena *a, tfl_chunk *c, release_list *rl)
{
    for (tfl_block *b = c->blocks, *n; b; b = n) {
        n = b->chunk_next;
        fl_unlink(a, b);
        free(b);
    }
    c->blocks = NULL;
    if (c == a->cur)
        a->cur = NULL;
    else
        a->idle_chunks--;
    if (c->prev)
        c->prev->next = c->next;
    else
        a->chunks = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = NULL;
    c->next = rl->chunks;
    rl->chunks = c;
}

static void chunk_live_dec(tfl_arena *a, tfl_chunk *c, release_list *rl)
{
    if (--c->live == 0 && c != a->cur) {
        a->idle_chunks++;
        if (a->idle_chunks > KEEP_IDLE_CHUNKS)
            chunk_detach(a, c, rl);
    }
}

/* Make c the chunk to carve from; the old one may become idle. */
static void chunk_install(tfl_arena *a, tfl_chunk *c, int as_cur)
{
    c->next = a->chunks;
    if (a->chunks)
        a->chunks->prev = c;
    a->chunks = c;
    if (as_cur) {
        tfl_chunk *old = a->cur;
        a->cur = c;
        if (old && old->live == 0)
            a->idle_chunks++;
    } else {
        a->idle_chunks++; /* live == 0 until carved, just below */
    }
}

/* Carve a block of class cls from c; NULL if out of host memory. */
static tfl_block *carve(tfl_arena *a, tfl_chunk *c, unsigned cls, size_t bsz)
{
    tfl_block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->base = c->base + c->used;
    c->used += bsz;
    b->block_size = bsz;
    b->cls = (uint16_t)cls;
    b->arena = a;
    b->chunk = c;
    b->chunk_next = c->blocks;
    c->blocks = b;
    chunk_live_inc(a, c);
    return b;
}

static void release(tfl_arena *a, release_list *rl)
{
    for (tfl_chunk *c = rl->chunks, *n; c; c = n) {
        n = c->next;
        seg_put(a, c->base, c->size);
        free(c);
    }
    for (tfl_block *b = rl->blocks, *n; b; b = n) {
        n = b->chunk_next;
        seg_put(a, b->base, b->block_size);
        free(b);
    }
}

/* -------------------------------------------------------- allocation */

/* A cached block of class cls, or NULL.  Arena lock held. */
static tfl_block *pop(tfl_arena *a, unsigned cls)
{
    tfl_block *b = a->free_head[cls];
    if (!b)
        return NULL;
    fl_unlink(a, b);
    if (b->chunk)
        chunk_live_inc(a, b->chunk);
    else
        lru_unlink(a, b);
    return b;
}

static void block_release(tfl_block *b);

static tfl_status alloc_small(tfl_arena *a, unsigned cls, size_t bsz,
                              tfl_block **out)
{
    pthread_mutex_lock(&a->lock);
    tfl_block *b = pop(a, cls);
    if (!b && a->cur && a->cur->size - a->cur->used >= bsz)
        b = carve(a, a->cur, cls, bsz);
    pthread_mutex_unlock(&a->lock);
    if (b) {
        *out = b;
        return TFL_OK;
    }

    /* A new chunk; if a whole one does not fit under the limit, a segment
     * just big enough for this block (a one-block chunk). */
    tfl_chunk *c = calloc(1, sizeof *c);
    if (!c)
        return TFL_ERR_NOMEM;
    int whole = 1;
    c->size = TFL_CHUNK_SIZE;
    if (seg_get(a, c->size, &c->base) != TFL_OK) {
        whole = 0;
        c->size = (bsz + PAGE - 1) & ~(size_t)(PAGE - 1);
        if (seg_get(a, c->size, &c->base) != TFL_OK) {
            free(c);
            return TFL_ERR_NOMEM;
        }
    }
    pthread_mutex_lock(&a->lock);
    chunk_install(a, c, whole);
    b = carve(a, c, cls, bsz);
    release_list rl = { NULL, NULL };
    if (!b && c->live == 0)
        chunk_detach(a, c, &rl);
    pthread_mutex_unlock(&a->lock);
    release(a, &rl);
    if (!b)
        return TFL_ERR_NOMEM;
    *out = b;
    return TFL_OK;
}

static tfl_status alloc_large(tfl_arena *a, unsigned cls, size_t bsz,
                              tfl_block **out)
{
    pthread_mutex_lock(&a->lock);
    tfl_block *b = pop(a, cls);
    pthread_mutex_unlock(&a->lock);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b)
            return TFL_ERR_NOMEM;
        if (seg_get(a, bsz, &b->base) != TFL_OK) {
            free(b);
            return TFL_ERR_NOMEM;
        }
        b->block_size = bsz;
        b->cls = (uint16_t)cls;
        b->arena = a;
    }
    *out = b;
    return TFL_OK;
}

tfl_status tfl_mem_alloc(size_t size, tfl_mem_kind kind, int device,
                         unsigned flags, void **out)
{
    if (!out)
        return TFL_ERR_INVALID;
    if (kind != TFL_MEM_DEVICE && kind != TFL_MEM_MANAGED &&
        kind != TFL_MEM_HOST_PINNED)
        return TFL_ERR_INVALID;
    tfl_status st = TFL_OK;
    tfl_arena *a = arena_get(kind, device, &st);
    if (!a)
        return st;
    if (size > TFL_MAX_ALLOC)
        return TFL_ERR_NOMEM;

    unsigned cls = tfl_size_class(size);
    size_t bsz = tfl_class_size(cls);
    tfl_block *b = NULL;
    st = cls < SMALL_CLASSES ? alloc_small(a, cls, bsz, &b)
                             : alloc_large(a, cls, bsz, &b);
    if (st != TFL_OK) {
        tfl_debug("mem: allocation of %zu bytes (kind %d, device %d) failed",
                  size, (int)kind, device);
        return st;
    }
    b->size = size;
    b->kind = (uint8_t)kind;
    b->owned = 1;
    b->device = device;
    b->flags = flags;
    if (tfl_addrmap_insert(b) != 0) {
        block_release(b);
        return TFL_ERR_NOMEM;
    }
    tfl_stats_on_alloc(a->host, size);
    *out = (void *)b->base;
    return TFL_OK;
}

/* Return b, no longer mapped, to its arena's cache (or the provider). */
static void block_release(tfl_block *b)
{
    tfl_arena *a = b->arena;
    release_list rl = { NULL, NULL };
    pthread_mutex_lock(&a->lock);
    if (b->chunk) {
        fl_push(a, b);
        chunk_live_dec(a, b->chunk, &rl);
    } else if (b->block_size > LARGE_CACHE_CAP) {
        b->chunk_next = rl.blocks;
        rl.blocks = b;
    } else {
        int k = band(b);
        fl_push(a, b);
        lru_push(a, b);
        while (a->large_cached[k] > LARGE_CACHE_CAP) {
            tfl_block *old = a->lru_old[k];
            lru_unlink(a, old);
            fl_unlink(a, old);
            old->chunk_next = rl.blocks;
            rl.blocks = old;
        }
    }
    pthread_mutex_unlock(&a->lock);
    release(a, &rl);
}

tfl_status tfl_mem_free(void *p, unsigned kind_mask)
{
    if (!p)
        return TFL_ERR_INVALID;
    tfl_block *b = tfl_addrmap_take((uintptr_t)p, kind_mask);
    if (!b)
        return TFL_ERR_INVALID;
    tfl_stats_on_free(b->arena->host, b->size);
    block_release(b);
    return TFL_OK;
}

/* -------------------------------------------------------------- trim */

static void trim_arena(tfl_arena *a)
{
    release_list rl = { NULL, NULL };
    pthread_mutex_lock(&a->lock);
    for (int k = 0; k < 2; k++)
        while (a->lru_old[k]) {
            tfl_block *b = a->lru_old[k];
            lru_unlink(a, b);
            fl_unlink(a, b);
            b->chunk_next = rl.blocks;
            rl.blocks = b;
        }
    for (tfl_chunk *c = a->chunks, *n; c; c = n) {
        n = c->next;
        if (c->live == 0)
            chunk_detach(a, c, &rl);
    }
    pthread_mutex_unlock(&a->lock);
    release(a, &rl);
}

void tfl_pool_trim_device(void)
{
    for (int d = 0; d < TFL_MEM_MAX_DEVICES; d++) {
        tfl_arena *a = __atomic_load_n(&g_dev[d], __ATOMIC_ACQUIRE);
        if (a)
            trim_arena(a);
    }
}

void tfl_mem_trim(void)
{
    tfl_pool_trim_device();
    tfl_arena *h = __atomic_load_n(&g_host, __ATOMIC_ACQUIRE);
    if (h)
        trim_arena(h);
}

/* ------------------------------------------------------ configuration */

void tfl_mem_configure(const tfl_mem_provider *p, uint64_t limit)
{
    pthread_mutex_lock(&g_init);
    if (p && (!p->alloc || !p->free)) {
        tfl_error("mem: provider without alloc/free ignored");
    } else if (p && g_dev_arenas) {
        /* segments already handed out must go back where they came from */
        tfl_warn("mem: provider set after device memory was allocated; ignored");
    } else if (p) {
        g_prov = *p;
    }
    pthread_mutex_unlock(&g_init);
    tfl_stats_set_limit(limit);
    if (limit && tfl_stats_reserved() > limit)
        tfl_pool_trim_device();
}

int tfl_mem_set_limit(uint64_t limit)
{
    if (limit && tfl_stats_current() > limit)
        return -1;
    tfl_stats_set_limit(limit);
    if (limit && tfl_stats_reserved() > limit)
        tfl_pool_trim_device();
    return 0;
}

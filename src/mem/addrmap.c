/*
 * addrmap.c - the address map: which allocation holds a pointer.
 *
 * Every copy, memset and kernel memory access asks this map, so lookups
 * must stay cheap with 10^5 live allocations, while allocation and free
 * (also frequent) must not degrade with the count either.
 *
 * Structure: an AVL tree keyed by base address, the nodes being the
 * tfl_block descriptors themselves (intrusive: no allocation on insert).
 * Entries are disjoint intervals, so "who holds p" is the entry with the
 * greatest base <= p, checked against its extent; O(log n) for lookup,
 * insert and remove.  A sorted array would look up as fast but pays an
 * O(n) memmove per insert/remove (about 100 us at 10^5 entries); a radix
 * tree cannot answer "greatest base <= p" for 256-byte-aligned blocks
 * without per-granule entries.  bench/bench_addrmap.c measures this.
 *
 * Locking: one writer-preferring rwlock.  Lookups take it shared, so they
 * run in parallel and never wait behind one another; writers (alloc, free,
 * register) hold it only for the O(log n) tree update.  Writer preference
 * keeps a stream of lookups from starving cudaMalloc/cudaFree.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "common/log.h"
#include "mem/mem_internal.h"

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static tfl_block *g_root;
static size_t g_count;

/* A zero-size allocation still owns its base address. */
static inline uintptr_t extent(const tfl_block *b) { return b->size ? b->size : 1; }

static inline int ht(const tfl_block *t) { return t ? t->height : 0; }

static inline void fix_height(tfl_block *t)
{
    int l = ht(t->left), r = ht(t->right);
    t->height = 1 + (l > r ? l : r);
}

static tfl_block *rot_right(tfl_block *y)
{
    tfl_block *x = y->left;
    y->left = x->right;
    x->right = y;
    fix_height(y);
    fix_height(x);
    return x;
}

static tfl_block *rot_left(tfl_block *x)
{
    tfl_block *y = x->right;
    x->right = y->left;
    y->left = x;
    fix_height(x);
    fix_height(y);
    return y;
}

static tfl_block *rebalance(tfl_block *t)
{
    fix_height(t);
    int bf = ht(t->left) - ht(t->right);
    if (bf > 1) {
        if (ht(t->left->left) < ht(t->left->right))
            t->left = rot_left(t->left);
        return rot_right(t);
    }
    if (bf < -1) {
        if (ht(t->right->right) < ht(t->right->left))
            t->right = rot_right(t->right);
        return rot_left(t);
    }
    return t;
}

static tfl_block *avl_insert(tfl_block *t, tfl_block *n)
{
    if (!t)
        return n;
    if (n->base < t->base)
        t->left = avl_insert(t->left, n);
    else
        t->right = avl_insert(t->right, n);
    return rebalance(t);
}

static tfl_block *avl_remove_min(tfl_block *t, tfl_block **min)
{
    if (!t->left) {
        *min = t;
        return t->right;
    }
    t->left = avl_remove_min(t->left, min);
    return rebalance(t);
}

/* Remove the node whose base is key (known to be present). */
static tfl_block *avl_remove(tfl_block *t, uintptr_t key)
{
    if (key < t->base) {
        t->left = avl_remove(t->left, key);
    } else if (key > t->base) {
        t->right = avl_remove(t->right, key);
    } else {
        tfl_block *l = t->left, *r = t->right, *m;
        if (!r)
            return l;
        r = avl_remove_min(r, &m);
        m->left = l;
        m->right = r;
        return rebalance(m);
    }
    return rebalance(t);
}

/* The entry with the greatest base <= p, or NULL. */
static tfl_block *find_le(uintptr_t p)
{
    tfl_block *t = g_root, *best = NULL;
    while (t) {
        if (t->base <= p) {
            best = t;
            t = t->right;
        } else {
            t = t->left;
        }
    }
    return best;
}

static tfl_block *find_exact(uintptr_t p)
{
    tfl_block *t = g_root;
    while (t && t->base != p)
        t = p < t->base ? t->left : t->right;
    return t;
}

static void insert_locked(tfl_block *b)
{
    b->left = b->right = NULL;
    b->height = 1;
    g_root = avl_insert(g_root, b);
    g_count++;
}

static void fill_info(const tfl_block *b, tfl_alloc_info *out)
{
    if (!out)
        return;
    out->base = (void *)b->base;
    out->size = b->size;
    out->kind = (tfl_mem_kind)b->kind;
    out->device = b->device;
    out->flags = b->flags;
}

void tfl_addrmap_insert(tfl_block *b)
{
    pthread_rwlock_wrlock(&g_lock);
    insert_locked(b);
    pthread_rwlock_unlock(&g_lock);
}

tfl_block *tfl_addrmap_take(uintptr_t p, unsigned kind_mask)
{
    pthread_rwlock_wrlock(&g_lock);
    tfl_block *b = find_exact(p);
    if (!b || !b->owned || !((1u << b->kind) & kind_mask)) {
        pthread_rwlock_unlock(&g_lock);
        return NULL;
    }
    g_root = avl_remove(g_root, p);
    g_count--;
    pthread_rwlock_unlock(&g_lock);
    return b;
}

size_t tfl_addrmap_count(void)
{
    pthread_rwlock_rdlock(&g_lock);
    size_t n = g_count;
    pthread_rwlock_unlock(&g_lock);
    return n;
}

tfl_status tfl_mem_register(void *base, size_t size, tfl_mem_kind kind,
                            int device, unsigned flags)
{
    uintptr_t b = (uintptr_t)base;
    if (kind != TFL_MEM_HOST_REGISTERED && kind != TFL_MEM_MODULE_VAR &&
        kind != TFL_MEM_VIRTUAL)
        return TFL_ERR_INVALID;
    if (!base || size == 0 || b + size - 1 < b) /* empty or wraps around */
        return TFL_ERR_INVALID;
    tfl_block *n = calloc(1, sizeof *n);
    if (!n)
        return TFL_ERR_NOMEM;
    n->base = b;
    n->size = n->block_size = size;
    n->kind = (uint8_t)kind;
    n->owned = 0;
    n->device = device;
    n->flags = flags;

    pthread_rwlock_wrlock(&g_lock);
    /* Entries are disjoint, so only the last one starting inside
     * [b, b+size) or before it can overlap the new range. */
    tfl_block *c = find_le(b + size - 1);
    if (c && c->base + extent(c) > b) {
        pthread_rwlock_unlock(&g_lock);
        tfl_debug("mem: register %p+%zu overlaps %p+%zu", base, size,
                  (void *)c->base, c->size);
        free(n);
        return TFL_ERR_INVALID;
    }
    insert_locked(n);
    pthread_rwlock_unlock(&g_lock);
    return TFL_OK;
}

tfl_status tfl_mem_unregister(void *base, tfl_mem_kind kind)
{
    pthread_rwlock_wrlock(&g_lock);
    tfl_block *b = find_exact((uintptr_t)base);
    if (!base || !b || b->owned || b->kind != (uint8_t)kind) {
        pthread_rwlock_unlock(&g_lock);
        return TFL_ERR_INVALID;
    }
    g_root = avl_remove(g_root, b->base);
    g_count--;
    pthread_rwlock_unlock(&g_lock);
    free(b);
    return TFL_OK;
}

int tfl_mem_lookup(const void *p, tfl_alloc_info *out)
{
    uintptr_t a = (uintptr_t)p;
    int hit = 0;
    pthread_rwlock_rdlock(&g_lock);
    tfl_block *b = find_le(a);
    if (b && a - b->base < extent(b)) {
        fill_info(b, out);
        hit = 1;
    }
    pthread_rwlock_unlock(&g_lock);
    return hit;
}

int tfl_mem_check_range(const void *p, size_t n, tfl_alloc_info *out)
{
    uintptr_t a = (uintptr_t)p;
    int hit = 0;
    pthread_rwlock_rdlock(&g_lock);
    tfl_block *b = find_le(a);
    if (b) {
        uintptr_t off = a - b->base;
        if (n == 0)
            hit = off < extent(b);
        else
            hit = n <= b->size && off <= b->size - n;
        if (hit)
            fill_info(b, out);
    }
    pthread_rwlock_unlock(&g_lock);
    return hit;
}

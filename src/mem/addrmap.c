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

/* The recursive updates below report whether the subtree's height
 * changed; once it has not, nothing above needs rebalancing, which saves
 * touching the sibling nodes on the way back up. */
static tfl_block *retie(tfl_block *t, int old_height, int *changed)
{
    if (!*changed)
        return t;
    t = rebalance(t);
    *changed = t->height != old_height;
    return t;
}

static tfl_block *avl_insert(tfl_block *t, tfl_block *n, int *changed)
{
    if (!t) {
        *changed = 1;
        return n;
    }
    int h = t->height;
    if (n->base < t->base)
        t->left = avl_insert(t->left, n, changed);
    else
        t->right = avl_insert(t->right, n, changed);
    return retie(t, h, changed);
}

static tfl_block *avl_remove_min(tfl_block *t, tfl_block **min, int *changed)
{
    if (!t->left) {
        *min = t;
        *changed = 1;
        return t->right;
    }
    int h = t->height;
    t->left = avl_remove_min(t->left, min, changed);
    return retie(t, h, changed);
}

/* Remove the node whose base is key if accept(node, arg) says so; *out is
 * that node, or NULL (tree unchanged) when there is none or it is refused.
 * One descent both finds and removes: free is as hot as malloc. */
typedef int (*accept_fn)(const tfl_block *b, unsigned arg);

static tfl_block *avl_remove(tfl_block *t, uintptr_t key, accept_fn accept,
                             unsigned arg, tfl_block **out, int *changed)
{
    if (!t) {
        *out = NULL;
        *changed = 0;
        return NULL;
    }
    int h = t->height;
    if (key < t->base) {
        t->left = avl_remove(t->left, key, accept, arg, out, changed);
    } else if (key > t->base) {
        t->right = avl_remove(t->right, key, accept, arg, out, changed);
    } else {
        if (!accept(t, arg)) {
            *out = NULL;
            *changed = 0;
            return t;
        }
        *out = t;
        tfl_block *l = t->left, *r = t->right, *m;
        *changed = 1;
        if (!r)
            return l;
        r = avl_remove_min(r, &m, changed);
        m->left = l;
        m->right = r;
        *changed = 1;
        return retie(m, h, changed);
    }
    return retie(t, h, changed);
}

/* free: a pool block of one of the kinds in the mask */
static int accept_owned(const tfl_block *b, unsigned kind_mask)
{
    return b->owned && ((1u << b->kind) & kind_mask);
}

/* unregister: a foreign range of exactly this kind */
static int accept_foreign(const tfl_block *b, unsigned kind)
{
    return !b->owned && b->kind == kind;
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

static void insert_locked(tfl_block *b)
{
    b->left = b->right = NULL;
    b->height = 1;
    int changed;
    g_root = avl_insert(g_root, b, &changed);
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
    tfl_block *b;
    int changed;
    pthread_rwlock_wrlock(&g_lock);
    g_root = avl_remove(g_root, p, accept_owned, kind_mask, &b, &changed);
    if (b)
        g_count--;
    pthread_rwlock_unlock(&g_lock);
    return b;
}

/* Height of a valid subtree, -1 if an AVL or order invariant is broken. */
static int verify_subtree(const tfl_block *t, uintptr_t lo, uintptr_t hi)
{
    if (!t)
        return 0;
    if (t->base < lo || t->base > hi)
        return -1;
    int l = verify_subtree(t->left, lo, t->base ? t->base - 1 : 0);
    int r = verify_subtree(t->right, t->base + 1, hi);
    if (l < 0 || r < 0 || l - r > 1 || r - l > 1)
        return -1;
    if ((t->left && t->left->base >= t->base) || t->height != 1 + (l > r ? l : r))
        return -1;
    return t->height;
}

int tfl_addrmap_verify(void)
{
    pthread_rwlock_rdlock(&g_lock);
    int h = verify_subtree(g_root, 0, UINTPTR_MAX);
    pthread_rwlock_unlock(&g_lock);
    return h;
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
    if (!base || (unsigned)kind > 255)
        return TFL_ERR_INVALID;
    tfl_block *b;
    int changed;
    pthread_rwlock_wrlock(&g_lock);
    g_root = avl_remove(g_root, (uintptr_t)base, accept_foreign, (unsigned)kind,
                        &b, &changed);
    if (b)
        g_count--;
    pthread_rwlock_unlock(&g_lock);
    if (!b)
        return TFL_ERR_INVALID;
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

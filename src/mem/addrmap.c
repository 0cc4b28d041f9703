/*
 * addrmap.c - the address map: which allocation holds a pointer.
 *
 * Every copy, memset and kernel memory access asks this map, so lookups
 * must stay cheap with 10^5 live allocations, and allocation and free
 * (frequent too) must not degrade with the count.
 *
 * Structure: a B+ tree keyed by base address.  Leaves hold a sorted array
 * of bases and, beside it, what a lookup returns (size, kind, device,
 * flags, descriptor); leaves are linked in address order; inner
 * nodes hold sorted separator keys.  Entries are disjoint intervals, so
 * "who holds p" is the entry with the greatest base <= p, checked against
 * its extent.  Lookup, insert and remove are O(log n) with a fan-out of
 * 32..64, i.e. 3 levels at 10^5 entries, each level a binary search over a
 * few contiguous cache lines.
 *
 * Why not the alternatives (bench/bench_addrmap.c measures them): an AVL
 * tree of the descriptors was tried first; at 10^5 entries its 17-level
 * pointer chase missed the cache at every level (about 2 us per lookup on
 * the development machine, against 0.35 us for a binary search over a
 * contiguous array).  A sorted array looks up fast but pays an O(n)
 * memmove per insert/remove (about 30 us at 10^5).  A radix tree cannot
 * answer "greatest base <= p" for 256-byte-aligned blocks without an
 * entry per granule.  The B+ tree keeps the array's locality and the
 * tree's O(log n) updates.
 *
 * Removal does not merge underfull nodes; a node that becomes empty is
 * unlinked and freed (and a root with one child collapses).  The height
 * stays O(log n) of the peak entry count, and every node keeps at least
 * one entry, so memory stays proportional to the live entries.
 *
 * Locking: one writer-preferring rwlock.  Lookups take it shared, so they
 * run in parallel; writers (alloc, free, register) hold it only for one
 * descent.  Writer preference keeps a stream of lookups from starving
 * cudaMalloc/cudaFree.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "mem/mem_internal.h"

#define LEAF_MAX 32   /* a leaf splits when it reaches this many entries  */
#define INNER_MAX 64  /* an inner node splits at this many children       */

typedef struct bnode {
    int leaf;
    int n; /* entries (leaf) or children (inner) */
} bnode;

/* What a lookup returns, copied into the leaf so that a lookup reads the
 * leaf only, not the descriptor (one cache miss less at 10^5 entries). */
typedef struct bentry {
    size_t size;
    tfl_block *val;
    int device;
    unsigned flags;
    unsigned kind;
    unsigned pad_;
} bentry;

typedef struct bleaf {
    bnode h;
    struct bleaf *prev, *next;
    uintptr_t key[LEAF_MAX];   /* searched: kept apart from the payload */
    bentry ent[LEAF_MAX];
} bleaf;

typedef struct binner {
    bnode h;
    uintptr_t key[INNER_MAX];  /* key[i], i >= 1: lower bound of child i
                                  and upper bound (exclusive) of child i-1;
                                  key[0] is not used for routing          */
    bnode *child[INNER_MAX];
} binner;

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static bnode *g_root;
static size_t g_count;

/* A zero-size allocation still owns its base address. */
static inline uintptr_t ent_extent(const bentry *e) { return e->size ? e->size : 1; }

/* The greatest i in [0, n) with a[i] <= k, or -1. */
static inline int upper_idx(const uintptr_t *a, int n, uintptr_t k)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (a[mid] <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* The child of in whose key range holds k (child 0 takes everything below
 * key[1]). */
static inline int route(const binner *in, uintptr_t k)
{
    return upper_idx(in->key + 1, in->h.n - 1, k) + 1;
}

/* ------------------------------------------------------------ lookup */

/* The entry with the greatest base <= p: its leaf and index, or 0. */
static int find_le(uintptr_t p, bleaf **leaf, int *idx)
{
    bnode *t = g_root;
    if (!t)
        return 0;
    while (!t->leaf)
        t = ((binner *)t)->child[route((binner *)t, p)];
    bleaf *l = (bleaf *)t;
    int j = upper_idx(l->key, l->h.n, p);
    if (j < 0) {
        /* everything here is above p; all keys of earlier leaves are
         * below this leaf's lower bound, which is <= p */
        l = l->prev;
        if (!l)
            return 0;
        j = l->h.n - 1;
    }
    *leaf = l;
    *idx = j;
    return 1;
}

/* ------------------------------------------------------------ insert */

/* Insert into subtree t; returns a new right sibling if t split (its
 * lower bound in *sep), NULL otherwise.  *oom set if a split could not
 * allocate: then nothing was inserted. */
static bnode *ins(bnode *t, uintptr_t k, const bentry *v,
                  uintptr_t *sep, int *oom)
{
    if (t->leaf) {
        bleaf *l = (bleaf *)t;
        bleaf *r = NULL;
        if (l->h.n == LEAF_MAX - 1) {
            /* about to be full: get the sibling first, so an allocation
             * failure leaves the tree untouched */
            r = calloc(1, sizeof *r);
            if (!r) {
                *oom = 1;
                return NULL;
            }
        }
        int j = upper_idx(l->key, l->h.n, k) + 1, m = l->h.n - j;
        memmove(&l->key[j + 1], &l->key[j], (size_t)m * sizeof l->key[0]);
        memmove(&l->ent[j + 1], &l->ent[j], (size_t)m * sizeof l->ent[0]);
        l->key[j] = k;
        l->ent[j] = *v;
        l->h.n++;
        if (!r)
            return NULL;
        int half = LEAF_MAX / 2;
        r->h.leaf = 1;
        r->h.n = LEAF_MAX - half;
        memcpy(r->key, &l->key[half], (size_t)r->h.n * sizeof l->key[0]);
        memcpy(r->ent, &l->ent[half], (size_t)r->h.n * sizeof l->ent[0]);
        l->h.n = half;
        r->prev = l;
        r->next = l->next;
        if (l->next)
            l->next->prev = r;
        l->next = r;
        *sep = r->key[0];
        return &r->h;
    }

    binner *in = (binner *)t;
    binner *r = NULL;
    if (in->h.n == INNER_MAX - 1) {
        r = calloc(1, sizeof *r);
        if (!r) {
            *oom = 1;
            return NULL;
        }
    }
    int i = route(in, k);
    uintptr_t csep;
    bnode *c = ins(in->child[i], k, v, &csep, oom);
    if (!c) {
        free(r); /* the child did not split: this node stays as it is */
        return NULL;
    }
    int at = i + 1, m = in->h.n - at;
    memmove(&in->key[at + 1], &in->key[at], (size_t)m * sizeof in->key[0]);
    memmove(&in->child[at + 1], &in->child[at], (size_t)m * sizeof in->child[0]);
    in->key[at] = csep;
    in->child[at] = c;
    in->h.n++;
    if (!r)
        return NULL;
    int half = INNER_MAX / 2;
    r->h.n = INNER_MAX - half;
    memcpy(r->key, &in->key[half], (size_t)r->h.n * sizeof in->key[0]);
    memcpy(r->child, &in->child[half], (size_t)r->h.n * sizeof in->child[0]);
    in->h.n = half;
    *sep = r->key[0];
    return &r->h;
}

static int insert_locked(tfl_block *b)
{
    if (!g_root) {
        bleaf *l = calloc(1, sizeof *l);
        if (!l)
            return -1;
        l->h.leaf = 1;
        g_root = &l->h;
    }
    binner *nr = NULL; /* the new root, if the root is about to split */
    if (g_root->n == (g_root->leaf ? LEAF_MAX : INNER_MAX) - 1) {
        nr = calloc(1, sizeof *nr);
        if (!nr)
            return -1;
    }
    int oom = 0;
    uintptr_t sep;
    bentry e = { b->size, b, b->device, b->flags, b->kind, 0 };
    bnode *r = ins(g_root, b->base, &e, &sep, &oom);
    if (oom) {
        free(nr);
        return -1;
    }
    if (r) {
        nr->h.n = 2;
        nr->child[0] = g_root;
        nr->child[1] = r;
        nr->key[1] = sep;
        g_root = &nr->h;
    } else {
        free(nr);
    }
    g_count++;
    return 0;
}

/* ------------------------------------------------------------ remove */

typedef int (*accept_fn)(const tfl_block *b, unsigned arg);

static void free_node(bnode *t)
{
    if (t->leaf) {
        bleaf *l = (bleaf *)t;
        if (l->prev)
            l->prev->next = l->next;
        if (l->next)
            l->next->prev = l->prev;
    }
    free(t);
}

/* Remove the entry based exactly at k if accept() agrees; *out is it, or
 * NULL.  Returns 1 if t is left empty (the caller unlinks and frees it). */
static int rm(bnode *t, uintptr_t k, accept_fn accept, unsigned arg,
              tfl_block **out)
{
    if (t->leaf) {
        bleaf *l = (bleaf *)t;
        int j = upper_idx(l->key, l->h.n, k);
        if (j < 0 || l->key[j] != k || !accept(l->ent[j].val, arg)) {
            *out = NULL;
            return 0;
        }
        *out = l->ent[j].val;
        int m = l->h.n - j - 1;
        memmove(&l->key[j], &l->key[j + 1], (size_t)m * sizeof l->key[0]);
        memmove(&l->ent[j], &l->ent[j + 1], (size_t)m * sizeof l->ent[0]);
        return --l->h.n == 0;
    }
    binner *in = (binner *)t;
    int i = route(in, k);
    if (!rm(in->child[i], k, accept, arg, out))
        return 0;
    free_node(in->child[i]);
    int m = in->h.n - i - 1;
    memmove(&in->key[i], &in->key[i + 1], (size_t)m * sizeof in->key[0]);
    memmove(&in->child[i], &in->child[i + 1], (size_t)m * sizeof in->child[0]);
    return --in->h.n == 0;
}

static tfl_block *remove_locked(uintptr_t k, accept_fn accept, unsigned arg)
{
    tfl_block *out = NULL;
    if (!g_root)
        return NULL;
    if (rm(g_root, k, accept, arg, &out)) {
        free_node(g_root);
        g_root = NULL;
    }
    while (g_root && !g_root->leaf && g_root->n == 1) {
        bnode *c = ((binner *)g_root)->child[0];
        free(g_root);
        g_root = c;
    }
    if (out)
        g_count--;
    return out;
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

/* ------------------------------------------------------ verification */

/* Height of a valid subtree whose keys lie in [lo, hi], -1 if broken. */
static int verify_node(const bnode *t, uintptr_t lo, uintptr_t hi, size_t *count)
{
    if (t->n < 1)
        return -1;
    if (t->leaf) {
        const bleaf *l = (const bleaf *)t;
        if (l->h.n >= LEAF_MAX)
            return -1;
        for (int j = 0; j < l->h.n; j++) {
            if (l->key[j] < lo || l->key[j] > hi || (j && l->key[j] <= l->key[j - 1]))
                return -1;
            const bentry *e = &l->ent[j];
            const tfl_block *b = e->val;
            if (b->base != l->key[j] || b->size != e->size || b->kind != e->kind ||
                b->device != e->device || b->flags != e->flags)
                return -1;
            /* disjoint: each entry ends before the next begins */
            if (j && l->key[j - 1] + ent_extent(&l->ent[j - 1]) > l->key[j])
                return -1;
        }
        *count += (size_t)l->h.n;
        return 1;
    }
    const binner *in = (const binner *)t;
    if (in->h.n >= INNER_MAX)
        return -1;
    int h = -2;
    for (int i = 0; i < in->h.n; i++) {
        uintptr_t clo = i ? in->key[i] : lo, chi = i + 1 < in->h.n ? in->key[i + 1] - 1 : hi;
        if (i && (in->key[i] < lo || in->key[i] > hi || (i > 1 && in->key[i] <= in->key[i - 1])))
            return -1;
        int ch = verify_node(in->child[i], clo, chi, count);
        if (ch < 0 || (h != -2 && ch != h))
            return -1;
        h = ch;
    }
    return h + 1;
}

int tfl_addrmap_verify(void)
{
    pthread_rwlock_rdlock(&g_lock);
    int h = 0;
    size_t count = 0;
    if (g_root) {
        h = verify_node(g_root, 0, UINTPTR_MAX, &count);
        if (!g_root->leaf && g_root->n < 2)
            h = -1;
        /* the leaf chain visits every entry once, in order */
        const bnode *t = g_root;
        while (!t->leaf)
            t = ((const binner *)t)->child[0];
        size_t chained = 0;
        uintptr_t last = 0;
        for (const bleaf *l = (const bleaf *)t; l; l = l->next) {
            if (l->prev && l->prev->next != l)
                h = -1;
            for (int j = 0; j < l->h.n; j++, chained++) {
                if (chained && l->key[j] <= last)
                    h = -1;
                last = l->key[j];
            }
        }
        if (chained != count || count != g_count)
            h = -1;
    } else if (g_count) {
        h = -1;
    }
    pthread_rwlock_unlock(&g_lock);
    return h;
}

/* ------------------------------------------------------------ public */

static void fill_info(uintptr_t base, const bentry *e, tfl_alloc_info *out)
{
    if (!out)
        return;
    out->base = (void *)base;
    out->size = e->size;
    out->kind = (tfl_mem_kind)e->kind;
    out->device = e->device;
    out->flags = e->flags;
}

int tfl_addrmap_insert(tfl_block *b)
{
    pthread_rwlock_wrlock(&g_lock);
    int r = insert_locked(b);
    pthread_rwlock_unlock(&g_lock);
    return r;
}

tfl_block *tfl_addrmap_take(uintptr_t p, unsigned kind_mask)
{
    pthread_rwlock_wrlock(&g_lock);
    tfl_block *b = remove_locked(p, accept_owned, kind_mask);
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

    tfl_status st = TFL_OK;
    bleaf *l;
    int j;
    pthread_rwlock_wrlock(&g_lock);
    /* Entries are disjoint, so only the last one starting at or before
     * the new range's last byte can overlap it. */
    if (find_le(b + size - 1, &l, &j) && l->key[j] + ent_extent(&l->ent[j]) > b) {
        tfl_debug("mem: register %p+%zu overlaps %p+%zu", base, size,
                  (void *)l->key[j], l->ent[j].size);
        st = TFL_ERR_INVALID;
    } else if (insert_locked(n) != 0) {
        st = TFL_ERR_NOMEM;
    }
    pthread_rwlock_unlock(&g_lock);
    if (st != TFL_OK)
        free(n);
    return st;
}

tfl_status tfl_mem_unregister(void *base, tfl_mem_kind kind)
{
    if (!base || (unsigned)kind > 255)
        return TFL_ERR_INVALID;
    pthread_rwlock_wrlock(&g_lock);
    tfl_block *b = remove_locked((uintptr_t)base, accept_foreign, (unsigned)kind);
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
    bleaf *l;
    int j;
    pthread_rwlock_rdlock(&g_lock);
    if (find_le(a, &l, &j) && a - l->key[j] < ent_extent(&l->ent[j])) {
        fill_info(l->key[j], &l->ent[j], out);
        hit = 1;
    }
    pthread_rwlock_unlock(&g_lock);
    return hit;
}

int tfl_mem_check_range(const void *p, size_t n, tfl_alloc_info *out)
{
    uintptr_t a = (uintptr_t)p;
    int hit = 0;
    bleaf *l;
    int j;
    pthread_rwlock_rdlock(&g_lock);
    if (find_le(a, &l, &j)) {
        const bentry *e = &l->ent[j];
        uintptr_t off = a - l->key[j];
        if (n == 0)
            hit = off < ent_extent(e);
        else
            hit = n <= e->size && off <= e->size - n;
        if (hit)
            fill_info(l->key[j], e, out);
    }
    pthread_rwlock_unlock(&g_lock);
    return hit;
}

/*
 * test_mem_pool.c - the pool: alignment, size classes, reuse, statistics,
 * the limit, trim, the large-cache bound and every bad-input case.
 *
 * The pool is process-wide, so the cases run in order and each checks
 * deltas of the statistics, or starts from a trimmed, empty pool.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "mem/mem_internal.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)
#define CHECK_EQ_U(a, b) do { unsigned long long a_ = (a), b_ = (b); if (a_ != b_) { \
    fprintf(stderr, "%s:%d: %s = %llu, want %llu\n", __FILE__, __LINE__, #a, a_, b_); \
    failures++; } } while (0)

#define DEV_MASK ((1u << TFL_MEM_DEVICE) | (1u << TFL_MEM_MANAGED))
#define HOST_MASK (1u << TFL_MEM_HOST_PINNED)
#define MiB ((size_t)1 << 20)

static void fill(void *p, size_t n, unsigned seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        c[i] = (unsigned char)(seed * 31u + i * 7u + (i >> 8));
}

static int verify(const void *p, size_t n, unsigned seed)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != (unsigned char)(seed * 31u + i * 7u + (i >> 8)))
            return 0;
    return 1;
}

static void *xalloc(size_t n, tfl_mem_kind kind)
{
    void *p = NULL;
    tfl_status s = tfl_mem_alloc(n, kind, 0, 0, &p);
    CHECK(s == TFL_OK);
    CHECK(p != NULL);
    return p;
}

/* Empty the pool's caches; with nothing live, nothing may stay reserved. */
static void expect_empty_after_trim(void)
{
    tfl_mem_trim();
    tfl_mem_stats st;
    tfl_mem_get_stats(&st);
    CHECK_EQ_U(st.live_count, 0);
    CHECK_EQ_U(st.current, 0);
    CHECK_EQ_U(st.cached, 0);
    CHECK_EQ_U(st.reserved, 0);
    CHECK_EQ_U(tfl_addrmap_count(), 0);
}

static void test_size_classes(void)
{
    /* classes increase strictly, are 256-byte multiples, and each request
     * gets the smallest class that holds it, within the stated waste */
    for (unsigned c = 0; c < TFL_NUM_CLASSES; c++) {
        size_t s = tfl_class_size(c);
        CHECK(s % 256 == 0);
        if (c > 0)
            CHECK(s > tfl_class_size(c - 1));
        CHECK(tfl_size_class(s) == c);
        CHECK(tfl_size_class(s + 1) == c + 1 || s == TFL_MAX_ALLOC);
    }
    CHECK(tfl_class_size(TFL_NUM_CLASSES - 1) == TFL_MAX_ALLOC);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        size_t s = (size_t)(x % ((i & 1) ? (512 << 10) : (64u << 20))) + 1;
        unsigned c = tfl_size_class(s);
        size_t cs = tfl_class_size(c);
        CHECK(cs >= s);
        CHECK(c == 0 || tfl_class_size(c - 1) < s);
        if (s <= 4096)
            CHECK(cs - s < 256);
        else if (s <= TFL_SMALL_MAX)
            CHECK((double)(cs - s) <= 0.125 * (double)s);
        else
            CHECK((double)(cs - s) <= 0.0625 * (double)s);
    }
    /* PyTorch's segment sizes are classes of their own: no waste */
    for (size_t m = 2; m <= 64; m += 2)
        CHECK(tfl_class_size(tfl_size_class(m * MiB)) == m * MiB);
    CHECK(tfl_class_size(tfl_size_class(20 * MiB)) == 20 * MiB);
}

static void test_alignment_and_disjoint(void)
{
    static const size_t sizes[] = { 0, 1, 3, 255, 256, 257, 511, 1000, 4095,
        4096, 4097, 100000, 262143, 262144, 262145, MiB, 2 * MiB + 1,
        20 * MiB, 33 * MiB + 5 };
    enum { N = sizeof sizes / sizeof sizes[0] };
    void *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = xalloc(sizes[i], TFL_MEM_DEVICE);
        CHECK(((uintptr_t)p[i] & 255) == 0);
        fill(p[i], sizes[i], (unsigned)i);
        tfl_alloc_info info;
        CHECK(tfl_mem_lookup(p[i], &info) == 1);
        CHECK(info.base == p[i]);
        CHECK(info.size == sizes[i]);
        CHECK(info.kind == TFL_MEM_DEVICE);
        CHECK(info.device == 0);
    }
    /* every pattern intact after all were written: nothing overlaps */
    for (int i = 0; i < N; i++) {
        CHECK(verify(p[i], sizes[i], (unsigned)i));
        for (int j = 0; j < i; j++)
            CHECK(p[i] != p[j]);
    }
    for (int i = 0; i < N; i++)
        CHECK(tfl_mem_free(p[i], DEV_MASK) == TFL_OK);

    /* managed and pinned memory are aligned too */
    void *m = xalloc(777, TFL_MEM_MANAGED), *h = xalloc(777, TFL_MEM_HOST_PINNED);
    CHECK(((uintptr_t)m & 255) == 0 && ((uintptr_t)h & 255) == 0);
    CHECK(tfl_mem_free(m, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(h, HOST_MASK) == TFL_OK);
    expect_empty_after_trim();
}

static void test_reuse(void)
{
    /* small: the block freed last is the one handed out next, also for a
     * different size of the same class (900 and 1000 are both 1024) */
    void *a = xalloc(1000, TFL_MEM_DEVICE);
    CHECK(tfl_mem_free(a, DEV_MASK) == TFL_OK);
    void *b = xalloc(1000, TFL_MEM_DEVICE);
    CHECK(b == a);
    CHECK(tfl_mem_free(b, DEV_MASK) == TFL_OK);
    void *c = xalloc(900, TFL_MEM_DEVICE);
    CHECK(c == a);
    tfl_alloc_info info;
    CHECK(tfl_mem_lookup(c, &info) && info.size == 900);
    CHECK(tfl_mem_free(c, DEV_MASK) == TFL_OK);

    /* large: 2 MiB and 20 MiB segments come back from the cache, without
     * a new provider segment (reserved does not grow) */
    void *l2 = xalloc(2 * MiB, TFL_MEM_DEVICE), *l20 = xalloc(20 * MiB, TFL_MEM_DEVICE);
    CHECK(tfl_mem_free(l2, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(l20, DEV_MASK) == TFL_OK);
    tfl_mem_stats s0, s1;
    tfl_mem_get_stats(&s0);
    void *r20 = xalloc(20 * MiB, TFL_MEM_DEVICE), *r2 = xalloc(2 * MiB, TFL_MEM_DEVICE);
    tfl_mem_get_stats(&s1);
    CHECK(r20 == l20 && r2 == l2);
    CHECK_EQ_U(s1.reserved, s0.reserved);
    CHECK_EQ_U(s1.cached, s0.cached - 22 * MiB);
    CHECK(tfl_mem_free(r20, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(r2, DEV_MASK) == TFL_OK);

    /* device and pinned host memory never share blocks */
    void *d = xalloc(5000, TFL_MEM_DEVICE);
    CHECK(tfl_mem_free(d, DEV_MASK) == TFL_OK);
    void *h = xalloc(5000, TFL_MEM_HOST_PINNED);
    CHECK(h != d);
    CHECK(tfl_mem_free(h, HOST_MASK) == TFL_OK);
    expect_empty_after_trim();
}

static void test_stats(void)
{
    static const size_t sizes[] = { 1, 300, 4097, 70000, 300000, 3 * MiB + 1 };
    enum { N = sizeof sizes / sizeof sizes[0] };
    tfl_mem_stats s0, s1, s2;
    tfl_mem_reset_peak();
    tfl_mem_get_stats(&s0);
    CHECK_EQ_U(s0.peak, s0.current);
    void *p[N];
    uint64_t sum = 0, blocks = 0;
    for (int i = 0; i < N; i++) {
        p[i] = xalloc(sizes[i], TFL_MEM_DEVICE);
        sum += sizes[i];
        blocks += tfl_class_size(tfl_size_class(sizes[i]));
    }
    void *h = xalloc(12345, TFL_MEM_HOST_PINNED);
    tfl_mem_get_stats(&s1);
    CHECK_EQ_U(s1.current, s0.current + sum);
    CHECK_EQ_U(s1.peak, s1.current);
    CHECK_EQ_U(s1.alloc_count, s0.alloc_count + N);
    CHECK_EQ_U(s1.live_count, s0.live_count + N);
    CHECK_EQ_U(s1.free_count, s0.free_count);
    CHECK_EQ_U(s1.host_current, s0.host_current + 12345);
    CHECK(s1.reserved >= s1.current + s1.cached);

    for (int i = 0; i < N; i++)
        CHECK(tfl_mem_free(p[i], DEV_MASK) == TFL_OK);
    tfl_mem_get_stats(&s2);
    CHECK_EQ_U(s2.current, s0.current);
    CHECK_EQ_U(s2.peak, s1.peak);          /* peak remembers */
    CHECK_EQ_U(s2.free_count, s0.free_count + N);
    CHECK_EQ_U(s2.live_count, s0.live_count);
    CHECK_EQ_U(s2.cached, s0.cached + blocks); /* every block now cached */
    CHECK_EQ_U(s2.host_current, s1.host_current); /* pinned still live */
    tfl_mem_reset_peak();
    tfl_mem_get_stats(&s2);
    CHECK_EQ_U(s2.peak, s2.current);
    CHECK(tfl_mem_free(h, HOST_MASK) == TFL_OK);
    tfl_mem_get_stats(&s2);
    CHECK_EQ_U(s2.host_current, s0.host_current);
    expect_empty_after_trim();
}

static void test_limit(void)
{
    expect_empty_after_trim();
    CHECK(tfl_mem_set_limit(64 * MiB) == 0);
    void *p[8];
    for (int i = 0; i < 8; i++)
        p[i] = xalloc(8 * MiB, TFL_MEM_DEVICE);
    tfl_mem_stats s0, s1;
    tfl_mem_get_stats(&s0);
    CHECK_EQ_U(s0.limit, 64 * MiB);
    CHECK_EQ_U(s0.reserved, 64 * MiB);

    /* full: the next allocation fails and changes nothing */
    void *q = (void *)0x1234;
    CHECK(tfl_mem_alloc(8 * MiB, TFL_MEM_DEVICE, 0, 0, &q) == TFL_ERR_NOMEM);
    CHECK(q == (void *)0x1234);
    CHECK(tfl_mem_alloc(100, TFL_MEM_DEVICE, 0, 0, &q) == TFL_ERR_NOMEM);
    tfl_mem_get_stats(&s1);
    CHECK_EQ_U(s1.current, s0.current);
    CHECK_EQ_U(s1.live_count, s0.live_count);
    CHECK_EQ_U(s1.reserved, s0.reserved);
    CHECK_EQ_U(s1.alloc_count, s0.alloc_count);

    /* pinned host memory is not counted against the limit */
    void *h = xalloc(16 * MiB, TFL_MEM_HOST_PINNED);
    CHECK(tfl_mem_free(h, HOST_MASK) == TFL_OK);

    /* after a free, the same size comes from the cache */
    CHECK(tfl_mem_free(p[7], DEV_MASK) == TFL_OK);
    p[7] = xalloc(8 * MiB, TFL_MEM_DEVICE);
    /* a different size needs the cached 8 MiB trimmed first */
    CHECK(tfl_mem_free(p[7], DEV_MASK) == TFL_OK);
    tfl_mem_get_stats(&s1);
    CHECK_EQ_U(s1.cached, 8 * MiB);
    p[7] = xalloc(6 * MiB, TFL_MEM_DEVICE);
    tfl_mem_get_stats(&s1);
    CHECK_EQ_U(s1.cached, 0);
    CHECK_EQ_U(s1.reserved, 62 * MiB);
    /* 2 MiB left: one small allocation takes a whole chunk, then a second
     * chunk does not fit but a one-block segment does */
    void *s = xalloc(1000, TFL_MEM_DEVICE);
    tfl_mem_get_stats(&s1);
    CHECK_EQ_U(s1.reserved, 64 * MiB);
    CHECK(tfl_mem_free(s, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(p[7], DEV_MASK) == TFL_OK);
    tfl_mem_trim();
    CHECK(tfl_mem_set_limit(57 * MiB) == 0);
    s = xalloc(300 * 1000, TFL_MEM_DEVICE);   /* large: 304 KiB class */
    void *t = xalloc(3000, TFL_MEM_DEVICE);   /* no room for a chunk  */
    tfl_mem_get_stats(&s1);
    CHECK(s1.reserved <= 57 * MiB);
    CHECK(tfl_mem_free(t, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(s, DEV_MASK) == TFL_OK);

    /* a limit below what is live is refused and leaves the limit alone */
    CHECK(tfl_mem_set_limit(8 * MiB) == -1);
    tfl_mem_get_stats(&s1);
    CHECK_EQ_U(s1.limit, 57 * MiB);
    for (int i = 0; i < 7; i++)
        CHECK(tfl_mem_free(p[i], DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_set_limit(0) == 0);
    p[0] = xalloc(100 * MiB, TFL_MEM_DEVICE); /* no limit any more */
    CHECK(tfl_mem_free(p[0], DEV_MASK) == TFL_OK);
    expect_empty_after_trim();
}

static void test_large_cache_bound(void)
{
    /* 128 MiB blocks (mmap'd, never touched): the cache keeps 256 MiB */
    void *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = xalloc(128 * MiB, TFL_MEM_DEVICE);
    for (int i = 0; i < 3; i++)
        CHECK(tfl_mem_free(p[i], DEV_MASK) == TFL_OK);
    tfl_mem_stats s;
    tfl_mem_get_stats(&s);
    CHECK_EQ_U(s.cached, 256 * MiB);
    CHECK_EQ_U(s.reserved, 256 * MiB);
    /* the oldest was evicted: the newest two come back, then a new one */
    void *a = xalloc(128 * MiB, TFL_MEM_DEVICE), *b = xalloc(128 * MiB, TFL_MEM_DEVICE);
    CHECK((a == p[2] && b == p[1]) || (a == p[1] && b == p[2]));
    CHECK(tfl_mem_free(a, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(b, DEV_MASK) == TFL_OK);
    /* bigger than the bound: straight back to the provider */
    void *big = xalloc(300 * MiB, TFL_MEM_DEVICE);
    CHECK(tfl_mem_free(big, DEV_MASK) == TFL_OK);
    tfl_mem_get_stats(&s);
    CHECK_EQ_U(s.cached, 256 * MiB);
    CHECK_EQ_U(s.reserved, 256 * MiB);
    expect_empty_after_trim();
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

static void test_trim_returns_memory(void)
{
    /* a touched 64 MiB block, freed (cached) then trimmed: the resident
     * set shrinks by about that much, because the provider unmapped it */
    void *p = xalloc(64 * MiB, TFL_MEM_DEVICE);
    memset(p, 0x5a, 64 * MiB);
    long before = rss_kib();
    CHECK(tfl_mem_free(p, DEV_MASK) == TFL_OK);
    long cached = rss_kib();
    tfl_mem_trim();
    long after = rss_kib();
    CHECK(before > 0 && after > 0);
    CHECK(cached - after >= 60 * 1024);
    CHECK(before - after >= 60 * 1024);
    expect_empty_after_trim();
}

static void test_bad_input(void)
{
    void *d = xalloc(4096, TFL_MEM_DEVICE), *h = xalloc(4096, TFL_MEM_HOST_PINNED);
    void *l = xalloc(3 * MiB, TFL_MEM_DEVICE);
    fill(d, 4096, 1);
    fill(h, 4096, 2);
    fill(l, 3 * MiB, 3);
    char reg[512];
    CHECK(tfl_mem_register(reg, sizeof reg, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK);
    tfl_mem_stats s0, s1;
    tfl_mem_get_stats(&s0);
    size_t n0 = tfl_addrmap_count();
    int stack_var;
    void *heap = malloc(64);

    CHECK(tfl_mem_free(NULL, DEV_MASK) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free(&stack_var, DEV_MASK) == TFL_ERR_INVALID);   /* never given */
    CHECK(tfl_mem_free(heap, ~0u) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free((char *)d + 256, DEV_MASK) == TFL_ERR_INVALID); /* interior */
    CHECK(tfl_mem_free((char *)d + 1, DEV_MASK) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free((char *)l + MiB, DEV_MASK) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free(h, DEV_MASK) == TFL_ERR_INVALID);    /* cudaFree(pinned) */
    CHECK(tfl_mem_free(d, HOST_MASK) == TFL_ERR_INVALID);   /* cudaFreeHost(dev) */
    CHECK(tfl_mem_free(l, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free(reg, ~0u) == TFL_ERR_INVALID);       /* not ours */
    CHECK(tfl_mem_unregister(d, TFL_MEM_DEVICE) == TFL_ERR_INVALID);
    CHECK(tfl_mem_unregister(d, TFL_MEM_HOST_REGISTERED) == TFL_ERR_INVALID);

    void *q = (void *)0x77;
    CHECK(tfl_mem_alloc(16, TFL_MEM_NONE, 0, 0, &q) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(16, TFL_MEM_HOST_REGISTERED, 0, 0, &q) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(16, TFL_MEM_MODULE_VAR, 0, 0, &q) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(16, (tfl_mem_kind)99, 0, 0, &q) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(16, TFL_MEM_DEVICE, -1, 0, &q) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(16, TFL_MEM_DEVICE, TFL_MEM_MAX_DEVICES, 0, &q) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(16, TFL_MEM_DEVICE, 0, 0, NULL) == TFL_ERR_INVALID);
    CHECK(tfl_mem_alloc(SIZE_MAX, TFL_MEM_DEVICE, 0, 0, &q) == TFL_ERR_NOMEM);
    CHECK(tfl_mem_alloc(TFL_MAX_ALLOC + 1, TFL_MEM_DEVICE, 0, 0, &q) == TFL_ERR_NOMEM);
    CHECK(q == (void *)0x77);

    /* nothing changed: statistics, the map, the contents */
    tfl_mem_get_stats(&s1);
    CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
    CHECK_EQ_U(tfl_addrmap_count(), n0);
    CHECK(verify(d, 4096, 1) && verify(h, 4096, 2) && verify(l, 3 * MiB, 3));
    tfl_alloc_info info;
    CHECK(tfl_mem_lookup(h, &info) && info.kind == TFL_MEM_HOST_PINNED);
    CHECK(tfl_mem_lookup(d, &info) && info.kind == TFL_MEM_DEVICE);

    /* the right calls still work; a second free of each is refused */
    CHECK(tfl_mem_free(d, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(h, HOST_MASK) == TFL_OK);
    CHECK(tfl_mem_free(l, DEV_MASK) == TFL_OK);
    tfl_mem_get_stats(&s0);
    CHECK(tfl_mem_free(d, DEV_MASK) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free(h, HOST_MASK) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free(l, ~0u) == TFL_ERR_INVALID);
    tfl_mem_get_stats(&s1);
    CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
    CHECK(tfl_mem_lookup(d, NULL) == 0);

    /* zero-size allocations are unique, freeable, hold no bytes */
    void *z1 = xalloc(0, TFL_MEM_DEVICE), *z2 = xalloc(0, TFL_MEM_DEVICE);
    CHECK(z1 != z2);
    CHECK(tfl_mem_lookup(z1, &info) && info.base == z1 && info.size == 0);
    CHECK(tfl_mem_check_range(z1, 1, NULL) == 0);
    CHECK(tfl_mem_free(z1, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(z2, DEV_MASK) == TFL_OK);

    CHECK(tfl_mem_unregister(reg, TFL_MEM_HOST_REGISTERED) == TFL_OK);
    free(heap);
    expect_empty_after_trim();
}

int main(void)
{
    test_size_classes();
    test_alignment_and_disjoint();
    test_reuse();
    test_stats();
    test_limit();
    test_large_cache_bound();
    test_trim_returns_memory();
    test_bad_input();
    if (failures) {
        fprintf(stderr, "test_mem_pool: %d failure(s)\n", failures);
        return 1;
    }
    puts("test_mem_pool: ok");
    return 0;
}

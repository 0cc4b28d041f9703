/*
 * test_mem_addrmap.c - the address map: lookups and range checks at the
 * boundaries, foreign ranges (register/unregister) beside pool blocks,
 * overlap rejection, and a randomized comparison against a brute-force
 * reference with tens of thousands of entries.
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

#define DEV_MASK ((1u << TFL_MEM_DEVICE) | (1u << TFL_MEM_MANAGED))

static void test_boundaries(void)
{
    void *p = NULL;
    CHECK(tfl_mem_alloc(1000, TFL_MEM_DEVICE, 0, 7, &p) == TFL_OK);
    char *a = p;
    tfl_alloc_info info;
    memset(&info, 0, sizeof info);
    CHECK(tfl_mem_check_range(a, 1000, &info) == 1);
    CHECK(info.base == a && info.size == 1000 && info.kind == TFL_MEM_DEVICE &&
          info.device == 0 && info.flags == 7);
    CHECK(tfl_mem_check_range(a + 999, 1, NULL) == 1);   /* last byte in   */
    CHECK(tfl_mem_check_range(a + 1000, 1, NULL) == 0);  /* one past: out  */
    CHECK(tfl_mem_check_range(a, 1001, NULL) == 0);
    CHECK(tfl_mem_check_range(a + 1, 1000, NULL) == 0);
    CHECK(tfl_mem_check_range(a + 999, 0, NULL) == 1);   /* n = 0: p inside */
    CHECK(tfl_mem_check_range(a + 1000, 0, NULL) == 0);
    CHECK(tfl_mem_check_range(a + 10, SIZE_MAX, NULL) == 0); /* wraps */
    CHECK(tfl_mem_lookup(a + 999, &info) == 1 && info.base == a);
    /* the block's slack past the requested size belongs to nobody */
    CHECK(tfl_mem_lookup(a + 1000, &info) == 0 || info.base != a);
    CHECK(tfl_mem_lookup(a - 1, &info) == 0 || info.base != a);
    CHECK(tfl_mem_lookup(NULL, NULL) == 0);
    CHECK(tfl_mem_lookup((void *)UINTPTR_MAX, NULL) == 0);

    /* 256-byte blocks are carved back to back from one chunk: find two
     * adjacent ones and check that no range may span them */
    enum { N = 64 };
    char *s[N];
    for (int i = 0; i < N; i++)
        CHECK(tfl_mem_alloc(256, TFL_MEM_DEVICE, 0, 0, (void **)&s[i]) == TFL_OK);
    int pairs = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            if (s[j] != s[i] + 256)
                continue;
            pairs++;
            CHECK(tfl_mem_check_range(s[i], 256, NULL) == 1);
            CHECK(tfl_mem_check_range(s[j], 256, NULL) == 1);
            CHECK(tfl_mem_check_range(s[i] + 128, 256, NULL) == 0);
            CHECK(tfl_mem_check_range(s[i] + 255, 2, NULL) == 0);
            CHECK(tfl_mem_check_range(s[i], 512, NULL) == 0);
            CHECK(tfl_mem_lookup(s[i] + 255, &info) && info.base == s[i]);
            CHECK(tfl_mem_lookup(s[j], &info) && info.base == s[j]);
        }
    CHECK(pairs > 0);
    for (int i = 0; i < N; i++)
        CHECK(tfl_mem_free(s[i], DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_free(a, DEV_MASK) == TFL_OK);
    CHECK(tfl_mem_check_range(a, 1, NULL) == 0);
}

static void test_register(void)
{
    char *buf = malloc(16384);
    char *r = buf + 4096; /* registered: [r, r + 4096) */
    void *d = NULL;
    CHECK(tfl_mem_alloc(5000, TFL_MEM_DEVICE, 0, 0, &d) == TFL_OK);
    size_t n0 = tfl_addrmap_count();

    CHECK(tfl_mem_register(r, 4096, TFL_MEM_HOST_REGISTERED, 0, 3) == TFL_OK);
    tfl_alloc_info info;
    CHECK(tfl_mem_lookup(r + 4095, &info) == 1);
    CHECK(info.base == r && info.size == 4096 &&
          info.kind == TFL_MEM_HOST_REGISTERED && info.flags == 3);
    CHECK(tfl_mem_check_range(r, 4096, NULL) == 1);
    CHECK(tfl_mem_check_range(r + 4096, 1, NULL) == 0);
    CHECK(tfl_mem_check_range(r - 1, 2, NULL) == 0);

    /* overlapping in every way: rejected, nothing added */
    CHECK(tfl_mem_register(r, 4096, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(r + 100, 10, TFL_MEM_MODULE_VAR, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(r - 100, 101, TFL_MEM_VIRTUAL, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(r + 4095, 100, TFL_MEM_VIRTUAL, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(r - 10, 5000, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(d, 16, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register((char *)d + 4000, 16, TFL_MEM_MODULE_VAR, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register((char *)d - 8, 16, TFL_MEM_VIRTUAL, 0, 0) == TFL_ERR_INVALID);
    /* malformed */
    CHECK(tfl_mem_register(NULL, 16, TFL_MEM_VIRTUAL, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(buf, 0, TFL_MEM_VIRTUAL, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register((void *)(UINTPTR_MAX - 10), 100, TFL_MEM_VIRTUAL, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(buf, 16, TFL_MEM_DEVICE, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_mem_register(buf, 16, TFL_MEM_HOST_PINNED, 0, 0) == TFL_ERR_INVALID);
    CHECK(tfl_addrmap_count() == n0 + 1);

    /* adjacent on both sides: fine, and each lookup finds its own */
    CHECK(tfl_mem_register(r + 4096, 100, TFL_MEM_MODULE_VAR, 1, 0) == TFL_OK);
    CHECK(tfl_mem_register(r - 64, 64, TFL_MEM_VIRTUAL, 2, 0) == TFL_OK);
    CHECK(tfl_mem_lookup(r + 4096, &info) && info.kind == TFL_MEM_MODULE_VAR && info.device == 1);
    CHECK(tfl_mem_lookup(r - 1, &info) && info.kind == TFL_MEM_VIRTUAL && info.device == 2);
    CHECK(tfl_mem_lookup(r, &info) && info.kind == TFL_MEM_HOST_REGISTERED);
    CHECK(tfl_mem_check_range(r - 1, 2, NULL) == 0);

    /* unregister: exact base and kind only; pool blocks cannot be */
    CHECK(tfl_mem_unregister(r, TFL_MEM_MODULE_VAR) == TFL_ERR_INVALID);
    CHECK(tfl_mem_unregister(r + 1, TFL_MEM_HOST_REGISTERED) == TFL_ERR_INVALID);
    CHECK(tfl_mem_unregister(NULL, TFL_MEM_HOST_REGISTERED) == TFL_ERR_INVALID);
    CHECK(tfl_mem_unregister(d, TFL_MEM_DEVICE) == TFL_ERR_INVALID);
    CHECK(tfl_mem_free(r, ~0u) == TFL_ERR_INVALID);
    CHECK(tfl_mem_unregister(r, TFL_MEM_HOST_REGISTERED) == TFL_OK);
    CHECK(tfl_mem_unregister(r, TFL_MEM_HOST_REGISTERED) == TFL_ERR_INVALID);
    CHECK(tfl_mem_lookup(r + 10, NULL) == 0);
    CHECK(tfl_mem_lookup(r + 4096, &info) && info.kind == TFL_MEM_MODULE_VAR);
    /* the freed range can be registered again, with another kind */
    CHECK(tfl_mem_register(r, 4096, TFL_MEM_MODULE_VAR, 0, 0) == TFL_OK);
    CHECK(tfl_mem_unregister(r, TFL_MEM_MODULE_VAR) == TFL_OK);
    CHECK(tfl_mem_unregister(r + 4096, TFL_MEM_MODULE_VAR) == TFL_OK);
    CHECK(tfl_mem_unregister(r - 64, TFL_MEM_VIRTUAL) == TFL_OK);
    CHECK(tfl_addrmap_count() == n0);
    CHECK(tfl_mem_lookup(d, &info) && info.base == d); /* untouched */
    CHECK(tfl_mem_free(d, DEV_MASK) == TFL_OK);
    free(buf);
}

/* Reference: a plain array of intervals, searched linearly. */
typedef struct { uintptr_t base; size_t size; int live; } ref_range;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static int ref_find(const ref_range *r, int n, uintptr_t p)
{
    for (int i = 0; i < n; i++)
        if (r[i].live && p >= r[i].base && p - r[i].base < r[i].size)
            return i;
    return -1;
}

/* p is in slot i or at the start of slot i + 1: look at the neighbours. */
static int ref_near(const ref_range *r, int n, int i, uintptr_t p)
{
    int lo = i > 0 ? i - 1 : 0, hi = i + 1 < n ? i + 1 : n - 1;
    int k = ref_find(r + lo, hi - lo + 1, p);
    return k < 0 ? -1 : lo + k;
}

static void test_random_against_reference(void)
{
    /* Registered ranges never touch memory, so a made-up address space
     * works: slot i owns [B + i*4096, B + (i+1)*4096), the range sits at a
     * random offset with a random size inside its slot. */
    enum { N = 30000, Q = 3000 };
    const uintptr_t B = (uintptr_t)0x7e0000000000ull;
    ref_range *r = calloc(N, sizeof *r);
    size_t n0 = tfl_addrmap_count();
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            if (r[i].live && (next() & 1)) {
                CHECK(tfl_mem_unregister((void *)r[i].base, TFL_MEM_VIRTUAL) == TFL_OK);
                r[i].live = 0;
            } else if (!r[i].live && (next() % 3)) {
                size_t off = next() % 2048, size = 1 + next() % (4096 - off);
                r[i].base = B + (uintptr_t)i * 4096 + off;
                r[i].size = size;
                CHECK(tfl_mem_register((void *)r[i].base, size, TFL_MEM_VIRTUAL, 0, (unsigned)i) == TFL_OK);
                r[i].live = 1;
            }
        }
        size_t live = 0;
        for (int i = 0; i < N; i++)
            live += (size_t)r[i].live;
        CHECK(tfl_addrmap_count() == n0 + live);
        /* valid, and shallow: every node but the root holds at least one
         * entry and splits at 32 (leaves) or 64 (inner), so 3 levels
         * suffice for this many entries */
        int h = tfl_addrmap_verify();
        CHECK(h >= 1 && h <= 4);
        /* queries near every kind of boundary, checked by brute force on
         * the slot (ranges never leave their slot) */
        for (int q = 0; q < Q * 10; q++) {
            int i = (int)(next() % N);
            uintptr_t p;
            switch (next() % 4) {
            case 0: p = r[i].base; break;
            case 1: p = r[i].base + r[i].size - 1; break;
            case 2: p = r[i].base + r[i].size; break;
            default: p = B + (uintptr_t)i * 4096 + next() % 4096; break;
            }
            if (!r[i].base)
                p = B + (uintptr_t)i * 4096 + next() % 4096;
            int want = ref_near(r, N, i, p);
            tfl_alloc_info info;
            int got = tfl_mem_lookup((void *)p, &info);
            CHECK(got == (want >= 0));
            if (got && want >= 0)
                CHECK(info.base == (void *)r[want].base && info.size == r[want].size &&
                      info.flags == (unsigned)want);
            size_t len = 1 + next() % 64;
            int want_range = want >= 0 && p + len <= r[want].base + r[want].size;
            CHECK(tfl_mem_check_range((void *)p, len, NULL) == want_range);
        }
        /* a few full-scan checks: brute force over all entries */
        for (int q = 0; q < 200; q++) {
            uintptr_t p = B + next() % ((uintptr_t)N * 4096);
            CHECK(tfl_mem_lookup((void *)p, NULL) == (ref_find(r, N, p) >= 0));
        }
    }
    for (int i = 0; i < N; i++)
        if (r[i].live)
            CHECK(tfl_mem_unregister((void *)r[i].base, TFL_MEM_VIRTUAL) == TFL_OK);
    CHECK(tfl_addrmap_count() == n0);
    free(r);
}

/* Ordered patterns (ascending, descending, interleaved removal) stress
 * node splits, emptied nodes and root collapse; the tree's invariants and
 * every lookup are checked along the way. */
static void test_ordered_patterns(void)
{
    enum { N = 40000 };
    const uintptr_t B = (uintptr_t)0x6e0000000000ull;
    size_t n0 = tfl_addrmap_count();
    for (int dir = 0; dir < 2; dir++) {
        for (int k = 0; k < N; k++) {
            int i = dir ? N - 1 - k : k;
            CHECK(tfl_mem_register((void *)(B + (uintptr_t)i * 512), 100 + (size_t)(i % 300),
                                   TFL_MEM_MODULE_VAR, 0, (unsigned)i) == TFL_OK);
        }
        CHECK(tfl_addrmap_verify() >= 0);
        CHECK(tfl_addrmap_count() == n0 + N);
        /* remove the odd ones, then check both kinds of neighbours */
        for (int i = 1; i < N; i += 2)
            CHECK(tfl_mem_unregister((void *)(B + (uintptr_t)i * 512), TFL_MEM_MODULE_VAR) == TFL_OK);
        CHECK(tfl_addrmap_verify() >= 0);
        for (int i = 0; i < N; i++) {
            uintptr_t p = B + (uintptr_t)i * 512;
            size_t sz = 100 + (size_t)(i % 300);
            tfl_alloc_info info;
            int got = tfl_mem_lookup((void *)(p + sz - 1), &info);
            CHECK(got == !(i & 1));
            if (got)
                CHECK(info.base == (void *)p && info.flags == (unsigned)i);
            CHECK(tfl_mem_lookup((void *)(p + sz), NULL) == 0);
        }
        /* then the even ones, from the middle outwards */
        for (int k = 0; k < N / 2; k++) {
            int i = (k & 1) ? N / 2 - 1 - k : N / 2 + k;
            i &= ~1;
            if (i < 0 || i >= N)
                continue;
            tfl_status st = tfl_mem_unregister((void *)(B + (uintptr_t)i * 512), TFL_MEM_MODULE_VAR);
            CHECK(st == TFL_OK || st == TFL_ERR_INVALID); /* some visited twice */
            if (k % 4096 == 0)
                CHECK(tfl_addrmap_verify() >= 0);
        }
        for (int i = 0; i < N; i += 2)
            tfl_mem_unregister((void *)(B + (uintptr_t)i * 512), TFL_MEM_MODULE_VAR);
        CHECK(tfl_addrmap_count() == n0);
        CHECK(tfl_addrmap_verify() >= 0);
        for (int i = 0; i < N; i += 97)
            CHECK(tfl_mem_lookup((void *)(B + (uintptr_t)i * 512), NULL) == 0);
    }
}

int main(void)
{
    test_boundaries();
    test_register();
    test_random_against_reference();
    test_ordered_patterns();
    CHECK(tfl_addrmap_count() == 0);
    CHECK(tfl_addrmap_verify() == 0); /* empty again */
    if (failures) {
        fprintf(stderr, "test_mem_addrmap: %d failure(s)\n", failures);
        return 1;
    }
    puts("test_mem_addrmap: ok");
    return 0;
}

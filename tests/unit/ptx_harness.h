/*
 * ptx_harness.h - helpers for the host executor tests (test_ptx_*.c):
 * load a PTX file built from a tests/ptx .cu file, allocate buffers the address
 * map knows, launch, and count failed checks.
 */
#ifndef TFL_PTX_HARNESS_H
#define TFL_PTX_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/hostexec.h"
#include "mem/mem.h"

static int g_fail, g_checks;
/* PTX texts must outlive their modules; freed by finish() */
static char *g_texts[64];
static int g_ntexts;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        g_checks++;                                                         \
        if (!(cond)) {                                                      \
            g_fail++;                                                       \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static inline char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s) { fclose(f); return NULL; }
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

/* The flavours tests/ptx/CMakeLists.txt builds of every kernel file:
 * sm_80 -O3, compute_120 with line info, compute_90 -G. */
static const char *const ptx_variants[] __attribute__((unused)) = { "", "_120", "_G", NULL };
static const char *ptx_variant __attribute__((unused)) = "";

/* Load tests/ptx/<name>.cu's PTX (flavour ptx_variant); exits 77 (skip)
 * if it was not built. */
static inline hx_module *load_ptx(const char *name, char **text_out)
{
#ifdef TFL_PTX_DIR
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s.ptx", TFL_PTX_DIR, name, ptx_variant);
    fprintf(stderr, "-- %s%s\n", name, ptx_variant);
    char *t = read_text(path);
    if (!t) { fprintf(stderr, "skip: %s not built (no nvcc?)\n", path); exit(77); }
    hx_module *m = hx_module_create(t, 0);
    if (!m) { fprintf(stderr, "hx_module_create failed for %s\n", path); exit(1); }
    if (text_out) *text_out = t;
    else if (g_ntexts < 64) g_texts[g_ntexts++] = t;
    return m;
#else
    (void)name; (void)text_out;
    fprintf(stderr, "skip: TFL_PTX_DIR not set\n");
    exit(77);
#endif
}

static inline void *dalloc(size_t n)
{
    void *p = NULL;
    if (tfl_mem_alloc(n ? n : 1, TFL_MEM_DEVICE, 0, 0, &p) != TFL_OK || !p) {
        fprintf(stderr, "tfl_mem_alloc(%zu) failed\n", n);
        exit(1);
    }
    return p;
}

static inline void dfree(void *p) { tfl_mem_free(p, 1u << TFL_MEM_DEVICE); }

static inline hx_status launch3(hx_module *m, const char *k, unsigned gx, unsigned gy, unsigned gz,
                         unsigned bx, unsigned by, unsigned bz, size_t smem, void **args,
                         char *err, size_t errlen)
{
    hx_launch_params p;
    memset(&p, 0, sizeof p);
    p.grid[0] = gx; p.grid[1] = gy; p.grid[2] = gz;
    p.block[0] = bx; p.block[1] = by; p.block[2] = bz;
    p.dynamic_smem = smem;
    p.args = args;
    err[0] = 0;
    return hx_launch(m, k, &p, err, errlen);
}

static inline hx_status launch1(hx_module *m, const char *k, unsigned g, unsigned b, size_t smem,
                         void **args)
{
    char err[512];
    hx_status st = launch3(m, k, g, 1, 1, b, 1, 1, smem, args, err, sizeof err);
    if (st) fprintf(stderr, "launch %s: status %d: %s\n", k, (int)st, err);
    return st;
}

/* deterministic pseudo-random numbers for inputs */
static uint32_t rng_state = 12345;
static inline uint32_t rnd_u32(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 17; rng_state ^= rng_state << 5;
    return rng_state;
}
static inline float rnd_f(float lo, float hi) { return lo + (hi - lo) * (float)(rnd_u32() >> 8) / 16777216.0f; }

static inline int finish(const char *name)
{
    for (int i = 0; i < g_ntexts; i++) free(g_texts[i]);
    g_ntexts = 0;
    if (g_fail) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, g_fail, g_checks);
        return 1;
    }
    printf("%s: %d checks passed\n", name, g_checks);
    return 0;
}

#endif

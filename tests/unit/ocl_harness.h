/*
 * ocl_harness.h - unit tests of the OpenCL backend (test_ocl_*.c) load
 * libtorchfl-opencl.so through its entry point, exactly as torchfl does,
 * and compare what it computes with the host backend on the same inputs.
 *
 *   ocl_h_init()              load, init (PoCL's CPU device here); exits 1
 *                             with a message when the plugin cannot run
 *   ocl_h_alloc(n)            device memory (its own segment; not host-
 *                             addressable: touching it from here faults)
 *   ocl_h_put / ocl_h_get     blocking copies in and out
 *   ocl_h_dev(host, n)        alloc + put, the common case
 *   ocl_h_run(op)             op_supported + op_run on the default stream,
 *                             then stream_sync; returns the status
 *   OCL_H_CHECK(cond)         count a failure with its line
 *
 * and what the tests share to make inputs and judge results:
 *
 *   ocl_h_xs32 / ocl_h_xs64   xorshift generators (each test its own seed);
 *                             ocl_h_urand32 / ocl_h_urand64 uniform doubles
 *   ocl_h_load / ocl_h_store  an element of any real dtype as a double
 *                             (float16/bfloat16 rounded as the host does);
 *                             ocl_h_ld / ocl_h_st element i of an array
 *   ocl_h_compare             host and device results agree within a
 *                             tolerance (ocl_h_tol: about an ulp a dtype)
 *   ocl_h_buf                 a host operand and its device twin
 *   ocl_h_run_both            an op on the host backend and natively
 *   ocl_h_pool                a case's typed buffers and their twins:
 *                             _add/_up/_dev build an op on either side,
 *                             _case runs it both ways and compares every
 *                             buffer (ocl_h_tol_sum: sums of many terms),
 *                             _refused checks a refusal
 *
 * The plugin's path comes from the build (TFL_OPENCL_PLUGIN).
 */
#ifndef TFL_OCL_HARNESS_H
#define TFL_OCL_HARNESS_H

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchfl/backend.h"
#include "backends/host/host_ops.h"
#include "common/half.h"

static const tfl_backend *ocl_h;
static int ocl_h_failures;

#define OCL_H_CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    ocl_h_failures++; } } while (0)

static void ocl_h_log(int level, const char *fmt, ...)
{
    if (level > 1 && !getenv("OCL_H_VERBOSE"))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "torchfl: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const char *ocl_h_config(const char *key)
{
    /* tests run with the defaults; a private binary cache keeps them from
     * depending on (or filling) the user's */
    if (strcmp(key, "opencl.cache_dir") == 0)
        return getenv("OCL_H_CACHE") ? getenv("OCL_H_CACHE") : "/tmp/torchfl-test-oclcache";
    if (strcmp(key, "opencl.inject_fault") == 0)
        return getenv("OCL_H_INJECT");
    return NULL;
}

static const tfl_host_api ocl_h_api = { TFL_BACKEND_ABI_VERSION, ocl_h_log, ocl_h_config };

static inline void ocl_h_init(void)
{
    void *h = dlopen(TFL_OPENCL_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cannot load %s: %s\n", TFL_OPENCL_PLUGIN, dlerror());
        exit(1);
    }
    tfl_backend_entry_fn entry = (tfl_backend_entry_fn)dlsym(h, TORCHFL_BACKEND_ENTRY);
    ocl_h = entry ? entry(TFL_BACKEND_ABI_VERSION) : NULL;
    char why[256] = "";
    if (!ocl_h || !ocl_h->probe(why, sizeof why) || ocl_h->init(&ocl_h_api) != TFL_OK) {
        fprintf(stderr, "OpenCL backend unusable: %s\n", why[0] ? why : "init failed");
        exit(1);
    }
}

static inline void *ocl_h_alloc(size_t n)
{
    void *p = NULL;
    size_t sz = (n + 4095) / 4096 * 4096;
    if (ocl_h->mem_alloc(0, sz ? sz : 4096, &p) != TFL_OK) {
        fprintf(stderr, "device allocation of %zu bytes failed\n", n);
        exit(1);
    }
    return p;
}

static inline void ocl_h_free(void *p, size_t n)
{
    size_t sz = (n + 4095) / 4096 * 4096;
    ocl_h->mem_free(0, p, sz ? sz : 4096);
}

static inline void ocl_h_put(void *dev, const void *host, size_t n)
{
    if (ocl_h->memcpy(dev, host, n, TFL_COPY_H2D, NULL) != TFL_OK) {
        fprintf(stderr, "H2D copy failed\n");
        exit(1);
    }
}

static inline void ocl_h_get(void *host, const void *dev, size_t n)
{
    if (ocl_h->memcpy(host, dev, n, TFL_COPY_D2H, NULL) != TFL_OK) {
        fprintf(stderr, "D2H copy failed\n");
        exit(1);
    }
}

static inline void *ocl_h_dev(const void *host, size_t n)
{
    void *d = ocl_h_alloc(n);
    ocl_h_put(d, host, n);
    return d;
}

/* Run op natively on the OpenCL backend; TFL_ERR_UNSUPPORTED if it says
 * it cannot. */
static inline tfl_status ocl_h_run(const tfl_op *op)
{
    if (!ocl_h->op_supported(op))
        return TFL_ERR_UNSUPPORTED;
    tfl_status st = ocl_h->op_run(op, NULL);
    tfl_status s2 = ocl_h->stream_sync(NULL);
    return st != TFL_OK ? st : s2;
}

/* An op of kind, every other field zero. */
static inline tfl_op ocl_h_op(tfl_op_kind kind)
{
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    return op;
}

/* Whether op runs natively; when not, a failure (counted, printed). */
static inline int ocl_h_native(const char *what, const tfl_op *op)
{
    if (ocl_h->op_supported(op))
        return 1;
    fprintf(stderr, "%s: not supported natively\n", what);
    ocl_h_failures++;
    return 0;
}

/* hop on the host backend, then dop natively (ocl_h_run): 1 when both
 * succeed, else a failure (counted, printed). */
static inline int ocl_h_run_both(const char *what, const tfl_op *hop, const tfl_op *dop)
{
    tfl_status hs = tfl_host_backend.op_run(hop, NULL), ds = ocl_h_run(dop);
    if (hs == TFL_OK && ds == TFL_OK)
        return 1;
    fprintf(stderr, "%s: host status %d, device status %d\n", what, (int)hs, (int)ds);
    ocl_h_failures++;
    return 0;
}

/* ------------------------------------------------------------ values */

/* xorshift32 (13, 17, 5) and xorshift64 (13, 7, 17) steps of *s. */
static inline uint32_t ocl_h_xs32(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static inline uint64_t ocl_h_xs64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Uniform in [lo, hi) from 24 bits of ocl_h_xs32 / 53 of ocl_h_xs64. */
static inline double ocl_h_urand32(uint32_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(ocl_h_xs32(s) >> 8) / 16777216.0;
}

static inline double ocl_h_urand64(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(ocl_h_xs64(s) >> 11) / 9007199254740992.0;
}

static inline const char *ocl_h_dt_name(int t)
{
    static const char *const n[] = { "f32", "f64", "f16", "bf16", "c64", "c128", "i8", "u8",
                                     "i32", "i64", "bool" };
    return t >= 0 && t < (int)(sizeof n / sizeof n[0]) ? n[t] : "-";
}

/* The element of real dtype t at p, as a double; storing v rounds it to
 * t (float16/bfloat16 to nearest even through float, as the host does;
 * integers by C conversion); a bool is 0 or 1 either way. */
static inline double ocl_h_load(int t, const void *p)
{
    switch (t) {
    case TFL_DT_F32: { float f; memcpy(&f, p, 4); return f; }
    case TFL_DT_F64: { double d; memcpy(&d, p, 8); return d; }
    case TFL_DT_F16: { uint16_t h; memcpy(&h, p, 2); return tfl_f16_to_f32(h); }
    case TFL_DT_BF16: { uint16_t h; memcpy(&h, p, 2); return tfl_bf16_to_f32(h); }
    case TFL_DT_I8: return *(const int8_t *)p;
    case TFL_DT_U8: return *(const uint8_t *)p;
    case TFL_DT_BOOL: return *(const uint8_t *)p != 0;
    case TFL_DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TFL_DT_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    default: return 0;
    }
}

static inline void ocl_h_store(int t, void *p, double v)
{
    switch (t) {
    case TFL_DT_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case TFL_DT_F64: memcpy(p, &v, 8); break;
    case TFL_DT_F16: { uint16_t h = tfl_f32_to_f16((float)v); memcpy(p, &h, 2); break; }
    case TFL_DT_BF16: { uint16_t h = tfl_f32_to_bf16((float)v); memcpy(p, &h, 2); break; }
    case TFL_DT_I8: *(uint8_t *)p = (uint8_t)(int8_t)v; break;
    case TFL_DT_U8: *(uint8_t *)p = (uint8_t)v; break;
    case TFL_DT_BOOL: *(uint8_t *)p = v != 0; break;
    case TFL_DT_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case TFL_DT_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    default: break;
    }
}

/* Element i of an array of dtype t. */
static inline double ocl_h_ld(int t, const void *p, int64_t i)
{
    return ocl_h_load(t, (const char *)p + i * (int64_t)tfl_dtype_size((tfl_dtype)t));
}

static inline void ocl_h_st(int t, void *p, int64_t i, double v)
{
    ocl_h_store(t, (char *)p + i * (int64_t)tfl_dtype_size((tfl_dtype)t), v);
}

/* ------------------------------------------------------------ comparing */

/* Elements compared by ocl_h_compare, and those not bit-identical. */
static int64_t ocl_h_compared, ocl_h_inexact;

/* A relative tolerance of about one unit in the last place of t (the
 * device may round an intermediate differently). */
static inline double ocl_h_tol(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F16: return 1.5e-3;
    case TFL_DT_BF16: return 1.2e-2;
    case TFL_DT_F64: return 1e-12;
    default: return 1e-5;
    }
}

/* n elements of dtype t agree: the same bytes, or NaN and NaN, or both
 * finite and |got - want| <= rel * (|want| + floor) + abs (rel, floor and
 * abs all 0: only the same bytes).  The first mismatches are printed
 * (what[i]); a mismatch fails the check.  Returns how many there were. */
static inline int64_t ocl_h_compare(const char *what, tfl_dtype t, const void *want,
                                    const void *got, int64_t n, double rel, double floor,
                                    double abs)
{
    const int64_t es = (int64_t)tfl_dtype_size(t);
    const int exact = rel == 0 && floor == 0 && abs == 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = ocl_h_ld(t, want, i), g = ocl_h_ld(t, got, i);
        int same = memcmp((const char *)want + i * es, (const char *)got + i * es,
                          (size_t)es) == 0;
        ocl_h_compared++;
        ocl_h_inexact += !same;
        int ok = same || (!exact && ((isnan(w) && isnan(g)) ||
                                     (isfinite(w) && isfinite(g) &&
                                      fabs(w - g) <= rel * (fabs(w) + floor) + abs)));
        if (!ok && bad++ < 4)
            fprintf(stderr, "%s[%lld]: host %.17g opencl %.17g\n", what, (long long)i, w, g);
    }
    OCL_H_CHECK(bad == 0);
    return bad;
}

/* ------------------------------------------------------------ buffers */

/* A host operand (what the host backend sees; zeroed, 16 bytes of slack)
 * and its device twin. */
typedef struct ocl_h_buf {
    void *h, *d;
    size_t bytes;
} ocl_h_buf;

static inline ocl_h_buf ocl_h_buf_new(size_t bytes)
{
    ocl_h_buf b = { calloc(1, bytes + 16), ocl_h_alloc(bytes ? bytes : 1), bytes };
    return b;
}

/* The host copy onto the device. */
static inline void ocl_h_buf_up(const ocl_h_buf *b)
{
    ocl_h_put(b->d, b->h, b->bytes ? b->bytes : 1);
}

/* The device copy, in a new host buffer (free it). */
static inline void *ocl_h_buf_down(const ocl_h_buf *b)
{
    void *got = calloc(1, b->bytes + 16);
    ocl_h_get(got, b->d, b->bytes ? b->bytes : 1);
    return got;
}

static inline void ocl_h_buf_drop(ocl_h_buf *b)
{
    if (b->h) {
        ocl_h_free(b->d, b->bytes ? b->bytes : 1);
        free(b->h);
    }
    memset(b, 0, sizeof *b);
}

/* The host or the device copy, as an op built for either wants it. */
static inline void *ocl_h_at(const ocl_h_buf *b, int dev)
{
    return dev ? b->d : b->h;
}

/* ------------------------------------------------------------ buffer pools */

/* The typed buffers one test case allocates (n elements of t each, at
 * least one element's room), so that an op built on the host copies can
 * be moved to the device twins (ocl_h_pool_dev) and every buffer compared
 * after the run (ocl_h_pool_compare).  Zero-initialise a pool. */
enum { OCL_H_POOL_MAX = 32 };

typedef struct ocl_h_pbuf {
    ocl_h_buf b;
    tfl_dtype t;
    int64_t n;
} ocl_h_pbuf;

typedef struct ocl_h_pool {
    int n;
    ocl_h_pbuf buf[OCL_H_POOL_MAX];
    int64_t compared, exact;        /* elements compared, bit-identical */
} ocl_h_pool;

/* A new zeroed host buffer of n elements of t in p (fill it, then
 * ocl_h_pool_up); its device twin is allocated, not yet written. */
static inline void *ocl_h_pool_add(ocl_h_pool *p, tfl_dtype t, int64_t n)
{
    if (p->n == OCL_H_POOL_MAX) {
        fprintf(stderr, "more than %d buffers in a pool\n", OCL_H_POOL_MAX);
        exit(1);
    }
    ocl_h_pbuf *b = &p->buf[p->n++];
    b->b = ocl_h_buf_new((size_t)(n > 0 ? n : 1) * tfl_dtype_size(t));
    b->t = t;
    b->n = n;
    return b->b.h;
}

/* The pool buffer whose host copy holds host address h, or NULL. */
static inline ocl_h_pbuf *ocl_h_pool_find(ocl_h_pool *p, const void *h)
{
    for (int i = 0; i < p->n; i++) {
        const char *b = p->buf[i].b.h;
        if ((const char *)h >= b && (const char *)h < b + p->buf[i].b.bytes)
            return &p->buf[i];
    }
    return NULL;
}

/* The host copy of the buffer holding h onto its device twin (after
 * filling it, or after changing it). */
static inline void ocl_h_pool_up(ocl_h_pool *p, const void *h)
{
    ocl_h_pbuf *b = ocl_h_pool_find(p, h);
    if (b)
        ocl_h_buf_up(&b->b);
}

/* The device address of host address h (NULL stays NULL); h outside the
 * pool ends the test. */
static inline void *ocl_h_pool_dev(ocl_h_pool *p, const void *h)
{
    if (!h)
        return NULL;
    ocl_h_pbuf *b = ocl_h_pool_find(p, h);
    if (!b) {
        fprintf(stderr, "pointer %p is in no buffer\n", h);
        exit(1);
    }
    return (char *)b->b.d + ((const char *)h - (const char *)b->b.h);
}

static inline void ocl_h_pool_free(ocl_h_pool *p)
{
    for (int i = 0; i < p->n; i++)
        ocl_h_buf_drop(&p->buf[i].b);
    p->n = 0;
}

/* Tolerances for pool buffers holding sums of many terms (convolution,
 * normalisation, pooling): about one unit in the last place of float16 /
 * bfloat16, 1e-4 relative otherwise, integers (indices) exactly; and a
 * floor, as a fraction of the buffer's largest magnitude, for sums that
 * cancel: 1e-6 for float32, the tolerance itself for the half types
 * (they round at their operands' scale). */
static inline double ocl_h_tol_sum(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F16: return 2e-3;
    case TFL_DT_BF16: return 1.6e-2;
    case TFL_DT_I8: case TFL_DT_U8: case TFL_DT_I32: case TFL_DT_I64: case TFL_DT_BOOL: return 0;
    default: return 1e-4;
    }
}

static inline double ocl_h_floor_sum(tfl_dtype t)
{
    return t == TFL_DT_F32 ? 1e-6 : ocl_h_tol_sum(t);
}

/* Every buffer's device copy against its host copy: element w and g
 * agree when both are NaN, equal, or |w - g| <= rel(t) |w| + floor_of(t) mx,
 * mx the buffer's largest host magnitude (sums that cancel round at
 * their operands' scale).  The first mismatches of each buffer are
 * printed; a mismatch fails the check. */
static inline void ocl_h_pool_compare(ocl_h_pool *p, const char *what, double (*rel)(tfl_dtype),
                                      double (*floor_of)(tfl_dtype))
{
    for (int k = 0; k < p->n; k++) {
        const ocl_h_pbuf *b = &p->buf[k];
        void *got = ocl_h_buf_down(&b->b);
        double mx = 0;
        for (int64_t i = 0; i < b->n; i++)
            mx = fmax(mx, fabs(ocl_h_ld(b->t, b->b.h, i)));
        const double tol = rel(b->t), fl = floor_of(b->t) * mx;
        int bad = 0;
        for (int64_t i = 0; i < b->n; i++) {
            double w = ocl_h_ld(b->t, b->b.h, i), g = ocl_h_ld(b->t, got, i);
            p->compared++;
            if ((isnan(w) && isnan(g)) || w == g) {
                p->exact++;
                continue;
            }
            if (!(fabs(w - g) <= tol * fabs(w) + fl) && bad++ < 4)
                fprintf(stderr, "%s (%s): buffer %d [%lld]: host %.9g opencl %.9g\n", what,
                        ocl_h_dt_name(b->t), k, (long long)i, w, g);
        }
        OCL_H_CHECK(bad == 0);
        free(got);
    }
}

/* hop on the host backend and dop (hop on the pool's device twins)
 * natively; when both ran, every pool buffer compared as
 * ocl_h_pool_compare does.  Frees the pool; returns dop's status (not
 * TFL_OK: a failure, printed). */
static inline tfl_status ocl_h_pool_case(ocl_h_pool *p, const char *what, const tfl_op *hop,
                                         const tfl_op *dop, double (*rel)(tfl_dtype),
                                         double (*floor_of)(tfl_dtype))
{
    OCL_H_CHECK(tfl_host_backend.op_run(hop, NULL) == TFL_OK);
    tfl_status st = ocl_h_run(dop);
    if (st != TFL_OK) {
        fprintf(stderr, "%s: opencl status %d\n", what, (int)st);
        OCL_H_CHECK(st == TFL_OK);
    } else {
        ocl_h_pool_compare(p, what, rel, floor_of);
    }
    ocl_h_pool_free(p);
    return st;
}

/* dop must be refused (nothing runs).  Frees the pool. */
static inline void ocl_h_pool_refused(ocl_h_pool *p, const char *what, const tfl_op *dop)
{
    if (ocl_h->op_supported(dop)) {
        fprintf(stderr, "%s: accepted, should be refused\n", what);
        OCL_H_CHECK(0);
    }
    ocl_h_pool_free(p);
}

static inline int ocl_h_finish(const char *name)
{
    if (ocl_h_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, ocl_h_failures);
    else
        printf("%s: ok\n", name);
    if (ocl_h->fini)
        ocl_h->fini();
    return ocl_h_failures ? 1 : 0;
}

#endif

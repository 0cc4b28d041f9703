/*
 * ocl_src.c - the helpers ocl_src.h declares for the OpenCL backend's op
 * files: generated source, type names, operands, launches, kernel caches.
 */
#include "backends/opencl/ocl_src.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ocl_ldf / ocl_stf (OCL_SRC_LOWP) number element types as tfl_dtype */
_Static_assert(TFL_DT_F32 == 0 && TFL_DT_F16 == 2 && TFL_DT_BF16 == 3,
               "OCL_SRC_LOWP's type numbers follow tfl_dtype");

/* ------------------------------------------------------------ generated source */

void ocl_put(ocl_sbuf *b, const char *fmt, ...)
{
    if (b->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->err = 1;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->len + (size_t)n + 4096;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->err = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *ocl_sbuf_take(ocl_sbuf *b)
{
    if (b->err || !b->p) {
        free(b->p);
        b->p = NULL;
        return NULL;
    }
    return b->p;
}

const char *ocl_src_join(char **slot, const char *head, const char *body)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    if (!*slot) {
        size_t a = strlen(head), b = strlen(body);
        char *s = malloc(a + b + 1);
        if (s) {
            memcpy(s, head, a);
            memcpy(s + a, body, b + 1);
        }
        *slot = s;
    }
    pthread_mutex_unlock(&mu);
    return *slot;
}

/* ------------------------------------------------------------ types and options */

const char *ocl_type_of(tfl_dtype t)
{
    static const char *const names[TFL_DT_COUNT] = {
        [TFL_DT_F32] = "float", [TFL_DT_F64] = "double", [TFL_DT_F16] = "half",
        [TFL_DT_BF16] = "ushort", [TFL_DT_I8] = "char", [TFL_DT_U8] = "uchar",
        [TFL_DT_I32] = "int", [TFL_DT_I64] = "long", [TFL_DT_BOOL] = "uchar",
    };
    return (unsigned)t < TFL_DT_COUNT ? names[t] : NULL;
}

const char *ocl_bits_type(size_t bytes)
{
    switch (bytes) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    default: return "ulong";
    }
}

static pthread_once_t div_once = PTHREAD_ONCE_INIT;
static const char *div_opt;

static void div_init(void)
{
    cl_device_fp_config cfg = 0;
    if (clGetDeviceInfo(ocl_dev()->id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof cfg, &cfg, NULL) ==
            CL_SUCCESS && (cfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
        div_opt = "-cl-fp32-correctly-rounded-divide-sqrt";
}

const char *ocl_div_opt(void)
{
    pthread_once(&div_once, div_init);
    return div_opt;
}

size_t ocl_pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* ------------------------------------------------------------ operands */

int ocl_arg_range(const void *p, size_t n, size_t align, int absent_ok, ocl_arg *a)
{
    a->b = NULL;
    a->o = 0;
    if (!p || n == 0)
        return absent_ok;
    size_t off;
    if ((uintptr_t)p % align || !ocl_resolve(p, n, &a->b, &off))
        return 0;
    a->o = off;
    return 1;
}

int ocl_arg_span(const void *p, int64_t lo, int64_t hi, ocl_arg *a)
{
    size_t off;
    a->b = NULL;
    a->o = 0;
    if (!p || hi <= lo || (lo < 0 && (uintptr_t)p < (uint64_t)-lo) ||
        !ocl_resolve((const char *)p + lo, (size_t)(hi - lo), &a->b, &off))
        return 0;
    a->o = (cl_ulong)((int64_t)off - lo);
    return 1;
}

int ocl_extent(int dims, const int64_t *len, const int64_t *stride, int64_t *lo, int64_t *hi)
{
    for (int d = 0; d < dims; d++) {
        int64_t ext;
        if (__builtin_mul_overflow(len[d] - 1, stride[d], &ext) ||
            __builtin_add_overflow(ext < 0 ? *lo : *hi, ext, ext < 0 ? lo : hi))
            return 0;
    }
    return 1;
}

int ocl_arg_view(const void *p, size_t es, int dims, const int64_t *len, const int64_t *stride,
                 ocl_arg *a)
{
    a->b = NULL;
    a->o = 0;
    int64_t lo = 0, hi = 0, first, end;
    for (int d = 0; d < dims; d++) {
        if (len[d] == 0)
            return 1;
        if (!ocl_extent(1, &len[d], &stride[d], &lo, &hi))
            return 0;
    }
    /* bytes [lo * es, (hi + 1) * es) around p */
    return p && (uintptr_t)p % es == 0 && !__builtin_mul_overflow(lo, (int64_t)es, &first) &&
           !__builtin_add_overflow(hi, 1, &end) &&
           !__builtin_mul_overflow(end, (int64_t)es, &end) && ocl_arg_span(p, first, end, a);
}

int ocl_arg_run(const void *p, size_t es, int64_t n, ocl_arg *a)
{
    const int64_t one = 1;
    return ocl_arg_view(p, es, 1, &n, &one, a);
}

/* ------------------------------------------------------------ launching */

tfl_status ocl_launch(ocl_kernel *k, const ocl_karg *args, int nargs, size_t items, size_t wg,
                      tfl_stream s)
{
    if (!k)
        return TFL_ERR_INTERNAL;
    if (items == 0)
        return TFL_OK;
    tfl_status st = TFL_OK;
    pthread_mutex_lock(&k->lock);
    for (int i = 0; i < nargs && st == TFL_OK; i++)
        st = ocl_status(clSetKernelArg(k->k, (cl_uint)i, args[i].size, args[i].val),
                        "clSetKernelArg");
    if (st == TFL_OK && wg == 0) {
        st = ocl_launch_1d(k, items, s);
    } else if (st == TFL_OK) {
        cl_event ev = NULL;
        st = ocl_status(clEnqueueNDRangeKernel(ocl_queue(s), k->k, 1, NULL, &items, &wg, 0,
                                               NULL, &ev), "clEnqueueNDRangeKernel");
        if (st == TFL_OK)
            ocl_track(s, ev);
    }
    pthread_mutex_unlock(&k->lock);
    return st;
}

void ocl_args_add(ocl_args *a, const void *v, size_t size)
{
    size_t at = (a->used + 15) / 16 * 16;
    if (a->err || a->n == OCL_ARGS_MAX || (v && (at > OCL_ARGS_BYTES ||
                                                 size > OCL_ARGS_BYTES - at))) {
        a->err = 1;
        return;
    }
    a->size[a->n] = size;
    a->at[a->n] = v ? at : SIZE_MAX;
    if (v) {
        memcpy(a->data + at, v, size);
        a->used = at + size;
    }
    a->n++;
}

tfl_status ocl_launch_args(ocl_kernel *k, const ocl_args *a, size_t items, size_t wg,
                           tfl_stream s)
{
    if (a->err) {
        OCL_LOG(OCL_ERROR, "opencl: a kernel's arguments exceed ocl_args");
        return TFL_ERR_INTERNAL;
    }
    ocl_karg t[OCL_ARGS_MAX];
    for (int i = 0; i < a->n; i++)
        t[i] = (ocl_karg){ a->size[i], a->at[i] == SIZE_MAX ? NULL : a->data + a->at[i] };
    return ocl_launch(k, t, a->n, items, wg, s);
}

/* Whether kernel name of src/opts allows work-groups of w items. */
static int allows(const char *src, const char *opts, const char *name, size_t w, int *err)
{
    ocl_kernel *k = ocl_kernel_get(src, opts, name);
    size_t kw = 0;
    if (!k || clGetKernelWorkGroupInfo(k->k, ocl_dev()->id, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof kw, &kw, NULL) != CL_SUCCESS) {
        *err = 1;
        return 0;
    }
    return kw >= w;
}

ocl_kernel *ocl_kernel_wg(const char *src, const char *opts, const char *name,
                          const char *const *probes, size_t max, size_t *wg)
{
    const char *const self[] = { name, NULL };
    if (!probes)
        probes = self;
    size_t w = max;
    while (w > ocl_dev()->max_wg)
        w >>= 1;
    for (; w >= 1; w >>= 1) {
        char all[320];
        snprintf(all, sizeof all, "%s -DWG=%zu", opts, w);
        int err = 0, fits = 1;
        for (int i = 0; probes[i] && fits; i++)
            fits = allows(src, all, probes[i], w, &err);
        if (err)
            return NULL;
        if (fits) {
            *wg = w;
            return ocl_kernel_get(src, all, name);
        }
    }
    return NULL;
}

ocl_kernel *ocl_kernel_src(char *src, const char *name, size_t max, size_t *wg)
{
    if (!src)
        return NULL;
    const char *opts = ocl_div_opt();
    ocl_kernel *k = ocl_kernel_get(src, opts ? opts : "", name);
    free(src);
    if (!k || !wg)
        return k;
    /* the group size this kernel allows (local memory, registers) */
    size_t kwg = 0;
    if (clGetKernelWorkGroupInfo(k->k, ocl_dev()->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg,
                                 &kwg, NULL) != CL_SUCCESS || kwg == 0)
        kwg = 1;
    *wg = ocl_pow2_floor(kwg < max ? kwg : max);
    return k;
}

tfl_status ocl_blast_status(int rc, const char *call)
{
    if (rc == 0)      /* CLBlastSuccess */
        return TFL_OK;
    if (rc > -1000)   /* an OpenCL code */
        return ocl_status((cl_int)rc, call);
    OCL_LOG(OCL_ERROR, "opencl: %s failed: CLBlast status %d", call, rc);
    return TFL_ERR_INTERNAL;
}

/* ------------------------------------------------------------ kernel cache */

static uint32_t key_hash(const void *key, size_t klen)
{
    const unsigned char *b = key;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < klen; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

/* With c->lock held: forget everything if the program cache was freed. */
static void kcache_current(ocl_kcache *c)
{
    unsigned g = ocl_program_generation();
    if (c->gen != g) {
        memset(c->slot, 0, c->n * sizeof *c->slot);
        c->gen = g;
    }
}

/* Open addressing without removal: a key is in the first empty slot
 * from its hash on, or not at all. */
ocl_kernel *ocl_kcache_get(ocl_kcache *c, const void *key, size_t klen, size_t *aux)
{
    if (klen > OCL_KEY_MAX)
        return NULL;
    uint32_t h = key_hash(key, klen);
    ocl_kernel *k = NULL;
    pthread_mutex_lock(&c->lock);
    kcache_current(c);
    for (size_t i = 0; i < c->n; i++) {
        const ocl_kslot *e = &c->slot[(h + i) % c->n];
        if (!e->k)
            break;
        if (e->klen == klen && memcmp(e->key, key, klen) == 0) {
            k = e->k;
            if (aux)
                *aux = e->aux;
            break;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return k;
}

void ocl_kcache_put(ocl_kcache *c, const void *key, size_t klen, ocl_kernel *k, size_t aux)
{
    if (klen > OCL_KEY_MAX || !k)
        return;
    uint32_t h = key_hash(key, klen);
    pthread_mutex_lock(&c->lock);
    kcache_current(c);
    for (size_t i = 0; i < c->n; i++) {
        ocl_kslot *e = &c->slot[(h + i) % c->n];
        if (e->k && (e->klen != klen || memcmp(e->key, key, klen) != 0))
            continue;
        /* empty, or the same key put by another thread meanwhile */
        e->k = k;
        e->aux = aux;
        e->klen = klen;
        memcpy(e->key, key, klen);
        break;
    }
    pthread_mutex_unlock(&c->lock);
}

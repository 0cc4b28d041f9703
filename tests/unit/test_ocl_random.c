/*
 * test_ocl_random.c - TFL_OP_RANDOM on the OpenCL backend (ocl_random.c)
 * against the host backend (tfl_host_backend.op_run) on the same inputs:
 * every byte the op writes must be the host's, bit for bit.
 *
 * Covers: uniform / bernoulli in float, double, half and bfloat16 (the
 * (0, 1] bound mapped back); integer draws of 32 and 64 bits with and
 * without a range into every output type; dropout grid-stride and
 * vectorised (vec 2, 4, 8, 16) in float / half / bfloat16 with bool and
 * byte masks, and its masked scale; bernoulli with a float / double
 * probability tensor (apply4); rrelu; multinomial and its renorm; strided
 * (transposed, stepped) outputs.  Seeds with both words set, offsets with
 * offset % 4 = 0..3 (draws straddling two Philox blocks), launches with 1,
 * a few, many and more threads than elements, odd sizes and one over
 * 2^20 elements.  Kinds the backend refuses (normal, exponential, cauchy,
 * log_normal, geometric: libm transforms) must say so.
 *
 * Buffers start with a fill pattern, so bytes an op must not write are
 * compared too.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

static uint32_t lcg = 2463534242u;

static uint32_t next_u32(void)
{
    return ocl_h_xs32(&lcg);
}

/* One operand: its host copy (what the host backend sees) and device copy. */
typedef struct obuf {
    unsigned char *h, *d0;    /* host copy; its initial content          */
    void *d;                  /* device copy                             */
    size_t bytes;
} obuf;

static obuf mk(size_t bytes)
{
    obuf b = { malloc(bytes ? bytes : 1), malloc(bytes ? bytes : 1), NULL, bytes };
    memset(b.h, 0xA5, bytes);
    b.d = ocl_h_alloc(bytes);
    return b;
}

static void upload(obuf *b)
{
    memcpy(b->d0, b->h, b->bytes);
    ocl_h_put(b->d, b->h, b->bytes);
}

static void drop(obuf *b)
{
    if (b->h) {
        ocl_h_free(b->d, b->bytes);
        free(b->h);
        free(b->d0);
    }
    memset(b, 0, sizeof *b);
}

static int ran, refused;

/* Host and device bytes of b agree. */
static int same_bytes(const char *name, const char *what, const obuf *b)
{
    unsigned char *got = malloc(b->bytes ? b->bytes : 1);
    ocl_h_get(got, b->d, b->bytes);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < b->bytes; i++)
        if (got[i] != b->h[i] && bad++ == 0)
            first = i;
    if (bad)
        fprintf(stderr, "%s: %s: %zu bytes differ, first at %zu: host %02x device %02x\n",
                name, what, bad, first, b->h[first], got[first]);
    free(got);
    OCL_H_CHECK(bad == 0);
    return bad == 0;
}

/* Run r (pointers: host copies of out/in/mask, at the views' offsets) on
 * both backends and compare every operand the op writes. */
static void run_both(const char *name, const tfl_random_op *r, obuf *out, obuf *in,
                     obuf *mask)
{
    tfl_op hop, dop;
    memset(&hop, 0, sizeof hop);
    hop.kind = TFL_OP_RANDOM;
    hop.name = "random";
    hop.u.random = *r;
    dop = hop;
    obuf *bs[3] = { out, in, mask };
    tfl_random_view *hv[3] = { &hop.u.random.out, &hop.u.random.in, &hop.u.random.mask };
    tfl_random_view *dv[3] = { &dop.u.random.out, &dop.u.random.in, &dop.u.random.mask };
    for (int k = 0; k < 3; k++) {
        if (!bs[k])
            continue;
        size_t at = (size_t)((unsigned char *)hv[k]->data - bs[k]->h);
        dv[k]->data = (char *)bs[k]->d + at;
        upload(bs[k]);
    }
    if (!ocl_h_native(name, &dop) || !ocl_h_run_both(name, &hop, &dop))
        return;
    ran++;
    same_bytes(name, "out", out);
    if (mask && r->kind != TFL_RANDOM_MULTINOMIAL)
        same_bytes(name, "mask", mask);
    if (in && (r->kind == TFL_RANDOM_MASKED_SCALE || r->kind == TFL_RANDOM_DROPOUT))
        same_bytes(name, "in", in);      /* read only */
}

/* ------------------------------------------------------------ inputs */

static float unit_float(void)
{
    return (float)(next_u32() >> 8) * 0x1p-24f;
}

/* n elements of a float-like type t: values in [-2, 2), some exact 0. */
static void fill_values(tfl_dtype t, unsigned char *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float v = unit_float() * 4.0f - 2.0f;
        if (i % 7 == 3)
            v = 0.0f;
        switch (t) {
        case TFL_DT_F64: ((double *)p)[i] = v; break;
        case TFL_DT_F16: {
            /* exact in half: multiples of 1/256 */
            float q = floorf(v * 256.0f) / 256.0f;
            uint32_t u;
            memcpy(&u, &q, 4);
            uint16_t h = 0;
            if (q != 0.0f) {
                int e = (int)((u >> 23) & 0xff) - 127 + 15;
                h = (uint16_t)(((u >> 16) & 0x8000u) | ((uint32_t)e << 10) | ((u >> 13) & 0x3ffu));
            }
            ((uint16_t *)p)[i] = h;
            break;
        }
        case TFL_DT_BF16: {
            uint32_t u;
            memcpy(&u, &v, 4);
            ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
            break;
        }
        default: ((float *)p)[i] = v; break;
        }
    }
}

/* ------------------------------------------------------------ cases */

static tfl_random_op base_op(tfl_random_kind kind, tfl_dtype dt, tfl_dtype acc, int64_t n,
                             uint64_t seed, uint64_t offset, uint64_t threads)
{
    tfl_random_op r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
    r.dtype = dt;
    r.acc = acc;
    r.numel = n;
    r.seed = seed;
    r.offset = offset;
    r.threads = threads;
    r.mask_dtype = TFL_DT_BOOL;
    return r;
}

typedef struct gen_shape {
    int64_t n;
    uint64_t seed, offset, threads;
} gen_shape;

/* Launch shapes: odd sizes, offsets 0..3 mod 4, few / many threads,
 * more threads than elements, one over 2^20 elements. */
static const gen_shape shapes[] = {
    { 1, 42, 0, 1 },
    { 1037, 0x0123456789abcdefull, 0, 1 },
    { 1037, 0x0123456789abcdefull, 5, 7 },
    { 4099, 0xfedcba9876543210ull, 10, 256 * 3 },
    { 333, 7, 123, 1 << 16 },
    { (1 << 20) + 3, 0x5eedull, 0x100000003ull, 108 * 4 * 256 },
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* Output view: 0 contiguous; 1 a transposed 2-d matrix; 2 every other
 * element (a 1-d stride). */
static void place_out(tfl_random_op *r, obuf *out, size_t es, int layout)
{
    int64_t n = r->numel;
    r->out.data = out->h;
    r->out.ndim = 0;
    if (layout == 1 && n % 3 == 0) {
        /* logical [n/3][3] (dim 0 = the 3 fastest): stored column-major */
        r->out.ndim = 2;
        r->out.sizes[0] = 3;
        r->out.sizes[1] = n / 3;
        r->out.strides[0] = (int64_t)es * (n / 3);
        r->out.strides[1] = (int64_t)es;
    } else if (layout == 2) {
        r->out.ndim = 1;
        r->out.sizes[0] = n;
        r->out.strides[0] = 2 * (int64_t)es;
    }
}

static size_t out_bytes(int64_t n, size_t es, int layout)
{
    return (size_t)n * es * (layout == 2 ? 2 : 1);
}

static void gen_case(const char *what, tfl_random_kind kind, tfl_dtype dt, tfl_dtype acc,
                     const gen_shape *s, int layout, double a, double b, double c, int bits,
                     uint64_t range, int64_t base)
{
    char name[160];
    snprintf(name, sizeof name, "%s n=%lld off=%llu T=%llu layout %d", what, (long long)s->n,
             (unsigned long long)s->offset, (unsigned long long)s->threads, layout);
    tfl_random_op r = base_op(kind, dt, acc, s->n, s->seed, s->offset, s->threads);
    r.a = a;
    r.b = b;
    r.c = c;
    r.bits = bits;
    r.range = range;
    r.base = base;
    size_t es = tfl_dtype_size(dt);
    obuf out = mk(out_bytes(s->n, es, layout));
    place_out(&r, &out, es, layout);
    run_both(name, &r, &out, NULL, NULL);
    drop(&out);
}

static void test_uniform_bernoulli(void)
{
    static const struct { tfl_dtype dt, acc; } forms[] = {
        { TFL_DT_F32, TFL_DT_F32 }, { TFL_DT_F64, TFL_DT_F64 },
        { TFL_DT_F16, TFL_DT_F32 }, { TFL_DT_BF16, TFL_DT_F32 },
    };
    for (size_t f = 0; f < 4; f++) {
        for (size_t i = 0; i < NSHAPES; i++) {
            const int dbl = forms[f].acc == TFL_DT_F64;
            /* uniform_(-3, 5): a = to - from, b = from, c = to */
            double a = dbl ? 8.0 : (double)8.0f, b = -3.0, c = 5.0;
            gen_case("uniform", TFL_RANDOM_UNIFORM, forms[f].dt, forms[f].acc, &shapes[i],
                     (int)(i % 3), a, b, c, 0, 0, 0);
            /* (0, 1]: draws of exactly 1 map back to `from` */
            gen_case("uniform01", TFL_RANDOM_UNIFORM, forms[f].dt, forms[f].acc, &shapes[i], 0,
                     1.0, 0.0, 1.0, 0, 0, 0);
            gen_case("bernoulli", TFL_RANDOM_BERNOULLI, forms[f].dt, forms[f].acc, &shapes[i],
                     (int)((i + 1) % 3), dbl ? 0.3 : (double)0.3f, 0, 0, 0, 0, 0);
        }
    }
}

static void test_integers(void)
{
    static const tfl_dtype outs[] = { TFL_DT_I64, TFL_DT_I32, TFL_DT_I8, TFL_DT_U8,
                                      TFL_DT_BOOL, TFL_DT_F32, TFL_DT_F64, TFL_DT_F16,
                                      TFL_DT_BF16 };
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
        for (size_t i = 0; i < NSHAPES; i++) {
            if (i == NSHAPES - 1 && o % 3)
                continue;              /* the large shape for a few types */
            /* randint(-5, 1000): 32-bit draws */
            gen_case("randint32", TFL_RANDOM_INT_FROM_TO, outs[o], TFL_DT_F32, &shapes[i],
                     (int)(i % 3), 0, 0, 0, 32, 1005, -5);
            /* a range over 2^32: 64-bit draws */
            gen_case("randint64", TFL_RANDOM_INT_FROM_TO, outs[o], TFL_DT_F32, &shapes[i],
                     (int)((i + 2) % 3), 0, 0, 0, 64, 0x300000007ull, -0x100000000ll);
            /* random_() over the full 64-bit range */
            gen_case("random64", TFL_RANDOM_INT_FROM_TO, outs[o], TFL_DT_F32, &shapes[i], 0, 0,
                     0, 0, 64, 0, INT64_MIN);
        }
    }
}

static void dropout_case(tfl_dtype dt, tfl_dtype mdt, int vec, const gen_shape *s, float p)
{
    char name[160];
    snprintf(name, sizeof name, "dropout dt %d mask %d vec %d n=%lld off=%llu T=%llu", dt, mdt,
             vec, (long long)s->n, (unsigned long long)s->offset,
             (unsigned long long)s->threads);
    tfl_random_op r = base_op(TFL_RANDOM_DROPOUT, dt, TFL_DT_F32, s->n, s->seed, s->offset,
                              s->threads);
    if (vec) {
        r.traverse = TFL_RANDOM_TRAVERSE_VEC;
        r.vec = vec;
    }
    r.mask_dtype = mdt;
    r.a = p;
    size_t es = tfl_dtype_size(dt);
    obuf out = mk((size_t)s->n * es), in = mk((size_t)s->n * es), mask = mk((size_t)s->n);
    fill_values(dt, in.h, s->n);
    r.out.data = out.h;
    r.in.data = in.h;
    r.mask.data = mask.h;
    run_both(name, &r, &out, &in, &mask);

    /* its backward: grad * mask * (1 / p) */
    tfl_random_op b = base_op(TFL_RANDOM_MASKED_SCALE, dt, TFL_DT_F32, s->n, 0, 0, 0);
    b.mask_dtype = mdt;
    b.a = 1.0 / p;
    obuf gout = mk((size_t)s->n * es);
    b.out.data = gout.h;
    b.in.data = in.h;
    b.mask.data = mask.h;      /* the host's mask (the device's is the same) */
    snprintf(name, sizeof name, "masked_scale dt %d n=%lld", dt, (long long)s->n);
    run_both(name, &b, &gout, &in, &mask);
    drop(&gout);
    drop(&out);
    drop(&in);
    drop(&mask);
}

static void test_dropout(void)
{
    static const tfl_dtype dts[] = { TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };
    static const int vecs[] = { 0, 2, 4, 8, 16 };
    for (size_t d = 0; d < 3; d++)
        for (size_t v = 0; v < 5; v++)
            for (size_t i = 0; i < NSHAPES; i++) {
                if (i == NSHAPES - 1 && (d || v % 2))
                    continue;
                dropout_case(dts[d], (i % 2) ? TFL_DT_U8 : TFL_DT_BOOL, vecs[v], &shapes[i],
                             i % 2 ? 0.9f : 0.5f);
            }
}

static void test_bernoulli_tensor(void)
{
    static const tfl_dtype outs[] = { TFL_DT_F32, TFL_DT_I64, TFL_DT_BOOL, TFL_DT_F64,
                                      TFL_DT_U8 };
    for (int pd = 0; pd < 2; pd++) {
        tfl_dtype idt = pd ? TFL_DT_F64 : TFL_DT_F32;
        for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
            for (size_t i = 0; i < NSHAPES; i++) {
                if (i == NSHAPES - 1 && o)
                    continue;
                const gen_shape *s = &shapes[i];
                char name[160];
                snprintf(name, sizeof name, "bernoulli_tensor p %d out %d n=%lld T=%llu", idt,
                         outs[o], (long long)s->n, (unsigned long long)s->threads);
                tfl_random_op r = base_op(TFL_RANDOM_BERNOULLI_TENSOR, outs[o], TFL_DT_F32,
                                          s->n, s->seed, s->offset, s->threads);
                r.traverse = TFL_RANDOM_TRAVERSE_APPLY4;
                r.in_dtype = idt;
                size_t es = tfl_dtype_size(outs[o]);
                obuf out = mk(out_bytes(s->n, es, (int)(i % 3)));
                obuf in = mk((size_t)s->n * tfl_dtype_size(idt));
                for (int64_t j = 0; j < s->n; j++) {
                    float p = unit_float();
                    if (j % 11 == 0)
                        p = j % 22 ? 1.0f : 0.0f;
                    if (pd)
                        ((double *)in.h)[j] = p;
                    else
                        ((float *)in.h)[j] = p;
                }
                place_out(&r, &out, es, (int)(i % 3));
                r.in.data = in.h;
                run_both(name, &r, &out, &in, NULL);
                drop(&out);
                drop(&in);
            }
        }
    }
}

static void test_rrelu(void)
{
    static const struct { tfl_dtype dt, acc; } forms[] = {
        { TFL_DT_F32, TFL_DT_F32 }, { TFL_DT_F64, TFL_DT_F64 },
        { TFL_DT_F16, TFL_DT_F32 }, { TFL_DT_BF16, TFL_DT_F32 },
    };
    for (size_t f = 0; f < 4; f++) {
        for (size_t i = 0; i < NSHAPES; i++) {
            const gen_shape *s = &shapes[i];
            char name[160];
            snprintf(name, sizeof name, "rrelu dt %d n=%lld T=%llu", forms[f].dt,
                     (long long)s->n, (unsigned long long)s->threads);
            tfl_random_op r = base_op(TFL_RANDOM_RRELU, forms[f].dt, forms[f].acc, s->n,
                                      s->seed, s->offset, s->threads);
            r.a = 1.0 / 8;
            r.b = 1.0 / 3 - 1.0 / 8;
            size_t es = tfl_dtype_size(forms[f].dt);
            obuf out = mk((size_t)s->n * es), in = mk((size_t)s->n * es);
            obuf noise = mk((size_t)s->n * es);
            fill_values(forms[f].dt, in.h, s->n);
            r.out.data = out.h;
            r.in.data = in.h;
            r.mask.data = noise.h;
            run_both(name, &r, &out, &in, &noise);
            drop(&out);
            drop(&in);
            drop(&noise);
        }
    }
}

/* multinomial (with replacement) over rows x cols distributions, and
 * renormRowsL1 on them first. */
static void test_multinomial(void)
{
    static const struct { int64_t rows, cols, samples; uint32_t gx, gy, bx; } ms[] = {
        { 1, 1, 5, 1, 1, 32 },
        { 3, 17, 100, 1, 2, 32 },
        { 37, 1000, 257, 2, 5, 128 },
        { 5, 9, 1, 4, 8, 64 },
    };
    for (int dd = 0; dd < 2; dd++) {
        tfl_dtype dt = dd ? TFL_DT_F64 : TFL_DT_F32;
        size_t es = tfl_dtype_size(dt);
        for (size_t m = 0; m < sizeof ms / sizeof ms[0]; m++) {
            int64_t cells = ms[m].rows * ms[m].cols;
            obuf dist = mk((size_t)cells * es), cum = mk((size_t)cells * es);
            obuf out = mk((size_t)(ms[m].rows * ms[m].samples) * 8);
            /* weights with zeros; the host computes cum from renormed rows */
            for (int64_t i = 0; i < cells; i++) {
                double w = (i % 5 == 2) ? 0.0 : unit_float() * 3.0;
                if (dd)
                    ((double *)dist.h)[i] = w;
                else
                    ((float *)dist.h)[i] = (float)w;
            }
            char name[160];
            snprintf(name, sizeof name, "renorm dt %d %lldx%lld", dt, (long long)ms[m].rows,
                     (long long)ms[m].cols);
            tfl_random_op rn = base_op(TFL_RANDOM_RENORM_ROWS, dt, dt, 0, 0, 0, 0);
            rn.rows = ms[m].rows;
            rn.cols = ms[m].cols;
            rn.out.data = dist.h;
            run_both(name, &rn, &dist, NULL, NULL);
            for (int64_t r = 0; r < ms[m].rows; r++) {
                double acc = 0;
                for (int64_t c = 0; c < ms[m].cols; c++) {
                    int64_t i = r * ms[m].cols + c;
                    if (dd) {
                        acc += ((double *)dist.h)[i];
                        ((double *)cum.h)[i] = acc;
                    } else {
                        acc += ((float *)dist.h)[i];
                        ((float *)cum.h)[i] = (float)acc;
                    }
                }
            }
            snprintf(name, sizeof name, "multinomial dt %d %lldx%lld s=%lld", dt,
                     (long long)ms[m].rows, (long long)ms[m].cols, (long long)ms[m].samples);
            tfl_random_op r = base_op(TFL_RANDOM_MULTINOMIAL, dt, dt, 0, 0xabcdef12345ull,
                                      4 * m + m, 0);
            r.rows = ms[m].rows;
            r.cols = ms[m].cols;
            r.samples = ms[m].samples;
            r.grid_x = ms[m].gx;
            r.grid_y = ms[m].gy;
            r.block_x = ms[m].bx;
            r.out.data = out.h;
            r.in.data = dist.h;
            r.mask.data = cum.h;
            run_both(name, &r, &out, &dist, &cum);
            drop(&dist);
            drop(&cum);
            drop(&out);
        }
    }
}

/* Kinds whose transforms are libm functions run on the host. */
static void test_refused(void)
{
    static const tfl_random_kind kinds[] = {
        TFL_RANDOM_NORMAL, TFL_RANDOM_EXPONENTIAL, TFL_RANDOM_CAUCHY,
        TFL_RANDOM_LOG_NORMAL, TFL_RANDOM_GEOMETRIC,
    };
    obuf out = mk(64 * 8);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int dbl = 0; dbl < 2; dbl++) {
            tfl_dtype t = dbl ? TFL_DT_F64 : TFL_DT_F32;
            tfl_random_op r = base_op(kinds[k], t, t, 64, 1, 0, 16);
            r.a = 0.5;
            r.b = 1.0;
            r.out.data = out.d;
            tfl_op op = ocl_h_op(TFL_OP_RANDOM);
            op.u.random = r;
            OCL_H_CHECK(!ocl_h->op_supported(&op));
            refused++;
        }
    }
    /* an operand outside device memory is refused, not run */
    float host_mem[16];
    tfl_random_op r = base_op(TFL_RANDOM_UNIFORM, TFL_DT_F32, TFL_DT_F32, 16, 1, 0, 4);
    r.a = 1.0;
    r.c = 1.0;
    r.out.data = host_mem;
    tfl_op op = ocl_h_op(TFL_OP_RANDOM);
    op.u.random = r;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    drop(&out);
}

int main(void)
{
    ocl_h_init();
    test_uniform_bernoulli();
    test_integers();
    test_dropout();
    test_bernoulli_tensor();
    test_rrelu();
    test_multinomial();
    test_refused();
    printf("test_ocl_random: %d ops compared, %d refused as expected\n", ran, refused);
    return ocl_h_finish("test_ocl_random");
}

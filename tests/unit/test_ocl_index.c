/*
 * test_ocl_index.c - TFL_OP_INDEX on the OpenCL backend (ocl_index.c)
 * against the host backend on the same inputs.
 *
 * Every case allocates its buffers through buf(): a host copy and a
 * device copy of the same bytes.  The op runs natively on the device
 * pointers and on the host backend with the host pointers; then every
 * buffer, whole, must agree bit for bit (the native kernels fold
 * accumulations in the host's order, so even float sums are identical,
 * and nothing outside the op's outputs may change).
 *
 * Covers index_select (strided, transposed, 3-d, f32/f16/i64/bool, opaque
 * 12-byte elements, int32/int64 indices, empty), index_add / index_copy /
 * index_reduce with duplicate indices in every arithmetic dtype, row
 * gather (negative indices, odd row sizes), cat (every dim, strided
 * inputs and output, empty inputs), gather / scatter / scatter_add /
 * scatter_reduce / scatter of a value (duplicates, negative indices),
 * advanced indexing get and put (duplicates: the last wins), arange /
 * linspace, triu / tril (in place too), the sorted index_put_, fp16 and
 * bf16 arithmetic over every bit pattern, 200 checked ops in flight on a
 * stream, what must be refused, and bad indices (each in a child process,
 * since the device stays in error): issue succeeds, the next sync reports
 * TFL_ERR_DEVICE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ocl_harness.h"

/* ------------------------------------------------------------ buffers */

typedef struct buf { unsigned char *h; void *d; size_t n; } buf;
static buf bufs[64];
static int nbufs;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    return ocl_h_xs64(&rng_state);
}

/* n bytes, random, on both sides (put on the device by run_case). */
static void *buf_new(size_t n)
{
    buf *b = &bufs[nbufs++];
    b->n = n;
    b->h = malloc(n ? n : 1);
    b->d = ocl_h_alloc(n);
    for (size_t i = 0; i < n; i++)
        b->h[i] = (unsigned char)next();
    return b->h;
}

/* The device address of host address p (inside some buffer). */
static void *D(const void *p)
{
    if (!p)
        return NULL;
    for (int i = 0; i < nbufs; i++) {
        const unsigned char *h = bufs[i].h;
        if ((const unsigned char *)p >= h && (const unsigned char *)p <= h + bufs[i].n)
            return (char *)bufs[i].d + ((const unsigned char *)p - h);
    }
    fprintf(stderr, "D: %p is in no buffer\n", p);
    exit(1);
}

static void bufs_free(void)
{
    for (int i = 0; i < nbufs; i++) {
        ocl_h_free(bufs[i].d, bufs[i].n);
        free(bufs[i].h);
    }
    nbufs = 0;
}

/* ------------------------------------------------------------ values */

/* Finite values of dt, small enough that products and sums stay finite. */
static void fill(tfl_dtype dt, void *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        /* not dyadic: sums round, so a different order shows */
        double v = (double)(int64_t)(next() % 2001 - 1000) / 37.0;
        switch (dt) {
        case TFL_DT_F32: ((float *)p)[i] = (float)v; break;
        case TFL_DT_F64: ((double *)p)[i] = v; break;
        case TFL_DT_F16: ((uint16_t *)p)[i] = tfl_f32_to_f16((float)v); break;
        case TFL_DT_BF16: ((uint16_t *)p)[i] = tfl_f32_to_bf16((float)v); break;
        case TFL_DT_I32: ((int32_t *)p)[i] = (int32_t)(next() % 2001) - 1000; break;
        case TFL_DT_I64: ((int64_t *)p)[i] = (int64_t)next(); break;
        case TFL_DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(next() & 1); break;
        default: break;
        }
    }
}

/* Indices in [lo, hi), as int64 or int32. */
static void fill_idx(tfl_dtype t, void *p, int64_t n, int64_t lo, int64_t hi)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t v = lo + (int64_t)(next() % (uint64_t)(hi - lo));
        if (t == TFL_DT_I64)
            ((int64_t *)p)[i] = v;
        else
            ((int32_t *)p)[i] = (int32_t)v;
    }
}

static size_t isz(tfl_dtype t)
{
    return t == TFL_DT_I64 ? 8 : 4;
}

/* ------------------------------------------------------------ running */

static void tensor_to_dev(tfl_index_tensor *t)
{
    t->data = D(t->data);
}

/* The op on device addresses. */
static void to_dev(tfl_index_op *o, tfl_index_cat_input *ins)
{
    switch (o->kind) {
    case TFL_INDEX_SELECT:
        tensor_to_dev(&o->u.select.dst);
        tensor_to_dev(&o->u.select.src);
        tensor_to_dev(&o->u.select.index);
        break;
    case TFL_INDEX_GATHER_ROWS:
        o->u.gather_rows.out = D(o->u.gather_rows.out);
        o->u.gather_rows.in = D(o->u.gather_rows.in);
        o->u.gather_rows.idx = D(o->u.gather_rows.idx);
        break;
    case TFL_INDEX_CAT:
        for (int i = 0; i < o->u.cat.n_inputs; i++) {
            ins[i] = o->u.cat.inputs[i];
            ins[i].data = D(ins[i].data);
        }
        o->u.cat.inputs = ins;
        o->u.cat.out = D(o->u.cat.out);
        break;
    case TFL_INDEX_SCATTER_GATHER:
        o->u.scatter_gather.self = D(o->u.scatter_gather.self);
        o->u.scatter_gather.src = D(o->u.scatter_gather.src);
        o->u.scatter_gather.index = D(o->u.scatter_gather.index);
        break;
    case TFL_INDEX_ADVANCED:
        o->u.advanced.out = D(o->u.advanced.out);
        o->u.advanced.in = D(o->u.advanced.in);
        for (int i = 0; i < o->u.advanced.n_indices; i++)
            o->u.advanced.index_ptrs[i] = D(o->u.advanced.index_ptrs[i]);
        break;
    case TFL_INDEX_RANGE:
        o->u.range.out = D(o->u.range.out);
        break;
    case TFL_INDEX_TRIANGLE:
        tensor_to_dev(&o->u.triangle.dst);
        tensor_to_dev(&o->u.triangle.src);
        break;
    case TFL_INDEX_PUT_SORTED:
        o->u.put_sorted.sorted = D(o->u.put_sorted.sorted);
        o->u.put_sorted.positions = D(o->u.put_sorted.positions);
        o->u.put_sorted.grad = D(o->u.put_sorted.grad);
        o->u.put_sorted.weight = D(o->u.put_sorted.weight);
        break;
    }
}

static int cases, natives;

/* Run h natively (device copies) and on the host backend (host copies);
 * native: whether the OpenCL backend must take it.  Every buffer must
 * then agree byte for byte.  Frees the case's buffers. */
static void run_case(const char *name, const tfl_index_op *h, int native)
{
    cases++;
    for (int i = 0; i < nbufs; i++)
        ocl_h_put(bufs[i].d, bufs[i].h, bufs[i].n);
    tfl_index_cat_input ins[16];
    tfl_op dop = { .kind = TFL_OP_INDEX, .name = "index" }, hop = dop;
    dop.u.index = *h;
    hop.u.index = *h;
    to_dev(&dop.u.index, ins);
    tfl_status ds = ocl_h_run(&dop);
    tfl_status hs = tfl_host_backend.op_run(&hop, NULL);
    if (!native) {
        if (ds != TFL_ERR_UNSUPPORTED)
            fprintf(stderr, "%s: expected a refusal, got %d\n", name, ds);
        OCL_H_CHECK(ds == TFL_ERR_UNSUPPORTED);
        bufs_free();
        return;
    }
    natives++;
    if (ds != TFL_OK || hs != TFL_OK)
        fprintf(stderr, "%s: native %d, host %d\n", name, ds, hs);
    OCL_H_CHECK(ds == TFL_OK && hs == TFL_OK);
    for (int i = 0; i < nbufs; i++) {
        unsigned char *got = malloc(bufs[i].n ? bufs[i].n : 1);
        ocl_h_get(got, bufs[i].d, bufs[i].n);
        for (size_t j = 0; j < bufs[i].n; j++)
            if (got[j] != bufs[i].h[j]) {
                fprintf(stderr, "%s: buffer %d byte %zu: native %02x, host %02x\n", name, i, j,
                        got[j], bufs[i].h[j]);
                ocl_h_failures++;
                break;
            }
        free(got);
    }
    bufs_free();
}

/* A row-major view (strides in elements). */
static tfl_index_tensor view(void *data, int nd, const int64_t *sizes, const int64_t *strides)
{
    tfl_index_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.ndim = nd;
    for (int i = 0; i < nd; i++) {
        t.sizes[i] = sizes[i];
        t.strides[i] = strides[i];
    }
    return t;
}

/* Contiguous strides of sizes. */
/* Row-major strides of sizes, or column-major (transposed) ones. */
static void contig(int nd, const int64_t *sizes, int64_t *strides)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        strides[i] = s;
        s *= sizes[i];
    }
}

static void colmajor(int nd, const int64_t *sizes, int64_t *strides)
{
    int64_t s = 1;
    for (int i = 0; i < nd; i++) {
        strides[i] = s;
        s *= sizes[i];
    }
}

static int64_t numel(int nd, const int64_t *sizes)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= sizes[i];
    return n;
}

/* ------------------------------------------------------------ index_select / index_add */

typedef struct sel_case {
    const char *name;
    tfl_dtype dt;              /* element type (filled with its values) */
    size_t es;                 /* elem_size (0: the dtype's) */
    int nd;
    int64_t src_sizes[4];
    int dim;
    int64_t nidx;
    tfl_dtype it;
    int transposed_src;        /* src: storage of the reversed shape */
    int index_stride;          /* index view stride (elements) */
    int index_dst;
    tfl_index_reduce red;
    double alpha;
    int native;
} sel_case;

/* index_select: dst = src with dim `dim` replaced by nidx; index_add: the
 * roles swap (dst has the full shape, src the index count). */
static void sel_one(const sel_case *c)
{
    const size_t es = c->es ? c->es : tfl_dtype_size(c->dt);
    int64_t full[4], part[4], fs[4], ps[4];
    memcpy(full, c->src_sizes, sizeof full);
    memcpy(part, c->src_sizes, sizeof part);
    part[c->dim] = c->nidx;
    int64_t bound = full[c->dim];
    /* the full-shape tensor may be transposed */
    const int64_t fn = numel(c->nd, full), pn = numel(c->nd, part);
    if (c->transposed_src)
        colmajor(c->nd, full, fs);
    else
        contig(c->nd, full, fs);
    contig(c->nd, part, ps);
    void *fb = buf_new((size_t)fn * es), *pb = buf_new((size_t)pn * es);
    if (es == tfl_dtype_size(c->dt)) {
        fill(c->dt, fb, fn);
        fill(c->dt, pb, pn);
    }
    const int64_t ilen = c->nidx * c->index_stride;
    void *ib = buf_new((size_t)(ilen ? ilen : 1) * isz(c->it));
    fill_idx(c->it, ib, ilen ? ilen : 1, 0, bound > 0 ? bound : 1);
    tfl_index_op o = { .kind = TFL_INDEX_SELECT, .elem_size = es, .index_dtype = c->it,
                       .dtype = c->dt };
    const int64_t isizes[1] = { c->nidx }, istr[1] = { c->index_stride };
    o.u.select.index = view(ib, 1, isizes, istr);
    if (c->index_dst) {
        o.u.select.dst = view(fb, c->nd, full, fs);
        o.u.select.src = view(pb, c->nd, part, ps);
    } else {
        o.u.select.src = view(fb, c->nd, full, fs);
        o.u.select.dst = view(pb, c->nd, part, ps);
    }
    o.u.select.dst_dim = o.u.select.src_dim = c->dim;
    o.u.select.index_bound = bound;
    o.u.select.index_dst = c->index_dst;
    o.u.select.reduce = c->red;
    o.u.select.alpha = c->alpha;
    run_case(c->name, &o, c->native);
}

static void test_select(void)
{
    static const sel_case cs[] = {
        { "select f32 dim0 i64", TFL_DT_F32, 0, 2, { 7, 9 }, 0, 5, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "select f32 transposed dim1 i32 strided index", TFL_DT_F32, 0, 2, { 9, 7 }, 1, 4,
          TFL_DT_I32, 1, 2, 0, 0, 0, 1 },
        { "select f16 3d dim1", TFL_DT_F16, 0, 3, { 4, 5, 6 }, 1, 8, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "select i64 3d dim2 transposed", TFL_DT_I64, 0, 3, { 3, 4, 5 }, 2, 7, TFL_DT_I32, 1, 1,
          0, 0, 0, 1 },
        { "select bool dim0", TFL_DT_BOOL, 0, 2, { 6, 33 }, 0, 10, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "select opaque 12-byte", TFL_DT_U8, 12, 2, { 5, 3 }, 0, 6, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "select opaque 6-byte odd stride", TFL_DT_U8, 6, 2, { 5, 3 }, 1, 4, TFL_DT_I64, 1, 3, 0,
          0, 0, 1 },
        { "select 1-d", TFL_DT_F32, 0, 1, { 100 }, 0, 300, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "select empty index", TFL_DT_F32, 0, 2, { 7, 9 }, 0, 0, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "select empty slice", TFL_DT_F32, 0, 2, { 7, 0 }, 0, 3, TFL_DT_I64, 0, 1, 0, 0, 0, 1 },
        { "index_add f32 alpha", TFL_DT_F32, 0, 2, { 6, 40 }, 0, 50, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_ADD, 0.5, 1 },
        { "index_add f32 transposed dst dim1", TFL_DT_F32, 0, 3, { 3, 5, 4 }, 1, 12, TFL_DT_I32,
          1, 1, 1, TFL_INDEX_ADD, 1.0, 1 },
        { "index_add f16", TFL_DT_F16, 0, 2, { 5, 16 }, 0, 30, TFL_DT_I64, 0, 1, 1, TFL_INDEX_ADD,
          -1.5, 1 },
        { "index_add bf16", TFL_DT_BF16, 0, 2, { 5, 16 }, 0, 30, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_ADD, 2.0, 1 },
        { "index_add f64", TFL_DT_F64, 0, 2, { 5, 7 }, 1, 20, TFL_DT_I64, 0, 1, 1, TFL_INDEX_ADD,
          0.25, 1 },
        { "index_add i32", TFL_DT_I32, 0, 2, { 5, 7 }, 0, 20, TFL_DT_I32, 0, 1, 1, TFL_INDEX_ADD,
          3.0, 1 },
        { "index_add i64", TFL_DT_I64, 0, 2, { 5, 7 }, 0, 20, TFL_DT_I64, 0, 1, 1, TFL_INDEX_ADD,
          -2.0, 1 },
        { "index_copy f32 duplicates", TFL_DT_F32, 0, 2, { 4, 9 }, 0, 25, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_ASSIGN, 1.0, 1 },
        { "index_reduce prod f32", TFL_DT_F32, 0, 2, { 4, 9 }, 0, 12, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_MUL, 1.0, 1 },
        { "index_reduce amax f32", TFL_DT_F32, 0, 2, { 4, 9 }, 1, 12, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_MAX, 1.0, 1 },
        { "index_reduce amin i64", TFL_DT_I64, 0, 2, { 4, 9 }, 0, 12, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_MIN, 1.0, 1 },
        { "index_reduce amax f16", TFL_DT_F16, 0, 2, { 4, 9 }, 0, 12, TFL_DT_I64, 0, 1, 1,
          TFL_INDEX_MAX, 1.0, 1 },
        { "select with reduce (dst side k)", TFL_DT_F32, 0, 2, { 7, 9 }, 0, 5, TFL_DT_I64, 0, 1,
          0, TFL_INDEX_ADD, 2.0, 1 },
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        sel_one(&cs[i]);

    /* refused: a stride-0 dst (work-items would race where the host has
     * an order), and an index_add running on one work-item */
    float *src = buf_new(16 * 4), *dst = buf_new(8 * 4);
    int64_t *ix = buf_new(8 * 8);
    fill_idx(TFL_DT_I64, ix, 8, 0, 16);
    tfl_index_op o = { .kind = TFL_INDEX_SELECT, .elem_size = 4, .index_dtype = TFL_DT_I64,
                       .dtype = TFL_DT_F32 };
    const int64_t n16[1] = { 16 }, n8[1] = { 8 }, one[1] = { 1 }, zero[1] = { 0 };
    o.u.select.src = view(src, 1, n16, one);
    o.u.select.dst = view(dst, 1, n8, zero);
    o.u.select.index = view(ix, 1, n8, one);
    o.u.select.index_bound = 16;
    run_case("select into a stride-0 dst", &o, 0);
    const int64_t big = 70000;
    float *a = buf_new(4 * 4), *b = buf_new((size_t)big * 4);
    int64_t *bi = buf_new((size_t)big * 8);
    fill(TFL_DT_F32, a, 4);
    fill(TFL_DT_F32, b, big);
    fill_idx(TFL_DT_I64, bi, big, 0, 4);
    const int64_t n4[1] = { 4 }, nb[1] = { big };
    o.u.select.dst = view(a, 1, n4, one);
    o.u.select.src = view(b, 1, nb, one);
    o.u.select.index = view(bi, 1, nb, one);
    o.u.select.index_bound = 4;
    o.u.select.index_dst = 1;
    o.u.select.reduce = TFL_INDEX_ADD;
    o.u.select.alpha = 1;
    run_case("index_add of 70000 scalars", &o, 0);
}

/* index_add over every 16-bit pattern of fp16 / bf16 (NaNs aside: their
 * payloads after arithmetic are the compiler's choice): a permutation of
 * 256 rows of 256, alpha 0.3, exercises both conversions everywhere,
 * subnormals, overflow to infinity and rounding ties included. */
static void test_half_patterns(void)
{
    const tfl_dtype dts[2] = { TFL_DT_F16, TFL_DT_BF16 };
    for (int t = 0; t < 2; t++) {
        uint16_t *d = buf_new(65536 * 2), *s = buf_new(65536 * 2);
        int64_t *ix = buf_new(256 * 8);
        for (uint32_t i = 0; i < 65536; i++) {
            uint16_t a = (uint16_t)i, b = (uint16_t)(i * 40503u);
            const int nan_a = t ? (a & 0x7fff) > 0x7f80 : (a & 0x7fff) > 0x7c00;
            const int nan_b = t ? (b & 0x7fff) > 0x7f80 : (b & 0x7fff) > 0x7c00;
            s[i] = nan_a ? 0 : a;
            d[i] = nan_b ? 0 : b;
        }
        for (int i = 0; i < 256; i++)
            ix[i] = (i * 97 + 13) % 256;
        tfl_index_op o = { .kind = TFL_INDEX_SELECT, .elem_size = 2, .index_dtype = TFL_DT_I64,
                           .dtype = dts[t] };
        const int64_t sz[2] = { 256, 256 }, st[2] = { 256, 1 }, n[1] = { 256 }, one[1] = { 1 };
        o.u.select.dst = view(d, 2, sz, st);
        o.u.select.src = view(s, 2, sz, st);
        o.u.select.index = view(ix, 1, n, one);
        o.u.select.index_bound = 256;
        o.u.select.index_dst = 1;
        o.u.select.reduce = TFL_INDEX_ADD;
        o.u.select.alpha = 0.3;
        run_case(t ? "index_add bf16 every pattern" : "index_add f16 every pattern", &o, 1);
    }
}

/* ------------------------------------------------------------ row gather */

static void rows_one(const char *name, tfl_dtype it, int64_t n, int64_t rows, int64_t row_bytes,
                     int64_t in_stride, int64_t out_stride, int allow_neg)
{
    void *in = buf_new((size_t)(rows * in_stride)), *out = buf_new((size_t)(n * out_stride + 1));
    void *ix = buf_new((size_t)(n ? n : 1) * isz(it));
    fill_idx(it, ix, n ? n : 1, allow_neg ? -rows : 0, rows);
    tfl_index_op o = { .kind = TFL_INDEX_GATHER_ROWS, .elem_size = 1, .index_dtype = it };
    o.u.gather_rows.out = out;
    o.u.gather_rows.in = in;
    o.u.gather_rows.idx = ix;
    o.u.gather_rows.n_index = n;
    o.u.gather_rows.row_bytes = row_bytes;
    o.u.gather_rows.in_stride = in_stride;
    o.u.gather_rows.out_stride = out_stride;
    o.u.gather_rows.in_rows = rows;
    o.u.gather_rows.allow_negative = allow_neg;
    run_case(name, &o, 1);
}

static void test_rows(void)
{
    rows_one("rows i64 negative", TFL_DT_I64, 37, 11, 64, 64, 64, 1);
    rows_one("rows i32 padded", TFL_DT_I32, 20, 9, 24, 40, 32, 0);
    rows_one("rows 6 bytes", TFL_DT_I64, 15, 7, 6, 6, 6, 0);
    rows_one("rows 3 bytes", TFL_DT_I32, 15, 7, 3, 5, 3, 1);
    rows_one("rows none", TFL_DT_I64, 0, 7, 8, 8, 8, 0);
    rows_one("rows of 0 bytes", TFL_DT_I64, 5, 7, 0, 8, 8, 0);
}

/* ------------------------------------------------------------ cat */

/* Inputs along `dim` of an nd output; input i has extent ext[i] there
 * (0: an empty input), every other input transposed when strided.
 * out_pad: the output's innermost stride is 2 (a strided output). */
static void cat_one(const char *name, size_t es, int nd, const int64_t *sizes, int dim,
                    int nin, const int64_t *ext, int strided, int out_pad)
{
    tfl_index_cat_input in[8];
    memset(in, 0, sizeof in);
    int64_t osz[4], ost[4], total = 0;
    memcpy(osz, sizes, sizeof osz);
    for (int i = 0; i < nin; i++)
        total += ext[i];
    osz[dim] = total;
    contig(nd, osz, ost);
    for (int i = 0; i < nd; i++)
        ost[i] *= out_pad ? 2 : 1;
    void *out = buf_new((size_t)(numel(nd, osz) * (out_pad ? 2 : 1)) * es + es);
    int64_t off = 0;
    for (int i = 0; i < nin; i++) {
        int64_t isz_[4];
        memcpy(isz_, osz, sizeof isz_);
        isz_[dim] = ext[i];
        in[i].numel = numel(nd, isz_);
        in[i].data = buf_new((size_t)(in[i].numel ? in[i].numel : 1) * es);
        in[i].offset = off;
        in[i].dim_size = ext[i];
        in[i].contiguous = !(strided && (i % 2));
        if (!in[i].contiguous) {
            memcpy(in[i].sizes, isz_, (size_t)nd * sizeof isz_[0]);
            colmajor(nd, isz_, in[i].strides);   /* column-major storage */
        }
        off += ext[i];
    }
    tfl_index_op o = { .kind = TFL_INDEX_CAT, .elem_size = es };
    o.u.cat.out = out;
    o.u.cat.ndim = nd;
    o.u.cat.dim = dim;
    for (int i = 0; i < nd; i++) {
        o.u.cat.out_sizes[i] = osz[i];
        o.u.cat.out_strides[i] = ost[i];
    }
    o.u.cat.dim_stride = ost[dim];
    o.u.cat.n_inputs = nin;
    o.u.cat.inputs = in;
    run_case(name, &o, 1);
}

static void test_cat(void)
{
    const int64_t s3[3] = { 3, 4, 5 }, s2[2] = { 6, 7 }, s1[1] = { 1 }, e3[3] = { 2, 0, 3 },
                  e2[2] = { 4, 1 }, e4[4] = { 1, 2, 3, 4 };
    cat_one("cat f32 dim0", 4, 3, s3, 0, 3, e3, 0, 0);
    cat_one("cat f32 dim1 strided", 4, 3, s3, 1, 3, e3, 1, 0);
    cat_one("cat f16 dim2 strided", 2, 3, s3, 2, 4, e4, 1, 0);
    cat_one("cat i64 dim1", 8, 2, s2, 1, 2, e2, 0, 0);
    cat_one("cat bool dim0 strided out", 1, 2, s2, 0, 4, e4, 1, 1);
    cat_one("cat 1-d", 4, 1, s1, 0, 4, e4, 0, 0);
    cat_one("cat f32 dim2 strided out", 4, 3, s3, 2, 3, e3, 1, 1);
}

/* ------------------------------------------------------------ gather / scatter */

typedef struct sg_case {
    const char *name;
    tfl_dtype dt;
    int nd;
    int64_t self_sizes[3];     /* scatter: self; gather: src */
    int64_t idx_sizes[3];
    int dim;
    tfl_dtype it;
    int scatter;
    tfl_index_reduce red;
    int use_value, allow_neg;
    int transposed_self;
    int native;
} sg_case;

/* The iteration PyTorch's scatter_gather_base_kernel builds: the index's
 * shape (dim 0 fastest: the last tensor dim), self restrided to it with
 * stride 0 along dim (scatter), src restrided likewise (gather). */
static void sg_one(const sg_case *c)
{
    const size_t es = tfl_dtype_size(c->dt);
    int64_t big[3], bs[3], is[3], ss[3];
    memcpy(big, c->self_sizes, sizeof big);
    if (c->transposed_self)
        colmajor(c->nd, big, bs);
    else
        contig(c->nd, big, bs);
    contig(c->nd, c->idx_sizes, is);
    contig(c->nd, c->idx_sizes, ss);       /* the small side (src / gather out) */
    const int64_t nbig = numel(c->nd, big), nidx = numel(c->nd, c->idx_sizes);
    void *bb = buf_new((size_t)nbig * es), *sb = buf_new((size_t)(nidx ? nidx : 1) * es);
    fill(c->dt, bb, nbig);
    fill(c->dt, sb, nidx ? nidx : 1);
    void *ix = buf_new((size_t)(nidx ? nidx : 1) * isz(c->it));
    const int64_t bound = big[c->dim];
    fill_idx(c->it, ix, nidx ? nidx : 1, c->allow_neg ? -bound : 0, bound);
    tfl_index_op o = { .kind = TFL_INDEX_SCATTER_GATHER, .elem_size = es, .index_dtype = c->it,
                       .dtype = c->dt };
    tfl_index_iter *it = &o.u.scatter_gather.iter;
    it->ndim = c->nd;
    for (int i = 0; i < c->nd; i++) {
        const int t = c->nd - 1 - i;       /* tensor dim of iteration dim i */
        it->sizes[i] = c->idx_sizes[t];
        const int64_t bigst = t == c->dim ? 0 : bs[t] * (int64_t)es;
        it->strides[0][i] = c->scatter ? bigst : ss[t] * (int64_t)es;
        it->strides[1][i] = c->scatter ? ss[t] * (int64_t)es : bigst;
        it->strides[2][i] = is[t] * (int64_t)isz(c->it);
    }
    o.u.scatter_gather.self = c->scatter ? bb : sb;
    o.u.scatter_gather.src = c->use_value ? NULL : c->scatter ? sb : bb;
    o.u.scatter_gather.index = ix;
    o.u.scatter_gather.scatter = c->scatter;
    o.u.scatter_gather.reduce = c->red;
    o.u.scatter_gather.index_size = bound;
    o.u.scatter_gather.index_stride = bs[c->dim];
    o.u.scatter_gather.use_value = c->use_value;
    o.u.scatter_gather.allow_negative = c->allow_neg;
    if (c->use_value)
        fill(c->dt, o.u.scatter_gather.value, 1);
    run_case(c->name, &o, c->native);
}

static void test_scatter_gather(void)
{
    static const sg_case cs[] = {
        { "gather f32 dim1", TFL_DT_F32, 3, { 4, 9, 5 }, { 3, 6, 5 }, 1, TFL_DT_I64, 0, 0, 0, 0, 0, 1 },
        { "gather f16 dim0 transposed src", TFL_DT_F16, 2, { 8, 6 }, { 11, 4 }, 0, TFL_DT_I32, 0,
          0, 0, 0, 1, 1 },
        { "gather i64 dim2", TFL_DT_I64, 3, { 2, 3, 10 }, { 2, 3, 4 }, 2, TFL_DT_I64, 0, 0, 0, 0,
          0, 1 },
        { "gather bool dim1 (last)", TFL_DT_BOOL, 2, { 5, 40 }, { 5, 17 }, 1, TFL_DT_I64, 0, 0, 0,
          0, 0, 1 },
        { "scatter f32 duplicates", TFL_DT_F32, 2, { 5, 6 }, { 9, 6 }, 0, TFL_DT_I64, 1, 0, 0, 0,
          0, 1 },
        { "scatter i64 dim1 transposed self", TFL_DT_I64, 2, { 5, 6 }, { 5, 9 }, 1, TFL_DT_I32, 1,
          0, 0, 0, 1, 1 },
        { "scatter_add f32 dim0", TFL_DT_F32, 3, { 4, 3, 5 }, { 10, 3, 5 }, 0, TFL_DT_I64, 1,
          TFL_INDEX_ADD, 0, 0, 0, 1 },
        { "scatter_add f32 dim2 partial", TFL_DT_F32, 3, { 2, 3, 7 }, { 2, 2, 20 }, 2, TFL_DT_I64, 1,
          TFL_INDEX_ADD, 0, 0, 0, 1 },
        { "scatter_add f16", TFL_DT_F16, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I64, 1, TFL_INDEX_ADD, 0,
          0, 0, 1 },
        { "scatter_add bf16", TFL_DT_BF16, 2, { 4, 6 }, { 4, 30 }, 1, TFL_DT_I64, 1, TFL_INDEX_ADD,
          0, 0, 0, 1 },
        { "scatter_add f64", TFL_DT_F64, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I64, 1, TFL_INDEX_ADD, 0,
          0, 0, 1 },
        { "scatter_add i64", TFL_DT_I64, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I32, 1, TFL_INDEX_ADD, 0,
          0, 0, 1 },
        { "scatter_add i32", TFL_DT_I32, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I32, 1, TFL_INDEX_ADD, 0,
          0, 0, 1 },
        { "scatter_reduce prod f32", TFL_DT_F32, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I64, 1,
          TFL_INDEX_MUL, 0, 0, 0, 1 },
        { "scatter_reduce amax f32", TFL_DT_F32, 2, { 4, 6 }, { 4, 16 }, 1, TFL_DT_I64, 1,
          TFL_INDEX_MAX, 0, 0, 0, 1 },
        { "scatter_reduce amin i32", TFL_DT_I32, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I64, 1,
          TFL_INDEX_MIN, 0, 0, 0, 1 },
        { "gather with add", TFL_DT_F32, 2, { 4, 6 }, { 12, 6 }, 0, TFL_DT_I64, 0, TFL_INDEX_ADD, 0,
          0, 0, 1 },
        { "scatter value f16 negative", TFL_DT_F16, 2, { 3, 8 }, { 3, 5 }, 1, TFL_DT_I32, 1, 0, 1,
          1, 0, 1 },
        { "scatter value i64", TFL_DT_I64, 2, { 6, 4 }, { 9, 4 }, 0, TFL_DT_I64, 1, 0, 1, 0, 0, 1 },
        { "gather negative", TFL_DT_F32, 2, { 7, 3 }, { 9, 3 }, 0, TFL_DT_I64, 0, 0, 0, 1, 0, 1 },
        { "gather empty", TFL_DT_F32, 2, { 7, 3 }, { 0, 3 }, 0, TFL_DT_I64, 0, 0, 0, 0, 0, 1 },
        { "scatter_add along one long line (host only)", TFL_DT_F32, 2, { 1, 4 }, { 1, 70000 },
          1, TFL_DT_I64, 1, TFL_INDEX_ADD, 0, 0, 0, 0 },
        { "scatter value with add (host only)", TFL_DT_F32, 2, { 6, 4 }, { 9, 4 }, 0, TFL_DT_I64,
          1, TFL_INDEX_ADD, 1, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        sg_one(&cs[i]);
}

/* ------------------------------------------------------------ advanced indexing */

/* x: R x C (es bytes); get: out[k, c] = x[idx[k], c]; put: x[idx[k], c] = v[k, c]. */
static void adv_rows(const char *name, size_t es, tfl_dtype dt, int64_t R, int64_t C, int64_t K,
                     int put)
{
    void *x = buf_new((size_t)(R * C) * es), *v = buf_new((size_t)(K * C) * es);
    fill(dt, x, R * C);
    fill(dt, v, K * C);
    int64_t *ix = buf_new((size_t)K * 8);
    fill_idx(TFL_DT_I64, ix, K, -R, R);
    tfl_index_op o = { .kind = TFL_INDEX_ADVANCED, .elem_size = es, .index_dtype = TFL_DT_I64 };
    tfl_index_iter *it = &o.u.advanced.iter;
    const int64_t e = (int64_t)es;
    it->ndim = 2;
    it->sizes[0] = C;
    it->sizes[1] = K;
    it->strides[put ? 1 : 0][0] = e;           /* v / out: K x C */
    it->strides[put ? 1 : 0][1] = C * e;
    it->strides[put ? 0 : 1][0] = e;           /* x restrided: stride 0 along k */
    it->strides[put ? 0 : 1][1] = 0;
    it->strides[2][0] = 0;
    it->strides[2][1] = 8;
    o.u.advanced.out = put ? x : v;
    o.u.advanced.in = put ? v : x;
    o.u.advanced.put = put;
    o.u.advanced.n_indices = 1;
    o.u.advanced.index_ptrs[0] = ix;
    o.u.advanced.sizes[0] = R;
    o.u.advanced.strides[0] = C * e;
    run_case(name, &o, 1);
}

/* x: A x B x C; out[k] = x[i[k], :, j[k]] style with two index tensors
 * (dims 0 and 2) broadcast to K x M (index of shape K x 1 and 1 x M). */
static void adv_two(const char *name, int put)
{
    const int64_t A = 5, Bd = 3, C = 7, K = 4, M = 6, e = 4;
    float *x = buf_new((size_t)(A * Bd * C) * 4), *v = buf_new((size_t)(K * M * Bd) * 4);
    fill(TFL_DT_F32, x, A * Bd * C);
    fill(TFL_DT_F32, v, K * M * Bd);
    int64_t *i0 = buf_new((size_t)K * 8), *i1 = buf_new((size_t)M * 8);
    fill_idx(TFL_DT_I64, i0, K, -A, A);
    fill_idx(TFL_DT_I64, i1, M, -C, C);
    tfl_index_op o = { .kind = TFL_INDEX_ADVANCED, .elem_size = 4, .index_dtype = TFL_DT_I64 };
    tfl_index_iter *it = &o.u.advanced.iter;
    /* result K x M x B (index dims first), iteration dims: b, m, k */
    it->ndim = 3;
    it->sizes[0] = Bd; it->sizes[1] = M; it->sizes[2] = K;
    const int64_t vs[3] = { e, Bd * e, M * Bd * e }, xs[3] = { C * e, 0, 0 };
    for (int i = 0; i < 3; i++) {
        it->strides[put ? 1 : 0][i] = vs[i];
        it->strides[put ? 0 : 1][i] = xs[i];
    }
    /* both index pointers share offsets: i0 broadcast along m (stride 0),
     * i1 along k; one offset set means both must be laid out alike, so
     * the test broadcasts through a K x M materialisation */
    int64_t *b0 = buf_new((size_t)(K * M) * 8), *b1 = buf_new((size_t)(K * M) * 8);
    for (int64_t k = 0; k < K; k++)
        for (int64_t m = 0; m < M; m++) {
            b0[k * M + m] = i0[k];
            b1[k * M + m] = i1[m];
        }
    it->strides[2][0] = 0; it->strides[2][1] = 8; it->strides[2][2] = M * 8;
    o.u.advanced.out = put ? (void *)x : (void *)v;
    o.u.advanced.in = put ? (void *)v : (void *)x;
    o.u.advanced.put = put;
    o.u.advanced.n_indices = 2;
    o.u.advanced.index_ptrs[0] = b0;
    o.u.advanced.index_ptrs[1] = b1;
    o.u.advanced.sizes[0] = A;
    o.u.advanced.sizes[1] = C;
    o.u.advanced.strides[0] = Bd * C * e;
    o.u.advanced.strides[1] = e;
    run_case(name, &o, 1);
}

static void test_advanced(void)
{
    adv_rows("index get f32", 4, TFL_DT_F32, 9, 13, 20, 0);
    adv_rows("index get f16", 2, TFL_DT_F16, 9, 13, 20, 0);
    adv_rows("index get i64", 8, TFL_DT_I64, 5, 3, 11, 0);
    adv_rows("index get bool", 1, TFL_DT_BOOL, 5, 33, 11, 0);
    adv_rows("index put f32 duplicates", 4, TFL_DT_F32, 4, 13, 30, 1);
    adv_rows("index put bool duplicates", 1, TFL_DT_BOOL, 4, 13, 30, 1);
    adv_rows("index put i64", 8, TFL_DT_I64, 40, 3, 10, 1);
    adv_two("index get two indices", 0);
    adv_two("index put two indices", 1);
    /* one point, no index tensor: a plain element copy */
    float *a = buf_new(4), *b = buf_new(4);
    tfl_index_op o = { .kind = TFL_INDEX_ADVANCED, .elem_size = 4, .index_dtype = TFL_DT_I64 };
    o.u.advanced.out = a;
    o.u.advanced.in = b;
    run_case("index 0-d", &o, 1);
    /* more index tensors than the kernel takes */
    float *x = buf_new(64 * 4), *y = buf_new(4);
    int64_t *ix = buf_new(8 * 5);
    memset(ix, 0, 40);
    o.u.advanced.out = y;
    o.u.advanced.in = x;
    o.u.advanced.iter.ndim = 1;
    o.u.advanced.iter.sizes[0] = 1;
    o.u.advanced.n_indices = 5;
    for (int i = 0; i < 5; i++) {
        o.u.advanced.index_ptrs[i] = ix + i;
        o.u.advanced.sizes[i] = 2;
        o.u.advanced.strides[i] = 4 << i;
    }
    run_case("index with 5 index tensors", &o, 0);
}

/* ------------------------------------------------------------ range */

static void range_one(const char *name, tfl_dtype dt, tfl_index_range_kind kind, int64_t n,
                      double start, double step, double end, int64_t istart, int64_t istep,
                      int64_t iend)
{
    void *out = buf_new((size_t)(n > 0 ? n : 1) * tfl_dtype_size(dt));
    tfl_index_op o = { .kind = TFL_INDEX_RANGE, .elem_size = tfl_dtype_size(dt), .dtype = dt };
    o.u.range.range_kind = kind;
    o.u.range.out = out;
    o.u.range.n = n;
    o.u.range.start = start;
    o.u.range.step = step;
    o.u.range.end = end;
    o.u.range.istart = istart;
    o.u.range.istep = istep;
    o.u.range.iend = iend;
    o.u.range.steps = n;
    o.u.range.halfway = n / 2;
    run_case(name, &o, 1);
}

static void test_range(void)
{
    range_one("arange f32", TFL_DT_F32, TFL_INDEX_ARANGE, 1000, 0.1, 0.37, 0, 0, 0, 0);
    range_one("arange f64", TFL_DT_F64, TFL_INDEX_ARANGE, 1000, -3.3, 0.011, 0, 0, 0, 0);
    range_one("arange i64", TFL_DT_I64, TFL_INDEX_ARANGE, 1000, 0, 0, 0, INT64_MAX - 50, 7, 0);
    range_one("arange i32", TFL_DT_I32, TFL_INDEX_ARANGE, 500, 0, 0, 0, 1000, -3, 0);
    range_one("arange u8", TFL_DT_U8, TFL_INDEX_ARANGE, 500, 0, 0, 0, 3, 1, 0);
    range_one("arange i8", TFL_DT_I8, TFL_INDEX_ARANGE, 300, 0, 0, 0, -100, 1, 0);
    range_one("linspace f32", TFL_DT_F32, TFL_INDEX_LINSPACE, 777, -1.0, 3.0 / 776, 2.0, 0, 0, 0);
    range_one("linspace f64", TFL_DT_F64, TFL_INDEX_LINSPACE, 101, 5.0, -0.1, -5.0, 0, 0, 0);
    range_one("linspace i32", TFL_DT_I32, TFL_INDEX_LINSPACE, 51, 0.0, 99.0 / 50, 0, -7, 0, 92);
    range_one("linspace u8", TFL_DT_U8, TFL_INDEX_LINSPACE, 33, 0.0, 255.0 / 32, 0, 0, 0, 255);
    range_one("arange empty", TFL_DT_F32, TFL_INDEX_ARANGE, 0, 0, 1, 0, 0, 0, 0);
}

/* ------------------------------------------------------------ triu / tril */

static void tri_one(const char *name, size_t es, tfl_dtype dt, int nd, const int64_t *sizes,
                    int transposed_src, int in_place, int upper, int64_t diag)
{
    int64_t ds[4], ss[4];
    const int64_t n = numel(nd, sizes);
    contig(nd, sizes, ds);
    memcpy(ss, ds, sizeof ss);
    if (transposed_src) {          /* the last two dims swapped in storage */
        ss[nd - 1] = sizes[nd - 2];
        ss[nd - 2] = 1;
    }
    void *d = buf_new((size_t)(n ? n : 1) * es);
    void *s = in_place ? d : buf_new((size_t)(n ? n : 1) * es);
    fill(dt, d, n);
    if (!in_place)
        fill(dt, s, n);
    tfl_index_op o = { .kind = TFL_INDEX_TRIANGLE, .elem_size = es };
    o.u.triangle.dst = view(d, nd, sizes, ds);
    o.u.triangle.src = view(s, nd, sizes, in_place ? ds : ss);
    o.u.triangle.upper = upper;
    o.u.triangle.diagonal = diag;
    run_case(name, &o, 1);
}

static void test_triangle(void)
{
    const int64_t s3[3] = { 3, 5, 7 }, s2[2] = { 9, 4 }, s4[4] = { 2, 2, 6, 6 },
                  e3[3] = { 2, 0, 4 };
    tri_one("tril f32 transposed src", 4, TFL_DT_F32, 3, s3, 1, 0, 0, 1);
    tri_one("triu f32 in place", 4, TFL_DT_F32, 3, s3, 0, 1, 1, 0);
    tri_one("triu bool diag -2", 1, TFL_DT_BOOL, 2, s2, 0, 0, 1, -2);
    tri_one("tril i64 4-d", 8, TFL_DT_I64, 4, s4, 1, 0, 0, -1);
    tri_one("tril f16 in place", 2, TFL_DT_F16, 4, s4, 0, 1, 0, 3);
    tri_one("triu empty", 4, TFL_DT_F32, 3, e3, 0, 0, 1, 0);
}

/* ------------------------------------------------------------ sorted index_put_ */

static void ps_one(const char *name, tfl_dtype dt, int64_t rows, int64_t n, int64_t L,
                   int64_t outer, int acc, int native)
{
    const size_t es = tfl_dtype_size(dt);
    void *w = buf_new((size_t)(outer * rows * L) * es), *g = buf_new((size_t)(outer * n * L) * es);
    fill(dt, w, outer * rows * L);
    fill(dt, g, outer * n * L);
    int64_t *sorted = buf_new((size_t)n * 8), *pos = buf_new((size_t)n * 8);
    /* indices with runs, sorted; positions a permutation */
    for (int64_t p = 0; p < n; p++) {
        sorted[p] = (int64_t)(next() % (uint64_t)rows);
        pos[p] = p;
    }
    for (int64_t p = 1; p < n; p++)
        for (int64_t q = p; q > 0 && sorted[q] < sorted[q - 1]; q--) {
            int64_t t = sorted[q]; sorted[q] = sorted[q - 1]; sorted[q - 1] = t;
        }
    for (int64_t p = n - 1; p > 0; p--) {
        int64_t q = (int64_t)(next() % (uint64_t)(p + 1)), t = pos[p];
        pos[p] = pos[q];
        pos[q] = t;
    }
    tfl_index_op o = { .kind = TFL_INDEX_PUT_SORTED, .elem_size = es, .index_dtype = TFL_DT_I64,
                       .dtype = dt };
    o.u.put_sorted.sorted = sorted;
    o.u.put_sorted.positions = pos;
    o.u.put_sorted.grad = g;
    o.u.put_sorted.weight = w;
    o.u.put_sorted.weight_bytes = outer * rows * L * (int64_t)es;
    o.u.put_sorted.numel = n;
    o.u.put_sorted.stride = L;
    o.u.put_sorted.stride_before = rows * L;
    o.u.put_sorted.outer_dim = outer;
    o.u.put_sorted.accumulate = acc;
    run_case(name, &o, native);
}

static void test_put_sorted(void)
{
    ps_one("index_put acc f32", TFL_DT_F32, 10, 40, 8, 1, 1, 1);
    ps_one("index_put acc f32 outer 3", TFL_DT_F32, 6, 25, 5, 3, 1, 1);
    ps_one("index_put acc f64 L 1", TFL_DT_F64, 7, 50, 1, 2, 1, 1);
    ps_one("index_put acc i64", TFL_DT_I64, 7, 30, 3, 1, 1, 1);
    ps_one("index_put f32 (assign)", TFL_DT_F32, 10, 40, 8, 2, 0, 1);
    ps_one("index_put f16 (assign)", TFL_DT_F16, 10, 40, 3, 1, 0, 1);
    ps_one("index_put acc f16 (host refuses too)", TFL_DT_F16, 10, 40, 3, 1, 1, 0);
    ps_one("index_put empty", TFL_DT_F32, 10, 0, 3, 1, 1, 1);
}

/* Many checked ops in flight at once (no sync between them, on a stream
 * of its own): each one's bad-index guard reads its flag back while the
 * next ops queue up; the result must be the host's after as many runs. */
static void test_pipelined(void)
{
    const int runs = 200;
    float *d = buf_new(64 * 32 * 4), *s = buf_new(100 * 32 * 4);
    int64_t *ix = buf_new(100 * 8);
    fill(TFL_DT_F32, d, 64 * 32);
    fill(TFL_DT_F32, s, 100 * 32);
    fill_idx(TFL_DT_I64, ix, 100, 0, 64);
    tfl_op hop = { .kind = TFL_OP_INDEX, .name = "index" };
    tfl_index_op *o = &hop.u.index;
    o->kind = TFL_INDEX_SELECT;
    o->elem_size = 4;
    o->index_dtype = TFL_DT_I64;
    o->dtype = TFL_DT_F32;
    const int64_t ds[2] = { 64, 32 }, ss[2] = { 100, 32 }, st[2] = { 32, 1 }, n[1] = { 100 },
                  one[1] = { 1 };
    o->u.select.dst = view(d, 2, ds, st);
    o->u.select.src = view(s, 2, ss, st);
    o->u.select.index = view(ix, 1, n, one);
    o->u.select.index_bound = 64;
    o->u.select.index_dst = 1;
    o->u.select.reduce = TFL_INDEX_ADD;
    o->u.select.alpha = 0.01;
    for (int i = 0; i < nbufs; i++)
        ocl_h_put(bufs[i].d, bufs[i].h, bufs[i].n);
    tfl_op dop = hop;
    to_dev(&dop.u.index, NULL);
    tfl_stream strm = NULL;
    OCL_H_CHECK(ocl_h->stream_create(0, &strm) == TFL_OK);
    OCL_H_CHECK(ocl_h->op_supported(&dop));
    for (int r = 0; r < runs; r++) {
        OCL_H_CHECK(ocl_h->op_run(&dop, strm) == TFL_OK);
        OCL_H_CHECK(tfl_host_backend.op_run(&hop, NULL) == TFL_OK);
    }
    OCL_H_CHECK(ocl_h->stream_sync(strm) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_destroy(strm) == TFL_OK);
    float got[64 * 32];
    ocl_h_get(got, bufs[0].d, sizeof got);
    OCL_H_CHECK(memcmp(got, d, sizeof got) == 0);
    bufs_free();
}

/* ------------------------------------------------------------ bad indices */

/* Case `which`, with one bad index: issue succeeds, the next sync fails
 * (the device is in error from then on), and a read afterwards, if the
 * queue still serves one, shows the output untouched. */
static int bad_case(int which)
{
    ocl_h_init();
    float *x = buf_new(64 * 4), *out = buf_new(64 * 4);
    int64_t *ix = buf_new(8 * 8);
    fill_idx(TFL_DT_I64, ix, 8, 0, 8);
    ix[5] = which == 1 ? -9 : 8;       /* 8 rows: just past the end */
    tfl_op op = { .kind = TFL_OP_INDEX, .name = "index" };
    tfl_index_op *o = &op.u.index;
    o->elem_size = 4;
    o->index_dtype = TFL_DT_I64;
    o->dtype = TFL_DT_F32;
    const int64_t n8[2] = { 8, 8 }, st[2] = { 8, 1 }, k8[1] = { 8 }, one[1] = { 1 };
    switch (which) {
    case 0:   /* index_select of rows */
        o->kind = TFL_INDEX_SELECT;
        o->u.select.src = view(D(x), 2, n8, st);
        o->u.select.dst = view(D(out), 2, n8, st);
        o->u.select.index = view(D(ix), 1, k8, one);
        o->u.select.index_bound = 8;
        break;
    case 1:   /* row gather, negative beyond -rows */
        o->kind = TFL_INDEX_GATHER_ROWS;
        o->u.gather_rows.out = D(out);
        o->u.gather_rows.in = D(x);
        o->u.gather_rows.idx = D(ix);
        o->u.gather_rows.n_index = 8;
        o->u.gather_rows.row_bytes = 32;
        o->u.gather_rows.in_stride = o->u.gather_rows.out_stride = 32;
        o->u.gather_rows.in_rows = 8;
        o->u.gather_rows.allow_negative = 1;
        break;
    case 2:   /* scatter_add along dim 0 of 8 x 1 */
        o->kind = TFL_INDEX_SCATTER_GATHER;
        o->u.scatter_gather.iter.ndim = 1;
        o->u.scatter_gather.iter.sizes[0] = 8;
        o->u.scatter_gather.iter.strides[1][0] = 4;
        o->u.scatter_gather.iter.strides[2][0] = 8;
        o->u.scatter_gather.self = D(out);
        o->u.scatter_gather.src = D(x);
        o->u.scatter_gather.index = D(ix);
        o->u.scatter_gather.scatter = 1;
        o->u.scatter_gather.reduce = TFL_INDEX_ADD;
        o->u.scatter_gather.index_size = 8;
        o->u.scatter_gather.index_stride = 1;
        break;
    case 3:   /* x[idx] */
        o->kind = TFL_INDEX_ADVANCED;
        o->u.advanced.iter.ndim = 1;
        o->u.advanced.iter.sizes[0] = 8;
        o->u.advanced.iter.strides[0][0] = 4;
        o->u.advanced.iter.strides[2][0] = 8;
        o->u.advanced.out = D(out);
        o->u.advanced.in = D(x);
        o->u.advanced.n_indices = 1;
        o->u.advanced.index_ptrs[0] = D(ix);
        o->u.advanced.sizes[0] = 8;
        o->u.advanced.strides[0] = 4;
        break;
    default:  /* sorted index_put_: a row past the weight */
        o->kind = TFL_INDEX_PUT_SORTED;
        for (int i = 0; i < 8; i++)
            ix[i] = i;
        ix[7] = 8;
        o->u.put_sorted.sorted = D(ix);
        o->u.put_sorted.positions = D(ix);
        o->u.put_sorted.grad = D(x);
        o->u.put_sorted.weight = D(out);
        o->u.put_sorted.weight_bytes = 8 * 4;
        o->u.put_sorted.numel = 8;
        o->u.put_sorted.stride = 1;
        o->u.put_sorted.stride_before = 8;
        o->u.put_sorted.outer_dim = 1;
        o->u.put_sorted.accumulate = 1;
        ix[6] = 7;
        break;
    }
    for (int i = 0; i < nbufs; i++)
        ocl_h_put(bufs[i].d, bufs[i].h, bufs[i].n);
    OCL_H_CHECK(ocl_h->op_supported(&op));
    OCL_H_CHECK(ocl_h->op_run(&op, NULL) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_sync(NULL) == TFL_ERR_DEVICE);
    OCL_H_CHECK(ocl_h->stream_query(NULL) == TFL_ERR_DEVICE);
    unsigned char got[256];
    if (ocl_h->memcpy(got, D(out), sizeof got, TFL_COPY_D2H, NULL) == TFL_OK)
        OCL_H_CHECK(memcmp(got, out, sizeof got) == 0);
    char name[64];
    snprintf(name, sizeof name, "test_ocl_index bad %d", which);
    return ocl_h_finish(name);
}

static void test_bad_indices(const char *self)
{
    for (int which = 0; which < 5; which++) {
        pid_t pid = fork();
        if (pid == 0) {
            char arg[8];
            snprintf(arg, sizeof arg, "%d", which);
            execl(self, self, "bad", arg, (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fprintf(stderr, "bad index case %d failed\n", which);
        OCL_H_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "bad") == 0)
        return bad_case(atoi(argv[2]));
    ocl_h_init();
    test_select();
    test_half_patterns();
    test_rows();
    test_cat();
    test_scatter_gather();
    test_advanced();
    test_range();
    test_triangle();
    test_put_sorted();
    test_pipelined();
    printf("%d cases, %d native\n", cases, natives);
    test_bad_indices(argv[0]);
    return ocl_h_finish("test_ocl_index");
}

/*
 * test_ops_index.c - host_index: index_select over strided views, row
 * gather, batched cat (contiguous and strided inputs), gather / scatter /
 * scatter_add over an iteration, advanced indexing get/put with negative
 * indices, arange/linspace; bad indices refused before any write.
 * References are computed here with plain nested loops over coordinates.
 * The family's stated parameter layouts against the 2.11 and 2.15 cubins'
 * (and release-specific forms), and a dim-0 scatter-add decoded and run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "mem/mem.h"
#include "route/optable.h"
#include "route/runtime.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static void view2(tfl_index_tensor *t, void *data, int64_t s0, int64_t s1, int64_t st0, int64_t st1)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->ndim = 2;
    t->sizes[0] = s0; t->sizes[1] = s1;
    t->strides[0] = st0; t->strides[1] = st1;
}

static void test_select(void)
{
    /* src: 6x8 floats viewed transposed (8x6, strides 1,8); select along
     * dim 1 of the view (columns of the view = rows of storage) */
    float src[6 * 8], dst[8 * 4];
    for (int i = 0; i < 48; i++) src[i] = (float)i;
    int32_t idx[8] = { 5, -1, 0, -1, 5, -1, 2, -1 };   /* strided view: every 2nd */
    tfl_index_op op = { .kind = TFL_INDEX_SELECT, .elem_size = 4, .index_dtype = TFL_DT_I32 };
    view2(&op.u.select.src, src, 8, 6, 1, 8);
    view2(&op.u.select.dst, dst, 8, 4, 4, 1);
    memset(&op.u.select.index, 0, sizeof op.u.select.index);
    op.u.select.index.data = idx;
    op.u.select.index.ndim = 1;
    op.u.select.index.sizes[0] = 4;
    op.u.select.index.strides[0] = 2;
    op.u.select.dst_dim = 1;
    op.u.select.src_dim = 1;
    op.u.select.index_bound = 6;
    CHECK(host_index(&op) == TFL_OK, "select");
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 4; k++)
            CHECK(dst[r * 4 + k] == src[idx[2 * k] * 8 + r], "select [%d,%d]", r, k);
    idx[2] = 6;
    CHECK(host_index(&op) == TFL_ERR_DEVICE, "select out of range");
}

static void test_index_add(void)
{
    /* dst 5x3 double, src 4x3 (index on dst dim 0), alpha 2.5 */
    double dst[15], src[12], ref[15];
    int64_t idx[4] = { 4, 1, 4, 0 };
    for (int i = 0; i < 15; i++) dst[i] = ref[i] = i;
    for (int i = 0; i < 12; i++) src[i] = 0.5 * i - 1;
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            ref[idx[k] * 3 + c] += src[k * 3 + c] * 2.5;
    tfl_index_op op = { .kind = TFL_INDEX_SELECT, .elem_size = 8, .index_dtype = TFL_DT_I64,
                        .dtype = TFL_DT_F64 };
    view2(&op.u.select.dst, dst, 5, 3, 3, 1);
    view2(&op.u.select.src, src, 4, 3, 3, 1);
    memset(&op.u.select.index, 0, sizeof op.u.select.index);
    op.u.select.index.data = idx;
    op.u.select.index.ndim = 1;
    op.u.select.index.sizes[0] = 4;
    op.u.select.index.strides[0] = 1;
    op.u.select.index_bound = 5;
    op.u.select.index_dst = 1;
    op.u.select.reduce = TFL_INDEX_ADD;
    op.u.select.alpha = 2.5;
    CHECK(host_index_supported(&op), "index_add supported");
    CHECK(host_index(&op) == TFL_OK, "index_add");
    for (int i = 0; i < 15; i++)
        CHECK(dst[i] == ref[i], "index_add[%d] %g vs %g", i, dst[i], ref[i]);
    op.dtype = TFL_DT_BF16;
    CHECK(host_index_supported(&op), "bf16 add claimed");
    op.dtype = TFL_DT_C64;
    CHECK(!host_index_supported(&op), "complex add not claimed");
}

static void test_gather_rows(void)
{
    double in[5 * 3], out[4 * 3];
    for (int i = 0; i < 15; i++) in[i] = i * 1.5;
    int64_t idx[4] = { 4, 0, -1, 2 };
    tfl_index_op op = { .kind = TFL_INDEX_GATHER_ROWS, .elem_size = 1, .index_dtype = TFL_DT_I64 };
    op.u.gather_rows.out = out;
    op.u.gather_rows.in = in;
    op.u.gather_rows.idx = idx;
    op.u.gather_rows.n_index = 4;
    op.u.gather_rows.row_bytes = 3 * 8;
    op.u.gather_rows.in_stride = 3 * 8;
    op.u.gather_rows.out_stride = 3 * 8;
    op.u.gather_rows.in_rows = 5;
    CHECK(host_index(&op) == TFL_ERR_DEVICE, "negative without allow_negative");
    op.u.gather_rows.allow_negative = 1;
    CHECK(host_index(&op) == TFL_OK, "gather rows");
    const int want[4] = { 4, 0, 4, 2 };
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++)
            CHECK(out[k * 3 + c] == in[want[k] * 3 + c], "row %d", k);
}

static void test_cat(void)
{
    /* out 3x7 (int16) = cat([3x2 contiguous, 3x5 given transposed], dim 1) */
    int16_t a[6], bt[5 * 3], out[21];
    for (int i = 0; i < 6; i++) a[i] = (int16_t)(100 + i);
    for (int i = 0; i < 15; i++) bt[i] = (int16_t)(200 + i);   /* b[r][c] = bt[c*3 + r] */
    tfl_index_cat_input in[2] = {
        { .data = a, .offset = 0, .dim_size = 2, .numel = 6, .contiguous = 1 },
        { .data = bt, .offset = 2, .dim_size = 5, .numel = 15, .contiguous = 0,
          .sizes = { 3, 5 }, .strides = { 1, 3 } },
    };
    tfl_index_op op = { .kind = TFL_INDEX_CAT, .elem_size = 2 };
    op.u.cat.out = out;
    op.u.cat.ndim = 2;
    op.u.cat.dim = 1;
    op.u.cat.out_sizes[0] = 3; op.u.cat.out_sizes[1] = 7;
    op.u.cat.out_strides[0] = 7; op.u.cat.out_strides[1] = 1;
    op.u.cat.dim_stride = 1;
    op.u.cat.n_inputs = 2;
    op.u.cat.inputs = in;
    CHECK(host_index(&op) == TFL_OK, "cat");
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 7; c++) {
            int16_t want = c < 2 ? a[r * 2 + c] : bt[(c - 2) * 3 + r];
            CHECK(out[r * 7 + c] == want, "cat [%d,%d] %d vs %d", r, c, out[r * 7 + c], want);
        }
    in[0].numel = 7;   /* inconsistent with the shape */
    CHECK(host_index(&op) == TFL_ERR_INVALID, "inconsistent numel refused");
}

static void test_scatter_gather(void)
{
    /* scatter_add along dim 0: self 4x3, src/index 5x3 (iteration dim 0 =
     * columns, fastest) */
    float self[12], src[15];
    int64_t index[15];
    double ref[12];
    for (int i = 0; i < 12; i++) self[i] = ref[i] = i * 0.5f;
    for (int i = 0; i < 15; i++) { src[i] = (float)(i + 1); index[i] = (i * 5 + 1) % 4; }
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 3; c++)
            ref[index[r * 3 + c] * 3 + c] += src[r * 3 + c];
    tfl_index_op op = { .kind = TFL_INDEX_SCATTER_GATHER, .elem_size = 4,
                        .index_dtype = TFL_DT_I64, .dtype = TFL_DT_F32 };
    tfl_index_iter *it = &op.u.scatter_gather.iter;
    it->ndim = 2;
    it->sizes[0] = 3; it->sizes[1] = 5;
    it->strides[0][0] = 4; it->strides[0][1] = 0;      /* self restrided along dim */
    it->strides[1][0] = 4; it->strides[1][1] = 12;
    it->strides[2][0] = 8; it->strides[2][1] = 24;
    op.u.scatter_gather.self = self;
    op.u.scatter_gather.src = src;
    op.u.scatter_gather.index = index;
    op.u.scatter_gather.scatter = 1;
    op.u.scatter_gather.reduce = TFL_INDEX_ADD;
    op.u.scatter_gather.index_size = 4;
    op.u.scatter_gather.index_stride = 3;
    CHECK(host_index_supported(&op), "scatter_add supported");
    CHECK(host_index(&op) == TFL_OK, "scatter_add");
    for (int i = 0; i < 12; i++)
        CHECK(fabs(self[i] - ref[i]) < 1e-5, "scatter_add[%d] %g vs %g", i, self[i], ref[i]);
    /* gather back along dim 0 into a 5x3 result */
    float out[15];
    op.u.scatter_gather.scatter = 0;
    op.u.scatter_gather.reduce = TFL_INDEX_ASSIGN;
    op.u.scatter_gather.self = out;
    op.u.scatter_gather.src = self;
    it->strides[0][0] = 4; it->strides[0][1] = 12;     /* out */
    it->strides[1][0] = 4; it->strides[1][1] = 0;      /* src restrided */
    CHECK(host_index(&op) == TFL_OK, "gather");
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 3; c++)
            CHECK(out[r * 3 + c] == self[index[r * 3 + c] * 3 + c], "gather [%d,%d]", r, c);
    index[7] = 4;
    float keep[15];
    memcpy(keep, out, sizeof keep);
    CHECK(host_index(&op) == TFL_ERR_DEVICE, "gather index out of range");
    CHECK(memcmp(keep, out, sizeof keep) == 0, "nothing written");
    /* scatter a value along dim 1 of a 2x6 int16 (iteration over index 2x2) */
    int16_t m[12] = { 0 };
    int32_t ix[4] = { 5, 0, 2, 2 };
    tfl_index_op v = { .kind = TFL_INDEX_SCATTER_GATHER, .elem_size = 2, .index_dtype = TFL_DT_I32 };
    v.u.scatter_gather.iter.ndim = 2;
    v.u.scatter_gather.iter.sizes[0] = 2; v.u.scatter_gather.iter.sizes[1] = 2;
    v.u.scatter_gather.iter.strides[0][0] = 0; v.u.scatter_gather.iter.strides[0][1] = 12;
    v.u.scatter_gather.iter.strides[2][0] = 4; v.u.scatter_gather.iter.strides[2][1] = 8;
    v.u.scatter_gather.self = m;
    v.u.scatter_gather.index = ix;
    v.u.scatter_gather.scatter = 1;
    v.u.scatter_gather.index_size = 6;
    v.u.scatter_gather.index_stride = 1;
    v.u.scatter_gather.use_value = 1;
    int16_t val = -321;
    memcpy(v.u.scatter_gather.value, &val, 2);
    CHECK(host_index(&v) == TFL_OK, "scatter value");
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 6; c++) {
            int hit = ix[r * 2] == c || ix[r * 2 + 1] == c;
            CHECK(m[r * 6 + c] == (hit ? -321 : 0), "scatter value [%d,%d] = %d", r, c, m[r * 6 + c]);
        }
    /* negative indices: refused, unless allow_negative (index_fill) */
    ix[1] = -6;
    CHECK(host_index(&v) == TFL_ERR_DEVICE, "negative index refused");
    v.u.scatter_gather.allow_negative = 1;
    memset(m, 0, sizeof m);
    CHECK(host_index(&v) == TFL_OK, "negative index from the end");
    CHECK(m[0] == -321 && m[5] == -321, "-6 is column 0 of 6");
    ix[1] = -7;
    CHECK(host_index(&v) == TFL_ERR_DEVICE, "-7 out of range");
    op.dtype = TFL_DT_F16;
    op.u.scatter_gather.reduce = TFL_INDEX_ADD;
    CHECK(host_index_supported(&op), "fp16 add claimed");
    op.dtype = TFL_DT_C64;
    CHECK(!host_index_supported(&op), "complex add not claimed");
}

static void test_advanced(void)
{
    /* x 4x5 int32; out = x[i, j] for i = {3, -4, 1}, j = {0, 4, -1} */
    int32_t x[20], out[3];
    for (int k = 0; k < 20; k++) x[k] = k * 3;
    int64_t i[3] = { 3, -4, 1 }, j[3] = { 0, 4, -1 };
    tfl_index_op op = { .kind = TFL_INDEX_ADVANCED, .elem_size = 4, .index_dtype = TFL_DT_I64 };
    tfl_index_iter *it = &op.u.advanced.iter;
    it->ndim = 1;
    it->sizes[0] = 3;
    it->strides[0][0] = 4; it->strides[1][0] = 0; it->strides[2][0] = 8;
    op.u.advanced.out = out;
    op.u.advanced.in = x;
    op.u.advanced.n_indices = 2;
    op.u.advanced.index_ptrs[0] = i;
    op.u.advanced.index_ptrs[1] = j;
    op.u.advanced.sizes[0] = 4; op.u.advanced.sizes[1] = 5;
    op.u.advanced.strides[0] = 20; op.u.advanced.strides[1] = 4;
    CHECK(host_index(&op) == TFL_OK, "advanced get");
    const int want[3][2] = { { 3, 0 }, { 0, 4 }, { 1, 4 } };
    for (int k = 0; k < 3; k++)
        CHECK(out[k] == x[want[k][0] * 5 + want[k][1]], "get %d: %d", k, out[k]);
    /* put: x[i, j] = v */
    int32_t v[3] = { -7, -8, -9 };
    op.u.advanced.put = 1;
    op.u.advanced.out = x;
    op.u.advanced.in = v;
    it->strides[0][0] = 0; it->strides[1][0] = 4;
    CHECK(host_index(&op) == TFL_OK, "advanced put");
    for (int k = 0; k < 3; k++)
        CHECK(x[want[k][0] * 5 + want[k][1]] == v[k], "put %d", k);
    j[1] = 5;
    CHECK(host_index(&op) == TFL_ERR_DEVICE, "index out of bounds");
}

static void test_range(void)
{
    float f[9];
    int32_t n[9];
    tfl_index_op op = { .kind = TFL_INDEX_RANGE, .dtype = TFL_DT_F32, .elem_size = 4 };
    op.u.range.range_kind = TFL_INDEX_ARANGE;
    op.u.range.out = f;
    op.u.range.n = 9;
    op.u.range.start = 0.5;
    op.u.range.step = 0.25;
    CHECK(host_index(&op) == TFL_OK, "arange f32");
    for (int k = 0; k < 9; k++)
        CHECK(f[k] == 0.5f + 0.25f * k, "arange[%d] %g", k, f[k]);
    op.u.range.range_kind = TFL_INDEX_LINSPACE;
    op.u.range.start = -1;
    op.u.range.end = 2;
    op.u.range.steps = 9;
    op.u.range.halfway = 4;
    op.u.range.step = 3.0 / 8;
    CHECK(host_index(&op) == TFL_OK, "linspace f32");
    for (int k = 0; k < 9; k++)
        CHECK(fabs(f[k] - (-1 + 3.0 * k / 8)) < 1e-6, "linspace[%d] %g", k, f[k]);
    CHECK(f[8] == 2.0f && f[0] == -1.0f, "linspace ends exact");
    op.dtype = TFL_DT_I32;
    op.u.range.range_kind = TFL_INDEX_ARANGE;
    op.u.range.out = n;
    op.u.range.istart = 20;
    op.u.range.istep = -3;
    CHECK(host_index(&op) == TFL_OK, "arange i32");
    for (int k = 0; k < 9; k++)
        CHECK(n[k] == 20 - 3 * k, "arange i32[%d] %d", k, n[k]);
}

static void test_triangle(void)
{
    /* 2 batches of 3x4 floats, src transposed in storage; tril k = 1, then triu in place */
    float src[24], dst[24];
    for (int i = 0; i < 24; i++) src[i] = (float)(i + 1);
    tfl_index_op op = { .kind = TFL_INDEX_TRIANGLE, .elem_size = 4 };
    tfl_index_tensor *d = &op.u.triangle.dst, *s = &op.u.triangle.src;
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    d->data = dst; d->ndim = 3;
    d->sizes[0] = 2; d->sizes[1] = 3; d->sizes[2] = 4;
    d->strides[0] = 12; d->strides[1] = 4; d->strides[2] = 1;
    *s = *d;
    s->data = src;
    s->strides[1] = 1; s->strides[2] = 3;     /* element (b, i, j) at b*12 + i + 3j */
    op.u.triangle.diagonal = 1;
    CHECK(host_index(&op) == TFL_OK, "tril");
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                float want = j - i <= 1 ? src[b * 12 + i + 3 * j] : 0.0f;
                CHECK(dst[b * 12 + i * 4 + j] == want, "tril [%d,%d,%d]", b, i, j);
            }
    float keep[24];
    memcpy(keep, dst, sizeof keep);
    *s = *d;                                   /* in place */
    op.u.triangle.upper = 1;
    op.u.triangle.diagonal = 0;
    CHECK(host_index(&op) == TFL_OK, "triu in place");
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                float want = j - i >= 0 ? keep[b * 12 + i * 4 + j] : 0.0f;
                CHECK(dst[b * 12 + i * 4 + j] == want, "triu [%d,%d,%d]", b, i, j);
            }
    s->sizes[0] = 3;
    CHECK(host_index(&op) == TFL_ERR_INVALID, "shape mismatch refused");
}

static void test_put_sorted(void)
{
    /* weight: outer 2 x (6 rows x 3), z stride 18; x[idx] with idx = {4, 1, 4, 0} */
    double w[36], ref[36], grad[2 * 4 * 3];
    const int64_t idx[4] = { 4, 1, 4, 0 };
    const int64_t sorted[4] = { 0, 1, 4, 4 }, pos[4] = { 3, 1, 0, 2 };
    for (int i = 0; i < 24; i++) grad[i] = i + 0.5;
    for (int acc = 0; acc < 2; acc++) {
        for (int i = 0; i < 36; i++) w[i] = ref[i] = -1;
        for (int z = 0; z < 2; z++)
            for (int p = 0; p < 4; p++) {
                if (!acc && p == 0)
                    continue;                 /* position 0's 4 is overwritten by position 2's */
                for (int f = 0; f < 3; f++) {
                    double g = grad[z * 12 + p * 3 + f];
                    double *r = &ref[z * 18 + idx[p] * 3 + f];
                    *r = acc ? *r + g : g;
                }
            }
        tfl_index_op op = { .kind = TFL_INDEX_PUT_SORTED, .elem_size = 8, .index_dtype = TFL_DT_I64,
                            .dtype = TFL_DT_F64 };
        op.u.put_sorted.sorted = sorted;
        op.u.put_sorted.positions = pos;
        op.u.put_sorted.grad = grad;
        op.u.put_sorted.weight = w;
        op.u.put_sorted.weight_bytes = sizeof w;
        op.u.put_sorted.numel = 4;
        op.u.put_sorted.stride = 3;
        op.u.put_sorted.stride_before = 18;
        op.u.put_sorted.outer_dim = 2;
        op.u.put_sorted.accumulate = acc;
        CHECK(host_index_supported(&op), "put sorted supported");
        CHECK(host_index(&op) == TFL_OK, "put sorted (accumulate %d)", acc);
        for (int i = 0; i < 36; i++)
            CHECK(w[i] == ref[i], "put sorted acc=%d [%d] %g vs %g", acc, i, w[i], ref[i]);
        op.u.put_sorted.weight_bytes = 8 * 17;      /* row 4 of z = 1 does not fit */
        CHECK(host_index(&op) == TFL_ERR_DEVICE, "row past the weight refused");
    }
}

/* scatter_reduce and index_reduce: prod / amax / amin, float32 and int64,
 * against a double (or int64) reference folded in index order */
static void test_reduce_functors(void)
{
    const tfl_index_reduce reds[3] = { TFL_INDEX_MUL, TFL_INDEX_MAX, TFL_INDEX_MIN };
    const int64_t index[9] = { 2, 0, 2, 3, 2, 0, 1, 3, 3 };
    for (int r = 0; r < 3; r++) {
        float self[4], src[9];
        double ref[4];
        int64_t iself[4], isrc[9], iref[4];
        for (int i = 0; i < 4; i++) {
            self[i] = (float)(1.0 + 0.25 * i);
            ref[i] = self[i];
            iself[i] = iref[i] = 3 - 2 * i;
        }
        for (int i = 0; i < 9; i++) {
            src[i] = (float)(0.5 + 0.3 * ((i * 5) % 7));
            isrc[i] = (i * 7) % 5 - 2;
            double a = ref[index[i]], b = src[i];
            int64_t ia = iref[index[i]], ib = isrc[i];
            ref[index[i]] = reds[r] == TFL_INDEX_MUL ? a * b : reds[r] == TFL_INDEX_MAX ? (a > b ? a : b)
                                                                                       : (a < b ? a : b);
            iref[index[i]] = reds[r] == TFL_INDEX_MUL ? ia * ib
                           : reds[r] == TFL_INDEX_MAX ? (ia > ib ? ia : ib) : (ia < ib ? ia : ib);
        }
        tfl_index_op op = { .kind = TFL_INDEX_SCATTER_GATHER, .elem_size = 4,
                            .index_dtype = TFL_DT_I64, .dtype = TFL_DT_F32 };
        tfl_index_iter *it = &op.u.scatter_gather.iter;
        it->ndim = 1;
        it->sizes[0] = 9;
        it->strides[0][0] = 0; it->strides[1][0] = 4; it->strides[2][0] = 8;
        op.u.scatter_gather.self = self;
        op.u.scatter_gather.src = src;
        op.u.scatter_gather.index = index;
        op.u.scatter_gather.scatter = 1;
        op.u.scatter_gather.reduce = reds[r];
        op.u.scatter_gather.index_size = 4;
        op.u.scatter_gather.index_stride = 1;
        CHECK(host_index_supported(&op), "scatter_reduce %d supported", r);
        CHECK(host_index(&op) == TFL_OK, "scatter_reduce %d", r);
        for (int i = 0; i < 4; i++)
            CHECK(fabs(self[i] - ref[i]) <= 1e-6 * fabs(ref[i]), "scatter_reduce %d [%d] %g vs %g",
                  r, i, self[i], ref[i]);
        /* int64 through index_reduce: rows of one element */
        tfl_index_op x = { .kind = TFL_INDEX_SELECT, .elem_size = 8, .index_dtype = TFL_DT_I64,
                           .dtype = TFL_DT_I64 };
        view2(&x.u.select.dst, iself, 4, 1, 1, 1);
        view2(&x.u.select.src, isrc, 9, 1, 1, 1);
        x.u.select.index.data = (void *)index;
        x.u.select.index.ndim = 1;
        x.u.select.index.sizes[0] = 9;
        x.u.select.index.strides[0] = 1;
        x.u.select.dst_dim = 0;
        x.u.select.src_dim = 0;
        x.u.select.index_bound = 4;
        x.u.select.index_dst = 1;
        x.u.select.reduce = reds[r];
        x.u.select.alpha = 1.0;
        CHECK(host_index_supported(&x), "index_reduce %d supported", r);
        CHECK(host_index(&x) == TFL_OK, "index_reduce %d", r);
        for (int i = 0; i < 4; i++)
            CHECK(iself[i] == iref[i], "index_reduce %d [%d] %lld vs %lld", r, i,
                  (long long)iself[i], (long long)iref[i]);
    }
}

/* Kernel names of the torch 2.11 and 2.15 sm_80 cubins and their parameter
 * tables (offset:size, as `torchfl wheel --list` / scripts/wheel_kernels.py
 * read them): the family must claim each and state exactly that layout. */
static const cubin_layout cubin[] = {
    /* 2.11.0 */
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16flip_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorEEUliE_EEvlT1_",
      "0:8 8:520" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_21index_put_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorEN3c108ArrayRefIlEESA_EUlPcPKclE_EEvRNS_18TensorIteratorBaseESA_SA_RKT_bEUliE_EEvlT1_",
      "0:8 8:1240" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_22index_copy_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorElllEUliE_EEvlT1_",
      "0:8 8:648" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_22index_fill_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorElllT_EUliE_EEvlT1_",
      "0:8 16:560" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_22index_fill_kernel_implINS0_10OpaqueTypeILi2EEEEEvRNS_14TensorIteratorElllT_EUliE_EEvlT1_",
      "0:8 8:544" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_17index_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_18TensorIteratorBaseEN3c108ArrayRefIlEESA_EUlPcPKclE_EEvS7_SA_SA_RKT_bEUliE_EEvlT1_",
      "0:8 8:1240" },
    { "_ZN2at6native24vectorized_gather_kernelILi16EiEEvPcS2_PT0_illllb",
      "0:8 8:8 16:8 24:4 32:8 40:8 48:8 56:8 64:1" },
    { "_ZN44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb24indexing_backward_kernelIN3c108BFloat16ELi4EEEvPKlS4_PKT_PS5_llllb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:1" },
    { "_ZN2at6native44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb21indexSelectSmallIndexIN3c108BFloat16EljLin1ELin1ELin1EEEvNS_4cuda6detail10TensorInfoIT_T1_EENS7_IKS8_S9_EENS7_IKT0_S9_EEiiS9_l",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8" },
    { "_ZN2at6native19indexFuncLargeIndexIN3c108BFloat16ElmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_SA_llRKT6_S9_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:2" },
    { "_ZN2at6native19indexFuncLargeIndexIflmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:4" },
    { "_ZN2at6native19indexFuncLargeIndexIdlmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:8" },
    { "_ZN2at6native19indexFuncLargeIndexIN3c108BFloat16EljLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_SA_llRKT6_S9_",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:2" },
    { "_ZN2at6native19indexFuncSmallIndexIN3c108BFloat16EljLin1ELin1ELin1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_llRKT5_S9_",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8 672:8 680:8 688:2" },
    { "_ZN2at6native19indexFuncLargeIndexIfljLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:4" },
    { "_ZN2at6native19indexFuncSmallIndexIfljLin1ELin1ELin1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_llRKT5_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8 672:8 680:8 688:4" },
    { "_ZN2at6native19indexFuncLargeIndexIdljLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:8" },
    { "_ZN2at6native19indexFuncSmallIndexIdljLin1ELin1ELin1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_llRKT5_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8 672:8 680:8 688:8" },
    { "_ZN2at6native19indexFuncLargeIndexIN3c108BFloat16ElmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_SA_llRKT6_S9_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:2" },
    { "_ZN2at6native19indexFuncLargeIndexIflmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:4" },
    { "_ZN2at6native19indexFuncLargeIndexIdlmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:8" },
    { "_ZN2at6native19indexFuncLargeIndexIN3c108BFloat16EljLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_SA_llRKT6_S9_",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:2" },
    { "_ZN2at6native19indexFuncSmallIndexIN3c108BFloat16EljLin1ELin1ELin1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_llRKT5_S9_",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8 672:8 680:8 688:2" },
    { "_ZN2at6native19indexFuncLargeIndexIfljLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:4" },
    { "_ZN2at6native19indexFuncSmallIndexIfljLin1ELin1ELin1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_llRKT5_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8 672:8 680:8 688:4" },
    { "_ZN2at6native19indexFuncLargeIndexIdljLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT6_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:8" },
    { "_ZN2at6native19indexFuncSmallIndexIdljLin1ELin1ELin1ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_llRKT5_S7_",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8 672:8 680:8 688:8" },
    { "_ZN50_GLOBAL__N__fa15d16e_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE0_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE",
      "0:4 8:40 48:8" },
    { "_ZN50_GLOBAL__N__fa15d16e_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE",
      "0:4 8:48 56:8" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1EN3c108BFloat16ElEclINS0_10ReduceMeanEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1EN3c108BFloat16ElEclINS0_14ReduceMultiplyEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_34_cuda_scatter_fill_internal_kernelINS0_10OpaqueTypeILi16EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorES4_lllRKT_EUliE_EEviT1_",
      "0:4 16:576" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_34_cuda_scatter_fill_internal_kernelINS0_10OpaqueTypeILi2EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorES4_lllRKT_EUliE_EEviT1_",
      "0:4 8:560" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1ENS0_10OpaqueTypeILi16EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb0ENS0_10OpaqueTypeILi16EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native40_GLOBAL__N__0f1a8107_8_Shape_cu_49f7391c19CatArrayBatchedCopyINS1_10OpaqueTypeILj16EEEjLi4ELi64ELi64EEEvPT_NS1_25CatArrInputTensorMetadataIS5_T0_XT2_EXT3_EEENS1_16TensorSizeStrideIS8_Lj4EEEiS8_",
      "0:8 8:3392 3400:32 3432:4 3436:4" },
    { "_ZN2at6native40_GLOBAL__N__0f1a8107_8_Shape_cu_49f7391c19CatArrayBatchedCopyINS1_10OpaqueTypeILj16EEEjLi4ELi128ELi1EEEvPT_NS1_25CatArrInputTensorMetadataIS5_T0_XT2_EXT3_EEENS1_16TensorSizeStrideIS8_Lj4EEEiS8_",
      "0:8 8:2720 2728:32 2760:4 2764:4" },
    { "_ZN2at6native16triu_tril_kernelIblLb1ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_",
      "0:416 416:416 832:8 840:8 848:8" },
    { "_ZN2at6native16triu_tril_kernelIbiLb1ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_",
      "0:216 216:216 432:8 440:8 448:4" },
    { "_ZN2at6native16triu_tril_kernelIblLb0ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_",
      "0:416 416:416 832:8 840:8 848:8" },
    { "_ZN2at6native16triu_tril_kernelIbiLb0ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_",
      "0:216 216:216 432:8 440:8 448:4" },
    /* 2.15.0 */
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16flip_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorEEUliE_EEvlT1_",
      "0:8 8:520" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_21index_put_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorEN3c108ArrayRefIlEESA_EUlPcPKclE_EEvRNS_18TensorIteratorBaseESA_SA_RKT_bEUliE_EEvlT1_",
      "0:8 8:1240" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_22index_copy_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorElllEUliE_EEvlT1_",
      "0:8 8:648" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_22index_fill_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_14TensorIteratorElllT_EUliE_EEvlT1_",
      "0:8 16:560" },
    { "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_17index_kernel_implINS0_10OpaqueTypeILi16EEEEEvRNS_18TensorIteratorBaseEN3c108ArrayRefIlEESA_EUlPcPKclE_EEvS7_SA_SA_RKT_bEUliE_EEvlT1_",
      "0:8 8:1240" },
    { "_ZN2at6native24vectorized_gather_kernelILi16EiEEvPcS2_PT0_illllb",
      "0:8 8:8 16:8 24:4 32:8 40:8 48:8 56:8 64:1" },
    { "_ZN44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb24indexing_backward_kernelIN3c108BFloat16ELi4EEEvPKlS4_PKT_PS5_llllb",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:1" },
    { "_ZN2at6native44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb21indexSelectSmallIndexIN3c108BFloat16EljLin1ELin1ELin1EEEvNS_4cuda6detail10TensorInfoIT_T1_EENS7_IKS8_S9_EENS7_IKT0_S9_EEiiS9_l",
      "0:216 216:216 432:216 648:4 652:4 656:4 664:8" },
    { "_ZN2at6native19indexFuncLargeIndexIN3c108BFloat16ElmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb14ReduceMultiplyEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_SA_llRKT6_S9_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:2" },
    { "_ZN2at6native19indexFuncLargeIndexIN3c108BFloat16ElmLin1ELin1ELin1ELb1ENS0_44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS8_IKS9_SA_EENS8_IKT0_SA_EEiiSA_SA_llRKT6_S9_",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:2" },
    { "_ZN50_GLOBAL__N__2fa45684_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE0_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE",
      "0:4 8:40 48:8" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1EN3c108BFloat16ElEclINS0_10ReduceMeanEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1EN3c108BFloat16ElEclINS0_14ReduceMultiplyEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_34_cuda_scatter_fill_internal_kernelINS0_10OpaqueTypeILi16EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorES4_lllRKT_EUliE_EEviT1_",
      "0:4 16:576" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb1ENS0_10OpaqueTypeILi16EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native34_scatter_gather_elementwise_kernelILi128ELi8EZNS0_36_cuda_scatter_gather_internal_kernelILb0ENS0_10OpaqueTypeILi16EEElEclINS0_12TensorAssignEEEvRNS_14TensorIteratorElllRKT_EUliE_EEviT1_",
      "0:4 8:664" },
    { "_ZN2at6native40_GLOBAL__N__f1f992fe_8_Shape_cu_49f7391c19CatArrayBatchedCopyINS1_10OpaqueTypeILj16EEEjLi4ELi64ELi64EEEvPT_NS1_25CatArrInputTensorMetadataIS5_T0_XT2_EXT3_EEENS1_16TensorSizeStrideIS8_Lj4EEEiS8_",
      "0:8 8:3392 3400:32 3432:4 3436:4" },
    { "_ZN2at6native16triu_tril_kernelIblLb1ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_",
      "0:416 416:416 832:8 840:8 848:8" },
    { "_ZN2at6native16triu_tril_kernelIblLb0ELi8ELb0EEEvNS_4cuda6detail10TensorInfoIT_T0_EENS4_IKS5_S6_EEllS6_",
      "0:416 416:416 832:8 840:8 848:8" },
    /* arange (the elementwise family claims it first in a lookup) */
    { "_ZN50_GLOBAL__N__fa15d16e_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE5_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE",
      "0:4 8:16 24:8" },
    { "_ZN50_GLOBAL__N__2fa45684_17_RangeFactories_cu_38772b0829elementwise_kernel_with_indexIiZZZN2at6native15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_EEvT_T0_PN15function_traitsISD_E11result_typeE",
      "0:4 8:24 32:8" },
    /* release-specific forms: 2.12's indexFuncLargeIndex (an unroll constant
     * and a trailing IntDivider), the dim-0 scatter-add of 2.13 / 2.14 and
     * its 2.15 name */
    { "_ZN2at6native19indexFuncLargeIndexIfljLi1ELi1ELin2ELb1ELi4ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT7_S7_NS5_10IntDividerIS8_EE",
      "0:216 216:216 432:216 648:4 652:4 656:4 660:4 664:8 672:8 680:8 688:4 692:12" },
    { "_ZN2at6native19indexFuncLargeIndexIdlmLin1ELin1ELin1ELb1ELi4ENS0_44_GLOBAL__N__50c743a2_11_Indexing_cu_89862edb9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_S8_llRKT7_S7_NS5_10IntDividerIS8_EE",
      "0:416 416:416 832:416 1248:4 1252:4 1256:8 1264:8 1272:8 1280:8 1288:8 1296:8 1304:8" },
    { "_ZN2at6native29vectorized_scatter_add_kernelILi16EflEEvPT0_PKS2_PKT1_illllii",
      "0:8 8:8 16:8 24:4 32:8 40:8 48:8 56:8 64:4 68:4" },
    { "_ZN2at6native25vectorized_scatter_kernelINS0_12ScatterAddOpELi16EN3c108BFloat16ElEEvPT1_PKS5_PKT2_illllii",
      "0:8 8:8 16:8 24:4 32:8 40:8 48:8 56:8 64:4 68:4" },
};

/* vectorized_scatter_add_kernel decoded from a synthesized launch (pool
 * memory) and run: self row idx[e] += src row e. */
static void test_scatter_add_rows_decode(void)
{
    enum { ROWS = 4, INNER = 3, N = 5 };
    const char *name = "_ZN2at6native29vectorized_scatter_add_kernelILi16EflEEvPT0_PKS2_PKT1_illllii";
    float *self = NULL, *src = NULL;
    int64_t *idx = NULL;
    CHECK(tfl_rt_init() == TFL_OK, "runtime");
    if (tfl_mem_alloc(ROWS * INNER * 4, TFL_MEM_DEVICE, 0, 0, (void **)&self) != TFL_OK ||
        tfl_mem_alloc(N * INNER * 4, TFL_MEM_DEVICE, 0, 0, (void **)&src) != TFL_OK ||
        tfl_mem_alloc(N * 8, TFL_MEM_DEVICE, 0, 0, (void **)&idx) != TFL_OK) {
        CHECK(0, "pool allocation");
        return;
    }
    const int64_t ix[N] = { 0, 2, 2, 3, 0 };
    float ref[ROWS * INNER];
    for (int i = 0; i < ROWS * INNER; i++)
        ref[i] = self[i] = (float)i;
    for (int e = 0; e < N; e++) {
        idx[e] = ix[e];
        for (int j = 0; j < INNER; j++) {
            src[e * INNER + j] = 0.5f * (float)(e + 1) + (float)j;
            ref[ix[e] * INNER + j] += src[e * INNER + j];
        }
    }
    int32_t n = N, tpe = 32, epb = 8;
    int64_t slice = INNER * 4, rows = ROWS, dst_st = INNER * 4, src_st = INNER * 4;
    void *args[] = { &self, &src, &idx, &n, &slice, &rows, &dst_st, &src_st, &tpe, &epb };
    tfl_kcall c = { name, { 1, 1, 1 }, { 256, 1, 1 }, 0, args, NULL };
    void *ck = NULL;
    char err[256] = "";
    CHECK(tfl_kfamily_index.match(name, &ck) && strcmp(tfl_kfamily_index.op_name(ck),
                                                       "index_add_rows") == 0, "claimed");
    CHECK(ck && tfl_kfamily_index.run(&c, ck, err, sizeof err) == TFL_OK, "run: %s", err);
    int bad = 0;
    for (int i = 0; i < ROWS * INNER; i++)
        bad += self[i] != ref[i];
    CHECK(bad == 0, "scatter-add rows: %d wrong", bad);
    tfl_mem_free(self, 1u << TFL_MEM_DEVICE);
    tfl_mem_free(src, 1u << TFL_MEM_DEVICE);
    tfl_mem_free(idx, 1u << TFL_MEM_DEVICE);
}

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_index, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    test_scatter_add_rows_decode();
    test_select();
    test_index_add();
    test_gather_rows();
    test_cat();
    test_scatter_gather();
    test_advanced();
    test_range();
    test_triangle();
    test_put_sorted();
    test_reduce_functors();
    printf("test_ops_index: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

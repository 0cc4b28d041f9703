/*
 * test_ops_index.c - host_index: index_select over strided views, row
 * gather, batched cat (contiguous and strided inputs), gather / scatter /
 * scatter_add over an iteration, advanced indexing get/put with negative
 * indices, arange/linspace; bad indices refused before any write.
 * References are computed here with plain nested loops over coordinates.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"

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

int main(void)
{
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

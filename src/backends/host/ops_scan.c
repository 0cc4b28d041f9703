/*
 * ops_scan.c - the host backend's "scan" ops (torchfl/ops/scan.h):
 * prefix scans along a dim (cumsum, cumprod, logcumsumexp, cummax,
 * cummin) and the nonzero compaction steps (count, select, unravel).
 *
 * Scans along an outer dim run a whole [len][inner] plane row by row so
 * the inner loop is a contiguous vector op; scans along the innermost dim
 * (inner == 1) are sequential per row, as a scan must be.
 */
#include <math.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int scan_dtype_ok(tfl_dtype dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_I32 || dt == TFL_DT_I64;
}

static int is_float(tfl_dtype dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64;
}

int host_scan_supported(const tfl_scan_op *op)
{
    switch (op->kind) {
    case TFL_SCAN_DIM:
        if (!scan_dtype_ok(op->dtype))
            return 0;
        if (op->fn == TFL_SCAN_ADD || op->fn == TFL_SCAN_MUL)
            return 1;
        return op->fn == TFL_SCAN_LOGADDEXP && is_float(op->dtype);
    case TFL_SCAN_DIM_INDEX:
        return scan_dtype_ok(op->dtype) && (op->fn == TFL_SCAN_MAX || op->fn == TFL_SCAN_MIN);
    case TFL_SCAN_TOTAL:
        if (op->total_dtype != TFL_DT_I32 && op->total_dtype != TFL_DT_I64)
            return 0;
        if (op->n == 0)
            return 1;
        return op->nonzero ? tfl_dtype_size(op->dtype) != 0
                           : (op->dtype == TFL_DT_I32 || op->dtype == TFL_DT_I64);
    case TFL_SCAN_SELECT_NONZERO:
        return tfl_dtype_size(op->dtype) != 0 &&
               (op->total_dtype == TFL_DT_I32 || op->total_dtype == TFL_DT_I64);
    case TFL_SCAN_UNRAVEL:
        return op->ndim >= 1 && op->ndim <= TFL_SCAN_MAX_DIMS;
    default:
        return 0;
    }
}

/* PyTorch's _log_add_exp_helper, in double or float. */
#define LOGADDEXP_FN(name, T, LOG1P, EXP, ISFIN)                           \
    static inline T name(T x, T y)                                         \
    {                                                                      \
        T mn = isnan(y) ? y : (y < x ? y : x);                             \
        T mx = isnan(y) ? y : (x < y ? y : x);                             \
        if (mn != mx || ISFIN(mn))                                         \
            return LOG1P(EXP(mn - mx)) + mx;                               \
        return x;                                                          \
    }
LOGADDEXP_FN(lae_f32, float, log1pf, expf, isfinite)
LOGADDEXP_FN(lae_f64, double, log1p, exp, isfinite)

/* One [len][inner] plane, acc kept in dst's previous row.  Integer
 * arithmetic wraps as the device's does (done in unsigned). */
#define SCAN_PLANE(T, OPEXPR)                                           \
    do {                                                                   \
        const T *s = (const T *)src;                              \
        T *d = (T *)dst;                                          \
        T ini;                                                             \
        memcpy(&ini, op->init, sizeof ini);                                \
        if (inner == 1) {                /* rows: one running value */     \
            for (int64_t o = 0; o < op->outer && len > 0; o++) {           \
                const T *so = s + o * len;                                 \
                T *dd = d + o * len;                                       \
                T a = ini, b = so[0];                                      \
                T acc = op->has_init ? (OPEXPR) : b;                       \
                dd[0] = acc;                                               \
                for (int64_t j = 1; j < len; j++) {                        \
                    a = acc;                                               \
                    b = so[j];                                             \
                    acc = (OPEXPR);                                        \
                    dd[j] = acc;                                           \
                }                                                          \
            }                                                              \
            break;                                                         \
        }                                                                  \
        for (int64_t o = 0; o < op->outer; o++) {                          \
            const T *so = s + o * len * inner;                    \
            T *dd = d + o * len * inner;                          \
            for (int64_t i = 0; i < inner; i++) {                          \
                T a = ini, b = so[i];                                      \
                dd[i] = op->has_init ? (OPEXPR) : b;                       \
            }                                                              \
            for (int64_t j = 1; j < len; j++) {                            \
                const T *sj = so + j * inner;                     \
                const T *prev = dd + (j - 1) * inner;             \
                T *dj = dd + j * inner;                           \
                for (int64_t i = 0; i < inner; i++) {                      \
                    T a = prev[i], b = sj[i];                              \
                    dj[i] = (OPEXPR);                                      \
                }                                                          \
            }                                                              \
        }                                                                  \
    } while (0)

static tfl_status scan_dim(const tfl_scan_op *op)
{
    const int64_t len = op->len, inner = op->inner;
    const void *src = op->src;
    void *dst = op->dst;
    /* dst == src is allowed: each element is read before it is written
     * and only earlier rows of dst are read back. */
    switch (op->dtype) {
    case TFL_DT_F32:
        if (op->fn == TFL_SCAN_ADD) SCAN_PLANE(float, a + b);
        else if (op->fn == TFL_SCAN_MUL) SCAN_PLANE(float, a * b);
        else SCAN_PLANE(float, lae_f32(a, b));
        return TFL_OK;
    case TFL_DT_F64:
        if (op->fn == TFL_SCAN_ADD) SCAN_PLANE(double, a + b);
        else if (op->fn == TFL_SCAN_MUL) SCAN_PLANE(double, a * b);
        else SCAN_PLANE(double, lae_f64(a, b));
        return TFL_OK;
    case TFL_DT_I32:
        if (op->fn == TFL_SCAN_ADD) SCAN_PLANE(int32_t, (int32_t)((uint32_t)a + (uint32_t)b));
        else SCAN_PLANE(int32_t, (int32_t)((uint32_t)a * (uint32_t)b));
        return TFL_OK;
    case TFL_DT_I64:
        if (op->fn == TFL_SCAN_ADD) SCAN_PLANE(int64_t, (int64_t)((uint64_t)a + (uint64_t)b));
        else SCAN_PLANE(int64_t, (int64_t)((uint64_t)a * (uint64_t)b));
        return TFL_OK;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

/* cummax / cummin: one running (value, index) per [outer][inner] lane. */
#define SCAN_INDEX(T, ISNAN)                                               \
    do {                                                                   \
        const T *s = (const T *)op->src;                                   \
        T *d = (T *)op->dst;                                               \
        int64_t *ix = op->indices;                                         \
        T ini;                                                             \
        memcpy(&ini, op->init, sizeof ini);                                \
        const int mx = op->fn == TFL_SCAN_MAX;                             \
        for (int64_t o = 0; o < op->outer; o++)                            \
            for (int64_t i = 0; i < inner; i++) {                          \
                T cur = ini;                                               \
                int64_t ci = 0;                                            \
                int64_t base = o * len * inner + i;                        \
                for (int64_t j = 0; j < len; j++) {                        \
                    T v = s[base + j * inner];                             \
                    if (ISNAN(v) || (!ISNAN(cur) && (mx ? v >= cur : v <= cur))) { \
                        cur = v;                                           \
                        ci = j;                                            \
                    }                                                      \
                    d[base + j * inner] = cur;                             \
                    ix[base + j * inner] = ci;                             \
                }                                                          \
            }                                                              \
    } while (0)

#define NEVER_NAN(v) ((void)(v), 0)

static tfl_status scan_dim_index(const tfl_scan_op *op)
{
    const int64_t len = op->len, inner = op->inner;
    switch (op->dtype) {
    case TFL_DT_F32: SCAN_INDEX(float, isnan); return TFL_OK;
    case TFL_DT_F64: SCAN_INDEX(double, isnan); return TFL_OK;
    case TFL_DT_I32: SCAN_INDEX(int32_t, NEVER_NAN); return TFL_OK;
    case TFL_DT_I64: SCAN_INDEX(int64_t, NEVER_NAN); return TFL_OK;
    default: return TFL_ERR_UNSUPPORTED;
    }
}

/* Is element i of a dtype-typed array nonzero (NaN counts: != 0)? */
static inline int elem_nonzero(const unsigned char *p, size_t esz)
{
    switch (esz) {
    case 1: return p[0] != 0;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v != 0; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v != 0; }
    case 8: { uint64_t v; memcpy(&v, p, 8); return v != 0; }
    default: {
        for (size_t k = 0; k < esz; k++)
            if (p[k]) return 1;
        return 0;
    }
    }
}

/* The bit tests above treat -0.0 as nonzero; floats compare by value. */
static int value_nonzero(const unsigned char *p, tfl_dtype dt)
{
    switch (dt) {
    case TFL_DT_F32: { float v; memcpy(&v, p, 4); return v != 0.0f; }
    case TFL_DT_F64: { double v; memcpy(&v, p, 8); return v != 0.0; }
    case TFL_DT_C64: { float v[2]; memcpy(v, p, 8); return v[0] != 0.0f || v[1] != 0.0f; }
    case TFL_DT_C128: { double v[2]; memcpy(v, p, 16); return v[0] != 0.0 || v[1] != 0.0; }
    case TFL_DT_F16: case TFL_DT_BF16: {
        uint16_t v; memcpy(&v, p, 2);
        return (v & 0x7fffu) != 0;          /* +-0 are the only zeros */
    }
    default: return elem_nonzero(p, tfl_dtype_size(dt));
    }
}

static int64_t count_nonzero(const unsigned char *s, tfl_dtype dt, int64_t n)
{
    int64_t c = 0;
    if (dt == TFL_DT_BOOL || dt == TFL_DT_U8 || dt == TFL_DT_I8) {
        for (int64_t i = 0; i < n; i++)
            c += s[i] != 0;
    } else if (dt == TFL_DT_F32) {
        const float *f = (const float *)(const void *)s;
        for (int64_t i = 0; i < n; i++)
            c += f[i] != 0.0f;
    } else {
        size_t esz = tfl_dtype_size(dt);
        for (int64_t i = 0; i < n; i++)
            c += value_nonzero(s + (size_t)i * esz, dt);
    }
    return c;
}

static void store_total(void *dst, tfl_dtype dt, int64_t v)
{
    if (dt == TFL_DT_I32) {
        int32_t w = (int32_t)(uint32_t)(uint64_t)v;
        memcpy(dst, &w, 4);
    } else {
        memcpy(dst, &v, 8);
    }
}

static tfl_status scan_total(const tfl_scan_op *op)
{
    int64_t init;
    if (op->total_dtype == TFL_DT_I32) {
        int32_t w; memcpy(&w, op->init, 4); init = w;
    } else {
        memcpy(&init, op->init, 8);
    }
    uint64_t acc = (uint64_t)init;
    if (op->n > 0) {
        if (op->nonzero) {
            acc += (uint64_t)count_nonzero(op->src, op->dtype, op->n);
        } else if (op->dtype == TFL_DT_I32) {
            const int32_t *s = op->src;
            for (int64_t i = 0; i < op->n; i++) acc += (uint64_t)(int64_t)s[i];
        } else {
            const int64_t *s = op->src;
            for (int64_t i = 0; i < op->n; i++) acc += (uint64_t)s[i];
        }
    }
    store_total(op->total, op->total_dtype, (int64_t)acc);
    size_t tsz = tfl_dtype_size(op->total_dtype);
    if (op->zero_after > 1)
        memset((char *)op->total + tsz, 0, (size_t)(op->zero_after - 1) * tsz);
    return TFL_OK;
}

static tfl_status scan_select(const tfl_scan_op *op)
{
    const unsigned char *s = op->src;
    int64_t k = 0;
    if (count_nonzero(s, op->dtype, op->n) > op->out_capacity)
        return TFL_ERR_DEVICE;
    if (op->dtype == TFL_DT_BOOL || op->dtype == TFL_DT_U8 || op->dtype == TFL_DT_I8) {
        for (int64_t i = 0; i < op->n; i++)
            if (s[i])
                op->out_index[k++] = op->index_base + i;
    } else {
        size_t esz = tfl_dtype_size(op->dtype);
        for (int64_t i = 0; i < op->n; i++)
            if (value_nonzero(s + (size_t)i * esz, op->dtype))
                op->out_index[k++] = op->index_base + i;
    }
    store_total(op->total, op->total_dtype, k);
    return TFL_OK;
}

static tfl_status scan_unravel(const tfl_scan_op *op)
{
    const int nd = op->ndim;
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        if (op->sizes[d] <= 0)
            return TFL_ERR_INVALID;
        numel *= op->sizes[d];
    }
    int64_t *x = op->out_index;
    const int64_t n = op->n;
    for (int64_t i = 0; i < n; i++)
        if (x[i] < 0 || x[i] >= numel)
            return TFL_ERR_INVALID;
    /* From the last dim up so that dim 0 (x[i] itself) is written last. */
    for (int64_t i = 0; i < n; i++) {
        int64_t f = x[i];
        for (int d = nd - 1; d >= 0; d--) {
            x[(int64_t)d * n + i] = f % op->sizes[d];
            f /= op->sizes[d];
        }
    }
    return TFL_OK;
}

tfl_status host_scan(const tfl_scan_op *op)
{
    if (!host_scan_supported(op))
        return TFL_ERR_UNSUPPORTED;
    switch (op->kind) {
    case TFL_SCAN_DIM:
        if (op->outer < 0 || op->len < 0 || op->inner < 0)
            return TFL_ERR_INVALID;
        return scan_dim(op);
    case TFL_SCAN_DIM_INDEX:
        if (op->outer < 0 || op->len < 0 || op->inner < 0)
            return TFL_ERR_INVALID;
        return scan_dim_index(op);
    case TFL_SCAN_TOTAL:
        return op->n < 0 ? TFL_ERR_INVALID : scan_total(op);
    case TFL_SCAN_SELECT_NONZERO:
        return op->n < 0 ? TFL_ERR_INVALID : scan_select(op);
    case TFL_SCAN_UNRAVEL:
        return op->n < 0 ? TFL_ERR_INVALID : scan_unravel(op);
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

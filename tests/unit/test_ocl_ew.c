/*
 * test_ocl_ew.c - the OpenCL backend's elementwise op (ocl_ew.c) against
 * the host backend's: every code the OpenCL table computes, over float,
 * half, bfloat16, integer and bool operands, contiguous, strided,
 * broadcast (stride 0), constant inputs, a strided output and a rank the
 * kernel takes through its dimension buffer.  Both backends run the same
 * op on the same bytes (NaN, infinities and signed zeros included); the
 * outputs must agree exactly for integer results, copies, casts,
 * comparisons and selections, and within 1e-5 relative (a few ulp for
 * half and bfloat16) for floating math.  Ops on complex numbers must be
 * refused.
 */
#include "ocl_harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ran, fp64;
#define CHECK OCL_H_CHECK

enum { F32 = TFL_DT_F32, F64 = TFL_DT_F64, F16 = TFL_DT_F16, BF16 = TFL_DT_BF16,
       C64 = TFL_DT_C64, I8 = TFL_DT_I8, U8 = TFL_DT_U8, I32 = TFL_DT_I32,
       I64 = TFL_DT_I64, BOOL = TFL_DT_BOOL, SCALAR = -1, NONE = -2 };

static const char *dt_name(int dt)
{
    return dt == SCALAR ? "scalar" : ocl_h_dt_name(dt);
}

static int is_int(int dt)
{
    return dt == I8 || dt == U8 || dt == I32 || dt == I64 || dt == BOOL;
}

/* ------------------------------------------------------------ values */

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    return ocl_h_xs64(&rng);
}

static double uniform(double lo, double hi)
{
    return ocl_h_urand64(&rng, lo, hi);
}

static uint16_t f32_to_f16(float f)
{
    /* exact for the values generated: chosen on the half grid */
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return s | 0x7e00u;
    if (a == 0x7f800000u) return s | 0x7c00u;
    if (a < 0x38800000u) return s | (uint16_t)(uint32_t)(fabsf(f) * 16777216.0f);
    return (uint16_t)(s | ((a - 0x38000000u) >> 13));
}

/* A floating value: mostly small, some large, some special. */
static double float_value(void)
{
    static const double special[] = { NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5 };
    uint64_t r = next() % 100;
    if (r < 8)
        return special[next() % 8];
    if (r < 16)
        return uniform(-100, 100);
    if (r < 20)
        return uniform(0, 1);
    return uniform(-3, 3);
}

/* Store one generated value of dtype dt at p (rounded onto its grid). */
static void gen(int dt, void *p)
{
    double v = float_value();
    switch (dt) {
    case F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case F64: memcpy(p, &v, 8); break;
    case F16: {
        float f = (float)v;
        if (isfinite(f)) f = fminf(fmaxf(f, -60000.f), 60000.f);
        /* onto the half grid: 11 significant bits */
        if (isfinite(f) && f != 0) { int e; float m = frexpf(f, &e); f = ldexpf(roundf(m * 2048) / 2048, e); }
        uint16_t h = f32_to_f16(f);
        memcpy(p, &h, 2);
        break;
    }
    case BF16: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); uint16_t h = (uint16_t)(u >> 16); memcpy(p, &h, 2); break; }
    case I64: {
        int64_t x = next() % 16 == 0 ? (int64_t)next() : (int64_t)(next() % 2001) - 1000;
        uint64_t r = next() % 64;
        if (r == 0) x = next() % 2 ? INT64_MIN : INT64_MAX;
        /* rounds differently to float directly and through double */
        if (r == 1) x = (next() % 2 ? -1 : 1) * ((INT64_C(1) << 60) + (INT64_C(1) << 36) + 1);
        memcpy(p, &x, 8);
        break;
    }
    case I32: {
        int32_t x = next() % 16 == 0 ? (int32_t)next() : (int32_t)(next() % 2001) - 1000;
        memcpy(p, &x, 4);
        break;
    }
    case I8: case U8: *(uint8_t *)p = (uint8_t)next(); break;
    case BOOL: *(uint8_t *)p = (uint8_t)(next() % 16 == 0 ? 2 : next() % 2); break;
    }
}

/* ------------------------------------------------------------ comparison */

/* Relative tolerance of a floating output type: 1e-5 for float and
 * double, one unit in the last place for half and bfloat16. */
static double rel_tol(int dt)
{
    return dt == F16 ? 1.0 / 1024 : dt == BF16 ? 1.0 / 128 : 1e-5;
}

/* One output element of both backends agrees.  scale: the product of
 * 1 + |input| over the element's inputs, for the absolute slack. */
static int same(int dt, int exact, const unsigned char *x, const unsigned char *y, double scale)
{
    size_t es = tfl_dtype_size((tfl_dtype)dt);
    if (memcmp(x, y, es) == 0)
        return 1;
    if (is_int(dt))
        return 0;
    double a = ocl_h_load(dt, x), b = ocl_h_load(dt, y);
    if (exact)
        return isnan(a) && isnan(b);
    /* math: non-finite on both sides.  Which of inf, -inf or NaN can
     * depend on rounding where the result is ill-conditioned (an infinite
     * gradient times a derivative near zero, computed in float on the
     * device and in double by the host for strided or half operands). */
    if (!isfinite(a) || !isfinite(b))
        return !isfinite(a) && !isfinite(b);
    /* absolute slack for results that cancel to near zero: float rounding
     * of the terms, which grow with the inputs (e.g. the tanh-GELU
     * gradient's dy * x * (1 - tanh^2) near its zero) */
    double tol = rel_tol(dt) * fmax(fabs(a), fabs(b)) + 1e-6 * scale;
    return fabs(a - b) <= tol;
}

/* ------------------------------------------------------------ one op */

typedef struct layout {
    const char *name;
    int ndim;
    int64_t shape[12];
    int perm[TFL_EW_MAX_OPERANDS][12];   /* order of each operand's dims in memory */
    int step[TFL_EW_MAX_OPERANDS];       /* element step of the fastest dim (>= 1) */
    int bcast[TFL_EW_MAX_OPERANDS];      /* 1 + dim broadcast (stride 0), 0 none  */
} layout;

static const layout layouts[] = {
    { "contiguous", 1, { 1037 }, { { 0 } }, { 1, 1, 1, 1 }, { 0 } },
    { "strided", 2, { 13, 17 }, { { 0, 1 }, { 1, 0 }, { 0, 1 }, { 1, 0 } }, { 1, 1, 2, 1 },
      { 0, 0, 2, 0 } },
    { "out-strided", 3, { 9, 5, 3 }, { { 0, 1, 2 }, { 0, 1, 2 }, { 2, 1, 0 }, { 0, 1, 2 } },
      { 2, 1, 1, 1 }, { 0, 0, 0, 1 } },
    { "rank-10", 10, { 2, 3, 2, 2, 2, 2, 2, 2, 2, 2 },
      { { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, { 0, 2, 4, 6, 8, 1, 3, 5, 7, 9 },
        { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, { 1, 0, 3, 2, 5, 4, 7, 6, 9, 8 } },
      { 1, 1, 1, 1 }, { 0, 0, 0, 0 } },
};
enum { L_CONTIG, L_STRIDED, L_OUTSTRIDED, L_RANK10, NLAYOUTS };

typedef struct tcase {
    int code, compute;
    int dt[TFL_EW_MAX_OPERANDS];     /* [0] output; SCALAR: a constant; NONE */
    double p[4];
    int exact;
} tcase;

/* Strides (bytes) of operand k of a layout; returns the bytes spanned. */
static size_t strides_of(const layout *l, int k, size_t es, int64_t *st)
{
    int64_t s = (int64_t)es * l->step[k];
    for (int j = 0; j < l->ndim; j++) {
        int d = l->ndim == 1 ? 0 : l->perm[k][j];
        if (l->bcast[k] == d + 1) {
            st[d] = 0;
            continue;
        }
        st[d] = s;
        s *= l->shape[d];
    }
    return (size_t)s;
}

/* Run c in layout l on both backends and compare.  0 if not supported. */
static int run_case(const tcase *c, int li, int want_supported)
{
    const layout *l = &layouts[li];
    int nin = 0;
    while (nin < 3 && c->dt[nin + 1] != NONE)
        nin++;
    tfl_op hop, dop;
    memset(&hop, 0, sizeof hop);
    hop.kind = TFL_OP_ELEMENTWISE;
    hop.name = "elementwise";
    tfl_elementwise_op *e = &hop.u.elementwise;
    e->code = (tfl_ew_code)c->code;
    e->compute = c->compute;
    e->ninputs = nin;
    e->ndim = l->ndim;
    for (int d = 0; d < l->ndim; d++)
        e->shape[d] = l->shape[d];
    for (int i = 0; i < 4; i++) {
        e->param_f[i] = c->p[i];
        e->param_i[i] = (int64_t)c->p[i];
    }
    void *hbuf[TFL_EW_MAX_OPERANDS] = { 0 }, *dbuf[TFL_EW_MAX_OPERANDS] = { 0 };
    size_t bytes[TFL_EW_MAX_OPERANDS] = { 0 };
    for (int k = 0; k <= nin; k++) {
        tfl_ew_operand *o = &e->operand[k];
        if (c->dt[k] == SCALAR) {
            o->is_scalar = 1;
            o->dtype = is_int(c->compute) ? I64 : F64;
            o->value_f = 0.75;
            o->value_i = 3;
            continue;
        }
        o->dtype = c->dt[k];
        size_t es = tfl_dtype_size((tfl_dtype)o->dtype);
        bytes[k] = strides_of(l, k, es, o->strides);
        hbuf[k] = malloc(bytes[k]);
        for (size_t i = 0; i < bytes[k]; i += es)
            gen(o->dtype, (char *)hbuf[k] + i);
        dbuf[k] = ocl_h_alloc(bytes[k]);
        ocl_h_put(dbuf[k], hbuf[k], bytes[k]);
        o->data = hbuf[k];
    }
    dop = hop;
    for (int k = 0; k <= nin; k++)
        if (dbuf[k])
            dop.u.elementwise.operand[k].data = dbuf[k];
    int ok = 1, sup = ocl_h->op_supported(&dop);
    if (!sup) {
        if (want_supported) {
            fprintf(stderr, "  not supported: code %d compute %s out %s in %s %s %s (%s)\n",
                    c->code, dt_name(c->compute), dt_name(c->dt[0]), dt_name(c->dt[1]),
                    dt_name(c->dt[2]), dt_name(c->dt[3]), l->name);
            ocl_h_failures++;
        }
        ok = 0;
        goto out;
    }
    tfl_status hs = host_elementwise(&hop.u.elementwise), ds = ocl_h_run(&dop);
    CHECK(ds == TFL_OK);
    if (hs != TFL_OK || ds != TFL_OK) {
        fprintf(stderr, "  code %d: host %d device %d\n", c->code, hs, ds);
        ocl_h_failures += hs != TFL_OK;
        goto out;
    }
    ran++;
    unsigned char *got = malloc(bytes[0]), *seen = calloc(bytes[0], 1);
    ocl_h_get(got, dbuf[0], bytes[0]);
    size_t es = tfl_dtype_size((tfl_dtype)c->dt[0]);
    int64_t total = 1;
    for (int d = 0; d < l->ndim; d++)
        total *= l->shape[d];
    int bad = 0;
    for (int64_t i = 0; i < total; i++) {
        int64_t rest = i, off[TFL_EW_MAX_OPERANDS] = { 0 };
        for (int d = 0; d < l->ndim; d++) {
            for (int k = 0; k <= nin; k++)
                off[k] += rest % l->shape[d] * e->operand[k].strides[d];
            rest /= l->shape[d];
        }
        double in[3] = { 0, 0, 0 }, scale = 1;
        for (int k = 1; k <= nin; k++) {
            in[k - 1] = hbuf[k] ? ocl_h_load(c->dt[k], (char *)hbuf[k] + off[k]) : 0.75;
            scale *= isfinite(in[k - 1]) ? 1 + fabs(in[k - 1]) : 1;
        }
        const unsigned char *h = (unsigned char *)hbuf[0] + off[0], *g = got + off[0];
        memset(seen + off[0], 1, es);
        if (same(c->dt[0], c->exact, h, g, scale))
            continue;
        if (bad++ < 4) {
            fprintf(stderr, "  code %d compute %s out %s in %s %s %s (%s) elem %lld: "
                    "in %.9g %.9g %.9g host %.9g device %.9g (bytes", c->code,
                    dt_name(c->compute), dt_name(c->dt[0]), dt_name(c->dt[1]),
                    dt_name(c->dt[2]), dt_name(c->dt[3]), l->name, (long long)i, in[0], in[1],
                    in[2], ocl_h_load(c->dt[0], h), ocl_h_load(c->dt[0], g));
            for (size_t j = 0; j < es; j++)
                fprintf(stderr, " %02x/%02x", h[j], g[j]);
            fprintf(stderr, ")\n");
        }
    }
    /* the bytes between a strided output's elements are left alone */
    for (size_t i = 0; i < bytes[0]; i++)
        if (!seen[i] && ((unsigned char *)hbuf[0])[i] != got[i]) {
            fprintf(stderr, "  code %d (%s): byte %zu outside the output written\n", c->code,
                    l->name, i);
            bad++;
            break;
        }
    if (bad) {
        fprintf(stderr, "  ... %d elements differ\n", bad);
        ocl_h_failures++;
    }
    free(got);
    free(seen);
out:
    for (int k = 0; k <= nin; k++) {
        free(hbuf[k]);
        if (dbuf[k])
            ocl_h_free(dbuf[k], bytes[k]);
    }
    return ok;
}

/* ------------------------------------------------------------ the cases */

/* Parameters that keep each code in its meaningful range. */
static void params_for(int code, double p[4])
{
    p[0] = 0.5; p[1] = 2.0; p[2] = 1.5; p[3] = 0.0;
    switch (code) {
    case TFL_EW_ADD: p[0] = 1.0; break;
    case TFL_EW_CLAMP: p[0] = -1.0; p[1] = 1.5; break;
    case TFL_EW_SOFTPLUS: case TFL_EW_SOFTPLUS_BACKWARD: p[0] = 1.0; p[1] = 20.0; break;
    case TFL_EW_DIV_FLOOR_INV: p[0] = 0.75; p[1] = 1 / 0.75; break;
    case TFL_EW_HARDTANH_BACKWARD: p[0] = -1.0; p[1] = 1.0; break;
    case TFL_EW_NAN_TO_NUM: p[0] = 0.0; p[1] = 1e30; p[2] = -1e30; break;
    case TFL_EW_LOGIT_EPS: case TFL_EW_LOGIT_EPS_BACKWARD: p[0] = 0.1; p[1] = 0.9; break;
    case TFL_EW_ELU_BACKWARD: p[0] = 1.0; p[1] = 1.0; p[2] = 1.0; p[3] = 0.0; break;
    case TFL_EW_ARANGE: p[0] = -3.0; p[1] = 0.25; break;
    }
}

/* Inputs each code reads (the header's contract). */
static int arity(int code)
{
    switch (code) {
    case TFL_EW_FILL: case TFL_EW_ARANGE: return 0;
    case TFL_EW_CLAMP_T: case TFL_EW_WHERE: case TFL_EW_LERP: case TFL_EW_ADDCMUL:
    case TFL_EW_ADDCDIV: case TFL_EW_SMOOTH_L1_BACKWARD: case TFL_EW_HUBER_BACKWARD:
    case TFL_EW_MSE_BACKWARD: case TFL_EW_BCE_BACKWARD:
        return 3;
    case TFL_EW_ADD: case TFL_EW_MUL: case TFL_EW_DIV: case TFL_EW_POW: case TFL_EW_MAXIMUM:
    case TFL_EW_MINIMUM: case TFL_EW_EQ: case TFL_EW_NE: case TFL_EW_LT: case TFL_EW_LE:
    case TFL_EW_GT: case TFL_EW_GE: case TFL_EW_THRESHOLD: case TFL_EW_GELU_BACKWARD:
    case TFL_EW_GELU_TANH_BACKWARD: case TFL_EW_SILU_BACKWARD: case TFL_EW_TANH_BACKWARD:
    case TFL_EW_SIGMOID_BACKWARD: case TFL_EW_SOFTPLUS_BACKWARD:
    case TFL_EW_LEAKY_RELU_BACKWARD: case TFL_EW_MASKED_FILL: case TFL_EW_LOGICAL_AND:
    case TFL_EW_LOGICAL_OR: case TFL_EW_LOGICAL_XOR: case TFL_EW_LERP_SCALAR:
    case TFL_EW_DIV_TRUNC: case TFL_EW_DIV_FLOOR: case TFL_EW_FMOD: case TFL_EW_REMAINDER:
    case TFL_EW_ATAN2: case TFL_EW_BITWISE_AND: case TFL_EW_BITWISE_OR: case TFL_EW_BITWISE_XOR:
    case TFL_EW_HYPOT: case TFL_EW_COPYSIGN: case TFL_EW_LOGADDEXP: case TFL_EW_FMAX:
    case TFL_EW_FMIN: case TFL_EW_XLOGY: case TFL_EW_ELU_BACKWARD: case TFL_EW_HARDTANH_BACKWARD:
    case TFL_EW_HARDSWISH_BACKWARD: case TFL_EW_HARDSIGMOID_BACKWARD:
    case TFL_EW_LOG_SIGMOID_BACKWARD: case TFL_EW_MSE: case TFL_EW_MISH_BACKWARD: case TFL_EW_PRELU:
    case TFL_EW_GLU: case TFL_EW_HEAVISIDE: case TFL_EW_XLOG1PY: case TFL_EW_SMOOTH_L1:
    case TFL_EW_HUBER: case TFL_EW_SHRINK_BACKWARD: case TFL_EW_BCE: case TFL_EW_LOGIT_BACKWARD:
    case TFL_EW_LOGIT_EPS_BACKWARD:
        return 2;
    default:
        return 1;
    }
}

/* Integer-only codes (no floating form) and complex-only codes. */
static int float_code(int code)
{
    return code != TFL_EW_BITWISE_NOT && code != TFL_EW_BITWISE_AND &&
           code != TFL_EW_BITWISE_OR && code != TFL_EW_BITWISE_XOR && code < TFL_EW_CONJ;
}

/* Codes whose result is a selection, comparison or exact rounding of
 * the inputs: equal bits expected even where the host computes in double.
 * Not fmin/fmax: C leaves the sign of fmin(-0, +0) open (glibc on x86
 * and OpenCL devices differ). */
static int exact_code(int code)
{
    switch (code) {
    case TFL_EW_FILL: case TFL_EW_COPY: case TFL_EW_NEG: case TFL_EW_ABS: case TFL_EW_SIGN:
    case TFL_EW_LOGICAL_NOT: case TFL_EW_CLAMP: case TFL_EW_CLAMP_MIN: case TFL_EW_CLAMP_MAX:
    case TFL_EW_CLAMP_T: case TFL_EW_MAXIMUM: case TFL_EW_MINIMUM: case TFL_EW_WHERE:
    case TFL_EW_EQ: case TFL_EW_NE: case TFL_EW_LT: case TFL_EW_LE: case TFL_EW_GT:
    case TFL_EW_GE: case TFL_EW_THRESHOLD: case TFL_EW_MASKED_FILL: case TFL_EW_FLOOR:
    case TFL_EW_CEIL: case TFL_EW_ROUND: case TFL_EW_TRUNC: case TFL_EW_LOGICAL_AND:
    case TFL_EW_LOGICAL_OR: case TFL_EW_LOGICAL_XOR: case TFL_EW_COPYSIGN: case TFL_EW_SIGNBIT:
    case TFL_EW_ISPOSINF: case TFL_EW_ISNEGINF:
    case TFL_EW_NAN_TO_NUM: case TFL_EW_FRAC: case TFL_EW_HARDTANH_BACKWARD:
    case TFL_EW_SHRINK_BACKWARD: case TFL_EW_HARDSHRINK: case TFL_EW_MUL: case TFL_EW_DIV:
    case TFL_EW_SQRT: case TFL_EW_SQUARE: case TFL_EW_RECIPROCAL: case TFL_EW_ADD:
        return 1;
    default:
        return 0;
    }
}

/* Comparisons and logical ops: a bool result. */
static int bool_result(int code)
{
    return (code >= TFL_EW_EQ && code <= TFL_EW_GE) || code == TFL_EW_LOGICAL_AND ||
           code == TFL_EW_LOGICAL_OR || code == TFL_EW_LOGICAL_XOR ||
           code == TFL_EW_SIGNBIT || code == TFL_EW_ISPOSINF || code == TFL_EW_ISNEGINF;
}

static tcase make(int code, int compute, int out, int in)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.code = code;
    c.compute = compute;
    c.dt[0] = bool_result(code) ? BOOL : out;
    int n = arity(code);
    for (int k = 1; k <= 3; k++)
        c.dt[k] = k <= n ? in : NONE;
    /* a condition / mask input */
    if (code == TFL_EW_WHERE) c.dt[1] = BOOL;
    if (code == TFL_EW_MASKED_FILL) c.dt[2] = BOOL;
    params_for(code, c.p);
    c.exact = exact_code(code);
    return c;
}

/* The codes a transformer training step and the MLP/CNN examples use:
 * every layout, wherever they are tested. */
static int must_have(int code)
{
    switch (code) {
    case TFL_EW_FILL: case TFL_EW_COPY: case TFL_EW_ADD: case TFL_EW_MUL: case TFL_EW_DIV:
    case TFL_EW_EQ: case TFL_EW_NE: case TFL_EW_LT: case TFL_EW_LE: case TFL_EW_GT:
    case TFL_EW_GE: case TFL_EW_WHERE: case TFL_EW_MASKED_FILL: case TFL_EW_THRESHOLD:
    case TFL_EW_GELU: case TFL_EW_GELU_TANH: case TFL_EW_GELU_BACKWARD:
    case TFL_EW_GELU_TANH_BACKWARD: case TFL_EW_SILU: case TFL_EW_SILU_BACKWARD:
    case TFL_EW_TANH: case TFL_EW_SIGMOID: case TFL_EW_EXP: case TFL_EW_LOG: case TFL_EW_SQRT:
    case TFL_EW_RSQRT: case TFL_EW_NEG: case TFL_EW_POW: case TFL_EW_ARANGE:
    case TFL_EW_ADDCMUL: case TFL_EW_ADDCDIV: case TFL_EW_LERP:
        return 1;
    default:
        return 0;
    }
}

/* Every program is compiled once per device (PoCL: ~0.2 s each, cached
 * on disk after), so the default matrix samples layouts and types per
 * code; OCL_EW_FULL=1 runs every combination. */
static int full;

/* Every floating code over float32, each in one of the layouts (the
 * addressing is common to all codes; the row is what differs); the
 * must-haves strided with a broadcast input, contiguous with a constant
 * input, and with a strided output or at rank 10 (the shape in a buffer). */
static void test_f32_codes(void)
{
    for (int code = 0; code < TFL_EW_CODE_COUNT; code++) {
        if (!float_code(code))
            continue;
        tcase c = make(code, F32, F32, F32);
        int n = arity(code);
        if (code == TFL_EW_ARANGE) {
            run_case(&c, L_CONTIG, 1);
            continue;
        }
        int pick = code % 3 == 0 ? L_STRIDED : code % 3 == 1 ? L_OUTSTRIDED : L_RANK10;
        for (int li = 0; li < NLAYOUTS; li++)
            if (full || li == pick || (must_have(code) && li == L_STRIDED) || n == 0)
                run_case(&c, li, 1);
        if (n >= 1 && code != TFL_EW_WHERE && (full || must_have(code) || code % 2)) {
            c.dt[n] = SCALAR;
            run_case(&c, L_CONTIG, 1);
        }
    }
}

/* The training-step codes with half and bfloat16 operands (float opmath,
 * compute F32), mixed with float32, and with compute F16/BF16 (which the
 * host computes in double). */
static void test_lowp(void)
{
    static const int codes[] = {
        TFL_EW_ADD, TFL_EW_MUL, TFL_EW_DIV, TFL_EW_NEG, TFL_EW_EXP, TFL_EW_LOG, TFL_EW_SQRT,
        TFL_EW_RSQRT, TFL_EW_TANH, TFL_EW_SIGMOID, TFL_EW_POW, TFL_EW_GELU, TFL_EW_GELU_TANH,
        TFL_EW_GELU_BACKWARD, TFL_EW_GELU_TANH_BACKWARD, TFL_EW_SILU, TFL_EW_SILU_BACKWARD,
        TFL_EW_THRESHOLD, TFL_EW_WHERE, TFL_EW_MASKED_FILL, TFL_EW_LT, TFL_EW_EQ,
        TFL_EW_ADDCMUL, TFL_EW_ADDCDIV, TFL_EW_LERP, TFL_EW_FILL, TFL_EW_COPY,
        TFL_EW_MAXIMUM, TFL_EW_CLAMP, TFL_EW_ROUND,
    };
    static const struct { int compute, out, in, layout, always; } combos[] = {
        { F32, F16, F16, L_CONTIG, 1 }, { F32, BF16, BF16, L_STRIDED, 1 },
        { F32, F32, F16, L_OUTSTRIDED, 0 }, { F16, F16, F16, L_CONTIG, 0 },
        { F32, BF16, F32, L_CONTIG, 0 }, { BF16, BF16, BF16, L_STRIDED, 0 },
        { F32, F16, F16, L_STRIDED, 0 }, { F32, BF16, BF16, L_OUTSTRIDED, 0 },
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        for (size_t j = 0; j < sizeof combos / sizeof combos[0]; j++) {
            /* by default: the first two for all, one other in turn */
            if (!combos[j].always && !full && j != 2 + i % 6)
                continue;
            tcase c = make(codes[i], combos[j].compute, combos[j].out, combos[j].in);
            /* mixed: float32 second input */
            if (combos[j].layout == L_OUTSTRIDED && arity(codes[i]) >= 2 && c.dt[2] != BOOL)
                c.dt[2] = F32;
            run_case(&c, combos[j].layout, 1);
        }
}

/* Integer compute: exact int64 arithmetic, wrapping into the output. */
static void test_int(void)
{
    static const int codes[] = {
        TFL_EW_FILL, TFL_EW_COPY, TFL_EW_ADD, TFL_EW_MUL, TFL_EW_NEG, TFL_EW_ABS, TFL_EW_SIGN,
        TFL_EW_LOGICAL_NOT, TFL_EW_SQUARE, TFL_EW_CUBE, TFL_EW_CLAMP, TFL_EW_CLAMP_MIN,
        TFL_EW_CLAMP_MAX, TFL_EW_CLAMP_T, TFL_EW_MAXIMUM, TFL_EW_MINIMUM, TFL_EW_WHERE,
        TFL_EW_EQ, TFL_EW_NE, TFL_EW_LT, TFL_EW_LE, TFL_EW_GT, TFL_EW_GE, TFL_EW_THRESHOLD,
        TFL_EW_MASKED_FILL, TFL_EW_FLOOR, TFL_EW_CEIL, TFL_EW_ROUND, TFL_EW_TRUNC,
        TFL_EW_LOGICAL_AND, TFL_EW_LOGICAL_OR, TFL_EW_LOGICAL_XOR, TFL_EW_BITWISE_NOT,
        TFL_EW_ADDCMUL, TFL_EW_DIV_TRUNC, TFL_EW_DIV_FLOOR, TFL_EW_FMOD, TFL_EW_REMAINDER,
        TFL_EW_BITWISE_AND, TFL_EW_BITWISE_OR, TFL_EW_BITWISE_XOR, TFL_EW_ARANGE,
    };
    /* type, layout by default (all layouts when full): int64 and int32
     * for every code, one of the byte types in turn */
    static const struct { int t, layout; } types[] = {
        { I64, L_STRIDED }, { I32, L_CONTIG }, { I8, L_OUTSTRIDED }, { U8, L_CONTIG },
        { BOOL, L_RANK10 },
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        for (size_t j = 0; j < sizeof types / sizeof types[0]; j++) {
            if (!full && j >= 2 && j != 2 + i % 3)
                continue;
            int t = types[j].t, code = codes[i];
            tcase c = make(code, t, t, t);
            c.p[0] = code == TFL_EW_CLAMP ? -5 : 3;
            c.p[1] = code == TFL_EW_CLAMP ? 7 : -2;
            c.exact = 1;
            for (int li = 0; li < NLAYOUTS; li++)
                if ((full || li == types[j].layout) && (code != TFL_EW_ARANGE || li == L_CONTIG))
                    run_case(&c, li, 1);
            int n = arity(code);
            if (n >= 2 && code != TFL_EW_MASKED_FILL && (full || t == I32)) {
                c.dt[n] = SCALAR;
                run_case(&c, L_CONTIG, 1);
            }
        }
    /* mixed widths: int32 + int64 -> int64, uint8 * bool -> int32 */
    tcase c = make(TFL_EW_ADD, I64, I64, I32);
    c.dt[2] = I64; c.exact = 1;
    run_case(&c, L_STRIDED, 1);
    c = make(TFL_EW_MUL, I32, I32, U8);
    c.dt[2] = BOOL; c.exact = 1;
    run_case(&c, L_OUTSTRIDED, 1);
}

/* Casts: every pair of real dtypes, computed in the output's type (as
 * PyTorch's copy kernel) and in the input's. */
static void test_casts(void)
{
    static const int types[] = { F32, F64, F16, BF16, I8, U8, I32, I64, BOOL };
    const int n = (int)(sizeof types / sizeof types[0]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int via = 0; via < 2; via++) {
                int out = types[i], in = types[j];
                if (via && (!full || in == out))
                    continue;
                tcase c = make(TFL_EW_COPY, via ? in : out, out, in);
                c.exact = 1;
                int want = !(out == F64 || in == F64 || c.compute == F64) || in == out || fp64;
                run_case(&c, (i + j) % 2 ? L_CONTIG : L_STRIDED, want);
                if (full || (i == 0 && j < 4))
                    run_case(&c, L_RANK10, want);
            }
}

/* Double: compute F64, and float compute over int32/int64 inputs (the
 * host converts those exactly in double; a device without doubles must
 * refuse them, but for casts). */
static void test_f64(void)
{
    for (int code = 0; code < TFL_EW_CODE_COUNT; code++) {
        if (!float_code(code) || (!full && !must_have(code) && code % 8))
            continue;
        tcase c = make(code, F64, F64, F64);
        run_case(&c, L_CONTIG, fp64);
        if (code != TFL_EW_ARANGE && (full || code % 4 == 0))
            run_case(&c, L_STRIDED, fp64);
    }
    static const int codes[] = { TFL_EW_ADD, TFL_EW_MUL, TFL_EW_DIV, TFL_EW_EXP, TFL_EW_SIGMOID };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        tcase c = make(codes[i], F32, F32, I64);
        run_case(&c, L_CONTIG, fp64);
        c = make(codes[i], F32, F32, I32);
        run_case(&c, L_STRIDED, fp64);
        c = make(codes[i], F32, F32, U8);
        run_case(&c, L_STRIDED, 1);
    }
}

/* arange over each output type, in the host's compute for it. */
static void test_arange(void)
{
    static const int outs[][2] = { { I64, I64 }, { I32, I64 }, { U8, I64 }, { F32, F32 },
                                   { F16, F32 }, { BF16, F32 }, { F64, F64 } };
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        tcase c = make(TFL_EW_ARANGE, outs[i][1], outs[i][0], 0);
        c.exact = 1;
        if (is_int(outs[i][1])) { c.p[0] = -7; c.p[1] = 3; }
        run_case(&c, L_CONTIG, outs[i][1] != F64 || fp64);
    }
}

/* where over same-size values of any type moves bits (a bool or byte
 * condition), whatever the compute type. */
static void test_where_bits(void)
{
    static const int types[] = { F32, F64, F16, BF16, I8, U8, I32, I64, BOOL };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        for (int cond = 0; cond < 2; cond++) {
            if (!full && cond != (int)(i % 2))
                continue;
            tcase c = make(TFL_EW_WHERE, F32, types[i], types[i]);
            c.dt[1] = cond ? U8 : BOOL;
            c.exact = 1;
            run_case(&c, L_STRIDED, 1);
            if (full || i < 2)
                run_case(&c, L_RANK10, 1);
        }
}

/* Complex anywhere: refused.  So are integer-only codes in float. */
static void test_refused(void)
{
    static char dev[64];
    void *d = ocl_h_alloc(sizeof dev);
    tfl_op op = ocl_h_op(TFL_OP_ELEMENTWISE);
    tfl_elementwise_op *e = &op.u.elementwise;
    e->code = TFL_EW_ADD;
    e->compute = F32;
    e->ninputs = 2;
    e->ndim = 1;
    e->shape[0] = 4;
    e->param_f[0] = 1;
    for (int k = 0; k < 3; k++) {
        e->operand[k].dtype = F32;
        e->operand[k].data = d;
        e->operand[k].strides[0] = 4;
    }
    CHECK(ocl_h->op_supported(&op));
    e->compute = C64;
    CHECK(!ocl_h->op_supported(&op));
    e->compute = F32;
    e->operand[0].dtype = C64;
    e->operand[0].strides[0] = 8;
    CHECK(!ocl_h->op_supported(&op));
    e->operand[0].dtype = F32;
    e->operand[0].strides[0] = 4;
    e->operand[2].is_scalar = 1;
    e->operand[2].dtype = TFL_DT_C128;
    e->operand[2].value_im = 1;
    CHECK(!ocl_h->op_supported(&op));
    e->operand[2].is_scalar = 0;
    e->operand[2].dtype = F32;
    e->code = TFL_EW_CONJ;
    e->ninputs = 1;
    CHECK(!ocl_h->op_supported(&op));
    e->code = TFL_EW_BITWISE_AND;
    e->ninputs = 2;
    CHECK(!ocl_h->op_supported(&op));
    /* the wrong number of inputs; memory outside the device */
    e->code = TFL_EW_ADD;
    e->ninputs = 1;
    CHECK(!ocl_h->op_supported(&op));
    e->ninputs = 2;
    e->operand[1].data = dev;
    CHECK(!ocl_h->op_supported(&op));
    ocl_h_free(d, sizeof dev);
}

/* Whether the device computes in double: a double fill is then native. */
static int probe_fp64(void)
{
    void *d = ocl_h_alloc(8);
    tfl_op op = ocl_h_op(TFL_OP_ELEMENTWISE);
    op.u.elementwise.code = TFL_EW_FILL;
    op.u.elementwise.compute = F64;
    op.u.elementwise.ndim = 1;
    op.u.elementwise.shape[0] = 1;
    op.u.elementwise.operand[0].dtype = F64;
    op.u.elementwise.operand[0].data = d;
    op.u.elementwise.operand[0].strides[0] = 8;
    int r = ocl_h->op_supported(&op);
    ocl_h_free(d, 8);
    return r;
}

int main(void)
{
    ocl_h_init();
    full = getenv("OCL_EW_FULL") != NULL;
    fp64 = probe_fp64();
    test_refused();
    test_f32_codes();
    test_lowp();
    test_int();
    test_casts();
    test_f64();
    test_arange();
    test_where_bits();
    printf("test_ocl_ew: %d ops compared (device doubles: %s)\n", ran, fp64 ? "yes" : "no");
    return ocl_h_finish("test_ocl_ew");
}

/*
 * ops_elementwise.c - the host backend's native elementwise op
 * (torchfl/ops/elementwise.h): pointwise maps over strided N-d operands.
 *
 * Dimensions that are contiguous in every operand are merged first, so a
 * contiguous tensor is one long row.  Rows are processed in chunks: each
 * input is converted into a buffer of the computing type, the op runs as a
 * tight loop over buffers, and the result is converted into the output.
 * Floating ops compute in double and round into the output type (within
 * an ulp of PyTorch's float opmath; Half/BFloat16 results go through float
 * as c10's conversions do); integer ops compute exactly in int64.  A copy
 * between equal types moves the bytes.  When every operand is float32 with unit stride the loop runs on
 * the tensors directly in float, the common case of an fp32 training step;
 * float16/bfloat16 operands of a float-opmath op are widened to float, the
 * op runs in float (as PyTorch's kernels) and the result is rounded once.
 */
#include "backends/host/host_ops.h"
#include "backends/host/host_par.h"
#include "backends/host/ops_gelu_f32.h"
#include "backends/host/ops_elementwise_fp16.h"
#include "backends/host/ops_elementwise_complex.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdatomic.h>
#include <string.h>

#define CHUNK 1024

static size_t dt_size(int dt)
{
    switch (dt) {
    case TFL_DT_F32: case TFL_DT_I32: return 4;
    case TFL_DT_F64: case TFL_DT_I64: return 8;
    case TFL_DT_F16: case TFL_DT_BF16: return 2;
    case TFL_DT_I8: case TFL_DT_U8: case TFL_DT_BOOL: return 1;
    case TFL_DT_C64: return 8;         /* complex: ops_elementwise_complex.c */
    case TFL_DT_C128: return 16;
    default: return 0;
    }
}

static int is_int(int dt)
{
    return dt == TFL_DT_I8 || dt == TFL_DT_U8 || dt == TFL_DT_I32 || dt == TFL_DT_I64 ||
           dt == TFL_DT_BOOL;
}

/* Ops that have an exact integer meaning. */
static int int_capable(int code)
{
    switch (code) {
    case TFL_EW_FILL: case TFL_EW_COPY: case TFL_EW_ADD: case TFL_EW_MUL: case TFL_EW_NEG:
    case TFL_EW_ABS: case TFL_EW_SIGN: case TFL_EW_LOGICAL_NOT: case TFL_EW_SQUARE:
    case TFL_EW_CUBE: case TFL_EW_CLAMP: case TFL_EW_CLAMP_MIN: case TFL_EW_CLAMP_MAX:
    case TFL_EW_CLAMP_T: case TFL_EW_MAXIMUM: case TFL_EW_MINIMUM: case TFL_EW_WHERE:
    case TFL_EW_EQ: case TFL_EW_NE: case TFL_EW_LT: case TFL_EW_LE: case TFL_EW_GT:
    case TFL_EW_GE: case TFL_EW_THRESHOLD: case TFL_EW_MASKED_FILL: case TFL_EW_FLOOR:
    case TFL_EW_CEIL: case TFL_EW_ROUND: case TFL_EW_TRUNC: case TFL_EW_LOGICAL_AND:
    case TFL_EW_LOGICAL_OR: case TFL_EW_LOGICAL_XOR: case TFL_EW_BITWISE_NOT: case TFL_EW_ADDCMUL:
    case TFL_EW_DIV_TRUNC: case TFL_EW_DIV_FLOOR: case TFL_EW_FMOD: case TFL_EW_REMAINDER:
    case TFL_EW_BITWISE_AND: case TFL_EW_BITWISE_OR: case TFL_EW_BITWISE_XOR:
        return 1;
    default:
        return 0;
    }
}

/* Inputs each op reads. */
static int arity(int code)
{
    switch (code) {
    case TFL_EW_FILL: case TFL_EW_ARANGE:
        return 0;
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
    case TFL_EW_GLU: case TFL_EW_HEAVISIDE: case TFL_EW_XLOG1PY:
    case TFL_EW_SMOOTH_L1: case TFL_EW_HUBER: case TFL_EW_SHRINK_BACKWARD: case TFL_EW_BCE:
    case TFL_EW_LOGIT_BACKWARD: case TFL_EW_LOGIT_EPS_BACKWARD:
        return 2;
    case TFL_EW_CLAMP_T: case TFL_EW_WHERE: case TFL_EW_LERP: case TFL_EW_ADDCMUL:
    case TFL_EW_ADDCDIV: case TFL_EW_SMOOTH_L1_BACKWARD: case TFL_EW_HUBER_BACKWARD:
    case TFL_EW_MSE_BACKWARD: case TFL_EW_BCE_BACKWARD:
        return 3;
    default:
        return 1;
    }
}

int host_elementwise_supported(const tfl_elementwise_op *op)
{
    if (host_ew_complex_op(op))
        return host_ew_complex_supported(op);
    if ((unsigned)op->code >= TFL_EW_CODE_COUNT || op->ninputs != arity(op->code) ||
        op->ndim < 1 || op->ndim > TFL_EW_MAX_DIMS)
        return 0;
    for (int k = 0; k <= op->ninputs; k++)
        if (!dt_size(op->operand[k].dtype) && !(k && op->operand[k].is_scalar))
            return 0;
    return !op->operand[0].is_scalar;
}

/* ------------------------------------------------------- conversions */

static void load_f64(int dt, const char *p, int64_t st, int64_t n, double *o)
{
    switch (dt) {
    case TFL_DT_F32: for (int64_t i = 0; i < n; i++) { float v; memcpy(&v, p + i * st, 4); o[i] = v; } break;
    case TFL_DT_F64: for (int64_t i = 0; i < n; i++) memcpy(&o[i], p + i * st, 8); break;
    case TFL_DT_F16: for (int64_t i = 0; i < n; i++) { uint16_t v; memcpy(&v, p + i * st, 2); o[i] = tfl_half_to_float(v); } break;
    case TFL_DT_BF16: for (int64_t i = 0; i < n; i++) { uint16_t v; memcpy(&v, p + i * st, 2); o[i] = tfl_bf16_to_float(v); } break;
    case TFL_DT_I64: for (int64_t i = 0; i < n; i++) { int64_t v; memcpy(&v, p + i * st, 8); o[i] = (double)v; } break;
    case TFL_DT_I32: for (int64_t i = 0; i < n; i++) { int32_t v; memcpy(&v, p + i * st, 4); o[i] = v; } break;
    case TFL_DT_I8: for (int64_t i = 0; i < n; i++) o[i] = (int8_t)p[i * st]; break;
    case TFL_DT_U8: for (int64_t i = 0; i < n; i++) o[i] = (uint8_t)p[i * st]; break;
    case TFL_DT_BOOL: for (int64_t i = 0; i < n; i++) o[i] = p[i * st] != 0; break;
    }
}

static void load_i64(int dt, const char *p, int64_t st, int64_t n, int64_t *o)
{
    switch (dt) {
    case TFL_DT_I64: for (int64_t i = 0; i < n; i++) memcpy(&o[i], p + i * st, 8); break;
    case TFL_DT_I32: for (int64_t i = 0; i < n; i++) { int32_t v; memcpy(&v, p + i * st, 4); o[i] = v; } break;
    case TFL_DT_I8: for (int64_t i = 0; i < n; i++) o[i] = (int8_t)p[i * st]; break;
    case TFL_DT_U8: for (int64_t i = 0; i < n; i++) o[i] = (uint8_t)p[i * st]; break;
    case TFL_DT_BOOL: for (int64_t i = 0; i < n; i++) o[i] = p[i * st] != 0; break;
    }
}

/* double -> integer as C would, but without undefined behaviour on NaN
 * or out-of-range values (which a GPU saturates). */
static int64_t f2i(double v)
{
    if (isnan(v)) return 0;
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

static void store_f64(int dt, char *p, int64_t st, int64_t n, const double *v)
{
    switch (dt) {
    case TFL_DT_F32: for (int64_t i = 0; i < n; i++) { float f = (float)v[i]; memcpy(p + i * st, &f, 4); } break;
    case TFL_DT_F64: for (int64_t i = 0; i < n; i++) memcpy(p + i * st, &v[i], 8); break;
    case TFL_DT_F16: for (int64_t i = 0; i < n; i++) { uint16_t h = tfl_float_to_half((float)v[i]); memcpy(p + i * st, &h, 2); } break;
    case TFL_DT_BF16: for (int64_t i = 0; i < n; i++) { uint16_t h = tfl_float_to_bf16((float)v[i]); memcpy(p + i * st, &h, 2); } break;
    case TFL_DT_I64: for (int64_t i = 0; i < n; i++) { int64_t x = f2i(v[i]); memcpy(p + i * st, &x, 8); } break;
    case TFL_DT_I32: for (int64_t i = 0; i < n; i++) { int32_t x = (int32_t)f2i(v[i]); memcpy(p + i * st, &x, 4); } break;
    case TFL_DT_I8: case TFL_DT_U8: for (int64_t i = 0; i < n; i++) p[i * st] = (char)f2i(v[i]); break;
    case TFL_DT_BOOL: for (int64_t i = 0; i < n; i++) p[i * st] = v[i] != 0; break;
    }
}

static void store_i64(int dt, char *p, int64_t st, int64_t n, const int64_t *v)
{
    switch (dt) {
    case TFL_DT_F32: for (int64_t i = 0; i < n; i++) { float f = (float)v[i]; memcpy(p + i * st, &f, 4); } break;
    case TFL_DT_F64: for (int64_t i = 0; i < n; i++) { double d = (double)v[i]; memcpy(p + i * st, &d, 8); } break;
    case TFL_DT_F16: for (int64_t i = 0; i < n; i++) { uint16_t h = tfl_float_to_half((float)v[i]); memcpy(p + i * st, &h, 2); } break;
    case TFL_DT_BF16: for (int64_t i = 0; i < n; i++) { uint16_t h = tfl_float_to_bf16((float)v[i]); memcpy(p + i * st, &h, 2); } break;
    case TFL_DT_I64: for (int64_t i = 0; i < n; i++) memcpy(p + i * st, &v[i], 8); break;
    case TFL_DT_I32: for (int64_t i = 0; i < n; i++) { int32_t x = (int32_t)v[i]; memcpy(p + i * st, &x, 4); } break;
    case TFL_DT_I8: case TFL_DT_U8: for (int64_t i = 0; i < n; i++) p[i * st] = (char)v[i]; break;
    case TFL_DT_BOOL: for (int64_t i = 0; i < n; i++) p[i * st] = v[i] != 0; break;
    }
}

/* ----------------------------------------------------------- the math */

#define K_BETA_TANH 0.7978845608028654   /* sqrt(2/pi) */
#define K_KAPPA 0.044715
#define K_INV_SQRT_2PI 0.3989422804014327

/* One op over n elements of type T (float or double), math functions
 * named by F (f or nothing).  a, b, c may be NULL when unused; p holds
 * the four scalar parameters. */
#define EW_ROW(T, F, NAME)                                                        \
static int NAME(int code, int64_t n, T *o, const T *a,        \
                const T *b, const T *c, const T *p)                               \
{                                                                                 \
    const T p0 = p[0], p1 = p[1], p2 = p[2], p3 = p[3];                           \
    int64_t i;                                                                    \
    switch (code) {                                                               \
    case TFL_EW_FILL: for (i = 0; i < n; i++) o[i] = p0; break;                   \
    case TFL_EW_COPY: for (i = 0; i < n; i++) o[i] = a[i]; break;                 \
    case TFL_EW_ADD:                                                              \
        if (p0 == 1) { for (i = 0; i < n; i++) o[i] = a[i] + b[i]; }              \
        else { for (i = 0; i < n; i++) o[i] = a[i] + p0 * b[i]; }                 \
        break;                                                                    \
    case TFL_EW_MUL: for (i = 0; i < n; i++) o[i] = a[i] * b[i]; break;           \
    case TFL_EW_DIV: for (i = 0; i < n; i++) o[i] = a[i] / b[i]; break;           \
    case TFL_EW_NEG: for (i = 0; i < n; i++) o[i] = -a[i]; break;                 \
    case TFL_EW_ABS: for (i = 0; i < n; i++) o[i] = fabs##F(a[i]); break;         \
    case TFL_EW_EXP: for (i = 0; i < n; i++) o[i] = exp##F(a[i]); break;          \
    case TFL_EW_LOG: for (i = 0; i < n; i++) o[i] = log##F(a[i]); break;          \
    case TFL_EW_SQRT: for (i = 0; i < n; i++) o[i] = sqrt##F(a[i]); break;        \
    case TFL_EW_RSQRT: for (i = 0; i < n; i++) o[i] = 1 / sqrt##F(a[i]); break;   \
    case TFL_EW_SIN: for (i = 0; i < n; i++) o[i] = sin##F(a[i]); break;          \
    case TFL_EW_COS: for (i = 0; i < n; i++) o[i] = cos##F(a[i]); break;          \
    case TFL_EW_TANH: for (i = 0; i < n; i++) o[i] = tanh##F(a[i]); break;        \
    case TFL_EW_SIGMOID: for (i = 0; i < n; i++) o[i] = 1 / (1 + exp##F(-a[i])); break; \
    case TFL_EW_RECIPROCAL: for (i = 0; i < n; i++) o[i] = 1 / a[i]; break;       \
    case TFL_EW_SIGN: for (i = 0; i < n; i++) o[i] = (T)((0 < a[i]) - (a[i] < 0)); break; \
    case TFL_EW_LOGICAL_NOT: for (i = 0; i < n; i++) o[i] = a[i] == 0; break;     \
    case TFL_EW_POW: for (i = 0; i < n; i++) o[i] = pow##F(a[i], b[i]); break;    \
    case TFL_EW_SQUARE: for (i = 0; i < n; i++) o[i] = a[i] * a[i]; break;        \
    case TFL_EW_CUBE: for (i = 0; i < n; i++) o[i] = a[i] * a[i] * a[i]; break;   \
    case TFL_EW_INV_SQUARE: for (i = 0; i < n; i++) o[i] = 1 / (a[i] * a[i]); break; \
    case TFL_EW_CLAMP:                                                            \
        for (i = 0; i < n; i++) {                                                 \
            T v = a[i], r = v < p0 ? p0 : v;                                      \
            o[i] = isnan(v) ? v : (p1 < r ? p1 : r);                              \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_CLAMP_MIN: for (i = 0; i < n; i++) o[i] = (isnan(a[i]) || !(a[i] < p0)) ? a[i] : p0; break; \
    case TFL_EW_CLAMP_MAX: for (i = 0; i < n; i++) o[i] = (isnan(a[i]) || !(a[i] > p0)) ? a[i] : p0; break; \
    case TFL_EW_CLAMP_T:                                                          \
        for (i = 0; i < n; i++) {                                                 \
            T v = a[i], lo = b[i], hi = c[i], r = v < lo ? lo : v;                \
            r = hi < r ? hi : r;                                                  \
            r = isnan(hi) ? hi : r;                                               \
            r = isnan(lo) ? lo : r;                                               \
            o[i] = isnan(v) ? v : r;                                              \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_MAXIMUM:                                                          \
        for (i = 0; i < n; i++)                                                   \
            { T x = a[i], y = b[i]; o[i] = isnan(x) ? x : isnan(y) ? y : (x > y ? x : y); } \
        break;                                                                    \
    case TFL_EW_MINIMUM:                                                          \
        for (i = 0; i < n; i++)                                                   \
            { T x = a[i], y = b[i]; o[i] = isnan(x) ? x : isnan(y) ? y : (x < y ? x : y); } \
        break;                                                                    \
    case TFL_EW_WHERE: for (i = 0; i < n; i++) { T bv = b[i], cv = c[i]; o[i] = a[i] != 0 ? bv : cv; } break; \
    case TFL_EW_EQ: for (i = 0; i < n; i++) o[i] = a[i] == b[i]; break;           \
    case TFL_EW_NE: for (i = 0; i < n; i++) o[i] = a[i] != b[i]; break;           \
    case TFL_EW_LT: for (i = 0; i < n; i++) o[i] = a[i] < b[i]; break;            \
    case TFL_EW_LE: for (i = 0; i < n; i++) o[i] = a[i] <= b[i]; break;           \
    case TFL_EW_GT: for (i = 0; i < n; i++) o[i] = a[i] > b[i]; break;            \
    case TFL_EW_GE: for (i = 0; i < n; i++) o[i] = a[i] >= b[i]; break;           \
    case TFL_EW_THRESHOLD: for (i = 0; i < n; i++) { T bv = b[i]; o[i] = a[i] <= p0 ? p1 : bv; } break; \
    case TFL_EW_GELU:                                                             \
        if (sizeof(T) == 4) {        /* vectorised float path */                  \
            host_gelu_f32(n, (float *)o, (const float *)a);                       \
            break;                                                                \
        }                                                                         \
        for (i = 0; i < n; i++) o[i] = a[i] * (T)0.5 * (1 + erf##F(a[i] * (T)M_SQRT1_2)); \
        break;                                                                    \
    case TFL_EW_GELU_TANH:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i], in = (T)K_BETA_TANH * (x + (T)K_KAPPA * x * x * x);       \
            o[i] = (T)0.5 * x * (1 + tanh##F(in));                                \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_GELU_BACKWARD:                                                    \
        if (sizeof(T) == 4) {                                                     \
            host_gelu_backward_f32(n, (float *)o, (const float *)a, (const float *)b); \
            break;                                                                \
        }                                                                         \
        for (i = 0; i < n; i++) {                                                 \
            T x = b[i];                                                           \
            T cdf = (T)0.5 * (1 + erf##F(x * (T)M_SQRT1_2));                      \
            T pdf = exp##F((T)-0.5 * x * x) * (T)K_INV_SQRT_2PI;                  \
            o[i] = a[i] * (cdf + x * pdf);                                        \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_GELU_TANH_BACKWARD:                                               \
        for (i = 0; i < n; i++) {                                                 \
            T x = b[i], x2 = x * x;                                               \
            T th = tanh##F((T)K_BETA_TANH * (x + (T)K_KAPPA * x2 * x));           \
            T left = (T)0.5 * x, right = 1 + th;                                  \
            T dtanh = 1 - th * th;                                                \
            T din = (T)K_BETA_TANH * (1 + 3 * (T)K_KAPPA * x2);                   \
            o[i] = a[i] * ((T)0.5 * right + left * dtanh * din);                  \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_SILU: for (i = 0; i < n; i++) o[i] = a[i] / (1 + exp##F(-a[i])); break; \
    case TFL_EW_SILU_BACKWARD:                                                    \
        for (i = 0; i < n; i++) {                                                 \
            T s = 1 / (1 + exp##F(-b[i]));                                        \
            o[i] = a[i] * s * (1 + b[i] * (1 - s));                               \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_TANH_BACKWARD: for (i = 0; i < n; i++) o[i] = a[i] * (1 - b[i] * b[i]); break; \
    case TFL_EW_SIGMOID_BACKWARD: for (i = 0; i < n; i++) o[i] = a[i] * (1 - b[i]) * b[i]; break; \
    case TFL_EW_SOFTPLUS:                                                         \
        for (i = 0; i < n; i++)                                                   \
            o[i] = a[i] * p0 > p1 ? a[i] : log1p##F(exp##F(a[i] * p0)) / p0;      \
        break;                                                                    \
    case TFL_EW_SOFTPLUS_BACKWARD:                                                \
        for (i = 0; i < n; i++) {                                                 \
            T z = exp##F(b[i] * p0);                                              \
            o[i] = b[i] * p0 > p1 ? a[i] : a[i] * z / (z + 1);                    \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_LEAKY_RELU: for (i = 0; i < n; i++) o[i] = a[i] > 0 ? a[i] : a[i] * p0; break; \
    case TFL_EW_LEAKY_RELU_BACKWARD: for (i = 0; i < n; i++) { T bv = b[i]; o[i] = a[i] > 0 ? bv : bv * p0; } break; \
    case TFL_EW_MASKED_FILL: for (i = 0; i < n; i++) o[i] = b[i] != 0 ? p0 : a[i]; break; \
    case TFL_EW_ERF: for (i = 0; i < n; i++) o[i] = erf##F(a[i]); break;          \
    case TFL_EW_LOG1P: for (i = 0; i < n; i++) o[i] = log1p##F(a[i]); break;      \
    case TFL_EW_EXPM1: for (i = 0; i < n; i++) o[i] = expm1##F(a[i]); break;      \
    case TFL_EW_FLOOR: for (i = 0; i < n; i++) o[i] = floor##F(a[i]); break;      \
    case TFL_EW_CEIL: for (i = 0; i < n; i++) o[i] = ceil##F(a[i]); break;        \
    case TFL_EW_ROUND: for (i = 0; i < n; i++) o[i] = nearbyint##F(a[i]); break;  \
    case TFL_EW_TRUNC: for (i = 0; i < n; i++) o[i] = trunc##F(a[i]); break;      \
    case TFL_EW_LOGICAL_AND: for (i = 0; i < n; i++) o[i] = a[i] != 0 && b[i] != 0; break; \
    case TFL_EW_LOGICAL_OR: for (i = 0; i < n; i++) o[i] = a[i] != 0 || b[i] != 0; break; \
    case TFL_EW_LOGICAL_XOR: for (i = 0; i < n; i++) o[i] = (a[i] != 0) != (b[i] != 0); break; \
    case TFL_EW_LERP:                                                             \
        for (i = 0; i < n; i++) {                                                 \
            T w = c[i], d = b[i] - a[i];                                          \
            o[i] = fabs##F(w) < (T)0.5 ? a[i] + w * d : b[i] - d * (1 - w);       \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_LERP_SCALAR:                                                      \
        for (i = 0; i < n; i++) {                                                 \
            T d = b[i] - a[i];                                                    \
            o[i] = fabs##F(p0) < (T)0.5 ? a[i] + p0 * d : b[i] - d * (1 - p0);    \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_ADDCMUL: for (i = 0; i < n; i++) o[i] = a[i] + p0 * b[i] * c[i]; break; \
    case TFL_EW_ADDCDIV: for (i = 0; i < n; i++) o[i] = a[i] + p0 * (b[i] / c[i]); break; \
    case TFL_EW_DIV_TRUNC: for (i = 0; i < n; i++) o[i] = trunc##F(a[i] / b[i]); break; \
    case TFL_EW_DIV_FLOOR:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i], y = b[i];                                                 \
            if (y == 0) { o[i] = x / y; continue; }                               \
            T mod = fmod##F(x, y), div = (x - mod) / y;                           \
            if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;                       \
            T fl;                                                                 \
            if (div != 0) { fl = floor##F(div); if (div - fl > (T)0.5) fl += 1; } \
            else fl = copysign##F(0, x / y);                                      \
            o[i] = fl;                                                            \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_FMOD: for (i = 0; i < n; i++) o[i] = fmod##F(a[i], b[i]); break;  \
    case TFL_EW_REMAINDER:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T m = fmod##F(a[i], b[i]);                                            \
            if (m != 0 && ((b[i] < 0) != (m < 0))) m += b[i];                     \
            o[i] = m;                                                             \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_ATAN2: for (i = 0; i < n; i++) o[i] = atan2##F(a[i], b[i]); break; \
    case TFL_EW_LOG2: for (i = 0; i < n; i++) o[i] = log2##F(a[i]); break; \
    case TFL_EW_LOG10: for (i = 0; i < n; i++) o[i] = log10##F(a[i]); break; \
    case TFL_EW_TAN: for (i = 0; i < n; i++) o[i] = tan##F(a[i]); break; \
    case TFL_EW_ATAN: for (i = 0; i < n; i++) o[i] = atan##F(a[i]); break; \
    case TFL_EW_ASIN: for (i = 0; i < n; i++) o[i] = asin##F(a[i]); break; \
    case TFL_EW_ACOS: for (i = 0; i < n; i++) o[i] = acos##F(a[i]); break; \
    case TFL_EW_SINH: for (i = 0; i < n; i++) o[i] = sinh##F(a[i]); break; \
    case TFL_EW_COSH: for (i = 0; i < n; i++) o[i] = cosh##F(a[i]); break; \
    case TFL_EW_ASINH: for (i = 0; i < n; i++) o[i] = asinh##F(a[i]); break; \
    case TFL_EW_ACOSH: for (i = 0; i < n; i++) o[i] = acosh##F(a[i]); break; \
    case TFL_EW_ATANH: for (i = 0; i < n; i++) o[i] = atanh##F(a[i]); break; \
    case TFL_EW_FRAC: for (i = 0; i < n; i++) o[i] = a[i] - trunc##F(a[i]); break; \
    case TFL_EW_MISH: for (i = 0; i < n; i++) o[i] = a[i] * tanh##F(log1p##F(exp##F(a[i]))); break; \
    case TFL_EW_LOG_SIGMOID: for (i = 0; i < n; i++) o[i] = (a[i] < 0 ? a[i] : 0) - log1p##F(exp##F(-fabs##F(a[i]))); break; \
    case TFL_EW_HYPOT: for (i = 0; i < n; i++) o[i] = hypot##F(a[i], b[i]); break; \
    case TFL_EW_COPYSIGN: for (i = 0; i < n; i++) o[i] = copysign##F(a[i], b[i]); break; \
    case TFL_EW_FMAX: for (i = 0; i < n; i++) o[i] = fmax##F(a[i], b[i]); break; \
    case TFL_EW_FMIN: for (i = 0; i < n; i++) o[i] = fmin##F(a[i], b[i]); break; \
    case TFL_EW_LOGADDEXP:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i], y = b[i];                                                 \
            if (isinf(x) && x == y) { o[i] = x; continue; }                       \
            T m = x > y ? x : y;                                                  \
            o[i] = m + log1p##F(exp##F(-fabs##F(x - y)));                         \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_XLOGY:                                                            \
        for (i = 0; i < n; i++)                                                   \
            o[i] = isnan(b[i]) ? b[i] : a[i] == 0 ? 0 : a[i] * log##F(b[i]);      \
        break;                                                                    \
    case TFL_EW_DIV_TRUNC_INV: for (i = 0; i < n; i++) o[i] = trunc##F(a[i] * p0); break; \
    case TFL_EW_ELU:                                                              \
        for (i = 0; i < n; i++) o[i] = a[i] > 0 ? a[i] * p1 : expm1##F(a[i] * p2) * p0; \
        break;                                                                    \
    case TFL_EW_ELU_BACKWARD:                                                     \
        for (i = 0; i < n; i++) {                                                 \
            if (b[i] > 0) o[i] = a[i] * p1;                                       \
            else if (p3 != 0) o[i] = a[i] * p2 * (b[i] + p0);                     \
            else o[i] = a[i] * p2 * p0 * exp##F(b[i] * p2);                       \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_HARDSWISH:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T r = a[i] + 3 > 0 ? a[i] + 3 : 0;                                    \
            o[i] = a[i] * (r < 6 ? r : 6) * ((T)1 / 6);                           \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_HARDSWISH_BACKWARD:                                               \
        for (i = 0; i < n; i++)                                                   \
            o[i] = b[i] < -3 ? 0 : b[i] <= 3 ? a[i] * (b[i] / 3 + (T)0.5) : a[i]; \
        break;                                                                    \
    case TFL_EW_HARDSIGMOID:                                                      \
        for (i = 0; i < n; i++) {                                                 \
            T r = a[i] + 3 > 0 ? a[i] + 3 : 0;                                    \
            o[i] = (r < 6 ? r : 6) * ((T)1 / 6);                                  \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_HARDSIGMOID_BACKWARD:                                             \
        for (i = 0; i < n; i++) o[i] = (b[i] > -3 && b[i] < 3) ? a[i] * ((T)1 / 6) : 0; \
        break;                                                                    \
    case TFL_EW_LOG_SIGMOID_BACKWARD:                                             \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i], z = exp##F(-fabs##F(x));                                  \
            T md = x < 0 ? 1 : 0, sg = x < 0 ? 1 : -1;                            \
            o[i] = b[i] * (md - sg * (z / (1 + z)));                              \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_NAN_TO_NUM:                                                       \
        for (i = 0; i < n; i++)                                                   \
            o[i] = isnan(a[i]) ? p0 : isinf(a[i]) ? (a[i] > 0 ? p1 : p2) : a[i];  \
        break;                                                                    \
    case TFL_EW_MSE: for (i = 0; i < n; i++) o[i] = (a[i] - b[i]) * (a[i] - b[i]); break; \
    case TFL_EW_MISH_BACKWARD:                                                    \
        for (i = 0; i < n; i++) {                                                 \
            T x = b[i], sg = 1 / (1 + exp##F(-x)), ts = tanh##F(log1p##F(exp##F(x))); \
            o[i] = a[i] * (ts + x * sg * (1 - ts * ts));                          \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_SIGNBIT: for (i = 0; i < n; i++) o[i] = signbit(a[i]) != 0; break; \
    case TFL_EW_ISPOSINF: for (i = 0; i < n; i++) o[i] = isinf(a[i]) && a[i] > 0; break; \
    case TFL_EW_ISNEGINF: for (i = 0; i < n; i++) o[i] = isinf(a[i]) && a[i] < 0; break; \
    case TFL_EW_PRELU: for (i = 0; i < n; i++) { T bv = b[i]; o[i] = a[i] > 0 ? a[i] : bv * a[i]; } break; \
    case TFL_EW_GLU: for (i = 0; i < n; i++) o[i] = a[i] * (1 / (1 + exp##F(-b[i]))); break; \
    case TFL_EW_HEAVISIDE: for (i = 0; i < n; i++) o[i] = a[i] == 0 ? b[i] : (T)(a[i] > 0); break; \
    case TFL_EW_XLOG1PY:                                                          \
        for (i = 0; i < n; i++)                                                   \
            o[i] = isnan(b[i]) ? b[i] : a[i] == 0 ? 0 : a[i] * log1p##F(b[i]);    \
        break;                                                                    \
    case TFL_EW_ANGLE:                                                            \
        for (i = 0; i < n; i++) o[i] = isnan(a[i]) ? a[i] : a[i] < 0 ? (T)3.14159265358979323846 : 0; \
        break;                                                                    \
    case TFL_EW_LOGIT: for (i = 0; i < n; i++) o[i] = log##F(a[i] / (1 - a[i])); break; \
    case TFL_EW_LOGIT_EPS:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i] < p0 ? p0 : (a[i] > p1 ? p1 : a[i]);                       \
            o[i] = log##F(x / (1 - x));                                           \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_LOGIT_BACKWARD:                                                   \
        for (i = 0; i < n; i++)                                                   \
            o[i] = (b[i] < 0 || b[i] > 1) ? (T)NAN : a[i] / (b[i] * (1 - b[i]));  \
        break;                                                                    \
    case TFL_EW_LOGIT_EPS_BACKWARD:                                               \
        for (i = 0; i < n; i++)                                                   \
            o[i] = (b[i] < p0 || b[i] > p1) ? 0 : a[i] / (b[i] * (1 - b[i]));     \
        break;                                                                    \
    case TFL_EW_BCE:                                                              \
        for (i = 0; i < n; i++) {                                                 \
            T l = log##F(a[i]), l1 = log1p##F(-a[i]);                             \
            l = l < -100 ? -100 : l;                                              \
            l1 = l1 < -100 ? -100 : l1;                                           \
            o[i] = (b[i] - 1) * l1 - b[i] * l;                                    \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_BCE_BACKWARD:                                                     \
        for (i = 0; i < n; i++) {                                                 \
            T d = (1 - b[i]) * b[i], e = (T)1e-12f;                               \
            o[i] = a[i] * (b[i] - c[i]) / (d < e ? e : d);                        \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_SMOOTH_L1:                                                        \
        for (i = 0; i < n; i++) {                                                 \
            T z = fabs##F(a[i] - b[i]);                                           \
            o[i] = z < p0 ? (T)0.5 * z * z / p0 : z - (T)0.5 * p0;                \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_HUBER:                                                            \
        for (i = 0; i < n; i++) {                                                 \
            T z = fabs##F(a[i] - b[i]);                                           \
            o[i] = z < p0 ? (T)0.5 * z * z : p0 * (z - (T)0.5 * p0);              \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_SMOOTH_L1_BACKWARD:                                               \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i] - b[i];                                                    \
            o[i] = x < -p1 ? -p0 * c[i] : x > p1 ? p0 * c[i] : p0 * x * c[i] / p1; \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_HUBER_BACKWARD:                                                   \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i] - b[i];                                                    \
            o[i] = x < -p1 ? -p0 * c[i] * p1 : x > p1 ? p0 * c[i] * p1 : p0 * x * c[i]; \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_MSE_BACKWARD: for (i = 0; i < n; i++) o[i] = p0 * (a[i] - b[i]) * c[i]; break; \
    case TFL_EW_SOFTSHRINK:                                                       \
        for (i = 0; i < n; i++) {                                                 \
            T v = a[i];                                                           \
            o[i] = isnan(v) ? v : v > p0 ? v - p0 : v < -p0 ? v + p0 : 0;         \
        }                                                                         \
        break;                                                                    \
    case TFL_EW_HARDSHRINK:                                                       \
        for (i = 0; i < n; i++) o[i] = (a[i] >= -p0 && a[i] <= p0) ? 0 : a[i];    \
        break;                                                                    \
    case TFL_EW_SHRINK_BACKWARD:                                                  \
        for (i = 0; i < n; i++) o[i] = (b[i] >= -p0 && b[i] <= p0) ? 0 : a[i];    \
        break;                                                                    \
    case TFL_EW_HARDTANH_BACKWARD:                                                \
        for (i = 0; i < n; i++) o[i] = (b[i] <= p0 || b[i] >= p1) ? 0 : a[i];     \
        break;                                                                    \
    case TFL_EW_DIV_FLOOR_INV:                                                    \
        for (i = 0; i < n; i++) {                                                 \
            T x = a[i], mod = fmod##F(x, p0), div = (x - mod) * p1, fl;           \
            if (mod != 0 && (p0 < 0) != (mod < 0)) div -= 1;                      \
            if (div != 0) { fl = floor##F(div); if (div - fl > (T)0.5) fl += 1; } \
            else fl = copysign##F(0, x * p1);                                     \
            o[i] = fl;                                                            \
        }                                                                         \
        break;                                                                    \
    default: return 0;                                                            \
    }                                                                             \
    return 1;                                                                     \
}

EW_ROW(double, , row_f64)
EW_ROW(float, f, row_f32)

/* Integer ops, exact (wrapping like the GPU's two's complement). */
static int row_i64(int code, int64_t n, int64_t *o, const int64_t *a,
                   const int64_t *b, const int64_t *c, int64_t p0, int64_t p1)
{
    int64_t i;
#define W(x) ((uint64_t)(x))
    switch (code) {
    case TFL_EW_FILL: for (i = 0; i < n; i++) o[i] = p0; break;
    case TFL_EW_COPY: for (i = 0; i < n; i++) o[i] = a[i]; break;
    case TFL_EW_ADD: for (i = 0; i < n; i++) o[i] = (int64_t)(W(a[i]) + W(p0) * W(b[i])); break;
    case TFL_EW_MUL: for (i = 0; i < n; i++) o[i] = (int64_t)(W(a[i]) * W(b[i])); break;
    case TFL_EW_NEG: for (i = 0; i < n; i++) o[i] = (int64_t)(0 - W(a[i])); break;
    case TFL_EW_ABS: for (i = 0; i < n; i++) o[i] = a[i] < 0 ? (int64_t)(0 - W(a[i])) : a[i]; break;
    case TFL_EW_SIGN: for (i = 0; i < n; i++) o[i] = (0 < a[i]) - (a[i] < 0); break;
    case TFL_EW_LOGICAL_NOT: for (i = 0; i < n; i++) o[i] = a[i] == 0; break;
    case TFL_EW_SQUARE: for (i = 0; i < n; i++) o[i] = (int64_t)(W(a[i]) * W(a[i])); break;
    case TFL_EW_CUBE: for (i = 0; i < n; i++) o[i] = (int64_t)(W(a[i]) * W(a[i]) * W(a[i])); break;
    case TFL_EW_CLAMP:
        for (i = 0; i < n; i++) { int64_t r = a[i] < p0 ? p0 : a[i]; o[i] = p1 < r ? p1 : r; }
        break;
    case TFL_EW_CLAMP_MIN: for (i = 0; i < n; i++) o[i] = a[i] < p0 ? p0 : a[i]; break;
    case TFL_EW_CLAMP_MAX: for (i = 0; i < n; i++) o[i] = a[i] > p0 ? p0 : a[i]; break;
    case TFL_EW_CLAMP_T:
        for (i = 0; i < n; i++) { int64_t r = a[i] < b[i] ? b[i] : a[i]; o[i] = c[i] < r ? c[i] : r; }
        break;
    case TFL_EW_MAXIMUM: for (i = 0; i < n; i++) o[i] = a[i] > b[i] ? a[i] : b[i]; break;
    case TFL_EW_MINIMUM: for (i = 0; i < n; i++) o[i] = a[i] < b[i] ? a[i] : b[i]; break;
    case TFL_EW_WHERE: for (i = 0; i < n; i++) { int64_t bv = b[i], cv = c[i]; o[i] = a[i] != 0 ? bv : cv; } break;
    case TFL_EW_EQ: for (i = 0; i < n; i++) o[i] = a[i] == b[i]; break;
    case TFL_EW_NE: for (i = 0; i < n; i++) o[i] = a[i] != b[i]; break;
    case TFL_EW_LT: for (i = 0; i < n; i++) o[i] = a[i] < b[i]; break;
    case TFL_EW_LE: for (i = 0; i < n; i++) o[i] = a[i] <= b[i]; break;
    case TFL_EW_GT: for (i = 0; i < n; i++) o[i] = a[i] > b[i]; break;
    case TFL_EW_GE: for (i = 0; i < n; i++) o[i] = a[i] >= b[i]; break;
    case TFL_EW_THRESHOLD: for (i = 0; i < n; i++) { int64_t bv = b[i]; o[i] = a[i] <= p0 ? p1 : bv; } break;
    case TFL_EW_MASKED_FILL: for (i = 0; i < n; i++) o[i] = b[i] != 0 ? p0 : a[i]; break;
    case TFL_EW_FLOOR: case TFL_EW_CEIL: case TFL_EW_ROUND: case TFL_EW_TRUNC:
        for (i = 0; i < n; i++) o[i] = a[i];
        break;
    case TFL_EW_LOGICAL_AND: for (i = 0; i < n; i++) o[i] = a[i] != 0 && b[i] != 0; break;
    case TFL_EW_LOGICAL_OR: for (i = 0; i < n; i++) o[i] = a[i] != 0 || b[i] != 0; break;
    case TFL_EW_LOGICAL_XOR: for (i = 0; i < n; i++) o[i] = (a[i] != 0) != (b[i] != 0); break;
    case TFL_EW_BITWISE_NOT: for (i = 0; i < n; i++) o[i] = ~a[i]; break;
    case TFL_EW_BITWISE_AND: for (i = 0; i < n; i++) o[i] = a[i] & b[i]; break;
    case TFL_EW_BITWISE_OR: for (i = 0; i < n; i++) o[i] = a[i] | b[i]; break;
    case TFL_EW_BITWISE_XOR: for (i = 0; i < n; i++) o[i] = a[i] ^ b[i]; break;
    case TFL_EW_ADDCMUL:
        for (i = 0; i < n; i++) o[i] = (int64_t)(W(a[i]) + W(p0) * W(b[i]) * W(c[i]));
        break;
    /* Division by zero (and INT64_MIN / -1) would trap the process: a GPU
     * returns garbage there and PyTorch's CPU path raises; give 0. */
    case TFL_EW_DIV_TRUNC:
        for (i = 0; i < n; i++)
            o[i] = (b[i] == 0 || (b[i] == -1 && a[i] == INT64_MIN)) ? 0 : a[i] / b[i];
        break;
    case TFL_EW_DIV_FLOOR:
        for (i = 0; i < n; i++) {
            if (b[i] == 0 || (b[i] == -1 && a[i] == INT64_MIN)) { o[i] = 0; continue; }
            int64_t q = a[i] / b[i], r = a[i] % b[i];
            o[i] = (r != 0 && ((r < 0) != (b[i] < 0))) ? q - 1 : q;
        }
        break;
    case TFL_EW_FMOD:
        for (i = 0; i < n; i++)
            o[i] = (b[i] == 0 || b[i] == -1) ? 0 : a[i] % b[i];
        break;
    case TFL_EW_REMAINDER:
        for (i = 0; i < n; i++) {
            if (b[i] == 0 || b[i] == -1) { o[i] = 0; continue; }
            int64_t r = a[i] % b[i];
            o[i] = (r != 0 && ((r < 0) != (b[i] < 0))) ? r + b[i] : r;
        }
        break;
    default: return 0;
    }
#undef W
    return 1;
}

/* ------------------------------------------------------- the iteration */

typedef struct ew_iter {
    int ndim, nops;
    int64_t shape[TFL_EW_MAX_DIMS];
    int64_t st[TFL_EW_MAX_OPERANDS][TFL_EW_MAX_DIMS];
} ew_iter;

/* Merge dimension d+1 into d wherever every operand steps evenly across
 * the pair; drop size-1 dimensions. */
static void coalesce(ew_iter *it)
{
    int out = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->shape[d] == 1 && it->ndim > 1)
            continue;
        if (out > 0) {
            int ok = 1;
            for (int k = 0; k < it->nops; k++)
                if (it->st[k][out - 1] * it->shape[out - 1] != it->st[k][d]) ok = 0;
            if (ok) {
                it->shape[out - 1] *= it->shape[d];
                continue;
            }
        }
        it->shape[out] = it->shape[d];
        for (int k = 0; k < it->nops; k++)
            it->st[k][out] = it->st[k][d];
        out++;
    }
    if (out == 0) {
        out = 1;
        it->shape[0] = 1;
        for (int k = 0; k < it->nops; k++) it->st[k][0] = 0;
    }
    it->ndim = out;
}

typedef struct ew_bufs {
    double f[TFL_EW_MAX_OPERANDS][CHUNK];
    int64_t i[TFL_EW_MAX_OPERANDS][CHUNK];
    float s[TFL_EW_MAX_OPERANDS][CHUNK];
} ew_bufs;

static _Thread_local ew_bufs bufs;

/* Copy n elements of size es with byte strides: no conversion. */
static void copy_row(size_t es, char *o, int64_t so, const char *a, int64_t sa, int64_t n)
{
    if (so == (int64_t)es && sa == (int64_t)es) {
        memmove(o, a, (size_t)n * es);
        return;
    }
    switch (es) {
    case 1: for (int64_t i = 0; i < n; i++) o[i * so] = a[i * sa]; break;
    case 2: for (int64_t i = 0; i < n; i++) memcpy(o + i * so, a + i * sa, 2); break;
    case 4: for (int64_t i = 0; i < n; i++) memcpy(o + i * so, a + i * sa, 4); break;
    case 8: for (int64_t i = 0; i < n; i++) memcpy(o + i * so, a + i * sa, 8); break;
    default: for (int64_t i = 0; i < n; i++) memcpy(o + i * so, a + i * sa, es); break;
    }
}

/* Casts between float32 and the 16-bit float types, without the double
 * round trip (the common casts of mixed-precision code).  0 if not one. */
static int convert_row(int od, char *o, int64_t so, int id, const char *a, int64_t sa, int64_t n)
{
    int64_t i;
    if (id == TFL_DT_F32 && (od == TFL_DT_F16 || od == TFL_DT_BF16)) {
        for (i = 0; i < n; i++) {
            float f;
            memcpy(&f, a + i * sa, 4);
            uint16_t h = od == TFL_DT_F16 ? tfl_float_to_half(f) : tfl_float_to_bf16(f);
            memcpy(o + i * so, &h, 2);
        }
        return 1;
    }
    if (od == TFL_DT_F32 && (id == TFL_DT_F16 || id == TFL_DT_BF16)) {
        for (i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, a + i * sa, 2);
            float f = id == TFL_DT_F16 ? tfl_half_to_float(h) : tfl_bf16_to_float(h);
            memcpy(o + i * so, &f, 4);
        }
        return 1;
    }
    return 0;
}

/* n F32/F16/BF16 elements at p (byte stride st) <-> float. */
static void load_f32(int dt, const char *p, int64_t st, int64_t n, float *o)
{
    switch (dt) {
    case TFL_DT_F32: for (int64_t i = 0; i < n; i++) memcpy(&o[i], p + i * st, 4); break;
    case TFL_DT_F16: for (int64_t i = 0; i < n; i++) { uint16_t v; memcpy(&v, p + i * st, 2); o[i] = tfl_half_to_float(v); } break;
    case TFL_DT_BF16: for (int64_t i = 0; i < n; i++) { uint16_t v; memcpy(&v, p + i * st, 2); o[i] = tfl_bf16_to_float(v); } break;
    }
}

static void store_f32(int dt, char *p, int64_t st, int64_t n, const float *v)
{
    switch (dt) {
    case TFL_DT_F32: for (int64_t i = 0; i < n; i++) memcpy(p + i * st, &v[i], 4); break;
    case TFL_DT_F16: for (int64_t i = 0; i < n; i++) { uint16_t h = tfl_float_to_half(v[i]); memcpy(p + i * st, &h, 2); } break;
    case TFL_DT_BF16: for (int64_t i = 0; i < n; i++) { uint16_t h = tfl_float_to_bf16(v[i]); memcpy(p + i * st, &h, 2); } break;
    }
}

/* A chunk of a float-opmath op over F32/F16/BF16 operands (any strides)
 * computed in float, as PyTorch's kernels do for Half/BFloat16: 0 if
 * row_f32 has no float form of the op (the caller computes in double). */
static int lowp_chunk(const tfl_elementwise_op *op, char *ptr[], const int64_t st[],
                      int64_t s0, int64_t m)
{
    const float *in[3] = { NULL, NULL, NULL };
    for (int k = 1; k <= op->ninputs; k++) {
        const tfl_ew_operand *o = &op->operand[k];
        if (o->is_scalar) {
            float v = (float)o->value_f;
            for (int64_t j = 0; j < m; j++) bufs.s[k][j] = v;
        } else {
            load_f32(o->dtype, ptr[k] + s0 * st[k], st[k], m, bufs.s[k]);
        }
        in[k - 1] = bufs.s[k];
    }
    const float pf[4] = { (float)op->param_f[0], (float)op->param_f[1],
                          (float)op->param_f[2], (float)op->param_f[3] };
    if (!row_f32(op->code, m, bufs.s[0], in[0], in[1], in[2], pf))
        return 0;
    store_f32(op->operand[0].dtype, ptr[0] + s0 * st[0], st[0], m, bufs.s[0]);
    return 1;
}

/* One row of n elements starting at ptr[k], stepping st[k].  fast_f32: 1
 * float32 unit-stride operands used in place, 2 low-precision operands
 * computed in float (lowp_chunk). */
static tfl_status do_row(const tfl_elementwise_op *op, int domain_int, int fast_f32,
                         char *ptr[], const int64_t st[], int64_t n)
{
    const int nin = op->ninputs;
    if (op->code == TFL_EW_COPY && !op->operand[1].is_scalar) {
        int od = op->operand[0].dtype, id = op->operand[1].dtype;
        if (od == id) {
            copy_row(dt_size(od), ptr[0], st[0], ptr[1], st[1], n);
            return TFL_OK;
        }
        if (convert_row(od, ptr[0], st[0], id, ptr[1], st[1], n))
            return TFL_OK;
    }
    if (host_ew_complex_op(op))
        return host_ew_complex_row(op, ptr, st, n);
    for (int64_t s0 = 0; s0 < n; s0 += CHUNK) {
        int64_t m = n - s0 < CHUNK ? n - s0 : CHUNK;
        if (fast_f32 == 2 && lowp_chunk(op, ptr, st, s0, m))
            continue;
        if (fast_f32 == 1) {
            const float *in[3] = { NULL, NULL, NULL };
            for (int k = 1; k <= nin; k++) {
                const tfl_ew_operand *o = &op->operand[k];
                if (o->is_scalar) {
                    float v = (float)o->value_f;
                    for (int64_t j = 0; j < m; j++) bufs.s[k][j] = v;
                    in[k - 1] = bufs.s[k];
                } else {
                    in[k - 1] = (const float *)(ptr[k] + s0 * 4);
                }
            }
            const float pf[4] = { (float)op->param_f[0], (float)op->param_f[1],
                                  (float)op->param_f[2], (float)op->param_f[3] };
            if (!row_f32(op->code, m, (float *)(ptr[0] + s0 * 4), in[0], in[1], in[2], pf))
                return TFL_ERR_UNSUPPORTED;
            continue;
        }
        if (domain_int) {
            const int64_t *in[3] = { NULL, NULL, NULL };
            for (int k = 1; k <= nin; k++) {
                const tfl_ew_operand *o = &op->operand[k];
                if (o->is_scalar) {
                    for (int64_t j = 0; j < m; j++) bufs.i[k][j] = o->value_i;
                } else {
                    load_i64(o->dtype, ptr[k] + s0 * st[k], st[k], m, bufs.i[k]);
                }
                in[k - 1] = bufs.i[k];
            }
            if (!row_i64(op->code, m, bufs.i[0], in[0], in[1], in[2], op->param_i[0],
                         op->param_i[1]))
                return TFL_ERR_UNSUPPORTED;
            store_i64(op->operand[0].dtype, ptr[0] + s0 * st[0], st[0], m, bufs.i[0]);
        } else {
            const double *in[3] = { NULL, NULL, NULL };
            for (int k = 1; k <= nin; k++) {
                const tfl_ew_operand *o = &op->operand[k];
                if (o->is_scalar) {
                    for (int64_t j = 0; j < m; j++) bufs.f[k][j] = o->value_f;
                } else {
                    load_f64(o->dtype, ptr[k] + s0 * st[k], st[k], m, bufs.f[k]);
                }
                in[k - 1] = bufs.f[k];
            }
            if (!row_f64(op->code, m, bufs.f[0], in[0], in[1], in[2], op->param_f))
                return TFL_ERR_UNSUPPORTED;
            store_f64(op->operand[0].dtype, ptr[0] + s0 * st[0], st[0], m, bufs.f[0]);
        }
    }
    return TFL_OK;
}

/* out[i] = start + step * i in the compute type (float arithmetic for
 * float outputs, as the GPU does), i the flat index of a 1-d output. */
static tfl_status arange(const tfl_elementwise_op *op, const ew_iter *it, int64_t n)
{
    if (it->ndim != 1)
        return TFL_ERR_UNSUPPORTED;
    char *o = op->operand[0].data;
    int64_t so = it->st[0][0];
    int od = op->operand[0].dtype;
    for (int64_t s0 = 0; s0 < n; s0 += CHUNK) {
        int64_t m = n - s0 < CHUNK ? n - s0 : CHUNK;
        if (is_int(op->compute)) {
            for (int64_t j = 0; j < m; j++)
                bufs.i[0][j] = (int64_t)((uint64_t)op->param_i[0] +
                                         (uint64_t)op->param_i[1] * (uint64_t)(s0 + j));
            store_i64(od, o + s0 * so, so, m, bufs.i[0]);
        } else if (op->compute == TFL_DT_F32) {
            float a = (float)op->param_f[0], d = (float)op->param_f[1];
            for (int64_t j = 0; j < m; j++) {
                float inc = d * (float)(s0 + j);
                bufs.f[0][j] = a + inc;
            }
            store_f64(od, o + s0 * so, so, m, bufs.f[0]);
        } else {
            for (int64_t j = 0; j < m; j++)
                bufs.f[0][j] = op->param_f[0] + op->param_f[1] * (double)(s0 + j);
            store_f64(od, o + s0 * so, so, m, bufs.f[0]);
        }
    }
    return TFL_OK;
}

/* A large op split over the host's cores: either one long row cut into
 * pieces, or the rows of a 2-d iteration shared out. */
typedef struct ew_par {
    const tfl_elementwise_op *op;
    int domain_int, fast, nops, by_rows;
    char *ptr[TFL_EW_MAX_OPERANDS];
    int64_t row_st[TFL_EW_MAX_OPERANDS], outer_st[TFL_EW_MAX_OPERANDS];
    int64_t row_len, count, per_part;   /* count: elements or rows */
    _Atomic int status;
} ew_par;

static void ew_part(void *ctx, int part)
{
    ew_par *w = ctx;
    int64_t lo = (int64_t)part * w->per_part, hi = lo + w->per_part;
    if (hi > w->count)
        hi = w->count;
    char *pp[TFL_EW_MAX_OPERANDS];
    for (int64_t r = lo; r < hi; r++) {
        int64_t n = w->by_rows ? w->row_len : hi - lo;
        int64_t off = w->by_rows ? r : lo;
        for (int k = 0; k < w->nops; k++)
            pp[k] = w->ptr[k] + off * (w->by_rows ? w->outer_st[k] : w->row_st[k]);
        tfl_status s = do_row(w->op, w->domain_int, w->fast, pp, w->row_st, n);
        if (s != TFL_OK)
            atomic_store(&w->status, (int)s);
        if (!w->by_rows)
            break;
    }
}

/* where(cond, a, b) with a, b and the output of one element size and a
 * bool/byte condition: a select moves bits, so do exactly that - no
 * conversion that could quiet a signalling NaN, and PyTorch 2.15's
 * size-only where (lambda(bool, unsigned short, ...), decoded as the
 * torchfl type of that width) stays exact for every 16-bit pattern. */
static int where_is_bitwise(const tfl_elementwise_op *op)
{
    if (op->code != TFL_EW_WHERE || op->ninputs != 3)
        return 0;
    size_t es = tfl_dtype_size((tfl_dtype)op->operand[0].dtype);
    for (int k = 1; k <= 3; k++)
        if (op->operand[k].is_scalar)
            return 0;
    return (op->operand[1].dtype == TFL_DT_BOOL || op->operand[1].dtype == TFL_DT_U8) &&
           (es == 1 || es == 2 || es == 4 || es == 8 || es == 16) &&
           es == tfl_dtype_size((tfl_dtype)op->operand[2].dtype) &&
           es == tfl_dtype_size((tfl_dtype)op->operand[3].dtype);
}

static tfl_status where_bits(const tfl_elementwise_op *op, const ew_iter *it, int64_t total)
{
    size_t es = tfl_dtype_size((tfl_dtype)op->operand[0].dtype);
    int64_t idx[TFL_EW_MAX_DIMS] = { 0 };
    char *ptr[4];
    for (int k = 0; k < 4; k++)
        ptr[k] = op->operand[k].data;
    for (int64_t r = 0; r < total / it->shape[0]; r++) {
        /* a constant size per case, so each copy is one load and store */
#define WHERE_ROW(N) \
        for (int64_t i = 0; i < it->shape[0]; i++) { \
            const char *src_ = ptr[1][i * it->st[1][0]] ? ptr[2] + i * it->st[2][0] \
                                                         : ptr[3] + i * it->st[3][0]; \
            memcpy(ptr[0] + i * it->st[0][0], src_, N); \
        }
        switch (es) {
        case 1: WHERE_ROW(1) break;
        case 2: WHERE_ROW(2) break;
        case 4: WHERE_ROW(4) break;
        case 8: WHERE_ROW(8) break;
        default: WHERE_ROW(16) break;
        }
#undef WHERE_ROW
        for (int d = 1; d < it->ndim; d++) {
            for (int k = 0; k < 4; k++) ptr[k] += it->st[k][d];
            if (++idx[d] < it->shape[d])
                break;
            for (int k = 0; k < 4; k++) ptr[k] -= it->st[k][d] * it->shape[d];
            idx[d] = 0;
        }
    }
    return TFL_OK;
}

tfl_status host_elementwise(const tfl_elementwise_op *op)
{
    if (!host_elementwise_supported(op))
        return TFL_ERR_UNSUPPORTED;
    ew_iter it;
    it.ndim = op->ndim;
    it.nops = op->ninputs + 1;
    int64_t total = 1;
    for (int d = 0; d < op->ndim; d++) {
        if (op->shape[d] < 0)
            return TFL_ERR_INVALID;
        it.shape[d] = op->shape[d];
        total *= op->shape[d];
        for (int k = 0; k < it.nops; k++)
            it.st[k][d] = op->operand[k].is_scalar ? 0 : op->operand[k].strides[d];
    }
    if (total == 0)
        return TFL_OK;
    coalesce(&it);
    if (op->code == TFL_EW_ARANGE)
        return arange(op, &it, total);
    if (where_is_bitwise(op))
        return where_bits(op, &it, total);

    /* Integer domain only when the op is integral end to end. */
    int domain_int = is_int(op->compute) && int_capable(op->code);
    for (int k = 1; k < it.nops && domain_int; k++)
        if (!is_int(op->operand[k].dtype))
            domain_int = 0;
    int fast = op->compute == TFL_DT_F32;
    for (int k = 0; k < it.nops && fast; k++) {
        const tfl_ew_operand *o = &op->operand[k];
        if (o->is_scalar ? k == 0 : (o->dtype != TFL_DT_F32 || it.st[k][0] != 4))
            fast = 0;
    }
    /* Half/bfloat16 with float opmath: compute in float (fast = 2). */
    if (!fast && op->compute == TFL_DT_F32 && op->code != TFL_EW_COPY) {
        int lowp = 0, ok = !op->operand[0].is_scalar;
        for (int k = 0; k < it.nops && ok; k++) {
            const tfl_ew_operand *o = &op->operand[k];
            if (o->is_scalar)
                continue;
            ok = o->dtype == TFL_DT_F32 || o->dtype == TFL_DT_F16 || o->dtype == TFL_DT_BF16;
            lowp |= o->dtype != TFL_DT_F32;
        }
        if (ok && lowp)
            fast = 2;
    }
    /* Rows along dimension 0, the rest walked by a counter. */
    int64_t idx[TFL_EW_MAX_DIMS] = { 0 };
    char *ptr[TFL_EW_MAX_OPERANDS];
    int64_t row_st[TFL_EW_MAX_OPERANDS];
    for (int k = 0; k < it.nops; k++) {
        ptr[k] = op->operand[k].data;
        row_st[k] = it.st[k][0];
    }
    int64_t rows = total / it.shape[0];
    /* A 2-d copy whose input runs along the other dimension (a transpose):
     * tiles keep both sides in cache. */
    if (op->code == TFL_EW_COPY && it.ndim == 2 && !op->operand[1].is_scalar &&
        llabs(it.st[1][1]) < llabs(it.st[1][0])) {
        enum { T = 32 };
        char *o = op->operand[0].data, *a = op->operand[1].data;
        for (int64_t i0 = 0; i0 < it.shape[1]; i0 += T)
            for (int64_t j0 = 0; j0 < it.shape[0]; j0 += T) {
                int64_t jn = it.shape[0] - j0 < T ? it.shape[0] - j0 : T;
                for (int64_t i = i0; i < i0 + T && i < it.shape[1]; i++) {
                    char *pp[2] = { o + i * it.st[0][1] + j0 * it.st[0][0],
                                    a + i * it.st[1][1] + j0 * it.st[1][0] };
                    tfl_status s = do_row(op, domain_int, 0, pp, row_st, jn);
                    if (s != TFL_OK)
                        return s;
                }
            }
        return TFL_OK;
    }
    int threads = total >= HOST_PAR_MIN_WORK ? host_par_threads() : 1;
    if (threads > 1 && (rows == 1 || it.ndim == 2)) {
        ew_par w = { .op = op, .domain_int = domain_int, .fast = fast, .nops = it.nops,
                     .by_rows = rows > 1, .row_len = it.shape[0],
                     .count = rows > 1 ? rows : it.shape[0] };
        atomic_init(&w.status, TFL_OK);
        for (int k = 0; k < it.nops; k++) {
            w.ptr[k] = ptr[k];
            w.row_st[k] = row_st[k];
            w.outer_st[k] = it.ndim == 2 ? it.st[k][1] : 0;
        }
        int parts = threads * 2;
        if (w.count < parts)
            parts = (int)w.count;
        w.per_part = (w.count + parts - 1) / parts;
        host_parallel(parts, ew_part, &w);
        return (tfl_status)atomic_load(&w.status);
    }
    for (int64_t r = 0; r < rows; r++) {
        tfl_status s = do_row(op, domain_int, fast, ptr, row_st, it.shape[0]);
        if (s != TFL_OK)
            return s;
        for (int d = 1; d < it.ndim; d++) {
            for (int k = 0; k < it.nops; k++) ptr[k] += it.st[k][d];
            if (++idx[d] < it.shape[d])
                break;
            for (int k = 0; k < it.nops; k++) ptr[k] -= it.st[k][d] * it.shape[d];
            idx[d] = 0;
        }
    }
    return TFL_OK;
}

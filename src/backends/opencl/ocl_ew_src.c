/*
 * ocl_ew_src.c - the OpenCL backend's elementwise op table and the
 * OpenCL C source generator built on it (see ocl_ew.h).
 *
 * The table has one row per tfl_ew_code: how many inputs the code reads,
 * its value as an OpenCL C expression over the inputs a, b, c and the
 * parameters p0..p3 in a floating type T (float or double: the same text
 * serves both, literals written TC(x)), and, for the codes with an exact
 * integer meaning, as an expression over long values.  A row may need a
 * helper function; it is emitted only into the programs of that code.
 * The semantics are the host backend's (src/backends/host/
 * ops_elementwise.c) row for row, NaN handling included, so an op gives
 * the same answer wherever it runs.
 *
 * A program is the table row wrapped in the generic part: decompose the
 * work item's linear index over the collapsed shape, address each operand
 * by its byte strides, load it in its own dtype, convert to the domain,
 * apply the row, convert and store.  Conversions are the host's: float ->
 * integer truncates (NaN -> 0, saturating to int64 first, then wrapping
 * into narrower types), anything -> bool is != 0, half and bfloat16
 * round to nearest even with NaN stored as the quiet NaN of its sign.
 */
#include "backends/opencl/ocl_ew.h"
#include "backends/opencl/ocl_src.h"

/* ------------------------------------------------------------ the table */

typedef struct ew_row {
    int arity;
    const char *fhelp, *fexpr;   /* T = float or double; NULL: no such form */
    const char *ihelp, *iexpr;   /* T = long (exact, wrapping)              */
} ew_row;

/* Helpers of the floating forms, one per row that needs statements. */
#define FH_CLAMP "T ew_clamp(T v, T lo, T hi) { T r = v < lo ? lo : v; " \
    "return isnan(v) ? v : (hi < r ? hi : r); }\n"
#define FH_CLAMP_T "T ew_clamp_t(T v, T lo, T hi) { T r = v < lo ? lo : v; " \
    "r = hi < r ? hi : r; r = isnan(hi) ? hi : r; r = isnan(lo) ? lo : r; " \
    "return isnan(v) ? v : r; }\n"
/* erfc keeps 1 + erf(x) accurate for negative x (the host's float form) */
#define FH_GELU_BWD "T ew_gelu_bwd(T g, T x) { " \
    "T cdf = TC(0.5) * erfc(-x * TC(0.70710678118654752440)); " \
    "T pdf = exp(TC(-0.5) * x * x) * TC(0.3989422804014327); return g * (cdf + x * pdf); }\n"
/* tanh: OpenCL allows 5 ulp, and some devices (PoCL) give 1 - 2^-24 for
 * large |x|, which 1 + tanh and 1 - tanh^2 turn into large errors (and
 * -inf instead of NaN at -inf).  From exp it reaches +-1 exactly where
 * libm's does. */
#define FH_TANH "T ew_tanh(T x) { T ax = fabs(x); if (!(ax > TC(0.625))) return tanh(x); " \
    "return copysign(1 - 2 / (exp(2 * ax) + 1), x); }\n"
#define FH_GELU_TANH FH_TANH "T ew_gelu_tanh(T x) { " \
    "T in = TC(0.7978845608028654) * (x + TC(0.044715) * x * x * x); " \
    "return TC(0.5) * x * (1 + ew_tanh(in)); }\n"
#define FH_GELU_TANH_BWD FH_TANH "T ew_gelu_tanh_bwd(T g, T x) { T x2 = x * x; " \
    "T th = ew_tanh(TC(0.7978845608028654) * (x + TC(0.044715) * x2 * x)); " \
    "T left = TC(0.5) * x, right = 1 + th, dtanh = 1 - th * th; " \
    "T din = TC(0.7978845608028654) * (1 + 3 * TC(0.044715) * x2); " \
    "return g * (TC(0.5) * right + left * dtanh * din); }\n"
#define FH_SILU_BWD "T ew_silu_bwd(T g, T x) { T s = 1 / (1 + exp(-x)); " \
    "return g * s * (1 + x * (1 - s)); }\n"
#define FH_SOFTPLUS_BWD "T ew_softplus_bwd(T g, T x, T beta, T th) { T z = exp(x * beta); " \
    "return x * beta > th ? g : g * z / (z + 1); }\n"
#define FH_LERP "T ew_lerp(T a, T b, T w) { T d = b - a; " \
    "return fabs(w) < TC(0.5) ? a + w * d : b - d * (1 - w); }\n"
#define FH_DIV_FLOOR "T ew_div_floor(T x, T y) { if (y == 0) return x / y; " \
    "T mod = fmod(x, y), div = (x - mod) / y; " \
    "if (mod != 0 && (y < 0) != (mod < 0)) div -= 1; T fl; " \
    "if (div != 0) { fl = floor(div); if (div - fl > TC(0.5)) fl += 1; } " \
    "else fl = copysign((T)0, x / y); return fl; }\n"
#define FH_DIV_FLOOR_INV "T ew_div_floor_inv(T x, T y, T inv) { " \
    "T mod = fmod(x, y), div = (x - mod) * inv, fl; " \
    "if (mod != 0 && (y < 0) != (mod < 0)) div -= 1; " \
    "if (div != 0) { fl = floor(div); if (div - fl > TC(0.5)) fl += 1; } " \
    "else fl = copysign((T)0, x * inv); return fl; }\n"
#define FH_REMAINDER "T ew_remainder(T x, T y) { T m = fmod(x, y); " \
    "if (m != 0 && ((y < 0) != (m < 0))) m += y; return m; }\n"
#define FH_LOGADDEXP "T ew_logaddexp(T x, T y) { if (isinf(x) && x == y) return x; " \
    "T m = x > y ? x : y; return m + log1p(exp(-fabs(x - y))); }\n"
#define FH_ELU_BWD "T ew_elu_bwd(T g, T x, T alpha, T scale, T iscale, T is_result) { " \
    "if (x > 0) return g * scale; if (is_result != 0) return g * iscale * (x + alpha); " \
    "return g * iscale * alpha * exp(x * iscale); }\n"
#define FH_HARDSWISH "T ew_hardswish(T x) { T r = x + 3 > 0 ? x + 3 : 0; " \
    "return x * (r < 6 ? r : 6) * (TC(1.0) / 6); }\n"
#define FH_HARDSIGMOID "T ew_hardsigmoid(T x) { T r = x + 3 > 0 ? x + 3 : 0; " \
    "return (r < 6 ? r : 6) * (TC(1.0) / 6); }\n"
#define FH_LOG_SIGMOID_BWD "T ew_log_sigmoid_bwd(T x, T g) { T z = exp(-fabs(x)); " \
    "T md = x < 0 ? 1 : 0, sg = x < 0 ? 1 : -1; return g * (md - sg * (z / (1 + z))); }\n"
#define FH_MISH_BWD FH_TANH "T ew_mish_bwd(T g, T x) { T sg = 1 / (1 + exp(-x)); " \
    "T ts = ew_tanh(log1p(exp(x))); return g * (ts + x * sg * (1 - ts * ts)); }\n"
#define FH_LOGIT_EPS "T ew_logit_eps(T v, T lo, T hi) { " \
    "T x = v < lo ? lo : (v > hi ? hi : v); return log(x / (1 - x)); }\n"
#define FH_BCE "T ew_bce(T x, T y) { T l = log(x), l1 = log1p(-x); " \
    "l = l < -100 ? -100 : l; l1 = l1 < -100 ? -100 : l1; return (y - 1) * l1 - y * l; }\n"
#define FH_BCE_BWD "T ew_bce_bwd(T g, T x, T y) { T d = (1 - x) * x, e = (T)1e-12f; " \
    "return g * (x - y) / (d < e ? e : d); }\n"
#define FH_SMOOTH_L1 "T ew_smooth_l1(T x, T y, T beta) { T z = fabs(x - y); " \
    "return z < beta ? TC(0.5) * z * z / beta : z - TC(0.5) * beta; }\n"
#define FH_HUBER "T ew_huber(T x, T y, T delta) { T z = fabs(x - y); " \
    "return z < delta ? TC(0.5) * z * z : delta * (z - TC(0.5) * delta); }\n"
#define FH_SMOOTH_L1_BWD "T ew_smooth_l1_bwd(T x, T y, T g, T norm, T beta) { T d = x - y; " \
    "return d < -beta ? -norm * g : d > beta ? norm * g : norm * d * g / beta; }\n"
#define FH_HUBER_BWD "T ew_huber_bwd(T x, T y, T g, T norm, T delta) { T d = x - y; " \
    "return d < -delta ? -norm * g * delta : d > delta ? norm * g * delta : norm * d * g; }\n"
#define FH_SOFTSHRINK "T ew_softshrink(T v, T l) { " \
    "return isnan(v) ? v : v > l ? v - l : v < -l ? v + l : 0; }\n"

/* Helpers of the integer forms.  Division by zero (and LONG_MIN / -1)
 * gives 0, as on the host: a GPU gives garbage, the host must not trap. */
#define IH_CLAMP "long ew_iclamp(long v, long lo, long hi) { long r = v < lo ? lo : v; " \
    "return hi < r ? hi : r; }\n"
#define IH_DIV_TRUNC "long ew_idiv_trunc(long a, long b) { " \
    "return (b == 0 || (b == -1 && a == LONG_MIN)) ? 0 : a / b; }\n"
#define IH_DIV_FLOOR "long ew_idiv_floor(long a, long b) { " \
    "if (b == 0 || (b == -1 && a == LONG_MIN)) return 0; long q = a / b, r = a % b; " \
    "return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q; }\n"
#define IH_FMOD "long ew_ifmod(long a, long b) { return (b == 0 || b == -1) ? 0 : a % b; }\n"
#define IH_REMAINDER "long ew_iremainder(long a, long b) { if (b == 0 || b == -1) return 0; " \
    "long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"

/* Wrapping int64 arithmetic (signed overflow is undefined in OpenCL C). */
#define WU(x) "as_ulong(" x ")"

#define F1(e) { 1, NULL, e, NULL, NULL }            /* unary, floating only   */
#define F2(e) { 2, NULL, e, NULL, NULL }
#define FI(n, f, i) { n, NULL, f, NULL, i }         /* floating and integer   */
#define FH(n, h, f) { n, h, f, NULL, NULL }         /* floating, with helper  */
#define CMP(op) FI(2, "(T)(a " op " b)", "(long)(a " op " b)")

static const ew_row rows[TFL_EW_CODE_COUNT] = {
    [TFL_EW_FILL] = FI(0, "p0", "p0"),
    [TFL_EW_COPY] = FI(1, "a", "a"),
    [TFL_EW_ADD] = FI(2, "a + p0 * b", "as_long(" WU("a") " + " WU("p0") " * " WU("b") ")"),
    [TFL_EW_MUL] = FI(2, "a * b", "as_long(" WU("a") " * " WU("b") ")"),
    [TFL_EW_DIV] = F2("a / b"),
    [TFL_EW_NEG] = FI(1, "-a", "as_long(0UL - " WU("a") ")"),
    [TFL_EW_ABS] = FI(1, "fabs(a)", "a < 0 ? as_long(0UL - " WU("a") ") : a"),
    [TFL_EW_EXP] = F1("exp(a)"),
    [TFL_EW_LOG] = F1("log(a)"),
    [TFL_EW_SQRT] = F1("sqrt(a)"),
    [TFL_EW_RSQRT] = F1("1 / sqrt(a)"),
    [TFL_EW_SIN] = F1("sin(a)"),
    [TFL_EW_COS] = F1("cos(a)"),
    [TFL_EW_TANH] = FH(1, FH_TANH, "ew_tanh(a)"),
    [TFL_EW_SIGMOID] = F1("1 / (1 + exp(-a))"),
    [TFL_EW_RECIPROCAL] = F1("1 / a"),
    [TFL_EW_SIGN] = FI(1, "(T)((0 < a) - (a < 0))", "(long)((0 < a) - (a < 0))"),
    [TFL_EW_LOGICAL_NOT] = FI(1, "(T)(a == 0)", "(long)(a == 0)"),
    [TFL_EW_POW] = F2("pow(a, b)"),
    [TFL_EW_SQUARE] = FI(1, "a * a", "as_long(" WU("a") " * " WU("a") ")"),
    [TFL_EW_CUBE] = FI(1, "a * a * a", "as_long(" WU("a") " * " WU("a") " * " WU("a") ")"),
    [TFL_EW_INV_SQUARE] = F1("1 / (a * a)"),
    [TFL_EW_CLAMP] = { 1, FH_CLAMP, "ew_clamp(a, p0, p1)", IH_CLAMP, "ew_iclamp(a, p0, p1)" },
    [TFL_EW_CLAMP_MIN] = FI(1, "(isnan(a) || !(a < p0)) ? a : p0", "a < p0 ? p0 : a"),
    [TFL_EW_CLAMP_MAX] = FI(1, "(isnan(a) || !(a > p0)) ? a : p0", "a > p0 ? p0 : a"),
    [TFL_EW_CLAMP_T] = { 3, FH_CLAMP_T, "ew_clamp_t(a, b, c)", IH_CLAMP, "ew_iclamp(a, b, c)" },
    [TFL_EW_MAXIMUM] = FI(2, "isnan(a) ? a : isnan(b) ? b : (a > b ? a : b)", "a > b ? a : b"),
    [TFL_EW_MINIMUM] = FI(2, "isnan(a) ? a : isnan(b) ? b : (a < b ? a : b)", "a < b ? a : b"),
    [TFL_EW_WHERE] = FI(3, "a != 0 ? b : c", "a != 0 ? b : c"),
    [TFL_EW_EQ] = CMP("=="), [TFL_EW_NE] = CMP("!="), [TFL_EW_LT] = CMP("<"),
    [TFL_EW_LE] = CMP("<="), [TFL_EW_GT] = CMP(">"), [TFL_EW_GE] = CMP(">="),
    [TFL_EW_THRESHOLD] = FI(2, "a <= p0 ? p1 : b", "a <= p0 ? p1 : b"),
    [TFL_EW_GELU] = F1("TC(0.5) * a * erfc(-a * TC(0.70710678118654752440))"),
    [TFL_EW_GELU_TANH] = FH(1, FH_GELU_TANH, "ew_gelu_tanh(a)"),
    [TFL_EW_GELU_BACKWARD] = FH(2, FH_GELU_BWD, "ew_gelu_bwd(a, b)"),
    [TFL_EW_GELU_TANH_BACKWARD] = FH(2, FH_GELU_TANH_BWD, "ew_gelu_tanh_bwd(a, b)"),
    [TFL_EW_SILU] = F1("a / (1 + exp(-a))"),
    [TFL_EW_SILU_BACKWARD] = FH(2, FH_SILU_BWD, "ew_silu_bwd(a, b)"),
    [TFL_EW_TANH_BACKWARD] = F2("a * (1 - b * b)"),
    [TFL_EW_SIGMOID_BACKWARD] = F2("a * (1 - b) * b"),
    [TFL_EW_SOFTPLUS] = F1("a * p0 > p1 ? a : log1p(exp(a * p0)) / p0"),
    [TFL_EW_SOFTPLUS_BACKWARD] = FH(2, FH_SOFTPLUS_BWD, "ew_softplus_bwd(a, b, p0, p1)"),
    [TFL_EW_LEAKY_RELU] = F1("a > 0 ? a : a * p0"),
    [TFL_EW_LEAKY_RELU_BACKWARD] = F2("a > 0 ? b : b * p0"),
    [TFL_EW_MASKED_FILL] = FI(2, "b != 0 ? p0 : a", "b != 0 ? p0 : a"),
    [TFL_EW_ERF] = F1("erf(a)"),
    [TFL_EW_LOG1P] = F1("log1p(a)"),
    [TFL_EW_EXPM1] = F1("expm1(a)"),
    [TFL_EW_FLOOR] = FI(1, "floor(a)", "a"),
    [TFL_EW_CEIL] = FI(1, "ceil(a)", "a"),
    [TFL_EW_ROUND] = FI(1, "rint(a)", "a"),       /* half to even */
    [TFL_EW_TRUNC] = FI(1, "trunc(a)", "a"),
    [TFL_EW_LOGICAL_AND] = FI(2, "(T)(a != 0 && b != 0)", "(long)(a != 0 && b != 0)"),
    [TFL_EW_LOGICAL_OR] = FI(2, "(T)(a != 0 || b != 0)", "(long)(a != 0 || b != 0)"),
    [TFL_EW_LOGICAL_XOR] = FI(2, "(T)((a != 0) != (b != 0))", "(long)((a != 0) != (b != 0))"),
    [TFL_EW_BITWISE_NOT] = { 1, NULL, NULL, NULL, "~a" },
    [TFL_EW_LERP] = FH(3, FH_LERP, "ew_lerp(a, b, c)"),
    [TFL_EW_LERP_SCALAR] = FH(2, FH_LERP, "ew_lerp(a, b, p0)"),
    [TFL_EW_ADDCMUL] = FI(3, "a + p0 * b * c",
                          "as_long(" WU("a") " + " WU("p0") " * " WU("b") " * " WU("c") ")"),
    [TFL_EW_ADDCDIV] = { 3, NULL, "a + p0 * (b / c)", NULL, NULL },
    [TFL_EW_DIV_TRUNC] = { 2, NULL, "trunc(a / b)", IH_DIV_TRUNC, "ew_idiv_trunc(a, b)" },
    [TFL_EW_DIV_FLOOR] = { 2, FH_DIV_FLOOR, "ew_div_floor(a, b)", IH_DIV_FLOOR, "ew_idiv_floor(a, b)" },
    [TFL_EW_FMOD] = { 2, NULL, "fmod(a, b)", IH_FMOD, "ew_ifmod(a, b)" },
    [TFL_EW_REMAINDER] = { 2, FH_REMAINDER, "ew_remainder(a, b)", IH_REMAINDER, "ew_iremainder(a, b)" },
    [TFL_EW_ATAN2] = F2("atan2(a, b)"),
    [TFL_EW_BITWISE_AND] = { 2, NULL, NULL, NULL, "a & b" },
    [TFL_EW_BITWISE_OR] = { 2, NULL, NULL, NULL, "a | b" },
    [TFL_EW_BITWISE_XOR] = { 2, NULL, NULL, NULL, "a ^ b" },
    [TFL_EW_DIV_TRUNC_INV] = F1("trunc(a * p0)"),
    [TFL_EW_DIV_FLOOR_INV] = FH(1, FH_DIV_FLOOR_INV, "ew_div_floor_inv(a, p0, p1)"),
    /* ix: the flat index of the (1-d) output */
    [TFL_EW_ARANGE] = FI(0, "p0 + p1 * (T)ix", "as_long(" WU("p0") " + " WU("p1") " * ix)"),
    [TFL_EW_LOG2] = F1("log2(a)"),
    [TFL_EW_LOG10] = F1("log10(a)"),
    [TFL_EW_TAN] = F1("tan(a)"),
    [TFL_EW_ATAN] = F1("atan(a)"),
    [TFL_EW_ASIN] = F1("asin(a)"),
    [TFL_EW_ACOS] = F1("acos(a)"),
    [TFL_EW_SINH] = F1("sinh(a)"),
    [TFL_EW_COSH] = F1("cosh(a)"),
    [TFL_EW_ASINH] = F1("asinh(a)"),
    [TFL_EW_ACOSH] = F1("acosh(a)"),
    [TFL_EW_ATANH] = F1("atanh(a)"),
    [TFL_EW_FRAC] = F1("a - trunc(a)"),
    [TFL_EW_MISH] = FH(1, FH_TANH, "a * ew_tanh(log1p(exp(a)))"),
    [TFL_EW_LOG_SIGMOID] = F1("(a < 0 ? a : 0) - log1p(exp(-fabs(a)))"),
    [TFL_EW_HYPOT] = F2("hypot(a, b)"),
    [TFL_EW_COPYSIGN] = F2("copysign(a, b)"),
    [TFL_EW_LOGADDEXP] = FH(2, FH_LOGADDEXP, "ew_logaddexp(a, b)"),
    [TFL_EW_FMAX] = F2("fmax(a, b)"),
    [TFL_EW_FMIN] = F2("fmin(a, b)"),
    [TFL_EW_XLOGY] = F2("isnan(b) ? b : a == 0 ? 0 : a * log(b)"),
    [TFL_EW_ELU] = F1("a > 0 ? a * p1 : expm1(a * p2) * p0"),
    [TFL_EW_ELU_BACKWARD] = FH(2, FH_ELU_BWD, "ew_elu_bwd(a, b, p0, p1, p2, p3)"),
    [TFL_EW_HARDTANH_BACKWARD] = F2("(b <= p0 || b >= p1) ? 0 : a"),
    [TFL_EW_HARDSWISH] = FH(1, FH_HARDSWISH, "ew_hardswish(a)"),
    [TFL_EW_HARDSWISH_BACKWARD] = F2("b < -3 ? 0 : b <= 3 ? a * (b / 3 + TC(0.5)) : a"),
    [TFL_EW_HARDSIGMOID] = FH(1, FH_HARDSIGMOID, "ew_hardsigmoid(a)"),
    [TFL_EW_HARDSIGMOID_BACKWARD] = F2("(b > -3 && b < 3) ? a * (TC(1.0) / 6) : 0"),
    [TFL_EW_LOG_SIGMOID_BACKWARD] = FH(2, FH_LOG_SIGMOID_BWD, "ew_log_sigmoid_bwd(a, b)"),
    [TFL_EW_MSE] = F2("(a - b) * (a - b)"),
    [TFL_EW_MISH_BACKWARD] = FH(2, FH_MISH_BWD, "ew_mish_bwd(a, b)"),
    [TFL_EW_SIGNBIT] = F1("(T)(signbit(a) != 0)"),
    [TFL_EW_ISPOSINF] = F1("(T)(isinf(a) && a > 0)"),
    [TFL_EW_ISNEGINF] = F1("(T)(isinf(a) && a < 0)"),
    [TFL_EW_PRELU] = F2("a > 0 ? a : b * a"),
    [TFL_EW_GLU] = F2("a * (1 / (1 + exp(-b)))"),
    [TFL_EW_HEAVISIDE] = F2("a == 0 ? b : (T)(a > 0)"),
    [TFL_EW_XLOG1PY] = F2("isnan(b) ? b : a == 0 ? 0 : a * log1p(b)"),
    [TFL_EW_NAN_TO_NUM] = F1("isnan(a) ? p0 : isinf(a) ? (a > 0 ? p1 : p2) : a"),
    [TFL_EW_SMOOTH_L1] = FH(2, FH_SMOOTH_L1, "ew_smooth_l1(a, b, p0)"),
    [TFL_EW_HUBER] = FH(2, FH_HUBER, "ew_huber(a, b, p0)"),
    [TFL_EW_SMOOTH_L1_BACKWARD] = { 3, FH_SMOOTH_L1_BWD, "ew_smooth_l1_bwd(a, b, c, p0, p1)", NULL, NULL },
    [TFL_EW_HUBER_BACKWARD] = { 3, FH_HUBER_BWD, "ew_huber_bwd(a, b, c, p0, p1)", NULL, NULL },
    [TFL_EW_MSE_BACKWARD] = { 3, NULL, "p0 * (a - b) * c", NULL, NULL },
    [TFL_EW_SOFTSHRINK] = FH(1, FH_SOFTSHRINK, "ew_softshrink(a, p0)"),
    [TFL_EW_HARDSHRINK] = F1("(a >= -p0 && a <= p0) ? 0 : a"),
    [TFL_EW_SHRINK_BACKWARD] = F2("(b >= -p0 && b <= p0) ? 0 : a"),
    [TFL_EW_ANGLE] = F1("isnan(a) ? a : a < 0 ? TC(3.14159265358979323846) : 0"),
    [TFL_EW_LOGIT] = F1("log(a / (1 - a))"),
    [TFL_EW_LOGIT_EPS] = FH(1, FH_LOGIT_EPS, "ew_logit_eps(a, p0, p1)"),
    [TFL_EW_LOGIT_BACKWARD] = F2("(b < 0 || b > 1) ? (T)NAN : a / (b * (1 - b))"),
    [TFL_EW_LOGIT_EPS_BACKWARD] = F2("(b < p0 || b > p1) ? 0 : a / (b * (1 - b))"),
    [TFL_EW_BCE] = FH(2, FH_BCE, "ew_bce(a, b)"),
    [TFL_EW_BCE_BACKWARD] = { 3, FH_BCE_BWD, "ew_bce_bwd(a, b, c)", NULL, NULL },
    /* CONJ, NEG_CONJ, POLAR, COMPLEX: complex only, no row */
};

int ocl_ew_arity(int code)
{
    if (code < 0 || code >= TFL_EW_CODE_COUNT || (!rows[code].fexpr && !rows[code].iexpr))
        return -1;
    return rows[code].arity;
}

int ocl_ew_has_form(int code, int domain)
{
    if (ocl_ew_arity(code) < 0)
        return 0;
    return domain == OCL_EW_INT ? rows[code].iexpr != NULL : rows[code].fexpr != NULL;
}

/* ------------------------------------------------------- the generator */

static const char *const value_type[] = {
    [OCL_EW_RAW] = "long", [OCL_EW_INT] = "long", [OCL_EW_FLT] = "float", [OCL_EW_DBL] = "double",
};

/* int64 -> float as the host converts it, through double (rounding
 * twice), for devices without doubles: round to 53 bits, then to float. */
static const char i64_to_f32[] =
    "float ew_i64_to_f32(long x) {\n"
    "  ulong m = x < 0 ? 0UL - (ulong)x : (ulong)x;\n"
    "  if (m < (1UL << 53)) return convert_float(x);\n"
    "  uint sh = 11u - (uint)clz(m);\n"
    "  ulong rem = m & ((1UL << sh) - 1UL), mid = 1UL << (sh - 1u);\n"
    "  m >>= sh;\n"
    "  m += rem > mid || (rem == mid && (m & 1UL));\n"
    "  float f = ldexp(convert_float(m), (int)sh);\n"
    "  return x < 0 ? -f : f;\n"
    "}\n";

static void put_prelude(ocl_sbuf *b, const ocl_ew_sig *s)
{
    int f64 = s->domain == OCL_EW_DBL;
    for (int k = 0; k <= s->nin; k++)
        f64 |= s->domain != OCL_EW_RAW && !s->scalar[k] && s->dtype[k] == TFL_DT_F64;
    if (f64)
        ocl_put(b, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    /* a * b + c is fused only where a row says fma: results round as the
     * host's (built with -ffp-contract=off) */
    ocl_put(b, "#pragma OPENCL FP_CONTRACT OFF\n");
    switch (s->domain) {
    case OCL_EW_FLT: ocl_put(b, "#define T float\n#define TC(x) x##f\n"); break;
    case OCL_EW_DBL: ocl_put(b, "#define T double\n#define TC(x) x\n"); break;
    case OCL_EW_INT: ocl_put(b, "#define T long\n"); break;
    }
    /* half and bfloat16 as the host's elementwise ops round them */
    int lowp = 0, i64_in = 0;
    for (int k = 0; k <= s->nin; k++) {
        lowp |= !s->scalar[k] && (s->dtype[k] == TFL_DT_F16 || s->dtype[k] == TFL_DT_BF16);
        i64_in |= k > 0 && !s->scalar[k] && s->dtype[k] == TFL_DT_I64;
    }
    if (s->domain != OCL_EW_RAW && lowp)
        ocl_put(b, "#define OCL_LP_NAN 1\n%s", OCL_SRC_LOWP);
    if (s->domain == OCL_EW_FLT && i64_in)
        ocl_put(b, "%s", i64_to_f32);
    if (s->domain != OCL_EW_RAW) {
        const ew_row *r = &rows[s->code];
        const char *help = s->domain == OCL_EW_INT ? r->ihelp : r->fhelp;
        if (help)
            ocl_put(b, "%s", help);
    }
}

/* Size of dimension d and stride of the j-th tensor operand along it. */
static void put_dim(ocl_sbuf *b, const ocl_ew_sig *s, int d)
{
    if (s->ndim <= OCL_EW_ARG_DIMS)
        ocl_put(b, "sh%d", d);
    else
        ocl_put(b, "dm[%d]", d);
}

static void put_stride(ocl_sbuf *b, const ocl_ew_sig *s, int k, int j, int d)
{
    if (s->ndim <= OCL_EW_ARG_DIMS)
        ocl_put(b, "s%d_%d", k, d);
    else
        ocl_put(b, "dm[%d]", s->ndim * (1 + j) + d);
}

static void put_params(ocl_sbuf *b, const ocl_ew_sig *s)
{
    const char *pt = value_type[s->domain];
    ocl_put(b, "__kernel void ew(ulong n");
    for (int k = 0; k <= s->nin; k++) {
        if (s->scalar[k])
            ocl_put(b, ",\n  %s v%d", pt, k);
        else
            ocl_put(b, ",\n  __global uchar *d%d, ulong o%d", k, k);
    }
    ocl_put(b, ",\n  %s p0, %s p1, %s p2, %s p3", pt, pt, pt, pt);
    if (s->ndim > OCL_EW_ARG_DIMS) {
        ocl_put(b, ",\n  __global const long *dm)\n");
        return;
    }
    for (int d = 0; d + 1 < s->ndim; d++)
        ocl_put(b, ", long sh%d", d);
    for (int k = 0; k <= s->nin; k++) {
        if (s->scalar[k])
            continue;
        ocl_put(b, ",\n ");
        for (int d = 0; d < s->ndim; d++)
            ocl_put(b, "%s long s%d_%d", d ? "," : "", k, d);
    }
    ocl_put(b, ")\n");
}

/* The work item's coordinates c0..c<ndim-1> and each tensor operand's
 * address q<k>.  32-bit index arithmetic when n allows: 64-bit division
 * is many instructions on a GPU. */
static void put_addressing(ocl_sbuf *b, const ocl_ew_sig *s)
{
    const char *it = s->idx64 ? "ulong" : "uint";
    ocl_put(b, "  ulong ix = get_global_id(0);\n  if (ix >= n) return;\n");
    if (s->ndim == 1) {
        ocl_put(b, "  %s c0 = (%s)ix;\n", it, it);
    } else {
        ocl_put(b, "  %s ri = (%s)ix;\n", it, it);
        for (int d = 0; d + 1 < s->ndim; d++) {
            ocl_put(b, "  %s c%d = ri %% (%s)", it, d, it);
            put_dim(b, s, d);
            ocl_put(b, "; ri /= (%s)", it);
            put_dim(b, s, d);
            ocl_put(b, ";\n");
        }
        ocl_put(b, "  %s c%d = ri;\n", it, s->ndim - 1);
    }
    for (int k = 0, j = 0; k <= s->nin; k++) {
        if (s->scalar[k])
            continue;
        ocl_put(b, "  __global uchar *q%d = d%d + o%d", k, k, k);
        for (int d = 0; d < s->ndim; d++) {
            ocl_put(b, " + (long)c%d * ", d);
            put_stride(b, s, k, j, d);
        }
        ocl_put(b, ";\n");
        j++;
    }
}

/* Input k read in its dtype and converted to the domain's T, as `name`. */
static void put_load(ocl_sbuf *b, const ocl_ew_sig *s, int k, const char *name)
{
    if (s->scalar[k]) {
        ocl_put(b, "  T %s = v%d;\n", name, k);
        return;
    }
    const char *cv = s->domain == OCL_EW_INT ? "long" : s->domain == OCL_EW_DBL ? "double" : "float";
    if (s->domain == OCL_EW_FLT && s->dtype[k] == TFL_DT_I64) {
        ocl_put(b, "  T %s = ew_i64_to_f32(*(__global const long *)q%d);\n", name, k);
        return;
    }
    ocl_put(b, "  T %s = convert_%s(", name, cv);
    switch (s->dtype[k]) {
    case TFL_DT_F16: ocl_put(b, "ocl_f16_val(*(__global const ushort *)q%d)", k); break;
    case TFL_DT_BF16: ocl_put(b, "ocl_bf16_val(*(__global const ushort *)q%d)", k); break;
    case TFL_DT_BOOL: ocl_put(b, "(*q%d != 0)", k); break;
    default: ocl_put(b, "*(__global const %s *)q%d", ocl_type_of((tfl_dtype)s->dtype[k]), k);
        break;
    }
    ocl_put(b, ");\n");
}

/* The result `res` (type T) converted to the output's dtype and stored:
 * floating to integer truncates, NaN -> 0, saturating at int64 and then
 * wrapping into narrower types, as the host's conversion. */
static void put_store(ocl_sbuf *b, const ocl_ew_sig *s)
{
    int dt = s->dtype[0];
    const char *t = ocl_type_of((tfl_dtype)dt);
    switch (dt) {
    case TFL_DT_F32: case TFL_DT_F64:
        ocl_put(b, "  *(__global %s *)q0 = convert_%s(res);\n", t, t);
        break;
    case TFL_DT_F16:
        ocl_put(b, "  *(__global ushort *)q0 = ocl_f16_bits(convert_float(res));\n");
        break;
    case TFL_DT_BF16:
        ocl_put(b, "  *(__global ushort *)q0 = ocl_bf16_bits(convert_float(res));\n");
        break;
    case TFL_DT_BOOL: ocl_put(b, "  *q0 = (uchar)(res != 0);\n"); break;
    default:
        if (s->domain == OCL_EW_INT)
            ocl_put(b, "  *(__global %s *)q0 = convert_%s(res);\n", t, t);
        else
            ocl_put(b, "  *(__global %s *)q0 = convert_%s(convert_long_sat(res));\n", t, t);
        break;
    }
}

static void put_body(ocl_sbuf *b, const ocl_ew_sig *s)
{
    if (s->domain == OCL_EW_RAW) {
        const char *u = ocl_bits_type(tfl_dtype_size((tfl_dtype)s->dtype[0]));
        if (s->code == TFL_EW_WHERE)
            ocl_put(b, "  *(__global %s *)q0 = *q1 != 0 ? *(__global const %s *)q2"
                       " : *(__global const %s *)q3;\n", u, u, u);
        else
            ocl_put(b, "  *(__global %s *)q0 = *(__global const %s *)q1;\n", u, u);
        return;
    }
    static const char *const names[] = { "a", "b", "c" };
    for (int k = 1; k <= s->nin; k++)
        put_load(b, s, k, names[k - 1]);
    const ew_row *r = &rows[s->code];
    ocl_put(b, "  T res = %s;\n", s->domain == OCL_EW_INT ? r->iexpr : r->fexpr);
    put_store(b, s);
}

char *ocl_ew_source(const ocl_ew_sig *s)
{
    if (s->domain < OCL_EW_RAW || s->domain > OCL_EW_DBL || s->nin < 0 ||
        s->nin >= TFL_EW_MAX_OPERANDS || s->ndim < 1 || s->ndim > TFL_EW_MAX_DIMS)
        return NULL;
    if (s->domain != OCL_EW_RAW &&
        (!ocl_ew_has_form(s->code, s->domain) || rows[s->code].arity != s->nin))
        return NULL;
    for (int k = 0; k <= s->nin; k++)
        if (!s->scalar[k] && (s->dtype[k] < 0 || s->dtype[k] >= TFL_DT_COUNT ||
                              !ocl_type_of((tfl_dtype)s->dtype[k])))
            return NULL;
    ocl_sbuf b = { 0 };
    put_prelude(&b, s);
    put_params(&b, s);
    ocl_put(&b, "{\n");
    put_addressing(&b, s);
    put_body(&b, s);
    ocl_put(&b, "}\n");
    return ocl_sbuf_take(&b);
}

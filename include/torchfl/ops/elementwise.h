/*
 * torchfl/ops/elementwise.h - the "elementwise" op of the backend ABI:
 * pointwise maps over tensors (fill, copy/cast, unary/binary math,
 * comparisons, activations and their gradients).
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_ELEMENTWISE reads this struct.
 *
 * Model: operand 0 is the output, operands 1..ninputs the inputs.  All
 * operands share one iteration shape of `ndim` dimensions, dimension 0
 * the fastest-varying; each tensor operand has its own element type and
 * byte strides (0 = broadcast).  An input may instead be a constant
 * (is_scalar): then `data` is unused and value_f / value_i hold it.  For
 * each index the op reads its inputs, converts them to the op's compute
 * type (compute), applies `code` with the scalar parameters param_f /
 * param_i, and converts the result to the output's type.  Conversions
 * follow C: float -> integer truncates, anything -> bool is "!= 0".
 *
 * Complex numbers (TFL_DT_C64 / C128 operands or compute): an op with any
 * complex operand computes in complex arithmetic; a real input is read as
 * x + 0i, a complex value stored into a real output keeps its real part
 * (bool: nonzero real or imaginary part).  Constants and parameters have
 * their imaginary parts in value_im / param_im (0 for real ones).  Codes
 * defined on complex numbers: FILL, COPY, ADD, MUL, DIV, NEG, RECIPROCAL,
 * EQ, NE, WHERE, MASKED_FILL, CONJ, NEG_CONJ, POLAR, COMPLEX.
 */
#ifndef TORCHFL_OPS_ELEMENTWISE_H
#define TORCHFL_OPS_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#define TFL_EW_MAX_DIMS 25
#define TFL_EW_MAX_OPERANDS 4

/* What the op computes.  a, b, c are inputs 1, 2, 3; p0..p3 are param_f
 * (param_i for integer compute types). */
typedef enum tfl_ew_code {
    TFL_EW_FILL = 0,        /* out = p0 (no inputs)                      */
    TFL_EW_COPY,            /* out = a (conversion between dtypes)       */
    TFL_EW_ADD,             /* out = a + p0 * b   (sub: p0 = -alpha)     */
    TFL_EW_MUL,             /* out = a * b                               */
    TFL_EW_DIV,             /* out = a / b (true division)               */
    TFL_EW_NEG,
    TFL_EW_ABS,
    TFL_EW_EXP,
    TFL_EW_LOG,
    TFL_EW_SQRT,
    TFL_EW_RSQRT,           /* 1 / sqrt(a)                               */
    TFL_EW_SIN,
    TFL_EW_COS,
    TFL_EW_TANH,
    TFL_EW_SIGMOID,         /* 1 / (1 + exp(-a))                         */
    TFL_EW_RECIPROCAL,      /* 1 / a                                     */
    TFL_EW_SIGN,            /* -1, 0, 1 (NaN stays NaN)                  */
    TFL_EW_LOGICAL_NOT,     /* a == 0                                    */
    TFL_EW_POW,             /* pow(a, b)                                 */
    TFL_EW_SQUARE,          /* a * a                                     */
    TFL_EW_CUBE,            /* a * a * a                                 */
    TFL_EW_INV_SQUARE,      /* 1 / (a * a)                               */
    TFL_EW_CLAMP,           /* clamp(a, p0, p1); NaN a propagates        */
    TFL_EW_CLAMP_MIN,       /* max(a, p0); NaN a propagates              */
    TFL_EW_CLAMP_MAX,       /* min(a, p0); NaN a propagates              */
    TFL_EW_CLAMP_T,         /* clamp(a, lower b, upper c); NaN of any propagates */
    TFL_EW_MAXIMUM,         /* NaN of either propagates                  */
    TFL_EW_MINIMUM,
    TFL_EW_WHERE,           /* a != 0 ? b : c                            */
    TFL_EW_EQ, TFL_EW_NE, TFL_EW_LT, TFL_EW_LE, TFL_EW_GT, TFL_EW_GE, /* -> 0/1 */
    TFL_EW_THRESHOLD,       /* a <= p0 ? p1 : b  (relu grad: p0 = 0, p1 = 0) */
    TFL_EW_GELU,            /* erf form                                  */
    TFL_EW_GELU_TANH,       /* tanh approximation                        */
    TFL_EW_GELU_BACKWARD,   /* a = dy, b = x                             */
    TFL_EW_GELU_TANH_BACKWARD,
    TFL_EW_SILU,
    TFL_EW_SILU_BACKWARD,   /* a = dy, b = x                             */
    TFL_EW_TANH_BACKWARD,   /* a = dy, b = y = tanh(x): dy * (1 - y*y)   */
    TFL_EW_SIGMOID_BACKWARD,/* a = dy, b = y: dy * (1 - y) * y           */
    TFL_EW_SOFTPLUS,        /* p0 = beta, p1 = threshold                 */
    TFL_EW_SOFTPLUS_BACKWARD, /* a = dy, b = x                           */
    TFL_EW_LEAKY_RELU,      /* a > 0 ? a : a * p0                        */
    TFL_EW_LEAKY_RELU_BACKWARD, /* a = x, b = dy: a > 0 ? b : b * p0     */
    TFL_EW_MASKED_FILL,     /* b != 0 ? p0 : a                           */
    TFL_EW_ERF,
    TFL_EW_LOG1P,
    TFL_EW_EXPM1,
    TFL_EW_FLOOR,
    TFL_EW_CEIL,
    TFL_EW_ROUND,           /* half to even                              */
    TFL_EW_TRUNC,
    TFL_EW_LOGICAL_AND,     /* -> 0/1                                    */
    TFL_EW_LOGICAL_OR,
    TFL_EW_LOGICAL_XOR,
    TFL_EW_BITWISE_NOT,     /* integers: ~a                              */
    TFL_EW_LERP,            /* a + c * (b - a), PyTorch's two-sided form */
    TFL_EW_LERP_SCALAR,     /* weight p0                                 */
    TFL_EW_ADDCMUL,         /* a + p0 * b * c                            */
    TFL_EW_ADDCDIV,         /* a + p0 * b / c                            */
    TFL_EW_DIV_TRUNC,       /* trunc(a / b)                              */
    TFL_EW_DIV_FLOOR,       /* floor(a / b), Python semantics            */
    TFL_EW_FMOD,            /* C fmod (sign of a)                        */
    TFL_EW_REMAINDER,       /* Python % (sign of b)                      */
    TFL_EW_ATAN2,
    TFL_EW_BITWISE_AND,     /* integers and bool                         */
    TFL_EW_BITWISE_OR,
    TFL_EW_BITWISE_XOR,
    TFL_EW_DIV_TRUNC_INV,   /* trunc(a * p0), p0 = 1 / divisor          */
    TFL_EW_DIV_FLOOR_INV,   /* floor division by p0 using p1 = 1 / p0    */
    TFL_EW_ARANGE,          /* out[i] = p0 + p1 * i over a 1-d output, computed
                               in `compute` (no inputs)                  */
    /* C99 math of a (or a, b), and: frac = a - trunc(a), mish = a *
     * tanh(log1p(exp(a))), log_sigmoid = min(a, 0) - log1p(exp(-|a|)),
     * logaddexp = log(exp(a) + exp(b)), xlogy = a * log(b) (0 where a == 0,
     * NaN where b is NaN) */
    TFL_EW_LOG2,
    TFL_EW_LOG10,
    TFL_EW_TAN,
    TFL_EW_ATAN,
    TFL_EW_ASIN,
    TFL_EW_ACOS,
    TFL_EW_SINH,
    TFL_EW_COSH,
    TFL_EW_ASINH,
    TFL_EW_ACOSH,
    TFL_EW_ATANH,
    TFL_EW_FRAC,
    TFL_EW_MISH,
    TFL_EW_LOG_SIGMOID,
    TFL_EW_HYPOT,
    TFL_EW_COPYSIGN,
    TFL_EW_LOGADDEXP,
    TFL_EW_FMAX,
    TFL_EW_FMIN,
    TFL_EW_XLOGY,
    TFL_EW_ELU,             /* a > 0 ? a * p1 : expm1(a * p2) * p0        */
    TFL_EW_ELU_BACKWARD,    /* a = dy, b = x (p3 = 0) or elu(x) (p3 = 1)  */
    TFL_EW_HARDTANH_BACKWARD, /* a = dy, b = x: b <= p0 || b >= p1 ? 0 : a */
    TFL_EW_HARDSWISH,       /* a * min(max(a + 3, 0), 6) / 6              */
    TFL_EW_HARDSWISH_BACKWARD, /* a = dy, b = x                           */
    TFL_EW_HARDSIGMOID,     /* min(max(a + 3, 0), 6) / 6                  */
    TFL_EW_HARDSIGMOID_BACKWARD, /* a = dy, b = x                         */
    TFL_EW_LOG_SIGMOID_BACKWARD,  /* a = x, b = dy */
    TFL_EW_MSE,                   /* (a - b)^2 */
    TFL_EW_MISH_BACKWARD,         /* a = dy, b = x */
    TFL_EW_SIGNBIT,               /* -> 0/1 */
    TFL_EW_ISPOSINF,              /* -> 0/1 */
    TFL_EW_ISNEGINF,              /* -> 0/1 */
    TFL_EW_PRELU,                 /* a > 0 ? a : b * a */
    TFL_EW_GLU,                   /* a * sigmoid(b) */
    TFL_EW_HEAVISIDE,             /* a == 0 ? b : a > 0 */
    TFL_EW_XLOG1PY,               /* a * log1p(b), 0 where a == 0 */
    TFL_EW_NAN_TO_NUM,      /* NaN -> p0, +inf -> p1, -inf -> p2          */
    /* losses and shrink activations (z = |a - b|, x = a - b) */
    TFL_EW_SMOOTH_L1,       /* z < p0 ? 0.5 z^2 / p0 : z - 0.5 p0 (p0 = beta) */
    TFL_EW_HUBER,           /* z < p0 ? 0.5 z^2 : p0 (z - 0.5 p0) (p0 = delta) */
    TFL_EW_SMOOTH_L1_BACKWARD, /* a = input, b = target, c = dy; p0 = norm,
                               p1 = beta: x < -p1 ? -p0 c : x > p1 ? p0 c : p0 x c / p1 */
    TFL_EW_HUBER_BACKWARD,  /* same with p1 = delta: +-p0 c p1 outside, p0 x c inside */
    TFL_EW_MSE_BACKWARD,    /* p0 * (a - b) * c                           */
    TFL_EW_SOFTSHRINK,      /* a > p0 ? a - p0 : a < -p0 ? a + p0 : 0 (NaN stays) */
    TFL_EW_HARDSHRINK,      /* -p0 <= a <= p0 ? 0 : a                     */
    TFL_EW_SHRINK_BACKWARD, /* a = dy, b = x: -p0 <= b <= p0 ? 0 : a       */
    TFL_EW_ANGLE,           /* real a: NaN stays, a < 0 ? pi : 0          */
    TFL_EW_LOGIT,           /* log(a / (1 - a))                           */
    TFL_EW_LOGIT_EPS,       /* logit of a clamped to [p0, p1]             */
    TFL_EW_LOGIT_BACKWARD,  /* a = dy, b = x: b outside [0, 1] ? NaN : a / (b (1 - b)) */
    TFL_EW_LOGIT_EPS_BACKWARD, /* b outside [p0, p1] ? 0 : a / (b (1 - b))  */
    TFL_EW_BCE,             /* a = input, b = target: (b - 1) max(log1p(-a), -100)
                               - b max(log(a), -100)                      */
    TFL_EW_BCE_BACKWARD,    /* a = dy, b = input, c = target:
                               a (b - c) / max((1 - b) b, 1e-12 in scalar_t) */
    TFL_EW_CONJ,            /* complex: conj(a)                           */
    TFL_EW_NEG_CONJ,        /* complex: -conj(a)                          */
    TFL_EW_POLAR,           /* real a, b -> complex a (cos b + i sin b)    */
    TFL_EW_COMPLEX,         /* real a, b -> complex a + i b                */
    TFL_EW_CODE_COUNT
} tfl_ew_code;

typedef struct tfl_ew_operand {
    int dtype;               /* tfl_dtype                                 */
    int is_scalar;           /* input only: a constant, data unused       */
    void *data;              /* first element                             */
    int64_t strides[TFL_EW_MAX_DIMS]; /* bytes, per dimension             */
    double value_f;          /* constant value (is_scalar)                */
    int64_t value_i;         /* same, exact for integer types             */
    double value_im;         /* imaginary part of a complex constant      */
} tfl_ew_operand;

typedef struct tfl_elementwise_op {
    tfl_ew_code code;
    int compute;             /* tfl_dtype the op computes in (its scalar_t) */
    int ninputs;             /* 0..TFL_EW_MAX_OPERANDS-1                  */
    int ndim;                /* 1..TFL_EW_MAX_DIMS                        */
    int64_t shape[TFL_EW_MAX_DIMS];
    tfl_ew_operand operand[TFL_EW_MAX_OPERANDS]; /* [0] = output          */
    double param_f[4];
    int64_t param_i[4];
    double param_im[4];      /* imaginary parts of complex parameters     */
} tfl_elementwise_op;

#endif

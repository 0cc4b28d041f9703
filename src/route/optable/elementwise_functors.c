/*
 * elementwise_functors.c - which PyTorch functors the elementwise family
 * knows: their op, argument types and the layout of their captured values.
 *
 * A functor is either a named struct template (FillFunctor<T>,
 * CUDAFunctor_add<T>, binary_internal::MulFunctor<T>, ...) or a lambda,
 * known by the function that defines it (exp_kernel_cuda, ...), which
 * top-level dispatch lambda it sits in (GeluCUDAKernelImpl's #1 is the
 * tanh form, #2 the erf form) and its own index.  Binary functors may be
 * wrapped as BinaryFunctor / AUnaryFunctor / BUnaryFunctor (Loops.cuh);
 * the A/B forms hold one operand as a constant after the inner functor.
 *
 * Capture layouts come from PyTorch 2.11's sources and are checked against
 * the cubin parameter sizes (tests/unit/test_ops_elementwise.c).  Capture
 * type letters: T = the functor's scalar_t, O = its opmath type (float for
 * Half/BFloat16), i = a 4-byte enum, b = a bool.
 */
#include "route/optable/elementwise_table.h"
#include "route/optable/pt_abi.h"
#include "torchfl/ops/elementwise.h"

#include <stdlib.h>
#include <string.h>

typedef struct ew_entry {
    const char *fn;          /* struct template or enclosing function     */
    int is_struct;
    int top, idx;            /* lambda: top-level / own index, 0 = any    */
    int arity;
    int code;
    int out_kind;            /* 0: scalar_t, 1: bool, 2: Half, 3: BFloat16,
                                4: complex<scalar_t>, 5: the enclosing function's
                                last template argument (converting_copy<S, D>) */
    int wrapped;             /* lambda with captures or [=]: +8-byte ptr  */
    const char *caps;        /* capture types, layout order               */
    signed char role[4];     /* per capture: TFL_EWP_*                    */
    const int *sel;
    int nsel;
    const char *name;
    int targ1;               /* lambda argument (1-based) that is scalar_t; 0 = last */
} ew_entry;

static const int sel_eq[] = { TFL_EW_EQ, TFL_EW_NE };
static const int sel_cmp[] = { TFL_EW_GE, TFL_EW_GT, TFL_EW_LE, TFL_EW_LT };
static const int sel_clamp[] = { TFL_EW_CLAMP_MIN, TFL_EW_CLAMP_MAX, TFL_EW_CLAMP };

#define NOCAP NULL, { -1, -1, -1, -1 }, NULL, 0
static const ew_entry table[] = {
    /* structs */
    { "FillFunctor", 1, 0, 0, 0, TFL_EW_FILL, 0, 0, "T", { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "fill", 0 },
    { "CUDAFunctor_add", 1, 0, 0, 2, TFL_EW_ADD, 0, 0, "O", { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "add", 0 },
    { "CUDAFunctorOnSelf_add", 1, 0, 0, 1, TFL_EW_ADD, 0, 0, "OO",
      { TFL_EWP_CONST_B, TFL_EWP_PARAM0, -1 }, NULL, 0, "add", 0 },
    { "CUDAFunctorOnOther_add", 1, 0, 0, 1, TFL_EW_ADD, 0, 0, "OO",
      { TFL_EWP_CONST_A, TFL_EWP_PARAM0, -1 }, NULL, 0, "add", 0 },
    { "binary_internal::MulFunctor", 1, 0, 0, 2, TFL_EW_MUL, 0, 0, NOCAP, "mul", 0 },
    { "binary_internal::DivFunctor", 1, 0, 0, 2, TFL_EW_DIV, 0, 0, NOCAP, "div", 0 },
    { "CompareEqFunctor", 1, 0, 0, 2, -1, 1, 0, "i", { TFL_EWP_SELECT, -1, -1 }, sel_eq, 2, "eq/ne", 0 },
    { "CompareFunctor", 1, 0, 0, 2, -1, 1, 0, "i", { TFL_EWP_SELECT, -1, -1 }, sel_cmp, 4, "compare", 0 },
    { "BitwiseAndFunctor", 1, 0, 0, 2, TFL_EW_BITWISE_AND, 0, 0, NOCAP, "bitwise_and", 0 },
    { "BitwiseOrFunctor", 1, 0, 0, 2, TFL_EW_BITWISE_OR, 0, 0, NOCAP, "bitwise_or", 0 },
    { "BitwiseXorFunctor", 1, 0, 0, 2, TFL_EW_BITWISE_XOR, 0, 0, NOCAP, "bitwise_xor", 0 },
    { "AbsFunctor", 1, 0, 0, 1, TFL_EW_ABS, 0, 0, NOCAP, "abs", 0 },
    /* lambdas */
    { "compare_scalar_kernel", 0, 0, 0, 1, -1, 1, 1, "iT",
      { TFL_EWP_SELECT, TFL_EWP_CONST_B, -1 }, sel_cmp, 4, "compare", 0 },
    { "direct_copy_kernel_cuda", 0, 0, 0, 1, TFL_EW_COPY, 0, 0, NOCAP, "copy", 0 },
    { "float16_copy_kernel_cuda", 0, 0, 0, 1, TFL_EW_COPY, 2, 0, NOCAP, "copy", 0 },
    { "bfloat16_copy_kernel_cuda", 0, 0, 0, 1, TFL_EW_COPY, 3, 0, NOCAP, "copy", 0 },
    /* 2.15: casting copies as converting_copy_kernel_cuda<src_t, dst_t>'s
     * [](src_t v) { return static_cast<dst_t>(v); } */
    { "converting_copy_kernel_cuda", 0, 0, 0, 1, TFL_EW_COPY, 5, 0, NOCAP, "copy", 0 },
    { "neg_kernel_cuda", 0, 0, 0, 1, TFL_EW_NEG, 0, 0, NOCAP, "neg", 0 },
    { "exp_kernel_cuda", 0, 0, 0, 1, TFL_EW_EXP, 0, 0, NOCAP, "exp", 0 },
    { "log_kernel_cuda", 0, 0, 0, 1, TFL_EW_LOG, 0, 0, NOCAP, "log", 0 },
    { "sqrt_kernel_cuda", 0, 0, 0, 1, TFL_EW_SQRT, 0, 0, NOCAP, "sqrt", 0 },
    { "rsqrt_kernel_cuda", 0, 0, 0, 1, TFL_EW_RSQRT, 0, 0, NOCAP, "rsqrt", 0 },
    { "sin_kernel_cuda", 0, 0, 0, 1, TFL_EW_SIN, 0, 0, NOCAP, "sin", 0 },
    { "cos_kernel_cuda", 0, 0, 0, 1, TFL_EW_COS, 0, 0, NOCAP, "cos", 0 },
    { "tanh_kernel_cuda", 0, 0, 0, 1, TFL_EW_TANH, 0, 0, NOCAP, "tanh", 0 },
    { "sigmoid_kernel_cuda", 0, 0, 0, 1, TFL_EW_SIGMOID, 0, 0, NOCAP, "sigmoid", 0 },
    { "reciprocal_kernel_cuda", 0, 0, 0, 1, TFL_EW_RECIPROCAL, 0, 0, NOCAP, "reciprocal", 0 },
    { "sign_kernel_cuda", 0, 0, 0, 1, TFL_EW_SIGN, 0, 0, NOCAP, "sign", 0 },
    { "logical_not_kernel_cuda", 0, 0, 0, 1, TFL_EW_LOGICAL_NOT, 1, 0, NOCAP, "logical_not", 0 },
    { "pow_tensor_tensor_kernel", 0, 0, 0, 2, TFL_EW_POW, 0, 1, NOCAP, "pow", 0 },
    { "pow_tensor_scalar_kernel_impl", 0, 0, 1, 1, TFL_EW_SQUARE, 0, 1, NOCAP, "pow", 0 },
    { "pow_tensor_scalar_kernel_impl", 0, 0, 2, 1, TFL_EW_CUBE, 0, 1, NOCAP, "pow", 0 },
    { "pow_tensor_scalar_kernel_impl", 0, 0, 3, 1, TFL_EW_INV_SQUARE, 0, 1, NOCAP, "pow", 0 },
    { "pow_tensor_scalar_kernel_impl", 0, 0, 4, 1, TFL_EW_POW, 0, 1, "T",
      { TFL_EWP_CONST_B, -1, -1 }, NULL, 0, "pow", 0 },
    { "launch_clamp_scalar", 0, 0, 0, 1, -1, 0, 1, "iOO",
      { TFL_EWP_SELECT, TFL_EWP_PARAM0, TFL_EWP_PARAM1 }, sel_clamp, 3, "clamp", 0 },
    { "clamp_kernel_impl", 0, 0, 0, 3, TFL_EW_CLAMP_T, 0, 0, NOCAP, "clamp", 0 },
    { "maximum_kernel_cuda", 0, 0, 0, 2, TFL_EW_MAXIMUM, 0, 0, NOCAP, "maximum", 0 },
    { "minimum_kernel_cuda", 0, 0, 0, 2, TFL_EW_MINIMUM, 0, 0, NOCAP, "minimum", 0 },
    { "where_kernel_impl", 0, 0, 0, 3, TFL_EW_WHERE, 0, 1, NOCAP, "where", 0 },
    { "threshold_kernel_impl", 0, 0, 0, 2, TFL_EW_THRESHOLD, 0, 1, "TT",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1 }, NULL, 0, "threshold", 0 },
    { "GeluCUDAKernelImpl", 0, 1, 0, 1, TFL_EW_GELU_TANH, 0, 0, NOCAP, "gelu", 0 },
    { "GeluCUDAKernelImpl", 0, 2, 0, 1, TFL_EW_GELU, 0, 0, NOCAP, "gelu", 0 },
    { "GeluBackwardCUDAKernelImpl", 0, 1, 0, 2, TFL_EW_GELU_TANH_BACKWARD, 0, 0, NOCAP, "gelu_backward", 0 },
    { "GeluBackwardCUDAKernelImpl", 0, 2, 0, 2, TFL_EW_GELU_BACKWARD, 0, 0, NOCAP, "gelu_backward", 0 },
    { "silu_kernel", 0, 0, 0, 1, TFL_EW_SILU, 0, 0, NOCAP, "silu", 0 },
    { "silu_backward_kernel", 0, 0, 0, 2, TFL_EW_SILU_BACKWARD, 0, 0, NOCAP, "silu_backward", 0 },
    { "tanh_backward_kernel_cuda", 0, 0, 0, 2, TFL_EW_TANH_BACKWARD, 0, 0, NOCAP, "tanh_backward", 0 },
    { "sigmoid_backward_kernel_cuda", 0, 0, 0, 2, TFL_EW_SIGMOID_BACKWARD, 0, 0, NOCAP, "sigmoid_backward", 0 },
    { "softplus_kernel", 0, 0, 0, 1, TFL_EW_SOFTPLUS, 0, 1, "OO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1 }, NULL, 0, "softplus", 0 },
    { "softplus_backward_kernel", 0, 0, 0, 2, TFL_EW_SOFTPLUS_BACKWARD, 0, 1, "OO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1 }, NULL, 0, "softplus_backward", 0 },
    { "leaky_relu_kernel", 0, 0, 0, 1, TFL_EW_LEAKY_RELU, 0, 1, "O",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "leaky_relu", 0 },
    { "leaky_relu_backward_kernel", 0, 0, 0, 2, TFL_EW_LEAKY_RELU_BACKWARD, 0, 1, "O",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "leaky_relu_backward", 0 },
    { "masked_fill_kernel", 0, 0, 0, 2, TFL_EW_MASKED_FILL, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "masked_fill", 1 },
    { "erf_kernel_cuda", 0, 0, 0, 1, TFL_EW_ERF, 0, 0, NOCAP, "erf", 0 },
    { "log1p_kernel_cuda", 0, 0, 0, 1, TFL_EW_LOG1P, 0, 0, NOCAP, "log1p", 0 },
    { "expm1_kernel_cuda", 0, 0, 0, 1, TFL_EW_EXPM1, 0, 0, NOCAP, "expm1", 0 },
    { "floor_kernel_cuda", 0, 0, 0, 1, TFL_EW_FLOOR, 0, 0, NOCAP, "floor", 0 },
    { "ceil_kernel_cuda", 0, 0, 0, 1, TFL_EW_CEIL, 0, 0, NOCAP, "ceil", 0 },
    { "round_kernel_cuda", 0, 0, 0, 1, TFL_EW_ROUND, 0, 0, NOCAP, "round", 0 },
    { "trunc_kernel_cuda", 0, 0, 0, 1, TFL_EW_TRUNC, 0, 0, NOCAP, "trunc", 0 },
    { "logical_and_kernel_cuda", 0, 0, 0, 2, TFL_EW_LOGICAL_AND, 1, 0, NOCAP, "logical_and", 0 },
    { "logical_or_kernel_cuda", 0, 0, 0, 2, TFL_EW_LOGICAL_OR, 1, 0, NOCAP, "logical_or", 0 },
    { "logical_xor_kernel_cuda", 0, 0, 0, 2, TFL_EW_LOGICAL_XOR, 1, 0, NOCAP, "logical_xor", 0 },
    { "bitwise_not_kernel_cuda", 0, 0, 0, 1, TFL_EW_BITWISE_NOT, 0, 0, NOCAP, "bitwise_not", 0 },
    { "lerp_tensor_kernel", 0, 0, 0, 3, TFL_EW_LERP, 0, 0, NOCAP, "lerp", 0 },
    { "lerp_scalar_kernel", 0, 0, 0, 2, TFL_EW_LERP_SCALAR, 0, 1, "O",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "lerp", 0 },
    { "addcmul_cuda_kernel", 0, 0, 0, 3, TFL_EW_ADDCMUL, 0, 1, "O",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "addcmul", 0 },
    { "addcdiv_cuda_kernel", 0, 0, 0, 3, TFL_EW_ADDCDIV, 0, 1, "O",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "addcdiv", 0 },
    { "binary_internal::div_trunc_kernel_cuda", 0, 0, 0, 2, TFL_EW_DIV_TRUNC, 0, 0, NOCAP, "div_trunc", 0 },
    { "binary_internal::div_floor_kernel_cuda", 0, 0, 0, 2, TFL_EW_DIV_FLOOR, 0, 0, NOCAP, "div_floor", 0 },
    { "log2_kernel_cuda", 0, 0, 0, 1, TFL_EW_LOG2, 0, 0, NOCAP, "log2", 0 },
    { "log10_kernel_cuda", 0, 0, 0, 1, TFL_EW_LOG10, 0, 0, NOCAP, "log10", 0 },
    { "tan_kernel_cuda", 0, 0, 0, 1, TFL_EW_TAN, 0, 0, NOCAP, "tan", 0 },
    { "atan_kernel_cuda", 0, 0, 0, 1, TFL_EW_ATAN, 0, 0, NOCAP, "atan", 0 },
    { "asin_kernel_cuda", 0, 0, 0, 1, TFL_EW_ASIN, 0, 0, NOCAP, "asin", 0 },
    { "acos_kernel_cuda", 0, 0, 0, 1, TFL_EW_ACOS, 0, 0, NOCAP, "acos", 0 },
    { "sinh_kernel_cuda", 0, 0, 0, 1, TFL_EW_SINH, 0, 0, NOCAP, "sinh", 0 },
    { "cosh_kernel_cuda", 0, 0, 0, 1, TFL_EW_COSH, 0, 0, NOCAP, "cosh", 0 },
    { "asinh_kernel_cuda", 0, 0, 0, 1, TFL_EW_ASINH, 0, 0, NOCAP, "asinh", 0 },
    { "acosh_kernel_cuda", 0, 0, 0, 1, TFL_EW_ACOSH, 0, 0, NOCAP, "acosh", 0 },
    { "atanh_kernel_cuda", 0, 0, 0, 1, TFL_EW_ATANH, 0, 0, NOCAP, "atanh", 0 },
    { "frac_kernel_cuda", 0, 0, 0, 1, TFL_EW_FRAC, 0, 0, NOCAP, "frac", 0 },
    { "mish_kernel", 0, 0, 0, 1, TFL_EW_MISH, 0, 0, NOCAP, "mish", 0 },
    { "launch_log_sigmoid_forward_kernel", 0, 0, 0, 1, TFL_EW_LOG_SIGMOID, 0, 0, NOCAP, "log_sigmoid", 0 },
    { "hypot_kernel_cuda", 0, 0, 0, 2, TFL_EW_HYPOT, 0, 0, NOCAP, "hypot", 0 },
    { "copysign_kernel_cuda", 0, 0, 0, 2, TFL_EW_COPYSIGN, 0, 0, NOCAP, "copysign", 0 },
    { "logaddexp_kernel_cuda", 0, 0, 0, 2, TFL_EW_LOGADDEXP, 0, 0, NOCAP, "logaddexp", 0 },
    { "fmax_kernel_cuda", 0, 0, 0, 2, TFL_EW_FMAX, 0, 0, NOCAP, "fmax", 0 },
    { "fmin_kernel_cuda", 0, 0, 0, 2, TFL_EW_FMIN, 0, 0, NOCAP, "fmin", 0 },
    { "xlogy_kernel_cuda", 0, 0, 0, 2, TFL_EW_XLOGY, 0, 0, NOCAP, "xlogy", 0 },
    { "elu_kernel", 0, 0, 0, 1, TFL_EW_ELU, 0, 1, "OOO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, TFL_EWP_PARAM2, -1 }, NULL, 0, "elu", 0 },
    { "elu_backward_kernel", 0, 0, 0, 2, TFL_EW_ELU_BACKWARD, 0, 1, "OOOb",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, TFL_EWP_PARAM2, TFL_EWP_PARAM3 }, NULL, 0, "elu_backward", 0 },
    { "hardtanh_backward_kernel", 0, 0, 0, 2, TFL_EW_HARDTANH_BACKWARD, 0, 1, "OO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1, -1 }, NULL, 0, "hardtanh_backward", 0 },
    { "log_sigmoid_backward_kernel", 0, 0, 0, 2, TFL_EW_LOG_SIGMOID_BACKWARD, 0, 0, NOCAP, "log_sigmoid_backward", 0 },
    { "mse_kernel_cuda", 0, 0, 0, 2, TFL_EW_MSE, 0, 0, NOCAP, "mse", 0 },
    { "mish_backward_kernel", 0, 0, 0, 2, TFL_EW_MISH_BACKWARD, 0, 0, NOCAP, "mish_backward", 0 },
    { "signbit_kernel_cuda", 0, 0, 0, 1, TFL_EW_SIGNBIT, 1, 0, NOCAP, "signbit", 0 },
    { "isposinf_kernel_impl", 0, 0, 0, 1, TFL_EW_ISPOSINF, 1, 0, NOCAP, "isposinf", 0 },
    { "isneginf_kernel_impl", 0, 0, 0, 1, TFL_EW_ISNEGINF, 1, 0, NOCAP, "isneginf", 0 },
    { "prelu_kernel", 0, 0, 0, 2, TFL_EW_PRELU, 0, 0, NOCAP, "prelu", 0 },
    { "glu_kernel", 0, 0, 0, 2, TFL_EW_GLU, 0, 0, NOCAP, "glu", 0 },
    { "heaviside_kernel_cuda", 0, 0, 0, 2, TFL_EW_HEAVISIDE, 0, 0, NOCAP, "heaviside", 0 },
    { "xlog1py_kernel_cuda", 0, 0, 0, 2, TFL_EW_XLOG1PY, 0, 0, NOCAP, "xlog1py", 0 },
    { "nan_to_num_kernel_cuda", 0, 0, 0, 1, TFL_EW_NAN_TO_NUM, 0, 1, "TTT",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, TFL_EWP_PARAM2, -1 }, NULL, 0, "nan_to_num", 0 },
    /* losses (scalar_t captures: beta / delta; norm then beta / delta) */
    { "smooth_l1_kernel_cuda", 0, 0, 0, 2, TFL_EW_SMOOTH_L1, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1, -1 }, NULL, 0, "smooth_l1", 0 },
    { "huber_kernel_cuda", 0, 0, 0, 2, TFL_EW_HUBER, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1, -1 }, NULL, 0, "huber", 0 },
    { "smooth_l1_backward_cuda_kernel", 0, 0, 0, 3, TFL_EW_SMOOTH_L1_BACKWARD, 0, 1, "TT",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1, -1 }, NULL, 0, "smooth_l1_backward", 0 },
    { "huber_backward_cuda_kernel", 0, 0, 0, 3, TFL_EW_HUBER_BACKWARD, 0, 1, "TT",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1, -1 }, NULL, 0, "huber_backward", 0 },
    { "mse_backward_cuda_kernel", 0, 0, 0, 3, TFL_EW_MSE_BACKWARD, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1, -1 }, NULL, 0, "mse_backward", 0 },
    { "softshrink_kernel", 0, 0, 0, 1, TFL_EW_SOFTSHRINK, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1, -1 }, NULL, 0, "softshrink", 0 },
    { "hardshrink_kernel", 0, 0, 0, 1, TFL_EW_HARDSHRINK, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1, -1 }, NULL, 0, "hardshrink", 0 },
    { "shrink_backward_kernel", 0, 0, 0, 2, TFL_EW_SHRINK_BACKWARD, 0, 1, "T",
      { TFL_EWP_PARAM0, -1, -1, -1 }, NULL, 0, "shrink_backward", 0 },
    { "binary_cross_entropy_out_cuda", 0, 0, 0, 2, TFL_EW_BCE, 0, 0, NOCAP, "bce", 0 },
    { "binary_cross_entropy_backward_out_kernel", 0, 0, 0, 3, TFL_EW_BCE_BACKWARD, 0, 0, NOCAP,
      "bce_backward", 0 },
    { "logit_kernel_cuda", 0, 0, 1, 1, TFL_EW_LOGIT, 0, 0, NOCAP, "logit", 0 },
    { "logit_kernel_cuda", 0, 0, 2, 1, TFL_EW_LOGIT_EPS, 0, 1, "OO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1, -1 }, NULL, 0, "logit", 0 },
    { "logit_backward_kernel_cuda", 0, 0, 1, 2, TFL_EW_LOGIT_BACKWARD, 0, 0, NOCAP,
      "logit_backward", 0 },
    { "logit_backward_kernel_cuda", 0, 0, 2, 2, TFL_EW_LOGIT_EPS_BACKWARD, 0, 1, "OO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1, -1 }, NULL, 0, "logit_backward", 0 },
    /* complex numbers (ops_elementwise_complex.c) and angle of reals */
    { "conj_kernel_cuda", 0, 0, 0, 1, TFL_EW_CONJ, 0, 0, NOCAP, "conj", 0 },
    { "neg_conj_kernel_cuda", 0, 0, 0, 1, TFL_EW_NEG_CONJ, 0, 0, NOCAP, "neg_conj", 0 },
    { "polar_kernel_cuda", 0, 0, 0, 2, TFL_EW_POLAR, 4, 0, NOCAP, "polar", 0 },
    { "complex_kernel_cuda", 0, 0, 0, 2, TFL_EW_COMPLEX, 4, 0, NOCAP, "complex", 0 },
    { "angle_kernel_cuda", 0, 0, 0, 1, TFL_EW_ANGLE, 0, 0, NOCAP, "angle", 0 },
    /* these capture only their fixed constants (0, 1/6, 3, 6, ...) */
    { "hardswish_kernel", 0, 0, 0, 1, TFL_EW_HARDSWISH, 0, 1, "OOOO", { TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE }, NULL, 0, "hardswish", 0 },
    { "hardswish_backward_kernel", 0, 0, 0, 2, TFL_EW_HARDSWISH_BACKWARD, 0, 1, "OOOO", { TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE }, NULL, 0,
      "hardswish_backward", 0 },
    { "hardsigmoid_kernel", 0, 0, 0, 1, TFL_EW_HARDSIGMOID, 0, 1, "OOOO", { TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE }, NULL, 0, "hardsigmoid", 0 },
    { "hardsigmoid_backward_kernel", 0, 0, 0, 2, TFL_EW_HARDSIGMOID_BACKWARD, 0, 1, "OOOO", { TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE, TFL_EWP_IGNORE }, NULL, 0,
      "hardsigmoid_backward", 0 },
    /* divisor a CPU scalar: the lambda keeps its reciprocal (and value) */
    { "binary_internal::div_trunc_kernel_cuda", 0, 0, 0, 1, TFL_EW_DIV_TRUNC_INV, 0, 1, "O",
      { TFL_EWP_PARAM0, -1, -1 }, NULL, 0, "div_trunc", 0 },
    { "binary_internal::div_floor_kernel_cuda", 0, 0, 0, 1, TFL_EW_DIV_FLOOR_INV, 0, 1, "OO",
      { TFL_EWP_PARAM0, TFL_EWP_PARAM1, -1 }, NULL, 0, "div_floor", 0 },
    { "fmod_kernel_cuda", 0, 0, 0, 2, TFL_EW_FMOD, 0, 0, NOCAP, "fmod", 0 },
    { "remainder_kernel_cuda", 0, 0, 0, 2, TFL_EW_REMAINDER, 0, 0, NOCAP, "remainder", 0 },
    { "atan2_kernel_cuda", 0, 0, 0, 2, TFL_EW_ATAN2, 0, 0, NOCAP, "atan2", 0 },
};

/* Length of the leading name in "NAME<...>(...)::..." */
static size_t ident_len(const char *s)
{
    size_t i = 0;
    while (s[i] && s[i] != '<' && s[i] != '(')
        i++;
    return i;
}

/* The last template argument of the function enclosing a lambda named s
 * ("converting_copy_kernel_cuda<float, c10::Half>(...)::{lambda(float)#1}"). */
static tfl_dtype enclosing_last_targ(const char *s)
{
    size_t fnlen = ident_len(s);
    const char *a[4];
    size_t al[4];
    tfl_dtype dt;
    int n = s[fnlen] == '<' ? tfl_pt_template_args(s + fnlen, a, al, 4) : 0;
    if (n < 1 || n > 4 || !tfl_pt_type_name(a[n - 1], al[n - 1], &dt))
        return TFL_DT_COUNT;
    return dt;
}

static tfl_dtype out_type(const ew_entry *e, tfl_dtype t, const char *s)
{
    static const tfl_dtype kinds[] = { TFL_DT_COUNT, TFL_DT_BOOL, TFL_DT_F16, TFL_DT_BF16 };
    if (e->out_kind == 5)
        return enclosing_last_targ(s);
    if (e->out_kind == 4)          /* c10::complex<scalar_t> */
        return t == TFL_DT_F32 ? TFL_DT_C64 : t == TFL_DT_F64 ? TFL_DT_C128 : TFL_DT_COUNT;
    return e->out_kind ? kinds[e->out_kind] : t;
}

static int is_complex(tfl_dtype t)
{
    return t == TFL_DT_C64 || t == TFL_DT_C128;
}

/* Ops the host's complex path computes (ops_elementwise_complex.c). */
static int complex_ok(const ew_entry *e)
{
    switch (e->code) {
    case TFL_EW_FILL: case TFL_EW_COPY: case TFL_EW_ADD: case TFL_EW_MUL: case TFL_EW_DIV:
    case TFL_EW_NEG: case TFL_EW_RECIPROCAL: case TFL_EW_CONJ: case TFL_EW_NEG_CONJ:
    case TFL_EW_WHERE: case TFL_EW_MASKED_FILL:
        return 1;
    default:
        return e->sel == sel_eq;
    }
}

static tfl_dtype opmath(tfl_dtype t)
{
    return (t == TFL_DT_F16 || t == TFL_DT_BF16) ? TFL_DT_F32 : t;
}

/* Fill layout and fields of f from entry e with scalar type t. */
static int layout(const ew_entry *e, tfl_dtype t, tfl_ew_functor *f)
{
    /* complex instances: only the ops the complex path computes (the
     * others are mostly jiterator kernels the wheel does not carry) */
    int cplx = is_complex(t);
    for (int i = 0; i < f->arity; i++)
        cplx |= is_complex(f->in_dt[i]);
    if (cplx && !complex_ok(e))
        return 0;
    size_t off = 0, al = 1;
    int n = 0;
    for (const char *c = e->caps; c && *c; c++, n++) {
        tfl_dtype dt = *c == 'T' ? t : *c == 'O' ? opmath(t) : *c == 'b' ? TFL_DT_BOOL : TFL_DT_I32;
        size_t sz = tfl_dtype_size(dt);
        if (!sz || sz > 16)
            return 0;
        /* c10::complex<T> is aligned to its size (alignas(2 * sizeof(T))) */
        off = tfl_pt_align(off, sz);
        f->field[n].off = (uint16_t)off;
        f->field[n].role = (uint8_t)e->role[n];
        f->field[n].dtype = (uint8_t)dt;
        off += sz;
        if (sz > al) al = sz;
    }
    f->nfield = n;
    if (e->wrapped) {
        off = tfl_pt_align(off, 8) + 8;
        if (al < 8) al = 8;
    } else if (off == 0) {
        off = 1;                   /* empty class */
    }
    f->size = tfl_pt_align(off, al);
    f->align = al;
    return 1;
}

/* A captured constant operand makes the op one input wider. */
static int set_const_pos(tfl_ew_functor *f)
{
    for (int i = 0; i < f->nfield; i++) {
        if (f->field[i].role == TFL_EWP_CONST_A) f->const_pos = 1;
        if (f->field[i].role == TFL_EWP_CONST_B) f->const_pos = 2;
    }
    if (f->const_pos) {
        f->in_dt[1] = TFL_DT_COUNT;
    }
    return 1;
}

/* A lambda argument's element type.  2.15's where_kernel_impl dispatches
 * on element size only, with lambda(bool, unsigned short|int|long, ...):
 * those become the torchfl type of that width (*sized = 1), which only a
 * pure data movement may use (parse_inner checks). */
static int arg_type(const char *a, size_t len, tfl_dtype *dt, int *sized)
{
    static const struct { const char *n; tfl_dtype dt; } by_width[] = {
        { "unsigned short", TFL_DT_F16 }, { "unsigned int", TFL_DT_I32 },
        { "unsigned long", TFL_DT_I64 },
    };
    if (tfl_pt_type_name(a, len, dt))
        return 1;
    while (len && *a == ' ') { a++; len--; }
    while (len && a[len - 1] == ' ') len--;
    for (size_t i = 0; i < sizeof by_width / sizeof by_width[0]; i++)
        if (strlen(by_width[i].n) == len && memcmp(a, by_width[i].n, len) == 0) {
            *dt = by_width[i].dt;
            *sized = 1;
            return 1;
        }
    return 0;
}

/* Lambda facts: enclosing function name length, top-level index, own
 * index and argument types (parsed from the last "{lambda(...)#k}"). */
static int lambda_info(const char *s, size_t *fnlen, int *top, int *idx,
                       tfl_dtype *args, int *nargs, int *sized)
{
    *fnlen = ident_len(s);
    const char *last = NULL, *p = s;
    while ((p = strstr(p, "{lambda(")) != NULL) { last = p; p++; }
    if (!last)
        return 0;
    const char *q = strstr(s, "::{lambda()#");
    *top = (q && q < last) ? atoi(q + strlen("::{lambda()#")) : 0;
    const char *a = last + strlen("{lambda(");
    const char *close = strchr(a, ')');
    if (!close || close[1] != '#')
        return 0;
    *idx = atoi(close + 2);
    int n = 0;
    while (a < close) {
        const char *c = memchr(a, ',', (size_t)(close - a));
        const char *end = c ? c : close;
        if (n >= 3 || !arg_type(a, (size_t)(end - a), &args[n], sized))
            return 0;
        n++;
        a = c ? c + 1 : close;
    }
    *nargs = n;
    return 1;
}

static const ew_entry *find(const char *fn, size_t fnlen, int is_struct, int top, int idx,
                            int nargs)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const ew_entry *e = &table[i];
        if (e->is_struct != is_struct || strlen(e->fn) != fnlen ||
            memcmp(e->fn, fn, fnlen) != 0)
            continue;
        if ((e->top && e->top != top) || (e->idx && e->idx != idx) ||
            (nargs >= 0 && e->arity != nargs))
            continue;
        return e;
    }
    return NULL;
}

/* The inner (unwrapped) functor. */
static int parse_inner(const char *s, tfl_ew_functor *f)
{
    size_t fnlen = ident_len(s);
    if (s[fnlen] == '<' && !strstr(s, "{lambda(")) {
        /* struct template: NAME<T> */
        const char *a[2];
        size_t al[2];
        tfl_dtype t;
        if (tfl_pt_template_args(s + fnlen, a, al, 2) != 1 || !tfl_pt_type_name(a[0], al[0], &t))
            return 0;
        const ew_entry *e = find(s, fnlen, 1, 0, 0, -1);
        if (!e)
            return 0;
        f->name = e->name; f->code = e->code; f->sel = e->sel; f->nsel = e->nsel;
        f->arity = e->arity;
        for (int i = 0; i < e->arity; i++) f->in_dt[i] = t;
        f->out_dt = out_type(e, t, s);
        f->compute = t;
        return f->out_dt != TFL_DT_COUNT && layout(e, t, f) && set_const_pos(f);
    }
    int top = 0, idx = 0, nargs = 0, sized = 0;
    tfl_dtype args[3];
    if (!lambda_info(s, &fnlen, &top, &idx, args, &nargs, &sized))
        return 0;
    const ew_entry *e = find(s, fnlen, 0, top, idx, nargs);
    if (!e || e->arity != nargs)
        return 0;
    /* size-only element types: a select moves bits (the host's where is a
     * bitwise select for same-size values), any arithmetic would not */
    if (sized && e->code != TFL_EW_WHERE)
        return 0;
    f->name = e->name; f->code = e->code; f->sel = e->sel; f->nsel = e->nsel;
    f->arity = e->arity;
    for (int i = 0; i < nargs; i++) f->in_dt[i] = args[i];
    if (f->code == TFL_EW_BITWISE_NOT && args[0] == TFL_DT_BOOL)
        f->code = TFL_EW_LOGICAL_NOT;           /* ~ on bool is logical */
    /* scalar_t: the last argument (where's first is its bool condition)
     * unless the entry names another (masked_fill's (T, bool)) */
    tfl_dtype t = e->targ1 ? args[e->targ1 - 1] : nargs ? args[nargs - 1] : TFL_DT_F32;
    f->out_dt = out_type(e, t, s);
    f->compute = t;
    return f->out_dt != TFL_DT_COUNT && layout(e, t, f) && set_const_pos(f);
}

int tfl_ew_parse_functor(const char *s, tfl_ew_functor *f)
{
    memset(f, 0, sizeof *f);
    int wrap = 0;
    if (strncmp(s, "BinaryFunctor<", 14) == 0) wrap = 1;
    else if (strncmp(s, "AUnaryFunctor<", 14) == 0) wrap = 2;
    else if (strncmp(s, "BUnaryFunctor<", 14) == 0) wrap = 3;
    if (!wrap)
        return parse_inner(s, f);

    const char *a[4];
    size_t al[4];
    tfl_dtype t1, t2, r;
    if (tfl_pt_template_args(s + 13, a, al, 4) != 4 ||
        !tfl_pt_type_name(a[0], al[0], &t1) || !tfl_pt_type_name(a[1], al[1], &t2) ||
        !tfl_pt_type_name(a[2], al[2], &r))
        return 0;
    char inner[2048];
    if (al[3] >= sizeof inner)
        return 0;
    memcpy(inner, a[3], al[3]);
    inner[al[3]] = 0;
    tfl_ew_functor in;
    memset(&in, 0, sizeof in);
    if (!parse_inner(inner, &in) || in.arity != 2 || in.const_pos)
        return 0;
    *f = in;
    f->out_dt = r;
    if (wrap == 1) {
        f->in_dt[0] = t1; f->in_dt[1] = t2;
        return 1;
    }
    /* A/BUnaryFunctor { inner f; arg-0 type of inner (its "opmath") c; } */
    tfl_dtype ct = in.in_dt[0];
    size_t cs = tfl_dtype_size(ct);
    if (!cs || cs > 16 || f->nfield >= (int)(sizeof f->field / sizeof f->field[0]))
        return 0;
    size_t off = tfl_pt_align(in.size, cs);
    f->field[f->nfield].off = (uint16_t)off;
    f->field[f->nfield].role = wrap == 2 ? TFL_EWP_CONST_A : TFL_EWP_CONST_B;
    f->field[f->nfield].dtype = (uint8_t)ct;
    f->nfield++;
    f->align = in.align > cs ? in.align : cs;
    f->size = tfl_pt_align(off + cs, f->align);
    f->arity = 1;
    f->in_dt[0] = wrap == 2 ? t2 : t1;
    f->in_dt[1] = TFL_DT_COUNT;
    f->const_pos = wrap == 2 ? 1 : 2;
    return 1;
}

/* arange_cuda_out's lambda [xstart, xstep](int64_t i) -> scalar_t, one per
 * dispatched type.  The name does not carry scalar_t: the inner dispatch
 * lambda's index does, in AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)'s case
 * order (Byte, Char, Int, Long, Short, Double, Float, Half, BFloat16).  The
 * captures are accscalar_t (int64 for integers, float for the float
 * types, double), in capture-list order, plus nvcc's pointer; the sizes
 * (24 for the 8-byte accumulators, 16 for float) are checked against the
 * cubin. */
int tfl_ew_parse_index_functor(const char *s, tfl_ew_functor *f)
{
    static const tfl_dtype out_of[10] = { TFL_DT_COUNT, TFL_DT_U8, TFL_DT_I8, TFL_DT_I32,
        TFL_DT_I64, TFL_DT_COUNT /* short */, TFL_DT_F64, TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16 };
    memset(f, 0, sizeof *f);
    if (strncmp(s, "arange_cuda_out(", 16) != 0)
        return 0;
    const char *q = strstr(s, "::{lambda()#");
    q = q ? strstr(q + 1, "::{lambda()#") : NULL;
    if (!q || !strstr(q, "{lambda(long)#1}"))
        return 0;
    int k = atoi(q + strlen("::{lambda()#"));
    if (k < 1 || k > 9 || out_of[k] == TFL_DT_COUNT)
        return 0;
    tfl_dtype out = out_of[k];
    tfl_dtype acc = out == TFL_DT_F64 ? TFL_DT_F64
                  : (out == TFL_DT_F32 || out == TFL_DT_F16 || out == TFL_DT_BF16) ? TFL_DT_F32
                  : TFL_DT_I64;
    size_t as = tfl_dtype_size(acc);
    f->name = "arange";
    f->code = TFL_EW_ARANGE;
    f->arity = 0;
    f->out_dt = out;
    f->compute = acc;
    f->nfield = 2;
    f->field[0].off = 0;                       /* xstart */
    f->field[0].role = TFL_EWP_PARAM0;
    f->field[0].dtype = (uint8_t)acc;
    f->field[1].off = (uint16_t)as;            /* xstep */
    f->field[1].role = TFL_EWP_PARAM1;
    f->field[1].dtype = (uint8_t)acc;
    f->size = tfl_pt_align(2 * as, 8) + 8;
    f->align = 8;
    return 1;
}

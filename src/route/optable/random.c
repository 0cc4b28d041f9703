/*
 * random.c - the "random" kernel family of the semantic op table: PyTorch's
 * CUDA RNG kernels, decoded into tfl_random_op (torchfl/ops/random.h).
 *
 * Claimed (recognised by base name and template arguments, kname.h):
 *   distribution_elementwise_grid_stride_kernel<float, 4> / <double, 2> for
 *     uniform_kernel (torch.rand, uniform_), normal_kernel (torch.randn,
 *     normal_), bernoulli_kernel (bernoulli_(p) with a scalar p) into
 *     float / double; <unsigned int, 4> and <unsigned long, 2> for
 *     random_from_to_kernel (torch.randint), random_kernel (random_()) and
 *     random_full_64_bits_range_kernel into float, double, int64, int32,
 *     int8, uint8, bool, half, bfloat16; exponential_kernel, cauchy_kernel,
 *     log_normal_kernel (float, double, half, bfloat16) and geometric_kernel
 *     (also int64, int32, int8, uint8 with float draws); both the
 *     trivial-1d launch and the OffsetCalculator launch;
 *   fused_dropout_kernel_vec<float|Half|BFloat16, float, unsigned int|unsigned long,
 *                            1, VEC, bool|uchar>
 *   fused_dropout_kernel<float|Half|BFloat16, float, unsigned int|unsigned long, A, B,
 *                        bool|uchar>
 *     (F.dropout / native_dropout in training);
 *   the contiguous elementwise launches of masked_scale_kernel<bool, T, float> (T float,
 *     half, bfloat16)
 *     (dropout backward: grad * mask * scale; vectorized and uncast unrolled);
 *   rrelu_with_noise_cuda_kernel<float|double|Half|BFloat16, 4|2>
 *     (F.rrelu(training=True); its backward is an elementwise mul by noise);
 *   kernelPointwiseApply2 of bernoulli_tensor_cuda_kernel<scalar_t, float|double>
 *     (torch.bernoulli(p) / bernoulli_(p_tensor)): TensorInfo ret, TensorInfo
 *     p, total, the lambda holding the PhiloxCudaState;
 *   multinomial's renormRowsL1<float|double> and
 *     sampleMultinomialWithReplacement<float|double>.
 * Constant template arguments that only shape the launch or the memory
 * access (vector widths, TensorInfo dims specialisations, launch bounds,
 * 2.15's extra bool of vectorized_elementwise_kernel) are accepted at any
 * value; the decoder reads every operand through its TensorInfo or as a
 * contiguous array, which those do not change.
 *
 * Parameter layouts (sm_80 cubins, the same in torch 2.11 to 2.15; checked
 * against the SASS of the kernels):
 *   distribution kernel: numel int64 @0, PhiloxCudaState @8 (32 bytes:
 *     seed_ @0 and offset_ @8, each a value or, when captured_, a pointer;
 *     offset_intragraph_ uint64 @16; captured_ bool @24), the dist lambda
 *     (empty) @40, the element lambda @48.  Element lambda, trivial:
 *     out_data @0, stride0 int32 @8, the transform's captures @12 or @16
 *     (8-aligned ones); with OffsetCalculator<1, uint32>: dims @0,
 *     IntDivider sizes[25] (12 bytes each) @4, strides[25] @304, out_data
 *     @408, captures @416.  The captures are the transform functor, a
 *     struct of the kind's parameters (an empty one takes a byte), so the
 *     element lambda's size follows from the kind (lambda_size()).
 *   dropout: TensorInfo a, b, c (data, sizes[25], strides[25], dims; index
 *     type uint32 or uint64), total, p (keep probability), PhiloxCudaState.
 *   bernoulli tensor: TensorInfo ret, TensorInfo p, total (index type), the
 *     lambda (32 bytes: the PhiloxCudaState).
 *   masked_scale: (int N, lambda (16 bytes, scale a float @0), char*
 *     data[3]) vectorized; unrolled adds the two TrivialOffsetCalculators
 *     and the uncast loader and storer (1 byte each).
 *   multinomial: renormRowsL1(T* dist, int64 rows, int64 cols);
 *     sampleMultinomialWithReplacement(PhiloxCudaState, int totalSamples,
 *     int64* dest, int64 distributions, int categories, const T* prefix
 *     sum, const T* dist).
 *   rrelu: (int numel, PhiloxCudaState, T* output, const T* input, T*
 *     noise, double lower, double upper, const F& random_func (a pointer,
 *     not read)).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"

typedef enum rkind {
    RK_DIST = 1,       /* distribution_elementwise_grid_stride_kernel */
    RK_DROPOUT_VEC,
    RK_DROPOUT,
    RK_BERNOULLI_TENSOR,  /* kernelPointwiseApply2<bernoulli_tensor_cuda_kernel lambda> */
    RK_MASKED_SCALE,      /* dropout backward: contiguous elementwise launch   */
    RK_RENORM_ROWS,       /* multinomial's renormRowsL1<scalar_t>               */
    RK_MULTINOMIAL,       /* sampleMultinomialWithReplacement<scalar_t>         */
    RK_RRELU,             /* rrelu_with_noise_cuda_kernel<scalar_t, unroll>     */
} rkind;

typedef struct rcookie {
    rkind rk;
    tfl_random_kind kind;
    int offset_calc;       /* distribution: element lambda with OffsetCalculator */
    tfl_dtype dtype, acc;  /* distribution: output type; F32/F64 draws        */
    int bits;              /* integer draws: 32 or 64                         */
    int full_range;        /* random_ without bounds: range from the dtype    */
    int wide_index;        /* dropout: uint64 TensorInfo                         */
    int vec;               /* dropout_vec: VEC                                   */
    int unrolled;          /* masked_scale: the unrolled (not vectorized) form   */
    tfl_dtype mask_dtype;
    tfl_dtype in_dtype;    /* bernoulli tensor: probability type          */
    const char *op;
} rcookie;

/* ------------------------------------------------------------- match */

static int has_suffix(const char *s, size_t len, const char *tail)
{
    size_t n = strlen(tail);
    return len >= n && memcmp(s + len - n, tail, n) == 0;
}

static int has_prefix(const char *s, size_t len, const char *pre)
{
    size_t n = strlen(pre);
    return len >= n && memcmp(s, pre, n) == 0;
}

/* Does [s, s+len) equal str? */
static int same(const char *s, size_t len, const char *str)
{
    return len == strlen(str) && memcmp(s, str, len) == 0;
}

/* The element types the integer-valued kernels write (random_, randint,
 * bernoulli(p_tensor)): no short, no half for bernoulli's tensor form. */
static int int_scalar(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F64 || t == TFL_DT_I64 || t == TFL_DT_I32 ||
           t == TFL_DT_I8 || t == TFL_DT_U8 || t == TFL_DT_BOOL;
}

/* A demangled "NAME<args...>(...)::..." at s (len bytes, inside a
 * NUL-terminated name): its template arguments (up to max), or -1 when s
 * does not start with prefix + '<'. */
static int inner_targs(const char *s, size_t len, const char *prefix, const char **a,
                       size_t *al, int max)
{
    size_t n = strlen(prefix);
    if (len <= n || memcmp(s, prefix, n) != 0 || s[n] != '<')
        return -1;
    const char *e = tfl_pt_match_angle(s + n);
    if (!e || e >= s + len)
        return -1;
    return tfl_pt_template_args(s + n, a, al, max);
}

/* The distribution ops: the op function's name, the transform that wraps
 * it for floating draws (uniform_/normal_and_transform) or NULL for the
 * integer ones, whose element lambda is the op's own. */
static const struct {
    const char *fn;
    const char *transform;
    tfl_random_kind kind;
    int full_range;          /* 1: random_(), 2: the whole int64 range */
} dist_ops[] = {
    { "uniform_kernel", "uniform_and_transform", TFL_RANDOM_UNIFORM, 0 },
    { "normal_kernel", "normal_and_transform", TFL_RANDOM_NORMAL, 0 },
    { "bernoulli_kernel", "uniform_and_transform", TFL_RANDOM_BERNOULLI, 0 },
    { "exponential_kernel", "uniform_and_transform", TFL_RANDOM_EXPONENTIAL, 0 },
    { "cauchy_kernel", "uniform_and_transform", TFL_RANDOM_CAUCHY, 0 },
    { "log_normal_kernel", "normal_and_transform", TFL_RANDOM_LOG_NORMAL, 0 },
    { "geometric_kernel", "uniform_and_transform", TFL_RANDOM_GEOMETRIC, 0 },
    { "random_from_to_kernel", NULL, TFL_RANDOM_INT_FROM_TO, 0 },
    { "random_kernel", NULL, TFL_RANDOM_INT_FROM_TO, 1 },
    { "random_full_64_bits_range_kernel", NULL, TFL_RANDOM_INT_FROM_TO, 2 },
};

static const char *dist_op_names[] = {
    [TFL_RANDOM_UNIFORM] = "uniform", [TFL_RANDOM_NORMAL] = "normal",
    [TFL_RANDOM_BERNOULLI] = "bernoulli", [TFL_RANDOM_EXPONENTIAL] = "exponential",
    [TFL_RANDOM_CAUCHY] = "cauchy", [TFL_RANDOM_LOG_NORMAL] = "log_normal",
    [TFL_RANDOM_GEOMETRIC] = "geometric",
};

/* The draw types: distribution_elementwise_grid_stride_kernel<draw, unroll>
 * and distribution_nullary_kernel<scalar_t, draw, dist_t>. */
static const struct {
    const char *draw;
    long long unroll;
    const char *dist_t;
    tfl_dtype acc;           /* floating draws (integer ones: unused, F32 = 0) */
    int bits;                /* integer draws                                 */
} draws[] = {
    { "float", 4, "float4", TFL_DT_F32, 0 },
    { "double", 2, "double2", TFL_DT_F64, 0 },
    { "unsigned int", 4, "uint4", TFL_DT_F32, 32 },
    { "unsigned long", 2, "ulonglong2", TFL_DT_F32, 64 },
};

/* The op behind a transform functor: "templates::cuda::<op>_kernel<...>(". */
static int dist_op_of(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof dist_ops / sizeof dist_ops[0]; i++) {
        char want[96];
        snprintf(want, sizeof want, "templates::cuda::%s<", dist_ops[i].fn);
        if (has_prefix(s, len, want))
            return (int)i;
    }
    return -1;
}

/* The op of a distribution_nullary_kernel from its dist lambda dl and
 * transform tr: for integer draws both are the op's own lambdas; for
 * floating draws tr is the op's lambda and dl the one of
 * <uniform|normal>_and_transform<scalar_t, draw, RNG, tr> the op uses.
 * -1 if neither. */
static int dist_op(const char *dl, size_t dll, const char *tr, size_t trl, const char *scalar,
                   size_t sl, const char *draw)
{
    int op = dist_op_of(tr, trl);
    if (op < 0)
        return -1;
    if (!dist_ops[op].transform)
        return dist_op_of(dl, dll) == op ? op : -1;
    char pre[64];
    const char *a[5];
    size_t al[5];
    snprintf(pre, sizeof pre, "templates::cuda::%s", dist_ops[op].transform);
    if (inner_targs(dl, dll, pre, a, al, 5) != 4 || al[0] != sl ||
        memcmp(a[0], scalar, sl) != 0 || !same(a[1], al[1], draw))
        return -1;
    return op;
}

/* Which scalar types an op writes from a draw type (the instances the
 * host op implements). */
static int dist_scalar_ok(int op, int d, tfl_dtype t)
{
    if (draws[d].bits)                       /* integer draws: random_, randint */
        return dist_ops[op].transform == NULL &&
               (int_scalar(t) || t == TFL_DT_F16 || t == TFL_DT_BF16) &&
               (dist_ops[op].full_range != 2 || draws[d].bits == 64);
    if (dist_ops[op].transform == NULL)
        return 0;
    if (draws[d].acc == TFL_DT_F64)
        return t == TFL_DT_F64;
    if (t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16)
        return 1;
    /* geometric_ into an integer type: float draws and transform */
    return dist_ops[op].kind == TFL_RANDOM_GEOMETRIC && int_scalar(t) && t != TFL_DT_BOOL &&
           t != TFL_DT_F64;
}

/* distribution_elementwise_grid_stride_kernel<draw, unroll, dist lambda,
 * element lambda> whose element lambda is distribution_nullary_kernel<
 * scalar_t, draw, dist_t, RNG, dist lambda, transform>(...)::{lambda(int,
 * draw)#1|#2} (#1 the trivial-1d launch, #2 the OffsetCalculator one).
 * dist_t (what the dist lambda returns) must be the draw type's: up to
 * 2.14 the floating transforms also instantiate, never to launch, the
 * float4 kernel for double and the double2 one for float. */
static int match_dist(const tfl_kname *k, rcookie *c)
{
    long long unroll;
    int d = -1;
    if (k->ntargs != 4 || k->nparams != 4 || !tfl_kname_targ_int(k, 1, &unroll))
        return 0;
    for (size_t i = 0; i < sizeof draws / sizeof draws[0]; i++)
        if (tfl_kname_targ_is(k, 0, draws[i].draw) && unroll == draws[i].unroll)
            d = (int)i;
    const char *a[7];
    size_t al[7];
    const char *el = k->targ[3];
    size_t ell = k->targ_len[3];
    if (d < 0 || inner_targs(el, ell, "distribution_nullary_kernel", a, al, 7) != 6 ||
        !same(a[1], al[1], draws[d].draw) || !same(a[2], al[2], draws[d].dist_t) ||
        !tfl_pt_type_name(a[0], al[0], &c->dtype))
        return 0;
    char tail[64];
    snprintf(tail, sizeof tail, "::{lambda(int, %s)#1}", draws[d].draw);
    if (has_suffix(el, ell, tail)) {
        c->offset_calc = 0;
    } else {
        snprintf(tail, sizeof tail, "::{lambda(int, %s)#2}", draws[d].draw);
        if (!has_suffix(el, ell, tail))
            return 0;
        c->offset_calc = 1;
    }
    int op = dist_op(a[4], al[4], a[5], al[5], a[0], al[0], draws[d].draw);
    if (op < 0 || !dist_scalar_ok(op, d, c->dtype))
        return 0;
    c->kind = dist_ops[op].kind;
    c->full_range = dist_ops[op].full_range;
    c->bits = draws[d].bits;
    c->acc = draws[d].acc;
    c->op = c->kind == TFL_RANDOM_INT_FROM_TO ? (c->full_range ? "random" : "random_from_to")
                                              : dist_op_names[c->kind];
    c->rk = RK_DIST;
    return 1;
}

/* random_()'s modulus for a dtype: transformation::uniform_int (bool: 2,
 * integers: max + 1, floating: 2^digits + 1). */
static uint64_t full_range_of(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_BOOL: return 2;
    case TFL_DT_I64: return (uint64_t)1 << 63;
    case TFL_DT_I32: return (uint64_t)1 << 31;
    case TFL_DT_I8: return 128;
    case TFL_DT_U8: return 256;
    case TFL_DT_F32: return ((uint64_t)1 << 24) + 1;
    case TFL_DT_F64: return ((uint64_t)1 << 53) + 1;
    case TFL_DT_F16: return ((uint64_t)1 << 11) + 1;
    case TFL_DT_BF16: return ((uint64_t)1 << 8) + 1;
    default: return 0;
    }
}

/* The TensorInfo index type: 0 uint32, 1 uint64, -1 neither. */
static int index_type(const tfl_kname *k, int i)
{
    return tfl_kname_targ_is(k, i, "unsigned int") ? 0
         : tfl_kname_targ_is(k, i, "unsigned long") ? 1 : -1;
}

/* fused_dropout_kernel_vec<scalar_t, float, IndexType, ADims = 1, VEC, mask_t>
 * fused_dropout_kernel<scalar_t, float, IndexType, ADims, BDims, mask_t>
 * (a, b, c, total, p, PhiloxCudaState).  The vectorised kernel indexes
 * contiguous arrays (ADims 1); the other reads every TensorInfo in full,
 * whatever dims it was specialised for. */
static int match_dropout(const tfl_kname *k, rcookie *c, int vec)
{
    long long dims, v;
    if (k->ntargs != 6 || k->nparams != 6 || !tfl_kname_targ_dtype(k, 0, &c->dtype) ||
        (c->dtype != TFL_DT_F32 && c->dtype != TFL_DT_F16 && c->dtype != TFL_DT_BF16) ||
        !tfl_kname_targ_is(k, 1, "float") || (c->wide_index = index_type(k, 2)) < 0 ||
        !tfl_kname_targ_int(k, 3, &dims) || !tfl_kname_targ_int(k, 4, &v) ||
        !tfl_kname_targ_dtype(k, 5, &c->mask_dtype) ||
        (c->mask_dtype != TFL_DT_BOOL && c->mask_dtype != TFL_DT_U8))
        return 0;
    if (vec) {
        if (dims != 1 || (v != 2 && v != 4 && v != 8 && v != 16))
            return 0;
        c->vec = (int)v;
        c->rk = RK_DROPOUT_VEC;
    } else {
        c->rk = RK_DROPOUT;
    }
    c->kind = TFL_RANDOM_DROPOUT;
    c->op = "dropout";
    return 1;
}

/* kernelPointwiseApply2<Op, scalar_t, prob_t const, IndexType, ADims, BDims,
 * 4, 512, min blocks> with Op the lambda of bernoulli_tensor_cuda_kernel<
 * scalar_t, prob_t>, which draws 4 elements per call (step 4). */
static int match_bernoulli_tensor(const tfl_kname *k, rcookie *c)
{
    const char *a[3];
    size_t al[3];
    long long v;
    if (k->ntargs != 9 || k->nparams != 4 ||
        inner_targs(k->targ[0], k->targ_len[0], "templates::cuda::bernoulli_tensor_cuda_kernel",
                    a, al, 3) != 2 ||
        !has_suffix(k->targ[0], k->targ_len[0], ")#1}") ||
        !tfl_pt_type_name(a[0], al[0], &c->dtype) || !int_scalar(c->dtype) ||
        !tfl_pt_type_name(a[1], al[1], &c->in_dtype) ||
        (c->in_dtype != TFL_DT_F32 && c->in_dtype != TFL_DT_F64) ||
        k->targ_len[1] != al[0] || memcmp(k->targ[1], a[0], al[0]) != 0 ||
        k->targ_len[2] != al[1] + 6 || memcmp(k->targ[2], a[1], al[1]) != 0 ||
        memcmp(k->targ[2] + al[1], " const", 6) != 0 ||
        (c->wide_index = index_type(k, 3)) < 0)
        return 0;
    for (int i = 4; i < 9; i++)
        if (!tfl_kname_targ_int(k, i, &v) || (i == 6 && v != 4) || (i == 7 && v != 512))
            return 0;
    c->rk = RK_BERNOULLI_TENSOR;
    c->kind = TFL_RANDOM_BERNOULLI_TENSOR;
    c->op = "bernoulli";
    return 1;
}

/* native_dropout_backward: masked_scale_kernel<bool, scalar_t, float>'s
 * lambda in the contiguous elementwise kernels
 * vectorized_elementwise_kernel<VEC, f, array<char*, 3> [, bool (2.15+)]>
 * (int N, f, data) and unrolled_elementwise_kernel<f, array<char*, 3>, 4,
 * TrivialOffsetCalculator<2>, TrivialOffsetCalculator<1>, LoadWithoutCast,
 * StoreWithoutCast> (same first three parameters); data = { out, src,
 * mask }.  VEC and 2.15's bool only choose the vector loads. */
static int match_masked_scale(const tfl_kname *k, rcookie *c, int unrolled)
{
    int f = unrolled ? 0 : 1;
    const char *a[4];
    size_t al[4];
    long long v;
    if (inner_targs(k->targ[f], k->targ_len[f], "masked_scale_kernel", a, al, 4) != 3 ||
        !same(a[0], al[0], "bool") || !same(a[2], al[2], "float") ||
        !tfl_pt_type_name(a[1], al[1], &c->dtype) ||
        (c->dtype != TFL_DT_F32 && c->dtype != TFL_DT_F16 && c->dtype != TFL_DT_BF16) ||
        !tfl_kname_targ_is(k, f + 1, "std::array<char*, 3ul>") || k->nparams != (unrolled ? 7 : 3))
        return 0;
    char tail[64];
    snprintf(tail, sizeof tail, "::{lambda(%.*s, bool)#1}", (int)al[1], a[1]);
    if (!has_suffix(k->targ[f], k->targ_len[f], tail))
        return 0;
    if (unrolled) {
        static const char *rest[] = { "4", "TrivialOffsetCalculator<2, unsigned int>",
                                      "TrivialOffsetCalculator<1, unsigned int>",
                                      "memory::LoadWithoutCast", "memory::StoreWithoutCast" };
        if (k->ntargs != 7)
            return 0;
        for (int i = 0; i < 5; i++)
            if (!tfl_kname_targ_is(k, 2 + i, rest[i]))
                return 0;
    } else {
        if (k->ntargs < 3 || !tfl_kname_targ_int(k, 0, &v))
            return 0;
        for (int i = 3; i < k->ntargs; i++)
            if (!tfl_kname_targ_int(k, i, &v))
                return 0;
    }
    c->unrolled = unrolled;
    c->rk = RK_MASKED_SCALE;
    c->kind = TFL_RANDOM_MASKED_SCALE;
    c->op = "dropout_backward";
    return 1;
}

/* renormRowsL1<float|double>(scalar_t *dist, long rows, long cols) and
 * sampleMultinomialWithReplacement<float|double>(PhiloxCudaState, int
 * totalSamples, long *dest, long distributions, int categories, const
 * scalar_t *prefix_sum, const scalar_t *dist) of MultinomialKernel.cu. */
static int match_multinomial(const tfl_kname *k, rcookie *c, int sample)
{
    if (k->ntargs != 1 || !tfl_kname_targ_dtype(k, 0, &c->dtype) ||
        (c->dtype != TFL_DT_F32 && c->dtype != TFL_DT_F64) ||
        k->nparams != (sample ? 7 : 3) ||
        !tfl_kname_param_is(k, 0, sample ? "at::PhiloxCudaState" : c->dtype == TFL_DT_F32
                                                                   ? "float*" : "double*"))
        return 0;
    c->rk = sample ? RK_MULTINOMIAL : RK_RENORM_ROWS;
    c->kind = sample ? TFL_RANDOM_MULTINOMIAL : TFL_RANDOM_RENORM_ROWS;
    c->op = sample ? "multinomial" : "multinomial_renorm";
    return 1;
}

/* rrelu_with_noise_cuda_kernel<scalar_t, unroll, F>(int numel,
 * PhiloxCudaState, scalar_t *output, const scalar_t *input, scalar_t
 * *noise, double lower, double upper, const F &random_func): PyTorch runs
 * double with unroll 2 (curand_uniform2_double), the others with 4
 * (curand_uniform4); F only draws those. */
static int match_rrelu(const tfl_kname *k, rcookie *c)
{
    long long unroll;
    if (k->ntargs != 3 || k->nparams != 8 || !tfl_kname_targ_dtype(k, 0, &c->dtype) ||
        !tfl_kname_targ_int(k, 1, &unroll) || !tfl_kname_param_is(k, 1, "at::PhiloxCudaState"))
        return 0;
    if (c->dtype == TFL_DT_F64 ? unroll != 2
        : (c->dtype != TFL_DT_F32 && c->dtype != TFL_DT_F16 && c->dtype != TFL_DT_BF16) ||
          unroll != 4)
        return 0;
    c->acc = unroll == 2 ? TFL_DT_F64 : TFL_DT_F32;
    c->rk = RK_RRELU;
    c->kind = TFL_RANDOM_RRELU;
    c->op = "rrelu";
    return 1;
}

/* The kernels by base name; a cheap substring filter first. */
static int match_kname(const tfl_kname *k, rcookie *c)
{
    if (tfl_kname_is(k, "distribution_elementwise_grid_stride_kernel"))
        return match_dist(k, c);
    if (tfl_kname_is(k, "fused_dropout_kernel_vec"))
        return match_dropout(k, c, 1);
    if (tfl_kname_is(k, "fused_dropout_kernel"))
        return match_dropout(k, c, 0);
    if (tfl_kname_qualified(k, "at::cuda::kernelPointwiseApply2"))
        return match_bernoulli_tensor(k, c);
    if (tfl_kname_is(k, "vectorized_elementwise_kernel"))
        return match_masked_scale(k, c, 0);
    if (tfl_kname_is(k, "unrolled_elementwise_kernel"))
        return match_masked_scale(k, c, 1);
    if (tfl_kname_is(k, "renormRowsL1"))
        return match_multinomial(k, c, 0);
    if (tfl_kname_is(k, "sampleMultinomialWithReplacement"))
        return match_multinomial(k, c, 1);
    if (tfl_kname_is(k, "rrelu_with_noise_cuda_kernel"))
        return match_rrelu(k, c);
    return 0;
}

static int match(const char *mangled, void **cookie)
{
    static const char *const filters[] = {
        "distribution_elementwise_grid_stride_kernel", "fused_dropout_kernel",
        "bernoulli_tensor_cuda_kernel", "masked_scale_kernel", "renormRowsL1",
        "sampleMultinomialWithReplacement", "rrelu_with_noise_cuda_kernel",
    };
    if (!tfl_kname_mentions(mangled, filters, sizeof filters / sizeof filters[0]))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(mangled, &k) != 0)
        return 0;
    rcookie c;
    memset(&c, 0, sizeof c);
    int ok = match_kname(&k, &c);
    tfl_kname_free(&k);
    return ok && tfl_kcookie_keep(&c, sizeof c, cookie);
}

/* ------------------------------------------------------------ layout */

/* The transform functor a distribution kernel's element lambda captures:
 * its parameters in the accumulate type, as the decoder reads them. */
static void dist_captures(const rcookie *c, size_t *size, size_t *align)
{
    const int dbl = c->acc == TFL_DT_F64;
    const size_t a = dbl ? 8 : 4;
    size_t n = 0;                            /* parameters of size a */
    *align = a;
    switch (c->kind) {
    case TFL_RANDOM_UNIFORM:                 /* range, from, to */
        if (!dbl && (c->dtype == TFL_DT_F16 || c->dtype == TFL_DT_BF16)) {
            *size = 8;                       /* float range, 16-bit from and to */
            return;
        }
        n = 3;
        break;
    case TFL_RANDOM_NORMAL: case TFL_RANDOM_CAUCHY: case TFL_RANDOM_LOG_NORMAL:
        n = 2;
        break;
    case TFL_RANDOM_EXPONENTIAL:
        n = 1;
        break;
    case TFL_RANDOM_GEOMETRIC: case TFL_RANDOM_BERNOULLI:   /* p, a double */
        *size = *align = 8;
        return;
    default:                                 /* INT_FROM_TO: range, base or none */
        *size = c->full_range ? 1 : 16;      /* an empty functor takes a byte */
        *align = c->full_range ? 1 : 8;
        return;
    }
    *size = n * a;
}

/* The element lambda: { out, stride0, F } or { OffsetCalculator<1> (404
 * bytes), out, F }, aligned to its pointer. */
static size_t lambda_size(const rcookie *c)
{
    size_t fs, fa;
    dist_captures(c, &fs, &fa);
    size_t off = c->offset_calc ? 416 : 12;
    return tfl_pt_align(tfl_pt_align(off, fa) + fs, 8);
}

static int layout(void *cookie, tfl_klayout *l)
{
    const rcookie *c = cookie;
    char sig[96];
    const char *ti = c->wide_index ? "416:8" : "216:8";   /* TensorInfo<T, uint32|64> */
    const char *ix = c->wide_index ? "l" : "i";
    switch (c->rk) {
    case RK_DIST:
        snprintf(sig, sizeof sig, "l 32:8 b %zu:8", lambda_size(c));
        break;
    case RK_DROPOUT: case RK_DROPOUT_VEC:
        snprintf(sig, sizeof sig, "%s x2 %s f 32:8", ti, ix);
        break;
    case RK_BERNOULLI_TENSOR:
        snprintf(sig, sizeof sig, "%s x1 %s 32:8", ti, ix);
        break;
    case RK_MASKED_SCALE:
        snprintf(sig, sizeof sig, "i 16:8 24:8%s", c->unrolled ? " b x3" : "");
        break;
    case RK_RENORM_ROWS:
        snprintf(sig, sizeof sig, "p l l");
        break;
    case RK_MULTINOMIAL:
        snprintf(sig, sizeof sig, "32:8 i p l i p p");
        break;
    case RK_RRELU:
        snprintf(sig, sizeof sig, "i 32:8 p x2 d d p");
        break;
    default:
        return 0;
    }
    return tfl_klayout_sig(l, sig) == 0;
}

static const char *op_name(void *cookie)
{
    return cookie ? ((rcookie *)cookie)->op : "random";
}

/* ------------------------------------------------------------ decode */

static uint64_t rd_u64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd_u32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static float rd_f32(const void *p) { float v; memcpy(&v, p, 4); return v; }
static double rd_f64(const void *p) { double v; memcpy(&v, p, 8); return v; }

/* at::cuda::philox::unpack: values, or (under graph capture) pointers. */
static tfl_status unpack_philox(const unsigned char *st, uint64_t *seed, uint64_t *offset,
                                char *err, size_t errlen)
{
    if (!st[24]) {
        *seed = rd_u64(st);
        *offset = rd_u64(st + 8);
        return TFL_OK;
    }
    const void *ps = (const void *)(uintptr_t)rd_u64(st);
    const void *po = (const void *)(uintptr_t)rd_u64(st + 8);
    if (!tfl_mem_check_range(ps, 8, NULL) || !tfl_mem_check_range(po, 8, NULL)) {
        snprintf(err, errlen, "random: captured Philox seed/offset pointer %p/%p is not device memory",
                 ps, po);
        return TFL_ERR_INVALID;
    }
    *seed = rd_u64(ps);
    *offset = rd_u64(po) + rd_u64(st + 16);
    return TFL_OK;
}

/* Check that every element of a view lies in one allocation. */
static tfl_status check_view(const tfl_random_view *v, int64_t numel, size_t esz,
                             const char *what, char *err, size_t errlen)
{
    if (numel == 0)
        return TFL_OK;
    int64_t lo = 0, hi = 0;
    if (v->ndim == 0) {
        hi = (numel - 1) * (int64_t)esz;
    } else {
        for (int d = 0; d < v->ndim; d++) {
            int64_t span = (v->sizes[d] - 1) * v->strides[d];
            if (span < 0) lo += span; else hi += span;
        }
    }
    const char *base = (const char *)v->data + lo;
    if (!v->data || !tfl_mem_check_range(base, (size_t)(hi - lo) + esz, NULL)) {
        snprintf(err, errlen, "random: %s range at %p (+%lld bytes) is not device memory",
                 what, (const void *)base, (long long)(hi - lo + (int64_t)esz));
        return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

/* OffsetCalculator<1, uint32> -> view (dim 0 fastest, byte strides). */
static int view_from_offset_calc(const unsigned char *oc, void *data, int64_t numel,
                                 tfl_random_view *v)
{
    int dims = (int)rd_u32(oc);
    if (dims < 0 || dims > TFL_RANDOM_MAX_DIMS)
        return 0;
    v->data = data;
    v->ndim = dims;
    int64_t prod = 1;
    for (int d = 0; d < dims; d++) {
        v->sizes[d] = rd_u32(oc + 4 + 12 * d);          /* IntDivider.divisor */
        v->strides[d] = rd_u32(oc + 304 + 4 * d);       /* bytes, uint32       */
        if (v->sizes[d] <= 0)
            return 0;
        prod *= v->sizes[d];
    }
    if (dims == 0) {               /* a scalar: one element at data */
        v->ndim = 1;
        v->sizes[0] = 1;
        v->strides[0] = 0;
        prod = 1;
    }
    return prod == numel;
}

/* TensorInfo<T, uint32|uint64> -> view.  TensorInfo's last dim is the
 * innermost one; views peel dim 0 first, so the order is reversed. */
static int view_from_tensor_info(const unsigned char *ti, int wide, size_t esz,
                                 int64_t numel, tfl_random_view *v)
{
    size_t isz = wide ? 8 : 4;
    int dims = (int)rd_u32(ti + 8 + 50 * isz);
    if (dims <= 0 || dims > TFL_RANDOM_MAX_DIMS)
        return 0;
    v->data = (void *)(uintptr_t)rd_u64(ti);
    v->ndim = dims;
    int64_t prod = 1;
    for (int d = 0; d < dims; d++) {
        const unsigned char *ps = ti + 8 + (size_t)(dims - 1 - d) * isz;
        const unsigned char *pt = ti + 8 + 25 * isz + (size_t)(dims - 1 - d) * isz;
        int64_t sz = wide ? (int64_t)rd_u64(ps) : (int64_t)rd_u32(ps);
        int64_t st = wide ? (int64_t)rd_u64(pt) : (int64_t)rd_u32(pt);
        if (sz <= 0)
            return 0;
        v->sizes[d] = sz;
        v->strides[d] = st * (int64_t)esz;
        prod *= sz;
    }
    return prod == numel;
}

static tfl_status decode_rrelu(const tfl_kcall *call, const rcookie *c, tfl_random_op *r,
                               char *err, size_t errlen)
{
    int32_t n = (int32_t)rd_u32(call->args[0]);
    tfl_status st = unpack_philox(call->args[1], &r->seed, &r->offset, err, errlen);
    if (st != TFL_OK)
        return st;
    if (n < 0)
        return TFL_ERR_UNSUPPORTED;
    r->numel = n;
    r->dtype = c->dtype;
    r->acc = c->acc;
    r->traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
    r->out.data = (void *)(uintptr_t)rd_u64(call->args[2]);
    r->in.data = (void *)(uintptr_t)rd_u64(call->args[3]);
    r->mask.data = (void *)(uintptr_t)rd_u64(call->args[4]);
    double lower = rd_f64(call->args[5]), upper = rd_f64(call->args[6]);
    r->a = lower;
    r->b = upper - lower;
    const size_t esz = tfl_dtype_size(c->dtype);
    if ((st = check_view(&r->out, n, esz, "rrelu output", err, errlen)) != TFL_OK ||
        (st = check_view(&r->in, n, esz, "rrelu input", err, errlen)) != TFL_OK ||
        (st = check_view(&r->mask, n, esz, "rrelu noise", err, errlen)) != TFL_OK)
        return st;
    return TFL_OK;
}

static tfl_status decode_dist(const tfl_kcall *call, const rcookie *c, tfl_random_op *r,
                              char *err, size_t errlen)
{
    int64_t numel = (int64_t)rd_u64(call->args[0]);
    tfl_status st = unpack_philox(call->args[1], &r->seed, &r->offset, err, errlen);
    if (st != TFL_OK)
        return st;
    const unsigned char *lam = call->args[3];
    void *out;
    size_t esz = tfl_dtype_size(c->dtype);
    if (numel < 0)
        return TFL_ERR_UNSUPPORTED;
    r->numel = numel;
    r->dtype = c->dtype;
    r->acc = c->acc;
    r->bits = c->bits;
    /* captures follow out_data and stride0 (trivial) or the
     * OffsetCalculator and out_data: 4-byte ones packed at 12, 8-byte
     * ones aligned to 16 (trivial) or at 416 */
    const unsigned char *cap4, *cap8;
    if (!c->offset_calc) {
        out = (void *)(uintptr_t)rd_u64(lam);
        int32_t stride0 = (int32_t)rd_u32(lam + 8);
        r->out.data = out;
        r->out.ndim = stride0 == (int32_t)esz ? 0 : 1;   /* 0: contiguous */
        r->out.sizes[0] = numel > 0 ? numel : 1;
        r->out.strides[0] = stride0;
        cap4 = lam + 12;
        cap8 = lam + 16;
    } else {
        out = (void *)(uintptr_t)rd_u64(lam + 408);
        if (!view_from_offset_calc(lam, out, numel, &r->out))
            return TFL_ERR_UNSUPPORTED;
        cap4 = cap8 = lam + 416;
    }
    const int dbl = c->acc == TFL_DT_F64;
    switch (c->kind) {
    case TFL_RANDOM_UNIFORM:               /* [range, from, to] */
        if (dbl) {
            r->a = rd_f64(cap8); r->b = rd_f64(cap8 + 8); r->c = rd_f64(cap8 + 16);
        } else if (c->dtype == TFL_DT_F16 || c->dtype == TFL_DT_BF16) {
            /* range is float (opmath), from and to are the scalar type */
            uint16_t f, t;
            memcpy(&f, cap4 + 4, 2);
            memcpy(&t, cap4 + 6, 2);
            r->a = rd_f32(cap4);
            r->b = c->dtype == TFL_DT_F16 ? tfl_pt_half_to_float(f) : tfl_pt_bf16_to_float(f);
            r->c = c->dtype == TFL_DT_F16 ? tfl_pt_half_to_float(t) : tfl_pt_bf16_to_float(t);
        } else {
            r->a = rd_f32(cap4); r->b = rd_f32(cap4 + 4); r->c = rd_f32(cap4 + 8);
        }
        break;
    case TFL_RANDOM_NORMAL:                /* [mean, std] */
        if (dbl) {
            r->b = rd_f64(cap8); r->a = rd_f64(cap8 + 8);
        } else {
            r->b = rd_f32(cap4); r->a = rd_f32(cap4 + 4);
        }
        break;
    case TFL_RANDOM_EXPONENTIAL:           /* [lambda] in the accumulate type */
        r->a = dbl ? rd_f64(cap8) : rd_f32(cap4);
        break;
    case TFL_RANDOM_CAUCHY:                /* [median, sigma] accumulate type */
    case TFL_RANDOM_LOG_NORMAL:            /* [mean, std] accumulate type    */
        if (dbl) {
            r->a = rd_f64(cap8); r->b = rd_f64(cap8 + 8);
        } else {
            r->a = rd_f32(cap4); r->b = rd_f32(cap4 + 4);
        }
        break;
    case TFL_RANDOM_GEOMETRIC:             /* [p] double, rounded to acc   */
        r->a = dbl ? rd_f64(cap8) : (double)(float)rd_f64(cap8);
        break;
    case TFL_RANDOM_BERNOULLI:             /* [p] double; a float kernel rounds it */
        r->a = dbl ? rd_f64(cap8) : (double)(float)rd_f64(cap8);
        break;
    case TFL_RANDOM_INT_FROM_TO:
        if (c->full_range == 1) {          /* random_(): no captures */
            r->range = full_range_of(c->dtype);
            r->base = 0;
        } else if (c->full_range == 2) {   /* the whole int64 range */
            r->range = 0;
            r->base = 0;
        } else {                           /* [range uint64, base int64] */
            r->range = rd_u64(cap8);
            r->base = (int64_t)rd_u64(cap8 + 8);
            if (r->range == 0)
                return TFL_ERR_UNSUPPORTED;
        }
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    r->traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
    return check_view(&r->out, numel, esz, "output", err, errlen);
}

static tfl_status decode_dropout(const tfl_kcall *call, const rcookie *c, tfl_random_op *r,
                                 char *err, size_t errlen)
{
    const unsigned char *a = call->args[0], *b = call->args[1], *m = call->args[2];
    int64_t total = c->wide_index ? (int64_t)rd_u64(call->args[3])
                                  : (int64_t)rd_u32(call->args[3]);
    r->a = rd_f32(call->args[4]);
    tfl_status st = unpack_philox(call->args[5], &r->seed, &r->offset, err, errlen);
    if (st != TFL_OK)
        return st;
    if (total < 0 || !(r->a > 0.0f))
        return TFL_ERR_UNSUPPORTED;
    r->numel = total;
    r->dtype = c->dtype;
    r->acc = TFL_DT_F32;
    r->mask_dtype = c->mask_dtype;
    const size_t esz = tfl_dtype_size(c->dtype);
    if (c->rk == RK_DROPOUT_VEC) {
        /* the vectorised kernel indexes all three as contiguous arrays */
        r->traverse = TFL_RANDOM_TRAVERSE_VEC;
        r->vec = c->vec;
        r->in.data = (void *)(uintptr_t)rd_u64(a);
        r->out.data = (void *)(uintptr_t)rd_u64(b);
        r->mask.data = (void *)(uintptr_t)rd_u64(m);
    } else {
        r->traverse = TFL_RANDOM_TRAVERSE_GRID_STRIDE;
        if (total > 0) {
            if (!view_from_tensor_info(a, c->wide_index, esz, total, &r->in) ||
                !view_from_tensor_info(b, c->wide_index, esz, total, &r->out))
                return TFL_ERR_UNSUPPORTED;
            /* the mask is written at b's offsets (c.data[bOffset]) */
            r->mask = r->out;
            r->mask.data = (void *)(uintptr_t)rd_u64(m);
            for (int d = 0; d < r->mask.ndim; d++)
                r->mask.strides[d] /= (int64_t)esz;
        }
    }
    if ((st = check_view(&r->in, total, esz, "dropout input", err, errlen)) != TFL_OK ||
        (st = check_view(&r->out, total, esz, "dropout output", err, errlen)) != TFL_OK ||
        (st = check_view(&r->mask, total, 1, "dropout mask", err, errlen)) != TFL_OK)
        return st;
    return TFL_OK;
}

/* (TensorInfo<scalar_t> ret, TensorInfo<prob_t> p, IndexType total,
 *  lambda{PhiloxCudaState}) */
static tfl_status decode_bernoulli_tensor(const tfl_kcall *call, const rcookie *c,
                                          tfl_random_op *r, char *err, size_t errlen)
{
    int64_t total = c->wide_index ? (int64_t)rd_u64(call->args[2])
                                  : (int64_t)rd_u32(call->args[2]);
    tfl_status st = unpack_philox(call->args[3], &r->seed, &r->offset, err, errlen);
    if (st != TFL_OK)
        return st;
    if (total < 0)
        return TFL_ERR_UNSUPPORTED;
    r->numel = total;
    r->dtype = c->dtype;
    r->in_dtype = c->in_dtype;
    r->acc = TFL_DT_F32;
    r->traverse = TFL_RANDOM_TRAVERSE_APPLY4;
    size_t osz = tfl_dtype_size(c->dtype), psz = tfl_dtype_size(c->in_dtype);
    if (total > 0 &&
        (!view_from_tensor_info(call->args[0], c->wide_index, osz, total, &r->out) ||
         !view_from_tensor_info(call->args[1], c->wide_index, psz, total, &r->in)))
        return TFL_ERR_UNSUPPORTED;
    if ((st = check_view(&r->out, total, osz, "bernoulli output", err, errlen)) != TFL_OK ||
        (st = check_view(&r->in, total, psz, "bernoulli probabilities", err, errlen)) != TFL_OK)
        return st;
    return TFL_OK;
}

static tfl_status run_masked_scale(const tfl_kcall *call, const rcookie *c, char *err,
                                   size_t errlen)
{
    int32_t n = (int32_t)rd_u32(call->args[0]);
    const unsigned char *lam = call->args[1];
    const unsigned char *data = call->args[2];
    if (n < 0)
        return TFL_ERR_UNSUPPORTED;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_RANDOM;
    op.name = c->op;
    tfl_random_op *r = &op.u.random;
    r->kind = TFL_RANDOM_MASKED_SCALE;
    r->numel = n;
    r->dtype = c->dtype;
    r->mask_dtype = TFL_DT_BOOL;
    r->a = rd_f32(lam);
    const size_t esz = tfl_dtype_size(c->dtype);
    r->out.data = (void *)(uintptr_t)rd_u64(data);
    r->in.data = (void *)(uintptr_t)rd_u64(data + 8);
    r->mask.data = (void *)(uintptr_t)rd_u64(data + 16);
    tfl_status st;
    if ((st = check_view(&r->out, n, esz, "dropout backward output", err, errlen)) != TFL_OK ||
        (st = check_view(&r->in, n, esz, "dropout backward input", err, errlen)) != TFL_OK ||
        (st = check_view(&r->mask, n, 1, "dropout mask", err, errlen)) != TFL_OK)
        return st;
    if (n == 0)
        return TFL_OK;
    return tfl_route_op(&op, call->stream);
}

/* renormRowsL1 (dist, rows, cols) or sampleMultinomialWithReplacement
 * (philox @0, totalSamples int @32, dest @40, distributions @48,
 * categories int @56, prefix sum @64, dist @72): contiguous rows x cols
 * matrices of the element type, dest rows x totalSamples int64. */
static tfl_status run_multinomial(const tfl_kcall *call, const rcookie *c, char *err,
                                  size_t errlen)
{
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_RANDOM;
    op.name = c->op;
    tfl_random_op *r = &op.u.random;
    r->kind = c->kind;
    r->dtype = r->acc = c->dtype;
    const size_t esz = tfl_dtype_size(c->dtype);
    tfl_status st;
    if (c->rk == RK_RENORM_ROWS) {
        r->out.data = (void *)(uintptr_t)rd_u64(call->args[0]);
        r->rows = (int64_t)rd_u64(call->args[1]);
        r->cols = (int64_t)rd_u64(call->args[2]);
        if (r->rows < 0 || r->cols < 0 || (r->cols && r->rows > INT64_MAX / r->cols))
            return TFL_ERR_UNSUPPORTED;
        r->numel = r->rows * r->cols;
        if (r->numel == 0)
            return TFL_OK;
        if ((st = check_view(&r->out, r->numel, esz, "multinomial rows", err, errlen)) != TFL_OK)
            return st;
        return tfl_route_op(&op, call->stream);
    }
    /* one thread index per (blockIdx.y, blockIdx.x, threadIdx.x) */
    if (call->grid[2] != 1 || call->block[1] != 1 || call->block[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    if ((st = unpack_philox(call->args[0], &r->seed, &r->offset, err, errlen)) != TFL_OK)
        return st;
    r->samples = (int32_t)rd_u32(call->args[1]);
    r->out.data = (void *)(uintptr_t)rd_u64(call->args[2]);
    r->rows = (int64_t)rd_u64(call->args[3]);
    r->cols = (int32_t)rd_u32(call->args[4]);
    r->mask.data = (void *)(uintptr_t)rd_u64(call->args[5]);
    r->in.data = (void *)(uintptr_t)rd_u64(call->args[6]);
    r->grid_x = call->grid[0];
    r->grid_y = call->grid[1];
    r->block_x = call->block[0];
    if (r->samples < 0 || r->rows < 0 || r->cols < 0 ||
        (r->cols && r->rows > INT64_MAX / r->cols / 8) ||
        (r->samples && r->rows > INT64_MAX / r->samples / 8))
        return TFL_ERR_UNSUPPORTED;
    if (r->rows == 0 || r->samples == 0)
        return TFL_OK;
    if (r->cols == 0) {
        snprintf(err, errlen, "multinomial: no categories");
        return TFL_ERR_INVALID;
    }
    r->numel = r->rows * r->samples;
    if ((st = check_view(&r->out, r->numel, 8, "multinomial output", err, errlen)) != TFL_OK ||
        (st = check_view(&r->in, r->rows * r->cols, esz, "multinomial probabilities", err,
                         errlen)) != TFL_OK ||
        (st = check_view(&r->mask, r->rows * r->cols, esz, "multinomial prefix sums", err,
                         errlen)) != TFL_OK)
        return st;
    return tfl_route_op(&op, call->stream);
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const rcookie *c = cookie;
    if (!c || !call->args)
        return TFL_ERR_UNSUPPORTED;
    if (c->rk == RK_MASKED_SCALE)
        return run_masked_scale(call, c, err, errlen);
    if (c->rk == RK_RENORM_ROWS || c->rk == RK_MULTINOMIAL)
        return run_multinomial(call, c, err, errlen);
    /* PyTorch launches these 1-d: thread = blockIdx.x * blockDim.x + threadIdx.x */
    if (call->grid[1] != 1 || call->grid[2] != 1 || call->block[1] != 1 || call->block[2] != 1)
        return TFL_ERR_UNSUPPORTED;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_RANDOM;
    op.name = c->op;
    tfl_random_op *r = &op.u.random;
    r->kind = c->kind;
    r->threads = (uint64_t)call->grid[0] * call->block[0];
    tfl_status st = c->rk == RK_DIST ? decode_dist(call, c, r, err, errlen)
                  : c->rk == RK_RRELU ? decode_rrelu(call, c, r, err, errlen)
                  : c->rk == RK_BERNOULLI_TENSOR ? decode_bernoulli_tensor(call, c, r, err, errlen)
                  : decode_dropout(call, c, r, err, errlen);
    if (st != TFL_OK)
        return st;
    if (r->numel == 0 || r->threads == 0)
        return TFL_OK;
    st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED && err && errlen && !err[0])
        snprintf(err, errlen, "random: %s failed (status %d)", c->op, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_random = {
    .name = "random",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

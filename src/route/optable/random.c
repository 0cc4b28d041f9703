/*
 * random.c - the "random" kernel family of the semantic op table: PyTorch's
 * CUDA RNG kernels, decoded into tfl_random_op (torchfl/ops/random.h).
 *
 * Claimed:
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
 *     p, total, the lambda holding the PhiloxCudaState.
 *
 * Parameter layouts (sm_80 cubins of torch 2.11.0+cu130, checked against
 * the SASS of the kernels):
 *   distribution kernel: numel int64 @0, PhiloxCudaState @8 (32 bytes:
 *     seed_ @0 and offset_ @8, each a value or, when captured_, a pointer;
 *     offset_intragraph_ uint64 @16; captured_ bool @24), the dist lambda
 *     (empty) @40, the element lambda @48.  Element lambda, trivial:
 *     out_data @0, stride0 int32 @8, the transform's captures @12 or @16
 *     (8-aligned ones); with OffsetCalculator<1, uint32>: dims @0,
 *     IntDivider sizes[25] (12 bytes each) @4, strides[25] @304, out_data
 *     @408, captures @416.
 *   dropout: TensorInfo a, b, c (data, sizes[25], strides[25], dims; index
 *     type uint32 or uint64), total, p (keep probability), PhiloxCudaState.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
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
    tfl_dtype mask_dtype;
    tfl_dtype in_dtype;    /* bernoulli tensor: probability type          */
    const char *op;
} rcookie;

/* ------------------------------------------------------------- match */

/* Itanium codes of the scalar types PyTorch's integer kernels write. */
static int int_scalar(char code, tfl_dtype *t)
{
    switch (code) {
    case 'f': *t = TFL_DT_F32; return 1;
    case 'd': *t = TFL_DT_F64; return 1;
    case 'l': *t = TFL_DT_I64; return 1;
    case 'i': *t = TFL_DT_I32; return 1;
    case 'a': *t = TFL_DT_I8; return 1;
    case 'h': *t = TFL_DT_U8; return 1;
    case 'b': *t = TFL_DT_BOOL; return 1;
    default: return 0;     /* short, unsigned, half, bfloat16: not mapped */
    }
}

/* uniform_and_transform / normal_and_transform<c10::Half|BFloat16, float>
 * (uniform_, bernoulli_(p), normal_, exponential_, cauchy_, log_normal_,
 * geometric_):
 * the scalar type into *t. */
static int lowp_transform(const char *m, tfl_dtype *t)
{
    if (strstr(m, "21uniform_and_transformIN3c104HalfEf") ||
        strstr(m, "20normal_and_transformIN3c104HalfEf")) {
        *t = TFL_DT_F16;
        return 1;
    }
    if (strstr(m, "21uniform_and_transformIN3c108BFloat16Ef") ||
        strstr(m, "20normal_and_transformIN3c108BFloat16Ef")) {
        *t = TFL_DT_BF16;
        return 1;
    }
    return 0;
}

static int match_dist(const char *m, rcookie *c)
{
    static const char dn[] = "distribution_nullary_kernelI";
    const char *p = strstr(m, dn);
    if (!p)
        return 0;
    p += strlen(dn);
    int is_int = 0;
    if (strstr(m, "21random_from_to_kernel")) {
        c->kind = TFL_RANDOM_INT_FROM_TO; c->op = "random_from_to"; is_int = 1;
    } else if (strstr(m, "32random_full_64_bits_range_kernel")) {
        c->kind = TFL_RANDOM_INT_FROM_TO; c->op = "random"; is_int = 1; c->full_range = 2;
    } else if (strstr(m, "13random_kernel")) {
        c->kind = TFL_RANDOM_INT_FROM_TO; c->op = "random"; is_int = 1; c->full_range = 1;
    } else if (strstr(m, "14uniform_kernel")) {
        c->kind = TFL_RANDOM_UNIFORM; c->op = "uniform";
    } else if (strstr(m, "13normal_kernel")) {
        c->kind = TFL_RANDOM_NORMAL; c->op = "normal";
    } else if (strstr(m, "16bernoulli_kernel")) {
        c->kind = TFL_RANDOM_BERNOULLI; c->op = "bernoulli";
    } else if (strstr(m, "18exponential_kernel")) {
        c->kind = TFL_RANDOM_EXPONENTIAL; c->op = "exponential";
    } else if (strstr(m, "13cauchy_kernel")) {
        c->kind = TFL_RANDOM_CAUCHY; c->op = "cauchy";
    } else if (strstr(m, "17log_normal_kernel")) {
        c->kind = TFL_RANDOM_LOG_NORMAL; c->op = "log_normal";
    } else if (strstr(m, "16geometric_kernel")) {
        c->kind = TFL_RANDOM_GEOMETRIC; c->op = "geometric";
    } else {
        return 0;
    }
    if (is_int) {
        /* <scalar_t, uint32|uint64, uint4|ulonglong2, ...> */
        if (!strncmp(p, "N3c104HalfE", 11)) {
            c->dtype = TFL_DT_F16;
            p += 10;
        } else if (!strncmp(p, "N3c108BFloat16E", 15)) {
            c->dtype = TFL_DT_BF16;
            p += 14;
        } else if (!int_scalar(p[0], &c->dtype)) {
            return 0;
        }
        if (!strncmp(p + 1, "j5uint4", 7) &&
            strstr(m, "distribution_elementwise_grid_stride_kernelIjLi4E"))
            c->bits = 32;
        else if (!strncmp(p + 1, "m10ulonglong2", 13) &&
                 strstr(m, "distribution_elementwise_grid_stride_kernelImLi2E"))
            c->bits = 64;
        else
            return 0;
        /* random_full_64_bits_range exists only with 64-bit draws */
        if (c->full_range == 2 && c->bits != 64)
            return 0;
    } else if (!strncmp(p, "ff6float4", 9) &&
               strstr(m, "distribution_elementwise_grid_stride_kernelIfLi4E")) {
        c->dtype = c->acc = TFL_DT_F32;
    } else if (c->kind == TFL_RANDOM_GEOMETRIC && p[0] != 'f' && p[0] != 'd' &&
               !strncmp(p + 1, "f6float4", 8) && int_scalar(p[0], &c->dtype) &&
               c->dtype != TFL_DT_BOOL &&
               strstr(m, "distribution_elementwise_grid_stride_kernelIfLi4E")) {
        /* geometric_ into an integer type: float draws and transform */
        c->acc = TFL_DT_F32;
    } else if (!strncmp(p, "S7_f6float4", 11) &&
               strstr(m, "distribution_elementwise_grid_stride_kernelIfLi4E") &&
               c->kind != TFL_RANDOM_INT_FROM_TO &&
               (lowp_transform(m, &c->dtype))) {
        /* <c10::Half|BFloat16, float, float4>: S7_ names the scalar_t of
         * uniform/normal_and_transform<scalar_t, float, ...> (bernoulli_(p)
         * is a uniform_and_transform too; its p capture is float's) */
        c->acc = TFL_DT_F32;
    } else if (!strncmp(p, "dd7double2", 10) &&
               strstr(m, "distribution_elementwise_grid_stride_kernelIdLi2E")) {
        c->dtype = c->acc = TFL_DT_F64;
    } else {
        return 0;
    }
    /* element lambda #1 is the trivial-1d one, #2 the OffsetCalculator one */
    if (strstr(m, "E_EEvlNS_15PhiloxCudaState"))
        c->offset_calc = 0;
    else if (strstr(m, "E0_EEvlNS_15PhiloxCudaState"))
        c->offset_calc = 1;
    else
        return 0;
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

static int match_dropout(const char *m, rcookie *c)
{
    const char *p;
    int vec = 0;
    if ((p = strstr(m, "24fused_dropout_kernel_vecI"))) {
        p += strlen("24fused_dropout_kernel_vecI");
        vec = 1;
    } else if ((p = strstr(m, "20fused_dropout_kernelI"))) {
        p += strlen("20fused_dropout_kernelI");
    } else {
        return 0;
    }
    if (!strstr(m, "TensorInfo") || !strstr(m, "PhiloxCudaState"))
        return 0;
    /* <scalar_t, accscalar_t = float, ...> */
    static const struct { const char *code; tfl_dtype t; } sc[] = {
        { "ff", TFL_DT_F32 },
        { "N3c104HalfEf", TFL_DT_F16 },
        { "N3c108BFloat16Ef", TFL_DT_BF16 },
    };
    size_t k;
    for (k = 0; k < sizeof sc / sizeof sc[0]; k++)
        if (!strncmp(p, sc[k].code, strlen(sc[k].code)))
            break;
    if (k == sizeof sc / sizeof sc[0])
        return 0;
    c->dtype = sc[k].t;
    p += strlen(sc[k].code);
    if (*p == 'j') c->wide_index = 0;
    else if (*p == 'm') c->wide_index = 1;
    else return 0;
    p++;
    /* template ints: Li<n>E or Lin<n>E (negative) */
    int ints[2], n = 0;
    while (n < 2 && p[0] == 'L' && p[1] == 'i') {
        p += 2;
        int neg = 0;
        if (*p == 'n') { neg = 1; p++; }
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || *end != 'E')
            return 0;
        ints[n++] = neg ? -(int)v : (int)v;
        p = end + 1;
    }
    if (n != 2)
        return 0;
    if (*p == 'b') c->mask_dtype = TFL_DT_BOOL;
    else if (*p == 'h') c->mask_dtype = TFL_DT_U8;
    else return 0;
    if (vec) {
        if (ints[1] != 2 && ints[1] != 4 && ints[1] != 8 && ints[1] != 16)
            return 0;
        c->vec = ints[1];
        c->rk = RK_DROPOUT_VEC;
    } else {
        c->rk = RK_DROPOUT;
    }
    c->kind = TFL_RANDOM_DROPOUT;
    c->op = "dropout";
    return 1;
}

/* kernelPointwiseApply2<Op, scalar_t, prob_t, IndexType, ADims, BDims, 4, 512>
 * with Op the lambda of bernoulli_tensor_cuda_kernel<scalar_t, prob_t>. */
static int match_bernoulli_tensor(const char *m, rcookie *c)
{
    static const char k[] = "21kernelPointwiseApply2IZNS_6native9templates4cuda"
                            "28bernoulli_tensor_cuda_kernelI";
    const char *p = strstr(m, k);
    if (!p)
        return 0;
    p += strlen(k);
    if (!int_scalar(p[0], &c->dtype))
        return 0;
    if (p[1] == 'f') c->in_dtype = TFL_DT_F32;
    else if (p[1] == 'd') c->in_dtype = TFL_DT_F64;
    else return 0;
    /* after the lambda ("...E_"): scalar1, scalar2, then the index type */
    const char *q = strstr(p, "PhiloxCudaStateEEUl");
    if (!q || !(q = strstr(q, "E_")))
        return 0;
    const char *idx = NULL;
    for (const char *r = q + 2; *r; r++)
        if ((r[0] == 'j' || r[0] == 'm') && r[1] == 'L' && r[2] == 'i') { idx = r; break; }
    if (!idx || !strstr(idx, "ELi4ELi512E"))
        return 0;
    c->wide_index = idx[0] == 'm';
    c->rk = RK_BERNOULLI_TENSOR;
    c->kind = TFL_RANDOM_BERNOULLI_TENSOR;
    c->op = "bernoulli";
    return 1;
}

/* native_dropout_backward: masked_scale_kernel<bool, scalar_t, accscalar_t>'s
 * lambda (scale, a float, @0; 16 bytes; float, half and bfloat16
 * instances) in the contiguous elementwise kernels
 * vectorized_elementwise_kernel<VEC, f, array<char*, 3>>(int N, f, data)
 * and unrolled_elementwise_kernel<f, ..., LoadWithoutCast, StoreWithoutCast>
 * (same first three parameters); data = { out, src, mask }. */
static int match_masked_scale(const char *m, rcookie *c)
{
    static const struct { const char *lam; tfl_dtype t; } kinds[] = {
        { "19masked_scale_kernelIbffEEvRNS_6TensorERKS4_S7_T1_EUlfbE_St5arrayIPcLm3EE",
          TFL_DT_F32 },
        { "19masked_scale_kernelIbN3c104HalfEfEEvRNS_6TensorERKS6_S9_T1_EUlS5_bE_St5arrayIPcLm3EE",
          TFL_DT_F16 },
        { "19masked_scale_kernelIbN3c108BFloat16EfEEvRNS_6TensorERKS6_S9_T1_EUlS5_bE_St5arrayIPcLm3EE",
          TFL_DT_BF16 },
    };
    size_t k;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strstr(m, kinds[k].lam))
            break;
    if (k == sizeof kinds / sizeof kinds[0])
        return 0;
    if (!strncmp(m, "_ZN2at6native29vectorized_elementwise_kernelILi", 47)) {
        /* vec 2, 4 or 8 */
    } else if (!strncmp(m, "_ZN2at6native27unrolled_elementwise_kernelI", 43) &&
               strstr(m, "LoadWithoutCast") && strstr(m, "StoreWithoutCast")) {
        /* no casts */
    } else {
        return 0;
    }
    c->rk = RK_MASKED_SCALE;
    c->kind = TFL_RANDOM_MASKED_SCALE;
    c->dtype = kinds[k].t;
    c->op = "dropout_backward";
    return 1;
}

/* renormRowsL1<float|double>(scalar_t *dist, long rows, long cols) and
 * sampleMultinomialWithReplacement<float|double>(PhiloxCudaState, int
 * totalSamples, long *dest, long distributions, int categories, const
 * scalar_t *prefix_sum, const scalar_t *dist) of MultinomialKernel.cu. */
static int match_multinomial(const char *m, rcookie *c)
{
    if (!strstr(m, "MultinomialKernel_cu"))
        return 0;
    if (strstr(m, "12renormRowsL1IfEEvPT_ll")) {
        c->rk = RK_RENORM_ROWS; c->dtype = TFL_DT_F32;
    } else if (strstr(m, "12renormRowsL1IdEEvPT_ll")) {
        c->rk = RK_RENORM_ROWS; c->dtype = TFL_DT_F64;
    } else if (strstr(m, "32sampleMultinomialWithReplacementIfEEvNS_15PhiloxCudaStateEiPlliPKT_S7_")) {
        c->rk = RK_MULTINOMIAL; c->dtype = TFL_DT_F32;
    } else if (strstr(m, "32sampleMultinomialWithReplacementIdEEvNS_15PhiloxCudaStateEiPlliPKT_S7_")) {
        c->rk = RK_MULTINOMIAL; c->dtype = TFL_DT_F64;
    } else {
        return 0;
    }
    c->kind = c->rk == RK_RENORM_ROWS ? TFL_RANDOM_RENORM_ROWS : TFL_RANDOM_MULTINOMIAL;
    c->op = c->rk == RK_RENORM_ROWS ? "multinomial_renorm" : "multinomial";
    return 1;
}

/* rrelu_with_noise_cuda_kernel<scalar_t, unroll, F>(int numel,
 * PhiloxCudaState, scalar_t *output, const scalar_t *input, scalar_t
 * *noise, double lower, double upper, const F &random_func): PyTorch runs
 * double with unroll 2 (curand_uniform2_double), the others with 4
 * (curand_uniform4). */
static int match_rrelu(const char *m, rcookie *c)
{
    static const char k[] = "28rrelu_with_noise_cuda_kernelI";
    const char *p = strstr(m, k);
    if (!p)
        return 0;
    p += strlen(k);
    int unroll;
    if (!strncmp(p, "fLi4E", 5)) {
        c->dtype = TFL_DT_F32; unroll = 4;
    } else if (!strncmp(p, "dLi2E", 5)) {
        c->dtype = TFL_DT_F64; unroll = 2;
    } else if (!strncmp(p, "N3c104HalfELi4E", 15)) {
        c->dtype = TFL_DT_F16; unroll = 4;
    } else if (!strncmp(p, "N3c108BFloat16ELi4E", 19)) {
        c->dtype = TFL_DT_BF16; unroll = 4;
    } else {
        return 0;
    }
    if (!strstr(m, "EEviNS_15PhiloxCudaStateEPT_PKS"))
        return 0;
    c->acc = unroll == 2 ? TFL_DT_F64 : TFL_DT_F32;
    c->rk = RK_RRELU;
    c->kind = TFL_RANDOM_RRELU;
    c->op = "rrelu";
    return 1;
}

static int match(const char *mangled, void **cookie)
{
    rcookie c;
    memset(&c, 0, sizeof c);
    int ok = 0;
    if (strstr(mangled, "MultinomialKernel_cu"))
        ok = match_multinomial(mangled, &c);
    else if (strstr(mangled, "distribution_elementwise_grid_stride_kernel"))
        ok = match_dist(mangled, &c);
    else if (strstr(mangled, "fused_dropout_kernel"))
        ok = match_dropout(mangled, &c);
    else if (strstr(mangled, "bernoulli_tensor_cuda_kernel"))
        ok = match_bernoulli_tensor(mangled, &c);
    else if (strstr(mangled, "masked_scale_kernel"))
        ok = match_masked_scale(mangled, &c);
    else if (strstr(mangled, "rrelu_with_noise_cuda_kernel"))
        ok = match_rrelu(mangled, &c);
    if (!ok)
        return 0;
    rcookie *keep = malloc(sizeof *keep);
    if (!keep)
        return 0;
    *keep = c;
    *cookie = keep;
    return 1;
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
        return TFL_ERR_DEVICE;
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
        return TFL_ERR_DEVICE;
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
};

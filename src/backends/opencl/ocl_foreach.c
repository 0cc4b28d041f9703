/*
 * ocl_foreach.c - TFL_OP_FOREACH (torchfl/ops/foreach.h) on the OpenCL
 * device: the foreach binary / unary / scalar / pointwise / lerp ops, the
 * chunked norms, GradScaler's unscale and scale update, and the fused
 * Adam/AdamW and SGD steps, with the host backend's formulas and operation
 * order (src/backends/host/ops_foreach.c): float math, fma where the host
 * uses fmaf, half/bfloat16 widened on load and rounded once on store.
 *
 * Exactness: everything is bit for bit the host's except the unary
 * exp/expm1/log/log1p/log2/log10/sigmoid/tanh/sin/cos/erf and pow/revpow,
 * which use OpenCL's built-ins (a few ulp from glibc's).  Adam's bias
 * corrections 1 - powf(beta, step) need glibc's powf to match (OpenCL's
 * pow, even rounded from double, differs from it on ~0.03% of steps), and
 * the steps live in device memory: they are gathered into a scratch
 * buffer, read back asynchronously, turned into corrections by glibc in an
 * event callback, and written back ahead of the step kernel, all in queue
 * order (a user event holds the write until the callback has run).  The
 * norms sum sequentially in double, as the host does (one work item per
 * chunk / per tensor), so they round the same.
 *
 * Tensor lists: the op holds device addresses in host memory.  Every
 * pointer an op touches becomes a "ref" (buffer slot << 48 | byte offset)
 * into up to NB buffer arguments; a table (scratch buffer) carries a
 * header of scalar refs and one record per chunk (its lists' refs, the
 * tensor, its first work item).  A launch that would need more than NB
 * distinct buffers is split into several, in block order.  Work items are
 * elements, found by a binary search over the records' first items.
 */
#include "backends/opencl/ocl_src.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TFL_DT_F32 == 0 && TFL_DT_F16 == 2 && TFL_DT_BF16 == 3,
               "the kernel's DT_* follow tfl_dtype");
_Static_assert(TFL_FOREACH_ZERO == 1 && TFL_FOREACH_LERP_LIST == 7 &&
               TFL_FOREACH_NORM_PARTIAL == 8 && TFL_FOREACH_UPDATE_SCALE == 13,
               "the kernel's K_* follow tfl_foreach_kind");
_Static_assert(TFL_FOREACH_FN_ADD == 1 && TFL_FOREACH_FN_REVPOW == 8 &&
               TFL_FOREACH_FN_SQRT == 9 && TFL_FOREACH_FN_RSQRT == 14 &&
               TFL_FOREACH_FN_EXP == 15 && TFL_FOREACH_FN_SIGMOID == 21 &&
               TFL_FOREACH_FN_ERF == 25 && TFL_FOREACH_FN_TRUNC == 29,
               "the kernel's F_* follow tfl_foreach_fn");

#define NB 12        /* buffer arguments of every kernel            */
#define HDR 16       /* header longs of a table                     */
#define REC 12       /* longs per record                            */
#define OFF_BITS 48

/* header slots */
enum { H_SCALAR, H_LR, H_GSCALE, H_FINF, H_INV, H_FOUT, H_BC, H_STEPS, H_PART, H_SCALE,
       H_TRACK };
/* record fields */
enum { R_FIRST, R_N, R_T, R_CHUNK, R_SCALAR, R_LIST, R_STEP = R_LIST + TFL_FOREACH_MAX_LISTS,
       R_OUT };
_Static_assert(R_OUT < REC, "record size");

/* flags of the element kernel */
enum { FL_ADAMW = 1, FL_AMSGRAD = 2, FL_MAXIMIZE = 4, FL_NESTEROV = 8, FL_FIRST = 16,
       FL_PER_TENSOR = 32, FL_GSCALE = 64, FL_MOMENTUM = 128 };

/* Options: KIND, FN, NORM, DT (lists), SDT (the scalar tensor), ODT (norm
 * outputs), OUTL (list written), FP64.  Every kernel has the same
 * arguments (set_args); each kind reads the ones it needs. */
static const char fe_src[] =
    "#if FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#define DT_F32 0\n#define DT_F16 2\n#define DT_BF16 3\n"
    "#define K_ZERO 1\n#define K_UNARY 2\n#define K_BSCALAR 3\n#define K_BLIST 4\n"
    "#define K_POINTWISE 5\n#define K_LERP_S 6\n#define K_LERP_L 7\n#define K_NORM 8\n"
    "#define K_FINISH 9\n#define K_ADAM 10\n#define K_SGD 11\n#define K_UNSCALE 12\n"
    "#define K_SCALE 13\n"
    "#define F_ADD 1\n#define F_SUB 2\n#define F_MUL 3\n#define F_DIV 4\n#define F_MAX 5\n"
    "#define F_MIN 6\n#define F_POW 7\n#define F_REVPOW 8\n#define F_SQRT 9\n#define F_COPY 10\n"
    "#define F_NEG 11\n#define F_ABS 12\n#define F_RECIP 13\n#define F_RSQRT 14\n"
    "#define F_EXP 15\n#define F_EXPM1 16\n#define F_LOG 17\n#define F_LOG1P 18\n"
    "#define F_LOG2 19\n#define F_LOG10 20\n#define F_SIGMOID 21\n#define F_TANH 22\n"
    "#define F_SIN 23\n#define F_COS 24\n#define F_ERF 25\n#define F_FLOOR 26\n"
    "#define F_CEIL 27\n#define F_ROUND 28\n#define F_TRUNC 29\n"
    "#define N_L1 1\n#define N_L2 2\n#define N_LINF 3\n#define N_L0 4\n"
    "#define HDR 16\n#define REC 12\n"
    "#define H_SCALAR 0\n#define H_LR 1\n#define H_GSCALE 2\n#define H_FINF 3\n#define H_INV 4\n"
    "#define H_FOUT 5\n#define H_BC 6\n#define H_STEPS 7\n#define H_PART 8\n#define H_SCALE 9\n"
    "#define H_TRACK 10\n"
    "#define R_FIRST 0\n#define R_N 1\n#define R_T 2\n#define R_CHUNK 3\n#define R_SCALAR 4\n"
    "#define R_LIST 5\n#define R_STEP 10\n#define R_OUT 11\n"
    "#define FL_ADAMW 1\n#define FL_AMSGRAD 2\n#define FL_MAXIMIZE 4\n#define FL_NESTEROV 8\n"
    "#define FL_FIRST 16\n#define FL_PER_TENSOR 32\n#define FL_GSCALE 64\n#define FL_MOMENTUM 128\n"
    "#define ARGS __global uchar *m0, __global uchar *m1, __global uchar *m2,\\\n"
    "    __global uchar *m3, __global uchar *m4, __global uchar *m5, __global uchar *m6,\\\n"
    "    __global uchar *m7, __global uchar *m8, __global uchar *m9, __global uchar *m10,\\\n"
    "    __global uchar *m11, __global const long *tab, int nrec, ulong total, float scalar,\\\n"
    "    float alpha, float hp0, float hp1, float hp2, float hp3, float hp4, int flags,\\\n"
    "    long i0, long i1, ulong d0, ulong d1\n"
    "#define BUFS __global uchar *bp[12] = { m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11 }\n"
    /* a ref: buffer slot in the top bits, byte offset below */
    "#define AT(ref) (bp[(ref) >> 48] + ((ref) & 0xffffffffffffL))\n"
    "#define HAS(ref) ((ref) >= 0)\n"
    /* half / bfloat16 from float as the host rounds: nearest even; NaN
     * quiet, its sign and top payload bits kept */
    OCL_SRC_LOWP
    "#define LD(p, i) ocl_ldf(DT, p, i)\n"
    "#define ST(p, i, v) ocl_stf(DT, p, i, v)\n"
    "#define F32AT(ref) (*(__global const float *)AT(ref))\n"
    /* NaN-propagating max / min, PyTorch's lerp */
    "float maxp(float a, float b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }\n"
    "float minp(float a, float b) { return (a != a || b != b) ? NAN : (a < b ? a : b); }\n"
    "float lerp_pt(float s, float e, float w)\n"
    "{\n"
    "    float d = e - s;\n"
    "    return fabs(w) < 0.5f ? fma(w, d, s) : fma(-d, 1.0f - w, e);\n"
    "}\n"
    "float bin(float a, float b)\n"
    "{\n"
    "#if FN == F_ADD\n    return a + b;\n"
    "#elif FN == F_SUB\n    return a - b;\n"
    "#elif FN == F_MUL\n    return a * b;\n"
    "#elif FN == F_DIV\n    return a / b;\n"
    "#elif FN == F_MAX\n    return maxp(a, b);\n"
    "#elif FN == F_MIN\n    return minp(a, b);\n"
    "#elif FN == F_POW\n    return pow(a, b);\n"
    "#elif FN == F_REVPOW\n    return pow(b, a);\n"
    "#else\n    return a;\n"
    "#endif\n"
    "}\n"
    "float un(float x)\n"
    "{\n"
    "#if FN == F_SQRT\n    return sqrt(x);\n"
    "#elif FN == F_NEG\n    return -x;\n"
    "#elif FN == F_ABS\n    return fabs(x);\n"
    "#elif FN == F_RECIP\n    return 1.0f / x;\n"
    "#elif FN == F_RSQRT\n    return 1.0f / sqrt(x);\n"
    "#elif FN == F_EXP\n    return exp(x);\n"
    "#elif FN == F_EXPM1\n    return expm1(x);\n"
    "#elif FN == F_LOG\n    return log(x);\n"
    "#elif FN == F_LOG1P\n    return log1p(x);\n"
    "#elif FN == F_LOG2\n    return log2(x);\n"
    "#elif FN == F_LOG10\n    return log10(x);\n"
    "#elif FN == F_SIGMOID\n    return 1.0f / (1.0f + exp(-x));\n"
    "#elif FN == F_TANH\n    return tanh(x);\n"
    "#elif FN == F_SIN\n    return sin(x);\n"
    "#elif FN == F_COS\n    return cos(x);\n"
    "#elif FN == F_ERF\n    return erf(x);\n"
    "#elif FN == F_FLOOR\n    return floor(x);\n"
    "#elif FN == F_CEIL\n    return ceil(x);\n"
    "#elif FN == F_ROUND\n    return rint(x);\n"
    "#elif FN == F_TRUNC\n    return trunc(x);\n"
    "#else\n    return x;\n"
    "#endif\n"
    "}\n"
    /* a per-record kernel's item r and its record rc */
    "#define PER_RECORD \\\n"
    "    int r = (int)get_global_id(0);\\\n"
    "    if (r >= nrec)\\\n"
    "        return;\\\n"
    "    BUFS;\\\n"
    "    __global const long *rc = tab + HDR + r * REC\n"
    /* the record holding work item g (records are in first-item order) */
    "__global const long *rec_of(__global const long *tab, int nrec, ulong g)\n"
    "{\n"
    "    int lo = 0, hi = nrec - 1;\n"
    "    while (lo < hi) {\n"
    "        int mid = (lo + hi + 1) / 2;\n"
    "        if ((ulong)tab[HDR + mid * REC + R_FIRST] <= g)\n"
    "            lo = mid;\n"
    "        else\n"
    "            hi = mid - 1;\n"
    "    }\n"
    "    return tab + HDR + lo * REC;\n"
    "}\n"
    "#if KIND == K_NORM\n"
    /* one chunk per item, summed in order in double as the host does */
    "__kernel void fe(ARGS)\n"
    "{\n"
    "    PER_RECORD;\n"
    "    __global const uchar *x = AT(rc[R_LIST]);\n"
    "    long n = rc[R_N];\n"
    "#if NORM == N_L1 || NORM == N_L2\n"
    "    double acc = 0.0;\n"
    "    for (long i = 0; i < n; i++) {\n"
    "        double v = LD(x, i);\n"
    "        acc += NORM == N_L2 ? v * v : fabs(v);\n"
    "    }\n"
    "#elif NORM == N_L0\n"
    "    ulong acc = 0;\n"
    "    for (long i = 0; i < n; i++)\n"
    "        acc += LD(x, i) != 0.0f;\n"
    "#else\n"
    "    float acc = 0.0f;\n"
    "    for (long i = 0; i < n; i++)\n"
    "        acc = maxp(acc, fabs(LD(x, i)));\n"
    "#endif\n"
    "    __global float *part = (__global float *)AT(tab[H_PART]);\n"
    "    part[(i0 + rc[R_T]) * i1 + rc[R_CHUNK]] = (float)acc;\n"
    "}\n"
    "#elif KIND == K_FINISH\n"
    /* one tensor per item: its max_chunks (i1) partials, in order */
    "__kernel void fe(ARGS)\n"
    "{\n"
    "    PER_RECORD;\n"
    "    __global const float *p = (__global const float *)AT(tab[H_PART]) + rc[R_T] * i1;\n"
    "#if NORM == N_LINF\n"
    "    float acc = 0.0f;\n"
    "    for (long c = 0; c < i1; c++)\n"
    "        acc = maxp(acc, p[c]);\n"
    "#else\n"
    "    double acc = 0.0;\n"
    "    for (long c = 0; c < i1; c++)\n"
    "        acc += p[c];\n"
    "    if (NORM == N_L2 && (flags & 1))\n"
    "        acc = sqrt(acc);\n"
    "#endif\n"
    "    ocl_stf(ODT, AT(rc[R_OUT]), 0, (float)acc);\n"
    "}\n"
    "#elif KIND == K_SCALE\n"
    /* amp_update_scale, one item; d0 growth, d1 backoff (double bits) */
    "__kernel void fe(ARGS)\n"
    "{\n"
    "    if (get_global_id(0) != 0)\n"
    "        return;\n"
    "    BUFS;\n"
    "    __global float *scale = (__global float *)AT(tab[H_SCALE]);\n"
    "    __global int *tracker = (__global int *)AT(tab[H_TRACK]);\n"
    "    if (F32AT(tab[H_FINF]) != 0.0f) {\n"
    "        *scale = (float)((double)*scale * as_double(d1));\n"
    "        *tracker = 0;\n"
    "        return;\n"
    "    }\n"
    "    int successful = *tracker + 1;\n"
    "    if (successful == (int)i0) {\n"
    "        float grown = (float)((double)*scale * as_double(d0));\n"
    "        if (isfinite(grown))\n"
    "            *scale = grown;\n"
    "        *tracker = 0;\n"
    "    } else {\n"
    "        *tracker = successful;\n"
    "    }\n"
    "}\n"
    "#else\n"
    /* the element kinds: item g is element g - first of its record */
    "__kernel void fe(ARGS)\n"
    "{\n"
    "    ulong g = get_global_id(0);\n"
    "    if (g >= total)\n"
    "        return;\n"
    "    BUFS;\n"
    "    __global const long *rc = rec_of(tab, nrec, g);\n"
    "    long i = (long)(g - (ulong)rc[R_FIRST]);\n"
    "    __global uchar *L[5];\n"
    "    for (int k = 0; k < 5; k++)\n"
    "        L[k] = HAS(rc[R_LIST + k]) ? AT(rc[R_LIST + k]) : 0;\n"
    "    float s = (flags & FL_PER_TENSOR) ? as_float((uint)rc[R_SCALAR])\n"
    "            : HAS(tab[H_SCALAR]) ? ocl_ldf(SDT, AT(tab[H_SCALAR]), 0) * alpha : scalar;\n"
    "#if KIND == K_ZERO\n"
    "    ST(L[OUTL], i, 0.0f);\n"
    "#elif KIND == K_UNARY\n"
    "    ST(L[OUTL], i, un(LD(L[0], i)));\n"
    "#elif KIND == K_BSCALAR\n"
    "    ST(L[OUTL], i, bin(LD(L[0], i), s));\n"
    "#elif KIND == K_BLIST\n"
    "    float x0 = LD(L[0], i), x1 = LD(L[1], i), y;\n"
    "#if FN == F_ADD\n"
    "    y = fma(alpha, x1, x0);\n"
    "#elif FN == F_SUB\n"
    "    y = fma(-alpha, x1, x0);\n"
    "#elif FN == F_MUL\n"
    "    y = x0 * (alpha * x1);\n"
    "#elif FN == F_DIV\n"
    "    y = x0 / (alpha * x1);\n"
    "#else\n"
    "    y = bin(x0, alpha * x1);\n"
    "#endif\n"
    "    ST(L[OUTL], i, y);\n"
    "#elif KIND == K_POINTWISE\n"
    "    float x1 = LD(L[1], i), x2 = LD(L[2], i);\n"
    "    ST(L[OUTL], i, fma(s, FN == F_MUL ? x1 * x2 : x1 / x2, LD(L[0], i)));\n"
    "#elif KIND == K_LERP_S\n"
    "    ST(L[OUTL], i, lerp_pt(LD(L[0], i), LD(L[1], i), s));\n"
    "#elif KIND == K_LERP_L\n"
    "    ST(L[OUTL], i, lerp_pt(LD(L[0], i), LD(L[1], i), LD(L[2], i)));\n"
    "#elif KIND == K_UNSCALE\n"
    "    float v = LD(L[0], i), inv = F32AT(tab[H_INV]);\n"
    "    if (!isfinite(v))\n"
    "        *(__global float *)AT(tab[H_FOUT]) = 1.0f;\n"
    "    ST(L[OUTL], i, inv == 1.0f ? v : v * inv);\n"
    "#elif KIND == K_ADAM\n"
    /* FusedAdamMathFunctor in float; hp0..4 = lr, beta1, beta2, weight
     * decay, eps; the bias corrections come from the host (glibc powf) */
    "    if (HAS(tab[H_FINF]) && F32AT(tab[H_FINF]) == 1.0f)\n"
    "        return;\n"
    "    const float lr = HAS(tab[H_LR]) ? F32AT(tab[H_LR]) : hp0;\n"
    "    const float b1 = hp1, b2 = hp2, wd = hp3, eps = hp4;\n"
    "    __global const float *bc = (__global const float *)AT(tab[H_BC]) + 2 * rc[R_T];\n"
    "    const float bc1 = bc[0], bc2_sqrt = bc[1];\n"
    "    const float step_size = lr / bc1;\n"
    "    float param = LD(L[0], i), grad = LD(L[1], i);\n"
    "    if (flags & FL_GSCALE)\n"
    "        grad = grad / F32AT(tab[H_GSCALE]);\n"
    "    const float grad_store = grad;\n"
    "    if (flags & FL_MAXIMIZE)\n"
    "        grad = -grad;\n"
    "    if (wd != 0.0f) {\n"
    "        if (!(flags & FL_ADAMW))\n"
    "            grad = fma(param, wd, grad);\n"
    "        else\n"
    "            param = param - lr * wd * param;\n"
    "    }\n"
    "    float ea = fma(b1, LD(L[2], i), (1.0f - b1) * grad);\n"
    "    float eas = fma(b2, LD(L[3], i), (1.0f - b2) * grad * grad);\n"
    "    float denom;\n"
    "    if (flags & FL_AMSGRAD) {\n"
    "        float vm = LD(L[4], i);\n"
    "        float mx = vm > eas ? vm : eas;\n"
    "        ST(L[4], i, mx);\n"
    "        denom = sqrt(mx) / bc2_sqrt + eps;\n"
    "    } else {\n"
    "        denom = sqrt(eas) / bc2_sqrt + eps;\n"
    "    }\n"
    "    ST(L[0], i, param - step_size * ea / denom);\n"
    "    if (flags & FL_GSCALE)\n"
    "        ST(L[1], i, grad_store);\n"
    "    ST(L[2], i, ea);\n"
    "    ST(L[3], i, eas);\n"
    "#elif KIND == K_SGD\n"
    /* FusedSgdMathFunctor in float; hp0..3 = lr, weight decay, momentum,
     * 1 - dampening */
    "    if (HAS(tab[H_FINF]) && F32AT(tab[H_FINF]) == 1.0f)\n"
    "        return;\n"
    "    const float lr = HAS(tab[H_LR]) ? F32AT(tab[H_LR]) : hp0;\n"
    "    const float wd = hp1, mom = hp2, omd = hp3;\n"
    "    float param = LD(L[0], i), grad = LD(L[1], i);\n"
    "    if (flags & FL_GSCALE) {\n"
    "        grad = grad / F32AT(tab[H_GSCALE]);\n"
    "        ST(L[1], i, grad);\n"
    "    }\n"
    "    if (flags & FL_MAXIMIZE)\n"
    "        grad = -grad;\n"
    "    if (wd != 0.0f)\n"
    "        grad = fma(param, wd, grad);\n"
    "    if (flags & FL_MOMENTUM) {\n"
    "        float mb = (flags & FL_FIRST) ? grad : fma(mom, LD(L[2], i), omd * grad);\n"
    "        ST(L[2], i, mb);\n"
    "        grad = (flags & FL_NESTEROV) ? fma(mom, mb, grad) : mb;\n"
    "    }\n"
    "    ST(L[0], i, fma(grad, -lr, param));\n"
    "#endif\n"
    "}\n"
    "#if KIND == K_ADAM\n"
    /* each record's step count into the steps scratch, by tensor */
    "__kernel void fe_steps(ARGS)\n"
    "{\n"
    "    PER_RECORD;\n"
    "    ((__global float *)AT(tab[H_STEPS]))[rc[R_T]] = F32AT(rc[R_STEP]);\n"
    "}\n"
    "#endif\n"
    "#endif\n";

/* ------------------------------------------------------------ policy */

static int lowp_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* Lists each element kind reads (the host widens all `depth` lists; a
 * kind needs at least these). */
static int min_depth(tfl_foreach_kind k)
{
    switch (k) {
    case TFL_FOREACH_BINARY_LIST: case TFL_FOREACH_LERP_SCALAR: return 2;
    case TFL_FOREACH_POINTWISE: case TFL_FOREACH_LERP_LIST: return 3;
    default: return 1;
    }
}

/* Whether op's kernel divides or takes a square root (correctly rounded
 * only with the build option). */
static int divides(const tfl_foreach_op *op)
{
    switch (op->kind) {
    case TFL_FOREACH_ADAM: case TFL_FOREACH_SGD: case TFL_FOREACH_POINTWISE:
        return 1;
    case TFL_FOREACH_NORM_FINISH:
        return op->norm == TFL_FOREACH_NORM_L2;
    case TFL_FOREACH_UNARY:
        return op->fn == TFL_FOREACH_FN_SQRT || op->fn == TFL_FOREACH_FN_RECIPROCAL ||
               op->fn == TFL_FOREACH_FN_RSQRT || op->fn == TFL_FOREACH_FN_SIGMOID;
    case TFL_FOREACH_BINARY_SCALAR: case TFL_FOREACH_BINARY_LIST:
        return op->fn == TFL_FOREACH_FN_DIV;
    default:
        return 0;
    }
}

/* Whether op's kernel needs double: sequential sums, the scale update. */
static int needs_fp64(const tfl_foreach_op *op)
{
    switch (op->kind) {
    case TFL_FOREACH_NORM_PARTIAL:
        return op->norm == TFL_FOREACH_NORM_L1 || op->norm == TFL_FOREACH_NORM_L2;
    case TFL_FOREACH_NORM_FINISH:
        return op->norm != TFL_FOREACH_NORM_LINF;
    case TFL_FOREACH_UPDATE_SCALE:
        return 1;
    default:
        return 0;
    }
}

/* The host backend's forms (host_foreach_supported), less what the
 * device cannot round as the host. */
static int form_ok(const tfl_foreach_op *op)
{
    const ocl_device *dev = ocl_dev();
    if ((needs_fp64(op) && !dev->fp64) || (divides(op) && !ocl_div_opt()))
        return 0;
    if (op->kind == TFL_FOREACH_UPDATE_SCALE)
        return op->scale && op->growth_tracker && op->found_inf;
    if (!lowp_ok(op->dtype) || op->chunk_size <= 0 || op->depth < 1 ||
        op->depth > TFL_FOREACH_MAX_LISTS || op->out_list < 0 || op->out_list >= op->depth)
        return 0;
    const int norm_ok = op->norm >= TFL_FOREACH_NORM_L1 && op->norm <= TFL_FOREACH_NORM_L0;
    if (op->kind == TFL_FOREACH_NORM_FINISH)
        return lowp_ok(op->out_dtype) && op->partials && op->finish_out &&
               op->max_chunks > 0 && norm_ok && op->nfinish >= 0;
    if (op->nblocks < 0 || op->ntensors < 0 || (op->nblocks && (!op->blocks || !op->tensors)))
        return 0;
    if (op->depth < min_depth(op->kind))
        return 0;
    if (op->scalar_ptr && !op->per_tensor_scalar && !lowp_ok(op->scalar_ptr_dtype))
        return 0;
    switch (op->kind) {
    case TFL_FOREACH_ZERO:
    case TFL_FOREACH_LERP_SCALAR:
    case TFL_FOREACH_LERP_LIST:
        return 1;
    case TFL_FOREACH_UNARY:
        return op->fn >= TFL_FOREACH_FN_SQRT && op->fn <= TFL_FOREACH_FN_TRUNC;
    case TFL_FOREACH_BINARY_SCALAR:
    case TFL_FOREACH_BINARY_LIST:
        return op->fn >= TFL_FOREACH_FN_ADD && op->fn <= TFL_FOREACH_FN_REVPOW;
    case TFL_FOREACH_POINTWISE:
        return op->fn == TFL_FOREACH_FN_MUL || op->fn == TFL_FOREACH_FN_DIV;
    case TFL_FOREACH_NORM_PARTIAL:
        return op->partials && op->max_chunks > 0 && norm_ok;
    case TFL_FOREACH_ADAM:
        return op->depth == (op->amsgrad ? 5 : 4);
    case TFL_FOREACH_SGD:
        return op->depth == 2 || op->depth == 3;
    case TFL_FOREACH_UNSCALE:
        return op->depth == 1 && op->found_inf_out && op->inv_scale;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------ tables */

/* One launch's buffers and table. */
typedef struct fgroup {
    cl_mem buf[NB];
    int nbuf;
    cl_long *tab;            /* HDR + cap * REC longs                       */
    int nrec, cap;
    cl_ulong total;          /* element work items                          */
} fgroup;

/* Buffer m at byte offset off as a ref of g: 1, or 0 when g has no slot
 * left. */
static int add_mem(fgroup *g, cl_mem m, size_t off, cl_long *ref)
{
    int i = 0;
    while (i < g->nbuf && g->buf[i] != m)
        i++;
    if (i == g->nbuf) {
        if (g->nbuf == NB)
            return 0;
        g->buf[g->nbuf++] = m;
    }
    *ref = (cl_long)i << OFF_BITS | (cl_long)off;
    return 1;
}

/* Device range [p, p + n) as a ref: 1; 0 when g is full; -1 when it is
 * not device memory of this backend. */
static int add_ref(fgroup *g, const void *p, size_t n, cl_long *ref)
{
    cl_mem m;
    size_t off;
    if (!p || !ocl_resolve(p, n, &m, &off) || off >> OFF_BITS)
        return -1;
    return add_mem(g, m, off, ref);
}

/* What a walk covers; k is NULL when it only validates. */
typedef struct fplan {
    const tfl_foreach_op *op;
    cl_mem bc, steps;            /* ADAM scratch (placeholders when validating) */
    ocl_kernel *k;               /* NULL: validate only                          */
    const char *phase;           /* ADAM: "fe_steps" or "fe"                     */
    tfl_stream s;
} fplan;

typedef struct hdr_ref {
    int slot;
    const void *p;
    size_t n;
} hdr_ref;

/* The header refs of a group: 1, or -1 when an operand is not device
 * memory.  (Headers use at most 6 slots: they always fit.) */
static int fill_header(const fplan *pl, fgroup *g)
{
    const tfl_foreach_op *op = pl->op;
    for (int i = 0; i < HDR; i++)
        g->tab[i] = -1;
    const size_t ses = tfl_dtype_size(op->scalar_ptr_dtype);
    hdr_ref h[8];
    int nh = 0;
    switch (op->kind) {
    case TFL_FOREACH_UPDATE_SCALE:
        h[nh++] = (hdr_ref){ H_SCALE, op->scale, 4 };
        h[nh++] = (hdr_ref){ H_TRACK, op->growth_tracker, 4 };
        h[nh++] = (hdr_ref){ H_FINF, op->found_inf, 4 };
        break;
    case TFL_FOREACH_UNSCALE:
        h[nh++] = (hdr_ref){ H_INV, op->inv_scale, 4 };
        h[nh++] = (hdr_ref){ H_FOUT, op->found_inf_out, 4 };
        break;
    case TFL_FOREACH_ADAM:
    case TFL_FOREACH_SGD:
        if (op->lr_ptr)
            h[nh++] = (hdr_ref){ H_LR, op->lr_ptr, 4 };
        if (op->grad_scale)
            h[nh++] = (hdr_ref){ H_GSCALE, op->grad_scale, 4 };
        if (op->found_inf)
            h[nh++] = (hdr_ref){ H_FINF, op->found_inf, 4 };
        break;
    case TFL_FOREACH_NORM_PARTIAL:
    case TFL_FOREACH_NORM_FINISH:
        break;                    /* partials: sized by the caller */
    default:
        if (op->scalar_ptr && !op->per_tensor_scalar)
            h[nh++] = (hdr_ref){ H_SCALAR, op->scalar_ptr, ses };
        break;
    }
    for (int i = 0; i < nh; i++)
        if (add_ref(g, h[i].p, h[i].n, &g->tab[h[i].slot]) != 1)
            return -1;
    if (op->kind == TFL_FOREACH_ADAM &&
        (!add_mem(g, pl->bc, 0, &g->tab[H_BC]) || !add_mem(g, pl->steps, 0, &g->tab[H_STEPS])))
        return -1;
    return 1;
}

/* Partials: the floats the op reads or writes, from op->partials. */
static int64_t partial_floats(const tfl_foreach_op *op)
{
    if (op->kind == TFL_FOREACH_NORM_FINISH)
        return (int64_t)op->nfinish * op->max_chunks;
    int64_t top = 0;
    for (int b = 0; b < op->nblocks; b++) {
        const tfl_foreach_block *bl = &op->blocks[b];
        /* blocks with nothing to do write no partial (fill_record checks
         * the rest) */
        if (bl->tensor < 0 || bl->tensor >= op->ntensors || bl->chunk < 0 ||
            (int64_t)bl->chunk * op->chunk_size >= op->tensors[bl->tensor].numel)
            continue;
        int64_t idx = ((int64_t)op->first_index + bl->tensor) * op->max_chunks + bl->chunk;
        if (idx < 0)
            return -1;
        if (idx + 1 > top)
            top = idx + 1;
    }
    return top;
}

static int add_partials(const fplan *pl, fgroup *g)
{
    const tfl_foreach_op *op = pl->op;
    if (op->kind != TFL_FOREACH_NORM_PARTIAL && op->kind != TFL_FOREACH_NORM_FINISH)
        return 1;
    int64_t n = partial_floats(op);
    if (n < 0)
        return -1;
    return add_ref(g, op->partials, (size_t)n * 4, &g->tab[H_PART]) == 1 ? 1 : -1;
}

/* Record for unit u (block u; NORM_FINISH: tensor u): 1 added, 2 nothing
 * to do, 0 group full, -1 invalid. */
static int fill_record(const fplan *pl, fgroup *g, int u)
{
    const tfl_foreach_op *op = pl->op;
    cl_long *r = g->tab + HDR + (size_t)g->nrec * REC;
    for (int i = 0; i < REC; i++)
        r[i] = -1;
    if (op->kind == TFL_FOREACH_NORM_FINISH) {
        r[R_T] = u;
        int st = add_ref(g, op->finish_out[u], tfl_dtype_size(op->out_dtype), &r[R_OUT]);
        if (st == 1)
            g->nrec++;
        return st;
    }
    const tfl_foreach_block *bl = &op->blocks[u];
    if (bl->tensor < 0 || bl->tensor >= op->ntensors || bl->chunk < 0)
        return -1;
    const tfl_foreach_tensor *t = &op->tensors[bl->tensor];
    int64_t start = (int64_t)bl->chunk * op->chunk_size, n = t->numel - start;
    if (n <= 0)
        return 2;
    if (n > op->chunk_size)
        n = op->chunk_size;
    const size_t es = tfl_dtype_size(op->dtype);
    for (int k = 0; k < op->depth; k++) {
        int st = add_ref(g, (const char *)t->ptr[k] + (size_t)start * es, (size_t)n * es,
                         &r[R_LIST + k]);
        if (st != 1)
            return st;
    }
    if (op->kind == TFL_FOREACH_ADAM) {
        int st = add_ref(g, t->step, 4, &r[R_STEP]);
        if (st != 1)
            return st;
    }
    float sc = t->scalar;
    uint32_t bits;
    memcpy(&bits, &sc, 4);
    r[R_FIRST] = (cl_long)g->total;
    r[R_N] = n;
    r[R_T] = bl->tensor;
    r[R_CHUNK] = bl->chunk;
    r[R_SCALAR] = bits;
    g->total += (cl_ulong)n;
    g->nrec++;
    return 1;
}

static tfl_status launch_group(const fplan *pl, fgroup *g);

/* Start g afresh: no buffers, no records, the header. */
static int group_reset(const fplan *pl, fgroup *g)
{
    g->nbuf = 0;
    g->nrec = 0;
    g->total = 0;
    return fill_header(pl, g) == 1 && add_partials(pl, g) == 1;
}

/* Walk op's units into groups, launching each full group (pl->k set) or
 * only checking every operand (pl->k NULL). */
static tfl_status walk(const fplan *pl)
{
    const tfl_foreach_op *op = pl->op;
    int units = op->kind == TFL_FOREACH_NORM_FINISH ? op->nfinish
              : op->kind == TFL_FOREACH_UPDATE_SCALE ? 0 : op->nblocks;
    fgroup g;
    memset(&g, 0, sizeof g);
    g.cap = units < 1 ? 1 : units;
    g.tab = malloc(((size_t)HDR + (size_t)g.cap * REC) * sizeof(cl_long));
    if (!g.tab)
        return TFL_ERR_NOMEM;
    tfl_status st = TFL_OK;
    if (!group_reset(pl, &g))
        st = TFL_ERR_INVALID;
    for (int u = 0; u < units && st == TFL_OK; u++) {
        int saved = g.nbuf;
        int r = fill_record(pl, &g, u);
        if (r == 0) {
            /* full: launch what is there, then this unit opens a new group */
            g.nbuf = saved;
            st = launch_group(pl, &g);
            if (st == TFL_OK && !group_reset(pl, &g))
                st = TFL_ERR_INVALID;
            if (st == TFL_OK)
                r = fill_record(pl, &g, u);
            if (st == TFL_OK && r == 0)
                st = TFL_ERR_INVALID;        /* one unit alone does not fit */
        }
        if (r < 0)
            st = TFL_ERR_INVALID;
    }
    if (st == TFL_OK && (g.nrec > 0 || op->kind == TFL_FOREACH_UPDATE_SCALE))
        st = launch_group(pl, &g);
    free(g.tab);
    return st;
}

/* ------------------------------------------------------------ launches */

static void build_opts(const tfl_foreach_op *op, char *buf, size_t len)
{
    const char *cr = ocl_div_opt();
    snprintf(buf, len, "-DKIND=%d -DFN=%d -DNORM=%d -DDT=%d -DSDT=%d -DODT=%d -DOUTL=%d "
             "-DFP64=%d %s", (int)op->kind, (int)op->fn, (int)op->norm, (int)op->dtype,
             (int)op->scalar_ptr_dtype, (int)op->out_dtype, op->out_list, needs_fp64(op),
             cr ? cr : "");
}

static int flags_of(const tfl_foreach_op *op)
{
    return (op->adamw ? FL_ADAMW : 0) | (op->amsgrad ? FL_AMSGRAD : 0) |
           (op->maximize ? FL_MAXIMIZE : 0) | (op->nesterov ? FL_NESTEROV : 0) |
           (op->is_first_step ? FL_FIRST : 0) | (op->per_tensor_scalar ? FL_PER_TENSOR : 0) |
           (op->grad_scale ? FL_GSCALE : 0) |
           (op->kind == TFL_FOREACH_SGD && op->depth > 2 ? FL_MOMENTUM : 0);
}

/* The kernel's float hyper-parameters, rounded as the host rounds them. */
static void hyper(const tfl_foreach_op *op, cl_float hp[5])
{
    memset(hp, 0, 5 * sizeof *hp);
    hp[0] = (cl_float)op->lr;
    if (op->kind == TFL_FOREACH_ADAM) {
        hp[1] = (cl_float)op->beta1;
        hp[2] = (cl_float)op->beta2;
        hp[3] = (cl_float)op->weight_decay;
        hp[4] = (cl_float)op->eps;
    } else if (op->kind == TFL_FOREACH_SGD) {
        hp[1] = (cl_float)op->weight_decay;
        hp[2] = (cl_float)op->momentum;
        hp[3] = (cl_float)(1.0 - op->dampening);
    }
}

static tfl_status launch_group(const fplan *pl, fgroup *g)
{
    if (!pl->k)
        return TFL_OK;
    const tfl_foreach_op *op = pl->op;
    cl_int rc;
    cl_mem tab = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                ((size_t)HDR + (size_t)g->nrec * REC) * sizeof(cl_long), g->tab,
                                &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer");
    /* per-record kernels run one item per record, the rest one per element */
    const int per_record = op->kind == TFL_FOREACH_NORM_PARTIAL ||
                           op->kind == TFL_FOREACH_NORM_FINISH ||
                           strcmp(pl->phase, "fe_steps") == 0;
    size_t items = op->kind == TFL_FOREACH_UPDATE_SCALE ? 1
                 : per_record ? (size_t)g->nrec : (size_t)g->total;
    cl_int nrec = g->nrec;
    cl_ulong total = g->total;
    cl_float scalar = op->scalar, alpha = op->alpha, hp[5];
    hyper(op, hp);
    cl_int flags = flags_of(op);
    if (op->kind == TFL_FOREACH_NORM_FINISH)
        flags = op->apply_root ? 1 : 0;
    cl_long i0 = op->kind == TFL_FOREACH_UPDATE_SCALE ? op->growth_interval : op->first_index;
    cl_long i1 = op->max_chunks;
    ocl_args a = { 0 };
    /* unused buffer slots get the table: never touched through them */
    for (int i = 0; i < NB; i++) {
        cl_mem m = i < g->nbuf ? g->buf[i] : tab;
        OCL_ADD(&a, m);
    }
    OCL_ADD(&a, tab);
    OCL_ADD(&a, nrec);
    OCL_ADD(&a, total);
    OCL_ADD(&a, scalar);
    OCL_ADD(&a, alpha);
    for (int i = 0; i < 5; i++)
        OCL_ADD(&a, hp[i]);
    OCL_ADD(&a, flags);
    OCL_ADD(&a, i0);
    OCL_ADD(&a, i1);
    /* growth and backoff factors as double bits */
    OCL_ADD(&a, op->growth_factor);
    OCL_ADD(&a, op->backoff_factor);
    tfl_status st = ocl_launch_args(pl->k, &a, items, 0, pl->s);
    clReleaseMemObject(tab);      /* freed once the launch has run */
    return st;
}

/* ------------------------------------------------------------ Adam */

/* The bias corrections of one Adam launch, computed on the host between
 * the read of the steps and the write of the corrections. */
typedef struct adam_bc {
    atomic_int refs;             /* the two callbacks                     */
    cl_event user;               /* holds the write until computed        */
    float b1, b2;
    int nt;
    float *steps;                /* nt                                    */
    float *bc;                   /* 2 * nt: 1 - b1^step, sqrt(1 - b2^step) */
} adam_bc;

static void bc_unref(adam_bc *h)
{
    if (atomic_fetch_sub(&h->refs, 1) == 1) {
        free(h->steps);
        free(h->bc);
        free(h);
    }
}

/* Steps read: the host's corrections (glibc powf, as ops_foreach.c). */
static void CL_CALLBACK bc_compute(cl_event ev, cl_int status, void *user)
{
    (void)ev;
    adam_bc *h = user;
    if (status == CL_COMPLETE)
        for (int t = 0; t < h->nt; t++) {
            h->bc[2 * t] = 1.0f - powf(h->b1, h->steps[t]);
            h->bc[2 * t + 1] = sqrtf(1.0f - powf(h->b2, h->steps[t]));
        }
    clSetUserEventStatus(h->user, status == CL_COMPLETE ? CL_COMPLETE : -1);
    clReleaseEvent(h->user);
    bc_unref(h);
}

static void CL_CALLBACK bc_written(cl_event ev, cl_int status, void *user)
{
    (void)ev;
    (void)status;
    bc_unref(user);
}

/* steps scratch -> host -> corrections -> bc scratch, in queue order. */
static tfl_status adam_corrections(const tfl_foreach_op *op, cl_mem steps, cl_mem bc,
                                   tfl_stream s)
{
    const int nt = op->ntensors;
    adam_bc *h = calloc(1, sizeof *h);
    if (!h || !(h->steps = calloc((size_t)nt, 4)) || !(h->bc = calloc((size_t)nt, 8))) {
        if (h) {
            free(h->steps);
            free(h);
        }
        return TFL_ERR_NOMEM;
    }
    h->b1 = (float)op->beta1;
    h->b2 = (float)op->beta2;
    h->nt = nt;
    atomic_init(&h->refs, 2);
    cl_int rc;
    cl_context ctx = ocl_dev()->ctx;
    cl_command_queue q = ocl_queue(s);
    h->user = clCreateUserEvent(ctx, &rc);
    if (rc != CL_SUCCESS) {
        atomic_store(&h->refs, 1);
        bc_unref(h);
        return ocl_status(rc, "clCreateUserEvent");
    }
    /* one reference for the read's callback (which sets and drops it),
     * one for us until the write waiting on it is enqueued */
    clRetainEvent(h->user);
    cl_event rd = NULL, wr = NULL;
    rc = clEnqueueReadBuffer(q, steps, CL_FALSE, 0, (size_t)nt * 4, h->steps, 0, NULL, &rd);
    if (rc == CL_SUCCESS)
        rc = clSetEventCallback(rd, CL_COMPLETE, bc_compute, h);
    if (rc != CL_SUCCESS) {
        /* no callback will run: let a read in flight finish into h, then
         * free it ourselves (an error path: blocking is acceptable) */
        if (rd) {
            clWaitForEvents(1, &rd);
            ocl_track(s, rd);
        }
        clSetUserEventStatus(h->user, -1);
        clReleaseEvent(h->user);
        clReleaseEvent(h->user);
        atomic_store(&h->refs, 1);
        bc_unref(h);
        return ocl_status(rc, "clEnqueueReadBuffer");
    }
    ocl_track(s, rd);
    cl_event user = h->user;      /* h may be gone once the write is done */
    rc = clEnqueueWriteBuffer(q, bc, CL_FALSE, 0, (size_t)nt * 8, h->bc, 1, &user, &wr);
    clReleaseEvent(user);
    if (rc == CL_SUCCESS)
        rc = clSetEventCallback(wr, CL_COMPLETE, bc_written, h);
    else
        bc_unref(h);
    if (wr)
        ocl_track(s, wr);
    /* a failed callback registration leaves h to the read's callback: the
     * write's buffer then outlives it (a small leak, never a stale read) */
    return ocl_status(rc, "clEnqueueWriteBuffer");
}

static tfl_status run_adam(fplan *pl, ocl_kernel *steps_k)
{
    const tfl_foreach_op *op = pl->op;
    const size_t nt = op->ntensors > 0 ? (size_t)op->ntensors : 1;
    cl_int rc;
    cl_context ctx = ocl_dev()->ctx;
    pl->steps = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nt * 4, NULL, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer");
    pl->bc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nt * 8, NULL, &rc);
    if (rc != CL_SUCCESS) {
        clReleaseMemObject(pl->steps);
        return ocl_status(rc, "clCreateBuffer");
    }
    ocl_kernel *step_k = pl->k;
    pl->k = steps_k;
    pl->phase = "fe_steps";
    tfl_status st = walk(pl);
    if (st == TFL_OK)
        st = adam_corrections(op, pl->steps, pl->bc, pl->s);
    pl->k = step_k;
    pl->phase = "fe";
    if (st == TFL_OK)
        st = walk(pl);
    clReleaseMemObject(pl->steps);
    clReleaseMemObject(pl->bc);
    return st;
}

/* ------------------------------------------------------------ entry */

/* Nonzero slots stand in for the Adam scratch while validating. */
static void placeholders(fplan *pl)
{
    pl->bc = (cl_mem)(uintptr_t)1;
    pl->steps = (cl_mem)(uintptr_t)2;
}

static tfl_status check(const tfl_op *op, fplan *pl)
{
    if (!ocl_dev() || op->kind != TFL_OP_FOREACH)
        return TFL_ERR_UNSUPPORTED;
    const tfl_foreach_op *f = &op->u.foreach;
    if (!form_ok(f))
        return TFL_ERR_UNSUPPORTED;
    memset(pl, 0, sizeof *pl);
    pl->op = f;
    pl->phase = "fe";
    placeholders(pl);
    return walk(pl);
}

int ocl_foreach_supported(const tfl_op *op)
{
    fplan pl;
    return check(op, &pl) == TFL_OK;
}

tfl_status ocl_foreach_run(const tfl_op *op, tfl_stream s)
{
    fplan pl;
    tfl_status st = check(op, &pl);
    if (st != TFL_OK)
        return st;
    const tfl_foreach_op *f = &op->u.foreach;
    char opts[256];
    build_opts(f, opts, sizeof opts);
    pl.k = ocl_kernel_get(fe_src, opts, "fe");
    ocl_kernel *steps_k = f->kind == TFL_FOREACH_ADAM ? ocl_kernel_get(fe_src, opts, "fe_steps")
                                                       : NULL;
    if (!pl.k || (f->kind == TFL_FOREACH_ADAM && !steps_k)) {
        OCL_LOG(OCL_ERROR, "opencl: foreach kind %d: no kernel (%s)", (int)f->kind, opts);
        return TFL_ERR_INTERNAL;
    }
    pl.s = s;
    if (f->kind == TFL_FOREACH_ADAM)
        return run_adam(&pl, steps_k);
    return walk(&pl);
}

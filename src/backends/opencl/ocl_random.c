/*
 * ocl_random.c - TFL_OP_RANDOM (torchfl/ops/random.h) on the OpenCL
 * device: Philox4x32-10 draws laid out as cuRAND's curand_init(seed,
 * thread, offset) + curand4, element by element as the host backend
 * replays PyTorch's kernels (src/backends/host/ops_random.c), so a seed
 * gives the host's bits.
 *
 * Native, bit for bit: uniform, bernoulli (scalar p and tensor p),
 * integer draws, dropout (grid-stride and vectorised) and its masked
 * scale, rrelu, multinomial and its row renormalisation.  Their
 * transforms are exactly rounded arithmetic (fma, +, *, /, conversions),
 * which OpenCL computes as C does; the kernels are built without
 * contraction (FP_CONTRACT OFF), fast-math or native_* functions.
 *
 * Refused (host fallback): normal, log_normal, exponential, cauchy and
 * geometric.  The host computes them with glibc's logf/sinf/cosf/tanf/
 * expf/log1pf (and the double versions), which are not correctly rounded;
 * OpenCL's are different approximations.  Measured: glibc's logf, sinf
 * and cosf differ from the correctly rounded result on about 1% of the
 * Box-Muller inputs, so no OpenCL formula gives the host's bits.
 *
 * One work item per draw (grid-stride: thread t's draw k; vectorised and
 * apply4: one step of a thread), one per sample (multinomial), per row
 * (renorm, a sequential sum as the host's) or per element (masked scale).
 * Each op form (kind, traversal, dtypes, strided views) is one program
 * specialised by -D options; the program cache keeps them.
 */
#include "backends/opencl/ocl_src.h"

#include <stdio.h>
#include <string.h>

/* the kernel source numbers element types as tfl_dtype does */
_Static_assert(TFL_DT_F32 == 0 && TFL_DT_F64 == 1 && TFL_DT_F16 == 2 && TFL_DT_BF16 == 3 &&
               TFL_DT_I8 == 6 && TFL_DT_U8 == 7 && TFL_DT_I32 == 8 && TFL_DT_I64 == 9 &&
               TFL_DT_BOOL == 10, "the kernel's DT_* follow tfl_dtype");
_Static_assert(TFL_RANDOM_UNIFORM == 1 && TFL_RANDOM_BERNOULLI == 3 &&
               TFL_RANDOM_INT_FROM_TO == 4 && TFL_RANDOM_DROPOUT == 5 &&
               TFL_RANDOM_BERNOULLI_TENSOR == 6 && TFL_RANDOM_RRELU == 14,
               "the kernel's K_* follow tfl_random_kind");

#define VIEW_LONGS (1 + 2 * TFL_RANDOM_MAX_DIMS)   /* ndim, sizes, strides */

/* Options: PART (0: rng, 1: multinom and renorm, 2: mscale), KIND, TRAV,
 * VEC, ODT (out), IDT (in), ACC (1: double draws), BITS, OV/IV/MV (view
 * strided), FP64 (double used). */
static const char rng_src[] =
    "#if FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#define DT_F32 0\n#define DT_F64 1\n#define DT_F16 2\n#define DT_BF16 3\n"
    "#define DT_I8 6\n#define DT_U8 7\n#define DT_I32 8\n#define DT_I64 9\n#define DT_BOOL 10\n"
    "#define K_UNIFORM 1\n#define K_BERNOULLI 3\n#define K_INT 4\n#define K_DROPOUT 5\n"
    "#define K_BTENSOR 6\n#define K_RRELU 14\n"
    "#define ESZ(t) ((t) == DT_F64 || (t) == DT_I64 ? 8 : (t) == DT_F32 || (t) == DT_I32 ? 4 : \\\n"
    "                (t) == DT_F16 || (t) == DT_BF16 ? 2 : 1)\n"
    "#define OES ESZ(ODT)\n"
    "#define IES ESZ(IDT)\n"
    "#define MES (KIND == K_RRELU ? OES : 1)\n"
    /* Philox4x32-10: ten rounds, the key bumped after each */
    "uint4 philox(uint4 c, uint2 k)\n"
    "{\n"
    "    for (int r = 0; r < 10; r++) {\n"
    "        uint h0 = mul_hi(0xD2511F53u, c.x), l0 = 0xD2511F53u * c.x;\n"
    "        uint h1 = mul_hi(0xCD9E8D57u, c.z), l1 = 0xCD9E8D57u * c.z;\n"
    "        c = (uint4)(h1 ^ c.y ^ k.x, l1, h0 ^ c.w ^ k.y, l0);\n"
    "        k += (uint2)(0x9E3779B9u, 0xBB67AE85u);\n"
    "    }\n"
    "    return c;\n"
    "}\n"
    /* block base + i of subsequence sub: counter (base + i) in words 0-1,
     * sub (plus the carry) in words 2-3 */
    "uint4 block_at(ulong seed, ulong sub, ulong base, ulong i)\n"
    "{\n"
    "    ulong lo = base + i, hi = sub + (lo < base ? 1 : 0);\n"
    "    return philox((uint4)((uint)lo, (uint)(lo >> 32), (uint)hi, (uint)(hi >> 32)),\n"
    "                  (uint2)((uint)seed, (uint)(seed >> 32)));\n"
    "}\n"
    /* curand4 number k of curand_init(seed, sub, offset): offset % 4
     * words into block offset / 4 + k */
    "uint4 draw(ulong seed, ulong sub, ulong offset, ulong k)\n"
    "{\n"
    "    ulong base = offset >> 2;\n"
    "    uint4 a = block_at(seed, sub, base, k);\n"
    "    uint pos = (uint)(offset & 3);\n"
    "    if (pos == 0)\n"
    "        return a;\n"
    "    uint4 b = block_at(seed, sub, base, k + 1);\n"
    "    return pos == 1 ? (uint4)(a.y, a.z, a.w, b.x)\n"
    "         : pos == 2 ? (uint4)(a.z, a.w, b.x, b.y) : (uint4)(a.w, b.x, b.y, b.z);\n"
    "}\n"
    /* cuRAND's uniforms, in (0, 1] */
    "float unif(uint x) { return (float)x * 0x1p-32f + 0x1p-33f; }\n"
    "#if FP64\n"
    "double unif_d(uint x, uint y)\n"
    "{\n"
    "    ulong z = (ulong)x ^ ((ulong)y << 21);\n"
    "    return (double)z * 0x1p-53 + 0x1p-54;\n"
    "}\n"
    "#endif\n"
    /* half / bfloat16 bits of a float, nearest even, as the host rounds
     * (NaN: the quiet NaN of its sign / the top bits, quietened) */
    "#define OCL_LP_NAN 1\n"
    OCL_SRC_LOWP
    "#if ODT == DT_F16\n"
    "#define LP_BITS ocl_f16_bits\n#define LP_VAL ocl_f16_val\n"
    "#else\n"
    "#define LP_BITS ocl_bf16_bits\n#define LP_VAL ocl_bf16_val\n"
    "#endif\n"
    /* a float result into a half/bfloat16 element; one that rounds to
     * bound is stored as instead */
    "void st_lowp(__global uchar *p, float x, float bound, float instead)\n"
    "{\n"
    "    ushort h = LP_BITS(x);\n"
    "    if (LP_VAL(h) == bound)\n"
    "        h = LP_BITS(instead);\n"
    "    *(__global ushort *)p = h;\n"
    "}\n"
    /* an integer value into the output type (C casts; 16-bit floats
     * through float) */
    "void st_int(__global uchar *p, long v)\n"
    "{\n"
    "#if ODT == DT_I64\n"
    "    *(__global long *)p = v;\n"
    "#elif ODT == DT_I32\n"
    "    *(__global int *)p = (int)v;\n"
    "#elif ODT == DT_I8\n"
    "    *(__global char *)p = (char)v;\n"
    "#elif ODT == DT_U8\n"
    "    *p = (uchar)v;\n"
    "#elif ODT == DT_BOOL\n"
    "    *p = v != 0;\n"
    "#elif ODT == DT_F32\n"
    "    *(__global float *)p = (float)v;\n"
    "#elif ODT == DT_F64\n"
    "    *(__global double *)p = (double)v;\n"
    "#else\n"
    "    *(__global ushort *)p = LP_BITS((float)v);\n"
    "#endif\n"
    "}\n"
    /* byte offset of element li of view v (dim 0 fastest) */
    "long voff(__global const long *dims, int v, ulong li, long esz, int strided)\n"
    "{\n"
    "    if (!strided)\n"
    "        return (long)li * esz;\n"
    "    __global const long *d = dims + v * " "51" ";\n"
    "    long off = 0, i = (long)li;\n"
    "    for (int k = 0; k < (int)d[0]; k++) {\n"
    "        off += (i % d[1 + k]) * d[26 + k];\n"
    "        i /= d[1 + k];\n"
    "    }\n"
    "    return off;\n"
    "}\n"
    "#if PART == 0\n"
    "typedef struct prm {\n"
    "    __global uchar *ob, *ib, *mb;\n"
    "    __global const long *dims;\n"
    "    float fa, fb, fc, scale;\n"
    "    ulong range;\n"
    "    long base;\n"
    "#if FP64\n"
    "    double a, b, c;\n"
    "#endif\n"
    "} prm;\n"
    "#define OUTP(li) (P->ob + voff(P->dims, 0, li, OES, OV))\n"
    "#define INP(li) (P->ib + voff(P->dims, 1, li, IES, IV))\n"
    "#define MASKP(li) (P->mb + voff(P->dims, 2, li, MES, MV))\n"
    /* values per draw, and the values of one draw */
    "#if KIND == K_INT\n"
    "#define U (BITS == 64 ? 2 : 4)\n"
    "#else\n"
    "#define U (ACC ? 2 : 4)\n"
    "#endif\n"
    "typedef struct vals {\n"
    "    ulong w[4];\n"
    "    float f[4];\n"
    "#if FP64\n"
    "    double d[2];\n"
    "#endif\n"
    "} vals;\n"
    "void make_vals(uint4 r, vals *v)\n"
    "{\n"
    "#if KIND == K_INT && BITS == 64\n"
    "    v->w[0] = (ulong)r.x << 32 | r.y;\n"
    "    v->w[1] = (ulong)r.z << 32 | r.w;\n"
    "#elif KIND == K_INT\n"
    "    v->w[0] = r.x; v->w[1] = r.y; v->w[2] = r.z; v->w[3] = r.w;\n"
    "#elif ACC\n"
    "    v->d[0] = unif_d(r.x, r.y);\n"
    "    v->d[1] = unif_d(r.z, r.w);\n"
    "#else\n"
    "    v->f[0] = unif(r.x); v->f[1] = unif(r.y); v->f[2] = unif(r.z); v->f[3] = unif(r.w);\n"
    "#endif\n"
    "}\n"
    /* element li receives value j of a draw (the host's emit) */
    "void emit(const prm *P, ulong li, const vals *v, uint j)\n"
    "{\n"
    "#if KIND == K_UNIFORM && ACC\n"
    "    double x = fma(v->d[j], P->a, P->b);\n"
    "    *(__global double *)OUTP(li) = x == P->c ? P->b : x;\n"
    "#elif KIND == K_UNIFORM && ODT == DT_F32\n"
    "    float x = fma(v->f[j], P->fa, P->fb);\n"
    "    *(__global float *)OUTP(li) = x == P->fc ? P->fb : x;\n"
    "#elif KIND == K_UNIFORM\n"
    "    st_lowp(OUTP(li), fma(v->f[j], P->fa, P->fb), P->fc, P->fb);\n"
    "#elif KIND == K_BERNOULLI && ACC\n"
    "    *(__global double *)OUTP(li) = v->d[j] < P->a ? 1.0 : 0.0;\n"
    "#elif KIND == K_BERNOULLI && ODT == DT_F32\n"
    "    *(__global float *)OUTP(li) = v->f[j] < P->fa ? 1.0f : 0.0f;\n"
    "#elif KIND == K_BERNOULLI\n"
    "    st_lowp(OUTP(li), v->f[j] < P->fa ? 1.0f : 0.0f, NAN, 0.0f);\n"
    "#elif KIND == K_INT\n"
    "    ulong r = P->range ? v->w[j] % P->range : v->w[j];\n"
    "    st_int(OUTP(li), (long)(r + (ulong)P->base));\n"
    "#elif KIND == K_BTENSOR && IDT == DT_F64\n"
    "    st_int(OUTP(li), (double)v->f[j] <= *(__global const double *)INP(li));\n"
    "#elif KIND == K_BTENSOR\n"
    "    st_int(OUTP(li), v->f[j] <= *(__global const float *)INP(li));\n"
    "#elif KIND == K_DROPOUT\n"
    "    float keep = v->f[j] < P->fa ? 1.0f : 0.0f;\n"
    "    ocl_stf(ODT, OUTP(li), 0, ocl_ldf(ODT, INP(li), 0) * keep * P->scale);\n"
    "    *MASKP(li) = keep != 0.0f;\n"
    "#elif KIND == K_RRELU && ODT == DT_F64\n"
    "    double x = *(__global const double *)INP(li);\n"
    "    double r = fma(v->d[j], P->b, P->a);\n"
    "    *(__global double *)OUTP(li) = x <= 0.0 ? x * r : x;\n"
    "    *(__global double *)MASKP(li) = x <= 0.0 ? r : 1.0;\n"
    "#elif KIND == K_RRELU && ODT == DT_F32\n"
    "    float x = *(__global const float *)INP(li);\n"
    "    float r = (float)fma((double)v->f[j], P->b, P->a);\n"
    "    *(__global float *)OUTP(li) = x <= 0.0f ? x * r : x;\n"
    "    *(__global float *)MASKP(li) = x <= 0.0f ? r : 1.0f;\n"
    "#elif KIND == K_RRELU\n"
    /* half/bfloat16: the draw rounded to the type first, r too */
    "    float x = LP_VAL(*(__global const ushort *)INP(li));\n"
    "    float r = ocl_round_to(ODT, (float)fma((double)ocl_round_to(ODT, v->f[j]), P->b, P->a));\n"
    "    *(__global ushort *)OUTP(li) = LP_BITS(x <= 0.0f ? ocl_round_to(ODT, x * r) : x);\n"
    "    *(__global ushort *)MASKP(li) = LP_BITS(x <= 0.0f ? r : 1.0f);\n"
    "#endif\n"
    "}\n"
    /* One work item per draw (TRAV 0: thread q % tn, draw q / tn) or per
     * step of a thread (TRAV 1, 2: element group q, thread q % T). */
    "__kernel void rng(__global uchar *ob, ulong ooff, __global uchar *ib, ulong ioff,\n"
    "                  __global uchar *mb, ulong moff, __global const long *dims,\n"
    "                  ulong seed, ulong offset, ulong T, ulong numel, ulong items, ulong tn,\n"
    "                  ulong pa, ulong pb, ulong pc, float fa, float fb, float fc, float scale,\n"
    "                  ulong range, long base)\n"
    "{\n"
    "    ulong q = get_global_id(0);\n"
    "    if (q >= items)\n"
    "        return;\n"
    "    prm p = { ob + ooff, ib + ioff, mb + moff, dims, fa, fb, fc, scale, range, base,\n"
    "#if FP64\n"
    "              as_double(pa), as_double(pb), as_double(pc)\n"
    "#endif\n"
    "    };\n"
    "    const prm *P = &p;\n"
    "    vals v;\n"
    "#if TRAV == 0\n"
    /* draw k of thread t feeds t + T * (U * k + j) */
    "    ulong t = q % tn, k = q / tn;\n"
    "    make_vals(draw(seed, t, offset, k), &v);\n"
    "    for (uint j = 0; j < U; j++) {\n"
    "        ulong li = t + T * (U * k + j);\n"
    "        if (li >= numel)\n"
    "            break;\n"
    "        emit(P, li, &v, j);\n"
    "    }\n"
    "#elif TRAV == 1\n"
    /* step k of thread t: VEC elements from (t + T * k) * VEC, fresh
     * draws k * D .. k * D + D - 1 */
    "    const uint D = (VEC + 3) / 4;\n"
    "    ulong t = q % T, k = q / T, first = q * VEC;\n"
    "    ulong n = min((ulong)VEC, numel - first);\n"
    "    for (uint d = 0; d < D; d++) {\n"
    "        make_vals(draw(seed, t, offset, k * D + d), &v);\n"
    "        for (uint j = 0; j < 4 && 4 * d + j < n; j++)\n"
    "            emit(P, first + 4 * d + j, &v, j);\n"
    "    }\n"
    "#else\n"
    /* apply4: every step restarts the generator, so sees draw 0 */
    "    ulong first = q * 4;\n"
    "    make_vals(draw(seed, q % T, offset, 0), &v);\n"
    "    for (uint j = 0; j < 4 && first + j < numel; j++)\n"
    "        emit(P, first + j, &v, j);\n"
    "#endif\n"
    "}\n"
    "#elif PART == 1\n"
    "#if ODT == DT_F64\n"
    "#define ET double\n"
    "#else\n"
    "#define ET float\n"
    "#endif\n"
    /* multinomial: one item per (distribution d, sample s); its thread's
     * draw number counts the (d, s) pairs that thread handled before */
    "__kernel void multinom(__global uchar *ob, ulong ooff, __global const uchar *ib, ulong ioff,\n"
    "                       __global const uchar *mb, ulong moff, ulong seed, ulong offset,\n"
    "                       ulong rows, ulong cols, ulong samples, ulong grid_y, ulong per_row)\n"
    "{\n"
    "    ulong q = get_global_id(0);\n"
    "    if (q >= rows * samples)\n"
    "        return;\n"
    "    ulong d = q / samples, s = q % samples, s0 = s % per_row;\n"
    "    ulong t = (d % grid_y) * per_row + s0;\n"
    "    ulong ns = (samples - s0 + per_row - 1) / per_row;\n"
    "    float u = unif(draw(seed, t, offset, (d / grid_y) * ns + s / per_row).x);\n"
    "    __global const ET *cum = (__global const ET *)(mb + moff) + d * cols;\n"
    "    __global const ET *dist = (__global const ET *)(ib + ioff) + d * cols;\n"
    "    ulong lo = 0, hi = cols;\n"
    "    while (hi > lo) {\n"
    "        ulong mid = lo + (hi - lo) / 2;\n"
    "        if (cum[mid] < u)\n"
    "            lo = mid + 1;\n"
    "        else\n"
    "            hi = mid;\n"
    "    }\n"
    "    if (lo == cols)\n"
    "        lo = cols - 1;\n"
    "    while (lo >= 1 && dist[lo] == 0)\n"
    "        lo--;\n"
    "    ((__global long *)(ob + ooff))[d * samples + s] = (long)lo;\n"
    "}\n"
    /* renormRowsL1: a row's sum in column order, then the divisions */
    "__kernel void renorm(__global uchar *ob, ulong ooff, ulong rows, ulong cols)\n"
    "{\n"
    "    ulong r = get_global_id(0);\n"
    "    if (r >= rows)\n"
    "        return;\n"
    "    __global ET *row = (__global ET *)(ob + ooff) + r * cols;\n"
    "    ET sum = 0;\n"
    "    for (ulong c = 0; c < cols; c++)\n"
    "        sum += row[c];\n"
    "    if (sum > 0)\n"
    "        for (ulong c = 0; c < cols; c++)\n"
    "            row[c] /= sum;\n"
    "}\n"
    "#else\n"
    /* dropout backward: (float)mask * x * scale, one rounding */
    "__kernel void mscale(__global uchar *ob, ulong ooff, __global const uchar *ib, ulong ioff,\n"
    "                     __global const uchar *mb, ulong moff, ulong n, float scale)\n"
    "{\n"
    "    ulong i = get_global_id(0);\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float m = (float)(mb[moff + i] != 0);\n"
    "    ocl_stf(ODT, ob + ooff, i, m * ocl_ldf(ODT, ib + ioff, i) * scale);\n"
    "}\n"
    "#endif\n";

_Static_assert(VIEW_LONGS == 51, "voff's view stride in rng_src");

/* ------------------------------------------------------------ policy */

static int is_lowp(tfl_dtype t)
{
    return t == TFL_DT_F16 || t == TFL_DT_BF16;
}

static int float_out(tfl_dtype t)
{
    return t == TFL_DT_F32 || is_lowp(t);
}

static int int_out_ok(tfl_dtype t)
{
    switch (t) {
    case TFL_DT_F32: case TFL_DT_F64: case TFL_DT_I64: case TFL_DT_I32:
    case TFL_DT_I8: case TFL_DT_U8: case TFL_DT_BOOL:
        return 1;
    default:
        return 0;
    }
}

/* The kinds and forms run here: the host backend's forms
 * (host_random_supported) whose transforms are exactly rounded
 * arithmetic; acc F32 wherever the host reads float draws. */
static int form_ok(const tfl_random_op *op)
{
    const int acc_ok = op->acc == TFL_DT_F32 || op->acc == TFL_DT_F64;
    switch (op->kind) {
    case TFL_RANDOM_UNIFORM:
    case TFL_RANDOM_BERNOULLI:
        if (op->traverse != TFL_RANDOM_TRAVERSE_GRID_STRIDE)
            return 0;
        return (op->acc == TFL_DT_F32 && is_lowp(op->dtype)) ||
               (acc_ok && op->dtype == op->acc);
    case TFL_RANDOM_INT_FROM_TO:
        return op->traverse == TFL_RANDOM_TRAVERSE_GRID_STRIDE &&
               (op->bits == 32 || op->bits == 64) &&
               (int_out_ok(op->dtype) || is_lowp(op->dtype));
    case TFL_RANDOM_DROPOUT:
        if (op->traverse == TFL_RANDOM_TRAVERSE_VEC &&
            op->vec != 2 && op->vec != 4 && op->vec != 8 && op->vec != 16)
            return 0;
        return op->traverse != TFL_RANDOM_TRAVERSE_APPLY4 && op->acc == TFL_DT_F32 &&
               float_out(op->dtype) &&
               (op->mask_dtype == TFL_DT_BOOL || op->mask_dtype == TFL_DT_U8);
    case TFL_RANDOM_BERNOULLI_TENSOR:
        return op->traverse == TFL_RANDOM_TRAVERSE_APPLY4 && op->acc == TFL_DT_F32 &&
               int_out_ok(op->dtype) &&
               (op->in_dtype == TFL_DT_F32 || op->in_dtype == TFL_DT_F64);
    case TFL_RANDOM_RRELU:
        return op->traverse == TFL_RANDOM_TRAVERSE_GRID_STRIDE && op->in.ndim == 0 &&
               op->out.ndim == 0 && op->mask.ndim == 0 &&
               ((op->acc == TFL_DT_F64 && op->dtype == TFL_DT_F64) ||
                (op->acc == TFL_DT_F32 && float_out(op->dtype)));
    default:
        return 0;
    }
}

/* Whether the program of op uses double. */
static int needs_fp64(const tfl_random_op *op)
{
    if (op->kind == TFL_RANDOM_RRELU || op->dtype == TFL_DT_F64)
        return 1;
    if (op->kind == TFL_RANDOM_UNIFORM || op->kind == TFL_RANDOM_BERNOULLI)
        return op->acc == TFL_DT_F64;
    return op->kind == TFL_RANDOM_BERNOULLI_TENSOR && op->in_dtype == TFL_DT_F64;
}

/* ------------------------------------------------------------ plans */

typedef struct rplan {
    const char *kernel;          /* rng, multinom, renorm, mscale        */
    char opts[320];
    ocl_arg a[3];                /* out, in, mask (b NULL: unused); the  */
                                 /* offsets are the views' data pointers */
    int strided[3];
    size_t items;                /* work items                           */
    uint64_t tn;                 /* rng, grid-stride: threads with work  */
} rplan;

/* View v of numel elements of esz bytes: aligned and in one device
 * buffer; fills the plan's buffer and the offset of v->data. */
static int resolve_view(rplan *p, int k, const tfl_random_view *v, uint64_t numel, size_t esz)
{
    if ((uintptr_t)v->data % esz)
        return 0;
    int64_t lo = 0, hi;
    if (v->ndim == 0) {
        if (numel > (uint64_t)INT64_MAX / esz)
            return 0;
        hi = (int64_t)(numel * esz);
    } else {
        hi = (int64_t)esz;
        for (int d = 0; d < v->ndim; d++)
            if (v->sizes[d] <= 0 || v->strides[d] % (int64_t)esz)
                return 0;
        if (!ocl_extent(v->ndim, v->sizes, v->strides, &lo, &hi))
            return 0;
    }
    p->strided[k] = v->ndim > 0;
    return ocl_arg_span(v->data, lo, hi, &p->a[k]);
}

/* A contiguous operand of n bytes. */
static int resolve_flat(rplan *p, int k, const void *data, uint64_t n, size_t align)
{
    return ocl_arg_range(data, (size_t)n, align, 0, &p->a[k]);
}

static void set_opts(rplan *p, const tfl_random_op *op, tfl_dtype idt, int fp64, const char *extra)
{
    const int part = strcmp(p->kernel, "rng") == 0 ? 0 : strcmp(p->kernel, "mscale") == 0 ? 2 : 1;
    snprintf(p->opts, sizeof p->opts,
             "-DPART=%d -DKIND=%d -DTRAV=%d -DVEC=%d -DODT=%d -DIDT=%d -DACC=%d -DBITS=%d "
             "-DOV=%d -DIV=%d -DMV=%d -DFP64=%d %s",
             part, (int)op->kind, (int)op->traverse, op->vec, (int)op->dtype, (int)idt,
             op->acc == TFL_DT_F64, op->bits, p->strided[0], p->strided[1], p->strided[2],
             fp64, extra ? extra : "");
}

/* multinomial and renorm: whole matrices, no views */
static tfl_status plan_rows(const tfl_random_op *op, rplan *p)
{
    const int fp64 = op->dtype == TFL_DT_F64;
    const char *cr = ocl_div_opt();
    if (op->rows < 0 || op->cols < 0 || !(op->dtype == TFL_DT_F32 || fp64) ||
        (fp64 && !ocl_dev()->fp64))
        return TFL_ERR_UNSUPPORTED;
    const size_t es = tfl_dtype_size(op->dtype);
    uint64_t cells;
    if (__builtin_mul_overflow((uint64_t)op->rows, (uint64_t)op->cols, &cells) ||
        cells > SIZE_MAX / es)
        return TFL_ERR_INVALID;
    if (op->kind == TFL_RANDOM_RENORM_ROWS) {
        if (!fp64 && !cr)
            return TFL_ERR_UNSUPPORTED;         /* float division must round once */
        p->kernel = "renorm";
        p->items = (size_t)op->rows;
        set_opts(p, op, op->dtype, fp64, fp64 ? NULL : cr);
        if (cells && !resolve_flat(p, 0, op->out.data, cells * es, es))
            return TFL_ERR_INVALID;
        return TFL_OK;
    }
    if (op->samples < 0 || op->grid_x == 0 || op->grid_y == 0 || op->block_x == 0 ||
        (op->rows > 0 && op->cols == 0))
        return TFL_ERR_UNSUPPORTED;
    uint64_t outs;
    if (__builtin_mul_overflow((uint64_t)op->rows, (uint64_t)op->samples, &outs) ||
        outs > SIZE_MAX / 8)
        return TFL_ERR_INVALID;
    p->kernel = "multinom";
    p->items = (size_t)outs;
    set_opts(p, op, op->dtype, fp64, NULL);
    if (outs && (!resolve_flat(p, 0, op->out.data, outs * 8, 8) ||
                 !resolve_flat(p, 1, op->in.data, cells * es, es) ||
                 !resolve_flat(p, 2, op->mask.data, cells * es, es)))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status plan_masked_scale(const tfl_random_op *op, rplan *p)
{
    if (op->numel < 0 || !float_out(op->dtype) || op->in.ndim || op->out.ndim ||
        op->mask.ndim || !(op->mask_dtype == TFL_DT_BOOL || op->mask_dtype == TFL_DT_U8))
        return TFL_ERR_UNSUPPORTED;
    const size_t es = tfl_dtype_size(op->dtype);
    const uint64_t n = (uint64_t)op->numel;
    p->kernel = "mscale";
    p->items = (size_t)n;
    set_opts(p, op, op->dtype, 0, NULL);
    if (n && (n > SIZE_MAX / es || !resolve_flat(p, 0, op->out.data, n * es, es) ||
              !resolve_flat(p, 1, op->in.data, n * es, es) ||
              !resolve_flat(p, 2, op->mask.data, n, 1)))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

/* The work items of the draw kernel. */
static int count_items(const tfl_random_op *op, rplan *p)
{
    const uint64_t T = op->threads, n = (uint64_t)op->numel;
    if (op->traverse == TFL_RANDOM_TRAVERSE_GRID_STRIDE) {
        /* draws k < K reach an element for threads t < min(T, numel) */
        uint64_t U = (op->kind == TFL_RANDOM_INT_FROM_TO ? op->bits == 64
                                                         : op->acc == TFL_DT_F64) ? 2 : 4;
        uint64_t per, K;
        if (__builtin_mul_overflow(T, U, &per))
            per = UINT64_MAX;
        K = n / per + (n % per != 0);
        p->tn = T < n ? T : n;
        uint64_t items;
        if (__builtin_mul_overflow(p->tn, K, &items) || items > SIZE_MAX)
            return 0;
        p->items = (size_t)items;
        return 1;
    }
    uint64_t w = op->traverse == TFL_RANDOM_TRAVERSE_VEC ? (uint64_t)op->vec : 4;
    p->items = (size_t)(n / w + (n % w != 0));
    p->tn = T;
    return 1;
}

/* The plan of op; TFL_OK, TFL_ERR_UNSUPPORTED (not natively) or
 * TFL_ERR_INVALID (an operand outside device memory). */
static tfl_status plan_op(const tfl_op *op, rplan *p)
{
    const ocl_device *dev = ocl_dev();
    if (!dev || op->kind != TFL_OP_RANDOM)
        return TFL_ERR_UNSUPPORTED;
    const tfl_random_op *r = &op->u.random;
    memset(p, 0, sizeof *p);
    if (r->kind == TFL_RANDOM_RENORM_ROWS || r->kind == TFL_RANDOM_MULTINOMIAL)
        return plan_rows(r, p);
    if (r->kind == TFL_RANDOM_MASKED_SCALE)
        return plan_masked_scale(r, p);
    if (r->numel < 0 || r->threads == 0 || !form_ok(r) || (needs_fp64(r) && !dev->fp64))
        return TFL_ERR_UNSUPPORTED;
    const tfl_random_view *views[3] = { &r->out, &r->in, &r->mask };
    for (int k = 0; k < 3; k++)
        if (views[k]->ndim < 0 || views[k]->ndim > TFL_RANDOM_MAX_DIMS)
            return TFL_ERR_UNSUPPORTED;
    p->kernel = "rng";
    if (!count_items(r, p))
        return TFL_ERR_UNSUPPORTED;
    /* the operands the kind reads and writes, with their element sizes */
    const size_t oes = tfl_dtype_size(r->dtype);
    size_t es[3] = { oes, 0, 0 };
    tfl_dtype idt = r->dtype;
    if (r->kind == TFL_RANDOM_DROPOUT) {
        es[1] = oes;
        es[2] = 1;
    } else if (r->kind == TFL_RANDOM_RRELU) {
        es[1] = es[2] = oes;
    } else if (r->kind == TFL_RANDOM_BERNOULLI_TENSOR) {
        idt = r->in_dtype;
        es[1] = tfl_dtype_size(idt);
    }
    for (int k = 0; k < 3 && r->numel > 0; k++)
        if (es[k] && !resolve_view(p, k, views[k], (uint64_t)r->numel, es[k]))
            return TFL_ERR_INVALID;
    set_opts(p, r, idt, needs_fp64(r), NULL);
    return TFL_OK;
}

int ocl_random_supported(const tfl_op *op)
{
    rplan p;
    return plan_op(op, &p) == TFL_OK;
}

/* ------------------------------------------------------------ running */

/* The views' shapes for voff (NULL when all are contiguous); the caller
 * releases it once the launch is enqueued. */
static cl_int dims_buffer(const tfl_random_op *r, const rplan *p, cl_mem *out)
{
    *out = NULL;
    if (!p->strided[0] && !p->strided[1] && !p->strided[2])
        return CL_SUCCESS;
    cl_long v[3 * VIEW_LONGS];
    memset(v, 0, sizeof v);
    const tfl_random_view *views[3] = { &r->out, &r->in, &r->mask };
    for (int k = 0; k < 3; k++) {
        cl_long *d = v + k * VIEW_LONGS;
        d[0] = views[k]->ndim;
        for (int i = 0; i < views[k]->ndim; i++) {
            d[1 + i] = views[k]->sizes[i];
            d[1 + TFL_RANDOM_MAX_DIMS + i] = views[k]->strides[i];
        }
    }
    cl_int rc;
    *out = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof v,
                          v, &rc);
    return rc;
}

static void rng_args(ocl_args *a, const tfl_random_op *r, const rplan *p, cl_mem dims)
{
    /* unused operands get the output buffer: never touched */
    for (int i = 0; i < 3; i++) {
        cl_mem m = p->a[i].b ? p->a[i].b : p->a[0].b;
        OCL_ADD(a, m);
        OCL_ADD(a, p->a[i].o);
    }
    OCL_ADD(a, dims);
    cl_ulong seed = r->seed, offset = r->offset, T = r->threads, numel = (cl_ulong)r->numel;
    cl_ulong items = p->items, tn = p->tn, range = r->range;
    cl_long base = r->base;
    OCL_ADD(a, seed);
    OCL_ADD(a, offset);
    OCL_ADD(a, T);
    OCL_ADD(a, numel);
    OCL_ADD(a, items);
    OCL_ADD(a, tn);
    /* a, b, c as double bits and as floats */
    OCL_ADD(a, r->a);
    OCL_ADD(a, r->b);
    OCL_ADD(a, r->c);
    cl_float fa = (cl_float)r->a, fb = (cl_float)r->b, fc = (cl_float)r->c;
    /* dropout: the kernel computes 1.0 / p in double and stores a float */
    cl_float scale = (cl_float)(1.0 / (double)fa);
    OCL_ADD(a, fa);
    OCL_ADD(a, fb);
    OCL_ADD(a, fc);
    OCL_ADD(a, scale);
    OCL_ADD(a, range);
    OCL_ADD(a, base);
}

/* The three operands (buffer, offset) the other kernels start with. */
static void operand_args(ocl_args *a, const rplan *p, int n)
{
    for (int i = 0; i < n; i++) {
        OCL_ADD(a, p->a[i].b);
        OCL_ADD(a, p->a[i].o);
    }
}

static void rows_args(ocl_args *a, const tfl_random_op *r, const rplan *p)
{
    cl_ulong rows = (cl_ulong)r->rows, cols = (cl_ulong)r->cols;
    if (strcmp(p->kernel, "renorm") == 0) {
        operand_args(a, p, 1);
        OCL_ADD(a, rows);
        OCL_ADD(a, cols);
        return;
    }
    cl_ulong seed = r->seed, offset = r->offset, samples = (cl_ulong)r->samples;
    cl_ulong gy = r->grid_y, per_row = (cl_ulong)r->grid_x * r->block_x;
    operand_args(a, p, 3);
    OCL_ADD(a, seed);
    OCL_ADD(a, offset);
    OCL_ADD(a, rows);
    OCL_ADD(a, cols);
    OCL_ADD(a, samples);
    OCL_ADD(a, gy);
    OCL_ADD(a, per_row);
}

static void mscale_args(ocl_args *a, const tfl_random_op *r, const rplan *p)
{
    cl_ulong n = (cl_ulong)r->numel;
    cl_float scale = (cl_float)r->a;
    operand_args(a, p, 3);
    OCL_ADD(a, n);
    OCL_ADD(a, scale);
}

tfl_status ocl_random_run(const tfl_op *op, tfl_stream s)
{
    rplan p;
    tfl_status st = plan_op(op, &p);
    if (st != TFL_OK || p.items == 0)
        return st;
    const tfl_random_op *r = &op->u.random;
    ocl_kernel *k = ocl_kernel_get(rng_src, p.opts, p.kernel);
    if (!k) {
        OCL_LOG(OCL_ERROR, "opencl: random kind %d: no kernel (%s)", (int)r->kind, p.opts);
        return TFL_ERR_INTERNAL;
    }
    cl_mem dims = NULL;
    ocl_args a = { 0 };
    if (strcmp(p.kernel, "rng") == 0) {
        st = ocl_status(dims_buffer(r, &p, &dims), "clCreateBuffer");
        rng_args(&a, r, &p, dims);
    } else if (strcmp(p.kernel, "mscale") == 0) {
        mscale_args(&a, r, &p);
    } else {
        rows_args(&a, r, &p);
    }
    if (st == TFL_OK)
        st = ocl_launch_args(k, &a, p.items, 0, s);
    /* freed once the launch that reads it has run */
    if (dims)
        clReleaseMemObject(dims);
    return st;
}

/*
 * ocl_index.c - TFL_OP_INDEX (torchfl/ops/index.h) on the OpenCL device:
 * index_select / index_add / index_copy / index_reduce, row gather, cat,
 * gather / scatter / scatter_add / scatter_reduce, advanced indexing get
 * and put, arange / linspace, triu / tril, and the sorted index_put_
 * (x[idx] backward).
 *
 * Semantics are the host backend's (backends/host/ops_index.c), exactly:
 *   - copies move bits (elem_size bytes as 1/2/4/8-byte units);
 *   - every accumulation runs in the host's order for each destination
 *     element: one work-item owns a destination element (or a run of
 *     them) and folds its contributions sequentially, in the order the
 *     host visits them.  No float atomics, so results are bit-identical
 *     and deterministic.  Where two destinations could alias (a stride-0
 *     or overlapping output) the op is refused, since work-items would
 *     race where the host has an order;
 *   - advanced-indexing put (x[idx] = v, duplicates: the last point in
 *     iteration order wins) runs in two passes: each point bids its
 *     number for its target with atomic_max on an int per output
 *     element, then only the winner writes;
 *   - bad indices: the host checks every index before writing anything
 *     and returns TFL_ERR_DEVICE.  Here a check kernel sets the device's
 *     assert word (ocl_assert_word, the kernels' `flag`) and the op's
 *     kernels do nothing when it is set: the next sync or query returns
 *     the sticky TFL_ERR_DEVICE, as a GPU's device-side assert does, and
 *     the output is untouched.
 *
 * Each op kind is planned first (shape folding, operands resolved to
 * (buffer, offset), aliasing checks): supported() is "the plan is
 * complete", run() enqueues it.
 */
#include "backends/opencl/ocl_src.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

enum {
    MAXD = 8,   /* dims a kernel walks, after folding */
    MAXI = 4,   /* advanced indexing: index tensors */
};

/* ------------------------------------------------------------ kernels */

/* Compiled with -DIDX (index type), -DUT/-DNU (an element is NU units of
 * type UT), -DDT/-DRED (arithmetic dtype and reduction, NONE/ASSIGN for
 * plain moves), -DOT (range_i output), -DUSE_VAL, -DHAS_FP64.  Offsets
 * are in bytes from (buffer, offset) pairs; shapes are t1/t3 structs by
 * value, dim 0 fastest. */
static const char k_src[] =
"#pragma OPENCL FP_CONTRACT OFF\n"
"#if HAS_FP64\n"
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"#endif\n"
"#define MAXD 8\n"
"#define NONE 0\n#define F32 1\n#define F64 2\n#define F16 3\n#define BF16 4\n"
"#define I32 5\n#define I64 6\n"
"#define ASSIGN 0\n#define ADD 1\n#define MUL 2\n#define MAX 3\n#define MIN 4\n"
"#define G __global uchar\n"
"typedef struct { long nd; long n[MAXD]; long s[MAXD]; } t1;\n"
"typedef struct { long nd; long n[MAXD]; long s[3][MAXD]; } t3;\n"
"\n"
"long at1(const t1 *t, long i)\n"
"{\n"
"    long o = 0;\n"
"    for (int d = 0; d < t->nd; d++) {\n"
"        long c = i % t->n[d];\n"
"        i /= t->n[d];\n"
"        o += c * t->s[d];\n"
"    }\n"
"    return o;\n"
"}\n"
"\n"
"void at3(const t3 *t, long i, long *o)\n"
"{\n"
"    o[0] = o[1] = o[2] = 0;\n"
"    for (int d = 0; d < t->nd; d++) {\n"
"        long c = i % t->n[d];\n"
"        i /= t->n[d];\n"
"        o[0] += c * t->s[0][d];\n"
"        o[1] += c * t->s[1][d];\n"
"        o[2] += c * t->s[2][d];\n"
"    }\n"
"}\n"
"\n"
"long ix(const G *b, long off) { return (long)*(const __global IDX *)(b + off); }\n"
"\n"

"void mv(G *d, const G *s)\n"
"{\n"
"    for (int u = 0; u < NU; u++)\n"
"        ((__global UT *)d)[u] = ((const __global UT *)s)[u];\n"
"}\n"
"\n"
"void zero(G *d)\n"
"{\n"
"    for (int u = 0; u < NU; u++)\n"
"        ((__global UT *)d)[u] = 0;\n"
"}\n"
"\n"
"#if DT == NONE\n"
"typedef float AL;\n"
"#else\n"
/* fp16 / bf16 <-> float, round to nearest even; a NaN keeps its sign and
 * top payload bits and is quietened (the host's common/half.h) */
OCL_SRC_LOWP
"#if DT == F32\n"
"typedef float A; typedef float AL;\n"
"#define LD(p) (*(const __global float *)(p))\n"
"#define ST(p, v) (*(__global float *)(p) = (v))\n"
"#elif DT == F64\n"
"typedef double A; typedef double AL;\n"
"#define LD(p) (*(const __global double *)(p))\n"
"#define ST(p, v) (*(__global double *)(p) = (v))\n"
"#elif DT == F16\n"
"typedef float A; typedef float AL;\n"
"#define LD(p) ocl_f16_val(*(const __global ushort *)(p))\n"
"#define ST(p, v) (*(__global ushort *)(p) = ocl_f16_bits(v))\n"
"#elif DT == BF16\n"
"typedef float A; typedef float AL;\n"
"#define LD(p) ocl_bf16_val(*(const __global ushort *)(p))\n"
"#define ST(p, v) (*(__global ushort *)(p) = ocl_bf16_bits(v))\n"
"#elif DT == I32\n"
"typedef int A; typedef long AL; typedef uint UA;\n"
"#define INTS 1\n"
"#define LD(p) (*(const __global int *)(p))\n"
"#define ST(p, v) (*(__global int *)(p) = (v))\n"
"#elif DT == I64\n"
"typedef long A; typedef long AL; typedef ulong UA;\n"
"#define INTS 1\n"
"#define LD(p) (*(const __global long *)(p))\n"
"#define ST(p, v) (*(__global long *)(p) = (v))\n"
"#endif\n"
"\n"
"/* a (op)= b as the host's reduce_elem: integers wrap, max/min of floats\n"
" * keep the non-NaN operand (fmax/fmin) */\n"
"A fold2(A a, A b)\n"
"{\n"
"#if defined(INTS)\n"
"#if RED == ADD\n"
"    return (A)((UA)a + (UA)b);\n"
"#elif RED == MUL\n"
"    return (A)((UA)a * (UA)b);\n"
"#elif RED == MAX\n"
"    return a > b ? a : b;\n"
"#else\n"
"    return a < b ? a : b;\n"
"#endif\n"
"#else\n"
"#if RED == ADD\n"
"    return a + b;\n"
"#elif RED == MUL\n"
"    return a * b;\n"
"#elif RED == MAX\n"
"    return fmax(a, b);\n"
"#else\n"
"    return fmin(a, b);\n"
"#endif\n"
"#endif\n"
"}\n"
"\n"
"/* a + b * alpha as the host's add_scaled (index_add) */\n"
"A add_alpha(A a, A b, AL al)\n"
"{\n"
"#if defined(INTS)\n"
"    return (A)((UA)a + (UA)b * (UA)al);\n"
"#else\n"
"    return a + b * al;\n"
"#endif\n"
"}\n"
"#endif\n"
"\n"
"#if RED == ASSIGN\n"
"#define APPLY(d, s) mv(d, s)\n"
"#define APPLY_AL(d, s, al) mv(d, s)\n"
"#else\n"
"#define APPLY(d, s) ST(d, fold2(LD(d), LD(s)))\n"
"#if RED == ADD\n"
"#define APPLY_AL(d, s, al) ST(d, add_alpha(LD(d), LD(s), al))\n"
"#else\n"
"#define APPLY_AL(d, s, al) APPLY(d, s)\n"
"#endif\n"
"#endif\n"
"\n"
"/* index values of an n-d view outside [lo, hi) */\n"
"__kernel void chk(__global int *flag, const G *ib, ulong io, t1 v, long n, long lo, long hi)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n)\n"
"        return;\n"
"    long k = ix(ib + io, at1(&v, i));\n"
"    if (k < lo || k >= hi)\n"
"        *flag = 1;\n"
"}\n"
"\n"
"/* index_select (dst side k, source row index[k]): one element each */\n"
"__kernel void sel(__global const int *flag, G *db, ulong dof, const G *sb, ulong sof,\n"
"                  const G *ib, ulong iof, t1 dsl, t1 ssl, t1 iv, long inner, long nidx,\n"
"                  long dstep, long sstep, AL al)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= inner * nidx || flag[0])\n"
"        return;\n"
"    long k = i / inner, e = i - k * inner;\n"
"    long r = ix(ib + iof, at1(&iv, k));\n"
"    APPLY_AL(db + dof + at1(&dsl, e) + k * dstep, sb + sof + at1(&ssl, e) + r * sstep, al);\n"
"}\n"
"\n"
"/* index_add / index_copy / index_reduce (dst side index[k]): a slice\n"
" * element each, its contributions in k order as the host's */\n"
"__kernel void sel_acc(__global const int *flag, G *db, ulong dof, const G *sb, ulong sof,\n"
"                      const G *ib, ulong iof, t1 dsl, t1 ssl, t1 iv, long inner, long nidx,\n"
"                      long dstep, long sstep, AL al)\n"
"{\n"
"    long e = get_global_id(0);\n"
"    if (e >= inner || flag[0])\n"
"        return;\n"
"    G *d = db + dof + at1(&dsl, e);\n"
"    const G *s = sb + sof + at1(&ssl, e);\n"
"    for (long k = 0; k < nidx; k++) {\n"
"        long r = ix(ib + iof, at1(&iv, k));\n"
"        APPLY_AL(d + r * dstep, s + k * sstep, al);\n"
"    }\n"
"}\n"
"\n"
"/* row gather: unit u of row k */\n"
"__kernel void rows(__global const int *flag, G *ob, ulong oof, const G *inb, ulong inof,\n"
"                   const G *ib, ulong iof, long n, long units, long ostr, long istr,\n"
"                   long nrows)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n * units || flag[0])\n"
"        return;\n"
"    long k = i / units, u = i - k * units;\n"
"    long r = ix(ib + iof, k * (long)sizeof(IDX));\n"
"    if (r < 0)\n"
"        r += nrows;\n"
"    ((__global UT *)(ob + oof + k * ostr))[u] = ((const __global UT *)(inb + inof + r * istr))[u];\n"
"}\n"
"\n"
"/* one cat input: v's operand 0 in the output, operand 1 in the input */\n"
"__kernel void cat(G *ob, ulong oof, const G *inb, ulong inof, t3 v, long n)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n)\n"
"        return;\n"
"    long o[3];\n"
"    at3(&v, i, o);\n"
"    mv(ob + oof + o[0], inb + inof + o[1]);\n"
"}\n"
"\n"
"/* gather / scatter: a point of the outer dims each, the line dims (self\n"
" * stride 0: points sharing self's element, or its line for a scatter)\n"
" * walked in the host's order */\n"
"__kernel void sg(__global const int *flag, G *selfb, ulong sfo, const G *srcb, ulong sro,\n"
"                 const G *ib, ulong iof, t3 outer, t3 line, long nouter, long nline,\n"
"                 long isize, long shift, int scatter, ulong v0, ulong v1)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= nouter || flag[0])\n"
"        return;\n"
"    long o[3], l[3];\n"
"    at3(&outer, i, o);\n"
"#if USE_VAL\n"
"    union { ulong w[2]; UT u[16 / sizeof(UT)]; } val;\n"
"    val.w[0] = v0;\n"
"    val.w[1] = v1;\n"
"#endif\n"
"    for (long j = 0; j < nline; j++) {\n"
"        at3(&line, j, l);\n"
"        long k = ix(ib + iof, o[2] + l[2]);\n"
"        if (k < 0)\n"
"            k += isize;\n"
"        G *d = selfb + sfo + o[0] + l[0];\n"
"        const G *s = srcb + sro + o[1] + l[1];\n"
"        if (scatter)\n"
"            d += k * shift;\n"
"        else\n"
"            s += k * shift;\n"
"#if USE_VAL\n"
"        for (int u = 0; u < NU; u++)\n"
"            ((__global UT *)d)[u] = val.u[u];\n"
"#else\n"
"        APPLY(d, s);\n"
"#endif\n"
"    }\n"
"}\n"
"\n"
"#define ADV_K(q, b, bo) if (ist.nd > q) { \\\n"
"        long k = *(const __global long *)(b + bo + o[2]); \\\n"
"        off += (k < 0 ? k + ist.n[q] : k) * ist.s[q]; }\n"
"\n"
"/* advanced indexing; mode 0: get, 1: put bids (the largest point number\n"
" * per target wins: the host's last write), 2: put by the winners */\n"
"__kernel void adv(__global const int *flag, G *ob, ulong oof, const G *inb, ulong inof,\n"
"                  const G *x0, ulong q0, const G *x1, ulong q1, const G *x2, ulong q2,\n"
"                  const G *x3, ulong q3, t1 ist, t3 it, long n, int mode,\n"
"                  __global int *win, long wlo, long es)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n || flag[0])\n"
"        return;\n"
"    long o[3], off = 0;\n"
"    at3(&it, i, o);\n"
"    ADV_K(0, x0, q0) ADV_K(1, x1, q1) ADV_K(2, x2, q2) ADV_K(3, x3, q3)\n"
"    if (mode == 0) {\n"
"        mv(ob + oof + o[0], inb + inof + o[1] + off);\n"
"        return;\n"
"    }\n"
"    long slot = (o[0] + off - wlo) / es;\n"
"    if (mode == 1)\n"
"        atomic_max(win + slot, (int)i);\n"
"    else if (win[slot] == (int)i)\n"
"        mv(ob + oof + o[0] + off, inb + inof + o[1]);\n"
"}\n"
"\n"
"#if DT == F32 || DT == F64\n"
"__kernel void range_f(G *ob, ulong oof, long n, int lin, A start, A step, A end, long steps,\n"
"                      long halfway)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n)\n"
"        return;\n"
"    A v;\n"
"    if (!lin)\n"
"        v = start + step * (A)i;\n"
"    else\n"
"        v = i < halfway ? start + step * (A)i : end - step * (A)(steps - i - 1);\n"
"    ((__global A *)(ob + oof))[i] = v;\n"
"}\n"
"#endif\n"
"\n"
"#ifdef OT\n"
"/* integer outputs: arange in wrapping int64, linspace in float */\n"
"__kernel void range_i(G *ob, ulong oof, long n, int lin, long istart, long istep, long iend,\n"
"                      float fstep, long steps, long halfway)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n)\n"
"        return;\n"
"    long v;\n"
"    if (!lin)\n"
"        v = (long)((ulong)istart + (ulong)istep * (ulong)i);\n"
"    else if (i < halfway)\n"
"        v = (long)((float)istart + fstep * (float)i);\n"
"    else\n"
"        v = (long)((float)iend - fstep * (float)(steps - i - 1));\n"
"    ((__global OT *)(ob + oof))[i] = (OT)v;\n"
"}\n"
"#endif\n"
"\n"
"/* triu / tril: bt walks the batch dims (operand 0 dst, 1 src) */\n"
"__kernel void tri(G *db, ulong dof, const G *sb, ulong sof, t3 bt, long rows, long cols,\n"
"                  long dri, long drj, long sri, long srj, long diag, int upper, long n)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n)\n"
"        return;\n"
"    long j = i % cols, t = i / cols, r = t % rows, o[3];\n"
"    at3(&bt, t / rows, o);\n"
"    G *d = db + dof + o[0] + r * dri + j * drj;\n"
"    int keep = upper ? j - r >= diag : j - r <= diag;\n"
"    if (keep)\n"
"        mv(d, sb + sof + o[1] + r * sri + j * srj);\n"
"    else\n"
"        zero(d);\n"
"}\n"
"\n"
"/* sorted index_put_: rows inside the weight, positions in [0, n) */\n"
"__kernel void ps_chk(__global int *flag, const G *sb, ulong so, const G *pb, ulong po, long n,\n"
"                     long L, long sbef, long outer, long wbytes, long es)\n"
"{\n"
"    long p = get_global_id(0);\n"
"    if (p >= n)\n"
"        return;\n"
"    long s = ((const __global long *)(sb + so))[p], q = ((const __global long *)(pb + po))[p];\n"
"    long hi = s * L + (outer - 1) * sbef + L;\n"
"    if (s < 0 || q < 0 || q >= n || hi * es > wbytes)\n"
"        *flag = 1;\n"
"}\n"
"\n"
"/* element f of row z of sorted position p; a run of equal indices is\n"
" * folded in order by its first work-item (accumulate) or written by its\n"
" * last (assign) */\n"
"__kernel void ps(__global const int *flag, G *wb, ulong wo, const G *gb, ulong go,\n"
"                 const G *sb, ulong so, const G *pb, ulong po, long n, long L, long sbef,\n"
"                 long outer, int acc, AL al)\n"
"{\n"
"    long i = get_global_id(0);\n"
"    if (i >= n * L * outer || flag[0])\n"
"        return;\n"
"    const __global long *srt = (const __global long *)(sb + so);\n"
"    const __global long *pos = (const __global long *)(pb + po);\n"
"    long f = i % L, t = i / L, p = t % n, z = t / n, es = NU * (long)sizeof(UT);\n"
"    long s = srt[p];\n"
"    G *w = wb + wo + (s * L + z * sbef + f) * es;\n"
"    const G *g = gb + go + (z * n * L + f) * es;\n"
"    if (!acc) {\n"
"        if (p + 1 == n || srt[p + 1] != s)\n"
"            mv(w, g + pos[p] * L * es);\n"
"        return;\n"
"    }\n"
"    if (p > 0 && srt[p - 1] == s)\n"
"        return;\n"
"    for (long q = p; q < n && srt[q] == s; q++)\n"
"        APPLY_AL(w, g + pos[q] * L * es, al);\n"
"}\n";

/* ------------------------------------------------------------ kernels: cache */

/* Kernel arguments by value, as the kernels declare them. */
typedef struct t1 { cl_long nd, n[MAXD], s[MAXD]; } t1;
typedef struct t3 { cl_long nd, n[MAXD], s[3][MAXD]; } t3;

/* The build variant of a kernel (see k_src). */
typedef struct kvar {
    int idx64;          /* IDX: long (else int) */
    int unit, nu;       /* UT bytes, NU */
    int dt;             /* tfl_dtype of the arithmetic, -1 NONE */
    int red;            /* tfl_index_reduce */
    int use_val;
    int ot;             /* range_i's output tfl_dtype, -1 none */
} kvar;

static const char *dt_macro(int dt)
{
    switch (dt) {
    case TFL_DT_F32: return "F32";
    case TFL_DT_F64: return "F64";
    case TFL_DT_F16: return "F16";
    case TFL_DT_BF16: return "BF16";
    case TFL_DT_I32: return "I32";
    case TFL_DT_I64: return "I64";
    default: return "NONE";
    }
}

/* range_i's integer output types (not bool) */
static const char *ot_type(int dt)
{
    return dt == TFL_DT_I64 || dt == TFL_DT_I32 || dt == TFL_DT_I8 || dt == TFL_DT_U8
               ? ocl_type_of((tfl_dtype)dt) : NULL;
}

/* (name, variant) -> kernel, so that a launch does not rehash the source
 * (ocl_kernel_get keys its cache by source and options). */
OCL_KCACHE(ix_kernels, 128);

typedef struct kkey {
    char name[8];
    kvar v;
} kkey;
_Static_assert(sizeof(kkey) <= OCL_KEY_MAX, "an index kernel's key fits the cache");

static ocl_kernel *kernel(const char *name, const kvar *v)
{
    kkey key;
    memset(&key, 0, sizeof key);
    snprintf(key.name, sizeof key.name, "%s", name);
    key.v = *v;
    ocl_kernel *k = ocl_kcache_get(&ix_kernels, &key, sizeof key, NULL);
    if (k)
        return k;
    char opts[160];
    const char *ot = ot_type(v->ot);
    snprintf(opts, sizeof opts,
             "-DIDX=%s -DUT=%s -DNU=%d -DDT=%s -DRED=%d -DUSE_VAL=%d -DHAS_FP64=%d%s%s",
             v->idx64 ? "long" : "int", ocl_bits_type((size_t)v->unit), v->nu,
             dt_macro(v->dt), v->red, v->use_val, ocl_dev()->fp64 ? 1 : 0,
             ot ? " -DOT=" : "", ot ? ot : "");
    k = ocl_kernel_get(k_src, opts, name);
    ocl_kcache_put(&ix_kernels, &key, sizeof key, k, 0);
    return k;
}

/* Kernel `name` of variant v over n work items on s, arguments a. */
static tfl_status launch(const char *name, const kvar *v, const ocl_karg *a, int na, int64_t n,
                         tfl_stream s)
{
    return ocl_launch(kernel(name, v), a, na, n > 0 ? (size_t)n : 0, 0, s);
}

/* ------------------------------------------------------------ shapes */

/* Dims of up to 3 operands, dim 0 fastest, strides in bytes. */
typedef struct dims {
    int nd;
    int64_t n[TFL_INDEX_MAX_DIMS + 1];
    int64_t s[3][TFL_INDEX_MAX_DIMS + 1];
} dims;

static int64_t count_of(const dims *d)
{
    int64_t c = 1;
    for (int i = 0; i < d->nd; i++)
        if (d->n[i] < 0 || __builtin_mul_overflow(c, d->n[i], &c))
            return -1;
    return c;
}

/* Tensor t without dim `skip` as operand k of d (row-major reversed:
 * dim 0 fastest), strides times es.  0 on overflow. */
static int dims_put(dims *d, int k, const tfl_index_tensor *t, int skip, int64_t es)
{
    int m = 0;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (i == skip)
            continue;
        d->n[m] = t->sizes[i];
        if (t->sizes[i] < 0 || __builtin_mul_overflow(t->strides[i], es, &d->s[k][m]))
            return 0;
        m++;
    }
    d->nd = m;
    return 1;
}

/* d without size-1 dims, each dim merged into the faster one before it
 * where every operand of the first nops steps evenly across the pair.  0
 * when more than MAXD dims remain. */
static int fold(const dims *d, int nops, t3 *t)
{
    memset(t, 0, sizeof *t);
    int m = 0;
    for (int i = 0; i < d->nd; i++) {
        if (d->n[i] == 1)
            continue;
        int merge = m > 0;
        for (int k = 0; k < nops && merge; k++) {
            int64_t e;
            merge = !__builtin_mul_overflow(t->s[k][m - 1], t->n[m - 1], &e) && e == d->s[k][i];
        }
        if (merge && !__builtin_mul_overflow(t->n[m - 1], d->n[i], &t->n[m - 1]))
            continue;
        if (m == MAXD)
            return 0;
        t->n[m] = d->n[i];
        for (int k = 0; k < nops; k++)
            t->s[k][m] = d->s[k][i];
        m++;
    }
    t->nd = m;
    return 1;
}

static t1 t1_of(const t3 *t, int k)
{
    t1 r;
    memset(&r, 0, sizeof r);
    r.nd = t->nd;
    for (int i = 0; i < t->nd; i++) {
        r.n[i] = t->n[i];
        r.s[i] = t->s[k][i];
    }
    return r;
}

/* Operand k of d folded alone. */
static int fold1(const dims *d, int k, t1 *out)
{
    dims one = { .nd = d->nd };
    memcpy(one.n, d->n, sizeof one.n);
    memcpy(one.s[0], d->s[k], sizeof one.s[0]);
    t3 t;
    if (!fold(&one, 1, &t))
        return 0;
    *out = t1_of(&t, 0);
    return 1;
}

/* 1 when no two points of (n[i], s[i]) (plus the dim (xn, xs)) reach
 * overlapping es-byte elements: the dims sorted by |stride|, each stride
 * clears everything the smaller ones reach. */
static int injective(const t1 *t, int64_t xn, int64_t xs, int64_t es)
{
    int64_t n[MAXD + 1], a[MAXD + 1];
    int m = 0;
    for (int i = 0; i <= t->nd; i++) {
        int64_t ni = i < t->nd ? t->n[i] : xn, si = i < t->nd ? t->s[i] : xs;
        if (ni <= 1)
            continue;
        if (si == INT64_MIN)
            return 0;
        n[m] = ni;
        a[m] = si < 0 ? -si : si;
        for (int j = m++; j > 0 && a[j] < a[j - 1]; j--) {
            int64_t tn = n[j], ta = a[j];
            n[j] = n[j - 1], a[j] = a[j - 1];
            n[j - 1] = tn, a[j - 1] = ta;
        }
    }
    int64_t reach = es, ext;
    for (int i = 0; i < m; i++) {
        if (a[i] < reach || __builtin_mul_overflow(n[i] - 1, a[i], &ext) ||
            __builtin_add_overflow(reach, ext, &reach))
            return 0;
    }
    return 1;
}

/* A byte range [lo, hi) relative to an operand's base. */
typedef struct rng { int64_t lo, hi; int ok; } rng;

static rng rng_new(int64_t es)
{
    return (rng){ 0, es, es > 0 };
}

static void rng_dim(rng *r, int64_t n, int64_t s)
{
    int64_t ext;
    if (n <= 1 || !r->ok)
        return;
    if (__builtin_mul_overflow(n - 1, s, &ext) ||
        (ext < 0 ? __builtin_add_overflow(r->lo, ext, &r->lo)
                 : __builtin_add_overflow(r->hi, ext, &r->hi)))
        r->ok = 0;
}

static void rng_t1(rng *r, const t1 *t)
{
    for (int i = 0; i < t->nd; i++)
        rng_dim(r, t->n[i], t->s[i]);
}

/* A device operand at p over the bytes r spans around it. */
static int opnd_get(const void *p, const rng *r, ocl_arg *o)
{
    return r->ok && ocl_arg_span(p, r->lo, r->hi, o);
}

/* The largest of 8, 4, 2, 1 dividing es and every value of v. */
static int unit_of(int64_t es, const int64_t *v, int nv)
{
    uint64_t bits = (uint64_t)es | 8u;
    for (int i = 0; i < nv; i++)
        bits |= (uint64_t)v[i];
    return (int)(bits & (~bits + 1));
}

static int unit_t1(int unit, const t1 *t)
{
    return unit_of(unit, t->s, (int)t->nd);
}

static int is_arith(int dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_I32 || dt == TFL_DT_I64 ||
           dt == TFL_DT_F16 || dt == TFL_DT_BF16;
}

/* Arithmetic reductions need dtype-sized, aligned elements (and doubles
 * on the device for F64). */
static int arith_ok(const tfl_index_op *o, int red, int unit)
{
    if (red == TFL_INDEX_ASSIGN)
        return 1;
    size_t es = tfl_dtype_size(o->dtype);
    return red >= TFL_INDEX_ADD && red <= TFL_INDEX_MIN && is_arith(o->dtype) &&
           o->elem_size == es && (size_t)unit == es && (o->dtype != TFL_DT_F64 || ocl_dev()->fp64);
}

/* alpha as the kernel's AL type (float, double, or long for integers) */
typedef struct alpha_arg { union { cl_float f; cl_double d; cl_long i; } u; size_t size; } alpha_arg;

static alpha_arg alpha_of(int dt, double a)
{
    alpha_arg r;
    memset(&r, 0, sizeof r);
    if (dt == TFL_DT_F64) {
        r.u.d = a;
        r.size = sizeof(cl_double);
    } else if (dt == TFL_DT_I32 || dt == TFL_DT_I64) {
        r.u.i = (cl_long)a;
        r.size = sizeof(cl_long);
    } else {
        r.u.f = (cl_float)a;
        r.size = sizeof(cl_float);
    }
    return r;
}

static int idx_ok(tfl_dtype t)
{
    return t == TFL_DT_I32 || t == TFL_DT_I64;
}

/* Launch chk over view v of the index operand x: values outside [lo, hi)
 * set the assert word. */
static tfl_status check_view(const ocl_arg *x, const t1 *v, int64_t n, int idx64, int64_t lo,
                             int64_t hi, tfl_stream s)
{
    kvar kv = { .idx64 = idx64, .unit = 1, .nu = 1, .dt = -1, .ot = -1 };
    cl_long clo = lo, chi = hi, cn = n;
    cl_mem flag = ocl_assert_word();
    const ocl_karg a[] = { OCL_KA(flag), OCL_KB(*x), OCL_KA(*v), OCL_KA(cn), OCL_KA(clo),
                           OCL_KA(chi) };
    return launch("chk", &kv, a, OCL_NARGS(a), n, s);
}

static int64_t ptr_bits(const void *p)
{
    return (int64_t)(uintptr_t)p;
}

/* ------------------------------------------------------------ index_select / index_add */

typedef struct sel_plan {
    t1 dsl, ssl, iv;               /* slices of dst and src, the index view */
    cl_long inner, nidx, dstep, sstep;
    ocl_arg d, s, x;
    int unit, acc;
} sel_plan;

/* A sequential fold (index_add's k loop, a scatter's line) longer than
 * this on fewer work-items than that is left to the host: one work-item
 * would run it all. */
enum { SERIAL_LEN = 65536, SERIAL_WIDTH = 32 };

static int too_serial(int64_t width, int64_t len)
{
    return width < SERIAL_WIDTH && len > SERIAL_LEN;
}

static tfl_status sel_plan_of(const tfl_index_op *o, sel_plan *p)
{
    const tfl_index_tensor *dst = &o->u.select.dst, *src = &o->u.select.src,
                           *ix = &o->u.select.index;
    const int dd = o->u.select.dst_dim, sd = o->u.select.src_dim;
    const int64_t es = (int64_t)o->elem_size, ies = o->index_dtype == TFL_DT_I64 ? 8 : 4;
    memset(p, 0, sizeof *p);
    if (!idx_ok(o->index_dtype) || dst->ndim < 1 || dst->ndim > TFL_INDEX_MAX_DIMS ||
        src->ndim < 1 || src->ndim > TFL_INDEX_MAX_DIMS || ix->ndim < 1 ||
        ix->ndim > TFL_INDEX_MAX_DIMS || dd < 0 || dd >= dst->ndim || sd < 0 || sd >= src->ndim)
        return TFL_ERR_UNSUPPORTED;
    p->acc = o->u.select.index_dst != 0;
    dims dm, sm, im;
    if (!dims_put(&dm, 0, dst, dd, es) || !dims_put(&sm, 0, src, sd, es) ||
        !dims_put(&im, 0, ix, -1, ies))
        return TFL_ERR_UNSUPPORTED;
    p->inner = count_of(&dm);
    p->nidx = p->acc ? src->sizes[sd] : dst->sizes[dd];
    if (p->inner < 0 || p->inner != count_of(&sm) || p->nidx < 0 || count_of(&im) != p->nidx)
        return TFL_ERR_UNSUPPORTED;   /* the host: invalid */
    if (p->inner == 0 || p->nidx == 0)
        return TFL_OK;                /* the host checks no index either */
    int64_t work;
    if (!fold1(&dm, 0, &p->dsl) || !fold1(&sm, 0, &p->ssl) || !fold1(&im, 0, &p->iv) ||
        __builtin_mul_overflow(dst->strides[dd], es, &p->dstep) ||
        __builtin_mul_overflow(src->strides[sd], es, &p->sstep) ||
        __builtin_mul_overflow(p->inner, p->nidx, &work))
        return TFL_ERR_UNSUPPORTED;
    const int64_t v[] = { ptr_bits(dst->data), ptr_bits(src->data), p->dstep, p->sstep };
    p->unit = unit_t1(unit_t1(unit_of(es, v, 4), &p->dsl), &p->ssl);
    const int64_t bound = o->u.select.index_bound;
    const int64_t dext = p->acc ? bound : p->nidx, sext = p->acc ? p->nidx : bound;
    if (!arith_ok(o, o->u.select.reduce, p->unit) || !injective(&p->dsl, dext, p->dstep, es) ||
        (p->acc && too_serial(p->inner, p->nidx)))
        return TFL_ERR_UNSUPPORTED;
    rng rd = rng_new(es), rs = rng_new(es), ri = rng_new(ies);
    rng_t1(&rd, &p->dsl);
    rng_dim(&rd, dext, p->dstep);
    rng_t1(&rs, &p->ssl);
    rng_dim(&rs, sext, p->sstep);
    rng_t1(&ri, &p->iv);
    if (!opnd_get(dst->data, &rd, &p->d) || !opnd_get(src->data, &rs, &p->s) ||
        !opnd_get(ix->data, &ri, &p->x))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status sel_run(const tfl_index_op *o, const sel_plan *p, tfl_stream s)
{
    if (p->inner == 0 || p->nidx == 0)
        return TFL_OK;
    const int idx64 = o->index_dtype == TFL_DT_I64, red = o->u.select.reduce;
    tfl_status st = check_view(&p->x, &p->iv, p->nidx, idx64, 0, o->u.select.index_bound, s);
    if (st != TFL_OK)
        return st;
    kvar kv = { .idx64 = idx64, .unit = p->unit, .nu = (int)o->elem_size / p->unit,
                .dt = red == TFL_INDEX_ASSIGN ? -1 : (int)o->dtype, .red = red, .ot = -1 };
    alpha_arg al = alpha_of(kv.dt, o->u.select.alpha);
    cl_mem flag = ocl_assert_word();
    const ocl_karg a[] = { OCL_KA(flag), OCL_KB(p->d), OCL_KB(p->s), OCL_KB(p->x),
                           OCL_KA(p->dsl), OCL_KA(p->ssl), OCL_KA(p->iv), OCL_KA(p->inner),
                           OCL_KA(p->nidx), OCL_KA(p->dstep), OCL_KA(p->sstep),
                           { al.size, &al.u } };
    return launch(p->acc ? "sel_acc" : "sel", &kv, a, OCL_NARGS(a),
                  p->acc ? p->inner : p->inner * p->nidx, s);
}

/* ------------------------------------------------------------ row gather */

typedef struct rows_plan {
    ocl_arg out, in, x;
    cl_long n, units, ostr, istr, rows;
    int unit;
} rows_plan;

static tfl_status rows_plan_of(const tfl_index_op *o, rows_plan *p)
{
    const int64_t rb = o->u.gather_rows.row_bytes, ies = o->index_dtype == TFL_DT_I64 ? 8 : 4;
    memset(p, 0, sizeof *p);
    if (!idx_ok(o->index_dtype) || rb < 0)
        return TFL_ERR_UNSUPPORTED;
    p->n = o->u.gather_rows.n_index;
    if (p->n <= 0) {
        p->n = 0;
        return TFL_OK;
    }
    p->ostr = o->u.gather_rows.out_stride;
    p->istr = o->u.gather_rows.in_stride;
    p->rows = o->u.gather_rows.in_rows;
    rng rx = rng_new(ies);
    rng_dim(&rx, p->n, ies);
    if (!opnd_get(o->u.gather_rows.idx, &rx, &p->x))
        return TFL_ERR_INVALID;
    p->out = p->in = p->x;     /* stand-ins where nothing is moved */
    if (rb == 0)
        return TFL_OK;
    const int64_t v[] = { ptr_bits(o->u.gather_rows.out), ptr_bits(o->u.gather_rows.in),
                          p->ostr, p->istr };
    p->unit = unit_of(rb, v, 4);
    p->units = rb / p->unit;
    const t1 ov = { .nd = 1, .n = { p->n }, .s = { p->ostr } };
    int64_t work;
    if (!injective(&ov, 0, 0, rb) || __builtin_mul_overflow(p->n, p->units, &work))
        return TFL_ERR_UNSUPPORTED;
    rng ro = rng_new(rb), ri = rng_new(rb);
    rng_dim(&ro, p->n, p->ostr);
    rng_dim(&ri, p->rows, p->istr);
    if (!opnd_get(o->u.gather_rows.out, &ro, &p->out) ||
        (p->rows > 0 && !opnd_get(o->u.gather_rows.in, &ri, &p->in)))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status rows_run(const tfl_index_op *o, const rows_plan *p, tfl_stream s)
{
    if (p->n == 0)
        return TFL_OK;
    const int idx64 = o->index_dtype == TFL_DT_I64;
    const int64_t ies = idx64 ? 8 : 4, lo = o->u.gather_rows.allow_negative ? -p->rows : 0;
    const t1 iv = { .nd = 1, .n = { p->n }, .s = { ies } };
    tfl_status st = check_view(&p->x, &iv, p->n, idx64, lo, p->rows, s);
    if (st != TFL_OK || p->units == 0)
        return st;
    kvar kv = { .idx64 = idx64, .unit = p->unit, .nu = 1, .dt = -1, .ot = -1 };
    cl_mem flag = ocl_assert_word();
    const ocl_karg a[] = { OCL_KA(flag), OCL_KB(p->out), OCL_KB(p->in), OCL_KB(p->x),
                           OCL_KA(p->n), OCL_KA(p->units), OCL_KA(p->ostr), OCL_KA(p->istr),
                           OCL_KA(p->rows) };
    return launch("rows", &kv, a, OCL_NARGS(a), p->n * p->units, s);
}

/* ------------------------------------------------------------ cat */

typedef struct cat_in {
    t3 v;                /* operand 0: the output, 1: the input */
    ocl_arg out, in;
    cl_long n;
    int unit;
} cat_in;

typedef struct cat_plan { int n_inputs; } cat_plan;

/* One input with numel != 0, laid out as the host's cat_one. */
static tfl_status cat_input(const tfl_index_op *o, const tfl_index_cat_input *in, cat_in *c)
{
    const int nd = o->u.cat.ndim, cd = o->u.cat.dim;
    const int64_t es = (int64_t)o->elem_size;
    dims d = { .nd = nd };
    int64_t run = 1, base;
    for (int i = nd - 1; i >= 0; i--) {
        const int m = nd - 1 - i;
        d.n[m] = i == cd ? in->dim_size : o->u.cat.out_sizes[i];
        if (d.n[m] < 0 ||
            __builtin_mul_overflow(o->u.cat.out_strides[i], es, &d.s[0][m]) ||
            __builtin_mul_overflow(in->contiguous ? run : in->strides[i], es, &d.s[1][m]) ||
            __builtin_mul_overflow(run, d.n[m], &run))
            return TFL_ERR_UNSUPPORTED;
    }
    if (run != in->numel)
        return TFL_ERR_UNSUPPORTED;   /* the host: invalid */
    c->n = run;
    if (!fold(&d, 2, &c->v) || __builtin_mul_overflow(in->offset, o->u.cat.dim_stride, &base) ||
        __builtin_mul_overflow(base, es, &base))
        return TFL_ERR_UNSUPPORTED;
    const char *obase = (const char *)o->u.cat.out + base;
    const t1 ov = t1_of(&c->v, 0), iv = t1_of(&c->v, 1);
    const int64_t v[] = { ptr_bits(obase), ptr_bits(in->data) };
    c->unit = unit_t1(unit_t1(unit_of(es, v, 2), &ov), &iv);
    rng ro = rng_new(es), ri = rng_new(es);
    rng_t1(&ro, &ov);
    rng_t1(&ri, &iv);
    if (!opnd_get(obase, &ro, &c->out) || !opnd_get(in->data, &ri, &c->in))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status cat_plan_of(const tfl_index_op *o, cat_plan *p)
{
    const int nd = o->u.cat.ndim;
    p->n_inputs = o->u.cat.n_inputs;
    if (nd < 1 || nd > TFL_INDEX_CAT_DIMS || o->u.cat.dim < 0 || o->u.cat.dim >= nd ||
        p->n_inputs < 0 || (p->n_inputs && !o->u.cat.inputs))
        return TFL_ERR_UNSUPPORTED;
    /* one input's elements must not collide: the output is injective */
    tfl_index_tensor out = { .ndim = nd };
    for (int i = 0; i < nd; i++) {
        out.sizes[i] = o->u.cat.out_sizes[i];
        out.strides[i] = o->u.cat.out_strides[i];
    }
    dims d;
    t1 ov;
    if (!dims_put(&d, 0, &out, -1, (int64_t)o->elem_size) || !fold1(&d, 0, &ov) ||
        !injective(&ov, 0, 0, (int64_t)o->elem_size))
        return TFL_ERR_UNSUPPORTED;
    for (int i = 0; i < p->n_inputs; i++) {
        cat_in c;
        tfl_status st = o->u.cat.inputs[i].numel ? cat_input(o, &o->u.cat.inputs[i], &c) : TFL_OK;
        if (st != TFL_OK)
            return st;
    }
    return TFL_OK;
}

/* One launch per input, in order: where inputs overlap in the output the
 * later one wins, as on the host. */
static tfl_status cat_run(const tfl_index_op *o, const cat_plan *p, tfl_stream s)
{
    for (int i = 0; i < p->n_inputs; i++) {
        const tfl_index_cat_input *in = &o->u.cat.inputs[i];
        if (!in->numel)
            continue;
        cat_in c;
        tfl_status st = cat_input(o, in, &c);
        if (st != TFL_OK)
            return st;
        kvar kv = { .unit = c.unit, .nu = (int)o->elem_size / c.unit, .dt = -1, .ot = -1 };
        const ocl_karg a[] = { OCL_KB(c.out), OCL_KB(c.in), OCL_KA(c.v), OCL_KA(c.n) };
        st = launch("cat", &kv, a, OCL_NARGS(a), c.n, s);
        if (st != TFL_OK)
            return st;
    }
    return TFL_OK;
}

/* ------------------------------------------------------------ gather / scatter */

typedef struct sg_plan {
    t3 outer, line;      /* self stride != 0 / == 0 dims of the iteration */
    t1 iv;               /* the index operand alone */
    cl_long nouter, nline, npts, isize, shift;
    ocl_arg self, src, x;
    cl_ulong val[2];
    int unit, empty;
} sg_plan;

/* The dims of t whose operand-0 stride is (line = 1) or is not zero. */
static void split(const t3 *t, int line, t3 *out, cl_long *count)
{
    memset(out, 0, sizeof *out);
    *count = 1;
    for (int i = 0; i < t->nd; i++) {
        if ((t->s[0][i] == 0) != line)
            continue;
        const int m = (int)out->nd++;
        out->n[m] = t->n[i];
        for (int k = 0; k < 3; k++)
            out->s[k][m] = t->s[k][i];
        *count *= t->n[i];
    }
}

static tfl_status sg_plan_of(const tfl_index_op *o, sg_plan *p)
{
    const tfl_index_iter *it = &o->u.scatter_gather.iter;
    const int red = o->u.scatter_gather.reduce, scatter = o->u.scatter_gather.scatter != 0;
    const int use_val = o->u.scatter_gather.use_value != 0;
    const int64_t es = (int64_t)o->elem_size, ies = o->index_dtype == TFL_DT_I64 ? 8 : 4;
    memset(p, 0, sizeof *p);
    if (!idx_ok(o->index_dtype) || (use_val && (!scatter || es > 16 || red != TFL_INDEX_ASSIGN)) ||
        it->ndim < 0 || it->ndim > TFL_INDEX_MAX_DIMS)
        return TFL_ERR_UNSUPPORTED;
    dims d = { .nd = it->ndim };
    for (int i = 0; i < it->ndim; i++) {
        if (it->sizes[i] <= 0) {
            p->empty = 1;      /* the host visits no point, checks nothing */
            return TFL_OK;
        }
        d.n[i] = it->sizes[i];
        for (int k = 0; k < 3; k++)
            d.s[k][i] = it->strides[k][i];
    }
    t3 all;
    p->npts = count_of(&d);
    p->isize = o->u.scatter_gather.index_size;
    if (p->npts < 0 || !fold(&d, 3, &all) || !fold1(&d, 2, &p->iv) ||
        __builtin_mul_overflow(o->u.scatter_gather.index_stride, es, &p->shift))
        return TFL_ERR_UNSUPPORTED;
    split(&all, 0, &p->outer, &p->nouter);
    split(&all, 1, &p->line, &p->nline);
    const t1 a0 = t1_of(&all, 0), a1 = t1_of(&all, 1), so = t1_of(&p->outer, 0);
    const int64_t v[] = { ptr_bits(o->u.scatter_gather.self),
                          use_val ? 0 : ptr_bits(o->u.scatter_gather.src), p->shift };
    p->unit = unit_t1(unit_of(es, v, 3), &a0);
    if (!use_val)
        p->unit = unit_t1(p->unit, &a1);
    if (!arith_ok(o, red, p->unit) || !injective(&so, scatter ? p->isize : 0, p->shift, es) ||
        too_serial(p->nouter, p->nline))
        return TFL_ERR_UNSUPPORTED;
    rng r0 = rng_new(es), r1 = rng_new(es), rx = rng_new(ies);
    rng_t1(&r0, &a0);
    rng_t1(&r1, &a1);
    rng_dim(scatter ? &r0 : &r1, p->isize, p->shift);
    rng_t1(&rx, &p->iv);
    if (!opnd_get(o->u.scatter_gather.self, &r0, &p->self) || !opnd_get(o->u.scatter_gather.index, &rx, &p->x))
        return TFL_ERR_INVALID;
    if (use_val)
        p->src = p->self;
    else if (!opnd_get(o->u.scatter_gather.src, &r1, &p->src))
        return TFL_ERR_INVALID;
    memcpy(p->val, o->u.scatter_gather.value, sizeof p->val);
    return TFL_OK;
}

static tfl_status sg_run(const tfl_index_op *o, const sg_plan *p, tfl_stream s)
{
    if (p->empty)
        return TFL_OK;
    const int idx64 = o->index_dtype == TFL_DT_I64, red = o->u.scatter_gather.reduce;
    const int64_t lo = o->u.scatter_gather.allow_negative ? -p->isize : 0;
    tfl_status st = check_view(&p->x, &p->iv, p->npts, idx64, lo, p->isize, s);
    if (st != TFL_OK)
        return st;
    kvar kv = { .idx64 = idx64, .unit = p->unit, .nu = (int)o->elem_size / p->unit,
                .dt = red == TFL_INDEX_ASSIGN ? -1 : (int)o->dtype, .red = red,
                .use_val = o->u.scatter_gather.use_value != 0, .ot = -1 };
    cl_int scatter = o->u.scatter_gather.scatter != 0;
    cl_mem flag = ocl_assert_word();
    const ocl_karg a[] = { OCL_KA(flag), OCL_KB(p->self), OCL_KB(p->src), OCL_KB(p->x),
                           OCL_KA(p->outer), OCL_KA(p->line), OCL_KA(p->nouter),
                           OCL_KA(p->nline), OCL_KA(p->isize), OCL_KA(p->shift),
                           OCL_KA(scatter), OCL_KA(p->val[0]), OCL_KA(p->val[1]) };
    return launch("sg", &kv, a, OCL_NARGS(a), p->nouter, s);
}

/* ------------------------------------------------------------ advanced indexing */

typedef struct adv_plan {
    t3 it;
    t1 iv, ist;          /* the index offsets; (sizes, strides) of the indexed dims */
    cl_long n, wlo, slots, es;
    ocl_arg out, in, x[MAXI];
    int unit, empty;
} adv_plan;

/* put's bid table: one int per output element it can reach; larger
 * spans than this (and 4 per point) go to the host */
enum { ADV_SLOTS_MIN = 1 << 24 };

static tfl_status adv_plan_of(const tfl_index_op *o, adv_plan *p)
{
    const tfl_index_iter *it = &o->u.advanced.iter;
    const int ni = o->u.advanced.n_indices, put = o->u.advanced.put != 0;
    const int64_t es = (int64_t)o->elem_size;
    memset(p, 0, sizeof *p);
    p->es = es;
    if (ni < 0 || ni > MAXI || it->ndim < 0 || it->ndim > TFL_INDEX_MAX_DIMS)
        return TFL_ERR_UNSUPPORTED;
    dims d = { .nd = it->ndim };
    for (int i = 0; i < it->ndim; i++) {
        if (it->sizes[i] <= 0) {
            p->empty = 1;
            return TFL_OK;
        }
        d.n[i] = it->sizes[i];
        for (int k = 0; k < 3; k++)
            d.s[k][i] = it->strides[k][i];
    }
    p->n = count_of(&d);
    if (p->n < 0 || !fold(&d, 3, &p->it) || !fold1(&d, 2, &p->iv))
        return TFL_ERR_UNSUPPORTED;
    p->ist.nd = ni;
    for (int i = 0; i < ni; i++) {
        p->ist.n[i] = o->u.advanced.sizes[i];
        p->ist.s[i] = o->u.advanced.strides[i];
    }
    const t1 a0 = t1_of(&p->it, 0), a1 = t1_of(&p->it, 1);
    const int64_t v[] = { ptr_bits(o->u.advanced.out), ptr_bits(o->u.advanced.in) };
    p->unit = unit_t1(unit_t1(unit_t1(unit_of(es, v, 2), &a0), &a1), &p->ist);
    rng r0 = rng_new(es), r1 = rng_new(es), rx = rng_new(8);
    rng_t1(&r0, &a0);
    rng_t1(&r1, &a1);
    rng_t1(put ? &r0 : &r1, &p->ist);
    rng_t1(&rx, &p->iv);
    if (!put) {
        if (!injective(&a0, 0, 0, es))
            return TFL_ERR_UNSUPPORTED;
    } else {
        /* bids are per output element: targets must be whole elements */
        for (int i = 0; i < a0.nd; i++)
            if (a0.s[i] % es)
                return TFL_ERR_UNSUPPORTED;
        for (int i = 0; i < ni; i++)
            if (p->ist.s[i] % es)
                return TFL_ERR_UNSUPPORTED;
        p->wlo = r0.lo;
        p->slots = r0.ok ? (r0.hi - r0.lo) / es : 0;
        if (!r0.ok || p->n > INT_MAX ||
            p->slots > (p->n > ADV_SLOTS_MIN / 4 ? 4 * p->n : ADV_SLOTS_MIN))
            return TFL_ERR_UNSUPPORTED;
    }
    if (!opnd_get(o->u.advanced.out, &r0, &p->out) || !opnd_get(o->u.advanced.in, &r1, &p->in))
        return TFL_ERR_INVALID;
    for (int i = 0; i < MAXI; i++) {
        if (i >= ni)
            p->x[i] = i ? p->x[0] : p->out;    /* unused arguments */
        else if (!opnd_get(o->u.advanced.index_ptrs[i], &rx, &p->x[i]))
            return TFL_ERR_INVALID;
    }
    return TFL_OK;
}

static tfl_status adv_launch(const adv_plan *p, const kvar *kv, cl_mem win, cl_int mode,
                             tfl_stream s)
{
    cl_mem flag = ocl_assert_word();
    const ocl_karg a[] = { OCL_KA(flag), OCL_KB(p->out), OCL_KB(p->in), OCL_KB(p->x[0]),
                           OCL_KB(p->x[1]), OCL_KB(p->x[2]), OCL_KB(p->x[3]), OCL_KA(p->ist),
                           OCL_KA(p->it), OCL_KA(p->n), OCL_KA(mode), OCL_KA(win),
                           OCL_KA(p->wlo), OCL_KA(p->es) };
    return launch("adv", kv, a, OCL_NARGS(a), p->n, s);
}

/* put: bids on a table of -1s, then the winners write. */
static tfl_status adv_put(const adv_plan *p, const kvar *kv, tfl_stream s)
{
    cl_int rc;
    cl_mem win = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE,
                                (size_t)(p->slots > 0 ? p->slots : 1) * sizeof(cl_int), NULL, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer");
    const cl_int none = -1;
    cl_event ev = NULL;
    rc = clEnqueueFillBuffer(ocl_queue(s), win, &none, sizeof none, 0,
                             (size_t)(p->slots > 0 ? p->slots : 1) * sizeof(cl_int), 0, NULL, &ev);
    tfl_status st = ocl_status(rc, "clEnqueueFillBuffer");
    if (st == TFL_OK) {
        ocl_track(s, ev);
        st = adv_launch(p, kv, win, 1, s);
    }
    if (st == TFL_OK)
        st = adv_launch(p, kv, win, 2, s);
    clReleaseMemObject(win);
    return st;
}

static tfl_status adv_run(const tfl_index_op *o, const adv_plan *p, tfl_stream s)
{
    if (p->empty)
        return TFL_OK;
    tfl_status st = TFL_OK;
    for (int i = 0; i < (int)p->ist.nd && st == TFL_OK; i++)
        st = check_view(&p->x[i], &p->iv, p->n, 1, -p->ist.n[i], p->ist.n[i], s);
    if (st != TFL_OK)
        return st;
    kvar kv = { .idx64 = 1, .unit = p->unit, .nu = (int)(p->es / p->unit), .dt = -1, .ot = -1 };
    /* a get's bid table is unused: any buffer stands in */
    return o->u.advanced.put ? adv_put(p, &kv, s) : adv_launch(p, &kv, ocl_assert_word(), 0, s);
}

/* ------------------------------------------------------------ arange / linspace */

typedef struct range_plan {
    ocl_arg out;
    cl_long n;
} range_plan;

static tfl_status range_plan_of(const tfl_index_op *o, range_plan *p)
{
    const int dt = o->dtype, kind = o->u.range.range_kind;
    memset(p, 0, sizeof *p);
    if ((dt != TFL_DT_F32 && dt != TFL_DT_F64 && !ot_type(dt)) ||
        (dt == TFL_DT_F64 && !ocl_dev()->fp64) ||
        (kind != TFL_INDEX_ARANGE && kind != TFL_INDEX_LINSPACE))
        return TFL_ERR_UNSUPPORTED;
    p->n = o->u.range.n > 0 ? o->u.range.n : 0;
    if (p->n == 0)
        return TFL_OK;
    const int64_t es = (int64_t)tfl_dtype_size(o->dtype);
    rng r = rng_new(es);
    rng_dim(&r, p->n, es);
    if (ptr_bits(o->u.range.out) % es)
        return TFL_ERR_UNSUPPORTED;
    return opnd_get(o->u.range.out, &r, &p->out) ? TFL_OK : TFL_ERR_INVALID;
}

static tfl_status range_run(const tfl_index_op *o, const range_plan *p, tfl_stream s)
{
    if (p->n == 0)
        return TFL_OK;
    const int dt = o->dtype;
    cl_int lin = o->u.range.range_kind == TFL_INDEX_LINSPACE;
    cl_long steps = o->u.range.steps, half = o->u.range.halfway;
    if (dt == TFL_DT_F32 || dt == TFL_DT_F64) {
        kvar kv = { .unit = 1, .nu = 1, .dt = dt, .ot = -1 };
        union { cl_float f; cl_double d; } v[3];
        const double src[3] = { o->u.range.start, o->u.range.step, o->u.range.end };
        const size_t vs = dt == TFL_DT_F32 ? sizeof(cl_float) : sizeof(cl_double);
        for (int i = 0; i < 3; i++) {
            if (dt == TFL_DT_F32)
                v[i].f = (cl_float)src[i];
            else
                v[i].d = src[i];
        }
        const ocl_karg a[] = { OCL_KB(p->out), OCL_KA(p->n), OCL_KA(lin), { vs, &v[0] },
                               { vs, &v[1] }, { vs, &v[2] }, OCL_KA(steps), OCL_KA(half) };
        return launch("range_f", &kv, a, OCL_NARGS(a), p->n, s);
    }
    kvar kv = { .unit = 1, .nu = 1, .dt = -1, .ot = dt };
    cl_long istart = o->u.range.istart, istep = o->u.range.istep, iend = o->u.range.iend;
    cl_float fstep = (cl_float)o->u.range.step;
    const ocl_karg a[] = { OCL_KB(p->out), OCL_KA(p->n), OCL_KA(lin), OCL_KA(istart),
                           OCL_KA(istep), OCL_KA(iend), OCL_KA(fstep), OCL_KA(steps),
                           OCL_KA(half) };
    return launch("range_i", &kv, a, OCL_NARGS(a), p->n, s);
}

/* ------------------------------------------------------------ triu / tril */

typedef struct tri_plan {
    t3 bt;
    cl_long rows, cols, dri, drj, sri, srj, n;
    ocl_arg d, s;
    int unit, empty;
} tri_plan;

static tfl_status tri_plan_of(const tfl_index_op *o, tri_plan *p)
{
    const tfl_index_tensor *dt = &o->u.triangle.dst, *st = &o->u.triangle.src;
    const int nd = dt->ndim;
    const int64_t es = (int64_t)o->elem_size;
    memset(p, 0, sizeof *p);
    if (nd < 2 || nd > TFL_INDEX_MAX_DIMS || st->ndim != nd)
        return TFL_ERR_UNSUPPORTED;
    for (int i = 0; i < nd; i++) {     /* in the host's order */
        if (dt->sizes[i] != st->sizes[i])
            return TFL_ERR_UNSUPPORTED;
        if (dt->sizes[i] == 0) {
            p->empty = 1;
            return TFL_OK;
        }
    }
    dims b = { .nd = nd - 2 }, dd, sd;
    for (int i = 0; i < nd - 2; i++) {
        const int m = nd - 3 - i;
        b.n[m] = dt->sizes[i];
        if (__builtin_mul_overflow(dt->strides[i], es, &b.s[0][m]) ||
            __builtin_mul_overflow(st->strides[i], es, &b.s[1][m]))
            return TFL_ERR_UNSUPPORTED;
    }
    t1 dv, sv;
    p->rows = dt->sizes[nd - 2];
    p->cols = dt->sizes[nd - 1];
    if (!dims_put(&dd, 0, dt, -1, es) || !dims_put(&sd, 0, st, -1, es) ||
        (p->n = count_of(&dd)) < 0 || !fold(&b, 2, &p->bt) || !fold1(&dd, 0, &dv) ||
        !fold1(&sd, 0, &sv) || !injective(&dv, 0, 0, es) ||
        __builtin_mul_overflow(dt->strides[nd - 2], es, &p->dri) ||
        __builtin_mul_overflow(dt->strides[nd - 1], es, &p->drj) ||
        __builtin_mul_overflow(st->strides[nd - 2], es, &p->sri) ||
        __builtin_mul_overflow(st->strides[nd - 1], es, &p->srj))
        return TFL_ERR_UNSUPPORTED;
    const int64_t v[] = { ptr_bits(dt->data), ptr_bits(st->data) };
    p->unit = unit_t1(unit_t1(unit_of(es, v, 2), &dv), &sv);
    rng rd = rng_new(es), rs = rng_new(es);
    rng_t1(&rd, &dv);
    rng_t1(&rs, &sv);
    if (!rd.ok || !rs.ok)
        return TFL_ERR_UNSUPPORTED;
    /* in place is fine (each element reads itself); any other overlap
     * would read what another work-item writes */
    int same = dt->data == st->data;
    for (int i = 0; i < nd && same; i++)
        same = dt->strides[i] == st->strides[i];
    const uintptr_t d0 = (uintptr_t)dt->data, s0 = (uintptr_t)st->data;
    if (!same && d0 + rd.lo < s0 + rs.hi && s0 + rs.lo < d0 + rd.hi)
        return TFL_ERR_UNSUPPORTED;
    if (!opnd_get(dt->data, &rd, &p->d) || !opnd_get(st->data, &rs, &p->s))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status tri_run(const tfl_index_op *o, const tri_plan *p, tfl_stream s)
{
    if (p->empty)
        return TFL_OK;
    kvar kv = { .unit = p->unit, .nu = (int)o->elem_size / p->unit, .dt = -1, .ot = -1 };
    cl_long diag = o->u.triangle.diagonal;
    cl_int upper = o->u.triangle.upper != 0;
    const ocl_karg a[] = { OCL_KB(p->d), OCL_KB(p->s), OCL_KA(p->bt), OCL_KA(p->rows),
                           OCL_KA(p->cols), OCL_KA(p->dri), OCL_KA(p->drj), OCL_KA(p->sri),
                           OCL_KA(p->srj), OCL_KA(diag), OCL_KA(upper), OCL_KA(p->n) };
    return launch("tri", &kv, a, OCL_NARGS(a), p->n, s);
}

/* ------------------------------------------------------------ sorted index_put_ */

typedef struct ps_plan {
    ocl_arg w, g, srt, pos;
    cl_long n, L, sb, outer, wbytes, work;
    int unit;
} ps_plan;

static tfl_status ps_plan_of(const tfl_index_op *o, ps_plan *p)
{
    const int acc = o->u.put_sorted.accumulate != 0;
    const int64_t es = (int64_t)o->elem_size;
    memset(p, 0, sizeof *p);
    p->n = o->u.put_sorted.numel;
    p->L = o->u.put_sorted.stride;
    p->sb = o->u.put_sorted.stride_before;
    p->outer = o->u.put_sorted.outer_dim;
    p->wbytes = o->u.put_sorted.weight_bytes;
    if ((acc && o->dtype != TFL_DT_F32 && o->dtype != TFL_DT_F64 && o->dtype != TFL_DT_I32 &&
         o->dtype != TFL_DT_I64) || p->n < 0 || p->L < 0 || p->sb < 0 || p->outer < 0)
        return TFL_ERR_UNSUPPORTED;
    if (p->n == 0 || p->L == 0 || p->outer == 0)
        return TFL_OK;
    /* rows of different outer blocks must not meet, or work-items would
     * race: they cannot when the weight holds no more than outer blocks
     * (every row that passes the check ends inside its block) */
    int64_t blocks, gbytes;
    if (__builtin_mul_overflow(p->outer, p->sb, &blocks) ||
        (p->outer > 1 && p->wbytes / es > blocks) ||
        __builtin_mul_overflow(p->n, p->L, &p->work) ||
        __builtin_mul_overflow(p->work, p->outer, &p->work) ||
        __builtin_mul_overflow(p->work, es, &gbytes))
        return TFL_ERR_UNSUPPORTED;
    const int64_t v[] = { ptr_bits(o->u.put_sorted.weight), ptr_bits(o->u.put_sorted.grad) };
    p->unit = unit_of(es, v, 2);
    if (!arith_ok(o, acc ? TFL_INDEX_ADD : TFL_INDEX_ASSIGN, p->unit))
        return TFL_ERR_UNSUPPORTED;
    rng ri = rng_new(8), rg = { 0, gbytes, 1 }, rw = { 0, p->wbytes, 1 };
    rng_dim(&ri, p->n, 8);
    if (!opnd_get(o->u.put_sorted.sorted, &ri, &p->srt) ||
        !opnd_get(o->u.put_sorted.positions, &ri, &p->pos) ||
        !opnd_get(o->u.put_sorted.grad, &rg, &p->g))
        return TFL_ERR_INVALID;
    if (p->wbytes <= 0)
        p->w = p->g;        /* no row fits: every index is refused */
    else if (!opnd_get(o->u.put_sorted.weight, &rw, &p->w))
        return TFL_ERR_INVALID;
    return TFL_OK;
}

static tfl_status ps_run(const tfl_index_op *o, const ps_plan *p, tfl_stream s)
{
    if (p->n == 0 || p->L == 0 || p->outer == 0)
        return TFL_OK;
    const int acc = o->u.put_sorted.accumulate != 0;
    cl_long es = (cl_long)o->elem_size;
    kvar kv = { .idx64 = 1, .unit = p->unit, .nu = (int)(es / p->unit),
                .dt = acc ? (int)o->dtype : -1, .red = acc ? TFL_INDEX_ADD : 0, .ot = -1 };
    cl_mem flag = ocl_assert_word();
    const ocl_karg c[] = { OCL_KA(flag), OCL_KB(p->srt), OCL_KB(p->pos), OCL_KA(p->n),
                           OCL_KA(p->L), OCL_KA(p->sb), OCL_KA(p->outer), OCL_KA(p->wbytes),
                           OCL_KA(es) };
    tfl_status st = launch("ps_chk", &kv, c, OCL_NARGS(c), p->n, s);
    if (st != TFL_OK)
        return st;
    cl_int a_acc = acc;
    alpha_arg al = alpha_of(kv.dt, 1.0);
    const ocl_karg a[] = { OCL_KA(flag), OCL_KB(p->w), OCL_KB(p->g), OCL_KB(p->srt),
                           OCL_KB(p->pos), OCL_KA(p->n), OCL_KA(p->L), OCL_KA(p->sb),
                           OCL_KA(p->outer), OCL_KA(a_acc), { al.size, &al.u } };
    return launch("ps", &kv, a, OCL_NARGS(a), p->work, s);
}

/* ------------------------------------------------------------ dispatch */

typedef union plan {
    sel_plan sel;
    rows_plan rows;
    cat_plan cat;
    sg_plan sg;
    adv_plan adv;
    range_plan range;
    tri_plan tri;
    ps_plan ps;
} plan;

static tfl_status plan_of(const tfl_index_op *o, plan *p)
{
    switch (o->kind) {
    case TFL_INDEX_SELECT: return sel_plan_of(o, &p->sel);
    case TFL_INDEX_GATHER_ROWS: return rows_plan_of(o, &p->rows);
    case TFL_INDEX_CAT: return cat_plan_of(o, &p->cat);
    case TFL_INDEX_SCATTER_GATHER: return sg_plan_of(o, &p->sg);
    case TFL_INDEX_ADVANCED: return adv_plan_of(o, &p->adv);
    case TFL_INDEX_RANGE: return range_plan_of(o, &p->range);
    case TFL_INDEX_TRIANGLE: return tri_plan_of(o, &p->tri);
    case TFL_INDEX_PUT_SORTED: return ps_plan_of(o, &p->ps);
    }
    return TFL_ERR_UNSUPPORTED;
}

static tfl_status plan_run(const tfl_index_op *o, const plan *p, tfl_stream s)
{
    switch (o->kind) {
    case TFL_INDEX_SELECT: return sel_run(o, &p->sel, s);
    case TFL_INDEX_GATHER_ROWS: return rows_run(o, &p->rows, s);
    case TFL_INDEX_CAT: return cat_run(o, &p->cat, s);
    case TFL_INDEX_SCATTER_GATHER: return sg_run(o, &p->sg, s);
    case TFL_INDEX_ADVANCED: return adv_run(o, &p->adv, s);
    case TFL_INDEX_RANGE: return range_run(o, &p->range, s);
    case TFL_INDEX_TRIANGLE: return tri_run(o, &p->tri, s);
    case TFL_INDEX_PUT_SORTED: return ps_run(o, &p->ps, s);
    }
    return TFL_ERR_UNSUPPORTED;
}

/* The plan of op: TFL_OK, TFL_ERR_UNSUPPORTED, or TFL_ERR_INVALID (an
 * operand outside device memory). */
static tfl_status plan_op(const tfl_op *op, plan *p)
{
    if (!op || op->kind != TFL_OP_INDEX || !ocl_dev())
        return TFL_ERR_UNSUPPORTED;
    const tfl_index_op *o = &op->u.index;
    if (o->elem_size == 0 || o->elem_size > 64)    /* the host's limit */
        return TFL_ERR_UNSUPPORTED;
    return plan_of(o, p);
}

int ocl_index_supported(const tfl_op *op)
{
    plan p;
    return plan_op(op, &p) == TFL_OK;
}

tfl_status ocl_index_run(const tfl_op *op, tfl_stream s)
{
    plan p;
    tfl_status st = plan_op(op, &p);
    return st == TFL_OK ? plan_run(&op->u.index, &p, s) : st;
}

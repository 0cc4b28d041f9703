/*
 * ocl_reduce.c - TFL_OP_REDUCE (torchfl/ops/reduce.h) on the OpenCL
 * device: sum, mean, prod, max/min (+index), argmax/argmin, aminmax, the
 * norms, variance / standard deviation, all / any.
 *
 * The answers are the host backend's (src/backends/host/ops_reduce.c):
 *  - floating inputs accumulate in double (so the device needs
 *    cl_khr_fp64 for every kind that adds or multiplies; the comparisons
 *    are exact in any type), integer inputs in wrapping int64;
 *  - max/min propagate NaN; the index kinds report the first index of the
 *    extreme value, the first NaN counting as the extreme;
 *  - variance is two passes (mean, then squared deviations), divided by
 *    max(0, n - correction);
 *  - results round once into the output type (f16/bf16 through float,
 *    NaN stored as 0x7fff, as the host's stores).
 *
 * Layout of the work: the op's dimensions are first collapsed (size-1
 * dimensions dropped, dimensions contiguous in every stride list merged),
 * which keeps the reduction's linear index r, so argmax indices are
 * unchanged.  A work-group of WG items serves WG / L outputs, L items
 * ("lanes", a power of two) per output: lane l folds elements l, l + L,
 * ... in order, then the lanes are combined by a tree in local memory.
 * The order depends only on the op's shape and the device, so results are
 * reproducible run to run.
 *
 * The math of each kind is one row of a table (init / step / combine /
 * result), written once over macros (ADD, ISNAN, BT, ...) that the
 * generated program defines for its domain: floating (A = double) or
 * integer (A = long).  One program per kind, dtypes and whether more than
 * one dimension is reduced; shapes are kernel arguments.
 *
 * Left to the host (op_supported 0): the adding kinds and float64 on a
 * device without doubles, floating results stored into integer types
 * (but all/any), more than RD_DIMS dimensions after collapsing, outputs
 * that share bytes with each other or with the input (the device would
 * race where the host writes in order), misaligned operands.
 */
#include "backends/opencl/ocl_src.h"

#include <string.h>

/* Collapsed dimensions passed as kernel arguments; more: host fallback. */
#define RD_DIMS 6
/* Largest work-group used (a power of two). */
#define RD_WG 256

/* ------------------------------------------------------------ the table */

enum {
    RF_FLT = 1,    /* has a floating form                                 */
    RF_INT = 2,    /* has an integer form (the host's integer kinds)      */
    RF_ACC = 4,    /* floating form adds/multiplies: needs double         */
    RF_IDX = 8,    /* out is the index i (ARGMAX/ARGMIN)                  */
    RF_BOOL = 16   /* value is 0/1: may be stored into integer types      */
};

/* out2, when the op gives one: what goes there. */
enum { R2_NONE = 0, R2_INDEX, R2_VALUE };

/* Per kind, statements over the lane state (A v, w; long i), the element
 * x (type A) at reduction index r, the other lane's state bv, bw, bi, and
 * the op's parameters (sc, pp, ip, corr, root, ni).  step2/comb2: a
 * second pass, which sees `mean`.  res: the value of out (type A, or
 * double when res_dbl); res2: of out2 (R2_VALUE). */
typedef struct rd_row {
    unsigned fl;
    const char *init, *step, *comb, *step2, *comb2, *res;
    int res_dbl;
    int out2;
    const char *res2;
} rd_row;

/* First extreme wins; NaN is the extreme, the first NaN wins. */
#define X_STEP "if (i < 0 || (!ISNAN(v) && (ISNAN(x) || BT(x, v)))) { v = x; i = r; }"
#define X_COMB "if (bi >= 0 && (i < 0 || (ISNAN(v) ? (ISNAN(bv) && bi < i) : " \
    "(ISNAN(bv) || BT(bv, v) || (bv == v && bi < i))))) { v = bv; i = bi; }"
#define X_INIT "v = 0; w = 0; i = -1;"
#define Z_INIT "v = 0; w = 0; i = 0;"
#define SUM_COMB "v = ADD(v, bv);"
/* NaN-propagating max (BT = >) / min (BT = <) of v and a, value only */
#define NP_FOLD(a) "if (!ISNAN(v) && (ISNAN(" a ") || BT(" a ", v))) v = " a ";"

static const rd_row rows[TFL_RED_KIND_COUNT] = {
    [TFL_RED_SUM] = { RF_FLT | RF_INT | RF_ACC, Z_INIT, "v = ADD(v, x);", SUM_COMB,
                      NULL, NULL, "v", 0, R2_NONE, NULL },
    [TFL_RED_NANSUM] = { RF_FLT | RF_INT | RF_ACC, Z_INIT, "if (!ISNAN(x)) v = ADD(v, x);",
                         SUM_COMB, NULL, NULL, "v", 0, R2_NONE, NULL },
    [TFL_RED_MEAN] = { RF_FLT | RF_INT | RF_ACC, Z_INIT, "v = ADD(v, x);", SUM_COMB,
                       NULL, NULL, "(double)v * sc", 1, R2_NONE, NULL },
    [TFL_RED_PROD] = { RF_FLT | RF_INT | RF_ACC, "v = 1; w = 0; i = 0;", "v = MUL(v, x);",
                       "v = MUL(v, bv);", NULL, NULL, "v", 0, R2_NONE, NULL },
    [TFL_RED_MAX] = { RF_FLT | RF_INT, X_INIT, X_STEP, X_COMB, NULL, NULL, "v", 0, R2_NONE, NULL },
    [TFL_RED_MIN] = { RF_FLT | RF_INT, X_INIT, X_STEP, X_COMB, NULL, NULL, "v", 0, R2_NONE, NULL },
    [TFL_RED_MAX_IDX] = { RF_FLT | RF_INT, X_INIT, X_STEP, X_COMB, NULL, NULL, "v", 0,
                          R2_INDEX, NULL },
    [TFL_RED_MIN_IDX] = { RF_FLT | RF_INT, X_INIT, X_STEP, X_COMB, NULL, NULL, "v", 0,
                          R2_INDEX, NULL },
    [TFL_RED_ARGMAX] = { RF_FLT | RF_INT | RF_IDX, X_INIT, X_STEP, X_COMB, NULL, NULL, NULL, 0,
                         R2_NONE, NULL },
    [TFL_RED_ARGMIN] = { RF_FLT | RF_INT | RF_IDX, X_INIT, X_STEP, X_COMB, NULL, NULL, NULL, 0,
                         R2_NONE, NULL },
    /* v = min, w = max, each NaN-propagating */
    [TFL_RED_AMINMAX] = { RF_FLT | RF_INT, "v = HI; w = LO; i = 0;",
                          "if (!ISNAN(v) && (ISNAN(x) || x < v)) v = x; "
                          "if (!ISNAN(w) && (ISNAN(x) || x > w)) w = x;",
                          "if (!ISNAN(v) && (ISNAN(bv) || bv < v)) v = bv; "
                          "if (!ISNAN(w) && (ISNAN(bw) || bw > w)) w = bw;",
                          NULL, NULL, "v", 0, R2_VALUE, "w" },
    [TFL_RED_NORM] = { RF_FLT | RF_ACC, Z_INIT, "v += pow(fabs(x), pp);", SUM_COMB, NULL, NULL,
                       "root ? pow(v, ip) : v", 0, R2_NONE, NULL },
    [TFL_RED_NORM0] = { RF_FLT | RF_ACC, Z_INIT, "v += (A)(x != 0);", SUM_COMB, NULL, NULL,
                        "v", 0, R2_NONE, NULL },
    [TFL_RED_NORM1] = { RF_FLT | RF_ACC, Z_INIT, "v += fabs(x);", SUM_COMB, NULL, NULL, "v", 0,
                        R2_NONE, NULL },
    [TFL_RED_NORM2] = { RF_FLT | RF_ACC, Z_INIT, "v += x * x;", SUM_COMB, NULL, NULL,
                        "root ? sqrt(v) : v", 0, R2_NONE, NULL },
    [TFL_RED_NORM_INF] = { RF_FLT, Z_INIT, "{ A ax = fabs(x); " NP_FOLD("ax") " }",
                           NP_FOLD("bv"), NULL, NULL, "v", 0, R2_NONE, NULL },
    [TFL_RED_NORM_NINF] = { RF_FLT, "v = HI; w = 0; i = 0;",
                            "{ A ax = fabs(x); " NP_FOLD("ax") " }", NP_FOLD("bv"), NULL, NULL,
                            "v", 0, R2_NONE, NULL },
    /* pass 1: the sum (-> mean); pass 2: squared deviations into w */
    [TFL_RED_VAR] = { RF_FLT | RF_ACC, Z_INIT, "v += x;", SUM_COMB,
                      "{ A d = x - mean; w += d * d; }", "w += bw;", "rd_var(w, ni, corr, root)",
                      0, R2_VALUE, "mean" },
    [TFL_RED_ALL] = { RF_FLT | RF_INT | RF_BOOL, "v = 1; w = 0; i = 0;",
                      "v = (A)(v != 0 && x != 0);", "v = (A)(v != 0 && bv != 0);", NULL, NULL,
                      "v", 0, R2_NONE, NULL },
    [TFL_RED_ANY] = { RF_FLT | RF_INT | RF_BOOL, Z_INIT, "v = (A)(v != 0 || x != 0);",
                      "v = (A)(v != 0 || bv != 0);", NULL, NULL, "v", 0, R2_NONE, NULL },
};

/* The comparison BT(a, b) of the extreme-value kinds: a beats b. */
static const char *better(tfl_reduce_kind k)
{
    switch (k) {
    case TFL_RED_MAX: case TFL_RED_MAX_IDX: case TFL_RED_ARGMAX: case TFL_RED_NORM_INF:
        return ">";
    default:
        return "<";
    }
}

/* ------------------------------------------------------------ dtypes */

static int is_flt(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F64 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

static int is_int(tfl_dtype t)
{
    return t == TFL_DT_I8 || t == TFL_DT_U8 || t == TFL_DT_I32 || t == TFL_DT_I64 ||
           t == TFL_DT_BOOL;
}

/* ------------------------------------------------------------ planning */

/* One program: all fields int32 and the struct zeroed, compared as bytes. */
typedef struct rd_sig {
    int32_t kind, in, out, out2;   /* out2: -1 when not written          */
    int32_t multi;                 /* more than one reduced dimension    */
} rd_sig;

typedef struct rd_plan {
    rd_sig sig;
    int ond, rnd;                  /* collapsed ranks                    */
    int64_t no, ni;
    int64_t oz[RD_DIMS], oi[RD_DIMS], oo[RD_DIMS];  /* out: size, stride in/out */
    int64_t rz[RD_DIMS], ri[RD_DIMS];               /* red: size, stride in    */
    ocl_arg a[3];                  /* in, out, out2                      */
} rd_plan;

/* Drop size-1 dimensions and merge each into the previous one where all
 * nst stride lists step evenly across the pair (dimension 0 fastest, so
 * the linear index is kept).  The new rank, or -1 if over RD_DIMS. */
static int collapse(int nd, const int64_t *sz, const int64_t *const *st, int nst,
                    int64_t *osz, int64_t (*ost)[RD_DIMS])
{
    int m = 0;
    for (int d = 0; d < nd; d++) {
        if (sz[d] == 1)
            continue;
        int merge = m > 0;
        for (int k = 0; k < nst && merge; k++) {
            int64_t next;
            merge = !__builtin_mul_overflow(ost[k][m - 1], osz[m - 1], &next) &&
                    st[k][d] == next;
        }
        if (merge) {
            osz[m - 1] *= sz[d];
            continue;
        }
        if (m == RD_DIMS)
            return -1;
        osz[m] = sz[d];
        for (int k = 0; k < nst; k++)
            ost[k][m] = st[k][d];
        m++;
    }
    return m;
}

/* Whether the kind/dtype combination is computed here, as the host does. */
static int forms_ok(const tfl_reduce_op *r, int fp64, int out2_used)
{
    const rd_row *row = &rows[r->kind];
    int flt = is_flt(r->in_dtype);
    if (!(row->fl & (flt ? RF_FLT : RF_INT)) || (!flt && !is_int(r->in_dtype)))
        return 0;
    if (!fp64 && (r->in_dtype == TFL_DT_F64 || (flt && (row->fl & RF_ACC))))
        return 0;
    /* the value stored in out: an index, a double (int MEAN), or A */
    tfl_dtype o = r->out_dtype;
    if (row->fl & RF_IDX) {
        if (!is_int(o))
            return 0;
    } else if (flt || row->res_dbl) {
        if (!(is_flt(o) || (is_int(o) && (row->fl & RF_BOOL))))
            return 0;
        if (!flt && !fp64)
            return 0;              /* int MEAN: (double)sum * scale */
    } else if (!is_int(o) && !(is_flt(o) && fp64)) {
        return 0;                  /* long -> float goes through double */
    }
    if (o == TFL_DT_F64 && !fp64)
        return 0;
    if (out2_used) {
        tfl_dtype o2 = r->out2_dtype;
        if (row->out2 == R2_INDEX && !is_int(o2))
            return 0;
        if (row->out2 == R2_VALUE) {
            if (flt ? !is_flt(o2) : !(is_int(o2) || (is_flt(o2) && fp64)))
                return 0;
            if (o2 == TFL_DT_F64 && !fp64)
                return 0;
        }
    }
    return 1;
}

/* Whether the nd dimensions (sizes > 1, strides in bytes) give every
 * element of size es its own bytes: with the dimensions in increasing
 * stride order, each stride must clear the span of the ones before it.
 * Outputs that share bytes would race on the device (the host writes them
 * in order). */
static int disjoint(int nd, const int64_t *sz, const int64_t *st, int64_t es)
{
    int order[RD_DIMS];
    for (int d = 0; d < nd; d++) {
        int j = d;
        for (; j > 0 && st[order[j - 1]] > st[d]; j--)
            order[j] = order[j - 1];
        order[j] = d;
    }
    int64_t span = es;
    for (int j = 0; j < nd; j++) {
        int d = order[j];
        if (st[d] < span)
            return 0;
        span = st[d] * (sz[d] - 1) + span;   /* bounded by extent() */
    }
    return 1;
}

/* n bytes of x and n2 of y share no byte. */
static int apart(const ocl_arg *x, uint64_t n, const ocl_arg *y, uint64_t n2)
{
    return x->b != y->b || x->o + n <= y->o || y->o + n2 <= x->o;
}

/* Largest byte offset sum (size - 1) * stride; 0 on overflow. */
static int extent(int nd, const int64_t *sz, const int64_t *st, uint64_t *ext)
{
    for (int d = 0; d < nd; d++) {
        uint64_t e;
        if (__builtin_mul_overflow((uint64_t)(sz[d] - 1), (uint64_t)st[d], &e) ||
            __builtin_add_overflow(*ext, e, ext) || *ext > INT64_MAX / 2)
            return 0;
    }
    return 1;
}

static tfl_status plan_op(const tfl_op *op, rd_plan *p)
{
    const ocl_device *dev = ocl_dev();
    if (!dev || op->kind != TFL_OP_REDUCE)
        return TFL_ERR_UNSUPPORTED;
    const tfl_reduce_op *r = &op->u.reduce;
    memset(p, 0, sizeof *p);
    if ((unsigned)r->kind >= TFL_RED_KIND_COUNT || !rows[r->kind].init ||
        r->out_ndim < 0 || r->out_ndim > TFL_REDUCE_MAX_DIMS ||
        r->red_ndim < 0 || r->red_ndim > TFL_REDUCE_MAX_DIMS)
        return TFL_ERR_UNSUPPORTED;
    if (r->no_root && r->kind != TFL_RED_NORM && r->kind != TFL_RED_NORM2)
        return TFL_ERR_UNSUPPORTED;
    const rd_row *row = &rows[r->kind];
    int out2_used = r->out2 && row->out2 != R2_NONE;
    if (!forms_ok(r, dev->fp64, out2_used))
        return TFL_ERR_UNSUPPORTED;
    size_t isz = tfl_dtype_size(r->in_dtype), osz = tfl_dtype_size(r->out_dtype);
    size_t o2sz = out2_used ? tfl_dtype_size(r->out2_dtype) : 0;
    /* shape as the host checks it; strides must also keep elements aligned */
    int64_t no = 1, ni = 1;
    for (int d = 0; d < r->out_ndim; d++) {
        if (r->out_sizes[d] < 0 || r->out_stride_in[d] < 0 || r->out_stride_out[d] < 0 ||
            __builtin_mul_overflow(no, r->out_sizes[d], &no))
            return TFL_ERR_INVALID;
        if (r->out_stride_in[d] % (int64_t)isz || r->out_stride_out[d] % (int64_t)osz)
            return TFL_ERR_UNSUPPORTED;
    }
    for (int d = 0; d < r->red_ndim; d++) {
        if (r->red_sizes[d] < 0 || r->red_stride_in[d] < 0 ||
            __builtin_mul_overflow(ni, r->red_sizes[d], &ni))
            return TFL_ERR_INVALID;
        if (r->red_stride_in[d] % (int64_t)isz)
            return TFL_ERR_UNSUPPORTED;
    }
    if (no != r->num_outputs || ni != r->num_inputs)
        return TFL_ERR_INVALID;
    p->no = no;
    p->ni = ni;
    p->sig.kind = r->kind;
    p->sig.in = r->in_dtype;
    p->sig.out = r->out_dtype;
    p->sig.out2 = out2_used ? (int32_t)r->out2_dtype : -1;
    if (no == 0)
        return TFL_OK;
    const int64_t *ost[2] = { r->out_stride_in, r->out_stride_out };
    int64_t ostc[2][RD_DIMS] = { { 0 } };
    int ond = collapse(r->out_ndim, r->out_sizes, ost, 2, p->oz, ostc);
    const int64_t *rst[1] = { r->red_stride_in };
    int rnd = ni == 0 ? 0 : collapse(r->red_ndim, r->red_sizes, rst, 1, p->rz, &p->ri);
    if (ond < 0 || rnd < 0)
        return TFL_ERR_UNSUPPORTED;
    memcpy(p->oi, ostc[0], sizeof p->oi);
    memcpy(p->oo, ostc[1], sizeof p->oo);
    p->ond = ond;
    p->rnd = rnd;
    p->sig.multi = rnd > 1;
    /* unused dimensions: size 1, so the kernel may walk all RD_DIMS */
    for (int d = ond; d < RD_DIMS; d++)
        p->oz[d] = 1;
    for (int d = rnd; d < RD_DIMS; d++)
        p->rz[d] = 1;
    /* the bytes each operand spans */
    uint64_t ein = 0, eout = 0;
    if (!extent(ond, p->oz, p->oi, &ein) || !extent(rnd, p->rz, p->ri, &ein) ||
        !extent(ond, p->oz, p->oo, &eout))
        return TFL_ERR_INVALID;
    uint64_t nin = ein + isz, nout = eout + osz, nout2 = eout / osz * o2sz + o2sz;
    ocl_arg *a = p->a;
    if (!ocl_arg_range(r->out, nout, osz, 0, &a[1]) ||
        (ni > 0 && !ocl_arg_range(r->in, nin, isz, 0, &a[0])) ||
        (out2_used && !ocl_arg_range(r->out2, nout2, o2sz, 0, &a[2])))
        return TFL_ERR_INVALID;
    /* the work items write disjoint outputs, none of them input bytes */
    if (!disjoint(ond, p->oz, p->oo, (int64_t)osz) ||
        (ni > 0 && !apart(&a[0], nin, &a[1], nout)) ||
        (out2_used && ((ni > 0 && !apart(&a[0], nin, &a[2], nout2)) ||
                       !apart(&a[1], nout, &a[2], nout2))))
        return TFL_ERR_UNSUPPORTED;
    if (ni == 0) {
        a[0] = a[1];               /* nothing is read: a placeholder */
    }
    if (!out2_used) {
        a[2] = a[1];               /* a placeholder argument, never written */
    }
    return TFL_OK;
}

int ocl_reduce_supported(const tfl_op *op)
{
    rd_plan p;
    return plan_op(op, &p) == TFL_OK;
}

/* ------------------------------------------------------------ source */

/* An element of dtype t at byte pointer q, as type A. */
static void put_load(ocl_sbuf *b, tfl_dtype t, const char *q)
{
    switch (t) {
    case TFL_DT_F32: ocl_put(b, "(A)*(__global const float *)(%s)", q); break;
    case TFL_DT_F64: ocl_put(b, "(A)*(__global const double *)(%s)", q); break;
    case TFL_DT_F16: ocl_put(b, "(A)ocl_f16_val(*(__global const ushort *)(%s))", q); break;
    case TFL_DT_BF16: ocl_put(b, "(A)ocl_bf16_val(*(__global const ushort *)(%s))", q); break;
    case TFL_DT_BOOL: ocl_put(b, "(A)(*(%s) != 0)", q); break;
    default: ocl_put(b, "(A)*(__global const %s *)(%s)", ocl_type_of(t), q); break;
    }
}

/* Store value val into dtype t at q.  val_int: val is a long (stored
 * modulo the type's width, as the host's casts), else floating (rounded
 * once through float for f16/bf16). */
static void put_store(ocl_sbuf *b, tfl_dtype t, const char *q, const char *val, int val_int)
{
    if (val_int && is_flt(t)) {
        ocl_put(b, "{ double fv = (double)(%s); ", val);
        put_store(b, t, q, "fv", 0);
        ocl_put(b, " }");
        return;
    }
    switch (t) {
    case TFL_DT_F32: ocl_put(b, "*(__global float *)(%s) = convert_float(%s);", q, val); break;
    case TFL_DT_F64: ocl_put(b, "*(__global double *)(%s) = (double)(%s);", q, val); break;
    case TFL_DT_F16:
    case TFL_DT_BF16:
        ocl_put(b, "*(__global ushort *)(%s) = ocl_%s_bits(convert_float(%s));", q,
                t == TFL_DT_F16 ? "f16" : "bf16", val);
        break;
    case TFL_DT_BOOL: ocl_put(b, "*(%s) = (uchar)((%s) != 0);", q, val); break;
    default:
        if (val_int)   /* through the unsigned type of its width */
            ocl_put(b, "*(__global %s *)(%s) = as_%s((%s)as_ulong((long)(%s)));", ocl_type_of(t),
                    q, ocl_type_of(t), ocl_bits_type(tfl_dtype_size(t)), val);
        else   /* only 0/1 values get here (RF_BOOL) */
            ocl_put(b, "*(__global %s *)(%s) = (%s)(%s);", ocl_type_of(t), q, ocl_type_of(t),
                    val);
        break;
    }
}

static void put_prelude(ocl_sbuf *b, const rd_sig *s, int fp64)
{
    int flt = is_flt((tfl_dtype)s->in);
    if (fp64)
        ocl_put(b, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    /* no fused multiply-adds: the host is built with -ffp-contract=off */
    ocl_put(b, "#pragma OPENCL FP_CONTRACT OFF\n");
    ocl_put(b, "#define P %s\n", fp64 ? "double" : "float");
    if (flt) {
        ocl_put(b, "#define A %s\n", fp64 ? "double" : "float");
        ocl_put(b, "#define ISNAN(x) isnan(x)\n#define ADD(a, b) ((a) + (b))\n"
                   "#define MUL(a, b) ((a) * (b))\n"
                   "#define HI ((A)INFINITY)\n#define LO ((A)-INFINITY)\n");
    } else {
        /* int64 arithmetic wraps, as the host's (signed overflow is
         * undefined in OpenCL C, so through ulong) */
        ocl_put(b, "#define A long\n#define ISNAN(x) 0\n"
                   "#define ADD(a, b) as_long(as_ulong(a) + as_ulong(b))\n"
                   "#define MUL(a, b) as_long(as_ulong(a) * as_ulong(b))\n"
                   "#define HI LONG_MAX\n#define LO LONG_MIN\n");
    }
    ocl_put(b, "#define BT(a, b) ((a) %s (b))\n", better((tfl_reduce_kind)s->kind));
    /* f16/bf16 results: NaN stored as 0x7fff, as the host's stores */
    ocl_put(b, "#define OCL_LP_NAN 2\n%s", OCL_SRC_LOWP);
    if (s->kind == TFL_RED_VAR)
        ocl_put(b, "A rd_var(A w, long n, P corr, int root) {\n"
                   "  A dv = (A)n - corr; A var = w / (dv > 0 ? dv : (A)0);\n"
                   "  return root ? sqrt(var) : var;\n}\n");
}

/* Every program takes RD_DIMS output and reduction dimensions (unused
 * ones of size 1): the rank is not part of the program, which keeps the
 * number of programs (compiles) small. */
static void put_params(ocl_sbuf *b)
{
    ocl_put(b, "__kernel void rd(__global const uchar *in, ulong ino,\n"
               "  __global uchar *out, ulong outo, __global uchar *out2, ulong out2o,\n"
               "  long no, long ni, uint L,\n"
               "  P sc, P pp, P ip, P corr, int root");
    for (int d = 0; d < RD_DIMS; d++)
        ocl_put(b, ",\n  long oz%d, long oi%d, long oo%d", d, d, d);
    for (int d = 0; d < RD_DIMS; d++)
        ocl_put(b, ",\n  long rz%d, long ri%d", d, d);
    ocl_put(b, ",\n  __local A *lv, __local A *lw, __local long *li)\n");
}

/* This item's output o, the byte offsets of its input slice (ib) and its
 * output (ob): once per output, so all RD_DIMS dimensions are walked. */
static void put_output_coords(ocl_sbuf *b)
{
    ocl_put(b, "  uint lid = get_local_id(0), lane = lid & (L - 1), base = lid - lane;\n"
               "  long o = (long)get_group_id(0) * (long)(get_local_size(0) / L)\n"
               "         + (long)(lid / L);\n"
               "  int live = o < no;\n"
               "  long ib = 0, ob = 0;\n");
    ocl_put(b, "  if (live) {\n    long t = o, c;\n");
    for (int d = 0; d + 1 < RD_DIMS; d++)
        ocl_put(b, "    c = t %% oz%d; t /= oz%d; ib += c * oi%d; ob += c * oo%d;\n", d, d, d, d);
    ocl_put(b, "    ib += t * oi%d; ob += t * oo%d;\n  }\n", RD_DIMS - 1, RD_DIMS - 1);
}

/* One pass: every lane folds its elements with `step`, then the tree
 * combines the lanes with `comb`; lane 0 ends with the result, also left
 * in lv/lw/li[base]. */
static void put_pass(ocl_sbuf *b, const rd_sig *s, const char *step, const char *comb)
{
    ocl_put(b, "  for (long r = live ? (long)lane : ni; r < ni; r += L) {\n");
    /* one reduced dimension (the common case, after collapsing): a
     * multiply; more: a division per dimension */
    if (!s->multi) {
        ocl_put(b, "    long ro = r * ri0;\n");
    } else {
        ocl_put(b, "    long t = r, ro = 0, c;\n");
        for (int d = 0; d + 1 < RD_DIMS; d++)
            ocl_put(b, "    c = t %% rz%d; t /= rz%d; ro += c * ri%d;\n", d, d, d);
        ocl_put(b, "    ro += t * ri%d;\n", RD_DIMS - 1);
    }
    ocl_put(b, "    A x = ");
    put_load(b, (tfl_dtype)s->in, "src + ro");
    ocl_put(b, ";\n    %s\n  }\n", step);
    ocl_put(b, "  lv[lid] = v; lw[lid] = w; li[lid] = i;\n"
               "  barrier(CLK_LOCAL_MEM_FENCE);\n"
               "  for (uint h = L >> 1; h > 0; h >>= 1) {\n"
               "    if (lane < h) {\n"
               "      A bv = lv[lid + h], bw = lw[lid + h]; long bi = li[lid + h];\n"
               "      %s\n"
               "      lv[lid] = v; lw[lid] = w; li[lid] = i;\n"
               "    }\n"
               "    barrier(CLK_LOCAL_MEM_FENCE);\n"
               "  }\n", comb);
}

static void put_results(ocl_sbuf *b, const rd_sig *s)
{
    const rd_row *row = &rows[s->kind];
    int flt = is_flt((tfl_dtype)s->in);
    ocl_put(b, "  if (live && lane == 0) {\n    __global uchar *q = out + outo + ob;\n    ");
    if (row->fl & RF_IDX)
        put_store(b, (tfl_dtype)s->out, "q", "i", 1);
    else
        put_store(b, (tfl_dtype)s->out, "q", row->res, !flt && !row->res_dbl);
    ocl_put(b, "\n");
    if (s->out2 >= 0) {
        size_t osz = tfl_dtype_size((tfl_dtype)s->out), o2 = tfl_dtype_size((tfl_dtype)s->out2);
        ocl_put(b, "    __global uchar *q2 = out2 + out2o + ob / %zu * %zu;\n    ", osz, o2);
        if (row->out2 == R2_INDEX)
            put_store(b, (tfl_dtype)s->out2, "q2", "i", 1);
        else
            put_store(b, (tfl_dtype)s->out2, "q2", row->res2, !flt);
        ocl_put(b, "\n");
    }
    ocl_put(b, "  }\n");
}

static char *rd_source(const rd_sig *s, int fp64)
{
    const rd_row *row = &rows[s->kind];
    ocl_sbuf b = { 0 };
    put_prelude(&b, s, fp64);
    put_params(&b);
    ocl_put(&b, "{\n");
    put_output_coords(&b);
    ocl_put(&b, "  __global const uchar *src = in + ino + ib;\n"
                "  A v, w, mean = 0; long i;\n  %s\n", row->init);
    put_pass(&b, s, row->step, row->comb);
    if (row->step2) {
        /* every lane needs the mean: read lane 0's total before anyone
         * reuses local memory */
        ocl_put(&b, "  mean = ni > 0 ? lv[base] / (A)ni : (A)NAN;\n"
                    "  barrier(CLK_LOCAL_MEM_FENCE);\n");
        put_pass(&b, s, row->step2, row->comb2);
    }
    put_results(&b, s);
    ocl_put(&b, "}\n");
    return ocl_sbuf_take(&b);
}

/* ------------------------------------------------------------ kernels */

/* Signature -> (kernel, work-group size). */
OCL_KCACHE(rd_kernels, 128);

static ocl_kernel *kernel_for(const rd_sig *s, size_t *wg)
{
    ocl_kernel *k = ocl_kcache_get(&rd_kernels, s, sizeof *s, wg);
    if (k)
        return k;
    /* correctly rounded float division/sqrt, as ocl_ew.c */
    k = ocl_kernel_src(rd_source(s, ocl_dev()->fp64), "rd", RD_WG, wg);
    ocl_kcache_put(&rd_kernels, s, sizeof *s, k, *wg);
    return k;
}

/* Lanes per output: a column-like reduction (the outputs are the
 * input's fastest dimension) with outputs to fill a group takes one lane
 * each, so neighbouring items read neighbouring elements; otherwise lanes
 * split the reduction, about four elements each at least. */
static size_t lanes_for(const rd_plan *p, size_t wg)
{
    if (p->ond > 0 && p->rnd > 0 && p->oi[0] < p->ri[0] && p->no >= (int64_t)wg)
        return 1;
    size_t l = ocl_pow2_floor(p->ni / 4 > 0 ? (size_t)(p->ni / 4) : 1);
    return l < wg ? l : wg;
}

static void set_args(ocl_args *a, const rd_plan *p, const tfl_reduce_op *r, cl_uint lanes,
                     size_t wg, int fp64)
{
    for (int j = 0; j < 3; j++) {
        OCL_ADD(a, p->a[j].b);
        OCL_ADD(a, p->a[j].o);
    }
    cl_long no = p->no, ni = p->ni;
    OCL_ADD(a, no);
    OCL_ADD(a, ni);
    OCL_ADD(a, lanes);
    double par[4] = { r->scale, r->p, 1.0 / r->p, r->correction };   /* 1/0 = inf, as the host */
    for (int j = 0; j < 4; j++) {
        cl_double d = par[j];
        cl_float f = (cl_float)par[j];
        if (fp64)
            OCL_ADD(a, d);
        else
            OCL_ADD(a, f);
    }
    cl_int root = r->kind == TFL_RED_VAR ? r->take_sqrt != 0 : !r->no_root;
    OCL_ADD(a, root);
    for (int d = 0; d < RD_DIMS; d++) {
        OCL_ADD(a, p->oz[d]);
        OCL_ADD(a, p->oi[d]);
        OCL_ADD(a, p->oo[d]);
    }
    for (int d = 0; d < RD_DIMS; d++) {
        OCL_ADD(a, p->rz[d]);
        OCL_ADD(a, p->ri[d]);
    }
    /* local memory: lv, lw of type A (float only without fp64), li long */
    size_t asz = fp64 || !is_flt((tfl_dtype)p->sig.in) ? 8 : 4;
    ocl_args_add(a, NULL, asz * wg);
    ocl_args_add(a, NULL, asz * wg);
    ocl_args_add(a, NULL, 8 * wg);
}

tfl_status ocl_reduce_run(const tfl_op *op, tfl_stream s)
{
    rd_plan p;
    tfl_status st = plan_op(op, &p);
    if (st != TFL_OK || p.no == 0)
        return st;
    size_t wg = 1;
    ocl_kernel *k = kernel_for(&p.sig, &wg);
    if (!k) {
        OCL_LOG(OCL_ERROR, "opencl: reduce kind %d: no kernel", p.sig.kind);
        return TFL_ERR_INTERNAL;
    }
    size_t lanes = lanes_for(&p, wg);
    size_t per = wg / lanes;
    uint64_t groups = ((uint64_t)p.no + per - 1) / per;
    if (groups > SIZE_MAX / wg)
        return TFL_ERR_INVALID;
    ocl_args a = { 0 };
    set_args(&a, &p, &op->u.reduce, (cl_uint)lanes, wg, ocl_dev()->fp64);
    return ocl_launch_args(k, &a, (size_t)groups * wg, wg, s);
}

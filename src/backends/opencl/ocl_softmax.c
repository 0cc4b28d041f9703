/*
 * ocl_softmax.c - TFL_OP_SOFTMAX (torchfl/ops/softmax.h) on the OpenCL
 * device: softmax and log_softmax, forward and backward, over any
 * dimension of [outer, dim, inner] (inner == 1: the last dimension).
 *
 * The arithmetic is the host backend's (src/backends/host/ops_softmax.c)
 * step for step, so both agree to rounding:
 *   forward   m = max_d x (NaN if any x is NaN), in float;
 *             v = (float)(x - m);  s = sum_d exp(v) in double;
 *             log: v - (float)log(s)   else: exp(v) / (float)s
 *   backward  s = sum_d grad in double;
 *             log: grad - exp(y) * (float)s   else: grad - y * (float)s
 *             in double, except for float32 rows (inner == 1, float32 in
 *             and out), which the host computes in float.
 * So the device needs cl_khr_fp64 (without it every op falls back).
 *
 * Layout of the work: each row (o, i) reduces over d.  A work-group of
 * WG items serves WG / L rows, L lanes per row (a power of two); lane l
 * takes d = l, l + L, ... in order, and the lanes' partial max / sum are
 * combined by a tree in local memory.  With inner > 1 and rows enough
 * for a group, L = 1: neighbouring items take neighbouring i, i.e.
 * neighbouring addresses.  The order depends only on the shape and the
 * device, so results are reproducible run to run.  A row's elements are
 * read and written by the same item in the last pass, so out may alias
 * in (or grad).
 */
#include "backends/opencl/ocl_src.h"

#include <string.h>

#define SM_WG 256

static int is_flt(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F64 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* ------------------------------------------------------------ planning */

/* One program; int32 fields, zeroed, compared as bytes. */
typedef struct sm_sig {
    int32_t log, bwd, in, out;
    int32_t f32rows;   /* float32 rows: the host's float backward        */
} sm_sig;

typedef struct sm_plan {
    sm_sig sig;
    int64_t rows;                  /* outer * inner                       */
    ocl_arg a[3];                  /* in, grad, out                       */
} sm_plan;

/* out may be operand k itself (same bytes, same element size: each
 * element is read and then written by one item) or lie apart from it;
 * any other overlap would race. */
static int alias_ok(const sm_plan *p, int k, uint64_t nk, uint64_t nout, size_t ks, size_t os)
{
    const ocl_arg *x = &p->a[k], *o = &p->a[2];
    if (x->b != o->b || x->o + nk <= o->o || o->o + nout <= x->o)
        return 1;
    return x->o == o->o && ks == os;
}

static tfl_status plan_op(const tfl_op *op, sm_plan *p)
{
    const ocl_device *dev = ocl_dev();
    if (!dev || op->kind != TFL_OP_SOFTMAX || !dev->fp64)
        return TFL_ERR_UNSUPPORTED;
    const tfl_softmax_op *m = &op->u.softmax;
    memset(p, 0, sizeof *p);
    if (!is_flt(m->in_dtype) || !is_flt(m->out_dtype))
        return TFL_ERR_UNSUPPORTED;
    if (m->outer < 0 || m->dim < 0 || m->inner < 0)
        return TFL_ERR_UNSUPPORTED;
    int64_t span, last;
    if (__builtin_mul_overflow(m->dim, m->inner, &span) || m->outer_stride < span)
        return TFL_ERR_UNSUPPORTED;
    p->sig.log = m->log != 0;
    p->sig.bwd = m->backward != 0;
    p->sig.in = m->in_dtype;
    p->sig.out = m->out_dtype;
    p->sig.f32rows = p->sig.bwd && m->inner == 1 && m->in_dtype == TFL_DT_F32 &&
                     m->out_dtype == TFL_DT_F32;
    if (m->outer == 0 || span == 0)
        return TFL_OK;             /* p->rows = 0: nothing to do */
    if (__builtin_mul_overflow(m->outer, m->inner, &p->rows) ||
        __builtin_mul_overflow(m->outer - 1, m->outer_stride, &last) ||
        __builtin_add_overflow(last, span, &last) || last > INT64_MAX / 16)
        return TFL_ERR_INVALID;
    /* elements [0, last) of every operand */
    size_t isz = tfl_dtype_size(m->in_dtype), osz = tfl_dtype_size(m->out_dtype);
    if (!ocl_arg_range(m->in, (uint64_t)last * isz, isz, 0, &p->a[0]) ||
        !ocl_arg_range(m->out, (uint64_t)last * osz, osz, 0, &p->a[2]))
        return TFL_ERR_INVALID;
    if (p->sig.bwd) {
        if (!ocl_arg_range(m->grad, (uint64_t)last * isz, isz, 0, &p->a[1]))
            return TFL_ERR_INVALID;
    } else {
        p->a[1] = p->a[0];         /* a placeholder, never read */
    }
    uint64_t nin = (uint64_t)last * isz, nout = (uint64_t)last * osz;
    if (!alias_ok(p, 0, nin, nout, isz, osz) || (p->sig.bwd && !alias_ok(p, 1, nin, nout, isz, osz)))
        return TFL_ERR_UNSUPPORTED;
    return TFL_OK;
}

int ocl_softmax_supported(const tfl_op *op)
{
    sm_plan p;
    return plan_op(op, &p) == TFL_OK;
}

/* ------------------------------------------------------------ source */

/* Loads (as float and, for float64, as double) and the store, per dtype
 * (tfl_dtype's numbers): float16/bfloat16 round once from float to
 * nearest even, NaN stored as 0x7fff, as the host's stores. */
static const char sm_helpers[] =
    "#define OCL_LP_NAN 2\n"
    OCL_SRC_LOWP
    "float ld_f(int t, __global const uchar *q) {\n"
    "  return t == 1 ? convert_float(*(__global const double *)q) : ocl_ldf(t, q, 0);\n"
    "}\n"
    "double ld_d(int t, __global const uchar *q) {\n"
    "  return t == 1 ? *(__global const double *)q : (double)ld_f(t, q);\n"
    "}\n"
    "void st_d(int t, __global uchar *q, double v) {\n"
    "  if (t == 1) *(__global double *)q = v;\n"
    "  else ocl_stf(t, q, 0, convert_float(v));\n"
    "}\n";
_Static_assert(TFL_DT_F64 == 1, "sm_helpers number dtypes as tfl_dtype");

/* Combine the lanes of each row: own value in `var` (type T), into the
 * local array `arr` with statement `comb` over var and b; afterwards
 * every lane holds the row's result in var. */
static void put_tree(ocl_sbuf *b, const char *T, const char *var, const char *arr, const char *comb)
{
    ocl_put(b, "  %s[lid] = %s;\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
               "  for (uint h = L >> 1; h > 0; h >>= 1) {\n"
               "    if (lane < h) { %s b = %s[lid + h]; %s %s[lid] = %s; }\n"
               "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n"
               "  %s = %s[base];\n  barrier(CLK_LOCAL_MEM_FENCE);\n",
            arr, var, T, arr, comb, arr, var, var, arr);
}

/* A loop over this lane's d with the element's byte pointers px (in),
 * pg (grad), po (out). */
static void put_loop(ocl_sbuf *b, const char *body)
{
    ocl_put(b, "  for (long d = live ? (long)lane : dim; d < dim; d += L) {\n"
               "    long e = row0 + d * inner;\n"
               "    __global const uchar *px = in + ino + e * ISZ;\n"
               "    __global const uchar *pg = grad + gro + e * ISZ;\n"
               "    __global uchar *po = out + outo + e * OSZ;\n"
               "    (void)px; (void)pg; (void)po;\n"
               "%s  }\n", body);
}

static char *sm_source(const sm_sig *s)
{
    ocl_sbuf b = { 0 };
    ocl_put(&b, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma OPENCL FP_CONTRACT OFF\n");
    ocl_put(&b, "#define TI %d\n#define TO %d\n#define ISZ %zu\n#define OSZ %zu\n", (int)s->in,
            (int)s->out, tfl_dtype_size((tfl_dtype)s->in), tfl_dtype_size((tfl_dtype)s->out));
    ocl_put(&b, "%s", sm_helpers);
    ocl_put(&b, "__kernel void sm(__global const uchar *in, ulong ino,\n"
                "  __global const uchar *grad, ulong gro, __global uchar *out, ulong outo,\n"
                "  long rows, long dim, long inner, long ostr, uint L,\n"
                "  __local float *lm, __local double *ls)\n{\n"
                "  uint lid = get_local_id(0), lane = lid & (L - 1), base = lid - lane;\n"
                "  long q = (long)get_group_id(0) * (long)(get_local_size(0) / L)\n"
                "         + (long)(lid / L);\n"
                "  int live = q < rows;\n"
                "  long row0 = live ? (q / inner) * ostr + q %% inner : 0;\n"
                "  double s = 0;\n");
    if (!s->bwd) {
        /* max, NaN-propagating, of the float values */
        ocl_put(&b, "  float m = -INFINITY;\n");
        put_loop(&b, "    float x = ld_f(TI, px);\n"
                     "    m = (isnan(x) || isnan(m)) ? NAN : (x > m ? x : m);\n");
        put_tree(&b, "float", "m", "lm", "m = (isnan(b) || isnan(m)) ? NAN : (b > m ? b : m);");
        put_loop(&b, "    s += (double)exp(convert_float(ld_d(TI, px) - (double)m));\n");
        put_tree(&b, "double", "s", "ls", "s += b;");
        if (s->log)
            put_loop(&b, "    float v = convert_float(ld_d(TI, px) - (double)m);\n"
                         "    st_d(TO, po, (double)(v - convert_float(log(s))));\n");
        else
            put_loop(&b, "    float v = convert_float(ld_d(TI, px) - (double)m);\n"
                         "    st_d(TO, po, (double)(exp(v) / convert_float(s)));\n");
    } else {
        put_loop(&b, "    s += ld_d(TI, pg);\n");
        put_tree(&b, "double", "s", "ls", "s += b;");
        ocl_put(&b, "  float fs = convert_float(s);\n");
        if (s->f32rows)        /* the host's float32 rows: float arithmetic */
            put_loop(&b, s->log ? "    float g = ld_f(TI, pg), y = ld_f(TI, px);\n"
                                  "    st_d(TO, po, (double)(g - exp(y) * fs));\n"
                                : "    float g = ld_f(TI, pg), y = ld_f(TI, px);\n"
                                  "    st_d(TO, po, (double)(g - y * fs));\n");
        else
            put_loop(&b, s->log ? "    double g = ld_d(TI, pg), y = ld_d(TI, px);\n"
                                  "    st_d(TO, po, g - (double)(exp(convert_float(y)) * fs));\n"
                                : "    double g = ld_d(TI, pg), y = ld_d(TI, px);\n"
                                  "    st_d(TO, po, g - y * (double)fs);\n");
    }
    ocl_put(&b, "}\n");
    return ocl_sbuf_take(&b);
}

/* ------------------------------------------------------------ kernels */

/* Signature -> (kernel, work-group size); 2 * 2 * 4 * 4 * 2 at most. */
OCL_KCACHE(sm_kernels, 128);

static ocl_kernel *kernel_for(const sm_sig *s, size_t *wg)
{
    ocl_kernel *k = ocl_kcache_get(&sm_kernels, s, sizeof *s, wg);
    if (k)
        return k;
    /* correctly rounded float division (exp(v) / s), as the host's */
    k = ocl_kernel_src(sm_source(s), "sm", SM_WG, wg);
    ocl_kcache_put(&sm_kernels, s, sizeof *s, k, *wg);
    return k;
}

static size_t lanes_for(const tfl_softmax_op *m, int64_t rows, size_t wg)
{
    if (m->inner > 1 && rows >= (int64_t)wg)
        return 1;
    size_t l = ocl_pow2_floor(m->dim / 4 > 0 ? (size_t)(m->dim / 4) : 1);
    return l < wg ? l : wg;
}

tfl_status ocl_softmax_run(const tfl_op *op, tfl_stream s)
{
    sm_plan p;
    tfl_status st = plan_op(op, &p);
    if (st != TFL_OK || p.rows == 0)
        return st;
    const tfl_softmax_op *m = &op->u.softmax;
    size_t wg = 1;
    ocl_kernel *k = kernel_for(&p.sig, &wg);
    if (!k) {
        OCL_LOG(OCL_ERROR, "opencl: softmax: no kernel");
        return TFL_ERR_INTERNAL;
    }
    size_t lanes = lanes_for(m, p.rows, wg), per = wg / lanes;
    uint64_t groups = ((uint64_t)p.rows + per - 1) / per;
    if (groups > SIZE_MAX / wg)
        return TFL_ERR_INVALID;
    cl_long rows = p.rows, dim = m->dim, inner = m->inner, ostr = m->outer_stride;
    cl_uint L = (cl_uint)lanes;
    ocl_args a = { 0 };
    for (int j = 0; j < 3; j++) {
        OCL_ADD(&a, p.a[j].b);
        OCL_ADD(&a, p.a[j].o);
    }
    OCL_ADD(&a, rows);
    OCL_ADD(&a, dim);
    OCL_ADD(&a, inner);
    OCL_ADD(&a, ostr);
    OCL_ADD(&a, L);
    ocl_args_add(&a, NULL, sizeof(cl_float) * wg);
    ocl_args_add(&a, NULL, sizeof(cl_double) * wg);
    return ocl_launch_args(k, &a, (size_t)groups * wg, wg, s);
}

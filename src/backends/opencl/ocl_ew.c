/*
 * ocl_ew.c - TFL_OP_ELEMENTWISE (torchfl/ops/elementwise.h) on the
 * OpenCL device: which ops run natively, and running them.
 *
 * An op is planned first: dimensions contiguous in every operand are
 * merged (a contiguous tensor becomes one row), each tensor operand is
 * resolved to (buffer, offset) over the bytes it touches, and the domain
 * its arithmetic runs in is chosen as the host backend chooses it, so
 * both give the same answer:
 *   RAW  same-type copies and where over same-size values: bits moved;
 *   INT  integer compute, integer inputs, a code with an integer meaning:
 *        exact int64;
 *   DBL  double compute, a double operand, integer compute the int64
 *        domain cannot do, float compute over int32/int64 inputs (the
 *        host converts those exactly); without cl_khr_fp64 these are
 *        refused, but for casts, which float gets exactly right;
 *   FLT  the rest: float, PyTorch's opmath for float, half and bfloat16.
 * The plan's signature (code, domain, dtypes, constants, rank) names one
 * generated program (ocl_ew_src.c); a small table here maps signatures
 * to their compiled kernels so a launch does not regenerate the source.
 */
#include "backends/opencl/ocl.h"
#include "backends/opencl/ocl_ew.h"
#include "backends/opencl/ocl_src.h"

#include <string.h>

typedef struct ew_plan {
    ocl_ew_sig sig;
    uint64_t n;                                      /* elements           */
    int64_t shape[TFL_EW_MAX_DIMS];                  /* collapsed          */
    int64_t st[TFL_EW_MAX_OPERANDS][TFL_EW_MAX_DIMS];
    ocl_arg a[TFL_EW_MAX_OPERANDS];                  /* offset: element 0  */
} ew_plan;

static int is_int(int dt)
{
    return dt == TFL_DT_I8 || dt == TFL_DT_U8 || dt == TFL_DT_I32 || dt == TFL_DT_I64 ||
           dt == TFL_DT_BOOL;
}

static int is_real(int dt)
{
    return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_F16 || dt == TFL_DT_BF16 ||
           is_int(dt);
}

/* Copies between equal types and the host's bitwise where (a bool/byte
 * condition choosing between values of the output's size) move bits:
 * no conversion may touch a NaN's payload. */
static int is_raw(const tfl_elementwise_op *e)
{
    const tfl_ew_operand *o = e->operand;
    if (e->code == TFL_EW_COPY)
        return !o[1].is_scalar && o[1].dtype == o[0].dtype;
    if (e->code != TFL_EW_WHERE || o[1].is_scalar || o[2].is_scalar || o[3].is_scalar)
        return 0;
    size_t es = tfl_dtype_size((tfl_dtype)o[0].dtype);
    return (o[1].dtype == TFL_DT_BOOL || o[1].dtype == TFL_DT_U8) &&
           es == tfl_dtype_size((tfl_dtype)o[2].dtype) &&
           es == tfl_dtype_size((tfl_dtype)o[3].dtype);
}

/* Without doubles a conversion alone is still exact in float: the input
 * holds exactly in float (then float -> integer truncates as double ->
 * integer would), or the output is a float type and the input an int32,
 * or an int64 rounded as the host rounds it (to double, then to float). */
static int copy_exact_in_float(const tfl_elementwise_op *e)
{
    const tfl_ew_operand *in = &e->operand[1], *out = &e->operand[0];
    int to_float = out->dtype == TFL_DT_F32 || out->dtype == TFL_DT_F16 ||
                   out->dtype == TFL_DT_BF16;
    if (e->code != TFL_EW_COPY || in->is_scalar)
        return 0;
    switch (in->dtype) {
    case TFL_DT_F32: case TFL_DT_F16: case TFL_DT_BF16: case TFL_DT_I8: case TFL_DT_U8:
    case TFL_DT_BOOL:
        return 1;
    case TFL_DT_I32: case TFL_DT_I64:
        return to_float;
    default:
        return 0;
    }
}

/* The domain of e (OCL_EW_*), -1 if the device cannot compute it. */
static int domain_of(const tfl_elementwise_op *e, int fp64)
{
    if (is_raw(e))
        return OCL_EW_RAW;
    int c = e->compute;
    if (e->code == TFL_EW_ARANGE)   /* the host: int64, float for float, else double */
        return is_int(c) ? OCL_EW_INT : c == TFL_DT_F32 ? OCL_EW_FLT : fp64 ? OCL_EW_DBL : -1;
    int ints = 1;
    for (int k = 1; k <= e->ninputs; k++)
        ints &= is_int(e->operand[k].dtype);
    if (is_int(c) && ints && ocl_ew_has_form(e->code, OCL_EW_INT))
        return OCL_EW_INT;
    /* the host computes the rest in double, except float compute over
     * float types and bytes (PyTorch's float opmath) */
    int f64 = c == TFL_DT_F64, wide = 0;
    for (int k = 0; k <= e->ninputs; k++) {
        const tfl_ew_operand *o = &e->operand[k];
        if (o->is_scalar)
            continue;
        f64 |= o->dtype == TFL_DT_F64;
        wide |= k > 0 && (o->dtype == TFL_DT_I32 || o->dtype == TFL_DT_I64);
    }
    if (f64)
        return fp64 ? OCL_EW_DBL : -1;
    if (!is_int(c) && !wide)
        return OCL_EW_FLT;
    if (fp64)
        return OCL_EW_DBL;
    return copy_exact_in_float(e) ? OCL_EW_FLT : -1;
}

/* Shape and strides with size-1 dimensions dropped and each dimension
 * merged into the previous one where every operand steps evenly across
 * the pair; p->n = the element count (0: nothing to do).  0 on overflow. */
static int collapse(ew_plan *p, const tfl_elementwise_op *e)
{
    int nops = e->ninputs + 1, nd = 0;
    uint64_t n = 1;
    for (int d = 0; d < e->ndim; d++) {
        int64_t len = e->shape[d];
        if (len < 0 || __builtin_mul_overflow(n, (uint64_t)len, &n) || n > INT64_MAX)
            return 0;
        if (len == 1)
            continue;
        int merge = nd > 0;
        for (int k = 0; k < nops && merge; k++) {
            int64_t sd = e->operand[k].is_scalar ? 0 : e->operand[k].strides[d], m;
            merge = !__builtin_mul_overflow(p->st[k][nd - 1], p->shape[nd - 1], &m) && m == sd;
        }
        if (merge) {
            p->shape[nd - 1] *= len;
            continue;
        }
        p->shape[nd] = len;
        for (int k = 0; k < nops; k++)
            p->st[k][nd] = e->operand[k].is_scalar ? 0 : e->operand[k].strides[d];
        nd++;
    }
    if (nd == 0) {
        nd = 1;
        p->shape[0] = 1;
        for (int k = 0; k < nops; k++)
            p->st[k][0] = 0;
    }
    p->n = n;
    p->sig.ndim = nd;
    p->sig.idx64 = n > UINT32_MAX;
    return 1;
}

/* Tensor operand k: aligned, and all the bytes it touches (byte strides)
 * in one device buffer: p->a[k]. */
static int resolve(ew_plan *p, const tfl_ew_operand *o, int k)
{
    int64_t es = (int64_t)tfl_dtype_size((tfl_dtype)o->dtype), lo = 0, hi = es;
    if ((uintptr_t)o->data % (uint64_t)es)
        return 0;
    for (int d = 0; d < p->sig.ndim; d++)
        if (p->st[k][d] % es)
            return 0;
    return ocl_extent(p->sig.ndim, p->shape, p->st[k], &lo, &hi) &&
           ocl_arg_span(o->data, lo, hi, &p->a[k]);
}

/* The plan of op; TFL_OK, TFL_ERR_UNSUPPORTED (not natively) or
 * TFL_ERR_INVALID (an operand outside device memory). */
static tfl_status plan_op(const tfl_op *op, ew_plan *p)
{
    const ocl_device *dev = ocl_dev();
    if (!dev || op->kind != TFL_OP_ELEMENTWISE)
        return TFL_ERR_UNSUPPORTED;
    const tfl_elementwise_op *e = &op->u.elementwise;
    memset(&p->sig, 0, sizeof p->sig);
    if (ocl_ew_arity(e->code) != e->ninputs || e->ndim < 1 || e->ndim > TFL_EW_MAX_DIMS ||
        !is_real(e->compute) || e->operand[0].is_scalar)
        return TFL_ERR_UNSUPPORTED;
    /* complex anywhere (a constant too) makes the op complex: not here */
    for (int k = 0; k <= e->ninputs; k++)
        if (!is_real(e->operand[k].dtype))
            return TFL_ERR_UNSUPPORTED;
    int dom = domain_of(e, dev->fp64);
    if (dom < 0 || (dom != OCL_EW_RAW && !ocl_ew_has_form(e->code, dom)))
        return TFL_ERR_UNSUPPORTED;
    p->sig.code = e->code;
    p->sig.domain = dom;
    p->sig.nin = e->ninputs;
    for (int k = 0; k <= e->ninputs; k++) {
        p->sig.scalar[k] = e->operand[k].is_scalar;
        p->sig.dtype[k] = e->operand[k].is_scalar ? 0 : e->operand[k].dtype;
    }
    if (!collapse(p, e))
        return TFL_ERR_INVALID;
    if (e->code == TFL_EW_ARANGE && p->sig.ndim != 1)
        return TFL_ERR_UNSUPPORTED;      /* the host's arange is 1-d only too */
    if (p->n == 0)
        return TFL_OK;
    for (int k = 0; k <= e->ninputs; k++)
        if (!e->operand[k].is_scalar && !resolve(p, &e->operand[k], k))
            return TFL_ERR_INVALID;
    return TFL_OK;
}

int ocl_ew_supported(const tfl_op *op)
{
    ew_plan p;
    return plan_op(op, &p) == TFL_OK;
}

/* ------------------------------------------------------------ kernels */

/* Signature -> kernel: a launch does not regenerate the source. */
OCL_KCACHE(ew_kernels, 1024);
_Static_assert(sizeof(ocl_ew_sig) <= OCL_KEY_MAX, "an ew signature is a cache key");

static ocl_kernel *kernel_for(const ocl_ew_sig *s)
{
    ocl_kernel *k = ocl_kcache_get(&ew_kernels, s, sizeof *s, NULL);
    if (k)
        return k;
    /* correctly rounded float division and sqrt where the device offers
     * them, so a / b, trunc(a / b) and the like agree with the host's */
    k = ocl_kernel_src(ocl_ew_source(s), "ew", 0, NULL);
    ocl_kcache_put(&ew_kernels, s, sizeof *s, k, 0);
    return k;
}

/* ------------------------------------------------------------ running */

/* A value in the domain's argument type (long, float or double). */
typedef struct ew_val {
    union { cl_long i; cl_float f; cl_double d; } u;
    size_t size;
} ew_val;

static ew_val val_of(int domain, double f, int64_t i)
{
    ew_val v;
    memset(&v, 0, sizeof v);
    switch (domain) {
    case OCL_EW_FLT: v.u.f = (cl_float)f; v.size = sizeof(cl_float); break;
    case OCL_EW_DBL: v.u.d = f; v.size = sizeof(cl_double); break;
    case OCL_EW_INT: v.u.i = i; v.size = sizeof(cl_long); break;
    default: v.u.i = 0; v.size = sizeof(cl_long); break;
    }
    return v;
}

/* The arguments after the kernel's fixed ones (ocl_ew.h's order) that
 * describe the shape: scalars, or a buffer *dims the caller releases. */
static tfl_status add_dims(ocl_args *a, const ew_plan *p, int nops, cl_mem *dims)
{
    int nd = p->sig.ndim;
    if (nd <= OCL_EW_ARG_DIMS) {
        for (int d = 0; d + 1 < nd; d++)
            OCL_ADD(a, p->shape[d]);
        for (int j = 0; j < nops; j++)
            for (int d = 0; d < nd && !p->sig.scalar[j]; d++)
                OCL_ADD(a, p->st[j][d]);
        return TFL_OK;
    }
    cl_long v[TFL_EW_MAX_DIMS * (TFL_EW_MAX_OPERANDS + 1)];
    int m = 0;
    for (int d = 0; d < nd; d++)
        v[m++] = p->shape[d];
    for (int j = 0; j < nops; j++)
        for (int d = 0; d < nd && !p->sig.scalar[j]; d++)
            v[m++] = p->st[j][d];
    cl_int rc;
    *dims = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           (size_t)m * sizeof(cl_long), v, &rc);
    OCL_ADD(a, *dims);
    return ocl_status(rc, "clCreateBuffer");
}

static tfl_status add_args(ocl_args *a, const ew_plan *p, const tfl_elementwise_op *e,
                           cl_mem *dims)
{
    cl_ulong n = p->n;
    OCL_ADD(a, n);
    for (int j = 0; j <= e->ninputs; j++) {
        const tfl_ew_operand *o = &e->operand[j];
        if (o->is_scalar) {
            ew_val v = val_of(p->sig.domain, o->value_f, o->value_i);
            ocl_args_add(a, &v.u, v.size);
        } else {
            OCL_ADD(a, p->a[j].b);
            OCL_ADD(a, p->a[j].o);
        }
    }
    for (int i = 0; i < 4; i++) {
        ew_val v = val_of(p->sig.domain, e->param_f[i], e->param_i[i]);
        ocl_args_add(a, &v.u, v.size);
    }
    return add_dims(a, p, e->ninputs + 1, dims);
}

tfl_status ocl_ew_run(const tfl_op *op, tfl_stream s)
{
    ew_plan p;
    tfl_status st = plan_op(op, &p);
    if (st != TFL_OK || p.n == 0)
        return st;
    ocl_kernel *k = kernel_for(&p.sig);
    if (!k) {
        OCL_LOG(OCL_ERROR, "opencl: elementwise code %d: no kernel", p.sig.code);
        return TFL_ERR_INTERNAL;
    }
    cl_mem dims = NULL;
    ocl_args a = { 0 };
    st = add_args(&a, &p, &op->u.elementwise, &dims);
    if (st == TFL_OK)
        st = ocl_launch_args(k, &a, (size_t)p.n, 0, s);
    /* freed once the launch that reads it has run */
    if (dims)
        clReleaseMemObject(dims);
    return st;
}

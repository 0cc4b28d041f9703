/*
 * ocl_loss.c - TFL_OP_LOSS (torchfl/ops/loss.h) on the OpenCL device:
 * nll_loss forward (reductions none / sum / mean, the 1-D special case,
 * accumulate), backward and the separate average step, plain and spatial,
 * for float32, float64, float16 and bfloat16 with int64 or uint8 targets.
 *
 * Semantics and precision are the host backend's (host/ops_loss.c): every
 * (b, h, w) position is a row; values are widened to the accumulate type
 * (double when the device has cl_khr_fp64, as the host; float otherwise)
 * and rounded once on store, through float for float16/bfloat16 (NaN
 * stored as the host's 0x7fff).  The sums of the reduced forward are
 * deterministic: a fixed number of work-groups (from the row count) each
 * sum a strided slice of rows through a local-memory tree, and one
 * work-group adds their partials in order.
 *
 * A target outside [0, n_classes) that is not ignore_index is the host's
 * error and CUDA's device assert: the kernels skip its row and set the
 * device's assert word (ocl_assert_word), so the stream reports
 * TFL_ERR_DEVICE at its next sync, as after a GPU fault.
 */
#include "backends/opencl/ocl_src.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ kernels */

/* DT (tfl_dtype: 0 f32, 1 f64, 2 f16, 3 bf16), TT (0 int64 targets, 1
 * uint8), WG and ACC_DBL come from the build options.
 *
 * long16 geometry (the host fills it, dimension 0 meaning 1 resolved):
 *   s0 H, s1 W, s2..s4 target strides (b, h, w), s5..s8 strides of the
 *   class-indexed operand (b, c, h, w: input forward, grad_input
 *   backward), s9..sb strides of the per-row operand (b, h, w: output
 *   forward, grad_output backward), sc n_classes, sd ignore_index, se
 *   rows. */
static const char loss_src[] =
OCL_SRC_ACC
"#define OCL_LP_NAN 2\n"   /* NaN stored as 0x7fff, as the host's */
OCL_SRC_LOWP
OCL_SRC_DT
"#if DT == 1\n"
"static acc_t ld(__global const st_t *p, long i) { return p[i]; }\n"
"static void st(__global st_t *p, long i, acc_t v) { p[i] = v; }\n"
"#else\n"
"static acc_t ld(__global const st_t *p, long i) { return (acc_t)ocl_ldf(DT, p, i); }\n"
"static void st(__global st_t *p, long i, acc_t v) { ocl_stf(DT, p, i, (float)v); }\n"
"#endif\n"
"#define IN(b, o) ((__global const st_t *)((b) + (o)))\n"
"#define OUT(b, o) ((__global st_t *)((b) + (o)))\n"
/* the class of row r: 1 kept, 0 ignored, -1 out of range (flagged); the
 * geometry by pointer (a long16 by value changes the x86 ABI on PoCL) */
"static int target_at(__global const char *tb, ulong to, const long16 *gp, long r, long *t,\n"
"                     long *ao, long *oo, __global int *flag) {\n"
"    long16 g = *gp;\n"
"    long w = r % g.s1, h = (r / g.s1) % g.s0, b = r / (g.s1 * g.s0);\n"
"    long off = b * g.s2 + h * g.s3 + w * g.s4;\n"
"#if TT\n"
"    *t = (long)((__global const uchar *)(tb + to))[off];\n"
"#else\n"
"    *t = ((__global const long *)(tb + to))[off];\n"
"#endif\n"
"    *ao = b * g.s5 + h * g.s7 + w * g.s8;\n"
"    *oo = b * g.s9 + h * g.sa + w * g.sb;\n"
"    if (*t == g.sd) return 0;\n"
"    if (*t < 0 || *t >= g.sc) { *flag = 1; return -1; }\n"
"    return 1;\n"
"}\n"
"static acc_t weight_of(__global const char *wb, ulong wo, int has_w, long t) {\n"
"    return has_w ? ld(IN(wb, wo), t) : (acc_t)1;\n"
"}\n"
OCL_SRC_WG_SUM
/* reduction none: one row per work item */
"__kernel void loss_fwd_none(__global const char *tb, ulong to, __global const char *xb,\n"
"                            ulong xo, __global const char *wb, ulong wo, int has_w,\n"
"                            __global char *ob, ulong oo, long16 g, __global int *flag) {\n"
"    long r = get_global_id(0), t, a, o;\n"
"    if (r >= g.se) return;\n"
"    int k = target_at(tb, to, &g, r, &t, &a, &o, flag);\n"
"    if (k < 0) return;\n"
"    acc_t v = k ? -(weight_of(wb, wo, has_w, t) * ld(IN(xb, xo), a + t * g.s6)) : (acc_t)0;\n"
"    st(OUT(ob, oo), o, v);\n"
"}\n"
/* sum / mean, first step: group p's sums of -w*x (subtracted from +0, as
 * the host does: no kept row gives +0) and w into part[2p], part[2p+1] */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void loss_fwd_part(__global const char *tb, ulong to, __global const char *xb, ulong xo,\n"
"                   __global const char *wb, ulong wo, int has_w, long16 g,\n"
"                   __global int *flag, __global acc_t *part) {\n"
"    __local acc_t sh[WG];\n"
"    acc_t s = 0, tw = 0;\n"
"    for (long r = get_global_id(0); r < g.se; r += get_global_size(0)) {\n"
"        long t, a, o;\n"
"        if (target_at(tb, to, &g, r, &t, &a, &o, flag) <= 0) continue;\n"
"        acc_t w = weight_of(wb, wo, has_w, t);\n"
"        s -= w * ld(IN(xb, xo), a + t * g.s6);\n"
"        tw += w;\n"
"    }\n"
"    s = ocl_wg_sum(s, sh);\n"
"    tw = ocl_wg_sum(tw, sh);\n"
"    if (get_local_id(0) == 0) {\n"
"        part[2 * get_group_id(0)] = s;\n"
"        part[2 * get_group_id(0) + 1] = tw;\n"
"    }\n"
"}\n"
/* second step, one group: the partials in order; mode 0 store (mean: 1),
 * 2 accumulate (in float, as the host adds the kernel's atomics) */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void loss_fwd_fin(__global const acc_t *part, long nparts, __global char *ob, ulong oo,\n"
"                  __global char *twb, ulong two, int mode) {\n"
"    __local acc_t sh[WG];\n"
"    acc_t s = 0, tw = 0;\n"
"    for (long p = get_local_id(0); p < nparts; p += WG) {\n"
"        s += part[2 * p];\n"
"        tw += part[2 * p + 1];\n"
"    }\n"
"    s = ocl_wg_sum(s, sh);\n"
"    tw = ocl_wg_sum(tw, sh);\n"
"    if (get_local_id(0) != 0) return;\n"
"    __global st_t *out = OUT(ob, oo), *twp = OUT(twb, two);\n"
"    if (mode == 2) {\n"
"        float a = (float)ld(twp, 0) + (float)tw, b = (float)ld(out, 0) + (float)s;\n"
"        st(twp, 0, (acc_t)a);\n"
"        st(out, 0, (acc_t)b);\n"
"        return;\n"
"    }\n"
"    st(twp, 0, tw);\n"
"    st(out, 0, mode == 1 ? s / tw : s);\n"
"}\n"
/* a 1-D input's single target (PyTorch's special case); mean = 1 */
"__kernel void loss_fwd_1d(__global const char *tb, ulong to, __global const char *xb,\n"
"                          ulong xo, __global const char *wb, ulong wo, int has_w,\n"
"                          __global char *ob, ulong oo, __global char *twb, ulong two,\n"
"                          long16 g, int mean, __global int *flag) {\n"
"    if (get_global_id(0) != 0) return;\n"
"    long16 one = g;\n"
"    one.s2 = 0;\n"
"    one.s5 = 0;\n"
"    long t, a, o;\n"
"    int k = target_at(tb, to, &one, 0, &t, &a, &o, flag);\n"
"    if (k < 0) return;\n"
"    acc_t out = 0, tw = 0;\n"
"    if (k) {\n"
"        acc_t w = weight_of(wb, wo, has_w, t), x = ld(IN(xb, xo), t * g.s6);\n"
"        tw = w;\n"
"        out = mean ? (w == 0 ? (acc_t)NAN : -x) : -(w * x);\n"
"    }\n"
"    st(OUT(ob, oo), 0, out);\n"
"    st(OUT(twb, two), 0, tw);\n"
"}\n"
/* backward: the target entry of each kept row; reduced: grad_output[0]
 * (over total_weight for mean) */
"__kernel void loss_bwd(__global const char *tb, ulong to, __global const char *wb,\n"
"                       ulong wo, int has_w, __global const char *gob, ulong goo,\n"
"                       __global const char *twb, ulong two, __global char *gib, ulong gio,\n"
"                       long16 g, int reduction, __global int *flag) {\n"
"    long r = get_global_id(0), t, a, o;\n"
"    if (r >= g.se) return;\n"
"    if (target_at(tb, to, &g, r, &t, &a, &o, flag) <= 0) return;\n"
"    acc_t gv;\n"
"    if (reduction == 0) {\n"
"        gv = ld(IN(gob, goo), o);\n"
"    } else {\n"
"        gv = ld(IN(gob, goo), 0);\n"
"        if (reduction == 1) gv = gv / ld(IN(twb, two), 0);\n"
"    }\n"
"    st(OUT(gib, gio), a + t * g.s6, -(weight_of(wb, wo, has_w, t) * gv));\n"
"}\n"
"__kernel void loss_avg(__global char *ob, ulong oo, __global const char *twb, ulong two) {\n"
"    if (get_global_id(0) != 0) return;\n"
"    __global st_t *out = OUT(ob, oo);\n"
"    st(out, 0, ld(out, 0) / ld(IN(twb, two), 0));\n"
"}\n";

/* ------------------------------------------------------------ planning */

enum { A_TGT, A_IN, A_W, A_OUT, A_TW, A_GOUT, A_GI, A_COUNT };

typedef struct loss_plan {
    ocl_arg a[A_COUNT];
    cl_long16 g;          /* the geometry the kernels read (loss_src) */
    int64_t rows;
} loss_plan;

static int64_t dim1(int64_t v)
{
    return v > 0 ? v : 1;
}

/* The geometry; the class-indexed operand's strides are the input's
 * forward and grad_input's backward, the per-row one's output's and
 * grad_output's. */
static int geometry(const tfl_loss_op *l, loss_plan *p)
{
    const int64_t H = dim1(l->H), W = dim1(l->W);
    int64_t hw;
    if (__builtin_mul_overflow(H, W, &hw) || __builtin_mul_overflow(l->batch, H, &p->rows) ||
        __builtin_mul_overflow(p->rows, W, &p->rows))
        return 0;
    const int fwd = l->kind == TFL_LOSS_NLL_FWD;
    const int64_t v[16] = {
        H, W,
        l->tgt_stride0 ? l->tgt_stride0 : hw, l->tgt_stride_h ? l->tgt_stride_h : W,
        l->tgt_stride_w ? l->tgt_stride_w : 1,
        fwd ? l->in_stride0 : l->gi_stride0, fwd ? l->in_stride1 : l->gi_stride1,
        fwd ? l->in_stride_h : l->gi_stride_h, fwd ? l->in_stride_w : l->gi_stride_w,
        fwd ? l->out_stride : l->gout_stride, fwd ? l->out_stride_h : l->gout_stride_h,
        fwd ? l->out_stride_w : l->gout_stride_w,
        l->n_classes, l->ignore_index, p->rows, 0,
    };
    for (int i = 0; i < 16; i++)
        p->g.s[i] = v[i];
    return 1;
}

/* Resolves what the op reads and writes. */
static int plan(const tfl_loss_op *l, loss_plan *p)
{
    memset(p, 0, sizeof *p);
    const size_t es = tfl_dtype_size(l->dtype);
    if (l->kind == TFL_LOSS_NLL_AVERAGE)
        return l->output && l->total_weight && ocl_arg_run(l->output, es, 1, &p->a[A_OUT]) &&
               ocl_arg_run(l->total_weight, es, 1, &p->a[A_TW]);
    if (l->batch < 0 || l->n_classes < 0 || l->H < 0 || l->W < 0 || !l->target ||
        !geometry(l, p))
        return 0;
    const cl_long *g = p->g.s;
    const size_t ts = tfl_dtype_size(l->target_dtype);
    const int64_t tlen[3] = { l->batch, g[0], g[1] }, tst[3] = { g[2], g[3], g[4] };
    const int64_t clen[4] = { l->batch, l->n_classes, g[0], g[1] };
    const int64_t cst[4] = { g[5], g[6], g[7], g[8] };
    const int64_t rst[3] = { g[9], g[10], g[11] };
    const int one_d = l->kind == TFL_LOSS_NLL_FWD && l->one_d &&
                      l->reduction != TFL_LOSS_REDUCE_NONE;
    const int none = l->reduction == TFL_LOSS_REDUCE_NONE;
    const int reads_tgt = one_d ? ocl_arg_run(l->target, ts, 1, &p->a[A_TGT])
                                : ocl_arg_view(l->target, ts, 3, tlen, tst, &p->a[A_TGT]);
    if (!reads_tgt || (l->weight && !ocl_arg_run(l->weight, es, l->n_classes, &p->a[A_W])))
        return 0;
    if (l->kind == TFL_LOSS_NLL_BWD)
        return ocl_arg_view(l->grad_input, es, 4, clen, cst, &p->a[A_GI]) &&
               (none ? ocl_arg_view(l->grad_output, es, 3, tlen, rst, &p->a[A_GOUT])
                     : ocl_arg_run(l->grad_output, es, 1, &p->a[A_GOUT])) &&
               (l->reduction != TFL_LOSS_REDUCE_MEAN ||
                ocl_arg_run(l->total_weight, es, 1, &p->a[A_TW]));
    if (one_d)
        return ocl_arg_view(l->input, es, 1, &clen[1], &cst[1], &p->a[A_IN]) &&
               ocl_arg_run(l->output, es, 1, &p->a[A_OUT]) &&
               ocl_arg_run(l->total_weight, es, 1, &p->a[A_TW]);
    if (!ocl_arg_view(l->input, es, 4, clen, cst, &p->a[A_IN]))
        return 0;
    if (none)
        return ocl_arg_view(l->output, es, 3, tlen, rst, &p->a[A_OUT]);
    return ocl_arg_run(l->output, es, 1, &p->a[A_OUT]) &&
           ocl_arg_run(l->total_weight, es, 1, &p->a[A_TW]);
}

static int dtype_ok(tfl_dtype t, int fp64)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16 || (t == TFL_DT_F64 && fp64);
}

int ocl_loss_supported(const tfl_op *op)
{
    const ocl_device *d = ocl_dev();
    if (!d || op->kind != TFL_OP_LOSS)
        return 0;
    const tfl_loss_op *l = &op->u.loss;
    loss_plan p;
    if ((unsigned)l->kind >= TFL_LOSS_KIND_COUNT || !dtype_ok(l->dtype, d->fp64))
        return 0;
    if (l->kind != TFL_LOSS_NLL_AVERAGE &&
        ((l->target_dtype != TFL_DT_I64 && l->target_dtype != TFL_DT_U8) ||
         (l->reduction != TFL_LOSS_REDUCE_NONE && l->reduction != TFL_LOSS_REDUCE_MEAN &&
          l->reduction != TFL_LOSS_REDUCE_SUM)))
        return 0;
    return plan(l, &p);
}

/* ------------------------------------------------------------ running */

/* Kernel `name` built for l's dtypes, the largest work-group size (a
 * power of two up to 256) it allows, the accumulate type, and correctly
 * rounded float division where the device has it (the float accumulate
 * type's mean and average). */
static ocl_kernel *kernel_for(const tfl_loss_op *l, const char *name, size_t *wg)
{
    const ocl_device *d = ocl_dev();
    const char *crd = ocl_div_opt();
    char opts[160];
    snprintf(opts, sizeof opts, "-DDT=%d -DTT=%d -DACC_DBL=%d %s", (int)l->dtype,
             l->target_dtype == TFL_DT_U8, d->fp64, crd ? crd : "");
    return ocl_kernel_wg(loss_src, opts, name, NULL, 256, wg);
}

/* ---- the op kinds: a target out of range sets the device's assert
 * word (ocl.h), passed to the kernels as `flag` */

static tfl_status run_average(const tfl_loss_op *l, const loss_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for(l, "loss_avg", &wg);
    ocl_karg args[] = { OCL_KB(p->a[A_OUT]), OCL_KB(p->a[A_TW]) };
    return ocl_launch(k, args, OCL_NARGS(args), 1, 0, s);
}

static tfl_status run_none(const tfl_loss_op *l, const loss_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for(l, "loss_fwd_none", &wg);
    cl_int has_w = l->weight != NULL;
    cl_mem flag = ocl_assert_word();
    ocl_karg args[] = { OCL_KB(p->a[A_TGT]), OCL_KB(p->a[A_IN]), OCL_KB(p->a[A_W]),
                        OCL_KA(has_w), OCL_KB(p->a[A_OUT]), OCL_KA(p->g), OCL_KA(flag) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)p->rows, 0, s);
}

static tfl_status run_1d(const tfl_loss_op *l, const loss_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for(l, "loss_fwd_1d", &wg);
    cl_int has_w = l->weight != NULL, mean = l->reduction == TFL_LOSS_REDUCE_MEAN;
    cl_mem flag = ocl_assert_word();
    ocl_karg args[] = { OCL_KB(p->a[A_TGT]), OCL_KB(p->a[A_IN]), OCL_KB(p->a[A_W]),
                        OCL_KA(has_w), OCL_KB(p->a[A_OUT]), OCL_KB(p->a[A_TW]), OCL_KA(p->g),
                        OCL_KA(mean), OCL_KA(flag) };
    return ocl_launch(k, args, OCL_NARGS(args), 1, 0, s);
}

/* Sum / mean: partial sums of a number of groups fixed by the row count
 * (so a run repeats its bits), then one group adds them in order. */
static tfl_status run_reduced(const tfl_loss_op *l, const loss_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *kp = kernel_for(l, "loss_fwd_part", &wg), *kf = kernel_for(l, "loss_fwd_fin", &wg);
    if (!kp || !kf)
        return TFL_ERR_INTERNAL;
    const int64_t per_group = (int64_t)wg * 4;
    cl_long groups = (p->rows + per_group - 1) / per_group;
    if (groups > 256)
        groups = 256;
    const size_t acc = ocl_dev()->fp64 ? sizeof(cl_double) : sizeof(cl_float);
    cl_int rc;
    cl_mem part = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE,
                                 (size_t)(groups ? groups : 1) * 2 * acc, NULL, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer");
    cl_int has_w = l->weight != NULL;
    cl_mem flag = ocl_assert_word();
    ocl_karg pa[] = { OCL_KB(p->a[A_TGT]), OCL_KB(p->a[A_IN]), OCL_KB(p->a[A_W]), OCL_KA(has_w),
                      OCL_KA(p->g), OCL_KA(flag), OCL_KA(part) };
    tfl_status st = ocl_launch(kp, pa, OCL_NARGS(pa), (size_t)groups * wg, wg, s);
    cl_int mode = l->accumulate ? 2 : l->reduction == TFL_LOSS_REDUCE_MEAN;
    ocl_karg fa[] = { OCL_KA(part), OCL_KA(groups), OCL_KB(p->a[A_OUT]), OCL_KB(p->a[A_TW]),
                      OCL_KA(mode) };
    if (st == TFL_OK)
        st = ocl_launch(kf, fa, OCL_NARGS(fa), wg, wg, s);
    clReleaseMemObject(part);       /* freed once the kernels ran */
    return st;
}

static tfl_status run_bwd(const tfl_loss_op *l, const loss_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for(l, "loss_bwd", &wg);
    cl_int has_w = l->weight != NULL;
    cl_int red = l->reduction == TFL_LOSS_REDUCE_NONE ? 0
                 : l->reduction == TFL_LOSS_REDUCE_MEAN ? 1 : 2;
    cl_mem flag = ocl_assert_word();
    ocl_karg args[] = { OCL_KB(p->a[A_TGT]), OCL_KB(p->a[A_W]), OCL_KA(has_w),
                        OCL_KB(p->a[A_GOUT]), OCL_KB(p->a[A_TW]), OCL_KB(p->a[A_GI]),
                        OCL_KA(p->g), OCL_KA(red), OCL_KA(flag) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)p->rows, 0, s);
}

tfl_status ocl_loss_run(const tfl_op *op, tfl_stream s)
{
    if (!ocl_loss_supported(op))
        return TFL_ERR_UNSUPPORTED;
    const tfl_loss_op *l = &op->u.loss;
    loss_plan p;
    plan(l, &p);
    if (l->kind == TFL_LOSS_NLL_AVERAGE)
        return run_average(l, &p, s);
    const int none = l->reduction == TFL_LOSS_REDUCE_NONE;
    if ((l->kind == TFL_LOSS_NLL_BWD || none) && p.rows == 0)
        return TFL_OK;
    if (l->kind == TFL_LOSS_NLL_BWD)
        return run_bwd(l, &p, s);
    if (none)
        return run_none(l, &p, s);
    return l->one_d ? run_1d(l, &p, s) : run_reduced(l, &p, s);
}

/*
 * ocl_gemm.c - TFL_OP_GEMM on the OpenCL device: the product on CLBlast,
 * the rest (fp16/bf16 conversion, beta*C for narrow outputs, epilogues,
 * bias gradients) in the small kernels of ocl_gemm_epi.c.
 *
 * Semantics are the host backend's (gemm.c, gemm_lowp.c,
 * gemm_epilogue.c), step for step:
 *   fp32/fp64 ("direct"): D = C (when beta != 0 and C is elsewhere), then
 *     CLBlast D = alpha*op(A)op(B) + beta*D (beta 0: D is not read), then
 *     the epilogue in place;
 *   fp16/bf16: A and B widened to fp32 scratch, SGEMM; an fp32 C and D
 *     take the direct path, otherwise T = alpha*op(A)op(B) in fp32 scratch
 *     and one pass D = narrow(epilogue(T + beta*C));
 *   k == 0 or alpha == 0: A and B are not read, D = epilogue(beta*C).
 * BGRADA/BGRADB sum the operand before the product, as the host does.
 *
 * Strided batches are one CLBlast call and one launch per step; pointer
 * arrays (device memory) are read back with a blocking read, resolved per
 * entry, and run as one CLBlast batched call when every entry of A, of B
 * and of D lies in one buffer, else entry by entry.  Scratch buffers are
 * released right after enqueueing: OpenCL frees them once the commands
 * that use them have finished.
 */
#include "backends/opencl/ocl_src.h"

#include <clblast_c.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ocl_gemm_epi.c */
extern const char ocl_gemm_cl_src[];

/* the kernel source numbers element types as tfl_dtype does */
_Static_assert(TFL_DT_F32 == 0 && TFL_DT_F64 == 1 && TFL_DT_F16 == 2 && TFL_DT_BF16 == 3,
               "ocl_gemm_epi.c's DT_* follow tfl_dtype");

/* ------------------------------------------------------------ epilogue */

/* Epilogue steps; the first eight bits are the kernel's F_* as well. */
enum {
    E_BIAS = 1 << 0,      /* x += bias[i]                               */
    E_RELU = 1 << 1,
    E_GELU = 1 << 2,
    E_AUX_GELU = 1 << 3,  /* aux = x (pre-activation)                   */
    E_AUX_MASK = 1 << 4,  /* aux bit = x > 0                            */
    E_DRELU = 1 << 5,     /* x = aux bit ? x : 0                        */
    E_DGELU = 1 << 6,     /* x *= gelu'(aux)                            */
    E_BGRAD_D = 1 << 7,   /* bias[i] = sum over columns of x            */
    E_BGRAD_A = 1 << 8,   /* bias[i] = sum_k op(A)[i,k]                 */
    E_BGRAD_B = 1 << 9,   /* bias[j] = sum_k op(B)[k,j]                 */
    K_SRC = 1 << 10,      /* gemm_finish: x starts from a source matrix */
    K_C = 1 << 11         /* gemm_finish: x += beta * C                 */
};
#define E_ELEMENT (E_BIAS | E_RELU | E_GELU | E_AUX_GELU | E_AUX_MASK | E_DRELU | E_DGELU | E_BGRAD_D)
#define E_FAST (E_BIAS | E_RELU | E_GELU)   /* the host's fp32 fast path */

static const int epi_flags[16] = {
    [TFL_EPI_NONE] = 0,
    [TFL_EPI_BIAS] = E_BIAS,
    [TFL_EPI_RELU] = E_RELU,
    [TFL_EPI_RELU_BIAS] = E_RELU | E_BIAS,
    [TFL_EPI_GELU] = E_GELU,
    [TFL_EPI_GELU_BIAS] = E_GELU | E_BIAS,
    [TFL_EPI_DGELU] = E_DGELU,
    [TFL_EPI_DGELU_BGRAD] = E_DGELU | E_BGRAD_D,
    [TFL_EPI_BGRADA] = E_BGRAD_A,
    [TFL_EPI_BGRADB] = E_BGRAD_B,
    [TFL_EPI_GELU_AUX] = E_GELU | E_AUX_GELU,
    [TFL_EPI_GELU_AUX_BIAS] = E_GELU | E_AUX_GELU | E_BIAS,
    [TFL_EPI_DRELU] = E_DRELU,
    [TFL_EPI_DRELU_BGRAD] = E_DRELU | E_BGRAD_D,
    [TFL_EPI_RELU_AUX] = E_RELU | E_AUX_MASK,
    [TFL_EPI_RELU_AUX_BIAS] = E_RELU | E_AUX_MASK | E_BIAS,
};

/* ---------------------------------------------------------------- plan */

/* What an op asks for, decided once from its fields (no device memory). */
typedef struct plan {
    const tfl_gemm_op *op;
    int flags;           /* E_* of the epilogue                          */
    int f64;             /* an fp64 GEMM (every operand F64)             */
    int trivial;         /* k == 0 or alpha == 0: only beta*C            */
    int direct;          /* the GEMM accumulates into D (C, D fp32/fp64) */
    int beta0;           /* beta == 0: C is never read                   */
    int dbl;             /* gemm_finish in double (host: double path)    */
    int arrays;          /* pointer-array batch                          */
    int need_a, need_b;  /* A / B are read                               */
    float alpha_f, beta_f;
    double alpha_d, beta_d;
} plan;

static int is_f32_family(tfl_compute c)
{
    return c == TFL_COMPUTE_32F || c == TFL_COMPUTE_32F_FAST_TF32 ||
           c == TFL_COMPUTE_32F_FAST_16F || c == TFL_COMPUTE_32F_FAST_16BF ||
           c == TFL_COMPUTE_16F;
}

static int is_lowp_family(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* A bias/aux element type the kernels load and store. */
static int vec_type_ok(tfl_dtype t, int fp64)
{
    return is_lowp_family(t) || (t == TFL_DT_F64 && fp64);
}

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

static int fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

static int types_ok(const tfl_gemm_op *op, int fp64, int *f64)
{
    tfl_dtype ta = op->type_a;
    *f64 = ta == TFL_DT_F64;
    if (*f64)
        return fp64 && op->type_b == ta && op->type_c == ta && op->type_d == ta &&
               op->compute == TFL_COMPUTE_64F;
    /* fp16/bf16 in or out with fp32 arithmetic, as the host's gemm_lowp */
    return is_lowp_family(ta) && op->type_b == ta && is_lowp_family(op->type_c) &&
           is_lowp_family(op->type_d) && is_f32_family(op->compute);
}

/* The shape checks of the host's check_op, plus what the kernels need. */
static int shape_ok(const tfl_gemm_op *op)
{
    if (op->trans_a < 0 || op->trans_a > 2 || op->trans_b < 0 || op->trans_b > 2)
        return 0;
    if (op->m < 0 || op->n < 0 || op->k < 0 || op->batch < 0)
        return 0;
    int64_t ra = op->trans_a ? op->k : op->m, rb = op->trans_b ? op->n : op->k;
    if (op->lda < max1(ra) || op->ldb < max1(rb) || op->ldd < max1(op->m))
        return 0;
    if (op->c && op->ldc < max1(op->m))
        return 0;
    /* CLBlast's kernels index with 32-bit ints */
    if (!fits_int(op->m) || !fits_int(op->n) || !fits_int(op->k) || !fits_int(op->lda) ||
        !fits_int(op->ldb) || !fits_int(op->ldd) || (op->c && !fits_int(op->ldc)))
        return 0;
    /* negative batch strides: not worth the address arithmetic; entries
     * writing one D: a race here (and CLBlast refuses it) */
    if (op->batch > 1 && (op->stride_a < 0 || op->stride_b < 0 || op->stride_c < 0 ||
                          op->stride_d <= 0 || op->stride_bias < 0 || op->stride_aux < 0))
        return 0;
    return op->alpha && op->beta;
}

/* Epilogue operands; batch entries must not write the same bias/aux (the
 * host's last-entry-wins order would be a race here). */
static int epi_ok(const tfl_gemm_op *op, int f, int fp64)
{
    int multi = op->batch > 1;
    if (f & (E_BIAS | E_BGRAD_D | E_BGRAD_A | E_BGRAD_B)) {
        if (!op->bias || !vec_type_ok(op->bias_type, fp64))
            return 0;
        if (multi && (f & (E_BGRAD_D | E_BGRAD_A | E_BGRAD_B)) && op->stride_bias == 0)
            return 0;
    }
    if (f & (E_AUX_GELU | E_AUX_MASK | E_DRELU | E_DGELU)) {
        if (!op->aux || op->ld_aux < max1(op->m))
            return 0;
        if ((f & (E_AUX_MASK | E_DRELU)) && op->ld_aux % 8 != 0)
            return 0;
        if ((f & (E_AUX_GELU | E_DGELU)) && !vec_type_ok(op->aux_type, fp64))
            return 0;
        if (multi && (f & (E_AUX_GELU | E_AUX_MASK)) && op->stride_aux == 0)
            return 0;
        if (multi && (f & E_AUX_MASK) && op->stride_aux % 8 != 0)
            return 0;   /* entries would share mask bytes */
    }
    return 1;
}

/* 1 and p filled when the op is one this file computes as the host does. */
static int make_plan(const tfl_gemm_op *op, plan *p)
{
    const ocl_device *dev = ocl_dev();
    memset(p, 0, sizeof *p);
    p->op = op;
    if (!dev || !shape_ok(op) || !types_ok(op, dev->fp64, &p->f64))
        return 0;
    if ((unsigned)op->epilogue >= sizeof epi_flags / sizeof epi_flags[0])
        return 0;
    p->flags = epi_flags[op->epilogue];
    if (!epi_ok(op, p->flags, dev->fp64))
        return 0;

    /* host scalars of the compute precision */
    if (p->f64) {
        p->alpha_d = *(const double *)op->alpha;
        p->beta_d = *(const double *)op->beta;
        p->beta0 = p->beta_d == 0.0;
        p->trivial = op->k == 0 || p->alpha_d == 0.0;
    } else {
        p->alpha_f = *(const float *)op->alpha;
        p->beta_f = *(const float *)op->beta;
        p->beta0 = p->beta_f == 0.0f;
        p->trivial = op->k == 0 || p->alpha_f == 0.0f;
    }
    p->arrays = op->d_array != NULL;
    p->direct = p->f64 || (op->type_c == TFL_DT_F32 && op->type_d == TFL_DT_F32);
    /* the host's fp32 fast path is fp32 arithmetic; everything else
     * (general epilogue, k == 0 / alpha == 0, fp64) is double */
    p->dbl = dev->fp64 && (p->f64 || p->trivial || (p->flags & ~E_FAST) != 0);
    p->need_a = op->k > 0 && (!p->trivial || (p->flags & E_BGRAD_A));
    p->need_b = op->k > 0 && (!p->trivial || (p->flags & E_BGRAD_B));

    /* Without C the host reads D in its place, but with ldc's layout and
     * C's type: only the same layout and type are the same thing. */
    int c_absent = p->arrays ? op->c_array == NULL : op->c == NULL;
    if (!p->beta0 && c_absent && (op->ldc != op->ldd || op->type_c != op->type_d))
        return 0;
    if (!p->beta0 && !c_absent && op->ldc < max1(op->m))
        return 0;
    return 1;
}

/* ------------------------------------------------------------ operands */

/* A matrix as the kernels and CLBlast see it. */
typedef struct opnd {
    cl_mem buf;
    size_t off;          /* bytes, of batch entry 0       */
    int64_t ld, stride;  /* elements (mask: bits)         */
    tfl_dtype t;
} opnd;

/* One GEMM call's worth: a strided batch, or one pointer-array entry. */
typedef struct job {
    opnd a, b, c, d, bias, aux;
    int64_t batch;
    opnd ga, gb, gd;     /* what CLBlast multiplies and writes  */
    cl_mem scratch[3];   /* widened A, widened B, fp32 result   */
} job;

/* Bytes spanned by batch x (rows x cols, leading dim ld); 0 on overflow. */
static int span(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch,
                size_t es, size_t *bytes)
{
    int64_t e, t;
    if (__builtin_mul_overflow(cols - 1, ld, &e) || __builtin_add_overflow(e, rows, &e) ||
        __builtin_mul_overflow(batch - 1, stride, &t) || __builtin_add_overflow(e, t, &e) ||
        __builtin_mul_overflow(e, (int64_t)es, &e))
        return 0;
    *bytes = (size_t)e;
    return 1;
}

/* p as a (batch of) rows x cols matrix of type t; element-aligned. */
static int resolve_mat(const void *p, int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                       int64_t batch, tfl_dtype t, opnd *o)
{
    size_t es = tfl_dtype_size(t), n;
    if (!p || !span(rows, cols, ld, stride, batch, es, &n) || !ocl_resolve(p, n, &o->buf, &o->off))
        return 0;
    o->ld = ld;
    o->stride = batch > 1 ? stride : 0;
    o->t = t;
    return o->off % es == 0;
}

/* An operand a step does not read: any valid buffer will do. */
static void dummy(const opnd *d, opnd *o)
{
    *o = (opnd){ .buf = d->buf, .off = 0, .ld = 1, .stride = 0, .t = TFL_DT_F32 };
}

/* The epilogue vectors of batch entry bi0 onwards (batch entries). */
static int resolve_epi(const plan *p, int64_t bi0, int64_t batch, job *j)
{
    const tfl_gemm_op *op = p->op;
    const int f = p->flags;
    dummy(&j->d, &j->bias);
    dummy(&j->d, &j->aux);
    if (f & (E_BIAS | E_BGRAD_D | E_BGRAD_A | E_BGRAD_B)) {
        int64_t len = (f & E_BGRAD_B) ? op->n : op->m;
        size_t es = tfl_dtype_size(op->bias_type);
        const char *b0 = (const char *)op->bias + (size_t)(op->stride_bias * bi0) * es;
        if (!resolve_mat(b0, len, 1, len, op->stride_bias, batch, op->bias_type, &j->bias))
            return 0;
    }
    if (f & (E_AUX_MASK | E_DRELU)) {
        /* bit offsets; an entry starts at byte (stride * entry) / 8 */
        const char *a0 = (const char *)op->aux + (op->stride_aux * bi0) / 8;
        size_t bits;
        int64_t lead;
        if (!span(op->m, op->n, op->ld_aux, 0, 1, 1, &bits) ||
            __builtin_mul_overflow(op->stride_aux, batch - 1, &lead) ||
            !ocl_resolve(a0, (size_t)(lead / 8) + (bits + 7) / 8, &j->aux.buf, &j->aux.off))
            return 0;
        j->aux.ld = op->ld_aux;
        j->aux.stride = batch > 1 ? op->stride_aux : 0;
        j->aux.t = TFL_DT_F32;   /* unused: bytes */
    } else if (f & (E_AUX_GELU | E_DGELU)) {
        size_t es = tfl_dtype_size(op->aux_type);
        const char *a0 = (const char *)op->aux + (size_t)(op->stride_aux * bi0) * es;
        if (!resolve_mat(a0, op->m, op->n, op->ld_aux, op->stride_aux, batch, op->aux_type,
                         &j->aux))
            return 0;
    }
    return 1;
}

/* A batch of rows x cols matrices spans fewer than 2^31 elements. */
static int int_span(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch)
{
    size_t n;
    return span(rows, cols, ld, stride, batch, 1, &n) && n <= INT_MAX;
}

/* CLBlast's kernels index with ints: operand x, as the GEMM will see it
 * (fp16/bf16 widened into packed fp32 scratch, fp32/fp64 in place), must
 * span fewer than 2^31 elements.  (Its offset: blast_view.) */
static int blast_span_ok(const opnd *x, int64_t rows, int64_t cols, int64_t batch)
{
    if (x->t == TFL_DT_F16 || x->t == TFL_DT_BF16)
        return int_span(rows, cols, rows, x->stride ? rows * cols : 0, batch);
    return int_span(rows, cols, x->ld, x->stride, batch);
}

static int blast_sizes_ok(const plan *p, const job *j)
{
    const tfl_gemm_op *op = p->op;
    const int64_t m = op->m, n = op->n, k = op->k, nb = j->batch;
    return blast_span_ok(&j->a, op->trans_a ? k : m, op->trans_a ? m : k, nb) &&
           blast_span_ok(&j->b, op->trans_b ? n : k, op->trans_b ? k : n, nb) &&
           (p->direct ? blast_span_ok(&j->d, m, n, nb) : int_span(m, n, m, m * n, nb));
}

/* Resolve every operand of a job: entries bi0 .. bi0+batch-1 whose A, B,
 * C, D start at a, b, c, d (C NULL: D stands in, as on the host). */
static int build_job(const plan *p, const void *a, const void *b, const void *c, void *d,
                     int64_t bi0, int64_t batch, job *j)
{
    const tfl_gemm_op *op = p->op;
    memset(j, 0, sizeof *j);
    j->batch = batch;
    if (!resolve_mat(d, op->m, op->n, op->ldd, op->stride_d, batch, op->type_d, &j->d))
        return 0;
    if (!p->need_a)
        dummy(&j->d, &j->a);
    else if (!resolve_mat(a, op->trans_a ? op->k : op->m, op->trans_a ? op->m : op->k,
                          op->lda, op->stride_a, batch, op->type_a, &j->a))
        return 0;
    if (!p->need_b)
        dummy(&j->d, &j->b);
    else if (!resolve_mat(b, op->trans_b ? op->n : op->k, op->trans_b ? op->k : op->n,
                          op->ldb, op->stride_b, batch, op->type_b, &j->b))
        return 0;
    if (p->beta0)
        dummy(&j->d, &j->c);
    else if (!c)
        j->c = j->d;
    else if (!resolve_mat(c, op->m, op->n, op->ldc, op->stride_c, batch, op->type_c, &j->c))
        return 0;
    if (!p->trivial && !blast_sizes_ok(p, j))
        return 0;
    return resolve_epi(p, bi0, batch, j);
}

static void job_release(job *j)
{
    for (int i = 0; i < 3; i++)
        if (j->scratch[i])
            clReleaseMemObject(j->scratch[i]);
    memset(j->scratch, 0, sizeof j->scratch);
}

/* ------------------------------------------------------------ kernels */

/* MAT(x) in the kernel source: buffer, offset, ld, stride, type. */
static void arg_mat(ocl_args *a, const opnd *o)
{
    cl_ulong off = o->off, ld = (cl_ulong)o->ld, stride = (cl_ulong)o->stride;
    cl_int t = (cl_int)o->t;
    OCL_ADD(a, o->buf);
    OCL_ADD(a, off);
    OCL_ADD(a, ld);
    OCL_ADD(a, stride);
    OCL_ADD(a, t);
}

/* ulong arguments */
static void arg_u(ocl_args *a, uint64_t v)
{
    cl_ulong u = v;
    OCL_ADD(a, u);
}

static tfl_status launch(const char *name, int dbl, const ocl_args *a, size_t items, tfl_stream s)
{
    const char *opts = dbl ? "-DACC=double -DACC_DOUBLE -DHAS_FP64"
                           : ocl_dev()->fp64 ? "-DACC=float -DHAS_FP64" : "-DACC=float";
    return ocl_launch_args(ocl_kernel_get(ocl_gemm_cl_src, opts, name), a, items, 0, s);
}

/* dst = src (converted), rows x cols x batch. */
static tfl_status convert(const opnd *src, const opnd *dst, int64_t rows, int64_t cols,
                          int64_t batch, tfl_stream s)
{
    ocl_args a = { 0 };
    arg_u(&a, (uint64_t)rows);
    arg_u(&a, (uint64_t)cols);
    arg_u(&a, (uint64_t)batch);
    arg_mat(&a, src);
    arg_mat(&a, dst);
    return launch("gemm_convert", 0, &a, (size_t)(rows * cols * batch), s);
}

/* D = epilogue(src + beta*C): what is in kf (K_SRC, K_C) says which. */
static tfl_status finish(const plan *p, const job *j, const opnd *src, int kf, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    int f = (p->flags & E_ELEMENT) | kf;
    uint64_t rpi = (f & E_AUX_MASK) ? 8 : 1, cpi = (f & E_BGRAD_D) ? (uint64_t)op->n : 1;
    uint64_t beta_bits = 0;
    if (p->f64)
        memcpy(&beta_bits, &p->beta_d, sizeof p->beta_d);
    else {
        uint32_t b32;
        memcpy(&b32, &p->beta_f, sizeof b32);
        beta_bits = b32;
    }
    ocl_args a = { 0 };
    arg_u(&a, (uint64_t)op->m);
    arg_u(&a, (uint64_t)op->n);
    arg_u(&a, (uint64_t)j->batch);
    arg_u(&a, rpi);
    arg_u(&a, cpi);
    cl_int fi = f;
    OCL_ADD(&a, fi);
    arg_u(&a, beta_bits);
    arg_mat(&a, src);
    arg_mat(&a, &j->c);
    arg_mat(&a, &j->d);
    arg_mat(&a, &j->bias);
    arg_mat(&a, &j->aux);
    uint64_t rows = ((uint64_t)op->m + rpi - 1) / rpi, cols = ((uint64_t)op->n + cpi - 1) / cpi;
    return launch("gemm_finish", p->dbl, &a, (size_t)(rows * cols * (uint64_t)j->batch), s);
}

/* BGRADA: bias[i] = sum_k op(A)[i,k]; BGRADB: bias[j] = sum_k op(B)[k,j]. */
static tfl_status bgrad_operand(const plan *p, const job *j, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    int on_a = (p->flags & E_BGRAD_A) != 0;
    const opnd *x = on_a ? &j->a : &j->b;
    int t = on_a ? op->trans_a : op->trans_b;
    int64_t ld = on_a ? op->lda : op->ldb, len = on_a ? op->m : op->n;
    /* element (o, p) of op(A) is A[o + p*ld] (N) or A[p + o*ld] (T);
     * op(B)[p, o] is B[p + o*ld] (N) or B[o + p*ld] (T) */
    int o_is_row = on_a ? !t : t;
    uint64_t so = o_is_row ? 1 : (uint64_t)ld, sp = o_is_row ? (uint64_t)ld : 1;
    ocl_args a = { 0 };
    arg_u(&a, (uint64_t)len);
    arg_u(&a, (uint64_t)op->k);
    arg_u(&a, (uint64_t)j->batch);
    arg_u(&a, so);
    arg_u(&a, sp);
    arg_mat(&a, x);
    arg_mat(&a, &j->bias);
    return launch("gemm_bgrad_op", ocl_dev()->fp64, &a, (size_t)(len * j->batch), s);
}

/* ------------------------------------------------------------ CLBlast */

static CLBlastTranspose blast_trans(int t)
{
    return t ? CLBlastTransposeYes : CLBlastTransposeNo;   /* C = T for reals */
}

/* The element offset of g plus what it spans, in CLBlast's int range. */
static int blast_reach_ok(const opnd *g, size_t es, int64_t rows, int64_t cols, int64_t batch)
{
    size_t n;
    return span(rows, cols, g->ld, g->stride, batch, es, &n) && g->off / es <= INT_MAX &&
           g->off / es + n / es <= INT_MAX;
}

/* CLBlast passes element offsets to its kernels as ints: an operand
 * further than that into its buffer is seen through a sub-buffer that
 * starts just before it (at the device's base-address alignment). */
static tfl_status blast_view(opnd *g, size_t es, int64_t rows, int64_t cols, int64_t batch,
                             cl_mem *hold)
{
    if (blast_reach_ok(g, es, rows, cols, batch))
        return TFL_OK;
    size_t n;
    cl_uint bits = 0;
    if (!span(rows, cols, g->ld, g->stride, batch, es, &n))
        return TFL_ERR_INVALID;
    cl_int rc = clGetDeviceInfo(ocl_dev()->id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits,
                                NULL);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clGetDeviceInfo");
    size_t align = bits >= 8 ? bits / 8 : 1;
    if (align % es != 0)
        return TFL_ERR_INTERNAL;
    cl_buffer_region r = { g->off / align * align, 0 };
    r.size = g->off - r.origin + n;
    *hold = clCreateSubBuffer(g->buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateSubBuffer");
    g->buf = *hold;
    g->off -= r.origin;
    return TFL_OK;
}

static tfl_status blast_call(const plan *p, const job *j, const opnd *A, const opnd *B,
                             const opnd *D, tfl_stream s);

/* ga/gb/gd of j: gd = alpha*op(ga)op(gb) + beta*gd, over the batch. */
static tfl_status blast_gemm(const plan *p, const job *j, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    const size_t es = p->f64 ? 8 : 4;
    opnd A = j->ga, B = j->gb, D = j->gd;
    cl_mem sub[3] = { NULL, NULL, NULL };
    tfl_status st = blast_view(&A, es, op->trans_a ? op->k : op->m, op->trans_a ? op->m : op->k,
                               j->batch, &sub[0]);
    if (st == TFL_OK)
        st = blast_view(&B, es, op->trans_b ? op->n : op->k, op->trans_b ? op->k : op->n,
                        j->batch, &sub[1]);
    if (st == TFL_OK)
        st = blast_view(&D, es, op->m, op->n, j->batch, &sub[2]);
    if (st == TFL_OK)
        st = blast_call(p, j, &A, &B, &D, s);
    for (int i = 0; i < 3; i++)   /* freed once the GEMM is done with them */
        if (sub[i])
            clReleaseMemObject(sub[i]);
    return st;
}

static tfl_status blast_call(const plan *p, const job *j, const opnd *A, const opnd *B,
                             const opnd *D, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    const CLBlastLayout L = CLBlastLayoutColMajor;
    const CLBlastTranspose ta = blast_trans(op->trans_a), tb = blast_trans(op->trans_b);
    const size_t m = (size_t)op->m, n = (size_t)op->n, k = (size_t)op->k, es = p->f64 ? 8 : 4;
    const size_t ao = A->off / es, bo = B->off / es, dof = D->off / es;
    const size_t lda = (size_t)A->ld, ldb = (size_t)B->ld, ldd = (size_t)D->ld;
    const size_t sa = (size_t)A->stride, sb = (size_t)B->stride, sd = (size_t)D->stride;
    cl_command_queue q = ocl_queue(s);
    cl_event ev = NULL;
    CLBlastStatusCode rc;
    const char *what;
    if (p->f64) {
        double beta = p->direct ? p->beta_d : 0.0;
        if (j->batch > 1) {
            what = "CLBlastDgemmStridedBatched";
            rc = CLBlastDgemmStridedBatched(L, ta, tb, m, n, k, p->alpha_d, A->buf, ao, lda, sa,
                                            B->buf, bo, ldb, sb, beta, D->buf, dof, ldd, sd,
                                            (size_t)j->batch, &q, &ev);
        } else {
            what = "CLBlastDgemm";
            rc = CLBlastDgemm(L, ta, tb, m, n, k, p->alpha_d, A->buf, ao, lda, B->buf, bo, ldb,
                              beta, D->buf, dof, ldd, &q, &ev);
        }
    } else {
        float beta = p->direct ? p->beta_f : 0.0f;
        if (j->batch > 1) {
            what = "CLBlastSgemmStridedBatched";
            rc = CLBlastSgemmStridedBatched(L, ta, tb, m, n, k, p->alpha_f, A->buf, ao, lda, sa,
                                            B->buf, bo, ldb, sb, beta, D->buf, dof, ldd, sd,
                                            (size_t)j->batch, &q, &ev);
        } else {
            what = "CLBlastSgemm";
            rc = CLBlastSgemm(L, ta, tb, m, n, k, p->alpha_f, A->buf, ao, lda, B->buf, bo, ldb,
                              beta, D->buf, dof, ldd, &q, &ev);
        }
    }
    if (rc != CLBlastSuccess)
        return ocl_blast_status((int)rc, what);
    ocl_track(s, ev);
    return TFL_OK;
}

/* One CLBlast batched call over pointer-array entries that share their
 * A, B and D buffers (direct, unwidened: ga/gb/gd are the operands).
 * CLBlast writes its offset tables with a blocking write: the pointer
 * read-back already synchronised the queue, so this costs little more. */
static tfl_status blast_batched(const plan *p, const job *js, int64_t nb, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    const size_t es = p->f64 ? 8 : 4, n = (size_t)nb;
    size_t *offs = malloc(3 * n * sizeof *offs);
    void *scal = malloc(2 * n * sizeof(double));
    if (!offs || !scal) {
        free(offs);
        free(scal);
        return TFL_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        offs[i] = js[i].ga.off / es;
        offs[n + i] = js[i].gb.off / es;
        offs[2 * n + i] = js[i].gd.off / es;
        if (p->f64) {
            ((double *)scal)[i] = p->alpha_d;
            ((double *)scal)[n + i] = p->beta_d;
        } else {
            ((float *)scal)[i] = p->alpha_f;
            ((float *)scal)[n + i] = p->beta_f;
        }
    }
    const CLBlastLayout L = CLBlastLayoutColMajor;
    const CLBlastTranspose ta = blast_trans(op->trans_a), tb = blast_trans(op->trans_b);
    const size_t m = (size_t)op->m, nn = (size_t)op->n, k = (size_t)op->k;
    const job *j = &js[0];
    cl_command_queue q = ocl_queue(s);
    cl_event ev = NULL;
    CLBlastStatusCode rc;
    if (p->f64)
        rc = CLBlastDgemmBatched(L, ta, tb, m, nn, k, (const double *)scal, j->ga.buf, offs,
                                 (size_t)op->lda, j->gb.buf, offs + n, (size_t)op->ldb,
                                 (const double *)scal + n, j->gd.buf, offs + 2 * n,
                                 (size_t)op->ldd, n, &q, &ev);
    else
        rc = CLBlastSgemmBatched(L, ta, tb, m, nn, k, (const float *)scal, j->ga.buf, offs,
                                 (size_t)op->lda, j->gb.buf, offs + n, (size_t)op->ldb,
                                 (const float *)scal + n, j->gd.buf, offs + 2 * n,
                                 (size_t)op->ldd, n, &q, &ev);
    free(offs);
    free(scal);
    if (rc != CLBlastSuccess)
        return ocl_blast_status((int)rc,
                                p->f64 ? "CLBlastDgemmBatched" : "CLBlastSgemmBatched");
    ocl_track(s, ev);
    return TFL_OK;
}

/* ------------------------------------------------------------ steps */

static tfl_status scratch(size_t bytes, cl_mem *out)
{
    cl_int rc;
    *out = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
    return ocl_status(rc, "clCreateBuffer");
}

/* op(X) operand x as fp32 for SGEMM: itself, or widened into packed
 * scratch (leading dim = its row count). */
static tfl_status widen(const opnd *x, int64_t rows, int64_t cols, int64_t batch,
                        cl_mem *slot, opnd *g, tfl_stream s)
{
    if (x->t == TFL_DT_F32 || x->t == TFL_DT_F64) {
        *g = *x;
        return TFL_OK;
    }
    /* an operand shared by the whole batch (stride 0) is widened once */
    int64_t nb = x->stride == 0 ? 1 : batch;
    tfl_status st = scratch((size_t)(rows * cols * nb) * sizeof(float), slot);
    if (st != TFL_OK)
        return st;
    *g = (opnd){ .buf = *slot, .off = 0, .ld = rows, .stride = nb > 1 ? rows * cols : 0,
                 .t = TFL_DT_F32 };
    return convert(x, g, rows, cols, nb, s);
}

static int same_matrix(const opnd *x, const opnd *y, int64_t batch)
{
    return x->buf == y->buf && x->off == y->off && x->ld == y->ld &&
           (batch <= 1 || x->stride == y->stride);
}

/* Before the product: bias gradients of the operands, fp32 operands,
 * and where the product goes (D holding C, or fp32 scratch). */
static tfl_status job_pre(const plan *p, job *j, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    tfl_status st = TFL_OK;
    if (p->flags & (E_BGRAD_A | E_BGRAD_B))
        st = bgrad_operand(p, j, s);
    if (st != TFL_OK || p->trivial)
        return st;
    st = widen(&j->a, op->trans_a ? op->k : op->m, op->trans_a ? op->m : op->k, j->batch,
               &j->scratch[0], &j->ga, s);
    if (st == TFL_OK)
        st = widen(&j->b, op->trans_b ? op->n : op->k, op->trans_b ? op->k : op->n, j->batch,
                   &j->scratch[1], &j->gb, s);
    if (st != TFL_OK)
        return st;
    if (p->direct) {
        j->gd = j->d;
        if (!p->beta0 && !same_matrix(&j->c, &j->d, j->batch))
            st = convert(&j->c, &j->d, op->m, op->n, j->batch, s);
        return st;
    }
    st = scratch((size_t)(op->m * op->n * j->batch) * sizeof(float), &j->scratch[2]);
    j->gd = (opnd){ .buf = j->scratch[2], .off = 0, .ld = op->m, .stride = op->m * op->n,
                    .t = TFL_DT_F32 };
    return st;
}

/* After the product: the epilogue, and for a narrow C/D the beta*C term
 * and the rounding to D's type. */
static tfl_status job_post(const plan *p, job *j, tfl_stream s)
{
    if (p->trivial)
        return finish(p, j, &j->d, p->beta0 ? 0 : K_C, s);
    if (!p->direct)
        return finish(p, j, &j->gd, K_SRC | (p->beta0 ? 0 : K_C), s);
    if (p->flags & E_ELEMENT)
        return finish(p, j, &j->d, K_SRC, s);
    return TFL_OK;
}

static tfl_status job_run(const plan *p, job *j, tfl_stream s)
{
    tfl_status st = job_pre(p, j, s);
    if (st == TFL_OK && !p->trivial)
        st = blast_gemm(p, j, s);
    if (st == TFL_OK)
        st = job_post(p, j, s);
    job_release(j);
    return st;
}

/* ------------------------------------------------------------ pointer arrays */

/* Read an array of nb device addresses (itself in device memory). */
static tfl_status read_ptrs(const void *const *arr, int64_t nb, const void **out, tfl_stream s)
{
    cl_mem buf;
    size_t off, bytes = (size_t)nb * sizeof(void *);
    if (!ocl_resolve(arr, bytes, &buf, &off))
        return TFL_ERR_INVALID;
    return ocl_status(clEnqueueReadBuffer(ocl_queue(s), buf, CL_TRUE, off, bytes, out, 0, NULL,
                                          NULL),
                      "clEnqueueReadBuffer");
}

/* Entries CLBlast's batched GEMM can take as offsets into one buffer per
 * operand: its offsets are ints. */
static int one_buffer(const plan *p, const job *js, int64_t nb)
{
    const tfl_gemm_op *op = p->op;
    const size_t es = p->f64 ? 8 : 4;
    for (int64_t i = 0; i < nb; i++)
        if (js[i].a.buf != js[0].a.buf || js[i].b.buf != js[0].b.buf ||
            js[i].d.buf != js[0].d.buf ||
            !blast_reach_ok(&js[i].a, es, op->trans_a ? op->k : op->m,
                            op->trans_a ? op->m : op->k, 1) ||
            !blast_reach_ok(&js[i].b, es, op->trans_b ? op->n : op->k,
                            op->trans_b ? op->k : op->n, 1) ||
            !blast_reach_ok(&js[i].d, es, op->m, op->n, 1))
            return 0;
    return 1;
}

static tfl_status run_entries(const plan *p, job *js, int64_t nb, tfl_stream s)
{
    tfl_status st = TFL_OK;
    /* fp32/fp64 operands all in one buffer each: one CLBlast call */
    int together = nb > 1 && !p->trivial && p->direct && p->op->type_a == p->op->type_d &&
                   one_buffer(p, js, nb);
    if (!together) {
        for (int64_t i = 0; i < nb && st == TFL_OK; i++)
            st = job_run(p, &js[i], s);
        return st;
    }
    for (int64_t i = 0; i < nb && st == TFL_OK; i++)
        st = job_pre(p, &js[i], s);
    if (st == TFL_OK)
        st = blast_batched(p, js, nb, s);
    for (int64_t i = 0; i < nb && st == TFL_OK; i++)
        st = job_post(p, &js[i], s);
    for (int64_t i = 0; i < nb; i++)
        job_release(&js[i]);
    return st;
}

static tfl_status run_arrays(const plan *p, tfl_stream s)
{
    const tfl_gemm_op *op = p->op;
    const int64_t nb = op->batch;
    const void **ptr = calloc((size_t)nb * 4, sizeof *ptr);
    job *js = calloc((size_t)nb, sizeof *js);
    tfl_status st = ptr && js ? TFL_OK : TFL_ERR_NOMEM;
    const void **pa = ptr, **pb = ptr + nb, **pc = ptr + 2 * nb, **pd = ptr + 3 * nb;
    /* only the arrays that are read; absent ones stay NULL */
    if (st == TFL_OK)
        st = read_ptrs((const void *const *)op->d_array, nb, pd, s);
    if (st == TFL_OK && p->need_a)
        st = read_ptrs(op->a_array, nb, pa, s);
    if (st == TFL_OK && p->need_b)
        st = read_ptrs(op->b_array, nb, pb, s);
    if (st == TFL_OK && !p->beta0 && op->c_array)
        st = read_ptrs(op->c_array, nb, pc, s);
    /* every entry resolves before anything is enqueued */
    for (int64_t i = 0; i < nb && st == TFL_OK; i++)
        if (!build_job(p, pa[i], pb[i], pc[i], (void *)pd[i], i, 1, &js[i]))
            st = TFL_ERR_INVALID;
    if (st == TFL_OK)
        st = run_entries(p, js, nb, s);
    free(ptr);
    free(js);
    return st;
}

/* ------------------------------------------------------------ entry points */

static int arrays_resolve(const plan *p)
{
    const tfl_gemm_op *op = p->op;
    size_t bytes = (size_t)op->batch * sizeof(void *);
    cl_mem b;
    size_t o;
    return ocl_resolve(op->d_array, bytes, &b, &o) &&
           (!p->need_a || ocl_resolve(op->a_array, bytes, &b, &o)) &&
           (!p->need_b || ocl_resolve(op->b_array, bytes, &b, &o)) &&
           (p->beta0 || !op->c_array || ocl_resolve(op->c_array, bytes, &b, &o));
}

int ocl_gemm_supported(const tfl_op *op)
{
    plan p;
    if (!op || op->kind != TFL_OP_GEMM || !make_plan(&op->u.gemm, &p))
        return 0;
    const tfl_gemm_op *g = &op->u.gemm;
    if (g->m == 0 || g->n == 0 || g->batch == 0)
        return 1;   /* nothing to do */
    if (p.arrays)
        return arrays_resolve(&p);   /* the entries are checked by run */
    job j;
    return build_job(&p, g->a, g->b, g->c, g->d, 0, g->batch, &j);
}

tfl_status ocl_gemm_run(const tfl_op *op, tfl_stream s)
{
    plan p;
    if (!op || op->kind != TFL_OP_GEMM)
        return TFL_ERR_INVALID;
    if (!make_plan(&op->u.gemm, &p))
        return TFL_ERR_UNSUPPORTED;
    const tfl_gemm_op *g = &op->u.gemm;
    if (g->m == 0 || g->n == 0 || g->batch == 0)
        return TFL_OK;
    if (p.arrays)
        return run_arrays(&p, s);
    job j;
    if (!build_job(&p, g->a, g->b, g->c, g->d, 0, g->batch, &j))
        return TFL_ERR_INVALID;
    return job_run(&p, &j, s);
}

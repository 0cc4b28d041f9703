/*
 * ocl_embedding.c - TFL_OP_EMBEDDING (torchfl/ops/embedding.h) on the
 * OpenCL device: the dense backward of an embedding lookup (scatter-add
 * of gradient rows into grad_weight) and max_norm's renorm.  max_norm's
 * index check and the embedding_bag kinds run on the host backend.  (The
 * lookup itself is an index op.)
 *
 * The backward must be deterministic and match the host bit for bit: the
 * rows that share an index add up in index order, in float (float32:
 * straight into grad_weight, element by element; float16/bfloat16: a
 * float sum per distinct row, added to grad_weight with one rounding).
 * So the positions are sorted by (row, position) - a bitonic sort of
 * 64-bit keys row << 32 | position, whose result is unique whatever the
 * schedule - and one work item per (run of equal rows, column) walks its
 * run in position order.  Padding entries and bad indices sort last as
 * all-ones keys.
 *
 * An index outside the weight (the host's TFL_ERR_DEVICE, CUDA's
 * device-side assert) is skipped and sets the device's assert word
 * (ocl_assert_word), so the stream reports TFL_ERR_DEVICE at its next
 * sync (the device is then in error, as a GPU after an assert).
 */
#include "backends/opencl/ocl_src.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ kernels */

/* DT (tfl_dtype: 0 f32, 1 f64, 2 f16, 3 bf16), IT (0 int32 indices, 1
 * int64), WG (a power of two) and ACC_DBL come from the build options. */
static const char emb_src[] =
OCL_SRC_ACC
OCL_SRC_LOWP          /* NaN: sign and top payload bits, quietened */
OCL_SRC_DT
"#if DT == 1\n"
"typedef double val_t;\n"
"static double ld(__global const st_t *p, long i) { return p[i]; }\n"
"static void st(__global st_t *p, long i, double v) { p[i] = v; }\n"
"#else\n"
"typedef float val_t;\n"
"static float ld(__global const st_t *p, long i) { return ocl_ldf(DT, p, i); }\n"
"static void st(__global st_t *p, long i, float v) { ocl_stf(DT, p, i, v); }\n"
"#endif\n"
"#if IT\n"
"typedef long idx_t;\n"
"#else\n"
"typedef int idx_t;\n"
"#endif\n"
"#define IN(b, o) ((__global const st_t *)((b) + (o)))\n"
"#define OUT(b, o) ((__global st_t *)((b) + (o)))\n"
"#define IDX(b, o) ((__global const idx_t *)((b) + (o)))\n"
"#define NOKEY (~(ulong)0)\n"
/* backward, 1: a key per position, all-ones past n, for padding and
 * (flagged) bad indices */
"__kernel void emb_keys(__global const char *ib, ulong io, long n, long rows, long pad,\n"
"                       __global ulong *keys, long npow, __global int *flag) {\n"
"    long i = get_global_id(0);\n"
"    if (i >= npow) return;\n"
"    ulong key = NOKEY;\n"
"    if (i < n) {\n"
"        long r = (long)IDX(ib, io)[i];\n"
"        if (r != pad) {\n"
"            if (r < 0 || r >= rows) *flag = 1;\n"
"            else key = ((ulong)r << 32) | (ulong)i;\n"
"        }\n"
"    }\n"
"    keys[i] = key;\n"
"}\n"
/* 2: bitonic sort.  Blocks of 2*WG keys in local memory: stage 0 sorts
 * each block (alternating directions, as the network needs); a stage k
 * > 2*WG finishes its merge once the distance fits in a block. */
"__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
"void emb_sort_local(__global ulong *keys, ulong stage) {\n"
"    __local ulong sh[2 * WG];\n"
"    ulong base = get_group_id(0) * 2 * WG;\n"
"    uint l = get_local_id(0);\n"
"    sh[l] = keys[base + l];\n"
"    sh[l + WG] = keys[base + l + WG];\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    ulong k0 = stage ? stage : 2, k1 = stage ? stage : 2 * WG;\n"
"    for (ulong k = k0; k <= k1; k <<= 1)\n"
"        for (uint j = stage ? WG : (uint)(k / 2); j > 0; j >>= 1) {\n"
"            uint i = (l / j) * 2 * j + l % j;\n"
"            ulong a = sh[i], b = sh[i + j];\n"
"            if ((a > b) == (((base + i) & k) == 0)) { sh[i] = b; sh[i + j] = a; }\n"
"            barrier(CLK_LOCAL_MEM_FENCE);\n"
"        }\n"
"    keys[base + l] = sh[l];\n"
"    keys[base + l + WG] = sh[l + WG];\n"
"}\n"
/* one compare-exchange step of stage k at distance j >= 2*WG */
"__kernel void emb_sort_global(__global ulong *keys, ulong k, ulong j, ulong pairs) {\n"
"    ulong t = get_global_id(0);\n"
"    if (t >= pairs) return;\n"
"    ulong i = (t / j) * 2 * j + t % j;\n"
"    ulong a = keys[i], b = keys[i + j];\n"
"    if ((a > b) == ((i & k) == 0)) { keys[i] = b; keys[i + j] = a; }\n"
"}\n"
/* 3: the first sorted position of each row's run, column f, adds the
 * run in position order */
"__kernel void emb_acc(__global const ulong *keys, long n, long L, __global const char *gb,\n"
"                      ulong go, __global char *wb, ulong wo) {\n"
"    long id = get_global_id(0);\n"
"    if (id >= n * L) return;\n"
"    long t = id / L, f = id % L;\n"
"    ulong key = keys[t], r = key >> 32;\n"
"    if (key == NOKEY || (t > 0 && (keys[t - 1] >> 32) == r)) return;\n"
"    __global const st_t *g = IN(gb, go);\n"
"    __global st_t *w = OUT(wb, wo);\n"
"    long dst = (long)r * L + f;\n"
"#if DT == 0\n"
"    float acc = w[dst];\n"
"#else\n"
"    float acc = 0.0f;\n"
"#endif\n"
"    for (long u = t; u < n && (keys[u] >> 32) == r; u++)\n"
"        acc += ld(g, (long)(keys[u] & 0xffffffffu) * L + f);\n"
"#if DT == 0\n"
"    w[dst] = acc;\n"
"#else\n"
"    st(w, dst, ld(w, dst) + acc);\n"
"#endif\n"
"}\n"
/* renorm: row k < min(n, *num_unique), one work item, the host's
 * sequential order (p-norm in val_t: float, double for float64) */
"__kernel void emb_renorm(__global const char *ib, ulong io, __global const char *cb,\n"
"                         ulong co, __global char *wb, ulong wo, long n, long rows,\n"
"                         long ws0, long ws1, long L, acc_t max_norm, acc_t p,\n"
"                         __global int *flag) {\n"
"    long k = get_global_id(0), nu = *(__global const long *)(cb + co);\n"
"    if (k >= n || k >= nu) return;\n"
"    long r = (long)IDX(ib, io)[k];\n"
"    if (r < 0 || r >= rows) { *flag = 1; return; }\n"
"    __global st_t *w = OUT(wb, wo) + r * ws0;\n"
"    val_t pv = (val_t)p, v = 0;\n"
"    for (long f = 0; f < L; f++) {\n"
"        val_t x = ld(w, f * ws1);\n"
"        v += pv == 1 ? fabs(x) : pv == 2 ? x * x : pow(x, pv);\n"
"    }\n"
/* sqrt for p = 2: correctly rounded, as the host's pow(v, 0.5) nearly always is */
"    val_t norm = pv == 2 ? sqrt(v) : pow(v, (val_t)((acc_t)1 / (acc_t)pv));\n"
"    val_t mn = (val_t)max_norm;\n"
"    if (!(norm > mn)) return;\n"
"    acc_t fd = (acc_t)mn / ((acc_t)norm + (acc_t)1e-7);\n"
"#if DT == 0 || DT == 1\n"
"    val_t factor = (val_t)fd;\n"
"    for (long f = 0; f < L; f++) w[f * ws1] *= factor;\n"
"#else\n"
/* the factor rounded to the type, then each product */
"    float factor = ocl_round_to(DT, (float)fd);\n"
"    for (long f = 0; f < L; f++) st(w, f * ws1, ld(w, f * ws1) * factor);\n"
"#endif\n"
"}\n";

/* ------------------------------------------------------------ planning */

enum { A_IDX, A_GRAD, A_GW, A_OUT, A_COUNT };

typedef struct emb_plan {
    ocl_arg a[A_COUNT];
} emb_plan;

static int lowp_ok(tfl_dtype t)
{
    return t == TFL_DT_F32 || t == TFL_DT_F16 || t == TFL_DT_BF16;
}

/* Resolves what op reads and writes; 0 when it is not run here. */
static int plan(const tfl_embedding_op *e, emb_plan *p, int fp64)
{
    memset(p, 0, sizeof *p);
    if (e->index_dtype != TFL_DT_I32 && e->index_dtype != TFL_DT_I64)
        return 0;
    const size_t is = tfl_dtype_size(e->index_dtype);
    if (e->n < 0 || e->weight_rows < 0 || !ocl_arg_run(e->indices, is, e->n, &p->a[A_IDX]))
        return 0;
    switch (e->kind) {
    case TFL_EMBEDDING_BWD_DENSE: {
        const size_t es = tfl_dtype_size(e->dtype);
        int64_t gn, wn;
        /* keys hold a row in 31 bits and a position in 32 */
        return lowp_ok(e->dtype) && e->row_len >= 0 && e->n <= UINT32_MAX &&
               e->weight_rows <= INT32_MAX &&
               !__builtin_mul_overflow(e->n, e->row_len, &gn) &&
               !__builtin_mul_overflow(e->weight_rows, e->row_len, &wn) &&
               ocl_arg_run(e->grad, es, gn, &p->a[A_GRAD]) &&
               ocl_arg_run(e->grad_weight, es, wn, &p->a[A_GW]);
    }
    case TFL_EMBEDDING_WRAP_INDICES:
        /* max_norm's index check runs on the host: its error names the
         * bad index and the range (PyTorch users see why), which a device
         * assert word cannot carry; the indices are few */
        return 0;
    case TFL_EMBEDDING_RENORM: {
        const tfl_embedding_renorm *r = &e->renorm;
        const size_t es = tfl_dtype_size(e->dtype);
        const int64_t len[2] = { e->weight_rows, r->features }, st[2] = { r->ws0, r->ws1 };
        return (lowp_ok(e->dtype) || (e->dtype == TFL_DT_F64 && fp64)) && r->features >= 0 &&
               ocl_arg_view(r->weight, es, 2, len, st, &p->a[A_GW]) &&
               ocl_arg_run(r->num_unique, sizeof(int64_t), 1, &p->a[A_OUT]);
    }
    default:
        return 0;         /* embedding_bag: the host's */
    }
}

int ocl_embedding_supported(const tfl_op *op)
{
    const ocl_device *d = ocl_dev();
    emb_plan p;
    return d && op->kind == TFL_OP_EMBEDDING && plan(&op->u.embedding, &p, d->fp64);
}

/* ------------------------------------------------------------ running */

/* Kernel `name` of the program for e's dtypes, with the largest
 * work-group size (a power of two up to 256) the sort kernel allows. */
static ocl_kernel *kernel_for(const tfl_embedding_op *e, const char *name, size_t *wg)
{
    static const char *const sort[] = { "emb_sort_local", NULL };
    char opts[96];
    snprintf(opts, sizeof opts, "-DDT=%d -DIT=%d -DACC_DBL=%d",
             e->kind == TFL_EMBEDDING_WRAP_INDICES ? 0 : (int)e->dtype,
             e->index_dtype == TFL_DT_I64, ocl_dev()->fp64);
    return ocl_kernel_wg(emb_src, opts, name, sort, 256, wg);
}

/* ---- the kinds */

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* The bitonic network over npow keys (a power of two, at least 2*wg):
 * blocks sorted in local memory, then each larger stage's far steps in
 * global memory and its near ones in local memory. */
static tfl_status sort_keys(const tfl_embedding_op *e, cl_mem keys, size_t npow, size_t wg,
                            tfl_stream s)
{
    size_t w2;
    ocl_kernel *kl = kernel_for(e, "emb_sort_local", &w2);
    ocl_kernel *kg = kernel_for(e, "emb_sort_global", &w2);
    if (!kl || !kg)
        return TFL_ERR_INTERNAL;
    const size_t block = 2 * wg;
    cl_ulong stage = 0, pairs = npow / 2;
    ocl_karg la[] = { OCL_KA(keys), OCL_KA(stage) };
    tfl_status st = ocl_launch(kl, la, OCL_NARGS(la), npow / 2, wg, s);
    for (cl_ulong k = 2 * block; k <= npow && st == TFL_OK; k <<= 1) {
        for (cl_ulong j = k / 2; j >= block && st == TFL_OK; j >>= 1) {
            ocl_karg ga[] = { OCL_KA(keys), OCL_KA(k), OCL_KA(j), OCL_KA(pairs) };
            st = ocl_launch(kg, ga, OCL_NARGS(ga), (size_t)pairs, 0, s);
        }
        stage = k;
        if (st == TFL_OK)
            st = ocl_launch(kl, la, OCL_NARGS(la), npow / 2, wg, s);
    }
    return st;
}

/* An index outside the weight sets the device's assert word (ocl.h),
 * which the kernels take as `flag`. */
static tfl_status run_backward(const tfl_embedding_op *e, const emb_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *kk = kernel_for(e, "emb_keys", &wg), *ka = kernel_for(e, "emb_acc", &wg);
    if (!kk || !ka)
        return TFL_ERR_INTERNAL;
    /* with empty rows only the indices' check remains: no sort */
    const size_t npow = pow2_at_least((size_t)e->n);
    const size_t nk = npow < 2 * wg ? 2 * wg : npow;
    cl_int rc;
    cl_mem keys = clCreateBuffer(ocl_dev()->ctx, CL_MEM_READ_WRITE, nk * sizeof(cl_ulong),
                                 NULL, &rc);
    if (rc != CL_SUCCESS)
        return ocl_status(rc, "clCreateBuffer");
    cl_long n = e->n, rows = e->weight_rows, pad = e->padding_idx, L = e->row_len,
            np = (cl_long)nk;
    cl_mem flag = ocl_assert_word();
    ocl_karg kargs[] = { OCL_KB(p->a[A_IDX]), OCL_KA(n), OCL_KA(rows), OCL_KA(pad),
                         OCL_KA(keys), OCL_KA(np), OCL_KA(flag) };
    tfl_status st = ocl_launch(kk, kargs, OCL_NARGS(kargs), nk, 0, s);
    if (st == TFL_OK && L)
        st = sort_keys(e, keys, nk, wg, s);
    ocl_karg aargs[] = { OCL_KA(keys), OCL_KA(n), OCL_KA(L), OCL_KB(p->a[A_GRAD]),
                         OCL_KB(p->a[A_GW]) };
    if (st == TFL_OK && L)
        st = ocl_launch(ka, aargs, OCL_NARGS(aargs), (size_t)(n * L), 0, s);
    clReleaseMemObject(keys);       /* freed once the kernels ran */
    return st;
}

static tfl_status run_renorm(const tfl_embedding_op *e, const emb_plan *p, tfl_stream s)
{
    size_t wg = 0;
    ocl_kernel *k = kernel_for(e, "emb_renorm", &wg);
    const tfl_embedding_renorm *r = &e->renorm;
    cl_long n = e->n, rows = e->weight_rows, ws0 = r->ws0, ws1 = r->ws1, L = r->features;
    /* max_norm and p in the kernel's accumulate type */
    cl_double md = r->max_norm, pd = r->norm_type;
    cl_float mf = (cl_float)r->max_norm, pf = (cl_float)r->norm_type;
    const int dbl = ocl_dev()->fp64;
    cl_mem flag = ocl_assert_word();
    ocl_karg args[] = { OCL_KB(p->a[A_IDX]), OCL_KB(p->a[A_OUT]), OCL_KB(p->a[A_GW]), OCL_KA(n),
                        OCL_KA(rows), OCL_KA(ws0), OCL_KA(ws1), OCL_KA(L),
                        dbl ? (ocl_karg)OCL_KA(md) : (ocl_karg)OCL_KA(mf),
                        dbl ? (ocl_karg)OCL_KA(pd) : (ocl_karg)OCL_KA(pf), OCL_KA(flag) };
    return ocl_launch(k, args, OCL_NARGS(args), (size_t)n, 0, s);
}

tfl_status ocl_embedding_run(const tfl_op *op, tfl_stream s)
{
    if (!ocl_embedding_supported(op))
        return TFL_ERR_UNSUPPORTED;
    const tfl_embedding_op *e = &op->u.embedding;
    emb_plan p;
    plan(e, &p, ocl_dev()->fp64);
    if (e->n == 0)
        return TFL_OK;
    switch (e->kind) {
    case TFL_EMBEDDING_BWD_DENSE:
        return run_backward(e, &p, s);
    default:
        return run_renorm(e, &p, s);
    }
}

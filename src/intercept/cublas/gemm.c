/*
 * gemm.c - cuBLAS GEMM entry points: S/D/C/Z/H gemm, GemmEx, and their
 * batched (pointer array) and strided-batched forms, plus the _64 variants.
 *
 * Each checks its arguments exactly as cuBLAS documents (NULL handle ->
 * NOT_INITIALIZED; negative sizes, short leading dims, bad transpose,
 * NULL scalars -> INVALID_VALUE; unsupported type combinations ->
 * NOT_SUPPORTED), reads alpha/beta in the handle's pointer mode, checks
 * every operand against the address map (a bad pointer is what makes a
 * GPU fault: EXECUTION_FAILED), and submits one TFL_OP_GEMM through route.
 */
#include "cublas/cublas_internal.h"

#include <string.h>

#include "common/half.h"
#include "common/log.h"
#include "route/runtime.h"

/* Host copies of alpha and beta: f[0..1] / f[4..5] or d[0..1] / d[2..3]. */
typedef union scalars { float f[8]; double d[4]; } scalars;

/* What alpha/beta point at. */
typedef enum { SC_F32, SC_F64, SC_F16, SC_C64, SC_C128 } scalar_kind;

typedef struct gemm_args {
    const char *fn;
    cublasHandle_t handle;
    int transa, transb;
    int64_t m, n, k;
    const void *alpha, *beta;
    scalar_kind sk;
    cudaDataType ta, tb, tc;
    tfl_compute compute;
    const void *A; int64_t lda; int64_t sa;
    const void *B; int64_t ldb; int64_t sb;
    void *C; int64_t ldc; int64_t sc;
    int64_t batch;
    const void *const *Aarr, *const *Barr;
    void *const *Carr;
    int pointer_array;
} gemm_args;

static int valid_trans(int t)
{
    return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

/* Scalars as the op wants them: float for 32F/16F computes, double for
 * 64F, pairs for complex. */
static cublasStatus_t read_scalars(const gemm_args *g, int devmode, scalars *out)
{
    size_t n;
    switch (g->sk) {
    case SC_F16: n = 2; break;
    case SC_F32: n = 4; break;
    case SC_F64: case SC_C64: n = 8; break;
    default: n = 16; break;
    }
    unsigned char a[16], b[16];
    cublasStatus_t st = tfl_cublas_read_scalar(devmode, g->alpha, n, a, g->fn, "alpha");
    if (st == CUBLAS_STATUS_SUCCESS)
        st = tfl_cublas_read_scalar(devmode, g->beta, n, b, g->fn, "beta");
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    float *fo = out->f;
    switch (g->sk) {
    case SC_F16: {
        uint16_t ha, hb;
        memcpy(&ha, a, 2);
        memcpy(&hb, b, 2);
        fo[0] = tfl_f16_to_f32(ha);
        fo[4] = tfl_f16_to_f32(hb);
        break;
    }
    case SC_F32: case SC_C64:
        memcpy(fo, a, n);
        memcpy(fo + 4, b, n);
        break;
    default:
        memcpy(out->d, a, n);
        memcpy(out->d + 2, b, n);
        break;
    }
    return CUBLAS_STATUS_SUCCESS;
}

static int scalar_is_zero(const gemm_args *g, const scalars *s, int beta)
{
    const float *f = s->f + (beta ? 4 : 0);
    const double *d = s->d + (beta ? 2 : 0);
    switch (g->sk) {
    case SC_F16: case SC_F32: return f[0] == 0.0f;
    case SC_C64: return f[0] == 0.0f && f[1] == 0.0f;
    case SC_F64: return d[0] == 0.0;
    default: return d[0] == 0.0 && d[1] == 0.0;
    }
}

/* Which operand types each compute type accepts (cuBLAS GemmEx table). */
static int combo_ok(cudaDataType ta, cudaDataType tb, cudaDataType tc, int comp)
{
    if (ta != tb)
        return 0;
    switch (comp) {
    case TFL_COMPUTE_16F:
        return ta == CUDA_R_16F && tc == CUDA_R_16F;
    case TFL_COMPUTE_64F:
        return (ta == CUDA_R_64F && tc == CUDA_R_64F) ||
               (ta == CUDA_C_64F && tc == CUDA_C_64F);
    case TFL_COMPUTE_32F:
        return (ta == CUDA_R_16F && (tc == CUDA_R_16F || tc == CUDA_R_32F)) ||
               (ta == CUDA_R_16BF && (tc == CUDA_R_16BF || tc == CUDA_R_32F)) ||
               (ta == CUDA_R_32F && tc == CUDA_R_32F) ||
               (ta == CUDA_C_32F && tc == CUDA_C_32F);
    case TFL_COMPUTE_32F_FAST_16F:
    case TFL_COMPUTE_32F_FAST_16BF:
    case TFL_COMPUTE_32F_FAST_TF32:
        return (ta == CUDA_R_32F && tc == CUDA_R_32F) ||
               (ta == CUDA_C_32F && tc == CUDA_C_32F);
    default:
        return 0;
    }
}

static cublasStatus_t gemm_checked(const gemm_args *g)
{
    struct cublasContext *h = tfl_cublas_handle_get(g->handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid_trans(g->transa) || !valid_trans(g->transb) ||
        g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    const int64_t ra = g->transa == CUBLAS_OP_N ? g->m : g->k;
    const int64_t ca = g->transa == CUBLAS_OP_N ? g->k : g->m;
    const int64_t rb = g->transb == CUBLAS_OP_N ? g->k : g->n;
    const int64_t cb = g->transb == CUBLAS_OP_N ? g->n : g->k;
    if (g->lda < (ra > 1 ? ra : 1) || g->ldb < (rb > 1 ? rb : 1) ||
        g->ldc < (g->m > 1 ? g->m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!g->alpha || !g->beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!combo_ok(g->ta, g->tb, g->tc, g->compute)) {
        tfl_error("%s: type combination A %d B %d C %d compute %d not supported",
                  g->fn, (int)g->ta, (int)g->tb, (int)g->tc, (int)g->compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (g->m == 0 || g->n == 0 || g->batch == 0)
        return CUBLAS_STATUS_SUCCESS;

    scalars sc;
    cublasStatus_t st = read_scalars(g, h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE, &sc);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    const int reads_ab = g->k > 0 && !scalar_is_zero(g, &sc, 0);

    const size_t ea = tfl_cublas_dtype_size(g->ta), ec = tfl_cublas_dtype_size(g->tc);
    if (g->pointer_array) {
        size_t pb = (size_t)g->batch * sizeof(void *);
        /* the pointer arrays themselves live in device memory (the
         * matrices they point at are checked only where they are read) */
        if (tfl_cublas_check_matrix(g->Aarr, 1, 1, 1, pb, g->fn, "A array") ||
            tfl_cublas_check_matrix(g->Barr, 1, 1, 1, pb, g->fn, "B array") ||
            tfl_cublas_check_matrix(g->Carr, 1, 1, 1, pb, g->fn, "C array"))
            return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    for (int64_t b = 0; b < g->batch; b++) {
        const void *a, *bb;
        void *c;
        if (g->pointer_array) {
            a = reads_ab ? g->Aarr[b] : NULL;
            bb = reads_ab ? g->Barr[b] : NULL;
            c = g->Carr[b];
        } else {
            a = (const char *)g->A + (size_t)(b * g->sa) * ea;
            bb = (const char *)g->B + (size_t)(b * g->sb) * ea;
            c = (char *)g->C + (size_t)(b * g->sc) * ec;
        }
        if (reads_ab &&
            ((st = tfl_cublas_check_matrix(a, ra, ca, g->lda, ea, g->fn, "A")) ||
             (st = tfl_cublas_check_matrix(bb, rb, cb, g->ldb, ea, g->fn, "B"))))
            return st;
        if ((st = tfl_cublas_check_matrix(c, g->m, g->n, g->ldc, ec, g->fn, "C")))
            return st;
    }

    tfl_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TFL_OP_GEMM;
    op.name = "gemm";
    tfl_gemm_op *o = &op.u.gemm;
    o->trans_a = g->transa;
    o->trans_b = g->transb;
    o->m = g->m; o->n = g->n; o->k = g->k;
    o->type_a = o->type_b = (tfl_dtype)tfl_cublas_dtype(g->ta);
    o->type_c = o->type_d = (tfl_dtype)tfl_cublas_dtype(g->tc);
    o->compute = g->compute;
    o->lda = g->lda; o->ldb = g->ldb; o->ldc = g->ldc; o->ldd = g->ldc;
    o->batch = g->batch;
    if (g->pointer_array) {
        o->a_array = g->Aarr;
        o->b_array = g->Barr;
        o->c_array = (const void *const *)g->Carr;
        o->d_array = g->Carr;
    } else {
        o->a = g->A; o->stride_a = g->sa;
        o->b = g->B; o->stride_b = g->sb;
        o->c = g->C; o->stride_c = g->sc;
        o->d = g->C; o->stride_d = g->sc;
    }
    if (g->sk == SC_F16 || g->sk == SC_F32 || g->sk == SC_C64) {
        o->alpha = sc.f;
        o->beta = sc.f + 4;
    } else {
        o->alpha = sc.d;
        o->beta = sc.d + 2;
    }
    o->epilogue = TFL_EPI_NONE;
    return tfl_cublas_run(&op, h->stream, g->fn);
}

/* Pointer arrays live in device memory, and gemm_checked reads them to
 * check every matrix: through host views when the host cannot address
 * the backend's memory. */
static cublasStatus_t gemm_run(const gemm_args *g)
{
    return g->pointer_array ? TFL_HOST_ACCESS(gemm_checked(g)) : gemm_checked(g);
}

/* Compute type of the typed entry points: fp32 honours the TF32 math mode
 * (the host runs it as fp32 either way). */
static tfl_compute typed_compute(cublasHandle_t handle, cudaDataType t)
{
    struct cublasContext *h = tfl_cublas_handle_get(handle);
    switch (t) {
    case CUDA_R_64F: case CUDA_C_64F: return TFL_COMPUTE_64F;
    case CUDA_R_16F: return TFL_COMPUTE_16F;
    default:
        if (h && ((unsigned)h->math_mode & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH)
            return TFL_COMPUTE_32F_FAST_TF32;
        return TFL_COMPUTE_32F;
    }
}

#define GEMM_TYPED(NAME, SUFFIX, IT, T, CT, SK)                                    \
cublasStatus_t NAME##SUFFIX(cublasHandle_t handle, cublasOperation_t transa,       \
                            cublasOperation_t transb, IT m, IT n, IT k,            \
                            const T *alpha, const T *A, IT lda, const T *B,         \
                            IT ldb, const T *beta, T *C, IT ldc)                    \
{                                                                                   \
    gemm_args g = { .fn = #NAME, .handle = handle, .transa = transa,                \
                    .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,       \
                    .beta = beta, .sk = SK, .ta = CT, .tb = CT, .tc = CT,            \
                    .compute = typed_compute(handle, CT), .A = A, .lda = lda,       \
                    .B = B, .ldb = ldb, .C = C, .ldc = ldc, .batch = 1 };            \
    return gemm_run(&g);                                                            \
}

/* __half is C++-only in the toolkit headers; the ABI is a 16-bit value. */
typedef uint16_t tfl_half;

GEMM_TYPED(cublasSgemm_v2, , int, float, CUDA_R_32F, SC_F32)
GEMM_TYPED(cublasDgemm_v2, , int, double, CUDA_R_64F, SC_F64)
GEMM_TYPED(cublasCgemm_v2, , int, cuComplex, CUDA_C_32F, SC_C64)
GEMM_TYPED(cublasZgemm_v2, , int, cuDoubleComplex, CUDA_C_64F, SC_C128)
GEMM_TYPED(cublasHgemm, , int, tfl_half, CUDA_R_16F, SC_F16)
GEMM_TYPED(cublasSgemm_v2, _64, int64_t, float, CUDA_R_32F, SC_F32)
GEMM_TYPED(cublasDgemm_v2, _64, int64_t, double, CUDA_R_64F, SC_F64)
GEMM_TYPED(cublasCgemm_v2, _64, int64_t, cuComplex, CUDA_C_32F, SC_C64)
GEMM_TYPED(cublasZgemm_v2, _64, int64_t, cuDoubleComplex, CUDA_C_64F, SC_C128)
GEMM_TYPED(cublasHgemm, _64, int64_t, tfl_half, CUDA_R_16F, SC_F16)

#define GEMM_STRIDED(NAME, SUFFIX, IT, T, CT, SK)                                  \
cublasStatus_t NAME##SUFFIX(cublasHandle_t handle, cublasOperation_t transa,       \
                            cublasOperation_t transb, IT m, IT n, IT k,            \
                            const T *alpha, const T *A, IT lda, long long sa,       \
                            const T *B, IT ldb, long long sb, const T *beta,        \
                            T *C, IT ldc, long long sc, IT batch)                   \
{                                                                                   \
    gemm_args g = { .fn = #NAME, .handle = handle, .transa = transa,                \
                    .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,       \
                    .beta = beta, .sk = SK, .ta = CT, .tb = CT, .tc = CT,            \
                    .compute = typed_compute(handle, CT), .A = A, .lda = lda,       \
                    .sa = sa, .B = B, .ldb = ldb, .sb = sb, .C = C, .ldc = ldc,      \
                    .sc = sc, .batch = batch };                                     \
    return gemm_run(&g);                                                            \
}

GEMM_STRIDED(cublasSgemmStridedBatched, , int, float, CUDA_R_32F, SC_F32)
GEMM_STRIDED(cublasDgemmStridedBatched, , int, double, CUDA_R_64F, SC_F64)
GEMM_STRIDED(cublasCgemmStridedBatched, , int, cuComplex, CUDA_C_32F, SC_C64)
GEMM_STRIDED(cublasZgemmStridedBatched, , int, cuDoubleComplex, CUDA_C_64F, SC_C128)
GEMM_STRIDED(cublasHgemmStridedBatched, , int, tfl_half, CUDA_R_16F, SC_F16)
GEMM_STRIDED(cublasSgemmStridedBatched, _64, int64_t, float, CUDA_R_32F, SC_F32)
GEMM_STRIDED(cublasDgemmStridedBatched, _64, int64_t, double, CUDA_R_64F, SC_F64)
GEMM_STRIDED(cublasHgemmStridedBatched, _64, int64_t, tfl_half, CUDA_R_16F, SC_F16)

#define GEMM_BATCHED(NAME, SUFFIX, IT, T, CT, SK)                                  \
cublasStatus_t NAME##SUFFIX(cublasHandle_t handle, cublasOperation_t transa,       \
                            cublasOperation_t transb, IT m, IT n, IT k,            \
                            const T *alpha, const T *const Aarray[], IT lda,        \
                            const T *const Barray[], IT ldb, const T *beta,         \
                            T *const Carray[], IT ldc, IT batch)                    \
{                                                                                   \
    gemm_args g = { .fn = #NAME, .handle = handle, .transa = transa,                \
                    .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,       \
                    .beta = beta, .sk = SK, .ta = CT, .tb = CT, .tc = CT,            \
                    .compute = typed_compute(handle, CT),                            \
                    .Aarr = (const void *const *)Aarray, .lda = lda,                \
                    .Barr = (const void *const *)Barray, .ldb = ldb,                \
                    .Carr = (void *const *)Carray, .ldc = ldc, .batch = batch,       \
                    .pointer_array = 1 };                                           \
    return gemm_run(&g);                                                            \
}

GEMM_BATCHED(cublasSgemmBatched, , int, float, CUDA_R_32F, SC_F32)
GEMM_BATCHED(cublasDgemmBatched, , int, double, CUDA_R_64F, SC_F64)
GEMM_BATCHED(cublasCgemmBatched, , int, cuComplex, CUDA_C_32F, SC_C64)
GEMM_BATCHED(cublasZgemmBatched, , int, cuDoubleComplex, CUDA_C_64F, SC_C128)
GEMM_BATCHED(cublasHgemmBatched, , int, tfl_half, CUDA_R_16F, SC_F16)
GEMM_BATCHED(cublasSgemmBatched, _64, int64_t, float, CUDA_R_32F, SC_F32)
GEMM_BATCHED(cublasDgemmBatched, _64, int64_t, double, CUDA_R_64F, SC_F64)

/* ------------------------------------------------------------- GemmEx */

static int valid_algo(int algo)
{
    return algo == CUBLAS_GEMM_DEFAULT || (algo >= CUBLAS_GEMM_ALGO0 && algo <= CUBLAS_GEMM_ALGO23) ||
           (algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP) ||
           algo == CUBLAS_GEMM_AUTOTUNE;
}

/* Fill the Ex-specific fields; INVALID/NOT_SUPPORTED before any work. */
static cublasStatus_t ex_setup(gemm_args *g, cudaDataType at, cudaDataType bt,
                               cudaDataType ct, cublasComputeType_t ctype,
                               cublasGemmAlgo_t algo)
{
    if (!tfl_cublas_handle_get(g->handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int comp = tfl_cublas_compute(ctype);
    if (comp < 0 || !valid_algo((int)algo))
        return CUBLAS_STATUS_INVALID_VALUE;
    g->ta = at;
    g->tb = bt;
    g->tc = ct;
    g->compute = (tfl_compute)comp;
    switch (comp) {
    case TFL_COMPUTE_16F: g->sk = SC_F16; break;
    case TFL_COMPUTE_64F: g->sk = ct == CUDA_C_64F ? SC_C128 : SC_F64; break;
    default: g->sk = ct == CUDA_C_32F ? SC_C64 : SC_F32; break;
    }
    return CUBLAS_STATUS_SUCCESS;
}

#define GEMM_EX(SUFFIX, IT)                                                         \
cublasStatus_t cublasGemmEx##SUFFIX(cublasHandle_t handle, cublasOperation_t transa, \
        cublasOperation_t transb, IT m, IT n, IT k, const void *alpha,              \
        const void *A, cudaDataType Atype, IT lda, const void *B,                   \
        cudaDataType Btype, IT ldb, const void *beta, void *C, cudaDataType Ctype,  \
        IT ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo)             \
{                                                                                   \
    gemm_args g = { .fn = "cublasGemmEx", .handle = handle, .transa = transa,       \
                    .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,       \
                    .beta = beta, .A = A, .lda = lda, .B = B, .ldb = ldb, .C = C,   \
                    .ldc = ldc, .batch = 1 };                                       \
    cublasStatus_t st = ex_setup(&g, Atype, Btype, Ctype, computeType, algo);       \
    return st ? st : gemm_run(&g);                                                  \
}                                                                                   \
cublasStatus_t cublasGemmStridedBatchedEx##SUFFIX(cublasHandle_t handle,           \
        cublasOperation_t transa, cublasOperation_t transb, IT m, IT n, IT k,       \
        const void *alpha, const void *A, cudaDataType Atype, IT lda,               \
        long long sa, const void *B, cudaDataType Btype, IT ldb, long long sb,      \
        const void *beta, void *C, cudaDataType Ctype, IT ldc, long long sc,        \
        IT batch, cublasComputeType_t computeType, cublasGemmAlgo_t algo)           \
{                                                                                   \
    gemm_args g = { .fn = "cublasGemmStridedBatchedEx", .handle = handle,           \
                    .transa = transa, .transb = transb, .m = m, .n = n, .k = k,     \
                    .alpha = alpha, .beta = beta, .A = A, .lda = lda, .sa = sa,     \
                    .B = B, .ldb = ldb, .sb = sb, .C = C, .ldc = ldc, .sc = sc,     \
                    .batch = batch };                                               \
    cublasStatus_t st = ex_setup(&g, Atype, Btype, Ctype, computeType, algo);       \
    return st ? st : gemm_run(&g);                                                  \
}                                                                                   \
cublasStatus_t cublasGemmBatchedEx##SUFFIX(cublasHandle_t handle,                  \
        cublasOperation_t transa, cublasOperation_t transb, IT m, IT n, IT k,       \
        const void *alpha, const void *const Aarray[], cudaDataType Atype, IT lda,  \
        const void *const Barray[], cudaDataType Btype, IT ldb, const void *beta,   \
        void *const Carray[], cudaDataType Ctype, IT ldc, IT batch,                 \
        cublasComputeType_t computeType, cublasGemmAlgo_t algo)                     \
{                                                                                   \
    gemm_args g = { .fn = "cublasGemmBatchedEx", .handle = handle,                  \
                    .transa = transa, .transb = transb, .m = m, .n = n, .k = k,     \
                    .alpha = alpha, .beta = beta, .Aarr = Aarray, .lda = lda,       \
                    .Barr = Barray, .ldb = ldb, .Carr = Carray, .ldc = ldc,         \
                    .batch = batch, .pointer_array = 1 };                           \
    cublasStatus_t st = ex_setup(&g, Atype, Btype, Ctype, computeType, algo);       \
    return st ? st : gemm_run(&g);                                                  \
}

GEMM_EX(, int)
GEMM_EX(_64, int64_t)

/* cublasSgemmEx: fp32 compute and scalars, fp16/bf16/fp32 operands. */
#define SGEMM_EX(SUFFIX, IT)                                                        \
cublasStatus_t cublasSgemmEx##SUFFIX(cublasHandle_t handle, cublasOperation_t transa, \
        cublasOperation_t transb, IT m, IT n, IT k, const float *alpha,             \
        const void *A, cudaDataType Atype, IT lda, const void *B,                   \
        cudaDataType Btype, IT ldb, const float *beta, void *C, cudaDataType Ctype, \
        IT ldc)                                                                     \
{                                                                                   \
    gemm_args g = { .fn = "cublasSgemmEx", .handle = handle, .transa = transa,      \
                    .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha,       \
                    .beta = beta, .sk = SC_F32, .ta = Atype, .tb = Btype,           \
                    .tc = Ctype, .compute = typed_compute(handle, CUDA_R_32F),       \
                    .A = A, .lda = lda, .B = B, .ldb = ldb, .C = C, .ldc = ldc,     \
                    .batch = 1 };                                                   \
    if (Atype != CUDA_R_32F && g.compute == TFL_COMPUTE_32F_FAST_TF32)              \
        g.compute = TFL_COMPUTE_32F;   /* TF32 math mode only concerns fp32 */      \
    return gemm_run(&g);                                                            \
}
SGEMM_EX(, int)
SGEMM_EX(_64, int64_t)

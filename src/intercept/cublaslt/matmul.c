/*
 * matmul.c - cublasLtMatmul and its algorithm queries.
 *
 * A descriptor plus four layouts is turned into one TFL_OP_GEMM (with
 * epilogue) by plan(); the heuristic query runs the same planning without
 * pointers and answers with a single algorithm that needs no workspace, or
 * NOT_SUPPORTED with zero results for what the host cannot do (row-major
 * or tiled orders, planar complex, vector alpha, fp8), which makes PyTorch
 * fall back to plain cuBLAS.
 */
#include "cublaslt/lt_internal.h"

#include <string.h>

#include "common/half.h"
#include "common/log.h"

#define ALGO_MAGIC 0x746f7263686c7431ull   /* "torchlt1" */

typedef struct lt_plan {
    tfl_op op;
    const lt_layout *la, *lb, *lc, *ld;
    cudaDataType scale;
    int devmode;
    int bias_len;           /* 0 none, else m or n (BGRADB)              */
    int aux_kind;           /* 0 none, 1 elements, 2 bit mask           */
} lt_plan;

static int tfl_epi_of(uint32_t e)
{
    switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: return TFL_EPI_NONE;
    case CUBLASLT_EPILOGUE_RELU: return TFL_EPI_RELU;
    case CUBLASLT_EPILOGUE_RELU_AUX: return TFL_EPI_RELU_AUX;
    case CUBLASLT_EPILOGUE_BIAS: return TFL_EPI_BIAS;
    case CUBLASLT_EPILOGUE_RELU_BIAS: return TFL_EPI_RELU_BIAS;
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS: return TFL_EPI_RELU_AUX_BIAS;
    case CUBLASLT_EPILOGUE_DRELU: return TFL_EPI_DRELU;
    case CUBLASLT_EPILOGUE_DRELU_BGRAD: return TFL_EPI_DRELU_BGRAD;
    case CUBLASLT_EPILOGUE_GELU: return TFL_EPI_GELU;
    case CUBLASLT_EPILOGUE_GELU_AUX: return TFL_EPI_GELU_AUX;
    case CUBLASLT_EPILOGUE_GELU_BIAS: return TFL_EPI_GELU_BIAS;
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS: return TFL_EPI_GELU_AUX_BIAS;
    case CUBLASLT_EPILOGUE_DGELU: return TFL_EPI_DGELU;
    case CUBLASLT_EPILOGUE_DGELU_BGRAD: return TFL_EPI_DGELU_BGRAD;
    case CUBLASLT_EPILOGUE_BGRADA: return TFL_EPI_BGRADA;
    case CUBLASLT_EPILOGUE_BGRADB: return TFL_EPI_BGRADB;
    }
    return -1;
}

/* Operand/compute/scale combinations the host runs. */
static int types_ok(cudaDataType ta, cudaDataType tb, cudaDataType tc, cudaDataType td,
                    int comp, cudaDataType scale)
{
    if (ta != tb || tc != td)
        return 0;
    switch (comp) {
    case TFL_COMPUTE_16F:
        return ta == CUDA_R_16F && tc == CUDA_R_16F &&
               (scale == CUDA_R_16F || scale == CUDA_R_32F);
    case TFL_COMPUTE_64F:
        return ((ta == CUDA_R_64F && tc == CUDA_R_64F) ||
                (ta == CUDA_C_64F && tc == CUDA_C_64F)) && scale == tc;
    case TFL_COMPUTE_32F:
        if (ta == CUDA_C_32F)
            return tc == CUDA_C_32F && scale == CUDA_C_32F;
        return scale == CUDA_R_32F &&
               ((ta == CUDA_R_32F && tc == CUDA_R_32F) ||
                (ta == CUDA_R_16F && (tc == CUDA_R_16F || tc == CUDA_R_32F)) ||
                (ta == CUDA_R_16BF && (tc == CUDA_R_16BF || tc == CUDA_R_32F)));
    case TFL_COMPUTE_32F_FAST_16F:
    case TFL_COMPUTE_32F_FAST_16BF:
    case TFL_COMPUTE_32F_FAST_TF32:
        return (ta == CUDA_R_32F && tc == CUDA_R_32F && scale == CUDA_R_32F) ||
               (ta == CUDA_C_32F && tc == CUDA_C_32F && scale == CUDA_C_32F);
    default:
        return 0;
    }
}

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

/* Build the op from descriptors; pointers are filled in by the caller. */
static cublasStatus_t plan(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t A,
                           cublasLtMatrixLayout_t B, cublasLtMatrixLayout_t C,
                           cublasLtMatrixLayout_t D, lt_plan *p, const char **why)
{
    const lt_desc *d = tfl_lt_desc(desc);
    memset(p, 0, sizeof(*p));
    p->la = tfl_lt_layout(A);
    p->lb = tfl_lt_layout(B);
    p->ld = tfl_lt_layout(D);
    p->lc = C ? tfl_lt_layout(C) : p->ld;
    *why = "invalid descriptor";
    if (!d || !p->la || !p->lb || !p->lc || !p->ld)
        return CUBLAS_STATUS_INVALID_VALUE;
    const lt_layout *L[4] = { p->la, p->lb, p->lc, p->ld };
    for (int i = 0; i < 4; i++) {
        *why = "only column-major, non-planar, strided layouts";
        if (L[i]->order != CUBLASLT_ORDER_COL || L[i]->plane_offset != 0 ||
            L[i]->batch_mode != 0)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        *why = "leading dimension smaller than rows";
        if (L[i]->ld < max1((int64_t)L[i]->rows) || L[i]->rows > INT64_MAX / 2 ||
            L[i]->cols > INT64_MAX / 2)
            return CUBLAS_STATUS_INVALID_VALUE;
    }
    *why = "TRANSC, FILL_MODE, vector alpha or scaled (fp8) operands";
    if (d->transc != CUBLAS_OP_N || d->fill_mode != CUBLAS_FILL_MODE_FULL ||
        (d->pointer_mode != CUBLASLT_POINTER_MODE_HOST &&
         d->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < 8; i++)
        if (d->scale_ptr[i])
            return CUBLAS_STATUS_NOT_SUPPORTED;

    const int64_t m = (int64_t)p->ld->rows, n = (int64_t)p->ld->cols;
    const int ta = d->transa != CUBLAS_OP_N, tb = d->transb != CUBLAS_OP_N;
    const int64_t am = ta ? (int64_t)p->la->cols : (int64_t)p->la->rows;
    const int64_t k = ta ? (int64_t)p->la->rows : (int64_t)p->la->cols;
    const int64_t bk = tb ? (int64_t)p->lb->cols : (int64_t)p->lb->rows;
    const int64_t bn = tb ? (int64_t)p->lb->rows : (int64_t)p->lb->cols;
    *why = "layout shapes do not match";
    if (am != m || bk != k || bn != n || p->lc->rows != p->ld->rows ||
        p->lc->cols != p->ld->cols)
        return CUBLAS_STATUS_INVALID_VALUE;
    const int64_t batch = p->ld->batch_count;
    *why = "batch counts differ";
    for (int i = 0; i < 3; i++)
        if (L[i]->batch_count != batch && L[i]->batch_count != 1)
            return CUBLAS_STATUS_INVALID_VALUE;

    const int comp = tfl_cublas_compute((cublasComputeType_t)d->compute);
    const cudaDataType cta = (cudaDataType)p->la->type, ctb = (cudaDataType)p->lb->type;
    const cudaDataType ctc = (cudaDataType)p->lc->type, ctd = (cudaDataType)p->ld->type;
    *why = "type combination";
    if (comp < 0 || !types_ok(cta, ctb, ctc, ctd, comp, (cudaDataType)d->scale_type))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    const int epi = tfl_epi_of(d->epilogue);
    *why = "epilogue with complex types";
    if (epi < 0 || (epi != TFL_EPI_NONE && (ctd == CUDA_C_32F || ctd == CUDA_C_64F)))
        return CUBLAS_STATUS_NOT_SUPPORTED;

    p->scale = (cudaDataType)d->scale_type;
    p->devmode = d->pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
    tfl_op *op = &p->op;
    op->kind = TFL_OP_GEMM;
    op->name = "gemm_lt";
    tfl_gemm_op *o = &op->u.gemm;
    o->trans_a = d->transa;
    o->trans_b = d->transb;
    o->m = m; o->n = n; o->k = k;
    o->type_a = (tfl_dtype)tfl_cublas_dtype(cta);
    o->type_b = (tfl_dtype)tfl_cublas_dtype(ctb);
    o->type_c = (tfl_dtype)tfl_cublas_dtype(ctc);
    o->type_d = (tfl_dtype)tfl_cublas_dtype(ctd);
    o->compute = (tfl_compute)comp;
    o->lda = p->la->ld; o->ldb = p->lb->ld; o->ldc = p->lc->ld; o->ldd = p->ld->ld;
    /* a batch count of 1 against a larger batch broadcasts that operand */
    o->stride_a = p->la->batch_count > 1 ? p->la->stride : 0;
    o->stride_b = p->lb->batch_count > 1 ? p->lb->stride : 0;
    o->stride_c = p->lc->batch_count > 1 ? p->lc->stride : 0;
    o->stride_d = p->ld->stride;
    o->batch = batch;
    o->epilogue = (tfl_epilogue)epi;

    switch (epi) {
    case TFL_EPI_BIAS: case TFL_EPI_RELU_BIAS: case TFL_EPI_GELU_BIAS:
    case TFL_EPI_GELU_AUX_BIAS: case TFL_EPI_RELU_AUX_BIAS:
    case TFL_EPI_DGELU_BGRAD: case TFL_EPI_DRELU_BGRAD: case TFL_EPI_BGRADA:
        p->bias_len = 1;
        break;
    case TFL_EPI_BGRADB:
        p->bias_len = 2;
        break;
    default:
        break;
    }
    switch (epi) {
    case TFL_EPI_GELU_AUX: case TFL_EPI_GELU_AUX_BIAS:
    case TFL_EPI_DGELU: case TFL_EPI_DGELU_BGRAD:
        p->aux_kind = 1;
        break;
    case TFL_EPI_RELU_AUX: case TFL_EPI_RELU_AUX_BIAS:
    case TFL_EPI_DRELU: case TFL_EPI_DRELU_BGRAD:
        p->aux_kind = 2;
        break;
    default:
        break;
    }
    if (p->bias_len) {
        cudaDataType bt = d->bias_type == -1 ? ctd : (cudaDataType)d->bias_type;
        *why = "bias data type";
        if (bt != CUDA_R_32F && bt != CUDA_R_16F && bt != CUDA_R_16BF && bt != CUDA_R_64F)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        o->bias_type = (tfl_dtype)tfl_cublas_dtype(bt);
        o->bias = d->bias;
        o->stride_bias = d->bias_stride;
    }
    if (p->aux_kind) {
        *why = "EPILOGUE_AUX_LD";
        /* cuBLASLt: bit-mask ld a multiple of 128, GELU input ld of 8 */
        if (d->aux_ld < m || d->aux_ld % (p->aux_kind == 2 ? 128 : 8) != 0)
            return CUBLAS_STATUS_INVALID_VALUE;
        cudaDataType at = d->aux_type == -1 ? ctd : (cudaDataType)d->aux_type;
        *why = "aux data type";
        if (p->aux_kind == 1 && at != CUDA_R_32F && at != CUDA_R_16F &&
            at != CUDA_R_16BF && at != CUDA_R_64F)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        o->aux = d->aux;
        o->ld_aux = d->aux_ld;
        o->aux_type = (tfl_dtype)tfl_cublas_dtype(at);
        o->stride_aux = d->aux_stride;
    }
    *why = NULL;
    return CUBLAS_STATUS_SUCCESS;
}

/* --------------------------------------------------------- heuristic */

static void fill_algo(cublasLtMatmulAlgo_t *a)
{
    memset(a, 0, sizeof(*a));
    a->data[0] = ALGO_MAGIC;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle,
                                              cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t A,
                                              cublasLtMatrixLayout_t B,
                                              cublasLtMatrixLayout_t C,
                                              cublasLtMatrixLayout_t D,
                                              cublasLtMatmulPreference_t pref,
                                              int requested,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int *count)
{
    if (!tfl_cublas_handle_get(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested <= 0 || !results || !count || !pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    *count = 0;
    lt_plan p;
    const char *why;
    cublasStatus_t st = plan(desc, A, B, C, D, &p, &why);
    if (st != CUBLAS_STATUS_SUCCESS) {
        tfl_debug("cublasLtMatmulAlgoGetHeuristic: no algorithm (%s)", why);
        return st;
    }
    memset(&results[0], 0, sizeof(results[0]));
    fill_algo(&results[0].algo);
    results[0].workspaceSize = 0;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *count = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t handle, cublasComputeType_t comp,
                                        cudaDataType_t scale, cudaDataType_t ta,
                                        cudaDataType_t tb, cudaDataType_t tc,
                                        cudaDataType_t td, int requested, int ids[],
                                        int *count)
{
    if (!tfl_cublas_handle_get(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested <= 0 || !ids || !count)
        return CUBLAS_STATUS_INVALID_VALUE;
    int c = tfl_cublas_compute(comp);
    *count = 0;
    if (c < 0 || !types_ok(ta, tb, tc, td, c, scale))
        return CUBLAS_STATUS_SUCCESS;
    ids[0] = 0;
    *count = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t handle, cublasComputeType_t comp,
                                      cudaDataType_t scale, cudaDataType_t ta,
                                      cudaDataType_t tb, cudaDataType_t tc,
                                      cudaDataType_t td, int id, cublasLtMatmulAlgo_t *algo)
{
    if (!tfl_cublas_handle_get(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int c = tfl_cublas_compute(comp);
    if (!algo || id != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (c < 0 || !types_ok(ta, tb, tc, td, c, scale))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    fill_algo(algo);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                       cublasLtMatrixLayout_t A, cublasLtMatrixLayout_t B,
                                       cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D,
                                       const cublasLtMatmulAlgo_t *algo,
                                       cublasLtMatmulHeuristicResult_t *result)
{
    if (!tfl_cublas_handle_get(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo || !result)
        return CUBLAS_STATUS_INVALID_VALUE;
    lt_plan p;
    const char *why;
    cublasStatus_t st = plan(desc, A, B, C, D, &p, &why);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    memset(result, 0, sizeof(*result));
    result->algo = *algo;
    result->state = CUBLAS_STATUS_SUCCESS;
    result->wavesCount = 1.0f;
    return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ matmul */

static size_t tsize(tfl_dtype t)
{
    return t == TFL_DT_F64 ? 8 : t == TFL_DT_F32 ? 4 : 2;
}

typedef union lt_scalars { float f[8]; double d[4]; } lt_scalars;

static cublasStatus_t read_scalars(const lt_plan *p, const void *alpha, const void *beta,
                                   lt_scalars *s, int *alpha_zero, int *beta_zero)
{
    size_t n = tfl_cublas_dtype_size(p->scale);
    unsigned char a[16], b[16];
    cublasStatus_t st;
    if ((st = tfl_cublas_read_scalar(p->devmode, alpha, n, a, "cublasLtMatmul", "alpha")) ||
        (st = tfl_cublas_read_scalar(p->devmode, beta, n, b, "cublasLtMatmul", "beta")))
        return st;
    memset(s, 0, sizeof(*s));
    switch (p->scale) {
    case CUDA_R_16F: {
        uint16_t ha, hb;
        memcpy(&ha, a, 2);
        memcpy(&hb, b, 2);
        s->f[0] = tfl_f16_to_f32(ha);
        s->f[4] = tfl_f16_to_f32(hb);
        *alpha_zero = s->f[0] == 0.0f;
        *beta_zero = s->f[4] == 0.0f;
        break;
    }
    case CUDA_R_32F: case CUDA_C_32F:
        memcpy(s->f, a, n);
        memcpy(s->f + 4, b, n);
        *alpha_zero = s->f[0] == 0.0f && s->f[1] == 0.0f;
        *beta_zero = s->f[4] == 0.0f && s->f[5] == 0.0f;
        break;
    default:
        memcpy(s->d, a, n);
        memcpy(s->d + 2, b, n);
        *alpha_zero = s->d[0] == 0.0 && s->d[1] == 0.0;
        *beta_zero = s->d[2] == 0.0 && s->d[3] == 0.0;
        break;
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc,
                              const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc,
                              void *D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspace_size, cudaStream_t stream)
{
    static const char fn[] = "cublasLtMatmul";
    (void)algo; (void)workspace; (void)workspace_size;
    if (!tfl_cublas_handle_get(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    lt_plan p;
    const char *why;
    cublasStatus_t st = plan(desc, Adesc, Bdesc, Cdesc, Ddesc, &p, &why);
    if (st != CUBLAS_STATUS_SUCCESS) {
        tfl_error("%s: %s", fn, why);
        return st;
    }
    tfl_gemm_op *o = &p.op.u.gemm;
    if (o->m == 0 || o->n == 0 || o->batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    lt_scalars sc;
    int az, bz;
    if ((st = read_scalars(&p, alpha, beta, &sc, &az, &bz)))
        return st;
    if (p.bias_len && !o->bias) {
        tfl_error("%s: epilogue needs CUBLASLT_MATMUL_DESC_BIAS_POINTER", fn);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (p.aux_kind && !o->aux) {
        tfl_error("%s: epilogue needs CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER", fn);
        return CUBLAS_STATUS_INVALID_VALUE;
    }

    /* every operand must lie inside device memory, batch by batch */
    const size_t ea = tfl_cublas_dtype_size((cudaDataType)p.la->type);
    const size_t ec = tfl_cublas_dtype_size((cudaDataType)p.lc->type);
    const size_t ed = tfl_cublas_dtype_size((cudaDataType)p.ld->type);
    const int reads_ab = o->k > 0 && !az;
    for (int64_t b = 0; b < o->batch; b++) {
        if (reads_ab &&
            ((st = tfl_cublas_check_matrix((const char *)A + (size_t)(b * o->stride_a) * ea,
                                           (int64_t)p.la->rows, (int64_t)p.la->cols,
                                           o->lda, ea, fn, "A")) ||
             (st = tfl_cublas_check_matrix((const char *)B + (size_t)(b * o->stride_b) * ea,
                                           (int64_t)p.lb->rows, (int64_t)p.lb->cols,
                                           o->ldb, ea, fn, "B"))))
            return st;
        if (!bz && (st = tfl_cublas_check_matrix((const char *)C + (size_t)(b * o->stride_c) * ec,
                                                 o->m, o->n, o->ldc, ec, fn, "C")))
            return st;
        if ((st = tfl_cublas_check_matrix((char *)D + (size_t)(b * o->stride_d) * ed,
                                          o->m, o->n, o->ldd, ed, fn, "D")))
            return st;
        if (p.bias_len) {
            size_t bs = tsize(o->bias_type);
            int64_t len = p.bias_len == 2 ? o->n : o->m;
            if ((st = tfl_cublas_check_vector((const char *)o->bias +
                                              (size_t)(b * o->stride_bias) * bs,
                                              len, 1, bs, fn, "bias")))
                return st;
        }
        if (p.aux_kind == 1) {
            size_t as = tsize(o->aux_type);
            if ((st = tfl_cublas_check_matrix((char *)o->aux +
                                              (size_t)(b * o->stride_aux) * as,
                                              o->m, o->n, o->ld_aux, as, fn, "aux")))
                return st;
        } else if (p.aux_kind == 2) {
            /* bit mask: ld and stride count bits */
            if ((st = tfl_cublas_check_vector((char *)o->aux + (b * o->stride_aux) / 8,
                                              (o->ld_aux * (o->n - 1) + o->m + 7) / 8, 1, 1,
                                              fn, "aux mask")))
                return st;
        }
    }

    o->a = A;
    o->b = B;
    o->c = C ? C : D;
    o->d = D;
    if (p.scale == CUDA_R_16F || p.scale == CUDA_R_32F || p.scale == CUDA_C_32F) {
        o->alpha = sc.f;
        o->beta = sc.f + 4;
    } else {
        o->alpha = sc.d;
        o->beta = sc.d + 2;
    }
    if (bz && !C)
        o->c = NULL;
    return tfl_cublas_run(&p.op, stream, fn);
}

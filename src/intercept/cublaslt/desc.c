/*
 * desc.c - cuBLASLt matmul descriptors, matrix layouts and preferences:
 * create/init/destroy and attribute set/get.
 *
 * Every attribute has a fixed size (cublasLt.h gives its type); a set
 * with another size, an unknown attribute or an out-of-range enum value is
 * CUBLAS_STATUS_INVALID_VALUE, as in cuBLASLt.  A get with buf == NULL and
 * sizeInBytes == 0 reports the size in *sizeWritten.  Values the host
 * cannot honour (row-major order, say) are stored and refused later by
 * cublasLtMatmulAlgoGetHeuristic / cublasLtMatmul with NOT_SUPPORTED.
 */
#include "cublaslt/lt_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One attribute: where it lives in our struct and how big it is. */
typedef struct attr_slot {
    int attr;
    size_t off, size;
} attr_slot;

static const attr_slot *find_slot(const attr_slot *t, size_t n, int attr)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].attr == attr)
            return &t[i];
    return NULL;
}

static cublasStatus_t set_attr(void *obj, const attr_slot *s, const void *buf,
                               size_t size)
{
    if (!s || !buf || size != s->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy((char *)obj + s->off, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t get_attr(const void *obj, const attr_slot *s, void *buf,
                               size_t size, size_t *written)
{
    if (!s)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size == 0 && !buf) {            /* size query */
        if (!written)
            return CUBLAS_STATUS_INVALID_VALUE;
        *written = s->size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size < s->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, (const char *)obj + s->off, s->size);
    if (written)
        *written = s->size;
    return CUBLAS_STATUS_SUCCESS;
}

#define SLOT(A, T, F) { A, offsetof(T, F), sizeof(((T *)0)->F) }
#define SLOTP(A, T, F) { A, offsetof(T, F), sizeof(void *) }
#define NSLOTS(t) (sizeof(t) / sizeof((t)[0]))

/* ------------------------------------------------------------- layout */

static const attr_slot layout_slots[] = {
    SLOT(CUBLASLT_MATRIX_LAYOUT_TYPE, lt_layout, type),
    SLOT(CUBLASLT_MATRIX_LAYOUT_ORDER, lt_layout, order),
    SLOT(CUBLASLT_MATRIX_LAYOUT_ROWS, lt_layout, rows),
    SLOT(CUBLASLT_MATRIX_LAYOUT_COLS, lt_layout, cols),
    SLOT(CUBLASLT_MATRIX_LAYOUT_LD, lt_layout, ld),
    SLOT(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, lt_layout, batch_count),
    SLOT(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, lt_layout, stride),
    SLOT(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, lt_layout, plane_offset),
    SLOT(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, lt_layout, batch_mode),
};

const lt_layout *tfl_lt_layout(cublasLtMatrixLayout_t l)
{
    const lt_layout *p = (const lt_layout *)l;
    return p && p->magic == LT_LAYOUT_MAGIC ? p : NULL;
}

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size,
                                                 cudaDataType type, uint64_t rows,
                                                 uint64_t cols, int64_t ld)
{
    if (!l || size < sizeof(lt_layout) || tfl_cublas_dtype_size(type) == 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    lt_layout *p = (lt_layout *)l;
    memset(p, 0, sizeof(*p));
    p->magic = LT_LAYOUT_MAGIC;
    p->type = (uint32_t)type;
    p->order = CUBLASLT_ORDER_COL;
    p->batch_count = 1;
    p->rows = rows;
    p->cols = cols;
    p->ld = ld;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *out, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t l = calloc(1, sizeof(cublasLtMatrixLayoutOpaque_t));
    if (!l)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasStatus_t st = cublasLtMatrixLayoutInit_internal(l, sizeof(*l), type, rows, cols, ld);
    if (st != CUBLAS_STATUS_SUCCESS) {
        free(l);
        return st;
    }
    *out = l;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
    if (!l)
        return CUBLAS_STATUS_SUCCESS;
    if (!tfl_lt_layout(l))
        return CUBLAS_STATUS_INVALID_VALUE;
    ((lt_layout *)l)->magic = 0;
    free(l);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void *buf, size_t size)
{
    lt_layout *p = (lt_layout *)tfl_lt_layout(l);
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    lt_layout tmp = *p;
    cublasStatus_t st = set_attr(&tmp, find_slot(layout_slots, NSLOTS(layout_slots), attr),
                                 buf, size);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (tfl_cublas_dtype_size((cudaDataType)tmp.type) == 0 ||
        tmp.order < CUBLASLT_ORDER_COL || tmp.order > CUBLASLT_ORDER_COL32_2R_4R4 ||
        tmp.batch_count < 1 || tmp.batch_mode > 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    *p = tmp;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                void *buf, size_t size, size_t *written)
{
    const lt_layout *p = tfl_lt_layout(l);
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    return get_attr(p, find_slot(layout_slots, NSLOTS(layout_slots), attr), buf, size,
                    written);
}

/* ------------------------------------------------------- matmul desc */

static const attr_slot desc_slots[] = {
    SLOT(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, lt_desc, compute),
    SLOT(CUBLASLT_MATMUL_DESC_SCALE_TYPE, lt_desc, scale_type),
    SLOT(CUBLASLT_MATMUL_DESC_POINTER_MODE, lt_desc, pointer_mode),
    SLOT(CUBLASLT_MATMUL_DESC_TRANSA, lt_desc, transa),
    SLOT(CUBLASLT_MATMUL_DESC_TRANSB, lt_desc, transb),
    SLOT(CUBLASLT_MATMUL_DESC_TRANSC, lt_desc, transc),
    SLOT(CUBLASLT_MATMUL_DESC_FILL_MODE, lt_desc, fill_mode),
    SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE, lt_desc, epilogue),
    SLOTP(CUBLASLT_MATMUL_DESC_BIAS_POINTER, lt_desc, bias),
    SLOT(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, lt_desc, bias_stride),
    SLOTP(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, lt_desc, aux),
    SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, lt_desc, aux_ld),
    SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, lt_desc, aux_stride),
    SLOT(CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, lt_desc, alpha_stride),
    SLOT(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, lt_desc, sm_count),
    SLOTP(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, lt_desc, scale_ptr[0]),
    SLOTP(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, lt_desc, scale_ptr[1]),
    SLOTP(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, lt_desc, scale_ptr[2]),
    SLOTP(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, lt_desc, scale_ptr[3]),
    SLOTP(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, lt_desc, scale_ptr[4]),
    SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, lt_desc, aux_type),
    SLOTP(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, lt_desc, scale_ptr[5]),
    SLOTP(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, lt_desc, scale_ptr[6]),
    SLOT(CUBLASLT_MATMUL_DESC_FAST_ACCUM, lt_desc, fast_accum),
    SLOT(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, lt_desc, bias_type),
    SLOT(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, lt_desc, scale_mode[0]),
    SLOT(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, lt_desc, scale_mode[1]),
    SLOT(CUBLASLT_MATMUL_DESC_C_SCALE_MODE, lt_desc, scale_mode[2]),
    SLOT(CUBLASLT_MATMUL_DESC_D_SCALE_MODE, lt_desc, scale_mode[3]),
    SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE, lt_desc, scale_mode[4]),
    SLOTP(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, lt_desc, scale_ptr[7]),
    SLOT(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, lt_desc, scale_mode[5]),
    SLOTP(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, lt_desc, scale_ptr[8]),
};

const lt_desc *tfl_lt_desc(cublasLtMatmulDesc_t d)
{
    const lt_desc *p = (const lt_desc *)d;
    return p && p->magic == LT_DESC_MAGIC ? p : NULL;
}

static int valid_epilogue(uint32_t e)
{
    switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: case CUBLASLT_EPILOGUE_RELU:
    case CUBLASLT_EPILOGUE_RELU_AUX: case CUBLASLT_EPILOGUE_BIAS:
    case CUBLASLT_EPILOGUE_RELU_BIAS: case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DRELU: case CUBLASLT_EPILOGUE_DRELU_BGRAD:
    case CUBLASLT_EPILOGUE_GELU: case CUBLASLT_EPILOGUE_GELU_AUX:
    case CUBLASLT_EPILOGUE_GELU_BIAS: case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
    case CUBLASLT_EPILOGUE_DGELU: case CUBLASLT_EPILOGUE_DGELU_BGRAD:
    case CUBLASLT_EPILOGUE_BGRADA: case CUBLASLT_EPILOGUE_BGRADB:
        return 1;
    }
    return 0;
}

static int valid_op(int32_t t)
{
    return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C;
}

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size,
                                               cublasComputeType_t compute,
                                               cudaDataType_t scale)
{
    if (!d || size < sizeof(lt_desc) || tfl_cublas_compute(compute) < 0 ||
        tfl_cublas_dtype_size(scale) == 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    lt_desc *p = (lt_desc *)d;
    memset(p, 0, sizeof(*p));
    p->magic = LT_DESC_MAGIC;
    p->compute = compute;
    p->scale_type = scale;
    p->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
    p->transa = p->transb = p->transc = CUBLAS_OP_N;
    p->fill_mode = CUBLAS_FILL_MODE_FULL;
    p->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    p->bias_type = -1;
    p->aux_type = -1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *out,
                                        cublasComputeType_t compute,
                                        cudaDataType_t scale)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t d = calloc(1, sizeof(cublasLtMatmulDescOpaque_t));
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasStatus_t st = cublasLtMatmulDescInit_internal(d, sizeof(*d), compute, scale);
    if (st != CUBLAS_STATUS_SUCCESS) {
        free(d);
        return st;
    }
    *out = d;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
    if (!d)
        return CUBLAS_STATUS_SUCCESS;
    if (!tfl_lt_desc(d))
        return CUBLAS_STATUS_INVALID_VALUE;
    ((lt_desc *)d)->magic = 0;
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t size)
{
    lt_desc *p = (lt_desc *)tfl_lt_desc(d);
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    lt_desc tmp = *p;
    cublasStatus_t st = set_attr(&tmp, find_slot(desc_slots, NSLOTS(desc_slots), attr),
                                 buf, size);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (tfl_cublas_compute((cublasComputeType_t)tmp.compute) < 0 ||
        tfl_cublas_dtype_size((cudaDataType)tmp.scale_type) == 0 ||
        !valid_op(tmp.transa) || !valid_op(tmp.transb) || !valid_op(tmp.transc) ||
        tmp.pointer_mode < CUBLASLT_POINTER_MODE_HOST ||
        tmp.pointer_mode > CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST ||
        tmp.fill_mode < CUBLAS_FILL_MODE_LOWER || tmp.fill_mode > CUBLAS_FILL_MODE_FULL ||
        !valid_epilogue(tmp.epilogue) ||
        (tmp.bias_type != -1 && tfl_cublas_dtype_size((cudaDataType)tmp.bias_type) == 0) ||
        (tmp.aux_type != -1 && tfl_cublas_dtype_size((cudaDataType)tmp.aux_type) == 0) ||
        tmp.aux_ld < 0 || tmp.sm_count < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    *p = tmp;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr,
                                              void *buf, size_t size, size_t *written)
{
    const lt_desc *p = tfl_lt_desc(d);
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    return get_attr(p, find_slot(desc_slots, NSLOTS(desc_slots), attr), buf, size,
                    written);
}

/* --------------------------------------------------------- preference */

static const attr_slot pref_slots[] = {
    SLOT(CUBLASLT_MATMUL_PREF_SEARCH_MODE, lt_pref, search_mode),
    SLOT(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, lt_pref, max_workspace),
    SLOT(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, lt_pref, reduction_mask),
    SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, lt_pref, align[0]),
    SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, lt_pref, align[1]),
    SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, lt_pref, align[2]),
    SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, lt_pref, align[3]),
    SLOT(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, lt_pref, max_waves),
    SLOT(CUBLASLT_MATMUL_PREF_IMPL_MASK, lt_pref, impl_mask),
};

static lt_pref *pref_of(cublasLtMatmulPreference_t p)
{
    lt_pref *q = (lt_pref *)p;
    return q && q->magic == LT_PREF_MAGIC ? q : NULL;
}

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t p,
                                                     size_t size)
{
    if (!p || size < sizeof(lt_pref))
        return CUBLAS_STATUS_INVALID_VALUE;
    lt_pref *q = (lt_pref *)p;
    memset(q, 0, sizeof(*q));
    q->magic = LT_PREF_MAGIC;
    q->reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
    q->align[0] = q->align[1] = q->align[2] = q->align[3] = 256;
    q->impl_mask = UINT64_MAX;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *out)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t p = calloc(1, sizeof(cublasLtMatmulPreferenceOpaque_t));
    if (!p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(p, sizeof(*p));
    *out = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p)
{
    if (!p)
        return CUBLAS_STATUS_SUCCESS;
    lt_pref *q = pref_of(p);
    if (!q)
        return CUBLAS_STATUS_INVALID_VALUE;
    q->magic = 0;
    free(p);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t size)
{
    lt_pref *q = pref_of(p);
    if (!q)
        return CUBLAS_STATUS_INVALID_VALUE;
    return set_attr(q, find_slot(pref_slots, NSLOTS(pref_slots), attr), buf, size);
}

cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    void *buf, size_t size, size_t *written)
{
    lt_pref *q = pref_of(p);
    if (!q)
        return CUBLAS_STATUS_INVALID_VALUE;
    return get_attr(q, find_slot(pref_slots, NSLOTS(pref_slots), attr), buf, size,
                    written);
}

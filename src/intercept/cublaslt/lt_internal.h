/*
 * lt_internal.h - cuBLASLt descriptors as torchfl stores them.
 *
 * The toolkit declares the descriptors "semi-opaque": callers may put them
 * on their own memory (cublasLt*Init) as long as they give the declared
 * size, so each of our structs must fit inside the public opaque type
 * (checked at compile time).  A magic word tells a real descriptor from
 * uninitialised memory.
 */
#ifndef TFL_CUBLASLT_INTERNAL_H
#define TFL_CUBLASLT_INTERNAL_H

#include "cublas/cublas_internal.h"

#define LT_LAYOUT_MAGIC 0x4c61794fu   /* "LayO" */
#define LT_DESC_MAGIC 0x4d6d4473u     /* "MmDs" */
#define LT_PREF_MAGIC 0x50726566u     /* "Pref" */

typedef struct lt_layout {
    uint32_t magic;
    uint32_t type;          /* cudaDataType                              */
    int32_t order;          /* cublasLtOrder_t                           */
    int32_t batch_count;
    uint64_t rows, cols;
    int64_t ld;
    int64_t stride;         /* STRIDED_BATCH_OFFSET, elements            */
    int64_t plane_offset;
    uint32_t batch_mode;
} lt_layout;

typedef struct lt_desc {
    uint32_t magic;
    int32_t compute;        /* cublasComputeType_t                       */
    int32_t scale_type;     /* cudaDataType                              */
    int32_t pointer_mode;
    int32_t transa, transb, transc;
    int32_t fill_mode;
    uint32_t epilogue;
    int32_t bias_type;      /* -1: same as D                             */
    int32_t aux_type;       /* -1: same as D                             */
    int32_t sm_count;
    int8_t fast_accum;
    const void *bias;
    int64_t bias_stride;
    void *aux;
    int64_t aux_ld, aux_stride, alpha_stride;
    void *scale_ptr[9];     /* A/B/C/D scale, amax D, aux scale/amax,
                               D out scale, emulation descriptor         */
    int32_t scale_mode[6];
} lt_desc;

typedef struct lt_pref {
    uint32_t magic;
    uint32_t search_mode;
    uint32_t reduction_mask;
    uint32_t align[4];
    float max_waves;
    uint64_t max_workspace;
    uint64_t impl_mask;
} lt_pref;

_Static_assert(sizeof(lt_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout");
_Static_assert(sizeof(lt_desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc");
_Static_assert(sizeof(lt_pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "pref");

/* The struct behind a descriptor, or NULL if it is not one. */
const lt_layout *tfl_lt_layout(cublasLtMatrixLayout_t l);
const lt_desc *tfl_lt_desc(cublasLtMatmulDesc_t d);

#endif

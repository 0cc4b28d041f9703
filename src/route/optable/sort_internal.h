/*
 * sort_internal.h - what the "sort" family's decoder files share: the
 * per-kernel cookie parsed from a kernel's demangled name and the helpers
 * that read types out of it.  Private to src/route/optable/sort*.c.
 */
#ifndef TFL_OPTABLE_SORT_INTERNAL_H
#define TFL_OPTABLE_SORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "route/optable.h"

enum {
    SK_BITONIC = 1,       /* at::native::bitonicSortKVInPlace          */
    SK_RADIX_INPLACE,     /* at::native::radixSortKVInPlace            */
    SK_ONESWEEP,          /* cub DeviceRadixSortOnesweepKernel         */
    SK_DOWNSWEEP,         /* cub DeviceRadixSortDownsweepKernel        */
    SK_SINGLE_TILE,       /* cub DeviceRadixSortSingleTileKernel       */
    SK_SEGMENTED,         /* cub DeviceSegmentedRadixSortKernel        */
    SK_NOOP,              /* cub histogram / exclusive sum / upsweep / scan bins */
    SK_FILL_REVERSE,      /* SortStable.cu fill_reverse_indices_kernel */
    SK_FILL_SEGMENT,      /* SortStable.cu fill_index_and_segment_kernel */
    SK_POSTPROCESS,       /* SortStable.cu sort_postprocess_kernel<T>  */
    SK_RANDPERM_TIES,     /* Randperm.cuh randperm_handle_duplicate_keys_kernel */
    /* sort_seq.c (keep these last: run() dispatches on SK_ASSERT and up) */
    SK_ASSERT,            /* at::native::_assert_async_cuda_kernel<bool> */
    SK_COMPACT_INIT,      /* cub DeviceCompactInitKernel               */
    SK_SCAN,              /* cub DeviceScanKernel (sums)               */
    SK_UNIQUE_BY_KEY,     /* cub DeviceUniqueByKeySweepKernel          */
    SK_EMB_PARTIALS,      /* EmbeddingBackwardKernel.cu segment steps  */
    SK_EMB_OFFSETS,
    SK_EMB_NUM,
    SK_EMB_GRAD,
    SK_EMB_SCATTER,
    SK_RUN_STARTS,        /* UniqueCub.cu adjacent_difference_kernel   */
    SK_SCATTER,           /* UniqueCub.cu scatter_kernel               */
    SK_SELECT_UNIQUE,     /* cub DeviceSelectSweepKernel (unique)      */
    SK_RLE,               /* cub DeviceReduceByKeyKernel (rle encode)  */
    SK_SCAN_BY_KEY,       /* cub DeviceScanByKeyKernel (long keys/values) */
    SK_KTHVALUE,          /* Sorting.cu gatherKthValue (sort_select.c) */
    SK_MEDIAN,            /* Sorting.cu gatherMedian                   */
    SK_TOPK,              /* TensorTopK.cu sbtopk::gatherTopK          */
    SK_TOPK_MB,           /* TensorTopK.cu mbtopk::gatherTopK          */
    SK_MODE,              /* TensorModeKernel.cu compute_mode          */
};

typedef struct sort_kernel {
    int kind;
    tfl_sort_key key;
    size_t value_size;     /* 0: keys only                          */
    size_t offset_size;    /* bytes of cub's num_items parameter    */
    int descending;        /* from the name (-1: from a parameter)  */
    int key_dims;          /* TensorInfo KeyDims template argument  */
    const char *name;      /* op name for statistics                */
} sort_kernel;

/* Type name (demangled, len bytes) -> key type; 0 if not a sortable key. */
int sort_key_type(const char *name, size_t len, tfl_sort_key *out);
/* Value type name -> bytes (NullType: 0, OpaqueType<N>: N); 0 if unknown. */
int sort_value_size(const char *name, size_t len, size_t *out);
/* Is the template argument [s, s+len) exactly `lit`? */
int sort_arg_is(const char *s, size_t len, const char *lit);

/* --- sort_inplace.c: PyTorch's own kernels (in-place slice sorts, the
 * stable sort's index helpers, randperm's tie shuffle) */
int sort_match_pytorch(const char *demangled, sort_kernel *k);
tfl_status sort_run_pytorch(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen);

/* --- sort_cub.c: cub's radix sort kernels */
int sort_match_cub(const char *demangled, sort_kernel *k);
tfl_status sort_run_cub(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                        int *route, char *err, size_t errlen);

/* --- sort_seq.c: kernels on sorted data (scan, unique-by-key,
 * embedding backward segments) and the async assert */
int sort_match_seq(const char *demangled, sort_kernel *k);
tfl_status sort_run_seq(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                        int *route, char *err, size_t errlen);

/* --- sort_select.c: kthvalue / median */
int sort_match_select(const char *demangled, sort_kernel *k);
tfl_status sort_run_select(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                           int *route, char *err, size_t errlen);

#endif

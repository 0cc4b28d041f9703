/*
 * sort_internal.h - what the "sort" family's decoder files share: the
 * per-kernel cookie parsed from a kernel's name (its tfl_kname structure),
 * with the parameter layout its decoder reads, and the helpers that read
 * types out of the name.  Private to src/route/optable/sort*.c.
 */
#ifndef TFL_OPTABLE_SORT_INTERNAL_H
#define TFL_OPTABLE_SORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "route/optable.h"
#include "route/optable/kname.h"

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
    SK_WARP_MERGE,        /* at::native::warpMergeSortKVInPlace (torch 2.14+) */
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
    int form;              /* which release's parameter list (the decoders say) */
    const char *name;      /* op name for statistics                */
    char sig[96];          /* the parameters run() reads: a tfl_klayout_sig
                              signature, set by the matcher that knows them */
} sort_kernel;

/* Type name (demangled, len bytes) -> key type; 0 if not a sortable key. */
int sort_key_type(const char *name, size_t len, tfl_sort_key *out);
/* Value type name -> bytes (NullType: 0, OpaqueType<N>: N); 0 if unknown. */
int sort_value_size(const char *name, size_t len, size_t *out);
/* Is the template argument [s, s+len) exactly `lit`? */
int sort_arg_is(const char *s, size_t len, const char *lit);

/* Template argument i of a parsed name with the namespaces that only
 * version a library removed (cub's at_cuda_detail::, thrust's
 * THRUST_300001_..._NS:: / _V_300200_...::, libcu++'s __4::), so the
 * matchers compare it as the source spells it in every release
 * ("cub::NullType", "cuda::std::plus<void>", "thrust::reverse_iterator<long
 * const*>"; tfl_kname_targ_unversioned).  0 if there is no such argument or
 * it does not fit. */
#define SORT_NORM_MAX 1024
int sort_targ(const tfl_kname *kn, int i, char *out);
int sort_targ_is(const tfl_kname *kn, int i, const char *want);
int sort_targ_starts(const tfl_kname *kn, int i, const char *prefix);
/* Does the normalised argument i contain sub? */
int sort_targ_has(const tfl_kname *kn, int i, const char *sub);
/* Argument i an element type / a pointer to one ("T*", "T const*",
 * "thrust::device_ptr<T>"), as a key type. */
int sort_targ_key(const tfl_kname *kn, int i, tfl_sort_key *key);
int sort_targ_ptr_key(const tfl_kname *kn, int i, tfl_sort_key *key);
/* Argument i an integer type: its bytes (4 or 8). */
int sort_targ_int_size(const tfl_kname *kn, int i, size_t *size);
/* Fill k->sig (printf style); 0 if it does not fit. */
int sort_sig(sort_kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- sort_inplace.c: PyTorch's own kernels (in-place slice sorts, the
 * stable sort's index helpers, randperm's tie shuffle) */
int sort_match_pytorch(const tfl_kname *kn, sort_kernel *k);
tfl_status sort_run_pytorch(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen);

/* --- sort_cub.c: cub's radix sort kernels */
int sort_match_cub(const tfl_kname *kn, sort_kernel *k);
tfl_status sort_run_cub(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                        int *route, char *err, size_t errlen);

/* --- sort_seq.c: kernels on sorted data (scan, unique-by-key,
 * embedding backward segments) and the async assert */
int sort_match_seq(const tfl_kname *kn, sort_kernel *k);
tfl_status sort_run_seq(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                        int *route, char *err, size_t errlen);

/* --- sort_select.c: kthvalue / median / topk / mode */
int sort_match_select(const tfl_kname *kn, sort_kernel *k);
tfl_status sort_run_select(const tfl_kcall *c, const sort_kernel *k, tfl_op *op,
                           int *route, char *err, size_t errlen);

#endif

/*
 * scan_internal.h - what scan.c (kernel names) and scan_decode.c (launch
 * arguments) share: the parsed description of one scan-family kernel.
 */
#ifndef TFL_OPTABLE_SCAN_INTERNAL_H
#define TFL_OPTABLE_SCAN_INTERNAL_H

#include "route/optable.h"

typedef enum scan_kk {
    SK_ATEN_OUTER = 1,      /* at::native::tensor_kernel_scan_outer_dim          */
    SK_ATEN_INNER,          /* at::native::tensor_kernel_scan_innermost_dim      */
    SK_ATEN_IDX_OUTER,      /* ..._outer_dim_with_indices (cummax/cummin)        */
    SK_ATEN_IDX_INNER,      /* ..._innermost_dim_with_indices                    */
    SK_CUB_SCAN,            /* cub DeviceScanKernel, inclusive, pointer in/out   */
    SK_CUB_SCAN_INIT,       /* cub DeviceScanInitKernel: tile state only         */
    SK_CUB_COMPACT_INIT,    /* cub DeviceCompactInitKernel: *num_selected = 0    */
    SK_CUB_REDUCE_SINGLE,   /* cub DeviceReduceSingleTileKernel, int sum         */
    SK_CUB_REDUCE_MULTI,    /* cub DeviceReduceKernel, int sum partials          */
    SK_CUB_SELECT_NONZERO,  /* cub DeviceSelectSweepKernel of nonzero            */
    SK_NONZERO_UNRAVEL,     /* Nonzero.cu write_indices<long>                    */
} scan_kk;

typedef struct scan_kernel {
    scan_kk kind;
    tfl_scan_fn fn;
    tfl_dtype dtype;        /* element type (input of a nonzero test)  */
    tfl_dtype count_dtype;  /* COMPACT_INIT: the counter's type        */
    int tile_state_wide;    /* CUB_SCAN: ScanTileState<T, false> (24 B) */
    int nonzero_input;      /* REDUCE_*: transform_iterator<NonZeroOp<T>, const T*> */
    int offset64;           /* REDUCE_*: num_items is 64-bit           */
    const char *op_name;
} scan_kernel;

/* Parse a kernel name (its structure); 0 if the family does not run it. */
struct tfl_kname;
int tfl_scan_parse(const struct tfl_kname *name, scan_kernel *out);

/* Run one launch of a parsed kernel. */
tfl_status tfl_scan_run(const tfl_kcall *c, const scan_kernel *k, char *err, size_t errlen);

#endif

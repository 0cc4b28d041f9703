/*
 * reduce_layout.h - where the fields of PyTorch's ReduceOp<...> lie in a
 * reduce_kernel launch's parameter buffer (torch 2.11 to 2.15 wheels,
 * sm_80 cubins; the family's layout() states `total` as the one
 * parameter's size).
 *
 * Internal to the reduce family decoder (src/route/optable/reduce*.c);
 * exposed so a unit test can check the layout against the cubins' sizes.
 */
#ifndef TFL_OPTABLE_REDUCE_LAYOUT_H
#define TFL_OPTABLE_REDUCE_LAYOUT_H

#include <stddef.h>

#include "torchfl/backend.h"

typedef struct tfl_reduce_kinfo {
    tfl_reduce_kind kind;
    const char *op_name;     /* "sum", "mean", ...                         */
    tfl_dtype in, out, out2; /* scalar_t, out_scalar_t, second output       */
    tfl_dtype acc;           /* arg_t (or its first member); for all/any
                                the and/or lambda's first parameter       */
    tfl_dtype ops_param_dt;  /* type of the ops member read (MEAN, NORM, VAR) */
    int no_root;             /* NORM/NORM2 with apply_root = false (_powsum) */
    size_t config_off;       /* ReduceConfig's offset in the parameter      */
    size_t ptrs_off;         /* offset of src (then dst[2], acc_buf...)     */
    size_t total;            /* the whole ReduceOp's size                   */
} tfl_reduce_kinfo;

/* Parse a reduce_kernel's mangled name; 0 and *ki filled if this decoder
 * understands it, -1 otherwise. */
int tfl_reduce_parse(const char *mangled, tfl_reduce_kinfo *ki);

#endif

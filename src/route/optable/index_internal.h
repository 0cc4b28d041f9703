/*
 * index_internal.h - what the "index" family's decoder files share: the
 * per-kernel cookie, the parsed kernel kinds and the PyTorch-ABI readers
 * (mangled types, TensorInfo, OffsetCalculator) and range checks.
 * Private to src/route/optable/index*.c.
 */
#ifndef TFL_OPTABLE_INDEX_INTERNAL_H
#define TFL_OPTABLE_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "route/optable.h"
#include "route/optable/kname.h"

enum { K_GATHER = 1, K_SELECT_SMALL, K_SELECT_LARGE, K_ADD_SMALL, K_ADD_LARGE, K_CAT, K_SCATTER_GATHER, K_ADVANCED,
       K_ARANGE, K_LINSPACE, K_TRIANGLE, K_INDEX_COPY, K_INDEX_FILL, K_FLIP, K_PUT_SORTED,
       K_SCATTER_ADD_ROWS };
enum { CAT_PLAIN = 0, CAT_VECTORIZED = 1 };

typedef struct index_kernel {
    int kind;
    size_t elem_size;
    tfl_dtype index_dtype;
    int wide;                    /* IndexType is 64-bit */
    /* cat */
    int dims, batch, stride_size, variant, alignment, elems_per_vec;
    /* scatter/gather, advanced indexing, ranges */
    int scatter, put, fill, upper;
    int divider;                 /* indexFuncLargeIndex ends with an IntDivider (2.12) */
    tfl_index_reduce reduce;
    tfl_dtype dtype;
} index_kernel;

#define ARG(c, i, T) TFL_KARG(c, T, i)


/* --- index_abi.c: kernel-name helpers, PyTorch ABI readers, range checks */
size_t idx_type_size(const char *t, size_t len, tfl_dtype *dt);
size_t idx_targ_size(const tfl_kname *k, int i, tfl_dtype *dt);
int idx_others_constant(const tfl_kname *k, const int *used, int nused);
int idx_plain_name(const tfl_kname *k, const char *base);
int idx_lambda_of(const char *s, size_t len, const char *fn, const char **lt,
                  const char **after);
size_t idx_tinfo_size(int wide);
int64_t idx_span_bytes(int ndim, const int64_t *sizes, const int64_t *strides, size_t es);
int idx_range_ok(const void *p, int64_t bytes);
int idx_read_tinfo(const tfl_kcall *c, int i, int wide, tfl_index_tensor *t);
int idx_read_offcalc(const unsigned char *b, int nargs, tfl_index_iter *it);
int idx_read_offcalc_s(const unsigned char *b, int nargs, int is_signed, tfl_index_iter *it);
void idx_iter_bounds(const tfl_index_iter *it, int a, int64_t elem, int64_t *lo, int64_t *hi);
int64_t idx_iter_count(const tfl_index_iter *it);
int64_t idx_iter_span(const tfl_index_iter *it, int a, int64_t elem);

/* --- one file per kernel group: match() fills k and returns 1 if the
 * parsed name is theirs; layout() states the parameters run() reads; run() decodes a launch into op and sets *route when op
 * is ready to go to the backend (TFL_OK without *route: nothing to do). */
int idx_match_select(const tfl_kname *n, index_kernel *k);   /* index_select.c */
int idx_layout_select(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_gather(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                          int *route, char *err, size_t errlen);
tfl_status idx_run_select(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                          int *route, char *err, size_t errlen);
tfl_status idx_run_scatter_add_rows(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                                    int *route, char *err, size_t errlen);
int idx_match_cat(const tfl_kname *n, index_kernel *k);      /* index_cat.c */
int idx_layout_cat(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_cat(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                       tfl_index_cat_input *ins, int *route, char *err, size_t errlen);
int idx_match_scatter_gather(const tfl_kname *n, index_kernel *k); /* index_scatter.c */
int idx_layout_scatter_gather(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_scatter_gather(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                                  int *route, char *err, size_t errlen);
int idx_match_advanced(const tfl_kname *n, index_kernel *k); /* index_advanced.c */
int idx_layout_advanced(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_advanced(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen);
tfl_status idx_run_copy_fill(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                             int *route, char *err, size_t errlen);
tfl_status idx_run_flip(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                        int *route, char *err, size_t errlen);
int idx_match_range(const tfl_kname *n, index_kernel *k);    /* index_range.c */
int idx_layout_range(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_range(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                         int *route, char *err, size_t errlen);

int idx_match_triangle(const tfl_kname *n, index_kernel *k); /* index_triangle.c */
int idx_layout_triangle(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_triangle(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen);
int idx_match_put_sorted(const tfl_kname *n, index_kernel *k); /* index_put.c */
int idx_layout_put_sorted(const index_kernel *k, tfl_klayout *l);
tfl_status idx_run_put_sorted(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                              int *route, char *err, size_t errlen);

#endif

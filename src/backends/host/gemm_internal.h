/*
 * gemm_internal.h - pieces the host BLAS files share: element conversion,
 * per-thread scratch buffers, the epilogue (bias, activations, their
 * gradients, bias-gradient reductions) and the LAPACK-style functions.
 *
 * Not part of the host backend's interface (that is host_ops.h).
 */
#ifndef TFL_HOST_GEMM_INTERNAL_H
#define TFL_HOST_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cblas.h>

#include "torchfl/backend.h"

/* A tfl_gemm_op / tfl_blas_op transpose (0 N, 1 T, 2 C) as CBLAS's
 * (OpenBLAS's real routines treat ConjTrans as Trans). */
static inline enum CBLAS_TRANSPOSE hg_cblas_trans(int t)
{
    return t == 0 ? CblasNoTrans : t == 1 ? CblasTrans : CblasConjTrans;
}

/* ------------------------------------------------------------ elements */

/* rows x cols matrix (column-major, leading dim ld) of F32/F16/BF16 into
 * fp32 at dst (leading dim ldd), and back with round-to-nearest-even. */
void hg_to_f32(tfl_dtype t, const void *src, int64_t ld, int64_t rows,
               int64_t cols, float *dst, int64_t ldd);
void hg_from_f32(tfl_dtype t, const float *src, int64_t lds, int64_t rows,
                 int64_t cols, void *dst, int64_t ld);
/* One element of an F32/F64/F16/BF16 array; stores narrow through fp32. */
double hg_load(tfl_dtype t, const void *p, int64_t i);
void hg_store(tfl_dtype t, void *p, int64_t i, double v);

/* Per-thread scratch: slot 0..HG_SCRATCH_SLOTS-1, at least bytes long,
 * reused across calls (freed at thread exit).  NULL if out of memory. */
#define HG_SCRATCH_SLOTS 5   /* 0 A, 1 B panel, 2 result, 3 epilogue, 4 bias */
void *hg_scratch(int slot, size_t bytes);
/* Free the calling thread's slots larger than keep bytes. */
void hg_scratch_trim(size_t keep);

/* Test hook: when > 0, the low-precision GEMM uses panels of this many
 * columns instead of sizing them from its memory budget. */
extern int64_t hg_panel_cols;

/* Column-major D = alpha op(A) op(B) + beta D in fp32 (dbl = 0) or fp64,
 * split over the host worker pool (gemm_par.c); trans 0 N, 1 T, 2 C. */
void hg_gemm_par(int dbl, int ta, int tb, int64_t m, int64_t n, int64_t k,
                 double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                 double beta, void *d, int64_t ldd);
/* 0 when OpenBLAS threads itself (host.blas_threads set): no split. */
void hg_gemm_par_enable(int on);

/* LAPACK-style TFL_OP_BLAS functions (lapack.c), called by host_blas. */
tfl_status host_lapack(const tfl_blas_op *op);

/* ------------------------------------------------------------ epilogue */

enum {
    HG_EPI_BIAS = 1 << 0,      /* x += bias[i] (bias input, length m)    */
    HG_EPI_RELU = 1 << 1,
    HG_EPI_GELU = 1 << 2,
    HG_EPI_AUX_GELU = 1 << 3,  /* store pre-activation x to aux           */
    HG_EPI_AUX_MASK = 1 << 4,  /* store relu bit mask (x > 0) to aux      */
    HG_EPI_DRELU = 1 << 5,     /* x = mask ? x : 0 (mask from aux)        */
    HG_EPI_DGELU = 1 << 6,     /* x *= gelu'(aux)                         */
    HG_EPI_BGRAD_D = 1 << 7,   /* bias[i] = sum_j x (after the above)     */
    HG_EPI_BGRAD_A = 1 << 8,   /* bias[i] = sum_k op(A)[i,k]              */
    HG_EPI_BGRAD_B = 1 << 9    /* bias[j] = sum_k op(B)[k,j]              */
};
/* Flags of an epilogue; -1 for a value outside the enum. */
int hg_epi_flags(tfl_epilogue e);

/* One batch entry's view of the epilogue operands. */
typedef struct hg_epi {
    int flags;
    int64_t m;
    const void *bias; tfl_dtype bias_type;   /* bias input or bgrad output */
    void *aux; int64_t ld_aux; tfl_dtype aux_type;
    double *bacc;                            /* m accumulators (BGRAD_D)   */
} hg_epi;

/* Fast path for the common forward epilogues (BIAS, RELU, GELU and their
 * combinations; no aux, no gradients) on fp32 columns: cols columns of
 * m floats at d with leading dim ld, in fp32 as the GPU computes them
 * (the f64 form for double outputs).
 * Returns 0 (nothing done) when the epilogue needs the general path. */
int hg_epi_fast_f32(const hg_epi *ep, float *d, int64_t ld, int64_t cols);
int hg_epi_fast_f64(const hg_epi *ep, double *d, int64_t ld, int64_t cols);

/* Apply the element-wise part to column j, x[0..m) in place. */
void hg_epi_column(const hg_epi *ep, int64_t j, double *x);
/* After all columns: write BGRAD_D sums to the bias output. */
void hg_epi_finish(const hg_epi *ep);
/* BGRAD_A / BGRAD_B reductions straight from the operand. */
void hg_epi_bgrad_operand(const tfl_gemm_op *op, const void *a, const void *b,
                          void *bias);

#endif

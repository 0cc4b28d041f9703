/*
 * ocl_ew.h - what the two halves of the OpenCL elementwise op share:
 * ocl_ew.c plans an op (domain, collapsed shape, buffers) and launches
 * it; ocl_ew_src.c holds the op-code table and writes the OpenCL C
 * source of one op signature.
 *
 * A kernel "ew" computes one output element per work item.  Its
 * arguments, in order (what ocl_ew.c sets and ocl_ew_src.c declares):
 *   ulong n                         elements
 *   per operand k = 0..nin:         tensor: __global uchar *d<k>, ulong o<k>
 *                                   constant: PT v<k>
 *   PT p0, p1, p2, p3               the op's parameters
 *   ndim <= OCL_EW_ARG_DIMS:        long sh0..sh<ndim-2>, then for each
 *                                   tensor operand long s<k>_0..s<k>_<ndim-1>
 *   else:                           __global const long *dm holding
 *                                   sh[0..ndim-1] then each tensor
 *                                   operand's strides[0..ndim-1]
 * PT is the domain's value type: long (RAW, INT), float (FLT), double (DBL).
 */
#ifndef TFL_OCL_EW_H
#define TFL_OCL_EW_H

#include <stdint.h>

#include "torchfl/backend.h"

/* Where the op's arithmetic happens. */
enum {
    OCL_EW_RAW = 0,   /* bits moved unchanged: same-type copy, bitwise where */
    OCL_EW_INT,       /* exact int64, wrapping (the host's integer domain)  */
    OCL_EW_FLT,       /* float (PyTorch's opmath for float/half/bfloat16)   */
    OCL_EW_DBL        /* double (needs cl_khr_fp64)                        */
};

/* Dimensions passed as scalar kernel arguments; more go in a buffer. */
#define OCL_EW_ARG_DIMS 8

/* One compiled program per signature.  All fields int32 and the struct
 * zeroed before filling, so it can be compared and hashed as bytes. */
typedef struct ocl_ew_sig {
    int32_t code;                          /* tfl_ew_code                */
    int32_t domain;                        /* OCL_EW_*                   */
    int32_t nin;                           /* inputs                     */
    int32_t ndim;                          /* after collapsing           */
    int32_t idx64;                         /* n > UINT32_MAX             */
    int32_t dtype[TFL_EW_MAX_OPERANDS];    /* [0] = output               */
    int32_t scalar[TFL_EW_MAX_OPERANDS];   /* input k is a constant      */
} ocl_ew_sig;

/* Inputs code reads; -1 if the table has no row for it. */
int ocl_ew_arity(int code);

/* Whether the table can compute code in domain (RAW: never asked). */
int ocl_ew_has_form(int code, int domain);

/* The OpenCL C source of kernel "ew" for s (malloc'd; NULL if out of
 * memory or s has no form). */
char *ocl_ew_source(const ocl_ew_sig *s);

#endif

/*
 * pt_abi.h - decoding helpers for PyTorch's CUDA kernel ABI (2.11 wheel),
 * shared by the op-table families.
 *
 * PyTorch kernels receive C++ objects by value as kernel parameters; the
 * decoders read those bytes.  This header collects the layouts more than
 * one family meets, each checked against the sm_80 cubins' parameter sizes
 * (docs/kernel-families.md):
 *
 *  - c10::ScalarType: a 1-byte enum (Byte=0, Char, Short, Int, Long, Half,
 *    Float, Double, ComplexHalf, ComplexFloat, ComplexDouble, Bool, QInt8,
 *    QUInt8, QInt32, BFloat16=15, ...).
 *  - std::array<char*, N> / at::detail::Array<char*, N>: N pointers, 8 each.
 *  - OffsetCalculator<N, uint32_t>: { int dims; IntDivider<uint32_t>
 *    sizes_[25] (divisor, m1, shift: 12 bytes each); uint32_t
 *    strides_[25][N] } = 304 + 100*N bytes, alignment 4.  Strides are in
 *    bytes, dimension 0 fastest; only the first `dims` entries are set.
 *  - memory::LoadWithCast<N> / StoreWithCast<N>: { ScalarType dtypes[N];
 *    uint32_t element_sizes[N] } (dtypes padded to 4).
 *  - An nvcc extended __host__ __device__ lambda with captures ([=] or a
 *    capture list) is laid out as its captures - an explicit list in list
 *    order, [=] in order of first use in the body - each at its natural
 *    alignment, followed by an 8-byte pointer nvcc adds (alignment 8); a
 *    [=] lambda that uses nothing is just that pointer, a [] lambda 1 byte.
 *    (Checked by compiling such lambdas with nvcc 13 and reading their
 *    bytes.)
 *
 * Kernel names are read demangled (the C++ runtime's __cxa_demangle,
 * looked up at run time so this C library does not link libstdc++).
 */
#ifndef TFL_PT_ABI_H
#define TFL_PT_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

#define TFL_PT_MAX_DIMS 25

/* c10::ScalarType -> tfl_dtype; 0 if it has no tfl_dtype. */
int tfl_pt_scalar_type(int scalar_type, tfl_dtype *out);
/* Demangled C++ type name ("float", "c10::Half", "long", ...) of length
 * len -> tfl_dtype; 0 if not a plain element type. */
int tfl_pt_type_name(const char *name, size_t len, tfl_dtype *out);

/* Demangled kernel name (malloc'd, caller frees) or NULL when the name is
 * not a C++ mangled name or no demangler is available. */
char *tfl_pt_demangle(const char *mangled);

/* Byte size of OffsetCalculator<nargs, uint32_t>. */
size_t tfl_pt_offset_calc_size(int nargs);
/* Decode OffsetCalculator<nargs> bytes: *ndim, shape[dim] and
 * strides[arg][dim] (bytes).  0 if the bytes are not a sane calculator
 * (dims out of range, zero size). */
int tfl_pt_offset_calc_decode(const void *bytes, int nargs, int *ndim,
                              int64_t shape[TFL_PT_MAX_DIMS],
                              int64_t strides[][TFL_PT_MAX_DIMS]);

static inline size_t tfl_pt_align(size_t off, size_t a)
{
    return (off + a - 1) / a * a;
}

/* Find the template argument list that starts at s[0] == '<': returns a
 * pointer to the matching '>' (nested <>, () and {} respected), or NULL. */
const char *tfl_pt_match_angle(const char *s);
/* Split the top-level comma-separated arguments of the list between
 * s[0] == '<' and its match; up to max args as [start,len) pairs.
 * Returns the count, or -1 if unbalanced. */
int tfl_pt_template_args(const char *s, const char **start, size_t *len, int max);



/* Read one value of dtype dt at p into *f and *i (both always set);
 * 0 for dtypes without a scalar reading (complex). */
int tfl_pt_load_scalar(const void *p, tfl_dtype dt, double *f, int64_t *i);
/* IEEE half / bfloat16 bits <-> float (round to nearest even). */
float tfl_pt_half_to_float(uint16_t h);
uint16_t tfl_pt_float_to_half(float f);
float tfl_pt_bf16_to_float(uint16_t h);
uint16_t tfl_pt_float_to_bf16(float f);
#endif

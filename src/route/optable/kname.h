/*
 * kname.h - a PyTorch kernel's name as structure: the function's base name,
 * its template arguments and its parameter types, from the demangled
 * mangled name.
 *
 * Families recognise kernels by this structure rather than by byte
 * patterns of the mangled name: a new release that adds a template
 * parameter, reorders namespaces or changes the per-build hash of an
 * anonymous or nvcc-internal namespace (`_GLOBAL__N__6f006077_...`,
 * `_INTERNAL_..._cu_...`) changes the mangled bytes but not what a decoder
 * looks for - the base name and the template arguments it needs, found by
 * what they are (a scalar type, a `std::array<char*, N>`, a functor), not
 * by position alone.
 *
 * The text is simplified once: `at::native::`, `(anonymous namespace)::`,
 * `torch::headeronly::detail::` and nvcc's `_INTERNAL_<hash>_<file>::`
 * qualifiers are removed everywhere, and a leading `void ` return type is
 * dropped.
 */
#ifndef TFL_KNAME_H
#define TFL_KNAME_H

#include <stddef.h>

#include "torchfl/backend.h"

#define TFL_KNAME_MAX 32

typedef struct tfl_kname {
    char *text;                  /* the simplified demangled name (owned) */
    const char *name;            /* qualified function name ("cub::...::DeviceScanKernel") */
    size_t name_len;
    const char *base;            /* its last component ("DeviceScanKernel") */
    size_t base_len;
    int ntargs;                  /* template arguments (0: not a template); the count may
                                    exceed TFL_KNAME_MAX, only that many are stored */
    const char *targ[TFL_KNAME_MAX];
    size_t targ_len[TFL_KNAME_MAX];
    int nparams;                 /* parameter types, as targ                */
    const char *param[TFL_KNAME_MAX];
    size_t param_len[TFL_KNAME_MAX];
} tfl_kname;

/* Does the mangled name contain any of the n words?  The cheap filter a
 * family's match() applies before demangling. */
int tfl_kname_mentions(const char *mangled, const char *const *words, size_t n);

/* Parse a mangled kernel name.  0 ok (free with tfl_kname_free), -1 when it
 * is not a C++ function name the demangler accepts. */
int tfl_kname_parse(const char *mangled, tfl_kname *k);
void tfl_kname_free(tfl_kname *k);

/* Remove the qualifiers listed above from a demangled name, in place. */
void tfl_kname_simplify(char *s);

/* Is the base name exactly `base`? */
int tfl_kname_is(const tfl_kname *k, const char *base);
/* Does the qualified name end with `suffix` at a "::" boundary (or equal it)? */
int tfl_kname_qualified(const tfl_kname *k, const char *suffix);
/* Template argument i equals s / starts with prefix (0 if i is out of range). */
int tfl_kname_targ_is(const tfl_kname *k, int i, const char *s);
int tfl_kname_targ_starts(const tfl_kname *k, int i, const char *prefix);
/* First template argument at index >= from that starts with prefix, or -1. */
int tfl_kname_find_targ(const tfl_kname *k, int from, const char *prefix);
/* Template argument i as an element type ("float", "c10::Half", ...). */
int tfl_kname_targ_dtype(const tfl_kname *k, int i, tfl_dtype *dt);
/* First template argument at index >= from that is an element type, or -1. */
int tfl_kname_find_dtype(const tfl_kname *k, int from, tfl_dtype *dt);
/* Template argument i as an integer: "4", "2ul", "-1", "(unsigned char)3",
 * "true"/"false".  1 ok, 0 if it is not a constant. */
int tfl_kname_targ_int(const tfl_kname *k, int i, long long *v);
/* Is [s, s+n) a decimal integer, as the demangler writes an int constant
 * inside a template argument ("4", "-1"; no suffix, no cast)? */
int tfl_kname_decimal(const char *s, size_t n);
/* Are the template arguments other than the nused indices in used[] int or
 * bool constants (tfl_kname_targ_int)?  Callers accept such arguments only
 * where they tune the launch (threads, vector width, unrolling), never
 * what is computed, and say why.  0 too when the name has more than
 * TFL_KNAME_MAX arguments (the others were not seen). */
int tfl_kname_others_constant(const tfl_kname *k, const int *used, int nused);
/* Parameter i equals s / starts with prefix. */
int tfl_kname_param_is(const tfl_kname *k, int i, const char *s);
int tfl_kname_param_starts(const tfl_kname *k, int i, const char *prefix);

/* Copy [s, s+len) to out (outlen bytes, NUL-terminated) without the
 * namespaces that only version a library - cub's at_cuda_detail::,
 * thrust's THRUST_300001_..._NS:: (2.11) or _V_300200_...:: (2.15),
 * libcu++'s __4:: - so a pattern reads as the source spells it in every
 * release ("cub::NullType", "cuda::std::plus<void>").  0 if it does not
 * fit. */
int tfl_kname_unversioned_copy(const char *s, size_t len, char *out, size_t outlen);
/* Template argument i so copied; 0 if there is no such argument or it
 * does not fit. */
int tfl_kname_targ_unversioned(const tfl_kname *k, int i, char *out, size_t outlen);
/* The rank N when parameter i is a packed tensor accessor with
 * index_bits-bit indices (GenericPackedTensorAccessor<TensorAccessor<..>,
 * IndexBoundsCheck<N, I>, T, N, PtrTraits, I> with I int for 32, long for
 * 64: PackedTensorAccessor32/64<T, N>), else 0. */
int tfl_kname_accessor_rank(const tfl_kname *k, int i, int index_bits);

#endif

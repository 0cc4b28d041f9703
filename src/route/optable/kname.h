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
/* Parameter i equals s / starts with prefix. */
int tfl_kname_param_is(const tfl_kname *k, int i, const char *s);
int tfl_kname_param_starts(const tfl_kname *k, int i, const char *prefix);

#endif

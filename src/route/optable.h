/*
 * optable.h - the semantic op table: kernel name -> op family decoder.
 *
 * A PyTorch wheel ships its kernels as SASS only (docs/pytorch-wheel.md),
 * so a backend that is not an NVIDIA GPU can run them only by knowing what
 * they compute.  Each family (elementwise, reduce, softmax, ...) recognises
 * its kernels by mangled name, decodes the launch's arguments by the
 * kernel's known signature (docs/kernel-families.md) and runs them as
 * backend ops (tfl_route_op).  Anything no family claims runs from its PTX
 * in the host executor, as the fallback policy allows.
 *
 * Lookup happens once per kernel (the result is cached on the kernel);
 * run() happens per launch and must be cheap.
 */
#ifndef TFL_OPTABLE_H
#define TFL_OPTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "torchfl/backend.h"
#include "route/runtime.h"
#include "mem/mem.h"

/* One launch, as a family's decoder sees it. */
typedef struct tfl_kcall {
    const char *name;            /* mangled kernel name                 */
    unsigned grid[3], block[3];
    size_t smem;
    void **args;                 /* args[i] points at parameter i       */
    tfl_rt_stream *stream;
} tfl_kcall;

/* Parameter i of a launch as type T.  args[i] points into the caller's
 * argument storage, which need not be aligned for T: always copy. */
#define TFL_KARG(call, T, i) \
    ({ T v_; memcpy(&v_, (call)->args[i], sizeof v_); v_; })
/* A field of type T at byte offset off inside parameter i (a struct). */
#define TFL_KARG_AT(call, T, i, off) \
    ({ T v_; memcpy(&v_, (const char *)(call)->args[i] + (off), sizeof v_); v_; })

/* Is [p, p+n) device memory a decoded operand may touch?  (n = 0: yes.) */
static inline int tfl_kdev_ok(const void *p, size_t n)
{
    return tfl_mem_range_ok(p, n);
}

/* The parameters a decoder reads, in ordinal order: each one's size and
 * its byte offset in the parameter buffer (C ABI: aligned to the
 * parameter's alignment).  Checked against the parameter table the
 * kernel's own cubin records (.nv.info) - at test time for every kernel of
 * every supported wheel, and at a kernel's first launch - so that a
 * release that changes a kernel's signature fails a test, and a launch of
 * an unvalidated signature is refused instead of decoded as garbage. */
#define TFL_KLAYOUT_MAX 64
typedef struct tfl_klayout {
    int n;                       /* parameters; -1 after an overflow    */
    uint32_t size[TFL_KLAYOUT_MAX];
    uint32_t offset[TFL_KLAYOUT_MAX];
} tfl_klayout;

/* Append a parameter of this size and alignment. */
void tfl_klayout_add(tfl_klayout *l, size_t size, size_t align);
/* Append parameters from a signature: space-separated tokens
 *   p pointer, l int64/uint64/size_t, d double, i int32/uint32, f float,
 *   h 16-bit, b bool/char/1-byte enum,
 *   aN PackedTensorAccessor64<T,N> (8 + 16N bytes, align 8),
 *   AN PackedTensorAccessor32<T,N> (8 + 8N, align 8),
 *   S:A a struct of S bytes aligned to A ("272:8"),
 *   xK the previous token K more times ("p x3" = four pointers).
 * Returns 0, or -1 on a malformed signature (a bug: the tests catch it). */
int tfl_klayout_sig(tfl_klayout *l, const char *sig);
struct tfl_kfamily;
/* The layout as "offset:size offset:size ..." (the form tests and
 * `torchfl wheel` compare with the cubin's table).  Returns buf. */
char *tfl_klayout_text(const tfl_klayout *l, char *buf, size_t len);
/* The layout family f states for kernel `mangled`, as text: 1 when f
 * claims it and states one, else 0 with buf "" (the cookie is leaked:
 * match()'s cookies live as long as the process). */
int tfl_kfamily_layout_text(const struct tfl_kfamily *f, const char *mangled, char *buf,
                            size_t len);
/* Does the recorded table (n parameters) equal the layout?  1 yes; 0 no,
 * with why[] describing the first difference. */
int tfl_klayout_equal(const tfl_klayout *want, int n, const uint32_t *sizes,
                      const uint32_t *offsets, char *why, size_t whylen);

typedef struct tfl_kfamily {
    const char *name;            /* "elementwise", "reduce", ...        */
    /* 1 if this family runs kernels of this name.  *cookie may receive
     * what was parsed from the name; it lives as long as the process. */
    int (*match)(const char *mangled, void **cookie);
    /* Run one launch.  TFL_ERR_UNSUPPORTED if this launch cannot be
     * decoded (e.g. an unusual dtype): the caller falls back to the host
     * executor.  Other errors are final; err gets one line. */
    tfl_status (*run)(const tfl_kcall *call, void *cookie, char *err, size_t errlen);
    /* Short op name for statistics ("add", "fill", "sum"...). */
    const char *(*op_name)(void *cookie);
    /* The parameters run() reads for this kernel (cookie as match() set);
     * 0 with l->n = 0 when unknown, which makes every launch of it a
     * refusal: a decoder never reads an unvalidated signature. */
    int (*layout)(void *cookie, tfl_klayout *l);
} tfl_kfamily;

/* For match(): keep what it parsed from the name as the cookie - a heap
 * copy of the n bytes at c in *cookie, living as long as the process.  1,
 * or 0 when out of memory (the kernel is then not claimed). */
int tfl_kcookie_keep(const void *c, size_t n, void **cookie);

/* The family that runs kernel `mangled`, or NULL; *cookie as match() set. */
const tfl_kfamily *tfl_optable_lookup(const char *mangled, void **cookie);

/* Is op/family name listed in TORCH_FL_OP_BLACKLIST (forced to the host
 * executor)? */
int tfl_optable_blacklisted(const char *family, const char *op);

/* The families, one per file under src/route/optable/. */
extern const tfl_kfamily tfl_kfamily_elementwise;
extern const tfl_kfamily tfl_kfamily_reduce;
extern const tfl_kfamily tfl_kfamily_softmax;
extern const tfl_kfamily tfl_kfamily_loss;
extern const tfl_kfamily tfl_kfamily_embedding;
extern const tfl_kfamily tfl_kfamily_norm;
extern const tfl_kfamily tfl_kfamily_random;
extern const tfl_kfamily tfl_kfamily_foreach;
extern const tfl_kfamily tfl_kfamily_index;
extern const tfl_kfamily tfl_kfamily_attention;
extern const tfl_kfamily tfl_kfamily_scan;
extern const tfl_kfamily tfl_kfamily_sort;
extern const tfl_kfamily tfl_kfamily_batchnorm;
extern const tfl_kfamily tfl_kfamily_bucket;
extern const tfl_kfamily tfl_kfamily_distance;
extern const tfl_kfamily tfl_kfamily_conv;
extern const tfl_kfamily tfl_kfamily_spatial;
extern const tfl_kfamily tfl_kfamily_misc;
extern const tfl_kfamily tfl_kfamily_shape;
extern const tfl_kfamily tfl_kfamily_jagged;

#endif

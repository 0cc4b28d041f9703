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
    return n == 0 || (p && tfl_mem_check_range(p, n, NULL));
}

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
} tfl_kfamily;

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

#endif

/*
 * batchnorm_internal.h - shared pieces of the "batchnorm" family decoder
 * (batchnorm.c: the native batch/group norm kernels; batchnorm_map.c:
 * the TensorIterator lambdas of Normalization.cu and group_norm_kernel.cu).
 */
#ifndef TFL_BATCHNORM_INTERNAL_H
#define TFL_BATCHNORM_INTERNAL_H

#include "route/optable.h"

/* What match() parsed from a kernel name; lives for the process. */
typedef struct bn_kernel {
    int kind;          /* K_* in batchnorm.c, or K_MAP                     */
    int idx64;         /* accessor index_t is int64_t                      */
    int invstd;        /* collect_statistics: InvStd (else Var)            */
    int numel_form;    /* backward_elemt: (numel*, world_size) overload;
                          group norm moments: the 2.13+ seven-parameter form */
    int vec;           /* group norm *Contiguous* kernels (2.15): floats per
                          vector load; they read a row's first
                          (cols / vec) * vec elements only (else 1)         */
    int per_block;     /* group norm *ChannelsLast<n, ...> kernels (2.15): the
                          groups (SmallD moments) or channels (internal
                          gradients) one block covers; 0 for the others    */
    tfl_dtype in_dt, stat_dt;   /* native kernels: x and parameter types  */
    /* K_MAP */
    int form;          /* MAP_VEC, MAP_LEGACY, MAP_MULTI, MAP_MULTI_TRIVIAL */
    int code, flags, nout, nin;
    size_t fn_size;    /* bytes of the lambda                              */
    int fn_params;     /* captured floats: params[] read from the lambda   */
    size_t fn_off[3];  /* their offsets in the lambda                      */
    int rule;          /* K_MAP: index of its lambda rule (batchnorm_map.c) */
    tfl_dtype opdt[8]; /* K_MAP: outputs, then the lambda's arguments      */
    const char *name;  /* op name for statistics                           */
} bn_kernel;

enum { K_MAP = 100 };
enum { MAP_VEC = 1, MAP_LEGACY, MAP_LEGACY_CAST, MAP_MULTI, MAP_MULTI_TRIVIAL };

/* Recognise a Normalization.cu / group_norm_kernel.cu TensorIterator
 * lambda kernel by its parsed name; fills *k. */
struct tfl_kname;
int tfl_bn_map_match(const struct tfl_kname *name, bn_kernel *k);
/* The parameters tfl_bn_map_run reads for it. */
int tfl_bn_map_layout(const bn_kernel *k, tfl_klayout *l);
/* Decode and run one launch of such a kernel. */
tfl_status tfl_bn_map_run(const tfl_kcall *c, const bn_kernel *k, char *err, size_t errlen);

#endif

/*
 * batchnorm.c - the "batchnorm" kernel family of the semantic op table:
 * PyTorch's native batch norm kernels (Normalization.cuh) and group norm
 * kernels (group_norm_kernel.cu), recognised by structure (tfl_kname: base
 * name, parameter count, template arguments by what they are), with the
 * parameter layout of each (layout(); the sm_80 cubins of torch 2.11 -
 * 2.15 agree).  Torch 2.13 rewrote group norm's forward: its TensorIterator
 * lambdas are gone, the moments kernel gained two parameters (2.15 renamed
 * it RowwiseMomentsContiguousCUDAKernel) and ComputeFusedParamsCUDAKernel
 * the accumulate type as a template argument (same parameters).  Torch 2.15
 * replaced ComputeInternalGradientsCUDAKernel with
 * ComputeInternalGradientsContiguousCUDAKernel<vec, T> (same parameters
 * and sums; see below) and added kernels for channels-last inputs
 * (ChannelsLast / ChannelsLast3d: x[n][hw][c], c = g * D + d), decoded
 * onto the same ops (below; only 2.15 has them).
 *
 * Batch norm kernels take GenericPackedTensorAccessor<T, D, _, index_t>
 * by value: { T* data; index_t sizes[D]; index_t strides[D] } (elements),
 * 8 + 2*D*sizeof(index_t) bytes (32 for D = 3 / int, 16 for D = 1 / int;
 * 56 / 24 for int64_t), as the cubins' parameter tables say.  A "dummy"
 * accessor (undefined tensor) has data NULL and size 0.
 *
 *   collect_statistics<Var|InvStd, f, f, f, idx>(PTA3 in, float eps,
 *       float momentum, PTA1 mean, PTA1 var_or_invstd)        grid.x = C
 *   transform_input<f, f, f, train=1, idx>(PTA3 in, PTA3 out, PTA1 mean,
 *       PTA1 invstd, PTA1 weight, PTA1 bias, float eps)
 *   backward<f, f, f, idx>(PTA3 in, PTA3 dy, PTA3 dx, PTA1 dw, PTA1 db,
 *       PTA1 w, PTA1 running_mean, PTA1 running_var, PTA1 save_mean,
 *       PTA1 save_invstd, bool train, float eps)
 *   backward_reduce<f, f, f, idx>(PTA3 in, PTA3 dy, PTA1 mean, PTA1 invstd,
 *       PTA1 sum_dy, PTA1 sum_dy_xmu, PTA1 dw, PTA1 db)
 *   backward_elemt<f, f, f, idx>(PTA3 in, PTA3 dy, PTA1 mean, PTA1 invstd,
 *       PTA1 w, PTA1 sum_dy, PTA1 sum_dy_xmu, PTA3 dx, {float norm |
 *       const int* numel, int world_size})
 * Channels-last kernels take raw pointers over [reduction][stride]:
 *   collect_statistics_channels_last<V, f, f, 4>(in, mean, var, staging,
 *       semaphores, int reduction, int stride, float eps)
 *   transform_input_channels_last<f, f, f, 4>(in, z, mean, invstd, w,
 *       shift, out, int reduction, int stride, bool fuse_relu)
 *   backward_reduce_channels_last<4, f, f, f>(in, dy, mean, invstd,
 *       sum_dy, sum_dy_xmu, dw, db, staging, semaphores, int red, int stride)
 *   backward_elemt_channels_last<4, f, f, f>(dy, in, mean, invstd, w,
 *       sum_dy, sum_dy_xmu, {dx, float norm | numel, dx, long world},
 *       int red, int stride)
 * Group norm (T = float; rows are N*G groups of D*HxW elements):
 *   RowwiseMomentsCUDAKernel(int64 n, float eps, X, mean, rstd[, acc*, acc*
 *       (2.13+, not read for float)])                     grid.x = rows
 *   ComputeFusedParamsCUDAKernel(N, C, G, mean, rstd, gamma, beta, a, b)
 *   ComputeInternalGradientsCUDAKernel(HxW, dY, X, ds, db)      grid.x = N*C
 *       ds[r] = sum dY * X, db[r] = sum dY over row r = blockIdx.x of HxW
 *   ComputeInternalGradientsContiguousCUDAKernel<vec>(HxW, dY, X, ds, db)
 *       (2.15) the same with vec-float loads over the row's first
 *       (HxW / vec) * vec elements (no tail loop: the launcher picks vec 4
 *       only when HxW divides; the decoder sums exactly those elements)
 *   ComputeBackwardFusedParamsCUDAKernel(C, HxW, G, mean, rstd, gamma, ds,
 *       db, c2, c3)                                       grid = (N, G)
 *   Compute1dBackwardFusedParamsCUDAKernel(C, G, dY, X, mean, rstd, gamma,
 *       c2, c3)                                           grid = (N, G)
 *   GammaBeta[1d]BackwardCUDAKernel{1,2}(N, C, G, mean, rstd, ds, db, dg, dbeta)
 *       (1d: N, C, G, dY, X, mean, rstd, dg, dbeta)
 * Group norm, channels last (2.15; x[n][hw][c] with c = g * D + d; sm_80
 * SASS of the float instances read for each; the acc pointers are not
 * touched for float, as in the moments kernels above):
 *   RowwiseMomentsChannelsLastCUDAKernel<f, f>(int64 N, C, HxW, D, float
 *       eps, X, mean, rstd, acc*, acc*)                   grid.x = N*(C/D)
 *       block ng = n * G + g (G = C / D, computed; N is not read): Welford
 *       moments of x[n][hw][g*D + d] over hw < HxW, d < D; mean[ng],
 *       rstd[ng] = rsqrt(var + eps) (biased var), as RowwiseMoments
 *   RowwiseMomentsChannelsLastSmallDCUDAKernel<GPB, f, f>(int64 C, HxW, D,
 *       G, float eps, X, mean, rstd, acc*, acc*)   grid.x = N*ceil(G/GPB)
 *       the same moments, GPB groups per block: block b is batch
 *       n = b / ceil(G/GPB), groups from (b % ceil(G/GPB)) * GPB (those
 *       < G); thread t reads channel lane t % (GPB*D) of every
 *       (blockDim / (GPB*D))-th hw into a 256-entry shared array (6144
 *       bytes: 256 Welford triples), then threads < GPB combine their
 *       group's lanes - so 1 <= blockDim/(GPB*D) and blockDim <= 256
 *   ComputeInternalGradientsChannelsLastCUDAKernel<CPB, f>(int64 C, HxW,
 *       dY, X, ds, db)                             grid.x = N*ceil(C/CPB)
 *       ds[n*C + c] = sum_hw dY*X, db[n*C + c] = sum_hw dY over
 *       x[n][hw][c]; CPB channels per block (the same lane scheme, 256
 *       floats of shared memory per sum: blockDim in [CPB, 256])
 *   ComputeInternalGradientsChannelsLastFallbackCUDAKernel<f>(int64 C,
 *       HxW, dY, X, ds, db)     grid.x = N*C, block nc: n = nc / C, c = nc % C
 *   GroupNormBackwardChannelsLastCUDAKernel<index_t, f, f>(index_t numel,
 *       G, IntDivider<index_t> C, HxW, D, dY, X, rstd, gamma, c2, c3, dX)
 *       grid-stride over index < numel: c = index % C, n = index / C / HxW,
 *       ng = n * G + c / D;  dX = rstd[ng] * gamma[c] * dY + c2[ng] * X +
 *       c3[ng] (gamma NULL: 1).  index_t unsigned int: IntDivider is
 *       { divisor, m1, shift } (12 bytes) and the kernel divides by the
 *       magic m1 / shift only (IMAD.HI + SHF), long: { divisor } (8 bytes,
 *       a true division)
 * The moments run as TFL_BN_STATS and the sums as TFL_BN_BACKWARD_REDUCE
 * (mean 0), one op per batch n (a group's elements are [hw][d] at strides
 * (C, 1), its statistics n*G + g: no one [n][c][l] view holds two
 * batches); dX is a TFL_BN_MAP AFFINE3 over [n][hw][g][d].
 * The TensorIterator lambdas of the same files are in batchnorm_map.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/batchnorm_internal.h"
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"

enum {
    K_COLLECT = 1, K_TRANSFORM, K_BACKWARD, K_BWD_REDUCE, K_BWD_ELEMT,
    K_CL_COLLECT, K_CL_TRANSFORM, K_CL_BWD_REDUCE, K_CL_BWD_ELEMT,
    K_GN_MOMENTS, K_GN_FUSED, K_GN_INTERNAL_GRADS, K_GN_BWD_PARAMS, K_GN_BWD_PARAMS_1D,
    K_GN_GAMMA_BETA, K_GN_GAMMA_BETA_1D,
    K_GN_MOMENTS_CL, K_GN_MOMENTS_CL_SMALLD, K_GN_INTERNAL_GRADS_CL, K_GN_BWD_CL,
};

/* The native kernels by base name; nparams / nparams_numel: their
 * parameter counts (the backward_elemt kernels have a second overload,
 * (..., const int *numel, int world_size) instead of the float norm). */
static const struct {
    const char *base;
    int kind;
    const char *name;
    int nparams, nparams_numel;
} native[] = {
    { "batch_norm_collect_statistics_kernel", K_COLLECT, "batch_norm_stats", 5, 0 },
    { "batch_norm_transform_input_kernel", K_TRANSFORM, "batch_norm_apply", 7, 0 },
    { "batch_norm_backward_kernel", K_BACKWARD, "batch_norm_backward", 12, 0 },
    { "batch_norm_backward_reduce_kernel", K_BWD_REDUCE, "batch_norm_backward_reduce", 8, 0 },
    { "batch_norm_backward_elemt_kernel", K_BWD_ELEMT, "batch_norm_backward_elemt", 9, 10 },
    { "batch_norm_collect_statistics_channels_last_kernel", K_CL_COLLECT, "batch_norm_stats", 8, 0 },
    { "batch_norm_transform_input_channels_last_kernel", K_CL_TRANSFORM, "batch_norm_apply", 10, 0 },
    { "batch_norm_backward_reduce_channels_last_kernel", K_CL_BWD_REDUCE, "batch_norm_backward_reduce", 12, 0 },
    { "batch_norm_backward_elemt_channels_last_kernel", K_CL_BWD_ELEMT, "batch_norm_backward_elemt", 11, 12 },
};

/* float, c10::Half or c10::BFloat16 */
static int fp_type(const tfl_kname *kn, int i, tfl_dtype *dt)
{
    return tfl_kname_targ_dtype(kn, i, dt) &&
           (*dt == TFL_DT_F32 || *dt == TFL_DT_F16 || *dt == TFL_DT_BF16);
}

/* The template arguments of a native batch norm kernel:
 *   collect_statistics<VarTransform, in, stat, acc, index>
 *   transform_input<in, stat, acc, train, index>
 *   backward / backward_reduce / backward_elemt<in, stat, acc, index>
 *   collect_statistics_channels_last<VarTransform, in, acc, vec>
 *   transform_input_channels_last<in, acc, layer, vec>
 *   backward_{reduce,elemt}_channels_last<vec, in, acc, layer>
 * acc must be float; in and stat (layer) float, Half or BFloat16; vec
 * (items per thread) only shapes the loop. */
static int parse_types(const tfl_kname *kn, bn_kernel *k)
{
    const int na = kn->ntargs;
    int ii = -1, is = -1, ia = -1, iv = -1, ix = -1, ic = -1;
    switch (k->kind) {
    case K_COLLECT:      if (na == 5) { iv = 0; ii = 1; is = 2; ia = 3; ix = 4; } break;
    case K_TRANSFORM:    if (na == 5 && tfl_kname_targ_is(kn, 3, "true")) { ii = 0; is = 1; ia = 2; ix = 4; } break;
    case K_BACKWARD:
    case K_BWD_REDUCE:
    case K_BWD_ELEMT:    if (na == 4) { ii = 0; is = 1; ia = 2; ix = 3; } break;
    case K_CL_COLLECT:   if (na == 4) { iv = 0; ii = 1; ia = 2; ic = 3; } break;
    case K_CL_TRANSFORM: if (na == 4) { ii = 0; ia = 1; is = 2; ic = 3; } break;
    default:             if (na == 4) { ic = 0; ii = 1; ia = 2; is = 3; } break;
    }
    tfl_dtype acc = TFL_DT_F32;
    long long v;
    k->stat_dt = TFL_DT_F32;
    if (ii < 0 || !fp_type(kn, ii, &k->in_dt) || !fp_type(kn, ia, &acc) || acc != TFL_DT_F32 ||
        (is >= 0 && !fp_type(kn, is, &k->stat_dt)) || (ic >= 0 && !tfl_kname_targ_int(kn, ic, &v)))
        return 0;
    if (iv >= 0) {
        if (tfl_kname_targ_is(kn, iv, "InvStd"))
            k->invstd = 1;
        else if (!tfl_kname_targ_is(kn, iv, "Var"))
            return 0;
    }
    if (ix >= 0) {
        if (tfl_kname_targ_is(kn, ix, "long"))
            k->idx64 = 1;
        else if (!tfl_kname_targ_is(kn, ix, "int"))
            return 0;
    }
    return 1;
}

/* group_norm_kernel.cu's kernels, float only.  `targs` is the template
 * argument list: "f" <float>, "ff" <float, float> (the accumulate type
 * became an argument), "n" the index type, unsigned int or long (the
 * channels-last backward's: its IntDivider layout, decoded for both),
 * "iff" / "if" <k, float[, float]>: k is the 2.15 ChannelsLast kernels'
 * groups / channels per block (which block covers what, so the decoder
 * reads it to find N from the grid; header comment) or the Contiguous
 * kernels' vector width: floats per load; their loops read
 * (cols / vec) * vec elements of a row and no tail - sm_80 SASS of the
 * <4, ...> instances: LDG.E.128 only, trip count cols >> 2 - which the
 * decoder reproduces, so any width is decoded exactly).  RowwiseMomentsCUDAKernel<float> is group
 * norm's; layer norm's namesake has three arguments.  Form 1: the moments
 * kernels of torch 2.13+ - RowwiseMomentsCUDAKernel<float, float> (2.13,
 * 2.14), RowwiseMomentsContiguousCUDAKernel<vec, float, float> (2.15) -
 * take two more accumulate-type pointers, which for float they never
 * touch (sm_80 SASS: only mean and rstd are stored, the same per-row
 * Welford moments and rsqrt(var + eps) as 2.11's kernel, one row per
 * block). */
static const struct {
    const char *base;
    int kind;
    const char *name;
    int nparams;
    const char *targs;
    int form;
} gn[] = {
    { "RowwiseMomentsCUDAKernel", K_GN_MOMENTS, "group_norm_stats", 5, "f", 0 },
    { "RowwiseMomentsCUDAKernel", K_GN_MOMENTS, "group_norm_stats", 7, "ff", 1 },
    { "RowwiseMomentsContiguousCUDAKernel", K_GN_MOMENTS, "group_norm_stats", 7, "iff", 1 },
    { "ComputeFusedParamsCUDAKernel", K_GN_FUSED, "group_norm_params", 9, "f", 0 },
    { "ComputeFusedParamsCUDAKernel", K_GN_FUSED, "group_norm_params", 9, "ff", 0 },
    { "ComputeInternalGradientsCUDAKernel", K_GN_INTERNAL_GRADS, "group_norm_backward_sums", 5, "f", 0 },
    { "ComputeInternalGradientsContiguousCUDAKernel", K_GN_INTERNAL_GRADS, "group_norm_backward_sums", 5, "if", 0 },
    { "ComputeBackwardFusedParamsCUDAKernel", K_GN_BWD_PARAMS, "group_norm_backward_params", 10, "f", 0 },
    { "Compute1dBackwardFusedParamsCUDAKernel", K_GN_BWD_PARAMS_1D, "group_norm_backward_params", 9, "f", 0 },
    { "GammaBetaBackwardCUDAKernel1", K_GN_GAMMA_BETA, "group_norm_backward_gamma_beta", 9, "f", 0 },
    { "GammaBetaBackwardCUDAKernel2", K_GN_GAMMA_BETA, "group_norm_backward_gamma_beta", 9, "f", 0 },
    { "GammaBeta1dBackwardCUDAKernel1", K_GN_GAMMA_BETA_1D, "group_norm_backward_gamma_beta", 9, "f", 0 },
    { "GammaBeta1dBackwardCUDAKernel2", K_GN_GAMMA_BETA_1D, "group_norm_backward_gamma_beta", 9, "f", 0 },
    { "RowwiseMomentsChannelsLastCUDAKernel", K_GN_MOMENTS_CL, "group_norm_stats", 10, "ff", 0 },
    { "RowwiseMomentsChannelsLastSmallDCUDAKernel", K_GN_MOMENTS_CL_SMALLD, "group_norm_stats", 10, "iff", 0 },
    { "ComputeInternalGradientsChannelsLastCUDAKernel", K_GN_INTERNAL_GRADS_CL, "group_norm_backward_sums", 6, "if", 0 },
    { "ComputeInternalGradientsChannelsLastFallbackCUDAKernel", K_GN_INTERNAL_GRADS_CL, "group_norm_backward_sums", 6, "f", 0 },
    { "GroupNormBackwardChannelsLastCUDAKernel", K_GN_BWD_CL, "group_norm_backward_elemt", 12, "nff", 0 },
};

/* The largest int template argument taken (the wheels have vector widths
 * 1 and 4, 4 groups and 16 channels per block). */
#define GN_MAX_TARG 16

/* The template arguments read as `pattern` into k: 'f' float, 'n' the
 * index type (k->idx64), 'i' an int 1..GN_MAX_TARG - the vector width
 * (k->vec, else 1) or, for the ChannelsLast kinds, k->per_block (else 0). */
static int targs_are(const tfl_kname *kn, const char *pattern, int kind, bn_kernel *k)
{
    long long v;
    int n = (int)strlen(pattern);
    k->vec = 1;
    k->per_block = 0;
    k->idx64 = 0;
    if (kn->ntargs != n)
        return 0;
    for (int i = 0; i < n; i++) {
        if (pattern[i] == 'f') {
            if (!tfl_kname_targ_is(kn, i, "float"))
                return 0;
        } else if (pattern[i] == 'n') {
            if (tfl_kname_targ_is(kn, i, "long"))
                k->idx64 = 1;
            else if (!tfl_kname_targ_is(kn, i, "unsigned int"))
                return 0;
        } else if (!tfl_kname_targ_int(kn, i, &v) || v < 1 || v > GN_MAX_TARG) {
            return 0;
        } else if (kind == K_GN_MOMENTS_CL_SMALLD || kind == K_GN_INTERNAL_GRADS_CL) {
            k->per_block = (int)v;
        } else {
            k->vec = (int)v;
        }
    }
    return 1;
}

/* GroupNormBackwardChannelsLastCUDAKernel's parameters 2..4 are the
 * IntDividers whose fields the decoder reads. */
static int dividers_are(const tfl_kname *kn)
{
    for (int i = 2; i <= 4; i++)
        if (!tfl_kname_param_starts(kn, i, "at::cuda::detail::IntDivider<"))
            return 0;
    return 1;
}

static int keep(const bn_kernel *k, void **cookie)
{
    return tfl_kcookie_keep(k, sizeof *k, cookie);
}

static int match_kname(const tfl_kname *kn, bn_kernel *k)
{
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < sizeof native / sizeof native[0]; i++) {
        if (!tfl_kname_is(kn, native[i].base))
            continue;
        if (kn->nparams != native[i].nparams && kn->nparams != native[i].nparams_numel)
            return 0;
        k->kind = native[i].kind;
        k->name = native[i].name;
        k->numel_form = kn->nparams == native[i].nparams_numel;
        return parse_types(kn, k);
    }
    for (size_t i = 0; i < sizeof gn / sizeof gn[0]; i++) {
        if (!tfl_kname_is(kn, gn[i].base) || kn->nparams != gn[i].nparams ||
            !targs_are(kn, gn[i].targs, gn[i].kind, k) ||
            (gn[i].kind == K_GN_BWD_CL && !dividers_are(kn)))
            continue;
        k->kind = gn[i].kind;
        k->name = gn[i].name;
        k->numel_form = gn[i].form;      /* (the moments kernels' form) */
        return 1;
    }
    return tfl_bn_map_match(kn, k);
}

static int match(const char *m, void **cookie)
{
    /* cheap filter: the native kernels and the lambdas' loops are in
     * at::native */
    if (strncmp(m, "_ZN2at6native", 13) != 0)
        return 0;
    tfl_kname kn;
    if (tfl_kname_parse(m, &kn) != 0)
        return 0;
    bn_kernel k;
    int ok = match_kname(&kn, &k);
    tfl_kname_free(&kn);
    return ok && keep(&k, cookie);
}

/* The parameters run() reads, per kind (the signatures in the header
 * comment): GenericPackedTensorAccessor<T, D, _, index_t> is "A<D>" for
 * int32 indices (8 + 8D bytes), "a<D>" for int64 (8 + 16D). */
static int layout(void *cookie, tfl_klayout *l)
{
    const bn_kernel *k = cookie;
    if (k->kind == K_MAP)
        return tfl_bn_map_layout(k, l);
    char sig[64];
    const char a = k->idx64 ? 'a' : 'A';
    switch (k->kind) {
    case K_COLLECT:       snprintf(sig, sizeof sig, "%c3 f f %c1 %c1", a, a, a); break;
    case K_TRANSFORM:     snprintf(sig, sizeof sig, "%c3 %c3 %c1 x3 f", a, a, a); break;
    case K_BACKWARD:      snprintf(sig, sizeof sig, "%c3 x2 %c1 x6 b f", a, a); break;
    case K_BWD_REDUCE:    snprintf(sig, sizeof sig, "%c3 %c3 %c1 x5", a, a, a); break;
    case K_BWD_ELEMT:     snprintf(sig, sizeof sig, "%c3 %c3 %c1 x4 %c3 %s", a, a, a, a,
                                   k->numel_form ? "p i" : "f"); break;
    case K_CL_COLLECT:    snprintf(sig, sizeof sig, "p x4 i i f"); break;
    case K_CL_TRANSFORM:  snprintf(sig, sizeof sig, "p x6 i i b"); break;
    case K_CL_BWD_REDUCE: snprintf(sig, sizeof sig, "p x9 i i"); break;
    case K_CL_BWD_ELEMT:  snprintf(sig, sizeof sig, "%s", k->numel_form ? "p x8 l i i" : "p x7 f i i"); break;
    case K_GN_MOMENTS:    /* (int64 n, float eps, X, mean, rstd[, two unused pointers]) */
                          snprintf(sig, sizeof sig, "l f p x%d", k->numel_form ? 4 : 2); break;
    case K_GN_INTERNAL_GRADS: snprintf(sig, sizeof sig, "l p x3"); break;
    case K_GN_FUSED:
    case K_GN_GAMMA_BETA:
    case K_GN_GAMMA_BETA_1D: snprintf(sig, sizeof sig, "l x2 p x5"); break;
    case K_GN_BWD_PARAMS: snprintf(sig, sizeof sig, "l x2 p x6"); break;
    case K_GN_BWD_PARAMS_1D: snprintf(sig, sizeof sig, "l l p x6"); break;
    case K_GN_MOMENTS_CL:
    case K_GN_MOMENTS_CL_SMALLD:  /* (4 int64, float eps, X, mean, rstd, two unused) */
                          snprintf(sig, sizeof sig, "l x3 f p x4"); break;
    case K_GN_INTERNAL_GRADS_CL: snprintf(sig, sizeof sig, "l l p x3"); break;
    case K_GN_BWD_CL:     /* (numel, G, IntDivider x3, 7 pointers): IntDivider<unsigned>
                           * { divisor, m1, shift }, IntDivider<long> { divisor } */
                          snprintf(sig, sizeof sig, "%s", k->idx64 ? "l x4 p x6" : "i i 12:4 x2 p x6");
                          break;
    default:              return 0;
    }
    return tfl_klayout_sig(l, sig) == 0;
}

static const char *op_name(void *cookie)
{
    return ((const bn_kernel *)cookie)->name;
}

/* ------------------------------------------------------ accessor reading */

typedef struct pta {
    void *data;
    int64_t size[3], stride[3];
} pta;

/* GenericPackedTensorAccessor<T, dims, _, index_t> at parameter i. */
static pta read_pta(const tfl_kcall *c, int i, int dims, int idx64)
{
    pta a;
    memset(&a, 0, sizeof a);
    const char *p = c->args[i];
    memcpy(&a.data, p, 8);
    for (int d = 0; d < dims; d++) {
        if (idx64) {
            memcpy(&a.size[d], p + 8 + 8 * d, 8);
            memcpy(&a.stride[d], p + 8 + 8 * dims + 8 * d, 8);
        } else {
            int32_t s, t;
            memcpy(&s, p + 8 + 4 * d, 4);
            memcpy(&t, p + 8 + 4 * dims + 4 * d, 4);
            a.size[d] = s;
            a.stride[d] = t;
        }
    }
    return a;
}

/* Bytes spanned by a strided view of float elements (0 if empty). */
static int64_t span3(const int64_t *size, const int64_t *stride, size_t es)
{
    int64_t hi = 0;
    for (int d = 0; d < 3; d++) {
        if (size[d] == 0)
            return 0;
        if (stride[d] < 0)
            return -1;
        hi += (size[d] - 1) * stride[d];
    }
    return (hi + 1) * (int64_t)es;
}

/* A float vector of `need` elements from a 1-d accessor, or NULL when the
 * accessor is a dummy (size 0); *bad set when it is neither. */
static float *vec(const pta *a, int64_t need, size_t es, int *bad)
{
    if (a->size[0] == 0 || !a->data)
        return NULL;
    if (a->size[0] < need || a->stride[0] != 1 || !tfl_kdev_ok(a->data, (size_t)need * es))
        *bad = 1;
    return a->data;
}

/* Is a 3-d accessor usable: same shape as `ref`, its memory live. */
static int view_ok(const pta *a, const pta *ref, size_t es)
{
    for (int d = 0; d < 3; d++)
        if (a->size[d] != ref->size[d])
            return 0;
    int64_t b = span3(a->size, a->stride, es);
    return b >= 0 && tfl_kdev_ok(a->data, (size_t)b);
}

static void set_view(tfl_batchnorm_op *o, const pta *x)
{
    o->n = x->size[0];
    o->c = x->size[1];
    o->l = x->size[2];
}

static tfl_status finish(const tfl_kcall *c, tfl_op *op, int bad, char *err, size_t errlen)
{
    if (bad) {
        snprintf(err, errlen, "%s: an operand (%lld x %lld x %lld) is not in device memory",
                 op->name, (long long)op->u.batchnorm.n, (long long)op->u.batchnorm.c,
                 (long long)op->u.batchnorm.l);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op->name, (int)st);
    return st;
}

/* ------------------------------------------------------ NCHW (accessors) */

static tfl_status run_accessor(const tfl_kcall *c, const bn_kernel *k, tfl_op *op,
                               char *err, size_t errlen)
{
    tfl_batchnorm_op *o = &op->u.batchnorm;
    const int i64 = k->idx64;
    int bad = 0;
    const size_t ei = tfl_dtype_size(k->in_dt), ss = tfl_dtype_size(k->stat_dt);
    o->dtype = k->in_dt;
    o->stat_dtype = k->stat_dt;
    pta x = read_pta(c, 0, 3, i64);
    set_view(o, &x);
    if (x.size[0] < 0 || x.size[1] < 0 || x.size[2] < 0) {
        snprintf(err, errlen, "%s: bad shape", op->name);
        return TFL_ERR_INVALID;
    }
    bad |= !view_ok(&x, &x, ei);
    o->x = x.data;
    memcpy(o->x_stride, x.stride, sizeof o->x_stride);
    const int64_t C = x.size[1];
    switch (k->kind) {
    case K_COLLECT: {
        o->kind = TFL_BN_STATS;
        o->eps = TFL_KARG(c, float, 1);
        pta m = read_pta(c, 3, 1, i64), v = read_pta(c, 4, 1, i64);
        o->mean = vec(&m, C, 4, &bad);
        o->out2 = vec(&v, C, 4, &bad);
        o->stats_mode = k->invstd ? TFL_BN_STATS_INVSTD : TFL_BN_STATS_VAR;
        break;
    }
    case K_TRANSFORM: {
        o->kind = TFL_BN_APPLY;
        pta y = read_pta(c, 1, 3, i64);
        pta m = read_pta(c, 2, 1, i64), s = read_pta(c, 3, 1, i64);
        pta w = read_pta(c, 4, 1, i64), b = read_pta(c, 5, 1, i64);
        bad |= !view_ok(&y, &x, ei);
        o->y = y.data;
        memcpy(o->y_stride, y.stride, sizeof o->y_stride);
        o->mean = vec(&m, C, 4, &bad);
        o->invstd = vec(&s, C, 4, &bad);
        o->weight = vec(&w, C, ss, &bad);
        o->bias = vec(&b, C, ss, &bad);
        if (!o->mean || !o->invstd)
            bad = 1;
        break;
    }
    case K_BACKWARD: {
        o->kind = TFL_BN_BACKWARD;
        pta dy = read_pta(c, 1, 3, i64), dx = read_pta(c, 2, 3, i64);
        pta gw = read_pta(c, 3, 1, i64), gb = read_pta(c, 4, 1, i64), w = read_pta(c, 5, 1, i64);
        pta rm = read_pta(c, 6, 1, i64), rv = read_pta(c, 7, 1, i64);
        pta sm = read_pta(c, 8, 1, i64), si = read_pta(c, 9, 1, i64);
        o->train = TFL_KARG(c, uint8_t, 10) != 0;
        o->eps = TFL_KARG(c, float, 11);
        bad |= !view_ok(&dy, &x, ei);
        o->dy = dy.data;
        memcpy(o->dy_stride, dy.stride, sizeof o->dy_stride);
        if (dx.data) {
            bad |= !view_ok(&dx, &x, ei);
            o->dx = dx.data;
            memcpy(o->dx_stride, dx.stride, sizeof o->dx_stride);
        }
        o->grad_weight = vec(&gw, C, ss, &bad);
        o->grad_bias = vec(&gb, C, ss, &bad);
        o->weight = vec(&w, C, ss, &bad);
        if (o->train) {
            o->mean = vec(&sm, C, 4, &bad);
            o->invstd = vec(&si, C, 4, &bad);
            if (!o->mean || !o->invstd)
                bad = 1;
        } else {
            o->running_mean = vec(&rm, C, ss, &bad);
            o->running_var = vec(&rv, C, ss, &bad);
            if (!o->running_mean || !o->running_var)
                bad = 1;
        }
        break;
    }
    case K_BWD_REDUCE: {
        o->kind = TFL_BN_BACKWARD_REDUCE;
        pta dy = read_pta(c, 1, 3, i64);
        pta m = read_pta(c, 2, 1, i64), s = read_pta(c, 3, 1, i64);
        pta sdy = read_pta(c, 4, 1, i64), sdx = read_pta(c, 5, 1, i64);
        pta gw = read_pta(c, 6, 1, i64), gb = read_pta(c, 7, 1, i64);
        bad |= !view_ok(&dy, &x, ei);
        o->dy = dy.data;
        memcpy(o->dy_stride, dy.stride, sizeof o->dy_stride);
        o->mean = vec(&m, C, 4, &bad);
        o->invstd = vec(&s, C, 4, &bad);
        o->sum_dy = vec(&sdy, C, 4, &bad);
        o->sum_dy_xmu = vec(&sdx, C, 4, &bad);
        o->grad_weight = vec(&gw, C, ss, &bad);
        o->grad_bias = vec(&gb, C, ss, &bad);
        if (!o->mean || (o->grad_weight && !o->invstd))
            bad = 1;
        break;
    }
    case K_BWD_ELEMT: {
        o->kind = TFL_BN_BACKWARD_ELEMT;
        pta dy = read_pta(c, 1, 3, i64);
        pta m = read_pta(c, 2, 1, i64), s = read_pta(c, 3, 1, i64), w = read_pta(c, 4, 1, i64);
        pta sdy = read_pta(c, 5, 1, i64), sdx = read_pta(c, 6, 1, i64);
        pta dx = read_pta(c, 7, 3, i64);
        bad |= !view_ok(&dy, &x, ei) || !view_ok(&dx, &x, ei);
        o->dy = dy.data;
        memcpy(o->dy_stride, dy.stride, sizeof o->dy_stride);
        o->dx = dx.data;
        memcpy(o->dx_stride, dx.stride, sizeof o->dx_stride);
        o->mean = vec(&m, C, 4, &bad);
        o->invstd = vec(&s, C, 4, &bad);
        o->weight = vec(&w, C, ss, &bad);
        o->sum_dy = vec(&sdy, C, 4, &bad);
        o->sum_dy_xmu = vec(&sdx, C, 4, &bad);
        if (!o->mean || !o->invstd || !o->sum_dy || !o->sum_dy_xmu)
            bad = 1;
        if (k->numel_form) {
            const int32_t *numel = TFL_KARG(c, const int32_t *, 8);
            int32_t world = TFL_KARG(c, int32_t, 9);
            if (world < 0 || !tfl_kdev_ok(numel, (size_t)world * 4)) {
                bad = 1;
                break;
            }
            int64_t total = 0;
            for (int32_t i = 0; i < world; i++)
                total += numel[i];
            o->norm = (float)(1.0f / (float)total);
        } else {
            o->norm = TFL_KARG(c, float, 8);
        }
        break;
    }
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (o->n * o->c * o->l == 0 && k->kind != K_BACKWARD && k->kind != K_BWD_REDUCE)
        return TFL_OK;
    return finish(c, op, bad, err, errlen);
}

/* ------------------------------------------------------ channels last */

static tfl_status run_channels_last(const tfl_kcall *c, const bn_kernel *k, tfl_op *op,
                                    char *err, size_t errlen)
{
    tfl_batchnorm_op *o = &op->u.batchnorm;
    int red_i, stride_i;
    switch (k->kind) {
    case K_CL_COLLECT:    red_i = 5; stride_i = 6; break;
    case K_CL_TRANSFORM:  red_i = 7; stride_i = 8; break;
    case K_CL_BWD_REDUCE: red_i = 10; stride_i = 11; break;
    default:              /* elemt: (..., numel, dx, long world | dx, float norm) */
        red_i = k->numel_form ? 10 : 9;
        stride_i = red_i + 1;
        break;
    }
    const int64_t R = TFL_KARG(c, int32_t, red_i), C = TFL_KARG(c, int32_t, stride_i);
    if (R < 0 || C < 0) {
        snprintf(err, errlen, "%s: bad shape %lld x %lld", op->name, (long long)R, (long long)C);
        return TFL_ERR_INVALID;
    }
    o->n = R;
    o->c = C;
    o->l = 1;
    const int64_t st[3] = { C, 1, 0 };
    memcpy(o->x_stride, st, sizeof st);
    memcpy(o->y_stride, st, sizeof st);
    memcpy(o->dy_stride, st, sizeof st);
    memcpy(o->dx_stride, st, sizeof st);
    const size_t ei = tfl_dtype_size(k->in_dt), ss = tfl_dtype_size(k->stat_dt);
    const size_t mat = (size_t)(R * C) * ei, v = (size_t)C * 4, vs = (size_t)C * ss;
    o->dtype = k->in_dt;
    o->stat_dtype = k->stat_dt;
    int bad = 0;
#define P(i) TFL_KARG(c, float *, i)
#define VEC(p, opt) do { if ((p) ? !tfl_kdev_ok((p), v) : !(opt)) bad = 1; } while (0)
#define SVEC(p, opt) do { if ((p) ? !tfl_kdev_ok((p), vs) : !(opt)) bad = 1; } while (0)
    switch (k->kind) {
    case K_CL_COLLECT:
        o->kind = TFL_BN_STATS;
        o->x = P(0);
        o->mean = P(1);
        o->out2 = P(2);
        o->eps = TFL_KARG(c, float, 7);
        o->stats_mode = k->invstd ? TFL_BN_STATS_INVSTD : TFL_BN_STATS_VAR;
        bad |= !tfl_kdev_ok(o->x, mat);
        VEC(o->mean, 1);
        VEC(o->out2, 1);
        break;
    case K_CL_TRANSFORM:
        if (P(1) || TFL_KARG(c, uint8_t, 9))
            return TFL_ERR_UNSUPPORTED;    /* fused residual add / ReLU */
        o->kind = TFL_BN_APPLY;
        o->x = P(0);
        o->mean = P(2);
        o->invstd = P(3);
        o->weight = P(4);
        o->bias = P(5);
        o->y = P(6);
        bad |= !tfl_kdev_ok(o->x, mat) || !tfl_kdev_ok(o->y, mat);
        VEC(o->mean, 0);
        VEC(o->invstd, 0);
        SVEC((float *)o->weight, 1);
        SVEC((float *)o->bias, 1);
        break;
    case K_CL_BWD_REDUCE:
        o->kind = TFL_BN_BACKWARD_REDUCE;
        o->x = P(0);
        o->dy = P(1);
        o->mean = P(2);
        o->invstd = P(3);
        o->sum_dy = P(4);
        o->sum_dy_xmu = P(5);
        o->grad_weight = P(6);
        o->grad_bias = P(7);
        bad |= !tfl_kdev_ok(o->x, mat) || !tfl_kdev_ok(o->dy, mat);
        VEC(o->mean, 0);
        VEC(o->invstd, !o->grad_weight);
        VEC(o->sum_dy, 1);
        VEC(o->sum_dy_xmu, 1);
        SVEC(o->grad_weight, 1);
        SVEC(o->grad_bias, 1);
        break;
    default:
        o->kind = TFL_BN_BACKWARD_ELEMT;
        o->dy = P(0);
        o->x = P(1);
        o->mean = P(2);
        o->invstd = P(3);
        o->weight = P(4);
        o->sum_dy = P(5);
        o->sum_dy_xmu = P(6);
        if (k->numel_form) {
            const int32_t *numel = TFL_KARG(c, const int32_t *, 7);
            o->dx = P(8);
            int64_t world = TFL_KARG(c, int64_t, 9);
            if (world < 0 || world > (1 << 20) || !tfl_kdev_ok(numel, (size_t)world * 4)) {
                bad = 1;
                break;
            }
            int64_t total = 0;
            for (int64_t i = 0; i < world; i++)
                total += numel[i];
            o->norm = 1.0f / (float)total;
        } else {
            o->dx = P(7);
            o->norm = TFL_KARG(c, float, 8);
        }
        bad |= !tfl_kdev_ok(o->x, mat) || !tfl_kdev_ok(o->dy, mat) || !tfl_kdev_ok(o->dx, mat);
        VEC(o->mean, 0);
        VEC(o->invstd, 0);
        SVEC((float *)o->weight, 1);
        VEC(o->sum_dy, 0);
        VEC(o->sum_dy_xmu, 0);
        break;
    }
#undef P
#undef VEC
#undef SVEC
    if (R * C == 0)
        return TFL_OK;
    return finish(c, op, bad, err, errlen);
}

/* ------------------------------------------------------ group norm */

static tfl_status run_group_norm(const tfl_kcall *c, const bn_kernel *k, tfl_op *op,
                                 char *err, size_t errlen)
{
    tfl_batchnorm_op *o = &op->u.batchnorm;
#define L(i) TFL_KARG(c, int64_t, i)
#define P(i) TFL_KARG(c, float *, i)
#define OK(p, n, opt) ((p) ? tfl_kdev_ok((p), (size_t)(n) * 4) : (opt))
    int ok = 1;
    switch (k->kind) {
    case K_GN_MOMENTS: {
        const int64_t rows = c->grid[0], cols = L(0);
        if (c->grid[1] != 1 || c->grid[2] != 1 || cols < 0)
            return TFL_ERR_UNSUPPORTED;
        o->kind = TFL_BN_STATS;
        o->stats_mode = TFL_BN_STATS_RSTD;
        /* (a Contiguous<vec> kernel's moments are of the row's first
         * (cols / vec) * vec elements) */
        o->n = 1; o->c = rows; o->l = cols - cols % k->vec;
        o->x_stride[0] = 0; o->x_stride[1] = cols; o->x_stride[2] = 1;
        o->eps = TFL_KARG(c, float, 1);
        o->x = P(2);
        o->mean = P(3);
        o->out2 = P(4);
        ok = OK(o->x, rows * cols, 0) && OK(o->mean, rows, 0) && OK(o->out2, rows, 0);
        if (rows * cols == 0)
            return TFL_OK;
        if (o->l == 0)
            return TFL_ERR_UNSUPPORTED;   /* moments of no element: not modelled */
        break;
    }
    case K_GN_INTERNAL_GRADS: {
        const int64_t rows = c->grid[0], hxw = L(0);
        if (c->grid[1] != 1 || c->grid[2] != 1 || hxw < 0)
            return TFL_ERR_UNSUPPORTED;
        o->kind = TFL_BN_BACKWARD_REDUCE;
        /* rows of hxw; the Contiguous<vec> kernel sums the first
         * (hxw / vec) * vec of each */
        o->n = 1; o->c = rows; o->l = hxw - hxw % k->vec;
        const int64_t st[3] = { 0, hxw, 1 };
        memcpy(o->x_stride, st, sizeof st);
        memcpy(o->dy_stride, st, sizeof st);
        o->dy = P(1);
        o->x = P(2);
        o->sum_dy_xmu = P(3);   /* ds = sum dy * x (mean 0) */
        o->sum_dy = P(4);       /* db = sum dy */
        ok = OK(o->x, rows * hxw, 0) && OK(o->dy, rows * hxw, 0) &&
             OK(o->sum_dy, rows, 0) && OK(o->sum_dy_xmu, rows, 0);
        if (rows == 0)
            return TFL_OK;
        break;
    }
    case K_GN_FUSED:
        o->kind = TFL_BN_GN_FUSED_PARAMS;
        o->gn_n = L(0); o->gn_c = L(1); o->gn_g = L(2);
        o->gn_mean = P(3); o->gn_rstd = P(4); o->gn_gamma = P(5); o->gn_beta = P(6);
        o->gn_a = P(7); o->gn_b = P(8);
        break;
    case K_GN_BWD_PARAMS:
        o->kind = TFL_BN_GN_BACKWARD_PARAMS;
        o->gn_n = c->grid[0]; o->gn_c = L(0); o->gn_hxw = L(1); o->gn_g = L(2);
        o->gn_mean = P(3); o->gn_rstd = P(4); o->gn_gamma = P(5);
        o->gn_ds = P(6); o->gn_db = P(7);
        o->gn_a = P(8); o->gn_b = P(9);
        break;
    case K_GN_BWD_PARAMS_1D:
        o->kind = TFL_BN_GN_BACKWARD_PARAMS;
        o->gn_1d = 1;
        o->gn_n = c->grid[0]; o->gn_c = L(0); o->gn_g = L(1); o->gn_hxw = 1;
        o->gn_dy = P(2); o->gn_x = P(3);
        o->gn_mean = P(4); o->gn_rstd = P(5); o->gn_gamma = P(6);
        o->gn_a = P(7); o->gn_b = P(8);
        break;
    case K_GN_GAMMA_BETA:
    case K_GN_GAMMA_BETA_1D:
        o->kind = TFL_BN_GN_GAMMA_BETA;
        o->gn_n = L(0); o->gn_c = L(1); o->gn_g = L(2);
        if (k->kind == K_GN_GAMMA_BETA_1D) {
            o->gn_1d = 1;
            o->gn_dy = P(3); o->gn_x = P(4);
        } else {
            o->gn_ds = P(5); o->gn_db = P(6);
        }
        o->gn_mean = k->kind == K_GN_GAMMA_BETA_1D ? P(5) : P(3);
        o->gn_rstd = k->kind == K_GN_GAMMA_BETA_1D ? P(6) : P(4);
        o->gn_dgamma = P(7); o->gn_dbeta = P(8);
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (o->kind >= TFL_BN_GN_FUSED_PARAMS) {
        if (k->kind == K_GN_BWD_PARAMS || k->kind == K_GN_BWD_PARAMS_1D) {
            if (c->grid[1] != (unsigned)o->gn_g || c->grid[2] != 1)
                return TFL_ERR_UNSUPPORTED;
        }
        const int64_t N = o->gn_n, C = o->gn_c, G = o->gn_g;
        if (N < 0 || C < 0 || G <= 0 || C % G || o->gn_hxw < 0) {
            snprintf(err, errlen, "%s: bad shape N=%lld C=%lld G=%lld", op->name,
                     (long long)N, (long long)C, (long long)G);
            return TFL_ERR_INVALID;
        }
        if (N * C == 0)
            return TFL_OK;
        const int64_t nc = N * C, ng = N * G;
        ok = OK(o->gn_mean, ng, 0) && OK(o->gn_rstd, ng, 0) && OK(o->gn_gamma, C, 1) &&
             OK(o->gn_beta, C, 1) && OK(o->gn_ds, nc, 1) && OK(o->gn_db, nc, 1) &&
             OK(o->gn_dy, nc, 1) && OK(o->gn_x, nc, 1) && OK(o->gn_dgamma, C, 1) &&
             OK(o->gn_dbeta, C, 1);
        if (o->kind == TFL_BN_GN_FUSED_PARAMS)
            ok = ok && OK(o->gn_a, nc, 0) && OK(o->gn_b, nc, 0);
        if (o->kind == TFL_BN_GN_BACKWARD_PARAMS)
            ok = ok && OK(o->gn_a, ng, 0) && OK(o->gn_b, ng, 0);
        if (o->gn_1d)
            ok = ok && o->gn_dy && o->gn_x;
        else if (o->kind != TFL_BN_GN_FUSED_PARAMS)
            ok = ok && o->gn_ds && o->gn_db;
    }
#undef L
#undef P
#undef OK
    return finish(c, op, !ok, err, errlen);
}

/* ------------------------------------------------------ group norm, channels last */

#define L(i) TFL_KARG(c, int64_t, i)
#define P(i) TFL_KARG(c, float *, i)
#define LIVE(p, n) ((p) && (n) >= 0 && (n) <= INT64_MAX / 4 && tfl_kdev_ok((p), (size_t)(n) * 4))

/* a * b * c floats, or -1 when that overflows (garbage sizes) */
static int64_t elems3(int64_t a, int64_t b, int64_t c)
{
    int64_t ab, abc;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc) ||
        abc > INT64_MAX / 4)
        return -1;
    return abc;
}

/* The batches a one-dimensional grid of blocks_per_n blocks per batch
 * covers, or -1 when it is not whole batches (PyTorch launches N * that). */
static int64_t grid_batches(const tfl_kcall *c, int64_t blocks_per_n)
{
    if (blocks_per_n <= 0 || c->grid[1] != 1 || c->grid[2] != 1 || c->grid[0] % blocks_per_n)
        return -1;
    return (int64_t)c->grid[0] / blocks_per_n;
}

/* Block shape of the tiled ChannelsLast kernels: lanes of `lanes` channels
 * must fit at least once (else their hw loop does not advance) and the
 * block must not pass their 256-entry shared arrays. */
static int tiled_block_ok(const tfl_kcall *c, int64_t lanes)
{
    return c->block[1] == 1 && c->block[2] == 1 && (int64_t)c->block[0] >= lanes &&
           c->block[0] <= 256;
}

/* The moments kernels: per batch n one TFL_BN_STATS over [hw][g][d] at
 * strides (C, D, 1), statistics mean/rstd + n * G. */
static tfl_status gn_cl_moments(const tfl_kcall *c, const bn_kernel *k, tfl_op *op, char *err,
                                size_t errlen)
{
    tfl_batchnorm_op *o = &op->u.batchnorm;
    int64_t C, HxW, D, G;
    if (k->kind == K_GN_MOMENTS_CL) {
        /* (N, C, HxW, D, ...): G = C / D computed, one group per block */
        C = L(1); HxW = L(2); D = L(3);
        G = D > 0 ? C / D : 0;
    } else {
        /* (C, HxW, D, G, ...): per_block groups per block */
        C = L(0); HxW = L(1); D = L(2); G = L(3);
    }
    if (C < 0 || HxW < 0 || D <= 0 || G <= 0 || G > C / D) {
        snprintf(err, errlen, "%s: bad shape C=%lld HxW=%lld D=%lld G=%lld", op->name,
                 (long long)C, (long long)HxW, (long long)D, (long long)G);
        return TFL_ERR_INVALID;
    }
    int64_t per_n = G;
    if (k->kind == K_GN_MOMENTS_CL_SMALLD) {
        if (D > 256 || !tiled_block_ok(c, k->per_block * D))
            return TFL_ERR_UNSUPPORTED;
        per_n = (G + k->per_block - 1) / k->per_block;
    }
    const int64_t N = grid_batches(c, per_n);
    if (N < 0 || HxW == 0)
        return TFL_ERR_UNSUPPORTED;   /* partial batches; moments of nothing */
    float *x = P(5), *mean = P(6), *rstd = P(7);
    o->kind = TFL_BN_STATS;
    o->stats_mode = TFL_BN_STATS_RSTD;
    o->eps = TFL_KARG(c, float, 4);
    o->n = HxW; o->c = G; o->l = D;
    o->x_stride[0] = C; o->x_stride[1] = D; o->x_stride[2] = 1;
    if (!LIVE(x, elems3(N, HxW, C)) || !LIVE(mean, elems3(N, G, 1)) ||
        !LIVE(rstd, elems3(N, G, 1)))
        return finish(c, op, 1, err, errlen);
    for (int64_t n = 0; n < N; n++) {
        o->x = x + n * HxW * C;
        o->mean = mean + n * G;
        o->out2 = rstd + n * G;
        tfl_status st = finish(c, op, 0, err, errlen);
        if (st != TFL_OK)
            return st;
    }
    return TFL_OK;
}

/* The internal-gradients kernels (C, HxW, dY, X, ds, db): per batch n one
 * TFL_BN_BACKWARD_REDUCE (mean 0) over [hw][c] at strides (C, 1). */
static tfl_status gn_cl_internal_grads(const tfl_kcall *c, const bn_kernel *k, tfl_op *op,
                                       char *err, size_t errlen)
{
    tfl_batchnorm_op *o = &op->u.batchnorm;
    const int64_t C = L(0), HxW = L(1);
    if (C <= 0 || HxW < 0) {
        snprintf(err, errlen, "%s: bad shape C=%lld HxW=%lld", op->name, (long long)C,
                 (long long)HxW);
        return TFL_ERR_INVALID;
    }
    /* the Fallback: one channel per block, any block */
    const int64_t per = k->per_block ? k->per_block : 1;
    if (k->per_block && !tiled_block_ok(c, per))
        return TFL_ERR_UNSUPPORTED;
    const int64_t N = grid_batches(c, (C + per - 1) / per);
    if (N < 0)
        return TFL_ERR_UNSUPPORTED;
    float *dy = P(2), *x = P(3), *ds = P(4), *db = P(5);
    o->kind = TFL_BN_BACKWARD_REDUCE;
    o->n = HxW; o->c = C; o->l = 1;
    const int64_t st[3] = { C, 1, 1 };
    memcpy(o->x_stride, st, sizeof st);
    memcpy(o->dy_stride, st, sizeof st);
    const int64_t all = elems3(N, HxW, C);
    if (!LIVE(dy, all) || !LIVE(x, all) || !LIVE(ds, elems3(N, C, 1)) ||
        !LIVE(db, elems3(N, C, 1)))
        return finish(c, op, 1, err, errlen);
    for (int64_t n = 0; n < N; n++) {
        o->x = x + n * HxW * C;
        o->dy = dy + n * HxW * C;
        o->sum_dy_xmu = ds + n * C;     /* ds = sum dy * x (mean 0) */
        o->sum_dy = db + n * C;         /* db = sum dy */
        tfl_status s = finish(c, op, 0, err, errlen);
        if (s != TFL_OK)
            return s;
    }
    return TFL_OK;
}

/* IntDivider<unsigned int> { divisor, m1, shift } at parameter i: its
 * divisor when m1 and shift are what PyTorch's constructor makes of it
 * (divisor 1..INT32_MAX), else 0.  The kernel divides by m1 and shift
 * alone; they equal division by the divisor (for dividends up to
 * INT32_MAX) only then. */
static int64_t divider_u32(const tfl_kcall *c, int i)
{
    const uint32_t div = TFL_KARG_AT(c, uint32_t, i, 0), m1 = TFL_KARG_AT(c, uint32_t, i, 4),
                   shift = TFL_KARG_AT(c, uint32_t, i, 8);
    if (div < 1 || div > INT32_MAX)
        return 0;
    uint32_t s = 0;
    while (s < 31 && (1u << s) < div)
        s++;
    const uint64_t magic = ((uint64_t)1 << 32) * (((uint64_t)1 << s) - div) / div + 1;
    return magic <= UINT32_MAX && m1 == (uint32_t)magic && shift == s ? (int64_t)div : 0;
}

/* GroupNormBackwardChannelsLastCUDAKernel: dX = rstd[ng] * gamma[c] * dY +
 * c2[ng] * X + c3[ng] as a TFL_BN_MAP AFFINE3 over [n][hw][g][d] (dimension
 * 0 = d fastest). */
static tfl_status gn_cl_backward(const tfl_kcall *c, const bn_kernel *k, tfl_op *op, char *err,
                                 size_t errlen)
{
    tfl_batchnorm_op *o = &op->u.batchnorm;
    int64_t numel, G, C, HxW, D;
    if (k->idx64) {
        numel = L(0); G = L(1);
        C = L(2); HxW = L(3); D = L(4);     /* IntDivider<long>: { divisor } */
    } else {
        numel = TFL_KARG(c, uint32_t, 0);
        G = TFL_KARG(c, uint32_t, 1);
        C = divider_u32(c, 2); HxW = divider_u32(c, 3); D = divider_u32(c, 4);
        if (numel > INT32_MAX || !C || !HxW || !D)
            return TFL_ERR_UNSUPPORTED;     /* not the dividers PyTorch makes */
    }
    if (numel < 0 || G <= 0 || C <= 0 || HxW <= 0 || D <= 0 || C % D || G != C / D ||
        elems3(C, HxW, 1) < 0) {
        snprintf(err, errlen, "%s: bad shape numel=%lld C=%lld HxW=%lld G=%lld D=%lld", op->name,
                 (long long)numel, (long long)C, (long long)HxW, (long long)G, (long long)D);
        return TFL_ERR_INVALID;
    }
    if (numel % (C * HxW))
        return TFL_ERR_UNSUPPORTED;     /* a partial batch */
    if (numel == 0)
        return TFL_OK;
    const int64_t N = numel / (C * HxW);
    const int b = 5;     /* the pointers follow the three dividers */
    float *dy = P(b), *x = P(b + 1), *rstd = P(b + 2), *gamma = P(b + 3);
    float *c2 = P(b + 4), *c3 = P(b + 5), *dx = P(b + 6);
    o->n = N; o->c = C; o->l = HxW;     /* (for the message) */
    if (!LIVE(dy, numel) || !LIVE(x, numel) || !LIVE(dx, numel) || !LIVE(rstd, N * G) ||
        !LIVE(c2, N * G) || !LIVE(c3, N * G) || (gamma && !LIVE(gamma, C)))
        return finish(c, op, 1, err, errlen);
    o->kind = TFL_BN_MAP;
    o->map_code = TFL_BN_MAP_AFFINE3;
    o->map_flags = gamma ? 1 : 0;       /* c1 = rstd * gamma */
    o->nout = 1;
    o->ndim = 4;
    const int64_t shape[4] = { D, G, HxW, N };
    const int64_t big[4] = { 4, 4 * D, 4 * C, 4 * HxW * C };  /* dX, dY, X */
    const int64_t per_ng[4] = { 0, 4, 0, 4 * G };             /* rstd, c2, c3 */
    const int64_t per_c[4] = { 4, 4 * D, 0, 0 };              /* gamma */
    memcpy(o->shape, shape, sizeof shape);
    const struct { void *p; const int64_t *st; } operand[] = {
        { dx, big }, { dy, big }, { x, big }, { rstd, per_ng }, { gamma, per_c },
        { c2, per_ng }, { c3, per_ng },
    };
    int n = 0;
    for (size_t i = 0; i < sizeof operand / sizeof operand[0]; i++) {
        if (!operand[i].p)
            continue;      /* no gamma: (dy, x, rstd, c2, c3) */
        o->data[n] = operand[i].p;
        memcpy(o->strides[n], operand[i].st, 4 * sizeof(int64_t));
        n++;
    }
    o->nin = n - 1;
    return finish(c, op, 0, err, errlen);
}

#undef L
#undef P
#undef LIVE

static tfl_status run_gn_channels_last(const tfl_kcall *c, const bn_kernel *k, tfl_op *op,
                                       char *err, size_t errlen)
{
    switch (k->kind) {
    case K_GN_MOMENTS_CL:
    case K_GN_MOMENTS_CL_SMALLD:  return gn_cl_moments(c, k, op, err, errlen);
    case K_GN_INTERNAL_GRADS_CL:  return gn_cl_internal_grads(c, k, op, err, errlen);
    case K_GN_BWD_CL:             return gn_cl_backward(c, k, op, err, errlen);
    default:                      return TFL_ERR_UNSUPPORTED;
    }
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const bn_kernel *k = cookie;
    if (k->kind == K_MAP)
        return tfl_bn_map_run(c, k, err, errlen);
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_BATCHNORM;
    op.name = k->name;
    op.u.batchnorm.dtype = TFL_DT_F32;
    if (k->kind <= K_BWD_ELEMT)
        return run_accessor(c, k, &op, err, errlen);
    if (k->kind <= K_CL_BWD_ELEMT)
        return run_channels_last(c, k, &op, err, errlen);
    if (k->kind >= K_GN_MOMENTS_CL)
        return run_gn_channels_last(c, k, &op, err, errlen);
    return run_group_norm(c, k, &op, err, errlen);
}

const tfl_kfamily tfl_kfamily_batchnorm = {
    .name = "batchnorm",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

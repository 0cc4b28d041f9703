/*
 * softmax.c - the "softmax" kernel family of the semantic op table
 * (aten/src/ATen/native/cuda/SoftMax.cu and PersistentSoftmax.cuh; the
 * parameter layouts, stated by layout() per kernel, are those of the sm_80
 * cubins of torch 2.11 to 2.15):
 *
 *   softmax_warp_forward<in, out, acc, log2_elements, is_log, is_masked
 *       [, warp_size (2.12+)]>
 *       (out *dst, const in *src, int batch, int stride, int element_count,
 *        const bool *mask, int head_chunk_size, bool is_transformer_mask)
 *   softmax_warp_backward<in, out, acc, log2_elements, is_log, is_masked
 *       [, warp_size (2.12+)]>
 *       (out *grad_input, const in *grad, const in *output, int batch,
 *        int stride, int element_count, const bool *mask)
 *       rows b < batch of element_count elements, b * stride apart.
 *       log2_elements and warp_size only split a row over a warp's lanes.
 *   cunn_SoftMaxForward<ILP, scalar, acc, out, Epilogue>(out *, const scalar *, int classes)
 *   cunn_SoftMaxForwardSmem<ILP, scalar, acc, out, Epilogue, index_t>(out *, const scalar *, index_t)
 *   cunn_SoftMaxForwardReg<scalar, acc, out, Epilogue, index_t, regs>(out *, const scalar *, index_t)
 *   cunn_SoftMaxBackward[Smem]<ILP, scalar, acc, out, Epilogue>
 *       (scalar *grad_input, const out *output, const out *grad_output, int64_t classes)
 *       one block per row: rows = gridDim.x, contiguous rows of classes.
 *   cunn_SpatialSoftMaxForward<scalar, acc, out, index_t, Epilogue>
 *       (out *, const scalar *, index_t outer, index_t dim, index_t inner)
 *   cunn_SpatialSoftMaxBackward<scalar, acc, out, Epilogue>          (2.11-2.14)
 *       (scalar *grad_input, const out *output, const out *grad_output,
 *        uint32_t outer, uint32_t dim, uint32_t inner)
 *   cunn_SpatialSoftMaxBackward<scalar, acc, out, index_t, Epilogue>  (2.15)
 *       (the same pointers, index_t outer, dim, inner; index_t int or long)
 *   ILP and regs only shape the per-thread loads.
 *
 * Kernels are recognised by base name and a template-argument shape; the
 * Epilogue (SoftMax / LogSoftMax, Forward / Backward) says log or not.  The
 * masked warp softmax (is_masked, used by fused attention paths) is not
 * claimed.
 */
#include "route/optable.h"
#include "route/dispatch.h"
#include "route/optable/kname.h"
#include "mem/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { K_WARP_FWD, K_WARP_BWD, K_BLOCK_FWD, K_BLOCK_BWD, K_SPATIAL_FWD, K_SPATIAL_BWD } skind;

/* The size argument(s): uint32_t (2.11 spatial backward), int or int64_t. */
typedef enum { IDX_U32, IDX_I32, IDX_I64 } sidx;

typedef struct scookie {
    skind k;
    int log;
    tfl_dtype a, b;          /* first two template types (see run())        */
    sidx idx;                /* type of the size arguments                  */
    const char *name;
} scookie;

/* Each kernel's template arguments, one letter each:
 *   T  a floating element type (float, double, c10::Half, c10::BFloat16)
 *   I  an integer constant that only shapes the launch (ILP, log2, regs)
 *   B  a bool constant (is_log, is_masked)
 *   E  the epilogue
 *   X  index_t: int or long
 *   *  any further arguments must be integer constants (warp size)
 * and the size arguments' type when there is no X (sized: see sidx). */
static const struct {
    const char *base, *shape;
    skind k;
    int nparams;
    sidx idx;
} KERNELS[] = {
    { "softmax_warp_forward", "TTTIBB*", K_WARP_FWD, 8, IDX_I32 },
    { "softmax_warp_backward", "TTTIBB*", K_WARP_BWD, 7, IDX_I32 },
    { "cunn_SoftMaxForward", "ITTTE", K_BLOCK_FWD, 3, IDX_I32 },
    { "cunn_SoftMaxForwardSmem", "ITTTEX", K_BLOCK_FWD, 3, IDX_I32 },
    { "cunn_SoftMaxForwardReg", "TTTEXI", K_BLOCK_FWD, 3, IDX_I32 },
    { "cunn_SoftMaxBackward", "ITTTE", K_BLOCK_BWD, 4, IDX_I64 },
    { "cunn_SoftMaxBackwardSmem", "ITTTE", K_BLOCK_BWD, 4, IDX_I64 },
    { "cunn_SpatialSoftMaxForward", "TTTXE", K_SPATIAL_FWD, 5, IDX_I32 },
    { "cunn_SpatialSoftMaxBackward", "TTTE", K_SPATIAL_BWD, 6, IDX_U32 },
    { "cunn_SpatialSoftMaxBackward", "TTTXE", K_SPATIAL_BWD, 6, IDX_I32 },
};

static int float_type(const tfl_kname *k, int i, tfl_dtype *dt)
{
    return tfl_kname_targ_dtype(k, i, dt) &&
           (*dt == TFL_DT_F32 || *dt == TFL_DT_F64 || *dt == TFL_DT_F16 || *dt == TFL_DT_BF16);
}

/* Walk k's template arguments by shape; fill c (types, log, index type). */
static int by_shape(const tfl_kname *k, const char *shape, int backward, scookie *c)
{
    tfl_dtype t[3];
    int nt = 0, nb = 0, i = 0;
    long long v, b[2] = { 0, 0 };
    for (const char *s = shape; *s; s++, i++) {
        switch (*s) {
        case 'T':
            if (nt == 3 || !float_type(k, i, &t[nt++]))
                return 0;
            break;
        case 'I':
            if (!tfl_kname_targ_int(k, i, &v) || tfl_kname_targ_is(k, i, "true") ||
                tfl_kname_targ_is(k, i, "false"))
                return 0;
            break;
        case 'B':
            if (nb == 2 || !(tfl_kname_targ_is(k, i, "true") || tfl_kname_targ_is(k, i, "false")))
                return 0;
            tfl_kname_targ_int(k, i, &b[nb++]);
            break;
        case 'X':
            if (!tfl_kname_targ_is(k, i, "int") && !tfl_kname_targ_is(k, i, "long"))
                return 0;
            c->idx = tfl_kname_targ_is(k, i, "long") ? IDX_I64 : IDX_I32;
            break;
        case 'E': {
            const char *want = backward ? "SoftMaxBackwardEpilogue" : "SoftMaxForwardEpilogue";
            if (tfl_kname_targ_starts(k, i, "Log"))
                c->log = 1;
            if (i >= k->ntargs || k->targ_len[i] != strlen(want) + (c->log ? 3 : 0) ||
                memcmp(k->targ[i] + (c->log ? 3 : 0), want, strlen(want)) != 0)
                return 0;
            break;
        }
        case '*':               /* the rest: integer constants */
            for (; i < k->ntargs; i++)
                if (!tfl_kname_targ_int(k, i, &v) || tfl_kname_targ_is(k, i, "true") ||
                    tfl_kname_targ_is(k, i, "false"))
                    return 0;
            i--;                /* the loop's i++ lands on ntargs */
            break;
        }
    }
    if (i != k->ntargs || nt != 3)
        return 0;
    if (nb == 2) {              /* warp kernels: is_log, is_masked (not claimed) */
        c->log = (int)b[0];
        if (b[1])
            return 0;
    }
    c->a = t[0];
    c->b = c->k == K_WARP_FWD || c->k == K_WARP_BWD ? t[1] : t[2];
    return 1;
}

static int match(const char *m, void **cookie)
{
    if (!m || (!strstr(m, "softmax_warp_") && !strstr(m, "SoftMax")))
        return 0;                           /* cheap filter before demangling */
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    scookie c;
    int found = 0;
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0] && !found; i++) {
        memset(&c, 0, sizeof c);
        c.k = KERNELS[i].k;
        c.idx = KERNELS[i].idx;
        int bwd = c.k == K_WARP_BWD || c.k == K_BLOCK_BWD || c.k == K_SPATIAL_BWD;
        found = tfl_kname_is(&k, KERNELS[i].base) && k.nparams == KERNELS[i].nparams &&
                by_shape(&k, KERNELS[i].shape, bwd, &c);
        if (found)
            c.name = c.log ? (bwd ? "log_softmax_bwd" : "log_softmax_fwd")
                           : (bwd ? "softmax_bwd" : "softmax_fwd");
    }
    tfl_kname_free(&k);
    return found && tfl_kcookie_keep(&c, sizeof c, cookie);
}

static const char *op_name(void *cookie)
{
    return cookie ? ((scookie *)cookie)->name : "softmax";
}

#define ARG(T, i) TFL_KARG(call, T, i)

/* Size argument i, of the kernel's index type. */
static int64_t size_arg(const tfl_kcall *call, sidx idx, int i)
{
    switch (idx) {
    case IDX_U32: return ARG(uint32_t, i);
    case IDX_I32: return ARG(int32_t, i);
    default:      return ARG(int64_t, i);
    }
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const scookie *c = cookie;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_SOFTMAX;
    op.name = c->name;
    tfl_softmax_op *s = &op.u.softmax;
    s->log = c->log;
    s->inner = 1;
    switch (c->k) {
    case K_WARP_FWD:
        s->in_dtype = c->a; s->out_dtype = c->b;
        s->out = ARG(void *, 0); s->in = ARG(const void *, 1);
        s->outer = ARG(int32_t, 2); s->outer_stride = ARG(int32_t, 3); s->dim = ARG(int32_t, 4);
        break;
    case K_WARP_BWD:
        s->backward = 1;
        s->in_dtype = c->a; s->out_dtype = c->b;
        s->out = ARG(void *, 0); s->grad = ARG(const void *, 1); s->in = ARG(const void *, 2);
        s->outer = ARG(int32_t, 3); s->outer_stride = ARG(int32_t, 4); s->dim = ARG(int32_t, 5);
        break;
    case K_BLOCK_FWD:
        if (call->grid[1] != 1 || call->grid[2] != 1)
            return TFL_ERR_UNSUPPORTED;
        s->in_dtype = c->a; s->out_dtype = c->b;
        s->out = ARG(void *, 0); s->in = ARG(const void *, 1);
        s->dim = size_arg(call, c->idx, 2);
        s->outer = call->grid[0];
        s->outer_stride = s->dim;
        break;
    case K_BLOCK_BWD:
        if (call->grid[1] != 1 || call->grid[2] != 1)
            return TFL_ERR_UNSUPPORTED;
        s->backward = 1;
        s->out_dtype = c->a; s->in_dtype = c->b;
        s->out = ARG(void *, 0); s->in = ARG(const void *, 1); s->grad = ARG(const void *, 2);
        s->dim = ARG(int64_t, 3);
        s->outer = call->grid[0];
        s->outer_stride = s->dim;
        break;
    case K_SPATIAL_FWD:
        s->in_dtype = c->a; s->out_dtype = c->b;
        s->out = ARG(void *, 0); s->in = ARG(const void *, 1);
        s->outer = size_arg(call, c->idx, 2);
        s->dim = size_arg(call, c->idx, 3);
        s->inner = size_arg(call, c->idx, 4);
        if (__builtin_mul_overflow(s->dim, s->inner, &s->outer_stride))
            s->outer_stride = -1;               /* refused below */
        break;
    case K_SPATIAL_BWD:
        s->backward = 1;
        s->out_dtype = c->a; s->in_dtype = c->b;
        s->out = ARG(void *, 0); s->in = ARG(const void *, 1); s->grad = ARG(const void *, 2);
        s->outer = size_arg(call, c->idx, 3);
        s->dim = size_arg(call, c->idx, 4);
        s->inner = size_arg(call, c->idx, 5);
        if (__builtin_mul_overflow(s->dim, s->inner, &s->outer_stride))
            s->outer_stride = -1;               /* refused below */
        break;
    }
    int64_t row, n64;
    int ovf = __builtin_mul_overflow(s->dim, s->inner, &row) ||
              __builtin_mul_overflow(s->outer, s->outer_stride, &n64) ||
              __builtin_mul_overflow(n64, (int64_t)8, &n64);
    if (ovf || s->outer < 0 || s->dim < 0 || s->inner < 0 || s->outer_stride < row) {
        snprintf(err, errlen, "%s: bad sizes outer=%lld dim=%lld inner=%lld stride=%lld", c->name,
                 (long long)s->outer, (long long)s->dim, (long long)s->inner,
                 (long long)s->outer_stride);
        return TFL_ERR_INVALID;
    }
    if (s->outer > 0 && s->dim > 0 && s->inner > 0) {
        size_t n = (size_t)((s->outer - 1) * s->outer_stride + s->dim * s->inner);
        if (!tfl_kdev_ok(s->in, n * tfl_dtype_size(s->in_dtype)) || !tfl_kdev_ok(s->out, n * tfl_dtype_size(s->out_dtype)) ||
            (s->backward && !tfl_kdev_ok(s->grad, n * tfl_dtype_size(s->in_dtype)))) {
            snprintf(err, errlen, "%s: operand outside device memory", c->name);
            return TFL_ERR_INVALID;
        }
    }
    tfl_status st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s: backend failed (%d)", c->name, (int)st);
    return st;
}

/* The parameters, as the header comment lists them; N stands for the
 * size arguments' type. */
static int layout(void *cookie, tfl_klayout *l)
{
    static const char *const sig[] = {
        [K_WARP_FWD] = "p p i i i p i b",
        [K_WARP_BWD] = "p p p i i i p",
        [K_BLOCK_FWD] = "p p N",
        [K_BLOCK_BWD] = "p p p N",
        [K_SPATIAL_FWD] = "p p N N N",
        [K_SPATIAL_BWD] = "p p p N N N",
    };
    const scookie *c = cookie;
    l->n = 0;
    if (!c)
        return 0;
    char buf[32];
    size_t n = strlen(sig[c->k]);
    memcpy(buf, sig[c->k], n + 1);
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 'N')
            buf[i] = c->idx == IDX_I64 ? 'l' : 'i';
    return tfl_klayout_sig(l, buf) == 0;
}

const tfl_kfamily tfl_kfamily_softmax = {
    .name = "softmax",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

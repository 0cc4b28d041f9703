/*
 * softmax.c - the "softmax" kernel family of the semantic op table
 * (aten/src/ATen/native/cuda/SoftMax.cu and PersistentSoftmax.cuh, torch
 * 2.11; parameter layouts from the sm_80 cubins, docs/kernel-families.md):
 *
 *   softmax_warp_forward<in, out, acc, log2_elements, is_log, is_masked>
 *       (out *dst, const in *src, int batch, int stride, int element_count,
 *        const bool *mask, int head_chunk_size, bool is_transformer_mask)
 *   softmax_warp_backward<in, out, acc, log2_elements, is_log, is_masked>
 *       (out *grad_input, const in *grad, const in *output, int batch,
 *        int stride, int element_count, const bool *mask)
 *       rows b < batch of element_count elements, b * stride apart.
 *   cunn_SoftMaxForward<ILP, scalar, acc, out, Epilogue>(out *, const scalar *, int classes)
 *   cunn_SoftMaxForwardSmem<ILP, scalar, acc, out, Epilogue, index_t>(out *, const scalar *, index_t)
 *   cunn_SoftMaxForwardReg<scalar, acc, out, Epilogue, index_t, regs>(out *, const scalar *, index_t)
 *   cunn_SoftMaxBackward[Smem]<ILP, scalar, acc, out, Epilogue>
 *       (scalar *grad_input, const out *output, const out *grad_output, int64_t classes)
 *       one block per row: rows = gridDim.x, contiguous rows of classes.
 *   cunn_SpatialSoftMaxForward<scalar, acc, out, index_t, Epilogue>
 *       (out *, const scalar *, index_t outer, index_t dim, index_t inner)
 *   cunn_SpatialSoftMaxBackward<scalar, acc, out, Epilogue>
 *       (scalar *grad_input, const out *output, const out *grad_output,
 *        uint32_t outer, uint32_t dim, uint32_t inner)
 *
 * The masked warp softmax (is_masked, used by fused attention paths) is
 * not claimed.
 */
#include "route/optable.h"
#include "route/dispatch.h"
#include "mem/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { K_WARP_FWD, K_WARP_BWD, K_BLOCK_FWD, K_BLOCK_BWD, K_SPATIAL_FWD, K_SPATIAL_BWD } skind;

typedef struct scookie {
    skind k;
    int log;
    tfl_dtype a, b;          /* first two template types (see run())        */
    int idx64;               /* size argument is 64-bit                     */
    const char *name;
} scookie;

/* A float type at *s: f, d, c10::Half, c10::BFloat16, or a substitution
 * (S<n>_), which in these names always repeats the last class type. */
static int ptype(const char **s, tfl_dtype *last_cls, tfl_dtype *out)
{
    if (!strncmp(*s, "N3c104HalfE", 11)) { *s += 11; *out = *last_cls = TFL_DT_F16; return 0; }
    if (!strncmp(*s, "N3c108BFloat16E", 15)) { *s += 15; *out = *last_cls = TFL_DT_BF16; return 0; }
    if ((*s)[0] == 'S') {
        const char *q = *s + 1;
        while ((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'Z'))
            q++;
        if (*q != '_' || *last_cls == TFL_DT_COUNT)
            return -1;
        *s = q + 1;
        *out = *last_cls;
        return 0;
    }
    if (**s == 'f') { (*s)++; *out = TFL_DT_F32; return 0; }
    if (**s == 'd') { (*s)++; *out = TFL_DT_F64; return 0; }
    return -1;
}

static int skip_int_arg(const char **s)   /* "Li<digits>E" */
{
    if (strncmp(*s, "Li", 2))
        return -1;
    *s += 2;
    while (**s >= '0' && **s <= '9')
        (*s)++;
    if (**s != 'E')
        return -1;
    (*s)++;
    return 0;
}

static int match(const char *m, void **cookie)
{
    static const struct { const char *mk; skind k; int ilp; const char *name; } K[] = {
        {"20softmax_warp_forwardI", K_WARP_FWD, 0, "softmax_fwd"},
        {"21softmax_warp_backwardI", K_WARP_BWD, 0, "softmax_bwd"},
        {"19cunn_SoftMaxForwardI", K_BLOCK_FWD, 1, "softmax_fwd"},
        {"23cunn_SoftMaxForwardSmemI", K_BLOCK_FWD, 1, "softmax_fwd"},
        {"22cunn_SoftMaxForwardRegI", K_BLOCK_FWD, 0, "softmax_fwd"},
        {"20cunn_SoftMaxBackwardI", K_BLOCK_BWD, 1, "softmax_bwd"},
        {"24cunn_SoftMaxBackwardSmemI", K_BLOCK_BWD, 1, "softmax_bwd"},
        {"26cunn_SpatialSoftMaxForwardI", K_SPATIAL_FWD, 0, "softmax_fwd"},
        {"27cunn_SpatialSoftMaxBackwardI", K_SPATIAL_BWD, 0, "softmax_bwd"},
    };
    if (!m || strncmp(m, "_ZN", 3) || !strstr(m, "_SoftMax_cu_"))
        return 0;
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        const char *s = strstr(m, K[i].mk);
        if (!s)
            continue;
        s += strlen(K[i].mk);
        if (K[i].ilp && skip_int_arg(&s))
            return 0;
        scookie c = {.k = K[i].k};
        tfl_dtype cls = TFL_DT_COUNT, acc;
        if (ptype(&s, &cls, &c.a) || ptype(&s, &cls, &c.b) || ptype(&s, &cls, &acc))
            return 0;
        if (c.k == K_WARP_FWD || c.k == K_WARP_BWD) {
            /* <in, out, acc, log2, is_log, is_masked> */
            if (skip_int_arg(&s) || strncmp(s, "Lb", 2))
                return 0;
            c.log = s[2] == '1';
            if (strncmp(s + 3, "ELb0E", 5))
                return 0;                          /* masked: not claimed */
        } else {
            /* scalar, acc, out: a = scalar, b = out */
            c.b = acc;
            if (c.k == K_SPATIAL_FWD) {
                if (*s != 'i' && *s != 'l')
                    return 0;
                c.idx64 = *s == 'l';
                s++;
            }
            const char *ep = strstr(s, "SoftMax");
            if (!ep)
                return 0;
            c.log = ep > s && !strncmp(ep - 3, "Log", 3);
            if (c.k == K_BLOCK_FWD)
                c.idx64 = strstr(s, "EpilogueElLi") != NULL || strstr(s, "EpilogueElEE") != NULL;
        }
        c.name = c.log ? (c.k == K_WARP_BWD || c.k == K_BLOCK_BWD || c.k == K_SPATIAL_BWD
                          ? "log_softmax_bwd" : "log_softmax_fwd") : K[i].name;
        scookie *p = malloc(sizeof *p);
        if (!p)
            return 0;
        *p = c;
        *cookie = p;
        return 1;
    }
    return 0;
}

static const char *op_name(void *cookie)
{
    return cookie ? ((scookie *)cookie)->name : "softmax";
}

#define ARG(T, i) TFL_KARG(call, T, i)

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
        s->dim = c->idx64 ? ARG(int64_t, 2) : ARG(int32_t, 2);
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
        if (c->idx64) {
            s->outer = ARG(int64_t, 2); s->dim = ARG(int64_t, 3); s->inner = ARG(int64_t, 4);
        } else {
            s->outer = ARG(int32_t, 2); s->dim = ARG(int32_t, 3); s->inner = ARG(int32_t, 4);
        }
        s->outer_stride = s->dim * s->inner;
        break;
    case K_SPATIAL_BWD:
        s->backward = 1;
        s->out_dtype = c->a; s->in_dtype = c->b;
        s->out = ARG(void *, 0); s->in = ARG(const void *, 1); s->grad = ARG(const void *, 2);
        s->outer = ARG(uint32_t, 3); s->dim = ARG(uint32_t, 4); s->inner = ARG(uint32_t, 5);
        s->outer_stride = s->dim * s->inner;
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
            return TFL_ERR_DEVICE;
        }
    }
    tfl_status st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s: backend failed (%d)", c->name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_softmax = {
    .name = "softmax",
    .match = match,
    .run = run,
    .op_name = op_name,
};

/*
 * index_range.c - torch.arange / torch.linspace: elementwise_kernel_with_index
 * over their lambdas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"

/* elementwise_kernel_with_index<int, {arange,linspace}_cuda_out(...)::
 * dispatch lambdas::lambda(long)>: the dispatch lambdas' numbers give the
 * dtype (read off the 2.11 wheel: AT_DISPATCH's case order). */
int idx_match_range(const char *m, index_kernel *k)
{
    static const struct { const char *key; int kind; tfl_dtype dt; } tab[] = {
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE_clEvEUllE_", K_ARANGE, TFL_DT_U8 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE0_clEvEUllE_", K_ARANGE, TFL_DT_I8 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE1_clEvEUllE_", K_ARANGE, TFL_DT_I32 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_", K_ARANGE, TFL_DT_I64 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE4_clEvEUllE_", K_ARANGE, TFL_DT_F64 },
        { "15arange_cuda_outERKN3c106ScalarES6_S6_RNS1_6TensorEENKUlvE_clEvENKUlvE5_clEvEUllE_", K_ARANGE, TFL_DT_F32 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE_clEvEUllE_", K_LINSPACE, TFL_DT_U8 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE0_clEvEUllE_", K_LINSPACE, TFL_DT_I8 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE1_clEvEUllE_", K_LINSPACE, TFL_DT_I32 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE_clEvENKUlvE2_clEvEUllE_", K_LINSPACE, TFL_DT_I64 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE_clEvEUllE_", K_LINSPACE, TFL_DT_F64 },
        { "17linspace_cuda_outERKN3c106ScalarES6_lRNS1_6TensorEENKUlvE0_clEvENKUlvE0_clEvEUllE_", K_LINSPACE, TFL_DT_F32 },
    };
    if (!strstr(m, "29elementwise_kernel_with_indexIiZZZN2at6native"))
        return 0;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strstr(m, tab[i].key)) {
            k->kind = tab[i].kind;
            k->dtype = tab[i].dt;
            return 1;
        }
    }
    return 0;
}

/* elementwise_kernel_with_index<int>(int N, lambda f, T *data); the
 * lambdas (read off 2.11 launches):
 *   arange   [xstart, xstep] of the accumulate type (int64 for integers,
 *            float for float32, double for float64)
 *   linspace [start, end (T), steps (int64), step (float for integers,
 *            else T), halfway (int64)], naturally aligned */
tfl_status idx_run_range(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                            int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    x->kind = TFL_INDEX_RANGE;
    x->dtype = k->dtype;
    x->elem_size = tfl_dtype_size(k->dtype);
    x->u.range.range_kind = k->kind == K_ARANGE ? TFL_INDEX_ARANGE : TFL_INDEX_LINSPACE;
    x->u.range.n = ARG(c, 0, int32_t);
    x->u.range.out = ARG(c, 2, void *);
    const int fl = k->dtype == TFL_DT_F32 || k->dtype == TFL_DT_F64;
    if (k->kind == K_ARANGE) {
        if (k->dtype == TFL_DT_F32) {
            float a, b;
            memcpy(&a, f, 4);
            memcpy(&b, f + 4, 4);
            x->u.range.start = a;
            x->u.range.step = b;
        } else if (k->dtype == TFL_DT_F64) {
            memcpy(&x->u.range.start, f, 8);
            memcpy(&x->u.range.step, f + 8, 8);
        } else {
            memcpy(&x->u.range.istart, f, 8);
            memcpy(&x->u.range.istep, f + 8, 8);
        }
    } else {
        const size_t ts = x->elem_size;
        const size_t o_steps = ts * 2 > 8 ? ts * 2 : 8;   /* 2 T, then int64 */
        const size_t ss = fl ? ts : 4;                     /* step's size */
        const size_t o_step = o_steps + 8;
        const size_t o_half = (o_step + ss + 7) & ~(size_t)7;
        memcpy(&x->u.range.steps, f + o_steps, 8);
        memcpy(&x->u.range.halfway, f + o_half, 8);
        if (k->dtype == TFL_DT_F32) {
            float a, b, s;
            memcpy(&a, f, 4);
            memcpy(&b, f + 4, 4);
            memcpy(&s, f + o_step, 4);
            x->u.range.start = a;
            x->u.range.end = b;
            x->u.range.step = s;
        } else if (k->dtype == TFL_DT_F64) {
            memcpy(&x->u.range.start, f, 8);
            memcpy(&x->u.range.end, f + 8, 8);
            memcpy(&x->u.range.step, f + o_step, 8);
        } else {
            float s;
            int64_t a = 0, b = 0;
            switch (k->dtype) {
            case TFL_DT_I64: memcpy(&a, f, 8); memcpy(&b, f + 8, 8); break;
            case TFL_DT_I32: { int32_t a4, b4; memcpy(&a4, f, 4); memcpy(&b4, f + 4, 4);
                               a = a4; b = b4; break; }
            case TFL_DT_I8:  a = (int8_t)f[0]; b = (int8_t)f[1]; break;
            default:         a = f[0]; b = f[1]; break;
            }
            memcpy(&s, f + o_step, 4);
            x->u.range.istart = a;
            x->u.range.iend = b;
            x->u.range.step = s;
        }
        if (x->u.range.steps != x->u.range.n)
            return TFL_ERR_UNSUPPORTED;
    }
    if (x->u.range.n < 0)
        return TFL_ERR_UNSUPPORTED;
    if (x->u.range.n == 0)
        return TFL_OK;
    if (!idx_range_ok(x->u.range.out, x->u.range.n * (int64_t)x->elem_size)) {
        snprintf(err, errlen, "%s: the output is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

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
 * {lambda()#A}::operator()() const::{lambda()#B}::operator()() const::
 * {lambda(long)#1}>: the dispatch lambdas' numbers A, B give the dtype
 * (AT_DISPATCH's case order, the same in the 2.11 through 2.15 wheels; the
 * lambda's size, which the layout check compares, differs between the
 * groups). */
int idx_match_range(const tfl_kname *n, index_kernel *k)
{
    static const struct { const char *fn; int kind, outer, inner; tfl_dtype dt; } tab[] = {
        { "arange_cuda_out(", K_ARANGE, 1, 1, TFL_DT_U8 },
        { "arange_cuda_out(", K_ARANGE, 1, 2, TFL_DT_I8 },
        { "arange_cuda_out(", K_ARANGE, 1, 3, TFL_DT_I32 },
        { "arange_cuda_out(", K_ARANGE, 1, 4, TFL_DT_I64 },
        { "arange_cuda_out(", K_ARANGE, 1, 6, TFL_DT_F64 },
        { "arange_cuda_out(", K_ARANGE, 1, 7, TFL_DT_F32 },
        { "linspace_cuda_out(", K_LINSPACE, 1, 1, TFL_DT_U8 },
        { "linspace_cuda_out(", K_LINSPACE, 1, 2, TFL_DT_I8 },
        { "linspace_cuda_out(", K_LINSPACE, 1, 3, TFL_DT_I32 },
        { "linspace_cuda_out(", K_LINSPACE, 1, 4, TFL_DT_I64 },
        { "linspace_cuda_out(", K_LINSPACE, 2, 1, TFL_DT_F64 },
        { "linspace_cuda_out(", K_LINSPACE, 2, 2, TFL_DT_F32 },
    };
    if (!idx_plain_name(n, "elementwise_kernel_with_index") || n->ntargs != 2 ||
        !tfl_kname_targ_is(n, 0, "int"))
        return 0;
    const char *lam = n->targ[1];
    const size_t ll = n->targ_len[1];
    char buf[512];
    if (ll >= sizeof buf)
        return 0;
    memcpy(buf, lam, ll);
    buf[ll] = '\0';
    const char *close = strstr(buf, ")::{lambda()#");
    int outer, inner, used = 0;
    if (!close || sscanf(close, ")::{lambda()#%d}::operator()() const::{lambda()#%d}::"
                                "operator()() const::{lambda(long)#1}%n", &outer, &inner,
                         &used) != 2 || close[used] != '\0')
        return 0;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (!strncmp(buf, tab[i].fn, strlen(tab[i].fn)) && outer == tab[i].outer &&
            inner == tab[i].inner) {
            k->kind = tab[i].kind;
            k->dtype = tab[i].dt;
            return 1;
        }
    }
    return 0;
}

/* linspace's lambda captures: start, end (T), steps (int64), step (float
 * for integers, else T), halfway (int64), each naturally aligned. */
static void linspace_captures(tfl_dtype dt, size_t *o_steps, size_t *o_step, size_t *o_half)
{
    const size_t ts = tfl_dtype_size(dt);
    const size_t ss = dt == TFL_DT_F32 || dt == TFL_DT_F64 ? ts : 4;
    *o_steps = ts * 2 > 8 ? ts * 2 : 8;
    *o_step = *o_steps + 8;
    *o_half = (*o_step + ss + 7) & ~(size_t)7;
}

/* (int N, lambda by value, T *out); the lambda is its captures (arange:
 * start and step of the accumulate type - float for float32, else 8 bytes)
 * and the 8-byte pointer nvcc appends to an extended lambda (pt_abi.h). */
int idx_layout_range(const index_kernel *k, tfl_klayout *l)
{
    size_t captures;
    if (k->kind == K_ARANGE) {
        captures = k->dtype == TFL_DT_F32 ? 8 : 16;
    } else {
        size_t o_steps, o_step, o_half;
        linspace_captures(k->dtype, &o_steps, &o_step, &o_half);
        captures = o_half + 8;
    }
    tfl_klayout_add(l, 4, 4);
    tfl_klayout_add(l, captures + 8, 8);
    tfl_klayout_add(l, 8, 8);
    return 1;
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
        size_t o_steps, o_step, o_half;
        linspace_captures(k->dtype, &o_steps, &o_step, &o_half);
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
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

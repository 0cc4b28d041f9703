/*
 * index_scatter.c - gather / scatter / scatter_add / scatter(value):
 * _scatter_gather_elementwise_kernel over _cuda_scatter_gather_internal_kernel
 * and _cuda_scatter_fill_internal_kernel lambdas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"
#include "route/optable/pt_abi.h"

/* The reduction functors (simplified names); scatter_reduce's ReduceMean
 * only sums (PyTorch divides by the counts in a later elementwise kernel). */
static const struct { const char *name; tfl_index_reduce reduce; } functors[] = {
    { "TensorAssign", TFL_INDEX_ASSIGN }, { "ReduceAdd", TFL_INDEX_ADD },
    { "ReduceMean", TFL_INDEX_ADD }, { "ReduceMultiply", TFL_INDEX_MUL },
    { "ReduceMaximum", TFL_INDEX_MAX }, { "ReduceMinimum", TFL_INDEX_MIN },
};

/* _scatter_gather_elementwise_kernel<nt, vt, lambda(int)> (nt, vt: the
 * launch shape), the lambda that of
 *   _cuda_scatter_gather_internal_kernel<is_scatter, T, index_t>::
 *       operator()<Functor>(...)          gather / scatter / scatter_reduce
 *   _cuda_scatter_fill_internal_kernel<T, index_t>::operator()<Functor>(...)
 *                                          scatter(dim, index, value) */
int idx_match_scatter_gather(const tfl_kname *n, index_kernel *k)
{
    const char *lt, *after, *lam;
    size_t ll;
    int used[] = { 2 };
    if (!idx_plain_name(n, "_scatter_gather_elementwise_kernel") || n->ntargs != 3 ||
        !idx_others_constant(n, used, 1))
        return 0;
    lam = n->targ[2];
    ll = n->targ_len[2];
    const char *ta[4];
    size_t tl[4];
    int nt;
    if (idx_lambda_of(lam, ll, "_cuda_scatter_gather_internal_kernel", &lt, &after)) {
        nt = tfl_pt_template_args(lt, ta, tl, 4);
        if (nt != 3 || !((tl[0] == 4 && !memcmp(ta[0], "true", 4)) ||
                         (tl[0] == 5 && !memcmp(ta[0], "false", 5))))
            return 0;
        k->scatter = ta[0][0] == 't';
    } else if (idx_lambda_of(lam, ll, "_cuda_scatter_fill_internal_kernel", &lt, &after)) {
        nt = tfl_pt_template_args(lt, ta, tl, 4);
        if (nt != 2)
            return 0;
        k->scatter = 1;
        k->fill = 1;
    } else {
        return 0;
    }
    /* <..., T, index_t> */
    k->elem_size = idx_type_size(ta[nt - 2], tl[nt - 2], &k->dtype);
    if (!k->elem_size || !((tl[nt - 1] == 3 && !memcmp(ta[nt - 1], "int", 3)) ||
                           (tl[nt - 1] == 4 && !memcmp(ta[nt - 1], "long", 4))))
        return 0;
    k->index_dtype = tl[nt - 1] == 4 ? TFL_DT_I64 : TFL_DT_I32;
    /* ::operator()<Functor>(...) */
    static const char op[] = "::operator()<";
    const char *fgt = strncmp(after, op, sizeof op - 1) ? NULL
                                                        : tfl_pt_match_angle(after + sizeof op - 2);
    if (!fgt || fgt[1] != '(')
        return 0;
    const char *f = after + sizeof op - 1;
    size_t fl = (size_t)(fgt - f);
    size_t i = 0;
    while (i < sizeof functors / sizeof functors[0] &&
           !(fl == strlen(functors[i].name) && !memcmp(f, functors[i].name, fl)))
        i++;
    if (i == sizeof functors / sizeof functors[0])
        return 0;
    k->reduce = functors[i].reduce;
    /* assignment moves bytes; the reductions compute in these types */
    if (k->reduce != TFL_INDEX_ASSIGN &&
        (k->fill || !(k->dtype == TFL_DT_F32 || k->dtype == TFL_DT_F64 ||
                      k->dtype == TFL_DT_I32 || k->dtype == TFL_DT_I64 ||
                      k->dtype == TFL_DT_F16 || k->dtype == TFL_DT_BF16)))
        return 0;
    k->kind = K_SCATTER_GATHER;
    return 1;
}

/* (int N, lambda by value): the lambdas' captures are listed with run
 * below; the gather / scatter one is 664 bytes, the fill one ends with the
 * T value after six 8-byte captures (@552, or @560 for a 16-byte aligned
 * T), padded to its alignment. */
int idx_layout_scatter_gather(const index_kernel *k, tfl_klayout *l)
{
    tfl_klayout_add(l, 4, 4);
    if (!k->fill) {
        tfl_klayout_add(l, 664, 8);
        return 1;
    }
    const size_t a = k->elem_size > 8 ? k->elem_size : 8;
    const size_t value = (552 + k->elem_size - 1) / k->elem_size * k->elem_size;
    tfl_klayout_add(l, (value + k->elem_size + a - 1) / a * a, a);
    return 1;
}

/* the lambda of _cuda_scatter_gather_internal_kernel (664 bytes), its
 * captures in first-use order: offset_calc @0, index_ptr @608,
 * index_size @616, f @624, self_ptr @632, index_stride @640, numel @648,
 * src_ptr @656 (read off a 2.11 launch) */
tfl_status idx_run_scatter_gather(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                                     int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    const int64_t N = ARG(c, 0, int32_t);
    x->kind = TFL_INDEX_SCATTER_GATHER;
    x->elem_size = k->elem_size;
    x->index_dtype = k->index_dtype;
    x->dtype = k->dtype == TFL_DT_COUNT ? TFL_DT_U8 : k->dtype;
    tfl_index_iter *itw = &x->u.scatter_gather.iter;
    if (!k->fill) {
        if (!idx_read_offcalc(f, 3, itw))
            return TFL_ERR_UNSUPPORTED;
        memcpy(&x->u.scatter_gather.index, f + 608, 8);
        memcpy(&x->u.scatter_gather.index_size, f + 616, 8);
        memcpy(&x->u.scatter_gather.self, f + 632, 8);
        memcpy(&x->u.scatter_gather.index_stride, f + 640, 8);
        memcpy(&x->u.scatter_gather.src, f + 656, 8);
    } else {
        /* _cuda_scatter_fill_internal_kernel's lambda (560 bytes):
         * offset_calc<2> (self, index) @0, index_ptr @504, index_size @512,
         * f @520, self_ptr @528, index_stride @536, numel @544, value @552 */
        if (k->elem_size > 8 || !idx_read_offcalc(f, 2, itw))
            return TFL_ERR_UNSUPPORTED;
        for (int d = 0; d < itw->ndim; d++) {   /* operands (self, index) -> (0, 2) */
            itw->strides[2][d] = itw->strides[1][d];
            itw->strides[1][d] = 0;
        }
        memcpy(&x->u.scatter_gather.index, f + 504, 8);
        memcpy(&x->u.scatter_gather.index_size, f + 512, 8);
        memcpy(&x->u.scatter_gather.self, f + 528, 8);
        memcpy(&x->u.scatter_gather.index_stride, f + 536, 8);
        memcpy(x->u.scatter_gather.value, f + 552, k->elem_size);
        x->u.scatter_gather.use_value = 1;
        x->u.scatter_gather.src = NULL;
    }
    x->u.scatter_gather.scatter = k->scatter;
    x->u.scatter_gather.reduce = k->reduce;
    const tfl_index_iter *it = &x->u.scatter_gather.iter;
    if (N < 0 || idx_iter_count(it) != N || x->u.scatter_gather.index_size < 0 ||
        x->u.scatter_gather.index_stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size, isz = k->index_dtype == TFL_DT_I64 ? 8 : 4;
    /* the indexed operand may move by up to (index_size - 1) strides */
    const int64_t reach = x->u.scatter_gather.index_size > 0
        ? (x->u.scatter_gather.index_size - 1) * x->u.scatter_gather.index_stride * es : 0;
    const int64_t self_b = idx_iter_span(it, 0, es) + (k->scatter ? reach : 0);
    const int64_t src_b = k->fill ? 0 : idx_iter_span(it, 1, es) + (k->scatter ? 0 : reach);
    if (!idx_range_ok(x->u.scatter_gather.self, self_b) || !idx_range_ok(x->u.scatter_gather.src, src_b) ||
        !idx_range_ok(x->u.scatter_gather.index, idx_iter_span(it, 2, isz))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

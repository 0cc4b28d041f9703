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

/* _scatter_gather_elementwise_kernel<128, 8, _cuda_scatter_gather_internal_
 * kernel<is_scatter, T, index_t>::operator()<Functor>(...)::lambda(int)> */
int idx_match_scatter_gather(const char *m, index_kernel *k)
{
    const char *key = "36_cuda_scatter_gather_internal_kernelILb";
    const char *fkey = "34_cuda_scatter_fill_internal_kernelI";
    const char *p = strstr(m, key);
    if (!strstr(m, "34_scatter_gather_elementwise_kernelI"))
        return 0;
    if (p) {
        p += strlen(key);
        if ((p[0] != '0' && p[0] != '1') || p[1] != 'E')
            return 0;
        k->scatter = p[0] == '1';
        p += 2;
    } else if ((p = strstr(m, fkey))) {
        /* scatter(dim, index, value): _cuda_scatter_fill_internal_kernel<T, index_t> */
        p += strlen(fkey);
        k->scatter = 1;
        k->fill = 1;
    } else {
        return 0;
    }
    const char *t = p;
    k->elem_size = idx_mangled_size(&p);
    if (!k->elem_size || (*p != 'i' && *p != 'l'))
        return 0;
    k->dtype = idx_type_dtype(t, (size_t)(p - t));
    k->index_dtype = *p == 'l' ? TFL_DT_I64 : TFL_DT_I32;
    p++;
    if (strncmp(p, "EclINS0_12TensorAssignE", 23) == 0)
        k->reduce = TFL_INDEX_ASSIGN;
    else if (k->fill)
        return 0;
    else if (!(k->dtype == TFL_DT_F32 || k->dtype == TFL_DT_F64 ||
               k->dtype == TFL_DT_I32 || k->dtype == TFL_DT_I64 ||
               k->dtype == TFL_DT_F16 || k->dtype == TFL_DT_BF16))
        return 0;
    /* scatter_reduce: ReduceMean only sums (PyTorch divides by the counts
     * in a later elementwise kernel) */
    else if (strncmp(p, "EclINS0_9ReduceAddE", 19) == 0 ||
             strncmp(p, "EclINS0_10ReduceMeanE", 21) == 0)
        k->reduce = TFL_INDEX_ADD;
    else if (strncmp(p, "EclINS0_14ReduceMultiplyE", 25) == 0)
        k->reduce = TFL_INDEX_MUL;
    else if (strncmp(p, "EclINS0_13ReduceMaximumE", 24) == 0)
        k->reduce = TFL_INDEX_MAX;
    else if (strncmp(p, "EclINS0_13ReduceMinimumE", 24) == 0)
        k->reduce = TFL_INDEX_MIN;
    else
        return 0;
    k->kind = K_SCATTER_GATHER;
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
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

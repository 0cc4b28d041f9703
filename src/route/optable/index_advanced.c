/*
 * index_advanced.c - advanced indexing x[idx] and x[idx] = v (no accumulate):
 * index_elementwise_kernel over gpu_index_kernel's lambda.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"

/* index_elementwise_kernel<128, 4, gpu_index_kernel<index[_put]_kernel_impl<
 * OpaqueType<N>>(...)::lambda>(...)::lambda(int)> */
int idx_match_advanced(const char *m, index_kernel *k)
{
    const char *p = strstr(m, "24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_");
    if (!p)
        return 0;
    p += strlen("24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_");
    int n = 0, len = 0;
    if (sscanf(p, "17index_kernel_implINS0_10OpaqueTypeILi%dEEEEEv%n", &n, &len) == 1 && len)
        k->put = 0;
    else if (sscanf(p, "21index_put_kernel_implINS0_10OpaqueTypeILi%dEEEEEv%n", &n, &len) == 1 && len)
        k->put = 1;
    else
        return 0;
    if (n <= 0 || n > 16)
        return 0;
    k->elem_size = (size_t)n;
    k->kind = K_ADVANCED;
    return 1;
}

/* the lambda of gpu_index_kernel (1240 bytes): offset_calc @0, out_ptr
 * @608, in_ptr @616, num_indices (int) @624, index_ptrs[25] @632,
 * sizes[25] @832, strides[25] (bytes) @1032, f @1232 (read off a 2.11
 * launch) */
tfl_status idx_run_advanced(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                               int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    const int64_t N = ARG(c, 0, int64_t);
    x->kind = TFL_INDEX_ADVANCED;
    x->elem_size = k->elem_size;
    x->index_dtype = TFL_DT_I64;
    if (!idx_read_offcalc(f, 3, &x->u.advanced.iter))
        return TFL_ERR_UNSUPPORTED;
    int32_t ni;
    memcpy(&x->u.advanced.out, f + 608, 8);
    memcpy(&x->u.advanced.in, f + 616, 8);
    memcpy(&ni, f + 624, 4);
    if (ni < 0 || ni > TFL_INDEX_MAX_DIMS)
        return TFL_ERR_UNSUPPORTED;
    x->u.advanced.n_indices = ni;
    x->u.advanced.put = k->put;
    const tfl_index_iter *it = &x->u.advanced.iter;
    if (N < 0 || idx_iter_count(it) != N)
        return TFL_ERR_UNSUPPORTED;
    int64_t reach = 0;
    for (int i = 0; i < ni; i++) {
        memcpy(&x->u.advanced.index_ptrs[i], f + 632 + 8 * i, 8);
        memcpy(&x->u.advanced.sizes[i], f + 832 + 8 * i, 8);
        memcpy(&x->u.advanced.strides[i], f + 1032 + 8 * i, 8);
        if (x->u.advanced.sizes[i] < 0 || x->u.advanced.strides[i] < 0)
            return TFL_ERR_UNSUPPORTED;
        if (x->u.advanced.sizes[i] > 0)
            reach += (x->u.advanced.sizes[i] - 1) * x->u.advanced.strides[i];
    }
    if (N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size;
    int ok = idx_range_ok(x->u.advanced.out, idx_iter_span(it, 0, es) + (k->put ? reach : 0)) &&
             idx_range_ok(x->u.advanced.in, idx_iter_span(it, 1, es) + (k->put ? 0 : reach));
    for (int i = 0; ok && i < ni; i++)
        ok = idx_range_ok(x->u.advanced.index_ptrs[i], idx_iter_span(it, 2, 8));
    if (!ok) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_DEVICE;
    }
    *route = 1;
    return TFL_OK;
}

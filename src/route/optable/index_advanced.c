/*
 * index_advanced.c - advanced indexing x[idx] and x[idx] = v (no accumulate):
 * index_elementwise_kernel over gpu_index_kernel's lambda.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"
#include "route/optable/pt_abi.h"

/* OpaqueType<N> as the single template argument list at lt ("<OpaqueType<
 * 4> >"): N, or 0. */
static size_t opaque_arg(const char *lt)
{
    const char *a[2];
    size_t al[2];
    tfl_dtype dt;
    if (tfl_pt_template_args(lt, a, al, 2) != 1 || al[0] < 11 || memcmp(a[0], "OpaqueType<", 11))
        return 0;
    return idx_type_size(a[0], al[0], &dt);
}

/* index_elementwise_kernel<nt, vt, lambda(int)> (nt, vt: the launch shape),
 * the lambda one of
 *   gpu_index_kernel<index_kernel_impl<OpaqueType<N>>(...)::lambda>(...)
 *   gpu_index_kernel<index_put_kernel_impl<OpaqueType<N>>(...)::lambda>(...)
 *   index_copy_kernel_impl<OpaqueType<N>>(...)   (their own lambdas)
 *   index_fill_kernel_impl<OpaqueType<N>>(...)
 *   flip_kernel_impl<OpaqueType<N>>(...) */
int idx_match_advanced(const tfl_kname *n, index_kernel *k)
{
    static const struct { const char *fn; int kind, put; } own[] = {
        { "index_copy_kernel_impl", K_INDEX_COPY, 0 },
        { "index_fill_kernel_impl", K_INDEX_FILL, 0 },
        { "flip_kernel_impl", K_FLIP, 0 },
    };
    static const struct { const char *fn; int put; } impl[] = {
        { "index_kernel_impl<", 0 }, { "index_put_kernel_impl<", 1 },
    };
    int used[] = { 2 };
    const char *lt, *after;
    if (!idx_plain_name(n, "index_elementwise_kernel") || n->ntargs != 3 ||
        !idx_others_constant(n, used, 1))
        return 0;
    const char *lam = n->targ[2];
    const size_t ll = n->targ_len[2];
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        if (idx_lambda_of(lam, ll, own[i].fn, &lt, &after) && *after == '(' &&
            (k->elem_size = opaque_arg(lt))) {
            k->kind = own[i].kind;
            return 1;
        }
    }
    /* gpu_index_kernel's one template argument is the impl's element
     * lambda: "<index_kernel_impl<OpaqueType<N> >(...)::{lambda(char*,
     * char const*, long)#1}>" */
    if (!idx_lambda_of(lam, ll, "gpu_index_kernel", &lt, &after) || *after != '(')
        return 0;
    const char *a[2];
    size_t al[2];
    if (tfl_pt_template_args(lt, a, al, 2) != 1)
        return 0;
    for (size_t i = 0; i < sizeof impl / sizeof impl[0]; i++) {
        const size_t fl = strlen(impl[i].fn);
        if (al[0] > fl && !memcmp(a[0], impl[i].fn, fl) &&
            (k->elem_size = opaque_arg(a[0] + fl - 1))) {
            k->kind = K_ADVANCED;
            k->put = impl[i].put;
            return 1;
        }
    }
    return 0;
}

/* (int64 N, lambda by value): gpu_index_kernel's 1240 bytes, index_copy's
 * 648, flip's 520 (captures below); index_fill's ends with the value after
 * 536 bytes of captures, at its alignment, the whole padded to it. */
int idx_layout_advanced(const index_kernel *k, tfl_klayout *l)
{
    tfl_klayout_add(l, 8, 8);
    switch (k->kind) {
    case K_ADVANCED:   tfl_klayout_add(l, 1240, 8); break;
    case K_INDEX_COPY: tfl_klayout_add(l, 648, 8); break;
    case K_FLIP:       tfl_klayout_add(l, 520, 8); break;
    default: {
        const size_t a = k->elem_size > 8 ? k->elem_size : 8;
        const size_t value = (536 + k->elem_size - 1) / k->elem_size * k->elem_size;
        tfl_klayout_add(l, (value + k->elem_size + a - 1) / a * a, a);
    }
    }
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
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

/* index_copy_ (648-byte lambda): offset_calc<3> (self, index, source) @0,
 * self_ptr @608, idx_ptr @616, source_ptr @624, self_dim_size @632,
 * self_dim_stride (elements) @640: self[off0 + idx * stride] = source[off2]
 * -> a scatter with operands reordered.
 * index_fill_ (544 bytes, 560 for 16-byte elements): offset_calc<2> (self,
 * index) @0, self_ptr @504, idx_ptr @512, self_dim_size @520,
 * self_dim_stride @528, fill value @536 (@544 when 16-aligned); negative
 * indices count from the end -> a scatter of a value.
 * (read off 2.11 launches; sizes match the cubins' parameter blocks) */
tfl_status idx_run_copy_fill(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                             int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    const int64_t N = *(int64_t *)c->args[0];
    tfl_index_iter *it = &x->u.scatter_gather.iter;
    x->kind = TFL_INDEX_SCATTER_GATHER;
    x->elem_size = k->elem_size;
    x->index_dtype = TFL_DT_I64;
    x->dtype = TFL_DT_U8;
    x->u.scatter_gather.scatter = 1;
    x->u.scatter_gather.reduce = TFL_INDEX_ASSIGN;
    if (k->kind == K_INDEX_COPY) {
        if (!idx_read_offcalc(f, 3, it))
            return TFL_ERR_UNSUPPORTED;
        for (int d = 0; d < it->ndim; d++) {   /* (self, index, source) -> (self, source, index) */
            int64_t t = it->strides[1][d];
            it->strides[1][d] = it->strides[2][d];
            it->strides[2][d] = t;
        }
        memcpy(&x->u.scatter_gather.self, f + 608, 8);
        memcpy(&x->u.scatter_gather.index, f + 616, 8);
        memcpy(&x->u.scatter_gather.src, f + 624, 8);
        memcpy(&x->u.scatter_gather.index_size, f + 632, 8);
        memcpy(&x->u.scatter_gather.index_stride, f + 640, 8);
    } else {
        if (!idx_read_offcalc(f, 2, it))
            return TFL_ERR_UNSUPPORTED;
        for (int d = 0; d < it->ndim; d++) {   /* (self, index) -> (self, -, index) */
            it->strides[2][d] = it->strides[1][d];
            it->strides[1][d] = 0;
        }
        memcpy(&x->u.scatter_gather.self, f + 504, 8);
        memcpy(&x->u.scatter_gather.index, f + 512, 8);
        memcpy(&x->u.scatter_gather.index_size, f + 520, 8);
        memcpy(&x->u.scatter_gather.index_stride, f + 528, 8);
        memcpy(x->u.scatter_gather.value, f + (k->elem_size == 16 ? 544 : 536), k->elem_size);
        x->u.scatter_gather.use_value = 1;
        x->u.scatter_gather.allow_negative = 1;
    }
    if (N < 0 || idx_iter_count(it) != N || x->u.scatter_gather.index_size < 0 ||
        x->u.scatter_gather.index_stride < 0)
        return TFL_ERR_UNSUPPORTED;
    if (N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size;
    const int64_t reach = x->u.scatter_gather.index_size > 0
        ? (x->u.scatter_gather.index_size - 1) * x->u.scatter_gather.index_stride * es : 0;
    if (!idx_range_ok(x->u.scatter_gather.self, idx_iter_span(it, 0, es) + reach) ||
        (k->kind == K_INDEX_COPY && !idx_range_ok(x->u.scatter_gather.src, idx_iter_span(it, 1, es))) ||
        !idx_range_ok(x->u.scatter_gather.index, idx_iter_span(it, 2, 8))) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

/* flip (520-byte lambda): offset_calc<2, signed strides> (out, in) @0,
 * out_ptr @504, in_ptr @512: out[off0] = in[off1] -> advanced indexing
 * with no index. */
tfl_status idx_run_flip(const tfl_kcall *c, const index_kernel *k, tfl_op *op,
                        int *route, char *err, size_t errlen)
{
    tfl_index_op *x = &op->u.index;
    const unsigned char *f = c->args[1];
    const int64_t N = *(int64_t *)c->args[0];
    tfl_index_iter *it = &x->u.advanced.iter;
    x->kind = TFL_INDEX_ADVANCED;
    x->elem_size = k->elem_size;
    x->index_dtype = TFL_DT_I64;
    if (!idx_read_offcalc_s(f, 2, 1, it))
        return TFL_ERR_UNSUPPORTED;
    memcpy(&x->u.advanced.out, f + 504, 8);
    memcpy(&x->u.advanced.in, f + 512, 8);
    x->u.advanced.n_indices = 0;
    x->u.advanced.put = 0;
    if (N < 0 || idx_iter_count(it) != N)
        return TFL_ERR_UNSUPPORTED;
    if (N == 0)
        return TFL_OK;
    const int64_t es = (int64_t)k->elem_size;
    int64_t lo0, hi0, lo1, hi1;
    idx_iter_bounds(it, 0, es, &lo0, &hi0);
    idx_iter_bounds(it, 1, es, &lo1, &hi1);
    if (!idx_range_ok((const char *)x->u.advanced.out + lo0, hi0 - lo0) ||
        !idx_range_ok((const char *)x->u.advanced.in + lo1, hi1 - lo1)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op->name);
        return TFL_ERR_INVALID;
    }
    *route = 1;
    return TFL_OK;
}

/*
 * elementwise.c - the "elementwise" kernel family of the semantic op table.
 *
 * PyTorch's TensorIterator loops (ATen/native/cuda/CUDALoops.cuh) launch
 * one of three kernel forms around an op's functor:
 *   vectorized_elementwise_kernel<vec, F, std::array<char*,n>>(int N, F f, array data)
 *       contiguous, no casts; vec (1/2/4/8) only changes memory access;
 *   unrolled_elementwise_kernel<F, array, 4, TrivialOffsetCalculator x2,
 *       loader, storer>(N, f, data, ic, oc, loader, storer)
 *       contiguous; LoadWithCast/StoreWithCast carry the operands' dtypes;
 *   elementwise_kernel<128, vt, gpu_kernel_impl[_nocast]<F>(...)::{lambda(int)#1}>(int N, lambda)
 *       strided ("legacy"): the lambda holds OffsetCalculator<n>, the data
 *       pointers, f, and (casting form) the operands' ScalarTypes;
 * and arange's elementwise_kernel_with_index<index_t, F>(N, f, out).
 * The functor F (a struct such as BinaryFunctor<float,float,float,
 * MulFunctor<float>>, or a lambda named by its enclosing function) says
 * what is computed; its captured scalars are in its parameter bytes.
 *
 * match() demangles the name once and builds a decoding plan (the cookie);
 * run() reads the launch's parameters by that plan into a
 * tfl_elementwise_op and routes it.  Layouts: see pt_abi.h.
 */
#include "route/optable.h"
#include "route/optable/pt_abi.h"
#include "route/optable/elementwise_table.h"
#include "route/dispatch.h"
#include "mem/mem.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Remove every occurrence of pat from s (in place). */
static void strip_all(char *s, const char *pat)
{
    size_t n = strlen(pat);
    char *p;
    while ((p = strstr(s, pat)) != NULL)
        memmove(p, p + n, strlen(p + n) + 1);
}

/* Drop namespace qualifiers the decoder does not need, including nvcc's
 * per-file "_INTERNAL_<hash>_<file>_cu_<hash>::" namespaces. */
static void simplify(char *s)
{
    strip_all(s, "at::native::");
    strip_all(s, "(anonymous namespace)::");
    strip_all(s, "torch::headeronly::detail::");
    char *p;
    while ((p = strstr(s, "_INTERNAL_")) != NULL) {
        char *e = strstr(p, "::");
        if (!e)
            break;
        memmove(p, e + 2, strlen(e + 2) + 1);
    }
}

static int starts(const char *s, size_t len, const char *pre)
{
    size_t n = strlen(pre);
    return len >= n && memcmp(s, pre, n) == 0;
}

/* "std::array<char*, 3ul>" -> 3 */
static int array_count(const char *s, size_t len)
{
    if (!starts(s, len, "std::array<char*,"))
        return -1;
    return atoi(s + strlen("std::array<char*,"));
}

/* Parse Load/StoreWithCast<k> or ...WithoutCast: 0 without, k+1 with. */
static int cast_count(const char *s, size_t len, const char *with, const char *without)
{
    if (starts(s, len, without) && len == strlen(without))
        return 0;
    if (starts(s, len, with)) {
        if (len == strlen(with))
            return -1;
        return atoi(s + strlen(with) + 1) + 1;
    }
    return -1;
}

/* Build the plan for a kernel whose simplified demangled name is s. */
static tfl_ew_plan *plan_of(const char *s)
{
    const char *a[8];
    size_t al[8];
    tfl_ew_plan p;
    memset(&p, 0, sizeof p);
    const char *func = NULL;
    size_t func_len = 0;

    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    if (strncmp(s, "vectorized_elementwise_kernel<", 30) == 0) {
        if (tfl_pt_template_args(s + 29, a, al, 8) != 3)
            return NULL;
        p.form = TFL_EWF_VECTORIZED;
        p.vec = atoi(a[0]);
        func = a[1]; func_len = al[1];
        p.ntensors = array_count(a[2], al[2]);
    } else if (strncmp(s, "unrolled_elementwise_kernel<", 28) == 0) {
        if (tfl_pt_template_args(s + 27, a, al, 8) != 7)
            return NULL;
        p.form = TFL_EWF_UNROLLED;
        func = a[0]; func_len = al[0];
        p.ntensors = array_count(a[1], al[1]);
        if (!starts(a[3], al[3], "TrivialOffsetCalculator<") ||
            !starts(a[4], al[4], "TrivialOffsetCalculator<"))
            return NULL;
        p.load_cast = cast_count(a[5], al[5], "memory::LoadWithCast", "memory::LoadWithoutCast");
        p.store_cast = cast_count(a[6], al[6], "memory::StoreWithCast", "memory::StoreWithoutCast");
        if (p.load_cast < 0 || p.store_cast < 0 || p.store_cast == 1 || p.store_cast > 2)
            return NULL;
    } else if (strncmp(s, "elementwise_kernel_with_index<", 30) == 0) {
        /* (index_t N, lambda(int64 i) -> scalar_t, scalar_t* out) */
        if (tfl_pt_template_args(s + 29, a, al, 8) != 2)
            return NULL;
        p.form = TFL_EWF_INDEX;
        p.index_bytes = starts(a[0], al[0], "int") && al[0] == 3 ? 4
                      : starts(a[0], al[0], "long") && al[0] == 4 ? 8 : 0;
        char lb[1024];
        if (!p.index_bytes || al[1] >= sizeof lb)
            return NULL;
        memcpy(lb, a[1], al[1]);
        lb[al[1]] = 0;
        if (!tfl_ew_parse_index_functor(lb, &p.fn))
            return NULL;
        p.ntensors = 1;
        tfl_ew_plan *out = malloc(sizeof *out);
        if (out)
            *out = p;
        return out;
    } else if (strncmp(s, "elementwise_kernel<128,", 23) == 0) {
        if (tfl_pt_template_args(s + 18, a, al, 8) != 3)
            return NULL;
        p.form = TFL_EWF_LEGACY;
        p.vec = atoi(a[1]);
        const char *l = a[2];
        size_t ll = al[2];
        const char *tail = "::{lambda(int)#1}";
        size_t tl = strlen(tail);
        if (ll < tl || memcmp(l + ll - tl, tail, tl) != 0)
            return NULL;
        const char *lt;
        if (starts(l, ll, "gpu_kernel_impl_nocast<")) {
            lt = l + strlen("gpu_kernel_impl_nocast");
        } else if (starts(l, ll, "gpu_kernel_impl<")) {
            lt = l + strlen("gpu_kernel_impl");
            p.legacy_cast = 1;
        } else {
            return NULL;
        }
        const char *e = tfl_pt_match_angle(lt);
        if (!e)
            return NULL;
        func = lt + 1;
        func_len = (size_t)(e - func);
        while (func_len && func[func_len - 1] == ' ') func_len--;
    } else {
        return NULL;
    }
    if (p.ntensors < 0 || p.ntensors > TFL_EW_MAX_OPERANDS)
        return NULL;
    char fbuf[2048];
    if (func_len >= sizeof fbuf)
        return NULL;
    memcpy(fbuf, func, func_len);
    fbuf[func_len] = 0;
    if (!tfl_ew_parse_functor(fbuf, &p.fn))
        return NULL;
    if (p.form == TFL_EWF_LEGACY)       /* the lambda's name has no array type */
        p.ntensors = p.fn.arity + 1;
    if (p.ntensors != p.fn.arity + 1)
        return NULL;
    if (p.form == TFL_EWF_UNROLLED && p.load_cast && p.load_cast - 1 != p.fn.arity)
        return NULL;
    tfl_ew_plan *out = malloc(sizeof *out);
    if (out)
        *out = p;
    return out;
}

tfl_ew_plan *tfl_ew_plan_for(const char *mangled)
{
    char *d = tfl_pt_demangle(mangled);
    if (!d)
        return NULL;
    if (!strstr(d, "elementwise_kernel")) {
        free(d);
        return NULL;
    }
    simplify(d);
    tfl_ew_plan *p = plan_of(d);
    free(d);
    return p;
}

static int match(const char *mangled, void **cookie)
{
    /* Cheap filter before demangling: every form has this in its name. */
    if (!strstr(mangled, "elementwise_kernel"))
        return 0;
    tfl_ew_plan *p = tfl_ew_plan_for(mangled);
    if (!p)
        return 0;
    static const char *forms[] = { "?", "vectorized", "unrolled", "legacy", "with_index" };
    tfl_debug("elementwise: %s as %s%s (vec/unroll %d, %d tensors, %s%s): %s", p->fn.name,
              forms[p->form], p->legacy_cast ? " casting" : "", p->vec, p->ntensors,
              p->load_cast ? "load-cast " : "", p->store_cast ? "store-cast" : "", mangled);
    *cookie = p;
    return 1;
}

static const char *op_name(void *cookie)
{
    const tfl_ew_plan *p = cookie;
    return p ? p->fn.name : "elementwise";
}

/* Check that every tensor operand's addressed range is device memory. */
static tfl_status check_ranges(const tfl_elementwise_op *op, char *err, size_t errlen)
{
    for (int k = 0; k <= op->ninputs; k++) {
        const tfl_ew_operand *o = &op->operand[k];
        if (o->is_scalar)
            continue;
        size_t es = tfl_dtype_size((tfl_dtype)o->dtype);
        int64_t lo = 0, hi = 0;
        for (int d = 0; d < op->ndim; d++) {
            int64_t ext = (op->shape[d] - 1) * o->strides[d];
            if (ext < 0) lo += ext; else hi += ext;
        }
        const char *base = (const char *)o->data + lo;
        size_t n = (size_t)(hi - lo) + es;
        if (!tfl_mem_check_range(base, n, NULL)) {
            snprintf(err, errlen, "elementwise %s: operand %d [%p, +%zu) is not device memory",
                     tfl_ew_code_name(op->code), k, (const void *)base, n);
            return TFL_ERR_DEVICE;
        }
    }
    return TFL_OK;
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const tfl_ew_plan *p = cookie;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_ELEMENTWISE;
    op.name = p->fn.name;
    int64_t n = 0;
    tfl_status st = tfl_ew_decode(p, (const void *const *)call->args, &op.u.elementwise, &n,
                                  err, errlen);
    if (st != TFL_OK || n == 0)
        return st;
    st = check_ranges(&op.u.elementwise, err, errlen);
    if (st != TFL_OK)
        return st;
    return tfl_route_op(&op, call->stream);
}

const tfl_kfamily tfl_kfamily_elementwise = {
    .name = "elementwise",
    .match = match,
    .run = run,
    .op_name = op_name,
};

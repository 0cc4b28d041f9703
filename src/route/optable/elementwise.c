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
#include "route/optable/kname.h"
#include "route/optable/elementwise_table.h"
#include "route/dispatch.h"
#include "mem/mem.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Template arguments not in `used` must be constants (int or bool): they
 * choose how memory is accessed (vector width, the vec8 load path 2.15
 * added), never what is computed - the functor and the parameter list,
 * which the layout check validates, say that.  A type argument we do not
 * know could change the meaning, so it is not claimed. */
static int others_constant(const tfl_kname *k, const int *used, int nused)
{
    return tfl_kname_others_constant(k, used, nused);
}

/* The lambda of a legacy kernel: gpu_kernel_impl[_nocast]<F>(...)::{lambda(int)#1}. */
static int legacy_functor(tfl_ew_plan *p, const char *l, size_t ll, const char **func,
                          size_t *func_len)
{
    const char *tail = "::{lambda(int)#1}";
    size_t tl = strlen(tail);
    if (ll < tl || memcmp(l + ll - tl, tail, tl) != 0)
        return 0;
    const char *lt;
    if (starts(l, ll, "gpu_kernel_impl_nocast<")) {
        lt = l + strlen("gpu_kernel_impl_nocast");
    } else if (starts(l, ll, "gpu_kernel_impl<")) {
        lt = l + strlen("gpu_kernel_impl");
        p->legacy_cast = 1;
    } else {
        return 0;
    }
    const char *e = tfl_pt_match_angle(lt);
    if (!e)
        return 0;
    *func = lt + 1;
    *func_len = (size_t)(e - *func);
    while (*func_len && (*func)[*func_len - 1] == ' ') (*func_len)--;
    return 1;
}

/* Build the plan for a kernel from its parsed name.  Each form is found
 * by its base name; its template arguments by what they are. */
static tfl_ew_plan *plan_of(const tfl_kname *k)
{
    tfl_ew_plan p;
    memset(&p, 0, sizeof p);
    const char *func = NULL;
    size_t func_len = 0;
    long long v;

    if (tfl_kname_is(k, "vectorized_elementwise_kernel")) {
        /* <vec, F, std::array<char*, n> [, bool (2.15+)]> */
        int arr = tfl_kname_find_targ(k, 1, "std::array<char*,");
        int used[] = { 0, 1, arr };
        if (arr != 2 || !tfl_kname_targ_int(k, 0, &v) || !others_constant(k, used, 3))
            return NULL;
        p.form = TFL_EWF_VECTORIZED;
        p.vec = (int)v;
        func = k->targ[1]; func_len = k->targ_len[1];
        p.ntensors = array_count(k->targ[arr], k->targ_len[arr]);
    } else if (tfl_kname_is(k, "unrolled_elementwise_kernel")) {
        /* <F, array, elems, TrivialOffsetCalculator x2, loader, storer> */
        int arr = tfl_kname_find_targ(k, 1, "std::array<char*,");
        int ic = tfl_kname_find_targ(k, 1, "TrivialOffsetCalculator<");
        int oc = ic < 0 ? -1 : tfl_kname_find_targ(k, ic + 1, "TrivialOffsetCalculator<");
        int ld = tfl_kname_find_targ(k, 1, "memory::Load");
        int st = tfl_kname_find_targ(k, 1, "memory::Store");
        int used[] = { 0, arr, ic, oc, ld, st };
        if (arr < 0 || oc < 0 || ld < 0 || st < 0 || !others_constant(k, used, 6))
            return NULL;
        p.form = TFL_EWF_UNROLLED;
        func = k->targ[0]; func_len = k->targ_len[0];
        p.ntensors = array_count(k->targ[arr], k->targ_len[arr]);
        p.load_cast = cast_count(k->targ[ld], k->targ_len[ld], "memory::LoadWithCast",
                                 "memory::LoadWithoutCast");
        p.store_cast = cast_count(k->targ[st], k->targ_len[st], "memory::StoreWithCast",
                                  "memory::StoreWithoutCast");
        if (p.load_cast < 0 || p.store_cast < 0 || p.store_cast == 1 || p.store_cast > 2)
            return NULL;
    } else if (tfl_kname_is(k, "elementwise_kernel_with_index")) {
        /* (index_t N, lambda(int64 i) -> scalar_t, scalar_t* out) */
        if (k->ntargs != 2)
            return NULL;
        p.form = TFL_EWF_INDEX;
        p.index_bytes = tfl_kname_targ_is(k, 0, "int") ? 4
                      : tfl_kname_targ_is(k, 0, "long") ? 8 : 0;
        char lb[1024];
        if (!p.index_bytes || k->targ_len[1] >= sizeof lb)
            return NULL;
        memcpy(lb, k->targ[1], k->targ_len[1]);
        lb[k->targ_len[1]] = 0;
        if (!tfl_ew_parse_index_functor(lb, &p.fn))
            return NULL;
        p.ntensors = 1;
        tfl_ew_plan *out = malloc(sizeof *out);
        if (out)
            *out = p;
        return out;
    } else if (tfl_kname_is(k, "elementwise_kernel") && tfl_kname_targ_is(k, 0, "128")) {
        /* <nt = 128, vt, gpu_kernel_impl[_nocast]<F>(...)::{lambda(int)#1}> */
        int lam = -1;
        for (int i = 1; i < k->ntargs && i < TFL_KNAME_MAX && lam < 0; i++)
            if (!tfl_kname_targ_int(k, i, &v))
                lam = i;
        int used[] = { 0, lam };
        if (lam < 0 || !tfl_kname_targ_int(k, 1, &v) || !others_constant(k, used, 2))
            return NULL;
        p.form = TFL_EWF_LEGACY;
        p.vec = (int)v;
        if (!legacy_functor(&p, k->targ[lam], k->targ_len[lam], &func, &func_len))
            return NULL;
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
    if (!mangled || !strstr(mangled, "elementwise_kernel"))
        return NULL;
    tfl_kname k;
    if (tfl_kname_parse(mangled, &k) != 0)
        return NULL;
    tfl_ew_plan *p = plan_of(&k);
    tfl_kname_free(&k);
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
            return TFL_ERR_INVALID;
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

static int layout(void *cookie, tfl_klayout *l)
{
    size_t off[8], size[8];
    int n = tfl_ew_param_layout(cookie, off, size, 8);
    for (int i = 0; i < n && i < 8; i++) {
        l->size[i] = (uint32_t)size[i];
        l->offset[i] = (uint32_t)off[i];
    }
    l->n = n <= 8 ? n : -1;
    return 1;
}

const tfl_kfamily tfl_kfamily_elementwise = {
    .name = "elementwise",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

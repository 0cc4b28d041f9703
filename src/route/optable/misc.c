/*
 * misc.c - the "misc" kernel family of the semantic op table: single
 * kernels of PyTorch ops that fit no other family, decoded into the op of
 * the backend ABI that already describes them.
 *
 * Claimed:
 *   cub DeviceReduceSingleTileKernel / DeviceReduceKernel over
 *     thrust::transform_iterator<at::native::internal::MapNumberOfTrueValues,
 *     const unsigned char *, int> with int accumulation and plus
 *     (torch.unique of a bool tensor counts the true values first):
 *     the count of nonzero bytes, routed as a TFL_SCAN_TOTAL scan op with
 *     nonzero = 1 over U8, exactly as nonzero's count (scan family).  The
 *     second pass of the multi-block reduce (over the int partials) is
 *     the scan family's.
 *   Recognised by structure: the cub kernel's base name, the iterator
 *   type (thrust's versioned namespace and the iterator's defaulted
 *   Reference argument changed in 2.13's CCCL 3.2) and the accumulator
 *   types.  Parameter layouts (sm_80 cubins, the same in 2.11 to 2.15):
 *     single tile: iterator @0 (16 bytes, the uchar pointer at 0),
 *       int *out @16, unsigned long long num_items @24, plus @32, int init
 *       @36, identity @40;
 *     multi block: iterator @0, int *partials @16, unsigned long long
 *       num_items @24, GridEvenShare @32 (72 bytes), plus @104, identity
 *       @105; one partial per block (gridDim.x): the whole count goes to
 *       partials[0] and zeros to the others, so the second pass adds up
 *       to the same total (integers: exact).
 *   unique_bool_write_output(int numel, const int *num_true, bool *values,
 *     long *counts) and unique_bool_write_inverse_indices(int numel, const
 *     int *num_true, const bool *self, long *inverse) (Unique.cu, the
 *     rest of torch.unique over bool): TFL_OP_MISC (torchfl/ops/misc.h).
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

enum { MK_TRUE_COUNT_SINGLE = 1, MK_TRUE_COUNT_MULTI = 2, MK_UNIQUE_BOOL_OUTPUT = 3,
       MK_UNIQUE_BOOL_INVERSE = 4 };

/* Per kernel: its qualified name, the template arguments after the
 * iterator (cub kernels; "*" ends a name's tail: "...::plus<void>"), the
 * parameter types (Unique.cu's, which take no template) and the
 * parameter signature run() reads (optable.h tokens). */
static const struct {
    int kind;
    const char *name;
    const char *targs[7];
    const char *params[4];
    const char *sig;
} kernels[] = {
    { MK_UNIQUE_BOOL_OUTPUT, "internal::unique_bool_write_output", { NULL },
      { "int", "int const*", "bool*", "long*" }, "i p p p" },
    { MK_UNIQUE_BOOL_INVERSE, "internal::unique_bool_write_inverse_indices", { NULL },
      { "int", "int const*", "bool const*", "long*" }, "i p p p" },
    /* <Policy, It, int* out, ull n, plus, int init, int acc, identity>
     * (It in, int* out, ull n, plus, int init, identity) */
    { MK_TRUE_COUNT_SINGLE, "cub::detail::reduce::DeviceReduceSingleTileKernel",
      { "int*", "unsigned long long", "*::plus<void>", "int", "int", "*identity", NULL },
      { NULL }, "16:8 p l b i b" },
    /* <Policy, It, ull n, plus, int acc, identity>
     * (It in, int* partials, ull n, GridEvenShare<ull>, plus, identity) */
    { MK_TRUE_COUNT_MULTI, "cub::detail::reduce::DeviceReduceKernel",
      { "unsigned long long", "*::plus<void>", "int", "*identity", NULL },
      { NULL }, "16:8 p l 72:8 b b" },
};

/* Does s (len bytes) equal want, or end with want+1 when want starts with
 * '*' (a namespace that changes between CCCL releases: cuda::std::__4::,
 * the identity functor's name __identity, later identity)? */
static int fits(const char *s, size_t len, const char *want)
{
    size_t n = strlen(want);
    if (want[0] != '*')
        return len == n && memcmp(s, want, n) == 0;
    n--;
    const char *tail = want + 1;
    return len >= n && memcmp(s + len - n, tail, n) == 0 &&
           (tail[0] == ':' || len == n || s[len - n - 1] == ':' || s[len - n - 1] == '_');
}

/* thrust::transform_iterator<MapNumberOfTrueValues, unsigned char const*,
 * Reference, Value>: the count of nonzero bytes as int.  Reference is int
 * (CCCL 3.0) or use_default (3.2: the functor's int result), Value
 * use_default; thrust's versioned namespace is not looked at. */
static int true_count_iterator(const char *s, size_t len)
{
    static const char it[] = "::transform_iterator<internal::MapNumberOfTrueValues, "
                             "unsigned char const*, ";
    /* s lies inside the NUL-terminated demangled name: strstr, bounded */
    const char *p = strstr(s, it);
    if (!p || p + strlen(it) > s + len || strncmp(s, "thrust::", 8) != 0 || s[len - 1] != '>')
        return 0;
    p += strlen(it);
    const char *end = s + len - 1;
    for (int arg = 0; arg < 2; arg++) {      /* Reference, Value */
        const char *c = arg == 0 ? memchr(p, ',', (size_t)(end - p)) : end;
        if (!c)
            return 0;
        size_t n = (size_t)(c - p);
        while (n && p[n - 1] == ' ')
            n--;
        if (!fits(p, n, "*::use_default") && !(arg == 0 && fits(p, n, "int")))
            return 0;
        p = c + 1;
        while (p < end && *p == ' ')
            p++;
    }
    return 1;
}

static int matches(const tfl_kname *k, int i)
{
    if (!tfl_kname_qualified(k, kernels[i].name))
        return 0;
    if (kernels[i].params[0]) {              /* a plain function */
        if (k->ntargs || k->nparams != 4)
            return 0;
        for (int j = 0; j < 4; j++)
            if (!tfl_kname_param_is(k, j, kernels[i].params[j]))
                return 0;
        return 1;
    }
    int n = 0;
    while (kernels[i].targs[n])
        n++;
    if (k->ntargs != n + 2 || k->nparams != 6 ||
        !tfl_kname_targ_starts(k, 0, "at_cuda_detail::cub::detail::reduce::policy_hub<int, "
                                     "unsigned long long, ") ||
        !true_count_iterator(k->targ[1], k->targ_len[1]))
        return 0;
    for (int j = 0; j < n; j++)
        if (!fits(k->targ[j + 2], k->targ_len[j + 2], kernels[i].targs[j]))
            return 0;
    return 1;
}

static int match(const char *m, void **cookie)
{
    if (!strstr(m, "unique_bool_write") && !strstr(m, "MapNumberOfTrueValues"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    int kind = 0;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0] && !kind; i++)
        if (matches(&k, (int)i))
            kind = kernels[i].kind;
    tfl_kname_free(&k);
    if (kind)
        *cookie = (void *)(uintptr_t)kind;
    return kind != 0;
}

static int layout(void *cookie, tfl_klayout *l)
{
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i].kind == (int)(uintptr_t)cookie)
            return tfl_klayout_sig(l, kernels[i].sig) == 0;
    return 0;
}

static const char *op_name(void *cookie)
{
    switch ((uintptr_t)cookie) {
    case MK_UNIQUE_BOOL_OUTPUT: return "unique_bool_output";
    case MK_UNIQUE_BOOL_INVERSE: return "unique_bool_inverse";
    default: return "count_true";
    }
}

static tfl_status run_unique_bool(const tfl_kcall *c, int which, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_MISC };
    tfl_misc_op *u = &op.u.misc;
    u->numel = TFL_KARG(c, int32_t, 0);
    u->num_true = TFL_KARG(c, const int32_t *, 1);
    int ok;
    if (which == MK_UNIQUE_BOOL_OUTPUT) {
        op.name = "unique_bool_output";
        u->kind = TFL_MISC_UNIQUE_BOOL_OUTPUT;
        u->values = TFL_KARG(c, uint8_t *, 2);
        u->counts = TFL_KARG(c, int64_t *, 3);
        /* the kernel writes one slot per distinct value (checked by the
         * host op: a count outside [0, numel] is refused there) */
        size_t slots = 2;
        if (tfl_mem_check_range(u->num_true, 4, NULL)) {
            const int64_t t = *u->num_true, f = u->numel - t;
            slots = (size_t)(t > 0) + (size_t)(f > 0);
        }
        ok = slots == 0 || (tfl_mem_check_range(u->values, slots, NULL) &&
                            tfl_mem_check_range(u->counts, slots * 8, NULL));
    } else {
        op.name = "unique_bool_inverse";
        u->kind = TFL_MISC_UNIQUE_BOOL_INVERSE;
        u->self = TFL_KARG(c, const uint8_t *, 2);
        u->inverse = TFL_KARG(c, int64_t *, 3);
        ok = u->numel == 0 || (tfl_mem_check_range(u->self, (size_t)u->numel, NULL) &&
                               tfl_mem_check_range(u->inverse, (size_t)u->numel * 8, NULL));
    }
    if (u->numel < 0)
        return TFL_ERR_UNSUPPORTED;
    if (!ok || !tfl_mem_check_range(u->num_true, 4, NULL)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    if ((uintptr_t)cookie == MK_UNIQUE_BOOL_OUTPUT || (uintptr_t)cookie == MK_UNIQUE_BOOL_INVERSE)
        return run_unique_bool(c, (int)(uintptr_t)cookie, err, errlen);
    const int single = (uintptr_t)cookie == MK_TRUE_COUNT_SINGLE;
    tfl_op op = { .kind = TFL_OP_SCAN, .name = "count_true" };
    tfl_scan_op *s = &op.u.scan;
    s->kind = TFL_SCAN_TOTAL;
    s->dtype = TFL_DT_U8;
    s->nonzero = 1;
    s->src = TFL_KARG_AT(c, const void *, 0, 0);
    s->total = TFL_KARG(c, void *, 1);
    s->total_dtype = TFL_DT_I32;
    uint64_t n = TFL_KARG(c, uint64_t, 2);
    if (n > (uint64_t)INT64_MAX / 2)
        return TFL_ERR_UNSUPPORTED;
    s->n = (int64_t)n;
    int32_t init = single ? TFL_KARG(c, int32_t, 4) : 0;
    memcpy(s->init, &init, 4);
    int64_t outs = 1;
    if (!single) {
        if (c->grid[1] != 1 || c->grid[2] != 1 || c->grid[0] == 0)
            return TFL_ERR_UNSUPPORTED;
        outs = c->grid[0];
        s->zero_after = outs;
    }
    if ((s->n && !tfl_mem_check_range(s->src, (size_t)s->n, NULL)) ||
        !tfl_mem_check_range(s->total, (size_t)outs * 4, NULL)) {
        snprintf(err, errlen, "count_true: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "count_true failed (%d)", (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_misc = {
    .name = "misc",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

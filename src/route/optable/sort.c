/*
 * sort.c - the "sort" kernel family of the semantic op table: sorting as
 * PyTorch (2.11 - 2.15) does it on a GPU (sort/argsort, and the sorts inside
 * randperm, unique, index_put_/index_add with accumulation and embedding
 * backward, with the kernels that consume them), and radix selection
 * (topk, kthvalue, median).  See docs/op-sort.md for the kernels and
 * their layouts.
 *
 * Kernels are recognised by structure (tfl_kname: base name, parameter
 * count, template arguments by what they are, compared without the
 * library-versioning namespaces of cub / thrust / libcu++, so torch 2.11's
 * CCCL 3.0 and 2.15's CCCL 3.2 names read alike), once per kernel; each
 * matcher also states the parameter layout its decoder reads (the cookie's
 * sig, checked against the cubins of torch 2.11 - 2.15).  The decoding is
 * split by kind:
 *   sort_inplace.c  PyTorch's own sort kernels (SortUtils.cuh,
 *                   SortStable.cu, Randperm.cuh);
 *   sort_cub.c      cub's radix sort kernels, emulated pass by pass;
 *   sort_seq.c      what runs on sorted data: cub scan / unique /
 *                   run-length encode / unique-by-key, unique's and
 *                   embedding backward's own kernels, the async assert;
 *   sort_select.c   radix select: topk, kthvalue, median.
 * All fill a tfl_sort_op (torchfl/ops/sort.h) that the backend runs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route/dispatch.h"
#include "route/optable/pt_abi.h"
#include "route/optable/sort_internal.h"

int sort_arg_is(const char *s, size_t len, const char *lit)
{
    return strlen(lit) == len && strncmp(s, lit, len) == 0;
}

int sort_key_type(const char *s, size_t len, tfl_sort_key *out)
{
    static const struct { const char *name; tfl_sort_key key; } map[] = {
        { "float", TFL_SORT_KEY_F32 },       { "double", TFL_SORT_KEY_F64 },
        { "__half", TFL_SORT_KEY_F16 },      { "c10::Half", TFL_SORT_KEY_F16 },
        { "__nv_bfloat16", TFL_SORT_KEY_BF16 }, { "c10::BFloat16", TFL_SORT_KEY_BF16 },
        { "bool", TFL_SORT_KEY_U8 },         { "unsigned char", TFL_SORT_KEY_U8 },
        { "signed char", TFL_SORT_KEY_I8 },  { "short", TFL_SORT_KEY_I16 },
        { "unsigned short", TFL_SORT_KEY_U16 }, { "int", TFL_SORT_KEY_I32 },
        { "unsigned int", TFL_SORT_KEY_U32 }, { "long", TFL_SORT_KEY_I64 },
        { "long long", TFL_SORT_KEY_I64 },   { "unsigned long", TFL_SORT_KEY_U64 },
        { "unsigned long long", TFL_SORT_KEY_U64 },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (sort_arg_is(s, len, map[i].name)) {
            *out = map[i].key;
            return 1;
        }
    return 0;
}

int sort_value_size(const char *s, size_t len, size_t *out)
{
    tfl_sort_key k;
    if (sort_key_type(s, len, &k)) {
        *out = tfl_sort_key_size(k);
        return 1;
    }
    if (sort_arg_is(s, len, "at_cuda_detail::cub::NullType")) {
        *out = 0;
        return 1;
    }
    if (sort_arg_is(s, len, "int2")) {
        *out = 8;
        return 1;
    }
    /* at::cuda::cub::detail::OpaqueType<N> or Randperm.cu's own one */
    const char *o = len > 12 ? strstr(s, "OpaqueType<") : NULL;
    if (o && o < s + len && s[len - 1] == '>') {
        long n = strtol(o + 11, NULL, 10);
        if (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) {
            *out = (size_t)n;
            return 1;
        }
    }
    return 0;
}

int sort_targ(const tfl_kname *kn, int i, char *out)
{
    return tfl_kname_targ_unversioned(kn, i, out, SORT_NORM_MAX);
}

int sort_targ_is(const tfl_kname *kn, int i, const char *want)
{
    char b[SORT_NORM_MAX];
    return sort_targ(kn, i, b) && strcmp(b, want) == 0;
}

int sort_targ_starts(const tfl_kname *kn, int i, const char *prefix)
{
    char b[SORT_NORM_MAX];
    return sort_targ(kn, i, b) && strncmp(b, prefix, strlen(prefix)) == 0;
}

int sort_targ_has(const tfl_kname *kn, int i, const char *sub)
{
    char b[SORT_NORM_MAX];
    return sort_targ(kn, i, b) && strstr(b, sub) != NULL;
}

int sort_targ_key(const tfl_kname *kn, int i, tfl_sort_key *key)
{
    return i >= 0 && i < kn->ntargs && i < TFL_KNAME_MAX &&
           sort_key_type(kn->targ[i], kn->targ_len[i], key);
}

int sort_targ_ptr_key(const tfl_kname *kn, int i, tfl_sort_key *key)
{
    char b[SORT_NORM_MAX];
    if (!sort_targ(kn, i, b))
        return 0;
    size_t len = strlen(b);
    static const char dp[] = "thrust::device_ptr<";
    if (strncmp(b, dp, strlen(dp)) == 0 && b[len - 1] == '>')
        return sort_key_type(b + strlen(dp), len - strlen(dp) - 1, key);
    if (len > 7 && strcmp(b + len - 7, " const*") == 0)
        return sort_key_type(b, len - 7, key);
    if (len > 1 && b[len - 1] == '*')
        return sort_key_type(b, len - 1, key);
    return 0;
}

int sort_targ_int_size(const tfl_kname *kn, int i, size_t *size)
{
    if (tfl_kname_targ_is(kn, i, "long") || tfl_kname_targ_is(kn, i, "unsigned long long") ||
        tfl_kname_targ_is(kn, i, "unsigned long") || tfl_kname_targ_is(kn, i, "long long"))
        *size = 8;
    else if (tfl_kname_targ_is(kn, i, "int") || tfl_kname_targ_is(kn, i, "unsigned int"))
        *size = 4;
    else
        return 0;
    return 1;
}

int sort_sig(sort_kernel *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(k->sig, sizeof k->sig, fmt, ap);
    va_end(ap);
    return n > 0 && (size_t)n < sizeof k->sig;
}

static int match(const char *m, void **cookie)
{
    /* cheap filters before demangling */
    static const char *const filters[] = {
        "SortKVInPlace", "radix_sort", "SortStable_cu", "randperm_handle_duplicate_keys",
        "_assert_async_cuda_kernel", "4scan", "13unique_by_key", "Embedding", "UniqueCub_cu",
        "6select23DeviceSelectSweepKernel", "3rle6encode", "14gatherKthValue", "12gatherMedian",
        "6sbtopk10gatherTopK", "6mbtopk", "11scan_by_key", "12compute_mode",
    };
    if (!tfl_kname_mentions(m, filters, sizeof filters / sizeof filters[0]))
        return 0;
    tfl_kname kn;
    if (tfl_kname_parse(m, &kn) != 0)
        return 0;
    sort_kernel k;
    memset(&k, 0, sizeof k);
    int ok = sort_match_pytorch(&kn, &k) || sort_match_cub(&kn, &k) || sort_match_seq(&kn, &k) ||
             sort_match_select(&kn, &k);
    tfl_kname_free(&kn);
    if (!ok || !k.sig[0])
        return 0;
    return tfl_kcookie_keep(&k, sizeof k, cookie);
}

/* The signature the matcher stated (k->sig; the decoder files' header
 * comments give each kernel's parameters). */
static int layout(void *cookie, tfl_klayout *l)
{
    const sort_kernel *k = cookie;
    return k && k->sig[0] && tfl_klayout_sig(l, k->sig) == 0;
}

static const char *op_name(void *cookie)
{
    const sort_kernel *k = cookie;
    return k && k->name ? k->name : "sort";
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const sort_kernel *k = cookie;
    if (!k)
        return TFL_ERR_UNSUPPORTED;
    tfl_op op = { .kind = TFL_OP_SORT, .name = k->name };
    int route = 0;
    tfl_status st;
    if (k->kind == SK_KTHVALUE || k->kind == SK_MEDIAN || k->kind == SK_TOPK || k->kind == SK_TOPK_MB ||
        k->kind == SK_MODE)
        st = sort_run_select(c, k, &op, &route, err, errlen);
    else if (k->kind >= SK_ASSERT)
        st = sort_run_seq(c, k, &op, &route, err, errlen);
    else if (k->kind == SK_ONESWEEP || k->kind == SK_DOWNSWEEP || k->kind == SK_SINGLE_TILE ||
             k->kind == SK_SEGMENTED || k->kind == SK_NOOP)
        st = sort_run_cub(c, k, &op, &route, err, errlen);
    else
        st = sort_run_pytorch(c, k, &op, &route, err, errlen);
    if (st != TFL_OK || !route)
        return st;
    st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", k->name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_sort = {
    .name = "sort",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

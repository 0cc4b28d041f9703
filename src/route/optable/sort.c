/*
 * sort.c - the "sort" kernel family of the semantic op table: sorting as
 * PyTorch 2.11 does it on a GPU (sort/argsort, and the sorts inside
 * randperm, unique, index_put_/index_add with accumulation and embedding
 * backward, with the kernels that consume them), and radix selection
 * (topk, kthvalue, median).  See docs/op-sort.md for the kernels and
 * their layouts.
 *
 * Kernels are recognised by their demangled names (once per kernel); the
 * decoding is split by kind:
 *   sort_inplace.c  PyTorch's own sort kernels (SortUtils.cuh,
 *                   SortStable.cu, Randperm.cuh);
 *   sort_cub.c      cub's radix sort kernels, emulated pass by pass;
 *   sort_seq.c      what runs on sorted data: cub scan / unique /
 *                   run-length encode / unique-by-key, unique's and
 *                   embedding backward's own kernels, the async assert;
 *   sort_select.c   radix select: topk, kthvalue, median.
 * All fill a tfl_sort_op (torchfl/ops/sort.h) that the backend runs.
 */
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

static int match(const char *m, void **cookie)
{
    /* cheap filters before demangling */
    if (!strstr(m, "SortKVInPlace") && !strstr(m, "radix_sort") &&
        !strstr(m, "SortStable_cu") && !strstr(m, "randperm_handle_duplicate_keys") &&
        !strstr(m, "_assert_async_cuda_kernel") && !strstr(m, "4scan") &&
        !strstr(m, "13unique_by_key") && !strstr(m, "Embedding") && !strstr(m, "UniqueCub_cu") &&
        !strstr(m, "6select23DeviceSelectSweepKernel") && !strstr(m, "3rle6encode") &&
        !strstr(m, "14gatherKthValue") && !strstr(m, "12gatherMedian") && !strstr(m, "6sbtopk10gatherTopK") && !strstr(m, "6mbtopk") &&
        !strstr(m, "11scan_by_key") && !strstr(m, "12compute_mode"))
        return 0;
    char *d = tfl_pt_demangle(m);
    if (!d)
        return 0;
    sort_kernel k = { 0 };
    int ok = sort_match_pytorch(d, &k) || sort_match_cub(d, &k) || sort_match_seq(d, &k) ||
             sort_match_select(d, &k);
    free(d);
    if (!ok)
        return 0;
    sort_kernel *p = malloc(sizeof *p);
    if (!p)
        return 0;
    *p = k;
    *cookie = p;
    return 1;
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
};

/*
 * index.c - the "index" kernel family of the semantic op table: PyTorch's
 * index_select / index_add / row gather, cat, gather / scatter, advanced
 * indexing and arange / linspace kernels.  Elements move as bytes, so
 * every element type is handled where no arithmetic is done.
 *
 * This file recognises the kernels and routes the decoded op; one file
 * per kernel group decodes (index_select.c, index_cat.c, index_scatter.c,
 * index_advanced.c, index_range.c, index_triangle.c, index_put.c) with the PyTorch ABI readers in
 * index_abi.c.  Kernels are recognised by their demangled base name and
 * template arguments (kname.h), each group's file saying which arguments
 * it takes and why the rest (int / bool launch-shape constants) do not
 * matter.  Parameter layouts are the 2.11 sm_80 cubins', unchanged through
 * 2.15 (docs/kernel-families.md); lambda capture layouts were read off 2.11
 * launches.  Each group states the parameters its run() reads (layout()),
 * which the cubins' parameter tables confirm (`torchfl wheel`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/index_internal.h"

static int layout(void *cookie, tfl_klayout *l);

/* Every kernel group's base name contains one of these: a cheap filter
 * before demangling. */
static const char *const hints[] = {
    "gather", "index", "Cat", "scatter", "triu_tril", "linspace", "arange",
};

static int match(const char *m, void **cookie)
{
    if (!tfl_kname_mentions(m, hints, sizeof hints / sizeof hints[0]))
        return 0;
    tfl_kname n;
    if (tfl_kname_parse(m, &n) != 0)
        return 0;
    index_kernel k = { 0 };
    int ok = idx_match_select(&n, &k) || idx_match_cat(&n, &k) ||
             idx_match_scatter_gather(&n, &k) || idx_match_advanced(&n, &k) ||
             idx_match_range(&n, &k) || idx_match_triangle(&n, &k) ||
             idx_match_put_sorted(&n, &k);
    /* the name's parameter list has the count the decoder's layout states:
     * a release that adds a parameter is not decoded by an old layout */
    tfl_klayout l = { 0 };
    ok = ok && layout(&k, &l) && l.n == n.nparams;
    tfl_kname_free(&n);
    return ok && tfl_kcookie_keep(&k, sizeof k, cookie);
}

/* The parameters run() reads, by kernel group (each group's file). */
static int layout(void *cookie, tfl_klayout *l)
{
    const index_kernel *k = cookie;
    switch (k->kind) {
    case K_GATHER:
        return tfl_klayout_sig(l, "p x2 i l x3 b") == 0;
    case K_SCATTER_ADD_ROWS:
        return tfl_klayout_sig(l, "p x2 i l x3 i i") == 0;
    case K_SELECT_SMALL:
    case K_SELECT_LARGE:
    case K_ADD_SMALL:
    case K_ADD_LARGE:
        return idx_layout_select(k, l);
    case K_CAT:
        return idx_layout_cat(k, l);
    case K_SCATTER_GATHER:
        return idx_layout_scatter_gather(k, l);
    case K_ADVANCED:
    case K_INDEX_COPY:
    case K_INDEX_FILL:
    case K_FLIP:
        return idx_layout_advanced(k, l);
    case K_ARANGE:
    case K_LINSPACE:
        return idx_layout_range(k, l);
    case K_TRIANGLE:
        return idx_layout_triangle(k, l);
    case K_PUT_SORTED:
        return idx_layout_put_sorted(k, l);
    default:
        return 0;
    }
}

static const char *op_name(void *cookie)
{
    const index_kernel *k = cookie;
    switch (k->kind) {
    case K_GATHER: return "index_select_rows";
    case K_SCATTER_ADD_ROWS: return "index_add_rows";
    case K_CAT:    return "cat";
    case K_ADD_SMALL:
    case K_ADD_LARGE:
        switch (k->reduce) {
        case TFL_INDEX_MUL: return "index_reduce_prod";
        case TFL_INDEX_MAX: return "index_reduce_amax";
        case TFL_INDEX_MIN: return "index_reduce_amin";
        default: return k->fill ? "index_reduce_mean" : "index_add";
        }
    case K_SCATTER_GATHER:
        if (k->fill)
            return "scatter_value";
        if (!k->scatter)
            return "gather";
        switch (k->reduce) {
        case TFL_INDEX_ADD: return "scatter_add";
        case TFL_INDEX_MUL: return "scatter_reduce_prod";
        case TFL_INDEX_MAX: return "scatter_reduce_amax";
        case TFL_INDEX_MIN: return "scatter_reduce_amin";
        default: return "scatter";
        }
    case K_ADVANCED: return k->put ? "index_put" : "index";
    case K_ARANGE:   return "arange";
    case K_LINSPACE: return "linspace";
    case K_TRIANGLE: return k->upper ? "triu" : "tril";
    case K_INDEX_COPY: return "index_copy";
    case K_INDEX_FILL: return "index_fill";
    case K_FLIP:     return "flip";
    case K_PUT_SORTED: return "index_put_sorted";
    default:       return "index_select";
    }
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const index_kernel *k = cookie;
    tfl_op op = { .kind = TFL_OP_INDEX, .name = op_name(cookie) };
    tfl_index_cat_input ins[128];
    tfl_status st;
    int route = 0;   /* set by a decoder when op is ready to run */
    switch (k->kind) {
    case K_GATHER:
        st = idx_run_gather(c, k, &op, &route, err, errlen);
        break;
    case K_SCATTER_ADD_ROWS:
        st = idx_run_scatter_add_rows(c, k, &op, &route, err, errlen);
        break;
    case K_SELECT_SMALL:
    case K_SELECT_LARGE:
    case K_ADD_SMALL:
    case K_ADD_LARGE:
        st = idx_run_select(c, k, &op, &route, err, errlen);
        break;
    case K_CAT:
        st = idx_run_cat(c, k, &op, ins, &route, err, errlen);
        break;
    case K_SCATTER_GATHER:
        st = idx_run_scatter_gather(c, k, &op, &route, err, errlen);
        break;
    case K_ADVANCED:
        st = idx_run_advanced(c, k, &op, &route, err, errlen);
        break;
    case K_ARANGE:
    case K_LINSPACE:
        st = idx_run_range(c, k, &op, &route, err, errlen);
        break;
    case K_TRIANGLE:
        st = idx_run_triangle(c, k, &op, &route, err, errlen);
        break;
    case K_INDEX_COPY:
    case K_INDEX_FILL:
        st = idx_run_copy_fill(c, k, &op, &route, err, errlen);
        break;
    case K_FLIP:
        st = idx_run_flip(c, k, &op, &route, err, errlen);
        break;
    case K_PUT_SORTED:
        st = idx_run_put_sorted(c, k, &op, &route, err, errlen);
        break;
    default:
        return TFL_ERR_UNSUPPORTED;
    }
    if (st != TFL_OK || !route)
        return st;   /* refused, failed, or nothing to do */
    st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_index = {
    .name = "index",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

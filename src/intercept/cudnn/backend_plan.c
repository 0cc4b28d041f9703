/*
 * backend_plan.c - the backend descriptors that decide what runs:
 * operation graph, engine, engine heuristics, engine config and execution
 * plan (see backend_desc.h for the model).
 *
 * torchfl has one "engine" (global index 0, no knobs, no numerical or
 * behaviour notes, so PyTorch's filters for TF32, down-conversion and
 * determinism all keep it) and it runs graphs of exactly one convolution
 * (forward, backward data or backward filter) in fp32, fp16, bf16 or fp64 with
 * 1 to 3 spatial dims, a forward one optionally followed by the chain
 * PyTorch's cudnn_convolution_add_relu / _relu build (add z, add bias,
 * ReLU: folded into TFL_OP_CONV's epilogue).  Any other graph is refused at graph finalize with
 * CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN (or the _DATA_TYPE/_SHAPE/
 * _LAYOUT status), which cudnn_frontend turns into an exception and
 * PyTorch into a RuntimeError.  Every heuristics mode (INSTANT, A, B,
 * FALLBACK) returns that one engine config; the plan needs no workspace.
 */
#include "cudnn/backend_desc.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"

static int cb_is_conv_kind(int k)
{
    return k == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR ||
           k == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR ||
           k == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
}

/* What a runnable graph computes: one convolution, and for the forward
 * one optionally followed by PyTorch's fused epilogue chain (pointwise
 * ADD of a z tensor shaped like the output, ADD of a [1, K, 1...] bias,
 * RELU_FWD), folded into TFL_OP_CONV's alpha / z_alpha / bias / relu. */
typedef struct cb_shape {
    int conv;                      /* index of the convolution op       */
    const cb_tensor *y;            /* the graph's real output           */
    const cb_tensor *z, *bias;     /* NULL: none                        */
    double alpha, z_alpha;         /* pointwise scales folded together  */
    int relu;
} cb_shape;

static const cb_op *cb_consumer(const cb_graph *g, int64_t uid, int *count)
{
    const cb_op *found = NULL;
    *count = 0;
    for (int64_t i = 0; i < g->nops; i++)
        if (g->ops[i].kind == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR &&
            (g->ops[i].set & (1u << CB_T_X)) && g->ops[i].t[CB_T_X].uid == uid) {
            found = &g->ops[i];
            (*count)++;
        }
    return found;
}

static cudnnStatus_t cb_pattern_fail(const cb_graph *g, const char *why)
{
    return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN,
                          "torchfl runs cuDNN graphs of one convolution, optionally followed "
                          "(forward) by add z / add bias / ReLU; this graph of %lld operations "
                          "is not one (%s)", (long long)g->nops, why);
}

static cudnnStatus_t cb_graph_shape(const cb_graph *g, cb_shape *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->conv = -1;
    for (int64_t i = 0; i < g->nops; i++)
        if (cb_is_conv_kind(g->ops[i].kind)) {
            if (sh->conv >= 0)
                return cb_pattern_fail(g, "two convolutions");
            sh->conv = (int)i;
        }
    if (sh->conv < 0)
        return cb_pattern_fail(g, "no convolution");
    const cb_op *conv = &g->ops[sh->conv];
    sh->y = &conv->t[CB_T_Y];
    sh->alpha = conv->alpha;
    if (g->nops == 1)
        return CUDNN_STATUS_SUCCESS;
    if (conv->kind != CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR || !sh->y->is_virtual)
        return cb_pattern_fail(g, "the convolution is not a forward one with a virtual output");
    if (conv->beta != 0.0)
        return cb_pattern_fail(g, "beta on a virtual output");
    /* follow the chain: each step consumes the previous step's output */
    double bias_scale = 0.0;
    int64_t k = conv->t[CB_T_Y].dims[1], nd = conv->t[CB_T_Y].nd;
    const cb_tensor *cur = sh->y;
    for (int64_t step = 1; step < g->nops; step++) {
        int n;
        const cb_op *op = cb_consumer(g, cur->uid, &n);
        if (n != 1 || !cur->is_virtual)
            return cb_pattern_fail(g, "not a chain");
        double a1 = op->alpha, a2 = op->beta;
        sh->alpha *= a1;
        sh->z_alpha *= a1;
        bias_scale *= a1;
        const cb_tensor *b = (op->set & (1u << CB_T_B)) ? &op->t[CB_T_B] : NULL;
        if (op->pw.mode == CUDNN_POINTWISE_ADD && b && !b->is_virtual && !sh->relu) {
            int like_y = b->nd == nd, per_channel = b->nd == nd && b->dims[1] == k && b->dims[0] == 1;
            for (int64_t i = 0; i < nd && i < b->nd; i++) {
                like_y &= b->dims[i] == cur->dims[i];
                if (i >= 2)
                    per_channel &= b->dims[i] == 1;
            }
            /* z shaped like the output, bias [1, K, 1...]; when a tensor is
             * both (1x1 outputs of batch 1) either reading gives the same sum */
            if (like_y && !sh->z) {
                sh->z = b;
                sh->z_alpha += a2;
            } else if (per_channel && !sh->bias && (k == 1 || b->strides[1] == 1)) {
                sh->bias = b;
                bias_scale = a2;
            } else {
                return cb_pattern_fail(g, "an add that is neither z nor a bias");
            }
        } else if (op->pw.mode == CUDNN_POINTWISE_RELU_FWD && !sh->relu && !b) {
            const cb_pw *pw = &op->pw;
            int hi_set = !!(pw->set & ((cb_mask)1 << CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP));
            if (pw->relu_lo != 0.0 || pw->relu_slope != 0.0 || (hi_set && pw->relu_hi < 3.0e38))
                return cb_pattern_fail(g, "a clipped or leaky ReLU");
            if (a1 <= 0.0)
                return cb_pattern_fail(g, "a ReLU scaling its input by a non-positive alpha");
            sh->relu = 1;
        } else {
            return cb_pattern_fail(g, "a pointwise op other than add or ReLU");
        }
        cur = &op->t[CB_T_Y];
        if (!(op->set & (1u << CB_T_Y)))
            return cb_pattern_fail(g, "a pointwise op without an output");
    }
    if (cur->is_virtual)
        return cb_pattern_fail(g, "the chain ends in a virtual tensor");
    if (cur->nd != nd)
        return cb_pattern_fail(g, "the output's rank differs from the convolution's");
    for (int64_t i = 0; i < nd; i++)
        if (cur->dims[i] != sh->y->dims[i])
            return cb_pattern_fail(g, "the output's shape differs from the convolution's");
    if (sh->bias && bias_scale != 1.0)
        return cb_pattern_fail(g, "a scaled bias");
    sh->y = cur;
    return CUDNN_STATUS_SUCCESS;
}

/* Can torchfl's engine run this graph?  One line says why not. */
static cudnnStatus_t cb_graph_check(const cb_graph *g)
{
    cb_shape sh;
    cudnnStatus_t st = cb_graph_shape(g, &sh);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const cb_op *op = &g->ops[sh.conv];
    const cb_tensor *ts[5] = {&op->t[CB_T_X], &op->t[CB_T_W], sh.y, sh.z, sh.bias};
    tfl_dtype dt, dt0 = TFL_DT_F32;
    for (int i = 0; i < 5; i++) {
        if (!ts[i])
            continue;
        if (!tfl_cudnn_dtype(ts[i]->dtype, &dt) || (i > 0 && dt != dt0))
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                                  "torchfl's convolution needs x, w and y all float, half, bfloat16 or double "
                                  "(got cuDNN data types %d/%d/%d)", (int)ts[0]->dtype,
                                  (int)ts[1]->dtype, (int)ts[2]->dtype);
        dt0 = dt;
        if (ts[i]->is_virtual || ts[i]->by_value)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN,
                                  "torchfl's convolution: virtual or by-value tensors are not supported");
        if (ts[i]->vec_count != 1 || ts[i]->reorder != CUDNN_TENSOR_REORDERING_NONE)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT,
                                  "torchfl's convolution: vectorized or reordered tensors are not supported");
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (ts[i] && ts[j] && ts[i]->uid == ts[j]->uid)
                return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES,
                                      "convolution graph: tensors share a unique id");
    if (op->conv.comp != CUDNN_DATA_FLOAT && op->conv.comp != CUDNN_DATA_HALF &&
        op->conv.comp != CUDNN_DATA_BFLOAT16 && op->conv.comp != CUDNN_DATA_DOUBLE)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                              "torchfl's convolution: compute type %d not supported", (int)op->conv.comp);
    if (op->conv.nsp < 1 || op->conv.nsp > TFL_CONV_MAX_SPATIAL)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_SHAPE,
                              "torchfl's convolution: %lld spatial dims (1 to %d supported)",
                              (long long)op->conv.nsp, TFL_CONV_MAX_SPATIAL);
    /* the host engine's GEMMs take int sizes */
    int64_t kk = 1, outp = 1;
    for (int64_t i = 0; i < op->conv.nsp; i++) {
        kk *= ts[1]->dims[2 + i];
        outp *= ts[2]->dims[2 + i];
    }
    if (kk * ts[1]->dims[1] > INT_MAX || outp > INT_MAX || ts[1]->dims[0] > INT_MAX)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED_SHAPE,
                              "torchfl's convolution: sizes beyond 2^31 per image");
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ graph */

cudnnStatus_t cb_graph_set(cb_desc *d, const cb_in *in)
{
    cb_graph *g = &d->u.graph;
    cudnnStatus_t st;
    switch (in->name) {
    case CUDNN_ATTR_OPERATIONGRAPH_HANDLE: {
        if ((st = cb_in_check(in, CUDNN_TYPE_HANDLE, 1, 1)) != CUDNN_STATUS_SUCCESS)
            return st;
        cudnnHandle_t h;
        memcpy(&h, in->p, sizeof h);
        if (!tfl_cudnn_handle_ok(h))
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "operation graph: invalid cuDNN handle");
        g->handle = h;
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_ATTR_OPERATIONGRAPH_OPS: {
        if ((st = cb_in_check(in, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, CB_MAX_OPS)) != CUDNN_STATUS_SUCCESS)
            return st;
        const cudnnBackendDescriptor_t *arr = in->p;
        for (int64_t i = 0; i < in->n; i++) {
            const cb_desc *op = cb_desc_get(arr[i], -1);
            if (!op || !op->finalized ||
                !(cb_is_conv_kind(op->type) || op->type == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR))
                return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                      "operation graph: entry %lld is not a finalized operation",
                                      (long long)i);
        }
        for (int64_t i = 0; i < in->n; i++)
            g->ops[i] = ((const cb_desc *)arr[i])->u.op;
        g->nops = in->n;
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED: {
        if ((st = cb_in_check(in, CUDNN_TYPE_BOOLEAN, 1, 1)) != CUDNN_STATUS_SUCCESS)
            return st;
        bool on;
        memcpy(&on, in->p, sizeof on);
        return on ? tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                                   "operation graph: dynamic shapes are not supported")
                  : CUDNN_STATUS_SUCCESS;
    }
    default:
        return cb_bad_attr(d, "Set", in->name);
    }
}

cudnnStatus_t cb_graph_get(const cb_desc *d, const cb_out *o)
{
    const cb_graph *g = &d->u.graph;
    int64_t one = 1;
    bool no = false;
    switch (o->name) {
    case CUDNN_ATTR_OPERATIONGRAPH_HANDLE: return cb_put(o, CUDNN_TYPE_HANDLE, &g->handle, 1);
    case CUDNN_ATTR_OPERATIONGRAPH_OPS: {
        /* each entry must be an op descriptor of the same kind */
        if (o->type == CUDNN_TYPE_BACKEND_DESCRIPTOR && o->p) {
            const cudnnBackendDescriptor_t *arr = o->p;
            int64_t m = g->nops < o->requested ? g->nops : o->requested;
            for (int64_t i = 0; i < m; i++)
                if (!cb_desc_get(arr[i], (int)g->ops[i].kind))
                    return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                          "operation graph: output entry %lld has the wrong type",
                                          (long long)i);
            for (int64_t i = 0; i < m; i++) {
                cb_desc *dst = cb_desc_get(arr[i], (int)g->ops[i].kind);
                cb_fill_op(dst, i, g);
                dst->finalized = 1;
            }
            if (o->count)
                *o->count = g->nops;
            return CUDNN_STATUS_SUCCESS;
        }
        return cb_put_descs(o, -1, g->nops, cb_fill_op, g);
    }
    case CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT:
        if (!d->finalized)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "operation graph not finalized");
        return cb_put(o, CUDNN_TYPE_INT64, &one, 1);
    case CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED:
        return cb_put(o, CUDNN_TYPE_BOOLEAN, &no, 1);
    default:
        return cb_bad_attr(d, "Get", o->name);
    }
}

cudnnStatus_t cb_graph_finalize(cb_desc *d)
{
    const cb_graph *g = &d->u.graph;
    if (!g->handle || g->nops == 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(operation graph): handle and ops are required");
    cudnnStatus_t st = cb_graph_check(g);
    if (st != CUDNN_STATUS_SUCCESS)
        tfl_info("cudnn: operation graph refused: status %d", (int)st);
    return st;
}

static void cb_fill_graph(cb_desc *dst, int64_t i, const void *g)
{
    (void)i;
    dst->u.graph = *(const cb_graph *)g;
}

static cudnnStatus_t cb_in_graph(const cb_in *in, cb_graph *dst)
{
    const cb_desc *src;
    cudnnStatus_t st = cb_in_desc(in, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &src);
    if (st == CUDNN_STATUS_SUCCESS)
        *dst = src->u.graph;
    return st;
}

/* ----------------------------------------------------------- engine */

enum { CB_E_GRAPH = 1, CB_E_INDEX = 2 };

cudnnStatus_t cb_engine_set(cb_desc *d, const cb_in *in)
{
    cb_engine *e = &d->u.engine;
    cudnnStatus_t st;
    switch (in->name) {
    case CUDNN_ATTR_ENGINE_OPERATION_GRAPH:
        if ((st = cb_in_graph(in, &e->graph)) == CUDNN_STATUS_SUCCESS)
            e->set |= CB_E_GRAPH;
        return st;
    case CUDNN_ATTR_ENGINE_GLOBAL_INDEX:
        if ((st = cb_in_i64(in, &e->index)) == CUDNN_STATUS_SUCCESS)
            e->set |= CB_E_INDEX;
        return st;
    case CUDNN_ATTR_ENGINE_SM_COUNT_TARGET:
        return cb_in_enum(in, CUDNN_TYPE_INT32, &e->sm_count);
    case CUDNN_ATTR_ENGINE_DEVICEPROP:
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "engine: device properties not supported");
    default:
        return cb_bad_attr(d, "Set", in->name);
    }
}

cudnnStatus_t cb_engine_get(const cb_desc *d, const cb_out *o)
{
    const cb_engine *e = &d->u.engine;
    switch (o->name) {
    case CUDNN_ATTR_ENGINE_OPERATION_GRAPH:
        return cb_put_descs(o, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 1, cb_fill_graph, &e->graph);
    case CUDNN_ATTR_ENGINE_GLOBAL_INDEX: return cb_put(o, CUDNN_TYPE_INT64, &e->index, 1);
    case CUDNN_ATTR_ENGINE_SM_COUNT_TARGET: return cb_put(o, CUDNN_TYPE_INT32, &e->sm_count, 1);
    /* no knobs, no notes: nothing for PyTorch's engine filters to reject */
    case CUDNN_ATTR_ENGINE_KNOB_INFO:
        return cb_put_descs(o, CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, 0, NULL, NULL);
    case CUDNN_ATTR_ENGINE_LAYOUT_INFO:
        return cb_put_descs(o, CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, 0, NULL, NULL);
    case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE: return cb_put(o, CUDNN_TYPE_NUMERICAL_NOTE, NULL, 0);
    case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE: return cb_put(o, CUDNN_TYPE_BEHAVIOR_NOTE, NULL, 0);
    default:
        return cb_bad_attr(d, "Get", o->name);
    }
}

cudnnStatus_t cb_engine_finalize(cb_desc *d)
{
    const cb_engine *e = &d->u.engine;
    if ((e->set & (CB_E_GRAPH | CB_E_INDEX)) != (CB_E_GRAPH | CB_E_INDEX))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(engine): operation graph and global index are required");
    if (e->index != 0)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                              "cudnnBackendFinalize(engine): torchfl has one engine (index 0), not %lld",
                              (long long)e->index);
    return CUDNN_STATUS_SUCCESS;
}

static void cb_fill_engine(cb_desc *dst, int64_t i, const void *e)
{
    (void)i;
    dst->u.engine = *(const cb_engine *)e;
}

/* ------------------------------------------------------- heuristics */

enum { CB_H_GRAPH = 1, CB_H_MODE = 2 };

cudnnStatus_t cb_heur_set(cb_desc *d, const cb_in *in)
{
    cb_heur *h = &d->u.heur;
    cudnnStatus_t st;
    switch (in->name) {
    case CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH:
        if ((st = cb_in_graph(in, &h->graph)) == CUDNN_STATUS_SUCCESS)
            h->set |= CB_H_GRAPH;
        return st;
    case CUDNN_ATTR_ENGINEHEUR_MODE:
        if ((st = cb_in_enum(in, CUDNN_TYPE_HEUR_MODE, &h->mode)) != CUDNN_STATUS_SUCCESS)
            return st;
        if (h->mode < 0 || h->mode >= CUDNN_HEUR_MODES_COUNT)
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "heuristics: unknown mode %d", (int)h->mode);
        h->set |= CB_H_MODE;
        return st;
    case CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET:
        return cb_in_enum(in, CUDNN_TYPE_INT32, &h->sm_count);
    case CUDNN_ATTR_ENGINEHEUR_DEVICEPROP:
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "heuristics: device properties not supported");
    default:
        return cb_bad_attr(d, "Set", in->name);
    }
}

static void cb_fill_result(cb_desc *dst, int64_t i, const void *heur)
{
    (void)i;
    const cb_heur *h = heur;
    memset(&dst->u.cfg, 0, sizeof dst->u.cfg);
    dst->u.cfg.engine.graph = h->graph;
    dst->u.cfg.engine.index = 0;
    dst->u.cfg.engine.set = CB_E_GRAPH | CB_E_INDEX;
    dst->u.cfg.engine.sm_count = h->sm_count;
    dst->u.cfg.set = 1;
}

cudnnStatus_t cb_heur_get(const cb_desc *d, const cb_out *o)
{
    const cb_heur *h = &d->u.heur;
    switch (o->name) {
    case CUDNN_ATTR_ENGINEHEUR_RESULTS:
        if (!d->finalized)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "heuristics not finalized");
        return cb_put_descs(o, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 1, cb_fill_result, h);
    case CUDNN_ATTR_ENGINEHEUR_MODE: return cb_put(o, CUDNN_TYPE_HEUR_MODE, &h->mode, 1);
    case CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET: return cb_put(o, CUDNN_TYPE_INT32, &h->sm_count, 1);
    case CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH:
        return cb_put_descs(o, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 1, cb_fill_graph, &h->graph);
    default:
        return cb_bad_attr(d, "Get", o->name);
    }
}

cudnnStatus_t cb_heur_finalize(cb_desc *d)
{
    if ((d->u.heur.set & (CB_H_GRAPH | CB_H_MODE)) != (CB_H_GRAPH | CB_H_MODE))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(heuristics): operation graph and mode are required");
    return CUDNN_STATUS_SUCCESS;
}

/* ---------------------------------------------------- engine config */

cudnnStatus_t cb_cfg_set(cb_desc *d, const cb_in *in)
{
    cb_cfg *c = &d->u.cfg;
    cudnnStatus_t st;
    const cb_desc *src;
    switch (in->name) {
    case CUDNN_ATTR_ENGINECFG_ENGINE:
        if ((st = cb_in_desc(in, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &src)) == CUDNN_STATUS_SUCCESS) {
            c->engine = src->u.engine;
            c->set |= 1;
        }
        return st;
    case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES: {
        if ((st = cb_in_check(in, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, CB_MAX_KNOBS)) != CUDNN_STATUS_SUCCESS)
            return st;
        const cudnnBackendDescriptor_t *arr = in->p;
        for (int64_t i = 0; i < in->n; i++) {
            const cb_desc *k = cb_desc_get(arr[i], CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
            if (!k || !k->finalized)
                return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                      "engine config: knob %lld is not a finalized knob choice",
                                      (long long)i);
        }
        /* torchfl's engine has no knobs: any choice is one it does not offer */
        if (in->n > 0)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                                  "engine config: torchfl's engine has no knobs");
        c->nknobs = 0;
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO:
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "engine config: intermediates not supported");
    default:
        return cb_bad_attr(d, "Set", in->name);
    }
}

cudnnStatus_t cb_cfg_get(const cb_desc *d, const cb_out *o)
{
    const cb_cfg *c = &d->u.cfg;
    int64_t zero = 0;
    int32_t zero32 = 0;
    switch (o->name) {
    case CUDNN_ATTR_ENGINECFG_ENGINE:
        return cb_put_descs(o, CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1, cb_fill_engine, &c->engine);
    case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES:
        return cb_put_descs(o, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, c->nknobs, cb_fill_knob, c);
    case CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO:
        return cb_put_descs(o, CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR, 0, NULL, NULL);
    case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE: return cb_put(o, CUDNN_TYPE_INT64, &zero, 1);
    case CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED: return cb_put(o, CUDNN_TYPE_INT32, &zero32, 1);
    default:
        return cb_bad_attr(d, "Get", o->name);
    }
}

cudnnStatus_t cb_cfg_finalize(cb_desc *d)
{
    if (!(d->u.cfg.set & 1))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize(engine config): no engine");
    return CUDNN_STATUS_SUCCESS;
}

static void cb_fill_cfg(cb_desc *dst, int64_t i, const void *c)
{
    (void)i;
    dst->u.cfg = *(const cb_cfg *)c;
}

/* ---------------------------------------------------- execution plan */

enum { CB_P_HANDLE = 1, CB_P_CFG = 2 };

cudnnStatus_t cb_plan_set(cb_desc *d, const cb_in *in)
{
    cb_plan *p = &d->u.plan;
    cudnnStatus_t st;
    const cb_desc *src;
    switch (in->name) {
    case CUDNN_ATTR_EXECUTION_PLAN_HANDLE: {
        if ((st = cb_in_check(in, CUDNN_TYPE_HANDLE, 1, 1)) != CUDNN_STATUS_SUCCESS)
            return st;
        cudnnHandle_t h;
        memcpy(&h, in->p, sizeof h);
        if (!tfl_cudnn_handle_ok(h))
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "execution plan: invalid cuDNN handle");
        p->handle = h;
        p->set |= CB_P_HANDLE;
        return CUDNN_STATUS_SUCCESS;
    }
    case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG:
        if ((st = cb_in_desc(in, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &src)) == CUDNN_STATUS_SUCCESS) {
            p->cfg = src->u.cfg;
            p->set |= CB_P_CFG;
        }
        return st;
    case CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS:
        /* no intermediates are computed, so none need re-running */
        return cb_in_check(in, CUDNN_TYPE_INT64, 0, CB_MAX_VP);
    case CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE:
    case CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP:
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                              "execution plan: attribute %d not supported", (int)in->name);
    default:
        return cb_bad_attr(d, "Set", in->name);
    }
}

static void cb_copy_tensor(tfl_conv_tensor *dst, const cb_tensor *src, int nd)
{
    for (int i = 0; i < nd; i++) {
        dst->dims[i] = src->dims[i];
        dst->strides[i] = src->strides[i];
    }
}

/* The TFL_OP_CONV a plan runs, without its data pointers (the graph has
 * passed cb_graph_check). */
static void cb_plan_build(cb_plan *p)
{
    cb_shape sh;
    cb_graph_shape(&p->cfg.engine.graph, &sh);
    const cb_op *op = &p->cfg.engine.graph.ops[sh.conv];
    tfl_conv_op *c = &p->conv;
    memset(c, 0, sizeof *c);
    switch (op->kind) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR: c->mode = TFL_CONV_BWD_DATA; break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: c->mode = TFL_CONV_BWD_FILTER; break;
    default: c->mode = TFL_CONV_FWD; break;
    }
    c->spatial = (int)op->conv.nsp;
    tfl_cudnn_dtype(op->t[CB_T_X].dtype, &c->dtype);
    /* fp32 accumulation for fp32/fp16/bf16 data, as cuDNN's FLOAT compute */
    c->compute = c->dtype == TFL_DT_F64 ? TFL_COMPUTE_64F : TFL_COMPUTE_32F;
    c->cross_correlation = op->conv.mode == CUDNN_CROSS_CORRELATION;
    c->groups = op->t[CB_T_X].dims[1] / op->t[CB_T_W].dims[1];
    for (int i = 0; i < c->spatial; i++) {
        c->pad_pre[i] = op->conv.pre[i];
        c->pad_post[i] = op->conv.post[i];
        c->stride[i] = op->conv.str[i];
        c->dilation[i] = op->conv.dil[i];
    }
    int nd = 2 + c->spatial;
    cb_copy_tensor(&c->x, &op->t[CB_T_X], nd);
    cb_copy_tensor(&c->w, &op->t[CB_T_W], nd);
    cb_copy_tensor(&c->y, sh.y, nd);
    c->alpha = sh.alpha;
    c->beta = op->beta;
    p->uid_x = op->t[CB_T_X].uid;
    p->uid_w = op->t[CB_T_W].uid;
    p->uid_y = sh.y->uid;
    p->has_z = sh.z != NULL;
    p->has_b = sh.bias != NULL;
    if (sh.z) {
        cb_copy_tensor(&c->z, sh.z, nd);
        c->z_alpha = sh.z_alpha;
        p->uid_z = sh.z->uid;
    }
    if (sh.bias)
        p->uid_b = sh.bias->uid;
    c->relu = sh.relu;
}

cudnnStatus_t cb_plan_finalize(cb_desc *d)
{
    cb_plan *p = &d->u.plan;
    /* the handle attribute is deprecated (cudnn_frontend 1.x leaves it
     * out): Execute names the handle */
    if (!(p->set & CB_P_CFG))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(execution plan): an engine config is required");
    cudnnStatus_t st = cb_graph_check(&p->cfg.engine.graph);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    cb_plan_build(p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cb_plan_get(const cb_desc *d, const cb_out *o)
{
    const cb_plan *p = &d->u.plan;
    int64_t zero = 0;
    switch (o->name) {
    case CUDNN_ATTR_EXECUTION_PLAN_HANDLE: return cb_put(o, CUDNN_TYPE_HANDLE, &p->handle, 1);
    case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG:
        return cb_put_descs(o, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 1, cb_fill_cfg, &p->cfg);
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
        if (!d->finalized)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "execution plan not finalized");
        return cb_put(o, CUDNN_TYPE_INT64, &zero, 1);
    case CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS:
    case CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS:
        return cb_put(o, CUDNN_TYPE_INT64, NULL, 0);
    case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION: {
        if (!d->finalized)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "execution plan not finalized");
        char json[192];
        int n = snprintf(json, sizeof json,
                         "{\"engine\":\"torchfl\",\"engineId\":0,\"mode\":%d,\"spatial\":%d,\"dtype\":%d}",
                         (int)p->conv.mode, p->conv.spatial, (int)p->conv.dtype);
        return cb_put(o, CUDNN_TYPE_CHAR, json, (int64_t)n + 1);
    }
    default:
        return cb_bad_attr(d, "Get", o->name);
    }
}

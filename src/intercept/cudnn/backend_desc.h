/*
 * backend_desc.h - the object model behind cuDNN's backend descriptor API
 * (cudnnBackendCreateDescriptor / SetAttribute / GetAttribute / Finalize /
 * Execute), which cudnn_frontend, and so PyTorch's convolutions, use.
 *
 * Every descriptor is a cb_desc: a type, a finalized flag and the typed
 * attributes of its kind.  A descriptor-valued attribute (an op's X
 * tensor, a plan's engine config, ...) is copied by value when it is set,
 * as cuDNN does: the caller may destroy the original right after, and
 * PyTorch does (it caches execution plans, not graphs).  GetAttribute of a
 * descriptor-valued attribute copies into descriptors the caller created.
 *
 * Files: backend_desc.c (create/destroy/set/get/finalize and the leaf
 * kinds: tensor, convolution, pointwise, operations, knobs, variant pack),
 * backend_plan.c (operation graph, engine, heuristics, engine config,
 * execution plan: what torchfl can run), backend_exec.c (Execute: the
 * plan becomes a TFL_OP_CONV routed to the backend).
 */
#ifndef TFL_CUDNN_BACKEND_DESC_H
#define TFL_CUDNN_BACKEND_DESC_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>

#include "cudnn/cudnn_internal.h"
#include "torchfl/backend.h"

#define CB_MAX_DIMS CUDNN_DIM_MAX
#define CB_MAX_OPS 8
#define CB_MAX_VP 32        /* tensors in one variant pack */
#define CB_MAX_KNOBS 64

/* Which attributes of a kind were set: bit (attribute - kind's base). */
typedef uint64_t cb_mask;

typedef struct cb_tensor {
    cb_mask set;
    cudnnDataType_t dtype;
    int64_t nd, dims[CB_MAX_DIMS];
    int64_t ns, strides[CB_MAX_DIMS];
    int64_t uid, align, vec_count, vec_dim;
    bool is_virtual, by_value;
    int32_t reorder;
} cb_tensor;

typedef struct cb_conv {
    cb_mask set;
    cudnnDataType_t comp;
    cudnnConvolutionMode_t mode;
    int64_t nsp;                                  /* spatial dims       */
    int64_t ndil, dil[CB_MAX_DIMS], nstr, str[CB_MAX_DIMS];
    int64_t npre, pre[CB_MAX_DIMS], npost, post[CB_MAX_DIMS];
} cb_conv;

typedef struct cb_pw {
    cb_mask set;
    cudnnPointwiseMode_t mode;
    cudnnDataType_t prec;
    int32_t nan;
    double relu_lo, relu_hi, relu_slope, elu_alpha, softplus_beta, swish_beta;
    int64_t axis;
} cb_pw;

/* Tensor slots of an operation. */
enum { CB_T_X, CB_T_W, CB_T_Y, CB_T_B, CB_T_T, CB_T_DX, CB_T_DY, CB_T_COUNT };

/* A convolution (forward / backward data / backward filter) or a
 * pointwise operation. */
typedef struct cb_op {
    cudnnBackendDescriptorType_t kind;
    cb_mask set;                      /* bit per tensor slot, CB_OP_* bits */
    double alpha, beta;               /* pointwise: alpha1, alpha2         */
    cb_conv conv;
    cb_pw pw;
    cb_tensor t[CB_T_COUNT];
} cb_op;
enum { CB_OP_ALPHA = 1 << 8, CB_OP_BETA = 1 << 9, CB_OP_DESC = 1 << 10 };

typedef struct cb_graph {
    cudnnHandle_t handle;
    int64_t nops;
    cb_op ops[CB_MAX_OPS];
} cb_graph;

typedef struct cb_engine {
    cb_mask set;
    cb_graph graph;
    int64_t index;
    int32_t sm_count;
} cb_engine;

typedef struct cb_knob {
    cb_mask set;
    int32_t type;
    int64_t value;
} cb_knob;

typedef struct cb_cfg {
    cb_mask set;
    cb_engine engine;
    int64_t nknobs;
    cb_knob knobs[CB_MAX_KNOBS];
} cb_cfg;

typedef struct cb_heur {
    cb_mask set;
    cb_graph graph;
    int32_t mode;
    int32_t sm_count;
} cb_heur;

typedef struct cb_plan {
    cb_mask set;
    cudnnHandle_t handle;
    cb_cfg cfg;
    tfl_conv_op conv;                 /* built at finalize, no pointers    */
    int64_t uid_x, uid_w, uid_y;
    int has_z, has_b;                 /* fused epilogue operands          */
    int64_t uid_z, uid_b;
} cb_plan;

typedef struct cb_vpack {
    cb_mask set;
    int64_t nuids, uids[CB_MAX_VP];
    int64_t nptrs;
    void *ptrs[CB_MAX_VP];
    void *workspace;
} cb_vpack;

typedef struct cb_desc {
    struct cb_desc *self;             /* key of the live-descriptor set    */
    UT_hash_handle hh;
    cudnnBackendDescriptorType_t type;
    int finalized;
    union {
        cb_tensor tensor;
        cb_conv conv;
        cb_pw pw;
        cb_op op;
        cb_graph graph;
        cb_engine engine;
        cb_cfg cfg;
        cb_heur heur;
        cb_plan plan;
        cb_vpack vp;
        cb_knob knob;
    } u;
} cb_desc;

/* The live descriptor d points at, of the given type (-1: any), or NULL.
 * Live descriptors are kept in a set, so a destroyed or made-up pointer
 * is an error status, not a crash. */
cb_desc *cb_desc_get(cudnnBackendDescriptor_t d, int type);

/* One SetAttribute call's arguments. */
typedef struct cb_in {
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t n;
    const void *p;
} cb_in;

/* One GetAttribute call's arguments. */
typedef struct cb_out {
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t requested;
    int64_t *count;
    void *p;
} cb_out;

/* Typed access, with the element counts cuDNN documents: the attribute's
 * type must be want and its count within [lo, hi]. */
cudnnStatus_t cb_in_check(const cb_in *in, cudnnBackendAttributeType_t want, int64_t lo, int64_t hi);
/* One INT64 / enum (4 bytes) / FLOAT-or-DOUBLE element. */
cudnnStatus_t cb_in_i64(const cb_in *in, int64_t *v);
cudnnStatus_t cb_in_enum(const cb_in *in, cudnnBackendAttributeType_t want, int32_t *v);
cudnnStatus_t cb_in_real(const cb_in *in, double *v);
/* A finalized descriptor of the given type, or an error status. */
cudnnStatus_t cb_in_desc(const cb_in *in, int type, const cb_desc **out);

/* Write n elements of type want from src (min(n, requested) of them;
 * *count = n). */
cudnnStatus_t cb_put(const cb_out *o, cudnnBackendAttributeType_t want, const void *src, int64_t n);
cudnnStatus_t cb_put_real(const cb_out *o, double v);
/* Copy one descriptor value into the caller's descriptor (o->p holds n
 * cudnnBackendDescriptor_t); fill(dst, i) writes entry i. */
cudnnStatus_t cb_put_descs(const cb_out *o, int type, int64_t n,
                           void (*fill)(cb_desc *dst, int64_t i, const void *ctx), const void *ctx);

cudnnStatus_t cb_bad_attr(const cb_desc *d, const char *how, cudnnBackendAttributeName_t name);

/* Per-kind handlers (backend_plan.c). */
cudnnStatus_t cb_graph_set(cb_desc *d, const cb_in *in);
cudnnStatus_t cb_graph_get(const cb_desc *d, const cb_out *o);
cudnnStatus_t cb_graph_finalize(cb_desc *d);
cudnnStatus_t cb_engine_set(cb_desc *d, const cb_in *in);
cudnnStatus_t cb_engine_get(const cb_desc *d, const cb_out *o);
cudnnStatus_t cb_engine_finalize(cb_desc *d);
cudnnStatus_t cb_heur_set(cb_desc *d, const cb_in *in);
cudnnStatus_t cb_heur_get(const cb_desc *d, const cb_out *o);
cudnnStatus_t cb_heur_finalize(cb_desc *d);
cudnnStatus_t cb_cfg_set(cb_desc *d, const cb_in *in);
cudnnStatus_t cb_cfg_get(const cb_desc *d, const cb_out *o);
cudnnStatus_t cb_cfg_finalize(cb_desc *d);
cudnnStatus_t cb_plan_set(cb_desc *d, const cb_in *in);
cudnnStatus_t cb_plan_get(const cb_desc *d, const cb_out *o);
cudnnStatus_t cb_plan_finalize(cb_desc *d);

/* Copy helpers used by GetAttribute copy-outs: entry i of a graph's ops,
 * of a cfg's knob choices. */
void cb_fill_op(cb_desc *dst, int64_t i, const void *graph);
void cb_fill_knob(cb_desc *dst, int64_t i, const void *cfg);

#endif

/*
 * backend_desc.c - cudnnBackend{Create,Destroy}Descriptor, SetAttribute,
 * GetAttribute, Finalize, Initialize, and the leaf descriptor kinds:
 * tensor, convolution, pointwise, the convolution and pointwise
 * operations, knob choice/info and variant pack.  The kinds that decide
 * what runs (graph, engine, heuristics, engine config, plan) are in
 * backend_plan.c; see backend_desc.h for the model.
 *
 * Attribute types and element counts are those of cuDNN's documentation
 * (cudnn_graph.h for the enums): a call with another type or count gets
 * CUDNN_STATUS_BAD_PARAM, a descriptor kind torchfl does not model gets
 * CUDNN_STATUS_NOT_SUPPORTED at create, so cudnn_frontend throws and
 * PyTorch raises instead of running something wrong.
 */
#include "cudnn/backend_desc.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

/* ------------------------------------------------------------ typing */

static int64_t cb_type_size(cudnnBackendAttributeType_t t)
{
    switch (t) {
    case CUDNN_TYPE_HANDLE: return sizeof(cudnnHandle_t);
    case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
    case CUDNN_TYPE_INT64: return 8;
    case CUDNN_TYPE_FLOAT: return 4;
    case CUDNN_TYPE_DOUBLE: return 8;
    case CUDNN_TYPE_VOID_PTR: return sizeof(void *);
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(cudnnBackendDescriptor_t);
    case CUDNN_TYPE_INT32: return 4;
    case CUDNN_TYPE_CHAR: return 1;
    case CUDNN_TYPE_FRACTION: return sizeof(cudnnFraction_t);
    default: return 4;   /* the enum-valued types */
    }
}

cudnnStatus_t cb_in_check(const cb_in *in, cudnnBackendAttributeType_t want, int64_t lo, int64_t hi)
{
    if (in->type != want)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: attribute %d takes type %d, not %d",
                              (int)in->name, (int)want, (int)in->type);
    if (in->n < lo || in->n > hi)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: attribute %d takes %lld..%lld elements, not %lld",
                              (int)in->name, (long long)lo, (long long)hi, (long long)in->n);
    if (in->n > 0 && !in->p)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                              "cudnnBackendSetAttribute: attribute %d: elements are NULL",
                              (int)in->name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cb_in_i64(const cb_in *in, int64_t *v)
{
    cudnnStatus_t st = cb_in_check(in, CUDNN_TYPE_INT64, 1, 1);
    if (st == CUDNN_STATUS_SUCCESS)
        memcpy(v, in->p, sizeof *v);
    return st;
}

cudnnStatus_t cb_in_enum(const cb_in *in, cudnnBackendAttributeType_t want, int32_t *v)
{
    cudnnStatus_t st = cb_in_check(in, want, 1, 1);
    if (st == CUDNN_STATUS_SUCCESS)
        memcpy(v, in->p, sizeof *v);
    return st;
}

/* Scaling factors and clip values come as FLOAT or DOUBLE. */
cudnnStatus_t cb_in_real(const cb_in *in, double *v)
{
    if (in->type == CUDNN_TYPE_FLOAT) {
        cudnnStatus_t st = cb_in_check(in, CUDNN_TYPE_FLOAT, 1, 1);
        if (st == CUDNN_STATUS_SUCCESS) {
            float f;
            memcpy(&f, in->p, sizeof f);
            *v = f;
        }
        return st;
    }
    cudnnStatus_t st = cb_in_check(in, CUDNN_TYPE_DOUBLE, 1, 1);
    if (st == CUDNN_STATUS_SUCCESS)
        memcpy(v, in->p, sizeof *v);
    return st;
}

cudnnStatus_t cb_in_desc(const cb_in *in, int type, const cb_desc **out)
{
    cudnnStatus_t st = cb_in_check(in, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, 1);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    cudnnBackendDescriptor_t h;
    memcpy(&h, in->p, sizeof h);
    const cb_desc *d = cb_desc_get(h, type);
    if (!d)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: attribute %d needs a live descriptor of type %d",
                              (int)in->name, type);
    if (!d->finalized)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: attribute %d: descriptor not finalized",
                              (int)in->name);
    *out = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cb_put(const cb_out *o, cudnnBackendAttributeType_t want, const void *src, int64_t n)
{
    if (o->type != want)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: attribute %d has type %d, not %d",
                              (int)o->name, (int)want, (int)o->type);
    if (o->requested < 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendGetAttribute: negative count");
    int64_t m = n < o->requested ? n : o->requested;
    if (m > 0 && !o->p)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                              "cudnnBackendGetAttribute: attribute %d: output array is NULL",
                              (int)o->name);
    if (o->count)
        *o->count = n;
    if (m > 0)
        memcpy(o->p, src, (size_t)(m * cb_type_size(want)));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cb_put_real(const cb_out *o, double v)
{
    if (o->type == CUDNN_TYPE_FLOAT) {
        float f = (float)v;
        return cb_put(o, CUDNN_TYPE_FLOAT, &f, 1);
    }
    return cb_put(o, CUDNN_TYPE_DOUBLE, &v, 1);
}

cudnnStatus_t cb_put_descs(const cb_out *o, int type, int64_t n,
                           void (*fill)(cb_desc *dst, int64_t i, const void *ctx), const void *ctx)
{
    if (o->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: attribute %d is a descriptor", (int)o->name);
    if (o->requested < 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendGetAttribute: negative count");
    int64_t m = n < o->requested ? n : o->requested;
    if (m > 0 && !o->p)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                              "cudnnBackendGetAttribute: attribute %d: output array is NULL",
                              (int)o->name);
    cudnnBackendDescriptor_t *arr = o->p;
    for (int64_t i = 0; i < m; i++) {
        cb_desc *dst = cb_desc_get(arr[i], type);
        if (!dst)
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                  "cudnnBackendGetAttribute: attribute %d: entry %lld is not a "
                                  "live descriptor of type %d", (int)o->name, (long long)i, type);
    }
    for (int64_t i = 0; i < m; i++) {
        cb_desc *dst = cb_desc_get(arr[i], type);
        fill(dst, i, ctx);
        dst->finalized = 1;
    }
    if (o->count)
        *o->count = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cb_bad_attr(const cb_desc *d, const char *how, cudnnBackendAttributeName_t name)
{
    return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                          "cudnnBackend%sAttribute: descriptor type %d has no attribute %d",
                          how, (int)d->type, (int)name);
}

/* ------------------------------------------------------ descriptors */

static int cb_type_modeled(cudnnBackendDescriptorType_t t)
{
    switch (t) {
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    case CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
    case CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
        return 1;
    default:
        return 0;
    }
}

static int cb_is_conv_op(int t)
{
    return t == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
}

static cb_desc *live_descs;            /* keyed by address               */
static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;

cb_desc *cb_desc_get(cudnnBackendDescriptor_t h, int type)
{
    cb_desc *d = NULL;
    if (!h)
        return NULL;
    pthread_rwlock_rdlock(&live_lock);
    HASH_FIND_PTR(live_descs, &h, d);
    pthread_rwlock_unlock(&live_lock);
    if (!d)
        return NULL;
    if (type >= 0 && (int)d->type != type)
        return NULL;
    return d;
}

/* Bytes a descriptor of this kind needs: only its member of the union
 * (a knob choice is tiny, a plan holds a whole graph; cudnn_frontend
 * creates dozens of knob descriptors per plan). */
static size_t cb_desc_size(cudnnBackendDescriptorType_t t)
{
    size_t u;
    switch (t) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: u = sizeof(cb_tensor); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: u = sizeof(cb_conv); break;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: u = sizeof(cb_pw); break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: u = sizeof(cb_graph); break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: u = sizeof(cb_engine); break;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: u = sizeof(cb_cfg); break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: u = sizeof(cb_heur); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: u = sizeof(cb_plan); break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: u = sizeof(cb_vpack); break;
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: u = sizeof(cb_knob); break;
    case CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR:
    case CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR: u = 0; break;
    default: u = sizeof(cb_op); break;   /* the operations */
    }
    return offsetof(cb_desc, u) + u;
}

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                                           cudnnBackendDescriptor_t *descriptor)
{
    if (!descriptor)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                              "cudnnBackendCreateDescriptor: descriptor is NULL");
    if (!cb_type_modeled(type))
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                              "cudnnBackendCreateDescriptor: descriptor type %d is not supported "
                              "by torchfl (convolution graphs only)", (int)type);
    cb_desc *d = calloc(1, cb_desc_size(type));
    if (!d)
        return tfl_cudnn_fail(CUDNN_STATUS_ALLOC_FAILED, "cudnnBackendCreateDescriptor: out of memory");
    d->self = d;
    d->type = type;
    pthread_rwlock_wrlock(&live_lock);
    HASH_ADD_PTR(live_descs, self, d);
    pthread_rwlock_unlock(&live_lock);
    if (cb_is_conv_op(type) || type == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR) {
        d->u.op.kind = type;
        d->u.op.alpha = 1.0;
        d->u.op.beta = type == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR ? 1.0 : 0.0;
    }
    if (type == CUDNN_BACKEND_TENSOR_DESCRIPTOR) {
        d->u.tensor.vec_count = 1;
        d->u.tensor.vec_dim = -1;
        d->u.tensor.align = 4;
    }
    *descriptor = d;
    tfl_debug("cudnn: create desc %p (type %d)", (void *)d, (int)type);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    cb_desc *d = NULL;
    pthread_rwlock_wrlock(&live_lock);
    if (descriptor)
        HASH_FIND_PTR(live_descs, &descriptor, d);
    if (d)
        HASH_DEL(live_descs, d);
    pthread_rwlock_unlock(&live_lock);
    if (!d)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendDestroyDescriptor: not a live descriptor");
    free(d);
    return CUDNN_STATUS_SUCCESS;
}

/* Deprecated: it re-initialises a descriptor in caller-provided memory,
 * which torchfl's descriptors (heap objects) cannot be. */
cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor)
{
    (void)descriptor;
    return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                          "cudnnBackendInitialize (deprecated) is not supported");
}

/* ------------------------------------------------------------ tensor */

static cudnnStatus_t cb_tensor_set(cb_tensor *t, const cb_in *in)
{
    cudnnStatus_t st;
    int32_t e;
    switch (in->name) {
    case CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT: st = cb_in_i64(in, &t->align); break;
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
        st = cb_in_enum(in, CUDNN_TYPE_DATA_TYPE, &e);
        t->dtype = (cudnnDataType_t)e;
        break;
    case CUDNN_ATTR_TENSOR_DIMENSIONS:
        if ((st = cb_in_check(in, CUDNN_TYPE_INT64, 1, CB_MAX_DIMS)) == CUDNN_STATUS_SUCCESS) {
            t->nd = in->n;
            memcpy(t->dims, in->p, (size_t)in->n * 8);
        }
        break;
    case CUDNN_ATTR_TENSOR_STRIDES:
        if ((st = cb_in_check(in, CUDNN_TYPE_INT64, 1, CB_MAX_DIMS)) == CUDNN_STATUS_SUCCESS) {
            t->ns = in->n;
            memcpy(t->strides, in->p, (size_t)in->n * 8);
        }
        break;
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT: st = cb_in_i64(in, &t->vec_count); break;
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION: st = cb_in_i64(in, &t->vec_dim); break;
    case CUDNN_ATTR_TENSOR_UNIQUE_ID: st = cb_in_i64(in, &t->uid); break;
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL:
        if ((st = cb_in_check(in, CUDNN_TYPE_BOOLEAN, 1, 1)) == CUDNN_STATUS_SUCCESS)
            memcpy(&t->is_virtual, in->p, sizeof(bool));
        break;
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE:
        if ((st = cb_in_check(in, CUDNN_TYPE_BOOLEAN, 1, 1)) == CUDNN_STATUS_SUCCESS)
            memcpy(&t->by_value, in->p, sizeof(bool));
        break;
    case CUDNN_ATTR_TENSOR_REORDERING_MODE:
        st = cb_in_enum(in, CUDNN_TYPE_TENSOR_REORDERING_MODE, &t->reorder);
        break;
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                              "cudnnBackendSetAttribute: tensor attribute %d not supported",
                              (int)in->name);
    }
    if (st == CUDNN_STATUS_SUCCESS)
        t->set |= (cb_mask)1 << (in->name - CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
    return st;
}

static cudnnStatus_t cb_tensor_get(const cb_tensor *t, const cb_out *o)
{
    int32_t e;
    switch (o->name) {
    case CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT: return cb_put(o, CUDNN_TYPE_INT64, &t->align, 1);
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
        e = t->dtype;
        return cb_put(o, CUDNN_TYPE_DATA_TYPE, &e, 1);
    case CUDNN_ATTR_TENSOR_DIMENSIONS: return cb_put(o, CUDNN_TYPE_INT64, t->dims, t->nd);
    case CUDNN_ATTR_TENSOR_STRIDES: return cb_put(o, CUDNN_TYPE_INT64, t->strides, t->ns);
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT: return cb_put(o, CUDNN_TYPE_INT64, &t->vec_count, 1);
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION: return cb_put(o, CUDNN_TYPE_INT64, &t->vec_dim, 1);
    case CUDNN_ATTR_TENSOR_UNIQUE_ID: return cb_put(o, CUDNN_TYPE_INT64, &t->uid, 1);
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL: return cb_put(o, CUDNN_TYPE_BOOLEAN, &t->is_virtual, 1);
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE: return cb_put(o, CUDNN_TYPE_BOOLEAN, &t->by_value, 1);
    case CUDNN_ATTR_TENSOR_REORDERING_MODE:
        return cb_put(o, CUDNN_TYPE_TENSOR_REORDERING_MODE, &t->reorder, 1);
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: tensor has no attribute %d", (int)o->name);
    }
}

/* Dimensions, strides, type and id are required; strides match dims. */
static cudnnStatus_t cb_tensor_finalize(cb_tensor *t)
{
    const cb_mask need = (1u << (CUDNN_ATTR_TENSOR_DATA_TYPE - 900)) |
                         (1u << (CUDNN_ATTR_TENSOR_DIMENSIONS - 900)) |
                         (1u << (CUDNN_ATTR_TENSOR_STRIDES - 900)) |
                         (1u << (CUDNN_ATTR_TENSOR_UNIQUE_ID - 900));
    if ((t->set & need) != need)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(tensor): data type, dimensions, strides and "
                              "unique id are required");
    if (t->ns != t->nd)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(tensor): %lld dimensions but %lld strides",
                              (long long)t->nd, (long long)t->ns);
    for (int64_t i = 0; i < t->nd; i++)
        if (t->dims[i] <= 0 || t->strides[i] < 0)
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                  "cudnnBackendFinalize(tensor): dimension %lld is %lld, stride %lld",
                                  (long long)i, (long long)t->dims[i], (long long)t->strides[i]);
    if (t->align <= 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize(tensor): bad alignment");
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------- convolution */

static cudnnStatus_t cb_i64_array(const cb_in *in, int64_t *n, int64_t *dst)
{
    cudnnStatus_t st = cb_in_check(in, CUDNN_TYPE_INT64, 1, CB_MAX_DIMS);
    if (st == CUDNN_STATUS_SUCCESS) {
        *n = in->n;
        memcpy(dst, in->p, (size_t)in->n * 8);
    }
    return st;
}

static cudnnStatus_t cb_conv_set(cb_conv *c, const cb_in *in)
{
    cudnnStatus_t st;
    int32_t e;
    switch (in->name) {
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE:
        st = cb_in_enum(in, CUDNN_TYPE_DATA_TYPE, &e);
        c->comp = (cudnnDataType_t)e;
        break;
    case CUDNN_ATTR_CONVOLUTION_CONV_MODE:
        st = cb_in_enum(in, CUDNN_TYPE_CONVOLUTION_MODE, &e);
        c->mode = (cudnnConvolutionMode_t)e;
        break;
    case CUDNN_ATTR_CONVOLUTION_DILATIONS: st = cb_i64_array(in, &c->ndil, c->dil); break;
    case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES: st = cb_i64_array(in, &c->nstr, c->str); break;
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS: st = cb_i64_array(in, &c->npost, c->post); break;
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS: st = cb_i64_array(in, &c->npre, c->pre); break;
    case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS: st = cb_in_i64(in, &c->nsp); break;
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: convolution has no attribute %d", (int)in->name);
    }
    if (st == CUDNN_STATUS_SUCCESS)
        c->set |= (cb_mask)1 << (in->name - CUDNN_ATTR_CONVOLUTION_COMP_TYPE);
    return st;
}

static cudnnStatus_t cb_conv_get(const cb_conv *c, const cb_out *o)
{
    int32_t e;
    switch (o->name) {
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE:
        e = c->comp;
        return cb_put(o, CUDNN_TYPE_DATA_TYPE, &e, 1);
    case CUDNN_ATTR_CONVOLUTION_CONV_MODE:
        e = c->mode;
        return cb_put(o, CUDNN_TYPE_CONVOLUTION_MODE, &e, 1);
    case CUDNN_ATTR_CONVOLUTION_DILATIONS: return cb_put(o, CUDNN_TYPE_INT64, c->dil, c->ndil);
    case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES: return cb_put(o, CUDNN_TYPE_INT64, c->str, c->nstr);
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS: return cb_put(o, CUDNN_TYPE_INT64, c->post, c->npost);
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS: return cb_put(o, CUDNN_TYPE_INT64, c->pre, c->npre);
    case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS: return cb_put(o, CUDNN_TYPE_INT64, &c->nsp, 1);
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: convolution has no attribute %d", (int)o->name);
    }
}

static cudnnStatus_t cb_conv_finalize(cb_conv *c)
{
    if (!(c->set & (1u << (CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS - 100))) ||
        !(c->set & (1u << (CUDNN_ATTR_CONVOLUTION_COMP_TYPE - 100))) ||
        !(c->set & (1u << (CUDNN_ATTR_CONVOLUTION_CONV_MODE - 100))))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(convolution): spatial dims, compute type and "
                              "mode are required");
    if (c->nsp < 1 || c->nsp > CB_MAX_DIMS - 2 || c->ndil != c->nsp || c->nstr != c->nsp ||
        c->npre != c->nsp || c->npost != c->nsp)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(convolution): %lld spatial dims but %lld/%lld/%lld/%lld "
                              "dilations/strides/pre/post paddings", (long long)c->nsp,
                              (long long)c->ndil, (long long)c->nstr, (long long)c->npre,
                              (long long)c->npost);
    for (int64_t i = 0; i < c->nsp; i++)
        if (c->dil[i] <= 0 || c->str[i] <= 0 || c->pre[i] < 0 || c->post[i] < 0)
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                  "cudnnBackendFinalize(convolution): bad stride/dilation/padding");
    if (c->mode != CUDNN_CONVOLUTION && c->mode != CUDNN_CROSS_CORRELATION)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize(convolution): bad mode");
    return CUDNN_STATUS_SUCCESS;
}

/* --------------------------------------------------------- pointwise */

static cudnnStatus_t cb_pw_set(cb_pw *p, const cb_in *in)
{
    cudnnStatus_t st;
    int32_t e;
    switch (in->name) {
    case CUDNN_ATTR_POINTWISE_MODE:
        st = cb_in_enum(in, CUDNN_TYPE_POINTWISE_MODE, &e);
        p->mode = (cudnnPointwiseMode_t)e;
        break;
    case CUDNN_ATTR_POINTWISE_MATH_PREC:
        st = cb_in_enum(in, CUDNN_TYPE_DATA_TYPE, &e);
        p->prec = (cudnnDataType_t)e;
        break;
    case CUDNN_ATTR_POINTWISE_NAN_PROPAGATION:
        st = cb_in_enum(in, CUDNN_TYPE_NAN_PROPOGATION, &p->nan);
        break;
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP: st = cb_in_real(in, &p->relu_lo); break;
    case CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP: st = cb_in_real(in, &p->relu_hi); break;
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE: st = cb_in_real(in, &p->relu_slope); break;
    case CUDNN_ATTR_POINTWISE_ELU_ALPHA: st = cb_in_real(in, &p->elu_alpha); break;
    case CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA: st = cb_in_real(in, &p->softplus_beta); break;
    case CUDNN_ATTR_POINTWISE_SWISH_BETA: st = cb_in_real(in, &p->swish_beta); break;
    case CUDNN_ATTR_POINTWISE_AXIS: st = cb_in_i64(in, &p->axis); break;
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: pointwise has no attribute %d", (int)in->name);
    }
    if (st == CUDNN_STATUS_SUCCESS)
        p->set |= (cb_mask)1 << in->name;
    return st;
}

static cudnnStatus_t cb_pw_get(const cb_pw *p, const cb_out *o)
{
    int32_t e;
    switch (o->name) {
    case CUDNN_ATTR_POINTWISE_MODE:
        e = p->mode;
        return cb_put(o, CUDNN_TYPE_POINTWISE_MODE, &e, 1);
    case CUDNN_ATTR_POINTWISE_MATH_PREC:
        e = p->prec;
        return cb_put(o, CUDNN_TYPE_DATA_TYPE, &e, 1);
    case CUDNN_ATTR_POINTWISE_NAN_PROPAGATION: return cb_put(o, CUDNN_TYPE_NAN_PROPOGATION, &p->nan, 1);
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP: return cb_put_real(o, p->relu_lo);
    case CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP: return cb_put_real(o, p->relu_hi);
    case CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE: return cb_put_real(o, p->relu_slope);
    case CUDNN_ATTR_POINTWISE_ELU_ALPHA: return cb_put_real(o, p->elu_alpha);
    case CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA: return cb_put_real(o, p->softplus_beta);
    case CUDNN_ATTR_POINTWISE_SWISH_BETA: return cb_put_real(o, p->swish_beta);
    case CUDNN_ATTR_POINTWISE_AXIS: return cb_put(o, CUDNN_TYPE_INT64, &p->axis, 1);
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: pointwise has no attribute %d", (int)o->name);
    }
}

/* --------------------------------------------------------- operations */

/* The tensor slot / scalar an operation attribute names; -1 if none. */
typedef struct cb_op_attr {
    int kind;
    cudnnBackendAttributeName_t name;
    int slot;             /* CB_T_*, or CB_OP_ALPHA/BETA/DESC */
} cb_op_attr;

#define FWD CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR
#define BWD_D CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
#define BWD_F CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR
#define PWOP CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR
static const cb_op_attr cb_op_attrs[] = {
    {FWD, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CB_OP_ALPHA},
    {FWD, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CB_OP_BETA},
    {FWD, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CB_OP_DESC},
    {FWD, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CB_T_W},
    {FWD, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CB_T_X},
    {FWD, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CB_T_Y},
    {BWD_D, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CB_OP_ALPHA},
    {BWD_D, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CB_OP_BETA},
    {BWD_D, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CB_OP_DESC},
    {BWD_D, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CB_T_W},
    {BWD_D, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CB_T_X},
    {BWD_D, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CB_T_Y},
    {BWD_F, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CB_OP_ALPHA},
    {BWD_F, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, CB_OP_BETA},
    {BWD_F, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CB_OP_DESC},
    {BWD_F, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CB_T_W},
    {BWD_F, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CB_T_X},
    {BWD_F, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CB_T_Y},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CB_OP_DESC},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CB_T_X},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CB_T_B},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CB_T_Y},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CB_OP_ALPHA},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CB_OP_BETA},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, CB_T_DX},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, CB_T_DY},
    {PWOP, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CB_T_T},
};

static int cb_op_slot(int kind, cudnnBackendAttributeName_t name)
{
    for (size_t i = 0; i < sizeof cb_op_attrs / sizeof cb_op_attrs[0]; i++)
        if (cb_op_attrs[i].kind == kind && cb_op_attrs[i].name == name)
            return cb_op_attrs[i].slot;
    return -1;
}

static cudnnStatus_t cb_op_set(cb_op *op, const cb_in *in)
{
    int slot = cb_op_slot(op->kind, in->name);
    cudnnStatus_t st;
    const cb_desc *src;
    if (slot < 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: operation %d has no attribute %d",
                              (int)op->kind, (int)in->name);
    if (slot == CB_OP_ALPHA)
        st = cb_in_real(in, &op->alpha);
    else if (slot == CB_OP_BETA)
        st = cb_in_real(in, &op->beta);
    else if (slot == CB_OP_DESC) {
        if (op->kind == PWOP) {
            if ((st = cb_in_desc(in, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &src)) == CUDNN_STATUS_SUCCESS)
                op->pw = src->u.pw;
        } else {
            if ((st = cb_in_desc(in, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &src)) == CUDNN_STATUS_SUCCESS)
                op->conv = src->u.conv;
        }
    } else {
        if ((st = cb_in_desc(in, CUDNN_BACKEND_TENSOR_DESCRIPTOR, &src)) == CUDNN_STATUS_SUCCESS)
            op->t[slot] = src->u.tensor;
    }
    if (st == CUDNN_STATUS_SUCCESS)
        op->set |= slot >= CB_OP_ALPHA ? (cb_mask)slot : (cb_mask)1 << slot;
    return st;
}

static void cb_fill_tensor(cb_desc *dst, int64_t i, const void *ctx)
{
    (void)i;
    dst->u.tensor = *(const cb_tensor *)ctx;
}

static void cb_fill_conv(cb_desc *dst, int64_t i, const void *ctx)
{
    (void)i;
    dst->u.conv = *(const cb_conv *)ctx;
}

static void cb_fill_pw(cb_desc *dst, int64_t i, const void *ctx)
{
    (void)i;
    dst->u.pw = *(const cb_pw *)ctx;
}

static cudnnStatus_t cb_op_get(const cb_op *op, const cb_out *o)
{
    int slot = cb_op_slot(op->kind, o->name);
    if (slot < 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: operation %d has no attribute %d",
                              (int)op->kind, (int)o->name);
    if (slot == CB_OP_ALPHA)
        return cb_put_real(o, op->alpha);
    if (slot == CB_OP_BETA)
        return cb_put_real(o, op->beta);
    int have = slot == CB_OP_DESC ? !!(op->set & CB_OP_DESC) : !!(op->set & ((cb_mask)1 << slot));
    if (slot == CB_OP_DESC) {
        if (op->kind == PWOP)
            return cb_put_descs(o, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, have, cb_fill_pw, &op->pw);
        return cb_put_descs(o, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, have, cb_fill_conv, &op->conv);
    }
    return cb_put_descs(o, CUDNN_BACKEND_TENSOR_DESCRIPTOR, have, cb_fill_tensor, &op->t[slot]);
}

/* Shapes of a convolution: x [N, C, in...], w [K, C/g, k...], y [N, K,
 * out...] with out = (in + pre + post - dil (k - 1) - 1) / stride + 1. */
static cudnnStatus_t cb_conv_op_finalize(cb_op *op)
{
    const cb_mask need = (1u << CB_T_X) | (1u << CB_T_W) | (1u << CB_T_Y) | CB_OP_DESC;
    if ((op->set & need) != need)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(convolution op): x, w, y and the convolution "
                              "descriptor are required");
    const cb_tensor *x = &op->t[CB_T_X], *w = &op->t[CB_T_W], *y = &op->t[CB_T_Y];
    const cb_conv *c = &op->conv;
    int64_t nd = c->nsp + 2;
    if (x->nd != nd || w->nd != nd || y->nd != nd)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH,
                              "cudnnBackendFinalize(convolution op): %lld spatial dims but tensors "
                              "of rank %lld/%lld/%lld", (long long)c->nsp, (long long)x->nd,
                              (long long)w->nd, (long long)y->nd);
    if (x->dims[0] != y->dims[0] || w->dims[0] != y->dims[1] || x->dims[1] % w->dims[1] != 0 ||
        w->dims[0] % (x->dims[1] / w->dims[1]) != 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH,
                              "cudnnBackendFinalize(convolution op): batch/channel counts do not "
                              "match (x %lldx%lld, w %lldx%lld, y %lldx%lld)",
                              (long long)x->dims[0], (long long)x->dims[1], (long long)w->dims[0],
                              (long long)w->dims[1], (long long)y->dims[0], (long long)y->dims[1]);
    for (int64_t i = 0; i < c->nsp; i++) {
        int64_t span = x->dims[2 + i] + c->pre[i] + c->post[i] - c->dil[i] * (w->dims[2 + i] - 1) - 1;
        int64_t want = span < 0 ? 0 : span / c->str[i] + 1;
        if (y->dims[2 + i] != want)
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH,
                                  "cudnnBackendFinalize(convolution op): spatial dim %lld: output "
                                  "%lld, expected %lld", (long long)i, (long long)y->dims[2 + i],
                                  (long long)want);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t cb_pw_op_finalize(cb_op *op)
{
    if (!(op->set & CB_OP_DESC) || !(op->set & (1u << CB_T_X)))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(pointwise op): descriptor and x are required");
    return CUDNN_STATUS_SUCCESS;
}

void cb_fill_op(cb_desc *dst, int64_t i, const void *graph)
{
    const cb_graph *g = graph;
    dst->u.op = g->ops[i];
}

/* ------------------------------------------- knobs and variant packs */

void cb_fill_knob(cb_desc *dst, int64_t i, const void *cfg)
{
    dst->u.knob = ((const cb_cfg *)cfg)->knobs[i];
}

static cudnnStatus_t cb_knob_set(cb_knob *k, const cb_in *in)
{
    cudnnStatus_t st;
    if (in->name == CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)
        st = cb_in_enum(in, CUDNN_TYPE_KNOB_TYPE, &k->type);
    else if (in->name == CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)
        st = cb_in_i64(in, &k->value);
    else
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: knob choice has no attribute %d", (int)in->name);
    if (st == CUDNN_STATUS_SUCCESS)
        k->set |= (cb_mask)1 << (in->name - CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE);
    return st;
}

static cudnnStatus_t cb_knob_get(const cb_knob *k, const cb_out *o)
{
    if (o->name == CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)
        return cb_put(o, CUDNN_TYPE_KNOB_TYPE, &k->type, 1);
    if (o->name == CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)
        return cb_put(o, CUDNN_TYPE_INT64, &k->value, 1);
    return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                          "cudnnBackendGetAttribute: knob choice has no attribute %d", (int)o->name);
}

static cudnnStatus_t cb_vp_set(cb_vpack *v, const cb_in *in)
{
    cudnnStatus_t st;
    switch (in->name) {
    case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS:
        if ((st = cb_in_check(in, CUDNN_TYPE_INT64, 0, CB_MAX_VP)) == CUDNN_STATUS_SUCCESS) {
            v->nuids = in->n;
            if (in->n)
                memcpy(v->uids, in->p, (size_t)in->n * 8);
        }
        break;
    case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS:
        if ((st = cb_in_check(in, CUDNN_TYPE_VOID_PTR, 0, CB_MAX_VP)) == CUDNN_STATUS_SUCCESS) {
            v->nptrs = in->n;
            if (in->n)
                memcpy(v->ptrs, in->p, (size_t)in->n * sizeof(void *));
        }
        break;
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE:
        if ((st = cb_in_check(in, CUDNN_TYPE_VOID_PTR, 1, 1)) == CUDNN_STATUS_SUCCESS)
            memcpy(&v->workspace, in->p, sizeof(void *));
        break;
    case CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES:
        /* torchfl's plans compute no intermediates: accept and ignore */
        st = cb_in_check(in, CUDNN_TYPE_VOID_PTR, 0, CB_MAX_VP);
        break;
    case CUDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS:
    case CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES:
    case CUDNN_ATTR_VARIANT_PACK_OVERRIDE_STRIDES:
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                              "cudnnBackendSetAttribute: dynamic-shape overrides are not supported");
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: variant pack has no attribute %d", (int)in->name);
    }
    if (st == CUDNN_STATUS_SUCCESS)
        v->set |= (cb_mask)1 << (in->name - CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
    return st;
}

static cudnnStatus_t cb_vp_get(const cb_vpack *v, const cb_out *o)
{
    switch (o->name) {
    case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS: return cb_put(o, CUDNN_TYPE_INT64, v->uids, v->nuids);
    case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS: return cb_put(o, CUDNN_TYPE_VOID_PTR, v->ptrs, v->nptrs);
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE: return cb_put(o, CUDNN_TYPE_VOID_PTR, &v->workspace, 1);
    default:
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendGetAttribute: variant pack has no attribute %d", (int)o->name);
    }
}

static cudnnStatus_t cb_vp_finalize(cb_vpack *v)
{
    if (v->nuids != v->nptrs)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendFinalize(variant pack): %lld unique ids but %lld pointers",
                              (long long)v->nuids, (long long)v->nptrs);
    for (int64_t i = 0; i < v->nuids; i++)
        for (int64_t j = i + 1; j < v->nuids; j++)
            if (v->uids[i] == v->uids[j])
                return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES,
                                      "cudnnBackendFinalize(variant pack): unique id %lld twice",
                                      (long long)v->uids[i]);
    return CUDNN_STATUS_SUCCESS;
}

/* -------------------------------------------------------- entry points */

static cudnnStatus_t cb_set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t count, const void *elements);
static cudnnStatus_t cb_get(cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                            void *elements);

/* Every call is traced at debug level (TORCHFL_LOG=debug): what
 * cudnn_frontend asks is the specification torchfl follows. */
cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                       cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t count,
                                       const void *elements)
{
    cudnnStatus_t st = cb_set(descriptor, name, type, count, elements);
    const cb_desc *d = cb_desc_get(descriptor, -1);
    tfl_debug("cudnn: set desc %p (type %d) attr %d type %d n %lld -> %d", descriptor,
              d ? (int)d->type : -1, (int)name, (int)type, (long long)count, (int)st);
    return st;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                       cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requested,
                                       int64_t *count, void *elements)
{
    cudnnStatus_t st = cb_get(descriptor, name, type, requested, count, elements);
    const cb_desc *d = cb_desc_get(descriptor, -1);
    tfl_debug("cudnn: get desc %p (type %d) attr %d type %d req %lld -> %d (count %lld)", descriptor,
              d ? (int)d->type : -1, (int)name, (int)type, (long long)requested, (int)st,
              count ? (long long)*count : -1LL);
    return st;
}

static cudnnStatus_t cb_set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t count, const void *elements)
{
    cb_desc *d = cb_desc_get(descriptor, -1);
    if (!d)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendSetAttribute: not a live descriptor");
    if (d->finalized)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendSetAttribute: descriptor type %d is already finalized",
                              (int)d->type);
    if (count < 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendSetAttribute: negative count");
    cb_in in = {name, type, count, elements};
    switch (d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return cb_tensor_set(&d->u.tensor, &in);
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: return cb_conv_set(&d->u.conv, &in);
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: return cb_pw_set(&d->u.pw, &in);
    case FWD: case BWD_D: case BWD_F: case PWOP: return cb_op_set(&d->u.op, &in);
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: return cb_knob_set(&d->u.knob, &in);
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return cb_vp_set(&d->u.vp, &in);
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return cb_graph_set(d, &in);
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: return cb_engine_set(d, &in);
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return cb_heur_set(d, &in);
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: return cb_cfg_set(d, &in);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: return cb_plan_set(d, &in);
    default:
        /* knob/layout/intermediate info: filled by cuDNN, never set */
        return cb_bad_attr(d, "Set", name);
    }
}

static cudnnStatus_t cb_get(cudnnBackendDescriptor_t const descriptor,
                            cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t requested,
                            int64_t *count, void *elements)
{
    const cb_desc *d = cb_desc_get(descriptor, -1);
    if (!d)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendGetAttribute: not a live descriptor");
    cb_out o = {name, type, requested, count, elements};
    switch (d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return cb_tensor_get(&d->u.tensor, &o);
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: return cb_conv_get(&d->u.conv, &o);
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: return cb_pw_get(&d->u.pw, &o);
    case FWD: case BWD_D: case BWD_F: case PWOP: return cb_op_get(&d->u.op, &o);
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: return cb_knob_get(&d->u.knob, &o);
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return cb_vp_get(&d->u.vp, &o);
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return cb_graph_get(d, &o);
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: return cb_engine_get(d, &o);
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return cb_heur_get(d, &o);
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: return cb_cfg_get(d, &o);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: return cb_plan_get(d, &o);
    default:
        return cb_bad_attr(d, "Get", name);
    }
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    cb_desc *d = cb_desc_get(descriptor, -1);
    if (!d)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize: not a live descriptor");
    cudnnStatus_t st;
    switch (d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: st = cb_tensor_finalize(&d->u.tensor); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: st = cb_conv_finalize(&d->u.conv); break;
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
        st = (d->u.pw.set & ((cb_mask)1 << CUDNN_ATTR_POINTWISE_MODE))
                 ? CUDNN_STATUS_SUCCESS
                 : tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendFinalize(pointwise): no mode");
        break;
    case FWD: case BWD_D: case BWD_F: st = cb_conv_op_finalize(&d->u.op); break;
    case PWOP: st = cb_pw_op_finalize(&d->u.op); break;
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
        st = d->u.knob.set == 3 ? CUDNN_STATUS_SUCCESS
                                : tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                                                 "cudnnBackendFinalize(knob choice): type and value required");
        break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: st = cb_vp_finalize(&d->u.vp); break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: st = cb_graph_finalize(d); break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: st = cb_engine_finalize(d); break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: st = cb_heur_finalize(d); break;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: st = cb_cfg_finalize(d); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: st = cb_plan_finalize(d); break;
    default:
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                            "cudnnBackendFinalize: descriptor type %d is filled by cuDNN, not finalized",
                            (int)d->type);
        break;
    }
    if (st == CUDNN_STATUS_SUCCESS)
        d->finalized = 1;
    tfl_debug("cudnn: finalize desc %p (type %d) -> %d", descriptor, (int)d->type, (int)st);
    return st;
}

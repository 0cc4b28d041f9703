/*
 * cudnn_batchnorm.c - cuDNN's (legacy) tensor descriptors and batch norm
 * calls, run as TFL_OP_BATCHNORM ops (torchfl/ops/batchnorm.h).
 *
 * PyTorch 2.11 sends affine batch norm of 3-d..5-d float inputs to cuDNN
 * when cuDNN is enabled (aten/src/ATen/native/cudnn/BatchNorm.cpp):
 * cudnnSetTensorNdDescriptor for x and for the (1, C, 1, ...) parameters,
 * the workspace / reserve size queries, then
 * cudnnBatchNormalizationForwardTrainingEx (mode SPATIAL_PERSISTENT),
 * cudnnBatchNormalizationForwardInference (SPATIAL) and
 * cudnnBatchNormalizationBackwardEx.  They are computed as the native
 * kernels would: statistics (biased variance), the running update with
 * the unbiased variance and the exponential average factor, then
 * y = (x - mean) * invstd * scale + bias; backward from the saved mean and
 * inverse standard deviation.  Only what PyTorch uses is accepted: float,
 * half or bfloat16 data with float parameters,
 * bnOps = BN (no fused add / activation), alpha = 1 and beta = 0, spatial
 * modes (per-activation only where it is the same thing); anything else
 * answers CUDNN_STATUS_NOT_SUPPORTED.  No workspace is needed.
 */
#include <cudnn.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "cudnn/cudnn_internal.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/runtime.h"

#define MAX_DIMS 8

struct tensor_desc {
    struct tensor_desc *self;   /* liveness check */
    cudnnDataType_t dtype;
    int nbdims;
    int dims[MAX_DIMS], strides[MAX_DIMS];
};

static int desc_ok(const struct tensor_desc *d)
{
    return d && d->self == d && d->nbdims > 0;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *out)
{
    return tfl_cudnn_desc_new(sizeof(struct tensor_desc), (void **)out);
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t desc)
{
    return tfl_cudnn_desc_free(desc);
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t desc, cudnnDataType_t dtype,
                                         int nbdims, const int dims[], const int strides[])
{
    struct tensor_desc *d = (struct tensor_desc *)desc;
    if (!d || d->self != d || !dims || !strides)
        return CUDNN_STATUS_BAD_PARAM;
    if (nbdims < 1 || nbdims > MAX_DIMS)
        return CUDNN_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < nbdims; i++)
        if (dims[i] <= 0 || strides[i] < 0)
            return CUDNN_STATUS_BAD_PARAM;
    d->dtype = dtype;
    d->nbdims = nbdims;
    memcpy(d->dims, dims, sizeof(int) * (size_t)nbdims);
    memcpy(d->strides, strides, sizeof(int) * (size_t)nbdims);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t desc, cudnnDataType_t dtype,
                                           int n, int c, int h, int w,
                                           int ns, int cs, int hs, int ws)
{
    const int dims[4] = { n, c, h, w }, strides[4] = { ns, cs, hs, ws };
    return cudnnSetTensorNdDescriptor(desc, dtype, 4, dims, strides);
}

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
                                         cudnnDataType_t dtype, int n, int c, int h, int w)
{
    if (format == CUDNN_TENSOR_NCHW)
        return cudnnSetTensor4dDescriptorEx(desc, dtype, n, c, h, w, c * h * w, h * w, w, 1);
    if (format == CUDNN_TENSOR_NHWC)
        return cudnnSetTensor4dDescriptorEx(desc, dtype, n, c, h, w, h * w * c, 1, w * c, c);
    return CUDNN_STATUS_NOT_SUPPORTED;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t desc, int requested,
                                         cudnnDataType_t *dtype, int *nbdims, int dims[], int strides[])
{
    const struct tensor_desc *d = (const struct tensor_desc *)desc;
    if (!desc_ok(d) || !dtype || !nbdims || requested < 0 || (requested && (!dims || !strides)))
        return CUDNN_STATUS_BAD_PARAM;
    *dtype = d->dtype;
    *nbdims = d->nbdims;
    for (int i = 0; i < requested && i < d->nbdims; i++) {
        dims[i] = d->dims[i];
        strides[i] = d->strides[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ helpers */

/* The data tensors' element type: float, half or bfloat16 (the parameter
 * tensors are float, as PyTorch passes them). */
static int data_type(const struct tensor_desc *d, tfl_dtype *dt)
{
    return d->dtype != CUDNN_DATA_DOUBLE && tfl_cudnn_dtype(d->dtype, dt);
}

/* x as [n][c][l]: the dimensions after the channel must collapse into one
 * stride (NCHW and NHWC both do).  0 if they do not. */
static int view3(const struct tensor_desc *d, int64_t *n, int64_t *c, int64_t *l, int64_t st[3])
{
    tfl_dtype dt;
    if (!desc_ok(d) || d->nbdims < 2 || !data_type(d, &dt))
        return 0;
    *n = d->dims[0];
    *c = d->dims[1];
    st[0] = d->strides[0];
    st[1] = d->strides[1];
    int64_t len = 1, inner = 1;
    int first = 1;
    /* collapse from the innermost spatial dimension outwards */
    for (int i = d->nbdims - 1; i >= 2; i--) {
        if (d->dims[i] == 1)
            continue;
        if (first) {
            inner = d->strides[i];
            first = 0;
        } else if ((int64_t)d->strides[i] != inner * len) {
            return 0;
        }
        len *= d->dims[i];
    }
    *l = len;
    st[2] = inner;
    return 1;
}

static int64_t span_bytes(const struct tensor_desc *d, int64_t n, int64_t c, int64_t l, const int64_t st[3])
{
    tfl_dtype dt = TFL_DT_F32;
    data_type(d, &dt);
    return ((n - 1) * st[0] + (c - 1) * st[1] + (l - 1) * st[2] + 1) * (int64_t)tfl_dtype_size(dt);
}

static int is_value(const void *p, float want)
{
    /* alpha / beta are host floats for float data */
    float v;
    if (!p)
        return 0;
    memcpy(&v, p, sizeof v);
    return v == want;
}

/* The parameter descriptor: C floats, contiguous. */
static int param_ok(const struct tensor_desc *d, int64_t c)
{
    if (!desc_ok(d) || d->dtype != CUDNN_DATA_FLOAT)
        return 0;
    int64_t n = 1;
    for (int i = 0; i < d->nbdims; i++)
        n *= d->dims[i];
    return n == c && d->dims[1 < d->nbdims ? 1 : 0] == c;
}

static int vec_ok(const void *p, int64_t c, int optional)
{
    return p ? tfl_mem_check_range(p, (size_t)c * 4, NULL) : optional;
}

static cudnnStatus_t route(tfl_op *op, cudnnHandle_t handle)
{
    cudaStream_t s = NULL;
    if (cudnnGetStream(handle, &s) != CUDNN_STATUS_SUCCESS)
        return CUDNN_STATUS_BAD_PARAM;
    tfl_status st = tfl_route_op(op, (tfl_rt_stream *)s);
    if (st == TFL_OK)
        return CUDNN_STATUS_SUCCESS;
    tfl_error("cuDNN %s failed (%d)", op->name, (int)st);
    return st == TFL_ERR_UNSUPPORTED ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_EXECUTION_FAILED;
}

static void init_op(tfl_op *op, const char *name)
{
    memset(op, 0, sizeof *op);
    op->kind = TFL_OP_BATCHNORM;
    op->name = name;
    op->u.batchnorm.dtype = TFL_DT_F32;
}

/* Mode check: spatial, or per-activation where every channel is one
 * value per sample (then both are the same normalisation). */
static int mode_ok(cudnnBatchNormMode_t mode, int64_t l)
{
    return mode == CUDNN_BATCHNORM_SPATIAL || mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT ||
           (mode == CUDNN_BATCHNORM_PER_ACTIVATION && l == 1);
}

/* ------------------------------------------------------------ sizes */

cudnnStatus_t cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops,
    const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t z, const cudnnTensorDescriptor_t y,
    const cudnnTensorDescriptor_t p, const cudnnActivationDescriptor_t act, size_t *size)
{
    (void)handle; (void)mode; (void)ops; (void)x; (void)z; (void)y; (void)p; (void)act;
    if (!size)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *size = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops,
    const cudnnActivationDescriptor_t act, const cudnnTensorDescriptor_t x, size_t *size)
{
    (void)handle; (void)mode; (void)ops; (void)act; (void)x;
    if (!size)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *size = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops,
    const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t y, const cudnnTensorDescriptor_t dy,
    const cudnnTensorDescriptor_t dz, const cudnnTensorDescriptor_t dx,
    const cudnnTensorDescriptor_t p, const cudnnActivationDescriptor_t act, size_t *size)
{
    (void)handle; (void)mode; (void)ops; (void)x; (void)y; (void)dy; (void)dz; (void)dx; (void)p; (void)act;
    if (!size)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *size = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ forward */

/* y = (x - mean) * s * scale + bias, s = invstd (or from var + eps) */
static cudnnStatus_t apply(cudnnHandle_t h, const struct tensor_desc *xd, const void *x,
                           const struct tensor_desc *yd, void *y, const float *scale,
                           const float *bias, float *mean, float *s, int from_var, double eps)
{
    tfl_op op;
    init_op(&op, "cudnn_batch_norm_apply");
    tfl_batchnorm_op *o = &op.u.batchnorm;
    int64_t yn, yc, yl;
    if (!view3(xd, &o->n, &o->c, &o->l, o->x_stride) || !view3(yd, &yn, &yc, &yl, o->y_stride) ||
        yn != o->n || yc != o->c || yl != o->l)
        return CUDNN_STATUS_NOT_SUPPORTED;
    if (!tfl_mem_check_range(x, (size_t)span_bytes(xd, o->n, o->c, o->l, o->x_stride), NULL) ||
        !tfl_mem_check_range(y, (size_t)span_bytes(yd, o->n, o->c, o->l, o->y_stride), NULL) ||
        !vec_ok(scale, o->c, 1) || !vec_ok(bias, o->c, 1) || !vec_ok(mean, o->c, 0) || !vec_ok(s, o->c, 0))
        return CUDNN_STATUS_BAD_PARAM;
    tfl_dtype tx, ty;
    if (!data_type(xd, &tx) || !data_type(yd, &ty) || tx != ty)
        return CUDNN_STATUS_NOT_SUPPORTED;
    o->dtype = tx;
    o->kind = TFL_BN_APPLY;
    o->x = x;
    o->y = y;
    o->weight = scale;
    o->bias = bias;
    o->mean = mean;
    o->invstd = s;
    o->from_var = from_var;
    o->eps = eps;
    return route(&op, h);
}

static cudnnStatus_t forward_training(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t zDesc, const void *z,
    const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t pDesc, const void *scale, const void *bias,
    double factor, void *runningMean, void *runningVar, double eps,
    void *saveMean, void *saveInvVar, cudnnActivationDescriptor_t act,
    void *workspace, size_t workspaceBytes, void *reserve, size_t reserveBytes)
{
    (void)zDesc; (void)workspace; (void)workspaceBytes; (void)reserve; (void)reserveBytes;
    const struct tensor_desc *xd = (const void *)xDesc, *yd = (const void *)yDesc, *pd = (const void *)pDesc;
    int64_t n, c, l, st[3];
    if (bnOps != CUDNN_BATCHNORM_OPS_BN || z || act || !is_value(alpha, 1.0f) || !is_value(beta, 0.0f) ||
        !view3(xd, &n, &c, &l, st) || !mode_ok(mode, l) || !saveMean || !saveInvVar)
        return CUDNN_STATUS_NOT_SUPPORTED;
    if (!param_ok(pd, c) || (runningMean == NULL) != (runningVar == NULL) || n * l < 1)
        return CUDNN_STATUS_BAD_PARAM;
    if (!tfl_mem_check_range(x, (size_t)span_bytes(xd, n, c, l, st), NULL) || !vec_ok(saveMean, c, 0) ||
        !vec_ok(saveInvVar, c, 0) || !vec_ok(runningMean, c, 1) || !vec_ok(runningVar, c, 1))
        return CUDNN_STATUS_BAD_PARAM;
    /* 1. mean and biased variance (the variance goes through saveInvVar) */
    tfl_op op;
    init_op(&op, "cudnn_batch_norm_stats");
    tfl_batchnorm_op *o = &op.u.batchnorm;
    o->kind = TFL_BN_STATS;
    data_type(xd, &o->dtype);
    o->n = n; o->c = c; o->l = l;
    memcpy(o->x_stride, st, sizeof o->x_stride);
    o->x = x;
    o->mean = saveMean;
    o->out2 = saveInvVar;
    o->stats_mode = TFL_BN_STATS_VAR;
    cudnnStatus_t r = route(&op, handle);
    if (r != CUDNN_STATUS_SUCCESS)
        return r;
    /* 2. running statistics (unbiased variance) and var -> invstd in place */
    init_op(&op, "cudnn_batch_norm_update_stats");
    o->kind = TFL_BN_MAP;
    o->ndim = 1;
    o->shape[0] = c;
    o->param[2] = eps;
    if (runningMean) {
        o->map_code = TFL_BN_MAP_UPDATE_STATS;
        o->nout = 3;
        o->nin = 4;
        o->param[0] = (n * l > 1) ? (double)(n * l) / (double)(n * l - 1) : INFINITY;
        o->param[1] = factor;
        void *d[7] = { runningMean, runningVar, saveInvVar, saveMean, saveInvVar, runningMean, runningVar };
        for (int i = 0; i < 7; i++) {
            o->data[i] = d[i];
            o->strides[i][0] = 4;
        }
    } else {
        o->map_code = TFL_BN_MAP_RSQRT_EPS;
        o->nout = 1;
        o->nin = 1;
        o->param[0] = eps;
        o->data[0] = o->data[1] = saveInvVar;
        o->strides[0][0] = o->strides[1][0] = 4;
    }
    r = route(&op, handle);
    if (r != CUDNN_STATUS_SUCCESS)
        return r;
    /* 3. y */
    return apply(handle, xd, x, yd, y, scale, bias, saveMean, saveInvVar, 0, eps);
}

cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t pDesc, const void *scale, const void *bias, double factor,
    void *runningMean, void *runningVar, double eps, void *saveMean, void *saveInvVar)
{
    return forward_training(handle, mode, CUDNN_BATCHNORM_OPS_BN, alpha, beta, xDesc, x, NULL, NULL,
                            yDesc, y, pDesc, scale, bias, factor, runningMean, runningVar, eps,
                            saveMean, saveInvVar, NULL, NULL, 0, NULL, 0);
}

cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t zDesc, const void *z,
    const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t pDesc, const void *scale, const void *bias,
    double factor, void *runningMean, void *runningVar, double eps,
    void *saveMean, void *saveInvVar, cudnnActivationDescriptor_t act,
    void *workspace, size_t workspaceBytes, void *reserve, size_t reserveBytes)
{
    return forward_training(handle, mode, bnOps, alpha, beta, xDesc, x, zDesc, z, yDesc, y, pDesc,
                            scale, bias, factor, runningMean, runningVar, eps, saveMean, saveInvVar,
                            act, workspace, workspaceBytes, reserve, reserveBytes);
}

cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc, void *y,
    const cudnnTensorDescriptor_t pDesc, const void *scale, const void *bias,
    const void *mean, const void *var, double eps)
{
    const struct tensor_desc *xd = (const void *)xDesc;
    int64_t n, c, l, st[3];
    if (!is_value(alpha, 1.0f) || !is_value(beta, 0.0f) || !view3(xd, &n, &c, &l, st) || !mode_ok(mode, l))
        return CUDNN_STATUS_NOT_SUPPORTED;
    if (!param_ok((const void *)pDesc, c) || !mean || !var)
        return CUDNN_STATUS_BAD_PARAM;
    return apply(handle, xd, x, (const void *)yDesc, y, scale, bias, (float *)mean, (float *)var, 1, eps);
}

/* ------------------------------------------------------------ backward */

static cudnnStatus_t backward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const void *alphaData, const void *betaData, const void *alphaParam, const void *betaParam,
    const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t yDesc, const void *y,
    const cudnnTensorDescriptor_t dyDesc, const void *dy,
    const cudnnTensorDescriptor_t dzDesc, void *dz,
    const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t pDesc, const void *scale, const void *bias,
    void *dScale, void *dBias, double eps, const void *savedMean, const void *savedInvVar,
    cudnnActivationDescriptor_t act, void *workspace, size_t workspaceBytes,
    void *reserve, size_t reserveBytes)
{
    (void)yDesc; (void)y; (void)dzDesc; (void)bias; (void)eps;
    (void)workspace; (void)workspaceBytes; (void)reserve; (void)reserveBytes;
    tfl_op op;
    init_op(&op, "cudnn_batch_norm_backward");
    tfl_batchnorm_op *o = &op.u.batchnorm;
    int64_t n2, c2, l2, n3, c3, l3;
    if (bnOps != CUDNN_BATCHNORM_OPS_BN || dz || act || !is_value(alphaData, 1.0f) ||
        !is_value(betaData, 0.0f) || !is_value(alphaParam, 1.0f) || !is_value(betaParam, 0.0f) ||
        !view3((const void *)xDesc, &o->n, &o->c, &o->l, o->x_stride) ||
        !view3((const void *)dyDesc, &n2, &c2, &l2, o->dy_stride) ||
        !view3((const void *)dxDesc, &n3, &c3, &l3, o->dx_stride) || !mode_ok(mode, o->l) ||
        !savedMean || !savedInvVar)
        return CUDNN_STATUS_NOT_SUPPORTED;
    if (n2 != o->n || c2 != o->c || l2 != o->l || n3 != o->n || c3 != o->c || l3 != o->l ||
        !param_ok((const void *)pDesc, o->c))
        return CUDNN_STATUS_BAD_PARAM;
    if (!tfl_mem_check_range(x, (size_t)span_bytes((const void *)xDesc, o->n, o->c, o->l, o->x_stride), NULL) ||
        !tfl_mem_check_range(dy, (size_t)span_bytes((const void *)dyDesc, o->n, o->c, o->l, o->dy_stride), NULL) ||
        !tfl_mem_check_range(dx, (size_t)span_bytes((const void *)dxDesc, o->n, o->c, o->l, o->dx_stride), NULL) ||
        !vec_ok(scale, o->c, 1) || !vec_ok(dScale, o->c, 1) || !vec_ok(dBias, o->c, 1) ||
        !vec_ok(savedMean, o->c, 0) || !vec_ok(savedInvVar, o->c, 0))
        return CUDNN_STATUS_BAD_PARAM;
    tfl_dtype t1, t2, t3;
    data_type((const void *)xDesc, &t1);
    data_type((const void *)dyDesc, &t2);
    data_type((const void *)dxDesc, &t3);
    if (t1 != t2 || t1 != t3)
        return CUDNN_STATUS_NOT_SUPPORTED;
    o->dtype = t1;
    o->kind = TFL_BN_BACKWARD;
    o->train = 1;
    o->x = x;
    o->dy = dy;
    o->dx = dx;
    o->weight = scale;
    o->grad_weight = dScale;
    o->grad_bias = dBias;
    o->mean = (float *)savedMean;
    o->invstd = (float *)savedInvVar;
    return route(&op, handle);
}

cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaData, const void *betaData,
    const void *alphaParam, const void *betaParam, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t dyDesc, const void *dy, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t pDesc, const void *scale, void *dScale, void *dBias, double eps,
    const void *savedMean, const void *savedInvVar)
{
    return backward(handle, mode, CUDNN_BATCHNORM_OPS_BN, alphaData, betaData, alphaParam, betaParam,
                    xDesc, x, NULL, NULL, dyDesc, dy, NULL, NULL, dxDesc, dx, pDesc, scale, NULL,
                    dScale, dBias, eps, savedMean, savedInvVar, NULL, NULL, 0, NULL, 0);
}

cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const void *alphaData, const void *betaData, const void *alphaParam, const void *betaParam,
    const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t yDesc, const void *y,
    const cudnnTensorDescriptor_t dyDesc, const void *dy,
    const cudnnTensorDescriptor_t dzDesc, void *dz,
    const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t pDesc, const void *scale, const void *bias,
    void *dScale, void *dBias, double eps, const void *savedMean, const void *savedInvVar,
    cudnnActivationDescriptor_t act, void *workspace, size_t workspaceBytes,
    void *reserve, size_t reserveBytes)
{
    return backward(handle, mode, bnOps, alphaData, betaData, alphaParam, betaParam, xDesc, x, yDesc, y,
                    dyDesc, dy, dzDesc, dz, dxDesc, dx, pDesc, scale, bias, dScale, dBias, eps,
                    savedMean, savedInvVar, act, workspace, workspaceBytes, reserve, reserveBytes);
}

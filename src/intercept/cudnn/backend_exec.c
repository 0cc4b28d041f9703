/*
 * backend_exec.c - cudnnBackendExecute: an execution plan (one
 * convolution, with its fused epilogue if any, see backend_plan.c) and a variant pack (unique id -> device
 * pointer) become one TFL_OP_CONV, routed to the backend on the handle's
 * stream.  No arithmetic here: the backend (src/backends/host/ops_conv.c
 * on the host) does it.  cudnnBackendPopulateCudaGraph /
 * UpdateCudaGraph are refused (CUDNN_STATUS_NOT_SUPPORTED): PyTorch only
 * uses them for its cuDNN CUDA-graph path, which it probes for.
 */
#include "cudnn/backend_desc.h"

#include "common/log.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/runtime.h"

static void *cb_vp_lookup(const cb_vpack *v, int64_t uid, int *found)
{
    for (int64_t i = 0; i < v->nuids; i++)
        if (v->uids[i] == uid) {
            *found = 1;
            return v->ptrs[i];
        }
    *found = 0;
    return NULL;
}

/* Is t's whole extent (first to last element) inside one allocation? */
static int cb_range_ok(const tfl_conv_tensor *t, int nd, size_t es)
{
    int64_t last = 0;
    for (int i = 0; i < nd; i++)
        last += (t->dims[i] - 1) * t->strides[i];
    return t->data && tfl_mem_check_range(t->data, (size_t)(last + 1) * es, NULL);
}

static cudnnStatus_t cb_status(tfl_status st)
{
    switch (st) {
    case TFL_OK: return CUDNN_STATUS_SUCCESS;
    case TFL_ERR_UNSUPPORTED: return CUDNN_STATUS_NOT_SUPPORTED;
    case TFL_ERR_NOMEM: return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    case TFL_ERR_INVALID: return CUDNN_STATUS_BAD_PARAM;
    case TFL_ERR_DEVICE: return CUDNN_STATUS_EXECUTION_FAILED;
    default: return CUDNN_STATUS_EXECUTION_FAILED;
    }
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan_desc,
                                  cudnnBackendDescriptor_t variant_pack)
{
    if (!tfl_cudnn_handle_ok(handle))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnBackendExecute: invalid handle");
    const cb_desc *pd = cb_desc_get(plan_desc, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    const cb_desc *vd = cb_desc_get(variant_pack, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    if (!pd || !vd)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendExecute: needs an execution plan and a variant pack");
    if (!pd->finalized || !vd->finalized)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                              "cudnnBackendExecute: plan or variant pack not finalized");
    const cb_plan *p = &pd->u.plan;
    tfl_op op = {.kind = TFL_OP_CONV, .name = "conv"};
    op.u.conv = p->conv;
    int fx, fw, fy;
    op.u.conv.x.data = cb_vp_lookup(&vd->u.vp, p->uid_x, &fx);
    op.u.conv.w.data = cb_vp_lookup(&vd->u.vp, p->uid_w, &fw);
    op.u.conv.y.data = cb_vp_lookup(&vd->u.vp, p->uid_y, &fy);
    if (!fx || !fw || !fy)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendExecute: the variant pack lacks a pointer for unique id %lld",
                              (long long)(!fx ? p->uid_x : !fw ? p->uid_w : p->uid_y));
    int fz = 1, fb = 1;
    if (p->has_z)
        op.u.conv.z.data = cb_vp_lookup(&vd->u.vp, p->uid_z, &fz);
    if (p->has_b)
        op.u.conv.bias = cb_vp_lookup(&vd->u.vp, p->uid_b, &fb);
    if (!fz || !fb)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM,
                              "cudnnBackendExecute: the variant pack lacks a pointer for unique id %lld",
                              (long long)(!fz ? p->uid_z : p->uid_b));
    int nd = 2 + op.u.conv.spatial;
    size_t es = tfl_dtype_size(op.u.conv.dtype);
    if (!cb_range_ok(&op.u.conv.x, nd, es) || !cb_range_ok(&op.u.conv.w, nd, es) ||
        !cb_range_ok(&op.u.conv.y, nd, es) || (p->has_z && !cb_range_ok(&op.u.conv.z, nd, es)) ||
        (p->has_b && (!op.u.conv.bias ||
                      !tfl_mem_check_range(op.u.conv.bias, (size_t)op.u.conv.w.dims[0] * es, NULL)))) {
        tfl_error("cudnnBackendExecute: a convolution operand lies outside device memory");
        return tfl_cudnn_fail(CUDNN_STATUS_EXECUTION_FAILED,
                              "cudnnBackendExecute: operand outside device memory");
    }
    cudaStream_t s = ((const struct cudnn_handle *)handle)->stream;
    tfl_rt_stream *rs = (tfl_rt_stream *)s;
    if (!tfl_rt_stream_valid(rs))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH,
                              "cudnnBackendExecute: the handle's stream is not live");
    tfl_status st = tfl_route_op(&op, rs);
    if (st != TFL_OK) {
        tfl_error("cudnnBackendExecute: convolution failed on the backend (status %d)", (int)st);
        return tfl_cudnn_fail(cb_status(st), "cudnnBackendExecute: backend status %d", (int)st);
    }
    return CUDNN_STATUS_SUCCESS;
}

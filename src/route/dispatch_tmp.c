/*
 * dispatch_tmp.c - TEMPORARY stand-ins (cublas branch) for route and mem
 * functions the integrator implements, so the cuBLAS entry points link and
 * run before those land on main.
 *
 * Every definition is weak: once the real src/route and src/mem objects
 * are in the archive their strong definitions win, and this file should
 * then be deleted.  The stand-ins are the host-backend behaviour: ops run
 * on host_gemm, every pointer is host-addressable, every stream is valid.
 */
#include <stddef.h>

#include "backends/host/host_ops.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/runtime.h"

__attribute__((weak)) tfl_status tfl_route_op(const tfl_op *op, tfl_rt_stream *s)
{
    (void)s;
    if (!op)
        return TFL_ERR_INVALID;
    if (op->kind == TFL_OP_GEMM)
        return host_gemm(&op->u.gemm);
    if (op->kind == TFL_OP_BLAS)
        return host_blas(&op->u.blas);
    return TFL_ERR_UNSUPPORTED;
}

__attribute__((weak)) int tfl_route_host_addressable(void)
{
    return 1;
}

__attribute__((weak)) int tfl_mem_check_range(const void *p, size_t n,
                                              tfl_alloc_info *out)
{
    (void)n;
    if (out) {
        out->base = (void *)p;
        out->size = n;
        out->kind = TFL_MEM_DEVICE;
        out->device = 0;
        out->flags = 0;
    }
    return p != NULL;
}

__attribute__((weak)) int tfl_rt_stream_valid(tfl_rt_stream *s)
{
    (void)s;
    return 1;
}

__attribute__((weak)) tfl_status tfl_rt_init(void)
{
    return TFL_OK;
}

__attribute__((weak)) int tfl_rt_current_device(void)
{
    return 0;
}

/*
 * context.c - contexts: one primary context per device, contexts made by
 * cuCtxCreate, the per-thread context stack, and the hooks through which
 * the runtime shares the primary context (driver_hooks.h).
 *
 * A context carries no memory or streams of its own here (torchfl's
 * allocations and streams belong to devices); it carries the device,
 * flags and limits, and being current selects the device the runtime and
 * the driver calls work on, as with the real driver.
 */
#include "drv_internal.h"
#include "driver_hooks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CTX_STACK_MAX 128

typedef struct primary_state {
    struct CUctx_st ctx;
    int retained;     /* cuDevicePrimaryCtxRetain minus Release          */
    int runtime_ref;  /* the runtime holds it (first use until reset)    */
} primary_state;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static primary_state g_primary[TFL_DRV_MAX_DEVICES];
static struct CUctx_st *g_created;          /* live cuCtxCreate contexts */
static atomic_ullong g_next_id = 1;

static __thread CUcontext t_stack[CTX_STACK_MAX];
static __thread int t_depth;

static const size_t k_default_limits[CU_LIMIT_MAX] = {
    [CU_LIMIT_STACK_SIZE] = 1024,
    [CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20,
    [CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20,
    [CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2,
    [CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
    [CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 32,
    [CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0,
    [CU_LIMIT_SHMEM_SIZE] = 227 * 1024,
    [CU_LIMIT_CIG_ENABLED] = 0,
    [CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED] = 0,
};

static void ctx_init(struct CUctx_st *c, int dev, int primary, unsigned flags)
{
    memset(c, 0, sizeof *c);
    c->magic = TFL_CTX_MAGIC;
    c->dev = dev;
    c->primary = primary;
    c->flags = flags;
    memcpy(c->limits, k_default_limits, sizeof k_default_limits);
    c->id = atomic_fetch_add(&g_next_id, 1);
}

struct CUctx_st *tfl_drv_primary(int dev)
{
    if (dev < 0 || dev >= TFL_DRV_MAX_DEVICES)
        return NULL;
    primary_state *p = &g_primary[dev];
    pthread_mutex_lock(&g_lock);
    if (p->ctx.magic != TFL_CTX_MAGIC)
        ctx_init(&p->ctx, dev, 1, 0);
    pthread_mutex_unlock(&g_lock);
    return &p->ctx;
}

static int primary_active_locked(int dev)
{
    return g_primary[dev].retained > 0 || g_primary[dev].runtime_ref;
}

/* Caller holds g_lock. */
static int ctx_valid_locked(CUcontext ctx)
{
    if (!ctx)
        return 0;
    for (int d = 0; d < TFL_DRV_MAX_DEVICES; d++)
        if (ctx == &g_primary[d].ctx)
            return g_primary[d].ctx.magic == TFL_CTX_MAGIC;
    for (struct CUctx_st *c = g_created; c; c = c->next)
        if (c == ctx)
            return 1;
    return 0;
}

int tfl_drv_ctx_valid(CUcontext ctx)
{
    pthread_mutex_lock(&g_lock);
    int ok = ctx_valid_locked(ctx);
    pthread_mutex_unlock(&g_lock);
    return ok;
}

/* The thread's current context now selects the runtime's device too:
 * cudaGetDevice reports the device of the current context. */
static void follow_device(void)
{
    if (t_depth > 0 && t_stack[t_depth - 1] && tfl_drv_ctx_valid(t_stack[t_depth - 1]))
        tfl_rt_set_current_device(t_stack[t_depth - 1]->dev);
}

CUresult tfl_drv_current(struct CUctx_st **out)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (t_depth == 0 || t_stack[t_depth - 1] == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = t_stack[t_depth - 1];
    pthread_mutex_lock(&g_lock);
    int ok = ctx_valid_locked(c);
    if (ok && c->primary && !primary_active_locked(c->dev))
        ok = 0;
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    r = tfl_drv_sticky();
    if (r != CUDA_SUCCESS)
        return r;
    if (out)
        *out = c;
    return CUDA_SUCCESS;
}

static CUresult check_flags(unsigned flags)
{
    if (flags & ~(unsigned)CU_CTX_FLAGS_MASK)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned sched = flags & CU_CTX_SCHED_MASK;
    if (sched == 3 || sched > CU_CTX_SCHED_BLOCKING_SYNC)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------- runtime hooks */

static void runtime_retain(int dev)
{
    tfl_drv_primary(dev);
    pthread_mutex_lock(&g_lock);
    __atomic_store_n(&g_primary[dev].runtime_ref, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g_lock);
    tfl_drv_mark_initialised();
}

void tfl_drv_runtime_use(int dev)
{
    if (dev < 0 || dev >= TFL_DRV_MAX_DEVICES)
        return;
    /* Fast path: this thread already has a context and the runtime's
     * reference on dev is held (a racy read is fine: worst case we take
     * the slow path once more). */
    if (t_depth > 0 && t_stack[t_depth - 1] &&
        __atomic_load_n(&g_primary[dev].runtime_ref, __ATOMIC_RELAXED))
        return;
    runtime_retain(dev);
    if (t_depth == 0)
        t_stack[t_depth++] = &g_primary[dev].ctx;
    else if (t_stack[t_depth - 1] == NULL)
        t_stack[t_depth - 1] = &g_primary[dev].ctx;
}

void tfl_drv_runtime_set_device(int dev)
{
    if (dev < 0 || dev >= TFL_DRV_MAX_DEVICES)
        return;
    runtime_retain(dev);
    if (t_depth == 0)
        t_stack[t_depth++] = &g_primary[dev].ctx;
    else
        t_stack[t_depth - 1] = &g_primary[dev].ctx;
}

void tfl_drv_runtime_reset(int dev)
{
    if (dev < 0 || dev >= TFL_DRV_MAX_DEVICES)
        return;
    pthread_mutex_lock(&g_lock);
    __atomic_store_n(&g_primary[dev].runtime_ref, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g_lock);
}

/* ----------------------------------------------------- primary context */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = tfl_drv_primary(dev);
    pthread_mutex_lock(&g_lock);
    g_primary[dev].retained++;
    pthread_mutex_unlock(&g_lock);
    *pctx = c;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    if (g_primary[dev].retained <= 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    int last = --g_primary[dev].retained == 0 && !g_primary[dev].runtime_ref;
    pthread_mutex_unlock(&g_lock);
    if (last) /* the context goes away: its work must be finished */
        tfl_rt_device_sync();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

/* Allocations are device-wide in torchfl and cannot be told apart by
 * context, so a reset finishes the work and restores flags and limits;
 * memory stays allocated (documented in the report as a limitation). */
CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    tfl_rt_device_sync();
    struct CUctx_st *c = tfl_drv_primary(dev);
    pthread_mutex_lock(&g_lock);
    c->flags = 0;
    memcpy(c->limits, k_default_limits, sizeof k_default_limits);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
                                            int *active)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = tfl_drv_primary(dev);
    pthread_mutex_lock(&g_lock);
    *flags = c->flags;
    *active = primary_active_locked(dev);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = check_flags(flags)) != CUDA_SUCCESS)
        return r;
    struct CUctx_st *c = tfl_drv_primary(dev);
    pthread_mutex_lock(&g_lock);
    c->flags = flags;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

/* The first revision refused to change an active context's flags. */
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    int active = primary_active_locked(dev);
    pthread_mutex_unlock(&g_lock);
    if (active)
        return CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

/* ------------------------------------------------------ created contexts */

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    CUresult r = tfl_drv_check_device(dev);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_flags(flags)) != CUDA_SUCCESS)
        return r;
    if (t_depth >= CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUctx_st *c = malloc(sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_init(c, dev, 0, flags);
    pthread_mutex_lock(&g_lock);
    c->next = g_created;
    g_created = c;
    pthread_mutex_unlock(&g_lock);
    t_stack[t_depth++] = c;
    follow_device();
    *pctx = c;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

/* Execution affinity (SM partitions) and CIG have no meaning for
 * torchfl's devices: asking for them is refused, not ignored. */
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
                                int numParams, unsigned int flags, CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && !paramsArray))
        return CUDA_ERROR_INVALID_VALUE;
    if (numParams > 0)
        return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    return ctx_create(pctx, flags, dev);
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                unsigned int flags, CUdevice dev)
{
    if (ctxCreateParams) {
        if (ctxCreateParams->numExecAffinityParams < 0)
            return CUDA_ERROR_INVALID_VALUE;
        if (ctxCreateParams->numExecAffinityParams > 0)
            return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
        if (ctxCreateParams->cigParams)
            return CUDA_ERROR_NOT_SUPPORTED;
    }
    return ctx_create(pctx, flags, dev);
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    struct CUctx_st **pp = &g_created;
    while (*pp && *pp != ctx)
        pp = &(*pp)->next;
    if (!*pp) {
        pthread_mutex_unlock(&g_lock);
        /* primary contexts are released, never destroyed */
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    *pp = ctx->next;
    pthread_mutex_unlock(&g_lock);
    tfl_rt_device_sync();
    /* Popped if current here; other threads that still hold it get
     * CUDA_ERROR_CONTEXT_IS_DESTROYED from their next call. */
    if (t_depth > 0 && t_stack[t_depth - 1] == ctx) {
        t_depth--;
        follow_device();
    }
    ctx->magic = 0;
    free(ctx);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

/* -------------------------------------------------------------- the stack */

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_drv_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth >= CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    t_stack[t_depth++] = ctx;
    follow_device();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (t_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = t_stack[--t_depth];
    if (pctx)
        *pctx = c;
    follow_device();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (ctx == NULL) {  /* unbinds: pops the top, if any */
        if (t_depth > 0)
            t_depth--;
        follow_device();
        return CUDA_SUCCESS;
    }
    if (!tfl_drv_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth == 0)
        t_stack[t_depth++] = ctx;
    else
        t_stack[t_depth - 1] = ctx;
    follow_device();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = t_depth > 0 ? t_stack[t_depth - 1] : NULL;
    return CUDA_SUCCESS;
}

/* ctx NULL means the current context, for the calls that take one. */
static CUresult resolve(CUcontext ctx, struct CUctx_st **out)
{
    if (ctx == NULL)
        return tfl_drv_current(out);
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!tfl_drv_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = c->dev;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = c->dev;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_device_sync());
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = tfl_drv_sticky()) != CUDA_SUCCESS)
        return r;
    return tfl_drv_status(tfl_rt_device_sync());
}

CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    /* The context ABI revision every context since CUDA 3.2 reports. */
    *version = 3020;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    *flags = c->flags;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = check_flags(flags)) != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    c->flags = flags;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    struct CUctx_st *c;
    CUresult r = resolve(ctx, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!ctxId)
        return CUDA_ERROR_INVALID_VALUE;
    *ctxId = c->id;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pvalue)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)limit >= CU_LIMIT_MAX)
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    pthread_mutex_lock(&g_lock);
    *pvalue = c->limits[limit];
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
    struct CUctx_st *c;
    CUresult r = tfl_drv_current(&c);
    if (r != CUDA_SUCCESS)
        return r;
    switch (limit) {
    case CU_LIMIT_SHMEM_SIZE:
    case CU_LIMIT_CIG_ENABLED:
        return CUDA_ERROR_INVALID_VALUE;            /* query-only */
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
        if (value > 128)
            return CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
        if (value > 24)
            return CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_LIMIT_STACK_SIZE:
    case CU_LIMIT_PRINTF_FIFO_SIZE:
    case CU_LIMIT_MALLOC_HEAP_SIZE:
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
    case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
        break;
    default:
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
    pthread_mutex_lock(&g_lock);
    c->limits[limit] = value;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

/* The range the runtime reports too (cudaDeviceGetStreamPriorityRange);
 * priorities are accepted and reported but do not reorder work in the
 * synchronous model. */
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return CUDA_SUCCESS;
}

static _Atomic CUfunc_cache g_cache_config = CU_FUNC_CACHE_PREFER_NONE;

CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pconfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = atomic_load(&g_cache_config);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    atomic_store(&g_cache_config, config);
    return CUDA_SUCCESS;
}

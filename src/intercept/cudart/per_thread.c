/*
 * per_thread.c - the _ptsz / _ptds entry points (per-thread default
 * stream), used by code built with --default-stream per-thread.
 *
 * Execution is synchronous, so the per-thread default stream orders work
 * exactly as the legacy one; each variant forwards to its base function.
 */
#include "cudart/cudart_internal.h"

#define PT(suffix, name, params, args) \
    cudaError_t name##suffix params { return name args; }

PT(_ptds, cudaMemcpy, (void *d, const void *s, size_t n, enum cudaMemcpyKind k), (d, s, n, k))
PT(_ptsz, cudaMemcpyAsync, (void *d, const void *s, size_t n, enum cudaMemcpyKind k,
   cudaStream_t st), (d, s, n, k, st))
PT(_ptds, cudaMemcpy2D, (void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
   enum cudaMemcpyKind k), (d, dp, s, sp, w, h, k))
PT(_ptsz, cudaMemcpy2DAsync, (void *d, size_t dp, const void *s, size_t sp, size_t w,
   size_t h, enum cudaMemcpyKind k, cudaStream_t st), (d, dp, s, sp, w, h, k, st))
PT(_ptds, cudaMemcpy3D, (const struct cudaMemcpy3DParms *p), (p))
PT(_ptsz, cudaMemcpy3DAsync, (const struct cudaMemcpy3DParms *p, cudaStream_t st), (p, st))
PT(_ptds, cudaMemset, (void *d, int v, size_t n), (d, v, n))
PT(_ptsz, cudaMemsetAsync, (void *d, int v, size_t n, cudaStream_t st), (d, v, n, st))
PT(_ptds, cudaMemset2D, (void *d, size_t p, int v, size_t w, size_t h), (d, p, v, w, h))
PT(_ptsz, cudaMemset2DAsync, (void *d, size_t p, int v, size_t w, size_t h, cudaStream_t st),
   (d, p, v, w, h, st))
PT(_ptds, cudaMemset3D, (struct cudaPitchedPtr p, int v, struct cudaExtent e), (p, v, e))
PT(_ptsz, cudaMemset3DAsync, (struct cudaPitchedPtr p, int v, struct cudaExtent e,
   cudaStream_t st), (p, v, e, st))
PT(_ptds, cudaMemcpyToSymbol, (const void *sym, const void *s, size_t n, size_t o,
   enum cudaMemcpyKind k), (sym, s, n, o, k))
PT(_ptds, cudaMemcpyFromSymbol, (void *d, const void *sym, size_t n, size_t o,
   enum cudaMemcpyKind k), (d, sym, n, o, k))
PT(_ptsz, cudaMemcpyToSymbolAsync, (const void *sym, const void *s, size_t n, size_t o,
   enum cudaMemcpyKind k, cudaStream_t st), (sym, s, n, o, k, st))
PT(_ptsz, cudaMemcpyFromSymbolAsync, (void *d, const void *sym, size_t n, size_t o,
   enum cudaMemcpyKind k, cudaStream_t st), (d, sym, n, o, k, st))
PT(_ptsz, cudaMemPrefetchAsync, (const void *p, size_t n, struct cudaMemLocation l,
   unsigned int f, cudaStream_t st), (p, n, l, f, st))
PT(_ptsz, cudaMallocAsync, (void **p, size_t n, cudaStream_t st), (p, n, st))
PT(_ptsz, cudaFreeAsync, (void *p, cudaStream_t st), (p, st))
PT(_ptsz, cudaMallocFromPoolAsync, (void **p, size_t n, cudaMemPool_t pool, cudaStream_t st),
   (p, n, pool, st))
PT(_ptsz, cudaLaunchKernel, (const void *f, dim3 g, dim3 b, void **a, size_t sm,
   cudaStream_t st), (f, g, b, a, sm, st))
PT(_ptsz, cudaLaunchCooperativeKernel, (const void *f, dim3 g, dim3 b, void **a, size_t sm,
   cudaStream_t st), (f, g, b, a, sm, st))
PT(_ptsz, cudaLaunchKernelExC, (const cudaLaunchConfig_t *c, const void *f, void **a),
   (c, f, a))
PT(_ptsz, cudaLaunchHostFunc, (cudaStream_t st, cudaHostFn_t fn, void *d), (st, fn, d))
PT(_ptsz, cudaStreamSynchronize, (cudaStream_t st), (st))
PT(_ptsz, cudaStreamQuery, (cudaStream_t st), (st))
PT(_ptsz, cudaStreamWaitEvent, (cudaStream_t st, cudaEvent_t e, unsigned int f), (st, e, f))
PT(_ptsz, cudaStreamGetFlags, (cudaStream_t st, unsigned int *f), (st, f))
PT(_ptsz, cudaStreamGetPriority, (cudaStream_t st, int *p), (st, p))
PT(_ptsz, cudaStreamGetId, (cudaStream_t st, unsigned long long *id), (st, id))
PT(_ptsz, cudaStreamGetDevice, (cudaStream_t st, int *d), (st, d))
PT(_ptsz, cudaStreamAddCallback, (cudaStream_t st, cudaStreamCallback_t cb, void *d,
   unsigned int f), (st, cb, d, f))
PT(_ptsz, cudaStreamIsCapturing, (cudaStream_t st, enum cudaStreamCaptureStatus *s), (st, s))
PT(_ptsz, cudaStreamGetCaptureInfo, (cudaStream_t st, enum cudaStreamCaptureStatus *s,
   unsigned long long *id, cudaGraph_t *g, const cudaGraphNode_t **deps,
   const cudaGraphEdgeData **ed, size_t *n), (st, s, id, g, deps, ed, n))
PT(_ptsz, cudaEventRecord, (cudaEvent_t e, cudaStream_t st), (e, st))
PT(_ptsz, cudaEventRecordWithFlags, (cudaEvent_t e, cudaStream_t st, unsigned int f),
   (e, st, f))

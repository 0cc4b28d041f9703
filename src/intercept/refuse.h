/*
 * refuse.h - the answer of every entry point torchfl does not implement.
 *
 * scripts/gen_intercept.py generates a weak refusal for every function of
 * every library torchfl replaces (refusals_<lib>.c in the build tree); a
 * hand-written implementation overrides it.  Hand-written code may also
 * refuse a case it does not handle by returning tfl_refuse(...).
 */
#ifndef TFL_REFUSE_H
#define TFL_REFUSE_H

/* The libraries, for the "not supported" status each one returns. */
enum {
    TFL_LIB_CUDART,    /* cudaErrorNotSupported (and the last error)     */
    TFL_LIB_DRIVER,    /* CUDA_ERROR_NOT_SUPPORTED                        */
    TFL_LIB_CUBLAS,    /* CUBLAS_STATUS_NOT_SUPPORTED                     */
    TFL_LIB_CUBLASLT,  /* CUBLAS_STATUS_NOT_SUPPORTED                     */
    TFL_LIB_CUDNN,     /* CUDNN_STATUS_NOT_SUPPORTED                      */
    TFL_LIB_NCCL,      /* ncclInvalidUsage (NCCL has no "unsupported")    */
    TFL_LIB_NVML,      /* NVML_ERROR_NOT_SUPPORTED                        */
    TFL_LIB_CUSOLVER,  /* CUSOLVER_STATUS_NOT_SUPPORTED                   */
    TFL_LIB_CUFFT,     /* CUFFT_NOT_SUPPORTED                             */
    TFL_LIB_CUSPARSE,  /* CUSPARSE_STATUS_NOT_SUPPORTED                   */
    TFL_LIB_COUNT
};

/* Log "torchfl: warning: <name> is not supported (backend <b>)" once per
 * name and return lib's "not supported" status.  For the runtime it also
 * records cudaErrorNotSupported as the calling thread's last error.
 * Thread-safe; an out-of-range lib returns -1. */
int tfl_refuse(int lib, const char *name);

/* The status tfl_refuse returns for lib, without logging. */
int tfl_refuse_status(int lib);

#endif

/*
 * refuse.c - tfl_refuse: log once per function, return "not supported".
 *
 * Called by the generated weak refusals (refusals_<lib>.c) and by
 * hand-written code for the cases it does not handle.  Refusals are rare
 * (a program that hits one usually stops soon after), so a mutex-guarded
 * set of the names already reported is plenty.
 */
#include "refuse.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cublas_api.h>
#include <cudnn_graph.h>
#include <cufft.h>
#include <cusolver_common.h>
#define DISABLE_CUSPARSE_DEPRECATED   /* only the status enum is needed */
#include <cusparse.h>
#include <nccl.h>
#include <uthash.h>

#include "common/log.h"
#include "cudart/cudart_internal.h"
#include "route/runtime.h"

/* No nvml.h ships with the toolkit; the value is NVML_ERROR_NOT_SUPPORTED
 * of nvml.h (PyPI nvidia-nvml-dev). */
#define TFL_NVML_ERROR_NOT_SUPPORTED 3

static const int not_supported[TFL_LIB_COUNT] = {
    [TFL_LIB_CUDART] = cudaErrorNotSupported,
    [TFL_LIB_DRIVER] = CUDA_ERROR_NOT_SUPPORTED,
    [TFL_LIB_CUBLAS] = CUBLAS_STATUS_NOT_SUPPORTED,
    [TFL_LIB_CUBLASLT] = CUBLAS_STATUS_NOT_SUPPORTED,
    [TFL_LIB_CUDNN] = CUDNN_STATUS_NOT_SUPPORTED,
    /* ncclResult_t has no "not supported"; invalid usage is the closest */
    [TFL_LIB_NCCL] = ncclInvalidUsage,
    [TFL_LIB_NVML] = TFL_NVML_ERROR_NOT_SUPPORTED,
    [TFL_LIB_CUSOLVER] = CUSOLVER_STATUS_NOT_SUPPORTED,
    [TFL_LIB_CUFFT] = CUFFT_NOT_SUPPORTED,
    [TFL_LIB_CUSPARSE] = CUSPARSE_STATUS_NOT_SUPPORTED,
};

/* Fallbacks until the runtime (src/route, src/intercept/cudart) is linked
 * in: the strong definitions there replace these. */
__attribute__((weak)) const char *tfl_rt_backend_name(void)
{
    return "host";
}

__attribute__((weak)) cudaError_t tfl_cudart_ret(cudaError_t err)
{
    return err;
}

typedef struct reported {
    UT_hash_handle hh;
    char name[];
} reported;

static pthread_mutex_t reported_lock = PTHREAD_MUTEX_INITIALIZER;
static reported *reported_set;

/* 1 the first time name is seen, 0 after (and when out of memory). */
static int first_time(const char *name)
{
    int first = 0;
    pthread_mutex_lock(&reported_lock);
    reported *r;
    HASH_FIND_STR(reported_set, name, r);
    if (!r) {
        size_t n = strlen(name) + 1;
        r = malloc(sizeof *r + n);
        if (r) {
            memcpy(r->name, name, n);
            HASH_ADD_STR(reported_set, name, r);
            first = 1;
        }
    }
    pthread_mutex_unlock(&reported_lock);
    return first;
}

int tfl_refuse_status(int lib)
{
    if (lib < 0 || lib >= TFL_LIB_COUNT)
        return -1;
    return not_supported[lib];
}

int tfl_refuse(int lib, const char *name)
{
    if (lib < 0 || lib >= TFL_LIB_COUNT)
        return -1;
    if (!name)
        name = "(unnamed function)";
    if (tfl_log_level >= TFL_LOG_WARN && first_time(name)) {
        const char *backend = tfl_rt_backend_name();
        tfl_warn("%s is not supported (backend %s)", name,
                 backend ? backend : "none");
    }
    if (lib == TFL_LIB_CUDART)
        return (int)tfl_cudart_ret(cudaErrorNotSupported);
    return not_supported[lib];
}

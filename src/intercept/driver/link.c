/*
 * link.c - the JIT linker entry points (cuLinkCreate, cuLinkAddData,
 * cuLinkAddFile, cuLinkComplete, cuLinkDestroy) and cuTensorMapEncodeTiled,
 * which PyTorch resolves from libcuda.so.1 at start (LazyNVRTC).
 *
 * torchfl runs PTX itself and has no device linker: a link of exactly one
 * image (PTX, cubin or fatbin) completes to that image, which
 * cuModuleLoadData accepts; linking several images together is refused
 * with CUDA_ERROR_NOT_SUPPORTED when completed.
 */
#include "drv_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

struct CUlinkState_st {
    int inputs;
    void *image;              /* the first input, copied                  */
    size_t size;
    struct CUlinkState_st *next;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUlinkState_st *g_states;

static int state_valid(CUlinkState s)
{
    pthread_mutex_lock(&g_lock);
    struct CUlinkState_st *p = g_states;
    while (p && p != s)
        p = p->next;
    pthread_mutex_unlock(&g_lock);
    return p != NULL;
}

CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                 void **optionValues, CUlinkState *stateOut)
{
    CUresult r = tfl_drv_current(NULL);
    if (r != CUDA_SUCCESS)
        return r;
    if (!stateOut || (numOptions && (!options || !optionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    struct CUlinkState_st *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&g_lock);
    s->next = g_states;
    g_states = s;
    pthread_mutex_unlock(&g_lock);
    *stateOut = s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options,
                              void **optionValues, CUlinkState *stateOut)
{
    return cuLinkCreate_v2(numOptions, options, optionValues, stateOut);
}

static CUresult add(CUlinkState state, CUjitInputType type, const void *data, size_t size)
{
    if (!state_valid(state))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    switch (type) {
    case CU_JIT_INPUT_PTX:
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_FATBINARY:
        break;
    default:  /* relocatable objects, libraries, NVVM IR: need a real linker */
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    size_t n = tfl_drv_image_size(data);
    if (type == CU_JIT_INPUT_PTX && size && size < n)
        n = size;   /* PTX given by length, not necessarily NUL-terminated */
    if (n == 0)
        return type == CU_JIT_INPUT_PTX ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE;
    pthread_mutex_lock(&g_lock);
    CUresult r = CUDA_SUCCESS;
    if (state->inputs++ == 0) {
        state->image = malloc(n + 1);
        if (state->image) {
            memcpy(state->image, data, n);
            ((char *)state->image)[n] = 0;
            state->size = type == CU_JIT_INPUT_PTX ? strlen(state->image) + 1 : n;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                  const char *name, unsigned int numOptions,
                                  CUjit_option *options, void **optionValues)
{
    (void)name; (void)numOptions; (void)options; (void)optionValues;
    CUresult r = tfl_drv_check_init();
    return r != CUDA_SUCCESS ? r : add(state, type, data, size);
}

CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                               const char *name, unsigned int numOptions, CUjit_option *options,
                               void **optionValues)
{
    return cuLinkAddData_v2(state, type, data, size, name, numOptions, options, optionValues);
}

CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                  unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    (void)numOptions; (void)options; (void)optionValues;
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!path)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return CUDA_ERROR_OUT_OF_MEMORY;
    buf[n] = 0;
    r = n ? add(state, type, buf, n) : CUDA_ERROR_INVALID_IMAGE;
    free(buf);
    return r;
}

CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                               unsigned int numOptions, CUjit_option *options,
                               void **optionValues)
{
    return cuLinkAddFile_v2(state, type, path, numOptions, options, optionValues);
}

CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!state_valid(state))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!cubinOut || !sizeOut)
        return CUDA_ERROR_INVALID_VALUE;
    if (state->inputs == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (state->inputs > 1) {
        tfl_error("cuLinkComplete: linking %d images together is not supported "
                  "(torchfl has no device linker)", state->inputs);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    /* owned by the state, valid until cuLinkDestroy, as documented */
    *cubinOut = state->image;
    *sizeOut = state->size;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    struct CUlinkState_st **pp = &g_states;
    while (*pp && *pp != state)
        pp = &(*pp)->next;
    int found = *pp != NULL;
    if (found)
        *pp = state->next;
    pthread_mutex_unlock(&g_lock);
    if (!found)
        return CUDA_ERROR_INVALID_HANDLE;
    free(state->image);
    free(state);
    return CUDA_SUCCESS;
}

/* Tensor maps describe tiles for the Hopper TMA unit; the device model has
 * no TMA (CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED is 0). */
CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap,
                                        CUtensorMapDataType tensorDataType,
                                        cuuint32_t tensorRank, void *globalAddress,
                                        const cuuint64_t *globalDim,
                                        const cuuint64_t *globalStrides,
                                        const cuuint32_t *boxDim,
                                        const cuuint32_t *elementStrides,
                                        CUtensorMapInterleave interleave,
                                        CUtensorMapSwizzle swizzle,
                                        CUtensorMapL2promotion l2Promotion,
                                        CUtensorMapFloatOOBfill oobFill)
{
    (void)tensorDataType; (void)globalAddress; (void)globalDim; (void)globalStrides;
    (void)boxDim; (void)elementStrides; (void)interleave; (void)swizzle;
    (void)l2Promotion; (void)oobFill;
    if (!tensorMap || tensorRank == 0 || tensorRank > 5)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_NOT_SUPPORTED;
}

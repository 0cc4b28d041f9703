/*
 * errors.c - cuGetErrorName and cuGetErrorString for every CUresult of
 * cuda.h; the table is generated from the header (error_table.inc, by
 * scripts/gen_driver_tables.py), so a new code cannot be forgotten.
 */
#include "drv_internal.h"

typedef struct err_entry {
    CUresult code;
    const char *name, *text;
} err_entry;

static const err_entry k_errors[] = {
#define TFL_ERR(code, name, text) { code, name, text },
#include "error_table.inc"
#undef TFL_ERR
};

static const err_entry *find(CUresult e)
{
    for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++)
        if (k_errors[i].code == e)
            return &k_errors[i];
    return NULL;
}

/* Neither needs cuInit, as with the real driver. */
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const err_entry *e = find(error);
    *pStr = e ? e->text : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const err_entry *e = find(error);
    *pStr = e ? e->name : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

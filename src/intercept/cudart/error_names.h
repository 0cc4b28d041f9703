/*
 * error_names.h - the table behind cudaGetErrorName / cudaGetErrorString.
 */
#ifndef TFL_ERROR_NAMES_H
#define TFL_ERROR_NAMES_H

typedef struct tfl_cuda_error_name {
    int code;
    const char *name;
    const char *message;
} tfl_cuda_error_name;

extern const tfl_cuda_error_name tfl_cuda_error_names[];
extern const int tfl_cuda_error_count;

#endif

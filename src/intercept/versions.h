/*
 * versions.h - the library versions torchfl reports.
 *
 * PyTorch compares what a library reports at run time with what the wheel
 * was built against (cuDNN: same major, runtime minor >= compile minor, else
 * "cuDNN version incompatibility"; CUDA: a driver older than the runtime is
 * "insufficient").  torchfl stands in for the libraries of every supported
 * wheel at once (scripts/torch-releases.txt), so it reports the newest
 * version any of them was built against; docs/pytorch-wheel.md has the
 * table.  Taking on a release built against a newer CUDA 13 minor or cuDNN
 * 9 minor means raising these (and checking the new entry points).
 */
#ifndef TFL_INTERCEPT_VERSIONS_H
#define TFL_INTERCEPT_VERSIONS_H

/* cudaRuntimeGetVersion, cudaDriverGetVersion, cuDriverGetVersion, NVML's
 * CUDA driver version, cuBLAS/cuBLASLt/cuDNN's cudart version: CUDA 13.2
 * (torch 2.15.0+cu132; 2.11-2.14 are cu130).  cudaDeviceProp and the
 * pointer attributes are the same in 13.0 and 13.2 (checked against the
 * 13.2 headers of nvidia-cuda-runtime 13.2.86). */
#define TFL_CUDA_VERSION 13020

/* cudnnGetVersion / cudnnGetProperty: 9.26.0 (torch 2.15 is built against
 * cuDNN 9.26, 2.14 against 9.24, 2.12-2.13 9.20, 2.11 9.19). */
#define TFL_CUDNN_MAJOR 9
#define TFL_CUDNN_MINOR 26
#define TFL_CUDNN_PATCH 0

/* ncclGetVersion: the NCCL the loaded wheel was built against (the
 * nvidia-nccl-cu13 it pins): torch 2.11 -> 2.28.9, 2.12 and 2.13 -> 2.29.7,
 * 2.14 and 2.15 -> 2.30.7 (and later, until a newer one is validated). */
#define TFL_NCCL_VERSION_2_11 22809
#define TFL_NCCL_VERSION_2_12 22907
#define TFL_NCCL_VERSION_2_14 23007

#endif

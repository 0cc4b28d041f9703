/*
 * cudart12_stub.c - a stand-in libcudart.so.12 for test_abi12.sh.
 *
 * It exists only so that a program can be linked against "libcudart.so.12"
 * with references versioned @libcudart.so.12, as a real CUDA 12 build is.
 * Under LD_PRELOAD=libtorchfl.so none of these runs; if one does, the
 * preload did not interpose and the program fails loudly.
 */
#include <stdio.h>

#define STUB(name) \
    int name(void) { fputs("cudart12 stub: " #name " called\n", stderr); return 999; }

STUB(cudaGetDeviceCount)
STUB(cudaMalloc)
STUB(cudaFree)
STUB(cudaGetDeviceProperties_v2)
STUB(cudaGetLastError)

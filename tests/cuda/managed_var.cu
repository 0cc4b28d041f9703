// managed_var.cu - __managed__ variables: initialised, visible to host code
// before any other CUDA call, updated by kernels, and cudaMallocManaged
// memory written by a kernel and read by the host directly.
// tfl-variants: sass ptx
#include "check.h"

__managed__ int hits = 5;
__managed__ float scale[4] = { 1.0f, 2.0f, 3.0f, 4.0f };

__global__ void bump(int *m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&hits, 1);
        m[i] = i * (int)scale[i % 4];
    }
}

int main()
{
    CHECK(hits == 5 && scale[2] == 3.0f);    // before any runtime call
    scale[3] = 10.0f;                         // host writes, kernel reads
    int n = 300, *m = NULL;
    CHECK_OK(cudaMallocManaged(&m, n * sizeof(int), cudaMemAttachGlobal));
    bump<<<3, 128>>>(m, n);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK(hits == 5 + n);
    for (int i = 0; i < n; i++) {
        int want = i * (i % 4 == 3 ? 10 : i % 4 + 1);
        if (m[i] != want) { CHECK(m[i] == want); break; }
    }
    CHECK_OK(cudaFree(m));
    TEST_DONE();
}

// symbols_memcpy.cu - __constant__ and __device__ variables: initialisers
// from the PTX, cudaMemcpyToSymbol/FromSymbol (+Async, offsets),
// cudaGetSymbolAddress/Size, kernels reading and writing them, and bad
// symbols/ranges refused with CUDA's codes.
// tfl-variants: sass ptx lz4 nocomp
// tfl-backends: opencl
#include "check.h"

__constant__ float coeffs[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
__device__ int counter = 7;
__device__ float table[256];

__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3]));
        table[i % 256] = y[i];
        atomicAdd(&counter, 1);
    }
}

int main()
{
    const int n = 1000;
    float h[4], hx[n], hy[n];
    CHECK_OK(cudaMemcpyFromSymbol(h, coeffs, sizeof h));
    CHECK(h[0] == 1.0f && h[3] == 4.0f);                 // PTX initialiser
    int c = 0;
    CHECK_OK(cudaMemcpyFromSymbol(&c, counter, sizeof c));
    CHECK(c == 7);
    size_t sz = 0;
    CHECK_OK(cudaGetSymbolSize(&sz, table));
    CHECK(sz == 256 * sizeof(float));
    float *tp = NULL;
    CHECK_OK(cudaGetSymbolAddress((void **)&tp, table));
    CHECK(tp != NULL);

    float nc[2] = { 0.5f, -1.0f };                       // coeffs[2..3] = 0.5, -1
    CHECK_OK(cudaMemcpyToSymbol(coeffs, nc, sizeof nc, 2 * sizeof(float)));
    CHECK_OK(cudaMemcpyToSymbolAsync(counter, &c, sizeof c, 0, cudaMemcpyHostToDevice, 0));

    for (int i = 0; i < n; i++) hx[i] = (float)(i % 17) * 0.25f - 2.0f;
    float *dx, *dy;
    CHECK_OK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_OK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK_OK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    poly<<<(n + 127) / 128, 128>>>(dx, dy, n);
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = hx[i];
        float want = 1.0f + v * (2.0f + v * (0.5f + v * -1.0f));
        CHECK_NEAR(hy[i], want, 1e-6);
        if (tfl_failures) break;
    }
    CHECK_OK(cudaMemcpyFromSymbol(&c, counter, sizeof c));
    CHECK(c == 7 + n);
    float t[256];
    CHECK_OK(cudaMemcpy(t, tp, sizeof t, cudaMemcpyDeviceToHost));  // via the address
    CHECK(t[5] == hy[5] || t[5] == hy[5 + 256] || t[5] == hy[5 + 512] || t[5] == hy[5 + 768]);

    // bad input
    static int not_a_symbol;
    CHECK_ERR(cudaMemcpyToSymbol(&not_a_symbol, h, 4), cudaErrorInvalidSymbol);
    CHECK_ERR(cudaMemcpyToSymbol(coeffs, h, sizeof h, 4), cudaErrorInvalidValue);  // past end
    CHECK_ERR(cudaMemcpyToSymbol(coeffs, h, 4, 0, cudaMemcpyDeviceToHost),
              cudaErrorInvalidMemcpyDirection);
    CHECK_ERR(cudaGetSymbolAddress((void **)&tp, &not_a_symbol), cudaErrorInvalidSymbol);
    cudaGetLastError();
    TEST_DONE();
}

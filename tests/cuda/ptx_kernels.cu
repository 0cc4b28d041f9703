// ptx_kernels.cu - kernels run by the host executor under the preload, in
// every fatbin form nvcc makes (PTX only, SASS+PTX, zstd, lz4, none):
// elementwise, block reduction with shared memory, a templated kernel,
// __device__/__constant__ symbols through cudaMemcpyTo/FromSymbol, device
// printf, an out-of-bounds kernel that must fail with
// cudaErrorIllegalAddress, each result checked against the host.
// tfl-variants: ptx sass zstd lz4 nocomp
// tfl-backends: opencl
#include "check.h"
#include <vector>

__device__ int d_hits;
__constant__ float c_scale[2];

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void block_sum(const T *in, T *out, int n)
{
    extern __shared__ unsigned char smem_raw[];
    T *s = reinterpret_cast<T *>(smem_raw);
    T acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) { out[blockIdx.x] = s[0]; atomicAdd(&d_hits, 1); }
}

__global__ void scale(float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * c_scale[0] + c_scale[1];
}

__global__ void say(int x)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) printf("device says %d\n", x);
}

__global__ void oob(float *p) { p[blockIdx.x * blockDim.x + threadIdx.x + (1 << 28)] = 1.0f; }

int main()
{
    int n = 100000;
    std::vector<float> hx(n), hy(n), ref(n);
    for (int i = 0; i < n; i++) { hx[i] = (float)(i % 17) * 0.5f; hy[i] = (float)(i % 5); ref[i] = 2.0f * hx[i] + hy[i]; }
    float *dx, *dy;
    CHECK_OK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_OK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK_OK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) if (hy[i] != ref[i]) bad++;
    CHECK(bad == 0);

    int blocks = 20;
    double *dd, *dout;
    std::vector<double> hd(n), hout(blocks);
    double want = 0;
    for (int i = 0; i < n; i++) { hd[i] = i * 0.001; want += hd[i]; }
    CHECK_OK(cudaMalloc(&dd, n * sizeof(double)));
    CHECK_OK(cudaMalloc(&dout, blocks * sizeof(double)));
    CHECK_OK(cudaMemcpy(dd, hd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    int zero = 0;
    CHECK_OK(cudaMemcpyToSymbol(d_hits, &zero, sizeof zero));
    block_sum<double><<<blocks, 128, 128 * sizeof(double)>>>(dd, dout, n);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK_OK(cudaMemcpy(hout.data(), dout, blocks * sizeof(double), cudaMemcpyDeviceToHost));
    double got = 0;
    for (int b = 0; b < blocks; b++) got += hout[b];
    CHECK_NEAR(got, want, 1e-12);
    int hits = 0;
    CHECK_OK(cudaMemcpyFromSymbol(&hits, d_hits, sizeof hits));
    CHECK(hits == blocks);

    float sc[2] = { 3.0f, -1.0f };
    CHECK_OK(cudaMemcpyToSymbol(c_scale, sc, sizeof sc));
    scale<<<(n + 127) / 128, 128>>>(dx, n);
    CHECK_OK(cudaMemcpy(hy.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; i++) if (hy[i] != hx[i] * 3.0f - 1.0f) bad++;
    CHECK(bad == 0);

    say<<<2, 32>>>(42);
    CHECK_OK(cudaDeviceSynchronize());
    fflush(stdout);

    oob<<<1, 32>>>(dx);
    cudaError_t e = cudaDeviceSynchronize();
    CHECK(e == cudaErrorIllegalAddress || cudaGetLastError() == cudaErrorIllegalAddress);
    TEST_DONE();
}

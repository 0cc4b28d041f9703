// optable_layout.cu - the op table's run-time layout check, end to end.
//
// Two kernels with the name and template arguments of PyTorch's
// vectorized FillFunctor<float> kernel, built SASS-only as the PyTorch
// wheels are (so nothing can run them but the op table): one with the
// parameters PyTorch's has (int N, FillFunctor<float>, std::array<char*, 1>),
// which torchfl decodes and runs natively; one whose parameters differ (an
// extra int64, as a release that changed the signature would), which must
// be refused at launch with cudaErrorNoKernelImageForDevice - never decoded
// as garbage - while the process and the first kernel keep working.
// tfl-variants: sassonly
#include "check.h"

#include <array>

namespace at {
namespace native {
template <typename T> struct FillFunctor {
    T value;
    __device__ T operator()() const { return value; }
};

template <int vec, typename F, typename A>
__global__ void vectorized_elementwise_kernel(int N, F f, A data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    char *out;
    memcpy(&out, &data, sizeof out);   /* std::array's accessors are host-only */
    if (i < N)
        reinterpret_cast<float *>(out)[i] = f();
}

template <int vec, typename F, typename A>
__global__ void vectorized_elementwise_kernel(int N, F f, A data, long long extra)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    char *out;
    memcpy(&out, &data, sizeof out);
    if (i < N)
        reinterpret_cast<float *>(out)[i] = f() + (float)extra;
}
}  // namespace native
}  // namespace at

int main(void)
{
    const int n = 1000;
    float *d = NULL, h[n];
    CHECK_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    std::array<char *, 1> data = { { reinterpret_cast<char *>(d) } };
    at::native::FillFunctor<float> f = { 2.5f };

    at::native::vectorized_elementwise_kernel<4><<<(n + 127) / 128, 128>>>(n, f, data);
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(h[i] == 2.5f);

    /* the same name with another parameter list: refused, not decoded */
    CHECK_OK(cudaMemset(d, 0, n * sizeof(float)));
    at::native::vectorized_elementwise_kernel<4><<<(n + 127) / 128, 128>>>(n, f, data, 7LL);
    CHECK_ERR(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
    CHECK_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(h[i] == 0.0f);

    /* not sticky: the decodable kernel still runs */
    f.value = -1.0f;
    at::native::vectorized_elementwise_kernel<4><<<(n + 127) / 128, 128>>>(n, f, data);
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(h[i] == -1.0f);
    CHECK_OK(cudaFree(d));
    TEST_DONE();
}

// logreg_train.cu - an ordinary CUDA program: trains a logistic-regression
// classifier on data it generates, with its own kernels (forward, gradient
// with a shared-memory reduction and atomics, SGD update).  It knows
// nothing of torchfl; built with `nvcc -cudart shared`, it runs unchanged
// under `torchfl run`.  It checks itself against a plain host computation
// of the same training and exits non-zero if they disagree.
// tfl-backends: opencl
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

const int N = 4096, D = 16, STEPS = 200, BLOCK = 256;

__global__ void forward(const float *X, const float *w, float b, float *p, int n, int d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float z = b;
    for (int j = 0; j < d; j++) z += X[i * d + j] * w[j];
    p[i] = 1.0f / (1.0f + expf(-z));
}

// grad[j] += sum_i (p_i - y_i) x_ij / n ; grad[d] is the bias; loss too
__global__ void gradient(const float *X, const float *y, const float *p, float *grad,
                         float *loss, int n, int d)
{
    __shared__ float part[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float r = 0.0f, l = 0.0f;
    if (i < n) {
        r = p[i] - y[i];
        float q = fminf(fmaxf(p[i], 1e-7f), 1.0f - 1e-7f);
        l = -(y[i] * logf(q) + (1.0f - y[i]) * logf(1.0f - q));
    }
    for (int j = 0; j <= d + 1; j++) {
        float v = (j < d) ? (i < n ? r * X[i * d + j] : 0.0f) : (j == d ? r : l);
        part[threadIdx.x] = v;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
            __syncthreads();
        }
        if (threadIdx.x == 0) atomicAdd(j <= d ? &grad[j] : loss, part[0] / n);
        __syncthreads();
    }
}

__global__ void update(float *w, float *b, const float *grad, float lr, int d)
{
    int j = threadIdx.x;
    if (j < d) w[j] -= lr * grad[j];
    if (j == d) *b -= lr * grad[d];
}

int main()
{
    std::vector<float> X(N * D), y(N), wtrue(D);
    srand(7);
    for (int j = 0; j < D; j++) wtrue[j] = (rand() / (float)RAND_MAX - 0.5f) * 4.0f;
    for (int i = 0; i < N; i++) {
        float z = 0.3f;
        for (int j = 0; j < D; j++) {
            X[i * D + j] = rand() / (float)RAND_MAX * 2.0f - 1.0f;
            z += X[i * D + j] * wtrue[j];
        }
        y[i] = z > 0 ? 1.0f : 0.0f;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s\n", prop.name);

    float *dX, *dy, *dp, *dw, *dg, *dl, *db;
    CK(cudaMalloc(&dX, N * D * sizeof(float)));
    CK(cudaMalloc(&dy, N * sizeof(float)));
    CK(cudaMalloc(&dp, N * sizeof(float)));
    CK(cudaMalloc(&dw, D * sizeof(float)));
    CK(cudaMalloc(&dg, (D + 1) * sizeof(float)));
    CK(cudaMalloc(&dl, sizeof(float)));
    CK(cudaMalloc(&db, sizeof(float)));
    CK(cudaMemcpy(dX, X.data(), N * D * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(dw, 0, D * sizeof(float)));
    CK(cudaMemset(db, 0, sizeof(float)));

    // the same training on the host, in double, as the reference
    std::vector<double> hw(D, 0.0);
    double hb = 0.0, hloss = 0.0;
    const float lr = 0.5f;
    float loss = 0.0f, bias = 0.0f;
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    CK(cudaEventRecord(t0));
    for (int step = 0; step < STEPS; step++) {
        CK(cudaMemcpy(&bias, db, sizeof(float), cudaMemcpyDeviceToHost));
        forward<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(dX, dw, bias, dp, N, D);
        CK(cudaGetLastError());
        CK(cudaMemset(dg, 0, (D + 1) * sizeof(float)));
        CK(cudaMemset(dl, 0, sizeof(float)));
        gradient<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(dX, dy, dp, dg, dl, N, D);
        CK(cudaGetLastError());
        update<<<1, 32>>>(dw, db, dg, lr, D);
        CK(cudaGetLastError());
        CK(cudaMemcpy(&loss, dl, sizeof(float), cudaMemcpyDeviceToHost));

        std::vector<double> g(D + 1, 0.0);
        hloss = 0.0;
        for (int i = 0; i < N; i++) {
            double z = hb;
            for (int j = 0; j < D; j++) z += X[i * D + j] * hw[j];
            double p = 1.0 / (1.0 + exp(-z)), q = fmin(fmax(p, 1e-7), 1 - 1e-7);
            hloss -= (y[i] * log(q) + (1 - y[i]) * log(1 - q)) / N;
            for (int j = 0; j < D; j++) g[j] += (p - y[i]) * X[i * D + j] / N;
            g[D] += (p - y[i]) / N;
        }
        for (int j = 0; j < D; j++) hw[j] -= lr * g[j];
        hb -= lr * g[D];
        if (step % 40 == 0 || step == STEPS - 1)
            printf("step %3d  loss %.6f  (host reference %.6f)\n", step, loss, hloss);
    }
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));

    std::vector<float> w(D);
    CK(cudaMemcpy(w.data(), dw, D * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<float> p(N);
    CK(cudaMemcpy(p.data(), dp, N * sizeof(float), cudaMemcpyDeviceToHost));
    int correct = 0;
    for (int i = 0; i < N; i++) correct += (p[i] > 0.5f) == (y[i] > 0.5f);
    double maxdiff = 0;
    for (int j = 0; j < D; j++) maxdiff = fmax(maxdiff, fabs(w[j] - hw[j]));
    printf("trained %d steps in %.1f ms: accuracy %.1f%%, max |w - w_host| = %.2e\n",
           STEPS, ms, 100.0 * correct / N, maxdiff);
    int ok = maxdiff < 1e-3 && fabs(loss - hloss) < 1e-3 && correct > N * 0.9;
    printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}

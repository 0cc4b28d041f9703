// Kernels for test_ptx_basic.c: elementwise, reductions, barriers.
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) acc += in[i];
    s[t] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_atomic(const double *in, double *out, int n)
{
    __shared__ double s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

// 2D grid: transpose through shared memory tile
extern "C" __global__ void transpose(const float *in, float *out, int w, int h)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 16 + threadIdx.x;
    y = blockIdx.x * 16 + threadIdx.y;
    if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

// softmax over rows, one block per row (block-wide max and sum)
extern "C" __global__ void softmax_rows(const float *in, float *out, int cols)
{
    extern __shared__ float red[];
    const float *r = in + (size_t)blockIdx.x * cols;
    float *o = out + (size_t)blockIdx.x * cols;
    float mx = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, r[c]);
    red[threadIdx.x] = mx;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + k]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(r[c] - mx);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
        __syncthreads();
    }
    sum = red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) o[c] = expf(r[c] - mx) / sum;
}

// divergent loop with break and early return
extern "C" __global__ void collatz(const unsigned *in, unsigned *steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i], s = 0;
    while (true) {
        if (v == 1) break;
        v = (v & 1) ? 3 * v + 1 : v / 2;
        s++;
        if (s > 1000) { s = 0xffffffffu; break; }
    }
    steps[i] = s;
}

extern "C" __global__ void syncthreads_count(const int *in, int *out)
{
    int c = __syncthreads_count(in[threadIdx.x] > 0);
    int a = __syncthreads_and(in[threadIdx.x] > -100);
    int o = __syncthreads_or(in[threadIdx.x] > 1000);
    if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; }
}

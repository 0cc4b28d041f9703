// Kernels for test_ptx_warp.c: shuffles, votes, match, redux, activemask.
extern "C" __global__ void shfl_all(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    int lane = t & 31;
    out[0 * 64 + t] = __shfl_down_sync(0xffffffffu, v, 3);
    out[1 * 64 + t] = __shfl_up_sync(0xffffffffu, v, 5);
    out[2 * 64 + t] = __shfl_xor_sync(0xffffffffu, v, 6);
    out[3 * 64 + t] = __shfl_sync(0xffffffffu, v, (lane * 7) & 31);
    out[4 * 64 + t] = __shfl_sync(0xffffffffu, v, 2, 8);       // width 8
    out[5 * 64 + t] = __shfl_down_sync(0xffffffffu, v, 1, 16);  // width 16
    float f = (float)v * 0.5f;
    out[6 * 64 + t] = (int)(__shfl_xor_sync(0xffffffffu, f, 1) * 2.0f);
    // butterfly sum
    int s = v;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    out[7 * 64 + t] = s;
    double d = (double)v + 0.25;
    out[8 * 64 + t] = (int)(__shfl_down_sync(0xffffffffu, d, 2) * 4.0);
}

extern "C" __global__ void vote_all(const int *in, unsigned *out)
{
    int t = threadIdx.x, v = in[t];
    out[0 * 64 + t] = __ballot_sync(0xffffffffu, v > 0);
    out[1 * 64 + t] = __all_sync(0xffffffffu, v > -50);
    out[2 * 64 + t] = __any_sync(0xffffffffu, v > 40);
    out[3 * 64 + t] = __match_any_sync(0xffffffffu, v & 3);
    int pred = 0;
    out[4 * 64 + t] = __match_all_sync(0xffffffffu, v & 0, &pred);
    out[5 * 64 + t] = pred;
    out[6 * 64 + t] = __reduce_add_sync(0xffffffffu, (unsigned)v);
    out[7 * 64 + t] = (unsigned)__reduce_min_sync(0xffffffffu, v);
    out[8 * 64 + t] = (unsigned)__reduce_max_sync(0xffffffffu, v);
    unsigned am = 0;
    if (v & 1) am = __activemask();
    out[9 * 64 + t] = am;
    out[10 * 64 + t] = __popc(__ballot_sync(0xffffffffu, v & 1)) + __ffs(v) + __clz(v) + __brev(v);
}

// warp-level reduction pattern used by PyTorch (WARP_SHFL_DOWN)
extern "C" __global__ void warp_reduce_max(const float *in, float *out, int n)
{
    float m = -INFINITY;
    for (int i = threadIdx.x; i < n; i += blockDim.x) m = fmaxf(m, in[i]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, o));
    __shared__ float ws[32];
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = threadIdx.x < (blockDim.x + 31) / 32 ? ws[threadIdx.x] : -INFINITY;
        for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, o));
        if (threadIdx.x == 0) *out = m;
    }
}

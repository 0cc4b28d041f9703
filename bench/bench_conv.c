/*
 * bench_conv.c - host_conv (TFL_OP_CONV) throughput: forward, backward
 * data and backward filter of a few CNN-shaped fp32 convolutions (NCHW),
 * in ms per call and GFLOP/s (2 * N * K * C/g * kH * kW * OH * OW flops).
 *
 *   build/bench_conv [reps]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/host/host_ops.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(getenv("BENCH_CPU") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void dense(tfl_conv_tensor *t, int64_t a, int64_t b, int64_t h, int64_t w)
{
    t->dims[0] = a; t->dims[1] = b; t->dims[2] = h; t->dims[3] = w;
    t->strides[3] = 1; t->strides[2] = w; t->strides[1] = h * w; t->strides[0] = b * h * w;
    size_t n = (size_t)(a * b * h * w);
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    t->data = p;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    /* N, C, K, H(=W), k, groups, stride */
    static const int cfg[][7] = {
        {32, 3, 32, 32, 3, 1, 1},  {32, 32, 64, 32, 3, 1, 1}, {32, 64, 64, 16, 3, 1, 1},
        {32, 64, 64, 16, 3, 64, 1}, {16, 128, 128, 8, 1, 1, 1}, {32, 64, 128, 16, 3, 1, 2},
    };
    static const char *mname[3] = {"fwd", "bwd_data", "bwd_filter"};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        const int *c = cfg[i];
        int n = c[0], ci = c[1], k = c[2], h = c[3], ks = c[4], g = c[5], s = c[6];
        int pad = ks / 2, oh = (h + 2 * pad - ks) / s + 1;
        tfl_conv_op op;
        memset(&op, 0, sizeof op);
        op.spatial = 2; op.dtype = TFL_DT_F32; op.cross_correlation = 1; op.groups = g;
        op.alpha = 1; op.beta = 0;
        for (int j = 0; j < 2; j++) {
            op.pad_pre[j] = op.pad_post[j] = pad;
            op.stride[j] = s;
            op.dilation[j] = 1;
        }
        dense(&op.x, n, ci, h, h);
        dense(&op.w, k, ci / g, ks, ks);
        dense(&op.y, n, k, oh, oh);
        double flops = 2.0 * n * k * (ci / g) * ks * ks * oh * oh;
        printf("N%d C%d K%d %dx%d k%d g%d s%d:", n, ci, k, h, h, ks, g, s);
        for (int m = 0; m < 3; m++) {
            op.mode = (tfl_conv_mode)m;
            host_conv(&op);
            double t0 = now_ms();
            for (int r = 0; r < reps; r++)
                host_conv(&op);
            double ms = (now_ms() - t0) / reps;
            printf("  %s %.2f ms (%.1f GF/s)", mname[m], ms, flops / ms / 1e6);
        }
        printf("\n");
        free(op.x.data); free(op.w.data); free(op.y.data);
    }
    return 0;
}

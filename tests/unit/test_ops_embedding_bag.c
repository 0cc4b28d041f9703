/*
 * test_ops_embedding_bag.c - the embedding_bag kinds of host_embedding:
 * forward (sum, mean, max; per-sample weights; padding_idx; an empty bag;
 * a strided weight), the max-mode backward, the partial sums of the
 * sum/mean backward and the per-sample-weights backward, against double
 * references computed here; a bad index or offset is refused before
 * anything is written.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

enum { V = 9, F = 4, N = 14, B = 5 };

static float weight[V * F * 2];            /* row pitch 2F: a strided weight */
static int64_t idx[N] = { 3, 1, 4, 1, 5, 8, 2, 6, 5, 3, 5, 0, 7, 8 };
static int64_t offs[B] = { 0, 3, 3, 7, 9 }; /* bag 1 empty */
static float psw[N];

static void init(void)
{
    for (int r = 0; r < V; r++)
        for (int f = 0; f < 2 * F; f++)
            weight[r * 2 * F + f] = (float)(sin(r * 1.7 + f * 0.3) * 3.0);
    for (int i = 0; i < N; i++)
        psw[i] = (float)(0.25 + 0.1 * i);
}

static tfl_embedding_op fwd_op(tfl_embedding_bag_mode mode, int64_t pad, const float *w8,
                               float *out, int64_t *o2b, int64_t *bsz, int64_t *maxi)
{
    tfl_embedding_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_EMBEDDING_BAG_FWD;
    op.dtype = TFL_DT_F32;
    op.index_dtype = TFL_DT_I64;
    op.weight_rows = V;
    op.padding_idx = pad;
    op.bag.mode = mode;
    op.bag.indices = idx;
    op.bag.offsets = offs;
    op.bag.num_indices = N;
    op.bag.num_bags = B;
    op.bag.features = F;
    op.bag.weight = w8;
    op.bag.ws0 = 2 * F;
    op.bag.ws1 = 1;
    op.bag.out = out;
    op.bag.offset2bag = o2b;
    op.bag.bag_size = bsz;
    op.bag.max_indices = maxi;
    return op;
}

static void test_forward(tfl_embedding_bag_mode mode, int64_t pad, int use_psw)
{
    float out[B * F];
    int64_t o2b[N], bsz[B], maxi[B * F];
    tfl_embedding_op op = fwd_op(mode, pad, weight, out, o2b, bsz, maxi);
    if (use_psw) {
        op.bag.psw = psw;
        op.bag.psw_stride = 1;
    }
    CHECK(host_embedding_supported(&op), "forward not supported");
    CHECK(host_embedding(&op) == TFL_OK, "forward failed");
    for (int b = 0; b < B; b++) {
        int64_t lo = offs[b], hi = b + 1 < B ? offs[b + 1] : N, cnt = 0;
        for (int64_t i = lo; i < hi; i++) {
            CHECK(o2b[i] == b, "offset2bag[%lld] = %lld, want %d", (long long)i,
                  (long long)o2b[i], b);
            cnt += idx[i] != pad;
        }
        CHECK(bsz[b] == cnt, "bag_size[%d] = %lld, want %lld", b, (long long)bsz[b],
              (long long)cnt);
        for (int f = 0; f < F; f++) {
            double ref = 0;
            int64_t arg = -1;
            for (int64_t i = lo; i < hi; i++) {
                if (idx[i] == pad)
                    continue;
                double v = weight[idx[i] * 2 * F + f];
                if (mode == TFL_EMBEDDING_BAG_MAX) {
                    if (arg < 0 || v > ref) { ref = v; arg = idx[i]; }
                } else {
                    ref += (use_psw ? psw[i] : 1.0) * v;
                }
            }
            if (mode == TFL_EMBEDDING_BAG_MEAN && cnt)
                ref /= (double)cnt;
            CHECK(fabs(out[b * F + f] - ref) <= 1e-5 * (1 + fabs(ref)),
                  "mode %d bag %d f %d: %g, want %g", (int)mode, b, f, out[b * F + f], ref);
            if (mode == TFL_EMBEDDING_BAG_MAX)
                CHECK(maxi[b * F + f] == arg, "max index bag %d f %d: %lld, want %lld", b, f,
                      (long long)maxi[b * F + f], (long long)arg);
        }
    }
}

static void test_bad_index(void)
{
    float out[B * F];
    int64_t o2b[N], bsz[B], maxi[B * F];
    for (int k = 0; k < B * F; k++)
        out[k] = 42.0f;
    int64_t keep = idx[6];
    idx[6] = V;                                /* one past the last row */
    tfl_embedding_op op = fwd_op(TFL_EMBEDDING_BAG_SUM, -1, weight, out, o2b, bsz, maxi);
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "an out-of-range index was accepted");
    idx[6] = keep;
    offs[3] = N + 1;                           /* a bag past the indices */
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "an out-of-range offset was accepted");
    offs[3] = 7;
    for (int k = 0; k < B * F; k++)
        CHECK(out[k] == 42.0f, "a refused op wrote its output");
}

static void test_max_backward(void)
{
    int64_t maxi[B * F];
    float grad[B * F], gw[V * F];
    double ref[V * F];
    for (int k = 0; k < B * F; k++) {
        maxi[k] = k % 3 == 0 ? -1 : (k * 5) % V;
        grad[k] = (float)(k * 0.5 - 3);
    }
    for (int k = 0; k < V * F; k++)
        gw[k] = 1.0f, ref[k] = 1.0;
    for (int k = 0; k < B * F; k++)
        if (maxi[k] >= 0 && maxi[k] != 2)
            ref[maxi[k] * F + k % F] += grad[k];
    tfl_embedding_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_EMBEDDING_BAG_MAX_BWD;
    op.dtype = TFL_DT_F32;
    op.index_dtype = TFL_DT_I64;
    op.weight_rows = V;
    op.padding_idx = 2;
    op.bag.max_indices = maxi;
    op.bag.grad = grad;
    op.bag.grad_weight = gw;
    op.bag.num_bags = B;
    op.bag.features = F;
    CHECK(host_embedding(&op) == TFL_OK, "max backward failed");
    for (int k = 0; k < V * F; k++)
        CHECK(fabs(gw[k] - ref[k]) <= 1e-6, "max backward [%d]: %g, want %g", k, gw[k], ref[k]);
}

/* partial sums: segments of the sorted positions (any grouping works) */
static void test_grad_partials(int mean, int use_psw, int use_count)
{
    int32_t order[N], o2b[N], bsz[B], seg[4] = { 0, 3, 4, 10 }, cnt[N];
    double grad_d[B * F];
    float grad[B * F], acc[4 * F];
    int64_t nseg = 4;
    for (int i = 0; i < N; i++) {
        order[i] = (i * 5) % N;                /* a permutation of the positions */
        o2b[i] = i * B / N;
        cnt[i] = 1 + i % 3;
    }
    for (int b = 0; b < B; b++)
        bsz[b] = 2 + b;
    for (int k = 0; k < B * F; k++)
        grad[k] = (float)(cos(k * 0.7) * 2), grad_d[k] = grad[k];
    tfl_embedding_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_EMBEDDING_BAG_GRAD_PARTIALS;
    op.dtype = TFL_DT_F32;
    op.index_dtype = TFL_DT_I32;
    op.bag.mode = mean ? TFL_EMBEDDING_BAG_MEAN : TFL_EMBEDDING_BAG_SUM;
    op.bag.indices = order;
    op.bag.grad = grad;
    op.bag.offset2bag = o2b;
    op.bag.bag_size = bsz;
    op.bag.count = use_count ? cnt : NULL;
    op.bag.psw = use_psw ? psw : NULL;
    op.bag.psw_stride = 1;
    op.bag.num_indices = N;
    op.bag.num_bags = B;
    op.bag.features = F;
    op.bag.seg_offsets = seg;
    op.bag.num_segments = &nseg;
    op.bag.max_segments = 4;
    op.bag.acc = acc;
    CHECK(host_embedding(&op) == TFL_OK, "grad partials failed");
    for (int p = 0; p < 4; p++)
        for (int f = 0; f < F; f++) {
            double ref = 0;
            for (int i = seg[p]; i < (p == 3 ? N : seg[p + 1]); i++) {
                int o = order[i], k = o2b[o];
                double g = grad_d[k * F + f] / (mean ? bsz[k] : 1);
                double s = (use_count ? 1.0 / cnt[i] : 1.0) * (use_psw ? psw[o] : 1.0);
                ref += g * s;
            }
            CHECK(fabs(acc[p * F + f] - ref) <= 1e-5 * (1 + fabs(ref)),
                  "partial %d f %d: %g, want %g", p, f, acc[p * F + f], ref);
        }
    nseg = 5;                                  /* more than the buffers hold */
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "a bad partial count was accepted");
}

static void test_psw_backward(void)
{
    int64_t o2b[N];
    float grad[B * F], out[N];
    for (int i = 0; i < N; i++)
        o2b[i] = i % B;
    for (int k = 0; k < B * F; k++)
        grad[k] = (float)(k * 0.125 - 1);
    tfl_embedding_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_EMBEDDING_BAG_PSW_BWD;
    op.dtype = TFL_DT_F32;
    op.index_dtype = TFL_DT_I64;
    op.weight_rows = V;
    op.padding_idx = 5;
    op.bag.grad = grad;
    op.bag.gs0 = F;
    op.bag.gs1 = 1;
    op.bag.weight = weight;
    op.bag.ws0 = 2 * F;
    op.bag.ws1 = 1;
    op.bag.indices = idx;
    op.bag.offset2bag = o2b;
    op.bag.num_indices = N;
    op.bag.num_bags = B;
    op.bag.features = F;
    op.bag.out = out;
    CHECK(host_embedding(&op) == TFL_OK, "psw backward failed");
    for (int i = 0; i < N; i++) {
        double ref = 0;
        if (idx[i] != 5)
            for (int f = 0; f < F; f++)
                ref += (double)grad[o2b[i] * F + f] * weight[idx[i] * 2 * F + f];
        CHECK(fabs(out[i] - ref) <= 1e-5 * (1 + fabs(ref)), "psw grad %d: %g, want %g", i,
              out[i], ref);
    }
}

int main(void)
{
    init();
    for (int m = 0; m < 3; m++) {
        test_forward((tfl_embedding_bag_mode)m, -1, 0);
        test_forward((tfl_embedding_bag_mode)m, 5, 0);
    }
    test_forward(TFL_EMBEDDING_BAG_SUM, -1, 1);
    test_forward(TFL_EMBEDDING_BAG_SUM, 3, 1);
    test_bad_index();
    test_max_backward();
    for (int k = 0; k < 8; k++)
        test_grad_partials(k & 1, (k >> 1) & 1, (k >> 2) & 1);
    test_psw_backward();
    printf("test_ops_embedding_bag: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

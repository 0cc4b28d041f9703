/*
 * test_ops_embedding.c - host_embedding (dense embedding backward): rows
 * of the gradient add into the weight-gradient rows their indices name,
 * padding skipped, repeated indices summed, an out-of-range index refused
 * before anything is written.  Reference: a double accumulation here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

enum { V = 11, L = 5, N = 40 };

static void run(tfl_dtype it, int64_t padding)
{
    int64_t idx64[N];
    int32_t idx32[N];
    float grad[N * L], gw[V * L];
    double ref[V * L];
    for (int i = 0; i < N; i++) {
        idx64[i] = (i * 7 + 3) % V;          /* repeats: every row several times */
        idx32[i] = (int32_t)idx64[i];
        for (int f = 0; f < L; f++)
            grad[i * L + f] = (float)((i + 1) * 0.25 - f * 1.5);
    }
    for (int k = 0; k < V * L; k++) {
        gw[k] = 0.5f;                          /* accumulated into, not overwritten */
        ref[k] = 0.5;
    }
    for (int i = 0; i < N; i++)
        if (idx64[i] != padding)
            for (int f = 0; f < L; f++)
                ref[idx64[i] * L + f] += grad[i * L + f];
    tfl_embedding_op op = { .kind = TFL_EMBEDDING_BWD_DENSE, .dtype = TFL_DT_F32,
                            .index_dtype = it, .indices = it == TFL_DT_I64 ? (void *)idx64 : (void *)idx32,
                            .n = N, .grad = grad, .grad_weight = gw, .row_len = L,
                            .weight_rows = V, .padding_idx = padding };
    CHECK(host_embedding_supported(&op), "supported");
    CHECK(host_embedding(&op) == TFL_OK, "run");
    for (int k = 0; k < V * L; k++)
        CHECK(fabs(gw[k] - ref[k]) <= 1e-5 * (1 + fabs(ref[k])), "gw[%d] %g vs %g", k, gw[k], ref[k]);
    if (padding >= 0)
        for (int f = 0; f < L; f++)
            CHECK(gw[padding * L + f] == 0.5f, "padding row untouched");
}

int main(void)
{
    run(TFL_DT_I64, -1);
    run(TFL_DT_I32, -1);
    run(TFL_DT_I64, 3);
    run(TFL_DT_I32, 0);

    /* an index past the table: error, grad_weight untouched */
    int64_t idx[3] = { 1, V, 2 };
    float grad[3 * L], gw[V * L], before[V * L];
    for (int k = 0; k < 3 * L; k++) grad[k] = 1.0f;
    for (int k = 0; k < V * L; k++) gw[k] = before[k] = (float)k;
    tfl_embedding_op op = { .kind = TFL_EMBEDDING_BWD_DENSE, .dtype = TFL_DT_F32,
                            .index_dtype = TFL_DT_I64, .indices = idx, .n = 3, .grad = grad,
                            .grad_weight = gw, .row_len = L, .weight_rows = V, .padding_idx = -1 };
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "out of range refused");
    CHECK(memcmp(gw, before, sizeof gw) == 0, "nothing written");
    idx[1] = -4;
    CHECK(host_embedding(&op) == TFL_ERR_DEVICE, "negative refused");
    op.dtype = TFL_DT_F64;
    CHECK(!host_embedding_supported(&op), "f64 not claimed");
    printf("test_ops_embedding: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

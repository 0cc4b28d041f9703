/*
 * test_ops_shape.c - host_shape (reflect / replicate padding and its
 * gradient) against references made here: the reflection index from the
 * periodic form (period 2(n-1)), the replicate index from a clamp, and the
 * gradient as the adjoint summed in double by brute force over every output
 * coordinate.  Also: a (batch, plane) sub-range leaves other planes alone,
 * strided (transposed) operands, and a pad as large as the input refused.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static int64_t ref_index(int reflect, int64_t o, int64_t n, int64_t p)
{
    int64_t r = o - p;
    if (!reflect)
        return r < 0 ? 0 : r > n - 1 ? n - 1 : r;
    if (n == 1)
        return 0;
    const int64_t per = 2 * (n - 1);
    r = ((r % per) + per) % per;
    return r < n ? r : per - r;
}

enum { B = 2, C = 3, H = 5, W = 4 };

/* 2-D pad of a [B, C, H, W] tensor; transposed: x stored with h, w swapped */
static void test_pad2d(int reflect, int pt, int pb, int pl, int pr, int transposed)
{
    const int Ho = H + pt + pb, Wo = W + pl + pr;
    float x[B * C * H * W], y[B * C * 16 * 16], gx[B * C * H * W];
    for (int i = 0; i < B * C * H * W; i++)
        x[i] = (float)(i * 0.37 - 3.1);
    tfl_shape_op op = {
        .kind = reflect ? TFL_SHAPE_PAD_REFLECT : TFL_SHAPE_PAD_REPLICATE,
        .dtype = TFL_DT_F32,
        .x_size = {B, C, 1, H, W},
        .x_stride = {C * H * W, H * W, 0, transposed ? 1 : W, transposed ? H : 1},
        .y_size = {B, C, 1, Ho, Wo},
        .y_stride = {C * Ho * Wo, Ho * Wo, 0, Wo, 1},
        .pad = {0, pt, pl},
        .batch0 = 0, .nbatch = B, .plane0 = 1, .nplane = C - 1,
        .x = x, .y = y,
    };
    for (int i = 0; i < B * C * Ho * Wo; i++)
        y[i] = -999.f;
    CHECK(host_shape_supported(&op) && host_shape(&op) == TFL_OK, "pad forward failed");
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++)
            for (int oy = 0; oy < Ho; oy++)
                for (int ox = 0; ox < Wo; ox++) {
                    const float got = y[((b * C + c) * Ho + oy) * Wo + ox];
                    if (c == 0) {
                        CHECK(got == -999.f, "plane 0 outside the range written");
                        continue;
                    }
                    const int64_t iy = ref_index(reflect, oy, H, pt),
                                  ix = ref_index(reflect, ox, W, pl);
                    const float want =
                        x[b * C * H * W + c * H * W + iy * op.x_stride[3] + ix * op.x_stride[4]];
                    CHECK(got == want, "refl=%d y[%d,%d,%d,%d] = %g, want %g", reflect, b, c,
                          oy, ox, got, want);
                }
    /* backward: gx += adjoint(gy) over all planes */
    for (int i = 0; i < B * C * Ho * Wo; i++)
        y[i] = (float)sin(i * 0.71);
    for (int i = 0; i < B * C * H * W; i++)
        gx[i] = 0.f;
    op.backward = 1;
    op.plane0 = 0;
    op.nplane = C;
    op.x = gx;
    CHECK(host_shape(&op) == TFL_OK, "pad backward failed");
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++)
            for (int iy = 0; iy < H; iy++)
                for (int ix = 0; ix < W; ix++) {
                    double s = 0;
                    for (int oy = 0; oy < Ho; oy++)
                        for (int ox = 0; ox < Wo; ox++)
                            if (ref_index(reflect, oy, H, pt) == iy &&
                                ref_index(reflect, ox, W, pl) == ix)
                                s += y[((b * C + c) * Ho + oy) * Wo + ox];
                    const float got = gx[b * C * H * W + c * H * W + iy * op.x_stride[3] +
                                         ix * op.x_stride[4]];
                    CHECK(fabs(got - s) <= 1e-5 * (1 + fabs(s)), "refl=%d gx[%d,%d,%d,%d] = %g, want %g",
                          reflect, b, c, iy, ix, got, s);
                }
}

static void test_refused(void)
{
    float x[4] = {1, 2, 3, 4}, y[16];
    tfl_shape_op op = {
        .kind = TFL_SHAPE_PAD_REFLECT, .dtype = TFL_DT_F32,
        .x_size = {1, 1, 1, 1, 4}, .x_stride = {4, 4, 0, 0, 1},
        .y_size = {1, 1, 1, 1, 12}, .y_stride = {12, 12, 0, 0, 1},
        .pad = {0, 0, 4}, .nbatch = 1, .nplane = 1, .x = x, .y = y,
    };
    CHECK(host_shape(&op) == TFL_ERR_INVALID, "a reflect pad of 4 over 4 elements accepted");
    op.backward = 1;
    op.dtype = TFL_DT_I32;
    CHECK(!host_shape_supported(&op), "integer gradient claimed");
}

int main(void)
{
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < 2; r++) {
            test_pad2d(r, 1, 1, 1, 1, t);
            test_pad2d(r, 2, 0, 3, 1, t);
            test_pad2d(r, 0, 4, 0, 3, t);
        }
    test_pad2d(0, 7, 2, 5, 6, 0); /* replicate pads may exceed the input */
    test_pad2d(0, -1, 2, 1, -2, 0); /* negative: cropping */
    test_refused();
    printf("test_ops_shape: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

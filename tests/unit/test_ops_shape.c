/*
 * test_ops_shape.c - host_shape (reflect / replicate padding and its
 * gradient) against references made here: the reflection index from the
 * periodic form (period 2(n-1)), the replicate index from a clamp, and the
 * gradient as the adjoint summed in double by brute force over every output
 * coordinate.  Also: a (batch, plane) sub-range leaves other planes alone,
 * strided (transposed) operands, and a pad as large as the input refused.
 * im2col against its definition; col2im as its adjoint (<col2im c, x> ==
 * <c, im2col x>, in double).  tril/triu index lists against a brute-force
 * walk over the matrix.  The family's stated parameter layouts against the
 * 2.11 and 2.15 cubins'.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "route/optable.h"
#include "cubin_layouts.h"

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

/* im2col against the definition element by element; col2im against the
 * adjoint identity <col2im(c), x> == <c, im2col(x)> summed in double */
static void test_im2col(int C_, int Hh, int Ww, int kh, int kw, int ph, int pw, int sh, int sw,
                        int dh, int dw)
{
    const int Hc = (Hh + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    const int Wc = (Ww + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    float im[2 * 64], col[2 * 600], col2[2 * 600], im2[2 * 64];
    const int im_n = C_ * Hh * Ww, col_n = C_ * kh * kw * Hc * Wc;
    if (im_n > 64 || col_n > 600) {
        CHECK(0, "test case too large for its buffers");
        return;
    }
    for (int i = 0; i < 2 * im_n; i++)
        im[i] = (float)cos(i * 1.3);
    tfl_shape_op op = {
        .kind = TFL_SHAPE_IM2COL, .dtype = TFL_DT_F32,
        .im2col = { .channels = C_, .height = Hh, .width = Ww, .kh = kh, .kw = kw,
                    .pad_h = ph, .pad_w = pw, .stride_h = sh, .stride_w = sw, .dil_h = dh,
                    .dil_w = dw, .height_col = Hc, .width_col = Wc, .nbatch = 2,
                    .im_batch_stride = im_n, .col_batch_stride = col_n, .im = im, .col = col },
    };
    CHECK(host_shape_supported(&op) && host_shape(&op) == TFL_OK, "im2col failed");
    for (int b = 0; b < 2; b++)
        for (int c = 0; c < C_; c++)
            for (int i = 0; i < kh; i++)
                for (int j = 0; j < kw; j++)
                    for (int hc = 0; hc < Hc; hc++)
                        for (int wc = 0; wc < Wc; wc++) {
                            const int h = hc * sh - ph + i * dh, w = wc * sw - pw + j * dw;
                            const float want = (h < 0 || h >= Hh || w < 0 || w >= Ww)
                                                   ? 0.f
                                                   : im[b * im_n + (c * Hh + h) * Ww + w];
                            const float got =
                                col[b * col_n + (((c * kh + i) * kw + j) * Hc + hc) * Wc + wc];
                            CHECK(got == want, "im2col %d,%d,%d,%d,%d,%d: %g want %g", b, c, i, j,
                                  hc, wc, got, want);
                        }
    /* the same through the any-dtype path (I32 of the same bits) */
    op.dtype = TFL_DT_I32;
    op.im2col.col = col2;
    CHECK(host_shape(&op) == TFL_OK && !memcmp(col, col2, (size_t)(2 * col_n) * 4),
          "im2col (4-byte generic) differs from the float path");
    /* col2im: adjoint */
    for (int i = 0; i < 2 * col_n; i++)
        col2[i] = (float)sin(i * 0.9);
    for (int i = 0; i < 2 * im_n; i++)
        im2[i] = 12345.f; /* overwritten, not accumulated */
    op = (tfl_shape_op){ .kind = TFL_SHAPE_COL2IM, .dtype = TFL_DT_F32, .im2col = op.im2col };
    op.im2col.im = im2;
    op.im2col.col = col2;
    CHECK(host_shape(&op) == TFL_OK, "col2im failed");
    for (int b = 0; b < 2; b++) {
        double lhs = 0, rhs = 0;
        for (int i = 0; i < im_n; i++)
            lhs += (double)im2[b * im_n + i] * im[b * im_n + i];
        for (int i = 0; i < col_n; i++)
            rhs += (double)col2[b * col_n + i] * col[b * col_n + i];
        CHECK(fabs(lhs - rhs) <= 1e-4 * (1 + fabs(rhs)), "col2im adjoint %d: %g vs %g", b, lhs,
              rhs);
    }
}

/* tril/triu index lists against a brute-force walk over the matrix */
static void test_triangle(int upper, int64_t R, int64_t Cc, int64_t o)
{
    int64_t want[2][256], n = 0;
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < Cc; c++)
            if (upper ? c - r >= o : c - r <= o) {
                want[0][n] = r;
                want[1][n] = c;
                n++;
            }
    if (n == 0 || n > 256)
        return;
    int64_t out[512];
    tfl_shape_op op = { .kind = upper ? TFL_SHAPE_TRIU_INDICES : TFL_SHAPE_TRIL_INDICES,
                        .dtype = TFL_DT_I64 };
    tfl_triangle_geom *g = &op.tri;
    g->n = n;
    g->cols = Cc;
    g->out = out;
    if (!upper) {
        g->offset = o < 0 ? -o : 0;                          /* first kept row */
        g->first_row = o > 0 ? (Cc < 1 + o ? Cc : 1 + o) : 1; /* its length */
    } else {
        g->offset = o > 0 ? o : 0;                       /* first column of the trapezoid */
        const int64_t full = o < 0 ? (-o < R ? -o : R) : 0; /* rows kept whole */
        g->part = full * Cc;
        g->first_row = Cc - g->offset;
    }
    CHECK(host_shape(&op) == TFL_OK, "triangle %d %lld %lld %lld failed", upper, (long long)R,
          (long long)Cc, (long long)o);
    for (int64_t i = 0; i < n; i++)
        CHECK(out[i] == want[0][i] && out[n + i] == want[1][i],
              "tri%c(%lld,%lld,%lld)[%lld] = (%lld,%lld), want (%lld,%lld)", upper ? 'u' : 'l',
              (long long)R, (long long)Cc, (long long)o, (long long)i, (long long)out[i],
              (long long)out[n + i], (long long)want[0][i], (long long)want[1][i]);
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

/* Kernel names of the torch 2.11 and 2.15 sm_80 cubins and their parameter
 * tables (offset:size, as `torchfl wheel --list` / scripts/wheel_kernels.py
 * read them): the family must claim each and state exactly that layout. */
static const cubin_layout cubin[] = {
    /* 2.11.0 */
    { "_ZN2at6native19triu_indices_kernelIlEEvPT_lllll",
      "0:8 8:8 16:8 24:8 32:8 40:8" },
    { "_ZN2at6native19tril_indices_kernelIlEEvPT_lllll",
      "0:8 8:8 16:8 24:8 32:8 40:8" },
    { "_ZN2at6native21col2im_batched_kernelIfEEvlPKT_llllllllllllllPS2_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8 112:8 120:8 128:8 136:8" },
    { "_ZN2at6native13col2im_kernelIffEEvlPKT_llllllllllllPS2_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8 112:8" },
    { "_ZN2at6native13im2col_kernelIN3c108BFloat16EEEvlPKT_llllllllllllPS4_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8 112:8" },
    { "_ZN2at6native49_GLOBAL__N__7861cdb6_16_ReflectionPad_cu_f800513936reflection_pad3d_backward_out_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS8_INS9_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEElllll",
      "0:88 88:88 176:8 184:8 192:8 200:8 208:8" },
    { "_ZN2at6native49_GLOBAL__N__7861cdb6_16_ReflectionPad_cu_f800513927reflection_pad3d_out_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS8_INS9_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEElllll",
      "0:88 88:88 176:8 184:8 192:8 200:8 208:8" },
    { "_ZN2at6native49_GLOBAL__N__7861cdb6_16_ReflectionPad_cu_f800513936reflection_pad1d_backward_out_kernelIN3c108BFloat16EEEvPT_PKS5_lll",
      "0:8 8:8 16:8 24:8 32:8" },
    { "_ZN2at6native49_GLOBAL__N__7861cdb6_16_ReflectionPad_cu_f800513927reflection_pad1d_out_kernelIN3c108BFloat16EEEvPKT_PS5_lll",
      "0:8 8:8 16:8 24:8 32:8" },
    { "_ZN2at6native49_GLOBAL__N__7861cdb6_16_ReflectionPad_cu_f800513936reflection_pad2d_backward_out_kernelIN3c108BFloat16EEEvPT_PKS5_lliiiiiii",
      "0:8 8:8 16:8 24:8 32:4 36:4 40:4 44:4 48:4 52:4 56:4" },
    { "_ZN2at6native49_GLOBAL__N__7861cdb6_16_ReflectionPad_cu_f800513927reflection_pad2d_out_kernelIN3c108BFloat16EEEvPKT_PS5_lliiiiiii",
      "0:8 8:8 16:8 24:8 32:4 36:4 40:4 44:4 48:4 52:4 56:4" },
    { "_ZN2at6native54_GLOBAL__N__97d1f621_21_ReplicationPadding_cu_4a93dcdf32replication_pad_forward_kernel3dIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS8_INS9_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEEiiiii",
      "0:88 88:88 176:4 180:4 184:4 188:4 192:4" },
    { "_ZN2at6native54_GLOBAL__N__97d1f621_21_ReplicationPadding_cu_4a93dcdf32replication_pad_forward_kernel2dIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESD_Lm4ESE_lEENS8_INS9_ISB_SC_Lm3ESE_lEESI_SC_Lm4ESE_lEEiiii",
      "0:72 72:72 144:4 148:4 152:4 156:4" },
    { "_ZN2at6native54_GLOBAL__N__97d1f621_21_ReplicationPadding_cu_4a93dcdf31replication_pad_backward_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm2ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS8_INS9_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEEiii",
      "0:56 56:56 112:4 116:4 120:4" },
    { "_ZN2at6native54_GLOBAL__N__97d1f621_21_ReplicationPadding_cu_4a93dcdf32replication_pad_forward_kernel1dIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm2ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESD_Lm3ESE_lEENS8_INS9_ISB_SC_Lm2ESE_lEESI_SC_Lm3ESE_lEEiii",
      "0:56 56:56 112:4 116:4 120:4" },
    { "_ZN2at6native54_GLOBAL__N__97d1f621_21_ReplicationPadding_cu_4a93dcdf31replication_pad_backward_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS8_INS9_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEEiiiii",
      "0:88 88:88 176:4 180:4 184:4 188:4 192:4" },
    { "_ZN2at6native54_GLOBAL__N__97d1f621_21_ReplicationPadding_cu_4a93dcdf31replication_pad_backward_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm3ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm4ElEESC_Lm4ESD_lEENS8_INS9_ISB_KSC_Lm3ESD_lEESH_SJ_Lm4ESD_lEEiiii",
      "0:72 72:72 144:4 148:4 152:4 156:4" },
    /* 2.15.0 */
    { "_ZN2at6native19triu_indices_kernelIlEEvPT_lllll",
      "0:8 8:8 16:8 24:8 32:8 40:8" },
    { "_ZN2at6native19tril_indices_kernelIlEEvPT_lllll",
      "0:8 8:8 16:8 24:8 32:8 40:8" },
    { "_ZN2at6native21col2im_batched_kernelIfEEvlPKT_llllllllllllllPS2_l",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8 112:8 120:8 128:8 136:8" },
    { "_ZN2at6native13im2col_kernelIN3c108BFloat16EEEvlPKT_llllllllllllPS4_",
      "0:8 8:8 16:8 24:8 32:8 40:8 48:8 56:8 64:8 72:8 80:8 88:8 96:8 104:8 112:8" },
    { "_ZN2at6native49_GLOBAL__N__a9a7c394_16_ReflectionPad_cu_f800513936reflection_pad3d_backward_out_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESC_Lm5ESD_lEENS8_INS9_ISB_KSC_Lm4ESD_lEESH_SJ_Lm5ESD_lEElllll",
      "0:88 88:88 176:8 184:8 192:8 200:8 208:8" },
    { "_ZN2at6native49_GLOBAL__N__a9a7c394_16_ReflectionPad_cu_f800513927reflection_pad3d_out_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS8_INS9_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEElllll",
      "0:88 88:88 176:8 184:8 192:8 200:8 208:8" },
    { "_ZN2at6native54_GLOBAL__N__c10ee3da_21_ReplicationPadding_cu_4a93dcdf32replication_pad_forward_kernel3dIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm5ElEESD_Lm5ESE_lEENS8_INS9_ISB_SC_Lm4ESE_lEESI_SC_Lm5ESE_lEEiiiii",
      "0:88 88:88 176:4 180:4 184:4 188:4 192:4" },
    { "_ZN2at6native54_GLOBAL__N__c10ee3da_21_ReplicationPadding_cu_4a93dcdf31replication_pad_backward_kernelIN3c108BFloat16EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEET_Lm2ENS6_16DefaultPtrTraitsElEENS_6detail16IndexBoundsCheckILm3ElEESC_Lm3ESD_lEENS8_INS9_ISB_KSC_Lm2ESD_lEESH_SJ_Lm3ESD_lEEiii",
      "0:56 56:56 112:4 116:4 120:4" },
};

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_shape, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < 2; r++) {
            test_pad2d(r, 1, 1, 1, 1, t);
            test_pad2d(r, 2, 0, 3, 1, t);
            test_pad2d(r, 0, 4, 0, 3, t);
        }
    test_pad2d(0, 7, 2, 5, 6, 0); /* replicate pads may exceed the input */
    test_pad2d(0, -1, 2, 1, -2, 0); /* negative: cropping */
    test_im2col(2, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1);
    test_im2col(1, 7, 8, 2, 3, 0, 2, 2, 3, 2, 1);
    test_im2col(3, 4, 4, 1, 1, 0, 0, 1, 1, 1, 1);
    for (int up = 0; up < 2; up++) {
        test_triangle(up, 4, 4, 0);
        test_triangle(up, 3, 5, 1);
        test_triangle(up, 5, 3, -1);
        test_triangle(up, 6, 4, 2);
        test_triangle(up, 4, 6, -3);
    }
    test_refused();
    printf("test_ops_shape: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

/*
 * test_ops_conv.c - host_conv (TFL_OP_CONV) against a direct convolution
 * computed here in double precision from the definition (a sum over
 * taps, no im2col):
 *   y[n,k,o]   = sum_{c,t} w[k,c,t] x[n, g*Cg + c, o*s - p + t*d]
 *   dx         = the adjoint: each (n,k,o,t) term scattered back,
 *   dw[k,c,t]  = sum_{n,o} dy[n,k,o] x[n, g*Cg + c, o*s - p + t*d],
 * with t reversed for CUDNN_CONVOLUTION (cross_correlation = 0), over
 * 1/2/3 spatial dims, NCHW and channels-last strides, groups, depthwise,
 * dilation, asymmetric padding, strides, alpha/beta and fp16/bf16
 * storage, and fp64 (computed in double: checked to 1e-13).  Also:
 * inconsistent shapes are refused, not run.  The family's stated parameter
 * layouts against the 2.11 and 2.15 cubins'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_conv.h"
#include "common/half.h"
#include "route/optable.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static unsigned rng = 2024u;
static float frand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

typedef struct ccase {
    int sp, n, c, k, groups;
    int in[3], ker[3], pre[3], post[3], str[3], dil[3];
    int channels_last;
    tfl_dtype dt;
    int flip;
    double alpha, beta;
    int bias;             /* forward: add a per-channel bias */
    double za;            /* forward: + za * z (0: no z)   */
    int relu;             /* forward: max(., 0) last        */
} ccase;

/* Dense strides for dims (N, C, s0..): NCHW or channels last. */
static void make_strides(int nd, const int64_t *d, int cl, int64_t *s)
{
    if (!cl) {
        s[nd - 1] = 1;
        for (int i = nd - 2; i >= 0; i--)
            s[i] = s[i + 1] * d[i + 1];
        return;
    }
    /* order N, spatial..., C with C innermost */
    s[1] = 1;
    int64_t acc = d[1];
    for (int i = nd - 1; i >= 2; i--) {
        s[i] = acc;
        acc *= d[i];
    }
    s[0] = acc;
}

static int64_t numel(int nd, const int64_t *d)
{
    int64_t e = 1;
    for (int i = 0; i < nd; i++)
        e *= d[i];
    return e;
}

static double ld(tfl_dtype dt, const void *p, int64_t i)
{
    if (dt == TFL_DT_F16) return tfl_f16_to_f32(((const uint16_t *)p)[i]);
    if (dt == TFL_DT_BF16) return tfl_bf16_to_f32(((const uint16_t *)p)[i]);
    if (dt == TFL_DT_F64) return ((const double *)p)[i];
    return ((const float *)p)[i];
}

static void st(tfl_dtype dt, void *p, int64_t i, double v)
{
    if (dt == TFL_DT_F16) ((uint16_t *)p)[i] = tfl_f32_to_f16(v);
    else if (dt == TFL_DT_BF16) ((uint16_t *)p)[i] = tfl_f32_to_bf16(v);
    else if (dt == TFL_DT_F64) ((double *)p)[i] = v * (1.0 + 1e-9 * v); /* not float-exact */
    else ((float *)p)[i] = v;
}

/* Offset of (a, b, spatial idx[]) in t. */
static int64_t off(const tfl_conv_tensor *t, int sp, int64_t a, int64_t b, const int64_t *idx)
{
    int64_t o = a * t->strides[0] + b * t->strides[1];
    for (int i = 0; i < sp; i++)
        o += idx[i] * t->strides[2 + i];
    return o;
}

/* Iterate a multi-index over sizes[0..sp); returns 0 when done. */
static int next(int sp, const int64_t *sizes, int64_t *idx)
{
    for (int i = sp - 1; i >= 0; i--) {
        if (++idx[i] < sizes[i])
            return 1;
        idx[i] = 0;
    }
    return 0;
}

static void fill(tfl_conv_tensor *t, int nd, tfl_dtype dt)
{
    int64_t e = 1;
    for (int i = 0; i < nd; i++)
        e += (t->dims[i] - 1) * t->strides[i];
    size_t es = tfl_dtype_size(dt);
    t->data = malloc((size_t)e * es);
    for (int64_t i = 0; i < e; i++)
        st(dt, t->data, i, frand());
}

static void run_case(const ccase *cc, tfl_conv_mode mode)
{
    int sp = cc->sp, nd = 2 + sp;
    tfl_conv_op op;
    memset(&op, 0, sizeof op);
    op.mode = mode;
    op.spatial = sp;
    op.dtype = cc->dt;
    op.compute = TFL_COMPUTE_32F;
    op.cross_correlation = !cc->flip;
    op.groups = cc->groups;
    op.alpha = cc->alpha;
    op.beta = cc->beta;
    op.x.dims[0] = cc->n; op.x.dims[1] = cc->c;
    op.w.dims[0] = cc->k; op.w.dims[1] = cc->c / cc->groups;
    op.y.dims[0] = cc->n; op.y.dims[1] = cc->k;
    int64_t out[3], ker[3];
    for (int i = 0; i < sp; i++) {
        op.pad_pre[i] = cc->pre[i];
        op.pad_post[i] = cc->post[i];
        op.stride[i] = cc->str[i];
        op.dilation[i] = cc->dil[i];
        op.x.dims[2 + i] = cc->in[i];
        op.w.dims[2 + i] = ker[i] = cc->ker[i];
        out[i] = (cc->in[i] + cc->pre[i] + cc->post[i] - cc->dil[i] * (cc->ker[i] - 1) - 1) / cc->str[i] + 1;
        op.y.dims[2 + i] = out[i];
    }
    make_strides(nd, op.x.dims, cc->channels_last, op.x.strides);
    make_strides(nd, op.w.dims, cc->channels_last, op.w.strides);
    make_strides(nd, op.y.dims, cc->channels_last, op.y.strides);
    fill(&op.x, nd, cc->dt);
    fill(&op.w, nd, cc->dt);
    fill(&op.y, nd, cc->dt);
    void *bias = NULL;
    if (cc->bias && mode == TFL_CONV_FWD) {
        bias = malloc((size_t)cc->k * tfl_dtype_size(cc->dt));
        for (int i = 0; i < cc->k; i++)
            st(cc->dt, bias, i, frand());
        op.bias = bias;
    }
    if (mode == TFL_CONV_FWD && cc->za != 0) {
        /* z in the other layout than y, to exercise its strides */
        memcpy(op.z.dims, op.y.dims, sizeof op.z.dims);
        make_strides(nd, op.z.dims, !cc->channels_last, op.z.strides);
        fill(&op.z, nd, cc->dt);
        op.z_alpha = cc->za;
    }
    op.relu = mode == TFL_CONV_FWD && cc->relu;
    tfl_conv_tensor *outt = mode == TFL_CONV_FWD ? &op.y : mode == TFL_CONV_BWD_DATA ? &op.x : &op.w;
    int64_t nout = numel(nd, outt->dims);
    size_t es = tfl_dtype_size(cc->dt);
    /* the previous output, for beta */
    int64_t ext = 1;
    for (int i = 0; i < nd; i++)
        ext += (outt->dims[i] - 1) * outt->strides[i];
    void *prev = malloc((size_t)ext * es);
    memcpy(prev, outt->data, (size_t)ext * es);

    /* reference, dense in (a, b, spatial) order of outt */
    double *ref = calloc((size_t)nout, sizeof(double));
    int64_t cg = cc->c / cc->groups, kg = cc->k / cc->groups;
    const tfl_dtype dt = cc->dt;
    int64_t oi[3] = {0}, ti[3] = {0}, ii[3];
    for (int64_t n = 0; n < cc->n; n++)
        for (int64_t k = 0; k < cc->k; k++) {
            int64_t g = k / kg;
            memset(oi, 0, sizeof oi);
            do {
                double dyv = ld(dt, op.y.data, off(&op.y, sp, n, k, oi));
                for (int64_t c = 0; c < cg; c++) {
                    memset(ti, 0, sizeof ti);
                    do {
                        int inside = 1;
                        for (int i = 0; i < sp; i++) {
                            int64_t t = cc->flip ? ker[i] - 1 - ti[i] : ti[i];
                            ii[i] = oi[i] * cc->str[i] - cc->pre[i] + t * cc->dil[i];
                            if (ii[i] < 0 || ii[i] >= cc->in[i])
                                inside = 0;
                        }
                        if (!inside)
                            continue;
                        double wv = ld(dt, op.w.data, off(&op.w, sp, k, c, ti));
                        double xv = ld(dt, op.x.data, off(&op.x, sp, n, g * cg + c, ii));
                        int64_t r = 0;
                        if (mode == TFL_CONV_FWD) {
                            r = n * cc->k + k;
                            for (int i = 0; i < sp; i++) r = r * out[i] + oi[i];
                            ref[r] += wv * xv;
                        } else if (mode == TFL_CONV_BWD_DATA) {
                            r = n * cc->c + g * cg + c;
                            for (int i = 0; i < sp; i++) r = r * cc->in[i] + ii[i];
                            ref[r] += wv * dyv;
                        } else {
                            r = k * cg + c;
                            for (int i = 0; i < sp; i++) r = r * ker[i] + ti[i];
                            ref[r] += dyv * xv;
                        }
                    } while (next(sp, ker, ti));
                }
            } while (next(sp, out, oi));
        }

    CHECK(host_conv_supported(&op), "case not supported (sp %d mode %d)", sp, (int)mode);
    tfl_status s = host_conv(&op);
    CHECK(s == TFL_OK, "host_conv status %d", (int)s);

    /* compare: tolerance scaled by the number of terms and the storage */
    double tol = cc->dt == TFL_DT_F64 ? 1e-13 : cc->dt == TFL_DT_F32 ? 1e-5 :
                 cc->dt == TFL_DT_F16 ? 2e-3 : 1.6e-2;
    int64_t idx[3] = {0}, sizes[3];
    for (int i = 0; i < sp; i++)
        sizes[i] = outt->dims[2 + i];
    int bad = 0;
    int64_t r = 0;
    for (int64_t a = 0; a < outt->dims[0]; a++)
        for (int64_t b = 0; b < outt->dims[1]; b++) {
            memset(idx, 0, sizeof idx);
            do {
                int64_t o = off(outt, sp, a, b, idx);
                double want = cc->alpha * ref[r];
                if (cc->beta != 0)
                    want += cc->beta * ld(dt, prev, o);
                if (bias)
                    want += ld(dt, bias, b);
                if (op.z.data)
                    want += cc->za * ld(dt, op.z.data, off(&op.z, sp, a, b, idx));
                if (op.relu && want < 0)
                    want = 0;
                double got = ld(dt, outt->data, o);
                if (!(fabs(got - want) <= tol * (1 + fabs(want)) * 4) && bad++ < 3)
                    fprintf(stderr, "  mode %d sp %d at %lld: got %.7g want %.7g\n", (int)mode, sp,
                            (long long)r, got, want);
                r++;
            } while (next(sp, sizes, idx));
        }
    CHECK(bad == 0, "path %d mode %d sp %d n%d c%d k%d g%d cl%d dt%d flip%d: %d mismatches",
          host_conv_force_path, (int)mode, sp, cc->n, cc->c, cc->k, cc->groups,
          cc->channels_last, (int)cc->dt, cc->flip, bad);
    free(ref);
    free(prev);
    free(bias);
    free(op.z.data);
    free(op.x.data);
    free(op.w.data);
    free(op.y.data);
}

/* Every case through each kernel: the shape's own choice, im2col + GEMM
 * and the direct loops. */
static void run_all_modes(const ccase *cc)
{
    for (int path = 0; path < 3; path++) {
        host_conv_force_path = path;
        run_case(cc, TFL_CONV_FWD);
        run_case(cc, TFL_CONV_BWD_DATA);
        run_case(cc, TFL_CONV_BWD_FILTER);
    }
    host_conv_force_path = 0;
}

/* Kernel names of the torch 2.11 and 2.15 sm_80 cubins and their parameter
 * tables (offset:size, as `torchfl wheel --list` / scripts/wheel_kernels.py
 * read them): the family must claim each and state exactly that layout. */
static const cubin_layout cubin[] = {
    /* 2.11.0 */
    { "_ZN2at6native51_GLOBAL__N__a30dace1_18_DepthwiseConv2d_cu_9959487035conv_depthwise2d_grad_weight_kernelIN3c108BFloat16EjEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm4EiEESD_Lm4ESE_iEESJ_NS8_INS9_ISB_SC_Lm3ESE_iEESI_SC_Lm4ESE_iEEiiiiiiiiiiiiiiii",
      "0:40 40:40 80:40 120:4 124:4 128:4 132:4 136:4 140:4 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4" },
    { "_ZN2at6native51_GLOBAL__N__a30dace1_18_DepthwiseConv2d_cu_9959487032conv_depthwise2d_backward_kernelILi0ELi0EN3c108BFloat16EiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT1_Lm3ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm4EiEESD_Lm4ESE_iEENS8_INS9_ISB_SC_Lm3ESE_iEESI_SC_Lm4ESE_iEESJ_T2_iiiiiiiiiiiiiii",
      "0:40 40:40 80:40 120:4 124:4 128:4 132:4 136:4 140:4 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4" },
    { "_ZN2at6native51_GLOBAL__N__a30dace1_18_DepthwiseConv2d_cu_9959487039conv_depthwise2d_forward_kernel_genericIN3c108BFloat16EiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm4EiEESD_Lm4ESE_iEENS8_INS9_ISB_SC_Lm3ESE_iEESI_SC_Lm4ESE_iEESJ_NS8_INS9_ISB_SD_Lm0ESE_iEENSH_ILm1EiEESD_Lm1ESE_iEEbT0_iiiiiiiiiiiiii",
      "0:40 40:40 80:40 120:16 136:1 140:4 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4 184:4 188:4 192:4 196:4" },
    { "_ZN2at6native51_GLOBAL__N__9e6d8551_18_DepthwiseConv3d_cu_35e0c7b544conv_depthwise3d_cuda_backward_weight_kernelIN3c108BFloat16EfLin1ELin1EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm5EiEESD_Lm5ESE_iEESJ_NS8_INS9_ISB_SC_Lm4ESE_iEESI_SC_Lm5ESE_iEEiiiiiiiii",
      "0:48 48:48 96:48 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4" },
    { "_ZN2at6native51_GLOBAL__N__9e6d8551_18_DepthwiseConv3d_cu_35e0c7b543conv_depthwise3d_cuda_backward_input_kernelIN3c108BFloat16EfLin1ELin1ELin1ELin1ELin1ELin1ELin1ELin1ELin1EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm5EiEESD_Lm5ESE_iEENS8_INS9_ISB_SC_Lm4ESE_iEESI_SC_Lm5ESE_iEESJ_iiiiiiiii",
      "0:48 48:48 96:48 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4" },
    { "_ZN2at6native51_GLOBAL__N__9e6d8551_18_DepthwiseConv3d_cu_35e0c7b528conv_depthwise3d_cuda_kernelIN3c108BFloat16EfLin1ELin1ELin1ELin1ELin1ELin1EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm5EiEESD_Lm5ESE_iEENS8_INS9_ISB_SC_Lm4ESE_iEESI_SC_Lm5ESE_iEESJ_PSD_iiiiiiiii",
      "0:48 48:48 96:48 144:8 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4 184:4" },
    /* 2.15.0 */
    { "_ZN2at6native51_GLOBAL__N__e3071600_18_DepthwiseConv2d_cu_9959487035conv_depthwise2d_grad_weight_kernelIN3c108BFloat16EjEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm4EiEESD_Lm4ESE_iEESJ_NS8_INS9_ISB_SC_Lm3ESE_iEESI_SC_Lm4ESE_iEEiiiiiiiiiiiiiiii",
      "0:40 40:40 80:40 120:4 124:4 128:4 132:4 136:4 140:4 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4" },
    { "_ZN2at6native51_GLOBAL__N__e3071600_18_DepthwiseConv2d_cu_9959487032conv_depthwise2d_backward_kernelILi0ELi0EN3c108BFloat16EiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT1_Lm3ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm4EiEESD_Lm4ESE_iEENS8_INS9_ISB_SC_Lm3ESE_iEESI_SC_Lm4ESE_iEESJ_T2_iiiiiiiiiiiiiii",
      "0:40 40:40 80:40 120:4 124:4 128:4 132:4 136:4 140:4 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4" },
    { "_ZN2at6native51_GLOBAL__N__e3071600_18_DepthwiseConv2d_cu_9959487039conv_depthwise2d_forward_kernel_genericIN3c108BFloat16EiEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm3ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm4EiEESD_Lm4ESE_iEENS8_INS9_ISB_SC_Lm3ESE_iEESI_SC_Lm4ESE_iEESJ_NS8_INS9_ISB_SD_Lm0ESE_iEENSH_ILm1EiEESD_Lm1ESE_iEEbT0_iiiiiiiiiiiiii",
      "0:40 40:40 80:40 120:16 136:1 140:4 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4 184:4 188:4 192:4 196:4" },
    { "_ZN2at6native51_GLOBAL__N__de673fb0_18_DepthwiseConv3d_cu_35e0c7b544conv_depthwise3d_cuda_backward_weight_kernelIN3c108BFloat16EfLin1ELin1EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm5EiEESD_Lm5ESE_iEESJ_NS8_INS9_ISB_SC_Lm4ESE_iEESI_SC_Lm5ESE_iEEiiiiiiiii",
      "0:48 48:48 96:48 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4" },
    { "_ZN2at6native51_GLOBAL__N__de673fb0_18_DepthwiseConv3d_cu_35e0c7b543conv_depthwise3d_cuda_backward_input_kernelIN3c108BFloat16EfLin1ELin1ELin1ELin1ELin1ELin1ELin1ELin1ELin1EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm5EiEESD_Lm5ESE_iEENS8_INS9_ISB_SC_Lm4ESE_iEESI_SC_Lm5ESE_iEESJ_iiiiiiiii",
      "0:48 48:48 96:48 144:4 148:4 152:4 156:4 160:4 164:4 168:4 172:4 176:4" },
    { "_ZN2at6native51_GLOBAL__N__de673fb0_18_DepthwiseConv3d_cu_35e0c7b528conv_depthwise3d_cuda_kernelIN3c108BFloat16EfLin1ELin1ELin1ELin1ELin1ELin1EEEvN5torch10headeronly6detail27GenericPackedTensorAccessorINS7_14TensorAccessorINS3_8ArrayRefIlEEKT_Lm4ENS6_16DefaultPtrTraitsEiEENS_6detail16IndexBoundsCheckILm5EiEESD_Lm5ESE_iEENS8_INS9_ISB_SC_Lm4ESE_iEESI_SC_Lm5ESE_iEESJ_PSD_iiiiiiiii",
      "0:48 48:48 96:48 144:8 152:4 156:4 160:4 164:4 168:4 172:4 176:4 180:4 184:4" },
};

int main(void)
{
    check_cubin_layouts(&tfl_kfamily_conv, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    ccase base = {.sp = 2, .n = 2, .c = 3, .k = 4, .groups = 1,
                  .in = {7, 6, 1}, .ker = {3, 3, 1}, .pre = {1, 1, 0}, .post = {1, 1, 0},
                  .str = {1, 1, 1}, .dil = {1, 1, 1}, .dt = TFL_DT_F32, .alpha = 1, .beta = 0};
    ccase c;

    run_all_modes(&base);
    c = base; c.str[0] = 2; c.str[1] = 3; run_all_modes(&c);                 /* strides */
    c = base; c.dil[0] = 2; c.dil[1] = 3; c.pre[1] = 2; c.post[1] = 2; run_all_modes(&c); /* dilation */
    c = base; c.pre[0] = 0; c.post[0] = 2; c.pre[1] = 2; c.post[1] = 0; run_all_modes(&c); /* asymmetric */
    c = base; c.c = 6; c.k = 4; c.groups = 2; run_all_modes(&c);             /* groups */
    c = base; c.c = 5; c.k = 10; c.groups = 5; run_all_modes(&c);            /* depthwise x2 */
    c = base; c.c = 4; c.k = 4; c.groups = 4; c.in[0] = 9; c.in[1] = 5; run_all_modes(&c);
    c = base; c.ker[0] = c.ker[1] = 1; c.pre[0] = c.pre[1] = c.post[0] = c.post[1] = 0;
    run_all_modes(&c);                                                       /* 1x1 */
    c.str[0] = 2; run_all_modes(&c);                                         /* strided 1x1 */
    c = base; c.channels_last = 1; run_all_modes(&c);                        /* NHWC */
    c = base; c.channels_last = 1; c.c = 6; c.groups = 3; c.k = 6; c.str[1] = 2; run_all_modes(&c);
    c = base; c.flip = 1; c.pre[0] = 0; run_all_modes(&c);                   /* true convolution */
    c = base; c.alpha = 0.5; c.beta = 0.25; run_all_modes(&c);               /* alpha/beta */
    c = base; c.bias = 1; run_all_modes(&c);                                 /* bias */
    c = base; c.bias = 1; c.za = 0.5; c.relu = 1; run_all_modes(&c);         /* fused epilogue */
    c = base; c.relu = 1; c.channels_last = 1; c.alpha = 2; run_all_modes(&c);
    c = base; c.za = -1.5; c.dt = TFL_DT_F16; run_all_modes(&c);
    c = base; c.bias = 1; c.c = c.k = 6; c.groups = 6; c.alpha = 0.5; c.beta = 0.5;
    c.channels_last = 1; run_all_modes(&c);
    c.dt = TFL_DT_BF16; run_all_modes(&c);
    c = base; c.in[0] = 2; c.in[1] = 1; c.ker[0] = 3; c.ker[1] = 3; c.pre[0] = c.post[0] = 1;
    c.pre[1] = c.post[1] = 2; run_all_modes(&c);                               /* kernel > input */
    c = base; c.sp = 1; c.in[0] = 11; c.ker[0] = 4; c.pre[0] = 2; c.post[0] = 1; c.str[0] = 2;
    run_all_modes(&c);                                                       /* 1d */
    c = base; c.sp = 3; c.in[0] = 4; c.in[1] = 5; c.in[2] = 3; c.ker[0] = 2; c.ker[1] = 3;
    c.ker[2] = 2; c.pre[2] = 1; c.post[2] = 0; c.dil[0] = 2; c.pre[0] = 1; c.post[0] = 1;
    run_all_modes(&c);                                                       /* 3d */
    c = base; c.dt = TFL_DT_F16; run_all_modes(&c);
    c = base; c.dt = TFL_DT_F64; run_all_modes(&c);
    c = base; c.dt = TFL_DT_F64; c.channels_last = 1; c.c = 6; c.groups = 3; c.k = 3; c.bias = 1;
    c.alpha = 2; c.beta = -1; c.dil[1] = 2; run_all_modes(&c);
    c = base; c.dt = TFL_DT_BF16; c.channels_last = 1; run_all_modes(&c);
    c = base; c.n = 3; c.c = 16; c.k = 8; c.in[0] = 12; c.in[1] = 13; run_all_modes(&c); /* larger */

    /* inconsistent shapes are refused, never run */
    {
        tfl_conv_op op;
        memset(&op, 0, sizeof op);
        op.mode = TFL_CONV_FWD; op.spatial = 2; op.dtype = TFL_DT_F32; op.groups = 1;
        op.cross_correlation = 1;
        int64_t xd[4] = {1, 3, 5, 5}, wd[4] = {2, 3, 3, 3}, yd[4] = {1, 2, 4, 3};
        for (int i = 0; i < 4; i++) { op.x.dims[i] = xd[i]; op.w.dims[i] = wd[i]; op.y.dims[i] = yd[i]; }
        for (int i = 0; i < 2; i++) { op.stride[i] = op.dilation[i] = 1; }
        CHECK(!host_conv_supported(&op), "wrong output size accepted");
        CHECK(host_conv(&op) == TFL_ERR_UNSUPPORTED, "wrong output size ran");
        op.y.dims[2] = 3; op.w.dims[1] = 2;
        CHECK(!host_conv_supported(&op), "channels not divisible by w's accepted");
        op.w.dims[1] = 3; op.dtype = TFL_DT_I32;
        CHECK(!host_conv_supported(&op), "i32 accepted");
    }

    printf("test_ops_conv: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

/*
 * gemm_epilogue.c - the cuBLASLt epilogues on the host: bias, ReLU, GELU
 * (tanh approximation, as cuBLASLt defines it), their auxiliary outputs,
 * the gradient forms DRELU/DGELU and the bias-gradient reductions.
 *
 * Epilogues run on one output column at a time in double precision, after
 * the GEMM and the beta*C term, before the result is narrowed to D's type;
 * their cost is O(m*n), small beside the GEMM's O(m*n*k).
 *
 * ReLU bit mask layout (RELU_AUX, DRELU): bit (i + j*ld_aux) of the aux
 * buffer, least significant bit first within each byte, is 1 where the
 * pre-activation was > 0.  ld_aux counts bits (cuBLASLt requires a
 * multiple of 128, so every column starts on a byte).
 */
#include "backends/host/gemm_internal.h"

#include <math.h>

int hg_epi_flags(tfl_epilogue e)
{
    switch (e) {
    case TFL_EPI_NONE: return 0;
    case TFL_EPI_BIAS: return HG_EPI_BIAS;
    case TFL_EPI_RELU: return HG_EPI_RELU;
    case TFL_EPI_RELU_BIAS: return HG_EPI_RELU | HG_EPI_BIAS;
    case TFL_EPI_GELU: return HG_EPI_GELU;
    case TFL_EPI_GELU_BIAS: return HG_EPI_GELU | HG_EPI_BIAS;
    case TFL_EPI_DGELU: return HG_EPI_DGELU;
    case TFL_EPI_DGELU_BGRAD: return HG_EPI_DGELU | HG_EPI_BGRAD_D;
    case TFL_EPI_BGRADA: return HG_EPI_BGRAD_A;
    case TFL_EPI_BGRADB: return HG_EPI_BGRAD_B;
    case TFL_EPI_GELU_AUX: return HG_EPI_GELU | HG_EPI_AUX_GELU;
    case TFL_EPI_GELU_AUX_BIAS: return HG_EPI_GELU | HG_EPI_AUX_GELU | HG_EPI_BIAS;
    case TFL_EPI_DRELU: return HG_EPI_DRELU;
    case TFL_EPI_DRELU_BGRAD: return HG_EPI_DRELU | HG_EPI_BGRAD_D;
    case TFL_EPI_RELU_AUX: return HG_EPI_RELU | HG_EPI_AUX_MASK;
    case TFL_EPI_RELU_AUX_BIAS: return HG_EPI_RELU | HG_EPI_AUX_MASK | HG_EPI_BIAS;
    }
    return -1;
}

#define GELU_K0 0.7978845608028654   /* sqrt(2/pi) */
#define GELU_K1 0.044715

static double gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(GELU_K0 * (x + GELU_K1 * x * x * x)));
}

/* d/dx of the tanh-approximated GELU above. */
static double gelu_grad(double x)
{
    double t = tanh(GELU_K0 * (x + GELU_K1 * x * x * x));
    return 0.5 * (1.0 + t) +
           0.5 * x * (1.0 - t * t) * GELU_K0 * (1.0 + 3.0 * GELU_K1 * x * x);
}

/* Fused bias + activation over columns of T (float or double); one pass
 * per column, the flag tests hoisted out of the loops. */
#define EPI_FAST(NAME, T, TANH)                                                     \
    static void NAME(int f, const T *bias, T *d, int64_t ld, int64_t m,            \
                     int64_t cols)                                                  \
    {                                                                               \
        const T k0 = (T)GELU_K0, k1 = (T)GELU_K1, zero = 0;                         \
        for (int64_t j = 0; j < cols; j++) {                                        \
            T *col = d + j * ld;                                                    \
            if (bias)                                                               \
                for (int64_t i = 0; i < m; i++)                                     \
                    col[i] += bias[i];                                              \
            if (f & HG_EPI_RELU)                                                    \
                for (int64_t i = 0; i < m; i++) {                                   \
                    T v = col[i];                                                   \
                    col[i] = v > zero || v != v ? v : zero;   /* NaN stays */       \
                }                                                                   \
            if (f & HG_EPI_GELU)                                                    \
                for (int64_t i = 0; i < m; i++) {                                   \
                    T v = col[i];                                                   \
                    col[i] = (T)0.5 * v * ((T)1 + TANH(k0 * (v + k1 * v * v * v)));\
                }                                                                   \
        }                                                                           \
    }
EPI_FAST(fast_f32, float, tanhf)
EPI_FAST(fast_f64, double, tanh)

static int fast_ok(const hg_epi *ep)
{
    return ep->flags != 0 && !(ep->flags & ~(HG_EPI_BIAS | HG_EPI_RELU | HG_EPI_GELU));
}

int hg_epi_fast_f32(const hg_epi *ep, float *d, int64_t ld, int64_t cols)
{
    if (!fast_ok(ep))
        return 0;
    const int64_t m = ep->m;
    float *b = NULL;
    if (ep->flags & HG_EPI_BIAS) {
        if (!(b = hg_scratch(4, (size_t)m * sizeof(float))))
            return 0;
        if (ep->bias_type == TFL_DT_F64)
            for (int64_t i = 0; i < m; i++)
                b[i] = (float)((const double *)ep->bias)[i];
        else
            hg_to_f32(ep->bias_type, ep->bias, m, m, 1, b, m);
    }
    fast_f32(ep->flags, b, d, ld, m, cols);
    return 1;
}

int hg_epi_fast_f64(const hg_epi *ep, double *d, int64_t ld, int64_t cols)
{
    if (!fast_ok(ep))
        return 0;
    const int64_t m = ep->m;
    double *b = NULL;
    if (ep->flags & HG_EPI_BIAS) {
        if (!(b = hg_scratch(4, (size_t)m * sizeof(double))))
            return 0;
        for (int64_t i = 0; i < m; i++)
            b[i] = hg_load(ep->bias_type, ep->bias, i);
    }
    fast_f64(ep->flags, b, d, ld, m, cols);
    return 1;
}

void hg_epi_column(const hg_epi *ep, int64_t j, double *x)
{
    const int f = ep->flags;
    const int64_t m = ep->m;
    uint8_t *mask = (uint8_t *)ep->aux;
    const int64_t aux0 = j * ep->ld_aux;

    for (int64_t i = 0; i < m; i++) {
        double v = x[i];
        if (f & HG_EPI_BIAS)
            v += hg_load(ep->bias_type, ep->bias, i);
        if (f & HG_EPI_AUX_GELU)
            hg_store(ep->aux_type, ep->aux, aux0 + i, v);
        if (f & HG_EPI_AUX_MASK) {
            int64_t bit = aux0 + i;
            uint8_t bm = (uint8_t)(1u << (bit & 7));
            if (v > 0.0)
                mask[bit >> 3] |= bm;
            else
                mask[bit >> 3] &= (uint8_t)~bm;
        }
        if (f & HG_EPI_RELU)
            v = v > 0.0 ? v : (isnan(v) ? v : 0.0);
        if (f & HG_EPI_GELU)
            v = gelu(v);
        if (f & HG_EPI_DRELU) {
            int64_t bit = aux0 + i;
            if (!(mask[bit >> 3] & (1u << (bit & 7))))
                v = 0.0;
        }
        if (f & HG_EPI_DGELU)
            v *= gelu_grad(hg_load(ep->aux_type, ep->aux, aux0 + i));
        if (f & HG_EPI_BGRAD_D)
            ep->bacc[i] += v;
        x[i] = v;
    }
}

void hg_epi_finish(const hg_epi *ep)
{
    if (!(ep->flags & HG_EPI_BGRAD_D))
        return;
    for (int64_t i = 0; i < ep->m; i++)
        hg_store(ep->bias_type, (void *)ep->bias, i, ep->bacc[i]);
}

void hg_epi_bgrad_operand(const tfl_gemm_op *op, const void *a, const void *b,
                          void *bias)
{
    int f = hg_epi_flags(op->epilogue);
    if (f & HG_EPI_BGRAD_A) {
        /* bias[i] = sum over k of op(A)[i, k] */
        for (int64_t i = 0; i < op->m; i++) {
            double s = 0.0;
            for (int64_t p = 0; p < op->k; p++) {
                int64_t idx = op->trans_a ? p + i * op->lda : i + p * op->lda;
                s += hg_load(op->type_a, a, idx);
            }
            hg_store(op->bias_type, bias, i, s);
        }
    }
    if (f & HG_EPI_BGRAD_B) {
        /* bias[j] = sum over k of op(B)[k, j] */
        for (int64_t j = 0; j < op->n; j++) {
            double s = 0.0;
            for (int64_t p = 0; p < op->k; p++) {
                int64_t idx = op->trans_b ? j + p * op->ldb : p + j * op->ldb;
                s += hg_load(op->type_b, b, idx);
            }
            hg_store(op->bias_type, bias, j, s);
        }
    }
}

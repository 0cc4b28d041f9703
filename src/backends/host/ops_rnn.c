/*
 * ops_rnn.c - the host backend's recurrent-network op (TFL_OP_RNN,
 * torchfl/ops/rnn.h): RNN (relu / tanh), LSTM and GRU, forward and both
 * backward passes; float32 and float64 data natively (ops_rnn_impl.h,
 * once per type), float16 / bfloat16 converted to float copies around the
 * float passes.
 *
 * Per pseudo-layer (layer, direction) the input-side products of every
 * time step are one cblas_sgemm (W x for all rows at once); the recurrent
 * side is one sgemm per time step over the rows active at that step (the
 * sequences are sorted longest first, so they are rows 0..bs-1 of the
 * running state).  The pointwise cell math runs in float with libm.  The
 * reserve space keeps what backward needs (see tfl_rnn_reserve_floats):
 * activations, the LSTM cell state / the GRU R_n h + b_Rn term, every
 * layer's output, and the gate gradients BWD_DATA leaves for BWD_WEIGHTS.
 */
#include <cblas.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/half.h"
#include "host_ops.h"

/* splitmix64 finaliser: the dropout mask's hash */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define RT float
#define RN(name) name##_f32
#define RT_GEMM cblas_sgemm
#define RT_EXP expf
#define RT_TANH tanhf
#include "ops_rnn_impl.h"
#undef RT
#undef RN
#undef RT_GEMM
#undef RT_EXP
#undef RT_TANH

#define RT double
#define RN(name) name##_f64
#define RT_GEMM cblas_dgemm
#define RT_EXP exp
#define RT_TANH tanh
#include "ops_rnn_impl.h"
#undef RT
#undef RN
#undef RT_GEMM
#undef RT_EXP
#undef RT_TANH

/* ------------------------------------------------------------- entry */

int host_rnn_supported(const tfl_rnn_op *op)
{
    if (!op || op->cell < TFL_RNN_RELU || op->cell > TFL_RNN_GRU)
        return 0;
    if (op->layers < 1 || (op->dirs != 1 && op->dirs != 2) || op->hidden < 1 ||
        op->input_size < 0 || op->seq_len < 1 || !op->batch_sizes)
        return 0;
    if (op->batch_sizes[0] < 1 || !(op->dropout >= 0.0f && op->dropout < 1.0f))
        return 0;
    if (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F16 && op->dtype != TFL_DT_BF16 &&
        op->dtype != TFL_DT_F64)
        return 0;
    for (int t = 0; t < op->seq_len; t++)
        if (op->batch_sizes[t] < 0 || (t > 0 && op->batch_sizes[t] > op->batch_sizes[t - 1]))
            return 0;
    switch (op->pass) {
    case TFL_RNN_FWD:
        return op->x && op->w;
    case TFL_RNN_BWD_DATA:
        return op->dy && op->w && op->reserve;
    case TFL_RNN_BWD_WEIGHTS:
        return op->x && op->dw && op->reserve;
    default:
        return 0;
    }
}

/* ------------------------------------------- float16 / bfloat16 data */

static float *to_f32(const void *src, int64_t n, tfl_dtype dt, int *ok)
{
    if (!src)
        return NULL;
    float *f = malloc(sizeof(float) * (size_t)(n + 1));
    if (!f) {
        *ok = 0;
        return NULL;
    }
    const uint16_t *h = src;
    for (int64_t i = 0; i < n; i++)
        f[i] = dt == TFL_DT_F16 ? tfl_f16_to_f32(h[i]) : tfl_bf16_to_f32(h[i]);
    return f;
}

/* A float buffer for an output (NULL stays NULL). */
static float *out_f32(const void *dst, int64_t n, int *ok)
{
    if (!dst)
        return NULL;
    float *f = calloc((size_t)(n + 1), sizeof(float));
    if (!f)
        *ok = 0;
    return f;
}

static void from_f32(void *dst, const float *f, int64_t n, tfl_dtype dt)
{
    if (!dst || !f)
        return;
    uint16_t *h = dst;
    for (int64_t i = 0; i < n; i++)
        h[i] = dt == TFL_DT_F16 ? tfl_f32_to_f16(f[i]) : tfl_f32_to_bf16(f[i]);
}

tfl_status host_rnn(const tfl_rnn_op *op)
{
    if (!host_rnn_supported(op))
        return TFL_ERR_UNSUPPORTED;
    rnnop_f32 f = {
        .pass = op->pass, .cell = op->cell, .layers = op->layers, .dirs = op->dirs,
        .input_size = op->input_size, .hidden = op->hidden, .seq_len = op->seq_len,
        .batch_sizes = op->batch_sizes, .reserve = op->reserve, .reserve_bytes = op->reserve_bytes,
        .dropout = op->dropout, .dropout_seed = op->dropout_seed, .dropout_offset = op->dropout_offset,
    };
    if (op->dtype == TFL_DT_F64) {
        rnnop_f64 d = {
            .pass = op->pass, .cell = op->cell, .layers = op->layers, .dirs = op->dirs,
            .input_size = op->input_size, .hidden = op->hidden, .seq_len = op->seq_len,
            .batch_sizes = op->batch_sizes, .reserve = op->reserve, .reserve_bytes = op->reserve_bytes,
            .dropout = op->dropout, .dropout_seed = op->dropout_seed, .dropout_offset = op->dropout_offset,
            .x = op->x, .hx = op->hx, .cx = op->cx, .w = op->w, .y = op->y, .hy = op->hy, .cy = op->cy,
            .dy = op->dy, .dhy = op->dhy, .dcy = op->dcy, .dx = op->dx, .dhx = op->dhx, .dcx = op->dcx,
            .dw = op->dw,
        };
        return run_f64(&d);
    }
    if (op->dtype == TFL_DT_F32) {
        f.x = op->x; f.hx = op->hx; f.cx = op->cx; f.w = op->w;
        f.y = op->y; f.hy = op->hy; f.cy = op->cy;
        f.dy = op->dy; f.dhy = op->dhy; f.dcy = op->dcy;
        f.dx = op->dx; f.dhx = op->dhx; f.dcx = op->dcx; f.dw = op->dw;
        return run_f32(&f);
    }
    /* half storage: float copies in, the passes, rounded copies out */
    const tfl_dtype dt = op->dtype;
    int64_t n = 0;
    for (int t = 0; t < op->seq_len; t++)
        n += op->batch_sizes[t];
    const int64_t nx = n * op->input_size, ny = n * op->dirs * op->hidden;
    const int64_t nh = (int64_t)op->layers * op->dirs * op->batch_sizes[0] * op->hidden;
    const int64_t nw = tfl_rnn_weight_offsets(op->cell, op->layers, op->dirs, op->input_size, op->hidden,
                                              -1, NULL);
    int ok = 1;
    float *x = to_f32(op->x, nx, dt, &ok), *hx = to_f32(op->hx, nh, dt, &ok);
    float *cx = to_f32(op->cx, nh, dt, &ok), *w = to_f32(op->w, nw, dt, &ok);
    float *dy = to_f32(op->dy, ny, dt, &ok), *dhy = to_f32(op->dhy, nh, dt, &ok);
    float *dcy = to_f32(op->dcy, nh, dt, &ok);
    /* weight gradients are added to: start from the current values */
    float *dw = to_f32(op->dw, nw, dt, &ok);
    float *y = out_f32(op->y, ny, &ok), *hy = out_f32(op->hy, nh, &ok), *cy = out_f32(op->cy, nh, &ok);
    float *dx = out_f32(op->dx, nx, &ok), *dhx = out_f32(op->dhx, nh, &ok), *dcx = out_f32(op->dcx, nh, &ok);
    tfl_status st = TFL_ERR_NOMEM;
    if (ok) {
        f.x = x; f.hx = hx; f.cx = cx; f.w = w; f.y = y; f.hy = hy; f.cy = cy;
        f.dy = dy; f.dhy = dhy; f.dcy = dcy; f.dx = dx; f.dhx = dhx; f.dcx = dcx; f.dw = dw;
        st = run_f32(&f);
    }
    if (st == TFL_OK) {
        from_f32(op->y, y, ny, dt);
        from_f32(op->hy, hy, nh, dt);
        from_f32(op->cy, cy, nh, dt);
        from_f32(op->dx, dx, nx, dt);
        from_f32(op->dhx, dhx, nh, dt);
        from_f32(op->dcx, dcx, nh, dt);
        from_f32(op->dw, dw, nw, dt);
    }
    free(x); free(hx); free(cx); free(w); free(dy); free(dhy); free(dcy); free(dw);
    free(y); free(hy); free(cy); free(dx); free(dhx); free(dcx);
    return st;
}

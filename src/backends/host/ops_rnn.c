/*
 * ops_rnn.c - the host backend's recurrent-network op (TFL_OP_RNN,
 * torchfl/ops/rnn.h): RNN (relu / tanh), LSTM and GRU, forward and both
 * backward passes; float32 data, or float16 / bfloat16 converted to float
 * copies around the same passes (math in float).
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

/* The op with float data: what the passes below compute on.  float32 ops
 * point at their own buffers; float16 / bfloat16 ones at float copies
 * (host_rnn converts in and out). */
typedef struct rnn_f32 {
    tfl_rnn_pass pass;
    tfl_rnn_cell cell;
    int layers, dirs, input_size, hidden, seq_len;
    const int *batch_sizes;
    const float *x, *hx, *cx, *w;
    float *y, *hy, *cy;
    const float *dy, *dhy, *dcy;
    float *dx, *dhx, *dcx, *dw;
    float *reserve;
    size_t reserve_bytes;
    float dropout;
    uint64_t dropout_seed, dropout_offset;
} rnn_f32;

/* Everything derived from the op that all passes share. */
typedef struct rnn_geom {
    const rnn_f32 *op;
    int T, B, H, G, dirs, L;
    int64_t n, gh;               /* rows, G * H                           */
    int64_t *off;                /* [T + 1] first row of each step        */
    float *res;                  /* reserve (op's or scratch)             */
    int drop;                    /* dropout between layers is applied     */
    int64_t per_pl;              /* reserve floats per pseudo-layer       */
} rnn_geom;

static int geom_init(rnn_geom *g, const rnn_f32 *op)
{
    memset(g, 0, sizeof *g);
    g->op = op;
    g->T = op->seq_len;
    g->B = op->batch_sizes[0];
    g->H = op->hidden;
    g->G = tfl_rnn_gates(op->cell);
    g->dirs = op->dirs;
    g->L = op->layers;
    g->gh = (int64_t)g->G * g->H;
    g->off = malloc(sizeof(int64_t) * ((size_t)g->T + 1));
    if (!g->off)
        return 0;
    g->off[0] = 0;
    for (int t = 0; t < g->T; t++)
        g->off[t + 1] = g->off[t] + op->batch_sizes[t];
    g->n = g->off[g->T];
    g->per_pl = g->n * (3 * g->gh + g->H);
    return 1;
}

/* Reserve sections of pseudo-layer p. */
static float *res_act(const rnn_geom *g, int p) { return g->res + p * g->per_pl; }
static float *res_aux(const rnn_geom *g, int p) { return res_act(g, p) + g->n * g->gh; }
static float *res_dx(const rnn_geom *g, int p) { return res_aux(g, p) + g->n * g->H; }
static float *res_dh(const rnn_geom *g, int p) { return res_dx(g, p) + g->n * g->gh; }
/* Layer l's output, [n][dirs * H]. */
static float *res_y(const rnn_geom *g, int l)
{
    return g->res + (int64_t)g->L * g->dirs * g->per_pl + (int64_t)l * g->n * g->dirs * g->H;
}

static int64_t in_width(const rnn_geom *g, int l)
{
    return l == 0 ? g->op->input_size : (int64_t)g->dirs * g->H;
}

/* With dropout: layer l's (l > 0) dropped input and its mask scales. */
static float *res_drop_in(const rnn_geom *g, int l)
{
    return res_y(g, g->L) + (int64_t)(l - 1) * 2 * g->n * g->dirs * g->H;
}
static float *res_drop_mask(const rnn_geom *g, int l)
{
    return res_drop_in(g, l) + g->n * g->dirs * g->H;
}

static const float *layer_in(const rnn_geom *g, int l)
{
    if (l == 0)
        return g->op->x;
    return g->drop ? res_drop_in(g, l) : res_y(g, l - 1);
}

/* splitmix64 finaliser: the dropout mask's hash */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Layer l's dropped input and mask from layer l - 1's output. */
static void apply_dropout(const rnn_geom *g, int l)
{
    const rnn_f32 *op = g->op;
    const int64_t m = g->n * g->dirs * g->H;
    const float scale = 1.0f / (1.0f - op->dropout);
    const uint64_t key = mix64(mix64(op->dropout_seed) ^ op->dropout_offset) ^ ((uint64_t)l << 48);
    const float *src = res_y(g, l - 1);
    float *dst = res_drop_in(g, l), *mask = res_drop_mask(g, l);
    for (int64_t i = 0; i < m; i++) {
        /* 24 random bits -> [0, 1) */
        const float u = (float)(mix64(key + (uint64_t)i) >> 40) * (1.0f / 16777216.0f);
        mask[i] = u >= op->dropout ? scale : 0.0f;
        dst[i] = src[i] * mask[i];
    }
}

/* The row processed just before (t, b) in direction d, or -1 when (t, b)
 * is the sequence's first step (its state comes from hx / cx). */
static int64_t prev_row(const rnn_geom *g, int t, int b, int d)
{
    if (d == 0)
        return t > 0 ? g->off[t - 1] + b : -1;
    return (t + 1 < g->T && b < g->op->batch_sizes[t + 1]) ? g->off[t + 1] + b : -1;
}

static float sigm(float v) { return 1.0f / (1.0f + expf(-v)); }

/* ------------------------------------------------------------ forward */

static void fwd_pseudo_layer(const rnn_geom *g, int l, int d, float *hs, float *cs, float *gh)
{
    const rnn_f32 *op = g->op;
    const int p = l * g->dirs + d, H = g->H, G = g->G;
    const int64_t in = in_width(g, l), GH = g->gh, yw = (int64_t)g->dirs * H;
    int64_t wo[4];
    tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, H, p, wo);
    const float *W = op->w + wo[0], *R = op->w + wo[1], *bW = op->w + wo[2], *bR = op->w + wo[3];
    float *A = res_act(g, p), *aux = res_aux(g, p), *Y = res_y(g, l);

    /* input side of every step at once: A = X W^T + b_W */
    if (g->n > 0 && in > 0)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->n, (int)GH, (int)in,
                    1.0f, layer_in(g, l), (int)in, W, (int)in, 0.0f, A, (int)GH);
    else
        memset(A, 0, sizeof(float) * (size_t)(g->n * GH));
    for (int64_t r = 0; r < g->n; r++)
        for (int64_t k = 0; k < GH; k++)
            A[r * GH + k] += bW[k];

    for (int s = 0; s < g->T; s++) {
        const int t = d == 0 ? s : g->T - 1 - s;
        const int bs = op->batch_sizes[t];
        const int64_t r0 = g->off[t];
        /* recurrent side of the active rows: gh = h R^T + b_R */
        for (int b = 0; b < bs; b++)
            memcpy(gh + (int64_t)b * GH, bR, sizeof(float) * (size_t)GH);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, bs, (int)GH, H,
                    1.0f, hs, H, R, H, 1.0f, gh, (int)GH);
        for (int b = 0; b < bs; b++) {
            float *a = A + (r0 + b) * GH, *q = gh + (int64_t)b * GH, *h = hs + (int64_t)b * H;
            float *y = Y + (r0 + b) * yw + (int64_t)d * H, *e = aux + (r0 + b) * H;
            switch (op->cell) {
            case TFL_RNN_RELU:
            case TFL_RNN_TANH:
                for (int j = 0; j < H; j++) {
                    float v = a[j] + q[j];
                    v = op->cell == TFL_RNN_TANH ? tanhf(v) : (v > 0.0f ? v : 0.0f);
                    a[j] = v;
                    h[j] = y[j] = v;
                }
                break;
            case TFL_RNN_LSTM: {
                float *c = cs + (int64_t)b * H;
                for (int j = 0; j < H; j++) {
                    float i = sigm(a[j] + q[j]);
                    float f = sigm(a[H + j] + q[H + j]);
                    float gg = tanhf(a[2 * H + j] + q[2 * H + j]);
                    float o = sigm(a[3 * H + j] + q[3 * H + j]);
                    float cn = f * c[j] + i * gg;
                    a[j] = i; a[H + j] = f; a[2 * H + j] = gg; a[3 * H + j] = o;
                    c[j] = e[j] = cn;
                    h[j] = y[j] = o * tanhf(cn);
                }
                break;
            }
            case TFL_RNN_GRU:
                for (int j = 0; j < H; j++) {
                    float r = sigm(a[j] + q[j]);
                    float z = sigm(a[H + j] + q[H + j]);
                    float nn = tanhf(a[2 * H + j] + r * q[2 * H + j]);
                    a[j] = r; a[H + j] = z; a[2 * H + j] = nn;
                    e[j] = q[2 * H + j];
                    h[j] = y[j] = (1.0f - z) * nn + z * h[j];
                }
                break;
            }
        }
    }
    (void)G;
}

static tfl_status rnn_forward(rnn_geom *g)
{
    const rnn_f32 *op = g->op;
    const int64_t BH = (int64_t)g->B * g->H, yw = (int64_t)g->dirs * g->H;
    float *hs = malloc(sizeof(float) * (size_t)BH);
    float *cs = malloc(sizeof(float) * (size_t)BH);
    float *gh = malloc(sizeof(float) * (size_t)(g->B * g->gh));
    if (!hs || !cs || !gh) {
        free(hs); free(cs); free(gh);
        return TFL_ERR_NOMEM;
    }
    for (int l = 0; l < g->L; l++) {
        if (l > 0 && g->drop)
            apply_dropout(g, l);
        for (int d = 0; d < g->dirs; d++) {
            const int p = l * g->dirs + d;
            if (op->hx)
                memcpy(hs, op->hx + p * BH, sizeof(float) * (size_t)BH);
            else
                memset(hs, 0, sizeof(float) * (size_t)BH);
            if (op->cx && op->cell == TFL_RNN_LSTM)
                memcpy(cs, op->cx + p * BH, sizeof(float) * (size_t)BH);
            else
                memset(cs, 0, sizeof(float) * (size_t)BH);
            fwd_pseudo_layer(g, l, d, hs, cs, gh);
            if (op->hy)
                memcpy(op->hy + p * BH, hs, sizeof(float) * (size_t)BH);
            if (op->cy && op->cell == TFL_RNN_LSTM)
                memcpy(op->cy + p * BH, cs, sizeof(float) * (size_t)BH);
        }
    }
    if (op->y)
        memcpy(op->y, res_y(g, g->L - 1), sizeof(float) * (size_t)(g->n * yw));
    free(hs); free(cs); free(gh);
    return TFL_OK;
}

/* ------------------------------------------------------ backward data */

/* One pseudo-layer: gate gradients into the reserve, dh / dc states to
 * dhs / dcs; dyin is the gradient of this layer's output. */
static void bwd_pseudo_layer(const rnn_geom *g, int l, int d, const float *dyin, float *dhs, float *dcs)
{
    const rnn_f32 *op = g->op;
    const int p = l * g->dirs + d, H = g->H;
    const int64_t GH = g->gh, yw = (int64_t)g->dirs * H, BH = (int64_t)g->B * H;
    int64_t wo[4];
    tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, H, p, wo);
    const float *R = op->w + wo[1];
    const float *A = res_act(g, p), *aux = res_aux(g, p), *Y = res_y(g, l);
    float *Dx = res_dx(g, p), *Dh = res_dh(g, p);
    const float *hx0 = op->hx ? op->hx + p * BH : NULL, *cx0 = op->cx ? op->cx + p * BH : NULL;

    for (int s = g->T - 1; s >= 0; s--) {
        const int t = d == 0 ? s : g->T - 1 - s;
        const int bs = op->batch_sizes[t];
        const int64_t r0 = g->off[t];
        for (int b = 0; b < bs; b++) {
            const int64_t r = r0 + b, pr = prev_row(g, t, b, d);
            const float *a = A + r * GH, *e = aux + r * H, *dyr = dyin + r * yw + (int64_t)d * H;
            float *dx = Dx + r * GH, *dh = Dh + r * GH;
            float *dhb = dhs + (int64_t)b * H, *dcb = dcs + (int64_t)b * H;
            switch (op->cell) {
            case TFL_RNN_RELU:
            case TFL_RNN_TANH:
                for (int j = 0; j < H; j++) {
                    float gy = dhb[j] + dyr[j], v = a[j];
                    float dp = op->cell == TFL_RNN_TANH ? gy * (1.0f - v * v) : (v > 0.0f ? gy : 0.0f);
                    dx[j] = dh[j] = dp;
                    dhb[j] = 0.0f;
                }
                break;
            case TFL_RNN_LSTM: {
                const float *cprev = pr >= 0 ? aux + pr * H : (cx0 ? cx0 + (int64_t)b * H : NULL);
                for (int j = 0; j < H; j++) {
                    float i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j];
                    float tc = tanhf(e[j]), cp = cprev ? cprev[j] : 0.0f;
                    float gy = dhb[j] + dyr[j];
                    float dc = dcb[j] + gy * o * (1.0f - tc * tc);
                    dx[j] = dc * gg * i * (1.0f - i);
                    dx[H + j] = dc * cp * f * (1.0f - f);
                    dx[2 * H + j] = dc * i * (1.0f - gg * gg);
                    dx[3 * H + j] = gy * tc * o * (1.0f - o);
                    for (int k = 0; k < 4; k++)
                        dh[k * H + j] = dx[k * H + j];
                    dcb[j] = dc * f;
                    dhb[j] = 0.0f;
                }
                break;
            }
            case TFL_RNN_GRU: {
                const float *hp = pr >= 0 ? Y + pr * yw + (int64_t)d * H : (hx0 ? hx0 + (int64_t)b * H : NULL);
                for (int j = 0; j < H; j++) {
                    float r_ = a[j], z = a[H + j], nn = a[2 * H + j], hn = e[j];
                    float hpv = hp ? hp[j] : 0.0f;
                    float gy = dhb[j] + dyr[j];
                    float dan = gy * (1.0f - z) * (1.0f - nn * nn);
                    float dz = gy * (hpv - nn) * z * (1.0f - z);
                    float dr = dan * hn * r_ * (1.0f - r_);
                    dx[j] = dh[j] = dr;
                    dx[H + j] = dh[H + j] = dz;
                    dx[2 * H + j] = dan;
                    dh[2 * H + j] = dan * r_;
                    dhb[j] = gy * z;
                }
                break;
            }
            }
        }
        /* dh_prev of the active rows += Dh R */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, bs, H, (int)GH,
                    1.0f, Dh + r0 * GH, (int)GH, R, H, 1.0f, dhs, H);
    }
}

static tfl_status rnn_backward_data(rnn_geom *g)
{
    const rnn_f32 *op = g->op;
    const int64_t BH = (int64_t)g->B * g->H, yw = (int64_t)g->dirs * g->H;
    float *dhs = malloc(sizeof(float) * (size_t)BH);
    float *dcs = malloc(sizeof(float) * (size_t)BH);
    float *buf[2] = { malloc(sizeof(float) * (size_t)(g->n * yw + 1)),
                      malloc(sizeof(float) * (size_t)(g->n * yw + 1)) };
    tfl_status st = TFL_OK;
    if (!dhs || !dcs || !buf[0] || !buf[1]) {
        st = TFL_ERR_NOMEM;
        goto out;
    }
    const float *dyin = op->dy;
    for (int l = g->L - 1; l >= 0; l--) {
        const int64_t in = in_width(g, l);
        float *dxout = l == 0 ? op->dx : buf[l & 1];
        for (int d = 0; d < g->dirs; d++) {
            const int p = l * g->dirs + d;
            if (op->dhy)
                memcpy(dhs, op->dhy + p * BH, sizeof(float) * (size_t)BH);
            else
                memset(dhs, 0, sizeof(float) * (size_t)BH);
            if (op->dcy && op->cell == TFL_RNN_LSTM)
                memcpy(dcs, op->dcy + p * BH, sizeof(float) * (size_t)BH);
            else
                memset(dcs, 0, sizeof(float) * (size_t)BH);
            bwd_pseudo_layer(g, l, d, dyin, dhs, dcs);
            if (op->dhx)
                memcpy(op->dhx + p * BH, dhs, sizeof(float) * (size_t)BH);
            if (op->dcx && op->cell == TFL_RNN_LSTM)
                memcpy(op->dcx + p * BH, dcs, sizeof(float) * (size_t)BH);
            /* gradient of the layer's input: (+)= Dx W */
            if (dxout && in > 0) {
                int64_t wo[4];
                tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, g->H, p, wo);
                if (g->n > 0)
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->n, (int)in,
                                (int)g->gh, 1.0f, res_dx(g, p), (int)g->gh, op->w + wo[0], (int)in,
                                d == 0 ? 0.0f : 1.0f, dxout, (int)in);
            }
        }
        /* through the dropout between layer l - 1 and l */
        if (l > 0 && g->drop) {
            const float *mask = res_drop_mask(g, l);
            for (int64_t i = 0; i < g->n * yw; i++)
                dxout[i] *= mask[i];
        }
        dyin = dxout;
    }
out:
    free(dhs); free(dcs); free(buf[0]); free(buf[1]);
    return st;
}

/* --------------------------------------------------- backward weights */

static tfl_status rnn_backward_weights(rnn_geom *g)
{
    const rnn_f32 *op = g->op;
    const int H = g->H;
    const int64_t GH = g->gh, yw = (int64_t)g->dirs * H, BH = (int64_t)g->B * H;
    float *hp = malloc(sizeof(float) * (size_t)(g->n * H + 1));
    if (!hp)
        return TFL_ERR_NOMEM;
    for (int l = 0; l < g->L; l++)
        for (int d = 0; d < g->dirs; d++) {
            const int p = l * g->dirs + d;
            const int64_t in = in_width(g, l);
            int64_t wo[4];
            tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, H, p, wo);
            const float *Dx = res_dx(g, p), *Dh = res_dh(g, p), *Y = res_y(g, l);
            /* the state each row started from */
            for (int t = 0; t < g->T; t++)
                for (int b = 0; b < op->batch_sizes[t]; b++) {
                    const int64_t pr = prev_row(g, t, b, d);
                    float *dst = hp + (g->off[t] + b) * H;
                    if (pr >= 0)
                        memcpy(dst, Y + pr * yw + (int64_t)d * H, sizeof(float) * (size_t)H);
                    else if (op->hx)
                        memcpy(dst, op->hx + p * BH + (int64_t)b * H, sizeof(float) * (size_t)H);
                    else
                        memset(dst, 0, sizeof(float) * (size_t)H);
                }
            if (g->n > 0) {
                if (in > 0)
                    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)GH, (int)in, (int)g->n,
                                1.0f, Dx, (int)GH, layer_in(g, l), (int)in, 1.0f, op->dw + wo[0], (int)in);
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)GH, H, (int)g->n,
                            1.0f, Dh, (int)GH, hp, H, 1.0f, op->dw + wo[1], H);
            }
            float *dbW = op->dw + wo[2], *dbR = op->dw + wo[3];
            for (int64_t r = 0; r < g->n; r++)
                for (int64_t k = 0; k < GH; k++) {
                    dbW[k] += Dx[r * GH + k];
                    dbR[k] += Dh[r * GH + k];
                }
        }
    free(hp);
    return TFL_OK;
}

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
    if (op->dtype != TFL_DT_F32 && op->dtype != TFL_DT_F16 && op->dtype != TFL_DT_BF16)
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

static tfl_status run_f32(const rnn_f32 *op)
{
    rnn_geom g;
    if (!geom_init(&g, op))
        return TFL_ERR_NOMEM;
    /* dropout acts between layers, in training (where there is a reserve) */
    g.drop = op->dropout > 0.0f && op->layers > 1 && op->reserve != NULL;
    const int64_t need = tfl_rnn_reserve_floats(op->cell, op->layers, op->dirs, op->hidden, g.n, g.drop);
    float *scratch = NULL;
    tfl_status st;
    if (op->reserve) {
        if ((uint64_t)op->reserve_bytes < (uint64_t)need * sizeof(float)) {
            free(g.off);
            return TFL_ERR_INVALID;
        }
        g.res = op->reserve;
    } else {
        /* inference without a reserve: keep the intermediates privately */
        scratch = malloc(sizeof(float) * (size_t)(need + 1));
        if (!scratch) {
            free(g.off);
            return TFL_ERR_NOMEM;
        }
        g.res = scratch;
    }
    switch (op->pass) {
    case TFL_RNN_FWD:         st = rnn_forward(&g); break;
    case TFL_RNN_BWD_DATA:    st = rnn_backward_data(&g); break;
    case TFL_RNN_BWD_WEIGHTS: st = rnn_backward_weights(&g); break;
    default:                  st = TFL_ERR_UNSUPPORTED; break;
    }
    free(scratch);
    free(g.off);
    return st;
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
    rnn_f32 f = {
        .pass = op->pass, .cell = op->cell, .layers = op->layers, .dirs = op->dirs,
        .input_size = op->input_size, .hidden = op->hidden, .seq_len = op->seq_len,
        .batch_sizes = op->batch_sizes, .reserve = op->reserve, .reserve_bytes = op->reserve_bytes,
        .dropout = op->dropout, .dropout_seed = op->dropout_seed, .dropout_offset = op->dropout_offset,
    };
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

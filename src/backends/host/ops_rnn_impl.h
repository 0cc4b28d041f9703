/*
 * ops_rnn_impl.h - the RNN passes of ops_rnn.c for one real type, included
 * once per type with RT (float or double), RN(name) (a name with the
 * type's suffix), RT_GEMM (cblas_sgemm / cblas_dgemm), RT_EXP and RT_TANH
 * defined.  float is the math of float32 / float16 / bfloat16 data,
 * double that of float64 data; the reserve holds RT elements.
 */
/* The op with RT data: what the passes below compute on.  float32 ops
 * point at their own buffers; float16 / bfloat16 ones at RT copies
 * (host_rnn converts in and out). */
typedef struct RN(rnnop) {
    tfl_rnn_pass pass;
    tfl_rnn_cell cell;
    int layers, dirs, input_size, hidden, seq_len;
    const int *batch_sizes;
    const RT *x, *hx, *cx, *w;
    RT *y, *hy, *cy;
    const RT *dy, *dhy, *dcy;
    RT *dx, *dhx, *dcx, *dw;
    RT *reserve;
    size_t reserve_bytes;
    RT dropout;
    uint64_t dropout_seed, dropout_offset;
} RN(rnnop);

/* Everything derived from the op that all passes share. */
typedef struct RN(geom) {
    const RN(rnnop) *op;
    int T, B, H, G, dirs, L;
    int64_t n, gh;               /* rows, G * H                           */
    int64_t *off;                /* [T + 1] first row of each step        */
    RT *res;                  /* reserve (op's or scratch)             */
    int drop;                    /* dropout between layers is applied     */
    int64_t per_pl;              /* reserve floats per pseudo-layer       */
} RN(geom);

static int RN(geom_init)(RN(geom) *g, const RN(rnnop) *op)
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
    /* the recurrent-side gate gradients differ from the input-side ones
     * only for GRU (its n gate); the others share one array */
    g->per_pl = g->n * ((op->cell == TFL_RNN_GRU ? 3 : 2) * g->gh + g->H);
    return 1;
}

/* Reserve sections of pseudo-layer p. */
static RT *RN(res_act)(const RN(geom) *g, int p) { return g->res + p * g->per_pl; }
static RT *RN(res_aux)(const RN(geom) *g, int p) { return RN(res_act)(g, p) + g->n * g->gh; }
static RT *RN(res_dx)(const RN(geom) *g, int p) { return RN(res_aux)(g, p) + g->n * g->H; }
static RT *RN(res_dh)(const RN(geom) *g, int p)
{
    return g->op->cell == TFL_RNN_GRU ? RN(res_dx)(g, p) + g->n * g->gh : RN(res_dx)(g, p);
}
/* Layer l's output, [n][dirs * H]. */
static RT *RN(res_y)(const RN(geom) *g, int l)
{
    return g->res + (int64_t)g->L * g->dirs * g->per_pl + (int64_t)l * g->n * g->dirs * g->H;
}

static int64_t RN(in_width)(const RN(geom) *g, int l)
{
    return l == 0 ? g->op->input_size : (int64_t)g->dirs * g->H;
}

/* With dropout: layer l's (l > 0) dropped input and its mask scales. */
static RT *RN(res_drop_in)(const RN(geom) *g, int l)
{
    return RN(res_y)(g, g->L) + (int64_t)(l - 1) * 2 * g->n * g->dirs * g->H;
}
static RT *RN(res_drop_mask)(const RN(geom) *g, int l)
{
    return RN(res_drop_in)(g, l) + g->n * g->dirs * g->H;
}

static const RT *RN(layer_in)(const RN(geom) *g, int l)
{
    if (l == 0)
        return g->op->x;
    return g->drop ? RN(res_drop_in)(g, l) : RN(res_y)(g, l - 1);
}

/* Layer l's dropped input and mask from layer l - 1's output. */
static void RN(apply_dropout)(const RN(geom) *g, int l)
{
    const RN(rnnop) *op = g->op;
    const int64_t m = g->n * g->dirs * g->H;
    const RT scale = 1.0f / (1.0f - op->dropout);
    const uint64_t key = mix64(mix64(op->dropout_seed) ^ op->dropout_offset) ^ ((uint64_t)l << 48);
    const RT *src = RN(res_y)(g, l - 1);
    RT *dst = RN(res_drop_in)(g, l), *mask = RN(res_drop_mask)(g, l);
    for (int64_t i = 0; i < m; i++) {
        /* 24 random bits -> [0, 1) */
        const RT u = (RT)(mix64(key + (uint64_t)i) >> 40) * (1.0f / 16777216.0f);
        mask[i] = u >= op->dropout ? scale : 0.0f;
        dst[i] = src[i] * mask[i];
    }
}

/* The row processed just before (t, b) in direction d, or -1 when (t, b)
 * is the sequence's first step (its state comes from hx / cx). */
static int64_t RN(prev_row)(const RN(geom) *g, int t, int b, int d)
{
    if (d == 0)
        return t > 0 ? g->off[t - 1] + b : -1;
    return (t + 1 < g->T && b < g->op->batch_sizes[t + 1]) ? g->off[t + 1] + b : -1;
}

static RT RN(sigm)(RT v) { return 1.0f / (1.0f + RT_EXP(-v)); }

/* ------------------------------------------------------------ forward */

static void RN(fwd_pseudo_layer)(const RN(geom) *g, int l, int d, RT *hs, RT *cs, RT *gh)
{
    const RN(rnnop) *op = g->op;
    const int p = l * g->dirs + d, H = g->H, G = g->G;
    const int64_t in = RN(in_width)(g, l), GH = g->gh, yw = (int64_t)g->dirs * H;
    int64_t wo[4];
    tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, H, p, wo);
    const RT *W = op->w + wo[0], *R = op->w + wo[1], *bW = op->w + wo[2], *bR = op->w + wo[3];
    RT *A = RN(res_act)(g, p), *aux = RN(res_aux)(g, p), *Y = RN(res_y)(g, l);

    /* input side of every step at once: A = X W^T + b_W */
    if (g->n > 0 && in > 0)
        RT_GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->n, (int)GH, (int)in,
                    1.0f, RN(layer_in)(g, l), (int)in, W, (int)in, 0.0f, A, (int)GH);
    else
        memset(A, 0, sizeof(RT) * (size_t)(g->n * GH));
    for (int64_t r = 0; r < g->n; r++)
        for (int64_t k = 0; k < GH; k++)
            A[r * GH + k] += bW[k];

    for (int s = 0; s < g->T; s++) {
        const int t = d == 0 ? s : g->T - 1 - s;
        const int bs = op->batch_sizes[t];
        const int64_t r0 = g->off[t];
        /* recurrent side of the active rows: gh = h R^T + b_R */
        for (int b = 0; b < bs; b++)
            memcpy(gh + (int64_t)b * GH, bR, sizeof(RT) * (size_t)GH);
        RT_GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, bs, (int)GH, H,
                    1.0f, hs, H, R, H, 1.0f, gh, (int)GH);
        for (int b = 0; b < bs; b++) {
            RT *a = A + (r0 + b) * GH, *q = gh + (int64_t)b * GH, *h = hs + (int64_t)b * H;
            RT *y = Y + (r0 + b) * yw + (int64_t)d * H, *e = aux + (r0 + b) * H;
            switch (op->cell) {
            case TFL_RNN_RELU:
            case TFL_RNN_TANH:
                for (int j = 0; j < H; j++) {
                    RT v = a[j] + q[j];
                    v = op->cell == TFL_RNN_TANH ? RT_TANH(v) : (v > 0.0f ? v : 0.0f);
                    a[j] = v;
                    h[j] = y[j] = v;
                }
                break;
            case TFL_RNN_LSTM: {
                RT *c = cs + (int64_t)b * H;
                for (int j = 0; j < H; j++) {
                    RT i = RN(sigm)(a[j] + q[j]);
                    RT f = RN(sigm)(a[H + j] + q[H + j]);
                    RT gg = RT_TANH(a[2 * H + j] + q[2 * H + j]);
                    RT o = RN(sigm)(a[3 * H + j] + q[3 * H + j]);
                    RT cn = f * c[j] + i * gg;
                    a[j] = i; a[H + j] = f; a[2 * H + j] = gg; a[3 * H + j] = o;
                    c[j] = e[j] = cn;
                    h[j] = y[j] = o * RT_TANH(cn);
                }
                break;
            }
            case TFL_RNN_GRU:
                for (int j = 0; j < H; j++) {
                    RT r = RN(sigm)(a[j] + q[j]);
                    RT z = RN(sigm)(a[H + j] + q[H + j]);
                    RT nn = RT_TANH(a[2 * H + j] + r * q[2 * H + j]);
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

static tfl_status RN(rnn_forward)(RN(geom) *g)
{
    const RN(rnnop) *op = g->op;
    const int64_t BH = (int64_t)g->B * g->H, yw = (int64_t)g->dirs * g->H;
    RT *hs = malloc(sizeof(RT) * (size_t)BH);
    RT *cs = malloc(sizeof(RT) * (size_t)BH);
    RT *gh = malloc(sizeof(RT) * (size_t)(g->B * g->gh));
    if (!hs || !cs || !gh) {
        free(hs); free(cs); free(gh);
        return TFL_ERR_NOMEM;
    }
    for (int l = 0; l < g->L; l++) {
        if (l > 0 && g->drop)
            RN(apply_dropout)(g, l);
        for (int d = 0; d < g->dirs; d++) {
            const int p = l * g->dirs + d;
            if (op->hx)
                memcpy(hs, op->hx + p * BH, sizeof(RT) * (size_t)BH);
            else
                memset(hs, 0, sizeof(RT) * (size_t)BH);
            if (op->cx && op->cell == TFL_RNN_LSTM)
                memcpy(cs, op->cx + p * BH, sizeof(RT) * (size_t)BH);
            else
                memset(cs, 0, sizeof(RT) * (size_t)BH);
            RN(fwd_pseudo_layer)(g, l, d, hs, cs, gh);
            if (op->hy)
                memcpy(op->hy + p * BH, hs, sizeof(RT) * (size_t)BH);
            if (op->cy && op->cell == TFL_RNN_LSTM)
                memcpy(op->cy + p * BH, cs, sizeof(RT) * (size_t)BH);
        }
    }
    if (op->y)
        memcpy(op->y, RN(res_y)(g, g->L - 1), sizeof(RT) * (size_t)(g->n * yw));
    free(hs); free(cs); free(gh);
    return TFL_OK;
}

/* ------------------------------------------------------ backward data */

/* One pseudo-layer: gate gradients into the reserve, dh / dc states to
 * dhs / dcs; dyin is the gradient of this layer's output. */
static void RN(bwd_pseudo_layer)(const RN(geom) *g, int l, int d, const RT *dyin, RT *dhs, RT *dcs)
{
    const RN(rnnop) *op = g->op;
    const int p = l * g->dirs + d, H = g->H;
    const int64_t GH = g->gh, yw = (int64_t)g->dirs * H, BH = (int64_t)g->B * H;
    int64_t wo[4];
    tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, H, p, wo);
    const RT *R = op->w + wo[1];
    const RT *A = RN(res_act)(g, p), *aux = RN(res_aux)(g, p), *Y = RN(res_y)(g, l);
    RT *Dx = RN(res_dx)(g, p), *Dh = RN(res_dh)(g, p);
    const RT *hx0 = op->hx ? op->hx + p * BH : NULL, *cx0 = op->cx ? op->cx + p * BH : NULL;

    for (int s = g->T - 1; s >= 0; s--) {
        const int t = d == 0 ? s : g->T - 1 - s;
        const int bs = op->batch_sizes[t];
        const int64_t r0 = g->off[t];
        for (int b = 0; b < bs; b++) {
            const int64_t r = r0 + b, pr = RN(prev_row)(g, t, b, d);
            const RT *a = A + r * GH, *e = aux + r * H, *dyr = dyin + r * yw + (int64_t)d * H;
            RT *dx = Dx + r * GH, *dh = Dh + r * GH;
            RT *dhb = dhs + (int64_t)b * H, *dcb = dcs + (int64_t)b * H;
            switch (op->cell) {
            case TFL_RNN_RELU:
            case TFL_RNN_TANH:
                for (int j = 0; j < H; j++) {
                    RT gy = dhb[j] + dyr[j], v = a[j];
                    RT dp = op->cell == TFL_RNN_TANH ? gy * (1.0f - v * v) : (v > 0.0f ? gy : 0.0f);
                    dx[j] = dh[j] = dp;
                    dhb[j] = 0.0f;
                }
                break;
            case TFL_RNN_LSTM: {
                const RT *cprev = pr >= 0 ? aux + pr * H : (cx0 ? cx0 + (int64_t)b * H : NULL);
                for (int j = 0; j < H; j++) {
                    RT i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j];
                    RT tc = RT_TANH(e[j]), cp = cprev ? cprev[j] : 0.0f;
                    RT gy = dhb[j] + dyr[j];
                    RT dc = dcb[j] + gy * o * (1.0f - tc * tc);
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
                const RT *hp = pr >= 0 ? Y + pr * yw + (int64_t)d * H : (hx0 ? hx0 + (int64_t)b * H : NULL);
                for (int j = 0; j < H; j++) {
                    RT r_ = a[j], z = a[H + j], nn = a[2 * H + j], hn = e[j];
                    RT hpv = hp ? hp[j] : 0.0f;
                    RT gy = dhb[j] + dyr[j];
                    RT dan = gy * (1.0f - z) * (1.0f - nn * nn);
                    RT dz = gy * (hpv - nn) * z * (1.0f - z);
                    RT dr = dan * hn * r_ * (1.0f - r_);
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
        RT_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, bs, H, (int)GH,
                    1.0f, Dh + r0 * GH, (int)GH, R, H, 1.0f, dhs, H);
    }
}

static tfl_status RN(rnn_backward_data)(RN(geom) *g)
{
    const RN(rnnop) *op = g->op;
    const int64_t BH = (int64_t)g->B * g->H, yw = (int64_t)g->dirs * g->H;
    RT *dhs = malloc(sizeof(RT) * (size_t)BH);
    RT *dcs = malloc(sizeof(RT) * (size_t)BH);
    RT *buf[2] = { malloc(sizeof(RT) * (size_t)(g->n * yw + 1)),
                      malloc(sizeof(RT) * (size_t)(g->n * yw + 1)) };
    tfl_status st = TFL_OK;
    if (!dhs || !dcs || !buf[0] || !buf[1]) {
        st = TFL_ERR_NOMEM;
        goto out;
    }
    const RT *dyin = op->dy;
    for (int l = g->L - 1; l >= 0; l--) {
        const int64_t in = RN(in_width)(g, l);
        RT *dxout = l == 0 ? op->dx : buf[l & 1];
        for (int d = 0; d < g->dirs; d++) {
            const int p = l * g->dirs + d;
            if (op->dhy)
                memcpy(dhs, op->dhy + p * BH, sizeof(RT) * (size_t)BH);
            else
                memset(dhs, 0, sizeof(RT) * (size_t)BH);
            if (op->dcy && op->cell == TFL_RNN_LSTM)
                memcpy(dcs, op->dcy + p * BH, sizeof(RT) * (size_t)BH);
            else
                memset(dcs, 0, sizeof(RT) * (size_t)BH);
            RN(bwd_pseudo_layer)(g, l, d, dyin, dhs, dcs);
            if (op->dhx)
                memcpy(op->dhx + p * BH, dhs, sizeof(RT) * (size_t)BH);
            if (op->dcx && op->cell == TFL_RNN_LSTM)
                memcpy(op->dcx + p * BH, dcs, sizeof(RT) * (size_t)BH);
            /* gradient of the layer's input: (+)= Dx W */
            if (dxout && in > 0) {
                int64_t wo[4];
                tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, g->H, p, wo);
                if (g->n > 0)
                    RT_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->n, (int)in,
                                (int)g->gh, 1.0f, RN(res_dx)(g, p), (int)g->gh, op->w + wo[0], (int)in,
                                d == 0 ? 0.0f : 1.0f, dxout, (int)in);
            }
        }
        /* through the dropout between layer l - 1 and l */
        if (l > 0 && g->drop) {
            const RT *mask = RN(res_drop_mask)(g, l);
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

static tfl_status RN(rnn_backward_weights)(RN(geom) *g)
{
    const RN(rnnop) *op = g->op;
    const int H = g->H;
    const int64_t GH = g->gh, yw = (int64_t)g->dirs * H, BH = (int64_t)g->B * H;
    RT *hp = malloc(sizeof(RT) * (size_t)(g->n * H + 1));
    if (!hp)
        return TFL_ERR_NOMEM;
    for (int l = 0; l < g->L; l++)
        for (int d = 0; d < g->dirs; d++) {
            const int p = l * g->dirs + d;
            const int64_t in = RN(in_width)(g, l);
            int64_t wo[4];
            tfl_rnn_weight_offsets(op->cell, g->L, g->dirs, op->input_size, H, p, wo);
            const RT *Dx = RN(res_dx)(g, p), *Dh = RN(res_dh)(g, p), *Y = RN(res_y)(g, l);
            /* the state each row started from */
            for (int t = 0; t < g->T; t++)
                for (int b = 0; b < op->batch_sizes[t]; b++) {
                    const int64_t pr = RN(prev_row)(g, t, b, d);
                    RT *dst = hp + (g->off[t] + b) * H;
                    if (pr >= 0)
                        memcpy(dst, Y + pr * yw + (int64_t)d * H, sizeof(RT) * (size_t)H);
                    else if (op->hx)
                        memcpy(dst, op->hx + p * BH + (int64_t)b * H, sizeof(RT) * (size_t)H);
                    else
                        memset(dst, 0, sizeof(RT) * (size_t)H);
                }
            if (g->n > 0) {
                if (in > 0)
                    RT_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)GH, (int)in, (int)g->n,
                                1.0f, Dx, (int)GH, RN(layer_in)(g, l), (int)in, 1.0f, op->dw + wo[0], (int)in);
                RT_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)GH, H, (int)g->n,
                            1.0f, Dh, (int)GH, hp, H, 1.0f, op->dw + wo[1], H);
            }
            RT *dbW = op->dw + wo[2], *dbR = op->dw + wo[3];
            for (int64_t r = 0; r < g->n; r++)
                for (int64_t k = 0; k < GH; k++) {
                    dbW[k] += Dx[r * GH + k];
                    dbR[k] += Dh[r * GH + k];
                }
        }
    free(hp);
    return TFL_OK;
}


static tfl_status RN(run)(const RN(rnnop) *op)
{
    RN(geom) g;
    if (!RN(geom_init)(&g, op))
        return TFL_ERR_NOMEM;
    /* dropout acts between layers, in training (where there is a reserve) */
    g.drop = op->dropout > 0.0f && op->layers > 1 && op->reserve != NULL;
    const int64_t need = tfl_rnn_reserve_floats(op->cell, op->layers, op->dirs, op->hidden, g.n, g.drop);
    RT *scratch = NULL;
    tfl_status st;
    if (op->reserve) {
        if ((uint64_t)op->reserve_bytes < (uint64_t)need * sizeof(RT)) {
            free(g.off);
            return TFL_ERR_INVALID;
        }
        g.res = op->reserve;
    } else {
        /* inference without a reserve: keep the intermediates privately */
        scratch = malloc(sizeof(RT) * (size_t)(need + 1));
        if (!scratch) {
            free(g.off);
            return TFL_ERR_NOMEM;
        }
        g.res = scratch;
    }
    switch (op->pass) {
    case TFL_RNN_FWD:         st = RN(rnn_forward)(&g); break;
    case TFL_RNN_BWD_DATA:    st = RN(rnn_backward_data)(&g); break;
    case TFL_RNN_BWD_WEIGHTS: st = RN(rnn_backward_weights)(&g); break;
    default:                  st = TFL_ERR_UNSUPPORTED; break;
    }
    free(scratch);
    free(g.off);
    return st;
}


/*
 * ops_conv_impl.h - the convolution's type-generic core, included by
 * ops_conv.c once per computation type: CV_T (float or double), CV_FN(name)
 * (the instance's function names), CV_GEMM (cblas_sgemm / cblas_dgemm),
 * CV_NATIVE (the dtype stored as CV_T, copied without conversion) and
 * CV_LOAD / CV_STORE (element of an operand's dtype as CV_T).
 */
/* t (strided, op dtype) -> dense CV_T in N,C,D,H,W order. */
static void CV_FN(cv_gather)(const tfl_conv_tensor *t, int sp, tfl_dtype dt, CV_T *restrict dst)
{
    int64_t d[5], s[5];
    cv_dims5(t, sp, d, s);
    int64_t w = d[4];
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++)
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t y = 0; y < d[3]; y++) {
                    int64_t base = a * s[0] + b * s[1] + z * s[2] + y * s[3];
                    if (dt == CV_NATIVE && s[4] == 1) {
                        memcpy(dst, (const CV_T *)t->data + base, (size_t)w * sizeof(CV_T));
                    } else {
                        for (int64_t x = 0; x < w; x++)
                            dst[x] = CV_LOAD(dt, t->data, base + x * s[4]);
                    }
                    dst += w;
                }
}

/* out = alpha * r + beta * out (+ bias[channel]) (+ z_alpha * z), then
 * max(., 0) if relu, over t's layout (beta 0: out not read; bias / z
 * NULL: none; z dense like r). */
static void CV_FN(cv_scatter)(const tfl_conv_tensor *t, int sp, tfl_dtype dt, const CV_T *restrict r,
                              CV_T alpha, CV_T beta, const void *bias, const CV_T *restrict z,
                              CV_T z_alpha, int relu)
{
    int64_t d[5], s[5];
    cv_dims5(t, sp, d, s);
    int64_t w = d[4];
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++) {
            const CV_T bv = bias ? CV_LOAD(dt, bias, b) : (CV_T)0;
            for (int64_t i0 = 0; i0 < d[2]; i0++)
                for (int64_t i1 = 0; i1 < d[3]; i1++) {
                    int64_t base = a * s[0] + b * s[1] + i0 * s[2] + i1 * s[3];
                    if (dt == CV_NATIVE && s[4] == 1 && !z && !relu) {
                        CV_T *restrict o = (CV_T *)t->data + base;
                        if (beta == (CV_T)0)
                            for (int64_t x = 0; x < w; x++)
                                o[x] = alpha * r[x] + bv;
                        else
                            for (int64_t x = 0; x < w; x++)
                                o[x] = alpha * r[x] + beta * o[x] + bv;
                    } else {
                        for (int64_t x = 0; x < w; x++) {
                            int64_t i = base + x * s[4];
                            CV_T v = alpha * r[x];
                            if (beta != (CV_T)0)
                                v += beta * CV_LOAD(dt, t->data, i);
                            v += bv;
                            if (z)
                                v += z_alpha * z[x];
                            if (relu && !(v > (CV_T)0))
                                v = v != v ? v : (CV_T)0;   /* NaN stays NaN */
                            CV_STORE(dt, t->data, i, v);
                        }
                    }
                    r += w;
                    if (z)
                        z += w;
                }
        }
}

/* col[(c * kk + tap) * op + pixel] = x[c][input of (pixel, tap)], 0 in
 * the padding; x holds cg channels of one image. */
static void CV_FN(cv_im2col)(const cv_geom *g, const CV_T *restrict x, CV_T *restrict col)
{
    const int64_t w = g->out[2], s2 = g->str[2];
    for (int64_t c = 0; c < g->cg; c++) {
        const CV_T *xc = x + c * g->ip;
        for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
            for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
                for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                    int64_t lo, hi, off;
                    cv_range(g, 2, t2, &lo, &hi, &off);
                    for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                        int64_t i0 = cv_coord(g, 0, o0, t0);
                        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                            int64_t i1 = cv_coord(g, 1, o1, t1);
                            CV_T *restrict dst = col;
                            col += w;
                            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1]) {
                                memset(dst, 0, (size_t)w * sizeof(CV_T));
                                continue;
                            }
                            /* o2 in [lo, hi) reads row[o2 * s2 + off], inside the row */
                            const CV_T *restrict row = xc + (i0 * g->in[1] + i1) * g->in[2];
                            for (int64_t o2 = 0; o2 < lo; o2++)
                                dst[o2] = 0;
                            if (s2 == 1 && hi > lo)
                                memcpy(dst + lo, row + lo + off, (size_t)(hi - lo) * sizeof(CV_T));
                            else
                                for (int64_t o2 = lo; o2 < hi; o2++)
                                    dst[o2] = row[o2 * s2 + off];
                            for (int64_t o2 = hi; o2 < w; o2++)
                                dst[o2] = 0;
                        }
                    }
                }
    }
}

/* The adjoint of cv_im2col: x[c][input] += col[...] (x pre-zeroed). */
static void CV_FN(cv_col2im)(const cv_geom *g, const CV_T *restrict col, CV_T *restrict x)
{
    const int64_t w = g->out[2], s2 = g->str[2];
    for (int64_t c = 0; c < g->cg; c++) {
        CV_T *xc = x + c * g->ip;
        for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
            for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
                for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                    int64_t lo, hi, off;
                    cv_range(g, 2, t2, &lo, &hi, &off);
                    for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                        int64_t i0 = cv_coord(g, 0, o0, t0);
                        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                            int64_t i1 = cv_coord(g, 1, o1, t1);
                            const CV_T *restrict src = col;
                            col += w;
                            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1])
                                continue;
                            CV_T *restrict row = xc + (i0 * g->in[1] + i1) * g->in[2];
                            if (s2 == 1)
                                for (int64_t o2 = lo; o2 < hi; o2++)
                                    row[o2 + off] += src[o2];
                            else
                                for (int64_t o2 = lo; o2 < hi; o2++)
                                    row[o2 * s2 + off] += src[o2];
                        }
                    }
                }
    }
}

/* ---------------------------------------- small groups, in parallel */

/* Depthwise-like convolutions (few channels per group, small kernels)
 * make GEMMs too small for OpenBLAS and im2col matrices kk times the
 * input: these direct loops run them instead, one (output channel, input
 * channel) plane pair at a time (planes stay in cache), the inner loop
 * over a contiguous output row, with the images split over the cores. */

/* Calls body(xr, yr, lo, hi, off, s2, wi) for every valid (tap, output
 * row) of one plane pair: xr an input row, yr an output row, outputs
 * [lo, hi) of the row read xr[o2 * s2 + off], wi the tap's index. */
#define CV_TAPS(g, xplane, yplane, body)                                               \
    for (int64_t t0 = 0; t0 < (g)->ker[0]; t0++)                                        \
        for (int64_t t1 = 0; t1 < (g)->ker[1]; t1++)                                    \
            for (int64_t t2 = 0; t2 < (g)->ker[2]; t2++) {                              \
                int64_t lo, hi, off, wi = (t0 * (g)->ker[1] + t1) * (g)->ker[2] + t2;   \
                const int64_t s2 = (g)->str[2];                                         \
                cv_range((g), 2, t2, &lo, &hi, &off);                                   \
                if (lo >= hi)                                                           \
                    continue;                                                           \
                for (int64_t o0 = 0; o0 < (g)->out[0]; o0++) {                          \
                    int64_t i0 = cv_coord((g), 0, o0, t0);                              \
                    if (i0 < 0 || i0 >= (g)->in[0])                                     \
                        continue;                                                       \
                    for (int64_t o1 = 0; o1 < (g)->out[1]; o1++) {                      \
                        int64_t i1 = cv_coord((g), 1, o1, t1);                          \
                        if (i1 < 0 || i1 >= (g)->in[1])                                 \
                            continue;                                                   \
                        CV_T *xr = (CV_T *)(xplane) + (i0 * (g)->in[1] + i1) * (g)->in[2]; \
                        CV_T *yr = (CV_T *)(yplane) + (o0 * (g)->out[1] + o1) * (g)->out[2]; \
                        body                                                            \
                    }                                                                   \
                }                                                                       \
            }

/* y += w (*) x for one plane pair. */
static void CV_FN(cv_direct_fwd)(const cv_geom *g, const CV_T *x, const CV_T *w, CV_T *y)
{
    CV_TAPS(g, x, y, {
        const CV_T wv = w[wi];
        if (s2 == 1)
            for (int64_t o2 = lo; o2 < hi; o2++)
                yr[o2] += wv * xr[o2 + off];
        else
            for (int64_t o2 = lo; o2 < hi; o2++)
                yr[o2] += wv * xr[o2 * s2 + off];
    })
}

/* dx += w (*)^T dy for one plane pair. */
static void CV_FN(cv_direct_bwd_data)(const cv_geom *g, CV_T *dx, const CV_T *w, const CV_T *dy)
{
    CV_TAPS(g, dx, dy, {
        const CV_T wv = w[wi];
        if (s2 == 1)
            for (int64_t o2 = lo; o2 < hi; o2++)
                xr[o2 + off] += wv * yr[o2];
        else
            for (int64_t o2 = lo; o2 < hi; o2++)
                xr[o2 * s2 + off] += wv * yr[o2];
    })
}

/* dw += x (*) dy for one plane pair. */
static void CV_FN(cv_direct_bwd_filter)(const cv_geom *g, const CV_T *x, CV_T *dw, const CV_T *dy)
{
    CV_TAPS(g, x, dy, {
        CV_T acc = 0;
        if (s2 == 1)
            for (int64_t o2 = lo; o2 < hi; o2++)
                acc += yr[o2] * xr[o2 + off];
        else
            for (int64_t o2 = lo; o2 < hi; o2++)
                acc += yr[o2] * xr[o2 * s2 + off];
        dw[wi] += acc;
    })
}

/* Input plane <-> padded buffer: dir 0 copies x in (the rest zero), dir 1
 * adds the buffer's interior to x. */
static void CV_FN(cv_flat_io)(const cv_geom *g, const cv_flat *f, CV_T *x, CV_T *xp, int dir)
{
    if (dir == 0)
        memset(xp, 0, (size_t)f->size * sizeof(CV_T));
    for (int64_t i0 = 0; i0 < g->in[0]; i0++) {
        int64_t p0 = i0 + g->pad[0];
        if (p0 >= f->e[0])
            break;
        for (int64_t i1 = 0; i1 < g->in[1]; i1++) {
            int64_t p1 = i1 + g->pad[1];
            if (p1 >= f->e[1])
                break;
            int64_t w = g->in[2];
            if (g->pad[2] + w > f->e[2])
                w = f->e[2] - g->pad[2];
            CV_T *restrict xr = x + (i0 * g->in[1] + i1) * g->in[2];
            CV_T *restrict pr = xp + p0 * f->pitch0 + p1 * f->pitch1 + g->pad[2];
            if (dir == 0)
                memcpy(pr, xr, (size_t)(w > 0 ? w : 0) * sizeof(CV_T));
            else
                for (int64_t i2 = 0; i2 < w; i2++)
                    xr[i2] += pr[i2];
        }
    }
}

/* Output plane <-> pitched buffer: dir 0 copies y in (gaps zero), dir 1
 * copies the valid part out to y. */
static void CV_FN(cv_flat_out)(const cv_geom *g, const cv_flat *f, CV_T *y, CV_T *yf, int dir)
{
    if (dir == 0)
        memset(yf, 0, (size_t)f->len * sizeof(CV_T));
    for (int64_t o0 = 0; o0 < g->out[0]; o0++)
        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
            CV_T *yr = y + (o0 * g->out[1] + o1) * g->out[2];
            CV_T *fr = yf + o0 * f->pitch0 + o1 * f->pitch1;
            if (dir == 0)
                memcpy(fr, yr, (size_t)g->out[2] * sizeof(CV_T));
            else
                memcpy(yr, fr, (size_t)g->out[2] * sizeof(CV_T));
        }
}

/* One plane pair on the padded layout: xp the padded input (or its
 * gradient), yf the pitched output (or its gradient), w the taps. */
static void CV_FN(cv_flat_pair)(const cv_geom *g, const cv_flat *f, tfl_conv_mode mode,
                                CV_T *restrict xp, CV_T *restrict yf, const CV_T *w, CV_T *dw)
{
    const int64_t len = f->len;
    for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
        for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
            for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                int64_t wi = (t0 * g->ker[1] + t1) * g->ker[2] + t2;
                CV_T *restrict xs = xp + cv_flat_shift(g, f, t0, t1, t2);
                if (mode == TFL_CONV_FWD) {
                    const CV_T wv = w[wi];
                    for (int64_t j = 0; j < len; j++)
                        yf[j] += wv * xs[j];
                } else if (mode == TFL_CONV_BWD_DATA) {
                    const CV_T wv = w[wi];
                    for (int64_t j = 0; j < len; j++)
                        xs[j] += wv * yf[j];
                } else {
                    /* 16 partial sums: a dot product the compiler can
                     * vectorise without reassociating one accumulator */
                    CV_T part[16] = {0};
                    int64_t j = 0;
                    for (; j + 16 <= len; j += 16)
                        for (int l = 0; l < 16; l++)
                            part[l] += yf[j + l] * xs[j + l];
                    CV_T acc = 0;
                    for (; j < len; j++)
                        acc += yf[j] * xs[j];
                    for (int l = 0; l < 16; l++)
                        acc += part[l];
                    dw[wi] += acc;
                }
            }
}

typedef struct CV_FN(cv_job) {
    const cv_geom *g;
    tfl_conv_mode mode;
    const CV_T *x, *w, *dy;      /* inputs of the mode (dense)          */
    CV_T *out;                   /* y (fwd) or dx (bwd data), dense      */
    CV_T *acc;                   /* bwd filter: parts x (k x rows)       */
    int parts;
} CV_FN(cv_job);

static void CV_FN(cv_part)(void *ctx, int part)
{
    const CV_FN(cv_job) *j = ctx;
    const cv_geom *g = j->g;
    int64_t rows = g->cg * g->kk;
    int64_t n0 = g->n * part / j->parts, n1 = g->n * (part + 1) / j->parts;
    CV_T *acc = j->acc ? j->acc + (int64_t)part * g->k * rows : NULL;
    if (acc)
        memset(acc, 0, (size_t)(g->k * rows) * sizeof(CV_T));
    if (j->mode == TFL_CONV_FWD)
        memset(j->out + n0 * g->k * g->op, 0, (size_t)((n1 - n0) * g->k * g->op) * sizeof(CV_T));
    if (j->mode == TFL_CONV_BWD_DATA)
        memset(j->out + n0 * g->c * g->ip, 0, (size_t)((n1 - n0) * g->c * g->ip) * sizeof(CV_T));
    /* unit strides: the padded layout (scratch per part; without it, or
     * with strides, the row loops) */
    cv_flat f = {0};   /* read only when xp is set, i.e. cv_flat_ok filled it */
    CV_T *xp = NULL, *yf = NULL;
    if (cv_flat_ok(g, &f)) {
        xp = malloc((size_t)f.size * sizeof(CV_T));
        yf = malloc((size_t)f.len * sizeof(CV_T));
        if (!xp || !yf) {
            free(xp);
            free(yf);
            xp = yf = NULL;
        }
    }
    for (int64_t n = n0; n < n1; n++)
        for (int64_t k = 0; k < g->k; k++) {
            int64_t gi = k / g->kg;
            CV_T *yk = (j->mode == TFL_CONV_FWD ? j->out : (CV_T *)j->dy) + (n * g->k + k) * g->op;
            if (xp && j->mode == TFL_CONV_FWD)
                memset(yf, 0, (size_t)f.len * sizeof(CV_T));
            else if (xp)
                CV_FN(cv_flat_out)(g, &f, yk, yf, 0);
            for (int64_t c = 0; c < g->cg; c++) {
                int64_t xo = (n * g->c + gi * g->cg + c) * g->ip;
                int64_t wo = (k * g->cg + c) * g->kk;
                CV_T *xc = (j->mode == TFL_CONV_BWD_DATA ? j->out : (CV_T *)j->x) + xo;
                if (xp) {
                    if (j->mode == TFL_CONV_BWD_DATA)
                        memset(xp, 0, (size_t)f.size * sizeof(CV_T));
                    else
                        CV_FN(cv_flat_io)(g, &f, xc, xp, 0);
                    CV_FN(cv_flat_pair)(g, &f, j->mode, xp, yf, j->w ? j->w + wo : NULL,
                                        acc ? acc + wo : NULL);
                    if (j->mode == TFL_CONV_BWD_DATA)
                        CV_FN(cv_flat_io)(g, &f, xc, xp, 1);
                    continue;
                }
                switch (j->mode) {
                case TFL_CONV_FWD:
                    CV_FN(cv_direct_fwd)(g, xc, j->w + wo, yk);
                    break;
                case TFL_CONV_BWD_DATA:
                    CV_FN(cv_direct_bwd_data)(g, xc, j->w + wo, yk);
                    break;
                case TFL_CONV_BWD_FILTER:
                    CV_FN(cv_direct_bwd_filter)(g, xc, acc + wo, yk);
                    break;
                }
            }
            if (xp && j->mode == TFL_CONV_FWD)
                CV_FN(cv_flat_out)(g, &f, yk, yf, 1);
        }
    free(xp);
    free(yf);
}

/* Run a mode with the loops above; 0 if out of memory. */
static int CV_FN(cv_small)(const cv_geom *g, tfl_conv_mode mode, CV_T *x, CV_T *w, CV_T *dy, CV_T *out)
{
    int parts = host_par_threads();
    if (parts > g->n)
        parts = (int)(g->n > 0 ? g->n : 1);
    int64_t nw = g->k * g->cg * g->kk;
    CV_FN(cv_job) j = {g, mode, x, w, dy, out, NULL, parts};
    if (mode == TFL_CONV_BWD_FILTER) {
        j.acc = malloc((size_t)(parts * nw) * sizeof(CV_T));
        if (!j.acc)
            return 0;
    }
    host_parallel(parts, CV_FN(cv_part), &j);
    if (mode == TFL_CONV_BWD_FILTER) {
        /* out is dw: the sum of the parts' accumulators */
        memcpy(out, j.acc, (size_t)nw * sizeof(CV_T));
        for (int p = 1; p < parts; p++)
            for (int64_t i = 0; i < nw; i++)
                out[i] += j.acc[p * nw + i];
        free(j.acc);
    }
    return 1;
}

/* Small groups go to cv_small: few channels per group (depthwise: 1
 * and 1, or a small multiplier) and a small kernel. */
static int CV_FN(cv_is_small)(const cv_geom *g)
{
    if (host_conv_force_path)
        return host_conv_force_path == 2;
    return g->kg <= 4 && g->cg <= 4 && g->kk <= 49;
}

/* ------------------------------------------------------------ the op */

static void CV_FN(cv_forward)(const cv_geom *g, const CV_T *x, const CV_T *w, CV_T *y, CV_T *col)
{
    int ident = cv_identity_cols(g);
    int64_t rows = g->cg * g->kk;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->g; gi++) {
            const CV_T *xg = x + (n * g->c + gi * g->cg) * g->ip;
            const CV_T *cols = xg;
            if (!ident) {
                CV_FN(cv_im2col)(g, xg, col);
                cols = col;
            }
            CV_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)g->kg, (int)g->op,
                        (int)rows, (CV_T)1, w + gi * g->kg * rows, (int)rows, cols, (int)g->op,
                        (CV_T)0, y + (n * g->k + gi * g->kg) * g->op, (int)g->op);
        }
}

static void CV_FN(cv_backward_data)(const cv_geom *g, CV_T *dx, const CV_T *w, const CV_T *dy, CV_T *col)
{
    int ident = cv_identity_cols(g);
    int64_t rows = g->cg * g->kk;
    memset(dx, 0, (size_t)(g->n * g->c * g->ip) * sizeof(CV_T));
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->g; gi++) {
            CV_T *dxg = dx + (n * g->c + gi * g->cg) * g->ip;
            CV_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rows, (int)g->op,
                        (int)g->kg, (CV_T)1, w + gi * g->kg * rows, (int)rows,
                        dy + (n * g->k + gi * g->kg) * g->op, (int)g->op,
                        (CV_T)0, ident ? dxg : col, (int)g->op);
            if (!ident)
                CV_FN(cv_col2im)(g, col, dxg);
        }
}

static void CV_FN(cv_backward_filter)(const cv_geom *g, const CV_T *x, CV_T *dw, const CV_T *dy, CV_T *col)
{
    int ident = cv_identity_cols(g);
    int64_t rows = g->cg * g->kk;
    memset(dw, 0, (size_t)(g->k * rows) * sizeof(CV_T));
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->g; gi++) {
            const CV_T *xg = x + (n * g->c + gi * g->cg) * g->ip;
            const CV_T *cols = xg;
            if (!ident) {
                CV_FN(cv_im2col)(g, xg, col);
                cols = col;
            }
            CV_GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)g->kg, (int)rows,
                        (int)g->op, (CV_T)1, dy + (n * g->k + gi * g->kg) * g->op, (int)g->op,
                        cols, (int)g->op, (CV_T)1, dw + gi * g->kg * rows, (int)rows);
        }
}

/* Run op (geometry g) in CV_T: gather the inputs, compute, scatter the
 * output.  An operand already dense in CV_T is used where it lies (no
 * copy), and so is the output when nothing is to be added to it
 * (alpha 1, beta 0, no bias). */
static tfl_status CV_FN(cv_run)(const tfl_conv_op *op, const cv_geom *gp, int nd)
{
    cv_geom g = *gp;
    const tfl_conv_tensor *ts[3] = {&op->x, &op->w, &op->y};
    int out_i = op->mode == TFL_CONV_FWD ? 2 : op->mode == TFL_CONV_BWD_DATA ? 0 : 1;
    CV_T alpha = (CV_T)op->alpha, beta = (CV_T)op->beta;
    CV_T *buf[3] = {NULL, NULL, NULL}, *own[3] = {NULL, NULL, NULL}, *zb = NULL;
    tfl_status st = TFL_OK;
    /* the fused epilogue (forward only): z gathered densely like y */
    int fused = op->mode == TFL_CONV_FWD && (op->z.data || op->relu);
    if (op->mode == TFL_CONV_FWD && op->z.data) {
        int64_t n = cv_elems(&op->y, nd);
        zb = malloc((size_t)(n ? n : 1) * sizeof(CV_T));
        if (!zb) {
            tfl_error("conv: out of host memory for a %lld-element operand", (long long)n);
            return TFL_ERR_NOMEM;
        }
        CV_FN(cv_gather)(&op->z, op->spatial, op->dtype, zb);
    }
    for (int i = 0; i < 3; i++) {
        int in_place = cv_dense(ts[i], nd) && op->dtype == CV_NATIVE &&
                       (i != out_i || (alpha == 1 && beta == 0 && !op->bias && !fused));
        if (in_place) {
            buf[i] = ts[i]->data;
            continue;
        }
        int64_t n = cv_elems(ts[i], nd);
        buf[i] = own[i] = malloc((size_t)(n ? n : 1) * sizeof(CV_T));
        if (!own[i]) {
            tfl_error("conv: out of host memory for a %lld-element operand", (long long)n);
            st = TFL_ERR_NOMEM;
            goto out;
        }
        if (i != out_i)
            CV_FN(cv_gather)(ts[i], op->spatial, op->dtype, own[i]);
    }
    CV_T *x = buf[0], *w = buf[1], *y = buf[2];
    if (!CV_FN(cv_is_small)(&g) || !CV_FN(cv_small)(&g, op->mode, x, w, y, buf[out_i])) {
        /* im2col + GEMM (also when the direct loops had no memory) */
        int64_t ncol = g.cg * g.kk * g.op;
        CV_T *col = malloc((size_t)(ncol ? ncol : 1) * sizeof(CV_T));
        if (!col) {
            tfl_error("conv: out of host memory for a %lld-element im2col matrix", (long long)ncol);
            st = TFL_ERR_NOMEM;
            goto out;
        }
        switch (op->mode) {
        case TFL_CONV_FWD: CV_FN(cv_forward)(&g, x, w, y, col); break;
        case TFL_CONV_BWD_DATA: CV_FN(cv_backward_data)(&g, x, w, y, col); break;
        case TFL_CONV_BWD_FILTER: CV_FN(cv_backward_filter)(&g, x, w, y, col); break;
        }
        free(col);
    }
    if (own[out_i])
        CV_FN(cv_scatter)(ts[out_i], op->spatial, op->dtype, own[out_i], alpha, beta,
                          op->mode == TFL_CONV_FWD ? op->bias : NULL, zb,
                          (CV_T)op->z_alpha, fused && op->relu);
out:
    for (int i = 0; i < 3; i++)
        free(own[i]);
    free(zb);
    return st;
}

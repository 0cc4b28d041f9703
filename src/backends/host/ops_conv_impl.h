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

/* out = alpha * r + beta * out (+ bias[channel]) over t's layout (beta 0:
 * out not read; bias NULL: none). */
static void CV_FN(cv_scatter)(const tfl_conv_tensor *t, int sp, tfl_dtype dt, const CV_T *restrict r,
                       CV_T alpha, CV_T beta, const void *bias)
{
    int64_t d[5], s[5];
    cv_dims5(t, sp, d, s);
    int64_t w = d[4];
    for (int64_t a = 0; a < d[0]; a++)
        for (int64_t b = 0; b < d[1]; b++) {
            const CV_T bv = bias ? CV_LOAD(dt, bias, b) : (CV_T)0;
            for (int64_t z = 0; z < d[2]; z++)
                for (int64_t y = 0; y < d[3]; y++) {
                    int64_t base = a * s[0] + b * s[1] + z * s[2] + y * s[3];
                    if (dt == CV_NATIVE && s[4] == 1) {
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
                            CV_STORE(dt, t->data, i, v + bv);
                        }
                    }
                    r += w;
                }
        }
}

/* col[(c * kk + tap) * op + pixel] = x[c][input of (pixel, tap)], 0 in
 * the padding; x holds cg channels of one image. */
static void CV_FN(cv_im2col)(const cv_geom *g, const CV_T *restrict x, CV_T *restrict col)
{
    for (int64_t c = 0; c < g->cg; c++) {
        const CV_T *xc = x + c * g->ip;
        for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
            for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
                for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                    for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                        int64_t i0 = cv_coord(g, 0, o0, t0);
                        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                            int64_t i1 = cv_coord(g, 1, o1, t1);
                            CV_T *restrict dst = col;
                            col += g->out[2];
                            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1]) {
                                memset(dst, 0, (size_t)g->out[2] * sizeof(CV_T));
                                continue;
                            }
                            const CV_T *row = xc + (i0 * g->in[1] + i1) * g->in[2];
                            for (int64_t o2 = 0; o2 < g->out[2]; o2++) {
                                int64_t i2 = cv_coord(g, 2, o2, t2);
                                dst[o2] = (i2 >= 0 && i2 < g->in[2]) ? row[i2] : (CV_T)0;
                            }
                        }
                    }
                }
    }
}

/* The adjoint of cv_im2col: x[c][input] += col[...] (x pre-zeroed). */
static void CV_FN(cv_col2im)(const cv_geom *g, const CV_T *restrict col, CV_T *restrict x)
{
    for (int64_t c = 0; c < g->cg; c++) {
        CV_T *xc = x + c * g->ip;
        for (int64_t t0 = 0; t0 < g->ker[0]; t0++)
            for (int64_t t1 = 0; t1 < g->ker[1]; t1++)
                for (int64_t t2 = 0; t2 < g->ker[2]; t2++) {
                    for (int64_t o0 = 0; o0 < g->out[0]; o0++) {
                        int64_t i0 = cv_coord(g, 0, o0, t0);
                        for (int64_t o1 = 0; o1 < g->out[1]; o1++) {
                            int64_t i1 = cv_coord(g, 1, o1, t1);
                            const CV_T *src = col;
                            col += g->out[2];
                            if (i0 < 0 || i0 >= g->in[0] || i1 < 0 || i1 >= g->in[1])
                                continue;
                            CV_T *row = xc + (i0 * g->in[1] + i1) * g->in[2];
                            for (int64_t o2 = 0; o2 < g->out[2]; o2++) {
                                int64_t i2 = cv_coord(g, 2, o2, t2);
                                if (i2 >= 0 && i2 < g->in[2])
                                    row[i2] += src[o2];
                            }
                        }
                    }
                }
    }
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

/* Run op (geometry g) in CV_T: gather, compute, scatter. */
static tfl_status CV_FN(cv_run)(const tfl_conv_op *op, const cv_geom *gp, int nd)
{
    cv_geom g = *gp;
    int64_t nx = cv_elems(&op->x, nd), nw = cv_elems(&op->w, nd), ny = cv_elems(&op->y, nd);
    int64_t ncol = g.cg * g.kk * g.op;
    CV_T *x = malloc((size_t)(nx ? nx : 1) * sizeof(CV_T));
    CV_T *w = malloc((size_t)(nw ? nw : 1) * sizeof(CV_T));
    CV_T *y = malloc((size_t)(ny ? ny : 1) * sizeof(CV_T));
    CV_T *col = malloc((size_t)(ncol ? ncol : 1) * sizeof(CV_T));
    tfl_status st = TFL_OK;
    if (!x || !w || !y || !col) {
        tfl_error("conv: out of host memory for %lld-element buffers", (long long)ncol);
        st = TFL_ERR_NOMEM;
        goto out;
    }
    CV_T alpha = (CV_T)op->alpha, beta = (CV_T)op->beta;
    switch (op->mode) {
    case TFL_CONV_FWD:
        CV_FN(cv_gather)(&op->x, op->spatial, op->dtype, x);
        CV_FN(cv_gather)(&op->w, op->spatial, op->dtype, w);
        CV_FN(cv_forward)(&g, x, w, y, col);
        CV_FN(cv_scatter)(&op->y, op->spatial, op->dtype, y, alpha, beta, op->bias);
        break;
    case TFL_CONV_BWD_DATA:
        CV_FN(cv_gather)(&op->w, op->spatial, op->dtype, w);
        CV_FN(cv_gather)(&op->y, op->spatial, op->dtype, y);
        CV_FN(cv_backward_data)(&g, x, w, y, col);
        CV_FN(cv_scatter)(&op->x, op->spatial, op->dtype, x, alpha, beta, NULL);
        break;
    case TFL_CONV_BWD_FILTER:
        CV_FN(cv_gather)(&op->x, op->spatial, op->dtype, x);
        CV_FN(cv_gather)(&op->y, op->spatial, op->dtype, y);
        CV_FN(cv_backward_filter)(&g, x, w, y, col);
        CV_FN(cv_scatter)(&op->w, op->spatial, op->dtype, w, alpha, beta, NULL);
        break;
    }
out:
    free(x);
    free(w);
    free(y);
    free(col);
    return st;
}

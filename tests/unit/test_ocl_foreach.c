/*
 * test_ocl_foreach.c - TFL_OP_FOREACH on the OpenCL backend (ocl_foreach.c)
 * against the host backend (tfl_host_backend.op_run) on the same inputs.
 *
 * Covers, over lists of odd-sized tensors (several chunks, a partial last
 * chunk, blocks past a tensor's end, launches that list only some chunks)
 * in float, half and bfloat16: zero, every unary function, every binary
 * function with a scalar (plain, per tensor, a device scalar tensor times
 * alpha) and with a list (alpha), addcmul/addcdiv, both lerps, the norm
 * partials and finish (L1, L2 with and without the root, Linf, L0, NaN,
 * half/bfloat16 outputs), GradScaler's unscale (inf/NaN found or not) and
 * scale update (backoff, growth, growth to inf), fused Adam/AdamW (weight
 * decay, amsgrad, maximize, lr tensor, grad scale, found_inf set and not,
 * steps where OpenCL's pow and glibc's powf round apart) and fused SGD
 * (momentum, dampening, nesterov, first step, weight decay, maximize, lr
 * tensor, grad scale, found_inf).  Tensors in separate allocations (more
 * buffers than one launch takes: the launch splits) and in one arena.
 *
 * Results must be the host's bit for bit, except the unary transcendental
 * functions and pow (OpenCL built-ins): within a few ulp.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_harness.h"

#define NT 24        /* tensors at most */
#define F32 TFL_DT_F32
#define F16 TFL_DT_F16
#define BF16 TFL_DT_BF16

static uint32_t lcg = 88172645u;

static float frand(void)     /* [-2, 2) */
{
    lcg = lcg * 1103515245u + 12345u;
    return (float)((lcg >> 8) & 0xffff) / 65536.0f * 4.0f - 2.0f + (float)(lcg & 0xff) * 1e-6f;
}

static int ran;

/* ------------------------------------------------------------ elements */

static float getf(tfl_dtype t, const void *p, int64_t i)
{
    return (float)ocl_h_ld(t, p, i);
}

static void putf(tfl_dtype t, void *p, int64_t i, float v)
{
    ocl_h_st(t, p, i, v);
}

/* Elements agree: the same bits (NaN: any NaN), or within tol ulp-ish. */
static int agree(tfl_dtype t, const void *want, const void *got, int64_t n, int approx,
                 const char *name, const char *what)
{
    const size_t es = tfl_dtype_size(t);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if (memcmp((const char *)want + i * es, (const char *)got + i * es, es) == 0)
            continue;
        float w = getf(t, want, i), g = getf(t, got, i);
        if (isnan(w) && isnan(g))
            continue;
        if (approx && !isnan(w) && !isnan(g)) {
            double tol = (t == F32 ? 4e-6 : t == F16 ? 2e-3 : 1.6e-2) * fmax(fabs(w), 1e-3);
            if (w == g || fabs((double)w - g) <= tol)
                continue;
        }
        if (bad++ < 3)
            fprintf(stderr, "%s: %s[%lld]: host %.9g (%a) opencl %.9g (%a)\n", name, what,
                    (long long)i, w, w, g, g);
    }
    OCL_H_CHECK(bad == 0);
    return bad == 0;
}

/* ------------------------------------------------------------ operands */

/* A device scalar (float or int32) with its host twin. */
typedef struct dscal {
    float h;
    void *d;
} dscal;

static dscal mkscal(float v)
{
    dscal s = { v, ocl_h_alloc(4) };
    ocl_h_put(s.d, &s.h, 4);
    return s;
}

static void check_scal(const dscal *s, const char *name, const char *what)
{
    float got;
    ocl_h_get(&got, s->d, 4);
    agree(F32, &s->h, &got, 1, 0, name, what);
}

/* nt tensors of depth lists: host and device copies.  shared: every list
 * carved from one allocation (one buffer), else one allocation each. */
typedef struct fset {
    int nt, depth, shared;
    tfl_dtype dt;
    int64_t numel[NT];
    unsigned char *h[NT][TFL_FOREACH_MAX_LISTS];
    void *d[NT][TFL_FOREACH_MAX_LISTS];
    void *arena;
    size_t arena_bytes;
    dscal step[NT];
} fset;

static size_t round_up(size_t n)
{
    return (n + 255) / 256 * 256;
}

static void fs_make(fset *fs, tfl_dtype dt, int depth, const int64_t *numel, int nt, int shared)
{
    memset(fs, 0, sizeof *fs);
    fs->nt = nt;
    fs->depth = depth;
    fs->dt = dt;
    fs->shared = shared;
    const size_t es = tfl_dtype_size(dt);
    if (shared) {
        for (int t = 0; t < nt; t++)
            fs->arena_bytes += (size_t)depth * round_up((size_t)numel[t] * es);
        fs->arena = ocl_h_alloc(fs->arena_bytes);
    }
    size_t at = 0;
    for (int t = 0; t < nt; t++) {
        fs->numel[t] = numel[t];
        size_t bytes = (size_t)numel[t] * es;
        for (int k = 0; k < depth; k++) {
            fs->h[t][k] = malloc(bytes ? bytes : 1);
            for (int64_t i = 0; i < numel[t]; i++)
                putf(dt, fs->h[t][k], i, frand());
            if (shared) {
                fs->d[t][k] = (char *)fs->arena + at;
                at += round_up(bytes);
            } else {
                fs->d[t][k] = ocl_h_alloc(bytes);
            }
        }
        fs->step[t].d = NULL;
    }
}

/* list k of every tensor: |x| (Adam's second moments) */
static void fs_abs(fset *fs, int k)
{
    for (int t = 0; t < fs->nt; t++)
        for (int64_t i = 0; i < fs->numel[t]; i++)
            putf(fs->dt, fs->h[t][k], i, fabsf(getf(fs->dt, fs->h[t][k], i)));
}

static void fs_upload(fset *fs)
{
    const size_t es = tfl_dtype_size(fs->dt);
    for (int t = 0; t < fs->nt; t++)
        for (int k = 0; k < fs->depth; k++)
            ocl_h_put(fs->d[t][k], fs->h[t][k], (size_t)fs->numel[t] * es);
}

static void fs_free(fset *fs)
{
    const size_t es = tfl_dtype_size(fs->dt);
    for (int t = 0; t < fs->nt; t++) {
        for (int k = 0; k < fs->depth; k++) {
            free(fs->h[t][k]);
            if (!fs->shared)
                ocl_h_free(fs->d[t][k], (size_t)fs->numel[t] * es);
        }
        if (fs->step[t].d)
            ocl_h_free(fs->step[t].d, 4);
    }
    if (fs->shared)
        ocl_h_free(fs->arena, fs->arena_bytes);
}

/* Host and device tensor tables of fs. */
static void fs_tables(const fset *fs, tfl_foreach_tensor *ht, tfl_foreach_tensor *dt)
{
    memset(ht, 0, sizeof *ht * (size_t)fs->nt);
    memset(dt, 0, sizeof *dt * (size_t)fs->nt);
    for (int t = 0; t < fs->nt; t++) {
        for (int k = 0; k < fs->depth; k++) {
            ht[t].ptr[k] = fs->h[t][k];
            dt[t].ptr[k] = fs->d[t][k];
        }
        ht[t].numel = dt[t].numel = fs->numel[t];
        ht[t].scalar = dt[t].scalar = 0.25f * (float)(t + 1) - 1.0f;
        if (fs->step[t].d) {
            ht[t].step = &fs->step[t].h;
            dt[t].step = fs->step[t].d;
        }
    }
}

/* Every chunk of every tensor, plus one block past the end of tensor 0;
 * skip_odd: only the even blocks (the rest must stay untouched). */
static int all_blocks(const fset *fs, int64_t chunk, tfl_foreach_block *b, int cap, int skip_odd)
{
    int n = 0, i = 0;
    for (int t = 0; t < fs->nt; t++)
        for (int64_t c = 0; c * chunk < fs->numel[t] || (c == 0 && fs->numel[t] == 0); c++, i++)
            if (n < cap && !(skip_odd && i % 2))
                b[n++] = (tfl_foreach_block){ t, (int32_t)c };
    if (n < cap)
        b[n++] = (tfl_foreach_block){ 0, (int32_t)(fs->numel[0] / chunk + 3) };
    return n;
}

/* An op of kind over nt tensors of depth lists of dt, in nb blocks. */
static tfl_foreach_op fe_op(tfl_foreach_kind kind, tfl_dtype dt, int depth, int64_t chunk,
                            int nt, int nb, const tfl_foreach_block *blocks)
{
    tfl_foreach_op f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    f.dtype = dt;
    f.depth = depth;
    f.chunk_size = chunk;
    f.ntensors = nt;
    f.nblocks = nb;
    f.blocks = blocks;
    return f;
}

/* Run hop (host pointers) and dop (device pointers) and compare fs's lists. */
static void run_pair(const char *name, tfl_foreach_op *hf, tfl_foreach_op *df, fset *fs,
                     int approx)
{
    tfl_op hop, dop;
    memset(&hop, 0, sizeof hop);
    memset(&dop, 0, sizeof dop);
    hop.kind = dop.kind = TFL_OP_FOREACH;
    hop.name = dop.name = "foreach";
    hop.u.foreach = *hf;
    dop.u.foreach = *df;
    if (fs)
        fs_upload(fs);
    if (!ocl_h_native(name, &dop) || !ocl_h_run_both(name, &hop, &dop))
        return;
    ran++;
    if (!fs)
        return;
    const size_t es = tfl_dtype_size(fs->dt);
    for (int t = 0; t < fs->nt; t++)
        for (int k = 0; k < fs->depth; k++) {
            size_t bytes = (size_t)fs->numel[t] * es;
            unsigned char *got = malloc(bytes ? bytes : 1);
            ocl_h_get(got, fs->d[t][k], bytes);
            char what[48];
            snprintf(what, sizeof what, "tensor %d list %d", t, k);
            agree(fs->dt, fs->h[t][k], got, fs->numel[t], approx, name, what);
            free(got);
        }
}

/* ------------------------------------------------------------ kinds */

static const int64_t sizes_a[] = { 1, 7, 1000, 4099, 2500, 17 };
#define NSA (int)(sizeof sizes_a / sizeof sizes_a[0])
#define CHUNK 1024

typedef struct ecase {
    tfl_foreach_kind kind;
    tfl_foreach_fn fn;
    int depth, out_list;
    int scalar_mode;   /* 0 scalar, 1 per tensor, 2 device scalar tensor * alpha */
} ecase;

static int transcendental(tfl_foreach_fn fn)
{
    return fn == TFL_FOREACH_FN_POW || fn == TFL_FOREACH_FN_REVPOW ||
           (fn >= TFL_FOREACH_FN_EXP && fn <= TFL_FOREACH_FN_ERF);
}

static void elem_case(const ecase *c, tfl_dtype dt, int shared, int skip_odd)
{
    char name[128];
    snprintf(name, sizeof name, "kind %d fn %d depth %d out %d scalar %d dt %d%s%s", c->kind,
             c->fn, c->depth, c->out_list, c->scalar_mode, dt, shared ? " shared" : "",
             skip_odd ? " half-launch" : "");
    fset fs;
    fs_make(&fs, dt, c->depth, sizes_a, NSA, shared);
    /* lerp weights in [0, 1] */
    if (c->kind == TFL_FOREACH_LERP_LIST)
        for (int t = 0; t < fs.nt; t++)
            for (int64_t i = 0; i < fs.numel[t]; i++)
                putf(dt, fs.h[t][2], i, fabsf(getf(dt, fs.h[t][2], i)) / 2.0f);
    tfl_foreach_tensor ht[NT], dtab[NT];
    fs_tables(&fs, ht, dtab);
    tfl_foreach_block blocks[256];
    int nb = all_blocks(&fs, CHUNK, blocks, 256, skip_odd);
    tfl_foreach_op f = fe_op(c->kind, dt, c->depth, CHUNK, fs.nt, nb, blocks);
    f.fn = c->fn;
    f.out_list = c->out_list;
    f.scalar = 0.7f;
    f.alpha = c->kind == TFL_FOREACH_BINARY_LIST ? -1.25f : 0.5f;
    f.per_tensor_scalar = c->scalar_mode == 1;
    dscal sc = { 0, NULL };
    uint16_t sc16 = tfl_f32_to_bf16(1.5f);
    void *sc_dev = NULL;
    tfl_foreach_op hf = f, df = f;
    hf.tensors = ht;
    df.tensors = dtab;
    if (c->scalar_mode == 2) {
        if (dt == BF16) {
            /* a bfloat16 scalar tensor */
            sc_dev = ocl_h_dev(&sc16, 2);
            hf.scalar_ptr = (const float *)&sc16;
            df.scalar_ptr = sc_dev;
            hf.scalar_ptr_dtype = df.scalar_ptr_dtype = BF16;
        } else {
            sc = mkscal(1.5f);
            hf.scalar_ptr = &sc.h;
            df.scalar_ptr = sc.d;
        }
    }
    run_pair(name, &hf, &df, &fs, transcendental(c->fn));
    if (sc.d)
        ocl_h_free(sc.d, 4);
    if (sc_dev)
        ocl_h_free(sc_dev, 2);
    fs_free(&fs);
}

static void test_elementwise(void)
{
    ecase cs[128];
    int n = 0;
    cs[n++] = (ecase){ TFL_FOREACH_ZERO, 0, 1, 0, 0 };
    for (int fn = TFL_FOREACH_FN_SQRT; fn <= TFL_FOREACH_FN_TRUNC; fn++)
        cs[n++] = (ecase){ TFL_FOREACH_UNARY, fn, 2, 1, 0 };
    for (int fn = TFL_FOREACH_FN_ADD; fn <= TFL_FOREACH_FN_REVPOW; fn++) {
        cs[n++] = (ecase){ TFL_FOREACH_BINARY_SCALAR, fn, 1, 0, fn % 3 };
        cs[n++] = (ecase){ TFL_FOREACH_BINARY_LIST, fn, 3, 2, 0 };
    }
    cs[n++] = (ecase){ TFL_FOREACH_BINARY_LIST, TFL_FOREACH_FN_ADD, 2, 0, 0 };
    cs[n++] = (ecase){ TFL_FOREACH_POINTWISE, TFL_FOREACH_FN_MUL, 3, 0, 0 };
    cs[n++] = (ecase){ TFL_FOREACH_POINTWISE, TFL_FOREACH_FN_DIV, 4, 3, 1 };
    cs[n++] = (ecase){ TFL_FOREACH_POINTWISE, TFL_FOREACH_FN_MUL, 3, 0, 2 };
    cs[n++] = (ecase){ TFL_FOREACH_LERP_SCALAR, 0, 2, 0, 0 };
    cs[n++] = (ecase){ TFL_FOREACH_LERP_SCALAR, 0, 3, 2, 1 };
    cs[n++] = (ecase){ TFL_FOREACH_LERP_LIST, 0, 3, 0, 0 };
    static const tfl_dtype dts[] = { F32, F16, BF16 };
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 3; d++)
            elem_case(&cs[i], dts[d], (i + d) % 2, 0);
    /* a launch listing every other chunk: the rest stays as it was */
    elem_case(&(ecase){ TFL_FOREACH_BINARY_LIST, TFL_FOREACH_FN_ADD, 3, 2, 0 }, F32, 0, 1);
    elem_case(&(ecase){ TFL_FOREACH_UNARY, TFL_FOREACH_FN_SQRT, 1, 0, 0 }, BF16, 1, 1);
}

/* ------------------------------------------------------------ unscale */

static void test_unscale(void)
{
    for (int bad = 0; bad < 3; bad++) {
        for (int d = 0; d < 3; d++) {
            tfl_dtype dt = d == 0 ? F32 : d == 1 ? F16 : BF16;
            fset fs;
            fs_make(&fs, dt, 1, sizes_a, NSA, d % 2);
            if (bad == 1)
                putf(dt, fs.h[3][0], 4000, INFINITY);
            if (bad == 2)
                putf(dt, fs.h[2][0], 5, NAN);
            tfl_foreach_tensor ht[NT], dtab[NT];
            fs_tables(&fs, ht, dtab);
            tfl_foreach_block blocks[256];
            int nb = all_blocks(&fs, CHUNK, blocks, 256, 0);
            dscal found = mkscal(0.0f), inv = mkscal(bad == 2 ? 1.0f : 1.0f / 1024);
            tfl_foreach_op f = fe_op(TFL_FOREACH_UNSCALE, dt, 1, CHUNK, fs.nt, nb, blocks);
            tfl_foreach_op hf = f, df = f;
            hf.tensors = ht;
            df.tensors = dtab;
            hf.found_inf_out = &found.h;
            df.found_inf_out = found.d;
            hf.inv_scale = &inv.h;
            df.inv_scale = inv.d;
            char name[64];
            snprintf(name, sizeof name, "unscale bad %d dt %d", bad, dt);
            run_pair(name, &hf, &df, &fs, 0);
            check_scal(&found, name, "found_inf");
            OCL_H_CHECK(found.h == (bad ? 1.0f : 0.0f));
            ocl_h_free(found.d, 4);
            ocl_h_free(inv.d, 4);
            fs_free(&fs);
        }
    }
}

/* ------------------------------------------------------------ norms */

static void norm_case(tfl_foreach_norm norm, tfl_dtype dt, tfl_dtype odt, int root, int nan)
{
    char name[96];
    snprintf(name, sizeof name, "norm %d dt %d out %d root %d nan %d", norm, dt, odt, root, nan);
    fset fs;
    fs_make(&fs, dt, 1, sizes_a, NSA, 0);
    if (nan)
        putf(dt, fs.h[4][0], 2000, NAN);
    for (int64_t i = 0; i < fs.numel[3]; i += 3)
        putf(dt, fs.h[3][0], i, 0.0f);          /* zeros for L0 */
    tfl_foreach_tensor ht[NT], dtab[NT];
    fs_tables(&fs, ht, dtab);
    tfl_foreach_block blocks[256];
    int nb = all_blocks(&fs, CHUNK, blocks, 256, 0);
    const int max_chunks = 5, first = 1, ntot = first + fs.nt;
    float *hp = calloc((size_t)ntot * max_chunks, 4);
    void *dp = ocl_h_dev(hp, (size_t)ntot * max_chunks * 4);
    tfl_foreach_op f = fe_op(TFL_FOREACH_NORM_PARTIAL, dt, 1, CHUNK, fs.nt, nb, blocks);
    f.norm = norm;
    f.max_chunks = max_chunks;
    f.first_index = first;
    tfl_foreach_op hf = f, df = f;
    hf.tensors = ht;
    df.tensors = dtab;
    hf.partials = hp;
    df.partials = dp;
    run_pair(name, &hf, &df, &fs, 0);
    float *got = malloc((size_t)ntot * max_chunks * 4);
    ocl_h_get(got, dp, (size_t)ntot * max_chunks * 4);
    agree(F32, hp, got, (int64_t)ntot * max_chunks, 0, name, "partials");

    /* finish, over the host's partials on both sides */
    ocl_h_put(dp, hp, (size_t)ntot * max_chunks * 4);
    const size_t oes = tfl_dtype_size(odt);
    void *hout[NT], *dout[NT];
    unsigned char hbuf[NT][4];
    for (int t = 0; t < ntot; t++) {
        hout[t] = hbuf[t];
        dout[t] = ocl_h_alloc(oes);
    }
    memset(&f, 0, sizeof f);
    f.kind = TFL_FOREACH_NORM_FINISH;
    f.dtype = dt;
    f.depth = 1;
    f.chunk_size = CHUNK;
    f.norm = norm;
    f.max_chunks = max_chunks;
    f.apply_root = root;
    f.nfinish = ntot;
    f.out_dtype = odt;
    hf = f;
    df = f;
    hf.partials = hp;
    df.partials = dp;
    hf.finish_out = hout;
    df.finish_out = dout;
    char fname[128];
    snprintf(fname, sizeof fname, "%s finish", name);
    run_pair(fname, &hf, &df, NULL, 0);
    for (int t = 0; t < ntot; t++) {
        unsigned char g[4];
        ocl_h_get(g, dout[t], oes);
        agree(odt, hbuf[t], g, 1, 0, fname, "norm");
        ocl_h_free(dout[t], oes);
    }
    free(got);
    free(hp);
    ocl_h_free(dp, (size_t)ntot * max_chunks * 4);
    fs_free(&fs);
}

static void test_norms(void)
{
    static const tfl_dtype dts[] = { F32, F16, BF16 };
    for (int n = TFL_FOREACH_NORM_L1; n <= TFL_FOREACH_NORM_L0; n++)
        for (int d = 0; d < 3; d++) {
            norm_case((tfl_foreach_norm)n, dts[d], dts[(d + n) % 3], n == 2, 0);
            norm_case((tfl_foreach_norm)n, dts[d], F32, 0, 1);
        }
    norm_case(TFL_FOREACH_NORM_L2, F32, F32, 1, 0);
    norm_case(TFL_FOREACH_NORM_L2, F32, F16, 0, 0);
}

/* ------------------------------------------------------------ scale */

static void test_update_scale(void)
{
    static const struct { float scale, found; int32_t tracker, interval; double growth; } cs[] = {
        { 65536.0f, 1.0f, 7, 2000, 2.0 },           /* backoff */
        { 65536.0f, 0.0f, 7, 2000, 2.0 },           /* count   */
        { 65536.0f, 0.0f, 1999, 2000, 2.0 },        /* grow    */
        { 3e38f, 0.0f, 4, 5, 2.0 },                 /* grows to inf: kept */
        { 1000.3f, 0.0f, 0, 1, 1.0000001 },         /* rounding of the double product */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        dscal scale = mkscal(cs[i].scale), found = mkscal(cs[i].found);
        int32_t htr = cs[i].tracker;
        void *dtr = ocl_h_dev(&htr, 4);
        tfl_foreach_op f;
        memset(&f, 0, sizeof f);
        f.kind = TFL_FOREACH_UPDATE_SCALE;
        f.growth_factor = cs[i].growth;
        f.backoff_factor = 0.5000001;
        f.growth_interval = cs[i].interval;
        tfl_foreach_op hf = f, df = f;
        hf.scale = &scale.h;
        df.scale = scale.d;
        hf.found_inf = &found.h;
        df.found_inf = found.d;
        hf.growth_tracker = &htr;
        df.growth_tracker = dtr;
        char name[48];
        snprintf(name, sizeof name, "update_scale %zu", i);
        run_pair(name, &hf, &df, NULL, 0);
        check_scal(&scale, name, "scale");
        int32_t got;
        ocl_h_get(&got, dtr, 4);
        OCL_H_CHECK(got == htr);
        ocl_h_free(scale.d, 4);
        ocl_h_free(found.d, 4);
        ocl_h_free(dtr, 4);
    }
}

/* ------------------------------------------------------------ optimizers */

typedef struct optcase {
    int adamw, amsgrad, maximize, lr_tensor, gscale;
    double wd;
    float found;        /* < 0: no found_inf tensor */
    /* SGD */
    int depth, nesterov, first;
    double momentum, dampening;
} optcase;

/* steps: at 3606 (and 2958 for beta1 = 0.999) pow rounded from double
 * and glibc's powf give different bias corrections for beta 0.999; at
 * 685 and 873 the powers themselves differ (the corrections do not) */
static const float steps[] = { 1, 3606, 873, 10, 2958, 1000, 685, 5, 100, 3, 4, 6 };

static void opt_case(tfl_foreach_kind kind, const optcase *c, tfl_dtype dt, int shared, int nt,
                     const int64_t *sizes, int64_t chunk)
{
    char name[160];
    snprintf(name, sizeof name,
             "%s dt %d adamw %d ams %d max %d lr_t %d gs %d wd %g found %g depth %d nest %d "
             "first %d mom %g damp %g%s nt %d", kind == TFL_FOREACH_ADAM ? "adam" : "sgd", dt,
             c->adamw, c->amsgrad, c->maximize, c->lr_tensor, c->gscale, c->wd,
             (double)c->found, c->depth, c->nesterov, c->first, c->momentum, c->dampening,
             shared ? " shared" : "", nt);
    int depth = kind == TFL_FOREACH_ADAM ? (c->amsgrad ? 5 : 4) : c->depth;
    fset fs;
    fs_make(&fs, dt, depth, sizes, nt, shared);
    if (kind == TFL_FOREACH_ADAM) {
        fs_abs(&fs, 3);
        if (c->amsgrad)
            fs_abs(&fs, 4);
        for (int t = 0; t < nt; t++)
            fs.step[t] = mkscal(steps[t % (int)(sizeof steps / sizeof steps[0])]);
    }
    tfl_foreach_tensor ht[NT], dtab[NT];
    fs_tables(&fs, ht, dtab);
    tfl_foreach_block blocks[512];
    int nb = all_blocks(&fs, chunk, blocks, 512, 0);
    dscal lr = mkscal(2e-3f), gs = mkscal(512.0f), found = mkscal(c->found);
    tfl_foreach_op f = fe_op(kind, dt, depth, chunk, nt, nb, blocks);
    f.adamw = c->adamw;
    f.amsgrad = c->amsgrad;
    f.maximize = c->maximize;
    f.lr = 1e-3;
    f.beta1 = c->amsgrad && c->maximize ? 0.999 : 0.9;
    f.beta2 = 0.999;
    f.weight_decay = c->wd;
    f.eps = 1e-8;
    f.momentum = c->momentum;
    f.dampening = c->dampening;
    f.nesterov = c->nesterov;
    f.is_first_step = c->first;
    tfl_foreach_op hf = f, df = f;
    hf.tensors = ht;
    df.tensors = dtab;
    if (c->lr_tensor) {
        hf.lr_ptr = &lr.h;
        df.lr_ptr = lr.d;
    }
    if (c->gscale) {
        hf.grad_scale = &gs.h;
        df.grad_scale = gs.d;
    }
    if (c->found >= 0) {
        hf.found_inf = &found.h;
        df.found_inf = found.d;
    }
    run_pair(name, &hf, &df, &fs, 0);
    ocl_h_free(lr.d, 4);
    ocl_h_free(gs.d, 4);
    ocl_h_free(found.d, 4);
    fs_free(&fs);
}

static void test_adam(void)
{
    int n = 0;
    for (int v = 0; v < 64; v++) {
        optcase c;
        memset(&c, 0, sizeof c);
        c.adamw = v & 1;
        c.amsgrad = (v >> 1) & 1;
        c.maximize = (v >> 2) & 1;
        c.wd = (v >> 3) & 1 ? 1e-2 : 0.0;
        c.lr_tensor = (v >> 4) & 1;
        c.gscale = (v >> 5) & 1;
        c.found = c.gscale ? 0.0f : -1.0f;
        /* all flag combinations in float; a spread in half / bfloat16 */
        opt_case(TFL_FOREACH_ADAM, &c, F32, v % 2, NSA, sizes_a, CHUNK);
        if (v % 7 == 0)
            opt_case(TFL_FOREACH_ADAM, &c, v % 2 ? F16 : BF16, 1, NSA, sizes_a, CHUNK);
        n++;
    }
    /* a step skipped: found_inf = 1 */
    optcase skip = { 0, 1, 0, 1, 1, 1e-2, 1.0f, 0, 0, 0, 0, 0 };
    opt_case(TFL_FOREACH_ADAM, &skip, F32, 0, NSA, sizes_a, CHUNK);
    /* many tensors in separate allocations (launch split by buffers) and
     * PyTorch's chunk size with a tensor over one chunk */
    int64_t many[NT];
    for (int t = 0; t < NT; t++)
        many[t] = 1 + 37 * t * t;
    many[5] = 65536 * 2 + 11;
    optcase aw = { 1, 1, 1, 1, 1, 1e-2, 0.0f, 0, 0, 0, 0, 0 };
    opt_case(TFL_FOREACH_ADAM, &aw, F32, 0, NT, many, 65536);
    opt_case(TFL_FOREACH_ADAM, &aw, F32, 1, NT, many, 65536);
    (void)n;
}

static void test_sgd(void)
{
    for (int v = 0; v < 96; v++) {
        optcase c;
        memset(&c, 0, sizeof c);
        c.depth = (v % 3) ? 3 : 2;
        c.nesterov = (v >> 1) & 1;
        c.first = (v >> 2) & 1;
        c.wd = (v >> 3) & 1 ? 1e-4 : 0.0;
        c.maximize = (v >> 4) & 1;
        c.lr_tensor = (v >> 5) & 1;
        c.gscale = v % 5 == 0;
        c.found = v % 5 == 0 ? 0.0f : v % 11 == 0 ? 1.0f : -1.0f;
        c.momentum = c.depth == 3 ? 0.9 : 0.0;
        c.dampening = v % 4 == 1 ? 0.1 : 0.0;
        opt_case(TFL_FOREACH_SGD, &c, v % 9 == 4 ? BF16 : v % 9 == 7 ? F16 : F32, v % 2, NSA,
                 sizes_a, CHUNK);
    }
    int64_t many[NT];
    for (int t = 0; t < NT; t++)
        many[t] = 3 + 101 * t;
    optcase c = { 0, 0, 1, 1, 1, 1e-4, 0.0f, 3, 1, 0, 0.9, 0.0 };
    opt_case(TFL_FOREACH_SGD, &c, F32, 0, NT, many, 512);
}

/* ------------------------------------------------------------ refusals */

static void test_refused(void)
{
    float host_x[8] = { 0 };
    tfl_foreach_tensor t = { { host_x }, 8, 0, NULL };
    tfl_foreach_block b = { 0, 0 };
    tfl_op op = ocl_h_op(TFL_OP_FOREACH);
    tfl_foreach_op *f = &op.u.foreach;
    f->kind = TFL_FOREACH_UNARY;
    f->fn = TFL_FOREACH_FN_NEG;
    f->dtype = F32;
    f->depth = 1;
    f->chunk_size = 8;
    f->ntensors = 1;
    f->tensors = &t;
    f->nblocks = 1;
    f->blocks = &b;
    /* host memory is not the device's */
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    /* a kind that reads more lists than it has */
    void *d = ocl_h_alloc(32);
    t.ptr[0] = d;
    OCL_H_CHECK(ocl_h->op_supported(&op));
    f->kind = TFL_FOREACH_POINTWISE;
    f->fn = TFL_FOREACH_FN_MUL;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    /* Adam without a step tensor */
    f->kind = TFL_FOREACH_ADAM;
    f->depth = 4;
    for (int k = 1; k < 4; k++)
        t.ptr[k] = d;
    OCL_H_CHECK(!ocl_h->op_supported(&op));
    ocl_h_free(d, 32);
}

int main(void)
{
    ocl_h_init();
    test_refused();
    test_update_scale();
    test_unscale();
    test_norms();
    test_adam();
    test_sgd();
    test_elementwise();
    printf("test_ocl_foreach: %d ops compared\n", ran);
    return ocl_h_finish("test_ocl_foreach");
}

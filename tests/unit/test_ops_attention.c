/*
 * test_ops_attention.c - the attention family: the host op (forward with
 * logsumexp, backward) against a double-precision reference written here
 * from the formulas, and the op-table decoder on synthesized launches of
 * PyTorch's memory-efficient kernels (Params bytes laid out as the 2.11
 * wheel's, in pool memory) including the launches it must refuse; the
 * parameter layouts the family states for real kernel names of the 2.11
 * and 2.15 wheels against their cubins' tables; and, with a 2.15 torch
 * mapped into the process, the same launches in 2.15's Params layout.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/host/host_ops.h"
#include "backends/host/ops_attention.h"
#include "mem/mem.h"
#include "route/optable.h"
#include "route/torch_release.h"
#include "route/runtime.h"
#include "cubin_layouts.h"

static int failures, checks;

#define FAIL(...) do { failures++; fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)
#define CHECK(c, ...) do { checks++; if (!(c)) FAIL(__VA_ARGS__); } while (0)

/* ---------------------------------------------------------- utilities */

static uint64_t rng = 88172645463325252ull;
static double urand(void)          /* uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* bf16 / fp16 rounding of a float, written independently of the library
 * (round to nearest even; inputs here are normal numbers). */
static float round_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t bf16_bits(float f)
{
    uint32_t u;
    f = round_bf16(f);
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static float bf16_val(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* Nearest-even fp16 value of f (finite, in range): 11 significant bits,
 * or multiples of 2^-24 below the normal range. */
static double round_f16(double a)
{
    if (a == 0.0 || isinf(a))
        return a;
    int e;
    frexp(fabs(a), &e);                      /* |a| = m 2^e, m in [0.5, 1) */
    int lsb = e - 11 < -24 ? -24 : e - 11;   /* weight of the last bit */
    return ldexp(nearbyint(ldexp(a, -lsb)), lsb);
}
static uint16_t f16_bits(float f)
{
    double a = fabs(round_f16(f));
    uint16_t s = signbit(f) ? 0x8000 : 0;
    if (isinf(a))
        return s | 0x7c00;
    if (a == 0.0)
        return s;
    int e;
    double m = frexp(a, &e);
    int be = e - 1 + 15;
    if (be <= 0)
        return (uint16_t)(s | (uint16_t)llround(a * 16777216.0));
    return (uint16_t)(s | (be << 10) | (uint16_t)llround((2.0 * m - 1.0) * 1024.0));
}
static float f16_val(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, man = h & 1023;
    double v = e == 0 ? ldexp(man, -24) : ldexp(1024 + man, e - 25);
    return (float)(s ? -v : v);
}

/* A logical [B][H][R][C] operand: float values (what the op sees after
 * rounding) plus the typed storage the op reads or writes. */
typedef struct mat {
    int64_t B, H, R, C;
    int64_t sb, sh, sm;      /* storage strides, elements */
    tfl_dtype dt;
    void *mem;               /* storage */
    size_t bytes;
} mat;

static size_t esz(tfl_dtype dt) { return dt == TFL_DT_F32 ? 4 : 2; }

/* Layout: "bmhc" (PyTorch's BMHK views, heads interleaved in rows),
 * "bhrc" (plain contiguous) or "pad" (bhrc with padded rows). */
static mat mat_make(int64_t B, int64_t H, int64_t R, int64_t C, tfl_dtype dt, const char *layout,
                    void *(*alloc)(size_t))
{
    mat m = { B, H, R, C, 0, 0, 0, dt, NULL, 0 };
    if (strcmp(layout, "bmhc") == 0) {
        m.sm = H * C; m.sh = C; m.sb = R * H * C;
    } else if (strcmp(layout, "pad") == 0) {
        m.sm = C + 5; m.sh = R * m.sm + 3; m.sb = H * m.sh + 7;
    } else {
        m.sm = C; m.sh = R * C; m.sb = H * R * C;
    }
    int64_t n = (B - 1) * m.sb + (H - 1) * m.sh + (R - 1) * m.sm + C;
    if (B == 0 || H == 0 || R == 0 || C == 0)
        n = 1;
    m.bytes = (size_t)n * esz(dt);
    m.mem = alloc(m.bytes);
    memset(m.mem, 0xff, m.bytes);            /* NaN / sentinel everywhere */
    return m;
}

static int64_t mat_off(const mat *m, int64_t b, int64_t h, int64_t r, int64_t c)
{
    return b * m->sb + h * m->sh + r * m->sm + c;
}

static float mat_get(const mat *m, int64_t b, int64_t h, int64_t r, int64_t c)
{
    int64_t o = mat_off(m, b, h, r, c);
    switch (m->dt) {
    case TFL_DT_F32: return ((float *)m->mem)[o];
    case TFL_DT_F16: return f16_val(((uint16_t *)m->mem)[o]);
    default: return bf16_val(((uint16_t *)m->mem)[o]);
    }
}

static void mat_set(mat *m, int64_t b, int64_t h, int64_t r, int64_t c, float v)
{
    int64_t o = mat_off(m, b, h, r, c);
    switch (m->dt) {
    case TFL_DT_F32: ((float *)m->mem)[o] = v; break;
    case TFL_DT_F16: ((uint16_t *)m->mem)[o] = f16_bits(v); break;
    default: ((uint16_t *)m->mem)[o] = bf16_bits(v); break;
    }
}

static void mat_fill(mat *m, double amp)
{
    for (int64_t b = 0; b < m->B; b++)
        for (int64_t h = 0; h < m->H; h++)
            for (int64_t r = 0; r < m->R; r++)
                for (int64_t c = 0; c < m->C; c++)
                    mat_set(m, b, h, r, c, (float)(amp * urand()));
}

static tfl_attn_tensor as_tensor(const mat *m)
{
    tfl_attn_tensor t = { m->mem, m->sb, m->sh, m->sm };
    return t;
}

/* -------------------------------------------------- double reference */

typedef struct problem {
    int64_t B, H, G, M, N, D, Dv;    /* G: query heads per kv head */
    double scale;
    int causal;
    int64_t offset;
    const mat *q, *k, *v, *bias;     /* bias: [B][H][M][N] logical, may be NULL */
} problem;

static int hidden(const problem *p, int64_t i, int64_t j)
{
    return p->causal && j > i + p->offset;
}

/* P (M x N), lse (M) of head (b, h). */
static void ref_probs(const problem *p, int64_t b, int64_t h, double *P, double *lse)
{
    int64_t hk = h / p->G;
    for (int64_t i = 0; i < p->M; i++) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < p->N; j++) {
            double s = -INFINITY;
            if (!hidden(p, i, j)) {
                s = 0.0;
                for (int64_t c = 0; c < p->D; c++)
                    s += (double)mat_get(p->q, b, h, i, c) * mat_get(p->k, b, hk, j, c);
                s *= p->scale;
                if (p->bias)
                    s += mat_get(p->bias, b, h, i, j);
            }
            P[i * p->N + j] = s;
            if (s > mx)
                mx = s;
        }
        if (mx == -INFINITY) {
            for (int64_t j = 0; j < p->N; j++)
                P[i * p->N + j] = 0.0;
            lse[i] = -INFINITY;
            continue;
        }
        double sum = 0.0;
        for (int64_t j = 0; j < p->N; j++)
            sum += exp(P[i * p->N + j] - mx);
        lse[i] = mx + log(sum);
        for (int64_t j = 0; j < p->N; j++)
            P[i * p->N + j] = exp(P[i * p->N + j] - lse[i]);
    }
}

/* Compare got (the op's storage) with want (double) within tol relative
 * to max(1, max |want|). */
static void expect_close(const char *what, const char *name, const mat *got, int64_t b,
                         int64_t h, int64_t r, int64_t c, double want, double tol, double scale)
{
    checks++;
    double g = mat_get(got, b, h, r, c);
    if (!(fabs(g - want) <= tol * scale)) {
        if (failures < 30)
            FAIL("%s %s[%lld,%lld,%lld,%lld]: got %.9g want %.9g", name, what, (long long)b,
                 (long long)h, (long long)r, (long long)c, g, want);
        else
            failures++;
    }
}

/* -------------------------------------------------------- host op run */

typedef struct opcase {
    const char *name;
    int64_t B, H, G, M, N, D, Dv;
    int causal, bottom_right;
    int bias;                /* 0 none, 1 full, 2 broadcast [M][N], 3 with -inf rows */
    int grad_bias;
    tfl_dtype dt;
    const char *layout;
    int64_t block_floats;    /* 0: the default */
    double tol;
} opcase;

static void run_case(const opcase *c)
{
    tfl_dtype dt = c->dt;
    int64_t Hk = c->H / c->G;
    mat q = mat_make(c->B, c->H, c->M, c->D, dt, c->layout, malloc);
    mat k = mat_make(c->B, Hk, c->N, c->D, dt, c->layout, malloc);
    mat v = mat_make(c->B, Hk, c->N, c->Dv, dt, c->layout, malloc);
    mat o = mat_make(c->B, c->H, c->M, c->Dv, dt, c->layout, malloc);
    mat go = mat_make(c->B, c->H, c->M, c->Dv, dt, c->layout, malloc);
    mat gq = mat_make(c->B, c->H, c->M, c->D, dt, c->layout, malloc);
    mat gk = mat_make(c->B, c->H, c->N, c->D, dt, c->layout, malloc);
    mat gv = mat_make(c->B, c->H, c->N, c->Dv, dt, c->layout, malloc);
    mat bias = { 0 }, gb = { 0 };
    mat_fill(&q, 1.5);
    mat_fill(&k, 1.5);
    mat_fill(&v, 1.0);
    mat_fill(&go, 1.0);
    if (c->bias) {
        bias = mat_make(c->B, c->H, c->M, c->N, dt, "bhrc", malloc);
        if (c->bias == 2) {                   /* one [M][N] for every (b, h) */
            bias.sb = bias.sh = 0;
        }
        mat_fill(&bias, 2.0);
        if (c->bias == 3)                     /* a boolean mask: -inf, one row all */
            for (int64_t b = 0; b < c->B; b++)
                for (int64_t h = 0; h < c->H; h++)
                    for (int64_t i = 0; i < c->M; i++)
                        for (int64_t j = 0; j < c->N; j++)
                            if (i == 1 || urand() < -0.4)
                                mat_set(&bias, b, h, i, j, -INFINITY);
        if (c->grad_bias)
            gb = mat_make(c->B, c->H, c->M, c->N, dt, "bhrc", malloc);
    }
    int64_t lse_pad = (c->M + 31) / 32 * 32;
    size_t lse_n = (size_t)(c->B * c->H * lse_pad + 1);
    float *lse = malloc(lse_n * sizeof(float));
    for (size_t i = 0; i < lse_n; i++)
        lse[i] = 12345.0f;

    problem p = { c->B, c->H, c->G, c->M, c->N, c->D, c->Dv, 1.0 / sqrt((double)c->D),
                  c->causal, c->bottom_right ? c->N - c->M : 0, &q, &k, &v,
                  c->bias ? &bias : NULL };

    tfl_attention_op a;
    memset(&a, 0, sizeof(a));
    a.dtype = dt;
    a.batch = c->B; a.heads = c->H; a.q_heads_per_kv = c->G;
    a.num_queries = c->M; a.num_keys = c->N; a.head_dim = c->D; a.head_dim_value = c->Dv;
    a.scale = (float)p.scale;
    a.mask = c->causal ? TFL_ATTN_MASK_CAUSAL : TFL_ATTN_MASK_NONE;
    a.causal_offset = p.offset;
    a.q = as_tensor(&q); a.k = as_tensor(&k); a.v = as_tensor(&v); a.out = as_tensor(&o);
    if (c->bias)
        a.bias = as_tensor(&bias);
    a.lse.ptr = lse; a.lse.stride_b = c->H * lse_pad; a.lse.stride_h = lse_pad;
    a.lse_padded_len = lse_pad;
    p.scale = a.scale;            /* the reference uses the op's float scale */

    CHECK(host_attention_supported(&a), "%s: forward not supported", c->name);
    tfl_status st = c->block_floats ? host_attention_blocked(&a, c->block_floats)
                                    : host_attention(&a);
    CHECK(st == TFL_OK, "%s: forward status %d", c->name, (int)st);

    double *P = malloc((size_t)(c->M * c->N + 1) * sizeof(double));
    double *L = malloc((size_t)(c->M + 1) * sizeof(double));
    double *dPr = malloc((size_t)(c->M * c->N + 1) * sizeof(double));
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->H; h++) {
            ref_probs(&p, b, h, P, L);
            int64_t hk = h / c->G;
            for (int64_t i = 0; i < c->M; i++) {
                float lg = lse[b * c->H * lse_pad + h * lse_pad + i];
                checks++;
                if (L[i] == -INFINITY ? lg != -INFINITY : !(fabs(lg - L[i]) <= c->tol * 4))
                    FAIL("%s lse[%lld,%lld,%lld]: got %.9g want %.9g", c->name, (long long)b,
                         (long long)h, (long long)i, lg, L[i]);
                for (int64_t e = 0; e < c->Dv; e++) {
                    double acc = 0.0;
                    for (int64_t j = 0; j < c->N; j++)
                        acc += P[i * c->N + j] * mat_get(&v, b, hk, j, e);
                    expect_close("out", c->name, &o, b, h, i, e, acc, c->tol, 1.0);
                }
            }
            for (int64_t i = c->M; i < lse_pad; i++)
                CHECK(lse[b * c->H * lse_pad + h * lse_pad + i] == INFINITY,
                      "%s: lse padding [%lld] is not +inf", c->name, (long long)i);
        }
    CHECK(lse[lse_n - 1] == 12345.0f, "%s: lse written past its end", c->name);

    /* Backward, from the op's own O and lse (as PyTorch passes them). */
    a.backward = 1;
    a.grad_out = as_tensor(&go); a.grad_q = as_tensor(&gq);
    a.grad_k = as_tensor(&gk); a.grad_v = as_tensor(&gv);
    if (c->grad_bias)
        a.grad_bias = as_tensor(&gb);
    CHECK(host_attention_supported(&a), "%s: backward not supported", c->name);
    st = c->block_floats ? host_attention_blocked(&a, c->block_floats) : host_attention(&a);
    CHECK(st == TFL_OK, "%s: backward status %d", c->name, (int)st);
    double *Dl = malloc((size_t)(c->M + 1) * sizeof(double));
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->H; h++) {
            ref_probs(&p, b, h, P, L);
            int64_t hk = h / c->G;
            for (int64_t i = 0; i < c->M; i++) {
                double acc = 0.0;
                for (int64_t e = 0; e < c->Dv; e++)
                    acc += (double)mat_get(&go, b, h, i, e) * mat_get(&o, b, h, i, e);
                Dl[i] = acc;
                for (int64_t j = 0; j < c->N; j++) {
                    double dp = 0.0;
                    for (int64_t e = 0; e < c->Dv; e++)
                        dp += (double)mat_get(&go, b, h, i, e) * mat_get(&v, b, hk, j, e);
                    dPr[i * c->N + j] = P[i * c->N + j] * (dp - Dl[i]);   /* dS */
                }
            }
            for (int64_t i = 0; i < c->M; i++)
                for (int64_t e = 0; e < c->D; e++) {
                    double acc = 0.0;
                    for (int64_t j = 0; j < c->N; j++)
                        acc += dPr[i * c->N + j] * mat_get(&k, b, hk, j, e);
                    expect_close("grad_q", c->name, &gq, b, h, i, e, p.scale * acc, c->tol, 2.0);
                }
            for (int64_t j = 0; j < c->N; j++) {
                for (int64_t e = 0; e < c->D; e++) {
                    double acc = 0.0;
                    for (int64_t i = 0; i < c->M; i++)
                        acc += dPr[i * c->N + j] * mat_get(&q, b, h, i, e);
                    expect_close("grad_k", c->name, &gk, b, h, j, e, p.scale * acc, c->tol, 2.0);
                }
                for (int64_t e = 0; e < c->Dv; e++) {
                    double acc = 0.0;
                    for (int64_t i = 0; i < c->M; i++)
                        acc += P[i * c->N + j] * mat_get(&go, b, h, i, e);
                    expect_close("grad_v", c->name, &gv, b, h, j, e, acc, c->tol, 2.0);
                }
            }
            if (c->grad_bias)
                for (int64_t i = 0; i < c->M; i++)
                    for (int64_t j = 0; j < c->N; j++)
                        expect_close("grad_bias", c->name, &gb, b, h, i, j, dPr[i * c->N + j],
                                     c->tol, 1.0);
        }
    free(Dl); free(P); free(L); free(dPr); free(lse);
    free(q.mem); free(k.mem); free(v.mem); free(o.mem); free(go.mem);
    free(gq.mem); free(gk.mem); free(gv.mem);
    if (c->bias) {
        free(bias.mem);
        if (c->grad_bias)
            free(gb.mem);
    }
}

static void test_host_op(void)
{
    const double t32 = 2e-5, t16 = 4e-3, tb16 = 3e-2;
    const opcase cases[] = {
        { "plain", 2, 3, 1, 37, 53, 16, 24, 0, 0, 0, 0, TFL_DT_F32, "bmhc", 0, t32 },
        { "causal-blocks", 1, 2, 1, 70, 70, 32, 32, 1, 0, 0, 0, TFL_DT_F32, "bhrc", 3 * 70, t32 },
        { "causal-1row", 1, 1, 1, 9, 9, 16, 16, 1, 0, 0, 0, TFL_DT_F32, "pad", 1, t32 },
        { "bottom-right", 2, 1, 1, 20, 45, 64, 64, 1, 1, 0, 0, TFL_DT_F32, "bmhc", 0, t32 },
        { "bottom-right-M>N", 1, 2, 1, 45, 20, 16, 8, 1, 1, 0, 0, TFL_DT_F32, "pad", 0, t32 },
        { "top-left-M>N", 1, 1, 1, 70, 30, 32, 32, 1, 0, 0, 0, TFL_DT_F32, "bhrc", 0, t32 },
        { "bias+grad", 2, 2, 1, 33, 47, 32, 32, 0, 0, 1, 1, TFL_DT_F32, "bmhc", 0, t32 },
        { "bias-bcast", 2, 3, 1, 17, 40, 16, 16, 1, 0, 2, 0, TFL_DT_F32, "bhrc", 0, t32 },
        { "bool-mask", 1, 2, 1, 25, 31, 16, 16, 0, 0, 3, 1, TFL_DT_F32, "bhrc", 4 * 31, t32 },
        { "gqa", 1, 4, 2, 19, 23, 16, 16, 1, 0, 0, 0, TFL_DT_F32, "bhrc", 0, t32 },
        { "single-query", 3, 2, 1, 1, 64, 64, 64, 0, 0, 0, 0, TFL_DT_F32, "bmhc", 0, t32 },
        { "fp16", 1, 2, 1, 29, 41, 32, 32, 1, 0, 1, 1, TFL_DT_F16, "bmhc", 0, t16 },
        { "bf16", 2, 1, 1, 29, 41, 32, 16, 0, 0, 0, 0, TFL_DT_BF16, "pad", 5 * 41, tb16 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
}

/* Shapes with nothing to attend: N = 0 (out 0, lse -inf) and M = 0
 * (dK, dV zero). */
static void test_empty(void)
{
    float q[8], k[8] = { 0 }, v[8], o[8], lse[4], go[8], gq[8], gk[8], gv[8];
    for (int i = 0; i < 8; i++) {
        q[i] = (float)i; v[i] = 1.0f; o[i] = NAN; go[i] = 1.0f;
        gq[i] = gk[i] = gv[i] = NAN;
    }
    tfl_attention_op a;
    memset(&a, 0, sizeof(a));
    a.dtype = TFL_DT_F32; a.batch = 1; a.heads = 1; a.q_heads_per_kv = 1;
    a.num_queries = 2; a.num_keys = 0; a.head_dim = 4; a.head_dim_value = 4; a.scale = 0.5f;
    tfl_attn_tensor t = { NULL, 8, 8, 4 };
    a.q = t; a.q.ptr = q; a.k = t; a.k.ptr = k; a.v = t; a.v.ptr = v; a.out = t; a.out.ptr = o;
    a.lse.ptr = lse; a.lse.stride_b = a.lse.stride_h = 2; a.lse_padded_len = 2;
    CHECK(host_attention(&a) == TFL_OK, "N=0 forward failed");
    for (int i = 0; i < 8; i++)
        CHECK(o[i] == 0.0f, "N=0: out[%d] = %g", i, o[i]);
    CHECK(lse[0] == -INFINITY && lse[1] == -INFINITY, "N=0: lse not -inf");

    a.num_queries = 0; a.num_keys = 2; a.backward = 1;
    a.grad_out = t; a.grad_out.ptr = go; a.grad_q = t; a.grad_q.ptr = gq;
    a.grad_k = t; a.grad_k.ptr = gk; a.grad_v = t; a.grad_v.ptr = gv;
    CHECK(host_attention(&a) == TFL_OK, "M=0 backward failed");
    for (int i = 0; i < 8; i++)
        CHECK(gk[i] == 0.0f && gv[i] == 0.0f, "M=0: grad_k/v[%d] = %g/%g", i, gk[i], gv[i]);
}

static void test_refused(void)
{
    float buf[64] = { 0 };
    tfl_attention_op a;
    memset(&a, 0, sizeof(a));
    a.dtype = TFL_DT_F32; a.batch = 1; a.heads = 2; a.q_heads_per_kv = 1;
    a.num_queries = 2; a.num_keys = 2; a.head_dim = 2; a.head_dim_value = 2; a.scale = 1;
    tfl_attn_tensor t = { buf, 8, 4, 2 };
    a.q = a.k = a.v = a.out = t;
    CHECK(host_attention_supported(&a), "valid op refused");
    tfl_attention_op b = a;
    b.dtype = TFL_DT_F64;
    CHECK(!host_attention_supported(&b) && host_attention(&b) == TFL_ERR_UNSUPPORTED,
          "f64 accepted");
    b = a; b.q.stride_m = -2;
    CHECK(!host_attention_supported(&b), "negative stride accepted");
    b = a; b.q_heads_per_kv = 3;
    CHECK(!host_attention_supported(&b), "heads not a multiple of q_heads_per_kv accepted");
    b = a; b.v.ptr = NULL;
    CHECK(!host_attention_supported(&b), "missing value accepted");
    b = a; b.backward = 1;
    CHECK(!host_attention_supported(&b), "backward without grads/lse accepted");
    b = a; b.mask = (tfl_attn_mask)7;
    CHECK(!host_attention_supported(&b), "unknown mask accepted");
}

/* ----------------------------------------------------------- decoder */

static const char *NAME_F =
    "_Z39fmha_cutlassF_f32_aligned_64x64_rf_sm80N22PyTorchMemEffAttention15AttentionKernelIfN7"
    "cutlass4arch4Sm80ELb1ELi64ELi64ELi64ELb1ELb1EE6ParamsE";
static const char *NAME_B =
    "_Z40fmha_cutlassB_f32_aligned_64x64_k32_sm80N22PyTorchMemEffAttention23AttentionBackward"
    "KernelIN7cutlass4arch4Sm80EfLb1ELb0ELb0ELi64ELi64ELi32ELb0EE6ParamsE";
static const char *NAME_B_DROPOUT =
    "_Z48fmha_cutlassB_f32_aligned_64x64_k32_dropout_sm80N22PyTorchMemEffAttention23Attention"
    "BackwardKernelIN7cutlass4arch4Sm80EfLb1ELb1ELb0ELi64ELi64ELi32ELb0EE6ParamsE";
static const char *NAME_F16 =
    "_Z39fmha_cutlassF_f16_aligned_64x64_rf_sm80N22PyTorchMemEffAttention15AttentionKernelIN7"
    "cutlass6half_tENS1_4arch4Sm80ELb1ELi64ELi64ELi64ELb1ELb1EE6ParamsE";
static const char *NAME_FLASH =
    "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi32ELi128ELi128ELi4ELb0ELb0E"
    "N7cutlass6half_tE19Flash_kernel_traitsILi32ELi128ELi128ELi4ES3_EELb0ELb1ELb0ELb0ELb0ELb1ELb0"
    "ELb0EEEvNS_16Flash_fwd_paramsE";

static void put(unsigned char *p, int off, const void *v, size_t n) { memcpy(p + off, v, n); }
static void put_ptr(unsigned char *p, int off, void *v) { put(p, off, &v, sizeof(v)); }
static void put_i32(unsigned char *p, int off, int32_t v) { put(p, off, &v, 4); }
static void put_i64(unsigned char *p, int off, int64_t v) { put(p, off, &v, 8); }
static void put_f32(unsigned char *p, int off, float v) { put(p, off, &v, 4); }

static void *dev_alloc(size_t n)
{
    void *p = NULL;
    if (tfl_mem_alloc(n, TFL_MEM_DEVICE, 0, 0, &p) != TFL_OK)
        return NULL;
    return p;
}

static const char *NAME_FLASH_BWD =
    "_ZN13pytorch_flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_traitsILi128E"
    "Li64ELi128ELi8ELi2ELi4ELi2ELb0ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi128E"
    "Li8ES3_EELb0ELb0ELb0ELb0ELb0ELb1ELb0EEEvNS_16Flash_bwd_paramsE";
static const char *NAME_FLASH_BWD_DROPOUT =
    "_ZN13pytorch_flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_traitsILi128E"
    "Li64ELi128ELi8ELi2ELi4ELi2ELb0ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi128E"
    "Li8ES3_EELb1ELb0ELb0ELb0ELb0ELb1ELb0EEEvNS_16Flash_bwd_paramsE";
static const char *NAME_FLASH_DOT =
    "_ZN13pytorch_flash25flash_bwd_dot_do_o_kernelILb0E23Flash_bwd_kernel_traitsILi128ELi64ELi128E"
    "Li8ELi2ELi4ELi2ELb0ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi128ELi8ES3_"
    "EEEEvNS_16Flash_bwd_paramsE";

/* A flash forward launch (Flash_fwd_params, 472 bytes, as PyTorch fills it
 * for (b, h, s, d) = (1, 2, 16, 32) fp16 without a mask): operands outside
 * device memory are refused with TFL_ERR_INVALID, a varlen / dropout /
 * window launch as unsupported.  (cookie: the flash forward's, or the
 * dot_do_o kernel's, which touches nothing.) */
static void test_flash_refused(void *ck)
{
    static unsigned char prm[648];
    float stack[64];
    memset(prm, 0, sizeof prm);
    void *bogus = stack;
    int64_t sb = 1024, sm = 64, sh = 32;
    int32_t i32;
    float f32;
    for (int k = 0; k < 3; k++) {
        memcpy(prm + 8 * k, &bogus, 8);
        memcpy(prm + 24 + 8 * k, &sb, 8);
        memcpy(prm + 48 + 8 * k, &sm, 8);
        memcpy(prm + 72 + 8 * k, &sh, 8);
    }
    i32 = 2; memcpy(prm + 96, &i32, 4); memcpy(prm + 100, &i32, 4);
    i32 = 1; memcpy(prm + 104, &i32, 4);
    memcpy(prm + 112, &bogus, 8); memcpy(prm + 160, &bogus, 8);
    memcpy(prm + 128, &sb, 8); memcpy(prm + 136, &sm, 8); memcpy(prm + 144, &sh, 8);
    i32 = 1; memcpy(prm + 176, &i32, 4);
    i32 = 16; memcpy(prm + 180, &i32, 4); memcpy(prm + 184, &i32, 4);
    i32 = 32; memcpy(prm + 192, &i32, 4);
    f32 = 0.17677669f; memcpy(prm + 216, &f32, 4);
    f32 = 1.0f; memcpy(prm + 372, &f32, 4);
    i32 = -1; memcpy(prm + 388, &i32, 4); memcpy(prm + 392, &i32, 4);
    i32 = 1; memcpy(prm + 444, &i32, 4);
    void *args[1] = { prm };
    tfl_kcall call;
    memset(&call, 0, sizeof call);
    call.name = "flash";
    call.args = args;
    call.grid[0] = 1; call.grid[1] = 1; call.grid[2] = 2;
    call.block[0] = 128; call.block[1] = 1; call.block[2] = 1;
    char err[256] = "";
    const tfl_kfamily *f = &tfl_kfamily_attention;
    int aux = strcmp(f->op_name(ck), "flash_forward") != 0;
    tfl_status want = aux ? TFL_OK : TFL_ERR_INVALID;
    CHECK(f->run(&call, ck, err, sizeof err) == want, "flash: stack operands (%s)", err);
    if (aux)
        return;
    prm[441] = 1;                                  /* causal needs window_right 0 */
    CHECK(f->run(&call, ck, err, sizeof err) == TFL_ERR_UNSUPPORTED, "flash: bad causal window");
    prm[441] = 0;
    f32 = 0.9f; memcpy(prm + 372, &f32, 4);       /* dropout, but the kernel has none */
    CHECK(f->run(&call, ck, err, sizeof err) == TFL_ERR_UNSUPPORTED, "flash: dropout decoded");
    f32 = 1.0f; memcpy(prm + 372, &f32, 4);
    memcpy(prm + 224, &bogus, 8);                  /* cu_seqlens_q: varlen */
    CHECK(f->run(&call, ck, err, sizeof err) == TFL_ERR_UNSUPPORTED, "flash: varlen decoded");
    memset(prm + 224, 0, 8);
    call.grid[2] = 3;                              /* grid.z != heads */
    CHECK(f->run(&call, ck, err, sizeof err) == TFL_ERR_UNSUPPORTED, "flash: grid mismatch");
}

static void test_match(void)
{
    const tfl_kfamily *f = &tfl_kfamily_attention;
    void *ck = NULL;
    CHECK(f->match(NAME_F, &ck) && strcmp(f->op_name(ck), "sdpa_forward") == 0,
          "forward kernel not matched");
    CHECK(f->match(NAME_B, &ck) && strcmp(f->op_name(ck), "sdpa_backward") == 0,
          "backward kernel not matched");
    CHECK(f->match(NAME_F16, &ck), "f16 forward kernel not matched");
    CHECK(f->match(NAME_FLASH, &ck) && strcmp(f->op_name(ck), "flash_forward") == 0,
          "flash forward not matched");
    /* the same kernel with Is_dropout set: claimed (dropout from its params) */
    char drop[512];
    snprintf(drop, sizeof drop, "%s", NAME_FLASH);
    char *lb = strstr(drop, "EELb0ELb1E");
    CHECK(lb != NULL, "flash name layout");
    if (lb) {
        lb[4] = '1';
        CHECK(f->match(drop, &ck), "flash dropout forward not claimed");
        /* ... but a local-window one (Is_local) is refused */
        lb[12] = '1';                             /* Is_local */
        CHECK(!f->match(drop, &ck), "flash local forward claimed");
    }
    CHECK(f->match(NAME_FLASH_BWD, &ck) && strcmp(f->op_name(ck), "flash_backward") == 0,
          "flash backward not matched");
    CHECK(f->match(NAME_FLASH_BWD_DROPOUT, &ck), "flash dropout backward not claimed");
    CHECK(f->match(NAME_FLASH_DOT, &ck), "flash dot_do_o not matched");
    test_flash_refused(ck);
    CHECK(f->match(NAME_FLASH, &ck), "flash forward");
    test_flash_refused(ck);
    CHECK(!f->match("_Z39fmha_cutlassF_f64_aligned_64x64_rf_sm80N22PyTorchMemEffAttention15"
                    "AttentionKernelIfE6ParamsE", &ck), "f64 name claimed");
    char cut[400];
    snprintf(cut, sizeof(cut), "%.*s", (int)strlen(NAME_F) - 3, NAME_F);
    CHECK(!f->match(cut, &ck), "truncated name claimed");
    CHECK(!f->match("fmha_cutlassF_f32_", &ck), "unmangled name claimed");
}

/* Kernel names of the torch 2.11 and 2.15 sm_80 cubins and their parameter
 * tables (offset:size, as `torchfl wheel --list` / scripts/wheel_kernels.py
 * read them).  The memory-efficient kernels have the same names in both
 * with different Params sizes: `release` says which torch must be mapped
 * (0: none, the 2.11 layout; 15: 2.15). */
static const struct { int release; const char *mangled, *layout; } cubin[] = {
    /* 2.11.0 */
    { 0, "_ZN13pytorch_flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_traitsILi128ELi64ELi64ELi8ELi4ELi2ELi2ELb1ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi64ELi8ES3_EELb0ELb1ELb0ELb0ELb0ELb0ELb0EEEvNS_16Flash_bwd_paramsE",
      "0:648" },
    { 0, "_ZN13pytorch_flash27flash_bwd_convert_dq_kernelI23Flash_bwd_kernel_traitsILi128ELi64ELi64ELi8ELi4ELi2ELi2ELb1ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi64ELi8ES3_EEEEvNS_16Flash_bwd_paramsEi",
      "0:648 648:4" },
    { 0, "_ZN13pytorch_flash25flash_bwd_dot_do_o_kernelILb0E23Flash_bwd_kernel_traitsILi128ELi64ELi64ELi8ELi4ELi2ELi2ELb1ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi64ELi8ES3_EEEEvNS_16Flash_bwd_paramsE",
      "0:648" },
    { 0, "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi192ELi64ELi64ELi4ELb0ELb0EN7cutlass6half_tE19Flash_kernel_traitsILi192ELi64ELi64ELi4ES3_EELb1ELb0ELb0ELb0ELb0ELb0ELb0ELb0EEEvNS_16Flash_fwd_paramsE",
      "0:472" },
    { 0, "_Z42fmha_cutlassB_bf16_aligned_64x64_k128_sm80N22PyTorchMemEffAttention23AttentionBackwardKernelIN7cutlass4arch4Sm80ENS1_10bfloat16_tELb1ELb0ELb0ELi64ELi64ELi128ELb0EE6ParamsE",
      "0:464" },
    { 0, "_Z43fmha_cutlassF_bf16_aligned_32x128_gmem_sm80N22PyTorchMemEffAttention15AttentionKernelIN7cutlass10bfloat16_tENS1_4arch4Sm80ELb1ELi32ELi128ELi65536ELb1ELb1EE6ParamsE",
      "0:272" },
    /* 2.15.0 */
    { 15, "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi32ELi4ELb0ELb0EN7cutlass6half_tE19Flash_kernel_traitsILi128ELi128ELi32ELi4ES3_EELb1ELb1ELb0ELb0ELb1ELb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE",
      "0:472" },
    { 15, "_ZN13pytorch_flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI23Flash_bwd_kernel_traitsILi128ELi64ELi64ELi8ELi4ELi2ELi2ELb1ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi64ELi64ELi8ES3_EELb0ELb1ELb0ELb0ELb0ELb0ELb0EEEvNS_16Flash_bwd_paramsE",
      "0:648" },
    { 15, "_Z42fmha_cutlassB_bf16_aligned_64x64_k128_sm80N22PyTorchMemEffAttention23AttentionBackwardKernelIN7cutlass4arch4Sm80ENS1_10bfloat16_tELb1ELb0ELb0ELi64ELi64ELi128ELb0EE6ParamsE",
      "0:480" },
    { 15, "_Z43fmha_cutlassF_bf16_aligned_32x128_gmem_sm80N22PyTorchMemEffAttention15AttentionKernelIN7cutlass10bfloat16_tENS1_4arch4Sm80ELb1ELi32ELi128ELi65536ELb1ELb1EE6ParamsE",
      "0:280" },
};

/* The family claims each name of `release` and states the cubin's layout. */
static void test_layouts(int release)
{
    const tfl_kfamily *f = &tfl_kfamily_attention;
    for (size_t i = 0; i < sizeof cubin / sizeof cubin[0]; i++) {
        if (cubin[i].release != release)
            continue;
        CHECK(cubin_layout_ok(f, cubin[i].mangled, cubin[i].layout),
              "decoded with torch release %d (0: none mapped)", cubin[i].release);
    }
}

/* Decode as torch `version` from now on (the family reads the release
 * through tfl_torch_current, as `torchfl wheel` sets the wheel it checks). */
static void use_torch(const char *version)
{
    tfl_torch_info t;
    memset(&t, 0, sizeof t);
    snprintf(t.version, sizeof t.version, "%s", version);
    snprintf(t.cuda, sizeof t.cuda, "13.2");
    tfl_torch_use(&t);
}

/* The 2.11 forward Params p as 2.15 lays them out (attention.c's header
 * comment): the same up to num_batches, then batch_offset @196,
 * head_offset @200, num_heads @204, q_heads_per_kv @208 (1: no grouping),
 * use_dropout @212.  split: a launch over part of the batches. */
static void fwd_2_15(const unsigned char *p, unsigned char *out, int split)
{
    int32_t one = 1, boff = split ? 1 : 0, zero = 0;
    memset(out, 0, 280);
    memcpy(out, p, 196);
    memcpy(out + 196, &boff, 4);
    memcpy(out + 200, &zero, 4);
    memcpy(out + 204, p + 196, 4);                       /* num_heads */
    memcpy(out + 208, &one, 4);
    out[212] = p[200];                                   /* use_dropout */
}

/* The 2.11 backward Params p as 2.15 lays them out: q_heads_per_kv @164,
 * custom_mask_type @168, the strides from q_strideM (2.11 @168) 8 bytes
 * up, num_batches @384, batch_offset @388, head_offset @392,
 * num_splits_key @396, and from gO_strideB (2.11 @384) 16 bytes up.
 * split: a launch over part of the heads. */
static void bwd_2_15(const unsigned char *p, unsigned char *out, int split)
{
    int32_t one = 1, hoff = split ? 1 : 0, zero = 0;
    memset(out, 0, 480);
    memcpy(out, p, 164);
    memcpy(out + 164, &one, 4);
    out[168] = p[164];                                   /* custom_mask_type */
    memcpy(out + 176, p + 168, 376 - 168);               /* q_strideM .. */
    memcpy(out + 384, p + 376, 4);                       /* num_batches */
    memcpy(out + 388, &zero, 4);
    memcpy(out + 392, &hoff, 4);
    memcpy(out + 396, p + 380, 2);                       /* num_splits_key */
    memcpy(out + 400, p + 384, 464 - 384);
}

/* Run the 2.11 test launches again in 2.15's layout, decoding as 2.15:
 * the same outputs, and split launches refused. */
static void test_2_15(tfl_kcall *call, tfl_kcall *bcall, const unsigned char *fp,
                      const unsigned char *bp, const mat *o, const mat *gq)
{
    use_torch("2.15.0+cu132");
    test_layouts(15);
    void *ckf = NULL, *ckb = NULL;
    char err[256] = "";
    CHECK(tfl_kfamily_attention.match(NAME_F, &ckf) && tfl_kfamily_attention.match(NAME_B, &ckb),
          "2.15 names not claimed");
    size_t on = (size_t)(o->B * o->H * o->R * o->C), gn = (size_t)(gq->B * gq->H * gq->R * gq->C);
    float *o0 = malloc(on * sizeof(float)), *g0 = malloc(gn * sizeof(float));
    memcpy(o0, o->mem, on * sizeof(float));
    memcpy(g0, gq->mem, gn * sizeof(float));
    memset(o->mem, 0, on * sizeof(float));
    memset(gq->mem, 0, gn * sizeof(float));
    unsigned char f15[280], b15[480];
    void *fa[1] = { f15 }, *ba[1] = { b15 };
    void **fsave = call->args, **bsave = bcall->args;
    call->args = fa;
    bcall->args = ba;
    fwd_2_15(fp, f15, 0);
    CHECK(tfl_kfamily_attention.run(call, ckf, err, sizeof err) == TFL_OK, "2.15 forward: %s", err);
    CHECK(memcmp(o0, o->mem, on * sizeof(float)) == 0, "2.15 forward differs from 2.11's");
    bwd_2_15(bp, b15, 0);
    CHECK(tfl_kfamily_attention.run(bcall, ckb, err, sizeof err) == TFL_OK, "2.15 backward: %s",
          err);
    CHECK(memcmp(g0, gq->mem, gn * sizeof(float)) == 0, "2.15 backward differs from 2.11's");
    fwd_2_15(fp, f15, 1);
    CHECK(tfl_kfamily_attention.run(call, ckf, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "2.15 forward with a batch offset not refused");
    bwd_2_15(bp, b15, 1);
    CHECK(tfl_kfamily_attention.run(bcall, ckb, err, sizeof err) == TFL_ERR_UNSUPPORTED,
          "2.15 backward with a head offset not refused");
    call->args = fsave;
    bcall->args = bsave;
    free(o0);
    free(g0);
    tfl_torch_use(NULL);
}

/*
 * One forward and one backward launch of (B, H, M, N, D) = (2, 3, 45, 45, 32),
 * causal top-left, tensors in PyTorch's BMHK layout in pool memory, compared
 * with the reference; then the launches the decoder must refuse.
 */
static void test_decode(void)
{
    if (tfl_rt_init() != TFL_OK) {
        FAIL("tfl_rt_init failed");
        return;
    }
    const int B = 2, H = 3, M = 45, N = 45, D = 32;
    const int lse_pad = 64;
    mat q = mat_make(B, H, M, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat k = mat_make(B, H, N, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat v = mat_make(B, H, N, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat o = mat_make(B, H, M, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat go = mat_make(B, H, M, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat gq = mat_make(B, H, M, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat gk = mat_make(B, H, N, D, TFL_DT_F32, "bmhc", dev_alloc);
    mat gv = mat_make(B, H, N, D, TFL_DT_F32, "bmhc", dev_alloc);
    float *lse = dev_alloc((size_t)B * H * lse_pad * sizeof(float));
    if (!q.mem || !k.mem || !v.mem || !o.mem || !go.mem || !gq.mem || !gk.mem || !gv.mem ||
        !lse) {
        FAIL("pool allocation failed");
        return;
    }
    mat_fill(&q, 1.5);
    mat_fill(&k, 1.5);
    mat_fill(&v, 1.0);
    mat_fill(&go, 1.0);
    float scale = 0.2f;

    /* Forward Params (272 bytes): PyTorch's layout in the 2.11 wheel. */
    unsigned char fp[272];
    memset(fp, 0, sizeof(fp));
    put_ptr(fp, 0, q.mem); put_ptr(fp, 8, k.mem); put_ptr(fp, 16, v.mem);
    put_ptr(fp, 64, o.mem); put_ptr(fp, 80, lse);
    put_f32(fp, 92, scale);
    put_i32(fp, 96, D); put_i32(fp, 100, D); put_i32(fp, 104, M); put_i32(fp, 108, N);
    fp[116] = 1;                                          /* CausalFromTopLeft */
    put_i32(fp, 120, (int32_t)q.sm); put_i32(fp, 124, (int32_t)k.sm);
    put_i32(fp, 128, (int32_t)v.sm); put_i32(fp, 136, (int32_t)o.sm);
    put_i32(fp, 140, (int32_t)q.sh); put_i32(fp, 144, (int32_t)k.sh);
    put_i32(fp, 148, (int32_t)v.sh);
    put_i64(fp, 160, q.sb); put_i64(fp, 168, k.sb); put_i64(fp, 176, v.sb);
    put_i32(fp, 192, B); put_i32(fp, 196, H);
    void *fargs[1] = { fp };
    tfl_kcall call = { NAME_F, { 1, (unsigned)H, (unsigned)B }, { 32, 4, 1 }, 0, fargs, NULL };
    void *ckf = NULL, *ckb = NULL;
    tfl_kfamily_attention.match(NAME_F, &ckf);
    tfl_kfamily_attention.match(NAME_B, &ckb);
    char err[256] = "";
    tfl_status st = tfl_kfamily_attention.run(&call, ckf, err, sizeof(err));
    CHECK(st == TFL_OK, "decoded forward: status %d (%s)", (int)st, err);

    problem p = { B, H, 1, M, N, D, D, scale, 1, 0, &q, &k, &v, NULL };
    double *P = malloc(sizeof(double) * M * N), *L = malloc(sizeof(double) * M);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            ref_probs(&p, b, h, P, L);
            for (int i = 0; i < lse_pad; i++) {
                float lg = lse[(b * H + h) * lse_pad + i];
                CHECK(i < M ? fabs(lg - L[i]) <= 1e-4 : lg == INFINITY,
                      "decoded lse[%d,%d,%d] = %g", b, h, i, lg);
            }
            for (int i = 0; i < M; i++)
                for (int e = 0; e < D; e++) {
                    double acc = 0.0;
                    for (int j = 0; j < N; j++)
                        acc += P[i * N + j] * mat_get(&v, b, h, j, e);
                    expect_close("out", "decoded", &o, b, h, i, e, acc, 2e-5, 1.0);
                }
        }

    /* Backward Params (464 bytes). */
    float *delta = dev_alloc((size_t)B * H * M * sizeof(float));
    unsigned char bp[464];
    memset(bp, 0, sizeof(bp));
    put_ptr(bp, 0, q.mem); put_ptr(bp, 8, k.mem); put_ptr(bp, 16, v.mem);
    put_ptr(bp, 32, lse); put_ptr(bp, 40, o.mem); put_ptr(bp, 48, go.mem);
    put_ptr(bp, 56, delta);
    put_ptr(bp, 80, gq.mem); put_ptr(bp, 88, gk.mem); put_ptr(bp, 96, gv.mem);
    put_f32(bp, 140, scale);
    put_i32(bp, 144, D); put_i32(bp, 148, D); put_i32(bp, 152, M); put_i32(bp, 156, N);
    put_i32(bp, 160, H);
    bp[164] = 1;
    put_i64(bp, 168, q.sm); put_i64(bp, 176, k.sm); put_i64(bp, 184, v.sm);
    put_i64(bp, 200, go.sm); put_i64(bp, 208, -1);
    bp[216] = 1;                                          /* gQKV_strideM_multiplier */
    put_i64(bp, 272, o.sh);
    put_i32(bp, 280, (int32_t)q.sh); put_i32(bp, 284, (int32_t)k.sh);
    put_i32(bp, 288, (int32_t)v.sh);
    put_i64(bp, 304, o.sb); put_i64(bp, 312, q.sb); put_i64(bp, 320, k.sb);
    put_i64(bp, 328, v.sb);
    put_i64(bp, 344, (int64_t)H * lse_pad); put_i64(bp, 352, lse_pad);
    put_i64(bp, 360, (int64_t)H * M); put_i64(bp, 368, M);
    put_i32(bp, 376, B);
    bp[380] = 1;                                          /* num_splits_key */
    put_i64(bp, 384, go.sb); put_i64(bp, 392, gq.sb); put_i64(bp, 400, gk.sb);
    put_i64(bp, 408, gv.sb);
    put_i64(bp, 424, go.sh); put_i64(bp, 432, gq.sh); put_i64(bp, 440, gk.sh);
    put_i64(bp, 448, gv.sh);
    void *bargs[1] = { bp };
    tfl_kcall bcall = { NAME_B, { 1, (unsigned)H, (unsigned)B }, { 128, 1, 1 }, 0, bargs, NULL };
    st = tfl_kfamily_attention.run(&bcall, ckb, err, sizeof(err));
    CHECK(st == TFL_OK, "decoded backward: status %d (%s)", (int)st, err);
    double *dS = malloc(sizeof(double) * M * N);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            ref_probs(&p, b, h, P, L);
            for (int i = 0; i < M; i++) {
                double di = 0.0;
                for (int e = 0; e < D; e++)
                    di += (double)mat_get(&go, b, h, i, e) * mat_get(&o, b, h, i, e);
                for (int j = 0; j < N; j++) {
                    double dp = 0.0;
                    for (int e = 0; e < D; e++)
                        dp += (double)mat_get(&go, b, h, i, e) * mat_get(&v, b, h, j, e);
                    dS[i * N + j] = P[i * N + j] * (dp - di);
                }
            }
            for (int i = 0; i < M; i++)
                for (int e = 0; e < D; e++) {
                    double acc = 0.0;
                    for (int j = 0; j < N; j++)
                        acc += dS[i * N + j] * mat_get(&k, b, h, j, e);
                    expect_close("grad_q", "decoded", &gq, b, h, i, e, scale * acc, 2e-5, 2.0);
                }
            for (int j = 0; j < N; j++)
                for (int e = 0; e < D; e++) {
                    double ak = 0.0, av = 0.0;
                    for (int i = 0; i < M; i++) {
                        ak += dS[i * N + j] * mat_get(&q, b, h, i, e);
                        av += P[i * N + j] * mat_get(&go, b, h, i, e);
                    }
                    expect_close("grad_k", "decoded", &gk, b, h, j, e, scale * ak, 2e-5, 2.0);
                    expect_close("grad_v", "decoded", &gv, b, h, j, e, av, 2e-5, 2.0);
                }
        }

    /* Refusals: each leaves the process alive with a clear status. */
    unsigned char bad[272];
    memcpy(bad, fp, sizeof(bad));
    bad[200] = 1;                                         /* use_dropout */
    fargs[0] = bad;
    CHECK(tfl_kfamily_attention.run(&call, ckf, err, sizeof(err)) == TFL_ERR_UNSUPPORTED,
          "dropout forward not refused");
    memcpy(bad, fp, sizeof(bad));
    put_ptr(bad, 32, lse);                                /* seqstart_q (varlen) */
    CHECK(tfl_kfamily_attention.run(&call, ckf, err, sizeof(err)) == TFL_ERR_UNSUPPORTED,
          "varlen forward not refused");
    memcpy(bad, fp, sizeof(bad));
    put_i32(bad, 88, 16);                                 /* window_size */
    CHECK(tfl_kfamily_attention.run(&call, ckf, err, sizeof(err)) == TFL_ERR_UNSUPPORTED,
          "sliding window not refused");
    memcpy(bad, fp, sizeof(bad));
    call.grid[2] = B + 1;                                 /* grid disagrees */
    CHECK(tfl_kfamily_attention.run(&call, ckf, err, sizeof(err)) == TFL_ERR_UNSUPPORTED,
          "grid mismatch not refused");
    call.grid[2] = B;
    float host_buf[16];
    put_ptr(bad, 0, host_buf);                            /* not device memory */
    err[0] = 0;
    CHECK(tfl_kfamily_attention.run(&call, ckf, err, sizeof(err)) == TFL_ERR_INVALID &&
          strstr(err, "query"), "bad query pointer: %s", err);
    memcpy(bad, fp, sizeof(bad));
    put_i32(bad, 104, M + 1000);                          /* rows past the buffer */
    CHECK(tfl_kfamily_attention.run(&call, ckf, err, sizeof(err)) == TFL_ERR_INVALID,
          "out-of-range query rows accepted");
    void *ckd = NULL;
    tfl_kfamily_attention.match(NAME_B_DROPOUT, &ckd);
    bcall.name = NAME_B_DROPOUT;
    CHECK(tfl_kfamily_attention.run(&bcall, ckd, err, sizeof(err)) == TFL_ERR_UNSUPPORTED,
          "dropout backward not refused");
    bcall.name = NAME_B;
    fargs[0] = fp;
    test_2_15(&call, &bcall, fp, bp, &o, &gq);

    free(P); free(L); free(dS);
    void *all[] = { q.mem, k.mem, v.mem, o.mem, go.mem, gq.mem, gk.mem, gv.mem, lse, delta };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        tfl_mem_free(all[i], 1u << TFL_MEM_DEVICE);
}

int main(void)
{
    test_host_op();
    test_empty();
    test_refused();
    test_match();
    test_layouts(0);
    test_decode();
    printf("test_ops_attention: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

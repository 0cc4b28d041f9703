/*
 * test_ptx_mma.c - cp.async, ldmatrix and mma.sync (f16, bf16 with f32
 * accumulators; tf32) as CUTLASS-style code uses them: each 16x8 tile
 * D = A*B + C is compared with a double-precision host product of the same
 * (rounded) inputs.
 */
#include "ptx_harness.h"

static float h2f(uint16_t h)
{
    _Float16 x;
    memcpy(&x, &h, 2);
    return (float)x;
}
static uint16_t f2h(float f)
{
    _Float16 x = (_Float16)f;
    uint16_t h;
    memcpy(&h, &x, 2);
    return h;
}
static float bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16); }

static void run_half(hx_module *m, int bf)
{
    int tiles = 3;
    uint16_t *A = dalloc(tiles * 256 * 2), *Bt = dalloc(tiles * 128 * 2);
    float *C = dalloc(tiles * 128 * 4), *D = dalloc(tiles * 128 * 4);
    for (int i = 0; i < tiles * 256; i++) A[i] = bf ? f2bf(rnd_f(-2, 2)) : f2h(rnd_f(-2, 2));
    for (int i = 0; i < tiles * 128; i++) { Bt[i] = bf ? f2bf(rnd_f(-2, 2)) : f2h(rnd_f(-2, 2)); C[i] = rnd_f(-1, 1); }
    void *args[] = { &A, &Bt, &C, &D };
    CHECK(launch1(m, bf ? "mma_bf16" : "mma_f16", tiles, 32, 0, args) == HX_OK, "mma launch");
    int bad = 0;
    for (int t = 0; t < tiles; t++)
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                double acc = C[t * 128 + r * 8 + c];
                for (int k = 0; k < 16; k++) {
                    uint16_t a = A[t * 256 + r * 16 + k], b = Bt[t * 128 + c * 16 + k];
                    acc += (double)(bf ? bf2f(a) : h2f(a)) * (bf ? bf2f(b) : h2f(b));
                }
                double got = D[t * 128 + r * 8 + c];
                if (fabs(got - acc) > 1e-5 * (1 + fabs(acc))) {
                    if (bad++ < 3) fprintf(stderr, "%s tile %d (%d,%d): %f want %f\n", bf ? "bf16" : "f16", t, r, c, got, acc);
                }
            }
    CHECK(bad == 0, "%s mma: %d mismatches", bf ? "bf16" : "f16", bad);
    dfree(A); dfree(Bt); dfree(C); dfree(D);
}

static void run_tf32(hx_module *m)
{
    float *A = dalloc(128 * 4), *Bt = dalloc(64 * 4), *C = dalloc(128 * 4), *D = dalloc(128 * 4);
    for (int i = 0; i < 128; i++) { A[i] = rnd_f(-2, 2); C[i] = rnd_f(-1, 1); }
    for (int i = 0; i < 64; i++) Bt[i] = rnd_f(-2, 2);
    void *args[] = { &A, &Bt, &C, &D };
    CHECK(launch1(m, "mma_tf32", 1, 32, 0, args) == HX_OK, "tf32 launch");
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            double acc = C[r * 8 + c];
            for (int k = 0; k < 8; k++) {
                uint32_t ua, ub; memcpy(&ua, &A[r * 8 + k], 4); memcpy(&ub, &Bt[c * 8 + k], 4);
                ua &= 0xffffe000u; ub &= 0xffffe000u;     /* tf32: 10 mantissa bits */
                float fa, fb; memcpy(&fa, &ua, 4); memcpy(&fb, &ub, 4);
                acc += (double)fa * fb;
            }
            if (fabs(D[r * 8 + c] - acc) > 1e-5 * (1 + fabs(acc))) bad++;
        }
    CHECK(bad == 0, "tf32 mma: %d mismatches", bad);
    dfree(A); dfree(Bt); dfree(C); dfree(D);
}

static void run_ldmatrix(hx_module *m)
{
    uint16_t *M = dalloc(64 * 2);
    uint32_t *out = dalloc(64 * 4);
    for (int i = 0; i < 64; i++) M[i] = (uint16_t)(rnd_u32() & 0xffff);
    void *args[] = { &M, &out };
    CHECK(launch1(m, "ldm_frag", 1, 32, 0, args) == HX_OK, "ldmatrix launch");
    int bad = 0;
    for (int l = 0; l < 32; l++) {
        /* PTX ISA: lane l holds row l/4, columns 2*(l%4) and +1; with
         * .trans, the same positions of the transposed matrix */
        int r = l / 4, c = 2 * (l % 4);
        uint32_t want = M[r * 8 + c] | (uint32_t)M[r * 8 + c + 1] << 16;
        uint32_t want_t = M[c * 8 + r] | (uint32_t)M[(c + 1) * 8 + r] << 16;
        if (out[l] != want || out[32 + l] != want_t) bad++;
    }
    CHECK(bad == 0, "ldmatrix fragments: %d lanes wrong", bad);
    dfree(M); dfree(out);
}

static void run_k8_f16acc(hx_module *m)
{
    uint16_t *A = dalloc(128 * 2), *Bt = dalloc(64 * 2), *C = dalloc(128 * 2), *D = dalloc(128 * 2);
    for (int i = 0; i < 128; i++) { A[i] = f2h((float)((int)(rnd_u32() % 9) - 4) * 0.5f); C[i] = f2h((float)(rnd_u32() % 5)); }
    for (int i = 0; i < 64; i++) Bt[i] = f2h((float)((int)(rnd_u32() % 7) - 3));
    void *args[] = { &A, &Bt, &C, &D };
    CHECK(launch1(m, "mma_k8_f16acc", 1, 32, 0, args) == HX_OK, "k8 launch");
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            double acc = h2f(C[r * 8 + c]);
            for (int k = 0; k < 8; k++) acc += (double)h2f(A[r * 8 + k]) * h2f(Bt[c * 8 + k]);
            if (h2f(D[r * 8 + c]) != (float)acc) bad++;   /* small integers: exact */
        }
    CHECK(bad == 0, "m16n8k8 f16 accumulators: %d mismatches", bad);
    dfree(A); dfree(Bt); dfree(C); dfree(D);
}

int main(void)
{
    for (int v = 0; ptx_variants[v]; v++) {
        ptx_variant = ptx_variants[v];
        hx_module *m = load_ptx("k_mma", NULL);
        run_half(m, 0);
        run_half(m, 1);
        run_tf32(m);
        run_ldmatrix(m);
        run_k8_f16acc(m);
        hx_module_destroy(m);
    }
    return finish("test_ptx_mma");
}

/*
 * test_ptx_warp.c - warp collectives from nvcc PTX (shfl up/down/xor/idx
 * with widths, ballot/all/any, match any/all, redux, activemask) and
 * atomics (32/64-bit, float/double, CAS loops, shared-memory histogram),
 * each against a host model of the same semantics.
 */
#include "ptx_harness.h"

static int shfl_ref(const int *v, int t, int mode, int b, int width)
{
    int lane = t & 31, base = t & ~31;
    int seg = lane & ~(width - 1), j;
    switch (mode) {
    case 0: j = lane + b; if (j >= seg + width) j = lane; break;       /* down */
    case 1: j = lane - b; if (j < seg) j = lane; break;                /* up   */
    case 2: j = lane ^ b; if (j >= seg + width) j = lane; break;       /* xor  */
    default: j = seg + (b & (width - 1)); break;                        /* idx  */
    }
    return v[base + j];
}

static void test_shfl(hx_module *m)
{
    int *in = dalloc(64 * 4), *out = dalloc(9 * 64 * 4);
    for (int i = 0; i < 64; i++) in[i] = (int)(rnd_u32() % 1000) - 500;
    void *args[] = { &in, &out };
    CHECK(launch1(m, "shfl_all", 1, 64, 0, args) == HX_OK, "shfl launch");
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        int lane = t & 31, base = t & ~31;
        if (out[t] != shfl_ref(in, t, 0, 3, 32)) bad++;
        if (out[64 + t] != shfl_ref(in, t, 1, 5, 32)) bad++;
        if (out[128 + t] != shfl_ref(in, t, 2, 6, 32)) bad++;
        if (out[192 + t] != shfl_ref(in, t, 3, (lane * 7) & 31, 32)) bad++;
        if (out[256 + t] != shfl_ref(in, t, 3, 2, 8)) bad++;
        if (out[320 + t] != shfl_ref(in, t, 0, 1, 16)) bad++;
        if (out[384 + t] != in[base + (lane ^ 1)]) bad++;
        int s = 0;
        for (int k = 0; k < 32; k++) s += in[base + k];
        if (out[448 + t] != s) bad++;
        int j = lane + 2 < 32 ? t + 2 : t;
        if (out[512 + t] != (int)(((double)in[j] + 0.25) * 4.0)) bad++;
    }
    CHECK(bad == 0, "shfl: %d mismatches", bad);
    dfree(in); dfree(out);
}

static void test_vote(hx_module *m)
{
    int *in = dalloc(64 * 4);
    unsigned *out = dalloc(11 * 64 * 4);
    for (int i = 0; i < 64; i++) in[i] = (int)(rnd_u32() % 100) - 30;
    in[40] = 0x10;   /* clz/ffs edge values */
    void *args[] = { &in, &out };
    CHECK(launch1(m, "vote_all", 1, 64, 0, args) == HX_OK, "vote launch");
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        int base = t & ~31;
        unsigned ballot = 0, odd = 0, match = 0;
        int all = 1, any = 0;
        unsigned sum = 0; int mn = 1 << 30, mx = -(1 << 30);
        for (int k = 0; k < 32; k++) {
            int v = in[base + k];
            if (v > 0) ballot |= 1u << k;
            if (v & 1) odd |= 1u << k;
            if ((v & 3) == (in[t] & 3)) match |= 1u << k;
            if (!(v > -50)) all = 0;
            if (v > 40) any = 1;
            sum += (unsigned)v; if (v < mn) mn = v; if (v > mx) mx = v;
        }
        int v = in[t];
        if (out[t] != ballot) bad++;
        if (out[64 + t] != (unsigned)all) bad++;
        if (out[128 + t] != (unsigned)any) bad++;
        if (out[192 + t] != match) bad++;
        if (out[256 + t] != 0xffffffffu || out[320 + t] != 1) bad++;
        if (out[384 + t] != sum) bad++;
        if (out[448 + t] != (unsigned)mn || out[512 + t] != (unsigned)mx) bad++;
        if (out[576 + t] != ((v & 1) ? odd : 0u)) bad++;
        unsigned uv = (unsigned)v, br = 0;
        for (int k = 0; k < 32; k++) if (uv & (1u << k)) br |= 1u << (31 - k);
        unsigned e = (unsigned)__builtin_popcount(odd) + (unsigned)(uv ? __builtin_ctz(uv) + 1 : 0) +
                     (unsigned)(uv ? __builtin_clz(uv) : 32) + br;
        if (out[640 + t] != e) bad++;
    }
    CHECK(bad == 0, "vote: %d mismatches", bad);
    dfree(in); dfree(out);
}

static void test_warp_reduce(hx_module *m)
{
    int n = 3000;
    float *in = dalloc(n * 4), *out = dalloc(4);
    float ref = -INFINITY;
    for (int i = 0; i < n; i++) { in[i] = rnd_f(-100, 100); if (in[i] > ref) ref = in[i]; }
    void *args[] = { &in, &out, &n };
    CHECK(launch1(m, "warp_reduce_max", 1, 200, 0, args) == HX_OK, "warp_reduce launch");
    CHECK(*out == ref, "warp_reduce_max %f want %f", *out, ref);
    dfree(in); dfree(out);
}

static void test_atomics(hx_module *a)
{
    int n = 5000;
    int *ci = dalloc(7 * 4);
    unsigned *cu = dalloc(6 * 4);
    float *cf = dalloc(4);
    int ci0[7] = { 0, 0, -5, 5, 0, 0, 0 };
    unsigned cu0[6] = { 0xffffffffu, 0, 0, 0, 0, 0 };
    memcpy(ci, ci0, sizeof ci0); memcpy(cu, cu0, sizeof cu0); *cf = 0;
    void *args[] = { &ci, &cu, &cf, &n };
    CHECK(launch1(a, "atomics32", (n + 255) / 256, 256, 0, args) == HX_OK, "atomics32");
    long long sum = 0; int mx = -5, mn = 5; unsigned xo = 0, orv = 0, andv = 0xffffffffu, umax = 0;
    for (int i = 0; i < n; i++) {
        sum += i; if (i * 7 % 1001 > mx) mx = i * 7 % 1001;
        if (-(i * 13 % 997) < mn) mn = -(i * 13 % 997);
        xo ^= (unsigned)i; orv |= 1u << (i % 29); andv &= ~(1u << (i % 32));
        if ((unsigned)i * 3u > umax) umax = (unsigned)i * 3u;
    }
    unsigned inc = 0, dec = 0;
    for (int i = 0; i < n; i++) { inc = inc >= 99 ? 0 : inc + 1; dec = (dec == 0 || dec > 50) ? 50 : dec - 1; }
    CHECK(ci[0] == (int)sum, "add %d", ci[0]);
    CHECK(ci[1] == -n, "sub %d", ci[1]);
    CHECK(ci[2] == mx && ci[3] == mn, "max %d min %d", ci[2], ci[3]);
    CHECK(cu[0] == andv && cu[1] == orv && cu[2] == xo, "and/or/xor %x %x %x", cu[0], cu[1], cu[2]);
    CHECK(cu[3] == inc && cu[4] == dec, "inc %u dec %u (want %u %u)", cu[3], cu[4], inc, dec);
    CHECK(cu[5] == umax, "umax %u", cu[5]);
    CHECK(*cf == 0.5f * n, "fadd %f", *cf);
    CHECK(ci[4] == 42, "exch %d", ci[4]);
    CHECK(ci[6] == ci[5] && ci[5] >= 1, "cas successes %d value %d", ci[6], ci[5]);
    dfree(ci); dfree(cu); dfree(cf);

    unsigned long long *u = dalloc(3 * 8);
    double *d = dalloc(2 * 8);
    long long *l = dalloc(2 * 8);
    u[0] = 0; u[1] = 0; u[2] = 0; d[0] = 0; d[1] = -1; l[0] = -1; l[1] = 0;
    void *a64[] = { &u, &d, &l, &n };
    CHECK(launch1(a, "atomics64", (n + 127) / 128, 128, 0, a64) == HX_OK, "atomics64");
    unsigned long long su = 0; double sd = 0, dm = -1; long long lm = -1, lmin = 0;
    for (int i = 0; i < n; i++) {
        su += (unsigned long long)i << 20; sd += i * 0.125;
        if ((double)((i * 37) % 1013) * 1.5 > dm) dm = (double)((i * 37) % 1013) * 1.5;
        if ((long long)i * 1000000007LL > lm) lm = (long long)i * 1000000007LL;
        if (-(long long)i * 3 < lmin) lmin = -(long long)i * 3;
    }
    CHECK(u[0] == su, "u64 add %llu", u[0]);
    CHECK(d[0] == sd, "f64 add %f want %f", d[0], sd);
    CHECK(d[1] == dm, "cas-loop max %f want %f", d[1], dm);
    CHECK(l[0] == lm && l[1] == lmin, "s64 max/min %lld %lld", l[0], l[1]);
    CHECK(u[1] == 7 && u[2] == ~0ull, "exch/or64 %llu %llx", u[1], u[2]);
    dfree(u); dfree(d); dfree(l);

    int hn = 70000;
    unsigned char *hin = dalloc(hn);
    unsigned *hist = dalloc(256 * 4);
    unsigned ref[256] = { 0 };
    for (int i = 0; i < hn; i++) { hin[i] = (unsigned char)(rnd_u32() % 251); ref[hin[i]]++; }
    memset(hist, 0, 256 * 4);
    void *ha[] = { &hin, &hist, &hn };
    CHECK(launch1(a, "histo_shared", 8, 128, 0, ha) == HX_OK, "histo");
    int bad = 0;
    for (int i = 0; i < 256; i++) if (hist[i] != ref[i]) bad++;
    CHECK(bad == 0, "histogram: %d bins differ", bad);
    dfree(hin); dfree(hist);
}

int main(void)
{
    for (int v = 0; ptx_variants[v]; v++) {
        ptx_variant = ptx_variants[v];
        hx_module *m = load_ptx("k_warp", NULL);
        test_shfl(m);
        test_vote(m);
        test_warp_reduce(m);
        hx_module_destroy(m);
        hx_module *a = load_ptx("k_atomic", NULL);
        test_atomics(a);
        hx_module_destroy(a);
    }
    return finish("test_ptx_warp");
}

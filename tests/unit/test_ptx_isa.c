/*
 * test_ptx_isa.c - instruction semantics on hand-written PTX, each result
 * checked against an independent host computation: integer bit
 * manipulation (prmt, bfe, bfi, shf, lop3, dp4a, brev, bfind, clz, popc,
 * mul.hi/wide, sad, mul24), conversions with every rounding mode and
 * saturation, float min/max NaN and signed-zero rules, unordered compares
 * with predicate combining, packed f16x2, predicated execution and early
 * exit, address-space conversions; malformed PTX gives HX_ERR_PTX with a
 * line number, unsupported instructions HX_ERR_UNSUPPORTED naming them.
 */
#include <fenv.h>

#include "ptx_harness.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* Each thread i reads a[i], b[i], c[i] (u32) and writes NOUT results. */
static const char *ops32_ptx = HDR
".visible .entry ops32(.param .u64 pa, .param .u64 pout)\n"
"{\n"
"  .reg .b32 %r<40>;\n"
"  .reg .b64 %rd<8>;\n"
"  .reg .pred %p<4>;\n"
"  ld.param.u64 %rd1, [pa];\n"
"  ld.param.u64 %rd2, [pout];\n"
"  mov.u32 %r1, %tid.x;\n"
"  mul.wide.u32 %rd3, %r1, 16;\n"
"  add.s64 %rd3, %rd1, %rd3;\n"
"  ld.global.v2.u32 {%r2, %r3}, [%rd3];\n"
"  ld.global.u32 %r4, [%rd3+8];\n"
"  mul.wide.u32 %rd4, %r1, 256;\n"
"  add.s64 %rd4, %rd2, %rd4;\n"
"  prmt.b32 %r10, %r2, %r3, %r4;\n"
"st(0)\n"
"  bfe.u32 %r10, %r2, %r3, %r4;\n"
"st(1)\n"
"  bfe.s32 %r10, %r2, %r3, %r4;\n"
"st(2)\n"
"  bfi.b32 %r10, %r2, %r3, %r4, 7;\n"
"st(3)\n"
"  shf.l.wrap.b32 %r10, %r2, %r3, %r4;\n"
"st(4)\n"
"  shf.r.clamp.b32 %r10, %r2, %r3, %r4;\n"
"st(5)\n"
"  lop3.b32 %r10, %r2, %r3, %r4, 0xE8;\n"
"st(6)\n"
"  dp4a.s32.u32 %r10, %r2, %r3, %r4;\n"
"st(7)\n"
"  brev.b32 %r10, %r2;\n"
"st(8)\n"
"  bfind.s32 %r10, %r2;\n"
"st(9)\n"
"  clz.b32 %r10, %r3;\n"
"st(10)\n"
"  popc.b32 %r10, %r4;\n"
"st(11)\n"
"  mul.hi.s32 %r10, %r2, %r3;\n"
"st(12)\n"
"  mul.hi.u32 %r10, %r2, %r3;\n"
"st(13)\n"
"  sad.s32 %r10, %r2, %r3, %r4;\n"
"st(14)\n"
"  mul24.lo.s32 %r10, %r2, %r3;\n"
"st(15)\n"
"  shr.s32 %r10, %r2, %r4;\n"
"st(16)\n"
"  shl.b32 %r10, %r2, %r4;\n"
"st(17)\n"
"  min.s32 %r10, %r2, %r3;\n"
"st(18)\n"
"  max.u32 %r10, %r2, %r3;\n"
"st(19)\n"
"  setp.lt.s32 %p1, %r2, %r3;\n"
"  selp.b32 %r10, %r2, %r4, %p1;\n"
"st(20)\n"
"  slct.b32.s32 %r10, %r3, %r4, %r2;\n"
"st(21)\n"
"  cnot.b32 %r10, %r4;\n"
"st(22)\n"
"  abs.s32 %r10, %r2;\n"
"st(23)\n"
"  rem.u32 %r10, %r2, %r3;\n"
"st(24)\n"
"  div.s32 %r10, %r2, %r3;\n"
"st(25)\n"
"  mad.lo.u32 %r10, %r2, %r3, %r4;\n"
"st(26)\n"
"  add.sat.s32 %r10, %r2, %r3;\n"
"st(27)\n"
"  prmt.b32.f4e %r10, %r2, %r3, %r4;\n"
"st(28)\n"
"  bfind.shiftamt.u32 %r10, %r3;\n"
"st(29)\n"
"  mov.b32 {%rs_lo, %rs_hi}, %r2;\n"
"  mov.b32 %r10, {%rs_hi, %rs_lo};\n"
"st(30)\n"
"  xor.b32 %r10, %r2, 0x5555AAAA;\n"
"st(31)\n"
"  bmsk.clamp.b32 %r10, %r3, %r4;\n"
"st(32)\n"
"  szext.wrap.s32 %r10, %r2, %r4;\n"
"st(33)\n"
"  ret;\n"
"}\n";
#define NOUT 34

static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t v = ((uint64_t)b << 32) | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t byte;
        if (mode == 0) {
            uint32_t s = (c >> (4 * i)) & 15;
            byte = (uint32_t)(v >> (8 * (s & 7))) & 0xff;
            if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
        } else {
            byte = (uint32_t)(v >> (8 * (((c & 3) + (unsigned)i) & 7))) & 0xff;
        }
        r |= byte << (8 * i);
    }
    return r;
}

static void ref32(uint32_t a, uint32_t b, uint32_t c, uint32_t *o)
{
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    o[0] = prmt_ref(a, b, c, 0);
    uint32_t pos = b & 0xff, len = c & 0xff;
    /* bfe: extract len bits from pos; signed fills with the field's top bit */
    uint32_t u = 0, s = 0;
    if (len) {
        for (uint32_t i = 0; i < 32; i++) {
            uint32_t src = pos + i;
            uint32_t top = pos + len - 1 > 31 ? 31 : pos + len - 1;
            uint32_t ub = (i < len && src <= 31) ? (a >> src) & 1 : 0;
            uint32_t sbit = (i < len && src <= 31) ? (a >> src) & 1 : (a >> top) & 1;
            u |= ub << i; s |= sbit << i;
        }
    }
    o[1] = u; o[2] = s;
    uint32_t bpos = c & 0xff, blen = 7, r = b;
    for (uint32_t i = 0; i < blen && bpos + i < 32; i++)
        r = (r & ~(1u << (bpos + i))) | (((a >> i) & 1) << (bpos + i));
    o[3] = bpos > 31 ? b : r;
    uint32_t n = c & 31;
    o[4] = n ? (b << n) | (a >> (32 - n)) : b;
    uint32_t nc = c > 32 ? 32 : c;
    o[5] = nc == 32 ? b : nc ? (a >> nc) | (b << (32 - nc)) : a;
    o[6] = (a & b) | (a & c) | (b & c);       /* majority = LUT 0xE8 */
    int32_t acc = (int32_t)c;
    for (int i = 0; i < 4; i++) acc += (int32_t)(int8_t)(a >> (8 * i)) * (int32_t)(uint8_t)(b >> (8 * i));
    o[7] = (uint32_t)acc;
    uint32_t br = 0;
    for (int i = 0; i < 32; i++) br |= ((a >> i) & 1) << (31 - i);
    o[8] = br;
    uint32_t x = sa < 0 ? ~a : a;
    o[9] = x ? 31 - (uint32_t)__builtin_clz(x) : 0xffffffffu;
    o[10] = b ? (uint32_t)__builtin_clz(b) : 32;
    o[11] = (uint32_t)__builtin_popcount(c);
    o[12] = (uint32_t)(((int64_t)sa * sb) >> 32);
    o[13] = (uint32_t)(((uint64_t)a * b) >> 32);
    o[14] = (uint32_t)((sa > sb ? (int64_t)sa - sb : (int64_t)sb - sa) + (int64_t)(int32_t)c);
    int32_t a24 = (int32_t)(a << 8) >> 8, b24 = (int32_t)(b << 8) >> 8;
    o[15] = (uint32_t)((int64_t)a24 * b24);
    o[16] = (uint32_t)(c >= 32 ? (sa < 0 ? -1 : 0) : sa >> c);
    o[17] = c >= 32 ? 0 : a << c;
    o[18] = (uint32_t)(sa < sb ? sa : sb);
    o[19] = a > b ? a : b;
    o[20] = sa < sb ? a : c;
    o[21] = sa >= 0 ? b : c;
    o[22] = c == 0;
    o[23] = (uint32_t)(sa < 0 ? -(int64_t)sa : sa);
    o[24] = b ? a % b : a;
    o[25] = sb == 0 ? 0xffffffffu : (sb == -1 ? (uint32_t)-(int64_t)sa : (uint32_t)(sa / sb));
    o[26] = a * b + c;
    int64_t sum = (int64_t)sa + sb;
    o[27] = (uint32_t)(sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum);
    o[28] = prmt_ref(a, b, c, 1);
    o[29] = b ? (uint32_t)__builtin_clz(b) : 0xffffffffu;
    o[30] = (a >> 16) | (a << 16);
    o[31] = a ^ 0x5555AAAAu;
    uint32_t bp = b > 32 ? 32 : b, bw = c > 32 ? 32 : c;
    o[32] = bp >= 32 ? 0 : (uint32_t)((((uint64_t)1 << bw) - 1) << bp);
    uint32_t nb = c & 31;
    o[33] = nb == 0 ? 0 : (uint32_t)(((int64_t)(int32_t)(a << (32 - nb))) >> (32 - nb));
}

static char *expand_st(const char *src)
{
    /* st(k) -> "  st.global.u32 [%rd4+4k], %r10;\n" */
    size_t cap = strlen(src) * 3 + 1024;
    char *out = malloc(cap), *o = out;
    for (const char *p = src; *p;) {
        if (p[0] == 's' && p[1] == 't' && p[2] == '(' ) {
            int k = atoi(p + 3);
            o += sprintf(o, "  st.global.u32 [%%rd4+%d], %%r10;\n", 4 * k);
            p = strchr(p, ')') + 1;
        } else *o++ = *p++;
    }
    *o = 0;
    return out;
}

static void test_ops32(void)
{
    /* the mov.b32 {lo,hi} needs 16-bit registers */
    const char *decl = "  .reg .b16 %rs_lo, %rs_hi;\n";
    char *src = expand_st(ops32_ptx);
    char *full = malloc(strlen(src) + 64);
    char *at = strstr(src, "  .reg .pred");
    memcpy(full, src, (size_t)(at - src));
    strcpy(full + (at - src), decl);
    strcat(full, at);
    hx_module *m = hx_module_create(full, 0);
    CHECK(m != NULL, "module");
    int n = 256;
    uint32_t *a = dalloc(n * 16), *out = dalloc(n * 256);
    for (int i = 0; i < n; i++) {
        a[4 * i] = rnd_u32(); a[4 * i + 1] = rnd_u32(); a[4 * i + 2] = rnd_u32();
        if (i % 4 == 1) { a[4 * i + 1] &= 31; a[4 * i + 2] &= 31; }          /* in-range positions */
        if (i % 4 == 2) { a[4 * i + 1] %= 40; a[4 * i + 2] %= 40; }
        if (i == 3) { a[12] = 0x80000000u; a[13] = 0xffffffffu; a[14] = 0; }  /* INT_MIN / -1 */
        if (i == 7) { a[28] = 5; a[29] = 0; a[30] = 33; }                     /* x/0, shifts >= 32 */
        if (i == 11) { a[44] = 0x7fffffffu; a[45] = 5; }                      /* add.sat */
    }
    void *args[] = { &a, &out };
    CHECK(launch1(m, "ops32", 1, n, 0, args) == HX_OK, "ops32 launch");
    int bad[NOUT] = { 0 };
    for (int i = 0; i < n; i++) {
        uint32_t r[NOUT];
        ref32(a[4 * i], a[4 * i + 1], a[4 * i + 2], r);
        for (int k = 0; k < NOUT; k++)
            if (out[i * 64 + k] != r[k]) {
                if (bad[k]++ < 2) fprintf(stderr, "op %d (a=%08x b=%08x c=%08x): %08x want %08x\n", k,
                                          a[4 * i], a[4 * i + 1], a[4 * i + 2], out[i * 64 + k], r[k]);
            }
    }
    for (int k = 0; k < NOUT; k++) CHECK(bad[k] == 0, "ops32 result %d: %d mismatches", k, bad[k]);
    dfree(a); dfree(out);
    hx_module_destroy(m);
    free(src); free(full);
}

/* float conversions and compares: thread i reads f[i] (f32) and d[i] (f64) */
static const char *fops_ptx = HDR
".visible .entry fops(.param .u64 pf, .param .u64 pd, .param .u64 pout)\n"
"{\n"
"  .reg .b32 %r<20>;\n  .reg .f32 %f<10>;\n  .reg .f64 %fd<4>;\n  .reg .b64 %rd<10>;\n"
"  .reg .pred %p<8>;\n  .reg .b16 %h<4>;\n"
"  ld.param.u64 %rd1, [pf];\n  ld.param.u64 %rd2, [pd];\n  ld.param.u64 %rd3, [pout];\n"
"  mov.u32 %r1, %tid.x;\n"
"  mul.wide.u32 %rd4, %r1, 4;\n  add.s64 %rd4, %rd1, %rd4;\n  ld.global.f32 %f1, [%rd4];\n"
"  ld.global.f32 %f2, [%rd4+4];\n"
"  mul.wide.u32 %rd5, %r1, 8;\n  add.s64 %rd5, %rd2, %rd5;\n  ld.global.f64 %fd1, [%rd5];\n"
"  mul.wide.u32 %rd6, %r1, 80;\n  add.s64 %rd6, %rd3, %rd6;\n"
"  cvt.rni.s32.f32 %r2, %f1;\n  st.global.u32 [%rd6], %r2;\n"
"  cvt.rzi.s32.f32 %r2, %f1;\n  st.global.u32 [%rd6+4], %r2;\n"
"  cvt.rmi.s32.f32 %r2, %f1;\n  st.global.u32 [%rd6+8], %r2;\n"
"  cvt.rpi.u32.f32 %r2, %f1;\n  st.global.u32 [%rd6+12], %r2;\n"
"  cvt.rn.f16.f32 %h1, %f1;\n  st.global.u16 [%rd6+16], %h1;\n"
"  cvt.rz.f16.f32 %h1, %f1;\n  st.global.u16 [%rd6+18], %h1;\n"
"  cvt.rm.f16.f32 %h1, %f1;\n  st.global.u16 [%rd6+20], %h1;\n"
"  cvt.rp.f16.f32 %h1, %f1;\n  st.global.u16 [%rd6+22], %h1;\n"
"  cvt.sat.f32.f32 %f3, %f1;\n  st.global.f32 [%rd6+24], %f3;\n"
"  cvt.rz.f32.f64 %f3, %fd1;\n  st.global.f32 [%rd6+28], %f3;\n"
"  cvt.rn.f32.f64 %f3, %fd1;\n  st.global.f32 [%rd6+32], %f3;\n"
"  min.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd6+36], %f3;\n"
"  max.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd6+40], %f3;\n"
"  min.NaN.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd6+44], %f3;\n"
"  setp.ltu.f32 %p1|%p2, %f1, %f2;\n"
"  setp.nan.and.f32 %p3, %f1, %f2, %p2;\n"
"  selp.u32 %r3, 1, 0, %p1;\n  selp.u32 %r4, 2, 0, %p2;\n  selp.u32 %r5, 4, 0, %p3;\n"
"  or.b32 %r3, %r3, %r4;\n  or.b32 %r3, %r3, %r5;\n"
"  setp.geu.or.f32 %p4, %f1, 0f00000000, !%p1;\n  selp.u32 %r4, 8, 0, %p4;\n  or.b32 %r3, %r3, %r4;\n"
"  testp.finite.f32 %p5, %f1;\n  selp.u32 %r4, 16, 0, %p5;\n  or.b32 %r3, %r3, %r4;\n"
"  testp.subnormal.f32 %p5, %f1;\n  selp.u32 %r4, 32, 0, %p5;\n  or.b32 %r3, %r3, %r4;\n"
"  st.global.u32 [%rd6+48], %r3;\n"
"  copysign.f32 %f3, %f2, %f1;\n  st.global.f32 [%rd6+52], %f3;\n"
"  cvt.sat.u8.s32 %r6, %r2;\n  st.global.u32 [%rd6+56], %r6;\n"
"  cvt.rzi.s64.f64 %rd7, %fd1;\n  st.global.u64 [%rd6+64], %rd7;\n"
"  cvt.rn.f16x2.f32 %r7, %f1, %f2;\n  mov.b32 {%h1, %h2}, %r7;\n"
"  add.rn.f16 %h3, %h1, %h2;\n  st.global.u16 [%rd6+72], %h3;\n"
"  mul.rn.f16x2 %r8, %r7, %r7;\n  st.global.u32 [%rd6+76], %r8;\n"
"  ret;\n}\n";

static uint16_t h_bits(_Float16 h) { uint16_t u; memcpy(&u, &h, 2); return u; }
static uint16_t f2h_mode(float x, int mode)
{
    /* round x to half with a rounding mode: exact neighbours by search */
    _Float16 n = (_Float16)x;                  /* round to nearest even */
    if (mode == 0 || isnan(x)) return h_bits(n);
    float nf = (float)n;
    if (nf == x) return h_bits(n);
    uint16_t u = h_bits(n);
    /* neighbour towards zero / away from zero */
    uint16_t lo, hi;   /* lo <= x <= hi in value */
    if (nf > x) { hi = u; lo = (u & 0x8000) ? (uint16_t)(u + 1) : (uint16_t)(u - 1); if (u == 0) lo = 0x8001; }
    else { lo = u; hi = (u & 0x8000) ? (uint16_t)(u - 1) : (uint16_t)(u + 1); if (u == 0x8000) hi = 0x0001; }
    if (isinf(nf)) { if (nf > 0) { hi = 0x7c00; lo = 0x7bff; } else { lo = 0xfc00; hi = 0xfbff; } }
    if (mode == 2) return lo;       /* rm */
    if (mode == 3) return hi;       /* rp */
    return x > 0 ? lo : hi;         /* rz */
}

static void test_fops(void)
{
    char *src = strdup(fops_ptx);
    hx_module *m = hx_module_create(src, 0);
    int n = 96;
    float *f = dalloc((n + 1) * 4);
    double *d = dalloc(n * 8);
    uint8_t *out = dalloc(n * 80);
    float special[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, NAN, INFINITY, -INFINITY, 0.0f,
                        -0.0f, 1e10f, -1e10f, 1e-40f, 65520.0f, 65519.0f, 3e-8f, -3e-8f, 1.0f, 2.0f };
    for (int i = 0; i <= n; i++) f[i] = i < 20 ? special[i] : rnd_f(-300, 300);
    for (int i = 0; i < n; i++) d[i] = (double)rnd_f(-1e6f, 1e6f) + (double)rnd_f(0, 1) * 1e-9;
    d[0] = NAN; d[1] = 1e300; d[2] = -1e300; d[3] = 1e-310;
    void *args[] = { &f, &d, &out };
    CHECK(launch1(m, "fops", 1, n, 0, args) == HX_OK, "fops launch");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        uint8_t *o = out + i * 80;
        float x = f[i], y = f[i + 1];
        int32_t ri, rz, rm; uint32_t rp;
#define SAT_I(v) (isnan(v) ? 0 : (v) >= 2147483648.0 ? INT32_MAX : (v) < -2147483648.0 ? INT32_MIN : (int32_t)(v))
        ri = SAT_I(nearbyint((double)x)); rz = SAT_I(trunc((double)x)); rm = SAT_I(floor((double)x));
        double cp = ceil((double)x);
        rp = isnan(x) ? 0 : cp <= 0 ? 0 : cp >= 4294967296.0 ? 0xffffffffu : (uint32_t)cp;
        int32_t g[4]; memcpy(g, o, 16);
        if (g[0] != ri || g[1] != rz || g[2] != rm || (uint32_t)g[3] != rp) { bad++; fprintf(stderr, "cvt int x=%g: %d %d %d %u\n", x, g[0], g[1], g[2], (uint32_t)g[3]); }
        uint16_t hh[4]; memcpy(hh, o + 16, 8);
        for (int k = 0; k < 4; k++)
            if (isnan(x) ? (hh[k] & 0x7c00) != 0x7c00 || !(hh[k] & 0x3ff) : hh[k] != f2h_mode(x, k)) {
                bad++; fprintf(stderr, "cvt f16 mode %d x=%g: %04x want %04x\n", k, x, hh[k], f2h_mode(x, k));
            }
        float sat; memcpy(&sat, o + 24, 4);
        float wsat = isnan(x) ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x;
        if (memcmp(&sat, &wsat, 4) && !(sat == 0 && wsat == 0)) { bad++; fprintf(stderr, "sat %g -> %g\n", x, sat); }
        float rzf, rnf; memcpy(&rzf, o + 28, 4); memcpy(&rnf, o + 32, 4);
        fesetround(FE_TOWARDZERO);
        volatile float wz = (float)d[i];
        fesetround(FE_TONEAREST);
        float wn = (float)d[i];
        if (isnan(d[i]) ? !(isnan(rzf) && isnan(rnf)) : (memcmp(&rzf, (const void *)&wz, 4) || memcmp(&rnf, &wn, 4))) { bad++; fprintf(stderr, "f64->f32 %g: %g %g\n", d[i], rzf, rnf); }
        float mn, mx, mnn; memcpy(&mn, o + 36, 4); memcpy(&mx, o + 40, 4); memcpy(&mnn, o + 44, 4);
        float wmn = isnan(x) ? y : isnan(y) ? x : (x == y ? (signbit(x) ? x : y) : x < y ? x : y);
        float wmx = isnan(x) ? y : isnan(y) ? x : (x == y ? (signbit(x) ? y : x) : x > y ? x : y);
        if ((memcmp(&mn, &wmn, 4) && !(isnan(mn) && isnan(wmn))) || (memcmp(&mx, &wmx, 4) && !(isnan(mx) && isnan(wmx))))
            { bad++; fprintf(stderr, "min/max %g %g: %g %g\n", x, y, mn, mx); }
        if ((isnan(x) || isnan(y)) != (isnan(mnn) != 0)) { bad++; fprintf(stderr, "min.NaN %g %g: %g\n", x, y, mnn); }
        int un = isnan(x) || isnan(y);
        int p1 = un || x < y, p2 = !p1, p3 = un && p2, p4 = (isnan(x) || x >= 0) || !p1;
        int p5 = isfinite(x), p6 = fpclassify(x) == FP_SUBNORMAL;
        uint32_t wbits = (uint32_t)(p1 | p2 << 1 | p3 << 2 | p4 << 3 | p5 << 4 | p6 << 5), gbits;
        memcpy(&gbits, o + 48, 4);
        if (gbits != wbits) { bad++; fprintf(stderr, "setp x=%g y=%g: %x want %x\n", x, y, gbits, wbits); }
        float cs; memcpy(&cs, o + 52, 4);
        float wcs = copysignf(x, y);
        if (memcmp(&cs, &wcs, 4) && !(isnan(cs) && isnan(wcs))) { bad++; fprintf(stderr, "copysign\n"); }
        uint32_t u8; memcpy(&u8, o + 56, 4);
        int32_t rps = (int32_t)rp;       /* cvt.sat.u8.s32 reads the rpi result as s32 */
        uint32_t wu8 = rps < 0 ? 0 : rps > 255 ? 255 : (uint32_t)rps;
        if (u8 != wu8) { bad++; fprintf(stderr, "sat.u8 %d -> %u\n", rps, u8); }
        int64_t l; memcpy(&l, o + 64, 8);
        int64_t wl = isnan(d[i]) ? 0 : d[i] >= 9.2233720368547758e18 ? INT64_MAX : d[i] <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)d[i];
        if (l != wl) { bad++; fprintf(stderr, "f64->s64 %g: %lld\n", d[i], (long long)l); }
        _Float16 hx = (_Float16)x, hy = (_Float16)y;
        uint16_t hs; memcpy(&hs, o + 72, 2);
        uint16_t whs = h_bits((_Float16)((float)hy + (float)hx));
        /* packed: cvt puts x in the high half, y in the low half; mov {lo,hi} */
        int hsnan = (hs & 0x7c00) == 0x7c00 && (hs & 0x3ff);
        if (hs != whs && !(hsnan && isnan((float)((float)hy + (float)hx)))) { bad++; fprintf(stderr, "f16 add %g %g: %04x want %04x\n", x, y, hs, whs); }
        uint32_t pk; memcpy(&pk, o + 76, 4);
        uint32_t wpk = (uint32_t)h_bits((_Float16)((float)hx * (float)hx)) << 16 | h_bits((_Float16)((float)hy * (float)hy));
        if (pk != wpk && !(isnan((float)hx) || isnan((float)hy))) { bad++; fprintf(stderr, "f16x2 mul: %08x want %08x\n", pk, wpk); }
    }
    CHECK(bad == 0, "fops: %d mismatches", bad);
    dfree(f); dfree(d); dfree(out);
    hx_module_destroy(m);
    free(src);
}

/* predicated execution, early exit, divergent activemask/ballot,
 * shared/local address conversions and isspacep */
static const char *ctl_ptx = HDR
".visible .entry ctl(.param .u64 pout)\n"
"{\n"
"  .local .align 8 .b8 depot[32];\n"
"  .shared .align 4 .b32 sm[64];\n"
"  .reg .b32 %r<20>;\n  .reg .b64 %rd<12>;\n  .reg .pred %p<6>;\n"
"  ld.param.u64 %rd1, [pout];\n"
"  mov.u32 %r1, %tid.x;\n"
"  mul.wide.u32 %rd2, %r1, 32;\n  add.s64 %rd2, %rd1, %rd2;\n"
"  and.b32 %r2, %r1, 3;\n"
"  setp.eq.u32 %p1, %r2, 0;\n"
"  @%p1 st.global.u32 [%rd2], 111;\n"
"  @!%p1 st.global.u32 [%rd2], 222;\n"
"  activemask.b32 %r3;\n  st.global.u32 [%rd2+4], %r3;\n"
"  @!%p1 bra SKIP;\n"
"  activemask.b32 %r3;\n  st.global.u32 [%rd2+8], %r3;\n"
"  setp.lt.u32 %p2, %r1, 16;\n"
"  vote.sync.ballot.b32 %r4, %p2, %r3;\n  st.global.u32 [%rd2+12], %r4;\n"
"SKIP:\n"
"  mov.u32 %r5, sm;\n  shl.b32 %r6, %r1, 2;\n  add.u32 %r5, %r5, %r6;\n"
"  st.shared.u32 [%r5], %r1;\n"
"  cvta.shared.u64 %rd3, sm;\n  mul.wide.u32 %rd4, %r1, 4;\n  add.s64 %rd3, %rd3, %rd4;\n"
"  isspacep.shared %p3, %rd3;\n  isspacep.global %p4, %rd3;\n"
"  selp.u32 %r7, 1, 0, %p3;\n  selp.u32 %r8, 2, 0, %p4;\n  or.b32 %r7, %r7, %r8;\n"
"  ld.u32 %r9, [%rd3];\n  add.u32 %r7, %r7, %r9;\n  add.u32 %r7, %r7, %r9;\n"
"  st.global.u32 [%rd2+16], %r7;\n"
"  mov.u64 %rd5, depot;\n  cvta.local.u64 %rd6, %rd5;\n"
"  st.u32 [%rd6+4], %r1;\n  ld.local.u32 %r10, [depot+4];\n"
"  isspacep.local %p5, %rd6;\n  selp.u32 %r11, 1000, 0, %p5;\n  add.u32 %r10, %r10, %r11;\n"
"  st.global.u32 [%rd2+20], %r10;\n"
"  setp.gt.u32 %p2, %r1, 40;\n"
"  @%p2 exit;\n"
"  st.global.u32 [%rd2+24], 7;\n"
"  bar.sync 0;\n"
"  st.global.u32 [%rd2+28], 9;\n"
"  ret;\n}\n";

static void test_ctl(void)
{
    char *src = strdup(ctl_ptx);
    hx_module *m = hx_module_create(src, 0);
    int n = 64;
    uint32_t *out = dalloc(n * 32);
    memset(out, 0, n * 32);
    void *args[] = { &out };
    CHECK(launch1(m, "ctl", 1, n, 0, args) == HX_OK, "ctl launch");
    int bad = 0;
    for (int t = 0; t < n; t++) {
        uint32_t *o = out + t * 8;
        int p1 = (t & 3) == 0;
        uint32_t warp_p1 = 0;
        for (int k = 0; k < 32; k++) if ((((t & ~31) + k) & 3) == 0) warp_p1 |= 1u << k;
        uint32_t ballot = 0;
        for (int k = 0; k < 32; k++) if ((warp_p1 >> k & 1) && (t & ~31) + k < 16) ballot |= 1u << k;
        if (o[0] != (p1 ? 111u : 222u)) bad++;
        if (o[1] != 0xffffffffu) bad++;
        if (p1 && (o[2] != warp_p1 || o[3] != ballot)) { bad++; fprintf(stderr, "t%d div mask %x ballot %x\n", t, o[2], o[3]); }
        if (!p1 && (o[2] || o[3])) bad++;
        if (o[4] != 1u + 2u * (uint32_t)t) { bad++; fprintf(stderr, "t%d shared %u\n", t, o[4]); }
        if (o[5] != 1000u + (uint32_t)t) { bad++; fprintf(stderr, "t%d local %u\n", t, o[5]); }
        if (o[6] != (t > 40 ? 0u : 7u) || o[7] != (t > 40 ? 0u : 9u)) bad++;
    }
    CHECK(bad == 0, "ctl: %d mismatches", bad);
    dfree(out);
    hx_module_destroy(m);
    free(src);
}

static void test_errors(void)
{
    char err[512];
    struct { const char *src; int line; const char *what; } bad[] = {
        { HDR ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  add.u32 %r1, %r9, 1;\n  ret;\n}\n", 7, "register" },
        { HDR ".visible .entry k()\n{\n  bra NOWHERE;\n}\n", 6, "label" },
        { HDR ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  add.u32 %r1, 1\n  ret;\n}\n", 8, "';'" },
        { HDR ".visible .entry k(\n{\n", 0, "" },
        { HDR ".bogus 1;\n", 4, "directive" },
        { HDR ".visible .entry k()\n{\n  .reg .zz %r<2>;\n}\n", 6, "type" },
        { HDR ".global .u32 v = {1, 2;\n.visible .entry k()\n{\n ret;\n}\n", 0, "" },
        { HDR ".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  ld.global.u32 %r1, [nosuchvar];\n  ret;\n}\n", 7, "symbol" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *s = strdup(bad[i].src);
        hx_module *m = hx_module_create(s, 0);
        CHECK(m != NULL, "create %zu", i);
        hx_kernel_info ki;
        hx_status st = hx_kernel_info_get(m, "k", &ki, err, sizeof err);
        CHECK(st == HX_ERR_PTX, "bad PTX %zu: status %d (%s)", i, st, err);
        if (bad[i].line) {
            char want[32];
            snprintf(want, sizeof want, "line %d", bad[i].line);
            CHECK(strstr(err, want) && strstr(err, bad[i].what), "bad PTX %zu message: %s", i, err);
        }
        hx_module_destroy(m);
        free(s);
    }
    CHECK(hx_module_create("\x01\x02\x03\x04junk", 8) == NULL, "junk image rejected");

    /* an unimplemented instruction fails the launch only when executed */
    const char *mma = HDR
        ".visible .entry k(.param .u32 x)\n{\n  .reg .b32 %r<8>;\n  .reg .pred %p1;\n"
        "  ld.param.u32 %r1, [x];\n  setp.eq.u32 %p1, %r1, 0;\n  @%p1 bra DONE;\n"
        "  suld.b.2d.b32.trap {%r2}, [surf0, {%r1, %r1}];\n"
        "DONE:\n  ret;\n}\n";
    char *s = strdup(mma);
    hx_module *m = hx_module_create(s, 0);
    int x = 0;
    void *args[] = { &x };
    CHECK(launch3(m, "k", 1, 1, 1, 32, 1, 1, 0, args, err, sizeof err) == HX_OK, "not executed: %s", err);
    x = 1;
    hx_status st = launch3(m, "k", 1, 1, 1, 32, 1, 1, 0, args, err, sizeof err);
    CHECK(st == HX_ERR_UNSUPPORTED && strstr(err, "suld.b.2d"), "suld: %d %s", st, err);
    hx_module_destroy(m);
    free(s);
}

/* carry chains: 64-bit add/sub from 32-bit halves, 64x64->128 multiply */
static const char *carry_ptx = HDR
".visible .entry carry(.param .u64 pa, .param .u64 pout)\n"
"{\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<12>;\n"
"  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pout];\n  mov.u32 %r1, %tid.x;\n"
"  mul.wide.u32 %rd3, %r1, 16;\n  add.s64 %rd3, %rd1, %rd3;\n"
"  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd3];\n"
"  mul.wide.u32 %rd4, %r1, 32;\n  add.s64 %rd4, %rd2, %rd4;\n"
"  add.cc.u32 %r6, %r2, %r4;\n  addc.u32 %r7, %r3, %r5;\n"
"  st.global.v2.u32 [%rd4], {%r6, %r7};\n"
"  sub.cc.u32 %r6, %r2, %r4;\n  subc.u32 %r7, %r3, %r5;\n"
"  st.global.v2.u32 [%rd4+8], {%r6, %r7};\n"
"  ld.global.v2.u64 {%rd5, %rd6}, [%rd3];\n"
"  mul.lo.u64 %rd7, %rd5, %rd6;\n  mul.hi.u64 %rd8, %rd5, %rd6;\n"
"  mad.lo.cc.u64 %rd9, %rd5, %rd6, %rd5;\n  madc.hi.u64 %rd10, %rd5, %rd6, 0;\n"
"  st.global.v2.u64 [%rd4+16], {%rd9, %rd10};\n"
"  ret;\n}\n";

static void test_carry(void)
{
    char *src = strdup(carry_ptx);
    hx_module *m = hx_module_create(src, 0);
    int n = 64;
    uint32_t *a = dalloc(n * 16);
    uint64_t *out = dalloc(n * 32);
    for (int i = 0; i < 4 * n; i++) a[i] = rnd_u32();
    a[0] = a[1] = 0xffffffffu; a[2] = 1; a[3] = 0;
    void *args[] = { &a, &out };
    CHECK(launch1(m, "carry", 1, n, 0, args) == HX_OK, "carry launch");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        uint64_t x = (uint64_t)a[4 * i + 1] << 32 | a[4 * i], y = (uint64_t)a[4 * i + 3] << 32 | a[4 * i + 2];
        unsigned __int128 p = (unsigned __int128)x * y + x;
        if (out[4 * i] != x + y || out[4 * i + 1] != x - y) bad++;
        if (out[4 * i + 2] != (uint64_t)p || out[4 * i + 3] != (uint64_t)(p >> 64)) bad++;
    }
    CHECK(bad == 0, "carry chains: %d mismatches", bad);
    dfree(a); dfree(out);
    hx_module_destroy(m);
    free(src);
}

int main(void)
{
    test_carry();
    test_ops32();
    test_fops();
    test_ctl();
    test_errors();
    return finish("test_ptx_isa");
}

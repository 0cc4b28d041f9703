/*
 * bench_interp.c - speed of the host executor's PTX interpreter, per core
 * (one worker thread), against native C doing the same work in the same
 * run:
 *   arith   - a register-only integer/float loop: lane-instructions/s
 *   saxpy   - memory-bound y = a*x + y
 *   reduce  - block reduction through shared memory with barriers
 * Prints one line per case with the interpreter's rate, native's rate and
 * the slowdown ratio.  Not a test: no thresholds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/host/hostexec.h"
#include "mem/mem.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* 12 instructions per iteration: 9 arithmetic + add, setp, bra */
static const char *ptx = HDR
".visible .entry arith(.param .u64 pout, .param .u32 iters)\n"
"{\n"
"  .reg .b32 %r<16>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p1;\n"
"  ld.param.u64 %rd1, [pout];\n  ld.param.u32 %r1, [iters];\n"
"  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, 0;\n  mov.u32 %r4, 12345;\n"
"  cvt.rn.f32.u32 %f1, %r2;\n  mov.f32 %f2, 0f3F800000;\n"
"LOOP:\n"
"  mad.lo.u32 %r4, %r4, 1664525, 1013904223;\n"
"  xor.b32 %r5, %r4, %r2;\n"
"  shr.u32 %r6, %r5, 7;\n"
"  add.u32 %r4, %r4, %r6;\n"
"  and.b32 %r7, %r4, 255;\n"
"  fma.rn.f32 %f2, %f2, 0f3F7FF000, %f1;\n"
"  mul.f32 %f3, %f2, 0f3F000000;\n"
"  add.f32 %f1, %f3, 0f3C23D70A;\n"
"  add.u32 %r2, %r2, %r7;\n"
"  add.u32 %r3, %r3, 1;\n"
"  setp.lt.u32 %p1, %r3, %r1;\n"
"  @%p1 bra LOOP;\n"
"  mov.u32 %r8, %tid.x;\n  mov.u32 %r9, %ctaid.x;\n  mov.u32 %r10, %ntid.x;\n"
"  mad.lo.u32 %r8, %r9, %r10, %r8;\n"
"  mul.wide.u32 %rd2, %r8, 8;\n  add.s64 %rd2, %rd1, %rd2;\n"
"  st.global.u32 [%rd2], %r4;\n  st.global.f32 [%rd2+4], %f1;\n"
"  ret;\n}\n"
".visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 px, .param .u64 py)\n"
"{\n"
"  .reg .b32 %r<8>;\n  .reg .f32 %f<6>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p1;\n"
"  ld.param.u32 %r1, [n];\n  ld.param.f32 %f1, [a];\n  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [py];\n"
"  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
"  mad.lo.s32 %r5, %r2, %r3, %r4;\n  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
"  mul.wide.s32 %rd3, %r5, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"
"  ld.global.f32 %f2, [%rd4];\n  ld.global.f32 %f3, [%rd5];\n  fma.rn.f32 %f4, %f2, %f1, %f3;\n"
"  st.global.f32 [%rd5], %f4;\n"
"DONE:\n  ret;\n}\n"
".visible .entry reduce(.param .u64 pin, .param .u64 pout)\n"
"{\n"
"  .shared .align 4 .b8 sm[1024];\n"
"  .reg .b32 %r<12>;\n  .reg .f32 %f<6>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<3>;\n"
"  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
"  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"
"  mad.lo.s32 %r4, %r2, %r3, %r1;\n  mul.wide.s32 %rd3, %r4, 4;\n  add.s64 %rd3, %rd1, %rd3;\n"
"  ld.global.f32 %f1, [%rd3];\n"
"  mov.u32 %r5, sm;\n  shl.b32 %r6, %r1, 2;\n  add.s32 %r5, %r5, %r6;\n"
"  st.shared.f32 [%r5], %f1;\n  bar.sync 0;\n"
"  shr.u32 %r7, %r3, 1;\n"
"RL:\n"
"  setp.ge.u32 %p1, %r1, %r7;\n  @%p1 bra SKIP;\n"
"  shl.b32 %r8, %r7, 2;\n  add.s32 %r9, %r5, %r8;\n"
"  ld.shared.f32 %f2, [%r5];\n  ld.shared.f32 %f3, [%r9];\n  add.f32 %f2, %f2, %f3;\n"
"  st.shared.f32 [%r5], %f2;\n"
"SKIP:\n"
"  bar.sync 0;\n  shr.u32 %r7, %r7, 1;\n  setp.ne.u32 %p2, %r7, 0;\n  @%p2 bra RL;\n"
"  setp.ne.u32 %p1, %r1, 0;\n  @%p1 bra END;\n"
"  ld.shared.f32 %f4, [sm];\n  mul.wide.u32 %rd4, %r2, 4;\n  add.s64 %rd4, %rd2, %rd4;\n"
"  st.global.f32 [%rd4], %f4;\n"
"END:\n  ret;\n}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *dalloc(size_t n)
{
    void *p = NULL;
    if (tfl_mem_alloc(n, TFL_MEM_DEVICE, 0, 0, &p) != TFL_OK) { fprintf(stderr, "alloc\n"); exit(1); }
    return p;
}

static hx_status run(hx_module *m, const char *k, unsigned g, unsigned b, void **args)
{
    hx_launch_params p;
    memset(&p, 0, sizeof p);
    p.grid[0] = g; p.grid[1] = p.grid[2] = 1;
    p.block[0] = b; p.block[1] = p.block[2] = 1;
    p.args = args;
    char err[512];
    hx_status st = hx_launch(m, k, &p, err, sizeof err);
    if (st) fprintf(stderr, "%s: %s\n", k, err);
    return st;
}

static volatile uint32_t sink;

int main(int argc, char **argv)
{
    hx_options o = { 1 };
    hx_init(&o);
    hx_module *m = hx_module_create(ptx, 0);
    double scale = argc > 1 ? atof(argv[1]) : 1.0;

    /* arith */
    unsigned blocks = 16, threads = 256, iters = (unsigned)(2000 * scale);
    uint32_t *out = dalloc((size_t)blocks * threads * 8);
    void *a1[] = { &out, &iters };
    run(m, "arith", 1, 32, a1);   /* warm up: decode */
    double t0 = now();
    run(m, "arith", blocks, threads, a1);
    double ti = now() - t0;
    double lanes = (double)blocks * threads * (12.0 * iters + 16);
    t0 = now();
    uint32_t acc = 0;
    for (unsigned t = 0; t < blocks * threads; t++) {
        uint32_t r2 = t % threads, r4 = 12345;
        float f1 = (float)r2, f2 = 1.0f;
        for (unsigned i = 0; i < iters; i++) {
            r4 = r4 * 1664525u + 1013904223u;
            uint32_t r5 = r4 ^ r2, r6 = r5 >> 7;
            r4 += r6;
            uint32_t r7 = r4 & 255;
            f2 = __builtin_fmaf(f2, 0.99998474f, f1);
            float f3 = f2 * 0.5f;
            f1 = f3 + 0.01f;
            r2 += r7;
        }
        acc += r4 + (uint32_t)f1;
        if (out[2 * t] != r4) { fprintf(stderr, "arith mismatch at %u\n", t); break; }
    }
    double tn = now() - t0;
    sink = acc;
    printf("arith : interp %.3g lane-insn/s (%.3f s), native %.3g lane-insn/s, ratio %.1fx\n",
           lanes / ti, ti, lanes / tn, ti / tn);

    /* saxpy */
    int n = (int)(4000000 * scale);
    float a = 1.5f, *x = dalloc((size_t)n * 4), *y = dalloc((size_t)n * 4);
    for (int i = 0; i < n; i++) { x[i] = (float)i; y[i] = 1.0f; }
    void *a2[] = { &n, &a, &x, &y };
    t0 = now();
    run(m, "saxpy", (unsigned)(n + 255) / 256, 256, a2);
    ti = now() - t0;
    t0 = now();
    for (int i = 0; i < n; i++) y[i] = __builtin_fmaf(a, x[i], y[i]);
    tn = now() - t0;
    printf("saxpy : interp %.3g elem/s (%.3f s), native %.3g elem/s, ratio %.1fx\n",
           n / ti, ti, n / tn, ti / tn);

    /* reduce */
    unsigned rb = (unsigned)n / 256;
    float *r = dalloc((size_t)rb * 4);
    void *a3[] = { &x, &r };
    t0 = now();
    run(m, "reduce", rb, 256, a3);
    ti = now() - t0;
    t0 = now();
    float tot = 0;
    for (unsigned b = 0; b < rb; b++) {
        float s = 0;
        for (int i = 0; i < 256; i++) s += x[b * 256 + i];
        r[b] += s * 0.0f;
        tot += s;
    }
    tn = now() - t0;
    sink = (uint32_t)tot;
    printf("reduce: interp %.3g elem/s (%.3f s), native %.3g elem/s, ratio %.1fx\n",
           rb * 256.0 / ti, ti, rb * 256.0 / tn, ti / tn);
    hx_module_destroy(m);
    return 0;
}

/*
 * test_ptx_calls.c - non-inlined calls with local arrays, divergent
 * recursion, structs by value (kernel parameter and .func parameter and
 * return), module variables (__device__/__constant__ with initialisers,
 * hx_module_global), device printf, and faults: out-of-bounds global and
 * shared accesses and wild pointers give HX_ERR_ILLEGAL_ADDRESS with the
 * process alive, assert/trap give HX_ERR_TRAP, integer division by zero
 * does not trap the host.
 */
#include <unistd.h>

#include "ptx_harness.h"

struct Params { int a; double b; float c[3]; char tag; };

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static void test_calls(hx_module *m)
{
    struct Params s = { 3, 0.5, { 1.5f, -2.0f, 0.25f }, 'a' };
    float *out = dalloc(80 * 4);
    int *iout = dalloc(80 * 4);
    int n = 5;
    void *args[] = { &s, &out, &iout, &n };
    CHECK(launch1(m, "calls", 1, 64, 0, args) == HX_OK, "calls launch");
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        float loc[16];
        for (int i = 0; i < 16; i++) loc[i] = s.c[i % 3] + (float)(i * s.a) + (float)s.b + (float)t;
        int k = (n + t) % 17;
        float acc = 0;
        for (int i = 0; i < k; i++) acc = fmaf(loc[i], loc[k - 1 - i], acc);
        float acc2 = 0;
        for (int i = 0; i < k; i++) acc2 += loc[i] * loc[k - 1 - i];
        if (out[t] != acc && out[t] != acc2) { bad++; if (bad < 4) fprintf(stderr, "t%d %f %f\n", t, out[t], acc); }
        int want = (t & 1) ? fib(t % 12) : -fib(t % 9);
        if (iout[t] != want) bad++;
    }
    CHECK(bad == 0, "calls: %d mismatches", bad);
    CHECK(out[64] == 6.0f && out[65] == 1.0f && out[66] == 0.5f && iout[64] == 'b',
          "struct by value: %f %f %f %d", out[64], out[65], out[66], iout[64]);
    dfree(out); dfree(iout);
}

static void test_module_vars(hx_module *m)
{
    void *addr = NULL; size_t size = 0; char err[256];
    CHECK(hx_module_global(m, "g_table", &addr, &size, err, sizeof err) == HX_OK, "g_table: %s", err);
    CHECK(size == 32 && addr && ((float *)addr)[7] == 8.0f, "g_table size %zu", size);
    int *cnt = NULL;
    CHECK(hx_module_global(m, "g_counter", (void **)&cnt, &size, err, sizeof err) == HX_OK, "counter");
    int *coef = NULL;
    CHECK(hx_module_global(m, "c_coef", (void **)&coef, &size, err, sizeof err) == HX_OK && size == 16 &&
          coef[0] == 3 && coef[1] == -1, "c_coef");
    CHECK(hx_module_global(m, "nope", &addr, &size, err, sizeof err) == HX_ERR_NOT_FOUND, "missing var");
    float *out = dalloc(96 * 4);
    void *args[] = { &out };
    CHECK(launch1(m, "module_vars", 1, 96, 0, args) == HX_OK, "module_vars launch");
    float tab[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    int cf[4] = { 3, -1, 4, 1 }, bad = 0;
    for (int t = 0; t < 96; t++)
        if (out[t] != tab[t % 8] * (float)cf[t % 4] + tab[(t + 1) % 8]) bad++;
    CHECK(bad == 0, "module vars: %d mismatches", bad);
    CHECK(*cnt == 96, "g_counter %d", *cnt);
    CHECK(((float *)addr)[0] == 101.0f, "g_table written: %f", ((float *)addr)[0]);
    dfree(out);
}

static void test_printf(hx_module *m)
{
    fflush(stdout);
    char path[] = "/tmp/hx_printf_XXXXXX";
    int fd = mkstemp(path);
    int saved = dup(1);
    dup2(fd, 1);
    int x = 77;
    void *args[] = { &x };
    hx_status st = launch1(m, "hello", 1, 32, 0, args);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK(st == HX_OK, "printf launch");
    char *txt = read_text(path);
    close(fd);
    unlink(path);
    const char *want =
        "hello from thread 0: x=77 f=0.00 s=str c=A ll=1099511627776\n"
        "hello from thread 1: x=77 f=1.50 s=str c=B ll=1099511627776\n"
        "hello from thread 2: x=77 f=3.00 s=str c=C ll=1099511627776\n";
    CHECK(txt && strcmp(txt, want) == 0, "printf output:\n%s", txt ? txt : "(none)");
    free(txt);
}

static void test_faults(hx_module *m)
{
    char err[512];
    int n = 100;
    float *p = dalloc(n * 4);
    void *args[] = { &p, &n };
    hx_status st = launch3(m, "oob_write", 2, 1, 1, 64, 1, 1, 0, args, err, sizeof err);
    /* 128 threads write 100 floats: threads 100.. are out of bounds...
     * unless the allocation has slack; the address map is exact */
    CHECK(st == HX_ERR_ILLEGAL_ADDRESS, "oob_write status %d (%s)", st, err);
    CHECK(strstr(err, "oob_write") && strstr(err, "block (1,0,0)") && strstr(err, "thread"),
          "message: %s", err);
    long long *addr = dalloc(8), *out = dalloc(32 * 8);
    addr[0] = 0x10;   /* a wild pointer */
    void *a2[] = { &addr, &out };
    st = launch3(m, "wild_read", 1, 1, 1, 32, 1, 1, 0, a2, err, sizeof err);
    CHECK(st == HX_ERR_ILLEGAL_ADDRESS && strstr(err, "0x10"), "wild read: %d %s", st, err);
    addr[0] = (long long)(intptr_t)out;   /* and a good one still works */
    out[0] = 1234;
    st = launch3(m, "wild_read", 1, 1, 1, 32, 1, 1, 0, a2, err, sizeof err);
    CHECK(st == HX_OK && out[31] == 1234, "good read after fault: %d %s", st, err);
    int k = 1 << 20;
    void *a3[] = { &out, &k };
    st = launch3(m, "shared_oob", 1, 1, 1, 64, 1, 1, 0, a3, err, sizeof err);
    CHECK(st == HX_ERR_ILLEGAL_ADDRESS && strstr(err, "shared"), "shared oob: %d %s", st, err);
    int *v = dalloc(64 * 4);
    for (int i = 0; i < 64; i++) v[i] = i == 37 ? 10 : 1;
    void *a4[] = { &v };
    st = launch3(m, "asserting", 1, 1, 1, 64, 1, 1, 0, a4, err, sizeof err);
    CHECK(st == HX_ERR_TRAP && strstr(err, "thread (37,0,0)"), "assert: %d %s", st, err);
    v[37] = 0;
    st = launch3(m, "asserting", 1, 1, 1, 64, 1, 1, 0, a4, err, sizeof err);
    CHECK(st == HX_OK, "assert passes: %d %s", st, err);
    int x = 3;
    void *a5[] = { &x };
    st = launch3(m, "trapping", 4, 1, 1, 32, 1, 1, 0, a5, err, sizeof err);
    CHECK(st == HX_ERR_TRAP, "trap: %d %s", st, err);
    x = 2;
    CHECK(launch3(m, "trapping", 4, 1, 1, 32, 1, 1, 0, a5, err, sizeof err) == HX_OK, "no trap");
    /* launch configuration errors */
    CHECK(launch3(m, "trapping", 1, 1, 1, 1025, 1, 1, 0, a5, err, sizeof err) == HX_ERR_LAUNCH_CONFIG,
          "1025 threads");
    CHECK(launch3(m, "trapping", 0, 1, 1, 32, 1, 1, 0, a5, err, sizeof err) == HX_ERR_LAUNCH_CONFIG,
          "zero grid");
    CHECK(launch3(m, "trapping", 1, 1, 1, 32, 1, 1, 300 * 1024, a5, err, sizeof err) == HX_ERR_LAUNCH_CONFIG,
          "smem too large");
    CHECK(launch3(m, "no_such_kernel", 1, 1, 1, 32, 1, 1, 0, a5, err, sizeof err) == HX_ERR_NOT_FOUND,
          "not found");
    hx_launch_params lp;
    memset(&lp, 0, sizeof lp);
    lp.grid[0] = lp.grid[1] = lp.grid[2] = 1;
    lp.block[0] = lp.block[1] = lp.block[2] = 1;
    lp.arg_buffer = &x;
    lp.arg_buffer_size = 2;
    CHECK(hx_launch(m, "trapping", &lp, err, sizeof err) == HX_ERR_LAUNCH_CONFIG, "short arg buffer");
    lp.arg_buffer_size = 4;
    CHECK(hx_launch(m, "trapping", &lp, err, sizeof err) == HX_OK, "arg buffer: %s", err);
    dfree(p); dfree(addr); dfree(out); dfree(v);

    int *a = dalloc(8 * 4), *b = dalloc(8 * 4), *q = dalloc(8 * 4), *r = dalloc(8 * 4);
    unsigned *uq = dalloc(8 * 4);
    int av[8] = { 7, -7, 100, -2147483647 - 1, 5, 0, 9, -9 }, bv[8] = { 2, 2, 0, -1, -3, 0, 1, 4 };
    memcpy(a, av, sizeof av); memcpy(b, bv, sizeof bv);
    void *a6[] = { &a, &b, &q, &r, &uq };
    CHECK(launch1(m, "int_div", 1, 8, 0, a6) == HX_OK, "int_div launch survives x/0");
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        if (bv[i] == 0 || (av[i] == -2147483647 - 1 && bv[i] == -1)) continue;
        if (q[i] != av[i] / bv[i] || r[i] != av[i] % bv[i] || uq[i] != (unsigned)av[i] / (unsigned)bv[i]) bad++;
    }
    CHECK(bad == 0, "int_div: %d mismatches", bad);
    dfree(a); dfree(b); dfree(q); dfree(r); dfree(uq);
}

int main(void)
{
    for (int v = 0; ptx_variants[v]; v++) {
        ptx_variant = ptx_variants[v];
        hx_module *m = load_ptx("k_calls", NULL);
        test_calls(m);
        test_module_vars(m);
        test_printf(m);
        test_faults(m);
        hx_module_destroy(m);
    }
    return finish("test_ptx_calls");
}

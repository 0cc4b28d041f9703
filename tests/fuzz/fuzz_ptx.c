/*
 * fuzz_ptx.c - libFuzzer harness for the host executor's PTX parser and
 * interpreter (src/backends/host/ptx_parse.c, hx_cfg.c, hx_exec.c).
 *
 * Build and run with scripts/fuzz.sh ptx [seconds].  The unit test
 * test_ptx_fuzz includes this file and replays tests/fuzz/corpus/ptx and
 * tests/fuzz/regressions/ptx through LLVMFuzzerTestOneInput.
 *
 * fuzz-sources: src/backends/host/ptx_parse.c src/backends/host/hx_cfg.c src/backends/host/hx_exec.c src/backends/host/hx_printf.c src/backends/host/hostexec.c src/backends/host/fatbin.c src/mem/addrmap.c src/mem/pool.c src/mem/provider_mmap.c src/mem/sizeclass.c src/mem/stats.c
 * fuzz-libs: -lzstd -llz4 -lelf -lpthread -lm
 *
 * Each input is taken as PTX text (NUL-terminated copy): the module is
 * indexed, every function decoded, every module variable looked up, and
 * every kernel launched once (1 block of 64 threads, zeroed parameters:
 * pointers are NULL, so memory faults are expected and must be reported,
 * never crash) with a branch budget so that loops end.
 */
#include "backends/host/hostexec.h"
#include "backends/host/hx_ir.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        hx_options o = { 1 };
        hx_init(&o);
        hx_set_step_limit(2000);
        once = 1;
    }
    if (size > (1u << 20)) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    /* the image must look like PTX text, not a fatbin (other harness) */
    if (size >= 4 && ((uint8_t)text[0] == 0xB1 || (uint8_t)text[0] == 0x50 || text[0] == 0x7f)) {
        free(text);
        return 0;
    }
    hx_module *m = hx_module_create(text, size + 1);
    if (!m) { free(text); return 0; }
    char err[512];
    hx_kernel_info ki;
    /* loads and indexes; then every entry */
    hx_status st = hx_kernel_info_get(m, "\x01no-such-kernel", &ki, err, sizeof err);
    if (st == HX_OK) abort();
    if (m->loaded == 1) {
        for (int i = 0; i < m->nfuncs && i < 64; i++) {
            hx_func *f = m->funcs[i];
            if (!f->is_entry || f->is_extern) continue;
            if (hx_kernel_info_get(m, f->name, &ki, err, sizeof err) != HX_OK) continue;
            if (ki.param_bytes > 4096) continue;
            uint8_t *params = calloc(1, ki.param_bytes + 8);
            if (!params) continue;
            hx_launch_params p;
            memset(&p, 0, sizeof p);
            p.grid[0] = p.grid[1] = p.grid[2] = 1;
            p.block[0] = 64; p.block[1] = p.block[2] = 1;
            p.dynamic_smem = 256;
            p.arg_buffer = params;
            p.arg_buffer_size = ki.param_bytes;
            (void)hx_launch(m, f->name, &p, err, sizeof err);
            free(params);
        }
        for (int i = 0; i < m->nvars && i < 64; i++) {
            void *a; size_t sz;
            if (m->vars[i]->name) (void)hx_module_global(m, m->vars[i]->name, &a, &sz, err, sizeof err);
        }
    }
    hx_module_destroy(m);
    free(text);
    return 0;
}

/*
 * fuzz_fatbin.c - libFuzzer harness for the fatbin reader and the cubin
 * .nv.info reader (src/backends/host/fatbin.c, cubin_info.c).
 *
 * Build and run with scripts/fuzz.sh fatbin [seconds].  The unit test
 * test_fatbin includes this file and replays tests/fuzz/corpus/fatbin and
 * tests/fuzz/regressions/fatbin through LLVMFuzzerTestOneInput, so every
 * input that once crashed stays checked in the ordinary build.
 *
 * fuzz-sources: src/backends/host/fatbin.c src/backends/host/cubin_info.c
 * fuzz-libs: -lzstd -llz4 -lelf -lpthread
 *
 * Seeds (tests/fuzz/corpus/fatbin, each < 64 KB): nvcc 13.0 builds of
 * tests/fatbin/kernels.cu in each compression mode, PTX-only, an sm_80
 * cubin, two containers back to back, and an LTO-IR + PTX fatbin.
 *
 * Each input is read three ways: as a buffer of known size (containers
 * back to back), as a registered image of unknown size (size 0, in an
 * exactly sized copy so that any read past what the headers claim hits the
 * sanitizer), and through a wrapper pointing at that copy.  Inputs that
 * start with an ELF magic are also fed to the cubin reader directly.
 */
#include "backends/host/fatbin.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Names of the kernels in the seed corpus (tests/fatbin/kernels.cu). */
static const char *const fuzz_kernels[] = {
    "kadd", "_Z7kstruct5tfl_sPdc", "_Z5ktmplIdEvPT_S0_xs", "knoargs", "kbig",
    "khuge",
};

static void fuzz_fail(void) { abort(); }

static void fuzz_cubin(const uint8_t *elf, size_t len)
{
    uint32_t sizes[8];
    for (size_t k = 0; k < sizeof fuzz_kernels / sizeof *fuzz_kernels; k++) {
        int n = tfl_cubin_param_sizes(elf, len, fuzz_kernels[k], sizes, 8);
        if (n < -1)
            fuzz_fail();
    }
}

static void fuzz_image(const void *image, size_t size)
{
    char err[256];
    tfl_fatbin_entry es[64];
    int n = tfl_fatbin_list(image, size, es, 64, err, sizeof err);
    if (n < -1)
        fuzz_fail();
    if (n < 0) {
        if (!err[0] || strchr(err, '\n'))
            fuzz_fail(); /* a failure must say why, on one line */
        return;
    }
    for (int i = 0; i < n && i < 64; i++) {
        uint8_t *out = NULL;
        size_t len = 0;
        if (tfl_fatbin_extract(&es[i], &out, &len, err, sizeof err) < 0) {
            if (out || !err[0])
                fuzz_fail();
            continue;
        }
        if (out[len] != 0)
            fuzz_fail();
        if (es[i].kind == TFL_FB_PTX && strlen((char *)out) != len)
            fuzz_fail();
        if (es[i].kind == TFL_FB_ELF)
            fuzz_cubin(out, len);
        free(out);
    }
    char *ptx = tfl_fatbin_pick_ptx(image, size, err, sizeof err);
    if (!ptx && !err[0])
        fuzz_fail();
    free(ptx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t magic = 0;
    if (size >= 4)
        memcpy(&magic, data, 4);
    /* A wrapper holds a pointer into the process: never from the input. */
    if (magic == TFL_FATBIN_WRAPPER_MAGIC)
        return 0;
    if (size >= 4 && memcmp(data, "\177ELF", 4) == 0)
        fuzz_cubin(data, size);
    if (size == 0)
        return 0;

    fuzz_image(data, size);

    /* Registered-image path: only when the first container header claims no
     * more than the input holds (what a real registration guarantees). */
    if (size >= 16 && magic == TFL_FATBIN_MAGIC) {
        uint16_t hsize;
        uint64_t psize;
        memcpy(&hsize, data + 6, 2);
        memcpy(&psize, data + 8, 8);
        if (psize <= size && hsize + psize <= size) {
            size_t claim = hsize + (size_t)psize;
            if (claim < 16)
                claim = 16; /* the header itself is always read */
            uint8_t *copy = malloc(claim);
            if (!copy)
                return 0;
            memcpy(copy, data, claim);
            fuzz_image(copy, 0);
            struct {
                uint32_t magic, version;
                const void *data, *fname;
            } w = { TFL_FATBIN_WRAPPER_MAGIC, 1, copy, NULL };
            fuzz_image(&w, 0);
            free(copy);
        }
    }
    return 0;
}

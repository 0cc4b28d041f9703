/*
 * test_fatbin_registered.c - the fatbin reader on a wrapper exactly as an
 * nvcc-built program registers it.
 *
 * Linked with kernels.o (nvcc -c -arch=sm_80 kernels.cu).  Its static
 * constructor calls __cudaRegisterFatBinary(&__fatDeviceText) and
 * __cudaRegisterFunction for each kernel; this file defines those entry
 * points (nothing else of the CUDA runtime is needed, no kernel is
 * launched) and records what they receive.  main() then reads the wrapper
 * with size 0, as the runtime will, and checks that every kernel the host
 * code registered has its .entry in the PTX and its parameter sizes in the
 * cubin, equal to the host compiler's sizeof of the declared types.
 */
#include "backends/host/fatbin.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static const void *g_wrapper;
static int g_begin, g_end;
static const char *g_names[16];
static int g_nnames;
static void *g_handle_storage;

/* ---- the registration entry points kernels.o's constructor calls ---- */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **h);
void __cudaUnregisterFatBinary(void **h);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit,
                            void *tid, void *bid, void *bDim, void *gDim,
                            int *wSize);
char __cudaInitModule(void **h);
int __cudaGetKernel(void **kernel, const void *fun);
int __cudaLaunchKernel(void *kernel, ...);
int __cudaPopCallConfiguration(void *grid, void *block, size_t *shmem,
                               void *stream);

void **__cudaRegisterFatBinary(void *fatCubin)
{
    g_wrapper = fatCubin;
    g_begin++;
    return &g_handle_storage;
}
void __cudaRegisterFatBinaryEnd(void **h) { g_end += h == &g_handle_storage; }
void __cudaUnregisterFatBinary(void **h) { (void)h; }
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit,
                            void *tid, void *bid, void *bDim, void *gDim,
                            int *wSize)
{
    (void)h, (void)hostFun, (void)deviceName, (void)thread_limit, (void)tid;
    (void)bid, (void)bDim, (void)gDim, (void)wSize;
    if (g_nnames < 16)
        g_names[g_nnames++] = deviceFun; /* the mangled kernel name */
}
char __cudaInitModule(void **h) { (void)h; return 0; }
/* never reached: no kernel is launched */
int __cudaGetKernel(void **kernel, const void *fun) { (void)kernel, (void)fun; abort(); }
int __cudaLaunchKernel(void *kernel, ...) { (void)kernel; abort(); }
int __cudaPopCallConfiguration(void *grid, void *block, size_t *shmem,
                               void *stream)
{
    (void)grid, (void)block, (void)shmem, (void)stream;
    abort();
}

static int failures;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

static const struct { const char *name; int n; uint32_t sizes[4]; } want[] = {
    { "kadd", 3, { sizeof(float *), sizeof(const float *), sizeof(int) } },
    { "_Z7kstruct5tfl_sPdc", 3,
      { sizeof(struct tfl_s), sizeof(double *), sizeof(char) } },
    { "_Z5ktmplIdEvPT_S0_xs", 4,
      { sizeof(double *), sizeof(double), sizeof(long long), sizeof(short) } },
    { "knoargs", 0, { 0 } },
    { "kbig", 3,
      { sizeof(struct tfl_big), sizeof(unsigned char),
        sizeof(unsigned long long *) } },
    { "khuge", 2, { sizeof(struct tfl_huge), sizeof(int *) } },
};
#define NWANT ((int)(sizeof want / sizeof *want))

int main(void)
{
    char err[256];
    CHECK(g_wrapper && g_begin == 1 && g_end == 1,
          "registration did not run (%d/%d)", g_begin, g_end);
    CHECK(g_nnames == NWANT, "%d kernels registered, want %d", g_nnames, NWANT);
    if (!g_wrapper)
        return 1;
    uint32_t magic;
    memcpy(&magic, g_wrapper, 4);
    CHECK(magic == TFL_FATBIN_WRAPPER_MAGIC, "wrapper magic 0x%x", magic);

    tfl_fatbin_entry es[4];
    int n = tfl_fatbin_list(g_wrapper, 0, es, 4, err, sizeof err);
    CHECK(n == 2, "%d entries (%s)", n, n < 0 ? err : "");
    char *ptx = tfl_fatbin_pick_ptx(g_wrapper, 0, err, sizeof err);
    CHECK(ptx && strstr(ptx, ".target sm_80"), "pick: %s", ptx ? "" : err);
    uint8_t *elf = NULL;
    size_t elflen = 0;
    for (int i = 0; i < n && i < 4; i++)
        if (es[i].kind == TFL_FB_ELF && es[i].arch == 80)
            CHECK(tfl_fatbin_extract(&es[i], &elf, &elflen, err, sizeof err) == 0,
                  "extract cubin: %s", err);
    CHECK(elf != NULL, "no sm_80 cubin");

    int matched = 0;
    for (int r = 0; r < g_nnames; r++) {
        const char *name = g_names[r];
        char entry[160];
        snprintf(entry, sizeof entry, ".entry %s(", name);
        CHECK(ptx && strstr(ptx, entry), "registered %s has no .entry", name);
        uint32_t sizes[8];
        int np = elf ? tfl_cubin_param_sizes(elf, elflen, name, sizes, 8) : -1;
        int k = 0;
        while (k < NWANT && strcmp(want[k].name, name) != 0)
            k++;
        CHECK(k < NWANT, "registered %s is not a kernel of kernels.cu", name);
        if (k == NWANT)
            continue;
        matched++;
        CHECK(np == want[k].n, "%s: %d params, want %d", name, np, want[k].n);
        for (int i = 0; i < np && i < want[k].n; i++)
            CHECK(sizes[i] == want[k].sizes[i], "%s param %d: %u, want %u",
                  name, i, sizes[i], want[k].sizes[i]);
    }
    CHECK(matched == NWANT, "%d of %d kernels matched", matched, NWANT);
    free(ptx);
    free(elf);
    printf("test_fatbin_registered: %d kernels registered, %d failures\n",
           g_nnames, failures);
    return failures ? 1 : 0;
}

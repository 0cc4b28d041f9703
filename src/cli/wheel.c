/*
 * wheel.c - `torchfl wheel`: check the op table against an installed
 * PyTorch wheel.
 *
 * Walks the .nv_fatbin sections of the wheel's CUDA libraries, takes the
 * cubin a device of the configured compute capability would load from each
 * container (the same choice the runtime makes, hx_abi.c), and for every
 * kernel asks the op table whether it recognises it and, if so, whether the
 * parameters its decoder reads are the ones the cubin records.  This is
 * the test-time half of the layout check (the run-time half refuses a
 * mismatching launch): a new PyTorch release that changes a signature
 * shows up here as "mismatch", one that renames a kernel as a drop in
 * "claimed".
 *
 *   torchfl wheel [--torch-lib DIR | --python PY] [--arch 80] [--list]
 *                 [--unclaimed]
 *
 * Exit status: 0 when every claimed kernel's layout is validated, 1 when
 * some are not, 2 on usage or read errors.
 */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "backends/host/fatbin.h"
#include "route/optable.h"
#include "route/torch_release.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { ST_OK, ST_MISMATCH, ST_NOLAYOUT, ST_COUNT };

#define MAX_FAMILIES 64

typedef struct wstate {
    unsigned arch;
    int list, unclaimed;
    long kernels, unclaimed_n;
    int nfam;
    const char *fam[MAX_FAMILIES];
    long count[MAX_FAMILIES][ST_COUNT];
} wstate;

static int fam_index(wstate *w, const char *name)
{
    for (int i = 0; i < w->nfam; i++)
        if (strcmp(w->fam[i], name) == 0)
            return i;
    if (w->nfam == MAX_FAMILIES)
        return MAX_FAMILIES - 1;
    w->fam[w->nfam] = name;
    return w->nfam++;
}

static int one_kernel(void *ctx, const char *kernel, int n, const uint32_t *sizes,
                      const uint32_t *offsets)
{
    wstate *w = ctx;
    w->kernels++;
    void *cookie = NULL;
    const tfl_kfamily *f = tfl_optable_lookup(kernel, &cookie);
    if (!f) {
        w->unclaimed_n++;
        if (w->unclaimed)
            printf("unclaimed\t-\t-\t%s\n", kernel);
        return 0;
    }
    const char *op = f->op_name ? f->op_name(cookie) : "";
    tfl_klayout want;
    want.n = 0;
    char why[320] = "";
    int st;
    if (!f->layout || !f->layout(cookie, &want) || want.n < 0) {
        st = ST_NOLAYOUT;
        snprintf(why, sizeof why, "the decoder states no layout");
    } else {
        st = tfl_klayout_equal(&want, n, sizes, offsets, why, sizeof why) ? ST_OK
                                                                          : ST_MISMATCH;
    }
    w->count[fam_index(w, f->name)][st]++;
    if (w->list) {
        static const char *names[] = { "ok", "mismatch", "nolayout" };
        printf("%s\t%s\t%s\t%s%s%s\n", names[st], f->name, op ? op : "", kernel,
               why[0] ? "\t" : "", why);
    }
    return 0;
}

/* Every fatbin container in [p, p+size): the cubin for w->arch. */
static int scan_fatbin(const uint8_t *p, size_t size, wstate *w, const char *lib)
{
    size_t pos = 0;
    while (pos + 16 <= size) {
        uint32_t magic;
        uint16_t hsize;
        uint64_t fsize;
        memcpy(&magic, p + pos, 4);
        if (magic != TFL_FATBIN_MAGIC) {
            pos += 8;                   /* containers are 8-aligned */
            continue;
        }
        memcpy(&hsize, p + pos + 6, 2);
        memcpy(&fsize, p + pos + 8, 8);
        if (fsize > size - pos - hsize) {
            fprintf(stderr, "torchfl: error: wheel: %s: fatbin container at %zu overruns "
                    "its section\n", lib, pos);
            return -1;
        }
        tfl_fatbin_entry e[64];
        char err[256] = "";
        int n = tfl_fatbin_list(p + pos, hsize + fsize, e, 64, err, sizeof err);
        int best = -1;
        for (int i = 0; i < n && i < 64; i++)
            if (e[i].kind == TFL_FB_ELF && e[i].arch / 10 == w->arch / 10 &&
                e[i].arch <= w->arch && (best < 0 || e[i].arch > e[best].arch))
                best = i;
        if (best >= 0) {
            uint8_t *cubin;
            size_t len;
            if (tfl_fatbin_extract(&e[best], &cubin, &len, err, sizeof err) != 0 ||
                tfl_cubin_each_kernel(cubin, len, one_kernel, w) < 0) {
                fprintf(stderr, "torchfl: error: wheel: %s: unreadable cubin: %s\n", lib, err);
                return -1;
            }
            free(cubin);
        }
        pos += hsize + fsize;
    }
    return 0;
}

static int scan_library(const char *path, wstate *w)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;                        /* not every wheel has every library */
    struct stat sb;
    int rc = -1;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return -1;
    }
    uint8_t *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)map, (size_t)sb.st_size);
    size_t shstrndx;
    if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
        rc = 0;
        for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            const char *name;
            if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
                strcmp(name, ".nv_fatbin") != 0)
                continue;
            if (sh.sh_offset + sh.sh_size > (uint64_t)sb.st_size)
                rc = -1;
            else
                rc = scan_fatbin(map + sh.sh_offset, sh.sh_size, w, path);
        }
    }
    if (elf)
        elf_end(elf);
    munmap(map, (size_t)sb.st_size);
    return rc;
}

static int usage(FILE *f)
{
    fprintf(f, "usage: torchfl wheel [--torch-lib DIR | --python PY] [--arch 80] [--list] "
               "[--unclaimed]\n"
               "  checks every kernel of the installed PyTorch wheel against the op table:\n"
               "  claimed kernels whose parameters match the decoder's layout (ok), differ\n"
               "  (mismatch) or have no stated layout (nolayout)\n");
    return f == stdout ? 0 : 2;
}

int cmd_wheel(int argc, char **argv)
{
    wstate w;
    memset(&w, 0, sizeof w);
    w.arch = 80;
    const char *libdir = NULL, *python = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--torch-lib") && i + 1 < argc) libdir = argv[++i];
        else if (!strcmp(argv[i], "--python") && i + 1 < argc) python = argv[++i];
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc) w.arch = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--list")) w.list = 1;
        else if (!strcmp(argv[i], "--unclaimed")) w.unclaimed = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(stdout);
        else return usage(stderr);
    }
    char dir[PATH_MAX];
    if (!libdir) {
        if (cli_torch_libdir(python ? python : "python3", dir, sizeof dir) != 0) {
            fprintf(stderr, "torchfl: error: wheel: no torch package for %s (pass "
                    "--python or --torch-lib)\n", python ? python : "python3");
            return 2;
        }
        libdir = dir;
    }
    tfl_torch_info t;
    if (tfl_torch_read(libdir, &t) != 0)
        snprintf(t.version, sizeof t.version, "(unknown version)");
    else
        tfl_torch_use(&t);        /* decoders whose meaning changed by release */
    static const char *libs[] = { "libtorch_cuda.so", "libtorch_cuda_linalg.so",
                                  "libtorch_nvshmem.so" };
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", libdir, libs[i]);
        if (scan_library(path, &w) != 0) {
            fprintf(stderr, "torchfl: error: wheel: cannot read %s\n", path);
            return 2;
        }
    }
    if (w.kernels == 0) {
        fprintf(stderr, "torchfl: error: wheel: no sm_%u kernels under %s\n", w.arch, libdir);
        return 2;
    }
    long tot[ST_COUNT] = { 0 };
    FILE *o = w.list || w.unclaimed ? stderr : stdout;
    fprintf(o, "torch %s (CUDA %s) at %s: %s release\n", t.version, t.cuda[0] ? t.cuda : "?",
            libdir, tfl_torch_validated(t.version) ? "a validated" : "NOT a validated");
    fprintf(o, "sm_%u kernels (counted in each module that holds one): %ld, "
            "claimed by the op table: %ld\n", w.arch, w.kernels,
            w.kernels - w.unclaimed_n);
    fprintf(o, "%-12s %9s %9s %9s\n", "family", "validated", "mismatch", "nolayout");
    for (int i = 0; i < w.nfam; i++) {
        fprintf(o, "%-12s %9ld %9ld %9ld\n", w.fam[i], w.count[i][ST_OK],
                w.count[i][ST_MISMATCH], w.count[i][ST_NOLAYOUT]);
        for (int s = 0; s < ST_COUNT; s++)
            tot[s] += w.count[i][s];
    }
    fprintf(o, "%-12s %9ld %9ld %9ld\n", "total", tot[ST_OK], tot[ST_MISMATCH], tot[ST_NOLAYOUT]);
    return tot[ST_MISMATCH] || tot[ST_NOLAYOUT] ? 1 : 0;
}

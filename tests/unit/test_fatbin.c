/*
 * test_fatbin.c - the fatbin reader and the cubin .nv.info reader against
 * what nvcc builds (tests/fatbin/CMakeLists.txt), and against broken input.
 *
 * References that cannot share our bugs: nvcc's own -ptx output (the PTX a
 * fatbin carries is the same token stream with comments and indentation
 * removed), nvcc's own -cubin output (byte-identical to the cubin in the
 * fatbin), libelf's reading of an object file's .nv_fatbin section, and the
 * host compiler's sizeof for parameter types shared with the CUDA source
 * (tests/fatbin/kernels.h).
 *
 * Also replays the fuzz seed corpus and every regression input through the
 * fuzz harness itself (tests/fuzz/fuzz_fatbin.c).
 */
#include "backends/host/fatbin.h"

#include <dirent.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fatbin/kernels.h"
#include "../fuzz/fuzz_fatbin.c"

static int failures, checks;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

/* ------------------------------------------------------------ helpers */

typedef struct buf { uint8_t *p; size_t n; } buf;

static buf read_path(const char *path)
{
    buf b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    if (!f)
        return b;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    if (n > 0) {
        b.p = malloc((size_t)n + 1);
        if (b.p && fread(b.p, 1, (size_t)n, f) == (size_t)n) {
            b.n = (size_t)n;
            b.p[n] = 0;
        } else {
            free(b.p);
            b.p = NULL;
        }
    }
    fclose(f);
    return b;
}

/* An exactly sized heap copy, so that a read past the end is a real
 * over-read (visible under ASan/valgrind). */
static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (c && n)
        memcpy(c, p, n);
    return c;
}

#ifdef TFL_FATBIN_TEST_DIR
static buf read_input(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TFL_FATBIN_TEST_DIR, name);
    buf b = read_path(path);
    if (!b.p)
        fprintf(stderr, "FAIL: cannot read %s\n", path), failures++;
    return b;
}

/* Next whitespace-separated token of PTX text, skipping // comments. */
static const char *next_tok(const char *s, size_t *len)
{
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n')
                s++;
            continue;
        }
        break;
    }
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r' &&
           !(e[0] == '/' && e[1] == '/'))
        e++;
    *len = (size_t)(e - s);
    return s;
}

/* Same PTX tokens (nvcc strips comments and indentation in fatbins). */
static int same_tokens(const char *a, const char *b)
{
    size_t la, lb;
    int ntok = 0;
    for (;;) {
        a = next_tok(a, &la);
        b = next_tok(b, &lb);
        if (la != lb || memcmp(a, b, la) != 0)
            return 0;
        if (la == 0)
            return ntok > 10; /* both ended; a real module has many tokens */
        ntok++;
        a += la;
        b += lb;
    }
}

static int has_line_prefix(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *l = text; l; l = strchr(l, '\n')) {
        if (*l == '\n')
            l++;
        if (strncmp(l, prefix, n) == 0)
            return 1;
    }
    return 0;
}

/* ------------------------------------------------- the kernels we built */

typedef struct kernel_ref {
    const char *name;       /* mangled (Itanium C++ ABI) or extern "C"      */
    int nparams;
    uint32_t sizes[4];
} kernel_ref;

static const kernel_ref kernels[] = {
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
#define NKERNELS ((int)(sizeof kernels / sizeof *kernels))

static void check_ptx_text(const char *text, size_t len, unsigned arch,
                           unsigned ptx_version, const char *what)
{
    CHECK(strlen(text) == len, "%s: text length %zu vs out_len %zu", what,
          strlen(text), len);
    /* .version X.Y must agree with the header's ISA version */
    const char *v = strstr(text, ".version ");
    unsigned maj = 0, min = 0;
    CHECK(v && sscanf(v, ".version %u.%u", &maj, &min) == 2,
          "%s: no .version line", what);
    CHECK(maj * 10 + min == ptx_version, "%s: .version %u.%u but header %u",
          what, maj, min, ptx_version);
    char want[64];
    snprintf(want, sizeof want, ".target sm_%u", arch);
    CHECK(has_line_prefix(text, want), "%s: no '%s' line", what, want);
    CHECK(has_line_prefix(text, ".address_size 64"), "%s: no .address_size 64",
          what);
    for (int k = 0; k < NKERNELS; k++) {
        snprintf(want, sizeof want, ".visible .entry %s(", kernels[k].name);
        CHECK(has_line_prefix(text, want), "%s: no '%s'", what, want);
    }
}

static void check_cubin_params(const uint8_t *elf, size_t len, const char *what)
{
    for (int k = 0; k < NKERNELS; k++) {
        uint32_t sizes[8];
        memset(sizes, 0xff, sizeof sizes);
        int n = tfl_cubin_param_sizes(elf, len, kernels[k].name, sizes, 8);
        CHECK(n == kernels[k].nparams, "%s: %s has %d params, want %d", what,
              kernels[k].name, n, kernels[k].nparams);
        for (int i = 0; i < n && i < kernels[k].nparams; i++)
            CHECK(sizes[i] == kernels[k].sizes[i], "%s: %s param %d size %u,"
                  " want %u", what, kernels[k].name, i, sizes[i],
                  kernels[k].sizes[i]);
        /* max smaller than the count: count still returned, no overrun */
        if (kernels[k].nparams > 1) {
            uint32_t one[2] = { 0, 0xdeadbeef };
            n = tfl_cubin_param_sizes(elf, len, kernels[k].name, one, 1);
            CHECK(n == kernels[k].nparams && one[0] == kernels[k].sizes[0] &&
                  one[1] == 0xdeadbeef, "%s: %s with max 1", what,
                  kernels[k].name);
        }
    }
    uint32_t s[4];
    CHECK(tfl_cubin_param_sizes(elf, len, "no_such_kernel", s, 4) == -1,
          "%s: a missing kernel must give -1", what);
    CHECK(tfl_cubin_param_sizes(elf, len, "kad", s, 4) == -1,
          "%s: a name prefix must not match", what);
    /* every truncation of the ELF: -1 or the right answer, never a crash */
    for (size_t cut = 0; cut < len; cut += (cut < 256 ? 1 : 61)) {
        uint8_t *c = exact_copy(elf, cut);
        int n = tfl_cubin_param_sizes(c, cut, "kadd", s, 4);
        CHECK(n == -1 || n == 3, "%s: cut at %zu gives %d", what, cut, n);
        free(c);
    }
}

/* The three-arch fatbin in one compression mode: 4 entries, the expected
 * kinds/archs/compression, PTX equal to nvcc -ptx, cubins equal to
 * nvcc -cubin.  Returns the two PTX texts (arch 90, 120) for comparison
 * across modes. */
static void check_mode(const char *file, tfl_fatbin_comp comp, char **ptx90,
                       char **ptx120)
{
    buf img = read_input(file);
    buf ref90 = read_input("kernels.compute_90.ptx");
    buf ref120 = read_input("kernels.compute_120.ptx");
    buf cub80 = read_input("kernels.sm_80.cubin");
    buf cub120 = read_input("kernels.sm_120.cubin");
    *ptx90 = *ptx120 = NULL;
    if (!img.p || !ref90.p || !ref120.p || !cub80.p || !cub120.p)
        goto out;

    char err[256];
    tfl_fatbin_entry es[8];
    int n = tfl_fatbin_list(img.p, img.n, es, 8, err, sizeof err);
    CHECK(n == 4, "%s: %d entries (%s)", file, n, n < 0 ? err : "");
    CHECK(tfl_fatbin_list(img.p, img.n, NULL, 0, err, sizeof err) == n,
          "%s: counting differs from listing", file);
    int seen_elf80 = 0, seen_elf120 = 0, seen_ptx90 = 0, seen_ptx120 = 0;
    for (int i = 0; i < n && i < 8; i++) {
        tfl_fatbin_entry *e = &es[i];
        char what[128];
        snprintf(what, sizeof what, "%s entry %d (%s sm_%u)", file, i,
                 e->kind == TFL_FB_PTX ? "PTX" : "ELF", e->arch);
        CHECK(e->compression == comp, "%s: compression %d, want %d", what,
              (int)e->compression, (int)comp);
        CHECK(e->payload >= img.p && e->payload + e->payload_size <= img.p + img.n,
              "%s: payload outside the image", what);
        if (comp == TFL_FB_COMP_NONE)
            CHECK(e->uncompressed_size == 0, "%s: uncompressed size set", what);
        else
            CHECK(e->uncompressed_size > e->payload_size / 2,
                  "%s: implausible sizes %llu/%llu", what,
                  (unsigned long long)e->payload_size,
                  (unsigned long long)e->uncompressed_size);
        uint8_t *out = NULL;
        size_t len = 0;
        int rc = tfl_fatbin_extract(e, &out, &len, err, sizeof err);
        CHECK(rc == 0, "%s: extract failed: %s", what, err);
        if (rc != 0)
            continue;
        CHECK(out[len] == 0, "%s: not NUL-terminated", what);
        if (e->kind == TFL_FB_PTX) {
            CHECK(e->ptx_version >= 10, "%s: ptx version %u", what,
                  e->ptx_version);
            check_ptx_text((char *)out, len, e->arch, e->ptx_version, what);
            if (e->arch == 90) {
                seen_ptx90++;
                CHECK(same_tokens((char *)out, (char *)ref90.p),
                      "%s: differs from nvcc -ptx -arch=compute_90", what);
                free(*ptx90);
                *ptx90 = (char *)out;
                out = NULL;
            } else if (e->arch == 120) {
                seen_ptx120++;
                CHECK(same_tokens((char *)out, (char *)ref120.p),
                      "%s: differs from nvcc -ptx -arch=compute_120", what);
                free(*ptx120);
                *ptx120 = (char *)out;
                out = NULL;
            } else {
                CHECK(0, "%s: unexpected PTX arch", what);
            }
        } else {
            CHECK(e->kind == TFL_FB_ELF, "%s: kind %d", what, (int)e->kind);
            CHECK(e->ptx_version == 0, "%s: ELF with ptx version", what);
            const buf *ref = e->arch == 80 ? &cub80 : e->arch == 120 ? &cub120 : NULL;
            CHECK(ref != NULL, "%s: unexpected ELF arch", what);
            if (e->arch == 80)
                seen_elf80++;
            if (e->arch == 120)
                seen_elf120++;
            if (ref)
                CHECK(len == ref->n && memcmp(out, ref->p, len) == 0,
                      "%s: differs from nvcc -cubin (%zu vs %zu bytes)", what,
                      len, ref->n);
            check_cubin_params(out, len, what);
        }
        free(out);
    }
    CHECK(seen_elf80 == 1 && seen_elf120 == 1 && seen_ptx90 == 1 &&
          seen_ptx120 == 1, "%s: entry set %d %d %d %d", file, seen_elf80,
          seen_elf120, seen_ptx90, seen_ptx120);

    /* pick: the newest PTX, i.e. compute_120 */
    char *pick = tfl_fatbin_pick_ptx(img.p, img.n, err, sizeof err);
    CHECK(pick && *ptx120 && strcmp(pick, *ptx120) == 0,
          "%s: pick_ptx did not give the sm_120 PTX (%s)", file,
          pick ? "other text" : err);
    free(pick);
out:
    free(img.p);
    free(ref90.p);
    free(ref120.p);
    free(cub80.p);
    free(cub120.p);
}

static void test_modes(void)
{
    char *p90[3], *p120[3];
    check_mode("kernels.none.fatbin", TFL_FB_COMP_NONE, &p90[0], &p120[0]);
    check_mode("kernels.zstd.fatbin", TFL_FB_COMP_ZSTD, &p90[1], &p120[1]);
    check_mode("kernels.lz4.fatbin", TFL_FB_COMP_LZ4, &p90[2], &p120[2]);
    for (int m = 1; m < 3; m++) {
        CHECK(p90[0] && p90[m] && strcmp(p90[0], p90[m]) == 0,
              "compute_90 PTX differs between modes 0 and %d", m);
        CHECK(p120[0] && p120[m] && strcmp(p120[0], p120[m]) == 0,
              "compute_120 PTX differs between modes 0 and %d", m);
    }
    for (int m = 0; m < 3; m++) {
        free(p90[m]);
        free(p120[m]);
    }
}

static void test_ptx_only_and_sass_only(void)
{
    char err[256];
    buf p = read_input("kernels.ptxonly.fatbin");
    buf s = read_input("kernels.sassonly.fatbin");
    buf ref80 = read_input("kernels.compute_80.ptx");
    if (!p.p || !s.p || !ref80.p)
        goto out;
    tfl_fatbin_entry es[4];
    int n = tfl_fatbin_list(p.p, p.n, es, 4, err, sizeof err);
    CHECK(n == 1 && es[0].kind == TFL_FB_PTX && es[0].arch == 80,
          "ptx-only: %d entries", n);
    char *t = tfl_fatbin_pick_ptx(p.p, p.n, err, sizeof err);
    CHECK(t && same_tokens(t, (char *)ref80.p), "ptx-only pick: %s",
          t ? "differs from nvcc -ptx" : err);
    if (t)
        check_ptx_text(t, strlen(t), 80, es[0].ptx_version, "ptx-only");
    free(t);

    n = tfl_fatbin_list(s.p, s.n, es, 4, err, sizeof err);
    CHECK(n == 1 && es[0].kind == TFL_FB_ELF && es[0].arch == 80,
          "sass-only: %d entries", n);
    err[0] = 0;
    t = tfl_fatbin_pick_ptx(s.p, s.n, err, sizeof err);
    CHECK(t == NULL, "sass-only: pick_ptx returned text");
    free(t);
    CHECK(strstr(err, "no PTX") && strstr(err, "sm_80") &&
          strstr(err, "code=compute_") && strstr(err, "-arch=sm_") &&
          !strchr(err, '\n'), "sass-only: message '%s'", err);
out:
    free(p.p);
    free(s.p);
    free(ref80.p);
}

/* nvcc -c: the container sits in the object's .nv_fatbin section. */
static void test_object_file(void)
{
    buf o = read_input("kernels.o");
    buf ref80 = read_input("kernels.compute_80.ptx");
    buf cub80 = read_input("kernels.sm_80.cubin");
    if (!o.p || !ref80.p || !cub80.p)
        goto out;
    CHECK(elf_version(EV_CURRENT) != EV_NONE, "libelf");
    Elf *elf = elf_memory((char *)o.p, o.n);
    size_t shstrndx = 0;
    const uint8_t *sec = NULL;
    size_t secn = 0;
    CHECK(elf && elf_getshdrstrndx(elf, &shstrndx) == 0, "object ELF");
    for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn;
         scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        const char *nm;
        if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(elf, shstrndx, sh.sh_name)) &&
            strcmp(nm, ".nv_fatbin") == 0) {
            Elf_Data *d = elf_getdata(scn, NULL);
            if (d) {
                sec = d->d_buf;
                secn = d->d_size;
            }
        }
    }
    CHECK(sec && secn > 16, "kernels.o has no .nv_fatbin");
    if (sec) {
        char err[256];
        tfl_fatbin_entry es[4];
        int n = tfl_fatbin_list(sec, secn, es, 4, err, sizeof err);
        CHECK(n == 2, "object: %d entries (%s)", n, n < 0 ? err : "");
        int k = 0;
        for (int i = 0; i < n && i < 4; i++) {
            uint8_t *out;
            size_t len;
            CHECK(es[i].arch == 80, "object: arch %u", es[i].arch);
            if (tfl_fatbin_extract(&es[i], &out, &len, err, sizeof err) != 0) {
                CHECK(0, "object: extract: %s", err);
                continue;
            }
            if (es[i].kind == TFL_FB_ELF) {
                k |= 1;
                CHECK(len == cub80.n && memcmp(out, cub80.p, len) == 0,
                      "object: cubin differs from nvcc -cubin");
            } else {
                k |= 2;
                CHECK(same_tokens((char *)out, (char *)ref80.p),
                      "object: PTX differs from nvcc -ptx");
            }
            free(out);
        }
        CHECK(k == 3, "object: want one ELF and one PTX entry");
        /* size 0 (registered image): same result, read from the headers */
        uint8_t *c = exact_copy(sec, secn);
        CHECK(tfl_fatbin_list(c, 0, NULL, 0, err, sizeof err) == n,
              "object: size 0 differs");
        free(c);
    }
    if (elf)
        elf_end(elf);
out:
    free(o.p);
    free(ref80.p);
    free(cub80.p);
}

typedef struct wrapper {
    uint32_t magic, version;
    const void *data, *filename_or_fatbins;
} wrapper;

/* Registered images: a wrapper, size 0, one container bounded by its
 * header; several containers back to back when the size is known. */
static void test_wrapper_and_concat(void)
{
    char err[256];
    buf z = read_input("kernels.zstd.fatbin");
    buf l = read_input("kernels.lz4.fatbin");
    if (!z.p || !l.p)
        goto out;
    uint8_t *c = exact_copy(z.p, z.n);
    tfl_fatbin_entry a[8], b[8];
    int na = tfl_fatbin_list(z.p, z.n, a, 8, err, sizeof err);
    wrapper w = { TFL_FATBIN_WRAPPER_MAGIC, 1, c, NULL };
    int nb = tfl_fatbin_list(&w, 0, b, 8, err, sizeof err);
    CHECK(na == 4 && nb == na, "wrapper: %d vs %d entries (%s)", nb, na, err);
    for (int i = 0; i < na && nb == na; i++)
        CHECK(a[i].kind == b[i].kind && a[i].arch == b[i].arch &&
              a[i].payload - z.p == b[i].payload - c &&
              a[i].payload_size == b[i].payload_size &&
              a[i].uncompressed_size == b[i].uncompressed_size,
              "wrapper: entry %d differs", i);
    w.version = 2;
    CHECK(tfl_fatbin_list(&w, 0, NULL, 0, err, sizeof err) == 4,
          "wrapper version 2 (rdc link) must be read");
    CHECK(tfl_fatbin_list(&w, sizeof w, NULL, 0, err, sizeof err) == 4,
          "wrapper with its own size");
    CHECK(tfl_fatbin_list(&w, 8, NULL, 0, err, sizeof err) == -1,
          "truncated wrapper");
    w.version = 3;
    CHECK(tfl_fatbin_list(&w, 0, NULL, 0, err, sizeof err) == -1 &&
          strstr(err, "version"), "wrapper version 3: %s", err);
    w.version = 1;
    w.data = NULL;
    CHECK(tfl_fatbin_list(&w, 0, NULL, 0, err, sizeof err) == -1,
          "wrapper without data");
    char *t = tfl_fatbin_pick_ptx(&(wrapper){ TFL_FATBIN_WRAPPER_MAGIC, 1, c, NULL },
                                  0, err, sizeof err);
    CHECK(t && strstr(t, ".target sm_120"), "pick through a wrapper: %s",
          t ? "wrong text" : err);
    free(t);
    CHECK(tfl_fatbin_list(NULL, 0, NULL, 0, err, sizeof err) == -1, "NULL");

    /* zstd container, 8 zero bytes, lz4 container */
    size_t cn = z.n + 8 + l.n;
    uint8_t *cat = calloc(1, cn);
    memcpy(cat, z.p, z.n);
    memcpy(cat + z.n + 8, l.p, l.n);
    tfl_fatbin_entry e[16];
    int n = tfl_fatbin_list(cat, cn, e, 16, err, sizeof err);
    CHECK(n == 8, "concatenated: %d entries (%s)", n, n < 0 ? err : "");
    for (int i = 0; i < n && i < 16; i++)
        CHECK(e[i].compression == (i < 4 ? TFL_FB_COMP_ZSTD : TFL_FB_COMP_LZ4),
              "concatenated: entry %d compression", i);
    CHECK(tfl_fatbin_list(cat, 0, NULL, 0, err, sizeof err) == 4,
          "size 0 must read exactly one container");
    CHECK(tfl_fatbin_list(cat, cn - 1, NULL, 0, err, sizeof err) == -1,
          "cut second container");
    cat[z.n + 3] = 7; /* garbage in the gap */
    CHECK(tfl_fatbin_list(cat, cn, NULL, 0, err, sizeof err) == -1 &&
          strstr(err, "magic"), "garbage between containers: %s", err);
    free(cat);
    free(c);
out:
    free(z.p);
    free(l.p);
}

/* Entry offsets of a single-container image (parsed independently here). */
static int entry_offsets(const uint8_t *p, size_t n, size_t *offs, int max)
{
    uint16_t hs;
    uint64_t ps;
    memcpy(&hs, p + 6, 2);
    memcpy(&ps, p + 8, 8);
    size_t off = hs;
    int k = 0;
    while (off < hs + ps && off + 16 <= n && k < max) {
        uint32_t ehs;
        uint64_t pad;
        memcpy(&ehs, p + off + 4, 4);
        memcpy(&pad, p + off + 8, 8);
        offs[k++] = off;
        off += ehs + pad;
    }
    offs[k] = off;
    return k;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* list + extract everything; returns list's count or -1 (any failure). */
static int list_and_extract(const uint8_t *p, size_t n, char *err, size_t el)
{
    tfl_fatbin_entry es[16];
    int k = tfl_fatbin_list(p, n, es, 16, err, el);
    if (k < 0)
        return -1;
    for (int i = 0; i < k && i < 16; i++) {
        uint8_t *o;
        size_t len;
        if (tfl_fatbin_extract(&es[i], &o, &len, err, el) < 0)
            return -1;
        free(o);
    }
    return k;
}

/* Cut points worth trying in a single-container image: every byte of the
 * first 256, a few bytes around every header boundary (container header,
 * each entry header, each payload end), and a stride through the rest. */
static uint8_t *cut_points(const uint8_t *p, size_t n)
{
    uint8_t *m = calloc(n + 1, 1);
    size_t offs[17];
    int ne = entry_offsets(p, n, offs, 16);
    for (size_t i = 0; i <= n; i++)
        m[i] = i < 256 || i % 97 == 0;
    for (int e = 0; e <= ne; e++) {
        uint32_t ehs = 0;
        if (e < ne)
            memcpy(&ehs, p + offs[e] + 4, 4);
        size_t marks[] = { offs[e], offs[e] + 16, offs[e] + 64, offs[e] + ehs };
        for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
            for (size_t d = 0; d < 5; d++)
                if (marks[k] + d >= 2 && marks[k] + d - 2 <= n)
                    m[marks[k] + d - 2] = 1;
    }
    return m;
}

static void test_truncation(const char *file)
{
    char err[256];
    buf img = read_input(file);
    if (!img.p)
        return;
    uint8_t *cuts = cut_points(img.p, img.n);
    /* every proper prefix of a single container is incomplete: -1 */
    for (size_t cut = 1; cut < img.n; cut++) {
        if (!cuts[cut])
            continue;
        uint8_t *c = exact_copy(img.p, cut);
        err[0] = 0;
        int n = tfl_fatbin_list(c, cut, NULL, 0, err, sizeof err);
        CHECK(n == -1 && err[0] && !strchr(err, '\n'),
              "%s cut at %zu: %d '%s'", file, cut, n, err);
        free(c);
    }
    /* size 0: the container header claims p payload bytes.  A claim that
     * ends on an entry boundary lists the entries before it; any other
     * claim is corrupt.  The buffer holds exactly what is claimed. */
    size_t offs[17];
    int ne = entry_offsets(img.p, img.n, offs, 16);
    CHECK(ne == 4 && offs[ne] == img.n, "%s: independent walk: %d", file, ne);
    for (size_t claim = 0; claim + 16 <= img.n; claim++) {
        if (!cuts[claim + 16])
            continue;
        uint8_t *c = exact_copy(img.p, 16 + claim);
        put64(c + 8, claim);
        int want = -1;
        for (int i = 0; i <= ne; i++)
            if (offs[i] == 16 + claim)
                want = i;
        int n = list_and_extract(c, 0, err, sizeof err);
        CHECK(n == want, "%s: size 0, claim %zu: %d, want %d (%s)", file,
              claim, n, want, err);
        free(c);
    }
    free(cuts);
    free(img.p);
}

/* Absurd or inconsistent header fields must give -1, in list or extract. */
static void test_bad_headers(const char *file, int compressed)
{
    char err[256];
    buf img = read_input(file);
    if (!img.p)
        return;
    size_t offs[17];
    int ne = entry_offsets(img.p, img.n, offs, 16);
    uint8_t *c = malloc(img.n);
#define MUTATE(stmt, why)                                                    \
    do {                                                                     \
        memcpy(c, img.p, img.n);                                             \
        stmt;                                                                \
        err[0] = 0;                                                          \
        int r_ = list_and_extract(c, img.n, err, sizeof err);                \
        CHECK(r_ == -1 && err[0] && !strchr(err, '\n'), "%s: %s: %d '%s'",   \
              file, why, r_, err);                                           \
    } while (0)
    MUTATE(put32(c, 0xBA55ED51u), "container magic");
    MUTATE(put16(c + 4, 2), "container version");
    MUTATE(put16(c + 6, 0), "container header size 0");
    MUTATE(put16(c + 6, 8), "container header size 8");
    MUTATE(put16(c + 6, 0xffff), "container header size 65535");
    MUTATE(put64(c + 8, 1ull << 40), "container payload 2^40");
    MUTATE(put64(c + 8, UINT64_MAX), "container payload 2^64-1");
    MUTATE(put64(c + 8, img.n - 16 + 8), "container payload past the end");
    MUTATE(put64(c + 8, img.n - 16 - 8), "container payload mid-entry");
    for (int i = 0; i < ne; i++) {
        uint8_t *e = c + offs[i];
        uint32_t ehs;
        uint64_t pad;
        memcpy(&ehs, img.p + offs[i] + 4, 4);
        memcpy(&pad, img.p + offs[i] + 8, 8);
        MUTATE(put32(e + 4, 0), "entry header size 0");
        MUTATE(put32(e + 4, 63), "entry header size 63");
        MUTATE(put32(e + 4, 0xffffffffu), "entry header size 2^32-1");
        MUTATE(put64(e + 8, UINT64_MAX), "entry payload 2^64-1");
        MUTATE(put64(e + 8, UINT64_MAX - ehs + 1), "entry payload wrapping");
        MUTATE(put64(e + 8, pad + (offs[ne] - offs[i + 1]) + 8),
               "entry payload past the container");
        MUTATE(put64(e + 40, 0xa011), "both LZ4 and zstd");
        if (!compressed) {
            /* claim compression without sizes */
            MUTATE(put64(e + 40, 0x8011), "zstd flag, no sizes");
            MUTATE(put64(e + 40, 0x2011), "LZ4 flag, no sizes");
            continue;
        }
        uint32_t cs;
        uint64_t us;
        memcpy(&cs, img.p + offs[i] + 16, 4);
        memcpy(&us, img.p + offs[i] + 56, 8);
        MUTATE(put32(e + 16, 0), "compressed size 0");
        MUTATE(put32(e + 16, (uint32_t)pad + 1), "compressed > padded");
        MUTATE(put64(e + 56, 0), "uncompressed size 0");
        MUTATE(put64(e + 56, 1ull << 40), "uncompressed size 2^40");
        MUTATE(put64(e + 56, us + 1), "uncompressed size +1");
        MUTATE(put64(e + 56, us - 1), "uncompressed size -1");
        MUTATE(put32(e + 16, cs - 1), "compressed size -1 (cut stream)");
        uint64_t fl;
        memcpy(&fl, img.p + offs[i] + 40, 8);
        MUTATE(put64(e + 40, (fl & ~0xa000ull) | ((fl & 0x8000) ? 0x2000 : 0x8000)),
               "wrong decompressor");
        MUTATE(memset(e + ehs, 0xff, cs), "payload all 0xff");
    }
#undef MUTATE
    free(c);
    free(img.p);
}

/* Flip bytes everywhere (deterministic PRNG): -1 or a result, no crash. */
static void test_flips(const char *file)
{
    char err[256];
    buf img = read_input(file);
    if (!img.p)
        return;
    uint8_t *c = malloc(img.n);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int ok = 0, bad = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(c, img.p, img.n);
        int nflip = 1 + round % 4;
        for (int f = 0; f < nflip; f++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* half of the flips land in the first 512 bytes (headers) */
            size_t pos = (round & 1) ? (size_t)(x % img.n)
                                     : (size_t)(x % (img.n < 512 ? img.n : 512));
            c[pos] ^= (uint8_t)(1u << ((x >> 32) % 8));
        }
        int r = list_and_extract(c, img.n, err, sizeof err);
        /* every entry takes at least 64 header bytes */
        CHECK(r >= -1 && (size_t)(r + 1) <= img.n / 64 + 1,
              "%s: flip round %d gives %d", file, round, r);
        if (r < 0)
            bad++;
        else
            ok++;
        LLVMFuzzerTestOneInput(c, img.n);
    }
    /* both outcomes must occur, or the flips tested nothing */
    CHECK(ok > 0 && bad > 0, "%s: flips: %d ok, %d rejected", file, ok, bad);
    free(c);
    free(img.p);
}

static void test_cubin_args(void)
{
    buf cub = read_input("kernels.sm_80.cubin");
    if (!cub.p)
        return;
    uint32_t s[4];
    CHECK(tfl_cubin_param_sizes(NULL, 100, "kadd", s, 4) == -1, "NULL elf");
    CHECK(tfl_cubin_param_sizes(cub.p, cub.n, NULL, s, 4) == -1, "NULL name");
    CHECK(tfl_cubin_param_sizes(cub.p, cub.n, "kadd", NULL, 0) == 3,
          "count only");
    CHECK(tfl_cubin_param_sizes(cub.p, cub.n, "kadd", NULL, 4) == -1,
          "NULL sizes with max > 0");
    CHECK(tfl_cubin_param_sizes("not an elf at all, just text, long enough "
                                "to pass the size test .......", 70, "kadd",
                                s, 4) == -1, "text is not an ELF");
    /* khuge's parameter records (EIATTR_KPARAM_INFO_V2, "04 45 0c 00")
     * renamed to an unknown attribute: its parameter bank is not empty, so
     * the answer must be "unknown" (-1), never "no parameters" (0). */
    int renamed = 0;
    for (size_t i = 0; i + 4 <= cub.n; i++)
        if (memcmp(cub.p + i, "\x04\x45\x0c\x00", 4) == 0)
            cub.p[i + 1] = 0x46, renamed++;
    CHECK(renamed == 2, "khuge: %d V2 records found", renamed);
    CHECK(tfl_cubin_param_sizes(cub.p, cub.n, "khuge", s, 4) == -1,
          "unknown parameter records must give -1");
    CHECK(tfl_cubin_param_sizes(cub.p, cub.n, "kadd", s, 4) == 3,
          "other kernels unaffected");
    free(cub.p);
}
#endif /* TFL_FATBIN_TEST_DIR */

/* tests/fuzz/<sub>, found next to this source file. */
static void fuzz_path(char *dir, size_t n, const char *sub)
{
    const char *here = __FILE__; /* .../tests/unit/test_fatbin.c */
    const char *slash = strrchr(here, '/');
    int plen = slash ? (int)(slash - here) : 1;
    snprintf(dir, n, "%.*s/../fuzz/%s", plen, slash ? here : ".", sub);
}

/* Hand-made inputs in regressions/fatbin (see the file names): the
 * outcome each was made to provoke. */
static void test_crafted(void)
{
    char path[1024], err[256];
    tfl_fatbin_entry es[4];
    uint8_t *out = NULL;
    size_t len;

    fuzz_path(path, sizeof path, "regressions/fatbin/zstd-frame-cut.fatbin");
    buf a = read_path(path);
    CHECK(a.p && tfl_fatbin_list(a.p, a.n, es, 4, err, sizeof err) == 1 &&
          tfl_fatbin_extract(&es[0], &out, &len, err, sizeof err) == -1 &&
          strstr(err, "zstd"), "cut zstd frame: '%s'", err);
    free(a.p);

    fuzz_path(path, sizeof path, "regressions/fatbin/lz4-max-ratio-garbage.fatbin");
    buf b = read_path(path);
    CHECK(b.p && tfl_fatbin_list(b.p, b.n, es, 4, err, sizeof err) == 1 &&
          tfl_fatbin_extract(&es[0], &out, &len, err, sizeof err) == -1 &&
          strstr(err, "LZ4"), "LZ4 garbage: '%s'", err);
    /* one byte more than LZ4 can produce is refused by list already */
    if (b.p) {
        uint64_t us;
        memcpy(&us, b.p + 16 + 56, 8);
        us++;
        memcpy(b.p + 16 + 56, &us, 8);
        CHECK(tfl_fatbin_list(b.p, b.n, es, 4, err, sizeof err) == -1,
              "LZ4 ratio bound");
    }
    free(b.p);

    fuzz_path(path, sizeof path,
              "regressions/fatbin/lto-skip-and-empty-container.fatbin");
    buf c = read_path(path);
    int n = c.p ? tfl_fatbin_list(c.p, c.n, es, 4, err, sizeof err) : -2;
    CHECK(n == 1 && es[0].kind == TFL_FB_PTX && es[0].ptx_version == 90,
          "LTO-IR entry must be skipped: %d (%s)", n, err);
    char *t = c.p ? tfl_fatbin_pick_ptx(c.p, c.n, err, sizeof err) : NULL;
    CHECK(t && strcmp(t, ".version 9.0\n.target sm_80\n.address_size 64\n") == 0,
          "crafted PTX text: %s", t ? t : err);
    free(t);
    free(c.p);
}

/* Replay a folder through the fuzz harness; returns the file count. */
static int replay_dir(const char *sub)
{
    char dir[1024];
    fuzz_path(dir, sizeof dir, sub);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        buf b = read_path(path);
        uint8_t *c = exact_copy(b.p, b.n);
        LLVMFuzzerTestOneInput(c, b.n); /* aborts on a violated invariant */
        free(c);
        free(b.p);
        n++;
    }
    closedir(d);
    return n;
}

int main(void)
{
#ifdef TFL_FATBIN_TEST_DIR
    test_modes();
    test_ptx_only_and_sass_only();
    test_object_file();
    test_wrapper_and_concat();
    test_truncation("kernels.zstd.fatbin");
    test_truncation("kernels.lz4.fatbin");
    test_truncation("kernels.none.fatbin");
    test_bad_headers("kernels.zstd.fatbin", 1);
    test_bad_headers("kernels.lz4.fatbin", 1);
    test_bad_headers("kernels.none.fatbin", 0);
    test_flips("kernels.zstd.fatbin");
    test_flips("kernels.lz4.fatbin");
    test_flips("kernels.none.fatbin");
    test_cubin_args();
#else
    fprintf(stderr, "test_fatbin: nvcc not found at configure time; "
            "only the fuzz corpus and regressions are replayed\n");
#endif
    test_crafted();
    int seeds = replay_dir("corpus/fatbin");
    int regs = replay_dir("regressions/fatbin");
    CHECK(seeds > 0, "no seed corpus found next to %s", __FILE__);
    CHECK(regs >= 0, "no regressions folder next to %s", __FILE__);
    printf("test_fatbin: %d checks, %d failures; replayed %d seeds, %d "
           "regression inputs\n", checks, failures, seeds, regs);
    return failures ? 1 : 0;
}

/*
 * cubin_info.c - kernel parameter sizes from a cubin's .nv.info.<kernel>.
 *
 * A cubin carries, per kernel, a section ".nv.info.<kernel>" of attribute
 * records: u8 format, u8 attribute, then
 *   format 1 (EIFMT_NVAL), 2 (EIFMT_BVAL), 3 (EIFMT_HVAL): a u16 value
 *   format 4 (EIFMT_SVAL): u16 length, then that many bytes.
 * EIATTR_KPARAM_INFO (attribute 0x17, format 4) describes one parameter in
 * 12 bytes: u32 index, u16 ordinal, u16 offset, u32 packed whose bits
 * 18..31 hold the size in bytes (low bits: log alignment, space, cbank).
 * Kernels with large parameter lists (CUDA 12.1+, over 4 KB) use attribute
 * 0x45, EIATTR_KPARAM_INFO_V2, instead: same 12 bytes, but the size is
 * the low 16 bits of the last u32 (14 bits cannot hold it; the top byte
 * holds the space, 5 for pointers in sm_120 cubins).  16 bits hold any
 * legal parameter (at most 32764 bytes in all).  EIATTR_CBANK_PARAM_SIZE
 * (0x19, a u16) holds the bytes of all parameters: a kernel that has some
 * but no parameter record we understand is refused, not reported as
 * taking none.  Checked on nvcc 13.0 sm_80/sm_90/sm_120 cubins
 * against cuobjdump -elf.  The records come in reverse ordinal order; we
 * index by ordinal.
 *
 * The ELF is read with libelf from a private copy: libelf wants a writable,
 * aligned image and the caller's bytes may be neither.
 */
#include "backends/host/fatbin.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define EIFMT_NVAL 1
#define EIFMT_BVAL 2
#define EIFMT_HVAL 3
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_KPARAM_INFO_V2 0x45 /* so cuobjdump names it */
#define EIATTR_CBANK_PARAM_SIZE 0x19
#define KPARAM_INFO_LEN 12

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_usable;

static void elf_init(void) { elf_usable = elf_version(EV_CURRENT) != EV_NONE; }

static uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* Walk the records of one .nv.info.<kernel>.  With all == NULL only
 * validates and returns 1 + the highest ordinal; otherwise fills all[],
 * offs[] and seen[] (top entries each) by ordinal.  -1 on malformed
 * records. */
static int parse_info(const uint8_t *b, size_t n, uint32_t *all, uint32_t *offs,
                      uint8_t *seen)
{
    int top = 0;
    long cbank_bytes = -1;
    uint64_t sum = 0;
    size_t pos = 0;
    while (pos + 4 <= n) {
        uint8_t fmt = b[pos], attr = b[pos + 1];
        if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
            if (fmt == EIFMT_HVAL && attr == EIATTR_CBANK_PARAM_SIZE)
                cbank_bytes = ld16(b + pos + 2);
            pos += 4;
            continue;
        }
        if (fmt != EIFMT_SVAL)
            return -1;
        size_t len = ld16(b + pos + 2);
        if (len > n - pos - 4)
            return -1;
        const uint8_t *v = b + pos + 4;
        if (attr == EIATTR_KPARAM_INFO || attr == EIATTR_KPARAM_INFO_V2) {
            if (len < KPARAM_INFO_LEN)
                return -1;
            uint16_t ord = ld16(v + 4);
            uint32_t size = attr == EIATTR_KPARAM_INFO ? ld32(v + 8) >> 18
                                                       : ld16(v + 8);
            if (all) {
                if (seen[ord] && all[ord] != size)
                    return -1; /* two different sizes for one parameter */
                if (!seen[ord])
                    sum += size;
                seen[ord] = 1;
                all[ord] = size;
                offs[ord] = ld16(v + 6);
            }
            if (ord + 1 > top)
                top = ord + 1;
        }
        pos += 4 + len;
    }
    if (pos != n)
        return -1;
    if (cbank_bytes > 0 && top == 0)
        return -1; /* parameters in a form we do not know */
    if (all && cbank_bytes >= 0 && sum > (uint64_t)cbank_bytes)
        return -1; /* sizes cannot exceed the parameter bank */
    return top;
}

/* The parameters of one .nv.info section's kernel into sizes/offsets
 * (malloc'd, *n entries).  0 ok (n may be 0), -1 malformed or a gap. */
static int section_params(const uint8_t *b, size_t len, int *n, uint32_t **sizes,
                          uint32_t **offsets)
{
    *sizes = *offsets = NULL;
    int top = parse_info(b, len, NULL, NULL, NULL);
    *n = top;
    if (top <= 0)
        return top;
    uint32_t *all = calloc((size_t)top, sizeof *all);
    uint32_t *offs = calloc((size_t)top, sizeof *offs);
    uint8_t *seen = calloc((size_t)top, 1);
    int ok = all && offs && seen && parse_info(b, len, all, offs, seen) == top;
    for (int i = 0; ok && i < top; i++)
        ok = seen[i]; /* a gap: we cannot describe the signature */
    free(seen);
    if (!ok) {
        free(all);
        free(offs);
        return -1;
    }
    *sizes = all;
    *offsets = offs;
    return 0;
}

#define STO_CUDA_ENTRY 0x10  /* st_other bit of a kernel (.entry) symbol */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the cubin's kernels (functions marked as entries in the
 * symbol table), sorted, in a malloc'd array (*n of them); NULL with
 * *n = -1 when there is no symbol table to tell (then nothing is
 * filtered).  Device functions with an ABI have .nv.info sections too. */
static const char **entry_names(Elf *elf, int *n)
{
    *n = -1;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t count = d ? d->d_size / sh.sh_entsize : 0;
        const char **names = malloc((count ? count : 1) * sizeof *names);
        if (!names)
            return NULL;
        int k = 0;
        for (size_t i = 0; i < count; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
                !(sym.st_other & STO_CUDA_ENTRY))
                continue;
            const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (nm)
                names[k++] = nm;
        }
        qsort(names, (size_t)k, sizeof *names, cmp_str);
        *n = k;
        return names;
    }
    return NULL;
}

/* Call fn for every .nv.info.<name> section of the cubin (want == NULL)
 * or only the one for kernel `want`.  Returns the number of sections
 * visited, -1 if the ELF is unreadable or a visited section is malformed,
 * or fn's nonzero return value. */
static int walk(const void *elf_image, size_t size, const char *want,
                int (*fn)(void *ctx, const char *kernel, int n, const uint32_t *sizes,
                          const uint32_t *offsets),
                void *ctx)
{
    if (!elf_image || size < 64)
        return -1;
    pthread_once(&elf_once, elf_init);
    if (!elf_usable)
        return -1;
    void *copy = malloc(size);
    if (!copy)
        return -1;
    memcpy(copy, elf_image, size);
    int visited = 0, nentries = -1;
    const char **entries = NULL;
    Elf *elf = elf_memory(copy, size);
    size_t shstrndx;
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
        visited = -1;
        goto out;
    }
    static const char pre[] = ".nv.info.";
    if (!want)
        entries = entry_names(elf, &nentries);
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
            continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!name || strncmp(name, pre, sizeof pre - 1) != 0 || !name[sizeof pre - 1])
            continue;
        name += sizeof pre - 1;
        if (want && strcmp(name, want) != 0)
            continue;
        if (entries && !bsearch(&name, entries, (size_t)nentries, sizeof *entries, cmp_str))
            continue;                       /* a device function, not a kernel */
        Elf_Data *d = elf_getdata(scn, NULL);
        int n;
        uint32_t *sz, *off;
        if (!d || (!d->d_buf && d->d_size) ||
            section_params(d->d_buf, d->d_size, &n, &sz, &off) < 0) {
            visited = -1;
            goto out;
        }
        int r = fn(ctx, name, n, sz, off);
        free(sz);
        free(off);
        if (r) {
            visited = r;
            goto out;
        }
        visited++;
        if (want)
            break;
    }
out:
    free(entries);
    if (elf)
        elf_end(elf);
    free(copy);
    return visited;
}

typedef struct one_kernel {
    uint32_t *sizes;
    int max, n;
} one_kernel;

static int take_one(void *ctx, const char *kernel, int n, const uint32_t *sizes,
                    const uint32_t *offsets)
{
    (void)kernel;
    (void)offsets;
    one_kernel *o = ctx;
    o->n = n;
    for (int i = 0; i < n && i < o->max; i++)
        o->sizes[i] = sizes[i];
    return 0;
}

int tfl_cubin_param_sizes(const void *elf_image, size_t size,
                          const char *kernel, uint32_t *sizes, int max)
{
    if (!kernel || (max > 0 && !sizes))
        return -1;
    one_kernel o = { sizes, max, -1 };
    if (walk(elf_image, size, kernel, take_one, &o) != 1)
        return -1;
    return o.n;
}

int tfl_cubin_each_kernel(const void *elf_image, size_t size,
                          int (*fn)(void *ctx, const char *kernel, int n,
                                    const uint32_t *sizes, const uint32_t *offsets),
                          void *ctx)
{
    if (!fn)
        return -1;
    return walk(elf_image, size, NULL, fn, ctx);
}

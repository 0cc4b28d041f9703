/*
 * fatbin.c - walk fatbin containers and their entries; decompress entries.
 *
 * Layout (little-endian, checked against nvcc 13.0 output and the .nv_fatbin
 * sections of the torch 2.11 cu130 wheel; see fatbin.h for the API):
 *
 *   wrapper   (__fatBinC_Wrapper_t, fatbinary_section.h)
 *     +0 u32 magic 0x466243B1   +4 u32 version (1, or 2 for -rdc links)
 *     +8 ptr data (-> container) +16 ptr filename / prelinked fatbins
 *   container
 *     +0 u32 magic 0xBA55ED50   +4 u16 version (1)   +6 u16 header_size (16)
 *     +8 u64 payload_size: bytes of entries after the header
 *   entry (header_size 64 for sm_80-style cubins, 80 for PTX, 112 for
 *          newer cubins, 120 for LTO-IR; the extra bytes are options)
 *     +0  u16 kind (1 PTX, 2 ELF, 8 LTO-IR)  +2 u16 version (0x0101)
 *     +4  u32 header_size                    +8 u64 padded_payload_size
 *     +16 u32 compressed_size (0 if not compressed)
 *     +20 u32 options offset (0 or 64)
 *     +24 u16 minor  +26 u16 major   (PTX ISA, e.g. 9.0; cubins: ELF ABI 1.8)
 *     +28 u32 arch (80, 90, 120, ...)
 *     +32 u32 name offset  +36 u32 name length
 *     +40 u64 flags: 0x0001 64-bit, 0x0010 linux host,
 *                    0x2000 LZ4 block, 0x8000 zstd frame
 *     +48 u64 (0; a hash for LTO-IR)
 *     +56 u64 uncompressed_size (0 if not compressed)
 *   The payload follows the entry header; the next entry follows the padded
 *   payload.  Uncompressed PTX is NUL-padded; compressed PTX decompresses to
 *   the text plus its NUL.
 *
 * Every read is bounded by the size we were given, or, for a registered
 * wrapper (size 0), by what the container header claims after checking it
 * against TFL_FATBIN_MAX_CONTAINER.  Loads go through memcpy: images in
 * files or fuzzer buffers need not be aligned.
 */
#include "backends/host/fatbin.h"

#include <inttypes.h>
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define CONTAINER_HDR_MIN 16u
#define CONTAINER_HDR_MAX 4096u
#define ENTRY_HDR_MIN 64u        /* we read fields up to +64             */
#define ENTRY_HDR_MAX 4096u
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define LZ4_MAX_RATIO 255u       /* LZ4 block format cannot expand more  */

typedef struct fb_wrapper {
    uint32_t magic;
    uint32_t version;
    const void *data;
    const void *filename_or_fatbins;
} fb_wrapper;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Parse one entry header at p (avail bytes left in the container). */
static int parse_entry(const uint8_t *p, uint64_t avail, uint64_t off,
                       tfl_fatbin_entry *e, int *known, uint64_t *step,
                       char *err, size_t errlen)
{
    if (avail < ENTRY_HDR_MIN) {
        set_err(err, errlen, "fatbin: truncated entry header at offset 0x%" PRIx64
                " (%" PRIu64 " bytes left, need %u)", off, avail, ENTRY_HDR_MIN);
        return -1;
    }
    uint16_t kind = ld16(p);
    uint32_t hsize = ld32(p + 4);
    uint64_t padded = ld64(p + 8);
    uint32_t csize = ld32(p + 16);
    uint16_t minor = ld16(p + 24), major = ld16(p + 26);
    uint32_t arch = ld32(p + 28);
    uint64_t flags = ld64(p + 40);
    uint64_t usize = ld64(p + 56);

    if (hsize < ENTRY_HDR_MIN || hsize > ENTRY_HDR_MAX || hsize > avail) {
        set_err(err, errlen, "fatbin: entry at offset 0x%" PRIx64
                " has a bad header size %" PRIu32 " (%" PRIu64 " bytes left)",
                off, hsize, avail);
        return -1;
    }
    if (padded > avail - hsize) {
        set_err(err, errlen, "fatbin: entry at offset 0x%" PRIx64 " claims %"
                PRIu64 " payload bytes but only %" PRIu64 " remain",
                off, padded, avail - hsize);
        return -1;
    }
    *step = hsize + padded;
    *known = (kind == TFL_FB_PTX || kind == TFL_FB_ELF);
    if (!*known)
        return 0; /* LTO-IR and future kinds: skipped, but walked over */

    memset(e, 0, sizeof *e);
    e->kind = (tfl_fatbin_kind)kind;
    e->arch = arch;
    e->ptx_version = kind == TFL_FB_PTX ? (unsigned)major * 10u + minor : 0u;
    e->flags = (uint32_t)flags;
    e->payload = p + hsize;

    int lz4 = (flags & FLAG_LZ4) != 0, zstd = (flags & FLAG_ZSTD) != 0;
    if (lz4 && zstd) {
        set_err(err, errlen, "fatbin: entry at offset 0x%" PRIx64
                " claims both LZ4 and zstd compression (flags 0x%" PRIx64 ")",
                off, flags);
        return -1;
    }
    if (!lz4 && !zstd) {
        e->compression = TFL_FB_COMP_NONE;
        e->payload_size = padded;
        e->uncompressed_size = 0;
        return 0;
    }
    e->compression = lz4 ? TFL_FB_COMP_LZ4 : TFL_FB_COMP_ZSTD;
    if (csize == 0 || csize > padded) {
        set_err(err, errlen, "fatbin: compressed entry at offset 0x%" PRIx64
                " has compressed size %" PRIu32 " (padded payload %" PRIu64 ")",
                off, csize, padded);
        return -1;
    }
    if (usize == 0 || usize > TFL_FATBIN_MAX_UNCOMPRESSED) {
        set_err(err, errlen, "fatbin: compressed entry at offset 0x%" PRIx64
                " has an absurd uncompressed size %" PRIu64, off, usize);
        return -1;
    }
    if (lz4 && usize > (uint64_t)csize * LZ4_MAX_RATIO + 64u) {
        set_err(err, errlen, "fatbin: LZ4 entry at offset 0x%" PRIx64
                " claims %" PRIu64 " bytes from %" PRIu32
                " compressed (more than LZ4 can produce)", off, usize, csize);
        return -1;
    }
    e->payload_size = csize;
    e->uncompressed_size = usize;
    return 0;
}

/* Walk one container of total size csize (header included) at p. */
static int walk_container(const uint8_t *p, uint64_t csize, uint64_t base,
                          tfl_fatbin_entry *out, int max_out, int *count,
                          char *err, size_t errlen)
{
    uint16_t hsize = ld16(p + 6);
    uint64_t off = hsize;
    while (off < csize) {
        tfl_fatbin_entry e;
        int known = 0;
        uint64_t step = 0;
        if (parse_entry(p + off, csize - off, base + off, &e, &known, &step,
                        err, errlen) < 0)
            return -1;
        if (known) {
            if (*count == INT32_MAX) {
                set_err(err, errlen, "fatbin: too many entries");
                return -1;
            }
            if (out && *count < max_out)
                out[*count] = e;
            (*count)++;
        }
        off += step;
    }
    return 0;
}

/* Check a container header at p with avail bytes readable (avail = 0:
 * unknown, a registered image); returns its total size or 0 with err. */
static uint64_t container_size(const uint8_t *p, uint64_t avail, uint64_t off,
                               char *err, size_t errlen)
{
    if (avail && avail < CONTAINER_HDR_MIN) {
        set_err(err, errlen, "fatbin: truncated container header at offset 0x%"
                PRIx64 " (%" PRIu64 " bytes)", off, avail);
        return 0;
    }
    uint32_t magic = ld32(p);
    uint16_t version = ld16(p + 4), hsize = ld16(p + 6);
    uint64_t psize = ld64(p + 8);
    if (magic != TFL_FATBIN_MAGIC) {
        set_err(err, errlen, "fatbin: bad container magic 0x%08" PRIx32
                " at offset 0x%" PRIx64 " (want 0x%08x)", magic, off,
                TFL_FATBIN_MAGIC);
        return 0;
    }
    if (version != 1) {
        set_err(err, errlen, "fatbin: container version %u at offset 0x%"
                PRIx64 " is not supported (only 1)", version, off);
        return 0;
    }
    if (hsize < CONTAINER_HDR_MIN || hsize > CONTAINER_HDR_MAX) {
        set_err(err, errlen, "fatbin: container at offset 0x%" PRIx64
                " has a bad header size %u", off, hsize);
        return 0;
    }
    if (psize > TFL_FATBIN_MAX_CONTAINER) {
        set_err(err, errlen, "fatbin: container at offset 0x%" PRIx64
                " claims an absurd payload size %" PRIu64, off, psize);
        return 0;
    }
    uint64_t total = hsize + psize;
    if (avail && total > avail) {
        set_err(err, errlen, "fatbin: container at offset 0x%" PRIx64
                " claims %" PRIu64 " bytes but only %" PRIu64 " remain",
                off, total, avail);
        return 0;
    }
    return total;
}

int tfl_fatbin_list(const void *image, size_t size, tfl_fatbin_entry *out,
                    int max_out, char *err, size_t errlen)
{
    set_err(err, errlen, "fatbin: no error");
    if (!image) {
        set_err(err, errlen, "fatbin: NULL image");
        return -1;
    }
    if (max_out < 0)
        max_out = 0;
    const uint8_t *p = image;
    uint32_t magic;
    if (size != 0 && size < 4) {
        set_err(err, errlen, "fatbin: image of %zu bytes is too small", size);
        return -1;
    }
    memcpy(&magic, p, 4);

    if (magic == TFL_FATBIN_WRAPPER_MAGIC) {
        /* A wrapper holds a pointer into this process: follow it; the
         * container it points at carries no outer size. */
        if (size != 0 && size < sizeof(fb_wrapper)) {
            set_err(err, errlen, "fatbin: truncated wrapper (%zu bytes)", size);
            return -1;
        }
        fb_wrapper w;
        memcpy(&w, p, sizeof w);
        if (w.version != 1 && w.version != 2) {
            set_err(err, errlen, "fatbin: wrapper version %" PRIu32
                    " is not supported (1 or 2)", w.version);
            return -1;
        }
        if (!w.data) {
            set_err(err, errlen, "fatbin: wrapper has no data pointer");
            return -1;
        }
        p = w.data;
        size = 0;
    }

    int count = 0;
    if (size == 0) {
        /* Registered image: exactly one container, bounded by its header. */
        uint64_t total = container_size(p, 0, 0, err, errlen);
        if (!total)
            return -1;
        if (walk_container(p, total, 0, out, max_out, &count, err, errlen) < 0)
            return -1;
        return count;
    }

    /* A buffer of known size: containers back to back (a whole .nv_fatbin
     * section), zero bytes allowed between them as alignment. */
    uint64_t off = 0;
    int ncont = 0;
    while (off < size) {
        if (p[off] == 0) {
            off++;
            continue;
        }
        uint64_t total = container_size(p + off, size - off, off, err, errlen);
        if (!total)
            return -1;
        if (walk_container(p + off, total, off, out, max_out, &count, err,
                           errlen) < 0)
            return -1;
        off += total;
        ncont++;
    }
    if (ncont == 0) {
        set_err(err, errlen, "fatbin: image of %zu bytes holds no container",
                size);
        return -1;
    }
    return count;
}

/* Length of the text in a NUL-terminated/padded PTX buffer. */
static size_t text_len(const uint8_t *b, size_t n)
{
    const uint8_t *z = memchr(b, 0, n);
    return z ? (size_t)(z - b) : n;
}

int tfl_fatbin_extract(const tfl_fatbin_entry *e, uint8_t **out,
                       size_t *out_len, char *err, size_t errlen)
{
    if (!e || !out || !out_len || (!e->payload && e->payload_size)) {
        set_err(err, errlen, "fatbin: bad arguments to extract");
        return -1;
    }
    *out = NULL;
    *out_len = 0;
    const int is_ptx = e->kind == TFL_FB_PTX;
    const char *what = is_ptx ? "PTX" : "ELF";

    if (e->compression == TFL_FB_COMP_NONE) {
        if (e->payload_size > TFL_FATBIN_MAX_UNCOMPRESSED) {
            set_err(err, errlen, "fatbin: %s sm_%u entry of %" PRIu64
                    " bytes is absurdly large", what, e->arch, e->payload_size);
            return -1;
        }
        size_t n = (size_t)e->payload_size;
        if (is_ptx)
            n = text_len(e->payload, n);
        uint8_t *b = malloc(n + 1);
        if (!b) {
            set_err(err, errlen, "fatbin: out of memory (%zu bytes)", n + 1);
            return -1;
        }
        if (n)
            memcpy(b, e->payload, n);
        b[n] = 0;
        *out = b;
        *out_len = n;
        return 0;
    }

    uint64_t usize = e->uncompressed_size, csize = e->payload_size;
    if (usize == 0 || usize > TFL_FATBIN_MAX_UNCOMPRESSED || csize == 0 ||
        csize > TFL_FATBIN_MAX_CONTAINER) {
        set_err(err, errlen, "fatbin: %s sm_%u entry has bad sizes (%" PRIu64
                " compressed, %" PRIu64 " uncompressed)", what, e->arch,
                csize, usize);
        return -1;
    }
    if (e->compression == TFL_FB_COMP_ZSTD) {
        /* Reject a frame whose own size disagrees before allocating. */
        unsigned long long fsz = ZSTD_getFrameContentSize(e->payload, csize);
        if (fsz == ZSTD_CONTENTSIZE_ERROR) {
            set_err(err, errlen, "fatbin: %s sm_%u entry: not a zstd frame",
                    what, e->arch);
            return -1;
        }
        if (fsz != ZSTD_CONTENTSIZE_UNKNOWN && fsz != usize) {
            set_err(err, errlen, "fatbin: %s sm_%u entry: zstd frame holds %llu"
                    " bytes, header says %" PRIu64, what, e->arch, fsz, usize);
            return -1;
        }
    } else if (e->compression == TFL_FB_COMP_LZ4) {
        if (usize > (uint64_t)csize * LZ4_MAX_RATIO + 64u) {
            set_err(err, errlen, "fatbin: %s sm_%u entry: %" PRIu64
                    " bytes cannot come from %" PRIu64 " LZ4 bytes", what,
                    e->arch, usize, csize);
            return -1;
        }
    } else {
        set_err(err, errlen, "fatbin: unknown compression %d",
                (int)e->compression);
        return -1;
    }

    uint8_t *b = malloc((size_t)usize + 1);
    if (!b) {
        set_err(err, errlen, "fatbin: out of memory (%" PRIu64 " bytes)",
                usize + 1);
        return -1;
    }
    if (e->compression == TFL_FB_COMP_ZSTD) {
        size_t r = ZSTD_decompress(b, (size_t)usize, e->payload, (size_t)csize);
        if (ZSTD_isError(r) || r != usize) {
            set_err(err, errlen, "fatbin: %s sm_%u entry: zstd: %s", what,
                    e->arch, ZSTD_isError(r) ? ZSTD_getErrorName(r)
                                             : "size differs from header");
            free(b);
            return -1;
        }
    } else {
        /* sizes were bounded above, so they fit an int */
        int r = LZ4_decompress_safe((const char *)e->payload, (char *)b,
                                    (int)csize, (int)usize);
        if (r < 0 || (uint64_t)r != usize) {
            set_err(err, errlen, "fatbin: %s sm_%u entry: LZ4 data %s", what,
                    e->arch, r < 0 ? "is corrupt" : "is shorter than its header says");
            free(b);
            return -1;
        }
    }
    b[usize] = 0;
    *out = b;
    *out_len = is_ptx ? text_len(b, (size_t)usize) : (size_t)usize;
    return 0;
}

char *tfl_fatbin_pick_ptx(const void *image, size_t size, char *err,
                          size_t errlen)
{
    int n = tfl_fatbin_list(image, size, NULL, 0, err, errlen);
    if (n < 0)
        return NULL;
    tfl_fatbin_entry *es = calloc(n ? (size_t)n : 1, sizeof *es);
    if (!es) {
        set_err(err, errlen, "fatbin: out of memory");
        return NULL;
    }
    if (tfl_fatbin_list(image, size, es, n, err, errlen) != n) {
        free(es);
        return NULL;
    }
    const tfl_fatbin_entry *best = NULL;
    unsigned archs[32]; /* distinct SASS archs, ascending, for the message */
    int na = 0;
    for (int i = 0; i < n; i++) {
        const tfl_fatbin_entry *e = &es[i];
        if (e->kind == TFL_FB_PTX) {
            if (!best || e->arch > best->arch ||
                (e->arch == best->arch && e->ptx_version > best->ptx_version))
                best = e;
            continue;
        }
        int j = 0;
        while (j < na && archs[j] < e->arch)
            j++;
        if ((j < na && archs[j] == e->arch) || na == 32)
            continue;
        memmove(archs + j + 1, archs + j, (size_t)(na - j) * sizeof *archs);
        archs[j] = e->arch;
        na++;
    }
    char sass[256];
    size_t sl = 0;
    sass[0] = 0;
    for (int j = 0; j < na && sl + 16 < sizeof sass; j++)
        sl += (size_t)snprintf(sass + sl, sizeof sass - sl, "%ssm_%u",
                               j ? ", " : "", archs[j]);
    if (!best) {
        set_err(err, errlen, "fatbin: no PTX in this binary (%s%s); torchfl "
                "runs PTX: rebuild with -gencode arch=compute_XX,code=compute_XX "
                "(or -arch=sm_XX, which embeds both SASS and PTX)",
                sl ? "it carries only SASS for " : "it carries no PTX or SASS",
                sass);
        free(es);
        return NULL;
    }
    uint8_t *text = NULL;
    size_t len = 0;
    int rc = tfl_fatbin_extract(best, &text, &len, err, errlen);
    free(es);
    if (rc < 0)
        return NULL;
    return (char *)text;
}

/*
 * fatbin.h - read what nvcc embeds in a binary: the fatbin wrapper, the
 * fatbin container(s) and their entries (PTX text or cubin ELF), with
 * zstd and LZ4 decompression.
 *
 * Only reads; never trusts a size it has not checked against the bytes it
 * was given.  Used lazily by the host executor at a module's first launch.
 */
#ifndef TFL_FATBIN_H
#define TFL_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define TFL_FATBIN_WRAPPER_MAGIC 0x466243B1u
#define TFL_FATBIN_MAGIC 0xBA55ED50u

/* Bounds on what a header may claim (the torch 2.11 wheel's largest
 * container is ~7 MB, its largest entry ~41 MB uncompressed); bigger
 * claims are treated as corruption. */
#define TFL_FATBIN_MAX_CONTAINER (1ull << 30)
#define TFL_FATBIN_MAX_UNCOMPRESSED (512ull << 20)

typedef enum tfl_fatbin_kind { TFL_FB_PTX = 1, TFL_FB_ELF = 2 } tfl_fatbin_kind;
typedef enum tfl_fatbin_comp {
    TFL_FB_COMP_NONE = 0, TFL_FB_COMP_LZ4 = 1, TFL_FB_COMP_ZSTD = 2
} tfl_fatbin_comp;

typedef struct tfl_fatbin_entry {
    tfl_fatbin_kind kind;
    unsigned arch;            /* SM number, e.g. 80, 120                  */
    unsigned ptx_version;     /* major*10+minor of the PTX ISA, if known  */
    uint32_t flags;           /* raw header flags                         */
    tfl_fatbin_comp compression;
    const uint8_t *payload;   /* points into the image                    */
    uint64_t payload_size;    /* bytes at payload (compressed size)       */
    uint64_t uncompressed_size; /* 0 if unknown                           */
} tfl_fatbin_entry;

/* List the entries of a wrapper or a container (or several containers one
 * after the other).  size = 0 means "derive from the headers" (registered
 * fatbins carry no outer size).  Returns the entry count (>= 0), or -1
 * with a one-line reason in err.
 *  - A wrapper (first word TFL_FATBIN_WRAPPER_MAGIC) is followed to its
 *    data pointer, which is read as one container of derived size; size,
 *    if given, then only bounds the wrapper itself.
 *  - size = 0 on a container: exactly one container, read no further than
 *    its header claims (claims are bounded by TFL_FATBIN_MAX_CONTAINER).
 *  - size > 0: every container in [image, image+size), back to back; zero
 *    bytes between containers are skipped as alignment.
 *  - Only PTX and ELF entries are returned (LTO-IR and unknown kinds are
 *    walked over).  The return value is the number found, even when it
 *    exceeds max_out (then only max_out are stored); out may be NULL with
 *    max_out 0 to count.
 *  - payload_size is the compressed size for compressed entries and the
 *    padded payload size otherwise; uncompressed_size is 0 for uncompressed
 *    entries.  ELF entries have ptx_version 0. */
int tfl_fatbin_list(const void *image, size_t size, tfl_fatbin_entry *out,
                    int max_out, char *err, size_t errlen);

/* Decompress (or copy) an entry's payload into a new malloc'd buffer,
 * NUL-terminated for PTX.  0 on success, -1 with err on corrupt data.
 * For PTX, out_len is the text length (up to the first NUL; the buffer
 * always has a NUL at out_len); for ELF, the image size.  Sizes are
 * checked against the decompressor's result. */
int tfl_fatbin_extract(const tfl_fatbin_entry *e, uint8_t **out,
                       size_t *out_len, char *err, size_t errlen);

/* The PTX to run: the newest PTX the image carries (highest arch).
 * Returns malloc'd NUL-terminated text, or NULL with err (including
 * "no PTX in this binary; rebuild with -gencode ...,code=compute_XX"). */
char *tfl_fatbin_pick_ptx(const void *image, size_t size, char *err,
                          size_t errlen);

/* Kernel parameter sizes from a cubin's .nv.info.<kernel> (EIATTR_KPARAM_INFO),
 * for checking a PTX signature.  Returns the count, -1 if unavailable.
 * sizes[i] is the size of parameter ordinal i; the count is returned even
 * when it exceeds max (then only max sizes are stored).  A kernel without
 * parameters gives 0; a missing kernel, a gap in the ordinals or a
 * malformed ELF gives -1. */
int tfl_cubin_param_sizes(const void *elf, size_t size, const char *kernel,
                          uint32_t *sizes, int max);

/* Every .nv.info.<kernel> section of a cubin: fn(ctx, kernel, n, sizes,
 * offsets) with the parameters by ordinal (n may be 0).  Returns the count
 * of sections, -1 if the ELF or a section is malformed, or the first
 * nonzero value fn returned (which stops the walk). */
int tfl_cubin_each_kernel(const void *elf, size_t size,
                          int (*fn)(void *ctx, const char *kernel, int n,
                                    const uint32_t *sizes, const uint32_t *offsets),
                          void *ctx);

#endif

/*
 * hx_abi.c - kernel parameter tables as the image records them, for
 * checking a decoder's idea of a kernel's parameters (the op table) before
 * it reads a launch.
 *
 * A fatbin holds one cubin per architecture; each kernel's .nv.info section
 * gives its parameters' sizes and offsets (cubin_info.c).  The device picks
 * the cubin for its own arch, else the newest one of the same major below
 * it (sm_80 code runs on 8.6, not on 9.0), so we read that one.  The first
 * question about a module decompresses that cubin once, indexes every
 * kernel's table by name and frees the cubin: PyTorch launches a few dozen
 * kernels of each of its ~450 modules, so asking per kernel would
 * decompress the same cubin again and again.  Images without cubins (PTX
 * from NVRTC) answer from the PTX signature instead.
 */
#include "hostexec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "backends/host/fatbin.h"
#include "hx_ir.h"

typedef struct abi_entry {
    UT_hash_handle hh;
    char *name;
    int n;
    uint32_t *sizes, *offsets;
} abi_entry;

static void entry_free(abi_entry *e)
{
    free(e->name);
    free(e->sizes);
    free(e->offsets);
    free(e);
}

void hx_abi_free(hx_module *m)
{
    abi_entry *all = m->abi, *e, *tmp;
    HASH_ITER(hh, all, e, tmp) {
        HASH_DEL(all, e);
        entry_free(e);
    }
    m->abi = NULL;
    m->abi_state = 0;
}

static uint32_t *dup32(const uint32_t *v, int n)
{
    uint32_t *d = malloc(n > 0 ? (size_t)n * sizeof *d : 1);
    if (d && n > 0)
        memcpy(d, v, (size_t)n * sizeof *d);
    return d;
}

static int add_entry(void *ctx, const char *kernel, int n, const uint32_t *sizes,
                     const uint32_t *offsets)
{
    abi_entry **all = ctx, *e;
    HASH_FIND_STR(*all, kernel, e);
    if (e)
        return 0;                     /* first section wins; names are unique */
    e = calloc(1, sizeof *e);
    if (!e || !(e->name = strdup(kernel)) || !(e->sizes = dup32(sizes, n)) ||
        !(e->offsets = dup32(offsets, n))) {
        if (e)
            entry_free(e);
        return -1;
    }
    e->n = n;
    HASH_ADD_KEYPTR(hh, *all, e->name, strlen(e->name), e);
    return 0;
}

/* The bytes of an ELF image whose size the caller did not give. */
static size_t elf_extent(const uint8_t *p)
{
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3A, 2);
    memcpy(&shnum, p + 0x3C, 2);
    return (size_t)(shoff + (uint64_t)shentsize * shnum);
}

/* The entry of the cubin the device would load, or -1. */
static int pick_cubin(const tfl_fatbin_entry *e, int n, unsigned arch)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (e[i].kind != TFL_FB_ELF || e[i].arch / 10 != arch / 10 || e[i].arch > arch)
            continue;
        if (best < 0 || e[i].arch > e[best].arch)
            best = i;
    }
    return best;
}

/* Build the index.  Called with m->lock held.  1 built, -1 no cubin. */
static int build(hx_module *m, unsigned arch, char *err, size_t errlen)
{
    abi_entry *all = NULL;
    int kind = hx_image_kind(m->image, m->image_size);
    int r = -1;
    if (kind == IMG_ELF) {
        size_t sz = m->image_size ? m->image_size : elf_extent(m->image);
        r = tfl_cubin_each_kernel(m->image, sz, add_entry, &all) < 0 ? -1 : 1;
    } else if (kind == IMG_FATBIN) {
        tfl_fatbin_entry ents[64];
        int n = tfl_fatbin_list(m->image, m->image_size, ents, 64, err, errlen);
        int pick = n > 0 ? pick_cubin(ents, n < 64 ? n : 64, arch) : -1;
        uint8_t *cubin = NULL;
        size_t len = 0;
        if (pick >= 0 && tfl_fatbin_extract(&ents[pick], &cubin, &len, err, errlen) == 0) {
            r = tfl_cubin_each_kernel(cubin, len, add_entry, &all) < 0 ? -1 : 1;
            free(cubin);
        }
    }
    if (r < 0) {
        abi_entry *e, *tmp;
        HASH_ITER(hh, all, e, tmp) {
            HASH_DEL(all, e);
            entry_free(e);
        }
        all = NULL;
    }
    m->abi = all;
    return r;
}

static int from_ptx(hx_module *m, const char *kernel, uint32_t *sizes, uint32_t *offsets,
                    int max, char *err, size_t errlen)
{
    hx_kernel_info *info = malloc(sizeof *info);
    if (!info) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = -1;
    if (hx_kernel_info_get(m, kernel, info, err, errlen) == HX_OK) {
        n = info->num_params;
        for (int i = 0; i < n && i < max; i++) {
            sizes[i] = (uint32_t)info->param_size[i];
            offsets[i] = (uint32_t)info->param_offset[i];
        }
    }
    free(info);
    return n;
}

int hx_kernel_abi(hx_module *m, const char *kernel, unsigned arch, uint32_t *sizes,
                  uint32_t *offsets, int max, char *err, size_t errlen)
{
    if (!m || !kernel || (max > 0 && (!sizes || !offsets))) {
        snprintf(err, errlen, "invalid argument");
        return -1;
    }
    pthread_mutex_lock(&m->lock);
    if (m->abi_state == 0)
        m->abi_state = build(m, arch, err, errlen);
    int state = m->abi_state, n = -1;
    if (state > 0) {
        abi_entry *e;
        abi_entry *all = m->abi;
        HASH_FIND_STR(all, kernel, e);
        if (e) {
            n = e->n;
            for (int i = 0; i < n && i < max; i++) {
                sizes[i] = e->sizes[i];
                offsets[i] = e->offsets[i];
            }
        } else {
            snprintf(err, errlen, "the sm_%u cubin has no kernel %s", arch, kernel);
        }
    }
    pthread_mutex_unlock(&m->lock);
    if (state < 0)
        return from_ptx(m, kernel, sizes, offsets, max, err, errlen);
    return n;
}

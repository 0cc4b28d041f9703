/*
 * zz_hx_tmp_stubs.c - TEMPORARY weak stand-ins for the fatbin reader and
 * the memory map while those land in main.  Deleted before the branch is
 * merged.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host/fatbin.h"
#include "mem/mem.h"

__attribute__((weak)) char *tfl_fatbin_pick_ptx(const void *image, size_t size, char *err,
                                                size_t errlen)
{
    (void)image; (void)size;
    snprintf(err, errlen, "fatbin reader not built");
    return NULL;
}

#define NR 4096
static struct { uintptr_t b; size_t n; int kind; } regs_[NR];
static int nregs_;
static pthread_mutex_t lk_ = PTHREAD_MUTEX_INITIALIZER;

__attribute__((weak)) tfl_status tfl_mem_register(void *base, size_t size, tfl_mem_kind kind,
                                                  int device, unsigned flags)
{
    (void)device; (void)flags;
    pthread_mutex_lock(&lk_);
    if (nregs_ < NR) { regs_[nregs_].b = (uintptr_t)base; regs_[nregs_].n = size; regs_[nregs_].kind = kind; nregs_++; }
    pthread_mutex_unlock(&lk_);
    return TFL_OK;
}
__attribute__((weak)) tfl_status tfl_mem_unregister(void *base, tfl_mem_kind kind)
{
    (void)kind;
    pthread_mutex_lock(&lk_);
    for (int i = 0; i < nregs_; i++)
        if (regs_[i].b == (uintptr_t)base) { regs_[i] = regs_[--nregs_]; break; }
    pthread_mutex_unlock(&lk_);
    return TFL_OK;
}
__attribute__((weak)) int tfl_mem_check_range(const void *p, size_t n, tfl_alloc_info *out)
{
    uintptr_t a = (uintptr_t)p;
    int r = 0;
    pthread_mutex_lock(&lk_);
    for (int i = 0; i < nregs_; i++)
        if (a >= regs_[i].b && a - regs_[i].b < (regs_[i].n ? regs_[i].n : 1) && n <= regs_[i].n - (a - regs_[i].b)) {
            if (out) { out->base = (void *)regs_[i].b; out->size = regs_[i].n; out->kind = regs_[i].kind; }
            r = 1; break;
        }
    pthread_mutex_unlock(&lk_);
    return r;
}
__attribute__((weak)) int tfl_mem_lookup(const void *p, tfl_alloc_info *out)
{
    return tfl_mem_check_range(p, 0, out);
}
__attribute__((weak)) tfl_status tfl_mem_alloc(size_t size, tfl_mem_kind kind, int device,
                                               unsigned flags, void **out)
{
    void *p = aligned_alloc(256, (size + 255) / 256 * 256 + 256);
    if (!p) return TFL_ERR_NOMEM;
    memset(p, 0, size);
    tfl_mem_register(p, size, kind, device, flags);
    *out = p;
    return TFL_OK;
}
__attribute__((weak)) tfl_status tfl_mem_free(void *p, unsigned kind_mask)
{
    (void)kind_mask;
    tfl_mem_unregister(p, 0);
    free(p);
    return TFL_OK;
}

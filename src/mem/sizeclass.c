/*
 * sizeclass.c - the pool's size classes.
 *
 * A freed block is reused only by a request of the same class, so the
 * classes decide both reuse and waste:
 *   - up to 4 KiB: steps of 256 bytes (the alignment; no waste beyond it);
 *   - 4 KiB .. 256 KiB: 8 classes per power of two (waste < 12.5%);
 *   - above: 16 classes per power of two (waste < 6.25%).
 * Powers of two and 2^k * (1 + j/16) are classes, so PyTorch's segment sizes
 * (2 MiB, 20 MiB, every 2 MiB multiple up to 64 MiB) are served exactly.
 * Geometric classes let the many odd sizes of plain CUDA programs (and
 * PyTorch run with PYTORCH_NO_CUDA_MEMORY_CACHING) share freed blocks.
 */
#include "mem/mem_internal.h"

unsigned tfl_size_class(size_t size)
{
    if (size <= 4096)
        return size ? (unsigned)((size - 1) / 256) : 0;
    /* size lies in (2^e, 2^(e+1)] */
    unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)(size - 1));
    unsigned sub = e < 18 ? 8 : 16;
    size_t step = ((size_t)1 << e) / sub;
    size_t k = (size - ((size_t)1 << e) + step - 1) / step; /* 1..sub */
    unsigned base = e < 18 ? 16 + (e - 12) * 8 : 64 + (e - 18) * 16;
    return base + (unsigned)k - 1;
}

size_t tfl_class_size(unsigned c)
{
    if (c < 16)
        return (size_t)(c + 1) * 256;
    if (c < 64) {
        unsigned i = c - 16, e = 12 + i / 8;
        return ((size_t)1 << e) + (size_t)(i % 8 + 1) * (((size_t)1 << e) / 8);
    }
    unsigned i = c - 64, e = 18 + i / 16;
    return ((size_t)1 << e) + (size_t)(i % 16 + 1) * (((size_t)1 << e) / 16);
}

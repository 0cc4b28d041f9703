/*
 * index_abi.c - the PyTorch ABI the index decoders read: mangled scalar types,
 * TensorInfo<T, IndexType> and OffsetCalculator<N, unsigned> parameter
 * blocks, and device-range checks of the spans they describe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"

/* Byte size of an Itanium-mangled type at *p (builtin or c10 scalar);
 * advances *p.  0 if not one we know. */
size_t idx_mangled_size(const char **p)
{
    static const struct { const char *m; size_t sz; } named[] = {
        { "N3c104HalfE", 2 }, { "N3c108BFloat16E", 2 },
        { "N3c107complexIfEE", 8 }, { "N3c107complexIdEE", 16 },
        { "N3c107complexINS_4HalfEEE", 4 },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].m);
        if (strncmp(*p, named[i].m, n) == 0) {
            *p += n;
            return named[i].sz;
        }
    }
    int n = 0, len = 0;
    if (sscanf(*p, "NS0_10OpaqueTypeILi%dEEE%n", &n, &len) == 1 && len > 0 && n > 0 && n <= 16) {
        *p += len;
        return (size_t)n;
    }
    size_t sz = 0;
    switch (**p) {
    case 'b': case 'a': case 'h': case 'c': sz = 1; break;
    case 's': case 't': sz = 2; break;
    case 'i': case 'j': case 'f': sz = 4; break;
    case 'l': case 'm': case 'x': case 'y': case 'd': sz = 8; break;
    default: return 0;
    }
    (*p)++;
    return sz;
}

/* The arithmetic type of the mangled type [t, t+len): a builtin letter or
 * c10::Half / c10::BFloat16; TFL_DT_COUNT for others. */
tfl_dtype idx_type_dtype(const char *t, size_t len)
{
    if (len == 1)
        return idx_letter_dtype(*t);
    if (len == 11 && !strncmp(t, "N3c104HalfE", 11))
        return TFL_DT_F16;
    if (len == 15 && !strncmp(t, "N3c108BFloat16E", 15))
        return TFL_DT_BF16;
    return TFL_DT_COUNT;
}

/* The arithmetic type of a builtin mangled type letter, or TFL_DT_COUNT. */
tfl_dtype idx_letter_dtype(char c)
{
    switch (c) {
    case 'f': return TFL_DT_F32;
    case 'd': return TFL_DT_F64;
    case 'i': return TFL_DT_I32;
    case 'l': return TFL_DT_I64;
    case 'a': return TFL_DT_I8;
    case 'h': return TFL_DT_U8;
    default:  return TFL_DT_COUNT;
    }
}

/* Bytes spanned by a strided view (max offset + 1 element); 0 if empty.
 * -1 for a negative stride (never produced by these kernels' callers). */
int64_t idx_span_bytes(int ndim, const int64_t *sizes, const int64_t *strides, size_t es)
{
    int64_t hi = 0;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0)
            return 0;
        if (strides[d] < 0)
            return -1;
        hi += (sizes[d] - 1) * strides[d];
    }
    return (hi + 1) * (int64_t)es;
}

int idx_range_ok(const void *p, int64_t bytes)
{
    if (bytes < 0)
        return 0;
    return bytes == 0 || (p && tfl_mem_check_range(p, (size_t)bytes, NULL));
}

/* TensorInfo at args[i] -> tfl_index_tensor; 0 if malformed. */
int idx_read_tinfo(const tfl_kcall *c, int i, int wide, tfl_index_tensor *t)
{
    const unsigned char *b = c->args[i];
    memcpy(&t->data, b, sizeof(void *));
    int32_t dims;
    memcpy(&dims, b + (wide ? 408 : 208), 4);
    if (dims < 1 || dims > TFL_INDEX_MAX_DIMS)
        return 0;
    t->ndim = dims;
    for (int d = 0; d < dims; d++) {
        if (wide) {
            uint64_t s, st;
            memcpy(&s, b + 8 + 8 * d, 8);
            memcpy(&st, b + 208 + 8 * d, 8);
            t->sizes[d] = (int64_t)s;
            t->strides[d] = (int64_t)st;
        } else {
            uint32_t s, st;
            memcpy(&s, b + 8 + 4 * d, 4);
            memcpy(&st, b + 108 + 4 * d, 4);
            t->sizes[d] = s;
            t->strides[d] = st;
        }
        if (t->sizes[d] < 0 || t->strides[d] < 0)
            return 0;
    }
    return 1;
}

/* OffsetCalculator<nargs, unsigned> = { int dims; IntDivider<unsigned>
 * sizes_[25] (divisor, m1, shift: 12 bytes); unsigned strides_[25][nargs]; }
 * (604 bytes for 3 operands, 504 for 2).  Operands past nargs get stride
 * 0.  0 if malformed.  The signed_strides form (flip) has the same layout
 * with int strides. */
int idx_read_offcalc(const unsigned char *b, int nargs, tfl_index_iter *it)
{
    return idx_read_offcalc_s(b, nargs, 0, it);
}

int idx_read_offcalc_s(const unsigned char *b, int nargs, int is_signed, tfl_index_iter *it)
{
    int32_t dims;
    memcpy(&dims, b, 4);
    if (dims < 0 || dims > TFL_INDEX_MAX_DIMS)
        return 0;
    it->ndim = dims;
    for (int d = 0; d < dims; d++) {
        uint32_t div;
        memcpy(&div, b + 4 + 12 * d, 4);
        it->sizes[d] = div;
        for (int a = 0; a < 3; a++) {
            uint32_t st = 0;
            if (a < nargs)
                memcpy(&st, b + 304 + 4 * nargs * d + 4 * a, 4);
            it->strides[a][d] = is_signed ? (int64_t)(int32_t)st : (int64_t)st;
        }
    }
    return 1;
}

int64_t idx_iter_count(const tfl_index_iter *it)
{
    int64_t n = 1;
    for (int d = 0; d < it->ndim; d++)
        n *= it->sizes[d];
    return n;
}

/* Bytes operand a spans over the iteration, elem bytes at the end. */
int64_t idx_iter_span(const tfl_index_iter *it, int a, int64_t elem)
{
    int64_t hi = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->sizes[d] == 0)
            return 0;
        hi += (it->sizes[d] - 1) * it->strides[a][d];
    }
    return hi + elem;
}

/* Lowest and highest byte offsets operand a reaches (elem bytes at the
 * highest included); strides may be negative. */
void idx_iter_bounds(const tfl_index_iter *it, int a, int64_t elem, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0;
    for (int d = 0; d < it->ndim; d++) {
        int64_t span = (it->sizes[d] - 1) * it->strides[a][d];
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h + elem;
}

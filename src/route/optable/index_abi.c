/*
 * index_abi.c - what the index decoders share: element types and other
 * pieces of the demangled kernel names (kname.h), the PyTorch ABI they read
 * (TensorInfo<T, IndexType> and OffsetCalculator<N, unsigned> parameter
 * blocks), and device-range checks of the spans those describe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/optable/index_internal.h"
#include "route/optable/pt_abi.h"

/* Byte size of the demangled element type [t, t+len) - a builtin, c10
 * type or OpaqueType<N> (the byte-moving kernels' N-byte element) - and
 * its arithmetic type in *dt (TFL_DT_COUNT for those the index ops do not
 * compute in).  0 if it is none of these. */
size_t idx_type_size(const char *t, size_t len, tfl_dtype *dt)
{
    static const struct { const char *n; size_t sz; tfl_dtype dt; } named[] = {
        { "bool", 1, TFL_DT_COUNT }, { "char", 1, TFL_DT_COUNT },
        { "signed char", 1, TFL_DT_I8 }, { "unsigned char", 1, TFL_DT_U8 },
        { "short", 2, TFL_DT_COUNT }, { "unsigned short", 2, TFL_DT_COUNT },
        { "c10::Half", 2, TFL_DT_F16 }, { "c10::BFloat16", 2, TFL_DT_BF16 },
        { "int", 4, TFL_DT_I32 }, { "unsigned int", 4, TFL_DT_COUNT },
        { "float", 4, TFL_DT_F32 }, { "c10::complex<c10::Half>", 4, TFL_DT_COUNT },
        { "c10::complex<c10::BFloat16>", 4, TFL_DT_COUNT },
        { "long", 8, TFL_DT_I64 }, { "unsigned long", 8, TFL_DT_COUNT },
        { "long long", 8, TFL_DT_COUNT }, { "unsigned long long", 8, TFL_DT_COUNT },
        { "double", 8, TFL_DT_F64 }, { "c10::complex<float>", 8, TFL_DT_COUNT },
        { "c10::complex<double>", 16, TFL_DT_COUNT },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (len == strlen(named[i].n) && memcmp(t, named[i].n, len) == 0) {
            *dt = named[i].dt;
            return named[i].sz;
        }
    /* OpaqueType<16> (int parameter) or OpaqueType<16u> (cat's unsigned) */
    static const char op[] = "OpaqueType<";
    char buf[16];
    if (len <= sizeof op || len - sizeof op + 1 >= sizeof buf || memcmp(t, op, sizeof op - 1) ||
        t[len - 1] != '>')
        return 0;
    memcpy(buf, t + sizeof op - 1, len - sizeof op);
    buf[len - sizeof op] = '\0';
    char *end;
    long n = strtol(buf, &end, 10);
    if ((*end && strcmp(end, "u")) || n < 1 || n > 16)
        return 0;
    *dt = TFL_DT_COUNT;
    return (size_t)n;
}

/* Template argument i of k as an element type (idx_type_size). */
size_t idx_targ_size(const tfl_kname *k, int i, tfl_dtype *dt)
{
    if (i < 0 || i >= k->ntargs || i >= TFL_KNAME_MAX)
        return 0;
    return idx_type_size(k->targ[i], k->targ_len[i], dt);
}

/* Are the template arguments not in used[] int or bool constants?  Those
 * tune launches (threads, items per thread, vector width, specialised
 * ranks, which index is major) and never change what is computed or the
 * parameters, which the layout check validates; an unknown type argument
 * could, so a kernel with one is not claimed. */
int idx_others_constant(const tfl_kname *k, const int *used, int nused)
{
    return tfl_kname_others_constant(k, used, nused);
}

/* Is the kernel `base` in at::native (or an anonymous namespace), which the
 * simplified name drops: no qualifier left? */
int idx_plain_name(const tfl_kname *k, const char *base)
{
    return tfl_kname_is(k, base) && k->name_len == k->base_len;
}

/* Is [s, s+len) the lambda(int) a function template fn defines,
 * "fn<...>...::{lambda(int)#1}"?  *lt gets fn's '<', *after the character
 * after its matching '>'. */
int idx_lambda_of(const char *s, size_t len, const char *fn, const char **lt,
                  const char **after)
{
    static const char tail[] = "::{lambda(int)#1}";
    size_t n = strlen(fn), tl = sizeof tail - 1;
    if (len <= n + tl || memcmp(s, fn, n) != 0 || s[n] != '<' ||
        memcmp(s + len - tl, tail, tl) != 0)
        return 0;
    const char *gt = tfl_pt_match_angle(s + n);
    if (!gt || gt >= s + len - tl)
        return 0;
    *lt = s + n;
    *after = gt + 1;
    return 1;
}

/* at::cuda::detail::TensorInfo<T, IndexType> = { T *data; IndexType
 * sizes[25], strides[25]; int dims; }: 212 bytes for a 32-bit IndexType,
 * 412 for a 64-bit one, padded to the pointer's alignment. */
size_t idx_tinfo_size(int wide)
{
    return wide ? 416 : 216;
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

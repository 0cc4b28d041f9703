/*
 * pt_abi.c - decoding helpers for PyTorch's CUDA kernel ABI (see pt_abi.h
 * for the layouts and where they were checked).
 */
#include "route/optable/pt_abi.h"
#include "backends/host/ops_elementwise_fp16.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int tfl_pt_scalar_type(int st, tfl_dtype *out)
{
    /* c10/core/ScalarType.h numbering, stable across releases. */
    switch (st) {
    case 0:  *out = TFL_DT_U8;   return 1;
    case 1:  *out = TFL_DT_I8;   return 1;
    case 3:  *out = TFL_DT_I32;  return 1;
    case 4:  *out = TFL_DT_I64;  return 1;
    case 5:  *out = TFL_DT_F16;  return 1;
    case 6:  *out = TFL_DT_F32;  return 1;
    case 7:  *out = TFL_DT_F64;  return 1;
    case 9:  *out = TFL_DT_C64;  return 1;
    case 10: *out = TFL_DT_C128; return 1;
    case 11: *out = TFL_DT_BOOL; return 1;
    case 15: *out = TFL_DT_BF16; return 1;
    default: return 0;           /* Short, quantized, float8, ... */
    }
}

int tfl_pt_type_name(const char *name, size_t len, tfl_dtype *out)
{
    static const struct { const char *n; tfl_dtype dt; } names[] = {
        { "float", TFL_DT_F32 }, { "double", TFL_DT_F64 },
        { "c10::Half", TFL_DT_F16 }, { "c10::BFloat16", TFL_DT_BF16 },
        { "long", TFL_DT_I64 }, { "int", TFL_DT_I32 },
        { "bool", TFL_DT_BOOL }, { "unsigned char", TFL_DT_U8 },
        { "signed char", TFL_DT_I8 },
        { "c10::complex<float>", TFL_DT_C64 }, { "c10::complex<double>", TFL_DT_C128 },
    };
    while (len && name[0] == ' ') { name++; len--; }
    while (len && name[len - 1] == ' ') len--;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].n) == len && memcmp(names[i].n, name, len) == 0) {
            *out = names[i].dt;
            return 1;
        }
    return 0;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
    /* A PyTorch process has libstdc++ loaded already; elsewhere (tests,
     * plain CUDA programs) load it: it ships with every C++ runtime. */
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (h)
            f = dlsym(h, "__cxa_demangle");
    }
    demangler = (demangle_fn)f;
}

char *tfl_pt_demangle(const char *mangled)
{
    if (!mangled || strncmp(mangled, "_Z", 2) != 0)
        return NULL;
    pthread_once(&demangler_once, find_demangler);
    if (!demangler)
        return NULL;
    int status = -1;
    char *s = demangler(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(s);
        return NULL;
    }
    return s;
}

size_t tfl_pt_offset_calc_size(int nargs)
{
    return 4 + (size_t)TFL_PT_MAX_DIMS * 12 + (size_t)TFL_PT_MAX_DIMS * 4 * (size_t)nargs;
}

int tfl_pt_offset_calc_decode(const void *bytes, int nargs, int *ndim,
                              int64_t shape[TFL_PT_MAX_DIMS],
                              int64_t strides[][TFL_PT_MAX_DIMS])
{
    const unsigned char *b = bytes;
    int32_t dims;
    memcpy(&dims, b, 4);
    if (dims < 0 || dims > TFL_PT_MAX_DIMS)
        return 0;
    for (int d = 0; d < dims; d++) {
        uint32_t divisor;
        memcpy(&divisor, b + 4 + 12 * d, 4);   /* IntDivider.divisor first */
        if (divisor == 0)
            return 0;
        shape[d] = divisor;
        for (int a = 0; a < nargs; a++) {
            uint32_t st;
            memcpy(&st, b + 4 + 12 * TFL_PT_MAX_DIMS + 4 * ((size_t)d * nargs + a), 4);
            strides[a][d] = st;
        }
    }
    *ndim = dims;
    return 1;
}

const char *tfl_pt_match_angle(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        char c = *s;
        if (c == '<' || c == '(' || c == '{' || c == '[') depth++;
        else if (c == '>' || c == ')' || c == '}' || c == ']') {
            /* "operator()" etc. never appear unbalanced in these names */
            if (--depth == 0)
                return c == '>' ? s : NULL;
            if (depth < 0)
                return NULL;
        }
    }
    return NULL;
}

int tfl_pt_template_args(const char *s, const char **start, size_t *len, int max)
{
    const char *end = tfl_pt_match_angle(s);
    if (!end)
        return -1;
    int n = 0, depth = 0;
    const char *a = s + 1;
    for (const char *p = s + 1; p <= end; p++) {
        char c = *p;
        if (p == end || (c == ',' && depth == 0)) {
            if (n < max) {
                while (*a == ' ') a++;
                start[n] = a;
                len[n] = (size_t)(p - a);
                while (len[n] && a[len[n] - 1] == ' ') len[n]--;
            }
            n++;
            a = p + 1;
            continue;
        }
        if (c == '<' || c == '(' || c == '{' || c == '[') depth++;
        else if (c == '>' || c == ')' || c == '}' || c == ']') depth--;
    }
    return n;
}

float tfl_pt_half_to_float(uint16_t h) { return tfl_half_to_float(h); }
uint16_t tfl_pt_float_to_half(float f) { return tfl_float_to_half(f); }
float tfl_pt_bf16_to_float(uint16_t h) { return tfl_bf16_to_float(h); }
uint16_t tfl_pt_float_to_bf16(float f) { return tfl_float_to_bf16(f); }

int tfl_pt_load_scalar(const void *p, tfl_dtype dt, double *f, int64_t *i)
{
    switch (dt) {
    case TFL_DT_F32: { float v; memcpy(&v, p, 4); *f = v; *i = (int64_t)v; return 1; }
    case TFL_DT_F64: { double v; memcpy(&v, p, 8); *f = v; *i = (int64_t)v; return 1; }
    case TFL_DT_F16: { uint16_t v; memcpy(&v, p, 2); *f = tfl_pt_half_to_float(v); *i = (int64_t)*f; return 1; }
    case TFL_DT_BF16: { uint16_t v; memcpy(&v, p, 2); *f = tfl_pt_bf16_to_float(v); *i = (int64_t)*f; return 1; }
    case TFL_DT_I64: { int64_t v; memcpy(&v, p, 8); *i = v; *f = (double)v; return 1; }
    case TFL_DT_I32: { int32_t v; memcpy(&v, p, 4); *i = v; *f = v; return 1; }
    case TFL_DT_I8: { int8_t v; memcpy(&v, p, 1); *i = v; *f = v; return 1; }
    case TFL_DT_U8: { uint8_t v; memcpy(&v, p, 1); *i = v; *f = v; return 1; }
    case TFL_DT_BOOL: { uint8_t v; memcpy(&v, p, 1); *i = v != 0; *f = v != 0; return 1; }
    default: return 0;
    }
}

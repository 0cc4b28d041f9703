/*
 * hx_printf.c - device printf (vprintf) for the host executor.
 *
 * nvcc lowers printf(fmt, ...) to vprintf(fmt, buf) where buf packs the
 * arguments, each aligned to its own size: integers 4 bytes (8 with l,
 * ll, z, j, t), floating point promoted to 8-byte double, %s and %p 8-byte
 * pointers.  We walk the format, pull each argument from the buffer within
 * its bounds, and format it with the host's snprintf one conversion at a
 * time (the conversion spec is rebuilt, so no unchecked format reaches
 * snprintf).
 */
#include "hx_ir.h"

#include <stdio.h>
#include <string.h>

static void put(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (*pos + 1 < outlen) out[*pos] = s[i];
        (*pos)++;
    }
    if (outlen) out[*pos < outlen ? *pos : outlen - 1] = 0;
}

int hx_printf_lane(const char *fmt, size_t fmt_max, const uint8_t *args,
                   size_t args_max, char *out, size_t outlen,
                   size_t (*readable)(void *ctx, uint64_t a), void *ctx)
{
    size_t pos = 0, ap = 0, i = 0;
    if (outlen) out[0] = 0;
    while (i < fmt_max && fmt[i]) {
        if (fmt[i] != '%') {
            size_t j = i;
            while (j < fmt_max && fmt[j] && fmt[j] != '%') j++;
            put(out, outlen, &pos, fmt + i, j - i);
            i = j;
            continue;
        }
        if (i + 1 < fmt_max && fmt[i + 1] == '%') {
            put(out, outlen, &pos, "%", 1);
            i += 2;
            continue;
        }
        /* %[flags][width][.prec][len]conv */
        char spec[64];
        size_t sl = 0;
        spec[sl++] = '%';
        i++;
        while (i < fmt_max && fmt[i] && strchr("-+ #0", fmt[i]) && sl < 20) spec[sl++] = fmt[i++];
        while (i < fmt_max && fmt[i] >= '0' && fmt[i] <= '9' && sl < 40) spec[sl++] = fmt[i++];
        if (i < fmt_max && fmt[i] == '.') {
            spec[sl++] = fmt[i++];
            while (i < fmt_max && fmt[i] >= '0' && fmt[i] <= '9' && sl < 56) spec[sl++] = fmt[i++];
        }
        int lng = 0;
        while (i < fmt_max && fmt[i] && strchr("hlLqjzt", fmt[i])) {
            if (fmt[i] == 'l' || fmt[i] == 'L' || fmt[i] == 'q' || fmt[i] == 'j' ||
                fmt[i] == 'z' || fmt[i] == 't')
                lng++;
            i++;
        }
        if (i >= fmt_max || !fmt[i]) break;
        char conv = fmt[i++];
        char buf[512];
        int n = 0;
        if (strchr("diouxXc", conv)) {
            size_t sz = lng ? 8 : 4;
            ap = (ap + sz - 1) / sz * sz;
            if (!args || ap + sz > args_max) return -1;
            uint64_t v = 0;
            memcpy(&v, args + ap, sz);
            ap += sz;
            if (conv == 'c') {
                spec[sl++] = 'c'; spec[sl] = 0;
                n = snprintf(buf, sizeof buf, spec, (int)(unsigned char)v);
            } else {
                spec[sl++] = 'l'; spec[sl++] = 'l'; spec[sl++] = conv; spec[sl] = 0;
                if (conv == 'd' || conv == 'i') {
                    long long sv = sz == 4 ? (long long)(int32_t)v : (long long)v;
                    n = snprintf(buf, sizeof buf, spec, sv);
                } else {
                    unsigned long long uv = sz == 4 ? (unsigned long long)(uint32_t)v
                                                    : (unsigned long long)v;
                    n = snprintf(buf, sizeof buf, spec, uv);
                }
            }
        } else if (strchr("fFeEgGaA", conv)) {
            ap = (ap + 7) / 8 * 8;
            if (!args || ap + 8 > args_max) return -1;
            double d;
            memcpy(&d, args + ap, 8);
            ap += 8;
            spec[sl++] = conv; spec[sl] = 0;
            n = snprintf(buf, sizeof buf, spec, d);
        } else if (conv == 's' || conv == 'p') {
            ap = (ap + 7) / 8 * 8;
            if (!args || ap + 8 > args_max) return -1;
            uint64_t p;
            memcpy(&p, args + ap, 8);
            ap += 8;
            if (conv == 'p') {
                n = snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)p);
            } else {
                char str[400];
                size_t mx = p ? readable(ctx, p) : 0;
                size_t k = 0;
                const char *s = (const char *)(uintptr_t)p;
                if (!p) { memcpy(str, "(null)", 7); }
                else {
                    for (; k + 1 < sizeof str && k < mx && s[k]; k++) str[k] = s[k];
                    str[k] = 0;
                }
                spec[sl++] = 's'; spec[sl] = 0;
                n = snprintf(buf, sizeof buf, spec, str);
            }
        } else {
            /* unknown conversion: print it literally */
            spec[sl++] = conv;
            put(out, outlen, &pos, spec, sl);
            continue;
        }
        if (n > 0) put(out, outlen, &pos, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    }
    return (int)pos;
}

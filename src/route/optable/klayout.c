/*
 * klayout.c - what a decoder says a kernel's parameters are, and the
 * comparison with what the kernel's cubin records (optable.h).
 *
 * Families state layouts either parameter by parameter (tfl_klayout_add)
 * or as a signature string - one token per parameter, the form the
 * decoders' header comments already use - so the check costs each family
 * a table line rather than code.
 */
#include "route/optable.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

void tfl_klayout_add(tfl_klayout *l, size_t size, size_t align)
{
    if (l->n < 0)
        return;
    if (l->n >= TFL_KLAYOUT_MAX) {
        l->n = -1;
        return;
    }
    size_t off = 0;
    if (l->n > 0)
        off = l->offset[l->n - 1] + l->size[l->n - 1];
    if (align > 1)
        off = (off + align - 1) / align * align;
    l->offset[l->n] = (uint32_t)off;
    l->size[l->n] = (uint32_t)size;
    l->n++;
}

/* One token at *s: its size and alignment; advances *s. */
static int token(const char **s, size_t *size, size_t *align)
{
    const char *p = *s;
    char c = *p++;
    char *end;
    unsigned long v;
    switch (c) {
    case 'p': case 'l': case 'd': *size = 8; *align = 8; break;
    case 'i': case 'f':           *size = 4; *align = 4; break;
    case 'h':                     *size = 2; *align = 2; break;
    case 'b':                     *size = 1; *align = 1; break;
    case 'a': case 'A':
        v = strtoul(p, &end, 10);
        if (end == p || v == 0 || v > 25)
            return -1;
        *size = 8 + (c == 'a' ? 16 : 8) * v;
        *align = 8;
        p = end;
        break;
    default:
        if (!isdigit((unsigned char)c))
            return -1;
        v = strtoul(p - 1, &end, 10);
        if (*end != ':')
            return -1;
        *size = v;
        p = end + 1;
        v = strtoul(p, &end, 10);
        if (end == p || (v & (v - 1)) || v == 0 || v > 16)
            return -1;
        *align = v;
        p = end;
    }
    *s = p;
    return 0;
}

int tfl_klayout_sig(tfl_klayout *l, const char *sig)
{
    const char *s = sig;
    size_t size = 0, align = 0;
    int have = 0;
    while (*s) {
        if (*s == ' ') {
            s++;
            continue;
        }
        if (*s == 'x') {
            char *end;
            unsigned long k = strtoul(s + 1, &end, 10);
            if (!have || end == s + 1 || k > TFL_KLAYOUT_MAX)
                return -1;
            while (k--)
                tfl_klayout_add(l, size, align);
            s = end;
        } else {
            if (token(&s, &size, &align))
                return -1;
            have = 1;
            tfl_klayout_add(l, size, align);
        }
        if (*s && *s != ' ')
            return -1;
    }
    return l->n < 0 ? -1 : 0;
}

int tfl_klayout_equal(const tfl_klayout *want, int n, const uint32_t *sizes,
                      const uint32_t *offsets, char *why, size_t whylen)
{
    if (want->n < 0) {
        snprintf(why, whylen, "the decoder's layout overflowed");
        return 0;
    }
    if (want->n != n) {
        snprintf(why, whylen, "%d parameters, the decoder reads %d", n, want->n);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (want->size[i] != sizes[i] || want->offset[i] != offsets[i]) {
            snprintf(why, whylen, "parameter %d is %u bytes at offset %u, the decoder "
                     "reads %u at %u", i, sizes[i], offsets[i], want->size[i],
                     want->offset[i]);
            return 0;
        }
    }
    return 1;
}

char *tfl_klayout_text(const tfl_klayout *l, char *buf, size_t len)
{
    size_t pos = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < l->n && pos < len; i++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%u:%u", i ? " " : "", l->offset[i],
                                l->size[i]);
    return buf;
}

int tfl_kfamily_layout_text(const tfl_kfamily *f, const char *mangled, char *buf, size_t len)
{
    void *cookie = NULL;
    tfl_klayout l;
    l.n = 0;
    if (len)
        buf[0] = '\0';
    if (!f->match || !f->match(mangled, &cookie) || !f->layout || !f->layout(cookie, &l) ||
        l.n < 0)
        return 0;
    tfl_klayout_text(&l, buf, len);
    return 1;
}

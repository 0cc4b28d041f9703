/*
 * ptx_parse.c - PTX text to the host executor's internal form (hx_ir.h).
 *
 * Two stages, because PyTorch modules hold thousands of kernels and a
 * program launches a few of them:
 *  - hx_ptx_index: one pass over the module that records where each
 *    .entry/.func starts (bodies are skipped by brace matching) and parses
 *    module-scope variables, whose storage is allocated, initialised from
 *    the PTX and registered in the address map right away (they back
 *    __device__/__constant__ symbols the host may look up before a launch);
 *  - hx_ptx_decode: parses one function's header and body into hx_insn
 *    (operands resolved to slots, immediates to constant slots, symbols to
 *    offsets), recursively decodes the functions it calls, then computes
 *    the reconvergence points (hx_cfg.c).
 * Every error is HX_ERR_PTX with the line number; nothing here trusts the
 * text (all reads are bounded by the text's end).
 */
#define _GNU_SOURCE   /* memmem */
#include "hx_ir.h"
#include "ptx_lex.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "mem/mem.h"

typedef struct hx_name {
    char *name;
    int index;
    UT_hash_handle hh;
} hx_name;

static hx_status perr(char *err, size_t errlen, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static hx_status perr(char *err, size_t errlen, int line, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "PTX line %d: ", line);
        if (n < 0) n = 0;
        if ((size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return HX_ERR_PTX;
}

static char *tokdup(const ptx_tok *t)
{
    char *s = malloc((size_t)t->len + 1);
    if (s) { memcpy(s, t->s, (size_t)t->len); s[t->len] = 0; }
    return s;
}

/* ------------------------------------------------------------- numbers */

enum { NUM_INT, NUM_F32BITS, NUM_F64BITS, NUM_FLOAT };

/* Parse a PTX numeric literal.  Returns 0 on success. */
static int parse_number(const char *s, int len, int *kind, int64_t *iv,
                        double *dv)
{
    char buf[80];
    if (len <= 0 || len >= (int)sizeof buf) return -1;
    memcpy(buf, s, (size_t)len); buf[len] = 0;
    if (len > 2 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F')) {
        char *e; errno = 0;
        unsigned long long v = strtoull(buf + 2, &e, 16);
        if (*e || errno || len != 10) return -1;
        *kind = NUM_F32BITS; *iv = (int64_t)v; return 0;
    }
    if (len > 2 && buf[0] == '0' && (buf[1] == 'd' || buf[1] == 'D')) {
        char *e; errno = 0;
        unsigned long long v = strtoull(buf + 2, &e, 16);
        if (*e || errno || len != 18) return -1;
        *kind = NUM_F64BITS; *iv = (int64_t)v; return 0;
    }
    if (buf[len - 1] == 'U' || buf[len - 1] == 'u') buf[--len] = 0;
    if (len == 0) return -1;
    int isfloat = 0;
    if (!(len > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')))
        for (int i = 0; i < len; i++)
            if (buf[i] == '.' || buf[i] == 'e' || buf[i] == 'E') isfloat = 1;
    if (isfloat) {
        char *e;
        double d = strtod(buf, &e);
        if (*e) return -1;
        *kind = NUM_FLOAT; *dv = d; return 0;
    }
    if (buf[0] < '0' || buf[0] > '9') return -1;
    char *e; errno = 0;
    unsigned long long v;
    if (len > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
        v = strtoull(buf + 2, &e, 2);
    else
        v = strtoull(buf, &e, 0);
    if (*e || errno) return -1;
    *kind = NUM_INT; *iv = (int64_t)v; return 0;
}

/* ------------------------------------------------------------ types */

static int type_of(const char *s, int len, int *size)
{
    static const struct { const char *n; int t, sz; } tt[] = {
        {"u8", T_U8, 1}, {"u16", T_U16, 2}, {"u32", T_U32, 4},
        {"u64", T_U64, 8}, {"s8", T_S8, 1}, {"s16", T_S16, 2},
        {"s32", T_S32, 4}, {"s64", T_S64, 8}, {"b8", T_U8, 1},
        {"b16", T_U16, 2}, {"b32", T_U32, 4}, {"b64", T_U64, 8},
        {"f16", T_F16, 2}, {"f32", T_F32, 4}, {"f64", T_F64, 8},
        {"bf16", T_BF16, 2}, {"f16x2", T_F16X2, 4}, {"bf16x2", T_BF16X2, 4},
        {"pred", T_PRED, 1}, {"b128", T_NONE, 16}, {"tf32", T_F32, 4},
    };
    for (size_t i = 0; i < sizeof tt / sizeof tt[0]; i++)
        if ((int)strlen(tt[i].n) == len && memcmp(tt[i].n, s, (size_t)len) == 0) {
            if (size) *size = tt[i].sz;
            return tt[i].t;
        }
    return -1;
}

/* ------------------------------------------------- module name tables */

static void name_add(void **hash, const char *name, int index)
{
    hx_name *h = NULL;
    HASH_FIND_STR(*(hx_name **)hash, name, h);
    if (h) { h->index = index; return; }
    h = calloc(1, sizeof *h);
    if (!h) return;
    h->name = strdup(name);
    if (!h->name) { free(h); return; }
    h->index = index;
    hx_name *head = *(hx_name **)hash;
    HASH_ADD_KEYPTR(hh, head, h->name, strlen(h->name), h);
    *hash = head;
}

static int name_find(void *hash, const char *s, int len)
{
    hx_name *h = NULL, *head = hash;
    HASH_FIND(hh, head, s, (unsigned)len, h);
    return h ? h->index : -1;
}

static void name_free(void **hash)
{
    hx_name *head = *hash, *h, *tmp;
    HASH_ITER(hh, head, h, tmp) {
        HASH_DEL(head, h);
        free(h->name);
        free(h);
    }
    *hash = NULL;
}

hx_func *hx_find_func(hx_module *m, const char *name)
{
    int i = name_find(m->fhash, name, (int)strlen(name));
    return i >= 0 ? m->funcs[i] : NULL;
}

hx_var *hx_find_var(hx_module *m, const char *name)
{
    int i = name_find(m->vhash, name, (int)strlen(name));
    return i >= 0 ? m->vars[i] : NULL;
}

static int add_var(hx_module *m, hx_var *v, int hashed)
{
    if (m->nvars == m->capvars) {
        int nc = m->capvars ? m->capvars * 2 : 64;
        hx_var **nv = realloc(m->vars, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        m->vars = nv; m->capvars = nc;
    }
    v->index = m->nvars;
    m->vars[m->nvars++] = v;
    if (hashed) name_add(&m->vhash, v->name, v->index);
    return v->index;
}

static int add_func(hx_module *m, hx_func *f)
{
    int old = name_find(m->fhash, f->name, (int)strlen(f->name));
    if (old >= 0) {
        /* a definition replaces an earlier prototype; keep the index */
        hx_func *o = m->funcs[old];
        if (!f->is_extern || o->is_extern) {
            free(o->name); free(o);
            f->index = old;
            m->funcs[old] = f;
        } else {
            free(f->name); free(f);
        }
        return old;
    }
    if (m->nfuncs == m->capfuncs) {
        int nc = m->capfuncs ? m->capfuncs * 2 : 64;
        hx_func **nf = realloc(m->funcs, (size_t)nc * sizeof *nf);
        if (!nf) return -1;
        m->funcs = nf; m->capfuncs = nc;
    }
    f->index = m->nfuncs;
    m->funcs[m->nfuncs++] = f;
    name_add(&m->fhash, f->name, f->index);
    return f->index;
}

/* ------------------------------------------------------- variables */

/* Parse ".space [.align N] [.vN] .type name[dims] [= init]" after the
 * space word.  On return the lexer stands after ';'.  Fills v; the
 * initialiser position is kept for fill_init. */
static hx_status parse_var_decl(ptx_lex *L, int space, hx_var *v, char *err,
                                size_t errlen)
{
    int line = L->cur.line;
    size_t align = 0;
    int vec = 1, esz = 0;
    v->space = space;
    for (;;) {
        ptx_tok t = L->cur;
        if (t.kind != TK_WORD)
            return perr(err, errlen, t.line, "bad variable declaration");
        if (t.s[0] != '.') break;
        ptx_next(L);
        if (ptx_is(&t, ".align")) {
            ptx_tok n = ptx_next(L);
            int k; int64_t iv; double dv;
            if (n.kind != TK_WORD || parse_number(n.s, n.len, &k, &iv, &dv) ||
                k != NUM_INT || iv <= 0 || iv > 4096 || (iv & (iv - 1)))
                return perr(err, errlen, n.line, "bad .align");
            align = (size_t)iv;
        } else if (ptx_is(&t, ".v2")) vec = 2;
        else if (ptx_is(&t, ".v4")) vec = 4;
        else if (ptx_is(&t, ".v8")) vec = 8;
        else if (ptx_is(&t, ".attribute")) {
            /* .attribute(.managed): skip the parenthesised list */
            if (!ptx_ispunct(&L->cur, '('))
                return perr(err, errlen, t.line, "bad .attribute");
            while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ')'))
                ptx_next(L);
            ptx_next(L);
        } else if (ptx_is(&t, ".texref") || ptx_is(&t, ".samplerref") ||
                   ptx_is(&t, ".surfref")) {
            esz = 8;
        } else if (ptx_is(&t, ".ptr") || ptx_is(&t, ".global") ||
                   ptx_is(&t, ".shared") || ptx_is(&t, ".const") ||
                   ptx_is(&t, ".local")) {
            /* pointer attributes; not part of the storage */
        } else {
            int sz;
            if (type_of(t.s + 1, t.len - 1, &sz) < 0)
                return perr(err, errlen, t.line, "unknown type '%.*s'",
                            t.len, t.s);
            esz = sz;
        }
    }
    if (esz == 0) return perr(err, errlen, line, "variable without a type");
    ptx_tok nm = ptx_next(L);
    if (nm.kind != TK_WORD) return perr(err, errlen, nm.line, "variable name expected");
    v->name = tokdup(&nm);
    if (!v->name) return HX_ERR_NOMEM;
    v->line = nm.line;
    size_t count = 1;
    int unsized = 0;
    while (ptx_ispunct(&L->cur, '[')) {
        ptx_next(L);
        if (ptx_ispunct(&L->cur, ']')) {
            unsized = 1; ptx_next(L); continue;
        }
        ptx_tok n = ptx_next(L);
        int k; int64_t iv; double dv;
        if (n.kind != TK_WORD || parse_number(n.s, n.len, &k, &iv, &dv) ||
            k != NUM_INT || iv < 0 || iv > ((int64_t)1 << 40))
            return perr(err, errlen, n.line, "bad array size");
        if (!ptx_ispunct(&L->cur, ']'))
            return perr(err, errlen, L->cur.line, "']' expected");
        ptx_next(L);
        count *= (size_t)iv;
        if (count > ((size_t)1 << 40))
            return perr(err, errlen, n.line, "array too large");
    }
    v->elem_size = esz * vec;
    v->align = align ? align : (size_t)(esz * vec);
    v->size = count * (size_t)esz * (size_t)vec;
    v->init_pos = NULL;
    if (ptx_ispunct(&L->cur, '=')) {
        ptx_next(L);
        v->init_pos = L->cur.s;
        int depth = 0;
        while (L->cur.kind != TK_EOF) {
            if (ptx_ispunct(&L->cur, '{')) depth++;
            else if (ptx_ispunct(&L->cur, '}')) depth--;
            else if (depth <= 0 && (ptx_ispunct(&L->cur, ';') ||
                                    ptx_ispunct(&L->cur, ','))) break;
            ptx_next(L);
        }
        if (unsized && v->init_pos) {
            /* count the elements: a[] = {1, 2, 3} */
            ptx_lex L2; ptx_lex_init(&L2, v->init_pos, L->cur.s, 0);
            size_t n = 0;
            while (L2.cur.kind != TK_EOF) {
                if (L2.cur.kind == TK_WORD) n++;
                ptx_next(&L2);
            }
            v->size = n * (size_t)esz * (size_t)vec;
            unsized = 0;
        }
    }
    if (unsized) v->is_extern = 1;
    /* ".global .u32 a, b;" declares several; we keep the first name and
     * skip the rest (nvcc never emits this) */
    while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ';')) ptx_next(L);
    if (L->cur.kind == TK_EOF) return perr(err, errlen, line, "';' expected");
    ptx_next(L);
    return HX_OK;
}

static void put_le(uint8_t *dst, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) dst[i] = (uint8_t)(v >> (8 * i));
}

/* Write an initialiser into the variable's storage: numbers (integer,
 * hex-float, decimal float per element type) and addresses of other
 * variables (name, name+off, generic(name)). */
static hx_status fill_init(hx_module *m, hx_var *v, int elem_type, char *err,
                           size_t errlen)
{
    ptx_lex L;
    ptx_lex_init(&L, v->init_pos, m->text + strlen(m->text), v->line);
    size_t pos = 0;
    int esz = v->elem_size;
    int depth = 0;
    while (L.cur.kind != TK_EOF) {
        ptx_tok t = L.cur;
        if (ptx_ispunct(&t, '{')) { depth++; ptx_next(&L); continue; }
        if (ptx_ispunct(&t, '}')) { depth--; ptx_next(&L); if (depth <= 0) break; continue; }
        if (ptx_ispunct(&t, ',')) { ptx_next(&L); if (depth <= 0) break; continue; }
        if (ptx_ispunct(&t, ';')) break;
        int neg = 0;
        if (ptx_ispunct(&t, '-')) { neg = 1; ptx_next(&L); t = L.cur; }
        if (t.kind != TK_WORD)
            return perr(err, errlen, t.line, "bad initialiser");
        ptx_next(&L);
        uint64_t bits = 0;
        int k; int64_t iv; double dv;
        if (!parse_number(t.s, t.len, &k, &iv, &dv)) {
            if (k == NUM_INT) {
                if (neg) iv = (int64_t)(0 - (uint64_t)iv);
                if (elem_type == T_F32) { float f = (float)iv; uint32_t u; memcpy(&u, &f, 4); bits = u; }
                else if (elem_type == T_F64) { double d = (double)iv; memcpy(&bits, &d, 8); }
                else bits = (uint64_t)iv;
            } else if (k == NUM_F32BITS) {
                bits = (uint64_t)iv;
                if (neg) bits ^= 0x80000000u;
                if (elem_type == T_F64) {
                    uint32_t u = (uint32_t)bits; float f; memcpy(&f, &u, 4);
                    double d = f; memcpy(&bits, &d, 8);
                }
            } else if (k == NUM_F64BITS) {
                bits = (uint64_t)iv;
                if (neg) bits ^= 0x8000000000000000ull;
                if (elem_type == T_F32) {
                    double d; memcpy(&d, &bits, 8); float f = (float)d;
                    uint32_t u; memcpy(&u, &f, 4); bits = u;
                }
            } else {
                if (neg) dv = -dv;
                if (elem_type == T_F32) { float f = (float)dv; uint32_t u; memcpy(&u, &f, 4); bits = u; }
                else if (elem_type == T_F64) memcpy(&bits, &dv, 8);
                else bits = (uint64_t)(int64_t)dv;
            }
        } else {
            /* address of a variable: name, name+off, generic(name)+off */
            const char *ns = t.s; int nl = t.len;
            int paren = 0;
            if ((ptx_is(&t, "generic") || ptx_is(&t, "global")) && ptx_ispunct(&L.cur, '(')) {
                ptx_next(&L);
                ptx_tok n = ptx_next(&L);
                ns = n.s; nl = n.len;
                paren = 1;
            }
            if (paren) {
                if (!ptx_ispunct(&L.cur, ')'))
                    return perr(err, errlen, L.cur.line, "')' expected");
                ptx_next(&L);
            }
            int64_t off = 0;
            if (ptx_ispunct(&L.cur, '+') || ptx_ispunct(&L.cur, '-')) {
                int sub = ptx_ispunct(&L.cur, '-');
                ptx_next(&L);
                ptx_tok n = ptx_next(&L);
                if (n.kind != TK_WORD || parse_number(n.s, n.len, &k, &iv, &dv) || k != NUM_INT)
                    return perr(err, errlen, n.line, "bad address offset in initialiser");
                off = sub ? (int64_t)(0 - (uint64_t)iv) : iv;
            }
            int vi = name_find(m->vhash, ns, nl);
            if (vi >= 0 && m->vars[vi]->storage)
                bits = (uint64_t)(uintptr_t)m->vars[vi]->storage + (uint64_t)off;
            else if (name_find(m->fhash, ns, nl) >= 0)
                bits = 0; /* function pointers are not callable here */
            else
                return perr(err, errlen, t.line, "unknown symbol '%.*s' in initialiser", nl, ns);
        }
        int n = esz > 8 ? 8 : esz;
        if (pos + (size_t)n <= v->size) put_le(v->storage + pos, bits, n);
        pos += (size_t)(esz > 8 ? 8 : esz);
    }
    return HX_OK;
}

static int type_from_decl(const char *p, const char *end)
{
    /* find the element type word again for initialisers */
    ptx_lex L; ptx_lex_init(&L, p, end, 0);
    while (L.cur.kind == TK_WORD && L.cur.s[0] == '.') {
        int t = type_of(L.cur.s + 1, L.cur.len - 1, NULL);
        if (t >= 0) return t;
        ptx_next(&L);
    }
    return T_U32;
}

static hx_status alloc_var_storage(hx_var *v)
{
    size_t al = v->align < 16 ? 16 : v->align;
    size_t sz = v->size ? v->size : 1;
    sz = (sz + al - 1) / al * al;
    void *p = aligned_alloc(al, sz);
    if (!p) return HX_ERR_NOMEM;
    memset(p, 0, sz);
    v->storage = p;
    tfl_mem_register(p, v->size ? v->size : 1, TFL_MEM_MODULE_VAR, 0, 0);
    return HX_OK;
}

/* ------------------------------------------------------------ index */

static void skip_braces(ptx_lex *L)
{
    int depth = 0;
    while (L->cur.kind != TK_EOF) {
        ptx_tok t = ptx_next(L);
        if (ptx_ispunct(&t, '{')) depth++;
        else if (ptx_ispunct(&t, '}')) { if (--depth <= 0) return; }
    }
}

static void skip_line(ptx_lex *L)
{
    while (L->cur.kind != TK_EOF && !L->cur.nl) ptx_next(L);
}

static hx_status index_func(hx_module *m, ptx_lex *L, const char *hdr_pos,
                            int hdr_line, int is_entry, int is_extern,
                            char *err, size_t errlen)
{
    /* optional return list */
    if (!is_entry && ptx_ispunct(&L->cur, '(')) {
        while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ')')) ptx_next(L);
        ptx_next(L);
    }
    ptx_tok nm = ptx_next(L);
    if (nm.kind != TK_WORD) return perr(err, errlen, nm.line, "function name expected");
    hx_func *f = calloc(1, sizeof *f);
    if (!f) return HX_ERR_NOMEM;
    f->name = tokdup(&nm);
    if (!f->name) { free(f); return HX_ERR_NOMEM; }
    f->is_entry = is_entry;
    f->hdr_pos = hdr_pos;
    f->hdr_line = hdr_line;
    /* parameters and performance directives up to '{' or ';' */
    int depth = 0;
    while (L->cur.kind != TK_EOF) {
        if (ptx_ispunct(&L->cur, '(')) depth++;
        else if (ptx_ispunct(&L->cur, ')')) depth--;
        else if (depth == 0 && (ptx_ispunct(&L->cur, '{') || ptx_ispunct(&L->cur, ';')))
            break;
        ptx_next(L);
    }
    if (L->cur.kind == TK_EOF) {
        free(f->name); free(f);
        return perr(err, errlen, nm.line, "unterminated declaration of %.*s", nm.len, nm.s);
    }
    if (ptx_ispunct(&L->cur, ';')) {
        ptx_next(L);
        f->is_extern = 1;
    } else {
        skip_braces(L);
        f->end_pos = L->cur.s;
        if (L->cur.kind == TK_EOF && f->end_pos != L->end) {
            /* fine: body ended at end of text */
        }
    }
    (void)is_extern;
    if (f->is_extern) {
        if (!strcmp(f->name, "vprintf")) f->builtin = OP_PRINTF;
        else if (!strcmp(f->name, "__assertfail")) f->builtin = OP_ASSERT;
        else if (!strcmp(f->name, "malloc")) f->builtin = OP_MALLOC;
        else if (!strcmp(f->name, "free")) f->builtin = OP_FREE;
    }
    if (add_func(m, f) < 0) return HX_ERR_NOMEM;
    return HX_OK;
}

hx_status hx_ptx_index(hx_module *m, char *err, size_t errlen)
{
    ptx_lex L;
    const char *end = m->text + strlen(m->text);
    ptx_lex_init(&L, m->text, end, 1);
    int is_extern = 0;
    const char *decl_pos = NULL;
    int decl_line = 0;
    while (L.cur.kind != TK_EOF) {
        ptx_tok t = L.cur;
        if (!decl_pos) { decl_pos = t.s; decl_line = t.line; }
        if (t.kind != TK_WORD) {
            if (ptx_ispunct(&t, ';')) { ptx_next(&L); decl_pos = NULL; continue; }
            return perr(err, errlen, t.line, "unexpected '%.*s' at module scope", t.len, t.s);
        }
        ptx_next(&L);
        if (ptx_is(&t, ".version")) {
            ptx_tok v = ptx_next(&L);
            int maj = 0, min = 0;
            if (v.kind == TK_WORD) sscanf(v.s, "%d.%d", &maj, &min);
            m->ptx_version = maj * 10 + min;
        } else if (ptx_is(&t, ".target")) {
            ptx_next(&L);
            while (ptx_ispunct(&L.cur, ',')) { ptx_next(&L); ptx_next(&L); }
        } else if (ptx_is(&t, ".address_size")) {
            ptx_tok v = ptx_next(&L);
            if (!ptx_is(&v, "64"))
                return perr(err, errlen, v.line, "only .address_size 64 is supported");
        } else if (ptx_is(&t, ".file") || ptx_is(&t, ".loc") || ptx_is(&t, ".pragma") ||
                   ptx_is(&t, ".alias")) {
            skip_line(&L);
            if (ptx_ispunct(&L.cur, ';')) ptx_next(&L);
        } else if (ptx_is(&t, ".section")) {
            ptx_next(&L);
            skip_braces(&L);
        } else if (ptx_is(&t, ".visible") || ptx_is(&t, ".weak") || ptx_is(&t, ".common")) {
            continue;
        } else if (ptx_is(&t, ".extern")) {
            is_extern = 1; continue;
        } else if (ptx_is(&t, ".entry") || ptx_is(&t, ".func")) {
            hx_status st = index_func(m, &L, decl_pos, decl_line, ptx_is(&t, ".entry"),
                                      is_extern, err, errlen);
            if (st) return st;
        } else if (ptx_is(&t, ".global") || ptx_is(&t, ".const") || ptx_is(&t, ".shared") ||
                   ptx_is(&t, ".local")) {
            int space = ptx_is(&t, ".global") ? SP_GLOBAL : ptx_is(&t, ".const") ? SP_CONST
                      : ptx_is(&t, ".shared") ? SP_SHARED : SP_LOCAL;
            if (space == SP_LOCAL)
                return perr(err, errlen, t.line, "module-scope .local is not supported");
            hx_var *v = calloc(1, sizeof *v);
            if (!v) return HX_ERR_NOMEM;
            const char *tpos = L.cur.s;
            hx_status st = parse_var_decl(&L, space, v, err, errlen);
            if (st) { free(v->name); free(v); return st; }
            if (is_extern && space == SP_SHARED) v->is_extern = 1;
            if (space != SP_SHARED && !is_extern) {
                if ((st = alloc_var_storage(v))) { free(v->name); free(v); return st; }
            } else if (space != SP_SHARED) {
                /* .extern .global: defined in another module; give it
                 * zeroed storage so references resolve */
                if ((st = alloc_var_storage(v))) { free(v->name); free(v); return st; }
            }
            if (add_var(m, v, 1) < 0) { free(v->name); free(v); return HX_ERR_NOMEM; }
            if (v->init_pos && v->storage) {
                int et = type_from_decl(tpos, end);
                if ((st = fill_init(m, v, et, err, errlen))) return st;
            }
        } else {
            return perr(err, errlen, t.line, "unknown module directive '%.*s'", t.len, t.s);
        }
        is_extern = 0;
        decl_pos = NULL;
    }
    return HX_OK;
}

/* ------------------------------------------------------------ decode */

enum { DS_REGGRP, DS_REG, DS_KPARAM, DS_LPARAM, DS_LOCAL, DS_SHVAR };

typedef struct dsym {
    const char *s; int len;
    int kind, level;
    int is_pred;
    int base, count;        /* registers: first slot, count (-1 single)   */
    int64_t off;            /* params / locals                            */
    int var;                /* DS_SHVAR: module var index                 */
} dsym;

typedef struct dlabel {
    const char *s; int len;
    int pc;
    UT_hash_handle hh;
} dlabel;

typedef struct dfix { int pc; const char *s; int len; int line; } dfix;

typedef struct dctx {
    hx_module *m;
    hx_func *f;
    ptx_lex L;
    char *err; size_t errlen;
    dsym *syms; int nsyms, capsyms;
    int level;
    int nslots, npreds;
    uint64_t *cv; int32_t *cs; int nc, capc;
    hx_insn *code; int ncode, capcode;
    dlabel *labels;
    dfix *fix; int nfix, capfix;
    int64_t lparam_top, lparam_max;
    int64_t local_top;
    int *callees; int ncallees, capcallees;
    int *svars; int nsvars, capsvars;
    hx_callsite *calls; int ncalls, capcalls;
} dctx;

#define GROW(arr, n, cap, init)                                             \
    do {                                                                    \
        if ((n) >= (cap)) {                                                 \
            int nc_ = (cap) ? (cap) * 2 : (init);                           \
            void *np_ = realloc((arr), (size_t)nc_ * sizeof *(arr));        \
            if (!np_) return HX_ERR_NOMEM;                                  \
            (arr) = np_; (cap) = nc_;                                       \
        }                                                                   \
    } while (0)

static hx_status add_sym(dctx *d, dsym s)
{
    GROW(d->syms, d->nsyms, d->capsyms, 64);
    s.level = d->level;
    d->syms[d->nsyms++] = s;
    return HX_OK;
}

static dsym *find_sym(dctx *d, const char *s, int len, int *num)
{
    /* split a trailing number for register groups: %rd17 -> %rd, 17 */
    int pl = len;
    while (pl > 0 && s[pl - 1] >= '0' && s[pl - 1] <= '9') pl--;
    int n = -1;
    if (pl < len && len - pl < 9) {
        n = 0;
        for (int i = pl; i < len; i++) n = n * 10 + (s[i] - '0');
        if (s[pl] == '0' && len - pl > 1) n = -1;   /* no leading zeros */
    }
    for (int i = d->nsyms - 1; i >= 0; i--) {
        dsym *y = &d->syms[i];
        if (y->kind == DS_REGGRP) {
            if (n >= 0 && y->len == pl && memcmp(y->s, s, (size_t)pl) == 0 && n < y->count) {
                *num = n;
                return y;
            }
        } else if (y->len == len && memcmp(y->s, s, (size_t)len) == 0) {
            *num = 0;
            return y;
        }
    }
    return NULL;
}

static int const_slot(dctx *d, uint64_t bits)
{
    for (int i = d->nc - 1; i >= 0 && i >= d->nc - 64; i--)
        if (d->cv[i] == bits) return d->cs[i];
    for (int i = 0; i < d->nc - 64; i++)
        if (d->cv[i] == bits) return d->cs[i];
    if (d->nc >= d->capc) {
        int nc = d->capc ? d->capc * 2 : 32;
        uint64_t *a = realloc(d->cv, (size_t)nc * sizeof *a);
        if (!a) return -1;
        d->cv = a;
        int32_t *b = realloc(d->cs, (size_t)nc * sizeof *b);
        if (!b) return -1;
        d->cs = b;
        d->capc = nc;
    }
    d->cv[d->nc] = bits;
    d->cs[d->nc] = d->nslots++;
    return d->cs[d->nc++];
}

static int sreg_id(const char *s, int len)
{
    static const struct { const char *n; int id; } tab[] = {
        {"%tid.x", SR_TID_X}, {"%tid.y", SR_TID_Y}, {"%tid.z", SR_TID_Z},
        {"%ntid.x", SR_NTID_X}, {"%ntid.y", SR_NTID_Y}, {"%ntid.z", SR_NTID_Z},
        {"%ctaid.x", SR_CTAID_X}, {"%ctaid.y", SR_CTAID_Y}, {"%ctaid.z", SR_CTAID_Z},
        {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
        {"%laneid", SR_LANEID}, {"%warpid", SR_WARPID}, {"%nwarpid", SR_NWARPID},
        {"%smid", SR_SMID}, {"%nsmid", SR_NSMID}, {"%gridid", SR_GRIDID},
        {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_le", SR_LANEMASK_LE},
        {"%lanemask_lt", SR_LANEMASK_LT}, {"%lanemask_ge", SR_LANEMASK_GE},
        {"%lanemask_gt", SR_LANEMASK_GT}, {"%dynamic_smem_size", SR_DYN_SMEM},
        {"%total_smem_size", SR_TOTAL_SMEM}, {"%clock", SR_CLOCK},
        {"%clock64", SR_CLOCK64}, {"%globaltimer", SR_GLOBALTIMER},
        {"%globaltimer_lo", SR_GLOBALTIMER}, {"%clock_hi", SR_CLOCK},
        {"%aggr_smem_size", SR_TOTAL_SMEM}, {"%is_explicit_cluster", SR_ZERO},
        {"%cluster_ctarank", SR_ZERO}, {"%cluster_nctarank", SR_ZERO},
        {"%clusterid.x", SR_ZERO}, {"%clusterid.y", SR_ZERO}, {"%clusterid.z", SR_ZERO},
        {"%cluster_ctaid.x", SR_ZERO}, {"%cluster_ctaid.y", SR_ZERO},
        {"%cluster_ctaid.z", SR_ZERO},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if ((int)strlen(tab[i].n) == len && memcmp(tab[i].n, s, (size_t)len) == 0)
            return tab[i].id;
    if (len > 7 && memcmp(s, "%envreg", 7) == 0) return SR_ZERO;
    if (len > 3 && memcmp(s, "%pm", 3) == 0) return SR_ZERO;
    return -1;
}

/* ---- operands */

enum { O_NONE, O_REG, O_PRED, O_IMM, O_ADDR, O_VEC, O_SYM, O_SINK };

typedef struct popnd {
    int kind;
    int reg;          /* slot or predicate index                         */
    int reg2;         /* a|b: the second (predicate) destination         */
    int neg;
    int nk; int64_t iv; double dv;   /* immediate                        */
    int base; int64_t off;           /* address                          */
    const char *sym; int symlen;     /* address symbol or plain symbol   */
    int nvec; int vslot[8]; int vkind[8]; int64_t viv[8]; int vnk[8]; double vdv[8];
    int line;
} popnd;

static hx_status parse_reg_or_sym(dctx *d, ptx_tok t, popnd *o)
{
    int num;
    dsym *y = find_sym(d, t.s, t.len, &num);
    if (y && (y->kind == DS_REGGRP || y->kind == DS_REG)) {
        o->kind = y->is_pred ? O_PRED : O_REG;
        o->reg = y->base + (y->kind == DS_REGGRP ? num : 0);
        return HX_OK;
    }
    if (t.s[0] == '%') {
        int sr = sreg_id(t.s, t.len);
        if (sr < 0)
            return perr(d->err, d->errlen, t.line, "unknown register '%.*s'", t.len, t.s);
        if (d->f->sreg_slot[sr] < 0) d->f->sreg_slot[sr] = d->nslots++;
        o->kind = O_REG;
        o->reg = d->f->sreg_slot[sr];
        o->nk = 100 + sr;            /* remember which sreg (for %clock) */
        return HX_OK;
    }
    if (ptx_is(&t, "_")) { o->kind = O_SINK; return HX_OK; }
    o->kind = O_SYM; o->sym = t.s; o->symlen = t.len;
    return HX_OK;
}

static hx_status parse_operand(dctx *d, popnd *o)
{
    memset(o, 0, sizeof *o);
    o->base = HX_NOREG;
    o->reg2 = HX_NOREG;
    ptx_lex *L = &d->L;
    ptx_tok t = ptx_next(L);
    o->line = t.line;
    if (ptx_ispunct(&t, '[')) {
        o->kind = O_ADDR;
        int sign = 1;
        int first = 1;
        while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ']')) {
            ptx_tok a = ptx_next(L);
            if (ptx_ispunct(&a, '+')) { sign = 1; continue; }
            if (ptx_ispunct(&a, '-')) { sign = -sign; continue; }
            if (a.kind != TK_WORD)
                return perr(d->err, d->errlen, a.line, "bad address");
            int k; int64_t iv; double dv;
            if (!parse_number(a.s, a.len, &k, &iv, &dv)) {
                if (k != NUM_INT) return perr(d->err, d->errlen, a.line, "bad address offset");
                o->off = (int64_t)((uint64_t)o->off + (sign < 0 ? 0 - (uint64_t)iv : (uint64_t)iv));
            } else {
                popnd r; memset(&r, 0, sizeof r);
                hx_status st = parse_reg_or_sym(d, a, &r);
                if (st) return st;
                if (r.kind == O_REG && first && o->base == HX_NOREG && !o->sym) o->base = r.reg;
                else if (r.kind == O_SYM && !o->sym && o->base == HX_NOREG) { o->sym = r.sym; o->symlen = r.symlen; }
                else return perr(d->err, d->errlen, a.line, "bad address operand");
            }
            first = 0;
            sign = 1;
        }
        if (!ptx_ispunct(&L->cur, ']')) return perr(d->err, d->errlen, t.line, "']' expected");
        ptx_next(L);
        return HX_OK;
    }
    if (ptx_ispunct(&t, '{')) {
        o->kind = O_VEC;
        while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, '}')) {
            if (o->nvec >= 8) return perr(d->err, d->errlen, t.line, "vector too long");
            ptx_tok a = ptx_next(L);
            int neg = 0;
            if (ptx_ispunct(&a, '-')) { neg = 1; a = ptx_next(L); }
            if (a.kind != TK_WORD) return perr(d->err, d->errlen, a.line, "bad vector element");
            int k; int64_t iv; double dv;
            int i = o->nvec++;
            if (!parse_number(a.s, a.len, &k, &iv, &dv)) {
                o->vkind[i] = O_IMM; o->vnk[i] = k;
                o->viv[i] = neg ? (int64_t)(0 - (uint64_t)iv) : iv; o->vdv[i] = neg ? -dv : dv;
                if (neg && k == NUM_F32BITS) o->viv[i] = iv ^ 0x80000000;
                if (neg && k == NUM_F64BITS) o->viv[i] = (int64_t)((uint64_t)iv ^ 0x8000000000000000ull);
            } else {
                popnd r; memset(&r, 0, sizeof r);
                hx_status st = parse_reg_or_sym(d, a, &r);
                if (st) return st;
                if (r.kind != O_REG && r.kind != O_SINK && r.kind != O_PRED)
                    return perr(d->err, d->errlen, a.line, "bad vector element");
                o->vkind[i] = r.kind; o->vslot[i] = r.kind == O_SINK ? d->nslots++ : r.reg;   /* sink: scratch */
            }
            if (ptx_ispunct(&L->cur, ',')) ptx_next(L);
        }
        ptx_next(L);
        return HX_OK;
    }
    int neg = 0;
    if (ptx_ispunct(&t, '!')) { o->neg = 1; t = ptx_next(L); }
    else if (ptx_ispunct(&t, '-')) { neg = 1; t = ptx_next(L); }
    if (t.kind != TK_WORD) return perr(d->err, d->errlen, t.line, "operand expected, got '%.*s'", t.len, t.s);
    int k; int64_t iv; double dv;
    /* WARP_SZ is PTX's one predefined constant (NVRTC output uses it). */
    if (ptx_is(&t, "WARP_SZ")) {
        k = NUM_INT; iv = 32; dv = 0;
    } else if (parse_number(t.s, t.len, &k, &iv, &dv)) {
        k = -1;
    }
    if (k >= 0) {
        o->kind = O_IMM; o->nk = k; o->iv = iv; o->dv = dv;
        if (neg) {
            if (k == NUM_INT) o->iv = (int64_t)(0 - (uint64_t)iv);
            else if (k == NUM_FLOAT) o->dv = -dv;
            else if (k == NUM_F32BITS) o->iv = iv ^ 0x80000000;
            else o->iv = (int64_t)((uint64_t)iv ^ 0x8000000000000000ull);
        }
        return HX_OK;
    }
    if (neg) return perr(d->err, d->errlen, t.line, "bad operand");
    hx_status st = parse_reg_or_sym(d, t, o);
    if (st) return st;
    if (ptx_ispunct(&L->cur, '|')) {
        ptx_next(L);
        ptx_tok b = ptx_next(L);
        popnd r; memset(&r, 0, sizeof r);
        if (b.kind != TK_WORD || parse_reg_or_sym(d, b, &r) || (r.kind != O_PRED && r.kind != O_SINK))
            return perr(d->err, d->errlen, b.line, "predicate expected after '|'");
        o->reg2 = r.kind == O_SINK ? HX_NOREG : r.reg;
    }
    return HX_OK;
}

/* bits of an immediate for an operand of type t */
static uint64_t imm_bits(int nk, int64_t iv, double dv, int t)
{
    if (nk == NUM_FLOAT) {
        if (t == T_F32) { float f = (float)dv; uint32_t u; memcpy(&u, &f, 4); return u; }
        if (t == T_F64) { uint64_t u; memcpy(&u, &dv, 8); return u; }
        return (uint64_t)(int64_t)dv;
    }
    if (nk == NUM_F64BITS && t == T_F32) {
        double x; uint64_t b = (uint64_t)iv; memcpy(&x, &b, 8);
        float f = (float)x; uint32_t u; memcpy(&u, &f, 4); return u;
    }
    if (nk == NUM_F32BITS && t == T_F64) {
        uint32_t b = (uint32_t)iv; float f; memcpy(&f, &b, 4);
        double x = f; uint64_t u; memcpy(&u, &x, 8); return u;
    }
    return (uint64_t)iv;
}

/* Slot of a source operand of type t (register, immediate, or a plain
 * symbol's address for mov/cvta). */
static int src_slot(dctx *d, const popnd *o, int t, hx_status *st)
{
    if (o->kind == O_REG) return o->reg;
    if (o->kind == O_IMM) {
        int s = const_slot(d, imm_bits(o->nk, o->iv, o->dv, t));
        if (s < 0) *st = HX_ERR_NOMEM;
        return s;
    }
    *st = perr(d->err, d->errlen, o->line, "register or immediate expected");
    return -1;
}

static int dst_slot(dctx *d, const popnd *o, hx_status *st)
{
    if (o->kind == O_REG) return o->reg;
    if (o->kind == O_SINK) return d->nslots++;     /* a scratch slot */
    *st = perr(d->err, d->errlen, o->line, "destination register expected");
    return -1;
}

static int pred_of(dctx *d, const popnd *o, hx_status *st)
{
    if (o->kind == O_PRED) return o->reg;
    if (o->kind == O_SINK) return d->npreds++;     /* a scratch predicate */
    if (o->kind == O_IMM) {
        /* a predicate constant: use a dedicated predicate */
        int p = d->npreds++;
        (void)p;
        *st = perr(d->err, d->errlen, o->line, "predicate immediates are not supported");
        return -1;
    }
    *st = perr(d->err, d->errlen, o->line, "predicate expected");
    return -1;
}

static hx_status note_svar(dctx *d, int vi)
{
    for (int i = 0; i < d->nsvars; i++) if (d->svars[i] == vi) return HX_OK;
    GROW(d->svars, d->nsvars, d->capsvars, 8);
    d->svars[d->nsvars++] = vi;
    return HX_OK;
}

/* Resolve a symbol used as an address (in [...] or as a mov source). */
static hx_status resolve_sym(dctx *d, const char *s, int len, int line, hx_insn *in,
                             int *space)
{
    int num;
    dsym *y = find_sym(d, s, len, &num);
    if (y) {
        switch (y->kind) {
        case DS_KPARAM: in->aoff += y->off; *space = SP_KPARAM; return HX_OK;
        case DS_LPARAM: in->aoff += y->off; in->symk = SYMK_LPARAM; *space = SP_LPARAM; return HX_OK;
        case DS_LOCAL: in->aoff += y->off; in->symk = SYMK_LOCAL; *space = SP_LOCAL; return HX_OK;
        case DS_SHVAR:
            in->symk = SYMK_SHARED; in->svar = y->var; *space = SP_SHARED;
            return note_svar(d, y->var);
        default: break;
        }
    }
    int vi = name_find(d->m->vhash, s, len);
    if (vi >= 0) {
        hx_var *v = d->m->vars[vi];
        if (v->space == SP_SHARED) {
            in->symk = SYMK_SHARED; in->svar = vi; *space = SP_SHARED;
            return note_svar(d, vi);
        }
        in->aoff += (int64_t)(uintptr_t)v->storage;
        *space = v->space;
        return HX_OK;
    }
    return perr(d->err, d->errlen, line, "unknown symbol '%.*s'", len, s);
}

static hx_status set_addr(dctx *d, const popnd *o, hx_insn *in, int *space)
{
    if (o->kind != O_ADDR) return perr(d->err, d->errlen, o->line, "address operand expected");
    in->abase = o->base;
    in->aoff = o->off;
    *space = -1;
    if (o->sym) return resolve_sym(d, o->sym, o->symlen, o->line, in, space);
    return HX_OK;
}

/* ---- declarations inside a body */

/* glued: ".reg.b32 a, b;" (the lexer keeps ".reg.b32" as one word): the
 * text after ".reg" holds the first modifiers */
static hx_status parse_reg_decl(dctx *d, const char *glued, int glen)
{
    ptx_lex *L = &d->L;
    int is_pred = 0, vec = 1;
    while (glen > 0) {
        int j = 1;
        while (j < glen && glued[j] != '.') j++;
        ptx_tok t = { TK_WORD, glued, j, L->cur.line, 0 };
        if (ptx_is(&t, ".v2")) vec = 2;
        else if (ptx_is(&t, ".v4")) vec = 4;
        else if (ptx_is(&t, ".pred")) is_pred = 1;
        else if (type_of(t.s + 1, t.len - 1, NULL) < 0)
            return perr(d->err, d->errlen, t.line, "unknown register type '%.*s'", t.len, t.s);
        glued += j; glen -= j;
    }
    while (L->cur.kind == TK_WORD && L->cur.s[0] == '.') {
        ptx_tok t = ptx_next(L);
        if (ptx_is(&t, ".v2")) vec = 2;
        else if (ptx_is(&t, ".v4")) vec = 4;
        else if (ptx_is(&t, ".pred")) is_pred = 1;
        else if (type_of(t.s + 1, t.len - 1, NULL) < 0)
            return perr(d->err, d->errlen, t.line, "unknown register type '%.*s'", t.len, t.s);
    }
    if (vec != 1) return perr(d->err, d->errlen, L->cur.line, "vector registers are not supported");
    for (;;) {
        ptx_tok n = ptx_next(L);
        if (n.kind != TK_WORD) return perr(d->err, d->errlen, n.line, "register name expected");
        dsym y; memset(&y, 0, sizeof y);
        y.s = n.s; y.len = n.len; y.is_pred = is_pred;
        if (ptx_ispunct(&L->cur, '<')) {
            ptx_next(L);
            ptx_tok c = ptx_next(L);
            int k; int64_t iv; double dv;
            if (c.kind != TK_WORD || parse_number(c.s, c.len, &k, &iv, &dv) || k != NUM_INT ||
                iv < 0 || iv > 1000000)
                return perr(d->err, d->errlen, c.line, "bad register count");
            if (!ptx_ispunct(&L->cur, '>')) return perr(d->err, d->errlen, c.line, "'>' expected");
            ptx_next(L);
            y.kind = DS_REGGRP; y.count = (int)iv;
        } else {
            y.kind = DS_REG; y.count = 1;
        }
        if (is_pred) { y.base = d->npreds; d->npreds += y.count; }
        else { y.base = d->nslots; d->nslots += y.count; }
        if (d->nslots > 4000000 || d->npreds > 1000000)
            return perr(d->err, d->errlen, n.line, "too many registers");
        hx_status st = add_sym(d, y);
        if (st) return st;
        if (ptx_ispunct(&L->cur, ',')) { ptx_next(L); continue; }
        break;
    }
    if (!ptx_ispunct(&L->cur, ';')) return perr(d->err, d->errlen, L->cur.line, "';' expected");
    ptx_next(L);
    return HX_OK;
}

static int64_t align_up(int64_t v, int64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* .param in a header (kernel or func formal) or a body (call sequence). */
static hx_status parse_param_decl(dctx *d, int kind, hx_param *out)
{
    ptx_lex *L = &d->L;
    size_t align = 0, esz = 0;
    while (L->cur.kind == TK_WORD && L->cur.s[0] == '.') {
        ptx_tok t = ptx_next(L);
        if (ptx_is(&t, ".align")) {
            ptx_tok n = ptx_next(L);
            int k; int64_t iv; double dv;
            if (n.kind != TK_WORD || parse_number(n.s, n.len, &k, &iv, &dv) || k != NUM_INT ||
                iv <= 0 || iv > 4096 || (iv & (iv - 1)))
                return perr(d->err, d->errlen, n.line, "bad .align");
            align = (size_t)iv;
        } else if (ptx_is(&t, ".ptr") || ptx_is(&t, ".global") || ptx_is(&t, ".shared") ||
                   ptx_is(&t, ".const") || ptx_is(&t, ".local")) {
        } else {
            int sz;
            if (type_of(t.s + 1, t.len - 1, &sz) < 0)
                return perr(d->err, d->errlen, t.line, "unknown parameter type '%.*s'", t.len, t.s);
            esz = (size_t)sz;
            if (ptx_is(&t, ".pred")) esz = 4;
        }
    }
    ptx_tok n = ptx_next(L);
    if (n.kind != TK_WORD || esz == 0) return perr(d->err, d->errlen, n.line, "bad parameter");
    size_t count = 1;
    while (ptx_ispunct(&L->cur, '[')) {
        ptx_next(L);
        ptx_tok c = ptx_next(L);
        int k; int64_t iv; double dv;
        if (c.kind != TK_WORD || parse_number(c.s, c.len, &k, &iv, &dv) || k != NUM_INT ||
            iv < 0 || iv > (1 << 20))
            return perr(d->err, d->errlen, c.line, "bad parameter array size");
        if (!ptx_ispunct(&L->cur, ']')) return perr(d->err, d->errlen, c.line, "']' expected");
        ptx_next(L);
        count *= (size_t)iv;
        if (count > (1 << 20)) return perr(d->err, d->errlen, c.line, "parameter too large");
    }
    if (!align) align = esz;
    size_t size = esz * count;
    dsym y; memset(&y, 0, sizeof y);
    y.s = n.s; y.len = n.len; y.kind = kind;
    if (kind == DS_KPARAM) {
        int64_t off = align_up((int64_t)d->f->kparam_bytes, (int64_t)align);
        y.off = off;
        d->f->kparam_bytes = (size_t)off + size;
    } else {
        int64_t off = align_up(d->lparam_top, (int64_t)(align < 8 ? 8 : align));
        y.off = off;
        d->lparam_top = off + (int64_t)size;
        if (d->lparam_top > d->lparam_max) d->lparam_max = d->lparam_top;
    }
    if (out) {
        out->name = tokdup(&n);
        if (!out->name) return HX_ERR_NOMEM;
        out->size = size; out->align = align; out->offset = (size_t)y.off;
    }
    return add_sym(d, y);
}

static hx_status parse_body_var(dctx *d, int space)
{
    hx_var *v = calloc(1, sizeof *v);
    if (!v) return HX_ERR_NOMEM;
    const char *tpos = d->L.cur.s;
    hx_status st = parse_var_decl(&d->L, space, v, d->err, d->errlen);
    if (st) { free(v->name); free(v); return st; }
    dsym y; memset(&y, 0, sizeof y);
    /* the name's text for scoped lookup: find it again in the source */
    y.s = v->name; y.len = (int)strlen(v->name);
    if (space == SP_LOCAL) {
        int64_t off = align_up(d->local_top, (int64_t)(v->align < 16 ? 16 : v->align));
        y.kind = DS_LOCAL; y.off = off;
        d->local_top = off + (int64_t)v->size;
        d->f->uses_local = 1;
        /* keep the name alive: store the var in the module (not hashed) */
        if (add_var(d->m, v, 0) < 0) { free(v->name); free(v); return HX_ERR_NOMEM; }
        return add_sym(d, y);
    }
    if (space == SP_SHARED) {
        int vi = add_var(d->m, v, 0);
        if (vi < 0) { free(v->name); free(v); return HX_ERR_NOMEM; }
        y.kind = DS_SHVAR; y.var = vi;
        return add_sym(d, y);
    }
    /* function-scope .global/.const: static storage, scoped name */
    if ((st = alloc_var_storage(v))) { free(v->name); free(v); return st; }
    int vi = add_var(d->m, v, 0);
    if (vi < 0) { free(v->name); free(v); return HX_ERR_NOMEM; }
    if (v->init_pos) {
        int et = type_from_decl(tpos, d->L.end);
        if ((st = fill_init(d->m, v, et, d->err, d->errlen))) return st;
    }
    /* reachable by name like a module variable */
    name_add(&d->m->vhash, v->name, vi);
    return HX_OK;
}

/* ---- instructions */

typedef struct opmods {
    int types[4], ntypes;
    int space;
    int vec;
    int rnd;
    int flags;
    int cmp, bop;
    int aop;
    int mode;          /* shfl / vote / testp / prmt / redux mode        */
    int hi, lo, wide;
    int to;            /* cvta.to                                        */
    int sync;
    int has_cmp, has_aop, has_mode;
    int shamt;
    int arrive, red;
} opmods;

static int mod_is(const char *s, int len, const char *w)
{
    return (int)strlen(w) == len && memcmp(s, w, (size_t)len) == 0;
}

static void parse_mods(const char *s, int len, const char *base, opmods *m)
{
    memset(m, 0, sizeof *m);
    m->space = -1; m->vec = 1; m->cmp = -1; m->aop = -1; m->mode = -1;
    int i = 0;
    while (i < len && s[i] != '.') i++;
    while (i < len) {
        i++;
        int j = i;
        while (j < len && s[j] != '.') j++;
        const char *w = s + i; int wl = j - i;
        i = j;
        int t = type_of(w, wl, NULL);
        if (t >= 0 && !(t == T_NONE && !mod_is(w, wl, "b128"))) {
            if (m->ntypes < 4) m->types[m->ntypes++] = t;
            continue;
        }
#define M(x) mod_is(w, wl, x)
        if (M("global")) m->space = SP_GLOBAL;
        else if (M("shared") || M("shared::cta") || M("shared::cluster")) m->space = SP_SHARED;
        else if (M("local")) m->space = SP_LOCAL;
        else if (M("const")) m->space = SP_CONST;
        else if (M("param") || M("param::entry") || M("param::func")) m->space = SP_KPARAM;
        else if (M("v2")) m->vec = 2;
        else if (M("v4")) m->vec = 4;
        else if (M("v8")) m->vec = 8;
        else if (M("rn")) m->rnd = R_RN;
        else if (M("rz")) m->rnd = R_RZ;
        else if (M("rm")) m->rnd = R_RM;
        else if (M("rp")) m->rnd = R_RP;
        else if (M("rni")) m->rnd = R_RNI;
        else if (M("rzi")) m->rnd = R_RZI;
        else if (M("rmi")) m->rnd = R_RMI;
        else if (M("rpi")) m->rnd = R_RPI;
        else if (M("rna")) m->rnd = R_RNA;
        else if (M("sat") || M("satfinite")) m->flags |= F_SAT;
        else if (M("ftz")) m->flags |= F_FTZ;
        else if (M("approx") || M("full")) m->flags |= F_APPROX;
        else if (M("NaN")) m->flags |= F_NAN;
        else if (M("uni")) m->flags |= F_UNI;
        else if (M("relu")) m->flags |= F_RELU;
        else if (M("hi")) m->hi = 1;
        else if (M("lo")) m->lo = 1;
        else if (M("wide")) m->wide = 1;
        else if (M("to")) m->to = 1;
        else if (M("sync")) m->sync = 1;
        else if (M("clamp")) m->flags |= F_SHAMT;
        else if (M("wrap")) ;
        else if (M("shiftamt")) m->shamt = 1;
        else if (M("arrive")) m->arrive = 1;
        else if (M("red")) m->red = 1;
        /* compare ops (setp/set) */
        else if (!strcmp(base, "setp") || !strcmp(base, "set")) {
            static const char *cn[] = {"eq","ne","lt","le","gt","ge","lo","ls","hi","hs",
                                       "equ","neu","ltu","leu","gtu","geu","num","nan"};
            int found = 0;
            for (int k = 0; k < 18; k++) if (M(cn[k])) { m->cmp = k; m->has_cmp = 1; found = 1; }
            if (!found) {
                if (M("and")) m->bop = B_AND;
                else if (M("or")) m->bop = B_OR;
                else if (M("xor")) m->bop = B_XOR;
            }
        } else if (!strcmp(base, "atom") || !strcmp(base, "red") || !strcmp(base, "redux") ||
                   !strcmp(base, "bar") || !strcmp(base, "barrier")) {
            static const char *an[] = {"add","min","max","inc","dec","and","or","xor","exch","cas",
                                       "popc"};
            for (int k = 0; k < 11; k++) if (M(an[k])) { m->aop = k; m->has_aop = 1; }
        } else if (!strcmp(base, "shfl")) {
            if (M("up")) m->mode = SH_UP; else if (M("down")) m->mode = SH_DOWN;
            else if (M("bfly")) m->mode = SH_BFLY; else if (M("idx")) m->mode = SH_IDX;
        } else if (!strcmp(base, "vote")) {
            if (M("all")) m->mode = V_ALL; else if (M("any")) m->mode = V_ANY;
            else if (M("uni")) m->mode = V_UNI; else if (M("ballot")) m->mode = V_BALLOT;
        } else if (!strcmp(base, "match")) {
            if (M("any")) m->mode = 0; else if (M("all")) m->mode = 1;
        } else if (!strcmp(base, "testp")) {
            static const char *tn[] = {"finite","infinite","number","notanumber","normal","subnormal"};
            for (int k = 0; k < 6; k++) if (M(tn[k])) m->mode = k;
        } else if (!strcmp(base, "prmt")) {
            static const char *pn[] = {"f4e","b4e","rc8","ecl","ecr","rc16"};
            for (int k = 0; k < 6; k++) if (M(pn[k])) m->mode = k + 1;
        }
        /* everything else: cache and ordering hints, scopes (ignored) */
#undef M
    }
}

static hx_insn *new_insn(dctx *d)
{
    if (d->ncode >= d->capcode) {
        int nc = d->capcode ? d->capcode * 2 : 256;
        hx_insn *n = realloc(d->code, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        d->code = n; d->capcode = nc;
    }
    hx_insn *in = &d->code[d->ncode++];
    memset(in, 0, sizeof *in);
    in->gpred = HX_NOREG;
    for (int i = 0; i < 4; i++) in->d[i] = in->s[i] = HX_NOREG;
    for (int i = 0; i < 3; i++) in->p[i] = HX_NOREG;
    for (int i = 0; i < 6; i++) in->x[i] = HX_NOREG;
    in->abase = HX_NOREG;
    in->target = in->rpc = -1;
    in->svar = -1;
    in->vec = 1;
    in->t = T_NONE; in->t2 = T_NONE;
    return in;
}

static int is_int_type(int t) { return t <= T_S64; }
static int unsigned_of(int t)
{
    switch (t) {
    case T_S8: return T_U8; case T_S16: return T_U16;
    case T_S32: return T_U32; case T_S64: return T_U64;
    default: return t;
    }
}

static hx_status need(dctx *d, int line, int nops, int min, int max)
{
    if (nops < min || nops > max)
        return perr(d->err, d->errlen, line, "wrong number of operands (%d)", nops);
    return HX_OK;
}

static hx_status decode_call(dctx *d, hx_insn *in, int line);

#define CK(x) do { hx_status st_ = (x); if (st_) return st_; } while (0)
#define SRC(i, ty) ({ hx_status st2_ = HX_OK; int s_ = src_slot(d, &ops[i], (ty), &st2_); if (st2_) return st2_; s_; })
#define DST(i) ({ hx_status st2_ = HX_OK; int s_ = dst_slot(d, &ops[i], &st2_); if (st2_) return st2_; s_; })
#define PRD(i) ({ hx_status st2_ = HX_OK; int s_ = pred_of(d, &ops[i], &st2_); if (st2_) return st2_; s_; })

/* Instructions whose operands decode_insn parses. */
static int known_base(const char *b)
{
    static const char *const k[] = {
        "ld", "ldu", "st", "mov", "cvta", "isspacep", "setp", "set", "selp", "slct", "cvt",
        "bra", "ret", "exit", "trap", "brkpt", "membar", "fence", "nanosleep", "prefetch",
        "prefetchu", "pmevent", "griddepcontrol", "discard", "applypriority", "createpolicy",
        "setmaxnreg", "bar", "barrier", "atom", "red", "shfl", "vote", "match", "redux",
        "activemask", "elect", "testp", "mma", "ldmatrix", "cp", "add", "sub", "mul", "mad",
        "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "and", "or", "xor",
        "not", "cnot", "lop3", "shl", "shr", "shf", "bfe", "bfi", "brev", "clz", "popc",
        "bfind", "dp4a", "dp2a", "fma", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos",
        "tanh", "copysign", "prmt", "addc", "subc", "madc", "bmsk", "szext",
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(b, k[i])) return 1;
    return 0;
}

static hx_status decode_insn(dctx *d, ptx_tok opt, int gpred, int gneg)
{
    ptx_lex *L = &d->L;
    int line = opt.line;
    char base[32];
    int bl = 0;
    while (bl < opt.len && bl < 31 && opt.s[bl] != '.') { base[bl] = opt.s[bl]; bl++; }
    base[bl] = 0;
    opmods mo;
    parse_mods(opt.s, opt.len, base, &mo);
    hx_insn *in;
    if (!strcmp(base, "call")) {
        in = new_insn(d);
        if (!in) return HX_ERR_NOMEM;
        in->gpred = gpred; in->gneg = (uint8_t)gneg; in->line = line;
        in->src = opt.s; in->srclen = (uint8_t)(opt.len > 255 ? 255 : opt.len);
        if (mo.flags & F_UNI) in->flags |= F_UNI;
        return decode_call(d, in, line);
    }
    if (!known_base(base) ||
        (!strcmp(base, "cp") && (memmem(opt.s, (size_t)opt.len, ".bulk", 5) ||
                                 memmem(opt.s, (size_t)opt.len, "mbarrier", 8)))) {
        /* not implemented: skip the operands unparsed (their syntax may be
         * anything: textures, tensor maps); fails the launch if executed */
        int depth = 0;
        while (L->cur.kind != TK_EOF) {
            if (ptx_ispunct(&L->cur, '{') || ptx_ispunct(&L->cur, '[') || ptx_ispunct(&L->cur, '(')) depth++;
            else if (ptx_ispunct(&L->cur, '}') || ptx_ispunct(&L->cur, ']') || ptx_ispunct(&L->cur, ')')) depth--;
            else if (depth <= 0 && ptx_ispunct(&L->cur, ';')) break;
            ptx_next(L);
        }
        if (!ptx_ispunct(&L->cur, ';'))
            return perr(d->err, d->errlen, line, "';' expected after %.*s", opt.len, opt.s);
        ptx_next(L);
        in = new_insn(d);
        if (!in) return HX_ERR_NOMEM;
        in->gpred = gpred; in->gneg = (uint8_t)gneg; in->line = line;
        in->src = opt.s; in->srclen = (uint8_t)(opt.len > 255 ? 255 : opt.len);
        in->op = OP_UNSUP;
        in->key = (uint16_t)HX_KEY(OP_UNSUP, T_NONE);
        return HX_OK;
    }
    popnd ops[8];
    int nops = 0;
    if (!ptx_ispunct(&L->cur, ';')) {
        for (;;) {
            if (nops >= 8) return perr(d->err, d->errlen, line, "too many operands");
            CK(parse_operand(d, &ops[nops]));
            nops++;
            if (ptx_ispunct(&L->cur, ',')) { ptx_next(L); continue; }
            break;
        }
    }
    if (!ptx_ispunct(&L->cur, ';'))
        return perr(d->err, d->errlen, L->cur.line, "';' expected after %.*s", opt.len, opt.s);
    ptx_next(L);
    in = new_insn(d);
    if (!in) return HX_ERR_NOMEM;
    in->gpred = gpred; in->gneg = (uint8_t)gneg; in->line = line;
    in->src = opt.s; in->srclen = (uint8_t)(opt.len > 255 ? 255 : opt.len);
    int t = mo.ntypes ? mo.types[0] : T_NONE;
    in->t = (uint8_t)t;
    in->rnd = (uint8_t)mo.rnd;
    in->flags = (uint8_t)mo.flags;
    in->vec = (uint8_t)mo.vec;
    int op = -1;

    if (!strcmp(base, "ld") || !strcmp(base, "ldu") || !strcmp(base, "st")) {
        int isst = base[0] == 's';
        op = isst ? OP_ST : OP_LD;
        CK(need(d, line, nops, 2, 3));
        if (mo.vec > 4) return perr(d->err, d->errlen, line, "vector width %d not supported", mo.vec);
        int space;
        const popnd *ad = &ops[isst ? 0 : 1], *val = &ops[isst ? 1 : 0];
        CK(set_addr(d, ad, in, &space));
        int sp = mo.space >= 0 ? mo.space : SP_GENERIC;
        if (sp == SP_KPARAM) {
            /* kernel formals: the uniform buffer; call-sequence params and
             * .func formals: per lane */
            if (space == SP_KPARAM && !isst) sp = SP_KPARAM;
            else if (space == SP_LPARAM || isst || !d->f->is_entry) sp = SP_LPARAM;
        }
        in->sp = (uint8_t)sp;
        if (mo.ntypes == 0) return perr(d->err, d->errlen, line, "ld/st without a type");
        if (t == T_NONE) { op = OP_UNSUP; goto done; }   /* .b128: not implemented */
        if (val->kind == O_VEC) {
            if (val->nvec != mo.vec) return perr(d->err, d->errlen, line, "vector size mismatch");
            for (int i = 0; i < val->nvec; i++) {
                if (isst) {
                    if (val->vkind[i] == O_IMM) {
                        int s = const_slot(d, imm_bits(val->vnk[i], val->viv[i], val->vdv[i], t));
                        if (s < 0) return HX_ERR_NOMEM;
                        in->s[i] = s;
                    } else in->s[i] = val->vslot[i];
                } else in->d[i] = val->vslot[i];
            }
        } else {
            if (mo.vec != 1) return perr(d->err, d->errlen, line, "vector operand expected");
            if (isst) in->s[0] = SRC(isst ? 1 : 0, t);
            else {
                if (val->kind == O_PRED) return perr(d->err, d->errlen, line, "ld into a predicate");
                in->d[0] = DST(0);
            }
        }
    } else if (!strcmp(base, "mov")) {
        CK(need(d, line, nops, 2, 2));
        if (t == T_PRED) {
            op = OP_MOV;
            in->d[0] = PRD(0);
            if (ops[1].kind == O_IMM) { in->imm = ops[1].iv ? 1 : 0; in->sub = 1; }
            else { in->p[0] = PRD(1); in->p[1] = ops[1].neg; }
        } else if (ops[0].kind == O_VEC) {
            op = OP_UNPACK;
            in->s[0] = SRC(1, t);
            in->vec = (uint8_t)ops[0].nvec;
            for (int i = 0; i < ops[0].nvec; i++) in->d[i] = ops[0].vslot[i];
        } else if (ops[1].kind == O_VEC) {
            op = OP_PACK;
            in->d[0] = DST(0);
            in->vec = (uint8_t)ops[1].nvec;
            for (int i = 0; i < ops[1].nvec; i++) {
                if (ops[1].vkind[i] == O_IMM) {
                    int s = const_slot(d, (uint64_t)ops[1].viv[i]);
                    if (s < 0) return HX_ERR_NOMEM;
                    in->s[i] = s;
                } else in->s[i] = ops[1].vslot[i];
            }
        } else if (ops[1].kind == O_SYM) {
            op = OP_MOVSYM;
            in->d[0] = DST(0);
            int space;
            CK(resolve_sym(d, ops[1].sym, ops[1].symlen, line, in, &space));
            in->sp = (uint8_t)space;
        } else {
            in->d[0] = DST(0);
            in->s[0] = SRC(1, t);
            op = OP_MOV;
            if (ops[1].kind == O_REG && ops[1].nk >= 100 + SR_CLOCK && ops[1].nk <= 100 + SR_GLOBALTIMER) {
                op = OP_CLOCK; in->imm = (uint32_t)(ops[1].nk - 100);
            }
        }
    } else if (!strcmp(base, "cvta")) {
        CK(need(d, line, nops, 2, 2));
        op = mo.to ? OP_CVTA_TO : OP_CVTA;
        in->sp = (uint8_t)(mo.space >= 0 ? mo.space : SP_GLOBAL);
        in->d[0] = DST(0);
        if (ops[1].kind == O_SYM) {
            int space;
            CK(resolve_sym(d, ops[1].sym, ops[1].symlen, line, in, &space));
            in->sub = 1;    /* source is the symbol's address */
        } else in->s[0] = SRC(1, T_U64);
    } else if (!strcmp(base, "isspacep")) {
        CK(need(d, line, nops, 2, 2));
        op = OP_ISSPACEP;
        in->sp = (uint8_t)(mo.space >= 0 ? mo.space : SP_GLOBAL);
        in->d[0] = PRD(0);
        in->s[0] = SRC(1, T_U64);
    } else if (!strcmp(base, "setp")) {
        CK(need(d, line, nops, 3, 4));
        op = OP_SETP;
        if (!mo.has_cmp) return perr(d->err, d->errlen, line, "setp without a comparison");
        in->cmp = (uint8_t)mo.cmp; in->bop = (uint8_t)mo.bop;
        in->d[0] = PRD(0);
        in->p[0] = ops[0].reg2;
        in->s[0] = SRC(1, t); in->s[1] = SRC(2, t);
        if (mo.bop) {
            if (nops != 4) return perr(d->err, d->errlen, line, "setp combiner needs a predicate");
            in->p[1] = PRD(3); in->p[2] = ops[3].neg;
        }
    } else if (!strcmp(base, "set")) {
        CK(need(d, line, nops, 3, 4));
        op = OP_SET;
        if (mo.ntypes < 2) return perr(d->err, d->errlen, line, "set needs two types");
        in->cmp = (uint8_t)mo.cmp; in->bop = (uint8_t)mo.bop;
        t = mo.types[1]; in->t2 = (uint8_t)mo.types[0];
        in->d[0] = DST(0);
        in->s[0] = SRC(1, t); in->s[1] = SRC(2, t);
        if (mo.bop) { in->p[1] = PRD(3); in->p[2] = ops[3].neg; }
    } else if (!strcmp(base, "selp")) {
        CK(need(d, line, nops, 4, 4));
        op = OP_SELP;
        in->d[0] = DST(0); in->s[0] = SRC(1, t); in->s[1] = SRC(2, t);
        in->p[0] = PRD(3); in->p[1] = ops[3].neg;
    } else if (!strcmp(base, "slct")) {
        CK(need(d, line, nops, 4, 4));
        op = OP_SLCT;
        if (mo.ntypes < 2) return perr(d->err, d->errlen, line, "slct needs two types");
        in->t2 = (uint8_t)mo.types[1];
        in->d[0] = DST(0); in->s[0] = SRC(1, t); in->s[1] = SRC(2, t); in->s[2] = SRC(3, mo.types[1]);
    } else if (!strcmp(base, "cvt")) {
        /* packing conversions and the fp8/fp6/fp4 types are valid PTX we do
         * not implement: fail the launch if executed, not the parse */
        if (mo.ntypes < 2 || memmem(opt.s, (size_t)opt.len, ".pack", 5) ||
            memmem(opt.s, (size_t)opt.len, ".e4m3", 5) || memmem(opt.s, (size_t)opt.len, ".e5m2", 5) ||
            memmem(opt.s, (size_t)opt.len, ".e2m", 4) || memmem(opt.s, (size_t)opt.len, ".e3m", 4) ||
            memmem(opt.s, (size_t)opt.len, ".ue8m0", 6) || memmem(opt.s, (size_t)opt.len, ".tf32", 5)) {
            op = OP_UNSUP;
            goto done;
        }
        in->t2 = (uint8_t)mo.types[1];
        if (t == T_F16X2 || t == T_BF16X2) {
            CK(need(d, line, nops, 3, 3));
            op = OP_CVTPACK;
            in->d[0] = DST(0); in->s[0] = SRC(1, T_F32); in->s[1] = SRC(2, T_F32);
        } else {
            CK(need(d, line, nops, 2, 2));
            op = OP_CVT;
            in->d[0] = DST(0); in->s[0] = SRC(1, mo.types[1]);
        }
    } else if (!strcmp(base, "bra")) {
        CK(need(d, line, nops, 1, 1));
        op = OP_BRA;
        if (ops[0].kind != O_SYM) return perr(d->err, d->errlen, line, "branch target expected");
        GROW(d->fix, d->nfix, d->capfix, 64);
        d->fix[d->nfix++] = (dfix){ d->ncode - 1, ops[0].sym, ops[0].symlen, line };
    } else if (!strcmp(base, "ret")) { op = OP_RET; }
    else if (!strcmp(base, "exit")) { op = OP_EXIT; }
    else if (!strcmp(base, "trap") || !strcmp(base, "brkpt")) { op = OP_TRAP; }
    else if (!strcmp(base, "membar") || !strcmp(base, "fence") || !strcmp(base, "nanosleep") ||
             !strcmp(base, "prefetch") || !strcmp(base, "prefetchu") || !strcmp(base, "pmevent") ||
             !strcmp(base, "griddepcontrol") || !strcmp(base, "discard") ||
             !strcmp(base, "applypriority") || !strcmp(base, "createpolicy") ||
             !strcmp(base, "setmaxnreg")) {
        op = OP_NOP;
        if (!strcmp(base, "createpolicy") && nops >= 1 && ops[0].kind == O_REG) {
            /* cache policy handles: give the destination a value */
            op = OP_MOV; in->t = T_U64; in->d[0] = ops[0].reg;
            int s = const_slot(d, 0); if (s < 0) return HX_ERR_NOMEM; in->s[0] = s;
        }
    } else if (!strcmp(base, "bar") || !strcmp(base, "barrier")) {
        int iswarp = opt.len >= 8 && strstr(base, "bar") && memmem(opt.s, (size_t)opt.len, ".warp", 5);
        int iscluster = memmem(opt.s, (size_t)opt.len, ".cluster", 8) != NULL;
        if (iswarp || iscluster) { op = OP_NOP; }
        else if (mo.red) {
            op = OP_BARRED;
            CK(need(d, line, nops, 3, 4));
            in->sub = (uint8_t)mo.aop;   /* A_AND / A_OR / 10 = popc */
            if (t == T_PRED) in->d[0] = PRD(0); else in->d[0] = DST(0);
            in->s[0] = SRC(1, T_U32);
            if (nops == 4) { in->s[1] = SRC(2, T_U32); in->p[0] = PRD(3); in->p[1] = ops[3].neg; }
            else { in->p[0] = PRD(2); in->p[1] = ops[2].neg; }
        } else {
            op = mo.arrive ? OP_BARARRIVE : OP_BAR;
            if (nops >= 1) in->s[0] = SRC(0, T_U32);
            else { int s = const_slot(d, 0); if (s < 0) return HX_ERR_NOMEM; in->s[0] = s; }
            if (nops >= 2) in->s[1] = SRC(1, T_U32);
        }
    } else if (!strcmp(base, "atom") || !strcmp(base, "red")) {
        int isred = base[0] == 'r';
        op = OP_ATOM;
        if (!mo.has_aop) return perr(d->err, d->errlen, line, "atom without an operation");
        if (mo.vec != 1) { op = OP_UNSUP; goto done; }
        in->sub = (uint8_t)mo.aop;
        in->sp = (uint8_t)(mo.space >= 0 ? mo.space : SP_GENERIC);
        int space;
        if (isred) {
            CK(need(d, line, nops, 2, 2));
            CK(set_addr(d, &ops[0], in, &space));
            in->s[0] = SRC(1, t);
        } else {
            CK(need(d, line, nops, 3, 4));
            in->d[0] = DST(0);
            CK(set_addr(d, &ops[1], in, &space));
            in->s[0] = SRC(2, t);
            if (nops == 4) in->s[1] = SRC(3, t);
            if (mo.aop == A_CAS && nops != 4) return perr(d->err, d->errlen, line, "cas needs 4 operands");
        }
    } else if (!strcmp(base, "shfl")) {
        op = OP_SHFL;
        if (mo.mode < 0) return perr(d->err, d->errlen, line, "shfl without a mode");
        in->sub = (uint8_t)mo.mode;
        CK(need(d, line, nops, 4, 5));
        in->d[0] = DST(0); in->p[0] = ops[0].reg2;
        in->s[0] = SRC(1, T_U32); in->s[1] = SRC(2, T_U32); in->s[2] = SRC(3, T_U32);
        if (nops == 5) in->s[3] = SRC(4, T_U32);
    } else if (!strcmp(base, "vote")) {
        op = OP_VOTE;
        if (mo.mode < 0) return perr(d->err, d->errlen, line, "vote without a mode");
        in->sub = (uint8_t)mo.mode;
        CK(need(d, line, nops, 2, 3));
        if (mo.mode == V_BALLOT) in->d[0] = DST(0); else in->d[0] = PRD(0);
        in->p[0] = PRD(1); in->p[1] = ops[1].neg;
        if (nops == 3) in->s[0] = SRC(2, T_U32);
    } else if (!strcmp(base, "match")) {
        op = OP_MATCH;
        in->sub = (uint8_t)(mo.mode < 0 ? 0 : mo.mode);
        CK(need(d, line, nops, 3, 3));
        in->d[0] = DST(0); in->p[0] = ops[0].reg2;
        in->s[0] = SRC(1, t); in->s[1] = SRC(2, T_U32);
    } else if (!strcmp(base, "redux")) {
        op = OP_REDUX;
        if (!mo.has_aop) return perr(d->err, d->errlen, line, "redux without an operation");
        in->sub = (uint8_t)mo.aop;
        CK(need(d, line, nops, 3, 3));
        in->d[0] = DST(0); in->s[0] = SRC(1, t); in->s[1] = SRC(2, T_U32);
    } else if (!strcmp(base, "activemask")) {
        op = OP_ACTIVEMASK;
        CK(need(d, line, nops, 1, 1));
        in->d[0] = DST(0);
    } else if (!strcmp(base, "elect")) {
        /* elect.sync d|p, membermask: leader = lowest active member */
        op = OP_MATCH; in->sub = 2;
        CK(need(d, line, nops, 2, 2));
        in->d[0] = ops[0].kind == O_SINK ? HX_NOREG : DST(0); in->p[0] = ops[0].reg2;
        in->s[1] = SRC(1, T_U32);
    } else if (!strcmp(base, "mma")) {
        /* mma.sync.aligned.<shape>.row.col.dtype.atype.btype.ctype D, A, B, C */
        op = OP_MMA;
        int shape = memmem(opt.s, (size_t)opt.len, ".m16n8k16", 9) ? 1
                  : memmem(opt.s, (size_t)opt.len, ".m16n8k8", 8) ? 2
                  : memmem(opt.s, (size_t)opt.len, ".m16n8k4", 8) ? 3 : 0;
        int rowcol = memmem(opt.s, (size_t)opt.len, ".row.col", 8) != NULL;
        int tf32 = memmem(opt.s, (size_t)opt.len, ".tf32", 5) != NULL;
        if (!shape || !rowcol || mo.ntypes < 4 || nops != 4 ||
            !(mo.types[1] == T_F16 || mo.types[1] == T_BF16 || tf32) ||
            !(mo.types[0] == T_F32 || mo.types[0] == T_F16) || (shape == 3 && !tf32) ||
            (tf32 && shape == 1)) {
            op = OP_UNSUP;
            goto done;
        }
        for (int i = 0; i < 4; i++)
            if (ops[i].kind != O_VEC) return perr(d->err, d->errlen, line, "mma operands are vectors");
        int na = tf32 ? (shape == 2 ? 4 : 2) : (shape == 1 ? 4 : 2);
        int nb = tf32 ? (shape == 2 ? 2 : 1) : (shape == 1 ? 2 : 1);
        int nc = mo.types[0] == T_F32 ? 4 : 2;
        if (ops[0].nvec != nc || ops[1].nvec != na || ops[2].nvec != nb || ops[3].nvec != nc)
            return perr(d->err, d->errlen, line, "mma fragment sizes do not match the shape");
        in->sub = (uint8_t)shape;
        in->t = (uint8_t)(tf32 ? T_F32 : mo.types[1]);
        in->t2 = (uint8_t)mo.types[0];
        for (int i = 0; i < nc; i++) {
            if (ops[0].vkind[i] != O_REG || ops[3].vkind[i] != O_REG)
                return perr(d->err, d->errlen, line, "mma accumulators must be registers");
            in->d[i] = ops[0].vslot[i];
            in->x[2 + i] = ops[3].vslot[i];
        }
        for (int i = 0; i < na; i++) in->s[i] = ops[1].vslot[i];
        for (int i = 0; i < nb; i++) in->x[i] = ops[2].vslot[i];
        in->vec = (uint8_t)na;
        in->imm = (uint32_t)nb;
        in->key = (uint16_t)HX_KEY(OP_MMA, T_NONE);
        in->op = OP_MMA;
        return HX_OK;
    } else if (!strcmp(base, "ldmatrix")) {
        /* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 {r..}, [addr] */
        op = OP_LDMATRIX;
        int nm = memmem(opt.s, (size_t)opt.len, ".x4", 3) ? 4 : memmem(opt.s, (size_t)opt.len, ".x2", 3) ? 2 : 1;
        if (!memmem(opt.s, (size_t)opt.len, ".m8n8", 5) || nops != 2 || ops[0].kind != O_VEC ||
            ops[0].nvec != nm) {
            op = OP_UNSUP;
            goto done;
        }
        int space;
        CK(set_addr(d, &ops[1], in, &space));
        in->sp = (uint8_t)(mo.space >= 0 ? mo.space : SP_GENERIC);
        for (int i = 0; i < nm; i++) in->d[i] = ops[0].vslot[i];
        in->vec = (uint8_t)nm;
        in->sub = memmem(opt.s, (size_t)opt.len, ".trans", 6) != NULL;
        in->t = T_NONE;
    } else if (!strcmp(base, "cp")) {
        /* cp.async.{ca,cg}.shared.global [dst], [src], size[, src-size]:
         * done at once, so commit/wait are no-ops */
        if (memmem(opt.s, (size_t)opt.len, ".bulk", 5) || !memmem(opt.s, (size_t)opt.len, "cp.async", 8)) {
            op = OP_UNSUP;
            goto done;
        }
        if (memmem(opt.s, (size_t)opt.len, "commit_group", 12) || memmem(opt.s, (size_t)opt.len, "wait_group", 10) ||
            memmem(opt.s, (size_t)opt.len, "wait_all", 8) || memmem(opt.s, (size_t)opt.len, "mbarrier", 8)) {
            op = memmem(opt.s, (size_t)opt.len, "mbarrier", 8) ? OP_UNSUP : OP_NOP;
            goto done;
        }
        if (nops < 3 || nops > 4 || ops[0].kind != O_ADDR || ops[1].kind != O_ADDR || ops[2].kind != O_IMM)
            return perr(d->err, d->errlen, line, "cp.async: [dst], [src], size expected");
        op = OP_CPASYNC;
        int space;
        CK(set_addr(d, &ops[0], in, &space));       /* shared destination */
        in->sp = SP_SHARED;
        if (ops[1].sym) return perr(d->err, d->errlen, line, "cp.async source must be a register address");
        in->s[1] = ops[1].base;
        in->x[0] = (int32_t)ops[1].off;
        in->imm = (uint32_t)ops[2].iv;
        if (in->imm != 4 && in->imm != 8 && in->imm != 16)
            return perr(d->err, d->errlen, line, "cp.async size must be 4, 8 or 16");
        if (nops == 4) in->s[2] = SRC(3, T_U32);
        in->t = T_NONE;
    } else if (!strcmp(base, "testp")) {
        op = OP_TESTP;
        CK(need(d, line, nops, 2, 2));
        in->sub = (uint8_t)(mo.mode < 0 ? 0 : mo.mode);
        in->d[0] = PRD(0); in->s[0] = SRC(1, t);
    } else {
        /* arithmetic with uniform operand shapes */
        static const struct { const char *n; int op, nsrc; } ar[] = {
            {"add", OP_ADD, 2}, {"sub", OP_SUB, 2}, {"mul", OP_MUL, 2}, {"mad", OP_MAD, 3},
            {"mul24", OP_MUL24, 2}, {"mad24", OP_MAD24, 3}, {"sad", OP_SAD, 3},
            {"div", OP_DIV, 2}, {"rem", OP_REM, 2}, {"abs", OP_ABS, 1}, {"neg", OP_NEG, 1},
            {"min", OP_MIN, 2}, {"max", OP_MAX, 2}, {"and", OP_AND, 2}, {"or", OP_OR, 2},
            {"xor", OP_XOR, 2}, {"not", OP_NOT, 1}, {"cnot", OP_CNOT, 1}, {"lop3", OP_LOP3, 3},
            {"shl", OP_SHL, 2}, {"shr", OP_SHR, 2}, {"shf", OP_SHF_L, 3}, {"bfe", OP_BFE, 3},
            {"bfi", OP_BFI, 4}, {"brev", OP_BREV, 1}, {"clz", OP_CLZ, 1}, {"popc", OP_POPC, 1},
            {"bfind", OP_BFIND, 1}, {"dp4a", OP_DP4A, 3}, {"dp2a", OP_DP2A, 3},
            {"fma", OP_FMA, 3}, {"rcp", OP_RCP, 1}, {"sqrt", OP_SQRT, 1}, {"rsqrt", OP_RSQRT, 1},
            {"ex2", OP_EX2, 1}, {"lg2", OP_LG2, 1}, {"sin", OP_SIN, 1}, {"cos", OP_COS, 1},
            {"tanh", OP_TANH, 1}, {"copysign", OP_COPYSIGN, 2}, {"prmt", OP_PRMT, 3},
            {"addc", OP_ADD, 2}, {"subc", OP_SUB, 2}, {"madc", OP_MAD, 3},
            {"bmsk", OP_BMSK, 2}, {"szext", OP_SZEXT, 2},
        };
        /* carry chains: the CC.CF flag is a hidden predicate */
        int arith = !strcmp(base, "add") || !strcmp(base, "sub") || !strcmp(base, "mad");
        int ccout = arith && memmem(opt.s, (size_t)opt.len, ".cc", 3) != NULL;
        int ccin = !strcmp(base, "addc") || !strcmp(base, "subc") || !strcmp(base, "madc");
        if (ccin) ccout = memmem(opt.s, (size_t)opt.len, ".cc", 3) != NULL;
        if (ccout || ccin) {
            int xop = (base[0] == 'a') ? OP_ADDX : (base[0] == 's') ? OP_SUBX : OP_MADX;
            int nsrc = xop == OP_MADX ? 3 : 2;
            CK(need(d, line, nops, 1 + nsrc, 1 + nsrc));
            if (!(t == T_U32 || t == T_S32 || t == T_U64 || t == T_S64))
                return perr(d->err, d->errlen, line, "carry arithmetic needs a 32/64-bit integer type");
            if (d->f->cc_pred < 0) d->f->cc_pred = d->npreds++;
            op = xop;
            in->t = (uint8_t)unsigned_of(t);
            in->d[0] = DST(0);
            for (int i = 0; i < nsrc; i++) in->s[i] = SRC(1 + i, t);
            in->p[0] = d->f->cc_pred;
            in->imm = (uint32_t)(ccin | (ccout << 1));
            in->sub = (uint8_t)(mo.hi ? 1 : 0);
            in->key = (uint16_t)HX_KEY(op, in->t);
            in->op = (uint8_t)op;
            return HX_OK;
        }
        int k = -1;
        for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++)
            if (!strcmp(base, ar[i].n)) { k = (int)i; break; }
        if (k < 0) {
            /* not implemented (mma, ldmatrix, cp.async, tex, ...): fails
             * the launch if it is executed, naming the instruction */
            op = OP_UNSUP;
            goto done;
        }
        op = ar[k].op;
        int nsrc = ar[k].nsrc;
        if (op == OP_SHF_L) {
            if (memmem(opt.s, (size_t)opt.len, ".r.", 3)) op = OP_SHF_R;
        }
        if (op == OP_MUL || op == OP_MAD) {
            if (is_int_type(t)) {
                if (mo.hi) op = op == OP_MUL ? OP_MULHI : OP_MADHI;
                else if (mo.wide) op = op == OP_MUL ? OP_MULWIDE : OP_MADWIDE;
            } else if (op == OP_MAD) op = OP_FMA;
        }
        if (op == OP_MUL24 && mo.hi) return perr(d->err, d->errlen, line, "mul24.hi is not supported");
        if (op == OP_DP4A || op == OP_DP2A) {
            if (mo.ntypes < 2) return perr(d->err, d->errlen, line, "dp4a needs two types");
            in->t2 = (uint8_t)mo.types[1];
            if (op == OP_DP2A) in->imm = mo.hi ? 1 : 0;
        }
        if (op == OP_BFIND && mo.shamt) in->sub = 1;
        if (op == OP_PRMT) in->sub = (uint8_t)(mo.mode < 0 ? 0 : mo.mode);
        if (op == OP_LOP3) {
            CK(need(d, line, nops, 5, 5));
            if (ops[4].kind != O_IMM) return perr(d->err, d->errlen, line, "lop3 needs an immediate LUT");
            in->imm = (uint32_t)ops[4].iv & 0xff;
            nops = 4;
        }
        if (t == T_PRED && (op == OP_AND || op == OP_OR || op == OP_XOR || op == OP_NOT)) {
            CK(need(d, line, nops, 1 + nsrc, 1 + nsrc));
            in->d[0] = PRD(0);
            in->p[0] = PRD(1); in->imm = ops[1].neg;
            if (nsrc == 2) { in->p[1] = PRD(2); in->imm |= (uint32_t)ops[2].neg << 1; }
            goto done;
        }
        CK(need(d, line, nops, 1 + nsrc, 1 + nsrc));
        in->d[0] = DST(0);
        for (int i = 0; i < nsrc; i++) {
            int ty = t;
            if ((op == OP_SHL || op == OP_SHR) && i == 1) ty = T_U32;
            if ((op == OP_BFE && i > 0) || (op == OP_BFI && i > 1)) ty = T_U32;
            if ((op == OP_SHF_L || op == OP_SHF_R || op == OP_BMSK || op == OP_SZEXT) && i > 0) ty = T_U32;
            if (op == OP_MULWIDE || op == OP_MADWIDE) ty = (i == 2) ? t : t;
            if ((op == OP_DP4A || op == OP_DP2A) && i == 1) ty = mo.types[1];
            in->s[i] = SRC(1 + i, ty);
        }
        /* mad.wide: the addend is the wide type; read it as 64-bit */
    }
done:
    if (op == OP_UNSUP) {
        /* keep the name for the error; nothing else to resolve */
    }
    in->op = (uint8_t)op;
    /* sign-agnostic integer ops share one handler per width */
    int kt = in->t;
    /* add.sat.s32 / sub.sat.s32 keep their signed handler */
    int keep = (op == OP_ADD || op == OP_SUB) && (in->flags & F_SAT) && kt == T_S32;
    if (!keep) switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_AND: case OP_OR:
    case OP_XOR: case OP_NOT: case OP_CNOT: case OP_SHL: case OP_MOV: case OP_NEG:
    case OP_POPC: case OP_CLZ: case OP_BREV: case OP_LOP3: case OP_SELP: case OP_PACK:
    case OP_UNPACK: case OP_BFI: case OP_ST: case OP_PRMT:
        kt = unsigned_of(kt);
        break;
    default: break;
    }
    in->t = (uint8_t)kt;
    in->key = (uint16_t)HX_KEY(op, kt);
    return HX_OK;
}

static hx_status decode_call(dctx *d, hx_insn *in, int line)
{
    ptx_lex *L = &d->L;
    hx_callsite cs; memset(&cs, 0, sizeof cs);
    /* (rets), target, (args) [, prototype] ; */
    if (ptx_ispunct(&L->cur, '(')) {
        ptx_next(L);
        while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ')')) {
            ptx_tok a = ptx_next(L);
            if (ptx_ispunct(&a, ',')) continue;
            int num; dsym *y = find_sym(d, a.s, a.len, &num);
            if (!y || y->kind != DS_LPARAM || cs.nrets >= 32)
                return perr(d->err, d->errlen, a.line, "bad call return operand '%.*s'", a.len, a.s);
            cs.ret_off[cs.nrets++] = y->off;
        }
        ptx_next(L);
        if (ptx_ispunct(&L->cur, ',')) ptx_next(L);
    }
    ptx_tok tgt = ptx_next(L);
    if (tgt.kind != TK_WORD) return perr(d->err, d->errlen, tgt.line, "call target expected");
    if (ptx_ispunct(&L->cur, ',')) {
        ptx_next(L);
        if (ptx_ispunct(&L->cur, '(')) {
            ptx_next(L);
            while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ')')) {
                ptx_tok a = ptx_next(L);
                if (ptx_ispunct(&a, ',')) continue;
                int num; dsym *y = find_sym(d, a.s, a.len, &num);
                if (!y || y->kind != DS_LPARAM || cs.nargs >= 32)
                    return perr(d->err, d->errlen, a.line, "bad call argument '%.*s'", a.len, a.s);
                cs.arg_off[cs.nargs++] = y->off;
            }
            ptx_next(L);
        }
        if (ptx_ispunct(&L->cur, ',')) { ptx_next(L); ptx_next(L); }
    }
    if (!ptx_ispunct(&L->cur, ';')) return perr(d->err, d->errlen, L->cur.line, "';' expected after call");
    ptx_next(L);
    int fi = name_find(d->m->fhash, tgt.s, tgt.len);
    if (fi < 0) {
        /* indirect calls through a register are not supported */
        in->op = OP_UNSUP;
        in->key = (uint16_t)HX_KEY(OP_UNSUP, T_NONE);
        return HX_OK;
    }
    hx_func *callee = d->m->funcs[fi];
    GROW(d->calls, d->ncalls, d->capcalls, 8);
    in->aux = d->ncalls;
    d->calls[d->ncalls++] = cs;
    in->target = fi;
    in->op = OP_CALL;
    if (callee->is_extern) {
        if (callee->builtin) in->op = (uint8_t)callee->builtin;
        else in->op = OP_UNSUP;
    } else {
        d->f->has_calls = 1;
        int dup = 0;
        for (int i = 0; i < d->ncallees; i++) if (d->callees[i] == fi) dup = 1;
        if (!dup) {
            GROW(d->callees, d->ncallees, d->capcallees, 8);
            d->callees[d->ncallees++] = fi;
        }
    }
    in->key = (uint16_t)HX_KEY(in->op, T_NONE);
    (void)line;
    return HX_OK;
}

/* Parse the header: [.visible|.weak|.extern] .entry|.func [(rets)] name
 * (params) [directives] */
static hx_status decode_header(dctx *d)
{
    ptx_lex *L = &d->L;
    hx_func *f = d->f;
    while (L->cur.kind == TK_WORD && (ptx_is(&L->cur, ".visible") || ptx_is(&L->cur, ".weak") ||
                                      ptx_is(&L->cur, ".extern") || ptx_is(&L->cur, ".common")))
        ptx_next(L);
    ptx_tok k = ptx_next(L);
    if (!ptx_is(&k, ".entry") && !ptx_is(&k, ".func"))
        return perr(d->err, d->errlen, k.line, "function header expected");
    if (!f->is_entry && ptx_ispunct(&L->cur, '(')) {
        ptx_next(L);
        /* filled in place so that an error part-way frees what was parsed */
        f->rets = calloc(32, sizeof *f->rets);
        if (!f->rets) return HX_ERR_NOMEM;
        while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ')')) {
            ptx_tok p = ptx_next(L);
            if (ptx_ispunct(&p, ',')) continue;
            if (!ptx_is(&p, ".param") && !ptx_is(&p, ".reg"))
                return perr(d->err, d->errlen, p.line, ".param expected in return list");
            if (ptx_is(&p, ".reg"))
                return perr(d->err, d->errlen, p.line, ".reg return values are not supported");
            if (f->nrets >= 32) return perr(d->err, d->errlen, p.line, "too many return values");
            CK(parse_param_decl(d, DS_LPARAM, &f->rets[f->nrets]));
            f->nrets++;
        }
        ptx_next(L);
    }
    ptx_next(L);   /* name */
    if (ptx_ispunct(&L->cur, '(')) {
        ptx_next(L);
        int cap = 8, n = 0;
        hx_param *ps = calloc((size_t)cap, sizeof *ps);
        if (!ps) return HX_ERR_NOMEM;
        f->params = ps;
        while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ')')) {
            ptx_tok p = ptx_next(L);
            if (ptx_ispunct(&p, ',')) continue;
            if (!ptx_is(&p, ".param") && !ptx_is(&p, ".reg"))
                return perr(d->err, d->errlen, p.line, ".param expected in parameter list");
            if (ptx_is(&p, ".reg"))
                return perr(d->err, d->errlen, p.line, ".reg parameters are not supported");
            if (n == cap) {
                cap *= 2;
                hx_param *np = realloc(ps, (size_t)cap * sizeof *ps);
                if (!np) return HX_ERR_NOMEM;
                ps = np; f->params = ps;
            }
            if (n >= 4096) return perr(d->err, d->errlen, p.line, "too many parameters");
            CK(parse_param_decl(d, f->is_entry ? DS_KPARAM : DS_LPARAM, &ps[n]));
            n++;
            f->nparams = n;
        }
        ptx_next(L);
    }
    f->max_threads = 1024;
    while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, '{')) {
        ptx_tok t = ptx_next(L);
        if (ptx_is(&t, ".maxntid") || ptx_is(&t, ".reqntid")) {
            int64_t prod = 1;
            for (;;) {
                ptx_tok n = ptx_next(L);
                int kk; int64_t iv; double dv;
                if (n.kind != TK_WORD || parse_number(n.s, n.len, &kk, &iv, &dv) || kk != NUM_INT ||
                    iv <= 0 || iv > 1024)
                    return perr(d->err, d->errlen, n.line, "bad %.*s", t.len, t.s);
                prod *= iv;
                if (!ptx_ispunct(&L->cur, ',')) break;
                ptx_next(L);
            }
            if (prod < f->max_threads) f->max_threads = (int)prod;
        } else if (ptx_is(&t, ".pragma")) {
            ptx_next(L);
            if (ptx_ispunct(&L->cur, ';')) ptx_next(L);
        } else if (t.kind == TK_EOF) break;
        /* .minnctapersm N, .maxnreg N, .noreturn, cluster directives: skip */
    }
    if (!ptx_ispunct(&L->cur, '{'))
        return perr(d->err, d->errlen, L->cur.line, "function body expected");
    ptx_next(L);
    d->level = 1;
    return HX_OK;
}

/* Instructions with a guard: "@%p1 bra L;" - the lexer gives '@' as a
 * punct token; decode_body sees it before the word.  Handle it here. */
static hx_status decode_body_guarded(dctx *d)
{
    ptx_lex *L = &d->L;
    for (;;) {
        ptx_tok t = L->cur;
        if (ptx_ispunct(&t, '@')) {
            ptx_next(L);
            int neg = 0;
            if (ptx_ispunct(&L->cur, '!')) { neg = 1; ptx_next(L); }
            ptx_tok p = ptx_next(L);
            int num;
            dsym *y = p.kind == TK_WORD ? find_sym(d, p.s, p.len, &num) : NULL;
            if (!y || !y->is_pred)
                return perr(d->err, d->errlen, p.line, "predicate expected after '@'");
            int pr = y->base + (y->kind == DS_REGGRP ? num : 0);
            ptx_tok op = ptx_next(L);
            if (op.kind != TK_WORD) return perr(d->err, d->errlen, op.line, "instruction expected");
            CK(decode_insn(d, op, pr, neg));
            continue;
        }
        if (ptx_ispunct(&t, '}') && d->level == 1) {
            ptx_next(L);
            return HX_OK;
        }
        /* one statement or scope token via decode_body's logic */
        if (t.kind == TK_EOF) return perr(d->err, d->errlen, t.line, "unexpected end of function");
        if (ptx_ispunct(&t, '{') || ptx_ispunct(&t, '}') || ptx_ispunct(&t, ';')) {
            ptx_next(L);
            if (ptx_ispunct(&t, '{')) d->level++;
            else if (ptx_ispunct(&t, '}')) {
                while (d->nsyms > 0 && d->syms[d->nsyms - 1].level >= d->level) {
                    dsym *y = &d->syms[d->nsyms - 1];
                    if (y->kind == DS_LPARAM && y->level > 1 && y->off < d->lparam_top)
                        d->lparam_top = y->off;
                    d->nsyms--;
                }
                d->level--;
            }
            continue;
        }
        if (t.kind != TK_WORD) return perr(d->err, d->errlen, t.line, "unexpected '%.*s'", t.len, t.s);
        ptx_next(L);
        if (ptx_ispunct(&L->cur, ':') && t.s[0] != '.') {
            ptx_next(L);
            dlabel *lb = NULL;
            HASH_FIND(hh, d->labels, t.s, (unsigned)t.len, lb);
            if (lb) return perr(d->err, d->errlen, t.line, "duplicate label %.*s", t.len, t.s);
            lb = calloc(1, sizeof *lb);
            if (!lb) return HX_ERR_NOMEM;
            lb->s = t.s; lb->len = t.len; lb->pc = d->ncode;
            HASH_ADD_KEYPTR(hh, d->labels, lb->s, (unsigned)lb->len, lb);
            continue;
        }
        if (t.s[0] == '.') {
            if (ptx_is(&t, ".reg")) { CK(parse_reg_decl(d, NULL, 0)); continue; }
            if (t.len > 5 && memcmp(t.s, ".reg.", 5) == 0) {
                CK(parse_reg_decl(d, t.s + 4, t.len - 4));
                continue;
            }
            if (ptx_is(&t, ".param")) {
                CK(parse_param_decl(d, DS_LPARAM, NULL));
                if (!ptx_ispunct(&L->cur, ';')) return perr(d->err, d->errlen, L->cur.line, "';' expected");
                ptx_next(L);
                continue;
            }
            if (ptx_is(&t, ".local")) { CK(parse_body_var(d, SP_LOCAL)); continue; }
            if (ptx_is(&t, ".shared")) { CK(parse_body_var(d, SP_SHARED)); continue; }
            if (ptx_is(&t, ".global")) { CK(parse_body_var(d, SP_GLOBAL)); continue; }
            if (ptx_is(&t, ".const")) { CK(parse_body_var(d, SP_CONST)); continue; }
            if (ptx_is(&t, ".callprototype")) {
                while (L->cur.kind != TK_EOF && !ptx_ispunct(&L->cur, ';')) ptx_next(L);
                ptx_next(L);
                continue;
            }
            if (ptx_is(&t, ".loc") || ptx_is(&t, ".file") || ptx_is(&t, ".pragma") ||
                ptx_is(&t, ".section") || ptx_is(&t, ".maxnreg") || ptx_is(&t, ".maxntid") ||
                ptx_is(&t, ".reqntid") || ptx_is(&t, ".minnctapersm") || ptx_is(&t, ".alias")) {
                skip_line(L);
                if (ptx_ispunct(&L->cur, ';')) ptx_next(L);
                continue;
            }
            return perr(d->err, d->errlen, t.line, "unknown directive '%.*s'", t.len, t.s);
        }
        CK(decode_insn(d, t, HX_NOREG, 0));
    }
}

static void dctx_free(dctx *d)
{
    dlabel *lb, *tmp;
    HASH_ITER(hh, d->labels, lb, tmp) { HASH_DEL(d->labels, lb); free(lb); }
    free(d->syms); free(d->cv); free(d->cs); free(d->code); free(d->fix);
    free(d->callees); free(d->svars); free(d->calls);
}

static void func_free_decoded(hx_func *f)
{
    for (int i = 0; i < f->nparams; i++) free(f->params[i].name);
    for (int i = 0; i < f->nrets; i++) free(f->rets[i].name);
    free(f->params); free(f->rets);
    f->params = f->rets = NULL; f->nparams = f->nrets = 0;
    free(f->const_vals); free(f->const_slot); free(f->code); free(f->calls);
    free(f->callees); free(f->smem_layout); free(f->svar_refs);
    f->const_vals = NULL; f->const_slot = NULL; f->code = NULL; f->calls = NULL;
    f->callees = NULL; f->smem_layout = NULL; f->svar_refs = NULL;
}

static void collect_svars(hx_module *m, hx_func *f, char *seen_f, char *seen_v, int *any_dyn)
{
    if (seen_f[f->index]) return;
    seen_f[f->index] = 1;
    for (int i = 0; i < f->nsvar_refs; i++) {
        seen_v[f->svar_refs[i]] = 1;
        if (m->vars[f->svar_refs[i]]->is_extern) *any_dyn = 1;
    }
    for (int i = 0; i < f->ncallees; i++)
        collect_svars(m, m->funcs[f->callees[i]], seen_f, seen_v, any_dyn);
}

static hx_status layout_shared(hx_module *m, hx_func *f)
{
    char *seen_f = calloc((size_t)m->nfuncs + 1, 1);
    char *seen_v = calloc((size_t)m->nvars + 1, 1);
    f->smem_layout = malloc(((size_t)m->nvars + 1) * sizeof *f->smem_layout);
    if (!seen_f || !seen_v || !f->smem_layout) {
        free(seen_f); free(seen_v); return HX_ERR_NOMEM;
    }
    int any_dyn = 0;
    collect_svars(m, f, seen_f, seen_v, &any_dyn);
    int64_t off = 0;
    for (int i = 0; i < m->nvars; i++) {
        f->smem_layout[i] = -1;
        if (!seen_v[i] || m->vars[i]->is_extern) continue;
        off = align_up(off, (int64_t)(m->vars[i]->align ? m->vars[i]->align : 1));
        f->smem_layout[i] = off;
        off += (int64_t)m->vars[i]->size;
    }
    f->static_smem = (size_t)off;
    int64_t dyn = align_up(off, 16);
    for (int i = 0; i < m->nvars; i++)
        if (seen_v[i] && m->vars[i]->is_extern) {
            int64_t a = (int64_t)(m->vars[i]->align > 16 ? m->vars[i]->align : 16);
            f->smem_layout[i] = align_up(dyn, a);
        }
    f->smem_layout_n = m->nvars;
    f->uses_dyn_smem = any_dyn;
    free(seen_f); free(seen_v);
    return HX_OK;
}

hx_status hx_ptx_decode(hx_module *m, hx_func *f, char *err, size_t errlen)
{
    if (f->decoded) return HX_OK;
    if (f->decode_failed) {
        snprintf(err, errlen, "%s: an earlier decode failed", f->name);
        return HX_ERR_PTX;
    }
    if (f->decoding) return HX_OK;       /* recursion: caller finishes us */
    if (f->is_extern) {
        snprintf(err, errlen, "%s has no body in this module", f->name);
        return HX_ERR_NOT_FOUND;
    }
    f->decoding = 1;
    dctx d; memset(&d, 0, sizeof d);
    d.m = m; d.f = f; d.err = err; d.errlen = errlen;
    for (int i = 0; i < SR_COUNT; i++) f->sreg_slot[i] = -1;
    f->cc_pred = -1;
    const char *end = f->end_pos ? f->end_pos : m->text + strlen(m->text);
    ptx_lex_init(&d.L, f->hdr_pos, end, f->hdr_line);
    hx_status st = decode_header(&d);
    if (!st) st = decode_body_guarded(&d);
    if (!st) {
        /* a final ret so execution never runs off the end */
        hx_insn *in = new_insn(&d);
        if (!in) st = HX_ERR_NOMEM;
        else { in->op = OP_RET; in->key = HX_KEY(OP_RET, T_NONE); in->line = d.L.line; }
    }
    for (int i = 0; !st && i < d.nfix; i++) {
        dlabel *lb = NULL;
        HASH_FIND(hh, d.labels, d.fix[i].s, (unsigned)d.fix[i].len, lb);
        if (!lb) st = perr(err, errlen, d.fix[i].line, "unknown label '%.*s'", d.fix[i].len, d.fix[i].s);
        else d.code[d.fix[i].pc].target = lb->pc;
    }
    for (int i = 0; !st && i < d.ncode; i++) {
        hx_insn *in = &d.code[i];
        int fl = in->t == T_F16 || in->t == T_F32 || in->t == T_F64 || in->t == T_BF16;
        if ((in->flags & (F_FTZ | F_SAT)) && in->t == T_F32 && in->op != OP_CVT && in->op != OP_SETP &&
            in->op != OP_LD && in->op != OP_ST)
            in->slow |= SLOW_FTZSAT;
        if (in->rnd >= R_RZ && in->rnd <= R_RP && fl && in->op != OP_CVT)
            in->slow |= SLOW_RMODE;
    }
    if (!st) {
        f->code = d.code; d.code = NULL;
        f->ncode = d.ncode;
        f->nslots = d.nslots;
        f->npreds = d.npreds;
        f->const_vals = d.cv; f->const_slot = d.cs; f->nconsts = d.nc;
        d.cv = NULL; d.cs = NULL;
        f->calls = d.calls; f->ncalls = d.ncalls; d.calls = NULL;
        f->callees = d.callees; f->ncallees = d.ncallees; d.callees = NULL;
        f->svar_refs = d.svars; f->nsvar_refs = d.nsvars; d.svars = NULL;
        f->lparam_bytes = (size_t)align_up(d.lparam_max, 16);
        f->local_bytes = (size_t)align_up(d.local_top, 16);
        if (hx_cfg_reconvergence(f, err, errlen)) st = HX_ERR_PTX;
    }
    dctx_free(&d);
    /* decode callees */
    for (int i = 0; !st && i < f->ncallees; i++) {
        hx_func *c = m->funcs[f->callees[i]];
        st = hx_ptx_decode(m, c, err, errlen);
    }
    if (!st && f->is_entry) st = layout_shared(m, f);
    f->decoding = 0;
    if (st) {
        func_free_decoded(f);
        f->decode_failed = 1;
        return st;
    }
    f->decoded = 1;
    return HX_OK;
}

void hx_ptx_free(hx_module *m)
{
    for (int i = 0; i < m->nfuncs; i++) {
        hx_func *f = m->funcs[i];
        func_free_decoded(f);
        free(f->name);
        free(f);
    }
    free(m->funcs);
    m->funcs = NULL; m->nfuncs = m->capfuncs = 0;
    for (int i = 0; i < m->nvars; i++) {
        hx_var *v = m->vars[i];
        if (v->storage) {
            tfl_mem_unregister(v->storage, TFL_MEM_MODULE_VAR);
            free(v->storage);
        }
        free(v->name);
        free(v);
    }
    free(m->vars);
    m->vars = NULL; m->nvars = m->capvars = 0;
    name_free(&m->fhash);
    name_free(&m->vhash);
}

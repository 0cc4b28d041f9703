/*
 * ptx_lex.h - a small tokenizer for PTX text, shared by the module indexer
 * and the function decoder (ptx_parse.c).
 *
 * Tokens: words (identifiers, opcodes with their dotted modifiers,
 * registers, numbers, directives: [A-Za-z0-9_$%.] plus "::" inside a word),
 * strings, and single punctuation characters.  Comments are skipped.  Each
 * token records its line and whether a newline preceded it (.loc and
 * similar line-oriented directives are skipped to the end of their line).
 */
#ifndef TFL_PTX_LEX_H
#define TFL_PTX_LEX_H

#include <stddef.h>
#include <string.h>

enum { TK_EOF, TK_WORD, TK_STR, TK_PUNCT };

typedef struct ptx_tok {
    int kind;
    const char *s;
    int len;
    int line;
    int nl;            /* a newline came before this token */
} ptx_tok;

typedef struct ptx_lex {
    const char *p, *end;
    int line;
    ptx_tok cur;       /* lookahead token */
} ptx_lex;

static inline int ptx_wordch(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%' ||
           c == '.';
}

static inline void ptx_lex_scan(ptx_lex *L)
{
    const char *p = L->p, *e = L->end;
    int nl = 0;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' ||
                         *p == '\f' || *p == '\v')) {
            if (*p == '\n') { L->line++; nl = 1; }
            p++;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '/') {
            while (p < e && *p != '\n') p++;
            continue;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '*') {
            p += 2;
            while (p + 1 < e && !(p[0] == '*' && p[1] == '/')) {
                if (*p == '\n') { L->line++; nl = 1; }
                p++;
            }
            p = (p + 1 < e) ? p + 2 : e;
            continue;
        }
        break;
    }
    ptx_tok *t = &L->cur;
    t->line = L->line;
    t->nl = nl;
    t->s = p;
    if (p >= e || *p == '\0') {
        t->kind = TK_EOF; t->len = 0; L->p = e; return;
    }
    if (ptx_wordch(*p)) {
        const char *q = p;
        for (;;) {
            while (q < e && ptx_wordch(*q)) q++;
            if (q + 2 < e && q[0] == ':' && q[1] == ':' && ptx_wordch(q[2])) {
                q += 2;
                continue;
            }
            break;
        }
        t->kind = TK_WORD; t->len = (int)(q - p); L->p = q; return;
    }
    if (*p == '"') {
        const char *q = p + 1;
        while (q < e && *q != '"' && *q != '\n') {
            if (*q == '\\' && q + 1 < e) q++;
            q++;
        }
        if (q < e && *q == '"') q++;
        t->kind = TK_STR; t->len = (int)(q - p); L->p = q; return;
    }
    t->kind = TK_PUNCT; t->len = 1; L->p = p + 1;
}

static inline void ptx_lex_init(ptx_lex *L, const char *p, const char *end,
                                int line)
{
    L->p = p; L->end = end; L->line = line;
    ptx_lex_scan(L);
}

static inline ptx_tok ptx_next(ptx_lex *L)
{
    ptx_tok t = L->cur;
    ptx_lex_scan(L);
    return t;
}

static inline int ptx_is(const ptx_tok *t, const char *w)
{
    size_t n = strlen(w);
    return t->kind != TK_EOF && (size_t)t->len == n && memcmp(t->s, w, n) == 0;
}

static inline int ptx_ispunct(const ptx_tok *t, char c)
{
    return t->kind == TK_PUNCT && t->s[0] == c;
}

#endif

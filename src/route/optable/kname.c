/*
 * kname.c - parse a demangled kernel name into base name, template
 * arguments and parameter types (kname.h).
 */
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"

#include <stdlib.h>
#include <string.h>

static void strip_all(char *s, const char *pat)
{
    size_t n = strlen(pat);
    char *p;
    while ((p = strstr(s, pat)) != NULL)
        memmove(p, p + n, strlen(p + n) + 1);
}

void tfl_kname_simplify(char *s)
{
    strip_all(s, "at::native::");
    strip_all(s, "(anonymous namespace)::");
    strip_all(s, "torch::headeronly::detail::");
    char *p;
    while ((p = strstr(s, "_INTERNAL_")) != NULL) {
        char *e = strstr(p, "::");
        if (!e)
            break;
        memmove(p, e + 2, strlen(e + 2) + 1);
    }
}

/* Split the top-level comma-separated list between open (at *s) and its
 * closing bracket.  Returns a pointer past the close, or NULL. */
static const char *split(const char *s, char close, const char **start, size_t *len,
                         int *count)
{
    int depth = 0, n = 0;
    const char *a = s + 1;
    for (const char *p = s + 1; *p; p++) {
        char c = *p;
        if (depth == 0 && (c == ',' || c == close)) {
            const char *b = a;
            size_t l = (size_t)(p - a);
            while (l && *b == ' ') { b++; l--; }
            while (l && b[l - 1] == ' ') l--;
            if (c == ',' || l || n) {       /* "()" has no parameters */
                if (n < TFL_KNAME_MAX) {
                    start[n] = b;
                    len[n] = l;
                }
                n++;
            }
            a = p + 1;
            if (c == close) {
                *count = n;
                return p + 1;
            }
            continue;
        }
        if (c == '<' || c == '(' || c == '{' || c == '[') depth++;
        else if (c == '>' || c == ')' || c == '}' || c == ']') {
            if (--depth < 0)
                return NULL;
        }
    }
    return NULL;
}

int tfl_kname_parse(const char *mangled, tfl_kname *k)
{
    memset(k, 0, sizeof *k);
    char *d = tfl_pt_demangle(mangled);
    if (!d)
        return -1;
    tfl_kname_simplify(d);
    k->text = d;
    const char *s = d;
    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    /* the function name ends at the first '<' or '(' outside brackets */
    const char *e = s;
    while (*e && *e != '<' && *e != '(')
        e++;
    k->name = s;
    k->name_len = (size_t)(e - s);
    k->base = s;
    for (const char *p = s; p + 1 < e; p++)
        if (p[0] == ':' && p[1] == ':')
            k->base = p + 2;
    k->base_len = (size_t)(e - k->base);
    if (*e == '<') {
        e = split(e, '>', k->targ, k->targ_len, &k->ntargs);
        if (!e) {
            tfl_kname_free(k);
            return -1;
        }
    }
    if (*e == '(' && !split(e, ')', k->param, k->param_len, &k->nparams)) {
        tfl_kname_free(k);
        return -1;
    }
    return 0;
}

void tfl_kname_free(tfl_kname *k)
{
    free(k->text);
    memset(k, 0, sizeof *k);
}

static int eq(const char *a, size_t alen, const char *s)
{
    return alen == strlen(s) && memcmp(a, s, alen) == 0;
}

static int starts(const char *a, size_t alen, const char *pre)
{
    size_t n = strlen(pre);
    return alen >= n && memcmp(a, pre, n) == 0;
}

int tfl_kname_is(const tfl_kname *k, const char *base)
{
    return k->base && eq(k->base, k->base_len, base);
}

int tfl_kname_qualified(const tfl_kname *k, const char *suffix)
{
    size_t n = strlen(suffix);
    if (!k->name || n > k->name_len)
        return 0;
    const char *p = k->name + k->name_len - n;
    return memcmp(p, suffix, n) == 0 &&
           (p == k->name || (p >= k->name + 2 && p[-1] == ':' && p[-2] == ':'));
}

static int stored(int i, int count)
{
    return i >= 0 && i < count && i < TFL_KNAME_MAX;
}

int tfl_kname_targ_is(const tfl_kname *k, int i, const char *s)
{
    return stored(i, k->ntargs) && eq(k->targ[i], k->targ_len[i], s);
}

int tfl_kname_targ_starts(const tfl_kname *k, int i, const char *prefix)
{
    return stored(i, k->ntargs) && starts(k->targ[i], k->targ_len[i], prefix);
}

int tfl_kname_find_targ(const tfl_kname *k, int from, const char *prefix)
{
    for (int i = from < 0 ? 0 : from; stored(i, k->ntargs); i++)
        if (starts(k->targ[i], k->targ_len[i], prefix))
            return i;
    return -1;
}

int tfl_kname_targ_dtype(const tfl_kname *k, int i, tfl_dtype *dt)
{
    return stored(i, k->ntargs) && tfl_pt_type_name(k->targ[i], k->targ_len[i], dt);
}

int tfl_kname_find_dtype(const tfl_kname *k, int from, tfl_dtype *dt)
{
    for (int i = from < 0 ? 0 : from; stored(i, k->ntargs); i++)
        if (tfl_pt_type_name(k->targ[i], k->targ_len[i], dt))
            return i;
    return -1;
}

int tfl_kname_targ_int(const tfl_kname *k, int i, long long *v)
{
    if (!stored(i, k->ntargs))
        return 0;
    const char *a = k->targ[i];
    size_t n = k->targ_len[i];
    if (eq(a, n, "true") || eq(a, n, "false")) {
        *v = a[0] == 't';
        return 1;
    }
    if (n && a[0] == '(') {                 /* "(unsigned char)3", "(c10::X)2" */
        const char *c = memchr(a, ')', n);
        if (!c)
            return 0;
        n -= (size_t)(c + 1 - a);
        a = c + 1;
    }
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, a, n);
    buf[n] = '\0';
    char *end;
    long long x = strtoll(buf, &end, 10);
    if (end == buf)
        return 0;
    while (*end == 'u' || *end == 'l' || *end == 'U' || *end == 'L')
        end++;
    if (*end)
        return 0;
    *v = x;
    return 1;
}

int tfl_kname_param_is(const tfl_kname *k, int i, const char *s)
{
    return stored(i, k->nparams) && eq(k->param[i], k->param_len[i], s);
}

int tfl_kname_param_starts(const tfl_kname *k, int i, const char *prefix)
{
    return stored(i, k->nparams) && starts(k->param[i], k->param_len[i], prefix);
}

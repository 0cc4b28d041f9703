/*
 * kname.c - parse a demangled kernel name into base name, template
 * arguments and parameter types, and the structural questions families ask
 * of it: an argument's dtype or constant value, its text without
 * library-versioning namespaces, a packed accessor parameter's rank
 * (kname.h).
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

int tfl_kname_mentions(const char *mangled, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(mangled, words[i]))
            return 1;
    return 0;
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

int tfl_kname_decimal(const char *s, size_t n)
{
    size_t i = n && s[0] == '-';
    if (i == n)
        return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

int tfl_kname_others_constant(const tfl_kname *k, const int *used, int nused)
{
    if (k->ntargs > TFL_KNAME_MAX)
        return 0;
    for (int i = 0; i < k->ntargs; i++) {
        int u = 0;
        for (int j = 0; j < nused; j++)
            u |= used[j] == i;
        long long v;
        if (!u && !tfl_kname_targ_int(k, i, &v))
            return 0;
    }
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

int tfl_kname_unversioned_copy(const char *s, size_t len, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        const char *p = s + i;
        size_t rest = len - i, skip = 0;
        if (rest >= 16 && strncmp(p, "at_cuda_detail::", 16) == 0)
            skip = 16;
        else if (rest >= 5 && strncmp(p, "__4::", 5) == 0)
            skip = 5;
        else if (rest > 8 && (strncmp(p, "THRUST_", 7) == 0 || strncmp(p, "_V_", 3) == 0) &&
                 i >= 8 && strncmp(p - 8, "thrust::", 8) == 0) {
            const char *e = memchr(p, ':', rest);
            if (e && (size_t)(e - s) + 1 < len && e[1] == ':')
                skip = (size_t)(e - p) + 2;
        }
        if (skip) {
            i += skip;
            continue;
        }
        if (o + 1 >= outlen)
            return 0;
        out[o++] = s[i++];
    }
    out[o] = 0;
    return 1;
}

int tfl_kname_targ_unversioned(const tfl_kname *k, int i, char *out, size_t outlen)
{
    return stored(i, k->ntargs) &&
           tfl_kname_unversioned_copy(k->targ[i], k->targ_len[i], out, outlen);
}

int tfl_kname_accessor_rank(const tfl_kname *k, int i, int index_bits)
{
    static const char pre[] = "GenericPackedTensorAccessor<";
    const char *index = index_bits == 32 ? "int" : index_bits == 64 ? "long" : NULL;
    if (!index || !tfl_kname_param_starts(k, i, pre))
        return 0;
    const char *a[8];
    size_t al[8];
    int n = tfl_pt_template_args(k->param[i] + sizeof pre - 2, a, al, 8);
    char buf[8];
    if (n != 6 || al[3] == 0 || al[3] >= sizeof buf || !eq(a[5], al[5], index))
        return 0;
    memcpy(buf, a[3], al[3]);
    buf[al[3]] = '\0';
    char *end;
    long r = strtol(buf, &end, 10);
    return (*end == '\0' || !strcmp(end, "ul")) && r >= 1 && r <= 25 ? (int)r : 0;
}

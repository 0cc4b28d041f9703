/* json.c - the little JSON writing `torchfl detect --json` needs. */
#include "cli/cli.h"

#include <string.h>

void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f); /* UTF-8 passes through */
        }
    }
    fputc('"', f);
}

void json_words(FILE *f, const char *words)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    char *save = NULL;
    int first = 1;
    fputc('[', f);
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        fputs(first ? "" : ", ", f);
        json_str(f, w);
        first = 0;
    }
    fputc(']', f);
}

void cli_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    double v = (double)n;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)n);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
}

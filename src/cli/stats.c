/*
 * stats.c - `torchfl stats FILE`: the op-statistics report as a table.
 *
 * Sorted so a backend author sees first what to implement next: the
 * unmapped kernels and host-executor fallbacks that cost most come first
 * (by time spent outside the backend), then natively run ops by time.
 * The file is the JSON that TORCHFL_STATS / torchfl_stats_dump() write
 * (src/route/stats.c); it is parsed with cJSON.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

typedef struct row {
    const char *family, *name;
    double calls, time_ns, native_ns, hostexec_ns, refused_calls;
} row;

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

/* Fallback cost first (what to implement next), then total time. */
static int by_cost(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    double fa = a->hostexec_ns + (a->refused_calls > 0 ? 1e18 : 0);
    double fb = b->hostexec_ns + (b->refused_calls > 0 ? 1e18 : 0);
    if (fa != fb)
        return fa < fb ? 1 : -1;
    return a->time_ns < b->time_ns ? 1 : a->time_ns > b->time_ns ? -1 : 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; }
            else buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

int cmd_stats(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("usage: torchfl stats FILE\n"
               "Print an op-statistics report (written by a run with TORCHFL_STATS=FILE)\n"
               "as a table: unmapped and fallback kernels that cost most first.\n");
        return argc == 2 ? 0 : 2;
    }
    char *text = read_file(argv[1]);
    if (!text) {
        fprintf(stderr, "torchfl: error: stats: cannot read %s\n", argv[1]);
        return 1;
    }
    cJSON *doc = cJSON_Parse(text);
    const cJSON *ops = doc ? cJSON_GetObjectItemCaseSensitive(doc, "ops") : NULL;
    if (!cJSON_IsArray(ops)) {
        fprintf(stderr, "torchfl: error: stats: %s is not a torchfl statistics file\n",
                argv[1]);
        cJSON_Delete(doc);
        free(text);
        return 1;
    }
    int n = cJSON_GetArraySize(ops);
    row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    if (!rows) {
        cJSON_Delete(doc);
        free(text);
        return 1;
    }
    int i = 0;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops) {
        rows[i] = (row){ str(op, "family"), str(op, "name"), num(op, "calls"),
                         num(op, "time_ns"), num(op, "native_ns"),
                         num(op, "host_executor_ns"), num(op, "refused_calls") };
        i++;
    }
    double calls = 0, native = 0;
    cJSON_ArrayForEach(op, ops) {
        calls += num(op, "calls");
        native += num(op, "native_calls");
    }
    qsort(rows, (size_t)n, sizeof *rows, by_cost);
    double total = num(doc, "total_ns"), fallback = num(doc, "fallback_ns");
    printf("backend %s: %.3f s in %d ops/kernels, %.1f%% of it in the host executor\n",
           str(doc, "backend"), total / 1e9, n, total > 0 ? 100.0 * fallback / total : 0.0);
    printf("%.0f calls, %.1f%% of them run natively by the backend\n", calls,
           calls > 0 ? 100.0 * native / calls : 0.0);
    const cJSON *hv = cJSON_GetObjectItemCaseSensitive(doc, "hostview");
    if (cJSON_IsObject(hv) && num(hv, "faults") > 0)
        printf("host views of device memory: %.0f faults, %.1f MiB fetched, %.1f MiB "
               "stored\n", num(hv, "faults"), num(hv, "fetched_bytes") / 1048576.0,
               num(hv, "stored_bytes") / 1048576.0);
    printf("\n");
    printf("%-12s %10s %12s %7s %12s  %s\n", "family", "calls", "time ms", "share",
           "fallback ms", "op / kernel");
    for (i = 0; i < n; i++) {
        const row *r = &rows[i];
        printf("%-12s %10.0f %12.3f %6.1f%% %12.3f  %s%s\n", r->family, r->calls,
               r->time_ns / 1e6, total > 0 ? 100.0 * r->time_ns / total : 0.0,
               r->hostexec_ns / 1e6, r->name, r->refused_calls > 0 ? "  [refused]" : "");
    }
    free(rows);
    cJSON_Delete(doc);
    free(text);
    return 0;
}

/*
 * detect.c - `torchfl detect [--json]`: which backends and chips are here.
 *
 * One row per backend torchfl knows of: the built-in host, one per vendor
 * runtime probe (whether or not a plugin exists for it) and any other
 * plugin found in the plugin path.  A vendor row says "runtime found, no
 * plugin" when the chip's software is installed but torchfl has no
 * backend for it yet: the answer to "why is my chip not used?".
 * Always exits 0 when it could print: a machine with only a CPU is fine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "route/config.h"
#include "route/plugin.h"
#include "route/torch_release.h"

#include <limits.h>

typedef struct row {
    char name[64];
    const char *label;
    char status[64];
    char version[256];
    char library[1024];        /* runtime library or plugin file        */
    char reason[512];
    int priority, builtin, has_backend;
    int devices;               /* -1 unknown */
    uint64_t memory;
    int ops;                   /* -1 no backend */
    int nchips;
    cli_chip chips[CLI_MAX_CHIPS];
} row;

typedef struct vendor {
    const char *name, *label;
    void (*probe)(cli_probe *);
} vendor;

/* The torch shown (cmd_detect's --python, default python3). */
static const char *python;
static tfl_torch_info torch;

static const vendor vendors[] = {
    { "nvidia", "NVIDIA CUDA", probe_nvidia },
    { "rocm", "AMD ROCm", probe_rocm },
    { "ascend", "Huawei Ascend", probe_ascend },
    { "cambricon", "Cambricon", probe_cambricon },
    { "musa", "Moore Threads MUSA", probe_musa },
    { "opencl", "OpenCL", probe_opencl },
};
#define NVENDORS (int)(sizeof vendors / sizeof vendors[0])

/* Devices, memory and op count from a ready backend's own table. */
static void from_backend(row *r, const tfl_backend *b)
{
    r->ops = tfl_backend_op_count(b);
    if (b->init && b->init(tfl_plugin_host_api()) != TFL_OK) {
        snprintf(r->reason, sizeof r->reason, "init failed");
        return;
    }
    r->devices = b->device_count ? b->device_count() : 0;
    r->memory = 0;
    r->nchips = 0;
    for (int i = 0; i < r->devices && i < CLI_MAX_CHIPS; i++) {
        tfl_device_info info;
        memset(&info, 0, sizeof info);
        if (!b->device_info || b->device_info(i, &info) != TFL_OK)
            continue;
        cli_chip *c = &r->chips[r->nchips++];
        snprintf(c->name, sizeof c->name, "%s", info.name);
        c->memory = info.total_mem;
        r->memory += info.total_mem;
        if (info.multiprocessors)
            snprintf(c->detail, sizeof c->detail, "%d compute units",
                     info.multiprocessors);
    }
    if (b->fini)
        b->fini();
}

static void from_probe(row *r, const cli_probe *p)
{
    snprintf(r->version, sizeof r->version, "%s", p->version);
    if (p->library[0])
        snprintf(r->library, sizeof r->library, "%s", p->library);
    r->devices = p->devices;
    r->nchips = p->nchips;
    r->memory = 0;
    for (int i = 0; i < p->nchips; i++) {
        r->chips[i] = p->chips[i];
        r->memory += p->chips[i].memory;
    }
    if (!r->reason[0] && p->note[0])
        snprintf(r->reason, sizeof r->reason, "%s", p->note);
}

static void from_desc(row *r, const tfl_backend_desc *d)
{
    r->has_backend = 1;
    r->priority = d->priority;
    r->builtin = d->builtin;
    if (d->path[0])
        snprintf(r->library, sizeof r->library, "%s", d->path);
    if (d->state == TFL_BK_READY) {
        snprintf(r->status, sizeof r->status, "ready");
        from_backend(r, d->table);
    } else {
        snprintf(r->status, sizeof r->status, "%s",
                 d->state == TFL_BK_NOT_READY ? "plugin not ready" : "plugin unusable");
        snprintf(r->reason, sizeof r->reason, "%s", d->why);
        if (d->table)
            r->ops = tfl_backend_op_count(d->table);
    }
}

static const tfl_backend_desc *find_desc(const tfl_backend_desc *d, int n,
                                         const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(d[i].name, name) == 0)
            return &d[i];
    return NULL;
}

/* The torch `python` would import, if any (t->version[0] == 0: none). */
static void find_torch(const char *python, tfl_torch_info *t)
{
    char dir[PATH_MAX];
    memset(t, 0, sizeof *t);
    if (cli_torch_libdir(python, dir, sizeof dir) == 0 && tfl_torch_read(dir, t) != 0)
        t->version[0] = '\0';
}

static void print_torch(const tfl_torch_info *t, const char *python)
{
    if (!t->version[0]) {
        printf("PyTorch: none importable by %s (--python PY chooses the interpreter)\n",
               python);
        return;
    }
    printf("PyTorch: %s (CUDA %s) at %s\n", t->version, t->cuda[0] ? t->cuda : "?",
           t->libdir);
    printf("         %s; validated releases: %s\n",
           tfl_torch_validated(t->version) ? "validated"
           : "NOT validated (kernels whose layouts differ are refused)",
           tfl_torch_validated_list());
}

static void print_table(const row *rows, int n, const cli_cpu *cpu,
                        const char *selected, const char *why)
{
    const tfl_config *cfg = tfl_config_get();
    printf("torchfl %s  (config: %s; backend = %s -> %s)\n\n", TORCHFL_VERSION,
           cfg->source, cfg->backend, selected ? selected : "none");
    printf("%-10s %-26s %-30s %7s %11s %4s\n", "BACKEND", "STATUS", "VERSION",
           "DEVICES", "MEMORY", "OPS");
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        char dev[16] = "-", mem[32] = "-", ops[16] = "-", ver[31];
        if (r->devices >= 0)
            snprintf(dev, sizeof dev, "%d", r->devices);
        if (r->memory)
            cli_bytes(r->memory, mem, sizeof mem);
        if (r->ops >= 0)
            snprintf(ops, sizeof ops, "%d", r->ops);
        const char *vs = r->version[0] ? r->version : "-";
        snprintf(ver, sizeof ver, "%.*s", (int)strcspn(vs, ",;"), vs);
        printf("%-10s %-26s %-30s %7s %11s %4s\n", r->name, r->status, ver, dev,
               mem, ops);
    }
    int header = 0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < rows[i].nchips; c++) {
            if (!header++)
                printf("\n%-10s %3s %-44s %11s  %s\n", "CHIPS", "#", "NAME",
                       "MEMORY", "DETAILS");
            const cli_chip *ch = &rows[i].chips[c];
            char mem[32] = "-";
            if (ch->memory)
                cli_bytes(ch->memory, mem, sizeof mem);
            printf("%-10s %3d %-44.44s %11s  %s\n", rows[i].name, c, ch->name,
                   mem, ch->detail);
        }
    printf("\nCPU: %s, %d cores, SIMD: %s\n", cpu->model, cpu->cores,
           cpu->simd[0] ? cpu->simd : "none detected");
    printf("BLAS: %s (%d threads)\n", cpu->blas_config[0] ? cpu->blas_config
           : "unknown", cpu->blas_threads);
    print_torch(&torch, python);
    char search[4096];
    tfl_plugin_search_path(search, sizeof search);
    printf("plugin path: %s\n", search);
    for (int i = 0; i < n; i++)
        if (rows[i].reason[0] && strcmp(rows[i].status, "not found") != 0)
            printf("note: %s: %s\n", rows[i].name, rows[i].reason);
    if (!selected)
        printf("note: no usable backend: %s\n", why);
}

static void print_json(const row *rows, int n, const cli_cpu *cpu,
                       const char *selected, const char *why)
{
    const tfl_config *cfg = tfl_config_get();
    FILE *f = stdout;
    fputs("{\n  \"torchfl_version\": ", f);
    json_str(f, TORCHFL_VERSION);
    fputs(",\n  \"config\": ", f);
    json_str(f, cfg->source);
    fputs(",\n  \"backend_setting\": ", f);
    json_str(f, cfg->backend);
    fputs(",\n  \"selected\": ", f);
    json_str(f, selected);
    fputs(",\n  \"selected_error\": ", f);
    json_str(f, selected ? NULL : why);
    fputs(",\n  \"plugin_path\": [", f);
    char search[4096];
    tfl_plugin_search_path(search, sizeof search);
    char *save = NULL;
    int first = 1;
    for (char *d = strtok_r(search, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        fputs(first ? "" : ", ", f);
        json_str(f, d);
        first = 0;
    }
    fputs("],\n  \"backends\": [", f);
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_str(f, r->name);
        fputs(", \"label\": ", f);
        json_str(f, r->label);
        fputs(", \"status\": ", f);
        json_str(f, r->status);
        fprintf(f, ", \"backend\": %s, \"builtin\": %s",
                r->has_backend ? "true" : "false", r->builtin ? "true" : "false");
        if (r->has_backend)
            fprintf(f, ", \"priority\": %d", r->priority);
        fputs(", \"version\": ", f);
        json_str(f, r->version[0] ? r->version : NULL);
        fputs(", \"library\": ", f);
        json_str(f, r->library[0] ? r->library : NULL);
        if (r->devices >= 0)
            fprintf(f, ", \"devices\": %d", r->devices);
        else
            fputs(", \"devices\": null", f);
        fprintf(f, ", \"memory_bytes\": %llu", (unsigned long long)r->memory);
        if (r->ops >= 0)
            fprintf(f, ", \"ops\": %d", r->ops);
        else
            fputs(", \"ops\": null", f);
        fputs(", \"reason\": ", f);
        json_str(f, r->reason[0] ? r->reason : NULL);
        fputs(",\n     \"chips\": [", f);
        for (int c = 0; c < r->nchips; c++) {
            fprintf(f, "%s{\"index\": %d, \"name\": ", c ? ", " : "", c);
            json_str(f, r->chips[c].name);
            fprintf(f, ", \"memory_bytes\": %llu, \"details\": ",
                    (unsigned long long)r->chips[c].memory);
            json_str(f, r->chips[c].detail[0] ? r->chips[c].detail : NULL);
            fputs("}", f);
        }
        fputs("]}", f);
    }
    fputs("\n  ],\n  \"cpu\": {\"model\": ", f);
    json_str(f, cpu->model);
    fprintf(f, ", \"cores\": %d, \"memory_bytes\": %llu, \"simd\": ", cpu->cores,
            (unsigned long long)cpu->memory);
    json_words(f, cpu->simd);
    fputs(",\n          \"blas\": {\"config\": ", f);
    json_str(f, cpu->blas_config);
    fputs(", \"version\": ", f);
    json_str(f, cpu->blas_version);
    fprintf(f, ", \"threads\": %d}},\n", cpu->blas_threads);
    fputs("  \"torch\": {\"version\": ", f);
    json_str(f, torch.version[0] ? torch.version : NULL);
    fputs(", \"cuda\": ", f);
    json_str(f, torch.cuda[0] ? torch.cuda : NULL);
    fputs(", \"libdir\": ", f);
    json_str(f, torch.version[0] ? torch.libdir : NULL);
    fprintf(f, ", \"validated\": %s, \"validated_releases\": ",
            torch.version[0] && tfl_torch_validated(torch.version) ? "true" : "false");
    json_words(f, tfl_torch_validated_list());
    fputs("}\n}\n", f);
}

int cmd_detect(int argc, char **argv)
{
    int json = 0;
    python = "python3";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--python") == 0 && i + 1 < argc) {
            python = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: torchfl detect [--json] [--python PY]\n"
                   "List backends (built-in, plugins, vendor runtimes) and chips, and the\n"
                   "PyTorch that PY (default python3) imports, validated or not.\n");
            return 0;
        } else {
            fprintf(stderr, "torchfl: error: detect: unknown option \"%s\" "
                    "(try --json)\n", argv[i]);
            return 2;
        }
    }
    static tfl_backend_desc d[TFL_BACKEND_MAX];
    int nd = tfl_backend_list(d, TFL_BACKEND_MAX);
    static row rows[TFL_BACKEND_MAX + NVENDORS + 1];
    int n = 0;

    cli_cpu cpu;
    probe_cpu(&cpu);

    /* the host first: it is always there */
    row *r = &rows[n++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "host");
    r->label = "host CPU";
    r->devices = -1;
    r->ops = -1;
    snprintf(r->version, sizeof r->version, "%s", cpu.blas_version);
    from_desc(r, &d[0]);
    for (int c = 0; c < r->nchips; c++)
        snprintf(r->chips[c].detail, sizeof r->chips[c].detail, "%d cores%s%.200s",
                 cpu.cores, cpu.simd[0] ? ", " : "", cpu.simd);

    for (int v = 0; v < NVENDORS; v++) {
        cli_probe p;
        memset(&p, 0, sizeof p);
        p.name = vendors[v].name;
        p.label = vendors[v].label;
        p.devices = -1;
        vendors[v].probe(&p);
        r = &rows[n++];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "%s", vendors[v].name);
        r->label = vendors[v].label;
        r->devices = -1;
        r->ops = -1;
        const tfl_backend_desc *pd = find_desc(d, nd, vendors[v].name);
        if (pd && pd->state == TFL_BK_READY) {
            from_probe(r, &p);          /* version, then the plugin's view */
            from_desc(r, pd);
        } else {
            if (pd)
                from_desc(r, pd);
            else
                snprintf(r->status, sizeof r->status, "%s",
                         p.found ? "runtime found, no plugin" : "not found");
            from_probe(r, &p);
        }
    }
    /* other plugins (including test and third-party ones) */
    for (int i = 1; i < nd; i++) {
        int is_vendor = 0;
        for (int v = 0; v < NVENDORS; v++)
            is_vendor |= strcmp(d[i].name, vendors[v].name) == 0;
        if (is_vendor)
            continue;
        r = &rows[n++];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "%s", d[i].name);
        r->label = "plugin";
        r->devices = -1;
        r->ops = -1;
        from_desc(r, &d[i]);
    }

    find_torch(python, &torch);
    char why[2048] = "";
    const tfl_backend *sel = tfl_backend_select(NULL, why, sizeof why);
    if (json)
        print_json(rows, n, &cpu, sel ? sel->name : NULL, why);
    else
        print_table(rows, n, &cpu, sel ? sel->name : NULL, why);
    return fflush(stdout) == 0 ? 0 : 1;
}

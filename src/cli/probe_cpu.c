/*
 * probe_cpu.c - the host CPU: model, cores, SIMD, memory and OpenBLAS.
 *
 * These decide how fast the host backend runs, so `torchfl detect` shows
 * them: the SIMD level OpenBLAS picked (its core name) and its threads.
 */
#include <cblas.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"

/* Flags worth reporting, as /proc/cpuinfo names them, and our label. */
static const struct { const char *flag, *label; } simd_flags[] = {
    { "sse4_2", "sse4.2" }, { "avx", "avx" }, { "avx2", "avx2" }, { "fma", "fma" },
    { "avx512f", "avx512f" }, { "avx512bw", "avx512bw" },
    { "avx512_vnni", "avx512_vnni" }, { "avx512_bf16", "avx512_bf16" },
    { "avx512_fp16", "avx512_fp16" }, { "amx_tile", "amx" },
    /* AArch64 "Features" */
    { "asimd", "neon" }, { "asimdhp", "neon_fp16" }, { "sve", "sve" },
    { "sve2", "sve2" }, { "bf16", "bf16" },
};

static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p += n) {
        int start = p == list || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
        int end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';
        if (start && end)
            return 1;
    }
    return 0;
}

static void value_of(const char *line, char *out, size_t len)
{
    const char *c = strchr(line, ':');
    if (!c)
        return;
    c++;
    while (*c == ' ' || *c == '\t')
        c++;
    snprintf(out, len, "%s", c);
    out[strcspn(out, "\n")] = '\0';
}

void probe_cpu(cli_cpu *c)
{
    memset(c, 0, sizeof *c);
    c->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    c->memory = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);

    char flags[4096] = "", part[64] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            if (!c->model[0] && (strncmp(line, "model name", 10) == 0 ||
                                 strncmp(line, "Model", 5) == 0 ||
                                 strncmp(line, "Hardware", 8) == 0))
                value_of(line, c->model, sizeof c->model);
            else if (!flags[0] && (strncmp(line, "flags", 5) == 0 ||
                                   strncmp(line, "Features", 8) == 0))
                value_of(line, flags, sizeof flags);
            else if (!part[0] && strncmp(line, "CPU part", 8) == 0)
                value_of(line, part, sizeof part);
        }
        fclose(f);
    }
    if (!c->model[0]) {
        struct utsname u;
        if (uname(&u) == 0)
            snprintf(c->model, sizeof c->model, "%s CPU%s%s", u.machine,
                     part[0] ? " part " : "", part);
    }
    size_t n = 0;
    for (size_t i = 0; i < sizeof simd_flags / sizeof simd_flags[0]; i++)
        if (has_word(flags, simd_flags[i].flag) && n + 20 < sizeof c->simd)
            n += (size_t)snprintf(c->simd + n, sizeof c->simd - n, "%s%s",
                                  n ? " " : "", simd_flags[i].label);

    const char *cfg = openblas_get_config();
    snprintf(c->blas_config, sizeof c->blas_config, "%s", cfg ? cfg : "");
    /* "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." -> "OpenBLAS 0.3.21" */
    const char *sp = strchr(c->blas_config, ' ');
    if (sp)
        sp = strchr(sp + 1, ' ');
    size_t vl = sp ? (size_t)(sp - c->blas_config) : strlen(c->blas_config);
    if (vl >= sizeof c->blas_version)
        vl = sizeof c->blas_version - 1;
    memcpy(c->blas_version, c->blas_config, vl);
    c->blas_version[vl] = '\0';
    c->blas_threads = openblas_get_num_threads();
}

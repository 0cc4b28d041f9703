/*
 * run.c - `torchfl run [--backend NAME] [--config FILE] [--] CMD [ARGS...]`.
 *
 * Runs an unmodified program under torchfl: prepends the libtorchfl.so that
 * sits next to this binary (or in ../lib) to LD_PRELOAD, sets FL_BACKEND and
 * TORCHFL_CONFIG from the options, and execs CMD in place, so signals,
 * exit status and the terminal belong to CMD as if run directly.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static void run_usage(FILE *f)
{
    fprintf(f,
        "usage: torchfl run [--backend NAME] [--config FILE] [--] CMD [ARGS...]\n"
        "Run CMD with libtorchfl.so preloaded.\n"
        "  --backend NAME   backend to use (sets FL_BACKEND): auto, host, <plugin>\n"
        "  --config FILE    configuration file (sets TORCHFL_CONFIG)\n");
}

/* libtorchfl.so next to the torchfl binary, or in ../lib of it. */
static int find_library(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    static const char *const rel[] = {
        "libtorchfl.so", "../lib/libtorchfl.so", "../lib64/libtorchfl.so",
        "../lib/torchfl/libtorchfl.so",
    };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
        if (access(cand, R_OK) == 0 && realpath(cand, out) && strlen(out) < len)
            return 0;
    }
    snprintf(out, len, "%s", exe);
    return -1;
}

/* Value of "--opt VALUE" or "--opt=VALUE" at argv[*i]; NULL if not opt. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt,
                             int *missing)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int cmd_run(int argc, char **argv)
{
    const char *backend = NULL, *config = NULL;
    int i = 1;
    for (; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            run_usage(stdout);
            return 0;
        } else if ((v = opt_value(argc, argv, &i, "--backend", &missing))) {
            backend = v;
        } else if ((v = opt_value(argc, argv, &i, "--config", &missing))) {
            config = v;
        } else if (missing) {
            fprintf(stderr, "torchfl: error: run: %s needs a value\n", argv[i]);
            return 2;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "torchfl: error: run: unknown option \"%s\"\n", argv[i]);
            run_usage(stderr);
            return 2;
        } else {
            break; /* the command itself */
        }
    }
    if (i >= argc) {
        fprintf(stderr, "torchfl: error: run: no command given\n");
        run_usage(stderr);
        return 2;
    }

    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib) != 0) {
        fprintf(stderr, "torchfl: error: run: libtorchfl.so not found next to "
                "the torchfl binary (looked in %s and %s/../lib)\n", lib, lib);
        return 2;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(len);
    if (!preload)
        return 2;
    if (old && *old)
        snprintf(preload, len, "%s:%s", lib, old);
    else
        snprintf(preload, len, "%s", lib);
    setenv("LD_PRELOAD", preload, 1);
    free(preload);

    if (backend) {
        if (!*backend) {
            fprintf(stderr, "torchfl: error: run: --backend needs a name\n");
            return 2;
        }
        setenv("FL_BACKEND", backend, 1);
    }
    if (config) {
        char abs[PATH_MAX];
        if (access(config, R_OK) != 0) {
            fprintf(stderr, "torchfl: error: run: cannot read config file "
                    "\"%s\": %s\n", config, strerror(errno));
            return 2;
        }
        /* absolute, so CMD may change directory before torchfl reads it */
        setenv("TORCHFL_CONFIG", realpath(config, abs) ? abs : config, 1);
    }
    execvp(argv[i], argv + i);
    int e = errno;
    fprintf(stderr, "torchfl: error: run: cannot execute \"%s\": %s\n", argv[i],
            strerror(e));
    return e == ENOENT ? 127 : 126;
}

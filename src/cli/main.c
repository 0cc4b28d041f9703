/*
 * main.c - the `torchfl` command: dispatch to a subcommand.
 *
 *   torchfl detect [--json]       backends, vendor runtimes and chips
 *   torchfl run [...] -- CMD      run CMD with libtorchfl.so preloaded
 *   torchfl config                the configuration in effect
 *   torchfl stats FILE            op-statistics report
 *   torchfl wheel [...]           check the op table against a PyTorch wheel
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: torchfl <command> [options]\n"
        "\n"
        "commands:\n"
        "  detect [--json]                 list backends, runtimes and chips\n"
        "  run [--backend NAME] [--config FILE] -- CMD [ARGS...]\n"
        "                                  run CMD on torchfl (LD_PRELOAD)\n"
        "  config                          print the configuration in effect\n"
        "  stats FILE                      op-statistics report (TORCHFL_STATS)\n"
        "  wheel [--python PY | --torch-lib DIR] [--list] [--unclaimed]\n"
        "                                  check the op table against a PyTorch wheel\n"
        "\n"
        "options:\n"
        "  -h, --help                      this help\n"
        "  -V, --version                   print the version\n"
        "\n"
        "Configuration: see docs/config.md (TORCHFL_CONFIG, FL_BACKEND, ...).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
        strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 ||
        strcmp(cmd, "version") == 0) {
        printf("torchfl %s\n", TORCHFL_VERSION);
        return 0;
    }
    static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
        { "detect", cmd_detect }, { "run", cmd_run },
        { "config", cmd_config }, { "stats", cmd_stats }, { "wheel", cmd_wheel },
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "torchfl: error: unknown command \"%s\" (try torchfl --help)\n",
            cmd);
    return 2;
}

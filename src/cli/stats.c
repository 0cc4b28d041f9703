/*
 * stats.c - `torchfl stats FILE`: the op-statistics report.
 *
 * The statistics file (stats.path / TORCHFL_STATS) is written by the
 * runtime; its reader arrives with the op-statistics work.  Until then the
 * command says so plainly instead of pretending.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int cmd_stats(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: torchfl stats FILE\n"
               "Summarise an op-statistics file (not available yet).\n");
        return 0;
    }
    fprintf(stderr, "torchfl: error: stats: not implemented yet; the "
            "statistics report arrives with the op-statistics release\n");
    return 1;
}

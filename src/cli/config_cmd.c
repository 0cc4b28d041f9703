/*
 * config_cmd.c - `torchfl config`: the configuration in effect, as a file.
 *
 * Prints which file was read and every key with its effective value (file,
 * environment or default), in torchfl.conf syntax, so the output can be
 * saved and edited.  Problems in the file are reported on stderr as at
 * start-up.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "route/config.h"

int cmd_config(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            printf("usage: torchfl config\n"
                   "Print the configuration in effect (file + environment).\n");
            return 0;
        }
        fprintf(stderr, "torchfl: error: config: unexpected argument \"%s\"\n",
                argv[1]);
        return 2;
    }
    const tfl_config *cfg = tfl_config_get();
    printf("# torchfl %s configuration in effect; read from: %s\n",
           TORCHFL_VERSION, cfg->source);
    for (const char *const *k = tfl_config_keys(); *k; k++) {
        char v[2048];
        tfl_config_format(cfg, *k, v, sizeof v);
        /* quote values a reader would cut at a '#' or trim */
        int quote = strchr(v, '#') || (v[0] && (v[0] == ' ' || v[strlen(v) - 1] == ' '));
        if (!v[0])
            printf("%s =\n", *k);
        else
            printf(quote ? "%s = \"%s\"\n" : "%s = %s\n", *k, v);
    }
    return 0;
}

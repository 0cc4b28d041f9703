/*
 * probe_torch.c - where the PyTorch that a Python would import lives,
 * found without importing it (an import loads the CUDA libraries and takes
 * seconds; importlib only locates the package).
 */
#include "cli/cli.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int cli_torch_libdir(const char *python, char *out, size_t len)
{
    if (!python || strchr(python, '\''))
        return -1;                       /* quoted below; refuse what would break out */
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import importlib.util as u, os; "
             "s = u.find_spec(\"torch\"); "
             "print(os.path.join(list(s.submodule_search_locations)[0], \"lib\"))' 2>/dev/null",
             python);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    int ok = fgets(out, (int)len, p) != NULL;
    int rc = pclose(p);
    if (!ok || rc != 0)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return out[0] ? 0 : -1;
}

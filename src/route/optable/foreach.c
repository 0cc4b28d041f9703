/*
 * foreach.c - the "foreach" kernel family of the semantic op table.
 *
 * Not mapped yet: match() claims nothing, so these kernels run from PTX in
 * the host executor where the binary has PTX.
 */
#include "route/optable.h"

static int match(const char *mangled, void **cookie)
{
    (void)mangled; (void)cookie;
    return 0;
}

const tfl_kfamily tfl_kfamily_foreach = {
    .name = "foreach",
    .match = match,
};

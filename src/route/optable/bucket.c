/*
 * bucket.c - the "bucket" kernel family (placeholder while being written).
 */
#include "route/optable.h"

static int match(const char *m, void **cookie)
{
    (void)m;
    (void)cookie;
    return 0;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    (void)c; (void)cookie; (void)err; (void)errlen;
    return TFL_ERR_UNSUPPORTED;
}

static const char *op_name(void *cookie)
{
    (void)cookie;
    return "bucket";
}

const tfl_kfamily tfl_kfamily_bucket = { .name = "bucket", .match = match, .run = run, .op_name = op_name };

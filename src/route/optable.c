/*
 * optable.c - find the family that runs a kernel; the blacklist; the
 * cookie store families' match() shares.
 */
#include "route/optable.h"
#include "route/config.h"

#include <stdlib.h>
#include <string.h>

static const tfl_kfamily *const families[] = {
    &tfl_kfamily_elementwise,
    &tfl_kfamily_reduce,
    &tfl_kfamily_softmax,
    &tfl_kfamily_loss,
    &tfl_kfamily_embedding,
    &tfl_kfamily_norm,
    &tfl_kfamily_random,
    &tfl_kfamily_foreach,
    &tfl_kfamily_index,
    &tfl_kfamily_attention,
    &tfl_kfamily_scan,
    &tfl_kfamily_sort,
    &tfl_kfamily_batchnorm,
    &tfl_kfamily_bucket,
    &tfl_kfamily_conv,
    &tfl_kfamily_spatial,
    &tfl_kfamily_misc,
    &tfl_kfamily_distance,
    &tfl_kfamily_shape,
    &tfl_kfamily_jagged,
};

int tfl_kcookie_keep(const void *c, size_t n, void **cookie)
{
    void *p = malloc(n);
    if (!p)
        return 0;
    memcpy(p, c, n);
    *cookie = p;
    return 1;
}

const tfl_kfamily *tfl_optable_lookup(const char *mangled, void **cookie)
{
    *cookie = NULL;
    if (!mangled)
        return NULL;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (families[i]->match && families[i]->match(mangled, cookie))
            return families[i];
    return NULL;
}

static int listed(const char *list, const char *name)
{
    if (!name || !*name)
        return 0;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && *p == ' ') { p++; len--; }
        while (len && p[len - 1] == ' ') len--;
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

int tfl_optable_blacklisted(const char *family, const char *op)
{
    const char *list = tfl_config_get()->op_blacklist;
    return listed(list, family) || listed(list, op);
}

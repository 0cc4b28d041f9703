/*
 * plugin.c - find, load, check and choose backends (see plugin.h).
 *
 * Loading is the dangerous part: a plugin is foreign code built at another
 * time against another header.  So it is opened RTLD_LOCAL (its symbols
 * cannot shadow ours or a vendor library's), its ABI version and table size
 * are checked before any function in the table is called, and every
 * failure becomes a one-line reason instead of a crash or an exit.
 */
#define _GNU_SOURCE
#include "route/plugin.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/host/host_ops.h"
#include "common/log.h"
#include "route/config.h"

#define PREFIX "libtorchfl-"
#define SUFFIX ".so"

/* One plugin file, loaded or refused; kept for the life of the process. */
typedef struct loaded {
    char name[64];
    char path[1024];
    void *handle;               /* NULL when refused                    */
    tfl_backend *table;         /* zeroed full-size copy, or NULL       */
    char why[512];              /* why it was refused                   */
} loaded;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static loaded g_loaded[TFL_BACKEND_MAX];
static int g_nloaded;

/* --------------------------------------------------------- host API */

static void api_log(int level, const char *fmt, ...)
{
    if (level > tfl_log_level)
        return;
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tfl_log_write(level, "%s", buf);
}

static const tfl_host_api g_host_api = {
    .abi_version = TFL_BACKEND_ABI_VERSION,
    .log = api_log,
    .config = tfl_config_value,
};

const tfl_host_api *tfl_plugin_host_api(void)
{
    return &g_host_api;
}

/* ------------------------------------------------------ search path */

/* Directory of the object this code is linked into: libtorchfl.so when
 * preloaded, the executable for the CLI and tests (both sit in the same
 * directory as libtorchfl.so in a build tree and an install). */
static void self_dir(char *buf, size_t len)
{
    buf[0] = '\0';
    Dl_info info;
    struct link_map *map = NULL;
    char path[PATH_MAX];
    path[0] = '\0';
    if (dladdr1((void *)self_dir, &info, (void **)&map, RTLD_DL_LINKMAP) &&
        map && map->l_name && map->l_name[0]) {
        /* as given to the loader: LD_PRELOAD=build/libtorchfl.so is
         * relative to the directory the process started in (realpath
         * below resolves it; torchfl looks this up at start-up) */
        snprintf(path, sizeof path, "%s", map->l_name);
    } else {
        /* the main program's link map has no name */
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        path[n > 0 ? n : 0] = '\0';
    }
    char *slash = strrchr(path, '/');
    if (!slash) {
        /* a bare file name: the object lies in the current directory */
        snprintf(path, sizeof path, ".");
        slash = path + 1;
    }
    *slash = '\0';
    char real[PATH_MAX];
    if (realpath(path[0] ? path : "/", real))
        snprintf(buf, len, "%s", real);
    else
        snprintf(buf, len, "%s", path[0] ? path : "/");
}

static void append_dir(char *buf, size_t len, const char *dir, size_t dlen)
{
    if (dlen == 0)
        return;
    /* skip duplicates: the same directory twice finds nothing new */
    const char *p = buf;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == dlen && strncmp(p, dir, n) == 0)
            return;
        if (!e)
            break;
        p = e + 1;
    }
    size_t used = strlen(buf);
    if (used + dlen + 2 > len)
        return;
    if (used)
        buf[used++] = ':';
    memcpy(buf + used, dir, dlen);
    buf[used + dlen] = '\0';
}

void tfl_plugin_search_path(char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    const char *p = tfl_config_get()->plugin_path;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        append_dir(buf, len, p, n);
        if (!e)
            break;
        p = e + 1;
    }
    char self[PATH_MAX], plugins[PATH_MAX + 16];
    self_dir(self, sizeof self);
    if (self[0]) {
        snprintf(plugins, sizeof plugins, "%s/plugins", self);
        append_dir(buf, len, plugins, strlen(plugins));
        append_dir(buf, len, self, strlen(self));
    }
}

/* ------------------------------------------------------------ loading */

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n >= 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-'))
            return 0;
    return 1;
}

/* "libtorchfl-<name>.so" -> name; 0 if the file is not a plugin. */
static int plugin_name(const char *file, char *name, size_t len)
{
    size_t fl = strlen(file), pl = strlen(PREFIX), sl = strlen(SUFFIX);
    if (fl <= pl + sl || strncmp(file, PREFIX, pl) != 0 ||
        strcmp(file + fl - sl, SUFFIX) != 0)
        return 0;
    size_t n = fl - pl - sl;
    if (!valid_name(file + pl, n) || n >= len)
        return 0;
    memcpy(name, file + pl, n);
    name[n] = '\0';
    return 1;
}

/* Open, check and copy one plugin's table into L (lock held). */
static void load_plugin(loaded *L)
{
    dlerror();
    void *h = dlopen(L->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(L->why, sizeof L->why, "cannot load: %s", e ? e : "dlopen failed");
        return;
    }
    tfl_backend_entry_fn entry;
    void *sym = dlsym(h, TORCHFL_BACKEND_ENTRY);
    memcpy(&entry, &sym, sizeof entry); /* object -> function pointer */
    if (!sym) {
        snprintf(L->why, sizeof L->why, "no %s symbol: not a torchfl backend",
                 TORCHFL_BACKEND_ENTRY);
        dlclose(h);
        return;
    }
    const tfl_backend *t = entry(TFL_BACKEND_ABI_VERSION);
    if (!t) {
        snprintf(L->why, sizeof L->why, "%s returned no table for backend "
                 "ABI %u", TORCHFL_BACKEND_ENTRY, TFL_BACKEND_ABI_VERSION);
        dlclose(h);
        return;
    }
    /* abi_version changes only when fields move or change meaning, so
     * any other version (newer or older) cannot be read safely */
    if (t->abi_version != TFL_BACKEND_ABI_VERSION) {
        snprintf(L->why, sizeof L->why, "built for backend ABI %u, this "
                 "torchfl speaks ABI %u (%s)", t->abi_version,
                 TFL_BACKEND_ABI_VERSION,
                 t->abi_version > TFL_BACKEND_ABI_VERSION
                     ? "update torchfl" : "rebuild the plugin");
        dlclose(h);
        return;
    }
    size_t min = offsetof(tfl_backend, probe) + sizeof t->probe;
    if (t->struct_size < min) {
        snprintf(L->why, sizeof L->why, "table too small (%u bytes, need at "
                 "least %zu)", t->struct_size, min);
        dlclose(h);
        return;
    }
    tfl_backend *copy = calloc(1, sizeof *copy);
    if (!copy) {
        snprintf(L->why, sizeof L->why, "out of memory");
        dlclose(h);
        return;
    }
    /* a newer plugin of the same ABI may have appended entries we do not
     * know: copy only what we know; an older one leaves the rest NULL */
    size_t n = t->struct_size < sizeof *copy ? t->struct_size : sizeof *copy;
    memcpy(copy, t, n);
    if (!copy->name || strcmp(copy->name, L->name) != 0 || !copy->probe) {
        snprintf(L->why, sizeof L->why, "%s",
                 !copy->probe ? "table has no probe function"
                              : "table names a different backend than its file");
        free(copy);
        dlclose(h);
        return;
    }
    L->handle = h;
    L->table = copy;
}

/* The loaded entry for (name, path), loading it the first time. */
static loaded *get_loaded(const char *name, const char *path)
{
    for (int i = 0; i < g_nloaded; i++)
        if (strcmp(g_loaded[i].name, name) == 0)
            return &g_loaded[i];
    if (g_nloaded >= TFL_BACKEND_MAX)
        return NULL;
    loaded *L = &g_loaded[g_nloaded++];
    memset(L, 0, sizeof *L);
    snprintf(L->name, sizeof L->name, "%s", name);
    snprintf(L->path, sizeof L->path, "%s", path);
    load_plugin(L);
    if (!L->table)
        tfl_debug("plugin %s: %s", L->path, L->why);
    return L;
}

static void probe_into(tfl_backend_desc *d, const tfl_backend *t)
{
    d->table = t;
    d->priority = t->priority;
    d->why[0] = '\0';
    d->state = t->probe(d->why, sizeof d->why) ? TFL_BK_READY : TFL_BK_NOT_READY;
    if (d->state == TFL_BK_NOT_READY && !d->why[0])
        snprintf(d->why, sizeof d->why, "probe found no usable device");
    if (d->state == TFL_BK_READY)
        d->why[0] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Lock held. */
static int list_locked(tfl_backend_desc *out, int max)
{
    int n = 0;
    if (max <= 0)
        return 0;
    tfl_backend_desc *d = &out[n++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", tfl_host_backend.name);
    d->builtin = 1;
    probe_into(d, &tfl_host_backend);

    char search[4096];
    tfl_plugin_search_path(search, sizeof search);
    char *save = NULL;
    for (char *dir = strtok_r(search, ":", &save); dir && n < max;
         dir = strtok_r(NULL, ":", &save)) {
        DIR *dh = opendir(dir);
        if (!dh)
            continue;
        /* sorted, so the listing does not depend on directory order */
        char names[TFL_BACKEND_MAX][64];
        int k = 0;
        struct dirent *de;
        while ((de = readdir(dh)) && k < TFL_BACKEND_MAX)
            if (plugin_name(de->d_name, names[k], sizeof names[k]))
                k++;
        closedir(dh);
        qsort(names, (size_t)k, sizeof names[0], cmp_str);
        for (int i = 0; i < k && n < max; i++) {
            int seen = 0;
            for (int j = 0; j < n; j++)
                seen |= strcmp(out[j].name, names[i]) == 0;
            if (seen) /* host, or found earlier in the path: that wins */
                continue;
            d = &out[n++];
            memset(d, 0, sizeof *d);
            snprintf(d->name, sizeof d->name, "%s", names[i]);
            snprintf(d->path, sizeof d->path, "%s/" PREFIX "%s" SUFFIX, dir,
                     names[i]);
            loaded *L = get_loaded(names[i], d->path);
            if (!L) {
                d->state = TFL_BK_BROKEN;
                snprintf(d->why, sizeof d->why, "too many plugins (max %d)",
                         TFL_BACKEND_MAX);
            } else if (!L->table) {
                d->state = TFL_BK_BROKEN;
                snprintf(d->why, sizeof d->why, "%s", L->why);
                snprintf(d->path, sizeof d->path, "%s", L->path);
            } else {
                snprintf(d->path, sizeof d->path, "%s", L->path);
                probe_into(d, L->table);
            }
        }
    }
    return n;
}

int tfl_backend_list(tfl_backend_desc *out, int max)
{
    pthread_mutex_lock(&g_lock);
    int n = list_locked(out, max);
    pthread_mutex_unlock(&g_lock);
    return n;
}

/* "available: host, fake; not ready: x (why); broken: y (why)" */
static void describe(const tfl_backend_desc *d, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    static const char *label[] = { "available: ", "not ready: ", "unusable: " };
    for (int s = 0; s < 3; s++) {
        int first = 1;
        for (int i = 0; i < n; i++) {
            if ((int)d[i].state != s)
                continue;
            int w = snprintf(buf + used, len - used, "%s%s%s",
                             first ? (used ? "; " : "") : ", ",
                             first ? label[s] : "", d[i].name);
            if (w < 0 || (size_t)w >= len - used)
                return;
            used += (size_t)w;
            first = 0;
        }
    }
}

const tfl_backend *tfl_backend_select(const char *name, char *why, size_t why_len)
{
    char dummy[8];
    if (!why || !why_len) {
        why = dummy;
        why_len = sizeof dummy;
    }
    why[0] = '\0';
    if (!name || !*name)
        name = tfl_config_get()->backend;

    pthread_mutex_lock(&g_lock);
    static tfl_backend_desc d[TFL_BACKEND_MAX]; /* under g_lock */
    int n = list_locked(d, TFL_BACKEND_MAX);
    const tfl_backend *pick = NULL;
    const tfl_backend_desc *hit = NULL;
    if (strcmp(name, "auto") == 0) {
        /* host (index 0) ranks below every plugin of priority >= 0 and
         * above those of negative priority (a CPU-only OpenCL device) */
        for (int i = 1; i < n; i++)
            if (d[i].state == TFL_BK_READY && d[i].priority >= 0 &&
                (!hit || d[i].priority > hit->priority))
                hit = &d[i];
        if (!hit)
            hit = &d[0];
        pick = hit->table;
    } else {
        for (int i = 0; i < n; i++)
            if (strcmp(d[i].name, name) == 0)
                hit = &d[i];
        char search[2048], avail[1024];
        tfl_plugin_search_path(search, sizeof search);
        describe(d, n, avail, sizeof avail);
        if (!hit) {
            snprintf(why, why_len, "backend \"%s\" not found: no " PREFIX "%s"
                     SUFFIX " in %s (%s)", name, name,
                     search[0] ? search : "(empty plugin path)", avail);
        } else if (hit->state == TFL_BK_BROKEN) {
            snprintf(why, why_len, "backend \"%s\" (%s) cannot be used: %s "
                     "(searched %s; %s)", name, hit->path, hit->why, search, avail);
        } else if (hit->state == TFL_BK_NOT_READY) {
            snprintf(why, why_len, "backend \"%s\" is not ready: %s "
                     "(searched %s; %s)", name, hit->why, search, avail);
        } else {
            pick = hit->table;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return pick;
}

int tfl_backend_op_count(const tfl_backend *b)
{
    if (!b || !b->op_supported)
        return 0;
    int count = 0;
    for (int k = TFL_OP_NONE + 1; k < TFL_OP_KIND_COUNT; k++) {
        tfl_op op;
        memset(&op, 0, sizeof op);
        op.kind = (tfl_op_kind)k;
        op.name = "probe";
        if (k == TFL_OP_GEMM) {
            static const float one = 1.0f, zero = 0.0f;
            tfl_gemm_op *g = &op.u.gemm;
            g->m = g->n = g->k = 1;
            g->lda = g->ldb = g->ldc = g->ldd = 1;
            g->batch = 1;
            g->alpha = &one;
            g->beta = &zero;
        }
        if (b->op_supported(&op))
            count++;
    }
    return count;
}

/*
 * config.c - read torchfl's configuration: defaults, one file, environment.
 *
 * File format (documented for users in docs/config.md):
 *   - one "key = value" per line; blank lines are ignored;
 *   - "#" starts a comment at the beginning of a line or after white space
 *     (so a path such as /a#b keeps its "#"); a value in double quotes is
 *     taken literally, "#" included;
 *   - "[section]" makes the following keys "section.key" until the next
 *     header; "[]" returns to the top level.  "fallback.mode = warn" and
 *     "[fallback]" + "mode = warn" are the same setting;
 *   - a later line wins over an earlier one.
 * A bad line is reported as "FILE:LINE: reason", skipped, and the rest of
 * the file still applies: a typo must never stop a training job.
 *
 * Only the first file of the search order is read; the files are not
 * layered, so what a user sees in that one file (plus environment) is what
 * applies.
 */
#include "route/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/log.h"

/* ------------------------------------------------------------ helpers */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Strict decimal int in [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    if (!*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int copy_str(char *dst, size_t cap, const char *val,
                    char *why, size_t why_len)
{
    size_t n = strlen(val);
    if (n >= cap) {
        snprintf(why, why_len, "value is too long (%zu characters, at most %zu)",
                 n, cap - 1);
        return -1;
    }
    memcpy(dst, val, n + 1);
    return 0;
}

/* Backend names become file names (libtorchfl-<name>.so), so they are
 * restricted to characters that cannot climb out of a directory. */
static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

int tfl_config_parse_size(const char *s, uint64_t *out)
{
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    uint64_t whole = 0;
    while (isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s++ - '0');
        if (whole > (UINT64_MAX - d) / 10)
            return -1;
        whole = whole * 10 + d;
    }
    /* up to 9 fractional digits: "1.5G" */
    uint64_t frac = 0, frac_div = 1;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return -1;
        while (isdigit((unsigned char)*s)) {
            if (frac_div < 1000000000ull) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                frac_div *= 10;
            }
            s++;
        }
    }
    while (isspace((unsigned char)*s))
        s++;
    uint64_t mult = 1;
    switch (toupper((unsigned char)*s)) {
    case '\0': break;
    case 'B': break;
    case 'K': mult = 1ull << 10; s++; break;
    case 'M': mult = 1ull << 20; s++; break;
    case 'G': mult = 1ull << 30; s++; break;
    case 'T': mult = 1ull << 40; s++; break;
    default: return -1;
    }
    /* optional "B" or "iB" after the unit, "B" alone for bytes */
    if (mult > 1 && (*s == 'i' || *s == 'I'))
        s++;
    if (*s == 'b' || *s == 'B')
        s++;
    while (isspace((unsigned char)*s))
        s++;
    if (*s)
        return -1;
    if (frac && mult == 1)
        return -1; /* a fraction of a byte */
    if (whole > UINT64_MAX / mult)
        return -1;
    uint64_t v = whole * mult;
    uint64_t f = frac * (mult / frac_div) + (frac * (mult % frac_div)) / frac_div;
    if (v > UINT64_MAX - f)
        return -1;
    *out = v + f;
    return 0;
}

/* ------------------------------------------------------ per-key logic */

typedef int (*setter)(tfl_config *c, const char *v, char *why, size_t wl);
typedef void (*formatter)(const tfl_config *c, char *buf, size_t len);

static int set_backend(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (!valid_name(v) || strlen(v) >= sizeof c->backend) {
        snprintf(why, wl, "backend \"%s\" is not a name (auto, host, or a "
                 "plugin name of letters, digits, '-' and '_')", v);
        return -1;
    }
    return copy_str(c->backend, sizeof c->backend, v, why, wl);
}
static void fmt_backend(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%s", c->backend); }

static const char *const fallback_names[] = { "strict", "warn", "silent" };

static int set_fallback(tfl_config *c, const char *v, char *why, size_t wl)
{
    for (int i = 0; i < 3; i++)
        if (strcasecmp(v, fallback_names[i]) == 0) {
            c->fallback = (tfl_fallback_mode)i;
            return 0;
        }
    snprintf(why, wl, "fallback mode \"%s\" is not strict, warn or silent", v);
    return -1;
}
static void fmt_fallback(const tfl_config *c, char *b, size_t l)
{
    int m = (int)c->fallback;
    snprintf(b, l, "%s", (m >= 0 && m < 3) ? fallback_names[m] : "warn");
}

static int set_fallback_dev(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (!valid_name(v)) {
        snprintf(why, wl, "fallback device \"%s\" is not a backend name", v);
        return -1;
    }
    return copy_str(c->fallback_device, sizeof c->fallback_device, v, why, wl);
}
static void fmt_fallback_dev(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%s", c->fallback_device); }

/* Stored normalised: "a, b ,c" -> "a,b,c", empty items dropped. */
static int set_blacklist(tfl_config *c, const char *v, char *why, size_t wl)
{
    char tmp[sizeof c->op_blacklist];
    size_t n = 0;
    const char *p = v;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && isspace((unsigned char)*p)) { p++; len--; }
        while (len && isspace((unsigned char)p[len - 1])) len--;
        if (len) {
            if (n + len + 2 > sizeof tmp) {
                snprintf(why, wl, "op list is too long (at most %zu characters)",
                         sizeof tmp - 1);
                return -1;
            }
            if (n)
                tmp[n++] = ',';
            memcpy(tmp + n, p, len);
            n += len;
        }
        if (!e)
            break;
        p = e + 1;
    }
    tmp[n] = '\0';
    memcpy(c->op_blacklist, tmp, n + 1);
    return 0;
}
static void fmt_blacklist(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%s", c->op_blacklist); }

static int set_pool(tfl_config *c, const char *v, char *why, size_t wl)
{
    uint64_t s;
    if (tfl_config_parse_size(v, &s) != 0) {
        snprintf(why, wl, "size \"%s\" is not a number of bytes with an "
                 "optional K, M, G or T suffix (e.g. 8G; 0 = physical RAM)", v);
        return -1;
    }
    c->mem_pool_size = s;
    return 0;
}
static void fmt_pool(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%" PRIu64, c->mem_pool_size); }

static int set_streams(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (parse_int(v, 1, 1024, &c->stream_num) != 0) {
        snprintf(why, wl, "stream count \"%s\" is not an integer in 1..1024", v);
        return -1;
    }
    return 0;
}
static void fmt_streams(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%d", c->stream_num); }

static const char *const level_names[] = { "error", "warn", "info", "debug", "trace" };

static int set_log(tfl_config *c, const char *v, char *why, size_t wl)
{
    int lvl = tfl_log_parse_level(v);
    if (lvl < 0) {
        snprintf(why, wl, "log level \"%s\" is not error, warn, info, debug, "
                 "trace or 0-4", v);
        return -1;
    }
    c->log_level = lvl;
    return 0;
}
static void fmt_log(const tfl_config *c, char *b, size_t l)
{
    int v = c->log_level;
    snprintf(b, l, "%s", (v >= 0 && v <= 4) ? level_names[v] : "warn");
}

static int set_stats(tfl_config *c, const char *v, char *why, size_t wl)
{ return copy_str(c->stats_path, sizeof c->stats_path, v, why, wl); }
static void fmt_stats(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%s", c->stats_path); }

static int set_plugin(tfl_config *c, const char *v, char *why, size_t wl)
{ return copy_str(c->plugin_path, sizeof c->plugin_path, v, why, wl); }
static void fmt_plugin(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%s", c->plugin_path); }

/* "8.0", "12.0", "7.5" */
static int set_cc(tfl_config *c, const char *v, char *why, size_t wl)
{
    int maj, min;
    char dot, extra;
    if (sscanf(v, "%d%c%d%c", &maj, &dot, &min, &extra) != 3 || dot != '.' ||
        !isdigit((unsigned char)v[0]) || maj < 1 || maj > 99 || min < 0 ||
        min > 9 || !isdigit((unsigned char)v[strlen(v) - 1])) {
        snprintf(why, wl, "compute capability \"%s\" is not MAJOR.MINOR "
                 "(e.g. 8.0)", v);
        return -1;
    }
    c->cc_major = maj;
    c->cc_minor = min;
    return 0;
}
static void fmt_cc(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%d.%d", c->cc_major, c->cc_minor); }

static int set_devcount(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (parse_int(v, 1, 64, &c->device_count) != 0) {
        snprintf(why, wl, "device count \"%s\" is not an integer in 1..64", v);
        return -1;
    }
    return 0;
}
static void fmt_devcount(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%d", c->device_count); }

static int set_nccl_timeout(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (parse_int(v, 1, 86400 * 7, &c->nccl_timeout_s) != 0) {
        snprintf(why, wl, "NCCL timeout \"%s\" is not a number of seconds in 1..604800", v);
        return -1;
    }
    return 0;
}
static void fmt_nccl_timeout(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%d", c->nccl_timeout_s); }

static int set_threads(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (parse_int(v, 0, 4096, &c->exec_threads) != 0) {
        snprintf(why, wl, "thread count \"%s\" is not an integer in 0..4096 "
                 "(0 = CPU count)", v);
        return -1;
    }
    return 0;
}
static void fmt_threads(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%d", c->exec_threads); }

static int set_blas(tfl_config *c, const char *v, char *why, size_t wl)
{
    if (parse_int(v, 0, 4096, &c->blas_threads) != 0) {
        snprintf(why, wl, "thread count \"%s\" is not an integer in 0..4096 "
                 "(0 = CPU count)", v);
        return -1;
    }
    return 0;
}
static void fmt_blas(const tfl_config *c, char *b, size_t l)
{ snprintf(b, l, "%d", c->blas_threads); }

typedef struct key_def {
    const char *key;
    const char *env;   /* overriding variable, or NULL */
    setter set;
    formatter fmt;
} key_def;

static const key_def keys[] = {
    { "backend",                  "FL_BACKEND",               set_backend,      fmt_backend },
    { "fallback.mode",            "TORCH_FL_FALLBACK_MODE",   set_fallback,     fmt_fallback },
    { "fallback.device",          "TORCH_FL_FALLBACK_DEVICE", set_fallback_dev, fmt_fallback_dev },
    { "op.blacklist",             "TORCH_FL_OP_BLACKLIST",    set_blacklist,    fmt_blacklist },
    { "mem.pool_size",            "TORCH_FL_MEM_POOL_SIZE",   set_pool,         fmt_pool },
    { "stream.num",               "TORCH_FL_STREAM_NUM",      set_streams,      fmt_streams },
    { "log.level",                "TORCHFL_LOG",              set_log,          fmt_log },
    { "stats.path",               "TORCHFL_STATS",            set_stats,        fmt_stats },
    { "plugin.path",              "TORCHFL_PLUGIN_PATH",      set_plugin,       fmt_plugin },
    { "device.compute_capability", NULL,                      set_cc,           fmt_cc },
    { "device.count",             "TORCHFL_DEVICE_COUNT",     set_devcount,     fmt_devcount },
    { "nccl.timeout",             "TORCHFL_NCCL_TIMEOUT",     set_nccl_timeout, fmt_nccl_timeout },
    { "host.threads",             NULL,                       set_threads,      fmt_threads },
    { "host.blas_threads",        NULL,                       set_blas,         fmt_blas },
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const key_def *find_key(const char *k)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].key, k) == 0)
            return &keys[i];
    return NULL;
}

/* A section that belongs to a backend: any name the core keys do not use
 * ("opencl", a vendor's plugin name).  Its keys are kept verbatim. */
static int backend_section(const char *section)
{
    size_t n = strlen(section);
    if (n == 0)
        return 0;
    for (size_t i = 0; i < NKEYS; i++)
        if (strncmp(keys[i].key, section, n) == 0 && keys[i].key[n] == '.')
            return 0;
    return 1;
}

static int backend_key_set(tfl_config *cfg, const char *key, const char *value)
{
    if (strlen(key) >= sizeof cfg->backend_keys[0].key ||
        strlen(value) >= sizeof cfg->backend_keys[0].value)
        return -1;
    int i = 0;
    while (i < cfg->nbackend_keys && strcmp(cfg->backend_keys[i].key, key) != 0)
        i++;
    if (i == TFL_CONFIG_BACKEND_KEYS)
        return -1;
    if (i == cfg->nbackend_keys)
        cfg->nbackend_keys++;
    strcpy(cfg->backend_keys[i].key, key);
    strcpy(cfg->backend_keys[i].value, value);
    return 0;
}

/* TORCHFL_OPENCL_DEVICE_TYPE for "opencl.device_type", or NULL. */
static const char *backend_key_env(const char *key)
{
    char var[128] = "TORCHFL_";
    size_t n = strlen(var);
    for (const char *c = key; *c && n + 1 < sizeof var; c++)
        var[n++] = *c == '.' ? '_' : (char)toupper((unsigned char)*c);
    var[n] = '\0';
    const char *v = getenv(var);
    return v && *v ? v : NULL;
}

static const char *key_names[NKEYS + 1];
static pthread_once_t key_names_once = PTHREAD_ONCE_INIT;

static void fill_key_names(void)
{
    for (size_t i = 0; i < NKEYS; i++)
        key_names[i] = keys[i].key;
    key_names[NKEYS] = NULL;
}

const char *const *tfl_config_keys(void)
{
    pthread_once(&key_names_once, fill_key_names);
    return key_names;
}

/* -------------------------------------------------------------- file */

void tfl_config_defaults(tfl_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    strcpy(cfg->backend, "auto");
    cfg->fallback = TFL_FALLBACK_WARN;
    strcpy(cfg->fallback_device, "host");
    cfg->mem_pool_size = 0;
    cfg->stream_num = 4;
    cfg->log_level = TFL_LOG_WARN;
    cfg->cc_major = 8;
    cfg->cc_minor = 0;
    cfg->device_count = 1;
    cfg->nccl_timeout_s = 600;
    cfg->exec_threads = 0;
    cfg->blas_threads = 0;
    strcpy(cfg->source, "defaults");
}

static void report(tfl_config_error_fn fn, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(tfl_config_error_fn fn, void *ctx, const char *fmt, ...)
{
    if (!fn)
        return;
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fn(ctx, msg);
}

/* Cut a trailing comment and unquote; returns the value or NULL with why. */
static char *clean_value(char *v, const char **why)
{
    v = trim(v);
    if (*v == '"') {
        char *end = strchr(v + 1, '"');
        if (!end) {
            *why = "unterminated quoted value";
            return NULL;
        }
        char *rest = trim(end + 1);
        if (*rest && *rest != '#') {
            *why = "text after the quoted value";
            return NULL;
        }
        *end = '\0';
        return v + 1;
    }
    for (char *p = v; *p; p++)
        if (*p == '#' && (p == v || isspace((unsigned char)p[-1]))) {
            *p = '\0';
            break;
        }
    return trim(v);
}

int tfl_config_parse_file_ex(const char *path, tfl_config *cfg,
                             tfl_config_error_fn on_error, void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        report(on_error, ctx, "%s: cannot read config file: %s", path,
               strerror(errno));
        return -1;
    }
    char section[128] = "";
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int lineno = 0, bad = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)got != strlen(line)) {
            report(on_error, ctx, "%s:%d: NUL byte in line", path, lineno);
            bad++;
            continue;
        }
        char *s = line;
        if (lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3; /* UTF-8 byte-order mark from some editors */
        s = trim(s);
        if (*s == '\0' || *s == '#')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            char *rest = end ? trim(end + 1) : NULL;
            if (!end || (*rest && *rest != '#')) {
                report(on_error, ctx, "%s:%d: malformed section header "
                       "(expected [name])", path, lineno);
                bad++;
                continue;
            }
            *end = '\0';
            char *name = trim(s + 1);
            int ok = strlen(name) < sizeof section;
            for (char *p = name; ok && *p; p++)
                ok = isalnum((unsigned char)*p) || *p == '_' || *p == '.';
            if (!ok) {
                report(on_error, ctx, "%s:%d: bad section name \"%s\"", path,
                       lineno, name);
                bad++;
                /* keys below would land in the wrong place: drop them
                 * into a section no key matches, so each is reported */
                strcpy(section, "?");
                continue;
            }
            strcpy(section, name);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            report(on_error, ctx, "%s:%d: expected \"key = value\"", path, lineno);
            bad++;
            continue;
        }
        *eq = '\0';
        char *k = trim(s);
        const char *why = NULL;
        char *v = clean_value(eq + 1, &why);
        if (!v) {
            report(on_error, ctx, "%s:%d: %s", path, lineno, why);
            bad++;
            continue;
        }
        if (!*k) {
            report(on_error, ctx, "%s:%d: missing key before \"=\"", path, lineno);
            bad++;
            continue;
        }
        char full[320];
        if (section[0])
            snprintf(full, sizeof full, "%s.%s", section, k);
        else
            snprintf(full, sizeof full, "%s", k);
        const key_def *kd = find_key(full);
        if (!kd && backend_section(section)) {
            if (backend_key_set(cfg, full, v) != 0) {
                report(on_error, ctx, "%s:%d: backend key \"%s\" too long or too many",
                       path, lineno, full);
                bad++;
            }
            continue;
        }
        if (!kd) {
            report(on_error, ctx, "%s:%d: unknown key \"%s\"", path, lineno, full);
            bad++;
            continue;
        }
        char reason[512];
        if (kd->set(cfg, v, reason, sizeof reason) != 0) {
            report(on_error, ctx, "%s:%d: %s: %s", path, lineno, full, reason);
            bad++;
        }
    }
    if (ferror(f)) {
        /* e.g. a directory: fopen succeeds, reading fails */
        report(on_error, ctx, "%s: cannot read config file: %s", path,
               strerror(errno));
        free(line);
        fclose(f);
        return -1;
    }
    free(line);
    fclose(f);
    snprintf(cfg->source, sizeof cfg->source, "%s", path);
    return bad;
}

typedef struct first_err {
    char *buf;
    size_t len;
    int seen;
} first_err;

static void keep_first(void *ctx, const char *msg)
{
    first_err *fe = ctx;
    if (!fe->seen++ && fe->buf && fe->len)
        snprintf(fe->buf, fe->len, "%s", msg);
}

int tfl_config_parse_file(const char *path, tfl_config *cfg,
                          char *err, size_t errlen)
{
    first_err fe = { err, errlen, 0 };
    if (err && errlen)
        err[0] = '\0';
    int r = tfl_config_parse_file_ex(path, cfg, keep_first, &fe);
    return r == 0 ? 0 : -1;
}

/* ------------------------------------------------------- environment */

int tfl_config_apply_env_ex(tfl_config *cfg, tfl_config_error_fn on_error,
                            void *ctx)
{
    int bad = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        if (!keys[i].env)
            continue;
        const char *v = getenv(keys[i].env);
        /* an empty variable means "not set": shells make those easily */
        if (!v || !*v)
            continue;
        char tmp[2048];
        snprintf(tmp, sizeof tmp, "%s", v);
        char *val = trim(tmp);
        char reason[512];
        if (keys[i].set(cfg, val, reason, sizeof reason) != 0) {
            report(on_error, ctx, "%s=%s: %s (ignored)", keys[i].env, v, reason);
            bad++;
        }
    }
    return bad;
}

int tfl_config_apply_env(tfl_config *cfg, char *err, size_t errlen)
{
    first_err fe = { err, errlen, 0 };
    if (err && errlen)
        err[0] = '\0';
    return tfl_config_apply_env_ex(cfg, keep_first, &fe) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ search */

int tfl_config_find_file(char *buf, size_t len)
{
    const char *env = getenv("TORCHFL_CONFIG");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return 0;
    }
    if (access("torchfl.conf", R_OK) == 0) {
        snprintf(buf, len, "torchfl.conf");
        return 0;
    }
    const char *home = getenv("HOME");
    if (home && *home) {
        snprintf(buf, len, "%s/.config/torchfl/torchfl.conf", home);
        if (access(buf, R_OK) == 0)
            return 0;
    }
    if (access("/etc/torchfl/torchfl.conf", R_OK) == 0) {
        snprintf(buf, len, "/etc/torchfl/torchfl.conf");
        return 0;
    }
    snprintf(buf, len, "defaults");
    return -1;
}

void tfl_config_load(tfl_config *cfg, tfl_config_error_fn on_error, void *ctx)
{
    tfl_config_defaults(cfg);
    char path[1024];
    if (tfl_config_find_file(path, sizeof path) == 0) {
        /* a file named by $TORCHFL_CONFIG that cannot be read is reported
         * and the defaults apply: silently reading another file instead
         * would surprise more than it helps */
        if (tfl_config_parse_file_ex(path, cfg, on_error, ctx) < 0)
            tfl_config_defaults(cfg);
    }
    tfl_config_apply_env_ex(cfg, on_error, ctx);
}

int tfl_config_format(const tfl_config *cfg, const char *key,
                      char *buf, size_t len)
{
    const key_def *kd = key ? find_key(key) : NULL;
    if (!kd)
        return -1;
    kd->fmt(cfg, buf, len);
    return 0;
}

/* ----------------------------------------------------- process-wide */

static tfl_config g_cfg;
static char g_values[NKEYS][2048];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void log_problem(void *ctx, const char *msg)
{
    (void)ctx;
    tfl_error("%s", msg);
}

static void load_once(void)
{
    tfl_config_load(&g_cfg, log_problem, NULL);
    tfl_log_set_level(g_cfg.log_level);
    for (size_t i = 0; i < NKEYS; i++)
        keys[i].fmt(&g_cfg, g_values[i], sizeof g_values[i]);
    tfl_debug("config: %s", g_cfg.source);
}

const tfl_config *tfl_config_get(void)
{
    pthread_once(&g_once, load_once);
    return &g_cfg;
}

const char *tfl_config_value(const char *key)
{
    if (!key)
        return NULL;
    tfl_config_get();
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].key, key) == 0)
            return g_values[i];
    const char *dot = strchr(key, '.');
    char section[64];
    if (!dot || (size_t)(dot - key) >= sizeof section)
        return NULL;
    memcpy(section, key, (size_t)(dot - key));
    section[dot - key] = '\0';
    if (!backend_section(section))
        return NULL;
    const char *env = backend_key_env(key);
    if (env)
        return env;
    for (int i = 0; i < g_cfg.nbackend_keys; i++)
        if (strcmp(g_cfg.backend_keys[i].key, key) == 0)
            return g_cfg.backend_keys[i].value;
    return NULL;
}

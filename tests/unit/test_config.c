/*
 * test_config.c - the config file parser, environment overrides, the file
 * search order, the process-wide cache and the shipped config/torchfl.conf.
 *
 * Expected values are written out independently of the parser (sizes as
 * shifts, fields by name), so a wrong unit or a lost line fails here.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "route/config.h"

static int failures;

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
        failures++; \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
    } } while (0)

static char tmpdir[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

/* Collects every reported problem. */
typedef struct msgs {
    int n;
    char m[16][600];
} msgs;

static void collect(void *ctx, const char *msg)
{
    msgs *ms = ctx;
    if (ms->n < 16)
        snprintf(ms->m[ms->n], sizeof ms->m[0], "%s", msg);
    ms->n++;
}

static const char *env_vars[] = {
    "FL_BACKEND", "TORCH_FL_FALLBACK_MODE", "TORCH_FL_FALLBACK_DEVICE",
    "TORCH_FL_OP_BLACKLIST", "TORCH_FL_MEM_POOL_SIZE", "TORCH_FL_STREAM_NUM",
    "TORCHFL_LOG", "TORCHFL_STATS", "TORCHFL_PLUGIN_PATH", "TORCHFL_CONFIG",
    "TORCHFL_DEVICE_COUNT", "TORCHFL_NCCL_TIMEOUT",
};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++)
        unsetenv(env_vars[i]);
}

/* -------------------------------------------------------------- sizes */

static void test_sizes(void)
{
    struct { const char *s; uint64_t v; } good[] = {
        { "0", 0 }, { "1024", 1024 }, { "8G", 8ull << 30 }, { "8g", 8ull << 30 },
        { "512M", 512ull << 20 }, { "64K", 64ull << 10 }, { "2T", 2ull << 40 },
        { "2GiB", 2ull << 30 }, { "2GB", 2ull << 30 }, { "100B", 100 },
        { " 3 G ", 3ull << 30 }, { "1.5G", 3ull << 29 }, { "0.25K", 256 },
        { "16777215T", 16777215ull << 40 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 12345;
        int r = tfl_config_parse_size(good[i].s, &v);
        CHECK(r == 0 && v == good[i].v, "\"%s\" -> r=%d %" PRIu64 ", want %" PRIu64,
              good[i].s, r, v, good[i].v);
    }
    const char *bad[] = { "", "abc", "8X", "-1", "1.5", "G", "8 G B x",
                          "18446744073709551616", "16777216T", "1.G", "8GG",
                          NULL };
    for (int i = 0; bad[i]; i++) {
        uint64_t v = 777;
        CHECK(tfl_config_parse_size(bad[i], &v) == -1 && v == 777,
              "\"%s\" should be refused", bad[i]);
    }
    CHECK(tfl_config_parse_size(NULL, NULL) == -1, "NULL");
}

/* ------------------------------------------------------------ defaults */

static void check_defaults(const tfl_config *c, const char *what)
{
    CHECK(strcmp(c->backend, "auto") == 0, "%s: backend %s", what, c->backend);
    CHECK(c->fallback == TFL_FALLBACK_WARN, "%s: fallback", what);
    CHECK(strcmp(c->fallback_device, "host") == 0, "%s: fallback device", what);
    CHECK(c->op_blacklist[0] == '\0', "%s: blacklist", what);
    CHECK(c->mem_pool_size == 0, "%s: pool", what);
    CHECK(c->stream_num == 4, "%s: streams %d", what, c->stream_num);
    CHECK(c->log_level == TFL_LOG_WARN, "%s: log", what);
    CHECK(c->stats_path[0] == '\0' && c->plugin_path[0] == '\0', "%s: paths", what);
    CHECK(c->cc_major == 8 && c->cc_minor == 0, "%s: cc %d.%d", what,
          c->cc_major, c->cc_minor);
    CHECK(c->device_count == 1 && c->nccl_timeout_s == 600, "%s: device count, nccl timeout", what);
    CHECK(c->exec_threads == 0 && c->blas_threads == 0, "%s: threads", what);
}

/* ------------------------------------------------------- every key */

static void test_every_key(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/all.conf", tmpdir);
    write_file(path,
        "# every key, top level and in sections\n"
        "backend = fake\n"
        "   \n"
        "fallback.mode = strict   # inline comment\n"
        "fallback.device=host\n"
        "op.blacklist =  gemm , softmax,,  add \n"
        "mem.pool_size = 6G\n"
        "[stream]\n"
        "num = 7\n"
        "[ log ]\n"
        "level = debug\n"
        "[]\n"
        "stats.path = /tmp/a#b.json\n"
        "plugin.path = \"/p1:/p2 # not a comment\"  # a comment\n"
        "[device]\n"
        "compute_capability = 9.0\n"
        "count = 3\n"
        "[host]\n"
        "threads = 5\n"
        "blas_threads = 2\n"
        "[nccl]\n"
        "timeout = 90\n");
    tfl_config c;
    tfl_config_defaults(&c);
    msgs ms = { 0 };
    int bad = tfl_config_parse_file_ex(path, &c, collect, &ms);
    CHECK(bad == 0 && ms.n == 0, "bad=%d first=%s", bad, ms.m[0]);
    CHECK(strcmp(c.backend, "fake") == 0, "backend");
    CHECK(c.fallback == TFL_FALLBACK_STRICT, "fallback.mode");
    CHECK(strcmp(c.fallback_device, "host") == 0, "fallback.device");
    CHECK(strcmp(c.op_blacklist, "gemm,softmax,add") == 0, "blacklist '%s'",
          c.op_blacklist);
    CHECK(c.mem_pool_size == 6ull << 30, "pool");
    CHECK(c.stream_num == 7, "stream.num");
    CHECK(c.log_level == TFL_LOG_DEBUG, "log.level");
    CHECK(strcmp(c.stats_path, "/tmp/a#b.json") == 0, "stats '%s'", c.stats_path);
    CHECK(strcmp(c.plugin_path, "/p1:/p2 # not a comment") == 0, "plugin '%s'",
          c.plugin_path);
    CHECK(c.cc_major == 9 && c.cc_minor == 0, "cc");
    CHECK(c.device_count == 3, "device.count");
    CHECK(c.exec_threads == 5 && c.blas_threads == 2, "threads");
    CHECK(c.nccl_timeout_s == 90, "nccl.timeout");
    CHECK(strcmp(c.source, path) == 0, "source %s", c.source);

    /* canonical text of every key */
    struct { const char *k, *v; } fmt[] = {
        { "backend", "fake" }, { "fallback.mode", "strict" },
        { "fallback.device", "host" }, { "op.blacklist", "gemm,softmax,add" },
        { "mem.pool_size", "6442450944" }, { "stream.num", "7" },
        { "log.level", "debug" }, { "stats.path", "/tmp/a#b.json" },
        { "plugin.path", "/p1:/p2 # not a comment" },
        { "device.compute_capability", "9.0" }, { "device.count", "3" },
        { "host.threads", "5" }, { "host.blas_threads", "2" }, { "nccl.timeout", "90" },
    };
    size_t nfmt = sizeof fmt / sizeof fmt[0];
    for (size_t i = 0; i < nfmt; i++) {
        char buf[2048];
        CHECK(tfl_config_format(&c, fmt[i].k, buf, sizeof buf) == 0 &&
              strcmp(buf, fmt[i].v) == 0, "%s = '%s'", fmt[i].k, buf);
    }
    char buf[64];
    CHECK(tfl_config_format(&c, "nope", buf, sizeof buf) == -1, "unknown key");
    size_t nk = 0;
    for (const char *const *k = tfl_config_keys(); *k; k++)
        nk++;
    CHECK(nk == nfmt, "%zu keys documented, %zu tested", nk, nfmt);

    /* 12.0 and 7.5 */
    write_file(path, "device.compute_capability = 12.0\n");
    CHECK(tfl_config_parse_file_ex(path, &c, NULL, NULL) == 0 &&
          c.cc_major == 12 && c.cc_minor == 0, "cc 12.0");
    write_file(path, "[device]\ncompute_capability=7.5\n[fallback]\nmode=SILENT\n");
    CHECK(tfl_config_parse_file_ex(path, &c, NULL, NULL) == 0 &&
          c.cc_major == 7 && c.cc_minor == 5 && c.fallback == TFL_FALLBACK_SILENT,
          "cc 7.5 / silent");
}

/* ----------------------------------------------------------- bad lines */

static void test_bad_lines(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bad.conf", tmpdir);
    write_file(path,
        "stream.num = 3\n"                         /* 1 good */
        "foo = 1\n"                                /* 2 unknown key */
        "mem.pool_size = lots\n"                   /* 3 bad size */
        "this line has no equals sign\n"           /* 4 */
        "[broken\n"                                /* 5 */
        "stream.num = 0\n"                         /* 6 out of range */
        "device.compute_capability = 8\n"          /* 7 */
        "fallback.mode = loud\n"                   /* 8 */
        "backend = ../../tmp/evil\n"               /* 9 */
        "= 4\n"                                    /* 10 */
        "[host]\n"                                 /* 11 */
        "bogus = 2\n"                              /* 12 host.bogus */
        "threads = 6\n"                            /* 13 good, after errors */
        "log.level = noisy\n"                      /* 14 host.log.level */
        "[]\n"
        "plugin.path = \"/unterminated\n"          /* 16 */
        "host.blas_threads = -1\n"                 /* 17 */
        "device.count = 65\n");                    /* 18 */
    tfl_config c;
    tfl_config_defaults(&c);
    msgs ms = { 0 };
    int bad = tfl_config_parse_file_ex(path, &c, collect, &ms);
    CHECK(bad == 14 && ms.n == 14, "bad=%d reported=%d", bad, ms.n);
    /* good lines around the bad ones still apply; bad ones change nothing */
    CHECK(c.stream_num == 3, "stream.num %d (line 6 must not apply)", c.stream_num);
    CHECK(c.exec_threads == 6, "host.threads after bad lines");
    CHECK(c.mem_pool_size == 0 && c.cc_major == 8 && c.fallback == TFL_FALLBACK_WARN &&
          strcmp(c.backend, "auto") == 0 && c.device_count == 1 &&
          c.blas_threads == 0, "bad values must not apply");
    const int lines[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 17, 18 };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char want[600];
        snprintf(want, sizeof want, "%s:%d: ", path, lines[i]);
        int found = 0;
        for (int j = 0; j < ms.n && j < 16; j++)
            found |= strncmp(ms.m[j], want, strlen(want)) == 0;
        CHECK(found, "no message for line %d", lines[i]);
    }
    char want[600];
    snprintf(want, sizeof want, "%s:2: unknown key \"foo\"", path);
    CHECK(strcmp(ms.m[0], want) == 0, "got '%s'", ms.m[0]);
    snprintf(want, sizeof want, "%s:12: unknown key \"host.bogus\"", path);
    CHECK(ms.n > 9 && strcmp(ms.m[9], want) == 0, "got '%s'", ms.m[9]);

    /* the simple API returns the first problem */
    char err[600];
    tfl_config_defaults(&c);
    CHECK(tfl_config_parse_file(path, &c, err, sizeof err) == -1, "-1 on bad");
    snprintf(want, sizeof want, "%s:2: unknown key \"foo\"", path);
    CHECK(strcmp(err, want) == 0, "err '%s'", err);

    /* a directory opens but cannot be read: -1, reported */
    tfl_config_defaults(&c);
    ms.n = 0;
    CHECK(tfl_config_parse_file_ex(tmpdir, &c, collect, &ms) == -1 && ms.n == 1 &&
          strstr(ms.m[0], "cannot read"), "directory: %s", ms.m[0]);

    /* CRLF line ends and a UTF-8 byte-order mark are not errors */
    snprintf(path, sizeof path, "%s/dos.conf", tmpdir);
    write_file(path, "\xEF\xBB\xBFstream.num = 2\r\n[host]\r\nthreads = 9\r\n");
    tfl_config_defaults(&c);
    CHECK(tfl_config_parse_file_ex(path, &c, NULL, NULL) == 0 && c.stream_num == 2 &&
          c.exec_threads == 9, "BOM/CRLF");

    /* a missing file: -1, reported, config untouched */
    snprintf(path, sizeof path, "%s/missing.conf", tmpdir);
    tfl_config_defaults(&c);
    ms.n = 0;
    CHECK(tfl_config_parse_file_ex(path, &c, collect, &ms) == -1 && ms.n == 1 &&
          strstr(ms.m[0], "missing.conf"), "missing file");
    check_defaults(&c, "after missing file");
}

/* --------------------------------------------------------- environment */

static void test_env(void)
{
    clear_env();
    tfl_config c;
    tfl_config_defaults(&c);
    setenv("FL_BACKEND", "host", 1);
    setenv("TORCH_FL_FALLBACK_MODE", "silent", 1);
    setenv("TORCH_FL_FALLBACK_DEVICE", "cpu2", 1);
    setenv("TORCH_FL_OP_BLACKLIST", "gemm, softmax", 1);
    setenv("TORCH_FL_MEM_POOL_SIZE", "512M", 1);
    setenv("TORCH_FL_STREAM_NUM", "9", 1);
    setenv("TORCHFL_LOG", "2", 1);
    setenv("TORCHFL_STATS", "/tmp/s.json", 1);
    setenv("TORCHFL_PLUGIN_PATH", "/x:/y", 1);
    setenv("TORCHFL_DEVICE_COUNT", "4", 1);
    setenv("TORCHFL_NCCL_TIMEOUT", "30", 1);
    char err[600] = "x";
    CHECK(tfl_config_apply_env(&c, err, sizeof err) == 0 && err[0] == '\0',
          "env: %s", err);
    CHECK(strcmp(c.backend, "host") == 0 && c.fallback == TFL_FALLBACK_SILENT &&
          strcmp(c.fallback_device, "cpu2") == 0 &&
          strcmp(c.op_blacklist, "gemm,softmax") == 0 &&
          c.mem_pool_size == 512ull << 20 && c.stream_num == 9 &&
          c.log_level == TFL_LOG_INFO && strcmp(c.stats_path, "/tmp/s.json") == 0 &&
          strcmp(c.plugin_path, "/x:/y") == 0 && c.device_count == 4 &&
          c.nccl_timeout_s == 30, "env overrides");

    /* bad values: reported with the variable name, ignored */
    setenv("TORCH_FL_STREAM_NUM", "many", 1);
    setenv("TORCH_FL_MEM_POOL_SIZE", "1Q", 1);
    setenv("FL_BACKEND", "", 1); /* empty = unset */
    msgs ms = { 0 };
    CHECK(tfl_config_apply_env_ex(&c, collect, &ms) == 2 && ms.n == 2, "2 bad");
    CHECK(strncmp(ms.m[0], "TORCH_FL_MEM_POOL_SIZE=1Q: ", 27) == 0, "%s", ms.m[0]);
    CHECK(strncmp(ms.m[1], "TORCH_FL_STREAM_NUM=many: ", 26) == 0, "%s", ms.m[1]);
    CHECK(c.stream_num == 9 && c.mem_pool_size == 512ull << 20 &&
          strcmp(c.backend, "host") == 0, "bad env kept the earlier values");
    CHECK(tfl_config_apply_env(&c, err, sizeof err) == -1 &&
          strstr(err, "TORCH_FL_MEM_POOL_SIZE"), "first env error: %s", err);
    clear_env();
}

/* -------------------------------------------------------- search order */

static void test_search(void)
{
    clear_env();
    char home[512], work[512], p[700];
    snprintf(home, sizeof home, "%s/home", tmpdir);
    snprintf(work, sizeof work, "%s/work", tmpdir);
    mkdir(home, 0700);
    mkdir(work, 0700);
    snprintf(p, sizeof p, "%s/.config", home);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/.config/torchfl", home);
    mkdir(p, 0700);
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd) || chdir(work) != 0) {
        perror("chdir");
        failures++;
        return;
    }
    setenv("HOME", home, 1);
    char found[1024];
    int etc = access("/etc/torchfl/torchfl.conf", R_OK) == 0;

    /* nothing anywhere (unless this machine has /etc/torchfl) */
    int r = tfl_config_find_file(found, sizeof found);
    if (!etc)
        CHECK(r == -1 && strcmp(found, "defaults") == 0, "none: %d %s", r, found);

    /* ~/.config/torchfl/torchfl.conf */
    char homefile[800];
    snprintf(homefile, sizeof homefile, "%s/.config/torchfl/torchfl.conf", home);
    write_file(homefile, "stream.num = 11\n");
    CHECK(tfl_config_find_file(found, sizeof found) == 0 &&
          strcmp(found, homefile) == 0, "home: %s", found);
    tfl_config c;
    tfl_config_load(&c, NULL, NULL);
    CHECK(c.stream_num == 11 && strcmp(c.source, homefile) == 0, "home loaded");

    /* ./torchfl.conf beats home; only one file is read */
    write_file("torchfl.conf", "device.count = 2\n");
    CHECK(tfl_config_find_file(found, sizeof found) == 0 &&
          strcmp(found, "torchfl.conf") == 0, "cwd: %s", found);
    tfl_config_load(&c, NULL, NULL);
    CHECK(c.device_count == 2 && c.stream_num == 4, "cwd file alone applies");

    /* $TORCHFL_CONFIG beats both */
    char envfile[800];
    snprintf(envfile, sizeof envfile, "%s/env.conf", tmpdir);
    write_file(envfile, "host.threads = 13\n");
    setenv("TORCHFL_CONFIG", envfile, 1);
    tfl_config_load(&c, NULL, NULL);
    CHECK(c.exec_threads == 13 && c.device_count == 1 &&
          strcmp(c.source, envfile) == 0, "TORCHFL_CONFIG file");

    /* environment variables beat the file */
    setenv("TORCH_FL_STREAM_NUM", "21", 1);
    tfl_config_load(&c, NULL, NULL);
    CHECK(c.exec_threads == 13 && c.stream_num == 21, "env over file");
    unsetenv("TORCH_FL_STREAM_NUM");

    /* /dev/null: defaults only, although two files exist */
    setenv("TORCHFL_CONFIG", "/dev/null", 1);
    tfl_config_load(&c, NULL, NULL);
    check_defaults(&c, "/dev/null");

    /* a named file that is missing: reported, defaults, not another file */
    snprintf(p, sizeof p, "%s/nope.conf", tmpdir);
    setenv("TORCHFL_CONFIG", p, 1);
    msgs ms = { 0 };
    tfl_config_load(&c, collect, &ms);
    CHECK(ms.n == 1 && strstr(ms.m[0], "nope.conf"), "missing named file");
    check_defaults(&c, "missing named file");

    unlink("torchfl.conf");
    unlink(homefile);
    unsetenv("TORCHFL_CONFIG");
    if (chdir(cwd) != 0)
        perror("chdir back");
}

/* ------------------------------------------- the shipped torchfl.conf */

static void test_shipped_file(void)
{
    /* the repository root, from this file's path */
    char root[1024];
    snprintf(root, sizeof root, "%s", __FILE__);
    char *cut = strstr(root, "tests/unit/test_config.c");
    if (!cut || cut == root) {
        fprintf(stderr, "cannot locate the source tree from %s\n", __FILE__);
        failures++;
        return;
    }
    strcpy(cut, "config/torchfl.conf");
    tfl_config c;
    tfl_config_defaults(&c);
    msgs ms = { 0 };
    CHECK(tfl_config_parse_file_ex(root, &c, collect, &ms) == 0, "%s: %s", root,
          ms.m[0]);
    check_defaults(&c, "shipped file as is");

    /* uncomment every "# key = value" line: each key must be known and
     * the documented values must be the defaults */
    FILE *in = fopen(root, "r");
    char out[600];
    snprintf(out, sizeof out, "%s/uncommented.conf", tmpdir);
    FILE *o = fopen(out, "w");
    if (!in || !o) {
        failures++;
        return;
    }
    char line[1024];
    int uncommented = 0;
    while (fgets(line, sizeof line, in)) {
        const char *s = line;
        if (strncmp(s, "# ", 2) == 0) {
            const char *k = s + 2, *e = k;
            while ((*e >= 'a' && *e <= 'z') || *e == '_' || *e == '.')
                e++;
            if (e > k && e[0] == ' ' && e[1] == '=' &&
                (e[2] == ' ' || e[2] == '\n')) {
                s += 2;
                uncommented++;
            }
        }
        fputs(s, o);
    }
    fclose(in);
    fclose(o);
    CHECK(uncommented == 19, "%d keys documented in the shipped file", uncommented);
    tfl_config_defaults(&c);
    ms.n = 0;
    CHECK(tfl_config_parse_file_ex(out, &c, collect, &ms) == 0, "uncommented: %s",
          ms.m[0]);
    check_defaults(&c, "shipped file uncommented");
}

/* ------------------------------------------------- process-wide cache */

static void *get_cfg(void *arg)
{
    (void)arg;
    return (void *)tfl_config_get();
}

static void test_global(void)
{
    char path[512], logpath[512];
    snprintf(path, sizeof path, "%s/global.conf", tmpdir);
    snprintf(logpath, sizeof logpath, "%s/stderr.txt", tmpdir);
    write_file(path, "mem.pool_size = 2G\nwhat = 1\nhost.threads = 3\n"
                     "[opencl]\ndevice = 2\nplatform = Portable\n");
    clear_env();
    setenv("TORCHFL_CONFIG", path, 1);
    setenv("TORCH_FL_STREAM_NUM", "5", 1);
    setenv("TORCHFL_OPENCL_PLATFORM", "NVIDIA CUDA", 1);

    /* capture stderr to count how often the bad line is logged */
    fflush(stderr);
    int saved = dup(2);
    FILE *lf = fopen(logpath, "w");
    dup2(fileno(lf), 2);
    pthread_t th[8];
    void *res[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&th[i], NULL, get_cfg, NULL);
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], &res[i]);
    const tfl_config *c = tfl_config_get();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(lf);

    for (int i = 0; i < 8; i++)
        CHECK(res[i] == c, "one config for all threads");
    CHECK(c->mem_pool_size == 2ull << 30 && c->exec_threads == 3 &&
          c->stream_num == 5, "global values");
    CHECK(strcmp(tfl_config_value("mem.pool_size"), "2147483648") == 0 &&
          strcmp(tfl_config_value("stream.num"), "5") == 0 &&
          strcmp(tfl_config_value("device.compute_capability"), "8.0") == 0 &&
          strcmp(tfl_config_value("backend"), "auto") == 0,
          "tfl_config_value");
    CHECK(tfl_config_value("what") == NULL && tfl_config_value(NULL) == NULL,
          "unknown key has no value");
    /* a backend's own section: kept verbatim for its plugin, and
     * TORCHFL_<SECTION>_<KEY> overrides it */
    CHECK(tfl_config_value("opencl.device") &&
          strcmp(tfl_config_value("opencl.device"), "2") == 0, "backend key");
    CHECK(tfl_config_value("opencl.platform") &&
          strcmp(tfl_config_value("opencl.platform"), "NVIDIA CUDA") == 0,
          "backend key from the environment");
    CHECK(tfl_config_value("opencl.nope") == NULL &&
          tfl_config_value("host.nope") == NULL, "absent backend key, core section");
    unsetenv("TORCHFL_OPENCL_PLATFORM");

    FILE *in = fopen(logpath, "r");
    char line[1024], want[700];
    snprintf(want, sizeof want, "torchfl: error: %s:2: unknown key \"what\"\n", path);
    int n = 0, match = 0;
    while (in && fgets(line, sizeof line, in)) {
        n++;
        match += strcmp(line, want) == 0;
    }
    if (in)
        fclose(in);
    CHECK(n == 1 && match == 1, "the bad line must be logged exactly once "
          "(%d lines, %d matching)", n, match);

    /* loaded once: later changes to the environment do not apply */
    setenv("TORCH_FL_STREAM_NUM", "6", 1);
    CHECK(tfl_config_get()->stream_num == 5, "cached");
    clear_env();
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_config.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    tfl_config c;
    tfl_config_defaults(&c);
    check_defaults(&c, "defaults");
    CHECK(strcmp(c.source, "defaults") == 0, "source");

    test_sizes();
    test_every_key();
    test_bad_lines();
    test_env();
    test_search();
    test_shipped_file();
    test_global();

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_config: ok\n");
    return 0;
}

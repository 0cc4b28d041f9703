/*
 * test_plugin.c - backend discovery, loading, ABI checks and selection.
 *
 * Uses the test plugins of tests/plugin (libtorchfl-fake.so and its broken
 * siblings) through the plugin search path.  Selection by environment
 * (FL_BACKEND, read once per process by the config) is checked in child
 * processes: this program re-executes itself with "child EXPECTED".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "route/config.h"
#include "route/plugin.h"

#ifndef TFL_TEST_PLUGIN_DIR
#error "TFL_TEST_PLUGIN_DIR must be defined by tests/plugin/CMakeLists.txt"
#endif

static int failures;

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
        failures++; \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
    } } while (0)

static const tfl_backend_desc *find(const tfl_backend_desc *d, int n,
                                    const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(d[i].name, name) == 0)
            return &d[i];
    return NULL;
}

/* Child: select the configured backend; it must be `expect`, or with
 * expect "NULL" there must be none and the reason must hold every string
 * in want[]. */
static int child(const char *expect, char **want, int nwant)
{
    char why[2048];
    const tfl_backend *b = tfl_backend_select(NULL, why, sizeof why);
    if (strcmp(expect, "NULL") == 0) {
        if (b) {
            fprintf(stderr, "child: expected no backend, got %s\n", b->name);
            return 1;
        }
        for (int i = 0; i < nwant; i++)
            if (!strstr(why, want[i])) {
                fprintf(stderr, "child: reason lacks \"%s\": %s\n", want[i], why);
                return 1;
            }
        return 0;
    }
    if (!b || strcmp(b->name, expect) != 0) {
        fprintf(stderr, "child: expected %s, got %s (%s)\n", expect,
                b ? b->name : "NULL", why);
        return 1;
    }
    return 0;
}

/* Run this program as a child with extra environment "VAR=value" pairs;
 * want: strings the failure reason must contain (expect "NULL"). */
static int run_child(const char *expect, const char *const *env,
                     const char *const *want)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (; env && *env; env++) {
            char kv[512];
            snprintf(kv, sizeof kv, "%s", *env);
            char *eq = strchr(kv, '=');
            *eq = '\0';
            setenv(kv, eq + 1, 1);
        }
        const char *args[16] = { "test_plugin", "child", expect };
        int k = 3;
        for (; want && *want && k < 15; want++)
            args[k++] = *want;
        args[k] = NULL;
        execv("/proc/self/exe", (char *const *)args);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(int argc, char **argv)
{
    /* before the config is read: defaults only, our plugins first */
    setenv("TORCHFL_CONFIG", "/dev/null", 1);
    setenv("TORCHFL_PLUGIN_PATH", TFL_TEST_PLUGIN_DIR, 1);
    if (argc >= 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2], argv + 3, argc - 3);
    unsetenv("FL_BACKEND");
    unsetenv("FAKE_PROBE_FAIL");
    /* above any real plugin a build tree may hold in build/plugins */
    setenv("FAKE_PRIORITY", "1000000", 1);

    char search[4096];
    tfl_plugin_search_path(search, sizeof search);
    CHECK(strncmp(search, TFL_TEST_PLUGIN_DIR ":", strlen(TFL_TEST_PLUGIN_DIR) + 1) == 0,
          "search path %s should start with the configured dir", search);
    CHECK(strstr(search, "/plugins") != NULL, "no <libdir>/plugins in %s", search);

    /* ---- listing */
    tfl_backend_desc d[TFL_BACKEND_MAX];
    int n = tfl_backend_list(d, TFL_BACKEND_MAX);
    CHECK(n >= 5, "expected host + 4 test plugins, got %d", n);
    CHECK(n > 0 && strcmp(d[0].name, "host") == 0 && d[0].builtin &&
          d[0].state == TFL_BK_READY, "host must come first and be ready");

    const tfl_backend_desc *fake = find(d, n, "fake");
    CHECK(fake && fake->state == TFL_BK_READY && fake->table &&
          fake->priority == 1000000 && !fake->builtin &&
          strstr(fake->path, TFL_TEST_PLUGIN_DIR "/libtorchfl-fake.so"),
          "fake plugin not found ready with priority 1000000");

    const tfl_backend_desc *abi = find(d, n, "fakeabi");
    CHECK(abi && abi->state == TFL_BK_BROKEN && !abi->table &&
          strstr(abi->why, "ABI 2") && strstr(abi->why, "ABI 1"),
          "newer-ABI plugin must be refused with a reason: %s",
          abi ? abi->why : "(missing)");

    const tfl_backend_desc *noentry = find(d, n, "noentry");
    CHECK(noentry && noentry->state == TFL_BK_BROKEN &&
          strstr(noentry->why, TORCHFL_BACKEND_ENTRY),
          "plugin without entry must be refused: %s",
          noentry ? noentry->why : "(missing)");

    const tfl_backend_desc *old = find(d, n, "fakeold");
    CHECK(old && old->state == TFL_BK_READY && old->table, "old plugin missing");
    if (old && old->table) {
        /* the poison past its struct_size must have become NULL */
        CHECK(old->table->memcpy == NULL && old->table->op_supported == NULL &&
              old->table->op_run == NULL, "entries past struct_size not NULL");
        CHECK(old->table->mem_free != NULL && old->table->device_count != NULL,
              "entries inside struct_size lost");
        CHECK(old->table->struct_size < sizeof(tfl_backend), "struct_size");
        CHECK(tfl_backend_op_count(old->table) == 0, "no op_supported -> 0 ops");
    }

    /* ---- selection */
    char why[2048];
    const tfl_backend *b = tfl_backend_select("auto", why, sizeof why);
    CHECK(b && strcmp(b->name, "fake") == 0, "auto should pick fake, got %s",
          b ? b->name : why);
    b = tfl_backend_select(NULL, why, sizeof why); /* config: auto */
    CHECK(b && strcmp(b->name, "fake") == 0, "default should be auto");

    b = tfl_backend_select("host", why, sizeof why);
    CHECK(b && strcmp(b->name, "host") == 0, "host by name");

    b = tfl_backend_select("fake", why, sizeof why);
    CHECK(b && fake && b == fake->table, "fake by name gives the loaded table");
    if (b) {
        CHECK(b->init(tfl_plugin_host_api()) == TFL_OK, "fake init with host API");
        CHECK(b->device_count() == 2, "fake device count %d", b->device_count());
        tfl_device_info info;
        CHECK(b->device_info(1, &info) == TFL_OK &&
              strcmp(info.name, "Fake Accelerator 1") == 0 &&
              info.total_mem == (1ull << 30), "fake device info");
        CHECK(tfl_backend_op_count(b) == 1, "fake maps gemm only: %d",
              tfl_backend_op_count(b));
        /* loaded once: a second listing gives the same table */
        tfl_backend_desc d2[TFL_BACKEND_MAX];
        int n2 = tfl_backend_list(d2, TFL_BACKEND_MAX);
        const tfl_backend_desc *f2 = find(d2, n2, "fake");
        CHECK(f2 && f2->table == b, "plugin loaded twice");
    }

    b = tfl_backend_select("nonexistent", why, sizeof why);
    CHECK(!b && strstr(why, "\"nonexistent\" not found") &&
          strstr(why, TFL_TEST_PLUGIN_DIR) && strstr(why, "available: host") &&
          strstr(why, "fake") && strstr(why, "unusable: fakeabi"),
          "bad reason: %s", why);

    b = tfl_backend_select("fakeabi", why, sizeof why);
    CHECK(!b && strstr(why, "fakeabi") && strstr(why, "ABI 2"),
          "ABI mismatch reason: %s", why);

    /* ---- selection through the environment, in fresh processes */
    const char *e_fake[] = { "FL_BACKEND=fake", NULL };
    CHECK(run_child("fake", e_fake, NULL) == 0, "FL_BACKEND=fake");
    const char *e_none[] = { "FL_BACKEND=nonexistent", NULL };
    const char *w_none[] = { "\"nonexistent\" not found", TFL_TEST_PLUGIN_DIR,
                             "available: host", ", fake", NULL };
    CHECK(run_child("NULL", e_none, w_none) == 0, "FL_BACKEND=nonexistent");
    const char *e_low[] = { "FAKE_PRIORITY=0", NULL };
    CHECK(run_child("fakeold", e_low, NULL) == 0, "auto: higher priority wins");
    const char *e_neg[] = { "FAKE_PRIORITY=-7", NULL };
    CHECK(run_child("fakeold", e_neg, NULL) == 0, "auto: negative priority loses");
    const char *e_off[] = { "FAKE_PROBE_FAIL=1", NULL };
    CHECK(run_child("host", e_off, NULL) == 0, "auto: nothing ready -> host");
    const char *e_off2[] = { "FAKE_PROBE_FAIL=1", "FL_BACKEND=fake", NULL };
    const char *w_off2[] = { "\"fake\" is not ready", "FAKE_PROBE_FAIL",
                             "not ready: fake", NULL };
    CHECK(run_child("NULL", e_off2, w_off2) == 0, "a backend that is not ready");
    const char *e_bad[] = { "FL_BACKEND=../etc/x", NULL };
    /* a bad name in the environment is ignored (auto stays) */
    CHECK(run_child("fake", e_bad, NULL) == 0, "FL_BACKEND with a path");

    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_plugin: ok (%d backends found)\n", n);
    return 0;
}

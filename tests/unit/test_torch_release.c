/*
 * test_torch_release.c - which torch is installed or loaded, and whether
 * it is a validated release (route/torch_release.c): torch/version.py is
 * read beside a torch/lib directory, a loaded libtorch_cuda.so is found
 * among the process's objects, and an unvalidated one gets one warning.
 *
 * The "installed torch" here is a directory the test makes: torch/lib with
 * a libtorch_cuda.so (a copy of libz, any loadable object will do: only its
 * path matters) and torch/version.py.
 */
#define _GNU_SOURCE
#include "route/torch_release.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int ok = a && b;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a) fclose(a);
    if (b) fclose(b);
    return ok ? 0 : -1;
}

/* Run tfl_torch_check_loaded with stderr captured into out. */
static void capture_check(char *out, size_t len)
{
    char path[] = "/tmp/tfl_torch_logXXXXXX";
    int fd = mkstemp(path);
    int saved = dup(2);
    dup2(fd, 2);
    tfl_torch_check_loaded();
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

int main(void)
{
    /* the compiled-in list: newest first, every entry validated */
    const char *list = tfl_torch_validated_list();
    CHECK(list && *list);
    char first[32];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(list, " "), list);
    CHECK(tfl_torch_validated(first));
    char local[64];
    snprintf(local, sizeof local, "%s+cu132", first);
    CHECK(tfl_torch_validated(local));           /* the local suffix is ignored */
    CHECK(!tfl_torch_validated("2.99.0"));
    CHECK(!tfl_torch_validated("2.1"));          /* a prefix of an entry is not one */
    CHECK(!tfl_torch_validated(""));
    CHECK(!tfl_torch_validated(NULL));

    char root[] = "/tmp/tfl_torchXXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char pkg[64], lib[128], ver[192], so[192];
    snprintf(pkg, sizeof pkg, "%s/torch", root);
    snprintf(lib, sizeof lib, "%s/lib", pkg);
    snprintf(ver, sizeof ver, "%s/version.py", pkg);
    snprintf(so, sizeof so, "%s/libtorch_cuda.so", lib);
    mkdir(pkg, 0700);
    mkdir(lib, 0700);

    tfl_torch_info t;
    CHECK(tfl_torch_read(lib, &t) == -1);         /* no version.py yet */
    write_file(ver, "from typing import Optional\n"
                    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                    "__version__ = '2.99.0+cu199'\n"
                    "debug = False\n"
                    "cuda: Optional[str] = '19.9'\n"
                    "git_version = 'abc'\n");
    CHECK(tfl_torch_read(lib, &t) == 0);
    CHECK(strcmp(t.version, "2.99.0+cu199") == 0);
    CHECK(strcmp(t.cuda, "19.9") == 0);
    CHECK(strcmp(t.libdir, lib) == 0);

    /* nothing named libtorch_cuda.so is loaded: no torch, no message */
    CHECK(tfl_torch_loaded(&t) == -1);
    char log[2048];
    capture_check(log, sizeof log);
    CHECK(log[0] == '\0');

    /* "load torch": an object at torch/lib/libtorch_cuda.so */
    Dl_info di;
    void *z = dlopen("libz.so.1", RTLD_NOW);
    void *zsym = z ? dlsym(z, "zlibVersion") : NULL;
    CHECK(zsym && dladdr(zsym, &di) && di.dli_fname);
    if (zsym && di.dli_fname && copy_file(di.dli_fname, so) == 0) {
        void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
        CHECK(h != NULL);
        CHECK(tfl_torch_loaded(&t) == 0 && strcmp(t.version, "2.99.0+cu199") == 0);
        capture_check(log, sizeof log);
        CHECK(strstr(log, "torchfl: warning: torch 2.99.0+cu199 is not a release") != NULL);
        CHECK(strstr(log, first) != NULL);        /* names the validated range */
        CHECK(strchr(log, '\n') == log + strlen(log) - 1);   /* one line */
        /* a validated version: no warning */
        char text[128];
        snprintf(text, sizeof text, "__version__ = '%s+cu130'\ncuda = '13.0'\n", first);
        write_file(ver, text);
        capture_check(log, sizeof log);
        CHECK(strstr(log, "warning") == NULL);
        if (h)
            dlclose(h);
    }
    unlink(so);
    unlink(ver);
    rmdir(lib);
    rmdir(pkg);
    rmdir(root);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}

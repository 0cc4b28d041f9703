/*
 * bench_rss.c - resident memory that loading torchfl costs.
 *
 * Prints VmRSS (from /proc/self/status) before and after dlopen of a
 * library, and the difference in KiB.  The library's constructors run, so
 * what it allocates at load time is counted too.
 *
 *   bench_rss [library]        (default build/libtorchfl.so)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static long vmrss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/libtorchfl.so";
    long before = vmrss_kib();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    long after = vmrss_kib();
    if (!h) {
        fprintf(stderr, "bench_rss: dlopen(%s) failed: %s\n", path, dlerror());
        return 1;
    }
    if (before < 0 || after < 0) {
        fprintf(stderr, "bench_rss: cannot read VmRSS from /proc/self/status\n");
        return 1;
    }
    printf("bench_rss: %s\n", path);
    printf("  VmRSS before dlopen: %ld KiB\n", before);
    printf("  VmRSS after dlopen : %ld KiB\n", after);
    printf("  difference         : %ld KiB\n", after - before);
    dlclose(h);
    return 0;
}

/*
 * program.c - the kernel cache: build each OpenCL C program once per
 * process, and keep its device binary on disk so the next process loads
 * it instead of compiling (compiling is 10-100 ms a program on PoCL).
 *
 * Key: FNV-1a of (source, options, device name, driver version); the
 * in-memory entry also keeps the source to rule out hash collisions.  The
 * disk cache is opencl.cache_dir, else $XDG_CACHE_HOME/torchfl/opencl,
 * else ~/.cache/torchfl/opencl; files are written to a temporary name and
 * renamed, so concurrent processes never read a half-written binary, and a
 * binary the driver refuses is rebuilt from source.
 */
#include "backends/opencl/ocl.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct prog {
    uint64_t key;
    char *src_opts;            /* source "\n//" options: collision check */
    cl_program p;
    struct kern {
        char name[96];
        ocl_kernel *k;
        struct kern *next;
    } *kernels;
    struct prog *next;
} prog;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static prog *progs;
static atomic_uint generation = 1;   /* bumped when the cache is freed */

unsigned ocl_program_generation(void)
{
    return atomic_load(&generation);
}

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void cache_dir(char *buf, size_t len)
{
    const char *v = ocl_host && ocl_host->config ? ocl_host->config("opencl.cache_dir") : NULL;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (v && v[0] == '~' && v[1] == '/')
        snprintf(buf, len, "%s%s", home && *home ? home : "/tmp", v + 1);
    else if (v && *v)
        snprintf(buf, len, "%s", v);
    else if (xdg && *xdg)
        snprintf(buf, len, "%s/torchfl/opencl", xdg);
    else
        snprintf(buf, len, "%s/.cache/torchfl/opencl", home && *home ? home : "/tmp");
}

static void mkdirs(const char *path)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

static cl_program from_disk(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return NULL;
    unsigned char *bin = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (bin = malloc((size_t)n)) && fread(bin, 1, (size_t)n, f) != (size_t)n) {
        free(bin);
        bin = NULL;
    }
    fclose(f);
    if (!bin)
        return NULL;
    const ocl_device *d = ocl_dev();
    size_t len = (size_t)n;
    const unsigned char *b = bin;
    cl_int rc, st;
    cl_program p = clCreateProgramWithBinary(d->ctx, 1, &d->id, &len, &b, &st, &rc);
    free(bin);
    if (rc != CL_SUCCESS || st != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        return NULL;
    }
    if (clBuildProgram(p, 1, &d->id, NULL, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static void to_disk(cl_program p, const char *dir, const char *file)
{
    size_t n = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || !n)
        return;
    unsigned char *bin = malloc(n);
    if (!bin)
        return;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
        mkdirs(dir);
        char tmp[1280];
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", file, (int)getpid());
        FILE *f = fopen(tmp, "wb");
        if (f) {
            int ok = fwrite(bin, 1, n, f) == n;
            ok = (fclose(f) == 0) && ok;
            if (!ok || rename(tmp, file) != 0)
                unlink(tmp);
        }
    }
    free(bin);
}

static void log_build_error(cl_program p)
{
    const ocl_device *d = ocl_dev();
    char logbuf[2048] = "";
    clGetProgramBuildInfo(p, d->id, CL_PROGRAM_BUILD_LOG, sizeof logbuf - 1, logbuf, NULL);
    logbuf[sizeof logbuf - 1] = '\0';
    for (char *c = logbuf; *c; c++)   /* one line */
        if (*c == '\n')
            *c = ' ';
    OCL_LOG(OCL_ERROR, "opencl: program build failed: %.400s", logbuf);
}

static cl_program build(const char *src, const char *opts, uint64_t key)
{
    const ocl_device *d = ocl_dev();
    char dir[1024], file[1200];
    cache_dir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/%016llx.bin", dir, (unsigned long long)key);
    cl_program p = from_disk(file);
    if (p)
        return p;
    cl_int rc;
    p = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &rc);
    if (rc != CL_SUCCESS) {
        ocl_status(rc, "clCreateProgramWithSource");
        return NULL;
    }
    rc = clBuildProgram(p, 1, &d->id, opts, NULL, NULL);
    if (rc != CL_SUCCESS) {
        log_build_error(p);
        clReleaseProgram(p);
        return NULL;
    }
    to_disk(p, dir, file);
    return p;
}

static uint64_t key_of(const char *src, const char *opts)
{
    const ocl_device *d = ocl_dev();
    uint64_t h = fnv(0xcbf29ce484222325ull, src);
    h = fnv(h, "\x01");
    h = fnv(h, opts);
    h = fnv(h, d->name);
    return fnv(h, d->driver_version);
}

static prog *prog_get(const char *src, const char *opts)
{
    uint64_t key = key_of(src, opts);
    size_t ls = strlen(src), lo = strlen(opts);
    for (prog *p = progs; p; p = p->next)
        if (p->key == key && strncmp(p->src_opts, src, ls) == 0 &&
            strcmp(p->src_opts + ls + 3, opts) == 0)
            return p;
    prog *p = calloc(1, sizeof *p);
    char *so = malloc(ls + lo + 4);
    if (!p || !so) {
        free(p);
        free(so);
        return NULL;
    }
    memcpy(so, src, ls);
    memcpy(so + ls, "\n//", 3);
    memcpy(so + ls + 3, opts, lo + 1);
    p->key = key;
    p->src_opts = so;
    p->p = build(src, opts, key);
    if (!p->p) {
        free(so);
        free(p);
        return NULL;
    }
    p->next = progs;
    progs = p;
    return p;
}

ocl_kernel *ocl_kernel_get(const char *src, const char *opts, const char *name)
{
    if (!ocl_dev() || !src || !name)
        return NULL;
    if (!opts)
        opts = "";
    /* one lock over lookups and builds: a program is built once even when
     * several threads ask for it at the same time */
    pthread_mutex_lock(&lock);
    ocl_kernel *k = NULL;
    prog *p = prog_get(src, opts);
    if (p) {
        for (struct kern *e = p->kernels; e && !k; e = e->next)
            if (strcmp(e->name, name) == 0)
                k = e->k;
        if (!k && strlen(name) < sizeof p->kernels->name) {
            cl_int rc;
            cl_kernel ck = clCreateKernel(p->p, name, &rc);
            struct kern *e = rc == CL_SUCCESS ? calloc(1, sizeof *e) : NULL;
            k = e ? calloc(1, sizeof *k) : NULL;
            if (k) {
                k->k = ck;
                pthread_mutex_init(&k->lock, NULL);
                snprintf(e->name, sizeof e->name, "%s", name);
                e->k = k;
                e->next = p->kernels;
                p->kernels = e;
            } else {
                free(e);
                if (rc == CL_SUCCESS)
                    clReleaseKernel(ck);
                else
                    ocl_status(rc, "clCreateKernel");
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return k;
}

tfl_status ocl_launch_1d(ocl_kernel *k, size_t n, tfl_stream s)
{
    if (n == 0)
        return TFL_OK;
    size_t wg = ocl_dev()->max_wg < 64 ? ocl_dev()->max_wg : 64;
    size_t global = (n + wg - 1) / wg * wg;
    cl_event ev = NULL;
    OCL_TRY(clEnqueueNDRangeKernel(ocl_queue(s), k->k, 1, NULL, &global, &wg, 0, NULL, &ev),
            "clEnqueueNDRangeKernel");
    ocl_track(s, ev);
    return TFL_OK;
}

void ocl_program_fini(void)
{
    pthread_mutex_lock(&lock);
    atomic_fetch_add(&generation, 1);
    while (progs) {
        prog *p = progs;
        progs = p->next;
        while (p->kernels) {
            struct kern *e = p->kernels;
            p->kernels = e->next;
            clReleaseKernel(e->k->k);
            pthread_mutex_destroy(&e->k->lock);
            free(e->k);
            free(e);
        }
        clReleaseProgram(p->p);
        free(p->src_opts);
        free(p);
    }
    pthread_mutex_unlock(&lock);
}

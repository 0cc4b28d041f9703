/*
 * mem.c - device memory: segments, address resolution, copies and sets.
 *
 * Each segment torchfl's pool asks for (mem_alloc) is one cl_mem and a
 * PROT_NONE reservation of the same size in the host's address space; the
 * reservation's addresses are what CUDA programs see.  The host cannot
 * read them (a stray access faults), and every copy resolves an address
 * to (cl_mem, offset) through the sorted segment table below.
 */
#include "backends/opencl/ocl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct segment {
    uintptr_t base;
    size_t size;
    cl_mem buf;
} segment;

/* Sorted by base; readers (every op) far outnumber writers (the pool
 * grows rarely), hence a read-write lock. */
static pthread_rwlock_t seg_lock = PTHREAD_RWLOCK_INITIALIZER;
static segment *segs;
static size_t nsegs, capsegs;

/* Index of the segment holding address a, or -1.  Caller holds seg_lock. */
static long seg_find(uintptr_t a)
{
    size_t lo = 0, hi = nsegs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a < segs[mid].base)
            hi = mid;
        else if (a >= segs[mid].base + segs[mid].size)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

int ocl_resolve(const void *p, size_t n, cl_mem *buf, size_t *off)
{
    uintptr_t a = (uintptr_t)p;
    pthread_rwlock_rdlock(&seg_lock);
    long i = seg_find(a);
    int ok = i >= 0 && n <= segs[i].size - (a - segs[i].base);
    if (ok) {
        *buf = segs[i].buf;
        *off = a - segs[i].base;
    }
    pthread_rwlock_unlock(&seg_lock);
    return ok;
}

static tfl_status seg_insert(segment s)
{
    pthread_rwlock_wrlock(&seg_lock);
    if (nsegs == capsegs) {
        size_t cap = capsegs ? capsegs * 2 : 64;
        segment *n = realloc(segs, cap * sizeof *n);
        if (!n) {
            pthread_rwlock_unlock(&seg_lock);
            return TFL_ERR_NOMEM;
        }
        segs = n;
        capsegs = cap;
    }
    size_t i = nsegs;
    while (i > 0 && segs[i - 1].base > s.base) {
        segs[i] = segs[i - 1];
        i--;
    }
    segs[i] = s;
    nsegs++;
    pthread_rwlock_unlock(&seg_lock);
    return TFL_OK;
}

tfl_status ocl_mem_alloc(int dev, size_t size, void **ptr)
{
    (void)dev;
    const ocl_device *d = ocl_dev();
    if (!d || !ptr || size == 0)
        return TFL_ERR_INVALID;
    void *va = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
    if (va == MAP_FAILED)
        return TFL_ERR_NOMEM;
    cl_int rc;
    cl_mem buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, size, NULL, &rc);
    if (rc != CL_SUCCESS) {
        munmap(va, size);
        /* the pool retries after trimming its cache: not an error yet */
        OCL_LOG(OCL_DEBUG, "opencl: clCreateBuffer of %zu bytes failed (%d)", size, (int)rc);
        return TFL_ERR_NOMEM;
    }
    tfl_status st = seg_insert((segment){ (uintptr_t)va, size, buf });
    if (st != TFL_OK) {
        clReleaseMemObject(buf);
        munmap(va, size);
        return st;
    }
    *ptr = va;
    return TFL_OK;
}

tfl_status ocl_mem_free(int dev, void *ptr, size_t size)
{
    (void)dev;
    pthread_rwlock_wrlock(&seg_lock);
    long i = seg_find((uintptr_t)ptr);
    if (i < 0 || segs[i].base != (uintptr_t)ptr || segs[i].size != size) {
        pthread_rwlock_unlock(&seg_lock);
        return TFL_ERR_INVALID;
    }
    cl_mem buf = segs[i].buf;
    memmove(&segs[i], &segs[i + 1], (nsegs - (size_t)i - 1) * sizeof *segs);
    nsegs--;
    pthread_rwlock_unlock(&seg_lock);
    /* commands still using buf keep it alive: OpenCL defers the release */
    clReleaseMemObject(buf);
    munmap(ptr, size);
    return TFL_OK;
}

/* Resolve a device side of a copy, logging what was wrong. */
static int side(const void *p, size_t n, cl_mem *buf, size_t *off, const char *what)
{
    if (ocl_resolve(p, n, buf, off))
        return 1;
    OCL_LOG(OCL_ERROR, "opencl: %s %p (+%zu bytes) is not device memory of this backend",
            what, p, n);
    return 0;
}

tfl_status ocl_memcpy(void *dst, const void *src, size_t n, tfl_copy_dir dir, tfl_stream s)
{
    if (n == 0)
        return TFL_OK;
    cl_command_queue q = ocl_queue(s);
    cl_mem db, sb;
    size_t doff, soff;
    cl_event ev = NULL;
    switch (dir) {
    case TFL_COPY_H2H:
        /* host memory: ordered after the stream's earlier work, as CUDA */
        OCL_TRY(clFinish(q), "clFinish");
        memmove(dst, src, n);
        return TFL_OK;
    case TFL_COPY_H2D:
        if (!side(dst, n, &db, &doff, "copy destination"))
            return TFL_ERR_INVALID;
        OCL_TRY(clEnqueueWriteBuffer(q, db, CL_TRUE, doff, n, src, 0, NULL, &ev),
                "clEnqueueWriteBuffer");
        break;
    case TFL_COPY_D2H:
        if (!side(src, n, &sb, &soff, "copy source"))
            return TFL_ERR_INVALID;
        OCL_TRY(clEnqueueReadBuffer(q, sb, CL_TRUE, soff, n, dst, 0, NULL, &ev),
                "clEnqueueReadBuffer");
        break;
    case TFL_COPY_D2D:
        if (!side(dst, n, &db, &doff, "copy destination") ||
            !side(src, n, &sb, &soff, "copy source"))
            return TFL_ERR_INVALID;
        if (db == sb && ((doff < soff + n && soff < doff + n))) {
            if (doff == soff)
                return TFL_OK;
            /* OpenCL forbids overlapping copies in one buffer; CUDA's
             * memcpy leaves them undefined too, but memmove is kinder */
            OCL_TRY(clFinish(q), "clFinish");
            void *tmp = malloc(n);
            if (!tmp)
                return TFL_ERR_NOMEM;
            cl_int rc = clEnqueueReadBuffer(q, sb, CL_TRUE, soff, n, tmp, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueWriteBuffer(q, db, CL_TRUE, doff, n, tmp, 0, NULL, NULL);
            free(tmp);
            return ocl_status(rc, "clEnqueueReadBuffer/WriteBuffer (overlapping copy)");
        }
        OCL_TRY(clEnqueueCopyBuffer(q, sb, db, soff, doff, n, 0, NULL, &ev),
                "clEnqueueCopyBuffer");
        break;
    default:
        return TFL_ERR_INVALID;
    }
    ocl_track(s, ev);
    return TFL_OK;
}

tfl_status ocl_memset(void *dst, int value, size_t n, tfl_stream s)
{
    if (n == 0)
        return TFL_OK;
    cl_mem db;
    size_t doff;
    if (!side(dst, n, &db, &doff, "memset destination"))
        return TFL_ERR_INVALID;
    ocl_inject_fault(s);
    cl_uchar v = (cl_uchar)value;
    cl_event ev = NULL;
    OCL_TRY(clEnqueueFillBuffer(ocl_queue(s), db, &v, 1, doff, n, 0, NULL, &ev),
            "clEnqueueFillBuffer");
    ocl_track(s, ev);
    return TFL_OK;
}

void ocl_mem_fini(void)
{
    pthread_rwlock_wrlock(&seg_lock);
    for (size_t i = 0; i < nsegs; i++) {
        clReleaseMemObject(segs[i].buf);
        munmap((void *)segs[i].base, segs[i].size);
    }
    free(segs);
    segs = NULL;
    nsegs = capsegs = 0;
    pthread_rwlock_unlock(&seg_lock);
}

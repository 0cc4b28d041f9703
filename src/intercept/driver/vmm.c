/*
 * vmm.c - the virtual memory management API (cuMemAddressReserve,
 * cuMemCreate, cuMemMap, cuMemSetAccess, ...) with real semantics on the
 * host, as PyTorch's expandable segments use it.
 *
 *  - A reservation is an mmap(PROT_NONE) range: touching it faults, just
 *    as an unmapped GPU address does, and nothing is registered for it.
 *  - A physical allocation (cuMemCreate) is a memfd of that size; pages
 *    appear when first touched.  Its fd is what a POSIX_FILE_DESCRIPTOR
 *    shareable handle exports, so another process can map the same bytes.
 *  - cuMemMap maps the memfd MAP_SHARED|MAP_FIXED into the reservation,
 *    still inaccessible; cuMemSetAccess makes it readable/writable.
 *  - The address map (mem.h) holds, per reservation, the maximal runs of
 *    contiguous read-write pieces as TFL_MEM_VIRTUAL ranges.  A tensor of
 *    an expandable segment may span two pieces, and copies/kernels check
 *    that a range lies in one registered range, so runs rather than
 *    single pieces are registered.
 *  - cuMemUnmap puts PROT_NONE anonymous memory back over the piece.
 *
 * Physical bytes count as used device memory (cuMemGetInfo) and against
 * the pool limit (tfl_mem_charge), so VMM memory and cudaMalloc share
 * TORCH_FL_MEM_POOL_SIZE as they share a GPU's memory.
 */
#define _GNU_SOURCE /* memfd_create, MAP_FIXED_NOREPLACE */
#include "drv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "mem/mem.h"

#define GRANULARITY ((size_t)2 << 20)

typedef struct phys {
    unsigned long long id;      /* the CUmemGenericAllocationHandle      */
    int fd;
    size_t size;
    int dev;
    int refs;                   /* cuMemCreate/Import/Retain - Release     */
    int maps;                   /* pieces mapping it                       */
    CUmemAllocationProp prop;
    struct phys *next;
} phys;

typedef struct piece {
    uintptr_t base;
    size_t size;
    phys *ph;
    int prot;                   /* CU_MEM_ACCESS_FLAGS_PROT_*              */
} piece;

typedef struct run { uintptr_t base; size_t size; } run;

typedef struct resv {
    uintptr_t base;
    size_t size;
    piece *pieces;              /* sorted by base, non-overlapping         */
    int npieces, cap;
    run *runs;                  /* what is registered in the address map   */
    int nruns, runcap;
    struct resv *next;
} resv;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static phys *g_phys;
static resv *g_resv;
static unsigned long long g_next_id = 1;
static uint64_t g_phys_bytes;

uint64_t tfl_drv_vmm_bytes(void)
{
    pthread_mutex_lock(&g_lock);
    uint64_t b = g_phys_bytes;
    pthread_mutex_unlock(&g_lock);
    return b;
}

/* ------------------------------------------------------------- helpers */

static phys *find_phys(unsigned long long id)
{
    for (phys *p = g_phys; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

static void phys_maybe_free(phys *p)
{
    if (p->refs > 0 || p->maps > 0)
        return;
    phys **pp = &g_phys;
    while (*pp != p)
        pp = &(*pp)->next;
    *pp = p->next;
    close(p->fd);
    g_phys_bytes -= p->size;
    tfl_mem_uncharge(p->size);
    free(p);
}

static resv *find_resv(uintptr_t a, size_t n)
{
    for (resv *r = g_resv; r; r = r->next)
        if (a >= r->base && a - r->base < r->size && n <= r->size - (a - r->base))
            return r;
    return NULL;
}

/* Index of the first piece with base + size > a. */
static int first_piece(const resv *r, uintptr_t a)
{
    int lo = 0, hi = r->npieces;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (r->pieces[mid].base + r->pieces[mid].size <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* [a, a+n) is exactly covered by pieces i..j-1 (contiguous, whole). */
static int whole_pieces(const resv *r, uintptr_t a, size_t n, int *pi, int *pj)
{
    int i = first_piece(r, a), j = i;
    uintptr_t cur = a;
    while (j < r->npieces && cur < a + n && r->pieces[j].base == cur) {
        cur += r->pieces[j].size;
        j++;
    }
    if (j == i || cur != a + n || r->pieces[i].base != a)
        return 0;
    *pi = i;
    *pj = j;
    return 1;
}

/* Make the registered runs of r match its read-write pieces again. */
static void sync_runs(resv *r)
{
    for (int i = 0; i < r->nruns; i++)
        tfl_mem_unregister((void *)r->runs[i].base, TFL_MEM_VIRTUAL);
    r->nruns = 0;
    for (int i = 0; i < r->npieces;) {
        if (r->pieces[i].prot != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
            i++;
            continue;
        }
        uintptr_t b = r->pieces[i].base, e = b + r->pieces[i].size;
        int dev = r->pieces[i].ph->dev;
        int j = i + 1;
        while (j < r->npieces && r->pieces[j].base == e &&
               r->pieces[j].prot == CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
            e += r->pieces[j].size;
            j++;
        }
        if (r->nruns == r->runcap) {
            int nc = r->runcap ? 2 * r->runcap : 8;
            run *nr = realloc(r->runs, (size_t)nc * sizeof *nr);
            if (!nr) {
                tfl_error("cuMemSetAccess: out of host memory tracking mappings");
                return;
            }
            r->runs = nr;
            r->runcap = nc;
        }
        if (tfl_mem_register((void *)b, e - b, TFL_MEM_VIRTUAL, dev, 0) == TFL_OK)
            r->runs[r->nruns++] = (run){ b, e - b };
        else
            tfl_error("could not record mapped range %p+%zu", (void *)b, e - b);
        i = j;
    }
}

/* Put an inaccessible reservation back over [a, a+n). */
static void restore_none(uintptr_t a, size_t n)
{
    void *p = mmap((void *)a, n, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED)
        tfl_error("cuMemUnmap: cannot restore reservation at %p: %s",
                  (void *)a, strerror(errno));
}

static void unmap_pieces(resv *r, int i, int j)
{
    for (int k = i; k < j; k++) {
        restore_none(r->pieces[k].base, r->pieces[k].size);
        r->pieces[k].ph->maps--;
        phys_maybe_free(r->pieces[k].ph);
    }
    memmove(&r->pieces[i], &r->pieces[j], (size_t)(r->npieces - j) * sizeof(piece));
    r->npieces -= j - i;
}

int tfl_drv_vmm_mapping(const void *p, void **base, size_t *size, unsigned long long *block)
{
    int found = 0;
    pthread_mutex_lock(&g_lock);
    resv *r = find_resv((uintptr_t)p, 1);
    if (r) {
        int i = first_piece(r, (uintptr_t)p);
        if (i < r->npieces && r->pieces[i].base <= (uintptr_t)p) {
            *base = (void *)r->pieces[i].base;
            *size = r->pieces[i].size;
            *block = r->pieces[i].ph->id;
            found = 1;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return found;
}

static CUresult check_location(const CUmemLocation *loc)
{
    if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
        return loc->type == CU_MEM_LOCATION_TYPE_INVALID ? CUDA_ERROR_INVALID_VALUE
                                                         : CUDA_ERROR_NOT_SUPPORTED;
    if (loc->id < 0 || loc->id >= tfl_rt_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

static CUresult check_prop(const CUmemAllocationProp *prop)
{
    if (!prop || prop->type == CU_MEM_ALLOCATION_TYPE_INVALID)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_NOT_SUPPORTED;
    return check_location(&prop->location);
}

/* --------------------------------------------------------- entry points */

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
                                               const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
                         option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_prop(prop)) != CUDA_SUCCESS)
        return r;
    *granularity = GRANULARITY;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                     CUdeviceptr addr, unsigned long long flags)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!ptr || size == 0 || size % GRANULARITY || flags != 0 ||
        (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (alignment < GRANULARITY)
        alignment = GRANULARITY;
    if (size > SIZE_MAX - alignment)
        return CUDA_ERROR_OUT_OF_MEMORY;
    const int mflags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p = MAP_FAILED;
    /* the address is a hint: honoured when it is free and aligned */
    if (addr && addr % alignment == 0) {
        p = mmap((void *)(uintptr_t)addr, size, PROT_NONE, mflags | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != MAP_FAILED && (uintptr_t)p != addr) {
            munmap(p, size);   /* kernels without NOREPLACE treat it as a hint */
            p = MAP_FAILED;
        }
    }
    if (p == MAP_FAILED) {
        void *q = mmap(NULL, size + alignment, PROT_NONE, mflags, -1, 0);
        if (q == MAP_FAILED)
            return CUDA_ERROR_OUT_OF_MEMORY;
        uintptr_t b = ((uintptr_t)q + alignment - 1) & ~(uintptr_t)(alignment - 1);
        if (b > (uintptr_t)q)
            munmap(q, b - (uintptr_t)q);
        uintptr_t end = (uintptr_t)q + size + alignment;
        if (end > b + size)
            munmap((void *)(b + size), end - (b + size));
        p = (void *)b;
    }
    resv *rv = calloc(1, sizeof *rv);
    if (!rv) {
        munmap(p, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    rv->base = (uintptr_t)p;
    rv->size = size;
    pthread_mutex_lock(&g_lock);
    rv->next = g_resv;
    g_resv = rv;
    pthread_mutex_unlock(&g_lock);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    resv **pp = &g_resv;
    while (*pp && !((*pp)->base == ptr && (*pp)->size == size))
        pp = &(*pp)->next;
    resv *rv = *pp;
    if (!rv) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pp = rv->next;
    /* Mappings left behind go with the range. */
    for (int i = 0; i < rv->npieces; i++)
        rv->pieces[i].prot = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    sync_runs(rv);
    unmap_pieces(rv, 0, rv->npieces);
    pthread_mutex_unlock(&g_lock);
    munmap((void *)rv->base, rv->size);
    free(rv->pieces);
    free(rv->runs);
    free(rv);
    return CUDA_SUCCESS;
}

static CUresult new_phys(int fd, size_t size, const CUmemAllocationProp *prop,
                         CUmemGenericAllocationHandle *handle)
{
    phys *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->fd = fd;
    p->size = size;
    p->dev = prop->location.id;
    p->prop = *prop;
    p->refs = 1;
    pthread_mutex_lock(&g_lock);
    p->id = g_next_id++;
    p->next = g_phys;
    g_phys = p;
    g_phys_bytes += size;
    pthread_mutex_unlock(&g_lock);
    *handle = p->id;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                             const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!handle || size == 0 || size % GRANULARITY || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_prop(prop)) != CUDA_SUCCESS)
        return r;
    if (prop->requestedHandleTypes & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;   /* Win32 and fabric handles */
    if (prop->allocFlags.compressionType)
        return CUDA_ERROR_NOT_SUPPORTED;
    /* physical bytes count against the pool limit, as device memory */
    if (tfl_mem_charge(size) != TFL_OK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int fd = memfd_create("torchfl-vmm", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        if (fd >= 0)
            close(fd);
        tfl_mem_uncharge(size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r = new_phys(fd, size, prop, handle);
    if (r != CUDA_SUCCESS) {
        close(fd);
        tfl_mem_uncharge(size);
    }
    return r;
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    phys *p = find_phys(handle);
    if (!p || p->refs <= 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    p->refs--;
    phys_maybe_free(p);  /* memory lives on while mapped */
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                          CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (size == 0 || flags != 0 || ptr % GRANULARITY || size % GRANULARITY ||
        offset % GRANULARITY)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    phys *p = find_phys(handle);
    resv *rv = find_resv((uintptr_t)ptr, size);
    r = CUDA_ERROR_INVALID_VALUE;
    if (!p || p->refs <= 0 || offset > p->size || size > p->size - offset || !rv)
        goto out;
    int i = first_piece(rv, (uintptr_t)ptr);
    if (i < rv->npieces && rv->pieces[i].base < (uintptr_t)ptr + size)
        goto out;   /* something is mapped there already */
    if (rv->npieces == rv->cap) {
        int nc = rv->cap ? 2 * rv->cap : 16;
        piece *np = realloc(rv->pieces, (size_t)nc * sizeof *np);
        if (!np) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            goto out;
        }
        rv->pieces = np;
        rv->cap = nc;
    }
    void *m = mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, p->fd,
                   (off_t)offset);
    if (m == MAP_FAILED) {
        tfl_error("cuMemMap: mmap failed: %s", strerror(errno));
        r = CUDA_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    memmove(&rv->pieces[i + 1], &rv->pieces[i], (size_t)(rv->npieces - i) * sizeof(piece));
    rv->pieces[i] = (piece){ (uintptr_t)ptr, size, p, CU_MEM_ACCESS_FLAGS_PROT_NONE };
    rv->npieces++;
    p->maps++;
    r = CUDA_SUCCESS;
out:
    pthread_mutex_unlock(&g_lock);
    return r;
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    /* the work that may use the range is done before it goes */
    tfl_rt_device_sync();
    pthread_mutex_lock(&g_lock);
    resv *rv = find_resv((uintptr_t)ptr, size);
    int i, j;
    if (!rv || size == 0 || !whole_pieces(rv, (uintptr_t)ptr, size, &i, &j)) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    int had_runs = 0;
    for (int k = i; k < j; k++)
        had_runs |= rv->pieces[k].prot == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    unmap_pieces(rv, i, j);
    if (had_runs)
        sync_runs(rv);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                size_t count)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!desc || count == 0 || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    /* Every device shares the host's address space, so the most
     * permissive flags among the descriptors apply to all of them. */
    int prot = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    for (size_t k = 0; k < count; k++) {
        if ((r = check_location(&desc[k].location)) != CUDA_SUCCESS)
            return r;
        if (desc[k].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
            desc[k].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[k].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
        if ((int)desc[k].flags > prot)
            prot = (int)desc[k].flags;
    }
    int hp = prot == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
           : prot == CU_MEM_ACCESS_FLAGS_PROT_READ ? PROT_READ : PROT_NONE;
    pthread_mutex_lock(&g_lock);
    resv *rv = find_resv((uintptr_t)ptr, size);
    int i, j;
    if (!rv || !whole_pieces(rv, (uintptr_t)ptr, size, &i, &j)) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (mprotect((void *)(uintptr_t)ptr, size, hp) != 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (int k = i; k < j; k++)
        rv->pieces[k].prot = prot;
    sync_runs(rv);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
                                CUdeviceptr ptr)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags || !location)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_location(location)) != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    resv *rv = find_resv((uintptr_t)ptr, 1);
    r = CUDA_ERROR_INVALID_VALUE;
    if (rv) {
        int i = first_piece(rv, (uintptr_t)ptr);
        if (i < rv->npieces && rv->pieces[i].base <= (uintptr_t)ptr) {
            *flags = (unsigned long long)rv->pieces[i].prot;
            r = CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    resv *rv = find_resv((uintptr_t)addr, 1);
    r = CUDA_ERROR_INVALID_VALUE;
    if (rv) {
        int i = first_piece(rv, (uintptr_t)addr);
        if (i < rv->npieces && rv->pieces[i].base <= (uintptr_t)addr) {
            rv->pieces[i].ph->refs++;
            *handle = rv->pieces[i].ph->id;
            r = CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                        CUmemGenericAllocationHandle handle)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    phys *p = find_phys(handle);
    if (p)
        *prop = p->prop;
    pthread_mutex_unlock(&g_lock);
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A POSIX fd handle is a dup of the memfd: the receiving process maps the
 * very same pages. */
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle,
                                              CUmemGenericAllocationHandle handle,
                                              CUmemAllocationHandleType handleType,
                                              unsigned long long flags)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!shareableHandle || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&g_lock);
    phys *p = find_phys(handle);
    int fd = -1;
    r = CUDA_ERROR_INVALID_VALUE;
    if (p && (p->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        fd = dup(p->fd);
        r = fd >= 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&g_lock);
    if (r == CUDA_SUCCESS)
        *(int *)shareableHandle = fd;
    return r;
}

CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                                void *osHandle,
                                                CUmemAllocationHandleType shHandleType)
{
    CUresult r = tfl_drv_check_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    /* The fd travels as the pointer value, as the driver documents. */
    int fd = (int)(intptr_t)osHandle;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (size_t)st.st_size % GRANULARITY)
        return CUDA_ERROR_INVALID_VALUE;
    /* the imported pages are this process's device memory too */
    if (tfl_mem_charge((size_t)st.st_size) != TFL_OK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0) {
        tfl_mem_uncharge((size_t)st.st_size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = tfl_rt_current_device();
    r = new_phys(mine, (size_t)st.st_size, &prop, handle);
    if (r != CUDA_SUCCESS) {
        close(mine);
        tfl_mem_uncharge((size_t)st.st_size);
    }
    return r;
}

/*
 * hostexec.c - the host executor's API (hostexec.h): modules, kernel
 * lookup, module variables, launch validation and the worker pool that
 * runs a launch's blocks in parallel.
 *
 * A module only remembers its image when created; the first lookup loads
 * it (PTX text taken as is, fatbins through the fatbin reader) and indexes
 * it (ptx_parse.c); a kernel is decoded at its first use.  The pool is
 * created on the first multi-block launch and lives for the process: its
 * threads wait on a condition variable for the next job.  One launch uses
 * the pool at a time; a concurrent launch from another host thread runs its
 * blocks on its own thread instead of waiting.
 */
#include "hostexec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/host/fatbin.h"
#include "common/log.h"
#include "hx_ir.h"

#define HX_SMEM_LIMIT (227u * 1024u)
#define HX_CALL_STACK (16u * 1024u)   /* extra local/param bytes for recursion */

/* ------------------------------------------------------------ pool */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t start_cv, done_cv;
    pthread_mutex_t launch_lock;
    int nthreads;            /* including the launching thread */
    int started;
    pthread_t *th;
    hx_launch_job *job;
    uint64_t gen;
    int finished;
} pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .start_cv = PTHREAD_COND_INITIALIZER,
    .done_cv = PTHREAD_COND_INITIALIZER,
    .launch_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void *pool_main(void *arg)
{
    (void)arg;
    /* threads are created (under pool.lock) before the first job is
     * posted, when gen is 0 */
    uint64_t seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.gen == seen) pthread_cond_wait(&pool.start_cv, &pool.lock);
        seen = pool.gen;
        hx_launch_job *j = pool.job;
        pthread_mutex_unlock(&pool.lock);
        hx_exec_worker(j);
        pthread_mutex_lock(&pool.lock);
        pool.finished++;
        pthread_cond_signal(&pool.done_cv);
    }
    return NULL;
}

static int default_threads(void)
{
    const char *e = getenv("TORCHFL_HX_THREADS");
    if (e && atoi(e) > 0) return atoi(e);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void hx_init(const hx_options *opt)
{
    pthread_mutex_lock(&pool.lock);
    if (!pool.started) {
        int n = opt && opt->threads > 0 ? opt->threads : 0;
        if (n > 256) n = 256;
        pool.nthreads = n;
    }
    pthread_mutex_unlock(&pool.lock);
}

/* Called with pool.lock held. */
static void pool_start(void)
{
    if (pool.started) return;
    pool.started = 1;
    if (pool.nthreads <= 0) pool.nthreads = default_threads();
    int nw = pool.nthreads - 1;
    if (nw <= 0) return;
    pool.th = calloc((size_t)nw, sizeof *pool.th);
    if (!pool.th) { pool.nthreads = 1; return; }
    int ok = 0;
    for (int i = 0; i < nw; i++) {
        if (pthread_create(&pool.th[i], NULL, pool_main, NULL) != 0) break;
        pthread_detach(pool.th[i]);
        ok++;
    }
    pool.nthreads = ok + 1;
}

static void run_job(hx_launch_job *j)
{
    if (j->nblocks > 1 && pthread_mutex_trylock(&pool.launch_lock) == 0) {
        pthread_mutex_lock(&pool.lock);
        pool_start();
        int nw = pool.nthreads - 1;
        if (nw > 0) {
            pool.job = j;
            pool.finished = 0;
            pool.gen++;
            pthread_cond_broadcast(&pool.start_cv);
        }
        pthread_mutex_unlock(&pool.lock);
        hx_exec_worker(j);
        if (nw > 0) {
            pthread_mutex_lock(&pool.lock);
            while (pool.finished < nw) pthread_cond_wait(&pool.done_cv, &pool.lock);
            pool.job = NULL;
            pthread_mutex_unlock(&pool.lock);
        }
        pthread_mutex_unlock(&pool.launch_lock);
        return;
    }
    hx_exec_worker(j);
}

/* ---------------------------------------------------------- modules */

static void seterr(char *err, size_t errlen, const char *fmt, const char *a)
{
    if (err && errlen) snprintf(err, errlen, fmt, a);
}

static int looks_like_ptx(const char *s, size_t size)
{
    size_t n = size ? size : strnlen(s, 4096);
    if (!s[0]) return 0;
    if (s[0] == '/' || s[0] == '.' || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r')
        return 1;
    for (size_t i = 0; i + 8 <= n && s[i]; i++)
        if (memcmp(s + i, ".version", 8) == 0) return 1;
    return 0;
}

/* What an image is, reading no more than it holds: binary magics are only
 * read when the first byte can start one (a short PTX string may be 1
 * byte long). */
int hx_image_kind(const void *image, size_t size)
{
    const uint8_t *p = image;
    if ((p[0] == 0xB1 || p[0] == 0x50 || p[0] == 0x7f) && (size == 0 || size >= 4)) {
        uint32_t magic;
        memcpy(&magic, p, 4);
        if (magic == TFL_FATBIN_WRAPPER_MAGIC || magic == TFL_FATBIN_MAGIC) return IMG_FATBIN;
        if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') return IMG_ELF;
        return IMG_NONE;
    }
    return looks_like_ptx(image, size) ? IMG_PTX : IMG_NONE;
}

hx_module *hx_module_create(const void *image, size_t size)
{
    if (!image) return NULL;
    if (hx_image_kind(image, size) == IMG_NONE) return NULL;
    hx_module *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->image = image;
    m->image_size = size;
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

void hx_module_destroy(hx_module *m)
{
    if (!m) return;
    hx_ptx_free(m);
    hx_abi_free(m);
    free(m->text);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* Load and index on first use.  Called with m->lock held. */
static hx_status module_load(hx_module *m, char *err, size_t errlen)
{
    if (m->loaded == 1) return HX_OK;
    if (m->loaded == -1) {
        if (err && errlen) snprintf(err, errlen, "%s", m->load_err);
        return m->load_status;
    }
    int kind = hx_image_kind(m->image, m->image_size);
    hx_status st = HX_OK;
    char e[256] = "";
    if (kind == IMG_FATBIN) {
        m->text = tfl_fatbin_pick_ptx(m->image, m->image_size, e, sizeof e);
        if (!m->text) st = strstr(e, "no PTX") ? HX_ERR_NO_PTX : HX_ERR_BAD_IMAGE;
    } else if (kind == IMG_ELF) {
        snprintf(e, sizeof e, "cubin image has no PTX; the host executor needs PTX "
                 "(build with -gencode arch=compute_XX,code=compute_XX)");
        st = HX_ERR_NO_PTX;
    } else {
        size_t n = m->image_size ? strnlen(m->image, m->image_size) : strlen(m->image);
        m->text = malloc(n + 1);
        if (!m->text) st = HX_ERR_NOMEM;
        else { memcpy(m->text, m->image, n); m->text[n] = 0; }
    }
    if (!st) st = hx_ptx_index(m, e, sizeof e);
    if (st) {
        m->loaded = -1;
        m->load_status = st;
        snprintf(m->load_err, sizeof m->load_err, "%s", e[0] ? e : "cannot load module");
        if (err && errlen) snprintf(err, errlen, "%s", m->load_err);
        return st;
    }
    m->loaded = 1;
    return HX_OK;
}

static hx_status get_kernel(hx_module *m, const char *kernel, hx_func **out, char *err,
                            size_t errlen)
{
    if (!m || !kernel) { seterr(err, errlen, "%s", "invalid argument"); return HX_ERR_INVALID; }
    pthread_mutex_lock(&m->lock);
    hx_status st = module_load(m, err, errlen);
    if (!st) {
        hx_func *f = hx_find_func(m, kernel);
        if (!f || !f->is_entry || f->is_extern) {
            seterr(err, errlen, "no kernel named %s in this module", kernel);
            st = HX_ERR_NOT_FOUND;
        } else {
            st = hx_ptx_decode(m, f, err, errlen);
            if (!st) *out = f;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

hx_status hx_kernel_info_get(hx_module *m, const char *kernel, hx_kernel_info *out, char *err,
                             size_t errlen)
{
    hx_func *f = NULL;
    hx_status st = get_kernel(m, kernel, &f, err, errlen);
    if (st) return st;
    if (!out) return HX_OK;
    memset(out, 0, sizeof *out);
    if (f->nparams > 512) {
        seterr(err, errlen, "kernel %s has more than 512 parameters", kernel);
        return HX_ERR_UNSUPPORTED;
    }
    out->num_params = f->nparams;
    out->param_bytes = f->kparam_bytes;
    for (int i = 0; i < f->nparams; i++) {
        out->param_offset[i] = f->params[i].offset;
        out->param_size[i] = f->params[i].size;
    }
    out->static_smem = f->static_smem;
    out->local_bytes = f->local_bytes;
    out->num_regs = f->nslots;
    out->max_threads = f->max_threads;
    return HX_OK;
}

hx_status hx_module_global(hx_module *m, const char *name, void **addr, size_t *size, char *err,
                           size_t errlen)
{
    if (!m || !name) { seterr(err, errlen, "%s", "invalid argument"); return HX_ERR_INVALID; }
    pthread_mutex_lock(&m->lock);
    hx_status st = module_load(m, err, errlen);
    if (!st) {
        hx_var *v = hx_find_var(m, name);
        if (!v || !v->storage) {
            seterr(err, errlen, "no __device__/__constant__ variable named %s", name);
            st = HX_ERR_NOT_FOUND;
        } else {
            if (addr) *addr = v->storage;
            if (size) *size = v->size;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

/* ------------------------------------------------------------ launch */

/* Deepest local and lane-parameter use over the call graph from f. */
static void stack_need(hx_module *m, hx_func *f, int depth, char *onpath, size_t *loc,
                       size_t *lpar, int *recursive)
{
    if (depth > 64 || onpath[f->index]) { *recursive = 1; *loc = 0; *lpar = 0; return; }
    onpath[f->index] = 1;
    size_t bl = 0, bp = 0;
    for (int i = 0; i < f->ncallees; i++) {
        size_t l = 0, p = 0;
        stack_need(m, m->funcs[f->callees[i]], depth + 1, onpath, &l, &p, recursive);
        if (l > bl) bl = l;
        if (p > bp) bp = p;
    }
    onpath[f->index] = 0;
    *loc = f->local_bytes + bl;
    *lpar = f->lparam_bytes + bp;
}

hx_status hx_launch(hx_module *m, const char *kernel, const hx_launch_params *p, char *err,
                    size_t errlen)
{
    if (!p) { seterr(err, errlen, "%s", "invalid argument"); return HX_ERR_INVALID; }
    hx_func *f = NULL;
    hx_status st = get_kernel(m, kernel, &f, err, errlen);
    if (st) return st;
    uint64_t nthreads = (uint64_t)p->block[0] * p->block[1] * p->block[2];
    uint64_t nblocks = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
    if (!nthreads || !nblocks) {
        snprintf(err, errlen, "kernel %s: zero grid or block dimension", kernel);
        return HX_ERR_LAUNCH_CONFIG;
    }
    if (nthreads > 1024 || p->block[2] > 64 || nthreads > (uint64_t)f->max_threads) {
        snprintf(err, errlen, "kernel %s: block (%u,%u,%u) exceeds %d threads", kernel,
                 p->block[0], p->block[1], p->block[2], f->max_threads < 1024 ? f->max_threads : 1024);
        return HX_ERR_LAUNCH_CONFIG;
    }
    if (p->grid[1] > 65535 || p->grid[2] > 65535 || p->grid[0] > 0x7fffffffu) {
        snprintf(err, errlen, "kernel %s: grid (%u,%u,%u) too large", kernel,
                 p->grid[0], p->grid[1], p->grid[2]);
        return HX_ERR_LAUNCH_CONFIG;
    }
    size_t dyn_base = (f->static_smem + 15) / 16 * 16;
    size_t total = f->uses_dyn_smem || p->dynamic_smem ? dyn_base + p->dynamic_smem : f->static_smem;
    if (p->dynamic_smem > HX_SMEM_LIMIT || total > HX_SMEM_LIMIT) {
        snprintf(err, errlen, "kernel %s: %zu bytes of shared memory exceed the %u-byte limit",
                 kernel, total, HX_SMEM_LIMIT);
        return HX_ERR_LAUNCH_CONFIG;
    }
    uint8_t *params = NULL;
    size_t pb = f->kparam_bytes;
    if (pb) {
        params = calloc(1, pb);
        if (!params) { snprintf(err, errlen, "out of memory"); return HX_ERR_NOMEM; }
        if (p->args) {
            for (int i = 0; i < f->nparams; i++) {
                if (!p->args[i]) {
                    free(params);
                    snprintf(err, errlen, "kernel %s: argument %d is NULL", kernel, i);
                    return HX_ERR_LAUNCH_CONFIG;
                }
                memcpy(params + f->params[i].offset, p->args[i], f->params[i].size);
            }
        } else if (p->arg_buffer) {
            if (p->arg_buffer_size < pb) {
                free(params);
                snprintf(err, errlen, "kernel %s: parameter buffer has %zu bytes, the kernel takes %zu",
                         kernel, p->arg_buffer_size, pb);
                return HX_ERR_LAUNCH_CONFIG;
            }
            memcpy(params, p->arg_buffer, pb);
        } else {
            free(params);
            snprintf(err, errlen, "kernel %s: takes %zu bytes of parameters, none given", kernel, pb);
            return HX_ERR_LAUNCH_CONFIG;
        }
    }
    hx_launch_job *j = calloc(1, sizeof *j);
    char *onpath = calloc((size_t)m->nfuncs + 1, 1);
    if (!j || !onpath) {
        free(j); free(onpath); free(params);
        snprintf(err, errlen, "out of memory");
        return HX_ERR_NOMEM;
    }
    size_t loc = 0, lpar = 0;
    int rec = 0;
    pthread_mutex_lock(&m->lock);
    stack_need(m, f, 0, onpath, &loc, &lpar, &rec);
    pthread_mutex_unlock(&m->lock);
    free(onpath);
    if (rec || f->ncallees) { loc += HX_CALL_STACK; lpar += HX_CALL_STACK; }
    static uint64_t launch_seq;
    j->id = __atomic_add_fetch(&launch_seq, 1, __ATOMIC_RELAXED);
    j->mod = m;
    j->fn = f;
    memcpy(j->grid, p->grid, sizeof j->grid);
    memcpy(j->block, p->block, sizeof j->block);
    j->dyn_smem = p->dynamic_smem;
    j->static_smem = f->static_smem;
    j->smem_total = total;
    j->params = params;
    j->param_bytes = pb;
    j->local_stride = (loc + 15) / 16 * 16;
    j->lparam_stride = (lpar + 15) / 16 * 16;
    j->nblocks = nblocks;
    pthread_mutex_init(&j->err_lock, NULL);
    run_job(j);
    st = j->failed ? j->status : HX_OK;
    if (st && err && errlen) snprintf(err, errlen, "%s", j->err);
    pthread_mutex_destroy(&j->err_lock);
    free(params);
    free(j);
    return st;
}

/*
 * gemm_par.c - a real GEMM split over the host worker pool, each part on
 * single-threaded OpenBLAS.
 *
 * Why not OpenBLAS's own threads: they spin (sched_yield) for a while
 * after every call, and on a small machine they then compete with the
 * host ops' pool (host_par.c) and with PyTorch's own threads for the same
 * cores; a training step's GEMMs are small and many, so the spinning cost
 * more than the parallel speed-up gained.  One pool for everything keeps
 * the cores busy with work only.  When the user sets host.blas_threads,
 * OpenBLAS threads as asked and nothing is split here.
 *
 * The split is by blocks of columns of D (or rows when D is tall and
 * narrow): column-major D = op(A) op(B), so a block of D's columns needs
 * the same block of op(B)'s columns and all of op(A), and parts never
 * write the same element.
 */
#include "backends/host/gemm_internal.h"
#include "backends/host/host_par.h"

#include <cblas.h>
#include <stdatomic.h>

/* Below this many multiply-adds a GEMM runs on its caller: splitting a
 * tiny product costs more in wake-ups than it saves. */
#define PAR_MIN_MACS (48 * 48 * 48)
/* Parts are multiples of this many columns (or rows), OpenBLAS's
 * register-block width for AVX2 sgemm/dgemm. */
#define PAR_ALIGN 16

static atomic_int split_enabled = 1;

void hg_gemm_par_enable(int on)
{
    atomic_store(&split_enabled, on);
}

typedef struct gjob {
    int dbl, ta, tb, by_rows;
    int64_t m, n, k, chunk;
    double alpha, beta;
    const void *a, *b;
    void *d;
    int64_t lda, ldb, ldd;
} gjob;

static void run(const gjob *g, int64_t m, int64_t n, const void *a, const void *b, void *d)
{
    if (g->dbl)
        cblas_dgemm(CblasColMajor, hg_cblas_trans(g->ta), hg_cblas_trans(g->tb), (int)m, (int)n, (int)g->k,
                    g->alpha, a, (int)g->lda, b, (int)g->ldb, g->beta, d, (int)g->ldd);
    else
        cblas_sgemm(CblasColMajor, hg_cblas_trans(g->ta), hg_cblas_trans(g->tb), (int)m, (int)n, (int)g->k,
                    (float)g->alpha, a, (int)g->lda, b, (int)g->ldb, (float)g->beta,
                    d, (int)g->ldd);
}

static void part(void *ctx, int p)
{
    const gjob *g = ctx;
    size_t es = g->dbl ? 8 : 4;
    int64_t total = g->by_rows ? g->m : g->n;
    int64_t s = (int64_t)p * g->chunk, e = s + g->chunk < total ? s + g->chunk : total;
    if (s >= e)
        return;
    if (g->by_rows) {
        /* rows s..e of op(A): A + s (N) or A + s*lda (T); D + s */
        int64_t ao = g->ta ? s * g->lda : s;
        run(g, e - s, g->n, (const char *)g->a + (size_t)ao * es, g->b,
            (char *)g->d + (size_t)s * es);
    } else {
        /* columns s..e of op(B): B + s*ldb (N) or B + s (T); D + s*ldd */
        int64_t bo = g->tb ? s : s * g->ldb;
        run(g, g->m, e - s, g->a, (const char *)g->b + (size_t)bo * es,
            (char *)g->d + (size_t)(s * g->ldd) * es);
    }
}

void hg_gemm_par(int dbl, int ta, int tb, int64_t m, int64_t n, int64_t k,
                 double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                 double beta, void *d, int64_t ldd)
{
    gjob g = { .dbl = dbl, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
               .alpha = alpha, .beta = beta, .a = a, .b = b, .d = d,
               .lda = lda, .ldb = ldb, .ldd = ldd };
    int threads = atomic_load(&split_enabled) ? host_par_threads() : 1;
    double macs = (double)m * (double)n * (double)k;
    g.by_rows = n < m && n < 2 * PAR_ALIGN * threads;
    int64_t total = g.by_rows ? m : n;
    if (threads <= 1 || macs < PAR_MIN_MACS || total < 2 * PAR_ALIGN) {
        g.chunk = total;
        part(&g, 0);
        return;
    }
    int parts = threads;
    g.chunk = (total + parts - 1) / parts;
    g.chunk = (g.chunk + PAR_ALIGN - 1) / PAR_ALIGN * PAR_ALIGN;
    parts = (int)((total + g.chunk - 1) / g.chunk);
    host_parallel(parts, part, &g);
}

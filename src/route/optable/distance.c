/*
 * distance.c - the "distance" kernel family of the semantic op table:
 * PyTorch's DistanceKernel.cu (torch.cdist, F.pdist and their backward).
 * T is float or double, F is dists<T>::{zero,one,two,inf,p,lt_two}; the
 * kernels are recognised by base name and these two template arguments.
 *
 *   cdist_kernel_cuda_impl<T, F>(T* result, const T* x1, const T* x2, T p,
 *       int64 r2, int64 m, int64 r_size, int64 l1_size, int64 l2_size
 *       [, int64 total (2.15+)])
 *       one block per output element (grid.x = batch * r1 * r2) up to
 *       2.14; 2.15 appends the output count and grid-strides over it
 *       (for (k = blockIdx.x; k < total; k += gridDim.x), read from the
 *       SASS), so the grid may be smaller than the output
 *   pdist_kernel_cuda_impl<T, F>(T* result, const T* self, int64 n,
 *       int64 m, T p, double n2, double n2_squared_minus_1
 *       [, int64 total (2.15+)])
 *       grid.x = n (n - 1) / 2; 2.15 grid-strides over total likewise
 *   cdist_backward_kernel_cuda_impl<T, F>(T* buffer, const T* grad,
 *       const T* x1, const T* x2, const T* dist, T p, int64 r1, int64 r2,
 *       int64 m, int64 count, int64 r_size, int64 l1_size, int64 l2_size)
 *       buffer [batch][r2][r1][m] (PyTorch then sums over r2)
 *   pdist_backward_kernel_cuda_impl<T, F>(T* buffer, const T* grad,
 *       const T* self, const T* dist, int64 gs, int64 n, int64 m,
 *       int64 combs, T p, double n2, double n2_squared_minus_1)
 *       buffer [n - 1][n][m] (PyTorch then sums over dim 0)
 * The release forms are told apart by their parameter count; the
 * signatures in sigs[] below are these (checked against the sm_80 cubins
 * of torch 2.11 to 2.15).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

typedef struct dist_kernel {
    int kind;                /* tfl_distance_kind */
    int norm;
    tfl_dtype dt;
    int total_arg;           /* 2.15+ forward: the output count is a parameter */
} dist_kernel;

/* Per kind: the base name and the parameter signatures (klayout tokens; T
 * is the element type, 'f' or 'd') of the forms the decoder reads, without
 * and with the trailing output count. */
static const struct {
    const char *base;
    const char *sig, *sig_total;
} kinds[] = {
    [TFL_DIST_CDIST] = { "cdist_kernel_cuda_impl", "p p p T l l l l l", "p p p T l l l l l l" },
    [TFL_DIST_PDIST] = { "pdist_kernel_cuda_impl", "p p l l T d d", "p p l l T d d l" },
    [TFL_DIST_CDIST_BACKWARD] = { "cdist_backward_kernel_cuda_impl",
                                  "p p p p p T l l l l l l l", NULL },
    [TFL_DIST_PDIST_BACKWARD] = { "pdist_backward_kernel_cuda_impl",
                                  "p p p p l l l l T d d", NULL },
};

/* The parameters a signature has. */
static int sig_count(const char *sig)
{
    int n = 0;
    for (const char *p = sig; *p; p++)
        n += *p != ' ' && (p == sig || p[-1] == ' ');
    return n;
}

/* <T, dists<T>::norm>: the element type and the norm. */
static int parse_targs(const tfl_kname *k, dist_kernel *d)
{
    static const struct { const char *name; int norm; } norms[] = {
        { "zero", TFL_DIST_ZERO }, { "one", TFL_DIST_ONE }, { "two", TFL_DIST_TWO },
        { "inf", TFL_DIST_INF }, { "p", TFL_DIST_P }, { "lt_two", TFL_DIST_LT_TWO },
    };
    if (k->ntargs != 2 || !tfl_kname_targ_dtype(k, 0, &d->dt) ||
        (d->dt != TFL_DT_F32 && d->dt != TFL_DT_F64))
        return 0;
    char want[64];
    for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++) {
        snprintf(want, sizeof want, "dists<%.*s>::%s", (int)k->targ_len[0], k->targ[0],
                 norms[i].name);
        if (tfl_kname_targ_is(k, 1, want)) {
            d->norm = norms[i].norm;
            return 1;
        }
    }
    return 0;
}

static int match(const char *m, void **cookie)
{
    if (!strstr(m, "_kernel_cuda_impl"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    dist_kernel d;
    memset(&d, 0, sizeof d);
    int ok = 0;
    for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]) && !ok; i++) {
        if (!tfl_kname_is(&k, kinds[i].base) || !parse_targs(&k, &d))
            continue;
        d.kind = i;
        /* the release form, by parameter count */
        if (k.nparams == sig_count(kinds[i].sig))
            ok = 1;
        else if (kinds[i].sig_total && k.nparams == sig_count(kinds[i].sig_total))
            ok = d.total_arg = 1;
    }
    tfl_kname_free(&k);
    return ok && tfl_kcookie_keep(&d, sizeof d, cookie);
}

static int layout(void *cookie, tfl_klayout *l)
{
    const dist_kernel *k = cookie;
    const char *sig = k->total_arg ? kinds[k->kind].sig_total : kinds[k->kind].sig;
    char buf[64];
    size_t n = strlen(sig);
    if (n >= sizeof buf)
        return 0;
    for (size_t i = 0; i <= n; i++)        /* T: the element type's token */
        buf[i] = sig[i] == 'T' ? (k->dt == TFL_DT_F32 ? 'f' : 'd') : sig[i];
    return tfl_klayout_sig(l, buf) == 0;
}

static const char *op_name(void *cookie)
{
    static const char *names[] = { "cdist", "pdist", "cdist_backward", "pdist_backward" };
    const dist_kernel *k = cookie;
    return names[k->kind];
}

static double karg_real(const tfl_kcall *c, tfl_dtype dt, int i)
{
    return dt == TFL_DT_F32 ? (double)TFL_KARG(c, float, i) : TFL_KARG(c, double, i);
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const dist_kernel *k = cookie;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_DISTANCE;
    op.name = op_name(cookie);
    tfl_distance_op *d = &op.u.distance;
    d->kind = k->kind;
    d->norm = k->norm;
    d->dtype = k->dt;
    const size_t es = tfl_dtype_size(k->dt);
    int64_t nout, nx1, nx2 = 0, ngrad = 0;
    if ((c->grid[1] != 1 || c->grid[2] != 1) && (k->kind == TFL_DIST_CDIST || k->kind == TFL_DIST_PDIST))
        return TFL_ERR_UNSUPPORTED;
    switch (k->kind) {
    case TFL_DIST_CDIST: {
        d->out = TFL_KARG(c, void *, 0);
        d->x1 = TFL_KARG(c, void *, 1);
        d->x2 = TFL_KARG(c, void *, 2);
        d->p = karg_real(c, k->dt, 3);
        d->r2 = TFL_KARG(c, int64_t, 4);
        d->m = TFL_KARG(c, int64_t, 5);
        int64_t r_size = TFL_KARG(c, int64_t, 6), l1 = TFL_KARG(c, int64_t, 7),
                l2 = TFL_KARG(c, int64_t, 8);
        /* one block per output, or (2.15+) a grid-stride over `total` */
        nout = k->total_arg ? TFL_KARG(c, int64_t, 9) : (int64_t)c->grid[0];
        if (d->r2 <= 0 || d->m <= 0 || r_size <= 0 || r_size % d->r2 || nout % r_size ||
            l1 != r_size / d->r2 * d->m || l2 != d->r2 * d->m)
            return TFL_ERR_UNSUPPORTED;
        d->r1 = r_size / d->r2;
        d->batch = nout / r_size;
        nx1 = d->batch * l1;
        nx2 = d->batch * l2;
        break;
    }
    case TFL_DIST_PDIST:
        d->out = TFL_KARG(c, void *, 0);
        d->x1 = TFL_KARG(c, void *, 1);
        d->r1 = TFL_KARG(c, int64_t, 2);
        d->m = TFL_KARG(c, int64_t, 3);
        d->p = karg_real(c, k->dt, 4);
        nout = k->total_arg ? TFL_KARG(c, int64_t, 7) : (int64_t)c->grid[0];
        if (d->r1 < 2 || d->m <= 0 || nout != d->r1 * (d->r1 - 1) / 2)
            return TFL_ERR_UNSUPPORTED;
        d->batch = 1;
        nx1 = d->r1 * d->m;
        break;
    case TFL_DIST_CDIST_BACKWARD: {
        d->out = TFL_KARG(c, void *, 0);
        d->grad = TFL_KARG(c, void *, 1);
        d->x1 = TFL_KARG(c, void *, 2);
        d->x2 = TFL_KARG(c, void *, 3);
        d->dist = TFL_KARG(c, void *, 4);
        d->p = karg_real(c, k->dt, 5);
        d->r1 = TFL_KARG(c, int64_t, 6);
        d->r2 = TFL_KARG(c, int64_t, 7);
        d->m = TFL_KARG(c, int64_t, 8);
        int64_t count = TFL_KARG(c, int64_t, 9), r_size = TFL_KARG(c, int64_t, 10),
                l1 = TFL_KARG(c, int64_t, 11), l2 = TFL_KARG(c, int64_t, 12);
        if (d->r1 <= 0 || d->r2 <= 0 || d->m <= 0 || r_size != d->r1 * d->r2 ||
            count % r_size || l1 != d->r1 * d->m || l2 != d->r2 * d->m)
            return TFL_ERR_UNSUPPORTED;
        d->batch = count / r_size;
        nout = count * d->m;
        nx1 = d->batch * l1;
        nx2 = d->batch * l2;
        ngrad = count;
        break;
    }
    default: {                              /* TFL_DIST_PDIST_BACKWARD */
        d->out = TFL_KARG(c, void *, 0);
        d->grad = TFL_KARG(c, void *, 1);
        d->x1 = TFL_KARG(c, void *, 2);
        d->dist = TFL_KARG(c, void *, 3);
        d->grad_stride = TFL_KARG(c, int64_t, 4);
        d->r1 = TFL_KARG(c, int64_t, 5);
        d->m = TFL_KARG(c, int64_t, 6);
        int64_t combs = TFL_KARG(c, int64_t, 7);
        d->p = karg_real(c, k->dt, 8);
        if (d->r1 < 2 || d->m <= 0 || combs != d->r1 * (d->r1 - 1) / 2 || d->grad_stride < 0)
            return TFL_ERR_UNSUPPORTED;
        d->batch = 1;
        nout = (d->r1 - 1) * d->r1 * d->m;
        nx1 = d->r1 * d->m;
        ngrad = (combs - 1) * d->grad_stride + 1;
        break;
    }
    }
    int ok = tfl_kdev_ok(d->out, (size_t)nout * es) && tfl_kdev_ok(d->x1, (size_t)nx1 * es) &&
             (!nx2 || tfl_kdev_ok(d->x2, (size_t)nx2 * es)) &&
             (!d->grad || tfl_kdev_ok(d->grad, (size_t)ngrad * es)) &&
             (!d->dist || tfl_kdev_ok(d->dist, (size_t)(nout / d->m / (k->kind == TFL_DIST_PDIST_BACKWARD ? 2 : 1)) * es));
    if (!ok) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_distance = {
    .name = "distance",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

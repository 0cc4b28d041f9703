/*
 * distance.c - the "distance" kernel family of the semantic op table:
 * PyTorch's DistanceKernel.cu (torch.cdist, F.pdist and their backward),
 * torch 2.11.0 sm_80 layouts.  F is dists<T>::{zero,one,two,inf,p,lt_two}.
 *
 *   cdist_kernel_cuda_impl<T, F>(T* result, const T* x1, const T* x2, T p,
 *       int64 r2, int64 m, int64 r_size, int64 l1_size, int64 l2_size)
 *       one block per output element: grid.x = batch * r1 * r2
 *   pdist_kernel_cuda_impl<T, F>(T* result, const T* self, int64 n,
 *       int64 m, T p, double n2, double n2_squared_minus_1)
 *       grid.x = n (n - 1) / 2
 *   cdist_backward_kernel_cuda_impl<T, F>(T* buffer, const T* grad,
 *       const T* x1, const T* x2, const T* dist, T p, int64 r1, int64 r2,
 *       int64 m, int64 count, int64 r_size, int64 l1_size, int64 l2_size)
 *       buffer [batch][r2][r1][m] (PyTorch then sums over r2)
 *   pdist_backward_kernel_cuda_impl<T, F>(T* buffer, const T* grad,
 *       const T* self, const T* dist, int64 gs, int64 n, int64 m,
 *       int64 combs, T p, double n2, double n2_squared_minus_1)
 *       buffer [n - 1][n][m] (PyTorch then sums over dim 0)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

typedef struct dist_kernel {
    int kind;                /* tfl_distance_kind */
    int norm;
    tfl_dtype dt;
} dist_kernel;

static int match(const char *m, void **cookie)
{
    static const struct { const char *id; int kind; } ids[] = {
        { "22cdist_kernel_cuda_implI", TFL_DIST_CDIST },
        { "22pdist_kernel_cuda_implI", TFL_DIST_PDIST },
        { "31cdist_backward_kernel_cuda_implI", TFL_DIST_CDIST_BACKWARD },
        { "31pdist_backward_kernel_cuda_implI", TFL_DIST_PDIST_BACKWARD },
    };
    static const struct { const char *tag; int norm; } norms[] = {
        { "4zeroE", TFL_DIST_ZERO }, { "3oneE", TFL_DIST_ONE }, { "3twoE", TFL_DIST_TWO },
        { "3infE", TFL_DIST_INF }, { "1pE", TFL_DIST_P }, { "6lt_twoE", TFL_DIST_LT_TWO },
    };
    if (strncmp(m, "_ZN2at6native", 13) != 0 || !strstr(m, "DistanceKernel_cu"))
        return 0;
    dist_kernel k;
    const char *p = NULL;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0] && !p; i++)
        if ((p = strstr(m, ids[i].id)) != NULL) {
            k.kind = ids[i].kind;
            p += strlen(ids[i].id);
        }
    if (!p)
        return 0;
    if (p[0] == 'f') k.dt = TFL_DT_F32;
    else if (p[0] == 'd') k.dt = TFL_DT_F64;
    else return 0;
    /* "<t>NS1_5distsI<t>E<len><name>EEEv..." */
    if (strncmp(p + 1, "NS1_5distsI", 11) != 0 || p[12] != p[0] || p[13] != 'E')
        return 0;
    p += 14;
    int found = 0;
    for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++)
        if (strncmp(p, norms[i].tag, strlen(norms[i].tag)) == 0) {
            k.norm = norms[i].norm;
            found = 1;
        }
    if (!found)
        return 0;
    dist_kernel *c = malloc(sizeof *c);
    if (!c)
        return 0;
    *c = k;
    *cookie = c;
    return 1;
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
        nout = (int64_t)c->grid[0];
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
        nout = (int64_t)c->grid[0];
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
        return TFL_ERR_DEVICE;
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
};

/*
 * embedding.c - the "embedding" kernel family of the semantic op table:
 * PyTorch's dense embedding backward (Embedding.cu), for scalar_t = float,
 * c10::Half and c10::BFloat16 (accscalar_t = float).
 *
 *   embedding_backward_feature_kernel<scalar_t, float, index_t>(
 *       const index_t *indices, const scalar_t *grad, scalar_t *grad_weight,
 *       int n, int64 stride, int padding_idx)
 * adds grad row i into grad_weight row indices[i] (rows of `stride`
 * elements) unless it is padding_idx; grad_weight was zeroed before.  The
 * kernel sums the rows that share an index in float and adds the sum to
 * grad_weight once per batch of (blockDim.x * blockDim.y) indices.  It is
 * what embedding_dense_backward launches for up to 3072 indices without
 * scale_grad_by_freq.  The sort-based path for more indices (cub radix
 * sort + compute_grad_weight + sum_and_scatter) is not mapped.
 * The lookup (forward) is an index kernel (index.c).
 *
 * embedding_bag (EmbeddingBag.cu, EmbeddingBackwardKernel.cu), scalar_t
 * float or double, index_t int or long:
 *   EmbeddingBag_updateOutputKernel_max(input, offsets, weight, output,
 *       offset2bag, long numIndices, long numBags, long featureSize, long
 *       weight_stride0, long weight_stride1, bag_size, max_indices, index_t
 *       padding_idx, long numRows)
 *   EmbeddingBag_updateOutputKernel_sum_mean(the same ten, int mode @80,
 *       bag_size, per_sample_weights (or NULL), long psw_stride, index_t
 *       padding_idx, long numRows)
 *   EmbeddingBag_accGradParametersKernel_max(max_indices, gradOutput,
 *       gradWeight, long stride, long numBags, index_t padding_idx, numel
 *       of gradWeight: index_t up to 2.13, long from 2.14)
 *   compute_grad_weight_bags(indices, grad, offset2bag, count, long numel,
 *       long stride, int mode_mean, bag_size, per_sample_weights, long
 *       psw_stride, segment_offsets, long *num_of_segments, acc *grad_weight_per_segment,
 *       long stride_warped): the per-segment partial sums of the sum/mean
 *       backward (the sort before and the scatter after are not this family's)
 *   _embedding_bag_per_sample_weights_backward_kernel(grad, long gs0, long
 *       gs1, weight, long ws0, long ws1, indices, offset2bag, long
 *       num_samples, long features, [long num_bags, long num_weights (2.15+)],
 *       output, index_t padding_idx)
 *       2.15 passes the bag and weight row counts for a device-side bounds
 *       check (its SASS asserts offset2bag[i] < num_bags and indices[i] <
 *       num_weights); the decoder bounds the native op by them too.
 *
 * renorm_kernel<scalar_t, accscalar_t, const index_t> (F.embedding with
 * max_norm): weights, indices, max_norm, norm_type (accscalar_t), long dim,
 * [long num_rows (2.13+),] long stride0, long stride1, const long
 * *num_unique_indices; grid = one block per index.  2.13's num_rows bounds
 * the indices (a device-side assert in its SASS); the decoder passes it on.
 *
 * embedding_renorm_wrap_indices_kernel<index_t>(const index_t *in, index_t
 * *out, long numel, long num_weights) (2.13+; F.embedding with max_norm
 * launches it before the sort and renorm_kernel): thread i = blockIdx.x *
 * blockDim.x + threadIdx.x, i < numel, writes out[i] = in[i] + (in[i] < 0
 * ? num_weights : 0) after a device-side assert -num_weights <= in[i] <
 * num_weights (read from the 2.13 and 2.15 SASS: x dimensions only, no
 * grid-stride loop, so the launch's x threads bound the elements done;
 * y/z blocks or threads would repeat the same ones).  The assert becomes
 * the host op's TFL_ERR_DEVICE.
 *
 * Kernels are recognised by base name, template arguments and parameter
 * count (which tells the release forms apart); layout() states each form's
 * parameters, checked against the sm_80 cubins of torch 2.11 to 2.15.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"
#include "route/optable/kname.h"

enum { BAG_NONE = 0, BAG_FWD_MAX = 1, BAG_FWD_SUM_MEAN = 2, BAG_BWD_MAX = 3,
       BAG_GRAD_PARTIALS = 4, BAG_PSW_BWD = 5, RENORM = 6, WRAP = 7 };

/* What match() parsed; lives for the process. */
typedef struct ecookie {
    unsigned kind;               /* BAG_* / RENORM / WRAP                   */
    tfl_dtype dt, it;            /* element and index dtypes                */
    int later;                   /* the later release form (see KERNELS)    */
    const char *sig;             /* parameters (N: index_t, R: accscalar_t) */
} ecookie;

/* Per kernel: template shape (T element, A float accumulator, R the
 * accumulator of renorm, N index_t, K const index_t), the element types it
 * may have, and its parameter count and signature in each release form
 * (optable.h tokens; N and R are replaced by the index / accumulator
 * type).  n2 = 0: one form only. */
enum { DT_FHB = 1, DT_FD, DT_ALL };
static const struct {
    const char *base, *shape;
    unsigned kind;
    int dts, n1, n2;
    const char *sig1, *sig2;
} KERNELS[] = {
    { "embedding_backward_feature_kernel", "TAN", BAG_NONE, DT_FHB, 6, 0, "p p p i l i", NULL },
    { "EmbeddingBag_updateOutputKernel_max", "TN", BAG_FWD_MAX, DT_FD, 14, 0,
      "p p p p p l l l l l p p N l", NULL },
    { "EmbeddingBag_updateOutputKernel_sum_mean", "TN", BAG_FWD_SUM_MEAN, DT_FD, 16, 0,
      "p p p p p l l l l l i p p l N l", NULL },
    /* same count in both forms: numel's type (param 6) tells them apart */
    { "EmbeddingBag_accGradParametersKernel_max", "TN", BAG_BWD_MAX, DT_FD, 7, 7,
      "p p p l l N N", "p p p l l N l" },
    { "compute_grad_weight_bags", "TN", BAG_GRAD_PARTIALS, DT_FD, 14, 0,
      "p p p p l l i p p l p p p l", NULL },
    { "_embedding_bag_per_sample_weights_backward_kernel", "TN", BAG_PSW_BWD, DT_FD, 12, 14,
      "p l l p l l p p l l p N", "p l l p l l p p l l l l p N" },
    { "renorm_kernel", "TRK", RENORM, DT_ALL, 8, 9, "p p R R l l l p", "p p R R l l l l p" },
    /* 2.13+ only; no element type */
    { "embedding_renorm_wrap_indices_kernel", "N", WRAP, DT_ALL, 4, 0, "p p l l", NULL },
};

static int dt_allowed(int set, tfl_dtype dt)
{
    switch (set) {
    case DT_FHB: return dt == TFL_DT_F32 || dt == TFL_DT_F16 || dt == TFL_DT_BF16;
    case DT_FD:  return dt == TFL_DT_F32 || dt == TFL_DT_F64;
    default:     return dt == TFL_DT_F32 || dt == TFL_DT_F64 || dt == TFL_DT_F16 ||
                        dt == TFL_DT_BF16;
    }
}

/* Walk the template arguments by shape into c. */
static int by_shape(const tfl_kname *k, const char *shape, int dts, ecookie *c)
{
    int i = 0;
    tfl_dtype acc;
    for (const char *s = shape; *s; s++, i++) {
        switch (*s) {
        case 'T':
            if (!tfl_kname_targ_dtype(k, i, &c->dt) || !dt_allowed(dts, c->dt))
                return 0;
            break;
        case 'A':               /* accscalar_t float */
            if (!tfl_kname_targ_is(k, i, "float"))
                return 0;
            break;
        case 'R':               /* renorm: double for double, else float */
            if (!tfl_kname_targ_dtype(k, i, &acc) ||
                acc != (c->dt == TFL_DT_F64 ? TFL_DT_F64 : TFL_DT_F32))
                return 0;
            break;
        case 'N': case 'K':
            if (tfl_kname_targ_is(k, i, *s == 'N' ? "int" : "int const"))
                c->it = TFL_DT_I32;
            else if (tfl_kname_targ_is(k, i, *s == 'N' ? "long" : "long const"))
                c->it = TFL_DT_I64;
            else
                return 0;
            break;
        }
    }
    return i == k->ntargs;
}

static int parse(const tfl_kname *k, ecookie *c)
{
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++) {
        if (!tfl_kname_is(k, KERNELS[i].base))
            continue;
        c->kind = KERNELS[i].kind;
        if (!by_shape(k, KERNELS[i].shape, KERNELS[i].dts, c))
            return 0;
        if (c->kind == BAG_BWD_MAX) {
            /* numel: index_t (2.11-2.13) or long (2.14+) */
            c->later = tfl_kname_param_is(k, 6, "long");
            if (!c->later && !tfl_kname_param_is(k, 6, "int"))
                return 0;
        } else {
            c->later = KERNELS[i].n2 && k->nparams == KERNELS[i].n2;
        }
        if (k->nparams != (c->later ? KERNELS[i].n2 : KERNELS[i].n1))
            return 0;
        c->sig = c->later ? KERNELS[i].sig2 : KERNELS[i].sig1;
        return 1;
    }
    return 0;
}

static int match(const char *m, void **cookie)
{
    if (!m || (!strstr(m, "mbedding") && !strstr(m, "renorm_kernel") &&
               !strstr(m, "compute_grad_weight_bags")))
        return 0;                           /* cheap filter before demangling */
    tfl_kname k;
    if (tfl_kname_parse(m, &k) != 0)
        return 0;
    ecookie c;
    memset(&c, 0, sizeof c);
    int ok = parse(&k, &c);
    tfl_kname_free(&k);
    return ok && tfl_kcookie_keep(&c, sizeof c, cookie);
}

static const char *op_name(void *cookie)
{
    switch (((const ecookie *)cookie)->kind) {
    case BAG_FWD_MAX:
    case BAG_FWD_SUM_MEAN:
        return "embedding_bag";
    case BAG_BWD_MAX:
        return "embedding_bag_backward_max";
    case BAG_GRAD_PARTIALS:
        return "embedding_bag_backward_partials";
    case BAG_PSW_BWD:
        return "embedding_bag_backward_psw";
    case RENORM:
        return "embedding_renorm";
    case WRAP:
        return "embedding_renorm_wrap";
    default:
        return "embedding_backward";
    }
}

#define ARG(c, i, T) TFL_KARG(c, T, i)

static int in_mem(const void *p, int64_t bytes)
{
    return bytes <= 0 || (p && tfl_mem_check_range(p, (size_t)bytes, NULL));
}

/* Whole rows of row_bytes from p to the end of p's allocation; -1 when p
 * is not device memory. */
static int64_t rows_in_alloc(const void *p, int64_t row_bytes)
{
    tfl_alloc_info a;
    if (!p || row_bytes <= 0 || !tfl_mem_lookup(p, &a))
        return -1;
    return (int64_t)(((const char *)a.base + a.size - (const char *)p) / row_bytes);
}

/* Rows r (r * pitch + span bytes from p) inside p's allocation; -1 when p
 * is not device memory.  pitch 0: one row, or every row. */
static int64_t rows_strided(const void *p, int64_t pitch, int64_t span)
{
    tfl_alloc_info a;
    if (!p || !tfl_mem_lookup(p, &a))
        return -1;
    int64_t room = (int64_t)((const char *)a.base + a.size - (const char *)p);
    if (room < span)
        return 0;
    return pitch > 0 ? (room - span) / pitch + 1 : INT64_MAX;
}

static tfl_status run_bag(const tfl_kcall *c, const ecookie *k, char *err, size_t errlen)
{
    const unsigned bk = k->kind;
    const tfl_dtype dt = k->dt, it = k->it;
    tfl_op op = { .kind = TFL_OP_EMBEDDING };
    tfl_embedding_op *e = &op.u.embedding;
    tfl_embedding_bag *b = &e->bag;
    e->dtype = dt;
    e->index_dtype = it;
    const int64_t isz = it == TFL_DT_I64 ? 8 : 4, esz = (int64_t)tfl_dtype_size(dt);
#define IDX(i) (it == TFL_DT_I64 ? ARG(c, i, int64_t) : (int64_t)ARG(c, i, int32_t))
    if (bk == BAG_GRAD_PARTIALS) {
        /* (orig_indices, grad, offset2bag, count, numel, stride, int
         *  mode_mean @48, bag_size, psw, psw_stride, partial segment
         *  offsets, long *num_partials, acc, stride_warped) */
        op.name = "embedding_bag_backward_partials";
        e->kind = TFL_EMBEDDING_BAG_GRAD_PARTIALS;
        b->indices = ARG(c, 0, const void *);
        b->grad = ARG(c, 1, const void *);
        b->offset2bag = ARG(c, 2, void *);
        b->count = ARG(c, 3, const void *);
        b->num_indices = ARG(c, 4, int64_t);
        b->features = ARG(c, 5, int64_t);
        b->mode = ARG(c, 6, int32_t) ? TFL_EMBEDDING_BAG_MEAN : TFL_EMBEDDING_BAG_SUM;
        b->bag_size = ARG(c, 7, void *);
        b->psw = ARG(c, 8, const void *);
        b->psw_stride = ARG(c, 9, int64_t);
        b->seg_offsets = ARG(c, 10, const void *);
        b->num_segments = ARG(c, 11, const int64_t *);
        b->acc = ARG(c, 12, void *);
        const int64_t lim = INT64_MAX / 16;
        if (b->num_indices < 0 || b->features <= 0 || b->psw_stride < 0 ||
            b->num_indices > lim || b->features > lim / 8 ||
            (b->psw && b->num_indices && b->psw_stride > lim / b->num_indices))
            return TFL_ERR_UNSUPPORTED;
        /* the bag and partial counts are not parameters: the allocations
         * bound them (the host op checks every number it reads) */
        const int64_t accsz = dt == TFL_DT_F64 ? 8 : 4;
        int64_t gb = rows_in_alloc(b->grad, b->features * esz);
        int64_t sb = rows_in_alloc(b->bag_size, isz);
        b->num_bags = gb < sb ? gb : sb;
        int64_t so = rows_in_alloc(b->seg_offsets, isz);
        int64_t ac = rows_in_alloc(b->acc, b->features * accsz);
        b->max_segments = so < ac ? so : ac;
        if (!in_mem(b->indices, b->num_indices * isz) ||
            !in_mem(b->offset2bag, b->num_indices * isz) ||
            (b->count && !in_mem(b->count, b->num_indices * isz)) ||
            !in_mem(b->num_segments, 8) || b->num_bags < 0 || b->max_segments < 0 ||
            (b->psw && b->num_indices &&
             !in_mem(b->psw, ((b->num_indices - 1) * b->psw_stride + 1) * esz))) {
            snprintf(err, errlen, "embedding_bag backward: an operand is not in device memory");
            return TFL_ERR_INVALID;
        }
    } else if (bk == BAG_PSW_BWD) {
        /* (grad, gs0, gs1, weight, ws0, ws1, indices, offset2bag,
         *  num_samples, features, [num_bags, num_weights,] out, index_t
         *  padding_idx) */
        const int o = k->later ? 2 : 0;
        op.name = "embedding_bag_backward_psw";
        e->kind = TFL_EMBEDDING_BAG_PSW_BWD;
        b->grad = ARG(c, 0, const void *);
        b->gs0 = ARG(c, 1, int64_t);
        b->gs1 = ARG(c, 2, int64_t);
        b->weight = ARG(c, 3, const void *);
        b->ws0 = ARG(c, 4, int64_t);
        b->ws1 = ARG(c, 5, int64_t);
        b->indices = ARG(c, 6, const void *);
        b->offset2bag = ARG(c, 7, void *);
        b->num_indices = ARG(c, 8, int64_t);
        b->features = ARG(c, 9, int64_t);
        b->out = ARG(c, 10 + o, void *);
        e->padding_idx = IDX(11 + o);
        const int64_t lim = INT64_MAX / 16;
        if (b->num_indices < 0 || b->features < 0 || b->gs0 < 0 || b->gs1 < 0 ||
            b->ws0 < 0 || b->ws1 < 0 || b->num_indices > lim || b->features > lim / 8 ||
            b->gs1 > lim / (b->features + 1) || b->ws1 > lim / (b->features + 1))
            return TFL_ERR_UNSUPPORTED;
        if (b->num_indices == 0)
            return TFL_OK;
        /* rows of grad and weight that lie wholly inside their allocations */
        const int64_t gspan = b->features ? ((b->features - 1) * b->gs1 + 1) * esz : esz;
        const int64_t wspan = b->features ? ((b->features - 1) * b->ws1 + 1) * esz : esz;
        b->num_bags = rows_strided(b->grad, b->gs0 * esz, gspan);
        e->weight_rows = rows_strided(b->weight, b->ws0 * esz, wspan);
        if (k->later) {
            /* 2.15 bounds offset2bag and indices itself: so does the op */
            const int64_t nb = ARG(c, 10, int64_t), nw = ARG(c, 11, int64_t);
            if (nb < 0 || nw < 0)
                return TFL_ERR_UNSUPPORTED;
            if (b->num_bags > nb)
                b->num_bags = nb;
            if (e->weight_rows > nw)
                e->weight_rows = nw;
        }
        if (!in_mem(b->indices, b->num_indices * isz) ||
            !in_mem(b->offset2bag, b->num_indices * isz) ||
            !in_mem(b->out, b->num_indices * esz) || b->num_bags < 0 || e->weight_rows < 0) {
            snprintf(err, errlen, "embedding_bag backward: an operand is not in device memory");
            return TFL_ERR_INVALID;
        }
    } else if (bk == BAG_BWD_MAX) {
        op.name = "embedding_bag_backward_max";
        e->kind = TFL_EMBEDDING_BAG_MAX_BWD;
        b->max_indices = ARG(c, 0, void *);
        b->grad = ARG(c, 1, const void *);
        b->grad_weight = ARG(c, 2, void *);
        b->features = ARG(c, 3, int64_t);
        b->num_bags = ARG(c, 4, int64_t);
        e->padding_idx = IDX(5);
        int64_t numel = k->later ? ARG(c, 6, int64_t) : IDX(6);
        if (b->features <= 0 || b->num_bags < 0 || numel < 0 ||
            b->num_bags > INT64_MAX / b->features / 8)
            return b->features == 0 && b->num_bags >= 0 ? TFL_OK : TFL_ERR_UNSUPPORTED;
        e->weight_rows = numel / b->features;
        if (!in_mem(b->max_indices, b->num_bags * b->features * isz) ||
            !in_mem(b->grad, b->num_bags * b->features * esz) ||
            !in_mem(b->grad_weight, numel * esz)) {
            snprintf(err, errlen, "embedding_bag backward: an operand is not in device memory");
            return TFL_ERR_INVALID;
        }
    } else {
        op.name = "embedding_bag";
        e->kind = TFL_EMBEDDING_BAG_FWD;
        b->indices = ARG(c, 0, const void *);
        b->offsets = ARG(c, 1, const void *);
        b->weight = ARG(c, 2, const void *);
        b->out = ARG(c, 3, void *);
        b->offset2bag = ARG(c, 4, void *);
        b->num_indices = ARG(c, 5, int64_t);
        b->num_bags = ARG(c, 6, int64_t);
        b->features = ARG(c, 7, int64_t);
        b->ws0 = ARG(c, 8, int64_t);
        b->ws1 = ARG(c, 9, int64_t);
        if (bk == BAG_FWD_MAX) {
            b->mode = TFL_EMBEDDING_BAG_MAX;
            b->bag_size = ARG(c, 10, void *);
            b->max_indices = ARG(c, 11, void *);
            e->padding_idx = IDX(12);
            e->weight_rows = ARG(c, 13, int64_t);
        } else {
            int32_t mode = ARG(c, 10, int32_t);
            if (mode != 0 && mode != 1)
                return TFL_ERR_UNSUPPORTED;
            b->mode = mode ? TFL_EMBEDDING_BAG_MEAN : TFL_EMBEDDING_BAG_SUM;
            b->bag_size = ARG(c, 11, void *);
            b->psw = ARG(c, 12, const void *);
            b->psw_stride = ARG(c, 13, int64_t);
            e->padding_idx = IDX(14);
            e->weight_rows = ARG(c, 15, int64_t);
        }
        const int64_t lim = INT64_MAX / 16;
        if (b->num_indices < 0 || b->num_bags < 0 || b->features < 0 || e->weight_rows < 0 ||
            b->ws0 < 0 || b->ws1 < 0 || b->psw_stride < 0 || b->num_indices > lim ||
            b->num_bags > lim || (b->features && b->num_bags > lim / b->features) ||
            (b->features && e->weight_rows && b->ws0 > lim / e->weight_rows) ||
            (b->features && b->ws1 > lim / b->features) ||
            (b->psw && b->num_indices && b->psw_stride > lim / b->num_indices))
            return TFL_ERR_UNSUPPORTED;
        if (b->num_bags == 0)
            return TFL_OK;
        const int64_t wspan = e->weight_rows && b->features
            ? ((e->weight_rows - 1) * b->ws0 + (b->features - 1) * b->ws1 + 1) * esz : 0;
        if (!in_mem(b->indices, b->num_indices * isz) ||
            !in_mem(b->offsets, b->num_bags * isz) ||
            !in_mem(b->weight, wspan) ||
            !in_mem(b->out, b->num_bags * b->features * esz) ||
            !in_mem(b->offset2bag, b->num_indices * isz) ||
            !in_mem(b->bag_size, b->num_bags * isz) ||
            (bk == BAG_FWD_MAX && !in_mem(b->max_indices, b->num_bags * b->features * isz)) ||
            (b->psw && b->num_indices &&
             !in_mem(b->psw, ((b->num_indices - 1) * b->psw_stride + 1) * esz))) {
            snprintf(err, errlen, "embedding_bag: an operand is not in device memory");
            return TFL_ERR_INVALID;
        }
    }
#undef IDX
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

/* One block per (sorted, distinct) index; blocks past *num_unique return. */
static tfl_status run_renorm(const tfl_kcall *c, const ecookie *k, char *err, size_t errlen)
{
    const tfl_dtype dt = k->dt, it = k->it;
    const int o = k->later;      /* 2.13+: num_rows after dim */
    tfl_op op = { .kind = TFL_OP_EMBEDDING, .name = "embedding_renorm" };
    tfl_embedding_op *e = &op.u.embedding;
    tfl_embedding_renorm *r = &e->renorm;
    e->kind = TFL_EMBEDDING_RENORM;
    e->dtype = dt;
    e->index_dtype = it;
    r->weight = ARG(c, 0, void *);
    e->indices = ARG(c, 1, const void *);
    if (dt == TFL_DT_F64) {
        r->max_norm = ARG(c, 2, double);
        r->norm_type = ARG(c, 3, double);
    } else {
        r->max_norm = ARG(c, 2, float);
        r->norm_type = ARG(c, 3, float);
    }
    r->features = ARG(c, 4, int64_t);
    const int64_t num_rows = o ? ARG(c, 5, int64_t) : INT64_MAX;
    r->ws0 = ARG(c, 5 + o, int64_t);
    r->ws1 = ARG(c, 6 + o, int64_t);
    r->num_unique = ARG(c, 7 + o, const int64_t *);
    e->n = (int64_t)c->grid[0] * c->grid[1] * c->grid[2];
    if (c->grid[1] != 1 || c->grid[2] != 1 || r->features < 0 || r->ws0 < 0 || r->ws1 < 0 ||
        num_rows < 0)
        return TFL_ERR_UNSUPPORTED;
    if (e->n == 0 || r->features == 0)
        return TFL_OK;
    const int64_t isz = it == TFL_DT_I64 ? 8 : 4;
    const int64_t esz = (int64_t)tfl_dtype_size(dt);
    if (!in_mem(e->indices, e->n * isz) || !in_mem(r->num_unique, 8)) {
        snprintf(err, errlen, "embedding_renorm: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    e->weight_rows = rows_strided(r->weight, r->ws0 * esz,
                                  ((r->features - 1) * r->ws1 + 1) * esz);
    if (e->weight_rows < 0) {
        snprintf(err, errlen, "embedding_renorm: the weight is not in device memory");
        return TFL_ERR_INVALID;
    }
    if (e->weight_rows > num_rows)          /* 2.13+ asserts index < num_rows */
        e->weight_rows = num_rows;
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "embedding_renorm failed (%d)", (int)st);
    return st;
}

/* max_norm's index wrap: element i for each x thread i < numel. */
static tfl_status run_wrap(const tfl_kcall *c, const ecookie *k, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_EMBEDDING, .name = "embedding_renorm_wrap" };
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_WRAP_INDICES;
    e->index_dtype = k->it;
    e->indices = ARG(c, 0, const void *);
    e->wrapped = ARG(c, 1, void *);
    const int64_t numel = ARG(c, 2, int64_t);
    e->weight_rows = ARG(c, 3, int64_t);
    if (numel < 0 || e->weight_rows < 0)
        return TFL_ERR_UNSUPPORTED;
    const int64_t threads = (int64_t)c->grid[0] * c->block[0];
    e->n = numel < threads ? numel : threads;
    if (e->n == 0)
        return TFL_OK;
    const int64_t isz = k->it == TFL_DT_I64 ? 8 : 4;
    if (!in_mem(e->indices, e->n * isz) || !in_mem(e->wrapped, e->n * isz)) {
        snprintf(err, errlen, "embedding_renorm_wrap: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st == TFL_ERR_DEVICE)
        snprintf(err, errlen, "embedding_renorm_wrap: an index is outside [-%lld, %lld) "
                 "(the kernel's device-side assert)", (long long)e->weight_rows,
                 (long long)e->weight_rows);
    else if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "embedding_renorm_wrap failed (%d)", (int)st);
    return st;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    const ecookie *k = cookie;
    if (k->kind == WRAP)
        return run_wrap(c, k, err, errlen);
    if (k->kind == RENORM)
        return run_renorm(c, k, err, errlen);
    if (k->kind != BAG_NONE)
        return run_bag(c, k, err, errlen);
    tfl_op op = { .kind = TFL_OP_EMBEDDING, .name = "embedding_backward" };
    tfl_embedding_op *e = &op.u.embedding;
    e->kind = TFL_EMBEDDING_BWD_DENSE;
    e->dtype = k->dt;
    e->index_dtype = k->it;
    e->indices = ARG(c, 0, const void *);
    e->grad = ARG(c, 1, const void *);
    e->grad_weight = ARG(c, 2, void *);
    e->n = ARG(c, 3, int32_t);
    e->row_len = ARG(c, 4, int64_t);
    e->padding_idx = ARG(c, 5, int32_t);
    if (e->n < 0 || e->row_len < 0) {
        snprintf(err, errlen, "embedding backward: bad sizes n=%lld stride=%lld",
                 (long long)e->n, (long long)e->row_len);
        return TFL_ERR_INVALID;
    }
    if (e->n == 0 || e->row_len == 0)
        return TFL_OK;
    const int64_t isz = e->index_dtype == TFL_DT_I64 ? 8 : 4;
    const int64_t row = e->row_len * (int64_t)tfl_dtype_size(e->dtype);
    tfl_alloc_info gw;
    if (!tfl_mem_check_range(e->indices, (size_t)(e->n * isz), NULL) ||
        !tfl_mem_check_range(e->grad, (size_t)(e->n * row), NULL) ||
        !tfl_mem_lookup(e->grad_weight, &gw)) {
        snprintf(err, errlen, "embedding backward: an operand is not in device memory");
        return TFL_ERR_INVALID;
    }
    /* The kernel is not told the weight's row count: the rows the
     * allocation holds bound it (an index past them would fault). */
    e->weight_rows = (int64_t)(((const char *)gw.base + gw.size -
                                (const char *)e->grad_weight) / row);
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "embedding backward failed (%d)", (int)st);
    return st;
}

/* The matched form's parameters: N the index type, R the accumulator. */
static int layout(void *cookie, tfl_klayout *l)
{
    const ecookie *k = cookie;
    l->n = 0;
    if (!k)
        return 0;
    char buf[64];
    size_t n = strlen(k->sig);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, k->sig, n + 1);
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == 'N')
            buf[i] = k->it == TFL_DT_I64 ? 'l' : 'i';
        else if (buf[i] == 'R')
            buf[i] = k->dt == TFL_DT_F64 ? 'd' : 'f';
    }
    return tfl_klayout_sig(l, buf) == 0;
}

const tfl_kfamily tfl_kfamily_embedding = {
    .name = "embedding",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

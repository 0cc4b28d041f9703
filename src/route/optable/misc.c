/*
 * misc.c - the "misc" kernel family of the semantic op table: single
 * kernels of PyTorch ops that fit no other family, decoded into the op of
 * the backend ABI that already describes them.
 *
 * Claimed:
 *   cub DeviceReduceSingleTileKernel / DeviceReduceKernel over
 *     thrust::transform_iterator<at::native::internal::MapNumberOfTrueValues,
 *     const unsigned char *, int> with int accumulation and plus
 *     (torch.unique of a bool tensor counts the true values first):
 *     the count of nonzero bytes, routed as a TFL_SCAN_TOTAL scan op with
 *     nonzero = 1 over U8, exactly as nonzero's count (scan family).  The
 *     second pass of the multi-block reduce (over the int partials) is
 *     the scan family's.
 *   Parameter layouts (sm_80 cubins of torch 2.11.0+cu130):
 *     single tile: iterator @0 (16 bytes, the uchar pointer at 0),
 *       int *out @16, unsigned long long num_items @24, plus @32, int init
 *       @36, identity @40;
 *     multi block: iterator @0, int *partials @16, unsigned long long
 *       num_items @24, GridEvenShare @32 (72 bytes), plus @104, identity
 *       @105; one partial per block (gridDim.x): the whole count goes to
 *       partials[0] and zeros to the others, so the second pass adds up
 *       to the same total (integers: exact).
 *   unique_bool_write_output(int numel, const int *num_true, bool *values,
 *     long *counts) and unique_bool_write_inverse_indices(int numel, const
 *     int *num_true, const bool *self, long *inverse) (Unique.cu, the
 *     rest of torch.unique over bool): TFL_OP_MISC (torchfl/ops/misc.h).
 */
#include <stdio.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable.h"

enum { MK_TRUE_COUNT_SINGLE = 1, MK_TRUE_COUNT_MULTI = 2, MK_UNIQUE_BOOL_OUTPUT = 3,
       MK_UNIQUE_BOOL_INVERSE = 4 };

static int match(const char *m, void **cookie)
{
    if (!strcmp(m, "_ZN2at6native8internal24unique_bool_write_outputEiPKiPbPl")) {
        *cookie = (void *)(uintptr_t)MK_UNIQUE_BOOL_OUTPUT;
        return 1;
    }
    if (!strcmp(m, "_ZN2at6native8internal33unique_bool_write_inverse_indicesEiPKiPKbPl")) {
        *cookie = (void *)(uintptr_t)MK_UNIQUE_BOOL_INVERSE;
        return 1;
    }
    static const char iter[] = "transform_iteratorIN2at6native8internal21MapNumberOfTrueValuesEPKhiNSD_11use_defaultEEE";
    const char *p = strstr(m, iter);
    if (!p || !strstr(m, "policy_hubIiyN4cuda3std3__44plusIvEEE"))
        return 0;
    p += strlen(iter);
    if (strstr(m, "28DeviceReduceSingleTileKernelI") &&
        !strncmp(p, "PiyS9_iiNS7_10__identityEEEv", 28)) {
        *cookie = (void *)(uintptr_t)MK_TRUE_COUNT_SINGLE;
        return 1;
    }
    if (strstr(m, "18DeviceReduceKernelI") && !strncmp(p, "yS9_iNS7_10__identityEEEv", 25)) {
        *cookie = (void *)(uintptr_t)MK_TRUE_COUNT_MULTI;
        return 1;
    }
    return 0;
}

static const char *op_name(void *cookie)
{
    switch ((uintptr_t)cookie) {
    case MK_UNIQUE_BOOL_OUTPUT: return "unique_bool_output";
    case MK_UNIQUE_BOOL_INVERSE: return "unique_bool_inverse";
    default: return "count_true";
    }
}

static tfl_status run_unique_bool(const tfl_kcall *c, int which, char *err, size_t errlen)
{
    tfl_op op = { .kind = TFL_OP_MISC };
    tfl_misc_op *u = &op.u.misc;
    u->numel = TFL_KARG(c, int32_t, 0);
    u->num_true = TFL_KARG(c, const int32_t *, 1);
    int ok;
    if (which == MK_UNIQUE_BOOL_OUTPUT) {
        op.name = "unique_bool_output";
        u->kind = TFL_MISC_UNIQUE_BOOL_OUTPUT;
        u->values = TFL_KARG(c, uint8_t *, 2);
        u->counts = TFL_KARG(c, int64_t *, 3);
        /* the kernel writes one slot per distinct value (checked by the
         * host op: a count outside [0, numel] is refused there) */
        size_t slots = 2;
        if (tfl_mem_check_range(u->num_true, 4, NULL)) {
            const int64_t t = *u->num_true, f = u->numel - t;
            slots = (size_t)(t > 0) + (size_t)(f > 0);
        }
        ok = slots == 0 || (tfl_mem_check_range(u->values, slots, NULL) &&
                            tfl_mem_check_range(u->counts, slots * 8, NULL));
    } else {
        op.name = "unique_bool_inverse";
        u->kind = TFL_MISC_UNIQUE_BOOL_INVERSE;
        u->self = TFL_KARG(c, const uint8_t *, 2);
        u->inverse = TFL_KARG(c, int64_t *, 3);
        ok = u->numel == 0 || (tfl_mem_check_range(u->self, (size_t)u->numel, NULL) &&
                               tfl_mem_check_range(u->inverse, (size_t)u->numel * 8, NULL));
    }
    if (u->numel < 0)
        return TFL_ERR_UNSUPPORTED;
    if (!ok || !tfl_mem_check_range(u->num_true, 4, NULL)) {
        snprintf(err, errlen, "%s: an operand is not in device memory", op.name);
        return TFL_ERR_DEVICE;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s failed (%d)", op.name, (int)st);
    return st;
}

static tfl_status run(const tfl_kcall *c, void *cookie, char *err, size_t errlen)
{
    if ((uintptr_t)cookie == MK_UNIQUE_BOOL_OUTPUT || (uintptr_t)cookie == MK_UNIQUE_BOOL_INVERSE)
        return run_unique_bool(c, (int)(uintptr_t)cookie, err, errlen);
    const int single = (uintptr_t)cookie == MK_TRUE_COUNT_SINGLE;
    tfl_op op = { .kind = TFL_OP_SCAN, .name = "count_true" };
    tfl_scan_op *s = &op.u.scan;
    s->kind = TFL_SCAN_TOTAL;
    s->dtype = TFL_DT_U8;
    s->nonzero = 1;
    s->src = TFL_KARG_AT(c, const void *, 0, 0);
    s->total = TFL_KARG(c, void *, 1);
    s->total_dtype = TFL_DT_I32;
    uint64_t n = TFL_KARG(c, uint64_t, 2);
    if (n > (uint64_t)INT64_MAX / 2)
        return TFL_ERR_UNSUPPORTED;
    s->n = (int64_t)n;
    int32_t init = single ? TFL_KARG(c, int32_t, 4) : 0;
    memcpy(s->init, &init, 4);
    int64_t outs = 1;
    if (!single) {
        if (c->grid[1] != 1 || c->grid[2] != 1 || c->grid[0] == 0)
            return TFL_ERR_UNSUPPORTED;
        outs = c->grid[0];
        s->zero_after = outs;
    }
    if ((s->n && !tfl_mem_check_range(s->src, (size_t)s->n, NULL)) ||
        !tfl_mem_check_range(s->total, (size_t)outs * 4, NULL)) {
        snprintf(err, errlen, "count_true: an operand is not in device memory");
        return TFL_ERR_DEVICE;
    }
    tfl_status st = tfl_route_op(&op, c->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "count_true failed (%d)", (int)st);
    return st;
}

const tfl_kfamily tfl_kfamily_misc = {
    .name = "misc",
    .match = match,
    .run = run,
    .op_name = op_name,
};

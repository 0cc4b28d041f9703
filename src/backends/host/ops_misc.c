/*
 * ops_misc.c - the host backend's native "misc" op (torchfl/ops/misc.h):
 * the output steps of torch.unique over a bool tensor.  Pointers were
 * checked by the route decoder (src/route/optable/misc.c).
 */
#include "backends/host/host_ops.h"
#include "common/log.h"

int host_misc_supported(const tfl_misc_op *op)
{
    return op && op->numel >= 0 &&
           (op->kind == TFL_MISC_UNIQUE_BOOL_OUTPUT || op->kind == TFL_MISC_UNIQUE_BOOL_INVERSE);
}

tfl_status host_misc(const tfl_misc_op *op)
{
    if (!host_misc_supported(op))
        return TFL_ERR_UNSUPPORTED;
    const int64_t t = *op->num_true, f = op->numel - t;
    if (t < 0 || f < 0) {
        tfl_error("unique (bool): %lld true values among %lld", (long long)t,
                  (long long)op->numel);
        return TFL_ERR_DEVICE;
    }
    const int64_t true_idx = f > 0;
    if (op->kind == TFL_MISC_UNIQUE_BOOL_OUTPUT) {
        if (f > 0) {
            op->values[0] = 0;
            op->counts[0] = f;
        }
        if (t > 0) {
            op->values[true_idx] = 1;
            op->counts[true_idx] = t;
        }
        return TFL_OK;
    }
    const uint8_t *restrict x = op->self;
    int64_t *restrict inv = op->inverse;
    for (int64_t i = 0; i < op->numel; i++)
        inv[i] = x[i] ? true_idx : 0;
    return TFL_OK;
}

/*
 * torchfl/ops/misc.h - the "misc" op of the backend ABI: small steps of
 * PyTorch ops that fit no other op struct.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_MISC reads this struct.
 */
#ifndef TORCHFL_OPS_MISC_H
#define TORCHFL_OPS_MISC_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_misc_kind {
    /* torch.unique of a bool tensor, the values and counts: with t =
     * *num_true (an int32 in device memory) and f = numel - t,
     *   f > 0: values[0] = 0 (false), counts[0] = f;
     *   t > 0: values[f > 0] = 1 (true), counts[f > 0] = t.
     * values (bool, 1 byte) and counts (int64) hold 2 elements. */
    TFL_MISC_UNIQUE_BOOL_OUTPUT = 1,
    /* the inverse indices of the same: inverse[i] = self[i] ? (f > 0) : 0
     * for i < numel (self bool, inverse int64, both contiguous). */
    TFL_MISC_UNIQUE_BOOL_INVERSE = 2,
} tfl_misc_kind;

typedef struct tfl_misc_op {
    tfl_misc_kind kind;
    int64_t numel;
    const int32_t *num_true;
    const uint8_t *self;       /* UNIQUE_BOOL_INVERSE */
    uint8_t *values;           /* UNIQUE_BOOL_OUTPUT  */
    int64_t *counts;           /* UNIQUE_BOOL_OUTPUT  */
    int64_t *inverse;          /* UNIQUE_BOOL_INVERSE */
} tfl_misc_op;

#endif

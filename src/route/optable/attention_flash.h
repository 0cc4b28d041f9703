/*
 * attention_flash.h - the flash-attention kernels of the "attention" family
 * (attention_flash.c), called from attention.c's match/run.
 */
#ifndef TFL_ROUTE_OPTABLE_ATTENTION_FLASH_H
#define TFL_ROUTE_OPTABLE_ATTENTION_FLASH_H

#include <stddef.h>

#include "route/optable.h"

int tfl_attn_flash_match(const char *mangled, void **cookie);
int tfl_attn_flash_cookie(void *cookie);
const char *tfl_attn_flash_op_name(void *cookie);
tfl_status tfl_attn_flash_run(const tfl_kcall *call, void *cookie, char *err, size_t errlen);
/* attention.c: check a decoded op's shape and operands, route it. */
tfl_status tfl_attn_route(const tfl_kcall *call, tfl_attention_op *a, char *err, size_t errlen);

#endif

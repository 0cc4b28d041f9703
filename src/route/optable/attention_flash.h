/*
 * attention_flash.h - the flash-attention kernels of the "attention" family
 * (attention_flash.c), called from attention.c's match/run.
 */
#ifndef TFL_ROUTE_OPTABLE_ATTENTION_FLASH_H
#define TFL_ROUTE_OPTABLE_ATTENTION_FLASH_H

#include <stddef.h>

#include "route/optable.h"
#include "route/optable/kname.h"

/* A pytorch_flash kernel of ours: 1 and *cookie, else 0. */
int tfl_attn_flash_match(const tfl_kname *k, void **cookie);
/* The parameters a flash kernel's run reads (its params struct). */
int tfl_attn_flash_layout(void *cookie, tfl_klayout *l);
/* Is the template argument [s, s+n) an int or bool constant? */
int tfl_attn_constant(const char *s, size_t n);
int tfl_attn_flash_cookie(void *cookie);
const char *tfl_attn_flash_op_name(void *cookie);
tfl_status tfl_attn_flash_run(const tfl_kcall *call, void *cookie, char *err, size_t errlen);
/* attention.c: check a decoded op's shape and operands, route it. */
tfl_status tfl_attn_route(const tfl_kcall *call, tfl_attention_op *a, char *err, size_t errlen);

#endif

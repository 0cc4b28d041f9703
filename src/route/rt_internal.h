/*
 * rt_internal.h - state the route layer's files share (not for intercept).
 */
#ifndef TFL_RT_INTERNAL_H
#define TFL_RT_INTERNAL_H

#include <stdatomic.h>

#include "torchfl/backend.h"
#include "route/config.h"

/* Build the visible-device table (CUDA_VISIBLE_DEVICES, config). */
void tfl_rt_devices_init(const tfl_backend *b, const tfl_config *cfg);
/* Backend device index of visible device dev. */
int tfl_rt_backend_device(int dev);



struct hx_module;
struct tfl_module;
struct tfl_kernel;
/* The host executor's view of a module (NULL if its image is unusable). */
struct hx_module *tfl_rt_module_hx(struct tfl_module *m);
int tfl_rt_kernel_max_dynamic_smem(struct tfl_kernel *k);

/* What route remembers per kernel about how to run it (launch.c). */
struct tfl_kfamily;
struct tfl_stat_slot;
typedef struct tfl_kernel_route {
    _Atomic int resolved;              /* set last, under launch.c's lock */
    const struct tfl_kfamily *family;  /* NULL: not in the op table    */
    void *cookie;
    struct tfl_stat_slot *slot_op;     /* "<family>/<op>"              */
    struct tfl_stat_slot *slot_kernel; /* "unmapped/<mangled name>"    */
    int warned;
    char *refused;                     /* recognised, but its recorded
                                          parameters differ from the
                                          decoder's layout: why (one line);
                                          family is then NULL          */
} tfl_kernel_route;
tfl_kernel_route *tfl_rt_kernel_route(struct tfl_kernel *k);

#endif

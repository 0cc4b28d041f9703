/*
 * init.c - start-up of the route layer: config, logging, backend choice.
 *
 * Runs once, on the first CUDA call that needs a device (not at load time:
 * `import torch` must stay cheap and a process that never touches CUDA
 * should never pay for backend probing).
 */
#include "route/runtime.h"
#include "route/rt_internal.h"
#include "route/config.h"
#include "route/plugin.h"
#include "route/torch_release.h"
#include "common/log.h"
#include "mem/mem.h"
#include "mem/hostview.h"
#include "backends/host/hostexec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static tfl_status init_status = TFL_ERR_UNAVAILABLE;
static const tfl_backend *backend;
static atomic_int initialised;      /* do_init finished successfully */

static const tfl_backend *active_backend;

static tfl_status seg_alloc(int dev, size_t size, void **ptr)
{
    return active_backend->mem_alloc(dev, size, ptr);
}

static tfl_status seg_free(int dev, void *ptr, size_t size)
{
    return active_backend->mem_free(dev, ptr, size);
}

/* Host views of device memory (mem/hostview.c) move bytes with the
 * backend's own blocking copies, on its default stream. */
static tfl_status hv_fetch(void *host, const void *dev, size_t n)
{
    return active_backend->memcpy(host, dev, n, TFL_COPY_D2H, NULL);
}

static tfl_status hv_store(void *dev, const void *host, size_t n)
{
    return active_backend->memcpy(dev, host, n, TFL_COPY_H2D, NULL);
}

static tfl_status hv_sync(void)
{
    return active_backend->device_sync ? active_backend->device_sync(0) : TFL_OK;
}

static void do_init(void)
{
    const tfl_config *cfg = tfl_config_get();
    char why[1024] = "";
    const tfl_backend *b = tfl_backend_select(cfg->backend, why, sizeof why);
    if (!b) {
        tfl_error("%s", why);
        init_status = TFL_ERR_UNAVAILABLE;
        return;
    }
    if (b->init) {
        tfl_status st = b->init(tfl_plugin_host_api());
        if (st != TFL_OK) {
            tfl_error("backend %s failed to initialise (status %d)", b->name, (int)st);
            init_status = TFL_ERR_UNAVAILABLE;
            return;
        }
    }
    active_backend = b;
    if (b->mem_alloc && b->mem_free) {
        static const tfl_mem_provider prov = { seg_alloc, seg_free };
        tfl_mem_configure(&prov, cfg->mem_pool_size);
    } else {
        tfl_mem_configure(NULL, cfg->mem_pool_size);
    }
    if (!(b->host_addressable && b->host_addressable(0)) && b->memcpy) {
        static const tfl_hostview_ops hv = { hv_fetch, hv_store, hv_sync };
        tfl_hostview_configure(&hv);
    }
    hx_options hopt = { .threads = cfg->exec_threads };
    hx_init(&hopt);
    backend = b;
    tfl_rt_devices_init(b, cfg);
    init_status = TFL_OK;
    atomic_store_explicit(&initialised, 1, memory_order_release);
    /* not tfl_rt_device_count(): it would re-enter this pthread_once */
    tfl_info("backend %s ready (config %s)", b->name, cfg->source);
    tfl_torch_check_loaded();
}

tfl_status tfl_rt_init(void)
{
    pthread_once(&init_once, do_init);
    return init_status;
}

int tfl_rt_initialised(void)
{
    return atomic_load_explicit(&initialised, memory_order_acquire);
}

const tfl_backend *tfl_rt_backend(void)
{
    /* pthread_once also orders this read after do_init's writes */
    return tfl_rt_init() == TFL_OK ? backend : NULL;
}

const char *tfl_rt_backend_name(void)
{
    const tfl_backend *b = tfl_rt_backend();
    return b ? b->name : tfl_config_get()->backend;
}

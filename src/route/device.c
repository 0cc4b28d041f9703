/*
 * device.c - the device model: which devices are visible and what they are.
 *
 * The backend reports its devices; CUDA_VISIBLE_DEVICES selects and
 * reorders them exactly as CUDA does (a list of indices; the first entry
 * that is invalid or repeated ends the list; empty means no devices).  The
 * compute capability is the configured one unless the backend has a real
 * one (a GPU plugin), because it decides which kernel variants PyTorch
 * launches (see docs/config.md).
 */
#include "route/runtime.h"
#include "route/rt_internal.h"
#include "common/log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64

static int ndev, nphys;
static int dev_map[MAX_DEVICES];          /* visible -> backend index */
static tfl_device_info dev_info[MAX_DEVICES];
static tfl_device_info phys_info[MAX_DEVICES]; /* all, by backend index */
static __thread int cur_dev;

/* Parse CUDA_VISIBLE_DEVICES into map; returns the visible count. */
static int parse_visible(const char *s, int backend_count, int *map)
{
    int n = 0;
    while (*s && n < MAX_DEVICES) {
        while (isspace((unsigned char)*s))
            s++;
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v >= backend_count)
            break;
        for (int i = 0; i < n; i++)
            if (map[i] == (int)v)
                return n;
        map[n++] = (int)v;
        s = end;
        while (isspace((unsigned char)*s))
            s++;
        if (*s != ',')
            break;
        s++;
    }
    return n;
}

void tfl_rt_devices_init(const tfl_backend *b, const tfl_config *cfg)
{
    int count = b->device_count ? b->device_count() : 0;
    /* The host backend is one CPU; config may present it as several
     * devices (to exercise multi-device code paths). */
    if (strcmp(b->name, "host") == 0 && cfg->device_count > 0)
        count = cfg->device_count;
    if (count > MAX_DEVICES)
        count = MAX_DEVICES;
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    int map[MAX_DEVICES];
    int n;
    if (vis) {
        n = parse_visible(vis, count, map);
    } else {
        n = count;
        for (int i = 0; i < n; i++)
            map[i] = i;
    }
    for (int i = 0; i < count; i++) {
        tfl_device_info *d = &phys_info[i];
        memset(d, 0, sizeof *d);
        int bdev = strcmp(b->name, "host") == 0 ? 0 : i;
        if (!b->device_info || b->device_info(bdev, d) != TFL_OK)
            snprintf(d->name, sizeof d->name, "torchfl %s device %d", b->name, i);
        if (d->cc_major == 0) {
            d->cc_major = cfg->cc_major;
            d->cc_minor = cfg->cc_minor;
        }
        if (cfg->mem_pool_size && (d->total_mem == 0 || cfg->mem_pool_size < d->total_mem))
            d->total_mem = cfg->mem_pool_size;
        if (d->multiprocessors <= 0)
            d->multiprocessors = 1;
        d->pci_bus = i + 1;
        d->uuid[15] = (uint8_t)i;
    }
    for (int i = 0; i < n; i++) {
        dev_info[i] = phys_info[map[i]];
        dev_map[i] = map[i];
    }
    nphys = count;
    ndev = n;
}

int tfl_rt_device_count(void)
{
    return tfl_rt_init() == TFL_OK ? ndev : 0;
}

const tfl_device_info *tfl_rt_device_info(int dev)
{
    if (tfl_rt_init() != TFL_OK || dev < 0 || dev >= ndev)
        return NULL;
    return &dev_info[dev];
}

int tfl_rt_backend_device(int dev)
{
    return (dev >= 0 && dev < ndev) ? dev_map[dev] : -1;
}

int tfl_rt_device_is_valid(int dev)
{
    return tfl_rt_init() == TFL_OK && dev >= 0 && dev < ndev;
}

int tfl_rt_current_device(void) { return cur_dev; }

void tfl_rt_set_current_device(int dev) { cur_dev = dev; }

int tfl_rt_physical_device_count(void)
{
    return tfl_rt_init() == TFL_OK ? nphys : 0;
}

const tfl_device_info *tfl_rt_physical_device_info(int idx)
{
    if (tfl_rt_init() != TFL_OK || idx < 0 || idx >= nphys)
        return NULL;
    return &phys_info[idx];
}

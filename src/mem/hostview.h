/*
 * hostview.h - host views of device memory the host cannot address
 * (hostview.c says how they work).
 *
 * Route configures it once, when the selected backend's memory is not
 * host memory, and opens a window around any host code that may touch
 * device memory.  Windows nest and may overlap across threads; what the
 * host wrote is stored to the device when the last one closes.
 */
#ifndef TFL_HOSTVIEW_H
#define TFL_HOSTVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

typedef struct tfl_hostview_ops {
    /* blocking copies between host memory and a device address */
    tfl_status (*fetch)(void *host, const void *dev, size_t n);
    tfl_status (*store)(void *dev, const void *host, size_t n);
    /* wait for all device work (may be NULL) */
    tfl_status (*sync)(void);
} tfl_hostview_ops;

void tfl_hostview_configure(const tfl_hostview_ops *ops);
void tfl_hostview_open(void);
/* TFL_OK, or the status of a failed write-back (logged). */
tfl_status tfl_hostview_close(void);
/* Store what the host changed and unmap every view now (before device
 * work is issued); cheap when nothing is mapped. */
tfl_status tfl_hostview_flush(void);
/* Faults served, bytes fetched, bytes stored since start. */
void tfl_hostview_stats(uint64_t *faults, uint64_t *fetched, uint64_t *stored);

#endif

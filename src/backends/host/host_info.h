/*
 * host_info.h - what the host CPU looks like as a device.
 */
#ifndef TFL_HOST_INFO_H
#define TFL_HOST_INFO_H

#include "torchfl/backend.h"

/* Fill name ("torchfl host (<cpu model>)"), memory (physical RAM),
 * compute units (online CPUs) and clocks.  cc_major/minor stay 0: the
 * route layer applies the configured compute capability. */
void host_cpu_describe(tfl_device_info *out);
/* "<cpu model>" from /proc/cpuinfo, or "unknown CPU". */
const char *host_cpu_model(void);

#endif

/*
 * driver_hooks.h - what the CUDA runtime entry points tell the driver
 * layer, so that the two agree on contexts as the real libraries do.
 *
 * The real cudart sits on the driver: its first call on a thread that
 * needs a device retains the device's primary context and makes it
 * current, and cudaSetDevice makes the new device's primary context
 * current.  PyTorch relies on seeing that through the driver
 * (cuDevicePrimaryCtxGetState must say "active", cuCtxGetCurrent must
 * return a context on a thread that used the runtime).
 *
 * Include from src/intercept/cudart only; plain C, no cuda.h needed.
 */
#ifndef TFL_DRIVER_HOOKS_H
#define TFL_DRIVER_HOOKS_H

/* The runtime is using device dev on the calling thread (call from every
 * entry point that initialises/uses the current device; cheap: one
 * thread-local test after the first call).  Marks the driver initialised,
 * retains dev's primary context on the runtime's behalf (once per device)
 * and makes it current if the thread has no current context. */
void tfl_drv_runtime_use(int dev);

/* cudaSetDevice(dev): as above, but the primary context of dev replaces
 * whatever context is current on the calling thread. */
void tfl_drv_runtime_set_device(int dev);

/* cudaDeviceReset on dev: the runtime drops its reference to the primary
 * context (it stays active while a driver user still retains it). */
void tfl_drv_runtime_reset(int dev);

/* Physical bytes the driver's VMM API holds (cuMemCreate): device memory
 * the pool's counters do not include, for cudaMemGetInfo to count as used
 * the way cuMemGetInfo does. */
#include <stdint.h>
uint64_t tfl_drv_vmm_bytes(void);

#endif

/*
 * runtime.h - the device model, streams, events, modules and launches that
 * the CUDA runtime and driver entry points share.
 *
 * Both src/intercept/cudart and src/intercept/driver translate their calls
 * into these, so a pointer from cudaMalloc works with cuMemcpy, a stream
 * from cuStreamCreate works with cudaMemcpyAsync, and a kernel registered
 * by a fatbin or loaded with cuModuleLoadData launches the same way.
 *
 * Execution model: the host backend is synchronous, in issue order: every
 * operation on any stream has completed when the call that issued it
 * returns, so stream order and event order hold trivially; queries
 * report "ready"; an event's timestamp is taken when it is recorded.
 * An asynchronous backend (OpenCL) runs work in the background on one
 * queue per stream (stream.c): syncs wait, queries may report
 * TFL_ERR_NOT_READY, and a device fault surfaces at the next sync or
 * query as TFL_ERR_DEVICE.
 */
#ifndef TFL_RUNTIME_H
#define TFL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

/* ------------------------------------------------------------ start-up */

/* Select and initialise the backend (once, thread-safe).  Returns
 * TFL_ERR_UNAVAILABLE when the configured backend cannot be used; the
 * reason has then been logged once. */
tfl_status tfl_rt_init(void);
/* Has tfl_rt_init() completed successfully?  Never initialises. */
int tfl_rt_initialised(void);
const tfl_backend *tfl_rt_backend(void);  /* NULL before/without init   */
/* The active backend's name once initialised, else the configured one. */
const char *tfl_rt_backend_name(void);

/* ------------------------------------------------------------- devices */

/* Visible devices after CUDA_VISIBLE_DEVICES; 0 when unavailable. */
int tfl_rt_device_count(void);
/* Properties of visible device dev (already remapped), or NULL. */
const tfl_device_info *tfl_rt_device_info(int dev);
/* The calling thread's current device (defaults to 0). */
int tfl_rt_current_device(void);
void tfl_rt_set_current_device(int dev);
int tfl_rt_device_is_valid(int dev);
/* All of the backend's devices, ignoring CUDA_VISIBLE_DEVICES (NVML's
 * view), by backend index. */
int tfl_rt_physical_device_count(void);
const tfl_device_info *tfl_rt_physical_device_info(int idx);
/* Attribute attr (cudaDeviceAttr / CUdevice_attribute numbering) of
 * visible device dev; TFL_ERR_INVALID for an unknown attribute. */
tfl_status tfl_rt_device_attr(int dev, int attr, int *value);

/* ------------------------------------------------------ streams/events */

typedef struct tfl_rt_stream tfl_rt_stream;
typedef struct tfl_rt_event tfl_rt_event;

/* Special handles CUDA defines; both are valid stream arguments. */
#define TFL_STREAM_LEGACY     ((tfl_rt_stream *)0x1)
#define TFL_STREAM_PER_THREAD ((tfl_rt_stream *)0x2)

tfl_status tfl_rt_stream_create(unsigned flags, int priority, tfl_rt_stream **out);
tfl_status tfl_rt_stream_destroy(tfl_rt_stream *s);
/* 1 if s is NULL, a special handle, or a live stream; 0 otherwise. */
int tfl_rt_stream_valid(tfl_rt_stream *s);
tfl_status tfl_rt_stream_sync(tfl_rt_stream *s);
tfl_status tfl_rt_stream_query(tfl_rt_stream *s);
tfl_status tfl_rt_stream_get_flags(tfl_rt_stream *s, unsigned *flags);
tfl_status tfl_rt_stream_get_priority(tfl_rt_stream *s, int *prio);
tfl_status tfl_rt_stream_get_id(tfl_rt_stream *s, unsigned long long *id);
int tfl_rt_stream_device(tfl_rt_stream *s);
/* Run fn(data) in stream order (now, in the synchronous model). */
tfl_status tfl_rt_stream_host_fn(tfl_rt_stream *s, void (*fn)(void *), void *data);
tfl_status tfl_rt_device_sync(void);
/* Make work issued to s later wait for e's mark (async backends). */
tfl_status tfl_rt_stream_wait_event(tfl_rt_stream *s, tfl_rt_event *e);
/* Does the backend run work in the background (event slots filled)? */
int tfl_rt_async(void);
/* The backend's stream behind s (NULL: its default stream). */
tfl_stream tfl_rt_backend_stream(tfl_rt_stream *s);
/* After issuing work to s: under CUDA_LAUNCH_BLOCKING=1 wait for it and
 * return its status (a device fault), else TFL_OK at once. */
tfl_status tfl_rt_issued(tfl_rt_stream *s);

tfl_status tfl_rt_event_create(unsigned flags, tfl_rt_event **out);
tfl_status tfl_rt_event_destroy(tfl_rt_event *e);
int tfl_rt_event_valid(tfl_rt_event *e);
tfl_status tfl_rt_event_record(tfl_rt_event *e, tfl_rt_stream *s);
/* TFL_OK when complete; TFL_ERR_NOT_READY while pending (async only). */
tfl_status tfl_rt_event_query(tfl_rt_event *e);
tfl_status tfl_rt_event_sync(tfl_rt_event *e);
/* ms between two recorded events; TFL_ERR_INVALID if either lacks timing
 * or was never recorded (CUDA: cudaErrorInvalidResourceHandle). */
tfl_status tfl_rt_event_elapsed(tfl_rt_event *start, tfl_rt_event *end, float *ms);
unsigned tfl_rt_event_flags(tfl_rt_event *e);
int tfl_rt_event_recorded(tfl_rt_event *e);

/* -------------------------------------------------------------- memory */

/* Checked copies/sets: every device-side range must lie in one
 * allocation.  dir is derived from the address map when kind is
 * "default".  Return TFL_ERR_INVALID for bad ranges. */
tfl_status tfl_rt_memcpy(void *dst, const void *src, size_t n, tfl_rt_stream *s);
/* Same, with a direction as cudaMemcpyKind numbers it (0 H2H, 1 H2D, 2 D2H,
 * 3 D2D, 4 default): the side(s) the kind calls "device" must be in the
 * address map.  TFL_ERR_INVALID for a bad kind or range. */
tfl_status tfl_rt_memcpy_kind(void *dst, const void *src, size_t n, int kind,
                              tfl_rt_stream *s);
tfl_status tfl_rt_memcpy2d_kind(void *dst, size_t dpitch, const void *src,
                                size_t spitch, size_t width, size_t height,
                                int kind, tfl_rt_stream *s);
tfl_status tfl_rt_memset(void *dst, int value, size_t n, tfl_rt_stream *s);
/* 2D: width bytes per row, height rows. */
tfl_status tfl_rt_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, tfl_rt_stream *s);
tfl_status tfl_rt_memset2d(void *dst, size_t pitch, int value, size_t width,
                           size_t height, tfl_rt_stream *s);

/* Host code that reads device memory directly (the pointer arrays of
 * batched library calls) runs between these two: when the backend's
 * memory is not host memory, its reads are served through host views
 * (mem/hostview.c), and what it wrote is stored back at the end (whose
 * status end returns).  No-ops on a host-addressable backend. */
void tfl_rt_host_access_begin(void);
tfl_status tfl_rt_host_access_end(void);
/* Wraps one call in the two above; yields the call's value (GNU C). */
#define TFL_HOST_ACCESS(call) ({ tfl_rt_host_access_begin(); \
    __typeof__(call) tfl_ha_r_ = (call); tfl_rt_host_access_end(); tfl_ha_r_; })

/* ------------------------------------------------------ modules/kernels */

typedef struct tfl_module tfl_module;
typedef struct tfl_kernel tfl_kernel;
typedef struct tfl_var tfl_var;

/* A fatbin registered by a binary (cheap; nothing parsed). */
tfl_module *tfl_rt_module_register(const void *fatbin_wrapper);
/* An image from cuModuleLoadData & co (PTX, fatbin or cubin). */
tfl_status tfl_rt_module_load(const void *image, size_t size, tfl_module **out);
void tfl_rt_module_unregister(tfl_module *m);
int tfl_rt_module_valid(tfl_module *m);

/* Registration (runtime): host stub -> kernel, host shadow -> variable. */
tfl_kernel *tfl_rt_kernel_register(tfl_module *m, const void *host_fun,
                                   const char *device_name);
tfl_kernel *tfl_rt_kernel_by_host(const void *host_fun);
/* Driver: look a kernel up by name in a module (parses the module). */
tfl_status tfl_rt_kernel_by_name(tfl_module *m, const char *name, tfl_kernel **out);
int tfl_rt_kernel_valid(tfl_kernel *k);
const char *tfl_rt_kernel_name(tfl_kernel *k);
tfl_module *tfl_rt_kernel_module(tfl_kernel *k);

typedef struct tfl_kernel_attrs {
    int num_params;
    size_t param_bytes;
    size_t static_smem, local_bytes, const_bytes;
    int num_regs, max_threads;
    int max_dynamic_smem;      /* settable attribute                     */
    int preferred_carveout;
} tfl_kernel_attrs;
tfl_status tfl_rt_kernel_attrs(tfl_kernel *k, tfl_kernel_attrs *out,
                               char *err, size_t errlen);
tfl_status tfl_rt_kernel_set_attr(tfl_kernel *k, int which, int value);

tfl_var *tfl_rt_var_register(tfl_module *m, const void *host_var,
                             const char *device_name, size_t size,
                             int constant, int managed);
/* Device address of a variable by host shadow (runtime) or name (driver). */
tfl_status tfl_rt_var_by_host(const void *host_var, void **addr, size_t *size);
tfl_status tfl_rt_var_by_name(tfl_module *m, const char *name, void **addr,
                              size_t *size);

typedef struct tfl_launch {
    unsigned grid[3], block[3];
    size_t smem;
    tfl_rt_stream *stream;
    void **args;
    const void *arg_buffer;
    size_t arg_buffer_size;
} tfl_launch;

/* Launch through route (op table, backend, fallback, statistics).  On
 * failure err holds one line naming the kernel.  Return values:
 *   TFL_OK, TFL_ERR_INVALID (config), TFL_ERR_DEVICE (fault: sticky),
 *   TFL_ERR_UNSUPPORTED (no way to run it), TFL_ERR_NOMEM. */
tfl_status tfl_rt_launch(tfl_kernel *k, const tfl_launch *l, int *cuda_err,
                         char *err, size_t errlen);

#endif

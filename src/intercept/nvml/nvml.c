/*
 * nvml.c - the NVML queries PyTorch makes, answered from the device model.
 *
 * torch.cuda.device_count() asks NVML first (nvmlInit, nvmlDeviceGetCount_v2)
 * and applies CUDA_VISIBLE_DEVICES itself, so NVML reports every backend
 * device, as the real NVML reports every GPU.  PyTorch's out-of-memory
 * report asks for running processes and PCI data.  The toolkit ships no
 * nvml.h; the few types needed are declared here with NVML's layout.
 */
#include "versions.h"
#include "route/runtime.h"
#include "mem/mem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvml_device *nvmlDevice_t;   /* opaque to callers */
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

enum {
    NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7, NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_UNKNOWN = 999
};

/* Handles are addresses inside this array: checkable and stable. */
static char handles[64];
static int init_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int initialized(void)
{
    pthread_mutex_lock(&lock);
    int n = init_count;
    pthread_mutex_unlock(&lock);
    return n > 0;
}

static int index_of(nvmlDevice_t d)
{
    char *p = (char *)d;
    if (p < handles || p >= handles + sizeof handles)
        return -1;
    int i = (int)(p - handles);
    return i < tfl_rt_physical_device_count() ? i : -1;
}

nvmlReturn_t nvmlInit_v2(void)
{
    if (tfl_rt_init() != TFL_OK)
        return NVML_ERROR_DRIVER_NOT_LOADED;
    pthread_mutex_lock(&lock);
    init_count++;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void) { return nvmlInit_v2(); }

nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags;
    return nvmlInit_v2();
}

nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&lock);
    int ok = init_count > 0;
    if (ok)
        init_count--;
    pthread_mutex_unlock(&lock);
    return ok ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS:                 return "Success";
    case NVML_ERROR_UNINITIALIZED:     return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:  return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:     return "Not Supported";
    case NVML_ERROR_NOT_FOUND:         return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default:                           return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = (unsigned)tfl_rt_physical_device_count();
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) { return nvmlDeviceGetCount_v2(count); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (!device || index >= (unsigned)tfl_rt_physical_device_count())
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = (nvmlDevice_t)&handles[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    int i = index_of(device);
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (i < 0 || !index)
        return NVML_ERROR_INVALID_ARGUMENT;
    *index = (unsigned)i;
    return NVML_SUCCESS;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 UUID bytes. */
static void format_uuid(const uint8_t *u, char *out, size_t len)
{
    snprintf(out, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5], u[6],
             u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    int i = index_of(device);
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (i < 0 || !uuid)
        return NVML_ERROR_INVALID_ARGUMENT;
    char buf[64];
    format_uuid(tfl_rt_physical_device_info(i)->uuid, buf, sizeof buf);
    if (length < strlen(buf) + 1)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(uuid, buf, strlen(buf) + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    int i = index_of(device);
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (i < 0 || !name || length == 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    const char *n = tfl_rt_physical_device_info(i)->name;
    if (length < strlen(n) + 1)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(name, n, strlen(n) + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    int i = index_of(device);
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (i < 0 || !memory)
        return NVML_ERROR_INVALID_ARGUMENT;
    tfl_mem_stats s;
    tfl_mem_get_stats(&s);
    uint64_t total = tfl_rt_physical_device_info(i)->total_mem;
    memory->total = total;
    memory->used = s.reserved < total ? s.reserved : total;
    memory->free = total - memory->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u)
{
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (index_of(device) < 0 || !u)
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_NOT_SUPPORTED;  /* no meaningful figure for a CPU */
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (!version || length < 8)
        return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(version, length, "torchfl-%s", tfl_rt_backend_name());
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    if (!v)
        return NVML_ERROR_INVALID_ARGUMENT;
    *v = TFL_CUDA_VERSION;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return nvmlSystemGetCudaDriverVersion_v2(v); }

/* PyTorch's OOM report lists processes: none hold "GPU" memory but us. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count,
                                                  void *infos)
{
    (void)infos;
    if (!initialized())
        return NVML_ERROR_UNINITIALIZED;
    if (index_of(device) < 0 || !count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *c, void *i)
{
    return nvmlDeviceGetComputeRunningProcesses(d, c, i);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *c, void *i)
{
    return nvmlDeviceGetComputeRunningProcesses(d, c, i);
}

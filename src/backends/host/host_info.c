/*
 * host_info.c - describe the host CPU as a device (name, memory, cores).
 *
 * Read once and cached: PyTorch asks for device properties often.
 */
#include "backends/host/host_info.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char cpu_model[192] = "unknown CPU";
static int cpu_mhz;

static void read_cpuinfo(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int have_model = 0;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *val = colon + 1;
        while (*val == ' ' || *val == '\t')
            val++;
        val[strcspn(val, "\n")] = '\0';
        if (!have_model && (strncmp(line, "model name", 10) == 0 ||
                            strncmp(line, "Model", 5) == 0)) {
            snprintf(cpu_model, sizeof cpu_model, "%s", val);
            have_model = 1;
        } else if (!cpu_mhz && strncmp(line, "cpu MHz", 7) == 0) {
            double mhz = 0;
            if (sscanf(val, "%lf", &mhz) == 1)
                cpu_mhz = (int)mhz;
        }
    }
    fclose(f);
}

const char *host_cpu_model(void)
{
    pthread_once(&once, read_cpuinfo);
    return cpu_model;
}

void host_cpu_describe(tfl_device_info *out)
{
    pthread_once(&once, read_cpuinfo);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "torchfl host (%s)", cpu_model);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    out->total_mem = (pages > 0 && psize > 0) ? (uint64_t)pages * (uint64_t)psize
                                              : (uint64_t)8 << 30;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    out->multiprocessors = ncpu > 0 ? (int)ncpu : 1;
    out->clock_khz = (cpu_mhz > 0 ? cpu_mhz : 2000) * 1000;
    out->mem_clock_khz = 1600000;
    out->mem_bus_width = 64;
    out->l2_cache_bytes = 1 << 20;
    out->integrated = 1;
    /* A stable, recognisable UUID: "torchfl-host" padded. */
    memcpy(out->uuid, "torchfl-host-cpu", 16);
}

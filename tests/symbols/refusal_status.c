/*
 * refusal_status.c - every library's refusal returns that library's
 * "not supported" status and logs the function's name once.
 *
 * Linked against libtorchfl.so.  It calls, through the real headers'
 * prototypes, functions torchfl will never implement (graphics interop,
 * debugging back doors, device-management setters), so each reaches its
 * generated weak refusal.  The expected codes come from the vendor headers,
 * not from torchfl.  stderr is captured in a temporary file to check the
 * log lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cublas.h>            /* legacy API: cublasXerbla, cublasIsamax */
#include <cudnn.h>
#include <nccl.h>

/* NVML: no header in the toolkit; prototype and value from nvml.h. */
typedef struct nvmlDevice_st *nvmlDevice_t;
int nvmlDeviceSetPersistenceMode(nvmlDevice_t device, int mode);
#define NVML_ERROR_NOT_SUPPORTED 3
/* cublasXt.h cannot be included with cublas.h; prototype from cublasXt.h */
cublasStatus_t cublasXtDeviceSelect(void *handle, int nbDevices, int deviceId[]);

static int failures;
#define CHECK_EQ(got, want) do { long long g_ = (long long)(got), w_ = (long long)(want); \
    if (g_ != w_) { fprintf(stdout, "%s:%d: %s = %lld, want %lld\n", __FILE__, \
        __LINE__, #got, g_, w_); failures++; } } while (0)

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

int main(void)
{
    char path[] = "/tmp/tfl_refusal_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 1; }
    int saved = dup(2);
    dup2(fd, 2);

    for (int i = 0; i < 3; i++) {     /* three calls, one log line each */
        CHECK_EQ(cuGraphicsUnregisterResource(NULL), CUDA_ERROR_NOT_SUPPORTED);
        CHECK_EQ(cudnnSetCallback(0, NULL, NULL), CUDNN_STATUS_NOT_SUPPORTED);
        CHECK_EQ(ncclCommRevoke(NULL, 0), ncclInvalidUsage);
        CHECK_EQ(nvmlDeviceSetPersistenceMode(NULL, 0), NVML_ERROR_NOT_SUPPORTED);
        CHECK_EQ(cublasXtDeviceSelect(NULL, 0, NULL), CUBLAS_STATUS_NOT_SUPPORTED);
    }
    /* non-status returns: integer -> 0, void -> nothing (still logged) */
    cublasXerbla("x", 1);             /* legacy, void */
    CHECK_EQ(cublasIsamax(0, NULL, 1), 0);       /* legacy, int */

    fflush(stderr);
    dup2(saved, 2);
    char log[65536] = { 0 };
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(log, 1, sizeof log - 1, f) : 0;
    log[n] = '\0';
    if (f) fclose(f);
    unlink(path);

    const char *once[] = { "cuGraphicsUnregisterResource", "cudnnSetCallback",
                           "ncclCommRevoke", "nvmlDeviceSetPersistenceMode",
                           "cublasXtDeviceSelect", "cublasXerbla", "cublasIsamax" };
    for (size_t i = 0; i < sizeof once / sizeof *once; i++) {
        char line[256];
        snprintf(line, sizeof line, "torchfl: warning: %s is not supported (backend ",
                 once[i]);
        if (count(log, line) != 1) {
            printf("log has %d lines \"%s...\", want 1\n", count(log, line), line);
            failures++;
        }
    }
    if (failures) {
        printf("captured stderr:\n%s", log);
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}

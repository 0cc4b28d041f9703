// nccl_env.cu - NCCL's environment as users set it, under torchfl:
//   NCCL_COMM_ID=127.0.0.1:<port>  every process makes the same unique id
//       by itself (no id passed around); the communicator's rank 0 serves
//       the bootstrap at that address;
//   NCCL_SOCKET_IFNAME=lo  the ranks listen on the loopback address;
//   NCCL_DEBUG=INFO  one "NCCL INFO" line per step, on stdout as NCCL does.
// Two processes (fork before any CUDA call); each checks an allreduce and
// its own NCCL_DEBUG output (stdout redirected to a file); then a
// malformed NCCL_COMM_ID is refused with ncclInvalidArgument.
// tfl-env: TORCHFL_DEVICE_COUNT=2 NCCL_COMM_ID=127.0.0.1:29717 NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO
// tfl-libs: -lnccl
#include "check.h"

#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int me;

#define NCHECK(call, want) do { ncclResult_t r_ = (call); if (r_ != (want)) { \
    fprintf(stderr, "rank %d: %s:%d: %s = %d, want %d: %s\n", me, __FILE__, __LINE__, #call, \
            (int)r_, (int)(want), ncclGetLastError(NULL)); tfl_failures++; } } while (0)

/* Does the file hold a line with all of the words? */
static int has_line(const char *path, const char *a, const char *b)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int hit = 0;
    while (f && !hit && fgets(line, sizeof line, f))
        hit = strstr(line, a) && strstr(line, b);
    if (f)
        fclose(f);
    return hit;
}

static int rank_main(int rank)
{
    me = rank;
    char log[64];
    snprintf(log, sizeof log, "/tmp/tfl_nccl_env_%d_%d.log", (int)getppid() + rank, rank);
    fflush(stdout);
    int saved = dup(1);
    if (!freopen(log, "w", stdout))
        return 2;
    CHECK_OK(cudaSetDevice(rank));
    ncclUniqueId id;
    NCHECK(ncclGetUniqueId(&id), ncclSuccess);   /* each process makes its own */
    ncclComm_t comm = NULL;
    NCHECK(ncclCommInitRank(&comm, 2, id, rank), ncclSuccess);
    float *d = NULL, h[256];
    CHECK_OK(cudaMalloc(&d, sizeof h));
    for (int i = 0; i < 256; i++)
        h[i] = (float)(i + rank);
    CHECK_OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    NCHECK(ncclAllReduce(d, d, 256, ncclFloat32, ncclSum, comm, 0), ncclSuccess);
    CHECK_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 1.0f && h[255] == 511.0f);
    NCHECK(ncclCommDestroy(comm), ncclSuccess);
    fflush(stdout);
    dup2(saved, 1);
    CHECK(has_line(log, "NCCL INFO Bootstrap: using 127.0.0.1:29717", "(NCCL_COMM_ID)"));
    CHECK(has_line(log, "NCCL INFO NET/Socket: rank", "listens on 127.0.0.1 (NCCL_SOCKET_IFNAME=lo)"));
    CHECK(has_line(log, "NCCL INFO", "Init COMPLETE"));
    if (tfl_failures) {
        fprintf(stderr, "rank %d: NCCL_DEBUG output was:\n", rank);
        FILE *f = fopen(log, "r");
        char line[1024];
        while (f && fgets(line, sizeof line, f))
            fputs(line, stderr);
        if (f)
            fclose(f);
    }
    unlink(log);
    if (rank == 0) {
        setenv("NCCL_COMM_ID", "no-port-here", 1);
        NCHECK(ncclGetUniqueId(&id), ncclInvalidArgument);
        CHECK(strstr(ncclGetLastError(NULL), "NCCL_COMM_ID") != NULL);
    }
    return tfl_failures ? 1 : 0;
}

int main(void)
{
    pid_t kid = fork();
    if (kid == 0)
        _exit(rank_main(1));
    int rc = rank_main(0), st = 0;
    waitpid(kid, &st, 0);
    if (rc || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "failed (rank 1 status %d)\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 1;
    }
    printf("ok\n");
    return 0;
}

// nccl_procs.cu - NCCL on torchfl across processes, as torchrun runs it:
// three processes (fork before any CUDA call), one rank and one host
// device each, sharing the unique id rank 0 made (through a pipe, as a
// launcher would pass it).  Collectives on a stream against values each
// rank computes itself; an all-to-all from grouped send/recv; a ring of
// plain send-then-receive calls (each rank sends first: must not
// deadlock); a split; ncclCommAbort waking a receive another thread is
// blocked in (long before the 60 s timeout); then a peer that dies: the
// survivors' next collective fails within seconds with ncclRemoteError or
// ncclSystemError, through the call or ncclCommGetAsyncError.
// tfl-env: TORCHFL_DEVICE_COUNT=3 TORCHFL_NCCL_TIMEOUT=60
// tfl-libs: -lnccl -lpthread
#include "check.h"

#include <cuda_bf16.h>
#include <nccl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR 3
#define COUNT (1 << 18)

#define NCHECK(call, want) do { ncclResult_t r_ = (call); if (r_ != (want)) { \
    fprintf(stderr, "rank %d: %s:%d: %s = %d (%s), want %d; last error: %s\n", me, __FILE__, \
            __LINE__, #call, (int)r_, ncclGetErrorString(r_), (int)(want), \
            ncclGetLastError(NULL)); tfl_failures++; } } while (0)

static int me;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(cudaMalloc(&p, bytes));
    return p;
}

/* rank r's element i: small integers, exact in every type used */
static float val(int r, size_t i) { return (float)((int)(i % 11) + 3 * r); }

static void test_collectives(ncclComm_t comm, cudaStream_t s)
{
    float *h = (float *)malloc(NR * COUNT * sizeof(float));
    float *a = (float *)dalloc(COUNT * sizeof(float));
    float *b = (float *)dalloc(NR * COUNT * sizeof(float));
    for (size_t i = 0; i < COUNT; i++)
        h[i] = val(me, i);
    CHECK_OK(cudaMemcpyAsync(a, h, COUNT * sizeof(float), cudaMemcpyHostToDevice, s));
    NCHECK(ncclAllReduce(a, b, COUNT, ncclFloat32, ncclSum, comm, s), ncclSuccess);
    CHECK_OK(cudaMemcpyAsync(h, b, COUNT * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    int bad = 0;
    for (size_t i = 0; i < COUNT && !bad; i++)
        bad = h[i] != val(0, i) + val(1, i) + val(2, i);
    CHECK(!bad);

    NCHECK(ncclAllGather(a, b, COUNT, ncclFloat32, comm, s), ncclSuccess);
    CHECK_OK(cudaMemcpyAsync(h, b, NR * COUNT * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < NR * COUNT && !bad; i++)
        bad = h[i] != val((int)(i / COUNT), i % COUNT);
    CHECK(!bad);

    /* reduce-scatter in bf16: block k of every rank's input is val(r, i) + k */
    __nv_bfloat16 *hb = (__nv_bfloat16 *)malloc(NR * COUNT * sizeof *hb);
    for (size_t i = 0; i < NR * COUNT; i++)
        hb[i] = __float2bfloat16(val(me, i % COUNT) + (float)(i / COUNT));
    __nv_bfloat16 *db = (__nv_bfloat16 *)b;
    CHECK_OK(cudaMemcpyAsync(db, hb, NR * COUNT * sizeof *hb, cudaMemcpyHostToDevice, s));
    NCHECK(ncclReduceScatter(db, db + me * COUNT, COUNT, ncclBfloat16, ncclMax, comm, s),
           ncclSuccess);   /* in place: the output is this rank's block */
    CHECK_OK(cudaMemcpyAsync(hb, db + me * COUNT, COUNT * sizeof *hb, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < COUNT && !bad; i++)
        bad = __bfloat162float(hb[i]) != val(NR - 1, i) + (float)me;
    CHECK(!bad);

    /* broadcast from rank 2 */
    NCHECK(ncclBroadcast(a, a, COUNT, ncclFloat32, 2, comm, s), ncclSuccess);
    CHECK_OK(cudaMemcpyAsync(h, a, COUNT * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < COUNT && !bad; i++)
        bad = h[i] != val(2, i);
    CHECK(!bad);
    free(hb);
    free(h);
    cudaFree(a);
    cudaFree(b);
}

static void test_p2p(ncclComm_t comm, cudaStream_t s)
{
    enum { M = 100000 };
    int32_t *h = (int32_t *)malloc(NR * M * sizeof *h);
    int32_t *src = (int32_t *)dalloc(NR * M * sizeof *h), *dst = (int32_t *)dalloc(NR * M * sizeof *h);
    /* all-to-all: block k of rank r goes to rank k */
    for (size_t i = 0; i < NR * M; i++)
        h[i] = (int32_t)(me * 1000000 + i);
    CHECK_OK(cudaMemcpyAsync(src, h, NR * M * sizeof *h, cudaMemcpyHostToDevice, s));
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int k = 0; k < NR; k++) {
        NCHECK(ncclSend(src + k * M, M, ncclInt32, k, comm, s), ncclSuccess);
        NCHECK(ncclRecv(dst + k * M, M, ncclInt32, k, comm, s), ncclSuccess);
    }
    NCHECK(ncclGroupEnd(), ncclSuccess);
    CHECK_OK(cudaMemcpyAsync(h, dst, NR * M * sizeof *h, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    int bad = 0;
    for (size_t i = 0; i < NR * M && !bad; i++)
        bad = h[i] != (int32_t)((i / M) * 1000000 + me * M + i % M);
    CHECK(!bad);

    /* ring: send to the next rank, then (another call) receive from the
     * previous one; the source is overwritten right after the send */
    NCHECK(ncclSend(src, M, ncclInt32, (me + 1) % NR, comm, s), ncclSuccess);
    CHECK_OK(cudaMemsetAsync(src, 0xff, M * sizeof *h, s));
    NCHECK(ncclRecv(dst, M, ncclInt32, (me + NR - 1) % NR, comm, s), ncclSuccess);
    CHECK_OK(cudaMemcpyAsync(h, dst, M * sizeof *h, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < M && !bad; i++)
        bad = h[i] != (int32_t)(((me + NR - 1) % NR) * 1000000 + i);
    CHECK(!bad);
    free(h);
    cudaFree(src);
    cudaFree(dst);
}

typedef struct { ncclComm_t comm; double at; } aborter;

static void *abort_later(void *p)
{
    aborter *a = (aborter *)p;
    usleep(300000);
    a->at = now();
    ncclCommAbort(a->comm);
    return NULL;
}

/* Ranks 0 and 1 split off; rank 0 waits for a message rank 1 never sends
 * and another thread aborts the comm after 0.3 s: the receive returns. */
static void test_abort(ncclComm_t comm, cudaStream_t s)
{
    ncclComm_t pair = NULL;
    NCHECK(ncclCommSplit(comm, me < 2 ? 0 : NCCL_SPLIT_NOCOLOR, me, &pair, NULL), ncclSuccess);
    if (me == 2) {
        CHECK(pair == NULL);
        return;
    }
    int n = 0;
    NCHECK(ncclCommCount(pair, &n), ncclSuccess);
    CHECK(n == 2);
    if (me == 1) {
        usleep(1500000);          /* until rank 0 saw its abort */
        NCHECK(ncclCommAbort(pair), ncclSuccess);
        return;
    }
    float *d = (float *)dalloc(1024 * sizeof(float));
    aborter a = { pair, 0 };
    pthread_t t;
    pthread_create(&t, NULL, abort_later, &a);
    double t0 = now();
    ncclResult_t r = ncclRecv(d, 1024, ncclFloat32, 1, pair, s);
    double woke = now();
    cudaStreamSynchronize(s);
    pthread_join(t, NULL);
    if (r == ncclSuccess)
        fprintf(stderr, "rank 0: receive on an aborted comm returned success\n");
    CHECK(r != ncclSuccess);
    if (woke - t0 > 5.0 || woke < a.at)
        fprintf(stderr, "rank 0: blocked receive returned after %.2f s (abort at %.2f s)\n",
                woke - t0, a.at - t0);
    CHECK(woke - t0 < 5.0);
    cudaGetLastError();
    cudaFree(d);
}

/* Rank 2 is gone: the next collective of ranks 0 and 1 fails promptly. */
static void test_dead_peer(ncclComm_t comm, cudaStream_t s)
{
    float *d = (float *)dalloc(4096 * sizeof(float));
    CHECK_OK(cudaMemset(d, 0, 4096 * sizeof(float)));
    usleep(500000);               /* rank 2 has exited by now */
    double t0 = now();
    ncclResult_t r = ncclAllReduce(d, d, 4096, ncclFloat32, ncclSum, comm, s);
    cudaStreamSynchronize(s);
    cudaGetLastError();
    ncclResult_t async = ncclSuccess;
    NCHECK(ncclCommGetAsyncError(comm, &async), ncclSuccess);
    double t = now() - t0;
    ncclResult_t seen = r != ncclSuccess ? r : async;
    if (seen != ncclRemoteError && seen != ncclSystemError)
        fprintf(stderr, "rank %d: collective with a dead peer: call %d, async %d (%s)\n", me,
                (int)r, (int)async, ncclGetLastError(comm));
    CHECK(seen == ncclRemoteError || seen == ncclSystemError);
    CHECK(async == ncclRemoteError || async == ncclSystemError);
    CHECK(t < 10.0);
    NCHECK(ncclCommAbort(comm), ncclSuccess);
    cudaFree(d);
}

static void bad_arguments(const ncclUniqueId *id)
{
    ncclComm_t c;
    NCHECK(ncclCommInitRank(&c, NR, *id, NR), ncclInvalidArgument);     /* rank out of range */
    NCHECK(ncclCommInitRank(&c, 0, *id, 0), ncclInvalidArgument);       /* no ranks */
    ncclUniqueId junk;
    memset(&junk, 0x5a, sizeof junk);                                  /* not an id */
    NCHECK(ncclCommInitRank(&c, NR, junk, me), ncclInvalidArgument);
}

static int rank_main(int rank, const ncclUniqueId *id)
{
    me = rank;
    CHECK_OK(cudaSetDevice(rank));
    cudaStream_t s;
    CHECK_OK(cudaStreamCreate(&s));
    bad_arguments(id);
    ncclComm_t comm = NULL;
    NCHECK(ncclCommInitRank(&comm, NR, *id, rank), ncclSuccess);
    if (!comm)
        return 1;
    int n = 0, r = -1, dev = -1;
    NCHECK(ncclCommCount(comm, &n), ncclSuccess);
    NCHECK(ncclCommUserRank(comm, &r), ncclSuccess);
    NCHECK(ncclCommCuDevice(comm, &dev), ncclSuccess);
    CHECK(n == NR && r == rank && dev == rank);
    test_collectives(comm, s);
    test_p2p(comm, s);
    test_abort(comm, s);
    if (rank == 2) {              /* dies without a word */
        fflush(NULL);
        _exit(tfl_failures ? 1 : 0);
    }
    test_dead_peer(comm, s);
    if (tfl_failures)
        fprintf(stderr, "rank %d: %d check(s) failed\n", rank, tfl_failures);
    return tfl_failures ? 1 : 0;
}

int main(void)
{
    int pipes[NR][2];
    pid_t kids[NR] = { 0 };
    for (int k = 1; k < NR; k++) {
        if (pipe(pipes[k]) != 0)
            return 2;
        kids[k] = fork();
        if (kids[k] == 0) {       /* before any CUDA call: wait for the id */
            ncclUniqueId id;
            close(pipes[k][1]);
            if (read(pipes[k][0], &id, sizeof id) != (ssize_t)sizeof id)
                _exit(2);
            _exit(rank_main(k, &id));
        }
        close(pipes[k][0]);
    }
    me = 0;
    ncclUniqueId id;
    NCHECK(ncclGetUniqueId(&id), ncclSuccess);
    for (int k = 1; k < NR; k++)
        if (write(pipes[k][1], &id, sizeof id) != (ssize_t)sizeof id)
            return 2;
    int rc = rank_main(0, &id);
    for (int k = 1; k < NR; k++) {
        int st = 0;
        waitpid(kids[k], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "rank %d exited with status %d\n", k, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            rc = 1;
        }
    }
    if (rc)
        return 1;
    printf("ok\n");
    return 0;
}

// nccl_staged.cu - NCCL on a backend whose device memory the host cannot
// read: the test plugin libtorchfl-fakedev.so (tests/plugin/fake_backend.c,
// FAKE_OPAQUE), whose device addresses are PROT_NONE reservations with the
// bytes kept elsewhere.  The program first shows that touching device
// memory from the host faults; then every collective kind on two devices
// (ncclCommInitAll, one thread, group calls) gives the values computed
// here, so the host engine must have read and written the operands
// through host copies (src/route/coll_stage.c), never directly.
// tfl-env: FL_BACKEND=fakedev TORCHFL_PLUGIN_PATH=@BUILD@/tests/plugin FAKE_DEVICES=2
// tfl-libs: -lnccl
#include "check.h"

#include <nccl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#define N 2
#define COUNT 5000

#define NCHECK(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
    fprintf(stderr, "%s:%d: %s = %d (%s): %s\n", __FILE__, __LINE__, #call, (int)r_, \
            ncclGetErrorString(r_), ncclGetLastError(NULL)); tfl_failures++; } } while (0)

static sigjmp_buf jb;
static void on_segv(int sig) { (void)sig; siglongjmp(jb, 1); }

/* Does reading p from the host fault? */
static int host_read_faults(const volatile float *p)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, &old);
    int faulted = 1;
    if (sigsetjmp(jb, 1) == 0) {
        volatile float x = p[0];
        (void)x;
        faulted = 0;
    }
    sigaction(SIGSEGV, &old, NULL);
    return faulted;
}

static float in(int r, int i) { return (float)(i % 7 + 10 * r); }

static float *dev_buf(int d, size_t n)
{
    float *p = NULL;
    CHECK_OK(cudaSetDevice(d));
    CHECK_OK(cudaMalloc(&p, n * sizeof(float)));
    return p;
}

static void put(int d, float *dst, const float *h, size_t n)
{
    CHECK_OK(cudaSetDevice(d));
    CHECK_OK(cudaMemcpy(dst, h, n * sizeof(float), cudaMemcpyHostToDevice));
}

static void get(int d, float *h, const float *src, size_t n)
{
    CHECK_OK(cudaSetDevice(d));
    CHECK_OK(cudaMemcpy(h, src, n * sizeof(float), cudaMemcpyDeviceToHost));
}

int main(void)
{
    ncclComm_t comms[N];
    NCHECK(ncclCommInitAll(comms, N, NULL));
    float *a[N], *b[N];
    static float h[N * COUNT], g[N * COUNT];
    for (int d = 0; d < N; d++) {
        a[d] = dev_buf(d, N * COUNT);
        b[d] = dev_buf(d, N * COUNT);
        for (int i = 0; i < N * COUNT; i++)
            h[i] = in(d, i % COUNT) + (float)(i / COUNT);   /* block k: + k */
        put(d, a[d], h, N * COUNT);
    }
    CHECK(host_read_faults(a[0]));

    /* allreduce out of place, then in place */
    NCHECK(ncclGroupStart());
    for (int d = 0; d < N; d++)
        NCHECK(ncclAllReduce(a[d], b[d], COUNT, ncclFloat32, ncclSum, comms[d], 0));
    NCHECK(ncclGroupEnd());
    for (int d = 0; d < N; d++) {
        get(d, g, b[d], COUNT);
        int bad = 0;
        for (int i = 0; i < COUNT && !bad; i++)
            bad = g[i] != in(0, i) + in(1, i);
        CHECK(!bad);
    }
    NCHECK(ncclGroupStart());
    for (int d = 0; d < N; d++)
        NCHECK(ncclAllReduce(b[d], b[d], COUNT, ncclFloat32, ncclMax, comms[d], 0));
    NCHECK(ncclGroupEnd());
    get(1, g, b[1], COUNT);
    CHECK(g[3] == in(0, 3) + in(1, 3));

    /* allgather in NCCL's in-place form: send = recv + rank * count */
    for (int d = 0; d < N; d++) {
        for (int i = 0; i < COUNT; i++)
            h[i] = in(d, i) * 3;
        put(d, b[d] + d * COUNT, h, COUNT);
    }
    NCHECK(ncclGroupStart());
    for (int d = 0; d < N; d++)
        NCHECK(ncclAllGather(b[d] + d * COUNT, b[d], COUNT, ncclFloat32, comms[d], 0));
    NCHECK(ncclGroupEnd());
    for (int d = 0; d < N; d++) {
        get(d, g, b[d], N * COUNT);
        int bad = 0;
        for (int i = 0; i < N * COUNT && !bad; i++)
            bad = g[i] != in(i / COUNT, i % COUNT) * 3;
        CHECK(!bad);
    }

    /* reduce-scatter of a (block k of rank r: in(r, i) + k) */
    NCHECK(ncclGroupStart());
    for (int d = 0; d < N; d++)
        NCHECK(ncclReduceScatter(a[d], b[d], COUNT, ncclFloat32, ncclSum, comms[d], 0));
    NCHECK(ncclGroupEnd());
    for (int d = 0; d < N; d++) {
        get(d, g, b[d], COUNT);
        int bad = 0;
        for (int i = 0; i < COUNT && !bad; i++)
            bad = g[i] != in(0, i) + in(1, i) + 2.0f * d;
        CHECK(!bad);
    }

    /* broadcast from device 1; then a grouped exchange (send/recv) */
    NCHECK(ncclGroupStart());
    for (int d = 0; d < N; d++)
        NCHECK(ncclBroadcast(a[d], b[d], COUNT, ncclFloat32, 1, comms[d], 0));
    NCHECK(ncclGroupEnd());
    get(0, g, b[0], COUNT);
    CHECK(g[0] == in(1, 0) && g[COUNT - 1] == in(1, COUNT - 1));
    NCHECK(ncclGroupStart());
    for (int d = 0; d < N; d++) {
        NCHECK(ncclSend(a[d], COUNT, ncclFloat32, 1 - d, comms[d], 0));
        NCHECK(ncclRecv(b[d], COUNT, ncclFloat32, 1 - d, comms[d], 0));
    }
    NCHECK(ncclGroupEnd());
    for (int d = 0; d < N; d++) {
        get(d, g, b[d], COUNT);
        CHECK(g[5] == in(1 - d, 5) && g[COUNT - 1] == in(1 - d, COUNT - 1));
    }
    for (int d = 0; d < N; d++)
        NCHECK(ncclCommDestroy(comms[d]));
    TEST_DONE();
}

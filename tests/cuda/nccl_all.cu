// nccl_all.cu - NCCL on torchfl with ncclCommInitAll: four ranks on four
// host devices in one process, driven by one thread through group calls
// (as NCCL requires for that), every collective x data type x reduction
// op, in place and out of place, against references computed here on the
// host (exact for integers, double precision for floats); grouped send /
// recv in a ring and as an all-to-all; gather and scatter; split; bad
// arguments.
// tfl-env: TORCHFL_DEVICE_COUNT=4
// tfl-libs: -lnccl
#include "check.h"

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <nccl.h>
#include <stdint.h>
#include <string.h>

#define N 4
#define COUNT 1000

static ncclComm_t comms[N];
static int failures_before;

#define NCHECK(call, want) do { ncclResult_t r_ = (call); if (r_ != (want)) { \
    fprintf(stderr, "%s:%d: %s = %d (%s), want %d; last error: %s\n", __FILE__, __LINE__, \
            #call, (int)r_, ncclGetErrorString(r_), (int)(want), ncclGetLastError(NULL)); \
    tfl_failures++; } } while (0)

/* element i of rank r's input: small integers, exact in every type */
static double input(int r, size_t i, int type)
{
    double v = (double)((r * 7 + (int)(i % 13)) % 9) - (type == ncclUint8 || type == ncclUint32 ||
                                                        type == ncclUint64 ? 0 : 4);
    if (type == ncclFloat16 || type == ncclBfloat16 || type == ncclFloat32 ||
        type == ncclFloat64)
        v *= 0.5;
    return v;
}

static size_t tsize(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
    }
}

static void store(void *p, size_t i, ncclDataType_t t, double v)
{
    char *b = (char *)p + i * tsize(t);
    switch (t) {
    case ncclInt8:     { int8_t x = (int8_t)v; memcpy(b, &x, 1); break; }
    case ncclUint8:    { uint8_t x = (uint8_t)v; memcpy(b, &x, 1); break; }
    case ncclInt32:    { int32_t x = (int32_t)v; memcpy(b, &x, 4); break; }
    case ncclUint32:   { uint32_t x = (uint32_t)v; memcpy(b, &x, 4); break; }
    case ncclInt64:    { int64_t x = (int64_t)v; memcpy(b, &x, 8); break; }
    case ncclUint64:   { uint64_t x = (uint64_t)v; memcpy(b, &x, 8); break; }
    case ncclFloat16:  { __half x = __float2half((float)v); memcpy(b, &x, 2); break; }
    case ncclBfloat16: { __nv_bfloat16 x = __float2bfloat16((float)v); memcpy(b, &x, 2); break; }
    case ncclFloat32:  { float x = (float)v; memcpy(b, &x, 4); break; }
    default:           { memcpy(b, &v, 8); break; }
    }
}

static double load(const void *p, size_t i, ncclDataType_t t)
{
    const char *b = (const char *)p + i * tsize(t);
    switch (t) {
    case ncclInt8:     { int8_t x; memcpy(&x, b, 1); return x; }
    case ncclUint8:    { uint8_t x; memcpy(&x, b, 1); return x; }
    case ncclInt32:    { int32_t x; memcpy(&x, b, 4); return x; }
    case ncclUint32:   { uint32_t x; memcpy(&x, b, 4); return x; }
    case ncclInt64:    { int64_t x; memcpy(&x, b, 8); return (double)x; }
    case ncclUint64:   { uint64_t x; memcpy(&x, b, 8); return (double)x; }
    case ncclFloat16:  { __half x; memcpy(&x, b, 2); return __half2float(x); }
    case ncclBfloat16: { __nv_bfloat16 x; memcpy(&x, b, 2); return __bfloat162float(x); }
    case ncclFloat32:  { float x; memcpy(&x, b, 4); return x; }
    default:           { double x; memcpy(&x, b, 8); return x; }
    }
}

static double reduce_ref(size_t i, ncclDataType_t t, ncclRedOp_t op, double premul)
{
    double acc = 0;
    for (int r = 0; r < N; r++) {
        double x = input(r, i, t);
        if (r == 0)
            acc = op == (ncclRedOp_t)ncclNumOps ? premul * x : x;
        else if (op == ncclSum || op == ncclAvg) acc += x;
        else if (op == ncclProd) acc *= x;
        else if (op == ncclMax) acc = x > acc ? x : acc;
        else if (op == ncclMin) acc = x < acc ? x : acc;
        else acc += premul * x;
    }
    if (op == ncclAvg) {
        acc /= N;
        if (t != ncclFloat16 && t != ncclBfloat16 && t != ncclFloat32 && t != ncclFloat64)
            acc = (double)(long long)acc;     /* integers truncate */
    }
    /* integers wrap in their width, as NCCL's do */
    long long w = (long long)acc;
    switch (t) {
    case ncclInt8:   return (double)(int8_t)(uint8_t)w;
    case ncclUint8:  return (double)(uint8_t)w;
    case ncclInt32:  return (double)(int32_t)(uint32_t)w;
    case ncclUint32: return (double)(uint32_t)w;
    default:         return acc;
    }
}

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(cudaMalloc(&p, bytes));
    return p;
}

/* allreduce / reduce_scatter / reduce on every rank, checked */
static void test_reductions(ncclDataType_t t, ncclRedOp_t op, int in_place, double premul)
{
    size_t es = tsize(t);
    void *send[N], *recv[N];
    char *host = (char *)malloc(COUNT * N * es);
    ncclRedOp_t use[N];
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaSetDevice(r));
        send[r] = dalloc(COUNT * N * es);
        recv[r] = in_place ? send[r] : dalloc(COUNT * N * es);
        for (size_t i = 0; i < COUNT * N; i++)
            store(host, i, t, input(r, i, t));
        CHECK_OK(cudaMemcpy(send[r], host, COUNT * N * es, cudaMemcpyHostToDevice));
        use[r] = op;
        if (op == (ncclRedOp_t)ncclNumOps) {      /* a PreMulSum */
            char scalar[8];
            store(scalar, 0, t, premul);
            NCHECK(ncclRedOpCreatePreMulSum(&use[r], scalar, t, ncclScalarHostImmediate,
                                            comms[r]), ncclSuccess);
        }
    }
    /* allreduce over COUNT elements */
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclAllReduce(send[r], recv[r], COUNT, t, use[r], comms[r], 0), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(host, recv[r], COUNT * es, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < COUNT; i++) {
            double want = reduce_ref(i, t, op, premul), got = load(host, i, t);
            double tol = t == ncclFloat16 || t == ncclBfloat16 ? 0.02 * (1 + fabs(want)) : 1e-9;
            if (fabs(got - want) > tol) {
                fprintf(stderr, "allreduce type %d op %d inplace %d rank %d [%zu]: %g want %g\n",
                        (int)t, (int)op, in_place, r, i, got, want);
                tfl_failures++;
                break;
            }
        }
    }
    if (op != (ncclRedOp_t)ncclNumOps && !in_place) {
        /* reduce_scatter: rank r gets chunk r of the reduction over COUNT * N */
        for (int r = 0; r < N; r++) {
            for (size_t i = 0; i < COUNT * N; i++)
                store(host, i, t, input(r, i, t));
            CHECK_OK(cudaMemcpy(send[r], host, COUNT * N * es, cudaMemcpyHostToDevice));
        }
        NCHECK(ncclGroupStart(), ncclSuccess);
        for (int r = 0; r < N; r++)
            NCHECK(ncclReduceScatter(send[r], recv[r], COUNT, t, use[r], comms[r], 0), ncclSuccess);
        NCHECK(ncclGroupEnd(), ncclSuccess);
        for (int r = 0; r < N; r++) {
            CHECK_OK(cudaMemcpy(host, recv[r], COUNT * es, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < COUNT; i++) {
                double want = reduce_ref(r * COUNT + i, t, op, premul), got = load(host, i, t);
                if (fabs(got - want) > (t == ncclFloat16 || t == ncclBfloat16 ? 0.02 * (1 + fabs(want)) : 1e-9)) {
                    fprintf(stderr, "reduce_scatter type %d op %d rank %d [%zu]: %g want %g\n",
                            (int)t, (int)op, r, i, got, want);
                    tfl_failures++;
                    break;
                }
            }
        }
        /* reduce to root 2 */
        NCHECK(ncclGroupStart(), ncclSuccess);
        for (int r = 0; r < N; r++)
            NCHECK(ncclReduce(send[r], recv[r], COUNT, t, use[r], 2, comms[r], 0), ncclSuccess);
        NCHECK(ncclGroupEnd(), ncclSuccess);
        CHECK_OK(cudaMemcpy(host, recv[2], COUNT * es, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < COUNT; i++) {
            double want = reduce_ref(i, t, op, premul), got = load(host, i, t);
            if (fabs(got - want) > (t == ncclFloat16 || t == ncclBfloat16 ? 0.02 * (1 + fabs(want)) : 1e-9)) {
                fprintf(stderr, "reduce type %d op %d [%zu]: %g want %g\n", (int)t, (int)op, i,
                        got, want);
                tfl_failures++;
                break;
            }
        }
    }
    for (int r = 0; r < N; r++) {
        if (op == (ncclRedOp_t)ncclNumOps)
            NCHECK(ncclRedOpDestroy(use[r], comms[r]), ncclSuccess);
        CHECK_OK(cudaFree(send[r]));
        if (!in_place)
            CHECK_OK(cudaFree(recv[r]));
    }
    free(host);
}

/* broadcast, allgather, alltoall and a send/recv ring (data movement) */
static void test_movement(ncclDataType_t t)
{
    size_t es = tsize(t);
    void *send[N], *recv[N];
    char *host = (char *)malloc(COUNT * N * es);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaSetDevice(r));
        send[r] = dalloc(COUNT * N * es);
        recv[r] = dalloc(COUNT * N * es);
        for (size_t i = 0; i < COUNT * N; i++)
            store(host, i, t, input(r, i, t));
        CHECK_OK(cudaMemcpy(send[r], host, COUNT * N * es, cudaMemcpyHostToDevice));
    }
    /* broadcast from root 1 */
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclBroadcast(send[r], recv[r], COUNT, t, 1, comms[r], 0), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(host, recv[r], COUNT * es, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < COUNT; i++)
            if (load(host, i, t) != input(1, i, t)) {
                fprintf(stderr, "broadcast type %d rank %d [%zu]\n", (int)t, r, i);
                tfl_failures++;
                break;
            }
    }
    /* allgather: COUNT from each */
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclAllGather(send[r], recv[r], COUNT, t, comms[r], 0), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(host, recv[r], COUNT * N * es, cudaMemcpyDeviceToHost));
        for (int p = 0; p < N; p++)
            for (size_t i = 0; i < COUNT; i++)
                if (load(host, p * COUNT + i, t) != input(p, i, t)) {
                    fprintf(stderr, "allgather type %d rank %d from %d [%zu]\n", (int)t, r, p, i);
                    tfl_failures++;
                    p = N;
                    break;
                }
    }
    /* alltoall: chunk p of rank r goes to rank p, at slot r */
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclAlltoAll(send[r], recv[r], COUNT, t, comms[r], 0), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(host, recv[r], COUNT * N * es, cudaMemcpyDeviceToHost));
        for (int p = 0; p < N; p++)
            for (size_t i = 0; i < COUNT; i++)
                if (load(host, p * COUNT + i, t) != input(p, r * COUNT + i, t)) {
                    fprintf(stderr, "alltoall type %d rank %d from %d [%zu]\n", (int)t, r, p, i);
                    tfl_failures++;
                    p = N;
                    break;
                }
    }
    /* a ring: everyone sends to r+1 and receives from r-1, receives posted
     * first on odd ranks and last on even ones */
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        if (r % 2)
            NCHECK(ncclRecv(recv[r], COUNT, t, (r + N - 1) % N, comms[r], 0), ncclSuccess);
        NCHECK(ncclSend(send[r], COUNT, t, (r + 1) % N, comms[r], 0), ncclSuccess);
        if (!(r % 2))
            NCHECK(ncclRecv(recv[r], COUNT, t, (r + N - 1) % N, comms[r], 0), ncclSuccess);
    }
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(host, recv[r], COUNT * es, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < COUNT; i++)
            if (load(host, i, t) != input((r + N - 1) % N, i, t)) {
                fprintf(stderr, "ring type %d rank %d [%zu]\n", (int)t, r, i);
                tfl_failures++;
                break;
            }
    }
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaFree(send[r]));
        CHECK_OK(cudaFree(recv[r]));
    }
    free(host);
}

static void test_split(void)
{
    /* even and odd ranks, ordered by descending key */
    ncclComm_t sub[N];
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclCommSplit(comms[r], r % 2, N - r, &sub[r], NULL), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        int n = 0, me = -1;
        NCHECK(ncclCommCount(sub[r], &n), ncclSuccess);
        NCHECK(ncclCommUserRank(sub[r], &me), ncclSuccess);
        CHECK(n == 2);
        CHECK(me == (r < 2 ? 1 : 0));     /* larger key first: ranks 2/3 come before 0/1 */
    }
    /* a sum within each half */
    float *buf[N], h;
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaSetDevice(r));
        buf[r] = (float *)dalloc(sizeof(float));
        float v = (float)(r + 1);
        CHECK_OK(cudaMemcpy(buf[r], &v, sizeof v, cudaMemcpyHostToDevice));
        NCHECK(ncclAllReduce(buf[r], buf[r], 1, ncclFloat32, ncclSum, sub[r], 0), ncclSuccess);
    }
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(&h, buf[r], sizeof h, cudaMemcpyDeviceToHost));
        CHECK(h == (r % 2 ? 2.0f + 4.0f : 1.0f + 3.0f));
        CHECK_OK(cudaFree(buf[r]));
        NCHECK(ncclCommDestroy(sub[r]), ncclSuccess);
    }
}

/* ncclGather to root 2 and ncclScatter from root 1, int32 */
static void test_gather_scatter(void)
{
    enum { C = 777 };
    int32_t *src[N], *dst[N], h[N * C];
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaSetDevice(r));
        src[r] = (int32_t *)dalloc(N * C * sizeof(int32_t));
        dst[r] = (int32_t *)dalloc(N * C * sizeof(int32_t));
        for (int i = 0; i < N * C; i++)
            h[i] = r * 100000 + i;
        CHECK_OK(cudaMemcpy(src[r], h, sizeof h, cudaMemcpyHostToDevice));
    }
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclGather(src[r], dst[r], C, ncclInt32, 2, comms[r], 0), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    CHECK_OK(cudaMemcpy(h, dst[2], sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N * C && !bad; i++)
        bad = h[i] != (i / C) * 100000 + i % C;      /* block r: rank r's first C */
    CHECK(!bad);
    NCHECK(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < N; r++)
        NCHECK(ncclScatter(src[r], dst[r], C, ncclInt32, 1, comms[r], 0), ncclSuccess);
    NCHECK(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < N; r++) {
        CHECK_OK(cudaMemcpy(h, dst[r], C * sizeof(int32_t), cudaMemcpyDeviceToHost));
        for (int i = 0; i < C && !bad; i++)
            bad = h[i] != 100000 + r * C + i;            /* root 1's block r */
        CHECK(!bad);
        CHECK_OK(cudaFree(src[r]));
        CHECK_OK(cudaFree(dst[r]));
    }
    NCHECK(ncclGather(src[0], dst[0], C, ncclInt32, N, comms[0], 0), ncclInvalidArgument);
}

static void test_bad_arguments(void)
{
    float *d = (float *)dalloc(16 * sizeof(float));
    int x;
    NCHECK(ncclAllReduce(NULL, d, 4, ncclFloat32, ncclSum, comms[0], 0), ncclInvalidArgument);
    NCHECK(ncclAllReduce(d, d, 1000, ncclFloat32, ncclSum, comms[0], 0), ncclInvalidArgument);
    NCHECK(ncclAllReduce(d, d, 4, (ncclDataType_t)42, ncclSum, comms[0], 0), ncclInvalidArgument);
    NCHECK(ncclAllReduce(d, d, 4, ncclFloat32, (ncclRedOp_t)99, comms[0], 0), ncclInvalidArgument);
    NCHECK(ncclBroadcast(d, d, 4, ncclFloat32, N, comms[0], 0), ncclInvalidArgument);
    NCHECK(ncclSend(d, 4, ncclFloat32, -1, comms[0], 0), ncclInvalidArgument);
    NCHECK(ncclCommCount((ncclComm_t)d, &x), ncclInvalidArgument);
    NCHECK(ncclCommUserRank(comms[0], NULL), ncclInvalidArgument);
    NCHECK(ncclGroupEnd(), ncclInvalidUsage);
    CHECK(strlen(ncclGetLastError(NULL)) > 0);
    ncclUniqueId junk;
    memset(&junk, 7, sizeof junk);
    ncclComm_t c;
    NCHECK(ncclCommInitRank(&c, 2, junk, 0), ncclInvalidArgument);
    NCHECK(ncclCommInitRank(&c, 2, junk, 5), ncclInvalidArgument);
    int v = 0;
    NCHECK(ncclGetVersion(&v), ncclSuccess);
    CHECK(v >= 22809);
    CHECK_OK(cudaFree(d));
}

int main(void)
{
    NCHECK(ncclCommInitAll(comms, N, NULL), ncclSuccess);
    for (int r = 0; r < N; r++) {
        int n = 0, me = -1, dev = -1;
        NCHECK(ncclCommCount(comms[r], &n), ncclSuccess);
        NCHECK(ncclCommUserRank(comms[r], &me), ncclSuccess);
        NCHECK(ncclCommCuDevice(comms[r], &dev), ncclSuccess);
        CHECK(n == N && me == r && dev == r);
    }
    static const ncclDataType_t types[] = { ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64,
                                            ncclUint64, ncclFloat16, ncclFloat32, ncclFloat64,
                                            ncclBfloat16 };
    static const ncclRedOp_t ops[] = { ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg };
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        failures_before = tfl_failures;
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
            for (int inplace = 0; inplace < 2; inplace++)
                test_reductions(types[t], ops[o], inplace, 0);
        if (types[t] != ncclUint8 && types[t] != ncclUint32 && types[t] != ncclUint64)
            test_reductions(types[t], (ncclRedOp_t)ncclNumOps, 0, 3);   /* PreMulSum x3 */
        test_movement(types[t]);
        if (tfl_failures != failures_before)
            fprintf(stderr, "type %d failed\n", (int)types[t]);
    }
    test_split();
    test_gather_scatter();
    test_bad_arguments();
    for (int r = 0; r < N; r++)
        NCHECK(ncclCommDestroy(comms[r]), ncclSuccess);
    TEST_DONE();
}

/*
 * test_coll_gloo.c - the host backend's collective engine over Gloo
 * (backends/host/coll_gloo.h): ranks are threads of this process on
 * 127.0.0.1 meeting at an in-process key-value store.
 *
 *  - every kind x dtype (f32 f64 f16 bf16 i8 u8 i32 i64, unsigned i32/i64)
 *    x reduction, in place and out of place, 1-4 ranks, against
 *    references computed here (double for float sums, exact for integers,
 *    which wrap); the caller's send buffer is never written out of place
 *    and a non-root's REDUCE receive buffer is left alone;
 *  - grouped send/recv: a ring with sends first and with receives first,
 *    all-to-all from point-to-point (self included), several messages of
 *    several sizes per pair listed in mixed orders, p2p mixed with
 *    collectives in one group, several collectives in one group;
 *  - bad arguments (TFL_ERR_INVALID, the comm still works after);
 *  - ranks that disagree (counts, p2p sizes) fail at the timeout;
 *  - failures: a rank that never joins (comm_create times out), a peer
 *    that hangs (the others fail with TFL_ERR_DEVICE at the timeout), a
 *    peer whose comm is destroyed or aborted while the others run a
 *    collective (they fail at once, well before the timeout), comm_abort
 *    from another thread unblocking a blocked allreduce and a blocked
 *    receive, and every later call on an aborted or failed comm failing;
 *    a peer aborted while data streams to it, SIGPIPE at its default.
 */
#include "backends/host/coll_gloo.h"
#include "common/half.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXR 4

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------ the store */

typedef struct kv {
    char *key;
    void *val;
    size_t len;
    struct kv *next;
} kv;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC */
    kv *head;
} mstore;

static void ms_init(mstore *s)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, &a);
    pthread_condattr_destroy(&a);
    s->head = NULL;
}

static void ms_fini(mstore *s)
{
    while (s->head) {
        kv *e = s->head;
        s->head = e->next;
        free(e->key);
        free(e->val);
        free(e);
    }
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
}

static kv *ms_find(mstore *s, const char *key)
{
    for (kv *e = s->head; e; e = e->next)
        if (!strcmp(e->key, key))
            return e;
    return NULL;
}

static tfl_status ms_set(void *ctx, const char *key, const void *val, size_t len)
{
    mstore *s = ctx;
    pthread_mutex_lock(&s->mu);
    kv *e = ms_find(s, key);
    if (!e) {
        e = calloc(1, sizeof *e);
        e->key = strdup(key);
        e->next = s->head;
        s->head = e;
    }
    free(e->val);
    e->val = malloc(len ? len : 1);
    if (len)
        memcpy(e->val, val, len);
    e->len = len;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return TFL_OK;
}

static tfl_status ms_get(void *ctx, const char *key, void *buf, size_t cap, size_t *len,
                         int64_t timeout_ms)
{
    mstore *s = ctx;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mu);
    kv *e;
    while (!(e = ms_find(s, key)))
        if (pthread_cond_timedwait(&s->cv, &s->mu, &dl) == ETIMEDOUT && !ms_find(s, key)) {
            pthread_mutex_unlock(&s->mu);
            return TFL_ERR_NOT_READY;
        }
    memcpy(buf, e->val, e->len < cap ? e->len : cap);
    *len = e->len;
    pthread_mutex_unlock(&s->mu);
    return TFL_OK;
}

/* ------------------------------------------------------------ the ranks */

typedef struct world world;

typedef struct rk {
    world *w;
    int rank;
    tfl_comm comm;
    int fails;
} rk;

typedef void (*body_fn)(rk *);

struct world {
    int n;
    int64_t timeout;
    mstore st;
    tfl_coll_store cs;
    rk r[MAXR];
    body_fn body;
    pthread_barrier_t bar;
    atomic_int flag;
    double t0;
};

#define FAIL(k, ...)                                                          \
    do {                                                                      \
        if ((k)->fails++ < 8) {                                               \
            fprintf(stderr, "  [n=%d rank %d] ", (k)->w->n, (k)->rank);      \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

static void *rank_main(void *p)
{
    rk *k = p;
    world *w = k->w;
    char err[256];
    tfl_status st = hcoll_comm_create(0, w->n, k->rank, &w->cs, w->timeout, &k->comm, err,
                                      sizeof err);
    if (st != TFL_OK)
        FAIL(k, "comm_create: status %d: %s", st, err);
    pthread_barrier_wait(&w->bar);
    if (st == TFL_OK)
        w->body(k);
    return NULL;
}

static int run_world(int n, int64_t timeout, body_fn body)
{
    world *w = calloc(1, sizeof *w);
    w->n = n;
    w->timeout = timeout;
    w->body = body;
    ms_init(&w->st);
    w->cs.ctx = &w->st;
    w->cs.local_addr = "127.0.0.1";
    w->cs.set = ms_set;
    w->cs.get = ms_get;
    pthread_barrier_init(&w->bar, NULL, (unsigned)n);
    atomic_init(&w->flag, 0);
    w->t0 = now_s();
    pthread_t t[MAXR];
    for (int i = 0; i < n; i++) {
        w->r[i].w = w;
        w->r[i].rank = i;
        pthread_create(&t[i], NULL, rank_main, &w->r[i]);
    }
    int fails = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        fails += w->r[i].fails;
    }
    for (int i = 0; i < n; i++)
        if (w->r[i].comm && hcoll_comm_destroy(w->r[i].comm) != TFL_OK)
            fails++;
    pthread_barrier_destroy(&w->bar);
    ms_fini(&w->st);
    free(w);
    return fails;
}

/* --------------------------------------------------------------- types */

typedef struct {
    tfl_dtype dt;
    int uns;   /* values are unsigned (u8, and i32/i64 with is_unsigned) */
    int isf;
    int bits;
    const char *name;
} tdesc;

static const tdesc TYPES[] = {
    {TFL_DT_F32, 0, 1, 32, "f32"},  {TFL_DT_F64, 0, 1, 64, "f64"},
    {TFL_DT_F16, 0, 1, 16, "f16"},  {TFL_DT_BF16, 0, 1, 16, "bf16"},
    {TFL_DT_I8, 0, 0, 8, "i8"},     {TFL_DT_U8, 1, 0, 8, "u8"},
    {TFL_DT_I32, 0, 0, 32, "i32"},  {TFL_DT_I64, 0, 0, 64, "i64"},
    {TFL_DT_I32, 1, 0, 32, "u32"},  {TFL_DT_I64, 1, 0, 64, "u64"},
};
#define NTYPES ((int)(sizeof TYPES / sizeof TYPES[0]))

static const char *OPNAME[] = {"sum", "prod", "max", "min", "avg", "premul_sum"};
static const char *KINDNAME[] = {"allreduce", "broadcast", "reduce", "allgather",
                                 "reduce_scatter", "alltoall", "send", "recv", "barrier"};

static int is_unsigned_flag(const tdesc *t)
{
    return (t->dt == TFL_DT_I32 || t->dt == TFL_DT_I64) && t->uns;
}

static size_t esz(const tdesc *t) { return (size_t)t->bits / 8; }

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t h3(int c, int r, size_t i)
{
    return mix64(((uint64_t)c << 40) ^ ((uint64_t)r << 32) ^ (uint64_t)i ^ 0x9e3779b97f4a7c15ULL);
}

/* Float inputs: multiples of 1/4 in [-4, 4] (products: a few factors),
 * so that sums, products, scalings by 1/2 are exact even in bf16. */
static double genf(int op, int c, int r, size_t i)
{
    uint64_t h = h3(c, r, i);
    if (op == TFL_CRED_PROD) {
        static const double v[] = {-2, -1, -0.5, 0.5, 1, 1.5, 2};
        return v[h % 7];
    }
    return ((int)(h % 33) - 16) * 0.25;
}

static uint64_t mask_of(int bits) { return bits == 64 ? ~0ULL : ((1ULL << bits) - 1); }

static int64_t sext(uint64_t v, int bits)
{
    if (bits == 64)
        return (int64_t)v;
    uint64_t m = 1ULL << (bits - 1);
    v &= mask_of(bits);
    return (int64_t)((v ^ m) - m);
}

static void put(const tdesc *t, void *buf, size_t i, int op, int c, int r, size_t gi)
{
    if (t->isf) {
        double v = genf(op, c, r, gi);
        switch (t->dt) {
        case TFL_DT_F32: ((float *)buf)[i] = (float)v; break;
        case TFL_DT_F64: ((double *)buf)[i] = v; break;
        case TFL_DT_F16: ((uint16_t *)buf)[i] = tfl_f32_to_f16((float)v); break;
        default: ((uint16_t *)buf)[i] = tfl_f32_to_bf16((float)v); break;
        }
    } else {
        uint64_t v = h3(c, r, gi);
        switch (t->bits) {
        case 8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
        case 32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
        default: ((uint64_t *)buf)[i] = v; break;
        }
    }
}

static double getf(const tdesc *t, const void *buf, size_t i)
{
    switch (t->dt) {
    case TFL_DT_F32: return ((const float *)buf)[i];
    case TFL_DT_F64: return ((const double *)buf)[i];
    case TFL_DT_F16: return tfl_f16_to_f32(((const uint16_t *)buf)[i]);
    default: return tfl_bf16_to_f32(((const uint16_t *)buf)[i]);
    }
}

static uint64_t getu(const tdesc *t, const void *buf, size_t i)
{
    switch (t->bits) {
    case 8: return ((const uint8_t *)buf)[i];
    case 16: return ((const uint16_t *)buf)[i];
    case 32: return ((const uint32_t *)buf)[i];
    default: return ((const uint64_t *)buf)[i];
    }
}

#define PREMUL_F 0.5
#define PREMUL_I 3.0

/* The reduction over ranks 0..n-1 of element gi of case c. */
static double ref_f(const tdesc *t, int op, int c, int n, size_t gi)
{
    double acc = 0;
    for (int r = 0; r < n; r++) {
        double x = genf(op, c, r, gi);
        if (t->dt == TFL_DT_F32)
            x = (float)x;
        if (op == TFL_CRED_PREMUL_SUM)
            x *= PREMUL_F;
        if (r == 0) {
            acc = x;
            continue;
        }
        switch (op) {
        case TFL_CRED_PROD: acc *= x; break;
        case TFL_CRED_MAX: acc = x > acc ? x : acc; break;
        case TFL_CRED_MIN: acc = x < acc ? x : acc; break;
        default: acc += x; break;
        }
    }
    if (op == TFL_CRED_AVG)
        acc /= n;
    return acc;
}

static uint64_t ref_u(const tdesc *t, int op, int c, int n, size_t gi)
{
    const uint64_t m = mask_of(t->bits);
    uint64_t acc = 0;
    for (int r = 0; r < n; r++) {
        uint64_t x = h3(c, r, gi) & m;
        if (op == TFL_CRED_PREMUL_SUM)
            x = (x * (uint64_t)PREMUL_I) & m;
        if (r == 0) {
            acc = x;
            continue;
        }
        switch (op) {
        case TFL_CRED_PROD: acc = (acc * x) & m; break;
        case TFL_CRED_MAX:
            if (t->uns ? x > acc : sext(x, t->bits) > sext(acc, t->bits))
                acc = x;
            break;
        case TFL_CRED_MIN:
            if (t->uns ? x < acc : sext(x, t->bits) < sext(acc, t->bits))
                acc = x;
            break;
        default: acc = (acc + x) & m; break;
        }
    }
    if (op == TFL_CRED_AVG)
        acc = t->uns ? acc / (uint64_t)n : (uint64_t)(sext(acc, t->bits) / n) & m;
    return acc;
}

static double tol_of(const tdesc *t)
{
    switch (t->dt) {
    case TFL_DT_F32: return 1e-6;
    case TFL_DT_F64: return 1e-12;
    case TFL_DT_F16: return 1e-3;
    default: return 8e-3;
    }
}

/* Element i of buf holds the reduction (or the input) for gi? */
static int same_red(const tdesc *t, const void *buf, size_t i, int op, int c, int n, size_t gi)
{
    if (t->isf) {
        double want = ref_f(t, op, c, n, gi), got = getf(t, buf, i);
        return fabs(got - want) <= tol_of(t) * (fabs(want) > 1 ? fabs(want) : 1);
    }
    return getu(t, buf, i) == ref_u(t, op, c, n, gi);
}

static int same_in(const tdesc *t, const void *buf, size_t i, int op, int c, int r, size_t gi)
{
    unsigned char tmp[8];
    put(t, tmp, 0, op, c, r, gi);
    return !memcmp((const char *)buf + i * esz(t), tmp, esz(t));
}

/* ------------------------------------------------------ the collectives */

static const size_t COUNTS[] = {1, 7, 130, 1031};

static tfl_status run1(rk *k, const tfl_coll_op *op, const char *what)
{
    char err[512];
    tfl_status st = hcoll_coll_run(k->comm, op, 1, NULL, err, sizeof err);
    if (st != TFL_OK)
        FAIL(k, "%s: status %d: %s", what, st, err);
    return st;
}

/* One case: kind x type x op x placement, count and root from c. */
static void one_case(rk *k, int c, tfl_coll_kind kind, const tdesc *t, int op, int inplace)
{
    const int n = k->w->n, me = k->rank;
    const size_t cnt = COUNTS[c % 4], es = esz(t), nc = cnt * (size_t)n;
    const int root = c % n;
    char what[160];
    snprintf(what, sizeof what, "%s %s %s %s count %zu root %d (case %d)", KINDNAME[kind],
             t->name, OPNAME[op], inplace ? "in-place" : "out-of-place", cnt, root, c);

    unsigned char *a = malloc(nc * es), *b = malloc(nc * es);
    memset(a, 0xa5, nc * es);
    memset(b, 0x5a, nc * es);
    tfl_coll_op o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.count = cnt;
    o.dtype = t->dt;
    o.is_unsigned = is_unsigned_flag(t);
    o.op = (tfl_coll_redop)op;
    o.premul = t->isf ? PREMUL_F : PREMUL_I;
    o.peer = root;

    /* inputs: "send" is where this rank's input lives */
    unsigned char *send = a, *recv = inplace ? a : b;
    size_t in_n = cnt, in_off = 0; /* input elements, at send + in_off */
    switch (kind) {
    case TFL_COLL_REDUCE_SCATTER: in_n = nc; break;
    case TFL_COLL_ALLTOALL: in_n = nc; break;
    case TFL_COLL_ALLGATHER:
        if (inplace)
            in_off = (size_t)me * cnt; /* send = recv + me * count */
        break;
    default: break;
    }
    for (size_t i = 0; i < in_n; i++)
        put(t, send + (in_off + i) * es, 0, op, c, me, i);
    o.send = send + in_off * es;
    o.recv = recv;
    if (kind == TFL_COLL_REDUCE_SCATTER && inplace)
        o.recv = a + (size_t)me * cnt * es; /* recv = send + me * count */
    if (kind == TFL_COLL_BROADCAST && me != root && !inplace)
        o.send = NULL; /* ignored off the root */

    if (run1(k, &o, what) != TFL_OK)
        goto out;

    int bad = 0;
    const unsigned char *rv = o.recv;
    switch (kind) {
    case TFL_COLL_ALLREDUCE:
        for (size_t i = 0; i < cnt && !bad; i++)
            if (!same_red(t, rv, i, op, c, n, i))
                bad = 1 + (int)i;
        break;
    case TFL_COLL_REDUCE:
        if (me == root) {
            for (size_t i = 0; i < cnt && !bad; i++)
                if (!same_red(t, rv, i, op, c, n, i))
                    bad = 1 + (int)i;
        } else if (!inplace) {
            for (size_t i = 0; i < cnt * es && !bad; i++)
                if (rv[i] != 0x5a)
                    bad = 1 + (int)(i / es);
            if (bad)
                FAIL(k, "%s: a non-root's receive buffer was written", what);
        }
        break;
    case TFL_COLL_REDUCE_SCATTER:
        for (size_t i = 0; i < cnt && !bad; i++)
            if (!same_red(t, rv, i, op, c, n, (size_t)me * cnt + i))
                bad = 1 + (int)i;
        break;
    case TFL_COLL_BROADCAST:
        for (size_t i = 0; i < cnt && !bad; i++)
            if (!same_in(t, rv, i, op, c, root, i))
                bad = 1 + (int)i;
        break;
    case TFL_COLL_ALLGATHER:
        for (size_t i = 0; i < nc && !bad; i++)
            if (!same_in(t, rv, i, op, c, (int)(i / cnt), i % cnt))
                bad = 1 + (int)i;
        break;
    case TFL_COLL_ALLTOALL:
        for (size_t i = 0; i < nc && !bad; i++)
            if (!same_in(t, rv, i, op, c, (int)(i / cnt), (size_t)me * cnt + i % cnt))
                bad = 1 + (int)i;
        break;
    default: break;
    }
    if (bad && !(kind == TFL_COLL_REDUCE && me != root))
        FAIL(k, "%s: element %d wrong", what, bad - 1);
    /* out of place: the caller's input is never written */
    if (!inplace && o.send)
        for (size_t i = 0; i < in_n; i++)
            if (!same_in(t, send, in_off + i, op, c, me, i)) {
                FAIL(k, "%s: send buffer element %zu was written", what, i);
                break;
            }
out:
    free(a);
    free(b);
}

static void body_collectives(rk *k)
{
    int c = 0;
    static const tfl_coll_kind red_kinds[] = {TFL_COLL_ALLREDUCE, TFL_COLL_REDUCE,
                                              TFL_COLL_REDUCE_SCATTER};
    static const tfl_coll_kind mov_kinds[] = {TFL_COLL_BROADCAST, TFL_COLL_ALLGATHER,
                                              TFL_COLL_ALLTOALL};
    for (int ki = 0; ki < 3; ki++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (int op = 0; op < TFL_CRED_COUNT; op++)
                for (int ip = 0; ip < 2; ip++)
                    one_case(k, c++, red_kinds[ki], &TYPES[ti], op, ip);
    for (int ki = 0; ki < 3; ki++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (int ip = 0; ip < 2; ip++)
                one_case(k, c++, mov_kinds[ki], &TYPES[ti], TFL_CRED_SUM, ip);

    /* a barrier; a zero-count collective */
    tfl_coll_op o;
    memset(&o, 0, sizeof o);
    o.kind = TFL_COLL_BARRIER;
    run1(k, &o, "barrier");
    o.kind = TFL_COLL_ALLREDUCE;
    o.dtype = TFL_DT_F32;
    run1(k, &o, "zero-count allreduce");

    /* several collectives in one call: allreduce, broadcast, allgather */
    const int n = k->w->n, me = k->rank;
    float ar[64], bc[64], ag_in[8], ag[8 * MAXR];
    for (int i = 0; i < 64; i++) {
        ar[i] = (float)(me + i);
        bc[i] = me == n - 1 ? (float)(3 * i) : -1.0f;
    }
    for (int i = 0; i < 8; i++)
        ag_in[i] = (float)(100 * me + i);
    tfl_coll_op g[3];
    memset(g, 0, sizeof g);
    g[0].kind = TFL_COLL_ALLREDUCE;
    g[0].send = g[0].recv = ar;
    g[0].count = 64;
    g[0].dtype = TFL_DT_F32;
    g[1].kind = TFL_COLL_BROADCAST;
    g[1].send = g[1].recv = bc;
    g[1].count = 64;
    g[1].dtype = TFL_DT_F32;
    g[1].peer = n - 1;
    g[2].kind = TFL_COLL_ALLGATHER;
    g[2].send = ag_in;
    g[2].recv = ag;
    g[2].count = 8;
    g[2].dtype = TFL_DT_F32;
    char err[512];
    tfl_status st = hcoll_coll_run(k->comm, g, 3, NULL, err, sizeof err);
    if (st != TFL_OK) {
        FAIL(k, "grouped collectives: status %d: %s", st, err);
        return;
    }
    for (int i = 0; i < 64; i++)
        if (ar[i] != (float)(n * i + n * (n - 1) / 2) || bc[i] != (float)(3 * i)) {
            FAIL(k, "grouped collectives: allreduce/broadcast element %d wrong", i);
            break;
        }
    for (int i = 0; i < 8 * n; i++)
        if (ag[i] != (float)(100 * (i / 8) + i % 8)) {
            FAIL(k, "grouped collectives: allgather element %d wrong", i);
            break;
        }
}

/* ----------------------------------------------------- point-to-point */

static int32_t msgval(int src, int dst, int tag, size_t i)
{
    return (int32_t)(src * 1000003 + dst * 10007 + tag * 101 + (int)i);
}

static tfl_coll_op p2p(tfl_coll_kind kind, int peer, void *buf, size_t count)
{
    tfl_coll_op o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.peer = peer;
    o.count = count;
    o.dtype = TFL_DT_I32;
    if (kind == TFL_COLL_SEND)
        o.send = buf;
    else
        o.recv = buf;
    return o;
}

static void fill(int32_t *b, size_t n, int src, int dst, int tag)
{
    for (size_t i = 0; i < n; i++)
        b[i] = msgval(src, dst, tag, i);
}

static int check(rk *k, const int32_t *b, size_t n, int src, int dst, int tag, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != msgval(src, dst, tag, i)) {
            FAIL(k, "%s: message %d->%d tag %d element %zu wrong", what, src, dst, tag, i);
            return 1;
        }
    return 0;
}

static tfl_status runv(rk *k, tfl_coll_op *ops, int nops, const char *what)
{
    char err[512];
    tfl_status st = hcoll_coll_run(k->comm, ops, nops, NULL, err, sizeof err);
    if (st != TFL_OK)
        FAIL(k, "%s: status %d: %s", what, st, err);
    return st;
}

#define RING 4099 /* elements: larger than a socket write, odd */

static void body_p2p(rk *k)
{
    const int n = k->w->n, me = k->rank;
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    int32_t *sb = malloc(RING * sizeof *sb), *rb = malloc(RING * sizeof *rb);

    /* a ring, everyone sending first; then everyone receiving first */
    for (int order = 0; order < 2; order++) {
        fill(sb, RING, me, right, order);
        memset(rb, 0, RING * sizeof *rb);
        tfl_coll_op ops[2];
        ops[order] = p2p(TFL_COLL_SEND, right, sb, RING);
        ops[1 - order] = p2p(TFL_COLL_RECV, left, rb, RING);
        if (runv(k, ops, 2, order ? "ring, receives first" : "ring, sends first") == TFL_OK)
            check(k, rb, RING, left, me, order, "ring");
    }

    /* all-to-all from p2p: sends in one rotation, receives in reverse
     * rank order, self included */
    {
        int32_t s[MAXR][33], r[MAXR][33];
        tfl_coll_op ops[2 * MAXR];
        int m = 0;
        for (int j = 1; j <= n; j++) {
            int p = (me + j) % n;
            fill(s[p], 33, me, p, 7);
            ops[m++] = p2p(TFL_COLL_SEND, p, s[p], 33);
        }
        for (int p = n - 1; p >= 0; p--) {
            memset(r[p], 0, sizeof r[p]);
            ops[m++] = p2p(TFL_COLL_RECV, p, r[p], 33);
        }
        if (runv(k, ops, m, "all-to-all from p2p") == TFL_OK)
            for (int p = 0; p < n; p++)
                check(k, r[p], 33, p, me, 7, "all-to-all from p2p");
    }

    /* two messages of different sizes per ordered pair (NCCL's pairwise
     * order: the k-th send meets the k-th receive), listed in an order
     * that differs from rank to rank */
    {
        enum { M0 = 5, M1 = 3000 };
        static _Thread_local int32_t s0[MAXR][M0 + MAXR], s1[MAXR][M1 + MAXR];
        static _Thread_local int32_t r0[MAXR][M0 + MAXR], r1[MAXR][M1 + MAXR];
        tfl_coll_op ops[4 * MAXR];
        int m = 0;
        tfl_coll_op sends[2 * MAXR], recvs[2 * MAXR];
        int ns = 0, nr = 0;
        for (int p = 0; p < n; p++) {
            if (p == me)
                continue;
            /* sizes: first message M0 + receiver, second M1 + sender */
            fill(s0[p], M0 + p, me, p, 10);
            fill(s1[p], M1 + me, me, p, 11);
            sends[ns++] = p2p(TFL_COLL_SEND, p, s0[p], M0 + p);
            sends[ns++] = p2p(TFL_COLL_SEND, p, s1[p], M1 + me);
            memset(r0[p], 0, sizeof r0[p]);
            memset(r1[p], 0, sizeof r1[p]);
            recvs[nr++] = p2p(TFL_COLL_RECV, p, r0[p], M0 + me);
            recvs[nr++] = p2p(TFL_COLL_RECV, p, r1[p], M1 + p);
        }
        if (me % 2) { /* all receives first, peers in reverse */
            for (int i = nr - 2; i >= 0; i -= 2) {
                ops[m++] = recvs[i];
                ops[m++] = recvs[i + 1];
            }
            for (int i = 0; i < ns; i++)
                ops[m++] = sends[i];
        } else { /* interleaved, the receive of each pair before its sends */
            for (int i = 0; i < ns; i += 2) {
                ops[m++] = recvs[i];
                ops[m++] = sends[i];
                ops[m++] = recvs[i + 1];
                ops[m++] = sends[i + 1];
            }
        }
        if (m && runv(k, ops, m, "several messages per pair") == TFL_OK)
            for (int p = 0; p < n; p++) {
                if (p == me)
                    continue;
                check(k, r0[p], M0 + me, p, me, 10, "several messages per pair (1st)");
                check(k, r1[p], M1 + p, p, me, 11, "several messages per pair (2nd)");
            }
    }

    /* p2p and a collective in one group, listed in opposite orders on
     * even and odd ranks; a zero-count send in the middle */
    {
        float ar[100];
        for (int i = 0; i < 100; i++)
            ar[i] = (float)(me + 1);
        fill(sb, RING, me, right, 20);
        memset(rb, 0, RING * sizeof *rb);
        tfl_coll_op ops[4];
        tfl_coll_op a;
        memset(&a, 0, sizeof a);
        a.kind = TFL_COLL_ALLREDUCE;
        a.send = a.recv = ar;
        a.count = 100;
        a.dtype = TFL_DT_F32;
        tfl_coll_op z = p2p(TFL_COLL_SEND, right, sb, 0);
        if (me % 2 == 0) {
            ops[0] = p2p(TFL_COLL_SEND, right, sb, RING);
            ops[1] = a;
            ops[2] = z;
            ops[3] = p2p(TFL_COLL_RECV, left, rb, RING);
        } else {
            ops[0] = p2p(TFL_COLL_RECV, left, rb, RING);
            ops[1] = z;
            ops[2] = a;
            ops[3] = p2p(TFL_COLL_SEND, right, sb, RING);
        }
        if (runv(k, ops, 4, "p2p mixed with allreduce") == TFL_OK) {
            check(k, rb, RING, left, me, 20, "p2p mixed with allreduce");
            for (int i = 0; i < 100; i++)
                if (ar[i] != (float)(n * (n + 1) / 2)) {
                    FAIL(k, "p2p mixed with allreduce: allreduce element %d wrong", i);
                    break;
                }
        }
    }
    free(sb);
    free(rb);
}

static void body_all(rk *k)
{
    body_collectives(k);
    body_p2p(k);
}

/* ------------------------------------------------------- bad arguments */

static void expect_invalid(rk *k, const tfl_coll_op *ops, int n, const char *what)
{
    char err[512] = "";
    tfl_status st = hcoll_coll_run(k->comm, ops, n, NULL, err, sizeof err);
    if (st != TFL_ERR_INVALID)
        FAIL(k, "%s: status %d, want TFL_ERR_INVALID (%s)", what, st, err);
    else if (!err[0] || strchr(err, '\n'))
        FAIL(k, "%s: no one-line message: '%s'", what, err);
}

static void body_badargs(rk *k)
{
    const int n = k->w->n, me = k->rank;
    float x[16] = {0}, y[16] = {0};
    tfl_coll_op o, g[2];
    char err[256];
#define BASE()                                                                \
    do {                                                                      \
        memset(&o, 0, sizeof o);                                              \
        o.kind = TFL_COLL_ALLREDUCE;                                          \
        o.send = x;                                                           \
        o.recv = y;                                                           \
        o.count = 16;                                                         \
        o.dtype = TFL_DT_F32;                                                 \
    } while (0)
    BASE();
    if (hcoll_coll_run(NULL, &o, 1, NULL, err, sizeof err) != TFL_ERR_INVALID)
        FAIL(k, "NULL comm accepted");
    expect_invalid(k, &o, -1, "negative op count");
    expect_invalid(k, NULL, 1, "NULL op list");
    BASE();
    o.kind = (tfl_coll_kind)99;
    expect_invalid(k, &o, 1, "unknown kind");
    BASE();
    o.dtype = TFL_DT_C64;
    expect_invalid(k, &o, 1, "complex dtype");
    BASE();
    o.dtype = TFL_DT_BOOL;
    expect_invalid(k, &o, 1, "bool dtype");
    BASE();
    o.op = (tfl_coll_redop)17;
    expect_invalid(k, &o, 1, "unknown reduction");
    BASE();
    o.send = NULL;
    expect_invalid(k, &o, 1, "NULL send buffer");
    BASE();
    o.recv = NULL;
    expect_invalid(k, &o, 1, "NULL receive buffer");
    BASE();
    o.kind = TFL_COLL_BROADCAST;
    o.peer = n;
    expect_invalid(k, &o, 1, "root out of range");
    BASE();
    o.kind = TFL_COLL_REDUCE;
    o.peer = -1;
    expect_invalid(k, &o, 1, "negative root");
    BASE();
    o.count = SIZE_MAX / 2;
    expect_invalid(k, &o, 1, "count overflowing");
    g[0] = p2p(TFL_COLL_SEND, n, x, 4);
    expect_invalid(k, g, 1, "peer out of range");
    g[0] = p2p(TFL_COLL_SEND, me, x, 4);
    expect_invalid(k, g, 1, "send to self without a receive");
    g[1] = p2p(TFL_COLL_RECV, me, y, 5);
    expect_invalid(k, g, 2, "self send/receive sizes differ");
    /* a valid op before an invalid one: nothing of the call runs */
    BASE();
    g[0] = o;
    g[1] = o;
    g[1].dtype = TFL_DT_C128;
    expect_invalid(k, g, 2, "valid op then invalid op");

    /* the comm still works */
    for (int i = 0; i < 16; i++)
        x[i] = (float)(me + 1);
    BASE();
    if (run1(k, &o, "allreduce after bad arguments") == TFL_OK)
        for (int i = 0; i < 16; i++)
            if (y[i] != (float)(n * (n + 1) / 2)) {
                FAIL(k, "allreduce after bad arguments: element %d wrong", i);
                break;
            }
    /* self send + receive alone */
    for (int i = 0; i < 4; i++)
        x[i] = (float)(7 * i + me);
    g[0] = p2p(TFL_COLL_RECV, me, y, 4);
    g[1] = p2p(TFL_COLL_SEND, me, x, 4);
    memset(y, 0, sizeof y);
    if (runv(k, g, 2, "self send/receive") == TFL_OK && memcmp(x, y, 4 * sizeof *x))
        FAIL(k, "self send/receive: wrong data");
    if (hcoll_coll_run(k->comm, NULL, 0, NULL, err, sizeof err) != TFL_OK)
        FAIL(k, "empty op list refused");
#undef BASE
}

static int test_create_args(void)
{
    int fails = 0;
    mstore s;
    ms_init(&s);
    tfl_coll_store cs = {&s, "127.0.0.1", ms_set, ms_get};
    tfl_coll_store bad_addr = {&s, "localhost-not-numeric", ms_set, ms_get};
    tfl_coll_store no_addr = {&s, NULL, ms_set, ms_get};
    tfl_comm c = (tfl_comm)(uintptr_t)1;
    char err[256];
    struct {
        int nranks, rank;
        const tfl_coll_store *st;
        tfl_comm *out;
        const char *what;
    } cases[] = {
        {0, 0, &cs, &c, "0 ranks"},
        {2, 2, &cs, &c, "rank == nranks"},
        {2, -1, &cs, &c, "negative rank"},
        {2, 0, NULL, &c, "no store"},
        {2, 0, &bad_addr, &c, "non-numeric address"},
        {2, 0, &no_addr, &c, "no address"},
        {2, 0, &cs, NULL, "NULL out"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = '\0';
        tfl_status st = hcoll_comm_create(0, cases[i].nranks, cases[i].rank, cases[i].st, 1000,
                                          cases[i].out, err, sizeof err);
        if (st != TFL_ERR_INVALID || !err[0]) {
            fprintf(stderr, "  comm_create(%s): status %d (%s), want TFL_ERR_INVALID\n",
                    cases[i].what, st, err);
            fails++;
        }
    }
    if (hcoll_comm_destroy(NULL) != TFL_ERR_INVALID || hcoll_comm_abort(NULL) != TFL_ERR_INVALID) {
        fprintf(stderr, "  destroy/abort(NULL) accepted\n");
        fails++;
    }
    /* a rank alone of two: the rendezvous times out */
    double t = now_s();
    err[0] = '\0';
    c = NULL;
    tfl_status st = hcoll_comm_create(0, 2, 0, &cs, 300, &c, err, sizeof err);
    t = now_s() - t;
    if (st != TFL_ERR_DEVICE || c || t < 0.25 || t > 3.0 || !strstr(err, "rank 1")) {
        fprintf(stderr, "  comm_create with a missing rank: status %d after %.2fs (%s)\n", st, t,
                err);
        fails++;
    }
    if (c)
        hcoll_comm_destroy(c);
    ms_fini(&s);
    return fails;
}

/* ------------------------------------------------------------ failures */

static tfl_coll_op ar_op(float *buf, size_t n)
{
    tfl_coll_op o;
    memset(&o, 0, sizeof o);
    o.kind = TFL_COLL_ALLREDUCE;
    o.send = o.recv = buf;
    o.count = n;
    o.dtype = TFL_DT_F32;
    return o;
}

#define BIG 100000
static float bigbuf[MAXR][BIG];

/* Runs op, expects TFL_ERR_DEVICE after between lo and hi seconds. */
static void expect_device(rk *k, const tfl_coll_op *ops, int n, double lo, double hi,
                          const char *what, const char *needle)
{
    char err[512] = "";
    double t = now_s();
    tfl_status st = hcoll_coll_run(k->comm, ops, n, NULL, err, sizeof err);
    t = now_s() - t;
    if (st != TFL_ERR_DEVICE)
        FAIL(k, "%s: status %d, want TFL_ERR_DEVICE (%s)", what, st, err);
    else if (t < lo || t > hi)
        FAIL(k, "%s: failed after %.2fs, want %.2f-%.2fs (%s)", what, t, lo, hi, err);
    else if (!err[0] || strchr(err, '\n') || (needle && !strstr(err, needle)))
        FAIL(k, "%s: message '%s'", what, err);
}

/* Every rank sends to the next in its own call, then receives from the
 * previous one (PyTorch's isend / irecv outside a batch): the sends must
 * complete in the background or every rank waits in its send.  The send
 * buffer is overwritten right after the call (the caller owns it again). */
static void body_ring(rk *k)
{
    enum { N = 300000 };   /* larger than any socket buffer */
    int32_t *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    for (int i = 0; i < N; i++)
        out[i] = k->rank * 1000003 + i;
    char err[512] = "";
    tfl_coll_op s = p2p(TFL_COLL_SEND, (k->rank + 1) % k->w->n, out, N);
    tfl_coll_op r = p2p(TFL_COLL_RECV, (k->rank + k->w->n - 1) % k->w->n, in, N);
    tfl_status st = hcoll_coll_run(k->comm, &s, 1, NULL, err, sizeof err);
    memset(out, 0xff, N * sizeof *out);
    if (st == TFL_OK)
        st = hcoll_coll_run(k->comm, &r, 1, NULL, err, sizeof err);
    if (st != TFL_OK)
        FAIL(k, "ring of sends then receives: status %d (%s)", st, err);
    const int prev = (k->rank + k->w->n - 1) % k->w->n;
    for (int i = 0; i < N && st == TFL_OK; i++)
        if (in[i] != prev * 1000003 + i) {
            FAIL(k, "ring: element %d is %d, want %d", i, in[i], prev * 1000003 + i);
            break;
        }
    free(out);
    free(in);
}

/* A peer that never calls: the others fail at the timeout (0.6 s), then
 * the comm refuses every call at once; the silent rank's next call fails
 * at once too (its peers closed their connections). */
static void body_hung(rk *k)
{
    world *w = k->w;
    tfl_coll_op o = ar_op(bigbuf[k->rank], 1000);
    if (k->rank != 1) {
        expect_device(k, &o, 1, 0.5, 3.0, "allreduce with a hung peer", NULL);
        expect_device(k, &o, 1, 0.0, 0.2, "call after a failure", "failed earlier");
        atomic_fetch_add(&w->flag, 1);
    } else {
        while (atomic_load(&w->flag) < w->n - 1)
            sleep_ms(10);
        expect_device(k, &o, 1, 0.0, 0.55, "allreduce after the others failed", NULL);
    }
}

/* Rank n-1 destroys (mode 0) or aborts (mode 1) its comm while the others
 * run an allreduce: they fail at once, long before the 5 s timeout. */
static int dead_mode;

static void body_dead(rk *k)
{
    world *w = k->w;
    if (k->rank == w->n - 1) {
        sleep_ms(300);
        tfl_status st = dead_mode ? hcoll_comm_abort(k->comm) : hcoll_comm_destroy(k->comm);
        if (st != TFL_OK)
            FAIL(k, "%s: status %d", dead_mode ? "abort" : "destroy", st);
        if (!dead_mode)
            k->comm = NULL;
        return;
    }
    tfl_coll_op o = ar_op(bigbuf[k->rank], BIG);
    expect_device(k, &o, 1, 0.2, 2.5, dead_mode ? "allreduce, a peer aborted" : "allreduce, a peer destroyed", NULL);
}

/* comm_abort from another thread (rank 1's) while rank 0 blocks in an
 * allreduce (mode 0) or a receive (mode 1) rank 1 never joins. */
static int abort_mode;

static void body_abort(rk *k)
{
    world *w = k->w;
    if (k->rank == 0) {
        /* the other rank aborts this comm after 0.3 s: the blocked call
         * returns then, long before the comm's 30 s timeout */
        tfl_coll_op o = abort_mode ? p2p(TFL_COLL_RECV, 1, bigbuf[0], 64) : ar_op(bigbuf[0], 1000);
        expect_device(k, &o, 1, 0.2, 2.0, abort_mode ? "blocked receive, aborted" : "blocked allreduce, aborted", NULL);
        expect_device(k, &o, 1, 0.0, 0.2, "call on an aborted comm", "aborted");
        atomic_store(&w->flag, 1);
        return;
    }
    sleep_ms(300);
    if (hcoll_comm_abort(w->r[0].comm) != TFL_OK || hcoll_comm_abort(w->r[0].comm) != TFL_OK)
        FAIL(k, "abort failed");
    while (!atomic_load(&w->flag))
        sleep_ms(5);
    /* rank 0's connections are closed: this rank fails at once too */
    tfl_coll_op b;
    memset(&b, 0, sizeof b);
    b.kind = TFL_COLL_BARRIER;
    expect_device(k, &b, 1, 0.0, 1.0, "barrier with an aborted peer", NULL);
}

/* Ranks that disagree (an allreduce of another count; a send and a
 * receive of different sizes) fail at the timeout - Gloo alone would
 * exchange the bytes and abort the process on the size mismatch. */
static int mismatch_mode;

static void body_mismatch(rk *k)
{
    tfl_coll_op o = mismatch_mode
        ? p2p(k->rank ? TFL_COLL_RECV : TFL_COLL_SEND, 1 - k->rank, bigbuf[k->rank], 10 + 10 * (size_t)k->rank)
        : ar_op(bigbuf[k->rank], 10 + 10 * (size_t)k->rank);
    if (mismatch_mode && k->rank == 0) {
        /* a send completes in the background: the call returns at once,
         * the failure shows in the next call once the receiver gave up */
        char err[512] = "";
        tfl_status st = hcoll_coll_run(k->comm, &o, 1, NULL, err, sizeof err);
        if (st != TFL_OK)
            FAIL(k, "buffered send: status %d (%s)", st, err);
        sleep_ms(1500);
        /* the failure is visible without a call (ncclCommGetAsyncError) */
        if (hcoll_comm_error(k->comm, err, sizeof err) != TFL_ERR_DEVICE || !err[0])
            FAIL(k, "comm_error after the unmatched send failed: '%s'", err);
        tfl_coll_op b;
        memset(&b, 0, sizeof b);
        b.kind = TFL_COLL_BARRIER;
        expect_device(k, &b, 1, 0.0, 0.2, "call after the unmatched send failed", "failed earlier");
        return;
    }
    expect_device(k, &o, 1, 0.4, 3.0, mismatch_mode ? "send/receive sizes differ" : "allreduce counts differ", NULL);
}

/* A peer aborted while data streams to it: the writer's next write meets
 * a reset connection.  Gloo writes with writev (no MSG_NOSIGNAL): without
 * the engine keeping SIGPIPE blocked on its threads this process (SIGPIPE
 * at its default, as in a plain C program) would be killed. */
#define HUGE_N (16u << 20)

static void *abort_later(void *p)
{
    rk *k = p;
    sleep_ms(40);
    hcoll_comm_abort(k->comm);
    return NULL;
}

static void body_pipe(rk *k)
{
    float *buf = calloc(HUGE_N, sizeof *buf);
    tfl_coll_op o = ar_op(buf, HUGE_N);
    pthread_t t;
    if (k->rank == 1)
        pthread_create(&t, NULL, abort_later, k);
    char err[512] = "";
    tfl_status st = hcoll_coll_run(k->comm, &o, 1, NULL, err, sizeof err);
    if (st != TFL_ERR_DEVICE)
        FAIL(k, "allreduce with a peer aborted mid-stream: status %d (%s)", st, err);
    if (k->rank == 1)
        pthread_join(t, NULL);
    free(buf);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    int fails = 0, f;
    double t0 = now_s(), t;

    f = test_create_args();
    printf("comm_create arguments and rendezvous timeout: %s\n", f ? "FAIL" : "ok");
    fails += f;

    for (int n = 1; n <= MAXR; n++) {
        t = now_s();
        f = run_world(n, 10000, body_all);
        printf("%d rank(s): collectives and point-to-point: %s (%.2fs)\n", n, f ? "FAIL" : "ok",
               now_s() - t);
        fails += f;
    }

    for (int n = 2; n <= 3; n++) {
        f = run_world(n, 10000, body_ring);
        printf("%d ranks: send to the next, then receive from the previous: %s\n", n, f ? "FAIL" : "ok");
        fails += f;
    }

    f = run_world(2, 10000, body_badargs);
    printf("bad arguments: %s\n", f ? "FAIL" : "ok");
    fails += f;

    t = now_s();
    f = run_world(3, 600, body_hung);
    printf("hung peer, 0.6 s timeout: %s (%.2fs)\n", f ? "FAIL" : "ok", now_s() - t);
    fails += f;

    for (dead_mode = 0; dead_mode < 2; dead_mode++) {
        t = now_s();
        f = run_world(3, 5000, body_dead);
        printf("peer %s mid-collective: %s (%.2fs)\n", dead_mode ? "aborted" : "destroyed",
               f ? "FAIL" : "ok", now_s() - t);
        fails += f;
    }

    for (abort_mode = 0; abort_mode < 2; abort_mode++) {
        t = now_s();
        f = run_world(2, 30000, body_abort);
        printf("abort of a comm blocked in a %s: %s (%.2fs)\n", abort_mode ? "receive" : "allreduce",
               f ? "FAIL" : "ok", now_s() - t);
        fails += f;
    }

    for (mismatch_mode = 0; mismatch_mode < 2; mismatch_mode++) {
        t = now_s();
        f = run_world(2, 500, body_mismatch);
        printf("ranks disagree (%s), 0.5 s timeout: %s (%.2fs)\n",
               mismatch_mode ? "p2p sizes" : "allreduce counts", f ? "FAIL" : "ok", now_s() - t);
        fails += f;
    }

    signal(SIGPIPE, SIG_DFL);
    t = now_s();
    f = run_world(2, 30000, body_pipe);  /* both calls end at the abort, not this timeout */
    printf("peer aborted while data streams to it (SIGPIPE at its default): %s (%.2fs)\n",
           f ? "FAIL" : "ok", now_s() - t);
    fails += f;

    printf("total %.2fs\n", now_s() - t0);
    if (fails) {
        fprintf(stderr, "%d failure(s)\n", fails);
        return 1;
    }
    printf("ok\n");
    return 0;
}

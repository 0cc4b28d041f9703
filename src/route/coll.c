/*
 * coll.c - communicators, groups and collectives (coll.h).
 *
 * A communicator keeps the backend engine's handle for its rank, the
 * bootstrap id and key path it was made from (so a split can meet at the
 * same server under a new path), and its first failure.  Collectives are
 * checked above (src/intercept/nccl) and run here on the engine; between
 * group start and end they are queued per thread and run at the end, one
 * thread per communicator when the group spans several, so one thread can
 * drive every rank of ncclCommInitAll without deadlocking.  Communicator
 * creation inside a group is deferred the same way (NCCL allows grouping
 * ncclCommInitRank calls for that reason).
 */
#define _GNU_SOURCE
#include "route/coll.h"
#include "route/coll_internal.h"
#include "route/config.h"
#include "route/runtime.h"
#include "backends/host/host_ops.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tfl_rt_comm {
    struct tfl_rt_comm *next;         /* registry (validity checks)      */
    int dev, rank, nranks;
    const tfl_backend *engine;        /* whose collective slots run it   */
    const tfl_backend *stage;         /* device backend whose memory is
                                         staged through the host; or NULL */
    tfl_comm bc;
    tfl_boot_id boot;
    char path[200];                   /* key path at the bootstrap server */
    int nsplits;                      /* splits so far (same on every rank) */
    _Atomic int error;                /* tfl_status of the first failure */
    _Atomic int aborted;
    _Atomic int inflight;             /* calls running on the engine now  */
    int pending_init;                 /* made in a group, not yet joined */
    pthread_mutex_t lock;
    char msg[320];
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static tfl_rt_comm *comms;

static void reg_add(tfl_rt_comm *c)
{
    pthread_mutex_lock(&reg_lock);
    c->next = comms;
    comms = c;
    pthread_mutex_unlock(&reg_lock);
}

static void reg_del(tfl_rt_comm *c)
{
    pthread_mutex_lock(&reg_lock);
    for (tfl_rt_comm **p = &comms; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
}

int tfl_coll_comm_valid(const tfl_rt_comm *c)
{
    int ok = 0;
    pthread_mutex_lock(&reg_lock);
    for (tfl_rt_comm *p = comms; p && !ok; p = p->next)
        ok = p == c;
    pthread_mutex_unlock(&reg_lock);
    return ok;
}

int tfl_coll_comm_rank(const tfl_rt_comm *c) { return c->rank; }
int tfl_coll_comm_count(const tfl_rt_comm *c) { return c->nranks; }
int tfl_coll_comm_device(const tfl_rt_comm *c) { return c->dev; }

static void fail(tfl_rt_comm *c, tfl_status st, const char *msg)
{
    int expect = TFL_OK;
    pthread_mutex_lock(&c->lock);
    if (atomic_compare_exchange_strong(&c->error, &expect, (int)st))
        snprintf(c->msg, sizeof c->msg, "%s", msg);
    pthread_mutex_unlock(&c->lock);
    tfl_nccl_log(TFL_NCCL_LOG_WARN, c->dev, "rank %d: %s", c->rank, msg);
}

tfl_status tfl_coll_comm_error(const tfl_rt_comm *c, char *msg, size_t len)
{
    tfl_rt_comm *m = (tfl_rt_comm *)c;
    /* a failure the engine met in the background becomes this comm's */
    if (atomic_load(&m->error) == TFL_OK && m->bc && m->engine->comm_error &&
        !atomic_load(&m->aborted)) {
        char e[320] = "";
        tfl_status st = m->engine->comm_error(m->bc, e, sizeof e);
        if (st != TFL_OK)
            fail(m, st, e[0] ? e : "the engine failed");
    }
    pthread_mutex_lock(&m->lock);
    tfl_status st = (tfl_status)atomic_load(&m->error);
    if (msg && len)
        snprintf(msg, len, "%s", st != TFL_OK ? m->msg : "");
    pthread_mutex_unlock(&m->lock);
    return st;
}

static int64_t timeout_ms(void)
{
    return (int64_t)tfl_config_get()->nccl_timeout_s * 1000;
}

/* The engine for the active backend: its own collective slots, else the
 * host's, reading the operands directly when the backend's memory is host
 * memory and through host copies (*stage = the backend) when it is not.
 * NULL with err when none can serve. */
static const tfl_backend *engine_for(int dev, const tfl_backend **stage, char *err,
                                     size_t errlen)
{
    const tfl_backend *b = tfl_rt_backend();
    *stage = NULL;
    if (!b) {
        snprintf(err, errlen, "no backend is initialised");
        return NULL;
    }
    if (b->coll_run && b->comm_create)
        return b;
    if (!tfl_host_backend.coll_run || !tfl_host_backend.comm_create) {
        snprintf(err, errlen, "no collective engine (backend %s has none)", b->name);
        return NULL;
    }
    if (!(b->host_addressable && b->host_addressable(dev))) {
        if (!b->memcpy) {
            snprintf(err, errlen, "backend %s has no collective engine and no memcpy to stage "
                     "through the host", b->name);
            return NULL;
        }
        *stage = b;
    }
    return &tfl_host_backend;
}

/* Servers started for NCCL_COMM_ID, one per port in this process. */
static tfl_status serve_comm_id(const tfl_boot_id *b, char *err, size_t errlen)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static uint16_t served[16];
    static int nserved;
    tfl_status st = TFL_OK;
    pthread_mutex_lock(&lock);
    int have = 0;
    for (int i = 0; i < nserved; i++)
        have |= served[i] == b->port;
    if (!have) {
        uint16_t port = b->port;
        st = tfl_boot_serve(htonl(INADDR_ANY), &port, err, errlen);
        if (st == TFL_OK && nserved < 16)
            served[nserved++] = b->port;
    }
    pthread_mutex_unlock(&lock);
    return st;
}

/* Join the group at c->boot / c->path: the engine's rendezvous. */
static tfl_status join(tfl_rt_comm *c, char *err, size_t errlen)
{
    if ((c->boot.flags & TFL_BOOT_SERVER_AT_RANK0) && c->rank == 0 && !c->path[0]) {
        tfl_status st = serve_comm_id(&c->boot, err, errlen);
        if (st != TFL_OK)
            return st;
    }
    tfl_boot_client cl;
    tfl_status st = tfl_boot_connect(&cl, &c->boot, c->path, timeout_ms(), err, errlen);
    if (st != TFL_OK)
        return st;
    tfl_coll_store store = tfl_boot_store(&cl);
    const char *ifname = getenv("NCCL_SOCKET_IFNAME");
    tfl_nccl_log(TFL_NCCL_LOG_INFO, c->dev, "NET/Socket: rank %d listens on %s "
                 "(NCCL_SOCKET_IFNAME=%s)", c->rank, store.local_addr, ifname ? ifname : "unset");
    st = c->engine->comm_create(c->dev, c->nranks, c->rank, &store, timeout_ms(), &c->bc, err,
                                errlen);
    tfl_boot_close(&cl);
    if (st == TFL_OK)
        tfl_nccl_log(TFL_NCCL_LOG_INFO, c->dev, "comm %p rank %d nRanks %d - Init COMPLETE "
                     "(torchfl, engine of backend %s)", (void *)c, c->rank, c->nranks,
                     c->engine->name);
    return st;
}

static tfl_rt_comm *comm_new(int dev, int rank, int nranks, const tfl_boot_id *boot,
                             const char *path, const tfl_backend *engine)
{
    tfl_rt_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->dev = dev;
    c->rank = rank;
    c->nranks = nranks;
    c->boot = *boot;
    c->engine = engine;
    snprintf(c->path, sizeof c->path, "%s", path ? path : "");
    atomic_init(&c->error, TFL_OK);
    atomic_init(&c->aborted, 0);
    atomic_init(&c->inflight, 0);
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void comm_free(tfl_rt_comm *c)
{
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static tfl_status regroup(tfl_rt_comm *p, int color, int key, const int *exclude,
                          int nexclude, tfl_rt_comm **out, char *err, size_t errlen);

/* ------------------------------------------------------------ groups */

enum { P_OP, P_INIT, P_SPLIT };

typedef struct pending {
    tfl_rt_comm *comm;        /* P_SPLIT: the parent                      */
    int kind;
    tfl_coll_op op;           /* P_OP                                     */
    int color, key;           /* P_SPLIT                                  */
    tfl_rt_comm **out;        /* P_SPLIT: set when the group ends         */
} pending;

static __thread int group_depth;
static __thread pending *queue;
static __thread int nqueue, capqueue;

int tfl_coll_group_depth(void) { return group_depth; }

tfl_status tfl_coll_group_start(void)
{
    group_depth++;
    return TFL_OK;
}

static tfl_status enqueue(tfl_rt_comm *c, int kind, const tfl_coll_op *op)
{
    if (nqueue == capqueue) {
        int cap = capqueue ? capqueue * 2 : 16;
        pending *q = realloc(queue, (size_t)cap * sizeof *q);
        if (!q)
            return TFL_ERR_NOMEM;
        queue = q;
        capqueue = cap;
    }
    pending *p = &queue[nqueue++];
    memset(p, 0, sizeof *p);
    p->comm = c;
    p->kind = kind;
    if (op)
        p->op = *op;
    return TFL_OK;
}

/* One communicator's share of a group: its deferred init, then its ops. */
typedef struct share {
    tfl_rt_comm *comm;
    const pending *items;
    int n;
    tfl_status st;
    char err[320];
} share;

static tfl_status run_ops(tfl_rt_comm *c, const tfl_coll_op *ops, int n, char *err,
                          size_t errlen)
{
    if (atomic_load(&c->aborted)) {
        snprintf(err, errlen, "the communicator was aborted");
        return TFL_ERR_DEVICE;
    }
    tfl_status prior = (tfl_status)atomic_load(&c->error);
    if (prior != TFL_OK) {
        tfl_coll_comm_error(c, err, errlen);
        return prior;
    }
    atomic_fetch_add(&c->inflight, 1);
    tfl_status st = atomic_load(&c->aborted) ? TFL_ERR_DEVICE
                  : c->stage ? tfl_coll_stage_run(c->stage, c->engine, c->bc, c->nranks, c->rank,
                                                  ops, n, err, errlen)
                  : c->engine->coll_run(c->bc, ops, n, NULL, err, errlen);
    atomic_fetch_sub(&c->inflight, 1);
    if (st != TFL_OK && st != TFL_ERR_INVALID)
        fail(c, st, err);
    return st;
}

static void *run_share(void *arg)
{
    share *s = arg;
    s->st = TFL_OK;
    tfl_coll_op *ops = malloc((size_t)s->n * sizeof *ops);
    int nops = 0;
    if (!ops) {
        s->st = TFL_ERR_NOMEM;
        return NULL;
    }
    for (int i = 0; i < s->n && s->st == TFL_OK; i++) {
        const pending *it = &s->items[i];
        if (it->kind == P_INIT) {
            s->st = join(s->comm, s->err, sizeof s->err);
            s->comm->pending_init = 0;
            if (s->st != TFL_OK)
                fail(s->comm, s->st, s->err);
        } else if (it->kind == P_SPLIT) {
            s->st = regroup(s->comm, it->color, it->key, NULL, 0, it->out, s->err,
                            sizeof s->err);
        } else {
            ops[nops++] = it->op;
        }
    }
    if (s->st == TFL_OK && nops)
        s->st = run_ops(s->comm, ops, nops, s->err, sizeof s->err);
    free(ops);
    return NULL;
}

tfl_status tfl_coll_group_end(char *err, size_t errlen)
{
    if (group_depth == 0) {
        snprintf(err, errlen, "ncclGroupEnd without ncclGroupStart");
        return TFL_ERR_INVALID;
    }
    if (--group_depth > 0)
        return TFL_OK;
    int n = nqueue;
    pending *q = queue;
    queue = NULL;
    nqueue = capqueue = 0;
    if (n == 0) {
        free(q);
        return TFL_OK;
    }
    /* gather each communicator's items, keeping their order */
    share *sh = calloc((size_t)n, sizeof *sh);
    pending *sorted = malloc((size_t)n * sizeof *sorted);
    int nsh = 0;
    if (!sh || !sorted) {
        free(sh);
        free(sorted);
        free(q);
        return TFL_ERR_NOMEM;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < nsh; j++)
            seen |= sh[j].comm == q[i].comm;
        if (seen)
            continue;
        sh[nsh].comm = q[i].comm;
        sh[nsh].items = &sorted[k];
        for (int j = i; j < n; j++)
            if (q[j].comm == q[i].comm)
                sorted[k++] = q[j];
        sh[nsh].n = (int)(&sorted[k] - sh[nsh].items);
        nsh++;
    }
    pthread_t *th = calloc((size_t)nsh, sizeof *th);
    int *started = calloc((size_t)nsh, sizeof *started);
    for (int i = 1; th && started && i < nsh; i++)
        started[i] = pthread_create(&th[i], NULL, run_share, &sh[i]) == 0;
    run_share(&sh[0]);
    for (int i = 1; i < nsh; i++) {
        if (started && started[i])
            pthread_join(th[i], NULL);
        else
            run_share(&sh[i]);   /* could not start a thread: may block */
    }
    tfl_status st = TFL_OK;
    for (int i = 0; i < nsh && st == TFL_OK; i++)
        if (sh[i].st != TFL_OK) {
            st = sh[i].st;
            snprintf(err, errlen, "rank %d: %s", sh[i].comm->rank, sh[i].err);
        }
    free(th);
    free(started);
    free(sh);
    free(sorted);
    free(q);
    return st;
}

/* ------------------------------------------------------- communicators */

tfl_status tfl_coll_comm_init(const unsigned char *id, int nranks, int rank, int dev,
                              tfl_rt_comm **out, char *err, size_t errlen)
{
    tfl_boot_id b;
    if (tfl_boot_id_unpack(id, &b) != 0) {
        snprintf(err, errlen, "the unique id was not made by ncclGetUniqueId");
        return TFL_ERR_INVALID;
    }
    const tfl_backend *stage;
    const tfl_backend *engine = engine_for(dev, &stage, err, errlen);
    if (!engine)
        return TFL_ERR_UNSUPPORTED;
    tfl_rt_comm *c = comm_new(dev, rank, nranks, &b, "", engine);
    if (!c)
        return TFL_ERR_NOMEM;
    c->stage = stage;
    if (group_depth > 0) {
        c->pending_init = 1;
        if (enqueue(c, P_INIT, NULL) != TFL_OK) {
            comm_free(c);
            return TFL_ERR_NOMEM;
        }
        reg_add(c);
        *out = c;
        return TFL_OK;
    }
    tfl_status st = join(c, err, errlen);
    if (st != TFL_OK) {
        comm_free(c);
        return st;
    }
    reg_add(c);
    *out = c;
    return TFL_OK;
}

tfl_status tfl_coll_comm_init_all(int ndev, const int *devs, tfl_rt_comm **out, char *err,
                                  size_t errlen)
{
    unsigned char id[TFL_COLL_ID_BYTES];
    tfl_status st = tfl_coll_unique_id(id, err, errlen);
    if (st != TFL_OK)
        return st;
    tfl_coll_group_start();
    for (int i = 0; i < ndev && st == TFL_OK; i++)
        st = tfl_coll_comm_init(id, ndev, i, devs ? devs[i] : i, &out[i], err, errlen);
    char e2[320] = "";
    tfl_status end = tfl_coll_group_end(e2, sizeof e2);
    if (st == TFL_OK && end != TFL_OK) {
        st = end;
        snprintf(err, errlen, "%s", e2);
    }
    if (st != TFL_OK)
        for (int i = 0; i < ndev; i++)
            if (out[i] && tfl_coll_comm_valid(out[i])) {
                tfl_coll_comm_destroy(out[i]);
                out[i] = NULL;
            }
    return st;
}

/* Meet the other ranks of parent under a new key path: publish (color,
 * key), read everyone's, and make this rank's part of its color's group
 * (ranks of one color ordered by key, then parent rank).  Excluded ranks
 * (shrink) publish nothing and are not waited for. */
static tfl_status regroup(tfl_rt_comm *p, int color, int key, const int *exclude,
                          int nexclude, tfl_rt_comm **out, char *err, size_t errlen)
{
    *out = NULL;
    if (atomic_load(&p->aborted) || p->pending_init) {
        snprintf(err, errlen, "the parent communicator is %s",
                 p->pending_init ? "not made yet (its group has not ended)" : "aborted");
        return TFL_ERR_INVALID;
    }
    int seq = p->nsplits++;
    char path[200];
    if (snprintf(path, sizeof path, "%.150ss%d/", p->path, seq) >= 170) {
        snprintf(err, errlen, "split: communicators split from splits too deeply");
        return TFL_ERR_INVALID;
    }
    tfl_boot_client cl;
    tfl_status st = tfl_boot_connect(&cl, &p->boot, path, timeout_ms(), err, errlen);
    if (st != TFL_OK)
        return st;
    int mine[2] = { color, key }, n = 0, rank = 0;
    char k[32];
    snprintf(k, sizeof k, "r%d", p->rank);
    st = tfl_boot_set(&cl, k, mine, sizeof mine);
    for (int r = 0; r < p->nranks && st == TFL_OK; r++) {
        int ex = 0, theirs[2];
        size_t len = 0;
        for (int i = 0; i < nexclude; i++)
            ex |= exclude[i] == r;
        if (ex)
            continue;
        snprintf(k, sizeof k, "r%d", r);
        st = tfl_boot_get(&cl, k, theirs, sizeof theirs, &len, timeout_ms());
        if (st == TFL_ERR_NOT_READY)
            snprintf(err, errlen, "split: rank %d did not arrive within nccl.timeout", r);
        if (st != TFL_OK || color < 0 || theirs[0] != color)
            continue;
        n++;
        if (r != p->rank && (theirs[1] < key || (theirs[1] == key && r < p->rank)))
            rank++;
    }
    tfl_boot_close(&cl);
    if (st != TFL_OK || color < 0)
        return st;                          /* NCCL_SPLIT_NOCOLOR: no communicator */
    size_t pl = strlen(path);
    snprintf(path + pl, sizeof path - pl, "c%d/", color);
    tfl_rt_comm *c = comm_new(p->dev, rank, n, &p->boot, path, p->engine);
    if (!c)
        return TFL_ERR_NOMEM;
    c->stage = p->stage;
    st = join(c, err, errlen);
    if (st != TFL_OK) {
        comm_free(c);
        return st;
    }
    reg_add(c);
    *out = c;
    return TFL_OK;
}

tfl_status tfl_coll_comm_split(tfl_rt_comm *parent, int color, int key, tfl_rt_comm **out,
                               char *err, size_t errlen)
{
    if (group_depth > 0) {
        /* the other ranks' splits may come later from this very thread */
        *out = NULL;
        tfl_status st = enqueue(parent, P_SPLIT, NULL);
        if (st == TFL_OK) {
            queue[nqueue - 1].color = color;
            queue[nqueue - 1].key = key;
            queue[nqueue - 1].out = out;
        }
        return st;
    }
    return regroup(parent, color, key, NULL, 0, out, err, errlen);
}

tfl_status tfl_coll_comm_shrink(tfl_rt_comm *parent, const int *exclude, int nexclude,
                                tfl_rt_comm **out, char *err, size_t errlen)
{
    int color = 0;
    for (int i = 0; i < nexclude; i++)
        if (exclude[i] == parent->rank)
            color = -1;
    return regroup(parent, color, parent->rank, exclude, nexclude, out, err, errlen);
}

tfl_status tfl_coll_comm_abort(tfl_rt_comm *c)
{
    atomic_store(&c->aborted, 1);
    if (c->bc && c->engine->comm_abort)
        c->engine->comm_abort(c->bc);
    return TFL_OK;
}

tfl_status tfl_coll_comm_destroy(tfl_rt_comm *c)
{
    reg_del(c);
    /* PyTorch's watchdog aborts and frees a communicator from its own
     * thread while another may still be inside a collective on it: the
     * abort makes that call return; wait for it before freeing */
    while (atomic_load(&c->inflight) > 0)
        usleep(1000);
    if (c->bc)
        c->engine->comm_destroy(c->bc);
    comm_free(c);
    return TFL_OK;
}

/* What each kind reads and writes, in elements of count:
 *   kind            send                   recv
 *   ALLREDUCE       count                  count
 *   BROADCAST       count (root only)      count
 *   REDUCE          count                  count (root only)
 *   ALLGATHER       count                  n * count
 *   REDUCE_SCATTER  n * count              count
 *   ALLTOALL        n * count              n * count
 *   SEND / RECV     count / -              - / count
 */
enum { X_NONE, X_COUNT, X_ALL, X_ROOT };   /* -, count, n * count, count at the root */

static const struct { unsigned char send, recv; } extents[TFL_COLL_KIND_COUNT] = {
    [TFL_COLL_ALLREDUCE] = { X_COUNT, X_COUNT },    [TFL_COLL_BROADCAST] = { X_ROOT, X_COUNT },
    [TFL_COLL_REDUCE] = { X_COUNT, X_ROOT },        [TFL_COLL_ALLGATHER] = { X_COUNT, X_ALL },
    [TFL_COLL_REDUCE_SCATTER] = { X_ALL, X_COUNT }, [TFL_COLL_ALLTOALL] = { X_ALL, X_ALL },
    [TFL_COLL_SEND] = { X_COUNT, X_NONE },          [TFL_COLL_RECV] = { X_NONE, X_COUNT },
};

static size_t extent_bytes(int how, const tfl_coll_op *o, int nranks, int rank)
{
    const size_t m = how == X_NONE || (how == X_ROOT && o->peer != rank) ? 0
                   : how == X_ALL ? (size_t)nranks : 1;
    size_t b;
    return __builtin_mul_overflow(o->count, tfl_dtype_size(o->dtype), &b) ||
                   __builtin_mul_overflow(b, m, &b) ? SIZE_MAX : b;
}

void tfl_coll_extents(const tfl_coll_op *o, int nranks, int rank, size_t *send_bytes,
                      size_t *recv_bytes)
{
    const int known = (unsigned)o->kind < TFL_COLL_KIND_COUNT;
    *send_bytes = extent_bytes(known ? extents[o->kind].send : X_NONE, o, nranks, rank);
    *recv_bytes = extent_bytes(known ? extents[o->kind].recv : X_NONE, o, nranks, rank);
}

/* --------------------------------------------------------- collectives */

tfl_status tfl_coll_run(tfl_rt_comm *c, const tfl_coll_op *op, tfl_rt_stream *s, char *err,
                        size_t errlen)
{
    (void)s;   /* synchronous model: running now is running in stream order */
    if (group_depth > 0)
        return enqueue(c, P_OP, op);
    if (c->pending_init) {
        snprintf(err, errlen, "the communicator is not made yet (its group has not ended)");
        return TFL_ERR_INVALID;
    }
    return run_ops(c, op, 1, err, errlen);
}

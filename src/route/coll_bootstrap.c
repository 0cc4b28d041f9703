/*
 * coll_bootstrap.c - NCCL's bootstrap: the unique id, the key-value store
 * server the ranks of a group meet at, its client, and which address to
 * advertise (NCCL_SOCKET_IFNAME); NCCL_DEBUG lines (to stdout or
 * NCCL_DEBUG_FILE, as NCCL writes them).
 *
 * The server is a thread in the process that made the unique id (or, with
 * NCCL_COMM_ID, in the communicator's rank 0 process): it accepts
 * connections and serves SET and blocking GET requests from a map; one
 * thread per connection (a communicator has tens of ranks, and each talks
 * to the server only while it is being made).  The engine (Gloo) uses the
 * store to exchange its own listening addresses; it never carries data.
 *
 * Wire format, all integers little-endian:
 *   request  'S' u32 klen u32 vlen key value  -> reply u8 0
 *            'G' u32 klen u32 timeout_ms key  -> reply u8 status (0 ok,
 *                                                1 timeout) u32 vlen value
 */
#define _GNU_SOURCE
#include "route/coll_internal.h"
#include "route/coll.h"
#include "common/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>

#define MAX_KEY 512
#define MAX_VALUE (16u << 20)

/* ------------------------------------------------------------ the id */

void tfl_boot_id_pack(const tfl_boot_id *b, unsigned char id[128])
{
    memset(id, 0, 128);
    memcpy(id, TFL_BOOT_MAGIC, 8);
    memcpy(id + 8, &b->ip, 4);
    memcpy(id + 12, &b->port, 2);
    id[14] = b->flags;
    memcpy(id + 16, &b->nonce, 8);
}

int tfl_boot_id_unpack(const unsigned char id[128], tfl_boot_id *b)
{
    if (memcmp(id, TFL_BOOT_MAGIC, 8) != 0)
        return -1;
    memcpy(&b->ip, id + 8, 4);
    memcpy(&b->port, id + 12, 2);
    b->flags = id[14];
    memcpy(&b->nonce, id + 16, 8);
    return b->port ? 0 : -1;
}

/* ------------------------------------------------------------ logging */

static int debug_level(void)
{
    static int level = -1;
    if (level < 0) {
        const char *e = getenv("NCCL_DEBUG");
        level = !e ? 0 : !strcasecmp(e, "WARN") ? TFL_NCCL_LOG_WARN
              : !strcasecmp(e, "INFO") ? TFL_NCCL_LOG_INFO
              : !strcasecmp(e, "TRACE") ? TFL_NCCL_LOG_TRACE : 0;
    }
    return level;
}

/* Where NCCL_DEBUG lines go: NCCL_DEBUG_FILE (%h: host name, %p: pid), as
 * NCCL opens it, else stdout, NCCL's default.  Opened once. */
static FILE *debug_out;
static char debug_host[64] = "?";       /* short host name, NCCL's line prefix */
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static void debug_open(void)
{
    const char *spec = getenv("NCCL_DEBUG_FILE");
    char *host = debug_host, path[512];
    size_t n = 0;
    gethostname(host, sizeof debug_host);
    host[sizeof debug_host - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    for (const char *p = spec; p && *p && n + 80 < sizeof path; p++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p')) {
            if (p[1] == 'h')
                n += (size_t)snprintf(path + n, sizeof path - n, "%s", host);
            else
                n += (size_t)snprintf(path + n, sizeof path - n, "%d", (int)getpid());
            p++;
        } else {
            path[n++] = *p;
        }
    }
    path[n] = '\0';
    debug_out = n ? fopen(path, "a") : NULL;
    if (!debug_out)
        debug_out = stdout;
}

void tfl_nccl_log(int level, int dev, const char *fmt, ...)
{
    if (level > debug_level())
        return;
    pthread_once(&debug_once, debug_open);
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* NCCL's own form: "host:pid:tid [dev] NCCL INFO message" */
    fprintf(debug_out, "%s:%d:%ld [%d] NCCL %s %s\n", debug_host, (int)getpid(),
            (long)syscall(SYS_gettid), dev,
            level == TFL_NCCL_LOG_WARN ? "WARN" : level == TFL_NCCL_LOG_INFO ? "INFO" : "TRACE",
            msg);
    fflush(debug_out);
}

/* ------------------------------------------------------- socket helpers */

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* All n bytes, or -1 (peer gone, error, or the deadline passed). */
static int io_all(int fd, void *buf, size_t n, int writing, int64_t deadline)
{
    char *p = buf;
    while (n) {
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            struct pollfd pf = { fd, writing ? POLLOUT : POLLIN, 0 };
            if (left <= 0 || poll(&pf, 1, (int)(left > 1000 ? 1000 : left)) < 0)
                return -1;
            if (!pf.revents)
                continue;
        }
        ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* --------------------------------------------------------------- server */

typedef struct kv {
    UT_hash_handle hh;
    char *key;
    void *val;
    uint32_t len;
} kv;

static pthread_mutex_t kv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kv_cond = PTHREAD_COND_INITIALIZER;
static kv *store;

static void kv_set(const char *key, void *val, uint32_t len)
{
    pthread_mutex_lock(&kv_lock);
    kv *e;
    HASH_FIND_STR(store, key, e);
    if (e) {
        free(e->val);
        e->val = val;
        e->len = len;
        free((void *)key);
    } else if ((e = calloc(1, sizeof *e))) {
        e->key = (char *)key;
        e->val = val;
        e->len = len;
        HASH_ADD_KEYPTR(hh, store, e->key, strlen(e->key), e);
    } else {
        free(val);
        free((void *)key);
    }
    pthread_cond_broadcast(&kv_cond);
    pthread_mutex_unlock(&kv_lock);
}

/* Wait for key until the deadline; reply on fd. */
static int kv_get_reply(int fd, const char *key, uint32_t timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&kv_lock);
    kv *e;
    for (;;) {
        HASH_FIND_STR(store, key, e);
        if (e || pthread_cond_timedwait(&kv_cond, &kv_lock, &until) == ETIMEDOUT)
            break;
    }
    if (!e)
        HASH_FIND_STR(store, key, e);
    unsigned char head[5] = { e ? 0 : 1 };
    uint32_t len = e ? e->len : 0;
    memcpy(head + 1, &len, 4);
    void *copy = len ? malloc(len) : NULL;
    if (copy)
        memcpy(copy, e->val, len);
    pthread_mutex_unlock(&kv_lock);
    int rc = (len && !copy) ? -1 : io_all(fd, head, 5, 1, -1);
    if (rc == 0 && len)
        rc = io_all(fd, copy, len, 1, -1);
    free(copy);
    return rc;
}

static void *serve_conn(void *arg)
{
    int fd = (int)(intptr_t)arg;
    for (;;) {
        unsigned char head[9];
        uint32_t klen, arg2;
        if (io_all(fd, head, 9, 0, -1) != 0)
            break;
        memcpy(&klen, head + 1, 4);
        memcpy(&arg2, head + 5, 4);
        if (klen == 0 || klen > MAX_KEY || (head[0] == 'S' && arg2 > MAX_VALUE))
            break;
        char *key = malloc(klen + 1);
        if (!key || io_all(fd, key, klen, 0, -1) != 0) {
            free(key);
            break;
        }
        key[klen] = '\0';
        if (head[0] == 'S') {
            void *val = malloc(arg2 ? arg2 : 1);
            unsigned char ok = 0;
            if (!val || io_all(fd, val, arg2, 0, -1) != 0) {
                free(val);
                free(key);
                break;
            }
            kv_set(key, val, arg2);
            if (io_all(fd, &ok, 1, 1, -1) != 0)
                break;
        } else if (head[0] == 'G') {
            int rc = kv_get_reply(fd, key, arg2);
            free(key);
            if (rc != 0)
                break;
        } else {
            free(key);
            break;
        }
    }
    close(fd);
    return NULL;
}

static void *serve(void *arg)
{
    int lfd = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        if (pthread_create(&t, NULL, serve_conn, (void *)(intptr_t)fd) == 0)
            pthread_detach(t);
        else
            close(fd);
    }
    close(lfd);
    return NULL;
}

tfl_status tfl_boot_serve(uint32_t ip, uint16_t *port, char *err, size_t errlen)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) {
        snprintf(err, errlen, "bootstrap: socket: %s", strerror(errno));
        return TFL_ERR_INTERNAL;
    }
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = *port, .sin_addr.s_addr = ip };
    socklen_t al = sizeof a;
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 128) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) != 0) {
        char ipbuf[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &ip, ipbuf, sizeof ipbuf);
        snprintf(err, errlen, "bootstrap: cannot listen on %s:%u: %s", ipbuf,
                 ntohs(*port), strerror(errno));
        close(lfd);
        return TFL_ERR_INTERNAL;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, serve, (void *)(intptr_t)lfd) != 0) {
        snprintf(err, errlen, "bootstrap: cannot start the server thread");
        close(lfd);
        return TFL_ERR_INTERNAL;
    }
    pthread_detach(t);
    *port = a.sin_port;
    return TFL_OK;
}

/* ------------------------------------------------------------ addresses */

/* Does interface name match NCCL_SOCKET_IFNAME's list ("eth,ib" prefixes;
 * "^lo,docker" excludes; "=eth0" exact)? */
static int if_matches(const char *spec, const char *name)
{
    int exclude = spec[0] == '^', exact = spec[0] == '=';
    const char *p = spec + (exclude || exact);
    int hit = 0;
    while (*p && !hit) {
        size_t n = strcspn(p, ",");
        hit = exact ? strlen(name) == n && strncmp(name, p, n) == 0
                    : n && strncmp(name, p, n) == 0;
        p += n + (p[n] == ',');
    }
    return exclude ? !hit : hit;
}

uint32_t tfl_boot_local_ip(uint32_t to)
{
    const char *spec = getenv("NCCL_SOCKET_IFNAME");
    struct ifaddrs *ifs = NULL;
    uint32_t found = 0, any = 0;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
                continue;
            uint32_t ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
            if (spec && *spec) {
                if (if_matches(spec, i->ifa_name))
                    found = ip;
            } else if (!(i->ifa_flags & IFF_LOOPBACK) && !any) {
                any = ip;
            }
        }
        freeifaddrs(ifs);
    }
    if (found)
        return found;
    if (to && !(spec && *spec)) {
        /* the address routing would use to reach the root */
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = to };
        socklen_t al = sizeof a;
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
            getsockname(fd, (struct sockaddr *)&a, &al) == 0 && a.sin_addr.s_addr) {
            close(fd);
            return a.sin_addr.s_addr;
        }
        if (fd >= 0)
            close(fd);
    }
    return any ? any : htonl(INADDR_LOOPBACK);
}

/* --------------------------------------------------------------- client */

tfl_status tfl_boot_connect(tfl_boot_client *c, const tfl_boot_id *id, const char *path,
                            int64_t timeout_ms, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    snprintf(c->prefix, sizeof c->prefix, "%016llx/%s", (unsigned long long)id->nonce,
             path ? path : "");
    uint32_t mine = tfl_boot_local_ip(id->ip);
    inet_ntop(AF_INET, &mine, c->local_addr, sizeof c->local_addr);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = id->port, .sin_addr.s_addr = id->ip };
    int64_t deadline = now_ms() + timeout_ms;
    /* the root may not listen yet (NCCL_COMM_ID: it starts with rank 0) */
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            c->fd = fd;
            return TFL_OK;
        }
        int e = errno;
        close(fd);
        if ((e != ECONNREFUSED && e != ETIMEDOUT && e != EHOSTUNREACH && e != ENETUNREACH) ||
            now_ms() >= deadline)
            break;
        usleep(50 * 1000);
    }
    char ipbuf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &id->ip, ipbuf, sizeof ipbuf);
    snprintf(err, errlen, "bootstrap: cannot reach the root at %s:%u (%s)", ipbuf,
             ntohs(id->port), strerror(errno));
    return TFL_ERR_DEVICE;
}

void tfl_boot_close(tfl_boot_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

static tfl_status request(tfl_boot_client *c, char op, const char *key, uint32_t arg2,
                          const void *val, size_t vlen)
{
    char full[MAX_KEY + 1];
    int kl = snprintf(full, sizeof full, "%s%s", c->prefix, key);
    if (kl <= 0 || kl > MAX_KEY || c->fd < 0)
        return TFL_ERR_INVALID;
    unsigned char head[9] = { (unsigned char)op };
    uint32_t klen = (uint32_t)kl;
    memcpy(head + 1, &klen, 4);
    memcpy(head + 5, &arg2, 4);
    if (io_all(c->fd, head, 9, 1, -1) != 0 || io_all(c->fd, full, klen, 1, -1) != 0 ||
        (vlen && io_all(c->fd, (void *)val, vlen, 1, -1) != 0))
        return TFL_ERR_DEVICE;
    return TFL_OK;
}

tfl_status tfl_boot_set(tfl_boot_client *c, const char *key, const void *val, size_t len)
{
    if (len > MAX_VALUE)
        return TFL_ERR_INVALID;
    unsigned char ok = 1;
    tfl_status st = request(c, 'S', key, (uint32_t)len, val, len);
    if (st == TFL_OK && (io_all(c->fd, &ok, 1, 0, -1) != 0 || ok != 0))
        st = TFL_ERR_DEVICE;
    return st;
}

tfl_status tfl_boot_get(tfl_boot_client *c, const char *key, void *buf, size_t cap,
                        size_t *len, int64_t timeout_ms)
{
    uint32_t t = timeout_ms < 0 ? 0 : timeout_ms > 0x7fffffff ? 0x7fffffff : (uint32_t)timeout_ms;
    tfl_status st = request(c, 'G', key, t, NULL, 0);
    unsigned char head[5];
    /* the server answers by the deadline; allow it a little more */
    if (st == TFL_OK && io_all(c->fd, head, 5, 0, now_ms() + (int64_t)t + 10000) != 0)
        st = TFL_ERR_DEVICE;
    if (st != TFL_OK)
        return st;
    uint32_t n;
    memcpy(&n, head + 1, 4);
    if (head[0] == 1)
        return TFL_ERR_NOT_READY;
    char *tmp = malloc(n ? n : 1);
    if (!tmp || io_all(c->fd, tmp, n, 0, -1) != 0) {
        free(tmp);
        return TFL_ERR_DEVICE;
    }
    if (n > cap) {
        free(tmp);
        return TFL_ERR_INVALID;
    }
    memcpy(buf, tmp, n);
    free(tmp);
    *len = n;
    return TFL_OK;
}

static tfl_status store_set(void *ctx, const char *key, const void *val, size_t len)
{
    return tfl_boot_set(ctx, key, val, len);
}

static tfl_status store_get(void *ctx, const char *key, void *buf, size_t cap, size_t *len,
                            int64_t timeout_ms)
{
    return tfl_boot_get(ctx, key, buf, cap, len, timeout_ms);
}

tfl_coll_store tfl_boot_store(tfl_boot_client *c)
{
    tfl_coll_store s = { .ctx = c, .local_addr = c->local_addr, .set = store_set,
                         .get = store_get };
    return s;
}

/* ------------------------------------------------------------ unique id */

/* NCCL_COMM_ID "host:port" -> address; 0 if unset, -1 if malformed. */
static int comm_id_env(uint32_t *ip, uint16_t *port)
{
    const char *e = getenv("NCCL_COMM_ID");
    if (!e || !*e)
        return 0;
    char host[256];
    const char *colon = strrchr(e, ':');
    if (!colon || colon == e || (size_t)(colon - e) >= sizeof host)
        return -1;
    memcpy(host, e, (size_t)(colon - e));
    host[colon - e] = '\0';
    long p = strtol(colon + 1, NULL, 10);
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
    if (p <= 0 || p > 65535 || getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return -1;
    *ip = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
    *port = htons((uint16_t)p);
    freeaddrinfo(res);
    return 1;
}

tfl_status tfl_coll_unique_id(unsigned char id[TFL_COLL_ID_BYTES], char *err, size_t errlen)
{
    tfl_boot_id b = { 0 };
    FILE *r = fopen("/dev/urandom", "rb");
    if (!r || fread(&b.nonce, sizeof b.nonce, 1, r) != 1)
        b.nonce = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 32);
    if (r)
        fclose(r);
    int env = comm_id_env(&b.ip, &b.port);
    if (env < 0) {
        snprintf(err, errlen, "NCCL_COMM_ID=\"%s\" is not host:port", getenv("NCCL_COMM_ID"));
        return TFL_ERR_INVALID;
    }
    if (env) {
        b.flags = TFL_BOOT_SERVER_AT_RANK0;      /* the communicator's rank 0 serves */
        b.nonce = 0;                             /* every process makes the same id */
    } else {
        b.ip = tfl_boot_local_ip(0);
        b.port = 0;
        tfl_status st = tfl_boot_serve(htonl(INADDR_ANY), &b.port, err, errlen);
        if (st != TFL_OK)
            return st;
    }
    tfl_boot_id_pack(&b, id);
    char ipbuf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &b.ip, ipbuf, sizeof ipbuf);
    tfl_nccl_log(TFL_NCCL_LOG_INFO, -1, "Bootstrap: using %s:%u%s", ipbuf, ntohs(b.port),
                 env ? " (NCCL_COMM_ID)" : "");
    return TFL_OK;
}

/*
 * coll_internal.h - what coll.c and coll_bootstrap.c share: the unique id
 * layout and the bootstrap client.
 *
 * A unique id (128 bytes, NCCL's ncclUniqueId) names the bootstrap server:
 *   0  "TFLNCCL1" magic       8  IPv4 address (network order)
 *   12 port (network order)   14 flags (1: the server is started by the
 *   rank 0 process - NCCL_COMM_ID)   16 nonce (64-bit, random)
 * the rest zero.  Keys in the server's store are prefixed with the nonce
 * and the communicator's path ("<nonce>/", "<nonce>/s3c1/" for a split),
 * so one server serves a communicator and every split of it.
 */
#ifndef TFL_ROUTE_COLL_INTERNAL_H
#define TFL_ROUTE_COLL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "torchfl/backend.h"

#define TFL_BOOT_MAGIC "TFLNCCL1"
#define TFL_BOOT_SERVER_AT_RANK0 1

typedef struct tfl_boot_id {
    uint32_t ip;        /* network order */
    uint16_t port;      /* network order */
    uint8_t flags;
    uint64_t nonce;
} tfl_boot_id;

void tfl_boot_id_pack(const tfl_boot_id *b, unsigned char id[128]);
int tfl_boot_id_unpack(const unsigned char id[128], tfl_boot_id *b);

/* Start a server on ip:port (network order; port 0: any), once per
 * address; *port gets the bound port. */
tfl_status tfl_boot_serve(uint32_t ip, uint16_t *port, char *err, size_t errlen);

/* The address this host advertises / binds engines to: NCCL_SOCKET_IFNAME's
 * first matching interface, else (toward `to`, 0 for none) the address
 * routing picks, else the first non-loopback interface, else loopback. */
uint32_t tfl_boot_local_ip(uint32_t to);

/* A connection to a bootstrap server, for one communicator's keys. */
typedef struct tfl_boot_client {
    int fd;
    char prefix[128];
    char local_addr[64];      /* numeric IP for the engine to listen on   */
} tfl_boot_client;

tfl_status tfl_boot_connect(tfl_boot_client *c, const tfl_boot_id *id, const char *path,
                            int64_t timeout_ms, char *err, size_t errlen);
void tfl_boot_close(tfl_boot_client *c);
tfl_status tfl_boot_set(tfl_boot_client *c, const char *key, const void *val, size_t len);
tfl_status tfl_boot_get(tfl_boot_client *c, const char *key, void *buf, size_t cap,
                        size_t *len, int64_t timeout_ms);
/* The client as the tfl_coll_store an engine sees. */
tfl_coll_store tfl_boot_store(tfl_boot_client *c);

/* Run ops for a comm of engine `engine` whose operands are device memory
 * of backend `dev`, which the host cannot read: through host copies
 * (coll_stage.c). */
tfl_status tfl_coll_stage_run(const tfl_backend *dev, const tfl_backend *engine, tfl_comm bc,
                              int nranks, int rank, const tfl_coll_op *ops, int n, char *err,
                              size_t errlen);

#endif

/*
 * coll_stage.c - collectives of a backend whose device memory the host
 * cannot read (and that brings no collective engine of its own), run on
 * the host engine through host copies of the operands.
 *
 * Each op's device ranges are copied to host buffers with the device
 * backend's memcpy, the host engine runs the ops on those, and the
 * results are copied back; what each op reads and writes is
 * tfl_coll_extents (coll.c).
 * A send range inside the recv range (NCCL's in-place forms: same
 * pointer, or allgather's send = recv + rank * count) is read from the
 * staged recv buffer, which is then first filled from the device.  The
 * host engine's sends copy their data (coll_gloo.h), so the staged
 * buffers are freed when the call returns.
 */
#include "route/coll.h"
#include "route/coll_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct staged {
    void *recv_host, *send_host;   /* send_host: own buffer, or NULL    */
    size_t recv_bytes, send_bytes;
} staged;

static int inside(const void *p, size_t n, const void *base, size_t len)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    return n && len && a >= b && a - b <= len && n <= len - (a - b);
}

static void release(staged *st, int n)
{
    for (int i = 0; i < n; i++) {
        free(st[i].recv_host);
        free(st[i].send_host);
    }
    free(st);
}

tfl_status tfl_coll_stage_run(const tfl_backend *dev, const tfl_backend *engine, tfl_comm bc,
                              int nranks, int rank, const tfl_coll_op *ops, int n, char *err,
                              size_t errlen)
{
    staged *st = calloc((size_t)n, sizeof *st);
    tfl_coll_op *hops = calloc((size_t)n, sizeof *hops);
    tfl_status rc = st && hops ? TFL_OK : TFL_ERR_NOMEM;
    for (int i = 0; i < n && rc == TFL_OK; i++) {
        const tfl_coll_op *o = &ops[i];
        staged *s = &st[i];
        hops[i] = *o;
        tfl_coll_extents(o, nranks, rank, &s->send_bytes, &s->recv_bytes);
        const int in_place = inside(o->send, s->send_bytes, o->recv, s->recv_bytes);
        if (s->recv_bytes) {
            s->recv_host = malloc(s->recv_bytes);
            if (!s->recv_host)
                rc = TFL_ERR_NOMEM;
            else if (in_place)
                rc = dev->memcpy(s->recv_host, o->recv, s->recv_bytes, TFL_COPY_D2H, NULL);
            hops[i].recv = s->recv_host;
        }
        if (rc == TFL_OK && s->send_bytes && in_place) {
            hops[i].send = (char *)s->recv_host + ((uintptr_t)o->send - (uintptr_t)o->recv);
        } else if (rc == TFL_OK && s->send_bytes) {
            s->send_host = malloc(s->send_bytes);
            rc = s->send_host ? dev->memcpy(s->send_host, o->send, s->send_bytes, TFL_COPY_D2H,
                                            NULL)
                              : TFL_ERR_NOMEM;
            hops[i].send = s->send_host;
        } else if (!s->send_bytes) {
            hops[i].send = NULL;
        }
    }
    if (rc != TFL_OK)
        snprintf(err, errlen, "staging collective operands through host memory failed (%d)",
                 (int)rc);
    else
        rc = engine->coll_run(bc, hops, n, NULL, err, errlen);
    for (int i = 0; i < n && rc == TFL_OK; i++)
        if (st[i].recv_bytes) {
            rc = dev->memcpy(ops[i].recv, st[i].recv_host, st[i].recv_bytes, TFL_COPY_H2D, NULL);
            if (rc != TFL_OK)
                snprintf(err, errlen, "copying a collective's result to the device failed (%d)",
                         (int)rc);
        }
    if (st)
        release(st, n);
    free(hops);
    return rc;
}

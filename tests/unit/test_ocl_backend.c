/*
 * test_ocl_backend.c - the OpenCL backend's device model, through its
 * tfl_backend table as torchfl calls it: device memory is no host memory,
 * copies in every direction, memset, bad ranges refused, streams as
 * in-order queues, events with device times, cross-stream waits, queries
 * while work is pending, and a device fault that is sticky.
 */
#define _GNU_SOURCE
#include "ocl_harness.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf jump;
static void on_segv(int sig) { (void)sig; siglongjmp(jump, 1); }

/* A host read of a device address must fault, not return bytes. */
static void device_memory_is_not_host_memory(void)
{
    char *d = ocl_h_alloc(4096);
    char b = 'x';
    ocl_h_put(d, &b, 1);
    struct sigaction sa = { .sa_handler = on_segv }, old;
    sigaction(SIGSEGV, &sa, &old);
    volatile int faulted = 0;
    if (sigsetjmp(jump, 1) == 0)
        (void)*(volatile char *)d;
    else
        faulted = 1;
    sigaction(SIGSEGV, &old, NULL);
    OCL_H_CHECK(faulted);
    OCL_H_CHECK(ocl_h->host_addressable(0) == 0);
    ocl_h_free(d, 4096);
}

static void copies_and_sets(void)
{
    enum { N = 1 << 20 };
    unsigned char *h = malloc(N), *back = malloc(N);
    for (int i = 0; i < N; i++)
        h[i] = (unsigned char)(i * 7 + 3);
    unsigned char *a = ocl_h_dev(h, N), *b = ocl_h_alloc(N);
    /* D2D at offsets, then back */
    OCL_H_CHECK(ocl_h->memcpy(b + 100, a + 50, N - 200, TFL_COPY_D2D, NULL) == TFL_OK);
    OCL_H_CHECK(ocl_h->memset(b, 0xAB, 100, NULL) == TFL_OK);
    ocl_h_get(back, b, N - 100);
    int bad = 0;
    for (int i = 0; i < 100; i++)
        bad += back[i] != 0xAB;
    for (int i = 100; i < N - 100; i++)
        bad += back[i] != h[i - 50];
    OCL_H_CHECK(bad == 0);
    /* overlapping copy inside one buffer behaves as memmove */
    OCL_H_CHECK(ocl_h->memcpy(a + 1, a, 1000, TFL_COPY_D2D, NULL) == TFL_OK);
    ocl_h_get(back, a, 1001);
    bad = back[0] != h[0];
    for (int i = 1; i < 1001; i++)
        bad += back[i] != h[i - 1];
    OCL_H_CHECK(bad == 0);
    /* out of range and foreign pointers: refused, nothing written */
    OCL_H_CHECK(ocl_h->memcpy(a + N - 10, h, 4096 + 11, TFL_COPY_H2D, NULL) == TFL_ERR_INVALID);
    OCL_H_CHECK(ocl_h->memcpy(h, back, 16, TFL_COPY_D2H, NULL) == TFL_ERR_INVALID);
    OCL_H_CHECK(ocl_h->memset(back, 0, 16, NULL) == TFL_ERR_INVALID);
    ocl_h_free(a, N);
    ocl_h_free(b, N);
    free(h);
    free(back);
}

/* Enough background work that a query right after it sees it pending. */
static void busy(void *buf, size_t n, tfl_stream s, int reps)
{
    for (int i = 0; i < reps; i++)
        ocl_h->memset(buf, i, n, s);
}

static void streams_events_waits(void)
{
    size_t n = 256u << 20;
    void *big = ocl_h_alloc(n), *x = ocl_h_alloc(4096), *y = ocl_h_alloc(4096);
    tfl_stream s1, s2;
    OCL_H_CHECK(ocl_h->stream_create(0, &s1) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_create(0, &s2) == TFL_OK);
    tfl_event e0, e1, never;
    OCL_H_CHECK(ocl_h->event_create(0, &e0) == TFL_OK);
    OCL_H_CHECK(ocl_h->event_create(0, &e1) == TFL_OK);
    OCL_H_CHECK(ocl_h->event_create(0, &never) == TFL_OK);
    /* s1: mark, lots of work, write x = 7, mark */
    OCL_H_CHECK(ocl_h->event_record(e0, s1) == TFL_OK);
    busy(big, n, s1, 8);
    OCL_H_CHECK(ocl_h->memset(x, 7, 4096, s1) == TFL_OK);
    OCL_H_CHECK(ocl_h->event_record(e1, s1) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_query(s1) == TFL_ERR_NOT_READY);
    OCL_H_CHECK(ocl_h->event_query(e1) == TFL_ERR_NOT_READY);
    float ms = -1;
    OCL_H_CHECK(ocl_h->event_elapsed(e0, e1, &ms) == TFL_ERR_NOT_READY);
    /* s2 waits for e1, then copies x to y: it must see 7 */
    OCL_H_CHECK(ocl_h->stream_wait_event(s2, e1) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_wait_event(s2, never) == TFL_OK);   /* no-op */
    OCL_H_CHECK(ocl_h->memcpy(y, x, 4096, TFL_COPY_D2D, s2) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_sync(s2) == TFL_OK);
    OCL_H_CHECK(ocl_h->event_query(e1) == TFL_OK);   /* s2's wait implies it */
    unsigned char got[4096];
    ocl_h_get(got, y, sizeof got);
    int bad = 0;
    for (size_t i = 0; i < sizeof got; i++)
        bad += got[i] != 7;
    OCL_H_CHECK(bad == 0);
    OCL_H_CHECK(ocl_h->event_sync(e1) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_query(s1) == TFL_OK);
    OCL_H_CHECK(ocl_h->event_elapsed(e0, e1, &ms) == TFL_OK && ms > 0.0f);
    OCL_H_CHECK(ocl_h->event_query(never) == TFL_OK);   /* never recorded: done */
    OCL_H_CHECK(ocl_h->device_sync(0) == TFL_OK);
    ocl_h->event_destroy(e0);
    ocl_h->event_destroy(e1);
    ocl_h->event_destroy(never);
    OCL_H_CHECK(ocl_h->stream_destroy(s1) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_destroy(s2) == TFL_OK);
    ocl_h_free(big, n);
    ocl_h_free(x, 4096);
    ocl_h_free(y, 4096);
}

/* An injected background fault (opencl.inject_fault, the first op) shows
 * at the next sync, not at issue, and stays. */
static void sticky_fault(void)
{
    float one = 1.0f;
    float *d = ocl_h_dev(&one, sizeof one);
    tfl_op op = { .kind = TFL_OP_ELEMENTWISE, .name = "test" };
    tfl_elementwise_op *e = &op.u.elementwise;
    e->code = TFL_EW_NEG;
    e->compute = TFL_DT_F32;
    e->ninputs = 1;
    e->ndim = 1;
    e->shape[0] = 1;
    e->operand[0].dtype = e->operand[1].dtype = TFL_DT_F32;
    e->operand[0].data = e->operand[1].data = d;
    e->operand[0].strides[0] = e->operand[1].strides[0] = 4;
    /* issue succeeds even though the op will fail */
    OCL_H_CHECK(ocl_h->op_run(&op, NULL) == TFL_OK);
    OCL_H_CHECK(ocl_h->stream_sync(NULL) == TFL_ERR_DEVICE);
    OCL_H_CHECK(ocl_h->stream_query(NULL) == TFL_ERR_DEVICE);
    OCL_H_CHECK(ocl_h->device_sync(0) == TFL_ERR_DEVICE);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "fault") == 0) {
        /* a process of its own: the device stays in error afterwards */
        ocl_h_init();
        sticky_fault();
        return ocl_h_finish("test_ocl_backend fault");
    }
    ocl_h_init();
    device_memory_is_not_host_memory();
    copies_and_sets();
    streams_events_waits();
    /* read at init: opencl.inject_fault = 1, the first op fails */
    setenv("OCL_H_INJECT", "1", 1);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], "fault", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    OCL_H_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return ocl_h_finish("test_ocl_backend");
}

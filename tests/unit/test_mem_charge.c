/*
 * test_mem_charge.c - memory held outside the pool (tfl_mem_charge, used
 * by the driver's cuMemCreate) shares the pool's limit both ways, and
 * charging trims the cache before it fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mem/mem.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", \
    __FILE__, __LINE__, #c); failures++; } } while (0)

#define MiB ((size_t)1 << 20)

int main(void)
{
    tfl_mem_configure(NULL, 16 * MiB);
    tfl_mem_stats st;

    CHECK(tfl_mem_charge(0) == TFL_OK);
    CHECK(tfl_mem_charge(10 * MiB) == TFL_OK);
    tfl_mem_get_stats(&st);
    CHECK(st.reserved == 10 * MiB && st.current == 0);
    /* the pool sees the charge */
    void *p = NULL;
    CHECK(tfl_mem_alloc(8 * MiB, TFL_MEM_DEVICE, 0, 0, &p) == TFL_ERR_NOMEM);
    CHECK(tfl_mem_alloc(4 * MiB, TFL_MEM_DEVICE, 0, 0, &p) == TFL_OK);
    /* and the charge sees the pool */
    CHECK(tfl_mem_charge(4 * MiB) == TFL_ERR_NOMEM);
    CHECK(tfl_mem_charge(2 * MiB) == TFL_OK);
    tfl_mem_uncharge(2 * MiB);
    /* a freed block stays cached; charging trims it rather than fail */
    CHECK(tfl_mem_free(p, 1u << TFL_MEM_DEVICE) == TFL_OK);
    CHECK(tfl_mem_charge(6 * MiB) == TFL_OK);
    tfl_mem_get_stats(&st);
    CHECK(st.reserved == 16 * MiB && st.cached == 0);
    CHECK(tfl_mem_charge(1) == TFL_ERR_NOMEM);
    tfl_mem_uncharge(16 * MiB);
    tfl_mem_get_stats(&st);
    CHECK(st.reserved == 0);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}

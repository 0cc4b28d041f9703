/*
 * charge.c - device memory torchfl holds outside the pool, counted against
 * the pool's limit.
 *
 * The driver's virtual memory API (cuMemCreate) backs physical allocations
 * with memfds, not pool blocks.  They must still count against
 * TORCH_FL_MEM_POOL_SIZE, in both directions: a cuMemCreate must fail when
 * the pool fills the limit, and a cudaMalloc must fail when VMM memory
 * does.  So they are charged to the same "reserved" counter pool segments
 * use, with the same trim-and-retry on failure.
 */
#include "mem/mem_internal.h"

tfl_status tfl_mem_charge(size_t n)
{
    if (n == 0)
        return TFL_OK;
    if (tfl_stats_reserve(n) == 0)
        return TFL_OK;
    /* over the limit: give the cache back, as the pool does, and retry */
    tfl_pool_trim_device();
    return tfl_stats_reserve(n) == 0 ? TFL_OK : TFL_ERR_NOMEM;
}

void tfl_mem_uncharge(size_t n)
{
    if (n)
        tfl_stats_unreserve(n);
}

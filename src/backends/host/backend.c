/*
 * backend.c - the host backend's table: the CPU as a CUDA device.
 *
 * Device memory is ordinary host memory (anonymous mmap), so the host
 * executor and OpenBLAS read it directly and copies are memmove.  The
 * host backend is always available and has the lowest priority: `auto`
 * picks it only when no plugin is ready.
 */
#include "backends/host/host_ops.h"
#include "backends/host/host_info.h"
#include "backends/host/coll_gloo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int host_probe(char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    return 1;
}

static tfl_status host_init(const tfl_host_api *host)
{
    /* host.blas_threads: OpenBLAS's own thread count; 0 or unset = one,
     * with GEMMs split over the host pool (gemm_par.c) */
    const char *v = host && host->config ? host->config("host.blas_threads") : NULL;
    host_blas_set_threads(v ? atoi(v) : 0);
    return TFL_OK;
}

static void host_fini(void) {}

static int host_device_count(void) { return 1; }

static tfl_status host_device_info(int dev, tfl_device_info *out)
{
    if (dev < 0 || !out)
        return TFL_ERR_INVALID;
    host_cpu_describe(out);
    return TFL_OK;
}

static tfl_status host_mem_alloc(int dev, size_t size, void **ptr)
{
    (void)dev;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return TFL_ERR_NOMEM;
    *ptr = p;
    return TFL_OK;
}

static tfl_status host_mem_free(int dev, void *ptr, size_t size)
{
    (void)dev;
    return munmap(ptr, size) == 0 ? TFL_OK : TFL_ERR_INVALID;
}

static tfl_status host_memcpy(void *dst, const void *src, size_t n,
                              tfl_copy_dir dir, tfl_stream s)
{
    (void)dir; (void)s;
    memmove(dst, src, n);
    return TFL_OK;
}

static tfl_status host_memset(void *dst, int value, size_t n, tfl_stream s)
{
    (void)s;
    memset(dst, value, n);
    return TFL_OK;
}

static int host_addressable(int dev) { (void)dev; return 1; }

/* Work runs synchronously in issue order (see src/route/runtime.h), so a
 * host stream carries no state: handles only need to be distinct. */
static tfl_status host_stream_create(int dev, tfl_stream *out)
{
    (void)dev;
    *out = NULL;
    return TFL_OK;
}

static tfl_status host_stream_noop(tfl_stream s)
{
    (void)s;
    return TFL_OK;
}

static int host_op_supported(const tfl_op *op)
{
    switch (op->kind) {
    case TFL_OP_GEMM:
        return host_gemm_supported(&op->u.gemm);
    case TFL_OP_ELEMENTWISE:
        return host_elementwise_supported(&op->u.elementwise);
    case TFL_OP_REDUCE:
        return host_reduce_supported(&op->u.reduce);
    case TFL_OP_SOFTMAX:
        return host_softmax_supported(&op->u.softmax);
    case TFL_OP_LOSS:
        return host_loss_supported(&op->u.loss);
    case TFL_OP_EMBEDDING:
        return host_embedding_supported(&op->u.embedding);
    case TFL_OP_NORM:
        return host_norm_supported(&op->u.norm);
    case TFL_OP_RANDOM:
        return host_random_supported(&op->u.random);
    case TFL_OP_FOREACH:
        return host_foreach_supported(&op->u.foreach);
    case TFL_OP_INDEX:
        return host_index_supported(&op->u.index);
    case TFL_OP_ATTENTION:
        return host_attention_supported(&op->u.attention);
    case TFL_OP_BLAS:
        return host_blas_supported(&op->u.blas);
    case TFL_OP_SCAN:
        return host_scan_supported(&op->u.scan);
    case TFL_OP_SORT:
        return host_sort_supported(&op->u.sort);
    case TFL_OP_BATCHNORM:
        return host_batchnorm_supported(&op->u.batchnorm);
    case TFL_OP_BUCKET:
        return host_bucket_supported(&op->u.bucket);
    case TFL_OP_DISTANCE:
        return host_distance_supported(&op->u.distance);
    case TFL_OP_CONV:
        return host_conv_supported(&op->u.conv);
    case TFL_OP_SPATIAL:
        return host_spatial_supported(&op->u.spatial);
    case TFL_OP_MISC:
        return host_misc_supported(&op->u.misc);
    case TFL_OP_SHAPE:
        return host_shape_supported(&op->u.shape);
    case TFL_OP_RNN:
        return host_rnn_supported(&op->u.rnn);
    case TFL_OP_FFT:
        return host_fft_supported(&op->u.fft);
    case TFL_OP_SPARSE:
        return host_sparse_supported(&op->u.sparse);
    default:
        return 0;
    }
}

static tfl_status host_op_run(const tfl_op *op, tfl_stream s)
{
    (void)s;
    switch (op->kind) {
    case TFL_OP_GEMM:
        return host_gemm(&op->u.gemm);
    case TFL_OP_ELEMENTWISE:
        return host_elementwise(&op->u.elementwise);
    case TFL_OP_REDUCE:
        return host_reduce(&op->u.reduce);
    case TFL_OP_SOFTMAX:
        return host_softmax(&op->u.softmax);
    case TFL_OP_LOSS:
        return host_loss(&op->u.loss);
    case TFL_OP_EMBEDDING:
        return host_embedding(&op->u.embedding);
    case TFL_OP_NORM:
        return host_norm(&op->u.norm);
    case TFL_OP_RANDOM:
        return host_random(&op->u.random);
    case TFL_OP_FOREACH:
        return host_foreach(&op->u.foreach);
    case TFL_OP_INDEX:
        return host_index(&op->u.index);
    case TFL_OP_ATTENTION:
        return host_attention(&op->u.attention);
    case TFL_OP_BLAS:
        return host_blas(&op->u.blas);
    case TFL_OP_SCAN:
        return host_scan(&op->u.scan);
    case TFL_OP_SORT:
        return host_sort(&op->u.sort);
    case TFL_OP_BATCHNORM:
        return host_batchnorm(&op->u.batchnorm);
    case TFL_OP_BUCKET:
        return host_bucket(&op->u.bucket);
    case TFL_OP_DISTANCE:
        return host_distance(&op->u.distance);
    case TFL_OP_CONV:
        return host_conv(&op->u.conv);
    case TFL_OP_SPATIAL:
        return host_spatial(&op->u.spatial);
    case TFL_OP_MISC:
        return host_misc(&op->u.misc);
    case TFL_OP_SHAPE:
        return host_shape(&op->u.shape);
    case TFL_OP_RNN:
        return host_rnn(&op->u.rnn);
    case TFL_OP_FFT:
        return host_fft(&op->u.fft);
    case TFL_OP_SPARSE:
        return host_sparse(&op->u.sparse);
    default:
        return TFL_ERR_UNSUPPORTED;
    }
}

const tfl_backend tfl_host_backend = {
    .abi_version = TFL_BACKEND_ABI_VERSION,
    .struct_size = sizeof(tfl_backend),
    .name = "host",
    .priority = 0,
    .probe = host_probe,
    .init = host_init,
    .fini = host_fini,
    .device_count = host_device_count,
    .device_info = host_device_info,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .memcpy = host_memcpy,
    .memset = host_memset,
    .host_addressable = host_addressable,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_noop,
    .stream_sync = host_stream_noop,
    .stream_query = host_stream_noop,
    .op_supported = host_op_supported,
    .op_run = host_op_run,
    .comm_create = hcoll_comm_create,
    .comm_destroy = hcoll_comm_destroy,
    .comm_abort = hcoll_comm_abort,
    .coll_run = hcoll_coll_run,
    .comm_error = hcoll_comm_error,
};

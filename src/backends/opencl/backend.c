/*
 * backend.c - libtorchfl-opencl.so: the tfl_backend table of the OpenCL
 * backend, loaded by torchfl like any vendor's plugin.
 *
 * Priority: FL_BACKEND=auto should prefer an OpenCL GPU to the host, and
 * the host to an OpenCL CPU device (PoCL: the host backend is faster on
 * the same cores).  The entry function looks at the device types once and
 * sets the priority accordingly (negative = below the host).
 */
#include "backends/opencl/ocl.h"

#include <stdio.h>
#include <string.h>

static int ocl_probe(char *why, size_t why_len)
{
    cl_platform_id p;
    cl_device_id d;
    cl_device_type t;
    char w[256] = "";
    if (ocl_pick(&p, &d, &t, w, sizeof w))
        return 1;
    if (why && why_len)
        snprintf(why, why_len, "%s", w);
    return 0;
}

static tfl_status ocl_init(const tfl_host_api *host)
{
    ocl_host = host;
    tfl_status st = ocl_device_open();
    if (st == TFL_OK)
        st = ocl_queue_init();
    return st;
}

static void ocl_fini(void)
{
    ocl_queue_fini();
    ocl_program_fini();
    ocl_mem_fini();
    ocl_device_close();
}

static int ocl_device_count(void)
{
    return ocl_dev() ? 1 : 0;
}

static tfl_status ocl_device_info(int dev, tfl_device_info *out)
{
    const ocl_device *d = ocl_dev();
    if (!d || dev != 0 || !out)
        return TFL_ERR_INVALID;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "torchfl opencl (%.200s)", d->name);
    out->total_mem = d->global_mem;
    out->multiprocessors = (int)d->compute_units;
    cl_uint mhz = 0;
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    out->clock_khz = (int)mhz * 1000;
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(d->id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    out->integrated = unified == CL_TRUE;
    /* a stable id from the device and platform names */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = d->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    for (const char *c = d->platform_name; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    memcpy(out->uuid, &h, sizeof h);
    memcpy(out->uuid + 8, "OpenCL\0\0", 8);
    return TFL_OK;
}

static int ocl_host_addressable(int dev)
{
    (void)dev;
    return 0;
}

/* Which op file runs each op kind (ocl.h); kinds not listed run on the
 * host backend through torchfl's fallback. */
static const struct op_file {
    tfl_op_kind kind;
    int (*supported)(const tfl_op *op);
    tfl_status (*run)(const tfl_op *op, tfl_stream s);
} op_files[] = {
    { TFL_OP_GEMM, ocl_gemm_supported, ocl_gemm_run },
    { TFL_OP_ELEMENTWISE, ocl_ew_supported, ocl_ew_run },
    { TFL_OP_REDUCE, ocl_reduce_supported, ocl_reduce_run },
    { TFL_OP_SOFTMAX, ocl_softmax_supported, ocl_softmax_run },
    { TFL_OP_NORM, ocl_norm_supported, ocl_norm_run },
    { TFL_OP_LOSS, ocl_loss_supported, ocl_loss_run },
    { TFL_OP_EMBEDDING, ocl_embedding_supported, ocl_embedding_run },
    { TFL_OP_RANDOM, ocl_random_supported, ocl_random_run },
    { TFL_OP_FOREACH, ocl_foreach_supported, ocl_foreach_run },
    { TFL_OP_INDEX, ocl_index_supported, ocl_index_run },
    { TFL_OP_CONV, ocl_conv_supported, ocl_conv_run },
    { TFL_OP_BATCHNORM, ocl_batchnorm_supported, ocl_batchnorm_run },
    { TFL_OP_SPATIAL, ocl_spatial_supported, ocl_spatial_run },
    { TFL_OP_ATTENTION, ocl_attention_supported, ocl_attention_run },
};

static const struct op_file *op_file_of(const tfl_op *op)
{
    for (size_t i = 0; i < sizeof op_files / sizeof op_files[0]; i++)
        if (op_files[i].kind == op->kind)
            return &op_files[i];
    return NULL;
}

static int ocl_op_supported(const tfl_op *op)
{
    const struct op_file *f = op && ocl_dev() ? op_file_of(op) : NULL;
    return f && f->supported(op);
}

static tfl_status ocl_op_run(const tfl_op *op, tfl_stream s)
{
    const struct op_file *f = op_file_of(op);
    if (!f)
        return TFL_ERR_UNSUPPORTED;
    ocl_inject_fault(s);
    return f->run(op, s);
}

static tfl_backend table = {
    .abi_version = TFL_BACKEND_ABI_VERSION,
    .struct_size = sizeof(tfl_backend),
    .name = "opencl",
    .priority = 100,
    .probe = ocl_probe,
    .init = ocl_init,
    .fini = ocl_fini,
    .device_count = ocl_device_count,
    .device_info = ocl_device_info,
    .mem_alloc = ocl_mem_alloc,
    .mem_free = ocl_mem_free,
    .memcpy = ocl_memcpy,
    .memset = ocl_memset,
    .host_addressable = ocl_host_addressable,
    .stream_create = ocl_stream_create,
    .stream_destroy = ocl_stream_destroy,
    .stream_sync = ocl_stream_sync,
    .stream_query = ocl_stream_query,
    .op_supported = ocl_op_supported,
    .op_run = ocl_op_run,
    .event_create = ocl_event_create,
    .event_destroy = ocl_event_destroy,
    .event_record = ocl_event_record,
    .event_query = ocl_event_query,
    .event_sync = ocl_event_sync,
    .event_elapsed = ocl_event_elapsed,
    .stream_wait_event = ocl_stream_wait_event,
    .device_sync = ocl_device_sync,
};

__attribute__((visibility("default")))
const tfl_backend *torchfl_backend_entry(uint32_t torchfl_abi)
{
    if (torchfl_abi < TFL_BACKEND_ABI_VERSION)
        return NULL;
    cl_platform_id p;
    cl_device_id d;
    cl_device_type t = 0;
    char why[256];
    /* only a GPU or accelerator outranks the host backend */
    if (ocl_pick(&p, &d, &t, why, sizeof why))
        table.priority = (t & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) ? 100 : -1;
    return &table;
}

/*
 * cli.h - what the parts of the `torchfl` command share.
 *
 * Each subcommand is one file (detect.c, run.c, config_cmd.c, stats.c);
 * each chip probe is one file (probe_*.c) that fills a cli_probe without
 * any link-time dependency on a vendor library: everything is dlopen'ed,
 * so `torchfl detect` runs on a machine with none of them.
 */
#ifndef TFL_CLI_H
#define TFL_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_MAX_CHIPS 16

typedef struct cli_chip {
    char name[256];
    uint64_t memory;          /* bytes; 0 = unknown                    */
    char detail[256];         /* platform, compute units, ...          */
} cli_chip;

/* What one probe found about one kind of chip and its runtime. */
typedef struct cli_probe {
    const char *name;         /* backend/plugin name it maps to        */
    const char *label;        /* "NVIDIA CUDA", "OpenCL", ...          */
    int found;                /* the runtime/driver library loads      */
    char library[512];        /* the file that was loaded              */
    char version[256];        /* runtime or driver version, "" unknown */
    int devices;              /* -1 = unknown                          */
    int nchips;
    cli_chip chips[CLI_MAX_CHIPS];
    char note[256];           /* why something is missing              */
} cli_probe;

/* The vendor probes (probe_*.c). */
void probe_nvidia(cli_probe *p);
void probe_rocm(cli_probe *p);
void probe_ascend(cli_probe *p);
void probe_cambricon(cli_probe *p);
void probe_musa(cli_probe *p);
void probe_opencl(cli_probe *p);

/* The host CPU (probe_cpu.c). */
typedef struct cli_cpu {
    char model[256];
    int cores;
    char simd[256];           /* space-separated: "avx2 avx512f ..."    */
    uint64_t memory;
    char blas_config[256];    /* openblas_get_config()                  */
    char blas_version[64];    /* "OpenBLAS 0.3.21"                      */
    int blas_threads;
} cli_cpu;
void probe_cpu(cli_cpu *c);

/* dlopen a vendor library, refusing torchfl's own stand-ins (our
 * libcuda.so.1 alias, or anything resolving into libtorchfl.so): tries
 * soname, then the absolute paths in alt (NULL-terminated).  sym is a
 * function the library must define.  Fills p->library on success. */
void *probe_dlopen(const char *soname, const char *const *alt, const char *sym,
                   cli_probe *p);
/* dlsym into a function pointer variable without a cast warning. */
#define PROBE_SYM(h, var, name) do { \
        void *s_ = dlsym((h), (name)); \
        memcpy(&(var), &s_, sizeof(var)); \
    } while (0)

/* torch/lib of the torch package `python` would import, without importing
 * it (probe_torch.c).  0 ok, -1 if that Python has no torch. */
int cli_torch_libdir(const char *python, char *out, size_t len);

/* JSON output helpers (json.c). */
void json_str(FILE *f, const char *s);   /* "..." escaped, or null */
void json_words(FILE *f, const char *words);  /* space-separated -> ["a", "b"] */

/* Subcommands. */
int cmd_detect(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_wheel(int argc, char **argv);

/* Human-readable bytes, "15.6 GiB". */
void cli_bytes(uint64_t n, char *buf, size_t len);

#endif

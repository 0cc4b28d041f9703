/*
 * hostexec.h - the host executor: runs a kernel's own PTX on the CPU.
 *
 * Route hands it what the binary registered (a fatbin, or an image given to
 * cuModuleLoadData) and a launch; it finds the PTX, parses only the kernels
 * that are launched, and runs them in a SIMT interpreter.  Nothing is
 * decompressed or parsed when a module is created: PyTorch registers
 * hundreds of fatbins at import and launches a handful of their kernels.
 *
 * Every global-memory access is checked against the address map
 * (src/mem/mem.h); a bad one fails the launch with HX_ERR_ILLEGAL_ADDRESS
 * and a report, never a crash.
 */
#ifndef TFL_HOSTEXEC_H
#define TFL_HOSTEXEC_H

#include <stddef.h>
#include <stdint.h>

typedef enum hx_status {
    HX_OK = 0,
    HX_ERR_NO_PTX,            /* module has no PTX (SASS only)            */
    HX_ERR_BAD_IMAGE,         /* malformed fatbin / ELF / compressed data */
    HX_ERR_PTX,               /* PTX does not parse                       */
    HX_ERR_UNSUPPORTED,       /* instruction or feature not implemented   */
    HX_ERR_NOT_FOUND,         /* no such kernel or variable               */
    HX_ERR_LAUNCH_CONFIG,     /* bad grid/block/shared size               */
    HX_ERR_ILLEGAL_ADDRESS,   /* out-of-bounds access by a kernel         */
    HX_ERR_MISALIGNED,        /* misaligned access                        */
    HX_ERR_TRAP,              /* trap / assert in a kernel                */
    HX_ERR_NOMEM,
    HX_ERR_INVALID,           /* bad argument to this API                 */
    HX_ERR_ASSERT             /* device-side assert (__assertfail)        */
} hx_status;

typedef struct hx_module hx_module;

typedef struct hx_options {
    int threads;              /* worker threads for blocks; 0 = CPU count */
} hx_options;

/* Optional; defaults apply when never called. */
void hx_init(const hx_options *opt);

/* image: a fatbin wrapper (magic 0x466243B1), a fatbin container
 * (0xBA55ED50), a cubin ELF, or NUL-terminated PTX text.  size may be 0
 * when the image carries its own size (all but PTX).  The image must stay
 * valid while the module lives (registered fatbins are in the binary).
 * Cheap: nothing is read beyond the magic.  NULL on a bad magic. */
hx_module *hx_module_create(const void *image, size_t size);
void hx_module_destroy(hx_module *m);

typedef struct hx_kernel_info {
    int num_params;
    size_t param_bytes;       /* size of the packed parameter buffer      */
    size_t param_offset[512];  /* offset of each parameter in that buffer */
    size_t param_size[512];
    size_t static_smem;       /* bytes of .shared declared by the kernel  */
    size_t local_bytes;       /* per-thread .local                        */
    int num_regs;
    int max_threads;          /* .maxntid product, or 1024                */
} hx_kernel_info;

/* Look a kernel up (loads the module on first use).  HX_ERR_NOT_FOUND if
 * the module has no such .entry. */
hx_status hx_kernel_info_get(hx_module *m, const char *kernel,
                             hx_kernel_info *out, char *err, size_t errlen);

/* The parameter table a device of compute capability `arch` (80 = 8.0)
 * would use for a kernel: the image's cubin for that arch, else its newest
 * cubin of the same major below it; an image without such a cubin gives
 * the kernel's PTX signature.  Fills up to max sizes/offsets by ordinal
 * and returns the parameter count (which may exceed max), or -1 with err
 * when the image has no such kernel or cannot be read.  A cubin's table
 * is read once, for all its kernels, and kept; SASS-only images (the
 * PyTorch wheel) work, nothing is parsed as PTX for them. */
int hx_kernel_abi(hx_module *m, const char *kernel, unsigned arch, uint32_t *sizes,
                  uint32_t *offsets, int max, char *err, size_t errlen);

/* Address and size of a module-scope .global/.const variable; its storage
 * is allocated (and initialised from the PTX) when the module loads and is
 * registered in the address map as TFL_MEM_MODULE_VAR. */
hx_status hx_module_global(hx_module *m, const char *name, void **addr,
                           size_t *size, char *err, size_t errlen);

typedef struct hx_launch_params {
    unsigned grid[3], block[3];
    size_t dynamic_smem;
    void **args;              /* args[i] points at parameter i, or ...    */
    const void *arg_buffer;   /* ... one packed buffer (cuLaunchKernel    */
    size_t arg_buffer_size;   /*     CU_LAUNCH_PARAM_BUFFER_POINTER)      */
} hx_launch_params;

/* Run the kernel to completion.  On failure err holds one line naming the
 * kernel and, for faults, block, thread and address. */
hx_status hx_launch(hx_module *m, const char *kernel,
                    const hx_launch_params *p, char *err, size_t errlen);

#endif

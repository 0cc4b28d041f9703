/*
 * ocl_src.h - what the OpenCL backend's op files share to write their
 * kernels and run them (ocl_src.c), beside ocl.h's device services:
 *
 *   - a growing string for generated OpenCL C (ocl_put), a prelude
 *     joined once to a program's kernels (ocl_src_join);
 *   - OpenCL C snippets, string literals to paste into a program: the
 *     float16/bfloat16 conversions with the host's rounding, the element
 *     and accumulate types, a work-group sum;
 *   - dtype -> OpenCL C type names, the correctly rounded division option;
 *   - operands as (buffer, byte offset) kernel argument pairs, resolved
 *     from device addresses (ocl_arg_*);
 *   - kernel arguments as a table (or a list collected by value) set in
 *     one locked pass and launched (ocl_launch, ocl_launch_args), kernels
 *     built for the largest work-group their code allows (ocl_kernel_wg,
 *     ocl_kernel_src), and a signature -> kernel cache that forgets its
 *     kernels when the program cache is freed (ocl_kcache).
 */
#ifndef TFL_OCL_SRC_H
#define TFL_OCL_SRC_H

#include "backends/opencl/ocl.h"

/* ------------------------------------------------------------ generated source */

/* A growing string; err set once an allocation failed (later puts do
 * nothing).  Zero-initialise it. */
typedef struct ocl_sbuf {
    char *p;
    size_t len, cap;
    int err;
} ocl_sbuf;

void ocl_put(ocl_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The text written (the caller frees it), or NULL (freed) after an
 * allocation failure. */
char *ocl_sbuf_take(ocl_sbuf *b);

/* head followed by body, joined once into *slot (kept for the process)
 * under a lock, so a program made of a shared prelude and an op file's
 * kernels is built from one string; NULL while out of memory. */
const char *ocl_src_join(char **slot, const char *head, const char *body);

/* ------------------------------------------------------------ OpenCL C snippets */

/* float16 and bfloat16 in float: ocl_f16_val / ocl_bf16_val widen (exact),
 * ocl_f16_bits / ocl_bf16_bits round to nearest even as the host does;
 * ocl_ldf / ocl_stf are element i of a float32 (t 0), float16 (2) or
 * bfloat16 (3) array, tfl_dtype's numbers, and ocl_round_to(t, v) is v
 * rounded to type t.  How a NaN is stored follows the host path the op
 * mirrors, chosen by OCL_LP_NAN (define it before):
 *   0 (default) sign, quiet bit and top payload bits (common/half.h),
 *   1 float16: the quiet NaN of its sign; bfloat16 as 0 (elementwise),
 *   2 0x7fff in both (the host's loss and reduction stores). */
#define OCL_SRC_LOWP \
    "#ifndef OCL_LP_NAN\n" \
    "#define OCL_LP_NAN 0\n" \
    "#endif\n" \
    "float ocl_f16_val(ushort h) { return vload_half(0, (const __private half *)&h); }\n" \
    "float ocl_bf16_val(ushort h) { return as_float((uint)h << 16); }\n" \
    "ushort ocl_f16_bits(float f) {\n" \
    "    uint u = as_uint(f);\n" \
    "    if ((u & 0x7fffffffu) > 0x7f800000u)\n" \
    "#if OCL_LP_NAN == 2\n" \
    "        return (ushort)0x7fffu;\n" \
    "#elif OCL_LP_NAN == 1\n" \
    "        return (ushort)(((u >> 16) & 0x8000u) | 0x7e00u);\n" \
    "#else\n" \
    "        return (ushort)(((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu));\n" \
    "#endif\n" \
    "    ushort h;\n" \
    "    vstore_half_rte(f, 0, (__private half *)&h);\n" \
    "    return h;\n" \
    "}\n" \
    "ushort ocl_bf16_bits(float f) {\n" \
    "    uint u = as_uint(f);\n" \
    "    if ((u & 0x7fffffffu) > 0x7f800000u)\n" \
    "        return OCL_LP_NAN == 2 ? (ushort)0x7fffu : (ushort)((u >> 16) | 0x40u);\n" \
    "    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n" \
    "}\n" \
    "float ocl_ldf(int t, __global const void *p, long i) {\n" \
    "    __global const ushort *h = (__global const ushort *)p;\n" \
    "    return t == 2 ? ocl_f16_val(h[i]) : t == 3 ? ocl_bf16_val(h[i])\n" \
    "                  : ((__global const float *)p)[i];\n" \
    "}\n" \
    "float ocl_round_to(int t, float v) {\n" \
    "    return t == 2 ? ocl_f16_val(ocl_f16_bits(v))\n" \
    "         : t == 3 ? ocl_bf16_val(ocl_bf16_bits(v)) : v;\n" \
    "}\n" \
    "void ocl_stf(int t, __global void *p, long i, float v) {\n" \
    "    if (t == 2 || t == 3)\n" \
    "        ((__global ushort *)p)[i] = t == 2 ? ocl_f16_bits(v) : ocl_bf16_bits(v);\n" \
    "    else\n" \
    "        ((__global float *)p)[i] = v;\n" \
    "}\n"

/* st_t: an element of the type the build option DT names (tfl_dtype's
 * numbers: 0 float32, 1 float64, 2 float16, 3 bfloat16), as stored. */
#define OCL_SRC_DT \
    "#if DT == 1\n" \
    "typedef double st_t;\n" \
    "#elif DT == 0\n" \
    "typedef float st_t;\n" \
    "#else\n" \
    "typedef ushort st_t;\n" \
    "#endif\n"

/* No contraction (the host is built with -ffp-contract=off), and acc_t:
 * double where the build option ACC_DBL is 1 (the host accumulates in
 * double), float otherwise. */
#define OCL_SRC_ACC \
    "#pragma OPENCL FP_CONTRACT OFF\n" \
    "#if ACC_DBL\n" \
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" \
    "typedef double acc_t;\n" \
    "#else\n" \
    "typedef float acc_t;\n" \
    "#endif\n"

/* The sum of every work item's v over a work-group of WG (a power of
 * two) items, in a fixed tree order, so a group gives the same bits every
 * run; sh holds WG values.  Needs acc_t. */
#define OCL_SRC_WG_SUM \
    "acc_t ocl_wg_sum(acc_t v, __local acc_t *sh) {\n" \
    "    int l = get_local_id(0);\n" \
    "    sh[l] = v;\n" \
    "    barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "    for (int o = WG / 2; o > 0; o >>= 1) {\n" \
    "        if (l < o) sh[l] += sh[l + o];\n" \
    "        barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "    }\n" \
    "    acc_t r = sh[0];\n" \
    "    barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "    return r;\n" \
    "}\n"

/* ------------------------------------------------------------ types and options */

/* The OpenCL C type of dtype t as stored (float16: "half", through
 * vload/vstore only; bfloat16 "ushort"; bool "uchar"); NULL for complex
 * and unknown types. */
const char *ocl_type_of(tfl_dtype t);

/* The unsigned OpenCL C type of 1, 2, 4 or 8 bytes (else "ulong"), for
 * moving bits. */
const char *ocl_bits_type(size_t bytes);

/* "-cl-fp32-correctly-rounded-divide-sqrt" when the device offers it
 * (OpenCL otherwise allows 2.5 ulp for float division and sqrt, where
 * the host's are correctly rounded), else NULL.  Asked once. */
const char *ocl_div_opt(void);

/* The largest power of two <= n (n >= 1). */
size_t ocl_pow2_floor(size_t n);

/* ------------------------------------------------------------ operands */

/* An operand as kernels take it: its buffer and the byte offset of its
 * element 0.  b NULL: absent (kernels never touch it). */
typedef struct ocl_arg {
    cl_mem b;
    cl_ulong o;
} ocl_arg;

/* n bytes at p, p aligned to align: 1 and a filled when they lie in one
 * device buffer.  With none (p NULL or n 0) a is absent, and the result
 * is 1 only when absent_ok. */
int ocl_arg_range(const void *p, size_t n, size_t align, int absent_ok, ocl_arg *a);

/* Bytes [p + lo, p + hi) (lo <= 0 < hi) in one device buffer: a->o is
 * the offset of p itself. */
int ocl_arg_span(const void *p, int64_t lo, int64_t hi, ocl_arg *a);

/* The element offsets a view of dims dimensions reaches, in units of its
 * strides: *lo += the negative extents, *hi += the positive ones.  0 on
 * overflow. */
int ocl_extent(int dims, const int64_t *len, const int64_t *stride, int64_t *lo, int64_t *hi);

/* A view of dims dimensions (len[d] elements of es bytes, stride[d]
 * elements apart) at p, element-aligned: every element it spans in one
 * device buffer.  A view with a zero length spans nothing: absent, 1. */
int ocl_arg_view(const void *p, size_t es, int dims, const int64_t *len, const int64_t *stride,
                 ocl_arg *a);

/* A contiguous run of n elements of es bytes at p. */
int ocl_arg_run(const void *p, size_t es, int64_t n, ocl_arg *a);

/* ------------------------------------------------------------ launching */

/* A kernel argument: its size and where its value is (NULL with a size:
 * local memory of that many bytes). */
typedef struct ocl_karg {
    size_t size;
    const void *val;
} ocl_karg;

#define OCL_KA(v) { sizeof(v), &(v) }
#define OCL_KB(a) OCL_KA((a).b), OCL_KA((a).o)
#define OCL_NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Sets args on k (NULL: TFL_ERR_INTERNAL, the build failed) and enqueues
 * it on s over `items` work items in groups of wg (items a multiple of
 * wg), or with ocl_launch_1d's rounding when wg is 0.  No items: nothing
 * is enqueued. */
tfl_status ocl_launch(ocl_kernel *k, const ocl_karg *args, int nargs, size_t items, size_t wg,
                      tfl_stream s);

/* Arguments collected by value, for lists built step by step: add them
 * in the kernel's order, then launch.  Too many (err) fails the launch. */
#define OCL_ARGS_MAX 64
#define OCL_ARGS_BYTES 2048

typedef struct ocl_args {
    int n, err;
    size_t used;
    size_t size[OCL_ARGS_MAX];
    size_t at[OCL_ARGS_MAX];         /* in data; SIZE_MAX: local memory */
    _Alignas(16) unsigned char data[OCL_ARGS_BYTES];
} ocl_args;

/* The next argument: size bytes at v (copied), or with v NULL local
 * memory of size bytes.  Zero-initialise a first. */
void ocl_args_add(ocl_args *a, const void *v, size_t size);
#define OCL_ADD(a, x) ocl_args_add((a), &(x), sizeof(x))

/* ocl_launch with a's arguments. */
tfl_status ocl_launch_args(ocl_kernel *k, const ocl_args *a, size_t items, size_t wg,
                           tfl_stream s);

/* Kernel `name` of src built with opts and -DWG=w, w the largest power
 * of two up to max (and the device's limit) for which every kernel named
 * in probes (NULL-terminated; NULL: name itself) allows work-groups of w
 * items; *wg = w.  NULL on a build error or when no w fits. */
ocl_kernel *ocl_kernel_wg(const char *src, const char *opts, const char *name,
                          const char *const *probes, size_t max, size_t *wg);

/* Kernel `name` of a generated source (freed here; NULL: none) built
 * with ocl_div_opt; with wg, *wg = the largest power of two up to max that
 * the kernel allows in a work-group. */
ocl_kernel *ocl_kernel_src(char *src, const char *name, size_t max, size_t *wg);

/* A CLBlast status (CLBlastStatusCode) as a torchfl status: OpenCL's
 * codes through ocl_status, CLBlast's own logged with call. */
tfl_status ocl_blast_status(int rc, const char *call);

/* ------------------------------------------------------------ kernel cache */

/* Signature -> kernel (and one size_t beside it, e.g. its work-group
 * size), so a launch need not regenerate or rehash its program's source.
 * Keys are compared as bytes (zero the padding).  When the cache is full
 * a kernel is simply not remembered.  The kernels belong to program.c's
 * cache: a table forgets them all when ocl_program_generation changed
 * since it was filled (the backend was re-initialised). */
#define OCL_KEY_MAX 64

typedef struct ocl_kslot {
    ocl_kernel *k;
    size_t aux;
    size_t klen;
    unsigned char key[OCL_KEY_MAX];
} ocl_kslot;

typedef struct ocl_kcache {
    pthread_mutex_t lock;
    unsigned gen;
    size_t n;
    ocl_kslot *slot;
} ocl_kcache;

/* A static table of `slots` entries named name. */
#define OCL_KCACHE(name, slots) \
    static ocl_kslot name##_slots[slots]; \
    static ocl_kcache name = { PTHREAD_MUTEX_INITIALIZER, 0, slots, name##_slots }

/* The kernel of key (klen <= OCL_KEY_MAX bytes) and its aux, or NULL. */
ocl_kernel *ocl_kcache_get(ocl_kcache *c, const void *key, size_t klen, size_t *aux);
void ocl_kcache_put(ocl_kcache *c, const void *key, size_t klen, ocl_kernel *k, size_t aux);

#endif

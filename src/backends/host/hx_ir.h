/*
 * hx_ir.h - the host executor's internal form of PTX: a module index, and
 * each launched function decoded once into a flat array of instructions
 * with resolved operands, ready for the warp interpreter (hx_exec.c).
 *
 * Register model: every PTX register, every immediate and every special
 * register a function uses gets a "slot"; a slot is 32 lanes of uint64_t
 * (structure of arrays), so an instruction is one loop over lanes.  Values
 * narrower than 64 bits live in the low bits; readers truncate.  Immediates
 * are slots filled once per frame ("constant registers"), so an operand is
 * always a slot index.  Predicates are separate: one 32-bit lane mask each.
 */
#ifndef TFL_HX_IR_H
#define TFL_HX_IR_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hostexec.h"

/* ---- operand types (4 bits: combined with the opcode as the dispatch key) */
enum {
    T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64,
    T_F16, T_F32, T_F64, T_BF16, T_F16X2, T_BF16X2, T_PRED, T_NONE
};
#define HX_NTYPES 16

/* ---- state spaces */
enum {
    SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST,
    SP_KPARAM,   /* a kernel's parameter buffer (uniform, read-only)       */
    SP_LPARAM    /* per-lane .param of a .func frame or a call sequence    */
};

/* ---- opcodes */
enum {
    OP_NOP, OP_UNSUP,
    OP_MOV, OP_MOVSYM, OP_PACK, OP_UNPACK, OP_LD, OP_ST, OP_CVTA, OP_CVTA_TO,
    OP_ISSPACEP, OP_PRMT, OP_CLOCK,
    OP_ADD, OP_SUB, OP_MUL, OP_MULHI, OP_MULWIDE, OP_MAD, OP_MADHI,
    OP_MADWIDE, OP_MUL24, OP_MAD24, OP_SAD, OP_DIV, OP_REM, OP_ABS, OP_NEG,
    OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_LOP3, OP_SHL,
    OP_SHR, OP_SHF_L, OP_SHF_R, OP_BFE, OP_BFI, OP_BREV, OP_CLZ, OP_POPC,
    OP_BFIND, OP_DP4A, OP_DP2A, OP_SETP, OP_SET, OP_SELP, OP_SLCT,
    OP_FMA, OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN, OP_COS,
    OP_TANH, OP_COPYSIGN, OP_TESTP, OP_CVT, OP_CVTPACK,
    OP_BRA, OP_CALL, OP_RET, OP_EXIT, OP_TRAP, OP_BAR, OP_BARARRIVE,
    OP_BARRED, OP_ATOM, OP_SHFL, OP_VOTE, OP_MATCH, OP_REDUX,
    OP_ACTIVEMASK, OP_PRINTF, OP_ASSERT, OP_MALLOC, OP_FREE,
    OP_MMA, OP_LDMATRIX, OP_CPASYNC,
    OP_ADDX, OP_SUBX, OP_MADX, OP_BMSK, OP_SZEXT,   /* carry chains: add.cc, addc, sub.cc, subc, mad.cc, madc */
    OP_COUNT
};
#define HX_KEY(op, t) ((op) * HX_NTYPES + (t))

/* rounding modes */
enum { R_NONE, R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI, R_RNA };
/* flags */
#define F_SAT 0x01
#define F_FTZ 0x02
#define F_APPROX 0x04
#define F_NAN 0x08      /* min/max .NaN: propagate NaN                */
#define F_UNI 0x10      /* bra.uni / call.uni                          */
#define F_SEXT 0x20     /* signed source for cvt.f: set at decode      */
#define F_RELU 0x40
#define F_SHAMT 0x80    /* shf.clamp (else wrap)                       */
/* setp compare ops */
enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_LO, C_LS, C_HI, C_HS,
       C_EQU, C_NEU, C_LTU, C_LEU, C_GTU, C_GEU, C_NUM, C_NAN };
/* boolean combiners, atomic ops, shfl/vote/redux modes: in insn.sub */
enum { B_NONE, B_AND, B_OR, B_XOR };
enum { A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_AND, A_OR, A_XOR, A_EXCH, A_CAS };
enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
enum { V_ALL, V_ANY, V_UNI, V_BALLOT };
enum { TP_FINITE, TP_INFINITE, TP_NUMBER, TP_NAN, TP_NORMAL, TP_SUBNORMAL };

#define HX_NOREG (-1)

/* special registers: a slot each, filled per warp (and per call frame) */
enum {
    SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y,
    SR_NCTAID_Z, SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID,
    SR_GRIDID, SR_LANEMASK_EQ, SR_LANEMASK_LE, SR_LANEMASK_LT,
    SR_LANEMASK_GE, SR_LANEMASK_GT, SR_DYN_SMEM, SR_TOTAL_SMEM, SR_CLOCK,
    SR_CLOCK64, SR_GLOBALTIMER, SR_ZERO, SR_COUNT
};

typedef struct hx_insn {
    uint16_t key;        /* HX_KEY(op, t)                                 */
    uint8_t op, t, t2;   /* t2: cvt source type, setp/slct operand type   */
    uint8_t sp;          /* state space                                   */
    uint8_t vec;         /* 1, 2, 4 (ld/st/mov vectors)                   */
    uint8_t rnd, flags, cmp, sub, bop;
    uint8_t gneg;        /* guard negated                                 */
    uint8_t symk;        /* SYMK_*: what the address offset is relative to */
    uint8_t srclen;      /* length of the opcode text at src              */
    uint8_t slow;        /* SLOW_*: needs the interpreter's rare paths     */
    int32_t gpred;       /* guard predicate, HX_NOREG if none             */
    int32_t d[4];        /* destination slots (or predicates)             */
    int32_t s[4];        /* source slots                                  */
    int32_t p[3];        /* predicate operands (second dest, combiners)   */
    int32_t abase;       /* address base slot or HX_NOREG                 */
    int64_t aoff;        /* address offset (resolved symbol included)     */
    int32_t target;      /* bra: target pc; call: callee index            */
    int32_t rpc;         /* bra: reconvergence pc (-1 = function exit)    */
    int32_t line;        /* PTX source line, for errors                   */
    int32_t aux;         /* call: index into the call-site table          */
    uint32_t imm;        /* lop3 lut, prmt mode, bar id ...               */
    int32_t svar;        /* SYMK_SHARED: module variable index            */
    int32_t x[6];        /* mma: B (x[0..1]) and C (x[2..5]) fragments    */
    const char *src;     /* opcode text in the module's PTX (errors)      */
} hx_insn;

#define SLOW_FTZSAT 1    /* f32 arithmetic with .ftz / .sat                */
#define SLOW_RMODE 2     /* float arithmetic with .rz/.rm/.rp               */

/* What an address's constant part is relative to. */
enum { SYMK_NONE, SYMK_LOCAL, SYMK_LPARAM, SYMK_SHARED };

typedef struct hx_param {
    char *name;
    size_t size, align, offset;
} hx_param;

typedef struct hx_callsite {
    int nargs, nrets;
    int64_t arg_off[32], ret_off[32];   /* caller frame lane-param offsets */
} hx_callsite;

/* A module-scope or function-scope .global/.const/.shared variable. */
typedef struct hx_var {
    char *name;
    int space;           /* SP_GLOBAL, SP_CONST, SP_SHARED                 */
    size_t size, align;
    int is_extern;       /* extern .shared: dynamic shared memory          */
    uint8_t *storage;    /* global/const: host storage (registered)        */
    const char *init_pos;/* initialiser text, parsed at load               */
    int elem_size;
    int index;           /* in module vars                                 */
    int line;
} hx_var;

typedef struct hx_func hx_func;
struct hx_func {
    char *name;
    int is_entry;
    int is_extern;       /* no body (prototype)                           */
    int builtin;         /* OP_PRINTF / OP_ASSERT / ... for known externs  */
    const char *hdr_pos; /* text position of .entry/.func                 */
    const char *end_pos;
    int hdr_line;
    /* decoded (lazily) */
    int decoded, decoding, decode_failed;
    hx_param *params; int nparams;
    hx_param *rets; int nrets;
    size_t kparam_bytes;    /* entry: packed parameter buffer size        */
    size_t lparam_bytes;    /* func: formals + call-site params, per lane */
    size_t local_bytes;     /* .local declared in the body                */
    int nslots;             /* register slots incl. constants and sregs   */
    int npreds;
    uint64_t *const_vals; int32_t *const_slot; int nconsts;
    int32_t sreg_slot[SR_COUNT];
    hx_insn *code; int ncode;
    hx_callsite *calls; int ncalls;
    int max_threads;
    int has_calls, uses_local, uses_dyn_smem;
    /* entry: offset of each module .shared variable (by index) in the
     * block's window, -1 if unused; the extern ones at the dynamic base */
    int64_t *smem_layout; int smem_layout_n;
    size_t static_smem;
    int *callees; int ncallees;   /* direct callees (decoded)           */
    int index;                    /* in module funcs                    */
    int uses_shared_vars;         /* references any .shared symbol      */
    int cc_pred;                  /* hidden carry-flag predicate, or -1 */
    int *svar_refs; int nsvar_refs;
};

typedef struct hx_module_entry {
    char *name;
    int index;           /* into funcs                                     */
} hx_module_entry;

struct hx_module {
    const void *image;
    size_t image_size;
    pthread_mutex_t lock;
    int loaded;          /* 0 not yet, 1 ok, -1 failed                     */
    hx_status load_status;
    char load_err[256];
    char *text;          /* PTX text (owned)                               */
    hx_func **funcs; int nfuncs, capfuncs;
    hx_var **vars; int nvars, capvars;
    int ptx_version;
    void *fhash, *vhash; /* name -> index (uthash, ptx_parse.c)            */
    void *abi;           /* kernel -> cubin parameter table (hx_abi.c)     */
    int abi_state;       /* 0 not built, 1 built, -1 no cubin to read      */
};

/* ---- images (hostexec.c) */
enum { IMG_NONE, IMG_FATBIN, IMG_ELF, IMG_PTX };
int hx_image_kind(const void *image, size_t size);

/* ---- parameter tables (hx_abi.c) */
void hx_abi_free(hx_module *m);

/* ---- parser (ptx_parse.c) */
/* Index a module's PTX text: functions and module variables (storage
 * allocated and initialised).  Bodies are not parsed. */
hx_status hx_ptx_index(hx_module *m, char *err, size_t errlen);
/* Decode a function (and, recursively, what it calls). */
hx_status hx_ptx_decode(hx_module *m, hx_func *f, char *err, size_t errlen);
hx_func *hx_find_func(hx_module *m, const char *name);
hx_var *hx_find_var(hx_module *m, const char *name);
void hx_ptx_free(hx_module *m);

/* ---- control flow (hx_cfg.c): fill each branch's reconvergence pc */
int hx_cfg_reconvergence(hx_func *f, char *err, size_t errlen);

/* ---- execution (hx_exec.c) */
typedef struct hx_launch_job hx_launch_job;
struct hx_launch_job {
    hx_module *mod;
    hx_func *fn;
    uint64_t id;             /* unique per launch                          */
    unsigned grid[3], block[3];
    size_t dyn_smem, static_smem, smem_total;
    const uint8_t *params;
    size_t param_bytes;
    size_t local_stride;     /* bytes of local memory per thread          */
    size_t lparam_stride;    /* bytes of lane-param memory per lane       */
    int max_slots;           /* upper bound of slots per warp-frame stack */
    /* shared by workers */
    uint64_t nblocks;
    uint64_t next_block;     /* atomic                                    */
    int failed;              /* atomic: first error wins                  */
    hx_status status;
    char err[512];
    pthread_mutex_t err_lock;
};

void hx_exec_worker(hx_launch_job *job);
/* Stop a launch after a warp has executed n branches (0 = never); for the
 * fuzz harness, whose random kernels may loop forever. */
void hx_set_step_limit(uint64_t n);
void hx_exec_thread_cleanup(void);

/* ---- device printf (hx_printf.c) */
/* Format one lane's device printf into out (truncated to outlen).  fmt
 * and args are readable for fmt_max / args_max bytes; readable(ctx, a)
 * says how many bytes a %s argument's address a may be read.  Returns the
 * formatted length, or -1 if the arguments run past args_max. */
int hx_printf_lane(const char *fmt, size_t fmt_max, const uint8_t *args,
                   size_t args_max, char *out, size_t outlen,
                   size_t (*readable)(void *ctx, uint64_t a), void *ctx);

#endif

/*
 * hx_exec.c - the SIMT interpreter: runs the blocks of a launch.
 *
 * A worker claims blocks from the job (atomic counter) and runs each one
 * alone: the block's warps run round-robin, each until it finishes or
 * reaches a barrier; when every live warp waits, the barrier opens.
 *
 * A warp executes one decoded instruction for its active lanes at a time.
 * Registers are slots of 32 lanes (hx_ir.h), so an arithmetic instruction
 * is one tight loop.  Divergence uses a reconvergence stack of (pc,
 * reconvergence pc, mask) entries; a branch that splits pushes both sides
 * with the branch's immediate post-dominator (hx_cfg.c) as their meeting
 * point.  Calls push a frame (own register window, lane-parameter window,
 * local window), so recursion works.
 *
 * Memory: shared memory and each thread's local window are host buffers of
 * the worker; generic addresses are host addresses.  Every access is
 * checked before it is made: global ones against the address map (with a
 * one-entry cache of the last allocation hit), shared/local/param ones
 * against their windows.  A bad access stops the launch with a message
 * naming kernel, block, thread and address.
 */
#include "hx_ir.h"
#include "hx_fp.h"

#include <fenv.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "mem/mem.h"

#define FULL 0xffffffffu
#define MAX_STACK (1 << 16)
#define MAX_FRAMES 4096

enum { W_READY, W_BAR, W_DONE, W_ERR };

typedef struct hx_stk { int32_t pc, rpc; uint32_t mask; } hx_stk;

typedef struct hx_frame {
    hx_func *fn;
    int stk_base;          /* simt stack depth when the frame was entered   */
    size_t reg_base;       /* slot index of the frame's register window     */
    size_t pred_base;
    int64_t lparam_base, local_base;
    uint32_t returned;     /* lanes that executed ret in this frame         */
    uint32_t call_mask;
    const hx_callsite *cs; /* the caller's call site (return values)       */
} hx_frame;

typedef struct hx_warp {
    int id;
    uint32_t valid, exited;
    int state;
    int bar_id;
    hx_stk *stk; int sp, stkcap;
    hx_frame *fr; int nfr, frcap;
    uint64_t *regs; size_t regcap;     /* in slots                        */
    uint32_t *preds; size_t predcap;
    const hx_insn *bar_red; uint32_t bar_red_mask;
    uint64_t steps;                     /* branches taken (step limit)     */
} hx_warp;

typedef struct hx_ctx {
    uint64_t launch_id;          /* launch whose constants the warps hold */
    hx_warp *warps; int capwarps;
    uint8_t *smem; size_t smem_cap;
    uint8_t *local; size_t local_cap;
    uint8_t *lparam; size_t lparam_cap;
} hx_ctx;

typedef struct xblk {
    hx_launch_job *job;
    hx_ctx *c;
    hx_func *kfn;
    hx_module *mod;
    unsigned ctaid[3];
    unsigned nthreads;
    int nwarps;
    uint8_t *smem; size_t smem_size;
    uint8_t *local; size_t lstride;
    uint8_t *lparam; size_t lpstride;
    uint64_t g_lo, g_hi;              /* last global allocation hit       */
    /* barriers */
    int bar_arrived[16], bar_expect[16];
    uint32_t bar_popc[16], bar_and[16], bar_or[16];
    uint32_t res_popc[16], res_and[16], res_or[16];
    int bar_red_used[16];
} xblk;

static __thread hx_ctx *tls_ctx;
/* TORCHFL_HX_TRACE=1: print every executed instruction (debugging) */
static int hx_trace = -1;
/* branches a warp may take before the launch is stopped (0: no limit);
 * set by the fuzz harness so that random loops end */
static uint64_t hx_step_limit;

void hx_set_step_limit(uint64_t n) { hx_step_limit = n; }

static void ctx_free(void *p)
{
    hx_ctx *c = p;
    if (!c) return;
    for (int i = 0; i < c->capwarps; i++) {
        free(c->warps[i].stk); free(c->warps[i].fr);
        free(c->warps[i].regs); free(c->warps[i].preds);
    }
    free(c->warps); free(c->smem); free(c->local); free(c->lparam);
    free(c);
}

/* A thread's block state is freed when the thread exits (the key's
 * destructor), or on request. */
static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static void ctx_key_init(void) { pthread_key_create(&ctx_key, ctx_free); }

void hx_exec_thread_cleanup(void)
{
    hx_ctx *c = tls_ctx;
    if (!c) return;
    pthread_once(&ctx_once, ctx_key_init);
    pthread_setspecific(ctx_key, NULL);
    ctx_free(c);
    tls_ctx = NULL;
}

/* ------------------------------------------------------------ faults */

static void tid_of(const xblk *b, int warp, int lane, unsigned t[3])
{
    unsigned lin = (unsigned)warp * 32u + (unsigned)lane;
    unsigned bx = b->job->block[0], by = b->job->block[1];
    t[0] = lin % bx; t[1] = (lin / bx) % by; t[2] = lin / (bx * by);
}

static void fail(xblk *b, hx_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(xblk *b, hx_status st, const char *fmt, ...)
{
    hx_launch_job *j = b->job;
    int expected = 0;
    if (!__atomic_compare_exchange_n(&j->failed, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE))
        return;
    j->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof j->err, fmt, ap);
    va_end(ap);
}

static void fault_addr(xblk *b, hx_warp *w, int lane, const hx_insn *in, hx_status st,
                       const char *what, uint64_t addr, unsigned n)
{
    unsigned t[3];
    tid_of(b, w->id, lane, t);
    fail(b, st, "kernel %s: %s %u bytes at address 0x%" PRIx64 " by block (%u,%u,%u) "
         "thread (%u,%u,%u) (PTX line %d: %.*s)", b->kfn->name, what, n, addr,
         b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2], in->line,
         (int)in->srclen, in->src ? in->src : "");
}

/* ------------------------------------------------------------ memory */

static const char *sp_name(int sp)
{
    switch (sp) {
    case SP_GLOBAL: return "global"; case SP_SHARED: return "shared";
    case SP_LOCAL: return "local"; case SP_CONST: return "const";
    case SP_KPARAM: case SP_LPARAM: return "param";
    default: return "generic";
    }
}

static int global_ok(xblk *b, uint64_t a, unsigned n)
{
    if (a >= b->g_lo && a <= b->g_hi && n <= b->g_hi - a) return 1;
    tfl_alloc_info ai;
    if (!tfl_mem_check_range((const void *)(uintptr_t)a, n, &ai)) return 0;
    b->g_lo = (uint64_t)(uintptr_t)ai.base;
    b->g_hi = b->g_lo + ai.size;
    return 1;
}

static inline uint8_t *lwin(const xblk *b, const hx_warp *w, int lane)
{
    return b->local + ((size_t)w->id * 32 + (size_t)lane) * b->lstride;
}
static inline uint8_t *lpwin(const xblk *b, const hx_warp *w, int lane)
{
    return b->lparam + ((size_t)w->id * 32 + (size_t)lane) * b->lpstride;
}

/* Host pointer for [a, a+n) in space sp for this lane, or NULL. */
static uint8_t *xres_slow(xblk *b, hx_warp *w, int sp, uint64_t a, unsigned n, int lane)
{
    switch (sp) {
    case SP_GLOBAL: case SP_CONST:
        if (a >= b->g_lo && a <= b->g_hi && n <= b->g_hi - a) return (uint8_t *)(uintptr_t)a;
        return global_ok(b, a, n) ? (uint8_t *)(uintptr_t)a : NULL;
    case SP_SHARED:
        return (a <= b->smem_size && n <= b->smem_size - a) ? b->smem + a : NULL;
    case SP_LOCAL:
        return (a <= b->lstride && n <= b->lstride - a) ? lwin(b, w, lane) + a : NULL;
    case SP_KPARAM:
        return (a <= b->job->param_bytes && n <= b->job->param_bytes - a)
                   ? (uint8_t *)b->job->params + a : NULL;
    case SP_LPARAM:
        return (a <= b->lpstride && n <= b->lpstride - a) ? lpwin(b, w, lane) + a : NULL;
    default: {
        uint64_t sb = (uint64_t)(uintptr_t)b->smem;
        if (a >= sb && a - sb < b->smem_size)
            return (n <= b->smem_size - (a - sb)) ? (uint8_t *)(uintptr_t)a : NULL;
        uint64_t lb = (uint64_t)(uintptr_t)b->local, ltot = (uint64_t)b->lstride * b->nwarps * 32;
        if (b->local && a >= lb && a - lb < ltot)
            return (n <= ltot - (a - lb)) ? (uint8_t *)(uintptr_t)a : NULL;
        uint64_t pb = (uint64_t)(uintptr_t)b->job->params;
        if (b->job->params && a >= pb && a - pb < b->job->param_bytes)
            return (n <= b->job->param_bytes - (a - pb)) ? (uint8_t *)(uintptr_t)a : NULL;
        if (a >= b->g_lo && a <= b->g_hi && n <= b->g_hi - a) return (uint8_t *)(uintptr_t)a;
        return global_ok(b, a, n) ? (uint8_t *)(uintptr_t)a : NULL;
    }
    }
}

/* The common cases inline: global hits in the last allocation, shared. */
static inline __attribute__((always_inline)) uint8_t *xres(xblk *b, hx_warp *w, int sp, uint64_t a,
                                                           unsigned n, int lane)
{
    if ((sp == SP_GLOBAL || sp == SP_CONST || sp == SP_GENERIC) && a >= b->g_lo && a <= b->g_hi &&
        n <= b->g_hi - a)
        return (uint8_t *)(uintptr_t)a;
    if (sp == SP_SHARED && a <= b->smem_size && n <= b->smem_size - a) return b->smem + a;
    return xres_slow(b, w, sp, a, n, lane);
}

static int tsize(int t)
{
    switch (t) {
    case T_U8: case T_S8: case T_PRED: return 1;
    case T_U16: case T_S16: case T_F16: case T_BF16: return 2;
    case T_U64: case T_S64: case T_F64: return 8;
    default: return 4;
    }
}

static inline uint64_t ld_ext(const uint8_t *p, int t)
{
    switch (t) {
    case T_U8: return *p;
    case T_S8: return (uint64_t)(int64_t)(int8_t)*p;
    case T_U16: case T_F16: case T_BF16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case T_S16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
    case T_S32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    case T_U64: case T_S64: case T_F64: { uint64_t v; memcpy(&v, p, 8); return v; }
    default: { uint32_t v; memcpy(&v, p, 4); return v; }
    }
}

/* ---------------------------------------------------- frame set-up */

static int ensure_regs(hx_warp *w, size_t slots, size_t preds)
{
    if (slots > w->regcap) {
        size_t nc = w->regcap ? w->regcap : 64;
        while (nc < slots) nc *= 2;
        uint64_t *r = realloc(w->regs, nc * 32 * sizeof *r);
        if (!r) return -1;
        w->regs = r; w->regcap = nc;
    }
    if (preds > w->predcap) {
        size_t nc = w->predcap ? w->predcap : 16;
        while (nc < preds) nc *= 2;
        uint32_t *p = realloc(w->preds, nc * sizeof *p);
        if (!p) return -1;
        w->preds = p; w->predcap = nc;
    }
    return 0;
}

static uint64_t now_ns(int realtime)
{
    struct timespec ts;
    clock_gettime(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Fill a frame's constant and special-register slots.  Constants and the
 * per-launch special registers are never written by the program, so a
 * worker fills them once per launch (block_only = 0) and only refreshes
 * the per-block ones (%ctaid, clocks) for each further block. */
static void init_slots_ex(xblk *b, hx_warp *w, hx_func *f, uint64_t *R, int block_only)
{
    for (int i = 0; !block_only && i < f->nconsts; i++) {
        uint64_t *s = R + (size_t)f->const_slot[i] * 32, v = f->const_vals[i];
        for (int l = 0; l < 32; l++) s[l] = v;
    }
    const hx_launch_job *j = b->job;
    for (int sr = 0; sr < SR_COUNT; sr++) {
        int slot = f->sreg_slot[sr];
        if (slot < 0) continue;
        if (block_only && !(sr >= SR_CTAID_X && sr <= SR_CTAID_Z) && sr != SR_CLOCK &&
            sr != SR_CLOCK64 && sr != SR_GLOBALTIMER)
            continue;
        uint64_t *s = R + (size_t)slot * 32;
        for (int l = 0; l < 32; l++) {
            unsigned t[3];
            uint64_t v = 0;
            switch (sr) {
            case SR_TID_X: case SR_TID_Y: case SR_TID_Z:
                tid_of(b, w->id, l, t); v = t[sr - SR_TID_X]; break;
            case SR_NTID_X: case SR_NTID_Y: case SR_NTID_Z: v = j->block[sr - SR_NTID_X]; break;
            case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z: v = b->ctaid[sr - SR_CTAID_X]; break;
            case SR_NCTAID_X: case SR_NCTAID_Y: case SR_NCTAID_Z: v = j->grid[sr - SR_NCTAID_X]; break;
            case SR_LANEID: v = (uint64_t)l; break;
            case SR_WARPID: v = (uint64_t)w->id; break;
            case SR_NWARPID: v = (uint64_t)b->nwarps; break;
            case SR_SMID: v = 0; break;
            case SR_NSMID: v = 1; break;
            case SR_GRIDID: v = 1; break;
            case SR_LANEMASK_EQ: v = 1u << l; break;
            case SR_LANEMASK_LE: v = (uint32_t)((2ull << l) - 1); break;
            case SR_LANEMASK_LT: v = (1u << l) - 1; break;
            case SR_LANEMASK_GE: v = (uint32_t)(FULL << l); break;
            case SR_LANEMASK_GT: v = l == 31 ? 0 : (uint32_t)(FULL << (l + 1)); break;
            case SR_DYN_SMEM: v = j->dyn_smem; break;
            case SR_TOTAL_SMEM: v = j->smem_total; break;
            case SR_CLOCK: case SR_CLOCK64: v = now_ns(0); break;
            case SR_GLOBALTIMER: v = now_ns(1); break;
            default: v = 0; break;
            }
            s[l] = v;
        }
    }
}

static void init_slots(xblk *b, hx_warp *w, hx_func *f, uint64_t *R)
{
    init_slots_ex(b, w, f, R, 0);
}

/* ------------------------------------------------------- interpreter */

#define LOOP(...)                                                           \
    do {                                                                    \
        if (m == FULL) {                                                    \
            for (int l = 0; l < 32; l++) { __VA_ARGS__; }                   \
        } else {                                                            \
            for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) {                   \
                int l = __builtin_ctz(mm_);                                 \
                __VA_ARGS__;                                                \
            }                                                               \
        }                                                                   \
    } while (0)

#define SLOT(i) (regs + 32 * (size_t)(i))
#define K(op, t) case HX_KEY(op, t):
#define U1(op, t, e) K(op, t) { LOOP(D[l] = (e)); break; }
#define U2(op, t, e) K(op, t) { LOOP(D[l] = (e)); break; }
#define U3(op, t, e) K(op, t) { LOOP(D[l] = (e)); break; }

#define F32A hx_f(A[l])
#define F32B hx_f(B[l])
#define F32C hx_f(C[l])
#define F64A hx_d(A[l])
#define F64B hx_d(B[l])
#define F64C hx_d(C[l])

static int cmp_f(int c, double a, double b)
{
    int un = isnan(a) || isnan(b);
    switch (c) {
    case C_EQ: return !un && a == b;
    case C_NE: return !un && a != b;
    case C_LT: return !un && a < b;
    case C_LE: return !un && a <= b;
    case C_GT: return !un && a > b;
    case C_GE: return !un && a >= b;
    case C_EQU: return un || a == b;
    case C_NEU: return un || a != b;
    case C_LTU: return un || a < b;
    case C_LEU: return un || a <= b;
    case C_GTU: return un || a > b;
    case C_GEU: return un || a >= b;
    case C_NUM: return !un;
    case C_NAN: return un;
    default: return 0;
    }
}

static int cmp_i(int c, int64_t a, int64_t b, uint64_t ua, uint64_t ub)
{
    switch (c) {
    case C_EQ: return a == b;
    case C_NE: return a != b;
    case C_LT: return a < b;
    case C_LE: return a <= b;
    case C_GT: return a > b;
    case C_GE: return a >= b;
    case C_LO: return ua < ub;
    case C_LS: return ua <= ub;
    case C_HI: return ua > ub;
    case C_HS: return ua >= ub;
    default: return 0;
    }
}

/* Read a slot value as a double (for compares, cvt) per type. */
static inline double as_double(uint64_t v, int t)
{
    switch (t) {
    case T_F32: return hx_f(v);
    case T_F64: return hx_d(v);
    case T_F16: return hx_h2f((uint16_t)v);
    case T_BF16: return hx_bf2f((uint16_t)v);
    case T_S8: return (int8_t)v;
    case T_S16: return (int16_t)v;
    case T_S32: return (int32_t)v;
    case T_S64: return (double)(int64_t)v;
    case T_U8: return (uint8_t)v;
    case T_U16: return (uint16_t)v;
    case T_U32: return (uint32_t)v;
    default: return (double)v;
    }
}

static inline int64_t sext(uint64_t v, int t)
{
    switch (t) {
    case T_S8: return (int8_t)v;
    case T_S16: return (int16_t)v;
    case T_S32: return (int32_t)v;
    case T_U8: return (uint8_t)v;
    case T_U16: return (uint16_t)v;
    case T_U32: return (uint32_t)v;
    default: return (int64_t)v;
    }
}

static int is_signed(int t) { return t >= T_S8 && t <= T_S64; }
static int unsigned_t(int t) { return is_signed(t) ? t - T_S8 + T_U8 : t; }
static int is_float(int t) { return t == T_F16 || t == T_F32 || t == T_F64 || t == T_BF16; }

static uint64_t fenc(double v, int t, int rnd)
{
    switch (t) {
    case T_F32:
        if (rnd == R_NONE || rnd == R_RN) return hx_fb((float)v);
        return hx_round_small(v, 8, 23, rnd);
    case T_F64: return hx_db(v);
    case T_F16: return hx_d2h(v, rnd);
    case T_BF16: return hx_d2bf(v, rnd);
    default: return 0;
    }
}

/* cvt for one value: dst type dt, src type st. */
static uint64_t cvt_val(uint64_t v, int dt, int st, int rnd, int flags)
{
    int sat = flags & F_SAT;
    if (is_float(st) || is_float(dt)) {
        if (is_float(st) && is_float(dt)) {
            double x = as_double(v, st);
            if ((flags & F_FTZ) && st == T_F32) x = hx_ftz((float)x);
            if (rnd >= R_RNI && rnd <= R_RPI) {
                switch (rnd) {
                case R_RNI: x = nearbyint(x); break;
                case R_RZI: x = trunc(x); break;
                case R_RMI: x = floor(x); break;
                default: x = ceil(x); break;
                }
                rnd = R_RN;
            }
            if (sat) x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
            uint64_t r = fenc(x, dt, rnd);
            if ((flags & F_FTZ) && dt == T_F32) r = hx_fb(hx_ftz(hx_f(r)));
            if ((flags & F_RELU) && is_float(dt) && !isnan(x) && x < 0) r = fenc(0.0, dt, R_RN);
            return r;
        }
        if (is_float(st)) {
            /* float -> int: round to integer, saturate, NaN -> 0 */
            double x = as_double(v, st);
            if ((flags & F_FTZ) && st == T_F32) x = hx_ftz((float)x);
            if (isnan(x)) return 0;
            switch (rnd) {
            case R_RNI: x = nearbyint(x); break;
            case R_RMI: x = floor(x); break;
            case R_RPI: x = ceil(x); break;
            default: x = trunc(x); break;
            }
            int bits = tsize(dt) * 8;
            if (is_signed(dt)) {
                double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
                int64_t r;
                if (x < lo) r = (int64_t)(bits == 64 ? INT64_MIN : -(1ll << (bits - 1)));
                else if (x >= hi) r = bits == 64 ? INT64_MAX : (1ll << (bits - 1)) - 1;
                else r = (int64_t)x;
                return (uint64_t)r;
            } else {
                double hi = ldexp(1.0, bits);
                uint64_t r;
                if (x <= 0) r = 0;
                else if (x >= hi) r = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
                else r = (uint64_t)x;
                return r;
            }
        }
        /* int -> float */
        double x;
        int rn = (rnd == R_NONE || rnd == R_RN);
        if (is_signed(st)) {
            int64_t iv = sext(v, st);
            if (dt == T_F32 && rn) return hx_fb((float)iv);
            if (dt == T_F64 && rn) return hx_db((double)iv);
            x = (double)iv;
            if (dt != T_F64 && (iv > (1ll << 53) || iv < -(1ll << 53))) {
                /* exact double first would double-round: use the host
                 * rounding mode on the integer directly */
                int old = fegetround();
                fesetround(rnd == R_RZ ? FE_TOWARDZERO : rnd == R_RM ? FE_DOWNWARD :
                           rnd == R_RP ? FE_UPWARD : FE_TONEAREST);
                volatile float f = (float)iv;
                fesetround(old);
                if (dt == T_F32) return hx_fb(f);
                x = f;
            }
        } else {
            uint64_t uv = (uint64_t)sext(v, st == T_U64 ? T_U64 : st);
            if (st != T_U64) uv &= (tsize(st) == 8 ? UINT64_MAX : ((1ull << (tsize(st) * 8)) - 1));
            if (dt == T_F32 && rn) return hx_fb((float)uv);
            if (dt == T_F64 && rn) return hx_db((double)uv);
            x = (double)uv;
            if (uv > (1ull << 53)) {
                int old = fegetround();
                fesetround(rnd == R_RZ ? FE_TOWARDZERO : rnd == R_RM ? FE_DOWNWARD :
                           rnd == R_RP ? FE_UPWARD : FE_TONEAREST);
                volatile double dd = (double)uv;
                volatile float f = (float)uv;
                fesetround(old);
                if (dt == T_F32) return hx_fb(f);
                if (dt == T_F64) return hx_db(dd);
                x = dd;
            }
        }
        if (dt == T_F64) {
            int old = fegetround();
            fesetround(rnd == R_RZ ? FE_TOWARDZERO : rnd == R_RM ? FE_DOWNWARD :
                       rnd == R_RP ? FE_UPWARD : FE_TONEAREST);
            volatile double dd = is_signed(st) ? (double)sext(v, st) : x;
            fesetround(old);
            return hx_db(dd);
        }
        if (sat) x = x < 0 ? 0 : x > 1 ? 1 : x;
        return fenc(x, dt, rnd);
    }
    /* int -> int */
    int dbits = tsize(dt) * 8;
    if (sat) {
        if (is_signed(st)) {
            int64_t x = sext(v, st);
            if (is_signed(dt)) {
                int64_t lo = dbits == 64 ? INT64_MIN : -(1ll << (dbits - 1));
                int64_t hi = dbits == 64 ? INT64_MAX : (1ll << (dbits - 1)) - 1;
                if (x < lo) x = lo;
                if (x > hi) x = hi;
                return (uint64_t)x;
            }
            uint64_t hi = dbits == 64 ? UINT64_MAX : (1ull << dbits) - 1;
            if (x < 0) return 0;
            return (uint64_t)x > hi ? hi : (uint64_t)x;
        }
        uint64_t x = (uint64_t)sext(v, st);
        if (st == T_U64) x = v;
        uint64_t hi = is_signed(dt) ? (dbits == 64 ? (uint64_t)INT64_MAX : (1ull << (dbits - 1)) - 1)
                                    : (dbits == 64 ? UINT64_MAX : (1ull << dbits) - 1);
        return x > hi ? hi : x;
    }
    uint64_t x = (uint64_t)sext(v, st);
    return (uint64_t)sext(x, dt == T_U64 || dt == T_S64 ? T_U64 : dt);
}

/* half-precision arithmetic on one 16-bit value */
static inline double h_in(uint16_t v, int bf) { return bf ? hx_bf2f(v) : hx_h2f(v); }
static inline uint16_t h_out(double x, int bf, int rnd, int flags)
{
    if (flags & F_SAT) x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
    if ((flags & F_RELU) && !isnan(x) && x < 0) x = 0;
    int r = (rnd == R_NONE) ? R_RN : rnd;
    return bf ? hx_d2bf(x, r) : hx_d2h(x, r);
}

static uint16_t half_op(int op, uint16_t a, uint16_t b, uint16_t c, int bf, int rnd, int flags,
                        int cmp)
{
    double x = h_in(a, bf), y = h_in(b, bf), z = h_in(c, bf);
    switch (op) {
    case OP_ADD: return h_out(x + y, bf, rnd, flags);
    case OP_SUB: return h_out(x - y, bf, rnd, flags);
    case OP_MUL: return h_out(x * y, bf, rnd, flags);
    case OP_FMA: return h_out(fma(x, y, z), bf, rnd, flags);
    case OP_NEG: return a ^ 0x8000;
    case OP_ABS: return a & 0x7fff;
    case OP_MIN: case OP_MAX: {
        if (isnan(x) || isnan(y)) {
            if ((flags & F_NAN) || (isnan(x) && isnan(y))) return 0x7fff;
            return isnan(x) ? b : a;
        }
        double r = op == OP_MIN ? hx_fmin(x, y) : hx_fmax(x, y);
        (void)r;
        if (x == y) return (uint16_t)(op == OP_MIN ? ((a & 0x8000) ? a : b) : ((a & 0x8000) ? b : a));
        return (op == OP_MIN) == (x < y) ? a : b;
    }
    case OP_EX2: return h_out(exp2f((float)x), bf, R_RN, 0);
    case OP_LG2: return h_out(log2f((float)x), bf, R_RN, 0);
    case OP_TANH: return h_out(tanhf((float)x), bf, R_RN, 0);
    case OP_SIN: return h_out(sinf((float)x), bf, R_RN, 0);
    case OP_COS: return h_out(cosf((float)x), bf, R_RN, 0);
    case OP_RCP: return h_out(1.0 / x, bf, R_RN, 0);
    case OP_SQRT: return h_out(sqrt(x), bf, R_RN, 0);
    case OP_RSQRT: return h_out(1.0 / sqrt(x), bf, R_RN, 0);
    case OP_SETP: return (uint16_t)cmp_f(cmp, x, y);
    default: return 0;
    }
}

static int is_half_type(int t) { return t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2; }

static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++)
        if (lut & (1u << i))
            r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
    return r;
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint8_t src[8];
    for (int i = 0; i < 4; i++) { src[i] = (uint8_t)(a >> (8 * i)); src[4 + i] = (uint8_t)(b >> (8 * i)); }
    uint32_t r = 0;
    unsigned sel = c & 3;
    for (int i = 0; i < 4; i++) {
        uint8_t v;
        switch (mode) {
        case 0: {
            unsigned s = (c >> (4 * i)) & 0xf;
            v = src[s & 7];
            if (s & 8) v = (v & 0x80) ? 0xff : 0;
            break;
        }
        case 1: v = src[(sel + (unsigned)i) & 7]; break;
        case 2: v = src[(sel - (unsigned)i) & 7]; break;
        case 3: v = src[sel]; break;
        case 4: v = src[(unsigned)i > sel ? (unsigned)i : sel]; break;
        case 5: v = src[(unsigned)i < sel ? (unsigned)i : sel]; break;
        default: v = src[(sel & 1) * 2 + ((unsigned)i & 1)]; break;
        }
        r |= (uint32_t)v << (8 * i);
    }
    return r;
}

static uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, int t)
{
    int msb = (t == T_U64 || t == T_S64) ? 63 : 31;
    int sg = is_signed(t);
    pos &= 0xff; len &= 0xff;
    if (len == 0) return 0;
    if (!sg) {
        if (pos > (uint32_t)msb) return 0;
        uint64_t v = a >> pos;
        if (len < 64) v &= (1ull << len) - 1;
        return msb == 31 ? (uint32_t)v : v;
    }
    uint32_t top = pos + len - 1 > (uint32_t)msb ? (uint32_t)msb : pos + len - 1;
    uint64_t sbit = (a >> top) & 1;
    uint64_t r = 0;
    for (int i = 0; i <= msb; i++) {
        uint64_t bit = ((uint32_t)i < len && pos + (uint32_t)i <= (uint32_t)msb) ? (a >> (pos + i)) & 1 : sbit;
        r |= bit << i;
    }
    return msb == 31 ? (uint64_t)(int64_t)(int32_t)r : r;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int t)
{
    int msb = (t == T_U64) ? 63 : 31;
    pos &= 0xff; len &= 0xff;
    if (len == 0 || pos > (uint32_t)msb) return b;
    uint64_t r = b;
    for (uint32_t i = 0; i < len && pos + i <= (uint32_t)msb; i++) {
        uint64_t bit = (a >> i) & 1;
        r = (r & ~(1ull << (pos + i))) | (bit << (pos + i));
    }
    return msb == 31 ? (uint32_t)r : r;
}

static int testp(int mode, double x, int t)
{
    int c = fpclassify(x);
    if (t == T_F32) c = fpclassify((float)x);
    switch (mode) {
    case TP_FINITE: return isfinite(x);
    case TP_INFINITE: return isinf(x);
    case TP_NUMBER: return !isnan(x);
    case TP_NAN: return isnan(x);
    case TP_NORMAL: return c == FP_NORMAL;
    default: return c == FP_SUBNORMAL;
    }
}

/* atomics on host memory */

/* An integer atomic of one width (U unsigned, S its signed twin); the
 * operations the hardware has are host atomics, the rest a CAS loop. */
#define ATOM_INT(NAME, U, S)                                                        \
static uint64_t NAME(void *p, int aop, int sg, uint64_t b, uint64_t c)               \
{                                                                                    \
    U *q = (U *)p, v = (U)b;                                                         \
    switch (aop) {                                                                   \
    case A_ADD: return __atomic_fetch_add(q, v, __ATOMIC_RELAXED);                   \
    case A_AND: return __atomic_fetch_and(q, v, __ATOMIC_RELAXED);                   \
    case A_OR: return __atomic_fetch_or(q, v, __ATOMIC_RELAXED);                     \
    case A_XOR: return __atomic_fetch_xor(q, v, __ATOMIC_RELAXED);                   \
    case A_EXCH: return __atomic_exchange_n(q, v, __ATOMIC_RELAXED);                 \
    case A_CAS: {                                                                    \
        U exp = v;                                                                   \
        __atomic_compare_exchange_n(q, &exp, (U)c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return exp;                                                                  \
    }                                                                                \
    default: break;                                                                  \
    }                                                                                \
    U old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;                                \
    do {                                                                             \
        switch (aop) {                                                               \
        case A_MIN: nv = sg ? ((S)old < (S)v ? old : v) : (old < v ? old : v); break; \
        case A_MAX: nv = sg ? ((S)old > (S)v ? old : v) : (old > v ? old : v); break; \
        case A_INC: nv = old >= v ? 0 : old + 1; break;                              \
        case A_DEC: nv = (old == 0 || old > v) ? v : old - 1; break;                 \
        default: nv = old; break;                                                    \
        }                                                                            \
    } while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
    return old;                                                                      \
}
ATOM_INT(atom_int32, uint32_t, int32_t)
ATOM_INT(atom_int64, uint64_t, int64_t)

static uint64_t atom_op(uint8_t *p, int aop, int t, uint64_t b, uint64_t c)
{
    int sz = tsize(t);
    if (t == T_F32) {
        uint32_t *q = (uint32_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
        do {
            float f = hx_f(old);
            if (aop == A_ADD) nv = (uint32_t)hx_fb(f + hx_f(b));
            else if (aop == A_MIN) nv = (uint32_t)hx_fb(hx_fminf(f, hx_f(b), 0));
            else if (aop == A_MAX) nv = (uint32_t)hx_fb(hx_fmaxf(f, hx_f(b), 0));
            else if (aop == A_EXCH) nv = (uint32_t)b;
            else if (aop == A_CAS) { nv = old == (uint32_t)b ? (uint32_t)c : old; }
            else nv = old;
        } while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return old;
    }
    if (t == T_F64) {
        uint64_t *q = (uint64_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
        do {
            double f = hx_d(old);
            if (aop == A_ADD) nv = hx_db(f + hx_d(b));
            else if (aop == A_MIN) nv = hx_db(hx_fmin(f, hx_d(b)));
            else if (aop == A_MAX) nv = hx_db(hx_fmax(f, hx_d(b)));
            else if (aop == A_EXCH) nv = b;
            else if (aop == A_CAS) nv = old == b ? c : old;
            else nv = old;
        } while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return old;
    }
    if (is_half_type(t)) {
        int bf = t == T_BF16 || t == T_BF16X2;
        if (sz == 2) {
            uint16_t *q = (uint16_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
            do {
                if (aop == A_ADD) nv = half_op(OP_ADD, old, (uint16_t)b, 0, bf, R_RN, 0, 0);
                else if (aop == A_MIN) nv = half_op(OP_MIN, old, (uint16_t)b, 0, bf, 0, 0, 0);
                else if (aop == A_MAX) nv = half_op(OP_MAX, old, (uint16_t)b, 0, bf, 0, 0, 0);
                else if (aop == A_EXCH) nv = (uint16_t)b;
                else if (aop == A_CAS) nv = old == (uint16_t)b ? (uint16_t)c : old;
                else nv = old;
            } while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
            return old;
        }
        uint32_t *q = (uint32_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
        do {
            int o = aop == A_ADD ? OP_ADD : aop == A_MIN ? OP_MIN : OP_MAX;
            uint16_t lo = half_op(o, (uint16_t)old, (uint16_t)b, 0, bf, R_RN, 0, 0);
            uint16_t hi = half_op(o, (uint16_t)(old >> 16), (uint16_t)(b >> 16), 0, bf, R_RN, 0, 0);
            nv = aop == A_EXCH ? (uint32_t)b : ((uint32_t)hi << 16) | lo;
        } while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return old;
    }
    int sg = is_signed(t);
    if (sz == 4)
        return atom_int32(p, aop, sg, b, c);
    if (sz == 8)
        return atom_int64(p, aop, sg, b, c);
    /* 16-bit: cas/exch only in PTX */
    uint16_t *q = (uint16_t *)p;
    if (aop == A_CAS) {
        uint16_t exp = (uint16_t)b;
        __atomic_compare_exchange_n(q, &exp, (uint16_t)c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        return exp;
    }
    if (aop == A_EXCH) return __atomic_exchange_n(q, (uint16_t)b, __ATOMIC_RELAXED);
    if (aop == A_ADD) return __atomic_fetch_add(q, (uint16_t)b, __ATOMIC_RELAXED);
    return *q;
}

static hx_status do_printf(xblk *b, hx_warp *w, const hx_insn *in, uint32_t m,
                           hx_frame *fr);
static hx_status do_assert(xblk *b, hx_warp *w, const hx_insn *in, uint32_t m, hx_frame *fr);

/* Read n bytes of a builtin call's argument from the lane's parameter
 * window, 0 if the (malformed) call site puts it out of the window. */
static uint64_t lp_arg(const xblk *b, const hx_frame *fr, const uint8_t *lane_win, int64_t off,
                       unsigned n)
{
    uint64_t v = 0;
    if (off >= 0 && (uint64_t)fr->lparam_base + (uint64_t)off + n <= b->lpstride)
        memcpy(&v, lane_win + fr->lparam_base + off, n);
    return v;
}

static int cur_rnd_mode(int rnd)
{
    switch (rnd) {
    case R_RZ: return FE_TOWARDZERO;
    case R_RM: return FE_DOWNWARD;
    case R_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

/* Run warp w until it finishes, waits at a barrier, or fails. */
/* O3: the lane loops are the hot path; let GCC vectorise them */
__attribute__((optimize("O3")))
static int run_warp(xblk *b, hx_warp *w)
{
    hx_frame *fr = &w->fr[w->nfr - 1];
    hx_func *fn = fr->fn;
    const hx_insn *code = fn->code;
    uint64_t *regs = w->regs + fr->reg_base * 32;
    uint32_t *P = w->preds + fr->pred_base;
    uint32_t dead = w->exited | fr->returned;
    hx_stk *top = &w->stk[w->sp - 1];
    int pc = top->pc, rpc = top->rpc;
    uint32_t act = top->mask & ~dead;
    uint64_t tmpA[32], tmpB[32], tmpC[32];

    if (w->bar_red) {
        const hx_insn *in = w->bar_red;
        uint32_t m = w->bar_red_mask;
        int id = w->bar_id & 15;
        if (in->t == T_PRED) {
            uint32_t v = in->sub == A_AND ? b->res_and[id] : b->res_or[id];
            uint32_t r = v ? FULL : 0;
            P[in->d[0]] = (P[in->d[0]] & ~m) | (r & m);
        } else {
            uint64_t *D = SLOT(in->d[0]);
            uint32_t v = b->res_popc[id];
            LOOP(D[l] = v);
        }
        w->bar_red = NULL;
    }

    for (;;) {
        if (pc == rpc || act == 0) {
            /* this path is done: pop; leaving the frame's base returns */
            w->sp--;
            if (w->sp <= fr->stk_base) {
                if (w->nfr == 1) { w->state = W_DONE; return W_DONE; }
                /* return to the caller: copy return values */
                hx_frame *cf = &w->fr[w->nfr - 2];
                const hx_callsite *cs = fr->cs;
                uint32_t rm = fr->call_mask & ~w->exited;
                for (int i = 0; cs && i < cs->nrets && i < fn->nrets; i++) {
                    if ((uint64_t)cf->lparam_base + (uint64_t)cs->ret_off[i] + fn->rets[i].size > b->lpstride)
                        continue;      /* malformed call site: nothing to copy into */
                    for (uint32_t mm = rm; mm; mm &= mm - 1) {
                        int l = __builtin_ctz(mm);
                        uint8_t *lp = lpwin(b, w, l);
                        memcpy(lp + cf->lparam_base + cs->ret_off[i],
                               lp + fr->lparam_base + fn->rets[i].offset, fn->rets[i].size);
                    }
                }
                w->nfr--;
                fr = cf;
                fn = fr->fn;
                code = fn->code;
                regs = w->regs + fr->reg_base * 32;
                P = w->preds + fr->pred_base;
            }
            dead = w->exited | fr->returned;
            top = &w->stk[w->sp - 1];
            pc = top->pc; rpc = top->rpc;
            act = top->mask & ~dead;
            continue;
        }
        const hx_insn *in = &code[pc];
        uint32_t m = act;
        if (in->gpred >= 0) {
            uint32_t g = P[in->gpred];
            m &= in->gneg ? ~g : g;
        }
        const uint64_t *A = SLOT(in->s[0] < 0 ? 0 : in->s[0]);
        const uint64_t *B = SLOT(in->s[1] < 0 ? 0 : in->s[1]);
        const uint64_t *C = SLOT(in->s[2] < 0 ? 0 : in->s[2]);
        uint64_t *D = SLOT(in->d[0] < 0 ? 0 : in->d[0]);
        /* rare cases, flagged at decode: .ftz/.sat post-processing of f32
         * arithmetic, a directed rounding mode */
        int special = 0, rmode = 0;
        if (__builtin_expect(in->slow != 0, 0)) {
            special = in->slow & SLOW_FTZSAT;
            rmode = in->slow & SLOW_RMODE;
            if (special && (in->flags & F_FTZ)) {
                for (int l = 0; l < 32; l++) {
                    tmpA[l] = hx_fb(hx_ftz(hx_f(A[l])));
                    tmpB[l] = hx_fb(hx_ftz(hx_f(B[l])));
                    tmpC[l] = hx_fb(hx_ftz(hx_f(C[l])));
                }
                A = tmpA; B = tmpB; C = tmpC;
            }
            if (rmode) fesetround(cur_rnd_mode(in->rnd));
        }
        if (m == 0 && in->op != OP_BRA && in->op != OP_BAR && in->op != OP_BARRED &&
            in->op != OP_BARARRIVE) {
            pc++;
            continue;
        }

        switch (in->key) {
        /* ---------------------------------------------- moves */
        K(OP_MOV, T_U8) K(OP_MOV, T_U16) K(OP_MOV, T_U32) K(OP_MOV, T_U64)
        K(OP_MOV, T_F16) K(OP_MOV, T_F32) K(OP_MOV, T_F64) K(OP_MOV, T_BF16)
        K(OP_MOV, T_F16X2) K(OP_MOV, T_BF16X2) K(OP_MOV, T_NONE)
            LOOP(D[l] = A[l]);
            break;
        K(OP_MOV, T_PRED) {
            uint32_t v = in->sub ? (in->imm ? FULL : 0)
                                 : (in->p[1] ? ~P[in->p[0]] : P[in->p[0]]);
            P[in->d[0]] = (P[in->d[0]] & ~m) | (v & m);
            break;
        }
        K(OP_CLOCK, T_U32) K(OP_CLOCK, T_U64) K(OP_CLOCK, T_S32) K(OP_CLOCK, T_S64) {
            uint64_t v = now_ns(in->imm == SR_GLOBALTIMER);
            LOOP(D[l] = v);
            break;
        }
        K(OP_MOVSYM, T_U32) K(OP_MOVSYM, T_U64) K(OP_MOVSYM, T_S32) K(OP_MOVSYM, T_S64)
        K(OP_MOVSYM, T_NONE) {
            int64_t v = in->aoff;
            if (in->symk == SYMK_LOCAL) v += fr->local_base;
            else if (in->symk == SYMK_LPARAM) v += fr->lparam_base;
            else if (in->symk == SYMK_SHARED)
                v += (in->svar < b->kfn->smem_layout_n && b->kfn->smem_layout[in->svar] >= 0)
                         ? b->kfn->smem_layout[in->svar] : 0;
            uint64_t u = in->t == T_U32 || in->t == T_S32 ? (uint32_t)v : (uint64_t)v;
            LOOP(D[l] = u);
            break;
        }
        K(OP_PACK, T_U32) K(OP_PACK, T_U64) K(OP_PACK, T_U16) K(OP_PACK, T_F32) K(OP_PACK, T_F64) {
            int ew = tsize(in->t) * 8 / in->vec;
            uint64_t em = ew == 64 ? UINT64_MAX : (1ull << ew) - 1;
            const uint64_t *S[4];
            for (int i = 0; i < in->vec; i++) S[i] = SLOT(in->s[i] < 0 ? 0 : in->s[i]);
            LOOP({
                uint64_t v = 0;
                for (int i = 0; i < in->vec; i++) v |= (S[i][l] & em) << (ew * i);
                D[l] = v;
            });
            break;
        }
        K(OP_UNPACK, T_U32) K(OP_UNPACK, T_U64) K(OP_UNPACK, T_U16) K(OP_UNPACK, T_F32)
        K(OP_UNPACK, T_F64) {
            int ew = tsize(in->t) * 8 / in->vec;
            uint64_t em = ew == 64 ? UINT64_MAX : (1ull << ew) - 1;
            uint64_t src[32];
            LOOP(src[l] = A[l]);
            for (int i = 0; i < in->vec; i++) {
                if (in->d[i] < 0) continue;
                uint64_t *Di = SLOT(in->d[i]);
                LOOP(Di[l] = (src[l] >> (ew * i)) & em);
            }
            break;
        }
        /* ---------------------------------------------- loads / stores */
        K(OP_LD, T_U8) K(OP_LD, T_U16) K(OP_LD, T_U32) K(OP_LD, T_U64) K(OP_LD, T_S8)
        K(OP_LD, T_S16) K(OP_LD, T_S32) K(OP_LD, T_S64) K(OP_LD, T_F16) K(OP_LD, T_F32)
        K(OP_LD, T_F64) K(OP_LD, T_BF16) K(OP_LD, T_F16X2) K(OP_LD, T_BF16X2)
        K(OP_ST, T_U8) K(OP_ST, T_U16) K(OP_ST, T_U32) K(OP_ST, T_U64) K(OP_ST, T_F16)
        K(OP_ST, T_F32) K(OP_ST, T_F64) K(OP_ST, T_BF16) K(OP_ST, T_F16X2) K(OP_ST, T_BF16X2) {
            int isst = in->op == OP_ST;
            int t = in->t, es = tsize(t), nv = in->vec;
            unsigned n = (unsigned)(es * nv);
            int64_t adj = in->aoff;
            if (in->symk == SYMK_LOCAL) adj += fr->local_base;
            else if (in->symk == SYMK_LPARAM) adj += fr->lparam_base;
            else if (in->symk == SYMK_SHARED)
                adj += (in->svar < b->kfn->smem_layout_n) ? b->kfn->smem_layout[in->svar] : 0;
            const uint64_t *Ab = in->abase >= 0 ? SLOT(in->abase) : NULL;
            int sp = in->sp;
            if (isst && sp == SP_KPARAM) sp = SP_LPARAM;
            /* addresses, their range and alignment over the active lanes */
            uint64_t addr[32], lo = UINT64_MAX, hi = 0, orv = 0;
            if (Ab) {
                LOOP({
                    uint64_t a = Ab[l] + (uint64_t)adj;
                    addr[l] = a; orv |= a;
                    lo = a < lo ? a : lo; hi = a > hi ? a : hi;
                });
            } else {
                lo = hi = orv = (uint64_t)adj;
                LOOP(addr[l] = (uint64_t)adj);
            }
            /* one check for the whole warp where the space maps linearly
             * (global, const, shared, kernel params, generic in those) */
            uint8_t *base = NULL;
            int linear = sp != SP_LOCAL && sp != SP_LPARAM;
            if (linear && hi - lo < (1u << 30) && !(orv & (n - 1))) {
                int l0 = __builtin_ctz(m);
                base = xres(b, w, sp, lo, (unsigned)(hi - lo) + n, l0);
                if (base && sp == SP_GENERIC) {
                    /* generic: the range must not start in one window and
                     * end in another; xres checked it as one range */
                }
            }
            if (base) {
                intptr_t delta = (intptr_t)base - (intptr_t)lo;
                if (isst) {
                    for (int i = 0; i < nv; i++) {
                        const uint64_t *S = SLOT(in->s[i] < 0 ? 0 : in->s[i]);
                        switch (es) {
                        case 1: LOOP(*(uint8_t *)(uintptr_t)(addr[l] + (uint64_t)delta + (uint64_t)i) = (uint8_t)S[l]); break;
                        case 2: LOOP({ uint16_t v_ = (uint16_t)S[l]; memcpy((void *)(uintptr_t)(addr[l] + (uint64_t)delta + 2u * (uint64_t)i), &v_, 2); }); break;
                        case 4: LOOP({ uint32_t v_ = (uint32_t)S[l]; memcpy((void *)(uintptr_t)(addr[l] + (uint64_t)delta + 4u * (uint64_t)i), &v_, 4); }); break;
                        default: LOOP(memcpy((void *)(uintptr_t)(addr[l] + (uint64_t)delta + 8u * (uint64_t)i), &S[l], 8)); break;
                        }
                    }
                } else {
                    uint64_t val[4][32];
                    for (int i = 0; i < nv; i++)
                        LOOP(val[i][l] = ld_ext((const uint8_t *)(uintptr_t)(addr[l] + (uint64_t)delta) + i * es, t));
                    for (int i = 0; i < nv; i++) {
                        if (in->d[i] < 0) continue;
                        uint64_t *Di = SLOT(in->d[i]);
                        LOOP(Di[l] = val[i][l]);
                    }
                }
                break;
            }
            /* per lane: local/param windows, spread or bad addresses */
            uint64_t val[4][32];
            uint32_t mm = m;
            while (mm) {
                int l = __builtin_ctz(mm); mm &= mm - 1;
                uint64_t a = addr[l];
                uint8_t *p = xres(b, w, sp, a, n, l);
                if (!p) {
                    char what[48];
                    snprintf(what, sizeof what, "out-of-bounds %s %s of", sp_name(sp), isst ? "write" : "read");
                    fault_addr(b, w, l, in, HX_ERR_ILLEGAL_ADDRESS, what, a, n);
                    return W_ERR;
                }
                if (((uintptr_t)p & (uintptr_t)(n - 1)) && sp != SP_KPARAM && sp != SP_LPARAM) {
                    fault_addr(b, w, l, in, HX_ERR_MISALIGNED, isst ? "misaligned write of" : "misaligned read of", a, n);
                    return W_ERR;
                }
                if (isst) {
                    for (int i = 0; i < nv; i++) {
                        uint64_t v = SLOT(in->s[i] < 0 ? 0 : in->s[i])[l];
                        memcpy(p + i * es, &v, (size_t)es);
                    }
                } else {
                    for (int i = 0; i < nv; i++) val[i][l] = ld_ext(p + i * es, t);
                }
            }
            if (!isst)
                for (int i = 0; i < nv; i++) {
                    if (in->d[i] < 0) continue;
                    uint64_t *Di = SLOT(in->d[i]);
                    LOOP(Di[l] = val[i][l]);
                }
            break;
        }
        K(OP_CVTA, T_U32) K(OP_CVTA, T_U64) K(OP_CVTA_TO, T_U32) K(OP_CVTA_TO, T_U64) {
            int to = in->op == OP_CVTA_TO;
            int64_t symv = 0;
            if (in->sub) {
                symv = in->aoff;
                if (in->symk == SYMK_LOCAL) symv += fr->local_base;
                else if (in->symk == SYMK_LPARAM) symv += fr->lparam_base;
                else if (in->symk == SYMK_SHARED)
                    symv += (in->svar < b->kfn->smem_layout_n) ? b->kfn->smem_layout[in->svar] : 0;
            }
            int sp = in->sp;
            LOOP({
                uint64_t a = in->sub ? (uint64_t)symv : (in->t == T_U32 ? (uint32_t)A[l] : A[l]);
                uint64_t base = 0;
                if (sp == SP_SHARED) base = (uint64_t)(uintptr_t)b->smem;
                else if (sp == SP_LOCAL) base = (uint64_t)(uintptr_t)lwin(b, w, l);
                else if (sp == SP_KPARAM) base = (uint64_t)(uintptr_t)b->job->params;
                uint64_t r = to ? a - base : a + base;
                D[l] = in->t == T_U32 ? (uint32_t)r : r;
            });
            break;
        }
        K(OP_ISSPACEP, T_NONE) {
            uint32_t r = 0;
            uint64_t sb = (uint64_t)(uintptr_t)b->smem;
            LOOP({
                uint64_t a = A[l];
                int ins = a >= sb && a - sb < b->smem_size;
                uint64_t lb = (uint64_t)(uintptr_t)lwin(b, w, l);
                int inl = b->local && a >= lb && a - lb < b->lstride;
                int v;
                switch (in->sp) {
                case SP_SHARED: v = ins; break;
                case SP_LOCAL: v = inl; break;
                case SP_KPARAM: v = b->job->params && a >= (uint64_t)(uintptr_t)b->job->params &&
                                    a - (uint64_t)(uintptr_t)b->job->params < b->job->param_bytes; break;
                case SP_CONST: { tfl_alloc_info ai; v = tfl_mem_lookup((void *)(uintptr_t)a, &ai) &&
                                 ai.kind == TFL_MEM_MODULE_VAR; break; }
                default: v = !ins && !inl; break;
                }
                r |= (uint32_t)v << l;
            });
            P[in->d[0]] = (P[in->d[0]] & ~m) | (r & m);
            break;
        }
        /* ---------------------------------------------- integer */
        U2(OP_ADD, T_U16, (uint16_t)(A[l] + B[l]))
        U2(OP_ADD, T_U32, (uint32_t)(A[l] + B[l]))
        U2(OP_ADD, T_U64, A[l] + B[l])
        U2(OP_ADD, T_S32, ({ int64_t s_ = (int64_t)(int32_t)A[l] + (int32_t)B[l];
                             (uint32_t)(s_ > INT32_MAX ? INT32_MAX : s_ < INT32_MIN ? INT32_MIN : s_); }))
        U2(OP_SUB, T_U16, (uint16_t)(A[l] - B[l]))
        U2(OP_SUB, T_U32, (uint32_t)(A[l] - B[l]))
        U2(OP_SUB, T_U64, A[l] - B[l])
        U2(OP_SUB, T_S32, ({ int64_t s_ = (int64_t)(int32_t)A[l] - (int32_t)B[l];
                             (uint32_t)(s_ > INT32_MAX ? INT32_MAX : s_ < INT32_MIN ? INT32_MIN : s_); }))
        U2(OP_MUL, T_U16, (uint16_t)(A[l] * B[l]))
        U2(OP_MUL, T_U32, (uint32_t)((uint32_t)A[l] * (uint32_t)B[l]))
        U2(OP_MUL, T_U64, A[l] * B[l])
        U3(OP_MAD, T_U16, (uint16_t)(A[l] * B[l] + C[l]))
        U3(OP_MAD, T_U32, (uint32_t)((uint32_t)A[l] * (uint32_t)B[l] + (uint32_t)C[l]))
        U3(OP_MAD, T_U64, A[l] * B[l] + C[l])
        U2(OP_MULHI, T_U16, (uint16_t)(((uint32_t)(uint16_t)A[l] * (uint16_t)B[l]) >> 16))
        U2(OP_MULHI, T_S16, (uint16_t)(((int32_t)(int16_t)A[l] * (int16_t)B[l]) >> 16))
        U2(OP_MULHI, T_U32, (uint32_t)(((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]) >> 32))
        U2(OP_MULHI, T_S32, (uint32_t)(((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32))
        U2(OP_MULHI, T_U64, (uint64_t)(((unsigned __int128)A[l] * B[l]) >> 64))
        U2(OP_MULHI, T_S64, (uint64_t)(((__int128)(int64_t)A[l] * (int64_t)B[l]) >> 64))
        U3(OP_MADHI, T_U32, (uint32_t)((((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]) >> 32) + C[l]))
        U3(OP_MADHI, T_S32, (uint32_t)((((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32) + (int64_t)C[l]))
        U3(OP_MADHI, T_U64, (uint64_t)(((unsigned __int128)A[l] * B[l]) >> 64) + C[l])
        U3(OP_MADHI, T_S64, (uint64_t)(((__int128)(int64_t)A[l] * (int64_t)B[l]) >> 64) + C[l])
        U2(OP_MULWIDE, T_U16, (uint32_t)((uint32_t)(uint16_t)A[l] * (uint16_t)B[l]))
        U2(OP_MULWIDE, T_S16, (uint32_t)((int32_t)(int16_t)A[l] * (int16_t)B[l]))
        U2(OP_MULWIDE, T_U32, (uint64_t)(uint32_t)A[l] * (uint32_t)B[l])
        U2(OP_MULWIDE, T_S32, (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]))
        U3(OP_MADWIDE, T_U16, (uint32_t)((uint32_t)(uint16_t)A[l] * (uint16_t)B[l] + (uint32_t)C[l]))
        U3(OP_MADWIDE, T_S16, (uint32_t)((int32_t)(int16_t)A[l] * (int16_t)B[l] + (int32_t)C[l]))
        U3(OP_MADWIDE, T_U32, (uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + C[l])
        U3(OP_MADWIDE, T_S32, (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]) + C[l])
        U2(OP_MUL24, T_U32, (uint32_t)(((uint64_t)(A[l] & 0xffffff) * (B[l] & 0xffffff))))
        U2(OP_MUL24, T_S32, (uint32_t)((int64_t)(((int32_t)((uint32_t)A[l] << 8)) >> 8) *
                                       (((int32_t)((uint32_t)B[l] << 8)) >> 8)))
        U3(OP_MAD24, T_U32, (uint32_t)(((uint64_t)(A[l] & 0xffffff) * (B[l] & 0xffffff)) + C[l]))
        U3(OP_MAD24, T_S32, (uint32_t)((int64_t)(((int32_t)((uint32_t)A[l] << 8)) >> 8) *
                                       (((int32_t)((uint32_t)B[l] << 8)) >> 8) + (int64_t)C[l]))
        U3(OP_SAD, T_U32, (uint32_t)(((uint32_t)A[l] > (uint32_t)B[l] ? (uint32_t)A[l] - (uint32_t)B[l]
                                      : (uint32_t)B[l] - (uint32_t)A[l]) + (uint32_t)C[l]))
        U3(OP_SAD, T_S32, (uint32_t)(((int32_t)A[l] > (int32_t)B[l] ? (uint32_t)A[l] - (uint32_t)B[l]
                                      : (uint32_t)B[l] - (uint32_t)A[l]) + (uint32_t)C[l]))
        U3(OP_SAD, T_U64, (A[l] > B[l] ? A[l] - B[l] : B[l] - A[l]) + C[l])
        U3(OP_SAD, T_S64, ((int64_t)A[l] > (int64_t)B[l] ? A[l] - B[l] : B[l] - A[l]) + C[l])
        /* division: never trap the host (x/0, INT_MIN/-1) */
        U2(OP_DIV, T_U16, (uint16_t)B[l] ? (uint16_t)((uint16_t)A[l] / (uint16_t)B[l]) : 0xffff)
        U2(OP_DIV, T_S16, (int16_t)B[l] ? (uint16_t)((int16_t)A[l] / (int16_t)B[l]) : 0xffff)
        U2(OP_DIV, T_U32, (uint32_t)B[l] ? (uint32_t)A[l] / (uint32_t)B[l] : 0xffffffffu)
        U2(OP_DIV, T_S32, ((int32_t)B[l] == 0) ? 0xffffffffu
                          : ((int32_t)B[l] == -1) ? (uint32_t)(0u - (uint32_t)A[l])
                          : (uint32_t)((int32_t)A[l] / (int32_t)B[l]))
        U2(OP_DIV, T_U64, B[l] ? A[l] / B[l] : UINT64_MAX)
        U2(OP_DIV, T_S64, ((int64_t)B[l] == 0) ? UINT64_MAX
                          : ((int64_t)B[l] == -1) ? (0ull - A[l])
                          : (uint64_t)((int64_t)A[l] / (int64_t)B[l]))
        U2(OP_REM, T_U16, (uint16_t)B[l] ? (uint16_t)((uint16_t)A[l] % (uint16_t)B[l]) : (uint16_t)A[l])
        U2(OP_REM, T_S16, (int16_t)B[l] ? (uint16_t)((int16_t)A[l] % (int16_t)B[l]) : (uint16_t)A[l])
        U2(OP_REM, T_U32, (uint32_t)B[l] ? (uint32_t)A[l] % (uint32_t)B[l] : (uint32_t)A[l])
        U2(OP_REM, T_S32, ((int32_t)B[l] == 0) ? (uint32_t)A[l] : ((int32_t)B[l] == -1) ? 0u
                          : (uint32_t)((int32_t)A[l] % (int32_t)B[l]))
        U2(OP_REM, T_U64, B[l] ? A[l] % B[l] : A[l])
        U2(OP_REM, T_S64, ((int64_t)B[l] == 0) ? A[l] : ((int64_t)B[l] == -1) ? 0
                          : (uint64_t)((int64_t)A[l] % (int64_t)B[l]))
        U1(OP_ABS, T_S16, (uint16_t)((int16_t)A[l] < 0 ? -(uint16_t)A[l] : (uint16_t)A[l]))
        U1(OP_ABS, T_S32, (uint32_t)((int32_t)A[l] < 0 ? 0u - (uint32_t)A[l] : (uint32_t)A[l]))
        U1(OP_ABS, T_S64, (int64_t)A[l] < 0 ? 0ull - A[l] : A[l])
        U1(OP_NEG, T_U16, (uint16_t)(0u - A[l]))
        U1(OP_NEG, T_U32, (uint32_t)(0u - (uint32_t)A[l]))
        U1(OP_NEG, T_U64, 0ull - A[l])
        U2(OP_MIN, T_U16, (uint16_t)A[l] < (uint16_t)B[l] ? (uint16_t)A[l] : (uint16_t)B[l])
        U2(OP_MIN, T_S16, (int16_t)A[l] < (int16_t)B[l] ? (uint16_t)A[l] : (uint16_t)B[l])
        U2(OP_MIN, T_U32, (uint32_t)A[l] < (uint32_t)B[l] ? (uint32_t)A[l] : (uint32_t)B[l])
        U2(OP_MIN, T_S32, (int32_t)A[l] < (int32_t)B[l] ? (uint32_t)A[l] : (uint32_t)B[l])
        U2(OP_MIN, T_U64, A[l] < B[l] ? A[l] : B[l])
        U2(OP_MIN, T_S64, (int64_t)A[l] < (int64_t)B[l] ? A[l] : B[l])
        U2(OP_MAX, T_U16, (uint16_t)A[l] > (uint16_t)B[l] ? (uint16_t)A[l] : (uint16_t)B[l])
        U2(OP_MAX, T_S16, (int16_t)A[l] > (int16_t)B[l] ? (uint16_t)A[l] : (uint16_t)B[l])
        U2(OP_MAX, T_U32, (uint32_t)A[l] > (uint32_t)B[l] ? (uint32_t)A[l] : (uint32_t)B[l])
        U2(OP_MAX, T_S32, (int32_t)A[l] > (int32_t)B[l] ? (uint32_t)A[l] : (uint32_t)B[l])
        U2(OP_MAX, T_U64, A[l] > B[l] ? A[l] : B[l])
        U2(OP_MAX, T_S64, (int64_t)A[l] > (int64_t)B[l] ? A[l] : B[l])
        U2(OP_AND, T_U16, (uint16_t)(A[l] & B[l]))
        U2(OP_AND, T_U32, (uint32_t)(A[l] & B[l]))
        U2(OP_AND, T_U64, A[l] & B[l])
        U2(OP_OR, T_U16, (uint16_t)(A[l] | B[l]))
        U2(OP_OR, T_U32, (uint32_t)(A[l] | B[l]))
        U2(OP_OR, T_U64, A[l] | B[l])
        U2(OP_XOR, T_U16, (uint16_t)(A[l] ^ B[l]))
        U2(OP_XOR, T_U32, (uint32_t)(A[l] ^ B[l]))
        U2(OP_XOR, T_U64, A[l] ^ B[l])
        U1(OP_NOT, T_U16, (uint16_t)~A[l])
        U1(OP_NOT, T_U32, (uint32_t)~A[l])
        U1(OP_NOT, T_U64, ~A[l])
        U1(OP_CNOT, T_U16, (uint16_t)A[l] == 0)
        U1(OP_CNOT, T_U32, (uint32_t)A[l] == 0)
        U1(OP_CNOT, T_U64, A[l] == 0)
        K(OP_AND, T_PRED) K(OP_OR, T_PRED) K(OP_XOR, T_PRED) K(OP_NOT, T_PRED) {
            uint32_t x = P[in->p[0]], y = in->p[1] >= 0 ? P[in->p[1]] : 0;
            if (in->imm & 1) x = ~x;
            if (in->imm & 2) y = ~y;
            uint32_t r = in->op == OP_AND ? x & y : in->op == OP_OR ? x | y
                       : in->op == OP_XOR ? x ^ y : ~x;
            P[in->d[0]] = (P[in->d[0]] & ~m) | (r & m);
            break;
        }
        U3(OP_LOP3, T_U32, lop3((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], in->imm))
        U2(OP_SHL, T_U16, (uint32_t)B[l] >= 16 ? 0 : (uint16_t)(A[l] << (uint32_t)B[l]))
        U2(OP_SHL, T_U32, (uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (uint32_t)B[l]))
        U2(OP_SHL, T_U64, (uint32_t)B[l] >= 64 ? 0 : A[l] << (uint32_t)B[l])
        U2(OP_SHR, T_U16, (uint32_t)B[l] >= 16 ? 0 : (uint16_t)((uint16_t)A[l] >> (uint32_t)B[l]))
        U2(OP_SHR, T_U32, (uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (uint32_t)B[l])
        U2(OP_SHR, T_U64, (uint32_t)B[l] >= 64 ? 0 : A[l] >> (uint32_t)B[l])
        U2(OP_SHR, T_S16, (uint16_t)((int16_t)A[l] >> ((uint32_t)B[l] >= 15 ? 15 : (uint32_t)B[l])))
        U2(OP_SHR, T_S32, (uint32_t)((int32_t)A[l] >> ((uint32_t)B[l] >= 31 ? 31 : (uint32_t)B[l])))
        U2(OP_SHR, T_S64, (uint64_t)((int64_t)A[l] >> ((uint32_t)B[l] >= 63 ? 63 : (uint32_t)B[l])))
        U3(OP_SHF_L, T_U32, ({ uint32_t n_ = (in->flags & F_SHAMT) ? ((uint32_t)C[l] > 32 ? 32 : (uint32_t)C[l])
                                                                   : ((uint32_t)C[l] & 31);
                               uint64_t v_ = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
                               (uint32_t)((v_ << n_) >> 32); }))
        U3(OP_SHF_R, T_U32, ({ uint32_t n_ = (in->flags & F_SHAMT) ? ((uint32_t)C[l] > 32 ? 32 : (uint32_t)C[l])
                                                                   : ((uint32_t)C[l] & 31);
                               uint64_t v_ = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
                               (uint32_t)(v_ >> n_); }))
        K(OP_SHF_L, T_S32) K(OP_SHF_R, T_S32) K(OP_SHF_L, T_U64) K(OP_SHF_R, T_U64) {
            LOOP({
                uint32_t n_ = (in->flags & F_SHAMT) ? ((uint32_t)C[l] > 32 ? 32 : (uint32_t)C[l])
                                                    : ((uint32_t)C[l] & 31);
                uint64_t v_ = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
                D[l] = in->op == OP_SHF_L ? (uint32_t)((v_ << n_) >> 32) : (uint32_t)(v_ >> n_);
            });
            break;
        }
        U3(OP_BFE, T_U32, bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], T_U32))
        U3(OP_BFE, T_S32, bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], T_S32))
        U3(OP_BFE, T_U64, bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], T_U64))
        U3(OP_BFE, T_S64, bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], T_S64))
        K(OP_BFI, T_U32) K(OP_BFI, T_U64) {
            const uint64_t *E = SLOT(in->s[3]);
            LOOP(D[l] = bfi(A[l], B[l], (uint32_t)C[l], (uint32_t)E[l], in->t));
            break;
        }
        U1(OP_BREV, T_U32, ({ uint32_t x_ = (uint32_t)A[l], r_ = 0;
                              for (int i_ = 0; i_ < 32; i_++) r_ |= ((x_ >> i_) & 1u) << (31 - i_); r_; }))
        U1(OP_BREV, T_U64, ({ uint64_t x_ = A[l], r_ = 0;
                              for (int i_ = 0; i_ < 64; i_++) r_ |= ((x_ >> i_) & 1ull) << (63 - i_); r_; }))
        U1(OP_CLZ, T_U32, (uint32_t)A[l] ? (uint64_t)__builtin_clz((uint32_t)A[l]) : 32)
        U1(OP_CLZ, T_U64, A[l] ? (uint64_t)__builtin_clzll(A[l]) : 64)
        U1(OP_POPC, T_U32, (uint64_t)__builtin_popcount((uint32_t)A[l]))
        U1(OP_POPC, T_U64, (uint64_t)__builtin_popcountll(A[l]))
        K(OP_BFIND, T_U32) K(OP_BFIND, T_S32) K(OP_BFIND, T_U64) K(OP_BFIND, T_S64) {
            int w64 = in->t == T_U64 || in->t == T_S64;
            LOOP({
                uint64_t x = w64 ? A[l] : (uint32_t)A[l];
                if (is_signed(in->t) && (w64 ? (int64_t)x < 0 : (int32_t)x < 0))
                    x = w64 ? ~x : (uint32_t)~x;
                uint32_t r;
                if (!x) r = 0xffffffffu;
                else {
                    r = (uint32_t)(63 - __builtin_clzll(x));
                    if (in->sub) r = (uint32_t)(w64 ? 63 : 31) - r;
                }
                D[l] = r;
            });
            break;
        }
        K(OP_DP4A, T_U32) K(OP_DP4A, T_S32) {
            int sa = in->t == T_S32, sb = in->t2 == T_S32;
            LOOP({
                int64_t acc = sa || sb ? (int64_t)(int32_t)C[l] : (int64_t)(uint32_t)C[l];
                for (int i = 0; i < 4; i++) {
                    int32_t x = sa ? (int8_t)(A[l] >> (8 * i)) : (uint8_t)(A[l] >> (8 * i));
                    int32_t y = sb ? (int8_t)(B[l] >> (8 * i)) : (uint8_t)(B[l] >> (8 * i));
                    acc += (int64_t)x * y;
                }
                D[l] = (uint32_t)acc;
            });
            break;
        }
        K(OP_DP2A, T_U32) K(OP_DP2A, T_S32) {
            int sa = in->t == T_S32, sb = in->t2 == T_S32;
            int hi = (int)in->imm;
            LOOP({
                int64_t acc = sa || sb ? (int64_t)(int32_t)C[l] : (int64_t)(uint32_t)C[l];
                for (int i = 0; i < 2; i++) {
                    int32_t x = sa ? (int16_t)(A[l] >> (16 * i)) : (uint16_t)(A[l] >> (16 * i));
                    int sh = 8 * (i + (hi ? 2 : 0));
                    int32_t y = sb ? (int8_t)(B[l] >> sh) : (uint8_t)(B[l] >> sh);
                    acc += (int64_t)x * y;
                }
                D[l] = (uint32_t)acc;
            });
            break;
        }
        K(OP_BMSK, T_U32) {
            int clamp = in->flags & F_SHAMT;
            LOOP({
                uint32_t a_ = (uint32_t)A[l], b_ = (uint32_t)B[l];
                uint32_t pos = clamp ? (a_ > 32 ? 32 : a_) : (a_ & 31);
                uint32_t wid = clamp ? (b_ > 32 ? 32 : b_) : (b_ & 31);
                D[l] = pos >= 32 ? 0 : (uint32_t)((((uint64_t)1 << wid) - 1) << pos);
            });
            break;
        }
        K(OP_SZEXT, T_U32) K(OP_SZEXT, T_S32) {
            int clamp = in->flags & F_SHAMT, sg = in->t == T_S32;
            LOOP({
                uint32_t a_ = (uint32_t)A[l], b_ = (uint32_t)B[l];
                uint32_t nb = clamp ? (b_ > 32 ? 32 : b_) : (b_ & 31);
                uint32_t r;
                if (nb == 0) r = 0;
                else if (nb >= 32) r = a_;
                else if (sg) r = (uint32_t)((int32_t)(a_ << (32 - nb)) >> (32 - nb));
                else r = a_ & ((1u << nb) - 1);
                D[l] = r;
            });
            break;
        }
        U3(OP_PRMT, T_U32, prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], in->sub))
        /* ---------------------------------------------- f32 */
        U2(OP_ADD, T_F32, hx_fb(F32A + F32B))
        U2(OP_SUB, T_F32, hx_fb(F32A - F32B))
        U2(OP_MUL, T_F32, hx_fb(F32A * F32B))
        U3(OP_FMA, T_F32, hx_fb(fmaf(F32A, F32B, F32C)))
        U2(OP_DIV, T_F32, hx_fb(F32A / F32B))
        U1(OP_RCP, T_F32, hx_fb(1.0f / F32A))
        U1(OP_SQRT, T_F32, hx_fb(sqrtf(F32A)))
        U1(OP_RSQRT, T_F32, hx_fb(1.0f / sqrtf(F32A)))
        U1(OP_EX2, T_F32, hx_fb(exp2f(F32A)))
        U1(OP_LG2, T_F32, hx_fb(log2f(F32A)))
        U1(OP_SIN, T_F32, hx_fb(sinf(F32A)))
        U1(OP_COS, T_F32, hx_fb(cosf(F32A)))
        U1(OP_TANH, T_F32, hx_fb(tanhf(F32A)))
        U1(OP_ABS, T_F32, A[l] & 0x7fffffffu)
        U1(OP_NEG, T_F32, (A[l] ^ 0x80000000u) & 0xffffffffu)
        U2(OP_MIN, T_F32, hx_fb(hx_fminf(F32A, F32B, in->flags & F_NAN)))
        U2(OP_MAX, T_F32, hx_fb(hx_fmaxf(F32A, F32B, in->flags & F_NAN)))
        U2(OP_COPYSIGN, T_F32, hx_fb(copysignf(F32B, F32A)))
        /* ---------------------------------------------- f64 */
        U2(OP_ADD, T_F64, hx_db(F64A + F64B))
        U2(OP_SUB, T_F64, hx_db(F64A - F64B))
        U2(OP_MUL, T_F64, hx_db(F64A * F64B))
        U3(OP_FMA, T_F64, hx_db(fma(F64A, F64B, F64C)))
        U2(OP_DIV, T_F64, hx_db(F64A / F64B))
        U1(OP_RCP, T_F64, hx_db(1.0 / F64A))
        U1(OP_SQRT, T_F64, hx_db(sqrt(F64A)))
        U1(OP_RSQRT, T_F64, hx_db(1.0 / sqrt(F64A)))
        U1(OP_ABS, T_F64, A[l] & 0x7fffffffffffffffull)
        U1(OP_NEG, T_F64, A[l] ^ 0x8000000000000000ull)
        U2(OP_MIN, T_F64, hx_db(hx_fmin(F64A, F64B)))
        U2(OP_MAX, T_F64, hx_db(hx_fmax(F64A, F64B)))
        U2(OP_COPYSIGN, T_F64, hx_db(copysign(F64B, F64A)))
        U1(OP_EX2, T_F64, hx_db(exp2(F64A)))
        U1(OP_LG2, T_F64, hx_db(log2(F64A)))
        U1(OP_SIN, T_F64, hx_db(sin(F64A)))
        U1(OP_COS, T_F64, hx_db(cos(F64A)))
        /* ---------------------------------------------- f16 / bf16 */
        K(OP_ADD, T_F16) K(OP_SUB, T_F16) K(OP_MUL, T_F16) K(OP_FMA, T_F16) K(OP_NEG, T_F16)
        K(OP_ABS, T_F16) K(OP_MIN, T_F16) K(OP_MAX, T_F16) K(OP_EX2, T_F16) K(OP_TANH, T_F16)
        K(OP_RCP, T_F16) K(OP_SQRT, T_F16) K(OP_RSQRT, T_F16) K(OP_LG2, T_F16) K(OP_SIN, T_F16)
        K(OP_COS, T_F16)
        K(OP_ADD, T_BF16) K(OP_SUB, T_BF16) K(OP_MUL, T_BF16) K(OP_FMA, T_BF16) K(OP_NEG, T_BF16)
        K(OP_ABS, T_BF16) K(OP_MIN, T_BF16) K(OP_MAX, T_BF16) K(OP_EX2, T_BF16) K(OP_TANH, T_BF16)
        K(OP_RCP, T_BF16) K(OP_SQRT, T_BF16) K(OP_RSQRT, T_BF16) K(OP_LG2, T_BF16) K(OP_SIN, T_BF16)
        K(OP_COS, T_BF16) {
            int bf = in->t == T_BF16;
            LOOP(D[l] = half_op(in->op, (uint16_t)A[l], (uint16_t)B[l], (uint16_t)C[l], bf,
                                in->rnd, in->flags, 0));
            break;
        }
        K(OP_ADD, T_F16X2) K(OP_SUB, T_F16X2) K(OP_MUL, T_F16X2) K(OP_FMA, T_F16X2) K(OP_NEG, T_F16X2)
        K(OP_ABS, T_F16X2) K(OP_MIN, T_F16X2) K(OP_MAX, T_F16X2) K(OP_EX2, T_F16X2) K(OP_TANH, T_F16X2)
        K(OP_RCP, T_F16X2) K(OP_SQRT, T_F16X2) K(OP_RSQRT, T_F16X2) K(OP_LG2, T_F16X2)
        K(OP_SIN, T_F16X2) K(OP_COS, T_F16X2)
        K(OP_ADD, T_BF16X2) K(OP_SUB, T_BF16X2) K(OP_MUL, T_BF16X2) K(OP_FMA, T_BF16X2)
        K(OP_NEG, T_BF16X2) K(OP_ABS, T_BF16X2) K(OP_MIN, T_BF16X2) K(OP_MAX, T_BF16X2)
        K(OP_EX2, T_BF16X2) K(OP_TANH, T_BF16X2) K(OP_RCP, T_BF16X2) K(OP_SQRT, T_BF16X2)
        K(OP_RSQRT, T_BF16X2) K(OP_LG2, T_BF16X2) K(OP_SIN, T_BF16X2) K(OP_COS, T_BF16X2) {
            int bf = in->t == T_BF16X2;
            LOOP({
                uint16_t lo = half_op(in->op, (uint16_t)A[l], (uint16_t)B[l], (uint16_t)C[l], bf,
                                      in->rnd, in->flags, 0);
                uint16_t hi = half_op(in->op, (uint16_t)(A[l] >> 16), (uint16_t)(B[l] >> 16),
                                      (uint16_t)(C[l] >> 16), bf, in->rnd, in->flags, 0);
                D[l] = ((uint32_t)hi << 16) | lo;
            });
            break;
        }
        /* ---------------------------------------------- compare / select */
        K(OP_SETP, T_U16) K(OP_SETP, T_U32) K(OP_SETP, T_U64) K(OP_SETP, T_S16) K(OP_SETP, T_S32)
        K(OP_SETP, T_S64) K(OP_SETP, T_F32) K(OP_SETP, T_F64) K(OP_SETP, T_F16) K(OP_SETP, T_BF16)
        K(OP_SETP, T_U8) K(OP_SETP, T_S8) K(OP_SETP, T_F16X2) K(OP_SETP, T_BF16X2) {
            uint32_t r = 0, r2 = 0;
            int t = in->t, c = in->cmp;
            if (t == T_F32 && c <= C_GE) {
                /* the common case, kept branch-light */
                switch (c) {
                case C_EQ: LOOP(r |= (uint32_t)(F32A == F32B) << l); break;
                case C_NE: LOOP(r |= (uint32_t)(F32A != F32B && !isnan(F32A) && !isnan(F32B)) << l); break;
                case C_LT: LOOP(r |= (uint32_t)(F32A < F32B) << l); break;
                case C_LE: LOOP(r |= (uint32_t)(F32A <= F32B) << l); break;
                case C_GT: LOOP(r |= (uint32_t)(F32A > F32B) << l); break;
                default: LOOP(r |= (uint32_t)(F32A >= F32B) << l); break;
                }
            } else if (t == T_S32 || t == T_U32) {
                int sg = t == T_S32;
                switch (c) {
                case C_EQ: LOOP(r |= (uint32_t)((uint32_t)A[l] == (uint32_t)B[l]) << l); break;
                case C_NE: LOOP(r |= (uint32_t)((uint32_t)A[l] != (uint32_t)B[l]) << l); break;
                case C_LT: if (sg) { LOOP(r |= (uint32_t)((int32_t)A[l] < (int32_t)B[l]) << l); } else { LOOP(r |= (uint32_t)((uint32_t)A[l] < (uint32_t)B[l]) << l); } break;
                case C_LE: if (sg) { LOOP(r |= (uint32_t)((int32_t)A[l] <= (int32_t)B[l]) << l); } else { LOOP(r |= (uint32_t)((uint32_t)A[l] <= (uint32_t)B[l]) << l); } break;
                case C_GT: if (sg) { LOOP(r |= (uint32_t)((int32_t)A[l] > (int32_t)B[l]) << l); } else { LOOP(r |= (uint32_t)((uint32_t)A[l] > (uint32_t)B[l]) << l); } break;
                case C_GE: if (sg) { LOOP(r |= (uint32_t)((int32_t)A[l] >= (int32_t)B[l]) << l); } else { LOOP(r |= (uint32_t)((uint32_t)A[l] >= (uint32_t)B[l]) << l); } break;
                case C_LO: LOOP(r |= (uint32_t)((uint32_t)A[l] < (uint32_t)B[l]) << l); break;
                case C_LS: LOOP(r |= (uint32_t)((uint32_t)A[l] <= (uint32_t)B[l]) << l); break;
                case C_HI: LOOP(r |= (uint32_t)((uint32_t)A[l] > (uint32_t)B[l]) << l); break;
                case C_HS: LOOP(r |= (uint32_t)((uint32_t)A[l] >= (uint32_t)B[l]) << l); break;
                default: break;
                }
            } else if (t == T_F16X2 || t == T_BF16X2) {
                int bf = t == T_BF16X2;
                LOOP({
                    r |= (uint32_t)half_op(OP_SETP, (uint16_t)A[l], (uint16_t)B[l], 0, bf, 0, 0, c) << l;
                    r2 |= (uint32_t)half_op(OP_SETP, (uint16_t)(A[l] >> 16), (uint16_t)(B[l] >> 16), 0,
                                            bf, 0, 0, c) << l;
                });
            } else if (is_float(t)) {
                LOOP(r |= (uint32_t)cmp_f(c, as_double(A[l], t), as_double(B[l], t)) << l);
            } else {
                LOOP(r |= (uint32_t)cmp_i(c, sext(A[l], t), sext(B[l], t),
                                          (uint64_t)sext(A[l], unsigned_t(t)),
                                          (uint64_t)sext(B[l], unsigned_t(t))) << l);
            }
            int paired = t == T_F16X2 || t == T_BF16X2;
            uint32_t q = paired ? r2 : ~r;
            if (in->bop) {
                uint32_t c2 = P[in->p[1]];
                if (in->p[2]) c2 = ~c2;
                if (in->bop == B_AND) { r &= c2; q &= c2; }
                else if (in->bop == B_OR) { r |= c2; q |= c2; }
                else { r ^= c2; q ^= c2; }
            }
            P[in->d[0]] = (P[in->d[0]] & ~m) | (r & m);
            if (in->p[0] >= 0) P[in->p[0]] = (P[in->p[0]] & ~m) | (q & m);
            break;
        }
        K(OP_SET, T_U16) K(OP_SET, T_U32) K(OP_SET, T_U64) K(OP_SET, T_S16) K(OP_SET, T_S32)
        K(OP_SET, T_S64) K(OP_SET, T_F32) K(OP_SET, T_F64) K(OP_SET, T_F16) K(OP_SET, T_BF16)
        K(OP_SET, T_F16X2) K(OP_SET, T_BF16X2) {
            int t = in->t, c = in->cmp, dt = in->t2;
            uint32_t c2 = in->bop ? P[in->p[1]] : 0;
            if (in->p[2]) c2 = ~c2;
            /* "true" in the destination type */
            uint64_t one = dt == T_F32 ? hx_fb(1.0f) : dt == T_F16 ? 0x3c00 : dt == T_BF16 ? 0x3f80
                         : dt == T_F16X2 ? 0x3c00 : dt == T_BF16X2 ? 0x3f80 : 0xffffffffu;
            int pairs = t == T_F16X2 || t == T_BF16X2;
            LOOP({
                uint64_t res = 0;
                for (int h = 0; h < (pairs ? 2 : 1); h++) {
                    int r;
                    if (pairs)
                        r = half_op(OP_SETP, (uint16_t)(A[l] >> (16 * h)), (uint16_t)(B[l] >> (16 * h)),
                                    0, t == T_BF16X2, 0, 0, c);
                    else
                        r = is_float(t) ? cmp_f(c, as_double(A[l], t), as_double(B[l], t))
                                        : cmp_i(c, sext(A[l], t), sext(B[l], t),
                                                (uint64_t)sext(A[l], unsigned_t(t)),
                                                (uint64_t)sext(B[l], unsigned_t(t)));
                    int cb = (c2 >> l) & 1;
                    if (in->bop == B_AND) r &= cb; else if (in->bop == B_OR) r |= cb;
                    else if (in->bop == B_XOR) r ^= cb;
                    if (r) res |= pairs ? (dt == T_U32 || dt == T_S32 ? 0xffffull : one) << (16 * h) : one;
                }
                D[l] = res;
            });
            break;
        }
        K(OP_SELP, T_U16) K(OP_SELP, T_U32) K(OP_SELP, T_U64) K(OP_SELP, T_F32) K(OP_SELP, T_F64)
        K(OP_SELP, T_U8) K(OP_SELP, T_F16) K(OP_SELP, T_BF16) K(OP_SELP, T_F16X2) K(OP_SELP, T_BF16X2) {
            uint32_t p = P[in->p[0]];
            if (in->p[1]) p = ~p;
            LOOP(D[l] = ((p >> l) & 1) ? A[l] : B[l]);
            break;
        }
        K(OP_SLCT, T_U32) K(OP_SLCT, T_S32) K(OP_SLCT, T_U64) K(OP_SLCT, T_S64) K(OP_SLCT, T_F32)
        K(OP_SLCT, T_F64) K(OP_SLCT, T_U16) K(OP_SLCT, T_S16) {
            int ft = in->t2 == T_F32;
            LOOP(D[l] = (ft ? (hx_f(C[l]) >= 0.0f) : ((int32_t)C[l] >= 0)) ? A[l] : B[l]);
            break;
        }
        K(OP_TESTP, T_F32) K(OP_TESTP, T_F64) {
            uint32_t r = 0;
            LOOP(r |= (uint32_t)testp(in->sub, as_double(A[l], in->t), in->t) << l);
            P[in->d[0]] = (P[in->d[0]] & ~m) | (r & m);
            break;
        }
        /* ---------------------------------------------- conversions */
        K(OP_CVT, T_U8) K(OP_CVT, T_U16) K(OP_CVT, T_U32) K(OP_CVT, T_U64) K(OP_CVT, T_S8)
        K(OP_CVT, T_S16) K(OP_CVT, T_S32) K(OP_CVT, T_S64) K(OP_CVT, T_F16) K(OP_CVT, T_F32)
        K(OP_CVT, T_F64) K(OP_CVT, T_BF16) {
            int dt = in->t, st = in->t2;
            if (dt == T_F32 && st == T_F16 && !in->flags)
                LOOP(D[l] = hx_fb(hx_h2f((uint16_t)A[l])));
            else if (dt == T_F32 && st == T_BF16 && !in->flags)
                LOOP(D[l] = hx_fb(hx_bf2f((uint16_t)A[l])));
            else if (dt == T_F32 && st == T_S32 && in->rnd == R_RN && !in->flags)
                LOOP(D[l] = hx_fb((float)(int32_t)A[l]));
            else if (dt == T_F32 && st == T_U32 && in->rnd == R_RN && !in->flags)
                LOOP(D[l] = hx_fb((float)(uint32_t)A[l]));
            else if (dt == T_F64 && st == T_F32 && !in->flags)
                LOOP(D[l] = hx_db((double)hx_f(A[l])));
            else if ((dt == T_U64 || dt == T_S64) && st == T_U32 && !in->flags)
                LOOP(D[l] = (uint32_t)A[l]);
            else if ((dt == T_U64 || dt == T_S64) && st == T_S32 && !in->flags)
                LOOP(D[l] = (uint64_t)(int64_t)(int32_t)A[l]);
            else if ((dt == T_U32 || dt == T_S32) && (st == T_U64 || st == T_S64) && !in->flags)
                LOOP(D[l] = (uint32_t)A[l]);
            else
                LOOP(D[l] = cvt_val(A[l], dt, st, in->rnd, in->flags));
            break;
        }
        K(OP_CVTPACK, T_F16X2) K(OP_CVTPACK, T_BF16X2) {
            int bf = in->t == T_BF16X2;
            LOOP({
                uint16_t hi = h_out(hx_f(A[l]), bf, in->rnd, in->flags);
                uint16_t lo = h_out(hx_f(B[l]), bf, in->rnd, in->flags);
                D[l] = ((uint32_t)hi << 16) | lo;
            });
            break;
        }
        /* ---------------------------------------------- control */
        K(OP_BRA, T_NONE) {
            if (__builtin_expect(hx_step_limit != 0, 0) && ++w->steps > hx_step_limit) {
                fail(b, HX_ERR_LAUNCH_CONFIG, "kernel %s: step limit reached", b->kfn->name);
                return W_ERR;
            }
            uint32_t taken = m, fallthrough = act & ~m;
            if (!taken) { pc++; continue; }
            if (!fallthrough) { pc = in->target; continue; }
            /* divergence */
            int r = in->rpc;
            if (w->sp + 2 > w->stkcap) {
                if (w->stkcap >= MAX_STACK) {
                    fail(b, HX_ERR_LAUNCH_CONFIG, "kernel %s: divergence stack overflow", b->kfn->name);
                    return W_ERR;
                }
                hx_stk *ns = realloc(w->stk, (size_t)w->stkcap * 2 * sizeof *ns);
                if (!ns) { fail(b, HX_ERR_NOMEM, "kernel %s: out of memory", b->kfn->name); return W_ERR; }
                w->stk = ns; w->stkcap *= 2;
            }
            top = &w->stk[w->sp - 1];
            if (r == top->rpc) {
                top->pc = pc + 1; top->mask = fallthrough;
            } else {
                top->pc = r;
                w->stk[w->sp++] = (hx_stk){ pc + 1, r, fallthrough };
            }
            w->stk[w->sp++] = (hx_stk){ in->target, r, taken };
            top = &w->stk[w->sp - 1];
            pc = in->target; rpc = r; act = taken;
            continue;
        }
        K(OP_RET, T_NONE) K(OP_EXIT, T_NONE) {
            if (in->op == OP_EXIT || w->nfr == 1) w->exited |= m;
            else fr->returned |= m;
            dead = w->exited | fr->returned;
            act &= ~m;
            if (act) pc++;
            continue;
        }
        K(OP_TRAP, T_NONE) {
            int l = __builtin_ctz(m);
            unsigned t[3];
            tid_of(b, w->id, l, t);
            fail(b, HX_ERR_TRAP, "kernel %s: trap in block (%u,%u,%u) thread (%u,%u,%u) (PTX line %d)",
                 b->kfn->name, b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2], in->line);
            return W_ERR;
        }
        K(OP_CALL, T_NONE) {
            hx_func *cal = b->mod->funcs[in->target];
            const hx_callsite *cs = &fn->calls[in->aux];
            if (w->nfr >= MAX_FRAMES) {
                fail(b, HX_ERR_LAUNCH_CONFIG, "kernel %s: call stack overflow (depth %d)",
                     b->kfn->name, w->nfr);
                return W_ERR;
            }
            hx_frame nf;
            memset(&nf, 0, sizeof nf);
            nf.fn = cal;
            nf.reg_base = fr->reg_base + (size_t)fn->nslots;
            nf.pred_base = fr->pred_base + (size_t)fn->npreds;
            nf.lparam_base = fr->lparam_base + (int64_t)fn->lparam_bytes;
            nf.local_base = fr->local_base + (int64_t)fn->local_bytes;
            nf.call_mask = m;
            nf.cs = cs;
            if ((uint64_t)nf.lparam_base + cal->lparam_bytes > b->lpstride ||
                (uint64_t)nf.local_base + cal->local_bytes > b->lstride) {
                fail(b, HX_ERR_LAUNCH_CONFIG, "kernel %s: stack overflow calling %s (depth %d)",
                     b->kfn->name, cal->name, w->nfr);
                return W_ERR;
            }
            if (ensure_regs(w, nf.reg_base + (size_t)cal->nslots + 1, nf.pred_base + (size_t)cal->npreds + 1)) {
                fail(b, HX_ERR_NOMEM, "kernel %s: out of memory for registers", b->kfn->name);
                return W_ERR;
            }
            if (w->nfr >= w->frcap) {
                int nc = w->frcap * 2;
                hx_frame *nfa = realloc(w->fr, (size_t)nc * sizeof *nfa);
                if (!nfa) { fail(b, HX_ERR_NOMEM, "kernel %s: out of memory", b->kfn->name); return W_ERR; }
                w->fr = nfa; w->frcap = nc;
                fr = &w->fr[w->nfr - 1];       /* the caller's frame moved */
            }
            if (w->sp + 1 > w->stkcap) {
                hx_stk *ns = realloc(w->stk, (size_t)w->stkcap * 2 * sizeof *ns);
                if (!ns) { fail(b, HX_ERR_NOMEM, "kernel %s: out of memory", b->kfn->name); return W_ERR; }
                w->stk = ns; w->stkcap *= 2;
            }
            /* arguments: caller call-site params -> callee formals; a
             * call site whose params are smaller than the formals must not
             * read past the lane's window */
            for (int i = 0; i < cs->nargs && i < cal->nparams; i++) {
                if ((uint64_t)fr->lparam_base + (uint64_t)cs->arg_off[i] + cal->params[i].size > b->lpstride) {
                    fail(b, HX_ERR_PTX, "kernel %s: call to %s: argument %d does not fit its parameter",
                         b->kfn->name, cal->name, i);
                    return W_ERR;
                }
            }
            for (int i = 0; i < cs->nargs && i < cal->nparams; i++) {
                for (uint32_t mm = m; mm; mm &= mm - 1) {
                    int l = __builtin_ctz(mm);
                    uint8_t *lp = lpwin(b, w, l);
                    memmove(lp + nf.lparam_base + cal->params[i].offset,
                            lp + fr->lparam_base + cs->arg_off[i], cal->params[i].size);
                }
            }
            w->stk[w->sp - 1].pc = pc + 1;
            nf.stk_base = w->sp;
            w->stk[w->sp++] = (hx_stk){ 0, -1, m };
            w->fr[w->nfr++] = nf;
            fr = &w->fr[w->nfr - 1];
            fn = cal;
            code = fn->code;
            regs = w->regs + fr->reg_base * 32;
            P = w->preds + fr->pred_base;
            init_slots(b, w, fn, regs);
            dead = w->exited;
            top = &w->stk[w->sp - 1];
            pc = 0; rpc = -1; act = m & ~dead;
            continue;
        }
        K(OP_PRINTF, T_NONE) {
            hx_status st = do_printf(b, w, in, m, fr);
            if (st) return W_ERR;
            break;
        }
        K(OP_ASSERT, T_NONE) {
            do_assert(b, w, in, m, fr);
            return W_ERR;
        }
        K(OP_MALLOC, T_NONE) K(OP_FREE, T_NONE) {
            const hx_callsite *cs = &fn->calls[in->aux];
            for (uint32_t mm = m; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                uint8_t *lp = lpwin(b, w, l) + fr->lparam_base;
                uint64_t arg = 0;
                if (cs->nargs > 0) arg = lp_arg(b, fr, lpwin(b, w, l), cs->arg_off[0], 8);
                if (in->op == OP_MALLOC) {
                    void *p = NULL;
                    if (tfl_mem_alloc(arg ? arg : 1, TFL_MEM_DEVICE, 0, 0, &p) != TFL_OK) p = NULL;
                    uint64_t r = (uint64_t)(uintptr_t)p;
                    if (cs->nrets > 0 && (uint64_t)fr->lparam_base + (uint64_t)cs->ret_off[0] + 8 <= b->lpstride)
                        memcpy(lp + cs->ret_off[0], &r, 8);
                } else if (arg) {
                    tfl_mem_free((void *)(uintptr_t)arg, 1u << TFL_MEM_DEVICE);
                }
            }
            break;
        }
        K(OP_BAR, T_NONE) K(OP_BAR, T_U32) K(OP_BARARRIVE, T_NONE) K(OP_BARARRIVE, T_U32)
        K(OP_BARRED, T_U32) K(OP_BARRED, T_PRED) K(OP_BARRED, T_NONE) {
            int l0 = act ? __builtin_ctz(act) : 0;
            int id = (int)(A[l0] & 15);
            int cnt = in->s[1] >= 0 ? (int)(B[l0]) : 0;
            b->bar_expect[id] = cnt > 0 ? (cnt + 31) / 32 : 0;
            if (in->op == OP_BARRED) {
                uint32_t p = P[in->p[0]];
                if (in->p[1]) p = ~p;
                p &= act;
                if (!b->bar_red_used[id]) {
                    b->bar_red_used[id] = 1;
                    b->bar_popc[id] = 0; b->bar_and[id] = 1; b->bar_or[id] = 0;
                }
                b->bar_popc[id] += (uint32_t)__builtin_popcount(p);
                if (p != act) b->bar_and[id] = 0;
                if (p) b->bar_or[id] = 1;
                w->bar_red = in;
                w->bar_red_mask = act;
            }
            b->bar_arrived[id]++;
            w->stk[w->sp - 1].pc = pc + 1;
            if (in->op == OP_BARARRIVE) break;
            w->bar_id = id;
            w->state = W_BAR;
            return W_BAR;
        }
        /* ---------------------------------------------- atomics */
        K(OP_ATOM, T_U16) K(OP_ATOM, T_U32) K(OP_ATOM, T_U64) K(OP_ATOM, T_S32) K(OP_ATOM, T_S64)
        K(OP_ATOM, T_F32) K(OP_ATOM, T_F64) K(OP_ATOM, T_F16) K(OP_ATOM, T_BF16) K(OP_ATOM, T_F16X2)
        K(OP_ATOM, T_BF16X2) {
            unsigned n = (unsigned)tsize(in->t);
            int64_t adj = in->aoff;
            if (in->symk == SYMK_SHARED)
                adj += (in->svar < b->kfn->smem_layout_n) ? b->kfn->smem_layout[in->svar] : 0;
            else if (in->symk == SYMK_LOCAL) adj += fr->local_base;
            const uint64_t *Ab = in->abase >= 0 ? SLOT(in->abase) : NULL;
            uint64_t res[32];
            uint32_t mm = m;
            while (mm) {
                int l = __builtin_ctz(mm); mm &= mm - 1;
                uint64_t a = (Ab ? Ab[l] : 0) + (uint64_t)adj;
                uint8_t *p = xres(b, w, in->sp, a, n, l);
                if (!p) {
                    fault_addr(b, w, l, in, HX_ERR_ILLEGAL_ADDRESS, "out-of-bounds atomic on", a, n);
                    return W_ERR;
                }
                if ((uintptr_t)p & (n - 1)) {
                    fault_addr(b, w, l, in, HX_ERR_MISALIGNED, "misaligned atomic on", a, n);
                    return W_ERR;
                }
                res[l] = atom_op(p, in->sub, in->t, A[l], B[l]);
            }
            if (in->d[0] >= 0) LOOP(D[l] = res[l]);
            break;
        }
        /* ---------------------------------------------- warp collectives */
        K(OP_SHFL, T_U32) K(OP_SHFL, T_F32) K(OP_SHFL, T_S32) {
            uint64_t src[32];
            for (int l = 0; l < 32; l++) src[l] = A[l];
            uint32_t pv = 0;
            LOOP({
                int lane = l;
                uint32_t bv = (uint32_t)B[l] & 31, cv = (uint32_t)C[l];
                uint32_t segmask = (cv >> 8) & 31, clampv = cv & 31;
                int maxl = (int)((lane & segmask) | (clampv & ~segmask));
                int minl = (int)(lane & segmask);
                int j, ok;
                switch (in->sub) {
                case SH_UP: j = lane - (int)bv; ok = j >= maxl; break;
                case SH_DOWN: j = lane + (int)bv; ok = j <= maxl; break;
                case SH_BFLY: j = lane ^ (int)bv; ok = j <= maxl; break;
                default: j = minl | (int)(bv & ~segmask); ok = j <= maxl; break;
                }
                if (!ok || j < 0 || j > 31) j = lane;
                D[l] = (uint32_t)src[j];
                pv |= (uint32_t)ok << l;
            });
            if (in->p[0] >= 0) P[in->p[0]] = (P[in->p[0]] & ~m) | (pv & m);
            break;
        }
        K(OP_VOTE, T_NONE) K(OP_VOTE, T_U32) K(OP_VOTE, T_PRED) {
            uint32_t p = P[in->p[0]];
            if (in->p[1]) p = ~p;
            uint32_t mem = m;
            uint32_t ballot = p & mem;
            if (in->sub == V_BALLOT) { LOOP(D[l] = ballot); break; }
            int v = in->sub == V_ALL ? ballot == mem : in->sub == V_ANY ? ballot != 0
                                                       : (ballot == 0 || ballot == mem);
            uint32_t r = v ? FULL : 0;
            P[in->d[0]] = (P[in->d[0]] & ~m) | (r & m);
            break;
        }
        K(OP_MATCH, T_U32) K(OP_MATCH, T_U64) K(OP_MATCH, T_NONE) {
            if (in->sub == 2) {           /* elect.sync */
                uint32_t leader = m ? (1u << __builtin_ctz(m)) : 0;
                if (in->d[0] >= 0) LOOP(D[l] = (uint32_t)__builtin_ctz(m));
                if (in->p[0] >= 0) P[in->p[0]] = (P[in->p[0]] & ~m) | (leader & m);
                break;
            }
            uint64_t src[32];
            uint64_t wm = in->t == T_U64 ? UINT64_MAX : 0xffffffffu;
            for (int l = 0; l < 32; l++) src[l] = A[l] & wm;
            if (in->sub == 0) {
                LOOP({
                    uint32_t r = 0;
                    for (uint32_t q = m; q; q &= q - 1) {
                        int k = __builtin_ctz(q);
                        if (src[k] == src[l]) r |= 1u << k;
                    }
                    D[l] = r;
                });
            } else {
                int all = 1;
                int l0 = __builtin_ctz(m);
                for (uint32_t q = m; q; q &= q - 1)
                    if (src[__builtin_ctz(q)] != src[l0]) all = 0;
                LOOP(D[l] = all ? m : 0);
                if (in->p[0] >= 0) P[in->p[0]] = (P[in->p[0]] & ~m) | ((all ? FULL : 0) & m);
            }
            break;
        }
        K(OP_REDUX, T_U32) K(OP_REDUX, T_S32) K(OP_REDUX, T_F32) {
            int l0 = __builtin_ctz(m);
            uint64_t acc = (uint32_t)A[l0];
            for (uint32_t q = m & (m - 1); q; q &= q - 1) {
                int k = __builtin_ctz(q);
                uint32_t x = (uint32_t)A[k], y = (uint32_t)acc;
                switch (in->sub) {
                case A_ADD: acc = (uint32_t)(y + x); break;
                case A_AND: acc = y & x; break;
                case A_OR: acc = y | x; break;
                case A_XOR: acc = y ^ x; break;
                case A_MIN:
                    if (in->t == T_F32) acc = hx_fb(hx_fminf(hx_f(y), hx_f(x), in->flags & F_NAN));
                    else acc = in->t == T_S32 ? ((int32_t)x < (int32_t)y ? x : y) : (x < y ? x : y);
                    break;
                case A_MAX:
                    if (in->t == T_F32) acc = hx_fb(hx_fmaxf(hx_f(y), hx_f(x), in->flags & F_NAN));
                    else acc = in->t == T_S32 ? ((int32_t)x > (int32_t)y ? x : y) : (x > y ? x : y);
                    break;
                default: break;
                }
            }
            LOOP(D[l] = acc);
            break;
        }
        K(OP_ACTIVEMASK, T_U32) K(OP_ACTIVEMASK, T_NONE) {
            LOOP(D[l] = act);
            break;
        }
        K(OP_ADDX, T_U32) K(OP_SUBX, T_U32) K(OP_MADX, T_U32) {
            uint32_t cf = P[in->p[0]], out = 0;
            int cin = in->imm & 1;
            LOOP({
                uint64_t c = cin ? (cf >> l) & 1 : 0, r;
                if (in->op == OP_ADDX) r = (uint64_t)(uint32_t)A[l] + (uint32_t)B[l] + c;
                else if (in->op == OP_SUBX) r = (uint64_t)(uint32_t)A[l] - (uint32_t)B[l] - c;
                else {
                    uint64_t p_ = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l];
                    r = (uint64_t)(uint32_t)(in->sub ? p_ >> 32 : p_) + (uint32_t)C[l] + c;
                }
                D[l] = (uint32_t)r;
                out |= (uint32_t)((r >> 32) & 1) << l;    /* carry out / borrow */
            });
            if (in->imm & 2) P[in->p[0]] = (cf & ~m) | (out & m);
            break;
        }
        K(OP_ADDX, T_U64) K(OP_SUBX, T_U64) K(OP_MADX, T_U64) {
            uint32_t cf = P[in->p[0]], out = 0;
            int cin = in->imm & 1;
            LOOP({
                unsigned __int128 c = cin ? (cf >> l) & 1 : 0, r;
                if (in->op == OP_ADDX) r = (unsigned __int128)A[l] + B[l] + c;
                else if (in->op == OP_SUBX) r = (unsigned __int128)A[l] - B[l] - c;
                else {
                    unsigned __int128 p_ = (unsigned __int128)A[l] * B[l];
                    r = (unsigned __int128)(uint64_t)(in->sub ? (uint64_t)(p_ >> 64) : (uint64_t)p_) + C[l] + c;
                }
                D[l] = (uint64_t)r;
                out |= (uint32_t)((uint64_t)(r >> 64) & 1) << l;
            });
            if (in->imm & 2) P[in->p[0]] = (cf & ~m) | (out & m);
            break;
        }
        K(OP_MMA, T_NONE) {
            /* warp-wide matrix multiply-accumulate; fragment layouts as
             * in the PTX ISA (groupID = lane / 4, tig = lane % 4) */
            int K = in->sub == 1 ? 16 : in->sub == 2 ? 8 : 4;
            int tf32 = in->t == T_F32, bf = in->t == T_BF16, cf32 = in->t2 == T_F32;
            float Am[16][16], Bm[16][8], Cm[16][8];
            memset(Am, 0, sizeof Am); memset(Bm, 0, sizeof Bm);
            for (int l = 0; l < 32; l++) {
                int g = l >> 2, tg = l & 3;
                if (tf32) {
                    for (int i = 0; i < in->vec; i++) {
                        float v = hx_f(SLOT(in->s[i])[l] & 0xffffe000u);
                        int r = K == 8 ? g + 8 * (i & 1) : g + 8 * i;
                        int c = K == 8 ? tg + 4 * (i >> 1) : tg;
                        Am[r][c] = v;
                    }
                    for (int i = 0; i < (int)in->imm; i++)
                        Bm[tg + 4 * i][g] = hx_f(SLOT(in->x[i])[l] & 0xffffe000u);
                } else {
                    for (int e = 0; e < 2 * in->vec; e++) {
                        uint16_t h = (uint16_t)(SLOT(in->s[e >> 1])[l] >> (16 * (e & 1)));
                        float v = bf ? hx_bf2f(h) : hx_h2f(h);
                        int r = K == 16 ? g + 8 * ((e >> 1) & 1) : g + 8 * (e >> 1);
                        int c = tg * 2 + (e & 1) + (K == 16 ? 8 * (e >> 2) : 0);
                        Am[r][c] = v;
                    }
                    for (int e = 0; e < 2 * (int)in->imm; e++) {
                        uint16_t h = (uint16_t)(SLOT(in->x[e >> 1])[l] >> (16 * (e & 1)));
                        int r = tg * 2 + (e & 1) + 8 * (e >> 1);
                        Bm[r][g] = bf ? hx_bf2f(h) : hx_h2f(h);
                    }
                }
                for (int i = 0; i < 4; i++) {
                    int r = g + 8 * (i >> 1), c = tg * 2 + (i & 1);
                    Cm[r][c] = cf32 ? hx_f(SLOT(in->x[2 + i])[l])
                                    : hx_h2f((uint16_t)(SLOT(in->x[2 + (i >> 1)])[l] >> (16 * (i & 1))));
                }
            }
            float Dm[16][8];
            for (int r = 0; r < 16; r++)
                for (int c = 0; c < 8; c++) {
                    double acc = Cm[r][c];
                    for (int k = 0; k < K; k++) acc += (double)Am[r][k] * Bm[k][c];
                    Dm[r][c] = (float)acc;
                }
            for (int l = 0; l < 32; l++) {
                int g = l >> 2, tg = l & 3;
                if (cf32) {
                    for (int i = 0; i < 4; i++)
                        SLOT(in->d[i])[l] = hx_fb(Dm[g + 8 * (i >> 1)][tg * 2 + (i & 1)]);
                } else {
                    for (int j = 0; j < 2; j++) {
                        uint16_t lo = hx_d2h(Dm[g + 8 * j][tg * 2], R_RN);
                        uint16_t hi = hx_d2h(Dm[g + 8 * j][tg * 2 + 1], R_RN);
                        SLOT(in->d[j])[l] = ((uint32_t)hi << 16) | lo;
                    }
                }
            }
            break;
        }
        K(OP_LDMATRIX, T_NONE) {
            int nm = in->vec;
            int64_t adj = in->aoff;
            if (in->symk == SYMK_SHARED)
                adj += (in->svar < b->kfn->smem_layout_n) ? b->kfn->smem_layout[in->svar] : 0;
            const uint64_t *Ab = in->abase >= 0 ? SLOT(in->abase) : NULL;
            uint16_t mat[4][8][8];
            for (int q = 0; q < nm; q++)
                for (int r = 0; r < 8; r++) {
                    int l = 8 * q + r;
                    uint64_t a = (Ab ? Ab[l] : 0) + (uint64_t)adj;
                    uint8_t *p = xres(b, w, in->sp, a, 16, l);
                    if (!p) {
                        fault_addr(b, w, l, in, HX_ERR_ILLEGAL_ADDRESS, "out-of-bounds ldmatrix row of", a, 16);
                        return W_ERR;
                    }
                    if ((uintptr_t)p & 15) {
                        fault_addr(b, w, l, in, HX_ERR_MISALIGNED, "misaligned ldmatrix row of", a, 16);
                        return W_ERR;
                    }
                    memcpy(mat[q][r], p, 16);
                }
            for (int q = 0; q < nm; q++) {
                uint64_t *Dq = SLOT(in->d[q]);
                LOOP({
                    int rr = l >> 2, cc = (l & 3) * 2;
                    uint16_t lo = in->sub ? mat[q][cc][rr] : mat[q][rr][cc];
                    uint16_t hi = in->sub ? mat[q][cc + 1][rr] : mat[q][rr][cc + 1];
                    Dq[l] = ((uint32_t)hi << 16) | lo;
                });
            }
            break;
        }
        K(OP_CPASYNC, T_NONE) {
            unsigned n = in->imm;
            int64_t adj = in->aoff;
            if (in->symk == SYMK_SHARED)
                adj += (in->svar < b->kfn->smem_layout_n) ? b->kfn->smem_layout[in->svar] : 0;
            const uint64_t *Ab = in->abase >= 0 ? SLOT(in->abase) : NULL;
            const uint64_t *Sb = in->s[1] >= 0 ? SLOT(in->s[1]) : NULL;
            const uint64_t *Zs = in->s[2] >= 0 ? SLOT(in->s[2]) : NULL;
            for (uint32_t mm = m; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                uint64_t da = (Ab ? Ab[l] : 0) + (uint64_t)adj;
                uint64_t sa = (Sb ? Sb[l] : 0) + (uint64_t)(int64_t)in->x[0];
                unsigned src_n = Zs ? (unsigned)(uint32_t)Zs[l] : n;
                if (src_n > n) src_n = n;
                uint8_t *dp = xres(b, w, SP_SHARED, da, n, l);
                uint8_t *sp = src_n ? xres(b, w, SP_GLOBAL, sa, src_n, l) : (uint8_t *)dp;
                if (!dp || !sp) {
                    fault_addr(b, w, l, in, HX_ERR_ILLEGAL_ADDRESS, "out-of-bounds cp.async of",
                               dp ? sa : da, n);
                    return W_ERR;
                }
                if (((uintptr_t)dp | (src_n ? (uintptr_t)sp : 0)) & (n - 1)) {
                    fault_addr(b, w, l, in, HX_ERR_MISALIGNED, "misaligned cp.async of", sa, n);
                    return W_ERR;
                }
                if (src_n) memmove(dp, sp, src_n);
                if (src_n < n) memset(dp + src_n, 0, n - src_n);
            }
            break;
        }
        K(OP_NOP, T_NONE) K(OP_NOP, T_U32) K(OP_NOP, T_U64)
            break;
        default: {
            int l = __builtin_ctz(m);
            unsigned t[3];
            tid_of(b, w->id, l, t);
            fail(b, HX_ERR_UNSUPPORTED, "kernel %s: unsupported instruction '%.*s' (PTX line %d)",
                 b->kfn->name, (int)in->srclen, in->src ? in->src : "?", in->line);
            return W_ERR;
        }
        }
        if (__builtin_expect(rmode, 0)) fesetround(FE_TONEAREST);
        if (__builtin_expect(hx_trace > 0, 0))
            fprintf(stderr, "hx: w%d pc %d m %08x %.*s d0=%" PRIx64 "\n", w->id, pc, m,
                    (int)in->srclen, in->src ? in->src : "", in->d[0] >= 0 ? D[__builtin_ctz(m)] : 0);
        if (__builtin_expect(special != 0, 0)) {
            if ((in->flags & F_FTZ) && in->d[0] >= 0) LOOP(D[l] = hx_fb(hx_ftz(hx_f(D[l]))));
            if ((in->flags & F_SAT) && in->d[0] >= 0)
                LOOP({
                    float f = hx_f(D[l]);
                    D[l] = hx_fb(isnan(f) ? 0.0f : f < 0 ? 0.0f : f > 1 ? 1.0f : f);
                });
        }
        pc++;
    }
}

/* ---------------------------------------------------------- printf */

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* Bytes readable at generic address a (0 if none). */
static size_t readable(xblk *b, hx_warp *w, int lane, uint64_t a)
{
    uint64_t sb = (uint64_t)(uintptr_t)b->smem;
    if (a >= sb && a - sb < b->smem_size) return b->smem_size - (a - sb);
    uint64_t lb = (uint64_t)(uintptr_t)lwin(b, w, lane);
    if (b->local && a >= lb && a - lb < b->lstride) return b->lstride - (a - lb);
    tfl_alloc_info ai;
    if (tfl_mem_lookup((const void *)(uintptr_t)a, &ai))
        return ai.size - (size_t)(a - (uint64_t)(uintptr_t)ai.base);
    return 0;
}

struct rdctx { xblk *b; hx_warp *w; int lane; };
static size_t rd_cb(void *ctx, uint64_t a)
{
    struct rdctx *r = ctx;
    return readable(r->b, r->w, r->lane, a);
}

static hx_status do_printf(xblk *b, hx_warp *w, const hx_insn *in, uint32_t m, hx_frame *fr)
{
    const hx_callsite *cs = &fr->fn->calls[in->aux];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *lp = lpwin(b, w, l) + fr->lparam_base;
        uint64_t fmt = 0, args = 0;
        if (cs->nargs > 0) fmt = lp_arg(b, fr, lpwin(b, w, l), cs->arg_off[0], 8);
        if (cs->nargs > 1) args = lp_arg(b, fr, lpwin(b, w, l), cs->arg_off[1], 8);
        size_t fmax = readable(b, w, l, fmt), amax = args ? readable(b, w, l, args) : 0;
        if (!fmax) {
            fault_addr(b, w, l, in, HX_ERR_ILLEGAL_ADDRESS, "printf format string of", fmt, 1);
            return HX_ERR_ILLEGAL_ADDRESS;
        }
        char out[4096];
        struct rdctx rc = { b, w, l };
        int n = hx_printf_lane((const char *)(uintptr_t)fmt, fmax,
                               (const uint8_t *)(uintptr_t)args, amax, out, sizeof out,
                               rd_cb, &rc);
        if (n < 0) {
            fault_addr(b, w, l, in, HX_ERR_ILLEGAL_ADDRESS, "printf arguments at", args, 8);
            return HX_ERR_ILLEGAL_ADDRESS;
        }
        size_t len = (size_t)n < sizeof out ? (size_t)n : sizeof out - 1;
        pthread_mutex_lock(&print_lock);
        fwrite(out, 1, len, stdout);
        fflush(stdout);
        pthread_mutex_unlock(&print_lock);
        if (cs->nrets > 0 && (uint64_t)fr->lparam_base + (uint64_t)cs->ret_off[0] + 4 <= b->lpstride) {
            int32_t r = n;
            memcpy(lp + cs->ret_off[0], &r, 4);
        }
    }
    return HX_OK;
}

static void copy_str(xblk *b, hx_warp *w, int lane, uint64_t a, char *out, size_t n)
{
    size_t mx = a ? readable(b, w, lane, a) : 0;
    size_t i = 0;
    const char *s = (const char *)(uintptr_t)a;
    for (; i + 1 < n && i < mx && s[i]; i++) out[i] = s[i];
    out[i] = 0;
}

static hx_status do_assert(xblk *b, hx_warp *w, const hx_insn *in, uint32_t m, hx_frame *fr)
{
    const hx_callsite *cs = &fr->fn->calls[in->aux];
    int l = __builtin_ctz(m);
    const uint8_t *lw = lpwin(b, w, l);
    uint64_t msg = 0, file = 0, func = 0;
    uint32_t line = 0;
    if (cs->nargs > 0) msg = lp_arg(b, fr, lw, cs->arg_off[0], 8);
    if (cs->nargs > 1) file = lp_arg(b, fr, lw, cs->arg_off[1], 8);
    if (cs->nargs > 2) line = (uint32_t)lp_arg(b, fr, lw, cs->arg_off[2], 4);
    if (cs->nargs > 3) func = lp_arg(b, fr, lw, cs->arg_off[3], 8);
    char sm[256], sf[256], sfn[256];
    copy_str(b, w, l, msg, sm, sizeof sm);
    copy_str(b, w, l, file, sf, sizeof sf);
    copy_str(b, w, l, func, sfn, sizeof sfn);
    unsigned t[3];
    tid_of(b, w->id, l, t);
    pthread_mutex_lock(&print_lock);
    fflush(stdout);
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
            sf, line, sfn, b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2], sm);
    fflush(stderr);
    pthread_mutex_unlock(&print_lock);
    fail(b, HX_ERR_TRAP, "kernel %s: device-side assertion `%s` failed at %s:%u in block (%u,%u,%u) "
         "thread (%u,%u,%u)", b->kfn->name, sm, sf, line, b->ctaid[0], b->ctaid[1], b->ctaid[2],
         t[0], t[1], t[2]);
    return HX_ERR_TRAP;
}

/* ------------------------------------------------------- block loop */

static int ctx_prepare(hx_ctx *c, hx_launch_job *j, int nwarps)
{
    if (nwarps > c->capwarps) {
        hx_warp *nw = realloc(c->warps, (size_t)nwarps * sizeof *nw);
        if (!nw) return -1;
        memset(nw + c->capwarps, 0, (size_t)(nwarps - c->capwarps) * sizeof *nw);
        c->warps = nw;
        c->capwarps = nwarps;
    }
    size_t sm = j->smem_total ? j->smem_total : 1;
    if (sm > c->smem_cap) {
        free(c->smem);
        c->smem = aligned_alloc(256, (sm + 255) / 256 * 256);
        if (!c->smem) { c->smem_cap = 0; return -1; }
        c->smem_cap = sm;
    }
    size_t lt = j->local_stride * (size_t)nwarps * 32;
    if (lt > c->local_cap) {
        free(c->local);
        c->local = aligned_alloc(64, (lt + 63) / 64 * 64);
        if (!c->local) { c->local_cap = 0; return -1; }
        c->local_cap = lt;
    }
    size_t pt = j->lparam_stride * (size_t)nwarps * 32;
    if (pt > c->lparam_cap) {
        free(c->lparam);
        c->lparam = aligned_alloc(64, (pt + 63) / 64 * 64);
        if (!c->lparam) { c->lparam_cap = 0; return -1; }
        c->lparam_cap = pt;
    }
    for (int i = 0; i < nwarps; i++) {
        hx_warp *w = &c->warps[i];
        if (!w->stk) {
            w->stkcap = 64;
            w->stk = malloc((size_t)w->stkcap * sizeof *w->stk);
            w->frcap = 8;
            w->fr = malloc((size_t)w->frcap * sizeof *w->fr);
            if (!w->stk || !w->fr) return -1;
        }
        if (ensure_regs(w, (size_t)j->fn->nslots + 1, (size_t)j->fn->npreds + 1)) return -1;
    }
    return 0;
}

static void run_block(hx_launch_job *j, hx_ctx *c, uint64_t bid)
{
    xblk B;
    memset(&B, 0, sizeof B);
    xblk *b = &B;
    b->job = j; b->c = c; b->kfn = j->fn; b->mod = j->mod;
    b->ctaid[0] = (unsigned)(bid % j->grid[0]);
    b->ctaid[1] = (unsigned)((bid / j->grid[0]) % j->grid[1]);
    b->ctaid[2] = (unsigned)(bid / ((uint64_t)j->grid[0] * j->grid[1]));
    b->nthreads = j->block[0] * j->block[1] * j->block[2];
    b->nwarps = (int)((b->nthreads + 31) / 32);
    b->smem = c->smem; b->smem_size = j->smem_total;
    b->local = j->local_stride ? c->local : NULL; b->lstride = j->local_stride;
    b->lparam = c->lparam; b->lpstride = j->lparam_stride;
    b->g_lo = 1; b->g_hi = 0;
    hx_func *fn = j->fn;
    for (int i = 0; i < b->nwarps; i++) {
        hx_warp *w = &c->warps[i];
        w->id = i;
        unsigned first = (unsigned)i * 32;
        unsigned n = b->nthreads - first < 32 ? b->nthreads - first : 32;
        w->valid = n == 32 ? FULL : (1u << n) - 1;
        w->exited = ~w->valid;
        w->state = W_READY;
        w->bar_red = NULL;
        w->steps = 0;
        w->sp = 1;
        w->stk[0] = (hx_stk){ 0, -1, w->valid };
        w->nfr = 1;
        memset(&w->fr[0], 0, sizeof w->fr[0]);
        w->fr[0].fn = fn;
        w->fr[0].stk_base = 0;
        memset(w->preds, 0, (size_t)fn->npreds * sizeof *w->preds);
        init_slots_ex(b, w, fn, w->regs, c->launch_id == j->id);
    }
    c->launch_id = j->id;
    int live = b->nwarps;
    while (live > 0) {
        int progressed = 0;
        for (int i = 0; i < b->nwarps; i++) {
            hx_warp *w = &c->warps[i];
            if (w->state != W_READY) continue;
            int r = run_warp(b, w);
            progressed = 1;
            if (r == W_ERR) return;
            if (r == W_DONE) live--;
            if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED)) return;
        }
        if (live == 0) break;
        /* open barriers: all live warps waiting (or the named count) */
        int waiting = 0;
        for (int i = 0; i < b->nwarps; i++) if (c->warps[i].state == W_BAR) waiting++;
        int opened = 0;
        for (int id = 0; id < 16; id++) {
            int nw = 0;
            for (int i = 0; i < b->nwarps; i++)
                if (c->warps[i].state == W_BAR && c->warps[i].bar_id == id) nw++;
            if (!nw) continue;
            int need = b->bar_expect[id] ? b->bar_expect[id] : live;
            if (b->bar_arrived[id] >= need || waiting == live) {
                b->res_popc[id] = b->bar_popc[id];
                b->res_and[id] = b->bar_and[id];
                b->res_or[id] = b->bar_or[id];
                b->bar_red_used[id] = 0;
                b->bar_arrived[id] = 0;
                for (int i = 0; i < b->nwarps; i++)
                    if (c->warps[i].state == W_BAR && c->warps[i].bar_id == id)
                        c->warps[i].state = W_READY;
                opened = 1;
            }
        }
        if (!progressed && !opened) {
            fail(b, HX_ERR_LAUNCH_CONFIG, "kernel %s: barrier deadlock in block (%u,%u,%u)",
                 fn->name, b->ctaid[0], b->ctaid[1], b->ctaid[2]);
            return;
        }
    }
}

void hx_exec_worker(hx_launch_job *j)
{
    hx_ctx *c = tls_ctx;
    if (hx_trace < 0) {
        const char *e = getenv("TORCHFL_HX_TRACE");
        hx_trace = e && *e == '1';
    }
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c) {
            int e = 0;
            if (__atomic_compare_exchange_n(&j->failed, &e, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                j->status = HX_ERR_NOMEM;
                snprintf(j->err, sizeof j->err, "out of memory");
            }
            return;
        }
        tls_ctx = c;
        pthread_once(&ctx_once, ctx_key_init);
        pthread_setspecific(ctx_key, c);
    }
    int nwarps = (int)((j->block[0] * j->block[1] * j->block[2] + 31) / 32);
    if (ctx_prepare(c, j, nwarps)) {
        int e = 0;
        if (__atomic_compare_exchange_n(&j->failed, &e, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            j->status = HX_ERR_NOMEM;
            snprintf(j->err, sizeof j->err, "kernel %s: out of memory for block state", j->fn->name);
        }
        return;
    }
    for (;;) {
        if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED)) return;
        uint64_t bid = __atomic_fetch_add(&j->next_block, 1, __ATOMIC_RELAXED);
        if (bid >= j->nblocks) return;
        run_block(j, c, bid);
    }
}

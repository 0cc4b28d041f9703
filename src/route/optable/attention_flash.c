/*
 * attention_flash.c - the flash-attention kernels of the "attention" family:
 * what PyTorch's SDPA launches for float16/bfloat16 without an attention
 * mask at compute capability 8.0 (pytorch_flash::flash_fwd_kernel, and for
 * the backward flash_bwd_dot_do_o_kernel, flash_bwd_dq_dk_dv_loop_seqk_
 * parallel_kernel, flash_bwd_convert_dq_kernel), decoded into
 * TFL_OP_ATTENTION.
 *
 * Each kernel takes one by-value params struct: Flash_fwd_params (472 bytes,
 * every flash_fwd_kernel in the sm_80 cubins) or Flash_bwd_params (648,
 * which extends it), unchanged from 2.11 through 2.15 (the same kernels
 * read the same parameter-bank words in every wheel's SASS).  Kernels are
 * recognised by qualified name, template arguments and parameter types
 * (kname.h).  Offsets below were read off launches of the 2.11
 * wheel with known tensors (every pointer, stride and size where the
 * flash-attention 2 layout with int64 strides puts it):
 *   q,k,v ptr @0,8,16; batch strides @24..40, row @48..64, head @72..88
 *   (int64, elements); h, h_k @96,100; o ptr @112, oaccum @120, o strides
 *   @128 (batch), 136 (row), 144 (head); p ptr @152; softmax_lse @160
 *   ([b][h][seqlen_q] float); b, seqlen_q, seqlen_k, seqlen_knew, d @176..
 *   192; scale_softmax @216; 224..367: varlen / kv-cache / rotary / paged
 *   pointers (all 0 for SDPA); p_dropout (keep probability) @372;
 *   window_size_left, right @388, 392 (PyTorch sets them to -1 without a
 *   mask, to seqlen_k and 0 for is_causal); is_bf16 @440, is_causal @441;
 *   num_splits @444; alibi_slopes @448.
 *   Backward adds do ptr @472, dq, dk, dv @480..496, dq_accum @504,
 *   dk_accum, dv_accum @512, 520; do strides @528 (batch), 536 (row), 544
 *   (head); dq, dk, dv batch strides @552..568, row @576..592, head
 *   @600..616; dsoftmax_sum @624.
 * The backward receives O and dO as contiguous [b][s][h][d] copies (their
 * own strides), and dQ, dK, dV are the final gradients (dq_accum is the
 * kernels' float scratch).  So the whole backward runs on the main kernel
 * (dq_dk_dv_loop_seqk_parallel), which writes dQ directly; the kernels
 * before and after it (dot_do_o: rowsum(dO*O) into dsoftmax_sum and dq_accum
 * cleared; convert_dq: dq_accum -> dQ) only feed that scratch, which nothing
 * else reads, and are taken as done.
 *
 * Dropout (keep probability p_dropout @372 < 1, Is_dropout in the name):
 * the forward's key is its at::PhiloxCudaState @400 (seed_, offset_,
 * offset_intragraph_, captured_ @424), which the kernel also stores in
 * rng_state @432 for the backward; the backward reads its key from
 * rng_state (its philox args are empty).  TFL_OP_ATTENTION draws its own
 * mask from that key - the same in forward and backward, not the GPU's
 * bit pattern (PyTorch's flash dropout mask is not observable apart from
 * its effect).
 *
 * Refused (never guessed): local windows, ALiBi, softcap, return_softmax,
 * variable lengths / kv cache, split-KV, and any launch whose grid
 * disagrees with the struct.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/optable/attention_flash.h"
#include "route/optable/pt_abi.h"

#define FL_TAG 0x10000u
enum { FL_FWD = 1, FL_BWD_MAIN, FL_BWD_DOT, FL_BWD_CONVERT };
#define FL_BF16 0x100u
#define FL_DROPOUT 0x200u

enum {
    P_Q = 0, P_K = 8, P_V = 16, P_Q_SB = 24, P_K_SB = 32, P_V_SB = 40,
    P_Q_SM = 48, P_K_SM = 56, P_V_SM = 64, P_Q_SH = 72, P_K_SH = 80, P_V_SH = 88,
    P_H = 96, P_HK = 100, P_O = 112, P_OACCUM = 120, P_O_SB = 128, P_O_SM = 136,
    P_O_SH = 144, P_P = 152, P_LSE = 160, P_B = 176, P_SQ = 180, P_SK = 184,
    P_SKNEW = 188, P_D = 192, P_SCALE = 216, P_ZERO_FROM = 224, P_ZERO_TO = 368,
    P_KEEP = 372, P_WIN_L = 388, P_WIN_R = 392, P_PHILOX = 400, P_RNG_STATE = 432,
    P_IS_BF16 = 440, P_IS_CAUSAL = 441,
    P_SPLITS = 444, P_ALIBI = 448, FWD_SIZE = 472,
    B_DO = 472, B_DQ = 480, B_DK = 488, B_DV = 496, B_DK_ACC = 512, B_DV_ACC = 520,
    B_DO_SB = 528, B_DO_SM = 536, B_DO_SH = 544, B_DQ_SB = 552, B_DK_SB = 560,
    B_DV_SB = 568, B_DQ_SM = 576, B_DK_SM = 584, B_DV_SM = 592, B_DQ_SH = 600,
    B_DK_SH = 608, B_DV_SH = 616, BWD_SIZE = 648,
};

int tfl_attn_flash_cookie(void *cookie)
{
    return ((uintptr_t)cookie & FL_TAG) != 0;
}

int tfl_attn_constant(const char *s, size_t n)
{
    return (n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0) ||
           tfl_kname_decimal(s, n);
}

/* The element type of a Flash_{fwd,bwd}_kernel_traits<...> argument: int /
 * bool tiling constants (block sizes, head-dim bound, warps, shared-memory
 * options), cutlass::half_t or cutlass::bfloat16_t, and the base
 * Flash_kernel_traits<...> of the same element type.  *bf16 is set; 0 if
 * anything else is there. */
static int traits_dtype(const char *s, size_t len, int *bf16)
{
    static const char *const pre[] = { "Flash_fwd_kernel_traits<", "Flash_bwd_kernel_traits<" };
    const char *lt = NULL;
    for (size_t i = 0; i < 2 && !lt; i++)
        if (len > strlen(pre[i]) && memcmp(s, pre[i], strlen(pre[i])) == 0)
            lt = s + strlen(pre[i]) - 1;
    const char *gt = lt ? tfl_pt_match_angle(lt) : NULL;
    if (!gt || gt != s + len - 1)
        return 0;
    const char *a[24];
    size_t al[24];
    int n = tfl_pt_template_args(lt, a, al, 24), half = 0, bf = 0;
    for (int i = 0; i < n && i < 24; i++) {
        if (al[i] == 15 && memcmp(a[i], "cutlass::half_t", 15) == 0)
            half++;
        else if (al[i] == 19 && memcmp(a[i], "cutlass::bfloat16_t", 19) == 0)
            bf++;
        else if (!tfl_attn_constant(a[i], al[i]) &&
                 !(al[i] > 20 && memcmp(a[i], "Flash_kernel_traits<", 20) == 0))
            return 0;
    }
    *bf16 = bf > 0;
    return n > 0 && n <= 24 && half + bf == 1;
}

/* Template arguments from..to-1 as bools: *bits gets bit i - from for each
 * true one.  0 if one is not a bool constant. */
static int bool_targs(const tfl_kname *k, int from, int to, unsigned *bits)
{
    unsigned b = 0;
    for (int i = from; i < to; i++) {
        long long v;
        if (!(tfl_kname_targ_is(k, i, "true") || tfl_kname_targ_is(k, i, "false")) ||
            !tfl_kname_targ_int(k, i, &v))
            return 0;
        b |= (v ? 1u : 0u) << (i - from);
    }
    *bits = b;
    return 1;
}

/* pytorch_flash kernels, by qualified name, template arguments and params:
 *   flash_fwd_kernel<Traits, Is_dropout, Is_causal, Is_local, Has_alibi,
 *       Is_even_MN, Is_even_K, Is_softcap, Return_softmax>(Flash_fwd_params)
 *   flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Traits, Is_dropout,
 *       Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap>
 *       (Flash_bwd_params)
 *   flash_bwd_dot_do_o_kernel<Clear_dQaccum, Traits>(Flash_bwd_params)
 *   flash_bwd_convert_dq_kernel<Traits>(Flash_bwd_params, int)
 * Is_causal, Is_even_* are handled from the params; local windows, ALiBi,
 * softcap and return_softmax are refused (not claimed). */
int tfl_attn_flash_match(const tfl_kname *k, void **cookie)
{
    static const struct {
        const char *name, *param;
        unsigned kind;
        int ntargs, traits, nparams;
        unsigned refused;            /* bools after the traits we refuse */
    } tab[] = {
        { "pytorch_flash::flash_fwd_kernel", "pytorch_flash::Flash_fwd_params", FL_FWD, 9, 0, 1,
          4u | 8u | 64u | 128u },
        { "pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
          "pytorch_flash::Flash_bwd_params", FL_BWD_MAIN, 8, 0, 1, 4u | 8u | 64u },
        { "pytorch_flash::flash_bwd_dot_do_o_kernel", "pytorch_flash::Flash_bwd_params",
          FL_BWD_DOT, 2, 1, 1, 0 },
        { "pytorch_flash::flash_bwd_convert_dq_kernel", "pytorch_flash::Flash_bwd_params",
          FL_BWD_CONVERT, 1, 0, 2, 0 },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        int t = tab[i].traits, bf16;
        unsigned b = 0;
        if (!tfl_kname_qualified(k, tab[i].name) || k->name_len != strlen(tab[i].name))
            continue;
        if (k->ntargs != tab[i].ntargs || k->nparams != tab[i].nparams ||
            !tfl_kname_param_is(k, 0, tab[i].param) ||
            (tab[i].nparams == 2 && !tfl_kname_param_is(k, 1, "int")) ||
            !traits_dtype(k->targ[t], k->targ_len[t], &bf16))
            return 0;
        if (tab[i].kind == FL_BWD_DOT && !bool_targs(k, 0, 1, &b))
            return 0;
        if ((tab[i].kind == FL_FWD || tab[i].kind == FL_BWD_MAIN) &&
            (!bool_targs(k, 1, k->ntargs, &b) || (b & tab[i].refused)))
            return 0;
        unsigned dt = bf16 ? FL_BF16 : 0;
        if ((tab[i].kind == FL_FWD || tab[i].kind == FL_BWD_MAIN) && (b & 1u))
            dt |= FL_DROPOUT;
        *cookie = (void *)(uintptr_t)(FL_TAG | dt | tab[i].kind);
        return 1;
    }
    return 0;
}

/* Flash_fwd_params (472 bytes) or Flash_bwd_params (648), by value;
 * convert_dq also takes an int (its count of dq splits, not read). */
int tfl_attn_flash_layout(void *cookie, tfl_klayout *l)
{
    const unsigned kind = (uintptr_t)cookie & 0xff;
    tfl_klayout_add(l, kind == FL_FWD ? FWD_SIZE : BWD_SIZE, 8);
    if (kind == FL_BWD_CONVERT)
        tfl_klayout_add(l, 4, 4);
    return 1;
}

const char *tfl_attn_flash_op_name(void *cookie)
{
    switch ((uintptr_t)cookie & 0xff) {
    case FL_FWD: return "flash_forward";
    case FL_BWD_MAIN: return "flash_backward";
    default: return "flash_backward_aux";
    }
}

static void *rptr(const unsigned char *s, int off) { void *v; memcpy(&v, s + off, 8); return v; }
static int64_t ri64(const unsigned char *s, int off) { int64_t v; memcpy(&v, s + off, 8); return v; }
static int32_t ri32(const unsigned char *s, int off) { int32_t v; memcpy(&v, s + off, 4); return v; }
static float rf32(const unsigned char *s, int off) { float v; memcpy(&v, s + off, 4); return v; }

static tfl_attn_tensor tens(const unsigned char *s, int p, int sb, int sh, int sm)
{
    tfl_attn_tensor t = { rptr(s, p), ri64(s, sb), ri64(s, sh), ri64(s, sm) };
    return t;
}

/* The forward part both directions share; 0 if the launch is not a plain
 * (no dropout / window / varlen) SDPA. */
/* at::PhiloxCudaState @P_PHILOX: seed_ @0, offset_ @8 (values, or when
 * captured_ @24 is set pointers to them, offset_ then plus
 * offset_intragraph_ @16) -> the op's dropout key.  0 if unreadable. */
static int philox(const unsigned char *s, tfl_attention_op *a)
{
    const unsigned char *ph = s + P_PHILOX;
    if (ph[24] > 1)
        return 0;
    if (!ph[24]) {
        a->dropout_seed = (uint64_t)ri64(ph, 0);
        a->dropout_offset = (uint64_t)ri64(ph, 8);
        return 1;
    }
    const void *sp = rptr(ph, 0), *op = rptr(ph, 8);
    if (!tfl_mem_check_range(sp, 8, NULL) || !tfl_mem_check_range(op, 8, NULL))
        return 0;
    uint64_t seed, off;
    memcpy(&seed, sp, 8);
    memcpy(&off, op, 8);
    a->dropout_seed = seed;
    a->dropout_offset = off + (uint64_t)ri64(ph, 16);
    return 1;
}

/* The backward's key: rng_state @P_RNG_STATE holds the (seed, offset) the
 * forward used (its philox args are left empty).  0 if unreadable. */
static int rng_state(const unsigned char *s, tfl_attention_op *a)
{
    const uint64_t *rs = rptr(s, P_RNG_STATE);
    if (!rs || !tfl_mem_check_range(rs, 16, NULL))
        return 0;
    memcpy(&a->dropout_seed, rs, 8);
    memcpy(&a->dropout_offset, rs + 1, 8);
    return 1;
}

static int decode_common(const tfl_kcall *call, const unsigned char *s, int bf16, int dropout,
                         int backward, tfl_attention_op *a)
{
    memset(a, 0, sizeof *a);
    a->dtype = bf16 ? TFL_DT_BF16 : TFL_DT_F16;
    if ((s[P_IS_BF16] != 0) != (bf16 != 0) || s[P_IS_CAUSAL] > 1)
        return 0;
    for (int o = P_ZERO_FROM; o < P_ZERO_TO; o++)
        if (s[o])
            return 0;
    if (rptr(s, P_OACCUM) || rptr(s, P_P) || rptr(s, P_ALIBI) || ri32(s, P_SKNEW) != 0 ||
        ri32(s, P_SPLITS) > 1)
        return 0;
    const float keep = rf32(s, P_KEEP);
    if (!(keep > 0.0f && keep <= 1.0f) || (keep < 1.0f) != (dropout != 0))
        return 0;
    if (keep < 1.0f && !(backward ? rng_state(s, a) : philox(s, a)))
        return 0;
    a->dropout_p = keep < 1.0f ? 1.0f - keep : 0.0f;
    int64_t b = ri32(s, P_B), h = ri32(s, P_H), hk = ri32(s, P_HK);
    int64_t sq = ri32(s, P_SQ), sk = ri32(s, P_SK), d = ri32(s, P_D);
    if (b <= 0 || h <= 0 || hk <= 0 || h % hk || sq <= 0 || sk <= 0 || d <= 0)
        return 0;
    if (call->grid[1] != (unsigned)b || call->grid[2] != (unsigned)h)
        return 0;
    int32_t wl = ri32(s, P_WIN_L), wr = ri32(s, P_WIN_R);
    if (s[P_IS_CAUSAL]) {
        /* key j visible to query i iff j <= i + sk - sq (bottom-right) */
        if (wr != 0 || (wl >= 0 && wl < sk))
            return 0;
        a->mask = TFL_ATTN_MASK_CAUSAL;
        a->causal_offset = sk - sq;
    } else if ((wl >= 0 && wl < sk) || (wr >= 0 && wr < sk)) {
        return 0;
    }
    a->batch = b;
    a->heads = h;
    a->q_heads_per_kv = h / hk;
    a->num_queries = sq;
    a->num_keys = sk;
    a->head_dim = a->head_dim_value = d;
    a->scale = rf32(s, P_SCALE);
    a->q = tens(s, P_Q, P_Q_SB, P_Q_SH, P_Q_SM);
    a->k = tens(s, P_K, P_K_SB, P_K_SH, P_K_SM);
    a->v = tens(s, P_V, P_V_SB, P_V_SH, P_V_SM);
    a->out = tens(s, P_O, P_O_SB, P_O_SH, P_O_SM);
    tfl_attn_tensor lse = { rptr(s, P_LSE), h * sq, sq, 0 };
    a->lse = lse;
    a->lse_padded_len = sq;
    return a->lse.ptr != NULL && isfinite(a->scale);
}

tfl_status tfl_attn_flash_run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    const unsigned kind = (uintptr_t)cookie & 0xff;
    const int bf16 = ((uintptr_t)cookie & FL_BF16) != 0;
    const unsigned char *s = call->args[0];
    if (kind == FL_BWD_DOT || kind == FL_BWD_CONVERT)
        return TFL_OK;      /* scratch of the main kernel's (header comment) */
    const int dropout = ((uintptr_t)cookie & FL_DROPOUT) != 0;
    tfl_attention_op a;
    if (!decode_common(call, s, bf16, dropout, kind == FL_BWD_MAIN, &a))
        return TFL_ERR_UNSUPPORTED;
    if (kind == FL_FWD && dropout && rptr(s, P_RNG_STATE)) {
        /* the kernel leaves its (seed, offset) in rng_state for the backward */
        uint64_t *rs = rptr(s, P_RNG_STATE);
        if (!tfl_mem_check_range(rs, 16, NULL)) {
            snprintf(err, errlen, "flash attention: rng_state %p is not device memory", (void *)rs);
            return TFL_ERR_INVALID;
        }
        tfl_status st = tfl_attn_route(call, &a, err, errlen);
        if (st == TFL_OK) {
            rs[0] = a.dropout_seed;
            rs[1] = a.dropout_offset;
        }
        return st;
    }
    if (kind == FL_BWD_MAIN) {
        /* grouped-query: PyTorch passes dK/dV with one head per query
         * head (it sums the groups afterwards), which is TFL_OP_ATTENTION's
         * per-query-head grad_k/grad_v */
        if (rptr(s, B_DK_ACC) || rptr(s, B_DV_ACC))
            return TFL_ERR_UNSUPPORTED;
        a.backward = 1;
        a.grad_out = tens(s, B_DO, B_DO_SB, B_DO_SH, B_DO_SM);
        a.grad_q = tens(s, B_DQ, B_DQ_SB, B_DQ_SH, B_DQ_SM);
        a.grad_k = tens(s, B_DK, B_DK_SB, B_DK_SH, B_DK_SM);
        a.grad_v = tens(s, B_DV, B_DV_SB, B_DV_SH, B_DV_SM);
    }
    return tfl_attn_route(call, &a, err, errlen);
}

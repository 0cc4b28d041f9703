/*
 * attention.c - the "attention" kernel family of the semantic op table:
 * PyTorch's memory-efficient SDPA kernels (fmha_cutlassF_* forward,
 * fmha_cutlassB_* backward; cutlass/xformers AttentionKernel and
 * AttentionBackwardKernel) decoded into TFL_OP_ATTENTION.
 *
 * Each kernel takes one by-value Params struct.  The offsets below are
 * the 2.11 layout (kernel_forward.h / kernel_backward.h of
 * aten/src/ATen/native/transformers/cuda/mem_eff_attention: the forward
 * has seqlen_k_ptr but no causal_diagonal_ptr and a window_size before
 * scale; the backward has window_size but no q_heads_per_kv), confirmed
 * by dumping launches of the wheel (every stride where PyTorch's
 * BMHK views put it).  The sizes agree with the sm_80 cubins: every
 * fmha_cutlassF_* kernel (f32/f16/bf16, all tiles and arches) takes 272
 * parameter bytes and every fmha_cutlassB_* 464, which the layouts reach
 * with natural alignment and a 32-byte at::PhiloxCudaState.  Each launch's
 * grid must also agree with the struct (grid.y = heads, grid.z = batches),
 * else the launch is refused.
 *
 * Later releases changed the structs (read off the sm_80 SASS of the same
 * kernel in each wheel: which parameter-bank offsets it reads and how):
 *   2.14: grouped-query attention.  Forward: int q_heads_per_kv @200 (the
 *     K/V head is head / q_heads_per_kv), use_dropout moves to @204; still
 *     272 bytes.  Backward: int q_heads_per_kv @164, custom_mask_type moves
 *     to @168 and every field from q_strideM (2.11 @168) on moves 8 bytes
 *     up: 472 bytes.
 *   2.15: launches split over batches / heads.  Forward: int batch_offset
 *     @196 and head_offset @200 (added to blockIdx.z / .y), num_heads @204,
 *     q_heads_per_kv @208, use_dropout @212, the dropout fields 8 bytes up:
 *     280 bytes.  Backward: batch_offset @388 and head_offset @392 after
 *     num_batches (@384), every field from gO_strideB (2.11 @384) on 16
 *     bytes up from 2.11: 480 bytes.
 * The kernels' names do not change, and the 2.14 forward has the 2.11 size,
 * so the parameter table cannot tell these apart: the variant is the torch
 * release of the process (mep_variant()), and the layout check then
 * confirms the struct size.  Grouped-query launches (2.14+) are decoded
 * (K/V of head h / q_heads_per_kv; the backward's dK, dV per query head);
 * 2.15's split launches (a batch or head offset) are refused.
 *
 * PyTorch's flash-attention kernels (fp16/bf16 SDPA without a mask) are
 * decoded in attention_flash.c.
 *
 * Not decoded (the launch is refused as unsupported, never guessed):
 * dropout (use_dropout / the *_dropout_* backward kernels), variable
 * sequence lengths (seqstart / cu_seqlens / seqlen_k), sliding windows.
 */
#include "route/optable.h"
#include "route/dispatch.h"
#include "mem/mem.h"
#include "route/optable/attention_flash.h"
#include "route/optable/kname.h"
#include "route/optable/pt_abi.h"
#include "route/torch_release.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------- forward Params (272 B) */
enum {
    F_Q = 0, F_K = 8, F_V = 16, F_BIAS = 24, F_SEQSTART_Q = 32, F_SEQSTART_K = 40,
    F_SEQLEN_K = 48, F_CAUSAL_DIAG_OFF = 56 /* u32 */,
    F_OUT = 64, F_OUT_ACCUM = 72, F_LSE = 80, F_WINDOW = 88 /* i32 */,
    F_SCALE = 92 /* f32 */, F_HEAD_DIM = 96, F_HEAD_DIM_V = 100, F_NUM_Q = 104,
    F_NUM_K = 108, F_NUM_K_ABS = 112, F_MASK = 116 /* u8 */,
    F_Q_SM = 120, F_K_SM = 124, F_V_SM = 128, F_BIAS_SM = 132, F_O_SM = 136,
    F_Q_SH = 140, F_K_SH = 144, F_V_SH = 148 /* i32 */, F_BIAS_SH = 152 /* i64 */,
    F_Q_SB = 160, F_K_SB = 168, F_V_SB = 176, F_BIAS_SB = 184,
    F_NUM_B = 192, F_NUM_H = 196, F_USE_DROPOUT = 200 /* bool */,
    F_SIZE = 272
};

/* -------------------------------------------- backward Params (464 B) */
enum {
    B_Q = 0, B_K = 8, B_V = 16, B_BIAS = 24, B_LSE = 32, B_OUT = 40, B_GO = 48,
    B_DELTA = 56, B_CU_Q = 64, B_CU_K = 72, B_GQ = 80, B_GK = 88, B_GV = 96,
    B_GB = 104, B_WORKSPACE = 112, B_WINDOW = 136 /* i32 */, B_SCALE = 140 /* f32 */,
    B_HEAD_DIM = 144, B_HEAD_DIM_V = 148, B_NUM_Q = 152, B_NUM_K = 156,
    B_NUM_H = 160, B_MASK = 164 /* u8 */,
    B_Q_SM = 168, B_K_SM = 176, B_V_SM = 184, B_BIAS_SM = 192, B_GO_SM = 200,
    B_GB_SM = 208, B_GQKV_MULT = 216 /* i8 */,
    B_O_SH = 272, B_Q_SH = 280, B_K_SH = 284, B_V_SH = 288 /* i32 */,
    B_BIAS_SH = 296, B_O_SB = 304, B_Q_SB = 312, B_K_SB = 320, B_V_SB = 328,
    B_BIAS_SB = 336, B_LSE_SB = 344, B_LSE_SH = 352,
    B_NUM_B = 376 /* i32 */, B_NUM_SPLITS = 380 /* i16 */,
    B_GO_SB = 384, B_GQ_SB = 392, B_GK_SB = 400, B_GV_SB = 408, B_GB_SB = 416,
    B_GO_SH = 424, B_GQ_SH = 432, B_GK_SH = 440, B_GV_SH = 448, B_GB_SH = 456,
    B_SIZE = 464
};

/* The Params variants (header comment). */
enum { MEP_2_11 = 0, MEP_2_14, MEP_2_15, MEP_COUNT };

/* Where the forward fields that moved are, per variant (-1: absent). */
static const struct {
    int num_h, q_heads_per_kv, batch_offset, head_offset, use_dropout, size;
} mep_fwd[MEP_COUNT] = {
    { F_NUM_H, -1, -1, -1, F_USE_DROPOUT, F_SIZE },
    { 196, 200, -1, -1, 204, 272 },
    { 204, 208, 196, 200, 212, 280 },
};
static const struct {
    int q_heads_per_kv, mask, batch_offset, head_offset, size;
} mep_bwd[MEP_COUNT] = {
    { -1, B_MASK, -1, -1, B_SIZE },
    { 164, 168, -1, -1, 472 },
    { 164, 168, 388, 392, 480 },
};

/* Offset in variant v of the backward field at 2.11 offset off (a field
 * that exists in every variant and is not in the table above). */
static int bwd_at(int v, int off)
{
    if (v >= MEP_2_14 && off >= B_Q_SM)
        off += 8;
    if (v >= MEP_2_15 && off >= B_GO_SB)
        off += 8;
    return off;
}

/* PyTorch's CustomMaskType. */
enum { MASK_NONE = 0, MASK_CAUSAL_TOP_LEFT = 1, MASK_CAUSAL_BOTTOM_RIGHT = 2 };

/* The lse rows the forward pads to (kAlignLSE). */
#define LSE_ALIGN 32

/* Cookie: direction, element type, Params variant and (backward) whether
 * it is a dropout kernel, packed in the pointer value (below attention_
 * flash.c's tag bit). */
#define CK_BACKWARD 0x100
#define CK_DROPOUT 0x800
static void *cookie_of(int backward, tfl_dtype dt, int variant, int dropout)
{
    return (void *)(uintptr_t)(1 + (unsigned)dt + (backward ? CK_BACKWARD : 0) +
                               ((unsigned)variant << 9) + (dropout ? CK_DROPOUT : 0));
}
static int ck_backward(void *c) { return ((uintptr_t)c - 1) & CK_BACKWARD ? 1 : 0; }
static int ck_dropout(void *c) { return ((uintptr_t)c - 1) & CK_DROPOUT ? 1 : 0; }
static int ck_variant(void *c) { return (int)((((uintptr_t)c - 1) >> 9) & 3); }
static tfl_dtype ck_dtype(void *c) { return (tfl_dtype)(((uintptr_t)c - 1) & 0xff); }

/* The Params variant of the torch being decoded (tfl_torch_current: the
 * loaded one, or the wheel `torchfl wheel` checks); 2.11's when there is
 * none (unit tests set one), the newest for a release after 2.15 (whose
 * sizes the layout check still confirms). */
static int mep_variant(void)
{
    tfl_torch_info t;
    if (tfl_torch_current(&t) != 0)
        return MEP_2_11;
    int minor = tfl_torch_minor(t.version);
    return minor >= 15 || minor < 0 ? MEP_2_15 : minor == 14 ? MEP_2_14 : MEP_2_11;
}

/* The element type of a PyTorchMemEffAttention::Attention[Backward]Kernel<
 * ...>::Params parameter: its template arguments are the element type, the
 * cutlass::arch::SmXX tag and int / bool tiling constants (tile sizes,
 * alignment, kMaxK, which features are compiled in), which do not change
 * the Params struct (the layout check confirms its size).  0 if any
 * argument is something else. */
static int params_dtype(const char *p, size_t len, const char *kernel, tfl_dtype *dt)
{
    static const struct { const char *n; tfl_dtype dt; } types[] = {
        { "float", TFL_DT_F32 }, { "cutlass::half_t", TFL_DT_F16 },
        { "cutlass::bfloat16_t", TFL_DT_BF16 },
    };
    size_t kl = strlen(kernel);
    if (len <= kl || memcmp(p, kernel, kl) != 0 || p[kl] != '<')
        return 0;
    const char *close = tfl_pt_match_angle(p + kl);
    if (!close || (size_t)(p + len - close) != strlen(">::Params") ||
        memcmp(close, ">::Params", strlen(">::Params")) != 0)
        return 0;
    const char *a[16];
    size_t al[16];
    int n = tfl_pt_template_args(p + kl, a, al, 16), have = 0, arch = 0;
    for (int i = 0; i < n && i < 16; i++) {
        int known = 0;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            if (al[i] == strlen(types[t].n) && memcmp(a[i], types[t].n, al[i]) == 0) {
                *dt = types[t].dt;
                known = 1;
                have++;
            }
        if (al[i] > 17 && memcmp(a[i], "cutlass::arch::Sm", 17) == 0)
            arch++;
        else if (!known && !tfl_attn_constant(a[i], al[i]))
            return 0;
    }
    return n > 0 && n <= 16 && have == 1 && arch == 1;
}

/* Does the function name's dtype token ("fmha_cutlassF_" then "f32_",
 * "f16_", "bf16_") name dt? */
static int name_dtype_is(const tfl_kname *k, size_t prefix, tfl_dtype dt)
{
    const char *tok = dt == TFL_DT_F32 ? "f32_" : dt == TFL_DT_F16 ? "f16_" : "bf16_";
    size_t n = strlen(tok);
    return k->base_len > prefix + n && memcmp(k->base + prefix, tok, n) == 0;
}

/* fmha_cutlass{F,B}_<dtype>_<tiles>[_dropout]_smXX(PyTorchMemEffAttention::
 * AttentionKernel<...>::Params / AttentionBackwardKernel<...>::Params) */
static int match_memeff(const tfl_kname *k, void **cookie)
{
    static const char f[] = "fmha_cutlassF_", b[] = "fmha_cutlassB_";
    const int backward = k->base_len > strlen(b) && memcmp(k->base, b, strlen(b)) == 0;
    tfl_dtype dt = TFL_DT_F32;
    if (k->name_len != k->base_len || k->ntargs != 0 || k->nparams != 1 ||
        !(backward || (k->base_len > strlen(f) && memcmp(k->base, f, strlen(f)) == 0)) ||
        !params_dtype(k->param[0], k->param_len[0],
                      backward ? "PyTorchMemEffAttention::AttentionBackwardKernel"
                               : "PyTorchMemEffAttention::AttentionKernel", &dt) ||
        !name_dtype_is(k, strlen(f), dt))
        return 0;
    /* the backward's dropout instances say so in their name */
    int dropout = 0;
    for (size_t i = 0; backward && i + 9 <= k->base_len; i++)
        dropout |= memcmp(k->base + i, "_dropout_", 9) == 0;
    *cookie = cookie_of(backward, dt, mep_variant(), dropout);
    return 1;
}

static int match(const char *mangled, void **cookie)
{
    /* cheap filter before demangling */
    if (!strstr(mangled, "fmha_cutlass") && !strstr(mangled, "pytorch_flash"))
        return 0;
    tfl_kname k;
    if (tfl_kname_parse(mangled, &k) != 0)
        return 0;
    int ok = tfl_attn_flash_match(&k, cookie) || match_memeff(&k, cookie);
    tfl_kname_free(&k);
    return ok;
}

static const char *op_name(void *cookie)
{
    if (tfl_attn_flash_cookie(cookie))
        return tfl_attn_flash_op_name(cookie);
    return ck_backward(cookie) ? "sdpa_backward" : "sdpa_forward";
}

/* ------------------------------------------------------------ helpers */

static void *rd_ptr(const unsigned char *s, int off)
{
    void *v;
    memcpy(&v, s + off, sizeof(v));
    return v;
}
static int64_t rd_i64(const unsigned char *s, int off)
{
    int64_t v;
    memcpy(&v, s + off, sizeof(v));
    return v;
}
static int32_t rd_i32(const unsigned char *s, int off)
{
    int32_t v;
    memcpy(&v, s + off, sizeof(v));
    return v;
}
static float rd_f32(const unsigned char *s, int off)
{
    float v;
    memcpy(&v, s + off, sizeof(v));
    return v;
}

static size_t elem_size(tfl_dtype dt)
{
    return dt == TFL_DT_F32 ? 4 : 2;
}

static tfl_attn_tensor tensor(void *ptr, int64_t sb, int64_t sh, int64_t sm)
{
    tfl_attn_tensor t = { ptr, sb, sh, sm };
    return t;
}

/*
 * Is the [batch][heads][rows][cols] view t inside one live allocation?
 * 1 yes (or nothing is read), 0 no (err says which operand).
 */
static int in_bounds(const tfl_attn_tensor *t, const char *what, int64_t batch,
                     int64_t heads, int64_t rows, int64_t cols, size_t es,
                     char *err, size_t errlen)
{
    if (batch == 0 || heads == 0 || rows == 0 || cols == 0)
        return 1;
    if (t->stride_b < 0 || t->stride_h < 0 || t->stride_m < 0) {
        snprintf(err, errlen, "attention: %s has a negative stride", what);
        return 0;
    }
    /* Last element + 1, in elements; strides fit in int64 (PyTorch's). */
    double ext = (double)(batch - 1) * t->stride_b + (double)(heads - 1) * t->stride_h +
                 (double)(rows - 1) * t->stride_m + (double)cols;
    if (!t->ptr || ext * es > 9e15 ||
        !tfl_mem_check_range(t->ptr, (size_t)ext * es, NULL)) {
        snprintf(err, errlen, "attention: %s [%p, +%.0f bytes) is not device memory",
                 what, t->ptr, ext * es);
        return 0;
    }
    return 1;
}

/* Shapes every decoded op must have (else the layout was not PyTorch's). */
static int shape_ok(const tfl_attention_op *op)
{
    return op->batch > 0 && op->heads > 0 && op->q_heads_per_kv > 0 &&
           op->heads % op->q_heads_per_kv == 0 && op->num_queries > 0 &&
           op->num_keys > 0 && op->head_dim > 0 && op->head_dim_value > 0 &&
           isfinite(op->scale);
}

static tfl_status validate(const tfl_attention_op *op, char *err, size_t errlen)
{
    size_t es = elem_size(op->dtype);
    int64_t B = op->batch, H = op->heads, Hk = op->heads / op->q_heads_per_kv;
    int64_t M = op->num_queries, N = op->num_keys, D = op->head_dim,
            Dv = op->head_dim_value;
    int ok = in_bounds(&op->q, "query", B, H, M, D, es, err, errlen) &&
             in_bounds(&op->k, "key", B, Hk, N, D, es, err, errlen) &&
             in_bounds(&op->v, "value", B, Hk, N, Dv, es, err, errlen) &&
             in_bounds(&op->out, "output", B, H, M, Dv, es, err, errlen) &&
             (!op->bias.ptr || in_bounds(&op->bias, "attn_bias", B, H, M, N, es, err, errlen)) &&
             (!op->lse.ptr ||
              in_bounds(&op->lse, "logsumexp", B, H, 1,
                        op->backward ? M : op->lse_padded_len, 4, err, errlen));
    if (ok && op->backward)
        ok = in_bounds(&op->grad_out, "grad_output", B, H, M, Dv, es, err, errlen) &&
             in_bounds(&op->grad_q, "grad_query", B, H, M, D, es, err, errlen) &&
             in_bounds(&op->grad_k, "grad_key", B, H, N, D, es, err, errlen) &&
             in_bounds(&op->grad_v, "grad_value", B, H, N, Dv, es, err, errlen) &&
             (!op->grad_bias.ptr ||
              in_bounds(&op->grad_bias, "grad_bias", B, H, M, N, es, err, errlen));
    return ok ? TFL_OK : TFL_ERR_INVALID;
}

static tfl_status run_op(const tfl_kcall *call, tfl_attention_op *a, char *err,
                         size_t errlen)
{
    tfl_status st = validate(a, err, errlen);
    if (st != TFL_OK)
        return st;
    tfl_op op = { .kind = TFL_OP_ATTENTION,
                  .name = a->backward ? "sdpa_backward" : "sdpa_forward" };
    op.u.attention = *a;
    st = tfl_route_op(&op, call->stream);
    if (st != TFL_OK && st != TFL_ERR_UNSUPPORTED)
        snprintf(err, errlen, "attention: %s failed (status %d)", op.name, (int)st);
    return st;
}

/* ------------------------------------------------------------ forward */

/* Variant v's forward Params p as the 2.11 layout run_forward reads (the
 * fields up to use_dropout; the rest of out is zero), its q_heads_per_kv
 * in *qpkv (1 before 2.14).  0 for a launch that covers only part of the
 * batches or heads (2.15 splits a grid that would be too large). */
static int fwd_as_2_11(const unsigned char *p, int v, unsigned char *out, int64_t *qpkv)
{
    memset(out, 0, F_SIZE);
    memcpy(out, p, F_NUM_H);                     /* up to num_batches */
    memcpy(out + F_NUM_H, p + mep_fwd[v].num_h, 4);
    out[F_USE_DROPOUT] = p[mep_fwd[v].use_dropout];
    *qpkv = mep_fwd[v].q_heads_per_kv < 0 ? 1 : rd_i32(p, mep_fwd[v].q_heads_per_kv);
    return mep_fwd[v].batch_offset < 0 ||
           (rd_i32(p, mep_fwd[v].batch_offset) == 0 && rd_i32(p, mep_fwd[v].head_offset) == 0);
}

static tfl_status run_forward(const tfl_kcall *call, tfl_dtype dt, int variant, char *err,
                              size_t errlen)
{
    unsigned char buf[F_SIZE];
    const unsigned char *p = buf;
    int64_t qpkv;
    if (!fwd_as_2_11(call->args[0], variant, buf, &qpkv))
        return TFL_ERR_UNSUPPORTED;
    if (rd_ptr(p, F_SEQSTART_Q) || rd_ptr(p, F_SEQSTART_K) || rd_ptr(p, F_SEQLEN_K) ||
        rd_i32(p, F_WINDOW) != 0 || p[F_USE_DROPOUT])
        return TFL_ERR_UNSUPPORTED;
    unsigned mask = p[F_MASK];
    if (mask > MASK_CAUSAL_BOTTOM_RIGHT)
        return TFL_ERR_UNSUPPORTED;

    tfl_attention_op a;
    memset(&a, 0, sizeof(a));
    a.dtype = dt;
    a.batch = rd_i32(p, F_NUM_B);
    a.heads = rd_i32(p, F_NUM_H);
    a.q_heads_per_kv = qpkv;    /* K/V head = head / q_heads_per_kv */
    a.num_queries = rd_i32(p, F_NUM_Q);
    a.num_keys = rd_i32(p, F_NUM_K);
    a.head_dim = rd_i32(p, F_HEAD_DIM);
    a.head_dim_value = rd_i32(p, F_HEAD_DIM_V);
    a.scale = rd_f32(p, F_SCALE);
    if (!shape_ok(&a) || call->grid[1] != (unsigned)a.heads ||
        call->grid[2] != (unsigned)a.batch)
        return TFL_ERR_UNSUPPORTED;
    if (mask != MASK_NONE) {
        uint32_t off;
        memcpy(&off, p + F_CAUSAL_DIAG_OFF, sizeof(off));
        a.mask = TFL_ATTN_MASK_CAUSAL;
        /* Bottom-right replaces the offset (advance_to_block). */
        a.causal_offset = mask == MASK_CAUSAL_BOTTOM_RIGHT ? a.num_keys - a.num_queries
                                                           : (int64_t)off;
    }
    a.q = tensor(rd_ptr(p, F_Q), rd_i64(p, F_Q_SB), rd_i32(p, F_Q_SH), rd_i32(p, F_Q_SM));
    a.k = tensor(rd_ptr(p, F_K), rd_i64(p, F_K_SB), rd_i32(p, F_K_SH), rd_i32(p, F_K_SM));
    a.v = tensor(rd_ptr(p, F_V), rd_i64(p, F_V_SB), rd_i32(p, F_V_SH), rd_i32(p, F_V_SM));
    a.bias = tensor(rd_ptr(p, F_BIAS), rd_i64(p, F_BIAS_SB), rd_i64(p, F_BIAS_SH),
                    rd_i32(p, F_BIAS_SM));
    /* Output rows of batch b start at b * num_queries * o_strideM; heads
     * are head_dim_value apart within a row ([B, M, H, Kv]). */
    int64_t osm = rd_i32(p, F_O_SM);
    a.out = tensor(rd_ptr(p, F_OUT), a.num_queries * osm, a.head_dim_value, osm);
    /* logsumexp is [B, H, ceil(M / 32) * 32], padded with +inf. */
    int64_t lse_dim = (a.num_queries + LSE_ALIGN - 1) / LSE_ALIGN * LSE_ALIGN;
    a.lse = tensor(rd_ptr(p, F_LSE), lse_dim * a.heads, lse_dim, 0);
    a.lse_padded_len = lse_dim;
    return run_op(call, &a, err, errlen);
}

/* ----------------------------------------------------------- backward */

/* Variant v's backward Params p as the 2.11 layout run_backward reads
 * (num_splits_key, which it does not read, is not carried), its
 * q_heads_per_kv in *qpkv (1 before 2.14: the kernel reads K and V of head
 * h / q_heads_per_kv and writes dK, dV per query head, which PyTorch sums
 * per group - TFL_OP_ATTENTION's convention).  0 for a launch over part of
 * the batches / heads. */
static int bwd_as_2_11(const unsigned char *p, int v, unsigned char *out, int64_t *qpkv)
{
    memset(out, 0, B_SIZE);
    memcpy(out, p, B_MASK);                      /* up to num_heads */
    out[B_MASK] = p[mep_bwd[v].mask];
    memcpy(out + B_Q_SM, p + bwd_at(v, B_Q_SM), B_GO_SB - B_Q_SM);
    memcpy(out + B_GO_SB, p + bwd_at(v, B_GO_SB), B_SIZE - B_GO_SB);
    *qpkv = mep_bwd[v].q_heads_per_kv < 0 ? 1 : rd_i32(p, mep_bwd[v].q_heads_per_kv);
    return mep_bwd[v].batch_offset < 0 ||
           (rd_i32(p, mep_bwd[v].batch_offset) == 0 && rd_i32(p, mep_bwd[v].head_offset) == 0);
}

static tfl_status run_backward(const tfl_kcall *call, tfl_dtype dt, int variant,
                               int dropout_kernel, char *err, size_t errlen)
{
    unsigned char buf[B_SIZE];
    const unsigned char *p = buf;
    int64_t qpkv;
    if (!bwd_as_2_11(call->args[0], variant, buf, &qpkv))
        return TFL_ERR_UNSUPPORTED;
    if (rd_ptr(p, B_CU_Q) || rd_ptr(p, B_CU_K) || rd_i32(p, B_WINDOW) != 0)
        return TFL_ERR_UNSUPPORTED;
    /* PyTorch picks a *_dropout_ kernel exactly when dropout_p > 0. */
    if (dropout_kernel)
        return TFL_ERR_UNSUPPORTED;
    unsigned mask = p[B_MASK];
    if (mask > MASK_CAUSAL_BOTTOM_RIGHT)
        return TFL_ERR_UNSUPPORTED;

    tfl_attention_op a;
    memset(&a, 0, sizeof(a));
    a.backward = 1;
    a.dtype = dt;
    a.batch = rd_i32(p, B_NUM_B);
    a.heads = rd_i32(p, B_NUM_H);
    a.q_heads_per_kv = qpkv;
    a.num_queries = rd_i32(p, B_NUM_Q);
    a.num_keys = rd_i32(p, B_NUM_K);
    a.head_dim = rd_i32(p, B_HEAD_DIM);
    a.head_dim_value = rd_i32(p, B_HEAD_DIM_V);
    a.scale = rd_f32(p, B_SCALE);
    int64_t mult = (int8_t)p[B_GQKV_MULT];
    if (!shape_ok(&a) || mult < 1 || call->grid[1] != (unsigned)a.heads ||
        call->grid[2] != (unsigned)a.batch)
        return TFL_ERR_UNSUPPORTED;
    if (mask != MASK_NONE) {
        a.mask = TFL_ATTN_MASK_CAUSAL;
        a.causal_offset = mask == MASK_CAUSAL_BOTTOM_RIGHT ? a.num_keys - a.num_queries : 0;
    }
    int64_t H = a.heads, D = a.head_dim, Dv = a.head_dim_value;
    a.q = tensor(rd_ptr(p, B_Q), rd_i64(p, B_Q_SB), rd_i32(p, B_Q_SH), rd_i64(p, B_Q_SM));
    a.k = tensor(rd_ptr(p, B_K), rd_i64(p, B_K_SB), rd_i32(p, B_K_SH), rd_i64(p, B_K_SM));
    a.v = tensor(rd_ptr(p, B_V), rd_i64(p, B_V_SB), rd_i32(p, B_V_SH), rd_i64(p, B_V_SM));
    a.bias = tensor(rd_ptr(p, B_BIAS), rd_i64(p, B_BIAS_SB), rd_i64(p, B_BIAS_SH),
                    rd_i64(p, B_BIAS_SM));
    a.lse = tensor(rd_ptr(p, B_LSE), rd_i64(p, B_LSE_SB), rd_i64(p, B_LSE_SH), 0);
    /* o_strideM() and the grads' strideM are derived, as in the kernel. */
    a.out = tensor(rd_ptr(p, B_OUT), rd_i64(p, B_O_SB), rd_i64(p, B_O_SH), Dv * H);
    a.grad_out = tensor(rd_ptr(p, B_GO), rd_i64(p, B_GO_SB), rd_i64(p, B_GO_SH),
                        rd_i64(p, B_GO_SM));
    a.grad_q = tensor(rd_ptr(p, B_GQ), rd_i64(p, B_GQ_SB), rd_i64(p, B_GQ_SH), mult * H * D);
    a.grad_k = tensor(rd_ptr(p, B_GK), rd_i64(p, B_GK_SB), rd_i64(p, B_GK_SH), mult * H * D);
    a.grad_v = tensor(rd_ptr(p, B_GV), rd_i64(p, B_GV_SB), rd_i64(p, B_GV_SH), mult * H * Dv);
    a.grad_bias = tensor(rd_ptr(p, B_GB), rd_i64(p, B_GB_SB), rd_i64(p, B_GB_SH),
                         rd_i64(p, B_GB_SM));
    if (!a.lse.ptr)
        return TFL_ERR_UNSUPPORTED;
    return run_op(call, &a, err, errlen);
}

/* For attention_flash.c: validate and route a decoded op. */
tfl_status tfl_attn_route(const tfl_kcall *call, tfl_attention_op *a, char *err, size_t errlen)
{
    if (!shape_ok(a))
        return TFL_ERR_UNSUPPORTED;
    return run_op(call, a, err, errlen);
}

static tfl_status run(const tfl_kcall *call, void *cookie, char *err, size_t errlen)
{
    if (!call->args || !call->args[0])
        return TFL_ERR_UNSUPPORTED;
    if (tfl_attn_flash_cookie(cookie))
        return tfl_attn_flash_run(call, cookie, err, errlen);
    if (ck_backward(cookie))
        return run_backward(call, ck_dtype(cookie), ck_variant(cookie), ck_dropout(cookie), err,
                            errlen);
    return run_forward(call, ck_dtype(cookie), ck_variant(cookie), err, errlen);
}

/* One by-value Params / flash params struct (alignment 8: it holds
 * pointers and int64 strides), of the size of the cookie's variant. */
static int layout(void *cookie, tfl_klayout *l)
{
    if (tfl_attn_flash_cookie(cookie))
        return tfl_attn_flash_layout(cookie, l);
    int v = ck_variant(cookie);
    tfl_klayout_add(l, (size_t)(ck_backward(cookie) ? mep_bwd[v].size : mep_fwd[v].size), 8);
    return 1;
}

const tfl_kfamily tfl_kfamily_attention = {
    .name = "attention",
    .match = match,
    .run = run,
    .op_name = op_name,
    .layout = layout,
};

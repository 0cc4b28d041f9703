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

#include <math.h>
#include <stdio.h>
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

/* PyTorch's CustomMaskType. */
enum { MASK_NONE = 0, MASK_CAUSAL_TOP_LEFT = 1, MASK_CAUSAL_BOTTOM_RIGHT = 2 };

/* The lse rows the forward pads to (kAlignLSE). */
#define LSE_ALIGN 32

/* Cookie: direction and element type, packed in the pointer value. */
#define CK_BACKWARD 0x100
static void *cookie_of(int backward, tfl_dtype dt)
{
    return (void *)(uintptr_t)(1 + (backward ? CK_BACKWARD : 0) + (unsigned)dt);
}
static int ck_backward(void *c) { return ((uintptr_t)c - 1) & CK_BACKWARD ? 1 : 0; }
static tfl_dtype ck_dtype(void *c) { return (tfl_dtype)(((uintptr_t)c - 1) & 0xff); }

/* _Z<len>fmha_cutlass{F,B}_{f32,f16,bf16}_...N22PyTorchMemEffAttention...6ParamsE */
static int match(const char *mangled, void **cookie)
{
    if (strstr(mangled, "13pytorch_flash"))
        return tfl_attn_flash_match(mangled, cookie);
    const char *p = mangled;
    if (strncmp(p, "_Z", 2) != 0)
        return 0;
    p += 2;
    while (*p >= '0' && *p <= '9')
        p++;
    int backward;
    if (strncmp(p, "fmha_cutlassF_", 14) == 0)
        backward = 0;
    else if (strncmp(p, "fmha_cutlassB_", 14) == 0)
        backward = 1;
    else
        return 0;
    p += 14;
    tfl_dtype dt;
    if (strncmp(p, "f32_", 4) == 0)
        dt = TFL_DT_F32;
    else if (strncmp(p, "f16_", 4) == 0)
        dt = TFL_DT_F16;
    else if (strncmp(p, "bf16_", 5) == 0)
        dt = TFL_DT_BF16;
    else
        return 0;
    const char *cls = backward ? "N22PyTorchMemEffAttention23AttentionBackwardKernelI"
                               : "N22PyTorchMemEffAttention15AttentionKernelI";
    size_t n = strlen(mangled);
    if (!strstr(p, cls) || n < 8 || strcmp(mangled + n - 8, "6ParamsE") != 0)
        return 0;
    *cookie = cookie_of(backward, dt);
    return 1;
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
    return ok ? TFL_OK : TFL_ERR_DEVICE;
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

static tfl_status run_forward(const tfl_kcall *call, tfl_dtype dt, char *err, size_t errlen)
{
    const unsigned char *p = call->args[0];
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
    a.q_heads_per_kv = 1;
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

static tfl_status run_backward(const tfl_kcall *call, tfl_dtype dt, int dropout_kernel,
                               char *err, size_t errlen)
{
    const unsigned char *p = call->args[0];
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
    a.q_heads_per_kv = 1;
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
        return run_backward(call, ck_dtype(cookie), strstr(call->name, "_dropout_") != NULL,
                            err, errlen);
    return run_forward(call, ck_dtype(cookie), err, errlen);
}

const tfl_kfamily tfl_kfamily_attention = {
    .name = "attention",
    .match = match,
    .run = run,
    .op_name = op_name,
};

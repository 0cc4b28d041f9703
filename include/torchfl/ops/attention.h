/*
 * torchfl/ops/attention.h - the "attention" op of the backend ABI: scaled
 * dot-product attention forward and backward.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_ATTENTION reads this struct.
 *
 * Per batch b and head h (kv head h / q_heads_per_kv for K and V):
 *
 *   S[i][j] = scale * Q[i] . K[j] + bias[i][j]     (i < num_queries,
 *             j < num_keys; -inf where the causal mask hides j)
 *   lse[i]  = log(sum_j exp(S[i][j]))
 *   P[i][j] = exp(S[i][j] - lse[i])
 *   O[i]    = sum_j P[i][j] V[j]
 *
 * A row whose keys are all hidden has lse = -inf and O = 0.
 *
 * Dropout (dropout_p > 0): O[i] = sum_j P[i][j] Z[i][j] V[j] / (1 - dropout_p)
 * with Z a 0/1 mask, 0 with probability dropout_p, drawn by the backend as
 * a function of (dropout_seed, dropout_offset, b, h, i, j) only - so a
 * backward given the same key uses the same mask (lse stays the undropped
 * softmax's).  The pattern is the backend's own, not a GPU kernel's.
 *
 * Backward (given dO and the forward's O and lse):
 *   D[i]  = dO[i] . O[i]
 *   dV[j] = sum_i P[i][j] dO[i]
 *   dS    = P * (dO V^T - D)          (elementwise, D broadcast over j;
 *                                       with dropout dO V^T is masked and
 *                                       scaled as P was, dV uses P Z/(1-p))
 *   dQ[i] = scale * sum_j dS[i][j] K[j]
 *   dK[j] = scale * sum_i dS[i][j] Q[i]
 *   dbias = dS                         (when grad_bias.ptr is set)
 *
 * Every matrix is addressed as ptr + b*stride_b + h*stride_h + row*stride_m
 * + col, in elements: the last dimension is contiguous.  Strides may be 0
 * (broadcast) but not negative.
 */
#ifndef TORCHFL_OPS_ATTENTION_H
#define TORCHFL_OPS_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

/* Which keys each query sees. */
typedef enum tfl_attn_mask {
    TFL_ATTN_MASK_NONE = 0,
    /* Query i sees key j iff j <= i + causal_offset. */
    TFL_ATTN_MASK_CAUSAL = 1,
} tfl_attn_mask;

/* One operand: a [batch][heads][rows][cols] view, last dim contiguous. */
typedef struct tfl_attn_tensor {
    void *ptr;               /* NULL: operand absent                      */
    int64_t stride_b, stride_h, stride_m;   /* in elements                */
} tfl_attn_tensor;

typedef struct tfl_attention_op {
    int backward;            /* 0: forward (writes out, lse); 1: backward  */
    /* Element type of q, k, v, bias, out, grad_*.  lse and delta are
     * always float32. */
    tfl_dtype dtype;
    int64_t batch, heads;    /* query heads                                */
    int64_t q_heads_per_kv;  /* >= 1: K/V head of query head h is h / this */
    int64_t num_queries, num_keys;
    int64_t head_dim;        /* Q and K columns                            */
    int64_t head_dim_value;  /* V, O columns                               */
    float scale;
    tfl_attn_mask mask;
    int64_t causal_offset;   /* for TFL_ATTN_MASK_CAUSAL                   */

    tfl_attn_tensor q, k, v; /* k, v indexed by kv head                    */
    tfl_attn_tensor bias;    /* optional additive [num_queries][num_keys]  */
    tfl_attn_tensor out;     /* [num_queries][head_dim_value]              */
    /* [num_queries] float32 (stride_m ignored).  The forward writes
     * +inf into entries num_queries .. lse_padded_len - 1 of each row
     * (padding the backward may read); lse.ptr NULL: not written. */
    tfl_attn_tensor lse;
    int64_t lse_padded_len;

    /* Backward only. */
    tfl_attn_tensor grad_out;   /* [num_queries][head_dim_value]           */
    tfl_attn_tensor grad_q;     /* [num_queries][head_dim]                 */
    tfl_attn_tensor grad_k;     /* [num_keys][head_dim], per query head    */
    tfl_attn_tensor grad_v;     /* [num_keys][head_dim_value], per q head  */
    tfl_attn_tensor grad_bias;  /* optional [num_queries][num_keys]        */

    /* Dropout on P (see above); 0 = none. */
    float dropout_p;
    uint64_t dropout_seed, dropout_offset;
} tfl_attention_op;

#endif

/*
 * torchfl/ops/rnn.h - the recurrent-network op (TFL_OP_RNN), part of the
 * backend ABI (included by torchfl/backend.h).
 *
 * A whole multi-layer (optionally bidirectional) RNN, LSTM or GRU over a
 * sequence, in one of three passes, with cuDNN's semantics (the cuDNN
 * intercept fills this from cudnnRNNForward / cudnnRNNBackwardData_v8 /
 * cudnnRNNBackwardWeights_v8).  float32, float16 or bfloat16 storage with
 * float math, or float64 with double math.
 *
 * Sequence data (x, y, dx, dy) is sequence-major and packed: time step t
 * holds batch_sizes[t] rows, rows of step t start at row
 * sum(batch_sizes[0..t-1]), and batch_sizes never grows with t (the
 * sequences are sorted longest first).  An unpacked [T][B][F] tensor is the
 * case batch_sizes[t] == B for every t.  x rows have input_size floats, y
 * rows dirs * hidden (direction d at column d * hidden).  hx, cx, hy, cy
 * (and their gradients) are [layers * dirs][B][hidden], B = batch_sizes[0];
 * NULL hx / cx mean zeros, NULL hy / cy / dhx / dcx mean "not wanted",
 * NULL dhy / dcy mean zeros.  The final state of a sequence is the one
 * after its last step in the direction of processing.
 *
 * Cells (G gates; a_k = W_k x + b_Wk + R_k h + b_Rk, k = gate):
 *   RNN_RELU / RNN_TANH (G 1):  h' = act(a_0)
 *   LSTM (G 4, gates i f g o):  i, f, o = sigmoid, g = tanh,
 *                               c' = f c + i g,  h' = o tanh(c')
 *   GRU  (G 3, gates r z n):    r, z = sigmoid,
 *                               n = tanh(W_n x + b_Wn + r (R_n h + b_Rn)),
 *                               h' = (1 - z) n + z h
 * Layer l > 0 takes the previous layer's output (dirs * hidden wide).
 *
 * Weight space: the layout tfl_rnn_weight_offsets() gives, one block per
 * pseudo-layer p = layer * dirs + dir: W (G matrices [hidden][in_p], in
 * gate order), R (G matrices [hidden][hidden]), b_W (G vectors of hidden),
 * b_R (G vectors).  Row-major matrices, so the gate blocks of W are one
 * [G * hidden][in_p] matrix.
 *
 * Reserve space: what FWD leaves for the backward passes (its size is
 * tfl_rnn_reserve_floats() elements: doubles for F64 data, else floats);
 * BWD_DATA adds the gate gradients that BWD_WEIGHTS reads, so the three
 * calls must share it.
 *
 *   FWD:         y, hy, cy from x, hx, cx, w (reserve filled when non-NULL;
 *                without one, no dropout: inference)
 *   BWD_DATA:    dx, dhx, dcx from dy, dhy, dcy, w, reserve
 *   BWD_WEIGHTS: dw += gradient, from x, hx, reserve (dw is ADDED to)
 */
#ifndef TORCHFL_OPS_RNN_H
#define TORCHFL_OPS_RNN_H

#include <stddef.h>
#include <stdint.h>

typedef enum tfl_rnn_cell {
    TFL_RNN_RELU = 0,
    TFL_RNN_TANH = 1,
    TFL_RNN_LSTM = 2,
    TFL_RNN_GRU = 3,
} tfl_rnn_cell;

typedef enum tfl_rnn_pass {
    TFL_RNN_FWD = 0,
    TFL_RNN_BWD_DATA = 1,
    TFL_RNN_BWD_WEIGHTS = 2,
} tfl_rnn_pass;

typedef struct tfl_rnn_op {
    tfl_rnn_pass pass;
    tfl_rnn_cell cell;
    int layers, dirs;          /* dirs 1 or 2                          */
    int input_size, hidden;
    int seq_len;               /* T: entries of batch_sizes            */
    const int *batch_sizes;    /* host array [T], see above            */
    /* Data, states, weights and their gradients: elements of dtype
     * (TFL_DT_F32, TFL_DT_F16, TFL_DT_BF16: float math; TFL_DT_F64:
     * double math). */
    tfl_dtype dtype;
    const void *x, *hx, *cx, *w;
    void *y, *hy, *cy;
    const void *dy, *dhy, *dcy;
    void *dx, *dhx, *dcx, *dw;
    void *reserve;             /* double for F64 data, else float       */
    size_t reserve_bytes;      /* size of reserve as given             */
    /* Dropout between layers (training only: FWD with a reserve; the
     * backward passes must get the same value).  Layer l > 0 reads
     * dropout(output of layer l - 1): each element kept with probability
     * 1 - p and scaled by 1 / (1 - p), else 0.  The mask is a function of
     * (dropout_seed, dropout_offset, layer, element); it is kept in the
     * reserve for the backward passes. */
    float dropout;
    uint64_t dropout_seed, dropout_offset;
} tfl_rnn_op;

static inline int tfl_rnn_gates(tfl_rnn_cell c)
{
    return c == TFL_RNN_LSTM ? 4 : c == TFL_RNN_GRU ? 3 : 1;
}

/* Offsets (in floats) of pseudo-layer p's W, R, b_W, b_R blocks; returns
 * the total weight-space size in floats (when p < 0, only that). */
static inline int64_t tfl_rnn_weight_offsets(tfl_rnn_cell cell, int layers, int dirs,
                                             int input_size, int hidden, int p,
                                             int64_t off[4])
{
    const int64_t g = tfl_rnn_gates(cell), h = hidden;
    int64_t pos = 0;
    if (off)
        off[0] = off[1] = off[2] = off[3] = 0;
    for (int q = 0; q < layers * dirs; q++) {
        int64_t in = q < dirs ? input_size : (int64_t)dirs * h;
        if (q == p && off) {
            off[0] = pos;
            off[1] = pos + g * h * in;
            off[2] = off[1] + g * h * h;
            off[3] = off[2] + g * h;
        }
        pos += g * h * in + g * h * h + 2 * g * h;
    }
    return pos;
}

/* Reserve floats for n = sum(batch_sizes) rows: per pseudo-layer and row
 * the G * hidden gate activations, hidden floats of cell state (LSTM) or
 * R_n h + b_Rn (GRU), the input-side gate gradients (G * hidden) and, for
 * GRU only (whose n gate makes them differ), the recurrent-side ones; then every layer's output (dirs * hidden
 * per row); with dropout (nonzero), for each layer > 0 its dropped input
 * and the mask's scale factors (dirs * hidden per row each). */
static inline int64_t tfl_rnn_reserve_floats(tfl_rnn_cell cell, int layers, int dirs,
                                             int hidden, int64_t n, int dropout)
{
    const int64_t g = tfl_rnn_gates(cell), h = hidden;
    const int64_t per_pl = n * ((cell == TFL_RNN_GRU ? 3 : 2) * g * h + h);
    return (int64_t)layers * dirs * per_pl + (int64_t)layers * n * dirs * h +
           (dropout ? 2 * (int64_t)(layers - 1) * n * dirs * h : 0);
}

#endif

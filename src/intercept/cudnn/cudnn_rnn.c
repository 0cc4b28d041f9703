/*
 * cudnn_rnn.c - cuDNN's RNN API (v8: RNN, RNN-data and dropout
 * descriptors, weight-space queries, cudnnRNNForward and the two backward
 * calls), run as TFL_OP_RNN ops (torchfl/ops/rnn.h).
 *
 * PyTorch 2.11 sends nn.RNN / nn.LSTM / nn.GRU on cuda here
 * (aten/src/ATen/native/cudnn/RNN.cpp): it asks the weight-space size,
 * asks cudnnGetRNNWeightParams where every gate matrix and bias lives and
 * copies its weights there, then calls cudnnRNNForward (training or
 * inference), cudnnRNNBackwardData_v8 and cudnnRNNBackwardWeights_v8 with
 * the reserve space of the forward call.  The weight-space layout and the
 * reserve contents are torchfl's own (ops/rnn.h); the gate order and the
 * cell equations are cuDNN's.  Accepted: float, half or bfloat16 data
 * (float math), double data (double math), linear
 * input, double bias, no projection, sequence-major data (unpacked with
 * equal lengths, or packed with lengths sorted longest first), dropout
 * between layers in training with torchfl's own mask (a hash of the
 * state buffer's seed and a per-call offset, not cuDNN's RNG).
 * Anything else answers CUDNN_STATUS_NOT_SUPPORTED with a line
 * in cudnnGetLastErrorString.  This file only checks and translates; the
 * math is the backend's.
 */
#include <cudnn.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "cudnn_internal.h"
#include "mem/mem.h"
#include "route/dispatch.h"
#include "route/runtime.h"

/* cudnnDropoutGetStatesSize: PyTorch allocates this many bytes of state;
 * torchfl keeps no RNG state there, but hands out a nonzero size so the
 * allocation is an ordinary one. */
#define DROPOUT_STATE_BYTES 256

struct dropout_desc {
    struct dropout_desc *self;
    float p;
    void *states;
    unsigned long long seed;
};

/* The dropout RNG's state, kept here per state buffer: cuDNN keeps it in
 * the buffer itself, and PyTorch creates the buffer once
 * (cudnnSetDropoutDescriptor, with the seed) and restores a descriptor on
 * it for every call (cudnnRestoreDropoutDescriptor).  Each training
 * forward with dropout takes the next offset, so masks differ per call. */
struct drop_rng {
    const void *states;        /* key */
    UT_hash_handle hh;
    uint64_t seed, counter;
};
static struct drop_rng *g_rng;
static pthread_mutex_t g_rng_mu = PTHREAD_MUTEX_INITIALIZER;

/* Set (reset = 1) or find-or-create the RNG of a state buffer; 0 on
 * allocation failure. */
static int rng_touch(const void *states, uint64_t seed, int reset)
{
    pthread_mutex_lock(&g_rng_mu);
    struct drop_rng *r = NULL;
    HASH_FIND_PTR(g_rng, &states, r);
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&g_rng_mu);
            return 0;
        }
        r->states = states;
        r->seed = seed;
        HASH_ADD_PTR(g_rng, states, r);
    } else if (reset) {
        r->seed = seed;
        r->counter = 0;
    }
    pthread_mutex_unlock(&g_rng_mu);
    return 1;
}

/* The seed and next offset of a state buffer's RNG. */
static void rng_next(const void *states, uint64_t *seed, uint64_t *offset)
{
    pthread_mutex_lock(&g_rng_mu);
    struct drop_rng *r = NULL;
    HASH_FIND_PTR(g_rng, &states, r);
    if (r) {
        *seed = r->seed;
        *offset = r->counter++;
    } else {
        *seed = 0;
        *offset = 0;
    }
    pthread_mutex_unlock(&g_rng_mu);
}

struct rnn_desc {
    struct rnn_desc *self;
    int set;
    cudnnRNNAlgo_t algo;
    cudnnRNNMode_t cell;
    cudnnRNNBiasMode_t bias;
    cudnnDirectionMode_t dir;
    cudnnRNNInputMode_t input_mode;
    cudnnDataType_t dtype, math_prec;
    cudnnMathType_t math_type;
    int input_size, hidden, proj, layers;
    float dropout;
    const void *dropout_states;
    unsigned long long dropout_seed;
    cudnnDropoutDescriptor_t dropout_desc;
    uint32_t aux;
};

struct rnn_data_desc {
    struct rnn_data_desc *self;
    int set;
    cudnnDataType_t dtype;
    cudnnRNNDataLayout_t layout;
    int max_seq, batch, vec;
    int *lens;                 /* [batch] */
    float fill;
};

/* ------------------------------------------------------- dropout desc */

cudnnStatus_t cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *out)
{
    return tfl_cudnn_desc_new(sizeof(struct dropout_desc), (void **)out);
}

cudnnStatus_t cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t desc)
{
    return tfl_cudnn_desc_free(desc);
}

cudnnStatus_t cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *size)
{
    if (!tfl_cudnn_handle_ok(handle))
        return CUDNN_STATUS_BAD_PARAM;
    if (!size)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *size = DROPOUT_STATE_BYTES;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t dropout_set(cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float p,
                                 void *states, size_t bytes, unsigned long long seed, int reset)
{
    struct dropout_desc *d = (struct dropout_desc *)desc;
    if (!d || d->self != d || !tfl_cudnn_handle_ok(handle))
        return CUDNN_STATUS_BAD_PARAM;
    if (!(p >= 0.0f && p < 1.0f))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "dropout probability %g is not in [0, 1)", (double)p);
    if (p > 0.0f && (!states || bytes < DROPOUT_STATE_BYTES))
        return tfl_cudnn_fail(CUDNN_STATUS_INVALID_VALUE, "dropout states too small (%zu bytes)", bytes);
    if (p > 0.0f && !rng_touch(states, seed, reset))
        return CUDNN_STATUS_ALLOC_FAILED;
    d->p = p;
    d->states = states;
    d->seed = seed;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float p,
                                        void *states, size_t bytes, unsigned long long seed)
{
    return dropout_set(desc, handle, p, states, bytes, seed, 1);
}

cudnnStatus_t cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float p,
                                            void *states, size_t bytes, unsigned long long seed)
{
    return dropout_set(desc, handle, p, states, bytes, seed, 0);
}

cudnnStatus_t cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float *p,
                                        void **states, unsigned long long *seed)
{
    const struct dropout_desc *d = (const struct dropout_desc *)desc;
    if (!d || d->self != d || !tfl_cudnn_handle_ok(handle) || !p || !states || !seed)
        return CUDNN_STATUS_BAD_PARAM;
    *p = d->p;
    *states = d->states;
    *seed = d->seed;
    return CUDNN_STATUS_SUCCESS;
}

/* ----------------------------------------------------------- RNN desc */

cudnnStatus_t cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *out)
{
    return tfl_cudnn_desc_new(sizeof(struct rnn_desc), (void **)out);
}

cudnnStatus_t cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t desc)
{
    return tfl_cudnn_desc_free(desc);
}

cudnnStatus_t cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t desc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cell,
                                       cudnnRNNBiasMode_t bias, cudnnDirectionMode_t dir,
                                       cudnnRNNInputMode_t input_mode, cudnnDataType_t dtype,
                                       cudnnDataType_t math_prec, cudnnMathType_t math_type,
                                       int32_t input_size, int32_t hidden, int32_t proj, int32_t layers,
                                       cudnnDropoutDescriptor_t dropout, uint32_t aux)
{
    struct rnn_desc *d = (struct rnn_desc *)desc;
    if (!d || d->self != d)
        return CUDNN_STATUS_BAD_PARAM;
    if (input_size <= 0 || hidden <= 0 || layers <= 0 || proj < 0)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN sizes input %d hidden %d layers %d proj %d",
                              input_size, hidden, layers, proj);
    if (cell != CUDNN_RNN_RELU && cell != CUDNN_RNN_TANH && cell != CUDNN_LSTM && cell != CUDNN_GRU)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN cell mode %d", (int)cell);
    if (dir != CUDNN_UNIDIRECTIONAL && dir != CUDNN_BIDIRECTIONAL)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN direction mode %d", (int)dir);
    /* refusals of what torchfl does not compute (the descriptor itself
     * would be valid for cuDNN) */
    if (dtype == CUDNN_DATA_DOUBLE ? math_prec != CUDNN_DATA_DOUBLE
                                   : ((dtype != CUDNN_DATA_FLOAT && dtype != CUDNN_DATA_HALF &&
                                       dtype != CUDNN_DATA_BFLOAT16) ||
                                      (math_prec != CUDNN_DATA_FLOAT && math_prec != dtype)))
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                              "RNN: data type %d with math %d is not supported (float, half or bfloat16 "
                              "data with float math, or double)", (int)dtype, (int)math_prec);
    if (proj != 0 && proj != hidden)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "RNN: LSTM projection (proj %d != hidden %d) "
                              "is not supported", proj, hidden);
    if (bias != CUDNN_RNN_DOUBLE_BIAS)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "RNN: bias mode %d is not supported "
                              "(only double bias)", (int)bias);
    if (input_mode != CUDNN_LINEAR_INPUT)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "RNN: skip input mode is not supported");
    const struct dropout_desc *dd = (const struct dropout_desc *)dropout;
    if (dd && dd->self != dd)
        return CUDNN_STATUS_BAD_PARAM;
    d->algo = algo;
    d->cell = cell;
    d->bias = bias;
    d->dir = dir;
    d->input_mode = input_mode;
    d->dtype = dtype;
    d->math_prec = math_prec;
    d->math_type = math_type;
    d->input_size = input_size;
    d->hidden = hidden;
    d->proj = proj;
    d->layers = layers;
    d->dropout = dd ? dd->p : 0.0f;
    d->dropout_states = dd ? dd->states : NULL;
    d->dropout_seed = dd ? dd->seed : 0;
    d->dropout_desc = dropout;
    d->aux = aux;
    d->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

static const struct rnn_desc *rnn_ok(cudnnRNNDescriptor_t desc)
{
    const struct rnn_desc *d = (const struct rnn_desc *)desc;
    return d && d->self == d && d->set ? d : NULL;
}

cudnnStatus_t cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t desc, cudnnRNNAlgo_t *algo, cudnnRNNMode_t *cell,
                                       cudnnRNNBiasMode_t *bias, cudnnDirectionMode_t *dir,
                                       cudnnRNNInputMode_t *input_mode, cudnnDataType_t *dtype,
                                       cudnnDataType_t *math_prec, cudnnMathType_t *math_type,
                                       int32_t *input_size, int32_t *hidden, int32_t *proj, int32_t *layers,
                                       cudnnDropoutDescriptor_t *dropout, uint32_t *aux)
{
    const struct rnn_desc *d = rnn_ok(desc);
    if (!d)
        return CUDNN_STATUS_BAD_PARAM;
    if (algo) *algo = d->algo;
    if (cell) *cell = d->cell;
    if (bias) *bias = d->bias;
    if (dir) *dir = d->dir;
    if (input_mode) *input_mode = d->input_mode;
    if (dtype) *dtype = d->dtype;
    if (math_prec) *math_prec = d->math_prec;
    if (math_type) *math_type = d->math_type;
    if (input_size) *input_size = d->input_size;
    if (hidden) *hidden = d->hidden;
    if (proj) *proj = d->proj;
    if (layers) *layers = d->layers;
    if (dropout) *dropout = d->dropout_desc;
    if (aux) *aux = d->aux;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBuildRNNDynamic(cudnnHandle_t handle, cudnnRNNDescriptor_t desc, int mini_batch)
{
    if (!tfl_cudnn_handle_ok(handle) || !rnn_ok(desc) || mini_batch <= 0)
        return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
}

static tfl_rnn_cell cell_of(const struct rnn_desc *d)
{
    switch (d->cell) {
    case CUDNN_RNN_RELU: return TFL_RNN_RELU;
    case CUDNN_RNN_TANH: return TFL_RNN_TANH;
    case CUDNN_LSTM:     return TFL_RNN_LSTM;
    default:             return TFL_RNN_GRU;
    }
}

static int dirs_of(const struct rnn_desc *d)
{
    return d->dir == CUDNN_BIDIRECTIONAL ? 2 : 1;
}

/* The descriptor's element type (set accepts only the four floating
 * types, so the lookup cannot fail on a set descriptor). */
static tfl_dtype tfl_type(const struct rnn_desc *d)
{
    tfl_dtype t = TFL_DT_BF16;
    tfl_cudnn_dtype(d->dtype, &t);
    return t;
}

/* Bytes of one data / weight element (the math is float regardless). */
static size_t esz(const struct rnn_desc *d)
{
    return tfl_dtype_size(tfl_type(d));
}

static size_t weight_bytes(const struct rnn_desc *d)
{
    return (size_t)tfl_rnn_weight_offsets(cell_of(d), d->layers, dirs_of(d), d->input_size, d->hidden,
                                          -1, NULL) * esz(d);
}

cudnnStatus_t cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle, cudnnRNNDescriptor_t desc, size_t *size)
{
    const struct rnn_desc *d = rnn_ok(desc);
    if (!tfl_cudnn_handle_ok(handle) || !d)
        return CUDNN_STATUS_BAD_PARAM;
    if (!size)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *size = weight_bytes(d);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNWeightParams(cudnnHandle_t handle, cudnnRNNDescriptor_t desc, int32_t pseudo_layer,
                                      size_t wbytes, const void *w, int32_t lin_id,
                                      cudnnTensorDescriptor_t mdesc, void **maddr,
                                      cudnnTensorDescriptor_t bdesc, void **baddr)
{
    const struct rnn_desc *d = rnn_ok(desc);
    if (!tfl_cudnn_handle_ok(handle) || !d)
        return CUDNN_STATUS_BAD_PARAM;
    const tfl_rnn_cell cell = cell_of(d);
    const int dirs = dirs_of(d), g = tfl_rnn_gates(cell), h = d->hidden;
    if (pseudo_layer < 0 || pseudo_layer >= d->layers * dirs || lin_id < 0 || lin_id >= 2 * g)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN weight params: pseudo layer %d, linear id %d",
                              pseudo_layer, lin_id);
    if (wbytes < weight_bytes(d))
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN weight space %zu bytes < %zu", wbytes,
                              weight_bytes(d));
    int64_t off[4];
    tfl_rnn_weight_offsets(cell, d->layers, dirs, d->input_size, h, pseudo_layer, off);
    const int recurrent = lin_id >= g, gate = lin_id % g;
    const int cols = recurrent ? h : (pseudo_layer < dirs ? d->input_size : dirs * h);
    const int64_t moff = off[recurrent ? 1 : 0] + (int64_t)gate * h * cols;
    const int64_t boff = off[recurrent ? 3 : 2] + (int64_t)gate * h;
    if (mdesc) {
        const int dims[3] = { 1, h, cols }, strides[3] = { h * cols, cols, 1 };
        cudnnStatus_t st = cudnnSetTensorNdDescriptor(mdesc, d->dtype, 3, dims, strides);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
    }
    if (maddr)
        *maddr = w ? (char *)w + moff * (int64_t)esz(d) : NULL;
    if (bdesc) {
        const int dims[3] = { 1, h, 1 }, strides[3] = { h, 1, 1 };
        cudnnStatus_t st = cudnnSetTensorNdDescriptor(bdesc, d->dtype, 3, dims, strides);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
    }
    if (baddr)
        *baddr = w ? (char *)w + boff * (int64_t)esz(d) : NULL;
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------ RNN data desc */

cudnnStatus_t cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *out)
{
    return tfl_cudnn_desc_new(sizeof(struct rnn_data_desc), (void **)out);
}

cudnnStatus_t cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t desc)
{
    struct rnn_data_desc *d = (struct rnn_data_desc *)desc;
    if (d && d->self == d)
        free(d->lens);
    return tfl_cudnn_desc_free(desc);
}

cudnnStatus_t cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t desc, cudnnDataType_t dtype,
                                        cudnnRNNDataLayout_t layout, int max_seq, int batch, int vec,
                                        const int lens[], void *fill)
{
    struct rnn_data_desc *d = (struct rnn_data_desc *)desc;
    if (!d || d->self != d || !lens || max_seq <= 0 || batch <= 0 || vec <= 0)
        return CUDNN_STATUS_BAD_PARAM;
    if (layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED && layout != CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED &&
        layout != CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return CUDNN_STATUS_BAD_PARAM;
    for (int b = 0; b < batch; b++)
        if (lens[b] < 0 || lens[b] > max_seq)
            return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN data: sequence %d has length %d (max %d)",
                                  b, lens[b], max_seq);
    int *copy = malloc(sizeof(int) * (size_t)batch);
    if (!copy)
        return CUDNN_STATUS_ALLOC_FAILED;
    memcpy(copy, lens, sizeof(int) * (size_t)batch);
    free(d->lens);
    d->lens = copy;
    d->dtype = dtype;
    d->layout = layout;
    d->max_seq = max_seq;
    d->batch = batch;
    d->vec = vec;
    d->fill = 0.0f;
    if (fill)
        memcpy(&d->fill, fill, sizeof d->fill);
    d->set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t desc, cudnnDataType_t *dtype,
                                        cudnnRNNDataLayout_t *layout, int *max_seq, int *batch, int *vec,
                                        int requested, int lens[], void *fill)
{
    const struct rnn_data_desc *d = (const struct rnn_data_desc *)desc;
    if (!d || d->self != d || !d->set || requested < 0 || (requested && !lens))
        return CUDNN_STATUS_BAD_PARAM;
    if (dtype) *dtype = d->dtype;
    if (layout) *layout = d->layout;
    if (max_seq) *max_seq = d->max_seq;
    if (batch) *batch = d->batch;
    if (vec) *vec = d->vec;
    for (int b = 0; b < requested && b < d->batch; b++)
        lens[b] = d->lens[b];
    if (fill)
        memcpy(fill, &d->fill, sizeof d->fill);
    return CUDNN_STATUS_SUCCESS;
}

/* --------------------------------------------------------- the calls */

/* The sequence layout as the op wants it: batch_sizes[t] rows at step t.
 * Sequence-major only; unpacked needs every length = max_seq (no padding
 * semantics), packed needs lengths sorted longest first. */
static cudnnStatus_t seq_layout(const struct rnn_data_desc *x, cudnnDataType_t want, int **bs_out, int *T_out,
                                int64_t *rows)
{
    if (!x || x->self != x || !x->set)
        return CUDNN_STATUS_BAD_PARAM;
    if (x->dtype != want)
        return tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN data type %d differs from the RNN's %d",
                              (int)x->dtype, (int)want);
    if (x->layout == CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "RNN: batch-major data layout is not supported");
    for (int b = 0; b < x->batch; b++) {
        if (x->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED && x->lens[b] != x->max_seq)
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                                  "RNN: padded sequences of unequal length are not supported");
        if (x->lens[b] < 1 || (b > 0 && x->lens[b] > x->lens[b - 1]))
            return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED,
                                  "RNN: packed sequence lengths must be >= 1 and sorted longest first");
    }
    const int T = x->lens[0];
    int *bs = calloc((size_t)T, sizeof(int));
    if (!bs)
        return CUDNN_STATUS_ALLOC_FAILED;
    int64_t n = 0;
    for (int b = 0; b < x->batch; b++) {
        for (int t = 0; t < x->lens[b]; t++)
            bs[t]++;
        n += x->lens[b];
    }
    *bs_out = bs;
    *T_out = T;
    *rows = x->layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ? (int64_t)x->max_seq * x->batch : n;
    return CUDNN_STATUS_SUCCESS;
}

/* A device range of n elements of e bytes: NULL passes when optional. */
static int range_ok(size_t e, const void *p, int64_t n, int optional)
{
    if (!p)
        return optional;
    return n <= 0 || tfl_mem_check_range(p, (size_t)n * e, NULL);
}

/* Everything the three calls check alike; fills op's shape fields and
 * *bs (freed by the caller). */
static cudnnStatus_t prepare(tfl_rnn_op *op, int **bs, cudnnHandle_t handle, const struct rnn_desc *d,
                             const struct rnn_data_desc *xd, const struct rnn_data_desc *yd,
                             cudnnTensorDescriptor_t hdesc, size_t wbytes, const void *w, int64_t *rows)
{
    *bs = NULL;
    if (!tfl_cudnn_handle_ok(handle) || !d)
        return CUDNN_STATUS_BAD_PARAM;
    int T = 0;
    cudnnStatus_t st = seq_layout(xd, d->dtype, bs, &T, rows);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const int dirs = dirs_of(d);
    if (xd->vec != d->input_size)
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN: x vector size %d != input size %d", xd->vec,
                            d->input_size);
    else if (yd && (yd->self != yd || !yd->set || yd->vec != dirs * d->hidden || yd->batch != xd->batch ||
                    yd->layout != xd->layout || yd->max_seq != xd->max_seq))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN: y descriptor does not match x");
    else if (wbytes < weight_bytes(d) || !range_ok(1, w, (int64_t)weight_bytes(d), 0))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN: weight space of %zu bytes is short or not "
                            "device memory", wbytes);
    if (st == CUDNN_STATUS_SUCCESS && hdesc) {
        cudnnDataType_t dt = CUDNN_DATA_FLOAT;
        int nb = 0, dims[8], strides[8];
        /* PyTorch pads the descriptor to 5-d with trailing 1s */
        int extra_ok = 1;
        if (cudnnGetTensorNdDescriptor(hdesc, 8, &dt, &nb, dims, strides) == CUDNN_STATUS_SUCCESS)
            for (int i = 3; i < nb && i < 8; i++)
                extra_ok &= dims[i] == 1;
        if (!extra_ok || nb < 3 || nb > 8 || dt != d->dtype ||
            dims[0] != d->layers * dirs || dims[1] != xd->batch || dims[2] != d->hidden ||
            strides[2] != 1 || strides[1] != d->hidden || strides[0] != xd->batch * d->hidden)
            st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN: h descriptor is not a packed [%d][%d][%d]",
                                d->layers * dirs, xd->batch, d->hidden);
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        free(*bs);
        *bs = NULL;
        return st;
    }
    memset(op, 0, sizeof *op);
    op->dtype = tfl_type(d);
    op->cell = cell_of(d);
    op->layers = d->layers;
    op->dirs = dirs;
    op->input_size = d->input_size;
    op->hidden = d->hidden;
    op->seq_len = T;
    op->batch_sizes = *bs;
    op->w = w;
    return CUDNN_STATUS_SUCCESS;
}

/* Dropout acts between layers of a training pass. */
static int drops(const struct rnn_desc *d)
{
    return d->dropout > 0.0f && d->layers > 1;
}

static size_t reserve_bytes(const struct rnn_desc *d, int64_t rows)
{
    /* reserve elements are the math type: double for double data */
    return (size_t)tfl_rnn_reserve_floats(cell_of(d), d->layers, dirs_of(d), d->hidden, rows, drops(d)) *
           (d->dtype == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float));
}

static cudnnStatus_t route(const tfl_rnn_op *rop, cudnnHandle_t handle, const char *name)
{
    cudaStream_t s = NULL;
    if (cudnnGetStream(handle, &s) != CUDNN_STATUS_SUCCESS)
        return CUDNN_STATUS_BAD_PARAM;
    tfl_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_OP_RNN;
    op.name = name;
    op.u.rnn = *rop;
    tfl_status st = tfl_route_op(&op, (tfl_rt_stream *)s);
    if (st == TFL_OK)
        return CUDNN_STATUS_SUCCESS;
    return tfl_cudnn_fail(st == TFL_ERR_UNSUPPORTED ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_EXECUTION_FAILED,
                          "cuDNN %s failed (torchfl status %d)", name, (int)st);
}

cudnnStatus_t cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle, cudnnRNNDescriptor_t desc, cudnnForwardMode_t mode,
                                        cudnnRNNDataDescriptor_t xdesc, size_t *work, size_t *reserve)
{
    const struct rnn_desc *d = rnn_ok(desc);
    if (!tfl_cudnn_handle_ok(handle) || !d || (mode != CUDNN_FWD_MODE_INFERENCE && mode != CUDNN_FWD_MODE_TRAINING))
        return CUDNN_STATUS_BAD_PARAM;
    int *bs = NULL, T = 0;
    int64_t rows = 0;
    cudnnStatus_t st = seq_layout((const struct rnn_data_desc *)xdesc, d->dtype, &bs, &T, &rows);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    free(bs);
    /* the host backend needs no workspace; the reserve keeps the forward
     * pass's intermediates (ops/rnn.h) */
    if (work)
        *work = 0;
    if (reserve)
        *reserve = mode == CUDNN_FWD_MODE_TRAINING ? reserve_bytes(d, rows) : 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t desc, cudnnForwardMode_t mode,
                              const int32_t dev_seq_lengths[], cudnnRNNDataDescriptor_t xdesc, const void *x,
                              cudnnRNNDataDescriptor_t ydesc, void *y, cudnnTensorDescriptor_t hdesc,
                              const void *hx, void *hy, cudnnTensorDescriptor_t cdesc, const void *cx, void *cy,
                              size_t wbytes, const void *w, size_t work_bytes, void *work,
                              size_t res_bytes, void *reserve)
{
    (void)dev_seq_lengths; (void)work_bytes; (void)work; (void)cdesc;
    const struct rnn_desc *d = rnn_ok(desc);
    if (!d)
        return CUDNN_STATUS_BAD_PARAM;
    if (mode != CUDNN_FWD_MODE_INFERENCE && mode != CUDNN_FWD_MODE_TRAINING)
        return CUDNN_STATUS_BAD_PARAM;
    tfl_rnn_op op;
    int *bs = NULL;
    int64_t rows = 0;
    cudnnStatus_t st = prepare(&op, &bs, handle, d, (const struct rnn_data_desc *)xdesc,
                               (const struct rnn_data_desc *)ydesc, hdesc, wbytes, w, &rows);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const int64_t hn = (int64_t)d->layers * op.dirs * op.batch_sizes[0] * d->hidden;
    const int lstm = d->cell == CUDNN_LSTM;
    if (mode == CUDNN_FWD_MODE_TRAINING && (!reserve || res_bytes < reserve_bytes(d, rows)))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN: reserve space of %zu bytes < %zu", res_bytes,
                            reserve_bytes(d, rows));
    else if (!range_ok(esz(d), x, rows * d->input_size, 0) ||
             !range_ok(esz(d), y, rows * op.dirs * d->hidden, 0) ||
             !range_ok(esz(d), hx, hn, 1) || !range_ok(esz(d), hy, hn, 1) ||
             (lstm && (!range_ok(esz(d), cx, hn, 1) || !range_ok(esz(d), cy, hn, 1))) ||
             (mode == CUDNN_FWD_MODE_TRAINING && !range_ok(1, reserve, (int64_t)res_bytes, 0)))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN forward: a data pointer is not device memory of the "
                            "described size");
    if (st == CUDNN_STATUS_SUCCESS) {
        op.pass = TFL_RNN_FWD;
        op.x = x;
        op.y = y;
        op.hx = hx;
        op.hy = hy;
        op.cx = lstm ? cx : NULL;
        op.cy = lstm ? cy : NULL;
        if (mode == CUDNN_FWD_MODE_TRAINING) {
            op.reserve = reserve;
            op.reserve_bytes = res_bytes;
            if (drops(d)) {
                op.dropout = d->dropout;
                rng_next(d->dropout_states, &op.dropout_seed, &op.dropout_offset);
            }
        }
        st = route(&op, handle, "rnn_fwd");
    }
    free(bs);
    return st;
}

cudnnStatus_t cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t desc,
                                      const int32_t dev_seq_lengths[], cudnnRNNDataDescriptor_t ydesc,
                                      const void *y, const void *dy, cudnnRNNDataDescriptor_t xdesc, void *dx,
                                      cudnnTensorDescriptor_t hdesc, const void *hx, const void *dhy, void *dhx,
                                      cudnnTensorDescriptor_t cdesc, const void *cx, const void *dcy, void *dcx,
                                      size_t wbytes, const void *w, size_t work_bytes, void *work,
                                      size_t res_bytes, void *reserve)
{
    (void)dev_seq_lengths; (void)work_bytes; (void)work; (void)cdesc; (void)y;
    const struct rnn_desc *d = rnn_ok(desc);
    if (!d)
        return CUDNN_STATUS_BAD_PARAM;
    tfl_rnn_op op;
    int *bs = NULL;
    int64_t rows = 0;
    cudnnStatus_t st = prepare(&op, &bs, handle, d, (const struct rnn_data_desc *)xdesc,
                               (const struct rnn_data_desc *)ydesc, hdesc, wbytes, w, &rows);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const int64_t hn = (int64_t)d->layers * op.dirs * op.batch_sizes[0] * d->hidden;
    const int lstm = d->cell == CUDNN_LSTM;
    if (!reserve || res_bytes < reserve_bytes(d, rows))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN backward data: reserve space of %zu bytes < %zu",
                            res_bytes, reserve_bytes(d, rows));
    else if (!range_ok(esz(d), dy, rows * op.dirs * d->hidden, 0) ||
             !range_ok(esz(d), dx, rows * d->input_size, 0) ||
             !range_ok(esz(d), hx, hn, 1) || !range_ok(esz(d), dhy, hn, 1) || !range_ok(esz(d), dhx, hn, 1) ||
             (lstm && (!range_ok(esz(d), cx, hn, 1) || !range_ok(esz(d), dcy, hn, 1) || !range_ok(esz(d), dcx, hn, 1))) ||
             !range_ok(1, reserve, (int64_t)res_bytes, 0))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN backward data: a data pointer is not device memory "
                            "of the described size");
    if (st == CUDNN_STATUS_SUCCESS) {
        op.pass = TFL_RNN_BWD_DATA;
        op.dy = dy;
        op.dx = dx;
        op.hx = hx;
        op.dhy = dhy;
        op.dhx = dhx;
        op.cx = lstm ? cx : NULL;
        op.dcy = lstm ? dcy : NULL;
        op.dcx = lstm ? dcx : NULL;
        op.reserve = reserve;
        op.reserve_bytes = res_bytes;
        op.dropout = drops(d) ? d->dropout : 0.0f;
        st = route(&op, handle, "rnn_bwd_data");
    }
    free(bs);
    return st;
}

cudnnStatus_t cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t desc, cudnnWgradMode_t add,
                                         const int32_t dev_seq_lengths[], cudnnRNNDataDescriptor_t xdesc,
                                         const void *x, cudnnTensorDescriptor_t hdesc, const void *hx,
                                         cudnnRNNDataDescriptor_t ydesc, const void *y, size_t wbytes,
                                         void *dw, size_t work_bytes, void *work, size_t res_bytes,
                                         void *reserve)
{
    (void)dev_seq_lengths; (void)work_bytes; (void)work; (void)y;
    const struct rnn_desc *d = rnn_ok(desc);
    if (!d)
        return CUDNN_STATUS_BAD_PARAM;
    if (add != CUDNN_WGRAD_MODE_ADD)
        return tfl_cudnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "RNN backward weights: only CUDNN_WGRAD_MODE_ADD");
    tfl_rnn_op op;
    int *bs = NULL;
    int64_t rows = 0;
    cudnnStatus_t st = prepare(&op, &bs, handle, d, (const struct rnn_data_desc *)xdesc,
                               (const struct rnn_data_desc *)ydesc, hdesc, wbytes, dw, &rows);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const int64_t hn = (int64_t)d->layers * op.dirs * op.batch_sizes[0] * d->hidden;
    if (!reserve || res_bytes < reserve_bytes(d, rows))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN backward weights: reserve space of %zu bytes < %zu",
                            res_bytes, reserve_bytes(d, rows));
    else if (!range_ok(esz(d), x, rows * d->input_size, 0) || !range_ok(esz(d), hx, hn, 1) ||
             !range_ok(1, reserve, (int64_t)res_bytes, 0))
        st = tfl_cudnn_fail(CUDNN_STATUS_BAD_PARAM, "RNN backward weights: a data pointer is not device "
                            "memory of the described size");
    if (st == CUDNN_STATUS_SUCCESS) {
        op.pass = TFL_RNN_BWD_WEIGHTS;
        op.x = x;
        op.hx = hx;
        op.dw = dw;
        op.w = NULL;
        op.reserve = reserve;
        op.reserve_bytes = res_bytes;
        op.dropout = drops(d) ? d->dropout : 0.0f;
        st = route(&op, handle, "rnn_bwd_weights");
    }
    free(bs);
    return st;
}

/*
 * host_ops.h - the native op kernels of the host backend.
 *
 * One function per op family; backend.c routes tfl_op to them.
 */
#ifndef TFL_HOST_OPS_H
#define TFL_HOST_OPS_H

#include "torchfl/backend.h"

/* The host backend's table (registered like any plugin). */
extern const tfl_backend tfl_host_backend;

/* Nonzero if the host backend can run this gemm natively. */
int host_gemm_supported(const tfl_gemm_op *op);
tfl_status host_gemm(const tfl_gemm_op *op);
/* The op families (src/backends/host/ops_<family>.c). */
int host_elementwise_supported(const tfl_elementwise_op *op);
tfl_status host_elementwise(const tfl_elementwise_op *op);
int host_distance_supported(const tfl_distance_op *op);
tfl_status host_distance(const tfl_distance_op *op);
int host_fft_supported(const tfl_fft_op *op);
tfl_status host_fft(const tfl_fft_op *op);
int host_sparse_supported(const tfl_sparse_op *op);
tfl_status host_sparse(const tfl_sparse_op *op);
int host_reduce_supported(const tfl_reduce_op *op);
tfl_status host_reduce(const tfl_reduce_op *op);
int host_softmax_supported(const tfl_softmax_op *op);
tfl_status host_softmax(const tfl_softmax_op *op);
int host_loss_supported(const tfl_loss_op *op);
tfl_status host_loss(const tfl_loss_op *op);
int host_embedding_supported(const tfl_embedding_op *op);
tfl_status host_embedding(const tfl_embedding_op *op);
int host_norm_supported(const tfl_norm_op *op);
tfl_status host_norm(const tfl_norm_op *op);
int host_random_supported(const tfl_random_op *op);
tfl_status host_random(const tfl_random_op *op);
int host_foreach_supported(const tfl_foreach_op *op);
tfl_status host_foreach(const tfl_foreach_op *op);
int host_index_supported(const tfl_index_op *op);
tfl_status host_index(const tfl_index_op *op);
int host_attention_supported(const tfl_attention_op *op);
tfl_status host_attention(const tfl_attention_op *op);
int host_scan_supported(const tfl_scan_op *op);
tfl_status host_scan(const tfl_scan_op *op);
int host_sort_supported(const tfl_sort_op *op);
tfl_status host_sort(const tfl_sort_op *op);
int host_batchnorm_supported(const tfl_batchnorm_op *op);
tfl_status host_batchnorm(const tfl_batchnorm_op *op);
int host_bucket_supported(const tfl_bucket_op *op);
tfl_status host_bucket(const tfl_bucket_op *op);
int host_spatial_supported(const tfl_spatial_op *op);
tfl_status host_spatial(const tfl_spatial_op *op);

/* BLAS level 1/2, TRSM and SYRK (TFL_OP_BLAS). */
int host_blas_supported(const tfl_blas_op *op);
tfl_status host_blas(const tfl_blas_op *op);
/* Convolution (TFL_OP_CONV): im2col + OpenBLAS GEMM, or direct loops (ops_conv.c). */
int host_conv_supported(const tfl_conv_op *op);
tfl_status host_conv(const tfl_conv_op *op);

/* Small steps of other ops: unique over bool (TFL_OP_MISC, ops_misc.c). */
int host_misc_supported(const tfl_misc_op *op);
tfl_status host_misc(const tfl_misc_op *op);

/* Reflect / replicate padding and its gradient (TFL_OP_SHAPE, ops_shape.c). */
int host_shape_supported(const tfl_shape_op *op);
tfl_status host_shape(const tfl_shape_op *op);
/* split_with_sizes_copy / _chunk_cat byte copies (ops_jagged.c). */
tfl_status host_jagged(const tfl_shape_op *op);
/* Recurrent networks (TFL_OP_RNN): RNN / LSTM / GRU over OpenBLAS (ops_rnn.c). */
int host_rnn_supported(const tfl_rnn_op *op);
tfl_status host_rnn(const tfl_rnn_op *op);

/* OpenBLAS's thread count (0 = its default: OPENBLAS_NUM_THREADS, else
 * the CPU count). */
void host_blas_set_threads(int n);

#endif

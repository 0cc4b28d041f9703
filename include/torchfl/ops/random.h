/*
 * torchfl/ops/random.h - the "random" op of the backend ABI: random number
 * generation with Philox4x32-10 counters laid out as cuRAND's
 * curandStatePhilox4_32_10 (what CUDA PyTorch uses), and dropout.
 *
 * Part of the contract in torchfl/backend.h (included from there); a
 * backend that implements TFL_OP_RANDOM reads this struct.
 *
 * Which random number lands on which element is part of the op, so that a
 * backend reproduces what a GPU gives for the same seed:
 *   - the launch had `threads` threads; thread t starts a generator as
 *     curand_init(seed, t, offset) does (key = seed, counter = offset / 4 in
 *     words 0-1 and t in words 2-3) and draws 4 values per call;
 *   - a draw yields 4 values (float: curand_uniform4 / curand_normal4;
 *     32-bit integers: curand4) or 2 (acc F64: curand_uniform2_double /
 *     curand_normal2_double; bits 64: two curand4 words each, .x/.z high);
 *   - TFL_RANDOM_TRAVERSE_GRID_STRIDE: draw k of thread t feeds elements
 *     t + threads * (k * U + j), j < U values per draw (PyTorch's
 *     grid-stride loop: distribution kernels, fused_dropout_kernel);
 *   - TFL_RANDOM_TRAVERSE_VEC: thread t handles `vec` consecutive elements
 *     starting at (t + threads * k) * vec, with ceil(vec / 4) draws for each
 *     such step; vec = 2 uses .x and .y of a fresh draw each step
 *     (fused_dropout_kernel_vec);
 *   - TFL_RANDOM_TRAVERSE_APPLY4: thread t handles elements (t + threads*k)*4
 *     + j, j = 0..3, and restarts its generator at every step k, so every
 *     step sees the same first draw (kernelPointwiseApply2 with step 4, as
 *     bernoulli_(p_tensor) runs it).
 */
#ifndef TORCHFL_OPS_RANDOM_H
#define TORCHFL_OPS_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#define TFL_RANDOM_MAX_DIMS 25

typedef enum tfl_random_kind {
    /* out = fma(u, a, b), then out == c ? b : out; u = cuRAND uniform in
     * (0, 1].  (PyTorch's uniform_ with a = to - from, b = from, c = to.) */
    TFL_RANDOM_UNIFORM = 1,
    /* out = fma(n, a, b), n = Box-Muller normal as curand_normal4/2_double. */
    TFL_RANDOM_NORMAL = 2,
    /* out = (u < a) ? 1 : 0. */
    TFL_RANDOM_BERNOULLI = 3,
    /* out = (dtype)(int64)(r % range + base), r the raw 32- or 64-bit draw;
     * range 0: no modulo (random_ over the full 64-bit range). */
    TFL_RANDOM_INT_FROM_TO = 4,
    /* mask = (u < a); out = in * mask * (float)(1.0 / a)  (a = keep prob). */
    TFL_RANDOM_DROPOUT = 5,
    /* out = (u <= in) ? 1 : 0, in the probability tensor (in_dtype). */
    TFL_RANDOM_BERNOULLI_TENSOR = 6,
    /* dropout backward, no random numbers: out = (float)mask * in * a over
     * numel contiguous elements (threads and traverse unused). */
    TFL_RANDOM_MASKED_SCALE = 7,
    /* out = (-1 / a) * lg, lg = u >= 1 - eps/2 ? -eps/2 : log(u), eps the
     * output type's epsilon, u = cuRAND uniform in (0, 1]  (exponential_
     * with rate a; F32 or F64, acc = dtype). */
    TFL_RANDOM_EXPONENTIAL = 8,
    /* No random numbers: every row r < rows of `out` (rows x cols,
     * contiguous, dtype F32 or F64) is divided by its sum when the sum is
     * > 0 (multinomial's renormRowsL1; threads and traverse unused). */
    TFL_RANDOM_RENORM_ROWS = 9,
    /* multinomial with replacement: for distribution d < rows and sample
     * s < samples, thread t = gy * grid_x * block_x + s0 (s0 the
     * thread's first sample, gy = d mod grid_y) draws its next curand
     * uniform (the .x of a fresh curand_uniform4, each thread walking its
     * distributions d = gy, gy + grid_y, ... and samples s = s0,
     * s0 + grid_x * block_x, ...; generator curand_init(seed, t, offset))
     * and writes to out (int64, rows x samples, contiguous) the first
     * category c whose cumulative probability in `mask` (rows x cols,
     * dtype, contiguous) is >= the draw (cols - 1 if none), then moved
     * down to the nearest category with nonzero probability in `in`
     * (rows x cols, dtype, contiguous).  dtype F32 or F64. */
    TFL_RANDOM_MULTINOMIAL = 10,
    /* out = fma(b, tan(pi * (u' - 0.5)), a), u = cuRAND uniform; with acc
     * F32 u' = u clamped to [eps, 1 - eps] (float eps), with acc F64 u' = u
     * (cauchy_ with median a, sigma b). */
    TFL_RANDOM_CAUCHY = 11,
    /* out = exp(fma(n, b, a)), n a normal draw as for NORMAL (log_normal_
     * with mean a, std b). */
    TFL_RANDOM_LOG_NORMAL = 12,
    /* out = ceil(log(u) / log1p(-p)) in the acc type (p = a rounded to acc),
     * then converted to dtype (geometric_(p); integer outputs too). */
    TFL_RANDOM_GEOMETRIC = 13,
    /* rrelu in training (F.rrelu(training=True)): r = u * b + a in double
     * (u the cuRAND uniform, acc F32 or F64; for F16/BF16 u is first
     * rounded to the type), rounded to dtype; where in <= 0: out = in * r,
     * mask = r; else out = in, mask = 1.  mask is the noise tensor, of
     * dtype; in, out, mask contiguous (a = lower, b = upper - lower). */
    TFL_RANDOM_RRELU = 14,
} tfl_random_kind;

typedef enum tfl_random_traverse {
    TFL_RANDOM_TRAVERSE_GRID_STRIDE = 0,
    TFL_RANDOM_TRAVERSE_VEC = 1,
    TFL_RANDOM_TRAVERSE_APPLY4 = 2,
} tfl_random_traverse;

/* A strided tensor.  Element i (linear, row-major over the logical shape)
 * is found by peeling dimension 0 first: dim 0 varies fastest.  ndim = 0
 * means contiguous (element i at data + i * element size). */
typedef struct tfl_random_view {
    void *data;
    int ndim;
    int64_t sizes[TFL_RANDOM_MAX_DIMS];
    int64_t strides[TFL_RANDOM_MAX_DIMS];   /* in bytes */
} tfl_random_view;

typedef struct tfl_random_op {
    tfl_random_kind kind;
    tfl_random_traverse traverse;
    int vec;                 /* TRAVERSE_VEC: 2, 4, 8 or 16              */
    uint64_t seed, offset;   /* curand_init(seed, thread, offset)        */
    uint64_t threads;        /* threads in the launch (grid x block)     */
    int64_t numel;
    tfl_dtype dtype;         /* out (and in for dropout): F32 (dropout), F32 or
                              * F64 (UNIFORM/NORMAL/BERNOULLI); INT_FROM_TO and
                              * BERNOULLI_TENSOR: F32, F64, I64, I32, I8, U8,
                              * BOOL (INT_FROM_TO also F16, BF16: the int64
                              * value rounded to float, then to the type);
                              * with acc F32 the floating kinds may write
                              * F16/BF16 (the float result rounded once);
                              * GEOMETRIC with acc F32 also I64, I32, I8, U8 */
    tfl_dtype acc;           /* UNIFORM/NORMAL/BERNOULLI: F32 or F64 draws    */
    int bits;                /* INT_FROM_TO: 32 or 64-bit draws               */
    tfl_dtype mask_dtype;    /* dropout mask: BOOL or U8 (1 byte, 0/1)  */
    tfl_dtype in_dtype;      /* BERNOULLI_TENSOR: probabilities, F32 or F64 */
    tfl_random_view out, in, mask;
    double a, b, c;          /* parameters as the kind says; with acc F32 they
                              * hold float values and are used as floats    */
    uint64_t range;          /* INT_FROM_TO                              */
    int64_t base;
    /* RENORM_ROWS, MULTINOMIAL: the matrix shape and the launch */
    int64_t rows, cols, samples;
    uint32_t grid_x, grid_y, block_x;
} tfl_random_op;

#endif

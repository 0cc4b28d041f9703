/*
 * ops_random_philox.h - Philox4x32-10 (Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3", SC 2011) with the state handling of cuRAND's
 * curandStatePhilox4_32_10 and its float transforms, so that the host
 * produces the numbers a GPU kernel draws for the same (seed, subsequence,
 * offset).  Written from the published algorithm and cuRAND's documented
 * behaviour (curand_init / skipahead / skipahead_sequence / curand4).
 */
#ifndef TFL_OPS_RANDOM_PHILOX_H
#define TFL_OPS_RANDOM_PHILOX_H

#include <math.h>
#include <stdint.h>

/* Round constants of Philox4x32 (the paper's W and M values). */
#define TFL_PHILOX_W0 0x9E3779B9u
#define TFL_PHILOX_W1 0xBB67AE85u
#define TFL_PHILOX_M0 0xD2511F53u
#define TFL_PHILOX_M1 0xCD9E8D57u

/* One block: 10 rounds of Philox4x32 on counter ctr with key key. */
static inline void tfl_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                     uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 10
#endif
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)TFL_PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)TFL_PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        uint32_t n3 = (uint32_t)p0;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += TFL_PHILOX_W0;     /* key schedule: bumped after each round */
        k1 += TFL_PHILOX_W1;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

/* A generator positioned as curand_init(seed, subsequence, offset) leaves it. */
typedef struct tfl_philox_state {
    uint32_t ctr[4];
    uint32_t key[2];
    uint32_t out[4];     /* philox(ctr), the block being consumed */
    unsigned pos;        /* words of `out` already used (0..3)   */
} tfl_philox_state;

/* ctr += n, n a 64-bit count of blocks (carry into words 2-3). */
static inline void tfl_philox_advance(tfl_philox_state *s, uint64_t n)
{
    uint64_t lo = ((uint64_t)s->ctr[1] << 32 | s->ctr[0]);
    uint64_t sum = lo + n;
    s->ctr[0] = (uint32_t)sum;
    s->ctr[1] = (uint32_t)(sum >> 32);
    if (sum < lo) {
        if (++s->ctr[2] == 0)
            ++s->ctr[3];
    }
}

static inline void tfl_philox_init(tfl_philox_state *s, uint64_t seed,
                                   uint64_t subsequence, uint64_t offset)
{
    s->key[0] = (uint32_t)seed;
    s->key[1] = (uint32_t)(seed >> 32);
    /* the subsequence selects the high 64 bits of the counter ... */
    s->ctr[0] = 0;
    s->ctr[1] = 0;
    s->ctr[2] = (uint32_t)subsequence;
    s->ctr[3] = (uint32_t)(subsequence >> 32);
    /* ... the offset (in 32-bit values) the low 64 bits and the position. */
    s->pos = (unsigned)(offset & 3);
    tfl_philox_advance(s, offset >> 2);
    tfl_philox4x32_10(s->ctr, s->key, s->out);
}

/* curand4: the next four 32-bit values. */
static inline void tfl_philox_next4(tfl_philox_state *s, uint32_t r[4])
{
    uint32_t cur[4] = { s->out[0], s->out[1], s->out[2], s->out[3] };
    tfl_philox_advance(s, 1);
    tfl_philox4x32_10(s->ctr, s->key, s->out);
    for (unsigned i = 0; i < 4; i++) {
        unsigned j = s->pos + i;
        r[i] = j < 4 ? cur[j] : s->out[j - 4];
    }
}

/* The k-th curand4 result of a generator set up by curand_init(seed,
 * subsequence, offset), computed directly (Philox is counter based): block
 * offset/4 + k of the subsequence, shifted by offset % 4 words.  Equals k+1
 * calls of tfl_philox_next4 after tfl_philox_init. */
static inline void tfl_philox_draw(uint64_t seed, uint64_t subsequence, uint64_t offset,
                                   uint64_t k, uint32_t r[4])
{
    const uint32_t key[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
    const unsigned pos = (unsigned)(offset & 3);
    uint32_t blk[2][4];
    for (unsigned b = 0; b < (pos ? 2u : 1u); b++) {
        uint64_t lo = (offset >> 2) + k + b;
        uint64_t hi = subsequence + (lo < (offset >> 2));   /* 128-bit carry */
        const uint32_t ctr[4] = { (uint32_t)lo, (uint32_t)(lo >> 32),
                                  (uint32_t)hi, (uint32_t)(hi >> 32) };
        tfl_philox4x32_10(ctr, key, blk[b]);
    }
    for (unsigned i = 0; i < 4; i++) {
        unsigned j = pos + i;
        r[i] = j < 4 ? blk[0][j] : blk[1][j - 4];
    }
}

/* cuRAND's float uniform: x * 2^-32 + 2^-33, in (0, 1].  The GPU fuses it
 * (FFMA); the product by a power of two is exact, so a plain multiply and
 * add round the same way. */
static inline float tfl_curand_uniform(uint32_t x)
{
    return (float)x * 0x1p-32f + 0x1p-33f;
}

/* cuRAND's Box-Muller pair from two 32-bit values: sin first, then cos.
 * The GPU evaluates sin/cos with its approximate hardware unit (about
 * 2^-21 absolute error), so these agree with a GPU to that, not bit for
 * bit; u, v, log and sqrt are as the GPU computes them. */
static inline void tfl_curand_box_muller(uint32_t x, uint32_t y, float *a, float *b)
{
    const float two_pi_2pow32_inv = 0x1.921fb6p-30f;   /* 2*pi / 2^32 in float */
    float u = tfl_curand_uniform(x);
    float v = fmaf((float)y, two_pi_2pow32_inv, 0x1.921fb6p-31f);
    float s = sqrtf(-2.0f * logf(u));
    *a = sinf(v) * s;
    *b = cosf(v) * s;
}

/* cuRAND's double uniform from two 32-bit values (53 bits), in (0, 1]. */
static inline double tfl_curand_uniform_double(uint32_t x, uint32_t y)
{
    uint64_t z = (uint64_t)x ^ ((uint64_t)y << (53 - 32));
    return (double)z * 0x1p-53 + 0x1p-54;
}

/* cuRAND's double Box-Muller pair (curand_normal2_double): sinpi first.
 * The GPU uses sincospi; sin/cos of v*pi here agree to an ulp or so. */
static inline void tfl_curand_box_muller_double(uint32_t x0, uint32_t x1, uint32_t y0,
                                                uint32_t y1, double *a, double *b)
{
    uint64_t zx = (uint64_t)x0 ^ ((uint64_t)x1 << (53 - 32));
    uint64_t zy = (uint64_t)y0 ^ ((uint64_t)y1 << (53 - 32));
    double u = (double)zx * 0x1p-53 + 0x1p-54;
    double v = (double)zy * 0x1p-52 + 0x1p-53;
    double s = sqrt(-2.0 * log(u));
    *a = sin(v * 3.1415926535897932) * s;
    *b = cos(v * 3.1415926535897932) * s;
}

#endif

// Kernels for test_ptx_mma.c: tensor-core style code as CUTLASS and
// flash-attention write it - cp.async into shared memory, ldmatrix
// fragments, mma.sync - in inline PTX, one warp per 16x8 output tile.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// A: 16x16 row-major (16-bit), Bt: 8x16 row-major (B transposed: column-
// major B), C/D: 16x8 row-major f32.
template <bool BF>
__device__ void mma_tile(const unsigned short *A, const unsigned short *Bt, const float *C, float *D)
{
    __shared__ __align__(16) unsigned short sa[16 * 16];
    __shared__ __align__(16) unsigned short sb[8 * 16];
    int l = threadIdx.x;
    // cp.async 16 bytes per thread: A is 512 bytes (32 chunks), Bt 256 (16)
    unsigned da = (unsigned)__cvta_generic_to_shared(sa + l * 8);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" :: "r"(da), "l"(A + l * 8));
    if (l < 16) {
        unsigned db = (unsigned)__cvta_generic_to_shared(sb + l * 8);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(db), "l"(Bt + l * 8));
    }
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncwarp();
    unsigned a[4], b[2];
    unsigned pa = (unsigned)__cvta_generic_to_shared(sa + (l % 16) * 16 + (l / 16) * 8);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    unsigned pb = (unsigned)__cvta_generic_to_shared(sb + (l % 8) * 16 + ((l / 8) % 2) * 8);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    int g = l >> 2, tg = l & 3;
    float c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[(g + 8 * (i >> 1)) * 8 + tg * 2 + (i & 1)];
    if (BF)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[(g + 8 * (i >> 1)) * 8 + tg * 2 + (i & 1)] = d[i];
}

extern "C" __global__ void mma_f16(const unsigned short *A, const unsigned short *Bt, const float *C, float *D)
{
    mma_tile<false>(A + blockIdx.x * 256, Bt + blockIdx.x * 128, C + blockIdx.x * 128, D + blockIdx.x * 128);
}

extern "C" __global__ void mma_bf16(const unsigned short *A, const unsigned short *Bt, const float *C, float *D)
{
    mma_tile<true>(A + blockIdx.x * 256, Bt + blockIdx.x * 128, C + blockIdx.x * 128, D + blockIdx.x * 128);
}

// tf32 m16n8k8 with registers loaded straight from global (A 16x8, Bt 8x8)
extern "C" __global__ void mma_tf32(const float *A, const float *Bt, const float *C, float *D)
{
    int l = threadIdx.x, g = l >> 2, tg = l & 3;
    unsigned a[4], b[2];
    for (int i = 0; i < 4; i++) a[i] = __float_as_uint(A[(g + 8 * (i & 1)) * 8 + tg + 4 * (i >> 1)]);
    for (int i = 0; i < 2; i++) b[i] = __float_as_uint(Bt[g * 8 + tg + 4 * i]);
    float c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[(g + 8 * (i >> 1)) * 8 + tg * 2 + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[(g + 8 * (i >> 1)) * 8 + tg * 2 + (i & 1)] = d[i];
}

// ldmatrix .x1 and .x1.trans of one 8x8 16-bit matrix: each lane's
// fragment goes to out[lane] (plain) and out[32 + lane] (transposed)
extern "C" __global__ void ldm_frag(const unsigned short *M, unsigned *out)
{
    __shared__ __align__(16) unsigned short s[64];
    int l = threadIdx.x;
    s[l] = M[l]; s[l + 32] = M[l + 32];
    __syncwarp();
    unsigned p = (unsigned)__cvta_generic_to_shared(s + (l % 8) * 8), r, rt;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r) : "r"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(rt) : "r"(p));
    out[l] = r;
    out[32 + l] = rt;
}

// m16n8k8 with f16 inputs and f16 accumulators, fragments from registers
extern "C" __global__ void mma_k8_f16acc(const unsigned short *A, const unsigned short *Bt,
                                         const unsigned short *C, unsigned short *D)
{
    int l = threadIdx.x, g = l >> 2, tg = l & 3;
    unsigned a[2], b, c[2], d[2];
    for (int i = 0; i < 2; i++)
        a[i] = A[(g + 8 * i) * 8 + tg * 2] | ((unsigned)A[(g + 8 * i) * 8 + tg * 2 + 1] << 16);
    b = Bt[g * 8 + tg * 2] | ((unsigned)Bt[g * 8 + tg * 2 + 1] << 16);
    for (int i = 0; i < 2; i++)
        c[i] = C[(g + 8 * i) * 8 + tg * 2] | ((unsigned)C[(g + 8 * i) * 8 + tg * 2 + 1] << 16);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};\n"
                 : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; i++) {
        D[(g + 8 * i) * 8 + tg * 2] = (unsigned short)d[i];
        D[(g + 8 * i) * 8 + tg * 2 + 1] = (unsigned short)(d[i] >> 16);
    }
}

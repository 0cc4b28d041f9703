/*
 * test_ops_jagged.c - the host backend's jagged byte copies
 * (src/backends/host/ops_jagged.c): split_with_sizes_copy and _chunk_cat
 * against copies made here, on registered (device-visible) memory; then
 * metadata that names memory outside device memory, or sizes whose
 * arithmetic overflows, fails the op with TFL_ERR_DEVICE and writes
 * nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "common/half.h"
#include "mem/mem.h"

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; printf("FAIL %s:%d: ", __FILE__, \
    __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static unsigned char src[4096], dst[4096], outside[64];
static int64_t meta[64];           /* pointer and size arrays, "device" memory */

static void reg(void *p, size_t n)
{
    CHECK(tfl_mem_register(p, n, TFL_MEM_HOST_REGISTERED, 0, 0) == TFL_OK, "register");
}

static tfl_status split(int64_t nsplit, int64_t chunks, int64_t stride)
{
    tfl_shape_op op = { .kind = TFL_SHAPE_SPLIT_COPY, .dtype = TFL_DT_U8 };
    op.split = (tfl_split_copy_geom){ .nsplit = nsplit, .num_chunks = chunks,
                                      .src_stride = stride, .dst_addrs = meta,
                                      .src_addrs = meta + 8, .chunk_bytes = meta + 16 };
    return host_shape(&op);
}

static void test_split(void)
{
    /* a [3 chunks x 10 bytes] source split 4 + 6 */
    for (int i = 0; i < 30; i++)
        src[i] = (unsigned char)(i + 1);
    memset(dst, 0, sizeof dst);
    void *d[2] = { dst, dst + 100 }, *s[2] = { src, src + 4 };
    memcpy(meta, d, sizeof d);
    memcpy(meta + 8, s, sizeof s);
    meta[16] = 4;
    meta[17] = 6;
    CHECK(split(2, 3, 10) == TFL_OK, "split");
    int bad = 0;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 10; i++)
            bad |= (i < 4 ? dst[c * 4 + i] : dst[100 + c * 6 + i - 4]) != src[c * 10 + i];
    CHECK(!bad, "split contents");

    /* bad metadata: nothing written */
    memset(dst, 0, sizeof dst);
    void *o = outside;
    memcpy(meta + 1, &o, sizeof o);                 /* dst of split 1 not device memory */
    CHECK(split(2, 3, 10) == TFL_ERR_DEVICE, "foreign dst");
    memcpy(meta + 1, &d[1], sizeof d[1]);
    meta[17] = INT64_MAX / 2;                       /* n * chunks overflows */
    CHECK(split(2, 3, 10) == TFL_ERR_DEVICE, "overflowing size");
    meta[17] = 6;
    CHECK(split(2, 3, INT64_MAX / 2) == TFL_ERR_DEVICE, "overflowing stride");
    CHECK(split(2, 3, 4090) == TFL_ERR_DEVICE, "stride past the source");
    meta[17] = -1;
    CHECK(split(2, 3, 10) == TFL_ERR_DEVICE, "negative size");
    int touched = 0;
    for (size_t i = 0; i < sizeof dst; i++)
        touched |= dst[i];
    CHECK(!touched, "a refused split wrote");
}

static tfl_status cat(int64_t ntensor, int64_t chunks, int64_t leading, int64_t chunk_size,
                      int bf16)
{
    tfl_shape_op op = { .kind = TFL_SHAPE_CHUNK_CAT, .dtype = TFL_DT_U8 };
    op.ccat = (tfl_chunk_cat_geom){ .ntensor = ntensor, .num_chunks = chunks,
                                    .leading = leading, .slice_size = chunks * chunk_size,
                                    .chunk_size = chunk_size, .bf16_to_f32 = bf16, .dst = dst,
                                    .srcs = meta, .start = meta + 8, .actual = meta + 16,
                                    .pad = meta + 24 };
    return host_shape(&op);
}

static void test_chunk_cat(void)
{
    /* tensors of 5 and 3 bytes in 2 chunks: pieces padded to 3 and 2 */
    for (int i = 0; i < 8; i++)
        src[i] = (unsigned char)(10 + i);
    memset(dst, 0xee, sizeof dst);
    void *s[2] = { src, src + 5 };
    memcpy(meta, s, sizeof s);
    meta[8] = 0;  meta[9] = 3;       /* start of each piece in a chunk */
    meta[16] = 5; meta[17] = 3;      /* actual bytes */
    meta[24] = 3; meta[25] = 2;      /* padded piece bytes */
    CHECK(cat(2, 2, 1, 5, 0) == TFL_OK, "chunk_cat");
    const unsigned char want[10] = { 10, 11, 12, 15, 16, 13, 14, 0, 17, 0 };
    CHECK(memcmp(dst, want, 10) == 0, "chunk_cat contents %u %u %u %u %u %u %u %u %u %u",
          dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7], dst[8], dst[9]);

    /* bf16 -> fp32: 3 values over 2 chunks of 2 floats (8 dst bytes) */
    uint16_t h[3] = { tfl_f32_to_bf16(1.5f), tfl_f32_to_bf16(-2.0f), tfl_f32_to_bf16(3.25f) };
    memcpy(src, h, sizeof h);
    void *s0 = src;
    memcpy(meta, &s0, sizeof s0);
    meta[8] = 0; meta[16] = 6; meta[24] = 8;
    CHECK(cat(1, 2, 1, 8, 1) == TFL_OK, "chunk_cat bf16");
    float f[4];
    memcpy(f, dst, sizeof f);
    CHECK(f[0] == 1.5f && f[1] == -2.0f && f[2] == 3.25f && f[3] == 0.0f,
          "chunk_cat bf16 contents %g %g %g %g", f[0], f[1], f[2], f[3]);

    /* bad metadata: nothing written */
    memset(dst, 0, sizeof dst);
    memcpy(meta, s, sizeof s);
    meta[8] = 0;  meta[9] = 3;
    meta[16] = 5; meta[17] = 3;
    meta[24] = 3; meta[25] = 2;
    void *o = outside;
    memcpy(meta + 1, &o, sizeof o);
    CHECK(cat(2, 2, 1, 5, 0) == TFL_ERR_DEVICE, "foreign source");
    memcpy(meta + 1, &s[1], sizeof s[1]);
    meta[17] = INT64_MAX / 2;                       /* leading * actual overflows */
    CHECK(cat(2, 2, 3, 5, 0) == TFL_ERR_DEVICE, "overflowing source size");
    meta[17] = 3;
    meta[9] = INT64_MAX - 1;                        /* start + pad overflows */
    CHECK(cat(2, 2, 1, 5, 0) == TFL_ERR_DEVICE, "overflowing piece start");
    meta[9] = 4;                                    /* piece past its chunk */
    CHECK(cat(2, 2, 1, 5, 0) == TFL_ERR_DEVICE, "piece outside its chunk");
    meta[9] = 3;
    meta[24] = 3;
    CHECK(cat(2, 2, 1, 5, 1) == TFL_ERR_DEVICE, "odd bf16 piece");
    int touched = 0;
    for (size_t i = 0; i < sizeof dst; i++)
        touched |= dst[i];
    CHECK(!touched, "a refused chunk_cat wrote");
}

int main(void)
{
    reg(src, sizeof src);
    reg(dst, sizeof dst);
    reg(meta, sizeof meta);
    test_split();
    test_chunk_cat();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}

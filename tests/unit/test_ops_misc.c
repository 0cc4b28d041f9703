/*
 * test_ops_misc.c - host_misc (torch.unique over bool: values, counts,
 * inverse indices, against counts made here) and the multinomial kinds of
 * host_random: renorm rows (against a double reference) and sampling with
 * replacement (frequencies within 6 standard deviations of the
 * probabilities, zero-probability classes never drawn, a one-class row
 * always drawn, a bad count refused); the misc family's parameter layouts
 * of the 2.11 and 2.15 kernels against their cubins (2.13 on name the
 * count's iterator differently).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/host/host_ops.h"
#include "route/optable.h"
#include "cubin_layouts.h"

static int failures, checks;

#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); } } while (0)

static void test_unique_bool(const uint8_t *x, int64_t n)
{
    int32_t t = 0;
    for (int64_t i = 0; i < n; i++)
        t += x[i] != 0;
    const int64_t f = n - t;
    uint8_t values[2] = { 7, 7 };
    int64_t counts[2] = { -5, -5 }, inv[64];
    tfl_misc_op op = { .kind = TFL_MISC_UNIQUE_BOOL_OUTPUT, .numel = n, .num_true = &t,
                       .values = values, .counts = counts };
    CHECK(host_misc_supported(&op) && host_misc(&op) == TFL_OK, "unique output failed");
    int k = 0;
    if (f) {
        CHECK(values[k] == 0 && counts[k] == f, "false slot %d: %d %lld", k, values[k],
              (long long)counts[k]);
        k++;
    }
    if (t) {
        CHECK(values[k] == 1 && counts[k] == t, "true slot %d: %d %lld", k, values[k],
              (long long)counts[k]);
        k++;
    }
    for (; k < 2; k++)
        CHECK(values[k] == 7 && counts[k] == -5, "slot %d written with no value", k);
    op = (tfl_misc_op){ .kind = TFL_MISC_UNIQUE_BOOL_INVERSE, .numel = n, .num_true = &t,
                        .self = x, .inverse = inv };
    CHECK(host_misc(&op) == TFL_OK, "unique inverse failed");
    for (int64_t i = 0; i < n; i++)
        CHECK(inv[i] == (x[i] ? (f > 0) : 0), "inverse[%lld] = %lld", (long long)i,
              (long long)inv[i]);
    int32_t bad = (int32_t)n + 1;
    op.num_true = &bad;
    CHECK(host_misc(&op) == TFL_ERR_DEVICE, "a count above numel was accepted");
}

enum { R = 3, C = 6, S = 20000 };

static void test_multinomial(void)
{
    float p[R * C] = { 1, 0, 2, 3, 0.5f, 4,
                       0, 0, 0, 7, 0, 0,
                       0, 1, 1, 1, 1, 0 };
    double ref[R * C];
    for (int r = 0; r < R; r++) {
        double s = 0;
        for (int c = 0; c < C; c++)
            s += p[r * C + c];
        for (int c = 0; c < C; c++)
            ref[r * C + c] = p[r * C + c] / s;
    }
    tfl_random_op op;
    memset(&op, 0, sizeof op);
    op.kind = TFL_RANDOM_RENORM_ROWS;
    op.dtype = op.acc = TFL_DT_F32;
    op.out.data = p;
    op.rows = R;
    op.cols = C;
    CHECK(host_random(&op) == TFL_OK, "renorm failed");
    float cum[R * C];
    for (int r = 0; r < R; r++) {
        float s = 0;
        for (int c = 0; c < C; c++) {
            CHECK(fabs(p[r * C + c] - ref[r * C + c]) <= 1e-6, "renorm [%d][%d]: %g, want %g",
                  r, c, p[r * C + c], ref[r * C + c]);
            s += p[r * C + c];
            cum[r * C + c] = s;
        }
    }
    static int64_t out[R * S];
    memset(&op, 0, sizeof op);
    op.kind = TFL_RANDOM_MULTINOMIAL;
    op.dtype = op.acc = TFL_DT_F32;
    op.seed = 1234;
    op.offset = 8;
    op.rows = R;
    op.cols = C;
    op.samples = S;
    op.grid_x = 40;
    op.grid_y = 2;                 /* fewer than the rows: threads walk rows */
    op.block_x = 128;
    op.out.data = out;
    op.in.data = p;
    op.mask.data = cum;
    CHECK(host_random_supported(&op) && host_random(&op) == TFL_OK, "multinomial failed");
    for (int r = 0; r < R; r++) {
        int64_t counts[C] = { 0 };
        for (int s = 0; s < S; s++) {
            int64_t c = out[r * S + s];
            CHECK(c >= 0 && c < C, "sample %lld out of range", (long long)c);
            if (c >= 0 && c < C)
                counts[c]++;
        }
        for (int c = 0; c < C; c++) {
            double q = ref[r * C + c], sd = sqrt(S * q * (1 - q));
            if (q == 0)
                CHECK(counts[c] == 0, "row %d: class %d (probability 0) drawn %lld times", r, c,
                      (long long)counts[c]);
            else
                CHECK(fabs(counts[c] - S * q) <= 6 * sd + 1, "row %d class %d: %lld, expected %g",
                      r, c, (long long)counts[c], S * q);
        }
    }
    op.grid_x = 0;
    CHECK(!host_random_supported(&op), "a launch with no threads was accepted");
}

/* Mangled names and parameter layouts (offset:size) as the sm_80 cubins
 * of torch 2.11 and 2.15 record them (read with `torchfl wheel --list`
 * and scripts/wheel_kernels.py). */
static const cubin_layout cubin[] = {
    /* 2.11.0 count_true */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native8internal21MapNumberOfTrueValuesEPKhiNSD_11use_defaultEEEPiyS9_iiNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:16 16:8 24:8 32:1 36:4 40:1" },
    /* 2.11.0 count_true */
    { "_ZN14at_cuda_detail3cub6detail6reduce18DeviceReduceKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust45THRUST_300001_SM_750_800_860_900_1000_1200_NS18transform_iteratorIN2at6native8internal21MapNumberOfTrueValuesEPKhiNSD_11use_defaultEEEyS9_iNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISR_EET2_T4_",
      "0:16 16:8 24:8 32:72 104:1 105:1" },
    /* 2.11.0 unique_bool_output */
    { "_ZN2at6native8internal24unique_bool_write_outputEiPKiPbPl",
      "0:4 8:8 16:8 24:8" },
    /* 2.11.0 unique_bool_inverse */
    { "_ZN2at6native8internal33unique_bool_write_inverse_indicesEiPKiPKbPl",
      "0:4 8:8 16:8 24:8" },
    /* 2.15.0 count_true */
    { "_ZN14at_cuda_detail3cub6detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust38_V_300200_SM_750_800_860_900_1000_120018transform_iteratorIN2at6native8internal21MapNumberOfTrueValuesEPKhNSD_11use_defaultESL_EEPiyS9_iiNS7_8identityEEEvT0_T1_T2_T3_T4_T6_",
      "0:16 16:8 24:8 32:1 36:4 40:1" },
    /* 2.15.0 count_true */
    { "_ZN14at_cuda_detail3cub6detail6reduce18DeviceReduceKernelINS2_10policy_hubIiyN4cuda3std3__44plusIvEEE10Policy1000EN6thrust38_V_300200_SM_750_800_860_900_1000_120018transform_iteratorIN2at6native8internal21MapNumberOfTrueValuesEPKhNSD_11use_defaultESL_EEyS9_iNS7_8identityEEEvT0_PT3_T1_NS0_13GridEvenShareISR_EET2_T4_",
      "0:16 16:8 24:8 32:72 104:1 105:1" },

};

static void test_layouts(void)
{
    check_cubin_layouts(&tfl_kfamily_misc, cubin, sizeof cubin / sizeof cubin[0], &checks,
                        &failures);
    /* the count over another iterator (a different value type) is not ours */
    void *cookie = NULL;
    CHECK(!tfl_kfamily_misc.match("_ZN2at6native8internal24unique_bool_write_outputEiPKiPbPi",
                                  &cookie), "int counts claimed");
}

int main(void)
{
    uint8_t a[] = { 1, 0, 1 }, b[] = { 1, 1, 1, 1 }, c[] = { 0, 0 }, d[64];
    for (int i = 0; i < 64; i++)
        d[i] = (uint8_t)((i * 37) % 5 == 0);
    test_unique_bool(a, 3);
    test_unique_bool(b, 4);
    test_unique_bool(c, 2);
    test_unique_bool(d, 64);
    test_unique_bool(d, 0);
    test_multinomial();
    test_layouts();
    printf("test_ops_misc: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}

// tfl-libs: -lcudnn
/*
 * cudnn_rnn.cu - cuDNN's v8 RNN API driven directly (as PyTorch does,
 * without PyTorch): descriptors, the weight-space queries, a forward pass
 * on device memory checked against a closed form, and the refusals and
 * bad-input answers (an error status and a message, never a crash).
 *
 * Closed form: an LSTM whose weights and biases are all zero has every
 * gate at sigmoid(0) = 1/2 and g = tanh(0) = 0, so c_t = c_{t-1} / 2 and
 * h_t = tanh(c_t) / 2 at every step: after T steps of layer 0,
 * cy = cx / 2^T and hy = tanh(cy) / 2 (computed here in double).
 */
// tfl-backends: opencl
#include "check.h"
#include <cudnn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <vector>

#define CK(call) do { cudnnStatus_t s_ = (call); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #call, (int)s_, \
            cudnnGetErrorString(s_)); tfl_failures++; } } while (0)
#define CK_IS(call, want) do { cudnnStatus_t s_ = (call); if (s_ != (want)) { \
    fprintf(stderr, "%s:%d: %s = %d, want %d\n", __FILE__, __LINE__, #call, (int)s_, (int)(want)); \
    tfl_failures++; } } while (0)

static cudnnTensorDescriptor_t hdesc(int a, int b, int c)
{
    cudnnTensorDescriptor_t d;
    CK(cudnnCreateTensorDescriptor(&d));
    const int dims[3] = {a, b, c}, strides[3] = {b * c, c, 1};
    CK(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, 3, dims, strides));
    return d;
}

int main()
{
    const int T = 3, B = 2, I = 3, H = 4, L = 2;
    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    cudnnDropoutDescriptor_t drop;
    CK(cudnnCreateDropoutDescriptor(&drop));
    CK(cudnnSetDropoutDescriptor(drop, h, 0.0f, NULL, 0, 0));
    CK_IS(cudnnSetDropoutDescriptor(drop, h, 1.5f, NULL, 0, 0), CUDNN_STATUS_BAD_PARAM);

    cudnnRNNDescriptor_t rd;
    CK(cudnnCreateRNNDescriptor(&rd));
    /* refusals at descriptor time */
    CK_IS(cudnnSetRNNDescriptor_v8(rd, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                   CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                   CUDNN_DEFAULT_MATH, I, H, 2, L, drop, 0),
          CUDNN_STATUS_NOT_SUPPORTED);   /* projection */
    char msg[256] = "";
    cudnnGetLastErrorString(msg, sizeof msg);
    CHECK(strstr(msg, "projection") != NULL);
    CK_IS(cudnnSetRNNDescriptor_v8(rd, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                   CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT,
                                   CUDNN_DEFAULT_MATH, I, H, H, L, drop, 0),
          CUDNN_STATUS_NOT_SUPPORTED);   /* double data, float math */
    CK_IS(cudnnSetRNNDescriptor_v8(rd, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                   CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                   CUDNN_DEFAULT_MATH, I, -1, H, L, drop, 0),
          CUDNN_STATUS_BAD_PARAM);
    CK(cudnnSetRNNDescriptor_v8(rd, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                CUDNN_DEFAULT_MATH, I, H, H, L, drop, CUDNN_RNN_PADDED_IO_ENABLED));

    /* weight space: every gate's matrix and bias inside it, gates of one
     * kind contiguous (what PyTorch's get_parameters asserts) */
    size_t wbytes = 0;
    CK(cudnnGetRNNWeightSpaceSize(h, rd, &wbytes));
    CHECK(wbytes > 0 && wbytes % 4 == 0);
    float *w = NULL;
    CHECK_OK(cudaMalloc(&w, wbytes));
    CHECK_OK(cudaMemset(w, 0, wbytes));
    cudnnTensorDescriptor_t md, bd;
    CK(cudnnCreateTensorDescriptor(&md));
    CK(cudnnCreateTensorDescriptor(&bd));
    size_t covered = 0;
    for (int p = 0; p < L * 2; p++) {
        char *prev_end[2] = {NULL, NULL};
        for (int id = 0; id < 8; id++) {
            void *m = NULL, *b = NULL;
            CK(cudnnGetRNNWeightParams(h, rd, p, wbytes, w, id, md, &m, bd, &b));
            cudnnDataType_t dt;
            int nb = 0, dims[4] = {0}, st[4] = {0};
            CK(cudnnGetTensorNdDescriptor(md, 4, &dt, &nb, dims, st));
            const int in = p < 2 ? I : 2 * H;
            CHECK(nb == 3 && dims[0] == 1 && dims[1] == H && dims[2] == (id < 4 ? in : H));
            CHECK((char *)m >= (char *)w && (char *)m + 4 * dims[1] * dims[2] <= (char *)w + wbytes);
            CHECK((char *)b >= (char *)w && (char *)b + 4 * H <= (char *)w + wbytes);
            if (id % 4)
                CHECK((char *)m == prev_end[id / 4]);
            prev_end[id / 4] = (char *)m + 4 * dims[1] * dims[2];
            covered += 4 * (size_t)(dims[1] * dims[2] + H);
        }
    }
    CHECK(covered == wbytes);
    CK_IS(cudnnGetRNNWeightParams(h, rd, 4, wbytes, w, 0, md, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CK_IS(cudnnGetRNNWeightParams(h, rd, 0, wbytes, w, 8, md, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);
    CK_IS(cudnnGetRNNWeightParams(h, rd, 0, wbytes - 4, w, 0, md, NULL, NULL, NULL), CUDNN_STATUS_BAD_PARAM);

    /* data descriptors */
    cudnnRNNDataDescriptor_t xd, yd;
    CK(cudnnCreateRNNDataDescriptor(&xd));
    CK(cudnnCreateRNNDataDescriptor(&yd));
    const int lens[B] = {T, T};
    CK(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, I, lens, NULL));
    CK(cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, 2 * H, lens,
                                 NULL));
    const int bad_len[B] = {T, T + 1};
    CK_IS(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, I, bad_len,
                                    NULL), CUDNN_STATUS_BAD_PARAM);
    cudnnTensorDescriptor_t hd = hdesc(L * 2, B, H);
    size_t work = 1, res = 0;
    CK(cudnnGetRNNTempSpaceSizes(h, rd, CUDNN_FWD_MODE_TRAINING, xd, &work, &res));
    CHECK(res > 0);

    float *x, *y, *hx, *cx, *hy, *cy, *reserve;
    const size_t nx = T * B * I, ny = T * B * 2 * H, nh = L * 2 * B * H;
    CHECK_OK(cudaMalloc(&x, nx * 4));
    CHECK_OK(cudaMalloc(&y, ny * 4));
    CHECK_OK(cudaMalloc(&hx, nh * 4));
    CHECK_OK(cudaMalloc(&cx, nh * 4));
    CHECK_OK(cudaMalloc(&hy, nh * 4));
    CHECK_OK(cudaMalloc(&cy, nh * 4));
    CHECK_OK(cudaMalloc(&reserve, res));
    std::vector<float> hcx(nh), hhx(nh, 0.25f), hxs(nx);
    for (size_t i = 0; i < nh; i++)
        hcx[i] = (float)((int)(i % 7) - 3) * 0.7f;
    for (size_t i = 0; i < nx; i++)
        hxs[i] = (float)((int)(i % 5) - 2);
    CHECK_OK(cudaMemcpy(cx, hcx.data(), nh * 4, cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(hx, hhx.data(), nh * 4, cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(x, hxs.data(), nx * 4, cudaMemcpyHostToDevice));
    CK(cudnnRNNForward(h, rd, CUDNN_FWD_MODE_TRAINING, NULL, xd, x, yd, y, hd, hx, hy, hd, cx, cy, wbytes, w, 0,
                       NULL, res, reserve));
    std::vector<float> ghy(nh), gcy(nh);
    CHECK_OK(cudaMemcpy(ghy.data(), hy, nh * 4, cudaMemcpyDeviceToHost));
    CHECK_OK(cudaMemcpy(gcy.data(), cy, nh * 4, cudaMemcpyDeviceToHost));
    /* layer 0, both directions: T halvings of cx */
    for (size_t i = 0; i < 2 * B * H; i++) {
        const double c = hcx[i] / 8.0;
        CHECK_NEAR(gcy[i], c, 1e-6);
        CHECK_NEAR(ghy[i], 0.5 * tanh(c), 1e-6);
    }

    /* bad input: an error status, never a crash */
    std::vector<float> host_x(nx);
    CHECK(cudnnRNNForward(h, rd, CUDNN_FWD_MODE_TRAINING, NULL, xd, host_x.data(), yd, y, hd, hx, hy, hd, cx, cy,
                          wbytes, w, 0, NULL, res, reserve) != CUDNN_STATUS_SUCCESS);
    CHECK(cudnnRNNForward(h, rd, CUDNN_FWD_MODE_TRAINING, NULL, xd, x, yd, y, hd, hx, hy, hd, cx, cy, wbytes, w, 0,
                          NULL, res - 4, reserve) != CUDNN_STATUS_SUCCESS);
    CHECK(cudnnRNNForward(h, rd, CUDNN_FWD_MODE_TRAINING, NULL, xd, x, yd, y, hd, hx, hy, hd, cx, cy, wbytes / 2,
                          w, 0, NULL, res, reserve) != CUDNN_STATUS_SUCCESS);
    cudnnTensorDescriptor_t wrong_h = hdesc(L, B, H);
    CHECK(cudnnRNNForward(h, rd, CUDNN_FWD_MODE_TRAINING, NULL, xd, x, yd, y, wrong_h, hx, hy, wrong_h, cx, cy,
                          wbytes, w, 0, NULL, res, reserve) != CUDNN_STATUS_SUCCESS);
    CK_IS(cudnnRNNBackwardWeights_v8(h, rd, CUDNN_WGRAD_MODE_SET, NULL, xd, x, hd, hx, yd, y, wbytes, w, 0, NULL,
                                     res, reserve), CUDNN_STATUS_NOT_SUPPORTED);
    /* unequal lengths: padded unpacked data is refused, unsorted packed too */
    const int uneq[B] = {T, 1};
    cudnnRNNDataDescriptor_t pd;
    CK(cudnnCreateRNNDataDescriptor(&pd));
    CK(cudnnSetRNNDataDescriptor(pd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, B, I, uneq, NULL));
    CK_IS(cudnnGetRNNTempSpaceSizes(h, rd, CUDNN_FWD_MODE_TRAINING, pd, &work, &res), CUDNN_STATUS_NOT_SUPPORTED);
    const int unsorted[B] = {1, T};
    CK(cudnnSetRNNDataDescriptor(pd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T, B, I, unsorted,
                                 NULL));
    CK_IS(cudnnGetRNNTempSpaceSizes(h, rd, CUDNN_FWD_MODE_TRAINING, pd, &work, &res), CUDNN_STATUS_NOT_SUPPORTED);
    CK(cudnnSetRNNDataDescriptor(pd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, T, B, I, lens,
                                 NULL));
    CK_IS(cudnnGetRNNTempSpaceSizes(h, rd, CUDNN_FWD_MODE_TRAINING, pd, &work, &res), CUDNN_STATUS_NOT_SUPPORTED);

    CK(cudnnDestroyRNNDataDescriptor(pd));
    CK(cudnnDestroyRNNDataDescriptor(xd));
    CK(cudnnDestroyRNNDataDescriptor(yd));
    CK(cudnnDestroyTensorDescriptor(md));
    CK(cudnnDestroyTensorDescriptor(bd));
    CK(cudnnDestroyTensorDescriptor(hd));
    CK(cudnnDestroyTensorDescriptor(wrong_h));
    CK(cudnnDestroyRNNDescriptor(rd));
    CK(cudnnDestroyDropoutDescriptor(drop));
    cudaFree(x); cudaFree(y); cudaFree(hx); cudaFree(cx); cudaFree(hy); cudaFree(cy); cudaFree(reserve);
    cudaFree(w);
    CK(cudnnDestroy(h));
    TEST_DONE();
}

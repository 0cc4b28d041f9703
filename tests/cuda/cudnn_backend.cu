// tfl-libs: -lcudnn
/*
 * cudnn_backend.cu - cuDNN's backend descriptor API the way cudnn_frontend
 * (so PyTorch) drives it: tensor and convolution descriptors, a
 * convolution operation (forward, backward data, backward filter), an
 * operation graph, engine heuristics, the engine config's engine, an
 * execution plan and a variant pack, then cudnnBackendExecute on device
 * memory; also PyTorch's fused conv + add z + add bias + ReLU graph with
 * scales to fold.  Results are checked against a direct double-precision
 * convolution on the host, including alpha/beta and channels-last
 * strides.  Also the attribute rules: element counts on get, type
 * mismatches, set after finalize, unsupported descriptor kinds and graph
 * patterns, execute with a missing or bad pointer, and a sweep of every
 * attribute/type/count combination on every kind (an error status,
 * never a crash).
 */
// tfl-backends: opencl
#include "check.h"
#include <cudnn.h>
#include <stdint.h>
#include <string.h>
#include <vector>

#define CK(call) do { cudnnStatus_t s_ = (call); if (s_ != CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #call, (int)s_, \
            cudnnGetErrorString(s_)); tfl_failures++; } } while (0)
#define CK_NOT(call) do { cudnnStatus_t s_ = (call); if (s_ == CUDNN_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s succeeded, want an error\n", __FILE__, __LINE__, #call); \
    tfl_failures++; } } while (0)

typedef cudnnBackendDescriptor_t D;

static D make(cudnnBackendDescriptorType_t t)
{
    D d = NULL;
    CK(cudnnBackendCreateDescriptor(t, &d));
    return d;
}

static D tensor(int64_t uid, const int64_t dims[4], const int64_t strides[4], cudnnDataType_t dt)
{
    D t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int64_t align = 4;
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    CK(cudnnBackendFinalize(t));
    return t;
}

static D vtensor(int64_t uid, const int64_t dims[4], const int64_t strides[4])
{
    D t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    int64_t align = 4;
    bool virt = true;
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    CK(cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt));
    CK(cudnnBackendFinalize(t));
    return t;
}

/* A pointwise op: mode over x (and b) into y, scales a1 (x) and a2 (b). */
static D pointwise(cudnnPointwiseMode_t mode, D x, D b, D y, float a1, float a2, double relu_slope)
{
    D pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    CK(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    CK(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec));
    if (relu_slope != 0)
        CK(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1, &relu_slope));
    CK(cudnnBackendFinalize(pw));
    D op = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    if (b)
        CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &a1));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &a2));
    CK(cudnnBackendFinalize(op));
    CK(cudnnBackendDestroyDescriptor(pw));
    return op;
}

static void dense(const int64_t d[4], int cl, int64_t s[4])
{
    if (!cl) { s[3] = 1; s[2] = d[3]; s[1] = d[2] * d[3]; s[0] = d[1] * d[2] * d[3]; }
    else { s[1] = 1; s[3] = d[1]; s[2] = d[1] * d[3]; s[0] = d[1] * d[2] * d[3]; }
}

struct Geo {
    int64_t n, c, h, w, k, r, s, g;
    int64_t pad[2], str[2], dil[2];
    int cl;
    int64_t oh, ow;
};

static D conv_desc(const Geo &g)
{
    D c = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    int64_t nsp = 2;
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsp));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, g.pad));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, g.pad));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, g.dil));
    CK(cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, g.str));
    CK(cudnnBackendFinalize(c));
    return c;
}

/* op kind -> its attribute names (alpha, beta, conv, x, w, y slots) */
struct OpAttrs { cudnnBackendDescriptorType_t t; cudnnBackendAttributeName_t a, b, cd, x, w, y; };
static const OpAttrs kOps[3] = {
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY},
    {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY},
};

static float frand(unsigned &s)
{
    s = s * 1664525u + 1013904223u;
    return (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* Builds graph -> heuristics -> plan as cudnn_frontend does, executes,
 * and checks the output of `mode` against a double reference. */
static void run(cudnnHandle_t h, const Geo &g, int mode, float alpha, float beta)
{
    int64_t xd[4] = {g.n, g.c, g.h, g.w}, wd[4] = {g.k, g.c / g.g, g.r, g.s},
            yd[4] = {g.n, g.k, g.oh, g.ow}, xs[4], ws[4], ys[4];
    dense(xd, g.cl, xs); dense(wd, g.cl, ws); dense(yd, g.cl, ys);
    D tx = tensor('x', xd, xs, CUDNN_DATA_FLOAT), tw = tensor('w', wd, ws, CUDNN_DATA_FLOAT),
      ty = tensor('y', yd, ys, CUDNN_DATA_FLOAT), cd = conv_desc(g);
    const OpAttrs &oa = kOps[mode];
    D op = make(oa.t);
    CK(cudnnBackendSetAttribute(op, oa.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tx));
    CK(cudnnBackendSetAttribute(op, oa.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tw));
    CK(cudnnBackendSetAttribute(op, oa.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ty));
    CK(cudnnBackendSetAttribute(op, oa.cd, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd));
    CK(cudnnBackendSetAttribute(op, oa.a, CUDNN_TYPE_FLOAT, 1, &alpha));
    CK(cudnnBackendSetAttribute(op, oa.b, CUDNN_TYPE_FLOAT, 1, &beta));
    CK(cudnnBackendFinalize(op));
    /* descriptors are copied when set: destroying them now is fine */
    CK(cudnnBackendDestroyDescriptor(tx));
    CK(cudnnBackendDestroyDescriptor(tw));
    CK(cudnnBackendDestroyDescriptor(ty));
    CK(cudnnBackendDestroyDescriptor(cd));

    D graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CK(cudnnBackendFinalize(graph));
    int64_t n_eng = -1;
    CK(cudnnBackendGetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, CUDNN_TYPE_INT64,
                                1, NULL, &n_eng));
    CHECK(n_eng >= 1);

    D heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendHeurMode_t hm = CUDNN_HEUR_MODE_INSTANT;
    CK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
    CK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm));
    CK(cudnnBackendFinalize(heur));
    int64_t count = -1;
    CK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
    CHECK(count >= 1);
    D cfg = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t got = 0;
    CK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &cfg));
    CHECK(got == count);

    /* the engine behind the config, its index and notes (PyTorch filters on them) */
    D eng = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    CK(cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &eng));
    int64_t idx = -1;
    CK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &idx));
    CHECK(idx >= 0 && idx < n_eng);
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    CK(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &got, notes));
    CHECK(got >= 0 && got <= CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
    /* the wrong type for an attribute is refused */
    CK_NOT(cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT32, 1, &got, &idx));

    D plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CK(cudnnBackendFinalize(plan));
    int64_t ws_size = -1;
    CK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got, &ws_size));
    CHECK(ws_size >= 0);
    int64_t jlen = 0;
    CK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &jlen, NULL));
    CHECK(jlen > 1);
    /* set after finalize is refused */
    CK_NOT(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    /* the graph and heuristics may go: the plan holds what it needs */
    CK(cudnnBackendDestroyDescriptor(heur));
    CK(cudnnBackendDestroyDescriptor(graph));
    CK(cudnnBackendDestroyDescriptor(op));

    /* data */
    size_t nx = g.n * g.c * g.h * g.w, nw = g.k * (g.c / g.g) * g.r * g.s, ny = g.n * g.k * g.oh * g.ow;
    std::vector<float> hx(nx), hw(nw), hy(ny);
    unsigned seed = 7u + mode;
    for (auto &v : hx) v = frand(seed);
    for (auto &v : hw) v = frand(seed);
    for (auto &v : hy) v = frand(seed);
    float *dx, *dw, *dy;
    void *dws = NULL;
    CHECK_OK(cudaMalloc(&dx, nx * 4)); CHECK_OK(cudaMalloc(&dw, nw * 4)); CHECK_OK(cudaMalloc(&dy, ny * 4));
    if (ws_size) CHECK_OK(cudaMalloc(&dws, ws_size));
    CHECK_OK(cudaMemcpy(dx, hx.data(), nx * 4, cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(dw, hw.data(), nw * 4, cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(dy, hy.data(), ny * 4, cudaMemcpyHostToDevice));

    D vp = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    void *ptrs[3] = {dx, dw, dy};
    int64_t uids[3] = {'x', 'w', 'y'};
    CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &dws));
    CK(cudnnBackendFinalize(vp));
    CK(cudnnBackendExecute(h, plan, vp));
    CHECK_OK(cudaDeviceSynchronize());

    /* reference: strides as laid out; output in the mode's tensor */
    std::vector<float> out(mode == 0 ? ny : mode == 1 ? nx : nw);
    float *dout = mode == 0 ? dy : mode == 1 ? dx : dw;
    CHECK_OK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<double> ref(out.size(), 0.0);
    int64_t cg = g.c / g.g, kg = g.k / g.g;
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t k = 0; k < g.k; k++)
            for (int64_t oh = 0; oh < g.oh; oh++)
                for (int64_t ow = 0; ow < g.ow; ow++)
                    for (int64_t c = 0; c < cg; c++)
                        for (int64_t r = 0; r < g.r; r++)
                            for (int64_t s = 0; s < g.s; s++) {
                                int64_t ih = oh * g.str[0] - g.pad[0] + r * g.dil[0];
                                int64_t iw = ow * g.str[1] - g.pad[1] + s * g.dil[1];
                                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w)
                                    continue;
                                int64_t ci = (k / kg) * cg + c;
                                int64_t xo = n * xs[0] + ci * xs[1] + ih * xs[2] + iw * xs[3];
                                int64_t wo = k * ws[0] + c * ws[1] + r * ws[2] + s * ws[3];
                                int64_t yo = n * ys[0] + k * ys[1] + oh * ys[2] + ow * ys[3];
                                if (mode == 0) ref[yo] += (double)hw[wo] * hx[xo];
                                else if (mode == 1) ref[xo] += (double)hw[wo] * hy[yo];
                                else ref[wo] += (double)hy[yo] * hx[xo];
                            }
    const std::vector<float> &prev = mode == 0 ? hy : mode == 1 ? hx : hw;
    int bad = 0;
    for (size_t i = 0; i < out.size(); i++) {
        double want = alpha * ref[i] + beta * prev[i];
        if (!(fabs(out[i] - want) <= 1e-4 * (1 + fabs(want))) && bad++ < 3)
            fprintf(stderr, "mode %d [%zu]: got %.7g want %.7g\n", mode, i, out[i], want);
    }
    CHECK(bad == 0);

    /* a variant pack missing a tensor, or pointing outside device memory,
     * fails with an error status */
    D vp2 = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(vp2, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, ptrs));
    CK(cudnnBackendSetAttribute(vp2, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 2, uids));
    CK(cudnnBackendFinalize(vp2));
    CK_NOT(cudnnBackendExecute(h, plan, vp2));
    D vp3 = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    void *bad_ptrs[3] = {hx.data(), dw, dy};
    CK(cudnnBackendSetAttribute(vp3, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, bad_ptrs));
    CK(cudnnBackendSetAttribute(vp3, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CK(cudnnBackendFinalize(vp3));
    CK_NOT(cudnnBackendExecute(h, plan, vp3));

    for (D d : {vp, vp2, vp3, plan, cfg, eng})
        CK(cudnnBackendDestroyDescriptor(d));
    cudaFree(dx); cudaFree(dw); cudaFree(dy);
    if (dws) cudaFree(dws);
}

static void rules(cudnnHandle_t h)
{
    D d = NULL;
    /* a kind torchfl does not model */
    CHECK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &d) ==
          CUDNN_STATUS_NOT_SUPPORTED);
    /* counts: a get reports how many there are, writes at most the request */
    int64_t dims[4] = {2, 3, 4, 5}, strides[4] = {60, 20, 5, 1}, out[4] = {0, 0, 0, 0}, n = 0;
    D t = tensor(1, dims, strides, CUDNN_DATA_FLOAT);
    CK(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 2, &n, out));
    CHECK(n == 4 && out[0] == 2 && out[1] == 3 && out[2] == 0);
    /* type and count mismatches on set */
    D t2 = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int32_t dims32[4] = {1, 1, 1, 1};
    CK_NOT(cudnnBackendSetAttribute(t2, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT32, 4, dims32));
    int64_t two_ids[2] = {1, 2};
    CK_NOT(cudnnBackendSetAttribute(t2, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 2, two_ids));
    /* incomplete: no finalize */
    CK_NOT(cudnnBackendFinalize(t2));
    /* a graph torchfl cannot run (a pointwise op) is refused at finalize */
    D pw = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnPointwiseMode_t pm = CUDNN_POINTWISE_RELU_FWD;
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    CK(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &pm));
    CK(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec));
    CK(cudnnBackendFinalize(pw));
    D t3 = tensor(2, dims, strides, CUDNN_DATA_FLOAT);
    D pop = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw));
    CK(cudnnBackendSetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t));
    CK(cudnnBackendSetAttribute(pop, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t3));
    CK(cudnnBackendFinalize(pop));
    D graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pop));
    CK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CHECK(cudnnBackendFinalize(graph) == CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN);
    /* an int8 convolution is not supported */
    Geo g = {1, 2, 5, 5, 2, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}, 0, 5, 5};
    int64_t xd[4] = {1, 2, 5, 5}, xs[4] = {50, 25, 5, 1}, wd[4] = {2, 2, 3, 3}, wst[4] = {18, 9, 3, 1};
    D dx = tensor(10, xd, xs, CUDNN_DATA_INT8), dwt = tensor(11, wd, wst, CUDNN_DATA_INT8),
      dyt = tensor(12, xd, xs, CUDNN_DATA_INT8), cd = conv_desc(g);
    D op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dx));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dwt));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &dyt));
    CK(cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd));
    CK(cudnnBackendFinalize(op));
    D graph2 = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(graph2, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CK(cudnnBackendSetAttribute(graph2, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    CHECK(cudnnBackendFinalize(graph2) == CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE);
    /* a wrong output size is a shape error at the operation */
    int64_t yd_bad[4] = {1, 2, 4, 5};
    D ybad = tensor(13, yd_bad, xs, CUDNN_DATA_FLOAT), xf = tensor(14, xd, xs, CUDNN_DATA_FLOAT),
      wf = tensor(15, wd, wst, CUDNN_DATA_FLOAT);
    D op2 = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    CK(cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &xf));
    CK(cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &wf));
    CK(cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ybad));
    CK(cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd));
    CK_NOT(cudnnBackendFinalize(op2));
    /* an unfinalized descriptor cannot be an attribute value */
    CK_NOT(cudnnBackendSetAttribute(op2, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t2));
    for (D x : {t, t2, t3, pw, pop, graph, dx, dwt, dyt, cd, op, graph2, ybad, xf, wf, op2})
        CK(cudnnBackendDestroyDescriptor(x));
    CK_NOT(cudnnBackendDestroyDescriptor(NULL));
    /* destroyed or made-up descriptors and handles are errors, not crashes */
    int64_t cnt = 0;
    CK_NOT(cudnnBackendGetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, &cnt, out));
    CK_NOT(cudnnBackendDestroyDescriptor(t));
    D bogus = (D)(uintptr_t)0x1234;
    CK_NOT(cudnnBackendFinalize(bogus));
    CK_NOT(cudnnBackendSetAttribute(bogus, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, two_ids));
    cudnnHandle_t h2;
    CK(cudnnCreate(&h2));
    CK(cudnnDestroy(h2));
    CK_NOT(cudnnSetStream(h2, 0));
    CK_NOT(cudnnBackendExecute(h2, bogus, bogus));
}

/* Every (descriptor kind, attribute, type, count) combination through
 * set and get, with zeroed or small-int elements: any status is fine,
 * a crash is not.  Finalize too, on whatever that left. */
static void sweep(cudnnHandle_t h)
{
    static const int names[] = {0, 1, 3, 9, 100, 101, 102, 103, 104, 105, 106, 200, 201, 202, 203,
                                300, 301, 302, 303, 304, 400, 401, 402, 403, 404, 405, 406, 600, 601,
                                700, 701, 702, 703, 704, 705, 706, 710, 711, 712, 715, 716, 717, 750,
                                751, 752, 753, 754, 800, 801, 802, 803, 900, 901, 902, 903, 904, 905,
                                906, 907, 908, 909, 1000, 1001, 1002, 1003, 1010, 1300, 1301, 1302,
                                1303, 1304, 1305, 1306, 1307, 1520, 2800, 99999, -1};
    alignas(16) unsigned char buf[512];
    int64_t cnt;
    int calls = 0;
    for (int t = 0; t <= 44; t++) {
        D d = NULL;
        if (cudnnBackendCreateDescriptor((cudnnBackendDescriptorType_t)t, &d) != CUDNN_STATUS_SUCCESS)
            continue;
        for (int fill = 0; fill < 2; fill++)
            for (size_t ni = 0; ni < sizeof names / sizeof names[0]; ni++)
                for (int ty = 0; ty <= 31; ty++)
                    for (int64_t n = 0; n <= 3; n++) {
                        memset(buf, 0, sizeof buf);
                        if (fill)
                            for (int i = 0; i < 64; i++)
                                ((int64_t *)buf)[i] = i % 3 + 1;
                        if (fill && ty == CUDNN_TYPE_BACKEND_DESCRIPTOR)
                            continue;   /* small ints are not pointers */
                        if (fill && (ty == CUDNN_TYPE_HANDLE || ty == CUDNN_TYPE_VOID_PTR))
                            continue;
                        cudnnBackendSetAttribute(d, (cudnnBackendAttributeName_t)names[ni],
                                                 (cudnnBackendAttributeType_t)ty, n, buf);
                        memset(buf, 0, sizeof buf);
                        cudnnBackendGetAttribute(d, (cudnnBackendAttributeName_t)names[ni],
                                                 (cudnnBackendAttributeType_t)ty, n, &cnt,
                                                 ty == CUDNN_TYPE_BACKEND_DESCRIPTOR ? NULL : buf);
                        calls += 2;
                    }
        cudnnBackendFinalize(d);
        CK(cudnnBackendDestroyDescriptor(d));
    }
    (void)h;
    CHECK(calls > 10000);
}

/* conv (alpha 0.5) -> add 0.25 * z (alpha1 2) -> add bias -> ReLU, as
 * PyTorch's cudnn_convolution_add_relu builds it: y = relu(conv + 0.25 z
 * + bias); the same chain with a leaky ReLU is refused. */
static void fused(cudnnHandle_t h)
{
    const int64_t n = 2, c = 3, k = 4, hw = 6;
    int64_t xd[4] = {n, c, hw, hw}, wd[4] = {k, c, 3, 3}, yd[4] = {n, k, hw, hw}, bd[4] = {1, k, 1, 1};
    int64_t xs[4], ws[4], ys[4], bs[4] = {k, 1, 1, 1};
    dense(xd, 0, xs); dense(wd, 0, ws); dense(yd, 0, ys);
    Geo g = {n, c, hw, hw, k, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}, 0, hw, hw};
    for (int leaky = 0; leaky < 2; leaky++) {
        D tx = tensor('x', xd, xs, CUDNN_DATA_FLOAT), tw = tensor('w', wd, ws, CUDNN_DATA_FLOAT),
          tz = tensor('z', yd, ys, CUDNN_DATA_FLOAT), tb = tensor('b', bd, bs, CUDNN_DATA_FLOAT),
          ty = tensor('y', yd, ys, CUDNN_DATA_FLOAT), v1 = vtensor(101, yd, ys), v2 = vtensor(102, yd, ys),
          v3 = vtensor(103, yd, ys), cd = conv_desc(g);
        D conv = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        float alpha = 0.5f, beta = 0.0f;
        CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tx));
        CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tw));
        CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v1));
        CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd));
        CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
        CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
        CK(cudnnBackendFinalize(conv));
        D ops[4] = {conv, pointwise(CUDNN_POINTWISE_ADD, v1, tz, v2, 2.0f, 0.25f, 0),
                    pointwise(CUDNN_POINTWISE_ADD, v2, tb, v3, 1.0f, 1.0f, 0),
                    pointwise(CUDNN_POINTWISE_RELU_FWD, v3, NULL, ty, 1.0f, 1.0f, leaky ? 0.1 : 0)};
        D graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        CK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 4, ops));
        CK(cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
        cudnnStatus_t st = cudnnBackendFinalize(graph);
        if (leaky) {
            CHECK(st == CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN);
        } else {
            CK(st);
            D heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
            cudnnBackendHeurMode_t hm = CUDNN_HEUR_MODE_A;
            CK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph));
            CK(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm));
            CK(cudnnBackendFinalize(heur));
            D cfg = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR), plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            int64_t got = 0;
            CK(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &cfg));
            CK(cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
            CK(cudnnBackendFinalize(plan));
            std::vector<float> hx(n * c * hw * hw), hw_(k * c * 9), hz(n * k * hw * hw), hb(k), hy(hz.size());
            unsigned seed = 99;
            for (auto &v : hx) v = frand(seed);
            for (auto &v : hw_) v = frand(seed);
            for (auto &v : hz) v = frand(seed);
            for (auto &v : hb) v = frand(seed);
            float *dx, *dw, *dz, *db, *dy;
            CHECK_OK(cudaMalloc(&dx, hx.size() * 4)); CHECK_OK(cudaMalloc(&dw, hw_.size() * 4));
            CHECK_OK(cudaMalloc(&dz, hz.size() * 4)); CHECK_OK(cudaMalloc(&db, hb.size() * 4));
            CHECK_OK(cudaMalloc(&dy, hy.size() * 4));
            CHECK_OK(cudaMemcpy(dx, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
            CHECK_OK(cudaMemcpy(dw, hw_.data(), hw_.size() * 4, cudaMemcpyHostToDevice));
            CHECK_OK(cudaMemcpy(dz, hz.data(), hz.size() * 4, cudaMemcpyHostToDevice));
            CHECK_OK(cudaMemcpy(db, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
            D vp = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
            void *ptrs[5] = {dx, dw, dz, db, dy};
            int64_t uids[5] = {'x', 'w', 'z', 'b', 'y'};
            CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 5, ptrs));
            CK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 5, uids));
            CK(cudnnBackendFinalize(vp));
            CK(cudnnBackendExecute(h, plan, vp));
            CHECK_OK(cudaMemcpy(hy.data(), dy, hy.size() * 4, cudaMemcpyDeviceToHost));
            int bad = 0, zeros = 0;
            for (int64_t in = 0; in < n; in++)
                for (int64_t ik = 0; ik < k; ik++)
                    for (int64_t oh = 0; oh < hw; oh++)
                        for (int64_t ow = 0; ow < hw; ow++) {
                            double acc = 0;
                            for (int64_t ic = 0; ic < c; ic++)
                                for (int r = 0; r < 3; r++)
                                    for (int q = 0; q < 3; q++) {
                                        int64_t ih = oh - 1 + r, iw = ow - 1 + q;
                                        if (ih >= 0 && ih < hw && iw >= 0 && iw < hw)
                                            acc += (double)hw_[((ik * c + ic) * 3 + r) * 3 + q] *
                                                   hx[((in * c + ic) * hw + ih) * hw + iw];
                                    }
                            int64_t o = ((in * k + ik) * hw + oh) * hw + ow;
                            double want = acc + 0.25 * hz[o] + hb[ik];
                            want = want > 0 ? want : 0;
                            zeros += want == 0;
                            if (!(fabs(hy[o] - want) <= 1e-4 * (1 + fabs(want))) && bad++ < 3)
                                fprintf(stderr, "fused [%lld]: got %.7g want %.7g\n", (long long)o, hy[o], want);
                        }
            CHECK(bad == 0);
            CHECK(zeros > 0);   /* the ReLU did clip something */
            cudaFree(dx); cudaFree(dw); cudaFree(dz); cudaFree(db); cudaFree(dy);
            for (D d : {vp, plan, cfg, heur})
                CK(cudnnBackendDestroyDescriptor(d));
        }
        for (D d : {graph, ops[0], ops[1], ops[2], ops[3], tx, tw, tz, tb, ty, v1, v2, v3, cd})
            CK(cudnnBackendDestroyDescriptor(d));
    }
}

int main()
{
    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    Geo base = {2, 3, 7, 6, 4, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}, 0, 0, 0};
    Geo gs[3] = {base, base, base};
    gs[1].str[0] = 2; gs[1].dil[1] = 2; gs[1].pad[1] = 2;             /* stride, dilation */
    gs[2].c = 6; gs[2].k = 4; gs[2].g = 2; gs[2].cl = 1;               /* groups, NHWC */
    for (Geo &g : gs) {
        g.oh = (g.h + 2 * g.pad[0] - g.dil[0] * (g.r - 1) - 1) / g.str[0] + 1;
        g.ow = (g.w + 2 * g.pad[1] - g.dil[1] * (g.s - 1) - 1) / g.str[1] + 1;
        for (int mode = 0; mode < 3; mode++) {
            run(h, g, mode, 1.0f, 0.0f);
            run(h, g, mode, 0.5f, 1.0f);   /* accumulate into the output */
        }
    }
    rules(h);
    fused(h);
    sweep(h);
    CK(cudnnDestroy(h));
    TEST_DONE();
}

"""Convolutions under torchfl: PyTorch 2.11 runs F.conv2d / nn.Conv2d on
cuda through cudnn_frontend, i.e. cuDNN's backend descriptor API, which
torchfl models (src/intercept/cudnn/backend_*.c) and runs as TFL_OP_CONV
on the host (im2col + sgemm).  Every case is computed on `cuda` and on
`cpu` from the same inputs (made on the CPU, copied): forward output and
the input, weight and bias gradients, over stride, padding (incl.
asymmetric via F.pad-free "same"), dilation, groups, depthwise, 1x1
kernels, odd sizes, batch > 1, channels_last, conv1d/conv3d, fp16/bf16;
the fused conv + add + bias + ReLU graphs; plus a small CNN trained for a
few steps whose losses must match the CPU's.
"""
import pytest
import torch
import torch.nn.functional as F

RTOL, ATOL = 1e-4, 1e-4

# (N, C, H, W, K, kh, kw, stride, padding, dilation, groups)
CASES = [
    (2, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1),
    (1, 1, 5, 5, 1, 3, 3, 1, 0, 1, 1),
    (3, 4, 9, 7, 6, 3, 3, 2, 1, 1, 1),        # stride 2, odd sizes
    (2, 3, 11, 13, 5, 5, 3, (2, 3), (2, 1), 1, 1),
    (2, 4, 10, 10, 4, 3, 3, 1, 2, 2, 1),      # dilation
    (2, 3, 12, 9, 2, 3, 2, 1, (1, 0), (3, 2), 1),
    (2, 6, 8, 8, 4, 3, 3, 1, 1, 1, 2),        # groups
    (2, 8, 7, 7, 8, 3, 3, 1, 1, 1, 8),        # depthwise
    (2, 4, 9, 9, 8, 3, 3, 2, 1, 1, 4),        # depthwise, multiplier 2
    (4, 16, 6, 6, 8, 1, 1, 1, 0, 1, 1),       # 1x1
    (2, 5, 7, 7, 3, 1, 1, 2, 0, 1, 1),        # strided 1x1
    (1, 2, 3, 3, 2, 3, 3, 1, 2, 1, 1),        # padding larger than needed
    (8, 3, 16, 16, 16, 3, 3, 1, 1, 1, 1),     # batch 8, 16 channels
    (2, 3, 4, 20, 4, 1, 5, 1, (0, 2), 1, 1),  # rectangular kernel
]


def _ids(c):
    return "n{}c{}h{}w{}k{}_{}x{}_s{}p{}d{}g{}".format(*c).replace(" ", "")


def _inputs(case, seed, dtype=torch.float32):
    n, c, h, w, k, kh, kw, stride, padding, dilation, groups = case
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, c, h, w, generator=g).to(dtype)
    wt = (torch.randn(k, c // groups, kh, kw, generator=g) * 0.5).to(dtype)
    b = torch.randn(k, generator=g).to(dtype)
    return x, wt, b, dict(stride=stride, padding=padding, dilation=dilation, groups=groups)


def _close(got, want, rtol=RTOL, atol=ATOL):
    torch.testing.assert_close(got.cpu(), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_conv2d_forward(cuda, case):
    x, w, b, kw = _inputs(case, 1)
    want = F.conv2d(x, w, b, **kw)
    got = F.conv2d(x.to(cuda), w.to(cuda), b.to(cuda), **kw)
    assert got.shape == want.shape
    _close(got, want)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_conv2d_forward_no_bias(cuda, case):
    x, w, _, kw = _inputs(case, 2)
    _close(F.conv2d(x.to(cuda), w.to(cuda), None, **kw), F.conv2d(x, w, None, **kw))


def _grads(x, w, b, kw, dy):
    x = x.clone().requires_grad_(True)
    w = w.clone().requires_grad_(True)
    b = b.clone().requires_grad_(True)
    y = F.conv2d(x, w, b, **kw)
    y.backward(dy)
    return y.detach(), x.grad, w.grad, b.grad


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_conv2d_backward(cuda, case):
    x, w, b, kw = _inputs(case, 3)
    y_ref = F.conv2d(x, w, b, **kw)
    dy = torch.randn(y_ref.shape, generator=torch.Generator().manual_seed(4))
    want = _grads(x, w, b, kw, dy)
    got = _grads(x.to(cuda), w.to(cuda), b.to(cuda), kw, dy.to(cuda))
    for name, g_, w_ in zip(("y", "dx", "dw", "db"), got, want):
        assert g_ is not None, name
        _close(g_, w_)


@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[6], CASES[7]], ids=_ids)
def test_conv2d_channels_last(cuda, case):
    x, w, b, kw = _inputs(case, 5)
    xc = x.to(cuda).to(memory_format=torch.channels_last).requires_grad_(True)
    wc = w.to(cuda).to(memory_format=torch.channels_last).requires_grad_(True)
    y = F.conv2d(xc, wc, b.to(cuda), **kw)
    dy = torch.randn(y.shape, generator=torch.Generator().manual_seed(6))
    y.backward(dy.to(cuda))
    xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    yr = F.conv2d(xr, wr, b, **kw)
    yr.backward(dy)
    _close(y.detach(), yr.detach())
    _close(xc.grad, xr.grad)
    _close(wc.grad, wr.grad)


def test_conv2d_noncontiguous_input(cuda):
    x, w, b, kw = _inputs(CASES[0], 7)
    xt = x.transpose(2, 3)            # a strided view; PyTorch may copy it
    _close(F.conv2d(xt.to(cuda), w.to(cuda), b.to(cuda), **kw), F.conv2d(xt, w, b, **kw))


def test_conv1d(cuda):
    g = torch.Generator().manual_seed(8)
    x = torch.randn(3, 4, 17, generator=g)
    w = torch.randn(6, 2, 5, generator=g)
    b = torch.randn(6, generator=g)
    kw = dict(stride=2, padding=3, dilation=2, groups=2)
    xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    yr = F.conv1d(xr, wr, b, **kw)
    dy = torch.randn(yr.shape, generator=g)
    yr.backward(dy)
    xc, wc = x.to(cuda).requires_grad_(True), w.to(cuda).requires_grad_(True)
    y = F.conv1d(xc, wc, b.to(cuda), **kw)
    y.backward(dy.to(cuda))
    _close(y.detach(), yr.detach())
    _close(xc.grad, xr.grad)
    _close(wc.grad, wr.grad)


def test_conv3d(cuda):
    g = torch.Generator().manual_seed(9)
    x = torch.randn(2, 3, 5, 6, 4, generator=g)
    w = torch.randn(4, 3, 3, 2, 3, generator=g)
    kw = dict(stride=(1, 2, 1), padding=(1, 0, 1))
    xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    yr = F.conv3d(xr, wr, None, **kw)
    dy = torch.randn(yr.shape, generator=g)
    yr.backward(dy)
    xc, wc = x.to(cuda).requires_grad_(True), w.to(cuda).requires_grad_(True)
    y = F.conv3d(xc, wc, None, **kw)
    y.backward(dy.to(cuda))
    _close(y.detach(), yr.detach())
    _close(xc.grad, xr.grad)
    _close(wc.grad, wr.grad)


@pytest.mark.parametrize("case", [CASES[2], CASES[7]], ids=["dense", "depthwise"])
@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1)],
                         ids=["fp16", "bf16"])
def test_conv2d_low_precision(cuda, dtype, tol, case):
    x, w, _, kw = _inputs(case, 10, dtype)
    # reference: the same rounded inputs in fp32 on the CPU, rounded at the end
    want = F.conv2d(x.float(), w.float(), None, **kw).to(dtype)
    got = F.conv2d(x.to(cuda), w.to(cuda), None, **kw)
    assert got.dtype == dtype
    torch.testing.assert_close(got.cpu().float(), want.float(), rtol=tol, atol=tol)


def test_conv2d_module_backward_accumulates(cuda):
    # two backward passes: weight.grad accumulates (beta of the cuDNN op is 0,
    # autograd adds), as on the CPU
    torch.manual_seed(11)
    m = torch.nn.Conv2d(3, 5, 3, padding=1)
    mc = torch.nn.Conv2d(3, 5, 3, padding=1).to(cuda)
    mc.load_state_dict(m.state_dict())
    x = torch.randn(2, 3, 6, 6)
    for _ in range(2):
        m(x).sum().backward()
        mc(x.to(cuda)).sum().backward()
    _close(mc.weight.grad, m.weight.grad)
    _close(mc.bias.grad, m.bias.grad)


class _TinyCNN(torch.nn.Module):
    """conv + relu, strided conv + relu (no pooling), flatten, linear."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.c2 = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.c3 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.fc = torch.nn.Linear(8 * 3 * 3, 10)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = torch.relu(self.c3(x))
        return self.fc(torch.flatten(x, 1))


def test_tiny_cnn_training_matches_cpu(cuda):
    torch.manual_seed(12)
    ref = _TinyCNN()
    dev = _TinyCNN().to(cuda)
    dev.load_state_dict(ref.state_dict())
    opt_r = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    opt_d = torch.optim.SGD(dev.parameters(), lr=0.05, momentum=0.9, foreach=False)
    g = torch.Generator().manual_seed(13)
    xs = [torch.randn(6, 1, 10, 10, generator=g) for _ in range(4)]
    ys = [torch.randint(0, 10, (6,), generator=g) for _ in range(4)]
    losses_r, losses_d = [], []
    for x, y in zip(xs, ys):
        opt_r.zero_grad()
        lr = F.cross_entropy(ref(x), y)
        lr.backward()
        opt_r.step()
        losses_r.append(lr.item())
        opt_d.zero_grad()
        ld = F.cross_entropy(dev(x.to(cuda)), y.to(cuda))
        ld.backward()
        opt_d.step()
        losses_d.append(ld.item())
    torch.testing.assert_close(torch.tensor(losses_d), torch.tensor(losses_r), rtol=1e-4, atol=1e-5)
    assert losses_r[-1] != losses_r[0]
    for (name, p), q in zip(ref.named_parameters(), dev.parameters()):
        torch.testing.assert_close(q.detach().cpu(), p.detach(), rtol=1e-4, atol=1e-5, msg=name)


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, output_padding=1),
                                dict(stride=1, padding=0),
                                dict(stride=2, padding=1, groups=2),
                                dict(stride=3, padding=2, dilation=2)],
                         ids=["s2p1op1", "s1p0", "s2g2", "s3d2"])
def test_conv_transpose2d(cuda, kw):
    # the forward of a transposed conv is cuDNN's backward data, its
    # backward a forward conv plus a backward filter
    g = torch.Generator().manual_seed(14)
    groups = kw.get("groups", 1)
    x = torch.randn(2, 4, 5, 6, generator=g)
    w = torch.randn(4, 6 // groups, 3, 3, generator=g)
    b = torch.randn(6, generator=g)
    xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    yr = F.conv_transpose2d(xr, wr, b, **kw)
    dy = torch.randn(yr.shape, generator=g)
    yr.backward(dy)
    xc, wc = x.to(cuda).requires_grad_(True), w.to(cuda).requires_grad_(True)
    y = F.conv_transpose2d(xc, wc, b.to(cuda), **kw)
    y.backward(dy.to(cuda))
    _close(y.detach(), yr.detach())
    _close(xc.grad, xr.grad)
    _close(wc.grad, wr.grad)


def test_conv2d_float64(cuda):
    x, w, b, kw = _inputs(CASES[3], 15, torch.float64)
    xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    yr = F.conv2d(xr, wr, b, **kw)
    dy = torch.randn(yr.shape, generator=torch.Generator().manual_seed(16), dtype=torch.float64)
    yr.backward(dy)
    xc, wc = x.to(cuda).requires_grad_(True), w.to(cuda).requires_grad_(True)
    y = F.conv2d(xc, wc, b.to(cuda), **kw)
    y.backward(dy.to(cuda))
    for got, want in ((y.detach(), yr.detach()), (xc.grad, xr.grad), (wc.grad, wr.grad)):
        torch.testing.assert_close(got.cpu(), want, rtol=1e-12, atol=1e-12)


def test_conv2d_depthwise_float64(cuda):
    # PyTorch's own depthwise kernels (not cuDNN) for fp64 too
    x, w, b, kw = _inputs(CASES[8], 17, torch.float64)
    torch.testing.assert_close(F.conv2d(x.to(cuda), w.to(cuda), b.to(cuda), **kw).cpu(),
                               F.conv2d(x, w, b, **kw), rtol=1e-12, atol=1e-12)


@pytest.fixture
def cudnn_flags():
    bench, det = torch.backends.cudnn.benchmark, torch.are_deterministic_algorithms_enabled()
    yield
    torch.backends.cudnn.benchmark = bench
    torch.use_deterministic_algorithms(det)


@pytest.mark.parametrize("mode", ["benchmark", "deterministic"])
def test_conv2d_cudnn_modes(cuda, cudnn_flags, mode):
    # benchmark: PyTorch times every plan it can build (cudnnFind path);
    # deterministic: it filters engines by their notes
    if mode == "benchmark":
        torch.backends.cudnn.benchmark = True
    else:
        torch.use_deterministic_algorithms(True)
    x, w, b, kw = _inputs(CASES[2], 18)
    y_ref = F.conv2d(x, w, b, **kw)
    dy = torch.randn(y_ref.shape, generator=torch.Generator().manual_seed(19))
    want = _grads(x, w, b, kw, dy)
    got = _grads(x.to(cuda), w.to(cuda), b.to(cuda), kw, dy.to(cuda))
    for g_, w_ in zip(got, want):
        _close(g_, w_)


@pytest.mark.parametrize("variant", ["add_relu", "relu", "relu_nobias", "add_relu_nhwc"])
def test_fused_conv_graphs(cuda, variant):
    # torch.cudnn_convolution_add_relu / _relu build one cuDNN graph:
    # conv, add alpha * z, add bias, ReLU (folded into TFL_OP_CONV's epilogue)
    x, w, b, _ = _inputs(CASES[2], 20)
    kw = dict(stride=2, padding=1)
    y0 = F.conv2d(x, w, None, **kw)
    z = torch.randn(y0.shape, generator=torch.Generator().manual_seed(22))
    args = ((2, 2), (1, 1), (1, 1), 1)
    if variant.startswith("add_relu"):
        want = torch.relu(y0 + b.view(1, -1, 1, 1) + 0.75 * z)
        xc, zc = x.to(cuda), z.to(cuda)
        if variant.endswith("nhwc"):
            xc = xc.to(memory_format=torch.channels_last)
            zc = zc.to(memory_format=torch.channels_last)
        got = torch.cudnn_convolution_add_relu(xc, w.to(cuda), zc, 0.75, b.to(cuda), *args)
    elif variant == "relu":
        want = torch.relu(y0 + b.view(1, -1, 1, 1))
        got = torch.cudnn_convolution_relu(x.to(cuda), w.to(cuda), b.to(cuda), *args)
    else:
        want = torch.relu(y0)
        got = torch.cudnn_convolution_relu(x.to(cuda), w.to(cuda), None, *args)
    _close(got, want)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-4), (torch.float64, 1e-12)],
                         ids=["fp32", "fp64"])
@pytest.mark.parametrize("kw", [dict(padding=1), dict(stride=(1, 2, 2), padding=(0, 1, 2), dilation=(2, 1, 2))],
                         ids=["p1", "s122_d212"])
def test_conv3d_depthwise(cuda, dtype, tol, kw):
    # PyTorch's conv_depthwise3d kernels (op table), multiplier 2, with bias
    g = torch.Generator().manual_seed(21)
    x = torch.randn(2, 3, 5, 6, 7, generator=g).to(dtype)
    w = torch.randn(6, 1, 3, 3, 3, generator=g).to(dtype)
    b = torch.randn(6, generator=g).to(dtype)
    xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    yr = F.conv3d(xr, wr, b, groups=3, **kw)
    dy = torch.randn(yr.shape, generator=g).to(dtype)
    yr.backward(dy)
    xc, wc = x.to(cuda).requires_grad_(True), w.to(cuda).requires_grad_(True)
    y = F.conv3d(xc, wc, b.to(cuda), groups=3, **kw)
    y.backward(dy.to(cuda))
    for got, want in ((y.detach(), yr.detach()), (xc.grad, xr.grad), (wc.grad, wr.grad)):
        torch.testing.assert_close(got.cpu(), want, rtol=tol, atol=tol)

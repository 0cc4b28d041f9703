"""Pooling, resizing and roll under torchfl (the "spatial" op family),
compared with PyTorch on the CPU from the same inputs.

Forward and backward: each test feeds the same upstream gradient on both
devices and compares the input gradients.  Max-pool indices are compared
exactly; values in float32 to 1e-5 (sums may add in another order), in
float64 tightly, in float16/bfloat16 to their precision.  Inputs are drawn
so that max windows have no ties (a permutation of distinct values).

Zero-filling the gradient buffers and the autograd adds use the
elementwise family."""
import pytest
import torch
import torch.nn.functional as F

TOL = {torch.float32: dict(rtol=1e-5, atol=1e-5),
       torch.float64: dict(rtol=1e-12, atol=1e-12),
       torch.float16: dict(rtol=2e-3, atol=2e-3),
       torch.bfloat16: dict(rtol=1.6e-2, atol=1.6e-2)}


@pytest.fixture(scope="module")
def ew_ok(cuda):
    # zero-fill and autograd adds must run: a failure fails these tests
    torch.zeros(4, device=cuda).add_(1)
    torch.cuda.synchronize()
    return True


def distinct(shape, seed, dtype=torch.float32):
    """Distinct values (no ties in a max window), roughly N(0, 1) scale."""
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    v = (torch.randperm(n, generator=g).to(torch.float64) - n / 2) / max(n / 4, 1)
    return v.reshape(shape).to(dtype)


def grad_of(shape, seed, dtype):
    g = torch.Generator().manual_seed(seed + 1000)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def both(fn, x, seed, cuda, channels_last=False, outputs=1):
    """fn on cuda and cpu from x; returns [(outs..., x.grad)] per device."""
    res = []
    for dev in (cuda, torch.device("cpu")):
        xi = x.to(dev)
        if channels_last:
            xi = xi.contiguous(memory_format=torch.channels_last)
        xi = xi.detach().requires_grad_(True)
        out = fn(xi)
        outs = out if isinstance(out, tuple) else (out,)
        y = outs[0]
        y.backward(grad_of(y.shape, seed, y.dtype).to(dev))
        res.append(tuple(o.detach().cpu() for o in outs) + (xi.grad.cpu(),))
    return res


def check(res, dtype, exact_extra=()):
    (a, ra) = res
    tol = TOL[dtype]
    torch.testing.assert_close(a[0], ra[0], **tol)
    for i in exact_extra:
        assert torch.equal(a[i], ra[i]), f"output {i} differs"
    torch.testing.assert_close(a[-1], ra[-1], **tol)


# (N, C, H, W), kernel, stride, padding, dilation, ceil_mode
MAX_CASES = [
    ((2, 3, 9, 10), 3, 2, 1, 1, False),
    ((2, 3, 9, 10), 3, 2, 1, 1, True),
    ((1, 4, 8, 8), 2, 2, 0, 1, False),        # the common CNN case
    ((3, 2, 7, 11), (3, 2), (2, 1), (1, 0), 1, False),
    ((2, 2, 13, 12), 3, 1, 1, 2, False),      # dilation
    ((2, 2, 13, 12), (2, 3), 2, 1, (2, 1), True),
    ((1, 1, 1, 1), 1, 1, 0, 1, False),        # 1 element
    ((4, 5, 5, 5), 5, 1, 2, 1, False),
]


@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX_CASES)
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_max_pool2d(cuda, ew_ok, shape, k, s, p, d, ceil, layout):
    x = distinct(shape, 1)
    res = both(lambda t: F.max_pool2d(t, k, s, p, d, ceil_mode=ceil, return_indices=True),
               x, 2, cuda, channels_last=layout == "nhwc")
    check(res, torch.float32, exact_extra=(1,))
    # distinct inputs: the max and its gradient are exact
    assert torch.equal(res[0][0], res[1][0])


def test_max_pool2d_overlapping_grads(cuda, ew_ok):
    # stride 1, kernel 3: one input is the max of many windows, grads add up
    x = distinct((2, 3, 6, 7), 3)
    res = both(lambda t: F.max_pool2d(t, 3, 1, 1), x, 4, cuda)
    check(res, torch.float32)


def test_max_pool2d_3d_input_and_1d(cuda, ew_ok):
    x = distinct((3, 8, 9), 5)                       # no batch dimension
    check(both(lambda t: F.max_pool2d(t, 2), x, 6, cuda), torch.float32)
    x1 = distinct((2, 4, 17), 7)                     # 1-D pooling goes through 2-D
    check(both(lambda t: F.max_pool1d(t, 3, 2, 1, return_indices=True), x1, 8, cuda),
          torch.float32, exact_extra=(1,))


def test_max_pool2d_nan(cuda, ew_ok):
    x = distinct((1, 2, 6, 6), 9)
    x[0, 0, 1, 1] = float("nan")
    res = both(lambda t: F.max_pool2d(t, 2, return_indices=True), x, 10, cuda)
    (a, ra) = res
    assert torch.equal(a[1], ra[1])
    torch.testing.assert_close(a[0], ra[0], equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_max_pool2d_dtypes(cuda, ew_ok, dtype):
    x = distinct((2, 3, 8, 9), 11).to(dtype)
    res = both(lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True), x, 12, cuda)
    check(res, dtype, exact_extra=(1,))


# (N, C, H, W), kernel, stride, padding, ceil_mode, count_include_pad, divisor
AVG_CASES = [
    ((2, 3, 9, 10), 3, 2, 1, False, True, None),
    ((2, 3, 9, 10), 3, 2, 1, True, True, None),
    ((2, 3, 9, 10), 3, 2, 1, True, False, None),
    ((2, 3, 9, 10), 3, 2, 1, False, False, None),
    ((1, 4, 8, 8), 2, 2, 0, False, True, None),
    ((3, 2, 7, 11), (3, 2), (2, 1), (1, 0), False, True, 5),
    ((2, 2, 5, 6), 4, 3, 2, True, False, 3),
    ((1, 1, 1, 1), 1, 1, 0, False, True, None),
]


@pytest.mark.parametrize("shape,k,s,p,ceil,cip,div", AVG_CASES)
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_avg_pool2d(cuda, ew_ok, shape, k, s, p, ceil, cip, div, layout):
    x = distinct(shape, 21)
    res = both(lambda t: F.avg_pool2d(t, k, s, p, ceil, cip, div), x, 22, cuda,
               channels_last=layout == "nhwc")
    check(res, torch.float32)


def test_avg_pool1d(cuda, ew_ok):
    x = distinct((2, 4, 17), 23)
    check(both(lambda t: F.avg_pool1d(t, 3, 2, 1), x, 24, cuda), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_avg_pool2d_dtypes(cuda, ew_ok, dtype):
    x = distinct((2, 3, 8, 9), 25).to(dtype)
    check(both(lambda t: F.avg_pool2d(t, 3, 2, 1), x, 26, cuda), dtype)


AAVG_CASES = [
    ((2, 3, 9, 10), (4, 3)),
    ((2, 3, 9, 10), (9, 10)),        # identity windows
    ((1, 2, 7, 5), (3, 7)),          # output wider than input: overlapping
    ((2, 4, 8, 8), (1, 1)),          # global pool
    ((2, 4, 8, 8), (2, 2)),
]


@pytest.mark.parametrize("shape,out,layout",
                         [c + (l,) for c in AAVG_CASES for l in ("nchw", "nhwc")] +
                         [((3, 5, 6), (4, 4), "nchw")])   # no batch dimension
def test_adaptive_avg_pool2d(cuda, ew_ok, shape, out, layout):
    x = distinct(shape, 31)
    check(both(lambda t: F.adaptive_avg_pool2d(t, out), x, 32, cuda,
               channels_last=layout == "nhwc"), torch.float32)


@pytest.mark.parametrize("shape,out", [
    ((2, 3, 9, 10), (4, 3)),
    ((1, 2, 7, 5), (3, 7)),
    ((2, 4, 8, 8), (1, 1)),
    ((3, 5, 6), (2, 4)),
])
def test_adaptive_max_pool2d(cuda, ew_ok, shape, out):
    x = distinct(shape, 41)
    res = both(lambda t: F.adaptive_max_pool2d(t, out, return_indices=True), x, 42, cuda)
    check(res, torch.float32, exact_extra=(1,))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_adaptive_pools_dtypes(cuda, ew_ok, dtype):
    x = distinct((2, 3, 9, 10), 43).to(dtype)
    check(both(lambda t: F.adaptive_avg_pool2d(t, (4, 3)), x, 44, cuda), dtype)
    check(both(lambda t: F.adaptive_max_pool2d(t, (4, 3), return_indices=True), x, 45, cuda),
          dtype, exact_extra=(1,))


# size or scale_factor
RESIZE = [
    dict(scale_factor=2),
    dict(scale_factor=3),
    dict(scale_factor=0.5),
    dict(size=(13, 7)),
    dict(size=(4, 21)),
    dict(size=(9, 10)),               # same size
    dict(scale_factor=(1.5, 2.5)),
]


@pytest.mark.parametrize("kw", RESIZE)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_interpolate_nearest(cuda, ew_ok, kw, mode, layout):
    x = distinct((2, 3, 9, 10), 51)
    check(both(lambda t: F.interpolate(t, mode=mode, **kw), x, 52, cuda,
               channels_last=layout == "nhwc"), torch.float32)


@pytest.mark.parametrize("kw", RESIZE)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_interpolate_bilinear(cuda, ew_ok, kw, align_corners, layout):
    x = distinct((2, 3, 9, 10), 61)
    check(both(lambda t: F.interpolate(t, mode="bilinear", align_corners=align_corners, **kw),
               x, 62, cuda, channels_last=layout == "nhwc"), torch.float32)


def test_interpolate_bilinear_strided_input(cuda, ew_ok):
    # a transposed (non-contiguous) input goes straight to the kernel's accessor
    x = distinct((2, 3, 10, 9), 63)
    check(both(lambda t: F.interpolate(t.transpose(2, 3), size=(5, 17), mode="bilinear"),
               x, 64, cuda), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_interpolate_dtypes(cuda, ew_ok, dtype):
    x = distinct((2, 3, 9, 10), 65).to(dtype)
    check(both(lambda t: F.interpolate(t, scale_factor=2, mode="nearest"), x, 66, cuda), dtype)
    check(both(lambda t: F.interpolate(t, size=(13, 7), mode="bilinear"), x, 67, cuda), dtype)


@pytest.mark.parametrize("shape,shifts,dims", [
    ((2, 3, 9, 10), (1, 2), (2, 3)),
    ((2, 3, 9, 10), 3, None),          # flattened
    ((2, 3, 9, 10), -4, 3),
    ((5, 7), (13, -8), (0, 1)),        # shifts beyond the size
    ((17,), 5, 0),
    ((4, 6), 0, 1),
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16,
                                   torch.int64, torch.int32, torch.uint8, torch.bool])
def test_roll(cuda, ew_ok, shape, shifts, dims, dtype):
    x = distinct(shape, 71)
    if dtype == torch.bool:
        x = x > 0
    else:
        x = (x * 10).to(dtype)
    y = torch.roll(x.to(cuda), shifts, dims).cpu()
    assert torch.equal(y, torch.roll(x, shifts, dims))


def test_roll_backward(cuda, ew_ok):
    x = distinct((2, 3, 5, 4), 73)
    check(both(lambda t: torch.roll(t, (2, -1), (1, 3)), x, 74, cuda), torch.float32)


def test_small_cnn_training_steps(cuda, ew_ok):
    # conv-free CNN-ish pipeline of the spatial ops with linear layers
    # (GEMMs): pool, resize, roll, adaptive pool; three SGD steps on cuda
    # and cpu from the same weights; losses and weights must agree
    import torch.nn as nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.mix = nn.Linear(12, 12)
            self.head = nn.Linear(4 * 2 * 2, 5)

        def forward(self, x):
            x = self.mix(x)                                  # (B, 4, 12, 12)
            x = F.max_pool2d(x, 2)                           # 6x6
            x = F.interpolate(x, scale_factor=2, mode="bilinear")  # 12x12
            x = torch.roll(x, 1, 3)
            x = F.avg_pool2d(x, 3, 2, 1)                     # 6x6
            x = F.interpolate(x, size=(8, 8), mode="nearest")
            x = F.adaptive_avg_pool2d(x, 2)
            return self.head(x.flatten(1))

    torch.manual_seed(0)
    ref = M()
    g = torch.Generator().manual_seed(5)
    xs = [torch.randn(6, 4, 12, 12, generator=g) for _ in range(3)]
    ys = [torch.randint(0, 5, (6,), generator=g) for _ in range(3)]
    results = []
    for dev in (cuda, torch.device("cpu")):
        m = M().to(dev)
        m.load_state_dict(ref.state_dict())
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        losses = []
        for x, y in zip(xs, ys):
            opt.zero_grad()
            loss = F.cross_entropy(m(x.to(dev)), y.to(dev))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append((losses, {k: v.detach().cpu() for k, v in m.state_dict().items()}))
    (l, w), (rl, rw) = results
    assert l == pytest.approx(rl, rel=1e-4)
    for k in w:
        torch.testing.assert_close(w[k], rw[k], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,fn", [
    ("max_pool2d", lambda t: F.max_pool2d(t, 2)),
    ("avg_pool2d", lambda t: F.avg_pool2d(t, 2)),
    ("adaptive_avg_pool2d", lambda t: F.adaptive_avg_pool2d(t, 3)),
    ("adaptive_max_pool2d", lambda t: F.adaptive_max_pool2d(t, 3)),
    ("nearest", lambda t: F.interpolate(t, scale_factor=2)),
    ("bilinear", lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")),
    ("roll", lambda t: torch.roll(t, 1, 2)),
])
def test_empty_batch(cuda, ew_ok, name, fn):
    x = torch.zeros(0, 3, 8, 8)
    res = both(fn, x, 80, cuda)
    (a, ra) = res
    assert a[0].shape == ra[0].shape and a[-1].shape == ra[-1].shape == x.shape

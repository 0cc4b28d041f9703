"""3-D max and average pooling, trilinear and nearest 3-D resizing, 1-D
resizing (nearest, linear) and bicubic 2-D resizing under torchfl (the
"spatial" op family), forward and backward, compared with PyTorch on the
CPU from the same inputs and the same upstream gradient.

Max-pool outputs and indices are compared exactly (the inputs are a
permutation of distinct values, so windows have no ties); gradients and
interpolated values in float32 to 1e-5, float64 tightly.  Helpers are
shared with test_spatial.py."""
import pytest
import torch
import torch.nn.functional as F

from test_spatial import TOL, both, check, distinct, ew_ok, grad_of  # noqa: F401


# (N, C, D, H, W), kernel, stride, padding, dilation, ceil_mode
MAX3D_CASES = [
    ((1, 2, 6, 6, 6), 2, 2, 0, 1, False),         # the common case
    ((2, 3, 5, 7, 6), 3, 2, 1, 1, False),
    ((2, 3, 5, 7, 6), 3, 2, 1, 1, True),
    ((1, 2, 7, 5, 9), (3, 2, 3), (2, 1, 2), (1, 0, 1), 1, False),
    ((2, 2, 7, 8, 9), 3, 1, 1, 2, False),         # dilation
    ((2, 2, 4, 4, 4), 3, 1, 1, 1, False),         # overlapping windows: grads add
    ((1, 1, 1, 1, 1), 1, 1, 0, 1, False),         # 1 element
]


@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX3D_CASES)
@pytest.mark.parametrize("layout", ["ncdhw", "ndhwc"])
def test_max_pool3d(cuda, ew_ok, shape, k, s, p, d, ceil, layout):
    x = distinct(shape, 101)
    res = []
    for dev in (cuda, torch.device("cpu")):
        xi = x.to(dev)
        if layout == "ndhwc":
            xi = xi.contiguous(memory_format=torch.channels_last_3d)
        xi = xi.detach().requires_grad_(True)
        y, ind = F.max_pool3d(xi, k, s, p, d, ceil_mode=ceil, return_indices=True)
        g = torch.Generator().manual_seed(7)
        y.backward(torch.randn(y.shape, generator=g).to(dev))
        res.append((y.detach().cpu(), ind.cpu(), xi.grad.cpu()))
    (a, ra) = res
    assert torch.equal(a[0], ra[0])
    assert torch.equal(a[1], ra[1])
    torch.testing.assert_close(a[2], ra[2], **TOL[torch.float32])


def test_max_pool3d_4d_input_and_float64(cuda, ew_ok):
    x = distinct((3, 5, 6, 7), 102)              # (C, D, H, W): no batch
    check(both(lambda t: F.max_pool3d(t, 2, 2, 1, return_indices=True), x, 103, cuda),
          torch.float32, exact_extra=(1,))
    x = distinct((2, 2, 5, 6, 7), 104, torch.float64)
    check(both(lambda t: F.max_pool3d(t, 3, 2, 1, return_indices=True), x, 105, cuda),
          torch.float64, exact_extra=(1,))


def test_max_pool3d_nan(cuda, ew_ok):
    x = distinct((1, 2, 4, 4, 4), 106)
    x[0, 1, 1, 2, 3] = float("nan")
    outs = [F.max_pool3d(x.to(dev), 2, return_indices=True) for dev in (cuda, "cpu")]
    torch.testing.assert_close(outs[0][0].cpu(), outs[1][0], equal_nan=True, rtol=0, atol=0)
    assert torch.equal(outs[0][1].cpu(), outs[1][1])


# (N, C, D, H, W), kernel, stride, padding, ceil_mode, count_include_pad,
# divisor_override.  Covers the four CUDA kernels: forward with kW as a
# template argument (kW <= 7) and without, backward without overlap
# (stride = kernel), with overlap (atomic) and stride 1 without padding.
AVG3D_CASES = [
    ((1, 2, 6, 6, 6), 2, 2, 0, False, True, None),          # no overlap
    ((2, 3, 5, 7, 6), 3, 2, 1, False, True, None),          # overlap, padding
    ((2, 3, 5, 7, 6), 3, 2, 1, True, False, None),
    ((2, 3, 5, 7, 6), 3, 2, 1, False, False, 5),
    ((1, 2, 5, 6, 7), (2, 3, 2), 1, 0, False, True, None),  # stride 1: gather kernel
    ((1, 2, 5, 6, 7), 2, 1, 0, False, True, 3),             # stride 1 with divisor
    ((1, 2, 4, 5, 12), (2, 2, 9), (1, 2, 3), (1, 1, 4), False, True, None),  # kW = 9
    ((1, 1, 1, 1, 1), 1, 1, 0, False, True, None),          # 1 element
]


@pytest.mark.parametrize("shape,k,s,p,ceil,cip,div", AVG3D_CASES)
def test_avg_pool3d(cuda, ew_ok, shape, k, s, p, ceil, cip, div):
    x = distinct(shape, 131)
    check(both(lambda t: F.avg_pool3d(t, k, s, p, ceil_mode=ceil, count_include_pad=cip,
                                      divisor_override=div), x, 132, cuda), torch.float32)


def test_avg_pool3d_strided_and_float64(cuda, ew_ok):
    x = distinct((2, 3, 6, 5, 7), 133)
    check(both(lambda t: F.avg_pool3d(t.transpose(2, 4), 2, 2, 1), x, 134, cuda),
          torch.float32)
    x = distinct((2, 2, 5, 6, 7), 135, torch.float64)
    check(both(lambda t: F.avg_pool3d(t, 3, 2, 1), x, 136, cuda), torch.float64)


RESIZE1D = [
    dict(scale_factor=2),
    dict(scale_factor=3),
    dict(scale_factor=0.5),
    dict(size=13),
    dict(size=4),
    dict(size=10),                   # same size
    dict(scale_factor=2.5),
]


@pytest.mark.parametrize("kw", RESIZE1D)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_interpolate_nearest1d(cuda, ew_ok, kw, mode):
    x = distinct((2, 3, 10), 111)
    check(both(lambda t: F.interpolate(t, mode=mode, **kw), x, 112, cuda), torch.float32)


@pytest.mark.parametrize("kw", RESIZE1D)
@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_linear1d(cuda, ew_ok, kw, align_corners):
    x = distinct((2, 3, 10), 121)
    check(both(lambda t: F.interpolate(t, mode="linear", align_corners=align_corners, **kw),
               x, 122, cuda), torch.float32)


def test_interpolate_linear1d_strided_and_float64(cuda, ew_ok):
    # a transposed (non-contiguous) input goes straight to the accessor
    x = distinct((2, 10, 3), 123)
    check(both(lambda t: F.interpolate(t.transpose(1, 2), size=17, mode="linear"), x, 124,
               cuda), torch.float32)
    x = distinct((2, 3, 10), 125, torch.float64)
    check(both(lambda t: F.interpolate(t, size=17, mode="linear"), x, 126, cuda),
          torch.float64)
    check(both(lambda t: F.interpolate(t, size=23, mode="nearest"), x, 127, cuda),
          torch.float64)


RESIZE3D = [
    dict(scale_factor=2),
    dict(scale_factor=0.5),
    dict(size=(7, 5, 9)),
    dict(size=(4, 6, 5)),            # same size
    dict(scale_factor=(1.5, 2, 2.5)),
]


@pytest.mark.parametrize("kw", RESIZE3D)
@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_trilinear(cuda, ew_ok, kw, align_corners):
    x = distinct((2, 3, 4, 6, 5), 141)
    check(both(lambda t: F.interpolate(t, mode="trilinear", align_corners=align_corners, **kw),
               x, 142, cuda), torch.float32)


def test_interpolate_trilinear_strided_channels_last_float64(cuda, ew_ok):
    x = distinct((2, 3, 4, 6, 5), 143)
    check(both(lambda t: F.interpolate(t.transpose(2, 4), size=(3, 8, 7), mode="trilinear"),
               x, 144, cuda), torch.float32)
    xs = x.contiguous(memory_format=torch.channels_last_3d)
    check(both(lambda t: F.interpolate(t, scale_factor=2, mode="trilinear"), xs, 145, cuda),
          torch.float32)
    x = distinct((1, 2, 4, 6, 5), 146, torch.float64)
    check(both(lambda t: F.interpolate(t, size=(7, 5, 9), mode="trilinear"), x, 147, cuda),
          torch.float64)


@pytest.mark.parametrize("kw", RESIZE3D)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_interpolate_nearest3d(cuda, ew_ok, kw, mode):
    x = distinct((2, 3, 4, 6, 5), 151)
    check(both(lambda t: F.interpolate(t, mode=mode, **kw), x, 152, cuda), torch.float32)


def test_interpolate_nearest3d_float64(cuda, ew_ok):
    x = distinct((1, 2, 4, 6, 5), 153, torch.float64)
    check(both(lambda t: F.interpolate(t, size=(7, 5, 9), mode="nearest"), x, 154, cuda),
          torch.float64)


RESIZE2D = [
    dict(scale_factor=2),
    dict(scale_factor=0.5),
    dict(size=(13, 7)),
    dict(size=(9, 10)),              # same size
    dict(scale_factor=(1.5, 2.5)),
]


@pytest.mark.parametrize("kw", RESIZE2D)
@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_bicubic(cuda, ew_ok, kw, align_corners):
    x = distinct((2, 3, 9, 10), 161)
    check(both(lambda t: F.interpolate(t, mode="bicubic", align_corners=align_corners, **kw),
               x, 162, cuda), torch.float32)


def test_interpolate_bicubic_strided_float64(cuda, ew_ok):
    x = distinct((2, 3, 10, 9), 163)
    check(both(lambda t: F.interpolate(t.transpose(2, 3), size=(5, 17), mode="bicubic"),
               x, 164, cuda), torch.float32)
    x = distinct((2, 2, 9, 10), 165, torch.float64)
    check(both(lambda t: F.interpolate(t, size=(13, 7), mode="bicubic"), x, 166, cuda),
          torch.float64)


@pytest.mark.parametrize("size", [(2, 3, 8, 8), (2, 3, 5, 7), (1, 2, 4, 5, 6)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(cuda, ew_ok, size, align_corners):
    # a batched GEMM of theta with the base grid (no spatial kernel), and
    # its backward into theta
    rows = len(size) - 2
    g = torch.Generator().manual_seed(171)
    theta = torch.randn(size[0], rows, rows + 1, generator=g)
    res = []
    for dev in (cuda, torch.device("cpu")):
        t = theta.to(dev).requires_grad_(True)
        out = F.affine_grid(t, size, align_corners=align_corners)
        out.backward(grad_of(out.shape, 172, out.dtype).to(dev))
        res.append((out.detach().cpu(), t.grad.cpu()))
    torch.testing.assert_close(res[0][0], res[1][0], **TOL[torch.float32])
    torch.testing.assert_close(res[0][1], res[1][1], **TOL[torch.float32])

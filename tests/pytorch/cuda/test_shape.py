"""Reflect / replicate padding under torchfl (the "shape" op family),
compared with PyTorch on the CPU from the same inputs.

Forward and backward: the same upstream gradient is fed on both devices
and the input gradients are compared.  The forward is a pure copy (exact);
the gradient sums up to a few contributions per element, in another order
than on the CPU in general, so float32 is compared to 1e-5."""
import pytest
import torch
import torch.nn.functional as F

TOL = {torch.float32: dict(rtol=1e-5, atol=1e-6),
       torch.float64: dict(rtol=1e-12, atol=1e-12)}


def rand(shape, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def both(fn, x, seed, cuda, noncontig=False):
    """fn on cuda and cpu from x; [(y, x.grad)] per device."""
    res = []
    for dev in (cuda, torch.device("cpu")):
        xi = x.to(dev)
        if noncontig:
            # same values, transposed storage of the last two dims
            xi = xi.transpose(-1, -2).contiguous().transpose(-1, -2)
        xi = xi.detach().requires_grad_(True)
        y = fn(xi)
        gy = rand(y.shape, seed + 1000, y.dtype).to(dev)
        y.backward(gy)
        res.append((y.detach().cpu(), xi.grad.cpu()))
    return res


PAD_CASES = [
    # (input shape, pad)
    ((2, 3, 9), (2, 3)),
    ((3, 7), (1, 1)),                 # 1-D unbatched
    ((1, 1, 5), (4, 0)),
    ((2, 3, 8, 8), (1, 1, 1, 1)),
    ((2, 3, 6, 5), (2, 0, 1, 3)),     # asymmetric: catches a swapped h/w pad
    ((3, 5, 7), (3, 1, 0, 2)),        # 2-D unbatched
    ((1, 1, 1, 1), (0, 0, 0, 0)),
    ((1, 2, 4, 5, 6), (1, 2, 0, 3, 2, 1)),
    ((2, 1, 3, 3, 3), (1, 1, 1, 1, 1, 1)),
    ((2, 5, 4, 3), (-1, 2, 0, 1)),    # negative pad: cropping
]


# reflect with a negative pad is left out: PyTorch refuses it on the CPU too
PAD_MODE_CASES = [(m, shape, pad) for m in ("reflect", "replicate") for shape, pad in PAD_CASES
                  if not (m == "reflect" and any(p < 0 for p in pad))]


@pytest.mark.parametrize("mode,shape,pad", PAD_MODE_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pad(cuda, mode, shape, pad, dtype):
    x = rand(shape, 7, dtype)
    (yc, gc), (yr, gr) = both(lambda t: F.pad(t, pad, mode=mode), x, 7, cuda)
    assert torch.equal(yc, yr)
    torch.testing.assert_close(gc, gr, **TOL[dtype])


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_noncontiguous(cuda, mode):
    x = rand((2, 3, 7, 6), 11, torch.float32)
    (yc, gc), (yr, gr) = both(lambda t: F.pad(t, (2, 1, 1, 3), mode=mode), x, 11, cuda,
                              noncontig=True)
    assert torch.equal(yc, yr)
    torch.testing.assert_close(gc, gr, **TOL[torch.float32])


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_forward_dtypes(cuda, mode):
    """forward only: a copy, so exact for any dtype the kernels take"""
    for dtype in (torch.float16, torch.bfloat16):
        x = rand((2, 3, 5, 4), 3, dtype)
        yc = F.pad(x.to(cuda), (1, 2, 2, 1), mode=mode).cpu()
        yr = F.pad(x, (1, 2, 2, 1), mode=mode)
        assert torch.equal(yc, yr)


UNFOLD_CASES = [
    # (input shape, kernel_size, dilation, padding, stride)
    ((2, 3, 8, 8), 3, 1, 0, 1),
    ((1, 2, 7, 9), (2, 3), (1, 2), (1, 0), (2, 1)),
    ((3, 1, 5, 6), (3, 2), 2, 2, (1, 3)),
    ((1, 4, 4, 4), 1, 1, 0, 1),
    ((1, 1, 1, 1), 1, 1, 0, 1),
]


@pytest.mark.parametrize("shape,k,d,p,s", UNFOLD_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_unfold(cuda, shape, k, d, p, s, dtype):
    x = rand(shape, 5, dtype)
    (yc, gc), (yr, gr) = both(lambda t: F.unfold(t, k, dilation=d, padding=p, stride=s),
                              x, 5, cuda)
    assert torch.equal(yc, yr)
    torch.testing.assert_close(gc, gr, **TOL[dtype])


@pytest.mark.parametrize("shape,k,d,p,s", UNFOLD_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fold(cuda, shape, k, d, p, s, dtype):
    out = shape[2:]
    cols = F.unfold(torch.zeros(shape, dtype=dtype), k, dilation=d, padding=p, stride=s)
    x = rand(cols.shape, 9, dtype)
    (yc, gc), (yr, gr) = both(lambda t: F.fold(t, out, k, dilation=d, padding=p, stride=s),
                              x, 9, cuda)
    torch.testing.assert_close(yc, yr, **TOL[dtype])
    assert torch.equal(gc, gr)


def test_unfold_noncontiguous(cuda):
    x = rand((2, 3, 6, 7), 13, torch.float32)
    (yc, gc), (yr, gr) = both(lambda t: F.unfold(t, (2, 3), padding=1), x, 13, cuda,
                              noncontig=True)
    assert torch.equal(yc, yr)
    torch.testing.assert_close(gc, gr, **TOL[torch.float32])


@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row,col,offset", [
    (4, 4, 0), (3, 5, 1), (5, 3, -1), (6, 4, 2), (4, 6, -3), (1, 1, 0), (7, 2, 5),
    (2, 7, -5), (5, 5, 10), (5, 5, -10), (0, 3, 0), (40, 33, -4)])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_triangle_indices(cuda, fn, row, col, offset, dtype):
    f = getattr(torch, fn)
    got = f(row, col, offset, device=cuda, dtype=dtype).cpu()
    want = f(row, col, offset, dtype=dtype)
    assert got.dtype == want.dtype and torch.equal(got, want)

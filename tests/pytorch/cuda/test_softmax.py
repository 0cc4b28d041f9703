"""softmax / log_softmax (SoftMax.cu: persistent warp softmax, cunn_SoftMax*
block kernels, cunn_SpatialSoftMax*) on cuda under torchfl, compared with
PyTorch on cpu (float32) or a float64 reference (half/bfloat16)."""
import pytest
import torch
import torch.nn.functional as F

CASES = [
    # (shape, dim): last dim small (warp), mid-size (ForwardReg / Smem),
    # large (plain block kernel), inner != 1 (spatial), 1-element rows
    ((4, 10), -1),
    ((33, 127), -1),
    ((2, 3, 1024), -1),
    ((3, 2000), -1),
    ((3, 5000), -1),
    ((2, 100_003), -1),
    ((1025, 64), -1),    # many short rows: split over the host pool
    ((2, 7, 5), 1),
    ((5, 3, 4), 0),
    ((3, 1500, 2), 1),
    ((6, 1), 1),
    ((1,), 0),
]


def make(shape, seed, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 4).to(dtype)


def close(got, want, rtol=1e-5, atol=1e-6):
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_forward_float32(cuda, case, fn):
    shape, dim = CASES[case]
    x = make(shape, case)
    close(fn(x.to(cuda), dim).cpu(), fn(x, dim), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_log_softmax_backward_float32(cuda, case):
    shape, dim = CASES[case]
    x = make(shape, case)
    g = make(shape, case + 100)
    y = F.log_softmax(x, dim)
    want = torch._log_softmax_backward_data(g, y, dim, torch.float32)
    got = torch._log_softmax_backward_data(g.to(cuda), y.to(cuda), dim, torch.float32)
    close(got.cpu(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", [0, 1, 3, 5, 6])
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_forward_half(cuda, dtype, case, fn):
    shape, dim = CASES[case]
    x = make(shape, case, dtype)
    eps = torch.finfo(dtype).eps
    want = fn(x.double(), dim)
    got = fn(x.to(cuda), dim).cpu()
    assert got.dtype == dtype
    # float computation, one rounding to the output type
    torch.testing.assert_close(got.double(), want, rtol=eps, atol=eps * want.abs().max().item())
    if dtype != torch.float16:
        return   # bfloat16 -> float32 goes through a cast kernel, not half_to_float
    # half in, float out (softmax(x, dim, dtype=float32) on a half tensor)
    got32 = fn(x.to(cuda), dim, dtype=torch.float32).cpu()
    assert got32.dtype == torch.float32
    torch.testing.assert_close(got32.double(), want, rtol=1e-5, atol=1e-5)


def test_extremes(cuda):
    x = torch.tensor([[0.0, -float("inf"), 1.0], [1e30, -1e30, 0.0], [88.0, 89.0, 90.0]])
    for fn in (F.softmax, F.log_softmax):
        close(fn(x.to(cuda), 1).cpu(), fn(x, 1), rtol=1e-6, atol=0)
    x = torch.tensor([[1.0, float("nan"), 2.0]])
    assert torch.isnan(F.softmax(x.to(cuda), 1).cpu()).all()


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_autograd_backward(cuda, case, fn):
    shape, dim = CASES[case]
    x = make(shape, case)
    g = make(shape, case + 200)
    # float64 reference: over 100k elements the cpu's float sums drift
    xr = x.double().requires_grad_()
    (want,) = torch.autograd.grad(fn(xr, dim), xr, g.double())
    xd = x.to(cuda).requires_grad_()
    (got,) = torch.autograd.grad(fn(xd, dim), xd, g.to(cuda))
    close(got.cpu(), want.float(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", [0, 3, 5, 6])
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_autograd_backward_half(cuda, dtype, case, fn):
    shape, dim = CASES[case]
    x = make(shape, case, dtype)
    g = make(shape, case + 300, dtype) / 4
    xr = x.double().requires_grad_()
    (want,) = torch.autograd.grad(fn(xr, dim), xr, g.double())
    xd = x.to(cuda).requires_grad_()
    (got,) = torch.autograd.grad(fn(xd, dim), xd, g.to(cuda))
    assert got.dtype == dtype
    # inputs, forward output and the softmax pre-product are rounded to the
    # type on the way; allow a few of its epsilons relative to the scale
    eps = torch.finfo(dtype).eps
    scale = want.abs().max().item()
    torch.testing.assert_close(got.cpu().double(), want, rtol=8 * eps, atol=8 * eps * scale)

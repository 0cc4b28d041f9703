"""Elementwise gaps under torchfl: loss and shrink functors.

Each op runs on `cuda` (PyTorch's SASS-only kernels, recognised by name
and run natively by torchfl) and on `cpu` from the same inputs; forward
results and gradients are compared (fp32 within 1e-5 relative, fp64
within 1e-12).
"""
import pytest
import torch
import torch.nn.functional as F

SHAPES = [(1,), (1023,), (37, 65), (3, 5, 7)]
TOL = {torch.float32: 1e-5, torch.float64: 1e-12}


def make(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def close(got, want):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = TOL[want.dtype]
    torch.testing.assert_close(got, want, rtol=tol, atol=tol, equal_nan=True)


def run_both(cuda, fn, *inputs):
    """fn on cpu and cuda copies of inputs; returns outputs and input grads."""
    res = []
    for dev in ("cpu", cuda):
        xs = [t.detach().to(dev).requires_grad_(True) for t in inputs]
        out = fn(*xs)
        gout = make(out.shape, out.dtype, 99).to(dev)
        out.backward(gout)
        res.append((out.detach(), [x.grad for x in xs]))
    (want, wg), (got, gg) = res
    close(got, want)
    for a, b in zip(gg, wg):
        close(a, b)


LOSSES = {
    "smooth_l1": lambda x, y, r: F.smooth_l1_loss(x, y, reduction=r),
    "smooth_l1_beta": lambda x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.3),
    "huber": lambda x, y, r: F.huber_loss(x, y, reduction=r),
    "huber_delta": lambda x, y, r: F.huber_loss(x, y, reduction=r, delta=0.4),
    "mse": lambda x, y, r: F.mse_loss(x, y, reduction=r),
    "bce": lambda x, y, r: F.binary_cross_entropy(torch.sigmoid(x), torch.sigmoid(y), reduction=r),
    "bce_weight": lambda x, y, r: F.binary_cross_entropy(torch.sigmoid(x), torch.sigmoid(y),
                                                         weight=y.detach().abs(), reduction=r),
}


LOSS_CASES = [(dt, r) for dt in (torch.float32, torch.float64) for r in ("none", "mean", "sum")]


@pytest.mark.parametrize("dtype,reduction", LOSS_CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_loss(cuda, loss, reduction, shape, dtype):
    x, y = make(shape, dtype, 1), make(shape, dtype, 2)
    run_both(cuda, lambda a, b: LOSSES[loss](a, b, reduction), x, y)


def test_loss_noncontiguous(cuda):
    x, y = make((40, 30), torch.float32, 3), make((30, 40), torch.float32, 4)
    for name in sorted(LOSSES):
        run_both(cuda, lambda a, b: LOSSES[name](a.t(), b, "none"), x, y)


def test_loss_broadcast_target(cuda):
    x, y = make((17, 9), torch.float32, 5), make((9,), torch.float32, 6)
    with pytest.warns(UserWarning):
        run_both(cuda, lambda a, b: F.huber_loss(a, b, reduction="mean"), x, y)


SHRINK = {
    "softshrink": lambda x: F.softshrink(x, 0.5),
    "softshrink_small": lambda x: F.softshrink(x, 0.05),
    "hardshrink": lambda x: F.hardshrink(x, 0.5),
    "hardshrink_default": lambda x: F.hardshrink(x),
    "logit": lambda x: torch.logit(torch.sigmoid(x)),
    "logit_eps": lambda x: torch.logit(torch.sigmoid(2 * x), eps=0.1),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", sorted(SHRINK))
def test_shrink(cuda, op, shape, dtype):
    run_both(cuda, SHRINK[op], make(shape, dtype, 7))


def test_shrink_transposed(cuda):
    for op in sorted(SHRINK):
        run_both(cuda, lambda a: SHRINK[op](a.t()), make((33, 20), torch.float32, 8))


def test_empty(cuda):
    e = torch.empty(0, device=cuda)
    assert F.softshrink(e).shape == (0,)
    assert F.smooth_l1_loss(e, e, reduction="none").shape == (0,)


# ------------------------------------------------------------ complex


CDT = [torch.complex64, torch.complex128]
CTOL = {torch.complex64: 1e-5, torch.complex128: 1e-12,
        torch.float32: 1e-5, torch.float64: 1e-12, torch.bool: 0}


def cmake(shape, dtype, seed):
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    return torch.complex(make(shape, real, seed), make(shape, real, seed + 100))


def cclose(got, want):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype == torch.bool:
        assert torch.equal(got, want)
        return
    tol = CTOL[want.dtype]
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)


CBIN = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2.5),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "mul_scalar": lambda a, b: a * (2 - 3j),
    "scalar_mul": lambda a, b: (0.5 + 1j) * b,
    "add_scalar": lambda a, b: a + 1j,
    "div_scalar": lambda a, b: a / (1 + 2j),
    "rdiv_scalar": lambda a, b: (1 + 2j) / b,
    "neg": lambda a, b: -a,
    "conj_physical": lambda a, b: torch.conj_physical(a),
    "resolve_conj": lambda a, b: a.conj().resolve_conj(),
    "resolve_neg": lambda a, b: (-a.conj()).resolve_neg().resolve_conj(),
    "reciprocal": lambda a, b: torch.reciprocal(a),
    "real_math": lambda a, b: a.real * 2 + b.imag,
    "abs": lambda a, b: torch.abs(a * b),
    "angle": lambda a, b: torch.angle(a + b),
    "view_as_real": lambda a, b: torch.view_as_real(a * b) + 1,
    "where": lambda a, b: torch.where(a.real > 0, a, b),
    "masked_fill": lambda a, b: a.masked_fill(b.real > 0, 3 - 4j),
    "clone_t": lambda a, b: a.t().contiguous() if a.dim() == 2 else a.clone(),
    "cast_mul": lambda a, b: (a.to(torch.complex128 if a.dtype == torch.complex64
                                   else torch.complex64) * b.to(torch.complex128)),
}


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", sorted(CBIN))
def test_complex_ops(cuda, op, shape, dtype):
    a, b = cmake(shape, dtype, 11), cmake(shape, dtype, 12)
    want = CBIN[op](a, b)
    got = CBIN[op](a.to(cuda), b.to(cuda))
    cclose(got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_complex_from_real(cuda, shape, dtype):
    x = make(shape, dtype, 13)
    y = make(shape, dtype, 14).abs()
    xc, yc = x.to(cuda), y.to(cuda)
    cclose((xc + 1j * xc) * (xc - 1j * xc), (x + 1j * x) * (x - 1j * x))
    cclose(torch.polar(yc, xc), torch.polar(y, x))
    cclose(torch.complex(xc, yc), torch.complex(x, y))
    cclose(torch.angle(xc), torch.angle(x))
    cclose(xc * 1j + yc, x * 1j + y)
    cclose(torch.view_as_real(torch.polar(yc, xc)), torch.view_as_real(torch.polar(y, x)))


@pytest.mark.parametrize("dtype", CDT)
def test_complex_fill(cuda, dtype):
    for shape in [(0,), (1,), (7,), (33, 5)]:
        cclose(torch.full(shape, 1.5 - 2j, dtype=dtype, device=cuda),
               torch.full(shape, 1.5 - 2j, dtype=dtype))
        cclose(torch.zeros(shape, dtype=dtype, device=cuda), torch.zeros(shape, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_complex_backward(cuda, dtype):
    """Gradients through complex(), polar(), complex mul/div/conj into real leaves."""
    def fn(a, b, r, t):
        z = torch.complex(a, b) * torch.polar(r, t)
        w = z * (1 - 2j) / (z.conj() + 3)
        return torch.view_as_real(z).pow(2).sum() + torch.view_as_real(w).sum()
    a, b, t = make((5, 3), dtype, 21), make((5, 3), dtype, 22), make((5, 3), dtype, 23)
    r = make((5, 3), dtype, 24).abs() + 0.1
    run_both(cuda, fn, a, b, r, t)

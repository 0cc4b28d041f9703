"""Reductions (at::native::reduce_kernel) on cuda under torchfl, compared
with PyTorch on cpu (fp32; integer exactly) or with a float64 reference
(half/bfloat16, which PyTorch accumulates in float on cuda)."""
import math

import pytest
import torch

torch.manual_seed(0)

SHAPES = {
    "vec": (1000,),
    "mat": (37, 53),
    "cube": (6, 35, 9),
    "big": (3, 200_000),      # large enough for a multi-block reduction
    "tall": (1031, 97),       # column sums split over the host pool (bias gradients)
    "one": (1,),
}


def make(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def close(got, want, rtol=1e-5, atol=1e-6):
    assert got.device.type == "cpu" and got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)


# op name -> (function, exact?)
FLOAT_OPS = {
    "sum_all": (lambda t: t.sum(), False),
    "sum_last": (lambda t: t.sum(-1), False),
    "sum_first_keepdim": (lambda t: t.sum(0, keepdim=True), False),
    "mean_all": (lambda t: t.mean(), False),
    "mean_last": (lambda t: t.mean(-1), False),
    "amax_last": (lambda t: t.amax(-1), True),
    "amin_first": (lambda t: t.amin(0), True),
    "max_all": (lambda t: t.max(), True),
    "min_all": (lambda t: t.min(), True),
    "norm2_all": (lambda t: t.norm(), False),
    "norm2_last": (lambda t: torch.linalg.vector_norm(t, 2, dim=-1), False),
    "norm1_last": (lambda t: torch.linalg.vector_norm(t, 1, dim=-1), False),
    "norm3_last": (lambda t: torch.linalg.vector_norm(t, 3, dim=-1), False),
    "norminf_all": (lambda t: torch.linalg.vector_norm(t, math.inf), True),
    "normninf_last": (lambda t: torch.linalg.vector_norm(t, -math.inf, dim=-1), True),
    "norm0_last": (lambda t: torch.linalg.vector_norm(t, 0, dim=-1), True),
    "nansum_all": (lambda t: t.nansum(), False),
    "var_last": (lambda t: t.var(-1), False),
    "std_all": (lambda t: t.std(), False),
    "var_first_c0": (lambda t: t.var(0, correction=0), False),
}


# one sample has no variance (nan on both sides): test_var_single covers it
FLOAT_CASES = [(op, shape) for op in FLOAT_OPS for shape in SHAPES
               if not (shape == "one" and op.startswith(("var", "std")))]


@pytest.mark.parametrize("op,shape", FLOAT_CASES)
def test_float32(cuda, op, shape):
    f, exact = FLOAT_OPS[op]
    x = make(SHAPES[shape])
    got = f(x.to(cuda)).cpu()
    if exact:
        close(got, f(x), rtol=0, atol=0)
    else:
        # float64 reference: PyTorch's float accumulation on cpu drifts more
        # than 1e-5 over 200k elements (pow-3 norm)
        close(got, f(x.double()).to(got.dtype), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "norm", "var"])
@pytest.mark.parametrize("dim", [0, 1, 2, (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_middle_and_noncontiguous(cuda, op, dim, keepdim):
    x = make((7, 19, 11), seed=3)
    for view in (lambda t: t, lambda t: t.transpose(0, 2), lambda t: t[:, ::2, 1:]):
        if op == "norm":
            f = lambda t: torch.linalg.vector_norm(view(t), 2, dim=dim, keepdim=keepdim)
        else:
            f = lambda t: getattr(view(t), op)(dim=dim, keepdim=keepdim)
        want = f(x)
        got = f(x.to(cuda)).cpu()
        if op in ("amax", "amin"):
            close(got, want, rtol=0, atol=0)
        else:
            close(got, want)


@pytest.mark.parametrize("shape", ["mat", "cube", "big"])
@pytest.mark.parametrize("which", ["max", "min"])
def test_values_and_indices(cuda, shape, which):
    x = make(SHAPES[shape], seed=5)
    for dim in range(x.dim()):
        v, i = getattr(x, which)(dim)
        gv, gi = getattr(x.to(cuda), which)(dim)
        close(gv.cpu(), v, rtol=0, atol=0)
        assert torch.equal(gi.cpu(), i)
        a = getattr(x, "arg" + which)(dim, keepdim=True)
        ga = getattr(x.to(cuda), "arg" + which)(dim, keepdim=True)
        assert torch.equal(ga.cpu(), a)
    assert getattr(x.to(cuda), "arg" + which)().item() == getattr(x, "arg" + which)().item()


def test_ties_and_nan(cuda):
    # first occurrence wins on ties; NaN is the maximum and the minimum
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, float("nan"), 5.0, float("nan")],
                      [-1.0, -1.0, -2.0, -2.0]])
    for f in (lambda t: t.argmax(1), lambda t: t.argmin(1), lambda t: t.max(1)[1],
              lambda t: t.min(1)[1]):
        assert torch.equal(f(x.to(cuda)).cpu(), f(x))
    for f in (lambda t: t.amax(1), lambda t: t.amin(1), lambda t: t.sum(1), lambda t: t.nansum(1)):
        close(f(x.to(cuda)).cpu(), f(x), rtol=0, atol=0)


def test_long_rows_with_nan(cuda):
    x = make((5, 301), seed=31)
    x[1, 200] = float("nan")
    x[3, 7] = float("nan")
    x[3, 250] = float("nan")
    x[4, :] = -float("inf")
    for f in (lambda t: t.amax(1), lambda t: t.amin(1), lambda t: t.max(1)[0]):
        close(f(x.to(cuda)).cpu(), f(x), rtol=0, atol=0)
    for f in (lambda t: t.argmax(1), lambda t: t.argmin(1), lambda t: t.max(1)[1]):
        assert torch.equal(f(x.to(cuda)).cpu(), f(x))


@pytest.mark.parametrize("dtype", [torch.bool, torch.float32, torch.int64, torch.uint8])
def test_all_any(cuda, dtype):
    g = torch.Generator().manual_seed(37)
    x = (torch.rand(9, 70, generator=g) > 0.03).to(dtype)   # mostly nonzero
    x[2] = 1
    x[5] = 0
    if dtype == torch.float32:
        x[7, 3] = float("nan")                                # nonzero
    for f in (lambda t: t.all(), lambda t: t.any(), lambda t: t.all(1), lambda t: t.any(1),
              lambda t: t.all(0), lambda t: t.any(0, keepdim=True), lambda t: t.t().all(1)):
        want = f(x)
        got = f(x.to(cuda)).cpu()
        assert got.dtype == want.dtype and torch.equal(got, want)


def test_aminmax(cuda):
    x = make((13, 29), seed=7)
    for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}):
        lo, hi = torch.aminmax(x, **kw)
        glo, ghi = torch.aminmax(x.to(cuda), **kw)
        close(glo.cpu(), lo, rtol=0, atol=0)
        close(ghi.cpu(), hi, rtol=0, atol=0)


def test_var_mean_and_single(cuda):
    x = make((9, 31), seed=11)
    for kw in ({"dim": 1}, {"dim": 0, "correction": 0}, {}):
        v, m = torch.var_mean(x, **kw)
        gv, gm = torch.var_mean(x.to(cuda), **kw)
        close(gv.cpu(), v)
        close(gm.cpu(), m)
        s, m = torch.std_mean(x, **kw)
        gs, gm = torch.std_mean(x.to(cuda), **kw)
        close(gs.cpu(), s)


def test_var_single(cuda):
    x = make((1,))
    assert torch.isnan(x.to(cuda).var().cpu()) and torch.isnan(x.var())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_accumulates_in_float(cuda, dtype):
    x = make((17, 300), dtype, seed=13)
    xd = x.double()
    eps = torch.finfo(dtype).eps
    for f, ref in ((lambda t: t.sum(1), lambda t: t.sum(1)),
                   (lambda t: t.mean(), lambda t: t.mean()),
                   (lambda t: t.norm(dim=1), lambda t: t.norm(dim=1)),
                   (lambda t: t.sum(0, dtype=torch.float32), lambda t: t.sum(0)),
                   (lambda t: t.var(1), lambda t: t.var(1)),
                   (lambda t: t.std(), lambda t: t.std()),
                   (lambda t: torch.logsumexp(t, 1), lambda t: torch.logsumexp(t, 1))):
        got = f(x.to(cuda)).cpu()
        want = ref(xd).to(got.dtype)
        # one rounding of the float-accumulated result to the output type
        tol = eps if got.dtype == dtype else 1e-5
        torch.testing.assert_close(got.double(), want.double(), rtol=tol, atol=tol)
    for f in (lambda t: t.amax(1), lambda t: t.argmax(1), lambda t: t.max(0)[1]):
        assert torch.equal(f(x.to(cuda)).cpu(), f(x))


INT_OPS = [lambda t: t.amax(0), lambda t: t.amin(1), lambda t: t.argmax(1),
           lambda t: t.argmin(), lambda t: t.max(0)[1], lambda t: t.max(1)[0]]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_integers_exact(cuda, dtype):
    g = torch.Generator().manual_seed(17)
    x = torch.randint(-1000, 1000, (23, 41), generator=g).to(dtype)
    ops = INT_OPS
    if dtype == torch.int64:   # int32 sums promote to int64 through a cast kernel
        ops = ops + [lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.sum(0, keepdim=True)]
    for f in ops:
        want = f(x)
        got = f(x.to(cuda)).cpu()
        assert got.dtype == want.dtype and torch.equal(got, want)


def test_empty_and_one_element(cuda):
    x = torch.empty(0, 5)
    close(x.to(cuda).sum(0).cpu(), x.sum(0), rtol=0, atol=0)
    close(x.to(cuda).sum().cpu(), x.sum(), rtol=0, atol=0)
    close(x.to(cuda).norm(dim=0).cpu(), x.norm(dim=0), rtol=0, atol=0)
    assert x.to(cuda).sum(1).shape == (0,)
    y = make((1,))
    for f in (lambda t: t.norm(), lambda t: torch.linalg.vector_norm(t, 3), lambda t: t.sum()):
        close(f(y.to(cuda)).cpu(), f(y), rtol=1e-6, atol=0)


def test_normalize(cuda):
    x = make((16, 33), seed=19)
    for dim in (0, 1):
        close(torch.nn.functional.normalize(x.to(cuda), dim=dim).cpu(),
              torch.nn.functional.normalize(x, dim=dim))


def test_sum_mean_backward(cuda):
    x = make((6, 9), seed=23)
    for f in (lambda t: t.sum(), lambda t: t.mean(1).sum(), lambda t: (t * t).sum(0).mean()):
        xr = x.clone().requires_grad_()
        xd = x.to(cuda).requires_grad_()
        f(xr).backward()
        f(xd).backward()
        close(xd.grad.cpu(), xr.grad)


def test_bool_sum_and_int32_sum(cuda):
    g = torch.Generator().manual_seed(29)
    x = torch.randint(-50, 50, (17, 23), generator=g, dtype=torch.int32)
    b = x > 0
    for f in (lambda t: t.sum(), lambda t: t.sum(1)):
        assert torch.equal(f(x.to(cuda)).cpu(), f(x))
        assert torch.equal(f(b.to(cuda)).cpu(), f(b))


# float64: MeanOps / NormOps / WelfordOps carry double parameters (factor,
# p, correction) and a wider accumulator layout than float32.
F64_OPS = {
    "mean_all": lambda t: t.mean(),
    "mean_last": lambda t: t.mean(-1),
    "mean_first": lambda t: t.mean(0),
    "norm2": lambda t: t.norm(dim=-1),
    "norm3": lambda t: torch.linalg.vector_norm(t, 3, dim=0),
    "std": lambda t: t.std(-1),
    "var_pop": lambda t: t.var(0, correction=0),
    "std_mean": lambda t: torch.std_mean(t, -1)[0],
}


@pytest.mark.parametrize("op", sorted(F64_OPS))
@pytest.mark.parametrize("shape", ["mat", "cube", "big", "tall"])
def test_float64(cuda, op, shape):
    x = make(SHAPES[shape], torch.float64, seed=3)
    want = F64_OPS[op](x)
    got = F64_OPS[op](x.to(cuda)).cpu()
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


# torch.linalg._powsum: NormOps / NormTwoOps (ord 2) with apply_root = false,
# the power sum without the final root (the reduce op's no_root option);
# float64 reference, one rounding of the float accumulation for half types.
POWSUM_TOL = {torch.float32: 1e-5, torch.float64: 1e-12,
              torch.float16: 2 ** -10, torch.bfloat16: 2 ** -7}


@pytest.mark.parametrize("ord", [2, 3, 0.5, 1, 0, math.inf])
@pytest.mark.parametrize("dtype", sorted(POWSUM_TOL, key=str))
@pytest.mark.parametrize("shape,dim", [("mat", None), ("mat", -1), ("cube", 1), ("cube", (0, 2))])
def test_powsum(cuda, ord, dtype, shape, dim):
    x = make(SHAPES[shape], dtype, seed=21)
    got = torch.linalg._powsum(x.to(cuda), ord, dim=dim).cpu()
    want = torch.linalg._powsum(x.double(), ord, dim=dim).to(dtype)
    assert got.dtype == dtype
    tol = POWSUM_TOL[dtype]
    close(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("ord", [2, 3])
def test_powsum_half_to_float(cuda, dtype, ord):
    # dtype=float32 reads the half input directly (NormOps<Half, float, float>)
    x = make((23, 301), dtype, seed=22)
    got = torch.linalg._powsum(x.to(cuda), ord, dim=1, dtype=torch.float32).cpu()
    want = torch.linalg._powsum(x.double(), ord, dim=1).float()
    close(got, want, rtol=1e-5, atol=1e-5)

"""More CUDA RNG kernels under torchfl: cauchy_, log_normal_, geometric_,
exponential_ into half/bfloat16, randint/random_ into half/bfloat16.

PyTorch draws these with the same Philox counters, launch and offset
advance as torch.rand / torch.randn of the same size, so after the same
seed the GPU's uniform (normal) draws are the ones torch.rand (randn) gives
(those are checked against published GPU values in test_random.py).  Each
test rebuilds the transform from those draws on the CPU in double precision
(a reference that cannot share the host op's float code) and also checks
distribution properties, support and per-seed determinism.
"""
import math

import pytest
import torch
import torch.nn.functional as F

F32_EPS = 2.0 ** -23


def _uniform(cuda, seed, n, dtype=torch.float32):
    torch.manual_seed(seed)
    return torch.rand(n, dtype=dtype, device=cuda).cpu().double()


def _normal(cuda, seed, n, dtype=torch.float32):
    torch.manual_seed(seed)
    return torch.randn(n, dtype=dtype, device=cuda).cpu().double()


@pytest.mark.parametrize("n", [1, 7, 1000, 65537])
@pytest.mark.parametrize("median,sigma", [(0.0, 1.0), (2.5, 0.5)])
def test_cauchy_float_from_uniform_draws(cuda, n, median, sigma):
    u = _uniform(cuda, 21, n)
    torch.manual_seed(21)
    c = torch.empty(n, device=cuda).cauchy_(median, sigma).cpu()
    # the float transform clamps u to [eps, 1 - eps]; its argument
    # pi * (u - 0.5) is rounded to float before tan
    uc = u.clamp(F32_EPS, 1 - F32_EPS).float()
    arg = (torch.tensor(math.pi, dtype=torch.float32) * (uc - 0.5)).double()
    ref = median + sigma * torch.tan(arg)
    assert torch.allclose(c.double(), ref, rtol=2e-6, atol=2e-6 * sigma)
    torch.manual_seed(21)
    assert torch.equal(torch.empty(n, device=cuda).cauchy_(median, sigma).cpu(), c)


def test_cauchy_double_and_statistics(cuda):
    n = 200_000
    u = _uniform(cuda, 22, n, torch.float64)
    torch.manual_seed(22)
    c = torch.empty(n, dtype=torch.float64, device=cuda).cauchy_(1.0, 2.0).cpu()
    ref = 1.0 + 2.0 * torch.tan(math.pi * (u - 0.5))
    assert torch.allclose(c, ref, rtol=1e-12, atol=1e-12)
    # median 1, quartiles at median -+ sigma
    q = torch.quantile(c[:100_000], torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64))
    assert abs(q[1] - 1.0) < 0.03 and abs(q[0] + 1.0) < 0.05 and abs(q[2] - 3.0) < 0.05


@pytest.mark.parametrize("n", [1, 7, 1000, 65537])
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (-1.0, 0.25)])
def test_log_normal_float_from_normal_draws(cuda, n, mean, std):
    z = _normal(cuda, 23, n)
    torch.manual_seed(23)
    x = torch.empty(n, device=cuda).log_normal_(mean, std).cpu()
    ref = torch.exp(z * std + mean)
    assert torch.allclose(x.double(), ref, rtol=3e-6, atol=0)
    assert (x > 0).all()


def test_log_normal_double_and_statistics(cuda):
    n = 500_000
    z = _normal(cuda, 24, n, torch.float64)
    torch.manual_seed(24)
    x = torch.empty(n, dtype=torch.float64, device=cuda).log_normal_(0.5, 0.5).cpu()
    assert torch.allclose(x, torch.exp(z * 0.5 + 0.5), rtol=1e-13, atol=0)
    lx = x.log()
    assert abs(lx.mean() - 0.5) < 5e-3 and abs(lx.std() - 0.5) < 5e-3


def _check_geometric(got, ratio):
    """got == ceil(ratio) wherever ratio is not within rounding of an integer
    (float32 log vs double); within 1 there."""
    ref = torch.ceil(ratio)
    near = (ratio - ratio.round()).abs() < 1e-4 * ratio.abs().clamp(min=1)
    assert torch.equal(got.double()[~near], ref[~near])
    assert ((got.double() - ref).abs() <= 1)[near].all()
    assert near.double().mean() < 0.01


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int32, torch.uint8,
                                   torch.int8])
@pytest.mark.parametrize("p", [0.5, 0.05])
def test_geometric_from_uniform_draws(cuda, dtype, p):
    n = 65537
    u = _uniform(cuda, 25, n)
    torch.manual_seed(25)
    g = torch.empty(n, dtype=dtype, device=cuda).geometric_(p).cpu()
    assert g.dtype == dtype
    pf = float(torch.tensor(p, dtype=torch.float32))
    ratio = torch.log(u) / math.log1p(-pf)
    if dtype in (torch.uint8, torch.int8):
        keep = ratio < 100            # small types: the large tail wraps
        g, ratio = g[keep], ratio[keep]
    _check_geometric(g, ratio)
    assert g.min() >= 1
    if dtype in (torch.float32, torch.int64, torch.int32):
        assert abs(g.double().mean() - 1 / p) < 0.03 / p


def test_geometric_double(cuda):
    n = 100_000
    u = _uniform(cuda, 26, n, torch.float64)
    torch.manual_seed(26)
    g = torch.empty(n, dtype=torch.float64, device=cuda).geometric_(0.3).cpu()
    _check_geometric(g, torch.log(u) / math.log1p(-0.3))
    assert abs(g.mean() - 1 / 0.3) < 0.05


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("which", ["cauchy", "log_normal", "exponential", "geometric"])
def test_lowp_transforms(cuda, dtype, which):
    n = 10_001
    if which == "log_normal":
        base = _normal(cuda, 27, n)
    else:
        base = _uniform(cuda, 27, n)
    torch.manual_seed(27)
    t = torch.empty(n, dtype=dtype, device=cuda)
    if which == "cauchy":
        t.cauchy_(0.0, 0.5)
        uc = base.clamp(F32_EPS, 1 - F32_EPS).float()
        ref = 0.5 * torch.tan((torch.tensor(math.pi, dtype=torch.float32) * (uc - 0.5)).double())
    elif which == "log_normal":
        t.log_normal_(0.0, 0.5)
        ref = torch.exp(base * 0.5)
    elif which == "exponential":
        t.exponential_(2.0)
        ref = -torch.log(base) / 2.0
        ref[base >= 1 - F32_EPS / 2] = F32_EPS / 4
    else:
        t.geometric_(0.25)
        ref = torch.ceil(torch.log(base) / math.log1p(-0.25))
    got = t.cpu().double()
    # one rounding to the type (relative half-ulp: 2^-11 / 2^-8), plus the
    # float computation's own few ulp
    rtol = 2.0 ** -10 if dtype == torch.float16 else 2.0 ** -7
    if which == "geometric":
        exact = ref < 256
        assert torch.allclose(got[exact], ref[exact], rtol=0, atol=1)
    else:
        finite = ref.abs() < 6e4
        assert torch.allclose(got[finite], ref[finite], rtol=rtol, atol=1e-6)
    torch.manual_seed(27)
    t2 = torch.empty(n, dtype=dtype, device=cuda)
    getattr(t2, which + "_")(*{"cauchy": (0.0, 0.5), "log_normal": (0.0, 0.5),
                              "exponential": (2.0,), "geometric": (0.25,)}[which])
    assert torch.equal(t2.cpu(), t.cpu())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("n", [1, 5, 4097])
def test_randint_lowp_matches_int64(cuda, dtype, n):
    torch.manual_seed(28)
    ref = torch.randint(-7, 120, (n,), device=cuda).cpu()
    torch.manual_seed(28)
    got = torch.randint(-7, 120, (n,), dtype=dtype, device=cuda).cpu()
    assert got.dtype == dtype
    assert torch.equal(got.long(), ref)


@pytest.mark.parametrize("dtype,mod", [(torch.float16, 2049), (torch.bfloat16, 257)])
def test_random_full_lowp(cuda, dtype, mod):
    # random_() on half / bfloat16: integers 0 .. 2^digits, uniform
    n = 200_000
    torch.manual_seed(29)
    r = torch.empty(n, dtype=dtype, device=cuda).random_().cpu()
    v = r.double()
    assert torch.equal(v, v.round())
    assert v.min() >= 0 and v.max() <= mod - 1
    assert v.max() > 0.95 * (mod - 1) and v.min() < 0.05 * (mod - 1)
    assert abs(v.mean() - (mod - 1) / 2) < 0.01 * mod
    if dtype == torch.bfloat16:     # every value 0..256 is representable
        counts = torch.bincount(r.long(), minlength=mod).double() / n
        assert torch.all((counts - 1 / mod).abs() < 0.2 / mod)
    torch.manual_seed(29)
    assert torch.equal(torch.empty(n, dtype=dtype, device=cuda).random_().cpu(), r)
    # the same 32-bit draws as int32's random_(), which keeps r % 2^31: so
    # each value is r % mod for r one of i or i + 2^31, both cases occurring
    torch.manual_seed(29)
    i = torch.empty(n, dtype=torch.int32, device=cuda).random_().cpu().long()
    lo, hi = (i % mod).double(), ((i + 2 ** 31) % mod).double()
    assert torch.all((v == lo) | (v == hi))
    assert (v == lo).double().mean() > 0.4 and (v == hi).double().mean() > 0.4


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1, 7, 1000, 65537])
def test_rrelu_training_from_uniform_draws(cuda, dtype, n):
    lower, upper = 0.1, 0.3
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, dtype=dtype, generator=g)
    x[::5] = 0.0                       # zero counts as negative (x <= 0)
    u = _uniform(cuda, 30, n, dtype)
    torch.manual_seed(30)
    xc = x.to(cuda).requires_grad_()
    y = F.rrelu(xc, lower, upper, training=True)
    y.backward(torch.ones_like(y))
    y = y.detach().cpu()
    neg = x <= 0
    # noise = lower + u * (upper - lower), in double, rounded to the type
    noise = (lower + u * (upper - lower)).to(dtype)
    assert torch.equal(y[~neg], x[~neg])
    assert torch.allclose(y[neg].double(), (x[neg] * noise[neg]).double(), rtol=1e-6, atol=0)
    # backward: grad * noise (1 where x > 0)
    grad = xc.grad.cpu()
    assert torch.equal(grad[~neg], torch.ones_like(grad[~neg]))
    assert torch.allclose(grad[neg].double(), noise[neg].double(), rtol=1e-6, atol=0)
    if n >= 1000:
        s = grad[neg].double()
        assert s.min() >= lower and s.max() <= upper
        assert abs(s.mean() - (lower + upper) / 2) < 0.01
    torch.manual_seed(30)
    assert torch.equal(F.rrelu(x.to(cuda), lower, upper, training=True).cpu(), y)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rrelu_training_lowp(cuda, dtype):
    n = 4099
    g = torch.Generator().manual_seed(31)
    x = torch.randn(n, generator=g).to(dtype)
    torch.manual_seed(31)
    y = F.rrelu(x.to(cuda), 0.125, 1 / 3, training=True).cpu()
    neg = x <= 0
    assert torch.equal(y[~neg], x[~neg])
    slope = (y[neg & (x != 0)].double() / x[neg & (x != 0)].double())
    tol = 2.0 ** -9 if dtype == torch.float16 else 2.0 ** -6
    assert slope.min() >= 0.125 - tol and slope.max() <= 1 / 3 + tol
    assert abs(slope.mean() - (0.125 + 1 / 3) / 2) < 0.02
    torch.manual_seed(31)
    assert torch.equal(F.rrelu(x.to(cuda), 0.125, 1 / 3, training=True).cpu(), y)

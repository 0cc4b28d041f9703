"""The scan family under torchfl: cumsum / cumprod / logcumsumexp /
cummax / cummin along every dim, and nonzero / boolean indexing /
masked_select / where(cond), on `cuda` against `cpu`.

Floating scans are compared against the CPU result with a bound that a
correct scan in the input's precision always meets (the rounding error of
a length-n sum is at most n * eps * sum |x|); integer and index results
must be equal.
"""
import pytest
import torch

EPS = {torch.float32: 2.0 ** -24, torch.float64: 2.0 ** -53}


def _inputs(shape, dtype, gen, kind="sum"):
    if dtype.is_floating_point:
        if kind == "prod":
            return (torch.rand(shape, generator=gen, dtype=torch.float64) + 0.5).to(dtype)
        return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)
    lo, hi = (-3, 4) if kind == "prod" else (-1000, 1000)
    return torch.randint(lo, hi, shape, generator=gen, dtype=dtype)


def _view(x, layout):
    if layout == "contiguous":
        return x
    if layout == "transposed":
        return x.t()
    return x[:, ::2]               # strided columns


SHAPES_1D = [(0,), (1,), (7,), (1000,), (100000,)]   # 100k: several cub tiles
SHAPES_ND = [(37, 53), (4, 5, 6), (1, 9), (9, 1)]


def _scan_cases():
    cases = []
    for shape in SHAPES_1D:
        cases.append((shape, 0, "contiguous"))
    for shape in SHAPES_ND:
        for d in range(len(shape)):
            cases.append((shape, d, "contiguous"))
        cases.append((shape, -1, "contiguous"))
    for layout in ("transposed", "strided"):
        for d in (0, 1):
            cases.append(((37, 54), d, layout))
    return cases


def _check_float(got, want_ref, absx_cum, n, dtype):
    # |error| <= n * eps * (prefix sum of |x|) for any summation order,
    # plus the final rounding of the result.
    bound = n * EPS[dtype] * absx_cum + 2 * EPS[dtype] * want_ref.abs()
    err = (got.double() - want_ref).abs()
    assert torch.all(err <= bound + 1e-300), float((err - bound).max())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("shape,dim,layout", _scan_cases())
def test_cumsum(cuda, shape, dim, layout, dtype):
    gen = torch.Generator().manual_seed(1)
    x = _view(_inputs(shape, dtype, gen), layout)
    kw = {"dtype": dtype} if dtype == torch.int32 else {}
    got = torch.cumsum(x.to(cuda), dim, **kw).cpu()
    want = torch.cumsum(x, dim, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype.is_floating_point:
        n = x.shape[dim] if x.dim() else 1
        ref = torch.cumsum(x.double(), dim)
        _check_float(got, ref, torch.cumsum(x.double().abs(), dim), n, dtype)
        _check_float(want, ref, torch.cumsum(x.double().abs(), dim), n, dtype)
    else:
        assert torch.equal(got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
@pytest.mark.parametrize("shape,dim,layout", [c for c in _scan_cases() if c[0] != (100000,)])
def test_cumprod(cuda, shape, dim, layout, dtype):
    gen = torch.Generator().manual_seed(2)
    x = _view(_inputs(shape, dtype, gen, "prod"), layout)
    got = torch.cumprod(x.to(cuda), dim).cpu()
    want = torch.cumprod(x, dim)
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype.is_floating_point:
        n = x.shape[dim] if x.dim() else 1
        ref = torch.cumprod(x.double(), dim)
        # a product's relative error is at most about n * eps
        assert torch.all((got.double() - ref).abs() <= (n + 2) * EPS[dtype] * ref.abs() * 1.01)
    else:
        assert torch.equal(got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape,dim,layout", [c for c in _scan_cases() if c[0] != (100000,)])
def test_logcumsumexp(cuda, shape, dim, layout, dtype):
    gen = torch.Generator().manual_seed(3)
    x = _view(_inputs(shape, dtype, gen), layout)
    got = torch.logcumsumexp(x.to(cuda), dim).cpu()
    ref = torch.logcumsumexp(x.double(), dim)
    want = torch.logcumsumexp(x, dim)
    assert got.shape == want.shape
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    assert torch.allclose(got.double(), ref, rtol=tol, atol=tol)
    assert torch.allclose(got, want, rtol=tol, atol=tol)


def test_logcumsumexp_infinities(cuda):
    x = torch.tensor([-float("inf"), -float("inf"), 0.0, float("inf"), 1.0, float("nan"), 2.0])
    got = torch.logcumsumexp(x.to(cuda), 0).cpu()
    want = torch.logcumsumexp(x, 0)
    assert torch.equal(got.isnan(), want.isnan())
    m = ~want.isnan()
    assert torch.equal(got[m], want[m])


@pytest.mark.parametrize("fn", [torch.cummax, torch.cummin])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("shape,dim,layout", [c for c in _scan_cases() if c[0] != (100000,)])
def test_cummax_cummin(cuda, fn, shape, dim, layout, dtype):
    gen = torch.Generator().manual_seed(4)
    # few distinct values, so ties (which take the latest index) happen
    x = _view(torch.randint(-4, 5, shape, generator=gen).to(dtype), layout)
    got_v, got_i = (t.cpu() for t in fn(x.to(cuda), dim))
    want_v, want_i = fn(x, dim)
    assert torch.equal(got_v, want_v)
    assert torch.equal(got_i, want_i)


@pytest.mark.parametrize("fn", [torch.cummax, torch.cummin])
@pytest.mark.parametrize("dim", [0, 1])
def test_cummax_cummin_nan(cuda, fn, dim):
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(23, 31, generator=gen)
    x[torch.rand(23, 31, generator=gen) < 0.05] = float("nan")
    got_v, got_i = (t.cpu() for t in fn(x.to(cuda), dim))
    want_v, want_i = fn(x, dim)
    assert torch.equal(got_v.isnan(), want_v.isnan())
    m = ~want_v.isnan()
    assert torch.equal(got_v[m], want_v[m])
    assert torch.equal(got_i, want_i)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_backward(cuda, dim):
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(13, 17, generator=gen, dtype=torch.float64)
    w = torch.randn(13, 17, generator=gen, dtype=torch.float64)
    xc = x.to(cuda).requires_grad_()
    (torch.cumsum(xc, dim) * w.to(cuda)).sum().backward()
    xr = x.clone().requires_grad_()
    (torch.cumsum(xr, dim) * w).sum().backward()
    got = xc.grad.cpu()
    assert torch.allclose(got, xr.grad, rtol=1e-12, atol=1e-12)


NZ_SHAPES = [(0,), (1,), (17,), (100000,), (37, 53), (3, 4, 5), (2, 3, 4, 5), (0, 4), ()]


def _mask_source(shape, dtype, gen):
    x = torch.randn(shape, generator=gen)
    x[x.abs() < 0.3] = 0                  # about a quarter zeros
    if dtype == torch.bool:
        return x != 0
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32,
                                   torch.bool, torch.uint8])
@pytest.mark.parametrize("shape", NZ_SHAPES)
def test_nonzero(cuda, shape, dtype):
    gen = torch.Generator().manual_seed(7)
    x = _mask_source(shape, dtype, gen)
    got = torch.nonzero(x.to(cuda)).cpu()
    want = torch.nonzero(x)
    assert got.shape == want.shape and torch.equal(got, want)


def test_nonzero_all_and_none(cuda):
    for x in (torch.ones(5000), torch.zeros(5000), torch.ones(50, 70), torch.zeros(50, 70)):
        got = torch.nonzero(x.to(cuda)).cpu()
        assert torch.equal(got, torch.nonzero(x))


def test_nonzero_negative_zero_and_nan(cuda):
    x = torch.tensor([0.0, -0.0, float("nan"), 1.0, -0.0, float("inf")])
    got = torch.nonzero(x.to(cuda)).cpu()
    assert torch.equal(got, torch.nonzero(x))


def test_nonzero_noncontiguous(cuda):
    gen = torch.Generator().manual_seed(8)
    x = _mask_source((40, 60), torch.float32, gen)
    for v in (x.t(), x[:, ::3], x[::2]):
        got = torch.nonzero(v.to(cuda)).cpu()
        assert torch.equal(got, torch.nonzero(v))


@pytest.mark.parametrize("shape", [(0,), (1,), (33,), (100000,), (37, 53), (3, 4, 5)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_boolean_index_and_masked_select(cuda, shape, dtype):
    gen = torch.Generator().manual_seed(9)
    x = torch.randn(shape, generator=gen).to(dtype) if dtype.is_floating_point else \
        torch.randint(-100, 100, shape, generator=gen, dtype=dtype)
    mask = torch.rand(shape, generator=gen) > 0.5
    xc, mc = x.to(cuda), mask.to(cuda)
    got_index = xc[mc].cpu()
    got_select = torch.masked_select(xc, mc).cpu()
    assert torch.equal(got_index, x[mask])
    assert torch.equal(got_select, torch.masked_select(x, mask))


def test_masked_select_broadcast(cuda):
    gen = torch.Generator().manual_seed(10)
    x = torch.randn(7, 9, generator=gen)
    mask = torch.rand(9, generator=gen) > 0.4
    got = torch.masked_select(x.to(cuda), mask.to(cuda)).cpu()
    assert torch.equal(got, torch.masked_select(x, mask))


@pytest.mark.parametrize("shape", [(0,), (19,), (37, 53), (3, 4, 5)])
def test_where_single_arg(cuda, shape):
    gen = torch.Generator().manual_seed(11)
    cond = torch.rand(shape, generator=gen) > 0.5
    got = [g.cpu() for g in torch.where(cond.to(cuda))]
    want = torch.where(cond)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert torch.equal(g, w)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.complex64, torch.int8])
@pytest.mark.parametrize("shape", [(17,), (30, 41)])
def test_nonzero_more_dtypes(cuda, shape, dtype):
    gen = torch.Generator().manual_seed(12)
    x = torch.randn(shape, generator=gen)
    x[x.abs() < 0.5] = 0
    x = (x * 3).to(dtype)
    if dtype.is_complex:
        x.imag.view(-1)[::4] = 1      # some nonzero through the imaginary part only
    got = torch.nonzero(x.to(cuda)).cpu()
    assert torch.equal(got, torch.nonzero(x))


@pytest.mark.parametrize("dim", [0, 1])
def test_cumsum_large_rows(cuda, dim):
    # a long innermost row (many thread-block tiles of the row scan) and a
    # long outer column
    gen = torch.Generator().manual_seed(13)
    x = torch.randint(-50, 50, (3, 100000), generator=gen) if dim == 1 else \
        torch.randint(-50, 50, (100000, 3), generator=gen)
    got = torch.cumsum(x.to(cuda), dim).cpu()
    assert torch.equal(got, torch.cumsum(x, dim))
    got_v, got_i = (t.cpu() for t in torch.cummax(x.to(cuda), dim))
    want_v, want_i = torch.cummax(x, dim)
    assert torch.equal(got_v, want_v) and torch.equal(got_i, want_i)


def test_cumsum_inplace_and_out(cuda):
    gen = torch.Generator().manual_seed(14)
    x = torch.randint(-9, 9, (11, 13), generator=gen, dtype=torch.int64)
    xc = x.to(cuda)
    xc.cumsum_(1)
    got_inplace = xc.cpu()
    out = torch.empty(11, 13, dtype=torch.int64, device=cuda)
    torch.cumsum(x.to(cuda), 0, out=out)
    got_out = out.cpu()
    assert torch.equal(got_inplace, torch.cumsum(x, 1))
    assert torch.equal(got_out, torch.cumsum(x, 0))


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int32])
def test_cumsum_promotes_to_int64(cuda, dtype):
    gen = torch.Generator().manual_seed(15)
    x = torch.randint(0, 2, (9, 200), generator=gen).to(dtype)
    for dim in (0, 1):
        got = torch.cumsum(x.to(cuda), dim).cpu()
        want = torch.cumsum(x, dim)
        assert got.dtype == want.dtype == torch.int64
        assert torch.equal(got, want)
    got = torch.cumsum(x.flatten().to(cuda), 0).cpu()
    assert torch.equal(got, torch.cumsum(x.flatten(), 0))

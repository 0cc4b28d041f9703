"""searchsorted / bucketize, bincount and histc under torchfl (the "bucket"
op family), compared with PyTorch on the CPU from the same inputs.
Integer results must match exactly; weighted sums to float rounding."""
import pytest
import torch


def _exact(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(a.cpu(), b), (a.cpu(), b)


def _gen(seed):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
@pytest.mark.parametrize("nbd,nval", [(1, 5), (7, 33), (64, 1000), (3, 1)])
def test_searchsorted_1d(cuda, dtype, right, out_int32, nbd, nval):
    g = _gen(1)
    bd = torch.sort(torch.randint(-20, 20, (nbd,), generator=g)).values.to(dtype)
    v = torch.randint(-25, 25, (nval,), generator=g).to(dtype)   # hits on boundaries too
    got = torch.searchsorted(bd.to(cuda), v.to(cuda), right=right, out_int32=out_int32)
    _exact(got, torch.searchsorted(bd, v, right=right, out_int32=out_int32))


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("rows,nbd,nval", [(3, 6, 4), (5, 1, 9), (2, 17, 17)])
def test_searchsorted_rows(cuda, right, rows, nbd, nval):
    g = _gen(2)
    bd = torch.sort(torch.randn(rows, nbd, generator=g), dim=1).values
    v = torch.randn(rows, nval, generator=g)
    v[:, 0] = bd[:, 0]          # exactly on a boundary
    got = torch.searchsorted(bd.to(cuda), v.to(cuda), right=right)
    _exact(got, torch.searchsorted(bd, v, right=right))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_sorter(cuda, right):
    g = _gen(3)
    bd = torch.randn(3, 8, generator=g)
    sorter = torch.argsort(bd, dim=1)
    v = torch.randn(3, 5, generator=g)
    got = torch.searchsorted(bd.to(cuda), v.to(cuda), right=right, sorter=sorter.to(cuda))
    _exact(got, torch.searchsorted(bd, v, right=right, sorter=sorter))


def test_searchsorted_nan(cuda):
    bd = torch.tensor([-1.0, 0.0, 2.0, float("nan")])
    v = torch.tensor([float("nan"), -2.0, 0.0, 5.0, 2.0])
    for right in (False, True):
        got = torch.searchsorted(bd.to(cuda), v.to(cuda), right=right)
        _exact(got, torch.searchsorted(bd, v, right=right))


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("shape", [(10,), (4, 6), (2, 3, 5)])
def test_bucketize(cuda, right, shape):
    g = _gen(4)
    bd = torch.tensor([-1.0, -0.25, 0.0, 0.5, 1.5])
    v = torch.randn(shape, generator=g)
    v.view(-1)[0] = 0.5
    got = torch.bucketize(v.to(cuda), bd.to(cuda), right=right)
    _exact(got, torch.bucketize(v, bd, right=right))


@pytest.mark.parametrize("n,hi", [(1, 0), (20, 5), (1000, 37), (333, 1)])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8])
@pytest.mark.parametrize("minlength", [0, 50])
def test_bincount(cuda, n, hi, dtype, minlength):
    x = torch.randint(0, hi + 1, (n,), generator=_gen(5)).to(dtype)
    _exact(torch.bincount(x.to(cuda), minlength=minlength), torch.bincount(x, minlength=minlength))


@pytest.mark.parametrize("wdtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n,hi", [(20, 5), (500, 9), (3, 0)])
def test_bincount_weights(cuda, wdtype, n, hi):
    g = _gen(6)
    x = torch.randint(0, hi + 1, (n,), generator=g)
    w = torch.randn(n, generator=g, dtype=torch.float64).to(wdtype)
    got = torch.bincount(x.to(cuda), weights=w.to(cuda))
    ref = torch.bincount(x, weights=w)
    assert got.dtype == ref.dtype
    torch.testing.assert_close(got.cpu(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("bins,lo,hi", [(4, 0.0, 1.0), (10, -2.0, 2.0), (1, -1.0, 1.0), (7, 0.3, 0.9)])
def test_histc(cuda, dtype, bins, lo, hi):
    g = _gen(7)
    x = torch.randn(257, generator=g, dtype=torch.float64).to(dtype)
    x[0], x[1], x[2] = lo, hi, hi + 1      # both ends and one outside
    _exact(torch.histc(x.to(cuda), bins=bins, min=lo, max=hi), torch.histc(x, bins=bins, min=lo, max=hi))


def test_histc_strided(cuda):
    x = torch.rand(6, 9, generator=_gen(8))
    xt = x.to(cuda).t()                    # non-contiguous input
    _exact(torch.histc(xt, bins=5, min=0, max=1), torch.histc(x.t(), bins=5, min=0, max=1))


def test_histc_int(cuda):
    """PyTorch's CPU histc has no integer version: the reference is the
    definition, bins of width (hi - lo) / bins, the last one closed."""
    x = torch.randint(-5, 12, (100,), generator=_gen(9))
    bins, lo, hi = 6, -3, 9
    ref = torch.zeros(bins, dtype=torch.int64)
    for v in x.tolist():
        if lo <= v <= hi:
            ref[min((v - lo) * bins // (hi - lo), bins - 1)] += 1
    _exact(torch.histc(x.to(cuda), bins=bins, min=lo, max=hi), ref)

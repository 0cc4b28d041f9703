"""scatter_reduce / index_reduce (the "index" family's reduce functors),
mode and unique(dim) under torchfl, compared with PyTorch on the CPU from
the same inputs.  Max/min/integer results are exact; float sums/products
within 1e-5 relative (the summation order may differ)."""
import pytest
import torch

REDUCES = ["sum", "prod", "mean", "amax", "amin"]
DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32]


def _src(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        # near 1 so that products of many terms stay finite
        return (1 + 0.2 * torch.randn(shape, generator=g, dtype=torch.float64)).to(dtype)
    return torch.randint(-3, 4, shape, generator=g).to(dtype)


def _close(a, b, dtype, reduce):
    a = a.cpu()
    assert a.dtype == b.dtype and a.shape == b.shape
    if dtype.is_floating_point and reduce in ("sum", "prod", "mean"):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    else:
        assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("shape,dim,n", [
    ((5,), 0, 20),          # the probe's case: many duplicates
    ((6, 7), 1, 4),         # along the inner dim
    ((6, 7), 0, 3),
    ((3, 4, 5), 1, 9),
    ((1,), 0, 1),
])
def test_scatter_reduce(cuda, dtype, reduce, include_self, shape, dim, n):
    self_ = _src(shape, dtype, 1)
    ishape = list(shape)
    ishape[dim] = n
    g = torch.Generator().manual_seed(2)
    idx = torch.randint(0, shape[dim], ishape, generator=g)
    src = _src(ishape, dtype, 3)
    ref = self_.scatter_reduce(dim, idx, src, reduce, include_self=include_self)
    got = self_.to(cuda).scatter_reduce(dim, idx.to(cuda), src.to(cuda), reduce,
                                        include_self=include_self)
    _close(got, ref, dtype, reduce)


def test_scatter_reduce_transposed(cuda):
    self_ = _src((7, 6), torch.float32, 4).t()
    idx = torch.randint(0, 6, (4, 7), generator=torch.Generator().manual_seed(5))
    src = _src((7, 4), torch.float32, 6).t()
    for reduce in REDUCES:
        ref = self_.scatter_reduce(0, idx, src, reduce)
        got = self_.to(cuda).scatter_reduce(0, idx.to(cuda), src.to(cuda), reduce)
        _close(got, ref, torch.float32, reduce)


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("shape,dim,n", [
    ((5,), 0, 20),
    ((6, 7), 0, 10),        # rows
    ((6, 7), 1, 3),         # columns
    ((3, 4, 5), 2, 8),
])
def test_index_reduce(cuda, dtype, reduce, include_self, shape, dim, n):
    self_ = _src(shape, dtype, 7)
    sshape = list(shape)
    sshape[dim] = n
    g = torch.Generator().manual_seed(8)
    idx = torch.randint(0, shape[dim], (n,), generator=g)
    src = _src(sshape, dtype, 9)
    ref = self_.index_reduce(dim, idx, src, reduce, include_self=include_self)
    got = self_.to(cuda).index_reduce(dim, idx.to(cuda), src.to(cuda), reduce,
                                      include_self=include_self)
    _close(got, ref, dtype, reduce)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("shape,dim", [
    ((6, 7), 1), ((6, 7), 0), ((3, 4, 5), 1), ((3, 4, 5), 2), ((3, 4, 5), 0),
    ((1, 9), 1), ((4, 1), 1), ((2, 300), 1),
])
def test_mode(cuda, dtype, shape, dim):
    g = torch.Generator().manual_seed(11)
    x = torch.randint(-2, 3, shape, generator=g).to(dtype)
    ref = x.mode(dim)
    got = x.to(cuda).mode(dim)
    v, i = got.values.cpu(), got.indices.cpu()
    assert v.dtype == ref.values.dtype and v.shape == ref.values.shape
    # the mode value (ties in count: the smallest, as on the CPU)
    assert torch.equal(v, ref.values)
    # any position holding the mode is a valid index
    assert ((i >= 0) & (i < shape[dim])).all()
    assert torch.equal(x.gather(dim, i.unsqueeze(dim)).squeeze(dim), v)


def test_mode_transposed_and_keepdim(cuda):
    g = torch.Generator().manual_seed(12)
    x = torch.randint(0, 4, (8, 5), generator=g).float().t()
    ref = x.mode(1, keepdim=True)
    got = x.to(cuda).mode(1, keepdim=True)
    assert torch.equal(got.values.cpu(), ref.values)
    assert torch.equal(x.gather(1, got.indices.cpu()), ref.values)

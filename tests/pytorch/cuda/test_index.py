"""Index ops under torchfl (the "index" op family): index_select (the
TensorInfo kernels and the vectorized row gather), nn.Embedding's lookup
and torch.cat, compared with PyTorch on the CPU from the same inputs.
Data movement is exact, so results must be equal, bit for bit."""
import pytest
import torch

DTYPES = [torch.float32, torch.int64, torch.float64, torch.int32, torch.float16,
          torch.uint8, torch.bool]


def _data(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 100
    return x.to(dtype) if dtype != torch.bool else x > 0


def _eq(a, b):
    a = a.cpu()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim,n", [
    ((10, 6), 0, 3),        # rows of a contiguous matrix
    ((10, 6), 1, 4),        # columns
    ((4, 5, 7), 1, 9),      # middle dim, repeated indices
    ((4, 5, 7), 2, 2),
    ((100, 3), 0, 500),     # many indices
    ((7,), 0, 5),           # 1-D
    ((3, 4), 0, 0),         # no index
    ((1, 1), 1, 1),
])
def test_index_select(cuda, dtype, shape, dim, n):
    x = _data(shape, dtype, 1)
    g = torch.Generator().manual_seed(2)
    idx = torch.randint(0, shape[dim], (n,), generator=g)
    _eq(x.to(cuda).index_select(dim, idx.to(cuda)), x.index_select(dim, idx))


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_index_select_index_dtypes_and_views(cuda, index_dtype):
    x = _data((12, 9), torch.float32, 3)
    idx = torch.tensor([8, 0, 3, 3, 11], dtype=index_dtype)
    xc, ic = x.to(cuda), idx.to(cuda)
    _eq(xc.index_select(0, ic), x.index_select(0, idx))
    # transposed and sliced sources (non-contiguous TensorInfo)
    _eq(xc.t().index_select(1, ic), x.t().index_select(1, idx))
    _eq(xc[:, ::2].index_select(0, ic), x[:, ::2].index_select(0, idx))
    # a strided index view
    idx2 = torch.tensor([1, 5, 2, 7, 4, 0], dtype=index_dtype)
    _eq(xc.index_select(1, idx2.to(cuda)[::2]), x.index_select(1, idx2[::2]))


@pytest.mark.parametrize("vocab,dim", [(64, 32), (1000, 128), (100, 33), (5, 1)])
def test_embedding_lookup(cuda, vocab, dim):
    emb = torch.nn.Embedding(vocab, dim)
    g = torch.Generator().manual_seed(4)
    idx = torch.randint(0, vocab, (8, 64), generator=g)
    y = emb.to(cuda)(idx.to(cuda))
    _eq(y.detach(), torch.nn.functional.embedding(idx, emb.weight.detach().cpu()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool])
@pytest.mark.parametrize("shapes,dim", [
    ([(4, 5), (4, 3)], 1),
    ([(4, 5), (2, 5), (1, 5)], 0),
    ([(2, 3, 4), (2, 3, 1), (2, 3, 7)], 2),
    ([(2, 3, 4), (2, 1, 4)], 1),
    ([(3,), (0,), (5,)], 0),
    ([(64, 128)] * 3, 0),
    ([(64, 128)] * 3, 1),
    ([(2, 2, 2, 3), (2, 2, 2, 5)], 3),
])
def test_cat(cuda, dtype, shapes, dim):
    xs = [_data(s, dtype, 10 + i) for i, s in enumerate(shapes)]
    _eq(torch.cat([x.to(cuda) for x in xs], dim), torch.cat(xs, dim))


def test_cat_many_inputs(cuda):
    # more inputs than one kernel batch takes (64 or 128): several launches
    xs = [_data((2, i % 5 + 1), torch.float32, i) for i in range(300)]
    _eq(torch.cat([x.to(cuda) for x in xs], 1), torch.cat(xs, 1))


def test_cat_non_contiguous(cuda):
    a = _data((6, 4), torch.float32, 1)
    b = _data((4, 6), torch.float32, 2)
    ac, bc = a.to(cuda), b.to(cuda)
    _eq(torch.cat([ac, bc.t()], 1), torch.cat([a, b.t()], 1))
    _eq(torch.cat([ac[::2], bc.t()[1::2]], 0), torch.cat([a[::2], b.t()[1::2]], 0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool])
@pytest.mark.parametrize("shape,dim,ishape", [
    ((10, 6), 1, (10, 2)),
    ((10, 6), 0, (4, 6)),
    ((3, 4, 5), 2, (3, 4, 7)),
    ((3, 4, 5), 0, (2, 2, 2)),
    ((8,), 0, (20,)),
])
def test_gather(cuda, dtype, shape, dim, ishape):
    x = _data(shape, dtype, 5)
    g = torch.Generator().manual_seed(6)
    idx = torch.randint(0, shape[dim], ishape, generator=g)
    _eq(x.to(cuda).gather(dim, idx.to(cuda)), x.gather(dim, idx))


def test_gather_accuracy_pattern(cuda):
    # what accuracy computations do: pick each row's label column
    logits = _data((64, 10), torch.float32, 7)
    labels = torch.randint(0, 10, (64,), generator=torch.Generator().manual_seed(8))
    got = logits.to(cuda).gather(1, labels.to(cuda).unsqueeze(1))
    _eq(got, logits.gather(1, labels.unsqueeze(1)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("shape,dim,ishape", [
    ((10, 6), 0, (4, 6)),
    ((10, 6), 1, (10, 9)),
    ((4, 5, 3), 1, (4, 12, 3)),
    ((5,), 0, (17,)),
])
def test_scatter_add(cuda, dtype, shape, dim, ishape):
    base = _data(shape, dtype, 9)
    src = _data(ishape, dtype, 10)
    g = torch.Generator().manual_seed(11)
    idx = torch.randint(0, shape[dim], ishape, generator=g)
    got = base.to(cuda).scatter_add(dim, idx.to(cuda), src.to(cuda))
    ref = base.scatter_add(dim, idx, src)
    if dtype.is_floating_point:
        # several adds into one place: the order may differ
        torch.testing.assert_close(got.cpu(), ref, rtol=1e-6, atol=1e-4)
    else:
        _eq(got, ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.uint8])
def test_scatter(cuda, dtype):
    # a permutation along each dim: no two writes to one place
    base = _data((6, 5), dtype, 12)
    src = _data((6, 5), dtype, 13)
    g = torch.Generator().manual_seed(14)
    idx0 = torch.stack([torch.randperm(6, generator=g) for _ in range(5)], 1)
    idx1 = torch.stack([torch.randperm(5, generator=g) for _ in range(6)], 0)
    for dim, idx in ((0, idx0), (1, idx1)):
        _eq(base.to(cuda).scatter(dim, idx.to(cuda), src.to(cuda)), base.scatter(dim, idx, src))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool])
def test_advanced_indexing_get(cuda, dtype):
    x = _data((10, 6, 3), dtype, 15)
    xc = x.to(cuda)
    i = torch.tensor([1, 3, 3, 7, -1])
    j = torch.tensor([0, 5, 2, 1, -6])
    ic, jc = i.to(cuda), j.to(cuda)
    _eq(xc[ic], x[i])
    _eq(xc[ic, jc], x[i, j])
    _eq(xc[:, jc], x[:, j])
    _eq(xc[ic, :, 1:], x[i, :, 1:])
    _eq(xc.transpose(0, 1)[jc], x.transpose(0, 1)[j])


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_advanced_indexing_put(cuda, dtype):
    x = _data((8, 5), dtype, 16)
    v = _data((3, 5), dtype, 17)
    i = torch.tensor([6, 0, 2])
    xc = x.to(cuda)
    xc[i.to(cuda)] = v.to(cuda)
    x[i] = v
    _eq(xc, x)
    j = torch.tensor([4, 1, -2])
    w = _data((3,), dtype, 18)
    xc[i.to(cuda), j.to(cuda)] = w.to(cuda)
    x[i, j] = w
    _eq(xc, x)


ARANGE_INT_ARGS = [(10,), (3, 100, 7), (-5, 5), (20, 2, -3), (0,)]


@pytest.mark.parametrize("dtype,args", [
    (dt, a) for dt in (torch.int64, torch.int32, torch.uint8, torch.int8)
    for a in ARANGE_INT_ARGS if dt != torch.uint8 or min(a) >= 0])
def test_arange_integers(cuda, dtype, args):
    _eq(torch.arange(*args, dtype=dtype, device=cuda), torch.arange(*args, dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("args", [(10,), (0.5, 10, 0.25), (-1, 1, 0.1), (5, -5, -0.5)])
def test_arange_floats(cuda, dtype, args):
    got = torch.arange(*args, dtype=dtype, device=cuda)
    ref = torch.arange(*args, dtype=dtype)
    assert got.shape == ref.shape
    torch.testing.assert_close(got.cpu(), ref, rtol=0, atol=4 * torch.finfo(dtype).eps * 10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("args", [(0, 1, 7), (-1, 2, 9), (10, -10, 21), (3, 50, 4), (0, 1, 2)])
def test_linspace(cuda, dtype, args):
    got = torch.linspace(*args, dtype=dtype, device=cuda)
    ref = torch.linspace(*args, dtype=dtype)
    if dtype.is_floating_point:
        torch.testing.assert_close(got.cpu(), ref, rtol=1e-6, atol=1e-6)
    else:
        _eq(got, ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("shape,dim,n", [((10, 6), 0, 4), ((10, 6), 1, 9), ((4, 5, 3), 1, 40),
                                         ((7,), 0, 3)])
@pytest.mark.parametrize("alpha", [1, 3])
def test_index_add(cuda, dtype, shape, dim, n, alpha):
    base = _data(shape, dtype, 19)
    sshape = list(shape)
    sshape[dim] = n
    src = _data(tuple(sshape), dtype, 20)
    idx = torch.randint(0, shape[dim], (n,), generator=torch.Generator().manual_seed(21))
    got = base.to(cuda).index_add(dim, idx.to(cuda), src.to(cuda), alpha=alpha)
    ref = base.index_add(dim, idx, src, alpha=alpha)
    if dtype.is_floating_point:
        torch.testing.assert_close(got.cpu(), ref, rtol=1e-6, atol=1e-3)
    else:
        _eq(got, ref)


@pytest.mark.parametrize("dtype,value", [(torch.float32, 2.5), (torch.int64, -7),
                                         (torch.float64, 1e300), (torch.uint8, 3)])
def test_scatter_value(cuda, dtype, value):
    base = _data((4, 5), dtype, 22)
    idx = torch.tensor([[1, 4], [3, 3], [0, 1], [2, 0]])
    for dim in (0, 1):
        i = idx if dim == 1 else idx.t()[:, :4] % 4
        _eq(base.to(cuda).scatter(dim, i.to(cuda), value), base.scatter(dim, i, value))


def test_one_hot(cuda):
    labels = torch.randint(0, 7, (50,), generator=torch.Generator().manual_seed(23))
    _eq(torch.nn.functional.one_hot(labels.to(cuda), 7), torch.nn.functional.one_hot(labels, 7))


def test_advanced_indexing_broadcast(cuda):
    x = _data((10, 6, 3), torch.float32, 24)
    i = torch.tensor([1, 3, 3, 7, -1])
    j = torch.tensor([0, 5, 2, 1, -6])
    xc = x.to(cuda)
    _eq(xc[i.to(cuda).view(5, 1), j.to(cuda).view(1, 5)], x[i.view(5, 1), j.view(1, 5)])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bool, torch.int64, torch.float16])
@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (2, 4, 6), (1, 1)])
@pytest.mark.parametrize("k", [0, 1, -2])
def test_triu_tril(cuda, dtype, shape, k):
    x = _data(shape, dtype, 25)
    xc = x.to(cuda)
    _eq(torch.tril(xc, k), torch.tril(x, k))
    _eq(torch.triu(xc, k), torch.triu(x, k))
    _eq(torch.triu(xc.transpose(-1, -2), k), torch.triu(x.transpose(-1, -2), k))
    y, yc = x.clone(), xc.clone()
    y.tril_(k)
    yc.tril_(k)
    _eq(yc, y)


def test_causal_mask(cuda):
    # what attention code builds: a lower-triangular boolean mask
    m = torch.tril(torch.ones(16, 16, dtype=torch.bool, device=cuda))
    _eq(m, torch.tril(torch.ones(16, 16, dtype=torch.bool)))


def _any(shape, dtype, seed):
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))
    return _data(shape, dtype, seed)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.bool,
                                   torch.complex128])
def test_index_copy_fill(cuda, dtype):
    x = _any((5, 4, 3), dtype, 26)
    i = torch.tensor([3, 0, 4])
    for dim in (0, 1, 2):
        i_dim = i % x.shape[dim]
        i_dim = torch.unique(i_dim)          # index_copy with repeats is unordered
        src_shape = list(x.shape)
        src_shape[dim] = len(i_dim)
        src = _any(tuple(src_shape), dtype, 28 + dim)
        a, ac = x.clone(), x.to(cuda)
        a.index_copy_(dim, i_dim, src)
        ac.index_copy_(dim, i_dim.to(cuda), src.to(cuda))
        _eq(ac, a)
        v = True if dtype == torch.bool else 2
        a.index_fill_(dim, torch.tensor([-1, 1]), v)
        ac.index_fill_(dim, torch.tensor([-1, 1]).to(cuda), v)
        _eq(ac, a)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.uint8])
@pytest.mark.parametrize("dims", [(0,), (1,), (0, 2), (2,)])
def test_flip(cuda, dtype, dims):
    x = _data((4, 5, 3), dtype, 27)
    _eq(torch.flip(x.to(cuda), dims), torch.flip(x, dims))
    _eq(torch.flip(x.to(cuda).transpose(0, 2), dims), torch.flip(x.transpose(0, 2), dims))

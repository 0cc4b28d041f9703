"""Sorting on cuda under torchfl (the "sort" family of the op table):
torch.sort / argsort through PyTorch's in-place slice kernels (bitonic,
cub block radix sort) and cub's device-wide and segmented radix sorts, and
torch.randperm (a cub radix sort of random keys plus a tie shuffle).

References: the same op on the CPU for sort (values exactly, indices
exactly wherever the order is defined: stable sorts, or no ties); for
randperm, whose CUDA generator the CPU does not have, the permutation
property and determinism per seed.
"""
import pytest
import torch

# (shape, dim): slice lengths that take each of PyTorch's paths - bitonic
# (<= 32, unstable), cub block radix sort (<= 4096: 16x2, 32x4, 32x32,
# 64x32, 128x32 tiles), cub single tile / onesweep (one large slice),
# sort by full sort (< 128 slices) and segmented radix sort (>= 128).
SHAPES = [
    ((1,), 0), ((2,), 0), ((17,), 0), ((4, 20), 1), ((20, 4), 0), ((3, 100), 1),
    ((5, 1000), 1), ((2, 2049), 1), ((3, 4096), 1), ((7, 33, 5), 1), ((100000,), 0),
    ((3, 5000), 1), ((130, 4100), 1),
]


def same(a, b):
    """Exact equality, NaN equal to NaN."""
    a = a.cpu()
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return torch.equal(torch.isnan(a), torch.isnan(b)) and torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0))
    return torch.equal(a, b)


def make(shape, dtype, ties=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        if ties:
            return torch.randint(-4, 5, shape, generator=g).to(dtype)
        return torch.randn(shape, generator=g).to(dtype)
    if dtype == torch.uint8:
        return torch.randint(0, 256 if not ties else 5, shape, generator=g, dtype=dtype)
    hi = 5 if ties else 1_000_000
    return torch.randint(-hi, hi, shape, generator=g).to(dtype)


@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [False, True])
def test_sort_float32(cuda, shape, dim, descending, stable):
    x = make(shape, torch.float32)
    v, i = x.to(cuda).sort(dim=dim, descending=descending, stable=stable)
    vc, ic = x.sort(dim=dim, descending=descending, stable=stable)
    assert same(v, vc)
    if stable:
        assert same(i, ic)
    else:
        # ties (randn repeats itself in 1e5 draws) may come in any order:
        # the indices must pick the sorted values and be a permutation
        assert same(x.gather(dim, i.cpu()), vc)
        assert same(i.sort(dim=dim).values, ic.sort(dim=dim).values)


@pytest.mark.parametrize("shape,dim", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_sort_stable_ties(cuda, shape, dim, descending, dtype):
    x = make(shape, dtype, ties=True, seed=1)
    v, i = x.to(cuda).sort(dim=dim, descending=descending, stable=True)
    vc, ic = x.sort(dim=dim, descending=descending, stable=True)
    assert same(v, vc)
    assert same(i, ic)


@pytest.mark.parametrize("shape,dim", [((4, 20), 1), ((3, 1000), 1), ((100000,), 0), ((3, 5000), 1),
                                       ((130, 4100), 1)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.int32, torch.int16, torch.int8, torch.uint8,
                                   torch.float16, torch.bfloat16])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_dtypes(cuda, shape, dim, dtype, descending):
    x = make(shape, dtype, ties=True, seed=2)
    v, i = x.to(cuda).sort(dim=dim, descending=descending, stable=True)
    vc, ic = x.sort(dim=dim, descending=descending, stable=True)
    assert same(v, vc)
    assert same(i, ic)


@pytest.mark.parametrize("n", [7, 20, 300, 3000, 50000])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_nan_inf_signed_zero(cuda, n, descending):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(n, generator=g)
    special = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0])
    pick = torch.randint(0, 5, (n,), generator=g)
    mask = torch.rand(n, generator=g) < 0.4
    x = torch.where(mask, special[pick], x)
    v, i = x.to(cuda).sort(descending=descending, stable=True)
    vc, ic = x.sort(descending=descending, stable=True)
    # NaN last ascending, first descending; -0.0 and +0.0 tie (stable)
    assert same(v, vc)
    assert same(i, ic)
    assert torch.equal(torch.signbit(v.cpu()), torch.signbit(vc))


@pytest.mark.parametrize("n", [5, 40, 1000, 6000])
def test_sort_noncontiguous(cuda, n):
    x = make((n, 6), torch.float32, seed=4)
    xc = x.to(cuda)
    for view, ref in [(xc.t(), x.t()), (xc[::2], x[::2]), (xc[:, 1:5], x[:, 1:5])]:
        for dim in (0, 1):
            for desc in (False, True):
                v, i = view.sort(dim=dim, descending=desc, stable=True)
                vc, ic = ref.sort(dim=dim, descending=desc, stable=True)
                assert same(v, vc)
                assert same(i, ic)


@pytest.mark.parametrize("shape,dim", [((0,), 0), ((3, 0), 1), ((0, 5), 1), ((), 0)])
def test_sort_empty_and_scalar(cuda, shape, dim):
    x = torch.randn(shape)
    v, i = x.to(cuda).sort(dim=dim)
    vc, ic = x.sort(dim=dim)
    assert same(v, vc)
    assert same(i, ic)


@pytest.mark.parametrize("shape,dim", [((50,), 0), ((4, 3000), 1), ((20000,), 0)])
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_and_msort(cuda, shape, dim, descending):
    x = make(shape, torch.float32, seed=5)
    a = torch.argsort(x.to(cuda), dim=dim, descending=descending, stable=True)
    assert same(a, torch.argsort(x, dim=dim, descending=descending, stable=True))
    if len(shape) == 2:
        assert same(torch.msort(x.to(cuda).t()), torch.msort(x.t()))


@pytest.mark.parametrize("n", [1, 2, 10, 1000, 30000, 100000])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32])
def test_randperm_is_deterministic_permutation(cuda, n, dtype):
    torch.manual_seed(7)
    a = torch.randperm(n, device=cuda, dtype=dtype).cpu()
    b = torch.randperm(n, device=cuda, dtype=dtype).cpu()
    torch.manual_seed(7)
    c = torch.randperm(n, device=cuda, dtype=dtype).cpu()
    assert a.dtype == dtype and a.shape == (n,)
    assert torch.equal(a.sort().values, torch.arange(n, dtype=dtype))
    assert torch.equal(b.sort().values, torch.arange(n, dtype=dtype))
    assert torch.equal(a, c)
    if n >= 1000:
        assert not torch.equal(a, b)
        assert not torch.equal(a, torch.arange(n, dtype=dtype))


def test_randperm_empty(cuda):
    assert torch.randperm(0, device=cuda).numel() == 0


def test_randperm_small_is_not_biased(cuda):
    # randperm(3) keys have few bits, so key ties are frequent: the tie
    # shuffle must leave all 6 orders about equally likely.
    torch.manual_seed(11)
    counts = {}
    for _ in range(600):
        p = tuple(torch.randperm(3, device=cuda).cpu().tolist())
        counts[p] = counts.get(p, 0) + 1
    assert len(counts) == 6
    assert all(50 <= c <= 150 for c in counts.values()), counts


# --- ops that sort indices first: embedding backward with more than 3072
# indices (cub radix sort, unique-by-key, scans, segment sums),
# index_put_(accumulate=True) and index_add_ (sort + indexing_backward).

@pytest.mark.parametrize("n,rows,width,padding", [(3073, 100, 8, None), (5000, 1000, 16, None),
                                                  (5000, 50, 7, 3), (20000, 3000, 33, None),
                                                  (4000, 10, 1, 0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_embedding_backward_many_indices(cuda, n, rows, width, padding, dtype):
    g = torch.Generator().manual_seed(n + rows)
    w = torch.randn(rows, width, generator=g, dtype=dtype)
    idx = torch.randint(0, rows, (n,), generator=g)
    grad_out = torch.randn(n, width, generator=g, dtype=dtype)
    wc = w.clone().requires_grad_()
    wg = w.to(cuda).requires_grad_()
    torch.nn.functional.embedding(idx, wc, padding_idx=padding).backward(grad_out)
    torch.nn.functional.embedding(idx.to(cuda), wg, padding_idx=padding).backward(grad_out.to(cuda))
    # rows repeat ~n/rows times: float sums of that many terms, in another
    # order than the CPU's
    tol = max(1e-5, 1e-6 * n / rows) if dtype == torch.float32 else 1e-12
    assert torch.allclose(wg.grad.cpu(), wc.grad, rtol=tol, atol=tol)
    if padding is not None:
        assert torch.count_nonzero(wg.grad.cpu()[padding]) == 0


@pytest.mark.parametrize("n,rows,width", [(5000, 1000, 16), (5000, 50, 7)])
@pytest.mark.parametrize("dtype,ulp", [(torch.float16, 2.0 ** -10), (torch.bfloat16, 2.0 ** -7)])
def test_embedding_backward_many_indices_half(cuda, n, rows, width, dtype, ulp):
    g = torch.Generator().manual_seed(n + rows)
    w = torch.randn(rows, width, generator=g).to(dtype)
    idx = torch.randint(0, rows, (n,), generator=g)
    grad_out = torch.randn(n, width, generator=g).to(dtype)
    # reference in double from the same half values; the GPU sums in float
    # and rounds once to the half type when it stores
    ref = torch.zeros(rows, width, dtype=torch.float64).index_add_(0, idx, grad_out.double())
    wg = w.to(cuda).requires_grad_()
    torch.nn.functional.embedding(idx.to(cuda), wg).backward(grad_out.to(cuda))
    got = wg.grad.cpu()
    assert got.dtype == dtype
    assert torch.all((got.double() - ref).abs() <= ulp * (ref.abs() + 1e-3))


@pytest.mark.parametrize("n", [100, 3073, 5000])
def test_embedding_backward_scale_grad_by_freq(cuda, n):
    # counts per index: cub inclusive sum-by-key, then a max-by-key scan
    # over reverse iterators
    g = torch.Generator().manual_seed(n)
    w = torch.randn(300, 8, generator=g)
    idx = torch.randint(0, 300, (n,), generator=g)
    grad_out = torch.randn(n, 8, generator=g)
    counts = torch.bincount(idx, minlength=300).double()
    ref = torch.zeros(300, 8, dtype=torch.float64).index_add_(0, idx, grad_out.double())
    ref = torch.where(counts[:, None] > 0, ref / counts.clamp(min=1)[:, None], ref)
    wg = w.to(cuda).requires_grad_()
    torch.nn.functional.embedding(idx.to(cuda), wg, scale_grad_by_freq=True).backward(grad_out.to(cuda))
    assert torch.allclose(wg.grad.cpu().double(), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n,m", [(3, 5), (500, 100), (10000, 37)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_index_put_accumulate_and_index_add(cuda, n, m, dtype):
    g = torch.Generator().manual_seed(n)
    idx = torch.randint(0, m, (n,), generator=g)
    v = torch.randint(-50, 50, (n,), generator=g).to(dtype)     # exact sums
    a = torch.zeros(m, dtype=dtype).index_put_((idx,), v, accumulate=True)
    b = torch.zeros(m, dtype=dtype, device=cuda).index_put_((idx.to(cuda),), v.to(cuda), accumulate=True)
    assert torch.equal(b.cpu(), a)
    src = torch.randint(-9, 9, (n, 3), generator=g).to(dtype)
    a = torch.zeros(m, 3, dtype=dtype).index_add_(0, idx, src)
    b = torch.zeros(m, 3, dtype=dtype, device=cuda).index_add_(0, idx.to(cuda), src.to(cuda))
    assert torch.equal(b.cpu(), a)


# --- torch.unique: cub radix sort (pairs when inverse is asked), run
# starts + cub scan + scatter for the inverse, cub unique or run-length
# encode for the counts.

@pytest.mark.parametrize("n,hi", [(1, 3), (1000, 50), (3000, 7), (5000, 100000)])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
def test_unique(cuda, n, hi, dtype, inverse, counts):
    g = torch.Generator().manual_seed(n + hi)
    x = torch.randint(-hi, hi, (n,), generator=g).to(dtype)
    a = torch.unique(x, return_inverse=inverse, return_counts=counts)
    b = torch.unique(x.to(cuda), return_inverse=inverse, return_counts=counts)
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for p, q in zip(b, a):
        assert same(p, q)


@pytest.mark.parametrize("n", [1, 17, 3000])
def test_unique_consecutive_and_2d(cuda, n):
    g = torch.Generator().manual_seed(n)
    x = torch.randint(0, 4, (n,), generator=g)
    a = torch.unique_consecutive(x, return_inverse=True, return_counts=True)
    b = torch.unique_consecutive(x.to(cuda), return_inverse=True, return_counts=True)
    for p, q in zip(b, a):
        assert same(p, q)
    m = torch.randint(0, 9, (3, n), generator=g)
    a = torch.unique(m, return_inverse=True)
    b = torch.unique(m.to(cuda), return_inverse=True)
    for p, q in zip(b, a):
        assert same(p, q)


# --- radix select: kthvalue, median, nanmedian (gatherKthValue,
# gatherMedian).  Values exactly as the CPU; indices must point at an
# element equal to the value (ties may pick another one than the CPU).

def _value_at(x, dim, i):
    return x.gather(dim, i.cpu().unsqueeze(dim)).squeeze(dim)


@pytest.mark.parametrize("shape,dim", [((1,), 0), ((10,), 0), ((7, 33), 1), ((33, 7), 0), ((4, 5, 6), 1),
                                       ((1000,), 0), ((3, 4097), 1)])
@pytest.mark.parametrize("dtype,nan", [(torch.float32, False), (torch.float32, True),
                                       (torch.float64, False), (torch.float64, True),
                                       (torch.int64, False), (torch.int32, False)])
def test_kthvalue_median(cuda, shape, dim, dtype, nan):
    g = torch.Generator().manual_seed(sum(shape))
    x = (torch.randn(shape, generator=g) * 10).round().to(dtype)    # many ties
    if nan:
        x.view(-1)[::5] = float("nan")
    xd = x.to(cuda)
    n = x.shape[dim]
    for k in sorted({1, (n + 1) // 2, n}):
        v, i = torch.kthvalue(xd, k, dim=dim)
        vc, _ = torch.kthvalue(x, k, dim=dim)
        assert same(v, vc)
        assert same(_value_at(x, dim, i), vc)
    for fn in (torch.median, torch.nanmedian):
        v, i = fn(xd, dim=dim)
        vc, _ = fn(x, dim=dim)
        assert same(v, vc)
        assert same(_value_at(x, dim, i), vc)


# --- topk (single-block radix select + gather; sorted=True then sorts the
# k results in place).  Large single slices take the multi-block path
# (test_topk_multiblock).

@pytest.mark.parametrize("shape,dim", [((1,), 0), ((10,), 0), ((1000,), 0), ((7, 33), 1), ((33, 7), 0),
                                       ((4, 500, 3), 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float64])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(cuda, shape, dim, dtype, largest):
    g = torch.Generator().manual_seed(sum(shape) + 1)
    x = (torch.randn(shape, generator=g) * 100).to(dtype)
    if dtype.is_floating_point and x.numel() > 9:
        x.view(-1)[::9] = float("nan")
    n = x.shape[dim]
    for k in sorted({1, n // 2, n} - {0}):
        v, i = x.to(cuda).topk(k, dim=dim, largest=largest, sorted=True)
        vc, _ = x.topk(k, dim=dim, largest=largest, sorted=True)
        assert same(v, vc)
        assert same(x.gather(dim, i.cpu()), vc)
        v, i = x.to(cuda).topk(k, dim=dim, largest=largest, sorted=False)
        assert same(v.cpu().sort(dim=dim).values, vc.sort(dim=dim).values)
        assert same(x.gather(dim, i.cpu()), v.cpu())


@pytest.mark.parametrize("shape,k", [((200000,), 5), ((200000,), 1000), ((2, 100000), 7), ((300000,), 3)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_multiblock(cuda, shape, k, dtype, largest):
    g = torch.Generator().manual_seed(shape[-1] + k)
    x = (torch.randn(shape, generator=g) * 1000).to(dtype)
    v, i = x.to(cuda).topk(k, dim=-1, largest=largest)
    vc, _ = x.topk(k, dim=-1, largest=largest)
    assert same(v, vc)
    assert same(x.gather(-1, i.cpu()), vc)

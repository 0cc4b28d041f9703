"""torch.multinomial and exponential_ on `cuda` under torchfl (the "random"
family of the op table: renormRowsL1, sampleMultinomialWithReplacement, the
exponential distribution kernel; without replacement and n = 1 PyTorch
samples argmax/topk of p / Exp(1)).

The GPU's random bits cannot be checked against a CPU generator (a
different algorithm), so these tests check properties that any correct
sampler has: frequencies close to the probabilities for a fixed seed over
many draws (6 standard deviations), zero-probability classes never drawn,
no repeats without replacement, shapes and dtypes as on cpu, determinism
per seed.
"""
import math

import pytest
import torch


def probs(rows, cols, dtype, zeros=(1,)):
    g = torch.Generator().manual_seed(rows * 131 + cols)
    p = torch.rand(rows, cols, generator=g, dtype=torch.float64) + 0.05
    for z in zeros:
        if z < cols:
            p[:, z] = 0
    return p.to(dtype)


def check_freq(samples, p):
    """samples: (rows, n) int64 on cpu; p: (rows, cols) unnormalised."""
    p = p.double()
    p = p / p.sum(-1, keepdim=True)
    rows, n = samples.shape
    for r in range(rows):
        counts = torch.bincount(samples[r], minlength=p.shape[1]).double()
        assert counts.shape[0] == p.shape[1], "a category index out of range"
        for c in range(p.shape[1]):
            q = p[r, c].item()
            if q == 0:
                assert counts[c] == 0, f"row {r}: class {c} has probability 0 but was drawn"
                continue
            sd = math.sqrt(n * q * (1 - q))
            assert abs(counts[c].item() - n * q) <= 6 * sd + 1, (r, c, counts[c].item(), n * q)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(1, 5), (3, 7), (2, 300)])
def test_with_replacement_frequencies(cuda, dtype, shape):
    p = probs(*shape, dtype)
    torch.manual_seed(1234)
    s = torch.multinomial(p.to(cuda), 20000, replacement=True)
    assert s.dtype == torch.int64 and s.device.type == "cuda"
    s = s.cpu()
    assert s.shape == (shape[0], 20000)
    assert int(s.min()) >= 0 and int(s.max()) < shape[1]
    check_freq(s, p)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_with_replacement_1d(cuda, dtype):
    p = probs(1, 6, dtype, zeros=(0, 4))[0]
    torch.manual_seed(7)
    s = torch.multinomial(p.to(cuda), 30000, replacement=True).cpu()
    assert s.shape == (30000,)
    check_freq(s[None], p[None])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_single_sample_many_rows(cuda, dtype):
    # n = 1 takes the p / Exp(1) argmax path: one draw per row, so many
    # identical rows give the frequencies.
    p = probs(1, 5, dtype, zeros=(2,))
    torch.manual_seed(3)
    s = torch.multinomial(p.expand(20000, 5).contiguous().to(cuda), 1).cpu()
    assert s.shape == (20000, 1) and s.dtype == torch.int64
    check_freq(s.T.contiguous(), p)
    p1 = p[0]
    s1 = torch.multinomial(p1.to(cuda), 1).cpu()
    assert s1.shape == (1,) and p1[s1[0]] > 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("rows,cols,k", [(1, 10, 4), (5, 9, 8), (4, 50, 20)])
def test_without_replacement(cuda, dtype, rows, cols, k):
    p = probs(rows, cols, dtype, zeros=(1,))
    torch.manual_seed(11)
    s = torch.multinomial(p.to(cuda), k, replacement=False).cpu()
    assert s.shape == (rows, k) and s.dtype == torch.int64
    for r in range(rows):
        row = s[r].tolist()
        assert len(set(row)) == k, f"repeats without replacement: {row}"
        assert all(0 <= c < cols and p[r, c] > 0 for c in row), row


def test_without_replacement_all_nonzero_is_permutation(cuda):
    p = probs(3, 8, torch.float32, zeros=(2, 5))
    torch.manual_seed(5)
    s = torch.multinomial(p.to(cuda), 6, replacement=False).cpu()
    for r in range(3):
        assert sorted(s[r].tolist()) == [0, 1, 3, 4, 6, 7]


def test_without_replacement_first_pick_frequencies(cuda):
    # the first of the k draws without replacement is distributed as p
    p = probs(1, 6, torch.float32, zeros=(3,))
    torch.manual_seed(21)
    s = torch.multinomial(p.expand(20000, 6).contiguous().to(cuda), 3,
                          replacement=False).cpu()
    check_freq(s[:, 0][None].contiguous(), p)


@pytest.mark.parametrize("replacement,n", [(True, 50), (False, 4), (True, 1)])
def test_deterministic_per_seed(cuda, replacement, n):
    p = probs(4, 12, torch.float32).to(cuda)
    torch.manual_seed(99)
    a = torch.multinomial(p, n, replacement=replacement).cpu()
    torch.manual_seed(99)
    b = torch.multinomial(p, n, replacement=replacement).cpu()
    c = torch.multinomial(p, n, replacement=replacement).cpu()
    assert torch.equal(a, b)
    if n > 1:
        assert not torch.equal(a, c), "the generator did not advance"


def test_one_category_and_degenerate(cuda):
    p = torch.tensor([[0.0, 0.0, 2.0, 0.0]])
    torch.manual_seed(0)
    s = torch.multinomial(p.to(cuda), 100, replacement=True).cpu()
    assert torch.equal(s, torch.full((1, 100), 2, dtype=torch.int64))
    s = torch.multinomial(p.to(cuda), 1).cpu()
    assert s.item() == 2


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("lam", [1.0, 2.5])
def test_exponential(cuda, dtype, lam):
    torch.manual_seed(42)
    n = 200000
    x = torch.empty(n, dtype=dtype, device=cuda).exponential_(lam).cpu().double()
    assert bool((x > 0).all()) and bool(torch.isfinite(x).all())
    mean = 1.0 / lam
    # mean and the exponential's CDF at its median
    assert abs(x.mean().item() - mean) <= 6 * mean / math.sqrt(n)
    below = (x < math.log(2) / lam).double().mean().item()
    assert abs(below - 0.5) <= 6 * 0.5 / math.sqrt(n)
    torch.manual_seed(42)
    y = torch.empty(n, dtype=dtype, device=cuda).exponential_(lam).cpu().double()
    assert torch.equal(x, y)


@pytest.mark.parametrize("replacement,n", [(True, 40), (False, 5), (True, 1)])
def test_non_contiguous_and_many_rows(cuda, replacement, n):
    # a transposed probability matrix, 300 distributions
    p = probs(300, 12, torch.float32, zeros=(4,)).t().contiguous().t()
    assert not p.is_contiguous()
    torch.manual_seed(17)
    s = torch.multinomial(p.to(cuda), n, replacement=replacement).cpu()
    assert s.shape == (300, n)
    assert int(s.min()) >= 0 and int(s.max()) < 12
    assert not bool((s == 4).any()), "a zero-probability class was drawn"
    if not replacement:
        for r in range(300):
            assert len(set(s[r].tolist())) == n


def test_without_replacement_1d_all(cuda):
    p = torch.tensor([0.1, 0.0, 3.0, 0.2, 0.0, 1.0])
    torch.manual_seed(2)
    s = torch.multinomial(p.to(cuda), 4, replacement=False).cpu()
    assert s.shape == (4,) and sorted(s.tolist()) == [0, 2, 3, 5]

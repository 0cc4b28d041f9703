"""F.embedding_bag / nn.EmbeddingBag on `cuda` under torchfl (the embedding
family of the op table: EmbeddingBag_updateOutputKernel_sum_mean/_max,
EmbeddingBag_accGradParametersKernel_max, compute_grad_weight_bags and the
per_sample_weights backward), forward and backward against PyTorch on cpu
from the same inputs.
"""
import pytest
import torch
import torch.nn.functional as F


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-12, atol=1e-12)


def make(num_weights, dim, n, bags, dtype, index_dtype, seed, empty_bag=False):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(num_weights, dim, generator=g, dtype=dtype)
    idx = torch.randint(0, num_weights, (n,), generator=g).to(index_dtype)
    cuts = torch.sort(torch.randint(0, n + 1, (bags - 1,), generator=g)).values
    off = torch.cat([torch.zeros(1, dtype=torch.int64), cuts])
    if empty_bag and bags > 2:
        off[2] = off[1]         # bag 1 empty
    return w, idx, off.to(index_dtype)


def run(w, idx, off, dev, mode, psw=None, padding_idx=None, include_last_offset=False):
    w = w.to(dev).requires_grad_()
    p = psw.to(dev).requires_grad_() if psw is not None else None
    out = F.embedding_bag(idx.to(dev), w, off.to(dev), mode=mode, per_sample_weights=p,
                          padding_idx=padding_idx, include_last_offset=include_last_offset)
    g = torch.Generator().manual_seed(123)
    up = torch.randn(out.shape, generator=g, dtype=out.dtype)
    (out * up.to(dev)).sum().backward()
    return (out.detach().cpu(), w.grad.cpu(),
            p.grad.cpu() if p is not None else None)


def compare(a, b, dtype):
    for x, y in zip(a, b):
        if x is None:
            assert y is None
            continue
        assert x.shape == y.shape and x.dtype == y.dtype
        torch.testing.assert_close(x, y, **tol(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("shape", [(10, 4, 8, 2), (50, 33, 100, 7), (7, 1, 1, 1), (300, 64, 500, 40)])
def test_embedding_bag(cuda, dtype, index_dtype, mode, shape):
    nw, dim, n, bags = shape
    w, idx, off = make(nw, dim, n, bags, dtype, index_dtype, seed=sum(shape))
    compare(run(w, idx, off, cuda, mode), run(w, idx, off, "cpu", mode), dtype)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_empty_bag(cuda, mode):
    w, idx, off = make(20, 5, 30, 6, torch.float32, torch.int64, seed=3, empty_bag=True)
    compare(run(w, idx, off, cuda, mode), run(w, idx, off, "cpu", mode), torch.float32)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_padding_idx(cuda, mode):
    w, idx, off = make(12, 6, 40, 5, torch.float32, torch.int64, seed=4)
    idx[::3] = 2
    idx[5] = 2
    compare(run(w, idx, off, cuda, mode, padding_idx=2),
            run(w, idx, off, "cpu", mode, padding_idx=2), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_per_sample_weights(cuda, dtype, padding_idx):
    w, idx, off = make(15, 9, 60, 8, dtype, torch.int64, seed=5)
    idx[::4] = 1
    psw = torch.rand(60, generator=torch.Generator().manual_seed(6), dtype=dtype)
    compare(run(w, idx, off, cuda, "sum", psw=psw, padding_idx=padding_idx),
            run(w, idx, off, "cpu", "sum", psw=psw, padding_idx=padding_idx), dtype)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_include_last_offset_and_2d_input(cuda, mode):
    w, idx, off = make(25, 7, 36, 5, torch.float32, torch.int64, seed=7)
    off_last = torch.cat([off, torch.tensor([36])])
    compare(run(w, idx, off_last, cuda, mode, include_last_offset=True),
            run(w, idx, off_last, "cpu", mode, include_last_offset=True), torch.float32)
    # 2-D input: fixed-size bags, no offsets
    idx2 = idx.view(6, 6)
    wc = w.cuda().detach().requires_grad_()
    out = F.embedding_bag(idx2.cuda(), wc, mode=mode)
    out.sum().backward()
    w2 = w.detach().clone().requires_grad_()
    ref = F.embedding_bag(idx2, w2, mode=mode)
    ref.sum().backward()
    torch.testing.assert_close(out.detach().cpu(), ref.detach(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(wc.grad.cpu(), w2.grad, rtol=1e-5, atol=1e-5)


def test_module_non_contiguous_weight(cuda):
    m = torch.nn.EmbeddingBag(30, 8, mode="mean")
    wt = torch.randn(8, 30).t()                 # a transposed (strided) weight
    with torch.no_grad():
        idx = torch.randint(0, 30, (50,), generator=torch.Generator().manual_seed(8))
        off = torch.tensor([0, 10, 10, 31, 49])
        ref = F.embedding_bag(idx, wt, off, mode="mean")
        out = F.embedding_bag(idx.cuda(), wt.cuda(), off.cuda(), mode="mean").cpu()
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    m = m.cuda()
    assert m(idx.cuda(), off.cuda()).shape == (5, 8)

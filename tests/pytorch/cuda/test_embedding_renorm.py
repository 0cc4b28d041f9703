"""F.embedding(..., max_norm=...) under torchfl: embedding_renorm_'s
renorm_kernel (the "embedding" op family), compared with PyTorch on the
CPU (which computes each row's norm in double)."""
import pytest
import torch
import torch.nn.functional as F


# (PyTorch's GPU kernel sums pow(x, p) without abs for p other than 1 and 2,
# so for odd p it differs from the CPU's norm; even p agree)
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 4.0])
@pytest.mark.parametrize("dtype,rtol", [(torch.float32, 2e-6), (torch.float64, 1e-12)])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("vocab,dim,nidx", [(10, 4, 20), (50, 33, 7), (5, 1, 3)])
def test_embedding_max_norm(cuda, norm_type, dtype, rtol, index_dtype, vocab, dim, nidx):
    g = torch.Generator().manual_seed(vocab * dim + nidx)
    w = (torch.randn(vocab, dim, generator=g) * 1.5).to(dtype)
    idx = torch.randint(0, vocab, (nidx,), generator=g).to(index_dtype)
    w[idx[0]] = 2.0                       # at least one row over the bound
    max_norm = 1.25
    wc = w.clone()
    ref = F.embedding(idx, wc, max_norm=max_norm, norm_type=norm_type)
    wd = w.to(cuda)
    out = F.embedding(idx.to(cuda), wd, max_norm=max_norm, norm_type=norm_type).cpu()
    # the rows looked up are renormalised in place, the others untouched
    assert torch.allclose(wd.cpu(), wc, rtol=rtol, atol=0)
    assert torch.allclose(out, ref, rtol=rtol, atol=0)
    norms = wc[idx.long().unique()].double().norm(p=norm_type, dim=1)
    assert (norms <= max_norm * (1 + 1e-5)).all()
    assert not torch.equal(wc, w)         # some row was over the bound


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_embedding_max_norm_lowp(cuda, dtype):
    g = torch.Generator().manual_seed(5)
    w = (torch.randn(30, 16, generator=g) * 2).to(dtype)
    idx = torch.randint(0, 30, (40,), generator=g)
    wd = w.to(cuda)
    out = F.embedding(idx.to(cuda), wd, max_norm=1.0).cpu()
    wc = w.clone()
    ref = F.embedding(idx, wc, max_norm=1.0)
    tol = 4e-3 if dtype == torch.float16 else 2e-2
    assert torch.allclose(out.float(), ref.float(), rtol=tol, atol=tol * 1e-2)
    assert torch.allclose(wd.cpu().float(), wc.float(), rtol=tol, atol=tol * 1e-2)
